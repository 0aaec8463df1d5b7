//! PacketBuffer against its model: random streams of good and dirty packets with random idle,
//! reader backpressure and a credit-respecting sender, plus directed cases per drop reason and
//! a credit violation (overrun). `sink.data` is random while `sink.valid` is low.
//!
//! The drop events (`drops`) must be the model's on every edge; the bench counts them per
//! reason and checks the counts against what each dirty item must cost.
//!
//! Reset (its doc: "empties the buffer"; `freed` and `drops` are registers, so they are 0
//! after reset, and the flits accepted in the reset cycle and the cycle before it, still in
//! the input register, are dropped): a random run with 1-3 cycle pulses at random moments
//! (the shared [`ResetSchedule`]). In the first cycle after each, `source.valid`, `freed` and
//! `drops` must be zero; the sender starts
//! over with `D` credits in the middle of its stream (as a link does when both ends reset), and
//! what comes out is checked against the reset model alone.
use hdl::formats::flit::ControlCode;
use hdl::llp::packet_buffer::*;
use hdl::packet_buffer;
use testbench::models::formats::{
    random_body_flit as body, random_control, random_head_flit as head, random_tail_flit as tail,
};
use testbench::models::packet_buffer::{classify, Counters, FlitClass, PacketBufferModel};
use testbench::models::stream::{Receiver, StreamPorts};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng};

type Dut16 = packet_buffer!(16);
type Dut64 = packet_buffer!(64);

macro_rules! table {
    ($t:ty) => {
        || {
            port_table!($t; reset, sink.valid, sink.data, sink.ready, source.valid, source.data,
                source.ready, freed, drops, free, idle)
        }
    };
}

const MH: usize = 0;
const MT: usize = 1;
const TL: usize = 2;
const BAD: usize = 3;
const OVR: usize = 4;

fn malformed(rng: &mut BenchRng) -> u128 {
    match rng.range(0, 2) {
        0 => (rng.range(6, 0x1f) as u128) << 56,
        1 => (3u128 << 62) | rng.bits(62),
        _ => (1u128 << 63) | ((rng.range(5, 15) as u128) << 35),
    }
}
/// A well-formed packet of `n` flits announcing `len`.
fn packet(rng: &mut BenchRng, n: usize, len: u8) -> Vec<u128> {
    let mut p = vec![head(rng, len)];
    p.extend((2..n).map(|_| body(rng)));
    p.push(tail(rng));
    p
}

/// One item of a stream: its flits, whether it must be delivered, and the counter it bumps.
struct Item {
    flits: Vec<u128>,
    good: bool,
    counter: Option<usize>,
    /// Leaves the buffer mid-packet: the next item must begin with a head.
    open_end: bool,
}

fn item(rng: &mut BenchRng, max_len: usize, kind: u64) -> Item {
    let n = rng.range(2, max_len as u64) as usize;
    let mut flits = packet(rng, n, n as u8);
    let (mut good, mut counter, mut open_end) = (false, None, false);
    match kind {
        0 => good = true,
        1 => {
            // Missing head: the packet without its head.
            flits.remove(0);
            counter = Some(MH);
        }
        2 => {
            // Missing tail.
            flits.pop();
            counter = Some(MT);
            open_end = true;
        }
        3 => {
            // Too long: beyond max_len, or beyond its own len.
            if rng.chance(0.5) && max_len < 255 {
                let n = max_len + 1 + rng.range(0, 3) as usize;
                flits = packet(rng, n, 255);
                flits[0] = head(rng, max_len as u8);
            } else {
                let extra = rng.range(1, 3) as usize;
                let l = flits.len();
                for _ in 0..extra {
                    let b = body(rng);
                    flits.insert(l - 1, b);
                }
            }
            counter = Some(TL);
        }
        4 => {
            // Too short: len says more than there are.
            let l = flits.len();
            let len = (l + rng.range(1, 3) as usize) as u8;
            flits[0] = head(rng, len);
            counter = Some(TL);
        }
        5 => {
            // A bad marker in place of one flit.
            let i = rng.range(0, flits.len() as u64 - 1) as usize;
            let code = if i == 0 {
                ControlCode::HeadBadPkt
            } else if i == flits.len() - 1 {
                ControlCode::TailBadPkt
            } else {
                ControlCode::BodyBadPkt
            };
            flits[i] = random_control(rng, code);
            counter = Some(BAD);
        }
        6 => {
            // A malformed flit in place of one flit.
            let i = rng.range(0, flits.len() as u64 - 1) as usize;
            flits[i] = malformed(rng);
            counter = Some(BAD);
            open_end = i == flits.len() - 1;
        }
        _ => {
            // Head with len < 2.
            let len = rng.range(0, 1) as u8;
            flits[0] = head(rng, len);
            counter = Some(BAD);
        }
    }
    Item {
        flits,
        good,
        counter,
        open_end,
    }
}

