//! A cycle-level model of a 24LC512-like I2C EEPROM, the reference the I2C master and
//! `eep_access` are checked against; and the model of `eep_access`'s results.
//!
//! **The part.** 64 KiB, 16-bit byte addresses, device address `0b1010_A2A1A0` (A2..A0 are
//! [`I2cEeprom::device`]). Write: START, control byte (R/W = 0), address high, address low,
//! data bytes, STOP; the data goes into the page (128 bytes) of the address with the low 7
//! address bits wrapping inside the page, as the real part does, and is written on the STOP if
//! it came after a whole byte; then the part is busy for `write_cycle` cycles (tWR) and does not
//! acknowledge its control byte (ACK polling). Read: a control byte with R/W = 1 reads from the
//! address pointer on, incrementing it (wrapping at 64 KiB), as long as the master acknowledges;
//! random read = a write of the address with no data, repeated START, read. A START anywhere
//! begins a new transaction (data of an unfinished write is dropped); a START or STOP inside a
//! byte drops everything of the transaction not yet written and is counted
//! ([`Counts::aborted`]): only a master cut by reset should cause one.
//!
//! **Bus.** [`I2cEeprom::step`] is called once per clock cycle with the lines as they are on
//! the bus (the AND of every driver) and returns whether the part pulls SDA low in the *next*
//! cycle (its output is registered; it changes `output_delay` cycles after SCL falls).
//!
//! **Timing checks** (cycles, [`EepromTiming`]), each miss recorded as a [`Violation`] with
//! its cycle: SCL low at least `min_low` and high at least `min_high`; a master's SDA change
//! at least `setup` cycles before SCL rises and at least `hold` after it fell (an SDA change in
//! the cycle SCL rises or falls always misses); a repeated START at least `start_setup` after
//! SCL rose; SCL held high at least `start_hold` after a START; a STOP at least `stop_setup`
//! after SCL rose; at least `bus_free` cycles between a STOP and the next START. SDA changes
//! while SCL is high are START and STOP conditions by definition, so "data stable while SCL
//! is high" shows up as an abort inside a byte.
//!
//! **Faults.** `present = false`: never acknowledges (an absent part). `nack_at = Some(n)`:
//! does not acknowledge byte `n` of every transaction (0 = control byte) and ignores the bus up
//! to the next START or STOP.
use std::collections::VecDeque;

/// Bytes in the part.
pub const EEPROM_BYTES: usize = 1 << 16;
/// Bytes in a write page.
pub const PAGE_BYTES: usize = 128;

/// Minimum times of the bus, in clock cycles (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EepromTiming {
    /// SCL low (tLOW).
    pub min_low: u64,
    /// SCL high (tHIGH).
    pub min_high: u64,
    /// Master data setup before SCL rises (tSU;DAT).
    pub setup: u64,
    /// Master data hold after SCL falls (tHD;DAT).
    pub hold: u64,
    /// Repeated START after SCL rises (tSU;STA).
    pub start_setup: u64,
    /// SCL high after a START (tHD;STA).
    pub start_hold: u64,
    /// STOP after SCL rises (tSU;STO).
    pub stop_setup: u64,
    /// Bus free between STOP and START (tBUF).
    pub bus_free: u64,
    /// The part changes SDA this many cycles after SCL falls (tAA; at least 0).
    pub output_delay: u64,
    /// Write cycle time (tWR).
    pub write_cycle: u64,
}

impl EepromTiming {
    /// What an `I2cMaster` with `quarter` cycles per quarter period promises (its doc): SCL low
    /// 2Q, high 2Q (+3), data setup and hold Q, START/STOP setup and hold 2Q, bus free 2Q; the
    /// part answers 1 cycle after SCL falls and writes in `write_cycle` cycles.
    pub fn for_quarter(quarter: u64, write_cycle: u64) -> Self {
        Self {
            min_low: 2 * quarter,
            min_high: 2 * quarter,
            setup: quarter,
            hold: quarter,
            start_setup: 2 * quarter,
            start_hold: 2 * quarter,
            stop_setup: 2 * quarter,
            bus_free: 2 * quarter,
            output_delay: 1,
            write_cycle,
        }
    }

