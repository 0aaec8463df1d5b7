//! LinkTrainer against `testbench::models::link_trainer` (every output, every cycle), on both
//! backends.
//!
//! 1. `link_trainer_matches_model`: the far end is a second model trainer behind a wire of
//!    1..4 cycles; its TS stream reaches the DUT through per-lane faults redrawn every few
//!    hundred cycles (a lane stuck at a constant with valid high, among them a well-formed TS
//!    word, garbage with valid high, a
//!    dead lane, dropped words, random start bits, lanes 1 and 2 crossed, everything dead for a
//!    while), with random `from_striper` beats, random `quiet`, random `link_fail` pulses and
//!    random resets of both ends. The bench asserts that each mechanism happened (went up,
//!    link_fail and far-end takedowns, READY timeouts, resets).
//! 2. `link_trainer_back_to_back`: the DUT against a model trainer through two 3-cycle wires,
//!    scenario by scenario, each bring-up asserted within [`BRING_UP_BOUND`] cycles and printed;
//!    masks crossed (tx_mask of one = rx_mask of the other), identities exchanged, lane 2
//!    stuck at 0xFFFFFFFF in one direction excluded in that direction only, one end reset
//!    while up (the survivor goes down, counts a far down, and reports far_fresh = 1 at its
//!    went_up while the reset end reports 0), link_fail on one end retraining both, and an end
//!    powered up 5,000 cycles after the other.
//! 3. `link_trainer_lints_clean`: `verilator --lint-only -Wall` on the emitted Verilog with the
//!    project's waiver file (`flow/lint/verilator.vlt`, each waiver justified there).
//!
//! Reset (the doc: "after reset: SEEK, own fresh = 1"): random pulses in run 1 and explicit
//! ones in run 2; the model restarts with the DUT and every output is compared after it, and
//! run 2 checks the fresh bit each end reports after a reset.
use hdl::llp::train::ts_word::{ts_encode, TsFields};
use hdl::llp::train::LinkTrainer;
use std::collections::VecDeque;
use testbench::models::link_trainer::{Lanes, LinkTrainerModel, TrainerInputs, TrainerOutputs};
use testbench::{port_table, run_both, run_both_seeds, Backend, BenchRng, PortId, PortTable};

type Dut = LinkTrainer;
/// READY timeout of every trainer in these benches.
const TIMEOUT: u16 = 200;
/// Cycles from both ends leaving reset (or the event that took the link down) to both up.
const BRING_UP_BOUND: u64 = 120;

fn table() -> PortTable<Dut> {
    port_table!(Dut; reset, from_striper.valid, from_striper.start, from_striper.data,
        lanes_out.valid, lanes_out.start, lanes_out.data, lanes_in.valid, lanes_in.start,
        lanes_in.data, to_deframer.valid, to_deframer.start, to_deframer.data, chip_type, chip_id,
        port_number, allowed, tx_slot, link_fail, quiet, up, went_up, far_fresh, tx_mask, rx_mask, rx_good, state,
        far_chip_type, far_chip_id, far_port, far_known, trainings, far_downs)
}

/// A lane bundle's three ports.
struct LanePorts(PortId, PortId, PortId);

impl LanePorts {
    fn new(b: &dyn Backend, name: &str) -> Self {
        Self(
            b.port(&format!("{name}$valid")),
            b.port(&format!("{name}$start")),
            b.port(&format!("{name}$data")),
        )
    }
    fn poke(&self, b: &mut dyn Backend, l: &Lanes) {
        b.poke(self.0, l.valid as u128);
        b.poke(self.1, l.start as u128);
        b.poke(self.2, l.data_bus());
    }
    fn peek(&self, b: &mut dyn Backend) -> Lanes {
        Lanes::from_bus(b.peek(self.0) as u8, b.peek(self.1) as u8, b.peek(self.2))
    }
}

/// The DUT with its reference model: every cycle the DUT's outputs must equal the model's.
struct DutEnd {
    reset: PortId,
    from_striper: LanePorts,
    lanes_out: LanePorts,
    lanes_in: LanePorts,
    to_deframer: LanePorts,
    scalars_in: [PortId; 5],
    allowed: PortId,
    tx_slot: PortId,
    scalars_out: [PortId; 13],
    model: LinkTrainerModel,
    cycle: u64,
}

