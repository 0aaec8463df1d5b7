//! FPGA side of hpcnet: the board tops (the Alchitry Cu demo) and the tool flow that lints, synthesizes, places and packs the emitted
//! Verilog for the Alchitry Cu (Lattice iCE40-HX8K, package cb132, 100 MHz clock on pin P7),
//! measures the iCE40 cost of building blocks, and holds the reference figures they are
//! compared with.
//!
//! - [`flow`]: one function per step ([`flow::lint()`], [`flow::synth()`], [`flow::place()`],
//!   [`flow::bitstream()`], [`flow::measure_block()`]), each checking every tool's exit status
//!   and returning an [`anyhow::Result`] that quotes the tool's log tail on failure.
//! - [`reference`](mod@reference): the committed figures of the open-source equivalents
//!   (`bench/reference.toml`) and the project's goal against them: at most 1.2x their LUTs and
//!   at least 0.9x their Fmax at the same parameters.
//!
//! Installed tools this was written against: Yosys 0.23, nextpnr-ice40 0.4, Verilator 5.006,
//! icepack (IceStorm).
pub mod cu_demo;
pub mod demo_core;
pub mod flow;
pub mod reference;
pub mod tops;
