//! `PacketFlit`: the three flits of a NIC packet that are not payload, laid out as
//! `NicPacket::pack` lays them out: the head (the fabric header with `delay` zero), the header
//! flit (address or NAP offset and length, payload bytes, flags) and the tail's spare bits
//! (source and destination function and QP, QPMagic) with the CRC-16: the packetizer's running
//! CRC of the flits sent continued over the spare bits by a `CrcStep`, inverted when `stomp`. Field positions come from the codec's fields (`hdl::formats::header`,
//! `hdl::formats::nic`) as shift constants, so the layout is defined once.
//!
//! Combinational; no state. Covered by the `packetizer` bench, which decodes every packet with
//! `NicPacket::unpack` and compares it with the message it came from.
use hdl::crc::{CrcStep, CRC16};
use hdl::formats::flit::{HEAD_BIT, TAIL_BIT, TYPE_BIT};
use hdl::formats::header::{DST, KIND, LEN, SRC, VC};
use hdl::formats::nic::{
    ADDRESS, ADDRESS_BITS, BYTES, DST_FUNCTION, DST_QP, EVENT, GET_RESPONSE, LAST, NAP_LENGTH,
    NAP_OFFSET, QP_MAGIC, SRC_FUNCTION, SRC_QP, TAIL_SPARE_BITS,
};
use hdl::formats::FLIT_BITS;
use rust_hdl::prelude::*;

/// Bits of a shift amount within a flit.
const SHIFT_BITS: usize = 7;
/// Bits of a header flit's `bytes`.
pub const PACKET_BYTES_BITS: usize = 11;
/// Bits of a NAP offset.
pub const NAP_OFFSET_BITS: usize = 11;
/// Bits of a NAP message length.
pub const NAP_LENGTH_BITS: usize = 12;
/// Bits of the CRC-16 at the bottom of a tail.
pub const CRC_BITS: usize = 16;

/// The non-payload flits of a packet; see the module documentation.
#[derive(LogicBlock)]
pub struct PacketFlit {
    /// Destination node.
    pub dst_node: Signal<In, Bits<16>>,
    /// This NIC's node.
    pub node_id: Signal<In, Bits<16>>,
    /// Virtual channel.
    pub vc: Signal<In, Bits<3>>,
    /// `PacketKind` code.
    pub packet_kind: Signal<In, Bits<4>>,
    /// Flits of the packet (`3 + ceil(bytes / 8)`).
    pub len: Signal<In, Bits<8>>,
    /// The packet is a NAP (`nap_offset`, `nap_length` instead of `address`).
    pub nap: Signal<In, bool>,
    /// PUT: target address of the first payload byte (0 for a GET).
    pub address: Signal<In, Bits<ADDRESS_BITS>>,
    /// NAP: offset of the payload in the message.
    pub nap_offset: Signal<In, Bits<NAP_OFFSET_BITS>>,
    /// NAP: the message's length.
    pub nap_length: Signal<In, Bits<NAP_LENGTH_BITS>>,
    /// Payload bytes.
    pub bytes: Signal<In, Bits<PACKET_BYTES_BITS>>,
    /// Flag `event`.
    pub wants_event: Signal<In, bool>,
    /// Flag `last`.
    pub last: Signal<In, bool>,
    /// Flag `get_response`.
    pub get_response: Signal<In, bool>,
    /// Source QP.
    pub src_qp: Signal<In, Bits<4>>,
    /// Source function.
    pub src_function: Signal<In, Bits<3>>,
    /// Destination QP.
    pub dst_qp: Signal<In, Bits<4>>,
    /// Destination function.
    pub dst_function: Signal<In, Bits<3>>,
    /// QPMagic.
    pub key: Signal<In, Bits<32>>,
    /// The CRC-16 of the head, header and payload flits sent.
    pub crc: Signal<In, Bits<CRC_BITS>>,
    /// Send the tail with its CRC inverted.
    pub stomp: Signal<In, bool>,
    /// The head flit.
    pub head: Signal<Out, Bits<FLIT_BITS>>,
    /// The header flit (a body flit).
    pub header: Signal<Out, Bits<FLIT_BITS>>,

