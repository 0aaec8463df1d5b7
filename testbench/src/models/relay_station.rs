//! Models of the relay-station blocks (`hdl::mgmt`): packet-level stream drivers and receivers
//! for the RS beat bundle (`valid`, `data`, `last`, `port`, `ready`), and scoreboards of one
//! relay station ([`RelayStationModel`]) and of the relay-station mesh ([`RsMeshModel`]).
//!
//! The models are transaction level: they say which packets must come out of which output, whole
//! and in which order (per flow), and which must be dropped. The benches check every packet
//! against them as it completes, and the drivers and receivers check the handshake rules every
//! cycle (hold rule, `last` only on a packet's final beat).
use crate::backend::{Backend, PortId};
use crate::rng::BenchRng;
use std::collections::VecDeque;

/// A packet: its beats (or flits) and its `port`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Data of each beat, first first.
    pub beats: Vec<u128>,
    /// The `port` sideband (output port outbound, input port inbound).
    pub port: u64,
}

/// The ports of one RS beat stream on a top, by prefix (`from_port` gives `from_port$valid`, ...).
#[derive(Clone, Copy, Debug)]
pub struct BeatPorts {
    /// `valid`.
    pub valid: PortId,
    /// `data`.
    pub data: PortId,
    /// `last`.
    pub last: PortId,
    /// `port`.
    pub port: PortId,
    /// `ready`.
    pub ready: PortId,
    /// Width of `data`.
    pub data_width: usize,
    /// Width of `port`.
    pub port_width: usize,
}

impl BeatPorts {
    /// Ports `{prefix}$valid`, `{prefix}$data`, `{prefix}$last`, `{prefix}$port`, `{prefix}$ready`.
    pub fn new(b: &dyn Backend, prefix: &str) -> Self {
        let data = b.port(&format!("{prefix}$data"));
        let port = b.port(&format!("{prefix}$port"));
        Self {
            valid: b.port(&format!("{prefix}$valid")),
            data,
            last: b.port(&format!("{prefix}$last")),
            port,
            ready: b.port(&format!("{prefix}$ready")),
            data_width: b.width(data),
            port_width: b.width(port),
        }
    }
}

/// Sends queued packets into a block's RS sink, idling at random between beats (random `data`,
/// `last` and `port` while `valid` is low), holding each beat until it moves.
pub struct PacketDriver {
    /// The block's sink ports.
    pub ports: BeatPorts,
    /// Packets still to send (the first one may be partly sent).
    pub queue: VecDeque<Packet>,
    /// Probability of offering a waiting beat in a cycle.
    pub rate: f64,
    /// Beats of the first packet already sent.
    sent: usize,
    offering: bool,
}

impl PacketDriver {
    /// A driver of `ports` offering a waiting beat with probability `rate` per cycle.
    pub fn new(ports: BeatPorts, rate: f64) -> Self {
        Self {
            ports,
            queue: VecDeque::new(),
            rate,
            sent: 0,
            offering: false,
        }
    }
    /// Sets `valid`, `data`, `last` and `port` for this cycle.
    pub fn drive(&mut self, b: &mut dyn Backend, rng: &mut BenchRng) {
        if !self.offering && !self.queue.is_empty() && rng.chance(self.rate) {
            self.offering = true;
        }
        b.poke_bool(self.ports.valid, self.offering);
        if self.offering {
            let p = &self.queue[0];
            b.poke_wide(
                self.ports.data,
                &crate::backend::u128_to_words(p.beats[self.sent], self.ports.data_width),
            );
            b.poke_bool(self.ports.last, self.sent + 1 == p.beats.len());
            b.poke(self.ports.port, p.port as u128);
        } else {
            let d = rng.bits(self.ports.data_width);
            b.poke_wide(
                self.ports.data,
                &crate::backend::u128_to_words(d, self.ports.data_width),
            );
            b.poke_bool(self.ports.last, rng.chance(0.5));
            b.poke(self.ports.port, rng.bits(self.ports.port_width));
        }
    }
    /// After the outputs settle, before the edge: `(first, done)` when a beat moves on this
    /// edge: `first` if it is its packet's first beat, `done` the packet when it was its last.
    pub fn fired(&mut self, b: &mut dyn Backend) -> Option<(bool, Option<Packet>)> {
        if !(self.offering && b.peek_bool(self.ports.ready)) {
            return None;
        }
        self.offering = false;
        let first = self.sent == 0;
        self.sent += 1;
        if self.sent == self.queue[0].beats.len() {
            self.sent = 0;
            Some((first, self.queue.pop_front()))
        } else {
            Some((first, None))
        }
    }
    /// The sender was reset with the block: it stops offering and abandons a packet it had
    /// started (its remaining beats are never sent); a packet not started stays queued.
    pub fn reset(&mut self) {
        self.offering = false;
        if self.sent > 0 {
            self.queue.pop_front();
        }
        self.sent = 0;
    }
    /// Nothing left to send.
    pub fn idle(&self) -> bool {
        self.queue.is_empty()
    }
}

