//! ParallelCrc against the bit-serial reference: random frames of random lengths with random
//! idle cycles (carrying garbage data), frame starts with or without a beat, every output
//! compared on every cycle; then the published check values in hardware.
//!
//! Reset (its doc: "starts an empty frame, as `start`"): 1-3 cycle pulses at random moments
//! (the shared [`ResetSchedule`]), wherever they fall: on idle cycles, on a frame's start, on
//! beats (with `start`/`valid` high, which the reset overrides). In the first cycle after each,
//! `crc` must be the CRC of the empty frame; the frame it cut is not checked, the next one is.
use hdl::crc::*;
use testbench::models::crc::{bytes_from_words, words_from_bytes, CrcModel};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, run_both_seeds, Backend, BenchRng};

/// Port ids of a ParallelCrc top.
struct Ports {
    reset: testbench::PortId,
    start: testbench::PortId,
    valid: testbench::PortId,
    data: testbench::PortId,
    crc: testbench::PortId,
}

impl Ports {
    fn new(b: &dyn Backend) -> Self {
        Self {
            reset: b.port("reset"),
            start: b.port("start"),
            valid: b.port("valid"),
            data: b.port("data"),
            crc: b.port("crc"),
        }
    }
}

/// Drives one cycle, checks the output against the model before the edge, applies the edge.
fn cycle(
    b: &mut dyn Backend,
    p: &Ports,
    m: &mut CrcModel,
    (reset, start, valid, data): (bool, bool, bool, u128),
) {
    b.poke_bool(p.reset, reset);
    b.poke_bool(p.start, start);
    b.poke_bool(p.valid, valid);
    b.poke(p.data, data);
    assert_eq!(b.peek(p.crc) as u64, m.crc(), "cycle {}: crc", b.cycle());
    m.edge(reset, start, valid, data);
    b.tick();
}

/// One cycle of random traffic, which the schedule may turn into a reset cycle; returns whether
/// `reset` was high. In the first cycle after a reset `crc` must be the empty frame's.
fn traffic(
    b: &mut dyn Backend,
    p: &Ports,
    m: &mut CrcModel,
    s: &mut ResetSchedule,
    rng: &mut BenchRng,
    (start, valid, data): (bool, bool, u128),
) -> bool {
    let reset = s.next(rng);
    if s.released() {
        let mut empty = m.clone();
        empty.reset();
        assert_eq!(
            b.peek(p.crc) as u64,
            empty.crc(),
            "cycle {}: crc after reset is not the empty frame's",
            b.cycle()
        );
    }
    cycle(b, p, m, (reset, start, valid, data));
    reset
}

/// Random frames; returns (frames completed, beats, cycles).
fn frames(
    b: &mut dyn Backend,
    seed: u64,
    spec: &CrcSpec,
    bits: usize,
    cycles: u64,
) -> (u64, u64, u64) {
    let mut rng = BenchRng::new(seed);
    let p = Ports::new(b);
    let mut m = CrcModel::new(spec, bits);
    let mut s = ResetSchedule::new(&mut rng, 300);
    cycle(b, &p, &mut m, (true, false, false, 0));
    let (mut done, mut beats) = (0u64, 0u64);
    let idle = [0.0, 0.3, 0.8][rng.range(0, 2) as usize];
    while b.cycle() < cycles {
        let len = if rng.chance(0.1) {
            0
        } else {
            rng.range(1, 24) as usize
        };
        let words: Vec<u128> = (0..len).map(|_| rng.bits(bits)).collect();
        // The frame starts alone on an idle edge, or together with its first beat.
        let mut start = true;
        // A reset anywhere in the frame cuts it (its CRC is then of a part only).
        let mut aborted = false;
        if len == 0 || rng.chance(0.3) {
            let junk = rng.bits(bits);
            aborted |= traffic(b, &p, &mut m, &mut s, &mut rng, (true, false, junk));
            start = false;
        }
        for &w in &words {
            while rng.chance(idle) {
                let junk = rng.bits(bits);
                aborted |= traffic(b, &p, &mut m, &mut s, &mut rng, (false, false, junk));
            }
            let reset = traffic(b, &p, &mut m, &mut s, &mut rng, (start, true, w));
            aborted |= reset;
            start = false;
            beats += !reset as u64;
        }
        if aborted {
            continue;
        }
        // The finished CRC, against two references independent of the model's digest.
        let got = b.peek(p.crc) as u64;
        assert_eq!(
            got,
            spec.checksum_words(&words, bits),
            "seed {seed}: frame {done} of {len} beats"
        );
        if bits.is_multiple_of(8) {
            let bytes = bytes_from_words(spec, &words, bits);
            assert_eq!(
                got,
                CrcTable::new(spec).checksum(&bytes),
                "table, frame {done}"
            );
        }
        done += 1;
    }
    s.assert_pulses(&format!("crc seed {seed}"), 5);
    (done, beats, b.cycle())
}

