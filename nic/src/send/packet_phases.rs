//! `PacketPhases`: the packetizer's control. Where it is in a packet (head, header, payload,
//! tail, or dropping a refused GET's words) and what moves on this edge: the head (when the
//! message is there, a PUT's segment is taken, the packet's payload is all buffered and, for a
//! message's last packet, the event slot is free), the header, each payload word, the tail;
//! the failed-read flags (`poisoned` for the packet, `failed` for the message) and the pulses.
//!
//! Inputs are the other stages' state; outputs say which flit is on offer (`at_head`,
//! `at_header`, `sending`, `at_tail`), whether it is offered (`offer`), and the edge's events
//! (`start`, `segment_pop`, `inline_pop`, `payload_moving`, `message_done`, `event_load`,
//! `refusing`). Synchronous reset: back to the head, flags cleared, nothing offered.
use rust_hdl::prelude::*;

/// Bits of the phase register.
const PHASE_BITS: usize = 3;
/// Waiting for a message, or at a packet's head (PUT: taking a destination segment first).
const HEAD: u64 = 0;
/// The header flit.
const HEADER: u64 = 1;
/// Payload flits.
const PAYLOAD: u64 = 2;
/// The tail.
const TAIL: u64 = 3;
/// A refused GET's words are being dropped.
const DISCARD: u64 = 4;

/// The control; see the module documentation.
#[derive(LogicBlock)]
pub struct PacketPhases {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// A message record is there.
    pub message_valid: Signal<In, bool>,
    /// It is a GET that does not fit one packet.
    pub get_too_long: Signal<In, bool>,
    /// A PUT segment must be taken first.
    pub segment_needed: Signal<In, bool>,
    /// The next packet's payload is all here.
    pub packet_ready: Signal<In, bool>,
    /// The next packet is the message's last.
    pub cut_last: Signal<In, bool>,
    /// The packet on the wire is the message's last.
    pub packet_last: Signal<In, bool>,
    /// Bytes of the packet still to send are at most 8 (this payload word is its last).
    pub last_word: Signal<In, bool>,
    /// The event slot can take an event.
    pub slot_free: Signal<In, bool>,
    /// The message asked for a send event and is not a GET.
    pub wants_event: Signal<In, bool>,
    /// The port takes the flit on offer.
    pub flit_ready: Signal<In, bool>,
    /// The aligned payload word is there, and its input word failed its read.
    pub aligned_valid: Signal<In, bool>,
    /// The aligned word's input failed its read.
    pub aligned_error: Signal<In, bool>,
    /// An inline word is there, and it is the message's last.
    pub inline_valid: Signal<In, bool>,
    /// The inline word is its message's last.
    pub inline_last: Signal<In, bool>,
    /// The head, header, payload or tail is on offer.
    pub at_head: Signal<Out, bool>,
    /// The header flit is on offer.
    pub at_header: Signal<Out, bool>,
    /// Payload flits are on offer.
    pub sending: Signal<Out, bool>,
    /// The tail is on offer.
    pub at_tail: Signal<Out, bool>,
    /// A flit is offered.
    pub offer: Signal<Out, bool>,
    /// The head leaves on this edge.
    pub start: Signal<Out, bool>,
    /// A PUT segment word is taken on this edge.
    pub segment_pop: Signal<Out, bool>,
    /// The packetizer takes the inline word itself (segment words, a refused GET's words).
    pub inline_pop: Signal<Out, bool>,
    /// A payload word leaves on this edge.
    pub payload_moving: Signal<Out, bool>,
    /// The message ends on this edge.
    pub message_done: Signal<Out, bool>,
    /// Its event goes into the slot on this edge.
    pub event_load: Signal<Out, bool>,
    /// A refused GET is being dropped (its event is `GetTooLong`).
    pub refusing: Signal<Out, bool>,
    /// A word of this message failed its read.
    pub failed: Signal<Out, bool>,
    /// The tail on offer leaves with its CRC inverted.
    pub stomp: Signal<Out, bool>,
    /// A stomped tail left (one cycle later).
    pub stomped: Signal<Out, bool>,
    /// A GET was refused (one cycle later).
    pub refused: Signal<Out, bool>,
    phase: DFF<Bits<PHASE_BITS>>,
    poisoned: DFF<bool>,
    failed_reg: DFF<bool>,
    stomp_pulse: DFF<bool>,
    refuse_pulse: DFF<bool>,
    /// The head can leave (message, segment, payload, slot).
    head_ready: Signal<Local, bool>,
    phases: Vec<Constant<Bits<PHASE_BITS>>>,
}

