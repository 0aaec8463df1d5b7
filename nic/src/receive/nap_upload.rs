//! `NapUpload`: checked NAP packets into 2 KB NAP buffers (`docs/nic-design.md`, "Receive
//! engine (part 4)", rule **NAP**, and "NAP upload").
//!
//! ```text
//! packets ─► head: NapTable (key → entry) ─► NapVerdict ─┬─► take (BufferManager) ─┐
//!             │                                          │                         ▼
//!             │  words (address = buffer + nap_offset) ──┴──────────────► BeatAssembler ─► writes
//!             ├─► NapEvent (pending → offer, released by the last beat) ─► events
//!             └─► ErrorEventSlot (NoBuffer, AssemblyFull; NapIncomplete of expired entries) ─► errors
//! ```
//!
//! **The head.** A packet's first word waits at the head until its verdict acts
//! ([`NapVerdict`]); the packet's key (source node, function, QP, target function, QP) is
//! looked up in the open-message table ([`NapTable`], `nic.nap_open` entries):
//! - **append** (a hit): written at the entry's buffer + `nap_offset`; the entry's bytes
//!   received grow by `bytes`; when they reach the length the entry is freed and the receive
//!   event captured (this waits while the event register is busy).
//! - **single** (a miss, offset 0, `bytes` = length: the 8-byte NAP-immediate fast path): a
//!   buffer is taken (the take is offered while the event register is free and held until
//!   `done`), the packet written at its start, the event captured; no entry.
//! - **open** (a miss of a multi-packet message, an entry free): a buffer taken, an entry
//!   opened with it, the packet written at buffer + offset.
//! - The take answers "none": the message is dropped, `no_buffer` pulses and a `NoBuffer`
//!   error event is posted; for a multi-packet message the entry is opened as **discarding**,
//!   so the rest of the message is swallowed silently (one event per message) and the entry is
//!   freed when its bytes are all in (or by its timeout, silently: it has no buffer).
//! - **full** (no entry free): the packet is dropped, `assembly_full` pulses, an
//!   `AssemblyFull` event is posted (one per packet: there is no entry to remember the message
//!   by; a later packet of it that finds an entry free opens one, and that entry ends by its
//!   timeout with `NapIncomplete`).
//! - **overrun** (the length differs from the entry's, `offset + bytes` passes the length,
//!   or the bytes received would): the packet is dropped, `overrun` pulses, the entry keeps
//!   its state. The receive buffer's format check already refuses `offset + bytes > length`;
//!   a duplicated packet that still fits is not detected (the message's event then comes
//!   early, and its missing packet later opens an entry that ends by timeout).
//!
//! **Timeouts.** An entry untouched for more than `nic.nap_timeout` cycles (at most 1.25 x
//! that, [`NapTable`]'s coarse timers) is freed, `incomplete` pulses, and if it has a buffer a
//! `NapIncomplete` error event names it (`info` = the ring index, `length` = the bytes received;
//! software takes the buffer back). An entry is touched while a packet of it waits at the head
//! or is written, so a stalled write never expires its own message.
//!
//! **Events.** Receive events ([`NapEvent`]): kind Receive, op NAP, status Ok, peer = the
//! source, `length` = the message's bytes, `info` = the buffer's ring index, on the target
//! QP's receive ring, offered after the host took the message's last write beat, held until
//! the event writer takes it (back pressure, never dropped). Error events (kind Error, op NAP,
//! peer = the source, `length` = the packet's bytes, `info` 0, or the ring index and bytes
//! received for `NapIncomplete`) go through an `ErrorEventSlot` ([`NapErrorPost`]) that never stalls the
//! packets: a `NoBuffer` or `AssemblyFull` posted while the slot is full is not posted and
//! `event_lost` pulses (it names no buffer: only a counter is lost). A `NapIncomplete` waits
//! for the slot to be empty (and for no packet's post in that cycle) before its entry is freed,
//! so an event naming a buffer is never lost.
//!
//! **Writes** ([`BeatAssembler`], shared with `PutUpload`): 16-byte beats with byte enables,
//! cut at `max_payload`; a NAP buffer is 2 KB aligned and a message at most 2 KB, so no write
//! crosses 4 KB. The writer is the packet's `dst_function`.
//!
//! Handshake: `packets` ([`ReceivedPacketSink`], NAP packets only; `kind`, `delay`,
//! `address`, `event`, `message_last`, `get_response` are not looked at) is taken at the
//! head when the verdict acts (a written packet's word when the assembler takes it, a dropped
//! packet's at once), then one word per cycle the assembler takes (or every cycle for a
//! dropped packet). `take` ([`NapTakeSource`]) is held until `done`. `writes`, `events` and
//! `errors` come from registers (hold rule).
//!
//! Rate: a single-packet message takes 2 cycles with a warm buffer manager (its take in the
//! first, the answer and the word in the second), the buffer manager's own best of one take
//! per 2 cycles; a packet that hits an open entry starts in the cycle it arrives; then one
//! word per cycle.
//!
//! Reset (synchronous): the table emptied, the packet in progress, the beats and events not
//! yet taken dropped (the buffer manager, the host and the event writer reset with it).
use super::beat_assembler::BeatAssembler;
use super::buffer_manager::{NapTakeSource, BUFFER_ADDRESS_BITS};
use super::nap_error_post::NapErrorPost;
use super::nap_event::NapEvent;
use super::nap_table::{NapTable, NAP_INDEX_BITS};
use super::nap_verdict::NapVerdict;
use super::{ReceivedPacketSink, DELAY_BITS, PACKET_KIND_BITS};
use crate::events::EventRequestSource;
use crate::host::WriteBeatSource;
use hdl::formats::nic::ADDRESS_BITS;
use rust_hdl::prelude::*;

