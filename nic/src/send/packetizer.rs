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
//!   `event` is the descriptor's `remote_event` on every packet of the message.
//! - GET: one packet on `get_vc` whose payload is the descriptor's word 2 (built here from
//!   `sources` and `destinations`) and its segment words; a GET whose words do not fit one
//!   packet of `max_packet_flits` is refused: its words are dropped, nothing is sent, and an
//!   error event `GetTooLong` is posted.
//!
//! **Payload**: NAP immediate and GET words come on `inline` (the send split's word FIFO), NAP
//! indirect and PUT data on `payload` (the reorder buffer); PUT destination segments come on
//! `inline` too, two words each, taken at the head of the packet that needs them. The words go
//! through [`PacketAlign`], so a packet that starts mid-word (after a segment of odd length)
//! still has its first byte in byte 0 of its first payload flit.
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
//! last tail waits while that slot is full.
//!
//! **Reset** (synchronous): the message in progress is abandoned where it stands (the flits
//! sent form a packet without a tail, which the link's receiver drops); its record stays
//! queued and is sent again from its start. The NIC resets as a whole, so its inputs restart
//! with it.
//!
//! Parameters (elaboration): `mtu_bytes` (`nic.mtu_bytes`, a power of two, 16..=1024),
//! `max_packet_flits` (`network.max_packet_flits`), `data_vc` and `get_vc` (the VCs of data
//! packets and GET requests).
use super::packet_align::PacketAlign;
use super::packet_cut::{PacketCut, LENGTH_BITS};
use super::packet_flit::{
    PacketFlit, CRC_BITS, NAP_LENGTH_BITS, NAP_OFFSET_BITS, PACKET_BYTES_BITS,
};
use super::send_event::SendEvent;
use super::{MessageSink, PayloadWordSink};
use crate::descriptor::STATUS_BITS;
use crate::events::EventRequestSource;
use hdl::crc::{CrcStep, ParallelCrc, CRC16};
use hdl::formats::flit::TYPE_BIT;
use hdl::formats::nic::{EventStatus, ADDRESS_BITS, OVERHEAD_FLITS, TAIL_SPARE_BITS};
use hdl::formats::FLIT_BITS;
use hdl::stream::StreamSource;
use rust_hdl::prelude::*;

/// Bits of the phase register.
const PHASE_BITS: usize = 3;
/// Waiting for a message, or at a packet's head (PUT: taking a destination segment first).
const HEAD: u64 = 0;
/// The header flit.
const HEADER: u64 = 1;
/// Payload flits.
const PAYLOAD: u64 = 2;
/// The tail.
const TAIL: u64 = 3;
/// A refused GET's words are being dropped.
const DISCARD: u64 = 4;

