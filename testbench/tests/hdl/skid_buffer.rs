//! SkidBuffer against its model: a FIFO of two that never stalls a moving stream.
use hdl::prelude::*;
use testbench::models::stream::{Driver, Receiver, StreamPorts};
use testbench::{port_table, run_both_seeds, Backend, BenchRng};

type Dut = SkidBuffer<Bits<16>>;

fn bench(b: &mut dyn Backend, seed: u64, in_rate: f64, out_rate: f64) -> (u64, u64) {
    let mut rng = BenchRng::new(seed);
    let mut tx = Driver::new(StreamPorts::new(b, "sink"), in_rate);
    let mut rx = Receiver::new(StreamPorts::new(b, "source"), out_rate);
    let reset = b.port("reset");
    let n = 2000u64;
    tx.queue.extend((0..n).map(|_| rng.bits(16)));
    let mut expect: std::collections::VecDeque<u128> = tx.queue.clone();
    let mut in_flight = 0usize;
    let mut got = 0u64;
    let mut cycles = 0u64;
    while got < n {
        b.poke_bool(reset, false);
        tx.drive(b, &mut rng);
        rx.drive(b, &mut rng);
        let taken = rx.fired(b);
        let sent = tx.fired(b);
        b.tick();
        if sent.is_some() {
            in_flight += 1;
        }
        if let Some(v) = taken {
            assert_eq!(Some(v), expect.pop_front(), "seed {seed}: beat {got} wrong");
            in_flight -= 1;
            got += 1;
        }
        assert!(
            in_flight <= 2,
            "seed {seed}: skid buffer holds {in_flight} > 2 beats"
        );
        cycles += 1;
        assert!(cycles < 100 * n, "seed {seed}: hang");
    }
    (got, cycles)
}

#[test]
fn skid_buffer_matches_model() {
    let table = || port_table!(Dut; reset, sink.valid, sink.data, sink.ready, source.valid, source.data, source.ready);
    for (i, (a, r)) in [(1.0, 1.0), (0.5, 0.9), (0.9, 0.3), (0.7, 0.7)]
        .into_iter()
        .enumerate()
    {
        let rep = run_both_seeds(
            "skid_buffer",
            &[i as u64 + 1],
            Dut::default,
            table,
            |b, s| bench(b, s, a, r),
        );
        if a == 1.0 && r == 1.0 {
            // Full throughput: 2000 beats in 2000 cycles plus the one-cycle latency.
            assert!(
                rep[0].result.1 <= 2001,
                "skid buffer throughput: {} cycles",
                rep[0].result.1
            );
        }
    }
}
