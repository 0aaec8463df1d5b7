//! `GetRules`: the per-word rules of an arriving GET's body, a stage of
//! [`GetStore`](super::get_store::GetStore). The body is `Descriptor::get_body`: word 0 is the
//! GET descriptor's word 2 (`sources` bits 7..0, `destinations` bits 15..8, bits 31..16
//! reserved, `response_key` bits 63..32), then each segment's address word (bits 63..48
//! reserved) and bytes word (bits 63..32 reserved, not zero), the sources first.
//!
//! For the word at `index` (its position in the packet) `broken` says whether it breaks a rule
//! of its own: word 0 reserved bits or a segment count out of 1..=16; an address word's
//! reserved bits; a bytes word's reserved bits or zero bytes. `source_bytes` /
//! `destination_bytes` say whether it is a source's or a destination's bytes word (by
//! `sources`, the count word 0 gave). The rules that need the whole packet (word count,
//! totals) are the store's.
//!
//! Combinational; no state, no reset. Covered by the `get_to_put` bench.
use hdl::bits::constant;
use hdl::formats::nic::MAX_SEGMENTS;
use rust_hdl::prelude::*;

/// Bits of a word's index in a GET packet (at most 252 payload words; the store saturates).
pub const GET_INDEX_BITS: usize = 8;

/// The per-word rules; see the module documentation.
#[derive(LogicBlock)]
pub struct GetRules {
    /// The word's index in its packet.
    pub index: Signal<In, Bits<GET_INDEX_BITS>>,
    /// The word.
    pub word: Signal<In, Bits<64>>,
    /// The packet's source segment count (word 0's `sources`).
    pub sources: Signal<In, Bits<8>>,
    /// The word breaks a rule of its own.
    pub broken: Signal<Out, bool>,
    /// It is a source segment's bytes word.
    pub source_bytes: Signal<Out, bool>,
    /// It is a destination segment's bytes word.
    pub destination_bytes: Signal<Out, bool>,
    /// Index among the segment words (`index - 1`).
    segment_word: Signal<Local, Bits<GET_INDEX_BITS>>,
    /// The segment the word belongs to.
    segment: Signal<Local, Bits<8>>,
    source_count: Signal<Local, Bits<8>>,
    destination_count: Signal<Local, Bits<8>>,
    one: Constant<Bits<GET_INDEX_BITS>>,
    max_segments: Constant<Bits<8>>,
}

impl Default for GetRules {
    fn default() -> Self {
        Self {
            index: Default::default(),
            word: Default::default(),
            sources: Default::default(),
            broken: Default::default(),
            source_bytes: Default::default(),
            destination_bytes: Default::default(),
            segment_word: Default::default(),
            segment: Default::default(),
            source_count: Default::default(),
            destination_count: Default::default(),
            one: constant(1),
            max_segments: constant(MAX_SEGMENTS as u64),
        }
    }
}

impl Logic for GetRules {
    #[hdl_gen]
    fn update(&mut self) {
        self.segment_word.next = self.index.val() - self.one.val();
        self.segment.next = bit_cast::<8, 7>(self.segment_word.val().get_bits::<7>(1));
        self.source_count.next = self.word.val().get_bits::<8>(0);
        self.destination_count.next = self.word.val().get_bits::<8>(8);
        self.broken.next = false;
        self.source_bytes.next = false;
        self.destination_bytes.next = false;
        if !self.index.val().any() {
            self.broken.next = self.word.val().get_bits::<16>(16).any()
                | !self.source_count.val().any()
                | (self.source_count.val() > self.max_segments.val())
                | !self.destination_count.val().any()
                | (self.destination_count.val() > self.max_segments.val());
        } else if !self.segment_word.val().get_bit(0) {
            // An address word.
            self.broken.next = self.word.val().get_bits::<16>(48).any();
        } else {
            // A bytes word.
            self.broken.next = self.word.val().get_bits::<32>(32).any() | !self.word.val().any();
            self.source_bytes.next = self.segment.val() < self.sources.val();
            self.destination_bytes.next = self.sources.val() <= self.segment.val();
        }
    }
}

#[test]
fn get_rules_is_synthesizable() {
    let mut uut = GetRules::default();
    uut.connect_all();
    yosys_validate("get_rules", &generate_verilog(&uut)).unwrap();
}
