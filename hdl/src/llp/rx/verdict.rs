//! The verdict of the [`RxLink`](super::RxLink): what an LTP's end does, and the retry
//! protocol around it.
//!
//! At the LTP's end (the deframer's `end_valid`):
//! - a good null LTP (intact, CRC difference 0) acts at once, even while waiting for a retry
//!   marker (`null_acts`): `RetryMrkr(s)` with `expect - s` below 1024 (`s <= expect`, with the
//!   16-bit numbers wrapping) sets the incoming sequence number to `s` and ends the wait (and a
//!   resize); its other commands go to the transmitter through the pulses;
//! - a good normal LTP (intact, CRC difference = incoming sequence number mod 2^14) while not
//!   waiting (`accepted`) advances the incoming sequence number: if it is the expected one it is
//!   committed (`commit`: flits become visible, credits and LT commands act, `expect`
//!   advances); if it is older (a replayed duplicate) it is rolled back;
//! - anything else, or XFRs outside any LTP (`stray`), is bad: rolled back; when not already
//!   waiting, the receiver asks for a replay from `expect` and waits for a marker, asking again
//!   every `retry_timeout` cycles (the timer holds while not `live`: no request can reach the
//!   far end then). A bad LTP that arrived whole in the expected LTP's place is offered to the
//!   naming (`keep_bad`).
//!
//! A lane removal (`narrowing` from the lane health) also asks for a replay and waits, with
//! `resizing` set until the marker. Every cycle makes at most one retry request
//! (`retry_request`), whatever asked for it; [`FruitlessRetries`](super::FruitlessRetries)
//! counts them.
//!
//! Latency: `commit`, `rollback` and the bundle are decided in the end's cycle (combinational
//! from the deframer's end and this block's registers), as one block would, so that the
//! staging buffer sees them with the end; the counters are registered.
//!
//! `start` (a bring-up): wait for the marker with a fresh timer but no request, no resize,
//! `rollback` (flits of an LTP the link going down cut off are discarded); with `fresh_far`
//! (RESTART) also `expect` and the incoming sequence number 0.
//!
//! Reset: sequence numbers 0, not waiting, no good LTP seen, no resize, counters cleared.
use super::super::deframer::DeframedSink;
use super::{LanesSink, LtpCommandsSink, VerdictSource};
use rust_hdl::prelude::*;

/// LTP ends, sequence numbers, the retry timer and requests.
#[derive(LogicBlock)]
pub struct Verdict {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: sequence numbers 0, counters cleared, not waiting.
    pub reset: Signal<In, bool>,
    /// The link is up and not starting: the deframer's pulses count.
    pub live: Signal<In, bool>,
    /// A bring-up (first cycle of `up`).
    pub start: Signal<In, bool>,
    /// With `start`: the far end was reset (RESTART).
    pub fresh_far: Signal<In, bool>,
    /// Ends from the deframer (its flits and lane events are read by the other stages).
    pub deframed: DeframedSink,
    /// The LTP in progress: null or normal, and its retry marker.
    pub commands: LtpCommandsSink,
    /// The lane health's removal decision (`narrowing`).
    pub lanes: LanesSink,
    /// The verdict, to the naming, the lane health and the pulses.
    pub out: VerdictSource,
    /// Discard the flits written since the last commit.
    pub rollback: Signal<Out, bool>,
    /// The next expected sequence number.
    pub expect_seq: Signal<Out, Bits<16>>,
    /// Normal LTPs delivered (wrapping).
    pub ltps_good: Signal<Out, Bits<32>>,
    /// Good null LTPs (wrapping).
    pub nulls_good: Signal<Out, Bits<32>>,
    /// Bad LTPs (wrapping).
    pub ltps_bad: Signal<Out, Bits<32>>,
    /// Good duplicates dropped (wrapping).
    pub ltps_dup: Signal<Out, Bits<32>>,
    /// A good LTP arrived since reset and no retry is in progress.
    pub link_up: Signal<Out, bool>,
    /// Waiting for a retry marker.
    pub waiting: Signal<Out, bool>,
    /// The next sequence number to commit.
    expected: DFF<Bits<16>>,
    /// The sequence number of the next normal LTP to arrive.
    incoming: DFF<Bits<16>>,
    wait_marker: DFF<bool>,
    retry_timer: DFF<Bits<16>>,
    seen_good: DFF<bool>,
    /// Waiting for the marker after a lane removal.
    resizing: DFF<bool>,
    good_count: DFF<Bits<32>>,
    null_count: DFF<Bits<32>>,
    bad_count: DFF<Bits<32>>,
    duplicate_count: DFF<Bits<32>>,
    retry_timeout: Constant<Bits<16>>,
    /// How far behind `expect` a retry marker may be and still be taken.
    marker_window: Constant<Bits<16>>,
    /// The deframer's end and stray pulses, ignored unless `live`.
    end_valid: Signal<Local, bool>,
    stray: Signal<Local, bool>,
    good_null: Signal<Local, bool>,
    good_normal: Signal<Local, bool>,
    bad: Signal<Local, bool>,
    /// A retry request this cycle.
    request: Signal<Local, bool>,
    /// `expect` minus the marker's sequence number.
    marker_distance: Signal<Local, Bits<16>>,
    /// The deframer fields and commands this block does not read, acknowledged here
    /// (Verilator's lint passes names containing "unused"; nothing reads this, so synthesis
    /// removes it).
    unused_inputs: Signal<Local, bool>,
}

