//! `SendEvent`: the packetizer's one-event slot. When a message's last tail leaves, the
//! packetizer loads the message's send-completion event here (kind `Send`, status `Ok`, when
//! the descriptor asked for one) or its error event (kind `Error`: a failed data read, a GET
//! whose segment lists do not fit one packet), and the slot offers it to the event writer's
//! `sends` input until taken. The packetizer holds a message's last tail while the slot is
//! still full, so an event is never lost and the next message's packets wait at most for one
//! event (the writer passes over a request whose ring is full: that QP's software must
//! consume; see `docs/nic-design.md`).
//!
//! `op` is the packet kind of the descriptor (NAP 0 for both NAP kinds, PUT 1, GET 2), `info`
//! the software tag, the peer fields the destination's, `length` the descriptor's.
//!
//! Kind and status from `failed` and `refused`: `Send` / `Ok`, or `Error` with `ReadFailed` or
//! `GetTooLong`.
//!
//! Ports: `load` (with the fields: takes them on this edge; only when `free`), `free` (the
//! slot is empty, or its event is taken on this edge), `event` (source). Reset empties it.
use crate::descriptor::{KIND_BITS, OP_BITS, STATUS_BITS};
use crate::events::{EventRequestSource, EVENT_KIND_BITS};
use hdl::formats::nic::{DescriptorKind, EventKind, EventStatus, FUNCTION_BITS, QP_BITS};
use hdl::formats::PacketKind;
use rust_hdl::prelude::*;

/// The event slot; see the module documentation.
#[derive(LogicBlock)]
pub struct SendEvent {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Take the event described below on this edge.
    pub load: Signal<In, bool>,
    /// A data read of the message failed (an error event `ReadFailed`).
    pub failed: Signal<In, bool>,
    /// The message is a refused GET (an error event `GetTooLong`).
    pub refused: Signal<In, bool>,
    /// The message's descriptor kind code.
    pub kind: Signal<In, Bits<KIND_BITS>>,
    /// The issuing function.
    pub issuer: Signal<In, Bits<FUNCTION_BITS>>,
    /// The issuing QP.
    pub qp: Signal<In, Bits<QP_BITS>>,
    /// Destination node.
    pub dst_node: Signal<In, Bits<16>>,
    /// Destination function.
    pub dst_function: Signal<In, Bits<FUNCTION_BITS>>,
    /// Destination QP.
    pub dst_qp: Signal<In, Bits<QP_BITS>>,
    /// The descriptor's length.
    pub length: Signal<In, Bits<32>>,
    /// Software's tag.
    pub tag: Signal<In, Bits<32>>,
    /// The slot can take an event on this edge.
    pub free: Signal<Out, bool>,
    /// The event offered.
    pub event: EventRequestSource,
    held: DFF<bool>,
    held_function: DFF<Bits<FUNCTION_BITS>>,
    held_qp: DFF<Bits<QP_BITS>>,
    held_kind: DFF<Bits<EVENT_KIND_BITS>>,
    held_status: DFF<Bits<STATUS_BITS>>,
    held_op: DFF<Bits<OP_BITS>>,
    held_peer_node: DFF<Bits<16>>,
    held_peer_function: DFF<Bits<FUNCTION_BITS>>,
    held_peer_qp: DFF<Bits<QP_BITS>>,
    held_length: DFF<Bits<32>>,
    held_info: DFF<Bits<32>>,
    send_kind: Constant<Bits<EVENT_KIND_BITS>>,
    error_kind: Constant<Bits<EVENT_KIND_BITS>>,
    put_code: Constant<Bits<KIND_BITS>>,
    get_code: Constant<Bits<KIND_BITS>>,
    nap_op: Constant<Bits<OP_BITS>>,
    put_op: Constant<Bits<OP_BITS>>,
    get_op: Constant<Bits<OP_BITS>>,
    ok_status: Constant<Bits<STATUS_BITS>>,
    read_failed: Constant<Bits<STATUS_BITS>>,
    get_too_long: Constant<Bits<STATUS_BITS>>,
}

