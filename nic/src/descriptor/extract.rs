//! `DescriptorExtract`: the fetch's last stage. It takes the head slot once its reads have
//! ended and either refuses it (an error event) or streams its checked body words out.
//!
//! **Sequence** (states): `Idle` waits for the head; a doorbell refused by the request stage
//! or a failed read goes straight to `Event` (status: the doorbell's verdict, or
//! `ReadFailed`). Otherwise `Scan` reads the slot RAM one word per cycle (registered read: the
//! word addressed in cycle `c` is fed to the [`DescriptorCheck`] in `c + 1`), capturing words
//! 0, 1 and 2; `Decide` reads the checker's verdict (the cycle after the last word) and
//! addresses the first body word; a broken rule goes to `Event` with its status and the fields
//! of words 0 and 1; a good descriptor goes to `Emit`, which offers one body word per cycle
//! (the RAM keeps reading the offered word until it is taken, then the next). The slot is
//! released when its event or its last body word is taken. The stream's fields are built from
//! words 0..2 by [`DescriptorFields`], the error event's by [`ErrorEventFields`].
//!
//! Cycles from the head slot's offer to the first body word offered: `words + 3` (the scan is
//! `words + 1`). Both output streams hold their fields until taken.
//!
//! **Reset** (synchronous): back to `Idle`, nothing offered.
//!
//! Parameters: `SB` slot index bits, `RAW = SB + 5` the slot RAM's address bits.
use super::check::DescriptorCheck;
use super::descriptor_fields::DescriptorFields;
use super::event_fields::ErrorEventFields;
use super::slots::SlotHeadSink;
use super::{DescriptorSource, ErrorEventSource, SLOT_BEAT_BITS, STATUS_BITS, WORD_BITS};
use crate::host::HOST_DATA_BITS;
use hdl::formats::nic::EventStatus;
use rust_hdl::prelude::*;

/// Where the extract stage is.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
enum ExtractState {
    /// Waiting for the head slot.
    Idle,
    /// Feeding the checker.
    Scan,
    /// The verdict is known.
    Decide,
    /// Offering body words.
    Emit,
    /// Offering the error event.
    Event,
}

/// The extract stage; see the module documentation.
#[derive(LogicBlock)]
pub struct DescriptorExtract<const SB: usize, const RAW: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The head slot.
    pub head: SlotHeadSink<SB>,
    /// The slot RAM's read port (registered read).
    pub read_address: Signal<Out, Bits<RAW>>,
    /// See `read_address`.
    pub read_data: Signal<In, Bits<HOST_DATA_BITS>>,
    /// Checked descriptors.
    pub descriptor: DescriptorSource,
    /// Error events.
    pub error: ErrorEventSource,
    /// The rule checker.
    pub check: DescriptorCheck,
    /// The descriptor stream's fields.
    fields: DescriptorFields,
    /// The error event's fields.
    event_fields: ErrorEventFields,
    state: DFF<ExtractState>,
    /// The next word to address while scanning.
    issue: DFF<Bits<WORD_BITS>>,
    /// The RAM's data this cycle is word `fed` (scan).
    feeding: DFF<bool>,
    fed: DFF<Bits<WORD_BITS>>,
    /// The body word offered (emit).
    emitting: DFF<Bits<WORD_BITS>>,
    word0: DFF<Bits<64>>,
    word1: DFF<Bits<64>>,
    word2: DFF<Bits<64>>,
    /// The event's status, and whether words 0 and 1 were read.
    status: DFF<Bits<STATUS_BITS>>,
    described: DFF<bool>,
    /// The word index addressed this cycle.
    look: Signal<Local, Bits<WORD_BITS>>,
    position: Signal<Local, Bits<9>>,
    /// The word the RAM gives this cycle, for index `fed` / `emitting`.
    fed_word: Signal<Local, Bits<64>>,
    emitted_word: Signal<Local, Bits<64>>,
    last_index: Signal<Local, Bits<WORD_BITS>>,
    /// The offered body word is the descriptor's last.
    body_last: Signal<Local, bool>,
    first_body: Signal<Local, Bits<WORD_BITS>>,
    chained: Signal<Local, bool>,
    one_index: Constant<Bits<WORD_BITS>>,
    beat_shift: Constant<Bits<3>>,
    one_position: Constant<Bits<9>>,
    two_index: Constant<Bits<WORD_BITS>>,
    three_index: Constant<Bits<WORD_BITS>>,
    read_failed: Constant<Bits<STATUS_BITS>>,
}

