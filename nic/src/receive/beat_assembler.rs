//! `BeatAssembler`: a packet's payload words written at a host address as posted writes of
//! 16-byte beats, the one copy of this logic that `PutUpload` (address = the PUT's `address`)
//! and `NapUpload` (address = its buffer + `nap_offset`) both use.
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
//! **Writes.** Writes are cut at every multiple of `max_payload` (a power of two from 64 to
//! 4096, a divisor of 4096): a beat whose block ends at such a multiple ends its write
//! (`last`), and so does the packet's last beat. So no write exceeds `max_payload` bytes nor
//! crosses a 4 KB boundary, and every cut falls between two beats.
//!
//! **Mark.** A packet offered with `mark` gets its last beat flagged; `marked_taken` pulses
//! in the cycle the host takes that beat (the users release the packet's event then).
//!
//! Handshake: `words` ([`PayloadWordSink`]) is taken when the beat register is free (or
//! leaves now) and no flush is due (`ready` depends on `writes.ready`, never on `valid`);
//! `address` is read on a packet's first word only, `function`, `bytes` and `mark` on every
//! word (the user holds them over the packet). The user may withdraw a word it has not yet
//! had taken (only taken words count). `writes` comes straight from registers (hold rule).
//!
//! Rate: one word (8 bytes) per cycle while the host takes beats, plus one cycle per packet
//! whose last bytes spill into a further beat. Latency: a beat leaves one cycle after the word
//! that completes it is taken.
//!
//! Reset (synchronous): the packet in progress and the beat not yet taken are dropped.
use super::PACKET_BYTES_BITS;
use crate::host::{WriteBeatSource, HOST_BEAT_BYTES, HOST_DATA_BITS};
use hdl::formats::nic::{ADDRESS_BITS, FUNCTION_BITS};
use rust_hdl::prelude::*;

/// Lanes of the two-beat window a word is shifted into.
const WINDOW_LANES: usize = 2 * HOST_BEAT_BYTES;
/// Bits of the two-beat window.
const WINDOW_BITS: usize = 2 * HOST_DATA_BITS;
/// Bits of a lane number in a beat.
const LANE_BITS: usize = 4;

/// A packet's payload words with where they go, at the user (PUT or NAP upload).
#[derive(LogicInterface, Default)]
#[join = "PayloadWordSink"]
pub struct PayloadWordSource {
    /// A word is offered.
    pub valid: Signal<Out, bool>,
    /// The writing function (held over the packet).
    pub function: Signal<Out, Bits<FUNCTION_BITS>>,
    /// Host address of the packet's first byte (read with its first word).
    pub address: Signal<Out, Bits<ADDRESS_BITS>>,
    /// The packet's payload bytes (its low 3 bits give the last word's bytes).
    pub bytes: Signal<Out, Bits<PACKET_BYTES_BITS>>,
    /// The packet's last beat is to be reported (`marked_taken`).
    pub mark: Signal<Out, bool>,
    /// The word (byte `i` in bits `8 i + 7 .. 8 i`).
    pub word: Signal<Out, Bits<64>>,
    /// The packet's last word.
    pub last: Signal<Out, bool>,
    /// The word is taken on this edge.
    pub ready: Signal<In, bool>,
}

/// Payload words, at the assembler.
#[derive(LogicInterface, Default)]
#[join = "PayloadWordSource"]
pub struct PayloadWordSink {
    /// A word is offered.
    pub valid: Signal<In, bool>,
    /// The writing function.
    pub function: Signal<In, Bits<FUNCTION_BITS>>,
    /// Address of the packet's first byte.
    pub address: Signal<In, Bits<ADDRESS_BITS>>,
    /// The packet's payload bytes.
    pub bytes: Signal<In, Bits<PACKET_BYTES_BITS>>,
    /// Report the packet's last beat.
    pub mark: Signal<In, bool>,
    /// The word.
    pub word: Signal<In, Bits<64>>,
    /// The packet's last word.
    pub last: Signal<In, bool>,
    /// Taken on this edge.
    pub ready: Signal<Out, bool>,
}

/// The beat assembler; see the module documentation.
#[derive(LogicBlock)]
pub struct BeatAssembler {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Payload words with their address.
    pub words: PayloadWordSink,
    /// Posted writes.
    pub writes: WriteBeatSource,
    /// Pulse: the host takes a marked packet's last beat on this edge.
    pub marked_taken: Signal<Out, bool>,
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
    /// That beat ends a marked packet.
    flush_mark: DFF<bool>,
    /// The packet's writing function (not `function`: a Verilog keyword).
    packet_function: DFF<Bits<FUNCTION_BITS>>,
    // Output beat register.
    out_valid: DFF<bool>,
    out_function: DFF<Bits<FUNCTION_BITS>>,
    out_address: DFF<Bits<ADDRESS_BITS>>,
    out_data: DFF<Bits<HOST_DATA_BITS>>,
    out_enables: DFF<Bits<HOST_BEAT_BYTES>>,
    out_last: DFF<bool>,
    /// The beat is a marked packet's last.
    out_mark: DFF<bool>,
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
    output_free: Signal<Local, bool>,
    take: Signal<Local, bool>,
    /// The bytes count above its low 3 bits (only the last word's share matters here).
    unused_bytes: Signal<Local, Bits<PACKET_BYTES_BITS>>,
}