/// A random stream of `n` items ending with a good packet; `dirty` is the share of dirty ones.
fn stream(rng: &mut BenchRng, n: usize, max_len: usize, dirty: f64) -> Vec<Item> {
    let mut items: Vec<Item> = vec![];
    for i in 0..n {
        let must_head = items.last().is_some_and(|p| p.open_end);
        let kind = if i + 1 < n && rng.chance(dirty) {
            rng.range(1, 7)
        } else {
            0
        };
        let mut it = item(rng, max_len, kind);
        if must_head && !matches!(classify(it.flits[0]), FlitClass::Head(_)) {
            // After an open end the buffer is mid-packet: a headless fragment would join the
            // open packet, and a marker would be swallowed by a discard. Send a good one.
            it = item(rng, max_len, 0);
        }
        items.push(it);
    }
    items
}

struct Run {
    /// Flits the sender sends, in order.
    flits: Vec<u128>,
    /// Flits that must come out, in order.
    expect: Vec<u128>,
    /// Counters expected at the end (`None`: the model's word only).
    want: Option<Counters>,
    in_rate: f64,
    out_rate: f64,
    /// Reader stalled for this many cycles at the start.
    stall: u64,
    /// The sender waits for credits.
    respect: bool,
    /// Idle/credit control flits sprinkled in (ignored by the buffer).
    noise: f64,
    /// Mean cycles between reset pulses (0: none). With resets, `expect` and `want` are not
    /// used: what leaves is the reset model's word alone.
    reset_gap: u64,
}

#[derive(Debug, PartialEq)]
struct Outcome {
    delivered: usize,
    counters: Counters,
    err: (u128, u128, u8),
    freed: u64,
    cycles: u64,
}