impl Verdict {
    /// A verdict repeating retry requests every `retry_timeout` cycles.
    pub fn new(retry_timeout: u16) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            live: Default::default(),
            start: Default::default(),
            fresh_far: Default::default(),
            deframed: Default::default(),
            commands: Default::default(),
            lanes: Default::default(),
            out: Default::default(),
            rollback: Default::default(),
            expect_seq: Default::default(),
            ltps_good: Default::default(),
            nulls_good: Default::default(),
            ltps_bad: Default::default(),
            ltps_dup: Default::default(),
            link_up: Default::default(),
            waiting: Default::default(),
            expected: Default::default(),
            incoming: Default::default(),
            wait_marker: Default::default(),
            retry_timer: Default::default(),
            seen_good: Default::default(),
            resizing: Default::default(),
            good_count: Default::default(),
            null_count: Default::default(),
            bad_count: Default::default(),
            duplicate_count: Default::default(),
            retry_timeout: Constant::new((retry_timeout as u64).into()),
            marker_window: Constant::new(1024u64.into()),
            end_valid: Default::default(),
            stray: Default::default(),
            good_null: Default::default(),
            good_normal: Default::default(),
            bad: Default::default(),
            request: Default::default(),
            marker_distance: Default::default(),
            unused_inputs: Default::default(),
        }
    }
}

