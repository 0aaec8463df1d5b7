//! `DescriptorRequest`: the fetch's first stage. It takes a granted doorbell, looks its
//! (function, QP) up in the function table, decides whether the descriptor is to be read, opens
//! a slot for it, allocates a tag and requests the read (two reads when the descriptor crosses
//! a `max_read_request` boundary, which includes every 4 KB boundary).
//!
//! **Verdict** (first that applies, `EventStatus` codes): reserved doorbell bits set, fewer than
//! 2 words or an address not 8-byte aligned: `BadDoorbell`; a function or QP that does not
//! exist in the configuration (`owned` low): `QpNotOwned`; the function or the QP disabled:
//! `QpDisabled`; more words than the fetch reads (`max_words`): `WordCount`. A refused doorbell
//! still opens a slot (so events leave in doorbell order) but reads nothing and takes no tag.
//!
//! **Sequence** (states): `Idle` offers the lookup when a doorbell is waiting and a slot is free,
//! and takes the doorbell with the lookup; `Lookup` (the answer's cycle) opens the slot and, when
//! the descriptor is to be read, takes a tag if one is offered (else `Alloc` waits for one);
//! `Issue` offers the read request (held until taken); a second read goes through `Alloc` and
//! `Issue` again. From a doorbell taken in cycle `c` the first read is offered in `c + 2` when a
//! tag is free. Every stream holds its fields until taken; `doorbell.ready` follows
//! `lookup.ready`.
//!
//! **Reset** (synchronous): back to `Idle`; a doorbell taken before is dropped with the slots.
//!
//! Parameters (elaboration): `max_read_request` (a power of two, 64..=4096) and `max_words`
//! ([`super::max_words`]).
use super::slots::{SlotOpenSource, SlotTagSource};
use super::{SLOT_BEAT_BITS, STATUS_BITS, WORD_BITS};
use crate::doorbell::{DoorbellSink, DOORBELL_BITS};
use crate::function_table::QpLookupSource;
use crate::host::{ReadRequestSource, READ_BYTES_BITS, TAG_BITS};
use crate::tag_pool::{TagAllocSink, OWNER_BITS};
use hdl::formats::nic::{EventStatus, ADDRESS_BITS, FUNCTION_BITS, QP_BITS};
use rust_hdl::prelude::*;

/// The tag pool's requester id of the descriptor fetch (defined with the others in `tag_pool`).
pub use crate::tag_pool::FETCH_OWNER;

/// Where the request stage is.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
enum RequestState {
    /// Waiting for a doorbell.
    Idle,
    /// The lookup's answer arrives.
    Lookup,
    /// Waiting for a tag.
    Alloc,
    /// The read request is offered.
    Issue,
}

/// The request stage; see the module documentation.
#[derive(LogicBlock)]
pub struct DescriptorRequest {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Granted doorbells.
    pub doorbell: DoorbellSink,
    /// The function table's QP lookup.
    pub lookup: QpLookupSource,
    /// Tags.
    pub tag: TagAllocSink,
    /// Read requests to the host.
    pub read: ReadRequestSource,
    /// Opens a slot.
    pub open: SlotOpenSource,
    /// Sets a read's tag on the newest slot.
    pub set_tag: SlotTagSource,
    /// A slot is free.
    pub room: Signal<In, bool>,
    state: DFF<RequestState>,
    issuer: DFF<Bits<FUNCTION_BITS>>,
    word: DFF<Bits<DOORBELL_BITS>>,
    /// The second read is next.
    second: DFF<bool>,
    /// There is a second read.
    split: DFF<bool>,
    read_tag: DFF<Bits<TAG_BITS>>,
    /// The second read's address and both reads' lengths.
    boundary: DFF<Bits<ADDRESS_BITS>>,
    first_bytes: DFF<Bits<READ_BYTES_BITS>>,
    second_bytes: DFF<Bits<READ_BYTES_BITS>>,
    // The doorbell's fields.
    words: Signal<Local, Bits<WORD_BITS>>,
    address: Signal<Local, Bits<ADDRESS_BITS>>,
    /// The address one past the descriptor.
    past_end: Signal<Local, Bits<ADDRESS_BITS>>,
    /// The first read-request boundary above the address.
    next_boundary: Signal<Local, Bits<ADDRESS_BITS>>,
    verdict: Signal<Local, Bits<STATUS_BITS>>,
    crosses: Signal<Local, bool>,
    first_span: Signal<Local, Bits<ADDRESS_BITS>>,
    first_extent: Signal<Local, Bits<ADDRESS_BITS>>,
    second_span: Signal<Local, Bits<ADDRESS_BITS>>,
    eight_bytes: Constant<Bits<ADDRESS_BITS>>,
    boundary_mask: Constant<Bits<ADDRESS_BITS>>,
    one_address: Constant<Bits<ADDRESS_BITS>>,
    max_words: Constant<Bits<WORD_BITS>>,
    two_words: Constant<Bits<WORD_BITS>>,
    bad_doorbell: Constant<Bits<STATUS_BITS>>,
    not_owned: Constant<Bits<STATUS_BITS>>,
    disabled: Constant<Bits<STATUS_BITS>>,
    too_long: Constant<Bits<STATUS_BITS>>,
    owner: Constant<Bits<OWNER_BITS>>,
    /// The lookup's key, interrupt flag and rings: the send engine's and event writer's
    /// concern, not the fetch's, so acknowledged unused.
    lookup_unused: Signal<Local, bool>,
}

