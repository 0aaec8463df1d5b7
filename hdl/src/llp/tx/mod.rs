//! Transmit side of a link endpoint: VC arbitration with credits, LTP builder, replay buffer,
//! serializer with the LTP CRC, null LTPs, retry and round-trip protocol (`docs/llp-design.md`,
//! "Transmitter"). Its `out` stream feeds an [`LtpStriper`](super::ltp_striper::LtpStriper)
//! with 17 beats per LTP (16 flits, then the trailer).
//!
//! **Builder** ([`TxBuilder`]). Builds LTP `next_seq` into replay slot `next_seq mod R`, one
//! flit per cycle, 16 cycles without a pause once started, when there is something to send,
//! the replay buffer has room and the serializer has taken every earlier LTP. Each slot takes,
//! in order: a pending `RndTripEcho`, a `RndTripMrkr` when none is outstanding (neither in
//! flit 0), an urgent `CrdtRet`, a data flit (or its `VlMrkr`), any `CrdtRet`, else Idle.
//!
//! **Classified flits.** Each VC's sink takes the flit (bits 64..0) with its class in bits
//! [`Q_DROP`], [`Q_HEAD`] and [`Q_END`] and a head's LEN field from bit [`Q_LEN`], decoded
//! before the queue that feeds it ([`TxClassifier`]).
//!
//! **VC arbitration** ([`TxArbiter`]). A VC may send when its queue has a flit and it has a credit.
//! With `interleave` low a VC keeps the link from a head to its tail (Idle while it stalls), and a
//! head is admitted only when its VC has credits for the whole packet (below); with it high the
//! packet in progress keeps priority but another VC's flits fill its stalls ("bubble"
//! interleaving). Otherwise round robin. A body or tail of a VC other than the one the receiver
//! last heard of is preceded by `VlMrkr(vc)`; a head names its VC itself: its VC field is
//! overwritten with the queue's index, the link VC. Idle, CrdtRet, VlMrkr and LT flits offered by
//! the core are not the core's to send: they are dropped and counted (`core_dropped`), use no
//! credit and no slot.
//!
//! **Whole-packet admission** (`interleave` low): a head may go only when its VC's available
//! credits are at least its LEN. Its later flits then always have credit (today's per-flit
//! check), so a VC waiting for credits waits before its head, with the link free for other
//! VCs: a packet that started with one credit and held the link until its tail could deadlock
//! the fabric. A head with LEN 0 (malformed: the far end drops it whole) needs one credit; a
//! head with LEN above `max_packet` (the far end drops it whole as too long) needs
//! `max_packet`, so no head waits for more credits than a configured buffer holds
//! (`vc_buffer_flits >= max_packet_flits` is a rule of the configuration). `interleave` may
//! change at any cycle (a register): whole-packet rules take over only once every packet
//! whose head went while interleaving has ended ([`TxArbiter`], "A change of the VC mode").
//!
//! **Serializer** ([`TxSerializer`], [`TxNullLtp`], [`TxLanes`]). Always reads LTPs from the
//! replay buffer (new and replayed alike), or a null LTP from a generator, and computes the
//! CRC-14 on the way out; the trailer carries `CRC14(flits) ^ (seq mod 2^14)` for a normal LTP
//! and `CRC14(flits)` for a null LTP, plus the LTP's sequence state. It starts an LTP being
//! built once two of its flits are written (cut-through). Between LTPs, in priority: apply a
//! new lane mask (waits until the striper is idle), send a null LTP if one is wanted, send
//! the next LTP.
//!
//! **Protocol inputs** ([`TxReplay`], [`TxProtocol`]; pulses, from the receiver of the same
//! endpoint): `got_retry(e)` replays from `e` (from `ack_seq` if `e` is outside the window, counted
//! in `stale`) after a null LTP with `RetryMrkr`, and inside the window is an acknowledgement as
//! an echo is (the far end delivered every LTP below `e`); `got_echo(v)` frees the replay
//! buffer below `v` (ignored outside the window) and ends an outstanding round-trip marker
//! older than `v`, and so does an accepted `got_retry(e)` (an echo arriving after it may fall
//! below the new `ack_seq` and be ignored, so the retry request must end the marker);
//! `got_mask(m)` switches to lane mask `m` (nonzero); `got_credits[v]` returns credits.
//! `send_retry` and `send_echo` ask for a RetryReq (with LaneMask) and an echo. An echo rides in
//! the LTP being built; only when no LTP has been built for 63 cycles (as during a replay) does it
//! take a null LTP. A round-trip marker outstanding for `rt_timeout` cycles sends a poll, and so do
//! LTPs left unacknowledged for `rt_timeout` cycles with no marker outstanding (built while one was
//! out, then the link went idle); a replay for the far end restarts that timer (the echo follows
//! the replayed marker).
//!
//! **Link up.** A link-training block owns the lanes while `up` is low. Then the serializer
//! starts no LTP (`out.valid` low; an LTP on the way out when `up` fell is abandoned, and
//! stays in the replay buffer), the builder starts none (one in progress completes: `idle`
//! rises within 16 cycles), lane mask changes wait, and the poll timer and the echo age hold;
//! the receiver's requests are still taken. `start` (the first cycle of `up`, in which nothing
//! starts either; the trainer gives it only while `idle` is high) brings the link up:
//! - RESUME (`fresh_far` low, the far end kept its state): the lane mask becomes `start_mask`
//!   at once, the sequence state restarts at 0, a replay from `ack_seq` is made pending (a
//!   null LTP with `RetryMrkr(ack_seq)`, then every unacknowledged LTP: the far receiver's
//!   duplicate skip drops those it had), a pending retry request, poll or mask change is
//!   dropped, and the poll timer restarts. Nothing in the replay buffer is lost.
//! - RESTART (`fresh_far` high, the far end was reset): as RESUME, and the protocol starts
//!   afresh: every sequence number 0, the replay buffer emptied (its LTPs counted in
//!   `ltps_discarded`), no marker outstanding, no echo pending, the link VC 0 (what a fresh
//!   far end assumes), every VC's credits 0 (the far end returns its whole free buffer as
//!   CrdtRet flits once up) and every VC's owed credits `rx_free[v]` (our free slots now,
//!   which already count the slots `freed` reports in the same cycle; later frees come
//!   through `freed`). The VC queues are kept, and a packet in
//!   progress stays in progress: its remaining flits go out and the far end drops them as a
//!   packet without a head.
//!
//! **Credits** ([`TxArbiter`], [`TxOwedCredits`]). The counters start empty and hold up to 2^CW - 1
//! ([`CreditCounter::starting_empty`](crate::credit_counter::CreditCounter)): the far buffer's size
//! is not known at elaboration, it arrives as credits. `credit_error` (sticky until reset, across
//! RESTARTs) still catches a consume without credit and a total above 2^CW - 1 (a far end returning
//! credits twice over, say), not a far end returning a little more than its buffer holds.
//!
//! **Reset** (synchronous): sequence numbers 0, the replay buffer empty, every VC's credits 0
//! and none owed to the far end, the counters cleared, no request pending; the initial lane
//! mask is applied as a pending change (once the link is up and the striper idle). The first
//! bring-up after reset is a RESTART on both ends: each end's owed becomes its free buffer,
//! and the credits are exchanged as CrdtRet flits (ends may have different buffer sizes).
//!
//! Parameters: `RAW` = log2(R) + 4 replay address bits (R LTPs of 16 flits), `CW`
//! credit width (at least `fifo_count_bits` of the VC buffer depths; the endpoint uses
//! [`CREDIT_BITS`](super::CREDIT_BITS)); elaboration values: the number of VCs (1..=8), our
//! own VC buffer depth (the urgent CrdtRet threshold), the initial lane mask, `rt_timeout`,
//! `max_packet`.
//!
//! **Stages.** One child block per stage, composed and wired here; the bundles between them
//! are defined once below, each a `Source`/`Sink` pair joined whole (a bundle that feeds
//! several stages is joined to each):
//! - [`TxClassifier`] (one per VC, in front of the endpoint's VC queues): the class bits.
//! - [`TxArbiter`]: the VC queues' flags, our credits, whole-packet admission, round robin,
//!   the link VC and the `VlMrkr` a flit needs; offers the data slot's flit
//!   ([`CandidateSource`]).
//! - [`TxOwedCredits`]: credits we owe the far end; offers the `CrdtRet` flit ([`OwedSource`]).
//! - [`TxBuilder`]: the LTP being built, the slot priority and the replay-room flag
//!   ([`BuilderSource`], [`SlotSource`], [`LtpWriteSource`]).
//! - [`TxReplay`]: the replay RAM and the sequence numbers, retries and echo frees
//!   ([`SequenceSource`]).
//! - [`TxSerializer`]: reads LTPs or null LTPs out, CRC-14, trailer and sequence state
//!   ([`SerializerSource`]), with [`TxNullLtp`], the null LTP's flits.
//! - [`TxLanes`]: the lane mask and its changes ([`LaneStateSource`]).
//! - [`TxProtocol`]: link up/start ([`LinkStateSource`]), retry requests, echoes, round-trip
//!   markers and polls and their timers ([`ProtocolSource`]).
//!
//! Every decision is made in the cycle its inputs are in the registers, as before the split:
//! the stages pass combinational decisions to each other (the serializer's start of a null
//! LTP to the builder's echo slot, the builder's slots to the arbiter, the owed credits and the
//! protocol), so the block is cycle for cycle what the single block was.
mod arbiter;
mod builder;
mod candidate;
mod classifier;
mod lanes;
mod null_ltp;
mod owed;
mod protocol;
mod replay;
mod serializer;
mod vc_mode;

