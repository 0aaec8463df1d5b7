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

/// Bits of a lane on the wire: [`XFR_BITS`] (one XFR per transfer) or half of it (an XFR in
/// two transfers, through the lane gearboxes of [`crate::llp::gearbox`]).
pub const LANE_WIDTHS: [usize; 2] = [16, 32];

/// The data bits of a wire of [`MAX_LANES`] lanes of `lane_bits` each.
pub const fn wire_data_bits(lane_bits: usize) -> usize {
    MAX_LANES * lane_bits
}

/// The sending side of the wire itself: [`MAX_LANES`] lanes of `LD / 4` bits. At 32-bit lanes
/// it carries what [`LaneChannelOut`] carries; at 16-bit lanes an XFR takes two transfers
/// (the framing is in [`crate::llp::gearbox`]). Bit `n` of `valid` and `start`, and bits
/// `n LD/4 ..` of `data`, belong to physical lane `n`.
#[derive(LogicInterface, Default)]
#[join = "WireLanesIn"]
pub struct WireLanesOut<const LD: usize> {
    /// Lane `n` carries a transfer this cycle.
    pub valid: Signal<Out, Bits<4>>,
    /// Lane `n`'s sideband bit (LTP start, or at 16-bit lanes the framing of `gearbox`).
    pub start: Signal<Out, Bits<4>>,
    /// Lane `n`'s transfer.
    pub data: Signal<Out, Bits<LD>>,
}

/// The receiving side of the wire.
#[derive(LogicInterface, Default)]
#[join = "WireLanesOut"]
pub struct WireLanesIn<const LD: usize> {
    /// Lane `n` carries a transfer this cycle.
    pub valid: Signal<In, Bits<4>>,
    /// Lane `n`'s sideband bit.
    pub start: Signal<In, Bits<4>>,
    /// Lane `n`'s transfer.
    pub data: Signal<In, Bits<LD>>,
}
