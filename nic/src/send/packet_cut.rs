//! `PacketCut`: where the packetizer cuts the next packet of a message. From the message record
//! and the packetizer's progress (bytes already in packets, a PUT's destination segment left)
//! it gives the next packet's payload bytes (`cut`: the MTU, or the message's rest, or a PUT's
//! segment rest, whichever is least; a GET's whole word list), its length in flits, whether it
//! is the message's last, and the message's kind as the packetizer needs it.
//!
//! A GET's payload is the descriptor's word 2 (built here: `sources`, `destinations`,
//! `response_key`) and its
//! `2 (sources + destinations)` segment words; `get_too_long` when they do not fit one packet
//! of `max_packet_flits`.
//!
//! Combinational; no state. Covered by the `packetizer` bench.
use super::packet_flit::PACKET_BYTES_BITS;
use crate::descriptor::{KIND_BITS, SEGMENT_COUNT_BITS};
use hdl::bits::constant;
use hdl::formats::nic::{
    DescriptorKind, DESC_DESTINATIONS, DESC_RESPONSE_KEY, DESC_SOURCES, OVERHEAD_FLITS,
};
use hdl::formats::PacketKind;
use rust_hdl::prelude::*;

/// Bits of a message byte count.
pub const LENGTH_BITS: usize = 32;

/// The next packet's cut; see the module documentation.
#[derive(LogicBlock)]
pub struct PacketCut {
    /// Descriptor kind code.
    pub kind: Signal<In, Bits<KIND_BITS>>,
    /// The message's bytes.
    pub length: Signal<In, Bits<LENGTH_BITS>>,
    /// PUT, GET: source segments.
    pub sources: Signal<In, Bits<SEGMENT_COUNT_BITS>>,
    /// PUT, GET: destination segments.
    pub destinations: Signal<In, Bits<SEGMENT_COUNT_BITS>>,
    /// GET: the response key (word 2 bits 63..32).
    pub response_key: Signal<In, Bits<32>>,
    /// Bytes of the message already in packets.
    pub sent: Signal<In, Bits<LENGTH_BITS>>,
    /// PUT: bytes left in the current destination segment (0: none taken yet).
    pub segment_left: Signal<In, Bits<LENGTH_BITS>>,
    /// The message is a PUT.
    pub put: Signal<Out, bool>,
    /// The message is a GET.
    pub get: Signal<Out, bool>,
    /// The message is a NAP (immediate or indirect).
    pub nap: Signal<Out, bool>,
    /// Its data comes from the reorder buffer (NAP indirect, PUT).
    pub from_reorder: Signal<Out, bool>,
    /// The `PacketKind` code of its packets.
    pub packet_kind: Signal<Out, Bits<4>>,
    /// A GET whose words do not fit one packet.
    pub get_too_long: Signal<Out, bool>,
    /// A GET's word 2.
    pub word_two: Signal<Out, Bits<64>>,
    /// PUT: a destination segment must be taken before the next packet.
    pub segment_needed: Signal<Out, bool>,
    /// The next packet's payload bytes.
    pub cut: Signal<Out, Bits<PACKET_BYTES_BITS>>,
    /// The next packet's flits.
    pub len: Signal<Out, Bits<8>>,
    /// The next packet is the message's last.
    pub last: Signal<Out, bool>,
    /// The VC of the message's packets.
    pub vc: Signal<Out, Bits<3>>,
    data_vc: Constant<Bits<3>>,
    get_vc: Constant<Bits<3>>,
    message_left: Signal<Local, Bits<LENGTH_BITS>>,
    get_words: Signal<Local, Bits<7>>,
    bytes: Signal<Local, Bits<LENGTH_BITS>>,
    /// Payload flits of the next packet.
    words: Signal<Local, Bits<LENGTH_BITS>>,
    mtu: Constant<Bits<LENGTH_BITS>>,
    max_get_words: Constant<Bits<7>>,
    overhead: Constant<Bits<8>>,
    seven: Constant<Bits<LENGTH_BITS>>,
    one: Constant<Bits<7>>,
    indirect_code: Constant<Bits<KIND_BITS>>,
    put_code: Constant<Bits<KIND_BITS>>,
    get_code: Constant<Bits<KIND_BITS>>,
    nap_kind: Constant<Bits<4>>,
    put_kind: Constant<Bits<4>>,
    get_kind: Constant<Bits<4>>,
    sources_at: Constant<Bits<6>>,
    destinations_at: Constant<Bits<6>>,
    response_key_at: Constant<Bits<6>>,
}

