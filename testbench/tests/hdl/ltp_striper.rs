//! LtpStriper against `hdl::llp::ltp::stripe`: random LTPs, random idle inside and between
//! LTPs, every lane mask of 1..4 lanes; every output beat (valid, start, data per physical
//! lane) must equal the model's, in order, and idle cycles must be all zero. Also measures the
//! sustained flits per cycle of a continuous LTP stream at each lane count, and that `idle` is
//! high exactly in the cycles in which every accepted LTP is complete and all its XFRs have
//! reached the lanes (the model's queue is empty between LTPs). `sink.data` is random while
//! `sink.valid` is low.
//!
//! Reset (its doc: "drops the XFRs held and restarts the beat count at flit 0"; `mask` is
//! sampled during reset): a run of LTPs with random idle and 1-3 cycle pulses at random moments
//! (the shared [`ResetSchedule`]), the mask often changed during the pulse. In the first cycle
//! after each, `lanes` must be idle (valid 0) and `idle` high; the sender abandons the LTP in
//! progress and starts the next at flit 0. What the lanes carry between two resets is the
//! model's striping of the LTPs begun since the first (a rotation restarted at lane 0): a
//! prefix of it when the second reset cut it short, all of it otherwise, and nothing of an LTP
//! from before a reset ever appears after it.
use hdl::llp::ltp::{ltp_to_xfrs, stripe, Beat, LTP_FLITS, LTP_XFRS};
use hdl::prelude::*;
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both_seeds, Backend, BenchRng};

type Dut = LtpStriper;

/// Per mask: (mask, flits, cycles from the first flit accepted to the last, partial beats).
type Result = Vec<(u8, u64, u64, u64)>;

