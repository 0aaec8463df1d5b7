//! `GetToPut`: an arriving GET becomes a local PUT back to its requester (issue 13, part 4;
//! `docs/nic-design.md`, "GET to PUT"). Input: checked GET packets (`ReceivedPacketSink`, the
//! GET VC's own receive path; one packet = `Descriptor::get_body`: word 2 with the response
//! key, then the segment words). Output: PUT descriptors (`DescriptorSource`) for the send
//! engine's `responses` input, flagged `get_response`.
//!
//! ```text
//! gets ─► GetStore (GetRules per word; totals, word count) ─► queue RAM (2^SB slots x 2^WB words)
//!             │ commit: record RAM (fields, length)  │ dropped ─► ErrorEventSlot ─► errors
//!             ▼                                      ▼
//!         GetEmit (head slot: word 0 captured, then the segment words) ─► responses
//! ```
//!
//! **Why a queue of whole GETs**: a descriptor's `length` must be known from its first word,
//! and it is the total of the source segments, which the packet gives only at its end; so a
//! GET is stored whole (one slot each, committed at its last word after every rule was
//! checked) and emitted after. Bad bodies are dropped whole before anything is emitted.
//!
//! **Back pressure**: when every slot holds a GET not yet emitted, `gets.ready` is low: only
//! the GET path (the GET VC's receive buffer and credits) backs up, the data VC keeps
//! draining (the deadlock argument of the design document). The emitter waits only for
//! `responses.ready`.
//!
//! **Bad GETs** (`GetStore`): dropped whole, `dropped` pulses, and an error event `BadGet`
//! (kind Error, op GET, to the target QP's receive ring, peer = the source, length = the
//! packet's bytes) goes to a one-event slot (`ErrorEventSlot`): if it is still full the event
//! is not posted and `event_lost` pulses (both for counters); the GET path never waits for
//! the event writer.
//!
//! **Rates**: one word per cycle in; out, one word per cycle plus two cycles per GET.
//! **Latency**: a GET's first response word is offered 3 cycles after its last word is taken
//! (commit, `Idle`, `Prime`) when the queue was empty.
//!
//! **Reset** (synchronous): the queue, the packet in progress and the event slot are emptied.
//!
//! Parameters: `SB` slot bits (`2^SB` GETs queued), `WB` word bits of a slot (`2^WB` words:
//! at least the longest GET body a packet of `network.max_packet_flits` carries, 29 words at
//! the default 32 flits, so `WB` = 5), `QAW = SB + WB`, `PB = SB + 1`. A body longer than a
//! slot is dropped as bad (none arrives when `2^WB >= max_packet_flits - 3`: `new` checks it).
use super::error_event_slot::ErrorEventSlot;
use super::get_emit::GetEmit;
use super::get_store::{GetStore, GET_RECORD_BITS};
use super::ReceivedPacketSink;
use crate::descriptor::DescriptorSource;
use crate::events::EventRequestSource;
use hdl::bits::constant;
use hdl::formats::nic::{EventStatus, MAX_SEGMENTS, OVERHEAD_FLITS};
use hdl::formats::PacketKind;
use rust_hdl::prelude::*;

/// The GET-to-PUT converter; see the module documentation.
#[derive(LogicBlock)]
pub struct GetToPut<const SB: usize, const WB: usize, const QAW: usize, const PB: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Checked GET packets.
    pub gets: ReceivedPacketSink,
    /// Response PUT descriptors, to the send engine.
    pub responses: DescriptorSource,
    /// `BadGet` error events, to the event writer.
    pub errors: EventRequestSource,
    /// Pulse: a bad GET was dropped.
    pub dropped: Signal<Out, bool>,
    /// Pulse: a dropped GET's error event was not posted (the slot was full).
    pub event_lost: Signal<Out, bool>,
    store: GetStore<SB, WB, QAW, PB>,
    emitter: GetEmit<SB, WB, QAW, PB>,
    queue: RAM<Bits<64>, QAW>,
    records: RAM<Bits<GET_RECORD_BITS>, SB>,
    error_slot: ErrorEventSlot,
    bad_get: Constant<Bits<6>>,
    get_op: Constant<Bits<3>>,
}

