//! `EepAccess` on both backends, its I2C pins wired through open-drain resolution in Rust to
//! the EEPROM model (`I2cEeprom`: timing checks, 128-byte page wrap, write cycle with ACK
//! polling). Random commands: reads and writes of 1..=6 bytes at random addresses, many at
//! page ends (writes split in two) and at the last bytes of the 64 KiB; bad counts (0, 7);
//! address range errors; with faults injected per command: part absent, another device
//! address on `device`, the part refusing byte n of every transaction (fault injection at the
//! control byte, an address byte or a data byte, of the first or second page); random idle
//! fields, random result backpressure, clock stretching by the part, reset at random moments.
//!
//! Checked: every result equals the model's (`eep_access_result`, on a shadow of the array
//! the bench keeps from the commands' own effects); one result per command, in order, none
//! without a command; `command.ready` low during reset and both lines released in the cycle
//! after a reset cycle; no timing violation except in the cycles right after a reset (the
//! master lets go at once); no command hangs. A command cut by reset has no result; its write
//! may or may not have reached the array (the bench reads the array back for those bytes at the
//! next START: a STOP made by the release can commit it). The command after a reset succeeds
//! (the master recovers the bus if the part held SDA). At the end the whole array equals the
//! shadow (no byte written where it should not be) and the part is idle.
//!
//! Directed: a write cycle longer than the poll limit allows gives `NoAcknowledge` (the data is
//! in the array after all), and the next command succeeds once the part is done.
use hdl::mgmt::eep_access::{EepAccess, EepError, EEP_MAX_BYTES};
use testbench::models::i2c_eeprom::{
    eep_access_result, EepCommand, EepResult, EepromTiming, I2cBus, I2cEeprom, EEPROM_BYTES,
};
use testbench::{port_table, run_both, Backend, BenchRng, PortId, PortTable, ResetSchedule};

/// A2..A0 of the part.
const DEVICE: u8 = 3;
/// Cycles per quarter SCL period in the benches.
const QUARTER: u32 = 2;
const STRETCH_LIMIT: u32 = 40;
/// Refused control bytes tolerated in a row.
const POLL_LIMIT: u32 = 12;
/// The part's write cycle: about 4 polls.
const WRITE_CYCLE: u64 = 500;

fn table() -> PortTable<EepAccess> {
    port_table!(EepAccess; reset, command.valid, command.write, command.address, command.count,
        command.data, command.ready, result.valid, result.data, result.error, result.ready,
        device, i2c.scl_drive_low, i2c.sda_drive_low, i2c.scl_in, i2c.sda_in)
}

fn make() -> EepAccess {
    EepAccess::new(QUARTER, STRETCH_LIMIT, POLL_LIMIT)
}

struct Ports {
    reset: PortId,
    valid: PortId,
    write: PortId,
    address: PortId,
    count: PortId,
    data: PortId,
    ready: PortId,
    result_valid: PortId,
    result_data: PortId,
    error: PortId,
    result_ready: PortId,
    device: PortId,
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
            write: b.port("command$write"),
            address: b.port("command$address"),
            count: b.port("command$count"),
            data: b.port("command$data"),
            ready: b.port("command$ready"),
            result_valid: b.port("result$valid"),
            result_data: b.port("result$data"),
            error: b.port("result$error"),
            result_ready: b.port("result$ready"),
            device: b.port("device"),
            scl_low: b.port("i2c$scl_drive_low"),
            sda_low: b.port("i2c$sda_drive_low"),
            scl_in: b.port("i2c$scl_in"),
            sda_in: b.port("i2c$sda_in"),
        }
    }
}

/// A command with the faults it runs under.
#[derive(Clone, Debug)]
struct Offer {
    command: EepCommand,
    /// A2..A0 driven on `device`.
    device: u8,
    present: bool,
    nack_at: Option<u32>,
    /// The part stays busy past the poll limit (directed test): `NoAcknowledge`.
    busy_past_limit: bool,
}

/// Counts of what the bench exercised (identical on both backends).
#[derive(Debug, Default, PartialEq, Clone)]
struct Report {
    cycles: u64,
    results: [u64; 4],
    reads: u64,
    writes: u64,
    page_splits: u64,
    last_bytes: u64,
    resets: u64,
    cut_commands: u64,
    busy_polls: u64,
    stretches: u64,
}

struct Bench<'a> {
    b: &'a mut dyn Backend,
    p: Ports,
    bus: I2cBus,
    rng: BenchRng,
    /// What the array must hold.
    shadow: Vec<u8>,
    offer: Option<Offer>,
    /// The command taken and not answered.
    outstanding: Option<Offer>,
    /// Writes cut by reset: their bytes are read back from the array at the next START
    /// (the part count of STARTs when the cut happened).
    unsure: Vec<(EepCommand, u64)>,
    was_reset: bool,
    excused_until: u64,
    report: Report,
    seed: u64,
}

