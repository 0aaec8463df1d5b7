//! `I2cMaster` on both backends, wired through open-drain resolution in Rust (a line is the
//! AND of its drivers) to the EEPROM model (`I2cEeprom`, with its timing checks) and a passive
//! bus monitor. Random transactions (writes of 1..=8 bytes, random and current-address reads,
//! ACK polls, transactions to another device address that nobody acknowledges) under random
//! result backpressure, random clock stretching by the target and reset at random moments.
//!
//! Checked on every answer: the command put exactly its own event on the bus (START, STOP, a
//! 9-clock frame with the commanded byte, or the commanded ACK/NACK after a read) and the
//! answer reports what the bus showed (`acknowledged` = the ninth bit was low, `data` = the
//! byte on the bus), no bus error; a STOP outside a transaction does nothing. Every cycle: no
//! timing violation recorded by the part (tLOW, tHIGH, setup, hold, START/STOP setup and hold,
//! bus free); both lines released in the cycle after a reset cycle; no answer without a
//! command; no command waits more than a bound. After a reset, the next START may be preceded
//! by recovery clocks (the part held SDA low): the events before it are counted, and it must
//! succeed. At the end: the part is idle and never saw a START/STOP inside a byte more often
//! than there were resets.
//!
//! Directed: SCL held low for ever (a target stretching past the limit) and SDA held low (a
//! stuck target) end in `bus_error` with both lines released, after exactly 9 recovery clocks
//! for SDA; the bus works again once the fault is gone. One write + read at the real 100 kHz
//! timing (50 MHz clock, quarter of 63 cycles) against the I2C specification's standard-mode
//! minimums.
use hdl::mgmt::i2c_master::{I2cMaster, I2cOp};
use testbench::models::i2c_eeprom::{BusEvent, EepromTiming, I2cBus, I2cEeprom};
use testbench::{port_table, run_both, Backend, BenchRng, PortId, PortTable, ResetSchedule};

/// A2..A0 of the part.
const DEVICE: u8 = 5;

fn table() -> PortTable<I2cMaster> {
    port_table!(I2cMaster; reset, command.valid, command.op, command.data, command.ack,
        command.ready, result.valid, result.data, result.acknowledged, result.bus_error,
        result.ready, i2c.scl_drive_low, i2c.sda_drive_low, i2c.scl_in, i2c.sda_in)
}

struct Ports {
    reset: PortId,
    valid: PortId,
    op: PortId,
    data: PortId,
    ack: PortId,
    ready: PortId,
    result_valid: PortId,
    result_data: PortId,
    acknowledged: PortId,
    bus_error: PortId,
    result_ready: PortId,
    scl_low: PortId,
    sda_low: PortId,
    scl_in: PortId,
    sda_in: PortId,
}

impl Ports {
    fn new(b: &dyn Backend) -> Self {
        Self {
            reset: b.port("reset"),
            valid: b.port("command$valid"),
            op: b.port("command$op"),
            data: b.port("command$data"),
            ack: b.port("command$ack"),
            ready: b.port("command$ready"),
            result_valid: b.port("result$valid"),
            result_data: b.port("result$data"),
            acknowledged: b.port("result$acknowledged"),
            bus_error: b.port("result$bus_error"),
            result_ready: b.port("result$ready"),
            scl_low: b.port("i2c$scl_drive_low"),
            sda_low: b.port("i2c$sda_drive_low"),
            scl_in: b.port("i2c$scl_in"),
            sda_in: b.port("i2c$sda_in"),
        }
    }
}

/// One master command.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Command {
    op: I2cOp,
    data: u8,
    ack: bool,
}

fn cmd(op: I2cOp, data: u8, ack: bool) -> Command {
    Command { op, data, ack }
}

/// An answer as the master gave it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Answer {
    data: u8,
    acknowledged: bool,
    bus_error: bool,
}

