//! `PutEvent`: the PUT upload's event register. On `capture` (the upload takes an event
//! packet's last word) it loads the packet's completion event: status Ok, peer = the source,
//! `length` = the packet's bytes, `info` = the low 32 bits of `address + bytes`; a plain PUT's
//! to the receive ring (kind Receive, op PUT), a `get_response` PUT's to the send ring (kind
//! Send, op GET). It is offered on `events` only from the cycle after `beat_taken` (the host took
//! that packet's last write beat) and held until the event writer takes it. `busy` is high
//! from capture until taken: the upload holds the next event packet's last word meanwhile, so
//! an event is never dropped by a later one. Reset empties the register (an armed event is
//! lost with the packet in progress: the whole receive path resets together).
use super::PACKET_BYTES_BITS;
use crate::descriptor::{OP_BITS, STATUS_BITS};
use crate::events::{EventRequestSource, EVENT_KIND_BITS};
use hdl::formats::header::PacketKind;
use hdl::formats::nic::{EventKind, EventStatus, FUNCTION_BITS, QP_BITS};
use rust_hdl::prelude::*;

/// The event register; see the module documentation.
#[derive(LogicBlock)]
pub struct PutEvent {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Load the event of the packet described below on this edge (only while not `busy`).
    pub capture: Signal<In, bool>,
    /// The captured event's packet's last beat is taken by the host on this edge.
    pub beat_taken: Signal<In, bool>,
    /// The packet's target function (whose ring receives the event).
    pub target_function: Signal<In, Bits<FUNCTION_BITS>>,
    /// The packet's target QP.
    pub qp: Signal<In, Bits<QP_BITS>>,
    /// The packet answers a GET.
    pub get_response: Signal<In, bool>,
    /// The source node.
    pub peer_node: Signal<In, Bits<16>>,
    /// The source function.
    pub peer_function: Signal<In, Bits<FUNCTION_BITS>>,
    /// The source QP.
    pub peer_qp: Signal<In, Bits<QP_BITS>>,
    /// The packet's payload bytes.
    pub bytes: Signal<In, Bits<PACKET_BYTES_BITS>>,
    /// The low 32 bits of the packet's address.
    pub address_low: Signal<In, Bits<32>>,
    /// An event is captured and not yet taken.
    pub busy: Signal<Out, bool>,
    /// The event, to the event writer.
    pub events: EventRequestSource,
    armed: DFF<bool>,
    offered: DFF<bool>,
    held_function: DFF<Bits<FUNCTION_BITS>>,
    held_qp: DFF<Bits<QP_BITS>>,
    held_receive_ring: DFF<bool>,
    held_kind: DFF<Bits<EVENT_KIND_BITS>>,
    held_op: DFF<Bits<OP_BITS>>,
    held_peer_node: DFF<Bits<16>>,
    held_peer_function: DFF<Bits<FUNCTION_BITS>>,
    held_peer_qp: DFF<Bits<QP_BITS>>,
    held_length: DFF<Bits<32>>,
    held_info: DFF<Bits<32>>,
    receive_kind: Constant<Bits<EVENT_KIND_BITS>>,
    send_kind: Constant<Bits<EVENT_KIND_BITS>>,
    status_ok: Constant<Bits<STATUS_BITS>>,
    op_put: Constant<Bits<OP_BITS>>,
    op_get: Constant<Bits<OP_BITS>>,
}

impl Default for PutEvent {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            capture: Default::default(),
            beat_taken: Default::default(),
            target_function: Default::default(),
            qp: Default::default(),
            get_response: Default::default(),
            peer_node: Default::default(),
            peer_function: Default::default(),
            peer_qp: Default::default(),
            bytes: Default::default(),
            address_low: Default::default(),
            busy: Default::default(),
            events: Default::default(),
            armed: Default::default(),
            offered: Default::default(),
            held_function: Default::default(),
            held_qp: Default::default(),
            held_receive_ring: Default::default(),
            held_kind: Default::default(),
            held_op: Default::default(),
            held_peer_node: Default::default(),
            held_peer_function: Default::default(),
            held_peer_qp: Default::default(),
            held_length: Default::default(),
            held_info: Default::default(),
            receive_kind: Constant::new((EventKind::Receive.code() as usize).to_bits()),
            send_kind: Constant::new((EventKind::Send.code() as usize).to_bits()),
            status_ok: Constant::new((EventStatus::Ok.code() as usize).to_bits()),
            op_put: Constant::new((PacketKind::Put.code() as usize).to_bits()),
            op_get: Constant::new((PacketKind::Get.code() as usize).to_bits()),
        }
    }
}

impl Logic for PutEvent {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            armed,
            offered,
            held_function,
            held_qp,
            held_receive_ring,
            held_kind,
            held_op,
            held_peer_node,
            held_peer_function,
            held_peer_qp,
            held_length,
            held_info
        );
        self.busy.next = self.armed.q.val() | self.offered.q.val();
        if self.beat_taken.val() {
            self.offered.d.next = true;
        }
        if self.capture.val() {
            self.armed.d.next = true;
            self.held_function.d.next = self.target_function.val();
            self.held_qp.d.next = self.qp.val();
            self.held_receive_ring.d.next = !self.get_response.val();
            self.held_kind.d.next = self.receive_kind.val();
            self.held_op.d.next = self.op_put.val();
            if self.get_response.val() {
                self.held_kind.d.next = self.send_kind.val();
                self.held_op.d.next = self.op_get.val();
            }
            self.held_peer_node.d.next = self.peer_node.val();
            self.held_peer_function.d.next = self.peer_function.val();
            self.held_peer_qp.d.next = self.peer_qp.val();
            self.held_length.d.next = bit_cast::<32, PACKET_BYTES_BITS>(self.bytes.val());
            self.held_info.d.next =
                self.address_low.val() + bit_cast::<32, PACKET_BYTES_BITS>(self.bytes.val());
        }
        if self.offered.q.val() & self.events.ready.val() {
            self.offered.d.next = false;
            self.armed.d.next = false;
        }
        self.events.valid.next = self.offered.q.val();
        self.events.function.next = self.held_function.q.val();
        self.events.qp.next = self.held_qp.q.val();
        self.events.receive_ring.next = self.held_receive_ring.q.val();
        self.events.kind.next = self.held_kind.q.val();
        self.events.status.next = self.status_ok.val();
        self.events.op.next = self.held_op.q.val();
        self.events.peer_node.next = self.held_peer_node.q.val();
        self.events.peer_function.next = self.held_peer_function.q.val();
        self.events.peer_qp.next = self.held_peer_qp.q.val();
        self.events.length.next = self.held_length.q.val();
        self.events.info.next = self.held_info.q.val();
        if self.reset.val() {
            self.armed.d.next = false;
            self.offered.d.next = false;
        }
    }
}

#[test]
fn put_event_is_synthesizable() {
    let mut uut = PutEvent::default();
    uut.connect_all();
    yosys_validate("put_event", &generate_verilog(&uut)).unwrap();
}
