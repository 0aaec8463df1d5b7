//! LtpDeframer against its model (`testbench::models::ltp_deframer`) and against what was sent:
//! random LTPs (random flits, a trailer with a random CRC XOR value, random credit sideband
//! bits and the right sequence state XORed into the check) striped by `hdl::llp::ltp::stripe` with random "in time" flags, at many lane masks,
//! with random idle cycles where the striper could leave them (between LTPs) or dense. Every
//! end record (intact, crc_diff, state, sideband, group CRCs), every flit of a complete attempt, and every
//! `lane_missing`/`stray` event (two cycles after its beat) must equal the model's, and the
//! intact attempts must be exactly the LTPs the scenario expects intact, with their flits and
//! XOR values. Error cases: flipped data bits, a dropped transfer, a dropped beat, a lost start
//! flag, a spurious start flag, a wrong state (arrives whole, fails the check), mask changes; after each the next LTP must be
//! delivered intact; and a spurious start flag in the second beat of an LTP while the reader
//! still holds the previous LTP's last XFRs (its last beats a cycle early). Throughput: dense streams (the striper's exact pace, 80 LTPs) at every lane
//! mask deliver every LTP intact, one per 17 cycles (33 at one lane). Overflow: a far end sending
//! a beat every cycle overflows the lane queues; ends and events must still be the model's, an
//! end reported intact must carry the model's flits, and the next LTP at the striper's pace
//! must be intact. Lanes that are not valid carry random data and start flags.
//!
//! Reset (its doc: "drops everything and hunts for a start flag"): clean and faulty segments
//! at several masks with 1-3 cycle pulses at random moments (the shared [`ResetSchedule`]).
//! The reset clears the first pipeline stage, so the beats of its own cycles and of the cycle
//! before it are dropped, with the attempt in progress and every end and flit not yet reported.
//! In the first cycle after each pulse `flit_valid`, `end_valid`, `lane_missing` and `stray`
//! must be low. Between two resets the ends reported must be the model's attempts in order
//! (a prefix of them when the second reset overtook some), with their flits, and the events
//! of every beat the model's; after a reset the model starts over, hunting.
#![allow(clippy::needless_range_loop)] // beats and XFR positions are indexed by number, as in the digest
use hdl::llp::ltp::{
    active_lanes, ltp_crc, ltp_to_xfrs, stripe, trailer, Beat, LTP_FLITS, LTP_XFRS,
};
use hdl::prelude::*;
use testbench::models::ltp_deframer::{group_crcs, Attempt, DeframerModel, Events};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both_seeds, Backend, BenchRng};

type Dut = LtpDeframer;

/// An LTP as sent and what the bench expects of it.
#[derive(Clone, Debug)]
struct Sent {
    xfrs: [u32; LTP_XFRS],
    flits: [u128; LTP_FLITS],
    xor: u16,
    state: u8,
    lanes: usize,
    /// Expected to arrive intact (an intact end with these flits).
    intact: bool,
    /// Expected crc_diff == xor (false for flipped bits).
    crc_ok: bool,
    /// The trailer's credit sideband bits.
    sideband: u8,
}

/// The error injected into one LTP of a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    None,
    Flip,
    DropXfr,
    DropBeat,
    LostStart,
    SpuriousStart,
    /// A spurious start in the first two beats of an LTP that followed its predecessor in
    /// time: the deframer may still be reading the predecessor (which must stay intact).
    EarlyStart,
    WrongState,
}

/// One cycle of input.
type Cycle = (u8, Beat);