    /// The I2C specification's standard mode (100 kHz) at a `clock_hz` clock: tLOW 4.7 us,
    /// tHIGH 4.0 us, tSU;DAT 250 ns, tHD;DAT 0 (checked as 1 cycle: the master must not move
    /// SDA in the cycle SCL falls), tSU;STA 4.7 us, tHD;STA 4.0 us, tSU;STO 4.0 us, tBUF 4.7 us;
    /// output 300 ns after SCL falls; tWR `write_cycle` cycles.
    pub fn standard(clock_hz: u64, write_cycle: u64) -> Self {
        let ns = |t: u64| (t * clock_hz).div_ceil(1_000_000_000);
        Self {
            min_low: ns(4700),
            min_high: ns(4000),
            setup: ns(250),
            hold: 1,
            start_setup: ns(4700),
            start_hold: ns(4000),
            stop_setup: ns(4000),
            bus_free: ns(4700),
            output_delay: ns(300),
            write_cycle,
        }
    }
}

/// A missed bus timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Violation {
    /// SCL low shorter than `min_low`.
    MinLow,
    /// SCL high shorter than `min_high`.
    MinHigh,
    /// Master data changed less than `setup` cycles before SCL rose.
    Setup,
    /// Master data changed less than `hold` cycles after SCL fell.
    Hold,
    /// Repeated START too soon after SCL rose.
    StartSetup,
    /// SCL fell too soon after a START.
    StartHold,
    /// STOP too soon after SCL rose.
    StopSetup,
    /// START too soon after a STOP.
    BusFree,
}

/// What the part is doing in the current transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// No transaction (after a STOP or power-up).
    Idle,
    /// Receiving the control byte.
    Control,
    AddressHigh,
    AddressLow,
    /// Receiving data to write.
    WriteData,
    /// Sending data.
    ReadData,
    /// Not addressed, or gave a NACK: waiting for START or STOP.
    Ignore,
}

/// Counts of what the part saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// START conditions (repeated ones included).
    pub starts: u64,
    /// STOP conditions.
    pub stops: u64,
    /// Page writes carried out.
    pub writes: u64,
    /// Bytes sent to a master.
    pub bytes_read: u64,
    /// Control bytes not acknowledged because of the write cycle (ACK polls answered NACK).
    pub busy_nacks: u64,
    /// START or STOP inside a byte.
    pub aborted: u64,
}

/// The EEPROM on the bus; see the module documentation.
#[derive(Clone, Debug)]
pub struct I2cEeprom {
    /// The array.
    pub memory: Vec<u8>,
    /// A2..A0.
    pub device: u8,
    /// Timing to check and to keep.
    pub timing: EepromTiming,
    /// The part answers at all.
    pub present: bool,
    /// Byte of every transaction that is not acknowledged (0 = control byte).
    pub nack_at: Option<u32>,
    /// Timing misses: (cycle, what).
    pub violations: Vec<(u64, Violation)>,
    /// What it saw.
    pub counts: Counts,
    cycle: u64,
    scl: bool,
    sda: bool,
    /// The part pulls SDA low (as returned by the last step).
    drive_low: bool,
    /// A change of the output due at a cycle.
    pending: VecDeque<(u64, bool)>,
    last_rise: Option<u64>,
    last_fall: Option<u64>,
    /// The last SDA change made by someone else (the master).
    last_master_change: Option<u64>,
    last_start: Option<u64>,
    last_stop: Option<u64>,
    /// A START happened while SCL is still high after it.
    start_in_high: bool,
    /// The part's output changed in the last step (so an SDA change now is its own).
    pending_changed_last: bool,
    /// The control byte asked for a read: sending starts after its acknowledge.
    next_read: bool,
    state: State,
    /// SCL rises seen in the current byte (0..=9).
    bits: u32,
    shift: u8,
    /// Byte number in the transaction (0 = control byte).
    byte_index: u32,
    /// The current byte was acknowledged by the part (receiving) or the master (sending).
    acked: bool,
    address_high: u8,
    pointer: u16,
    /// The byte being sent.
    out_byte: u8,
    /// Write in progress: first address and data.
    write_start: u16,
    write_data: Vec<u8>,
    busy_until: u64,
}

