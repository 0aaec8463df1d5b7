//! RS downsizer: packets of `W`-bit words (flits) into `B`-bit RS beats, each word as
//! `K = ceil(W/B)` beats, least significant first ([`Downsizer`]), with the packet's `last` on the
//! final beat of its last word and the word's `port` on every beat.
//!
//! `last` and `port` are taken into registers with the word (on the edge the [`Downsizer`]
//! accepts it), so all outputs still come from flip-flops; one narrow beat per cycle moves
//! without a gap between words. Latency one cycle. `K` = 1 is a wire.
//!
//! Ports: `clock`, `reset` (synchronous: drops the held word), `sink` (words), `source` (beats).
//! Parameters: `W`, `B`, `P` port bits, `CW` = [`chunk_index_bits`](crate::width::chunk_index_bits)`(W, B)`.
use super::relay_station::{RsBeatSink, RsBeatSource};
use crate::width::Downsizer;
use rust_hdl::prelude::*;

/// Words of a packet to RS beats.
#[derive(LogicBlock)]
pub struct RsDownsizer<const W: usize, const B: usize, const P: usize, const CW: usize> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: drops the held word.
    pub reset: Signal<In, bool>,
    /// Words in.
    pub sink: RsBeatSink<W, P>,
    /// Beats out.
    pub source: RsBeatSource<B, P>,
    down: Downsizer<W, B, CW>,
    /// The held word ends its packet.
    word_last: DFF<bool>,
    /// The held word's port.
    word_port: DFF<Bits<P>>,
    /// `K` is 1: wires only.
    single: Constant<bool>,
}

impl<const W: usize, const B: usize, const P: usize, const CW: usize> RsDownsizer<W, B, P, CW> {
    /// A downsizer; panics, naming the parameter, if `CW` is not `chunk_index_bits(W, B)`.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sink: Default::default(),
            source: Default::default(),
            down: Downsizer::new(),
            word_last: Default::default(),
            word_port: Default::default(),
            single: Constant::new(crate::width::chunks(W, B) == 1),
        }
    }
}

impl<const W: usize, const B: usize, const P: usize, const CW: usize> Default
    for RsDownsizer<W, B, P, CW>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize, const P: usize, const CW: usize> Logic
    for RsDownsizer<W, B, P, CW>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, word_last, word_port);
        clock!(self, clock, down);
        self.down.reset.next = self.reset.val();
        self.down.sink.valid.next = self.sink.valid.val();
        self.down.sink.data.next = self.sink.data.val();
        self.sink.ready.next = self.down.sink.ready.val();
        if self.sink.valid.val() & self.down.sink.ready.val() {
            self.word_last.d.next = self.sink.last.val();
            self.word_port.d.next = self.sink.port.val();
        }
        self.source.valid.next = self.down.source.valid.val();
        self.source.data.next = self.down.source.data.val();
        self.down.source.ready.next = self.source.ready.val();
        self.source.last.next = self.down.last.val() & self.word_last.q.val();
        self.source.port.next = self.word_port.q.val();
        if self.single.val() {
            self.source.last.next = self.sink.last.val();
            self.source.port.next = self.sink.port.val();
        }
    }
}

#[test]
fn rs_downsizer_is_synthesizable() {
    use crate::width::chunk_index_bits;
    let mut uut = RsDownsizer::<65, 20, 5, { chunk_index_bits(65, 20) }>::new();
    uut.connect_all();
    yosys_validate("rs_downsizer", &generate_verilog(&uut)).unwrap();
}
