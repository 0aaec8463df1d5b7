//! Ports wider than 128 bits on both backends (the NIC's datapath needs them): a
//! `SkidBuffer<Bits<512>>` and `StreamFifo`s of 200-bit beats, in registers and in block RAM,
//! driven through `poke_wide`/`peek_wide` with random idle data, random backpressure and resets
//! under traffic. Beats are tracked by number: the FIFO model (exact per cycle) and the order
//! check work on the numbers, the values are compared word by word, and the dual run compares
//! every wide output on every cycle.
//!
//! Reset (both blocks' docs: the buffer is emptied): 1-3 cycle pulses at random moments (the
//! shared [`ResetSchedule`]); in the first cycle after each nothing is shown on `source`, and
//! no beat held before it ever comes out.
use hdl::prelude::*;
use hdl::stream_fifo;
use std::collections::VecDeque;
use testbench::backend::{fit_words, words};
use testbench::models::fifo::{FifoFlavor, FifoModel};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng};

/// A random `width`-bit value as 64-bit words.
fn value(rng: &mut BenchRng, width: usize) -> Vec<u64> {
    let w: Vec<u64> = (0..words(width)).map(|_| rng.bits(64) as u64).collect();
    fit_words(&w, width)
}

/// What a run moved: (beats delivered, beats dropped by resets, reset pulses).
type Outcome = (u64, u64, u64);

/// `fifo`: the FIFO model to follow (`None`: the skid buffer, checked by order and occupancy).
fn bench(
    b: &mut dyn Backend,
    seed: u64,
    width: usize,
    fifo: Option<(usize, FifoFlavor)>,
    (in_rate, out_rate): (f64, f64),
    reset_gap: u64,
) -> Outcome {
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(n);
    let (reset, sv, sd, sr) = (p("reset"), p("sink$valid"), p("sink$data"), p("sink$ready"));
    let (ov, od, or) = (p("source$valid"), p("source$data"), p("source$ready"));
    let count = fifo.map(|_| b.port("count"));
    assert_eq!((b.width(sd), b.width(od)), (width, width));
    let n = 600usize;
    let values: Vec<Vec<u64>> = (0..n).map(|_| value(&mut rng, width)).collect();
    let mut model = fifo.map(|(d, f)| FifoModel::new(d, f));
    let mut sched = match reset_gap {
        0 => ResetSchedule::never(),
        gap => ResetSchedule::new(&mut rng, gap),
    };
    let (mut next, mut offering) = (0usize, None::<usize>);
    let mut in_flight: VecDeque<usize> = VecDeque::new();
    let mut held: Option<Vec<u64>> = None;
    let (mut delivered, mut dropped, mut c) = (0u64, 0u64, 0u64);
    b.poke_bool(reset, true);
    b.tick();
    while (delivered + dropped) < n as u64 {
        let rst = sched.drive(b, reset, &mut rng);
        if offering.is_none() && next < n && rng.chance(in_rate) {
            offering = Some(next);
            next += 1;
        }
        b.poke_bool(sv, offering.is_some());
        let idle = value(&mut rng, width);
        b.poke_wide(sd, offering.map_or(&idle, |t| &values[t]));
        let ready = rng.chance(out_rate);
        b.poke_bool(or, ready);
        let (valid, data, sink_ready) = (b.peek_bool(ov), b.peek_wide(od), b.peek_bool(sr));
        let tag = format!("{width} bits seed {seed} cycle {c}");
        if sched.released() {
            assert!(!valid, "{tag}: a beat survived the reset");
        }
        if let (Some(m), Some(cp)) = (model.as_ref(), count) {
            // The model follows beat numbers (the idle beat is never shown: no fall-through).
            let want = m.outputs(
                offering.is_some(),
                offering.unwrap_or(usize::MAX) as u128,
                ready,
            );
            assert_eq!(
                (sink_ready, valid, b.peek(cp) as usize),
                (want.sink_ready, want.source_valid, want.count),
                "{tag}: (sink.ready, source.valid, count) differ from the model"
            );
            if let Some(t) = want.source_data {
                assert_eq!(data, values[t as usize], "{tag}: source.data of beat {t}");
            }
        }
        if let Some(h) = &held {
            assert!(
                valid && data == *h,
                "{tag}: source withdrew or changed a beat"
            );
        }
        held = (valid && !ready && !rst).then(|| data.clone());
        let sent = offering.filter(|_| sink_ready);
        if let Some(m) = model.as_mut() {
            m.tick(
                rst,
                offering.is_some(),
                offering.unwrap_or(usize::MAX) as u128,
                ready,
            );
        }
        b.tick();
        c += 1;
        if sent.is_some() {
            offering = None;
        }
        if rst {
            // Void handshakes; everything held is gone.
            dropped += sent.is_some() as u64 + in_flight.len() as u64;
            in_flight.clear();
            continue;
        }
        in_flight.extend(sent);
        if valid && ready {
            let t = in_flight
                .pop_front()
                .unwrap_or_else(|| panic!("{tag}: a beat never accepted (or held across a reset)"));
            assert_eq!(data, values[t], "{tag}: beat {t} out of order or corrupted");
            delivered += 1;
        }
        if fifo.is_none() {
            assert!(
                in_flight.len() <= 2,
                "{tag}: the skid buffer holds more than 2 beats"
            );
        }
        assert!(c < 100 * n as u64, "{tag}: hang");
    }
    if reset_gap > 0 {
        sched.assert_pulses(&format!("{width} bits seed {seed}"), 5);
    }
    (delivered, dropped, sched.pulses())
}

/// Full rate without reset, then random rates with resets.
const RUNS: [((f64, f64), u64); 2] = [((1.0, 1.0), 0), ((0.7, 0.6), 60)];

#[test]
fn skid_buffer_of_512_bits() {
    type Dut = SkidBuffer<Bits<512>>;
    let table = || port_table!(Dut; reset, sink.valid, sink.data, sink.ready, source.valid, source.data, source.ready);
    for (i, (rates, gap)) in RUNS.into_iter().enumerate() {
        let r = run_both("skid_buffer_512", Dut::default, table, |b| {
            bench(b, i as u64 + 1, 512, None, rates, gap)
        });
        if gap == 0 {
            // One beat per cycle plus the latency of one cycle.
            assert_eq!(r.result.0, 600);
            assert!(r.cycles <= 603, "512-bit skid buffer: {} cycles", r.cycles);
        }
    }
}

#[test]
fn stream_fifos_of_200_bits() {
    type Regs = stream_fifo!(Bits<200>, 4);
    type Bram = stream_fifo!(Bits<200>, 32);
    let regs = || port_table!(Regs; reset, sink.valid, sink.data, sink.ready, source.valid, source.data, source.ready, count);
    let bram = || port_table!(Bram; reset, sink.valid, sink.data, sink.ready, source.valid, source.data, source.ready, count);
    let reg_flavor = FifoFlavor::Registers {
        fall_through: false,
    };
    for (i, (rates, gap)) in RUNS.into_iter().enumerate() {
        run_both("stream_fifo_200x4", Regs::new, regs, |b| {
            bench(b, i as u64 + 11, 200, Some((4, reg_flavor)), rates, gap)
        });
        run_both("stream_fifo_200x32", Bram::new, bram, |b| {
            bench(
                b,
                i as u64 + 21,
                200,
                Some((32, FifoFlavor::BlockRam)),
                rates,
                gap,
            )
        });
    }
}
