//! RS downsizer: packets of `W`-bit words (flits) into `B`-bit RS beats, each word as
//! `K = ceil(W/B)` beats, least significant first (the last chunk zero-padded), with the
//! packet's `last` on the final beat of its last word and the word's `port` on every beat.
//!
//! No storage: the word waits on `sink` (the stream rules hold it steady until it is taken) and
//! a chunk counter selects the beat sent, a `K`:1 multiplexer of `B` bits; the word is taken
//! (`sink.ready`) with its last chunk. So the beats follow the sender's flip-flops through one
//! multiplexer, and the downsizer costs a `CW`-bit counter instead of a `W`-bit word register
//! (the relay-station mesh has one per port and one for the NMA: 9 x 72 flip-flops saved at 8
//! ports, where the mesh had to shrink to fit an iCE40-HX8K). Latency zero: a word offered in
//! cycle `c` sends its first beat in `c`; one beat per cycle moves without a gap between words.
//! `K` = 1 is a wire (the counter stays 0).
//!
//! Ports: `clock`, `reset` (synchronous: the counter restarts, so a word cut by a reset is sent
//! again whole from its first chunk; nothing is offered or taken in the reset cycle), `sink`
//! (words), `source` (beats). Parameters: `W`, `B`, `P` port bits, `CW` =
//! [`chunk_index_bits`](crate::width::chunk_index_bits)`(W, B)`.
use super::relay_station::{RsBeatSink, RsBeatSource};
use rust_hdl::prelude::*;

/// Words of a packet to RS beats.
#[derive(LogicBlock)]
pub struct RsDownsizer<const W: usize, const B: usize, const P: usize, const CW: usize> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: the word on `sink` starts again from its first chunk.
    pub reset: Signal<In, bool>,
    /// Words in (held by the sender until taken with their last chunk).
    pub sink: RsBeatSink<W, P>,
    /// Beats out.
    pub source: RsBeatSource<B, P>,
    /// Index of the chunk on offer.
    index: DFF<Bits<CW>>,
    /// `K - 1`.
    last_index: Constant<Bits<CW>>,
    /// Bit offset of chunk `k`.
    offsets: Vec<Constant<Bits<16>>>,
    /// The word shifted down to the chunk on offer.
    shifted: Signal<Local, Bits<W>>,
    /// The chunk on offer is the word's last.
    final_chunk: Signal<Local, bool>,
}

impl<const W: usize, const B: usize, const P: usize, const CW: usize> RsDownsizer<W, B, P, CW> {
    /// A downsizer; panics, naming the parameter, if `CW` is not `chunk_index_bits(W, B)`.
    pub fn new() -> Self {
        let k = crate::width::check_params("RsDownsizer", W, B, CW);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sink: Default::default(),
            source: Default::default(),
            index: Default::default(),
            last_index: Constant::new(((k - 1) as u64).into()),
            offsets: (0..k)
                .map(|i| Constant::new(((i * B) as u64).into()))
                .collect(),
            shifted: Default::default(),
            final_chunk: Default::default(),
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
        dff_setup!(self, clock, index);
        self.shifted.next = self.sink.data.val();
        for k in 0..self.offsets.len() {
            if self.index.q.val().index() == k {
                self.shifted.next = self.sink.data.val() >> self.offsets[k].val();
            }
        }
        self.final_chunk.next = self.index.q.val() == self.last_index.val();
        self.source.valid.next = self.sink.valid.val() & !self.reset.val();
        self.source.data.next = bit_cast::<B, W>(self.shifted.val());
        self.source.last.next = self.sink.last.val() & self.final_chunk.val();
        self.source.port.next = self.sink.port.val();
        self.sink.ready.next = self.source.ready.val() & self.final_chunk.val() & !self.reset.val();
        if self.sink.valid.val() & self.source.ready.val() {
            self.index.d.next = self.index.q.val() + 1;
            if self.final_chunk.val() {
                self.index.d.next = 0.into();
            }
        }
        if self.reset.val() {
            self.index.d.next = 0.into();
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