/// Where the upload is in a packet.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum NapState {
    /// A packet's first word (its head) waits for its verdict to act.
    Head,
    /// The packet's words go to the assembler.
    Flow,
    /// The packet's words are dropped.
    Swallow,
}

/// The NAP upload; see the module documentation.
#[derive(LogicBlock)]
pub struct NapUpload {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Checked NAP packets from the dispatch.
    pub packets: ReceivedPacketSink,
    /// Buffer takes, to the buffer manager.
    pub take: NapTakeSource,
    /// Posted writes to the write arbiter.
    pub writes: WriteBeatSource,
    /// Receive events to the event writer.
    pub events: EventRequestSource,
    /// Error events to the event writer.
    pub errors: EventRequestSource,
    /// Pulse: a message is complete (its receive event captured).
    pub delivered: Signal<Out, bool>,
    /// Pulse: a message is dropped, its take found no buffer (`NoBuffer`).
    pub no_buffer: Signal<Out, bool>,
    /// Pulse: a packet is dropped, every open-message entry busy (`AssemblyFull`).
    pub assembly_full: Signal<Out, bool>,
    /// Pulse: an open message is freed by its timeout (`NapIncomplete` if it had a buffer).
    pub incomplete: Signal<Out, bool>,
    /// Pulse: a packet that would overrun its message is dropped.
    pub overrun: Signal<Out, bool>,
    /// Pulse: an error event found the slot full and is not posted.
    pub event_lost: Signal<Out, bool>,
    assembler: BeatAssembler,
    open_messages: NapTable,
    verdict: NapVerdict,
    receive_event: NapEvent,
    error_post: NapErrorPost,
    state: DFF<NapState>,
    /// Address of the packet's first byte while its first word waits in `Flow`.
    flow_address: DFF<Bits<ADDRESS_BITS>>,
    /// The packet in `Flow` completes its message.
    flow_mark: DFF<bool>,
    /// The packet in `Flow` or `Swallow` belongs to entry `held_entry` (kept from expiring).
    holding: DFF<bool>,
    held_entry: DFF<Bits<NAP_INDEX_BITS>>,
    // Combinational.
    at_head: Signal<Local, bool>,
    head_address: Signal<Local, Bits<ADDRESS_BITS>>,
    take_buffer: Signal<Local, Bits<BUFFER_ADDRESS_BITS>>,
    word_taken: Signal<Local, bool>,
    unused_kind: Signal<Local, Bits<PACKET_KIND_BITS>>,
    unused_delay: Signal<Local, Bits<DELAY_BITS>>,
    unused_address: Signal<Local, Bits<ADDRESS_BITS>>,
    unused_event: Signal<Local, bool>,
    unused_message_last: Signal<Local, bool>,
    unused_get_response: Signal<Local, bool>,
}

