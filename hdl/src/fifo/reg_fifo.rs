//! Register FIFO: `D` flip-flop slots, for shallow depths (no RAM).
//!
//! Structure: a shift register whose head is always slot 0, with a thermometer occupancy code
//! (`held[i]` = slot `i` holds a beat) and a binary count for the `count` output. On a pop
//! every held slot takes its upper neighbour's beat; a pushed beat goes into the first free
//! slot (the last held one when a pop shifts in the same cycle). Why not pulp `fifo_v3`'s
//! circular buffer: on iCE40 its `D`:1 read multiplexer costs about one LUT per stored bit on
//! top of a write multiplexer, while here each stored bit needs one LUT (offered beat or
//! neighbour's beat, selected by a flip-flop) packed with its own flip-flop; `source.data`
//! comes straight from slot 0's flip-flops, and `sink.ready`/`source.valid` are single
//! flip-flops of the thermometer code. (32 x 32 bits: 1069 LUTs against 1905 for `fifo_v3`.)
//!
//! Handshake and timing, cycle by cycle (`count` = beats held):
//! - a beat accepted in cycle `c` is offered on `source` from cycle `c + 1` (latency 1);
//! - one beat per cycle in and out at once, indefinitely, for `D >= 2`;
//! - when full, `sink.ready` is low even if a beat leaves in the same cycle (no combinational
//!   path from `source.ready` to `sink.ready`); a depth-1 FIFO without fall-through therefore
//!   moves one beat every two cycles;
//! - **fall-through** (`new(true)`): while empty, the beat offered on `sink` is shown on
//!   `source` in the same cycle (`source.valid = sink.valid`, `source.data = sink.data`); taken
//!   at once it never enters a slot, otherwise it is stored and stays on `source`, so a
//!   depth-1 fall-through FIFO streams at one beat per cycle. This adds a combinational path
//!   sink -> source (valid and data), never one from any ready to a valid;
//! - **depth 0** is a wire (`source = sink`, `sink.ready = source.ready`, `count` stays 0);
//! - synchronous `reset` empties the FIFO (occupancy and count to 0); slots keep stale data
//!   that is never shown again. The power-up state (every flip-flop 0) is the empty FIFO too.
//!
//! Parameters: `T` beat type; `D` depth (slots, any value >= 0); `CW` width of `count`
//! ([`fifo_count_bits`](super::fifo_count_bits)`(D)`). Use [`reg_fifo!`](crate::reg_fifo) to
//! fill the width in.
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// FIFO of `D` beats held in flip-flops, optionally fall-through.
#[derive(LogicBlock)]
pub struct RegFifo<T: Synth, const D: usize, const CW: usize> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: empties the FIFO.
    pub reset: Signal<In, bool>,
    /// Beats in; `ready` is `!full`.
    pub sink: StreamSink<T>,
    /// Beats out, in order; `valid` is `!empty` (or `sink.valid` when empty with fall-through).
    pub source: StreamSource<T>,
    /// Beats held, 0 to `D` (0 while a beat falls through).
    pub count: Signal<Out, Bits<CW>>,
    /// Slot 0 is the head.
    slots: Vec<DFF<T>>,
    /// Thermometer occupancy: `held[i]` iff `count > i`.
    held: Vec<DFF<bool>>,
    /// Per slot: the slot below is held (true for slot 0).
    below: Vec<Signal<Local, bool>>,
    /// Per slot: the slot above is held (false for the last slot).
    above: Vec<Signal<Local, bool>>,
    /// Per slot: the slot loads on this edge.
    load: Vec<Signal<Local, bool>>,
    /// Per slot: what it loads (the upper neighbour's beat if held, else the offered beat).
    incoming: Vec<Signal<Local, T>>,
    fill: DFF<Bits<CW>>,
    /// +1 or -1 for `fill`.
    step: Signal<Local, Bits<CW>>,
    full: Signal<Local, bool>,
    empty: Signal<Local, bool>,
    push: Signal<Local, bool>,
    pop: Signal<Local, bool>,
    /// The count value 1.
    one: Constant<Bits<CW>>,
    /// -1 as a count.
    all_ones: Constant<Bits<CW>>,
    fall_through: Constant<bool>,
    /// `D == 0`: the FIFO is a wire.
    passthrough: Constant<bool>,
}

impl<T: Synth, const D: usize, const CW: usize> RegFifo<T, D, CW> {
    /// A FIFO of `D` slots; `fall_through` shows a beat on `source` in the cycle it arrives
    /// at an empty FIFO (ignored at depth 0: a wire is always fall-through). Panics if `CW`
    /// does not match `D`.
    pub fn new(fall_through: bool) -> Self {
        super::check_count_width("RegFifo", D, CW);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sink: Default::default(),
            source: Default::default(),
            count: Default::default(),
            slots: (0..D).map(|_| DFF::default()).collect(),
            held: (0..D).map(|_| DFF::default()).collect(),
            below: (0..D).map(|_| Default::default()).collect(),
            above: (0..D).map(|_| Default::default()).collect(),
            load: (0..D).map(|_| Default::default()).collect(),
            incoming: (0..D).map(|_| Default::default()).collect(),
            fill: Default::default(),
            step: Default::default(),
            full: Default::default(),
            empty: Default::default(),
            push: Default::default(),
            pop: Default::default(),
            one: Constant::new(1usize.to_bits()),
            all_ones: Constant::new(((1usize << CW) - 1).to_bits()),
            fall_through: Constant::new(fall_through && D > 0),
            passthrough: Constant::new(D == 0),
        }
    }
}