fn bench<const D: usize>(b: &mut dyn Backend, max_len: usize, run: &Run, seed: u64) -> Outcome {
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(n);
    let (reset, sv, sd, sr, freed_p) = (
        p("reset"),
        p("sink$valid"),
        p("sink$data"),
        p("sink$ready"),
        p("freed"),
    );
    let drops_p = p("drops");
    // The hardware's drop events counted per reason, as a register file would.
    let mut counted: Counters = [0; 5];
    let (free_p, idle_p) = (p("free"), p("idle"));
    let mut rx = Receiver::new(StreamPorts::new(b, "source"), run.out_rate);
    let mut model = PacketBufferModel::new(D, max_len);
    let mut queue: std::collections::VecDeque<u128> = run.flits.iter().copied().collect();
    let expect = &run.expect;
    let mut credits = D as u64;
    let mut expect_freed = 0u64;
    let (mut freed_sum, mut spent, mut overruns_seen) = (0u64, 0u64, 0u64);
    let mut got = vec![];
    let mut cycles = 0u64;
    let mut pending_noise: Option<u128> = None;
    // The buffer handles a flit in the cycle after it is accepted (its input register): the
    // model sees each flit one edge late, together with that edge's read.
    let mut in_reg: Option<u128> = None;
    let mut sched = match run.reset_gap {
        0 => ResetSchedule::never(),
        gap => ResetSchedule::new(&mut rng, gap),
    };
    b.poke_bool(reset, true);
    b.tick();
    loop {
        let rst = sched.drive(b, reset, &mut rng);
        // Sender: one flit per cycle at most (the sink is always ready).
        if pending_noise.is_none() && rng.chance(run.noise) {
            let code = if rng.chance(0.5) {
                ControlCode::Idle
            } else {
                ControlCode::CrdtRet
            };
            pending_noise = Some(random_control(&mut rng, code));
        }
        let offer = if let Some(n) = pending_noise.take() {
            Some(n)
        } else if !queue.is_empty() && rng.chance(run.in_rate) && (!run.respect || credits > 0) {
            queue.pop_front()
        } else {
            None
        };
        b.poke_bool(sv, offer.is_some());
        let idle_data = rng.bits(65);
        b.poke(sd, offer.unwrap_or(idle_data));
        if cycles >= run.stall {
            rx.drive(b, &mut rng);
        } else {
            b.poke_bool(rx.ports.ready, false);
        }
        assert!(b.peek_bool(sr), "seed {seed}: sink.ready low");
        if sched.released() {
            let status: Vec<u128> = [freed_p, drops_p, rx.ports.valid]
                .iter()
                .map(|&p| b.peek(p))
                .collect();
            assert!(
                status.iter().all(|&v| v == 0),
                "seed {seed} cycle {cycles}: freed, drops, source.valid after reset: {status:?}"
            );
        }
        let f = b.peek(freed_p) as u64;
        assert_eq!(f, expect_freed, "seed {seed} cycle {cycles}: freed");
        credits += f;
        freed_sum += f;
        assert!(
            !run.respect || credits <= D as u64,
            "seed {seed}: credits above D"
        );
        let taken = rx.fired(b);
        if taken.is_some() {
            assert!(
                !model.committed.is_empty(),
                "seed {seed}: read with nothing committed"
            );
        }
        if let Some(w) = offer {
            if classify(w) != FlitClass::Ignored {
                credits = credits.saturating_sub(1);
                spent += 1;
            }
        }
        b.tick();
        if rst {
            // Every handshake of the reset cycle is void, the input register is emptied, and
            // the sender starts over with all its credits.
            model.reset();
            counted = [0; 5];
            rx.reset();
            in_reg = None;
            expect_freed = 0;
            credits = D as u64;
            (freed_sum, spent) = (0, 0);
        } else {
            let before = model.counters[OVR];
            let (fr, popped) = model.edge(in_reg, taken.is_some());
            in_reg = offer;
            overruns_seen += model.counters[OVR] - before;
            expect_freed = fr;
            if let Some(v) = taken {
                assert_eq!(Some(v), popped, "seed {seed}: flit {} wrong", got.len());
                got.push(v);
            }
        }
        let drops = b.peek(drops_p) as u8;
        let want_drops = if rst { 0 } else { model.drops };
        assert_eq!(drops, want_drops, "seed {seed} cycle {cycles}: drops");
        for (reason, slot) in [
            (REASON_MISSING_HEAD, MH),
            (REASON_MISSING_TAIL, MT),
            (REASON_TOO_LONG, TL),
            (REASON_TOO_SHORT, TL),
            (REASON_BAD, BAD),
            (REASON_OVERRUN, OVR),
        ] {
            if drops >> drop_bit(reason) & 1 == 1 {
                counted[slot] += 1;
            }
        }
        assert_eq!(
            counted, model.counters,
            "seed {seed} cycle {cycles}: drops counted"
        );
        // Slots holding a flit are the model's (committed and open); the input register
        // holds the flit accepted on the last edge unless the buffer ignores it.
        assert_eq!(
            b.peek(free_p) as usize,
            D - model.used(),
            "seed {seed} cycle {cycles}: free"
        );
        let held = in_reg.is_some_and(|w| classify(w) != FlitClass::Ignored);
        assert_eq!(
            b.peek_bool(idle_p),
            !held,
            "seed {seed} cycle {cycles}: idle"
        );
        cycles += 1;
        // Without resets the stream says what must come out; with them, the model.
        let delivered = if run.reset_gap == 0 {
            got.len() == expect.len()
        } else {
            model.committed.is_empty() && !sched.active()
        };
        if queue.is_empty() && in_reg.is_none() && delivered && expect_freed == 0 {
            // Let the last `freed` come out, and check nothing else shows.
            for _ in 0..4 {
                b.poke_bool(sv, false);
                b.poke(sd, rng.bits(65));
                b.poke_bool(rx.ports.ready, true);
                let f = b.peek(freed_p) as u64;
                assert_eq!(f, expect_freed, "seed {seed}: final freed");
                freed_sum += f;
                expect_freed = 0;
                assert!(
                    !b.peek_bool(rx.ports.valid),
                    "seed {seed}: extra flit shown"
                );
                b.tick();
            }
            break;
        }
        assert!(cycles < 200_000, "seed {seed}: hang");
    }
    if run.reset_gap == 0 {
        assert_eq!(&got, expect, "seed {seed}: delivered flits");
    } else {
        sched.assert_pulses(&format!("packet buffer seed {seed}"), 5);
    }
    if let Some(want) = run.want {
        assert_eq!(want, model.counters, "seed {seed}: counters per dirty item");
    }
    if run.respect {
        assert_eq!(
            overruns_seen, 0,
            "seed {seed}: overrun with credits respected"
        );
        assert_eq!(credits, D as u64, "seed {seed}: credits not all returned");
    }
    assert_eq!(
        freed_sum,
        spent - model.counters[OVR],
        "seed {seed}: freed total"
    );
    Outcome {
        delivered: got.len(),
        counters: model.counters,
        err: model.err,
        freed: freed_sum,
        cycles,
    }
}

