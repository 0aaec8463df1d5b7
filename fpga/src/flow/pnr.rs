//! Placement and routing with nextpnr-ice40 on the Alchitry Cu's iCE40-HX8K (package cb132),
//! and bitstream packing with icepack.
//!
//! `nextpnr-ice40 --hx8k --package cb132 --json T.json [--pcf P] --freq F --report report.json
//! --timing-allow-fail`: the allow-fail flag makes a missed target still yield the achieved
//! Fmax (the caller decides what a miss means); without it nextpnr exits 1. Fmax per clock and
//! the utilization come from `report.json` ([`parse_report`]). nextpnr names a clock after its
//! global-buffer net (`clock$SB_IO_IN_$glb_clk`), not after the port.
//!
//! Note that nextpnr reports `SB_IO` as used/256 (the die's I/O sites); the cb132 package
//! bonds fewer, and a design with more ports than pins fails in placement ("no package pins
//! left"): measure such blocks with [`super::measure`].
use super::synth::{self, SynthOptions, SynthReport};
use super::tools::{self, Tool};
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The FPGA: Alchitry Cu.
pub const DEVICE: &str = "hx8k";
/// Its package.
pub const PACKAGE: &str = "cb132";
/// The board's 100 MHz clock pin.
pub const CLOCK_PIN: &str = "P7";
/// The board's eight LED pins, LED0 first.
pub const LED_PINS: [&str; 8] = ["J11", "K11", "K12", "K14", "L12", "L14", "M12", "N14"];

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
    /// Fmax per clock (empty for a design without clocked cells).
    pub clocks: Vec<ClockFmax>,
    /// Logic cells (`ICESTORM_LC`: a LUT4 with its flip-flop and carry).
    pub lcs: Utilization,
    /// Block RAMs (`ICESTORM_RAM`).
    pub brams: Utilization,
    /// I/O cells (`SB_IO`; "available" is the die's 256, more than cb132 bonds).
    pub ios: Utilization,
    /// Every resource nextpnr reported.
    pub utilization: BTreeMap<String, Utilization>,
    /// The synthesis that fed it.
    pub synth: SynthReport,
    /// `report.json`.
    pub report: PathBuf,
    /// The placed-and-routed `.asc`, when asked for.
    pub asc: Option<PathBuf>,
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

/// Options of [`place_with`] and [`bitstream_with`].
#[derive(Clone, Debug)]
pub struct PlaceOptions {
    /// Pin constraints; without them nextpnr places the I/Os itself.
    pub pcf: Option<PathBuf>,
    /// Allow ports that the PCF does not place (`--pcf-allow-unconstrained`).
    pub allow_unconstrained: bool,
    /// Target clock frequency, MHz.
    pub freq_mhz: f64,
    /// Placer seed (`--seed`); nextpnr's default when `None`.
    pub seed: Option<u64>,
    /// Write the routed design as `<top>.asc` (needed for a bitstream).
    pub asc: bool,
    /// Fail unless every clock meets `freq_mhz` ([`bitstream`] sets this).
    pub require_timing: bool,
    /// Synthesis options.
    pub synth: SynthOptions,
}

impl Default for PlaceOptions {
    fn default() -> Self {
        PlaceOptions {
            pcf: None,
            allow_unconstrained: false,
            freq_mhz: 100.0,
            seed: None,
            asc: false,
            require_timing: false,
            synth: SynthOptions::default(),
        }
    }
}

/// Synthesizes and places `verilog` (top `top`) at `freq_mhz`, with pins from `pcf` if given.
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
        pcf: pcf.map(Path::to_path_buf),
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

