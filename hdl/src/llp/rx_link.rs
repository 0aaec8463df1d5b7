//! Receive-side protocol of a link endpoint (`docs/llp-design.md`, "Receiver" items 3-5 and
//! 7): takes the flits and LTP verdicts of an [`LtpDeframer`](super::deframer::LtpDeframer),
//! decides which LTPs are delivered, runs the retry protocol, names bad lanes and removes them,
//! follows the link trainer's bring-ups (`up`, `start`) and reports when the link cannot make
//! progress (`link_fail`).
//!
//! **Per LTP.** Flit 0 tells a null LTP (an LT flit, see [`super::lt`]) from a normal one. Data
//! flits (everything but Idle, CrdtRet and LT flits) of normal LTPs are written to the staging
//! buffer at once (`wr_valid`); CrdtRet credits and LT commands are latched. At the LTP's end:
//! - a good null LTP (intact, CRC difference 0) acts at once, even while waiting for a retry
//!   marker: `RetryMrkr(s)` with `s <= expect` sets the incoming sequence number to `s` and ends
//!   the wait; `RetryReq`, `LaneMask` and `RndTripEcho` go to the transmitter; `RndTripMrkr` asks
//!   it for an echo;
//! - a good normal LTP (intact, CRC difference = incoming sequence number mod 2^14) while not
//!   waiting: if it is the expected one it is committed (flits become visible, credits and LT
//!   commands act, `expect` advances); if it is older (a replayed duplicate) it is rolled back;
//! - anything else, or XFRs outside any LTP (`stray`), is bad: rolled back; when not already
//!   waiting, the receiver asks for a replay from `expect` (`send_retry`) and waits for a
//!   marker, asking again every `retry_timeout` cycles.
//!
//! **Bad lanes.** The group CRCs and state of the first bad LTP are kept (if it arrived whole
//! in the place of the expected LTP, so that the replay brings its good copy); when the same
//! sequence number later arrives good, exactly one differing group names the lane it travelled
//! on in the bad copy. (The two copies may have different sequence states, which the trailer
//! carries in bits 31..30 of XFR 32 into the CRC of group `32 mod L`; that difference is
//! taken out of the kept CRC before comparing, else a replay at another state would differ in
//! two groups and name nothing.) That lane's error counters count one, as does each transfer a
//! lane dropped (`lane_missing`), except between a lane removal and the marker that follows it
//! (the far end may still stripe at the old width, which looks like missing transfers). The
//! naming is counted one cycle after the good copy's end: the compare is registered
//! (`nm_valid`, `nm_m`) before the logical-to-physical lane lookup, which keeps the group-CRC
//! compare and the error counters in separate cycles (the path that limited Fmax). A naming
//! whose lookup cycle falls right after a lane removal is dropped, since the mask it was
//! computed for is gone.
//!
//! **Lane removal by error rate.** Each lane has a score (8 bits, saturating): +1 per error
//! charged to it (as above), and every `lane_drain` delivered (committed) LTPs every lane's score
//! drops by one (not below 0; an error and a drop in the same cycle cancel). A lane in the mask
//! whose score has reached `lane_threshold` (0: never) is removed (the lowest such lane): the
//! receiver switches its mask, asks for a replay with `LaneMask` (a retry request like any
//! other), waits for the marker at the new width, and every score restarts at 0. If it is the
//! last lane it stays and `link_fail` pulses instead (scores restart at 0 too): the trainer
//! retrains and finds what works. So a lane goes when its errors outpace one per `lane_drain`
//! delivered LTPs for long enough (the threshold is the hysteresis), while uniform background
//! errors, which every lane sees at the same low rate, drain away. Rates: an LTP is 33 XFRs,
//! so at 4 lanes a lane carries 8.25 XFRs = 264 bits of it; with `lane_drain` = 16 the break-even
//! is one charged error per 16 x 264 = 4,224 bits (2.4e-4). At uniform BER 1e-4 a lane sees
//! 0.026 errored LTPs per LTP, and at most one lane is charged per retry (the first bad LTP's
//! good copy names one lane), so each score gains at most about 0.026 per delivered LTP against
//! a drain of 0.0625: it stays near 0 and no lane goes. A lane at 2e-3 breaks about 41 % of the
//! LTPs (1 - (1 - 2e-3)^264) and is charged about 0.4 per delivered LTP against the drain of
//! 0.06: at `lane_threshold` 8 it goes within about 25 delivered LTPs, far inside a few hundred.
//! (The scores replace an absolute count per time window, which under uniform BER 1e-5 removed
//! good lanes one after another down to one.)
//!
//! **Fruitless retries.** Retry requests made (the first, each timeout repeat, a lane removal's)
//! since the last committed LTP are counted; when the count reaches `retry_limit` (0: never)
//! `link_fail` pulses and the count restarts. A stuck lane breaks every LTP and every marker,
//! so the link then goes down after about `retry_limit * retry_timeout` cycles and retrains
//! without it.
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
//! Outputs to the transmitter are registered pulses, one cycle after the LTP's end.
//!
//! **Reset** (synchronous): sequence numbers 0, the initial lane mask, every counter, lane
//! error count, score, the drain and fruitless-retry counts and output pulse cleared, no retry
//! pending and no bad LTP kept (not waiting: as if up and in step, for a link with no trainer). The commands
//! latched from an LTP in progress are not cleared: the next LTP's flit 0 clears them, and the
//! deframer, reset with this block, delivers nothing before a flit 0.
//! Parameter: `CW` credit width; elaboration values: the number of VCs, initial lane mask,
//! `retry_timeout`.
use super::deframer::DeframedSink;
use super::link_requests::LinkRequestsSource;
use super::lt::{LtCode, LT_CODE_BITS};
use crate::crc::CRC8;
use crate::flit_decoder::FlitDecoder;
use crate::formats::FLIT_BITS;
use rust_hdl::prelude::*;

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
    a_null: DFF<bool>,
    p_rr: DFF<bool>,
    p_mrkr: DFF<bool>,
    p_rtm: DFF<bool>,
    p_echo: DFF<bool>,
    p_mask: DFF<bool>,
    p_rr_seq: DFF<Bits<16>>,
    p_mrkr_seq: DFF<Bits<16>>,
    p_echo_seq: DFF<Bits<16>>,
    p_mask_val: DFF<Bits<4>>,
    pend_cred: Vec<DFF<Bits<CW>>>,
    o_cred: Vec<DFF<Bits<CW>>>,
    o_retry: DFF<bool>,
    o_retry_seq: DFF<Bits<16>>,
    o_echo: DFF<bool>,
    o_echo_seq: DFF<Bits<16>>,
    o_mask: DFF<bool>,
    o_mask_val: DFF<Bits<4>>,
    o_send_retry: DFF<bool>,
    o_send_echo: DFF<bool>,
    expect_r: DFF<Bits<16>>,
    in_seq: DFF<Bits<16>>,
    wait_r: DFF<bool>,
    wtimer: DFF<Bits<16>>,
    seen_good: DFF<bool>,
    bad_valid: DFF<bool>,
    resizing: DFF<bool>,
    bad_seq: DFF<Bits<16>>,
    bad_gcrc: DFF<Bits<32>>,
    bad_state: DFF<Bits<2>>,
    /// The good copy of the kept bad LTP differed in exactly one group (last cycle).
    nm_valid: DFF<bool>,
    /// That group's index.
    nm_m: DFF<Bits<2>>,
    rx_mask: DFF<Bits<4>>,
    lcount: DFF<Bits<3>>,
    lane_err: Vec<DFF<Bits<16>>>,
    /// Error score per physical lane (saturating): +1 per error, -1 per `lane_drain` commits.
    score: Vec<DFF<Bits<8>>>,
    /// Commits since the last drain step.
    drain_cnt: DFF<Bits<16>>,
    /// `drain_cnt + 1`.
    drain_next: Signal<Local, Bits<16>>,
    /// Retry requests since the last commit (saturating).
    fruitless: DFF<Bits<8>>,
    o_fail: DFF<bool>,
    c_good: DFF<Bits<32>>,
    c_nulls: DFF<Bits<32>>,
    c_bad: DFF<Bits<32>>,
    c_dup: DFF<Bits<32>>,
    c_retries: DFF<Bits<16>>,
    c_removed: DFF<Bits<3>>,
    init_mask: Constant<Bits<4>>,
    /// The link-transfer commands this block acts on ([`LtCode`]).
    code_retry_req: Constant<Bits<LT_CODE_BITS>>,
    code_retry_mrkr: Constant<Bits<LT_CODE_BITS>>,
    code_rt_mrkr: Constant<Bits<LT_CODE_BITS>>,
    code_rt_echo: Constant<Bits<LT_CODE_BITS>>,
    code_lane_mask: Constant<Bits<LT_CODE_BITS>>,
    init_lanes: Constant<Bits<3>>,
    retry_timeout: Constant<Bits<16>>,
    marker_window: Constant<Bits<16>>,
    nums: Vec<Constant<Bits<3>>>,
    gshift: Vec<Constant<Bits<8>>>,
    /// CRC-8 step of a state difference `d` in XFR 32 (bits 31..30) from state 0.
    state_crc: Vec<Constant<Bits<8>>>,
    // Per-cycle decisions.
    dec: FlitDecoder,
    /// The decoder outputs this block does not read, acknowledged here (Verilator's lint
    /// passes names containing "unused"; nothing reads this, so synthesis removes it).
    unused_decoded: Signal<Local, bool>,
    is_data: Signal<Local, bool>,
    null_now: Signal<Local, bool>,
    first: Signal<Local, bool>,
    good_null: Signal<Local, bool>,
    good_norm: Signal<Local, bool>,
    bad_now: Signal<Local, bool>,
    sdiff: Signal<Local, Bits<3>>,
    sfix: Signal<Local, Bits<8>>,
    adj_gcrc: Signal<Local, Bits<32>>,
    ndiff: Signal<Local, Bits<3>>,
    diff_m: Signal<Local, Bits<2>>,
    logical: Signal<Local, Bits<3>>,
    ident: Signal<Local, bool>,
    hit: Signal<Local, Bits<4>>,
    rank: Signal<Local, Bits<3>>,
    lane_inc: Signal<Local, Bits<4>>,
    remove: Signal<Local, Bits<4>>,
    rfound: Signal<Local, bool>,
    /// The link is up and this is not the start cycle: events count.
    live: Signal<Local, bool>,
    /// The deframer's pulses, ignored unless `live`.
    flit_v: Signal<Local, bool>,
    end_v: Signal<Local, bool>,
    stray_v: Signal<Local, bool>,
    missing_v: Signal<Local, Bits<4>>,
    /// A retry request this cycle (one pulse, counted once, whatever asked for it).
    req: Signal<Local, bool>,
    /// Every lane's score drops by one this cycle.
    drain: Signal<Local, bool>,
    /// The fruitless-retry count after this cycle's commit and request.
    fr_next: Signal<Local, Bits<8>>,
    /// Lanes of `start_mask`.
    start_lanes: Signal<Local, Bits<3>>,
    mrk_dist: Signal<Local, Bits<16>>,
    new_mask: Signal<Local, Bits<4>>,
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
            a_null: Default::default(),
            p_rr: Default::default(),
            p_mrkr: Default::default(),
            p_rtm: Default::default(),
            p_echo: Default::default(),
            p_mask: Default::default(),
            p_rr_seq: Default::default(),
            p_mrkr_seq: Default::default(),
            p_echo_seq: Default::default(),
            p_mask_val: Default::default(),
            pend_cred: (0..vcs).map(|_| Default::default()).collect(),
            o_cred: (0..vcs).map(|_| Default::default()).collect(),
            o_retry: Default::default(),
            o_retry_seq: Default::default(),
            o_echo: Default::default(),
            o_echo_seq: Default::default(),
            o_mask: Default::default(),
            o_mask_val: Default::default(),
            o_send_retry: Default::default(),
            o_send_echo: Default::default(),
            expect_r: Default::default(),
            in_seq: Default::default(),
            wait_r: Default::default(),
            wtimer: Default::default(),
            seen_good: Default::default(),
            bad_valid: Default::default(),
            resizing: Default::default(),
            bad_seq: Default::default(),
            bad_gcrc: Default::default(),
            bad_state: Default::default(),
            nm_valid: Default::default(),
            nm_m: Default::default(),
            rx_mask: Default::default(),
            lcount: Default::default(),
            lane_err: (0..4).map(|_| Default::default()).collect(),
            score: (0..4).map(|_| Default::default()).collect(),
            drain_cnt: Default::default(),
            drain_next: Default::default(),
            fruitless: Default::default(),
            o_fail: Default::default(),
            c_good: Default::default(),
            c_nulls: Default::default(),
            c_bad: Default::default(),
            c_dup: Default::default(),
            c_retries: Default::default(),
            c_removed: Default::default(),
            code_retry_req: LtCode::RetryReq.constant(),
            code_retry_mrkr: LtCode::RetryMrkr.constant(),
            code_rt_mrkr: LtCode::RndTripMrkr.constant(),
            code_rt_echo: LtCode::RndTripEcho.constant(),
            code_lane_mask: LtCode::LaneMask.constant(),
            init_mask: Constant::new((mask as u64).into()),
            init_lanes: Constant::new((mask.count_ones() as u64).into()),
            retry_timeout: Constant::new((retry_timeout as u64).into()),
            marker_window: Constant::new(1024u64.into()),
            nums: (0..8).map(|n| Constant::new((n as u64).into())).collect(),
            gshift: (0..4)
                .map(|m| Constant::new((8 * m as u64).into()))
                .collect(),
            state_crc: (0..4u128)
                .map(|d| {
                    let mut g = CRC8.digest();
                    g.update_word(d << 30, 32);
                    Constant::new(g.finish().into())
                })
                .collect(),
            dec: Default::default(),
            unused_decoded: Default::default(),
            is_data: Default::default(),
            null_now: Default::default(),
            first: Default::default(),
            good_null: Default::default(),
            good_norm: Default::default(),
            bad_now: Default::default(),
            sdiff: Default::default(),
            sfix: Default::default(),
            adj_gcrc: Default::default(),
            ndiff: Default::default(),
            diff_m: Default::default(),
            logical: Default::default(),
            ident: Default::default(),
            hit: Default::default(),
            rank: Default::default(),
            lane_inc: Default::default(),
            remove: Default::default(),
            rfound: Default::default(),
            live: Default::default(),
            flit_v: Default::default(),
            end_v: Default::default(),
            stray_v: Default::default(),
            missing_v: Default::default(),
            req: Default::default(),
            drain: Default::default(),
            fr_next: Default::default(),
            start_lanes: Default::default(),
            mrk_dist: Default::default(),
            new_mask: Default::default(),
        }
    }
}

