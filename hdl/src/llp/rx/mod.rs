//! Receive-side protocol of a link endpoint (`docs/llp-design.md`, "Receiver" items 3-5 and
//! 7): takes the flits and LTP verdicts of an [`LtpDeframer`](super::deframer::LtpDeframer),
//! decides which LTPs are delivered, runs the retry protocol, names bad lanes and removes them,
//! follows the link trainer's bring-ups (`up`, `start`) and reports when the link cannot make
//! progress (`link_fail`).
//!
//! **Per LTP** ([`LtpIntake`], [`Verdict`]). Flit 0 tells a null LTP (an LT flit, see
//! [`super::lt`]) from a normal one. Data flits of normal LTPs are written to the staging buffer
//! at once (`wr_valid`); CrdtRet credits and LT commands are latched. At the LTP's end a good
//! null LTP acts at once (even while waiting for a retry marker), a good normal LTP while not
//! waiting is committed if it is the expected one and rolled back if it is an older duplicate,
//! and anything else (or XFRs outside any LTP, `stray`) is bad: rolled back, and when not
//! already waiting the receiver asks for a replay from `expect` (`send_retry`) and waits for a
//! marker, asking again every `retry_timeout` cycles.
//!
//! **Bad lanes** ([`LaneNaming`]). The group CRCs and state of the first bad LTP are kept (if
//! it arrived whole in the place of the expected LTP, so that the replay brings its good copy);
//! when the same sequence number later arrives good, exactly one differing group names the lane
//! it travelled on in the bad copy. That lane's error counters count one, as does each transfer
//! a lane dropped (`lane_missing`), except between a lane removal and the marker that follows
//! it (the far end may still stripe at the old width, which looks like missing transfers).
//!
//! **Lane removal by error rate** ([`LaneHealth`]). Each lane has a score (8 bits, saturating):
//! +1 per error charged to it (as above), and every `lane_drain` delivered (committed) LTPs
//! every lane's score drops by one (not below 0; an error and a drop in the same cycle cancel).
//! A lane in the mask whose score has reached `lane_threshold` (0: never) is removed (the lowest
//! such lane): the receiver switches its mask, asks for a replay with `LaneMask` (a retry
//! request like any other), waits for the marker at the new width, and every score restarts at
//! 0. If it is the last lane it stays and `link_fail` pulses instead (scores restart at 0 too):
//! the trainer retrains and finds what works. So a lane goes when its errors outpace one per
//! `lane_drain` delivered LTPs for long enough (the threshold is the hysteresis), while uniform
//! background errors, which every lane sees at the same low rate, drain away. Rates (estimates
//! from this arithmetic, not measurements; what the benches show is that BER 1e-4 with bursts
//! and drops removes no lane and a lane at 2e-3 is removed): an LTP is
//! 33 XFRs, so at 4 lanes a lane carries 8.25 XFRs = 264 bits of it; with `lane_drain` = 16 the
//! break-even is one charged error per 16 x 264 = 4,224 bits (2.4e-4). At uniform BER 1e-4 a
//! lane sees 0.026 errored LTPs per LTP, and at most one lane is charged per retry (the first
//! bad LTP's good copy names one lane), so each score gains at most about 0.026 per delivered
//! LTP against a drain of 0.0625: it stays near 0 and no lane goes. A lane at 2e-3 breaks about
//! 41 % of the LTPs (1 - (1 - 2e-3)^264) and is charged about 0.4 per delivered LTP against the
//! drain of 0.06: at `lane_threshold` 8 it goes within about 25 delivered LTPs, far inside a
//! few hundred. (The scores replace an absolute count per time window, which under uniform BER
//! 1e-5 removed good lanes one after another down to one.)
//!
//! **Fruitless retries** ([`FruitlessRetries`]). Retry requests made (the first, each timeout repeat, a
//! lane removal's) since the last committed LTP are counted; when the count reaches
//! `retry_limit` (0: never) `link_fail` pulses and the count restarts. A stuck lane breaks every
//! LTP and every marker, so the link then goes down after about `retry_limit * retry_timeout`
//! cycles and retrains without it.
//!
//! **Link up and down.** While `up` is low the deframer's flits, ends, strays and missing-lane
//! pulses are ignored (it is held in reset then anyway), the retry timer holds, no retry request
//! is made, nothing is charged to lanes and nothing removed; no `link_fail` is decided (one
//! decided in the last cycle of `up` still shows, registered, in the next). `start` (the first
//! cycle of `up`; nothing else acts in it) begins a bring-up: the mask becomes `start_mask`,
//! the receiver waits for the far end's marker with a fresh timer but sends no request (the
//! far transmitter sends `RetryMrkr` first at every bring-up; if it is lost, the timer's
//! request brings another), no bad LTP or naming is kept, no resize is pending, scores, the
//! drain count and the fruitless-retry count are 0, and `rollback` pulses (flits of an LTP the
//! link going down cut off are discarded). RESUME (`fresh_far` low) keeps the sequence
//! numbers: the far end replays everything unacknowledged after `RetryMrkr(ack)`, and the
//! duplicates are skipped as usual. RESTART (`fresh_far` high; the far end was reset) also sets
//! `expect` and the incoming sequence number to 0. Lane error totals and the other counters
//! are kept.
//!
//! Outputs to the transmitter are registered pulses, one cycle after the LTP's end
//! ([`TxPulses`]).
//!
//! **Reset** (synchronous): sequence numbers 0, the initial lane mask, every counter, lane
//! error count, score, the drain and fruitless-retry counts and output pulse cleared, no retry
//! pending and no bad LTP kept (not waiting: as if up and in step, for a link with no trainer).
//! The commands latched from an LTP in progress are not cleared: the next LTP's flit 0 clears
//! them, and the deframer, reset with this block, delivers nothing before a flit 0.
//! Parameter: `CW` credit width; elaboration values: the number of VCs, initial lane mask,
//! `retry_timeout`.
//!
//! Structure: one child block per stage, each with its own file and documentation.
//! - [`LtpIntake`]: the flits of the LTP in progress: flit 0 null or normal, data flits to the
//!   staging buffer, CrdtRet credits and LT commands latched ([`LtpCommandsSource`]).
//! - [`Verdict`]: the LTP's end: commit, rollback, sequence numbers, waiting for the marker,
//!   the retry timer, retry requests, the LTP counters ([`VerdictSource`]).
//! - [`FruitlessRetries`]: retry requests since the last commit, `retries` and `link_fail`.
//! - [`LaneNaming`]: the kept bad LTP and the naming of a bad lane from its good copy
//!   ([`NamingSource`], registered).
//! - [`LaneHealth`]: per-lane error counts and scores, the drain count, lane removal and the
//!   lane mask ([`LanesSource`]).
//! - [`TxPulses`]: the registered pulses and credits to the transmitter.
//!
//! Every stage decides in the cycle of the deframer's pulse (as one block would), so the
//! behaviour is cycle for cycle that of a single block; only the naming adds its own register
//! stage (see [`LaneNaming`]). The bundles between the stages are defined here once, each a
//! `Source`/`Sink` pair joined whole in [`RxLink`]; a bundle that feeds several stages is joined
//! to each. The deframer's bundle is linked whole to every stage that reads it.
mod fruitless_retries;
mod lane_health;
mod lane_naming;
mod ltp_intake;
mod tx_pulses;
mod verdict;

