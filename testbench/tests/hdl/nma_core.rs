//! `NmaCore` on both backends, inside `testbench::nma_top::NmaBenchTop` (the real register file
//! of the sample map behind its register port), its I2C pins wired through open-drain
//! resolution to the EEPROM model (`I2cEeprom`, real I2C timing at the top's quarter, write
//! cycle with ACK polling), fault inputs and the loader's port driven by the bench.
//!
//! Traffic: management packets built with the codec, sent as flits on a random arrival port
//! with random gaps, random data on `from_mesh` while `valid` is low, random backpressure on
//! `to_mesh` (with long stalls): register reads and writes of one and two registers (mapped,
//! read-only, unmapped addresses), bad register counts, EEPROM reads and writes of 1..6 bytes,
//! bad EEPROM counts and address ranges, unknown NMPTypes (and response types sent as
//! requests), DestID of another chip (dropped, counted), all-ones DestID (answered), packets
//! spoiled in each of the unpacker's ways (dropped, counted) or in their contents (answered);
//! random fault waveforms with reporting enabled and some faults masked; reset at random
//! moments in the second run.
//!
//! Checked: every packet out is exactly the flits the unit models give for the expected
//! response (`models::nma`: register responses from a register-file model of the sample map,
//! EEPROM responses from the EEPROM model's array (`eep_access_result` on a shadow), error
//! responses; then `packer_flits`): data, TransactionID, error code, CRC, and the output port
//! (= the port the request came in on, the backward route's current hop) on every flit, `last`
//! on the tail only; register responses in request order, EEPROM responses in request order;
//! the EEPROM array equals the shadow at the end (side effects, nothing written elsewhere);
//! drop and error-response events counted exactly (first run); every fault event carried by a
//! report that left after it, no report without a fresh event (never a flood), report IDs
//! running from 0 after each reset; no request lost: every request not cut by reset is
//! answered, none cut by reset is answered. Directed: responses waiting at the collector and
//! in the output FIFO leave before a fault report raised after them; the loader's EEPROM reads
//! are served before an NMP EEPROM request already waiting; with the EEPROM absent, EEPROM
//! requests get the EEPROM error response (no acknowledge), register requests go on meanwhile.
use hdl::formats::flit::{TAIL_BIT, TYPE_BIT};
use hdl::formats::mgmt::{
    self, MgmtBeat, MgmtError, MgmtPacket, MgmtPayload, NmpType, Route, MGMT_FLITS, UNSET_ID,
    W_INFO,
};
use hdl::mgmt::eep_access::EepError;
use hdl::regmap::{Access, RegError};
use std::collections::VecDeque;
use testbench::backend::u128_to_words;
use testbench::models::i2c_eeprom::{
    eep_access_result, EepCommand, EepResult, EepromTiming, I2cBus, I2cEeprom, EEPROM_BYTES,
};
use testbench::models::mgmt::{
    corrupt, packer_flits, random_packet, unpack_for_chip, Corruption, Unpacked,
};
use testbench::models::nma::{
    beat_type, eeprom_command, eeprom_response, register_request, register_response_beat,
    response_beat, RegAccessModel,
};
use testbench::models::reg_file::{RegFileModel, Request};
use testbench::nma_top::{port_table, status_value, NmaBenchTop, A, F};
use testbench::{run_both, Backend, BenchRng, PortId, ResetSchedule};

const CHIP: u16 = 0x0123;
const VC: u8 = 3;
/// A2..A0 of the part.
const DEVICE: u8 = 5;
const QUARTER: u64 = hdl::tops::NMA_CORE_QUARTER as u64;
/// The part's write cycle, in clock cycles: about three polls.
const WRITE_CYCLE: u64 = 300;
/// EEPROM bytes only the loader reads (no NMP write goes there), so its reads have one answer
/// whenever they run.
const LOADER_AREA: std::ops::Range<u32> = 0x9000..0xa000;
/// The reports' output port.
const REPORT_PORT: u8 = 21;

/// The ports of the bench top.
struct Ports {
    reset: PortId,
    in_valid: PortId,
    in_data: PortId,
    in_last: PortId,
    in_port: PortId,
    in_ready: PortId,
    out_valid: PortId,
    out_data: PortId,
    out_last: PortId,
    out_port: PortId,
    out_ready: PortId,
    loader_valid: PortId,
    loader_write: PortId,
    loader_address: PortId,
    loader_count: PortId,
    loader_data: PortId,
    loader_ready: PortId,
    result_valid: PortId,
    result_data: PortId,
    result_error: PortId,
    result_ready: PortId,
    scl_low: PortId,
    sda_low: PortId,
    scl_in: PortId,
    sda_in: PortId,
    faults: PortId,
    chip_id: PortId,
    report_enable: PortId,
    fault_mask: PortId,
    report_route: PortId,
    report_dest: PortId,
    eeprom_device: PortId,
    wrong_id: PortId,
    malformed: PortId,
    no_route: PortId,
    reports_sent: PortId,
    error_responses: PortId,
}

