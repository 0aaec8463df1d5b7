//! Reference model of `PacketBuffer` (dirty-packet discard with commit/rollback).
//!
//! Exact per clock edge in everything but the read latency: after each edge the hardware's
//! `drops` is the model's `drops` (the drop events of that edge), and `freed` of the next
//! cycle equals what [`PacketBufferModel::edge`] returned. The model also keeps what the
//! hardware no longer does: counters per reason (what a register file counting the events
//! shows) and a record of the most recent drop (its first two flits and reason), which the
//! benches use to check their streams. Delivered flits are checked in order (a flit the
//! hardware shows must be the model's next committed flit); when they become visible is left
//! to the bench's latency bound.
use hdl::formats::{flit, header, ControlCode, PacketKind};
use hdl::llp::packet_buffer::{
    REASON_BAD, REASON_MISSING_HEAD, REASON_MISSING_TAIL, REASON_NONE, REASON_OVERRUN,
    REASON_TOO_LONG, REASON_TOO_SHORT,
};
use std::collections::VecDeque;

/// How the buffer reads a flit (the hardware's `FlitDecoder`, restated on bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlitClass {
    /// Head with its `len` field.
    Head(u8),
    /// Body.
    Body,
    /// Tail.
    Tail,
    /// HeadBadPkt/BodyBadPkt (`false`) or TailBadPkt (`true`).
    Marker(bool),
    /// A reserved encoding.
    Malformed,
    /// Any other control flit: ignored.
    Ignored,
}

/// Classifies a 65-bit flit.
pub fn classify(w: u128) -> FlitClass {
    let bit = |b: usize| (w >> b) & 1 == 1;
    if bit(flit::TYPE_BIT) {
        return FlitClass::Body;
    }
    if bit(flit::HEAD_BIT) {
        if bit(flit::TAIL_BIT) || header::KIND.get(w) as usize >= PacketKind::ALL.len() {
            return FlitClass::Malformed;
        }
        return FlitClass::Head(header::LEN.get(w) as u8);
    }
    if bit(flit::TAIL_BIT) {
        return FlitClass::Tail;
    }
    let c = flit::CODE.get(w) as u8;
    let (first, last) = (
        ControlCode::HeadBadPkt.code(),
        ControlCode::TailBadPkt.code(),
    );
    if (first..=last).contains(&c) {
        FlitClass::Marker(c == last)
    } else if c > last && c < ControlCode::LinkTransfer(0).code() {
        FlitClass::Malformed
    } else {
        FlitClass::Ignored
    }
}

/// Drop counts: missing_head, missing_tail, too_long (and too short), bad, overrun.
pub type Counters = [u64; 5];

/// Transaction model of one VC's packet buffer.
#[derive(Clone, Debug)]
pub struct PacketBufferModel {
    depth: usize,
    max_len: usize,
    /// Committed flits not yet read, in order.
    pub committed: VecDeque<u128>,
    open: Option<(u8, Vec<u128>)>,
    skip: bool,
    /// Drops so far per reason (saturating at 16 bits).
    pub counters: Counters,
    /// Drop events of the last edge: bit `r - 1` for reason `r` (the hardware's `drops`).
    pub drops: u8,
    /// `err_flit0`, `err_flit1`, `err_reason`.
    pub err: (u128, u128, u8),
    /// Sticky drop flag.
    pub dropped_any: bool,
}

impl PacketBufferModel {
    /// An empty buffer of `depth` slots accepting packets of up to `max_len` flits.
    pub fn new(depth: usize, max_len: usize) -> Self {
        Self {
            depth,
            max_len,
            committed: VecDeque::new(),
            open: None,
            skip: false,
            counters: [0; 5],
            drops: 0,
            err: (0, 0, REASON_NONE),
            dropped_any: false,
        }
    }

    /// Reset: empty, no packet open, counters and error buffer cleared.
    pub fn reset(&mut self) {
        *self = Self::new(self.depth, self.max_len);
    }

    fn count(&mut self, i: usize) {
        self.counters[i] = (self.counters[i] + 1).min(0xffff);
    }

    fn record(&mut self, f0: u128, f1: u128, reason: u8) {
        self.drops |= 1 << (reason - 1);
        self.err = (f0, f1, reason);
        self.dropped_any = true;
    }

    /// First two flits of the open packet with `extra` appended, zero-filled.
    fn first_two(pkt: &[u128], extra: u128) -> (u128, u128) {
        let f1 = if pkt.len() >= 2 { pkt[1] } else { extra };
        (pkt[0], f1)
    }

    /// Slots of the buffer.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Longest packet accepted, in flits.
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// Slots in use before this edge.
    pub fn used(&self) -> usize {
        self.committed.len() + self.open.as_ref().map_or(0, |p| p.1.len())
    }