impl Bench<'_> {
    fn new(b: &mut dyn Backend, seed: u64) -> Bench<'_> {
        let p = Ports::new(b);
        let mut rng = BenchRng::new(seed);
        let mut part = I2cEeprom::new(
            DEVICE,
            EepromTiming::for_quarter(QUARTER as u64, WRITE_CYCLE),
        );
        for m in part.memory.iter_mut() {
            *m = rng.bits(8) as u8;
        }
        let shadow = part.memory.clone();
        Bench {
            b,
            p,
            bus: I2cBus::new(part),
            rng,
            shadow,
            offer: None,
            outstanding: None,
            unsure: vec![],
            was_reset: false,
            excused_until: 0,
            report: Report::default(),
            seed,
        }
    }

    fn random_offer(&mut self, faults: bool) -> Offer {
        let r = &mut self.rng;
        let count = if r.chance(0.05) {
            if r.chance(0.5) {
                0
            } else {
                7
            }
        } else {
            r.range(1, 6) as u32
        };
        let address = match r.range(0, 9) {
            0..=2 => (r.range(0, 511) as u32 & !127) | r.range(123, 127) as u32,
            3 => 0xfff8 + r.range(0, 7) as u32,
            _ => r.range(0, 0xffff) as u32,
        };
        let mut data = [0u8; EEP_MAX_BYTES];
        for d in data.iter_mut() {
            *d = r.bits(8) as u8;
        }
        let mut offer = Offer {
            command: EepCommand {
                write: r.chance(0.5),
                address,
                count,
                data,
            },
            device: DEVICE,
            present: true,
            nack_at: None,
            busy_past_limit: false,
        };
        if faults {
            match r.range(0, 19) {
                0 => offer.present = false,
                1 => offer.device = (DEVICE + r.range(1, 7) as u8) % 8,
                2 | 3 => offer.nack_at = Some(r.range(0, 9) as u32),
                _ => {}
            }
        }
        offer
    }

    fn poke_offer(&mut self) {
        let p = &self.p;
        let b = &mut *self.b;
        match &self.offer {
            Some(o) => {
                let c = &o.command;
                b.poke_bool(p.valid, true);
                b.poke_bool(p.write, c.write);
                b.poke(p.address, c.address as u128);
                b.poke(p.count, c.count as u128);
                let mut d = 0u128;
                for (i, &x) in c.data.iter().enumerate() {
                    d |= (x as u128) << (8 * i);
                }
                b.poke(p.data, d);
                b.poke(p.device, o.device as u128);
            }
            None => {
                b.poke_bool(p.valid, false);
                b.poke_bool(p.write, self.rng.chance(0.5));
                b.poke(p.address, self.rng.bits(16));
                b.poke(p.count, self.rng.bits(3));
                b.poke(p.data, self.rng.bits(48));
                // `device` is taken with the command: it may change between commands.
                b.poke(p.device, self.rng.bits(3));
            }
        }
    }

    /// The expected result of `o` now, and the shadow updated with its effect.
    fn expect(&mut self, o: &Offer, got: &EepResult) -> EepResult {
        let c = &o.command;
        let mut want = eep_access_result(c, &self.shadow, o.present, o.device == DEVICE, o.nack_at);
        if o.busy_past_limit {
            want = EepResult {
                data: [0; 6],
                error: EepError::NoAcknowledge,
            };
        }
        if c.write && want.error == EepError::None {
            for i in 0..c.count as usize {
                self.shadow[c.address as usize + i] = c.data[i];
            }
        }
        if c.write && got.error == EepError::NoAcknowledge {
            // A failed write may have written its first page (documented): take the array's
            // word for those bytes; the final comparison still checks every other byte.
            self.sync(c);
        }
        want
    }

    /// The shadow takes the array's bytes of `c`.
    fn sync(&mut self, c: &EepCommand) {
        let end = (c.address + c.count.min(6)).min(EEPROM_BYTES as u32) as usize;
        for a in c.address as usize..end {
            self.shadow[a] = self.bus.part.memory[a];
        }
    }

    fn check_violations(&mut self) {
        let excused = self.excused_until;
        let v = &self.bus.part.violations;
        assert!(
            v.iter().all(|&(c, _)| c <= excused),
            "seed {}: timing violations {v:?} (excused up to cycle {excused})",
            self.seed
        );
        self.bus.part.violations.clear();
    }

    /// One cycle; returns the result taken in it with its command.
    fn cycle(&mut self, reset: bool, ready_chance: f64, stretch: (f64, u64)) -> Option<EepResult> {
        let scl_low = self.b.peek_bool(self.p.scl_low);
        let sda_low = self.b.peek_bool(self.p.sda_low);
        if self.was_reset {
            assert!(
                !scl_low && !sda_low,
                "seed {}: the bus is not released after reset",
                self.seed
            );
        }
        let (scl, sda) = self.bus.lines(scl_low, sda_low);
        self.b.poke_bool(self.p.reset, reset);
        self.b.poke_bool(self.p.scl_in, scl);
        self.b.poke_bool(self.p.sda_in, sda);
        self.poke_offer();
        let ready = self.rng.chance(ready_chance);
        self.b.poke_bool(self.p.result_ready, ready);
        let taken = self.offer.is_some() && self.b.peek_bool(self.p.ready);
        let valid = self.b.peek_bool(self.p.result_valid);
        let data = self.b.peek(self.p.result_data) as u64;
        let error = self.b.peek(self.p.error) as u64;
        let mut out = None;
        // Writes cut by reset: read back at the first START after the cut.
        let starts = self.bus.part.counts.starts;
        let (now, later): (Vec<_>, Vec<_>) = self.unsure.drain(..).partition(|u| starts > u.1);
        self.unsure = later;
        for (c, _) in now {
            self.sync(&c);
        }
        if reset {
            assert!(
                !self.b.peek_bool(self.p.ready),
                "command.ready during reset"
            );
            if let Some(o) = self.outstanding.take() {
                self.report.cut_commands += 1;
                if o.command.write {
                    self.unsure.push((o.command, starts));
                }
            }
            self.bus.part.present = true;
            self.bus.part.nack_at = None;
            self.excused_until = self.bus.part.cycle() + 4 + 8 * QUARTER as u64;
        } else {
            if valid && ready {
                let o = self
                    .outstanding
                    .take()
                    .unwrap_or_else(|| panic!("seed {}: a result without a command", self.seed));
                let mut got = EepResult {
                    data: [0; 6],
                    error: EepError::from_code(error).unwrap(),
                };
                for i in 0..6 {
                    got.data[i] = (data >> (8 * i)) as u8;
                }
                let want = self.expect(&o, &got);
                assert_eq!(
                    got,
                    want,
                    "seed {}: {o:?} at cycle {}",
                    self.seed,
                    self.b.cycle()
                );
                self.report.results[error as usize] += 1;
                let c = &o.command;
                if want.error == EepError::None {
                    if c.write {
                        self.report.writes += 1;
                    } else {
                        self.report.reads += 1;
                    }
                    self.report.page_splits +=
                        (c.write && c.address / 128 != (c.address + c.count - 1) / 128) as u64;
                    self.report.last_bytes += (c.address + c.count == 0x10000) as u64;
                }
                self.bus.part.present = true;
                self.bus.part.nack_at = None;
                self.check_violations();
                out = Some(got);
            }
            if taken {
                assert!(
                    self.outstanding.is_none(),
                    "seed {}: a command taken before the previous result",
                    self.seed
                );
                let o = self.offer.take().unwrap();
                self.bus.part.present = o.present;
                self.bus.part.nack_at = o.nack_at;
                self.outstanding = Some(o);
            }
        }
        let s = if self.rng.chance(stretch.0) {
            self.rng.range(1, stretch.1)
        } else {
            0
        };
        self.bus.step(scl, sda, s);
        self.b.tick();
        self.was_reset = reset;
        self.report.cycles += 1;
        out
    }

    /// Offers `o` and runs to its result (no reset, results always taken); returns it and the
    /// cycles from the edge that took the command to the first cycle of the result.
    fn run_one(&mut self, o: Offer) -> (EepResult, u64) {
        self.offer = Some(o);
        let start = self.b.cycle();
        loop {
            if let Some(r) = self.cycle(false, 1.0, (0.0, 1)) {
                return (r, self.b.cycle() - 1 - start);
            }
            assert!(
                self.b.cycle() - start < 200_000,
                "seed {}: eep_access hangs",
                self.seed
            );
        }
    }

    fn finish(&mut self) {
        for _ in 0..(WRITE_CYCLE + 100) {
            self.cycle(false, 1.0, (0.0, 1));
        }
        // Writes cut at the very end: the bus is idle now, whatever they did is done.
        for (c, _) in std::mem::take(&mut self.unsure) {
            self.sync(&c);
        }
        self.check_violations();
        let part = &self.bus.part;
        assert!(
            part.idle(),
            "seed {}: the part is not idle at the end",
            self.seed
        );
        if let Some(a) = (0..EEPROM_BYTES).find(|&a| part.memory[a] != self.shadow[a]) {
            panic!(
                "seed {}: the array holds {:#04x} at {a:#06x}, expected {:#04x}",
                self.seed, part.memory[a], self.shadow[a]
            );
        }
        self.report.busy_polls = part.counts.busy_nacks;
        self.report.stretches = self.bus.stretches;
    }
}