impl I2cEeprom {
    /// A present part at device address `device` (0..=7), erased (all 0xff), with `timing`.
    pub fn new(device: u8, timing: EepromTiming) -> Self {
        assert!(
            device < 8,
            "I2cEeprom: device address {device} is not 3 bits"
        );
        Self {
            memory: vec![0xff; EEPROM_BYTES],
            device,
            timing,
            present: true,
            nack_at: None,
            violations: vec![],
            counts: Counts::default(),
            cycle: 0,
            scl: true,
            sda: true,
            drive_low: false,
            pending: VecDeque::new(),
            last_rise: None,
            last_fall: None,
            last_master_change: None,
            last_start: None,
            last_stop: None,
            start_in_high: false,
            pending_changed_last: false,
            next_read: false,
            state: State::Idle,
            bits: 0,
            shift: 0,
            byte_index: 0,
            acked: false,
            address_high: 0,
            pointer: 0,
            out_byte: 0,
            write_start: 0,
            write_data: vec![],
            busy_until: 0,
        }
    }

    /// The part pulls SDA low in this cycle.
    pub fn drive_low(&self) -> bool {
        self.drive_low
    }

    /// Cycles stepped so far.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// The part is in its write cycle (does not acknowledge).
    pub fn busy(&self) -> bool {
        self.cycle < self.busy_until
    }

    /// No transaction in progress and SDA released.
    pub fn idle(&self) -> bool {
        matches!(self.state, State::Idle | State::Ignore) && !self.drive_low && !self.busy()
    }

    fn violation(&mut self, v: Violation) {
        self.violations.push((self.cycle, v));
    }

    /// Changes the output `output_delay` cycles from now.
    fn drive_later(&mut self, low: bool) {
        self.pending
            .push_back((self.cycle + self.timing.output_delay, low));
    }

    /// Releases SDA at once and forgets planned changes (START/STOP: the part lets go).
    fn release_now(&mut self) {
        self.pending.clear();
        self.drive_low = false;
    }

    /// One clock cycle with the bus at `scl`, `sda`; returns whether the part pulls SDA low in
    /// the next cycle.
    pub fn step(&mut self, scl: bool, sda: bool) -> bool {
        self.cycle += 1;
        let t = self.timing;
        let (was_scl, was_sda) = (self.scl, self.sda);
        self.scl = scl;
        self.sda = sda;
        let rose = !was_scl && scl;
        let fell = was_scl && !scl;
        // An SDA change the part did not make (its own output did not change last step).
        let own = self.pending_changed_last;
        let master_change = was_sda != sda && !own;
        self.pending_changed_last = false;
        if master_change {
            if rose || fell {
                self.violation(if rose {
                    Violation::Setup
                } else {
                    Violation::Hold
                });
            } else if !scl {
                if let Some(f) = self.last_fall {
                    if self.cycle - f < t.hold {
                        self.violation(Violation::Hold);
                    }
                }
            }
            self.last_master_change = Some(self.cycle);
        }
        if rose {
            if let Some(f) = self.last_fall {
                if self.cycle - f < t.min_low {
                    self.violation(Violation::MinLow);
                }
                if let Some(c) = self.last_master_change {
                    if c > f && self.cycle - c < t.setup && c != self.cycle {
                        self.violation(Violation::Setup);
                    }
                }
            }
            self.last_rise = Some(self.cycle);
            self.on_rise(sda);
        }
        if fell {
            if let Some(r) = self.last_rise {
                if self.cycle - r < t.min_high {
                    self.violation(Violation::MinHigh);
                }
            }
            if self.start_in_high {
                if let Some(s) = self.last_start {
                    if self.cycle - s < t.start_hold {
                        self.violation(Violation::StartHold);
                    }
                }
                self.start_in_high = false;
            }
            self.last_fall = Some(self.cycle);
            self.on_fall();
        }
        if was_scl && scl && was_sda != sda {
            if sda {
                self.on_stop();
            } else {
                self.on_start();
            }
        }
        // The output changes planned for now.
        let before = self.drive_low;
        while let Some(&(due, low)) = self.pending.front() {
            if due > self.cycle {
                break;
            }
            self.drive_low = low;
            self.pending.pop_front();
        }
        self.pending_changed_last = self.drive_low != before;
        self.drive_low
    }

    fn on_start(&mut self) {
        let t = self.timing;
        if let Some(r) = self.last_rise {
            // tSU;STA applies to a repeated START (SCL rose after the last STOP, if any); a
            // START on a free bus is checked by tBUF.
            let repeated = self.last_fall.is_some() && self.last_stop.is_none_or(|s| s < r);
            if repeated && self.cycle - r < t.start_setup {
                self.violation(Violation::StartSetup);
            }
        }
        if let Some(s) = self.last_stop {
            if self.cycle - s < t.bus_free {
                self.violation(Violation::BusFree);
            }
        }
        if self.inside_byte() {
            self.counts.aborted += 1;
        }
        self.counts.starts += 1;
        self.last_start = Some(self.cycle);
        self.start_in_high = true;
        self.release_now();
        self.write_data.clear();
        self.state = State::Control;
        self.next_read = false;
        self.bits = 0;
        self.byte_index = 0;
    }