pub use fruitless_retries::FruitlessRetries;
pub use lane_health::LaneHealth;
pub use lane_naming::LaneNaming;
pub use ltp_intake::LtpIntake;
pub use tx_pulses::TxPulses;
pub use verdict::Verdict;

use super::deframer::DeframedSink;
use super::link_requests::LinkRequestsSource;
use crate::formats::FLIT_BITS;
use rust_hdl::prelude::*;

/// The intake to the verdict and the pulses: the LTP in progress is null, and the LT commands
/// it carried so far (each with its argument, registered).
#[derive(LogicInterface, Default)]
#[join = "LtpCommandsSink"]
pub struct LtpCommandsSource {
    /// The LTP in progress is a null LTP (its flit 0 was an LT flit).
    pub null: Signal<Out, bool>,
    /// It carried `RetryReq`.
    pub retry_request: Signal<Out, bool>,
    /// The sequence number of that `RetryReq`.
    pub retry_request_seq: Signal<Out, Bits<16>>,
    /// It carried `RetryMrkr`.
    pub retry_marker: Signal<Out, bool>,
    /// The sequence number of that `RetryMrkr`.
    pub retry_marker_seq: Signal<Out, Bits<16>>,
    /// It carried `RndTripMrkr` (the far end asks for an echo).
    pub round_trip_marker: Signal<Out, bool>,
    /// It carried `RndTripEcho`.
    pub round_trip_echo: Signal<Out, bool>,
    /// The sequence number of that `RndTripEcho`.
    pub round_trip_echo_seq: Signal<Out, Bits<16>>,
    /// It carried `LaneMask`.
    pub lane_mask: Signal<Out, bool>,
    /// The mask of that `LaneMask`.
    pub lane_mask_value: Signal<Out, Bits<4>>,
}

