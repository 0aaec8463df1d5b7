//! RxLink alone at its ports, against `testbench::models::rx_link` (cycle-exact on every
//! output) and against what a far-end transmitter model sent (transaction level).
//!
//! The far end builds normal LTPs (numbered from 0, kept for replay) of data flits from
//! random packets on 2 VCs (VlMrkrs at VC changes), Idle, CrdtRet flits (several per LTP),
//! RndTripMrkr and RndTripEcho flits, and null LTPs (Null or RetryMrkr in flit 0, with random
//! RetryReq, LaneMask, RndTripEcho and poll flits; sometimes a CrdtRet or a data flit, which
//! TxLink never puts there and RxLink must ignore). They reach the block as an LtpDeframer
//! presents them: 16 flits with random gaps, then the end (CRC difference = sequence number for
//! a normal LTP and 0 for a null LTP as `hdl::llp::ltp::ltp_crc` computes it from the received
//! flits, the state, the group CRCs of `models::ltp_deframer::group_crcs`), the next LTP's
//! flit 0 at the earliest in the end's cycle. The far end answers `send_retry` after a random
//! delay with RetryMrkr(`expect_seq`) and a replay from there (or loses the request), replays
//! spontaneously from slightly older sequence numbers (duplicates), and follows lane removals
//! (its LTPs arrive broken until it has seen the request with the new mask).
//!
//! Faults: a flipped bit (bad CRC difference, group CRCs differing in exactly the group of the
//! flipped XFR), `end_intact` low after part of the flits, an LTP never presented, stray pulses,
//! `lane_missing` pulses. Phases: random faults with lane errors at most two per window
//! (`lane_threshold` 3: no lane may be removed); a burst of three bit errors on one chosen
//! physical lane (the lane is removed, 4 to 3 lanes); random faults again at 3 lanes; a burst
//! of three `lane_missing` pulses on one lane (3 to 2 lanes); a clean drain.
//!
//! Transaction-level checks, from the far end's knowledge only: the staging writes with
//! commit/rollback (applied to a staging model) yield exactly the data flits of LTPs 0, 1, 2,
//! ... each once; a commit happens only at the end of an intact copy of the next LTP; the LT
//! outputs in the cycle after an end are exactly the commands of that LTP when it was a good
//! null LTP or was committed, and nothing otherwise; `send_retry` always names the first missing
//! LTP and comes at least every `retry_timeout + 1` cycles while waiting; the lane error counts
//! are the `lane_missing` pulses on active lanes plus one on the lane the flipped bit travelled
//! on (group `m` of an LTP at state `s` on logical lane `(s + m) mod L`) when its good copy
//! arrives; removals happen only in the bursts, on the chosen lane, with a retry request.
//!
//! Reset (its doc: "sequence numbers 0, all lanes of the initial mask"; its counters and
//! pulses are registers cleared by it too): in the first random-fault phase, 1-3 cycle pulses at
//! random moments (the shared [`ResetSchedule`]), with LTPs in progress. In the first cycle
//! after each, `expect_seq` must be 0, `mask` the initial mask, every counter, lane error count
//! and pulse zero, `link_up` and `waiting` low. The far end restarts with it (sequence numbers
//! from 0, the LTP it was presenting abandoned, as when both ends of a link reset), and the run
//! goes on against the reset model and a fresh scoreboard. The flit and end payloads are
//! random while their valid is low.
#![allow(clippy::needless_range_loop)] // lanes and VCs are indexed by number
use hdl::formats::flit::{ControlCode, Flit};
use hdl::llp::lt::LtCode;
use hdl::llp::ltp::{
    ltp_crc, ltp_to_xfrs, sideband_credits, sideband_vc, trailer, xfrs_to_ltp, LTP_FLITS,
    SIDEBAND_SHIFT, STATE_SHIFT,
};
use hdl::llp::rx::RxLink;
use std::collections::VecDeque;
use testbench::models::formats::random_header;
use testbench::models::ltp_deframer::group_crcs;
use testbench::models::rx_link::{End, RxIn, RxLinkModel, RxOut};
use testbench::models::tx_link::{kind, Kind};
use testbench::reset::ResetSchedule;
use testbench::rhdl::SimValue;
use testbench::{port_table, run_both_seeds, Backend, BenchRng, PortId, PortTable};

pub(super) const CW: usize = 13;
pub(super) const VCS: usize = 2;
pub(super) const RETRY_TIMEOUT: u64 = 64;
pub(super) type Dut = RxLink<CW>;

pub(super) fn table() -> PortTable<Dut> {
    let mut t = port_table!(Dut; reset, deframed.flit, deframed.flit_valid, deframed.flit_pos,
        deframed.end_valid, deframed.end_intact, deframed.end_crc_diff, deframed.end_state, deframed.end_sideband,
        deframed.end_gcrc, deframed.lane_missing, deframed.stray, to_tx.mask, wr_valid, wr_data,
        commit, rollback, to_tx.got_retry, to_tx.got_retry_seq, to_tx.got_echo,
        to_tx.got_echo_seq, to_tx.got_mask, to_tx.got_mask_val, to_tx.send_retry,
        to_tx.send_echo, to_tx.expect_seq, lane_threshold, up, start, fresh_far, start_mask,
        retry_limit, lane_drain, link_fail, ltps_good, nulls_good, ltps_bad, ltps_dup, retries,
        lane_errors, lanes_removed, link_up, waiting);
    for i in 0..VCS {
        t.add(
            format!("got_credits${i}"),
            move |x: &mut Dut, v| x.got_credits[i].next = SimValue::from_u128(v),
            move |x: &Dut| SimValue::to_u128(&x.got_credits[i].val()),
        );
    }
    t
}