impl Ports {
    fn new(b: &dyn Backend) -> Self {
        let p = |n: &str| b.port(n);
        Self {
            reset: p("reset"),
            in_valid: p("from_mesh$valid"),
            in_data: p("from_mesh$data"),
            in_last: p("from_mesh$last"),
            in_port: p("from_mesh$port"),
            in_ready: p("from_mesh$ready"),
            out_valid: p("to_mesh$valid"),
            out_data: p("to_mesh$data"),
            out_last: p("to_mesh$last"),
            out_port: p("to_mesh$port"),
            out_ready: p("to_mesh$ready"),
            loader_valid: p("loader_command$valid"),
            loader_write: p("loader_command$write"),
            loader_address: p("loader_command$address"),
            loader_count: p("loader_command$count"),
            loader_data: p("loader_command$data"),
            loader_ready: p("loader_command$ready"),
            result_valid: p("loader_result$valid"),
            result_data: p("loader_result$data"),
            result_error: p("loader_result$error"),
            result_ready: p("loader_result$ready"),
            scl_low: p("i2c$scl_drive_low"),
            sda_low: p("i2c$sda_drive_low"),
            scl_in: p("i2c$scl_in"),
            sda_in: p("i2c$sda_in"),
            faults: p("faults"),
            chip_id: p("chip_id"),
            report_enable: p("report_enable"),
            fault_mask: p("fault_mask"),
            report_route: p("report_route"),
            report_dest: p("report_dest"),
            eeprom_device: p("eeprom_device"),
            wrong_id: p("dropped_wrong_id"),
            malformed: p("dropped_malformed"),
            no_route: p("dropped_no_route"),
            reports_sent: p("reports_sent"),
            error_responses: p("error_responses"),
        }
    }
}

/// Which unit answers a request (responses of one family leave in request order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Registers,
    Eeprom,
    Unknown,
}

fn family(b: &MgmtBeat) -> Family {
    match NmpType::from_code(beat_type(b)) {
        Some(NmpType::RegReadRequest | NmpType::RegWriteRequest) => Family::Registers,
        Some(NmpType::EepReadRequest | NmpType::EepWriteRequest) => Family::Eeprom,
        _ => Family::Unknown,
    }
}

/// A packet to send and what the agent does with it.
#[derive(Clone, Debug)]
struct Outgoing {
    flits: Vec<u128>,
    port: u8,
    verdict: Unpacked,
}

/// A request whose tail was taken, awaiting its response.
#[derive(Clone, Debug)]
struct Pending {
    beat: MgmtBeat,
    family: Family,
}

/// A packet that left on `to_mesh`.
#[derive(Clone, Debug)]
struct Departure {
    /// The cycle its head left.
    head: u64,
    family: Option<Family>,
}

/// What a run exercised (identical on both backends).
#[derive(Debug, Default, PartialEq, Clone)]
struct Report {
    cycles: u64,
    /// Responses by (type, error code).
    responses: std::collections::BTreeMap<(u8, u8), u64>,
    wrong_id: u64,
    malformed: u64,
    reports: u64,
    fault_events: u64,
    resets: u64,
    cut_requests: u64,
    loader_reads: u64,
    two_registers: u64,
    all_ones: u64,
    eeprom_bytes: [u64; 7],
}

struct Bench<'a> {
    b: &'a mut dyn Backend,
    p: Ports,
    rng: BenchRng,
    seed: u64,
    cycle: u64,
    /// The last cycle a response was matched or nothing was outstanding (the stall guard).
    last_progress: u64,
    bus: I2cBus,
    shadow: Vec<u8>,
    /// EEPROM writes cut by reset, read back at the first START after the cut.
    unsure: Vec<(EepCommand, u64)>,
    excused_until: u64,
    was_reset: bool,
    regs: RegFileModel,
    statuses: Vec<u64>,
    queue: VecDeque<Outgoing>,
    /// The packet being sent and how many of its flits were taken.
    sending: Option<(Outgoing, usize)>,
    /// Cycles before the next packet may start.
    gap: u64,
    outstanding: Vec<Pending>,
    received: Vec<u128>,
    received_port: u8,
    received_head: u64,
    departures: Vec<Departure>,
    // Faults.
    faults: u64,
    previous: u64,
    enable: bool,
    mask: u64,
    route: Route,
    report_dest: u16,
    /// Per fault bit: event cycles not yet carried by a report.
    events: Vec<VecDeque<u64>>,
    /// Per fault bit: the last event cycle and the last report departure carrying it.
    last_event: Vec<Option<u64>>,
    last_report: Vec<Option<u64>>,
    reports_since_reset: u16,
    fault_rate: f64,
    // Counters.
    expect_wrong_id: u64,
    expect_malformed: u64,
    got_wrong_id: u64,
    got_malformed: u64,
    error_pulses: u64,
    report_pulses: u64,
    error_delivered: u64,
    // Loader.
    loader_offer: Option<EepCommand>,
    loader_waiting: Option<EepCommand>,
    loader_results: Vec<u64>,
    /// The next request's TransactionID (unique among those in flight).
    next_tid: u16,
    // Traffic shape.
    out_ready: f64,
    stall: u64,
    report: Report,
}

impl<'a> Bench<'a> {
    fn new(b: &'a mut dyn Backend, seed: u64) -> Self {
        let p = Ports::new(b);
        let mut rng = BenchRng::new(seed);
        let mut part = I2cEeprom::new(DEVICE, EepromTiming::for_quarter(QUARTER, WRITE_CYCLE));
        for m in part.memory.iter_mut() {
            *m = rng.bits(8) as u8;
        }
        let shadow = part.memory.clone();
        let map = hdl::regmap::regfile_sample();
        let statuses = (0..map.count(Access::ReadOnly)).map(status_value).collect();
        let route = Route::from_path(&[REPORT_PORT]);
        Self {
            b,
            p,
            seed,
            cycle: 0,
            last_progress: 0,
            bus: I2cBus::new(part),
            shadow,
            unsure: vec![],
            excused_until: 0,
            was_reset: false,
            regs: RegFileModel::new(&map),
            statuses,
            queue: VecDeque::new(),
            sending: None,
            gap: 0,
            outstanding: vec![],
            received: vec![],
            received_port: 0,
            received_head: 0,
            departures: vec![],
            faults: 0,
            previous: 0,
            enable: true,
            mask: rng.bits(F) as u64 & rng.bits(F) as u64,
            route,
            report_dest: rng.bits(16) as u16,
            events: vec![VecDeque::new(); F],
            last_event: vec![None; F],
            last_report: vec![None; F],
            reports_since_reset: 0,
            fault_rate: 0.003,
            expect_wrong_id: 0,
            expect_malformed: 0,
            got_wrong_id: 0,
            got_malformed: 0,
            error_pulses: 0,
            report_pulses: 0,
            error_delivered: 0,
            loader_offer: None,
            loader_waiting: None,
            loader_results: vec![],
            next_tid: 0,
            out_ready: 0.7,
            stall: 0,
            report: Report::default(),
            rng,
        }
    }

