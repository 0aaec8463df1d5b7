//! `Packetizer`: the send engine's last stage. Each message record (a checked descriptor) is
//! cut into network packets written exactly as `NicPacket::pack` writes them: head (fabric
//! header, `delay` zero), header flit, payload flits, tail (functions, QPs and QPMagic under
//! the CRC-16). One flit per cycle that `flits.ready` is high; a packet's head leaves in the
//! cycle after the previous tail when its message is there.
//!
//! **Cuts** (`docs/nic-design.md`, "Packetizer"):
//! - NAP immediate and indirect: packets of `mtu_bytes`, the last the rest; each header names
//!   the packet's offset in the message and the message's length; `event` always set.
//! - PUT: packets of `mtu_bytes`, and none crosses a destination segment: a packet ends where
//!   its segment ends (its header carries the segment address it starts at), so a segment of
//!   any length gives `ceil(bytes / mtu)` packets and the next starts on the next segment.
//!   `event` is the descriptor's `remote_event` on every packet of the message; a
//!   `get_response` message (a GET's answer from the receive engine) has the header flag
//!   `get_response` on every packet.
//! - GET: one packet on `get_vc` whose payload is the descriptor's word 2 (built here from
//!   `sources`, `destinations` and `response_key`) and its segment words; a GET whose words do not fit one
//!   packet of `max_packet_flits` is refused: its words are dropped, nothing is sent, and an
//!   error event `GetTooLong` is posted.
//!
//! **Payload** ([`PacketPayload`]): NAP immediate and GET words come on `inline` (the send
//! split's word FIFO), NAP indirect and PUT data on `payload` (the reorder buffer) through a
//! payload buffer; PUT destination segments come on `inline` too, two words each, taken at the
//! head of the packet that needs them ([`PacketCursor`]). The words go through `PacketAlign`,
//! so a packet that starts mid-word (after a segment of odd length) still has its first byte in
//! byte 0 of its first payload flit. **Store and forward**: a packet whose data comes from host
//! memory leaves its head only when all its payload is in the buffer, so it never waits half
//! sent on the port.
//!
//! **Errors**: a payload word flagged `error` (a failed data read; the flag is authoritative on
//! the message's last word) poisons the packet that takes it and the message's last packet:
//! their tails leave with the CRC inverted (`stomped` pulses), so the target drops them as
//! corrupt and never completes the message, and the message ends with an error event
//! `ReadFailed` on the issuing QP, whether or not an event was asked for. Packets before it may have been written at the target (as with
//! any failed RDMA write, the target's bytes are then undefined; the initiator knows).
//!
//! **Events**: at a message's last tail its send event (when `local_event`; never for a GET,
//! whose completion is the response's arrival) or its error event goes into [`SendEvent`]; the
//! head of a message's last packet waits until that slot is free, so once a head has left, the
//! packet's flits follow without a gap whenever the port takes them.
//!
//! **Reset** (synchronous): the message in progress is abandoned where it stands (the flits
//! sent form a packet without a tail, which the link's receiver drops); its record stays
//! queued and is sent again from its start. The NIC resets as a whole, so its inputs restart
//! with it.
//!
//! Parameters (elaboration): `mtu_bytes` (`nic.mtu_bytes`, a power of two, 16..=1024),
//! `max_packet_flits` (`network.max_packet_flits`), `data_vc` and `get_vc` (the VCs of data
//! packets and GET requests).
use super::packet_cursor::PacketCursor;
use super::packet_cut::PacketCut;
use super::packet_flit::{PacketFlit, NAP_LENGTH_BITS};
use super::packet_payload::PacketPayload;
use super::packet_phases::PacketPhases;
use super::send_event::SendEvent;
use super::{MessageSink, PayloadWordSink};
use crate::events::EventRequestSource;
use hdl::bits::constant;
use hdl::crc::{ParallelCrc, CRC16};
use hdl::formats::flit::TYPE_BIT;
use hdl::formats::nic::OVERHEAD_FLITS;
use hdl::formats::FLIT_BITS;
use hdl::stream::StreamSource;
use rust_hdl::prelude::*;

