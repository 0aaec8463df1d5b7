//! The two ends of a router channel (`hdl::channel`) as a bench plays them: [`ChannelTx`], a
//! credit-obeying sender of whole packets on several VCs (flits of different VCs interleaved,
//! random idle with random flit and VC while `valid` is low), and [`ChannelRx`], a receiver
//! with a buffer of `slots` flits per VC that drains at random and returns each credit after a
//! random delay, checking that nothing arrives without a free slot. The link-port bench, and
//! the fabric bench's endpoints in place of NICs, use them.
use crate::backend::{Backend, PortId};
use crate::rng::BenchRng;
use hdl::formats::FLIT_BITS;
use std::collections::VecDeque;

/// The ports of one channel on a top, by prefix (`from_core` gives `from_core$valid`, ...).
#[derive(Clone, Copy, Debug)]
pub struct ChannelPorts {
    /// `valid`.
    pub valid: PortId,
    /// `flit`.
    pub flit: PortId,
    /// `vc`.
    pub vc: PortId,
    /// `credits`.
    pub credits: PortId,
    /// Width of `vc`.
    pub vc_bits: usize,
}

impl ChannelPorts {
    /// The channel `{prefix}$...` of `b`.
    pub fn new(b: &dyn Backend, prefix: &str) -> Self {
        let vc = b.port(&format!("{prefix}$vc"));
        Self {
            valid: b.port(&format!("{prefix}$valid")),
            flit: b.port(&format!("{prefix}$flit")),
            vc,
            credits: b.port(&format!("{prefix}$credits")),
            vc_bits: b.width(vc),
        }
    }
}

/// A sender on a channel: per VC a queue of packets (each a list of flits) and credits.
pub struct ChannelTx {
    /// The channel's ports (this end drives `valid`, `flit`, `vc`).
    pub ports: ChannelPorts,
    /// Per VC: packets waiting (the front one may be partly sent).
    pub queues: Vec<VecDeque<Vec<u128>>>,
    next: Vec<usize>,
    credits: Vec<usize>,
    initial: usize,
    turn: usize,
    /// Chance per cycle of sending when a flit and a credit are there.
    pub rate: f64,
    /// Flits sent so far.
    pub sent: u64,
}

/// What [`ChannelTx::drive`] put on the channel this cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sent {
    /// VC.
    pub vc: usize,
    /// The flit.
    pub flit: u128,
    /// It is the first flit of its packet.
    pub first: bool,
    /// It is the last flit of its packet.
    pub last: bool,
}

impl ChannelTx {
    /// A sender with `vcs` VCs and `initial` credits each, sending with chance `rate`.
    pub fn new(ports: ChannelPorts, vcs: usize, initial: usize, rate: f64) -> Self {
        Self {
            ports,
            queues: (0..vcs).map(|_| VecDeque::new()).collect(),
            next: vec![0; vcs],
            credits: vec![initial; vcs],
            initial,
            turn: 0,
            rate,
            sent: 0,
        }
    }

    /// Credits of VC `v` now.
    pub fn credits(&self, v: usize) -> usize {
        self.credits[v]
    }

    /// Flits waiting, all VCs.
    pub fn backlog(&self) -> usize {
        self.queues
            .iter()
            .map(|q| q.iter().map(|p| p.len()).sum::<usize>())
            .sum::<usize>()
            - self.next.iter().sum::<usize>()
    }

    /// Everything queued is dropped and the credits start over (the far end was reset).
    pub fn reset(&mut self) {
        for q in &mut self.queues {
            q.clear();
        }
        self.next.iter_mut().for_each(|n| *n = 0);
        self.credits.iter_mut().for_each(|c| *c = self.initial);
    }