impl<const SB: usize, const RAW: usize> DescriptorExtract<SB, RAW> {
    /// The stage.
    pub fn new() -> Self {
        assert!(
            RAW == SB + SLOT_BEAT_BITS,
            "DescriptorExtract: RAW = {RAW} must be SB + 5 = {}",
            SB + SLOT_BEAT_BITS
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            head: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            descriptor: Default::default(),
            error: Default::default(),
            check: DescriptorCheck::new(),
            fields: DescriptorFields::default(),
            event_fields: ErrorEventFields::default(),
            state: Default::default(),
            issue: Default::default(),
            feeding: Default::default(),
            fed: Default::default(),
            emitting: Default::default(),
            word0: Default::default(),
            word1: Default::default(),
            word2: Default::default(),
            status: Default::default(),
            described: Default::default(),
            look: Default::default(),
            position: Default::default(),
            fed_word: Default::default(),
            emitted_word: Default::default(),
            last_index: Default::default(),
            body_last: Default::default(),
            first_body: Default::default(),
            chained: Default::default(),
            one_index: Constant::new(1usize.to_bits()),
            beat_shift: Constant::new(SLOT_BEAT_BITS.to_bits()),
            one_position: Constant::new(1usize.to_bits()),
            two_index: Constant::new(2usize.to_bits()),
            three_index: Constant::new(3usize.to_bits()),
            read_failed: Constant::new((EventStatus::ReadFailed.code() as usize).to_bits()),
        }
    }
}

