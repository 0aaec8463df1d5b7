//! Stage 1 of the [`LtpDeframer`](super::LtpDeframer): the beat on the lanes, registered with
//! its analysis.
//!
//! Everything here depends on the beat and `mask` alone (no state of the attempt in
//! progress), so it is computed before the writer's cycle: the writer then combines registered
//! lane sets instead of scanning the start flags itself, which kept the deframer's beat
//! analysis and its decisions out of one cycle's path. Latency: one cycle.
//!
//! Start flags: the last one of a beat begins an attempt on the lanes from it up, which
//! survives the beat if they are all valid; every other start flag begins an attempt that ends
//! in the beat (`short_attempts`). No start flag can lie in the lanes the attempt in progress
//! takes: those are below the first start flag, or the attempt ends there.
//!
//! Reset: the beat of a reset cycle counts as empty (no valid lane), and the registered beat
//! flags (`any_valid`, `new_attempt`, `short_attempts`) clear, so the beat of the cycle before
//! a reset is dropped too.
use super::BeatSource;
use crate::llp::lane_channel::LaneChannelIn;
use rust_hdl::prelude::*;

/// The beat stage: lanes in, registered beat and analysis out.
#[derive(LogicBlock)]
pub struct BeatStage {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: the beat counts as empty.
    pub reset: Signal<In, bool>,
    /// Physical lanes from the PHY.
    pub lanes: LaneChannelIn,
    /// Active physical lanes.
    pub mask: Signal<In, Bits<4>>,
    /// The registered beat and its analysis.
    pub out: BeatSource,
    data: DFF<Bits<128>>,
    mask_last: DFF<Bits<4>>,
    mask_changed: DFF<bool>,
    lane_count: DFF<Bits<3>>,
    logical_lanes: DFF<Bits<8>>,
    next_lanes: DFF<Bits<8>>,
    breaking_lanes: DFF<Bits<4>>,
    any_valid: DFF<bool>,
    new_attempt: DFF<bool>,
    new_lanes: DFF<Bits<4>>,
    new_remaining: DFF<Bits<6>>,
    new_first_lane: DFF<Bits<2>>,
    new_second_lane: DFF<Bits<2>>,
    new_state: DFF<Bits<2>>,
    short_attempts: DFF<Bits<3>>,
    stray_lanes: DFF<Bits<4>>,
    missing_if_needed: DFF<Bits<4>>,
    missing_lanes: DFF<Bits<4>>,
    /// Lane numbers 0..3.
    lane_numbers: Vec<Constant<Bits<2>>>,
    /// Lane `m mod 4` for `m` = 0..7 (the next lane wraps around).
    wrapped_lanes: Vec<Constant<Bits<2>>>,
    /// Lanes above lane `n`.
    lanes_above: Vec<Constant<Bits<4>>>,
    /// Lanes 0..=n.
    lanes_upto: Vec<Constant<Bits<4>>>,
    xfrs_per_ltp: Constant<Bits<6>>,
    one: Constant<Bits<3>>,
    /// Active lanes carrying an XFR.
    valid_lanes: Signal<Local, Bits<4>>,
    /// Active lanes carrying a start flag.
    start_lanes: Signal<Local, Bits<4>>,
    /// Logical lane of each physical lane.
    logical: Vec<Signal<Local, Bits<2>>>,
    /// Next active lane after each physical lane.
    next: Vec<Signal<Local, Bits<2>>>,
    /// The mask twice, so the next lane is found without wrapping.
    mask_twice: Signal<Local, Bits<8>>,
    found: Signal<Local, bool>,
    active_count: Signal<Local, Bits<3>>,
    start_count: Signal<Local, Bits<3>>,
    last_start_lanes: Signal<Local, Bits<4>>,
    last_start_count: Signal<Local, Bits<3>>,
    last_start_whole: Signal<Local, bool>,
    last_start_lane: Signal<Local, Bits<2>>,
    below_first_start: Signal<Local, Bits<4>>,
    below_highest_valid: Signal<Local, Bits<4>>,
}

