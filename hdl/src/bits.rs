//! Small shared pieces about bits, written once: widths derived from counts ([`clog2`],
//! [`index_bits`], [`count_bits`]), [`popcount`] of a constant, [`constant`], and three hardware blocks, each in
//! its own file: [`PopCount`] (ones in a bit vector), [`EventCounter`] (a saturating counter
//! of one-cycle event pulses, what the register file's counter banks are made of) and
//! [`ZeroExtend`] (a widening wire, for elements of a `Vec` of signals).
//!
//! The width helpers are `const fn` because they are used in const-generic positions
//! (`RrArbiter<8, { index_width(8) }>`); the older names (`fifo::fifo_ptr_bits`,
//! `fifo::fifo_count_bits`, `arb::index_width`, `width::chunk_index_bits`) stay and call these.
pub mod event_counter;
pub mod pop_count;
pub mod zero_extend;

pub use event_counter::EventCounter;
pub use pop_count::PopCount;
pub use zero_extend::ZeroExtend;

/// A [`Constant`](rust_hdl::prelude::Constant) of `N` bits holding `v` (the constants blocks
/// keep for field positions, codes and shift amounts).
pub fn constant<const N: usize>(v: u64) -> rust_hdl::prelude::Constant<rust_hdl::prelude::Bits<N>> {
    rust_hdl::prelude::Constant::new(rust_hdl::prelude::Bits::from(v))
}

/// `ceil(log2(n))`: the bits that number `n` things `0..n`; `clog2(1) == 0` (one thing needs
/// no index) and, by the same rule, `clog2(0) == 0`.
pub const fn clog2(n: usize) -> usize {
    let mut bits = 0;
    while bits < usize::BITS as usize && (1usize << bits) < n {
        bits += 1;
    }
    bits
}

/// The width of an index of `n` things, at least 1 (a Verilog signal has at least one bit):
/// `max(clog2(n), 1)`.
pub const fn index_bits(n: usize) -> usize {
    let bits = clog2(n);
    if bits == 0 {
        1
    } else {
        bits
    }
}

/// The width of a count from 0 to `n` inclusive: `clog2(n + 1)`, at least 1.
pub const fn count_bits(n: usize) -> usize {
    index_bits(n + 1)
}

/// The number of ones in `x`.
pub const fn popcount(x: u64) -> u32 {
    x.count_ones()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clog2_is_ceil_log2() {
        let cases = [
            (0, 0),
            (1, 0),
            (2, 1),
            (3, 2),
            (4, 2),
            (5, 3),
            (64, 6),
            (65, 7),
            (4096, 12),
        ];
        for (n, want) in cases {
            assert_eq!(clog2(n), want, "clog2({n})");
        }
        for n in 1..5000usize {
            assert!(1usize << clog2(n) >= n && (clog2(n) == 0 || 1usize << (clog2(n) - 1) < n));
        }
        assert_eq!(clog2(usize::MAX), usize::BITS as usize);
    }

    #[test]
    fn derived_widths() {
        assert_eq!((index_bits(0), index_bits(1), index_bits(2)), (1, 1, 1));
        assert_eq!((index_bits(3), index_bits(8), index_bits(9)), (2, 3, 4));
        assert_eq!((count_bits(0), count_bits(1), count_bits(2)), (1, 1, 2));
        assert_eq!((count_bits(3), count_bits(4), count_bits(64)), (2, 3, 7));
    }

    #[test]
    fn popcount_counts_ones() {
        assert_eq!(popcount(0), 0);
        assert_eq!(popcount(0b1011), 3);
        assert_eq!(popcount(u64::MAX), 64);
    }
}
