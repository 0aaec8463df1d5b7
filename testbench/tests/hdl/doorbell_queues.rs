//! `DoorbellQueues` (nic::doorbell) against its model (`testbench::models::doorbell`), every
//! output every cycle, on both backends, for 8 functions of 32 (the default) and 3 functions
//! of 4 (overflow-heavy).
//!
//! 1. **Random traffic**: doorbells to random functions (with 3 functions, some naming no
//!    function: `stray`), random idle with random fields while `valid` is low, random
//!    backpressure on `source`,
//!    arbitration switched between round robin and weighted with random weights (0..=15), and
//!    `reset` at random moments under traffic (the shared `ResetSchedule`); after a reset
//!    every fill must read zero and nothing queued before it may ever leave (the model drops
//!    them too). Every overflow pulse is checked against the model: a doorbell beyond the
//!    depth is refused and the queued ones leave unchanged and in order.
//! 2. **Fairness**: every function's FIFO kept non-empty, `source.ready` high, 4,000 cycles in
//!    each mode: round robin serves every function within one grant of the others; weighted
//!    serves function `f` `w_f / sum(w)` of the grants (within one burst). Full rate: one
//!    doorbell per cycle.
//! 3. **Byte fairness**: every FIFO kept non-empty, each function's doorbells charged a
//!    size of its own (1 byte to 4 KB) 8 cycles after they leave: the 64-byte units served
//!    per function differ by at most the quantum and three of the largest descriptors.
//!    Charges of random sizes to random function numbers also run through phase 1.
use nic::doorbell::deficit_gate::{charge_units, QUANTUM_UNITS};
use nic::doorbell::DoorbellQueues;
use testbench::models::doorbell::{DoorbellQueuesModel, QueuesInputs};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng, PortId, PortTable, SimValue};

fn table<const AW: usize>(functions: usize) -> PortTable<DoorbellQueues<AW>> {
    type T<const AW: usize> = DoorbellQueues<AW>;
    let mut t = port_table!(T<AW>; reset, sink.valid, sink.function, sink.word, sink.ready,
        source.valid, source.function, source.word, source.ready, weighted, stray, byte_fair,
        charge.valid, charge.function, charge.bytes);
    for i in 0..functions {
        t.add(
            format!("weights${i}"),
            move |x: &mut T<AW>, v| x.weights[i].next = SimValue::from_u128(v),
            move |x: &T<AW>| SimValue::to_u128(&x.weights[i].val()),
        );
        t.add(
            format!("overflows${i}"),
            move |x: &mut T<AW>, v| x.overflows[i].next = SimValue::from_u128(v),
            move |x: &T<AW>| SimValue::to_u128(&x.overflows[i].val()),
        );
        t.add(
            format!("fills${i}"),
            move |x: &mut T<AW>, v| x.fills[i].next = SimValue::from_u128(v),
            move |x: &T<AW>| SimValue::to_u128(&x.fills[i].val()),
        );
    }
    t
}

struct Ports {
    reset: PortId,
    in_valid: PortId,
    in_function: PortId,
    in_word: PortId,
    in_ready: PortId,
    out_valid: PortId,
    out_function: PortId,
    out_word: PortId,
    out_ready: PortId,
    weighted: PortId,
    stray: PortId,
    byte_fair: PortId,
    charge: [PortId; 3],
    weights: Vec<PortId>,
    overflows: Vec<PortId>,
    fills: Vec<PortId>,
}

impl Ports {
    fn new(b: &dyn Backend, n: usize) -> Self {
        let v = |s: &str| (0..n).map(|i| b.port(&format!("{s}${i}"))).collect();
        Self {
            reset: b.port("reset"),
            in_valid: b.port("sink$valid"),
            in_function: b.port("sink$function"),
            in_word: b.port("sink$word"),
            in_ready: b.port("sink$ready"),
            out_valid: b.port("source$valid"),
            out_function: b.port("source$function"),
            out_word: b.port("source$word"),
            out_ready: b.port("source$ready"),
            weighted: b.port("weighted"),
            stray: b.port("stray"),
            byte_fair: b.port("byte_fair"),
            charge: [
                b.port("charge$valid"),
                b.port("charge$function"),
                b.port("charge$bytes"),
            ],
            weights: v("weights"),
            overflows: v("overflows"),
            fills: v("fills"),
        }
    }
}

/// What a run measured: per phase, doorbells delivered per function.
#[derive(Debug, PartialEq)]
struct Report {
    delivered: u64,
    overflows: u64,
    strays: u64,
    resets: u64,
    round_robin: Vec<u64>,
    weighted: Vec<u64>,
    weights: Vec<u64>,
    /// Byte-fair phase: units charged per function.
    charged: Vec<u64>,
}