/// Builds `n` LTPs at `mask`, stripes them, injects `fault` into one LTP (not the last), and
/// inserts idle cycles (`gap` = chance of a gap before an LTP that starts a beat).
fn segment(
    rng: &mut BenchRng,
    mask: u8,
    n: usize,
    fault: Fault,
    gap: f64,
    sent: &mut Vec<Sent>,
) -> Vec<Cycle> {
    let l = active_lanes(mask).len();
    let mut in_time: Vec<bool> = (0..n).map(|_| rng.chance(0.6)).collect();
    let victim = if fault == Fault::None {
        usize::MAX
    } else if fault == Fault::EarlyStart {
        in_time[0] = true;
        1
    } else {
        rng.range(0, n as u64 - 2) as usize
    };
    let mut g = 0u64;
    let mut ltps = vec![];
    let first = sent.len();
    for (k, &in_time_k) in in_time.iter().enumerate() {
        let state = (g % l as u64) as u8;
        let flits: [u128; LTP_FLITS] = std::array::from_fn(|_| rng.bits(65));
        let xor = rng.bits(14) as u16;
        let sideband = rng.bits(2) as u8;
        let mut st = state;
        let wrong_state = k == victim && fault == Fault::WrongState;
        if wrong_state {
            st = (state + 1 + rng.range(0, 2) as u8) % 4;
        }
        let xfrs = ltp_to_xfrs(
            &flits,
            trailer(ltp_crc(&flits, sideband) ^ xor, st, sideband),
        );
        ltps.push((xfrs, in_time_k));
        // A wrong state arrives whole but fails the check (the sender XORed its state in).
        sent.push(Sent {
            xfrs,
            flits,
            xor,
            sideband,
            state,
            lanes: l,
            intact: !(k == victim && fault != Fault::Flip && !wrong_state),
            crc_ok: !wrong_state,
        });
        g = if in_time_k { g + LTP_XFRS as u64 } else { 0 };
    }
    let mut beats = stripe(&ltps, mask);
    // Where each LTP's XFRs are: (beat, physical lane) of XFR j of LTP k.
    let lanes = active_lanes(mask);
    let mut pos = vec![];
    {
        let (mut bi, mut n_in) = (0usize, 0usize);
        for k in 0..n {
            let mut p = vec![];
            for _ in 0..LTP_XFRS {
                p.push((bi, lanes[n_in]));
                n_in += 1;
                if n_in == l || beats[bi].valid.count_ones() as usize == n_in {
                    bi += 1;
                    n_in = 0;
                }
            }
            pos.push(p);
            let _ = k;
        }
    }
    let mut drop_beat = usize::MAX;
    if victim != usize::MAX {
        let p = &pos[victim];
        let (b0, b32) = (p[0].0, p[32].0);
        match fault {
            Fault::Flip => {
                let j = rng.range(0, 32) as usize;
                let bit = if j == 32 {
                    rng.range(0, 15)
                } else {
                    rng.range(0, 31)
                };
                let (bi, ph) = p[j];
                beats[bi].data[ph] ^= 1 << bit;
                let s = &mut sent[first + victim];
                s.xfrs[j] ^= 1 << bit;
                s.flits = hdl::llp::ltp::xfrs_to_ltp(&s.xfrs).0;
                s.crc_ok = false;
            }
            Fault::DropXfr => {
                // A beat strictly inside the LTP.
                let bi = rng.range(b0 as u64 + 1, b32 as u64 - 1) as usize;
                let ph = lanes[rng.range(0, l as u64 - 1) as usize];
                beats[bi].valid &= !(1 << ph);
                beats[bi].start &= !(1 << ph);
                beats[bi].data[ph] = 0;
            }
            Fault::DropBeat => {
                drop_beat = rng.range(b0 as u64 + 1, b32 as u64 - 1) as usize;
            }
            Fault::LostStart => {
                let (bi, ph) = p[0];
                beats[bi].start &= !(1 << ph);
            }
            Fault::SpuriousStart => {
                let (bi, ph) = p[rng.range(1, 32) as usize];
                beats[bi].start |= 1 << ph;
            }
            Fault::EarlyStart => {
                let (bi, ph) = p[rng.range(1, 2 * l as u64) as usize];
                beats[bi].start |= 1 << ph;
            }
            _ => {}
        }
    }
    // Pace the beats as the striper would: its gearbox makes XFRs 2i, 2i+1 of an LTP in the
    // LTP's cycle i (XFR 32 in cycle 16), and a beat leaves after all its XFRs were made, one
    // beat per cycle. LTPs not in time start 1 or more cycles late (idle between LTPs).
    let mut start = vec![0u64; n];
    for k in 1..n {
        let late = if in_time[k - 1] {
            0
        } else if rng.chance(gap) {
            rng.range(1, 6)
        } else {
            1
        };
        start[k] = start[k - 1] + 17 + late;
    }
    let mut ready = vec![0u64; beats.len()];
    for (k, p) in pos.iter().enumerate() {
        for (j, &(bi, _)) in p.iter().enumerate() {
            ready[bi] = ready[bi].max(start[k] + j as u64 / 2 + 1);
        }
    }
    let mut out = vec![];
    let dropped = drop_beat;
    for (bi, b) in beats.iter().enumerate() {
        while (out.len() as u64) < ready[bi] {
            out.push((mask, Beat::default()));
        }
        out.push((mask, if bi == dropped { Beat::default() } else { *b }));
    }
    out
}