    fn on_stop(&mut self) {
        if let Some(r) = self.last_rise {
            if self.cycle - r < self.timing.stop_setup {
                self.violation(Violation::StopSetup);
            }
        }
        self.counts.stops += 1;
        self.last_stop = Some(self.cycle);
        if self.inside_byte() {
            self.counts.aborted += 1;
        } else if self.state == State::WriteData && !self.write_data.is_empty() {
            self.commit();
        }
        self.release_now();
        self.write_data.clear();
        self.state = State::Idle;
        self.bits = 0;
    }

    /// A transaction is in the middle of a byte (or its acknowledge). A START or STOP comes
    /// during the first clock of a byte (SCL rose once, the bit was sampled): that clock is
    /// the condition's, not a bit, so only a second clock makes it "inside".
    fn inside_byte(&self) -> bool {
        !matches!(self.state, State::Idle | State::Ignore) && self.bits > 1
    }

    /// Writes the received data into its page, wrapping inside it, and starts the write cycle.
    fn commit(&mut self) {
        let page = self.write_start as usize & !(PAGE_BYTES - 1);
        let mut offset = self.write_start as usize & (PAGE_BYTES - 1);
        for &b in &self.write_data {
            self.memory[page + offset] = b;
            offset = (offset + 1) % PAGE_BYTES;
        }
        self.pointer = (page + offset) as u16;
        self.counts.writes += 1;
        self.busy_until = self.cycle + self.timing.write_cycle;
    }

    fn on_rise(&mut self, sda: bool) {
        match self.state {
            State::Idle | State::Ignore => {}
            State::ReadData => {
                if self.bits == 8 {
                    // The master's acknowledge.
                    self.acked = !sda;
                }
                self.bits += 1;
            }
            _ => {
                if self.bits < 8 {
                    self.shift = self.shift << 1 | sda as u8;
                }
                self.bits += 1;
            }
        }
    }

    fn on_fall(&mut self) {
        match self.state {
            State::Idle | State::Ignore => {}
            State::ReadData => {
                if self.bits == 9 {
                    self.bits = 0;
                    // The address counter moves past every byte sent (a current-address read
                    // goes on after it), acknowledged or not.
                    self.pointer = self.pointer.wrapping_add(1);
                    if self.acked {
                        self.load_byte();
                        self.drive_later(self.out_byte & 0x80 == 0);
                    } else {
                        self.state = State::Ignore;
                        self.drive_later(false);
                    }
                } else if self.bits == 8 {
                    // Release SDA for the master's acknowledge.
                    self.drive_later(false);
                } else if self.bits > 0 {
                    let bit = self.out_byte >> (7 - self.bits) & 1;
                    self.drive_later(bit == 0);
                }
            }
            _ => {
                if self.bits == 8 {
                    self.acked = self.take_byte();
                    self.drive_later(self.acked);
                } else if self.bits == 9 {
                    self.bits = 0;
                    self.byte_index += 1;
                    if !self.acked {
                        self.state = State::Ignore;
                        self.drive_later(false);
                    } else if self.next_read {
                        self.next_read = false;
                        self.state = State::ReadData;
                        self.load_byte();
                        self.drive_later(self.out_byte & 0x80 == 0);
                    } else {
                        self.drive_later(false);
                    }
                }
            }
        }
    }

    fn load_byte(&mut self) {
        self.out_byte = self.memory[self.pointer as usize];
        self.counts.bytes_read += 1;
    }

    /// A received byte is complete: acts on it and returns whether to acknowledge it. A read
    /// ([`I2cEeprom::next_read`]) starts at the end of the acknowledge.
    fn take_byte(&mut self) -> bool {
        let byte = self.shift;
        if !self.present || self.nack_at == Some(self.byte_index) {
            return false;
        }
        match self.state {
            State::Control => {
                if byte >> 1 != 0b101_0000 | self.device {
                    return false;
                }
                if self.busy() {
                    self.counts.busy_nacks += 1;
                    return false;
                }
                if byte & 1 == 1 {
                    self.next_read = true;
                } else {
                    self.state = State::AddressHigh;
                }
                true
            }
            State::AddressHigh => {
                self.address_high = byte;
                self.state = State::AddressLow;
                true
            }
            State::AddressLow => {
                self.pointer = u16::from_be_bytes([self.address_high, byte]);
                self.write_start = self.pointer;
                self.write_data.clear();
                self.state = State::WriteData;
                true
            }
            State::WriteData => {
                self.write_data.push(byte);
                true
            }
            _ => false,
        }
    }
}