/// `hold_rate`: probability per cycle that `hold` is high (the wire of 16-bit lanes busy). A
/// beat shown while `hold` is high is not taken and must stay; the striper runs on the cycles
/// it advances (`hold` low or nothing shown), so "in time" counts those.
fn bench(
    b: &mut dyn Backend,
    seed: u64,
    rate: f64,
    gap: f64,
    ltps_per_mask: usize,
    hold_rate: f64,
) -> Result {
    let mut rng = BenchRng::new(seed);
    let (reset, mask, hold_port) = (b.port("reset"), b.port("mask"), b.port("hold"));
    let (valid, data, ready) = (
        b.port("sink$valid"),
        b.port("sink$data"),
        b.port("sink$ready"),
    );
    let (l_valid, l_start, l_data) = (
        b.port("lanes$valid"),
        b.port("lanes$start"),
        b.port("lanes$data"),
    );
    let idle = b.port("idle");
    b.poke_bool(reset, true);
    b.poke_bool(valid, false);
    b.poke(data, 0);
    b.poke(mask, 0b1111);
    b.tick();
    b.poke_bool(reset, false);
    let mut out = vec![];
    let mut masks: Vec<u8> = (1..16).collect();
    // Shuffle so lane counts change in both directions.
    for i in (1..masks.len()).rev() {
        masks.swap(i, rng.range(0, i as u64) as usize);
    }
    for m in masks {
        b.poke(mask, m as u128);
        // LTPs: XFRs for the model, 17 input beats each (16 flits, then the trailer).
        let mut xfrs = vec![];
        let mut beats: Vec<(u128, u64)> = vec![]; // (beat, idle cycles before it)
        for k in 0..ltps_per_mask {
            let flits: [u128; LTP_FLITS] = std::array::from_fn(|_| rng.bits(65));
            let trailer = rng.bits(16) as u16;
            xfrs.push(ltp_to_xfrs(&flits, trailer));
            for (i, f) in flits.iter().chain(&[trailer as u128]).enumerate() {
                let mut idle = 0;
                while !rng.chance(rate) {
                    idle += 1;
                }
                if i == 0 && k > 0 && rng.chance(gap) {
                    idle += rng.range(1, 12);
                }
                beats.push((*f, idle));
            }
        }
        let mut fires = vec![]; // cycle of each accepted beat
        let mut idles = 0u64;
        let mut got = vec![];
        let mut next = 0usize;
        let mut wait = beats[0].1;
        let mut quiet = 0;
        let mut xfrs_out = 0usize; // XFRs seen on the lanes so far (this mask)
        let start = b.cycle();
        let mut advances = 0u64;
        while next < beats.len() || quiet < 6 {
            let hold = hold_rate > 0.0 && rng.chance(hold_rate);
            b.poke_bool(hold_port, hold);
            let offer = next < beats.len() && wait == 0;
            b.poke_bool(valid, offer);
            let idle_data = rng.bits(65);
            b.poke(data, if offer { beats[next].0 } else { idle_data });
            let fired = offer && b.peek_bool(ready);
            let (v, s, d) = (b.peek(l_valid) as u8, b.peek(l_start) as u8, b.peek(l_data));
            if v != 0 {
                if !hold {
                    got.push(Beat {
                        valid: v,
                        start: s,
                        data: std::array::from_fn(|n| (d >> (32 * n)) as u32),
                    });
                }
                quiet = 0;
            } else {
                assert_eq!(
                    (s, d),
                    (0, 0),
                    "seed {seed} mask {m:04b}: idle cycle not zero"
                );
                quiet += 1;
            }
            // Idle: the next beat on sink is a flit 0 and every accepted XFR is out (the
            // output registers show the last beat in the cycle the former lets it go).
            xfrs_out += v.count_ones() as usize;
            let accepted = fires.len();
            let want_idle = accepted % 17 == 0 && xfrs_out == accepted / 17 * LTP_XFRS;
            if hold_rate == 0.0 {
                assert_eq!(
                    b.peek_bool(idle),
                    want_idle,
                    "seed {seed} mask {m:04b} cycle {}: idle",
                    b.cycle() - start
                );
                idles += want_idle as u64;
            } else {
                idles += b.peek_bool(idle) as u64;
            }
            if fired {
                // The lanes are quiet only once the last beat in has had time to come out.
                quiet = 0;
                fires.push(advances);
                next += 1;
                if next < beats.len() {
                    wait = beats[next].1;
                }
            } else if !offer && next < beats.len() {
                wait -= 1;
            }
            advances += (!hold || v == 0) as u64;
            b.tick();
            assert!(b.cycle() - start < 100_000, "seed {seed}: hang");
        }
        // In time: the next LTP's flit 0 accepted in the cycle after the trailer.
        let ltps: Vec<([u32; LTP_XFRS], bool)> = (0..ltps_per_mask)
            .map(|k| {
                let in_time =
                    k + 1 < ltps_per_mask && fires[17 * (k + 1)] == fires[17 * k + 16] + 1;
                (xfrs[k], in_time)
            })
            .collect();
        let expect = stripe(&ltps, m);
        for (i, (g, e)) in got.iter().zip(&expect).enumerate() {
            assert_eq!(g, e, "seed {seed} mask {m:04b}: beat {i} wrong");
        }
        assert_eq!(got.len(), expect.len(), "seed {seed} mask {m:04b}: beats");
        let l = m.count_ones() as usize;
        let partial = got
            .iter()
            .filter(|g| (g.valid.count_ones() as usize) < l)
            .count() as u64;
        let flits = (ltps_per_mask * LTP_FLITS) as u64;
        assert!(idles >= 6, "seed {seed} mask {m:04b}: never idle");
        out.push((m, flits, fires[fires.len() - 1] - fires[0] + 1, partial));
    }
    out
}

/// An LTP as the sender has it: 17 input beats and its XFRs.
fn random_ltp(rng: &mut BenchRng) -> (Vec<u128>, [u32; LTP_XFRS]) {
    let flits: [u128; LTP_FLITS] = std::array::from_fn(|_| rng.bits(65));
    let trailer = rng.bits(16) as u16;
    let beats = flits.iter().copied().chain([trailer as u128]).collect();
    (beats, ltp_to_xfrs(&flits, trailer))
}

/// The LTPs begun since the last reset and the lane beats seen since.
#[derive(Default)]
struct Segment {
    mask: u8,
    /// XFRs of each LTP whose flit 0 was accepted.
    xfrs: Vec<[u32; LTP_XFRS]>,
    /// Cycle each accepted beat was accepted in.
    fires: Vec<u64>,
    got: Vec<Beat>,
}

