//! `NapEvent`: the NAP upload's receive events, two registers deep. On `capture` (a message's
//! last packet is accepted) the **pending** register loads the message's event: kind Receive,
//! status Ok, op NAP, on the target QP's receive ring, peer = the source, `length` = the
//! message's bytes, `info` = its buffer's ring index. It is released by `beat_taken` (the host
//! took that packet's last write beat) and moves to the **offer** register as soon as that is
//! free (or being taken); the offer register is held on `events` until the event writer takes
//! it (back pressure: the writer holds an event back while its ring is full; never dropped).
//!
//! Why two registers (PUT's `PutEvent` has one): the offer register waits for the event
//! writer while the next message is already accepted and written, so 8-byte messages flow at
//! one per 2 cycles with the writer taking an event per cycle; with one register the next
//! message's last packet would wait for the previous event's write.
//!
//! `busy` (the pending register is full, a register output) holds the next completing packet
//! back; `capture` is only given while not `busy`. Reset empties both (an event not yet taken
//! is lost with the packets in progress: the whole receive path resets together). Latency:
//! released on edge `c`, offered from `c + 1` if the offer register is free.
use super::NAP_LENGTH_BITS;
use crate::descriptor::{OP_BITS, STATUS_BITS};
use crate::events::{EventRequestSource, EVENT_KIND_BITS};
use crate::regs::RING_POINTER_BITS;
use hdl::bits::constant;
use hdl::formats::header::PacketKind;
use hdl::formats::nic::{EventKind, EventStatus, FUNCTION_BITS, QP_BITS};
use rust_hdl::prelude::*;

/// The receive-event registers; see the module documentation.
#[derive(LogicBlock)]
pub struct NapEvent {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Load the event described below on this edge (only while not `busy`).
    pub capture: Signal<In, bool>,
    /// The pending event's packet's last beat is taken by the host on this edge.
    pub beat_taken: Signal<In, bool>,
    /// The message's target function (whose ring receives the event).
    pub target_function: Signal<In, Bits<FUNCTION_BITS>>,
    /// The target QP.
    pub qp: Signal<In, Bits<QP_BITS>>,
    /// The source node.
    pub peer_node: Signal<In, Bits<16>>,
    /// The source function.
    pub peer_function: Signal<In, Bits<FUNCTION_BITS>>,
    /// The source QP.
    pub peer_qp: Signal<In, Bits<QP_BITS>>,
    /// The message's bytes.
    pub length: Signal<In, Bits<NAP_LENGTH_BITS>>,
    /// The buffer's ring index.
    pub ring_index: Signal<In, Bits<RING_POINTER_BITS>>,
    /// The pending register is full.
    pub busy: Signal<Out, bool>,
    /// The events, to the event writer.
    pub events: EventRequestSource,
    pending: DFF<bool>,
    released: DFF<bool>,
    pending_function: DFF<Bits<FUNCTION_BITS>>,
    pending_qp: DFF<Bits<QP_BITS>>,
    pending_node: DFF<Bits<16>>,
    pending_peer_function: DFF<Bits<FUNCTION_BITS>>,
    pending_peer_qp: DFF<Bits<QP_BITS>>,
    pending_length: DFF<Bits<NAP_LENGTH_BITS>>,
    pending_index: DFF<Bits<RING_POINTER_BITS>>,
    offered: DFF<bool>,
    offer_function: DFF<Bits<FUNCTION_BITS>>,
    offer_qp: DFF<Bits<QP_BITS>>,
    offer_node: DFF<Bits<16>>,
    offer_peer_function: DFF<Bits<FUNCTION_BITS>>,
    offer_peer_qp: DFF<Bits<QP_BITS>>,
    offer_length: DFF<Bits<NAP_LENGTH_BITS>>,
    offer_index: DFF<Bits<RING_POINTER_BITS>>,
    /// The pending event may move to the offer register on this edge.
    moving: Signal<Local, bool>,
    receive_kind: Constant<Bits<EVENT_KIND_BITS>>,
    status_ok: Constant<Bits<STATUS_BITS>>,
    op_nap: Constant<Bits<OP_BITS>>,
}

