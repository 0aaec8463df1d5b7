//! LTP deframer: the receive gearbox of the link layer, from lane beats to the 16 flits of each
//! LTP, with the LTP's CRC-14 difference, its sequence state and per-XFR-group CRC-8s.
//!
//! Input: `lanes` (no backpressure), as [`super::ltp_striper::LtpStriper`] sends them (software
//! model [`super::ltp::stripe`]): XFR `g` of the rotation on logical lane `g mod L`, logical lane
//! `n` = the `n`-th set bit of `mask`, `start` on the lane that carries an LTP's XFR 0. A beat
//! is a cycle in which any active lane is valid; lanes outside `mask` are ignored.
//!
//! Attempts: every start flag begins an *LTP attempt*, and every attempt gets exactly one
//! `end_valid` pulse, in the order the attempts began, strictly after the attempt's last
//! `flit_valid`. An attempt is intact (`end_intact`) when its 33 XFRs arrived in order with no
//! missing lane, no unexpected start flag and no queue overflow (a rotation other than the
//! sender's shows in `end_crc_diff`, see below). Anomalies end the attempt at once as bad and the
//! deframer hunts for the next start flag:
//! - a missing lane: an active lane invalid below the highest valid lane of a beat, or a lane
//!   the attempt needed in this beat (a beat must carry `min(L, XFRs left)` XFRs of it);
//! - a start flag where the attempt expects a data XFR: the attempt ends bad and a new one
//!   begins on that lane (several start flags in one beat each begin an attempt, all but the
//!   last ending bad at once);
//! - a change of `mask` (compared with a registered copy).
//!
//! A queue overflow (a far end sending faster than 33 XFRs per 17 cycles) loses the XFR that
//! found its lane queue full; the attempt it belonged to keeps its framing (so ends and events
//! are as without the overflow) but ends bad.
//!
//! XFRs that belong to no attempt (while hunting, before a start flag) pulse `stray`. The
//! outputs of a bad attempt (its flits, `end_crc_diff`, `end_gcrc`) are meaningless, but every
//! flit of an intact attempt is exactly the one sent.
//!
//! Outputs (the [`DeframedSource`] bundle, to [`super::rx::RxLink`]) with `end_valid`:
//! `end_crc_diff` = CRC-14 of the 16 received flits and the trailer's 2 sideband bits (as
//! [`super::ltp::ltp_crc`]) XOR the trailer's check field XOR the logical lane of XFR 0 at
//! [`super::ltp::STATE_SHIFT`]: the consumer compares it with the value the sender XORed in
//! (a sequence number), so the block does not compare it with zero, and an attempt read at
//! another lane rotation than the sender's fails it. `end_state` = logical lane of XFR 0.
//! `end_sideband` = the trailer's credit sideband bits. `end_gcrc` = per-group CRC-8/SMBUS ([`crate::crc::CRC8`], one 32-bit XFR per step,
//! word bit 31 first since the CRC is not reflected): group `m` (bits `8m .. 8m+7`) over XFRs
//! `j` with `j mod L == m` in order of `j`, groups `>= L` zero.
//!
//! Pipeline: one child block per stage, one register stage per step (the beat's analysis and
//! the writer's decisions do not share a cycle, nor do the reader's pops and the overflow
//! check):
//! 1. [`BeatStage`]: the beat on `lanes` registered with its analysis, which depends on the
//!    beat and `mask` alone.
//! 2. [`AttemptWriter`]: the attempt in progress takes the beat or ends; the XFRs kept go into
//!    [`LaneQueues`] (two entries per physical lane); `lane_missing` and `stray` are
//!    registered (they pulse two cycles after the beat was on `lanes`).
//! 3. [`PairReader`] with its [`ReadPointer`]: reads XFRs `2n` and `2n+1` (`n` = 0..16; XFR 32 alone) from the heads of
//!    two lanes into registers, one pair per cycle (one XFR per cycle at `L` = 1): 17 cycles
//!    per LTP, the striper's own pace. [`OwedEnds`] counts the ends of attempts the reader
//!    never read and decides when they leave.
//! 4. [`FlitShift`]: flit `n-1` = `{XFR 2n, XFR 2n-1, XFR 2n-2} >> (n-1)` (one 16-way shift of
//!    80 bits), registered; the group CRCs take the pair (two CRC-8 steps).
//! 5. [`CrcEnd`]: the CRC-14 steps over the registered flit; the end leaves with the CRC of
//!    flit 15.
//!
//! Latency: a flit leaves four cycles after the beat that completed it was on `lanes`, an end
//! one cycle after the attempt's last flit.
//!
//! Ends: the reader's attempt ends through the pipeline (when the writer ends it early, on the
//! same cycle: the reader stops and points at the next attempt); attempts that end without
//! being read are counted by [`OwedEnds`] and emitted one per cycle while the reader is idle.
//!
//! Reset (synchronous, active high) drops everything and hunts for a start flag: the attempt in
//! progress ends without an `end_valid`, ends and flits not yet reported are dropped, and so
//! are the beats of the reset cycles and of the cycle before them (in the beat stage); from the
//! cycle after it every output is low until new beats come through.
//!
//! Ports: `clock`, `reset`, `lanes`, `mask`, `out` ([`DeframedSource`]). No parameters.
//!
//! The bundles between the stages are defined here once, each a `Source`/`Sink` pair joined
//! whole in [`LtpDeframer`]; a bundle that feeds several stages is joined to each.
mod attempt_writer;
mod beat_stage;
mod crc_end;
mod flit_shift;
mod lane_queues;
mod owed_ends;
mod pair_reader;
mod read_pointer;

