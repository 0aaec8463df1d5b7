//! The lane gearboxes (`hdl::llp::gearbox`) against their Rust model (`split_xfr`,
//! `RxGearboxModel`) on both backends, every output every cycle:
//! - `TxGearbox<64>`: random beats (any valid lanes, `start` on some) offered every cycle;
//!   in a cycle with `slot` high the beat is taken and each valid lane sends its first half
//!   (`start` high), and in the next cycle (`slot` low) the second halves with the XFRs' own
//!   `start`; a cycle with nothing valid keeps `slot` high. Random reset pulses drop a pending
//!   second half.
//! - `RxGearbox<64>`: the halves of random XFR beats, with transfers lost (`valid` low),
//!   garbage transfers (`valid` high, random `start`) in the gaps and random resets: each lane
//!   pairs on its own exactly as the model does, so a lost half costs only the XFR it belonged
//!   to and the lane reframes on the next first half.
//! - At 32-bit lanes (`LD` = 128) both are wires and `slot` is always high.
use hdl::llp::gearbox::{rx::RxGearbox, split_xfr, tx::TxGearbox, RxGearboxModel};
use testbench::{port_table, run_both_seeds, Backend, BenchRng, PortTable};

fn random_beat(rng: &mut BenchRng) -> (u8, u8, [u32; 4]) {
    let valid = if rng.chance(0.2) {
        0
    } else {
        rng.bits(4) as u8
    };
    let start = rng.bits(4) as u8;
    (valid, start, std::array::from_fn(|_| rng.bits(32) as u32))
}

fn bus32(data: &[u32; 4]) -> u128 {
    (0..4).fold(0, |a, n| a | (data[n] as u128) << (32 * n))
}

/// Returns (beats taken, second-half cycles).
fn tx_bench(b: &mut dyn Backend, seed: u64, wide: bool) -> (u64, u64) {
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(n);
    let (reset, xv, xs, xd) = (p("reset"), p("xfrs$valid"), p("xfrs$start"), p("xfrs$data"));
    let (lv, ls, ld, slot) = (
        p("lanes$valid"),
        p("lanes$start"),
        p("lanes$data"),
        p("slot"),
    );
    // The model: the second halves still to send (valid, start, halves).
    let mut pending: Option<(u8, u8, [u16; 4])> = None;
    let (mut taken, mut seconds) = (0, 0);
    for cycle in 0..20_000u64 {
        let (valid, start, data) = random_beat(&mut rng);
        let rst = rng.chance(0.002);
        b.poke_bool(reset, rst);
        b.poke(xv, valid as u128);
        b.poke(xs, start as u128);
        b.poke(xd, bus32(&data));
        let (gv, gs, gd, gslot) = (
            b.peek(lv) as u8,
            b.peek(ls) as u8,
            b.peek(ld),
            b.peek_bool(slot),
        );
        let what = format!("seed {seed} cycle {cycle}");
        if wide {
            assert_eq!(
                (gv, gs, gd, gslot),
                (valid, start, bus32(&data), true),
                "{what}"
            );
        } else if let Some((pv, ps, halves)) = pending.take() {
            assert!(!gslot, "{what}: slot during a second half");
            assert_eq!((gv, gs), (pv, ps), "{what}: second halves' flags");
            for n in (0..4).filter(|n| pv >> n & 1 == 1) {
                assert_eq!(
                    (gd >> (16 * n)) as u16,
                    halves[n],
                    "{what}: lane {n} second half"
                );
            }
            seconds += 1;
        } else {
            assert!(gslot, "{what}: no slot with nothing pending");
            assert_eq!((gv, gs), (valid, valid), "{what}: first halves' flags");
            // The second halves' flags and data, as the model splits each XFR.
            let (mut upper, mut upper_start) = ([0u16; 4], 0u8);
            for n in (0..4).filter(|n| valid >> n & 1 == 1) {
                let [(_, _, low), (_, s, high)] = split_xfr(start >> n & 1 == 1, data[n]);
                assert_eq!((gd >> (16 * n)) as u16, low, "{what}: lane {n} first half");
                upper[n] = high;
                upper_start |= (s as u8) << n;
            }
            if valid != 0 {
                pending = Some((valid, upper_start, upper));
                taken += 1;
            }
        }
        if rst {
            pending = None;
        }
        b.tick();
    }
    (taken, seconds)
}