fn random_run(seed: u64, items: usize, max_len: usize, rates: (f64, f64)) -> Run {
    let mut rng = BenchRng::new(seed ^ 0x5eed);
    let items = stream(&mut rng, items, max_len, 0.5);
    let mut want = [0u64; 5];
    for it in &items {
        if let Some(c) = it.counter {
            want[c] += 1;
        }
    }
    Run {
        flits: items.iter().flat_map(|i| i.flits.clone()).collect(),
        expect: items
            .iter()
            .filter(|i| i.good)
            .flat_map(|i| i.flits.clone())
            .collect(),
        want: Some(want),
        in_rate: rates.0,
        out_rate: rates.1,
        stall: 0,
        respect: true,
        noise: 0.05,
        reset_gap: 0,
    }
}

#[test]
fn packet_buffer_random_streams() {
    for (seed, rates) in [(1u64, (1.0, 1.0)), (2, (0.7, 0.4)), (3, (0.9, 0.8))] {
        let run = random_run(seed, 400, 8, rates);
        let r = run_both(
            "packet_buffer_16",
            || Dut16::new(8),
            table!(Dut16),
            |b| bench::<16>(b, 8, &run, seed),
        );
        eprintln!("seed {seed}: {:?}", r.result);
        assert!(r.result.delivered > 0);
        assert!(
            r.result.counters[..4].iter().all(|&c| c > 0),
            "seed {seed}: every dirty case must occur"
        );
    }
    let run = random_run(4, 150, 32, (0.8, 0.6));
    run_both(
        "packet_buffer_64",
        || Dut64::new(32),
        table!(Dut64),
        |b| bench::<64>(b, 32, &run, 4),
    );
}