/// Drives one cycle: pokes `i`, checks every output against the model, ticks both.
fn cycle(
    b: &mut dyn Backend,
    p: &Ports,
    m: &mut DoorbellQueuesModel,
    i: &QueuesInputs,
    rng: &mut BenchRng,
    what: &str,
) -> (Option<(usize, u64)>, Vec<bool>, bool) {
    let n = p.weights.len();
    b.poke_bool(p.reset, i.reset);
    match i.doorbell {
        Some((f, w)) => {
            b.poke_bool(p.in_valid, true);
            b.poke(p.in_function, f as u128);
            b.poke(p.in_word, w as u128);
        }
        None => {
            b.poke_bool(p.in_valid, false);
            b.poke(p.in_function, rng.bits(3));
            b.poke(p.in_word, rng.bits(64));
        }
    }
    b.poke_bool(p.out_ready, i.ready);
    b.poke_bool(p.weighted, i.weighted);
    b.poke_bool(p.byte_fair, i.byte_fair);
    let (cf, cb) = i
        .charge
        .unwrap_or((rng.bits(3) as usize, rng.bits(32) as u64));
    b.poke_bool(p.charge[0], i.charge.is_some());
    b.poke(p.charge[1], cf as u128);
    b.poke(p.charge[2], cb as u128);
    for f in 0..n {
        b.poke(p.weights[f], i.weights[f] as u128);
    }
    let want = m.outputs(i);
    let c = b.cycle();
    assert_eq!(
        b.peek_bool(p.in_ready),
        !i.reset,
        "{what} cycle {c}: sink.ready"
    );
    let offered = b
        .peek_bool(p.out_valid)
        .then(|| (b.peek(p.out_function) as usize, b.peek(p.out_word) as u64));
    assert_eq!(offered, want.offered, "{what} cycle {c}: source");
    for f in 0..n {
        assert_eq!(
            b.peek_bool(p.overflows[f]),
            want.overflows[f],
            "{what} cycle {c}: overflows[{f}]"
        );
        assert_eq!(
            b.peek(p.fills[f]) as usize,
            want.fills[f],
            "{what} cycle {c}: fills[{f}]"
        );
    }
    assert_eq!(b.peek_bool(p.stray), want.stray, "{what} cycle {c}: stray");
    b.tick();
    let left = m.edge(i);
    (left, want.overflows, want.stray)
}

