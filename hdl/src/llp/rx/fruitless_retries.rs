//! The fruitless retries of the [`RxLink`](super::RxLink): retry requests that bring nothing,
//! and `link_fail`.
//!
//! Retry requests made (the first, each timeout repeat, a lane removal's: the verdict's
//! `retry_request`, one pulse per cycle) are counted in `retries` (saturating) and, since the
//! last commit, in the fruitless count (saturating at 255); when that count reaches
//! `retry_limit` (0: never) `link_fail` pulses and the count restarts. A stuck lane breaks
//! every LTP and every marker, so the link then goes down after about
//! `retry_limit * retry_timeout` cycles and retrains without it. The last lane's removal
//! (`last_lane_fails` from the lane health) pulses `link_fail` too: the trainer retrains and
//! finds what works.
//!
//! Latency: `link_fail` is registered, one cycle after the request or removal that decided it
//! (so a failure decided in the last cycle of `up` still shows in the next).
//!
//! `start` (a bring-up): the fruitless count restarts at 0; `retries` is kept.
//!
//! Reset: counts 0, no `link_fail`.
use super::{LanesSink, VerdictSink};
use rust_hdl::prelude::*;

/// Counts retry requests since the last commit and fails the link after too many.
#[derive(LogicBlock, Default)]
pub struct FruitlessRetries {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: counts 0, no `link_fail`.
    pub reset: Signal<In, bool>,
    /// A bring-up: the fruitless count restarts.
    pub start: Signal<In, bool>,
    /// Consecutive fruitless retry requests before `link_fail` (0: never).
    pub retry_limit: Signal<In, Bits<8>>,
    /// Commits and retry requests, from the verdict.
    pub verdict: VerdictSink,
    /// The last lane's removal, from the lane health.
    pub lanes: LanesSink,
    /// Registered one-cycle pulse: the link cannot make progress.
    pub link_fail: Signal<Out, bool>,
    /// Retry requests made, timeouts included (saturating).
    pub retries: Signal<Out, Bits<16>>,
    /// Retry requests since the last commit (saturating).
    fruitless: DFF<Bits<8>>,
    fail: DFF<bool>,
    retry_count: DFF<Bits<16>>,
    /// The fruitless count after this cycle's commit and request.
    fruitless_next: Signal<Local, Bits<8>>,
    /// The bundle fields this block does not read, acknowledged here (Verilator's lint passes
    /// names containing "unused"; nothing reads this, so synthesis removes it).
    unused_inputs: Signal<Local, bool>,
}

impl Logic for FruitlessRetries {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, fruitless, fail, retry_count);
        self.unused_inputs.next = self.verdict.null_acts.val()
            | self.verdict.accepted.val()
            | self.verdict.keep_bad.val()
            | self.verdict.sequence.val().any()
            | self.verdict.resizing.val()
            | self.lanes.mask.val().any()
            | self.lanes.count.val().any()
            | self.lanes.narrowing.val();
        self.link_fail.next = self.fail.q.val();
        self.retries.next = self.retry_count.q.val();
        self.fail.d.next = self.lanes.last_lane_fails.val();
        self.fruitless_next.next = self.fruitless.q.val();
        if self.verdict.commit.val() {
            self.fruitless_next.next = 0.into();
        }
        if self.verdict.retry_request.val() {
            if self.retry_count.q.val() != 0xffff {
                self.retry_count.d.next = self.retry_count.q.val() + 1;
            }
            if self.fruitless_next.val() != 0xff {
                self.fruitless_next.next = self.fruitless_next.val() + 1;
            }
        }
        self.fruitless.d.next = self.fruitless_next.val();
        if self.verdict.retry_request.val()
            & self.retry_limit.val().any()
            & (self.fruitless_next.val() >= self.retry_limit.val())
        {
            self.fail.d.next = true;
            self.fruitless.d.next = 0.into();
        }
        if self.start.val() {
            self.fruitless.d.next = 0.into();
        }
        if self.reset.val() {
            self.fruitless.d.next = 0.into();
            self.fail.d.next = false;
            self.retry_count.d.next = 0.into();
        }
    }
}