/// Returns (XFRs completed, transfers lost, garbage transfers).
fn rx_bench(b: &mut dyn Backend, seed: u64, wide: bool) -> (u64, u64, u64) {
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(n);
    let (reset, lv, ls, ld) = (
        p("reset"),
        p("lanes$valid"),
        p("lanes$start"),
        p("lanes$data"),
    );
    let (xv, xs, xd) = (p("xfrs$valid"), p("xfrs$start"), p("xfrs$data"));
    let mut lanes = [RxGearboxModel::default(); 4];
    // Per lane, the transfers still to send of the XFR in progress.
    let mut queued: [Vec<(bool, bool, u16)>; 4] = Default::default();
    let (mut done, mut lost, mut garbage) = (0, 0, 0);
    let width = if wide { 32 } else { 16 };
    for cycle in 0..20_000u64 {
        let rst = rng.chance(0.002);
        let (mut valid, mut start, mut data) = (0u8, 0u8, 0u128);
        for n in 0..4 {
            if queued[n].is_empty() && rng.chance(0.8) {
                let mut halves = split_xfr(rng.chance(0.2), rng.bits(32) as u32).to_vec();
                halves.reverse();
                queued[n] = halves;
            }
            let (v, s, d) = match queued[n].pop() {
                Some((v, s, d)) if rng.chance(0.03) => {
                    lost += 1;
                    (!v, s, d)
                }
                Some(t) => t,
                None if rng.chance(0.3) => {
                    garbage += 1;
                    (true, rng.chance(0.5), rng.bits(16) as u16)
                }
                None => (false, false, 0),
            };
            let d = if wide { rng.bits(32) } else { d as u128 };
            valid |= (v as u8) << n;
            start |= (s as u8) << n;
            data |= d << (width * n);
        }
        b.poke_bool(reset, rst);
        b.poke(lv, valid as u128);
        b.poke(ls, start as u128);
        b.poke(ld, data);
        let (gv, gs, gd) = (b.peek(xv) as u8, b.peek(xs) as u8, b.peek(xd));
        let what = format!("seed {seed} cycle {cycle}");
        if wide {
            assert_eq!((gv, gs, gd), (valid, start, data), "{what}");
            continue_tick(b, &mut lanes, rst);
            continue;
        }
        for (n, lane) in lanes.iter_mut().enumerate() {
            let want = lane.step(
                valid >> n & 1 == 1,
                start >> n & 1 == 1,
                (data >> (16 * n)) as u16,
            );
            let got = (gv >> n & 1 == 1).then_some((gs >> n & 1 == 1, (gd >> (32 * n)) as u32));
            assert_eq!(got, want, "{what}: lane {n}");
            done += got.is_some() as u64;
        }
        continue_tick(b, &mut lanes, rst);
    }
    (done, lost, garbage)
}

/// The edge; a reset empties every lane.
fn continue_tick(b: &mut dyn Backend, lanes: &mut [RxGearboxModel; 4], reset: bool) {
    if reset {
        *lanes = Default::default();
    }
    b.tick();
}

#[test]
fn tx_gearbox_matches_model() {
    let table = || -> PortTable<TxGearbox<64>> {
        port_table!(TxGearbox<64>; reset, xfrs.valid, xfrs.start, xfrs.data, lanes.valid, lanes.start, lanes.data, slot)
    };
    let rep = run_both_seeds(
        "tx_gearbox",
        &[1, 2],
        TxGearbox::<64>::default,
        table,
        |b, s| tx_bench(b, s, false),
    );
    for r in &rep {
        let (taken, seconds) = r.result;
        assert!(taken > 5_000 && seconds > 5_000, "{:?}", r.result);
    }
    let table = || -> PortTable<TxGearbox<128>> {
        port_table!(TxGearbox<128>; reset, xfrs.valid, xfrs.start, xfrs.data, lanes.valid, lanes.start, lanes.data, slot)
    };
    run_both_seeds(
        "tx_gearbox_wide",
        &[3],
        TxGearbox::<128>::default,
        table,
        |b, s| tx_bench(b, s, true),
    );
}

#[test]
fn rx_gearbox_matches_model() {
    let table = || -> PortTable<RxGearbox<64>> {
        port_table!(RxGearbox<64>; reset, lanes.valid, lanes.start, lanes.data, xfrs.valid, xfrs.start, xfrs.data)
    };
    let rep = run_both_seeds(
        "rx_gearbox",
        &[1, 2],
        RxGearbox::<64>::default,
        table,
        |b, s| rx_bench(b, s, false),
    );
    for r in &rep {
        let (done, lost, garbage) = r.result;
        assert!(
            done > 20_000 && lost > 1_000 && garbage > 1_000,
            "{:?}",
            r.result
        );
    }
    let table = || -> PortTable<RxGearbox<128>> {
        port_table!(RxGearbox<128>; reset, lanes.valid, lanes.start, lanes.data, xfrs.valid, xfrs.start, xfrs.data)
    };
    run_both_seeds(
        "rx_gearbox_wide",
        &[3],
        RxGearbox::<128>::default,
        table,
        |b, s| rx_bench(b, s, true),
    );
}
