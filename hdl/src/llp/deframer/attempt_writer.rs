//! Stage 2 of the [`LtpDeframer`](super::LtpDeframer): the attempt in progress takes the
//! registered beat, completes, or ends early, and says which lanes' XFRs go into the lane
//! queues.
//!
//! The attempt needs a set of physical lanes from each beat: all active lanes, or on its last
//! beat the lowest `remaining` logical lanes. If one of them is invalid or carries a start flag
//! (`breaking_lanes`), or the mask changed, the attempt ends early (bad). An XFR it lost to a
//! queue overflow (seen one cycle after the write, from the queues' registered report) makes
//! it end bad on its last beat; if it completed on that edge, `completed_lost` tells the
//! queues and the reader to drop it.
//!
//! Events: `lane_missing` (lanes the beat lacked: holes, the new attempt's lanes, and lanes
//! the attempt needed) and `stray` (valid XFRs below the first start flag that no attempt
//! took), registered: they pulse two cycles after the beat was on the lanes.
//!
//! Reset: no attempt in progress, no event.
use super::{AttemptSource, BeatSink, QueueSink};
use rust_hdl::prelude::*;

/// The writer: the attempt in progress.
#[derive(LogicBlock, Default)]
pub struct AttemptWriter {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: no attempt in progress.
    pub reset: Signal<In, bool>,
    /// The registered beat and its analysis.
    pub beat: BeatSink,
    /// What the lane queues did on the last edge.
    pub queues: QueueSink,
    /// The attempt in progress and what happens to it now.
    pub attempt: AttemptSource,
    /// Physical lanes (in the mask) that dropped a transfer.
    pub lane_missing: Signal<Out, Bits<4>>,
    /// Valid XFRs that belong to no attempt arrived.
    pub stray: Signal<Out, bool>,
    active: DFF<bool>,
    /// It lost an XFR to an overflow.
    lost_xfr: DFF<bool>,
    /// XFRs it needs after the beats taken.
    remaining: DFF<Bits<6>>,
    /// Physical lanes it needs from the next beat.
    needed: DFF<Bits<4>>,
    /// The next beat is its last.
    last_beat: DFF<bool>,
    first_lane: DFF<Bits<2>>,
    second_lane: DFF<Bits<2>>,
    state: DFF<Bits<2>>,
    lane_missing_event: DFF<Bits<4>>,
    stray_event: DFF<bool>,
    /// An XFR written on the last edge was lost by the attempt still in progress.
    overflow_live: Signal<Local, bool>,
    /// The attempt is in progress and the mask did not change.
    still_active: Signal<Local, bool>,
    /// A lane it needs in this beat breaks it.
    broken: Signal<Local, bool>,
    /// It takes the beat.
    takes_beat: Signal<Local, bool>,
    /// Its last beat, but an XFR was lost: it ends bad.
    last_lost: Signal<Local, bool>,
    /// Lanes it needs in this beat (none when not in progress).
    needed_now: Signal<Local, Bits<4>>,
    /// XFRs it needs after this beat.
    remaining_after: Signal<Local, Bits<6>>,
    /// The next beat is its last.
    last_next: Signal<Local, bool>,
    /// The lanes of its last beat: the lowest `remaining_after` logical lanes.
    last_lanes: Signal<Local, Bits<4>>,
    logical: Signal<Local, Bits<2>>,
    completes: Signal<Local, bool>,
    ends_early: Signal<Local, bool>,
    writes_current: Signal<Local, Bits<4>>,
    writes_new: Signal<Local, Bits<4>>,
    /// The bundle fields this stage does not read, acknowledged here (Verilator's lint passes
    /// names containing "unused"; nothing reads this, so synthesis removes it).
    unused_inputs: Signal<Local, bool>,
}

