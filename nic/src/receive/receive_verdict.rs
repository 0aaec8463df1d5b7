//! `ReceiveVerdict`: the receive buffer's decision stage (`docs/nic-design.md`, "Receive
//! buffer"): one segment at a time, taken from `PacketCheck` on the edge its last flit is
//! taken, gets exactly one outcome, in `NicPacket::unpack`'s order and then the target's:
//!
//! 1. a broken structure rule (flit types, kind, `len`, size) → `malformed`;
//! 2. a wrong CRC-16 → `crc_error`;
//! 3. a broken format rule (`PacketRules`) → `malformed`;
//! 4. the QP lookup of the tail's target (asked only with room in the record FIFO, so a good
//!    answer can always be recorded): function or QP not in this configuration (`owned` low)
//!    → `target_refused`; function or QP disabled → `target_refused` and a `TargetQpDisabled`
//!    error event; QPMagic not the QP's key → `key_mismatch` and a `KeyMismatch` error event;
//!    else `received`: the packet RAM's words are committed and the packet's record pushed.
//!
//! Every other outcome drops (the packet RAM gives the segment's words back). Error events go
//! to the target QP's receive ring (kind Error, op = the packet's kind, peer = the source,
//! length = the payload bytes, info 0) through a one-event slot: if the slot still holds the
//! last one, the new event is not posted and `event_lost` pulses; the receive path never waits
//! for the event writer (`ErrorEventSlot`, `error_event_slot.rs`).
//!
//! **Timing**: segment taken on edge `c`; rules 1 to 3 decide in cycle `c + 1`; the lookup is
//! offered in `c + 1` and, taken at once, answered and decided in `c + 2`; `free` again from
//! `c + 2` (rules) or `c + 3` (lookup). The pulses are combinational in the deciding cycle.
//!
//! Reset (synchronous): no segment held, no lookup due, the event slot empty. No parameters.
use super::error_event_slot::ErrorEventSlot;
use super::packet_check::COUNT_BITS;
use super::packet_rules::PacketRules;
use super::{DELAY_BITS, PACKET_BYTES_BITS, PACKET_KIND_BITS};
use crate::descriptor::{OP_BITS, STATUS_BITS};
use crate::events::EventRequestSource;
use crate::function_table::QpLookupSource;
use hdl::bits::constant;
use hdl::formats::nic::{
    EventStatus, BYTES, DST_FUNCTION, DST_QP, FUNCTION_BITS, QP_BITS, QP_MAGIC, SRC_FUNCTION,
    SRC_QP,
};
use rust_hdl::prelude::*;

// `update` reads fields at literal offsets (a `get_bits` offset must be a literal there); they
// are the codec's:
const _: () = assert!(DST_FUNCTION.lsb == 27);
const _: () = assert!(DST_QP.lsb == 23);
const _: () = assert!(QP_MAGIC.lsb == 30);
const _: () = assert!(SRC_FUNCTION.lsb == 20);
const _: () = assert!(SRC_QP.lsb == 16);
const _: () = assert!(BYTES.lsb == 48);
const _: () = assert!(TAIL_IDS_LSB == 16);

/// Bits of a shift amount within a 64-bit word or a record.
const SHIFT_BITS: usize = 7;
/// Lowest tail bit a record keeps: the tail's identifiers (`SRC_QP` up to `DST_FUNCTION`).
pub const TAIL_IDS_LSB: usize = 16;
/// Bits of the tail's identifiers kept in a record (source and destination function and QP).
pub const TAIL_IDS_BITS: usize = 14;
/// Record layout: the header flit in bits 63..0.
pub const RECORD_HEADER_AT: usize = 0;
/// Record layout: the kind code.
pub const RECORD_KIND_AT: usize = 64;
/// Record layout: the source node.
pub const RECORD_SRC_NODE_AT: usize = RECORD_KIND_AT + PACKET_KIND_BITS;
/// Record layout: the head's `delay`.
pub const RECORD_DELAY_AT: usize = RECORD_SRC_NODE_AT + 16;
/// Record layout: tail bits `TAIL_IDS_LSB ..` (a tail field `f` is at `RECORD_TAIL_AT + f.lsb -
/// TAIL_IDS_LSB`).
pub const RECORD_TAIL_AT: usize = RECORD_DELAY_AT + DELAY_BITS;
/// Bits of a packet record (one entry of the record FIFO).
pub const RECORD_BITS: usize = RECORD_TAIL_AT + TAIL_IDS_BITS;

