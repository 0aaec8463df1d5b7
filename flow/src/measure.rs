//! The cost of one block on a [`crate::Target`]: LUTs, flip-flops, block RAMs and carries of
//! the block alone, and the Fmax of its register-to-register paths.
//!
//! LUT/FF/BRAM/carry counts come from the target's synthesis of the block alone (after the generic latch
//! and `check -assert` checks of [`super::synth()`]). Fmax comes from nextpnr on the generated
//! [`super::harness`], which gives the block's every input a driving flip-flop and every output
//! a capturing one with only the board clock and one output on pins. The harness's own logic
//! (LFSR, stimulus shift register, output registers and XOR tree) is **not** in the LUT/FF
//! figures, but **is** in the placed design ([`BlockCost::placed_lcs`]).
//!
//! Placement is seed-dependent (the references' Fmax moved by up to 10 % between seeds, as much
//! as the goal's 0.9x margin), so the harness is placed with several seeds and the median Fmax
//! is reported, with every run kept.
use crate::harness::{self, Harness};
use crate::pnr::{self, PlaceOptions, PnrReport};
use crate::synth::{self, SynthOptions, SynthReport};
use crate::tools;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Options of [`measure_block_with`].
#[derive(Clone, Debug)]
pub struct MeasureOptions {
    /// nextpnr's target, MHz (default 100, the board clock). With nextpnr-ice40 0.4 the
    /// target did not change the achieved Fmax of the references (100, 200 and 300 MHz gave
    /// identical placements), only whether timing "passes".
    pub freq_mhz: f64,
    /// Placer seeds; the reported Fmax is the median over them (default 1 to 5; the upper
    /// median for an even count).
    pub seeds: Vec<u64>,
    /// Clock inputs of the block; `None` recognizes them by name.
    pub clocks: Option<Vec<String>>,
    /// Synthesis options of the block alone (e.g. `chparam`), the part among them.
    pub synth: SynthOptions,
    /// How the harness drives the inputs ([`harness::Inputs::Lfsr`] for very large blocks).
    pub inputs: harness::Inputs,
    /// How the harness captures the outputs ([`harness::Outputs::Folded`] for very wide blocks).
    pub outputs: harness::Outputs,
}

impl Default for MeasureOptions {
    fn default() -> Self {
        MeasureOptions {
            freq_mhz: 100.0,
            seeds: vec![1, 2, 3, 4, 5],
            clocks: None,
            synth: SynthOptions::default(),
            inputs: harness::Inputs::Shifted,
            outputs: harness::Outputs::Registered,
        }
    }
}

/// The cost of a block.
#[derive(Clone, Debug)]
pub struct BlockCost {
    /// `SB_LUT4` of the block alone.
    pub luts: u64,
    /// `SB_DFF*` of the block alone.
    pub ffs: u64,
    /// `SB_RAM40_4K` of the block alone.
    pub brams: u64,
    /// `SB_CARRY` of the block alone.
    pub carries: u64,
    /// ECP5 distributed-RAM cells (`TRELLIS_DPR16X4`, 16 x 4 bits each) of the block alone:
    /// memories the ECP5 keeps in LUTs rather than block RAM, counted apart from `luts`.
    pub lutrams: u64,
    /// Median Fmax over the seeds, MHz, of the block inside the harness.
    pub fmax_mhz: f64,
    /// Fmax of each seed, in seed order.
    pub fmax_runs_mhz: Vec<f64>,
    /// Logic cells of the placed design, harness included (median seed's placement).
    pub placed_lcs: u64,
    /// Block input bits driven by the harness (clocks excluded).
    pub input_bits: u32,
    /// Block output bits captured by the harness.
    pub output_bits: u32,
    /// Synthesis of the block alone.
    pub block: SynthReport,
    /// Every placement, in seed order.
    pub placements: Vec<PnrReport>,
    /// The harness that was placed.
    pub harness: PathBuf,
    /// Wall time of the block's synthesis, the harness's synthesis, and all placements.
    pub elapsed: [Duration; 3],
}

