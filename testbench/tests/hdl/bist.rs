//! The link BIST's blocks against their models (`testbench::models::bist`), cycle by cycle on
//! both backends: `BistLanes` (PRBS-31 senders and self-synchronising checkers) and
//! `BistControl` (the run's sequence).
//!
//! `BistLanes` is fed by a far-end sender written here in plain Rust (its own PRBS per lane from
//! `prbs31_next`, random gaps) with faults injected on chosen lanes: bit flips on one lane (the
//! count must land on that lane alone, between one and two per flip, and `clean` must fall),
//! training words (`start` high, ignored), a lane stuck at zero and a lane that dies (counted
//! by the silence rule); then random inputs and resets against the model.
//!
//! `BistControl`: runs that pass, runs the far end never joins (`absent` after the ask
//! timeout), runs it leaves, runs stopped in both states, the send duty per intensity; then
//! random inputs and resets against the model.
use hdl::llp::bist::bist_control::BistControl;
use hdl::llp::bist::bist_lanes::BistLanes;
use hdl::llp::bist::{prbs31_next, SILENCE_LIMIT};
use testbench::backend::PortId;
use testbench::models::bist::{BistControlModel, BistLanesModel, LanesOut};
use testbench::{port_table, run_both, Backend, BenchRng};

/// The ports of `BistLanes`.
struct LanesPorts {
    reset: PortId,
    send: PortId,
    check: PortId,
    tx_mask: PortId,
    rx_mask: PortId,
    in_valid: PortId,
    in_start: PortId,
    in_data: PortId,
    out_valid: PortId,
    out_start: PortId,
    out_data: PortId,
    errors: PortId,
    seen: PortId,
    clean: PortId,
    error_lanes: PortId,
}

/// One cycle's inputs of `BistLanes`.
#[derive(Clone, Copy, Default)]
struct LanesIn {
    reset: bool,
    send: bool,
    check: bool,
    tx_mask: u8,
    rx_mask: u8,
    valid: u8,
    start: u8,
    data: u128,
}

/// Drives the DUT and the model together and compares every output.
struct LanesRig<'a> {
    b: &'a mut dyn Backend,
    p: LanesPorts,
    model: BistLanesModel,
    cycle: u64,
}

impl LanesRig<'_> {
    fn cycle(&mut self, i: LanesIn) -> LanesOut {
        let b = &mut *self.b;
        let p = &self.p;
        b.poke_bool(p.reset, i.reset);
        b.poke_bool(p.send, i.send);
        b.poke_bool(p.check, i.check);
        b.poke(p.tx_mask, i.tx_mask as u128);
        b.poke(p.rx_mask, i.rx_mask as u128);
        b.poke(p.in_valid, i.valid as u128);
        b.poke(p.in_start, i.start as u128);
        b.poke(p.in_data, i.data);
        let want = self.model.step(
            i.reset, i.send, i.check, i.tx_mask, i.rx_mask, i.valid, i.start, i.data,
        );
        let got = LanesOut {
            valid: b.peek(p.out_valid) as u8,
            data: b.peek(p.out_data),
            errors: b.peek(p.errors) as u64,
            seen: b.peek(p.seen) as u8,
            clean: b.peek(p.clean) == 1,
            error_lanes: b.peek(p.error_lanes) as u8,
        };
        assert_eq!(
            b.peek(p.out_start),
            0,
            "cycle {}: start must stay low",
            self.cycle
        );
        assert_eq!(got, want, "cycle {}", self.cycle);
        b.tick();
        self.cycle += 1;
        got
    }
}

/// The far end's senders: one PRBS-31 per lane, seeds of its own.
struct FarSender {
    words: [u32; 4],
}

impl FarSender {
    fn new(rng: &mut BenchRng) -> Self {
        Self {
            words: std::array::from_fn(|_| (rng.bits(32) as u32) | 2),
        }
    }
    /// The lanes' words for a cycle that sends on `valid`; the senders on `valid` step.
    fn send(&mut self, valid: u8) -> u128 {
        let mut data = 0u128;
        for n in 0..4 {
            data |= (self.words[n] as u128) << (32 * n);
            if valid >> n & 1 == 1 {
                self.words[n] = prbs31_next(self.words[n]);
            }
        }
        data
    }
}

