//! `PacketAlign`: the packetizer's payload stage. It takes a message's bytes as 8-byte words
//! whose byte 0 is the message's next byte (`PayloadWordSource` order) and gives them back cut
//! to the packets' sizes: each output word holds the next `need` (1..=8) bytes of the message,
//! the rest zero. A packet that ends inside an input word leaves that word's other bytes here
//! for the next packet, whose first word then starts with them: a PUT cut at a destination
//! segment of any length therefore starts its next packet's payload at byte 0 of a flit, as the
//! format requires.
//!
//! **State**: up to 7 bytes `held` from the last input word taken (zero above `held_count`).
//! An output word comes from `held` alone when it holds `need` bytes; otherwise from `held`
//! followed by the input word (which is then taken with the output word), so one input word
//! per output word at most and one output word per cycle.
//!
//! **Handshake**: `aligned_valid` with `aligned_word` for the `need` asked this cycle; the
//! packetizer raises `take` on the edge it sends the word (only when `aligned_valid`).
//! `aligned_error` is the taken input word's `error` flag (`false` for a word from `held`
//! alone), so the message's verdict on its last word reaches the packet carrying it.
//!
//! **Clear**: `clear` drops the held bytes (the packetizer pulses it when a message ends, so
//! a message never passes bytes to the next, whatever its source delivered). Reset likewise.
use super::PayloadWordSink;
use rust_hdl::prelude::*;

/// The payload aligner; see the module documentation.
#[derive(LogicBlock)]
pub struct PacketAlign {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The message's words.
    pub words: PayloadWordSink,
    /// Bytes wanted in the output word (1..=8).
    pub need: Signal<In, Bits<4>>,
    /// The output word is there.
    pub aligned_valid: Signal<Out, bool>,
    /// The output word: `need` bytes, the rest zero.
    pub aligned_word: Signal<Out, Bits<64>>,
    /// The input word taken with this output word failed its read.
    pub aligned_error: Signal<Out, bool>,
    /// The output word is sent on this edge.
    pub take: Signal<In, bool>,
    /// Drop the held bytes on this edge (a message ended).
    pub clear: Signal<In, bool>,
    /// Bytes held from the last input word.
    pub held_bytes: Signal<Out, Bits<4>>,
    held: DFF<Bits<64>>,
    held_count: DFF<Bits<4>>,
    /// `held` holds `need` bytes: no input word is needed.
    enough: Signal<Local, bool>,
    /// `held` followed by the input word.
    combined: Signal<Local, Bits<128>>,
    /// The bytes the output word comes from, byte 0 first.
    window: Signal<Local, Bits<128>>,
    /// Bits of `need` bytes (`8 need`).
    need_bits: Signal<Local, Bits<8>>,
    /// Bits of the held bytes (`8 held_count`).
    held_bits: Signal<Local, Bits<8>>,
    /// Bytes in `window`.
    available: Signal<Local, Bits<5>>,
    /// What `held` becomes when the word is sent: the bytes after it, and their count.
    rest: Signal<Local, Bits<128>>,
    rest_count: Signal<Local, Bits<5>>,
    ones: Constant<Bits<64>>,
    /// `words.last` is not needed: the packetizer counts the message's bytes itself.
    last_unused: Signal<Local, bool>,
}

impl Logic for PacketAlign {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, held, held_count);
        self.last_unused.next = self.words.last.val();
        self.held_bytes.next = self.held_count.q.val();
        self.enough.next = self.held_count.q.val() >= self.need.val();
        self.need_bits.next = bit_cast::<8, 4>(self.need.val()) << 3;
        self.held_bits.next = bit_cast::<8, 4>(self.held_count.q.val()) << 3;
        self.combined.next = bit_cast::<128, 64>(self.held.q.val())
            | (bit_cast::<128, 64>(self.words.word.val()) << self.held_bits.val());
        self.window.next = bit_cast::<128, 64>(self.held.q.val());
        self.available.next = bit_cast::<5, 4>(self.held_count.q.val());
        self.aligned_valid.next = true;
        self.aligned_error.next = false;
        self.words.ready.next = false;
        if !self.enough.val() {
            self.window.next = self.combined.val();
            self.available.next = bit_cast::<5, 4>(self.held_count.q.val())
                + bit_cast::<5, 4>(self.words.bytes.val());
            self.aligned_valid.next = self.words.valid.val();
            self.aligned_error.next = self.words.error.val();
            self.words.ready.next = self.take.val();
        }
        self.aligned_word.next =
            self.window.val().get_bits::<64>(0) & !(self.ones.val() << self.need_bits.val());
        if self.need.val() == 8 {
            self.aligned_word.next = self.window.val().get_bits::<64>(0);
        }
        self.rest.next = self.window.val() >> self.need_bits.val();
        self.rest_count.next = self.available.val() - bit_cast::<5, 4>(self.need.val());
        if self.take.val() & self.aligned_valid.val() {
            self.held.d.next = self.rest.val().get_bits::<64>(0);
            self.held_count.d.next = self.rest_count.val().get_bits::<4>(0);
        }
        if self.clear.val() | self.reset.val() {
            self.held.d.next = 0.into();
            self.held_count.d.next = 0.into();
        }
        if self.reset.val() {
            self.words.ready.next = false;
            self.aligned_valid.next = false;
        }
    }
}

impl Default for PacketAlign {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            words: Default::default(),
            need: Default::default(),
            aligned_valid: Default::default(),
            aligned_word: Default::default(),
            aligned_error: Default::default(),
            take: Default::default(),
            clear: Default::default(),
            held_bytes: Default::default(),
            held: Default::default(),
            held_count: Default::default(),
            enough: Default::default(),
            combined: Default::default(),
            window: Default::default(),
            need_bits: Default::default(),
            held_bits: Default::default(),
            available: Default::default(),
            rest: Default::default(),
            rest_count: Default::default(),
            ones: Constant::new(!Bits::<64>::default()),
            last_unused: Default::default(),
        }
    }
}

#[test]
fn packet_align_is_synthesizable() {
    let mut uut = PacketAlign::default();
    uut.connect_all();
    yosys_validate("packet_align", &generate_verilog(&uut)).unwrap();
}
