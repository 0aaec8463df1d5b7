//! NMP unpacker: the management agent's entrance. Takes whole management packets
//! ([`crate::formats::mgmt`]) as a flit stream, checks them, and offers each good one as one
//! [`MgmtBeat`](crate::formats::mgmt::MgmtBeat) of [`MGMT_BEAT_BITS`] bits (words `w0..w7`, the
//! head's `src` and `dst`), the port it arrived on already appended to its backward route.
//!
//! Ports: `clock`, `reset` (synchronous: forgets the packet in progress and the beat on offer;
//! the rest of a packet cut by reset arrives without its head and is dropped as malformed when
//! its tail comes), `flits` (sink), `in_port` (the port the packet came in on, sampled with the
//! head), `chip_id` (this chip's ID, compared at the tail), `requests` (source),
//! `dropped_wrong_id` and `dropped_malformed` (one-cycle pulses, the cycle after a dropped
//! packet's tail was taken; counters live in the register file).
//!
//! A packet ends at a tail flit (however malformed; a stream that never sends one is upstream's
//! fault). It is dropped as **malformed** if its head is not a head flit of kind `Mgmt`, `len`
//! [`MGMT_FLITS`] and zero reserved header bits; if a flit between head and tail is not a body
//! flit; if the tail comes early or late (not the tenth flit); if the tail's reserved bits are
//! set or its CRC-16 (the head's `delay` taken as zero) is not the packet's; or if its routing
//! fields are malformed (forward `hop_num > 20` or `current > hop_num`, backward route full or
//! `hop_num > 20`, so that the append below cannot be made). Else it is dropped as **wrong ID**
//! if its DestID is neither `chip_id` nor all ones. Malformed wins: a packet with a bad CRC has
//! no DestID to trust. These are the framing and routing checks of the codec
//! (`unpack_words` and `Route::forward_fault`/`backward_fault`); the NMPType, count and reserved
//! payload bits are the distributor's and function units' to answer with error responses.
//!
//! Timing: one flit per cycle; the beat of a good packet is offered in the cycle after its
//! tail was taken. While a beat waits (`requests.valid && !requests.ready`), `flits.ready` is
//! low: the 512 body bits are stored once, in the register the beat is offered from, so nothing
//! is overwritten and nothing lost. `flits.ready` follows `requests.ready` combinationally
//! (ready to ready only, which the stream rules allow), so back-to-back packets stream at one
//! flit per cycle when `requests` takes every beat. Dropped packets are consumed to their tail
//! at full rate and never stall the stream.
//!
//! Structure: the bodies shift into the beat register 64 bits at a time, so storing a word
//! costs no multiplexer; the backward route's append ([`BackwardAppend`]) patches `w3` or `w4`
//! on its way in (the hop slot is known from `w3`'s `hop_num`), so the beat needs no second
//! pass. The flit fields
//! come from [`FlitDecoder`], the CRC from [`ParallelCrc`].
use super::backward_append::BackwardAppend;
use crate::crc::{ParallelCrc, CRC16};
use crate::flit_decoder::FlitDecoder;
use crate::formats::mgmt::{
    self, BEAT_SRC_LSB, CRC_HEAD_MASK, HOP_BITS, MGMT_BEAT_BITS, MGMT_FLITS, MGMT_WORDS, ROUTE_HOPS,
};
use crate::formats::{flit, header, PacketKind, FLIT_BITS};
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// Bits of the position counter (0..=[`MGMT_FLITS`], saturating past the tail's place).
pub const POSITION_BITS: usize = crate::bits::count_bits(MGMT_FLITS);
/// Bits of the body words of a beat.
pub const WORDS_BITS: usize = 64 * MGMT_WORDS;