impl DescriptorRequest {
    /// A request stage for reads of at most `max_read_request` bytes.
    pub fn new(max_read_request: usize) -> Self {
        assert!(
            max_read_request.is_power_of_two() && (64..=4096).contains(&max_read_request),
            "DescriptorRequest: max_read_request (nic.max_read_request) = {max_read_request} must be a power of two in 64..=4096"
        );
        let code = |s: EventStatus| Constant::new((s.code() as usize).to_bits());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            doorbell: Default::default(),
            lookup: Default::default(),
            tag: Default::default(),
            read: Default::default(),
            open: Default::default(),
            set_tag: Default::default(),
            room: Default::default(),
            state: Default::default(),
            issuer: Default::default(),
            word: Default::default(),
            second: Default::default(),
            split: Default::default(),
            read_tag: Default::default(),
            boundary: Default::default(),
            first_bytes: Default::default(),
            second_bytes: Default::default(),
            words: Default::default(),
            address: Default::default(),
            past_end: Default::default(),
            next_boundary: Default::default(),
            verdict: Default::default(),
            crosses: Default::default(),
            first_span: Default::default(),
            first_extent: Default::default(),
            second_span: Default::default(),
            eight_bytes: Constant::new(8usize.to_bits()),
            boundary_mask: Constant::new((max_read_request - 1).to_bits()),
            one_address: Constant::new(1usize.to_bits()),
            max_words: Constant::new(super::max_words(max_read_request).to_bits()),
            two_words: Constant::new(2usize.to_bits()),
            bad_doorbell: code(EventStatus::BadDoorbell),
            not_owned: code(EventStatus::QpNotOwned),
            disabled: code(EventStatus::QpDisabled),
            too_long: code(EventStatus::WordCount),
            owner: Constant::new(FETCH_OWNER.to_bits()),
            lookup_unused: Default::default(),
        }
    }
}

