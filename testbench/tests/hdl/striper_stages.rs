//! The transmit side's small stages against their Rust models on both backends, every output
//! every cycle:
//! - `StriperPairs` (the striper's gearbox from 65-bit flits to XFR pairs): random LTPs (16
//!   random flits, then a trailer beat) offered with random gaps, random `advance` (the
//!   striper's hold), `single` (one active lane: a pair leaves in two cycles) switched at
//!   random, and random resets (the next beat is flit 0 again). The XFRs must be those of
//!   `hdl::llp::ltp::ltp_to_xfrs`, flit `i` as XFRs `2i` and `2i + 1`, the trailer as XFR 32
//!   alone.
//! - `StriperLaneMap`: every non-empty lane mask, sampled at random cycles: the mask, `L - 1`,
//!   `L = 1` and each physical lane's logical index (the active lanes below it), held between
//!   samples.
//! - `TxCandidate` (combinational): at 2, 5 and 8 VCs, every `eligible` pattern with every last
//!   VC served, a random lock and mode: the locked VC while it holds the link (in the
//!   interleaving mode only while it is eligible), else the first eligible VC after the last
//!   served, round robin.
use hdl::llp::ltp::{ltp_to_xfrs, LTP_FLITS};
use hdl::llp::ltp_striper::{lane_map::StriperLaneMap, pair_stage::StriperPairs};
use hdl::llp::tx::TxCandidate;
use testbench::{port_table, run_both, run_both_seeds, Backend, BenchRng, PortTable};

/// The pair register as the model holds it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Pair {
    low: u32,
    high: u32,
    has_low: bool,
    has_high: bool,
    start: bool,
    trailer: bool,
}

/// A random LTP as the striper takes it: 16 flits, then the trailer beat.
fn random_ltp(rng: &mut BenchRng) -> (Vec<u128>, [u32; 33]) {
    let flits: [u128; LTP_FLITS] = std::array::from_fn(|_| rng.bits(65));
    let trailer = rng.bits(16) as u16;
    let mut beats = flits.to_vec();
    beats.push(trailer as u128);
    (beats, ltp_to_xfrs(&flits, trailer))
}

/// Returns (beats taken, trailers taken, cycles with `phase`).
fn pairs_bench(b: &mut dyn Backend, seed: u64) -> (u64, u64, u64) {
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(n);
    let (reset, valid, data, ready) =
        (p("reset"), p("sink$valid"), p("sink$data"), p("sink$ready"));
    let (single, advance, fire, at_flit0) = (p("single"), p("advance"), p("fire"), p("at_flit0"));
    let (low, high, has_low, has_high, start, trailer, phase) = (
        p("low"),
        p("high"),
        p("has_low"),
        p("has_high"),
        p("start"),
        p("trailer"),
        p("phase"),
    );
    let mut pair = Pair::default();
    let (mut beat, mut second_phase, mut one_lane) = (0usize, false, false);
    let mut ltp = random_ltp(&mut rng);
    let (mut taken, mut trailers, mut phases) = (0, 0, 0);
    // Reset first: the registers start empty.
    b.poke_bool(reset, true);
    b.tick();
    for cycle in 0..30_000u64 {
        let what = format!("seed {seed} cycle {cycle}");
        if rng.chance(0.01) {
            one_lane = !one_lane;
        }
        let offer = rng.chance(0.8);
        let moving = rng.chance(0.85);
        let rst = rng.chance(0.003);
        b.poke_bool(reset, rst);
        b.poke_bool(valid, offer);
        b.poke(data, ltp.0[beat]);
        b.poke_bool(single, one_lane);
        b.poke_bool(advance, moving);
        // The registered outputs.
        assert_eq!(b.peek_bool(has_low), pair.has_low, "{what}: has_low");
        assert_eq!(b.peek_bool(has_high), pair.has_high, "{what}: has_high");
        assert_eq!(b.peek_bool(start), pair.start, "{what}: start");
        assert_eq!(b.peek_bool(trailer), pair.trailer, "{what}: trailer");
        assert_eq!(b.peek_bool(phase), second_phase, "{what}: phase");
        assert_eq!(b.peek_bool(at_flit0), beat == 0, "{what}: at_flit0");
        if pair.has_low {
            assert_eq!(b.peek(low) as u32, pair.low, "{what}: low");
        }
        if pair.has_high {
            assert_eq!(b.peek(high) as u32, pair.high, "{what}: high");
        }
        phases += second_phase as u64;
        // The handshake: at one lane a full pair takes two cycles to leave.
        let can_take = !(one_lane && pair.has_high && !second_phase) && moving;
        assert_eq!(b.peek_bool(ready), can_take, "{what}: ready");
        let fired = offer && can_take;
        assert_eq!(b.peek_bool(fire), fired, "{what}: fire");
        b.tick();
        // The edge.
        if rst {
            pair = Pair::default();
            (beat, second_phase) = (0, false);
            ltp = random_ltp(&mut rng);
            continue;
        }
        if !moving {
            continue;
        }
        second_phase = !can_take;
        if can_take {
            pair = Pair {
                has_low: false,
                has_high: false,
                start: false,
                trailer: false,
                ..pair
            };
        }
        if fired {
            taken += 1;
            let last = beat == LTP_FLITS;
            pair = if last {
                Pair {
                    low: ltp.1[32],
                    high: pair.high,
                    has_low: true,
                    has_high: false,
                    start: false,
                    trailer: true,
                }
            } else {
                Pair {
                    low: ltp.1[2 * beat],
                    high: ltp.1[2 * beat + 1],
                    has_low: true,
                    has_high: true,
                    start: beat == 0,
                    trailer: false,
                }
            };
            if last {
                trailers += 1;
                beat = 0;
                ltp = random_ltp(&mut rng);
            } else {
                beat += 1;
            }
        }
    }
    (taken, trailers, phases)
}

