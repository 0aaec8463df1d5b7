//! The network interface chip (NIC). Empty until its issues: host interface, doorbells,
//! SR-IOV functions, DMA engines, completion events, management agent, congestion control.