    /// The tail flit, its CRC the packet's (inverted when `stomp`).
    pub tail: Signal<Out, Bits<FLIT_BITS>>,
    /// The CRC continued over the tail's spare bits.
    tail_crc: CrcStep<CRC_BITS, TAIL_SPARE_BITS>,
    crc_flip: Constant<Bits<CRC_BITS>>,
    /// The packet's CRC-16, inverted when `stomp`.
    packet_crc: Signal<Local, Bits<CRC_BITS>>,
    /// The tail's bits 61..16, as the CRC reads them.
    spare: Signal<Local, Bits<TAIL_SPARE_BITS>>,
    dst_at: Constant<Bits<SHIFT_BITS>>,
    src_at: Constant<Bits<SHIFT_BITS>>,
    vc_at: Constant<Bits<SHIFT_BITS>>,
    kind_at: Constant<Bits<SHIFT_BITS>>,
    len_at: Constant<Bits<SHIFT_BITS>>,
    address_at: Constant<Bits<SHIFT_BITS>>,
    nap_offset_at: Constant<Bits<SHIFT_BITS>>,
    nap_length_at: Constant<Bits<SHIFT_BITS>>,
    bytes_at: Constant<Bits<SHIFT_BITS>>,
    event_at: Constant<Bits<SHIFT_BITS>>,
    last_at: Constant<Bits<SHIFT_BITS>>,
    get_response_at: Constant<Bits<SHIFT_BITS>>,
    src_qp_at: Constant<Bits<SHIFT_BITS>>,
    src_function_at: Constant<Bits<SHIFT_BITS>>,
    dst_qp_at: Constant<Bits<SHIFT_BITS>>,
    dst_function_at: Constant<Bits<SHIFT_BITS>>,
    key_at: Constant<Bits<SHIFT_BITS>>,
    crc_width: Constant<Bits<SHIFT_BITS>>,
    head_bit: Constant<Bits<FLIT_BITS>>,
    body_bit: Constant<Bits<FLIT_BITS>>,
    tail_bit: Constant<Bits<FLIT_BITS>>,
    /// The header word's placement field (address, or NAP offset and length).
    placement: Signal<Local, Bits<64>>,
    /// The tail's bits 61..0 below the CRC's place.
    tail_fields: Signal<Local, Bits<64>>,
    /// The tail's fields moved down past the CRC's place.
    spare_word: Signal<Local, Bits<64>>,
}

impl Default for PacketFlit {
    fn default() -> Self {
        // The ports are typed by the codec's widths.
        assert_eq!(
            (DST.width, SRC.width, VC.width, KIND.width, LEN.width),
            (16, 16, 3, 4, 8)
        );
        assert_eq!(
            (NAP_OFFSET.width, NAP_LENGTH.width, BYTES.width),
            (NAP_OFFSET_BITS, NAP_LENGTH_BITS, PACKET_BYTES_BITS)
        );
        assert_eq!(
            (
                SRC_QP.width,
                SRC_FUNCTION.width,
                DST_QP.width,
                DST_FUNCTION.width
            ),
            (4, 3, 4, 3)
        );
        assert_eq!((QP_MAGIC.width, ADDRESS.width), (32, ADDRESS_BITS));
        assert_eq!(TAIL_SPARE_BITS + CRC_BITS, TAIL_BIT);
        let at = |lsb: usize| Constant::new(lsb.to_bits());
        let bit = |b: usize| Constant::new(Bits::<FLIT_BITS>::default().replace_bit(b, true));
        Self {
            dst_node: Default::default(),
            node_id: Default::default(),
            vc: Default::default(),
            packet_kind: Default::default(),
            len: Default::default(),
            nap: Default::default(),
            address: Default::default(),
            nap_offset: Default::default(),
            nap_length: Default::default(),
            bytes: Default::default(),
            wants_event: Default::default(),
            last: Default::default(),
            get_response: Default::default(),
            src_qp: Default::default(),
            src_function: Default::default(),
            dst_qp: Default::default(),
            dst_function: Default::default(),
            key: Default::default(),
            crc: Default::default(),
            stomp: Default::default(),
            head: Default::default(),
            header: Default::default(),
            spare: Default::default(),
            tail: Default::default(),
            tail_crc: CrcStep::new(&CRC16),
            crc_flip: Constant::new(((1u64 << CRC_BITS) - 1).to_bits()),
            packet_crc: Default::default(),
            dst_at: at(DST.lsb),
            src_at: at(SRC.lsb),
            vc_at: at(VC.lsb),
            kind_at: at(KIND.lsb),
            len_at: at(LEN.lsb),
            address_at: at(ADDRESS.lsb),
            nap_offset_at: at(NAP_OFFSET.lsb),
            nap_length_at: at(NAP_LENGTH.lsb),
            bytes_at: at(BYTES.lsb),
            event_at: at(EVENT.lsb),
            last_at: at(LAST.lsb),
            get_response_at: at(GET_RESPONSE.lsb),
            src_qp_at: at(SRC_QP.lsb),
            src_function_at: at(SRC_FUNCTION.lsb),
            dst_qp_at: at(DST_QP.lsb),
            dst_function_at: at(DST_FUNCTION.lsb),
            key_at: at(QP_MAGIC.lsb),
            crc_width: at(CRC_BITS),
            head_bit: bit(HEAD_BIT),
            body_bit: bit(TYPE_BIT),
            tail_bit: bit(TAIL_BIT),
            placement: Default::default(),
            tail_fields: Default::default(),
            spare_word: Default::default(),
        }
    }
}