/// The unpacker; see the module documentation.
#[derive(LogicBlock)]
pub struct NmpUnpacker {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Management packets for this chip, whole, one flit per beat.
    pub flits: StreamSink<Bits<FLIT_BITS>>,
    /// The port the packet arrived on, sampled with its head.
    pub in_port: Signal<In, Bits<HOP_BITS>>,
    /// This chip's ID.
    pub chip_id: Signal<In, Bits<16>>,
    /// One beat per good packet.
    pub requests: StreamSource<Bits<MGMT_BEAT_BITS>>,
    /// A packet addressed to another chip was dropped.
    pub dropped_wrong_id: Signal<Out, bool>,
    /// A malformed packet was dropped.
    pub dropped_malformed: Signal<Out, bool>,
    decoder: FlitDecoder,
    /// CRC-16 of the head and bodies (named so that its `crc` output does not shadow it).
    checksum: ParallelCrc<16, 64>,
    /// Flits of the packet in progress taken so far (saturates at [`MGMT_FLITS`]).
    position: DFF<Bits<POSITION_BITS>>,
    /// The packet in progress has failed a check.
    malformed: DFF<bool>,
    /// The port the packet in progress arrived on.
    arrival_port: DFF<Bits<HOP_BITS>>,
    /// The backward route's `hop_num` as received (from `w3`), for the append into `w4`.
    backward_hops: DFF<Bits<5>>,
    /// Body words, `w0` lowest once all eight are in: the beat's storage.
    words: DFF<Bits<WORDS_BITS>>,
    /// The head's `src` (low half) and `dst`.
    addresses: DFF<Bits<32>>,
    /// A beat is on offer.
    offering: DFF<bool>,
    wrong_id_pulse: DFF<bool>,
    malformed_pulse: DFF<bool>,
    /// The arrival port written into the backward route as its words pass.
    append: BackwardAppend,
    /// The incoming flit fails a check.
    flit_bad: Signal<Local, bool>,
    /// A flit moves this cycle.
    taken: Signal<Local, bool>,
    /// The incoming flit's reserved header bits (if it is a head).
    header_reserved_in: Signal<Local, Bits<3>>,
    /// The incoming flit's reserved tail bits (if it is a tail).
    tail_reserved_in: Signal<Local, Bits<46>>,
    /// The incoming flit's low 5 bits: a route word's `hop_num`.
    route_hops_in: Signal<Local, Bits<5>>,
    /// The incoming flit's bits 9..5: the forward route word's `current`.
    route_current_in: Signal<Local, Bits<5>>,
    /// The decoder outputs this block does not read, acknowledged here (Verilator's lint
    /// passes names containing "unused"; nothing reads this, so synthesis removes it).
    unused_decoded: Signal<Local, bool>,
    position_head: Constant<Bits<POSITION_BITS>>,
    position_forward: Constant<Bits<POSITION_BITS>>,
    position_backward: Constant<Bits<POSITION_BITS>>,
    position_backward_high: Constant<Bits<POSITION_BITS>>,
    position_tail: Constant<Bits<POSITION_BITS>>,
    position_past: Constant<Bits<POSITION_BITS>>,
    kind_mgmt: Constant<Bits<4>>,
    packet_flits: Constant<Bits<8>>,
    route_hops: Constant<Bits<5>>,
    unset_id: Constant<Bits<16>>,
    crc_head_mask: Constant<Bits<64>>,
    header_reserved_lsb: Constant<Bits<7>>,
    tail_reserved_lsb: Constant<Bits<7>>,
    current_lsb: Constant<Bits<7>>,
    word_shift: Constant<Bits<16>>,
    top_word_shift: Constant<Bits<16>>,
    src_shift: Constant<Bits<16>>,
}

fn constant<const N: usize>(v: usize) -> Constant<Bits<N>> {
    Constant::new(Bits::from(v as u64))
}

impl Default for NmpUnpacker {
    fn default() -> Self {
        Self::new()
    }
}

