//! `bench switch`: iCE40-HX8K cost and Fmax of the router's switch (`nrc_switch`, 5 ports) in
//! the default configuration (2 VCs): the block synthesized and placed in the flow's
//! register-to-register harness, one placer seed (minutes). The published configuration's
//! 6 VCs (about 15,000 LUTs) do not fit the part.
use anyhow::{anyhow, Result};
use flow::{MeasureOptions, SynthOptions, Target};
use std::path::Path;

/// Measures `nrc_switch` under `dir` and prints its table.
pub fn report(dir: &Path) -> Result<()> {
    let options = MeasureOptions {
        seeds: vec![1],
        synth: SynthOptions::for_target(Target::Ice40),
        inputs: flow::harness::Inputs::Lfsr,
        outputs: flow::harness::Outputs::Folded,
        ..Default::default()
    };
    let top = nrc::tops::switch(&hdl::params::Config::default(), nrc::tops::SWITCH_PORTS)
        .map_err(|e| anyhow!(e))?;
    std::fs::create_dir_all(dir)?;
    let file = dir.join("nrc_switch.v");
    std::fs::write(&file, &top.verilog)?;
    let c = flow::measure_block_with(&[&file], "nrc_switch", &dir.join("flow"), &options)?;
    println!("\n## The router's switch on iCE40-HX8K (placer seed 1)\n");
    println!("| top | ports x VCs | LUTs | FFs | carries | Fmax (MHz) |");
    println!("|---|---|---|---|---|---|");
    println!(
        "| `nrc_switch` | {} x 2 | {} | {} | {} | {:.1} |",
        nrc::tops::SWITCH_PORTS,
        c.luts,
        c.ffs,
        c.carries,
        c.fmax_mhz
    );
    Ok(())
}