impl Logic for Verdict {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            expected,
            incoming,
            wait_marker,
            retry_timer,
            seen_good,
            resizing,
            good_count,
            null_count,
            bad_count,
            duplicate_count
        );
        self.unused_inputs.next = self.deframed.flit.val().any()
            | self.deframed.flit_valid.val()
            | self.deframed.flit_pos.val().any()
            | self.deframed.end_state.val().any()
            | self.deframed.end_sideband.val().any()
            | self.deframed.end_gcrc.val().any()
            | self.deframed.lane_missing.val().any()
            | self.commands.retry_request.val()
            | self.commands.retry_request_seq.val().any()
            | self.commands.round_trip_marker.val()
            | self.commands.round_trip_echo.val()
            | self.commands.round_trip_echo_seq.val().any()
            | self.commands.lane_mask.val()
            | self.commands.lane_mask_value.val().any()
            | self.lanes.mask.val().any()
            | self.lanes.count.val().any()
            | self.lanes.last_lane_fails.val();
        self.expect_seq.next = self.expected.q.val();
        self.ltps_good.next = self.good_count.q.val();
        self.nulls_good.next = self.null_count.q.val();
        self.ltps_bad.next = self.bad_count.q.val();
        self.ltps_dup.next = self.duplicate_count.q.val();
        self.link_up.next = self.seen_good.q.val() & !self.wait_marker.q.val();
        self.waiting.next = self.wait_marker.q.val();
        self.out.sequence.next = self.incoming.q.val();
        self.out.resizing.next = self.resizing.q.val();
        self.request.next = false;
        self.end_valid.next = self.deframed.end_valid.val() & self.live.val();
        self.stray.next = self.deframed.stray.val() & self.live.val();

        // The LTP's verdict.
        self.good_null.next = self.end_valid.val()
            & self.deframed.end_intact.val()
            & self.commands.null.val()
            & !self.deframed.end_crc_diff.val().any();
        self.good_normal.next = self.end_valid.val()
            & self.deframed.end_intact.val()
            & !self.commands.null.val()
            & (self.deframed.end_crc_diff.val() == self.incoming.q.val().get_bits::<14>(0));
        self.bad.next = (self.end_valid.val() & !self.good_null.val() & !self.good_normal.val())
            | (self.stray.val() & !self.end_valid.val());
        self.out.null_acts.next = self.good_null.val();
        self.out.accepted.next = self.good_normal.val() & !self.wait_marker.q.val();
        self.out.commit.next = false;
        // A start also discards the flits of an LTP the link going down cut off (the deframer
        // was reset and never ended it).
        self.rollback.next = self.end_valid.val() | self.start.val();
        self.marker_distance.next = self.expected.q.val() - self.commands.retry_marker_seq.val();
        if self.good_null.val() {
            self.seen_good.d.next = true;
            self.null_count.d.next = self.null_count.q.val() + 1;
            if self.commands.retry_marker.val()
                & (self.marker_distance.val() < self.marker_window.val())
            {
                self.incoming.d.next = self.commands.retry_marker_seq.val();
                self.wait_marker.d.next = false;
                self.resizing.d.next = false;
            }
        }
        if self.good_normal.val() & !self.wait_marker.q.val() {
            self.seen_good.d.next = true;
            self.incoming.d.next = self.incoming.q.val() + 1;
            if self.incoming.q.val() == self.expected.q.val() {
                self.out.commit.next = true;
                self.rollback.next = false;
                self.expected.d.next = self.expected.q.val() + 1;
                self.good_count.d.next = self.good_count.q.val() + 1;
            } else {
                self.duplicate_count.d.next = self.duplicate_count.q.val() + 1;
            }
        }
        if self.bad.val() & !self.good_normal.val() {
            self.bad_count.d.next = self.bad_count.q.val() + 1;
        }
        // Kept only when it is the expected LTP: the replay asked for starts there, so its good
        // copy comes. (A bad duplicate, `incoming < expect`, would be kept for a sequence
        // number the replay skips, and block every later naming.)
        self.out.keep_bad.next = self.bad.val()
            & !self.good_normal.val()
            & !self.wait_marker.q.val()
            & self.end_valid.val()
            & self.deframed.end_intact.val()
            & (self.incoming.q.val() == self.expected.q.val());
        if self.bad.val() & !self.good_normal.val() & !self.wait_marker.q.val() {
            self.wait_marker.d.next = true;
            self.retry_timer.d.next = 0.into();
            self.request.next = true;
        }
        // The timer holds while the link is down (no request can reach the far end then).
        if self.wait_marker.q.val() & self.live.val() {
            self.retry_timer.d.next = self.retry_timer.q.val() + 1;
            if self.retry_timer.q.val() == self.retry_timeout.val() {
                self.retry_timer.d.next = 0.into();
                self.request.next = true;
            }
        }
        // A lane removal asks for a replay at the new width and waits for its marker.
        if self.lanes.narrowing.val() {
            self.wait_marker.d.next = true;
            self.retry_timer.d.next = 0.into();
            self.request.next = true;
            self.resizing.d.next = true;
        }
        // One retry request, whatever asked for it (counted once in the fruitless retries).
        self.out.retry_request.next = self.request.val();

        // Bring-up: the far transmitter sends RetryMrkr first, so wait for it (no request; the
        // timer asks if that marker is lost). RESTART: the far end counts from 0 again.
        if self.start.val() {
            self.wait_marker.d.next = true;
            self.retry_timer.d.next = 0.into();
            self.resizing.d.next = false;
            if self.fresh_far.val() {
                self.expected.d.next = 0.into();
                self.incoming.d.next = 0.into();
            }
        }

        if self.reset.val() {
            self.expected.d.next = 0.into();
            self.incoming.d.next = 0.into();
            self.wait_marker.d.next = false;
            self.retry_timer.d.next = 0.into();
            self.seen_good.d.next = false;
            self.resizing.d.next = false;
            self.good_count.d.next = 0.into();
            self.null_count.d.next = 0.into();
            self.bad_count.d.next = 0.into();
            self.duplicate_count.d.next = 0.into();
        }
    }
}