/// Counts of what the bench exercised (identical on both backends).
#[derive(Debug, Default, PartialEq, Clone)]
struct Report {
    cycles: u64,
    transactions: u64,
    frames_acknowledged: u64,
    frames_refused: u64,
    bytes_read: u64,
    part_writes: u64,
    busy_refusals: u64,
    stretched_clocks: u64,
    resets: u64,
    /// STARTs after a reset preceded by recovery clocks or a cut frame.
    recoveries: u64,
    /// Cycles of a write command (taken to answered) with no stretching: min.
    write_cycles: u64,
    /// Cycles of a read command: min.
    read_cycles: u64,
}

/// Bench knobs of one phase.
#[derive(Clone, Copy)]
struct Traffic {
    /// Probability of a clock stretched, and the most cycles of one.
    stretch: (f64, u64),
    /// Probability of `result.ready`.
    ready: f64,
    /// Check each answer against the bus (off while a fault is injected).
    check: bool,
}

struct Bench<'a> {
    b: &'a mut dyn Backend,
    p: Ports,
    bus: I2cBus,
    rng: BenchRng,
    /// Commands of the current transaction still to offer.
    queue: std::collections::VecDeque<Command>,
    /// The command taken and its taking cycle, not yet answered.
    outstanding: Option<(Command, u64)>,
    in_transaction: bool,
    /// A reset came since the last START answer: recovery clocks may precede the next.
    after_reset: bool,
    /// The previous cycle had reset high.
    was_reset: bool,
    /// SCL rises when the outstanding command was taken, and whether a transaction was open
    /// (a repeated START clocks SCL once).
    start_rises: (u64, bool),
    /// Part cycles up to which timing violations are excused (a reset cut the bus).
    excused_until: u64,
    /// What the master did this cycle: 10 + op taken, 20 + op answered, 0 nothing.
    last_event: u64,
    /// The last cycles of the bus, for failure messages.
    history: std::collections::VecDeque<(u64, bool, bool, bool, bool, u64)>,
    report: Report,
    seed: u64,
}

