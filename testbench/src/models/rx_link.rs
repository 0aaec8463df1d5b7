//! Cycle-exact reference model of `hdl::llp::RxLink` at its ports, written from its documented
//! behaviour (`hdl/src/llp/rx/`, `docs/llp-design.md` "Receiver" items 3-5 and 7).
//!
//! [`RxLinkModel::outputs`] gives what the ports must show in a cycle (the staging writes and
//! the verdict's commit/rollback are combinational, everything else registered), and
//! [`RxLinkModel::edge`] advances over the clock edge. Payload outputs (`got_*_seq`,
//! `got_mask_val`, `wr_data`) are defined only while their pulse is high; [`RxOut`] carries them
//! as `Option`s. Per LTP attempt: flit 0 tells a null LTP (an LT flit) from a normal one; the
//! data flits of normal LTPs are written at once, CrdtRet credits of normal LTPs and LT
//! commands latched; at the end a good null LTP (intact, CRC difference 0) acts at once, a
//! good normal one (difference = incoming sequence number) commits if expected, is a duplicate
//! if older, everything else (and a stray transfer outside an end cycle) is bad: rolled back,
//! counted, and when not already waiting a retry request (repeated every `retry_timeout + 1`
//! cycles while waiting) and the group CRCs of the first intact bad LTP kept (when it came in
//! the place of the expected LTP), whose good copy names a lane when exactly one group differs
//! (the difference the copies' states make in XFR 32 taken out); the named lane is counted one
//! cycle later (a registered compare), at the mask of that cycle, unless a lane was removed in
//! between. Lane errors (named, or `lane_missing` outside a resize: from a lane removal to its
//! marker) count per physical lane in a total and a score; every `lane_drain` commits every
//! score drops by one (an error and a drop in the same cycle cancel); a score at
//! `lane_threshold` removes the lowest such lane while more than one is left, else pulses
//! `link_fail` (scores back to 0 either way). Retry requests since the last commit are counted;
//! reaching `retry_limit` pulses `link_fail` and restarts the count. While `up` is low the
//! deframer's inputs are ignored and the retry timer holds; `start` (nothing else acts in its
//! cycle) sets the mask, waits for a marker without a request, clears the kept bad LTP, the
//! naming, the resize, the scores and counts, rolls back, and with `fresh_far` zeroes the
//! sequence numbers.
use hdl::crc::CRC8;
use hdl::llp::lt::LtCode;
use hdl::llp::ltp::{sideband_credits, sideband_vc, STATE_SHIFT};

use crate::models::tx_link::{kind, Kind};

/// The CRC-8 of XFR 32 holding only the state bits `d` (XORed into the trailer's check at
/// `STATE_SHIFT`, XFR bits 29..28), from state 0: how a state difference between two copies
/// of an LTP changes the group CRC of XFR 32's group.
pub fn state_crc(d: u8) -> u32 {
    let mut g = CRC8.digest();
    g.update_word(((d & 3) as u128) << (16 + STATE_SHIFT), 32);
    g.finish() as u32
}

/// The end of an LTP attempt, as the deframer reports it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct End {
    /// Arrived whole and in order.
    pub intact: bool,
    /// CRC-14 of the flits and sideband XOR the trailer's check XOR the state at
    /// `STATE_SHIFT`.
    pub crc_diff: u16,
    /// Logical lane of XFR 0.
    pub state: u8,
    /// The trailer's credit sideband bits.
    pub sideband: u8,
    /// Per-group CRC-8s.
    pub gcrc: u32,
}

/// The inputs of one cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct RxIn {
    /// `flit_valid` with `flit_pos` and `flit`.
    pub flit: Option<(u8, u128)>,
    /// `ltp_end` with its record.
    pub end: Option<End>,
    /// `lane_missing`.
    pub lane_missing: u8,
    /// `stray`.
    pub stray: bool,
    /// `lane_threshold`.
    pub lane_threshold: u8,
    /// `up`.
    pub up: bool,
    /// `start` with (`fresh_far`, `start_mask`).
    pub start: Option<(bool, u8)>,
    /// `retry_limit`.
    pub retry_limit: u8,
    /// `lane_drain`.
    pub lane_drain: u16,
}

