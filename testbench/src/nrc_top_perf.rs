//! `bench nrc-top`: the cost of the router chip `nrc_top` (5 ports, the default configuration,
//! link endpoints included) placed on the ECP5-85k by the flow (Yosys, nextpnr-ecp5, 3 seeds,
//! the register-to-register harness: inputs from the harness's LFSR, outputs folded), goal 60
//! MHz; the management plane `nrc_mgmt` synthesized alone for the iCE40 (LUT4s, the figure
//! the per-port counters are judged by); and the router core with 6 VCs mapped to iCE40 cells.
//! Measures, never asserts.
use anyhow::Result;
use std::path::Path;

/// Prints the tables; `work` holds the flow's files.
pub fn report(work: &Path) -> Result<()> {
    let cfg = hdl::params::Config::default();
    let tops = nrc::tops::tops(&cfg).map_err(anyhow::Error::msg)?;
    let find = |name: &str| {
        tops.iter()
            .find(|t| t.name == name)
            .cloned()
            .ok_or_else(|| anyhow::anyhow!("no {name} top"))
    };
    let top = find("nrc_top")?;
    println!("\n## The router chip `nrc_top` on the ECP5-85k (goal: 60 MHz)\n");
    println!("5 ports, 2 VCs, 128-flit DAMQs, 256 destinations, link endpoints (16-LTP replay, 256-flit receive buffers per VC) and 32-flit transmit buffers per VC. Yosys + nextpnr-ecp5 (85k, CABGA381, speed 6) on the flow's harness; block synthesized alone for LUTs/FFs/BRAMs; Fmax the median of the seeds ({:?}; `HPCNET_SEEDS=1,2` picks others: one placement takes about 40 minutes).\n", seeds());
    println!("| top | LUTs | FFs | carries | BRAMs | Fmax (MHz) | seeds (MHz) | logic cells placed (harness incl.) |");
    println!("|---|---|---|---|---|---|---|---|");
    let target = flow::ECP5_ULX3S;
    let options = flow::MeasureOptions {
        seeds: seeds(),
        synth: flow::SynthOptions::for_target(target),
        inputs: flow::harness::Inputs::Lfsr,
        outputs: flow::harness::Outputs::Folded,
        ..Default::default()
    };
    let dir = work.join(target.name()).join(&top.name);
    std::fs::create_dir_all(&dir)?;
    let file = dir.join(format!("{}.v", top.name));
    std::fs::write(&file, &top.verilog)?;
    match flow::measure_block_with(&[&file], &top.name, &dir, &options) {
        Ok(c) => println!(
            "| {} | {} | {} | {} | {} | {:.1} | {} | {} of {} |",
            top.name,
            c.luts,
            c.ffs,
            c.carries,
            c.brams,
            c.fmax_mhz,
            c.seeds_text(),
            c.placed_lcs,
            c.placements[0].lcs.available
        ),
        Err(e) => println!("| {} | measurement failed: {e:#} |||||||", top.name),
    }
    let plane = find("nrc_mgmt")?;
    let dir = work.join("ice40").join("nrc_mgmt");
    std::fs::create_dir_all(&dir)?;
    let file = dir.join("nrc_mgmt.v");
    std::fs::write(&file, &plane.verilog)?;
    let c = flow::synth_with(
        &[&file],
        "nrc_mgmt",
        &dir.join("alone"),
        &flow::SynthOptions::for_target(flow::Target::Ice40),
    )?;
    println!("\n`nrc_mgmt` (8 ports, 2 VCs: the mesh, the agent, the register file and the port counters in a `CounterRam`), `synth_ice40` alone: {} LUT4, {} FFs, {} carries, {} BRAMs.", c.luts, c.ffs, c.carries, c.brams);
    core_on_ice40(work)
}

/// The placement seeds: `HPCNET_SEEDS` (comma-separated), else 1, 2, 3.
fn seeds() -> Vec<u64> {
    placement_seeds(&[1, 2, 3])
}

/// The placement seeds of a bench: `HPCNET_SEEDS` (comma-separated), else `default`.
pub fn placement_seeds(default: &[u64]) -> Vec<u64> {
    std::env::var("HPCNET_SEEDS")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .filter(|v: &Vec<u64>| !v.is_empty())
        .unwrap_or_else(|| default.to_vec())
}

