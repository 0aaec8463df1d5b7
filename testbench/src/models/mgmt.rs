//! Models of the management agent's units, built on the codec of `hdl::formats::mgmt`: random
//! management packets and their corruptions, the unpacker's decision on a packet and what it
//! writes into the packet store, and the packer's flits for a ticket. The benches compare the
//! hardware with these every cycle.
use crate::models::packet_store::{
    append_word, head_entry, response_flits, PackerSettings, SLOT_ENTRIES,
};
use crate::rng::BenchRng;
use hdl::formats::flit::{Flit, TAIL_BIT};
use hdl::formats::header::{self, FabricHeader};
use hdl::formats::mgmt::{
    self, hop_field, pack_words, unpack_words, DestType, MgmtBeat, MgmtError, MgmtPacket,
    MgmtPayload, NmpFamily, NmpType, Route, CURRENT, HOP_NUM, MGMT_FLITS, MGMT_WORDS, ROUTE_HOPS,
    UNSET_ID,
};
use hdl::formats::{PacketKind, FLIT_MASK};
use hdl::mgmt::ticket::{store_address, RequestTicket, ResponseTicket, HEAD_ENTRY};

/// A random route of up to `max_hops` hops; a forward route gets a random `current`.
pub fn random_route(rng: &mut BenchRng, max_hops: usize, forward: bool) -> Route {
    let n = rng.range(0, max_hops as u64) as usize;
    let path: Vec<u8> = (0..n).map(|_| rng.bits(5) as u8).collect();
    let mut r = Route::from_path(&path);
    r.current = if forward {
        rng.range(0, n as u64) as u8
    } else {
        0
    };
    r
}

/// A random well-formed packet of any of the 11 types addressed to `dest_id`, as it arrives
/// at a chip: backward route with room for one more hop.
pub fn random_packet(rng: &mut BenchRng, dest_id: u16) -> MgmtPacket {
    let nmp_type = NmpType::ALL[rng.range(0, NmpType::ALL.len() as u64 - 1) as usize].0;
    let payload = match nmp_type.family() {
        NmpFamily::Register => {
            let count = rng.range(1, 2) as u8;
            MgmtPayload::Registers {
                count,
                address: [
                    rng.bits(15) as u16,
                    if count == 2 { rng.bits(15) as u16 } else { 0 },
                ],
                data: [rng.bits(64) as u64, rng.bits(64) as u64],
            }
        }
        NmpFamily::Eeprom => MgmtPayload::Eeprom {
            count: rng.range(1, 6) as u8,
            address: rng.bits(16) as u16,
            bytes: std::array::from_fn(|_| rng.bits(8) as u8),
        },
        NmpFamily::Fault => MgmtPayload::Fault {
            bits: rng.bits(64) as u64,
        },
    };
    MgmtPacket {
        dest_id,
        src: rng.bits(16) as u16,
        vc: rng.bits(3) as u8,
        dest_type: if rng.chance(0.5) {
            DestType::Nic
        } else {
            DestType::Nrc
        },
        src_vp: rng.bits(8) as u8,
        dest_vp: rng.bits(8) as u8,
        transaction_id: rng.bits(16) as u16,
        nmp_type,
        error: if nmp_type.is_error_response() {
            MgmtError::ALL[rng.range(1, 7) as usize].0
        } else {
            MgmtError::None
        },
        forward: random_route(rng, ROUTE_HOPS, true),
        backward: random_route(rng, ROUTE_HOPS - 1, false),
        payload,
    }
}

