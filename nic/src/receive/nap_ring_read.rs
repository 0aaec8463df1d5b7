//! `NapRingRead`: the [`BufferManager`](super::buffer_manager::BufferManager)'s refill
//! sequence for one (function, QP) at a time: QP lookup, tag, the 8-byte read of the NAP-buffer
//! ring entry at the ring's consumer pointer.
//!
//! **Sequence**: in `Idle` the manager's `start` request (an entry and its function and QP) is
//! shown to the function table as the lookup itself, so the lookup is taken on the edge
//! `start` is taken (`start_ready` = `lookup.ready`). In the answer's cycle (`Answer`): a QP
//! that does not exist or is disabled, or a ring with nothing posted (producer == consumer,
//! 16-bit free-running pointers), ends the sequence with `empty`; otherwise the read is formed
//! (address `base + (consumer mod 2^size) x 8`, the base's low 3 bits ignored; 8 bytes, which
//! never cross a 16-byte beat nor a 4 KB page) and a tag of owner `NAP_BUFFER_OWNER` is taken
//! in that same cycle if the pool offers one (else `Tag` waits for one). `Request` offers the
//! read until the host takes it; on that edge `posted` pulses with the read's tag, the ring
//! index (`consumer mod 2^size`, reported in the receive event's `info`) and the entry's lane
//! in the completion beat (address bit 3), and the block is idle again.
//!
//! **Latency**: 3 cycles per refill with the table, the pool and the host ready (lookup,
//! answer + tag, request); one refill at a time. `busy` is high outside `Idle`.
//!
//! **Reset** (synchronous): back to `Idle`; a tag taken and not yet used is forgotten with
//! the pool's own reset (the whole NIC resets together).
use crate::function_table::QpLookupSource;
use crate::host::{ReadRequestSource, READ_BYTES_BITS, TAG_BITS};
use crate::regs::RING_POINTER_BITS;
use crate::tag_pool::{TagAllocSink, NAP_BUFFER_OWNER, OWNER_BITS};
use hdl::formats::nic::{ADDRESS_BITS, FUNCTION_BITS, QP_BITS};
use rust_hdl::prelude::*;

/// Where the refill sequence is.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum RingReadState {
    /// Waiting for a start (shown to the table as the lookup).
    Idle,
    /// The lookup was taken; its answer comes in this cycle.
    Answer,
    /// An entry is posted; waiting for a tag.
    Tag,
    /// The read is offered to the host.
    Request,
}

/// The refill sequence; see the module documentation.
#[derive(LogicBlock)]
pub struct NapRingRead<const EAW: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// A refill is asked for (held until `start_ready`).
    pub start_valid: Signal<In, bool>,
    /// The manager's entry index of the (function, QP).
    pub start_entry: Signal<In, Bits<EAW>>,
    /// Its function.
    pub start_function: Signal<In, Bits<FUNCTION_BITS>>,
    /// Its QP.
    pub start_qp: Signal<In, Bits<QP_BITS>>,
    /// The start (and its lookup) is taken on this edge.
    pub start_ready: Signal<Out, bool>,
    /// A refill is under way (not `Idle`).
    pub busy: Signal<Out, bool>,
    /// The entry being refilled (while `busy`).
    pub serving: Signal<Out, Bits<EAW>>,
    /// The lookup's answer showed nothing posted (or the QP unusable): the refill ends.
    pub empty: Signal<Out, bool>,
    /// The read was taken by the host on this edge: the refill ends with a read in flight.
    pub posted: Signal<Out, bool>,
    /// With `posted`: the ring index of the entry read.
    pub posted_index: Signal<Out, Bits<RING_POINTER_BITS>>,
    /// With `posted`: the entry is in the upper half of its completion beat.
    pub posted_lane: Signal<Out, bool>,
    /// QP lookups.
    pub lookup: QpLookupSource,
    /// Tag allocation.
    pub tag: TagAllocSink,
    /// The ring entry's read.
    pub read: ReadRequestSource,
    state: DFF<RingReadState>,
    entry: DFF<Bits<EAW>>,
    held_function: DFF<Bits<FUNCTION_BITS>>,
    address: DFF<Bits<ADDRESS_BITS>>,
    index: DFF<Bits<RING_POINTER_BITS>>,
    read_tag: DFF<Bits<TAG_BITS>>,
    // The answer's ring arithmetic.
    entries: Signal<Local, Bits<RING_POINTER_BITS>>,
    ring_index: Signal<Local, Bits<RING_POINTER_BITS>>,
    entry_address: Signal<Local, Bits<ADDRESS_BITS>>,
    posted_ring: Signal<Local, bool>,
    /// The lookup's fields this block does not need, acknowledged for Verilator's lint.
    lookup_unused: Signal<Local, bool>,
    one_entry: Constant<Bits<RING_POINTER_BITS>>,
    entry_shift: Constant<Bits<ADDRESS_BITS>>,
    entry_mask: Constant<Bits<ADDRESS_BITS>>,
    read_bytes: Constant<Bits<READ_BYTES_BITS>>,
    owner: Constant<Bits<OWNER_BITS>>,
}