    // ---- Requests ----

    /// A random packet for `dest` with a fresh TransactionID.
    fn fresh_packet(&mut self, dest: u16) -> MgmtPacket {
        let mut p = random_packet(&mut self.rng, dest);
        p.transaction_id = self.next_tid;
        self.next_tid = self.next_tid.wrapping_add(1);
        p
    }

    fn register_address(&mut self) -> u16 {
        let map = self.regs.map();
        let r = &mut self.rng;
        match r.range(0, 9) {
            0..=6 => {
                map.registers[r.range(0, map.registers.len() as u64 - 1) as usize].offset as u16
            }
            7 => r.bits(12) as u16,
            _ => r.bits(A) as u16,
        }
    }

    /// A register request (count mostly 1 or 2, sometimes 0 or 3..7).
    fn register_packet(&mut self, dest: u16) -> MgmtPacket {
        let mut p = self.fresh_packet(dest);
        p.nmp_type = if self.rng.chance(0.5) {
            NmpType::RegReadRequest
        } else {
            NmpType::RegWriteRequest
        };
        p.error = MgmtError::None;
        let count = match self.rng.range(0, 19) {
            0 => 0,
            1 => self.rng.range(3, 7) as u8,
            n => 1 + (n % 2) as u8,
        };
        let a0 = self.register_address();
        let a1 = if count >= 2 {
            self.register_address()
        } else {
            0
        };
        p.payload = MgmtPayload::Registers {
            count,
            address: [a0, a1],
            data: [self.rng.bits(64) as u64, self.rng.bits(64) as u64],
        };
        p
    }

    /// An EEPROM request outside the loader's area (counts 1..6, some 0 or 7, some past the
    /// end of the array).
    fn eeprom_packet(&mut self, dest: u16) -> MgmtPacket {
        let mut p = self.fresh_packet(dest);
        let r = &mut self.rng;
        p.nmp_type = if r.chance(0.5) {
            NmpType::EepReadRequest
        } else {
            NmpType::EepWriteRequest
        };
        p.error = MgmtError::None;
        let count = if r.chance(0.08) {
            [0, 7][r.range(0, 1) as usize]
        } else {
            r.range(1, 6) as u8
        };
        let address = match r.range(0, 9) {
            0..=1 => 0xfffa + r.range(0, 5) as u16,
            2..=3 => (r.range(0, 63) as u16 * 128) | r.range(123, 127) as u16,
            _ => r.range(0, 0x8fff) as u16,
        };
        p.payload = MgmtPayload::Eeprom {
            count,
            address,
            bytes: std::array::from_fn(|_| r.bits(8) as u8),
        };
        p
    }

    /// A request of an undefined type, or a response or report type sent as a request.
    fn unknown_packet(&mut self, dest: u16) -> Vec<u128> {
        let mut p = self.fresh_packet(dest);
        while p.nmp_type.is_request() {
            p = self.fresh_packet(dest);
        }
        let mut words = p.words();
        if self.rng.chance(0.5) {
            let code = [0x00, 0x06, 0x10, 0x21, 0x3f][self.rng.range(0, 4) as usize];
            words[W_INFO] = mgmt::NMP_TYPE.set(words[W_INFO] as u128, code) as u64;
        }
        mgmt::pack_words(p.header(), &words)
    }

    /// One random packet of the mix, queued with its verdict.
    fn queue_random(&mut self, eeprom_share: f64) {
        let dest = if self.rng.chance(0.15) {
            UNSET_ID
        } else {
            CHIP
        };
        let port = self.rng.bits(5) as u8;
        let x = self.rng.range(0, 99) as f64 / 100.0;
        let flits = if x < eeprom_share {
            self.eeprom_packet(dest).pack()
        } else if x < 0.55 {
            self.register_packet(dest).pack()
        } else if x < 0.65 {
            self.unknown_packet(dest)
        } else if x < 0.75 {
            let mut other = self.rng.bits(16) as u16;
            while other == CHIP || other == UNSET_ID {
                other = self.rng.bits(16) as u16;
            }
            self.register_packet(other).pack()
        } else if x < 0.88 {
            let p = self.register_packet(dest);
            let c = Corruption::ALL[self.rng.range(0, Corruption::ALL.len() as u64 - 1) as usize];
            corrupt(&mut self.rng, &p, c)
        } else {
            self.register_packet(dest).pack()
        };
        self.push(flits, port);
    }

    fn push(&mut self, flits: Vec<u128>, port: u8) {
        let verdict = unpack_for_chip(&flits, port, CHIP);
        self.queue.push_back(Outgoing {
            flits,
            port,
            verdict,
        });
    }

    // ---- One cycle ----