/// What the DUT produced.
#[derive(Debug, PartialEq, Eq)]
struct EndRec {
    intact: bool,
    crc_diff: u16,
    state: u8,
    sideband: u8,
    gcrc: u32,
    flits: Vec<(u8, u128)>,
    cycle: u64,
}

/// Drives `cycles` (with `reset` high in the cycles where `resets` says so) and records every
/// end with its flits and every cycle's events; lanes that are not valid get random data and
/// start flags from `rng`.
fn drive(
    b: &mut dyn Backend,
    cycles: &[Cycle],
    resets: &[bool],
    rng: &mut BenchRng,
) -> (Vec<EndRec>, Vec<Events>) {
    let (reset, mask) = (b.port("reset"), b.port("mask"));
    let (lv, ls, ld) = (
        b.port("lanes$valid"),
        b.port("lanes$start"),
        b.port("lanes$data"),
    );
    let (fv, fd, fp) = (
        b.port("out$flit_valid"),
        b.port("out$flit"),
        b.port("out$flit_pos"),
    );
    let (end, ei, ec, es, eg) = (
        b.port("out$end_valid"),
        b.port("out$end_intact"),
        b.port("out$end_crc_diff"),
        b.port("out$end_state"),
        b.port("out$end_gcrc"),
    );
    let esb = b.port("out$end_sideband");
    let (lm, stray) = (b.port("out$lane_missing"), b.port("out$stray"));
    b.poke_bool(reset, true);
    b.poke(mask, cycles[0].0 as u128);
    b.poke(lv, 0);
    b.poke(ls, 0);
    b.poke(ld, 0);
    b.tick();
    b.poke_bool(reset, false);
    let mut ends = vec![];
    let mut flits = vec![];
    let mut events = vec![];
    let total = cycles.len() + 60;
    for c in 0..total {
        let (m, beat) = cycles
            .get(c)
            .copied()
            .unwrap_or((cycles.last().unwrap().0, Beat::default()));
        let rst = resets.get(c).copied().unwrap_or(false);
        b.poke_bool(reset, rst);
        b.poke(mask, m as u128);
        b.poke(lv, beat.valid as u128);
        // Start flags and data are payload of each lane: random where the lane is not valid.
        let junk = rng.bits(128);
        let idle = !beat.valid & 0xf;
        b.poke(
            ls,
            (beat.start & beat.valid | rng.bits(4) as u8 & idle) as u128,
        );
        b.poke(
            ld,
            (0..4).fold(0u128, |a, n| {
                let x = if idle >> n & 1 == 1 {
                    (junk >> (32 * n)) as u32
                } else {
                    beat.data[n]
                };
                a | (x as u128) << (32 * n)
            }),
        );
        if c > 0 && resets.get(c - 1) == Some(&true) && !rst {
            assert!(
                !b.peek_bool(fv) && !b.peek_bool(end) && b.peek(lm) == 0 && !b.peek_bool(stray),
                "cycle {c}: an output survived the reset"
            );
        }
        if b.peek_bool(end) {
            ends.push(EndRec {
                intact: b.peek_bool(ei),
                crc_diff: b.peek(ec) as u16,
                state: b.peek(es) as u8,
                sideband: b.peek(esb) as u8,
                gcrc: b.peek(eg) as u32,
                flits: std::mem::take(&mut flits),
                cycle: c as u64,
            });
        }
        if b.peek_bool(fv) {
            flits.push((b.peek(fp) as u8, b.peek(fd)));
        }
        let dbg = std::env::var("DEFRAMER_DEBUG").map_or((0, 0), |v| {
            let (a, z) = v.split_once('-').unwrap();
            (a.parse().unwrap(), z.parse().unwrap())
        });
        if (dbg.0..dbg.1).contains(&c) {
            eprintln!(
                "c {c} in v{:04b} s{:04b} m{:04b} | stray {} miss {:04b} end {} fv {} fp {}",
                beat.valid,
                beat.start,
                m,
                b.peek_bool(stray),
                b.peek(lm),
                b.peek_bool(end),
                b.peek_bool(fv),
                b.peek(fp)
            );
        }
        if c >= 2 {
            events.push(Events {
                missing: b.peek(lm) as u8,
                stray: b.peek_bool(stray),
            });
        }
        b.tick();
        if rst {
            // Flits of an attempt whose end the reset overtook are gone with it.
            flits.clear();
        }
    }
    assert!(flits.is_empty(), "flits after the last end: {flits:?}");
    (ends, events)
}