impl NmpUnpacker {
    /// The unpacker (it has no parameters: the format is fixed).
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            flits: Default::default(),
            in_port: Default::default(),
            chip_id: Default::default(),
            requests: Default::default(),
            dropped_wrong_id: Default::default(),
            dropped_malformed: Default::default(),
            decoder: Default::default(),
            checksum: ParallelCrc::new(&CRC16),
            position: Default::default(),
            malformed: Default::default(),
            arrival_port: Default::default(),
            backward_hops: Default::default(),
            words: Default::default(),
            addresses: Default::default(),
            offering: Default::default(),
            wrong_id_pulse: Default::default(),
            malformed_pulse: Default::default(),
            append: Default::default(),
            flit_bad: Default::default(),
            taken: Default::default(),
            route_hops_in: Default::default(),
            header_reserved_in: Default::default(),
            tail_reserved_in: Default::default(),
            route_current_in: Default::default(),
            unused_decoded: Default::default(),
            position_head: constant(0),
            position_forward: constant(1 + mgmt::W_FORWARD),
            position_backward: constant(1 + mgmt::W_BACKWARD),
            position_backward_high: constant(1 + mgmt::W_BACKWARD_HIGH),
            position_tail: constant(MGMT_FLITS - 1),
            position_past: constant(MGMT_FLITS),
            kind_mgmt: constant(PacketKind::Mgmt.code() as usize),
            packet_flits: constant(MGMT_FLITS),
            route_hops: constant(ROUTE_HOPS),
            unset_id: constant(mgmt::UNSET_ID as usize),
            crc_head_mask: Constant::new(Bits::from(CRC_HEAD_MASK)),
            header_reserved_lsb: constant(header::RSVD.lsb),
            tail_reserved_lsb: constant(flit::TAIL_CRC.msb() + 1),
            current_lsb: constant(mgmt::CURRENT.lsb),
            word_shift: constant(64),
            top_word_shift: constant(WORDS_BITS - 64),
            src_shift: constant(BEAT_SRC_LSB),
        }
    }
}

