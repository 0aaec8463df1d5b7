//! `ControlRules`: the rules of a descriptor's word 0 (`Descriptor::unpack`'s order), a stage
//! of [`DescriptorCheck`](super::DescriptorCheck): an unknown kind, then reserved bits, a zero
//! length, a length above the kind's maximum (immediate 256, indirect 2048), then the word
//! count of the NAP kinds (immediate `2 + ceil(length / 8)`, indirect 3) and a PUT or GET of
//! fewer than 3 words. `broken` is the status of the first rule broken (0: none).
//!
//! Combinational; no state, no reset. Covered by the `descriptor_fetch` bench through the
//! checker.
use super::{STATUS_BITS, WORD_BITS};
use hdl::formats::nic::{EventStatus, IMMEDIATE_MAX_BYTES, NAP_MAX_BYTES};
use rust_hdl::prelude::*;

/// Bits of the immediate's word count (a 32-bit length over 8, plus 2).
const COUNT_BITS: usize = 40;

/// Word 0's rules; see the module documentation.
#[derive(LogicBlock)]
pub struct ControlRules {
    /// Descriptor word 0.
    pub word: Signal<In, Bits<64>>,
    /// The doorbell's word count.
    pub given: Signal<In, Bits<WORD_BITS>>,
    /// The first rule broken (0: none).
    pub broken: Signal<Out, Bits<STATUS_BITS>>,
    length: Signal<Local, Bits<32>>,
    kind: Signal<Local, Bits<3>>,
    immediate_words: Signal<Local, Bits<COUNT_BITS>>,
    kind_immediate: Constant<Bits<3>>,
    kind_indirect: Constant<Bits<3>>,
    immediate_max: Constant<Bits<32>>,
    indirect_max: Constant<Bits<32>>,
    three_words: Constant<Bits<WORD_BITS>>,
    seven: Constant<Bits<COUNT_BITS>>,
    two: Constant<Bits<COUNT_BITS>>,
    unknown_kind: Constant<Bits<STATUS_BITS>>,
    word_count: Constant<Bits<STATUS_BITS>>,
    reserved: Constant<Bits<STATUS_BITS>>,
    zero_length: Constant<Bits<STATUS_BITS>>,
    too_long: Constant<Bits<STATUS_BITS>>,
}

impl Default for ControlRules {
    fn default() -> Self {
        let code = |s: EventStatus| Constant::new((s.code() as usize).to_bits());
        Self {
            word: Default::default(),
            given: Default::default(),
            broken: Default::default(),
            length: Default::default(),
            kind: Default::default(),
            immediate_words: Default::default(),
            kind_immediate: Constant::new(0usize.to_bits()),
            kind_indirect: Constant::new(1usize.to_bits()),
            immediate_max: Constant::new(IMMEDIATE_MAX_BYTES.to_bits()),
            indirect_max: Constant::new(NAP_MAX_BYTES.to_bits()),
            three_words: Constant::new(3usize.to_bits()),
            seven: Constant::new(7usize.to_bits()),
            two: Constant::new(2usize.to_bits()),
            unknown_kind: code(EventStatus::UnknownKind),
            word_count: code(EventStatus::WordCount),
            reserved: code(EventStatus::Reserved),
            zero_length: code(EventStatus::ZeroLength),
            too_long: code(EventStatus::TooLong),
        }
    }
}

impl Logic for ControlRules {
    #[hdl_gen]
    fn update(&mut self) {
        self.length.next = self.word.val().get_bits::<32>(32);
        self.kind.next = self.word.val().get_bits::<3>(0);
        self.immediate_words.next =
            ((bit_cast::<COUNT_BITS, 32>(self.length.val()) + self.seven.val()) >> 3)
                + self.two.val();
        // Lowest priority first (the last assignment wins).
        self.broken.next = 0.into();
        if self.word.val().get_bit(1)
            & !self.word.val().get_bit(2)
            & (self.given.val() < self.three_words.val())
        {
            self.broken.next = self.word_count.val();
        }
        if (self.kind.val() == self.kind_indirect.val())
            & (self.given.val() != self.three_words.val())
        {
            self.broken.next = self.word_count.val();
        }
        if (self.kind.val() == self.kind_immediate.val())
            & (self.immediate_words.val() != bit_cast::<COUNT_BITS, WORD_BITS>(self.given.val()))
        {
            self.broken.next = self.word_count.val();
        }
        if (self.kind.val() == self.kind_immediate.val())
            & (self.length.val() > self.immediate_max.val())
        {
            self.broken.next = self.too_long.val();
        }
        if (self.kind.val() == self.kind_indirect.val())
            & (self.length.val() > self.indirect_max.val())
        {
            self.broken.next = self.too_long.val();
        }
        if !self.length.val().any() {
            self.broken.next = self.zero_length.val();
        }
        if self.word.val().get_bits::<3>(5).any() | self.word.val().get_bit(11) {
            self.broken.next = self.reserved.val();
        }
        if self.word.val().get_bit(2) {
            self.broken.next = self.unknown_kind.val();
        }
    }
}

#[test]
fn control_rules_is_synthesizable() {
    let mut uut = ControlRules::default();
    uut.connect_all();
    yosys_validate("control_rules", &generate_verilog(&uut)).unwrap();
}