/// The packetizer; see the module documentation.
#[derive(LogicBlock)]
pub struct Packetizer {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Messages, in descriptor order.
    pub messages: MessageSink,
    /// NAP immediate data, PUT destination segments, GET segment words.
    pub inline: PayloadWordSink,
    /// NAP indirect and PUT data, from the reorder buffer.
    pub payload: PayloadWordSink,
    /// This NIC's node (the packets' `src`).
    pub node_id: Signal<In, Bits<16>>,
    /// The packets' flits.
    pub flits: StreamSource<Bits<FLIT_BITS>>,
    /// The VC of the packet on offer (steady over the packet).
    pub vc: Signal<Out, Bits<3>>,
    /// Send and error events.
    pub sends: EventRequestSource,
    /// A packet left with its CRC inverted (a failed data read).
    pub stomped: Signal<Out, bool>,
    /// A GET was refused (`GetTooLong`).
    pub refused: Signal<Out, bool>,
    cutter: PacketCut,
    cursor: PacketCursor,
    words: PacketPayload,
    builder: PacketFlit,
    event_slot: SendEvent,
    control: PacketPhases,
    /// CRC-16 of the head, header and payload flits sent.
    checksum: ParallelCrc<16, 64>,
    body_bit: Constant<Bits<FLIT_BITS>>,
    eight: Constant<Bits<11>>,
}

impl Packetizer {
    /// A packetizer cutting at `mtu_bytes`, refusing GETs longer than `max_packet_flits`,
    /// sending data on `data_vc` and GET requests on `get_vc`.
    pub fn new(mtu_bytes: usize, max_packet_flits: usize, data_vc: u8, get_vc: u8) -> Self {
        assert!(
            mtu_bytes.is_power_of_two() && (16..=1024).contains(&mtu_bytes),
            "Packetizer: mtu_bytes (nic.mtu_bytes) = {mtu_bytes} must be a power of two in 16..=1024"
        );
        assert!(
            mtu_bytes / 8 + OVERHEAD_FLITS <= max_packet_flits && max_packet_flits <= 255,
            "Packetizer: max_packet_flits = {max_packet_flits} must hold a packet of mtu_bytes = {mtu_bytes} ({} flits) and be at most 255",
            mtu_bytes / 8 + OVERHEAD_FLITS
        );
        assert!(data_vc < 8 && get_vc < 8, "Packetizer: VCs are 3 bits");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            messages: Default::default(),
            inline: Default::default(),
            payload: Default::default(),
            node_id: Default::default(),
            flits: Default::default(),
            vc: Default::default(),
            sends: Default::default(),
            stomped: Default::default(),
            refused: Default::default(),
            cutter: PacketCut::new(mtu_bytes, max_packet_flits, data_vc, get_vc),
            cursor: Default::default(),
            words: Default::default(),
            builder: Default::default(),
            event_slot: Default::default(),
            control: Default::default(),
            checksum: ParallelCrc::new(&CRC16),
            body_bit: Constant::new(Bits::<FLIT_BITS>::default().replace_bit(TYPE_BIT, true)),
            eight: constant(8),
        }
    }
}

