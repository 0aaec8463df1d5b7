//! The network interface chip (NIC). So far its register space as the management agent reaches
//! it ([`regs`]). Still to come (their issues): host interface, doorbells, SR-IOV functions, DMA
//! engines, completion events, the management agent's NIC wrapper, congestion control.
pub mod regs;
pub mod tops;