impl Logic for NmpUnpacker {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            position,
            malformed,
            arrival_port,
            backward_hops,
            words,
            addresses,
            offering,
            wrong_id_pulse,
            malformed_pulse
        );
        clock!(self, clock, checksum);
        self.decoder.flit.next = self.flits.data.val();
        // Control flits are not body flits, which is all this block needs to know of them;
        // `vc` and `delay` are not checked (routers rewrite `delay`, the link checked `vc`).
        self.unused_decoded.next = self.decoder.is_control.val()
            | self.decoder.is_idle.val()
            | self.decoder.is_credit.val()
            | self.decoder.is_bad_marker.val()
            | self.decoder.is_link_transfer.val()
            | self.decoder.code.val().any()
            | self.decoder.vc.val().any()
            | self.decoder.delay.val().any()
            | self.decoder.ctrl_vc.val().any()
            | self.decoder.credits.val().any();
        self.flits.ready.next =
            (!self.reset.val()) & ((!self.offering.q.val()) | self.requests.ready.val());
        self.taken.next = self.flits.valid.val() & self.flits.ready.val();
        self.wrong_id_pulse.d.next = false;
        self.malformed_pulse.d.next = false;
        if self.requests.ready.val() {
            self.offering.d.next = false;
        }
        // Checks of this flit by its place in the packet.
        self.header_reserved_in.next = self
            .flits
            .data
            .val()
            .get_bits::<3>(self.header_reserved_lsb.val().index());
        self.tail_reserved_in.next = self
            .flits
            .data
            .val()
            .get_bits::<46>(self.tail_reserved_lsb.val().index());
        self.flit_bad.next = false;
        if self.position.q.val() == self.position_head.val() {
            self.flit_bad.next = (!self.decoder.is_head.val())
                | self.decoder.malformed.val()
                | (self.decoder.kind.val() != self.kind_mgmt.val())
                | (self.decoder.len.val() != self.packet_flits.val())
                | self.header_reserved_in.val().any();
        } else if self.position.q.val() < self.position_tail.val() {
            self.flit_bad.next = !self.decoder.is_body.val();
        } else if !self.decoder.is_tail.val() {
            // A tenth flit that is not a tail, or any flit after it: too long.
            self.flit_bad.next = true;
        }
        if self.decoder.is_tail.val() {
            self.flit_bad.next = (self.position.q.val() != self.position_tail.val())
                | (self.checksum.crc.val() != self.flits.data.val().get_bits::<16>(0))
                | self.tail_reserved_in.val().any();
        }
        // Routes: the forward route must be takeable, the backward one must have room.
        self.route_hops_in.next = self.flits.data.val().get_bits::<5>(0);
        self.route_current_in.next = self
            .flits
            .data
            .val()
            .get_bits::<5>(self.current_lsb.val().index());
        if self.position.q.val() == self.position_forward.val() {
            self.flit_bad.next = self.flit_bad.val()
                | (self.route_hops_in.val() > self.route_hops.val())
                | (self.route_current_in.val() > self.route_hops_in.val());
        }
        if self.position.q.val() == self.position_backward.val() {
            self.flit_bad.next =
                self.flit_bad.val() | (self.route_hops_in.val() >= self.route_hops.val());
        }
        // The backward route's append: the slot is hop_num, in w3 (0..9) or w4 (10..19).
        self.append.word.next = bit_cast::<64, FLIT_BITS>(self.flits.data.val());
        self.append.port.next = self.arrival_port.q.val();
        self.append.low_word.next = self.position.q.val() == self.position_backward.val();
        self.append.high_word.next = self.position.q.val() == self.position_backward_high.val();
        self.append.slot.next = self.backward_hops.q.val();
        if self.append.low_word.val() {
            self.append.slot.next = self.route_hops_in.val();
        }
        // The CRC covers the head (delay as zero) and the bodies.
        self.checksum.reset.next = self.reset.val();
        self.checksum.start.next = self.position.q.val() == self.position_head.val();
        self.checksum.valid.next =
            self.taken.val() & (self.position.q.val() < self.position_tail.val());
        self.checksum.data.next = bit_cast::<64, FLIT_BITS>(self.flits.data.val());
        if self.position.q.val() == self.position_head.val() {
            self.checksum.data.next =
                bit_cast::<64, FLIT_BITS>(self.flits.data.val()) & self.crc_head_mask.val();
        }
        if self.taken.val() {
            if self.position.q.val() != self.position_past.val() {
                self.position.d.next = self.position.q.val() + 1;
            }
            self.malformed.d.next = self.malformed.q.val() | self.flit_bad.val();
            if self.position.q.val() == self.position_head.val() {
                self.malformed.d.next = self.flit_bad.val();
                self.arrival_port.d.next = self.in_port.val();
                self.addresses.d.next = bit_cast::<32, 16>(self.decoder.src.val())
                    | (bit_cast::<32, 16>(self.decoder.dst.val()) << 16);
            }
            if self.position.q.val() == self.position_backward.val() {
                self.backward_hops.d.next = self.route_hops_in.val();
            }
            if self.decoder.is_body.val() {
                self.words.d.next = (self.words.q.val() >> self.word_shift.val())
                    | (bit_cast::<WORDS_BITS, 64>(self.append.patched.val())
                        << self.top_word_shift.val());
            }
            if self.decoder.is_tail.val() {
                self.position.d.next = 0.into();
                if self.malformed.q.val() | self.flit_bad.val() {
                    self.malformed_pulse.d.next = true;
                } else if (self.addresses.q.val().get_bits::<16>(16) != self.chip_id.val())
                    & (self.addresses.q.val().get_bits::<16>(16) != self.unset_id.val())
                {
                    self.wrong_id_pulse.d.next = true;
                } else {
                    self.offering.d.next = true;
                }
            }
        }
        if self.reset.val() {
            self.position.d.next = 0.into();
            self.malformed.d.next = false;
            self.offering.d.next = false;
            self.wrong_id_pulse.d.next = false;
            self.malformed_pulse.d.next = false;
        }
        self.requests.valid.next = self.offering.q.val();
        self.requests.data.next = bit_cast::<MGMT_BEAT_BITS, WORDS_BITS>(self.words.q.val())
            | (bit_cast::<MGMT_BEAT_BITS, 32>(self.addresses.q.val()) << self.src_shift.val());
        self.dropped_wrong_id.next = self.wrong_id_pulse.q.val();
        self.dropped_malformed.next = self.malformed_pulse.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_match_the_format() {
        // Widths written as literals in `update`.
        assert_eq!(header::RSVD.width, 3);
        assert_eq!(flit::TAIL_BIT - (flit::TAIL_CRC.msb() + 1), 46);
        assert_eq!(flit::TAIL_CRC.width, 16);
        assert_eq!(
            (mgmt::HOP_NUM.width, mgmt::CURRENT.width, mgmt::HOP_NUM.lsb),
            (5, 5, 0)
        );
        assert_eq!(HOP_BITS, 5);
        assert_eq!(mgmt::HOPS_PER_WORD, 10);
        assert_eq!(mgmt::BEAT_DST_LSB, BEAT_SRC_LSB + 16);
        assert_eq!(MGMT_BEAT_BITS, WORDS_BITS + 32);
    }

    #[test]
    fn nmp_unpacker_is_synthesizable() {
        let mut uut = NmpUnpacker::new();
        uut.connect_all();
        yosys_validate("nmp_unpacker", &generate_verilog(&uut)).unwrap();
    }
}
