//! Damq (the router's DAMQ input unit) against its model, on both backends, every cycle.
//!
//! A sender model keeps one stream of packets per VC (good packets of 2 to `max_len` flits
//! and, mixed in, bad ones: lengths out of range, packets longer or shorter than their `len`,
//! missing tails, headless fragments, control, marker and malformed flits in place of a
//! packet's flit) and sends one flit per cycle at most, on a random VC that has a credit,
//! interleaving the VCs flit by flit, with random idle (random `flit`/`vc` while `valid` is
//! low). It spends a credit per flit and takes back each credit `channel.credits` returns,
//! using it in the same cycle. Now and then it breaks the protocol: a flit on a VC with no
//! credit, or on a VC out of range. A switch model reads a random ready VC in random cycles
//! (random `vc` while not reading), sometimes a VC with nothing ready or out of range (to be
//! ignored).
//!
//! Checked every cycle against [`DamqModel`]: `ready`, `waiting`, every front, the flit read,
//! `channel.credits`, `events`, `bypass_head` (the arrival is a head that is its VC's only
//! flit after the edge); the sender's credits equal the model's count; the credit
//! invariant `sum over VCs of (stored + credits) <= capacity`; every VC below its reservation
//! (stored + credits, plus a flit that left on the last edge, < reserve; fewer than `reserve` credits) gets a credit back in the next
//! cycle; `NO_SLOT` never fires. Per VC, everything read out is the model's queue in order (so
//! per-VC order and data, and what each drop rule keeps).
//!
//! Reset (the doc: every VC empty, packet checks idle, `reserve` credits per VC): pulses of
//! 1-3 cycles at random moments ([`ResetSchedule`]); in the first cycle after each, `ready`,
//! `waiting`, `channel.credits` and `events` must be zero; the sender starts over with
//! `reserve` credits per VC in the middle of its streams (as a link does when both ends reset).
//!
//! Starvation: one VC is never read for a long phase while the others are; the stalled VC must
//! borrow beyond its reservation, run out of credits, and the others must keep flowing.
//!
//! Latency and rate (directed): a head sent to an idle VC in cycle `c` is `waiting` and read in
//! `c + 1`; a VC filled from the RAM list is read back at one flit per cycle.
#![allow(clippy::needless_range_loop)] // per-VC ports, queues, credits and model state are indexed by VC
use hdl::formats::flit::ControlCode;
use nrc::damq;
use nrc::port::damq::damq_capacity;
use nrc::port::{event, Damq, DamqParams};
use std::collections::VecDeque;
use testbench::models::damq::DamqModel;
use testbench::models::formats::{
    random_body_flit as body, random_control, random_head_flit as head, random_tail_flit as tail,
};
use testbench::reset::ResetSchedule;
use testbench::rhdl::SimValue;
use testbench::{port_table, run_both, Backend, BenchRng, PortTable};

/// 3 VCs (so VC 3 is out of range), 32 slots, 6 reserved per VC, packets up to 6 flits: the
/// pool is 27 - 18 = 9 slots.
type Small = damq!(3, 32);
const SMALL: Shape = Shape {
    vcs: 3,
    slots: 32,
    reserve: 6,
    max_len: 6,
};
/// The default configuration's unit (2 VCs, 128 slots, 32 reserved, packets up to 32 flits).
type Default2 = damq!(2, 128);
const DEFAULT: Shape = Shape {
    vcs: 2,
    slots: 128,
    reserve: 32,
    max_len: 32,
};

#[derive(Clone, Copy)]
struct Shape {
    vcs: usize,
    slots: usize,
    reserve: usize,
    max_len: usize,
}

impl Shape {
    fn params(&self) -> DamqParams {
        DamqParams {
            reserve: self.reserve,
            max_len: self.max_len,
        }
    }
    fn capacity(&self) -> usize {
        damq_capacity(self.vcs, self.slots)
    }
}

fn table<
    const VCS: usize,
    const VCB: usize,
    const SLOTS: usize,
    const AW: usize,
    const CW: usize,