pub use arbiter::TxArbiter;
pub use builder::TxBuilder;
pub use candidate::TxCandidate;
pub use classifier::TxClassifier;
pub use lanes::TxLanes;
pub use null_ltp::TxNullLtp;
pub use owed::TxOwedCredits;
pub use protocol::TxProtocol;
pub use replay::TxReplay;
pub use serializer::TxSerializer;

use super::link_requests::LinkRequestsSink;
use crate::crc::crc_step::bits_from_fn;
use crate::formats::FLIT_BITS;
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// Bits of a classified flit: the flit, its class and a head's length.
pub const Q_BITS: usize = 76;
/// Class bit: the flit is not the core's to send (Idle, CrdtRet, VlMrkr, LT).
pub const Q_DROP: usize = FLIT_BITS;
/// Class bit: the flit is a head.
pub const Q_HEAD: usize = 66;
/// Class bit: the flit ends a packet (tail or TailBadPkt).
pub const Q_END: usize = 67;
/// Lowest of the 8 class bits holding a head's LEN field (the packet's length in flits, 0 for
/// any other flit): whole-packet admission reads it from the queue's flip-flops.
pub const Q_LEN: usize = 68;

/// A classified word with only class bit `k` set.
fn class_bit(k: usize) -> Constant<Bits<Q_BITS>> {
    Constant::new(bits_from_fn(|i| i == k))
}