impl DutEnd {
    /// The DUT end, its model taking `xfr_cycles` cycles per XFR as the DUT was built.
    fn new(b: &dyn Backend, xfr_cycles: u8) -> Self {
        Self {
            reset: b.port("reset"),
            from_striper: LanePorts::new(b, "from_striper"),
            lanes_out: LanePorts::new(b, "lanes_out"),
            lanes_in: LanePorts::new(b, "lanes_in"),
            to_deframer: LanePorts::new(b, "to_deframer"),
            scalars_in: ["chip_type", "chip_id", "port_number", "link_fail", "quiet"]
                .map(|n| b.port(n)),
            allowed: b.port("allowed"),
            tx_slot: b.port("tx_slot"),
            scalars_out: [
                "up",
                "went_up",
                "far_fresh",
                "tx_mask",
                "rx_mask",
                "rx_good",
                "state",
                "far_chip_type",
                "far_chip_id",
                "far_port",
                "far_known",
                "trainings",
                "far_downs",
            ]
            .map(|n| b.port(n)),
            model: LinkTrainerModel::with_xfr_cycles(TIMEOUT, xfr_cycles),
            cycle: 0,
        }
    }

    /// One cycle with inputs `i`: the DUT's outputs (checked against the model's), then the
    /// rising edge.
    fn cycle(&mut self, b: &mut dyn Backend, i: &TrainerInputs, what: &str) -> TrainerOutputs {
        b.poke_bool(self.reset, i.reset);
        self.from_striper.poke(b, &i.from_striper);
        self.lanes_in.poke(b, &i.lanes_in);
        let [ct, id, pn, lf, q] = self.scalars_in;
        b.poke(ct, i.chip_type as u128);
        b.poke(id, i.chip_id as u128);
        b.poke(pn, i.port_number as u128);
        b.poke_bool(lf, i.link_fail);
        b.poke_bool(q, i.quiet);
        // Every lane allowed: the model has no lane restriction (the endpoint's two-endpoint
        // bench runs a 2-lane link, where `allowed` matters).
        b.poke(self.allowed, 0xf);
        b.poke_bool(self.tx_slot, !i.tx_wait);
        let s: Vec<u128> = self.scalars_out.iter().map(|&p| b.peek(p)).collect();
        let got = TrainerOutputs {
            lanes_out: self.lanes_out.peek(b),
            to_deframer: self.to_deframer.peek(b),
            up: s[0] == 1,
            went_up: s[1] == 1,
            far_fresh: s[2] == 1,
            tx_mask: s[3] as u8,
            rx_mask: s[4] as u8,
            rx_good: s[5] as u8,
            state: s[6] as u8,
            far_chip_type: s[7] as u8,
            far_chip_id: s[8] as u16,
            far_port: s[9] as u8,
            far_known: s[10] == 1,
            trainings: s[11] as u16,
            far_downs: s[12] as u16,
        };
        let want = self.model.step(i);
        assert_eq!(
            got, want,
            "{what}, cycle {}: DUT (left) differs from the model (right); inputs {i:x?}",
            self.cycle
        );
        b.tick();
        self.cycle += 1;
        got
    }
}

/// One direction of the wire: a fixed delay.
struct Wire(VecDeque<Lanes>);

impl Wire {
    fn new(delay: usize) -> Self {
        Self((0..delay).map(|_| Lanes::default()).collect())
    }
    /// What arrives this cycle.
    fn out(&self) -> Lanes {
        self.0[0]
    }
    /// The edge: `sent` enters the wire.
    fn shift(&mut self, sent: Lanes) {
        self.0.pop_front();
        self.0.push_back(sent);
    }
}

/// A fault of one lane in the far end -> DUT direction.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fault {
    None,
    /// Constant data, valid and start high.
    Stuck(u32),
    /// Random data, valid and start high.
    Garbage,
    /// Valid low.
    Dead,
    /// Each word lost with this probability.
    Drops(f64),
    /// The start bit random.
    RandomStart,
}

