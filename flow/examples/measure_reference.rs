//! Measures the reference modules with hpcnet's flow and writes `bench/reference.toml`.
//!
//! ```text
//! cargo run -p flow --example measure_reference -- [--target ice40|ecp5] <dir with the reference .v files> [out.toml]
//! ```
//!
//! `--target ice40` (the default) rewrites every entry's iCE40 figures and keeps the ECP5 ones
//! already in the table; `--target ecp5` fills each existing entry's `ecp5` table and keeps the
//! rest.
//!
//! The third-party files are not in this repository and this program does not fetch them:
//! put the files named below (repository, path, commit) into the directory yourself. Each is
//! measured through our wrapper in `bench/wrappers/` with [`flow::measure_block_with`].
use anyhow::{bail, Context, Result};
use flow::reference::{self, Figures, ReferenceEntry, ReferenceTable, SourceFile, Unmeasured};
use flow::{self, MeasureOptions};
use flow::{SynthOptions, Target};
use std::collections::BTreeMap;
use std::path::PathBuf;

const VERILOG_AXIS_AXIS_FIFO: (&str, &str, &str) = (
    "alexforencich/verilog-axis",
    "rtl/axis_fifo.v",
    "188de7e1d63c5e1a0fd6f73665478dc8ac1d5e67",
);
const VERILOG_AXIS_ARBITER: (&str, &str, &str) = (
    "alexforencich/verilog-axis",
    "rtl/arbiter.v",
    "7bfab33f49ce96f1afed68d7aa7a3dcd8b7902c1",
);
// verilog-axis's stored priority_encoder.v predates the LSB_HIGH_PRIORITY parameter its
// arbiter.v passes; verilog-axi carries the current one.
const VERILOG_AXI_PRIORITY_ENCODER: (&str, &str, &str) = (
    "alexforencich/verilog-axi",
    "rtl/priority_encoder.v",
    "5b255a3cb485352647e580cb7c0ca57d17d74f26",
);
const VERILOG_AXIS_ARB_MUX: (&str, &str, &str) = (
    "alexforencich/verilog-axis",
    "rtl/axis_arb_mux.v",
    "7bfab33f49ce96f1afed68d7aa7a3dcd8b7902c1",
);
const VERILOG_ETHERNET_LFSR: (&str, &str, &str) = (
    "alexforencich/verilog-ethernet",
    "rtl/lfsr.v",
    "0fd157964a753048ff6c712e0959b5f583b33e57",
);

struct Spec {
    name: &'static str,
    what: &'static str,
    top: &'static str,
    parameters: &'static [(&'static str, &'static str)],
    sources: &'static [(&'static str, &'static str, &'static str)],
    notes: Option<&'static str>,
}

