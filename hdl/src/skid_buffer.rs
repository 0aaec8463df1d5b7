//! Skid buffer (spill register): cuts every combinational path of a stream, at full throughput.
//!
//! `source.valid`/`source.data` and `sink.ready` all come straight from flip-flops, so a chain
//! of blocks can be pipelined without a timing path running through it. It holds up to two
//! beats: the output register `a` and the skid register `b`, which catches the beat accepted in
//! the cycle the output stalls (as pulp-platform's `spill_register`). One beat per cycle moves
//! through in steady state; latency is one cycle.
//!
//! Ports: `clock`, synchronous active-high `reset` (empties it), `sink`, `source`.
//! Parameter: `T`, the beat type.
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// Two-entry spill register between `sink` and `source`.
#[derive(LogicBlock, Default)]
pub struct SkidBuffer<T: Synth> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: drops both held beats.
    pub reset: Signal<In, bool>,
    /// Beats in.
    pub sink: StreamSink<T>,
    /// Beats out, in order.
    pub source: StreamSource<T>,
    a_valid: DFF<bool>,
    a_data: DFF<T>,
    b_valid: DFF<bool>,
    b_data: DFF<T>,
}

impl<T: Synth> Logic for SkidBuffer<T> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, a_valid, a_data, b_valid, b_data);
        self.sink.ready.next = !self.b_valid.q.val();
        self.source.valid.next = self.a_valid.q.val();
        self.source.data.next = self.a_data.q.val();
        if self.source.ready.val() | !self.a_valid.q.val() {
            // The output register is free this edge: refill it from the skid register first.
            if self.b_valid.q.val() {
                self.a_valid.d.next = true;
                self.a_data.d.next = self.b_data.q.val();
                self.b_valid.d.next = false;
            } else {
                self.a_valid.d.next = self.sink.valid.val();
                self.a_data.d.next = self.sink.data.val();
            }
        } else if self.sink.valid.val() & !self.b_valid.q.val() {
            // Output stalled: the beat accepted this edge skids into `b`.
            self.b_valid.d.next = true;
            self.b_data.d.next = self.sink.data.val();
        }
        if self.reset.val() {
            self.a_valid.d.next = false;
            self.b_valid.d.next = false;
        }
    }
}

#[test]
fn skid_buffer_is_synthesizable() {
    let mut uut = SkidBuffer::<Bits<16>>::default();
    uut.connect_all();
    yosys_validate("skid_buffer", &generate_verilog(&uut)).unwrap();
}