pub use attempt_writer::AttemptWriter;
pub use beat_stage::BeatStage;
pub use crc_end::CrcEnd;
pub use flit_shift::FlitShift;
pub use lane_queues::{LaneQueues, LANE_DEPTH};
pub use owed_ends::OwedEnds;
pub use pair_reader::PairReader;
pub use read_pointer::{PointerSink, PointerSource, ReadPointer, ReadStepSink, ReadStepSource};

use super::lane_channel::LaneChannelIn;
use crate::formats::FLIT_BITS;
use rust_hdl::prelude::*;

/// What the deframer hands to the receive protocol ([`super::rx::RxLink`]): the flits of
/// the attempt in progress, one end record per attempt, and the lane events.
#[derive(LogicInterface, Default)]
#[join = "DeframedSink"]
pub struct DeframedSource {
    /// Flit `flit_pos` of the attempt in progress.
    pub flit: Signal<Out, Bits<FLIT_BITS>>,
    /// `flit` is valid (at most one per cycle, positions 0..15 in order).
    pub flit_valid: Signal<Out, bool>,
    /// Position of `flit` in its LTP.
    pub flit_pos: Signal<Out, Bits<4>>,
    /// One pulse per attempt, after its last flit (`end` is a Verilog keyword).
    pub end_valid: Signal<Out, bool>,
    /// With `end_valid`: the attempt is intact (see the module documentation).
    pub end_intact: Signal<Out, bool>,
    /// With `end_valid`: CRC-14 of the received flits XOR the trailer's CRC field.
    pub end_crc_diff: Signal<Out, Bits<14>>,
    /// With `end_valid`: logical lane of XFR 0.
    pub end_state: Signal<Out, Bits<2>>,
    /// With `end_valid`: the trailer's credit sideband bits.
    pub end_sideband: Signal<Out, Bits<2>>,
    /// With `end_valid`: CRC-8 of XFR group `m` in bits `8m .. 8m+7`.
    pub end_gcrc: Signal<Out, Bits<32>>,
    /// Physical lanes (in the mask) that dropped a transfer (two cycles after the beat).
    pub lane_missing: Signal<Out, Bits<4>>,
    /// Valid XFRs that belong to no attempt arrived (two cycles after the beat).
    pub stray: Signal<Out, bool>,
}