    /// One clock edge: `flit` accepted on the sink (if any), then a committed flit read out
    /// (`pop`; returns it in `.1`). Returns the slots freed on this edge and the popped flit.
    pub fn edge(&mut self, flit: Option<u128>, pop: bool) -> (u64, Option<u128>) {
        let mut freed = 0u64;
        self.drops = 0;
        // The full test uses the state before this edge's read.
        let committed_before = self.committed.len();
        if let Some(w) = flit {
            freed += self.accept(w, committed_before);
        }
        let popped = if pop {
            let v = self.committed.pop_front();
            assert!(v.is_some(), "model: read from an empty buffer");
            freed += 1;
            v
        } else {
            None
        };
        (freed, popped)
    }

    fn accept(&mut self, w: u128, committed: usize) -> u64 {
        let class = classify(w);
        let open_len = self.open.as_ref().map_or(0, |p| p.1.len());
        match class {
            FlitClass::Ignored => 0,
            FlitClass::Malformed | FlitClass::Marker(_) => {
                let tail = class == FlitClass::Marker(true);
                if self.skip {
                    self.skip = !tail;
                    return 1;
                }
                self.count(3);
                let mut freed = 1;
                if let Some((_, pkt)) = self.open.take() {
                    let (f0, f1) = Self::first_two(&pkt, w);
                    self.record(f0, f1, REASON_BAD);
                    freed += pkt.len() as u64;
                } else {
                    self.record(w, 0, REASON_BAD);
                }
                self.skip = !tail;
                freed
            }
            FlitClass::Head(len) => {
                let mut freed = 0;
                if let Some((_, pkt)) = self.open.take() {
                    self.count(1);
                    let (f0, f1) = Self::first_two(&pkt, 0);
                    self.record(f0, f1, REASON_MISSING_TAIL);
                    freed += pkt.len() as u64;
                }
                self.skip = false;
                if committed == self.depth {
                    self.count(4);
                    self.record(w, 0, REASON_OVERRUN);
                    self.skip = true;
                } else if len < 2 {
                    self.count(3);
                    self.record(w, 0, REASON_BAD);
                    self.skip = true;
                    freed += 1;
                } else {
                    self.open = Some((len, vec![w]));
                }
                freed
            }
            FlitClass::Body | FlitClass::Tail => {
                let tail = class == FlitClass::Tail;
                if self.skip {
                    self.skip = !tail;
                    return 1;
                }
                let Some((len, pkt)) = self.open.as_mut() else {
                    self.count(0);
                    self.record(w, 0, REASON_MISSING_HEAD);
                    self.skip = !tail;
                    return 1;
                };
                let n = pkt.len();
                let len = *len as usize;
                let drop = if committed + open_len == self.depth {
                    Some((4, REASON_OVERRUN, 0))
                } else if n >= len || n >= self.max_len {
                    Some((2, REASON_TOO_LONG, 1))
                } else if tail && n + 1 < len {
                    Some((2, REASON_TOO_SHORT, 1))
                } else {
                    None
                };
                match drop {
                    Some((ctr, reason, retire)) => {
                        let (_, pkt) = self.open.take().unwrap();
                        self.count(ctr);
                        let (f0, f1) = Self::first_two(&pkt, w);
                        self.record(f0, f1, reason);
                        self.skip = !tail;
                        pkt.len() as u64 + retire
                    }
                    None => {
                        pkt.push(w);
                        if tail {
                            let (_, pkt) = self.open.take().unwrap();
                            self.committed.extend(pkt);
                        }
                        0
                    }
                }
            }
        }
    }

    /// Is a packet open or being discarded (the stream is mid-packet)?
    pub fn mid_packet(&self) -> bool {
        self.open.is_some() || self.skip
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdl::formats::flit::Flit;
    use hdl::formats::FabricHeader;

    fn head(len: u8) -> u128 {
        Flit::Head(FabricHeader {
            len,
            ..Default::default()
        })
        .pack()
    }
    const BODY: u128 = 1 << 64;
    fn tail() -> u128 {
        Flit::Tail { crc16: 7 }.pack()
    }

    #[test]
    fn good_packet_commits_and_short_one_drops() {
        let mut m = PacketBufferModel::new(8, 8);
        for w in [head(3), BODY, tail()] {
            assert_eq!(m.edge(Some(w), false).0, 0);
        }
        assert_eq!(m.committed.len(), 3);
        m.edge(Some(head(4)), false);
        m.edge(Some(BODY), false);
        assert_eq!(m.edge(Some(tail()), false).0, 3);
        assert_eq!(m.counters, [0, 0, 1, 0, 0]);
        assert_eq!(m.err, (head(4), BODY, REASON_TOO_SHORT));
    }
}