/// Ways of spoiling a management packet, each one of the unpacker's rejection reasons (or, for
/// [`Corruption::Contents`], a fault the unpacker passes on for the agent to answer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Corruption {
    /// One bit of the head, a body or the tail's CRC flipped.
    Crc,
    /// A body flit removed: the tail comes early.
    Short,
    /// A body flit added: the tail comes late.
    Long,
    /// A head of another kind.
    Kind,
    /// A head whose `len` is not 10.
    LenField,
    /// A reserved header bit set.
    HeaderReserved,
    /// A body flit replaced by a control or head flit.
    NotABody,
    /// A reserved tail bit set.
    TailReserved,
    /// Forward `current` above `hop_num`.
    ForwardCurrent,
    /// Forward `hop_num` above 20.
    ForwardHops,
    /// Backward route full (20 hops).
    BackwardFull,
    /// Backward `hop_num` above 20.
    BackwardHops,
    /// Well framed and routed but with an undefined NMPType or reserved access bits:
    /// passed on (the agent answers it).
    Contents,
}

impl Corruption {
    /// Every corruption.
    pub const ALL: [Corruption; 13] = [
        Corruption::Crc,
        Corruption::Short,
        Corruption::Long,
        Corruption::Kind,
        Corruption::LenField,
        Corruption::HeaderReserved,
        Corruption::NotABody,
        Corruption::TailReserved,
        Corruption::ForwardCurrent,
        Corruption::ForwardHops,
        Corruption::BackwardFull,
        Corruption::BackwardHops,
        Corruption::Contents,
    ];
}

/// `p`'s flits spoiled by `c` (framing changes keep the CRC right where the reason is not the
/// CRC, so each packet fails for the one reason intended).
pub fn corrupt(rng: &mut BenchRng, p: &MgmtPacket, c: Corruption) -> Vec<u128> {
    let head = p.header();
    let mut w = p.words();
    let reframe = |w: &[u64; MGMT_WORDS]| pack_words(head, w);
    let set = |word: u64, f: hdl::formats::Field, v: u64| f.set(word as u128, v as u128) as u64;
    match c {
        Corruption::Crc => {
            // A bit of dst, src or vc in the head (a flipped delay bit is not an error), of a
            // body, or of the tail's CRC.
            let mut f = p.pack();
            let i = rng.range(0, 9) as usize;
            let top = match i {
                0 => header::KIND.lsb as u64 - 1,
                9 => 15,
                _ => 63,
            };
            f[i] ^= 1 << rng.range(0, top);
            f
        }
        Corruption::Short => {
            let mut f = p.pack();
            f.remove(rng.range(1, 8) as usize);
            f
        }
        Corruption::Long => {
            let mut f = p.pack();
            let at = rng.range(1, 9) as usize;
            f.insert(at, Flit::Body(rng.bits(64) as u64).pack());
            f
        }
        Corruption::Kind => {
            let mut f = p.pack();
            let kind = [
                PacketKind::Nap,
                PacketKind::Put,
                PacketKind::Get,
                PacketKind::Response,
            ][rng.range(0, 3) as usize];
            f[0] = header::KIND.set(f[0], kind.code() as u128);
            f
        }
        Corruption::LenField => {
            let mut f = p.pack();
            let len = loop {
                let l = rng.bits(8);
                if l != mgmt::MGMT_FLITS as u128 {
                    break l;
                }
            };
            f[0] = header::LEN.set(f[0], len);
            f
        }
        Corruption::HeaderReserved => {
            let mut f = p.pack();
            f[0] |= 1 << rng.range(header::RSVD.lsb as u64, 62);
            f
        }
        Corruption::NotABody => {
            let mut f = p.pack();
            let i = rng.range(1, 8) as usize;
            f[i] = if rng.chance(0.5) {
                f[0]
            } else {
                crate::models::formats::random_control(rng, hdl::formats::ControlCode::Idle)
            };
            f
        }
        Corruption::TailReserved => {
            let mut f = p.pack();
            f[9] |= 1 << rng.range(16, TAIL_BIT as u64 - 1);
            f
        }
        Corruption::ForwardCurrent => {
            let hops = rng.range(0, ROUTE_HOPS as u64 - 1);
            w[1] = set(w[1], HOP_NUM, hops);
            w[1] = set(w[1], CURRENT, rng.range(hops + 1, 31));
            reframe(&w)
        }
        Corruption::ForwardHops => {
            w[1] = set(w[1], HOP_NUM, rng.range(ROUTE_HOPS as u64 + 1, 31));
            reframe(&w)
        }
        Corruption::BackwardFull => {
            w[3] = set(w[3], HOP_NUM, ROUTE_HOPS as u64);
            reframe(&w)
        }
        Corruption::BackwardHops => {
            w[3] = set(w[3], HOP_NUM, rng.range(ROUTE_HOPS as u64 + 1, 31));
            reframe(&w)
        }
        Corruption::Contents => {
            if rng.chance(0.5) {
                w[0] = set(w[0], mgmt::NMP_TYPE, 0x3f);
            } else {
                w[5] |= 1 << 63;
            }
            reframe(&w)
        }
    }
}