/// The receiving side of [`DeframedSource`].
#[derive(LogicInterface, Default)]
#[join = "DeframedSource"]
pub struct DeframedSink {
    /// Flit `flit_pos` of the attempt in progress.
    pub flit: Signal<In, Bits<FLIT_BITS>>,
    /// `flit` is valid.
    pub flit_valid: Signal<In, bool>,
    /// Position of `flit` in its LTP.
    pub flit_pos: Signal<In, Bits<4>>,
    /// An LTP attempt ended.
    pub end_valid: Signal<In, bool>,
    /// It arrived whole and in order with the right state.
    pub end_intact: Signal<In, bool>,
    /// Its computed CRC-14 XOR its trailer CRC.
    pub end_crc_diff: Signal<In, Bits<14>>,
    /// Logical lane of its first XFR.
    pub end_state: Signal<In, Bits<2>>,
    /// Its credit sideband bits.
    pub end_sideband: Signal<In, Bits<2>>,
    /// Its per-group CRC-8s.
    pub end_gcrc: Signal<In, Bits<32>>,
    /// Physical lanes that dropped a transfer.
    pub lane_missing: Signal<In, Bits<4>>,
    /// Transfers outside any LTP.
    pub stray: Signal<In, bool>,
}

/// Stage 1 to the writer, the queues, the reader and the owed ends: the registered beat and
/// its analysis (physical lane order throughout). Lane tables hold a 2-bit lane per physical
/// lane `p` in bits `2p .. 2p+1`.
#[derive(LogicInterface, Default)]
#[join = "BeatSink"]
pub struct BeatSource {
    /// The XFR of each physical lane, bits `32p .. 32p+31`.
    pub data: Signal<Out, Bits<128>>,
    /// The active lanes of this beat.
    pub mask: Signal<Out, Bits<4>>,
    /// `mask` differs from the previous cycle's.
    pub mask_changed: Signal<Out, bool>,
    /// Active lanes `L`.
    pub lane_count: Signal<Out, Bits<3>>,
    /// Logical lane of each physical lane.
    pub logical_lanes: Signal<Out, Bits<8>>,
    /// Next active lane after each physical lane, cyclically (itself at `L` = 1).
    pub next_lanes: Signal<Out, Bits<8>>,
    /// Lanes that would end an attempt needing them: invalid, or carrying a start flag.
    pub breaking_lanes: Signal<Out, Bits<4>>,
    /// Some active lane is valid.
    pub any_valid: Signal<Out, bool>,
    /// The last start flag begins an attempt whose lanes are all valid.
    pub new_attempt: Signal<Out, bool>,
    /// Its lanes in this beat.
    pub new_lanes: Signal<Out, Bits<4>>,
    /// The XFRs it still needs after this beat.
    pub new_remaining: Signal<Out, Bits<6>>,
    /// Physical lane of its XFR 0.
    pub new_first_lane: Signal<Out, Bits<2>>,
    /// Physical lane of its XFR 1.
    pub new_second_lane: Signal<Out, Bits<2>>,
    /// Logical lane of its XFR 0 (its sequence state).
    pub new_state: Signal<Out, Bits<2>>,
    /// Attempts begun and ended within the beat.
    pub short_attempts: Signal<Out, Bits<3>>,
    /// Valid lanes below the first start flag (stray unless the attempt in progress takes them).
    pub stray_lanes: Signal<Out, Bits<4>>,
    /// Invalid lanes below the first start flag (missing if the attempt needs them).
    pub missing_if_needed: Signal<Out, Bits<4>>,
    /// Missing whatever the attempt: holes below the highest valid lane, new attempt's lanes.
    pub missing_lanes: Signal<Out, Bits<4>>,
}