/// What happens to an LTP on its way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    None,
    /// Bit `bit` (of the 1056) flipped: arrives intact with a wrong CRC difference.
    Flip(usize),
    /// Only the first `n` flits arrive, the end says not intact.
    Cut(usize),
    /// Never arrives.
    Drop,
}

/// An LTP attempt as the deframer presents it.
#[derive(Clone, Debug)]
struct Attempt {
    /// Flits as sent.
    flits: [u128; LTP_FLITS],
    /// Sequence number of a normal LTP.
    seq: Option<u64>,
    fault: Fault,
    /// Flits presented and the end record.
    shown: Vec<u128>,
    end: End,
    /// Physical lane the flipped bit travelled on.
    lane: Option<usize>,
}

/// The far end's transmitter.
struct FarTx {
    /// Normal LTPs by sequence number.
    ltps: Vec<[u128; LTP_FLITS]>,
    /// Next normal LTP to send.
    ptr: u64,
    /// Null LTPs to send before the next normal one.
    nulls: VecDeque<[u128; LTP_FLITS]>,
    /// Lanes it sends on (it learns a removal from the retry request).
    mask: u8,
    /// Per VC, flits of packets not yet placed; the VC the far receiver heard last.
    packets: Vec<VecDeque<u128>>,
    vc: usize,
}

fn lt(c: LtCode, x: u64) -> u128 {
    c.flit(x as u32)
}

impl FarTx {
    fn new(mask: u8) -> Self {
        Self {
            ltps: vec![],
            ptr: 0,
            nulls: VecDeque::new(),
            mask,
            packets: vec![VecDeque::new(); VCS],
            vc: 0,
        }
    }

    fn data_flit(&mut self, rng: &mut BenchRng) -> u128 {
        let v = if rng.chance(0.3) {
            rng.range(0, VCS as u64 - 1) as usize
        } else {
            self.vc
        };
        if self.packets[v].is_empty() {
            let len = rng.range(2, 6);
            let mut h = random_header(rng, len as u8);
            h.vc = v as u8;
            self.packets[v].push_back(Flit::Head(h).pack());
            for _ in 0..len - 2 {
                self.packets[v].push_back(Flit::Body(rng.bits(64) as u64).pack());
            }
            self.packets[v].push_back(
                Flit::Tail {
                    crc16: rng.bits(16) as u16,
                }
                .pack(),
            );
        }
        let f = self.packets[v][0];
        if v != self.vc && !matches!(kind(f), Kind::Head(_)) {
            self.vc = v;
            return Flit::Control {
                code: ControlCode::VlMrkr,
                vc: v as u8,
                credits: 0,
                orig: 0,
            }
            .pack();
        }
        self.vc = v;
        self.packets[v].pop_front().unwrap()
    }

    /// A new normal LTP `seq`.
    fn build(&mut self, rng: &mut BenchRng, seq: u64) -> [u128; LTP_FLITS] {
        let mut f = [0u128; LTP_FLITS];
        let (mut mrkr, mut echo) = (false, false);
        for i in 0..LTP_FLITS {
            let r = rng.range(0, 99);
            f[i] = if r < 60 {
                self.data_flit(rng)
            } else if r < 72 {
                0
            } else if r < 86 {
                Flit::credit_return(rng.range(0, VCS as u64 - 1) as u8, rng.range(1, 20) as u16)
                    .pack()
            } else if r < 93 && i > 0 && !mrkr {
                mrkr = true;
                lt(LtCode::RndTripMrkr, seq)
            } else if i > 0 && !echo {
                echo = true;
                lt(LtCode::RndTripEcho, rng.bits(16) as u64)
            } else {
                0
            };
        }
        f
    }

    /// A null LTP: RetryMrkr(`mrkr`) or Null, random commands.
    fn null(rng: &mut BenchRng, mrkr: Option<u64>) -> [u128; LTP_FLITS] {
        let mut f = [0u128; LTP_FLITS];
        f[0] = match mrkr {
            Some(s) => lt(LtCode::RetryMrkr, s),
            None => lt(LtCode::Null, 0),
        };
        if rng.chance(0.4) {
            f[1] = lt(LtCode::RetryReq, rng.bits(16) as u64);
            f[2] = lt(LtCode::LaneMask, rng.range(1, 15));
        }
        if rng.chance(0.4) {
            f[3] = lt(LtCode::RndTripEcho, rng.bits(16) as u64);
        }
        if rng.chance(0.3) {
            f[4] = lt(LtCode::RndTripMrkr, rng.bits(16) as u64);
        }
        // Never sent by TxLink, ignored by RxLink: credits and data in a null LTP.
        if rng.chance(0.2) {
            f[rng.range(5, 9) as usize] =
                Flit::credit_return(rng.range(0, VCS as u64 - 1) as u8, rng.range(1, 20) as u16)
                    .pack();
        }
        if rng.chance(0.1) {
            f[rng.range(10, 15) as usize] = Flit::Body(rng.bits(64) as u64).pack();
        }
        f
    }