    fn cycle(&mut self, reset: bool) {
        let p = &self.p;
        let b = &mut *self.b;
        let rng = &mut self.rng;
        b.poke_bool(p.reset, reset);
        // Settings.
        b.poke(p.chip_id, CHIP as u128);
        b.poke_bool(p.report_enable, self.enable);
        b.poke(p.fault_mask, self.mask as u128);
        let [w1, w2] = self.route.words(true);
        b.poke(p.report_route, w1 as u128 | (w2 as u128) << 64);
        b.poke(p.report_dest, self.report_dest as u128);
        b.poke(p.eeprom_device, DEVICE as u128);
        // Faults: each bit toggles now and then.
        for i in 0..F {
            if rng.chance(self.fault_rate) {
                self.faults ^= 1 << i;
            }
        }
        b.poke(p.faults, self.faults as u128);
        // Mesh in.
        if self.sending.is_none() && self.gap == 0 {
            if let Some(o) = self.queue.pop_front() {
                self.sending = Some((o, 0));
            }
        }
        self.gap = self.gap.saturating_sub(1);
        match &self.sending {
            Some((o, i)) => {
                b.poke_bool(p.in_valid, true);
                b.poke_wide(
                    p.in_data,
                    &u128_to_words(o.flits[*i], hdl::formats::FLIT_BITS),
                );
                b.poke_bool(p.in_last, *i + 1 == o.flits.len());
                b.poke(p.in_port, o.port as u128);
            }
            None => {
                b.poke_bool(p.in_valid, false);
                b.poke_wide(
                    p.in_data,
                    &u128_to_words(rng.bits(65), hdl::formats::FLIT_BITS),
                );
                b.poke_bool(p.in_last, rng.chance(0.5));
                b.poke(p.in_port, rng.bits(5));
            }
        }
        // Mesh out: random readiness, with long stalls now and then.
        if self.stall == 0 && rng.chance(0.002) {
            self.stall = rng.range(20, 200);
        }
        let out_ready = self.stall == 0 && rng.chance(self.out_ready);
        self.stall = self.stall.saturating_sub(1);
        b.poke_bool(p.out_ready, out_ready);
        // The loader.
        match &self.loader_offer {
            Some(c) => {
                b.poke_bool(p.loader_valid, true);
                b.poke_bool(p.loader_write, c.write);
                b.poke(p.loader_address, c.address as u128);
                b.poke(p.loader_count, c.count as u128);
                b.poke(p.loader_data, 0);
            }
            None => {
                b.poke_bool(p.loader_valid, false);
                b.poke_bool(p.loader_write, rng.chance(0.5));
                b.poke(p.loader_address, rng.bits(16));
                b.poke(p.loader_count, rng.bits(3));
                b.poke(p.loader_data, rng.bits(48));
            }
        }
        let result_ready = rng.chance(0.7);
        b.poke_bool(p.result_ready, result_ready);
        // The I2C bus.
        let scl_low = b.peek_bool(p.scl_low);
        let sda_low = b.peek_bool(p.sda_low);
        let tag = format!("seed {} cycle {}", self.seed, self.cycle);
        if self.was_reset {
            assert!(
                !scl_low && !sda_low,
                "{tag}: the bus is not released after reset"
            );
        }
        let (scl, sda) = self.bus.lines(scl_low, sda_low);
        b.poke_bool(p.scl_in, scl);
        b.poke_bool(p.sda_in, sda);
        // Sample.
        let in_taken = self.sending.is_some() && b.peek_bool(p.in_ready);
        let out_valid = b.peek_bool(p.out_valid);
        let out_flit = out_valid.then(|| {
            let w = b.peek_wide(p.out_data);
            w[0] as u128 | (w[1] as u128) << 64
        });
        let out_last = b.peek_bool(p.out_last);
        let out_port = b.peek(p.out_port) as u8;
        let loader_taken = self.loader_offer.is_some() && b.peek_bool(p.loader_ready);
        let result = b.peek_bool(p.result_valid).then(|| {
            let d = b.peek(p.result_data);
            EepResult {
                data: std::array::from_fn(|i| (d >> (8 * i)) as u8),
                error: EepError::from_code(b.peek(p.result_error) as u64).unwrap(),
            }
        });
        self.got_wrong_id += b.peek_bool(p.wrong_id) as u64;
        self.got_malformed += b.peek_bool(p.malformed) as u64;
        self.error_pulses += b.peek_bool(p.error_responses) as u64;
        self.report_pulses += b.peek_bool(p.reports_sent) as u64;
        assert!(
            !b.peek_bool(p.no_route),
            "{tag}: a response without a route"
        );
        if reset {
            assert!(!b.peek_bool(p.in_ready), "{tag}: from_mesh.ready in reset");
            assert!(!out_valid, "{tag}: to_mesh.valid in reset");
            assert!(!b.peek_bool(p.loader_ready), "{tag}: loader ready in reset");
        }
        // Fault events, as the agent sees them (previous levels zero after reset).
        if reset {
            self.previous = 0;
        } else {
            let rising = if self.enable {
                self.faults & !self.previous & !self.mask
            } else {
                0
            };
            self.previous = self.faults;
            for i in 0..F {
                if rising >> i & 1 == 1 {
                    self.events[i].push_back(self.cycle);
                    self.last_event[i] = Some(self.cycle);
                    self.report.fault_events += 1;
                }
            }
        }
        // Writes cut by reset: the array's word once the bus has moved on.
        let starts = self.bus.part.counts.starts;
        let (now, later): (Vec<_>, Vec<_>) = self.unsure.drain(..).partition(|u| starts > u.1);
        self.unsure = later;
        for (c, _) in now {
            self.sync(&c);
        }
        if reset {
            self.on_reset(starts);
        } else {
            if in_taken {
                self.flit_taken();
            }
            if let (Some(flit), true) = (out_flit, out_ready) {
                self.flit_out(flit, out_last, out_port);
            }
            if let Some(r) = result.filter(|_| result_ready) {
                let c = self
                    .loader_waiting
                    .take()
                    .unwrap_or_else(|| panic!("{tag}: a loader result without a command"));
                let want = eep_access_result(&c, &self.shadow, self.bus.part.present, true, None);
                assert_eq!(r, want, "{tag}: loader result of {c:?}");
                self.loader_results.push(self.cycle);
                self.report.loader_reads += 1;
            }
            if loader_taken {
                assert!(self.loader_waiting.is_none(), "{tag}: two loader commands");
                self.loader_waiting = self.loader_offer.take();
            }
        }
        let stretch = if self.rng.chance(0.02) {
            self.rng.range(1, 6)
        } else {
            0
        };
        self.bus.step(scl, sda, stretch);
        self.b.tick();
        self.was_reset = reset;
        self.cycle += 1;
    }