/// The receiving side of [`BeatSource`].
#[derive(LogicInterface, Default)]
#[join = "BeatSource"]
pub struct BeatSink {
    /// The XFR of each physical lane.
    pub data: Signal<In, Bits<128>>,
    /// The active lanes of this beat.
    pub mask: Signal<In, Bits<4>>,
    /// `mask` differs from the previous cycle's.
    pub mask_changed: Signal<In, bool>,
    /// Active lanes `L`.
    pub lane_count: Signal<In, Bits<3>>,
    /// Logical lane of each physical lane.
    pub logical_lanes: Signal<In, Bits<8>>,
    /// Next active lane after each physical lane.
    pub next_lanes: Signal<In, Bits<8>>,
    /// Lanes that would end an attempt needing them.
    pub breaking_lanes: Signal<In, Bits<4>>,
    /// Some active lane is valid.
    pub any_valid: Signal<In, bool>,
    /// A new attempt begins and survives the beat.
    pub new_attempt: Signal<In, bool>,
    /// Its lanes in this beat.
    pub new_lanes: Signal<In, Bits<4>>,
    /// The XFRs it still needs.
    pub new_remaining: Signal<In, Bits<6>>,
    /// Physical lane of its XFR 0.
    pub new_first_lane: Signal<In, Bits<2>>,
    /// Physical lane of its XFR 1.
    pub new_second_lane: Signal<In, Bits<2>>,
    /// Its sequence state.
    pub new_state: Signal<In, Bits<2>>,
    /// Attempts begun and ended within the beat.
    pub short_attempts: Signal<In, Bits<3>>,
    /// Valid lanes below the first start flag.
    pub stray_lanes: Signal<In, Bits<4>>,
    /// Invalid lanes below the first start flag.
    pub missing_if_needed: Signal<In, Bits<4>>,
    /// Missing whatever the attempt.
    pub missing_lanes: Signal<In, Bits<4>>,
}

/// The writer to the queues, the reader and its pointer: the attempt in progress and what
/// happens to it this cycle.
#[derive(LogicInterface, Default)]
#[join = "AttemptSink"]
pub struct AttemptSource {
    /// An attempt is in progress (registered).
    pub active: Signal<Out, bool>,
    /// Physical lane of its XFR 0 (registered).
    pub first_lane: Signal<Out, Bits<2>>,
    /// Physical lane of its XFR 1 (registered).
    pub second_lane: Signal<Out, Bits<2>>,
    /// Its sequence state (registered).
    pub state: Signal<Out, Bits<2>>,
    /// It takes its last beat now, intact so far.
    pub completes: Signal<Out, bool>,
    /// It ends early now (a missing lane, a start flag, a mask change, an overflow).
    pub ends_early: Signal<Out, bool>,
    /// The attempt that completed on the last edge lost an XFR to an overflow.
    pub completed_lost: Signal<Out, bool>,
    /// Lanes whose XFR of the beat belongs to the attempt in progress.
    pub writes_current: Signal<Out, Bits<4>>,
    /// Lanes whose XFR of the beat belongs to the attempt begun in it.
    pub writes_new: Signal<Out, Bits<4>>,
    /// Lanes whose written XFR belongs to an attempt still in progress after this beat.
    pub tagged: Signal<Out, Bits<4>>,
}

/// The receiving side of [`AttemptSource`].
#[derive(LogicInterface, Default)]
#[join = "AttemptSource"]
pub struct AttemptSink {
    /// An attempt is in progress.
    pub active: Signal<In, bool>,
    /// Physical lane of its XFR 0.
    pub first_lane: Signal<In, Bits<2>>,
    /// Physical lane of its XFR 1.
    pub second_lane: Signal<In, Bits<2>>,
    /// Its sequence state.
    pub state: Signal<In, Bits<2>>,
    /// It takes its last beat now.
    pub completes: Signal<In, bool>,
    /// It ends early now.
    pub ends_early: Signal<In, bool>,
    /// The attempt that completed on the last edge lost an XFR.
    pub completed_lost: Signal<In, bool>,
    /// Lanes written for the attempt in progress.
    pub writes_current: Signal<In, Bits<4>>,
    /// Lanes written for the attempt begun in the beat.
    pub writes_new: Signal<In, Bits<4>>,
    /// Lanes whose written XFR is tagged.
    pub tagged: Signal<In, Bits<4>>,
}

/// The lane queues to the writer and the reader: the heads, and what the last edge did
/// (registered, so the overflow check and the pops do not share a cycle).
#[derive(LogicInterface, Default)]
#[join = "QueueSink"]
pub struct QueueSource {
    /// The head XFR of each physical lane, bits `32p .. 32p+31`.
    pub heads: Signal<Out, Bits<128>>,
    /// Lanes whose head is valid.
    pub head_valid: Signal<Out, Bits<4>>,
    /// Lanes written on the last edge for the attempt in progress while full (unless popped).
    pub overflow_current: Signal<Out, Bits<4>>,
    /// Lanes written on the last edge for the new attempt while full (unless popped).
    pub overflow_new: Signal<Out, Bits<4>>,
    /// Lanes popped on the last edge.
    pub popped: Signal<Out, Bits<4>>,
    /// The attempt in progress completed on the last edge.
    pub completed: Signal<Out, bool>,
}