/// Takes packets from a block's RS source with random backpressure; checks the hold rule and
/// that `port` stays the same through a packet.
pub struct PacketReceiver {
    /// The block's source ports.
    pub ports: BeatPorts,
    /// Probability of `ready` in a cycle.
    pub rate: f64,
    ready: bool,
    held: Option<(u128, bool, u64)>,
    partial: Vec<u128>,
    partial_port: u64,
    /// A packet's first beat was on the output, first seen in this cycle (for latencies).
    pub head_seen: Option<u64>,
}

impl PacketReceiver {
    /// A receiver of `ports`, ready with probability `rate` per cycle.
    pub fn new(ports: BeatPorts, rate: f64) -> Self {
        Self {
            ports,
            rate,
            ready: false,
            held: None,
            partial: vec![],
            partial_port: 0,
            head_seen: None,
        }
    }
    /// Sets `ready` for this cycle.
    pub fn drive(&mut self, b: &mut dyn Backend, rng: &mut BenchRng) {
        self.ready = rng.chance(self.rate);
        b.poke_bool(self.ports.ready, self.ready);
    }
    /// The block was reset: a partly received packet is gone, and so is an offered beat.
    pub fn reset(&mut self) {
        self.held = None;
        self.partial.clear();
        self.head_seen = None;
    }
    /// The output offers a beat now.
    pub fn offered(&self, b: &mut dyn Backend) -> bool {
        b.peek_bool(self.ports.valid)
    }
    /// After the outputs settle and before the edge: the packet completed on this edge, if any.
    /// Panics if the source withdrew or changed an offered beat.
    pub fn fired(&mut self, b: &mut dyn Backend) -> Option<Packet> {
        let c = b.cycle();
        let valid = b.peek_bool(self.ports.valid);
        if !valid {
            assert!(
                self.held.is_none(),
                "cycle {c}: source dropped valid before its beat moved"
            );
            return None;
        }
        let data = crate::backend::words_to_u128(&b.peek_wide(self.ports.data));
        let last = b.peek_bool(self.ports.last);
        let port = b.peek(self.ports.port) as u64;
        if let Some(h) = self.held {
            assert_eq!(
                (data, last, port),
                h,
                "cycle {c}: source changed a beat before it moved"
            );
        }
        if self.partial.is_empty() && self.head_seen.is_none() {
            self.head_seen = Some(c);
        }
        if !self.ready {
            self.held = Some((data, last, port));
            return None;
        }
        self.held = None;
        if self.partial.is_empty() {
            self.partial_port = port;
        } else {
            assert_eq!(
                port, self.partial_port,
                "cycle {c}: port changed inside a packet"
            );
        }
        self.partial.push(data);
        if last {
            self.head_seen = None;
            Some(Packet {
                beats: std::mem::take(&mut self.partial),
                port,
            })
        } else {
            None
        }
    }
}

/// What the bench expects of one relay station of port `k`.
#[derive(Debug, Default)]
pub struct RelayStationModel {
    /// The station's port number.
    pub k: u64,
    /// The station is the leftmost of its row (drops what is not for `k`).
    pub leftmost: bool,
    /// Packets from its own port, in order, owed on `to_right` (with `port` = `k`).
    pub from_port: VecDeque<Packet>,
    /// Packets from the left neighbour, in order, owed on `to_right`.
    pub from_left: VecDeque<Packet>,
    /// Outbound packets owed on `to_port`, in order.
    pub to_port: VecDeque<Packet>,
    /// Outbound packets owed on `to_left`, in order.
    pub to_left: VecDeque<Packet>,
    /// Outbound packets to be dropped (leftmost station), in order.
    pub drops: VecDeque<Packet>,
}