    /// Drives the channel for this cycle (nothing while `hold`); returns the flit sent.
    pub fn drive(&mut self, b: &mut dyn Backend, rng: &mut BenchRng, hold: bool) -> Option<Sent> {
        let vcs = self.queues.len();
        let mut chosen = None;
        if !hold && rng.chance(self.rate) {
            for k in 0..vcs {
                let v = (self.turn + k) % vcs;
                if !self.queues[v].is_empty() && self.credits[v] > 0 {
                    chosen = Some(v);
                    break;
                }
            }
        }
        let Some(v) = chosen else {
            b.poke_bool(self.ports.valid, false);
            b.poke(self.ports.flit, rng.bits(FLIT_BITS));
            b.poke(self.ports.vc, rng.bits(self.ports.vc_bits));
            return None;
        };
        self.turn = (v + 1) % vcs;
        let packet = self.queues[v].front().expect("chosen VC has a packet");
        let k = self.next[v];
        let sent = Sent {
            vc: v,
            flit: packet[k],
            first: k == 0,
            last: k + 1 == packet.len(),
        };
        b.poke_bool(self.ports.valid, true);
        b.poke(self.ports.flit, sent.flit);
        b.poke(self.ports.vc, v as u128);
        self.credits[v] -= 1;
        self.next[v] += 1;
        if sent.last {
            self.queues[v].pop_front();
            self.next[v] = 0;
        }
        self.sent += 1;
        Some(sent)
    }

    /// Reads the credits returned this cycle (call after outputs settle, before the edge).
    /// Panics if a VC gets back more than it ever had.
    pub fn collect(&mut self, b: &mut dyn Backend) {
        let back = b.peek(self.ports.credits) as u64;
        for v in 0..self.queues.len() {
            if back >> v & 1 == 1 {
                self.credits[v] += 1;
                assert!(
                    self.credits[v] <= self.initial,
                    "channel sender VC {v}: more credits back than it had ({})",
                    self.initial
                );
            }
        }
    }
}

/// A receiver on a channel: per VC a buffer of `slots` flits.
pub struct ChannelRx {
    /// The channel's ports (this end drives `credits`).
    pub ports: ChannelPorts,
    buffers: Vec<VecDeque<u128>>,
    /// Slots in use per VC (held, or drained with the credit not yet back).
    used: Vec<usize>,
    due: Vec<VecDeque<u64>>,
    slots: usize,
    /// Chance per cycle and VC of draining a flit.
    pub drain: f64,
    /// Credit return delay, uniform in this range.
    pub delay: (u64, u64),
    /// Bit `v`: VC `v` is not drained (its buffer fills, its credits stop).
    pub hold: u64,
}

impl ChannelRx {
    /// A receiver with `vcs` VCs of `slots` flits each.
    pub fn new(ports: ChannelPorts, vcs: usize, slots: usize, drain: f64) -> Self {
        Self {
            ports,
            buffers: (0..vcs).map(|_| VecDeque::new()).collect(),
            used: vec![0; vcs],
            due: (0..vcs).map(|_| VecDeque::new()).collect(),
            slots,
            drain,
            delay: (1, 1),
            hold: 0,
        }
    }

    /// Empty, every credit with the sender (both ends were reset).
    pub fn reset(&mut self) {
        for v in 0..self.buffers.len() {
            self.buffers[v].clear();
            self.due[v].clear();
            self.used[v] = 0;
        }
    }

    /// Slots of VC `v` in use.
    pub fn used(&self, v: usize) -> usize {
        self.used[v]
    }

    /// Takes the flit on the channel, if any (call after outputs settle, before the edge);
    /// returns `(vc, flit)`. Panics on a flit without a free slot or on a VC out of range.
    pub fn take(&mut self, b: &mut dyn Backend, what: &str) -> Option<(usize, u128)> {
        if !b.peek_bool(self.ports.valid) {
            return None;
        }
        let v = b.peek(self.ports.vc) as usize;
        let f = b.peek(self.ports.flit);
        assert!(v < self.buffers.len(), "{what}: a flit on VC {v}");
        assert!(
            self.used[v] < self.slots,
            "{what}: a flit on VC {v} without a free slot (credit)"
        );
        self.used[v] += 1;
        self.buffers[v].push_back(f);
        Some((v, f))
    }

    /// Drains at random and drives this cycle's credit returns (`now` is the cycle number).
    pub fn drive(&mut self, b: &mut dyn Backend, rng: &mut BenchRng, now: u64) {
        let mut back = 0u128;
        for v in 0..self.buffers.len() {
            if !self.buffers[v].is_empty() && self.hold >> v & 1 == 0 && rng.chance(self.drain) {
                self.buffers[v].pop_front();
                self.due[v].push_back(now + rng.range(self.delay.0, self.delay.1));
            }
            if self.due[v].front().is_some_and(|&t| t <= now) {
                self.due[v].pop_front();
                self.used[v] -= 1;
                back |= 1 << v;
            }
        }
        b.poke(self.ports.credits, back);
    }
}
