//! CommitStore against its model, exact on every cycle: random writes, commits (with and
//! without the same cycle's write) and rollbacks (often in the same cycle as a write, which
//! must go to the next group), random reader backpressure; `source.valid` must equal
//! "something committed and offered" after every edge (one cycle from `commit` to visible, two
//! from `commit_with_write`, one entry per cycle sustained), `source.data` the oldest
//! committed entry, `full`, `full_after_rollback`, `free`, `uncommitted`, `drained` and
//! `overflow` the model's, also when the writer ignores the space (a dropped write must leave
//! the store consistent). `write.data` is random while `write.valid` is low.
//!
//! Reset (its doc: "empties the FIFO and clears `overflow`"): in the random runs, 1-3 cycle
//! pulses at random moments (the shared [`ResetSchedule`]; none in the last 400 cycles, so a
//! writer ignoring space overflows again before the end); in the first cycle after each,
//! `source.valid` and `overflow` must be low, and nothing written before it ever comes out
//! (the model is reset too: committed and pending entries gone).
use hdl::commit_store;
use testbench::models::commit_store::CommitStoreModel;
use testbench::models::stream::{Receiver, StreamPorts};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both_seeds, Backend, BenchRng};

type Dut4 = commit_store!(4);
type Dut16 = commit_store!(16);
type Dut32 = commit_store!(32);

macro_rules! table {
    ($t:ty) => {
        || {
            port_table!($t; reset, write.valid, write.data, write.commit,
                write.commit_with_write, write.rollback, write.full, write.full_after_rollback,
                source.valid, source.data, source.ready, overflow, drained, free, uncommitted)
        }
    };
}

#[derive(Clone, Copy)]
struct Load {
    write: f64,
    commit: f64,
    /// Of the commits, the share that commits the same cycle's write too.
    with_write: f64,
    rollback: f64,
    read: f64,
    /// The writer checks for space (as the LTP parser guarantees it).
    respect: bool,
    /// Mean cycles between reset pulses; 0: none.
    reset_gap: u64,
}

#[derive(Debug, PartialEq)]
struct Outcome {
    read: usize,
    rolled_back: usize,
    overflow: bool,
    full_rate_cycles: u64,
}

fn bench<const D: usize>(b: &mut dyn Backend, seed: u64, load: Load, cycles: u64) -> Outcome {
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(n);
    let (reset, wv, wd, cm, rb, ovf) = (
        p("reset"),
        p("write$valid"),
        p("write$data"),
        p("write$commit"),
        p("write$rollback"),
        p("overflow"),
    );
    let (cww, full, full_rb) = (
        p("write$commit_with_write"),
        p("write$full"),
        p("write$full_after_rollback"),
    );
    let (drained, free, uncommitted) = (p("drained"), p("free"), p("uncommitted"));
    let mut rx = Receiver::new(StreamPorts::new(b, "source"), load.read);
    let mut m = CommitStoreModel::new(D);
    let (mut serial, mut read, mut rolled_back, mut full_rate) = (0u128, 0usize, 0usize, 0u64);
    let mut sched = match load.reset_gap {
        0 => ResetSchedule::never(),
        gap => ResetSchedule::new(&mut rng, gap),
    };
    b.poke_bool(reset, true);
    b.tick();
    b.poke_bool(reset, false);
    for cyc in 0..cycles {
        let rst = sched.next_if(&mut rng, cyc + 400 < cycles);
        b.poke_bool(reset, rst);
        let any_commit = rng.chance(load.commit);
        let with_write = any_commit && rng.chance(load.with_write);
        let commit = any_commit && !with_write;
        let rollback = !any_commit && rng.chance(load.rollback);
        let mut write = None;
        if rng.chance(load.write) && (!load.respect || !m.full(rollback)) {
            serial += 1;
            // A serial number in the low bits, random high bits (bit 64 included).
            write = Some((rng.bits(65) & !0xffff_ffff) | serial);
        }
        b.poke_bool(wv, write.is_some());
        let idle_data = rng.bits(65);
        b.poke(wd, write.unwrap_or(idle_data));
        b.poke_bool(cm, commit);
        b.poke_bool(cww, with_write);
        b.poke_bool(rb, rollback);
        rx.drive(b, &mut rng);
        let valid = b.peek_bool(rx.ports.valid);
        assert_eq!(
            b.peek_bool(drained),
            m.committed.is_empty(),
            "seed {seed} cycle {cyc}: drained vs committed entries"
        );
        if sched.released() {
            assert!(
                !valid && !b.peek_bool(ovf),
                "seed {seed} cycle {cyc}: not empty, or overflow set, after reset"
            );
        }
        assert_eq!(
            valid,
            m.offered() > 0,
            "seed {seed} cycle {cyc}: source.valid vs committed entries"
        );
        assert_eq!(
            (b.peek_bool(full), b.peek_bool(full_rb)),
            (m.full(false), m.full(true)),
            "seed {seed} cycle {cyc}: full, full_after_rollback"
        );
        assert_eq!(
            (b.peek(free) as usize, b.peek(uncommitted) as usize),
            (m.free(), m.pending.len()),
            "seed {seed} cycle {cyc}: free, uncommitted"
        );
        if valid {
            full_rate += 1;
        }
        assert_eq!(
            b.peek_bool(ovf),
            m.overflow,
            "seed {seed} cycle {cyc}: overflow"
        );
        let taken = rx.fired(b);
        if rollback {
            rolled_back += m.pending.len();
        }
        b.tick();
        if rst {
            // Every handshake of a reset cycle is void; the FIFO is empty after it.
            m.reset();
            rx.reset();
            continue;
        }
        let popped = m.edge(write, commit, with_write, rollback, taken.is_some());
        if let Some(v) = taken {
            assert_eq!(Some(v), popped, "seed {seed} cycle {cyc}: entry {read}");
            read += 1;
        }
    }
    if load.respect {
        assert!(!m.overflow, "seed {seed}: overflow with space respected");
    }
    if load.reset_gap > 0 {
        sched.assert_pulses(&format!("commit store seed {seed}"), 3);
    }
    Outcome {
        read,
        rolled_back,
        overflow: m.overflow,
        full_rate_cycles: full_rate,
    }
}

