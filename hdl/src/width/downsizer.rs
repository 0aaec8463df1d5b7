//! Downsizer: each `W`-bit beat of `sink` leaves `source` as `K = ceil(W/B)` beats of `B` bits,
//! least significant chunk first, the last chunk zero-padded, with `last` marking it.
//!
//! Handshake: both sides are valid/ready streams (hold rule: a beat offered stays until taken).
//! The wide word is registered, so `source.valid`, `source.data` and `last` depend only on
//! flip-flops; `sink.ready` is high when nothing is held, or when the held word's last chunk
//! leaves on this edge (`source.ready`), so a new word is taken in that same cycle and the
//! narrow side moves one beat per cycle without a gap. Latency: one cycle.
//!
//! Ports: `clock`, `reset` (synchronous, active high: drops the held word), `sink` (wide words),
//! `source` (chunks), `last` (with `source`: this chunk is the word's last). Parameters: `W`,
//! `B`, `CW` (see [`super`]). `K` = 1 (`W <= B`) is a pass-through: `source` is `sink` with the
//! data zero-extended, `last` always high, no register.
//!
//! Why this structure: holding the word and selecting the chunk with the counter (a `K`:1
//! multiplexer of `B` bits) costs about `B (K-1)` LUTs and no multiplexer at the register, while
//! shifting the held word by `B` each beat costs one LUT per bit of `W`.
use super::check_params;
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// `W`-bit words to `B`-bit chunks.
#[derive(LogicBlock)]
pub struct Downsizer<const W: usize, const B: usize, const CW: usize> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: drops the held word.
    pub reset: Signal<In, bool>,
    /// Wide words in.
    pub sink: StreamSink<Bits<W>>,
    /// Chunks out, least significant first.
    pub source: StreamSource<Bits<B>>,
    /// With `source`: the chunk is the last of its word.
    pub last: Signal<Out, bool>,
    /// The held word.
    word: DFF<Bits<W>>,
    /// Index of the chunk on `source`.
    index: DFF<Bits<CW>>,
    /// A word is held.
    full: DFF<bool>,
    /// `K - 1`.
    last_index: Constant<Bits<CW>>,
    /// `k * B` for each chunk `k`.
    offsets: Vec<Constant<Bits<16>>>,
    /// `K` is 1: wires only.
    single: Constant<bool>,
    /// The held word shifted to put the current chunk at bit 0.
    shifted: Signal<Local, Bits<W>>,
    /// The held word's last chunk leaves on this edge.
    ending: Signal<Local, bool>,
}

impl<const W: usize, const B: usize, const CW: usize> Downsizer<W, B, CW> {
    /// A downsizer; panics, naming the parameter, if `CW` is not `chunk_index_bits(W, B)`.
    pub fn new() -> Self {
        let k = check_params("Downsizer", W, B, CW);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sink: Default::default(),
            source: Default::default(),
            last: Default::default(),
            word: Default::default(),
            index: Default::default(),
            full: Default::default(),
            last_index: Constant::new(((k - 1) as u64).into()),
            offsets: (0..k)
                .map(|i| Constant::new(((i * B) as u64).into()))
                .collect(),
            single: Constant::new(k == 1),
            shifted: Default::default(),
            ending: Default::default(),
        }
    }
}

impl<const W: usize, const B: usize, const CW: usize> Default for Downsizer<W, B, CW> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize, const CW: usize> Logic for Downsizer<W, B, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, word, index, full);
        self.shifted.next = self.word.q.val();
        for k in 0..self.offsets.len() {
            if self.index.q.val().index() == k {
                self.shifted.next = self.word.q.val() >> self.offsets[k].val();
            }
        }
        self.ending.next = self.full.q.val()
            & self.source.ready.val()
            & (self.index.q.val() == self.last_index.val());
        self.source.valid.next = self.full.q.val();
        self.source.data.next = bit_cast::<B, W>(self.shifted.val());
        self.last.next = self.index.q.val() == self.last_index.val();
        self.sink.ready.next = !self.full.q.val() | self.ending.val();
        if self.sink.valid.val() & (!self.full.q.val() | self.ending.val()) {
            self.word.d.next = self.sink.data.val();
            self.index.d.next = 0.into();
            self.full.d.next = true;
        } else if self.ending.val() {
            self.full.d.next = false;
        } else if self.full.q.val() & self.source.ready.val() {
            self.index.d.next = self.index.q.val() + 1;
        }
        if self.reset.val() {
            self.full.d.next = false;
        }
        if self.single.val() {
            self.source.valid.next = self.sink.valid.val();
            self.source.data.next = bit_cast::<B, W>(self.sink.data.val());
            self.last.next = true;
            self.sink.ready.next = self.source.ready.val();
        }
    }
}

#[test]
fn downsizer_is_synthesizable() {
    use super::chunk_index_bits;
    let mut uut = crate::width::FlitDownsizer::new();
    uut.connect_all();
    yosys_validate("downsizer", &generate_verilog(&uut)).unwrap();
    let mut uut = Downsizer::<16, 20, { chunk_index_bits(16, 20) }>::new();
    uut.connect_all();
    yosys_validate("downsizer_k1", &generate_verilog(&uut)).unwrap();
}