/// A 65-bit constant.
fn flit_constant(v: u128) -> Constant<Bits<FLIT_BITS>> {
    Constant::new(bits_from_fn(|k| (v >> k) & 1 == 1))
}

/// The protocol to every stage: the link's state this cycle (module doc, "Link up").
#[derive(LogicInterface, Default)]
#[join = "LinkStateSink"]
pub struct LinkStateSource {
    /// The link is trained (level).
    pub up: Signal<Out, bool>,
    /// The first cycle of `up`: the link comes up now.
    pub start: Signal<Out, bool>,
    /// The link is up and not in its `start` cycle: LTPs may start.
    pub run: Signal<Out, bool>,
    /// `start` of a RESTART (the far end was reset): the protocol starts afresh.
    pub restart: Signal<Out, bool>,
}

/// The receiving side of [`LinkStateSource`].
#[derive(LogicInterface, Default)]
#[join = "LinkStateSource"]
pub struct LinkStateSink {
    /// The link is trained.
    pub up: Signal<In, bool>,
    /// The link comes up now.
    pub start: Signal<In, bool>,
    /// LTPs may start.
    pub run: Signal<In, bool>,
    /// The link comes up with a fresh far end.
    pub restart: Signal<In, bool>,
}

/// The arbiter to the builder: the data slot's offer this cycle.
#[derive(LogicInterface, Default)]
#[join = "CandidateSink"]
pub struct CandidateSource {
    /// A VC may send: its flit, or the `VlMrkr` it needs first, can take a slot.
    pub ready: Signal<Out, bool>,
    /// The flit for the slot: the `VlMrkr(vc)` the VC needs first, a head with its VC field
    /// set to the link VC, the flit itself, or zero (Idle) for a flit the core may not send.
    pub flit: Signal<Out, Bits<FLIT_BITS>>,
}

/// The receiving side of [`CandidateSource`].
#[derive(LogicInterface, Default)]
#[join = "CandidateSource"]
pub struct CandidateSink {
    /// A VC may send.
    pub ready: Signal<In, bool>,
    /// The flit for the data slot.
    pub flit: Signal<In, Bits<FLIT_BITS>>,
}

