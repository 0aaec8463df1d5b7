//! The functions' doorbell FIFOs, all in one block RAM, and the arbiter that serves them.
//!
//! Function `f` owns the RAM region `f x D .. (f + 1) x D` (a circular FIFO: head and tail
//! offsets and a count per function, in flip-flops). One RAM instead of a FIFO per function: on iCE40 a
//! 64-bit FIFO takes 4 block RAMs (16 bits each) whatever its depth, so 8 functions of 32
//! doorbells take 4 RAMs here instead of 32 (the whole HX8K).
//!
//! **Input** (`sink`, always ready outside reset): a doorbell for function `f` is written at
//! the tail of `f`'s FIFO; if that FIFO already holds `D` doorbells the doorbell is refused
//! (nothing is written, the queued ones are unchanged) and `overflows[f]` pulses for the
//! cycle. A doorbell naming a function at or above `F` (the MMIO decode never sends one) is
//! dropped with a `stray` pulse.
//!
//! **Output** (`source`): the [`WeightedArbiter`] picks a non-empty FIFO each cycle; its head is
//! read from the RAM (the pop happens then: `fills` drops) and lands in a 4-entry output
//! FIFO one cycle later, from which `source` offers it. A read is issued only when the output
//! FIFO will have room for it, so nothing is ever dropped between RAM and output; with
//! `source.ready` high one doorbell leaves per cycle. Latency: a doorbell taken on the edge
//! ending cycle `c` (an empty block, `source.ready` high) is offered on `source` in cycle
//! `c + 3` (arbitration and RAM read in `c + 1`, output FIFO write in `c + 2`). Doorbells of
//! one function leave in order; across functions the arbiter's order (round robin, or
//! weighted when `weighted`, with `weights` per function), among the functions the
//! [`DeficitGate`] lets through when `byte_fair` (charged by `charge`).
//!
//! `fills[f]`: doorbells in `f`'s FIFO (not counting those already popped towards `source`).
//!
//! **Reset** (synchronous): every FIFO empty, the output FIFO empty, the arbiter back to
//! function 0; doorbells queued or in flight are dropped (software rings them again after a
//! reset of the NIC). No doorbell is taken in a reset cycle.
//!
//! Parameters: `AW` RAM address bits = log2(next power of two of `F` x `D`); elaboration
//! values `F` functions (1..=8) and `D` depth (a power of two, 4..=256), checked by
//! [`DoorbellQueues::new`].
use super::{
    ChargeSink, DeficitGate, DoorbellSink, DoorbellSource, WeightedArbiter, DOORBELL_BITS,
    MAX_FUNCTIONS,
};
use crate::regs::WEIGHT_BITS;
use hdl::fifo::RegFifo;
use hdl::formats::nic::FUNCTION_BITS;
use rust_hdl::prelude::*;

/// Bits of a FIFO's fill (0..=256).
pub const FILL_BITS: usize = 9;
/// Bits of an output beat: the function above the word.
const BEAT_BITS: usize = DOORBELL_BITS + FUNCTION_BITS;
/// Entries of the output FIFO.
const OUT_DEPTH: usize = 4;

/// The functions' doorbell FIFOs; see the module documentation.
#[derive(LogicBlock)]
pub struct DoorbellQueues<const AW: usize> {
    /// Clock of every register and of the RAM.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: every FIFO empty.
    pub reset: Signal<In, bool>,
    /// Doorbells from the MMIO decode (ready outside reset).
    pub sink: DoorbellSink,
    /// Doorbells to the descriptor fetch, chosen by the arbiter.
    pub source: DoorbellSource,
    /// Weighted round robin (else round robin).
    pub weighted: Signal<In, bool>,
    /// Per function: doorbells served in a row when weighted.
    pub weights: Vec<Signal<In, Bits<WEIGHT_BITS>>>,
    /// Byte fairness ([`DeficitGate`]): only functions that have not overdrawn are served.
    pub byte_fair: Signal<In, bool>,
    /// Descriptors' bytes charged to their functions (for `byte_fair`).
    pub charge: ChargeSink,
    /// Per function: a doorbell was refused on this edge (its FIFO full).
    pub overflows: Vec<Signal<Out, bool>>,
    /// A doorbell naming no function was dropped on this edge.
    pub stray: Signal<Out, bool>,
    /// Per function: doorbells queued.
    pub fills: Vec<Signal<Out, Bits<FILL_BITS>>>,
    arbiter: WeightedArbiter,
    gate: DeficitGate,
    ram: RAM<Bits<DOORBELL_BITS>, AW>,
    staging: RegFifo<Bits<BEAT_BITS>, OUT_DEPTH, 3>,
    /// Per function: RAM offset of the head in its region.
    heads: Vec<DFF<Bits<AW>>>,
    /// Per function: RAM offset of the first free slot in its region.
    tails: Vec<DFF<Bits<AW>>>,
    /// Per function: doorbells held.
    counts: Vec<DFF<Bits<FILL_BITS>>>,
    /// A RAM read was issued on the last edge: its word is on `ram.read_data`.
    issued: DFF<bool>,
    /// The function of that read.
    issued_function: DFF<Bits<FUNCTION_BITS>>,
    /// Per function: its region's first RAM address.
    bases: Vec<Constant<Bits<AW>>>,
    ids: Vec<Constant<Bits<FUNCTION_BITS>>>,
    /// `D - 1`: wraps a pointer inside a region.
    pointer_mask: Constant<Bits<AW>>,
    /// `D`: a full FIFO's count.
    depth: Constant<Bits<FILL_BITS>>,
    pointer_one: Constant<Bits<AW>>,
    count_one: Constant<Bits<FILL_BITS>>,
    /// The addressed function's FIFO is full.
    target_full: Signal<Local, bool>,
    /// The doorbell names a function.
    target_known: Signal<Local, bool>,
    /// The doorbell is written on this edge.
    push: Signal<Local, bool>,
    /// The output FIFO has room for one more read.
    room: Signal<Local, bool>,
    /// A read is issued on this edge.
    issue: Signal<Local, bool>,
    /// Where the function sits in an output beat (above the word).
    function_lsb: Constant<Bits<7>>,
    /// The output FIFO's `sink.ready`: a read is issued only when it will have room, so the
    /// FIFO is never full when one lands.
    staging_ready_unused: Signal<Local, bool>,
}

