//! RS spill register: the [`SkidBuffer`](crate::skid_buffer::SkidBuffer) of an
//! [`RsBeatSource`]/[`RsBeatSink`] bundle, the one register stage of every relay-station hop.
//!
//! `source.valid`, `source.data`, `source.last`, `source.port` and `sink.ready` all come straight
//! from flip-flops, so a row of relay stations has no timing path longer than one hop. It holds up
//! to two beats (output register `a`, skid register `b` that catches the beat accepted in the cycle
//! the output stalls); one beat per cycle moves in steady state; latency is one cycle.
//!
//! (A copy of the skid buffer's logic for three fields: rust-hdl cannot derive a `LogicStruct`
//! over the const generics `B` and `P`, so the beat cannot be one `SkidBuffer<T>` payload.)
//!
//! Ports: `clock`, synchronous active-high `reset` (empties it), `sink`, `source`.
//! Parameters: `B` beat data bits, `P` port-number bits.
use super::relay_station::{RsBeatSink, RsBeatSource};
use rust_hdl::prelude::*;

/// Two-entry spill register of RS beats.
#[derive(LogicBlock, Default)]
pub struct RsSpill<const B: usize, const P: usize> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: drops both held beats.
    pub reset: Signal<In, bool>,
    /// Beats in.
    pub sink: RsBeatSink<B, P>,
    /// Beats out, in order, one cycle later at the earliest.
    pub source: RsBeatSource<B, P>,
    a_valid: DFF<bool>,
    a_data: DFF<Bits<B>>,
    a_last: DFF<bool>,
    a_port: DFF<Bits<P>>,
    b_valid: DFF<bool>,
    b_data: DFF<Bits<B>>,
    b_last: DFF<bool>,
    b_port: DFF<Bits<P>>,
}

impl<const B: usize, const P: usize> Logic for RsSpill<B, P> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, a_valid, a_data, a_last, a_port, b_valid, b_data, b_last, b_port);
        self.sink.ready.next = !self.b_valid.q.val();
        self.source.valid.next = self.a_valid.q.val();
        self.source.data.next = self.a_data.q.val();
        self.source.last.next = self.a_last.q.val();
        self.source.port.next = self.a_port.q.val();
        if self.source.ready.val() | !self.a_valid.q.val() {
            // The output register is free this edge: refill it from the skid register first.
            if self.b_valid.q.val() {
                self.a_valid.d.next = true;
                self.a_data.d.next = self.b_data.q.val();
                self.a_last.d.next = self.b_last.q.val();
                self.a_port.d.next = self.b_port.q.val();
                self.b_valid.d.next = false;
            } else {
                self.a_valid.d.next = self.sink.valid.val();
                self.a_data.d.next = self.sink.data.val();
                self.a_last.d.next = self.sink.last.val();
                self.a_port.d.next = self.sink.port.val();
            }
        } else if self.sink.valid.val() & !self.b_valid.q.val() {
            // Output stalled: the beat accepted this edge skids into `b`.
            self.b_valid.d.next = true;
            self.b_data.d.next = self.sink.data.val();
            self.b_last.d.next = self.sink.last.val();
            self.b_port.d.next = self.sink.port.val();
        }
        if self.reset.val() {
            self.a_valid.d.next = false;
            self.b_valid.d.next = false;
        }
    }
}

#[test]
fn rs_spill_is_synthesizable() {
    let mut uut = RsSpill::<20, 5>::default();
    uut.connect_all();
    yosys_validate("rs_spill", &generate_verilog(&uut)).unwrap();
}