#[test]
fn striper_pairs_match_ltp_to_xfrs() {
    let table = || -> PortTable<StriperPairs> {
        port_table!(StriperPairs; reset, sink.valid, sink.data, sink.ready, single, advance,
            low, high, has_low, has_high, start, trailer, phase, fire, at_flit0)
    };
    for r in run_both_seeds(
        "striper_pairs",
        &[1, 2],
        StriperPairs::default,
        table,
        pairs_bench,
    ) {
        let (taken, trailers, phases) = r.result;
        assert!(
            taken > 10_000 && trailers > 500 && phases > 500,
            "{:?}",
            r.result
        );
    }
}

/// Returns the samples taken.
fn lane_map_bench(b: &mut dyn Backend, seed: u64) -> u64 {
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(n);
    let (mask, sample) = (p("mask"), p("sample"));
    let (lane_mask, last, single, indices) = (p("lane_mask"), p("last"), p("single"), p("indices"));
    // No reset: nothing is checked before the first sample.
    let mut held: Option<u8> = None;
    let mut samples = 0;
    for cycle in 0..4_000u64 {
        let offered = rng.range(1, 15) as u8;
        let take = rng.chance(0.3);
        b.poke(mask, offered as u128);
        b.poke_bool(sample, take);
        if let Some(m) = held {
            let what = format!("seed {seed} cycle {cycle} mask {m:04b}");
            let active = m.count_ones() as u128;
            assert_eq!(b.peek(lane_mask), m as u128, "{what}: lane_mask");
            assert_eq!(b.peek(last), active - 1, "{what}: last");
            assert_eq!(b.peek_bool(single), active == 1, "{what}: single");
            let want = (0..4).fold(0u128, |acc, lane| {
                let below = (m & ((1u8 << lane) - 1)).count_ones() as u128;
                acc | (below & 3) << (2 * lane)
            });
            assert_eq!(b.peek(indices), want, "{what}: indices");
        }
        b.tick();
        if take {
            held = Some(offered);
            samples += 1;
        }
    }
    samples
}

#[test]
fn striper_lane_map_indexes_every_mask() {
    let table = || -> PortTable<StriperLaneMap> {
        port_table!(StriperLaneMap; mask, sample, lane_mask, last, single, indices)
    };
    for r in run_both_seeds(
        "striper_lane_map",
        &[3],
        StriperLaneMap::default,
        table,
        lane_map_bench,
    ) {
        assert!(r.result > 1_000, "{}", r.result);
    }
}

/// The candidate VC and whether it may send (`arbiter` module doc).
fn candidate_model(
    vcs: usize,
    eligible: u8,
    last_served: usize,
    lock: Option<usize>,
    in_force: bool,
) -> (usize, bool) {
    let may = |v: usize| eligible >> v & 1 == 1;
    if let Some(v) = lock {
        if !in_force || may(v) {
            return (v, may(v));
        }
    }
    (last_served + 1..vcs)
        .chain(0..vcs)
        .find(|&v| may(v))
        .map_or((0, false), |v| (v, true))
}

/// Returns the cases with a candidate that may send.
fn candidate_bench(b: &mut dyn Backend, vcs: usize, seed: u64) -> u64 {
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(n);
    let (eligible, last_served, locked, lock_vc, in_force) = (
        p("eligible"),
        p("last_served"),
        p("locked"),
        p("lock_vc"),
        p("in_force"),
    );
    let (candidate, ready) = (p("candidate"), p("ready"));
    let mut sending = 0;
    for pattern in 0..256u32 {
        for last in 0..vcs {
            let lock = rng
                .chance(0.5)
                .then(|| rng.range(0, vcs as u64 - 1) as usize);
            let mode = rng.chance(0.5);
            b.poke(eligible, pattern as u128);
            b.poke(last_served, last as u128);
            b.poke_bool(locked, lock.is_some());
            b.poke(lock_vc, lock.unwrap_or(rng.range(0, 7) as usize) as u128);
            b.poke_bool(in_force, mode);
            let want = candidate_model(vcs, pattern as u8, last, lock, mode);
            let got = (b.peek(candidate) as usize, b.peek_bool(ready));
            let what = format!(
                "{vcs} VCs: eligible {pattern:08b}, last {last}, lock {lock:?}, interleave {mode}"
            );
            // The candidate VC matters only when it may send.
            assert_eq!(got.1, want.1, "{what}: ready");
            if want.1 {
                assert_eq!(got.0, want.0, "{what}: candidate");
                sending += 1;
            }
            b.tick();
        }
    }
    sending
}

#[test]
fn tx_candidate_is_round_robin_but_for_the_lock() {
    for (vcs, seed) in [(2usize, 5u64), (5, 6), (8, 7)] {
        let r = run_both(
            &format!("tx_candidate_{vcs}"),
            || TxCandidate::new(vcs),
            || {
                port_table!(comb TxCandidate; eligible, last_served, locked, lock_vc, in_force,
                    candidate, ready)
            },
            |b| candidate_bench(b, vcs, seed),
        );
        assert!(r.result > 100, "{vcs} VCs: {}", r.result);
    }
}
