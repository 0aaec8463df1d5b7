//! `DescriptorCheck`: the `Descriptor::unpack` rules (`hdl/src/formats/nic.rs`) applied to a
//! descriptor's words fed one per cycle in order, keeping the **first** rule broken (the
//! status `unpack`'s error maps to, `EventStatus::from(DescriptorError)`).
//!
//! Word 0 ([`ControlRules`], a stage of its own): unknown kind, then reserved bits, zero
//! length, a length above the kind's maximum (immediate 256, indirect 2048), then the word
//! count for the NAP kinds (immediate `2 + ceil(length / 8)`, indirect 3) and a PUT or GET of
//! fewer than 3 words. Word 2 of a NAP indirect: reserved bits. Word 2 of a PUT or GET: the
//! word count `3 + 2 (sources + destinations)`, then reserved bits (31..16, and 63..32 in a
//! PUT: a GET's `response_key`), then segment counts (1..=16 each). Segment words:
//! reserved bits of the address word; of the bytes word reserved bits, then zero bytes. The
//! immediate's last word: padding bytes. After the last word, a PUT or GET whose source or
//! destination total differs from its length: `TotalsMismatch`.
//!
//! **Ports**: `start` clears the state (the cycle before the first word); each cycle with
//! `valid` consumes `word`, whose index in the descriptor is `index`; `given` is the doorbell's
//! word count (the words fed). `verdict` (from flip-flops) is the status after the words fed so
//! far plus the totals check, 0 when every rule holds; it is final in the cycle after the last
//! word.
//!
//! **Reset** (synchronous): as `start`.
use super::control_rules::ControlRules;
use super::{KIND_BITS, STATUS_BITS, WORD_BITS};
use hdl::formats::nic::{EventStatus, MAX_SEGMENTS};
use rust_hdl::prelude::*;

/// Bits of the segment byte totals (16 segments of up to 2^32 - 1 bytes).
const SUM_BITS: usize = 40;

/// The rule checker; see the module documentation.
#[derive(LogicBlock)]
pub struct DescriptorCheck {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Clear the state: a new descriptor follows.
    pub start: Signal<In, bool>,
    /// A word is fed this cycle.
    pub valid: Signal<In, bool>,
    /// Its index.
    pub index: Signal<In, Bits<WORD_BITS>>,
    /// The word.
    pub word: Signal<In, Bits<64>>,
    /// The doorbell's word count.
    pub given: Signal<In, Bits<WORD_BITS>>,
    /// The first rule broken so far, with the totals check (0: none).
    pub verdict: Signal<Out, Bits<STATUS_BITS>>,
    /// Word 0's rules.
    control: ControlRules,
    status: DFF<Bits<STATUS_BITS>>,
    kind_code: DFF<Bits<KIND_BITS>>,
    length: DFF<Bits<32>>,
    sources: DFF<Bits<8>>,
    source_total: DFF<Bits<SUM_BITS>>,
    destination_total: DFF<Bits<SUM_BITS>>,
    /// This word's rule broken (0: none).
    broken: Signal<Local, Bits<STATUS_BITS>>,
    /// Word 0's length, when this is word 0.
    new_length: Signal<Local, Bits<32>>,
    segment_words: Signal<Local, Bits<16>>,
    /// Index of this word among the segment words (PUT, GET).
    segment_word: Signal<Local, Bits<WORD_BITS>>,
    padding_mask: Signal<Local, Bits<64>>,
    chained: Signal<Local, bool>,
    kind_immediate: Constant<Bits<KIND_BITS>>,
    kind_indirect: Constant<Bits<KIND_BITS>>,
    max_segments: Constant<Bits<8>>,
    index_one: Constant<Bits<WORD_BITS>>,
    index_two: Constant<Bits<WORD_BITS>>,
    index_three: Constant<Bits<WORD_BITS>>,
    three_segment: Constant<Bits<16>>,
    /// Per `length % 8`: the padding bytes of the last word (none for 0).
    padding_masks: Vec<Constant<Bits<64>>>,
    word_count: Constant<Bits<STATUS_BITS>>,
    reserved: Constant<Bits<STATUS_BITS>>,
    segment_count: Constant<Bits<STATUS_BITS>>,
    zero_segment: Constant<Bits<STATUS_BITS>>,
    totals_mismatch: Constant<Bits<STATUS_BITS>>,
    padding: Constant<Bits<STATUS_BITS>>,
}

impl DescriptorCheck {
    /// The checker.
    pub fn new() -> Self {
        let code = |s: EventStatus| Constant::new((s.code() as usize).to_bits());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            valid: Default::default(),
            index: Default::default(),
            word: Default::default(),
            given: Default::default(),
            verdict: Default::default(),
            control: Default::default(),
            status: Default::default(),
            kind_code: Default::default(),
            length: Default::default(),
            sources: Default::default(),
            source_total: Default::default(),
            destination_total: Default::default(),
            broken: Default::default(),
            new_length: Default::default(),
            segment_words: Default::default(),
            segment_word: Default::default(),
            padding_mask: Default::default(),
            chained: Default::default(),
            kind_immediate: Constant::new(0usize.to_bits()),
            kind_indirect: Constant::new(1usize.to_bits()),
            max_segments: Constant::new(MAX_SEGMENTS.to_bits()),
            index_one: Constant::new(1usize.to_bits()),
            index_two: Constant::new(2usize.to_bits()),
            index_three: Constant::new(3usize.to_bits()),
            three_segment: Constant::new(3usize.to_bits()),
            padding_masks: (0..8)
                .map(|r| {
                    let mask = if r == 0 { 0 } else { u64::MAX << (8 * r) };
                    Constant::new(Bits::<64>::from(mask))
                })
                .collect(),
            word_count: code(EventStatus::WordCount),
            reserved: code(EventStatus::Reserved),
            segment_count: code(EventStatus::SegmentCount),
            zero_segment: code(EventStatus::ZeroSegment),
            totals_mismatch: code(EventStatus::TotalsMismatch),
            padding: code(EventStatus::Padding),
        }
    }
}

