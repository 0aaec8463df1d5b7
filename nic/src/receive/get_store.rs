//! `GetStore`: the input stage of [`GetToPut`](super::get_to_put::GetToPut). It writes each
//! arriving GET packet's words into its slot of the GET queue (slot = the write pointer's low
//! `SB` bits, word `i` at slot word `i`), checks the body as it goes ([`GetRules`] per word;
//! here the word count, the totals and the packet's `bytes`) and sums the source and
//! destination segments, so that at the packet's last word it knows the response's length.
//!
//! At the last word: a good GET is **committed** (its record written at the slot, the write
//! pointer advanced on that edge); a bad one is **dropped** (`dropped` pulses with its fields
//! on the record port, nothing else changes: the slot is reused). Bad: a word broke its rule,
//! the words are not `1 + 2 (sources + destinations)`, more words than a slot holds (`2^WB`),
//! `bytes` is not 8 x the words, the source and destination totals differ, are zero, or do not
//! fit 32 bits.
//!
//! `gets.ready` is low while the queue is full (`2^SB` committed GETs not yet emitted): only
//! the GET path backs up. One word per cycle otherwise.
//!
//! **Reset** (synchronous): the packet in progress is forgotten and the queue emptied (the
//! write pointer to 0; the emitter's read pointer is reset with it).
//!
//! Parameters: `SB` slot bits, `WB` word bits of a slot, `QAW = SB + WB` the queue RAM's
//! address bits, `PB = SB + 1` the pointers' bits.
use super::get_rules::{GetRules, GET_INDEX_BITS};
use super::ReceivedPacketSink;
use hdl::bits::constant;
use rust_hdl::prelude::*;

/// Bits of the segment byte totals (16 segments of up to 2^32 - 1 bytes).
const SUM_BITS: usize = 40;
/// Bits of a GET's record in the record RAM.
pub const GET_RECORD_BITS: usize = 64;

/// The input stage; see the module documentation.
#[derive(LogicBlock)]
pub struct GetStore<const SB: usize, const WB: usize, const QAW: usize, const PB: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Checked GET packets (their words are the GET's body).
    pub gets: ReceivedPacketSink,
    /// The emitter's read pointer.
    pub read_pointer: Signal<In, Bits<PB>>,
    /// The write pointer (committed GETs).
    pub write_pointer: Signal<Out, Bits<PB>>,
    /// Queue RAM write port.
    pub word_write: Signal<Out, bool>,
    /// See `word_write`.
    pub word_address: Signal<Out, Bits<QAW>>,
    /// See `word_write`.
    pub word_data: Signal<Out, Bits<64>>,
    /// Record RAM write (at the write pointer's slot): the GET is committed on this edge.
    pub commit: Signal<Out, bool>,
    /// The record: target function (bits 2..0), target QP (6..3), source node (22..7),
    /// source function (25..23), source QP (29..26), `event` (30), length (62..31).
    pub record: Signal<Out, Bits<GET_RECORD_BITS>>,
    /// Pulse: a bad GET was dropped on this edge (its fields still on `gets`).
    pub dropped: Signal<Out, bool>,
    rules: GetRules,
    index: DFF<Bits<GET_INDEX_BITS>>,
    broken: DFF<bool>,
    sources: DFF<Bits<8>>,
    destinations: DFF<Bits<8>>,
    source_total: DFF<Bits<SUM_BITS>>,
    destination_total: DFF<Bits<SUM_BITS>>,
    pointer: DFF<Bits<PB>>,
    taking: Signal<Local, bool>,
    fill: Signal<Local, Bits<PB>>,
    full: Signal<Local, bool>,
    /// Fields a GET does not use (kind: the dispatch's; the rest zero in a GET).
    unused_fields: Signal<Local, bool>,
    in_slot: Signal<Local, bool>,
    /// The counts in force for this word (word 0's own, else the latched ones).
    sources_now: Signal<Local, Bits<8>>,
    destinations_now: Signal<Local, Bits<8>>,
    segment_bytes: Signal<Local, Bits<SUM_BITS>>,
    source_next: Signal<Local, Bits<SUM_BITS>>,
    destination_next: Signal<Local, Bits<SUM_BITS>>,
    words_expected: Signal<Local, Bits<10>>,
    words_seen: Signal<Local, Bits<10>>,
    /// The `bytes` a body of `words_seen` words has.
    bytes_expected: Signal<Local, Bits<13>>,
    bad: Signal<Local, bool>,
    depth: Constant<Bits<PB>>,
    slot_words: Constant<Bits<GET_INDEX_BITS>>,
    one_index: Constant<Bits<GET_INDEX_BITS>>,
    saturated: Constant<Bits<GET_INDEX_BITS>>,
    one_pointer: Constant<Bits<PB>>,
    one_count: Constant<Bits<10>>,
    word_shift: Constant<Bits<8>>,
}

