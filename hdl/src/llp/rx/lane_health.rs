//! The lane health of the [`RxLink`](super::RxLink): error counts and scores per physical
//! lane, lane removal by error rate, and the lane mask.
//!
//! Errors charged to a lane: the lane the naming names (one cycle after the good copy's end),
//! and each transfer a lane in the mask dropped (`lane_missing`), except while `resizing`
//! (between a lane removal and the marker that follows it the far end may still stripe at the
//! old width, which looks like missing transfers; a naming whose lookup falls then is dropped
//! too, since the mask it was computed for is gone). Each charged error counts one in the
//! lane's error total (16 bits, saturating) and its score (8 bits, saturating).
//!
//! Every `lane_drain` commits (0: never) every lane's score drops by one (not below 0; an
//! error and a drop in the same cycle cancel). A lane in the mask whose score has reached
//! `lane_threshold` (0: never) is removed, the lowest such lane, while `live`: every score
//! restarts at 0, and if it is not the last lane the mask loses it (`narrowing`: the verdict
//! asks for a replay and waits for the marker at the new width); the last lane stays and
//! `last_lane_fails` tells the verdict to fail the link instead. The removal decision is
//! combinational from registers (scores, mask) so that the verdict's retry request and the
//! naming's forgetting act in the same cycle, as one block would.
//!
//! `start` (a bring-up): the mask becomes `start_mask`, scores and the drain count 0. Error
//! totals and the removal count are kept.
//!
//! Reset: the initial mask, error totals, scores, the drain count and the removal count 0.
use super::super::deframer::DeframedSink;
use super::{LanesSource, NamingSink, VerdictSink};
use rust_hdl::prelude::*;

/// Per-lane error counts and scores, removal decision, lane mask.
#[derive(LogicBlock)]
pub struct LaneHealth {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: the initial mask, every count 0.
    pub reset: Signal<In, bool>,
    /// The link is up and not starting: lanes are charged and removed.
    pub live: Signal<In, bool>,
    /// A bring-up: the mask becomes `start_mask`.
    pub start: Signal<In, bool>,
    /// With `start`: the lanes received on from now.
    pub start_mask: Signal<In, Bits<4>>,
    /// A lane's score at which it is removed (0: never).
    pub lane_threshold: Signal<In, Bits<8>>,
    /// Commits per one-point decrease of every score (0: never).
    pub lane_drain: Signal<In, Bits<16>>,
    /// Lane events from the deframer (`lane_missing`).
    pub deframed: DeframedSink,
    /// Commits and the resize state, from the verdict.
    pub verdict: VerdictSink,
    /// The lane named bad, from the naming.
    pub named: NamingSink,
    /// The mask and the removal decision, to the verdict and the naming.
    pub lanes: LanesSource,
    /// Errors per physical lane, lane `n` in bits `16n..16n+15` (saturating each).
    pub lane_errors: Signal<Out, Bits<64>>,
    /// Lanes removed since reset.
    pub lanes_removed: Signal<Out, Bits<3>>,
    mask: DFF<Bits<4>>,
    lane_count: DFF<Bits<3>>,
    errors: Vec<DFF<Bits<16>>>,
    /// Error score per physical lane (saturating): +1 per error, -1 per `lane_drain` commits.
    scores: Vec<DFF<Bits<8>>>,
    /// Commits since the last drain step.
    drain_count: DFF<Bits<16>>,
    removed_count: DFF<Bits<3>>,
    initial_mask: Constant<Bits<4>>,
    initial_lanes: Constant<Bits<3>>,
    /// Lanes charged one error this cycle.
    charged: Signal<Local, Bits<4>>,
    /// `drain_count + 1`, in a 16-bit local: Verilog would compare the sum at 32 bits.
    drain_count_next: Signal<Local, Bits<16>>,
    /// Every lane's score drops by one this cycle.
    drain: Signal<Local, bool>,
    /// The lane removed this cycle (at most one bit).
    removed: Signal<Local, Bits<4>>,
    /// A lane has reached the threshold.
    removing: Signal<Local, bool>,
    /// Lanes of `start_mask`.
    start_lanes: Signal<Local, Bits<3>>,
    /// The bundle fields this block does not read, acknowledged here (Verilator's lint passes
    /// names containing "unused"; nothing reads this, so synthesis removes it).
    unused_inputs: Signal<Local, bool>,
}

impl LaneHealth {
    /// Lane health starting with lanes `mask`.
    pub fn new(mask: u8) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            live: Default::default(),
            start: Default::default(),
            start_mask: Default::default(),
            lane_threshold: Default::default(),
            lane_drain: Default::default(),
            deframed: Default::default(),
            verdict: Default::default(),
            named: Default::default(),
            lanes: Default::default(),
            lane_errors: Default::default(),
            lanes_removed: Default::default(),
            mask: Default::default(),
            lane_count: Default::default(),
            errors: (0..4).map(|_| Default::default()).collect(),
            scores: (0..4).map(|_| Default::default()).collect(),
            drain_count: Default::default(),
            removed_count: Default::default(),
            initial_mask: Constant::new((mask as u64).into()),
            initial_lanes: Constant::new((mask.count_ones() as u64).into()),
            charged: Default::default(),
            drain_count_next: Default::default(),
            drain: Default::default(),
            removed: Default::default(),
            removing: Default::default(),
            start_lanes: Default::default(),
            unused_inputs: Default::default(),
        }
    }
}