const _: () = assert!(SRC_QP.lsb == TAIL_IDS_LSB);
const _: () = assert!(DST_FUNCTION.lsb + DST_FUNCTION.width == TAIL_IDS_LSB + TAIL_IDS_BITS);

/// The decision stage; see the module documentation.
#[derive(LogicBlock)]
pub struct ReceiveVerdict {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// A segment ends on this edge (its summary below and the tail on `tail`).
    pub ended: Signal<In, bool>,
    /// Its structure passed.
    pub structure_ok: Signal<In, bool>,
    /// Its CRC-16 is right.
    pub crc_ok: Signal<In, bool>,
    /// Its kind code.
    pub kind: Signal<In, Bits<PACKET_KIND_BITS>>,
    /// Its source node.
    pub src_node: Signal<In, Bits<16>>,
    /// Its head's `delay`.
    pub delay: Signal<In, Bits<DELAY_BITS>>,
    /// Its header flit.
    pub header: Signal<In, Bits<64>>,
    /// Its last payload flit.
    pub last_word: Signal<In, Bits<64>>,
    /// Its payload flits.
    pub payload_words: Signal<In, Bits<COUNT_BITS>>,
    /// Its tail flit's data bits.
    pub tail: Signal<In, Bits<64>>,
    /// A segment can be taken (none held).
    pub free: Signal<Out, bool>,
    /// The QP lookup of the target.
    pub lookup: QpLookupSource,
    /// The record FIFO has room for one more record.
    pub record_room: Signal<In, bool>,
    /// Push `record` into the record FIFO (and commit the packet's words).
    pub record_push: Signal<Out, bool>,
    /// The good packet's record.
    pub record: Signal<Out, Bits<RECORD_BITS>>,
    /// Give the segment's words back.
    pub drop: Signal<Out, bool>,
    /// Error events (key mismatch, disabled target).
    pub errors: EventRequestSource,
    /// Pulse: a good packet (committed).
    pub received: Signal<Out, bool>,
    /// Pulse: dropped, CRC-16 wrong.
    pub crc_error: Signal<Out, bool>,
    /// Pulse: dropped, malformed.
    pub malformed: Signal<Out, bool>,
    /// Pulse: dropped, QPMagic is not the QP's key.
    pub key_mismatch: Signal<Out, bool>,
    /// Pulse: dropped, the target function or QP is disabled or not owned.
    pub target_refused: Signal<Out, bool>,
    /// Pulse: an error event was not posted (the slot was busy).
    pub event_lost: Signal<Out, bool>,
    rules: PacketRules,
    held: DFF<bool>,
    asked: DFF<bool>,
    held_structure: DFF<bool>,
    held_crc: DFF<bool>,
    held_kind: DFF<Bits<PACKET_KIND_BITS>>,
    held_src: DFF<Bits<16>>,
    held_delay: DFF<Bits<DELAY_BITS>>,
    held_header: DFF<Bits<64>>,
    held_last: DFF<Bits<64>>,
    held_words: DFF<Bits<COUNT_BITS>>,
    held_tail: DFF<Bits<64>>,
    slot: ErrorEventSlot,
    deciding: Signal<Local, bool>,
    answer: Signal<Local, bool>,
    post: Signal<Local, bool>,
    post_status: Signal<Local, Bits<STATUS_BITS>>,
    dst_function: Signal<Local, Bits<FUNCTION_BITS>>,
    dst_qp: Signal<Local, Bits<QP_BITS>>,
    magic: Signal<Local, Bits<32>>,
    /// The lookup's interrupt flag and rings: the event writer's and upload units' concern,
    /// not the verdict's, so acknowledged unused.
    lookup_unused: Signal<Local, bool>,
    record_kind_at: Constant<Bits<SHIFT_BITS>>,
    record_src_at: Constant<Bits<SHIFT_BITS>>,
    record_delay_at: Constant<Bits<SHIFT_BITS>>,
    record_tail_at: Constant<Bits<SHIFT_BITS>>,
    key_mismatch_status: Constant<Bits<STATUS_BITS>>,
    disabled_status: Constant<Bits<STATUS_BITS>>,
}

