//! Reference models of the two sides of a link port (`hdl::channel_sender::ChannelSender`,
//! `hdl::channel_receiver::ChannelReceiver`), written from their headers: what each shows at
//! its ports in a cycle, given the inputs, and what a clock edge does.
use super::arbiter::{ArbiterModel, Policy};
use super::credit_counter::CreditCounterModel;
use super::fifo::{FifoFlavor, FifoModel};
use hdl::channel_sender::SENDER_CREDIT_BITS;
use hdl::formats::flit::{ControlCode, CODE, HEAD_BIT, TAIL_BIT, TYPE_BIT};

/// The outputs of a [`ChannelSenderModel`] in one cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SenderOutputs {
    /// Bit `v`: `sinks[v].ready`.
    pub ready: u64,
    /// `channel.valid`, `channel.flit` (when valid), `channel.vc` (when valid).
    pub valid: bool,
    /// See `valid`.
    pub flit: u128,
    /// See `valid`.
    pub vc: usize,
    /// `error`.
    pub error: bool,
}

/// Cycle-accurate model of a `ChannelSender`.
#[derive(Clone, Debug)]
pub struct ChannelSenderModel {
    counters: Vec<CreditCounterModel>,
    arbiter: ArbiterModel,
    /// The output register: (flit, vc) when valid.
    out: Option<(u128, usize)>,
}

impl ChannelSenderModel {
    /// A sender of `vcs` VCs whose receiver holds `initial` flits per VC, as after reset.
    pub fn new(vcs: usize, initial: u64) -> Self {
        Self {
            counters: (0..vcs)
                .map(|_| CreditCounterModel::new(SENDER_CREDIT_BITS, initial))
                .collect(),
            arbiter: ArbiterModel::new(vcs, Policy::RoundRobin, false),
            out: None,
        }
    }

    /// Credits of VC `v` now.
    pub fn credits(&self, v: usize) -> u64 {
        self.counters[v].available()
    }

    fn candidates(&self, offers: u64) -> u64 {
        (0..self.counters.len())
            .filter(|&v| offers >> v & 1 == 1 && self.counters[v].available() > 0)
            .fold(0, |m, v| m | 1 << v)
    }

    /// The outputs for `offers` (bit `v`: `sinks[v].valid`) in a cycle with `reset`.
    pub fn outputs(&self, offers: u64, reset: bool) -> SenderOutputs {
        let grant = self.arbiter.grant(self.candidates(offers));
        let (valid, flit, vc) = match self.out {
            Some((f, v)) => (true, f, v),
            None => (false, 0, 0),
        };
        SenderOutputs {
            ready: match grant {
                Some(g) if !reset => 1 << g,
                _ => 0,
            },
            valid,
            flit,
            vc,
            error: self.counters.iter().any(|c| c.error()),
        }
    }

    /// One edge: `offers` and `data` (per VC) are the sinks', `returned` the channel's credit
    /// bits. Returns the VC whose flit was taken.
    pub fn edge(
        &mut self,
        reset: bool,
        offers: u64,
        data: &[u128],
        returned: u64,
    ) -> Option<usize> {
        let candidates = self.candidates(offers);
        let grant = self.arbiter.grant(candidates);
        if reset {
            self.counters.iter_mut().for_each(|c| c.reset());
            self.arbiter.reset();
            self.out = None;
            return None;
        }
        for (v, c) in self.counters.iter_mut().enumerate() {
            c.edge(grant == Some(v), returned >> v & 1);
        }
        self.arbiter.edge(candidates, grant.is_some(), true);
        self.out = grant.map(|g| (data[g], g));
        grant
    }
}

/// The outputs of a [`ChannelReceiverModel`] in one cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReceiverOutputs {
    /// Per VC: `sources[v].valid`, and its data when valid.
    pub offers: Vec<Option<u128>>,
    /// `channel.credits`.
    pub credits: u64,
    /// `events`.
    pub events: u64,
    /// `discarded`, `discarded_heads`.
    pub discarded: bool,
    /// See `discarded`.
    pub discarded_head: bool,
}

/// Cycle-accurate model of a `ChannelReceiver`.
#[derive(Clone, Debug)]
pub struct ChannelReceiverModel {
    fifos: Vec<FifoModel>,
    drain: ArbiterModel,
    credits: u64,
    events: u64,
    depth: usize,
    /// The whole-packets option: a VC offers only while its buffer holds a packet end.
    whole_packets: bool,
    /// Per VC: packet ends (tails, TailBadPkt) in the buffer.
    ends: Vec<usize>,
}

/// True for a flit that ends a packet: a tail, or a `TailBadPkt` marker.
pub fn is_packet_end(flit: u128) -> bool {
    let control = flit >> TYPE_BIT & 1 == 0 && flit >> HEAD_BIT & 1 == 0;
    control && (flit >> TAIL_BIT & 1 == 1 || CODE.get(flit) as u8 == ControlCode::TailBadPkt.code())
}

