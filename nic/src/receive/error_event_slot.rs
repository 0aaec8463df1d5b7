//! `ErrorEventSlot`: the receive side's one-event slot for the error events of dropped
//! packets (the receive buffer's `KeyMismatch`, `TargetQpDisabled` with `info` 0; the NAP
//! upload's `NoBuffer`, `AssemblyFull`, `NapIncomplete`), to the target QP's receive ring (kind
//! Error). A `post` into an empty slot loads the event's fields on that edge; a `post` while
//! the slot still holds one is not loaded and `lost` pulses (combinational), so the receive
//! path never waits for the event writer. `errors` offers the held event until taken (hold
//! rule: the fields are registers). Reset empties the slot. Latency: an event loaded on edge
//! `c` is offered from cycle `c + 1`.
use super::PACKET_BYTES_BITS;
use crate::descriptor::{OP_BITS, STATUS_BITS};
use crate::events::{EventRequestSource, EVENT_KIND_BITS};
use hdl::bits::constant;
use hdl::formats::nic::{EventKind, FUNCTION_BITS, QP_BITS};
use rust_hdl::prelude::*;

/// The one-event slot; see the module documentation.
#[derive(LogicBlock)]
pub struct ErrorEventSlot {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Post the event described below on this edge.
    pub post: Signal<In, bool>,
    /// Its status code.
    pub status: Signal<In, Bits<STATUS_BITS>>,
    /// The target function (whose ring receives it).
    pub target_function: Signal<In, Bits<FUNCTION_BITS>>,
    /// The target QP.
    pub qp: Signal<In, Bits<QP_BITS>>,
    /// The event's op (the packet's kind).
    pub op: Signal<In, Bits<OP_BITS>>,
    /// The source node.
    pub peer_node: Signal<In, Bits<16>>,
    /// The source function.
    pub peer_function: Signal<In, Bits<FUNCTION_BITS>>,
    /// The source QP.
    pub peer_qp: Signal<In, Bits<QP_BITS>>,
    /// The packet's payload bytes.
    pub length: Signal<In, Bits<PACKET_BYTES_BITS>>,
    /// The event's `info` word (a NAP buffer's ring index, else 0).
    pub info: Signal<In, Bits<32>>,
    /// The held event, to the event writer.
    pub errors: EventRequestSource,
    /// Pulse: a post found the slot full; its event is not posted.
    pub lost: Signal<Out, bool>,
    full: DFF<bool>,
    held_function: DFF<Bits<FUNCTION_BITS>>,
    held_qp: DFF<Bits<QP_BITS>>,
    held_status: DFF<Bits<STATUS_BITS>>,
    held_op: DFF<Bits<OP_BITS>>,
    held_node: DFF<Bits<16>>,
    held_peer_function: DFF<Bits<FUNCTION_BITS>>,
    held_peer_qp: DFF<Bits<QP_BITS>>,
    held_length: DFF<Bits<PACKET_BYTES_BITS>>,
    held_info: DFF<Bits<32>>,
    error_kind: Constant<Bits<EVENT_KIND_BITS>>,
}

impl Default for ErrorEventSlot {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            post: Default::default(),
            status: Default::default(),
            target_function: Default::default(),
            qp: Default::default(),
            op: Default::default(),
            peer_node: Default::default(),
            peer_function: Default::default(),
            peer_qp: Default::default(),
            length: Default::default(),
            info: Default::default(),
            errors: Default::default(),
            lost: Default::default(),
            full: Default::default(),
            held_function: Default::default(),
            held_qp: Default::default(),
            held_status: Default::default(),
            held_op: Default::default(),
            held_node: Default::default(),
            held_peer_function: Default::default(),
            held_peer_qp: Default::default(),
            held_length: Default::default(),
            held_info: Default::default(),
            error_kind: constant(EventKind::Error.code() as u64),
        }
    }
}

impl Logic for ErrorEventSlot {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            full,
            held_function,
            held_qp,
            held_status,
            held_op,
            held_node,
            held_peer_function,
            held_peer_qp,
            held_length,
            held_info
        );
        self.errors.valid.next = self.full.q.val();
        self.errors.function.next = self.held_function.q.val();
        self.errors.qp.next = self.held_qp.q.val();
        self.errors.receive_ring.next = true;
        self.errors.kind.next = self.error_kind.val();
        self.errors.status.next = self.held_status.q.val();
        self.errors.op.next = self.held_op.q.val();
        self.errors.peer_node.next = self.held_node.q.val();
        self.errors.peer_function.next = self.held_peer_function.q.val();
        self.errors.peer_qp.next = self.held_peer_qp.q.val();
        self.errors.length.next = bit_cast::<32, PACKET_BYTES_BITS>(self.held_length.q.val());
        self.errors.info.next = self.held_info.q.val();
        if self.errors.ready.val() & self.full.q.val() {
            self.full.d.next = false;
        }
        self.lost.next = self.post.val() & self.full.q.val();
        if self.post.val() & !self.full.q.val() {
            self.full.d.next = true;
            self.held_function.d.next = self.target_function.val();
            self.held_qp.d.next = self.qp.val();
            self.held_status.d.next = self.status.val();
            self.held_op.d.next = self.op.val();
            self.held_node.d.next = self.peer_node.val();
            self.held_peer_function.d.next = self.peer_function.val();
            self.held_peer_qp.d.next = self.peer_qp.val();
            self.held_length.d.next = self.length.val();
            self.held_info.d.next = self.info.val();
        }
        if self.reset.val() {
            self.full.d.next = false;
        }
    }
}

#[test]
fn error_event_slot_is_synthesizable() {
    let mut uut = ErrorEventSlot::default();
    uut.connect_all();
    yosys_validate("error_event_slot", &generate_verilog(&uut)).unwrap();
}
