//! The FPGA demo core on both backends: every frame passes its CRC check, and each injected
//! fault fails exactly one frame.
//!
//! Reset (its doc: "counters cleared, generator restarted"): a run with 1-3 cycle pulses at
//! random moments while frames flow (the shared [`ResetSchedule`]). In the first cycle after
//! each, both counters must be 0; until the next, every frame must pass (a generator or checker
//! that kept its place in a frame across the reset would fail the first one), as many as the
//! reader's pace allows, and the one fault injected early in the stretch must fail exactly one.
use fpga::demo_core::{DemoCore, FRAME_WORDS};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng};

type Core = DemoCore<32, 5, 6>;

fn bench(b: &mut dyn Backend, cycles: u64, faults: bool) -> (u64, u64) {
    let (reset, fault, ok, bad) = (
        b.port("reset"),
        b.port("fault"),
        b.port("frames_ok"),
        b.port("frames_bad"),
    );
    let mut rng = BenchRng::new(11);
    b.poke_bool(reset, true);
    b.tick();
    b.poke_bool(reset, false);
    let mut pulses = 0u64;
    for c in 0..cycles {
        // Faults at least three frames apart (a frame takes ~85 cycles), none in the last
        // 2000 cycles so each one's frame is checked before the end.
        let pulse = faults && c % 300 == 0 && c + 2000 < cycles && rng.chance(0.7);
        b.poke_bool(fault, pulse);
        pulses += pulse as u64;
        b.tick();
    }
    b.poke_bool(fault, false);
    let (ok, bad) = (b.peek(ok) as u64, b.peek(bad) as u64);
    // The reader is ready 3 cycles in 4 and a frame is FRAME_WORDS words.
    let expect = cycles * 3 / 4 / FRAME_WORDS as u64;
    assert!(
        ok + bad + 10 >= expect && ok + bad <= expect + 10,
        "{ok} + {bad} frames in {cycles} cycles, expected about {expect}"
    );
    assert_eq!(bad, pulses, "each fault must fail exactly one frame");
    (ok, bad)
}

fn table() -> testbench::PortTable<Core> {
    port_table!(Core; reset, fault, frames_ok, frames_bad)
}

#[test]
fn demo_core_frames_pass_their_crc() {
    let r = run_both("demo_core", Core::default, table, |b| {
        bench(b, 20_000, false)
    });
    assert!(r.result.0 > 200);
}

#[test]
fn demo_core_counts_each_fault_once() {
    let r = run_both("demo_core", Core::default, table, |b| {
        bench(b, 20_000, true)
    });
    assert!(
        r.result.1 >= 20,
        "the bench must inject faults: {:?}",
        r.result
    );
}

/// Resets under traffic; returns (frames passed, reset pulses).
fn resets(b: &mut dyn Backend, cycles: u64) -> (u64, u64) {
    let (reset, fault, ok, bad) = (
        b.port("reset"),
        b.port("fault"),
        b.port("frames_ok"),
        b.port("frames_bad"),
    );
    let mut rng = BenchRng::new(12);
    let mut sched = ResetSchedule::new(&mut rng, 1500);
    b.poke_bool(reset, true);
    b.tick();
    // Cycles since the last reset, faults injected since, frames counted before resets.
    let (mut since, mut faults, mut frames) = (0u64, 0u64, 0u64);
    for c in 0..cycles {
        let rst = sched.drive(b, reset, &mut rng);
        if sched.released() {
            assert_eq!(
                (b.peek(ok), b.peek(bad)),
                (0, 0),
                "cycle {c}: counters not cleared by reset"
            );
            (since, faults) = (0, 0);
        }
        if rst && since > 0 {
            // The stretch since the last reset ends here: every frame passed but the faulty one.
            let (o, x) = (b.peek(ok) as u64, b.peek(bad) as u64);
            assert_eq!(x, faults, "cycle {c}: bad frames after {faults} faults");
            // The reader is ready 3 cycles in 4; a frame or two may be in flight.
            let expect = since * 3 / 4 / FRAME_WORDS as u64;
            assert!(
                o + x + 3 >= expect && o + x <= expect + 2,
                "cycle {c}: {o} + {x} frames in the {since} cycles since reset, expected about {expect}"
            );
            frames += o;
            since = 0;
        }
        // One fault early in a stretch, so its frame is checked before the next reset.
        let pulse = !rst && (20..300).contains(&since) && faults == 0 && rng.chance(0.05);
        b.poke_bool(fault, pulse);
        faults += pulse as u64;
        since += !rst as u64;
        b.tick();
    }
    sched.assert_pulses("demo core", 4);
    (frames, sched.pulses())
}

#[test]
fn demo_core_resets_under_traffic() {
    let r = run_both("demo_core", Core::default, table, |b| resets(b, 12_000));
    assert!(r.result.0 > 100, "too few frames checked: {:?}", r.result);
}
