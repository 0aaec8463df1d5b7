//! `NapUpload`: checked NAP packets into 2 KB NAP buffers (`docs/nic-design.md`, "Receive
//! engine (part 4)", rule **NAP**, and "NAP upload").
//!
//! ```text
//! packets ─► NapFlow (Head / Flow / Swallow) ── words (address = buffer + nap_offset) ─► BeatAssembler ─► writes
//!             │ head's key          ▲ the verdict's decision            │ touch
//!             ▼                     │                                   ▼
//!            NapTable (key → entry) ─► NapVerdict ─► take (BufferManager)
//!             │ expired entry (ExpiredEntrySource ⇄ ExpiredEntrySink)
//!             └─► NapErrorPost ─► ErrorEventSlot (NoBuffer, AssemblyFull; NapIncomplete) ─► errors
//!            NapEvent (pending → offer, released by the last beat) ─► events
//! ```
//!
//! **Stages**, one block per file: [`NapFlow`] consumes `packets` (where the upload is in a
//! packet, the word mux into the assembler, `ready`, the touch of the packet's entry);
//! [`NapTable`] answers the head's key; [`NapVerdict`] decides; [`NapEvent`] and
//! [`NapErrorPost`] post the events; [`BeatAssembler`] writes. This block wires them: the
//! head's fields (read from `packets`, which is linked whole into `NapFlow`) to the table,
//! verdict and events, the verdict's decision to the packet stage and the table's writes, the
//! take, the head's address (the entry's buffer on a hit, else the take's answer, + offset),
//! and the pulses. Bundles between stages are joined whole (`PayloadWordSource`,
//! `ExpiredEntrySource`).
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
use super::beat_assembler::{BeatAssembler, PayloadWordSource};
use super::buffer_manager::{NapTakeSource, BUFFER_ADDRESS_BITS};
use super::nap_error_post::NapErrorPost;
use super::nap_event::NapEvent;
use super::nap_flow::NapFlow;
use super::nap_table::{ExpiredEntrySource, NapTable};
use super::nap_verdict::NapVerdict;
use super::ReceivedPacketSink;
use crate::events::EventRequestSource;
use crate::host::WriteBeatSource;
use hdl::formats::nic::ADDRESS_BITS;
use rust_hdl::prelude::*;

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
    flow: NapFlow,
    receive_event: NapEvent,
    error_post: NapErrorPost,
    // Combinational.
    head_address: Signal<Local, Bits<ADDRESS_BITS>>,
    take_buffer: Signal<Local, Bits<BUFFER_ADDRESS_BITS>>,
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
            flow: Default::default(),
            receive_event: Default::default(),
            error_post: Default::default(),
            head_address: Default::default(),
            take_buffer: Default::default(),
        }
    }
}

impl Logic for NapUpload {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(
            self,
            clock,
            assembler,
            open_messages,
            flow,
            receive_event,
            error_post
        );
        self.assembler.reset.next = self.reset.val();
        self.open_messages.reset.next = self.reset.val();
        self.flow.reset.next = self.reset.val();
        self.receive_event.reset.next = self.reset.val();
        self.error_post.reset.next = self.reset.val();
        // The packet stage consumes the stream; the stages below read the head's fields.
        ReceivedPacketSink::link(&mut self.packets, &mut self.flow.packets);
        PayloadWordSource::join(&mut self.flow.words, &mut self.assembler.words);
        ExpiredEntrySource::join(
            &mut self.open_messages.expired,
            &mut self.error_post.expired,
        );
        WriteBeatSource::link(&mut self.writes, &mut self.assembler.writes);
        EventRequestSource::link(&mut self.events, &mut self.receive_event.events);
        EventRequestSource::link(&mut self.errors, &mut self.error_post.errors);
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
        self.verdict.at_head.next = self.flow.at_head.val();
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
        // The packet stage: the verdict's decision; the entry it keeps from expiring.
        self.flow.head_address.next = self.head_address.val();
        self.flow.act.next = self.verdict.act.val();
        self.flow.written.next = self.verdict.written.val();
        self.flow.mark.next = self.verdict.mark.val();
        self.flow.holds.next = self.verdict.holds.val();
        self.flow.opens.next = self.verdict.opens.val();
        self.flow.hit.next = self.open_messages.hit.val();
        self.flow.hit_index.next = self.open_messages.hit_index.val();
        self.flow.free_index.next = self.open_messages.free_index.val();
        self.open_messages.touch.next = self.flow.touch.val();
        self.open_messages.touch_index.next = self.flow.touch_index.val();
        // The table: opened, counted, freed.
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
        // Pulses for the counters.
        self.delivered.next = self.receive_event.capture.val();
        self.no_buffer.next = self.verdict.posts.val() & !self.verdict.full.val();
        self.assembly_full.next = self.verdict.act.val() & self.verdict.full.val();
        self.overrun.next = self.verdict.act.val() & self.verdict.overrun.val();
        self.incomplete.next = self.error_post.expired.retire.val();
        self.event_lost.next = self.error_post.lost.val();
        if self.reset.val() {
            self.take.valid.next = false;
            self.open_messages.opening.next = false;
            self.open_messages.update.next = false;
            self.open_messages.finish.next = false;
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