/// The receiving side of [`LtpCommandsSource`].
#[derive(LogicInterface, Default)]
#[join = "LtpCommandsSource"]
pub struct LtpCommandsSink {
    /// The LTP in progress is a null LTP.
    pub null: Signal<In, bool>,
    /// It carried `RetryReq`.
    pub retry_request: Signal<In, bool>,
    /// The sequence number of that `RetryReq`.
    pub retry_request_seq: Signal<In, Bits<16>>,
    /// It carried `RetryMrkr`.
    pub retry_marker: Signal<In, bool>,
    /// The sequence number of that `RetryMrkr`.
    pub retry_marker_seq: Signal<In, Bits<16>>,
    /// It carried `RndTripMrkr`.
    pub round_trip_marker: Signal<In, bool>,
    /// It carried `RndTripEcho`.
    pub round_trip_echo: Signal<In, bool>,
    /// The sequence number of that `RndTripEcho`.
    pub round_trip_echo_seq: Signal<In, Bits<16>>,
    /// It carried `LaneMask`.
    pub lane_mask: Signal<In, bool>,
    /// The mask of that `LaneMask`.
    pub lane_mask_value: Signal<In, Bits<4>>,
}

/// The verdict to the naming, the lane health, the fruitless retries and the pulses: what the LTP ending now is
/// worth, and the retry state (combinational from the end unless noted).
#[derive(LogicInterface, Default)]
#[join = "VerdictSink"]
pub struct VerdictSource {
    /// A good null LTP ended: its commands act.
    pub null_acts: Signal<Out, bool>,
    /// The expected LTP ended good: its flits, credits and commands are delivered.
    pub commit: Signal<Out, bool>,
    /// A good normal LTP ended while not waiting for a marker (expected or duplicate).
    pub accepted: Signal<Out, bool>,
    /// A bad LTP that arrived whole in the place of the expected one ended while not waiting:
    /// worth keeping for naming a lane.
    pub keep_bad: Signal<Out, bool>,
    /// The incoming sequence number (registered): that of the LTP ending now.
    pub sequence: Signal<Out, Bits<16>>,
    /// A retry request is made this cycle (one pulse, whatever asked for it).
    pub retry_request: Signal<Out, bool>,
    /// Waiting for the marker after a lane removal (registered).
    pub resizing: Signal<Out, bool>,
}

/// The receiving side of [`VerdictSource`].
#[derive(LogicInterface, Default)]
#[join = "VerdictSource"]
pub struct VerdictSink {
    /// A good null LTP ended.
    pub null_acts: Signal<In, bool>,
    /// The expected LTP ended good.
    pub commit: Signal<In, bool>,
    /// A good normal LTP ended while not waiting.
    pub accepted: Signal<In, bool>,
    /// A bad LTP worth keeping ended.
    pub keep_bad: Signal<In, bool>,
    /// The incoming sequence number.
    pub sequence: Signal<In, Bits<16>>,
    /// A retry request is made this cycle.
    pub retry_request: Signal<In, bool>,
    /// Waiting for the marker after a lane removal.
    pub resizing: Signal<In, bool>,
}