impl Logic for PacketFlit {
    #[hdl_gen]
    fn update(&mut self) {
        self.head.next = self.head_bit.val()
            | (bit_cast::<FLIT_BITS, 16>(self.dst_node.val()) << self.dst_at.val())
            | (bit_cast::<FLIT_BITS, 16>(self.node_id.val()) << self.src_at.val())
            | (bit_cast::<FLIT_BITS, 3>(self.vc.val()) << self.vc_at.val())
            | (bit_cast::<FLIT_BITS, 4>(self.packet_kind.val()) << self.kind_at.val())
            | (bit_cast::<FLIT_BITS, 8>(self.len.val()) << self.len_at.val());
        self.placement.next =
            bit_cast::<64, ADDRESS_BITS>(self.address.val()) << self.address_at.val();
        if self.nap.val() {
            self.placement.next = (bit_cast::<64, NAP_OFFSET_BITS>(self.nap_offset.val())
                << self.nap_offset_at.val())
                | (bit_cast::<64, NAP_LENGTH_BITS>(self.nap_length.val())
                    << self.nap_length_at.val());
        }
        self.header.next = self.body_bit.val()
            | bit_cast::<FLIT_BITS, 64>(
                self.placement.val()
                    | (bit_cast::<64, PACKET_BYTES_BITS>(self.bytes.val()) << self.bytes_at.val())
                    | (bit_cast::<64, 1>(self.wants_event.val().into()) << self.event_at.val())
                    | (bit_cast::<64, 1>(self.last.val().into()) << self.last_at.val())
                    | (bit_cast::<64, 1>(self.get_response.val().into())
                        << self.get_response_at.val()),
            );
        self.tail_fields.next = (bit_cast::<64, 4>(self.src_qp.val()) << self.src_qp_at.val())
            | (bit_cast::<64, 3>(self.src_function.val()) << self.src_function_at.val())
            | (bit_cast::<64, 4>(self.dst_qp.val()) << self.dst_qp_at.val())
            | (bit_cast::<64, 3>(self.dst_function.val()) << self.dst_function_at.val())
            | (bit_cast::<64, 32>(self.key.val()) << self.key_at.val());
        self.spare_word.next = self.tail_fields.val() >> self.crc_width.val();
        self.spare.next = self.spare_word.val().get_bits::<TAIL_SPARE_BITS>(0);
        self.tail_crc.state.next = self.crc.val();
        self.tail_crc.data.next = self.spare.val();
        self.packet_crc.next = self.tail_crc.next_state.val();
        if self.stomp.val() {
            self.packet_crc.next = self.tail_crc.next_state.val() ^ self.crc_flip.val();
        }
        self.tail.next = self.tail_bit.val()
            | bit_cast::<FLIT_BITS, 64>(self.tail_fields.val())
            | bit_cast::<FLIT_BITS, CRC_BITS>(self.packet_crc.val());
    }
}

#[test]
fn packet_flit_is_synthesizable() {
    let mut uut = PacketFlit::default();
    uut.connect_all();
    yosys_validate("packet_flit", &generate_verilog(&uut)).unwrap();
}