impl Logic for LaneHealth {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, mask, lane_count, drain_count, removed_count);
        for n in 0..4 {
            self.errors[n].clock.next = self.clock.val();
            self.errors[n].d.next = self.errors[n].q.val();
            self.scores[n].clock.next = self.clock.val();
            self.scores[n].d.next = self.scores[n].q.val();
        }
        self.unused_inputs.next = self.deframed.flit.val().any()
            | self.deframed.flit_valid.val()
            | self.deframed.flit_pos.val().any()
            | self.deframed.end_valid.val()
            | self.deframed.end_intact.val()
            | self.deframed.end_crc_diff.val().any()
            | self.deframed.end_state.val().any()
            | self.deframed.end_sideband.val().any()
            | self.deframed.end_gcrc.val().any()
            | self.deframed.stray.val()
            | self.verdict.null_acts.val()
            | self.verdict.accepted.val()
            | self.verdict.keep_bad.val()
            | self.verdict.sequence.val().any()
            | self.verdict.retry_request.val();
        self.lanes.mask.next = self.mask.q.val();
        self.lanes.count.next = self.lane_count.q.val();
        self.lanes_removed.next = self.removed_count.q.val();
        self.lane_errors.next = bit_cast::<64, 16>(self.errors[0].q.val())
            | (bit_cast::<64, 16>(self.errors[1].q.val()) << 16)
            | (bit_cast::<64, 16>(self.errors[2].q.val()) << 32)
            | (bit_cast::<64, 16>(self.errors[3].q.val()) << 48);

        // Until the marker after a lane removal, the far end may still stripe at the old
        // width: transfers then look missing on lanes that are fine, so they are not counted.
        self.charged.next = 0.into();
        if !self.verdict.resizing.val() & self.live.val() {
            self.charged.next = self.deframed.lane_missing.val() & self.mask.q.val();
        }
        if self.named.valid.val() & !self.verdict.resizing.val() & self.live.val() {
            self.charged.next = self.charged.val() | self.named.lane.val();
        }
        // Lane scores: +1 per error charged to the lane, -1 for every lane each `lane_drain`
        // delivered LTPs (see the receiver's documentation for the rates this gives).
        self.drain.next = false;
        self.drain_count_next.next = self.drain_count.q.val() + 1;
        if self.verdict.commit.val() & self.lane_drain.val().any() {
            self.drain_count.d.next = self.drain_count_next.val();
            if self.drain_count_next.val() >= self.lane_drain.val() {
                self.drain.next = true;
                self.drain_count.d.next = 0.into();
            }
        }
        self.removed.next = 0.into();
        self.removing.next = false;
        for n in 0..4 {
            if self.charged.val().get_bit(n) & (self.errors[n].q.val() != 0xffff) {
                self.errors[n].d.next = self.errors[n].q.val() + 1;
            }
            if self.charged.val().get_bit(n) & !self.drain.val() & (self.scores[n].q.val() != 0xff)
            {
                self.scores[n].d.next = self.scores[n].q.val() + 1;
            }
            if self.drain.val() & !self.charged.val().get_bit(n) & self.scores[n].q.val().any() {
                self.scores[n].d.next = self.scores[n].q.val() - 1;
            }
            if !self.removing.val()
                & self.live.val()
                & self.mask.q.val().get_bit(n)
                & self.lane_threshold.val().any()
                & (self.scores[n].q.val() >= self.lane_threshold.val())
            {
                self.removed.next = self.removed.val().replace_bit(n, true);
                self.removing.next = true;
            }
        }
        // Remove a lane: new mask (the verdict asks for a replay with LaneMask and waits for
        // the marker). The last lane is not removed: the link fails instead and the trainer
        // finds what works.
        self.lanes.narrowing.next = self.removing.val() & (self.lane_count.q.val() > 1);
        self.lanes.last_lane_fails.next = self.removing.val() & (self.lane_count.q.val() <= 1);
        if self.removing.val() {
            for n in 0..4 {
                self.scores[n].d.next = 0.into();
            }
            if self.lane_count.q.val() > 1 {
                self.mask.d.next = self.mask.q.val() & !self.removed.val();
                self.lane_count.d.next = self.lane_count.q.val() - 1;
                self.removed_count.d.next = self.removed_count.q.val() + 1;
            }
        }

        // Bring-up: the trainer's lanes, a fresh drain and fresh scores.
        self.start_lanes.next = 0.into();
        for n in 0..4 {
            if self.start_mask.val().get_bit(n) {
                self.start_lanes.next = self.start_lanes.val() + 1;
            }
        }
        if self.start.val() {
            self.mask.d.next = self.start_mask.val();
            self.lane_count.d.next = self.start_lanes.val();
            self.drain_count.d.next = 0.into();
            for n in 0..4 {
                self.scores[n].d.next = 0.into();
            }
        }

        if self.reset.val() {
            self.mask.d.next = self.initial_mask.val();
            self.lane_count.d.next = self.initial_lanes.val();
            self.drain_count.d.next = 0.into();
            self.removed_count.d.next = 0.into();
            for n in 0..4 {
                self.errors[n].d.next = 0.into();
                self.scores[n].d.next = 0.into();
            }
        }
    }
}
