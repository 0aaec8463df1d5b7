//! Descriptor fetch (issue 13, part 2): from a granted doorbell to a checked descriptor for the
//! send engine, or an error event for the event writer (`docs/nic-design.md`).
//!
//! ```text
//! doorbell ─► DescriptorRequest ─► QP lookup, tag (TagPool), read request(s)
//!                   │ open slot (function, QP, words, doorbell verdict)
//!                   ▼
//! completion ─► FetchSlots (slot ring; beats matched by tag into the slot RAM; tags freed)
//!                   │ head slot complete
//!                   ▼
//!             DescriptorExtract (scan: DescriptorCheck, one word a cycle; then emit)
//!                   ├─► descriptor stream (checked: fields + body words)
//!                   └─► error events (function, QP, status, operation, software tag)
//! ```
//!
//! - [`DescriptorRequest`] (`request.rs`): doorbell checks, QP lookup, tag allocation, one or
//!   two read requests per descriptor.
//! - [`FetchSlots`] (`slots.rs`): the descriptors in flight, in doorbell order; completion
//!   beats written into the slot RAM by tag, in order within a tag, any order across tags.
//! - [`DescriptorCheck`] (`check.rs`): the `Descriptor::unpack` rules, one word per cycle.
//! - [`DescriptorExtract`] (`extract.rs`): reads the head slot twice (check, then emit).
//! - [`DescriptorFetch`] (`fetch.rs`): the four joined with the slot RAM.
//! - [`DescriptorFetchUnit`] (`fetch_unit.rs`): the fetch with its own [`TagPool`](crate::tag_pool::TagPool)
//!   (the emitted top `nic_descriptor_fetch` and the bench's device).
pub mod check;
pub mod control_rules;
pub mod descriptor_fields;
pub mod doorbell_verdict;
pub mod event_fields;
pub mod extract;
pub mod fetch;
pub mod fetch_unit;
pub mod request;
pub mod slot_read;
pub mod slots;

pub use check::DescriptorCheck;
pub use control_rules::ControlRules;
pub use descriptor_fields::DescriptorFields;
pub use doorbell_verdict::DoorbellVerdict;
pub use event_fields::ErrorEventFields;
pub use extract::DescriptorExtract;
pub use fetch::DescriptorFetch;
pub use fetch_unit::DescriptorFetchUnit;
pub use request::DescriptorRequest;
pub use slot_read::SlotRead;
pub use slots::FetchSlots;

use hdl::formats::nic::{FUNCTION_BITS, QP_BITS};
use rust_hdl::prelude::*;

/// The longest descriptor the fetch reads, in words (a slot holds 32 beats: 63 words from an
/// odd word address). A doorbell naming more words (or more than `max_read_request / 8`) is
/// answered with a `WordCount` error event and nothing is read. Every NAP descriptor fits
/// (immediate: at most 34 words); a PUT or GET may hold 30 segments in all.
pub const MAX_DESCRIPTOR_WORDS: usize = 63;
/// Beats a slot holds.
pub const SLOT_BEATS: usize = 32;
/// Bits of a beat index in a slot.
pub const SLOT_BEAT_BITS: usize = 5;
/// Bits of a word count or index (the doorbell's `words`).
pub const WORD_BITS: usize = 8;
/// Bits of an event status code.
pub const STATUS_BITS: usize = 6;
/// Bits of an event's operation code.
pub const OP_BITS: usize = 3;
/// Bits of a descriptor kind code.
pub const KIND_BITS: usize = 3;
/// Bits of a segment count (1..=16).
pub const SEGMENT_COUNT_BITS: usize = 5;

/// The most words a fetch of `max_read_request` bytes reads per descriptor.
pub fn max_words(max_read_request: usize) -> usize {
    MAX_DESCRIPTOR_WORDS.min(max_read_request / 8)
}

/// Checked descriptors, at the fetch: one beat per body word, the descriptor's fields held
/// over all its beats (valid/ready, the hold rule of `hdl::stream`).
///
/// The same bundle carries the receive engine's GET responses (`GetToPut`) into the send
/// engine: PUT descriptors with `get_response` set.
///
/// Body words: NAP immediate its data words (`ceil(length / 8)`, the last zero-padded); NAP
/// indirect one word (the data's address); PUT and GET the segment words after word 2
/// (each segment's address word then bytes word, the `sources` source segments first, then the
/// `destinations`), so a send engine can start on the first segment.
#[derive(LogicInterface, Default)]
#[join = "DescriptorSink"]
pub struct DescriptorSource {
    /// A body word is offered.
    pub valid: Signal<Out, bool>,
    /// The descriptor's kind code (`DescriptorKind`: 0 NAP immediate, 1 indirect, 2 PUT, 3 GET).
    pub kind: Signal<Out, Bits<KIND_BITS>>,
    /// The issuing function.
    pub function: Signal<Out, Bits<FUNCTION_BITS>>,
    /// The issuing QP.
    pub qp: Signal<Out, Bits<QP_BITS>>,
    /// Destination node.
    pub dst_node: Signal<Out, Bits<16>>,
    /// Destination function.
    pub dst_function: Signal<Out, Bits<FUNCTION_BITS>>,
    /// Destination QP.
    pub dst_qp: Signal<Out, Bits<QP_BITS>>,
    /// PUT, GET: a receive event at the target is asked for.
    pub remote_event: Signal<Out, bool>,
    /// A send-completion event is asked for.
    pub local_event: Signal<Out, bool>,
    /// The destination QP's key (QPMagic).
    pub key: Signal<Out, Bits<32>>,
    /// Software's tag.
    pub tag: Signal<Out, Bits<32>>,
    /// Bytes to move.
    pub length: Signal<Out, Bits<32>>,
    /// PUT, GET: source segments (0 otherwise).
    pub sources: Signal<Out, Bits<SEGMENT_COUNT_BITS>>,
    /// PUT, GET: destination segments (0 otherwise).
    pub destinations: Signal<Out, Bits<SEGMENT_COUNT_BITS>>,
    /// GET: the issuing QP's own key (word 2 bits 63..32), carried in the GET packet for the
    /// target's response PUT (0 otherwise).
    pub response_key: Signal<Out, Bits<32>>,
    /// PUT: the descriptor answers a GET (built by the receive engine's `GetToPut`; its packets
    /// carry the header flag `get_response`). The descriptor fetch drives it low.
    pub get_response: Signal<Out, bool>,
    /// The body word.
    pub word: Signal<Out, Bits<64>>,
    /// The descriptor's last body word.
    pub last: Signal<Out, bool>,
    /// The send engine takes the word on this edge.
    pub ready: Signal<In, bool>,
}

