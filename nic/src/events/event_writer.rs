//! `EventWriter`: writes completion events into their QPs' rings in host memory, one 16-byte
//! write each, with ring flow control: an event is written only while its ring has an entry
//! software has consumed, so an unconsumed event is never overwritten.
//!
//! **Sequence** (states): `Idle` shows the [`EventSelect`]'s choice to the function table
//! (`lookup` of its function and QP) and locks it when the lookup is taken; `Answer` (the
//! table answers one cycle later) decides, and `Write` offers the beat:
//! - the function or QP does not exist (`owned` low) or is disabled: the request is taken and
//!   discarded, `dropped` pulses (nothing is written: a disabled QP's rings are not valid);
//! - the ring is full (the NIC's producer minus software's consumer, 16-bit free-running, is
//!   at least `2^size`): the request is passed over, not taken (it stays with its requester,
//!   which waits: back pressure), `ring_full` pulses, and the other requesters go first;
//! - otherwise the request is taken and its event written at entry `producer mod 2^size` of
//!   the ring (`base` with its low 4 bits ignored, plus 16 bytes per entry) with the phase bit
//!   of the pass (`1` on even passes of the producer, as `RingDriver::phase_of`): one beat,
//!   every byte enabled, `last`, the ring's function as requester. When the host takes the
//!   beat the ring's pointer is advanced (`advance`, the same edge, so a lookup in the next
//!   cycle sees it) and, if the QP's interrupts are on, an interrupt (function, vector = QP)
//!   is raised.
//!
//! **Interrupts**: one message register. A beat whose QP wants an interrupt waits while a
//! message for another (function, vector) is not yet taken by the host; one for the same
//! pair is coalesced (the driver reads the whole ring on an interrupt).
//!
//! **Throughput**: 3 cycles per event (lookup, answer, beat) with the host always ready.
//! A requester whose ring stays full (software stopped consuming, or wrote a consumer ahead
//! of the producer) waits; the others are served in between, each pass-over costing 2 cycles.
//!
//! **Reset** (synchronous): `Idle`, no beat and no interrupt pending (nothing is offered in a
//! reset cycle); a request being looked at is left with its requester.
use super::{EventPack, EventRequestSink, EventSelect};
use crate::function_table::{PointerAdvanceSource, QpLookupSource, RING_BITS};
use crate::host::{InterruptSource, WriteBeatSource, HOST_BEAT_BYTES};
use crate::regs::{Ring, RING_POINTER_BITS, RING_SIZE_BITS};
use hdl::formats::nic::{ADDRESS_BITS, FUNCTION_BITS, QP_BITS};
use rust_hdl::prelude::*;

use super::EVENT_BITS;

/// Where the writer is.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
enum WriterState {
    /// Showing the chosen request to the lookup.
    Idle,
    /// The lookup's answer arrives.
    Answer,
    /// The event's beat is offered.
    Write,
}

/// The event writer; see the module documentation.
#[derive(LogicBlock)]
pub struct EventWriter<const N: usize, const W: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The requesters (served by [`EventSelect`]'s round robin with pass-over).
    pub requests: [EventRequestSink; N],
    /// The function table's QP lookup.
    pub lookup: QpLookupSource,
    /// Event writes to host memory.
    pub write: WriteBeatSource,
    /// The rings' pointer advances.
    pub advance: PointerAdvanceSource,
    /// Interrupts to the host.
    pub interrupt: InterruptSource,
    /// Pulse: an event for a missing or disabled function or QP was discarded.
    pub dropped: Signal<Out, bool>,
    /// Pulse: an event was passed over because its ring is full.
    pub ring_full: Signal<Out, bool>,
    select: EventSelect<N, W>,
    pack: EventPack,
    state: DFF<WriterState>,
    beat_function: DFF<Bits<FUNCTION_BITS>>,
    beat_address: DFF<Bits<ADDRESS_BITS>>,
    beat_data: DFF<Bits<EVENT_BITS>>,
    beat_qp: DFF<Bits<QP_BITS>>,
    beat_receive: DFF<bool>,
    beat_interrupt: DFF<bool>,
    interrupt_pending: DFF<bool>,
    interrupt_function: DFF<Bits<FUNCTION_BITS>>,
    interrupt_vector: DFF<Bits<QP_BITS>>,
    // The chosen request's ring, from the lookup's answer.
    ring_base: Signal<Local, Bits<ADDRESS_BITS>>,
    ring_size: Signal<Local, Bits<RING_SIZE_BITS>>,
    producer: Signal<Local, Bits<RING_POINTER_BITS>>,
    consumer: Signal<Local, Bits<RING_POINTER_BITS>>,
    entries: Signal<Local, Bits<RING_POINTER_BITS>>,
    room: Signal<Local, bool>,
    usable: Signal<Local, bool>,
    entry_offset: Signal<Local, Bits<ADDRESS_BITS>>,
    /// The producer's pass over the ring (its bit 0 is the phase's opposite).
    pass: Signal<Local, Bits<RING_POINTER_BITS>>,
    /// The beat may be offered: no interrupt wanted, or the message register can hold it.
    interrupt_free: Signal<Local, bool>,
    /// The lookup's fields this block does not need, acknowledged for Verilator's lint.
    lookup_unused: Signal<Local, bool>,
    one_entry: Constant<Bits<RING_POINTER_BITS>>,
    entry_shift: Constant<Bits<ADDRESS_BITS>>,
    beat_mask: Constant<Bits<ADDRESS_BITS>>,
    all_bytes: Constant<Bits<HOST_BEAT_BYTES>>,
    send_ring: Constant<Bits<RING_BITS>>,
    receive_ring: Constant<Bits<RING_BITS>>,
}