/// The lane health to the verdict, the naming and the fruitless retries: the lanes received on and this cycle's
/// removal decision.
#[derive(LogicInterface, Default)]
#[join = "LanesSink"]
pub struct LanesSource {
    /// The physical lanes received on (registered).
    pub mask: Signal<Out, Bits<4>>,
    /// The number of lanes in `mask` (registered).
    pub count: Signal<Out, Bits<3>>,
    /// A lane is removed now (not the last): ask for a replay and wait for the marker.
    pub narrowing: Signal<Out, bool>,
    /// The last lane would be removed now: the link fails instead.
    pub last_lane_fails: Signal<Out, bool>,
}

/// The receiving side of [`LanesSource`].
#[derive(LogicInterface, Default)]
#[join = "LanesSource"]
pub struct LanesSink {
    /// The physical lanes received on.
    pub mask: Signal<In, Bits<4>>,
    /// The number of lanes in `mask`.
    pub count: Signal<In, Bits<3>>,
    /// A lane is removed now.
    pub narrowing: Signal<In, bool>,
    /// The last lane would be removed now.
    pub last_lane_fails: Signal<In, bool>,
}

/// The naming to the lane health: the lane named bad (registered stage).
#[derive(LogicInterface, Default)]
#[join = "NamingSink"]
pub struct NamingSource {
    /// A lane is named this cycle.
    pub valid: Signal<Out, bool>,
    /// The physical lane named (one bit set when `valid`).
    pub lane: Signal<Out, Bits<4>>,
}

/// The receiving side of [`NamingSource`].
#[derive(LogicInterface, Default)]
#[join = "NamingSource"]
pub struct NamingSink {
    /// A lane is named this cycle.
    pub valid: Signal<In, bool>,
    /// The physical lane named.
    pub lane: Signal<In, Bits<4>>,
}

/// The receive-side protocol of a link endpoint.
#[derive(LogicBlock)]
pub struct RxLink<const CW: usize> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: sequence numbers 0, all lanes of the initial mask.
    pub reset: Signal<In, bool>,
    /// Flits, ends and lane events from the deframer.
    pub deframed: DeframedSink,
    /// Write a data flit to the staging buffer.
    pub wr_valid: Signal<Out, bool>,
    /// The data flit.
    pub wr_data: Signal<Out, Bits<FLIT_BITS>>,
    /// Make the flits written before this cycle visible.
    pub commit: Signal<Out, bool>,
    /// Discard the flits written since the last commit, before this cycle.
    pub rollback: Signal<Out, bool>,
    /// The far end's requests and ours, to the transmitter (its lane mask goes to the
    /// deframer too).
    pub to_tx: LinkRequestsSource,
    /// Credits returned per VC (zero when none).
    pub got_credits: Vec<Signal<Out, Bits<CW>>>,
    /// A lane's score at which it is removed (0: never remove).
    pub lane_threshold: Signal<In, Bits<8>>,
    /// The link is trained (level). While low the deframer's outputs are ignored, the retry
    /// timer holds and nothing is requested, counted against lanes or reported as a failure.
    pub up: Signal<In, bool>,
    /// One-cycle pulse in the first cycle `up` is high: a bring-up.
    pub start: Signal<In, bool>,
    /// With `start`: the far end was reset (RESTART: expect sequence 0), else RESUME.
    pub fresh_far: Signal<In, bool>,
    /// With `start`: the lanes received on from now (nonzero).
    pub start_mask: Signal<In, Bits<4>>,
    /// Consecutive fruitless retry requests before `link_fail` (0: never).
    pub retry_limit: Signal<In, Bits<8>>,
    /// Delivered LTPs per one-point decrease of every lane's score (0: scores never drain).
    pub lane_drain: Signal<In, Bits<16>>,
    /// Registered one-cycle pulse: the link cannot make progress (retries fruitless, or the
    /// last lane would be removed); the trainer takes the link down and retrains.
    pub link_fail: Signal<Out, bool>,
    /// Normal LTPs delivered (wrapping).
    pub ltps_good: Signal<Out, Bits<32>>,
    /// Good null LTPs (wrapping).
    pub nulls_good: Signal<Out, Bits<32>>,
    /// Bad LTPs: CRC, sequence or framing errors, stray transfers (wrapping).
    pub ltps_bad: Signal<Out, Bits<32>>,
    /// Good duplicates dropped after a replay (wrapping).
    pub ltps_dup: Signal<Out, Bits<32>>,
    /// Retry requests made, timeouts included (saturating).
    pub retries: Signal<Out, Bits<16>>,
    /// Errors per physical lane, lane `n` in bits `16n..16n+15` (saturating each).
    pub lane_errors: Signal<Out, Bits<64>>,
    /// Lanes removed since reset.
    pub lanes_removed: Signal<Out, Bits<3>>,
    /// A good LTP arrived since reset and no retry is in progress.
    pub link_up: Signal<Out, bool>,
    /// Waiting for a retry marker.
    pub waiting: Signal<Out, bool>,
    intake: LtpIntake<CW>,
    verdict: Verdict,
    fruitless: FruitlessRetries,
    naming: LaneNaming,
    health: LaneHealth,
    pulses: TxPulses<CW>,
    /// The link is up and this is not the start cycle: the deframer's pulses count.
    live: Signal<Local, bool>,
}

