//! `PacketPayload`: the packetizer's payload side. It picks the current message's source (the
//! inline words for NAP immediate and GET, a GET's word 2 first; the reorder buffer's words for
//! NAP indirect and PUT), cuts the bytes to the packets through [`PacketAlign`], and holds the
//! reorder buffer's words in a **payload buffer** (a block-RAM FIFO of 256 words: two packets
//! at the largest MTU), so that a packet whose data comes from host memory starts only when all
//! of it is here: `packet_ready` tells the packetizer whether the next packet (of `cut` bytes)
//! may leave its head. Once a head has left, the packet's payload words follow one per cycle
//! that the port takes them; no packet waits half sent for host memory. Inline words need no
//! wait (the descriptor fetch streams them from its slot RAM), so `packet_ready` is high for
//! those messages.
//!
//! Gate: ready when the buffer holds the message's last word (then all its remaining bytes are
//! here: words are in message order), or when the bytes held by the aligner plus 8 per
//! buffered word cover `cut`. The buffer's read latency (2 cycles) is hidden behind the head
//! and header flits.
//!
//! Ports: `inline`, `reorder` (sinks), the message's `from_reorder`, `get` and `word_two`,
//! `sending` (the packetizer is in its payload phase: the aligner may take input words),
//! `inline_pop` (the packetizer takes an inline word itself: a PUT's segment words, a refused
//! GET's words), `packet_left` (bytes of the packet still to send: `need` is `min(8, left)`),
//! `take`, `clear` (the message ended), `cut`; out: the aligned word, `need`, `packet_ready`.
use super::packet_align::PacketAlign;
use super::packet_flit::PACKET_BYTES_BITS;
use super::PayloadWordSink;
use hdl::stream_fifo;
use rust_hdl::prelude::*;

/// Depth of the payload buffer in 8-byte words.
pub const PAYLOAD_BUFFER_WORDS: usize = 256;
/// A buffered word: data (63..0), bytes (67..64), last (68), error (69).
const ENTRY_BITS: usize = 70;
/// Bits of the buffer's fill count.
const COUNT_BITS: usize = hdl::fifo::fifo_count_bits(PAYLOAD_BUFFER_WORDS);

/// The payload side; see the module documentation.
#[derive(LogicBlock)]
pub struct PacketPayload {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Inline words.
    pub inline: PayloadWordSink,
    /// The reorder buffer's words.
    pub reorder: PayloadWordSink,
    /// The message's data comes from the reorder buffer.
    pub from_reorder: Signal<In, bool>,
    /// The message is a GET (word 2 first).
    pub get: Signal<In, bool>,
    /// A GET's word 2.
    pub word_two: Signal<In, Bits<64>>,
    /// The packetizer is in its payload phase.
    pub sending: Signal<In, bool>,
    /// The packetizer takes the inline word itself on this edge.
    pub inline_pop: Signal<In, bool>,
    /// Bytes of the packet still to send.
    pub packet_left: Signal<In, Bits<PACKET_BYTES_BITS>>,
    /// The aligned word is sent on this edge.
    pub take: Signal<In, bool>,
    /// The message ends on this edge.
    pub clear: Signal<In, bool>,
    /// The next packet's payload bytes.
    pub cut: Signal<In, Bits<PACKET_BYTES_BITS>>,
    /// The aligned word is there.
    pub aligned_valid: Signal<Out, bool>,
    /// The aligned word.
    pub aligned_word: Signal<Out, Bits<64>>,
    /// Its input word failed its read.
    pub aligned_error: Signal<Out, bool>,
    /// Bytes in the aligned word.
    pub need: Signal<Out, Bits<4>>,
    /// The next packet may leave its head.
    pub packet_ready: Signal<Out, bool>,
    align: PacketAlign,
    buffer: stream_fifo!(Bits<ENTRY_BITS>, PAYLOAD_BUFFER_WORDS),
    /// Message-last words in the buffer.
    buffered_lasts: DFF<Bits<COUNT_BITS>>,
    /// GET: word 2 went into the aligner.
    word_two_sent: DFF<bool>,
    word_two_next: Signal<Local, bool>,
    head_entry: Signal<Local, Bits<ENTRY_BITS>>,
    pushing_last: Signal<Local, bool>,
    popping_last: Signal<Local, bool>,
    /// Bytes the aligner holds plus 8 per buffered word.
    available: Signal<Local, Bits<16>>,
    eight: Constant<Bits<PACKET_BYTES_BITS>>,
    one: Constant<Bits<COUNT_BITS>>,
    bytes_at: Constant<Bits<8>>,
    last_at: Constant<Bits<8>>,
    error_at: Constant<Bits<8>>,
}

