//! `DescriptorFields`: the checked descriptor stream of the fetch's extract stage
//! ([`DescriptorExtract`](super::DescriptorExtract)) built from what that stage holds: the
//! issuing function and QP, descriptor words 0, 1 and 2 (captured while scanning) and the body
//! word the slot RAM gives. The fields are word 0's and word 1's (`DESC_*` fields of
//! `hdl/src/formats/nic.rs`); `sources` and `destinations` come from word 2 of a PUT or GET
//! (0 otherwise), `response_key` from word 2 of a GET (0 otherwise); `get_response` is low
//! (descriptors from host memory never answer a GET).
//!
//! Combinational: `outgoing.valid` is `offer`; `taken` tells the extract stage the word was
//! taken. No state, no reset. A stage of the extract: covered by the `descriptor_fetch` bench.
use super::{DescriptorSource, KIND_BITS, SEGMENT_COUNT_BITS};
use hdl::bits::constant;
use hdl::formats::nic::{DescriptorKind, FUNCTION_BITS, QP_BITS};
use rust_hdl::prelude::*;

/// The extract stage's descriptor stream; see the module documentation.
#[derive(LogicBlock)]
pub struct DescriptorFields {
    /// The extract stage offers a body word.
    pub offer: Signal<In, bool>,
    /// The issuing function and QP (`function` is a Verilog keyword, hence the prefix).
    pub issuer_function: Signal<In, Bits<FUNCTION_BITS>>,
    /// See `issuer_function`.
    pub issuer_qp: Signal<In, Bits<QP_BITS>>,
    /// Descriptor word 0 (control).
    pub word0: Signal<In, Bits<64>>,
    /// Descriptor word 1 (key and software tag).
    pub word1: Signal<In, Bits<64>>,
    /// Descriptor word 2 (PUT, GET: counts and, in a GET, the response key).
    pub word2: Signal<In, Bits<64>>,
    /// The body word offered.
    pub body_word: Signal<In, Bits<64>>,
    /// It is the descriptor's last body word.
    pub body_last: Signal<In, bool>,
    /// The stream.
    pub outgoing: DescriptorSource,
    /// The offered word is taken on this edge (`offer` and `outgoing.ready`).
    pub taken: Signal<Out, bool>,
    chained: Signal<Local, bool>,
    kind_get: Constant<Bits<KIND_BITS>>,
}

impl Default for DescriptorFields {
    fn default() -> Self {
        Self {
            offer: Default::default(),
            issuer_function: Default::default(),
            issuer_qp: Default::default(),
            word0: Default::default(),
            word1: Default::default(),
            word2: Default::default(),
            body_word: Default::default(),
            body_last: Default::default(),
            outgoing: Default::default(),
            taken: Default::default(),
            chained: Default::default(),
            kind_get: constant(DescriptorKind::Get.code() as u64),
        }
    }
}

impl Logic for DescriptorFields {
    #[hdl_gen]
    fn update(&mut self) {
        // PUT and GET: kind codes 2 and 3.
        self.chained.next = self.word0.val().get_bit(1) & !self.word0.val().get_bit(2);
        self.outgoing.valid.next = self.offer.val();
        self.taken.next = self.offer.val() & self.outgoing.ready.val();
        self.outgoing.kind.next = self.word0.val().get_bits::<KIND_BITS>(0);
        self.outgoing.function.next = self.issuer_function.val();
        self.outgoing.qp.next = self.issuer_qp.val();
        self.outgoing.dst_node.next = self.word0.val().get_bits::<16>(16);
        self.outgoing.dst_function.next = self.word0.val().get_bits::<3>(8);
        self.outgoing.dst_qp.next = self.word0.val().get_bits::<4>(12);
        self.outgoing.remote_event.next = self.word0.val().get_bit(3);
        self.outgoing.local_event.next = self.word0.val().get_bit(4);
        self.outgoing.key.next = self.word1.val().get_bits::<32>(0);
        self.outgoing.tag.next = self.word1.val().get_bits::<32>(32);
        self.outgoing.length.next = self.word0.val().get_bits::<32>(32);
        self.outgoing.sources.next = 0.into();
        self.outgoing.destinations.next = 0.into();
        if self.chained.val() {
            self.outgoing.sources.next = self.word2.val().get_bits::<SEGMENT_COUNT_BITS>(0);
            self.outgoing.destinations.next = self.word2.val().get_bits::<SEGMENT_COUNT_BITS>(8);
        }
        self.outgoing.response_key.next = 0.into();
        if self.word0.val().get_bits::<KIND_BITS>(0) == self.kind_get.val() {
            self.outgoing.response_key.next = self.word2.val().get_bits::<32>(32);
        }
        self.outgoing.get_response.next = false;
        self.outgoing.word.next = self.body_word.val();
        self.outgoing.last.next = self.body_last.val();
    }
}

#[test]
fn descriptor_fields_are_synthesizable() {
    let mut uut = DescriptorFields::default();
    uut.connect_all();
    yosys_validate("descriptor_fields", &generate_verilog(&uut)).unwrap();
}