/// The owed credits to the builder: the `CrdtRet` slot's offer this cycle.
#[derive(LogicInterface, Default)]
#[join = "OwedSink"]
pub struct OwedSource {
    /// Some VC is owed credits.
    pub any: Signal<Out, bool>,
    /// Some VC is owed at least a quarter of its buffer (it goes before data).
    pub urgent: Signal<Out, bool>,
    /// `CrdtRet` of the first urgent VC, else of the first VC owed credits, with all it is
    /// owed.
    pub flit: Signal<Out, Bits<FLIT_BITS>>,
    /// The credit sideband code of LTP `next_seq` if its last flit is written now
    /// (`ltp::sideband_code` of what its VC, `ltp::sideband_vc`, is owed).
    pub sideband: Signal<Out, Bits<2>>,
}

/// The receiving side of [`OwedSource`].
#[derive(LogicInterface, Default)]
#[join = "OwedSource"]
pub struct OwedSink {
    /// Some VC is owed credits.
    pub any: Signal<In, bool>,
    /// Some VC is owed at least a quarter of its buffer.
    pub urgent: Signal<In, bool>,
    /// The `CrdtRet` flit.
    pub flit: Signal<In, Bits<FLIT_BITS>>,
    /// The credit sideband code of LTP `next_seq`.
    pub sideband: Signal<In, Bits<2>>,
}

/// The builder to the serializer and the protocol: its state and the protocol's flits in the
/// slot written now.
#[derive(LogicInterface, Default)]
#[join = "BuilderSink"]
pub struct BuilderSource {
    /// An LTP is being built (registered).
    pub active: Signal<Out, bool>,
    /// Two of its flits are written: the serializer may start it (registered).
    pub cut_through: Signal<Out, bool>,
    /// The slot written now holds the pending `RndTripEcho`.
    pub echo_slot: Signal<Out, bool>,
    /// The slot written now holds a `RndTripMrkr`.
    pub marker_slot: Signal<Out, bool>,
}

/// The receiving side of [`BuilderSource`].
#[derive(LogicInterface, Default)]
#[join = "BuilderSource"]
pub struct BuilderSink {
    /// An LTP is being built.
    pub active: Signal<In, bool>,
    /// Two of its flits are written.
    pub cut_through: Signal<In, bool>,
    /// The slot written now holds the echo.
    pub echo_slot: Signal<In, bool>,
    /// The slot written now holds a round-trip marker.
    pub marker_slot: Signal<In, bool>,
}

/// The builder to the arbiter and the owed credits: whose offer the slot written now takes.
#[derive(LogicInterface, Default)]
#[join = "SlotSink"]
pub struct SlotSource {
    /// The slot written now holds the arbiter's flit: the VC's flit is taken unless it is
    /// its `VlMrkr`.
    pub data_slot: Signal<Out, bool>,
    /// The slot written now holds the owed credits' `CrdtRet`.
    pub credit_slot: Signal<Out, bool>,
    /// The slot written now is the LTP's last: the sideband code offered is taken.
    pub sideband_slot: Signal<Out, bool>,
}

/// The receiving side of [`SlotSource`].
#[derive(LogicInterface, Default)]
#[join = "SlotSource"]
pub struct SlotSink {
    /// The slot written now holds the arbiter's flit.
    pub data_slot: Signal<In, bool>,
    /// The slot written now holds a `CrdtRet`.
    pub credit_slot: Signal<In, bool>,
    /// The slot written now is the LTP's last.
    pub sideband_slot: Signal<In, bool>,
}

/// The builder to the replay buffer: the flit written now into LTP `next_seq`.
#[derive(LogicInterface, Default)]
#[join = "LtpWriteSink"]
pub struct LtpWriteSource {
    /// A flit is written now.
    pub write: Signal<Out, bool>,
    /// Its slot in the LTP (15 completes the LTP).
    pub position: Signal<Out, Bits<4>>,
    /// The flit.
    pub flit: Signal<Out, Bits<FLIT_BITS>>,
    /// With position 15: the LTP's credit sideband code, kept with it for its replays.
    pub sideband: Signal<Out, Bits<2>>,
}

/// The receiving side of [`LtpWriteSource`].
#[derive(LogicInterface, Default)]
#[join = "LtpWriteSource"]
pub struct LtpWriteSink {
    /// A flit is written now.
    pub write: Signal<In, bool>,
    /// Its slot in the LTP.
    pub position: Signal<In, Bits<4>>,
    /// The flit.
    pub flit: Signal<In, Bits<FLIT_BITS>>,
    /// With position 15: the LTP's credit sideband code.
    pub sideband: Signal<In, Bits<2>>,
}