impl<const N: usize, const W: usize> Default for EventWriter<N, W> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            requests: std::array::from_fn(|_| Default::default()),
            lookup: Default::default(),
            write: Default::default(),
            advance: Default::default(),
            interrupt: Default::default(),
            dropped: Default::default(),
            ring_full: Default::default(),
            select: Default::default(),
            pack: Default::default(),
            state: Default::default(),
            beat_function: Default::default(),
            beat_address: Default::default(),
            beat_data: Default::default(),
            beat_qp: Default::default(),
            beat_receive: Default::default(),
            beat_interrupt: Default::default(),
            interrupt_pending: Default::default(),
            interrupt_function: Default::default(),
            interrupt_vector: Default::default(),
            ring_base: Default::default(),
            ring_size: Default::default(),
            producer: Default::default(),
            consumer: Default::default(),
            entries: Default::default(),
            room: Default::default(),
            usable: Default::default(),
            entry_offset: Default::default(),
            pass: Default::default(),
            interrupt_free: Default::default(),
            lookup_unused: Default::default(),
            one_entry: Constant::new(1usize.to_bits()),
            entry_shift: Constant::new(4usize.to_bits()),
            beat_mask: Constant::new(15usize.to_bits()),
            all_bytes: Constant::new(((1usize << HOST_BEAT_BYTES) - 1).to_bits()),
            send_ring: Constant::new((Ring::SendCompletion.code() as usize).to_bits()),
            receive_ring: Constant::new((Ring::ReceiveCompletion.code() as usize).to_bits()),
        }
    }
}

