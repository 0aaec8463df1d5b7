//! The network interface chip (NIC). So far its register space as the management agent reaches
//! it ([`regs`]) and the agent's NIC wrapper ([`nic_mgmt`]). Still to come (their issues): host
//! interface, doorbells, SR-IOV functions, DMA engines, completion events, congestion control.
pub mod nic_mgmt;
pub mod regs;
pub mod tops;