>() -> PortTable<Damq<VCS, VCB, SLOTS, AW, CW>> {
    type T<
        const VCS: usize,
        const VCB: usize,
        const SLOTS: usize,
        const AW: usize,
        const CW: usize,
    > = Damq<VCS, VCB, SLOTS, AW, CW>;
    let mut t = port_table!(T<VCS, VCB, SLOTS, AW, CW>; reset, channel.valid, channel.flit,
        channel.vc, channel.credits, read.valid, read.vc, read.flit, ready, waiting, events, bypass_head,
        decisions.valid, decisions.data, decisions.ready);
    for i in 0..VCS {
        t.add(
            format!("occupancy${i}"),
            move |x: &mut T<VCS, VCB, SLOTS, AW, CW>, v| {
                x.occupancy[i].next = SimValue::from_u128(v)
            },
            move |x: &T<VCS, VCB, SLOTS, AW, CW>| SimValue::to_u128(&x.occupancy[i].val()),
        );
        t.add(
            format!("fronts${i}"),
            move |x: &mut T<VCS, VCB, SLOTS, AW, CW>, v| x.fronts[i].next = SimValue::from_u128(v),
            move |x: &T<VCS, VCB, SLOTS, AW, CW>| SimValue::to_u128(&x.fronts[i].val()),
        );
    }
    t
}

fn packet(rng: &mut BenchRng, n: usize, len: u8) -> Vec<u128> {
    let mut p = vec![head(rng, len)];
    p.extend((2..n).map(|_| body(rng)));
    p.push(tail(rng));
    p
}

/// A flit that is neither head, body nor tail: a control flit (markers included) or a
/// reserved encoding.
fn odd_flit(rng: &mut BenchRng) -> u128 {
    let codes = [
        ControlCode::Idle,
        ControlCode::CrdtRet,
        ControlCode::VlMrkr,
        ControlCode::HeadBadPkt,
        ControlCode::BodyBadPkt,
        ControlCode::TailBadPkt,
        ControlCode::LinkTransfer(3),
    ];
    match rng.range(0, 9) {
        0 => (3u128 << 62) | rng.bits(62),
        1 => (1u128 << 63) | ((rng.range(5, 15) as u128) << hdl::formats::header::KIND.lsb),
        2 => (rng.range(6, 0x1f) as u128) << hdl::formats::flit::CODE.lsb,
        i => random_control(rng, codes[(i as usize - 3).min(codes.len() - 1)]),
    }
}

/// One item of a VC's stream: a good packet, or (if `bad`) a bad one of a random kind.
fn item(rng: &mut BenchRng, max_len: usize, bad: bool) -> Vec<u128> {
    let n = rng.range(2, max_len as u64) as usize;
    let mut p = packet(rng, n, n as u8);
    if !bad {
        return p;
    }
    match rng.range(0, 6) {
        0 => {
            let len = if max_len < 255 && rng.chance(0.5) {
                rng.range(max_len as u64 + 1, 255) as u8
            } else {
                rng.range(0, 1) as u8
            };
            p[0] = head(rng, len);
        }
        1 => {
            for _ in 0..rng.range(1, 2) {
                let b = body(rng);
                p.insert(n - 1, b);
            }
        }
        2 => {
            let len = (n as u64 + rng.range(1, 2)).min(255) as u8;
            p[0] = head(rng, len);
        }
        3 => {
            p.pop();
        }
        4 => {
            p.remove(0);
        }
        _ => {
            let i = rng.range(0, n as u64 - 1) as usize;
            p[i] = odd_flit(rng);
        }
    }
    p
}

struct Run {
    seed: u64,
    cycles: u64,
    /// Share of bad items in the streams.
    bad: f64,
    /// Probability of sending in a cycle (when a VC has a credit).
    in_rate: f64,
    /// Probability of reading in a cycle (when a VC is ready).
    out_rate: f64,
    /// Probability of a protocol violation in a cycle (no credit, VC out of range).
    violate: f64,
    /// Probability of a read of a VC with nothing ready, or out of range.
    bad_read: f64,
    /// Mean cycles between reset pulses (0: none).
    reset_gap: u64,
    /// (VC, first cycle, last cycle): the VC is never read in that phase.
    stall: Option<(usize, u64, u64)>,
}