impl Bench<'_> {
    fn new_transaction(&mut self) {
        let r = &mut self.rng;
        let device = if r.chance(0.1) {
            (DEVICE + 1 + r.range(0, 6) as u8) % 8
        } else {
            DEVICE
        };
        let control = 0xa0 | device << 1;
        let address = if r.chance(0.2) {
            0xfff8 + r.range(0, 7) as u16
        } else {
            r.range(0, 0xffff) as u16
        };
        let mut q = vec![cmd(I2cOp::Start, 0, false)];
        match r.range(0, 3) {
            0 => {
                q.push(cmd(I2cOp::Write, control, false));
                q.push(cmd(I2cOp::Write, (address >> 8) as u8, false));
                q.push(cmd(I2cOp::Write, address as u8, false));
                for _ in 0..r.range(1, 8) {
                    q.push(cmd(I2cOp::Write, r.bits(8) as u8, false));
                }
            }
            1 => {
                q.push(cmd(I2cOp::Write, control, false));
                q.push(cmd(I2cOp::Write, (address >> 8) as u8, false));
                q.push(cmd(I2cOp::Write, address as u8, false));
                q.push(cmd(I2cOp::Start, 0, false));
                q.push(cmd(I2cOp::Write, control | 1, false));
                let n = r.range(1, 8);
                for i in 0..n {
                    q.push(cmd(I2cOp::Read, 0, i + 1 < n));
                }
            }
            2 => {
                // Current-address read.
                q.push(cmd(I2cOp::Write, control | 1, false));
                let n = r.range(1, 3);
                for i in 0..n {
                    q.push(cmd(I2cOp::Read, 0, i + 1 < n));
                }
            }
            _ => q.push(cmd(I2cOp::Write, control, false)),
        }
        q.push(cmd(I2cOp::Stop, 0, false));
        if r.chance(0.05) {
            // A STOP outside a transaction: nothing happens on the bus.
            q.push(cmd(I2cOp::Stop, 0, false));
        }
        self.queue = q.into();
        self.report.transactions += 1;
    }

    fn check_answer(&mut self, c: Command, a: Answer, taken: u64) {
        let seed = self.seed;
        let ev = &mut self.bus.monitor.events;
        assert!(
            !a.bus_error,
            "seed {seed}: bus error answering {c:?} (cycle {})",
            self.b.cycle()
        );
        let took = self.b.cycle() - taken;
        match c.op {
            I2cOp::Start => {
                // After a reset the queue may still hold the cut transaction's events (its
                // START, the STOP the release made, a cut frame, recovery clocks): the START
                // answered is the last one.
                let last = ev.iter().rposition(|e| *e == BusEvent::Start);
                let last = last.unwrap_or_else(|| panic!("seed {seed}: START answered, none seen"));
                if !self.after_reset {
                    assert_eq!(last, 0, "seed {seed}: {ev:?} on the bus before a START");
                }
                ev.drain(..=last);
                // Clocks given during the command beyond the one of a repeated START.
                let clocks = self.bus.scl_rises - self.start_rises.0 - self.start_rises.1 as u64;
                if self.after_reset {
                    assert!(clocks <= 9, "seed {seed}: {clocks} recovery clocks");
                    self.report.recoveries += (clocks > 0) as u64;
                } else {
                    assert_eq!(clocks, 0, "seed {seed}: recovery clocks without a reset");
                }
                self.after_reset = false;
                self.in_transaction = true;
                assert!(a.acknowledged, "seed {seed}: START not carried out");
            }
            I2cOp::Stop => {
                if self.in_transaction {
                    assert_eq!(ev.pop_front(), Some(BusEvent::Stop), "seed {seed}");
                }
                self.in_transaction = false;
                assert!(a.acknowledged, "seed {seed}: STOP not carried out");
            }
            I2cOp::Write => {
                let e = ev.pop_front();
                assert_eq!(
                    e,
                    Some(BusEvent::Frame {
                        byte: c.data,
                        acknowledged: a.acknowledged
                    }),
                    "seed {seed}: write of {:#04x} answered {a:?}",
                    c.data
                );
                assert_eq!(a.data, c.data, "seed {seed}: the byte seen on the bus");
                if a.acknowledged {
                    self.report.frames_acknowledged += 1;
                } else {
                    self.report.frames_refused += 1;
                }
                self.report.write_cycles = self.report.write_cycles.min(took);
            }
            I2cOp::Read => {
                assert_eq!(
                    ev.pop_front(),
                    Some(BusEvent::Frame {
                        byte: a.data,
                        acknowledged: c.ack
                    }),
                    "seed {seed}: read answered {a:?}"
                );
                self.report.bytes_read += 1;
                self.report.read_cycles = self.report.read_cycles.min(took);
            }
        }
        assert!(
            ev.is_empty(),
            "seed {seed}: more on the bus than {c:?}: {ev:?}"
        );
        self.check_violations();
    }

    /// No timing violation, except in the few cycles after a reset (the master lets both lines
    /// go at once wherever it was: a short SCL pulse or a STOP too soon are what a cut is).
    fn check_violations(&mut self) {
        let excused = self.excused_until;
        let v = &self.bus.part.violations;
        assert!(
            v.iter().all(|&(c, _)| c <= excused),
            "seed {}: timing violations {v:?} (excused up to cycle {excused}); last cycles \
             (part cycle, SCL, SDA, part pulls SDA, reset, 10 + op taken / 20 + op answered): {:?}",
            self.seed,
            self.history
        );
        self.bus.part.violations.clear();
    }

    /// One cycle; returns the answer taken in it, if any.
    fn cycle(&mut self, t: &Traffic, reset: bool, offer: bool) -> Option<Answer> {
        let p = &self.p;
        let b = &mut *self.b;
        let scl_low = b.peek_bool(p.scl_low);
        let sda_low = b.peek_bool(p.sda_low);
        if self.was_reset {
            assert!(
                !scl_low && !sda_low,
                "seed {}: the bus is not released after reset",
                self.seed
            );
        }
        let (scl, sda) = self.bus.lines(scl_low, sda_low);
        b.poke_bool(p.reset, reset);
        b.poke_bool(p.scl_in, scl);
        b.poke_bool(p.sda_in, sda);
        let offered = self.queue.front().copied().filter(|_| offer);
        match offered {
            Some(c) => {
                b.poke_bool(p.valid, true);
                b.poke(p.op, c.op.code() as u128);
                b.poke(p.data, c.data as u128);
                b.poke_bool(p.ack, c.ack);
            }
            None => {
                b.poke_bool(p.valid, false);
                b.poke(p.op, self.rng.bits(2));
                b.poke(p.data, self.rng.bits(8));
                b.poke_bool(p.ack, self.rng.chance(0.5));
            }
        }
        let ready = self.rng.chance(t.ready);
        b.poke_bool(p.result_ready, ready);
        let taken = b.peek_bool(p.ready) && offered.is_some();
        let valid = b.peek_bool(p.result_valid);
        let answer = Answer {
            data: b.peek(p.result_data) as u8,
            acknowledged: b.peek_bool(p.acknowledged),
            bus_error: b.peek_bool(p.bus_error),
        };
        let mut got = None;
        self.last_event = 0;
        if reset {
            assert!(!b.peek_bool(p.ready), "command.ready during reset");
            // The release comes in the next cycle; a part's minimum times run from there.
            self.excused_until = self.bus.part.cycle() + 4 + 8 * QUARTER as u64;
            self.queue.clear();
            self.outstanding = None;
            self.in_transaction = false;
            self.after_reset = true;
        } else {
            if valid && ready {
                let (c, at) = self
                    .outstanding
                    .take()
                    .unwrap_or_else(|| panic!("seed {}: an answer without a command", self.seed));
                got = Some(answer);
                self.last_event = 20 + c.op.code();
                if t.check {
                    self.check_answer(c, answer, at);
                }
            }
            if taken {
                assert!(
                    self.outstanding.is_none(),
                    "seed {}: a command taken before the answer",
                    self.seed
                );
                let c = self.queue.pop_front().unwrap();
                self.outstanding = Some((c, self.b.cycle()));
                self.last_event += 10 + c.op.code();
                self.start_rises = (self.bus.scl_rises, self.in_transaction);
            }
        }
        let stretch = if self.rng.chance(t.stretch.0) {
            self.rng.range(1, t.stretch.1)
        } else {
            0
        };
        self.bus.step(scl, sda, stretch);
        if self.history.len() == 300 {
            self.history.pop_front();
        }
        let part = &self.bus.part;
        self.history.push_back((
            part.cycle(),
            scl,
            sda,
            part.drive_low(),
            reset,
            self.last_event,
        ));
        self.b.tick();
        self.was_reset = reset;
        self.report.cycles += 1;
        got
    }

    /// Runs `commands` to their answers (no reset).
    fn run_commands(&mut self, commands: &[Command], t: &Traffic) -> Vec<Answer> {
        self.queue = commands.iter().copied().collect();
        let mut answers = vec![];
        let mut idle = 0;
        while answers.len() < commands.len() {
            match self.cycle(t, false, true) {
                Some(a) => {
                    answers.push(a);
                    idle = 0
                }
                None => idle += 1,
            }
            assert!(idle < 20_000, "seed {}: the master hangs", self.seed);
        }
        answers
    }
}