impl PacketCut {
    /// Cuts at `mtu_bytes`; GETs of at most `max_packet_flits` flits on `get_vc`, data on
    /// `data_vc`.
    pub fn new(mtu_bytes: usize, max_packet_flits: usize, data_vc: u8, get_vc: u8) -> Self {
        assert!(max_packet_flits > OVERHEAD_FLITS && max_packet_flits <= 255);
        assert!(mtu_bytes < 1 << PACKET_BYTES_BITS);
        let code = |k: DescriptorKind| constant(k.code() as u64);
        let kind = |k: PacketKind| constant(k.code() as u64);
        Self {
            kind: Default::default(),
            length: Default::default(),
            sources: Default::default(),
            destinations: Default::default(),
            response_key: Default::default(),
            sent: Default::default(),
            segment_left: Default::default(),
            put: Default::default(),
            get: Default::default(),
            nap: Default::default(),
            from_reorder: Default::default(),
            packet_kind: Default::default(),
            get_too_long: Default::default(),
            word_two: Default::default(),
            segment_needed: Default::default(),
            cut: Default::default(),
            len: Default::default(),
            last: Default::default(),
            vc: Default::default(),
            data_vc: constant(data_vc as u64),
            get_vc: constant(get_vc as u64),
            message_left: Default::default(),
            get_words: Default::default(),
            bytes: Default::default(),
            words: Default::default(),
            mtu: constant(mtu_bytes as u64),
            // A GET's words beyond 127 never fit: 255 flits at most.
            max_get_words: constant((max_packet_flits - OVERHEAD_FLITS).min(127) as u64),
            overhead: constant(OVERHEAD_FLITS as u64),
            seven: constant(7),
            one: constant(1),
            indirect_code: code(DescriptorKind::NapIndirect),
            put_code: code(DescriptorKind::Put),
            get_code: code(DescriptorKind::Get),
            nap_kind: kind(PacketKind::Nap),
            put_kind: kind(PacketKind::Put),
            get_kind: kind(PacketKind::Get),
            sources_at: constant(DESC_SOURCES.lsb as u64),
            destinations_at: constant(DESC_DESTINATIONS.lsb as u64),
            response_key_at: constant(DESC_RESPONSE_KEY.lsb as u64),
        }
    }
}

impl Logic for PacketCut {
    #[hdl_gen]
    fn update(&mut self) {
        self.put.next = self.kind.val() == self.put_code.val();
        self.get.next = self.kind.val() == self.get_code.val();
        self.nap.next = !self.put.val() & !self.get.val();
        self.from_reorder.next = self.put.val() | (self.kind.val() == self.indirect_code.val());
        self.packet_kind.next = self.nap_kind.val();
        if self.put.val() {
            self.packet_kind.next = self.put_kind.val();
        }
        if self.get.val() {
            self.packet_kind.next = self.get_kind.val();
        }
        self.get_words.next = ((bit_cast::<7, SEGMENT_COUNT_BITS>(self.sources.val())
            + bit_cast::<7, SEGMENT_COUNT_BITS>(self.destinations.val()))
            << 1)
            + self.one.val();
        self.get_too_long.next = self.get.val() & (self.get_words.val() > self.max_get_words.val());
        self.word_two.next = (bit_cast::<64, SEGMENT_COUNT_BITS>(self.sources.val())
            << self.sources_at.val())
            | (bit_cast::<64, SEGMENT_COUNT_BITS>(self.destinations.val())
                << self.destinations_at.val())
            | (bit_cast::<64, 32>(self.response_key.val()) << self.response_key_at.val());
        self.message_left.next = self.length.val() - self.sent.val();
        self.bytes.next = self.mtu.val();
        if self.message_left.val() < self.bytes.val() {
            self.bytes.next = self.message_left.val();
        }
        if self.put.val() & (self.segment_left.val() < self.bytes.val()) {
            self.bytes.next = self.segment_left.val();
        }
        self.last.next = self.message_left.val() == self.bytes.val();
        if self.get.val() {
            self.bytes.next = bit_cast::<LENGTH_BITS, 7>(self.get_words.val()) << 3;
            self.last.next = true;
        }
        self.vc.next = self.data_vc.val();
        if self.get.val() {
            self.vc.next = self.get_vc.val();
        }
        self.segment_needed.next = self.put.val() & !self.segment_left.val().any();
        self.cut.next = self.bytes.val().get_bits::<PACKET_BYTES_BITS>(0);
        self.words.next = (self.bytes.val() + self.seven.val()) >> 3;
        self.len.next = self.words.val().get_bits::<8>(0) + self.overhead.val();
    }
}

#[test]
fn packet_cut_is_synthesizable() {
    let mut uut = PacketCut::new(128, 32, 0, 2);
    uut.connect_all();
    yosys_validate("packet_cut", &generate_verilog(&uut)).unwrap();
}
