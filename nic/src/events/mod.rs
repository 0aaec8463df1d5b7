//! Completion events (issue 13): the engines' event requests, and the [`EventWriter`] that puts
//! each into its QP's ring in host memory (`docs/nic-design.md`, "Event writer").
//!
//! ```text
//! send engine ──── sends ────┐
//! receive engine ─ receives ─┼─► EventSelect (round robin, peek) ─► EventWriter ─► write beat (host)
//! fetch errors ─► ErrorEventRequest ─ errors ┘                        │ QP lookup, ring room
//!                                                                     ├─► pointer advance
//!                                                                     └─► interrupt (host)
//! ```
//!
//! - [`EventRequestSource`] / [`EventRequestSink`]: one event to write, its fields as the
//!   `Event` codec names them, the function, QP and ring it goes to.
//! - [`ErrorEventRequest`] (`error_event_request.rs`): the descriptor fetch's error events
//!   as requests for the issuing QP's send-completion ring.
//! - [`EventSelect`] (`event_select.rs`): round robin over the `N` requesters; the writer
//!   looks at a request before taking it, so a request whose ring is full is passed over and
//!   stays with its requester.
//! - [`EventPack`] (`event_pack.rs`): the fields laid out as `Event::pack` does, with the phase.
//! - [`EventWriter`] (`event_writer.rs`): lookup, room, the 16-byte write, the pointer
//!   advance, the interrupt.
//! - [`EventWriterUnit`] (`event_writer_unit.rs`): the writer with the fetch's error input,
//!   the emitted top `nic_event_writer`.
pub mod error_event_request;
pub mod event_pack;
pub mod event_select;
pub mod event_writer;
pub mod event_writer_unit;

pub use error_event_request::ErrorEventRequest;
pub use event_pack::EventPack;
pub use event_select::EventSelect;
pub use event_writer::EventWriter;
pub use event_writer_unit::EventWriterUnit;

use crate::descriptor::{OP_BITS, STATUS_BITS};
use hdl::formats::nic::{FUNCTION_BITS, QP_BITS};
use rust_hdl::prelude::*;

/// Bits of an event (two 64-bit words: one host beat).
pub const EVENT_BITS: usize = 128;
/// Bits of an event's kind code.
pub const EVENT_KIND_BITS: usize = 2;

/// Event requests, at an engine: one event for QP `qp` of `function`, to that QP's
/// receive-completion ring when `receive_ring`, else its send-completion ring (valid/ready,
/// the hold rule of `hdl::stream`: fields held while `valid` until taken; the writer may look
/// at a request for a few cycles before it takes it or passes it over).
#[derive(LogicInterface, Default)]
#[join = "EventRequestSink"]
pub struct EventRequestSource {
    /// An event is offered.
    pub valid: Signal<Out, bool>,
    /// The function whose ring receives it.
    pub function: Signal<Out, Bits<FUNCTION_BITS>>,
    /// The local QP (the event's `qp` field too).
    pub qp: Signal<Out, Bits<QP_BITS>>,
    /// The QP's receive-completion ring, else its send-completion ring.
    pub receive_ring: Signal<Out, bool>,
    /// `EventKind` code.
    pub kind: Signal<Out, Bits<EVENT_KIND_BITS>>,
    /// `EventStatus` code.
    pub status: Signal<Out, Bits<STATUS_BITS>>,
    /// Operation (packet kind code, or `OP_UNKNOWN`).
    pub op: Signal<Out, Bits<OP_BITS>>,
    /// The other end's node.
    pub peer_node: Signal<Out, Bits<16>>,
    /// The other end's function.
    pub peer_function: Signal<Out, Bits<FUNCTION_BITS>>,
    /// The other end's QP.
    pub peer_qp: Signal<Out, Bits<QP_BITS>>,
    /// Bytes moved.
    pub length: Signal<Out, Bits<32>>,
    /// Software tag, ring index or end address (`EVENT_INFO`).
    pub info: Signal<Out, Bits<32>>,
    /// The request is taken on this edge.
    pub ready: Signal<In, bool>,
}

/// Event requests, at the event writer.
#[derive(LogicInterface, Default)]
#[join = "EventRequestSource"]
pub struct EventRequestSink {
    /// An event is offered.
    pub valid: Signal<In, bool>,
    /// The function whose ring receives it.
    pub function: Signal<In, Bits<FUNCTION_BITS>>,
    /// The local QP.
    pub qp: Signal<In, Bits<QP_BITS>>,
    /// The receive-completion ring, else the send-completion ring.
    pub receive_ring: Signal<In, bool>,
    /// Kind code.
    pub kind: Signal<In, Bits<EVENT_KIND_BITS>>,
    /// Status code.
    pub status: Signal<In, Bits<STATUS_BITS>>,
    /// Operation.
    pub op: Signal<In, Bits<OP_BITS>>,
    /// Peer node.
    pub peer_node: Signal<In, Bits<16>>,
    /// Peer function.
    pub peer_function: Signal<In, Bits<FUNCTION_BITS>>,
    /// Peer QP.
    pub peer_qp: Signal<In, Bits<QP_BITS>>,
    /// Bytes moved.
    pub length: Signal<In, Bits<32>>,
    /// Info word.
    pub info: Signal<In, Bits<32>>,
    /// The request is taken on this edge.
    pub ready: Signal<Out, bool>,
}
