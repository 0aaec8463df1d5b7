//! The router chip (NRC). So far: the relay-station mesh ([`rs_mesh`]) that carries management
//! packets between the ports and the management agent, and the register space ([`regs`]). Still to come: ports, VC buffers,
//! routing tables, allocators, crossbar, management agent.
pub mod nrc_mgmt;
pub mod regs;
pub mod rs_mesh;
pub mod tops;
