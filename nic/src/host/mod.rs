//! The NIC's host interface (`docs/host-interface.md`): a PCIe-like transaction interface on a
//! 128-bit datapath, as `LogicInterface` pairs, each a valid/ready stream (the hold rule of
//! [`hdl::stream`]: a source holds `valid` and its fields until the beat moves, and never waits
//! for `ready` to raise `valid`).
//!
//! - [`mmio`]: MMIO requests from the host (BAR = function, byte offset, read or 64-bit write)
//!   and read completions back, in request order. Writes are posted (no completion).
//! - [`read`]: memory read requests from the NIC (address, bytes, tag) and their completions:
//!   16-byte beats, in order within a tag, interleaved across tags, split at
//!   [`READ_COMPLETION_BOUNDARY`] boundaries.
//! - [`write`]: posted memory writes from the NIC, one 16-byte beat at a time with byte enables.
//! - [`interrupt`]: interrupt messages from the NIC, per function.
//!
//! Widths are fixed here (they are the interface's, whatever the configuration); counts and
//! sizes (functions, tags, max read request, max payload) come from the `[nic]` configuration.
pub mod interrupt;
pub mod mmio;
pub mod read;
pub mod write;

pub use hdl::formats::nic::{ADDRESS_BITS, FUNCTION_BITS, QP_BITS};
pub use interrupt::{InterruptSink, InterruptSource};
pub use mmio::{
    MmioCompletionSink, MmioCompletionSource, MmioRequestSink, MmioRequestSource, MmioStatus,
};
pub use read::{ReadCompletionSink, ReadCompletionSource, ReadRequestSink, ReadRequestSource};
pub use write::{WriteBeatSink, WriteBeatSource};

/// Bits of the host datapath: a read-completion or write beat.
pub const HOST_DATA_BITS: usize = 128;
/// Bytes of a host beat.
pub const HOST_BEAT_BYTES: usize = HOST_DATA_BITS / 8;
/// Bits of a read tag (PCIe's extended tag: up to 256 outstanding reads).
pub const TAG_BITS: usize = 8;
/// Bits of a read request's byte count (1..=4096).
pub const READ_BYTES_BITS: usize = 13;
/// Bits of an MMIO byte offset inside a BAR (64 KB BARs).
pub const MMIO_OFFSET_BITS: usize = 16;
/// Bits of MMIO data: registers are 64 bits.
pub const MMIO_DATA_BITS: usize = 64;
/// Bits of an MMIO read tag.
pub const MMIO_TAG_BITS: usize = 8;
/// Bits of an interrupt vector (the QP whose ring has news).
pub const VECTOR_BITS: usize = QP_BITS;
/// Read completions are split only at multiples of this many bytes (PCIe's read completion
/// boundary, RCB).
pub const READ_COMPLETION_BOUNDARY: usize = 64;
/// No read request and no write crosses a multiple of this many bytes (PCIe's 4 KB rule).
pub const PAGE_BYTES: usize = 4096;
