//! The router's tops, emitted beside the `hdl` ones by `hpcnet emit` (see `src/emit.rs`), so
//! that lint, synthesis and `tests/fresh.rs` check them as they will be used.
use crate::rs_mesh::RsMesh8;
use hdl::params::Config;
use hdl::tops::{emit, Emitted};

/// Every `nrc` top of `cfg`, in emission order. The configuration has no router section yet,
/// so the mesh is the 8-port one (2 rows of 4); the published 24-port mesh (`RsMesh24`) is
/// synthesized by the `rs_mesh` unit tests.
pub fn tops(_cfg: &Config) -> Result<Vec<Emitted>, String> {
    Ok(vec![emit(
        RsMesh8::new(),
        "nrc_rs_mesh",
        "the router's relay-station mesh, 8 ports in 2 rows of 4, 20-bit beats: port packets to the management agent, its packets to the ports, packets to nonexistent ports dropped and counted",
    )?])
}

/// The router's register maps: its whole space for the default build (8 ports in 2 rows, the
/// agent's default fault inputs).
pub fn regmaps(_cfg: &Config) -> Result<Vec<hdl::regmap::RegMap>, String> {
    Ok(vec![crate::regs::nrc_map(
        8,
        2,
        hdl::mgmt::regs::NMA_FAULTS,
    )?])
}