    fn on_reset(&mut self, starts: u64) {
        self.report.cut_requests += self.outstanding.len() as u64;
        for o in self.outstanding.drain(..) {
            if o.family == Family::Eeprom {
                let c = eeprom_command(&o.beat);
                if c.write {
                    self.unsure.push((c, starts));
                }
            }
        }
        self.received.clear();
        if let Some((o, i)) = self.sending.as_mut() {
            if *i > 0 {
                // The rest arrives without its head: malformed.
                o.verdict = Unpacked::Malformed;
            }
        }
        self.loader_waiting = None;
        self.regs.reset();
        for e in self.events.iter_mut() {
            e.clear();
        }
        self.last_event = vec![None; F];
        self.reports_since_reset = 0;
        self.bus.part.present = true;
        self.excused_until = self.bus.part.cycle() + 4 + 8 * QUARTER;
    }

    fn flit_taken(&mut self) {
        let (o, i) = self.sending.as_mut().unwrap();
        *i += 1;
        if *i < o.flits.len() {
            return;
        }
        let (o, _) = self.sending.take().unwrap();
        self.gap = if self.rng.chance(0.3) {
            0
        } else {
            self.rng.range(1, 30)
        };
        match o.verdict {
            Unpacked::Request(beat) => {
                if beat.dst == UNSET_ID {
                    self.report.all_ones += 1;
                }
                self.outstanding.push(Pending {
                    beat,
                    family: family(&beat),
                })
            }
            Unpacked::WrongId => self.expect_wrong_id += 1,
            Unpacked::Malformed => self.expect_malformed += 1,
        }
    }

    fn flit_out(&mut self, flit: u128, last: bool, port: u8) {
        let tag = format!("seed {} cycle {}", self.seed, self.cycle);
        if self.received.is_empty() {
            self.received_port = port;
            self.received_head = self.cycle;
        }
        assert_eq!(
            port, self.received_port,
            "{tag}: the port changed inside a packet"
        );
        self.received.push(flit);
        let is_tail = (flit >> TYPE_BIT) & 1 == 0 && (flit >> (TAIL_BIT)) & 0b11 == 0b01;
        assert_eq!(last, is_tail, "{tag}: last must mark the tail flit");
        assert!(
            self.received.len() <= MGMT_FLITS,
            "{tag}: a packet longer than {MGMT_FLITS}"
        );
        if is_tail {
            assert_eq!(self.received.len(), MGMT_FLITS, "{tag}: short packet");
            let flits = std::mem::take(&mut self.received);
            self.packet_out(flits, port);
        }
    }

    fn packet_out(&mut self, flits: Vec<u128>, port: u8) {
        let tag = format!("seed {} cycle {}", self.seed, self.cycle);
        let decoded = MgmtPacket::unpack(&flits)
            .unwrap_or_else(|e| panic!("{tag}: the codec rejects a packet out: {e}"));
        assert_eq!(decoded.vc, VC, "{tag}");
        if decoded.nmp_type == NmpType::FaultReport {
            return self.report_out(&flits, &decoded, port);
        }
        let i = self
            .outstanding
            .iter()
            .position(|o| {
                mgmt::TRANSACTION_ID.get(o.beat.words[W_INFO] as u128) as u16
                    == decoded.transaction_id
            })
            .unwrap_or_else(|| panic!("{tag}: a response without a request: {decoded:?}"));
        let o = self.outstanding.remove(i);
        self.last_progress = self.cycle;
        assert!(
            self.outstanding[..i].iter().all(|x| x.family != o.family),
            "{tag}: a {:?} response overtook an earlier one of its family",
            o.family
        );
        let want = self.expected_response(&o.beat);
        let (want_port, want_flits) = packer_flits(&want, VC).expect("a response has a route");
        assert_eq!(port, want_port, "{tag}: output port of {decoded:?}");
        if flits != want_flits {
            let got = MgmtBeat::of(&decoded);
            panic!(
                "{tag}: response {got:x?}, expected {want:x?} (request {:x?})",
                o.beat
            );
        }
        if decoded.nmp_type.is_error_response() {
            self.error_delivered += 1;
        }
        *self
            .report
            .responses
            .entry((decoded.nmp_type.code(), decoded.error.code()))
            .or_default() += 1;
        self.departures.push(Departure {
            head: self.received_head,
            family: Some(o.family),
        });
    }

