//! StreamMux against its model, every cycle: N inputs sending numbered packets with random idle,
//! random backpressure on the output, with and without packet hold. Besides the cycle-by-cycle
//! comparison the bench checks, from the beats alone: every beat arrives once, in order per
//! input; with hold every output packet is contiguous and complete; the source obeys the hold
//! rule (the Receiver checks it); and with the output always ready, one beat moves per cycle
//! after the two cycles of latency from reset (grant register, then output register), whether
//! every input is busy (the inputs then take turns: beat by beat without hold, packet by packet
//! with it) or a single one is.
//!
//! Reset (its doc: "output emptied, no grant, arbiter back to input 0"): in the random-load runs,
//! 1-3 cycle pulses at random moments (the shared [`ResetSchedule`]); handshakes in a reset cycle
//! are void. In the first cycle after each, `source.valid` and every `sinks[i].ready` must be
//! low (no grant yet, the skid buffer empty; with one input, a wire into the empty skid buffer,
//! its `ready` is high), no beat accepted before the reset may ever come
//! out, and the run goes on against a reset model (which puts input 0 first in round robin).
use hdl::prelude::*;
use std::collections::VecDeque;
use testbench::models::stream::{Driver, Receiver, StreamPorts};
use testbench::models::stream_mux::StreamMuxModel;
use testbench::reset::ResetSchedule;
use testbench::rhdl::SimValue;
use testbench::{port_table, run_both_seeds, Backend, BenchRng, PortTable};

type Dut<const N: usize, const W: usize> = StreamMux<Bits<64>, N, W>;

fn table<const N: usize, const W: usize>() -> PortTable<Dut<N, W>> {
    let mut t = port_table!(Dut<N, W>; reset, lasts, source.valid, source.data, source.ready);
    for i in 0..N {
        t.add(
            format!("sinks${i}$valid"),
            move |x: &mut Dut<N, W>, v| x.sinks[i].valid.next = SimValue::from_u128(v),
            move |x: &Dut<N, W>| x.sinks[i].valid.val().to_u128(),
        );
        t.add(
            format!("sinks${i}$data"),
            move |x: &mut Dut<N, W>, v| x.sinks[i].data.next = SimValue::from_u128(v),
            move |x: &Dut<N, W>| SimValue::to_u128(&x.sinks[i].data.val()),
        );
        t.add(
            format!("sinks${i}$ready"),
            move |x: &mut Dut<N, W>, v| x.sinks[i].ready.next = SimValue::from_u128(v),
            move |x: &Dut<N, W>| x.sinks[i].ready.val().to_u128(),
        );
    }
    t
}

/// A beat: input, packet number, beat number, last flag, packed into 64 bits.
fn beat(input: usize, packet: u64, index: u64, last: bool) -> u128 {
    ((input as u128) << 48) | ((packet as u128) << 16) | ((index as u128) << 1) | last as u128
}
fn beat_input(v: u128) -> usize {
    (v >> 48) as usize
}
fn beat_last(v: u128) -> bool {
    v & 1 == 1
}

/// Cycles taken (after reset), and the input of each output beat and of each packet.
#[derive(Debug, PartialEq)]
struct Report {
    cycles: u64,
    beats: Vec<usize>,
    packets: Vec<usize>,
}

/// The offered load: inputs `0..busy` each send `packets` packets of 1-4 beats, offering a beat
/// with probability `in_rate` per cycle; the output is ready with probability `out_rate`.
struct Load {
    in_rate: f64,
    out_rate: f64,
    packets: u64,
    busy: usize,
    /// Mean cycles between reset pulses; 0: none.
    reset_gap: u64,
}