impl RelayStationModel {
    /// A station of port `k`.
    pub fn new(k: u64, leftmost: bool) -> Self {
        Self {
            k,
            leftmost,
            ..Default::default()
        }
    }
    /// A packet entered on `from_port`.
    pub fn sent_from_port(&mut self, mut p: Packet) {
        p.port = self.k;
        self.from_port.push_back(p);
    }
    /// A packet entered on `from_left`.
    pub fn sent_from_left(&mut self, p: Packet) {
        self.from_left.push_back(p);
    }
    /// A packet entered on `from_right`.
    pub fn sent_from_right(&mut self, p: Packet) {
        if p.port == self.k {
            self.to_port.push_back(p);
        } else if self.leftmost {
            self.drops.push_back(p);
        } else {
            self.to_left.push_back(p);
        }
    }
    /// A packet left on `to_right`; returns 0 if it came from the port, 1 from the left.
    pub fn got_to_right(&mut self, p: &Packet, cycle: u64) -> usize {
        if self.from_port.front() == Some(p) {
            self.from_port.pop_front();
            0
        } else if self.from_left.front() == Some(p) {
            self.from_left.pop_front();
            1
        } else {
            panic!(
                "cycle {cycle}: to_right delivered {p:x?}, expected the next of from_port {:x?} or from_left {:x?}",
                self.from_port.front(),
                self.from_left.front()
            )
        }
    }
    /// A packet left on `to_port`.
    pub fn got_to_port(&mut self, p: &Packet, cycle: u64) {
        let e = self.to_port.pop_front();
        assert_eq!(Some(p), e.as_ref(), "cycle {cycle}: to_port packet");
    }
    /// A packet left on `to_left`.
    pub fn got_to_left(&mut self, p: &Packet, cycle: u64) {
        let e = self.to_left.pop_front();
        assert_eq!(Some(p), e.as_ref(), "cycle {cycle}: to_left packet");
    }
    /// `dropped` pulsed: the next packet due for dropping is gone.
    pub fn got_drop(&mut self, cycle: u64) {
        assert!(
            self.drops.pop_front().is_some(),
            "cycle {cycle}: dropped pulsed with no packet due for dropping"
        );
    }
    /// The station was reset: everything inside it is lost.
    pub fn reset(&mut self) {
        self.from_port.clear();
        self.from_left.clear();
        self.to_port.clear();
        self.to_left.clear();
        self.drops.clear();
    }
    /// Nothing is owed.
    pub fn empty(&self) -> bool {
        self.from_port.is_empty()
            && self.from_left.is_empty()
            && self.to_port.is_empty()
            && self.to_left.is_empty()
            && self.drops.is_empty()
    }
}

/// What the bench expects of a relay-station mesh of `ports` ports in rows of `per_row`.
#[derive(Debug, Default)]
pub struct RsMeshModel {
    /// Ports per row.
    pub per_row: usize,
    /// Ports.
    pub ports: usize,
    /// Per input port, packets owed to the NMA in order (`port` = the input port).
    pub to_nma: Vec<VecDeque<Packet>>,
    /// Per output port, packets owed on it in order.
    pub outbound: Vec<VecDeque<Packet>>,
    /// Per row, packets to a port that does not exist, to be dropped in order by the row.
    pub drops: Vec<VecDeque<Packet>>,
}

impl RsMeshModel {
    /// A mesh of `ports` ports in rows of `per_row`.
    pub fn new(ports: usize, per_row: usize) -> Self {
        Self {
            per_row,
            ports,
            to_nma: vec![VecDeque::new(); ports],
            outbound: vec![VecDeque::new(); ports],
            drops: vec![VecDeque::new(); ports / per_row],
        }
    }
    /// The row that carries an outbound packet for `port` (a port past the last goes to the
    /// last row, which drops it).
    pub fn row_of(&self, port: u64) -> usize {
        ((port as usize) / self.per_row).min(self.ports / self.per_row - 1)
    }
    /// A packet entered on input port `i`.
    pub fn sent_inbound(&mut self, i: usize, mut p: Packet) {
        p.port = i as u64;
        self.to_nma[i].push_back(p);
    }
    /// A packet entered from the NMA.
    pub fn sent_from_nma(&mut self, p: Packet) {
        if (p.port as usize) < self.ports {
            self.outbound[p.port as usize].push_back(p);
        } else {
            let r = self.row_of(p.port);
            self.drops[r].push_back(p);
        }
    }
    /// A packet reached the NMA.
    pub fn got_to_nma(&mut self, p: &Packet, cycle: u64) {
        let i = p.port as usize;
        assert!(
            i < self.ports,
            "cycle {cycle}: packet to the NMA from port {i}"
        );
        let e = self.to_nma[i].pop_front();
        assert_eq!(
            Some(p),
            e.as_ref(),
            "cycle {cycle}: packet from port {i} to the NMA"
        );
    }
    /// A packet left on output port `o`.
    pub fn got_outbound(&mut self, o: usize, p: &Packet, cycle: u64) {
        let e = self.outbound[o].pop_front();
        assert_eq!(Some(p), e.as_ref(), "cycle {cycle}: packet out of port {o}");
    }
    /// Row `r` dropped a packet.
    pub fn got_drop(&mut self, r: usize, cycle: u64) {
        assert!(
            self.drops[r].pop_front().is_some(),
            "cycle {cycle}: row {r} dropped a packet none was due"
        );
    }
    /// The mesh was reset: everything inside is lost.
    pub fn reset(&mut self) {
        for q in self
            .to_nma
            .iter_mut()
            .chain(&mut self.outbound)
            .chain(&mut self.drops)
        {
            q.clear();
        }
    }
    /// Nothing is owed.
    pub fn empty(&self) -> bool {
        self.to_nma
            .iter()
            .chain(&self.outbound)
            .chain(&self.drops)
            .all(|q| q.is_empty())
    }
}
