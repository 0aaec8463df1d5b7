//! Reference model of `hdl::regmap::CounterRam`, written from its header: the sweep, the
//! pre-counters and highest levels, the write-back, requests served when the sweep reaches
//! their slot, unmapped addresses answered at once, reset and the clearing sweep after it.
use hdl::regmap::{CounterRamLayout, RegError};

/// The write-back stage.
#[derive(Clone, Copy, Debug)]
struct Back {
    address: usize,
    peak: bool,
    count: u64,
    level: u64,
    clearing: bool,
    request: bool,
}

/// The outputs of a [`CounterRamModel`] in one cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterRamOutputs {
    /// `request.ready`.
    pub ready: bool,
    /// `response.valid` with its data and error.
    pub response: Option<(u64, RegError)>,
}

/// Cycle-accurate model of a `CounterRam`.
#[derive(Clone, Debug)]
pub struct CounterRamModel {
    layout: CounterRamLayout,
    kw: usize,
    words: Vec<u64>,
    pre: Vec<u64>,
    high: Vec<u64>,
    group: usize,
    slot: usize,
    clearing: bool,
    back: Option<Back>,
    pending: Option<(usize, bool)>,
    answer: Option<(u64, RegError)>,
}

impl CounterRamModel {
    /// The model of `layout` with slots of `2^kw` per group, as just after a reset.
    pub fn new(layout: CounterRamLayout, kw: usize) -> Self {
        let mut m = Self {
            layout,
            kw,
            words: vec![0; layout.groups << kw],
            pre: vec![0; layout.groups * layout.counters],
            high: vec![0; layout.groups * layout.peaks],
            group: 0,
            slot: 0,
            clearing: true,
            back: None,
            pending: None,
            answer: None,
        };
        m.reset_state();
        m
    }

    fn reset_state(&mut self) {
        self.pre.iter_mut().for_each(|p| *p = 0);
        self.high.iter_mut().for_each(|h| *h = 0);
        self.group = 0;
        self.slot = 0;
        self.clearing = true;
        self.back = None;
        self.pending = None;
        self.answer = None;
    }

    /// The slot of `address`: its RAM address, or `None` outside the layout.
    pub fn slot_of(&self, address: u64) -> Option<usize> {
        let l = &self.layout;
        let offset = address.checked_sub(l.base)? as usize;
        let (g, k) = (offset >> self.kw, offset & ((1 << self.kw) - 1));
        (g < l.groups && k < l.slots()).then_some(offset)
    }

    /// The outputs in a cycle with `reset`.
    pub fn outputs(&self, reset: bool) -> CounterRamOutputs {
        CounterRamOutputs {
            ready: self.pending.is_none() && self.answer.is_none() && !reset,
            response: self.answer,
        }
    }

    /// One edge: `request` is the offered request (address, write), `response_ready` the
    /// requester's `ready`, `events` (per counter slot) and `levels` (per peak slot) this
    /// cycle's inputs.
    pub fn edge(
        &mut self,
        reset: bool,
        request: Option<(u64, bool)>,
        response_ready: bool,
        events: &[bool],
        levels: &[u64],
    ) {
        let out = self.outputs(reset);
        if reset {
            self.reset_state();
            return;
        }
        let l = self.layout;
        // The sweep's slot: its pre-counter or highest level is taken.
        let here = (self.group << self.kw) | self.slot;
        let peak = self.slot >= l.counters;
        let (mut count, mut level) = (0, 0);
        for (i, p) in self.pre.iter_mut().enumerate() {
            let at = ((i / l.counters) << self.kw) | (i % l.counters);
            let e = events[i] as u64;
            if at == here {
                count = *p;
                *p = e;
            } else {
                *p += e;
            }
        }
        for (i, h) in self.high.iter_mut().enumerate() {
            let at = ((i / l.peaks) << self.kw) | (l.counters + i % l.peaks);
            if at == here {
                level = *h;
                *h = levels[i];
            } else {
                *h = (*h).max(levels[i]);
            }
        }
        let request_here = self.pending.is_some_and(|(a, _)| a == here);
        // Write-back of the slot taken in the last cycle, and its request.
        if let Some(b) = self.back {
            let word = if b.clearing { 0 } else { self.words[b.address] };
            let updated = if b.peak {
                word.max(b.level)
            } else {
                (word + b.count).min(u32::MAX as u64)
            };
            self.words[b.address] = updated;
            if b.request {
                let (_, write) = self.pending.take().expect("a request at the write-back");
                if write {
                    self.words[b.address] = 0;
                    self.answer = Some((0, RegError::None));
                } else {
                    self.answer = Some((updated, RegError::None));
                }
            }
        }
        // A request taken.
        if let Some((address, write)) = request {
            if out.ready {
                match self.slot_of(address) {
                    Some(a) => self.pending = Some((a, write)),
                    None => self.answer = Some((0, RegError::Unmapped)),
                }
            }
        }
        if response_ready && out.response.is_some() {
            self.answer = None;
        }
        self.back = Some(Back {
            address: here,
            peak,
            count,
            level,
            clearing: self.clearing,
            request: request_here,
        });
        // The sweep moves on.
        if self.slot + 1 == l.slots() {
            self.slot = 0;
            if self.group + 1 == l.groups {
                self.group = 0;
                self.clearing = false;
            } else {
                self.group += 1;
            }
        } else {
            self.slot += 1;
        }
    }
}