fn lane_count(errors: u64, n: usize) -> u64 {
    (errors >> (16 * n)) & 0xFFFF
}

fn lanes_bench(b: &mut dyn Backend) -> u64 {
    let p = LanesPorts {
        reset: b.port("reset"),
        send: b.port("send"),
        check: b.port("check"),
        tx_mask: b.port("tx_mask"),
        rx_mask: b.port("rx_mask"),
        in_valid: b.port("lanes_in$valid"),
        in_start: b.port("lanes_in$start"),
        in_data: b.port("lanes_in$data"),
        out_valid: b.port("lanes_out$valid"),
        out_start: b.port("lanes_out$start"),
        out_data: b.port("lanes_out$data"),
        errors: b.port("errors"),
        seen: b.port("seen"),
        clean: b.port("clean"),
        error_lanes: b.port("error_lanes"),
    };
    let mut rng = BenchRng::new(17);
    let mut rig = LanesRig {
        b,
        p,
        model: BistLanesModel::new(),
        cycle: 0,
    };
    let reset = LanesIn {
        reset: true,
        ..Default::default()
    };
    let mut total = 0;

    // 1. Bit flips on lane 2 only, training words on every lane now and then.
    rig.cycle(reset);
    let mut far = FarSender::new(&mut rng);
    let mut flips = 0;
    let mut last_flip = 0;
    rig.cycle(LanesIn::default());
    for c in 0..3000u64 {
        let training = rng.chance(0.02);
        let valid = if training {
            0xF
        } else {
            (rng.bits(4) as u8) | 1
        };
        let mut data = if training {
            rng.bits(128)
        } else {
            far.send(valid)
        };
        if !training && valid & 4 != 0 && c > last_flip + 8 && c > 20 && rng.chance(0.01) {
            data ^= 1u128 << (64 + rng.range(0, 32));
            flips += 1;
            last_flip = c;
        }
        rig.cycle(LanesIn {
            send: rng.chance(0.5),
            check: true,
            tx_mask: 0xF,
            rx_mask: 0xF,
            valid,
            start: if training { 0xF } else { 0 },
            data,
            ..Default::default()
        });
    }
    // One cycle without checking: the outputs then show the counts of the loop's last edge.
    let mut out = rig.cycle(LanesIn {
        rx_mask: 0xF,
        ..Default::default()
    });
    let lane2 = lane_count(out.errors, 2);
    assert!(flips >= 10, "too few flips injected: {flips}");
    assert!(
        (flips..=2 * flips).contains(&lane2),
        "lane 2: {lane2} errors for {flips} flips"
    );
    for n in [0, 1, 3] {
        assert_eq!(lane_count(out.errors, n), 0, "lane {n} charged an error");
    }
    assert_eq!(out.seen, 0xF);
    assert!(!out.clean, "errors on lane 2 must fail the run");
    total += lane2;

    // 2. A clean run passes; the same run over lanes 0 and 1 only passes too.
    rig.cycle(reset);
    let mut far = FarSender::new(&mut rng);
    for _ in 0..500 {
        let valid = rng.bits(4) as u8;
        let data = far.send(valid);
        rig.cycle(LanesIn {
            check: true,
            rx_mask: 0x3,
            valid,
            data,
            ..Default::default()
        });
    }
    out = rig.cycle(LanesIn {
        rx_mask: 0x3,
        ..Default::default()
    });
    assert_eq!(out.errors, 0);
    assert!(out.clean, "a clean run must pass");

    // 3. Lane 1 stuck at zero with valid, lane 3 dies after 100 cycles.
    rig.cycle(reset);
    let mut far = FarSender::new(&mut rng);
    for c in 0..1000u64 {
        let valid = if c < 100 { 0xF } else { 0x7 };
        let mut data = far.send(valid);
        data &= !(0xFFFF_FFFFu128 << 32);
        rig.cycle(LanesIn {
            check: true,
            rx_mask: 0xF,
            valid,
            data,
            ..Default::default()
        });
    }
    out = rig.cycle(LanesIn {
        rx_mask: 0xF,
        ..Default::default()
    });
    assert_eq!(lane_count(out.errors, 1), 1000, "a lane stuck at zero");
    assert_eq!(
        lane_count(out.errors, 3),
        900 / SILENCE_LIMIT as u64,
        "a dead lane: one error per silence limit"
    );
    assert_eq!(lane_count(out.errors, 0) + lane_count(out.errors, 2), 0);
    assert!(!out.clean);

    // 4. A lane that never receives fails the run.
    rig.cycle(reset);
    let mut far = FarSender::new(&mut rng);
    for _ in 0..50 {
        let data = far.send(0x1);
        out = rig.cycle(LanesIn {
            check: true,
            rx_mask: 0x3,
            valid: 0x1,
            data,
            ..Default::default()
        });
    }
    assert_eq!((out.seen, out.errors, out.clean), (0x1, 0, false));

    // 5. Random inputs, resets and garbage against the model.
    let mut far = FarSender::new(&mut rng);
    for _ in 0..20000 {
        let valid = rng.bits(4) as u8;
        let mut data = far.send(valid);
        if rng.chance(0.01) {
            data ^= rng.bits(128);
        }
        let o = rig.cycle(LanesIn {
            reset: rng.chance(0.002),
            send: rng.chance(0.6),
            check: rng.chance(0.95),
            tx_mask: rng.bits(4) as u8,
            rx_mask: rng.bits(4) as u8,
            valid,
            start: if rng.chance(0.02) {
                rng.bits(4) as u8
            } else {
                0
            },
            data,
        });
        total += o.errors & 0xFFFF;
    }
    total
}