impl<const AW: usize> DoorbellQueues<AW> {
    /// FIFOs of `depth` doorbells for `functions` functions. Panics naming the parameter if
    /// `functions` is not 1..=8, `depth` not a power of two in 4..=256, or `AW` not
    /// log2(next power of two of `functions` x `depth`).
    pub fn new(functions: usize, depth: usize) -> Self {
        assert!(
            (1..=MAX_FUNCTIONS).contains(&functions),
            "DoorbellQueues: functions = {functions} must be 1..={MAX_FUNCTIONS}"
        );
        assert!(
            depth.is_power_of_two() && (4..=256).contains(&depth),
            "DoorbellQueues: depth = {depth} must be a power of two in 4..=256"
        );
        let words = functions.next_power_of_two() * depth;
        assert!(
            1usize << AW == words,
            "DoorbellQueues<AW = {AW}>: AW (RAM address bits) must be log2({words}) for {functions} functions of depth {depth}"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sink: Default::default(),
            source: Default::default(),
            weighted: Default::default(),
            byte_fair: Default::default(),
            charge: Default::default(),
            weights: (0..functions).map(|_| Default::default()).collect(),
            overflows: (0..functions).map(|_| Default::default()).collect(),
            stray: Default::default(),
            fills: (0..functions).map(|_| Default::default()).collect(),
            arbiter: WeightedArbiter::new(functions),
            gate: DeficitGate::new(functions),
            ram: Default::default(),
            staging: RegFifo::new(false),
            heads: (0..functions).map(|_| Default::default()).collect(),
            tails: (0..functions).map(|_| Default::default()).collect(),
            counts: (0..functions).map(|_| Default::default()).collect(),
            issued: Default::default(),
            issued_function: Default::default(),
            bases: (0..functions)
                .map(|f| Constant::new((f * depth).to_bits()))
                .collect(),
            ids: (0..functions).map(|f| Constant::new(f.to_bits())).collect(),
            pointer_mask: Constant::new((depth - 1).to_bits()),
            depth: Constant::new(depth.to_bits()),
            pointer_one: Constant::new(1usize.to_bits()),
            count_one: Constant::new(1usize.to_bits()),
            target_full: Default::default(),
            target_known: Default::default(),
            push: Default::default(),
            room: Default::default(),
            issue: Default::default(),
            function_lsb: Constant::new(DOORBELL_BITS.to_bits()),
            staging_ready_unused: Default::default(),
        }
    }
}

