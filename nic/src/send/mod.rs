//! The send engine (issue 13, part 3; `docs/nic-design.md`, "Send engine (part 3)"): from a
//! checked descriptor to the host reads of its data and, later in this part, to network flits.
//!
//! ```text
//! read_completion ─► CompletionRouter (tag's owner from the TagPool)
//!                        ├─► descriptor fetch
//!                        ├─► DataReorder (data read beats)
//!                        └─► NAP-buffer reads (receive engine)
//! descriptor ─► DataRead ─► read requests (MRRS-sized, 4 KB-safe, one tag each)
//!                  └─ issued (tag, lane, bytes, beats) ─► DataReorder (rows reserved)
//! ```
//!
//! - [`CompletionRouter`] (`completion_router.rs`): completion beats steered by tag owner.
//! - [`DataRead`] (`data_read.rs`): the data's read requests, issued only with reorder room.
//! - [`DataReorder`] (`data_reorder.rs`): the completion beats in a RAM ring, released in
//!   request order through [`PayloadPacker`] (`payload_packer.rs`) as aligned 8-byte words.
pub mod completion_router;
pub mod data_read;
pub mod data_reorder;
pub mod descriptor_merge;
pub mod head_beat;
pub mod message_queue;
pub mod packet_align;
pub mod packet_cursor;
pub mod packet_cut;
pub mod packet_flit;
pub mod packet_payload;
pub mod packet_phases;
pub mod packetizer;
pub mod payload_packer;
pub mod read_merge;
pub mod read_queue;
pub mod send_engine;
pub mod send_event;
pub mod send_split;
pub mod tag_share;

pub use completion_router::CompletionRouter;
pub use data_read::DataRead;
pub use data_reorder::DataReorder;
pub use descriptor_merge::DescriptorMerge;
pub use head_beat::HeadBeat;
pub use message_queue::MessageQueue;
pub use packet_align::PacketAlign;
pub use packet_cursor::PacketCursor;
pub use packet_cut::PacketCut;
pub use packet_flit::PacketFlit;
pub use packet_payload::PacketPayload;
pub use packet_phases::PacketPhases;
pub use packetizer::Packetizer;
pub use payload_packer::PayloadPacker;
pub use read_merge::ReadMerge;
pub use read_queue::ReadQueue;
pub use send_engine::{SendEngine, SendSettings};
pub use send_event::SendEvent;
pub use send_split::SendSplit;
pub use tag_share::TagShare;

use crate::descriptor::{KIND_BITS, SEGMENT_COUNT_BITS};
use crate::host::{READ_BYTES_BITS, TAG_BITS};
use hdl::formats::nic::{FUNCTION_BITS, QP_BITS};
use rust_hdl::prelude::*;

/// Bits of a count of reorder-buffer rows (16 bytes each): up to 2047 rows (32 KB).
pub const ROW_COUNT_BITS: usize = 12;
/// Bits of a request's beat count (1..=256: at most `max_read_request / 16`).
pub const BEAT_COUNT_BITS: usize = 9;

/// A data read request decided, at the data read (valid only: the reorder buffer takes every
/// record, reserving `beats` rows for it on the same edge; the data read checked the room).
#[derive(LogicInterface, Default)]
#[join = "ReadIssueSink"]
pub struct ReadIssueSource {
    /// A request is decided on this edge.
    pub valid: Signal<Out, bool>,
    /// Its tag.
    pub tag: Signal<Out, Bits<TAG_BITS>>,
    /// The lane (address % 16) of its first byte in its first beat.
    pub lane: Signal<Out, Bits<4>>,
    /// Its bytes.
    pub bytes: Signal<Out, Bits<READ_BYTES_BITS>>,
    /// Its beats: `ceil((lane + bytes) / 16)`.
    pub beats: Signal<Out, Bits<BEAT_COUNT_BITS>>,
    /// The last request of its message (the byte stream ends after it).
    pub message_last: Signal<Out, bool>,
}

