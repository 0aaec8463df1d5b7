//! The FPGA demo core on both backends: every frame passes its CRC check, and each injected
//! fault fails exactly one frame.
use fpga::demo_core::{DemoCore, FRAME_WORDS};
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
