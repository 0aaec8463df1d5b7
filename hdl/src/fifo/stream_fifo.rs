//! Stream FIFO: the FIFO most blocks instantiate. It holds a [`RegFifo`] or a [`BramFifo`],
//! chosen at elaboration from the depth, behind one set of ports.
//!
//! Choice: `D <= REG_FIFO_MAX_DEPTH` (16) -> registers, deeper -> block RAM (a power of two),
//! unless [`StreamFifo::with_kind`] forces one. The iCE40 HX8K has only 32 block RAMs
//! (256 x 16 bits each) and 7680 logic cells: a register FIFO costs about one logic cell per
//! stored bit plus one per slot (32 bits x 16: 560 cells, 7 % of the chip), a block-RAM FIFO
//! about 35 cells plus one RAM per 16 bits of width (32 bits x 32: 2 of the 32 RAMs). Shallow
//! FIFOs in flip-flops keep the RAMs for deep buffers.
//!
//! How: the block holds a `Vec` of each kind, exactly one of which has one element; rust-hdl
//! unrolls loops over the empty one into nothing, so the Verilog contains only the chosen FIFO.
//!
//! Behaviour is the chosen FIFO's (see [`super`]): `sink.ready == !full` from flip-flops, a
//! full FIFO refuses a beat in a cycle where it pops one, `count` is the number of beats
//! accepted and not yet popped, synchronous `reset`. Latency is 1 cycle with registers and
//! 2 with block RAM (fall-through is a `RegFifo` option only); both sustain one beat per cycle
//! (registers from depth 2).
//!
//! Parameters: `T` beat type; `D` depth (slots; 0 is a wire; above 16 a power of two); `AW`,
//! `CW` address and count widths ([`fifo_ptr_bits`](super::fifo_ptr_bits), [`fifo_count_bits`](super::fifo_count_bits)).
//! Use [`stream_fifo!`](crate::stream_fifo) to fill the widths in.
use super::{BramFifo, RegFifo};
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// Largest depth [`StreamFifo::new`] builds from registers.
pub const REG_FIFO_MAX_DEPTH: usize = 16;

/// The storage a [`StreamFifo`] uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FifoKind {
    /// Flip-flop slots ([`RegFifo`] without fall-through).
    Registers,
    /// A block RAM ([`BramFifo`]).
    BlockRam,
}

impl FifoKind {
    /// The kind [`StreamFifo::new`] picks for `depth`.
    pub fn for_depth(depth: usize) -> Self {
        if depth <= REG_FIFO_MAX_DEPTH {
            FifoKind::Registers
        } else {
            FifoKind::BlockRam
        }
    }
}

/// FIFO of `D` beats in registers or block RAM, chosen at elaboration.
#[derive(LogicBlock)]
pub struct StreamFifo<T: Synth, const D: usize, const AW: usize, const CW: usize> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: empties the FIFO.
    pub reset: Signal<In, bool>,
    /// Beats in; `ready` is `!full`.
    pub sink: StreamSink<T>,
    /// Beats out, in order.
    pub source: StreamSource<T>,
    /// Beats accepted and not yet popped, 0 to `D`.
    pub count: Signal<Out, Bits<CW>>,
    regs: Vec<RegFifo<T, D, CW>>,
    brams: Vec<BramFifo<T, D, AW, CW>>,
}

impl<T: Synth, const D: usize, const AW: usize, const CW: usize> StreamFifo<T, D, AW, CW> {
    /// A FIFO of `D` slots, in registers up to [`REG_FIFO_MAX_DEPTH`], else in block RAM.
    pub fn new() -> Self {
        Self::with_kind(FifoKind::for_depth(D))
    }
    /// A FIFO of `D` slots in the storage `kind`. Panics if `AW`/`CW` do not match `D`, or if
    /// `kind` is `BlockRam` and `D` is not a power of two >= 4.
    pub fn with_kind(kind: FifoKind) -> Self {
        super::check_ptr_width("StreamFifo", D, AW);
        super::check_count_width("StreamFifo", D, CW);
        assert!(
            kind == FifoKind::Registers || (D >= 4 && D.is_power_of_two()),
            "StreamFifo: D (depth) is {D}; in block RAM (any depth above {REG_FIFO_MAX_DEPTH}) \
             it must be a power of two >= 4"
        );
        let (regs, brams) = match kind {
            FifoKind::Registers => (vec![RegFifo::new(false)], vec![]),
            FifoKind::BlockRam => (vec![], vec![BramFifo::new()]),
        };
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sink: Default::default(),
            source: Default::default(),
            count: Default::default(),
            regs,
            brams,
        }
    }
    /// The storage this FIFO was built with.
    pub fn kind(&self) -> FifoKind {
        if self.regs.is_empty() {
            FifoKind::BlockRam
        } else {
            FifoKind::Registers
        }
    }
}

impl<T: Synth, const D: usize, const AW: usize, const CW: usize> Default
    for StreamFifo<T, D, AW, CW>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Synth, const D: usize, const AW: usize, const CW: usize> Logic
    for StreamFifo<T, D, AW, CW>
{
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..self.regs.len() {
            self.regs[i].clock.next = self.clock.val();
            self.regs[i].reset.next = self.reset.val();
            StreamSink::<T>::link(&mut self.sink, &mut self.regs[i].sink);
            StreamSource::<T>::link(&mut self.source, &mut self.regs[i].source);
            self.count.next = self.regs[i].count.val();
        }
        for i in 0..self.brams.len() {
            self.brams[i].clock.next = self.clock.val();
            self.brams[i].reset.next = self.reset.val();
            StreamSink::<T>::link(&mut self.sink, &mut self.brams[i].sink);
            StreamSource::<T>::link(&mut self.source, &mut self.brams[i].source);
            self.count.next = self.brams[i].count.val();
        }
    }
}

#[test]
fn stream_fifo_is_synthesizable() {
    let mut uut = StreamFifo::<Bits<16>, 4, 2, 3>::new();
    assert_eq!(uut.kind(), FifoKind::Registers);
    uut.connect_all();
    yosys_validate("stream_fifo_regs", &generate_verilog(&uut)).unwrap();
    let mut uut = StreamFifo::<Bits<16>, 32, 5, 6>::new();
    assert_eq!(uut.kind(), FifoKind::BlockRam);
    uut.connect_all();
    yosys_validate("stream_fifo_bram", &generate_verilog(&uut)).unwrap();
}

#[test]
#[should_panic(expected = "D (depth)")]
fn stream_fifo_rejects_deep_non_power_of_two() {
    let _ = StreamFifo::<Bits<8>, 24, 5, 5>::new();
}
