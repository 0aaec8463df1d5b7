//! What a link endpoint's receiver ([`RxLink`](super::rx::RxLink)) hands to its own
//! transmitter ([`TxLink`](super::tx::TxLink)): the far end's requests it received
//! (retry, echo, lane mask) and its own requests for the far end (a retry request with its
//! lane mask, an echo), with the receiver's state those carry. Pulses are registered in the
//! receiver, one cycle after the LTP's end that carried them.
//!
//! The credits the far end returned, one count per VC, travel beside this bundle
//! (`RxLink::got_credits` to `TxLink::got_credits`): a `LogicInterface` cannot hold a vector.
use rust_hdl::prelude::*;

/// The receiver's side.
#[derive(LogicInterface, Default)]
#[join = "LinkRequestsSink"]
pub struct LinkRequestsSource {
    /// The far end asks for a replay from `got_retry_seq`.
    pub got_retry: Signal<Out, bool>,
    /// Sequence number of `got_retry`.
    pub got_retry_seq: Signal<Out, Bits<16>>,
    /// The far end delivered every LTP below `got_echo_seq`.
    pub got_echo: Signal<Out, bool>,
    /// Sequence number of `got_echo`.
    pub got_echo_seq: Signal<Out, Bits<16>>,
    /// The far end asks us to send on `got_mask_val`.
    pub got_mask: Signal<Out, bool>,
    /// Lane mask of `got_mask`.
    pub got_mask_val: Signal<Out, Bits<4>>,
    /// Send the far end `RetryReq(expect_seq)` and `LaneMask(mask)`.
    pub send_retry: Signal<Out, bool>,
    /// Send the far end `RndTripEcho(expect_seq)`.
    pub send_echo: Signal<Out, bool>,
    /// The receiver's next expected sequence number.
    pub expect_seq: Signal<Out, Bits<16>>,
    /// The lanes the receiver listens on.
    pub mask: Signal<Out, Bits<4>>,
}

/// The transmitter's side.
#[derive(LogicInterface, Default)]
#[join = "LinkRequestsSource"]
pub struct LinkRequestsSink {
    /// The far end asked for a replay from `got_retry_seq`.
    pub got_retry: Signal<In, bool>,
    /// Sequence number of `got_retry`.
    pub got_retry_seq: Signal<In, Bits<16>>,
    /// The far end delivered every LTP below `got_echo_seq`.
    pub got_echo: Signal<In, bool>,
    /// Sequence number of `got_echo`.
    pub got_echo_seq: Signal<In, Bits<16>>,
    /// The far end wants our lanes to be `got_mask_val`.
    pub got_mask: Signal<In, bool>,
    /// Lane mask of `got_mask`.
    pub got_mask_val: Signal<In, Bits<4>>,
    /// Send `RetryReq(expect_seq)` and `LaneMask(mask)` (pulse).
    pub send_retry: Signal<In, bool>,
    /// Send `RndTripEcho(expect_seq)` (pulse).
    pub send_echo: Signal<In, bool>,
    /// Our receiver's next expected sequence number.
    pub expect_seq: Signal<In, Bits<16>>,
    /// Our receiver's lane mask.
    pub mask: Signal<In, Bits<4>>,
}
