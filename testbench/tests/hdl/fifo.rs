//! The FIFO family (RegFifo, BramFifo, StreamFifo) against its cycle-accurate model.
//!
//! Every cycle the bench compares `sink.ready`, `source.valid`, `source.data` (when valid) and
//! `count` with [`FifoModel`], and independently checks: beats come out in the order they went
//! in, `count` equals the beats accepted and not yet delivered, the hold rule on `source`, and
//! that after a reset no beat accepted before it ever appears. Each run starts either with a
//! directed phase (fill to full with `source` stalled, then pop while a beat is offered: the
//! full FIFO must refuse it) or straight in random traffic; traffic has random idle and
//! backpressure at several rates, and random resets in the middle of traffic (1-3 cycles, from
//! the shared [`ResetSchedule`]): in the first cycle after each, `count` must be 0 and nothing
//! shown but a beat falling through. At 100%/100% rates the exact number of cycles is checked
//! (throughput and latency).
use hdl::prelude::*;
use std::collections::VecDeque;
use testbench::models::fifo::{FifoFlavor, FifoModel};
use testbench::models::stream::{Driver, StreamPorts};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng, PortTable};

/// One traffic pattern.
#[derive(Clone, Copy, Debug)]
struct Traffic {
    /// Probability that the producer offers a waiting beat.
    in_rate: f64,
    /// Probability that the consumer is ready.
    out_rate: f64,
    /// Mean cycles between reset pulses (1-3 cycles each); 0: no reset.
    reset_gap: u64,
    /// Fill to full first, then pop one while a beat is offered.
    fill_first: bool,
}

const PATTERNS: [Traffic; 5] = [
    // Full rate both sides, no reset: exact cycle count checked.
    Traffic {
        in_rate: 1.0,
        out_rate: 1.0,
        reset_gap: 0,
        fill_first: false,
    },
    Traffic {
        in_rate: 0.5,
        out_rate: 0.9,
        reset_gap: 0,
        fill_first: true,
    },
    Traffic {
        in_rate: 0.9,
        out_rate: 0.3,
        reset_gap: 100,
        fill_first: true,
    },
    Traffic {
        in_rate: 0.7,
        out_rate: 0.7,
        reset_gap: 50,
        fill_first: false,
    },
    // Resets in the middle of full-rate traffic.
    Traffic {
        in_rate: 1.0,
        out_rate: 1.0,
        reset_gap: 50,
        fill_first: false,
    },
];

/// What a run measured (identical on both backends).
#[derive(Debug, Default, PartialEq, Eq)]
struct Stats {
    cycles: u64,
    delivered: u64,
    dropped: u64,
    resets: u64,
    max_count: usize,
    /// Cycles where a full FIFO popped a beat while one was offered (and refused it).
    full_pops: u64,
}