/// The outputs of one cycle (payloads only with their pulse).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RxOut {
    /// `mask`.
    pub mask: u8,
    /// `wr_valid` with `wr_data`.
    pub wr: Option<u128>,
    /// `commit`.
    pub commit: bool,
    /// `rollback`.
    pub rollback: bool,
    /// `got_retry` with `got_retry_seq`.
    pub got_retry: Option<u16>,
    /// `got_echo` with `got_echo_seq`.
    pub got_echo: Option<u16>,
    /// `got_mask` with `got_mask_val`.
    pub got_mask: Option<u8>,
    /// `got_credits[v]`.
    pub got_credits: Vec<u64>,
    /// `send_retry`.
    pub send_retry: bool,
    /// `send_echo`.
    pub send_echo: bool,
    /// `expect_seq`.
    pub expect_seq: u16,
    /// `ltps_good`.
    pub ltps_good: u64,
    /// `nulls_good`.
    pub nulls_good: u64,
    /// `ltps_bad`.
    pub ltps_bad: u64,
    /// `ltps_dup`.
    pub ltps_dup: u64,
    /// `retries`.
    pub retries: u64,
    /// `lane_errors`, per physical lane.
    pub lane_errors: [u64; 4],
    /// `lanes_removed`.
    pub lanes_removed: u64,
    /// `link_up`.
    pub link_up: bool,
    /// `waiting`.
    pub waiting: bool,
    /// `link_fail`.
    pub link_fail: bool,
}

/// The LT commands and credits latched from the LTP in progress.
#[derive(Clone, Debug, Default)]
struct Latched {
    rr: Option<u16>,
    mrkr: Option<u16>,
    rtm: bool,
    echo: Option<u16>,
    mask: Option<u8>,
    credits: Vec<u64>,
}

/// The model.
#[derive(Clone, Debug)]
pub struct RxLinkModel {
    vcs: usize,
    cw: usize,
    retry_timeout: u64,
    /// Lane mask after reset.
    init_mask: u8,
    a_null: bool,
    lat: Latched,
    /// Registered pulses of the next cycle.
    out_retry: Option<u16>,
    out_echo: Option<u16>,
    out_mask: Option<u8>,
    out_credits: Vec<u64>,
    out_send_retry: bool,
    out_send_echo: bool,
    /// Next expected sequence number (16 bits).
    pub expect: u16,
    /// Sequence number of the next normal LTP (16 bits).
    pub in_seq: u16,
    /// Waiting for a retry marker.
    pub wait: bool,
    wtimer: u64,
    seen_good: bool,
    /// The first intact bad LTP: sequence number, group CRCs, state.
    pub bad: Option<(u16, u32, u8)>,
    /// Active physical lanes.
    pub mask: u8,
    /// From a lane removal to the marker that follows it.
    pub resizing: bool,
    /// A naming registered last cycle: the bad copy's state and the differing group.
    named: Option<(u8, u8)>,
    lane_err: [u64; 4],
    /// Lane scores.
    pub score: [u64; 4],
    /// Commits since the last drain step.
    pub drain_cnt: u64,
    /// Retry requests since the last commit.
    pub fruitless: u64,
    out_fail: bool,
    good: u64,
    nulls: u64,
    bads: u64,
    dups: u64,
    retries: u64,
    removed: u64,
    /// Count the retry request of a lane removal in `retries` (as documented: "retry requests
    /// made").
    pub count_removal_retry: bool,
}

/// What the verdict of an end is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A good null LTP.
    Null,
    /// A good normal LTP, committed.
    Commit,
    /// A good normal LTP, older than expected: dropped.
    Dup,
    /// A good normal LTP while waiting for a marker: dropped.
    Ignored,
    /// Bad.
    Bad,
}

