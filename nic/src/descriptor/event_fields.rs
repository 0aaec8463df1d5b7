//! `ErrorEventFields`: the error event of the fetch's extract stage
//! ([`DescriptorExtract`](super::DescriptorExtract)) built from what that stage holds: the
//! issuing function and QP, the status, and, once words 0 and 1 were read (`described`), the
//! operation, software tag, peer and length they name. Before they were read (a refused
//! doorbell, a failed read) the operation is `OP_UNKNOWN` and the rest zeros. The operation of
//! a described descriptor is PUT or GET by its kind, 0 (NAP) otherwise, and `OP_UNKNOWN` when
//! word 0's bit 2 (an unknown kind) is set.
//!
//! Combinational: `outgoing.valid` is `offer`; `taken` tells the extract stage the event was taken. No
//! state, no reset. A stage of the extract: no bench of its own, covered by the
//! `descriptor_fetch` bench.
use super::{ErrorEventSource, KIND_BITS, OP_BITS, STATUS_BITS};
use hdl::formats::nic::{FUNCTION_BITS, OP_UNKNOWN, QP_BITS};
use rust_hdl::prelude::*;

/// The extract stage's error event; see the module documentation.
#[derive(LogicBlock)]
pub struct ErrorEventFields {
    /// The extract stage offers the event.
    pub offer: Signal<In, bool>,
    /// The issuing function and QP (`function` is a Verilog keyword, hence the prefix).
    pub issuer_function: Signal<In, Bits<FUNCTION_BITS>>,
    /// See `issuer_function`.
    pub issuer_qp: Signal<In, Bits<QP_BITS>>,
    /// The event's status.
    pub status: Signal<In, Bits<STATUS_BITS>>,
    /// Words 0 and 1 were read.
    pub described: Signal<In, bool>,
    /// Descriptor word 0 (control).
    pub word0: Signal<In, Bits<64>>,
    /// Descriptor word 1 (key and software tag).
    pub word1: Signal<In, Bits<64>>,
    /// The event.
    pub outgoing: ErrorEventSource,
    /// The offered event is taken on this edge (`offer` and `outgoing.ready`).
    pub taken: Signal<Out, bool>,
    op_unknown: Constant<Bits<OP_BITS>>,
    op_put: Constant<Bits<OP_BITS>>,
    op_get: Constant<Bits<OP_BITS>>,
    kind_put: Constant<Bits<KIND_BITS>>,
    kind_get: Constant<Bits<KIND_BITS>>,
}

impl Default for ErrorEventFields {
    fn default() -> Self {
        Self {
            offer: Default::default(),
            issuer_function: Default::default(),
            issuer_qp: Default::default(),
            status: Default::default(),
            described: Default::default(),
            word0: Default::default(),
            word1: Default::default(),
            outgoing: Default::default(),
            taken: Default::default(),
            op_unknown: Constant::new((OP_UNKNOWN as usize).to_bits()),
            op_put: Constant::new(1usize.to_bits()),
            op_get: Constant::new(2usize.to_bits()),
            kind_put: Constant::new(2usize.to_bits()),
            kind_get: Constant::new(3usize.to_bits()),
        }
    }
}

impl Logic for ErrorEventFields {
    #[hdl_gen]
    fn update(&mut self) {
        self.outgoing.valid.next = self.offer.val();
        self.taken.next = self.offer.val() & self.outgoing.ready.val();
        self.outgoing.function.next = self.issuer_function.val();
        self.outgoing.qp.next = self.issuer_qp.val();
        self.outgoing.status.next = self.status.val();
        self.outgoing.op.next = self.op_unknown.val();
        self.outgoing.tag.next = 0.into();
        self.outgoing.peer_node.next = 0.into();
        self.outgoing.peer_function.next = 0.into();
        self.outgoing.peer_qp.next = 0.into();
        self.outgoing.length.next = 0.into();
        if self.described.val() {
            self.outgoing.op.next = 0.into();
            if self.word0.val().get_bits::<KIND_BITS>(0) == self.kind_put.val() {
                self.outgoing.op.next = self.op_put.val();
            }
            if self.word0.val().get_bits::<KIND_BITS>(0) == self.kind_get.val() {
                self.outgoing.op.next = self.op_get.val();
            }
            if self.word0.val().get_bit(2) {
                self.outgoing.op.next = self.op_unknown.val();
            }
            self.outgoing.tag.next = self.word1.val().get_bits::<32>(32);
            self.outgoing.peer_node.next = self.word0.val().get_bits::<16>(16);
            self.outgoing.peer_function.next = self.word0.val().get_bits::<3>(8);
            self.outgoing.peer_qp.next = self.word0.val().get_bits::<4>(12);
            self.outgoing.length.next = self.word0.val().get_bits::<32>(32);
        }
    }
}

#[test]
fn error_event_fields_are_synthesizable() {
    let mut uut = ErrorEventFields::default();
    uut.connect_all();
    yosys_validate("error_event_fields", &generate_verilog(&uut)).unwrap();
}