fn bench(b: &mut dyn Backend, seed: u64, n: usize, hold: bool, load: Load) -> Report {
    let Load {
        in_rate,
        out_rate,
        packets,
        busy,
        reset_gap,
    } = load;
    let mut rng = BenchRng::new(seed);
    let reset = b.port("reset");
    let lasts = b.port("lasts");
    let mut tx: Vec<Driver> = (0..n)
        .map(|i| Driver::new(StreamPorts::new(b, &format!("sinks${i}")), in_rate))
        .collect();
    let mut rx = Receiver::new(StreamPorts::new(b, "source"), out_rate);
    // Per input, the beats it handed over and the mux has not yet delivered, in order.
    let mut expect: Vec<VecDeque<u128>> = vec![VecDeque::new(); n];
    let mut total = 0usize;
    for (i, d) in tx.iter_mut().enumerate().take(busy) {
        for p in 0..packets {
            let len = rng.range(1, 5);
            for k in 0..len {
                d.queue.push_back(beat(i, p, k, k == len - 1));
            }
        }
        total += d.queue.len();
    }
    let mut sched = match reset_gap {
        0 => ResetSchedule::never(),
        gap => ResetSchedule::new(&mut rng, gap),
    };
    let mut dropped = 0usize;
    let mut model = StreamMuxModel::new(n, hold);
    b.poke_bool(reset, true);
    b.tick();
    b.poke_bool(reset, false);
    let mut got = 0usize;
    let mut open: Option<usize> = None; // input whose packet is being output (hold)
    let mut beats = vec![];
    let mut packets_out = vec![];
    let mut cycles = 0u64;
    while got + dropped < total {
        let rst = sched.drive(b, reset, &mut rng);
        let mut offers = vec![None; n];
        let mut last_bits = 0u64;
        for (i, d) in tx.iter_mut().enumerate() {
            d.drive(b, &mut rng);
            // `lasts` is payload of each input: random while the input is not valid.
            let mut last = rng.chance(0.5);
            if b.peek_bool(d.ports.valid) {
                let v = b.peek(d.ports.data);
                offers[i] = Some(v);
                last = beat_last(v);
            }
            last_bits |= (last as u64) << i;
        }
        b.poke(lasts, last_bits as u128);
        rx.drive(b, &mut rng);
        let ready = b.peek_bool(rx.ports.ready);
        let want = model.outputs(&offers);
        let cycle = b.cycle();
        if sched.released() {
            // No grant (one input is a wire into the empty skid buffer: ready).
            let readies = tx.iter().enumerate().fold(0u64, |m, (i, d)| {
                m | (b.peek_bool(d.ports.ready) as u64) << i
            });
            assert!(
                !b.peek_bool(rx.ports.valid) && readies == (n == 1) as u64,
                "seed {seed} cycle {cycle}: an output or a grant survived the reset"
            );
        }
        assert_eq!(
            b.peek_bool(rx.ports.valid),
            want.valid,
            "seed {seed}: source.valid at cycle {cycle}"
        );
        if want.valid {
            assert_eq!(
                b.peek(rx.ports.data),
                want.data,
                "seed {seed}: source.data at cycle {cycle}"
            );
        }
        let taken = rx.fired(b);
        let mut sent = vec![None; n];
        for (i, d) in tx.iter_mut().enumerate() {
            let r = b.peek_bool(d.ports.ready);
            assert_eq!(
                r,
                (want.readies >> i) & 1 == 1,
                "seed {seed}: sinks[{i}].ready at cycle {cycle}"
            );
            sent[i] = d.fired(b);
        }
        b.tick();
        cycles += 1;
        if rst {
            // Void handshakes; every beat inside the mux is gone.
            model.reset();
            rx.reset();
            dropped +=
                sent.iter().flatten().count() + expect.iter().map(|e| e.len()).sum::<usize>();
            expect.iter_mut().for_each(|e| e.clear());
            open = None;
            continue;
        }
        model.edge(&offers, last_bits, ready);
        for (i, s) in sent.into_iter().enumerate() {
            expect[i].extend(s);
        }
        if let Some(v) = taken {
            let i = beat_input(v);
            assert!(i < n, "seed {seed}: beat {v:x} from no input");
            assert_eq!(
                expect[i].pop_front(),
                Some(v),
                "seed {seed}: input {i} beat out of order or corrupt"
            );
            if hold {
                if let Some(o) = open {
                    assert_eq!(i, o, "seed {seed}: packet of input {o} interleaved with input {i} at cycle {cycle}");
                }
            }
            if open.is_none() {
                packets_out.push(i);
            }
            beats.push(i);
            open = if beat_last(v) { None } else { Some(i) };
            got += 1;
        }
        assert!(cycles < 200 * total as u64 + 100, "seed {seed}: hang");
    }
    if reset_gap > 0 {
        sched.assert_pulses(&format!("stream mux seed {seed}"), 5);
    }
    assert!(
        !hold || open.is_none(),
        "seed {seed}: last packet incomplete"
    );
    Report {
        cycles,
        beats,
        packets: packets_out,
    }
}