/// The replay buffer to the builder, the serializer and the protocol: the sequence numbers
/// (registered) and this cycle's acknowledgement.
#[derive(LogicInterface, Default)]
#[join = "SequenceSink"]
pub struct SequenceSource {
    /// The LTP being built (or the next one).
    pub next_seq: Signal<Out, Bits<16>>,
    /// The next LTP the serializer sends.
    pub send_seq: Signal<Out, Bits<16>>,
    /// Where the pending replay starts.
    pub replay_seq: Signal<Out, Bits<16>>,
    /// A replay waits for its null LTP (`RetryMrkr(replay_seq)`).
    pub replay_pending: Signal<Out, bool>,
    /// LTPs held in the replay buffer (`next_seq - ack_seq`).
    pub fill: Signal<Out, Bits<16>>,
    /// An acknowledgement inside the window this cycle (`got_echo`, or `got_retry`: the far
    /// end asks from the first LTP it has not delivered): it frees the replay buffer below
    /// `acknowledged_seq`.
    pub acknowledged: Signal<Out, bool>,
    /// Its sequence number (the echo's when both come in one cycle).
    pub acknowledged_seq: Signal<Out, Bits<16>>,
}

/// The receiving side of [`SequenceSource`].
#[derive(LogicInterface, Default)]
#[join = "SequenceSource"]
pub struct SequenceSink {
    /// The LTP being built (or the next one).
    pub next_seq: Signal<In, Bits<16>>,
    /// The next LTP the serializer sends.
    pub send_seq: Signal<In, Bits<16>>,
    /// Where the pending replay starts.
    pub replay_seq: Signal<In, Bits<16>>,
    /// A replay is pending.
    pub replay_pending: Signal<In, bool>,
    /// LTPs held in the replay buffer.
    pub fill: Signal<In, Bits<16>>,
    /// An acknowledgement frees the replay buffer below `acknowledged_seq` now.
    pub acknowledged: Signal<In, bool>,
    /// Its sequence number.
    pub acknowledged_seq: Signal<In, Bits<16>>,
}

/// The serializer to the replay buffer, the builder, the lanes and the protocol: what starts
/// now.
#[derive(LogicInterface, Default)]
#[join = "SerializerSink"]
pub struct SerializerSource {
    /// A null LTP starts now: it takes the pending requests.
    pub null_start: Signal<Out, bool>,
    /// LTP `send_seq` starts now.
    pub ltp_start: Signal<Out, bool>,
    /// An LTP or null LTP is on the way out (registered).
    pub active: Signal<Out, bool>,
}

/// The receiving side of [`SerializerSource`].
#[derive(LogicInterface, Default)]
#[join = "SerializerSource"]
pub struct SerializerSink {
    /// A null LTP starts now.
    pub null_start: Signal<In, bool>,
    /// LTP `send_seq` starts now.
    pub ltp_start: Signal<In, bool>,
    /// An LTP is on the way out.
    pub active: Signal<In, bool>,
}

/// The protocol to the builder and the serializer: its pending requests (registered).
#[derive(LogicInterface, Default)]
#[join = "ProtocolSink"]
pub struct ProtocolSource {
    /// An echo (`RndTripEcho(expect_seq)`) is pending.
    pub echo_pending: Signal<Out, bool>,
    /// A null LTP is wanted for the protocol: a retry request, a poll, or an echo that waited
    /// 63 cycles for a slot while the builder is idle.
    pub null_wanted: Signal<Out, bool>,
    /// A retry request (`RetryReq` with `LaneMask`) is pending.
    pub retry_request: Signal<Out, bool>,
    /// A poll (`RndTripMrkr` in a null LTP) is pending.
    pub poll: Signal<Out, bool>,
    /// A round-trip marker is outstanding: the builder sends no other.
    pub marker_out: Signal<Out, bool>,
}

/// The receiving side of [`ProtocolSource`].
#[derive(LogicInterface, Default)]
#[join = "ProtocolSource"]
pub struct ProtocolSink {
    /// An echo is pending.
    pub echo_pending: Signal<In, bool>,
    /// A null LTP is wanted for the protocol.
    pub null_wanted: Signal<In, bool>,
    /// A retry request is pending.
    pub retry_request: Signal<In, bool>,
    /// A poll is pending.
    pub poll: Signal<In, bool>,
    /// A round-trip marker is outstanding.
    pub marker_out: Signal<In, bool>,
}