/// The receiving side of [`QueueSource`].
#[derive(LogicInterface, Default)]
#[join = "QueueSource"]
pub struct QueueSink {
    /// The head XFR of each physical lane.
    pub heads: Signal<In, Bits<128>>,
    /// Lanes whose head is valid.
    pub head_valid: Signal<In, Bits<4>>,
    /// Overflows of the attempt in progress on the last edge.
    pub overflow_current: Signal<In, Bits<4>>,
    /// Overflows of the new attempt on the last edge.
    pub overflow_new: Signal<In, Bits<4>>,
    /// Lanes popped on the last edge.
    pub popped: Signal<In, Bits<4>>,
    /// The attempt in progress completed on the last edge.
    pub completed: Signal<In, bool>,
}

/// The reader to the queues and the owed ends.
#[derive(LogicInterface, Default)]
#[join = "ReaderSink"]
pub struct ReaderSource {
    /// Lanes whose head is popped now.
    pub pop: Signal<Out, Bits<4>>,
    /// The reader is on an attempt (registered).
    pub active: Signal<Out, bool>,
    /// The reader is on the writer's attempt in progress.
    pub owns_current: Signal<Out, bool>,
    /// The reader starts the writer's attempt in progress now.
    pub starting: Signal<Out, bool>,
    /// The end of the reader's attempt is in the flit stage (registered).
    pub finishing: Signal<Out, bool>,
}

/// The receiving side of [`ReaderSource`].
#[derive(LogicInterface, Default)]
#[join = "ReaderSource"]
pub struct ReaderSink {
    /// Lanes whose head is popped now.
    pub pop: Signal<In, Bits<4>>,
    /// The reader is on an attempt.
    pub active: Signal<In, bool>,
    /// The reader is on the writer's attempt in progress.
    pub owns_current: Signal<In, bool>,
    /// The reader starts the writer's attempt now.
    pub starting: Signal<In, bool>,
    /// The end of the reader's attempt is in the flit stage.
    pub finishing: Signal<In, bool>,
}

/// The owed ends to the reader and the end stage.
#[derive(LogicInterface, Default)]
#[join = "OwedSink"]
pub struct OwedSource {
    /// No end is owed (the one emitted now not counted).
    pub none: Signal<Out, bool>,
    /// Exactly one end is owed.
    pub one: Signal<Out, bool>,
    /// An owed end leaves now.
    pub emit: Signal<Out, bool>,
    /// The end owed before the attempt the reader started on the last edge leaves now.
    pub before_start: Signal<Out, bool>,
}

/// The receiving side of [`OwedSource`].
#[derive(LogicInterface, Default)]
#[join = "OwedSource"]
pub struct OwedSink {
    /// No end is owed.
    pub none: Signal<In, bool>,
    /// Exactly one end is owed.
    pub one: Signal<In, bool>,
    /// An owed end leaves now.
    pub emit: Signal<In, bool>,
    /// The end owed before the reader's new attempt leaves now.
    pub before_start: Signal<In, bool>,
}