/// Checks one run against the model and the scenario; returns (ends, intact ends, cycles).
fn check(cycles: &[Cycle], sent: &[Sent], ends: &[EndRec], events: &[Events], tag: &str) {
    let mut model = DeframerModel::new(cycles[0].0);
    for (m, b) in cycles {
        model.cycle(*m, b);
    }
    // Events, two cycles late.
    for (c, e) in model.events.iter().enumerate() {
        assert_eq!(events[c], *e, "{tag}: events of input cycle {c}");
    }
    for e in &events[model.events.len()..] {
        assert_eq!(*e, Events::default(), "{tag}: events after the input");
    }
    assert_eq!(
        ends.len(),
        model.attempts.len(),
        "{tag}: number of ends (model {:?})",
        model
            .attempts
            .iter()
            .map(|a| a.is_some())
            .collect::<Vec<_>>()
    );
    for (i, (e, a)) in ends.iter().zip(&model.attempts).enumerate() {
        match a {
            None => assert!(!e.intact, "{tag}: end {i} intact, model says bad"),
            Some(a) => {
                assert_eq!(e.intact, a.intact, "{tag}: end {i} intact");
                assert_eq!(
                    (e.crc_diff, e.state, e.sideband, e.gcrc),
                    (a.crc_diff, a.state, a.sideband, a.gcrc),
                    "{tag}: end {i} at cycle {} (crc_diff, state, sideband, gcrc)",
                    e.cycle
                );
                let want: Vec<(u8, u128)> = a
                    .flits
                    .iter()
                    .enumerate()
                    .map(|(k, f)| (k as u8, *f))
                    .collect();
                assert_eq!(e.flits, want, "{tag}: end {i} flits");
            }
        }
        assert!(e.flits.len() <= LTP_FLITS, "{tag}: end {i}: too many flits");
        for (k, f) in e.flits.iter().enumerate() {
            assert_eq!(
                f.0 as usize, k,
                "{tag}: end {i}: flit positions out of order"
            );
        }
    }
    // Against the scenario: the intact ends are exactly the LTPs expected intact.
    let got: Vec<&EndRec> = ends.iter().filter(|e| e.intact).collect();
    let want: Vec<&Sent> = sent.iter().filter(|s| s.intact).collect();
    assert_eq!(got.len(), want.len(), "{tag}: intact LTPs");
    for (i, (g, s)) in got.iter().zip(&want).enumerate() {
        let f: Vec<u128> = g.flits.iter().map(|f| f.1).collect();
        assert_eq!(f, s.flits.to_vec(), "{tag}: intact LTP {i}: flits");
        assert_eq!(g.state, s.state, "{tag}: intact LTP {i}: state");
        assert_eq!(g.sideband, s.sideband, "{tag}: intact LTP {i}: sideband");
        assert_eq!(
            g.crc_diff == s.xor,
            s.crc_ok,
            "{tag}: intact LTP {i}: crc_diff"
        );
        if s.crc_ok {
            assert_eq!(g.gcrc, group_crcs(&s.xfrs, s.lanes), "{tag}: LTP {i}: gcrc");
        }
    }
}

const MASKS: [u8; 9] = [
    0b1111, 0b0111, 0b1011, 0b0011, 0b0101, 0b0001, 0b1000, 0b1110, 0b0110,
];

