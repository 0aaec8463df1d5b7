//! `PutUpload`: checked PUT packets into host memory (`docs/nic-design.md`, "Receive engine
//! (part 4)", rule **PUT**): each packet's payload written at its `address` as posted writes of
//! 16-byte beats, and its receive (or GET-completion) event after its last beat.
//!
//! **Bytes into beats.** Payload byte `i` goes to host address `address + i`, lane
//! `(address + i) mod 16` of the beat at `(address + i) & !15`. Word `k` (bytes `8k..8k+7`)
//! therefore starts at lane `(address mod 16 + 8k) mod 16`: the word is shifted to that lane in
//! a 32-lane (two-beat) window, ORed over the bytes already placed in the beat being assembled
//! (`window`), and when lane 15 is filled the low beat leaves and the high half becomes the
//! new window. The packet's last word sends what it has (its bytes beyond `bytes` are not
//! enabled); if its bytes spill into a further beat, that beat leaves in the next cycle
//! (`flush`, the input held meanwhile). Byte enables are the lanes holding payload bytes, so
//! only the first beat of a packet starts, and only its last ends, inside a block.
//!
//! **Writes.** Writes are cut at every multiple of `max_payload` (`nic.max_payload`, a power of
//! two from 64 to 4096, a divisor of 4096): a beat whose block ends at such a multiple ends its
//! write (`last`), and so does the packet's last beat. So no write exceeds `max_payload` bytes
//! nor crosses a 4 KB boundary, and every cut falls between two beats (a packet at a
//! misaligned address gets at most one write more than the fewest possible). The writing
//! function is the packet's `dst_function`.
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
//!
//! Rate: one payload word (8 bytes) per cycle while the host takes beats, plus one cycle per
//! packet whose last bytes spill into a further beat: the network port delivers at most one
//! word per cycle and spends 3 flits per packet on head, header and tail, so the upload keeps
//! up with it. Latency: a beat leaves one cycle after the word that completes it is taken.
//!
//! Reset (synchronous): the packet in progress, the beats and the event not yet taken are
//! dropped; the block then waits for a packet's first word (the whole receive path resets
//! with it).
use super::put_event::PutEvent;
use super::{ReceivedPacketSink, DELAY_BITS, NAP_LENGTH_BITS, NAP_OFFSET_BITS, PACKET_KIND_BITS};
use crate::events::EventRequestSource;
use crate::host::{WriteBeatSource, HOST_BEAT_BYTES, HOST_DATA_BITS};
use hdl::formats::nic::{ADDRESS_BITS, FUNCTION_BITS};
use rust_hdl::prelude::*;