/// A constant of `N` bits.
fn constant<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.to_bits())
}

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
    align: PacketAlign,
    builder: PacketFlit,
    event_slot: SendEvent,
    /// CRC-16 of the head, header and payload flits sent.
    checksum: ParallelCrc<16, 64>,
    /// The CRC continued over the tail's spare bits.
    tail_crc: CrcStep<16, TAIL_SPARE_BITS>,
    phase: DFF<Bits<PHASE_BITS>>,
    /// Bytes of the message in packets already begun (the next packet's offset).
    sent: DFF<Bits<LENGTH_BITS>>,
    /// PUT: the current destination segment's next address and bytes left.
    segment_address: DFF<Bits<ADDRESS_BITS>>,
    segment_left: DFF<Bits<LENGTH_BITS>>,
    /// PUT: the next segment's address word was taken, its bytes word is next.
    address_taken: DFF<bool>,
    /// The packet being sent: payload bytes, bytes still to send, offset, address, last.
    packet_bytes: DFF<Bits<PACKET_BYTES_BITS>>,
    packet_left: DFF<Bits<PACKET_BYTES_BITS>>,
    packet_offset: DFF<Bits<PACKET_BYTES_BITS>>,
    packet_address: DFF<Bits<ADDRESS_BITS>>,
    packet_last: DFF<bool>,
    /// A payload word of this packet failed its read.
    poisoned: DFF<bool>,
    /// A payload word of this message failed its read (its last packet is stomped too, so the
    /// target never completes it).
    failed: DFF<bool>,
    /// This packet's tail leaves stomped.
    stomp: Signal<Local, bool>,
    /// GET: word 2 went into the aligner.
    word_two_sent: DFF<bool>,
    stomp_pulse: DFF<bool>,
    refuse_pulse: DFF<bool>,
    /// GET: word 2 is the aligner's next input.
    word_two_next: Signal<Local, bool>,
    moving: Signal<Local, bool>,
    at_head: Signal<Local, bool>,
    at_tail: Signal<Local, bool>,
    /// The message's event at its last tail: needed at all.
    event_needed: Signal<Local, bool>,
    /// The message ends on this edge.
    message_done: Signal<Local, bool>,
    /// The payload word sent on this edge (`need` bytes).
    payload_moving: Signal<Local, bool>,
    eight: Constant<Bits<PACKET_BYTES_BITS>>,
    body_bit: Constant<Bits<FLIT_BITS>>,
    data_vc: Constant<Bits<3>>,
    get_vc: Constant<Bits<3>>,
    ok_status: Constant<Bits<STATUS_BITS>>,
    read_failed: Constant<Bits<STATUS_BITS>>,
    get_too_long_status: Constant<Bits<STATUS_BITS>>,
    crc_flip: Constant<Bits<CRC_BITS>>,
    phases: Vec<Constant<Bits<PHASE_BITS>>>,
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
        let status = |s: EventStatus| constant(s.code() as u64);
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
            cutter: PacketCut::new(mtu_bytes, max_packet_flits),
            align: Default::default(),
            builder: Default::default(),
            event_slot: Default::default(),
            checksum: ParallelCrc::new(&CRC16),
            tail_crc: CrcStep::new(&CRC16),
            phase: Default::default(),
            sent: Default::default(),
            segment_address: Default::default(),
            segment_left: Default::default(),
            address_taken: Default::default(),
            packet_bytes: Default::default(),
            packet_left: Default::default(),
            packet_offset: Default::default(),
            packet_address: Default::default(),
            packet_last: Default::default(),
            poisoned: Default::default(),
            failed: Default::default(),
            stomp: Default::default(),
            word_two_sent: Default::default(),
            stomp_pulse: Default::default(),
            refuse_pulse: Default::default(),
            word_two_next: Default::default(),
            moving: Default::default(),
            at_head: Default::default(),
            at_tail: Default::default(),
            event_needed: Default::default(),
            message_done: Default::default(),
            payload_moving: Default::default(),
            eight: constant(8),
            body_bit: Constant::new(Bits::<FLIT_BITS>::default().replace_bit(TYPE_BIT, true)),
            data_vc: constant(data_vc as u64),
            get_vc: constant(get_vc as u64),
            ok_status: status(EventStatus::Ok),
            read_failed: status(EventStatus::ReadFailed),
            get_too_long_status: status(EventStatus::GetTooLong),
            crc_flip: constant((1u64 << CRC_BITS) - 1),
            phases: [HEAD, HEADER, PAYLOAD, TAIL, DISCARD]
                .iter()
                .map(|&p| constant(p))
                .collect(),
        }
    }
}

