//! `FetchSlots`: the descriptor fetches in flight, a ring of `2^SB` slots in doorbell order,
//! and the collection of their read completions into the slot RAM.
//!
//! **Open** ([`SlotOpenSink`], valid only): the request stage opens the slot at the tail for
//! each doorbell it takes (it looks at `room` first), with the doorbell's verdict (`status`, 0
//! when the descriptor is to be read) and how many reads it will issue (none, one, or two when
//! the descriptor crosses a `max_read_request` boundary). **Tags** ([`SlotTagSink`]): each read's
//! tag is set on the newest slot (the one opened on the same edge, if any) when it is allocated, before the read is requested.
//!
//! **Completions** (`completion`, always ready): a beat is matched to the slot and read holding
//! its tag; beat `k` of the first read is written at beat `k` of the slot's RAM region, beat
//! `k` of the second at `base1 + k` (beats of one tag arrive in order; tags interleave freely).
//! The `last` beat of a read frees its tag (`tag_free`) and ends the read; an `error` beat marks
//! the slot failed (nothing written). A beat whose tag no slot holds is dropped and raises
//! `stray` (a completion router error: the NIC routes only this block's tags here).
//!
//! **Head** ([`SlotHeadSource`]): the oldest slot, offered once all its reads have ended (or
//! at once when it has none); the extract stage releases it when it is done with it.
//!
//! **Reset** (synchronous): the ring empty, every read forgotten (their tags with the tag pool's
//! own reset). Latency: a beat taken in cycle `c` is in the RAM from `c + 1`; a slot whose last
//! beat is taken in `c` is offered at the head in `c + 1`.
//!
//! Parameters: `SB` slot index bits (`2^SB` slots), `RAW = SB + 5` the RAM address bits.
use super::slot_read::SlotRead;
use super::{SLOT_BEAT_BITS, STATUS_BITS, WORD_BITS};
use crate::host::{ReadCompletionSink, HOST_DATA_BITS, TAG_BITS};
use crate::tag_pool::TagFreeSource;
use hdl::formats::nic::{FUNCTION_BITS, QP_BITS};
use rust_hdl::prelude::*;

/// Opening a slot, at the request stage.
#[derive(LogicInterface, Default)]
#[join = "SlotOpenSink"]
pub struct SlotOpenSource {
    /// Open the tail slot on this edge.
    pub valid: Signal<Out, bool>,
    /// The doorbell's function.
    pub function: Signal<Out, Bits<FUNCTION_BITS>>,
    /// The doorbell's QP.
    pub qp: Signal<Out, Bits<QP_BITS>>,
    /// The doorbell's descriptor words.
    pub words: Signal<Out, Bits<WORD_BITS>>,
    /// Bit 3 of the descriptor address: word 0 is in the upper half of beat 0.
    pub offset: Signal<Out, bool>,
    /// The doorbell's verdict: 0 to read the descriptor, else the error event's status.
    pub status: Signal<Out, Bits<STATUS_BITS>>,
    /// One read will be issued.
    pub read: Signal<Out, bool>,
    /// A second read will be issued (the descriptor crosses a read-request boundary).
    pub second: Signal<Out, bool>,
    /// The second read's first beat index in the slot.
    pub base: Signal<Out, Bits<SLOT_BEAT_BITS>>,
}

/// Opening a slot, at the slots.
#[derive(LogicInterface, Default)]
#[join = "SlotOpenSource"]
pub struct SlotOpenSink {
    /// Open the tail slot on this edge.
    pub valid: Signal<In, bool>,
    /// Function.
    pub function: Signal<In, Bits<FUNCTION_BITS>>,
    /// QP.
    pub qp: Signal<In, Bits<QP_BITS>>,
    /// Descriptor words.
    pub words: Signal<In, Bits<WORD_BITS>>,
    /// Word 0 in the upper half of beat 0.
    pub offset: Signal<In, bool>,
    /// Verdict.
    pub status: Signal<In, Bits<STATUS_BITS>>,
    /// One read.
    pub read: Signal<In, bool>,
    /// Two reads.
    pub second: Signal<In, bool>,
    /// Second read's first beat.
    pub base: Signal<In, Bits<SLOT_BEAT_BITS>>,
}

/// A read's tag for the newest slot, at the request stage.
#[derive(LogicInterface, Default)]
#[join = "SlotTagSink"]
pub struct SlotTagSource {
    /// Set on this edge.
    pub valid: Signal<Out, bool>,
    /// The second read's tag (else the first's).
    pub second: Signal<Out, bool>,
    /// The tag.
    pub tag: Signal<Out, Bits<TAG_BITS>>,
}