/// Clean streams at every mask in turn (the mask changes between segments, while idle).
fn clean(b: &mut dyn Backend, seed: u64) -> usize {
    let mut rng = BenchRng::new(seed);
    let mut sent = vec![];
    let mut cycles = vec![];
    for &m in &MASKS {
        let gap = if rng.chance(0.3) { 0.0 } else { 0.5 };
        cycles.extend(segment(&mut rng, m, 4, Fault::None, gap, &mut sent));
        for _ in 0..rng.range(2, 4) {
            cycles.push((m, Beat::default()));
        }
    }
    let (ends, events) = drive(b, &cycles, &[], &mut rng);
    check(
        &cycles,
        &sent,
        &ends,
        &events,
        &format!("clean seed {seed}"),
    );
    assert!(ends.iter().all(|e| e.intact));
    assert!(events.iter().all(|e| *e == Events::default()));
    // The clean group CRCs (also checked above) and the XOR values.
    for (e, s) in ends.iter().zip(&sent) {
        assert_eq!(e.crc_diff, s.xor);
    }
    ends.len()
}

/// Every fault at a few masks; the LTP after the fault must be intact.
fn faults(b: &mut dyn Backend, seed: u64) -> usize {
    let mut rng = BenchRng::new(seed);
    let mut sent = vec![];
    let mut cycles = vec![];
    let all = [
        Fault::Flip,
        Fault::DropXfr,
        Fault::DropBeat,
        Fault::LostStart,
        Fault::SpuriousStart,
        Fault::EarlyStart,
        Fault::WrongState,
    ];
    let mut faulted = 0;
    for (i, &m) in [0b1111u8, 0b1011, 0b0011, 0b0001, 0b1110, 0b0101]
        .iter()
        .enumerate()
    {
        for f in all {
            let l = active_lanes(m).len();
            // A dropped transfer or beat needs a beat strictly inside the LTP.
            if l == 1 && f == Fault::DropXfr {
                continue;
            }
            let n0 = sent.len();
            cycles.extend(segment(&mut rng, m, 3, f, 0.3, &mut sent));
            // LTPs before and after a fault must be intact (checked by `check` via `sent`).
            assert!(sent[n0 + 2].intact);
            if f == Fault::EarlyStart {
                assert!(sent[n0].intact);
            }
            faulted += 1;
            let _ = i;
            cycles.push((m, Beat::default()));
        }
    }
    let (ends, events) = drive(b, &cycles, &[], &mut rng);
    check(
        &cycles,
        &sent,
        &ends,
        &events,
        &format!("faults seed {seed}"),
    );
    let bad = ends.iter().filter(|e| !e.intact).count();
    assert!(bad >= faulted / 2, "too few bad attempts: {bad}");
    assert!(
        events.iter().any(|e| e.missing != 0),
        "no lane named missing"
    );
    assert!(events.iter().any(|e| e.stray), "no stray XFR");
    ends.len()
}

/// `n` LTPs of random flits and CRC offsets, back to back from sequence state 0 at `l` lanes,
/// all expected intact: the LTPs for [`stripe`] and what each must arrive as.
fn back_to_back(
    rng: &mut BenchRng,
    l: usize,
    n: usize,
) -> (Vec<([u32; LTP_XFRS], bool)>, Vec<Sent>) {
    let mut sent = vec![];
    let mut ltps = vec![];
    let mut g = 0u64;
    for _ in 0..n {
        let state = (g % l as u64) as u8;
        let flits: [u128; LTP_FLITS] = std::array::from_fn(|_| rng.bits(65));
        let xor = rng.bits(14) as u16;
        let sideband = rng.bits(2) as u8;
        let xfrs = ltp_to_xfrs(
            &flits,
            trailer(ltp_crc(&flits, sideband) ^ xor, state, sideband),
        );
        ltps.push((xfrs, true));
        sent.push(Sent {
            xfrs,
            flits,
            xor,
            sideband,
            state,
            lanes: l,
            intact: true,
            crc_ok: true,
        });
        g += LTP_XFRS as u64;
    }
    (ltps, sent)
}

/// XFRs the striper's gearbox has produced by cycle `c` of back-to-back LTPs: 2 per flit, then
/// 1 for the trailer, 33 per 17 cycles.
fn striper_xfrs(c: usize) -> usize {
    let (k, r) = (c / 17, c % 17);
    k * 33 + if r < 16 { 2 * (r + 1) } else { 33 }
}

