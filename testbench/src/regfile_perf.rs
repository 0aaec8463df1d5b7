//! `bench regfile`: the figures of the register file of the sample map `regfile_sample`
//! (64 registers, 12-bit addresses, 64-bit data): its read latency and rate measured on
//! rust-hdl's simulator, and its cost on iCE40-HX8K and ECP5-85k from the FPGA flow
//! ([`flow::measure_block_with`]: the block synthesized alone for LUTs and flip-flops, the
//! median Fmax of 3 placer seeds on a register-to-register harness).
//!
//! The read path is measured apart: the same map with every register read-only is decode,
//! read multiplexer and response register with no storage, so `LUTs - read-path LUTs` is
//! what storing the bits costs, divided by the stored bits for the per-bit figure. Nothing
//! here asserts (the guarantees are the tests' job in `tests/hdl/reg_file.rs`).
use crate::backend::Backend;
use crate::models::reg_file::port_table;
use crate::rhdl::RhdlSim;
use anyhow::{anyhow, Result};
use flow::{MeasureOptions, SynthOptions, Target};
use hdl::regmap::sample::{SAMPLE_ADDRESS_BITS as A, SAMPLE_DATA_BITS as D};
use hdl::regmap::{regfile_sample, Access, RegFile, RegMap};
use hdl::tops::Emitted;
use std::path::Path;

/// `map` with every register read-only: the read path of its register file alone.
pub fn read_path_of(map: &RegMap) -> RegMap {
    let mut m = map.clone();
    m.name = format!("{}_read_path", map.name);
    for r in m.registers.iter_mut() {
        r.access = Access::ReadOnly;
        r.reset = 0;
    }
    m
}

/// Cycles from the edge that takes a read to the first cycle its response is valid (min,
/// max), and cycles per read, for `n` back-to-back reads with the response side always ready.
pub fn read_latency(n: u64) -> (u64, u64, f64) {
    let map = regfile_sample();
    let mut b = RhdlSim::new(
        RegFile::<A, D>::new(&map),
        port_table::<A, D>(&map),
        "regfile_sample",
    );
    let [reset, valid, address, write, ready, rsp_valid, rsp_ready] = [
        "reset",
        "request$valid",
        "request$address",
        "request$write",
        "request$ready",
        "response$valid",
        "response$ready",
    ]
    .map(|p| b.port(p));
    b.poke_bool(reset, true);
    b.tick();
    b.poke_bool(reset, false);
    b.poke_bool(rsp_ready, true);
    b.poke_bool(write, false);
    let (mut taken, mut answered) = (std::collections::VecDeque::new(), 0u64);
    let (mut lo, mut hi) = (u64::MAX, 0);
    let (mut cycle, mut sent, mut first) = (0u64, 0u64, None);
    while answered < n {
        b.poke_bool(valid, sent < n);
        b.poke(address, map.registers[(sent % 64) as usize].offset as u128);
        if b.peek_bool(rsp_valid) {
            let t: u64 = taken.pop_front().expect("a response without a request");
            lo = lo.min(cycle - t);
            hi = hi.max(cycle - t);
            answered += 1;
        }
        if sent < n && b.peek_bool(ready) {
            taken.push_back(cycle);
            first.get_or_insert(cycle);
            sent += 1;
        }
        b.tick();
        cycle += 1;
    }
    let span = cycle - first.unwrap_or(0);
    (lo, hi, span as f64 / n as f64)
}

fn write_top(top: &Emitted, work: &Path) -> Result<std::path::PathBuf> {
    let dir = work.join(&top.name);
    std::fs::create_dir_all(&dir)?;
    let file = dir.join(format!("{}.v", top.name));
    std::fs::write(&file, &top.verilog)?;
    Ok(file)
}

/// Prints the latency line and the cost table; `work` holds the FPGA flow's files.
pub fn report(work: &Path) -> Result<()> {
    let map = regfile_sample();
    let (lo, hi, rate) = read_latency(1000);
    println!(
        "\n## Register file of `regfile_sample` ({} registers, {} bits stored, A = {A}, D = {D})\n",
        map.registers.len(),
        map.stored_bits()
    );
    println!("Read latency (rust-hdl simulation, 1000 back-to-back reads, response always ready): {lo} to {hi} cycles from the accepting edge to the first cycle with `response.valid`; {rate:.3} cycles per read.\n");
    let full = hdl::tops::regfile_sample().map_err(anyhow::Error::msg)?;
    let read_path = hdl::tops::emit(
        RegFile::<A, D>::new(&read_path_of(&map)),
        "regfile_sample_read_path",
        "the read path of regfile_sample: every register read-only",
    )
    .map_err(anyhow::Error::msg)?;
    let bits = map.stored_bits() as f64;
    println!("| part | LUTs | FFs | carries | read-path LUTs | storage LUTs per stored bit | Fmax (MHz) | seeds (MHz) | read path Fmax (MHz) |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for target in Target::ALL {
        let options = MeasureOptions {
            seeds: vec![1, 2, 3],
            synth: SynthOptions::for_target(target),
            ..Default::default()
        };
        let dir = work.join(target.name());
        let measure = |top: &Emitted| -> Result<flow::BlockCost> {
            let file = write_top(top, &dir)?;
            flow::measure_block_with(&[&file], &top.name, &dir.join(&top.name), &options)
                .map_err(|e| anyhow!("{} on {}: {e:#}", top.name, target.part()))
        };
        let f = measure(&full)?;
        let r = measure(&read_path)?;
        // An ECP5 carry cell (CCU2C) is two LUT4s of its slice, which the LUT count leaves out.
        let luts = |c: &flow::BlockCost| match target {
            Target::Ice40 => c.luts,
            _ => c.luts + 2 * c.carries,
        };
        println!(
            "| {} | {} | {} | {} | {} | {:.2} | {:.1} | {} | {:.1} |",
            target.part(),
            luts(&f),
            f.ffs,
            f.carries,
            luts(&r),
            (luts(&f) as f64 - luts(&r) as f64) / bits,
            f.fmax_mhz,
            f.seeds_text(),
            r.fmax_mhz
        );
    }
    println!("\nLUTs on ECP5 count each carry cell (CCU2C) as the two LUT4s it occupies. Goals: a read answered in at most 2 cycles; at most 1.5 LUTs per stored bit plus the read multiplexer; 100 MHz or more on iCE40.");
    Ok(())
}
