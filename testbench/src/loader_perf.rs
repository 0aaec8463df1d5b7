//! `bench mgmt` (loader part): the configuration loader's time to load an image of 16 entries
//! (rust-hdl simulation of [`LoaderHarness`], the EEPROM model answering at once, no host
//! traffic), and the iCE40-HX8K cost of the emitted `eeprom_loader` and `reg_arbiter` tops
//! ([`flow::measure_block_with`]: the block synthesized alone for LUTs and flip-flops, the
//! median Fmax of 3 placer seeds). Nothing here asserts (the bench `tests/hdl/eeprom_loader.rs`
//! checks the behaviour).
use crate::loader_bench::{loader_table, LoaderDriver, LoaderHarness, BASE, QUARTER};
use crate::rhdl::RhdlSim;
use crate::rng::BenchRng;
use anyhow::{anyhow, Result};
use flow::{MeasureOptions, SynthOptions, Target};
use hdl::mgmt::eeprom_image::{EepromImage, ImageEntry};
use hdl::regmap::{regfile_sample, Access};
use std::path::Path;

/// Cycles from the release of reset to `done` for an image of `n` entries of read-write
/// registers, and the bytes the part sent.
pub fn load_cycles(n: usize) -> (u64, u64) {
    let mut b = RhdlSim::new(LoaderHarness::new(), loader_table(), "eeprom_loader");
    let mut d = LoaderDriver::new(&mut b, 1, "loader_perf");
    let map = regfile_sample();
    let rw: Vec<u64> = map.of(Access::ReadWrite).map(|r| r.offset).collect();
    let mut rng = BenchRng::new(3);
    let entries: Vec<ImageEntry> = (0..n)
        .map(|i| ImageEntry {
            address: rw[i % rw.len()] as u16,
            value: rng.bits(64) as u64,
        })
        .collect();
    let image = EepromImage::new(&entries).bytes();
    d.bus.part.memory[BASE..BASE + image.len()].copy_from_slice(&image);
    d.cycle(true);
    let start = d.b.cycle();
    while !d.cycle(false).done {}
    (d.b.cycle() - 1 - start, d.bus.part.counts.bytes_read)
}

/// Prints the loader's simulated line (`sim`) and its and the arbiter's cost table (`cost`);
/// `work` holds the FPGA flow's files.
pub fn report(work: &Path, sim: bool, cost: bool) -> Result<()> {
    if sim {
        sim_report();
    }
    if cost {
        cost_report(work)?;
    }
    Ok(())
}

fn sim_report() {
    let (cycles, bytes) = load_cycles(16);
    let bit_times = cycles as f64 / (4 * QUARTER + 3) as f64;
    println!("\n## Configuration loader and register arbiter\n");
    println!(
        "Loader, 16 entries (rust-hdl simulation, I2C quarter period {QUARTER} cycles, the part \
         answering at once): {cycles} cycles from reset to done, {bytes} bytes read (header, then \
         both passes), {:.1} cycles per byte read. A bit costs 4 quarters + 3 cycles here, so \
         the load is about {:.0} SCL periods: {:.0} ms at standard mode (100 kHz).\n",
        cycles as f64 / bytes as f64,
        bit_times,
        bit_times * 10.0 / 1000.0
    );
}

fn cost_report(work: &Path) -> Result<()> {
    println!("\n## Configuration loader and register arbiter on iCE40\n");
    let target = Target::Ice40;
    let options = MeasureOptions {
        seeds: vec![1, 2, 3],
        synth: SynthOptions::for_target(target),
        ..Default::default()
    };
    println!("| block | part | LUTs | FFs | carries | Fmax (MHz) | seeds (MHz) |");
    println!("|---|---|---|---|---|---|---|");
    let tops =
        [
            hdl::tops::emit(
                hdl::mgmt::eeprom_loader::EepromLoader::<
                    { hdl::formats::mgmt::REGISTER_ADDRESS_BITS },
                >::new(0, hdl::tops::LOADER_MAX_ENTRIES),
                "eeprom_loader",
                "configuration loader",
            ),
            hdl::tops::emit(
                hdl::regmap::RegArbiter::<{ hdl::formats::mgmt::REGISTER_ADDRESS_BITS }, 64>::new(),
                "reg_arbiter",
                "register port arbiter",
            ),
        ];
    for top in tops {
        let top = top.map_err(anyhow::Error::msg)?;
        let dir = work.join(target.name()).join(&top.name);
        std::fs::create_dir_all(&dir)?;
        let file = dir.join(format!("{}.v", top.name));
        std::fs::write(&file, &top.verilog)?;
        let c = flow::measure_block_with(&[&file], &top.name, &dir, &options)
            .map_err(|e| anyhow!("{} on {}: {e:#}", top.name, target.part()))?;
        println!(
            "| {} | {} | {} | {} | {} | {:.1} | {:?} |",
            top.name,
            target.part(),
            c.luts,
            c.ffs,
            c.carries,
            c.fmax_mhz,
            c.fmax_runs_mhz
        );
    }
    Ok(())
}
