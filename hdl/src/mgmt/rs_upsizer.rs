//! RS upsizer: RS beats back into the `W`-bit words (flits) of a packet ([`Upsizer`]), the
//! inverse of [`super::rs_downsizer::RsDownsizer`]: a word's `last` and `port` are those of its
//! final beat.
//!
//! `last` and `port` are registered with every beat taken, so when a word is finished they hold
//! its final beat's; the next word's first beat can only be taken on the edge the finished word
//! leaves, so they always belong to the word offered. Latency one cycle after the final beat;
//! one beat per cycle on the narrow side. `K` = 1 is a wire.
//!
//! Ports: `clock`, `reset` (synchronous: drops a partial or finished word), `sink` (beats),
//! `source` (words). Parameters: `W`, `B`, `P`, `CW` as for the downsizer.
use super::relay_station::{RsBeatSink, RsBeatSource};
use crate::width::Upsizer;
use rust_hdl::prelude::*;

/// RS beats to words of a packet.
#[derive(LogicBlock)]
pub struct RsUpsizer<const W: usize, const B: usize, const P: usize, const CW: usize> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: drops a partial or finished word.
    pub reset: Signal<In, bool>,
    /// Beats in.
    pub sink: RsBeatSink<B, P>,
    /// Words out.
    pub source: RsBeatSource<W, P>,
    up: Upsizer<W, B, CW>,
    /// `last` of the latest beat taken.
    beat_last: DFF<bool>,
    /// `port` of the latest beat taken.
    beat_port: DFF<Bits<P>>,
    /// `K` is 1: wires only.
    single: Constant<bool>,
}

impl<const W: usize, const B: usize, const P: usize, const CW: usize> RsUpsizer<W, B, P, CW> {
    /// An upsizer; panics, naming the parameter, if `CW` is not `chunk_index_bits(W, B)`.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sink: Default::default(),
            source: Default::default(),
            up: Upsizer::new(),
            beat_last: Default::default(),
            beat_port: Default::default(),
            single: Constant::new(crate::width::chunks(W, B) == 1),
        }
    }
}

impl<const W: usize, const B: usize, const P: usize, const CW: usize> Default
    for RsUpsizer<W, B, P, CW>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize, const P: usize, const CW: usize> Logic
    for RsUpsizer<W, B, P, CW>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, beat_last, beat_port);
        clock!(self, clock, up);
        self.up.reset.next = self.reset.val();
        self.up.sink.valid.next = self.sink.valid.val();
        self.up.sink.data.next = self.sink.data.val();
        self.sink.ready.next = self.up.sink.ready.val();
        if self.sink.valid.val() & self.up.sink.ready.val() {
            self.beat_last.d.next = self.sink.last.val();
            self.beat_port.d.next = self.sink.port.val();
        }
        self.source.valid.next = self.up.source.valid.val();
        self.source.data.next = self.up.source.data.val();
        self.up.source.ready.next = self.source.ready.val();
        self.source.last.next = self.beat_last.q.val();
        self.source.port.next = self.beat_port.q.val();
        if self.single.val() {
            self.source.last.next = self.sink.last.val();
            self.source.port.next = self.sink.port.val();
        }
    }
}

#[test]
fn rs_upsizer_is_synthesizable() {
    use crate::width::chunk_index_bits;
    let mut uut = RsUpsizer::<65, 20, 5, { chunk_index_bits(65, 20) }>::new();
    uut.connect_all();
    yosys_validate("rs_upsizer", &generate_verilog(&uut)).unwrap();
}