impl Default for ReceiveVerdict {
    fn default() -> Self {
        let at = |lsb: usize| constant::<SHIFT_BITS>(lsb as u64);
        assert_eq!(BYTES.width, PACKET_BYTES_BITS);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            ended: Default::default(),
            structure_ok: Default::default(),
            crc_ok: Default::default(),
            kind: Default::default(),
            src_node: Default::default(),
            delay: Default::default(),
            header: Default::default(),
            last_word: Default::default(),
            payload_words: Default::default(),
            tail: Default::default(),
            free: Default::default(),
            lookup: Default::default(),
            record_room: Default::default(),
            record_push: Default::default(),
            record: Default::default(),
            drop: Default::default(),
            errors: Default::default(),
            received: Default::default(),
            crc_error: Default::default(),
            malformed: Default::default(),
            key_mismatch: Default::default(),
            target_refused: Default::default(),
            event_lost: Default::default(),
            rules: Default::default(),
            held: Default::default(),
            asked: Default::default(),
            held_structure: Default::default(),
            held_crc: Default::default(),
            held_kind: Default::default(),
            held_src: Default::default(),
            held_delay: Default::default(),
            held_header: Default::default(),
            held_last: Default::default(),
            held_words: Default::default(),
            held_tail: Default::default(),
            slot: Default::default(),
            deciding: Default::default(),
            answer: Default::default(),
            post: Default::default(),
            post_status: Default::default(),
            dst_function: Default::default(),
            dst_qp: Default::default(),
            magic: Default::default(),
            lookup_unused: Default::default(),
            record_kind_at: at(RECORD_KIND_AT),
            record_src_at: at(RECORD_SRC_NODE_AT),
            record_delay_at: at(RECORD_DELAY_AT),
            record_tail_at: at(RECORD_TAIL_AT),
            key_mismatch_status: constant(EventStatus::KeyMismatch.code() as u64),
            disabled_status: constant(EventStatus::TargetQpDisabled.code() as u64),
        }
    }
}

