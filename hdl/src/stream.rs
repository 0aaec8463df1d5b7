//! The valid/ready stream interface used by every block inside a chip.
//!
//! Handshake rules (AXI-Stream style, as in pulp-platform common_cells):
//! - a beat moves on a rising clock edge where `valid && ready`;
//! - once a source raises `valid`, it holds `valid` and `data` unchanged until the beat moves;
//! - a source must not wait for `ready` before raising `valid` (no combinational
//!   dependency of `valid` on `ready`), so chains of blocks cannot deadlock;
//! - a sink may raise or lower `ready` at any time.
//!
//! A block's input port is a [`StreamSink`] (it receives beats), its output a [`StreamSource`]
//! (it sends beats). `StreamSource::join(&mut a.source, &mut b.sink)` connects two blocks.
use rust_hdl::prelude::*;

/// The sending end of a stream: `valid` and `data` leave the block, `ready` comes in.
#[derive(LogicInterface, Default)]
#[join = "StreamSink"]
pub struct StreamSource<T: Synth> {
    /// A beat is offered on `data`.
    pub valid: Signal<Out, bool>,
    /// The beat; stable while `valid && !ready`.
    pub data: Signal<Out, T>,
    /// The receiver takes the beat on this clock edge.
    pub ready: Signal<In, bool>,
}

/// The receiving end of a stream: `valid` and `data` come in, `ready` leaves the block.
#[derive(LogicInterface, Default)]
#[join = "StreamSource"]
pub struct StreamSink<T: Synth> {
    /// A beat is offered on `data`.
    pub valid: Signal<In, bool>,
    /// The beat.
    pub data: Signal<In, T>,
    /// This block takes the beat on this clock edge.
    pub ready: Signal<Out, bool>,
}
