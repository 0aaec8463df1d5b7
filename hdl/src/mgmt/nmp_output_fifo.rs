//! NMP output FIFO: the packed flits between the packer and the mesh (or the NIC's network
//! port), so the collector, the packer and the units behind them can go on while the mesh is
//! busy, and a long path through the packer's flit multiplexer and CRC ends at a block RAM's
//! write port instead of running on into the mesh.
//!
//! Each entry is one flit with its packet's output `port` and `last` (the tail), the
//! [`RsBeatSource`] bundle of [`FLIT_BITS`] bits; entries of a packet are written in order by
//! the packer, so packets leave whole and in order. Storage is a [`BramFifo`] of `D` entries
//! (`D` a power of two >= 4): a 71-bit entry takes five of the iCE40's 16-bit-wide block RAMs at
//! any depth up to 256, and no logic cells for the data. (The FIFO used to sit between the
//! collector and the packer and hold whole 544-bit beats in flip-flops: two beats cost about
//! 1,100 flip-flops, the largest single item of the agent.) Depth [`NMP_OUTPUT_FIFO_DEPTH`]
//! holds three whole management packets.
//!
//! Timing: one entry per cycle in and out; an entry accepted in cycle `c` is offered from
//! `c + 2` (the block RAM's registered read); `sink.ready` is `!full` from a flip-flop;
//! synchronous `reset` empties it.
//!
//! Parameters: `D` depth, `AW` address and `CW` count widths; use
//! [`nmp_output_fifo!`](crate::nmp_output_fifo).
use super::relay_station::{RsBeatSink, RsBeatSource};
use crate::fifo::BramFifo;
use crate::formats::mgmt::HOP_BITS;
use crate::formats::FLIT_BITS;
use rust_hdl::prelude::*;

/// The default depth, in flits: three management packets of ten flits, rounded up to a power
/// of two.
pub const NMP_OUTPUT_FIFO_DEPTH: usize = 32;
/// Bits of one entry: the flit, then `last`, then `port`.
pub const OUTPUT_ENTRY_BITS: usize = FLIT_BITS + 1 + HOP_BITS;

/// The type of an [`NmpOutputFifo`] of depth `$depth`: `nmp_output_fifo!(32)`.
#[macro_export]
macro_rules! nmp_output_fifo {
    ($depth:expr) => {
        $crate::mgmt::NmpOutputFifo<
            { $depth },
            { $crate::fifo::fifo_ptr_bits($depth) },
            { $crate::fifo::fifo_count_bits($depth) },
        >
    };
}

/// The output FIFO; see the module documentation.
#[derive(LogicBlock)]
pub struct NmpOutputFifo<const D: usize, const AW: usize, const CW: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: empties the FIFO.
    pub reset: Signal<In, bool>,
    /// Flits from the packer, `port` = the packet's output port, `last` on its tail.
    pub sink: RsBeatSink<FLIT_BITS, HOP_BITS>,
    /// The same flits, in order.
    pub source: RsBeatSource<FLIT_BITS, HOP_BITS>,
    /// Flits held.
    pub count: Signal<Out, Bits<CW>>,
    fifo: BramFifo<Bits<OUTPUT_ENTRY_BITS>, D, AW, CW>,
    /// The entry without `last`.
    entry: Signal<Local, Bits<OUTPUT_ENTRY_BITS>>,
    /// Where `last` and `port` sit in an entry.
    last_bit: Constant<Bits<7>>,
    last_mask: Constant<Bits<OUTPUT_ENTRY_BITS>>,
    port_lsb: Constant<Bits<7>>,
}

impl<const D: usize, const AW: usize, const CW: usize> NmpOutputFifo<D, AW, CW> {
    /// A FIFO of `D` flits. Panics (from [`BramFifo::new`]) unless `D` is a power of two >= 4
    /// and the widths match it.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sink: Default::default(),
            source: Default::default(),
            count: Default::default(),
            fifo: BramFifo::new(),
            entry: Default::default(),
            last_bit: Constant::new(FLIT_BITS.to_bits()),
            last_mask: Constant::new(
                Bits::<OUTPUT_ENTRY_BITS>::default().replace_bit(FLIT_BITS, true),
            ),
            port_lsb: Constant::new((FLIT_BITS + 1).to_bits()),
        }
    }
}

impl<const D: usize, const AW: usize, const CW: usize> Default for NmpOutputFifo<D, AW, CW> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const D: usize, const AW: usize, const CW: usize> Logic for NmpOutputFifo<D, AW, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, fifo);
        self.fifo.reset.next = self.reset.val();
        self.fifo.sink.valid.next = self.sink.valid.val();
        // The entry: the flit, `last` above it, `port` above that.
        self.entry.next = bit_cast::<OUTPUT_ENTRY_BITS, FLIT_BITS>(self.sink.data.val())
            | (bit_cast::<OUTPUT_ENTRY_BITS, HOP_BITS>(self.sink.port.val())
                << self.port_lsb.val());
        self.fifo.sink.data.next = self.entry.val();
        if self.sink.last.val() {
            self.fifo.sink.data.next = self.entry.val() | self.last_mask.val();
        }
        self.sink.ready.next = self.fifo.sink.ready.val();
        self.source.valid.next = self.fifo.source.valid.val();
        self.source.data.next = self.fifo.source.data.val().get_bits::<FLIT_BITS>(0);
        self.source.last.next = self
            .fifo
            .source
            .data
            .val()
            .get_bit(self.last_bit.val().index());
        self.source.port.next = self
            .fifo
            .source
            .data
            .val()
            .get_bits::<HOP_BITS>(self.port_lsb.val().index());
        self.fifo.source.ready.next = self.source.ready.val();
        self.count.next = self.fifo.count.val();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn nmp_output_fifo_is_synthesizable() {
        use rust_hdl::prelude::*;
        let mut uut = <crate::nmp_output_fifo!(super::NMP_OUTPUT_FIFO_DEPTH)>::new();
        uut.connect_all();
        yosys_validate("nmp_output_fifo", &generate_verilog(&uut)).unwrap();
    }

    #[test]
    #[should_panic(expected = "BramFifo: D (depth) is 6")]
    fn nmp_output_fifo_rejects_depths_that_are_not_powers_of_two() {
        let _ = <crate::nmp_output_fifo!(6)>::new();
    }
}