fn make_bench(b: &mut dyn Backend, seed: u64, timing: EepromTiming) -> Bench<'_> {
    let p = Ports::new(b);
    let mut rng = BenchRng::new(seed);
    let mut part = I2cEeprom::new(DEVICE, timing);
    for m in part.memory.iter_mut() {
        // Many zeros: a read cut by reset often leaves the part holding SDA low.
        *m = if rng.chance(0.5) {
            0
        } else {
            rng.bits(8) as u8
        };
    }
    Bench {
        b,
        p,
        bus: I2cBus::new(part),
        rng,
        queue: Default::default(),
        outstanding: None,
        in_transaction: false,
        after_reset: false,
        was_reset: false,
        start_rises: (0, false),
        excused_until: 0,
        last_event: 0,
        history: Default::default(),
        report: Report {
            write_cycles: u64::MAX,
            read_cycles: u64::MAX,
            ..Default::default()
        },
        seed,
    }
}

const QUARTER: u32 = 2;
const STRETCH_LIMIT: u32 = 40;

fn bench(b: &mut dyn Backend, seed: u64, transactions: u64) -> Report {
    let q = QUARTER as u64;
    let mut bench = make_bench(b, seed, EepromTiming::for_quarter(q, 300));
    // Reset held for a few cycles first: the DFFs start at their defaults anyway.
    let calm = Traffic {
        stretch: (0.0, 1),
        ready: 1.0,
        check: true,
    };
    for _ in 0..3 {
        bench.cycle(&calm, true, false);
    }
    // 1. Full speed, no stretching, no reset: the cycle figures.
    for _ in 0..20 {
        bench.new_transaction();
        let c: Vec<Command> = bench.queue.drain(..).collect();
        bench.run_commands(&c, &calm);
    }
    // 2. Random traffic: backpressure, stretching, resets.
    let busy = Traffic {
        stretch: (0.2, 5 * q),
        ready: 0.4,
        check: true,
    };
    let mut schedule = ResetSchedule::new(&mut bench.rng, 1500);
    let mut idle = 0;
    let mut done = 0;
    while done < transactions {
        if bench.queue.is_empty() && bench.outstanding.is_none() {
            bench.new_transaction();
            done += 1;
        }
        let reset = schedule.next(&mut bench.rng);
        let offer = bench.rng.chance(0.7);
        match bench.cycle(&busy, reset, offer) {
            Some(_) => idle = 0,
            None => idle += 1,
        }
        assert!(idle < 20_000, "seed {seed}: the master hangs");
    }
    // Finish the transaction in progress, then end any transaction left.
    while !bench.queue.is_empty() || bench.outstanding.is_some() {
        bench.cycle(&busy, false, true);
    }
    bench.report.resets = schedule.pulses();
    if bench.in_transaction {
        bench.run_commands(&[cmd(I2cOp::Stop, 0, false)], &calm);
    }
    // 3. Faults: SCL held low past the stretch limit, then SDA held low.
    bench.bus.scl_stuck_low = true;
    bench.queue = [cmd(I2cOp::Start, 0, false)].into();
    let a = loop {
        if let Some(a) = bench.cycle(
            &Traffic {
                check: false,
                ..calm
            },
            false,
            true,
        ) {
            break a;
        }
        assert!(bench.report.cycles < 10_000_000);
    };
    assert!(
        a.bus_error && !a.acknowledged,
        "seed {seed}: SCL stuck: {a:?}"
    );
    bench.bus.scl_stuck_low = false;
    bench.bus.monitor.events.clear();
    bench.in_transaction = false;
    bench.cycle(&calm, false, false);
    assert!(
        !b_lines_driven(&mut bench),
        "seed {seed}: lines held after a bus error"
    );
    bench.bus.sda_stuck_low = true;
    let rises = bench.bus.scl_rises;
    bench.queue = [cmd(I2cOp::Start, 0, false)].into();
    let a = loop {
        if let Some(a) = bench.cycle(
            &Traffic {
                check: false,
                ..calm
            },
            false,
            true,
        ) {
            break a;
        }
    };
    assert!(
        a.bus_error && !a.acknowledged,
        "seed {seed}: SDA stuck: {a:?}"
    );
    assert_eq!(
        bench.bus.scl_rises - rises,
        9,
        "seed {seed}: recovery clocks with SDA stuck (SCL was high)"
    );
    bench.cycle(&calm, false, false);
    assert!(
        !b_lines_driven(&mut bench),
        "seed {seed}: lines held after a bus error"
    );
    bench.bus.sda_stuck_low = false;
    bench.bus.monitor.events.clear();
    // The injected faults made the bus break the part's timing (a line let go at any moment).
    bench.excused_until = bench.bus.part.cycle() + 4 + 8 * QUARTER as u64;
    // 4. The bus works again.
    bench.after_reset = true;
    let poll = [
        cmd(I2cOp::Start, 0, false),
        cmd(I2cOp::Write, 0xa0 | DEVICE << 1, false),
        cmd(I2cOp::Stop, 0, false),
    ];
    let a = bench.run_commands(&poll, &calm);
    assert!(
        a[1].acknowledged,
        "seed {seed}: the part does not answer after the faults"
    );
    for _ in 0..50 {
        bench.cycle(&calm, false, false);
    }
    let part = &bench.bus.part;
    assert!(part.idle(), "seed {seed}: the part is not idle at the end");
    assert!(
        part.counts.aborted <= bench.report.resets,
        "seed {seed}: {} aborted bytes with {} resets",
        part.counts.aborted,
        bench.report.resets
    );
    bench.report.part_writes = part.counts.writes;
    bench.report.stretched_clocks = bench.bus.stretches;
    bench.report.busy_refusals = part.counts.busy_nacks;
    bench.report
}