fn bench(
    b: &mut dyn Backend,
    depth: usize,
    width: usize,
    flavor: FifoFlavor,
    t: Traffic,
    beats: usize,
    seed: u64,
) -> Stats {
    let ctx = format!("depth {depth} width {width} {flavor:?} {t:?} seed {seed}");
    let mut rng = BenchRng::new(seed);
    let sink = StreamPorts::new(b, "sink");
    let source = StreamPorts::new(b, "source");
    let reset = b.port("reset");
    let count = b.port("count");
    let mut tx = Driver::new(sink, t.in_rate);
    tx.queue.extend((0..beats).map(|_| rng.bits(width)));
    let mut model = FifoModel::new(depth, flavor);
    // Beats accepted and not yet delivered, tracked apart from the model.
    let mut expect: VecDeque<u128> = VecDeque::new();
    let mut held: Option<u128> = None;
    let mut sched = match t.reset_gap {
        0 => ResetSchedule::never(),
        gap => ResetSchedule::new(&mut rng, gap),
    };
    // 0: filling with source stalled, 1: the pop-while-full cycle, 2: random traffic.
    let mut phase = if t.fill_first && depth > 0 { 0 } else { 2 };
    if phase == 0 {
        tx.rate = 1.0;
    }
    let mut s = Stats::default();
    let limit = 100 * beats as u64 + 20 * depth as u64 + 1000;
    while !(tx.queue.is_empty() && expect.is_empty() && model.is_empty()) {
        let c = s.cycles;
        assert!(c < limit, "{ctx}: hang at cycle {c}");
        // Resets only in random traffic (the directed phases count cycles).
        let rst = sched.next_if(&mut rng, phase == 2);
        b.poke_bool(reset, rst);
        tx.drive(b, &mut rng);
        let ready = match phase {
            0 => false,
            1 => true,
            _ => rng.chance(t.out_rate),
        };
        b.poke_bool(source.ready, ready);
        let sink_valid = b.peek_bool(sink.valid);
        let sink_data = b.peek(sink.data);
        let want = model.outputs(sink_valid, sink_data, ready);
        let got_ready = b.peek_bool(sink.ready);
        let got_valid = b.peek_bool(source.valid);
        let got_data = b.peek(source.data);
        let got_count = b.peek(count) as usize;
        assert_eq!(
            (got_ready, got_valid, got_count),
            (want.sink_ready, want.source_valid, want.count),
            "{ctx}: cycle {c}: (sink.ready, source.valid, count) differ from the model"
        );
        if got_valid {
            assert_eq!(
                Some(got_data),
                want.source_data,
                "{ctx}: cycle {c}: source.data differs from the model"
            );
        }
        assert_eq!(
            got_count,
            expect.len(),
            "{ctx}: cycle {c}: count is not the number of beats accepted and not delivered"
        );
        if sched.released() {
            // Empty after reset: only a beat falling through may show.
            assert!(
                got_count == 0 && (!got_valid || (flavor == REGS_FT && sink_valid)),
                "{ctx}: cycle {c}: not empty after reset (count {got_count}, valid {got_valid})"
            );
        }
        if let Some(h) = held {
            assert!(
                got_valid && got_data == h,
                "{ctx}: cycle {c}: source withdrew or changed a beat before it moved"
            );
        }
        if phase == 1 {
            assert!(
                sink_valid && got_valid && !got_ready,
                "{ctx}: cycle {c}: a full FIFO must refuse a beat while popping one"
            );
            s.full_pops += 1;
        } else if sink_valid && got_valid && ready && !got_ready && !rst {
            s.full_pops += 1;
        }
        held = (got_valid && !ready && !rst).then_some(got_data);
        s.max_count = s.max_count.max(got_count);
        let sent = tx.fired(b);
        let edge = model.tick(rst, sink_valid, sink_data, ready);
        b.tick();
        s.cycles += 1;
        if rst {
            // Handshakes in a reset cycle are void; everything held is dropped.
            s.dropped += sent.is_some() as u64 + expect.len() as u64;
            expect.clear();
            continue;
        }
        assert_eq!(
            edge.accepted, sent,
            "{ctx}: cycle {c}: model accepted otherwise"
        );
        if let Some(v) = sent {
            expect.push_back(v);
        }
        if got_valid && ready {
            let want = expect
                .pop_front()
                .unwrap_or_else(|| panic!("{ctx}: cycle {c}: delivered a beat never accepted"));
            assert_eq!(
                got_data, want,
                "{ctx}: cycle {c}: beat out of order or corrupted"
            );
            s.delivered += 1;
        }
        match phase {
            0 if got_count == depth => phase = 1,
            0 => assert!(c < 3 * depth as u64 + 10, "{ctx}: never became full"),
            1 => {
                tx.rate = t.in_rate;
                phase = 2;
            }
            _ => {}
        }
    }
    s.resets = sched.pulses();
    assert_eq!(
        s.delivered + s.dropped,
        beats as u64,
        "{ctx}: beats lost outside resets"
    );
    if t.fill_first && depth > 0 {
        assert!(
            s.full_pops >= 1,
            "{ctx}: the pop-while-full case was not exercised"
        );
    }
    if t.reset_gap > 0 {
        assert!(s.resets > 0, "{ctx}: no reset happened; raise the rate");
    }
    s
}

/// Cycles to move `n` beats at 100%/100% with no reset: latency plus one beat per cycle,
/// except a depth-1 register FIFO without fall-through (one beat every two cycles).
fn full_rate_cycles(depth: usize, flavor: FifoFlavor, n: u64) -> (u64, usize) {
    match flavor {
        _ if depth == 0 => (n, 0),
        FifoFlavor::Registers { fall_through: true } => (n, 0),
        FifoFlavor::Registers { .. } if depth == 1 => (2 * n, 1),
        FifoFlavor::Registers { .. } => (n + 1, 1),
        FifoFlavor::BlockRam => (n + 2, 2),
    }
}

