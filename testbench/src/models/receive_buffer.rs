//! Reference model of the receive engine's `ReceiveBuffer` (nic::receive,
//! `docs/nic-design.md`, "Receive buffer"): how a flit stream is cut into segments, the one
//! outcome of each segment (`NicPacket::unpack`, the size limit, the target's lookup), the
//! error event it posts, and the bad inputs the benches make from good packets.
use crate::rng::BenchRng;
use hdl::formats::flit::{HEAD_BIT, TAIL_BIT, TAIL_CRC, TYPE_BIT};
use hdl::formats::header::{DELAY, KIND, LEN};
use hdl::formats::nic::{
    packet_crc, EventStatus, NicPacket, NicPacketError, BYTES, EVENT, GET_RESPONSE, HEADER_RESERVED,
};

/// A flit is a head (type bit 0, head bit 1): it always starts a segment.
pub fn is_head(flit: u128) -> bool {
    (flit >> TYPE_BIT) & 1 == 0 && (flit >> HEAD_BIT) & 1 == 1
}

/// A flit is a tail (type and head bits 0, tail bit 1): it ends a segment.
pub fn is_tail(flit: u128) -> bool {
    (flit >> TYPE_BIT) & 1 == 0 && (flit >> HEAD_BIT) & 1 == 0 && (flit >> TAIL_BIT) & 1 == 1
}

/// Cuts a flit stream into segments as the receive buffer does: a head starts one (ending
/// the one open), a tail ends one, any other flit joins the open one or starts one.
#[derive(Clone, Debug, Default)]
pub struct Segmenter {
    open: Vec<u128>,
}

impl Segmenter {
    /// Takes one flit; returns the segment it ends, if any (a head ends the open segment
    /// before it starts its own).
    pub fn push(&mut self, flit: u128) -> Option<Vec<u128>> {
        if is_head(flit) {
            let ended = (!self.open.is_empty()).then(|| std::mem::take(&mut self.open));
            self.open.push(flit);
            return ended;
        }
        self.open.push(flit);
        is_tail(flit).then(|| std::mem::take(&mut self.open))
    }
    /// Forgets the open segment (reset).
    pub fn clear(&mut self) {
        self.open.clear();
    }
}

/// One QP of the function table as the lookup answers it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QpEntry {
    /// The function is enabled.
    pub function_enabled: bool,
    /// The QP is enabled.
    pub qp_enabled: bool,
    /// Its QPMagic key.
    pub key: u32,
}

/// The function table's answers: `functions` x `qps` entries exist (`owned`), the rest not.
#[derive(Clone, Debug)]
pub struct TableModel {
    /// Functions that exist.
    pub functions: usize,
    /// QPs per function.
    pub qps: usize,
    /// Entry `f * qps + q`.
    pub entries: Vec<QpEntry>,
}

impl TableModel {
    /// A random table: most functions and QPs enabled, random keys.
    pub fn random(rng: &mut BenchRng, functions: usize, qps: usize) -> Self {
        let mut entries = vec![];
        for _ in 0..functions {
            let function_enabled = rng.chance(0.85);
            for _ in 0..qps {
                entries.push(QpEntry {
                    function_enabled,
                    qp_enabled: rng.chance(0.85),
                    key: rng.bits(32) as u32,
                });
            }
        }
        Self {
            functions,
            qps,
            entries,
        }
    }
    /// The entry of (function, QP), `None` if it does not exist.
    pub fn get(&self, function: u8, qp: u8) -> Option<QpEntry> {
        let (f, q) = (function as usize, qp as usize);
        (f < self.functions && q < self.qps).then(|| self.entries[f * self.qps + q])
    }
}

/// An error event the receive buffer posts (to the target QP's receive ring, kind Error).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReceiveErrorEvent {
    /// Target function.
    pub function: u8,
    /// Target QP.
    pub qp: u8,
    /// `KeyMismatch` or `TargetQpDisabled`.
    pub status: EventStatus,
    /// The packet's kind code.
    pub op: u8,
    /// Source node, function, QP.
    pub peer: (u16, u8, u8),
    /// Payload bytes.
    pub length: u32,
}

/// What the receive buffer does with one segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Delivered: the packet and its head's `delay`.
    Received(NicPacket, u16),
    /// Dropped: CRC-16.
    Crc,
    /// Dropped: any other format rule, or longer than `max_packet_flits`.
    Malformed,
    /// Dropped: QPMagic is not the key; its event.
    KeyMismatch(ReceiveErrorEvent),
    /// Dropped: the target does not exist (no event) or is disabled (an event).
    TargetRefused(Option<ReceiveErrorEvent>),
}

impl Outcome {
    /// The error event the outcome posts.
    pub fn event(&self) -> Option<ReceiveErrorEvent> {
        match self {
            Outcome::KeyMismatch(e) => Some(*e),
            Outcome::TargetRefused(e) => *e,
            _ => None,
        }
    }
}