/// Places an already synthesized netlist.
pub fn place_netlist(synth: SynthReport, work: &Path, options: &PlaceOptions) -> Result<PnrReport> {
    if options.freq_mhz.is_nan() || options.freq_mhz <= 0.0 {
        bail!(
            "target frequency must be positive, got {}",
            options.freq_mhz
        );
    }
    let work = tools::absolute(work)?;
    let top = synth.top.clone();
    let report = work.join("report.json");
    let log = work.join("nextpnr.log");
    let asc = options.asc.then(|| work.join(format!("{top}.asc")));
    let _ = std::fs::remove_file(&report);
    let mut cmd = Tool::NextpnrIce40.command();
    cmd.arg(format!("--{DEVICE}"))
        .args(["--package", PACKAGE, "--json"])
        .arg(&synth.netlist)
        .args(["--freq", &format!("{}", options.freq_mhz)])
        .arg("--report")
        .arg(&report)
        .arg("--timing-allow-fail")
        .arg("-q")
        .arg("-l")
        .arg(&log);
    if let Some(pcf) = &options.pcf {
        if !pcf.is_file() {
            bail!("pin constraint file {} does not exist", pcf.display());
        }
        cmd.arg("--pcf").arg(tools::absolute(pcf)?);
    }
    if options.allow_unconstrained {
        cmd.arg("--pcf-allow-unconstrained");
    }
    if let Some(seed) = options.seed {
        cmd.args(["--seed", &seed.to_string()]);
    }
    if let Some(asc) = &asc {
        let _ = std::fs::remove_file(asc);
        cmd.arg("--asc").arg(asc);
    }
    cmd.current_dir(&work);
    let run = tools::run_logged(
        Tool::NextpnrIce40,
        &mut cmd,
        &work.join("nextpnr.out"),
        Some(&log),
    )?;
    let text = std::fs::read_to_string(&report)
        .with_context(|| format!("nextpnr did not write {}", report.display()))?;
    let (clocks, utilization) = parse_report(&text)?;
    let get = |k: &str| utilization.get(k).copied().unwrap_or_default();
    let out = PnrReport {
        top: top.clone(),
        lcs: get("ICESTORM_LC"),
        brams: get("ICESTORM_RAM"),
        ios: get("SB_IO"),
        clocks,
        utilization,
        synth,
        report,
        asc,
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
            "{top} misses timing: {}; log {}",
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
    /// The `.bin` for the board's flash.
    pub bin: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// Wall time of icepack.
    pub elapsed: Duration,
}

/// Synthesizes, places with the pins of `pcf` at `freq_mhz`, and packs `<top>.bin` in `work`.
///
/// Fails if a tool fails, if any clock misses `freq_mhz` (a bitstream that misses timing is not
/// one to load), or if icepack leaves no non-empty `.bin`.
pub fn bitstream(
    verilog: &Path,
    top: &str,
    pcf: &Path,
    freq_mhz: f64,
    work: &Path,
) -> Result<Bitstream> {
    let options = PlaceOptions {
        pcf: Some(pcf.to_path_buf()),
        freq_mhz,
        require_timing: true,
        ..PlaceOptions::default()
    };
    bitstream_with(&[verilog], top, work, &options)
}

/// Like [`bitstream`], over several sources and with options (`asc` is forced on).
pub fn bitstream_with<P: AsRef<Path>>(
    sources: &[P],
    top: &str,
    work: &Path,
    options: &PlaceOptions,
) -> Result<Bitstream> {
    let options = PlaceOptions {
        asc: true,
        ..options.clone()
    };
    let pnr = place_with(sources, top, work, &options)?;
    let asc = pnr.asc.clone().context("nextpnr wrote no .asc")?;
    if !asc.is_file() {
        bail!("nextpnr did not write {}", asc.display());
    }
    let work = tools::absolute(work)?;
    let bin = work.join(format!("{top}.bin"));
    let _ = std::fs::remove_file(&bin);
    let mut cmd = Tool::Icepack.command();
    cmd.arg(&asc).arg(&bin).current_dir(&work);
    let run = tools::run_logged(Tool::Icepack, &mut cmd, &work.join("icepack.log"), None)?;
    let bytes = std::fs::metadata(&bin)
        .with_context(|| format!("icepack did not write {}", bin.display()))?
        .len();
    if bytes == 0 {
        bail!("icepack wrote an empty {}", bin.display());
    }
    Ok(Bitstream {
        pnr,
        bin,
        bytes,
        elapsed: run.elapsed,
    })
}

/// A PCF placing each `(port, pin)`; bus bits are written `name[i]`.
pub fn pcf_text(pins: &[(&str, &str)]) -> String {
    pins.iter()
        .map(|(port, pin)| format!("set_io {port} {pin}\n"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = include_str!("../../tests/fixtures/nextpnr_report.json");

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

    #[test]
    fn pcf_lines() {
        assert_eq!(
            pcf_text(&[("clk", CLOCK_PIN), ("led[0]", LED_PINS[0])]),
            "set_io clk P7\nset_io led[0] J11\n"
        );
    }
}