const SPECS: [Spec; 4] = [
    Spec {
        name: "axis_fifo_d32_w32",
        what: "Synchronous stream FIFO, 32 deep x 32 bits, valid/ready only (hpcnet's stream FIFO)",
        top: "ref_axis_fifo_d32_w32",
        parameters: &[
            ("DEPTH", "32"),
            ("DATA_WIDTH", "32"),
            ("KEEP_ENABLE", "0"),
            ("LAST_ENABLE", "0"),
            ("ID_ENABLE", "0"),
            ("DEST_ENABLE", "0"),
            ("USER_ENABLE", "0"),
            ("FRAME_FIFO", "0"),
            ("RAM_PIPELINE", "1 (default)"),
            ("OUTPUT_FIFO_ENABLE", "0 (default)"),
        ],
        sources: &[VERILOG_AXIS_AXIS_FIFO],
        notes: Some(
            "Storage in block RAM plus one output pipeline register; status outputs left open.",
        ),
    },
    Spec {
        name: "arbiter_rr8",
        what: "Round-robin arbiter, 8 requesters, lowest index first (hpcnet's RrArbiter)",
        top: "ref_arbiter_rr8",
        parameters: &[
            ("PORTS", "8"),
            ("ARB_TYPE_ROUND_ROBIN", "1"),
            ("ARB_BLOCK", "0"),
            ("ARB_BLOCK_ACK", "0"),
            ("ARB_LSB_HIGH_PRIORITY", "1"),
        ],
        sources: &[VERILOG_AXIS_ARBITER, VERILOG_AXI_PRIORITY_ENCODER],
        notes: Some(
            "Module verilog_axis_arbiter. Its grant is registered (one cycle after the request); \
             priority_encoder.v is verilog-axi's, because verilog-axis's stored copy predates \
             the LSB_HIGH_PRIORITY parameter.",
        ),
    },
    Spec {
        name: "crc32_d64",
        what: "Ethernet CRC-32 over 64 data bits per cycle with registered state (hpcnet's CRC engine)",
        top: "ref_crc32_d64",
        parameters: &[
            ("LFSR_WIDTH", "32"),
            ("LFSR_POLY", "32'h04c11db7"),
            ("LFSR_CONFIG", "\"GALOIS\""),
            ("LFSR_FEED_FORWARD", "0"),
            ("REVERSE", "1"),
            ("DATA_WIDTH", "64"),
            ("STYLE", "\"AUTO\""),
        ],
        sources: &[VERILOG_ETHERNET_LFSR],
        notes: Some(
            "lfsr is combinational; the wrapper registers the 32-bit state (reset to all ones, \
             advanced when valid) and outputs it inverted. Yosys's preprocessor still sees the file's \
             `define SIMULATION inside `translate_off`, so STYLE AUTO elaborates the REDUCTION \
             form (same function as LOOP).",
        ),
    },
    Spec {
        name: "axis_arb_mux_s4_w64",
        what: "4-to-1 stream multiplexer, 64 bits, round robin, packets not interleaved (hpcnet's StreamMux)",
        top: "ref_axis_arb_mux_s4_w64",
        parameters: &[
            ("S_COUNT", "4"),
            ("DATA_WIDTH", "64"),
            ("KEEP_ENABLE", "0"),
            ("ID_ENABLE", "0"),
            ("DEST_ENABLE", "0"),
            ("USER_ENABLE", "0"),
            ("LAST_ENABLE", "1"),
            ("UPDATE_TID", "0"),
            ("ARB_TYPE_ROUND_ROBIN", "1"),
            ("ARB_LSB_HIGH_PRIORITY", "1"),
        ],
        sources: &[
            VERILOG_AXIS_ARB_MUX,
            VERILOG_AXIS_ARBITER,
            VERILOG_AXI_PRIORITY_ENCODER,
        ],
        notes: Some(
            "Registers every input (4 x 65 bits) and the output (skid pair), so its paths are \
             short; the arbiter blocks on acknowledge until tlast.",
        ),
    },
];