fn bench(b: &mut dyn Backend, seed: u64, n: usize, depth: usize) -> Report {
    let mut rng = BenchRng::new(seed);
    let p = Ports::new(b, n);
    let mut m = DoorbellQueuesModel::new(n, depth);
    let mut sched = ResetSchedule::new(&mut rng, 300);
    let mut report = Report {
        delivered: 0,
        overflows: 0,
        strays: 0,
        resets: 0,
        round_robin: vec![0; n],
        weighted: vec![0; n],
        weights: vec![],
        charged: vec![0; n],
    };
    let what = format!("seed {seed} {n}x{depth}");
    let mut seq = 0u64;
    // The doorbell on offer (held until taken: sink.ready is !reset).
    let mut offer: Option<(usize, u64)> = None;
    let mut i = QueuesInputs {
        weights: vec![1; n],
        ..Default::default()
    };
    // 1. Random traffic.
    for k in 0..6000 {
        if k % 500 == 0 {
            i.weighted = rng.chance(0.5);
            i.byte_fair = rng.chance(0.5);
            i.weights = (0..n).map(|_| rng.range(0, 15)).collect();
        }
        // Charges: any function number (beyond the block's are ignored), mostly descriptor
        // sizes, now and then megabytes (saturating) or any 32-bit count.
        i.charge = rng.chance(0.3).then(|| {
            let bytes = match rng.range(0, 9) {
                0 => rng.bits(32) as u64,
                1 | 2 => rng.range(0, 1 << 22),
                _ => rng.range(0, 4096),
            };
            (rng.range(0, 7) as usize, bytes)
        });
        let load = [0.2, 0.6, 0.95][(k / 1000) % 3];
        if offer.is_none() && rng.chance(load) {
            // Mostly existing functions, now and then one beyond them.
            let f = if n < 8 && rng.chance(0.03) {
                rng.range(n as u64, 7) as usize
            } else {
                rng.range(0, n as u64 - 1) as usize
            };
            seq += 1;
            offer = Some((f, (seq << 8) | rng.bits(8) as u64));
        }
        i.reset = sched.next_if(&mut rng, k < 5990);
        i.doorbell = offer;
        i.ready = rng.chance([0.9, 0.5, 0.2][(k / 700) % 3]);
        if sched.released() {
            // The first cycle after a pulse: every FIFO empty, nothing offered.
            for f in 0..n {
                assert_eq!(b.peek(p.fills[f]), 0, "{what}: fill after reset");
            }
            assert!(
                !b.peek_bool(p.out_valid),
                "{what}: a doorbell offered after reset"
            );
        }
        let (left, over, stray) = cycle(b, &p, &mut m, &i, &mut rng, &what);
        if i.reset {
            report.resets += 1;
            continue;
        }
        offer = None;
        report.delivered += left.is_some() as u64;
        report.overflows += over.iter().filter(|&&o| o).count() as u64;
        report.strays += stray as u64;
    }
    sched.assert_pulses(&what, 5);
    // 2. Fairness: keep every FIFO non-empty, take one per cycle.
    let weights: Vec<u64> = (0..n).map(|f| [3, 1, 2, 5, 0, 4, 1, 2][f]).collect();
    report.weights = weights.clone();
    i.byte_fair = false;
    i.charge = None;
    for (weighted, counts) in [(false, 0), (true, 1)] {
        i.weighted = weighted;
        i.weights = weights.clone();
        i.reset = false;
        let mut got = vec![0u64; n];
        for k in 0..4000 {
            // Fill up first, then take one per cycle while one per cycle comes in.
            i.ready = k >= 100;
            let fills: Vec<usize> = m.outputs(&i).fills;
            let f = (0..n).min_by_key(|&f| fills[f]).unwrap();
            seq += 1;
            i.doorbell = (fills[f] < depth).then_some((f, seq << 8));
            let (left, _, _) = cycle(b, &p, &mut m, &i, &mut rng, &what);
            if let (Some((f, _)), true) = (left, k >= 150) {
                got[f] += 1;
            }
        }
        if counts == 0 {
            report.round_robin = got;
        } else {
            report.weighted = got;
        }
    }
    let total: u64 = report.round_robin.iter().sum();
    assert!(
        total >= 3848,
        "{what}: full rate, one per cycle (got {total} in 3850)"
    );
    let (lo, hi) = (
        report.round_robin.iter().min().unwrap(),
        report.round_robin.iter().max().unwrap(),
    );
    assert!(
        hi - lo <= 1,
        "{what}: round robin shares {:?}",
        report.round_robin
    );
    // 3. Byte fairness: every FIFO kept non-empty, each doorbell charged 8 cycles after it
    // leaves (as the fetch would) with its function's descriptor size.
    let sizes: Vec<u64> = (0..n)
        .map(|f| [64, 4096, 512, 1024, 1, 2048, 256, 3000][f])
        .collect();
    i.byte_fair = true;
    i.weighted = false;
    let mut pending: std::collections::VecDeque<Option<(usize, u64)>> = vec![None; 8].into();
    let mut charged = vec![0u64; n];
    for k in 0..6000 {
        i.ready = k >= 100;
        let fills: Vec<usize> = m.outputs(&i).fills;
        let f = (0..n).min_by_key(|&f| fills[f]).unwrap();
        seq += 1;
        i.doorbell = (fills[f] < depth).then_some((f, seq << 8));
        i.charge = pending.pop_front().flatten();
        let (left, _, _) = cycle(b, &p, &mut m, &i, &mut rng, &what);
        pending.push_back(left.map(|(f, _)| (f, sizes[f])));
        if let (Some((f, _)), true) = (left, k >= 150) {
            charged[f] += charge_units(sizes[f]);
        }
    }
    // Units served (64 bytes each, at least one per descriptor) differ by at most the
    // quantum plus the largest descriptors granted before their charges landed (two per
    // function in this pipeline).
    let (lo, hi) = (charged.iter().min().unwrap(), charged.iter().max().unwrap());
    let bound = QUANTUM_UNITS + 3 * charge_units(*sizes.iter().max().unwrap());
    assert!(
        hi - lo <= bound,
        "{what}: byte-fair shares {charged:?} of sizes {sizes:?}: spread {} over {bound}",
        hi - lo
    );
    report.charged = charged;
    let sum_w: u64 = weights.iter().map(|&w| w.max(1)).sum();
    let total_w: u64 = report.weighted.iter().sum();
    for f in 0..n {
        let want = total_w as f64 * weights[f].max(1) as f64 / sum_w as f64;
        assert!(
            (report.weighted[f] as f64 - want).abs() <= 15.0,
            "{what}: weighted shares {:?} for weights {weights:?}",
            report.weighted
        );
    }
    report
}

#[test]
fn doorbell_queues_match_model() {
    let r = run_both(
        "doorbell_queues_8x32",
        || DoorbellQueues::<8>::new(8, 32),
        || table::<8>(8),
        |b| bench(b, 11, 8, 32),
    );
    assert!(r.result.overflows > 0, "{:?}", r.result);
    let r = run_both(
        "doorbell_queues_3x4",
        || DoorbellQueues::<4>::new(3, 4),
        || table::<4>(3),
        |b| bench(b, 12, 3, 4),
    );
    assert!(
        r.result.overflows > 100 && r.result.strays > 0,
        "{:?}",
        r.result
    );
    println!("doorbell fairness: {:?}", r.result);
}
