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
use super::doorbell_verdict::DoorbellVerdict;
use super::slots::{SlotOpenSource, SlotTagSource};
use super::SLOT_BEAT_BITS;
use crate::doorbell::{DoorbellSink, DOORBELL_BITS};
use crate::function_table::QpLookupSource;
use crate::host::{ReadRequestSource, READ_BYTES_BITS, TAG_BITS};
use crate::tag_pool::{TagAllocSink, OWNER_BITS};
use hdl::formats::nic::{ADDRESS_BITS, FUNCTION_BITS, QP_BITS};
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
    /// The held doorbell's reads and verdict.
    plan: DoorbellVerdict,
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
            plan: DoorbellVerdict::new(max_read_request),
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
        // The held doorbell's fields, the reads it needs and its verdict (DoorbellVerdict).
        self.plan.word.next = self.word.q.val();
        self.plan.owned.next = self.lookup.owned.val();
        self.plan.function_enabled.next = self.lookup.function_enabled.val();
        self.plan.qp_enabled.next = self.lookup.qp_enabled.val();
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
        self.read.address.next = self.plan.address.val();
        self.read.bytes.next = self.first_bytes.q.val();
        self.read.tag.next = self.read_tag.q.val();
        if self.second.q.val() {
            self.read.address.next = self.boundary.q.val();
            self.read.bytes.next = self.second_bytes.q.val();
        }
        self.open.valid.next = false;
        self.open.function.next = self.issuer.q.val();
        self.open.qp.next = self.word.q.val().get_bits::<QP_BITS>(0);
        self.open.words.next = self.plan.words.val();
        self.open.offset.next = self.plan.address.val().get_bit(3);
        self.open.status.next = self.plan.verdict.val();
        self.open.read.next = !self.plan.verdict.val().any();
        self.open.second.next = !self.plan.verdict.val().any() & self.plan.crosses.val();
        self.open.base.next = self.plan.first_extent.val().get_bits::<SLOT_BEAT_BITS>(4);
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
                    self.split.d.next = self.plan.crosses.val();
                    self.boundary.d.next = self.plan.next_boundary.val();
                    self.first_bytes.d.next =
                        self.plan.first_span.val().get_bits::<READ_BYTES_BITS>(0);
                    self.second_bytes.d.next =
                        self.plan.second_span.val().get_bits::<READ_BYTES_BITS>(0);
                    self.state.d.next = RequestState::Idle;
                    if !self.plan.verdict.val().any() {
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