    fn report_out(&mut self, flits: &[u128], decoded: &MgmtPacket, port: u8) {
        let tag = format!("seed {} cycle {}", self.seed, self.cycle);
        let MgmtPayload::Fault { bits } = decoded.payload else {
            unreachable!()
        };
        let info = mgmt::DEST_TYPE.set(0, mgmt::DestType::Nic.code() as u128);
        let info = mgmt::NMP_TYPE.set(info, NmpType::FaultReport.code() as u128);
        let info = mgmt::TRANSACTION_ID.set(info, self.reports_since_reset as u128) as u64;
        let [w1, w2] = self.route.words(true);
        let want = MgmtBeat {
            src: CHIP,
            dst: self.report_dest,
            words: [info, w1, w2, 0, 0, 0, bits, 0],
        };
        let (want_port, want_flits) = packer_flits(&want, VC).unwrap();
        assert_eq!(
            (port, flits),
            (want_port, &want_flits[..]),
            "{tag}: report {decoded:?}"
        );
        assert!(
            bits != 0 && bits >> F == 0 && bits & self.mask == 0,
            "{tag}: bits {bits:#x}"
        );
        for i in 0..F {
            if bits >> i & 1 == 1 {
                // Each report carries at least one event of its own (never a flood).
                let e = self.events[i].pop_front();
                assert!(
                    e.is_some_and(|e| e < self.received_head),
                    "{tag}: report of fault {i} without a fresh event"
                );
                self.last_report[i] = Some(self.received_head);
            }
        }
        self.reports_since_reset = self.reports_since_reset.wrapping_add(1);
        self.report.reports += 1;
        self.departures.push(Departure {
            head: self.received_head,
            family: None,
        });
    }

    /// The response to `beat`, from the models' state now (responses of a family come in
    /// request order, so the state is the one the unit saw).
    fn expected_response(&mut self, beat: &MgmtBeat) -> MgmtBeat {
        match family(beat) {
            Family::Unknown => response_beat(
                beat,
                CHIP,
                NmpType::RegErrorResponse,
                MgmtError::UnknownType,
                [0; 3],
            ),
            Family::Registers => {
                let (needed, refusal) =
                    RegAccessModel::new(A).needed(&hdl::mgmt::ticket::RequestTicket::of(beat, 0));
                let (write, count, address, data) = register_request(beat);
                if count == 2 {
                    self.report.two_registers += 1;
                }
                let (mut values, mut errors) = ([0; 2], [0; 2]);
                for i in 0..needed as usize {
                    let r = Request {
                        address: address[i] as u64,
                        write,
                        data: data[i],
                    };
                    let answer = self.regs.answer(&r, &self.statuses);
                    if write && answer.error == RegError::None {
                        self.commit(&r);
                    }
                    values[i] = answer.data;
                    errors[i] = answer.error.code() as u8;
                }
                register_response_beat(beat, CHIP, needed, refusal, values, errors)
            }
            Family::Eeprom => {
                let c = eeprom_command(beat);
                let want = eep_access_result(&c, &self.shadow, self.bus.part.present, true, None);
                if c.write && want.error == EepError::None {
                    for i in 0..c.count as usize {
                        self.shadow[c.address as usize + i] = c.data[i];
                    }
                }
                if want.error == EepError::None {
                    self.report.eeprom_bytes[c.count as usize] += 1;
                }
                eeprom_response(beat, CHIP, &want)
            }
        }
    }

    /// A register write's effect on the register-file model.
    fn commit(&mut self, r: &Request) {
        let reg = self.regs.register_at(r.address).unwrap().clone();
        let i = self.regs.map().index(reg.access, &reg.name);
        match reg.access {
            Access::ReadWrite => self.regs.settings[i] = r.data & reg.mask(),
            Access::WriteOneToClear => self.regs.flags[i] &= !r.data,
            Access::Counter => self.regs.counters[i].value = 0,
            Access::ReadOnly => unreachable!(),
        }
    }

    /// The shadow takes the array's bytes of `c`.
    fn sync(&mut self, c: &EepCommand) {
        let end = (c.address + c.count.min(6)).min(EEPROM_BYTES as u32) as usize;
        for a in c.address as usize..end {
            self.shadow[a] = self.bus.part.memory[a];
        }
    }

    // ---- Phases ----

    /// Runs `cycles` cycles of random traffic (a new packet queued when the queue is short),
    /// resets from `schedule`.
    fn random_phase(&mut self, requests: usize, eeprom_share: f64, schedule: &mut ResetSchedule) {
        let mut queued = 0;
        while queued < requests {
            if self.queue.len() < 2 {
                self.queue_random(eeprom_share);
                queued += 1;
            }
            let r = schedule.next(&mut self.rng);
            self.cycle(r);
            assert!(self.cycle < 3_000_000, "seed {}: hang", self.seed);
            // A request held for good (a store slot never given back, say) stops the answers
            // (and the input behind them): no EEPROM request takes anywhere near this long.
            if self.outstanding.is_empty() && self.sending.is_none() && self.queue.is_empty() {
                self.last_progress = self.cycle;
            }
            assert!(
                self.cycle - self.last_progress < 200_000,
                "seed {}: no response for 200000 cycles: {:?}",
                self.seed,
                self.outstanding
            );
        }
        self.report.resets = schedule.pulses();
    }