#[derive(Debug, PartialEq)]
struct Outcome {
    /// Flits read per VC.
    delivered: Vec<u64>,
    /// Events seen, by bit.
    events: Vec<u64>,
    /// Flits read per VC during the stall phase.
    during_stall: Vec<u64>,
    /// Most flits the stalled VC held during its stall, and whether its sender ran dry.
    stalled_peak: usize,
    stalled_dry: bool,
    /// Most slots lent at once.
    lent_peak: usize,
    reset_cycles: u64,
}

fn bench(b: &mut dyn Backend, s: Shape, run: &Run) -> Outcome {
    let seed = run.seed;
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(n);
    let (reset, valid, flit_p, vc_p, credits_p) = (
        p("reset"),
        p("channel$valid"),
        p("channel$flit"),
        p("channel$vc"),
        p("channel$credits"),
    );
    let (rvalid, rvc, rflit, ready_p, waiting_p, events_p) = (
        p("read$valid"),
        p("read$vc"),
        p("read$flit"),
        p("ready"),
        p("waiting"),
        p("events"),
    );
    let bypass_p = p("bypass_head");
    let fronts: Vec<_> = (0..s.vcs).map(|v| p(&format!("fronts${v}"))).collect();
    let (decisions_valid, decisions_ready) = (p("decisions$valid"), p("decisions$ready"));
    let occupancy: Vec<_> = (0..s.vcs).map(|v| p(&format!("occupancy${v}"))).collect();
    let vc_bits = b.width(vc_p);
    let capacity = s.capacity();
    let mut model = DamqModel::new(s.vcs, capacity, s.reserve, s.max_len);
    let mut credits = vec![s.reserve; s.vcs];
    let mut streams: Vec<VecDeque<u128>> = vec![VecDeque::new(); s.vcs];
    let mut sched = match run.reset_gap {
        0 => ResetSchedule::never(),
        gap => ResetSchedule::new(&mut rng, gap),
    };
    let mut out = Outcome {
        delivered: vec![0; s.vcs],
        events: vec![0; event::COUNT],
        during_stall: vec![0; s.vcs],
        stalled_peak: 0,
        stalled_dry: false,
        lent_peak: 0,
        reset_cycles: 0,
    };
    // The block needs a reset before use.
    b.poke_bool(reset, true);
    b.tick();
    b.tick();
    // VCs below their reservation in the previous cycle (they must get a credit back now).
    let mut owed = 0u32;
    for cycle in 0..run.cycles {
        let rst = sched.next(&mut rng);
        b.poke_bool(reset, rst);
        // No management transit in a stand-alone DAMQ: never a decision.
        b.poke_bool(decisions_ready, rng.chance(0.5));
        assert!(
            !b.peek_bool(decisions_valid),
            "a stand-alone DAMQ made a transit decision"
        );
        let stalled = run
            .stall
            .filter(|&(_, from, to)| (from..=to).contains(&cycle))
            .map(|x| x.0);
        // Credits come back; the sender may spend them in this cycle.
        let ret = b.peek(credits_p) as u32;
        assert_eq!(
            ret, model.returned,
            "seed {seed} cycle {cycle}: credits returned"
        );
        assert_eq!(
            ret & owed,
            owed,
            "seed {seed} cycle {cycle}: a VC below its reservation got no credit back"
        );
        for v in 0..s.vcs {
            credits[v] += (ret >> v) as usize & 1;
        }
        assert_eq!(
            credits, model.credits,
            "seed {seed} cycle {cycle}: credit counts"
        );
        // As the credit policy counts them (a flit that left on the last edge still held).
        let held: Vec<usize> = (0..s.vcs).map(|v| model.held(v)).collect();
        assert!(
            held.iter().sum::<usize>() <= capacity,
            "seed {seed} cycle {cycle}: credit invariant broken: held {held:?}, capacity {capacity}"
        );
        for v in 0..s.vcs {
            assert_eq!(
                b.peek(occupancy[v]) as usize,
                model.queues[v].len(),
                "seed {seed} cycle {cycle}: VC {v} occupancy"
            );
        }
        out.lent_peak = out.lent_peak.max(model.lent());
        owed = 0;
        for v in 0..s.vcs {
            if held[v] < s.reserve && credits[v] < s.reserve {
                owed |= 1 << v;
            }
        }
        if let Some(sv) = stalled {
            out.stalled_peak = out.stalled_peak.max(model.queues[sv].len());
            out.stalled_dry |= credits[sv] == 0;
        }
        if sched.released() {
            let status = [
                b.peek(ready_p),
                b.peek(waiting_p),
                b.peek(events_p),
                ret as u128,
            ];
            assert_eq!(
                status, [0; 4],
                "seed {seed} cycle {cycle}: ready, waiting, events, credits after reset"
            );
            assert_eq!(
                credits,
                vec![s.reserve; s.vcs],
                "seed {seed}: credits after reset"
            );
        }
        // The sender.
        for v in 0..s.vcs {
            if streams[v].is_empty() {
                let bad = rng.chance(run.bad);
                streams[v].extend(item(&mut rng, s.max_len, bad));
            }
        }
        let mut arrival = None;
        if rng.chance(run.violate) {
            let dry: Vec<usize> = (0..s.vcs).filter(|&v| credits[v] == 0).collect();
            if !dry.is_empty() && rng.chance(0.7) {
                let v = dry[rng.range(0, dry.len() as u64 - 1) as usize];
                arrival = Some((v, streams[v].pop_front().unwrap()));
            } else if s.vcs < 1 << vc_bits {
                let v = rng.range(s.vcs as u64, (1 << vc_bits) - 1) as usize;
                arrival = Some((v, head(&mut rng, 3)));
            }
        } else if rng.chance(run.in_rate) {
            let able: Vec<usize> = (0..s.vcs).filter(|&v| credits[v] > 0).collect();
            if !able.is_empty() {
                let v = able[rng.range(0, able.len() as u64 - 1) as usize];
                credits[v] -= 1;
                arrival = Some((v, streams[v].pop_front().unwrap()));
            }
        }
        b.poke_bool(valid, arrival.is_some());
        let idle = (rng.bits(65), rng.bits(vc_bits) as usize);
        let (av, af) = arrival.map_or((idle.1, idle.0), |(v, f)| (v, f));
        b.poke(flit_p, af);
        b.poke(vc_p, av as u128);
        // The switch.
        let mut read = None;
        if rng.chance(run.bad_read) {
            let idle_vcs: Vec<usize> = (0..1 << vc_bits)
                .filter(|&v| v >= s.vcs || !model.ready(v))
                .collect();
            if !idle_vcs.is_empty() {
                read = Some(idle_vcs[rng.range(0, idle_vcs.len() as u64 - 1) as usize]);
            }
        } else if rng.chance(run.out_rate) {
            let able: Vec<usize> = (0..s.vcs)
                .filter(|&v| model.ready(v) && Some(v) != stalled)
                .collect();
            if !able.is_empty() {
                read = Some(able[rng.range(0, able.len() as u64 - 1) as usize]);
            }
        }
        b.poke_bool(rvalid, read.is_some());
        let idle_vc = rng.bits(vc_bits) as usize;
        b.poke(rvc, read.unwrap_or(idle_vc) as u128);
        // Outputs against the model.
        let (mut ready, mut waiting) = (0u128, 0u128);
        for v in 0..s.vcs {
            ready |= (model.ready(v) as u128) << v;
            waiting |= (model.waiting(v) as u128) << v;
            if let Some(&f) = model.queues[v].front() {
                assert_eq!(
                    b.peek(fronts[v]),
                    f,
                    "seed {seed} cycle {cycle}: front of VC {v}"
                );
            }
        }
        assert_eq!(b.peek(ready_p), ready, "seed {seed} cycle {cycle}: ready");
        assert_eq!(
            b.peek(waiting_p),
            waiting,
            "seed {seed} cycle {cycle}: waiting"
        );
        assert_eq!(
            b.peek(events_p) as u32,
            model.events,
            "seed {seed} cycle {cycle}: events"
        );
        if let Some(r) = read.filter(|&r| r < s.vcs && model.ready(r)) {
            let want = *model.queues[r].front().unwrap();
            assert_eq!(
                b.peek(rflit),
                want,
                "seed {seed} cycle {cycle}: flit read from VC {r}"
            );
        }
        assert_eq!(
            b.peek(bypass_p) == 1,
            bypasses(&model, arrival, read),
            "seed {seed} cycle {cycle}: bypass_head"
        );
        b.tick();
        if rst {
            model.reset();
            credits = vec![s.reserve; s.vcs];
            owed = 0;
            out.reset_cycles += 1;
            continue;
        }
        if let Some(r) = read {
            if model.edge(arrival, Some(r)).is_some() {
                out.delivered[r] += 1;
                if stalled.is_some() {
                    out.during_stall[r] += 1;
                }
            }
        } else {
            model.edge(arrival, None);
        }
        for e in 0..event::COUNT {
            out.events[e] += (model.events >> e) as u64 & 1;
        }
    }
    assert_eq!(
        out.events[event::NO_SLOT],
        0,
        "seed {seed}: a flit found no slot"
    );
    if run.reset_gap > 0 {
        sched.assert_pulses(&format!("damq seed {seed}"), 3);
    }
    out
}