#[test]
fn commit_store_random() {
    let loads = [
        // Respecting space: busy writer, reader mostly ready.
        Load {
            write: 0.8,
            commit: 0.15,
            with_write: 0.0,
            rollback: 0.1,
            read: 0.9,
            respect: true,
            reset_gap: 300,
        },
        // Slow reader: the FIFO fills up and the writer waits.
        Load {
            write: 0.9,
            commit: 0.3,
            with_write: 0.5,
            rollback: 0.05,
            read: 0.3,
            respect: true,
            reset_gap: 300,
        },
        // Writer ignores space: overflows, drops, and stays consistent.
        Load {
            write: 0.9,
            commit: 0.2,
            with_write: 0.5,
            rollback: 0.1,
            read: 0.4,
            respect: false,
            reset_gap: 300,
        },
    ];
    for (i, load) in loads.into_iter().enumerate() {
        let seeds = [10 + i as u64, 20 + i as u64];
        for r in run_both_seeds(
            "commit_store_16",
            &seeds,
            Dut16::new,
            table!(Dut16),
            |b, s| bench::<16>(b, s, load, 3000),
        ) {
            eprintln!("{:?}", r.result);
            assert!(r.result.read > 500 && r.result.rolled_back > 50);
            assert_eq!(r.result.overflow, !load.respect);
        }
    }
    let load = Load {
        write: 0.7,
        commit: 0.1,
        with_write: 0.5,
        rollback: 0.05,
        read: 0.7,
        respect: false,
        reset_gap: 200,
    };
    run_both_seeds(
        "commit_store_4",
        &[5, 6],
        Dut4::new,
        table!(Dut4),
        |b, s| bench::<4>(b, s, load, 2000),
    );
}

/// A write every cycle, a commit every cycle, reader always ready: after one cycle of
/// latency an entry leaves every cycle.
#[test]
fn commit_store_full_rate() {
    let load = Load {
        write: 1.0,
        commit: 1.0,
        with_write: 0.0,
        rollback: 0.0,
        read: 1.0,
        respect: true,
        reset_gap: 0,
    };
    let r = run_both_seeds(
        "commit_store_32",
        &[1],
        Dut32::new,
        table!(Dut32),
        |b, s| bench::<32>(b, s, load, 500),
    );
    assert!(r[0].result.read >= 497, "{:?}", r[0].result);
}
