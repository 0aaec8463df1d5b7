//! `PutUpload`: checked PUT packets into host memory (`docs/nic-design.md`, "Receive engine
//! (part 4)", rule **PUT**): each packet's payload written at its `address` as posted writes of
//! 16-byte beats, and its receive (or GET-completion) event after its last beat.
//!
//! **Bytes into beats, writes** ([`BeatAssembler`], `beat_assembler.rs`, shared with
//! `NapUpload`): payload byte `i` goes to host address `address + i` in 16-byte beats with byte
//! enables; writes are cut at every multiple of `max_payload` (`nic.max_payload`, a power of
//! two from 64 to 4096, a divisor of 4096) and at the packet's end, so no write exceeds
//! `max_payload` bytes nor crosses a 4 KB boundary, and a packet at a misaligned address gets
//! at most one write more than the fewest possible. The writing function is the packet's
//! `dst_function`.
//!
//! **Events.** On a packet with `event` and `message_last`: a completion event for
//! (`dst_function`, `dst_qp`) with status Ok, peer = the source (node, function, QP),
//! `length` = the packet's bytes, `info` = the low 32 bits of `address + bytes` (one past its
//! last byte); a plain PUT's goes to the receive ring (kind Receive, op PUT), a
//! `get_response` PUT's to the send ring (kind Send, op GET: it completes the GET that QP
//! issued). The event is offered only after the host has taken the packet's last write beat,
//! and held until the event writer takes it (the event writer holds it back while the ring
//! is full). There is one event register: the last word of another event packet is not taken
//! while an event waits (back pressure, never a dropped event).
//!
//! Handshake: `packets` is a [`ReceivedPacketSink`] carrying PUT packets only (the dispatch
//! sends nothing else here; `kind` is not looked at); its `ready` depends on `writes.ready`
//! (an output register that is free or being taken) and, on an event packet's last word, on
//! the event register. `writes` and `events` come straight from registers (hold rule).
//! The assembler sees a word only while it may be taken (an event packet's last word is
//! withheld while the event register is busy), with `mark` = the packet asks for an event.
//!
//! Rate: one payload word (8 bytes) per cycle while the host takes beats, plus one cycle per
//! packet whose last bytes spill into a further beat: the network port delivers at most one
//! word per cycle and spends 3 flits per packet on head, header and tail, so the upload keeps
//! up with it. Latency: a beat leaves one cycle after the word that completes it is taken.
//!
//! Reset (synchronous): the packet in progress, the beats and the event not yet taken are
//! dropped; the block then waits for a packet's first word (the whole receive path resets
//! with it).
use super::beat_assembler::BeatAssembler;
use super::put_event::PutEvent;
use super::{ReceivedPacketSink, DELAY_BITS, NAP_LENGTH_BITS, NAP_OFFSET_BITS, PACKET_KIND_BITS};
use crate::events::EventRequestSource;
use crate::host::WriteBeatSource;
use rust_hdl::prelude::*;

/// The PUT upload; see the module documentation.
#[derive(LogicBlock)]
pub struct PutUpload {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Checked PUT packets from the dispatch.
    pub packets: ReceivedPacketSink,
    /// Posted writes to the write arbiter.
    pub writes: WriteBeatSource,
    /// Completion events to the event writer.
    pub events: EventRequestSource,
    /// The beats and writes.
    assembler: BeatAssembler,
    /// The event register.
    event_register: PutEvent,
    // Combinational.
    wants_event: Signal<Local, bool>,
    /// An event packet's last word waits for the event register.
    event_blocked: Signal<Local, bool>,
    take: Signal<Local, bool>,
    /// Fields a PUT upload does not use: the kind (the dispatch sorted by it), the delay (for
    /// congestion control elsewhere), the NAP offset and length (meaningless in a PUT).
    unused_kind: Signal<Local, Bits<PACKET_KIND_BITS>>,
    unused_delay: Signal<Local, Bits<DELAY_BITS>>,
    unused_nap_offset: Signal<Local, Bits<NAP_OFFSET_BITS>>,
    unused_nap_length: Signal<Local, Bits<NAP_LENGTH_BITS>>,
}

impl PutUpload {
    /// The upload, cutting writes at `max_payload` bytes (a power of two, 64..=4096).
    pub fn new(max_payload: usize) -> Self {
        assert!(
            max_payload.is_power_of_two() && (64..=4096).contains(&max_payload),
            "PutUpload: max_payload must be a power of two from 64 to 4096, got {max_payload}"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            packets: Default::default(),
            writes: Default::default(),
            events: Default::default(),
            assembler: BeatAssembler::new(max_payload),
            event_register: Default::default(),
            wants_event: Default::default(),
            event_blocked: Default::default(),
            take: Default::default(),
            unused_kind: Default::default(),
            unused_delay: Default::default(),
            unused_nap_offset: Default::default(),
            unused_nap_length: Default::default(),
        }
    }
}

impl Logic for PutUpload {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, assembler, event_register);
        self.assembler.reset.next = self.reset.val();
        self.event_register.reset.next = self.reset.val();
        WriteBeatSource::link(&mut self.writes, &mut self.assembler.writes);
        EventRequestSource::link(&mut self.events, &mut self.event_register.events);
        self.unused_kind.next = self.packets.kind.val();
        self.unused_delay.next = self.packets.delay.val();
        self.unused_nap_offset.next = self.packets.nap_offset.val();
        self.unused_nap_length.next = self.packets.nap_length.val();
        // Words to the assembler; an event packet's last word only while the event register
        // is empty (back pressure, never a dropped event).
        self.wants_event.next = self.packets.event.val() & self.packets.message_last.val();
        self.event_blocked.next =
            self.packets.last.val() & self.wants_event.val() & self.event_register.busy.val();
        self.assembler.words.valid.next = self.packets.valid.val() & !self.event_blocked.val();
        self.assembler.words.function.next = self.packets.dst_function.val();
        self.assembler.words.address.next = self.packets.address.val();
        self.assembler.words.bytes.next = self.packets.bytes.val();
        self.assembler.words.mark.next = self.wants_event.val();
        self.assembler.words.word.next = self.packets.word.val();
        self.assembler.words.last.next = self.packets.last.val();
        self.packets.ready.next = self.assembler.words.ready.val() & !self.event_blocked.val();
        self.take.next = self.packets.valid.val() & self.packets.ready.val();
        // The event: captured with the packet's last word, released by its last beat.
        self.event_register.capture.next =
            self.take.val() & self.packets.last.val() & self.wants_event.val();
        self.event_register.beat_taken.next = self.assembler.marked_taken.val();
        self.event_register.target_function.next = self.packets.dst_function.val();
        self.event_register.qp.next = self.packets.dst_qp.val();
        self.event_register.get_response.next = self.packets.get_response.val();
        self.event_register.peer_node.next = self.packets.src_node.val();
        self.event_register.peer_function.next = self.packets.src_function.val();
        self.event_register.peer_qp.next = self.packets.src_qp.val();
        self.event_register.bytes.next = self.packets.bytes.val();
        self.event_register.address_low.next = self.packets.address.val().get_bits::<32>(0);
    }
}
#[test]
fn put_upload_is_synthesizable() {
    for max_payload in [64, 256, 4096] {
        let mut uut = PutUpload::new(max_payload);
        uut.connect_all();
        yosys_validate(
            &format!("put_upload_{max_payload}"),
            &generate_verilog(&uut),
        )
        .unwrap();
    }
}

#[test]
#[should_panic(expected = "max_payload must be a power of two from 64 to 4096")]
fn put_upload_refuses_a_bad_max_payload() {
    let _ = PutUpload::new(96);
}