    /// The next LTP to send (`None`: nothing, when no new LTP may be built).
    fn next(&mut self, rng: &mut BenchRng, new: bool) -> Option<([u128; LTP_FLITS], Option<u64>)> {
        if let Some(n) = self.nulls.pop_front() {
            return Some((n, None));
        }
        if rng.chance(0.06) {
            return Some((Self::null(rng, None), None));
        }
        let s = self.ptr;
        if s as usize == self.ltps.len() {
            if !new {
                return None;
            }
            let l = self.build(rng, s);
            self.ltps.push(l);
        }
        self.ptr += 1;
        Some((self.ltps[s as usize], Some(s)))
    }

    /// Replay from `s` after a null LTP with RetryMrkr(s).
    fn replay(&mut self, rng: &mut BenchRng, s: u64) {
        self.nulls.push_back(Self::null(rng, Some(s)));
        self.ptr = s;
    }
}

/// The data flits of an LTP (what staging must receive of it).
fn data(flits: &[u128]) -> Vec<u128> {
    flits
        .iter()
        .copied()
        .filter(|&f| !matches!(kind(f), Kind::Idle | Kind::Credit(..) | Kind::Lt(_)))
        .collect()
}

/// The LT outputs a good LTP causes: (retry, echo, mask, credits, send_echo); only echo,
/// credits and send_echo for a normal LTP.
fn lt_outputs(flits: &[u128; LTP_FLITS], null: bool) -> RxOut {
    let mut o = RxOut {
        got_credits: vec![0; VCS],
        ..Default::default()
    };
    for &f in flits {
        match kind(f) {
            Kind::Lt(Some((LtCode::RetryReq, x))) if null => o.got_retry = Some(x as u16),
            Kind::Lt(Some((LtCode::LaneMask, x))) if null => o.got_mask = Some(x as u8 & 0xf),
            Kind::Lt(Some((LtCode::RndTripEcho, x))) => o.got_echo = Some(x as u16),
            Kind::Lt(Some((LtCode::RndTripMrkr, _))) => o.send_echo = true,
            Kind::Credit(v, n) if !null => o.got_credits[v as usize] += n,
            _ => {}
        }
    }
    o
}

/// Phases of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Random faults, lane errors spread out.
    Spread,
    /// Quiet for a window (lane counts reset), then three bit errors on `lane`.
    FlipBurst,
    /// Three `lane_missing` pulses on a lane.
    MissBurst,
    /// No faults; everything delivered.
    Drain,
}

/// The block's ports (also used by the targeted benches of `rxup`).
pub(super) struct Ports {
    pub(super) reset: PortId,
    pub(super) flit: PortId,
    pub(super) flit_valid: PortId,
    pub(super) flit_pos: PortId,
    pub(super) end: [PortId; 6],
    pub(super) lane_missing: PortId,
    pub(super) stray: PortId,
    pub(super) threshold: PortId,
    pub(super) up: PortId,
    pub(super) start: PortId,
    pub(super) fresh_far: PortId,
    pub(super) start_mask: PortId,
    pub(super) retry_limit: PortId,
    pub(super) lane_drain: PortId,
    pub(super) outs: Vec<PortId>,
}

/// Output ports, in the order `read` expects.
pub(super) const OUTS: [&str; 26] = [
    "to_tx$mask",
    "wr_valid",
    "wr_data",
    "commit",
    "rollback",
    "to_tx$got_retry",
    "to_tx$got_retry_seq",
    "to_tx$got_echo",
    "to_tx$got_echo_seq",
    "to_tx$got_mask",
    "to_tx$got_mask_val",
    "to_tx$send_retry",
    "to_tx$send_echo",
    "to_tx$expect_seq",
    "ltps_good",
    "nulls_good",
    "ltps_bad",
    "ltps_dup",
    "retries",
    "lane_errors",
    "lanes_removed",
    "link_up",
    "waiting",
    "got_credits$0",
    "got_credits$1",
    "link_fail",
];

pub(super) fn read(b: &mut dyn Backend, p: &Ports) -> RxOut {
    let v: Vec<u128> = p.outs.iter().map(|&o| b.peek(o)).collect();
    let opt = |valid: u128, x: u128| if valid != 0 { Some(x) } else { None };
    RxOut {
        mask: v[0] as u8,
        wr: opt(v[1], v[2]),
        commit: v[3] != 0,
        rollback: v[4] != 0,
        got_retry: opt(v[5], v[6]).map(|x| x as u16),
        got_echo: opt(v[7], v[8]).map(|x| x as u16),
        got_mask: opt(v[9], v[10]).map(|x| x as u8),
        send_retry: v[11] != 0,
        send_echo: v[12] != 0,
        expect_seq: v[13] as u16,
        ltps_good: v[14] as u64,
        nulls_good: v[15] as u64,
        ltps_bad: v[16] as u64,
        ltps_dup: v[17] as u64,
        retries: v[18] as u64,
        lane_errors: std::array::from_fn(|n| ((v[19] >> (16 * n)) & 0xffff) as u64),
        lanes_removed: v[20] as u64,
        link_up: v[21] != 0,
        waiting: v[22] != 0,
        got_credits: vec![v[23] as u64, v[24] as u64],
        link_fail: v[25] != 0,
    }
}