macro_rules! crc_bench {
    ($name:ident, $w:literal, $d:literal, $spec:expr, $seeds:expr, $cycles:expr) => {
        #[test]
        fn $name() {
            type Dut = ParallelCrc<$w, $d>;
            let table = || port_table!(Dut; reset, start, valid, data, crc);
            let reps = run_both_seeds(
                stringify!($name),
                $seeds,
                || Dut::new(&$spec),
                table,
                |b, s| frames(b, s, &$spec, $d, $cycles),
            );
            for r in reps {
                assert!(r.result.0 > 10 && r.result.1 > 100, "too little checked: {:?}", r.result);
            }
        }
    };
}

crc_bench!(crc14_x65_matches_serial, 14, 65, CRC14, &[1, 2, 3], 10_000);
crc_bench!(crc16_x16_matches_serial, 16, 16, CRC16, &[4, 5, 6], 10_000);
crc_bench!(crc32_x64_matches_serial, 32, 64, CRC32, &[7, 8, 9], 10_000);
crc_bench!(
    crc32_x32_matches_serial,
    32,
    32,
    CRC32,
    &[10, 11, 12],
    10_000
);
crc_bench!(crc32_x8_matches_serial, 32, 8, CRC32, &[13, 14, 15], 10_000);

/// CRC of `msg` computed by a `ParallelCrc<W, D>` in hardware (beats back to back).
fn hw_checksum<const W: usize, const D: usize>(name: &str, spec: &CrcSpec, msg: &[u8]) -> u64 {
    type Table<const W: usize, const D: usize> = testbench::PortTable<ParallelCrc<W, D>>;
    let table =
        || -> Table<W, D> { port_table!(ParallelCrc<W, D>; reset, start, valid, data, crc) };
    let words = words_from_bytes(spec, msg, D);
    run_both(
        name,
        || ParallelCrc::<W, D>::new(spec),
        table,
        |b| {
            let p = Ports::new(b);
            let mut m = CrcModel::new(spec, D);
            cycle(b, &p, &mut m, (true, false, false, 0));
            for (i, &w) in words.iter().enumerate() {
                cycle(b, &p, &mut m, (false, i == 0, true, w));
            }
            b.peek(p.crc) as u64
        },
    )
    .result
}

#[test]
fn crc_published_check_values_in_hardware() {
    let check = b"123456789";
    assert_eq!(
        hw_checksum::<32, 8>("crc32_x8_check", &CRC32, check),
        CRC32.check
    );
    assert_eq!(
        hw_checksum::<16, 8>("crc16_x8_check", &CRC16, check),
        CRC16.check
    );
    assert_eq!(
        hw_checksum::<14, 8>("crc14_x8_check", &CRC14, check),
        CRC14.check
    );
    // Whole-beat messages, values from Python's zlib.crc32 and binascii.crc_hqx(m, 0xFFFF).
    assert_eq!(
        hw_checksum::<32, 64>("crc32_x64_check", &CRC32, b"1234567812345678"),
        0x6BCC_57B7
    );
    assert_eq!(
        hw_checksum::<32, 32>("crc32_x32_check", &CRC32, b"12345678"),
        0x9AE0_DAAF
    );
    assert_eq!(
        hw_checksum::<16, 16>("crc16_x16_check", &CRC16, b"12345678"),
        0xA12B
    );
}
