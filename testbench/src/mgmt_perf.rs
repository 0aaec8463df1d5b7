//! `bench mgmt`: the figures of the management agent's entrance and exit
//! ([`hdl::mgmt::NmpUnpacker`], [`hdl::mgmt::NmpPacker`]): their latencies and rates measured on
//! rust-hdl's simulator with back-to-back traffic and no backpressure, and their cost on
//! iCE40-HX8K from the FPGA flow ([`flow::measure_block_with`]: the block synthesized alone for
//! LUTs and flip-flops, the median Fmax of 3 placer seeds on a register-to-register harness).
//! Nothing here asserts (the guarantees are the benches' job in `tests/hdl/nmp_*.rs`).
use crate::backend::{u128_to_words, Backend};
use crate::models::mgmt::random_packet;
use crate::rhdl::RhdlSim;
use crate::rng::BenchRng;
use crate::{port_table, PortTable};
use anyhow::{anyhow, Result};
use flow::{MeasureOptions, SynthOptions, Target};
use hdl::formats::mgmt::{MgmtBeat, Route, MGMT_FLITS};
use hdl::mgmt::{NmpPacker, NmpUnpacker};
use std::path::Path;

/// The management VC the packer is measured with (the published configuration's).
const VC: u8 = 3;

fn unpacker_table() -> PortTable<NmpUnpacker> {
    port_table!(NmpUnpacker; reset, flits.valid, flits.data, flits.ready, in_port, chip_id,
        requests.valid, requests.data, requests.ready, dropped_wrong_id, dropped_malformed)
}

fn packer_table() -> PortTable<NmpPacker> {
    port_table!(NmpPacker; reset, responses.valid, responses.data, responses.ready,
        flits.valid, flits.data, flits.ready, out_port, dropped_no_route)
}

/// Unpacker, `n` packets back to back: cycles from the edge that takes a tail to the first
/// cycle with its beat valid (min, max), and cycles per packet.
pub fn unpacker_latency(n: usize) -> (u64, u64, f64) {
    let mut b = RhdlSim::new(NmpUnpacker::new(), unpacker_table(), "nmp_unpacker");
    let [reset, fv, fd, fr, chip, rv, rr] = [
        "reset",
        "flits$valid",
        "flits$data",
        "flits$ready",
        "chip_id",
        "requests$valid",
        "requests$ready",
    ]
    .map(|p| b.port(p));
    let mut rng = BenchRng::new(1);
    let flits: Vec<u128> = (0..n)
        .flat_map(|_| random_packet(&mut rng, 7).pack())
        .collect();
    b.poke_bool(reset, true);
    b.tick();
    b.poke_bool(reset, false);
    b.poke(chip, 7);
    b.poke_bool(rr, true);
    let (mut next, mut tails, mut beats) = (0, std::collections::VecDeque::new(), 0);
    let (mut lo, mut hi, mut cycle) = (u64::MAX, 0, 0u64);
    while beats < n {
        b.poke_bool(fv, next < flits.len());
        b.poke_wide(
            fd,
            &u128_to_words(flits.get(next).copied().unwrap_or(0), 65),
        );
        if b.peek_bool(rv) {
            let t: u64 = tails.pop_front().expect("a beat without a packet");
            lo = lo.min(cycle - t);
            hi = hi.max(cycle - t);
            beats += 1;
        }
        if next < flits.len() && b.peek_bool(fr) {
            if next % MGMT_FLITS == MGMT_FLITS - 1 {
                tails.push_back(cycle);
            }
            next += 1;
        }
        b.tick();
        cycle += 1;
    }
    (lo, hi, cycle as f64 / n as f64)
}

/// Packer, `n` beats back to back: cycles from the first cycle a beat is offered to the first
/// cycle with its head valid (min, max), and cycles per packet.
pub fn packer_latency(n: usize) -> (u64, u64, f64) {
    let mut b = RhdlSim::new(NmpPacker::new(VC), packer_table(), "nmp_packer");
    let [reset, rv, rd, rr, fv, fr] = [
        "reset",
        "responses$valid",
        "responses$data",
        "responses$ready",
        "flits$valid",
        "flits$ready",
    ]
    .map(|p| b.port(p));
    let width = b.width(rd);
    let mut rng = BenchRng::new(2);
    let beats: Vec<MgmtBeat> = (0..n)
        .map(|_| {
            let mut p = random_packet(&mut rng, 7);
            p.forward = Route::from_path(&[3, 4]);
            MgmtBeat::of(&p)
        })
        .collect();
    b.poke_bool(reset, true);
    b.tick();
    b.poke_bool(reset, false);
    b.poke_bool(fr, true);
    let (mut next, mut offered_at, mut position) = (0, 0u64, 0usize);
    let (mut lo, mut hi, mut cycle) = (u64::MAX, 0, 0u64);
    while next < n {
        b.poke_bool(rv, true);
        b.poke_wide(
            rd,
            &crate::backend::fit_words(&beats[next].to_words(), width),
        );
        if b.peek_bool(fv) {
            if position == 0 {
                lo = lo.min(cycle - offered_at);
                hi = hi.max(cycle - offered_at);
            }
            position = (position + 1) % MGMT_FLITS;
        }
        let consumed = b.peek_bool(rr);
        b.tick();
        cycle += 1;
        if consumed {
            next += 1;
            offered_at = cycle;
        }
    }
    (lo, hi, cycle as f64 / n as f64)
}

/// Prints the latency lines and the cost table; `work` holds the FPGA flow's files.
pub fn report(work: &Path) -> Result<()> {
    let (ulo, uhi, urate) = unpacker_latency(200);
    let (plo, phi, prate) = packer_latency(200);
    println!(
        "\n## Management agent: unpacker and packer (management packets of {MGMT_FLITS} flits)\n"
    );
    println!("Unpacker (rust-hdl simulation, 200 packets back to back, requests always ready): {ulo} to {uhi} cycles from the edge that takes a tail to the first cycle with its beat valid; {urate:.2} cycles per packet.");
    println!("Packer (rust-hdl simulation, 200 beats back to back, flits always ready): {plo} to {phi} cycles from a beat's first cycle on offer to its head flit valid; {prate:.2} cycles per packet.\n");
    let target = Target::Ice40;
    let options = MeasureOptions {
        seeds: vec![1, 2, 3],
        synth: SynthOptions::for_target(target),
        ..Default::default()
    };
    println!("| block | part | LUTs | FFs | carries | Fmax (MHz) | seeds (MHz) |");
    println!("|---|---|---|---|---|---|---|");
    let tops = [
        hdl::tops::emit(
            NmpUnpacker::new(),
            "nmp_unpacker",
            "management agent entrance",
        ),
        hdl::tops::emit(NmpPacker::new(VC), "nmp_packer", "management agent exit"),
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