impl Default for BeatStage {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            lanes: Default::default(),
            mask: Default::default(),
            out: Default::default(),
            data: Default::default(),
            mask_last: Default::default(),
            mask_changed: Default::default(),
            lane_count: Default::default(),
            logical_lanes: Default::default(),
            next_lanes: Default::default(),
            breaking_lanes: Default::default(),
            any_valid: Default::default(),
            new_attempt: Default::default(),
            new_lanes: Default::default(),
            new_remaining: Default::default(),
            new_first_lane: Default::default(),
            new_second_lane: Default::default(),
            new_state: Default::default(),
            short_attempts: Default::default(),
            stray_lanes: Default::default(),
            missing_if_needed: Default::default(),
            missing_lanes: Default::default(),
            lane_numbers: (0..4).map(|n| Constant::new((n as u64).into())).collect(),
            wrapped_lanes: (0..8)
                .map(|n| Constant::new(((n & 3) as u64).into()))
                .collect(),
            lanes_above: (0..4)
                .map(|n| Constant::new(((0xf0u64 >> (3 - n)) & 15).into()))
                .collect(),
            lanes_upto: (0..4)
                .map(|n| Constant::new(((1u64 << (n + 1)) - 1).into()))
                .collect(),
            xfrs_per_ltp: Constant::new((crate::llp::ltp::LTP_XFRS as u64).into()),
            one: Constant::new(1u64.into()),
            valid_lanes: Default::default(),
            start_lanes: Default::default(),
            logical: (0..4).map(|_| Default::default()).collect(),
            next: (0..4).map(|_| Default::default()).collect(),
            mask_twice: Default::default(),
            found: Default::default(),
            active_count: Default::default(),
            start_count: Default::default(),
            last_start_lanes: Default::default(),
            last_start_count: Default::default(),
            last_start_whole: Default::default(),
            last_start_lane: Default::default(),
            below_first_start: Default::default(),
            below_highest_valid: Default::default(),
        }
    }
}

