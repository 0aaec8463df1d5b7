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
pub mod completion_router;
pub mod data_read;

pub use completion_router::CompletionRouter;
pub use data_read::DataRead;

use crate::host::{READ_BYTES_BITS, TAG_BITS};
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
