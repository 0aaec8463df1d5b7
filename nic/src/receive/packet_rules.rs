//! `PacketRules`: the format rules `NicPacket::unpack` applies after the CRC, on the fields the
//! receive buffer held for a packet (`docs/nic-design.md`, "Receive buffer"): `bytes` not zero
//! and exactly filling the payload flits, the last flit's unused bytes zero, the header's
//! reserved bits zero; a NAP's `address` bits above its offset and length zero, its length
//! 1..=2048, its packet inside the message, its `event` set; a GET's address zero;
//! `get_response` only on a PUT. (The kind itself, `len`, flit types and the CRC are checked
//! before, by `PacketCheck`.) Field positions are the codec's (`hdl::formats::nic`), as shift
//! constants.
//!
//! Combinational; no state, no parameters.
use super::packet_check::COUNT_BITS;
use super::{NAP_LENGTH_BITS, NAP_OFFSET_BITS, PACKET_BYTES_BITS, PACKET_KIND_BITS};
use hdl::bits::constant;
use hdl::formats::nic::{
    ADDRESS, ADDRESS_BITS, BYTES, EVENT, GET_RESPONSE, HEADER_RESERVED, NAP_LENGTH, NAP_MAX_BYTES,
    NAP_OFFSET,
};
use hdl::formats::PacketKind;
use rust_hdl::prelude::*;

// `update` reads fields at literal offsets (a `get_bits` offset must be a literal there); they
// are the codec's:
const _: () = assert!(BYTES.lsb == 48);
const _: () = assert!(HEADER_RESERVED.lsb == 62);
const _: () = assert!(EVENT.lsb == 59);
const _: () = assert!(GET_RESPONSE.lsb == 61);
const _: () = assert!(NAP_OFFSET.lsb == 0);
const _: () = assert!(NAP_LENGTH.lsb == 11);
const _: () = assert!(NAP_LENGTH.lsb + NAP_LENGTH.width == 23);
const _: () = assert!(ADDRESS.lsb == 0);

/// Bits of a shift amount within a 64-bit word.
const SHIFT_BITS: usize = 7;
/// Bits of a NAP header's `address` above its offset and length.
const NAP_ABOVE_BITS: usize = ADDRESS_BITS - NAP_LENGTH_BITS - NAP_OFFSET_BITS;
/// Bits of `offset + bytes` (both below 2048).
const SUM_BITS: usize = 13;

/// The post-CRC format rules; see the module documentation.
#[derive(LogicBlock)]
pub struct PacketRules {
    /// The packet's kind code (NAP, PUT or GET: `PacketCheck` has checked it).
    pub kind: Signal<In, Bits<PACKET_KIND_BITS>>,
    /// Its header flit.
    pub header: Signal<In, Bits<64>>,
    /// Its payload flits.
    pub payload_words: Signal<In, Bits<COUNT_BITS>>,
    /// Its last payload flit.
    pub last_word: Signal<In, Bits<64>>,
    /// Every rule holds.
    pub ok: Signal<Out, bool>,
    bytes: Signal<Local, Bits<PACKET_BYTES_BITS>>,
    rounded: Signal<Local, Bits<12>>,
    pad_shift: Signal<Local, Bits<SHIFT_BITS>>,
    padding: Signal<Local, Bits<64>>,
    padding_ok: Signal<Local, bool>,
    offset: Signal<Local, Bits<SUM_BITS>>,
    message: Signal<Local, Bits<SUM_BITS>>,
    reach: Signal<Local, Bits<SUM_BITS>>,
    nap_ok: Signal<Local, bool>,
    byte_shift: Constant<Bits<SHIFT_BITS>>,
    seven: Constant<Bits<12>>,
    nap_max: Constant<Bits<SUM_BITS>>,
    nap: Constant<Bits<PACKET_KIND_BITS>>,
    put: Constant<Bits<PACKET_KIND_BITS>>,
    get: Constant<Bits<PACKET_KIND_BITS>>,
}