/// A read's tag for the newest slot, at the slots.
#[derive(LogicInterface, Default)]
#[join = "SlotTagSource"]
pub struct SlotTagSink {
    /// Set on this edge.
    pub valid: Signal<In, bool>,
    /// The second read's tag.
    pub second: Signal<In, bool>,
    /// The tag.
    pub tag: Signal<In, Bits<TAG_BITS>>,
}

/// The head slot, at the slots.
#[derive(LogicInterface, Default)]
#[join = "SlotHeadSink"]
pub struct SlotHeadSource<const SB: usize> {
    /// The head slot exists and all its reads have ended.
    pub valid: Signal<Out, bool>,
    /// Its index (its RAM region).
    pub index: Signal<Out, Bits<SB>>,
    /// Function.
    pub function: Signal<Out, Bits<FUNCTION_BITS>>,
    /// QP.
    pub qp: Signal<Out, Bits<QP_BITS>>,
    /// Descriptor words.
    pub words: Signal<Out, Bits<WORD_BITS>>,
    /// Word 0 in the upper half of beat 0.
    pub offset: Signal<Out, bool>,
    /// The doorbell's verdict.
    pub status: Signal<Out, Bits<STATUS_BITS>>,
    /// A read completed with an error.
    pub failed: Signal<Out, bool>,
    /// The extract stage is done with the head on this edge.
    pub release: Signal<In, bool>,
}

/// The head slot, at the extract stage.
#[derive(LogicInterface, Default)]
#[join = "SlotHeadSource"]
pub struct SlotHeadSink<const SB: usize> {
    /// The head is ready.
    pub valid: Signal<In, bool>,
    /// Its index.
    pub index: Signal<In, Bits<SB>>,
    /// Function.
    pub function: Signal<In, Bits<FUNCTION_BITS>>,
    /// QP.
    pub qp: Signal<In, Bits<QP_BITS>>,
    /// Words.
    pub words: Signal<In, Bits<WORD_BITS>>,
    /// Offset.
    pub offset: Signal<In, bool>,
    /// Verdict.
    pub status: Signal<In, Bits<STATUS_BITS>>,
    /// Failed read.
    pub failed: Signal<In, bool>,
    /// Done with it on this edge.
    pub release: Signal<Out, bool>,
}

/// The slot ring; see the module documentation.
#[derive(LogicBlock)]
pub struct FetchSlots<const SB: usize, const RAW: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: no slot open.
    pub reset: Signal<In, bool>,
    /// Opens the tail slot.
    pub open: SlotOpenSink,
    /// Sets a read's tag on the newest slot.
    pub set_tag: SlotTagSink,
    /// A slot is free (the request stage opens one only then).
    pub room: Signal<Out, bool>,
    /// Completion beats (always taken).
    pub completion: ReadCompletionSink,
    /// Tags freed by last beats.
    pub tag_free: TagFreeSource,
    /// A beat no slot expected was dropped.
    pub stray: Signal<Out, bool>,
    /// The slot RAM's write port.
    pub write_address: Signal<Out, Bits<RAW>>,
    /// See `write_address`.
    pub write_data: Signal<Out, Bits<HOST_DATA_BITS>>,
    /// See `write_address`.
    pub write_enable: Signal<Out, bool>,
    /// The oldest slot.
    pub head: SlotHeadSource<SB>,
    functions: Vec<DFF<Bits<FUNCTION_BITS>>>,
    qps: Vec<DFF<Bits<QP_BITS>>>,
    words: Vec<DFF<Bits<WORD_BITS>>>,
    offsets: Vec<DFF<bool>>,
    statuses: Vec<DFF<Bits<STATUS_BITS>>>,
    failed: Vec<DFF<bool>>,
    /// Per slot: its first and second read.
    first_reads: Vec<SlotRead>,
    second_reads: Vec<SlotRead>,
    head_index: DFF<Bits<SB>>,
    tail_index: DFF<Bits<SB>>,
    open_count: DFF<Bits<8>>,
    /// The slot opened last.
    newest: Signal<Local, Bits<SB>>,
    /// The slot a tag is set on.
    tag_slot: Signal<Local, Bits<SB>>,
    matched: Signal<Local, bool>,
    /// The matched slot's RAM region and the beat in it.
    slot_base: Signal<Local, Bits<RAW>>,
    beat: Signal<Local, Bits<SLOT_BEAT_BITS>>,
    opening: Signal<Local, bool>,
    releasing: Signal<Local, bool>,
    /// Per slot: the RAM address of its beat 0.
    bases: Vec<Constant<Bits<RAW>>>,
    ids: Vec<Constant<Bits<SB>>>,
    slot_count: Constant<Bits<8>>,
    one_slot: Constant<Bits<SB>>,
    one_count: Constant<Bits<8>>,
}

