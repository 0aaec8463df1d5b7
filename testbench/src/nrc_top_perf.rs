//! `bench nrc-top`: the cost of the router chip `nrc_top` (5 ports, the default configuration,
//! link endpoints included) placed on the ECP5-85k by the flow (Yosys, nextpnr-ecp5, 3 seeds,
//! the register-to-register harness: inputs from the harness's LFSR, outputs folded), goal 60
//! MHz; and the management plane `nrc_mgmt` synthesized alone for the iCE40 (LUT4s, the figure
//! the per-port counters are judged by). Measures, never asserts.
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
    println!("5 ports, 2 VCs, 128-flit DAMQs, 256 destinations, link endpoints (16-LTP replay, 64-flit receive buffers per VC) and 32-flit transmit buffers per VC. Yosys + nextpnr-ecp5 (85k, CABGA381, speed 6) on the flow's harness; block synthesized alone for LUTs/FFs/BRAMs; Fmax the median of seeds 1, 2, 3.\n");
    println!("| top | LUTs | FFs | carries | BRAMs | Fmax (MHz) | seeds (MHz) | logic cells placed (harness incl.) |");
    println!("|---|---|---|---|---|---|---|---|");
    let target = flow::ECP5_ULX3S;
    let options = flow::MeasureOptions {
        seeds: vec![1, 2, 3],
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
    Ok(())
}