impl NapUpload {
    /// The upload with `open` open-message entries (1..=32), entries expiring after `timeout`
    /// idle cycles (a power of two, 16..=2^24; see [`NapTable`]), writes cut at `max_payload`
    /// bytes (a power of two, 64..=4096).
    pub fn new(open: usize, timeout: usize, max_payload: usize) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            packets: Default::default(),
            take: Default::default(),
            writes: Default::default(),
            events: Default::default(),
            errors: Default::default(),
            delivered: Default::default(),
            no_buffer: Default::default(),
            assembly_full: Default::default(),
            incomplete: Default::default(),
            overrun: Default::default(),
            event_lost: Default::default(),
            assembler: BeatAssembler::new(max_payload),
            open_messages: NapTable::new(open, timeout),
            verdict: Default::default(),
            receive_event: Default::default(),
            error_post: Default::default(),
            state: Default::default(),
            flow_address: Default::default(),
            flow_mark: Default::default(),
            holding: Default::default(),
            held_entry: Default::default(),
            at_head: Default::default(),
            head_address: Default::default(),
            take_buffer: Default::default(),
            word_taken: Default::default(),
            unused_kind: Default::default(),
            unused_delay: Default::default(),
            unused_address: Default::default(),
            unused_event: Default::default(),
            unused_message_last: Default::default(),
            unused_get_response: Default::default(),
        }
    }
}

