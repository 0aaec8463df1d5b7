//! `HeadBeat`: what [`DataReorder`](super::DataReorder) reads next, from the order FIFO's head
//! record and the beat index within it: the request's tag, whether it ends its message, whether
//! this beat is the request's first or last, and the lanes of the beat that hold request bytes
//! (`low_lane` inclusive to `high_lane` exclusive: the first beat from the request's lane, the
//! last to its end, every other beat whole).
//!
//! Combinational; no state, no reset. Covered by the `data_reorder` bench.
use super::data_reorder::RECORD_BITS;
use super::BEAT_COUNT_BITS;
use crate::host::{READ_BYTES_BITS, TAG_BITS};
use rust_hdl::prelude::*;

/// The head request's next beat; see the module documentation.
#[derive(LogicBlock)]
pub struct HeadBeat {
    /// The order FIFO's head record (`DataReorder`'s layout).
    pub record: Signal<In, Bits<RECORD_BITS>>,
    /// Beats of the head request already read.
    pub beat_index: Signal<In, Bits<BEAT_COUNT_BITS>>,
    /// The request's tag.
    pub tag: Signal<Out, Bits<TAG_BITS>>,
    /// The request ends its message.
    pub message_last: Signal<Out, bool>,
    /// This beat is the request's first.
    pub first_beat: Signal<Out, bool>,
    /// This beat is the request's last.
    pub final_beat: Signal<Out, bool>,
    /// The first lane holding request bytes.
    pub low_lane: Signal<Out, Bits<5>>,
    /// One past the last lane holding request bytes.
    pub high_lane: Signal<Out, Bits<5>>,
    lane: Signal<Local, Bits<4>>,
    end_byte: Signal<Local, Bits<READ_BYTES_BITS>>,
    beats: Signal<Local, Bits<BEAT_COUNT_BITS>>,
    one_beat: Constant<Bits<BEAT_COUNT_BITS>>,
    one_byte: Constant<Bits<READ_BYTES_BITS>>,
    sixteen: Constant<Bits<5>>,
    one_lane: Constant<Bits<5>>,
    fifteen: Constant<Bits<READ_BYTES_BITS>>,
}

impl Default for HeadBeat {
    fn default() -> Self {
        Self {
            record: Default::default(),
            beat_index: Default::default(),
            tag: Default::default(),
            message_last: Default::default(),
            first_beat: Default::default(),
            final_beat: Default::default(),
            low_lane: Default::default(),
            high_lane: Default::default(),
            lane: Default::default(),
            end_byte: Default::default(),
            beats: Default::default(),
            one_beat: Constant::new(1u64.to_bits()),
            one_byte: Constant::new(1u64.to_bits()),
            sixteen: Constant::new(16u64.to_bits()),
            one_lane: Constant::new(1u64.to_bits()),
            fifteen: Constant::new(15u64.to_bits()),
        }
    }
}

impl Logic for HeadBeat {
    #[hdl_gen]
    fn update(&mut self) {
        // The record's fields (offsets checked against DataReorder's constants there).
        self.tag.next = self.record.val().get_bits::<TAG_BITS>(0);
        self.lane.next = self.record.val().get_bits::<4>(8);
        self.end_byte.next = bit_cast::<READ_BYTES_BITS, 4>(self.lane.val())
            + self.record.val().get_bits::<READ_BYTES_BITS>(12);
        self.beats.next = self.record.val().get_bits::<BEAT_COUNT_BITS>(25);
        self.message_last.next = self.record.val().get_bit(34);
        self.first_beat.next = !self.beat_index.val().any();
        self.final_beat.next = (self.beat_index.val() + self.one_beat.val()) == self.beats.val();
        self.low_lane.next = 0.into();
        if self.first_beat.val() {
            self.low_lane.next = bit_cast::<5, 4>(self.lane.val());
        }
        self.high_lane.next = self.sixteen.val();
        if self.final_beat.val() {
            self.high_lane.next = bit_cast::<5, READ_BYTES_BITS>(
                (self.end_byte.val() - self.one_byte.val()) & self.fifteen.val(),
            ) + self.one_lane.val();
        }
    }
}

#[test]
fn head_beat_is_synthesizable() {
    let mut uut = HeadBeat::default();
    uut.connect_all();
    yosys_validate("head_beat", &generate_verilog(&uut)).unwrap();
}
