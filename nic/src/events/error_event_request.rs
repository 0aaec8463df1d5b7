//! `ErrorEventRequest`: the descriptor fetch's error events ([`ErrorEventSink`]) as event
//! requests for the issuing QP's send-completion ring: kind `Error`, the fetch's status,
//! operation, peer and length, the software tag as `info`.
//!
//! Combinational (no state, no reset); the handshake passes straight through. Covered by the
//! `event_writer` bench, which feeds the writer's error input through it.
use super::{EventRequestSource, EVENT_KIND_BITS};
use crate::descriptor::ErrorEventSink;
use hdl::formats::nic::EventKind;
use rust_hdl::prelude::*;

/// The fetch's error events as event requests; see the module documentation.
#[derive(LogicBlock)]
pub struct ErrorEventRequest {
    /// The fetch's error events.
    pub errors: ErrorEventSink,
    /// The same events, for the event writer.
    pub request: EventRequestSource,
    kind_error: Constant<Bits<EVENT_KIND_BITS>>,
}

impl Default for ErrorEventRequest {
    fn default() -> Self {
        Self {
            errors: Default::default(),
            request: Default::default(),
            kind_error: Constant::new((EventKind::Error.code() as usize).to_bits()),
        }
    }
}

impl Logic for ErrorEventRequest {
    #[hdl_gen]
    fn update(&mut self) {
        self.request.valid.next = self.errors.valid.val();
        self.errors.ready.next = self.request.ready.val();
        self.request.function.next = self.errors.function.val();
        self.request.qp.next = self.errors.qp.val();
        self.request.receive_ring.next = false;
        self.request.kind.next = self.kind_error.val();
        self.request.status.next = self.errors.status.val();
        self.request.op.next = self.errors.op.val();
        self.request.peer_node.next = self.errors.peer_node.val();
        self.request.peer_function.next = self.errors.peer_function.val();
        self.request.peer_qp.next = self.errors.peer_qp.val();
        self.request.length.next = self.errors.length.val();
        self.request.info.next = self.errors.tag.val();
    }
}

#[test]
fn error_event_request_is_synthesizable() {
    let mut uut = ErrorEventRequest::default();
    uut.connect_all();
    yosys_validate("error_event_request", &generate_verilog(&uut)).unwrap();
}
