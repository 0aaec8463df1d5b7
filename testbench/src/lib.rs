//! Simulation backends and benches of hpcnet.
//!
//! One bench description, written against the [`Backend`] trait, runs on rust-hdl's own
//! simulator ([`RhdlSim`], a hand-driven loop, VCD on request) and on the emitted Verilog compiled
//! by Verilator ([`VerilatorSim`]). [`run_both`] runs a bench on both and fails on the first
//! cycle where any output port differs, so what ships is what was tested.
#![allow(clippy::needless_range_loop)]

pub mod backend;
pub mod channel_end;
pub mod cost_cases;
pub mod dual;
pub mod fabric;
pub mod host;
pub mod link_bench;
pub mod link_perf;
pub mod loader_bench;
pub mod loader_perf;
pub mod mgmt_client;
pub mod mgmt_perf;
pub mod mgmt_plane;
pub mod mgmt_plane_perf;
pub mod models;
pub mod nic_cost;
pub mod nic_fetch_perf;
pub mod nic_pair;
pub mod nic_put_perf;
pub mod nic_send;
pub mod nic_send_perf;
pub mod nma_mesh_top;
pub mod nma_top;
pub mod nrc_top_perf;
pub mod plot;
pub mod regfile_perf;
pub mod reset;
pub mod rhdl;
pub mod rng;
pub mod router_core_bench;
pub mod router_perf;
pub mod rs_perf;
pub mod speed;
pub mod switch_cost;
pub mod threaded;
pub mod verilator;

pub use backend::{Backend, PortId};
pub use dual::{run_both, run_both_seeds, DualReport};
pub use reset::ResetSchedule;
pub use rhdl::{PortTable, RhdlSim, SimValue};
pub use rng::BenchRng;
pub use verilator::VerilatorSim;