impl Default for NapEvent {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            capture: Default::default(),
            beat_taken: Default::default(),
            target_function: Default::default(),
            qp: Default::default(),
            peer_node: Default::default(),
            peer_function: Default::default(),
            peer_qp: Default::default(),
            length: Default::default(),
            ring_index: Default::default(),
            busy: Default::default(),
            events: Default::default(),
            pending: Default::default(),
            released: Default::default(),
            pending_function: Default::default(),
            pending_qp: Default::default(),
            pending_node: Default::default(),
            pending_peer_function: Default::default(),
            pending_peer_qp: Default::default(),
            pending_length: Default::default(),
            pending_index: Default::default(),
            offered: Default::default(),
            offer_function: Default::default(),
            offer_qp: Default::default(),
            offer_node: Default::default(),
            offer_peer_function: Default::default(),
            offer_peer_qp: Default::default(),
            offer_length: Default::default(),
            offer_index: Default::default(),
            moving: Default::default(),
            receive_kind: constant(EventKind::Receive.code() as u64),
            status_ok: constant(EventStatus::Ok.code() as u64),
            op_nap: constant(PacketKind::Nap.code() as u64),
        }
    }
}

impl Logic for NapEvent {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            pending,
            released,
            pending_function,
            pending_qp,
            pending_node,
            pending_peer_function,
            pending_peer_qp,
            pending_length,
            pending_index,
            offered,
            offer_function,
            offer_qp,
            offer_node,
            offer_peer_function,
            offer_peer_qp,
            offer_length,
            offer_index
        );
        self.busy.next = self.pending.q.val();
        // The offer register empties when the writer takes its event.
        if self.offered.q.val() & self.events.ready.val() {
            self.offered.d.next = false;
        }
        // The pending event, once its beat is taken, moves on into a free offer register.
        self.moving.next = self.pending.q.val()
            & (self.released.q.val() | self.beat_taken.val())
            & (!self.offered.q.val() | self.events.ready.val());
        if self.pending.q.val() & self.beat_taken.val() {
            self.released.d.next = true;
        }
        if self.moving.val() {
            self.pending.d.next = false;
            self.released.d.next = false;
            self.offered.d.next = true;
            self.offer_function.d.next = self.pending_function.q.val();
            self.offer_qp.d.next = self.pending_qp.q.val();
            self.offer_node.d.next = self.pending_node.q.val();
            self.offer_peer_function.d.next = self.pending_peer_function.q.val();
            self.offer_peer_qp.d.next = self.pending_peer_qp.q.val();
            self.offer_length.d.next = self.pending_length.q.val();
            self.offer_index.d.next = self.pending_index.q.val();
        }
        if self.capture.val() {
            self.pending.d.next = true;
            self.released.d.next = false;
            self.pending_function.d.next = self.target_function.val();
            self.pending_qp.d.next = self.qp.val();
            self.pending_node.d.next = self.peer_node.val();
            self.pending_peer_function.d.next = self.peer_function.val();
            self.pending_peer_qp.d.next = self.peer_qp.val();
            self.pending_length.d.next = self.length.val();
            self.pending_index.d.next = self.ring_index.val();
        }
        self.events.valid.next = self.offered.q.val();
        self.events.function.next = self.offer_function.q.val();
        self.events.qp.next = self.offer_qp.q.val();
        self.events.receive_ring.next = true;
        self.events.kind.next = self.receive_kind.val();
        self.events.status.next = self.status_ok.val();
        self.events.op.next = self.op_nap.val();
        self.events.peer_node.next = self.offer_node.q.val();
        self.events.peer_function.next = self.offer_peer_function.q.val();
        self.events.peer_qp.next = self.offer_peer_qp.q.val();
        self.events.length.next = bit_cast::<32, NAP_LENGTH_BITS>(self.offer_length.q.val());
        self.events.info.next = bit_cast::<32, RING_POINTER_BITS>(self.offer_index.q.val());
        if self.reset.val() {
            self.pending.d.next = false;
            self.released.d.next = false;
            self.offered.d.next = false;
        }
    }
}

#[test]
fn nap_event_is_synthesizable() {
    let mut uut = NapEvent::default();
    uut.connect_all();
    yosys_validate("nap_event", &generate_verilog(&uut)).unwrap();
}