/// What a run did (equal on both backends).
#[derive(Debug, PartialEq, Default)]
struct Outcome {
    cycles: u64,
    ltps: u64,
    /// Final status outputs.
    status: RxOut,
    /// Faults injected: flips, cuts, drops, strays, missing pulses.
    faults: [u64; 5],
    /// Lanes named by group CRCs.
    named: u64,
    /// Retry requests the far end ignored.
    lost: u64,
    /// Spontaneous replays (duplicates).
    stale_replays: u64,
    /// Ends in the same cycle as the next LTP's flit 0.
    overlaps: u64,
    /// Link downs; bring-ups that resumed, that restarted; `link_fail` pulses; lanes removed
    /// outside the bursts (while the settings are random).
    downs: u64,
    resumes: u64,
    restarts: u64,
    fails: u64,
    churn_removed: u64,
}

fn phys(mask: u8, logical: usize) -> usize {
    RxLinkModel::physical(mask, logical as u8)
}

/// Presents `flits` (sent with `xor` in the trailer, at sequence state `state`, `lanes` lanes)
/// after `fault`: the flits shown and the end record.
fn arrive(
    rng: &mut BenchRng,
    flits: &[u128; LTP_FLITS],
    xor: u16,
    state: u8,
    mask: u8,
    fault: Fault,
) -> (Vec<u128>, End, Option<usize>) {
    let l = mask.count_ones() as usize;
    // Credit sideband bits that vary from LTP to LTP but are the same in every copy of one (a
    // replay carries the sideband kept with the LTP): the model returns their credits on a
    // commit.
    let sideband = ((flits[0] ^ flits[15] >> 7) & 3) as u8;
    let mut x = ltp_to_xfrs(
        flits,
        trailer(ltp_crc(flits, sideband) ^ xor, state, sideband),
    );
    let mut lane = None;
    match fault {
        Fault::Cut(n) => {
            let end = End {
                intact: false,
                crc_diff: rng.bits(14) as u16,
                state: rng.range(0, l as u64 - 1) as u8,
                sideband: rng.bits(2) as u8,
                gcrc: rng.bits(32) as u32,
            };
            return (flits[..n].to_vec(), end, None);
        }
        Fault::Flip(bit) => {
            x[bit / 32] ^= 1 << (bit % 32);
            let m = (bit / 32) % l;
            lane = Some(phys(mask, (state as usize + m) % l));
        }
        _ => {}
    }
    let (got, tr) = xfrs_to_ltp(&x);
    let got_sideband = (tr >> SIDEBAND_SHIFT) as u8;
    let end = End {
        intact: true,
        crc_diff: (ltp_crc(&got, got_sideband) ^ tr ^ (state as u16) << STATE_SHIFT) & 0x3fff,
        state,
        sideband: got_sideband,
        gcrc: group_crcs(&x, l),
    };
    (got.to_vec(), end, lane)
}

/// A bit to flip that travels on physical `lane` at `state` (XFRs 3..=32, the trailer's check
/// and sideband included), or anywhere if `lane` is `None`.
fn flip_bit(rng: &mut BenchRng, mask: u8, state: u8, lane: Option<usize>) -> usize {
    let l = mask.count_ones() as usize;
    loop {
        let bit = rng.range(3 * 32, 1055) as usize;
        let m = (bit / 32) % l;
        if lane.is_none_or(|p| phys(mask, (state as usize + m) % l) == p) {
            return bit;
        }
    }
}