/// What a [`BusMonitor`] saw on the bus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BusEvent {
    /// A START (or repeated START) condition.
    Start,
    /// A STOP condition.
    Stop,
    /// Nine clocks since the last condition or frame: the byte on SDA (MSB first) and whether
    /// SDA was low at the ninth (acknowledge).
    Frame {
        /// The byte.
        byte: u8,
        /// The ninth bit was low.
        acknowledged: bool,
    },
    /// A START or STOP after 2..=8 clocks of a frame (a cut byte, or recovery clocks).
    Partial {
        /// Clocks of the frame seen.
        clocks: u32,
    },
}

/// A passive observer of the bus, independent of any part: decodes conditions and 9-clock
/// frames whoever drives them, so a bench can check that a master put on the bus exactly
/// what it was told to and reported what came back. A condition comes during the first clock
/// of a frame (the clock rose once, then SDA moved), so that clock is not counted.
#[derive(Clone, Debug, Default)]
pub struct BusMonitor {
    /// Everything seen, oldest first (the bench pops what it has checked).
    pub events: VecDeque<BusEvent>,
    scl: bool,
    sda: bool,
    clocks: u32,
    shift: u16,
}

impl BusMonitor {
    /// A monitor of an idle bus (both lines high).
    pub fn new() -> Self {
        Self {
            scl: true,
            sda: true,
            ..Default::default()
        }
    }

    /// One clock cycle with the bus at `scl`, `sda`.
    pub fn step(&mut self, scl: bool, sda: bool) {
        let (was_scl, was_sda) = (self.scl, self.sda);
        self.scl = scl;
        self.sda = sda;
        if !was_scl && scl {
            self.shift = self.shift << 1 | sda as u16;
            self.clocks += 1;
            if self.clocks == 9 {
                self.events.push_back(BusEvent::Frame {
                    byte: (self.shift >> 1) as u8,
                    acknowledged: self.shift & 1 == 0,
                });
                self.clocks = 0;
            }
        } else if was_scl && scl && was_sda != sda {
            if self.clocks > 1 {
                self.events.push_back(BusEvent::Partial {
                    clocks: self.clocks,
                });
            }
            self.clocks = 0;
            self.events
                .push_back(if sda { BusEvent::Stop } else { BusEvent::Start });
        }
    }
}

/// The bus of a bench: one master's open-drain drivers, the part, a monitor, and faults a
/// bench can inject (a target stretching the clock, a line stuck low). A line is the AND of
/// everything that drives it (the pull-up makes it high when all release it).
#[derive(Clone, Debug)]
pub struct I2cBus {
    /// The EEPROM.
    pub part: I2cEeprom,
    /// Everything on the bus, decoded.
    pub monitor: BusMonitor,
    /// Something holds SCL low (a target stretching for ever).
    pub scl_stuck_low: bool,
    /// Something holds SDA low.
    pub sda_stuck_low: bool,
    /// Cycles a stretching target still holds SCL low.
    stretch_left: u64,
    /// SCL rises seen.
    pub scl_rises: u64,
    /// Clocks stretched by the target.
    pub stretches: u64,
    scl: bool,
}

impl I2cBus {
    /// A bus with `part` on it, idle.
    pub fn new(part: I2cEeprom) -> Self {
        Self {
            part,
            monitor: BusMonitor::new(),
            scl_stuck_low: false,
            sda_stuck_low: false,
            stretch_left: 0,
            scl_rises: 0,
            stretches: 0,
            scl: true,
        }
    }

    /// SCL and SDA in this cycle when the master pulls them low as told.
    pub fn lines(&self, master_scl_low: bool, master_sda_low: bool) -> (bool, bool) {
        let scl = !master_scl_low && !self.scl_stuck_low && self.stretch_left == 0;
        let sda = !master_sda_low && !self.part.drive_low() && !self.sda_stuck_low;
        (scl, sda)
    }