/// Lanes of the two-beat window a word is shifted into.
const WINDOW_LANES: usize = 2 * HOST_BEAT_BYTES;
/// Bits of the two-beat window.
const WINDOW_BITS: usize = 2 * HOST_DATA_BITS;
/// Bits of a lane number in a beat.
const LANE_BITS: usize = 4;

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
    // Elaboration constants.
    /// Bits 11..4 of a beat address whose block ends a `max_payload` block.
    block_end: Constant<Bits<ADDRESS_BITS>>,
    beat_bytes: Constant<Bits<ADDRESS_BITS>>,
    beat_base: Constant<Bits<ADDRESS_BITS>>,
    half_beat: Constant<Bits<LANE_BITS>>,
    /// Enables of a last word holding `bytes mod 8` bytes (index 0: all 8).
    tail_masks: Vec<Constant<Bits<8>>>,
    all_bytes: Constant<Bits<8>>,
    // Packet state.
    /// A packet's first word was taken and its last not yet.
    in_packet: DFF<bool>,
    /// Address of the beat being assembled.
    beat_address: DFF<Bits<ADDRESS_BITS>>,
    /// Lane of the next word's first byte.
    lane: DFF<Bits<LANE_BITS>>,
    /// Bytes placed in the beat being assembled, and their lanes.
    window_data: DFF<Bits<HOST_DATA_BITS>>,
    window_enables: DFF<Bits<HOST_BEAT_BYTES>>,
    /// The packet's last bytes wait in the window for a beat of their own.
    flush: DFF<bool>,
    /// That beat ends an event packet.
    flush_event: DFF<bool>,
    /// The packet's writing function (not `function`: a Verilog keyword).
    packet_function: DFF<Bits<FUNCTION_BITS>>,
    // Output beat register.
    out_valid: DFF<bool>,
    out_function: DFF<Bits<FUNCTION_BITS>>,
    out_address: DFF<Bits<ADDRESS_BITS>>,
    out_data: DFF<Bits<HOST_DATA_BITS>>,
    out_enables: DFF<Bits<HOST_BEAT_BYTES>>,
    out_last: DFF<bool>,
    /// The beat is an event packet's last: its event may go once the host takes it.
    out_event: DFF<bool>,
    /// The event register.
    event_register: PutEvent,
    // Combinational.
    /// Address and lane of the word offered (from the packet's address on its first word).
    current_address: Signal<Local, Bits<ADDRESS_BITS>>,
    current_lane: Signal<Local, Bits<LANE_BITS>>,
    tail_bytes: Signal<Local, Bits<3>>,
    word_enables: Signal<Local, Bits<8>>,
    shift_bits: Signal<Local, Bits<8>>,
    merged_data: Signal<Local, Bits<WINDOW_BITS>>,
    merged_enables: Signal<Local, Bits<WINDOW_LANES>>,
    /// The merged bytes reach beyond the current beat.
    spill: Signal<Local, bool>,
    /// The current beat's block ends a `max_payload` block.
    block_ends: Signal<Local, bool>,
    wants_event: Signal<Local, bool>,
    output_free: Signal<Local, bool>,
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
        let bits = |v: u64| Constant::new(Bits::<ADDRESS_BITS>::from(v));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            packets: Default::default(),
            writes: Default::default(),
            events: Default::default(),
            block_end: bits(max_payload as u64 - HOST_BEAT_BYTES as u64),
            beat_bytes: bits(HOST_BEAT_BYTES as u64),
            beat_base: bits(((1u64 << ADDRESS_BITS) - 1) & !(HOST_BEAT_BYTES as u64 - 1)),
            half_beat: Constant::new((HOST_BEAT_BYTES / 2).to_bits()),
            tail_masks: (0..8)
                .map(|n| Constant::new((if n == 0 { 0xff } else { (1usize << n) - 1 }).to_bits()))
                .collect(),
            all_bytes: Constant::new(0xffusize.to_bits()),
            in_packet: Default::default(),
            beat_address: Default::default(),
            lane: Default::default(),
            window_data: Default::default(),
            window_enables: Default::default(),
            flush: Default::default(),
            flush_event: Default::default(),
            packet_function: Default::default(),
            out_valid: Default::default(),
            out_function: Default::default(),
            out_address: Default::default(),
            out_data: Default::default(),
            out_enables: Default::default(),
            out_last: Default::default(),
            out_event: Default::default(),
            event_register: Default::default(),
            current_address: Default::default(),
            current_lane: Default::default(),
            tail_bytes: Default::default(),
            word_enables: Default::default(),
            shift_bits: Default::default(),
            merged_data: Default::default(),
            merged_enables: Default::default(),
            spill: Default::default(),
            block_ends: Default::default(),
            wants_event: Default::default(),
            output_free: Default::default(),
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
        dff_setup!(
            self,
            clock,
            in_packet,
            beat_address,
            lane,
            window_data,
            window_enables,
            flush,
            flush_event,
            packet_function,
            out_valid,
            out_function,
            out_address,
            out_data,
            out_enables,
            out_last,
            out_event
        );
        self.event_register.clock.next = self.clock.val();
        self.event_register.reset.next = self.reset.val();
        EventRequestSource::link(&mut self.events, &mut self.event_register.events);
        self.unused_kind.next = self.packets.kind.val();
        self.unused_delay.next = self.packets.delay.val();
        self.unused_nap_offset.next = self.packets.nap_offset.val();
        self.unused_nap_length.next = self.packets.nap_length.val();
        // The word's place: a packet's first word starts at its address.
        self.current_address.next = self.beat_address.q.val();
        self.current_lane.next = self.lane.q.val();
        if !self.in_packet.q.val() {
            self.current_address.next = self.packets.address.val() & self.beat_base.val();
            self.current_lane.next = self.packets.address.val().get_bits::<LANE_BITS>(0);
        }
        // The word's bytes: all 8, or on the packet's last word `bytes mod 8` (0 meaning 8).
        self.tail_bytes.next = self.packets.bytes.val().get_bits::<3>(0);
        self.word_enables.next = self.all_bytes.val();
        if self.packets.last.val() {
            for n in 0..8 {
                if self.tail_bytes.val().index() == n {
                    self.word_enables.next = self.tail_masks[n].val();
                }
            }
        }
        self.shift_bits.next = bit_cast::<8, LANE_BITS>(self.current_lane.val()) << 3;
        self.merged_data.next = bit_cast::<WINDOW_BITS, HOST_DATA_BITS>(self.window_data.q.val())
            | (bit_cast::<WINDOW_BITS, 64>(self.packets.word.val()) << self.shift_bits.val());
        self.merged_enables.next =
            bit_cast::<WINDOW_LANES, HOST_BEAT_BYTES>(self.window_enables.q.val())
                | (bit_cast::<WINDOW_LANES, 8>(self.word_enables.val()) << self.current_lane.val());
        self.spill.next = self
            .merged_enables
            .val()
            .get_bits::<HOST_BEAT_BYTES>(16)
            .any();
        self.block_ends.next =
            (self.current_address.val() & self.block_end.val()) == self.block_end.val();
        self.wants_event.next = self.packets.event.val() & self.packets.message_last.val();
        // Take a word when the beat register is free (or leaves now), no flush is due, and an
        // event packet's last word finds the event register empty.
        self.output_free.next = !self.out_valid.q.val() | self.writes.ready.val();
        self.packets.ready.next = self.output_free.val()
            & !self.flush.q.val()
            & !(self.packets.last.val() & self.wants_event.val() & self.event_register.busy.val());
        self.take.next = self.packets.valid.val() & self.packets.ready.val();
        self.event_register.capture.next =
            self.take.val() & self.packets.last.val() & self.wants_event.val();
        self.event_register.target_function.next = self.packets.dst_function.val();
        self.event_register.qp.next = self.packets.dst_qp.val();
        self.event_register.get_response.next = self.packets.get_response.val();
        self.event_register.peer_node.next = self.packets.src_node.val();
        self.event_register.peer_function.next = self.packets.src_function.val();
        self.event_register.peer_qp.next = self.packets.src_qp.val();
        self.event_register.bytes.next = self.packets.bytes.val();
        self.event_register.address_low.next = self.packets.address.val().get_bits::<32>(0);
        // The beat register empties when the host takes its beat; an event packet's last beat
        // releases the event.
        if self.writes.ready.val() & self.out_valid.q.val() {
            self.out_valid.d.next = false;
        }
        self.event_register.beat_taken.next =
            self.writes.ready.val() & self.out_valid.q.val() & self.out_event.q.val();
        if self.take.val() {
            self.packet_function.d.next = self.packets.dst_function.val();
            self.lane.d.next = self.current_lane.val() + self.half_beat.val();
            self.in_packet.d.next = !self.packets.last.val();
            self.beat_address.d.next = self.current_address.val();
            self.window_data.d.next = self.merged_data.val().get_bits::<HOST_DATA_BITS>(0);
            self.window_enables.d.next = self.merged_enables.val().get_bits::<HOST_BEAT_BYTES>(0);
            if self.merged_enables.val().get_bit(15) | self.packets.last.val() {
                // The beat is complete (or the packet ends): it leaves, the high half stays.
                self.out_valid.d.next = true;
                self.out_function.d.next = self.packets.dst_function.val();
                self.out_address.d.next = self.current_address.val();
                self.out_data.d.next = self.merged_data.val().get_bits::<HOST_DATA_BITS>(0);
                self.out_enables.d.next = self.merged_enables.val().get_bits::<HOST_BEAT_BYTES>(0);
                self.out_last.d.next =
                    self.block_ends.val() | (self.packets.last.val() & !self.spill.val());
                self.out_event.d.next =
                    self.packets.last.val() & !self.spill.val() & self.wants_event.val();
                self.beat_address.d.next = self.current_address.val() + self.beat_bytes.val();
                self.window_data.d.next = self.merged_data.val().get_bits::<HOST_DATA_BITS>(128);
                self.window_enables.d.next =
                    self.merged_enables.val().get_bits::<HOST_BEAT_BYTES>(16);
            }
            if self.packets.last.val() {
                self.flush.d.next = self.spill.val();
                self.flush_event.d.next = self.wants_event.val();
            }
        }
        // The spilled bytes of a packet's last word: a beat of their own, ending its write.
        if self.flush.q.val() & self.output_free.val() {
            self.out_valid.d.next = true;
            self.out_function.d.next = self.packet_function.q.val();
            self.out_address.d.next = self.beat_address.q.val();
            self.out_data.d.next = self.window_data.q.val();
            self.out_enables.d.next = self.window_enables.q.val();
            self.out_last.d.next = true;
            self.out_event.d.next = self.flush_event.q.val();
            self.flush.d.next = false;
        }
        // Nothing of a finished packet stays in the window.
        if (self.take.val() & self.packets.last.val() & !self.spill.val())
            | (self.flush.q.val() & self.output_free.val())
        {
            self.window_data.d.next = 0.into();
            self.window_enables.d.next = 0.into();
        }
        self.writes.valid.next = self.out_valid.q.val();
        self.writes.function.next = self.out_function.q.val();
        self.writes.address.next = self.out_address.q.val();
        self.writes.data.next = self.out_data.q.val();
        self.writes.enables.next = self.out_enables.q.val();
        self.writes.last.next = self.out_last.q.val();
        if self.reset.val() {
            self.in_packet.d.next = false;
            self.window_data.d.next = 0.into();
            self.window_enables.d.next = 0.into();
            self.flush.d.next = false;
            self.out_valid.d.next = false;
        }
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
