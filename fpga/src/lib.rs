//! Board files of hpcnet: the tops that put portable cores on real boards, with their pins and
//! clocks, and nothing else (the tool flow is the `flow` crate).
//!
//! - [`cu_demo`]: Alchitry Cu (Lattice iCE40-HX8K, cb132, 100 MHz on P7).
//! - [`ulx3s_demo`]: ULX3S 85F (Lattice LFE5U-85F, CABGA381, 25 MHz on G2).
//! - [`orangecrab_demo`]: OrangeCrab 85F (Lattice LFE5U-85F, CSFBGA285, 48 MHz on A9).
//! - [`demo_core`]: the portable self-checking core all three wrap.
//! - [`power_on_reset`]: the reset every board top derives from configuration.
//! - [`tops`]: the board tops of a configuration, by [`tops::Board`].
pub mod cu_demo;
pub mod demo_core;
pub mod orangecrab_demo;
pub mod power_on_reset;
pub mod tops;
pub mod ulx3s_demo;
