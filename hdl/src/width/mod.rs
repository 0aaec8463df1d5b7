//! Stream width converters: one wide beat to `K` narrow beats ([`Downsizer`]) and back
//! ([`Upsizer`]), at full throughput on the narrow side.
//!
//! A `W`-bit word travels as `K = ceil(W / B)` chunks of `B` bits, least significant chunk
//! first; the last chunk is zero-padded above bit `W - (K-1)B`. The router's relay stations move
//! 65-bit flits 20 bits at a time this way (`K` = 4). When `W <= B` (`K` = 1) both converters
//! are wires (the word zero-extended, or the chunk truncated).
//!
//! Parameters: `W` wide width, `B` narrow width, `CW` width of the chunk counter, which must be
//! [`chunk_index_bits`]`(W, B)` (stable Rust cannot derive it from `W` and `B`; write
//! `Downsizer<FLIT_BITS, 20, { chunk_index_bits(FLIT_BITS, 20) }>`, as the aliases below do).
pub mod downsizer;
pub mod upsizer;

use crate::formats::FLIT_BITS;
pub use downsizer::Downsizer;
pub use upsizer::Upsizer;

/// Chunks per word: `ceil(w / b)`.
pub const fn chunks(w: usize, b: usize) -> usize {
    w.div_ceil(b)
}

/// Width of a counter of [`chunks`]`(w, b)` chunks: `ceil(log2(K))`, at least 1.
pub const fn chunk_index_bits(w: usize, b: usize) -> usize {
    crate::bits::index_bits(chunks(w, b))
}

/// Checks the parameters shared by both converters; returns `K`.
pub(crate) fn check_params(block: &str, w: usize, b: usize, cw: usize) -> usize {
    assert!(w >= 1, "{block}: W must be at least 1");
    assert!(b >= 1, "{block}: B must be at least 1");
    let k = chunks(w, b);
    assert!(
        k <= 256,
        "{block}: W = {w} over B = {b} is {k} chunks; at most 256 are supported"
    );
    assert!(
        cw == chunk_index_bits(w, b),
        "{block}: CW = {cw} but {k} chunks need a {}-bit counter (CW = chunk_index_bits(W, B))",
        chunk_index_bits(w, b)
    );
    k
}

/// A 65-bit link flit into 20-bit relay-station beats (4 chunks).
pub type FlitDownsizer = Downsizer<FLIT_BITS, 20, { chunk_index_bits(FLIT_BITS, 20) }>;
/// 20-bit relay-station beats back into a 65-bit flit.
pub type FlitUpsizer = Upsizer<FLIT_BITS, 20, { chunk_index_bits(FLIT_BITS, 20) }>;