/// Runs every traffic pattern on both backends and checks full-rate throughput.
fn check<T: Block>(
    name: &str,
    make: impl Fn() -> T,
    table: impl Fn() -> PortTable<T>,
    depth: usize,
    width: usize,
    flavor: FifoFlavor,
) {
    let beats = 300.max(depth + 100);
    for (i, t) in PATTERNS.into_iter().enumerate() {
        let seed = 1000 * depth as u64 + 10 * width as u64 + i as u64;
        let rep = run_both(name, &make, &table, |b| {
            bench(b, depth, width, flavor, t, beats, seed)
        });
        if t.in_rate == 1.0 && t.out_rate == 1.0 && t.reset_gap == 0 {
            let (cycles, max_count) = full_rate_cycles(depth, flavor, beats as u64);
            assert_eq!(
                (rep.result.cycles, rep.result.max_count),
                (cycles, max_count),
                "{name}: (cycles, max count) for {beats} beats at full rate"
            );
        }
    }
}

macro_rules! table {
    ($t:ty) => {
        || port_table!($t; reset, sink.valid, sink.data, sink.ready, source.valid, source.data, source.ready, count)
    };
}

const REGS: FifoFlavor = FifoFlavor::Registers {
    fall_through: false,
};
const REGS_FT: FifoFlavor = FifoFlavor::Registers { fall_through: true };

#[test]
fn reg_fifo_depth_1() {
    type Dut = reg_fifo!(Bits<8>, 1);
    check("reg_fifo_1", || Dut::new(false), table!(Dut), 1, 8, REGS);
    check(
        "reg_fifo_1_ft",
        || Dut::new(true),
        table!(Dut),
        1,
        8,
        REGS_FT,
    );
}

#[test]
fn reg_fifo_depth_2() {
    type Dut = reg_fifo!(Bits<32>, 2);
    check("reg_fifo_2", || Dut::new(false), table!(Dut), 2, 32, REGS);
    check(
        "reg_fifo_2_ft",
        || Dut::new(true),
        table!(Dut),
        2,
        32,
        REGS_FT,
    );
}

#[test]
fn reg_fifo_depth_4_width_65() {
    type Dut = reg_fifo!(Bits<65>, 4);
    check("reg_fifo_4", || Dut::new(false), table!(Dut), 4, 65, REGS);
    check(
        "reg_fifo_4_ft",
        || Dut::new(true),
        table!(Dut),
        4,
        65,
        REGS_FT,
    );
}

#[test]
fn reg_fifo_depth_16() {
    type Dut = reg_fifo!(Bits<32>, 16);
    check("reg_fifo_16", || Dut::new(false), table!(Dut), 16, 32, REGS);
    check(
        "reg_fifo_16_ft",
        || Dut::new(true),
        table!(Dut),
        16,
        32,
        REGS_FT,
    );
}

#[test]
fn reg_fifo_depth_3_and_wire() {
    type Dut = reg_fifo!(Bits<8>, 3);
    check("reg_fifo_3", || Dut::new(false), table!(Dut), 3, 8, REGS);
    check(
        "reg_fifo_3_ft",
        || Dut::new(true),
        table!(Dut),
        3,
        8,
        REGS_FT,
    );
    type Wire = reg_fifo!(Bits<8>, 0);
    check(
        "reg_fifo_0",
        || Wire::new(false),
        table!(Wire),
        0,
        8,
        REGS_FT,
    );
}

#[test]
fn bram_fifo_depth_32() {
    type Dut = bram_fifo!(Bits<32>, 32);
    check(
        "bram_fifo_32",
        Dut::new,
        table!(Dut),
        32,
        32,
        FifoFlavor::BlockRam,
    );
}

#[test]
fn bram_fifo_depth_512() {
    type Dut = bram_fifo!(Bits<8>, 512);
    check(
        "bram_fifo_512",
        Dut::new,
        table!(Dut),
        512,
        8,
        FifoFlavor::BlockRam,
    );
}

#[test]
fn bram_fifo_depth_4_and_64_width_65() {
    type Dut = bram_fifo!(Bits<65>, 64);
    check(
        "bram_fifo_64",
        Dut::new,
        table!(Dut),
        64,
        65,
        FifoFlavor::BlockRam,
    );
    type Four = bram_fifo!(Bits<65>, 4);
    check(
        "bram_fifo_4",
        Four::new,
        table!(Four),
        4,
        65,
        FifoFlavor::BlockRam,
    );
}

#[test]
fn stream_fifo_picks_by_depth() {
    type Shallow = stream_fifo!(Bits<32>, 16);
    assert_eq!(Shallow::new().kind(), FifoKind::Registers);
    check(
        "stream_fifo_16",
        Shallow::new,
        table!(Shallow),
        16,
        32,
        REGS,
    );
    type Deep = stream_fifo!(Bits<32>, 32);
    assert_eq!(Deep::new().kind(), FifoKind::BlockRam);
    check(
        "stream_fifo_32",
        Deep::new,
        table!(Deep),
        32,
        32,
        FifoFlavor::BlockRam,
    );
}