impl<const SB: usize, const WB: usize, const QAW: usize, const PB: usize>
    GetStore<SB, WB, QAW, PB>
{
    /// The stage.
    pub fn new() -> Self {
        assert!(
            QAW == SB + WB && PB == SB + 1 && WB < GET_INDEX_BITS,
            "GetStore: SB = {SB}, WB = {WB}, QAW = {QAW}, PB = {PB}: need QAW = SB + WB, PB = SB + 1, WB < 8"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            gets: Default::default(),
            read_pointer: Default::default(),
            write_pointer: Default::default(),
            word_write: Default::default(),
            word_address: Default::default(),
            word_data: Default::default(),
            commit: Default::default(),
            record: Default::default(),
            dropped: Default::default(),
            rules: Default::default(),
            index: Default::default(),
            broken: Default::default(),
            sources: Default::default(),
            destinations: Default::default(),
            source_total: Default::default(),
            destination_total: Default::default(),
            pointer: Default::default(),
            taking: Default::default(),
            fill: Default::default(),
            full: Default::default(),
            unused_fields: Default::default(),
            in_slot: Default::default(),
            sources_now: Default::default(),
            destinations_now: Default::default(),
            segment_bytes: Default::default(),
            source_next: Default::default(),
            destination_next: Default::default(),
            words_expected: Default::default(),
            words_seen: Default::default(),
            bytes_expected: Default::default(),
            bad: Default::default(),
            depth: constant(1 << SB),
            slot_words: constant(1 << WB),
            one_index: constant(1),
            saturated: constant((1 << GET_INDEX_BITS) - 1),
            one_pointer: constant(1),
            one_count: constant(1),
            word_shift: constant(WB as u64),
        }
    }
}