    /// One cycle with the lines at `scl`, `sda` (from [`I2cBus::lines`]); if SCL falls now, a
    /// target holds it low for `stretch` more cycles (clock stretching; 0 for none).
    pub fn step(&mut self, scl: bool, sda: bool, stretch: u64) {
        self.stretch_left = self.stretch_left.saturating_sub(1);
        if self.scl && !scl {
            self.stretch_left = stretch;
            self.stretches += (stretch > 0) as u64;
        }
        if !self.scl && scl {
            self.scl_rises += 1;
        }
        self.scl = scl;
        self.part.step(scl, sda);
        self.monitor.step(scl, sda);
    }
}

/// Error codes of `eep_access` (the hardware's `EepError`), as the model names them.
pub use hdl::mgmt::eep_access::EepError;

/// One `eep_access` command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EepCommand {
    /// Write (else read).
    pub write: bool,
    /// First byte address.
    pub address: u32,
    /// Bytes (valid 1..=6; the 3-bit field carries 0..=7).
    pub count: u32,
    /// Bytes to write, first at index 0 (6 always; the unused ones are random).
    pub data: [u8; 6],
}

/// What `eep_access` must answer to a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EepResult {
    /// Bytes read (zero beyond `count` and for writes and errors).
    pub data: [u8; 6],
    /// The outcome.
    pub error: EepError,
}

