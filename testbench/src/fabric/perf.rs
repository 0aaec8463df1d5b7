//! `bench fabric`: throughput of the fat tree ([`super::FabricWorld`]) under the adversarial
//! permutation (every NIC to one NIC under the next leaf, chosen so that deterministic routing
//! sends all of a leaf's flows up through one spine) and uniform random traffic, with
//! adaptive and with deterministic routing (goal: adaptive at least 1.5 times deterministic
//! on the permutation, no worse on uniform random). Every NIC keeps its sender full (offered
//! load 1); accepted throughput is the flits delivered per NIC and cycle over a window after a
//! warm-up. The scoreboard of the fabric checks every packet as in the tests. Measures, never
//! asserts.
use super::routing::{adversarial_permutation, NICS};
use super::FabricWorld;
use std::time::Instant;

/// Flits per packet in the measurements.
const LEN: usize = 8;

/// Accepted flits per NIC and cycle for `pattern` (`None`: uniform random).
fn throughput(w: &mut FabricWorld, deterministic: bool, pattern: Option<&[usize]>) -> f64 {
    w.deterministic = deterministic;
    w.forget_order();
    let (warm, window) = (3_000u64, 8_000u64);
    let mut at_start = 0;
    for t in 0..warm + window {
        if t == warm {
            at_start = w.stats.delivered_flits;
        }
        for n in 0..NICS {
            while w.backlog(n) < 4 * LEN {
                let d = match pattern {
                    Some(p) => p[n],
                    None => {
                        let mut d = w.rng.range(0, NICS as u64 - 2) as usize;
                        if d >= n {
                            d += 1;
                        }
                        d
                    }
                };
                w.send(n, d, LEN);
            }
        }
        w.cycle();
    }
    let accepted = w.stats.delivered_flits - at_start;
    assert!(w.drain(200_000), "the fabric did not drain");
    accepted as f64 / (window as f64 * NICS as f64)
}

/// Prints the table.
pub fn report() {
    println!("\n## Fat tree of six router chips: adaptive against deterministic routing\n");
    let started = Instant::now();
    let mut w = FabricWorld::new(1e-6, 11);
    for r in 0..super::routing::ROUTERS {
        w.load_table(r);
    }
    w.settle(400_000);
    let perm = adversarial_permutation().expect("an adversarial permutation exists");
    println!("4 leaves (3 NICs, 2 up ports each) and 2 spines of `nrc_top` (the default configuration) on Verilator, 12 NICs as link ports, every link through the lane-channel model (BER 1e-6), tables loaded in band; {LEN}-flit packets, every NIC's sender always full; accepted flits per NIC and cycle over 8,000 cycles after 3,000 of warm-up. Permutation: NIC n sends to {perm:?}.\n");
    println!("| traffic | adaptive | deterministic | adaptive / deterministic |");
    println!("|---|---|---|---|");
    for (name, pattern) in [
        ("adversarial permutation", Some(perm.as_slice())),
        ("uniform random", None),
    ] {
        let a = throughput(&mut w, false, pattern);
        let d = throughput(&mut w, true, pattern);
        println!("| {name} | {a:.3} | {d:.3} | {:.2} |", a / d);
    }
    println!(
        "\n{} packets delivered and checked, {} cycles simulated in {:.0} s.",
        w.stats.delivered,
        w.now(),
        started.elapsed().as_secs_f64()
    );
}