/// What the unpacker does with one packet (the flits from a head, or from reset, to a tail).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unpacked {
    /// Passed on as this beat.
    Request(MgmtBeat),
    /// Dropped: DestID neither the chip's nor all ones.
    WrongId,
    /// Dropped: framing, CRC or route.
    Malformed,
}

/// The unpacker's decision on `flits` that arrived on `in_port` at chip `chip_id`: the codec's
/// framing checks ([`unpack_words`]), the routing checks ([`Route::forward_fault`],
/// [`Route::backward_fault`]), the DestID, and the backward route's append made on the raw
/// words (reserved bits kept: the unpacker does not judge them).
pub fn unpack_for_chip(flits: &[u128], in_port: u8, chip_id: u16) -> Unpacked {
    let Ok((head, mut words)) = unpack_words(flits) else {
        return Unpacked::Malformed;
    };
    let forward = Route::from_words(words[1], words[2], true);
    let backward = Route::from_words(words[3], words[4], false);
    if forward.forward_fault().is_some() || backward.backward_fault().is_some() {
        return Unpacked::Malformed;
    }
    if head.dst != chip_id && head.dst != UNSET_ID {
        return Unpacked::WrongId;
    }
    let slot = backward.hop_num as usize;
    let word = if slot < mgmt::HOPS_PER_WORD { 3 } else { 4 };
    words[word] = hop_field(slot).set(words[word] as u128, in_port as u128) as u64;
    words[3] = HOP_NUM.set(words[3] as u128, slot as u128 + 1) as u64;
    Unpacked::Request(MgmtBeat {
        src: head.src,
        dst: head.dst,
        words,
    })
}

/// The unpacker, cycle by cycle at its ports.
#[derive(Clone, Debug, Default)]
pub struct UnpackerModel {
    /// Flits of the packet in progress.
    packet: Vec<u128>,
    /// The port sampled with the packet's first flit.
    in_port: u8,
    /// The store slot sampled with the packet's first flit.
    pub slot: u8,
    /// `w3`'s `hop_num` as received.
    backward_hops: u8,
    /// The ticket on offer.
    pub offer: Option<RequestTicket>,
    /// `dropped_wrong_id` in this cycle.
    pub wrong_id: bool,
    /// `dropped_malformed` in this cycle.
    pub malformed: bool,
}

impl UnpackerModel {
    /// `flits.ready` in this cycle (a packet's first flit waits for a free store slot).
    pub fn ready(&self, reset: bool, requests_ready: bool, slot_available: bool) -> bool {
        !reset
            && (self.offer.is_none() || requests_ready)
            && (!self.packet.is_empty() || slot_available)
    }

    /// `slots.claim` in this cycle if `flit_taken`: a packet's first flit claims `free_slot`.
    pub fn claims(&self, flit_taken: bool) -> bool {
        flit_taken && self.packet.is_empty()
    }

    /// The slot given back in this cycle (`slots.give_back`, `slots.returned`): a dropped
    /// packet's, in the cycle after its tail.
    pub fn gives_back(&self) -> Option<u8> {
        (self.wrong_id || self.malformed).then_some(self.slot)
    }