impl BeatAssembler {
    /// The assembler, cutting writes at `max_payload` bytes (a power of two, 64..=4096).
    pub fn new(max_payload: usize) -> Self {
        assert!(
            max_payload.is_power_of_two() && (64..=4096).contains(&max_payload),
            "BeatAssembler: max_payload must be a power of two from 64 to 4096, got {max_payload}"
        );
        let bits = |v: u64| Constant::new(Bits::<ADDRESS_BITS>::from(v));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            words: Default::default(),
            writes: Default::default(),
            marked_taken: Default::default(),
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
            flush_mark: Default::default(),
            packet_function: Default::default(),
            out_valid: Default::default(),
            out_function: Default::default(),
            out_address: Default::default(),
            out_data: Default::default(),
            out_enables: Default::default(),
            out_last: Default::default(),
            out_mark: Default::default(),
            current_address: Default::default(),
            current_lane: Default::default(),
            tail_bytes: Default::default(),
            word_enables: Default::default(),
            shift_bits: Default::default(),
            merged_data: Default::default(),
            merged_enables: Default::default(),
            spill: Default::default(),
            block_ends: Default::default(),
            output_free: Default::default(),
            take: Default::default(),
            unused_bytes: Default::default(),
        }
    }
}

impl Logic for BeatAssembler {
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
            flush_mark,
            packet_function,
            out_valid,
            out_function,
            out_address,
            out_data,
            out_enables,
            out_last,
            out_mark
        );
        self.unused_bytes.next = self.words.bytes.val();
        // The word's place: a packet's first word starts at its address.
        self.current_address.next = self.beat_address.q.val();
        self.current_lane.next = self.lane.q.val();
        if !self.in_packet.q.val() {
            self.current_address.next = self.words.address.val() & self.beat_base.val();
            self.current_lane.next = self.words.address.val().get_bits::<LANE_BITS>(0);
        }
        // The word's bytes: all 8, or on the packet's last word `bytes mod 8` (0 meaning 8).
        self.tail_bytes.next = self.words.bytes.val().get_bits::<3>(0);
        self.word_enables.next = self.all_bytes.val();
        if self.words.last.val() {
            for n in 0..8 {
                if self.tail_bytes.val().index() == n {
                    self.word_enables.next = self.tail_masks[n].val();
                }
            }
        }
        self.shift_bits.next = bit_cast::<8, LANE_BITS>(self.current_lane.val()) << 3;
        self.merged_data.next = bit_cast::<WINDOW_BITS, HOST_DATA_BITS>(self.window_data.q.val())
            | (bit_cast::<WINDOW_BITS, 64>(self.words.word.val()) << self.shift_bits.val());
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
        // Take a word when the beat register is free (or leaves now) and no flush is due.
        self.output_free.next = !self.out_valid.q.val() | self.writes.ready.val();
        self.words.ready.next = self.output_free.val() & !self.flush.q.val();
        self.take.next = self.words.valid.val() & self.words.ready.val();
        // The beat register empties when the host takes its beat.
        if self.writes.ready.val() & self.out_valid.q.val() {
            self.out_valid.d.next = false;
        }
        self.marked_taken.next =
            self.writes.ready.val() & self.out_valid.q.val() & self.out_mark.q.val();
        if self.take.val() {
            self.packet_function.d.next = self.words.function.val();
            self.lane.d.next = self.current_lane.val() + self.half_beat.val();
            self.in_packet.d.next = !self.words.last.val();
            self.beat_address.d.next = self.current_address.val();
            self.window_data.d.next = self.merged_data.val().get_bits::<HOST_DATA_BITS>(0);
            self.window_enables.d.next = self.merged_enables.val().get_bits::<HOST_BEAT_BYTES>(0);
            if self.merged_enables.val().get_bit(15) | self.words.last.val() {
                // The beat is complete (or the packet ends): it leaves, the high half stays.
                self.out_valid.d.next = true;
                self.out_function.d.next = self.words.function.val();
                self.out_address.d.next = self.current_address.val();
                self.out_data.d.next = self.merged_data.val().get_bits::<HOST_DATA_BITS>(0);
                self.out_enables.d.next = self.merged_enables.val().get_bits::<HOST_BEAT_BYTES>(0);
                self.out_last.d.next =
                    self.block_ends.val() | (self.words.last.val() & !self.spill.val());
                self.out_mark.d.next =
                    self.words.last.val() & !self.spill.val() & self.words.mark.val();
                self.beat_address.d.next = self.current_address.val() + self.beat_bytes.val();
                self.window_data.d.next = self.merged_data.val().get_bits::<HOST_DATA_BITS>(128);
                self.window_enables.d.next =
                    self.merged_enables.val().get_bits::<HOST_BEAT_BYTES>(16);
            }
            if self.words.last.val() {
                self.flush.d.next = self.spill.val();
                self.flush_mark.d.next = self.words.mark.val();
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
            self.out_mark.d.next = self.flush_mark.q.val();
            self.flush.d.next = false;
        }
        // Nothing of a finished packet stays in the window.
        if (self.take.val() & self.words.last.val() & !self.spill.val())
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
fn beat_assembler_is_synthesizable() {
    for max_payload in [64, 4096] {
        let mut uut = BeatAssembler::new(max_payload);
        uut.connect_all();
        yosys_validate(
            &format!("beat_assembler_{max_payload}"),
            &generate_verilog(&uut),
        )
        .unwrap();
    }
}

#[test]
#[should_panic(expected = "max_payload must be a power of two from 64 to 4096")]
fn beat_assembler_refuses_a_bad_max_payload() {
    let _ = BeatAssembler::new(96);
}