impl Logic for NapUpload {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            flow_address,
            flow_mark,
            holding,
            held_entry
        );
        clock!(
            self,
            clock,
            assembler,
            open_messages,
            receive_event,
            error_post
        );
        self.assembler.reset.next = self.reset.val();
        self.open_messages.reset.next = self.reset.val();
        self.receive_event.reset.next = self.reset.val();
        self.error_post.reset.next = self.reset.val();
        WriteBeatSource::link(&mut self.writes, &mut self.assembler.writes);
        EventRequestSource::link(&mut self.events, &mut self.receive_event.events);
        EventRequestSource::link(&mut self.errors, &mut self.error_post.errors);
        self.unused_kind.next = self.packets.kind.val();
        self.unused_delay.next = self.packets.delay.val();
        self.unused_address.next = self.packets.address.val();
        self.unused_event.next = self.packets.event.val();
        self.unused_message_last.next = self.packets.message_last.val();
        self.unused_get_response.next = self.packets.get_response.val();
        // The head's key, looked up; its verdict.
        self.open_messages.src_node.next = self.packets.src_node.val();
        self.open_messages.src_function.next = self.packets.src_function.val();
        self.open_messages.src_qp.next = self.packets.src_qp.val();
        self.open_messages.dst_function.next = self.packets.dst_function.val();
        self.open_messages.dst_qp.next = self.packets.dst_qp.val();
        self.verdict.nap_offset.next = self.packets.nap_offset.val();
        self.verdict.nap_length.next = self.packets.nap_length.val();
        self.verdict.bytes.next = self.packets.bytes.val();
        self.verdict.hit.next = self.open_messages.hit.val();
        self.verdict.hit_discarding.next = self.open_messages.hit_discarding.val();
        self.verdict.hit_received.next = self.open_messages.hit_received.val();
        self.verdict.hit_length.next = self.open_messages.hit_length.val();
        self.verdict.any_free.next = self.open_messages.any_free.val();
        self.at_head.next = (self.state.q.val() == NapState::Head) & self.packets.valid.val();
        self.verdict.at_head.next = self.at_head.val();
        self.verdict.event_busy.next = self.receive_event.busy.val();
        self.verdict.take_done.next = self.take.done.val();
        self.verdict.take_found.next = self.take.found.val();
        // The take: a message that completes waits for the event register first.
        self.take.valid.next = self.verdict.wants_take.val();
        self.take.function.next = self.packets.dst_function.val();
        self.take.qp.next = self.packets.dst_qp.val();
        self.take_buffer.next = self.take.address.val().get_bits::<BUFFER_ADDRESS_BITS>(11);
        self.head_address.next =
            (bit_cast::<ADDRESS_BITS, BUFFER_ADDRESS_BITS>(self.open_messages.hit_buffer.val())
                << 11)
                | bit_cast::<ADDRESS_BITS, 11>(self.packets.nap_offset.val());
        if !self.verdict.append.val() {
            self.head_address.next = self.take.address.val()
                | bit_cast::<ADDRESS_BITS, 11>(self.packets.nap_offset.val());
        }
        // The words: the head's when a written packet's verdict acts, then the packet's.
        self.assembler.words.valid.next = (self.verdict.act.val() & self.verdict.written.val())
            | ((self.state.q.val() == NapState::Flow) & self.packets.valid.val());
        self.assembler.words.function.next = self.packets.dst_function.val();
        self.assembler.words.address.next = self.flow_address.q.val();
        self.assembler.words.mark.next = self.flow_mark.q.val();
        if self.state.q.val() == NapState::Head {
            self.assembler.words.address.next = self.head_address.val();
            self.assembler.words.mark.next = self.verdict.mark.val();
        }
        self.assembler.words.bytes.next = self.packets.bytes.val();
        self.assembler.words.word.next = self.packets.word.val();
        self.assembler.words.last.next = self.packets.last.val();
        self.packets.ready.next = (self.state.q.val() == NapState::Swallow)
            | (self.verdict.act.val() & !self.verdict.written.val())
            | (self.assembler.words.ready.val()
                & ((self.state.q.val() == NapState::Flow)
                    | (self.verdict.act.val() & self.verdict.written.val())));
        self.word_taken.next = self.packets.valid.val() & self.packets.ready.val();
        // The packet's next state.
        if self.verdict.act.val() {
            self.flow_address.d.next = self.head_address.val();
            self.flow_mark.d.next = self.verdict.mark.val();
            self.holding.d.next = self.verdict.holds.val();
            self.held_entry.d.next = self.open_messages.hit_index.val();
            if self.verdict.opens.val() {
                self.held_entry.d.next = self.open_messages.free_index.val();
            }
            if !(self.word_taken.val() & self.packets.last.val()) {
                self.state.d.next = NapState::Swallow;
                if self.verdict.written.val() {
                    self.state.d.next = NapState::Flow;
                }
            }
        }
        if (self.state.q.val() != NapState::Head) & self.word_taken.val() & self.packets.last.val()
        {
            self.state.d.next = NapState::Head;
        }
        // The table: opened, counted, freed; the entry of the packet at the head or in flight
        // kept from expiring.
        self.open_messages.touch.next = (self.at_head.val() & self.open_messages.hit.val())
            | ((self.state.q.val() != NapState::Head) & self.holding.q.val());
        self.open_messages.touch_index.next = self.held_entry.q.val();
        if self.state.q.val() == NapState::Head {
            self.open_messages.touch_index.next = self.open_messages.hit_index.val();
        }
        self.open_messages.opening.next = self.verdict.act.val() & self.verdict.opens.val();
        self.open_messages.open_index.next = self.open_messages.free_index.val();
        self.open_messages.open_discarding.next = !self.verdict.found.val();
        self.open_messages.open_buffer.next = self.take_buffer.val();
        self.open_messages.open_ring_index.next = self.take.index.val();
        self.open_messages.open_received.next = self.verdict.received_after.val();
        self.open_messages.open_length.next = self.packets.nap_length.val();
        self.open_messages.update.next = self.verdict.act.val()
            & (self.verdict.append.val() | self.verdict.swallow.val())
            & !self.verdict.completes.val();
        self.open_messages.update_index.next = self.open_messages.hit_index.val();
        self.open_messages.update_received.next = self.verdict.received_after.val();
        self.open_messages.finish.next = self.verdict.act.val()
            & (self.verdict.append.val() | self.verdict.swallow.val())
            & self.verdict.completes.val();
        self.open_messages.finish_index.next = self.open_messages.hit_index.val();
        // The receive event: captured when a message's last packet is accepted.
        self.receive_event.capture.next =
            self.verdict.act.val() & self.verdict.written.val() & self.verdict.mark.val();
        self.receive_event.beat_taken.next = self.assembler.marked_taken.val();
        self.receive_event.target_function.next = self.packets.dst_function.val();
        self.receive_event.qp.next = self.packets.dst_qp.val();
        self.receive_event.peer_node.next = self.packets.src_node.val();
        self.receive_event.peer_function.next = self.packets.src_function.val();
        self.receive_event.peer_qp.next = self.packets.src_qp.val();
        self.receive_event.length.next = self.packets.nap_length.val();
        self.receive_event.ring_index.next = self.open_messages.hit_ring_index.val();
        if !self.verdict.append.val() {
            self.receive_event.ring_index.next = self.take.index.val();
        }
        // Error events: the head's packet's (never waiting), else an expired entry's.
        self.error_post.packet_post.next = self.verdict.posts.val();
        self.error_post.assembly_full.next = self.verdict.full.val();
        self.error_post.target_function.next = self.packets.dst_function.val();
        self.error_post.qp.next = self.packets.dst_qp.val();
        self.error_post.peer_node.next = self.packets.src_node.val();
        self.error_post.peer_function.next = self.packets.src_function.val();
        self.error_post.peer_qp.next = self.packets.src_qp.val();
        self.error_post.bytes.next = self.packets.bytes.val();
        self.error_post.expired.next = self.open_messages.expired.val();
        self.error_post.expired_discarding.next = self.open_messages.expired_discarding.val();
        self.error_post.expired_key.next = self.open_messages.expired_key.val();
        self.error_post.expired_received.next = self.open_messages.expired_received.val();
        self.error_post.expired_ring_index.next = self.open_messages.expired_ring_index.val();
        self.open_messages.retire.next = self.error_post.retire.val();
        // Pulses for the counters.
        self.delivered.next = self.receive_event.capture.val();
        self.no_buffer.next = self.verdict.posts.val() & !self.verdict.full.val();
        self.assembly_full.next = self.verdict.act.val() & self.verdict.full.val();
        self.overrun.next = self.verdict.act.val() & self.verdict.overrun.val();
        self.incomplete.next = self.error_post.retire.val();
        self.event_lost.next = self.error_post.lost.val();
        if self.reset.val() {
            self.state.d.next = NapState::Head;
            self.holding.d.next = false;
            self.take.valid.next = false;
            self.open_messages.opening.next = false;
            self.open_messages.update.next = false;
            self.open_messages.finish.next = false;
            self.open_messages.retire.next = false;
            self.receive_event.capture.next = false;
            self.error_post.packet_post.next = false;
            self.delivered.next = false;
            self.no_buffer.next = false;
            self.assembly_full.next = false;
            self.overrun.next = false;
            self.incomplete.next = false;
        }
    }
}

#[test]
fn nap_upload_is_synthesizable() {
    let mut uut = NapUpload::new(8, 256, 256);
    uut.connect_all();
    yosys_validate("nap_upload", &generate_verilog(&uut)).unwrap();
}
