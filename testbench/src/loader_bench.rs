//! The configuration loader in its setting, for its bench (`tests/hdl/eeprom_loader.rs`) and
//! `bench mgmt`: [`LoaderHarness`] = `EepromLoader -> EepAccess -> I2C pins` (to the EEPROM
//! model, [`I2cBus`]) and `EepromLoader -> RegArbiter (first) -> RegFile` of the sample map,
//! whose second arbiter input is a host port the bench drives. [`LoaderDriver`] steps it one
//! cycle at a time: the bus resolved in Rust, the host's requests, the loader's outputs
//! sampled.
use crate::backend::{Backend, PortId};
use crate::models::i2c_eeprom::{EepromTiming, I2cBus, I2cEeprom};
use crate::models::reg_file::{Request, Response};
use crate::rng::BenchRng;
use crate::{port_table, PortTable};
use hdl::mgmt::eep_access::{EepAccess, EepCommandSource, EepResultSource};
use hdl::mgmt::eeprom_loader::{EepromLoader, LOADER_STATUS_BITS};
use hdl::mgmt::i2c_master::I2cPins;
use hdl::regmap::sample::{SAMPLE_ADDRESS_BITS, SAMPLE_DATA_BITS};
use hdl::regmap::{
    regfile_sample, Access, RegArbiter, RegError, RegFile, RegRequestSink, RegRequestSource,
    RegResponseSink, RegResponseSource,
};
use rust_hdl::prelude::*;
use std::collections::VecDeque;

/// Register address bits of the harness (the sample map's).
pub const A: usize = SAMPLE_ADDRESS_BITS;
/// Register data bits.
pub const D: usize = SAMPLE_DATA_BITS;
/// Cycles per quarter SCL period (as the `eep_access` bench).
pub const QUARTER: u32 = 2;
/// Quarters a stretched clock may last.
pub const STRETCH_LIMIT: u32 = 40;
/// Refused control bytes before `NoAcknowledge`.
pub const POLL_LIMIT: u32 = 12;
/// A2..A0 of the part.
pub const DEVICE: u8 = 3;
/// The image's base address: just below a page end, so the header's read crosses it.
pub const BASE: usize = 0x7b;
/// Entries the harness's loader accepts.
pub const MAX_ENTRIES: usize = 20;

/// The value read-only register `i` of the harness's register file shows.
pub fn status_value(i: usize) -> u64 {
    0x0123_4567_89ab_cdef_u64.rotate_left(7 * i as u32) ^ i as u64
}

/// The loader, the EEPROM unit, the arbiter and the register file; see the module doc.
#[derive(LogicBlock)]
pub struct LoaderHarness {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Reset of every block (they share it, as the loader requires).
    pub reset: Signal<In, bool>,
    /// The EEPROM's bus.
    pub i2c: I2cPins,
    /// The host's register requests (arbiter input 2).
    pub host_request: RegRequestSink<A, D>,
    /// Their responses.
    pub host_response: RegResponseSource<D>,
    /// The loader's outputs.
    pub busy: Signal<Out, bool>,
    /// Done.
    pub done: Signal<Out, bool>,
    /// Pulse.
    pub blank: Signal<Out, bool>,
    /// Pulse.
    pub corrupt: Signal<Out, bool>,
    /// Pulse.
    pub absent: Signal<Out, bool>,
    /// Pulse.
    pub refused: Signal<Out, bool>,
    /// Held outcome.
    pub status: Signal<Out, Bits<LOADER_STATUS_BITS>>,
    loader: EepromLoader<A>,
    eeprom: EepAccess,
    arbiter: RegArbiter<A, D>,
    file: RegFile<A, D>,
    device: Constant<Bits<3>>,
    status_values: Vec<Constant<Bits<D>>>,
}

impl LoaderHarness {
    /// The harness of the benches ([`BASE`], [`MAX_ENTRIES`], [`QUARTER`]).
    pub fn new() -> Self {
        let map = regfile_sample();
        Self {
            clock: Default::default(),
            reset: Default::default(),
            i2c: Default::default(),
            host_request: Default::default(),
            host_response: Default::default(),
            busy: Default::default(),
            done: Default::default(),
            blank: Default::default(),
            corrupt: Default::default(),
            absent: Default::default(),
            refused: Default::default(),
            status: Default::default(),
            loader: EepromLoader::new(BASE, MAX_ENTRIES),
            eeprom: EepAccess::new(QUARTER, STRETCH_LIMIT, POLL_LIMIT),
            arbiter: RegArbiter::new(),
            file: RegFile::new(&map),
            device: Constant::new((DEVICE as u64).into()),
            status_values: (0..map.count(Access::ReadOnly))
                .map(|i| Constant::new(status_value(i).into()))
                .collect(),
        }
    }
}

