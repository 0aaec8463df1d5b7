//! The router chip (NRC). Empty until its issues: ports, VC buffers, routing tables,
//! allocators, crossbar, relay-station mesh, management agent.
