//! The reader's pointer in the [`LtpDeframer`](super::LtpDeframer) (a child of
//! [`PairReader`](super::PairReader)): where the next pair lies.
//!
//! It holds the physical lanes of XFRs `2n` and `2n+1`, their groups (`j mod L`), the flit the
//! pair completes, the phase at `L` = 1, the attempt's sequence state, and the lane tables of
//! the attempt (loaded while the reader is idle, so the reader's lane lookups read registers).
//! The next pair's lanes follow the next-lane table from `second_lane`: the reader follows the
//! rotation without counting XFRs. On `redirect` it points at the attempt the reader takes
//! next: the one the beat stage begins now, else the writer's attempt in progress.
//! `fresh` says the tables are the live mask's (after a mask change the reader waits a cycle
//! for them).
use super::{AttemptSink, BeatSink};
use rust_hdl::prelude::*;

/// What the reader did this cycle, to its pointer.
#[derive(LogicInterface, Default)]
#[join = "ReadStepSink"]
pub struct ReadStepSource {
    /// The reader is on an attempt (registered).
    pub active: Signal<Out, bool>,
    /// Point at the attempt the reader takes next.
    pub redirect: Signal<Out, bool>,
    /// Move to the next pair.
    pub advance: Signal<Out, bool>,
    /// XFR `2n` read.
    pub read_first: Signal<Out, bool>,
    /// XFR `2n+1` read.
    pub read_second: Signal<Out, bool>,
}

/// The receiving side of [`ReadStepSource`].
#[derive(LogicInterface, Default)]
#[join = "ReadStepSource"]
pub struct ReadStepSink {
    /// The reader is on an attempt.
    pub active: Signal<In, bool>,
    /// Point at the attempt the reader takes next.
    pub redirect: Signal<In, bool>,
    /// Move to the next pair.
    pub advance: Signal<In, bool>,
    /// XFR `2n` read.
    pub read_first: Signal<In, bool>,
    /// XFR `2n+1` read.
    pub read_second: Signal<In, bool>,
}

/// The pointer, to the reader (all registered).
#[derive(LogicInterface, Default)]
#[join = "PointerSink"]
pub struct PointerSource {
    /// Physical lane of XFR `2n`.
    pub first_lane: Signal<Out, Bits<2>>,
    /// Physical lane of XFR `2n+1`.
    pub second_lane: Signal<Out, Bits<2>>,
    /// Group of XFR `2n`.
    pub first_group: Signal<Out, Bits<2>>,
    /// Group of XFR `2n+1`.
    pub second_group: Signal<Out, Bits<2>>,
    /// `n - 1` (31 for `n` = 0): the flit pair `n` completes.
    pub flit_index: Signal<Out, Bits<5>>,
    /// At `L` = 1: XFR `2n` read, `2n+1` next.
    pub phase: Signal<Out, bool>,
    /// The attempt has one lane.
    pub single_lane: Signal<Out, bool>,
    /// The lane tables are the live mask's.
    pub fresh: Signal<Out, bool>,
    /// The attempt's sequence state.
    pub state: Signal<Out, Bits<2>>,
}

/// The receiving side of [`PointerSource`].
#[derive(LogicInterface, Default)]
#[join = "PointerSource"]
pub struct PointerSink {
    /// Physical lane of XFR `2n`.
    pub first_lane: Signal<In, Bits<2>>,
    /// Physical lane of XFR `2n+1`.
    pub second_lane: Signal<In, Bits<2>>,
    /// Group of XFR `2n`.
    pub first_group: Signal<In, Bits<2>>,
    /// Group of XFR `2n+1`.
    pub second_group: Signal<In, Bits<2>>,
    /// The flit pair `n` completes.
    pub flit_index: Signal<In, Bits<5>>,
    /// At `L` = 1: XFR `2n+1` next.
    pub phase: Signal<In, bool>,
    /// The attempt has one lane.
    pub single_lane: Signal<In, bool>,
    /// The lane tables are the live mask's.
    pub fresh: Signal<In, bool>,
    /// The attempt's sequence state.
    pub state: Signal<In, Bits<2>>,
}

/// The reader's pointer: lanes, groups and index of the next pair.
#[derive(LogicBlock)]
pub struct ReadPointer {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Active physical lanes now.
    pub mask: Signal<In, Bits<4>>,
    /// The registered beat: lane tables and the attempt it begins.
    pub beat: BeatSink,
    /// The writer's attempt in progress.
    pub attempt: AttemptSink,
    /// What the reader did.
    pub step: ReadStepSink,
    /// Where the next pair lies.
    pub out: PointerSource,
    first_lane: DFF<Bits<2>>,
    second_lane: DFF<Bits<2>>,
    first_group: DFF<Bits<2>>,
    second_group: DFF<Bits<2>>,
    flit_index: DFF<Bits<5>>,
    phase: DFF<bool>,
    state: DFF<Bits<2>>,
    /// The attempt's `L`, `L` = 1, next-lane table and mask.
    lane_count: DFF<Bits<3>>,
    single_lane: DFF<bool>,
    next_lanes: DFF<Bits<8>>,
    attempt_mask: DFF<Bits<4>>,
    fresh: DFF<bool>,
    one3: Constant<Bits<3>>,
    one5: Constant<Bits<5>>,
    /// The next pair's lanes: after `second_lane`, and after that.
    next_first_offset: Signal<Local, Bits<3>>,
    next_second_offset: Signal<Local, Bits<3>>,
    next_first_lane: Signal<Local, Bits<2>>,
    next_second_lane: Signal<Local, Bits<2>>,
    /// The next pair's groups (`mod L`).
    next_first_group: Signal<Local, Bits<3>>,
    next_second_group: Signal<Local, Bits<3>>,
    /// The bundle fields this stage does not read, acknowledged here (Verilator's lint passes
    /// names containing "unused"; nothing reads this, so synthesis removes it).
    unused_inputs: Signal<Local, bool>,
}