impl<const EAW: usize> Default for NapRingRead<EAW> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start_valid: Default::default(),
            start_entry: Default::default(),
            start_function: Default::default(),
            start_qp: Default::default(),
            start_ready: Default::default(),
            busy: Default::default(),
            serving: Default::default(),
            empty: Default::default(),
            posted: Default::default(),
            posted_index: Default::default(),
            posted_lane: Default::default(),
            lookup: Default::default(),
            tag: Default::default(),
            read: Default::default(),
            state: Default::default(),
            entry: Default::default(),
            held_function: Default::default(),
            address: Default::default(),
            index: Default::default(),
            read_tag: Default::default(),
            entries: Default::default(),
            ring_index: Default::default(),
            entry_address: Default::default(),
            posted_ring: Default::default(),
            lookup_unused: Default::default(),
            one_entry: Constant::new(1usize.to_bits()),
            entry_shift: Constant::new(3usize.to_bits()),
            entry_mask: Constant::new(7usize.to_bits()),
            read_bytes: Constant::new(8usize.to_bits()),
            owner: Constant::new(NAP_BUFFER_OWNER.to_bits()),
        }
    }
}

impl<const EAW: usize> Logic for NapRingRead<EAW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            entry,
            held_function,
            address,
            index,
            read_tag
        );
        self.entries.next = self.one_entry.val() << self.lookup.nap_size.val();
        self.ring_index.next =
            self.lookup.nap_consumer.val() & (self.entries.val() - self.one_entry.val());
        self.entry_address.next = (self.lookup.nap_base.val() & !self.entry_mask.val())
            + (bit_cast::<ADDRESS_BITS, RING_POINTER_BITS>(self.ring_index.val())
                << self.entry_shift.val());
        self.posted_ring.next = self.lookup.owned.val()
            & self.lookup.function_enabled.val()
            & self.lookup.qp_enabled.val()
            & (self.lookup.nap_producer.val() != self.lookup.nap_consumer.val());
        self.lookup_unused.next = self.lookup.key.val().any()
            | self.lookup.interrupt.val()
            | self.lookup.send_base.val().any()
            | self.lookup.send_size.val().any()
            | self.lookup.send_producer.val().any()
            | self.lookup.send_consumer.val().any()
            | self.lookup.receive_base.val().any()
            | self.lookup.receive_size.val().any()
            | self.lookup.receive_producer.val().any()
            | self.lookup.receive_consumer.val().any();
        self.busy.next = self.state.q.val() != RingReadState::Idle;
        self.serving.next = self.entry.q.val();
        self.lookup.valid.next = false;
        self.lookup.function.next = self.start_function.val();
        self.lookup.qp.next = self.start_qp.val();
        self.start_ready.next = false;
        self.tag.ready.next = false;
        self.tag.owner.next = self.owner.val();
        self.read.valid.next = false;
        self.read.function.next = self.held_function.q.val();
        self.read.address.next = self.address.q.val();
        self.read.bytes.next = self.read_bytes.val();
        self.read.tag.next = self.read_tag.q.val();
        self.empty.next = false;
        self.posted.next = false;
        self.posted_index.next = self.index.q.val();
        self.posted_lane.next = self.address.q.val().get_bit(3);
        match self.state.q.val() {
            RingReadState::Idle => {
                self.lookup.valid.next = self.start_valid.val();
                self.start_ready.next = self.lookup.ready.val();
                if self.start_valid.val() & self.lookup.ready.val() {
                    self.entry.d.next = self.start_entry.val();
                    self.held_function.d.next = self.start_function.val();
                    self.state.d.next = RingReadState::Answer;
                }
            }
            RingReadState::Answer => {
                if self.lookup.answered.val() {
                    if self.posted_ring.val() {
                        self.address.d.next = self.entry_address.val();
                        self.index.d.next = self.ring_index.val();
                        self.tag.ready.next = true;
                        self.read_tag.d.next = self.tag.tag.val();
                        if self.tag.valid.val() {
                            self.state.d.next = RingReadState::Request;
                        } else {
                            self.state.d.next = RingReadState::Tag;
                        }
                    } else {
                        self.empty.next = true;
                        self.state.d.next = RingReadState::Idle;
                    }
                }
            }
            RingReadState::Tag => {
                self.tag.ready.next = true;
                self.read_tag.d.next = self.tag.tag.val();
                if self.tag.valid.val() {
                    self.state.d.next = RingReadState::Request;
                }
            }
            RingReadState::Request => {
                self.read.valid.next = true;
                if self.read.ready.val() {
                    self.posted.next = true;
                    self.state.d.next = RingReadState::Idle;
                }
            }
        }
        if self.reset.val() {
            self.state.d.next = RingReadState::Idle;
            self.lookup.valid.next = false;
            self.start_ready.next = false;
            self.tag.ready.next = false;
            self.read.valid.next = false;
            self.empty.next = false;
            self.posted.next = false;
        }
    }
}

#[test]
fn nap_ring_read_is_synthesizable() {
    let mut uut = NapRingRead::<5>::default();
    uut.connect_all();
    yosys_validate("nap_ring_read", &generate_verilog(&uut)).unwrap();
}