/// A data read request decided, at the reorder buffer.
#[derive(LogicInterface, Default)]
#[join = "ReadIssueSource"]
pub struct ReadIssueSink {
    /// A request is decided on this edge.
    pub valid: Signal<In, bool>,
    /// Its tag.
    pub tag: Signal<In, Bits<TAG_BITS>>,
    /// Lane of its first byte.
    pub lane: Signal<In, Bits<4>>,
    /// Its bytes.
    pub bytes: Signal<In, Bits<READ_BYTES_BITS>>,
    /// Its beats.
    pub beats: Signal<In, Bits<BEAT_COUNT_BITS>>,
    /// Last request of its message.
    pub message_last: Signal<In, bool>,
}

/// Payload words of a message, at the reorder buffer (valid/ready, the hold rule): 8 bytes
/// each in message order, byte 0 of the first word the message's first byte (`payload_words`
/// order: byte `i` of a word in bits `8 i + 7 .. 8 i`).
#[derive(LogicInterface, Default)]
#[join = "PayloadWordSink"]
pub struct PayloadWordSource {
    /// A word is offered.
    pub valid: Signal<Out, bool>,
    /// The word; bytes at and above `bytes` are zero.
    pub word: Signal<Out, Bits<64>>,
    /// Message bytes in the word (1..=8; below 8 only in the last word).
    pub bytes: Signal<Out, Bits<4>>,
    /// The message's last word.
    pub last: Signal<Out, bool>,
    /// A read of the message failed (authoritative on the last word).
    pub error: Signal<Out, bool>,
    /// The word is taken on this edge.
    pub ready: Signal<In, bool>,
}

/// Payload words, at the packetizer.
#[derive(LogicInterface, Default)]
#[join = "PayloadWordSource"]
pub struct PayloadWordSink {
    /// A word is offered.
    pub valid: Signal<In, bool>,
    /// The word.
    pub word: Signal<In, Bits<64>>,
    /// Message bytes in the word.
    pub bytes: Signal<In, Bits<4>>,
    /// The message's last word.
    pub last: Signal<In, bool>,
    /// A read of the message failed.
    pub error: Signal<In, bool>,
    /// Taken on this edge.
    pub ready: Signal<Out, bool>,
}

/// Messages to packetize, at the send split (valid/ready, the hold rule): one record per
/// descriptor the packetizer sends (or refuses), in descriptor order, taken when its last
/// packet's tail leaves. The fields are the checked descriptor's.
#[derive(LogicInterface, Default)]
#[join = "MessageSink"]
pub struct MessageSource {
    /// A message is offered.
    pub valid: Signal<Out, bool>,
    /// Descriptor kind code (`DescriptorKind`: 0 NAP immediate, 1 indirect, 2 PUT, 3 GET).
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
    /// PUT, GET: a receive event at the target is asked for (NAP: always).
    pub remote_event: Signal<Out, bool>,
    /// A send-completion event is asked for.
    pub local_event: Signal<Out, bool>,
    /// The destination QP's key (QPMagic).
    pub key: Signal<Out, Bits<32>>,
    /// Software's tag (the send event's `info`).
    pub tag: Signal<Out, Bits<32>>,
    /// Bytes to move.
    pub length: Signal<Out, Bits<32>>,
    /// PUT, GET: source segments.
    pub sources: Signal<Out, Bits<SEGMENT_COUNT_BITS>>,
    /// PUT, GET: destination segments.
    pub destinations: Signal<Out, Bits<SEGMENT_COUNT_BITS>>,
    /// GET: the issuing QP's own key, word 2 bits 63..32 of the GET packet (0 otherwise).
    pub response_key: Signal<Out, Bits<32>>,
    /// PUT: the data a GET asked for (the GET-to-PUT path at the target; `false` from the
    /// descriptor fetch).
    pub get_response: Signal<Out, bool>,
    /// The packetizer is done with it on this edge.
    pub ready: Signal<In, bool>,
}

/// Messages to packetize, at the packetizer.
#[derive(LogicInterface, Default)]
#[join = "MessageSource"]
pub struct MessageSink {
    /// A message is offered.
    pub valid: Signal<In, bool>,
    /// Descriptor kind code.
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
    /// The PUT answers a GET.
    pub get_response: Signal<In, bool>,
    /// Done with it on this edge.
    pub ready: Signal<Out, bool>,
}