/// Resets at random moments under a random stream of good and dirty packets.
#[test]
fn packet_buffer_resets_under_traffic() {
    let mut run = random_run(5, 300, 8, (0.8, 0.7));
    run.want = None;
    run.reset_gap = 150;
    let r = run_both(
        "packet_buffer_16",
        || Dut16::new(8),
        table!(Dut16),
        |b| bench::<16>(b, 8, &run, 5),
    );
    eprintln!("resets: {:?}", r.result);
    assert!(
        r.result.delivered > 100,
        "too little delivered between resets"
    );
}

/// Throughput: back-to-back good packets move at one flit per cycle.
#[test]
fn packet_buffer_full_rate() {
    let mut rng = BenchRng::new(9);
    let flits: Vec<u128> = (0..40).flat_map(|_| item(&mut rng, 8, 0).flits).collect();
    let n = flits.len();
    let run = Run {
        expect: flits.clone(),
        flits,
        want: Some([0; 5]),
        in_rate: 1.0,
        out_rate: 1.0,
        stall: 0,
        respect: true,
        noise: 0.0,
        reset_gap: 0,
    };
    let r = run_both(
        "packet_buffer_rate",
        || Dut16::new(8),
        table!(Dut16),
        |b| bench::<16>(b, 8, &run, 9),
    );
    assert!(
        r.result.cycles <= n as u64 + 12,
        "{n} flits took {} cycles",
        r.result.cycles
    );
}

/// Runs `flits` (16 slots, max_len 8; reader always ready unless `stall`) and checks that
/// exactly `expect` comes out and the counters are `want`; returns the final error buffer.
fn directed(
    name: &str,
    flits: Vec<u128>,
    expect: Vec<u128>,
    want: Counters,
    stall: u64,
    respect: bool,
) -> (u128, u128, u8) {
    let run = Run {
        flits,
        expect,
        want: Some(want),
        in_rate: 1.0,
        out_rate: 1.0,
        stall,
        respect,
        noise: 0.0,
        reset_gap: 0,
    };
    let r = run_both(
        "packet_buffer_directed",
        || Dut16::new(8),
        table!(Dut16),
        |b| bench::<16>(b, 8, &run, 0),
    );
    eprintln!("{name}: {:?}", r.result.counters);
    r.result.err
}

fn ctr(i: usize) -> Counters {
    let mut c = [0; 5];
    c[i] = 1;
    c
}