impl<const SB: usize, const WB: usize, const QAW: usize, const PB: usize>
    GetToPut<SB, WB, QAW, PB>
{
    /// A converter for GET packets of at most `max_packet_flits` flits
    /// (`network.max_packet_flits`).
    pub fn new(max_packet_flits: usize) -> Self {
        let longest = (max_packet_flits - OVERHEAD_FLITS).min(1 + 4 * MAX_SEGMENTS);
        assert!(
            1 << WB >= longest,
            "GetToPut: a slot of 2^WB = {} words must hold the longest GET body a packet of network.max_packet_flits = {max_packet_flits} carries ({longest} words)",
            1 << WB
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            gets: Default::default(),
            responses: Default::default(),
            errors: Default::default(),
            dropped: Default::default(),
            event_lost: Default::default(),
            store: GetStore::new(),
            emitter: GetEmit::new(),
            queue: Default::default(),
            records: Default::default(),
            error_slot: Default::default(),
            bad_get: constant(EventStatus::BadGet.code() as u64),
            get_op: constant(PacketKind::Get.code() as u64),
        }
    }
}

impl<const SB: usize, const WB: usize, const QAW: usize, const PB: usize> Logic
    for GetToPut<SB, WB, QAW, PB>
{
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, store, emitter, error_slot);
        self.queue.read_clock.next = self.clock.val();
        self.queue.write_clock.next = self.clock.val();
        self.records.read_clock.next = self.clock.val();
        self.records.write_clock.next = self.clock.val();
        self.store.reset.next = self.reset.val();
        self.emitter.reset.next = self.reset.val();
        self.error_slot.reset.next = self.reset.val();
        // In: the store writes the queue and, at a commit, the record.
        ReceivedPacketSink::link(&mut self.gets, &mut self.store.gets);
        self.store.read_pointer.next = self.emitter.read_pointer.val();
        self.queue.write_enable.next = self.store.word_write.val();
        self.queue.write_address.next = self.store.word_address.val();
        self.queue.write_data.next = self.store.word_data.val();
        self.records.write_enable.next = self.store.commit.val();
        self.records.write_address.next = self.store.write_pointer.val().get_bits::<SB>(0);
        self.records.write_data.next = self.store.record.val();
        // Out: the emitter reads the head slot.
        self.emitter.write_pointer.next = self.store.write_pointer.val();
        self.records.read_address.next = self.emitter.record_address.val();
        self.emitter.record.next = self.records.read_data.val();
        self.queue.read_address.next = self.emitter.word_address.val();
        self.emitter.word_data.next = self.queue.read_data.val();
        DescriptorSource::link(&mut self.responses, &mut self.emitter.responses);
        // Bad GETs: an error event through the one-event slot.
        self.dropped.next = self.store.dropped.val();
        self.error_slot.post.next = self.store.dropped.val();
        self.error_slot.status.next = self.bad_get.val();
        self.error_slot.target_function.next = self.gets.dst_function.val();
        self.error_slot.qp.next = self.gets.dst_qp.val();
        self.error_slot.op.next = self.get_op.val();
        self.error_slot.peer_node.next = self.gets.src_node.val();
        self.error_slot.peer_function.next = self.gets.src_function.val();
        self.error_slot.peer_qp.next = self.gets.src_qp.val();
        self.error_slot.length.next = self.gets.bytes.val();
        self.error_slot.info.next = 0.into();
        EventRequestSource::link(&mut self.errors, &mut self.error_slot.errors);
        self.event_lost.next = self.error_slot.lost.val();
    }
}

#[test]
fn get_to_put_is_synthesizable() {
    let mut uut = GetToPut::<3, 5, 8, 4>::new(32);
    uut.connect_all();
    yosys_validate("get_to_put", &generate_verilog(&uut)).unwrap();
}
