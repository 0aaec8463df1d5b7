//! `NapErrorPost`: the NAP upload's error events into one [`ErrorEventSlot`]. The head's
//! packet posts first (`NoBuffer`, or `AssemblyFull` with `assembly_full`; peer = the packet's
//! source, `length` = its bytes, `info` 0) and never waits: posted while the slot is full it is
//! not posted and `lost` pulses. Otherwise an `expired` open-message entry (an
//! [`ExpiredEntrySink`], joined whole to the table's source) is `retire`d (freed by the table
//! on this edge): at once if it discards its message (it names no buffer, so no
//! event), else only when the slot is empty, with a `NapIncomplete` event (target and peer
//! from its key, `length` = its bytes received, `info` = its buffer's ring index): an event
//! naming a buffer is never lost. Combinational around the slot; reset empties the slot.
use super::error_event_slot::ErrorEventSlot;
use super::nap_table::{ExpiredEntrySink, NAP_KEY_BITS};
use super::PACKET_BYTES_BITS;
use crate::descriptor::{OP_BITS, STATUS_BITS};
use crate::events::EventRequestSource;
use crate::regs::RING_POINTER_BITS;
use hdl::bits::constant;
use hdl::formats::header::PacketKind;
use hdl::formats::nic::{EventStatus, FUNCTION_BITS, QP_BITS};
use rust_hdl::prelude::*;

/// The error stage; see the module documentation.
#[derive(LogicBlock)]
pub struct NapErrorPost {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The head's packet posts an error event on this edge.
    pub packet_post: Signal<In, bool>,
    /// ... `AssemblyFull` (else `NoBuffer`).
    pub assembly_full: Signal<In, bool>,
    /// The packet's target function.
    pub target_function: Signal<In, Bits<FUNCTION_BITS>>,
    /// The packet's target QP.
    pub qp: Signal<In, Bits<QP_BITS>>,
    /// The packet's source node.
    pub peer_node: Signal<In, Bits<16>>,
    /// The packet's source function.
    pub peer_function: Signal<In, Bits<FUNCTION_BITS>>,
    /// The packet's source QP.
    pub peer_qp: Signal<In, Bits<QP_BITS>>,
    /// The packet's bytes.
    pub bytes: Signal<In, Bits<PACKET_BYTES_BITS>>,
    /// An expired open-message entry, from the table; `retire` frees it.
    pub expired: ExpiredEntrySink,
    /// Pulse: the packet's event found the slot full.
    pub lost: Signal<Out, bool>,
    /// The error events, to the event writer.
    pub errors: EventRequestSource,
    slot: ErrorEventSlot,
    status_no_buffer: Constant<Bits<STATUS_BITS>>,
    status_assembly_full: Constant<Bits<STATUS_BITS>>,
    status_incomplete: Constant<Bits<STATUS_BITS>>,
    op_nap: Constant<Bits<OP_BITS>>,
}

impl Default for NapErrorPost {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            packet_post: Default::default(),
            assembly_full: Default::default(),
            target_function: Default::default(),
            qp: Default::default(),
            peer_node: Default::default(),
            peer_function: Default::default(),
            peer_qp: Default::default(),
            bytes: Default::default(),
            expired: Default::default(),
            lost: Default::default(),
            errors: Default::default(),
            slot: Default::default(),
            status_no_buffer: constant(EventStatus::NoBuffer.code() as u64),
            status_assembly_full: constant(EventStatus::AssemblyFull.code() as u64),
            status_incomplete: constant(EventStatus::NapIncomplete.code() as u64),
            op_nap: constant(PacketKind::Nap.code() as u64),
        }
    }
}

impl Logic for NapErrorPost {
    #[hdl_gen]
    fn update(&mut self) {
        self.slot.clock.next = self.clock.val();
        self.slot.reset.next = self.reset.val();
        EventRequestSource::link(&mut self.errors, &mut self.slot.errors);
        self.lost.next = self.slot.lost.val();
        self.expired.retire.next = self.expired.valid.val()
            & !self.packet_post.val()
            & (self.expired.discarding.val() | !self.errors.valid.val());
        self.slot.post.next =
            self.packet_post.val() | (self.expired.retire.val() & !self.expired.discarding.val());
        self.slot.op.next = self.op_nap.val();
        self.slot.status.next = self.status_no_buffer.val();
        if self.assembly_full.val() {
            self.slot.status.next = self.status_assembly_full.val();
        }
        self.slot.target_function.next = self.target_function.val();
        self.slot.qp.next = self.qp.val();
        self.slot.peer_node.next = self.peer_node.val();
        self.slot.peer_function.next = self.peer_function.val();
        self.slot.peer_qp.next = self.peer_qp.val();
        self.slot.length.next = self.bytes.val();
        self.slot.info.next = 0.into();
        if !self.packet_post.val() {
            // The key's fields at literal offsets (`nap_key`'s layout; see the assertion).
            self.slot.status.next = self.status_incomplete.val();
            self.slot.qp.next = self.expired.key.val().get_bits::<QP_BITS>(0);
            self.slot.target_function.next = self.expired.key.val().get_bits::<FUNCTION_BITS>(4);
            self.slot.peer_qp.next = self.expired.key.val().get_bits::<QP_BITS>(7);
            self.slot.peer_function.next = self.expired.key.val().get_bits::<FUNCTION_BITS>(11);
            self.slot.peer_node.next = self.expired.key.val().get_bits::<16>(14);
            self.slot.length.next = self.expired.received.val().get_bits::<PACKET_BYTES_BITS>(0);
            self.slot.info.next = bit_cast::<32, RING_POINTER_BITS>(self.expired.ring_index.val());
        }
    }
}

// The key's layout as the literal offsets above read it: target QP 3..0, target function
// 6..4, source QP 10..7, source function 13..11, source node 29..14.
const _: () = assert!(QP_BITS == 4 && FUNCTION_BITS == 3 && NAP_KEY_BITS == 30);

#[test]
fn nap_error_post_is_synthesizable() {
    let mut uut = NapErrorPost::default();
    uut.connect_all();
    yosys_validate("nap_error_post", &generate_verilog(&uut)).unwrap();
}