impl Default for SendEvent {
    fn default() -> Self {
        let kind = |k: EventKind| Constant::new((k.code() as u64).to_bits());
        let code = |k: DescriptorKind| Constant::new((k.code() as u64).to_bits());
        let op = |k: PacketKind| Constant::new((k.code() as u64).to_bits());
        let status = |s: EventStatus| Constant::new((s.code() as u64).to_bits());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            load: Default::default(),
            failed: Default::default(),
            refused: Default::default(),
            kind: Default::default(),
            issuer: Default::default(),
            qp: Default::default(),
            dst_node: Default::default(),
            dst_function: Default::default(),
            dst_qp: Default::default(),
            length: Default::default(),
            tag: Default::default(),
            free: Default::default(),
            event: Default::default(),
            held: Default::default(),
            held_function: Default::default(),
            held_qp: Default::default(),
            held_kind: Default::default(),
            held_status: Default::default(),
            held_op: Default::default(),
            held_peer_node: Default::default(),
            held_peer_function: Default::default(),
            held_peer_qp: Default::default(),
            held_length: Default::default(),
            held_info: Default::default(),
            send_kind: kind(EventKind::Send),
            error_kind: kind(EventKind::Error),
            put_code: code(DescriptorKind::Put),
            get_code: code(DescriptorKind::Get),
            nap_op: op(PacketKind::Nap),
            put_op: op(PacketKind::Put),
            get_op: op(PacketKind::Get),
            ok_status: status(EventStatus::Ok),
            read_failed: status(EventStatus::ReadFailed),
            get_too_long: status(EventStatus::GetTooLong),
        }
    }
}

impl Logic for SendEvent {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            held,
            held_function,
            held_qp,
            held_kind,
            held_status,
            held_op,
            held_peer_node,
            held_peer_function,
            held_peer_qp,
            held_length,
            held_info
        );
        self.event.valid.next = self.held.q.val();
        self.event.function.next = self.held_function.q.val();
        self.event.qp.next = self.held_qp.q.val();
        self.event.receive_ring.next = false;
        self.event.kind.next = self.held_kind.q.val();
        self.event.status.next = self.held_status.q.val();
        self.event.op.next = self.held_op.q.val();
        self.event.peer_node.next = self.held_peer_node.q.val();
        self.event.peer_function.next = self.held_peer_function.q.val();
        self.event.peer_qp.next = self.held_peer_qp.q.val();
        self.event.length.next = self.held_length.q.val();
        self.event.info.next = self.held_info.q.val();
        self.free.next = !self.held.q.val() | self.event.ready.val();
        if self.held.q.val() & self.event.ready.val() {
            self.held.d.next = false;
        }
        if self.load.val() & self.free.val() {
            self.held.d.next = true;
            self.held_function.d.next = self.issuer.val();
            self.held_qp.d.next = self.qp.val();
            self.held_kind.d.next = self.send_kind.val();
            self.held_status.d.next = self.ok_status.val();
            if self.failed.val() | self.refused.val() {
                self.held_kind.d.next = self.error_kind.val();
            }
            if self.failed.val() {
                self.held_status.d.next = self.read_failed.val();
            }
            if self.refused.val() {
                self.held_status.d.next = self.get_too_long.val();
            }
            self.held_op.d.next = self.nap_op.val();
            if self.kind.val() == self.put_code.val() {
                self.held_op.d.next = self.put_op.val();
            }
            if self.kind.val() == self.get_code.val() {
                self.held_op.d.next = self.get_op.val();
            }
            self.held_peer_node.d.next = self.dst_node.val();
            self.held_peer_function.d.next = self.dst_function.val();
            self.held_peer_qp.d.next = self.dst_qp.val();
            self.held_length.d.next = self.length.val();
            self.held_info.d.next = self.tag.val();
        }
        if self.reset.val() {
            self.held.d.next = false;
            self.free.next = false;
        }
    }
}

#[test]
fn send_event_is_synthesizable() {
    let mut uut = SendEvent::default();
    uut.connect_all();
    yosys_validate("send_event", &generate_verilog(&uut)).unwrap();
}
