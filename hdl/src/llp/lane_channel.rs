//! The PHY boundary of a link: up to [`MAX_LANES`] lanes, each carrying one 32-bit transfer
//! (XFR) per cycle with a `valid` and a `start` flag, and no backpressure.
//!
//! `start` marks the XFR that begins an LTP, the block-sync sideband a real PHY carries (as
//! 64b/66b sync headers do), so a receiver can realign after whole beats were lost. Bit `n` of
//! `valid` and `start`, and bits `32n .. 32n+31` of `data`, belong to physical lane `n`.
use rust_hdl::prelude::*;

/// Physical lanes of a link.
pub const MAX_LANES: usize = 4;
/// Bits of one transfer.
pub const XFR_BITS: usize = 32;

/// The sending side of a lane channel.
#[derive(LogicInterface, Default)]
#[join = "LaneChannelIn"]
pub struct LaneChannelOut {
    /// Lane `n` carries a transfer this cycle.
    pub valid: Signal<Out, Bits<4>>,
    /// Lane `n`'s transfer is the first of an LTP.
    pub start: Signal<Out, Bits<4>>,
    /// Lane `n`'s transfer, bits `32n .. 32n+31`.
    pub data: Signal<Out, Bits<128>>,
}

/// The receiving side of a lane channel.
#[derive(LogicInterface, Default)]
#[join = "LaneChannelOut"]
pub struct LaneChannelIn {
    /// Lane `n` carries a transfer this cycle.
    pub valid: Signal<In, Bits<4>>,
    /// Lane `n`'s transfer is the first of an LTP.
    pub start: Signal<In, Bits<4>>,
    /// Lane `n`'s transfer, bits `32n .. 32n+31`.
    pub data: Signal<In, Bits<128>>,
}
