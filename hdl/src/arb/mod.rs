//! Arbitration: who of several requesters may use a shared resource this cycle.
//!
//! - [`RrArbiter`]: round robin (fair: each persistent requester once per `N` grants);
//! - [`FpArbiter`]: fixed priority (lowest index wins);
//! - [`StreamMux`]: `N` streams into one, round robin, optionally never interleaving packets.
//!
//! Both arbiters share one port set (`requests`, `advance`, `tail` in; `grant`, `grant_index`,
//! `valid` out) and the elaboration-time packet *hold* option, so a block can swap one for the
//! other. The grant is combinational from `requests` and registered state, so a requester can be
//! served in the cycle it asks; priority moves on only when a grant is used (`advance`).
//!
//! `W`, the width of `grant_index`, must be [`index_width`]`(N)`: stable Rust cannot derive it
//! from `N` in a generic, but a concrete type can say `RrArbiter<8, { index_width(8) }>`.
pub mod fp_arbiter;
pub mod rr_arbiter;
pub mod stream_mux;

pub use fp_arbiter::FpArbiter;
pub use rr_arbiter::RrArbiter;
pub use stream_mux::StreamMux;

/// The width of `grant_index` for `n` requesters: `ceil(log2(n))`, at least 1.
pub const fn index_width(n: usize) -> usize {
    crate::bits::index_bits(n)
}

/// `n` when it is at least 2, else 0: the bound of loops that index `grant` bit by bit, which
/// must not run for one requester (a 1-bit signal is a Verilog scalar and cannot be indexed).
pub(crate) const fn multi(n: usize) -> usize {
    if n >= 2 {
        n
    } else {
        0
    }
}

/// Constant masks of the one-hot to binary encoder: mask `b` has bit `i` set when bit `b` of
/// `i` is set, so bit `b` of the index of a one-hot grant `g` is `(g & mask_b) != 0`
/// (an OR of the grant bits, cheaper than a priority chain that cannot know `g` is one-hot).
pub(crate) fn index_masks<const N: usize, const W: usize>(
) -> Vec<rust_hdl::prelude::Constant<rust_hdl::prelude::Bits<N>>> {
    use rust_hdl::prelude::*;
    (0..W)
        .map(|b| {
            let mut m = Bits::<N>::default();
            for i in 0..N {
                if (i >> b) & 1 == 1 {
                    m = m.replace_bit(i, true);
                }
            }
            Constant::new(m)
        })
        .collect()
}

/// Constants `1 << b` for `b` in `0..W`: the bits the encoder ORs together.
pub(crate) fn index_bits<const W: usize>(
) -> Vec<rust_hdl::prelude::Constant<rust_hdl::prelude::Bits<W>>> {
    use rust_hdl::prelude::*;
    (0..W)
        .map(|b| Constant::new(Bits::<W>::default().replace_bit(b, true)))
        .collect()
}

/// Checks the arbiter generics at elaboration; `what` names the block in the message.
pub(crate) fn check_generics(what: &str, n: usize, w: usize) {
    assert!(n >= 1, "{what}: N (requesters) must be at least 1, got {n}");
    assert!(
        w == index_width(n),
        "{what}<N = {n}, W = {w}>: W (grant_index width) must be ceil(log2(N)) (at least 1) = {}",
        index_width(n)
    );
}
