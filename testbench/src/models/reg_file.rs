//! Reference model of `RegFile`: cycle-accurate at the ports, written from the block's
//! documentation (two-stage pipeline, one response per request in order, errors change
//! nothing, saturating counters, write-1-to-clear races, reset values), not from its code.
//! Also the model of one `EventCounter` ([`SaturatingCount`]), which the counters use.
use crate::rhdl::{PortTable, SimValue};
use hdl::regmap::{Access, RegError, RegFile, RegMap, Register};

/// One saturating event counter of `width` bits, as `EventCounter` documents it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SaturatingCount {
    /// The count.
    pub value: u64,
    /// `2^width - 1`.
    pub maximum: u64,
}

impl SaturatingCount {
    /// A zero count of `width` bits.
    pub fn new(width: usize) -> Self {
        Self {
            value: 0,
            maximum: hdl::regmap::map::mask(width),
        }
    }
    /// One clock edge.
    pub fn edge(&mut self, reset: bool, event: bool, clear: bool) {
        self.value = if reset {
            0
        } else if clear {
            event as u64
        } else if event && self.value < self.maximum {
            self.value + 1
        } else {
            self.value
        };
    }
}

/// A register request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// Register address.
    pub address: u64,
    /// Write (else read).
    pub write: bool,
    /// Data to write.
    pub data: u64,
}

/// The request lines of a register port (`valid`, `address`, `write`, `data`), as a bench
/// looked them up.
#[derive(Clone, Copy, Debug)]
pub struct RequestLines {
    /// `valid`.
    pub valid: crate::PortId,
    /// `address`.
    pub address: crate::PortId,
    /// `write`.
    pub write: crate::PortId,
    /// `data`.
    pub data: crate::PortId,
}

impl RequestLines {
    /// Drives the lines: `request` with `valid` high, or, idle, `valid` low and random
    /// address (`address_bits`), write and data (`data_bits`) lines that must not matter.
    pub fn poke(
        self,
        b: &mut dyn crate::Backend,
        request: Option<Request>,
        rng: &mut crate::BenchRng,
        address_bits: usize,
        data_bits: usize,
    ) {
        match request {
            Some(r) => {
                b.poke_bool(self.valid, true);
                b.poke(self.address, r.address as u128);
                b.poke_bool(self.write, r.write);
                b.poke(self.data, r.data as u128);
            }
            None => {
                b.poke_bool(self.valid, false);
                b.poke(self.address, rng.bits(address_bits));
                b.poke_bool(self.write, rng.chance(0.5));
                b.poke(self.data, rng.bits(data_bits));
            }
        }
    }
}

/// A register response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Response {
    /// Read data (zero for writes and errors).
    pub data: u64,
    /// The outcome.
    pub error: RegError,
}

/// The inputs of one cycle.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    /// `reset`.
    pub reset: bool,
    /// The offered request (`request.valid` and its fields).
    pub request: Option<Request>,
    /// `response.ready`.
    pub response_ready: bool,
    /// `flags`, per write-1-to-clear register.
    pub flags: Vec<u64>,
    /// `events`, per counter.
    pub events: Vec<bool>,
    /// `status`, per read-only register.
    pub status: Vec<u64>,
}

/// The register file of one map.
#[derive(Clone, Debug)]
pub struct RegFileModel {
    map: RegMap,
    /// Read-write registers' values.
    pub settings: Vec<u64>,
    /// `written`.
    pub written: Vec<bool>,
    /// Write-1-to-clear registers' values.
    pub flags: Vec<u64>,
    /// Counters.
    pub counters: Vec<SaturatingCount>,
    /// Stage 1.
    staged: Option<Request>,
    /// Stage 1's request was taken on the last edge (a write takes effect on the next one,
    /// whether or not the response moves on).
    fresh: bool,
    /// The response register.
    answer: Option<Response>,
}

impl RegFileModel {
    /// The register file of `map` after reset.
    pub fn new(map: &RegMap) -> Self {
        let mut m = Self {
            map: map.clone(),
            settings: vec![],
            written: vec![],
            flags: vec![],
            counters: vec![],
            staged: None,
            fresh: false,
            answer: None,
        };
        m.reset();
        m
    }

    /// The power-up state (every flip-flop zero): reset's, except that read-write registers
    /// hold zero until the first reset.
    pub fn power_up(map: &RegMap) -> Self {
        let mut m = Self::new(map);
        m.settings.iter_mut().for_each(|s| *s = 0);
        m
    }

    /// The state after reset.
    pub fn reset(&mut self) {
        self.settings = self.map.of(Access::ReadWrite).map(|r| r.reset).collect();
        self.written = vec![false; self.settings.len()];
        self.flags = vec![0; self.map.count(Access::WriteOneToClear)];
        self.counters = self
            .map
            .of(Access::Counter)
            .map(|r| SaturatingCount::new(r.width))
            .collect();
        self.staged = None;
        self.fresh = false;
        self.answer = None;
    }

    /// The map.
    pub fn map(&self) -> &RegMap {
        &self.map
    }

    /// `request.ready` in a cycle with these inputs.
    pub fn request_ready(&self, reset: bool, response_ready: bool) -> bool {
        !reset && (self.staged.is_none() || self.answer.is_none() || response_ready)
    }

    /// The response offered this cycle (`response.valid` and its fields).
    pub fn response(&self) -> Option<Response> {
        self.answer
    }