impl RxLinkModel {
    /// After reset: `vcs` VCs, credit width `cw`, lanes `mask`, retry timeout.
    pub fn new(vcs: usize, cw: usize, mask: u8, retry_timeout: u64) -> Self {
        Self {
            vcs,
            cw,
            retry_timeout,
            init_mask: mask,
            a_null: false,
            lat: Latched {
                credits: vec![0; vcs],
                ..Default::default()
            },
            out_retry: None,
            out_echo: None,
            out_mask: None,
            out_credits: vec![0; vcs],
            out_send_retry: false,
            out_send_echo: false,
            expect: 0,
            in_seq: 0,
            wait: false,
            wtimer: 0,
            seen_good: false,
            bad: None,
            mask,
            resizing: false,
            named: None,
            lane_err: [0; 4],
            score: [0; 4],
            drain_cnt: 0,
            fruitless: 0,
            out_fail: false,
            good: 0,
            nulls: 0,
            bads: 0,
            dups: 0,
            retries: 0,
            removed: 0,
            count_removal_retry: true,
        }
    }

    /// A reset edge: as after [`RxLinkModel::new`] (sequence numbers 0, the initial lanes,
    /// counters and pulses cleared, no retry pending).
    pub fn reset(&mut self) {
        let count_removal_retry = self.count_removal_retry;
        *self = Self::new(self.vcs, self.cw, self.init_mask, self.retry_timeout);
        self.count_removal_retry = count_removal_retry;
    }

    fn lanes(&self) -> u8 {
        self.mask.count_ones() as u8
    }

    /// A data flit (written to staging): everything but Idle, CrdtRet and LT flits.
    fn is_data(f: u128) -> bool {
        !matches!(kind(f), Kind::Idle | Kind::Credit(..) | Kind::Lt(_))
    }

    /// Does this cycle's flit belong to a null LTP?
    fn null_now(&self, i: &RxIn) -> bool {
        match i.flit {
            Some((0, f)) => matches!(kind(f), Kind::Lt(_)),
            _ => self.a_null,
        }
    }

    /// The inputs as the block sees them: the deframer's only while up and not starting.
    fn live(i: &RxIn) -> RxIn {
        let mut g = *i;
        if !i.up || i.start.is_some() {
            g.flit = None;
            g.end = None;
            g.lane_missing = 0;
            g.stray = false;
        }
        g
    }

    /// The verdict of this cycle's end, if any.
    pub fn verdict(&self, i: &RxIn) -> Option<Verdict> {
        let e = Self::live(i).end?;
        Some(if e.intact && self.a_null && e.crc_diff == 0 {
            Verdict::Null
        } else if e.intact && !self.a_null && e.crc_diff == self.in_seq & 0x3fff {
            if self.wait {
                Verdict::Ignored
            } else if self.in_seq == self.expect {
                Verdict::Commit
            } else {
                Verdict::Dup
            }
        } else {
            Verdict::Bad
        })
    }

    /// The outputs in a cycle with inputs `i`.
    pub fn outputs(&self, i: &RxIn) -> RxOut {
        let i = &Self::live(i);
        let wr = match i.flit {
            Some((_, f)) if Self::is_data(f) && !self.null_now(i) => Some(f),
            _ => None,
        };
        let v = self.verdict(i);
        let commit = v == Some(Verdict::Commit);
        RxOut {
            mask: self.mask,
            wr,
            commit,
            rollback: (v.is_some() && !commit) || i.start.is_some(),
            got_retry: self.out_retry,
            got_echo: self.out_echo,
            got_mask: self.out_mask,
            got_credits: self.out_credits.clone(),
            send_retry: self.out_send_retry,
            send_echo: self.out_send_echo,
            expect_seq: self.expect,
            ltps_good: self.good & 0xffff_ffff,
            nulls_good: self.nulls & 0xffff_ffff,
            ltps_bad: self.bads & 0xffff_ffff,
            ltps_dup: self.dups & 0xffff_ffff,
            retries: self.retries.min(0xffff),
            lane_errors: self.lane_err,
            lanes_removed: self.removed,
            link_up: self.seen_good && !self.wait,
            waiting: self.wait,
            link_fail: self.out_fail,
        }
    }