#[test]
fn packet_buffer_directed_cases() {
    let mut rng = BenchRng::new(11);
    let r = &mut rng;
    let good = packet(r, 3, 3);
    let g = |r: &mut BenchRng| packet(r, 4, 4);

    // (a) missing head: a body and tail alone, then a good packet.
    let (b1, t1) = (body(r), tail(r));
    let next = g(r);
    let flits = [vec![b1, t1], next.clone()].concat();
    let err = directed("missing head", flits, next, ctr(MH), 0, true);
    assert_eq!(err, (b1, 0, REASON_MISSING_HEAD));

    // (b) missing tail: head + body, then a good packet.
    let (h, b1) = (head(r, 3), body(r));
    let next = g(r);
    let flits = [vec![h, b1], next.clone()].concat();
    let err = directed("missing tail", flits, next, ctr(MT), 0, true);
    assert_eq!(err, (h, b1, REASON_MISSING_TAIL));

    // (c) too long: 9 flits with max_len 8 (and len 8), then a good packet.
    let long = {
        let mut p = packet(r, 9, 8);
        p[0] = head(r, 8);
        p
    };
    let next = g(r);
    let flits = [long.clone(), next.clone()].concat();
    let err = directed("too long", flits, next, ctr(TL), 0, true);
    assert_eq!(err, (long[0], long[1], REASON_TOO_LONG));

    // (c') longer than its len: 4 flits announcing 3.
    let over = packet(r, 4, 3);
    let flits = [good.clone(), over.clone()].concat();
    let err = directed("over len", flits, good.clone(), ctr(TL), 0, true);
    assert_eq!(err, (over[0], over[1], REASON_TOO_LONG));

    // (c'') shorter than its len: 2 flits announcing 5.
    let short = packet(r, 2, 5);
    let flits = [short.clone(), good.clone()].concat();
    let err = directed("short", flits, good.clone(), ctr(TL), 0, true);
    assert_eq!(err, (short[0], short[1], REASON_TOO_SHORT));

    // (d) BodyBadPkt in the middle: the rest up to the tail is discarded.
    let mut p = packet(r, 5, 5);
    let m = random_control(r, ControlCode::BodyBadPkt);
    p[2] = m;
    let flits = [p.clone(), good.clone()].concat();
    let err = directed("body marker", flits, good.clone(), ctr(BAD), 0, true);
    assert_eq!(err, (p[0], p[1], REASON_BAD));

    // (d) HeadBadPkt: nothing open, the marker itself is recorded.
    let mut p = packet(r, 3, 3);
    p[0] = random_control(r, ControlCode::HeadBadPkt);
    let flits = [good.clone(), p.clone(), good.clone()].concat();
    let err = directed(
        "head marker",
        flits,
        [good.clone(), good.clone()].concat(),
        ctr(BAD),
        0,
        true,
    );
    assert_eq!(err, (p[0], 0, REASON_BAD));

    // (d) TailBadPkt: the packet is dropped and the next one is not skipped.
    let mut p = packet(r, 2, 2);
    p[1] = random_control(r, ControlCode::TailBadPkt);
    let flits = [p.clone(), good.clone()].concat();
    let err = directed("tail marker", flits, good.clone(), ctr(BAD), 0, true);
    assert_eq!(err, (p[0], p[1], REASON_BAD));

    // (d) a malformed flit as the second flit; len < 2 counts as bad too.
    let mut p = packet(r, 4, 4);
    p[1] = malformed(r);
    let z = packet(r, 2, 1);
    let flits = [p.clone(), good.clone(), z.clone(), good.clone()].concat();
    let mut want = [0; 5];
    want[BAD] = 2;
    let err = directed(
        "malformed + len<2",
        flits,
        [good.clone(), good.clone()].concat(),
        want,
        0,
        true,
    );
    assert_eq!(err, (z[0], 0, REASON_BAD));

    // Ignored control flits inside a packet change nothing.
    let mut p = packet(r, 4, 4);
    p.insert(2, random_control(r, ControlCode::Idle));
    let clean: Vec<u128> = p.iter().copied().filter(|&w| w >> 62 != 0).collect();
    let err = directed("idle inside", p, clean, [0; 5], 0, true);
    assert_eq!(err, (0, 0, REASON_NONE));

    // Overrun: the reader stalls and the sender ignores credits. Four good packets of 4 fill
    // the 16 slots; the fifth packet's head finds the buffer full and is dropped with the rest
    // of its packet; a later packet passes once the reader drains.
    let fill: Vec<u128> = (0..4).flat_map(|_| g(r)).collect();
    let lost = g(r);
    let flits = [fill.clone(), lost.clone()].concat();
    let err = directed("overrun", flits, fill.clone(), ctr(OVR), 40, false);
    assert_eq!(err, (lost[0], 0, REASON_OVERRUN));
    // Overrun in the middle of a packet: three good packets and half of a fourth fill up
    // to 14, a packet of 4 then overruns on its third flit.
    let three: Vec<u128> = (0..3).flat_map(|_| g(r)).collect();
    let big = packet(r, 6, 6);
    let flits = [three.clone(), big.clone()].concat();
    let mut want = [0; 5];
    want[OVR] = 1;
    let err = directed("overrun mid", flits, three, want, 40, false);
    assert_eq!(err, (big[0], big[1], REASON_OVERRUN));
}