fn random_fault(rng: &mut BenchRng, lane: usize) -> Fault {
    match rng.range(0, 10) {
        // Stuck at a well-formed TS word of this lane: only the word index sequence fails.
        9 => Fault::Stuck(ts_encode(&TsFields {
            index: rng.range(0, 3) as u8,
            lane: lane as u8,
            fresh: rng.chance(0.5),
            ready: rng.chance(0.5),
            mask: rng.bits(4) as u8,
            payload: rng.bits(8) as u8,
        })),
        0 => Fault::Stuck(if rng.chance(0.5) {
            0xFFFF_FFFF
        } else {
            rng.bits(32) as u32
        }),
        1 => Fault::Garbage,
        2 => Fault::Dead,
        3 => Fault::Drops(0.05 + 0.3 * rng.bits(8) as f64 / 255.0),
        4 => Fault::RandomStart,
        _ => Fault::None,
    }
}

fn apply_faults(l: &mut Lanes, faults: &[Fault; 4], crossed: bool, rng: &mut BenchRng) {
    if crossed {
        l.data.swap(1, 2);
    }
    for (n, f) in faults.iter().enumerate() {
        let bit = 1u8 << n;
        match *f {
            Fault::None => {}
            Fault::Stuck(v) => {
                l.valid |= bit;
                l.start |= bit;
                l.data[n] = v;
            }
            Fault::Garbage => {
                l.valid |= bit;
                l.start |= bit;
                l.data[n] = rng.bits(32) as u32;
            }
            Fault::Dead => l.valid &= !bit,
            Fault::Drops(p) => {
                if rng.chance(p) {
                    l.valid &= !bit;
                }
            }
            Fault::RandomStart => {
                if rng.chance(0.5) {
                    l.start ^= bit;
                }
            }
        }
    }
}

fn random_lanes(rng: &mut BenchRng) -> Lanes {
    Lanes::from_bus(rng.bits(4) as u8, rng.bits(4) as u8, rng.bits(128))
}

/// What run 1 saw: (cycles, DUT went_up pulses, DUT link_fail takedowns, DUT far takedowns,
/// DUT READY timeouts, DUT resets).
type Coverage = (u64, u64, u64, u64, u64, u64);

/// The random run. `xfr_cycles` 2 is a wire of 16-bit lanes as the trainer sees it through
/// the gearboxes: each end's wire takes a word every second cycle (`tx_wait` toggles), and
/// a cycle it does not take carries nothing.
fn random_bench(b: &mut dyn Backend, seed: u64, cycles: u64, xfr_cycles: u8) -> Coverage {
    let mut rng = BenchRng::new(seed);
    let mut dut = DutEnd::new(b, xfr_cycles);
    let mut far = LinkTrainerModel::with_xfr_cycles(TIMEOUT, xfr_cycles);
    let (mut dut_wait, mut far_wait) = (false, xfr_cycles == 2 && rng.chance(0.5));
    let delay = rng.range(1, 4) as usize;
    let (mut to_far, mut to_dut) = (Wire::new(delay), Wire::new(delay));
    let mut faults = [Fault::None; 4];
    let (mut crossed, mut blackout) = (false, false);
    let mut segment_left = 0u64;
    let mut quiet_rate = 1.0;
    let (mut dut_reset_left, mut far_reset_left) = (2u64, 2u64);
    let mut last: Option<TrainerOutputs> = None;
    let mut cov = (0, 0, 0, 0, 0, 0);
    for _ in 0..cycles {
        if segment_left == 0 {
            segment_left = rng.range(200, 2500);
            let clean = rng.chance(0.3);
            faults = std::array::from_fn(|n| {
                if clean {
                    Fault::None
                } else {
                    random_fault(&mut rng, n)
                }
            });
            crossed = !clean && rng.chance(0.1);
            blackout = !clean && rng.chance(0.05);
            quiet_rate = [1.0, 0.5, 0.05][rng.range(0, 2) as usize];
        }
        segment_left -= 1;
        if dut_reset_left == 0 && rng.chance(1.0 / 4000.0) {
            dut_reset_left = rng.range(1, 3);
        }
        if far_reset_left == 0 && rng.chance(1.0 / 5000.0) {
            far_reset_left = rng.range(1, 3);
        }
        let mut arriving = to_dut.out();
        apply_faults(&mut arriving, &faults, crossed, &mut rng);
        if blackout {
            arriving.valid = 0;
        }
        let i = TrainerInputs {
            reset: dut_reset_left > 0,
            from_striper: random_lanes(&mut rng),
            lanes_in: arriving,
            chip_type: 0x3C,
            chip_id: 0x1234,
            port_number: rng.range(0, 1) as u8 + 7,
            link_fail: rng.chance(0.001),
            quiet: rng.chance(quiet_rate),
            tx_wait: dut_wait,
        };
        let far_i = TrainerInputs {
            reset: far_reset_left > 0,
            from_striper: random_lanes(&mut rng),
            lanes_in: to_far.out(),
            chip_type: 0xA5,
            chip_id: rng.range(0xBEEF, 0xBEF0) as u16,
            port_number: 3,
            link_fail: rng.chance(0.0005),
            quiet: rng.chance(0.9),
            tx_wait: far_wait,
        };
        if i.reset {
            cov.5 += 1;
        }
        let o = dut.cycle(b, &i, "random run");
        let fo = far.step(&far_i);
        let sent = |l: Lanes, wait: bool| if wait { Lanes::default() } else { l };
        to_far.shift(sent(o.lanes_out, dut_wait));
        to_dut.shift(sent(fo.lanes_out, far_wait));
        if xfr_cycles == 2 {
            dut_wait = !dut_wait;
            far_wait = !far_wait;
        }
        dut_reset_left = dut_reset_left.saturating_sub(1);
        far_reset_left = far_reset_left.saturating_sub(1);
        if let Some(p) = last {
            cov.1 += o.went_up as u64;
            if p.state == 2 && o.state == 0 && !i.reset {
                if o.far_downs != p.far_downs {
                    cov.3 += 1;
                } else {
                    cov.2 += 1;
                }
            }
            if p.state == 1 && o.state == 0 {
                cov.4 += 1;
            }
        }
        last = Some(o);
        cov.0 += 1;
    }
    cov
}