/// Dense back-to-back LTPs (every one in time, no idle): every LTP intact, 17 cycles each.
fn dense(b: &mut dyn Backend, mask: u8, n: usize) -> u64 {
    let mut rng = BenchRng::new(mask as u64);
    let l = active_lanes(mask).len();
    let (ltps, sent) = back_to_back(&mut rng, l, n);
    // The striper's exact pace: 33 XFRs per 17 cycles, a beat whenever L XFRs are queued.
    let beats = stripe(&ltps, mask);
    let mut cycles = vec![];
    let mut next = 0usize;
    for c in 0.. {
        let have = striper_xfrs(c).min(n * 33);
        let sent_xfrs: usize = beats[..next]
            .iter()
            .map(|b| b.valid.count_ones() as usize)
            .sum();
        if next < beats.len() && have - sent_xfrs >= beats[next].valid.count_ones() as usize {
            cycles.push((mask, beats[next]));
            next += 1;
        } else {
            cycles.push((mask, Beat::default()));
        }
        if next == beats.len() {
            break;
        }
    }
    let (ends, events) = drive(b, &cycles, &[], &mut rng);
    check(&cycles, &sent, &ends, &events, &format!("dense {mask:04b}"));
    assert_eq!(ends.len(), n);
    assert!(ends.iter().all(|e| e.intact), "dense {mask:04b}: a bad LTP");
    ends[n - 1].cycle - ends[0].cycle
}

fn table() -> testbench::PortTable<Dut> {
    port_table!(Dut; reset, mask, lanes.valid, lanes.start, lanes.data, out.flit, out.flit_valid,
        out.flit_pos, out.end_valid, out.end_intact, out.end_crc_diff, out.end_state, out.end_sideband, out.end_gcrc,
        out.lane_missing, out.stray)
}

#[test]
fn ltp_deframer_clean_streams() {
    let rep = run_both_seeds("ltp_deframer", &[1, 2], Dut::default, table, clean);
    println!(
        "ltp_deframer clean: {:?} LTPs",
        rep.iter().map(|r| r.result).collect::<Vec<_>>()
    );
}

#[test]
fn ltp_deframer_faults() {
    let rep = run_both_seeds("ltp_deframer", &[3, 4, 5, 6], Dut::default, table, faults);
    println!(
        "ltp_deframer faults: {:?} attempts",
        rep.iter().map(|r| r.result).collect::<Vec<_>>()
    );
}

#[test]
fn ltp_deframer_throughput() {
    for (mask, n) in (1u8..16).map(|m| (m, if m.count_ones() == 1 { 12 } else { 80 })) {
        let rep = run_both_seeds("ltp_deframer", &[0], Dut::default, table, |b, _| {
            dense(b, mask, n)
        });
        let span = rep[0].result;
        let per = span as f64 / (n - 1) as f64;
        let l = mask.count_ones();
        println!("ltp_deframer L={l}: {n} LTPs, {per:.2} cycles per LTP between ends");
        let max = if l == 1 { 33.0 } else { 17.0 };
        assert!(per <= max + 1e-9, "L={l}: {per} cycles per LTP");
    }
}

/// A far end sending one beat per cycle (up to 4 XFRs per cycle, against 33 per 17 cycles),
/// then a gap and two LTPs at the striper's pace.
fn overflow(b: &mut dyn Backend, mask: u8) -> usize {
    let mut rng = BenchRng::new(mask as u64 + 100);
    let mut sent = vec![];
    let mut cycles: Vec<Cycle> = vec![(mask, Beat::default())];
    let burst = segment(&mut rng, mask, 6, Fault::None, 0.0, &mut vec![]);
    cycles.extend(burst.into_iter().filter(|c| c.1.valid != 0));
    for _ in 0..40 {
        cycles.push((mask, Beat::default()));
    }
    cycles.extend(segment(&mut rng, mask, 2, Fault::None, 0.0, &mut sent));
    let (ends, events) = drive(b, &cycles, &[], &mut rng);
    let mut model = DeframerModel::new(mask);
    for (m, beat) in &cycles {
        model.cycle(*m, beat);
    }
    let tag = format!("overflow {mask:04b}");
    for (c, e) in model.events.iter().enumerate() {
        assert_eq!(events[c], *e, "{tag}: events of input cycle {c}");
    }
    assert_eq!(ends.len(), model.attempts.len(), "{tag}: number of ends");
    for (i, (e, a)) in ends.iter().zip(&model.attempts).enumerate() {
        if e.intact {
            let a = a
                .as_ref()
                .expect("intact end of an attempt the model calls bad");
            let f: Vec<u128> = e.flits.iter().map(|f| f.1).collect();
            assert_eq!(
                f,
                a.flits.to_vec(),
                "{tag}: end {i} intact with wrong flits"
            );
            assert_eq!((e.crc_diff, e.gcrc), (a.crc_diff, a.gcrc), "{tag}: end {i}");
        }
    }
    let bad = ends.iter().filter(|e| !e.intact).count();
    assert!(bad > 0, "{tag}: no overflow");
    // The two LTPs after the gap are intact.
    let tail = &ends[ends.len() - 2..];
    assert!(tail.iter().all(|e| e.intact), "{tag}: no recovery");
    for (e, s) in tail.iter().zip(&sent) {
        let f: Vec<u128> = e.flits.iter().map(|f| f.1).collect();
        assert_eq!(f, s.flits.to_vec(), "{tag}: flits after the gap");
    }
    bad
}