impl<const SB: usize, const RAW: usize> FetchSlots<SB, RAW> {
    /// `2^SB` slots.
    pub fn new() -> Self {
        assert!(
            (1..=3).contains(&SB) && RAW == SB + SLOT_BEAT_BITS,
            "FetchSlots: SB (slot bits) = {SB} must be 1..=3 and RAW = SB + 5 (got {RAW})"
        );
        let n = 1usize << SB;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            open: Default::default(),
            set_tag: Default::default(),
            room: Default::default(),
            completion: Default::default(),
            tag_free: Default::default(),
            stray: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            write_enable: Default::default(),
            head: Default::default(),
            functions: many(n),
            qps: many(n),
            words: many(n),
            offsets: many(n),
            statuses: many(n),
            failed: many(n),
            first_reads: many(n),
            second_reads: many(n),
            head_index: Default::default(),
            tail_index: Default::default(),
            open_count: Default::default(),
            newest: Default::default(),
            tag_slot: Default::default(),
            matched: Default::default(),
            slot_base: Default::default(),
            beat: Default::default(),
            opening: Default::default(),
            releasing: Default::default(),
            bases: (0..n)
                .map(|i| Constant::new((i << SLOT_BEAT_BITS).to_bits()))
                .collect(),
            ids: (0..n).map(|i| Constant::new(i.to_bits())).collect(),
            slot_count: Constant::new(n.to_bits()),
            one_slot: Constant::new(1usize.to_bits()),
            one_count: Constant::new(1usize.to_bits()),
        }
    }
}

/// `n` default values.
fn many<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