    /// Runs until every packet is sent and answered (no reset), with `to_mesh` ready as set.
    fn drain(&mut self) {
        let start = self.cycle;
        while self.sending.is_some()
            || !self.queue.is_empty()
            || !self.outstanding.is_empty()
            || !self.received.is_empty()
            || self.loader_offer.is_some()
            || self.loader_waiting.is_some()
        {
            self.cycle(false);
            assert!(
                self.cycle - start < 200_000,
                "seed {}: requests not answered: {:?}",
                self.seed,
                self.outstanding
            );
        }
        // Let the EEPROM finish and the last reports come out.
        let faults = self.fault_rate;
        self.fault_rate = 0.0;
        for _ in 0..WRITE_CYCLE + 200 {
            self.cycle(false);
        }
        self.fault_rate = faults;
    }

    /// Sends `packets` back to back and runs until their tails are taken.
    fn send_now(&mut self, packets: Vec<MgmtPacket>) {
        for p in packets {
            let port = self.rng.bits(5) as u8;
            self.push(p.pack(), port);
        }
        while self.sending.is_some() || !self.queue.is_empty() {
            self.gap = 0;
            self.cycle(false);
        }
    }

    /// Responses waiting in the agent leave before a fault report raised after them.
    fn directed_report_order(&mut self) {
        self.drain();
        let saved = (self.out_ready, self.fault_rate);
        self.fault_rate = 0.0;
        self.out_ready = 0.0;
        let reads: Vec<MgmtPacket> = (0..3)
            .map(|_| {
                let mut p = self.register_packet(CHIP);
                p.nmp_type = NmpType::RegReadRequest;
                p.payload = MgmtPayload::Registers {
                    count: 1,
                    address: [0, 0],
                    data: [0, 0],
                };
                p
            })
            .collect();
        self.send_now(reads);
        // An unknown type: its error response waits in the distributor.
        let flits = self.unknown_packet(CHIP);
        let port = self.rng.bits(5) as u8;
        self.push(flits, port);
        while self.sending.is_some() || !self.queue.is_empty() {
            self.cycle(false);
        }
        for _ in 0..20 {
            self.cycle(false);
        }
        let waiting = self.outstanding.len();
        assert_eq!(waiting, 4, "seed {}: four responses wait", self.seed);
        // A fault event now.
        let bit = (0..F).find(|i| self.mask >> i & 1 == 0).unwrap();
        self.faults &= !(1 << bit);
        self.cycle(false);
        self.faults |= 1 << bit;
        let event = self.cycle;
        for _ in 0..20 {
            self.cycle(false);
        }
        self.out_ready = 1.0;
        let first = self.departures.len();
        self.drain();
        let d = &self.departures[first..];
        let report = d
            .iter()
            .position(|x| x.family.is_none() && x.head > event)
            .unwrap_or_else(|| panic!("seed {}: no report: {d:?}", self.seed));
        assert!(
            d[..report].iter().filter(|x| x.family.is_some()).count() == waiting,
            "seed {}: a fault report left ahead of a waiting response: {d:?}",
            self.seed
        );
        (self.out_ready, self.fault_rate) = saved;
    }

    /// The loader's reads are served before an NMP EEPROM request that waits.
    fn directed_loader_priority(&mut self) {
        self.drain();
        let reads: Vec<MgmtPacket> = (0..2)
            .map(|_| {
                let mut p = self.eeprom_packet(CHIP);
                p.nmp_type = NmpType::EepReadRequest;
                p.payload = MgmtPayload::Eeprom {
                    count: 6,
                    address: 0x100,
                    bytes: [0; 6],
                };
                p
            })
            .collect();
        self.send_now(reads);
        let first = self.departures.len();
        // The first NMP command is on the bus; the second waits in the distributor.
        for _ in 0..50 {
            self.cycle(false);
        }
        let loader_first = self.loader_results.len();
        for k in 0..3u32 {
            self.loader_offer = Some(EepCommand {
                write: false,
                address: LOADER_AREA.start + 64 * k + self.rng.range(0, 50) as u32,
                count: self.rng.range(1, 6) as u32,
                data: [0; 6],
            });
            while self.loader_offer.is_some() || self.loader_waiting.is_some() {
                self.cycle(false);
            }
        }
        let last_loader = *self.loader_results.last().unwrap();
        assert_eq!(self.loader_results.len() - loader_first, 3);
        self.drain();
        let eeprom: Vec<&Departure> = self.departures[first..]
            .iter()
            .filter(|d| d.family == Some(Family::Eeprom))
            .collect();
        assert_eq!(eeprom.len(), 2, "seed {}", self.seed);
        assert!(
            eeprom[1].head > last_loader,
            "seed {}: a waiting NMP EEPROM request went before the loader's reads ({} <= {last_loader})",
            self.seed,
            eeprom[1].head
        );
    }

    /// With the EEPROM absent, EEPROM requests get `EepromNack` error responses while register
    /// requests go on.
    fn directed_absent_eeprom(&mut self) {
        self.drain();
        self.bus.part.present = false;
        let mut packets = vec![];
        for _ in 0..2 {
            let mut p = self.eeprom_packet(CHIP);
            p.payload = MgmtPayload::Eeprom {
                count: 2,
                address: 0x200,
                bytes: [9; 6],
            };
            packets.push(p);
            for _ in 0..3 {
                packets.push(self.register_packet(CHIP));
            }
        }
        let before = self
            .report
            .responses
            .get(&(
                NmpType::EepErrorResponse.code(),
                MgmtError::EepromNack.code(),
            ))
            .copied()
            .unwrap_or(0);
        self.send_now(packets);
        self.drain();
        self.bus.part.present = true;
        let after = self.report.responses[&(
            NmpType::EepErrorResponse.code(),
            MgmtError::EepromNack.code(),
        )];
        assert_eq!(after - before, 2, "seed {}", self.seed);
    }