impl Default for LoaderHarness {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for LoaderHarness {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, loader, eeprom, arbiter, file);
        self.loader.reset.next = self.reset.val();
        self.eeprom.reset.next = self.reset.val();
        self.arbiter.reset.next = self.reset.val();
        self.file.reset.next = self.reset.val();
        self.eeprom.device.next = self.device.val();
        I2cPins::link(&mut self.i2c, &mut self.eeprom.i2c);
        EepCommandSource::join(&mut self.loader.eeprom, &mut self.eeprom.command);
        EepResultSource::join(&mut self.eeprom.result, &mut self.loader.eeprom_result);
        RegRequestSource::<A, D>::join(&mut self.loader.registers, &mut self.arbiter.first_request);
        RegResponseSource::<D>::join(
            &mut self.arbiter.first_response,
            &mut self.loader.register_responses,
        );
        RegRequestSink::<A, D>::link(&mut self.host_request, &mut self.arbiter.second_request);
        RegResponseSource::<D>::link(&mut self.host_response, &mut self.arbiter.second_response);
        RegRequestSource::<A, D>::join(&mut self.arbiter.request, &mut self.file.request);
        RegResponseSink::<D>::join(&mut self.arbiter.response, &mut self.file.response);
        for i in 0..self.file.status.len() {
            self.file.status[i].next = self.status_values[i].val();
        }
        for i in 0..self.file.flags.len() {
            self.file.flags[i].next = 0.into();
        }
        for i in 0..self.file.events.len() {
            self.file.events[i].next = false;
        }
        self.busy.next = self.loader.busy.val();
        self.done.next = self.loader.done.val();
        self.blank.next = self.loader.blank.val();
        self.corrupt.next = self.loader.corrupt.val();
        self.absent.next = self.loader.absent.val();
        self.refused.next = self.loader.refused.val();
        self.status.next = self.loader.status.val();
    }
}

/// The harness's ports on rust-hdl's simulator.
pub fn loader_table() -> PortTable<LoaderHarness> {
    port_table!(LoaderHarness; reset, i2c.scl_drive_low, i2c.sda_drive_low, i2c.scl_in,
        i2c.sda_in, host_request.valid, host_request.address, host_request.write,
        host_request.data, host_request.ready, host_response.valid, host_response.data,
        host_response.error, host_response.ready, busy, done, blank, corrupt, absent, refused,
        status)
}

/// The loader's outputs in one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoaderOutputs {
    /// `busy`.
    pub busy: bool,
    /// `done`.
    pub done: bool,
    /// `blank`.
    pub blank: bool,
    /// `corrupt`.
    pub corrupt: bool,
    /// `absent`.
    pub absent: bool,
    /// `refused`.
    pub refused: bool,
    /// `status`.
    pub status: u64,
}

/// Pulses counted since the last reset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pulses {
    /// `blank` pulses.
    pub blank: u64,
    /// `corrupt` pulses.
    pub corrupt: u64,
    /// `absent` pulses.
    pub absent: u64,
    /// `refused` pulses.
    pub refused: u64,
}

/// One host request taken, with the response it expects (`None`: any data, the error given).
#[derive(Clone, Copy, Debug)]
pub struct HostExpect {
    /// The request.
    pub request: Request,
    /// The response it must get.
    pub response: Response,
}

/// Steps a [`LoaderHarness`] on any backend.
pub struct LoaderDriver<'a> {
    /// The backend.
    pub b: &'a mut dyn Backend,
    /// The EEPROM's bus.
    pub bus: I2cBus,
    /// Randomness of idle lines, backpressure and stretching.
    pub rng: BenchRng,
    ports: [PortId; 21],
    /// The host's request on offer.
    pub host_offer: Option<HostExpect>,
    /// Host requests taken and not answered, oldest first.
    pub host_pending: VecDeque<HostExpect>,
    /// Host responses taken, checked.
    pub host_answered: u64,
    /// Chance of `host_response.ready` per cycle.
    pub host_ready: f64,
    /// Chance of a stretched SCL low per fall, and the most cycles of one stretch.
    pub stretch: (f64, u64),
    /// Pulses since the last reset.
    pub pulses: Pulses,
    /// Timing violations are excused up to this cycle of the part (right after a reset).
    pub excused_until: u64,
    /// Bench name and seed, for messages.
    pub what: String,
}

const P_RESET: usize = 0;
const P_SCL_LOW: usize = 1;
const P_SDA_LOW: usize = 2;
const P_SCL_IN: usize = 3;
const P_SDA_IN: usize = 4;
const P_VALID: usize = 5;
const P_ADDRESS: usize = 6;
const P_WRITE: usize = 7;
const P_DATA: usize = 8;
const P_READY: usize = 9;
const P_RSP_VALID: usize = 10;
const P_RSP_DATA: usize = 11;
const P_RSP_ERROR: usize = 12;
const P_RSP_READY: usize = 13;
const P_BUSY: usize = 14;