    /// The store write (address, word) made if `flit` is taken now with `in_port` and
    /// `free_slot` driven: the first flit of a packet writes the head entry of `free_slot`,
    /// flit `k` (1..=8) word `k - 1` of the packet's slot (the append made to `w3`/`w4`);
    /// later flits write nothing.
    pub fn store_write(&self, flit: u128, in_port: u8, free_slot: u8) -> Option<(usize, u64)> {
        let position = self.packet.len();
        if position >= MGMT_FLITS - 1 {
            return None;
        }
        if position == 0 {
            return Some((
                store_address(free_slot as usize, HEAD_ENTRY),
                head_entry(header::SRC.get(flit) as u16, in_port),
            ));
        }
        let word = flit as u64;
        let word = match position - 1 {
            mgmt::W_BACKWARD => append_word(word, true, HOP_NUM.get(flit) as u8, self.in_port),
            mgmt::W_BACKWARD_HIGH => append_word(word, false, self.backward_hops, self.in_port),
            _ => word,
        };
        Some((store_address(self.slot as usize, position - 1), word))
    }

    /// The clock edge: `flit` taken (with `in_port`, `free_slot` and `chip_id` as driven), the
    /// ticket on offer taken if `ticket_taken`. Returns the decision on a packet whose tail was
    /// taken.
    pub fn edge(
        &mut self,
        reset: bool,
        flit: Option<u128>,
        in_port: u8,
        free_slot: u8,
        chip_id: u16,
        ticket_taken: bool,
    ) -> Option<Unpacked> {
        self.wrong_id = false;
        self.malformed = false;
        if reset {
            *self = Self::default();
            return None;
        }
        if ticket_taken {
            self.offer = None;
        }
        let flit = flit?;
        if self.packet.is_empty() {
            self.in_port = in_port;
            self.slot = free_slot;
        }
        if self.packet.len() == 1 + mgmt::W_BACKWARD {
            self.backward_hops = HOP_NUM.get(flit) as u8;
        }
        self.packet.push(flit);
        if (flit & FLIT_MASK) >> TAIL_BIT != 0b001 {
            return None;
        }
        let verdict = unpack_for_chip(&self.packet, self.in_port, chip_id);
        self.packet.clear();
        match verdict {
            Unpacked::Request(b) => self.offer = Some(RequestTicket::of(&b, self.slot)),
            Unpacked::WrongId => self.wrong_id = true,
            Unpacked::Malformed => self.malformed = true,
        }
        Some(verdict)
    }
}

/// What the packer sends for `beat` on VC `mgmt_vc`: the output port and the flits, or `None`
/// if the beat's forward route has no next hop (`current` 0 or above 20). This is the codec's
/// forwarding of a packet whose forward route is set: a response packet (from
/// `response_beat`) leaves on its request's arrival port.
pub fn packer_flits(beat: &MgmtBeat, mgmt_vc: u8) -> Option<(u8, Vec<u128>)> {
    let mut words = beat.words;
    let current = CURRENT.get(words[1] as u128) as usize;
    if current == 0 || current > ROUTE_HOPS {
        return None;
    }
    let route = Route::from_words(words[1], words[2], true);
    words[1] = CURRENT.set(words[1] as u128, current as u128 - 1) as u64;
    let head = FabricHeader {
        dst: beat.dst,
        src: beat.src,
        vc: mgmt_vc,
        kind: PacketKind::Mgmt,
        len: mgmt::MGMT_FLITS as u8,
        delay: 0,
    };
    Some((route.hops[current - 1], pack_words(head, &words)))
}

/// The packer's outputs in one cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackerOutputs {
    /// The flit on offer and the port it leaves on (`flits.valid`, `flits.data`, `out_port`).
    pub flit: Option<(u8, u128)>,
    /// `responses.ready` (meaningful only while a ticket is offered).
    pub responses_ready: bool,
}

/// The packer, cycle by cycle at its ports: [`response_flits`] of the ticket on offer and its
/// slot's words in the store, the head offered from the cycle after the ticket arrives (the
/// store's read), then one flit per cycle that `flits.ready` is high, the ticket consumed with
/// its tail (or at once if it has no output port), the packet in progress started again from
/// its head by reset.
#[derive(Clone, Debug)]
pub struct PackerModel {
    /// Virtual channel of the packets.
    mgmt_vc: u8,
    /// Flits of the packet on offer already sent.
    position: usize,
    /// The store's word for the ticket on offer has been read.
    primed: bool,
    /// `dropped_no_route` in this cycle.
    pub dropped: bool,
}