impl Logic for Packetizer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            phase,
            sent,
            segment_address,
            segment_left,
            address_taken,
            packet_bytes,
            packet_left,
            packet_offset,
            packet_address,
            packet_last,
            poisoned,
            failed,
            word_two_sent,
            stomp_pulse,
            refuse_pulse
        );
        clock!(self, clock, align, event_slot, checksum);
        // The message and its next cut.
        self.cutter.kind.next = self.messages.kind.val();
        self.cutter.length.next = self.messages.length.val();
        self.cutter.sources.next = self.messages.sources.val();
        self.cutter.destinations.next = self.messages.destinations.val();
        self.cutter.sent.next = self.sent.q.val();
        self.cutter.segment_left.next = self.segment_left.q.val();
        // The aligner's input: the reorder buffer or the inline words, a GET's word 2 first.
        self.word_two_next.next = self.cutter.get.val() & !self.word_two_sent.q.val();
        self.align.words.valid.next = self.inline.valid.val();
        self.align.words.word.next = self.inline.word.val();
        self.align.words.bytes.next = self.inline.bytes.val();
        self.align.words.last.next = self.inline.last.val();
        self.align.words.error.next = self.inline.error.val();
        if self.cutter.from_reorder.val() {
            self.align.words.valid.next = self.payload.valid.val();
            self.align.words.word.next = self.payload.word.val();
            self.align.words.bytes.next = self.payload.bytes.val();
            self.align.words.last.next = self.payload.last.val();
            self.align.words.error.next = self.payload.error.val();
        }
        if self.word_two_next.val() {
            self.align.words.valid.next = true;
            self.align.words.word.next = self.cutter.word_two.val();
            self.align.words.bytes.next = 8.into();
            self.align.words.last.next = false;
            self.align.words.error.next = false;
        }
        self.align.need.next = 8.into();
        if self.packet_left.q.val() < self.eight.val() {
            self.align.need.next = self.packet_left.q.val().get_bits::<4>(0);
        }
        // The flit on offer.
        self.vc.next = self.data_vc.val();
        if self.cutter.get.val() {
            self.vc.next = self.get_vc.val();
        }
        self.builder.dst_node.next = self.messages.dst_node.val();
        self.builder.node_id.next = self.node_id.val();
        self.builder.vc.next = self.vc.val();
        self.builder.packet_kind.next = self.cutter.packet_kind.val();
        self.builder.len.next = self.cutter.len.val();
        self.builder.nap.next = self.cutter.nap.val();
        self.builder.address.next = self.packet_address.q.val();
        self.builder.nap_offset.next = self.packet_offset.q.val();
        self.builder.nap_length.next = self.messages.length.val().get_bits::<NAP_LENGTH_BITS>(0);
        self.builder.bytes.next = self.packet_bytes.q.val();
        self.builder.wants_event.next = self.messages.remote_event.val() | self.cutter.nap.val();
        self.builder.last.next = self.packet_last.q.val();
        self.builder.get_response.next = self.messages.get_response.val() & self.cutter.put.val();
        self.builder.src_qp.next = self.messages.qp.val();
        self.builder.src_function.next = self.messages.function.val();
        self.builder.dst_qp.next = self.messages.dst_qp.val();
        self.builder.dst_function.next = self.messages.dst_function.val();
        self.builder.key.next = self.messages.key.val();
        self.tail_crc.state.next = self.checksum.crc.val();
        self.tail_crc.data.next = self.builder.spare.val();
        // The phases.
        self.at_head.next = self.phase.q.val() == self.phases[0].val();
        self.at_tail.next = self.phase.q.val() == self.phases[3].val();
        self.event_needed.next =
            (self.messages.local_event.val() & !self.cutter.get.val()) | self.failed.q.val();
        self.flits.valid.next = false;
        self.flits.data.next = self.builder.head.val();
        self.messages.ready.next = false;
        self.inline.ready.next = false;
        self.payload.ready.next = false;
        self.align.take.next = false;
        self.event_slot.load.next = false;
        self.event_slot.error.next = self.failed.q.val();
        self.event_slot.status.next = self.ok_status.val();
        if self.failed.q.val() {
            self.event_slot.status.next = self.read_failed.val();
        }
        self.message_done.next = false;
        self.payload_moving.next = false;
        if self.at_head.val() & self.messages.valid.val() {
            if self.cutter.get_too_long.val() {
                self.phase.d.next = self.phases[4].val();
            } else if self.cutter.segment_needed.val() {
                // A PUT's next destination segment: its address word, then its bytes word.
                self.inline.ready.next = true;
                if self.inline.valid.val() {
                    self.address_taken.d.next = !self.address_taken.q.val();
                    if self.address_taken.q.val() {
                        self.segment_left.d.next =
                            self.inline.word.val().get_bits::<LENGTH_BITS>(0);
                    } else {
                        self.segment_address.d.next =
                            self.inline.word.val().get_bits::<ADDRESS_BITS>(0);
                    }
                }
            } else {
                self.flits.valid.next = true;
                if self.flits.ready.val() {
                    self.phase.d.next = self.phases[1].val();
                    self.packet_bytes.d.next = self.cutter.cut.val();
                    self.packet_left.d.next = self.cutter.cut.val();
                    self.packet_offset.d.next = self.sent.q.val().get_bits::<NAP_OFFSET_BITS>(0);
                    // The header's address: a PUT's; zero in a GET (NAP: unused).
                    self.packet_address.d.next = 0.into();
                    if self.cutter.put.val() {
                        self.packet_address.d.next = self.segment_address.q.val();
                    }
                    self.packet_last.d.next = self.cutter.last.val();
                    self.poisoned.d.next = false;
                    self.sent.d.next = self.sent.q.val()
                        + bit_cast::<LENGTH_BITS, PACKET_BYTES_BITS>(self.cutter.cut.val());
                    self.segment_address.d.next = self.segment_address.q.val()
                        + bit_cast::<ADDRESS_BITS, PACKET_BYTES_BITS>(self.cutter.cut.val());
                    if self.cutter.put.val() {
                        self.segment_left.d.next = self.segment_left.q.val()
                            - bit_cast::<LENGTH_BITS, PACKET_BYTES_BITS>(self.cutter.cut.val());
                    }
                }
            }
        }
        if self.phase.q.val() == self.phases[1].val() {
            self.flits.valid.next = true;
            self.flits.data.next = self.builder.header.val();
            if self.flits.ready.val() {
                self.phase.d.next = self.phases[2].val();
            }
        }
        if self.phase.q.val() == self.phases[2].val() {
            self.flits.valid.next = self.align.aligned_valid.val();
            self.flits.data.next =
                bit_cast::<FLIT_BITS, 64>(self.align.aligned_word.val()) | self.body_bit.val();
            self.payload_moving.next = self.align.aligned_valid.val() & self.flits.ready.val();
            self.align.take.next = self.payload_moving.val();
            if self.payload_moving.val() {
                self.packet_left.d.next = self.packet_left.q.val()
                    - bit_cast::<PACKET_BYTES_BITS, 4>(self.align.need.val());
                if self.align.aligned_error.val() {
                    self.poisoned.d.next = true;
                    self.failed.d.next = true;
                }
                if self.packet_left.q.val() <= self.eight.val() {
                    self.phase.d.next = self.phases[3].val();
                }
            }
        }
        self.stomp.next = self.poisoned.q.val() | (self.packet_last.q.val() & self.failed.q.val());
        if self.at_tail.val() {
            self.flits.valid.next =
                !(self.packet_last.q.val() & self.event_needed.val() & !self.event_slot.free.val());
            self.flits.data.next = self.builder.tail.val()
                | bit_cast::<FLIT_BITS, CRC_BITS>(self.tail_crc.next_state.val());
            if self.stomp.val() {
                self.flits.data.next = self.builder.tail.val()
                    | bit_cast::<FLIT_BITS, CRC_BITS>(
                        self.tail_crc.next_state.val() ^ self.crc_flip.val(),
                    );
            }
            if self.flits.ready.val() & self.flits.valid.val() {
                self.phase.d.next = self.phases[0].val();
                self.stomp_pulse.d.next = self.stomp.val();
                if self.packet_last.q.val() {
                    self.message_done.next = true;
                    self.event_slot.load.next = self.event_needed.val();
                }
            }
        }
        if self.phase.q.val() == self.phases[4].val() {
            // A refused GET: its words are dropped, the error event posted with the last.
            self.event_slot.error.next = true;
            self.event_slot.status.next = self.get_too_long_status.val();
            self.inline.ready.next = !self.inline.last.val() | self.event_slot.free.val();
            if self.inline.valid.val() & self.inline.last.val() & self.event_slot.free.val() {
                self.phase.d.next = self.phases[0].val();
                self.message_done.next = true;
                self.event_slot.load.next = true;
                self.refuse_pulse.d.next = true;
            }
        }
        if self.align.words.ready.val() & self.word_two_next.val() {
            self.word_two_sent.d.next = true;
        }
        if self.phase.q.val() == self.phases[2].val() {
            self.payload.ready.next = self.cutter.from_reorder.val() & self.align.words.ready.val();
            self.inline.ready.next = !self.cutter.from_reorder.val()
                & !self.word_two_next.val()
                & self.align.words.ready.val();
        }
        self.moving.next = self.flits.valid.val() & self.flits.ready.val();
        if !self.at_tail.val() {
            self.stomp_pulse.d.next = false;
        }
        if self.phase.q.val() != self.phases[4].val() {
            self.refuse_pulse.d.next = false;
        }
        if self.message_done.val() {
            self.messages.ready.next = true;
            self.sent.d.next = 0.into();
            self.segment_left.d.next = 0.into();
            self.word_two_sent.d.next = false;
            self.failed.d.next = false;
        }
        self.align.clear.next = self.message_done.val();
        self.checksum.reset.next = self.reset.val();
        self.checksum.start.next = self.at_head.val();
        self.checksum.valid.next = self.moving.val() & !self.at_tail.val();
        self.checksum.data.next = self.flits.data.val().get_bits::<64>(0);
        self.stomped.next = self.stomp_pulse.q.val();
        self.refused.next = self.refuse_pulse.q.val();
        self.event_slot.kind.next = self.messages.kind.val();
        self.event_slot.issuer.next = self.messages.function.val();
        self.event_slot.qp.next = self.messages.qp.val();
        self.event_slot.dst_node.next = self.messages.dst_node.val();
        self.event_slot.dst_function.next = self.messages.dst_function.val();
        self.event_slot.dst_qp.next = self.messages.dst_qp.val();
        self.event_slot.length.next = self.messages.length.val();
        self.event_slot.tag.next = self.messages.tag.val();
        EventRequestSource::link(&mut self.sends, &mut self.event_slot.event);
        self.align.reset.next = self.reset.val();
        self.event_slot.reset.next = self.reset.val();
        if self.reset.val() {
            self.phase.d.next = self.phases[0].val();
            self.sent.d.next = 0.into();
            self.segment_left.d.next = 0.into();
            self.address_taken.d.next = false;
            self.word_two_sent.d.next = false;
            self.poisoned.d.next = false;
            self.failed.d.next = false;
            self.stomp_pulse.d.next = false;
            self.refuse_pulse.d.next = false;
            self.flits.valid.next = false;
            self.messages.ready.next = false;
            self.inline.ready.next = false;
            self.payload.ready.next = false;
            self.align.take.next = false;
            self.event_slot.load.next = false;
        }
    }
}

#[test]
fn packetizer_is_synthesizable() {
    let mut uut = Packetizer::new(128, 32, 0, 2);
    uut.connect_all();
    yosys_validate("packetizer", &generate_verilog(&uut)).unwrap();
}