impl Logic for DescriptorRequest {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            issuer,
            word,
            second,
            split,
            read_tag,
            boundary,
            first_bytes,
            second_bytes
        );
        // The held doorbell's fields and the reads it needs.
        self.words.next = self.word.q.val().get_bits::<WORD_BITS>(8);
        self.address.next = self.word.q.val().get_bits::<ADDRESS_BITS>(16);
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
        // The verdict, in the lookup's answer cycle.
        self.verdict.next = 0.into();
        if self.words.val() > self.max_words.val() {
            self.verdict.next = self.too_long.val();
        }
        if !self.lookup.function_enabled.val() | !self.lookup.qp_enabled.val() {
            self.verdict.next = self.disabled.val();
        }
        if !self.lookup.owned.val() {
            self.verdict.next = self.not_owned.val();
        }
        if self.word.q.val().get_bits::<4>(4).any()
            | (self.words.val() < self.two_words.val())
            | self.address.val().get_bits::<3>(0).any()
        {
            self.verdict.next = self.bad_doorbell.val();
        }
        self.lookup_unused.next = self.lookup.key.val().any()
            | self.lookup.interrupt.val()
            | self.lookup.send_base.val().any()
            | self.lookup.send_size.val().any()
            | self.lookup.send_producer.val().any()
            | self.lookup.send_consumer.val().any()
            | self.lookup.receive_base.val().any()
            | self.lookup.receive_size.val().any()
            | self.lookup.receive_producer.val().any()
            | self.lookup.receive_consumer.val().any()
            | self.lookup.nap_base.val().any()
            | self.lookup.nap_size.val().any()
            | self.lookup.nap_producer.val().any()
            | self.lookup.nap_consumer.val().any();
        // Defaults: nothing offered.
        self.doorbell.ready.next = false;
        self.lookup.valid.next = false;
        self.lookup.function.next = self.doorbell.function.val();
        self.lookup.qp.next = self.doorbell.word.val().get_bits::<QP_BITS>(0);
        self.tag.ready.next = false;
        self.tag.owner.next = self.owner.val();
        self.read.valid.next = false;
        self.read.function.next = self.issuer.q.val();
        self.read.address.next = self.address.val();
        self.read.bytes.next = self.first_bytes.q.val();
        self.read.tag.next = self.read_tag.q.val();
        if self.second.q.val() {
            self.read.address.next = self.boundary.q.val();
            self.read.bytes.next = self.second_bytes.q.val();
        }
        self.open.valid.next = false;
        self.open.function.next = self.issuer.q.val();
        self.open.qp.next = self.word.q.val().get_bits::<QP_BITS>(0);
        self.open.words.next = self.words.val();
        self.open.offset.next = self.address.val().get_bit(3);
        self.open.status.next = self.verdict.val();
        self.open.read.next = !self.verdict.val().any();
        self.open.second.next = !self.verdict.val().any() & self.crosses.val();
        // The first read's beats: its bytes plus the 8 before an odd word address.
        self.first_extent.next = self.first_span.val();
        if self.address.val().get_bit(3) {
            self.first_extent.next = self.first_span.val() + self.eight_bytes.val();
        }
        self.open.base.next = self.first_extent.val().get_bits::<SLOT_BEAT_BITS>(4);
        self.set_tag.valid.next = false;
        self.set_tag.second.next = self.second.q.val();
        self.set_tag.tag.next = self.tag.tag.val();
        match self.state.q.val() {
            RequestState::Idle => {
                self.lookup.valid.next = self.doorbell.valid.val() & self.room.val();
                self.doorbell.ready.next = self.lookup.ready.val() & self.room.val();
                if self.doorbell.valid.val() & self.room.val() & self.lookup.ready.val() {
                    self.issuer.d.next = self.doorbell.function.val();
                    self.word.d.next = self.doorbell.word.val();
                    self.state.d.next = RequestState::Lookup;
                }
            }
            RequestState::Lookup => {
                // The table answers in this cycle (its contract); until it does, wait.
                self.open.valid.next = self.lookup.answered.val();
                if self.lookup.answered.val() {
                    self.second.d.next = false;
                    self.split.d.next = self.crosses.val();
                    self.boundary.d.next = self.next_boundary.val();
                    self.first_bytes.d.next = self.first_span.val().get_bits::<READ_BYTES_BITS>(0);
                    self.second_bytes.d.next =
                        self.second_span.val().get_bits::<READ_BYTES_BITS>(0);
                    self.state.d.next = RequestState::Idle;
                    if !self.verdict.val().any() {
                        self.state.d.next = RequestState::Alloc;
                        self.set_tag.second.next = false;
                        if self.tag.valid.val() {
                            self.tag.ready.next = true;
                            self.set_tag.valid.next = true;
                            self.read_tag.d.next = self.tag.tag.val();
                            self.state.d.next = RequestState::Issue;
                        }
                    }
                }
            }
            RequestState::Alloc => {
                if self.tag.valid.val() {
                    self.tag.ready.next = true;
                    self.set_tag.valid.next = true;
                    self.read_tag.d.next = self.tag.tag.val();
                    self.state.d.next = RequestState::Issue;
                }
            }
            RequestState::Issue => {
                self.read.valid.next = true;
                if self.read.ready.val() {
                    self.state.d.next = RequestState::Idle;
                    if self.split.q.val() & !self.second.q.val() {
                        self.second.d.next = true;
                        self.state.d.next = RequestState::Alloc;
                    }
                }
            }
        }
        if self.reset.val() {
            self.state.d.next = RequestState::Idle;
            self.doorbell.ready.next = false;
            self.lookup.valid.next = false;
            self.tag.ready.next = false;
            self.read.valid.next = false;
            self.open.valid.next = false;
            self.set_tag.valid.next = false;
        }
    }
}

#[test]
fn descriptor_request_is_synthesizable() {
    let mut uut = DescriptorRequest::new(512);
    uut.connect_all();
    yosys_validate("descriptor_request", &generate_verilog(&uut)).unwrap();
}
