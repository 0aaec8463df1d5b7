//! The router chip (NRC). So far: the input unit of a port ([`port`]: the DAMQ input buffer
//! behind the router channel), the relay-station mesh ([`rs_mesh`]) that carries management
//! packets between the ports and the management agent, and the register space ([`regs`]).
//! Still to come: output units, routing tables, allocators, crossbar.
#![allow(clippy::needless_range_loop)]
pub mod nrc_mgmt;
pub mod port;
pub mod regs;
pub mod rs_mesh;
pub mod tops;