/// The lanes to the serializer: a change waiting and the sequence state's step (registered).
#[derive(LogicInterface, Default)]
#[join = "LaneStateSink"]
pub struct LaneStateSource {
    /// A new lane mask waits: no LTP starts until it is applied.
    pub change_pending: Signal<Out, bool>,
    /// 33 mod L: how far the sequence state moves from one LTP to the next (L = 2, 4: 1).
    pub state_step: Signal<Out, Bits<2>>,
    /// L - 1 as a mask: the sequence state wraps at L.
    pub state_wrap: Signal<Out, Bits<2>>,
}

/// The receiving side of [`LaneStateSource`].
#[derive(LogicInterface, Default)]
#[join = "LaneStateSource"]
pub struct LaneStateSink {
    /// A new lane mask waits.
    pub change_pending: Signal<In, bool>,
    /// 33 mod L.
    pub state_step: Signal<In, Bits<2>>,
    /// L - 1.
    pub state_wrap: Signal<In, Bits<2>>,
}

/// The transmit side of a link endpoint.
#[derive(LogicBlock)]
pub struct TxLink<const RAW: usize, const CW: usize> {
    /// Clock of every register and of the replay RAM.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: sequence numbers to 0, replay empty, credits 0 (they come from the
    /// far end).
    pub reset: Signal<In, bool>,
    /// Per-VC flits of fabric packets from the core, classified ([`TxClassifier`]).
    pub sinks: Vec<StreamSink<Bits<Q_BITS>>>,
    /// LTP beats to the striper: 16 flits, then the trailer in bits 15..0.
    pub out: StreamSource<Bits<FLIT_BITS>>,
    /// The striper is idle between LTPs (it samples `mask` now).
    pub striper_idle: Signal<In, bool>,
    /// Active physical lanes, to the striper.
    pub mask: Signal<Out, Bits<4>>,
    /// Fill a stalled packet's slots with other VCs' flits.
    pub interleave: Signal<In, bool>,
    /// The far end's requests and our receiver's, from our receiver.
    pub from_rx: LinkRequestsSink,
    /// Credits the far end returned, per VC (zero when none).
    pub got_credits: Vec<Signal<In, Bits<CW>>>,
    /// Slots our receive buffers freed, per VC: credits we owe the far end.
    pub freed: Vec<Signal<In, Bits<CW>>>,
    /// The link is trained (level): while low nothing is sent (module doc, "Link up").
    pub up: Signal<In, bool>,
    /// One-cycle pulse in the first cycle `up` is high: the link came up.
    pub start: Signal<In, bool>,
    /// Valid with `start`: the far end was reset (RESTART), else it kept its state (RESUME).
    pub fresh_far: Signal<In, bool>,
    /// Valid with `start`: the lanes to send on from now.
    pub start_mask: Signal<In, Bits<4>>,
    /// Per VC: free slots of our receive buffers, not counting this cycle's `freed` (read at a
    /// RESTART: what we owe the fresh far end).
    pub rx_free: Vec<Signal<In, Bits<CW>>>,
    /// The builder is not in the middle of an LTP.
    pub idle: Signal<Out, bool>,
    /// LTPs dropped from the replay buffer at RESTARTs (saturating).
    pub ltps_discarded: Signal<Out, Bits<16>>,
    /// Normal LTPs sent, replays included (wrapping).
    pub ltps_sent: Signal<Out, Bits<32>>,
    /// Null LTPs sent (wrapping).
    pub nulls_sent: Signal<Out, Bits<32>>,
    /// Replays started (saturating).
    pub replays: Signal<Out, Bits<16>>,
    /// Retry requests outside the replay window (saturating).
    pub stale: Signal<Out, Bits<16>>,
    /// Flits from the core that were not the core's to send (saturating).
    pub core_dropped: Signal<Out, Bits<16>>,
    /// Credits available per VC.
    pub credits: Vec<Signal<Out, Bits<CW>>>,
    /// Sticky until reset: the far end returned more credits than a counter holds (module doc,
    /// "Credits").
    pub credit_error: Signal<Out, bool>,
    /// LTPs held in the replay buffer (`next_seq - ack_seq`).
    pub replay_fill: Signal<Out, Bits<16>>,
    arbiter: TxArbiter<CW>,
    owed: TxOwedCredits<CW>,
    builder: TxBuilder,
    replay: TxReplay<RAW>,
    serializer: TxSerializer<RAW>,
    null_ltp: TxNullLtp,
    lanes: TxLanes,
    protocol: TxProtocol,
}