impl Default for PacketRules {
    fn default() -> Self {
        assert_eq!(BYTES.width, PACKET_BYTES_BITS);
        assert_eq!(HEADER_RESERVED.width, 2);
        assert_eq!(ADDRESS.width, ADDRESS_BITS);
        assert_eq!(NAP_OFFSET.lsb + NAP_OFFSET.width, NAP_LENGTH.lsb);
        Self {
            kind: Default::default(),
            header: Default::default(),
            payload_words: Default::default(),
            last_word: Default::default(),
            ok: Default::default(),
            bytes: Default::default(),
            rounded: Default::default(),
            pad_shift: Default::default(),
            padding: Default::default(),
            padding_ok: Default::default(),
            offset: Default::default(),
            message: Default::default(),
            reach: Default::default(),
            nap_ok: Default::default(),
            byte_shift: constant(3),
            seven: constant(7),
            nap_max: constant(NAP_MAX_BYTES as u64),
            nap: constant(PacketKind::Nap.code() as u64),
            put: constant(PacketKind::Put.code() as u64),
            get: constant(PacketKind::Get.code() as u64),
        }
    }
}

impl Logic for PacketRules {
    #[hdl_gen]
    fn update(&mut self) {
        self.bytes.next = self.header.val().get_bits::<PACKET_BYTES_BITS>(48);
        // ceil(bytes / 8) = (bytes + 7) >> 3.
        self.rounded.next = bit_cast::<12, PACKET_BYTES_BITS>(self.bytes.val()) + self.seven.val();
        // The last flit's bytes from `bytes mod 8` up are padding (none when it is 0).
        self.pad_shift.next =
            bit_cast::<SHIFT_BITS, 3>(self.bytes.val().get_bits::<3>(0)) << self.byte_shift.val();
        self.padding.next = self.last_word.val() >> self.pad_shift.val();
        self.padding_ok.next = true;
        if self.bytes.val().get_bits::<3>(0).any() {
            self.padding_ok.next = !self.padding.val().any();
        }
        // NAP: offset and length inside the message (13-bit sums, no overflow).
        self.offset.next =
            bit_cast::<SUM_BITS, NAP_OFFSET_BITS>(self.header.val().get_bits::<NAP_OFFSET_BITS>(0));
        self.message.next = bit_cast::<SUM_BITS, NAP_LENGTH_BITS>(
            self.header.val().get_bits::<NAP_LENGTH_BITS>(11),
        );
        self.reach.next =
            self.offset.val() + bit_cast::<SUM_BITS, PACKET_BYTES_BITS>(self.bytes.val());
        self.nap_ok.next = !self.header.val().get_bits::<NAP_ABOVE_BITS>(23).any()
            & self.message.val().any()
            & (self.message.val() <= self.nap_max.val())
            & (self.reach.val() <= self.message.val())
            & self.header.val().get_bit(59);

        self.ok.next = self.bytes.val().any()
            & (bit_cast::<COUNT_BITS, 9>(self.rounded.val().get_bits::<9>(3))
                == self.payload_words.val())
            & !self.rounded.val().get_bit(11)
            & self.padding_ok.val()
            & !self.header.val().get_bits::<2>(62).any();
        if (self.kind.val() == self.nap.val()) & !self.nap_ok.val() {
            self.ok.next = false;
        }
        if (self.kind.val() == self.get.val()) & self.header.val().get_bits::<ADDRESS_BITS>(0).any()
        {
            self.ok.next = false;
        }
        if (self.kind.val() != self.put.val()) & self.header.val().get_bit(61) {
            self.ok.next = false;
        }
    }
}

#[test]
fn packet_rules_is_synthesizable() {
    let mut uut = PacketRules::default();
    uut.connect_all();
    yosys_validate("packet_rules", &generate_verilog(&uut)).unwrap();
}
