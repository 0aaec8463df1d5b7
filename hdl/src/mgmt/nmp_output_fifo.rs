//! NMP output FIFO: the beats between the collector and the packer, so the collector (and the
//! units behind it) can go on while the packer spends [`MGMT_FLITS`](crate::formats::mgmt::MGMT_FLITS)
//! cycles sending a packet.
//!
//! A [`RegFifo`](crate::fifo::RegFifo) of `D` beats without fall-through: flip-flop slots, not
//! a block RAM, because a 544-bit beat would take 34 of the iCE40's 16-bit-wide RAMs (more than
//! the 32 it has) whatever the depth, while 2 slots cost about 1100 logic cells. One beat per
//! cycle in and out for `D >= 2`; a beat accepted in cycle `c` is offered from `c + 1`;
//! `sink.ready` is `!full` from a flip-flop; synchronous `reset` empties it. Depth 2 is the
//! default: the packer takes a beat only every ten cycles, so deeper only helps bursts of
//! fault reports and responses arriving together.
//!
//! Parameters: `D` depth (1..=4: each slot costs ~550 flip-flops), `CW` count width; use
//! [`nmp_output_fifo!`](crate::nmp_output_fifo).
use crate::fifo::RegFifo;
use crate::formats::mgmt::MGMT_BEAT_BITS;
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// The default depth.
pub const NMP_OUTPUT_FIFO_DEPTH: usize = 2;

/// The type of an [`NmpOutputFifo`] of depth `$depth`: `nmp_output_fifo!(2)`.
#[macro_export]
macro_rules! nmp_output_fifo {
    ($depth:expr) => {
        $crate::mgmt::NmpOutputFifo<{ $depth }, { $crate::fifo::fifo_count_bits($depth) }>
    };
}

/// The output FIFO; see the module documentation.
#[derive(LogicBlock)]
pub struct NmpOutputFifo<const D: usize, const CW: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: empties the FIFO.
    pub reset: Signal<In, bool>,
    /// Beats from the collector.
    pub sink: StreamSink<Bits<MGMT_BEAT_BITS>>,
    /// Beats to the packer, in order.
    pub source: StreamSource<Bits<MGMT_BEAT_BITS>>,
    /// Beats held.
    pub count: Signal<Out, Bits<CW>>,
    fifo: RegFifo<Bits<MGMT_BEAT_BITS>, D, CW>,
}

impl<const D: usize, const CW: usize> NmpOutputFifo<D, CW> {
    /// A FIFO of `D` beats. Panics unless `1 <= D <= 4` or if `CW` does not match `D`.
    pub fn new() -> Self {
        assert!(
            (1..=4).contains(&D),
            "NmpOutputFifo: depth D = {D}, must be 1..=4 (each slot is a 544-bit register)"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sink: Default::default(),
            source: Default::default(),
            count: Default::default(),
            fifo: RegFifo::new(false),
        }
    }
}

impl<const D: usize, const CW: usize> Default for NmpOutputFifo<D, CW> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const D: usize, const CW: usize> Logic for NmpOutputFifo<D, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, fifo);
        self.fifo.reset.next = self.reset.val();
        StreamSink::<Bits<MGMT_BEAT_BITS>>::link(&mut self.sink, &mut self.fifo.sink);
        StreamSource::<Bits<MGMT_BEAT_BITS>>::link(&mut self.source, &mut self.fifo.source);
        self.count.next = self.fifo.count.val();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn nmp_output_fifo_is_synthesizable() {
        use rust_hdl::prelude::*;
        let mut uut = <crate::nmp_output_fifo!(2)>::new();
        uut.connect_all();
        yosys_validate("nmp_output_fifo", &generate_verilog(&uut)).unwrap();
    }

    #[test]
    #[should_panic(expected = "NmpOutputFifo: depth D = 5, must be 1..=4")]
    fn nmp_output_fifo_rejects_deep() {
        let _ = <crate::nmp_output_fifo!(5)>::new();
    }
}