impl PackerModel {
    /// A packer sending on VC `mgmt_vc`.
    pub fn new(mgmt_vc: u8) -> Self {
        Self {
            mgmt_vc,
            position: 0,
            primed: false,
            dropped: false,
        }
    }

    /// The outputs with `ticket` offered on `responses` (or none), `entries` its slot in the
    /// store, the settings `s`, and `flits_ready` driven.
    pub fn outputs(
        &self,
        reset: bool,
        ticket: Option<&ResponseTicket>,
        entries: &[u64; SLOT_ENTRIES],
        s: &PackerSettings,
        flits_ready: bool,
    ) -> PackerOutputs {
        let Some(t) = ticket.filter(|_| !reset) else {
            return PackerOutputs {
                flit: None,
                responses_ready: false,
            };
        };
        match response_flits(t, entries, s, self.mgmt_vc) {
            None => PackerOutputs {
                flit: None,
                responses_ready: self.position == 0,
            },
            Some((port, flits)) => PackerOutputs {
                flit: self.primed.then(|| (port, flits[self.position])),
                responses_ready: flits_ready && self.position == flits.len() - 1,
            },
        }
    }

    /// The clock edge; returns whether the ticket was consumed.
    pub fn edge(
        &mut self,
        reset: bool,
        ticket: Option<&ResponseTicket>,
        entries: &[u64; SLOT_ENTRIES],
        s: &PackerSettings,
        flits_ready: bool,
    ) -> bool {
        let out = self.outputs(reset, ticket, entries, s, flits_ready);
        self.dropped = false;
        if reset {
            self.position = 0;
            self.primed = false;
            return false;
        }
        let Some(t) = ticket else {
            self.primed = false;
            return false;
        };
        if response_flits(t, entries, s, self.mgmt_vc).is_none() {
            self.primed = false;
            self.dropped = out.responses_ready;
            return self.dropped;
        }
        let moving = out.flit.is_some() && flits_ready;
        let tail = self.position == mgmt::MGMT_FLITS - 1;
        if moving {
            self.position = (self.position + 1) % mgmt::MGMT_FLITS;
        }
        self.primed = !(moving && tail);
        moving && tail
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corruptions_are_rejected_for_their_reason() {
        let mut rng = BenchRng::new(5);
        for _ in 0..300 {
            let p = random_packet(&mut rng, 0x1234);
            assert!(matches!(
                unpack_for_chip(&p.pack(), 3, 0x1234),
                Unpacked::Request(_)
            ));
            assert_eq!(unpack_for_chip(&p.pack(), 3, 0x1235), Unpacked::WrongId);
            for c in Corruption::ALL {
                let f = corrupt(&mut rng, &p, c);
                let want = if c == Corruption::Contents {
                    assert!(MgmtPacket::unpack(&f).is_err(), "{c:?}");
                    true
                } else {
                    false
                };
                let got = unpack_for_chip(&f, 3, 0x1234);
                assert_eq!(matches!(got, Unpacked::Request(_)), want, "{c:?}: {got:?}");
            }
        }
    }

    #[test]
    fn the_append_is_the_codecs() {
        let mut rng = BenchRng::new(9);
        for _ in 0..300 {
            let p = random_packet(&mut rng, UNSET_ID);
            let Unpacked::Request(beat) = unpack_for_chip(&p.pack(), 17, 0x42) else {
                panic!("all-ones DestID is for every chip")
            };
            let mut q = p;
            q.forward.current = 0;
            assert_eq!(q.take_hop(17), mgmt::Hop::Arrived);
            let mut want = MgmtBeat::of(&q);
            want.words[1] = beat.words[1]; // the unpacker leaves `current` as it came
            assert_eq!(beat, want);
        }
    }
}