fn main() -> Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut target = Target::Ice40;
    if args.first().map(String::as_str) == Some("--target") {
        let name = args.get(1).cloned().unwrap_or_default();
        target = Target::parse(&name).with_context(|| format!("unknown target {name:?}"))?;
        args.drain(..2);
    }
    let Some(dir) = args.first().map(PathBuf::from) else {
        bail!("usage: measure_reference [--target ice40|ecp5] <dir with the reference .v files> [out.toml]");
    };
    let out = args
        .get(1)
        .map(PathBuf::from)
        .unwrap_or_else(reference::default_path);
    let previous = reference::load(&out).ok();
    let root = reference::crate_root();
    let version = flow::flow_version(target)?.to_string();
    let date = reference::today_utc();
    let options = MeasureOptions {
        synth: SynthOptions::for_target(target),
        ..MeasureOptions::default()
    };
    let command = format!(
        "cargo run -p flow --example measure_reference -- --target {target} {}",
        dir.display()
    );
    let work = std::env::temp_dir().join("hpcnet-measure-reference");
    let mut entries = vec![];
    for spec in &SPECS {
        let wrapper = format!("bench/wrappers/{}.v", spec.top);
        let mut sources = vec![root.join(&wrapper)];
        for (_, path, _) in spec.sources {
            let file = path.rsplit('/').next().unwrap_or(path);
            let p = dir.join(file);
            if !p.is_file() {
                bail!("{} not found: put {path} there first", p.display());
            }
            sources.push(p);
        }
        let start = std::time::Instant::now();
        let cost = flow::measure_block_with(
            &sources,
            spec.top,
            &work.join(target.name()).join(spec.name),
            &options,
        )
        .with_context(|| format!("measuring {} on {}", spec.name, target.part()))?;
        eprintln!(
            "{:<22} LUT {:>4}  FF {:>4}  BRAM {:>2}  CARRY {:>3}  Fmax {:>7.2} MHz {:?}  \
             placed LC {:>5}  [synth {:.1} s, harness synth {:.1} s, {} placements {:.1} s, total {:.1} s]",
            spec.name,
            cost.luts,
            cost.ffs,
            cost.brams,
            cost.carries,
            cost.fmax_mhz,
            cost.fmax_runs_mhz,
            cost.placed_lcs,
            cost.elapsed[0].as_secs_f64(),
            cost.elapsed[1].as_secs_f64(),
            options.seeds.len(),
            cost.elapsed[2].as_secs_f64(),
            start.elapsed().as_secs_f64()
        );
        let figures = Figures {
            luts: cost.luts,
            ffs: cost.ffs,
            brams: cost.brams,
            carries: cost.carries,
            lutrams: cost.lutrams,
            fmax_mhz: round2(cost.fmax_mhz),
            fmax_runs_mhz: cost.fmax_runs_mhz.iter().map(|f| round2(*f)).collect(),
            placed_lcs: cost.placed_lcs,
            freq_target_mhz: options.freq_mhz,
            seeds: options.seeds.clone(),
            flow_version: version.clone(),
            date: date.clone(),
            command: command.clone(),
        };
        let kept = previous.as_ref().and_then(|t| t.get(spec.name)).cloned();
        if let Target::Ecp5(_) = target {
            let mut e =
                kept.with_context(|| format!("{}: measure the iCE40 figures first", spec.name))?;
            e.ecp5 = Some(figures);
            entries.push(e);
            continue;
        }
        entries.push(ReferenceEntry {
            name: spec.name.into(),
            what: spec.what.into(),
            wrapper,
            top: spec.top.into(),
            parameters: spec
                .parameters
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<BTreeMap<_, _>>(),
            luts: cost.luts,
            ffs: cost.ffs,
            brams: cost.brams,
            carries: cost.carries,
            fmax_mhz: round2(cost.fmax_mhz),
            fmax_runs_mhz: cost.fmax_runs_mhz.iter().map(|f| round2(*f)).collect(),
            placed_lcs: cost.placed_lcs,
            freq_target_mhz: options.freq_mhz,
            seeds: options.seeds.clone(),
            flow_version: version.clone(),
            date: date.clone(),
            command: command.clone(),
            notes: spec.notes.map(str::to_string),
            source: spec
                .sources
                .iter()
                .map(|(repo, path, commit)| SourceFile {
                    repo: repo.to_string(),
                    path: path.to_string(),
                    commit: commit.to_string(),
                })
                .collect(),
            ecp5: kept.and_then(|e| e.ecp5),
        });
    }
    let table = ReferenceTable {
        entries,
        unmeasured: vec![
            Unmeasured {
                name: "pulp fifo_v3 (DEPTH 32, DATA_WIDTH 32)".into(),
                source: vec![SourceFile {
                    repo: "pulp-platform/common_cells".into(),
                    path: "src/fifo_v3.sv".into(),
                    commit: "0a0ec7ea4f08a8284c0d2a7ecce35c115aa221d0".into(),
                }],
                reason: "Yosys 0.23 read_verilog -sv stops at line 19, `parameter type dtype` \
                         (type parameters are unsupported); a conversion through sv2v would be \
                         needed, which is not installed."
                    .into(),
            },
            Unmeasured {
                name: "pulp rr_arb_tree (NumIn 8)".into(),
                source: vec![SourceFile {
                    repo: "pulp-platform/common_cells".into(),
                    path: "src/rr_arb_tree.sv".into(),
                    commit: "f776c97a4711ddcdf96a2a945f4b3c762939b755".into(),
                }],
                reason: "Declares `parameter type DataType` and `parameter type idx_t`, which \
                         Yosys 0.23 cannot parse (as fifo_v3); not attempted further."
                    .into(),
            },
        ],
    };
    table.validate()?;
    let header =
        "# iCE40-HX8K (cb132) and ECP5-85k (LFE5U-85F-6 CABGA381, each entry's `ecp5` table) cost\n\
# of open-source equivalents of hpcnet's building blocks, measured with\n\
# flow::measure_block_with: LUT/FF/BRAM/carry from synth_ice40 / synth_ecp5 of the block\n\
# alone; Fmax = median over placer seeds of nextpnr on the generated register-to-register\n\
# harness (flow::harness). Goal for hpcnet blocks: <= 1.2x LUTs, >= 0.9x Fmax.\n\
# Generated by flow/examples/measure_reference.rs; re-parsed by flow::reference's tests.\n\
# Third-party sources are not in this repository: repo/path/commit say where they were read.\n\n";
    let text = format!("{header}{}", toml::to_string(&table)?);
    reference::parse(&text)?;
    std::fs::write(&out, text).with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!("wrote {}", out.display());
    Ok(())
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}
