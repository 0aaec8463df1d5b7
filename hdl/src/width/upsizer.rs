//! Upsizer: `K = ceil(W/B)` beats of `B` bits on `sink`, least significant chunk first, leave
//! `source` as one `W`-bit word (the inverse of [`super::Downsizer`]; the last chunk's bits above
//! `W - (K-1)B` are dropped).
//!
//! Handshake: both sides are valid/ready streams (hold rule respected). Each chunk is written
//! into its own place of the word register; after the `K`-th chunk the word is offered on
//! `source` (from flip-flops). `sink.ready` is high unless a finished word waits for
//! `source.ready`, so the next word's first chunk is taken in the cycle the finished word leaves
//! and the narrow side moves one beat per cycle without a gap. Latency: one cycle after the last
//! chunk. Words are delimited by counting chunks from reset.
//!
//! Ports: `clock`, `reset` (synchronous, active high: drops a partial or finished word),
//! `sink` (chunks), `source` (wide words). Parameters: `W`, `B`, `CW` (see [`super`]). `K` = 1
//! (`W <= B`) is a pass-through: `source` is `sink` with the data truncated to `W` bits.
//!
//! Why this structure: a chunk counter decodes one write enable per chunk, so the word register
//! needs no multiplexer (each flip-flop has one data source, and only its enable is decoded);
//! shifting chunks in would need one where `B` does not divide `W`. rust-hdl cannot assign a
//! slice with a loop index, so each chunk register is declared `W` bits wide holding the chunk
//! in place; the bits outside a chunk are constant zero and synthesis removes them.
use super::check_params;
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// `B`-bit chunks to `W`-bit words.
#[derive(LogicBlock)]
pub struct Upsizer<const W: usize, const B: usize, const CW: usize> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: drops a partial or finished word.
    pub reset: Signal<In, bool>,
    /// Chunks in, least significant first.
    pub sink: StreamSink<Bits<B>>,
    /// Wide words out.
    pub source: StreamSource<Bits<W>>,
    /// Chunk `k`, in place (bits `kB..kB+B` of the word, the rest zero).
    parts: Vec<DFF<Bits<W>>>,
    /// Index of the next chunk.
    index: DFF<Bits<CW>>,
    /// A finished word is offered on `source`.
    full: DFF<bool>,
    /// `K - 1`.
    last_index: Constant<Bits<CW>>,
    /// `k * B` for each chunk `k`.
    offsets: Vec<Constant<Bits<16>>>,
    /// `K` is 1: wires only.
    single: Constant<bool>,
    /// `sink.data` widened to `W` bits.
    widened: Signal<Local, Bits<W>>,
    /// OR of `parts[0..k]` (children before parents, see the emitted Verilog).
    sums: Vec<Signal<Local, Bits<W>>>,
    /// A chunk moves in on this edge.
    taking: Signal<Local, bool>,
}

impl<const W: usize, const B: usize, const CW: usize> Upsizer<W, B, CW> {
    /// An upsizer; panics, naming the parameter, if `CW` is not `chunk_index_bits(W, B)`.
    pub fn new() -> Self {
        let k = check_params("Upsizer", W, B, CW);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sink: Default::default(),
            source: Default::default(),
            parts: (0..k).map(|_| Default::default()).collect(),
            index: Default::default(),
            full: Default::default(),
            last_index: Constant::new(((k - 1) as u64).into()),
            offsets: (0..k)
                .map(|i| Constant::new(((i * B) as u64).into()))
                .collect(),
            single: Constant::new(k == 1),
            widened: Default::default(),
            sums: (0..=k).map(|_| Default::default()).collect(),
            taking: Default::default(),
        }
    }
}

impl<const W: usize, const B: usize, const CW: usize> Default for Upsizer<W, B, CW> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize, const CW: usize> Logic for Upsizer<W, B, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, index, full);
        for k in 0..self.parts.len() {
            self.parts[k].clock.next = self.clock.val();
            self.parts[k].d.next = self.parts[k].q.val();
        }
        self.widened.next = bit_cast::<W, B>(self.sink.data.val());
        self.sums[0].next = 0.into();
        for k in 0..self.parts.len() {
            self.sums[k + 1].next = self.sums[k].val() | self.parts[k].q.val();
        }
        for n in self.parts.len()..(self.parts.len() + 1) {
            self.source.data.next = self.sums[n].val();
        }
        self.source.valid.next = self.full.q.val();
        self.sink.ready.next = !self.full.q.val() | self.source.ready.val();
        self.taking.next = self.sink.valid.val() & (!self.full.q.val() | self.source.ready.val());
        if self.source.ready.val() {
            self.full.d.next = false;
        }
        if self.taking.val() {
            for k in 0..self.parts.len() {
                if self.index.q.val().index() == k {
                    self.parts[k].d.next = self.widened.val() << self.offsets[k].val();
                }
            }
            if self.index.q.val() == self.last_index.val() {
                self.index.d.next = 0.into();
                self.full.d.next = true;
            } else {
                self.index.d.next = self.index.q.val() + 1;
            }
        }
        if self.reset.val() {
            self.index.d.next = 0.into();
            self.full.d.next = false;
        }
        if self.single.val() {
            self.source.valid.next = self.sink.valid.val();
            self.source.data.next = bit_cast::<W, B>(self.sink.data.val());
            self.sink.ready.next = self.source.ready.val();
        }
    }
}

#[test]
fn upsizer_is_synthesizable() {
    use super::chunk_index_bits;
    let mut uut = crate::width::FlitUpsizer::new();
    uut.connect_all();
    yosys_validate("upsizer", &generate_verilog(&uut)).unwrap();
    let mut uut = Upsizer::<16, 20, { chunk_index_bits(16, 20) }>::new();
    uut.connect_all();
    yosys_validate("upsizer_k1", &generate_verilog(&uut)).unwrap();
}
