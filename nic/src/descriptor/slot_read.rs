//! `SlotRead`: one read of a fetch slot ([`FetchSlots`](super::FetchSlots) keeps two per slot):
//! whether the slot still waits for it (`pending`), whether its tag is set (`holding`), the
//! tag, and the slot beat its next completion beat goes to.
//!
//! A slot opening on this edge (`open`) sets `pending` to `expected` (the read will be made),
//! forgets the tag and starts the beats at `first_beat`; `set` gives the read its tag (before
//! the read is requested). A completion beat with the held tag is `matched` (its slot beat is
//! `beat`) and moves the next beat on; its `last` beat ends the read (`pending` and `holding`
//! fall). An `open` or `set` on the same edge as a matched beat wins (they never meet: a slot
//! opens only when free, a tag is set before its read is requested).
//!
//! Latency: `matched` and `beat` are combinational from the beat's tag. Reset (synchronous):
//! not pending, no tag held.
use super::SLOT_BEAT_BITS;
use crate::host::TAG_BITS;
use rust_hdl::prelude::*;

/// One read of a fetch slot; see the module documentation.
#[derive(LogicBlock)]
pub struct SlotRead {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The slot opens on this edge.
    pub open: Signal<In, bool>,
    /// With `open`: the read will be made.
    pub expected: Signal<In, bool>,
    /// With `open`: the slot beat of the read's first completion beat.
    pub first_beat: Signal<In, Bits<SLOT_BEAT_BITS>>,
    /// The read's tag is set on this edge.
    pub set: Signal<In, bool>,
    /// With `set`: the tag.
    pub tag_in: Signal<In, Bits<TAG_BITS>>,
    /// A completion beat is offered.
    pub beat_valid: Signal<In, bool>,
    /// Its tag.
    pub beat_tag: Signal<In, Bits<TAG_BITS>>,
    /// It is its read's last.
    pub beat_last: Signal<In, bool>,
    /// The offered beat is this read's.
    pub matched: Signal<Out, bool>,
    /// The slot beat it goes to.
    pub beat: Signal<Out, Bits<SLOT_BEAT_BITS>>,
    /// The slot still waits for this read.
    pub pending: Signal<Out, bool>,
    waiting: DFF<bool>,
    holding: DFF<bool>,
    tag: DFF<Bits<TAG_BITS>>,
    next_beat: DFF<Bits<SLOT_BEAT_BITS>>,
    one_beat: Constant<Bits<SLOT_BEAT_BITS>>,
}

impl Default for SlotRead {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            open: Default::default(),
            expected: Default::default(),
            first_beat: Default::default(),
            set: Default::default(),
            tag_in: Default::default(),
            beat_valid: Default::default(),
            beat_tag: Default::default(),
            beat_last: Default::default(),
            matched: Default::default(),
            beat: Default::default(),
            pending: Default::default(),
            waiting: Default::default(),
            holding: Default::default(),
            tag: Default::default(),
            next_beat: Default::default(),
            one_beat: Constant::new(1usize.to_bits()),
        }
    }
}

impl Logic for SlotRead {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, waiting, holding, tag, next_beat);
        self.matched.next = self.beat_valid.val()
            & self.holding.q.val()
            & (self.tag.q.val() == self.beat_tag.val());
        self.beat.next = self.next_beat.q.val();
        self.pending.next = self.waiting.q.val();
        if self.matched.val() {
            self.next_beat.d.next = self.next_beat.q.val() + self.one_beat.val();
            if self.beat_last.val() {
                self.holding.d.next = false;
                self.waiting.d.next = false;
            }
        }
        if self.open.val() {
            self.waiting.d.next = self.expected.val();
            self.holding.d.next = false;
            self.next_beat.d.next = self.first_beat.val();
        }
        if self.set.val() {
            self.tag.d.next = self.tag_in.val();
            self.holding.d.next = true;
        }
        if self.reset.val() {
            self.waiting.d.next = false;
            self.holding.d.next = false;
        }
    }
}

#[test]
fn slot_read_is_synthesizable() {
    let mut uut = SlotRead::default();
    uut.connect_all();
    yosys_validate("slot_read", &generate_verilog(&uut)).unwrap();
}