/// The reader to the flit stage: the pair read (registered) and what to do with it.
#[derive(LogicInterface, Default)]
#[join = "PairSink"]
pub struct PairSource {
    /// XFR `2n`.
    pub first: Signal<Out, Bits<32>>,
    /// XFR `2n+1`.
    pub second: Signal<Out, Bits<32>>,
    /// XFR `2n-2`.
    pub previous_first: Signal<Out, Bits<32>>,
    /// XFR `2n-1`.
    pub previous_second: Signal<Out, Bits<32>>,
    /// The pair completes flit `position` (pairs 1..16).
    pub flit_ready: Signal<Out, bool>,
    /// `n - 1`, the flit the pair completes.
    pub position: Signal<Out, Bits<4>>,
    /// XFR `2n` was read: step its group CRC.
    pub first_read: Signal<Out, bool>,
    /// XFR `2n+1` was read: step its group CRC.
    pub second_read: Signal<Out, bool>,
    /// The pair is pair 0: the group CRCs restart.
    pub restart: Signal<Out, bool>,
    /// Group of XFR `2n`.
    pub first_group: Signal<Out, Bits<2>>,
    /// Group of XFR `2n+1`.
    pub second_group: Signal<Out, Bits<2>>,
    /// The reader's attempt ends with this pair (completed or ended early).
    pub last: Signal<Out, bool>,
    /// It ended early (bad).
    pub bad: Signal<Out, bool>,
    /// Its sequence state.
    pub state: Signal<Out, Bits<2>>,
}

/// The receiving side of [`PairSource`].
#[derive(LogicInterface, Default)]
#[join = "PairSource"]
pub struct PairSink {
    /// XFR `2n`.
    pub first: Signal<In, Bits<32>>,
    /// XFR `2n+1`.
    pub second: Signal<In, Bits<32>>,
    /// XFR `2n-2`.
    pub previous_first: Signal<In, Bits<32>>,
    /// XFR `2n-1`.
    pub previous_second: Signal<In, Bits<32>>,
    /// The pair completes flit `position`.
    pub flit_ready: Signal<In, bool>,
    /// The flit the pair completes.
    pub position: Signal<In, Bits<4>>,
    /// XFR `2n` was read.
    pub first_read: Signal<In, bool>,
    /// XFR `2n+1` was read.
    pub second_read: Signal<In, bool>,
    /// The group CRCs restart.
    pub restart: Signal<In, bool>,
    /// Group of XFR `2n`.
    pub first_group: Signal<In, Bits<2>>,
    /// Group of XFR `2n+1`.
    pub second_group: Signal<In, Bits<2>>,
    /// The reader's attempt ends with this pair.
    pub last: Signal<In, bool>,
    /// It ended early.
    pub bad: Signal<In, bool>,
    /// Its sequence state.
    pub state: Signal<In, Bits<2>>,
}

/// The flit stage to the end stage: the flit (registered), the trailer, the
/// group CRCs, and the end travelling with them.
#[derive(LogicInterface, Default)]
#[join = "ShiftedSink"]
pub struct ShiftedSource {
    /// The flit.
    pub flit: Signal<Out, Bits<FLIT_BITS>>,
    /// `flit` is valid.
    pub valid: Signal<Out, bool>,
    /// Its position in the LTP.
    pub position: Signal<Out, Bits<4>>,
    /// The trailer of the reader's last intact attempt (bits 16..31 of XFR 32).
    pub trailer: Signal<Out, Bits<16>>,
    /// The group CRCs, group `m` in bits `8m .. 8m+7`.
    pub group_crcs: Signal<Out, Bits<32>>,
    /// The reader's attempt ended a stage earlier.
    pub last: Signal<Out, bool>,
    /// It ended early.
    pub bad: Signal<Out, bool>,
    /// Its sequence state.
    pub state: Signal<Out, Bits<2>>,
}

/// The receiving side of [`ShiftedSource`].
#[derive(LogicInterface, Default)]
#[join = "ShiftedSource"]
pub struct ShiftedSink {
    /// The flit.
    pub flit: Signal<In, Bits<FLIT_BITS>>,
    /// `flit` is valid.
    pub valid: Signal<In, bool>,
    /// Its position in the LTP.
    pub position: Signal<In, Bits<4>>,
    /// The trailer.
    pub trailer: Signal<In, Bits<16>>,
    /// The group CRCs.
    pub group_crcs: Signal<In, Bits<32>>,
    /// The reader's attempt ended a stage earlier.
    pub last: Signal<In, bool>,
    /// It ended early.
    pub bad: Signal<In, bool>,
    /// Its sequence state.
    pub state: Signal<In, Bits<2>>,
}