impl<T: Synth, const D: usize, const CW: usize> Default for RegFifo<T, D, CW> {
    /// Without fall-through.
    fn default() -> Self {
        Self::new(false)
    }
}

impl<T: Synth, const D: usize, const CW: usize> Logic for RegFifo<T, D, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, fill);
        for i in 0..D {
            self.slots[i].clock.next = self.clock.val();
            self.slots[i].d.next = self.slots[i].q.val();
            self.held[i].clock.next = self.clock.val();
            self.held[i].d.next = self.held[i].q.val();
            self.below[i].next = true;
            self.above[i].next = false;
        }
        for i in 1..D {
            self.below[i].next = self.held[i - 1].q.val();
        }
        for i in 0..D.saturating_sub(1) {
            self.above[i].next = self.held[i + 1].q.val();
        }
        // Full and empty are single flip-flops of the thermometer code (a wire is both).
        self.empty.next = true;
        self.full.next = true;
        for i in 0..D.min(1) {
            self.empty.next = !self.held[i].q.val();
        }
        for i in D.saturating_sub(1)..D {
            self.full.next = self.held[i].q.val();
        }
        self.count.next = self.fill.q.val();
        self.sink.ready.next = !self.full.val();
        self.source.valid.next = !self.empty.val();
        self.source.data.next = self.sink.data.val();
        for i in 0..D.min(1) {
            self.source.data.next = self.slots[i].q.val();
        }
        self.push.next = self.sink.valid.val() & !self.full.val();
        self.pop.next = self.source.ready.val() & !self.empty.val();
        if self.fall_through.val() & self.empty.val() {
            // Bypass: the beat is offered at once and stored only if not taken.
            self.source.valid.next = self.sink.valid.val();
            self.source.data.next = self.sink.data.val();
            self.push.next = self.sink.valid.val() & !self.source.ready.val();
        }
        if self.passthrough.val() {
            self.sink.ready.next = self.source.ready.val();
            self.source.valid.next = self.sink.valid.val();
            self.source.data.next = self.sink.data.val();
        }
        // A slot loads when `source.ready` is high (a pop, or an empty FIFO) or when a beat is
        // offered and the slot is free (then the FIFO is not full): it takes its upper
        // neighbour's beat if that one is held, else the offered beat. So on a pop held slots
        // shift down, and the offered beat lands in the first free slot, or in the last held
        // one when the same edge shifts; free slots take copies nobody reads. Each stored bit
        // is one LUT (select from a flip-flop) and each slot's load enable one LUT of inputs
        // and its own occupancy bit.
        for i in 0..D {
            self.incoming[i].next = self.sink.data.val();
        }
        for i in 0..D.saturating_sub(1) {
            if self.above[i].val() {
                self.incoming[i].next = self.slots[i + 1].q.val();
            }
        }
        for i in 0..D {
            self.load[i].next =
                self.source.ready.val() | (self.sink.valid.val() & !self.held[i].q.val());
            if self.load[i].val() {
                self.slots[i].d.next = self.incoming[i].val();
            }
        }
        if self.push.val() & !self.pop.val() {
            for i in 0..D {
                self.held[i].d.next = self.below[i].val();
            }
        }
        if self.pop.val() & !self.push.val() {
            for i in 0..D {
                self.held[i].d.next = self.above[i].val();
            }
        }
        // One adder of +1 or -1 (all ones), enabled when exactly one beat moves.
        self.step.next = self.one.val();
        if self.pop.val() {
            self.step.next = self.all_ones.val();
        }
        if self.push.val() ^ self.pop.val() {
            self.fill.d.next = self.fill.q.val() + self.step.val();
        }
        if self.reset.val() {
            for i in 0..D {
                self.held[i].d.next = false;
            }
            self.fill.d.next = 0.into();
        }
    }
}

#[test]
fn reg_fifo_is_synthesizable() {
    for ft in [false, true] {
        let mut uut = RegFifo::<Bits<16>, 3, 2>::new(ft);
        uut.connect_all();
        yosys_validate("reg_fifo", &generate_verilog(&uut)).unwrap();
    }
    let mut uut = RegFifo::<Bits<16>, 1, 1>::new(true);
    uut.connect_all();
    yosys_validate("reg_fifo_1", &generate_verilog(&uut)).unwrap();
    let mut uut = RegFifo::<Bits<16>, 0, 1>::new(false);
    uut.connect_all();
    yosys_validate("reg_fifo_wire", &generate_verilog(&uut)).unwrap();
}

#[test]
#[should_panic(expected = "CW (count width)")]
fn reg_fifo_rejects_wrong_count_width() {
    let _ = RegFifo::<Bits<8>, 8, 3>::new(false);
}