impl BlockCost {
    /// Each seed's Fmax to one decimal, comma separated, for report tables.
    pub fn seeds_text(&self) -> String {
        self.fmax_runs_mhz
            .iter()
            .map(|f| format!("{f:.1}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Measures `verilog` (top `top`) with the default options; files go under `work`
/// (`block/`, `harness/`, `harness/seed<N>/`).
pub fn measure_block(verilog: &Path, top: &str, work: &Path) -> Result<BlockCost> {
    measure_block_with(&[verilog], top, work, &MeasureOptions::default())
}

/// Like [`measure_block`], over several sources and with options.
pub fn measure_block_with<P: AsRef<Path>>(
    sources: &[P],
    top: &str,
    work: &Path,
    options: &MeasureOptions,
) -> Result<BlockCost> {
    if options.seeds.is_empty() {
        bail!("at least one placer seed is needed");
    }
    let sources = tools::existing_sources(sources)?;
    let work = tools::absolute(work)?;

    let block = synth::synth_with(&sources, top, &work.join("block"), &options.synth)?;

    let mut ports = None;
    for s in &sources {
        let text =
            std::fs::read_to_string(s).with_context(|| format!("cannot read {}", s.display()))?;
        if text.contains(&format!("module {top}")) {
            if let Ok(p) = harness::parse_ports(&text, top) {
                ports = Some(p);
                break;
            }
        }
    }
    let ports = match ports {
        Some(p) => p,
        None => {
            // Report the real parse error of the file that declares the module.
            let mut err = None;
            for s in &sources {
                let text = std::fs::read_to_string(s)?;
                if let Err(e) = harness::parse_ports(&text, top) {
                    err = Some(e);
                }
            }
            return Err(err.unwrap_or_else(|| anyhow::anyhow!("no module {top} in the sources")));
        }
    };
    let h: Harness = harness::generate_with(
        top,
        &ports,
        options.clocks.as_deref(),
        options.inputs,
        options.outputs,
    )?;
    let hdir = work.join("harness");
    tools::ensure_dir(&hdir)?;
    let hv = hdir.join("harness.v");
    let target = options.synth.target;
    let hpins = hdir.join(format!("harness.{}", target.constraint_extension()));
    std::fs::write(&hv, &h.verilog)?;
    std::fs::write(&hpins, h.constraints(target))?;

    let mut harness_sources = sources.clone();
    harness_sources.push(hv.clone());
    let harness_synth = synth::synth_with(
        &harness_sources,
        &h.top,
        &hdir,
        &SynthOptions {
            generic_checks: false,
            ..options.synth.clone()
        },
    )?;
    let harness_synth_time = harness_synth.elapsed;

    let start = Instant::now();
    let mut placements = vec![];
    for seed in &options.seeds {
        let opts = PlaceOptions {
            constraints: Some(hpins.clone()),
            freq_mhz: options.freq_mhz,
            seed: Some(*seed),
            ..PlaceOptions::default()
        };
        let dir = hdir.join(format!("seed{seed}"));
        tools::ensure_dir(&dir)?;
        let p = pnr::place_netlist(harness_synth.clone(), &dir, &opts)?;
        if p.fmax_mhz().is_none() {
            bail!("nextpnr reported no clock for the harness of {top}");
        }
        placements.push(p);
    }
    let place_time = start.elapsed();
    let runs: Vec<f64> = placements
        .iter()
        .map(|p| p.fmax_mhz().unwrap_or(0.0))
        .collect();
    let mut order: Vec<usize> = (0..runs.len()).collect();
    order.sort_by(|a, b| runs[*a].total_cmp(&runs[*b]));
    let median = order[order.len() / 2];
    Ok(BlockCost {
        luts: block.luts,
        ffs: block.ffs,
        brams: block.brams,
        carries: block.carries,
        lutrams: block.cells.lutrams(),
        fmax_mhz: runs[median],
        fmax_runs_mhz: runs,
        placed_lcs: placements[median].lcs.used,
        input_bits: h.input_bits,
        output_bits: h.output_bits,
        elapsed: [block.elapsed, harness_synth_time, place_time],
        block,
        placements,
        harness: hv,
    })
}
