//! The network interface chip (NIC), `docs/nic-design.md`. So far: its register maps
//! ([`regs`]), the management agent's NIC wrapper ([`nic_mgmt`]), the host interface's bundles
//! ([`host`]), the doorbell FIFOs and their arbiter ([`doorbell`]), and the SR-IOV function
//! table with its MMIO decode and QP table ([`function_table`], [`mmio_decode`], [`qp_table`]). Still to come (issue 13's
//! next parts): the tag pool, descriptor fetch, send and receive engines, event writer,
//! `nic_top`.
pub mod descriptor;
pub mod dma;
pub mod doorbell;
pub mod events;
pub mod function_table;
pub mod host;
pub mod mmio_decode;
pub mod nic_mgmt;
pub mod qp_lookup;
pub mod qp_lookup_share;
pub mod qp_pointers;
pub mod qp_rams;
pub mod qp_request_decode;
pub mod qp_table;
pub mod receive;
pub mod regs;
pub mod send;
pub mod tag_pool;
pub mod tops;