impl Segment {
    /// Checks the lanes against the model: all of it if `whole`, else a prefix (cut by reset).
    fn check(&self, seed: u64, whole: bool) -> usize {
        let n = self.xfrs.len();
        let ltps: Vec<([u32; LTP_XFRS], bool)> = (0..n)
            .map(|k| {
                let next = 17 * (k + 1);
                let in_time =
                    next < self.fires.len() && self.fires[next] == self.fires[next - 1] + 1;
                (self.xfrs[k], in_time)
            })
            .collect();
        let want = if n == 0 {
            vec![]
        } else {
            stripe(&ltps, self.mask)
        };
        if let Some(i) = (0..self.got.len()).find(|&i| want.get(i) != Some(&self.got[i])) {
            panic!(
                "seed {seed} mask {:04b}: lane beat {i} since reset is {:?}, the model's {:?} \
                 ({} beats seen, {} in the model, {} LTPs begun, in time {:?})",
                self.mask,
                self.got[i],
                want.get(i),
                self.got.len(),
                want.len(),
                n,
                ltps.iter().map(|l| l.1).collect::<Vec<_>>()
            );
        }
        if whole {
            assert_eq!(
                self.got.len(),
                want.len(),
                "seed {seed}: beats missing at the end"
            );
        }
        self.got.len()
    }
}

/// Resets under traffic; returns (reset pulses, lane beats checked).
fn resets(b: &mut dyn Backend, seed: u64, cycles: u64) -> (u64, u64) {
    let mut rng = BenchRng::new(seed);
    let (reset, mask) = (b.port("reset"), b.port("mask"));
    let (valid, data, ready) = (
        b.port("sink$valid"),
        b.port("sink$data"),
        b.port("sink$ready"),
    );
    let (l_valid, l_start, l_data, idle) = (
        b.port("lanes$valid"),
        b.port("lanes$start"),
        b.port("lanes$data"),
        b.port("idle"),
    );
    let mut sched = ResetSchedule::new(&mut rng, 120);
    let mut seg = Segment {
        mask: 0b1111,
        ..Default::default()
    };
    let mut next_mask = seg.mask;
    b.poke(mask, seg.mask as u128);
    b.poke_bool(reset, true);
    b.tick();
    let (mut ltp, mut xfrs) = random_ltp(&mut rng);
    let (mut next, mut wait, mut checked) = (0usize, 0u64, 0u64);
    let mut c = 0u64;
    // After the last cycle of traffic, run until the lanes have been quiet for a while.
    let mut quiet = 0;
    while c < cycles || quiet < 8 {
        // Traffic stops after `cycles`, at the end of an LTP.
        let traffic = c < cycles || next != 0;
        let rst = sched.next_if(&mut rng, c < cycles);
        b.poke_bool(reset, rst);
        if rst && rng.chance(0.5) {
            // A new lane mask for the next segment, sampled during reset.
            next_mask = rng.range(1, 15) as u8;
            b.poke(mask, next_mask as u128);
        }
        let offer = traffic && wait == 0;
        b.poke_bool(valid, offer);
        let idle_data = rng.bits(65);
        b.poke(data, if offer { ltp[next] } else { idle_data });
        if sched.released() {
            assert!(
                b.peek(l_valid) == 0 && b.peek_bool(idle),
                "seed {seed} cycle {c}: lanes busy or not idle after reset"
            );
        }
        let (v, s, d) = (b.peek(l_valid) as u8, b.peek(l_start) as u8, b.peek(l_data));
        let fired = offer && b.peek_bool(ready);
        b.tick();
        if rst {
            // The segment ends; the LTP in progress is abandoned, the next starts at flit 0.
            checked += seg.check(seed, false) as u64;
            seg = Segment {
                mask: next_mask,
                ..Default::default()
            };
            (ltp, xfrs) = random_ltp(&mut rng);
            (next, wait, quiet) = (0, 0, 0);
            c += 1;
            continue;
        }
        if v != 0 {
            seg.got.push(Beat {
                valid: v,
                start: s,
                data: std::array::from_fn(|n| (d >> (32 * n)) as u32),
            });
            quiet = 0;
        } else {
            assert_eq!((s, d), (0, 0), "seed {seed} cycle {c}: idle cycle not zero");
            quiet += !traffic as u64;
        }
        if fired {
            if next == 0 {
                seg.xfrs.push(xfrs);
            }
            seg.fires.push(c);
            next += 1;
            wait = if rng.chance(0.8) { 0 } else { rng.range(1, 4) };
            if next == ltp.len() {
                (ltp, xfrs) = random_ltp(&mut rng);
                next = 0;
                if rng.chance(0.4) {
                    wait += rng.range(1, 12);
                }
            }
        } else if !offer {
            wait = wait.saturating_sub(1);
        }
        c += 1;
        assert!(c < cycles + 1000, "seed {seed}: the lanes never went quiet");
    }
    checked += seg.check(seed, true) as u64;
    sched.assert_pulses(&format!("ltp striper seed {seed}"), 10);
    (sched.pulses(), checked)
}

