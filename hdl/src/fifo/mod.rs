//! Synchronous stream FIFOs: one clock, `StreamSink` in, `StreamSource` out, exact occupancy.
//!
//! - [`RegFifo`]: slots in flip-flops, for shallow depths (no RAM). Latency one cycle, or zero
//!   with fall-through; depth 0 is a wire.
//! - [`BramFifo`]: slots in a block RAM (rust-hdl's `RAM`, `SB_RAM40_4K` on iCE40), for deep
//!   depths (a power of two >= 4). Latency two cycles; 1 beat/cycle sustained.
//! - [`StreamFifo`]: the one to instantiate; picks one of the two at elaboration by depth
//!   (`depth <= REG_FIFO_MAX_DEPTH` -> registers).
//!
//! Common rules (as pulp-platform `fifo_v3` / `stream_fifo` and verilog-axis `axis_fifo`):
//! - `sink.ready == !full` and comes from flip-flops only: it never depends on `source.ready`,
//!   so a FIFO cuts the ready path. Consequence: **a full FIFO refuses a beat even in a cycle
//!   where it pops one** (pulp `fifo_v3` behaves the same); the FIFO then runs at one beat per
//!   cycle with `depth - 1` beats held, so throughput is only lost for a depth-1 `RegFifo`
//!   without fall-through (one beat every two cycles).
//! - `count` is the number of beats accepted and not yet popped, updated on the clock edge.
//! - `reset` is synchronous: the FIFO is empty (count 0, `source.valid` low) after the edge;
//!   beats held and beats offered in the reset cycle are dropped, and no beat written before
//!   the reset is ever shown again.
//!
//! Widths cannot be derived from the depth on stable Rust, so the FIFOs take the depth `D`
//! plus the count width `CW` ([`fifo_count_bits`]) and, where there are pointers, the pointer
//! width `AW` ([`fifo_ptr_bits`]), checked in `new()`. The type macros [`reg_fifo!`](crate::reg_fifo),
//! [`bram_fifo!`](crate::bram_fifo) and [`stream_fifo!`](crate::stream_fifo) fill them in:
//! `type Q = stream_fifo!(Bits<32>, 64);`.
pub mod bram_fifo;
pub mod reg_fifo;
pub mod stream_fifo;

pub use bram_fifo::BramFifo;
pub use reg_fifo::RegFifo;
pub use stream_fifo::{FifoKind, StreamFifo, REG_FIFO_MAX_DEPTH};

/// Pointer width of a FIFO of `depth` slots: `ceil(log2(depth))`, at least 1.
pub const fn fifo_ptr_bits(depth: usize) -> usize {
    crate::bits::index_bits(depth)
}

/// Width of a count from 0 to `depth` inclusive: `floor(log2(depth)) + 1`, at least 1.
pub const fn fifo_count_bits(depth: usize) -> usize {
    crate::bits::count_bits(depth)
}

/// Checks a FIFO's pointer width; panics naming the parameter.
pub(crate) fn check_ptr_width(block: &str, depth: usize, aw: usize) {
    assert!(
        aw == fifo_ptr_bits(depth),
        "{block}: AW (pointer width) is {aw} but depth {depth} needs AW = fifo_ptr_bits({depth}) = {}",
        fifo_ptr_bits(depth)
    );
}

/// Checks a FIFO's count width; panics naming the parameter.
pub(crate) fn check_count_width(block: &str, depth: usize, cw: usize) {
    assert!(
        cw == fifo_count_bits(depth),
        "{block}: CW (count width) is {cw} but depth {depth} needs CW = fifo_count_bits({depth}) = {}",
        fifo_count_bits(depth)
    );
}

/// The type of a [`RegFifo`] of beats `$t` and depth `$depth` (a constant expression), with
/// the widths filled in: `reg_fifo!(Bits<8>, 4)`.
#[macro_export]
macro_rules! reg_fifo {
    ($t:ty, $depth:expr) => {
        $crate::fifo::RegFifo<$t, { $depth }, { $crate::fifo::fifo_count_bits($depth) }>
    };
}

/// The type of a [`BramFifo`] of beats `$t` and depth `$depth`: `bram_fifo!(Bits<32>, 512)`.
#[macro_export]
macro_rules! bram_fifo {
    ($t:ty, $depth:expr) => {
        $crate::fifo::BramFifo<
            $t,
            { $depth },
            { $crate::fifo::fifo_ptr_bits($depth) },
            { $crate::fifo::fifo_count_bits($depth) },
        >
    };
}

/// The type of a [`StreamFifo`] of beats `$t` and depth `$depth`: `stream_fifo!(Bits<32>, 64)`.
#[macro_export]
macro_rules! stream_fifo {
    ($t:ty, $depth:expr) => {
        $crate::fifo::StreamFifo<
            $t,
            { $depth },
            { $crate::fifo::fifo_ptr_bits($depth) },
            { $crate::fifo::fifo_count_bits($depth) },
        >
    };
}

#[test]
fn widths_follow_depth() {
    let cases = [
        (0, 1, 1),
        (1, 1, 1),
        (2, 1, 2),
        (3, 2, 2),
        (4, 2, 3),
        (16, 4, 5),
        (17, 5, 5),
        (32, 5, 6),
        (512, 9, 10),
    ];
    for (d, aw, cw) in cases {
        assert_eq!(
            (fifo_ptr_bits(d), fifo_count_bits(d)),
            (aw, cw),
            "depth {d}"
        );
    }
}