/// The router core with 5 ports and the published router's 6 VCs (256-flit DAMQs) mapped to
/// iCE40 cells: it does not fit the HX8K (7,680 LUT4s), so no placement is tried and no Fmax
/// is given; the ECP5 row of `nrc_top` above is the chip's timing.
fn core_on_ice40(work: &Path) -> Result<()> {
    use crate::router_core_bench::{Shape, NODES, PORTS};
    let core = hdl::tops::emit(
        <nrc::router_core!(PORTS, 6, 256, NODES, 1)>::new(Shape::SixVcs.params()),
        "nrc_core6",
        "the router core, 6 VCs",
    )
    .map_err(anyhow::Error::msg)?;
    let dir = work.join("ice40").join("nrc_core6");
    std::fs::create_dir_all(&dir)?;
    let file = dir.join("nrc_core6.v");
    std::fs::write(&file, &core.verilog)?;
    let c = flow::synth_with(
        &[&file],
        "nrc_core6",
        &dir.join("alone"),
        &flow::SynthOptions::for_target(flow::Target::Ice40),
    )?;
    println!("\nThe router core, 5 ports, 6 VCs, 256-flit DAMQs, 256 destinations (`router_core!(5, 6, 256, 256, 1)`), `synth_ice40`: {} LUT4, {} FFs, {} carries, {} BRAMs ({:.0} s); the iCE40-HX8K has 7,680 LUT4s and 32 BRAMs, so it is not placed there.", c.luts, c.ffs, c.carries, c.brams, c.elapsed.as_secs_f64());
    Ok(())
}

/// The published router chip (`configs/published.toml`: 24 ports, 6 VCs, tiles 4 x 6, the
/// mesh in 4 rows of 6): emitted, linted (`verilator --lint-only -Wall` with the waivers) and
/// put through Yosys's generic checks (no latch, `check -assert`), each timed; it is too large
/// for `make test` (35 MB of Verilog) and for the ECP5-85k (the 5-port chip above already
/// takes a large share of it), so no part mapping. `config` is the configuration file.
pub fn report_published(work: &Path, config: &Path) -> Result<()> {
    use std::time::Instant;
    let cfg = hdl::params::Config::from_toml(&std::fs::read_to_string(config)?)
        .map_err(anyhow::Error::msg)?;
    println!(
        "\n## The published router chip `nrc_top` ({} ports, {} VCs, tiles {} x {})\n",
        cfg.router.ports, cfg.network.vcs, cfg.router.tile_rows, cfg.router.tile_cols
    );
    let started = Instant::now();
    let top = nrc::tops::top(&cfg)
        .map_err(anyhow::Error::msg)?
        .ok_or_else(|| anyhow::anyhow!("{}: no nrc_top of this shape", config.display()))?;
    let emitted = started.elapsed().as_secs_f64();
    std::fs::create_dir_all(work)?;
    let file = work.join("nrc_top.v");
    std::fs::write(&file, &top.verilog)?;
    let lint = flow::lint_unchecked(&[&file], "nrc_top", &work.join("lint"), &Default::default())?;
    let verdict = if lint.is_clean() {
        "clean".to_string()
    } else {
        format!(
            "{} findings (see {})",
            lint.messages.len() + lint.hazards.len(),
            lint.log.display()
        )
    };
    println!("| step | outcome | seconds |");
    println!("|---|---|---|");
    println!(
        "| emit (rust-hdl) | {:.1} MB of Verilog, {} lines | {emitted:.0} |",
        top.verilog.len() as f64 / 1e6,
        top.verilog.lines().count()
    );
    println!(
        "| Verilator lint | {verdict} | {:.0} |",
        lint.elapsed.as_secs_f64()
    );
    let generic = flow::SynthOptions {
        map_to_target: false,
        ..Default::default()
    };
    match flow::synth_with(&[&file], "nrc_top", &work.join("synth"), &generic) {
        Ok(r) => println!(
            "| Yosys generic checks (no latch, check -assert) | passed | {:.0} |",
            r.elapsed.as_secs_f64()
        ),
        Err(e) => println!("| Yosys generic checks | failed: {e:#} | |"),
    }
    Ok(())
}
