//! The router chip (NRC). So far: the input unit of a port ([`port`]: the DAMQ input buffer
//! behind the router channel), the routing of data packets ([`routing`]: run-time route table,
//! adaptive or deterministic port choice), the relay-station mesh ([`rs_mesh`]) that carries
//! management packets between the ports and the management agent, the register space
//! ([`regs`]), the management plane ([`nrc_mgmt`]) and the switch ([`switch`]: allocators,
//! tiled crossbar, output units), the router core that assembles them ([`router_core`]), and
//! the chip ([`nrc_top`]: the core with a link port per port).
#![allow(clippy::needless_range_loop)]
pub mod nrc_mgmt;
pub mod nrc_top;
pub mod port;
pub mod port_counters;
pub mod regs;
pub mod router_core;
pub mod routing;
pub mod rs_mesh;
pub mod switch;
pub mod tops;
