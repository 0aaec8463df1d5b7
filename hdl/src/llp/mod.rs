//! The link layer (LLP): LTPs, lane striping, replay, credits, lane removal.
//! Design: `docs/llp-design.md`. Blocks: the LTP layout and lane mapping ([`ltp`]), the
//! link-transfer commands ([`lt`]), the lane channel ([`lane_channel`]), the transmit gearbox
//! ([`ltp_striper`]), the receive gearbox ([`deframer`]), the transmitter ([`tx`]), the
//! receiver's requests to its transmitter ([`link_requests`]),
//! the receive protocol ([`rx`]), the commit/rollback store of the staging and packet buffers ([`commit_store`]), the per-VC
//! receive buffer with dirty-packet discard ([`packet_buffer`]), the receive delivery path
//! ([`rx_delivery`]), link bring-up and retraining ([`train`]), the link BIST's blocks
//! ([`bist`]: PRBS-31 senders and checkers, the run's sequencer) and the whole endpoint
//! ([`endpoint`]).
pub mod bist;
pub mod commit_store;
pub mod deframer;
pub mod endpoint;
pub mod gearbox;
pub mod lane_channel;
pub mod link_requests;
pub mod lt;
pub mod ltp;
pub mod ltp_striper;
pub mod packet_buffer;
pub mod regs;
pub mod rx;
pub mod rx_delivery;
pub mod train;
pub mod tx;

/// Width of every credit count that crosses a block boundary in the link (freed slots, credits
/// returned by the far end, credits available): enough for the largest VC buffer the
/// configuration allows (4096 flits). One fixed width keeps the endpoint's generics to the two
/// buffer sizes (replay depth and VC buffer depth), so that emitting every configured size
/// stays cheap to compile.
pub const CREDIT_BITS: usize = 13;