impl<const RAW: usize, const CW: usize> TxLink<RAW, CW> {
    /// A transmitter of `vcs` VCs whose own receive buffers (our `RxLink`'s, for the urgent
    /// quarter-buffer CrdtRet threshold) hold `vc_buffer` flits per VC, lanes `mask` after
    /// reset, a round-trip marker timeout of `rt_timeout` cycles, and packets of at most
    /// `max_packet` flits (`network.max_packet_flits`: the most credits a head waits for). The
    /// far end's buffer sizes are not needed: its credits arrive at bring-up.
    pub fn new(vcs: usize, vc_buffer: u64, mask: u8, rt_timeout: u16, max_packet: u64) -> Self {
        assert!(
            (1..=8).contains(&vcs),
            "TxLink: vcs = {vcs} must be in 1..=8"
        );
        assert!(
            (5..=10).contains(&RAW),
            "TxLink: RAW = {RAW} must be log2(replay LTPs) + 4 with 2..=64 LTPs"
        );
        assert!(
            vc_buffer >= 4 && vc_buffer < (1 << CW),
            "TxLink: vc_buffer = {vc_buffer} must be >= 4 and fit CW = {CW} bits"
        );
        assert!(
            mask != 0 && mask < 16,
            "TxLink: mask {mask:#x} must name 1..4 lanes"
        );
        assert!(
            (1..=255).contains(&max_packet) && max_packet < (1 << CW),
            "TxLink: max_packet = {max_packet} must be 1..=255 and fit CW = {CW} bits"
        );
        assert!(
            rt_timeout >= 64,
            "TxLink: rt_timeout must be at least 64 cycles"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sinks: (0..vcs).map(|_| Default::default()).collect(),
            out: Default::default(),
            striper_idle: Default::default(),
            mask: Default::default(),
            interleave: Default::default(),
            from_rx: Default::default(),
            got_credits: (0..vcs).map(|_| Default::default()).collect(),
            freed: (0..vcs).map(|_| Default::default()).collect(),
            up: Default::default(),
            start: Default::default(),
            fresh_far: Default::default(),
            start_mask: Default::default(),
            rx_free: (0..vcs).map(|_| Default::default()).collect(),
            idle: Default::default(),
            ltps_discarded: Default::default(),
            ltps_sent: Default::default(),
            nulls_sent: Default::default(),
            replays: Default::default(),
            stale: Default::default(),
            core_dropped: Default::default(),
            credits: (0..vcs).map(|_| Default::default()).collect(),
            credit_error: Default::default(),
            replay_fill: Default::default(),
            arbiter: TxArbiter::new(vcs, max_packet),
            owed: TxOwedCredits::new(vcs, vc_buffer),
            builder: TxBuilder::new(1 << (RAW - 4)),
            replay: Default::default(),
            serializer: Default::default(),
            null_ltp: Default::default(),
            lanes: TxLanes::new(mask),
            protocol: TxProtocol::new(rt_timeout),
        }
    }
}