impl<'a> LoaderDriver<'a> {
    /// A driver of `b` with an erased part (all 0xFF) present on the bus.
    pub fn new(b: &'a mut dyn Backend, seed: u64, what: &str) -> Self {
        let names = [
            "reset",
            "i2c$scl_drive_low",
            "i2c$sda_drive_low",
            "i2c$scl_in",
            "i2c$sda_in",
            "host_request$valid",
            "host_request$address",
            "host_request$write",
            "host_request$data",
            "host_request$ready",
            "host_response$valid",
            "host_response$data",
            "host_response$error",
            "host_response$ready",
            "busy",
            "done",
            "blank",
            "corrupt",
            "absent",
            "refused",
            "status",
        ];
        let ports = names.map(|n| b.port(n));
        let mut part = I2cEeprom::new(DEVICE, EepromTiming::for_quarter(QUARTER as u64, 500));
        part.memory.iter_mut().for_each(|m| *m = 0xff);
        Self {
            b,
            bus: I2cBus::new(part),
            rng: BenchRng::new(seed),
            ports,
            host_offer: None,
            host_pending: VecDeque::new(),
            host_answered: 0,
            host_ready: 1.0,
            stretch: (0.0, 1),
            pulses: Pulses::default(),
            excused_until: 0,
            what: format!("{what} seed {seed}"),
        }
    }

    /// The loader's outputs now.
    pub fn outputs(&mut self) -> LoaderOutputs {
        let p = |i: usize| self.ports[P_BUSY + i];
        let (busy, done, blank, corrupt, absent, refused, status) =
            (p(0), p(1), p(2), p(3), p(4), p(5), p(6));
        LoaderOutputs {
            busy: self.b.peek_bool(busy),
            done: self.b.peek_bool(done),
            blank: self.b.peek_bool(blank),
            corrupt: self.b.peek_bool(corrupt),
            absent: self.b.peek_bool(absent),
            refused: self.b.peek_bool(refused),
            status: self.b.peek(status) as u64,
        }
    }

    /// One clock cycle with `reset`; returns the loader's outputs in it.
    pub fn cycle(&mut self, reset: bool) -> LoaderOutputs {
        let scl_low = self.b.peek_bool(self.ports[P_SCL_LOW]);
        let sda_low = self.b.peek_bool(self.ports[P_SDA_LOW]);
        let (scl, sda) = self.bus.lines(scl_low, sda_low);
        self.b.poke_bool(self.ports[P_RESET], reset);
        self.b.poke_bool(self.ports[P_SCL_IN], scl);
        self.b.poke_bool(self.ports[P_SDA_IN], sda);
        let ready = self.rng.chance(self.host_ready);
        self.b.poke_bool(self.ports[P_RSP_READY], ready);
        match self.host_offer {
            Some(h) => {
                self.b.poke_bool(self.ports[P_VALID], true);
                self.b
                    .poke(self.ports[P_ADDRESS], h.request.address as u128);
                self.b.poke_bool(self.ports[P_WRITE], h.request.write);
                self.b.poke(self.ports[P_DATA], h.request.data as u128);
            }
            None => {
                self.b.poke_bool(self.ports[P_VALID], false);
                self.b.poke(self.ports[P_ADDRESS], self.rng.bits(A));
                self.b.poke_bool(self.ports[P_WRITE], self.rng.chance(0.5));
                self.b.poke(self.ports[P_DATA], self.rng.bits(D));
            }
        }
        let out = self.outputs();
        assert_eq!(
            out.busy,
            !out.done,
            "{}: busy and done disagree at cycle {}",
            self.what,
            self.b.cycle()
        );
        if self.b.peek_bool(self.ports[P_RSP_VALID]) && ready {
            let got = Response {
                data: self.b.peek(self.ports[P_RSP_DATA]) as u64,
                error: RegError::from_code(self.b.peek(self.ports[P_RSP_ERROR]) as u64).unwrap(),
            };
            let want = self.host_pending.pop_front().unwrap_or_else(|| {
                panic!(
                    "{}: a host response {got:?} without a request at cycle {}",
                    self.what,
                    self.b.cycle()
                )
            });
            assert_eq!(
                got,
                want.response,
                "{}: host response to {:?} at cycle {}",
                self.what,
                want.request,
                self.b.cycle()
            );
            self.host_answered += 1;
        }
        if reset {
            assert!(
                !self.b.peek_bool(self.ports[P_READY]),
                "{}: a host request taken during reset",
                self.what
            );
            self.host_pending.clear();
            self.pulses = Pulses::default();
            self.excused_until = self.bus.part.cycle() + 4 + 8 * QUARTER as u64;
        } else {
            if self.host_offer.is_some() && self.b.peek_bool(self.ports[P_READY]) {
                self.host_pending.push_back(self.host_offer.take().unwrap());
            }
            self.pulses.blank += out.blank as u64;
            self.pulses.corrupt += out.corrupt as u64;
            self.pulses.absent += out.absent as u64;
            self.pulses.refused += out.refused as u64;
        }
        let s = if self.rng.chance(self.stretch.0) {
            self.rng.range(1, self.stretch.1)
        } else {
            0
        };
        self.bus.step(scl, sda, s);
        self.b.tick();
        let excused = self.excused_until;
        let v = &self.bus.part.violations;
        assert!(
            v.iter().all(|&(c, _)| c <= excused),
            "{}: I2C timing violations {v:?} (excused up to cycle {excused})",
            self.what
        );
        self.bus.part.violations.clear();
        out
    }
}