#[test]
fn ltp_deframer_overflow() {
    for mask in [0b1111u8, 0b0110, 0b1011] {
        let rep = run_both_seeds("ltp_deframer", &[0], Dut::default, table, |b, _| {
            overflow(b, mask)
        });
        println!(
            "ltp_deframer overflow {mask:04b}: {} bad attempts",
            rep[0].result
        );
    }
}

/// Three LTPs in time at the striper's pace, except that the beat with LTP 0's last XFR and the
/// next one come a cycle early (the idle cycle before each, or the last one before it, goes) (the reader then still holds LTP 0's last XFRs when the next
/// beat arrives), and that beat carries a spurious start flag in LTP 1 (XFR `l`): LTP 0 and 2
/// intact, LTP 1 and the attempt begun at the spurious flag bad.
fn lagging_early_start(b: &mut dyn Backend, mask: u8) -> usize {
    let mut rng = BenchRng::new(mask as u64 + 200);
    let lanes = active_lanes(mask);
    let l = lanes.len();
    let (ltps, mut sent) = back_to_back(&mut rng, l, 3);
    sent[1].intact = false;
    let mut beats = stripe(&ltps, mask);
    // The spurious flag: XFR 33 + l of the rotation (LTP 1's XFR l).
    let (bs, n) = ((33 + l) / l, (33 + l) % l);
    beats[bs].start |= 1 << lanes[n];
    // The striper's pace (as `dense`), then the two beats a cycle early.
    let mut cycles: Vec<Cycle> = vec![(mask, Beat::default())];
    let (mut next, mut sent_xfrs) = (0usize, 0usize);
    for c in 0.. {
        let have = striper_xfrs(c).min(3 * 33);
        if next < beats.len() && have - sent_xfrs >= beats[next].valid.count_ones() as usize {
            sent_xfrs += beats[next].valid.count_ones() as usize;
            cycles.push((mask, beats[next]));
            next += 1;
        } else {
            cycles.push((mask, Beat::default()));
        }
        if next == beats.len() {
            break;
        }
    }
    for bi in [32 / l, bs] {
        let at = cycles
            .iter()
            .enumerate()
            .filter(|(_, c)| c.1.valid != 0)
            .nth(bi)
            .unwrap()
            .0;
        let idle = (0..at).rev().find(|&c| cycles[c].1.valid == 0).unwrap();
        cycles.remove(idle);
    }
    let (ends, events) = drive(b, &cycles, &[], &mut rng);
    check(
        &cycles,
        &sent,
        &ends,
        &events,
        &format!("lagging early start {mask:04b}"),
    );
    ends.len()
}

#[test]
fn ltp_deframer_lagging_early_start() {
    for mask in [0b1111u8, 0b0111, 0b1010] {
        run_both_seeds("ltp_deframer", &[0], Dut::default, table, |b, _| {
            lagging_early_start(b, mask)
        });
    }
}

/// The model's view of a run with resets: per segment between resets (the first cycle of the
/// pulse that ends it, the attempts begun in it), and the events of every input cycle.
fn model_with_resets(
    cycles: &[Cycle],
    resets: &[bool],
) -> (Vec<(usize, Vec<Attempt>)>, Vec<Events>) {
    let mut model = DeframerModel::new(cycles[0].0);
    let mut segments = vec![];
    let mut events = vec![];
    for (c, (m, beat)) in cycles.iter().enumerate() {
        let reset_now = resets[c];
        if reset_now && (c == 0 || !resets[c - 1]) {
            segments.push((c, std::mem::take(&mut model.attempts)));
        }
        // A reset drops the beat of its cycle and of the cycle before (first pipeline stage).
        if reset_now || resets.get(c + 1).copied().unwrap_or(false) {
            if reset_now {
                model.reset(*m);
            }
            events.push(Events::default());
            continue;
        }
        model.cycle(*m, beat);
        events.push(*model.events.last().expect("an event per cycle"));
    }
    segments.push((usize::MAX, model.attempts));
    (segments, events)
}