/// The format verdict of a segment before its lookup: the packet, or the outcome.
pub fn check(segment: &[u128], max_packet_flits: usize) -> Result<(NicPacket, u16), Outcome> {
    if segment.len() > max_packet_flits {
        return Err(Outcome::Malformed);
    }
    match NicPacket::unpack(segment) {
        Ok(p) => Ok((p, DELAY.get(segment[0]) as u16)),
        Err(NicPacketError::Crc { .. }) => Err(Outcome::Crc),
        Err(_) => Err(Outcome::Malformed),
    }
}

/// The outcome of a packet that passed its format checks, by the table's answer.
pub fn verdict(p: NicPacket, delay: u16, table: &TableModel) -> Outcome {
    let event = |status| ReceiveErrorEvent {
        function: p.dst_function,
        qp: p.dst_qp,
        status,
        op: p.op.kind().code(),
        peer: (p.src_node, p.src_function, p.src_qp),
        length: p.payload.len() as u32,
    };
    match table.get(p.dst_function, p.dst_qp) {
        None => Outcome::TargetRefused(None),
        Some(e) if !e.function_enabled || !e.qp_enabled => {
            Outcome::TargetRefused(Some(event(EventStatus::TargetQpDisabled)))
        }
        Some(e) if e.key != p.qp_magic => Outcome::KeyMismatch(event(EventStatus::KeyMismatch)),
        Some(_) => Outcome::Received(p, delay),
    }
}

/// The flits with the tail's CRC-16 recomputed (so a format rule, not the CRC, catches an
/// edit).
pub fn recrc(mut flits: Vec<u128>) -> Vec<u128> {
    let n = flits.len();
    let bodies: Vec<u64> = flits[1..n - 1].iter().map(|&f| f as u64).collect();
    let crc = packet_crc(flits[0] as u64, &bodies, flits[n - 1]);
    flits[n - 1] = TAIL_CRC.set(flits[n - 1], crc as u128);
    flits
}

/// The ways the benches break a packet (each leaves a defined outcome; the model decides it).
pub const DAMAGES: [&str; 12] = [
    "bit flip",
    "truncated",
    "no tail",
    "len wrong",
    "mgmt kind",
    "padding",
    "reserved header bits",
    "bytes wrong",
    "get_response on a non-PUT",
    "NAP without event",
    "NAP range",
    "stray flits",
];

/// `flits` (a good packet's) broken the way `DAMAGES[which]` names.
pub fn damage(rng: &mut BenchRng, flits: &[u128], which: usize) -> Vec<u128> {
    let mut f = flits.to_vec();
    let n = f.len();
    let header = |f: &mut Vec<u128>, set: &dyn Fn(u128) -> u128| {
        f[1] = set(f[1]);
    };
    match which {
        0 => {
            let i = rng.range(0, n as u64 - 1) as usize;
            f[i] ^= 1 << rng.range(0, 64);
            f
        }
        1 => {
            f.truncate(rng.range(1, n as u64 - 1) as usize);
            f
        }
        2 => {
            f.pop();
            f
        }
        3 => {
            let len = LEN.get(f[0]) as u64;
            let other = (len + rng.range(1, 254)) % 256;
            f[0] = LEN.set(f[0], other as u128);
            recrc(f)
        }
        4 => {
            f[0] = KIND.set(f[0], rng.range(3, 4) as u128);
            recrc(f)
        }
        5 => {
            let bytes = BYTES.get(f[1]) as usize;
            if bytes.is_multiple_of(8) {
                // No padding: shorten `bytes` instead, so the last byte becomes padding.
                header(&mut f, &|h| BYTES.set(h, (bytes - 1) as u128));
                if bytes == 1 {
                    return damage(rng, flits, 0);
                }
                // The dropped byte must be non-zero to be a padding error.
                f[n - 2] |= 1 << 63;
            } else {
                let b = rng.range((bytes % 8) as u64, 7);
                f[n - 2] |= 1 << (8 * b + rng.range(0, 7));
            }
            recrc(f)
        }
        6 => {
            let bit = HEADER_RESERVED.lsb as u64 + rng.range(0, 1);
            f[1] |= 1 << bit;
            recrc(f)
        }
        7 => {
            let bytes = BYTES.get(f[1]);
            let other = (bytes + 8 * rng.range(1, 3) as u128) & BYTES.max();
            header(&mut f, &|h| BYTES.set(h, other));
            recrc(f)
        }
        8 => {
            f[1] |= 1 << GET_RESPONSE.lsb;
            recrc(f)
        }
        9 => {
            f[1] &= !(1 << EVENT.lsb);
            recrc(f)
        }
        10 => {
            // NAP: offset or length out of range (on other kinds the address bits change).
            f[1] ^= 1 << rng.range(11, 30);
            recrc(f)
        }
        _ => {
            // A few flits that belong to no packet: bodies, controls, a lone tail.
            let k = rng.range(1, 4);
            let mut out: Vec<u128> = (0..k)
                .map(|_| match rng.range(0, 2) {
                    0 => (1u128 << TYPE_BIT) | rng.bits(64),
                    1 => rng.bits(62),
                    _ => (1u128 << TAIL_BIT) | rng.bits(62),
                })
                .collect();
            out.extend(f);
            out
        }
    }
}
