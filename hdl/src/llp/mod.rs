//! The link layer (LLP): LTPs, lane striping, replay, credits, lane removal.
//! Design: `docs/llp-design.md`. Blocks: the LTP layout and lane mapping ([`ltp`]), the
//! link-transfer commands ([`lt`]), the lane channel ([`lane_channel`]), the transmit gearbox
//! ([`ltp_striper`]), the transmitter ([`tx_link`]), the receive protocol ([`rx_link`]) and the
//! per-VC receive buffer with dirty-packet discard ([`packet_buffer`]).
pub mod lane_channel;
pub mod lt;
pub mod ltp;
pub mod ltp_striper;
pub mod packet_buffer;
pub mod rx_link;
pub mod tx_link;