impl<const N: usize, const W: usize> Logic for EventWriter<N, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            beat_function,
            beat_address,
            beat_data,
            beat_qp,
            beat_receive,
            beat_interrupt,
            interrupt_pending,
            interrupt_function,
            interrupt_vector
        );
        clock!(self, clock, select);
        self.select.reset.next = self.reset.val();
        for i in 0..N {
            EventRequestSink::link(&mut self.requests[i], &mut self.select.requests[i]);
        }
        // The chosen request's ring and whether it has room.
        self.ring_base.next = self.lookup.send_base.val();
        self.ring_size.next = self.lookup.send_size.val();
        self.producer.next = self.lookup.send_producer.val();
        self.consumer.next = self.lookup.send_consumer.val();
        if self.select.chosen.receive_ring.val() {
            self.ring_base.next = self.lookup.receive_base.val();
            self.ring_size.next = self.lookup.receive_size.val();
            self.producer.next = self.lookup.receive_producer.val();
            self.consumer.next = self.lookup.receive_consumer.val();
        }
        self.entries.next = self.one_entry.val() << self.ring_size.val();
        self.room.next = (self.producer.val() - self.consumer.val()) < self.entries.val();
        self.usable.next = self.lookup.owned.val()
            & self.lookup.function_enabled.val()
            & self.lookup.qp_enabled.val();
        self.entry_offset.next = bit_cast::<ADDRESS_BITS, RING_POINTER_BITS>(
            self.producer.val() & (self.entries.val() - self.one_entry.val()),
        ) << self.entry_shift.val();
        self.lookup_unused.next = self.lookup.key.val().any()
            | self.lookup.nap_base.val().any()
            | self.lookup.nap_size.val().any()
            | self.lookup.nap_producer.val().any()
            | self.lookup.nap_consumer.val().any();
        // The event's bytes, with the phase of the producer's pass.
        self.pack.kind.next = self.select.chosen.kind.val();
        self.pack.status.next = self.select.chosen.status.val();
        self.pack.op.next = self.select.chosen.op.val();
        self.pack.qp.next = self.select.chosen.qp.val();
        self.pack.peer_node.next = self.select.chosen.peer_node.val();
        self.pack.peer_function.next = self.select.chosen.peer_function.val();
        self.pack.peer_qp.next = self.select.chosen.peer_qp.val();
        self.pack.length.next = self.select.chosen.length.val();
        self.pack.info.next = self.select.chosen.info.val();
        self.pass.next = self.producer.val() >> self.ring_size.val();
        self.pack.phase.next = !self.pass.val().get_bit(0);
        // Outputs held by registers.
        self.write.valid.next = false;
        self.write.function.next = self.beat_function.q.val();
        self.write.address.next = self.beat_address.q.val();
        self.write.data.next = self.beat_data.q.val();
        self.write.enables.next = self.all_bytes.val();
        self.write.last.next = true;
        self.advance.valid.next = false;
        self.advance.function.next = self.beat_function.q.val();
        self.advance.qp.next = self.beat_qp.q.val();
        self.advance.ring.next = self.send_ring.val();
        if self.beat_receive.q.val() {
            self.advance.ring.next = self.receive_ring.val();
        }
        self.interrupt.valid.next = self.interrupt_pending.q.val();
        self.interrupt.function.next = self.interrupt_function.q.val();
        self.interrupt.vector.next = self.interrupt_vector.q.val();
        if self.interrupt.ready.val() & self.interrupt_pending.q.val() {
            self.interrupt_pending.d.next = false;
        }
        self.interrupt_free.next = !self.beat_interrupt.q.val()
            | !self.interrupt_pending.q.val()
            | self.interrupt.ready.val()
            | ((self.interrupt_function.q.val() == self.beat_function.q.val())
                & (self.interrupt_vector.q.val() == self.beat_qp.q.val()));
        self.lookup.valid.next = false;
        self.lookup.function.next = self.select.chosen.function.val();
        self.lookup.qp.next = self.select.chosen.qp.val();
        self.select.lock.next = false;
        self.select.finish.next = false;
        self.select.chosen.ready.next = false;
        self.dropped.next = false;
        self.ring_full.next = false;
        match self.state.q.val() {
            WriterState::Idle => {
                self.lookup.valid.next = self.select.chosen.valid.val();
                if self.select.chosen.valid.val() & self.lookup.ready.val() {
                    self.select.lock.next = true;
                    self.state.d.next = WriterState::Answer;
                }
            }
            WriterState::Answer => {
                if self.lookup.answered.val() {
                    self.state.d.next = WriterState::Idle;
                    self.select.finish.next = true;
                    if !self.usable.val() {
                        self.select.chosen.ready.next = true;
                        self.dropped.next = true;
                    } else if !self.room.val() {
                        self.ring_full.next = true;
                    } else {
                        self.select.chosen.ready.next = true;
                        self.beat_function.d.next = self.select.chosen.function.val();
                        self.beat_address.d.next = (self.ring_base.val() & !self.beat_mask.val())
                            + self.entry_offset.val();
                        self.beat_data.d.next = self.pack.bytes.val();
                        self.beat_qp.d.next = self.select.chosen.qp.val();
                        self.beat_receive.d.next = self.select.chosen.receive_ring.val();
                        self.beat_interrupt.d.next = self.lookup.interrupt.val();
                        self.state.d.next = WriterState::Write;
                    }
                }
            }
            WriterState::Write => {
                self.write.valid.next = self.interrupt_free.val();
                if self.interrupt_free.val() & self.write.ready.val() {
                    self.advance.valid.next = true;
                    if self.beat_interrupt.q.val() {
                        self.interrupt_pending.d.next = true;
                        self.interrupt_function.d.next = self.beat_function.q.val();
                        self.interrupt_vector.d.next = self.beat_qp.q.val();
                    }
                    self.state.d.next = WriterState::Idle;
                }
            }
        }
        if self.reset.val() {
            self.state.d.next = WriterState::Idle;
            self.interrupt_pending.d.next = false;
            self.interrupt.valid.next = false;
            self.write.valid.next = false;
            self.advance.valid.next = false;
            self.lookup.valid.next = false;
            self.select.lock.next = false;
            self.select.finish.next = false;
            self.select.chosen.ready.next = false;
            self.dropped.next = false;
            self.ring_full.next = false;
        }
    }
}

#[test]
fn event_writer_is_synthesizable() {
    let mut uut = EventWriter::<3, 2>::default();
    uut.connect_all();
    yosys_validate("event_writer", &generate_verilog(&uut)).unwrap();
}
