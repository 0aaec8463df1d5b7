//! CreditCounter against its model, every cycle: a sender that spends credits only when it has
//! them and a receiver that returns them in random batches, plus injected protocol violations
//! (consume at zero, over-return) whose defined outcome (no wrap, saturation, sticky error
//! until reset) is checked, for several widths and initial counts. The counter must also hold
//! its initial credits from power-up, before any reset.
//!
//! Reset (its doc: "count back to `initial`, `error` cleared"): 1-3 cycle pulses at random
//! moments of the traffic (the shared [`ResetSchedule`], none in the first cycles, which check
//! power-up); in the first cycle after each, `available` must be `initial`, `has_credit` high
//! and `error` low, and the sender and receiver start over with the model.
//!
//! Starting empty (`CreditCounter::starting_empty`): the same traffic; after each reset
//! `available` is 0 and `has_credit` low, and the receiver holds the whole capacity to return
//! (as a far end hands over its free buffer at bring-up). Power-up (before any reset) is full in
//! both modes.
use hdl::prelude::*;
use testbench::models::credit_counter::CreditCounterModel;
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both_seeds, Backend, BenchRng, PortTable};

fn table<const W: usize>() -> PortTable<CreditCounter<W>> {
    port_table!(CreditCounter<W>; reset, consume, returned, available, has_credit, error)
}

/// Violations injected and errors seen.
#[derive(Debug, PartialEq)]
struct Report {
    violations: u64,
    consumed: u64,
}

fn bench(
    b: &mut dyn Backend,
    seed: u64,
    width: usize,
    initial: u64,
    empty: bool,
    p_violate: f64,
) -> Report {
    let mut rng = BenchRng::new(seed);
    let (reset, consume, returned) = (b.port("reset"), b.port("consume"), b.port("returned"));
    let (available, has_credit, error) =
        (b.port("available"), b.port("has_credit"), b.port("error"));
    let mut model = if empty {
        CreditCounterModel::starting_empty(width, initial)
    } else {
        CreditCounterModel::new(width, initial)
    };
    let after_reset = model.after_reset();
    // Credits held by the receiver (flits in its buffer), to return legally.
    let mut outstanding = 0u64;
    let mut report = Report {
        violations: 0,
        consumed: 0,
    };
    let max_ret = (1u64 << width) - 1;
    let mut sched = ResetSchedule::new(&mut rng, 250);
    for cycle in 0..3000u64 {
        // Power-up: the first cycles run without reset and must already show `initial`.
        let do_reset = sched.next_if(&mut rng, cycle > 10);
        let avail = b.peek(available) as u64;
        if sched.released() {
            assert!(
                avail == after_reset
                    && b.peek_bool(has_credit) == (after_reset > 0)
                    && !b.peek_bool(error),
                "seed {seed} cycle {cycle}: not back to {after_reset} credits without error after reset"
            );
        }
        assert_eq!(
            avail,
            model.available(),
            "seed {seed}: available at cycle {cycle}"
        );
        assert_eq!(
            b.peek_bool(has_credit),
            avail > 0,
            "has_credit at cycle {cycle}"
        );
        assert_eq!(
            b.peek_bool(error),
            model.error(),
            "seed {seed}: error at cycle {cycle}"
        );
        let violate = rng.chance(p_violate);
        let (c, r) = if violate {
            // Spend with nothing left, or give back more than was taken.
            if rng.chance(0.5) && avail == 0 {
                (true, 0)
            } else {
                (
                    rng.chance(0.5),
                    (outstanding + 1 + rng.range(0, 3)).min(max_ret),
                )
            }
        } else {
            let c = avail > 0 && rng.chance(0.6);
            let r = if outstanding > 0 && rng.chance(0.4) {
                rng.range(1, outstanding)
            } else {
                0
            };
            (c, r)
        };
        b.poke_bool(reset, do_reset);
        b.poke_bool(consume, c);
        b.poke(returned, r as u128);
        b.tick();
        if do_reset {
            model.reset();
            outstanding = initial - model.available();
            continue;
        }
        let before = model.error();
        let bad = model.edge(c, r);
        report.violations += bad as u64;
        assert!(
            !bad || violate || before,
            "seed {seed}: legal traffic flagged at cycle {cycle}"
        );
        if c && avail > 0 {
            report.consumed += 1;
        }
        outstanding = initial - model.available();
    }
    sched.assert_pulses(&format!("credit counter seed {seed}"), 5);
    report
}

fn run<const W: usize>(initial: u64, seeds: &[u64], p_violate: f64) {
    run_both_seeds(
        &format!("credit_counter_{W}_{initial}"),
        seeds,
        || CreditCounter::<W>::new(initial),
        table::<W>,
        |b, s| bench(b, s, W, initial, false, p_violate),
    );
}

fn run_empty<const W: usize>(capacity: u64, seeds: &[u64], p_violate: f64) {
    run_both_seeds(
        &format!("credit_counter_empty_{W}_{capacity}"),
        seeds,
        || CreditCounter::<W>::starting_empty(capacity),
        table::<W>,
        |b, s| bench(b, s, W, capacity, true, p_violate),
    );
}