    /// The final checks: counts, faults, the array.
    fn finish(&mut self, exact_counts: bool) {
        self.drain();
        // One more EEPROM read: after a reset cut a transaction, the next request still
        // succeeds (the master recovers the bus), and the part ends idle.
        let mut p = self.eeprom_packet(CHIP);
        p.nmp_type = NmpType::EepReadRequest;
        p.payload = MgmtPayload::Eeprom {
            count: 3,
            address: 0x0333,
            bytes: [0; 6],
        };
        let ok = (NmpType::EepReadResponse.code(), MgmtError::None.code());
        let before = self.report.responses.get(&ok).copied().unwrap_or(0);
        self.send_now(vec![p]);
        self.drain();
        assert_eq!(
            self.report.responses[&ok],
            before + 1,
            "seed {}: the last EEPROM read failed",
            self.seed
        );
        let tag = format!("seed {}", self.seed);
        assert!(
            self.outstanding.is_empty(),
            "{tag}: lost requests {:?}",
            self.outstanding
        );
        // Drops are exact even under reset (a pulse follows the tail's edge, and no tail is
        // taken in a reset cycle); an error response or report queued and then cut by reset
        // has pulsed without leaving.
        assert_eq!(
            self.got_wrong_id, self.expect_wrong_id,
            "{tag}: wrong-ID drops"
        );
        assert_eq!(
            self.got_malformed, self.expect_malformed,
            "{tag}: malformed drops"
        );
        if exact_counts {
            assert_eq!(
                self.error_pulses, self.error_delivered,
                "{tag}: error responses"
            );
            assert_eq!(
                self.report_pulses, self.report.reports,
                "{tag}: reports sent"
            );
        } else {
            assert!(
                self.error_pulses >= self.error_delivered,
                "{tag}: error responses"
            );
            assert!(
                self.report_pulses >= self.report.reports,
                "{tag}: reports sent"
            );
        }
        self.report.wrong_id = self.got_wrong_id;
        self.report.malformed = self.got_malformed;
        for i in 0..F {
            if let Some(e) = self.last_event[i] {
                assert!(
                    self.last_report[i].is_some_and(|r| r > e),
                    "{tag}: fault {i}'s event at cycle {e} was never reported"
                );
            }
        }
        for (c, _) in std::mem::take(&mut self.unsure) {
            self.sync(&c);
        }
        let v = &self.bus.part.violations;
        assert!(
            v.iter().all(|&(c, _)| c <= self.excused_until),
            "{tag}: I2C timing violations {v:?}"
        );
        assert!(
            self.bus.part.idle(),
            "{tag}: the part is not idle at the end"
        );
        if let Some(a) = (0..EEPROM_BYTES).find(|&a| self.bus.part.memory[a] != self.shadow[a]) {
            panic!(
                "{tag}: the array holds {:#04x} at {a:#06x}, expected {:#04x}",
                self.bus.part.memory[a], self.shadow[a]
            );
        }
        self.report.cycles = self.cycle;
    }
}

fn make() -> NmaBenchTop {
    NmaBenchTop::new(VC)
}

/// The register file takes its reset values only at a reset, so every run starts with one.
fn start(bench: &mut Bench) {
    bench.cycle(true);
}

#[test]
fn nma_core_against_the_unit_models() {
    let r = run_both("nma_core", make, port_table, |b| {
        let mut bench = Bench::new(b, 1201);
        start(&mut bench);
        let mut never = ResetSchedule::never();
        bench.random_phase(250, 0.08, &mut never);
        bench.directed_report_order();
        bench.directed_loader_priority();
        bench.directed_absent_eeprom();
        bench.finish(true);
        bench.report.clone()
    })
    .result;
    eprintln!("nma_core (no reset): {r:?}");
    let key = |t: NmpType, e: MgmtError| (t.code(), e.code());
    for k in [
        key(NmpType::RegReadResponse, MgmtError::None),
        key(NmpType::RegWriteResponse, MgmtError::None),
        key(NmpType::RegErrorResponse, MgmtError::Unmapped),
        key(NmpType::RegErrorResponse, MgmtError::ReadOnly),
        key(NmpType::RegErrorResponse, MgmtError::BadCount),
        key(NmpType::RegErrorResponse, MgmtError::UnknownType),
        key(NmpType::EepReadResponse, MgmtError::None),
        key(NmpType::EepWriteResponse, MgmtError::None),
        key(NmpType::EepErrorResponse, MgmtError::EepromNack),
        key(NmpType::EepErrorResponse, MgmtError::EepromRange),
    ] {
        assert!(r.responses.contains_key(&k), "no {k:?}: {r:?}");
    }
    assert!(
        r.wrong_id > 5 && r.malformed > 10 && r.all_ones > 5,
        "{r:?}"
    );
    assert!(
        r.reports > 3 && r.two_registers > 10 && r.loader_reads == 3,
        "{r:?}"
    );
}

#[test]
fn nma_core_under_reset() {
    let r = run_both("nma_core", make, port_table, |b| {
        let mut bench = Bench::new(b, 1202);
        start(&mut bench);
        let mut schedule = ResetSchedule::new(&mut bench.rng, 1500);
        bench.random_phase(300, 0.08, &mut schedule);
        bench.finish(false);
        bench.report.clone()
    })
    .result;
    eprintln!("nma_core (resets): {r:?}");
    assert!(r.resets >= 4 && r.cut_requests >= 2, "{r:?}");
    assert!(r.responses.values().sum::<u64>() > 100, "{r:?}");
}
