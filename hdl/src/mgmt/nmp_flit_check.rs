//! NMP flit check: the [`NmpUnpacker`](super::NmpUnpacker)'s framing and routing checks of one
//! incoming flit, by its place in the packet. Pure logic (no state): the unpacker keeps the
//! position, the CRC and the verdict.
//!
//! Inputs: `flit`, `position` (flits of the packet taken before it: 0 the head, 9 the tail's
//! place, 10 past it), `crc` (the CRC-16 of the head, `delay` as zero, and the bodies so far).
//! Outputs: `bad` (the flit fails a check), and the decoder's `is_tail` and `dst` (the DestID,
//! meaningful on a head), which the unpacker needs besides.
//!
//! `bad` is: at the head's place, not a head flit of kind `Mgmt`, `len` [`MGMT_FLITS`], zero
//! reserved header bits, or a malformed one; between head and tail, not a body flit; at or
//! past the tail's place, not a tail (too long); a tail anywhere but at the tail's place (too
//! short), with reserved bits set or with a CRC-16 that is not `crc`; the forward route word
//! (`w1`) with `hop_num > 20` or `current > hop_num`; the backward route word (`w3`) with
//! `hop_num >= 20` (no room for this chip's hop). These are the codec's framing checks
//! (`unpack_words`) and `Route::forward_fault`/`backward_fault`.
use super::constant;
use crate::flit_decoder::FlitDecoder;
use crate::formats::mgmt::{self, MGMT_FLITS, ROUTE_HOPS};
use crate::formats::{flit, header, PacketKind, FLIT_BITS};
use rust_hdl::prelude::*;

/// Bits of the position in a packet (0..=[`MGMT_FLITS`], saturating past the tail's place).
pub const POSITION_BITS: usize = crate::bits::count_bits(MGMT_FLITS);

/// The flit check; see the module documentation.
#[derive(LogicBlock)]
pub struct NmpFlitCheck {
    /// The incoming flit.
    pub flit: Signal<In, Bits<FLIT_BITS>>,
    /// Its place in the packet.
    pub position: Signal<In, Bits<POSITION_BITS>>,
    /// CRC-16 of the packet so far.
    pub crc: Signal<In, Bits<16>>,
    /// The flit fails a check.
    pub bad: Signal<Out, bool>,
    /// The flit is a tail.
    pub is_tail: Signal<Out, bool>,
    /// The head's `dst`.
    pub dst: Signal<Out, Bits<16>>,
    decoder: FlitDecoder,
    /// The incoming flit's reserved header bits (if it is a head).
    header_reserved_in: Signal<Local, Bits<3>>,
    /// The incoming flit's reserved tail bits (if it is a tail).
    tail_reserved_in: Signal<Local, Bits<46>>,
    /// The incoming flit's low 5 bits: a route word's `hop_num`.
    route_hops_in: Signal<Local, Bits<5>>,
    /// The incoming flit's `current` bits: the forward route word's `current`.
    route_current_in: Signal<Local, Bits<5>>,
    /// The decoder outputs this block does not read, acknowledged here (Verilator's lint
    /// passes names containing "unused"; nothing reads this, so synthesis removes it).
    unused_decoded: Signal<Local, bool>,
    position_head: Constant<Bits<POSITION_BITS>>,
    position_forward: Constant<Bits<POSITION_BITS>>,
    position_backward: Constant<Bits<POSITION_BITS>>,
    position_tail: Constant<Bits<POSITION_BITS>>,
    kind_mgmt: Constant<Bits<4>>,
    packet_flits: Constant<Bits<8>>,
    route_hops: Constant<Bits<5>>,
    header_reserved_lsb: Constant<Bits<7>>,
    tail_reserved_lsb: Constant<Bits<7>>,
    current_lsb: Constant<Bits<7>>,
}

impl Default for NmpFlitCheck {
    fn default() -> Self {
        Self {
            flit: Default::default(),
            position: Default::default(),
            crc: Default::default(),
            bad: Default::default(),
            is_tail: Default::default(),
            dst: Default::default(),
            decoder: Default::default(),
            header_reserved_in: Default::default(),
            tail_reserved_in: Default::default(),
            route_hops_in: Default::default(),
            route_current_in: Default::default(),
            unused_decoded: Default::default(),
            position_head: constant(0),
            position_forward: constant((1 + mgmt::W_FORWARD) as u64),
            position_backward: constant((1 + mgmt::W_BACKWARD) as u64),
            position_tail: constant((MGMT_FLITS - 1) as u64),
            kind_mgmt: constant(PacketKind::Mgmt.code() as u64),
            packet_flits: constant(MGMT_FLITS as u64),
            route_hops: constant(ROUTE_HOPS as u64),
            header_reserved_lsb: constant(header::RSVD.lsb as u64),
            tail_reserved_lsb: constant((flit::TAIL_CRC.msb() + 1) as u64),
            current_lsb: constant(mgmt::CURRENT.lsb as u64),
        }
    }
}

impl Logic for NmpFlitCheck {
    #[hdl_gen]
    fn update(&mut self) {
        self.decoder.flit.next = self.flit.val();
        self.is_tail.next = self.decoder.is_tail.val();
        self.dst.next = self.decoder.dst.val();
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
            | self.decoder.credits.val().any()
            | self.decoder.src.val().any();
        self.header_reserved_in.next = self
            .flit
            .val()
            .get_bits::<3>(self.header_reserved_lsb.val().index());
        self.tail_reserved_in.next = self
            .flit
            .val()
            .get_bits::<46>(self.tail_reserved_lsb.val().index());
        // Framing, by place.
        self.bad.next = false;
        if self.position.val() == self.position_head.val() {
            self.bad.next = (!self.decoder.is_head.val())
                | self.decoder.malformed.val()
                | (self.decoder.kind.val() != self.kind_mgmt.val())
                | (self.decoder.len.val() != self.packet_flits.val())
                | self.header_reserved_in.val().any();
        } else if self.position.val() < self.position_tail.val() {
            self.bad.next = !self.decoder.is_body.val();
        } else if !self.decoder.is_tail.val() {
            // A tenth flit that is not a tail, or any flit after it: too long.
            self.bad.next = true;
        }
        if self.decoder.is_tail.val() {
            self.bad.next = (self.position.val() != self.position_tail.val())
                | (self.crc.val() != self.flit.val().get_bits::<16>(0))
                | self.tail_reserved_in.val().any();
        }
        // Routes: the forward route must be takeable, the backward one must have room.
        self.route_hops_in.next = self.flit.val().get_bits::<5>(0);
        self.route_current_in.next = self
            .flit
            .val()
            .get_bits::<5>(self.current_lsb.val().index());
        if self.position.val() == self.position_forward.val() {
            self.bad.next = self.bad.val()
                | (self.route_hops_in.val() > self.route_hops.val())
                | (self.route_current_in.val() > self.route_hops_in.val());
        }
        if self.position.val() == self.position_backward.val() {
            self.bad.next = self.bad.val() | (self.route_hops_in.val() >= self.route_hops.val());
        }
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
    }

    #[test]
    fn nmp_flit_check_is_synthesizable() {
        let mut uut = NmpFlitCheck::default();
        uut.connect_all();
        yosys_validate("nmp_flit_check", &generate_verilog(&uut)).unwrap();
    }
}
