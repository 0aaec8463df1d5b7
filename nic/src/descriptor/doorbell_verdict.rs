//! `DoorbellVerdict`: the request stage's ([`DescriptorRequest`](super::DescriptorRequest))
//! arithmetic on a held doorbell: its word count and descriptor address, the reads it needs
//! (one, or two when the descriptor crosses a `max_read_request` boundary: the boundary and
//! both spans; the first read's slot beats, counting the 8 bytes before an odd word address),
//! and, with the QP lookup's answer, its verdict (`EventStatus` code, 0 to read it; first that
//! applies: `BadDoorbell`, `QpNotOwned`, `QpDisabled`, `WordCount`, as in the request stage's
//! documentation).
//!
//! Combinational; no state, no reset. Covered by the `descriptor_fetch` bench.
use super::{STATUS_BITS, WORD_BITS};
use crate::doorbell::DOORBELL_BITS;
use hdl::formats::nic::{EventStatus, ADDRESS_BITS};
use rust_hdl::prelude::*;

/// A held doorbell's reads and verdict; see the module documentation.
#[derive(LogicBlock)]
pub struct DoorbellVerdict {
    /// The doorbell word.
    pub word: Signal<In, Bits<DOORBELL_BITS>>,
    /// The lookup's answer: the function and QP exist.
    pub owned: Signal<In, bool>,
    /// The function is enabled.
    pub function_enabled: Signal<In, bool>,
    /// The QP is enabled.
    pub qp_enabled: Signal<In, bool>,
    /// The descriptor's words.
    pub words: Signal<Out, Bits<WORD_BITS>>,
    /// Its address.
    pub address: Signal<Out, Bits<ADDRESS_BITS>>,
    /// The first read-request boundary above the address.
    pub next_boundary: Signal<Out, Bits<ADDRESS_BITS>>,
    /// The descriptor crosses it (two reads).
    pub crosses: Signal<Out, bool>,
    /// Bytes of the first read.
    pub first_span: Signal<Out, Bits<ADDRESS_BITS>>,
    /// Bytes of the first read's slot beats (its span plus 8 from an odd word address).
    pub first_extent: Signal<Out, Bits<ADDRESS_BITS>>,
    /// Bytes of the second read.
    pub second_span: Signal<Out, Bits<ADDRESS_BITS>>,
    /// The verdict: 0, or the `EventStatus` code of the refusal.
    pub verdict: Signal<Out, Bits<STATUS_BITS>>,
    /// The address one past the descriptor.
    past_end: Signal<Local, Bits<ADDRESS_BITS>>,
    eight_bytes: Constant<Bits<ADDRESS_BITS>>,
    boundary_mask: Constant<Bits<ADDRESS_BITS>>,
    one_address: Constant<Bits<ADDRESS_BITS>>,
    max_words: Constant<Bits<WORD_BITS>>,
    two_words: Constant<Bits<WORD_BITS>>,
    bad_doorbell: Constant<Bits<STATUS_BITS>>,
    not_owned: Constant<Bits<STATUS_BITS>>,
    disabled: Constant<Bits<STATUS_BITS>>,
    too_long: Constant<Bits<STATUS_BITS>>,
}

impl DoorbellVerdict {
    /// The arithmetic for reads of at most `max_read_request` bytes (checked by the request
    /// stage).
    pub fn new(max_read_request: usize) -> Self {
        let code = |s: EventStatus| Constant::new((s.code() as usize).to_bits());
        Self {
            word: Default::default(),
            owned: Default::default(),
            function_enabled: Default::default(),
            qp_enabled: Default::default(),
            words: Default::default(),
            address: Default::default(),
            next_boundary: Default::default(),
            crosses: Default::default(),
            first_span: Default::default(),
            first_extent: Default::default(),
            second_span: Default::default(),
            verdict: Default::default(),
            past_end: Default::default(),
            eight_bytes: Constant::new(8usize.to_bits()),
            boundary_mask: Constant::new((max_read_request - 1).to_bits()),
            one_address: Constant::new(1usize.to_bits()),
            max_words: Constant::new(super::max_words(max_read_request).to_bits()),
            two_words: Constant::new(2usize.to_bits()),
            bad_doorbell: code(EventStatus::BadDoorbell),
            not_owned: code(EventStatus::QpNotOwned),
            disabled: code(EventStatus::QpDisabled),
            too_long: code(EventStatus::WordCount),
        }
    }
}

impl Logic for DoorbellVerdict {
    #[hdl_gen]
    fn update(&mut self) {
        // The doorbell's fields and the reads it needs.
        self.words.next = self.word.val().get_bits::<WORD_BITS>(8);
        self.address.next = self.word.val().get_bits::<ADDRESS_BITS>(16);
        self.past_end.next =
            self.address.val() + (bit_cast::<ADDRESS_BITS, WORD_BITS>(self.words.val()) << 3);
        self.next_boundary.next =
            (self.address.val() | self.boundary_mask.val()) + self.one_address.val();
        self.second_span.next = self.past_end.val() - self.next_boundary.val();
        self.crosses.next = self.past_end.val() > self.next_boundary.val();
        self.first_span.next = self.past_end.val() - self.address.val();
        if self.crosses.val() {
            self.first_span.next = self.next_boundary.val() - self.address.val();
        }
        // The first read's beats: its bytes plus the 8 before an odd word address.
        self.first_extent.next = self.first_span.val();
        if self.address.val().get_bit(3) {
            self.first_extent.next = self.first_span.val() + self.eight_bytes.val();
        }
        // The verdict, in the lookup's answer cycle.
        self.verdict.next = 0.into();
        if self.words.val() > self.max_words.val() {
            self.verdict.next = self.too_long.val();
        }
        if !self.function_enabled.val() | !self.qp_enabled.val() {
            self.verdict.next = self.disabled.val();
        }
        if !self.owned.val() {
            self.verdict.next = self.not_owned.val();
        }
        if self.word.val().get_bits::<4>(4).any()
            | (self.words.val() < self.two_words.val())
            | self.address.val().get_bits::<3>(0).any()
        {
            self.verdict.next = self.bad_doorbell.val();
        }
    }
}

#[test]
fn doorbell_verdict_is_synthesizable() {
    let mut uut = DoorbellVerdict::new(512);
    uut.connect_all();
    yosys_validate("doorbell_verdict", &generate_verilog(&uut)).unwrap();
}
