//! `GetEmit`: the output stage of [`GetToPut`](super::get_to_put::GetToPut). It turns the GET
//! at the queue's head (the read pointer's slot) into a PUT descriptor on `responses`, the
//! [`DescriptorSource`] bundle the send engine takes from the descriptor fetch.
//!
//! **Sequence**: `Idle` addresses the head slot's word 0 (the GET's word 2) while the queue is
//! not empty; `Prime` captures from it the response key and the segment counts and addresses
//! word 1; `Emit` offers words 1..=`2 (sources + destinations)` (the segment words: the PUT's
//! body), one per cycle taken; the last taken advances the read pointer (`Idle` again). Two
//! cycles between GETs. The queue RAM's read is registered: the word addressed in cycle `c` is
//! offered in `c + 1`, and the address moves to the next word on the edge a word is taken.
//!
//! **The descriptor** (docs/nic-design.md, "GET to PUT"): kind PUT; `function`, `qp` = the
//! GET's target (that QP's memory is read); `dst_node`, `dst_function`, `dst_qp` = the GET's
//! source; `key` = the response key; `remote_event` = the GET's `event`; `local_event` 0;
//! `tag` 0; `length` = the source total (the record's); `get_response` 1; `response_key` 0.
//! Fields come from the record RAM (read at the head slot every cycle, stable while it is the
//! head) and the captured word 0, so they hold over the descriptor's words.
//!
//! **Reset** (synchronous): `Idle`, read pointer 0 (the store's write pointer is reset with it).
//!
//! Parameters as [`GetStore`](super::get_store::GetStore).
use super::get_rules::GET_INDEX_BITS;
use super::get_store::GET_RECORD_BITS;
use crate::descriptor::{DescriptorSource, SEGMENT_COUNT_BITS};
use hdl::bits::constant;
use hdl::formats::nic::DescriptorKind;
use rust_hdl::prelude::*;

/// Where the emitter is.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
enum EmitState {
    /// Waiting for a GET.
    Idle,
    /// Word 0 is being read.
    Prime,
    /// Offering the body words.
    Emit,
}

/// The output stage; see the module documentation.
#[derive(LogicBlock)]
pub struct GetEmit<const SB: usize, const WB: usize, const QAW: usize, const PB: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The store's write pointer (committed GETs).
    pub write_pointer: Signal<In, Bits<PB>>,
    /// The read pointer (the head slot).
    pub read_pointer: Signal<Out, Bits<PB>>,
    /// The record RAM's read address (the head slot).
    pub record_address: Signal<Out, Bits<SB>>,
    /// Its data (registered read).
    pub record: Signal<In, Bits<GET_RECORD_BITS>>,
    /// The queue RAM's read address.
    pub word_address: Signal<Out, Bits<QAW>>,
    /// Its data (registered read).
    pub word_data: Signal<In, Bits<64>>,
    /// The response PUT descriptors.
    pub responses: DescriptorSource,
    state: DFF<EmitState>,
    pointer: DFF<Bits<PB>>,
    /// The word offered (Emit).
    emitting: DFF<Bits<GET_INDEX_BITS>>,
    response_key: DFF<Bits<32>>,
    sources: DFF<Bits<SEGMENT_COUNT_BITS>>,
    destinations: DFF<Bits<SEGMENT_COUNT_BITS>>,
    /// The word addressed this cycle.
    look: Signal<Local, Bits<GET_INDEX_BITS>>,
    last_index: Signal<Local, Bits<GET_INDEX_BITS>>,
    taken: Signal<Local, bool>,
    unused_record: Signal<Local, bool>,
    put_code: Constant<Bits<3>>,
    one_index: Constant<Bits<GET_INDEX_BITS>>,
    one_pointer: Constant<Bits<PB>>,
    word_shift: Constant<Bits<8>>,
}

impl<const SB: usize, const WB: usize, const QAW: usize, const PB: usize> GetEmit<SB, WB, QAW, PB> {
    /// The stage.
    pub fn new() -> Self {
        assert!(
            QAW == SB + WB && PB == SB + 1 && WB < GET_INDEX_BITS,
            "GetEmit: SB = {SB}, WB = {WB}, QAW = {QAW}, PB = {PB}: need QAW = SB + WB, PB = SB + 1, WB < 8"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            write_pointer: Default::default(),
            read_pointer: Default::default(),
            record_address: Default::default(),
            record: Default::default(),
            word_address: Default::default(),
            word_data: Default::default(),
            responses: Default::default(),
            state: Default::default(),
            pointer: Default::default(),
            emitting: Default::default(),
            response_key: Default::default(),
            sources: Default::default(),
            destinations: Default::default(),
            look: Default::default(),
            last_index: Default::default(),
            taken: Default::default(),
            unused_record: Default::default(),
            put_code: constant(DescriptorKind::Put.code() as u64),
            one_index: constant(1),
            one_pointer: constant(1),
            word_shift: constant(WB as u64),
        }
    }
}