impl Logic for AttemptWriter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            active,
            lost_xfr,
            remaining,
            needed,
            last_beat,
            first_lane,
            second_lane,
            state,
            lane_missing_event,
            stray_event
        );
        self.unused_inputs.next = self.beat.data.val().any()
            | self.beat.next_lanes.val().any()
            | self.beat.short_attempts.val().any()
            | self.queues.heads.val().any()
            | self.queues.head_valid.val().any();
        self.attempt.active.next = self.active.q.val();
        self.attempt.first_lane.next = self.first_lane.q.val();
        self.attempt.second_lane.next = self.second_lane.q.val();
        self.attempt.state.next = self.state.q.val();
        self.lane_missing.next = self.lane_missing_event.q.val();
        self.stray.next = self.stray_event.q.val();

        // An XFR lost on the last edge marks the attempt in progress bad, or ends the one
        // that completed on that edge (the reader is on it).
        self.overflow_live.next = (self.queues.overflow_new.val() & !self.queues.popped.val())
            .any()
            | ((self.queues.overflow_current.val() & !self.queues.popped.val()).any()
                & !self.queues.completed.val());
        self.attempt.completed_lost.next =
            (self.queues.overflow_current.val() & !self.queues.popped.val()).any()
                & self.queues.completed.val();
        self.still_active.next = self.active.q.val() & !self.beat.mask_changed.val();
        self.broken.next = (self.needed.q.val() & self.beat.breaking_lanes.val()).any();
        self.takes_beat.next =
            self.still_active.val() & self.beat.any_valid.val() & !self.broken.val();
        self.last_lost.next =
            self.last_beat.q.val() & (self.lost_xfr.q.val() | self.overflow_live.val());
        self.completes.next =
            self.takes_beat.val() & self.last_beat.q.val() & !self.last_lost.val();
        self.ends_early.next =
            (self.still_active.val() & self.beat.any_valid.val() & self.broken.val())
                | (self.active.q.val() & self.beat.mask_changed.val())
                | (self.takes_beat.val() & self.last_lost.val());
        self.writes_current.next = 0.into();
        if self.takes_beat.val() & !self.last_lost.val() {
            self.writes_current.next = self.needed.q.val();
        }
        self.writes_new.next = 0.into();
        if self.beat.new_attempt.val() {
            self.writes_new.next = self.beat.new_lanes.val();
        }
        // XFRs of an attempt that goes on after this beat are tagged: an early end removes
        // them from the queues.
        self.attempt.tagged.next = self.writes_new.val();
        if !self.last_beat.q.val() {
            self.attempt.tagged.next = self.writes_new.val() | self.writes_current.val();
        }

        // Events.
        self.needed_now.next = 0.into();
        if self.still_active.val() {
            self.needed_now.next = self.needed.q.val();
        }
        self.lane_missing_event.d.next = self.beat.missing_lanes.val()
            | (self.needed_now.val() & self.beat.missing_if_needed.val());
        self.stray_event.d.next = (self.beat.stray_lanes.val() & !self.needed_now.val()).any();

        // Lanes needed from the beat after a full one: all, or the lowest `remaining_after`
        // on the last.
        self.remaining_after.next =
            self.remaining.q.val() - bit_cast::<6, 3>(self.beat.lane_count.val());
        self.last_next.next =
            self.remaining_after.val() <= bit_cast::<6, 3>(self.beat.lane_count.val());
        self.last_lanes.next = 0.into();
        for p in 0..4 {
            self.logical.next = self.beat.logical_lanes.val().get_bits::<2>(2 * p);
            if self.beat.mask.val().get_bit(p)
                & (bit_cast::<3, 2>(self.logical.val())
                    < self.remaining_after.val().get_bits::<3>(0))
            {
                self.last_lanes.next = self.last_lanes.val().replace_bit(p, true);
            }
        }
        if self.takes_beat.val() {
            self.remaining.d.next = self.remaining_after.val();
            self.last_beat.d.next = self.last_next.val();
            if self.last_next.val() {
                self.needed.d.next = self.last_lanes.val();
            }
        }
        self.lost_xfr.d.next = self.lost_xfr.q.val() | self.overflow_live.val();
        if self.completes.val() | self.ends_early.val() {
            self.active.d.next = false;
        }
        if self.beat.new_attempt.val() {
            self.active.d.next = true;
            self.lost_xfr.d.next = false;
            self.remaining.d.next = self.beat.new_remaining.val();
            self.needed.d.next = self.beat.mask.val();
            self.last_beat.d.next = false;
            self.first_lane.d.next = self.beat.new_first_lane.val();
            self.second_lane.d.next = self.beat.new_second_lane.val();
            self.state.d.next = self.beat.new_state.val();
        }

        self.attempt.completes.next = self.completes.val();
        self.attempt.ends_early.next = self.ends_early.val();
        self.attempt.writes_current.next = self.writes_current.val();
        self.attempt.writes_new.next = self.writes_new.val();

        if self.reset.val() {
            self.active.d.next = false;
            self.lane_missing_event.d.next = 0.into();
            self.stray_event.d.next = false;
        }
    }
}