impl<const CW: usize> Logic for RxLink<CW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            a_null,
            p_rr,
            p_mrkr,
            p_rtm,
            p_echo,
            p_mask,
            p_rr_seq,
            p_mrkr_seq,
            p_echo_seq,
            p_mask_val,
            o_retry,
            o_retry_seq,
            o_echo,
            o_echo_seq,
            o_mask,
            o_mask_val,
            o_send_retry,
            o_send_echo,
            expect_r,
            in_seq,
            wait_r,
            wtimer,
            seen_good,
            bad_valid,
            resizing,
            bad_seq,
            bad_gcrc,
            bad_state,
            nm_valid,
            nm_m,
            rx_mask,
            lcount,
            drain_cnt,
            fruitless,
            o_fail,
            c_good,
            c_nulls,
            c_bad,
            c_dup,
            c_retries,
            c_removed
        );
        self.unused_decoded.next = self.dec.is_body.val()
            | self.dec.is_head.val()
            | self.dec.is_tail.val()
            | self.dec.is_control.val()
            | self.dec.is_bad_marker.val()
            | self.dec.malformed.val()
            | self.dec.dst.val().any()
            | self.dec.src.val().any()
            | self.dec.vc.val().any()
            | self.dec.kind.val().any()
            | self.dec.len.val().any()
            | self.dec.delay.val().any();
        for v in 0..self.got_credits.len() {
            self.pend_cred[v].clock.next = self.clock.val();
            self.pend_cred[v].d.next = self.pend_cred[v].q.val();
            self.o_cred[v].clock.next = self.clock.val();
            self.o_cred[v].d.next = 0.into();
            self.got_credits[v].next = self.o_cred[v].q.val();
        }
        for n in 0..4 {
            self.lane_err[n].clock.next = self.clock.val();
            self.lane_err[n].d.next = self.lane_err[n].q.val();
            self.score[n].clock.next = self.clock.val();
            self.score[n].d.next = self.score[n].q.val();
        }
        self.to_tx.mask.next = self.rx_mask.q.val();
        self.to_tx.got_retry.next = self.o_retry.q.val();
        self.to_tx.got_retry_seq.next = self.o_retry_seq.q.val();
        self.to_tx.got_echo.next = self.o_echo.q.val();
        self.to_tx.got_echo_seq.next = self.o_echo_seq.q.val();
        self.to_tx.got_mask.next = self.o_mask.q.val();
        self.to_tx.got_mask_val.next = self.o_mask_val.q.val();
        self.to_tx.send_retry.next = self.o_send_retry.q.val();
        self.to_tx.send_echo.next = self.o_send_echo.q.val();
        self.to_tx.expect_seq.next = self.expect_r.q.val();
        self.ltps_good.next = self.c_good.q.val();
        self.nulls_good.next = self.c_nulls.q.val();
        self.ltps_bad.next = self.c_bad.q.val();
        self.ltps_dup.next = self.c_dup.q.val();
        self.retries.next = self.c_retries.q.val();
        self.lanes_removed.next = self.c_removed.q.val();
        self.link_up.next = self.seen_good.q.val() & !self.wait_r.q.val();
        self.waiting.next = self.wait_r.q.val();
        self.link_fail.next = self.o_fail.q.val();
        self.lane_errors.next = bit_cast::<64, 16>(self.lane_err[0].q.val())
            | (bit_cast::<64, 16>(self.lane_err[1].q.val()) << 16)
            | (bit_cast::<64, 16>(self.lane_err[2].q.val()) << 32)
            | (bit_cast::<64, 16>(self.lane_err[3].q.val()) << 48);
        self.o_retry.d.next = false;
        self.o_echo.d.next = false;
        self.o_mask.d.next = false;
        self.o_send_retry.d.next = false;
        self.o_send_echo.d.next = false;
        self.o_fail.d.next = false;
        self.req.next = false;
        // Only while the link is up, and not in the start cycle (the deframer, just out of
        // reset, delivers nothing then): the start alone acts in it.
        self.live.next = self.up.val() & !self.start.val();
        self.flit_v.next = self.deframed.flit_valid.val() & self.live.val();
        self.end_v.next = self.deframed.end_valid.val() & self.live.val();
        self.stray_v.next = self.deframed.stray.val() & self.live.val();
        self.missing_v.next = 0.into();
        if self.live.val() {
            self.missing_v.next = self.deframed.lane_missing.val();
        }

        // Classify the flit.
        // Classify the flit (the decoder reads the field tables of `formats`).
        self.dec.flit.next = self.deframed.flit.val();
        self.is_data.next =
            !(self.dec.is_idle.val() | self.dec.is_credit.val() | self.dec.is_link_transfer.val());
        self.first.next = self.deframed.flit_pos.val() == 0;
        self.null_now.next = self.a_null.q.val();
        if self.first.val() {
            self.null_now.next = self.dec.is_link_transfer.val();
        }
        self.wr_valid.next = self.flit_v.val() & self.is_data.val() & !self.null_now.val();
        self.wr_data.next = self.deframed.flit.val();

        // Latch the LTP's LT commands and credits (cleared by its flit 0).
        if self.flit_v.val() {
            if self.first.val() {
                self.a_null.d.next = self.dec.is_link_transfer.val();
                self.p_rr.d.next = false;
                self.p_mrkr.d.next = false;
                self.p_rtm.d.next = false;
                self.p_echo.d.next = false;
                self.p_mask.d.next = false;
                for v in 0..self.got_credits.len() {
                    self.pend_cred[v].d.next = 0.into();
                }
            }
            if self.dec.is_link_transfer.val() {
                if self.dec.code.val().get_bits::<LT_CODE_BITS>(0) == self.code_retry_req.val() {
                    self.p_rr.d.next = true;
                    self.p_rr_seq.d.next = self.deframed.flit.val().get_bits::<16>(0);
                }
                if self.dec.code.val().get_bits::<LT_CODE_BITS>(0) == self.code_retry_mrkr.val() {
                    self.p_mrkr.d.next = true;
                    self.p_mrkr_seq.d.next = self.deframed.flit.val().get_bits::<16>(0);
                }
                if self.dec.code.val().get_bits::<LT_CODE_BITS>(0) == self.code_rt_mrkr.val() {
                    self.p_rtm.d.next = true;
                }
                if self.dec.code.val().get_bits::<LT_CODE_BITS>(0) == self.code_rt_echo.val() {
                    self.p_echo.d.next = true;
                    self.p_echo_seq.d.next = self.deframed.flit.val().get_bits::<16>(0);
                }
                if self.dec.code.val().get_bits::<LT_CODE_BITS>(0) == self.code_lane_mask.val() {
                    self.p_mask.d.next = true;
                    self.p_mask_val.d.next = self.deframed.flit.val().get_bits::<4>(0);
                }
            }
            if self.dec.is_credit.val() & !self.null_now.val() {
                for v in 0..self.got_credits.len() {
                    if self.dec.ctrl_vc.val() == self.nums[v].val() {
                        if self.first.val() {
                            self.pend_cred[v].d.next = self.dec.credits.val().get_bits::<CW>(0);
                        } else {
                            self.pend_cred[v].d.next = self.pend_cred[v].q.val()
                                + self.dec.credits.val().get_bits::<CW>(0);
                        }
                    }
                }
            }
        }

        // The LTP's verdict.
        self.good_null.next = self.end_v.val()
            & self.deframed.end_intact.val()
            & self.a_null.q.val()
            & !self.deframed.end_crc_diff.val().any();
        self.good_norm.next = self.end_v.val()
            & self.deframed.end_intact.val()
            & !self.a_null.q.val()
            & (self.deframed.end_crc_diff.val() == self.in_seq.q.val().get_bits::<14>(0));
        self.bad_now.next = (self.end_v.val() & !self.good_null.val() & !self.good_norm.val())
            | (self.stray_v.val() & !self.end_v.val());
        self.commit.next = false;
        // A start also discards the flits of an LTP the link going down cut off (the deframer
        // was reset and never ended it).
        self.rollback.next = self.end_v.val() | self.start.val();
        self.mrk_dist.next = self.expect_r.q.val() - self.p_mrkr_seq.q.val();
        if self.good_null.val() {
            self.seen_good.d.next = true;
            self.c_nulls.d.next = self.c_nulls.q.val() + 1;
            if self.p_mrkr.q.val() & (self.mrk_dist.val() < self.marker_window.val()) {
                self.in_seq.d.next = self.p_mrkr_seq.q.val();
                self.wait_r.d.next = false;
                self.resizing.d.next = false;
            }
            self.o_retry.d.next = self.p_rr.q.val();
            self.o_retry_seq.d.next = self.p_rr_seq.q.val();
            self.o_mask.d.next = self.p_mask.q.val();
            self.o_mask_val.d.next = self.p_mask_val.q.val();
            self.o_echo.d.next = self.p_echo.q.val();
            self.o_echo_seq.d.next = self.p_echo_seq.q.val();
            self.o_send_echo.d.next = self.p_rtm.q.val();
        }
        if self.good_norm.val() & !self.wait_r.q.val() {
            self.seen_good.d.next = true;
            self.in_seq.d.next = self.in_seq.q.val() + 1;
            if self.in_seq.q.val() == self.expect_r.q.val() {
                self.commit.next = true;
                self.rollback.next = false;
                self.expect_r.d.next = self.expect_r.q.val() + 1;
                self.c_good.d.next = self.c_good.q.val() + 1;
                for v in 0..self.got_credits.len() {
                    self.o_cred[v].d.next = self.pend_cred[v].q.val();
                }
                self.o_echo.d.next = self.p_echo.q.val();
                self.o_echo_seq.d.next = self.p_echo_seq.q.val();
                self.o_send_echo.d.next = self.p_rtm.q.val();
            } else {
                self.c_dup.d.next = self.c_dup.q.val() + 1;
            }
        }
        if self.bad_now.val() & !self.good_norm.val() {
            self.c_bad.d.next = self.c_bad.q.val() + 1;
        }
        if self.bad_now.val() & !self.good_norm.val() & !self.wait_r.q.val() {
            self.wait_r.d.next = true;
            self.wtimer.d.next = 0.into();
            self.req.next = true;
            // Kept only when it is the expected LTP: the replay asked for starts there, so its
            // good copy comes. (A bad duplicate, `in_seq < expect`, would be kept for a
            // sequence number the replay skips, and block every later naming.)
            if self.end_v.val()
                & self.deframed.end_intact.val()
                & !self.bad_valid.q.val()
                & (self.in_seq.q.val() == self.expect_r.q.val())
            {
                self.bad_valid.d.next = true;
                self.bad_seq.d.next = self.in_seq.q.val();
                self.bad_gcrc.d.next = self.deframed.end_gcrc.val();
                self.bad_state.d.next = self.deframed.end_state.val();
            }
        }
        // The timer holds while the link is down (no request can reach the far end then).
        if self.wait_r.q.val() & self.live.val() {
            self.wtimer.d.next = self.wtimer.q.val() + 1;
            if self.wtimer.q.val() == self.retry_timeout.val() {
                self.wtimer.d.next = 0.into();
                self.req.next = true;
            }
        }

        // Bad lane from the good copy of the stored bad LTP: exactly one group differs. The
        // copies may travel at different sequence states, which XFR 32 (bits 31..30) carries
        // into group 32 mod L: that group's CRC of the bad copy is corrected by the CRC of the
        // state difference (CRC-8 is linear and XFR 32 is its group's last step) first.
        self.sdiff.next = bit_cast::<3, 2>(self.bad_state.q.val() ^ self.deframed.end_state.val());
        self.sfix.next = 0.into();
        for d in 1..4 {
            if self.sdiff.val() == self.nums[d].val() {
                self.sfix.next = self.state_crc[d].val();
            }
        }
        self.adj_gcrc.next = self.bad_gcrc.q.val() ^ bit_cast::<32, 8>(self.sfix.val());
        if self.lcount.q.val() == 3 {
            self.adj_gcrc.next = self.bad_gcrc.q.val() ^ (bit_cast::<32, 8>(self.sfix.val()) << 16);
        }
        self.ndiff.next = 0.into();
        self.diff_m.next = 0.into();
        for m in 0..4 {
            if (self.nums[m].val() < self.lcount.q.val())
                & (self
                    .adj_gcrc
                    .val()
                    .get_bits::<8>(self.gshift[m].val().index())
                    != self
                        .deframed
                        .end_gcrc
                        .val()
                        .get_bits::<8>(self.gshift[m].val().index()))
            {
                self.ndiff.next = self.ndiff.val() + 1;
                self.diff_m.next = self.nums[m].val().get_bits::<2>(0);
            }
        }
        self.ident.next = self.good_norm.val()
            & !self.wait_r.q.val()
            & self.bad_valid.q.val()
            & (self.bad_seq.q.val() == self.in_seq.q.val());
        if self.ident.val() {
            self.bad_valid.d.next = false;
        }
        self.nm_valid.d.next = self.ident.val() & (self.ndiff.val() == 1);
        self.nm_m.d.next = self.diff_m.val();
        // One cycle later: logical lane (state + m) mod L, then its physical lane. `bad_state`
        // still holds the named LTP's state (it is written only while `bad_valid` is low, and
        // `ident` is the cycle that clears it).
        self.logical.next =
            bit_cast::<3, 2>(self.bad_state.q.val()) + bit_cast::<3, 2>(self.nm_m.q.val());
        if self.logical.val() >= self.lcount.q.val() {
            self.logical.next = self.logical.val() - self.lcount.q.val();
        }
        self.hit.next = 0.into();
        self.rank.next = 0.into();
        for p in 0..4 {
            if self.rx_mask.q.val().get_bit(p) {
                if self.rank.val() == self.logical.val() {
                    self.hit.next = self.hit.val().replace_bit(p, true);
                }
                self.rank.next = self.rank.val() + 1;
            }
        }
        // Until the marker after a lane removal, the far end may still stripe at the old
        // width: transfers then look missing on lanes that are fine, so they are not counted.
        self.lane_inc.next = 0.into();
        if !self.resizing.q.val() {
            self.lane_inc.next = self.missing_v.val() & self.rx_mask.q.val();
        }
        if self.nm_valid.q.val() & !self.resizing.q.val() & self.live.val() {
            self.lane_inc.next = self.lane_inc.val() | self.hit.val();
        }
        // Lane scores: +1 per error charged to the lane, -1 for every lane each `lane_drain`
        // delivered LTPs (see the header for the rates this gives).
        self.drain.next = false;
        // In a 16-bit local: Verilog would compare the sum at 32 bits.
        self.drain_next.next = self.drain_cnt.q.val() + 1;
        if self.commit.val() & self.lane_drain.val().any() {
            self.drain_cnt.d.next = self.drain_next.val();
            if self.drain_next.val() >= self.lane_drain.val() {
                self.drain.next = true;
                self.drain_cnt.d.next = 0.into();
            }
        }
        self.remove.next = 0.into();
        self.rfound.next = false;
        for n in 0..4 {
            if self.lane_inc.val().get_bit(n) & (self.lane_err[n].q.val() != 0xffff) {
                self.lane_err[n].d.next = self.lane_err[n].q.val() + 1;
            }
            if self.lane_inc.val().get_bit(n) & !self.drain.val() & (self.score[n].q.val() != 0xff)
            {
                self.score[n].d.next = self.score[n].q.val() + 1;
            }
            if self.drain.val() & !self.lane_inc.val().get_bit(n) & self.score[n].q.val().any() {
                self.score[n].d.next = self.score[n].q.val() - 1;
            }
            if !self.rfound.val()
                & self.live.val()
                & self.rx_mask.q.val().get_bit(n)
                & self.lane_threshold.val().any()
                & (self.score[n].q.val() >= self.lane_threshold.val())
            {
                self.remove.next = self.remove.val().replace_bit(n, true);
                self.rfound.next = true;
            }
        }
        // Remove a lane: new mask, ask for a replay with LaneMask, wait for the marker. The
        // last lane is not removed: the link fails instead and the trainer finds what works.
        self.new_mask.next = self.rx_mask.q.val() & !self.remove.val();
        if self.rfound.val() {
            for n in 0..4 {
                self.score[n].d.next = 0.into();
            }
            if self.lcount.q.val() > 1 {
                self.rx_mask.d.next = self.new_mask.val();
                self.lcount.d.next = self.lcount.q.val() - 1;
                self.c_removed.d.next = self.c_removed.q.val() + 1;
                self.wait_r.d.next = true;
                self.wtimer.d.next = 0.into();
                self.req.next = true;
                self.bad_valid.d.next = false;
                self.resizing.d.next = true;
            } else {
                self.o_fail.d.next = true;
            }
        }

        // Retry requests: one pulse, counted once, whatever asked for it. Those since the last
        // commit are fruitless; `retry_limit` of them fail the link (a stuck lane breaks every
        // LTP and marker, so only retraining without it helps).
        self.fr_next.next = self.fruitless.q.val();
        if self.commit.val() {
            self.fr_next.next = 0.into();
        }
        if self.req.val() {
            self.o_send_retry.d.next = true;
            if self.c_retries.q.val() != 0xffff {
                self.c_retries.d.next = self.c_retries.q.val() + 1;
            }
            if self.fr_next.val() != 0xff {
                self.fr_next.next = self.fr_next.val() + 1;
            }
        }
        self.fruitless.d.next = self.fr_next.val();
        if self.req.val()
            & self.retry_limit.val().any()
            & (self.fr_next.val() >= self.retry_limit.val())
        {
            self.o_fail.d.next = true;
            self.fruitless.d.next = 0.into();
        }

        // Bring-up: the far transmitter sends RetryMrkr first, so wait for it (no request; the
        // timer asks if that marker is lost). RESTART: the far end counts from 0 again.
        self.start_lanes.next = 0.into();
        for n in 0..4 {
            if self.start_mask.val().get_bit(n) {
                self.start_lanes.next = self.start_lanes.val() + 1;
            }
        }
        if self.start.val() {
            self.rx_mask.d.next = self.start_mask.val();
            self.lcount.d.next = self.start_lanes.val();
            self.wait_r.d.next = true;
            self.wtimer.d.next = 0.into();
            self.bad_valid.d.next = false;
            self.nm_valid.d.next = false;
            self.resizing.d.next = false;
            self.drain_cnt.d.next = 0.into();
            self.fruitless.d.next = 0.into();
            for n in 0..4 {
                self.score[n].d.next = 0.into();
            }
            if self.fresh_far.val() {
                self.expect_r.d.next = 0.into();
                self.in_seq.d.next = 0.into();
            }
        }

        if self.reset.val() {
            self.a_null.d.next = false;
            self.expect_r.d.next = 0.into();
            self.in_seq.d.next = 0.into();
            self.wait_r.d.next = false;
            self.wtimer.d.next = 0.into();
            self.seen_good.d.next = false;
            self.bad_valid.d.next = false;
            self.resizing.d.next = false;
            self.nm_valid.d.next = false;
            self.rx_mask.d.next = self.init_mask.val();
            self.lcount.d.next = self.init_lanes.val();
            self.drain_cnt.d.next = 0.into();
            self.fruitless.d.next = 0.into();
            self.o_fail.d.next = false;
            self.c_good.d.next = 0.into();
            self.c_nulls.d.next = 0.into();
            self.c_bad.d.next = 0.into();
            self.c_dup.d.next = 0.into();
            self.c_retries.d.next = 0.into();
            self.c_removed.d.next = 0.into();
            self.o_send_retry.d.next = false;
            self.o_send_echo.d.next = false;
            self.o_retry.d.next = false;
            self.o_echo.d.next = false;
            self.o_mask.d.next = false;
            for n in 0..4 {
                self.lane_err[n].d.next = 0.into();
                self.score[n].d.next = 0.into();
            }
            for v in 0..self.got_credits.len() {
                self.pend_cred[v].d.next = 0.into();
                self.o_cred[v].d.next = 0.into();
            }
        }
    }
}

#[test]
fn rx_link_is_synthesizable() {
    let mut uut = RxLink::<7>::new(2, 0xf, 1024);
    uut.connect_all();
    yosys_validate("rx_link", &generate_verilog(&uut)).unwrap();
}
