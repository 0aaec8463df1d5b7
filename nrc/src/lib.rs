//! The router chip (NRC). So far: the input unit of a port ([`port`]: the DAMQ input buffer
//! behind the router channel), the routing of data packets ([`routing`]: run-time route table,
//! adaptive or deterministic port choice), the relay-station mesh ([`rs_mesh`]) that carries
//! management packets between the ports and the management agent, the register space
//! ([`regs`]), the management plane ([`nrc_mgmt`]) and the switch ([`switch`]: allocators,
//! tiled crossbar, output units), and the router core that assembles them ([`router_core`]).
//! Still to come: `nrc_top` (the core with a link layer per port).
#![allow(clippy::needless_range_loop)]
pub mod nrc_mgmt;
pub mod port;
pub mod port_counters;
pub mod regs;
pub mod router_core;
pub mod routing;
pub mod rs_mesh;
pub mod switch;
pub mod tops;