/// Whether the master pulls either line low now.
fn b_lines_driven(bench: &mut Bench<'_>) -> bool {
    let (s, d) = (bench.p.scl_low, bench.p.sda_low);
    bench.b.peek_bool(s) || bench.b.peek_bool(d)
}

#[test]
fn i2c_master_against_the_eeprom_model() {
    for seed in [1, 2, 3] {
        let r = run_both(
            "i2c_master",
            || I2cMaster::new(QUARTER, STRETCH_LIMIT),
            table,
            |b| bench(b, seed, 150),
        )
        .result;
        eprintln!("{r:?}");
        assert!(
            r.frames_acknowledged > 200 && r.frames_refused > 20,
            "{r:?}"
        );
        assert!(r.bytes_read > 100 && r.part_writes > 10, "{r:?}");
        assert!(r.busy_refusals > 0 && r.stretched_clocks > 100, "{r:?}");
        assert!(r.resets >= 5, "{r:?}");
        // A bit is 4 quarters + 3 cycles of synchronizer (module documentation of the master).
        let bit = 4 * QUARTER as u64 + 3;
        assert!(
            r.write_cycles >= 9 * bit && r.write_cycles <= 9 * bit + 4,
            "{r:?}"
        );
        assert_eq!(r.read_cycles, r.write_cycles, "{r:?}");
    }
}