/// The model of `eep_access`: the answer to `cmd` from a part with `memory`, `present`,
/// failing byte `nack_at` of each transaction, and whether the part answers to the device
/// address the block drives (`addressed`). The bytes of a page write are split at page ends
/// into separate transactions (control, two address bytes, data), the reads are control,
/// two address bytes, then control (read) and the data, which the part does not acknowledge.
pub fn eep_access_result(
    cmd: &EepCommand,
    memory: &[u8],
    present: bool,
    addressed: bool,
    nack_at: Option<u32>,
) -> EepResult {
    let fail = |error| EepResult {
        data: [0; 6],
        error,
    };
    if cmd.count == 0 || cmd.count > 6 {
        return fail(EepError::BadCount);
    }
    if cmd.address + cmd.count > EEPROM_BYTES as u32 {
        return fail(EepError::AddressRange);
    }
    if !present || !addressed {
        return fail(EepError::NoAcknowledge);
    }
    if let Some(n) = nack_at {
        // The longest transaction whose bytes the part must acknowledge.
        let longest = if cmd.write {
            let room = PAGE_BYTES as u32 - (cmd.address % PAGE_BYTES as u32);
            let first = cmd.count.min(room);
            3 + first.max(cmd.count - first)
        } else {
            3
        };
        if n < longest {
            return fail(EepError::NoAcknowledge);
        }
    }
    let mut data = [0; 6];
    if !cmd.write {
        for i in 0..cmd.count as usize {
            data[i] = memory[cmd.address as usize + i];
        }
    }
    EepResult {
        data,
        error: EepError::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bit-banging master in Rust, to drive the model in its unit tests: `q` cycles per
    /// quarter, the same shape as `I2cMaster` (SDA moves a quarter after SCL falls).
    struct Banger {
        part: I2cEeprom,
        q: u64,
        scl: bool,
        sda: bool,
    }

    impl Banger {
        fn new(part: I2cEeprom, q: u64) -> Self {
            Self {
                part,
                q,
                scl: true,
                sda: true,
            }
        }
        /// `n` cycles with the master's lines as they are.
        fn wait(&mut self, n: u64) {
            for _ in 0..n {
                let sda = self.sda && !self.part.drive_low();
                self.part.step(self.scl, sda);
            }
        }
        fn bus_sda(&self) -> bool {
            self.sda && !self.part.drive_low()
        }
        fn start(&mut self) {
            self.wait(self.q);
            self.sda = true;
            self.wait(self.q);
            self.scl = true;
            self.wait(2 * self.q);
            self.sda = false;
            self.wait(2 * self.q);
            self.scl = false;
        }
        fn stop(&mut self) {
            self.wait(self.q);
            self.sda = false;
            self.wait(self.q);
            self.scl = true;
            self.wait(2 * self.q);
            self.sda = true;
            self.wait(2 * self.q);
        }
        /// One bit; returns SDA sampled at the end of the high half.
        fn bit(&mut self, value: bool) -> bool {
            self.wait(self.q);
            self.sda = value;
            self.wait(self.q);
            self.scl = true;
            self.wait(2 * self.q);
            let seen = self.bus_sda();
            self.scl = false;
            seen
        }
        /// Writes a byte; returns whether it was acknowledged.
        fn write(&mut self, byte: u8) -> bool {
            for i in (0..8).rev() {
                self.bit(byte >> i & 1 == 1);
            }
            !self.bit(true)
        }
        fn read(&mut self, ack: bool) -> u8 {
            let mut b = 0u8;
            for _ in 0..8 {
                b = b << 1 | self.bit(true) as u8;
            }
            self.bit(!ack);
            b
        }
        fn write_bytes(&mut self, device: u8, address: u16, data: &[u8]) -> bool {
            self.start();
            let mut ok = self.write(0xa0 | device << 1);
            ok &= self.write((address >> 8) as u8);
            ok &= self.write(address as u8);
            for &d in data {
                ok &= self.write(d);
            }
            self.stop();
            ok
        }
        fn read_bytes(&mut self, device: u8, address: u16, n: usize) -> Option<Vec<u8>> {
            self.start();
            let mut ok = self.write(0xa0 | device << 1);
            ok &= self.write((address >> 8) as u8);
            ok &= self.write(address as u8);
            self.start();
            ok &= self.write(0xa1 | device << 1);
            let v = (0..n).map(|i| self.read(i + 1 < n)).collect();
            self.stop();
            ok.then_some(v)
        }
        /// Polls until the part acknowledges; returns the polls that were refused.
        fn poll(&mut self, device: u8) -> u32 {
            let mut refused = 0;
            loop {
                self.start();
                let ok = self.write(0xa0 | device << 1);
                self.stop();
                if ok {
                    return refused;
                }
                refused += 1;
                assert!(refused < 1000, "the write cycle never ends");
            }
        }
    }

    fn part(q: u64, t_wr: u64) -> I2cEeprom {
        I2cEeprom::new(5, EepromTiming::for_quarter(q, t_wr))
    }

    #[test]
    fn write_then_random_read_with_ack_polling() {
        let mut m = Banger::new(part(3, 500), 3);
        assert!(m.write_bytes(5, 0x1234, &[1, 2, 3]));
        assert_eq!(m.part.counts.writes, 1);
        let refused = m.poll(5);
        assert!(refused >= 1, "no busy NACK during the write cycle");
        assert_eq!(m.part.counts.busy_nacks, refused as u64);
        assert_eq!(m.read_bytes(5, 0x1233, 5), Some(vec![0xff, 1, 2, 3, 0xff]));
        assert!(m.part.violations.is_empty(), "{:?}", m.part.violations);
        assert!(m.part.idle());
        assert_eq!(m.part.counts.aborted, 0);
    }

    #[test]
    fn a_page_write_wraps_inside_its_page() {
        let mut m = Banger::new(part(2, 10), 2);
        assert!(m.write_bytes(5, 0x00fe, &[0xa, 0xb, 0xc, 0xd]));
        m.poll(5);
        assert_eq!(&m.part.memory[0xfe..0x100], &[0xa, 0xb]);
        assert_eq!(&m.part.memory[0x80..0x82], &[0xc, 0xd]);
        assert_eq!(m.part.memory[0x100], 0xff);
        assert!(m.part.violations.is_empty(), "{:?}", m.part.violations);
    }

    #[test]
    fn reads_wrap_at_the_end_of_the_array() {
        let mut m = Banger::new(part(2, 10), 2);
        m.part.memory[0xffff] = 0x42;
        m.part.memory[0] = 0x17;
        assert_eq!(m.read_bytes(5, 0xffff, 2), Some(vec![0x42, 0x17]));
    }

    #[test]
    fn absent_wrong_address_and_nack_faults() {
        let mut m = Banger::new(part(2, 10), 2);
        assert!(
            !m.write_bytes(4, 0, &[1]),
            "answered another device address"
        );
        m.part.present = false;
        assert!(!m.write_bytes(5, 0, &[1]));
        m.part.present = true;
        m.part.nack_at = Some(3);
        assert!(!m.write_bytes(5, 0x10, &[1, 2]));
        assert_eq!(m.part.counts.writes, 0, "a NACKed write was carried out");
        assert_eq!(m.part.memory[0x10], 0xff);
        m.part.nack_at = Some(2);
        assert_eq!(m.read_bytes(5, 0x10, 1), None);
        m.part.nack_at = None;
        assert_eq!(m.read_bytes(5, 0x10, 1), Some(vec![0xff]));
        assert!(m.part.violations.is_empty(), "{:?}", m.part.violations);
    }

    #[test]
    fn timing_misses_are_recorded() {
        // A master twice as fast as the part allows: every kind of miss shows up.
        let mut m = Banger::new(part(4, 10), 2);
        m.write_bytes(5, 0, &[0]);
        m.read_bytes(5, 0, 1);
        let kinds: std::collections::HashSet<_> = m.part.violations.iter().map(|v| v.1).collect();
        for v in [
            Violation::MinLow,
            Violation::MinHigh,
            Violation::Setup,
            Violation::Hold,
            Violation::StartSetup,
            Violation::StartHold,
            Violation::StopSetup,
        ] {
            assert!(kinds.contains(&v), "{v:?} not caught: {kinds:?}");
        }
        // SDA moving in the cycle SCL rises is a setup miss whatever the timing.
        let mut p = part(1, 10);
        p.step(false, true);
        p.step(false, true);
        p.step(true, false);
        assert!(p.violations.iter().any(|v| v.1 == Violation::Setup));
        // A START right after a STOP.
        let mut m = Banger::new(part(4, 10), 2);
        m.stop();
        m.sda = false;
        m.wait(1);
        assert!(m.part.violations.iter().any(|v| v.1 == Violation::BusFree));
    }

    #[test]
    fn a_cut_read_holds_sda_until_clocked_out() {
        // The master is cut while the part sends a 0x00 byte: the part keeps SDA low; at most
        // nine clocks (the recovery) bring it out, and a START resets it.
        let q = 2;
        let mut m = Banger::new(part(q, 10), q);
        m.part.memory[7] = 0x00;
        m.part.memory[8] = 0x00;
        assert_eq!(m.read_bytes(5, 6, 1), Some(vec![0xff]));
        m.start();
        assert!(m.write(0xab));
        assert_eq!(m.read(true), 0x00);
        // Cut here, SCL low: the part drives bit 7 of byte 8, a 0; then both lines released.
        m.wait(q);
        m.scl = true;
        m.sda = true;
        m.wait(20);
        assert!(!m.bus_sda(), "the part should hold SDA low");
        let mut clocks = 0;
        while !m.bus_sda() {
            m.scl = false;
            m.wait(2 * q);
            m.scl = true;
            m.wait(2 * q);
            clocks += 1;
            assert!(clocks <= 9, "the part held SDA for more than 9 clocks");
        }
        assert_eq!(clocks, 8);
        m.start();
        m.stop();
        assert!(m.part.idle());
        assert_eq!(m.part.counts.aborted, 1);
        assert_eq!(m.read_bytes(5, 7, 2), Some(vec![0, 0]));
    }

    #[test]
    fn model_of_eep_access() {
        let mut mem = vec![0u8; EEPROM_BYTES];
        mem[0xfffa..].copy_from_slice(&[1, 2, 3, 4, 5, 6]);
        let cmd = |write, address, count| EepCommand {
            write,
            address,
            count,
            data: [9; 6],
        };
        let r = eep_access_result(&cmd(false, 0xfffa, 6), &mem, true, true, None);
        assert_eq!(r.error, EepError::None);
        assert_eq!(r.data, [1, 2, 3, 4, 5, 6]);
        let e =
            |c: EepCommand, present, nack| eep_access_result(&c, &mem, present, true, nack).error;
        assert_eq!(e(cmd(false, 0xfffb, 6), true, None), EepError::AddressRange);
        assert_eq!(e(cmd(true, 0, 0), true, None), EepError::BadCount);
        assert_eq!(e(cmd(true, 0, 7), true, None), EepError::BadCount);
        assert_eq!(e(cmd(false, 0, 1), false, None), EepError::NoAcknowledge);
        assert_eq!(e(cmd(false, 0, 6), true, Some(3)), EepError::None);
        assert_eq!(e(cmd(false, 0, 6), true, Some(2)), EepError::NoAcknowledge);
        // A write crossing a page is two transactions of 3 data bytes (bytes 0..=5 each).
        assert_eq!(
            e(cmd(true, 0x7d, 6), true, Some(5)),
            EepError::NoAcknowledge
        );
        assert_eq!(e(cmd(true, 0x7d, 6), true, Some(6)), EepError::None);
    }
}