/// Receive gearbox from lane beats to LTP flits, with CRC-14 difference and group CRCs.
#[derive(LogicBlock, Default)]
pub struct LtpDeframer {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: drops everything and hunts for a start flag.
    pub reset: Signal<In, bool>,
    /// Physical lanes from the PHY (no backpressure).
    pub lanes: LaneChannelIn,
    /// Active physical lanes (at least one); a change ends the attempt in progress as bad.
    pub mask: Signal<In, Bits<4>>,
    /// Flits, ends and lane events, to the receive protocol.
    pub out: DeframedSource,
    beat: BeatStage,
    writer: AttemptWriter,
    queues: LaneQueues,
    reader: PairReader,
    pointer: ReadPointer,
    owed: OwedEnds,
    shift: FlitShift,
    ends: CrcEnd,
}

impl LtpDeframer {
    /// A deframer.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Logic for LtpDeframer {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, beat, writer, queues, reader, pointer, owed, shift, ends);
        self.beat.reset.next = self.reset.val();
        self.writer.reset.next = self.reset.val();
        self.queues.reset.next = self.reset.val();
        self.reader.reset.next = self.reset.val();
        self.owed.reset.next = self.reset.val();
        self.shift.reset.next = self.reset.val();
        self.ends.reset.next = self.reset.val();
        LaneChannelIn::link(&mut self.lanes, &mut self.beat.lanes);
        self.beat.mask.next = self.mask.val();
        // The reader's pointer compares the live mask with its attempt's (its lane tables
        // are loaded while it is idle: after a mask change it waits a cycle for them).
        self.pointer.mask.next = self.mask.val();
        BeatSource::join(&mut self.beat.out, &mut self.writer.beat);
        BeatSource::join(&mut self.beat.out, &mut self.pointer.beat);
        AttemptSource::join(&mut self.writer.attempt, &mut self.queues.attempt);
        AttemptSource::join(&mut self.writer.attempt, &mut self.reader.attempt);
        AttemptSource::join(&mut self.writer.attempt, &mut self.pointer.attempt);
        ReadStepSource::join(&mut self.reader.step, &mut self.pointer.step);
        PointerSource::join(&mut self.pointer.out, &mut self.reader.pointer);
        QueueSource::join(&mut self.queues.out, &mut self.writer.queues);
        QueueSource::join(&mut self.queues.out, &mut self.reader.queues);
        ReaderSource::join(&mut self.reader.status, &mut self.queues.reader);
        ReaderSource::join(&mut self.reader.status, &mut self.owed.reader);
        OwedSource::join(&mut self.owed.out, &mut self.reader.owed);
        OwedSource::join(&mut self.owed.out, &mut self.ends.owed);
        PairSource::join(&mut self.reader.pair, &mut self.shift.pair);
        // The queues and the owed ends need one field each of the beat, the attempt and the
        // flit stage's bundles, wired on their own rather than joining whole bundles.
        self.queues.data.next = self.beat.out.data.val();
        self.owed.short_attempts.next = self.beat.out.short_attempts.val();
        self.owed.ends_early.next = self.writer.attempt.ends_early.val();
        self.owed.end_in_flight.next = self.shift.out.last.val();
        ShiftedSource::join(&mut self.shift.out, &mut self.ends.shifted);
        // The output bundle gathers the stages' registers: flits from the flit stage, ends
        // from the end stage, lane events from the writer.
        self.out.flit.next = self.shift.out.flit.val();
        self.out.flit_valid.next = self.shift.out.valid.val();
        self.out.flit_pos.next = self.shift.out.position.val();
        self.out.end_valid.next = self.ends.end_valid.val();
        self.out.end_intact.next = self.ends.end_intact.val();
        self.out.end_crc_diff.next = self.ends.end_crc_diff.val();
        self.out.end_state.next = self.ends.end_state.val();
        self.out.end_sideband.next = self.ends.end_sideband.val();
        self.out.end_gcrc.next = self.ends.end_gcrc.val();
        self.out.lane_missing.next = self.writer.lane_missing.val();
        self.out.stray.next = self.writer.stray.val();
    }
}

#[test]
fn ltp_deframer_is_synthesizable() {
    let mut uut = LtpDeframer::default();
    uut.connect_all();
    yosys_validate("ltp_deframer", &generate_verilog(&uut)).unwrap();
}
