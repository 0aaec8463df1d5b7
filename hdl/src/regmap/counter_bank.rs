//! A bank of saturating event counters of individual widths: where a block's event pulses are
//! counted (conventions: "events, not inferences"; blocks report one-cycle pulses, counters
//! live here).
//!
//! Each counter is an [`EventCounter`]: `events[i]` high adds one unless counter `i` is full
//! (`2^width - 1`, where it stays: never wraps); `clears[i]` high sets it to zero, or to 1 if
//! `events[i]` is high in the same cycle (an event is never lost); `reset` sets every counter to
//! zero and wins over both. `values[i]` comes straight from the flip-flops.
//!
//! Parameters: `D` width of every `values` port (1..=64); the counters' own widths (1..=`D`)
//! are given to [`CounterBank::new`], one per counter (none: an empty bank, no ports).
use crate::bits::EventCounter;
use rust_hdl::prelude::*;

/// Saturating counters of event pulses, cleared one by one.
#[derive(LogicBlock)]
pub struct CounterBank<const D: usize> {
    /// Clock of every counter.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: every counter to zero.
    pub reset: Signal<In, bool>,
    /// One event for counter `i` this cycle.
    pub events: Vec<Signal<In, bool>>,
    /// Set counter `i` to zero on this edge (1 if it also has an event).
    pub clears: Vec<Signal<In, bool>>,
    /// Counter `i`, zero-extended to `D` bits.
    pub values: Vec<Signal<Out, Bits<D>>>,
    counters: Vec<EventCounter<D>>,
}

impl<const D: usize> CounterBank<D> {
    /// One counter per entry of `widths` (each 1..=`D`).
    pub fn new(widths: &[usize]) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            events: widths.iter().map(|_| Default::default()).collect(),
            clears: widths.iter().map(|_| Default::default()).collect(),
            values: widths.iter().map(|_| Default::default()).collect(),
            counters: widths.iter().map(|&w| EventCounter::new(w)).collect(),
        }
    }
}

impl<const D: usize> Logic for CounterBank<D> {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..self.counters.len() {
            self.counters[i].clock.next = self.clock.val();
            self.counters[i].reset.next = self.reset.val();
            self.counters[i].pulse.next = self.events[i].val();
            self.counters[i].clear.next = self.clears[i].val();
            self.values[i].next = self.counters[i].value.val();
        }
    }
}

#[test]
fn counter_bank_is_synthesizable() {
    let mut uut = CounterBank::<16>::new(&[3, 16, 1]);
    uut.connect_all();
    yosys_validate("counter_bank", &generate_verilog(&uut)).unwrap();
}