#[test]
fn credit_counter_starting_empty_matches_model() {
    run_empty::<4>(15, &[7], 0.0);
    run_empty::<4>(10, &[8], 0.02);
    run_empty::<13>(8191, &[9], 0.01);
    run_empty::<3>(7, &[10], 0.1);
}

/// Starting empty, step by step: nothing to spend after reset, returns fill up to capacity.
fn empty_steps(b: &mut dyn Backend) -> Vec<(u64, bool, bool)> {
    let (reset, consume, returned) = (b.port("reset"), b.port("consume"), b.port("returned"));
    let (available, has_credit, error) =
        (b.port("available"), b.port("has_credit"), b.port("error"));
    let mut trace = vec![];
    for (r, c, ret) in [
        // Reset: empty, no credit.
        (true, false, 0),
        // A consume with nothing: ignored, error.
        (false, true, 0),
        (true, false, 0),
        // The receiver hands over its buffer: 5 of capacity 7.
        (false, false, 5),
        (false, true, 0),
        // Up to capacity: legal.
        (false, false, 3),
        // Beyond capacity: saturates, error.
        (false, false, 1),
        (true, false, 0),
    ] {
        b.poke_bool(reset, r);
        b.poke_bool(consume, c);
        b.poke(returned, ret);
        b.tick();
        trace.push((
            b.peek(available) as u64,
            b.peek_bool(has_credit),
            b.peek_bool(error),
        ));
    }
    trace
}

#[test]
fn credit_counter_starting_empty_steps() {
    let rep = run_both_seeds(
        "credit_counter_empty_3_7",
        &[0],
        || CreditCounter::<3>::starting_empty(7),
        table::<3>,
        |b, _| empty_steps(b),
    );
    assert_eq!(
        rep[0].result,
        vec![
            (0, false, false),
            (0, false, true),
            (0, false, false),
            (5, true, false),
            (4, true, false),
            (7, true, false),
            (7, true, true),
            (0, false, false),
        ]
    );
}

#[test]
fn credit_counter_matches_model() {
    run::<4>(10, &[1], 0.0);
    run::<4>(15, &[2], 0.02);
    run::<1>(1, &[3], 0.05);
    run::<6>(40, &[4], 0.01);
    run::<8>(255, &[5], 0.01);
    run::<3>(5, &[6], 0.1);
}

/// The defined outcomes of each violation, step by step.
fn violations(b: &mut dyn Backend) -> Vec<(u64, bool)> {
    let (reset, consume, returned) = (b.port("reset"), b.port("consume"), b.port("returned"));
    let (available, error) = (b.port("available"), b.port("error"));
    let mut trace = vec![];
    let mut step = |b: &mut dyn Backend, r: bool, c: bool, ret: u128| {
        b.poke_bool(reset, r);
        b.poke_bool(consume, c);
        b.poke(returned, ret);
        b.tick();
        b.poke_bool(reset, false);
        b.poke_bool(consume, false);
        b.poke(returned, 0);
        trace.push((b.peek(available) as u64, b.peek_bool(error)));
    };
    // Initial 3 credits (W = 4). Spend all three: no error.
    step(b, false, true, 0);
    step(b, false, true, 0);
    step(b, false, true, 0);
    // Consume at zero: ignored, no wrap to 15, error set.
    step(b, false, true, 0);
    // Error is sticky through legal traffic.
    step(b, false, false, 2);
    // Reset: back to 3, error cleared.
    step(b, true, false, 0);
    // Consume and return in the same cycle both count: 3 - 1 + 1.
    step(b, false, true, 1);
    // Return beyond the initial credits: saturates at 3, error.
    step(b, false, false, 1);
    step(b, true, false, 0);
    // A return that wraps the 4-bit sum (3 + 15): saturates, error.
    step(b, false, false, 15);
    step(b, true, false, 0);
    // Consume at zero with a return in the same cycle: the consume is ignored, the return counts.
    step(b, false, true, 0);
    step(b, false, true, 0);
    step(b, false, true, 0);
    step(b, false, true, 1);
    trace
}

#[test]
fn credit_counter_violations_have_defined_outcomes() {
    let rep = run_both_seeds(
        "credit_counter_4_3",
        &[0],
        || CreditCounter::<4>::new(3),
        table::<4>,
        |b, _| violations(b),
    );
    assert_eq!(
        rep[0].result,
        vec![
            (2, false),
            (1, false),
            (0, false),
            (0, true),
            (2, true),
            (3, false),
            (3, false),
            (3, true),
            (3, false),
            (3, true),
            (3, false),
            (2, false),
            (1, false),
            (0, false),
            (1, true),
        ]
    );
}

#[test]
#[should_panic(expected = "initial credits must be")]
fn credit_counter_rejects_initial_that_does_not_fit() {
    let _ = CreditCounter::<4>::new(16);
}
