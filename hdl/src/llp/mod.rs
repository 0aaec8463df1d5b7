//! The link layer (LLP): LTPs, lane striping, replay, credits, lane removal.
//! Design: `docs/llp-design.md`. Implemented so far: the LTP layout and lane mapping
//! ([`ltp`]) and the lane channel ([`lane_channel`]).
pub mod lane_channel;
pub mod ltp;
pub mod packet_buffer;