    /// The request in stage 1 (taken, not yet answered).
    pub fn staged(&self) -> Option<Request> {
        self.staged
    }

    /// The register at `address`, if any.
    pub fn register_at(&self, address: u64) -> Option<&Register> {
        self.map.registers.iter().find(|r| r.offset == address)
    }

    /// The value register `r` reads now, given the read-only registers' inputs `status`.
    pub fn value(&self, r: &Register, status: &[u64]) -> u64 {
        let i = self.map.index(r.access, &r.name);
        match r.access {
            Access::ReadWrite => self.settings[i],
            Access::WriteOneToClear => self.flags[i],
            Access::Counter => self.counters[i].value,
            Access::ReadOnly => status[i] & r.mask(),
        }
    }

    /// What `request` would be answered now.
    pub fn answer(&self, request: &Request, status: &[u64]) -> Response {
        match self.register_at(request.address) {
            None => Response {
                data: 0,
                error: RegError::Unmapped,
            },
            Some(r) if request.write && r.access == Access::ReadOnly => Response {
                data: 0,
                error: RegError::ReadOnly,
            },
            Some(_) if request.write => Response {
                data: 0,
                error: RegError::None,
            },
            Some(r) => Response {
                data: self.value(r, status),
                error: RegError::None,
            },
        }
    }

    /// One clock edge with `inputs`; returns the request taken on it, if any.
    pub fn edge(&mut self, inputs: &Inputs) -> Option<Request> {
        if inputs.reset {
            self.reset();
            return None;
        }
        let advance = self.answer.is_none() || inputs.response_ready;
        let taken = inputs
            .request
            .filter(|_| self.request_ready(false, inputs.response_ready));
        // The write of stage 1 (on the first edge after it was taken) and its target.
        let commit = self
            .staged
            .filter(|s| self.fresh && s.write)
            .and_then(|s| self.register_at(s.address).map(|r| (r.clone(), s.data)));
        if advance {
            self.answer = self.staged.map(|s| self.answer(&s, &inputs.status));
            self.staged = None;
        }
        let hit = |access: Access, i: usize| -> Option<u64> {
            commit.as_ref().and_then(|(r, d)| {
                (r.access == access && self.map.index(access, &r.name) == i).then_some(*d)
            })
        };
        let settings: Vec<(Option<u64>, u64)> = (0..self.settings.len())
            .map(|i| {
                (
                    hit(Access::ReadWrite, i),
                    self.map.of(Access::ReadWrite).nth(i).unwrap().mask(),
                )
            })
            .collect();
        for (i, (w, mask)) in settings.into_iter().enumerate() {
            self.written[i] = w.is_some();
            if let Some(d) = w {
                self.settings[i] = d & mask;
            }
        }
        let masks: Vec<u64> = self
            .map
            .of(Access::WriteOneToClear)
            .map(|r| r.mask())
            .collect();
        for i in 0..self.flags.len() {
            let cleared = hit(Access::WriteOneToClear, i).unwrap_or(0);
            self.flags[i] = ((self.flags[i] & !cleared) | inputs.flags[i]) & masks[i];
        }
        for i in 0..self.counters.len() {
            let clear = hit(Access::Counter, i).is_some();
            self.counters[i].edge(false, inputs.events[i], clear);
        }
        if taken.is_some() {
            self.staged = taken;
        }
        self.fresh = taken.is_some();
        taken
    }
}

/// How a bench reaches every port of the register file of `map` on rust-hdl's simulator.
pub fn port_table<const A: usize, const D: usize>(map: &RegMap) -> PortTable<RegFile<A, D>> {
    type R<const A: usize, const D: usize> = RegFile<A, D>;
    let mut t = crate::port_table!(R<A, D>; reset, request.valid, request.address, request.write,
        request.data, request.ready, response.valid, response.data, response.error, response.ready);
    for i in 0..map.count(Access::ReadWrite) {
        t.add(
            format!("settings${i}"),
            move |x: &mut R<A, D>, v| x.settings[i].next = SimValue::from_u128(v),
            move |x: &R<A, D>| SimValue::to_u128(&x.settings[i].val()),
        );
        t.add(
            format!("written${i}"),
            move |x: &mut R<A, D>, v| x.written[i].next = SimValue::from_u128(v),
            move |x: &R<A, D>| x.written[i].val().to_u128(),
        );
    }
    for i in 0..map.count(Access::WriteOneToClear) {
        t.add(
            format!("flags${i}"),
            move |x: &mut R<A, D>, v| x.flags[i].next = SimValue::from_u128(v),
            move |x: &R<A, D>| SimValue::to_u128(&x.flags[i].val()),
        );
        t.add(
            format!("flag_values${i}"),
            move |x: &mut R<A, D>, v| x.flag_values[i].next = SimValue::from_u128(v),
            move |x: &R<A, D>| SimValue::to_u128(&x.flag_values[i].val()),
        );
    }
    for i in 0..map.count(Access::Counter) {
        t.add(
            format!("events${i}"),
            move |x: &mut R<A, D>, v| x.events[i].next = SimValue::from_u128(v),
            move |x: &R<A, D>| x.events[i].val().to_u128(),
        );
    }
    for i in 0..map.count(Access::ReadOnly) {
        t.add(
            format!("status${i}"),
            move |x: &mut R<A, D>, v| x.status[i].next = SimValue::from_u128(v),
            move |x: &R<A, D>| SimValue::to_u128(&x.status[i].val()),
        );
    }
    t
}