fn bench(b: &mut dyn Backend, seed: u64, spread: u64) -> Outcome {
    let mut rng = BenchRng::new(seed);
    let ports = Ports {
        reset: b.port("reset"),
        flit: b.port("deframed$flit"),
        flit_valid: b.port("deframed$flit_valid"),
        flit_pos: b.port("deframed$flit_pos"),
        end: [
            b.port("deframed$end_valid"),
            b.port("deframed$end_intact"),
            b.port("deframed$end_crc_diff"),
            b.port("deframed$end_state"),
            b.port("deframed$end_gcrc"),
            b.port("deframed$end_sideband"),
        ],
        lane_missing: b.port("deframed$lane_missing"),
        stray: b.port("deframed$stray"),
        threshold: b.port("lane_threshold"),
        up: b.port("up"),
        start: b.port("start"),
        fresh_far: b.port("fresh_far"),
        start_mask: b.port("start_mask"),
        retry_limit: b.port("retry_limit"),
        lane_drain: b.port("lane_drain"),
        outs: OUTS.iter().map(|n| b.port(n)).collect(),
    };
    let init_mask = 0b1111u8;
    let mut model = RxLinkModel::new(VCS, CW, init_mask, RETRY_TIMEOUT);
    let mut far = FarTx::new(init_mask);
    let mut out = Outcome::default();
    b.poke_bool(ports.reset, true);
    b.poke_bool(ports.flit_valid, false);
    b.poke_bool(ports.end[0], false);
    b.poke_bool(ports.stray, false);
    b.poke(ports.lane_missing, 0);
    b.tick();
    b.poke_bool(ports.reset, false);
    // Lane events at least half a window apart (a window: 300 cycles).
    let spread_window = 300u64;
    // Settings: random in the first random-fault phase (the churn, with link downs and
    // bring-ups), no removal in the second, threshold 3 in the bursts.
    let (mut threshold, mut drain, mut limit) = (3u8, 16u16, 0u8);
    // The link: up, the cycles it stays down, a down asked for at a cycle, a full-width
    // bring-up needed before the bursts.
    let mut up = false;
    let mut down_left = rng.range(1, 10);
    let mut down_at: Option<u64> = None;
    let mut first_start = true;
    let mut need_full = false;
    let mut burst_armed = false;

    // Presentation: the attempt being shown and its next flit, the gap before the next one,
    // the pending end.
    let mut cur: Option<(Attempt, usize)> = None;
    let mut gap = 0u64;
    let mut end_due: Option<(u64, Attempt)> = None;
    // Far end reactions to retry requests.
    let mut reactions: VecDeque<u64> = VecDeque::new();
    // Staging model: flits written since the last commit/rollback; LTPs delivered.
    let mut pending: Vec<u128> = vec![];
    let mut committed = 0u64;
    // Expected LT outputs and lane error counts in the current cycle.
    let mut lt_now = lt_outputs(&[0; LTP_FLITS], true);
    let mut lanes_now = [0u64; 4];
    let mut named_next: Option<usize> = None;
    // A flipped LTP in flight, and one whose good copy must name `lane`: (seq, lane).
    let mut flip_inflight = false;
    let mut flipped: Option<(u64, usize)> = None;
    let mut last_lane_event = 0u64;
    let mut last_retry = 0u64;
    let mut removed_at: Vec<(u64, usize)> = vec![];
    let mut phase = Phase::Spread;
    let mut phase_start = 0u64;
    let mut target = 0usize;
    let mut t = 0u64;
    let mut started_prev = false;
    let mut prev = RxOut {
        mask: init_mask,
        ..Default::default()
    };
    // What the block shows right after reset (the staging outputs follow the inputs).
    let after_reset = RxOut {
        mask: init_mask,
        got_credits: vec![0; VCS],
        ..Default::default()
    };
    // Resets only before the first removal: the burst phases count removals.
    let mut sched = ResetSchedule::new(&mut rng, 6000);
    loop {
        let rst = sched.next_if(&mut rng, phase == Phase::Spread && removed_at.is_empty());
        b.poke_bool(ports.reset, rst);
        let dut_mask = model.mask;
        let l = dut_mask.count_ones() as usize;
        // Phases.
        let next_phase = match phase {
            Phase::Spread
                if t - phase_start > spread
                    && removed_at.is_empty()
                    && up
                    && model.mask.count_ones() >= 3 =>
            {
                Some(Phase::FlipBurst)
            }
            Phase::FlipBurst if removed_at.len() == 1 && !prev.waiting => Some(Phase::Spread),
            Phase::Spread if t - phase_start > spread / 2 && removed_at.len() == 1 => {
                Some(Phase::MissBurst)
            }
            Phase::MissBurst if removed_at.len() == 2 && !prev.waiting => Some(Phase::Drain),
            _ => None,
        };
        if let Some(p) = next_phase {
            phase = p;
            phase_start = t;
            target = phys(dut_mask, rng.range(0, l as u64 - 1) as usize);
            burst_armed = false;
        }
        let churn = phase == Phase::Spread && removed_at.is_empty();
        if churn && t.is_multiple_of(1500) {
            threshold = [0, 2, 3, 4, 6][rng.range(0, 4) as usize];
            drain = [0, 1, 2, 4, 8, 16, 32][rng.range(0, 6) as usize];
            limit = [0, 1, 2, 3, 5, 8][rng.range(0, 5) as usize];
        }
        if churn && t - phase_start > spread && (!up || model.mask.count_ones() < 3) {
            need_full = true;
        }

        // Link down and up (the trainer's part): at random, after a link_fail, and for a
        // full-width link before the bursts.
        let mut start = None;
        let mut going_down = false;
        if !up {
            if down_left == 0 {
                let fresh = first_start || rng.chance(0.3);
                let mask = if first_start || need_full || rng.chance(0.3) {
                    0b1111
                } else {
                    rng.range(1, 15) as u8
                };
                start = Some((fresh, mask));
                (up, first_start, need_full) = (true, false, false);
            } else {
                down_left -= 1;
            }
        } else if churn
            && (down_at.is_some_and(|d| d <= t) || need_full || rng.chance(1.0 / 3000.0))
        {
            (up, going_down, down_at) = (false, true, None);
            down_left = rng.range(0, 120);
            out.downs += 1;
        }
        let since = t - phase_start;
        let faults_on = phase == Phase::Spread;
        let lane_quiet =
            !flip_inflight && flipped.is_none() && t > last_lane_event + spread_window / 2 + 2;
        // A burst starts after two windows without lane events (every count back to 0).
        let armed = matches!(phase, Phase::FlipBurst | Phase::MissBurst)
            && lane_quiet
            && t > last_lane_event + 2 * spread_window + 10
            && since > 2 * spread_window + 10;
        // A burst starts with every score 0; from then on nothing drains and 3 errors remove.
        // (Only its first error waits for that: the scores it raises do not drain.)
        let armed = armed && (burst_armed || model.score == [0; 4]);
        burst_armed |= armed;
        if !churn {
            (threshold, drain, limit) = if burst_armed { (3, 0, 0) } else { (0, 1, 0) };
        }
        let live = up && start.is_none();
        if going_down {
            // The deframer is reset: the LTP in progress and pending ones are gone, as are the
            // far end's pending reactions (its transmitter restarts at the bring-up).
            (cur, gap, end_due) = (None, 0, None);
            reactions.clear();
            (flip_inflight, flipped) = (false, None);
        }
        if let Some((fresh, mask)) = start {
            // The far end sends RetryMrkr first: from 0 after a reset, else from its
            // acknowledged point (up to 3 LTPs back: duplicates).
            if fresh {
                far = FarTx::new(mask);
                far.replay(&mut rng, 0);
                committed = 0;
                out.restarts += 1;
            } else {
                far.nulls.clear();
                far.mask = mask;
                let s = (model.expect as u64).saturating_sub(rng.range(0, 3));
                far.replay(&mut rng, s);
                out.resumes += 1;
            }
            // The timer starts afresh: its request comes `retry_timeout + 1` cycles later.
            last_retry = t + 1;
        }
        if !up {
            // The timer holds while down.
            last_retry += 1;
        }

        let mut inp = RxIn {
            lane_threshold: threshold,
            up,
            start,
            retry_limit: limit,
            lane_drain: drain,
            ..Default::default()
        };
        gap = gap.saturating_sub(1);
        // The end due now.
        let mut ended = None;
        if end_due.as_ref().is_some_and(|e| e.0 == t) {
            let (_, a) = end_due.take().unwrap();
            inp.end = Some(a.end);
            ended = Some(a);
        }
        // Lane events, strays.
        if !live {
            // Garbage the block must ignore while down and in the start cycle.
            if rng.chance(0.05) {
                inp.lane_missing = rng.range(1, 15) as u8;
            }
            if rng.chance(0.02) {
                inp.stray = true;
            }
            if rng.chance(0.02) {
                inp.end = Some(End {
                    intact: rng.chance(0.5),
                    crc_diff: rng.bits(14) as u16,
                    state: rng.bits(2) as u8,
                    sideband: rng.bits(2) as u8,
                    gcrc: rng.bits(32) as u32,
                });
            }
        } else if faults_on && lane_quiet && rng.chance(0.01) {
            inp.lane_missing = 1 << phys(dut_mask, rng.range(0, l as u64 - 1) as usize);
            last_lane_event = t;
        }
        if live && faults_on && dut_mask != 0b1111 && rng.chance(0.002) {
            // A removed lane's pulses count nowhere.
            inp.lane_missing |= !dut_mask & 0b1111;
        }
        if phase == Phase::MissBurst && armed && removed_at.len() == 1 && since.is_multiple_of(5) {
            inp.lane_missing = 1 << target;
        }
        if live && faults_on && inp.end.is_none() && rng.chance(0.001) {
            inp.stray = true;
            out.faults[3] += 1;
        }
        out.faults[4] += inp.lane_missing.count_ones() as u64;
        // The next attempt, its flit 0 at the earliest in the cycle of the previous end.
        if live && cur.is_none() && gap == 0 && end_due.is_none() {
            if let Some((flits, seq)) = far.next(&mut rng, phase != Phase::Drain) {
                let state = rng.range(0, far.mask.count_ones() as u64 - 1) as u8;
                let quiet = !prev.waiting && lane_quiet;
                let mut fault = Fault::None;
                if far.mask != dut_mask {
                    // Sent at the old width: the deframer cannot frame it.
                    fault = Fault::Cut(rng.range(0, 15) as usize);
                } else if faults_on {
                    let r = rng.range(0, 999);
                    fault = if r < 30 && (quiet || seq.is_none()) {
                        Fault::Flip(flip_bit(&mut rng, far.mask, state, None))
                    } else if r < 50 {
                        Fault::Cut(rng.range(0, 15) as usize)
                    } else if r < 65 {
                        Fault::Drop
                    } else {
                        Fault::None
                    };
                    if rng.chance(0.01) {
                        // A spontaneous replay from up to 3 LTPs back: duplicates.
                        let s = (prev.expect_seq as u64).saturating_sub(rng.range(0, 3));
                        far.replay(&mut rng, s);
                        out.stale_replays += 1;
                    }
                } else if phase == Phase::FlipBurst
                    && armed
                    && removed_at.is_empty()
                    && seq.is_some()
                    && !prev.waiting
                    && model.bad.is_none()
                    && model.in_seq == model.expect
                {
                    fault = Fault::Flip(flip_bit(&mut rng, far.mask, state, Some(target)));
                }
                let xor = seq.map_or(0, |s| s as u16 & 0x3fff);
                let (shown, end, lane) = arrive(&mut rng, &flits, xor, state, far.mask, fault);
                match fault {
                    Fault::Flip(_) => {
                        out.faults[0] += 1;
                        flip_inflight = true;
                    }
                    Fault::Cut(_) => out.faults[1] += 1,
                    Fault::Drop => out.faults[2] += 1,
                    Fault::None => {}
                }
                if fault != Fault::Drop {
                    let a = Attempt {
                        flits,
                        seq,
                        fault,
                        shown,
                        end,
                        lane,
                    };
                    cur = Some((a, 0));
                }
            }
        }
        let mut flit = None;
        if !live && rng.chance(0.05) {
            flit = Some((rng.bits(4) as u8, rng.bits(65)));
        }
        if let Some((a, i)) = cur.as_mut() {
            if *i < a.shown.len() && gap == 0 && !rng.chance(0.15) {
                flit = Some((*i as u8, a.shown[*i]));
                *i += 1;
            }
            if *i == a.shown.len() {
                let (a, _) = cur.take().unwrap();
                let d = rng.range(1, 3);
                end_due = Some((t + d, a));
                gap = d + rng.range(0, 3);
                if gap == d {
                    out.overlaps += 1;
                }
            }
        }
        inp.flit = flit;

        // Drive (garbage on the flit ports while not valid).
        b.poke_bool(ports.flit_valid, flit.is_some());
        b.poke(ports.flit_pos, flit.map_or(rng.bits(4), |f| f.0 as u128));
        b.poke(ports.flit, flit.map_or(rng.bits(65), |f| f.1));
        // The end record is random while `ltp_end` is low.
        let e = inp.end.unwrap_or(End {
            intact: rng.chance(0.5),
            crc_diff: rng.bits(14) as u16,
            state: rng.bits(2) as u8,
            sideband: rng.bits(2) as u8,
            gcrc: rng.bits(32) as u32,
        });
        b.poke_bool(ports.end[0], inp.end.is_some());
        b.poke_bool(ports.end[1], e.intact);
        b.poke(ports.end[2], e.crc_diff as u128);
        b.poke(ports.end[3], e.state as u128);
        b.poke(ports.end[4], e.gcrc as u128);
        b.poke(ports.end[5], e.sideband as u128);
        b.poke(ports.lane_missing, inp.lane_missing as u128);
        b.poke_bool(ports.stray, inp.stray);
        b.poke(ports.threshold, inp.lane_threshold as u128);
        b.poke_bool(ports.up, up);
        b.poke_bool(ports.start, start.is_some());
        // `fresh_far` and `start_mask` are random without `start`.
        let (fresh, smask) = start.unwrap_or((rng.chance(0.5), rng.range(0, 15) as u8));
        b.poke_bool(ports.fresh_far, fresh);
        b.poke(ports.start_mask, smask as u128);
        b.poke(ports.retry_limit, limit as u128);
        b.poke(ports.lane_drain, drain as u128);
        let o = read(b, &ports);
        let tag = format!("seed {seed} cycle {t} ({phase:?})");

        // Cycle-exact model.
        let want = model.outputs(&inp);
        assert_eq!(
            o, want,
            "{tag}: outputs (left) differ from the model's (right)"
        );
        if sched.released() {
            let status = RxOut {
                wr: None,
                commit: false,
                rollback: false,
                ..o.clone()
            };
            assert_eq!(status, after_reset, "{tag}: state after reset");
        }
        if rst {
            // Both ends restart: the far end from sequence number 0, the scoreboard empty.
            model.reset();
            b.tick();
            far = FarTx::new(init_mask);
            (cur, gap, end_due) = (None, 0, None);
            reactions.clear();
            pending.clear();
            committed = 0;
            lt_now = lt_outputs(&[0; LTP_FLITS], true);
            lanes_now = [0; 4];
            (named_next, flip_inflight, flipped) = (None, false, None);
            last_retry = t;
            prev = after_reset.clone();
            t += 1;
            continue;
        }

        // Staging: commit only the intact copy of the next LTP, with exactly its data flits.
        if o.commit || o.rollback {
            assert!(
                !(o.commit && o.rollback) && (inp.end.is_some() || start.is_some()),
                "{tag}: commit/rollback"
            );
        }
        if o.commit {
            let a = ended.as_ref().unwrap();
            assert_eq!(
                (a.seq, a.fault),
                (Some(committed), Fault::None),
                "{tag}: committed an LTP other than an intact copy of LTP {committed}"
            );
            assert_eq!(
                pending,
                data(&far.ltps[committed as usize]),
                "{tag}: staging of LTP {committed}"
            );
            committed += 1;
        }
        if o.commit || o.rollback {
            pending.clear();
        }
        if let Some(w) = o.wr {
            pending.push(w);
        }
        // LT outputs: those of the LTP that ended last cycle if it was good, else none.
        let got = RxOut {
            got_retry: o.got_retry,
            got_echo: o.got_echo,
            got_mask: o.got_mask,
            got_credits: o.got_credits.clone(),
            send_echo: o.send_echo,
            ..Default::default()
        };
        assert_eq!(got, lt_now, "{tag}: LT outputs");
        lt_now = lt_outputs(&[0; LTP_FLITS], true);
        if let Some(a) = &ended {
            let good_null = a.seq.is_none() && a.fault == Fault::None;
            if good_null || o.commit {
                lt_now = lt_outputs(&a.flits, good_null);
                // A committed LTP's sideband credits go to VC `seq mod P`.
                if let (Some(seq), true) = (a.seq, o.commit) {
                    if let Some(vc) = sideband_vc(seq, VCS) {
                        lt_now.got_credits[vc] += sideband_credits(a.end.sideband) as u64;
                    }
                }
            }
            if a.fault != Fault::None {
                assert!(
                    o.rollback,
                    "{tag}: a broken LTP was not rolled back ({:?})",
                    a.fault
                );
            }
        }
        // Retry requests name the first missing LTP and repeat while waiting.
        if o.link_fail {
            out.fails += 1;
            if churn && rng.chance(0.8) {
                down_at = Some(t + rng.range(0, 3));
            }
        }
        if o.send_retry {
            assert_eq!(o.expect_seq as u64, committed, "{tag}: retry request");
            last_retry = t;
            if rng.chance(0.25) {
                out.lost += 1;
            } else {
                reactions.push_back(t + rng.range(4, 40));
            }
        }
        assert!(
            !o.waiting || t <= last_retry + RETRY_TIMEOUT + 1,
            "{tag}: waiting without a retry request for {} cycles",
            t - last_retry
        );
        if reactions.front().is_some_and(|&at| at <= t) {
            reactions.pop_front();
            far.replay(&mut rng, o.expect_seq as u64);
            far.mask = o.mask;
        }
        // Lane errors: each lane_missing pulse on an active lane, and the lane a flipped bit
        // travelled on one cycle after the good copy of its LTP arrives (the compare is
        // registered), unless a lane was removed at that same end.
        if phase == Phase::Spread {
            // With removals and bring-ups at random the bench's own count can miss a naming
            // that races a mask change by a cycle (the model, checked above every cycle,
            // does not): within one, then taken from the block.
            for n in 0..4 {
                assert!(
                    o.lane_errors[n].abs_diff(lanes_now[n]) <= 1,
                    "{tag}: lane errors {:?}, expected about {lanes_now:?}",
                    o.lane_errors
                );
            }
            lanes_now = o.lane_errors;
        } else {
            assert_eq!(o.lane_errors, lanes_now, "{tag}: lane errors");
        }
        for n in 0..4 {
            if live && !model.resizing && (inp.lane_missing & o.mask) >> n & 1 == 1 {
                lanes_now[n] += 1;
            }
        }
        if let Some(lane) = named_next.take() {
            if o.mask == prev.mask && live && !model.resizing {
                lanes_now[lane] += 1;
            }
        }
        if let Some(a) = &ended {
            let good = a.fault == Fault::None && !o.waiting && a.seq == Some(model.in_seq as u64);
            if let Some((s, lane)) = flipped {
                if good && a.seq == Some(s) {
                    named_next = Some(lane);
                    out.named += 1;
                    flipped = None;
                    last_lane_event = t;
                }
            }
            if let Fault::Flip(_) = a.fault {
                flip_inflight = false;
                // Kept (the first intact bad LTP while not waiting) and named later if its
                // own copy is the next one expected.
                if !o.waiting
                    && model.bad.is_none()
                    && a.seq == Some(model.in_seq as u64)
                    && model.in_seq == model.expect
                {
                    flipped = Some((a.seq.unwrap(), a.lane.unwrap()));
                }
            }
        }
        // Removals: outside the churn only in the bursts, of the chosen lane, with a retry
        // request (a bring-up changes the mask too).
        if o.mask != prev.mask && !started_prev && churn {
            assert_eq!(
                (prev.mask & !o.mask).count_ones(),
                1,
                "{tag}: removed lanes"
            );
            assert!(o.send_retry && o.waiting, "{tag}: removal without a retry");
            out.churn_removed += 1;
            flipped = None;
        } else if o.mask != prev.mask && !started_prev {
            assert!(
                matches!(phase, Phase::FlipBurst | Phase::MissBurst),
                "{tag}: lane removed in phase {phase:?}"
            );
            assert_eq!(prev.mask & !o.mask, 1 << target, "{tag}: removed lanes");
            assert!(
                o.send_retry && o.waiting,
                "{tag}: removal without a retry request"
            );
            assert_eq!(
                o.lanes_removed,
                prev.lanes_removed + 1,
                "{tag}: lanes_removed"
            );
            assert!(
                o.retries > prev.retries || o.retries == 0xffff,
                "{tag}: retries"
            );
            removed_at.push((t, target));
            flipped = None;
        }
        model.edge(&inp);
        b.tick();
        started_prev = start.is_some();
        prev = o;
        t += 1;
        if phase == Phase::Drain && committed == far.ltps.len() as u64 && since > 300 {
            break;
        }
        assert!(
            t < 200_000,
            "{tag}: no end: committed {committed} of {}, removed {removed_at:?}, flipped {flipped:?} in flight {flip_inflight}, last lane event {last_lane_event}, far ptr {} mask {:b}, status {prev:?}",
            far.ltps.len(),
            far.ptr,
            far.mask
        );
    }
    sched.assert_pulses(&format!("rx link seed {seed}"), 5);
    out.cycles = t;
    out.ltps = committed;
    out.status = prev;
    out
}

#[test]
fn rx_link_against_far_end() {
    let rep = run_both_seeds(
        "rx_link",
        &[1, 2],
        || Dut::new(VCS, 0b1111, RETRY_TIMEOUT as u16),
        table,
        |b, s| bench(b, s, 60_000),
    );
    for r in &rep {
        let o = &r.result;
        eprintln!("{o:?}");
        let s = &o.status;
        assert!(
            o.faults.iter().all(|&n| n > 0),
            "every fault kind: {:?}",
            o.faults
        );
        assert!(o.named >= 5, "lanes named by group CRCs: {}", o.named);
        assert!(s.ltps_dup > 0 && o.lost > 0 && o.overlaps > 0);
        assert!(s.nulls_good > 0 && s.link_up && s.lanes_removed >= 2);
        assert!(
            o.downs > 0 && o.resumes > 0 && o.restarts > 1 && o.fails > 0,
            "downs, bring-ups, link failures: {o:?}"
        );
    }
}