/// Checks one end against the model's attempt.
fn check_end(e: &EndRec, a: &Attempt, tag: &str) {
    match a {
        None => assert!(!e.intact, "{tag}: intact, model says bad"),
        Some(a) => {
            assert_eq!(
                (e.intact, e.crc_diff, e.state, e.gcrc),
                (a.intact, a.crc_diff, a.state, a.gcrc),
                "{tag} at cycle {} (intact, crc_diff, state, gcrc)",
                e.cycle
            );
            let want: Vec<(u8, u128)> = a
                .flits
                .iter()
                .enumerate()
                .map(|(k, f)| (k as u8, *f))
                .collect();
            assert_eq!(e.flits, want, "{tag}: flits");
        }
    }
}

/// Clean and faulty segments with resets at random moments; returns (pulses, ends checked).
fn resets(b: &mut dyn Backend, seed: u64) -> (u64, usize) {
    let mut rng = BenchRng::new(seed);
    let mut sent = vec![];
    let mut cycles = vec![];
    let all = [
        Fault::None,
        Fault::Flip,
        Fault::DropBeat,
        Fault::LostStart,
        Fault::SpuriousStart,
        Fault::WrongState,
    ];
    for &m in &[0b1111u8, 0b1011, 0b0011, 0b0001, 0b0110] {
        for &f in &all {
            cycles.extend(segment(&mut rng, m, 3, f, 0.3, &mut sent));
            cycles.push((m, Beat::default()));
        }
    }
    let mut sched = ResetSchedule::new(&mut rng, 150);
    let mut resets: Vec<bool> = (0..cycles.len())
        .map(|c| sched.next_if(&mut rng, c + 10 < cycles.len()))
        .collect();
    resets.resize(cycles.len() + 60, false);
    let (ends, events) = drive(b, &cycles, &resets, &mut rng);
    let (segments, want_events) = model_with_resets(&cycles, &resets[..cycles.len()]);
    let tag = format!("resets seed {seed}");
    // Events, two cycles late; none during a pulse (the reset clears them).
    for (c, e) in want_events.iter().enumerate() {
        assert_eq!(events[c], *e, "{tag}: events of input cycle {c}");
    }
    for e in &events[want_events.len()..] {
        assert_eq!(*e, Events::default(), "{tag}: events after the input");
    }
    // Ends: those reported up to a pulse's first cycle belong to the segment it ends (a prefix
    // of its attempts); none during or right after the pulse.
    let mut rest = &ends[..];
    for (i, (until, attempts)) in segments.iter().enumerate() {
        let n = rest
            .iter()
            .take_while(|e| e.cycle as usize <= *until)
            .count();
        let (mine, later) = rest.split_at(n);
        if *until == usize::MAX {
            assert_eq!(
                mine.len(),
                attempts.len(),
                "{tag}: ends of the last segment"
            );
        } else {
            assert!(
                mine.len() <= attempts.len(),
                "{tag}: segment {i} reported {} ends, the model has {} attempts",
                mine.len(),
                attempts.len()
            );
            // The pulse and the cycle after it report nothing.
            let mut pulse_end = *until;
            while resets[pulse_end] {
                pulse_end += 1;
            }
            assert!(
                later.first().is_none_or(|e| e.cycle as usize > pulse_end),
                "{tag}: an end reported during reset at cycle {until}"
            );
        }
        for (k, (e, a)) in mine.iter().zip(attempts).enumerate() {
            check_end(e, a, &format!("{tag}: segment {i} end {k}"));
        }
        rest = later;
    }
    sched.assert_pulses(&tag, 10);
    (sched.pulses(), ends.len())
}

#[test]
fn ltp_deframer_resets_under_traffic() {
    let rep = run_both_seeds("ltp_deframer", &[7, 8], Dut::default, table, resets);
    for r in &rep {
        assert!(r.result.1 > 20, "too few ends checked: {:?}", r.result);
    }
}