#[test]
fn link_trainer_matches_model() {
    let cycles = 30_000;
    let reps = run_both_seeds(
        "link_trainer",
        &[1, 2],
        || Dut::new(TIMEOUT, 1),
        table,
        |b, s| random_bench(b, s, cycles, 1),
    );
    check_coverage(&reps.iter().map(|r| r.result).collect::<Vec<_>>());
}

/// The same on 16-bit lanes: a word every second cycle each way, the checkers tolerating one
/// empty cycle between words and no more.
#[test]
fn link_trainer_matches_model_on_16_bit_lanes() {
    let reps = run_both_seeds(
        "link_trainer_16",
        &[3],
        || Dut::new(TIMEOUT, 2),
        table,
        |b, s| random_bench(b, s, 30_000, 2),
    );
    check_coverage(&reps.iter().map(|r| r.result).collect::<Vec<_>>());
}

fn check_coverage(results: &[Coverage]) {
    for r in results {
        let (n, ups, fails, fars, timeouts, resets) = *r;
        println!(
            "link_trainer random: {n} cycles, {ups} went_up, {fails} link_fail downs, {fars} far downs, {timeouts} READY timeouts, {resets} reset cycles"
        );
        assert!(ups >= 5, "too few bring-ups: {r:?}");
        assert!(fails >= 1 && fars >= 1, "no takedown of some kind: {r:?}");
        assert!(timeouts >= 1, "no READY timeout: {r:?}");
        assert!(resets >= 2, "too few resets: {r:?}");
    }
}

/// The back-to-back pair: the DUT (end A) and a model trainer (end B), wires of 3 cycles.
struct Pair {
    a: DutEnd,
    b: LinkTrainerModel,
    ab: Wire,
    ba: Wire,
    rng: BenchRng,
    a_in: TrainerInputs,
    b_in: TrainerInputs,
    /// Lane stuck at 0xFFFFFFFF (valid high) in the A -> B direction.
    stuck_ab: Option<usize>,
    /// ... in the B -> A direction.
    stuck_ba: Option<usize>,
    /// B is powered off: its outputs are dead and it is held in reset.
    b_off: bool,
    oa: TrainerOutputs,
    ob: TrainerOutputs,
    /// Cycles run.
    cycle: u64,
}

const A_ID: (u8, u16, u8) = (0x11, 0xA1B2, 5);
const B_ID: (u8, u16, u8) = (0x22, 0xC3D4, 9);

fn stick(l: &mut Lanes, lane: Option<usize>) {
    if let Some(n) = lane {
        l.valid |= 1 << n;
        l.start |= 1 << n;
        l.data[n] = 0xFFFF_FFFF;
    }
}

