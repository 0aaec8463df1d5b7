//! `bench rs`: the cost of the router's relay station (top `relay_station`) and of the 8-port
//! relay-station mesh (top `nrc_rs_mesh`, 2 rows of 4, 20-bit beats) on iCE40-HX8K, from the
//! FPGA flow ([`flow::measure_block_with`]: the block synthesized alone for LUTs and
//! flip-flops, the median Fmax of 3 placer seeds on a register-to-register harness).
//!
//! The cycle figures (one cycle per hop for a packet's head, one beat per cycle per flow, the
//! mesh's first-flit latency per port) are asserted by the benches
//! `testbench/tests/hdl/relay_station.rs` and `testbench/tests/hdl/rs_mesh.rs`, which print
//! them. Nothing here asserts.
use anyhow::{anyhow, Result};
use flow::{MeasureOptions, SynthOptions, Target};
use hdl::params::Config;
use hdl::tops::Emitted;
use std::path::Path;

/// Prints the cost table; `work` holds the FPGA flow's files.
pub fn report(work: &Path) -> Result<()> {
    let cfg = Config::default();
    let station = hdl::tops::tops(&cfg)
        .map_err(anyhow::Error::msg)?
        .into_iter()
        .find(|t| t.name == "relay_station")
        .ok_or_else(|| anyhow!("no relay_station top"))?;
    let mesh = nrc::tops::tops(&cfg)
        .map_err(anyhow::Error::msg)?
        .into_iter()
        .find(|t| t.name == "nrc_rs_mesh")
        .ok_or_else(|| anyhow!("no nrc_rs_mesh top"))?;
    println!("\n## Relay station and 8-port relay-station mesh (20-bit beats), iCE40-HX8K\n");
    println!("| top | LUTs | FFs | carries | Fmax (MHz) | seeds (MHz) |");
    println!("|---|---|---|---|---|---|");
    let target = Target::Ice40;
    let options = MeasureOptions {
        seeds: vec![1, 2, 3],
        synth: SynthOptions::for_target(target),
        ..Default::default()
    };
    for top in [&station, &mesh] {
        let c = measure(top, &work.join(target.name()), &options)?;
        println!(
            "| {} | {} | {} | {} | {:.1} | {:?} |",
            top.name, c.luts, c.ffs, c.carries, c.fmax_mhz, c.fmax_runs_mhz
        );
    }
    Ok(())
}

fn measure(top: &Emitted, dir: &Path, options: &MeasureOptions) -> Result<flow::BlockCost> {
    let sub = dir.join(&top.name);
    std::fs::create_dir_all(&sub)?;
    let file = sub.join(format!("{}.v", top.name));
    std::fs::write(&file, &top.verilog)?;
    flow::measure_block_with(&[&file], &top.name, &sub.join("flow"), options)
        .map_err(|e| anyhow!("{}: {e:#}", top.name))
}