/// Whether the arrival is a head stored straight into its VC's front on this edge: after the
/// edge it is its VC's only flit (the VC was empty, or its one flit is read now).
fn bypasses(model: &DamqModel, arrival: Option<(usize, u128)>, read: Option<usize>) -> bool {
    let Some((v, _)) = arrival.filter(|a| a.0 < model.queues.len()) else {
        return false;
    };
    let mut next = model.clone();
    next.edge(arrival, read);
    let read_here = read == Some(v) && model.ready(v);
    let before = model.queues[v].len() - read_here as usize;
    before == 0 && next.queues[v].len() == 1 && next.waiting(v)
}

fn small(run: &Run) -> Outcome {
    run_both(
        "damq_small",
        || Small::new(SMALL.params()),
        table,
        |b| bench(b, SMALL, run),
    )
    .result
}

fn random_run(seed: u64, cycles: u64) -> Run {
    Run {
        seed,
        cycles,
        bad: 0.3,
        in_rate: 0.8,
        out_rate: 0.6,
        violate: 0.02,
        bad_read: 0.03,
        reset_gap: 0,
        stall: None,
    }
}

/// Random traffic with every kind of bad input, random reads, no resets: every event occurs.
#[test]
fn damq_random_traffic() {
    let mut events = [0u64; event::COUNT];
    for (seed, rates) in [(1u64, (0.8, 0.6)), (2, (1.0, 0.9)), (3, (0.5, 0.5))] {
        let mut run = random_run(seed, 20000);
        (run.in_rate, run.out_rate) = rates;
        let r = small(&run);
        eprintln!("seed {seed}: {r:?}");
        assert!(
            r.delivered.iter().all(|&d| d > 2000),
            "seed {seed}: too little delivered"
        );
        assert!(r.lent_peak > 0, "seed {seed}: nothing was ever lent");
        for e in 0..event::COUNT {
            events[e] += r.events[e];
        }
    }
    for e in 0..event::NO_SLOT {
        assert!(events[e] > 0, "event {} never occurred", event::NAMES[e]);
    }
}