impl Pair {
    fn new(b: &dyn Backend) -> Self {
        let ids = |id: (u8, u16, u8)| TrainerInputs {
            chip_type: id.0,
            chip_id: id.1,
            port_number: id.2,
            quiet: true,
            ..Default::default()
        };
        Self {
            a: DutEnd::new(b, 1),
            b: LinkTrainerModel::new(TIMEOUT),
            ab: Wire::new(3),
            ba: Wire::new(3),
            rng: BenchRng::new(7),
            a_in: ids(A_ID),
            b_in: ids(B_ID),
            stuck_ab: None,
            stuck_ba: None,
            b_off: false,
            oa: Default::default(),
            ob: Default::default(),
            cycle: 0,
        }
    }

    /// One cycle; pulses (`reset`, `link_fail`) are cleared after it.
    fn step(&mut self, bk: &mut dyn Backend) {
        self.a_in.lanes_in = self.ba.out();
        stick(&mut self.a_in.lanes_in, self.stuck_ba);
        self.b_in.lanes_in = self.ab.out();
        stick(&mut self.b_in.lanes_in, self.stuck_ab);
        self.a_in.from_striper = random_lanes(&mut self.rng);
        self.b_in.from_striper = random_lanes(&mut self.rng);
        if self.b_off {
            self.b_in.reset = true;
        }
        self.oa = self.a.cycle(bk, &self.a_in, "back to back");
        self.ob = self.b.step(&self.b_in);
        let b_out = if self.b_off {
            Lanes::default()
        } else {
            self.ob.lanes_out
        };
        self.ab.shift(self.oa.lanes_out);
        self.ba.shift(b_out);
        self.a_in.reset = false;
        self.a_in.link_fail = false;
        self.b_in.reset = false;
        self.b_in.link_fail = false;
        self.cycle += 1;
    }

    /// Runs until both ends are up; returns the cycles taken and the far_fresh each end
    /// reported at its went_up. Panics after [`BRING_UP_BOUND`] cycles.
    fn bring_up(&mut self, bk: &mut dyn Backend, what: &str) -> (u64, bool, bool) {
        let (mut fresh_a, mut fresh_b) = (None, None);
        for n in 1..=BRING_UP_BOUND {
            self.step(bk);
            if self.oa.went_up {
                fresh_a = Some(self.oa.far_fresh);
            }
            if self.ob.went_up {
                fresh_b = Some(self.ob.far_fresh);
            }
            if let (true, true, Some(a), Some(b)) = (self.oa.up, self.ob.up, fresh_a, fresh_b) {
                println!("link_trainer back to back: {what}: both up after {n} cycles");
                self.check_up(what);
                return (n, a, b);
            }
        }
        panic!(
            "{what}: not both up within {BRING_UP_BOUND} cycles (A state {}, B state {})",
            self.oa.state, self.ob.state
        );
    }

    /// Masks crossed and identities exchanged.
    fn check_up(&self, what: &str) {
        let (a, b) = (&self.oa, &self.ob);
        assert_eq!(a.tx_mask, b.rx_mask, "{what}: A's tx_mask != B's rx_mask");
        assert_eq!(b.tx_mask, a.rx_mask, "{what}: B's tx_mask != A's rx_mask");
        assert!(a.far_known && b.far_known, "{what}: identities not known");
        assert_eq!(
            (a.far_chip_type, a.far_chip_id, a.far_port),
            B_ID,
            "{what}: A"
        );
        assert_eq!(
            (b.far_chip_type, b.far_chip_id, b.far_port),
            A_ID,
            "{what}: B"
        );
    }

    /// Runs `n` cycles in which both must stay up.
    fn stay_up(&mut self, bk: &mut dyn Backend, n: u64, what: &str) {
        for _ in 0..n {
            self.step(bk);
            assert!(self.oa.up && self.ob.up, "{what}: link went down");
        }
    }

    /// Both ends reset together.
    fn reset_both(&mut self, bk: &mut dyn Backend) {
        self.a_in.reset = true;
        self.b_in.reset = true;
        self.step(bk);
    }
}