impl Default for ReadPointer {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            mask: Default::default(),
            beat: Default::default(),
            attempt: Default::default(),
            step: Default::default(),
            out: Default::default(),
            first_lane: Default::default(),
            second_lane: Default::default(),
            first_group: Default::default(),
            second_group: Default::default(),
            flit_index: Default::default(),
            phase: Default::default(),
            state: Default::default(),
            lane_count: Default::default(),
            single_lane: Default::default(),
            next_lanes: Default::default(),
            attempt_mask: Default::default(),
            fresh: Default::default(),
            one3: Constant::new(1u64.into()),
            one5: Constant::new(1u64.into()),
            next_first_offset: Default::default(),
            next_second_offset: Default::default(),
            next_first_lane: Default::default(),
            next_second_lane: Default::default(),
            next_first_group: Default::default(),
            next_second_group: Default::default(),
            unused_inputs: Default::default(),
        }
    }
}

impl Logic for ReadPointer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            first_lane,
            second_lane,
            first_group,
            second_group,
            flit_index,
            phase,
            state,
            lane_count,
            single_lane,
            next_lanes,
            attempt_mask,
            fresh
        );
        self.unused_inputs.next = self.beat.data.val().any()
            | self.beat.mask_changed.val()
            | self.beat.logical_lanes.val().any()
            | self.beat.breaking_lanes.val().any()
            | self.beat.any_valid.val()
            | self.beat.new_lanes.val().any()
            | self.beat.new_remaining.val().any()
            | self.beat.short_attempts.val().any()
            | self.beat.stray_lanes.val().any()
            | self.beat.missing_if_needed.val().any()
            | self.beat.missing_lanes.val().any()
            | self.attempt.active.val()
            | self.attempt.completes.val()
            | self.attempt.ends_early.val()
            | self.attempt.completed_lost.val()
            | self.attempt.writes_current.val().any()
            | self.attempt.writes_new.val().any()
            | self.attempt.tagged.val().any();
        self.out.first_lane.next = self.first_lane.q.val();
        self.out.second_lane.next = self.second_lane.q.val();
        self.out.first_group.next = self.first_group.q.val();
        self.out.second_group.next = self.second_group.q.val();
        self.out.flit_index.next = self.flit_index.q.val();
        self.out.phase.next = self.phase.q.val();
        self.out.single_lane.next = self.single_lane.q.val();
        self.out.fresh.next = self.fresh.q.val();
        self.out.state.next = self.state.q.val();

        // The next pair's lanes and groups.
        self.next_first_offset.next = bit_cast::<3, 2>(self.second_lane.q.val()) << 1;
        self.next_first_lane.next = self
            .next_lanes
            .q
            .val()
            .get_bits::<2>(self.next_first_offset.val().index());
        self.next_second_offset.next = bit_cast::<3, 2>(self.next_first_lane.val()) << 1;
        self.next_second_lane.next = self
            .next_lanes
            .q
            .val()
            .get_bits::<2>(self.next_second_offset.val().index());
        self.next_first_group.next = bit_cast::<3, 2>(self.second_group.q.val()) + self.one3.val();
        if self.next_first_group.val() == self.lane_count.q.val() {
            self.next_first_group.next = 0.into();
        }
        self.next_second_group.next = self.next_first_group.val() + self.one3.val();
        if self.next_second_group.val() == self.lane_count.q.val() {
            self.next_second_group.next = 0.into();
        }
        // Point at the attempt the reader takes next while it has none, and when its own ends.
        if self.step.redirect.val() {
            self.first_lane.d.next = self.attempt.first_lane.val();
            self.second_lane.d.next = self.attempt.second_lane.val();
            self.state.d.next = self.attempt.state.val();
            if self.beat.new_attempt.val() {
                self.first_lane.d.next = self.beat.new_first_lane.val();
                self.second_lane.d.next = self.beat.new_second_lane.val();
                self.state.d.next = self.beat.new_state.val();
            }
            self.first_group.d.next = 0.into();
            self.second_group.d.next = 1.into();
            if self.beat.lane_count.val() == 1 {
                self.second_group.d.next = 0.into();
            }
            self.flit_index.d.next = 31.into();
            self.phase.d.next = false;
        } else {
            if self.step.advance.val() {
                self.flit_index.d.next = self.flit_index.q.val() + self.one5.val();
                self.first_group.d.next = self.next_first_group.val().get_bits::<2>(0);
                self.second_group.d.next = self.next_second_group.val().get_bits::<2>(0);
                if !self.single_lane.q.val() {
                    self.first_lane.d.next = self.next_first_lane.val();
                    self.second_lane.d.next = self.next_second_lane.val();
                }
            }
            if self.step.read_first.val() & self.single_lane.q.val() {
                self.phase.d.next = true;
            }
            if self.step.read_second.val() & self.single_lane.q.val() {
                self.phase.d.next = false;
            }
        }
        // The lane tables load while the reader is idle.
        if !self.step.active.val() {
            self.lane_count.d.next = self.beat.lane_count.val();
            self.single_lane.d.next = self.beat.lane_count.val() == 1;
            self.next_lanes.d.next = self.beat.next_lanes.val();
            self.attempt_mask.d.next = self.beat.mask.val();
        }
        self.fresh.d.next = self.mask.val() == self.attempt_mask.q.val();
        if !self.step.active.val() {
            self.fresh.d.next = self.mask.val() == self.beat.mask.val();
        }
    }
}