impl<const RAW: usize, const CW: usize> Logic for TxLink<RAW, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, arbiter, owed, builder, replay, serializer, null_ltp, lanes, protocol);
        self.arbiter.reset.next = self.reset.val();
        self.owed.reset.next = self.reset.val();
        self.builder.reset.next = self.reset.val();
        self.replay.reset.next = self.reset.val();
        self.serializer.reset.next = self.reset.val();
        self.lanes.reset.next = self.reset.val();
        self.protocol.reset.next = self.reset.val();

        // The link's state, from the protocol to every stage that starts or restarts anything.
        self.protocol.up.next = self.up.val();
        self.protocol.start.next = self.start.val();
        self.protocol.fresh_far.next = self.fresh_far.val();
        LinkStateSource::join(&mut self.protocol.link, &mut self.builder.link);
        LinkStateSource::join(&mut self.protocol.link, &mut self.replay.link);
        LinkStateSource::join(&mut self.protocol.link, &mut self.serializer.link);
        LinkStateSource::join(&mut self.protocol.link, &mut self.lanes.link);
        // The arbiter and the owed credits only restart (their counts start afresh).
        self.arbiter.restart.next = self.protocol.link.restart.val();
        self.owed.restart.next = self.protocol.link.restart.val();

        // The receiver's requests go to every stage that takes one.
        LinkRequestsSink::link(&mut self.from_rx, &mut self.replay.from_rx);
        LinkRequestsSink::link(&mut self.from_rx, &mut self.lanes.from_rx);
        LinkRequestsSink::link(&mut self.from_rx, &mut self.protocol.from_rx);
        // The echo slot and the null LTP carry the receiver's state of the cycle they are
        // written in.
        self.builder.expect_seq.next = self.from_rx.expect_seq.val();
        self.null_ltp.expect_seq.next = self.from_rx.expect_seq.val();
        self.null_ltp.rx_mask.next = self.from_rx.mask.val();

        // Per VC: the queues and returned credits to the arbiter, our freed slots to the owed
        // credits (vectors: a `LogicInterface` cannot hold one).
        for v in 0..self.sinks.len() {
            StreamSink::<Bits<Q_BITS>>::link(&mut self.sinks[v], &mut self.arbiter.sinks[v]);
            self.arbiter.got_credits[v].next = self.got_credits[v].val();
            self.credits[v].next = self.arbiter.credits[v].val();
            self.owed.freed[v].next = self.freed[v].val();
            self.owed.rx_free[v].next = self.rx_free[v].val();
        }
        self.arbiter.interleave.next = self.interleave.val();

        // The stages' bundles.
        CandidateSource::join(&mut self.arbiter.out, &mut self.builder.candidate);
        OwedSource::join(&mut self.owed.out, &mut self.builder.owed);
        SlotSource::join(&mut self.builder.slots, &mut self.arbiter.slots);
        SlotSource::join(&mut self.builder.slots, &mut self.owed.slots);
        BuilderSource::join(&mut self.builder.out, &mut self.serializer.builder);
        BuilderSource::join(&mut self.builder.out, &mut self.protocol.builder);
        LtpWriteSource::join(&mut self.builder.write, &mut self.replay.write);
        SequenceSource::join(&mut self.replay.out, &mut self.builder.numbers);
        SequenceSource::join(&mut self.replay.out, &mut self.serializer.numbers);
        SequenceSource::join(&mut self.replay.out, &mut self.protocol.numbers);
        SequenceSource::join(&mut self.replay.out, &mut self.null_ltp.numbers);
        SerializerSource::join(&mut self.serializer.status, &mut self.replay.serializer);
        SerializerSource::join(&mut self.serializer.status, &mut self.builder.serializer);
        SerializerSource::join(&mut self.serializer.status, &mut self.lanes.serializer);
        SerializerSource::join(&mut self.serializer.status, &mut self.protocol.serializer);
        SerializerSource::join(&mut self.serializer.status, &mut self.null_ltp.serializer);
        ProtocolSource::join(&mut self.protocol.out, &mut self.builder.protocol);
        ProtocolSource::join(&mut self.protocol.out, &mut self.serializer.protocol);
        ProtocolSource::join(&mut self.protocol.out, &mut self.null_ltp.protocol);
        // The null LTP's flit at the serializer's position.
        self.null_ltp.position.next = self.serializer.beat.val();
        self.serializer.null_flit.next = self.null_ltp.flit.val();
        LaneStateSource::join(&mut self.lanes.out, &mut self.serializer.lanes);
        // The replay RAM's read port, addressed by the serializer.
        self.replay.read_address.next = self.serializer.read_address.val();
        self.serializer.read_data.next = self.replay.read_data.val();
        // The sideband kept with the LTP on the way out, for its trailer.
        self.replay.sideband_seq.next = self.serializer.sideband_seq.val();
        self.serializer.sideband.next = self.replay.sideband.val();
        self.owed.next_seq.next = self.replay.out.next_seq.val();

        // Ports.
        StreamSource::<Bits<FLIT_BITS>>::link(&mut self.out, &mut self.serializer.out);
        self.lanes.striper_idle.next = self.striper_idle.val();
        self.lanes.start_mask.next = self.start_mask.val();
        self.mask.next = self.lanes.mask.val();
        self.idle.next = self.builder.idle.val();
        self.ltps_discarded.next = self.replay.ltps_discarded.val();
        self.ltps_sent.next = self.serializer.ltps_sent.val();
        self.nulls_sent.next = self.serializer.nulls_sent.val();
        self.replays.next = self.replay.replays.val();
        self.stale.next = self.replay.stale.val();
        self.core_dropped.next = self.arbiter.core_dropped.val();
        self.credit_error.next = self.arbiter.credit_error.val();
        self.replay_fill.next = self.replay.out.fill.val();
    }
}

#[test]
fn tx_link_is_synthesizable() {
    let mut uut = TxLink::<8, 7>::new(2, 64, 0xf, 1024, 64);
    uut.connect_all();
    yosys_validate("tx_link", &generate_verilog(&uut)).unwrap();
}