fn random_bench(b: &mut dyn Backend, seed: u64, commands: u64) -> Report {
    let mut bench = Bench::new(b, seed);
    let mut schedule = ResetSchedule::new(&mut bench.rng, 6000);
    let mut idle = 0;
    let mut given = 0;
    while given < commands || bench.offer.is_some() || bench.outstanding.is_some() {
        if bench.offer.is_none() && given < commands && bench.rng.chance(0.3) {
            let o = bench.random_offer(true);
            bench.offer = Some(o);
            given += 1;
        }
        let reset = schedule.next_if(&mut bench.rng, given < commands);
        match bench.cycle(reset, 0.3, (0.1, 10)) {
            Some(_) => idle = 0,
            None => idle += 1,
        }
        assert!(idle < 100_000, "seed {seed}: eep_access hangs");
    }
    bench.report.resets = schedule.pulses();
    bench.finish();
    bench.report
}

#[test]
fn eep_access_against_the_eeprom_model() {
    for seed in [1, 2] {
        let r = run_both("eep_access", make, table, |b| random_bench(b, seed, 250)).result;
        eprintln!("{r:?}");
        let [ok, no_ack, bad_count, range] = r.results;
        assert!(
            ok > 100 && no_ack > 15 && bad_count > 3 && range > 3,
            "{r:?}"
        );
        assert!(r.reads > 40 && r.writes > 40 && r.page_splits > 5, "{r:?}");
        assert!(
            r.last_bytes > 0 && r.busy_polls > 20 && r.stretches > 100,
            "{r:?}"
        );
        assert!(r.resets >= 5 && r.cut_commands >= 3, "{r:?}");
    }
}