impl Default for DescriptorCheck {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for DescriptorCheck {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            status,
            kind_code,
            length,
            sources,
            source_total,
            destination_total
        );
        // PUT and GET: kind codes 2 and 3.
        self.chained.next = self.kind_code.q.val().get_bit(1) & !self.kind_code.q.val().get_bit(2);
        self.new_length.next = self.word.val().get_bits::<32>(32);
        self.segment_words.next = ((bit_cast::<16, 8>(self.word.val().get_bits::<8>(0))
            + bit_cast::<16, 8>(self.word.val().get_bits::<8>(8)))
            << 1)
            + self.three_segment.val();
        self.segment_word.next = self.index.val() - self.index_three.val();
        // The immediate's padding bytes in its last word: those at or above length % 8.
        self.padding_mask.next = 0.into();
        for r in 0..8 {
            if self.length.q.val().get_bits::<3>(0).index() == r {
                self.padding_mask.next = self.padding_masks[r].val();
            }
        }
        self.broken.next = 0.into();
        // Word 0's rules (a stage of their own).
        self.control.word.next = self.word.val();
        self.control.given.next = self.given.val();
        if !self.index.val().any() {
            self.broken.next = self.control.broken.val();
        }
        if (self.index.val() == self.index_two.val())
            & (self.kind_code.q.val() == self.kind_indirect.val())
            & self.word.val().get_bits::<16>(48).any()
        {
            self.broken.next = self.reserved.val();
        }
        if (self.index.val() == self.index_two.val()) & self.chained.val() {
            if !self.word.val().get_bits::<8>(0).any()
                | (self.word.val().get_bits::<8>(0) > self.max_segments.val())
                | !self.word.val().get_bits::<8>(8).any()
                | (self.word.val().get_bits::<8>(8) > self.max_segments.val())
            {
                self.broken.next = self.segment_count.val();
            }
            // Bits 63..32: a GET's response key (kind code 3), reserved in a PUT.
            if self.word.val().get_bits::<16>(16).any()
                | (self.word.val().get_bits::<32>(32).any() & !self.kind_code.q.val().get_bit(0))
            {
                self.broken.next = self.reserved.val();
            }
            if self.segment_words.val() != bit_cast::<16, WORD_BITS>(self.given.val()) {
                self.broken.next = self.word_count.val();
            }
        }
        if (self.index.val() >= self.index_two.val())
            & (self.kind_code.q.val() == self.kind_immediate.val())
            & ((self.index.val() + self.index_one.val()) == self.given.val())
            & self.length.q.val().get_bits::<3>(0).any()
            & (self.word.val() & self.padding_mask.val()).any()
        {
            self.broken.next = self.padding.val();
        }
        if (self.index.val() >= self.index_three.val()) & self.chained.val() {
            if !self.segment_word.val().get_bit(0) {
                if self.word.val().get_bits::<16>(48).any() {
                    self.broken.next = self.reserved.val();
                }
            } else {
                if !self.word.val().any() {
                    self.broken.next = self.zero_segment.val();
                }
                if self.word.val().get_bits::<32>(32).any() {
                    self.broken.next = self.reserved.val();
                }
            }
        }
        // The state.
        if self.valid.val() {
            if !self.status.q.val().any() {
                self.status.d.next = self.broken.val();
            }
            if !self.index.val().any() {
                self.kind_code.d.next = self.word.val().get_bits::<KIND_BITS>(0);
                self.length.d.next = self.new_length.val();
            }
            if (self.index.val() == self.index_two.val()) & self.chained.val() {
                self.sources.d.next = self.word.val().get_bits::<8>(0);
            }
            if (self.index.val() >= self.index_three.val())
                & self.chained.val()
                & self.segment_word.val().get_bit(0)
            {
                if bit_cast::<8, 7>(self.segment_word.val().get_bits::<7>(1)) < self.sources.q.val()
                {
                    self.source_total.d.next = self.source_total.q.val()
                        + bit_cast::<SUM_BITS, 32>(self.word.val().get_bits::<32>(0));
                } else {
                    self.destination_total.d.next = self.destination_total.q.val()
                        + bit_cast::<SUM_BITS, 32>(self.word.val().get_bits::<32>(0));
                }
            }
        }
        self.verdict.next = self.status.q.val();
        if !self.status.q.val().any()
            & self.chained.val()
            & ((self.source_total.q.val() != bit_cast::<SUM_BITS, 32>(self.length.q.val()))
                | (self.destination_total.q.val() != bit_cast::<SUM_BITS, 32>(self.length.q.val())))
        {
            self.verdict.next = self.totals_mismatch.val();
        }
        if self.start.val() | self.reset.val() {
            self.status.d.next = 0.into();
            self.kind_code.d.next = 0.into();
            self.length.d.next = 0.into();
            self.sources.d.next = 0.into();
            self.source_total.d.next = 0.into();
            self.destination_total.d.next = 0.into();
        }
    }
}

#[test]
fn descriptor_check_is_synthesizable() {
    let mut uut = DescriptorCheck::new();
    uut.connect_all();
    yosys_validate("descriptor_check", &generate_verilog(&uut)).unwrap();
}