impl<const AW: usize> Logic for DoorbellQueues<AW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, issued, issued_function);
        clock!(self, clock, arbiter, staging, gate);
        self.gate.reset.next = self.reset.val();
        self.gate.enable.next = self.byte_fair.val();
        ChargeSink::link(&mut self.charge, &mut self.gate.charge);
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.arbiter.reset.next = self.reset.val();
        self.staging.reset.next = self.reset.val();
        self.arbiter.weighted.next = self.weighted.val();
        for f in 0..self.weights.len() {
            self.arbiter.weights[f].next = self.weights[f].val();
        }

        // Write side: the tail of the addressed function's FIFO, unless it is full.
        self.sink.ready.next = !self.reset.val();
        self.target_full.next = false;
        self.target_known.next = false;
        self.ram.write_address.next = 0.into();
        for f in 0..self.counts.len() {
            if self.sink.function.val() == self.ids[f].val() {
                self.target_known.next = true;
                self.target_full.next = self.counts[f].q.val() == self.depth.val();
                self.ram.write_address.next = self.bases[f].val() | self.tails[f].q.val();
            }
        }
        self.push.next = self.sink.valid.val()
            & !self.reset.val()
            & self.target_known.val()
            & !self.target_full.val();
        self.stray.next = self.sink.valid.val() & !self.reset.val() & !self.target_known.val();
        self.ram.write_enable.next = self.push.val();
        self.ram.write_data.next = self.sink.word.val();

        // Read side: the granted FIFO's head, when the output FIFO will have room for it
        // (count + the read in flight <= 3 now, so <= 4 when it lands).
        for f in 0..self.counts.len() {
            self.gate.requests[f].next = self.counts[f].q.val().any();
            self.arbiter.requests[f].next = self.gate.eligible[f].val();
        }
        self.room.next = (self.staging.count.val() < 3)
            | ((self.staging.count.val() == 3) & !self.issued.q.val());
        self.issue.next = self.arbiter.valid.val() & self.room.val() & !self.reset.val();
        self.arbiter.advance.next = self.issue.val();
        self.ram.read_address.next = 0.into();
        for f in 0..self.counts.len() {
            if self.arbiter.grant.val() == self.ids[f].val() {
                self.ram.read_address.next = self.bases[f].val() | self.heads[f].q.val();
            }
        }
        self.issued.d.next = self.issue.val();
        self.issued_function.d.next = self.arbiter.grant.val();

        // Per function: head and count.
        for f in 0..self.counts.len() {
            self.heads[f].clock.next = self.clock.val();
            self.tails[f].clock.next = self.clock.val();
            self.counts[f].clock.next = self.clock.val();
            self.heads[f].d.next = self.heads[f].q.val();
            self.tails[f].d.next = self.tails[f].q.val();
            self.counts[f].d.next = self.counts[f].q.val();
            if self.push.val() & (self.sink.function.val() == self.ids[f].val()) {
                self.tails[f].d.next =
                    (self.tails[f].q.val() + self.pointer_one.val()) & self.pointer_mask.val();
            }
            self.overflows[f].next = self.sink.valid.val()
                & !self.reset.val()
                & (self.sink.function.val() == self.ids[f].val())
                & (self.counts[f].q.val() == self.depth.val());
            self.fills[f].next = self.counts[f].q.val();
            if self.issue.val() & (self.arbiter.grant.val() == self.ids[f].val()) {
                self.heads[f].d.next =
                    (self.heads[f].q.val() + self.pointer_one.val()) & self.pointer_mask.val();
                if !(self.push.val() & (self.sink.function.val() == self.ids[f].val())) {
                    self.counts[f].d.next = self.counts[f].q.val() - self.count_one.val();
                }
            } else if self.push.val() & (self.sink.function.val() == self.ids[f].val()) {
                self.counts[f].d.next = self.counts[f].q.val() + self.count_one.val();
            }
            if self.reset.val() {
                self.heads[f].d.next = 0.into();
                self.tails[f].d.next = 0.into();
                self.counts[f].d.next = 0.into();
            }
        }

        // Output: the word read, with its function, into the output FIFO.
        self.staging.sink.valid.next = self.issued.q.val();
        self.staging_ready_unused.next = self.staging.sink.ready.val();
        self.staging.sink.data.next =
            bit_cast::<BEAT_BITS, DOORBELL_BITS>(self.ram.read_data.val())
                | (bit_cast::<BEAT_BITS, FUNCTION_BITS>(self.issued_function.q.val())
                    << self.function_lsb.val());
        self.source.valid.next = self.staging.source.valid.val();
        self.source.word.next = self.staging.source.data.val().get_bits::<DOORBELL_BITS>(0);
        self.source.function.next = self
            .staging
            .source
            .data
            .val()
            .get_bits::<FUNCTION_BITS>(self.function_lsb.val().index());
        self.staging.source.ready.next = self.source.ready.val();
        if self.reset.val() {
            self.issued.d.next = false;
        }
    }
}

#[test]
fn doorbell_queues_are_synthesizable() {
    let mut uut = DoorbellQueues::<8>::new(8, 32);
    uut.connect_all();
    yosys_validate("doorbell_queues", &generate_verilog(&uut)).unwrap();
    let mut uut = DoorbellQueues::<3>::new(2, 4);
    uut.connect_all();
    yosys_validate("doorbell_queues_2x4", &generate_verilog(&uut)).unwrap();
}

#[test]
#[should_panic(expected = "AW (RAM address bits) must be log2(256)")]
fn doorbell_queues_check_the_address_width() {
    let _ = DoorbellQueues::<7>::new(8, 32);
}

#[test]
#[should_panic(expected = "depth = 24 must be a power of two")]
fn doorbell_queues_check_the_depth() {
    let _ = DoorbellQueues::<8>::new(8, 24);
}
