//! SkidBuffer against its model: a FIFO of two that never stalls a moving stream.
//!
//! Reset (its doc: "empties it"): in the runs with random idle, `reset` rises for 1-3 cycles at
//! random moments under traffic; handshakes in a reset cycle are void on both sides. In the
//! first cycle after a pulse the buffer must be empty (`source.valid` low, `sink.ready` high),
//! and no beat held before the reset may ever come out: the run goes on against a model whose
//! beats in flight were dropped too.
use hdl::prelude::*;
use std::collections::VecDeque;
use testbench::models::stream::{Driver, Receiver, StreamPorts};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both_seeds, Backend, BenchRng};

type Dut = SkidBuffer<Bits<16>>;

/// (beats delivered, cycles, beats dropped by resets, reset pulses).
type Outcome = (u64, u64, u64, u64);

fn bench(b: &mut dyn Backend, seed: u64, in_rate: f64, out_rate: f64, resets: bool) -> Outcome {
    let mut rng = BenchRng::new(seed);
    let mut tx = Driver::new(StreamPorts::new(b, "sink"), in_rate);
    let mut rx = Receiver::new(StreamPorts::new(b, "source"), out_rate);
    let reset = b.port("reset");
    let mut sched = if resets {
        ResetSchedule::new(&mut rng, 150)
    } else {
        ResetSchedule::never()
    };
    let n = 2000u64;
    tx.queue.extend((0..n).map(|_| rng.bits(16)));
    // Beats accepted and not yet delivered: the model of the buffer's contents.
    let mut in_flight: VecDeque<u128> = VecDeque::new();
    let (mut got, mut dropped, mut cycles) = (0u64, 0u64, 0u64);
    while got + dropped < n {
        let rst = sched.drive(b, reset, &mut rng);
        tx.drive(b, &mut rng);
        rx.drive(b, &mut rng);
        if sched.released() {
            assert!(
                !b.peek_bool(rx.ports.valid) && b.peek_bool(tx.ports.ready),
                "seed {seed} cycle {cycles}: not empty after reset"
            );
        }
        let taken = rx.fired(b);
        let sent = tx.fired(b);
        b.tick();
        cycles += 1;
        if rst {
            // Void handshakes; everything held is gone.
            dropped += sent.is_some() as u64 + in_flight.len() as u64;
            in_flight.clear();
            rx.reset();
            continue;
        }
        if let Some(v) = sent {
            in_flight.push_back(v);
        }
        if let Some(v) = taken {
            assert_eq!(
                Some(v),
                in_flight.pop_front(),
                "seed {seed}: beat {got} wrong (or held across a reset)"
            );
            got += 1;
        }
        assert!(
            in_flight.len() <= 2,
            "seed {seed}: skid buffer holds {} > 2 beats",
            in_flight.len()
        );
        assert!(cycles < 100 * n, "seed {seed}: hang");
    }
    if resets {
        sched.assert_pulses(&format!("skid buffer seed {seed}"), 5);
    }
    (got, cycles, dropped, sched.pulses())
}

#[test]
fn skid_buffer_matches_model() {
    let table = || port_table!(Dut; reset, sink.valid, sink.data, sink.ready, source.valid, source.data, source.ready);
    for (i, (a, r)) in [(1.0, 1.0), (0.5, 0.9), (0.9, 0.3), (0.7, 0.7)]
        .into_iter()
        .enumerate()
    {
        // Full throughput is measured without resets; every other run has them.
        let full = a == 1.0 && r == 1.0;
        let rep = run_both_seeds(
            "skid_buffer",
            &[i as u64 + 1],
            Dut::default,
            table,
            |b, s| bench(b, s, a, r, !full),
        );
        if full {
            // Full throughput: 2000 beats in 2000 cycles plus the one-cycle latency.
            assert!(
                rep[0].result.1 <= 2001,
                "skid buffer throughput: {} cycles",
                rep[0].result.1
            );
        }
    }
}