/// Checked descriptors, at the send engine.
#[derive(LogicInterface, Default)]
#[join = "DescriptorSource"]
pub struct DescriptorSink {
    /// A body word is offered.
    pub valid: Signal<In, bool>,
    /// Kind code.
    pub kind: Signal<In, Bits<KIND_BITS>>,
    /// Issuing function.
    pub function: Signal<In, Bits<FUNCTION_BITS>>,
    /// Issuing QP.
    pub qp: Signal<In, Bits<QP_BITS>>,
    /// Destination node.
    pub dst_node: Signal<In, Bits<16>>,
    /// Destination function.
    pub dst_function: Signal<In, Bits<FUNCTION_BITS>>,
    /// Destination QP.
    pub dst_qp: Signal<In, Bits<QP_BITS>>,
    /// Remote event asked for.
    pub remote_event: Signal<In, bool>,
    /// Local event asked for.
    pub local_event: Signal<In, bool>,
    /// Destination key.
    pub key: Signal<In, Bits<32>>,
    /// Software's tag.
    pub tag: Signal<In, Bits<32>>,
    /// Bytes to move.
    pub length: Signal<In, Bits<32>>,
    /// Source segments.
    pub sources: Signal<In, Bits<SEGMENT_COUNT_BITS>>,
    /// Destination segments.
    pub destinations: Signal<In, Bits<SEGMENT_COUNT_BITS>>,
    /// GET: the response key.
    pub response_key: Signal<In, Bits<32>>,
    /// PUT: answers a GET.
    pub get_response: Signal<In, bool>,
    /// The body word.
    pub word: Signal<In, Bits<64>>,
    /// Last body word.
    pub last: Signal<In, bool>,
    /// Taken on this edge.
    pub ready: Signal<Out, bool>,
}

/// Error events of refused descriptors, at the fetch (valid/ready): what the event writer
/// needs for an `Error` event on the issuing QP's send-completion ring.
///
/// `op`, `tag`, the peer fields and `length` come from the descriptor's words 0 and 1 when
/// they were read (a descriptor error); for a doorbell refused without a read and for a failed
/// read they are `OP_UNKNOWN` (7) and zeros.
#[derive(LogicInterface, Default)]
#[join = "ErrorEventSink"]
pub struct ErrorEventSource {
    /// An event is offered.
    pub valid: Signal<Out, bool>,
    /// The issuing function.
    pub function: Signal<Out, Bits<FUNCTION_BITS>>,
    /// The issuing QP (its send-completion ring gets the event).
    pub qp: Signal<Out, Bits<QP_BITS>>,
    /// Status code (`EventStatus`).
    pub status: Signal<Out, Bits<STATUS_BITS>>,
    /// Operation (packet kind code, or 7).
    pub op: Signal<Out, Bits<OP_BITS>>,
    /// Software's tag (descriptor word 1).
    pub tag: Signal<Out, Bits<32>>,
    /// Destination node (word 0).
    pub peer_node: Signal<Out, Bits<16>>,
    /// Destination function (word 0).
    pub peer_function: Signal<Out, Bits<FUNCTION_BITS>>,
    /// Destination QP (word 0).
    pub peer_qp: Signal<Out, Bits<QP_BITS>>,
    /// Length (word 0).
    pub length: Signal<Out, Bits<32>>,
    /// The event writer takes it on this edge.
    pub ready: Signal<In, bool>,
}

/// Error events, at the event writer.
#[derive(LogicInterface, Default)]
#[join = "ErrorEventSource"]
pub struct ErrorEventSink {
    /// An event is offered.
    pub valid: Signal<In, bool>,
    /// Issuing function.
    pub function: Signal<In, Bits<FUNCTION_BITS>>,
    /// Issuing QP.
    pub qp: Signal<In, Bits<QP_BITS>>,
    /// Status code.
    pub status: Signal<In, Bits<STATUS_BITS>>,
    /// Operation.
    pub op: Signal<In, Bits<OP_BITS>>,
    /// Software's tag.
    pub tag: Signal<In, Bits<32>>,
    /// Destination node.
    pub peer_node: Signal<In, Bits<16>>,
    /// Destination function.
    pub peer_function: Signal<In, Bits<FUNCTION_BITS>>,
    /// Destination QP.
    pub peer_qp: Signal<In, Bits<QP_BITS>>,
    /// Length.
    pub length: Signal<In, Bits<32>>,
    /// Taken on this edge.
    pub ready: Signal<Out, bool>,
}