impl<const SB: usize, const WB: usize, const QAW: usize, const PB: usize> Default
    for GetEmit<SB, WB, QAW, PB>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const SB: usize, const WB: usize, const QAW: usize, const PB: usize> Logic
    for GetEmit<SB, WB, QAW, PB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            pointer,
            emitting,
            response_key,
            sources,
            destinations
        );
        self.read_pointer.next = self.pointer.q.val();
        self.record_address.next = self.pointer.q.val().get_bits::<SB>(0);
        self.unused_record.next = self.record.val().get_bit(63);
        // The descriptor: fields from the record and word 0.
        self.responses.valid.next = false;
        self.responses.kind.next = self.put_code.val();
        self.responses.function.next = self.record.val().get_bits::<3>(0);
        self.responses.qp.next = self.record.val().get_bits::<4>(3);
        self.responses.dst_node.next = self.record.val().get_bits::<16>(7);
        self.responses.dst_function.next = self.record.val().get_bits::<3>(23);
        self.responses.dst_qp.next = self.record.val().get_bits::<4>(26);
        self.responses.remote_event.next = self.record.val().get_bit(30);
        self.responses.local_event.next = false;
        self.responses.key.next = self.response_key.q.val();
        self.responses.tag.next = 0.into();
        self.responses.length.next = self.record.val().get_bits::<32>(31);
        self.responses.sources.next = self.sources.q.val();
        self.responses.destinations.next = self.destinations.q.val();
        self.responses.response_key.next = 0.into();
        self.responses.get_response.next = true;
        self.responses.word.next = self.word_data.val();
        self.last_index.next =
            (bit_cast::<GET_INDEX_BITS, SEGMENT_COUNT_BITS>(self.sources.q.val())
                + bit_cast::<GET_INDEX_BITS, SEGMENT_COUNT_BITS>(self.destinations.q.val()))
                << 1;
        self.responses.last.next = self.emitting.q.val() == self.last_index.val();
        self.taken.next = false;
        self.look.next = 0.into();
        match self.state.q.val() {
            EmitState::Idle => {
                if self.pointer.q.val() != self.write_pointer.val() {
                    self.state.d.next = EmitState::Prime;
                }
            }
            EmitState::Prime => {
                self.response_key.d.next = self.word_data.val().get_bits::<32>(32);
                self.sources.d.next = self.word_data.val().get_bits::<SEGMENT_COUNT_BITS>(0);
                self.destinations.d.next = self.word_data.val().get_bits::<SEGMENT_COUNT_BITS>(8);
                self.look.next = self.one_index.val();
                self.emitting.d.next = self.one_index.val();
                self.state.d.next = EmitState::Emit;
            }
            EmitState::Emit => {
                self.responses.valid.next = true;
                self.look.next = self.emitting.q.val();
                self.taken.next = self.responses.ready.val();
                if self.taken.val() {
                    self.look.next = self.emitting.q.val() + self.one_index.val();
                    self.emitting.d.next = self.emitting.q.val() + self.one_index.val();
                    if self.responses.last.val() {
                        self.look.next = 0.into();
                        self.pointer.d.next = self.pointer.q.val() + self.one_pointer.val();
                        self.state.d.next = EmitState::Idle;
                    }
                }
            }
        }
        self.word_address.next = (bit_cast::<QAW, SB>(self.pointer.q.val().get_bits::<SB>(0))
            << self.word_shift.val())
            | bit_cast::<QAW, WB>(self.look.val().get_bits::<WB>(0));
        if self.reset.val() {
            self.state.d.next = EmitState::Idle;
            self.pointer.d.next = 0.into();
            self.responses.valid.next = false;
        }
    }
}

#[test]
fn get_emit_is_synthesizable() {
    let mut uut = GetEmit::<3, 5, 8, 4>::new();
    uut.connect_all();
    yosys_validate("get_emit", &generate_verilog(&uut)).unwrap();
}