impl Default for PacketPayload {
    fn default() -> Self {
        let at = |v: u64| Constant::new(v.to_bits());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            inline: Default::default(),
            reorder: Default::default(),
            from_reorder: Default::default(),
            get: Default::default(),
            word_two: Default::default(),
            sending: Default::default(),
            inline_pop: Default::default(),
            packet_left: Default::default(),
            take: Default::default(),
            clear: Default::default(),
            cut: Default::default(),
            aligned_valid: Default::default(),
            aligned_word: Default::default(),
            aligned_error: Default::default(),
            need: Default::default(),
            packet_ready: Default::default(),
            align: Default::default(),
            buffer: Default::default(),
            buffered_lasts: Default::default(),
            word_two_sent: Default::default(),
            word_two_next: Default::default(),
            head_entry: Default::default(),
            pushing_last: Default::default(),
            popping_last: Default::default(),
            available: Default::default(),
            eight: Constant::new(8u64.to_bits()),
            one: Constant::new(1u64.to_bits()),
            bytes_at: at(64),
            last_at: at(68),
            error_at: at(69),
        }
    }
}

impl Logic for PacketPayload {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, buffered_lasts, word_two_sent);
        clock!(self, clock, align, buffer);
        self.align.reset.next = self.reset.val();
        self.buffer.reset.next = self.reset.val();
        // The reorder buffer's words go into the payload buffer as they come.
        self.buffer.sink.valid.next = self.reorder.valid.val();
        self.reorder.ready.next = self.buffer.sink.ready.val();
        self.buffer.sink.data.next = bit_cast::<ENTRY_BITS, 64>(self.reorder.word.val())
            | (bit_cast::<ENTRY_BITS, 4>(self.reorder.bytes.val()) << self.bytes_at.val())
            | (bit_cast::<ENTRY_BITS, 1>(self.reorder.last.val().into()) << self.last_at.val())
            | (bit_cast::<ENTRY_BITS, 1>(self.reorder.error.val().into()) << self.error_at.val());
        self.head_entry.next = self.buffer.source.data.val();
        // The aligner's input: the buffer or the inline words, a GET's word 2 first.
        self.word_two_next.next = self.get.val() & !self.word_two_sent.q.val();
        self.align.words.valid.next = self.inline.valid.val();
        self.align.words.word.next = self.inline.word.val();
        self.align.words.bytes.next = self.inline.bytes.val();
        self.align.words.last.next = self.inline.last.val();
        self.align.words.error.next = self.inline.error.val();
        if self.from_reorder.val() {
            self.align.words.valid.next = self.buffer.source.valid.val();
            self.align.words.word.next = self.head_entry.val().get_bits::<64>(0);
            self.align.words.bytes.next = self
                .head_entry
                .val()
                .get_bits::<4>(self.bytes_at.val().index());
            self.align.words.last.next = self.head_entry.val().get_bit(self.last_at.val().index());
            self.align.words.error.next =
                self.head_entry.val().get_bit(self.error_at.val().index());
        }
        if self.word_two_next.val() {
            self.align.words.valid.next = true;
            self.align.words.word.next = self.word_two.val();
            self.align.words.bytes.next = 8.into();
            self.align.words.last.next = false;
            self.align.words.error.next = false;
        }
        self.need.next = 8.into();
        if self.packet_left.val() < self.eight.val() {
            self.need.next = self.packet_left.val().get_bits::<4>(0);
        }
        self.align.need.next = self.need.val();
        self.align.take.next = self.take.val();
        self.align.clear.next = self.clear.val();
        self.aligned_valid.next = self.align.aligned_valid.val();
        self.aligned_word.next = self.align.aligned_word.val();
        self.aligned_error.next = self.align.aligned_error.val();
        // Which source gives the word the aligner takes.
        self.buffer.source.ready.next =
            self.sending.val() & self.from_reorder.val() & self.align.words.ready.val();
        self.inline.ready.next = self.inline_pop.val()
            | (self.sending.val()
                & !self.from_reorder.val()
                & !self.word_two_next.val()
                & self.align.words.ready.val());
        if self.align.words.ready.val() & self.word_two_next.val() {
            self.word_two_sent.d.next = true;
        }
        // The gate.
        self.pushing_last.next =
            self.reorder.valid.val() & self.buffer.sink.ready.val() & self.reorder.last.val();
        self.popping_last.next = self.buffer.source.valid.val()
            & self.buffer.source.ready.val()
            & self.head_entry.val().get_bit(self.last_at.val().index());
        if self.pushing_last.val() & !self.popping_last.val() {
            self.buffered_lasts.d.next = self.buffered_lasts.q.val() + self.one.val();
        }
        if !self.pushing_last.val() & self.popping_last.val() {
            self.buffered_lasts.d.next = self.buffered_lasts.q.val() - self.one.val();
        }
        self.available.next = (bit_cast::<16, COUNT_BITS>(self.buffer.count.val()) << 3)
            + bit_cast::<16, 4>(self.align.held_bytes.val());
        self.packet_ready.next = !self.from_reorder.val()
            | self.buffered_lasts.q.val().any()
            | (self.available.val() >= bit_cast::<16, PACKET_BYTES_BITS>(self.cut.val()));
        if self.clear.val() | self.reset.val() {
            self.word_two_sent.d.next = false;
        }
        if self.reset.val() {
            self.buffered_lasts.d.next = 0.into();
            self.reorder.ready.next = false;
        }
    }
}

#[test]
fn packet_payload_is_synthesizable() {
    let mut uut = PacketPayload::default();
    uut.connect_all();
    yosys_validate("packet_payload", &generate_verilog(&uut)).unwrap();
}