impl Logic for BeatStage {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            data,
            mask_last,
            mask_changed,
            lane_count,
            logical_lanes,
            next_lanes,
            breaking_lanes,
            any_valid,
            new_attempt,
            new_lanes,
            new_remaining,
            new_first_lane,
            new_second_lane,
            new_state,
            short_attempts,
            stray_lanes,
            missing_if_needed,
            missing_lanes
        );
        self.out.data.next = self.data.q.val();
        self.out.mask.next = self.mask_last.q.val();
        self.out.mask_changed.next = self.mask_changed.q.val();
        self.out.lane_count.next = self.lane_count.q.val();
        self.out.logical_lanes.next = self.logical_lanes.q.val();
        self.out.next_lanes.next = self.next_lanes.q.val();
        self.out.breaking_lanes.next = self.breaking_lanes.q.val();
        self.out.any_valid.next = self.any_valid.q.val();
        self.out.new_attempt.next = self.new_attempt.q.val();
        self.out.new_lanes.next = self.new_lanes.q.val();
        self.out.new_remaining.next = self.new_remaining.q.val();
        self.out.new_first_lane.next = self.new_first_lane.q.val();
        self.out.new_second_lane.next = self.new_second_lane.q.val();
        self.out.new_state.next = self.new_state.q.val();
        self.out.short_attempts.next = self.short_attempts.q.val();
        self.out.stray_lanes.next = self.stray_lanes.q.val();
        self.out.missing_if_needed.next = self.missing_if_needed.q.val();
        self.out.missing_lanes.next = self.missing_lanes.q.val();

        self.data.d.next = self.lanes.data.val();
        self.mask_last.d.next = self.mask.val();
        self.mask_changed.d.next = self.mask.val() != self.mask_last.q.val();
        self.valid_lanes.next = self.lanes.valid.val() & self.mask.val();
        if self.reset.val() {
            self.valid_lanes.next = 0.into();
        }
        self.start_lanes.next = self.valid_lanes.val() & self.lanes.start.val();
        self.breaking_lanes.d.next = !self.lanes.valid.val() | self.lanes.start.val();
        self.any_valid.d.next = self.valid_lanes.val().any();
        // Logical lane of each physical lane, and L.
        self.logical[0].next = 0.into();
        for p in 1..4 {
            self.logical[p].next = self.logical[p - 1].val();
            if self.mask.val().get_bit(p - 1) {
                self.logical[p].next = self.logical[p - 1].val() + 1;
            }
        }
        self.active_count.next = 0.into();
        for p in 0..4 {
            if self.mask.val().get_bit(p) {
                self.active_count.next = self.active_count.val() + 1;
            }
        }
        self.lane_count.d.next = self.active_count.val();
        self.logical_lanes.d.next = (bit_cast::<8, 2>(self.logical[3].val()) << 6)
            | (bit_cast::<8, 2>(self.logical[2].val()) << 4)
            | (bit_cast::<8, 2>(self.logical[1].val()) << 2)
            | bit_cast::<8, 2>(self.logical[0].val());
        // Next active lane after each lane, cyclically (itself at L = 1).
        self.mask_twice.next =
            (bit_cast::<8, 4>(self.mask.val()) << 4) | bit_cast::<8, 4>(self.mask.val());
        for p in 0..4 {
            self.next[p].next = self.lane_numbers[p].val();
            self.found.next = false;
            for d in 1..4 {
                if !self.found.val() & self.mask_twice.val().get_bit(p + d) {
                    self.next[p].next = self.wrapped_lanes[p + d].val();
                    self.found.next = true;
                }
            }
        }
        self.next_lanes.d.next = (bit_cast::<8, 2>(self.next[3].val()) << 6)
            | (bit_cast::<8, 2>(self.next[2].val()) << 4)
            | (bit_cast::<8, 2>(self.next[1].val()) << 2)
            | bit_cast::<8, 2>(self.next[0].val());
        // Start flags: the last one begins an attempt on the active lanes from it up.
        self.start_count.next = 0.into();
        self.last_start_lanes.next = 0.into();
        self.last_start_count.next = 0.into();
        self.last_start_lane.next = 0.into();
        self.new_state.d.next = 0.into();
        for n in 0..4 {
            if self.start_lanes.val().get_bit(n) {
                self.start_count.next = self.start_count.val() + 1;
                self.last_start_lane.next = self.lane_numbers[n].val();
                self.new_state.d.next = self.logical[n].val();
            }
            if self.start_lanes.val().any()
                & self.mask.val().get_bit(n)
                & !(self.start_lanes.val() & self.lanes_above[n].val()).any()
            {
                self.last_start_lanes.next = self.last_start_lanes.val().replace_bit(n, true);
                self.last_start_count.next = self.last_start_count.val() + 1;
            }
        }
        self.last_start_whole.next = self.start_lanes.val().any()
            & !(self.last_start_lanes.val() & !self.valid_lanes.val()).any();
        self.new_attempt.d.next = self.last_start_whole.val();
        self.new_lanes.d.next = self.last_start_lanes.val();
        self.new_remaining.d.next =
            self.xfrs_per_ltp.val() - bit_cast::<6, 3>(self.last_start_count.val());
        self.new_first_lane.d.next = self.last_start_lane.val();
        for n in 0..4 {
            if self.last_start_lane.val() == self.lane_numbers[n].val() {
                self.new_second_lane.d.next = self.next[n].val();
            }
        }
        self.short_attempts.d.next = self.start_count.val();
        if self.last_start_whole.val() {
            self.short_attempts.d.next = self.start_count.val() - self.one.val();
        }
        // Lanes below the first start flag (all lanes without one), holes below the highest
        // valid lane.
        self.below_first_start.next = 0.into();
        self.below_highest_valid.next = 0.into();
        for n in 0..4 {
            if !(self.start_lanes.val() & self.lanes_upto[n].val()).any() {
                self.below_first_start.next = self.below_first_start.val().replace_bit(n, true);
            }
            if (self.valid_lanes.val() & self.lanes_above[n].val()).any() {
                self.below_highest_valid.next = self.below_highest_valid.val().replace_bit(n, true);
            }
        }
        self.stray_lanes.d.next = self.valid_lanes.val() & self.below_first_start.val();
        self.missing_if_needed.d.next = 0.into();
        if self.valid_lanes.val().any() {
            self.missing_if_needed.d.next =
                self.below_first_start.val() & self.mask.val() & !self.valid_lanes.val();
        }
        self.missing_lanes.d.next = (self.below_highest_valid.val() | self.last_start_lanes.val())
            & self.mask.val()
            & !self.valid_lanes.val();

        if self.reset.val() {
            self.any_valid.d.next = false;
            self.new_attempt.d.next = false;
            self.short_attempts.d.next = 0.into();
        }
    }
}