impl Logic for Packetizer {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, cursor, words, event_slot, control, checksum);
        // The message, its next cut, the payload side.
        self.cutter.kind.next = self.messages.kind.val();
        self.cutter.length.next = self.messages.length.val();
        self.cutter.sources.next = self.messages.sources.val();
        self.cutter.destinations.next = self.messages.destinations.val();
        self.cutter.response_key.next = self.messages.response_key.val();
        self.cutter.sent.next = self.cursor.sent.val();
        self.cutter.segment_left.next = self.cursor.segment_left.val();
        PayloadWordSink::link(&mut self.inline, &mut self.words.inline);
        PayloadWordSink::link(&mut self.payload, &mut self.words.reorder);
        self.words.from_reorder.next = self.cutter.from_reorder.val();
        self.words.get.next = self.cutter.get.val();
        self.words.word_two.next = self.cutter.word_two.val();
        self.words.packet_left.next = self.cursor.packet_left.val();
        self.words.cut.next = self.cutter.cut.val();
        self.cursor.cut.next = self.cutter.cut.val();
        self.cursor.cut_last.next = self.cutter.last.val();
        self.cursor.put.next = self.cutter.put.val();
        self.cursor.segment_word.next = self.inline.word.val();
        self.cursor.sent_bytes.next = self.words.need.val();
        // The flit on offer.
        self.vc.next = self.cutter.vc.val();
        self.builder.dst_node.next = self.messages.dst_node.val();
        self.builder.node_id.next = self.node_id.val();
        self.builder.vc.next = self.vc.val();
        self.builder.packet_kind.next = self.cutter.packet_kind.val();
        self.builder.len.next = self.cutter.len.val();
        self.builder.nap.next = self.cutter.nap.val();
        self.builder.address.next = self.cursor.packet_address.val();
        self.builder.nap_offset.next = self.cursor.packet_offset.val();
        self.builder.nap_length.next = self.messages.length.val().get_bits::<NAP_LENGTH_BITS>(0);
        self.builder.bytes.next = self.cursor.packet_bytes.val();
        self.builder.wants_event.next = self.messages.remote_event.val() | self.cutter.nap.val();
        self.builder.last.next = self.cursor.packet_last.val();
        self.builder.get_response.next = self.messages.get_response.val() & self.cutter.put.val();
        self.builder.src_qp.next = self.messages.qp.val();
        self.builder.src_function.next = self.messages.function.val();
        self.builder.dst_qp.next = self.messages.dst_qp.val();
        self.builder.dst_function.next = self.messages.dst_function.val();
        self.builder.key.next = self.messages.key.val();
        self.builder.crc.next = self.checksum.crc.val();
        self.builder.stomp.next = self.control.stomp.val();
        // The control.
        self.control.reset.next = self.reset.val();
        self.control.message_valid.next = self.messages.valid.val();
        self.control.get_too_long.next = self.cutter.get_too_long.val();
        self.control.segment_needed.next = self.cutter.segment_needed.val();
        self.control.packet_ready.next = self.words.packet_ready.val();
        self.control.cut_last.next = self.cutter.last.val();
        self.control.packet_last.next = self.cursor.packet_last.val();
        self.control.last_word.next = self.cursor.packet_left.val() <= self.eight.val();
        self.control.slot_free.next = self.event_slot.free.val();
        self.control.wants_event.next = self.messages.local_event.val() & !self.cutter.get.val();
        self.control.flit_ready.next = self.flits.ready.val();
        self.control.aligned_valid.next = self.words.aligned_valid.val();
        self.control.aligned_error.next = self.words.aligned_error.val();
        self.control.inline_valid.next = self.inline.valid.val();
        self.control.inline_last.next = self.inline.last.val();
        // The flit on offer.
        self.flits.valid.next = self.control.offer.val();
        self.flits.data.next = self.builder.head.val();
        if self.control.at_header.val() {
            self.flits.data.next = self.builder.header.val();
        }
        if self.control.sending.val() {
            self.flits.data.next =
                bit_cast::<FLIT_BITS, 64>(self.words.aligned_word.val()) | self.body_bit.val();
        }
        if self.control.at_tail.val() {
            self.flits.data.next = self.builder.tail.val();
        }
        self.checksum.reset.next = self.reset.val();
        self.checksum.start.next = self.control.at_head.val();
        self.checksum.valid.next =
            self.flits.valid.val() & self.flits.ready.val() & !self.control.at_tail.val();
        self.checksum.data.next = self.flits.data.val().get_bits::<64>(0);
        // What moves on this edge.
        self.messages.ready.next = self.control.message_done.val();
        self.words.sending.next = self.control.sending.val();
        self.words.inline_pop.next = self.control.inline_pop.val();
        self.words.take.next = self.control.payload_moving.val();
        self.words.clear.next = self.control.message_done.val();
        self.cursor.start.next = self.control.start.val();
        self.cursor.segment_valid.next = self.control.segment_pop.val();
        self.cursor.payload_moving.next = self.control.payload_moving.val();
        self.cursor.done.next = self.control.message_done.val();
        self.event_slot.load.next = self.control.event_load.val();
        self.event_slot.failed.next = self.control.failed.val();
        self.event_slot.refused.next = self.control.refusing.val();
        self.stomped.next = self.control.stomped.val();
        self.refused.next = self.control.refused.val();
        self.event_slot.kind.next = self.messages.kind.val();
        self.event_slot.issuer.next = self.messages.function.val();
        self.event_slot.qp.next = self.messages.qp.val();
        self.event_slot.dst_node.next = self.messages.dst_node.val();
        self.event_slot.dst_function.next = self.messages.dst_function.val();
        self.event_slot.dst_qp.next = self.messages.dst_qp.val();
        self.event_slot.length.next = self.messages.length.val();
        self.event_slot.tag.next = self.messages.tag.val();
        EventRequestSource::link(&mut self.sends, &mut self.event_slot.event);
        self.cursor.reset.next = self.reset.val();
        self.words.reset.next = self.reset.val();
        self.event_slot.reset.next = self.reset.val();
    }
}

#[test]
fn packetizer_is_synthesizable() {
    let mut uut = Packetizer::new(128, 32, 0, 2);
    uut.connect_all();
    yosys_validate("packetizer", &generate_verilog(&uut)).unwrap();
}