impl Default for PacketPhases {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            message_valid: Default::default(),
            get_too_long: Default::default(),
            segment_needed: Default::default(),
            packet_ready: Default::default(),
            cut_last: Default::default(),
            packet_last: Default::default(),
            last_word: Default::default(),
            slot_free: Default::default(),
            wants_event: Default::default(),
            flit_ready: Default::default(),
            aligned_valid: Default::default(),
            aligned_error: Default::default(),
            inline_valid: Default::default(),
            inline_last: Default::default(),
            at_head: Default::default(),
            at_header: Default::default(),
            sending: Default::default(),
            at_tail: Default::default(),
            offer: Default::default(),
            start: Default::default(),
            segment_pop: Default::default(),
            inline_pop: Default::default(),
            payload_moving: Default::default(),
            message_done: Default::default(),
            event_load: Default::default(),
            refusing: Default::default(),
            failed: Default::default(),
            stomp: Default::default(),
            stomped: Default::default(),
            refused: Default::default(),
            phase: Default::default(),
            poisoned: Default::default(),
            failed_reg: Default::default(),
            stomp_pulse: Default::default(),
            refuse_pulse: Default::default(),
            head_ready: Default::default(),
            phases: [HEAD, HEADER, PAYLOAD, TAIL, DISCARD]
                .iter()
                .map(|&p| Constant::new(p.to_bits()))
                .collect(),
        }
    }
}

impl Logic for PacketPhases {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            phase,
            poisoned,
            failed_reg,
            stomp_pulse,
            refuse_pulse
        );
        self.at_head.next = self.phase.q.val() == self.phases[0].val();
        self.at_header.next = self.phase.q.val() == self.phases[1].val();
        self.sending.next = self.phase.q.val() == self.phases[2].val();
        self.at_tail.next = self.phase.q.val() == self.phases[3].val();
        self.refusing.next = self.phase.q.val() == self.phases[4].val();
        self.failed.next = self.failed_reg.q.val();
        self.stomp.next =
            self.poisoned.q.val() | (self.packet_last.val() & self.failed_reg.q.val());
        // The head: the message there, no segment to take first, the payload all here, and for
        // the message's last packet the event slot free (so its tail never waits).
        self.head_ready.next = self.at_head.val()
            & self.message_valid.val()
            & !self.get_too_long.val()
            & !self.segment_needed.val()
            & self.packet_ready.val()
            & (!self.cut_last.val() | self.slot_free.val());
        self.segment_pop.next = self.at_head.val()
            & self.message_valid.val()
            & !self.get_too_long.val()
            & self.segment_needed.val()
            & self.inline_valid.val();
        self.inline_pop.next = self.segment_pop.val()
            | (self.refusing.val() & (!self.inline_last.val() | self.slot_free.val()));
        self.offer.next = self.head_ready.val()
            | self.at_header.val()
            | (self.sending.val() & self.aligned_valid.val())
            | self.at_tail.val();
        self.start.next = self.head_ready.val() & self.flit_ready.val();
        self.payload_moving.next =
            self.sending.val() & self.aligned_valid.val() & self.flit_ready.val();
        self.message_done.next =
            (self.at_tail.val() & self.flit_ready.val() & self.packet_last.val())
                | (self.refusing.val()
                    & self.inline_valid.val()
                    & self.inline_last.val()
                    & self.slot_free.val());
        self.event_load.next = self.message_done.val()
            & (self.refusing.val() | self.wants_event.val() | self.failed_reg.q.val());
        // The next phase.
        if self.at_head.val() & self.message_valid.val() & self.get_too_long.val() {
            self.phase.d.next = self.phases[4].val();
        }
        if self.start.val() {
            self.phase.d.next = self.phases[1].val();
            self.poisoned.d.next = false;
        }
        if self.at_header.val() & self.flit_ready.val() {
            self.phase.d.next = self.phases[2].val();
        }
        if self.payload_moving.val() {
            if self.aligned_error.val() {
                self.poisoned.d.next = true;
                self.failed_reg.d.next = true;
            }
            if self.last_word.val() {
                self.phase.d.next = self.phases[3].val();
            }
        }
        if self.at_tail.val() & self.flit_ready.val() {
            self.phase.d.next = self.phases[0].val();
        }
        if self.message_done.val() {
            self.phase.d.next = self.phases[0].val();
            self.failed_reg.d.next = false;
        }
        self.stomp_pulse.d.next = self.at_tail.val() & self.flit_ready.val() & self.stomp.val();
        self.refuse_pulse.d.next = self.refusing.val() & self.message_done.val();
        self.stomped.next = self.stomp_pulse.q.val();
        self.refused.next = self.refuse_pulse.q.val();
        if self.reset.val() {
            self.phase.d.next = self.phases[0].val();
            self.poisoned.d.next = false;
            self.failed_reg.d.next = false;
            self.stomp_pulse.d.next = false;
            self.refuse_pulse.d.next = false;
            self.offer.next = false;
            self.message_done.next = false;
            self.inline_pop.next = false;
        }
    }
}

#[test]
fn packet_phases_is_synthesizable() {
    let mut uut = PacketPhases::default();
    uut.connect_all();
    yosys_validate("packet_phases", &generate_verilog(&uut)).unwrap();
}