fn back_to_back(bk: &mut dyn Backend) -> Vec<u64> {
    let mut p = Pair::new(bk);
    let mut times = vec![];
    p.reset_both(bk);
    let (t, fa, fb) = p.bring_up(bk, "both reset");
    assert!(fa && fb, "both ends fresh after reset");
    assert_eq!((p.oa.tx_mask, p.oa.rx_mask), (0xF, 0xF));
    times.push(t);
    p.stay_up(bk, 300, "after the first bring-up");

    // link_fail on A: A goes down, its seek words take B down, both come back.
    p.a_in.link_fail = true;
    let (t, fa, fb) = p.bring_up(bk, "link_fail on A");
    assert_eq!(
        (p.oa.trainings, p.oa.far_downs),
        (1, 0),
        "A counts a link_fail down"
    );
    assert_eq!(
        (p.ob.trainings, p.ob.far_downs),
        (1, 1),
        "B counts a far down"
    );
    assert!(!fa && !fb, "no end is fresh after a retrain");
    times.push(t);
    p.stay_up(bk, 200, "after link_fail");

    // B reset while up: A (the survivor) goes down on B's seek words.
    p.b_in.reset = true;
    let (t, fa, fb) = p.bring_up(bk, "B reset while up");
    assert_eq!(
        (p.oa.trainings, p.oa.far_downs),
        (2, 1),
        "A counts B's restart"
    );
    assert!(fa, "the survivor A sees the far end fresh at went_up");
    assert!(!fb, "the reset end B sees the far end not fresh");
    times.push(t);
    p.stay_up(bk, 200, "after B's reset");

    // The DUT reset while up: B survives and sees A fresh.
    p.a_in.reset = true;
    let (t, fa, fb) = p.bring_up(bk, "A reset while up");
    // B was reset in the step before, so this is its first far down since.
    assert_eq!(p.ob.far_downs, 1, "B counts A's restart");
    assert!(fb && !fa, "the survivor B sees A fresh, A sees B not fresh");
    times.push(t);

    // Lane 2 stuck at 0xFFFFFFFF from A to B: excluded from A -> B only.
    p.stuck_ab = Some(2);
    p.reset_both(bk);
    let (t, _, _) = p.bring_up(bk, "lane 2 stuck A -> B");
    assert_eq!((p.oa.tx_mask, p.ob.rx_mask), (0b1011, 0b1011));
    assert_eq!((p.oa.rx_mask, p.ob.tx_mask), (0xF, 0xF));
    times.push(t);
    p.stay_up(bk, 200, "with lane 2 stuck A -> B");

    // ... and from B to A.
    p.stuck_ab = None;
    p.stuck_ba = Some(2);
    p.reset_both(bk);
    let (t, _, _) = p.bring_up(bk, "lane 2 stuck B -> A");
    assert_eq!((p.oa.rx_mask, p.ob.tx_mask), (0b1011, 0b1011));
    assert_eq!((p.oa.tx_mask, p.ob.rx_mask), (0xF, 0xF));
    times.push(t);
    p.stuck_ba = None;

    // B powered up 5,000 cycles after A.
    p.b_off = true;
    p.a_in.reset = true;
    // The reset cycle still shows A's state from before it.
    p.step(bk);
    for _ in 0..5000 {
        p.step(bk);
        assert!(!p.oa.up, "A up with B powered off");
    }
    p.b_off = false;
    let (t, fa, fb) = p.bring_up(bk, "B powered up 5,000 cycles after A");
    assert!(fa && fb, "both fresh");
    times.push(t);
    p.stay_up(bk, 200, "after the late power-up");
    times
}

#[test]
fn link_trainer_back_to_back() {
    let rep = run_both(
        "link_trainer_pair",
        || Dut::new(TIMEOUT, 1),
        table,
        back_to_back,
    );
    println!(
        "link_trainer back to back: bring-up cycles {:?} (bound {BRING_UP_BOUND})",
        rep.result
    );
}

#[test]
fn link_trainer_lints_clean() {
    let verilog = hdl::emit::emit_verilog(&mut Dut::new(TIMEOUT, 1), "link_trainer").unwrap();
    let dir = std::env::temp_dir().join(format!("hpcnet_link_trainer_lint_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("link_trainer.v");
    std::fs::write(&file, verilog).unwrap();
    let report = flow::lint(&file, "link_trainer", &dir).unwrap_or_else(|e| panic!("{e:#}"));
    assert!(report.is_clean());
}
