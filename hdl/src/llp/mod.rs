//! The link layer (LLP): LTPs, lane striping, replay, credits, lane removal.
//! Design: `docs/llp-design.md`. Implemented so far: the LTP layout and lane mapping
//! ([`ltp`]), the lane channel ([`lane_channel`]), the transmit gearbox ([`ltp_striper`]), the receive gearbox
//! ([`ltp_deframer`]) and the per-VC receive buffer with dirty-packet discard ([`packet_buffer`]).
pub mod lane_channel;
pub mod ltp;
pub mod ltp_deframer;
pub mod ltp_striper;
pub mod packet_buffer;