#[test]
fn ltp_striper_resets_under_traffic() {
    let table = || port_table!(Dut; reset, mask, sink.valid, sink.data, sink.ready, lanes.valid, lanes.start, lanes.data, hold, idle);
    let rep = run_both_seeds("ltp_striper", &[5, 6], Dut::default, table, |b, s| {
        resets(b, s, 4000)
    });
    for r in &rep {
        assert!(
            r.result.1 > 500,
            "too few lane beats checked: {:?}",
            r.result
        );
    }
}

#[test]
fn ltp_striper_matches_model() {
    let table = || port_table!(Dut; reset, mask, sink.valid, sink.data, sink.ready, lanes.valid, lanes.start, lanes.data, hold, idle);
    // Continuous stream: dense packing (no partial beat but the last), throughput.
    let rep = run_both_seeds("ltp_striper", &[1], Dut::default, table, |b, s| {
        bench(b, s, 1.0, 0.0, 6, 0.0)
    });
    for (m, flits, cycles, partial) in &rep[0].result {
        assert!(
            *partial <= 1,
            "mask {m:04b}: partial beat in a dense stream"
        );
        let l = m.count_ones();
        let per = *flits as f64 / *cycles as f64;
        if m.count_ones() == m.trailing_ones() {
            println!("ltp_striper L={l}: {flits} flits in {cycles} cycles = {per:.3} flits/cycle");
        }
        // 17 beats per LTP in (the trailer beat is one of them); 33 XFRs out at L = 1.
        let min = if l == 1 { 16.0 / 33.0 } else { 16.0 / 17.0 };
        assert!(per >= min - 1e-3, "mask {m:04b}: {per} flits/cycle");
    }
    // Random idle inside and between LTPs: partial beats and restarts.
    let mut partials = 0;
    for (seed, rate, gap) in [(2, 0.8, 0.5), (3, 0.95, 0.3), (4, 0.6, 0.8)] {
        let rep = run_both_seeds("ltp_striper", &[seed], Dut::default, table, |b, s| {
            bench(b, s, rate, gap, 5, 0.0)
        });
        partials += rep[0].result.iter().map(|r| r.3).sum::<u64>();
    }
    println!("ltp_striper: {partials} partial beats checked");
    assert!(partials > 30, "too few partial beats exercised");
}

/// With `hold` (a wire of 16-bit lanes taking a beat every second cycle at best): the beats
/// taken are the model's, in order, none lost or repeated, at every lane mask, with random
/// idle and partial beats (the rate this gives the link is `bench link-sim`'s).
#[test]
fn ltp_striper_holds_formed_beats_for_the_wire() {
    let table = || port_table!(Dut; reset, mask, sink.valid, sink.data, sink.ready, lanes.valid, lanes.start, lanes.data, hold, idle);
    for (seed, rate, gap, hold) in [(7, 0.9, 0.5, 0.5), (8, 1.0, 0.0, 0.3), (9, 0.7, 0.8, 0.7)] {
        let rep = run_both_seeds("ltp_striper_hold", &[seed], Dut::default, table, |b, s| {
            bench(b, s, rate, gap, 5, hold)
        });
        assert_eq!(rep[0].result.len(), 15, "every mask ran");
    }
}