impl<const CW: usize> RxLink<CW> {
    /// A receiver of `vcs` VCs starting with lanes `mask`, repeating retry requests every `retry_timeout`
    /// cycles.
    pub fn new(vcs: usize, mask: u8, retry_timeout: u16) -> Self {
        assert!(
            (1..=8).contains(&vcs),
            "RxLink: vcs = {vcs} must be in 1..=8"
        );
        assert!(CW <= 16, "RxLink: CW = {CW} must be at most 16");
        assert!(
            mask != 0 && mask < 16,
            "RxLink: mask {mask:#x} must name 1..4 lanes"
        );
        assert!(
            retry_timeout >= 64,
            "RxLink: retry_timeout must be at least 64 cycles"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            deframed: Default::default(),
            wr_valid: Default::default(),
            wr_data: Default::default(),
            commit: Default::default(),
            rollback: Default::default(),
            to_tx: Default::default(),
            got_credits: (0..vcs).map(|_| Default::default()).collect(),
            lane_threshold: Default::default(),
            up: Default::default(),
            start: Default::default(),
            fresh_far: Default::default(),
            start_mask: Default::default(),
            retry_limit: Default::default(),
            lane_drain: Default::default(),
            link_fail: Default::default(),
            ltps_good: Default::default(),
            nulls_good: Default::default(),
            ltps_bad: Default::default(),
            ltps_dup: Default::default(),
            retries: Default::default(),
            lane_errors: Default::default(),
            lanes_removed: Default::default(),
            link_up: Default::default(),
            waiting: Default::default(),
            intake: LtpIntake::new(vcs),
            verdict: Verdict::new(retry_timeout),
            fruitless: FruitlessRetries::default(),
            naming: LaneNaming::default(),
            health: LaneHealth::new(mask),
            pulses: TxPulses::new(vcs),
            live: Default::default(),
        }
    }
}

