//! The `bits` blocks against their models on both backends: PopCount against
//! `hdl::bits::popcount` (exhaustively for 4 and 5 bits, at random for 13 and 64, and the
//! one-bit wire), and EventCounter against its model (`SaturatingCount`) under bursts that
//! reach saturation (across carry-chain chunks too), clears with and without a simultaneous
//! event, and resets at random moments, for several widths, with `value` checked on every
//! cycle.
use hdl::prelude::*;
use testbench::models::reg_file::SaturatingCount;
use testbench::{port_table, run_both, run_both_seeds, Backend, BenchRng};

fn pop_bench(b: &mut dyn Backend, n: usize, seed: u64) -> u64 {
    let (bits, count) = (b.port("bits"), b.port("count"));
    let mut rng = BenchRng::new(seed);
    let exhaustive = n <= 6;
    let cases = if exhaustive { 1u64 << n } else { 3000 };
    let mut total = 0;
    for k in 0..cases {
        let v = if exhaustive {
            k
        } else {
            // Sparse, dense and uniform vectors.
            let (a, c) = (rng.bits(n) as u64, rng.bits(n) as u64);
            match k % 3 {
                0 => a & c,
                1 => a | c,
                _ => a,
            }
        };
        b.poke(bits, v as u128);
        let got = b.peek(count) as u32;
        assert_eq!(got, popcount(v), "popcount({v:#x}) of {n} bits");
        total += got as u64;
        b.tick();
    }
    total
}

fn pop<const N: usize, const W: usize>(seed: u64) {
    run_both(
        &format!("pop_count_{N}"),
        PopCount::<N, W>::new,
        || port_table!(comb PopCount<N, W>; bits, count),
        |b| pop_bench(b, N, seed),
    );
}

#[test]
fn pop_count_matches_popcount() {
    pop::<1, 1>(1);
    pop::<4, 3>(2);
    pop::<5, 3>(3);
    pop::<13, 4>(4);
    pop::<64, 7>(5);
}

/// Events counted while full (saturation held), clears, resets.
#[derive(Debug, PartialEq)]
struct Counts {
    saturated: u64,
    clears_with_event: u64,
    resets: u64,
}

fn counter_bench(b: &mut dyn Backend, width: usize, seed: u64) -> Counts {
    let (reset, pulse, clear, value) = (
        b.port("reset"),
        b.port("pulse"),
        b.port("clear"),
        b.port("value"),
    );
    let mut rng = BenchRng::new(seed);
    let mut model = SaturatingCount::new(width);
    let mut burst = false;
    let mut counts = Counts {
        saturated: 0,
        clears_with_event: 0,
        resets: 0,
    };
    // Clears rare enough that a burst fills the counter between two of them.
    let p_clear = (0.5 / (1u64 << width.min(16)) as f64).max(0.001);
    for cycle in 0..6000u64 {
        if rng.chance(0.03) {
            burst = !burst;
        }
        let r = rng.chance(0.0015);
        let e = rng.chance(if burst { 0.95 } else { 0.1 });
        let c = rng.chance(p_clear);
        b.poke_bool(reset, r);
        b.poke_bool(pulse, e);
        b.poke_bool(clear, c);
        assert_eq!(
            b.peek(value) as u64,
            model.value,
            "seed {seed}, width {width}: value at cycle {cycle}"
        );
        counts.saturated += (e && model.value == model.maximum && !r && !c) as u64;
        counts.clears_with_event += (c && e && !r) as u64;
        counts.resets += r as u64;
        b.tick();
        model.edge(r, e, c);
    }
    counts
}

fn counter<const D: usize>(width: usize, chunk: usize, seeds: &[u64]) -> Vec<Counts> {
    run_both_seeds(
        &format!("event_counter_{D}_{width}_{chunk}"),
        seeds,
        || EventCounter::<D>::with_chunk(width, chunk),
        || port_table!(EventCounter<D>; reset, pulse, clear, value),
        |b, s| counter_bench(b, width, s),
    )
    .into_iter()
    .map(|r| r.result)
    .collect()
}

#[test]
fn event_counter_matches_model() {
    let chunk = hdl::bits::event_counter::CHUNK;
    for (width, seed) in [(1, 1), (3, 2), (5, 3), (8, 4)] {
        for c in counter::<8>(width, chunk, &[seed]) {
            assert!(
                c.saturated > 20 && c.clears_with_event > 0 && c.resets > 0,
                "{c:?}"
            );
        }
    }
    // Wide values: the bits above the width stay zero, the count behaves the same.
    for c in counter::<64>(4, chunk, &[5]) {
        assert!(c.saturated > 20, "{c:?}");
    }
    counter::<64>(64, chunk, &[6]);
}

/// Counters of several carry chains (chunks of 2 or 3 bits) counted to saturation: the last
/// chunk ends below bit `D - 1` (its all-ones seen as a carry out) or at it (seen by a
/// compare).
#[test]
fn event_counter_saturates_across_chunks() {
    for (width, chunk, seed) in [(8, 3, 9), (7, 2, 10), (8, 2, 11)] {
        for c in counter::<8>(width, chunk, &[seed]) {
            assert!(c.saturated > 20 && c.clears_with_event > 0, "{c:?}");
        }
    }
    for c in counter::<7>(7, 3, &[12]) {
        assert!(c.saturated > 20, "{c:?}");
    }
}