#[test]
fn bist_lanes_match_model_and_name_the_bad_lane() {
    run_both(
        "bist_lanes",
        BistLanes::default,
        || {
            port_table!(BistLanes; reset, send, check, tx_mask, rx_mask, lanes_in.valid,
                lanes_in.start, lanes_in.data, lanes_out.valid, lanes_out.start, lanes_out.data,
                errors, seen, clean, error_lanes)
        },
        lanes_bench,
    );
}

const ASK_TIMEOUT: u32 = 40;

/// One cycle's inputs of `BistControl`.
#[derive(Clone, Copy, Default)]
struct ControlIn {
    reset: bool,
    start: bool,
    stop: bool,
    duration: u32,
    intensity: u32,
    bist_up: bool,
    clean: bool,
}

fn control_bench(b: &mut dyn Backend) -> u64 {
    let names = [
        "reset",
        "start",
        "stop",
        "duration",
        "intensity",
        "bist_up",
        "lanes_clean",
    ];
    let ins: Vec<PortId> = names.iter().map(|n| b.port(n)).collect();
    let outs: Vec<PortId> = [
        "want", "clear", "send", "check", "running", "done", "pass", "absent", "stopped", "state",
    ]
    .iter()
    .map(|n| b.port(n))
    .collect();
    let mut model = BistControlModel::new(ASK_TIMEOUT);
    let mut cycle = 0u64;
    let mut step = |b: &mut dyn Backend, i: ControlIn| {
        let v = [
            i.reset as u128,
            i.start as u128,
            i.stop as u128,
            i.duration as u128,
            i.intensity as u128,
            i.bist_up as u128,
            i.clean as u128,
        ];
        for (p, v) in ins.iter().zip(v) {
            b.poke(*p, v);
        }
        let w = model.step(
            i.reset,
            i.start,
            i.stop,
            i.duration,
            i.intensity,
            i.bist_up,
            i.clean,
        );
        let want = [
            w.want, w.clear, w.send, w.check, w.running, w.done, w.pass, w.absent, w.stopped,
        ];
        for (k, o) in outs.iter().enumerate().take(9) {
            assert_eq!(b.peek(*o) == 1, want[k], "cycle {cycle}: {}", k);
        }
        assert_eq!(b.peek(outs[9]) as u64, w.state, "cycle {cycle}: state");
        b.tick();
        cycle += 1;
        w
    };
    let idle = ControlIn {
        duration: 100,
        intensity: 3,
        clean: true,
        ..Default::default()
    };
    step(
        b,
        ControlIn {
            reset: true,
            ..idle
        },
    );
    // A run that passes: the far end joins after 10 cycles; 100 cycles of which 4 in 16 send.
    step(
        b,
        ControlIn {
            start: true,
            ..idle
        },
    );
    let mut sends = 0;
    let mut checks = 0;
    let mut c = 0;
    loop {
        let w = step(
            b,
            ControlIn {
                bist_up: c >= 10,
                ..idle
            },
        );
        sends += w.send as u32;
        checks += w.check as u32;
        if w.done {
            assert!(w.pass && !w.absent && !w.stopped && !w.want && !w.running);
            break;
        }
        assert!(w.want || c > 100, "want falls only at the end");
        c += 1;
        assert!(c < 200, "the run never ended");
    }
    assert_eq!(checks, 100);
    assert_eq!(sends, 6 * 4 + 4, "intensity 3: 4 words in every 16 cycles");
    // Lanes not clean: done, fail.
    step(
        b,
        ControlIn {
            start: true,
            ..idle
        },
    );
    let mut w = step(
        b,
        ControlIn {
            bist_up: true,
            ..idle
        },
    );
    while !w.done {
        w = step(
            b,
            ControlIn {
                bist_up: true,
                clean: false,
                ..idle
            },
        );
    }
    assert!(!w.pass && !w.absent);
    // The far end never joins: absent after the ask timeout.
    step(
        b,
        ControlIn {
            start: true,
            ..idle
        },
    );
    let mut n = 0;
    loop {
        let w = step(b, idle);
        if w.done {
            assert!(w.absent && !w.pass);
            break;
        }
        n += 1;
    }
    assert_eq!(n, ASK_TIMEOUT as u64 + 1);
    // The far end leaves mid-run; a stop in RUN; a stop in ASK.
    step(
        b,
        ControlIn {
            start: true,
            ..idle
        },
    );
    for _ in 0..20 {
        step(
            b,
            ControlIn {
                bist_up: true,
                ..idle
            },
        );
    }
    step(b, idle); // RUN: the far end left
    step(b, idle); // END
    let w = step(b, idle);
    assert!(w.done && w.absent && !w.pass);
    step(
        b,
        ControlIn {
            start: true,
            ..idle
        },
    );
    step(
        b,
        ControlIn {
            bist_up: true,
            ..idle
        },
    );
    step(
        b,
        ControlIn {
            bist_up: true,
            stop: true,
            ..idle
        },
    );
    step(
        b,
        ControlIn {
            bist_up: true,
            ..idle
        },
    );
    let w = step(
        b,
        ControlIn {
            bist_up: true,
            ..idle
        },
    );
    assert!(w.done && w.stopped && !w.pass && !w.want);
    step(
        b,
        ControlIn {
            start: true,
            ..idle
        },
    );
    step(b, ControlIn { stop: true, ..idle });
    step(b, idle);
    let w = step(b, idle);
    assert!(w.done && w.stopped && !w.absent);
    // Random inputs against the model.
    let mut rng = BenchRng::new(5);
    let mut done = 0;
    let mut up = false;
    for _ in 0..20000 {
        if rng.chance(0.05) {
            up = !up;
        }
        let w = step(
            b,
            ControlIn {
                reset: rng.chance(0.002),
                start: rng.chance(0.03),
                stop: rng.chance(0.005),
                duration: rng.range(1, 60) as u32,
                intensity: rng.bits(4) as u32,
                bist_up: up,
                clean: rng.chance(0.8),
            },
        );
        done += w.done as u64;
    }
    done
}

#[test]
fn bist_control_matches_model() {
    run_both(
        "bist_control",
        || BistControl::new(ASK_TIMEOUT),
        || {
            port_table!(BistControl; reset, start, stop, duration, intensity, bist_up,
                lanes_clean, want, clear, send, check, running, done, pass, absent, stopped, state)
        },
        control_bench,
    );
}