impl<const CW: usize> Logic for RxLink<CW> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, intake, verdict, fruitless, naming, health, pulses);
        self.intake.reset.next = self.reset.val();
        self.verdict.reset.next = self.reset.val();
        self.fruitless.reset.next = self.reset.val();
        self.naming.reset.next = self.reset.val();
        self.health.reset.next = self.reset.val();
        self.pulses.reset.next = self.reset.val();
        // Only while the link is up, and not in the start cycle (the deframer, just out of
        // reset, delivers nothing then): the start alone acts in it.
        self.live.next = self.up.val() & !self.start.val();
        self.intake.live.next = self.live.val();
        self.verdict.live.next = self.live.val();
        self.health.live.next = self.live.val();
        self.verdict.start.next = self.start.val();
        self.fruitless.start.next = self.start.val();
        self.naming.start.next = self.start.val();
        self.health.start.next = self.start.val();
        self.verdict.fresh_far.next = self.fresh_far.val();
        self.health.start_mask.next = self.start_mask.val();
        self.fruitless.retry_limit.next = self.retry_limit.val();
        self.health.lane_threshold.next = self.lane_threshold.val();
        self.health.lane_drain.next = self.lane_drain.val();
        DeframedSink::link(&mut self.deframed, &mut self.intake.deframed);
        DeframedSink::link(&mut self.deframed, &mut self.verdict.deframed);
        DeframedSink::link(&mut self.deframed, &mut self.naming.deframed);
        DeframedSink::link(&mut self.deframed, &mut self.health.deframed);
        LtpCommandsSource::join(&mut self.intake.commands, &mut self.verdict.commands);
        LtpCommandsSource::join(&mut self.intake.commands, &mut self.pulses.commands);
        VerdictSource::join(&mut self.verdict.out, &mut self.naming.verdict);
        VerdictSource::join(&mut self.verdict.out, &mut self.fruitless.verdict);
        VerdictSource::join(&mut self.verdict.out, &mut self.health.verdict);
        VerdictSource::join(&mut self.verdict.out, &mut self.pulses.verdict);
        LanesSource::join(&mut self.health.lanes, &mut self.verdict.lanes);
        LanesSource::join(&mut self.health.lanes, &mut self.naming.lanes);
        LanesSource::join(&mut self.health.lanes, &mut self.fruitless.lanes);
        NamingSource::join(&mut self.naming.out, &mut self.health.named);
        self.pulses.sideband.next = self.deframed.end_sideband.val();
        for v in 0..self.got_credits.len() {
            self.pulses.pending_credits[v].next = self.intake.pending_credits[v].val();
            self.got_credits[v].next = self.pulses.got_credits[v].val();
        }
        self.wr_valid.next = self.intake.wr_valid.val();
        self.wr_data.next = self.intake.wr_data.val();
        self.commit.next = self.verdict.out.commit.val();
        self.rollback.next = self.verdict.rollback.val();
        // The pulses carry the far end's requests and ours; the receiver's state beside them.
        self.to_tx.got_retry.next = self.pulses.got_retry.val();
        self.to_tx.got_retry_seq.next = self.pulses.got_retry_seq.val();
        self.to_tx.got_echo.next = self.pulses.got_echo.val();
        self.to_tx.got_echo_seq.next = self.pulses.got_echo_seq.val();
        self.to_tx.got_mask.next = self.pulses.got_mask.val();
        self.to_tx.got_mask_val.next = self.pulses.got_mask_val.val();
        self.to_tx.send_retry.next = self.pulses.send_retry.val();
        self.to_tx.send_echo.next = self.pulses.send_echo.val();
        self.to_tx.expect_seq.next = self.verdict.expect_seq.val();
        self.to_tx.mask.next = self.health.lanes.mask.val();
        self.link_fail.next = self.fruitless.link_fail.val();
        self.ltps_good.next = self.verdict.ltps_good.val();
        self.nulls_good.next = self.verdict.nulls_good.val();
        self.ltps_bad.next = self.verdict.ltps_bad.val();
        self.ltps_dup.next = self.verdict.ltps_dup.val();
        self.retries.next = self.fruitless.retries.val();
        self.link_up.next = self.verdict.link_up.val();
        self.waiting.next = self.verdict.waiting.val();
        self.lane_errors.next = self.health.lane_errors.val();
        self.lanes_removed.next = self.health.lanes_removed.val();
    }
}

#[test]
fn rx_link_is_synthesizable() {
    let mut uut = RxLink::<7>::new(2, 0xf, 1024);
    uut.connect_all();
    yosys_validate("rx_link", &generate_verilog(&uut)).unwrap();
}