#[test]
fn i2c_master_recovers_the_bus_after_reset() {
    // Across seeds, some resets cut a read while the part sent a 0: the next START came after
    // recovery clocks and succeeded (checked in the bench).
    let mut recoveries = 0;
    for seed in [11, 12] {
        let r = run_both(
            "i2c_master",
            || I2cMaster::new(QUARTER, STRETCH_LIMIT),
            table,
            |b| bench(b, seed, 120),
        )
        .result;
        recoveries += r.recoveries;
    }
    assert!(recoveries > 0, "no reset needed a bus recovery");
}

#[test]
fn i2c_master_at_100_khz() {
    // Standard mode at a 50 MHz clock: SCL low is 2 quarters and tLOW >= 4.7 us, so a quarter
    // of 2.35 us, 118 cycles (SCL at 4 * 2.36 us + 3 cycles: 105.6 kHz); every other minimum
    // (tHIGH, tSU;STA, tHD;STA, tSU;STO 4.0 us, tBUF 4.7 us) is 2 quarters too.
    let quarter = 118;
    let r = run_both(
        "i2c_master_100k",
        || I2cMaster::new(quarter, 100),
        table,
        |b| {
            let mut bench = make_bench(b, 7, EepromTiming::standard(50_000_000, 2000));
            let calm = Traffic {
                stretch: (0.0, 1),
                ready: 1.0,
                check: true,
            };
            let c = 0xa0 | DEVICE << 1;
            let a = bench.run_commands(
                &[
                    cmd(I2cOp::Start, 0, false),
                    cmd(I2cOp::Write, c, false),
                    cmd(I2cOp::Write, 0x12, false),
                    cmd(I2cOp::Write, 0x34, false),
                    cmd(I2cOp::Write, 0x5a, false),
                    cmd(I2cOp::Stop, 0, false),
                ],
                &calm,
            );
            assert!(a.iter().all(|a| a.acknowledged), "{a:?}");
            assert_eq!(bench.bus.part.memory[0x1234], 0x5a);
            let cycles = bench.report.cycles;
            (bench.bus.part.violations.clone(), cycles)
        },
    )
    .result;
    assert!(r.0.is_empty(), "{r:?}");
    eprintln!("100 kHz: a 3-byte write transaction took {} cycles", r.1);
}