/// True for a head flit.
fn is_head(flit: u128) -> bool {
    flit >> HEAD_BIT & 1 == 1 && flit >> TYPE_BIT & 1 == 0
}

impl ChannelReceiverModel {
    /// A receiver of `vcs` VCs with buffers of `depth` flits, as after reset.
    pub fn new(vcs: usize, depth: usize) -> Self {
        let flavor = match hdl::fifo::FifoKind::for_depth(depth) {
            hdl::fifo::FifoKind::Registers => FifoFlavor::Registers {
                fall_through: false,
            },
            hdl::fifo::FifoKind::BlockRam => FifoFlavor::BlockRam,
        };
        Self {
            fifos: (0..vcs).map(|_| FifoModel::new(depth, flavor)).collect(),
            drain: ArbiterModel::new(vcs, Policy::RoundRobin, false),
            credits: 0,
            events: 0,
            depth,
            whole_packets: false,
            ends: vec![0; vcs],
        }
    }

    /// The same receiver with the whole-packets option (`ChannelReceiver::whole_packets`).
    pub fn whole_packets(mut self) -> Self {
        self.whole_packets = true;
        self
    }

    /// VC `v` may offer its front: no option, a packet end buffered, or the buffer full.
    fn gate_open(&self, v: usize) -> bool {
        !self.whole_packets || self.ends[v] > 0 || self.fifos[v].len() == self.depth
    }

    /// Flits held in VC `v`'s buffer.
    pub fn held(&self, v: usize) -> usize {
        self.fifos[v].len()
    }

    fn holding(&self) -> u64 {
        (0..self.fifos.len())
            .filter(|&v| self.fifos[v].outputs(false, 0, false).source_valid)
            .fold(0, |m, v| m | 1 << v)
    }

    /// The outputs in a cycle with `discard` and `reset`.
    pub fn outputs(&self, discard: bool, reset: bool) -> ReceiverOutputs {
        let fronts: Vec<Option<u128>> = self
            .fifos
            .iter()
            .map(|f| f.outputs(false, 0, false).source_data)
            .collect();
        let gated: Vec<Option<u128>> = (0..fronts.len())
            .map(|v| fronts[v].filter(|_| self.gate_open(v)))
            .collect();
        let drained = if discard {
            self.drain.grant(self.holding())
        } else {
            None
        };
        let discarded = drained.is_some() && !reset;
        ReceiverOutputs {
            offers: if discard {
                vec![None; fronts.len()]
            } else {
                gated
            },
            credits: self.credits,
            events: self.events,
            discarded,
            discarded_head: discarded && is_head(fronts[drained.unwrap_or(0)].unwrap_or(0)),
        }
    }

    /// One edge with the channel's `valid`, `flit`, `vc`, the streams' `ready` (bit `v`),
    /// `discard` and `reset`. Returns the flits that left the buffers on streams (VC, flit).
    pub fn edge(
        &mut self,
        reset: bool,
        valid: bool,
        flit: u128,
        vc: usize,
        ready: u64,
        discard: bool,
    ) -> Vec<(usize, u128)> {
        let vcs = self.fifos.len();
        let drained = if discard {
            self.drain.grant(self.holding())
        } else {
            None
        };
        let mut events = 0;
        if valid && vc >= vcs {
            events |= 1 << hdl::channel_receiver::BAD_VC;
        }
        let mut leaves = 0u64;
        let mut out = vec![];
        for v in 0..vcs {
            let push = valid && vc == v && !reset;
            let pop_ready = if discard {
                drained == Some(v)
            } else {
                ready >> v & 1 == 1 && self.gate_open(v)
            };
            let o = self.fifos[v].outputs(push, flit, pop_ready);
            if push && !o.sink_ready {
                events |= 1 << hdl::channel_receiver::OVERFLOW;
            }
            if push && o.sink_ready && is_packet_end(flit) {
                self.ends[v] += 1;
            }
            let e = self.fifos[v].tick(reset, push, flit, pop_ready);
            if reset {
                self.ends[v] = 0;
            }
            if let Some(f) = e.delivered {
                if is_packet_end(f) {
                    self.ends[v] -= 1;
                }
                leaves |= 1 << v;
                if !discard {
                    out.push((v, f));
                }
            }
        }
        if reset {
            self.drain.reset();
            self.credits = 0;
            self.events = 0;
            return vec![];
        }
        let holding = self.holding_before(drained);
        self.drain.edge(holding, discard && drained.is_some(), true);
        self.credits = leaves;
        self.events = events;
        out
    }

    /// The requests the drain saw this cycle: its grant is enough to move the pointer the
    /// same way (the pointer moves to just after the granted requester).
    fn holding_before(&self, drained: Option<usize>) -> u64 {
        drained.map_or(0, |d| 1 << d)
    }
}