impl<const SB: usize, const RAW: usize> Default for FetchSlots<SB, RAW> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const SB: usize, const RAW: usize> Logic for FetchSlots<SB, RAW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, head_index, tail_index, open_count);
        for i in 0..self.ids.len() {
            self.functions[i].clock.next = self.clock.val();
            self.functions[i].d.next = self.functions[i].q.val();
            self.qps[i].clock.next = self.clock.val();
            self.qps[i].d.next = self.qps[i].q.val();
            self.words[i].clock.next = self.clock.val();
            self.words[i].d.next = self.words[i].q.val();
            self.offsets[i].clock.next = self.clock.val();
            self.offsets[i].d.next = self.offsets[i].q.val();
            self.statuses[i].clock.next = self.clock.val();
            self.statuses[i].d.next = self.statuses[i].q.val();
            self.failed[i].clock.next = self.clock.val();
            self.failed[i].d.next = self.failed[i].q.val();
        }
        self.room.next = self.open_count.q.val() != self.slot_count.val();
        self.newest.next = self.tail_index.q.val() - self.one_slot.val();
        self.opening.next = self.open.valid.val() & self.room.val();
        self.releasing.next = self.head.release.val() & self.head.valid.val();
        // A read's tag goes on the newest slot (the one opened on this edge, if any).
        self.tag_slot.next = self.newest.val();
        if self.opening.val() {
            self.tag_slot.next = self.tail_index.q.val();
        }
        // Each slot's two reads: opened at the tail, tags set, completion beats matched.
        for i in 0..self.ids.len() {
            self.first_reads[i].clock.next = self.clock.val();
            self.first_reads[i].reset.next = self.reset.val();
            self.first_reads[i].open.next =
                self.opening.val() & (self.tail_index.q.val() == self.ids[i].val());
            self.first_reads[i].expected.next = self.open.read.val();
            self.first_reads[i].first_beat.next = 0.into();
            self.first_reads[i].set.next = self.set_tag.valid.val()
                & !self.set_tag.second.val()
                & (self.tag_slot.val() == self.ids[i].val());
            self.first_reads[i].tag_in.next = self.set_tag.tag.val();
            self.first_reads[i].beat_valid.next = self.completion.valid.val();
            self.first_reads[i].beat_tag.next = self.completion.tag.val();
            self.first_reads[i].beat_last.next = self.completion.last.val();
            self.second_reads[i].clock.next = self.clock.val();
            self.second_reads[i].reset.next = self.reset.val();
            self.second_reads[i].open.next =
                self.opening.val() & (self.tail_index.q.val() == self.ids[i].val());
            self.second_reads[i].expected.next = self.open.second.val();
            self.second_reads[i].first_beat.next = self.open.base.val();
            self.second_reads[i].set.next = self.set_tag.valid.val()
                & self.set_tag.second.val()
                & (self.tag_slot.val() == self.ids[i].val());
            self.second_reads[i].tag_in.next = self.set_tag.tag.val();
            self.second_reads[i].beat_valid.next = self.completion.valid.val();
            self.second_reads[i].beat_tag.next = self.completion.tag.val();
            self.second_reads[i].beat_last.next = self.completion.last.val();
        }
        // Completion beats: written where the read holding the tag says; `last` frees the tag.
        self.completion.ready.next = true;
        self.matched.next = false;
        self.slot_base.next = 0.into();
        self.beat.next = 0.into();
        self.write_data.next = self.completion.data.val();
        self.write_enable.next = false;
        self.tag_free.valid.next = false;
        self.tag_free.tag.next = self.completion.tag.val();
        for i in 0..self.ids.len() {
            if self.first_reads[i].matched.val() {
                self.matched.next = true;
                self.slot_base.next = self.bases[i].val();
                self.beat.next = self.first_reads[i].beat.val();
            }
            if self.second_reads[i].matched.val() {
                self.matched.next = true;
                self.slot_base.next = self.bases[i].val();
                self.beat.next = self.second_reads[i].beat.val();
            }
            if (self.first_reads[i].matched.val() | self.second_reads[i].matched.val())
                & self.completion.error.val()
            {
                self.failed[i].d.next = true;
            }
        }
        if self.matched.val() {
            self.write_enable.next = !self.completion.error.val();
            self.tag_free.valid.next = self.completion.last.val();
        }
        self.write_address.next =
            self.slot_base.val() | bit_cast::<RAW, SLOT_BEAT_BITS>(self.beat.val());
        self.stray.next = self.completion.valid.val() & !self.matched.val() & !self.reset.val();
        // The head.
        self.head.valid.next = false;
        self.head.index.next = self.head_index.q.val();
        self.head.function.next = 0.into();
        self.head.qp.next = 0.into();
        self.head.words.next = 0.into();
        self.head.offset.next = false;
        self.head.status.next = 0.into();
        self.head.failed.next = false;
        for i in 0..self.ids.len() {
            if self.head_index.q.val() == self.ids[i].val() {
                self.head.valid.next = (self.open_count.q.val() != 0)
                    & !self.first_reads[i].pending.val()
                    & !self.second_reads[i].pending.val();
                self.head.function.next = self.functions[i].q.val();
                self.head.qp.next = self.qps[i].q.val();
                self.head.words.next = self.words[i].q.val();
                self.head.offset.next = self.offsets[i].q.val();
                self.head.status.next = self.statuses[i].q.val();
                self.head.failed.next = self.failed[i].q.val();
            }
        }
        // Open at the tail, release at the head.
        for i in 0..self.ids.len() {
            if self.opening.val() & (self.tail_index.q.val() == self.ids[i].val()) {
                self.functions[i].d.next = self.open.function.val();
                self.qps[i].d.next = self.open.qp.val();
                self.words[i].d.next = self.open.words.val();
                self.offsets[i].d.next = self.open.offset.val();
                self.statuses[i].d.next = self.open.status.val();
                self.failed[i].d.next = false;
            }
        }
        if self.opening.val() {
            self.tail_index.d.next = self.tail_index.q.val() + self.one_slot.val();
        }
        if self.releasing.val() {
            self.head_index.d.next = self.head_index.q.val() + self.one_slot.val();
        }
        if self.opening.val() & !self.releasing.val() {
            self.open_count.d.next = self.open_count.q.val() + self.one_count.val();
        }
        if !self.opening.val() & self.releasing.val() {
            self.open_count.d.next = self.open_count.q.val() - self.one_count.val();
        }
        if self.reset.val() {
            self.head_index.d.next = 0.into();
            self.tail_index.d.next = 0.into();
            self.open_count.d.next = 0.into();
            self.tag_free.valid.next = false;
            self.write_enable.next = false;
        }
    }
}

#[test]
fn fetch_slots_are_synthesizable() {
    let mut uut = FetchSlots::<2, 7>::new();
    uut.connect_all();
    yosys_validate("fetch_slots_4", &generate_verilog(&uut)).unwrap();
}