/// Resets at random moments under random traffic.
#[test]
fn damq_resets_under_traffic() {
    let mut run = random_run(7, 6000);
    run.reset_gap = 700;
    let r = small(&run);
    eprintln!("resets: {r:?}");
    assert!(r.reset_cycles >= 3);
    assert!(
        r.delivered.iter().all(|&d| d > 300),
        "too little delivered between resets"
    );
}

/// VC 0 is never read for 3000 cycles while the sender keeps offering on every VC: VC 0
/// borrows the pool and runs dry, the other VCs keep flowing on their reservations.
#[test]
fn damq_stalled_vc_does_not_starve_the_others() {
    let run = Run {
        seed: 11,
        cycles: 5000,
        bad: 0.0,
        in_rate: 1.0,
        out_rate: 0.7,
        violate: 0.0,
        bad_read: 0.0,
        reset_gap: 0,
        stall: Some((0, 500, 3500)),
    };
    let r = small(&run);
    eprintln!("stall: {r:?}");
    let pool = SMALL.capacity() - SMALL.vcs * SMALL.reserve;
    assert!(
        r.stalled_dry,
        "the stalled VC's sender never ran out of credits"
    );
    assert_eq!(
        r.stalled_peak,
        SMALL.reserve + pool,
        "the stalled VC should hold its reservation and the whole pool"
    );
    assert_eq!(r.during_stall[0], 0);
    for v in 1..SMALL.vcs {
        assert!(
            r.during_stall[v] > 800,
            "VC {v} starved while VC 0 stalled: {} flits in 3000 cycles",
            r.during_stall[v]
        );
    }
}