#[test]
fn eep_access_poll_limit_and_timing() {
    let r = run_both("eep_access", make, table, |b| {
        let mut bench = Bench::new(b, 9);
        let cmd = |write, address, count| Offer {
            command: EepCommand {
                write,
                address,
                count,
                data: [1, 2, 3, 4, 5, 6],
            },
            device: DEVICE,
            present: true,
            nack_at: None,
            busy_past_limit: false,
        };
        // Cycles per command at QUARTER, the part answering at once.
        let (_, read1) = bench.run_one(cmd(false, 0x100, 1));
        let (_, read6) = bench.run_one(cmd(false, 0x100, 6));
        let (_, write1) = bench.run_one(cmd(true, 0x200, 1));
        let (_, write6) = bench.run_one(cmd(true, 0x300, 6));
        let (_, split) = bench.run_one(cmd(true, 0x37d, 6));
        let (_, rejected) = bench.run_one(cmd(true, 0x37d, 0));
        // A write cycle longer than the polls: NoAcknowledge, yet the data is written.
        bench.bus.part.timing.write_cycle = 20 * WRITE_CYCLE;
        let busy = |o: Offer| Offer {
            busy_past_limit: true,
            ..o
        };
        let (r, _) = bench.run_one(busy(cmd(true, 0x400, 3)));
        assert_eq!(r.error, EepError::NoAcknowledge);
        assert_eq!(&bench.bus.part.memory[0x400..0x403], &[1, 2, 3]);
        // While it is still busy, a read fails the same way; once done, it succeeds.
        let (r, _) = bench.run_one(busy(cmd(false, 0x400, 3)));
        assert_eq!(r.error, EepError::NoAcknowledge);
        bench.bus.part.timing.write_cycle = WRITE_CYCLE;
        for _ in 0..20 * WRITE_CYCLE {
            bench.cycle(false, 1.0, (0.0, 1));
        }
        let (r, _) = bench.run_one(cmd(false, 0x400, 3));
        assert_eq!((r.error, &r.data[..3]), (EepError::None, &[1u8, 2, 3][..]));
        bench.finish();
        (read1, read6, write1, write6, split, rejected)
    })
    .result;
    eprintln!(
        "eep_access at quarter {QUARTER}: read 1 byte {} cycles, 6 bytes {} ({} per byte); \
         write 1 byte {} cycles, 6 bytes {} (tWR {WRITE_CYCLE} cycles, polled), 6 across a page \
         {}; rejected command {}",
        r.0,
        r.1,
        (r.1 - r.0) / 5,
        r.2,
        r.3,
        r.4,
        r.5
    );
    // A byte is 9 bits of 4 quarters + 3 cycles.
    let byte = 9 * (4 * QUARTER as u64 + 3);
    assert!(
        (r.1 - r.0) / 5 >= byte && (r.1 - r.0) / 5 <= byte + 8,
        "{r:?}"
    );
    assert!(r.5 <= 2, "a bad count is answered at once: {r:?}");
}