    /// One clock edge with inputs `i`; returns the verdict of the end in this cycle.
    pub fn edge(&mut self, i: &RxIn) -> Option<Verdict> {
        let live = i.up && i.start.is_none();
        let i = &Self::live(i);
        let v = self.verdict(i);
        let null_now = self.null_now(i);
        let old = self.clone();
        self.out_retry = None;
        self.out_echo = None;
        self.out_mask = None;
        self.out_credits = vec![0; self.vcs];
        self.out_send_retry = false;
        self.out_send_echo = false;
        self.out_fail = false;

        // Latch the LTP's commands and credits (flit 0 clears them).
        if let Some((pos, f)) = i.flit {
            if pos == 0 {
                self.a_null = matches!(kind(f), Kind::Lt(_));
                self.lat = Latched {
                    credits: vec![0; self.vcs],
                    ..Default::default()
                };
            }
            match kind(f) {
                Kind::Lt(_) => {
                    let c = hdl::formats::flit::CODE.get(f) as u8;
                    let x = f as u16;
                    match LtCode::from_control_code(c) {
                        Some(LtCode::RetryReq) => self.lat.rr = Some(x),
                        Some(LtCode::RetryMrkr) => self.lat.mrkr = Some(x),
                        Some(LtCode::RndTripMrkr) => self.lat.rtm = true,
                        Some(LtCode::RndTripEcho) => self.lat.echo = Some(x),
                        Some(LtCode::LaneMask) => self.lat.mask = Some(x as u8 & 0xf),
                        _ => {}
                    }
                }
                Kind::Credit(vc, n) if !null_now && (vc as usize) < self.vcs => {
                    let n = n & ((1 << self.cw) - 1);
                    let c = &mut self.lat.credits[vc as usize];
                    *c = (*c + n) & ((1 << self.cw) - 1);
                }
                _ => {}
            }
        }

        // The verdict.
        let lat = &old.lat;
        match v {
            Some(Verdict::Null) => {
                self.seen_good = true;
                self.nulls += 1;
                if let Some(s) = lat.mrkr {
                    if old.expect.wrapping_sub(s) < 1024 {
                        self.in_seq = s;
                        self.wait = false;
                        self.resizing = false;
                    }
                }
                self.out_retry = lat.rr;
                self.out_mask = lat.mask;
                self.out_echo = lat.echo;
                self.out_send_echo = lat.rtm;
            }
            Some(Verdict::Commit) | Some(Verdict::Dup) => {
                self.seen_good = true;
                self.in_seq = old.in_seq.wrapping_add(1);
                if v == Some(Verdict::Commit) {
                    self.expect = old.expect.wrapping_add(1);
                    self.good += 1;
                    self.out_credits = lat.credits.clone();
                    // The sideband's credits go to VC `sequence mod P` (`ltp::sideband_vc`).
                    if let (Some(e), Some(vc)) = (i.end, sideband_vc(old.in_seq as u64, self.vcs)) {
                        self.out_credits[vc] += sideband_credits(e.sideband) as u64;
                    }
                    self.out_echo = lat.echo;
                    self.out_send_echo = lat.rtm;
                } else {
                    self.dups += 1;
                }
            }
            _ => {}
        }
        let bad_now = v == Some(Verdict::Bad) || (i.stray && i.end.is_none());
        // Retry requests of this cycle: one pulse, counted once, whatever asked for it.
        let mut request = false;
        if bad_now {
            self.bads += 1;
            if !old.wait {
                self.wait = true;
                self.wtimer = 0;
                request = true;
                if let Some(e) = i.end {
                    // Only in the place of the expected LTP: the replay brings its copy.
                    if e.intact && old.bad.is_none() && old.in_seq == old.expect {
                        self.bad = Some((old.in_seq, e.gcrc, e.state));
                    }
                }
            }
        }
        if old.wait && live {
            self.wtimer = old.wtimer + 1;
            if old.wtimer == self.retry_timeout {
                self.wtimer = 0;
                request = true;
            }
        }

        // Lane naming: the good copy of the stored bad LTP.
        let l = old.lanes();
        let mut lane_inc = if old.resizing {
            0
        } else {
            i.lane_missing & old.mask
        };
        self.named = None;
        if let Some((state, m)) = old.named {
            if !old.resizing && live {
                lane_inc |= 1 << Self::physical(old.mask, (state + m) % l);
            }
        }
        if matches!(v, Some(Verdict::Commit) | Some(Verdict::Dup)) {
            if let Some((seq, gcrc, state)) = old.bad {
                if seq == old.in_seq {
                    self.bad = None;
                    let e = i.end.unwrap();
                    // The copies' states differ in XFR 32, the last XFR of group 32 mod L.
                    let gcrc = gcrc ^ state_crc(state ^ e.state) << (8 * (32 % l as u32));
                    let diff: Vec<u8> = (0..l)
                        .filter(|&m| (gcrc >> (8 * m)) as u8 != (e.gcrc >> (8 * m)) as u8)
                        .collect();
                    if diff.len() == 1 {
                        self.named = Some((state, diff[0]));
                    }
                }
            }
        }
        let commit = v == Some(Verdict::Commit);
        let mut drain = false;
        if commit && i.lane_drain != 0 {
            self.drain_cnt = old.drain_cnt + 1;
            if old.drain_cnt + 1 >= i.lane_drain as u64 {
                drain = true;
                self.drain_cnt = 0;
            }
        }
        let mut remove = None;
        for n in 0..4 {
            let inc = lane_inc >> n & 1 == 1;
            if inc {
                self.lane_err[n] = (old.lane_err[n] + 1).min(0xffff);
            }
            if inc && !drain {
                self.score[n] = (old.score[n] + 1).min(0xff);
            }
            if drain && !inc {
                self.score[n] = old.score[n].saturating_sub(1);
            }
            if remove.is_none()
                && live
                && old.mask >> n & 1 == 1
                && i.lane_threshold != 0
                && old.score[n] >= i.lane_threshold as u64
            {
                remove = Some(n);
            }
        }
        if let Some(n) = remove {
            self.score = [0; 4];
            if l > 1 {
                self.mask = old.mask & !(1 << n);
                self.removed += 1;
                self.wait = true;
                self.wtimer = 0;
                self.out_send_retry = true;
                request |= self.count_removal_retry;
                self.bad = None;
                self.resizing = true;
            } else {
                self.out_fail = true;
            }
        }
        let mut fr = if commit { 0 } else { old.fruitless };
        if request {
            self.out_send_retry = true;
            self.retries = (self.retries + 1).min(0xffff);
            fr = (fr + 1).min(0xff);
        }
        self.fruitless = fr;
        if request && i.retry_limit != 0 && fr >= i.retry_limit as u64 {
            self.out_fail = true;
            self.fruitless = 0;
        }
        if let Some((fresh, mask)) = i.start {
            self.mask = mask;
            self.wait = true;
            self.wtimer = 0;
            self.bad = None;
            self.named = None;
            self.resizing = false;
            self.drain_cnt = 0;
            self.fruitless = 0;
            self.score = [0; 4];
            if fresh {
                self.expect = 0;
                self.in_seq = 0;
            }
        }
        v
    }

    /// The physical lane of logical lane `logical` at `mask`.
    pub fn physical(mask: u8, logical: u8) -> usize {
        (0..4)
            .filter(|n| mask >> n & 1 == 1)
            .nth(logical as usize)
            .expect("logical lane beyond the mask")
    }
}