/// The default configuration's unit (the emitted top `nrc_damq`): long packets, resets.
#[test]
fn damq_default_configuration() {
    let mut run = random_run(21, 8000);
    run.reset_gap = 2500;
    let r = run_both(
        "damq_default",
        || Default2::new(DEFAULT.params()),
        table,
        |b| bench(b, DEFAULT, &run),
    )
    .result;
    eprintln!("default: {r:?}");
    assert!(r.delivered.iter().all(|&d| d > 1000));
    assert!(r.lent_peak > 0, "nothing was ever lent");
}

/// Latency and rate, directed, on an otherwise idle unit: a head sent to an idle VC in cycle
/// `c` is `waiting` and read in `c + 1`, and each following flit one cycle after it arrives
/// (the unit's share of a hop: one cycle); a VC whose flits wait in the RAM list is read back
/// at one flit per cycle. Returns the cycles from each arrival to its read.
fn directed(b: &mut dyn Backend) -> Vec<u64> {
    let s = SMALL;
    let mut rng = BenchRng::new(5);
    let p = |n: &str| b.port(n);
    let (reset, valid, flit_p, vc_p) = (
        p("reset"),
        p("channel$valid"),
        p("channel$flit"),
        p("channel$vc"),
    );
    let (rvalid, rvc, rflit, ready_p, waiting_p) = (
        p("read$valid"),
        p("read$vc"),
        p("read$flit"),
        p("ready"),
        p("waiting"),
    );
    b.poke_bool(reset, true);
    b.tick();
    b.poke_bool(reset, false);
    b.poke_bool(rvalid, false);
    b.poke_bool(valid, false);
    b.tick();
    // Cut-through at zero load: each flit is read in the cycle after it arrives.
    let pkt = packet(&mut rng, 5, 5);
    let mut lat = vec![];
    let mut sent: Option<(u128, u64)> = None;
    for (i, &f) in pkt.iter().chain(std::iter::once(&0)).enumerate() {
        let now = b.cycle();
        let last = i == pkt.len();
        b.poke_bool(valid, !last);
        b.poke(flit_p, f);
        b.poke(vc_p, 1);
        if let Some((g, at)) = sent {
            assert_eq!(
                b.peek(ready_p),
                0b010,
                "flit {i}: VC 1 ready one cycle after"
            );
            if i == 1 {
                assert_eq!(b.peek(waiting_p), 0b010, "the head waits one cycle after");
            }
            b.poke_bool(rvalid, true);
            b.poke(rvc, 1);
            assert_eq!(b.peek(rflit), g, "flit {i} read");
            lat.push(now - at);
        } else {
            assert_eq!(b.peek(ready_p), 0, "idle before the head");
        }
        sent = Some((f, now));
        b.tick();
    }
    b.poke_bool(rvalid, false);
    b.poke_bool(valid, false);
    b.tick();
    assert_eq!(b.peek(ready_p), 0, "all read");
    // Ten flits into VC 2 with no reads (one front, nine in the RAM list), then read back
    // one per cycle: the refills keep up.
    let burst: Vec<u128> = [packet(&mut rng, 6, 6), packet(&mut rng, 4, 4)].concat();
    for &f in &burst {
        b.poke_bool(valid, true);
        b.poke(flit_p, f);
        b.poke(vc_p, 2);
        b.tick();
    }
    b.poke_bool(valid, false);
    for (i, &f) in burst.iter().enumerate() {
        assert_eq!(b.peek(ready_p), 0b100, "burst flit {i} ready");
        b.poke_bool(rvalid, true);
        b.poke(rvc, 2);
        assert_eq!(b.peek(rflit), f, "burst flit {i}");
        b.tick();
    }
    b.poke_bool(rvalid, false);
    assert_eq!(b.peek(ready_p), 0, "burst drained");
    let _ = s;
    lat
}

#[test]
fn damq_latency_and_rate() {
    let r = run_both("damq_small", || Small::new(SMALL.params()), table, directed);
    eprintln!("arrival to read, cycles: {:?}", r.result);
    assert!(r.result.iter().all(|&l| l == 1));
}