fn run<const N: usize, const W: usize>(hold: bool, seeds: &[u64], in_rate: f64, out_rate: f64) {
    let name = format!("stream_mux_{N}{}", if hold { "_hold" } else { "" });
    run_both_seeds(
        &name,
        seeds,
        || Dut::<N, W>::new(hold),
        table::<N, W>,
        |b, s| {
            let load = Load {
                in_rate,
                out_rate,
                packets: 300,
                busy: N,
                reset_gap: 200,
            };
            bench(b, s, N, hold, load)
        },
    );
}

#[test]
fn stream_mux_matches_model() {
    for hold in [false, true] {
        for (k, (a, r)) in [(0.5, 0.9), (0.9, 0.4), (0.3, 1.0)].into_iter().enumerate() {
            let s = 10 * k as u64 + hold as u64;
            run::<1, 1>(hold, &[s + 1], a, r);
            run::<2, 1>(hold, &[s + 2], a, r);
            run::<3, 2>(hold, &[s + 3], a, r);
            run::<4, 2>(hold, &[s + 4], a, r);
        }
    }
}

/// Inputs `0..busy` always offering (40 packets each), the output always ready.
fn saturated(busy: usize) -> Load {
    Load {
        in_rate: 1.0,
        out_rate: 1.0,
        packets: 40,
        busy,
        reset_gap: 0,
    }
}

#[test]
fn stream_mux_full_throughput_and_turns() {
    for hold in [false, true] {
        let name = if hold {
            "stream_mux_4_hold"
        } else {
            "stream_mux_4"
        };
        let rep = run_both_seeds(
            name,
            &[77],
            || Dut::<4, 2>::new(hold),
            table::<4, 2>,
            |b, s| bench(b, s, 4, hold, saturated(4)),
        );
        let r = &rep[0].result;
        // Every input always busy, output always ready: one beat per cycle, back to back from
        // different inputs, after two cycles of latency (grant, then output register).
        assert!(
            r.cycles <= r.beats.len() as u64 + 2,
            "hold {hold}: {} beats took {} cycles",
            r.beats.len(),
            r.cycles
        );
        // Round robin with everyone busy: inputs take turns, beat by beat without hold and
        // packet by packet with it (each input has 40 packets of at least one beat).
        let turns = if hold {
            &r.packets[..]
        } else {
            &r.beats[..160]
        };
        for w in turns.chunks(4) {
            let mut s = w.to_vec();
            s.sort();
            assert_eq!(s, vec![0, 1, 2, 3], "hold {hold}: turns {w:?}");
        }
        // A single busy input (input 0) streams at the same rate: the grant is re-decided
        // every beat (or packet) but comes back to it while nobody else asks.
        let rep = run_both_seeds(
            name,
            &[78],
            || Dut::<4, 2>::new(hold),
            table::<4, 2>,
            |b, s| bench(b, s, 4, hold, saturated(1)),
        );
        let r = &rep[0].result;
        assert!(
            r.cycles <= r.beats.len() as u64 + 2,
            "hold {hold}, input 0 alone: {} beats took {} cycles",
            r.beats.len(),
            r.cycles
        );
    }
}
