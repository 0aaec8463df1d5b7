//! The router chip (NRC). So far: the relay-station mesh ([`rs_mesh`]) that carries management
//! packets between the ports and the management agent, the register space ([`regs`]), the
//! management plane ([`nrc_mgmt`]) and the routing of data packets ([`routing`]: run-time route
//! table, adaptive or deterministic port choice). Still to come: ports, VC buffers,
//! allocators, crossbar.
pub mod nrc_mgmt;
pub mod regs;
pub mod routing;
pub mod rs_mesh;
pub mod tops;