impl<const SB: usize, const RAW: usize> Default for DescriptorExtract<SB, RAW> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const SB: usize, const RAW: usize> Logic for DescriptorExtract<SB, RAW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, issue, feeding, fed, emitting, word0, word1, word2, status,
            described
        );
        clock!(self, clock, check);
        self.check.reset.next = self.reset.val();
        self.last_index.next = self.head.words.val() - self.one_index.val();
        self.chained.next = self.word0.q.val().get_bit(1) & !self.word0.q.val().get_bit(2);
        self.first_body.next = self.two_index.val();
        if self.chained.val() {
            self.first_body.next = self.three_index.val();
        }
        // The RAM's halves: word `j` is in beat `(j + offset) / 2`, half `(j + offset) % 2`.
        self.fed_word.next = self.read_data.val().get_bits::<64>(0);
        if self.fed.q.val().get_bit(0) ^ self.head.offset.val() {
            self.fed_word.next = self.read_data.val().get_bits::<64>(64);
        }
        self.emitted_word.next = self.read_data.val().get_bits::<64>(0);
        if self.emitting.q.val().get_bit(0) ^ self.head.offset.val() {
            self.emitted_word.next = self.read_data.val().get_bits::<64>(64);
        }
        // The checker is fed the RAM's word.
        self.check.start.next = false;
        self.check.valid.next = self.feeding.q.val() & (self.state.q.val() == ExtractState::Scan);
        self.check.index.next = self.fed.q.val();
        self.check.word.next = self.fed_word.val();
        self.check.given.next = self.head.words.val();
        // The descriptor stream's fields from words 0..2: see `DescriptorFields`.
        DescriptorSource::link(&mut self.descriptor, &mut self.fields.outgoing);
        self.fields.offer.next = false;
        self.fields.issuer_function.next = self.head.function.val();
        self.fields.issuer_qp.next = self.head.qp.val();
        self.fields.word0.next = self.word0.q.val();
        self.fields.word1.next = self.word1.q.val();
        self.fields.word2.next = self.word2.q.val();
        self.fields.body_word.next = self.emitted_word.val();
        self.body_last.next = self.emitting.q.val() == self.last_index.val();
        self.fields.body_last.next = self.body_last.val();
        // The error event's fields: see `ErrorEventFields`.
        ErrorEventSource::link(&mut self.error, &mut self.event_fields.outgoing);
        self.event_fields.offer.next = false;
        self.event_fields.issuer_function.next = self.head.function.val();
        self.event_fields.issuer_qp.next = self.head.qp.val();
        self.event_fields.status.next = self.status.q.val();
        self.event_fields.described.next = self.described.q.val();
        self.event_fields.word0.next = self.word0.q.val();
        self.event_fields.word1.next = self.word1.q.val();
        self.head.release.next = false;
        self.look.next = self.emitting.q.val();
        match self.state.q.val() {
            ExtractState::Idle => {
                self.look.next = 0.into();
                self.feeding.d.next = false;
                if self.head.valid.val() {
                    self.described.d.next = false;
                    if self.head.status.val().any() | self.head.failed.val() {
                        self.status.d.next = self.head.status.val();
                        if self.head.failed.val() {
                            self.status.d.next = self.read_failed.val();
                        }
                        self.state.d.next = ExtractState::Event;
                    } else {
                        // Word 0 is addressed now.
                        self.check.start.next = true;
                        self.issue.d.next = self.one_index.val();
                        self.feeding.d.next = true;
                        self.fed.d.next = 0.into();
                        self.state.d.next = ExtractState::Scan;
                    }
                }
            }
            ExtractState::Scan => {
                self.look.next = self.issue.q.val();
                self.feeding.d.next = false;
                if self.issue.q.val() < self.head.words.val() {
                    self.issue.d.next = self.issue.q.val() + self.one_index.val();
                    self.feeding.d.next = true;
                    self.fed.d.next = self.issue.q.val();
                }
                if self.feeding.q.val() {
                    if !self.fed.q.val().any() {
                        self.word0.d.next = self.fed_word.val();
                    }
                    if self.fed.q.val() == self.one_index.val() {
                        self.word1.d.next = self.fed_word.val();
                    }
                    if self.fed.q.val() == self.two_index.val() {
                        self.word2.d.next = self.fed_word.val();
                    }
                    if self.fed.q.val() == self.last_index.val() {
                        self.state.d.next = ExtractState::Decide;
                    }
                }
            }
            ExtractState::Decide => {
                self.look.next = self.first_body.val();
                self.emitting.d.next = self.first_body.val();
                self.state.d.next = ExtractState::Emit;
                if self.check.verdict.val().any() {
                    self.status.d.next = self.check.verdict.val();
                    self.described.d.next = true;
                    self.state.d.next = ExtractState::Event;
                }
            }
            ExtractState::Emit => {
                self.fields.offer.next = true;
                if self.fields.taken.val() {
                    self.look.next = self.emitting.q.val() + self.one_index.val();
                    self.emitting.d.next = self.emitting.q.val() + self.one_index.val();
                    if self.body_last.val() {
                        self.head.release.next = true;
                        self.state.d.next = ExtractState::Idle;
                    }
                }
            }
            ExtractState::Event => {
                self.event_fields.offer.next = true;
                if self.event_fields.taken.val() {
                    self.head.release.next = true;
                    self.state.d.next = ExtractState::Idle;
                }
            }
        }
        // The RAM address of word `look` of the head slot.
        self.position.next = bit_cast::<9, WORD_BITS>(self.look.val());
        if self.head.offset.val() {
            self.position.next =
                bit_cast::<9, WORD_BITS>(self.look.val()) + self.one_position.val();
        }
        self.read_address.next = (bit_cast::<RAW, SB>(self.head.index.val())
            << self.beat_shift.val())
            | bit_cast::<RAW, SLOT_BEAT_BITS>(self.position.val().get_bits::<SLOT_BEAT_BITS>(1));
        if self.reset.val() {
            self.state.d.next = ExtractState::Idle;
            self.feeding.d.next = false;
            self.fields.offer.next = false;
            self.event_fields.offer.next = false;
            self.head.release.next = false;
        }
    }
}

#[test]
fn descriptor_extract_is_synthesizable() {
    let mut uut = DescriptorExtract::<2, 7>::new();
    uut.connect_all();
    yosys_validate("descriptor_extract", &generate_verilog(&uut)).unwrap();
}
