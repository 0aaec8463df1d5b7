//! The FPGA flow: lint, synthesis, place-and-route, bitstream, and block cost measurement for
//! the Alchitry Cu (iCE40-HX8K, cb132, 100 MHz clock on P7).
//!
//! Every step runs its tools with logs in a work directory the caller gives, checks each exit
//! status, and fails with the tail of the tool's log; none of them "returns normally" after a
//! tool failed. One file per concern:
//!
//! | step | function | tools |
//! |---|---|---|
//! | lint | [`lint()`] | `verilator --lint-only -Wall` + `lint/verilator.vlt`, [`hazards`] scan |
//! | synthesis | [`synth()`] | Yosys generic `synth` (latch, `check -assert`) and `synth_ice40` |
//! | place and route | [`place()`] | Yosys `synth_ice40 -json`, `nextpnr-ice40 --hx8k --package cb132` |
//! | bitstream | [`bitstream()`] | the above with a PCF, then `icepack` |
//! | block cost | [`measure_block()`] | synthesis of the block alone, nextpnr on a generated [`harness`] |
//!
//! Each simple function takes one Verilog file; its `_with` twin takes several sources and an
//! options struct. Tools are found on `PATH` or through `HPCNET_YOSYS`, `HPCNET_NEXTPNR_ICE40`,
//! `HPCNET_VERILATOR`, `HPCNET_ICEPACK` ([`tools::Tool`]).
pub mod harness;
pub mod hazards;
pub mod lint;
pub mod measure;
pub mod pnr;
pub mod synth;
pub mod tools;

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
pub use tools::{flow_version, FlowVersion, Tool};

use anyhow::Result;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

/// A fresh, empty directory under the system temp directory, unique to this process and call
/// (`hpcnet-fpga-<name>-<pid>-<n>`), for tests and one-off runs.
pub fn scratch_dir(name: &str) -> Result<PathBuf> {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("hpcnet-fpga-{name}-{}-{n}", std::process::id()));
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