impl Logic for ReceiveVerdict {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            held,
            asked,
            held_structure,
            held_crc,
            held_kind,
            held_src,
            held_delay,
            held_header,
            held_last,
            held_words,
            held_tail
        );
        self.slot.clock.next = self.clock.val();
        self.slot.reset.next = self.reset.val();
        self.free.next = !self.held.q.val();
        self.rules.kind.next = self.held_kind.q.val();
        self.rules.header.next = self.held_header.q.val();
        self.rules.payload_words.next = self.held_words.q.val();
        self.rules.last_word.next = self.held_last.q.val();
        self.dst_function.next = self.held_tail.q.val().get_bits::<FUNCTION_BITS>(27);
        self.dst_qp.next = self.held_tail.q.val().get_bits::<QP_BITS>(23);
        self.magic.next = self.held_tail.q.val().get_bits::<32>(30);

        // The record a good packet leaves with (layout: the RECORD_* constants).
        self.record.next = bit_cast::<RECORD_BITS, 64>(self.held_header.q.val())
            | (bit_cast::<RECORD_BITS, PACKET_KIND_BITS>(self.held_kind.q.val())
                << self.record_kind_at.val())
            | (bit_cast::<RECORD_BITS, 16>(self.held_src.q.val()) << self.record_src_at.val())
            | (bit_cast::<RECORD_BITS, DELAY_BITS>(self.held_delay.q.val())
                << self.record_delay_at.val())
            | (bit_cast::<RECORD_BITS, TAIL_IDS_BITS>(
                self.held_tail.q.val().get_bits::<TAIL_IDS_BITS>(16),
            ) << self.record_tail_at.val());

        // The lookup, asked once the packet is known good up to its target.
        self.deciding.next = self.held.q.val() & !self.asked.q.val();
        self.lookup.valid.next = self.deciding.val()
            & self.held_structure.q.val()
            & self.held_crc.q.val()
            & self.rules.ok.val()
            & self.record_room.val();
        self.lookup.function.next = self.dst_function.val();
        self.lookup.qp.next = self.dst_qp.val();
        self.answer.next = self.asked.q.val() & self.lookup.answered.val();
        self.lookup_unused.next = self.lookup.interrupt.val()
            | self.lookup.send_base.val().any()
            | self.lookup.send_size.val().any()
            | self.lookup.send_producer.val().any()
            | self.lookup.send_consumer.val().any()
            | self.lookup.receive_base.val().any()
            | self.lookup.receive_size.val().any()
            | self.lookup.receive_producer.val().any()
            | self.lookup.receive_consumer.val().any()
            | self.lookup.nap_base.val().any()
            | self.lookup.nap_size.val().any()
            | self.lookup.nap_producer.val().any()
            | self.lookup.nap_consumer.val().any();

        self.record_push.next = false;
        self.drop.next = false;
        self.received.next = false;
        self.crc_error.next = false;
        self.malformed.next = false;
        self.key_mismatch.next = false;
        self.target_refused.next = false;
        self.post.next = false;
        self.post_status.next = self.disabled_status.val();
        if self.deciding.val() {
            if !self.held_structure.q.val() {
                self.malformed.next = true;
                self.drop.next = true;
                self.held.d.next = false;
            } else if !self.held_crc.q.val() {
                self.crc_error.next = true;
                self.drop.next = true;
                self.held.d.next = false;
            } else if !self.rules.ok.val() {
                self.malformed.next = true;
                self.drop.next = true;
                self.held.d.next = false;
            } else if self.lookup.valid.val() & self.lookup.ready.val() {
                self.asked.d.next = true;
            }
        }
        if self.answer.val() {
            self.held.d.next = false;
            self.asked.d.next = false;
            if !self.lookup.owned.val() {
                self.target_refused.next = true;
                self.drop.next = true;
            } else if !self.lookup.function_enabled.val() | !self.lookup.qp_enabled.val() {
                self.target_refused.next = true;
                self.drop.next = true;
                self.post.next = true;
            } else if self.lookup.key.val() != self.magic.val() {
                self.key_mismatch.next = true;
                self.drop.next = true;
                self.post.next = true;
                self.post_status.next = self.key_mismatch_status.val();
            } else {
                self.received.next = true;
                self.record_push.next = true;
            }
        }

        // The one-event slot: a new error event only into an empty slot.
        EventRequestSource::link(&mut self.errors, &mut self.slot.errors);
        self.slot.post.next = self.post.val();
        self.slot.status.next = self.post_status.val();
        self.slot.target_function.next = self.dst_function.val();
        self.slot.qp.next = self.dst_qp.val();
        self.slot.op.next = self.held_kind.q.val().get_bits::<OP_BITS>(0);
        self.slot.peer_node.next = self.held_src.q.val();
        self.slot.peer_function.next = self.held_tail.q.val().get_bits::<FUNCTION_BITS>(20);
        self.slot.peer_qp.next = self.held_tail.q.val().get_bits::<QP_BITS>(16);
        self.slot.length.next = self.held_header.q.val().get_bits::<PACKET_BYTES_BITS>(48);
        self.slot.info.next = 0.into();
        self.event_lost.next = self.slot.lost.val();

        // A new segment (only taken while none is held).
        if self.ended.val() {
            self.held.d.next = true;
            self.held_structure.d.next = self.structure_ok.val();
            self.held_crc.d.next = self.crc_ok.val();
            self.held_kind.d.next = self.kind.val();
            self.held_src.d.next = self.src_node.val();
            self.held_delay.d.next = self.delay.val();
            self.held_header.d.next = self.header.val();
            self.held_last.d.next = self.last_word.val();
            self.held_words.d.next = self.payload_words.val();
            self.held_tail.d.next = self.tail.val();
        }
        if self.reset.val() {
            self.held.d.next = false;
            self.asked.d.next = false;
        }
    }
}

#[test]
fn receive_verdict_is_synthesizable() {
    let mut uut = ReceiveVerdict::default();
    uut.connect_all();
    yosys_validate("receive_verdict", &generate_verilog(&uut)).unwrap();
}