impl<const SB: usize, const WB: usize, const QAW: usize, const PB: usize> Default
    for GetStore<SB, WB, QAW, PB>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const SB: usize, const WB: usize, const QAW: usize, const PB: usize> Logic
    for GetStore<SB, WB, QAW, PB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            index,
            broken,
            sources,
            destinations,
            source_total,
            destination_total,
            pointer
        );
        self.write_pointer.next = self.pointer.q.val();
        self.fill.next = self.pointer.q.val() - self.read_pointer.val();
        self.full.next = self.fill.val() == self.depth.val();
        self.unused_fields.next = self.gets.kind.val().any()
            | self.gets.delay.val().any()
            | self.gets.address.val().any()
            | self.gets.nap_offset.val().any()
            | self.gets.nap_length.val().any()
            | self.gets.message_last.val()
            | self.gets.get_response.val();
        self.gets.ready.next = !self.full.val() & !self.reset.val();
        self.taking.next = self.gets.valid.val() & self.gets.ready.val();
        // The word's own rules, with the counts in force.
        self.sources_now.next = self.sources.q.val();
        self.destinations_now.next = self.destinations.q.val();
        if !self.index.q.val().any() {
            self.sources_now.next = self.gets.word.val().get_bits::<8>(0);
            self.destinations_now.next = self.gets.word.val().get_bits::<8>(8);
        }
        self.rules.index.next = self.index.q.val();
        self.rules.word.next = self.gets.word.val();
        self.rules.sources.next = self.sources_now.val();
        self.in_slot.next = self.index.q.val() < self.slot_words.val();
        // The totals with this word.
        self.segment_bytes.next = bit_cast::<SUM_BITS, 32>(self.gets.word.val().get_bits::<32>(0));
        self.source_next.next = self.source_total.q.val();
        if self.rules.source_bytes.val() {
            self.source_next.next = self.source_total.q.val() + self.segment_bytes.val();
        }
        self.destination_next.next = self.destination_total.q.val();
        if self.rules.destination_bytes.val() {
            self.destination_next.next = self.destination_total.q.val() + self.segment_bytes.val();
        }
        // The whole packet's rules, at its last word.
        self.words_expected.next = ((bit_cast::<10, 8>(self.sources_now.val())
            + bit_cast::<10, 8>(self.destinations_now.val()))
            << 1)
            + self.one_count.val();
        self.words_seen.next =
            bit_cast::<10, GET_INDEX_BITS>(self.index.q.val()) + self.one_count.val();
        self.bytes_expected.next = bit_cast::<13, 10>(self.words_seen.val()) << 3;
        self.bad.next = self.broken.q.val()
            | self.rules.broken.val()
            | !self.in_slot.val()
            | (self.words_seen.val() != self.words_expected.val())
            | (bit_cast::<13, 11>(self.gets.bytes.val()) != self.bytes_expected.val())
            | (self.source_next.val() != self.destination_next.val())
            | !self.source_next.val().any()
            | self.source_next.val().get_bits::<8>(32).any();
        // The queue RAM's write, and the state.
        self.word_write.next = self.taking.val() & self.in_slot.val();
        self.word_address.next = (bit_cast::<QAW, SB>(self.pointer.q.val().get_bits::<SB>(0))
            << self.word_shift.val())
            | bit_cast::<QAW, WB>(self.index.q.val().get_bits::<WB>(0));
        self.word_data.next = self.gets.word.val();
        self.commit.next = false;
        self.dropped.next = false;
        if self.taking.val() {
            if self.index.q.val() != self.saturated.val() {
                self.index.d.next = self.index.q.val() + self.one_index.val();
            }
            self.broken.d.next =
                self.broken.q.val() | self.rules.broken.val() | !self.in_slot.val();
            self.sources.d.next = self.sources_now.val();
            self.destinations.d.next = self.destinations_now.val();
            self.source_total.d.next = self.source_next.val();
            self.destination_total.d.next = self.destination_next.val();
            if self.gets.last.val() {
                self.commit.next = !self.bad.val();
                self.dropped.next = self.bad.val();
                if !self.bad.val() {
                    self.pointer.d.next = self.pointer.q.val() + self.one_pointer.val();
                }
            }
        }
        self.record.next = bit_cast::<GET_RECORD_BITS, 3>(self.gets.dst_function.val())
            | (bit_cast::<GET_RECORD_BITS, 4>(self.gets.dst_qp.val()) << 3)
            | (bit_cast::<GET_RECORD_BITS, 16>(self.gets.src_node.val()) << 7)
            | (bit_cast::<GET_RECORD_BITS, 3>(self.gets.src_function.val()) << 23)
            | (bit_cast::<GET_RECORD_BITS, 4>(self.gets.src_qp.val()) << 26)
            | (bit_cast::<GET_RECORD_BITS, 1>(self.gets.event.val().into()) << 30)
            | (bit_cast::<GET_RECORD_BITS, 32>(self.source_next.val().get_bits::<32>(0)) << 31);
        if (self.taking.val() & self.gets.last.val()) | self.reset.val() {
            self.index.d.next = 0.into();
            self.broken.d.next = false;
            self.source_total.d.next = 0.into();
            self.destination_total.d.next = 0.into();
        }
        if self.reset.val() {
            self.pointer.d.next = 0.into();
        }
    }
}

#[test]
fn get_store_is_synthesizable() {
    let mut uut = GetStore::<3, 5, 8, 4>::new();
    uut.connect_all();
    yosys_validate("get_store", &generate_verilog(&uut)).unwrap();
}
