//! Reference model of `hdl::llp::TxLink` at its ports, and the far end of its `out` stream.
//!
//! The bench records every cycle's inputs and outputs ([`TxCycle`]) and hands them to
//! [`TxLinkModel::cycle`], which checks them against the block's documented contract
//! (`hdl/src/llp/tx_link.rs`). Exact per cycle: the lane mask, the credit counts, the
//! `core_dropped`, `ltps_sent`, `nulls_sent`, `replays` and `stale` counters, the hold rule on
//! `out`, and which LTP may start in which cycle (none while a mask change or a retry request is
//! pending). At LTP level: the `out` stream is cut into LTPs of 17 beats; every trailer must be
//! `hdl::llp::ltp::trailer` of `CRC14(flits, sideband) ^ (seq mod 2^14)` for a normal LTP
//! (`seq` counting from 0, moved back by retry markers) and `CRC14(flits, 0)` for a null LTP,
//! with the sequence state of the striper's rotation; replays must be bit-identical to the
//! first copies (but for the state, which may differ); a new LTP's credit sideband returns
//! credits of VC `ltp::sideband_vc(seq)`, which count with the CrdtRet flits'; the
//! data flits of new LTPs, demultiplexed by the far end's current VC (heads and VlMrkrs), must be
//! exactly the flits the core handed over on that VC, in order, with heads' VC rewritten;
//! no data flit may find the far buffer full; CrdtRet flits and sidebands must add up to
//! `freed` (never ahead of it); slot priority: a new LTP's flit 0 is a CrdtRet whenever some
//! VC was owed a quarter of the buffer when the builder wrote it (a lower bound: freed two
//! cycles before the previous new LTP's first offer, less everything returned up to that LTP,
//! so data never goes before an urgent CrdtRet); null LTP
//! contents (RetryMrkr, RetryReq, LaneMask, echo, poll) must answer the pulses that asked for
//! them, at once and only once. What the bench cannot see exactly (the builder's write cycles,
//! `next_seq`) is checked with bounds: `replay_fill` against the LTPs started and finished, new
//! LTPs never more than the replay depth ahead of the last echo, polls only for a marker
//! outstanding at least `rt_timeout` cycles.
//!
//! Link up and down (`up`, `start`, `fresh_far`, `start_mask`, `rx_free`): while `up` is low
//! `out.valid` must be low (an LTP cut off when it fell is forgotten: it is not at the far
//! end, and its sequence number must come again as a new LTP), no lane mask change applies,
//! and `idle` must be high once `up` has been low for 16 cycles. At `start` the lane mask is
//! `start_mask` at once, a replay from the acknowledged sequence number is wanted (RetryMrkr
//! then every unacknowledged LTP, compared with the first copies), pending retry requests and
//! mask changes are dropped. A RESTART also makes the far end fresh: sequence numbers from 0,
//! the stored LTPs gone (`ltps_discarded` grows by the `replay_fill` of that cycle), the flits
//! taken from the core and not yet seen whole at the far end lost, the far buffers empty,
//! the far VC 0, credits 0, and the CrdtRet flits owed from then on `rx_free` (which counts that cycle's `freed`).
//! Credits are 0 after reset and come only through `got_credits`. In whole-packet mode a head
//! may leave its queue only with credits for its LEN (1 for LEN 0, at most `max_packet`).
use hdl::formats::flit::{CODE, CTRL_CREDITS, CTRL_VC, HEAD_BIT, TAIL_BIT, TYPE_BIT};
use hdl::formats::header::{LEN, VC};
use hdl::formats::ControlCode;
use hdl::llp::lt::{decode_lt, LtCode};
use hdl::llp::ltp::{
    ltp_crc, sideband_credits, sideband_vc, trailer, LTP_FLITS, SIDEBAND_SHIFT, STATE_SHIFT,
};
use std::collections::VecDeque;

/// Elaboration values and configuration of the block under test.
#[derive(Clone, Copy, Debug)]
pub struct TxLinkParams {
    /// VCs.
    pub vcs: usize,
    /// Far VC buffer depth (initial credits).
    pub depth: u64,
    /// Our own VC buffers' depth (`TxLink::new`'s `vc_buffer`): a VC owed a quarter of it is
    /// urgent.
    pub own_depth: u64,
    /// Replay buffer, LTPs.
    pub replay: u64,
    /// Round-trip marker timeout, cycles.
    pub rt_timeout: u64,
    /// Lane mask after reset.
    pub init_mask: u8,
    /// The `interleave` input (constant for a run).
    pub interleave: bool,
    /// Longest packet, flits (`TxLink::new`'s `max_packet`).
    pub max_packet: u64,
}

/// One cycle at the ports: inputs as driven, outputs as read, before the clock edge.
#[derive(Clone, Debug, Default)]
pub struct TxCycle {
    /// Per VC, the flit taken from `sinks[v]` on this edge.
    pub sink_fire: Vec<Option<u128>>,
    /// `out.ready`.
    pub out_ready: bool,
    /// `striper_idle`.
    pub striper_idle: bool,
    /// `got_retry` with `got_retry_seq`.
    pub got_retry: Option<u16>,
    /// `got_echo` with `got_echo_seq`.
    pub got_echo: Option<u16>,
    /// `got_mask` with `got_mask_val`.
    pub got_mask: Option<u8>,
    /// `got_credits[v]`.
    pub got_credits: Vec<u64>,
    /// `freed[v]`.
    pub freed: Vec<u64>,
    /// `send_retry`.
    pub send_retry: bool,
    /// `send_echo`.
    pub send_echo: bool,
    /// `rx_expect`.
    pub rx_expect: u16,
    /// `rx_mask`.
    pub rx_mask: u8,
    /// `out.valid`.
    pub out_valid: bool,
    /// `out.data`.
    pub out_data: u128,
    /// `mask`.
    pub mask: u8,
    /// `ltps_sent`.
    pub ltps_sent: u64,
    /// `nulls_sent`.
    pub nulls_sent: u64,
    /// `replays`.
    pub replays: u64,
    /// `stale`.
    pub stale: u64,
    /// `core_dropped`.
    pub core_dropped: u64,
    /// `credits[v]`.
    pub credits: Vec<u64>,
    /// `credit_error`.
    pub credit_error: bool,
    /// `replay_fill`.
    pub replay_fill: u64,
    /// `up`.
    pub up: bool,
    /// `start`.
    pub start: bool,
    /// `fresh_far`.
    pub fresh_far: bool,
    /// `start_mask`.
    pub start_mask: u8,
    /// `rx_free[v]`.
    pub rx_free: Vec<u64>,
    /// `idle`.
    pub idle: bool,
    /// `ltps_discarded`.
    pub ltps_discarded: u64,
}

/// How the far end (and the block) reads a flit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A head flit naming VC `vc`.
    Head(u8),
    /// A body flit, a tail flit, or a *BadPkt marker: data of the current VC; `end` for
    /// a tail or TailBadPkt.
    Data {
        /// Ends a packet.
        end: bool,
    },
    /// Idle.
    Idle,
    /// CrdtRet of `vc`, `n` credits.
    Credit(u8, u64),
    /// VlMrkr naming `vc`.
    VlMrkr(u8),
    /// A link-transfer flit (`None`: a reserved LT code).
    Lt(Option<(LtCode, u32)>),
}

/// Classifies a flit as the hardware's `FlitDecoder` does.
pub fn kind(f: u128) -> Kind {
    let bit = |b: usize| (f >> b) & 1 == 1;
    if bit(TYPE_BIT) {
        return Kind::Data { end: false };
    }
    if bit(HEAD_BIT) {
        return Kind::Head(VC.get(f) as u8);
    }
    if bit(TAIL_BIT) {
        return Kind::Data { end: true };
    }
    let code = CODE.get(f) as u8;
    match ControlCode::from_code(code) {
        Some(ControlCode::Idle) => Kind::Idle,
        Some(ControlCode::CrdtRet) => {
            Kind::Credit(CTRL_VC.get(f) as u8, CTRL_CREDITS.get(f) as u64)
        }
        Some(ControlCode::VlMrkr) => Kind::VlMrkr(CTRL_VC.get(f) as u8),
        Some(ControlCode::LinkTransfer(_)) => Kind::Lt(decode_lt(f)),
        Some(ControlCode::TailBadPkt) => Kind::Data { end: true },
        _ => Kind::Data { end: false },
    }
}

/// A flit the core may not send (dropped and counted by the block).
pub fn is_core_drop(f: u128) -> bool {
    matches!(
        kind(f),
        Kind::Idle | Kind::Credit(..) | Kind::VlMrkr(_) | Kind::Lt(_)
    )
}

/// The classified word [`hdl::llp::tx::TxClassifier`] makes of flit `f`, which `TxLink`'s
/// sinks take: `f` with the class bits `Q_DROP` (not the core's to send), `Q_HEAD` and `Q_END`
/// (a tail or TailBadPkt).
pub fn tx_word(f: u128) -> u128 {
    use hdl::llp::tx::{Q_DROP, Q_END, Q_HEAD, Q_LEN};
    let mut w = f;
    if is_core_drop(f) {
        w |= 1 << Q_DROP;
    }
    match kind(f) {
        Kind::Head(_) => w |= (1 << Q_HEAD) | (LEN.get(f) << Q_LEN),
        Kind::Data { end: true } => w |= 1 << Q_END,
        _ => {}
    }
    w
}

/// Credits a head flit `f` needs in whole-packet mode: its LEN, 1 for LEN 0, at most
/// `max_packet`.
pub fn head_need(f: u128, max_packet: u64) -> u64 {
    (LEN.get(f) as u64).clamp(1, max_packet)
}

/// The flit as the link carries it from VC queue `v`: a head's VC field is the queue index.
pub fn on_link(f: u128, v: usize) -> u128 {
    match kind(f) {
        Kind::Head(_) => VC.set(f, v as u128),
        _ => f,
    }
}

/// What the bench learns about an LTP when its flit 0 is first offered.
#[derive(Clone, Debug)]
struct Start {
    /// Cycle of the first offer (the serializer started it on the edge before).
    cycle: u64,
    null: bool,
    /// Sequence number (normal LTPs).
    seq: u64,
    /// A new LTP (not a replay).
    new: bool,
    /// Expected sequence state.
    state: u8,
    /// Null LTP: expected flits 0..4 (poll checked apart).
    want: [u128; 4],
    /// Bounds of `next_seq` when it started (for a poll's payload).
    next_lo: u64,
    next_hi: u64,
    /// A poll may be in it.
    poll_ok: bool,
    /// New LTPs: first offer of the previous new LTP (its builder started after that).
    after: u64,
    /// New LTPs (not redone): `freed_total` up to two cycles before the first offer, a lower
    /// bound of what the next new LTP's builder had seen freed when it wrote its flit 0 (it
    /// starts only after the serializer took this one).
    freed_before: Option<Vec<u64>>,
}

/// A round-trip marker seen in a new LTP.
#[derive(Clone, Copy, Debug)]
struct Marker {
    seq: u64,
    /// Earliest cycle the builder can have written it.
    written_after: u64,
    /// Cycle its flit was offered.
    seen: u64,
}

/// Statistics of a run (what was exercised).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxStats {
    /// New normal LTPs.
    pub new_ltps: u64,
    /// Replayed LTPs.
    pub replayed: u64,
    /// Null LTPs.
    pub nulls: u64,
    /// Replays started (RetryMrkr).
    pub replays: u64,
    /// Stale retry requests.
    pub stale: u64,
    /// Polls.
    pub polls: u64,
    /// Round-trip markers in new LTPs.
    pub markers: u64,
    /// Echoes in normal / null LTPs.
    pub echoes_ltp: u64,
    /// Echoes in null LTPs.
    pub echoes_null: u64,
    /// Retry requests sent.
    pub retry_reqs: u64,
    /// VlMrkrs.
    pub vl_markers: u64,
    /// Data flits delivered to the far end.
    pub data_flits: u64,
    /// Flits dropped from the core.
    pub core_dropped: u64,
    /// Lane mask changes.
    pub mask_changes: u64,
    /// Cycles in which the builder was stalled by a full replay buffer (new LTPs = ack + R).
    pub full_cycles: u64,
    /// LTPs that followed the previous one's trailer at once (state advanced).
    pub in_time: u64,
    /// Bring-ups keeping the far end's state.
    pub resumes: u64,
    /// Bring-ups with a fresh far end.
    pub restarts: u64,
    /// LTPs cut off when the link went down.
    pub abandoned: u64,
    /// New LTPs sent again as new after being cut off.
    pub redone: u64,
    /// LTPs dropped from the replay buffer at RESTARTs.
    pub discarded: u64,
    /// Heads admitted with exactly the credits they needed (whole-packet mode).
    pub tight_heads: u64,
    /// New LTPs whose flit 0 the slot priority check required to be an urgent CrdtRet (some
    /// VC owed at least a quarter of the buffer when the builder wrote it), all of which were.
    pub urgent_first: u64,
    /// Credits returned in new LTPs' sideband bits.
    pub sideband_credits: u64,
    /// Credits returned in CrdtRet flits of new LTPs.
    pub flit_credits: u64,
}

/// The model of `TxLink` and of the far end of its `out` stream.
pub struct TxLinkModel {
    p: TxLinkParams,
    t: u64,
    /// Cycle of the last reset edge (0: the one before the run): the start of time for the
    /// builder's and the marker's bounds.
    reset_at: u64,
    /// Per VC: flits taken from the core and not yet seen at the far end (as on the link).
    pub expect: Vec<VecDeque<u128>>,
    credits: Vec<u64>,
    dropped: u64,
    /// Beat offered in the previous cycle and not taken.
    unfired: Option<u128>,
    trailer_prev: bool,
    beats: Vec<u128>,
    start: Option<Start>,
    st: u8,
    /// New LTPs started (`P`): their flit 0 offered.
    pub started: u64,
    /// New LTPs whose trailer moved (`R`).
    pub finished: u64,
    /// First offer of every new LTP.
    new_starts: Vec<u64>,
    pointer: u64,
    stored: Vec<([u128; LTP_FLITS], u16)>,
    /// Lowest sequence number in the replay buffer.
    pub ack: u64,
    rr: Vec<u64>,
    echo: Vec<u64>,
    replay: Vec<(u64, u64)>,
    /// Lane mask and the pending change.
    pub mask: u8,
    /// A lane mask change waiting for the striper.
    pub mask_pending: Option<u8>,
    marker: Option<Marker>,
    /// A poll may still come for a marker echoed after its timeout.
    late_poll: bool,
    /// Cycle of the last acknowledgement that ended a marker (the hardware's poll timer
    /// restarts there and polls `rt_timeout` later if LTPs are still held).
    marker_ended_at: Option<u64>,
    /// Cycle of the most recent poll (for the bench's far end).
    pub last_poll: Option<u64>,
    ltps: u64,
    nulls: u64,
    replays: u64,
    stale: u64,
    pending_prev: bool,
    rx_expect_prev: u16,
    rx_mask_prev: u8,
    fire_cycles: Vec<u64>,
    far_vc: u8,
    open: Option<u8>,
    /// Far buffer occupancy per VC.
    pub far_occ: Vec<u64>,
    /// Credits returned by CrdtRet flits, per VC.
    pub crdt_seen: Vec<u64>,
    /// Credits driven into `freed`, per VC.
    pub freed_total: Vec<u64>,
    /// The `freed` pulses of the previous cycle.
    freed_last: Vec<u64>,
    /// `freed_before` of the last new LTP seen whole in this stretch of the link being up.
    last_new_freed: Option<Vec<u64>>,
    /// Data flits delivered per VC.
    pub delivered: Vec<u64>,
    /// What was exercised.
    pub stats: TxStats,
    /// LTPs discarded at RESTARTs.
    discarded: u64,
    /// Cycles `up` has been low.
    down_for: u64,
}

fn bad<T>(t: u64, msg: String) -> Result<T, String> {
    Err(format!("cycle {t}: {msg}"))
}

impl TxLinkModel {
    /// The block right after reset.
    pub fn new(p: TxLinkParams) -> Self {
        Self {
            p,
            t: 0,
            reset_at: 0,
            expect: vec![VecDeque::new(); p.vcs],
            credits: vec![0; p.vcs],
            dropped: 0,
            unfired: None,
            trailer_prev: false,
            beats: vec![],
            start: None,
            st: 0,
            started: 0,
            finished: 0,
            new_starts: vec![],
            pointer: 0,
            stored: vec![],
            ack: 0,
            rr: vec![],
            echo: vec![],
            replay: vec![],
            mask: p.init_mask,
            // Reset leaves the initial mask pending until the striper is idle.
            mask_pending: Some(p.init_mask),
            marker: None,
            late_poll: false,
            marker_ended_at: None,
            last_poll: None,
            ltps: 0,
            nulls: 0,
            replays: 0,
            stale: 0,
            pending_prev: true,
            rx_expect_prev: 0,
            rx_mask_prev: 0,
            fire_cycles: vec![],
            far_vc: 0,
            open: None,
            far_occ: vec![0; p.vcs],
            crdt_seen: vec![0; p.vcs],
            freed_total: vec![0; p.vcs],
            freed_last: vec![0; p.vcs],
            last_new_freed: None,
            delivered: vec![0; p.vcs],
            stats: TxStats::default(),
            discarded: 0,
            down_for: 0,
        }
    }

    /// A reset edge (the block's documented reset: sequence numbers 0, replay buffer empty,
    /// credits 0, the initial lane mask; its far end and the striper restart with it).
    /// What was exercised so far is kept, and the cycle count goes on.
    pub fn reset(&mut self) {
        let (t, stats) = (self.t, self.stats);
        *self = Self::new(self.p);
        self.t = t + 1;
        self.reset_at = t + 1;
        self.stats = stats;
    }

    /// Bounds of the block's `next_seq` now: every finished LTP was built, every started one
    /// at least begun, and the builder is at most one LTP ahead of the serializer.
    pub fn next_bounds(&self) -> (u64, u64) {
        (
            self.finished.max(self.started.saturating_sub(1)),
            self.started + 1,
        )
    }

    /// Is a retry (got_retry) waiting for its marker LTP?
    pub fn retry_pending(&self) -> bool {
        !self.replay.is_empty()
    }
    /// Is a `send_retry` waiting for its null LTP?
    pub fn rr_pending(&self) -> bool {
        !self.rr.is_empty()
    }
    /// Is a `send_echo` waiting for its echo flit?
    pub fn echo_pending(&self) -> bool {
        !self.echo.is_empty()
    }
    /// Is a round-trip marker outstanding?
    pub fn marker_outstanding(&self) -> Option<u64> {
        self.marker.map(|m| m.seq)
    }
    /// Is the LTP stream between LTPs with nothing offered and nothing pending?
    pub fn quiet(&self) -> bool {
        self.beats.is_empty()
            && self.unfired.is_none()
            && self.rr.is_empty()
            && self.echo.is_empty()
            && self.replay.is_empty()
            && self.mask_pending.is_none()
    }

    /// The far end drained one flit of VC `v` (the bench returns its credit later).
    pub fn drain(&mut self, v: usize) {
        assert!(self.far_occ[v] > 0);
        self.far_occ[v] -= 1;
    }

    /// Is `s` inside the retry/echo window now? `None` if the bounds of `next_seq` leave it open.
    fn in_window(&self, s: u16) -> Option<bool> {
        let (lo, hi) = self.next_bounds();
        let d = s.wrapping_sub(self.ack as u16);
        if d <= (lo as u16).wrapping_sub(self.ack as u16) {
            Some(true)
        } else if d > (hi as u16).wrapping_sub(self.ack as u16) {
            Some(false)
        } else {
            None
        }
    }

    /// Checks one cycle and advances over its clock edge.
    pub fn cycle(&mut self, c: &TxCycle) -> Result<(), String> {
        let t = self.t;
        let p = self.p;
        // Registered outputs, as left by earlier edges.
        if c.mask != self.mask {
            return bad(t, format!("mask {:#x}, model {:#x}", c.mask, self.mask));
        }
        for v in 0..p.vcs {
            if c.credits[v] != self.credits[v] {
                return bad(
                    t,
                    format!(
                        "VC {v}: credits {}, model {}",
                        c.credits[v], self.credits[v]
                    ),
                );
            }
        }
        if c.credit_error {
            return bad(t, "credit_error raised".into());
        }
        if c.core_dropped != self.dropped.min(0xffff) {
            return bad(
                t,
                format!("core_dropped {}, model {}", c.core_dropped, self.dropped),
            );
        }
        if c.stale != self.stale.min(0xffff) {
            return bad(t, format!("stale {}, model {}", c.stale, self.stale));
        }
        if c.ltps_discarded != self.discarded.min(0xffff) {
            return bad(
                t,
                format!(
                    "ltps_discarded {}, model {}",
                    c.ltps_discarded, self.discarded
                ),
            );
        }
        if !c.up {
            self.last_new_freed = None;
            if c.out_valid {
                return bad(t, "out.valid while the link is down".into());
            }
            if self.down_for >= 16 && !c.idle {
                return bad(
                    t,
                    format!("idle low {} cycles after up fell", self.down_for),
                );
            }
            // The serializer may have started an LTP on the last edge with the link up, cut
            // off before its first beat was offered: seen only in the counters, which then
            // must have grown by one (the request it answered is gone with it).
            if self.down_for == 0 && self.start.is_none() && self.beats.is_empty() {
                let hint = if c.ltps_sent != self.ltps & 0xffff_ffff {
                    Some(false)
                } else if c.nulls_sent != self.nulls & 0xffff_ffff {
                    Some(true)
                } else {
                    None
                };
                if hint.is_some() {
                    self.begin(c, hint)?;
                }
            }
            self.down_for += 1;
            // An LTP cut off: the far end never has it whole.
            if self.start.is_some() {
                self.stats.abandoned += 1;
            }
            self.beats.clear();
            self.fire_cycles.clear();
            self.start = None;
            self.unfired = None;
        } else {
            self.down_for = 0;
        }
        if c.start && (!c.up || !c.idle) {
            return bad(
                t,
                "bench error: start while down or the builder busy".into(),
            );
        }

        // The out stream: hold rule, LTP starts.
        if let Some(h) = self.unfired {
            if !c.out_valid || c.out_data != h {
                return bad(
                    t,
                    format!(
                        "out withdrew or changed a beat before it moved ({:#x} -> valid {} {:#x})",
                        h, c.out_valid, c.out_data
                    ),
                );
            }
        }
        if c.out_valid && self.unfired.is_none() && self.beats.is_empty() {
            self.begin(c, None)?;
        }
        if c.ltps_sent != self.ltps & 0xffff_ffff {
            return bad(t, format!("ltps_sent {}, model {}", c.ltps_sent, self.ltps));
        }
        if c.nulls_sent != self.nulls & 0xffff_ffff {
            return bad(
                t,
                format!("nulls_sent {}, model {}", c.nulls_sent, self.nulls),
            );
        }
        if c.replays != self.replays.min(0xffff) {
            return bad(t, format!("replays {}, model {}", c.replays, self.replays));
        }
        let (lo, hi) = self.next_bounds();
        if c.replay_fill < lo - self.ack || c.replay_fill > hi - self.ack {
            return bad(
                t,
                format!(
                    "replay_fill {} outside [{}, {}] (ack {}, LTPs started {}, finished {})",
                    c.replay_fill,
                    lo - self.ack,
                    hi - self.ack,
                    self.ack,
                    self.started,
                    self.finished
                ),
            );
        }
        if self.started - self.ack >= p.replay {
            self.stats.full_cycles += 1;
        }
        let fired = c.out_valid && c.out_ready;
        self.trailer_prev = false;
        if fired {
            self.beats.push(c.out_data);
            self.fire_cycles.push(t);
            if self.beats.len() == LTP_FLITS + 1 {
                self.end(c)?;
                self.trailer_prev = true;
            }
        }
        self.unfired = if c.out_valid && !fired {
            Some(c.out_data)
        } else {
            None
        };

        // Inputs acting on this edge.
        for v in 0..p.vcs {
            if let Some(f) = c.sink_fire[v] {
                if is_core_drop(f) {
                    self.dropped += 1;
                    self.stats.core_dropped += 1;
                } else {
                    if self.credits[v] == 0 {
                        return bad(t, format!("VC {v}: flit {f:#x} taken without a credit"));
                    }
                    if !p.interleave && matches!(kind(f), Kind::Head(_)) {
                        let need = head_need(f, p.max_packet);
                        if self.credits[v] < need {
                            return bad(
                                t,
                                format!(
                                    "VC {v}: head of LEN {} admitted with {} credits",
                                    LEN.get(f),
                                    self.credits[v]
                                ),
                            );
                        }
                        if self.credits[v] == need {
                            self.stats.tight_heads += 1;
                        }
                    }
                    self.credits[v] -= 1;
                    self.expect[v].push_back(on_link(f, v));
                }
            }
            self.credits[v] += c.got_credits[v];
            if self.credits[v] > p.depth {
                return bad(t, format!("VC {v}: bench returned too many credits"));
            }
            self.freed_total[v] += c.freed[v];
            self.freed_last[v] = c.freed[v];
        }
        // Both pulses are checked against the window before either acts (the hardware's
        // distances are from the registered `ack_seq`). Each inside it is an acknowledgement
        // (a retry request asks from the first LTP the far end has not delivered); the echo's
        // number wins when both come in one cycle.
        let ack_before = self.ack;
        let unwrap = |s: u16| ack_before + s.wrapping_sub(ack_before as u16) as u64;
        let mut acknowledged = None;
        if let Some(s) = c.got_retry {
            let seq = match self.in_window(s) {
                Some(true) => {
                    acknowledged = Some(unwrap(s));
                    unwrap(s)
                }
                Some(false) => {
                    self.stale += 1;
                    self.stats.stale += 1;
                    self.ack
                }
                None => return bad(t, format!("bench error: retry {s} on the window's edge")),
            };
            self.replay.push((t, seq));
        }
        if let Some(v) = c.got_echo {
            match self.in_window(v) {
                Some(true) => acknowledged = Some(unwrap(v)),
                Some(false) => {}
                None => return bad(t, format!("bench error: echo {v} on the window's edge")),
            }
        }
        if let Some(v) = acknowledged {
            if let Some(m) = self.marker {
                if v > m.seq {
                    // A poll already pending may still leave.
                    self.late_poll = t >= m.written_after + p.rt_timeout;
                    self.marker = None;
                    self.marker_ended_at = Some(t);
                }
            }
            self.ack = v;
        }
        if c.send_retry {
            self.rr.push(t);
        }
        if c.send_echo {
            self.echo.push(t);
        }
        // Lane mask: a pending change applies while the serializer and the striper are idle.
        let old = self.mask;
        self.pending_prev = self.mask_pending.is_some();
        if let Some(m) = self.mask_pending {
            if c.striper_idle && !c.out_valid && c.up && !c.start {
                if m != self.mask {
                    self.stats.mask_changes += 1;
                }
                self.mask = m;
                self.mask_pending = None;
            }
        }
        if let Some(m) = c.got_mask {
            if m != 0 && m != old {
                self.mask_pending = Some(m);
            }
        }
        if c.start {
            self.bring_up(c);
        }
        self.rx_expect_prev = c.rx_expect;
        self.rx_mask_prev = c.rx_mask;
        self.t += 1;
        Ok(())
    }

    /// The `start` edge: RESUME, or RESTART with a fresh far end.
    fn bring_up(&mut self, c: &TxCycle) {
        let t = self.t;
        self.mask = c.start_mask;
        self.mask_pending = None;
        self.pending_prev = false;
        self.rr.clear();
        // The pending poll is dropped.
        self.late_poll = false;
        if !c.fresh_far {
            self.stats.resumes += 1;
            self.replay = vec![(t, self.ack)];
            return;
        }
        self.stats.restarts += 1;
        self.discarded += c.replay_fill;
        self.stats.discarded += c.replay_fill;
        self.replay = vec![(t, 0)];
        self.ack = 0;
        self.started = 0;
        self.finished = 0;
        self.new_starts.clear();
        self.stored.clear();
        self.pointer = 0;
        self.marker = None;
        self.marker_ended_at = None;
        self.reset_at = t + 1;
        self.echo.clear();
        self.far_vc = 0;
        self.open = None;
        for v in 0..self.p.vcs {
            self.expect[v].clear();
            self.credits[v] = 0;
            self.far_occ[v] = 0;
            self.crdt_seen[v] = 0;
            self.freed_total[v] = c.rx_free[v];
        }
    }

    /// Earliest cycle the builder can have written a marker into a new LTP not yet seen whole:
    /// the first offer of the LTP before the oldest such LTP.
    fn unseen_after(&self) -> u64 {
        match self.finished {
            0 => self.reset_at,
            k => self.new_starts[k as usize - 1],
        }
    }

    /// Flit 0 of an LTP is offered for the first time at cycle `t`: the serializer started it
    /// on the edge of cycle `g = t - 1`.
    /// `null`: what the LTP is when its flit 0 was never offered (cut off at once).
    fn begin(&mut self, c: &TxCycle, null: Option<bool>) -> Result<(), String> {
        let t = self.t;
        let g = t.wrapping_sub(1);
        let p = self.p;
        if self.pending_prev {
            return bad(
                t,
                "an LTP started while a lane mask change was pending".into(),
            );
        }
        let f0 = c.out_data;
        let null = match (null, kind(f0)) {
            (Some(n), _) => n,
            (None, Kind::Lt(Some((LtCode::RetryMrkr, _))))
            | (None, Kind::Lt(Some((LtCode::Null, _)))) => true,
            (None, Kind::Lt(x)) => return bad(t, format!("LT flit {x:?} in flit 0")),
            _ => false,
        };
        let lanes = self.mask.count_ones() as u8;
        let state = if self.trailer_prev {
            self.stats.in_time += 1;
            (self.st + 33) % lanes
        } else {
            0
        };
        let take = |q: &mut Vec<u64>| -> bool {
            let n = q.iter().filter(|&&x| x < g).count();
            q.retain(|&x| x >= g);
            n > 0
        };
        let (next_lo, next_hi) = self.next_bounds();
        let mut s = Start {
            cycle: t,
            null,
            seq: 0,
            new: false,
            state,
            want: [0; 4],
            next_lo,
            next_hi,
            poll_ok: false,
            after: 0,
            freed_before: None,
        };
        if null {
            self.nulls += 1;
            self.stats.nulls += 1;
            let replay: Vec<_> = self.replay.iter().filter(|r| r.0 < g).copied().collect();
            self.replay.retain(|r| r.0 >= g);
            s.want[0] = LtCode::Null.flit(0);
            if let Some(&(_, seq)) = replay.last() {
                s.want[0] = LtCode::RetryMrkr.flit(seq as u16 as u32);
                self.pointer = seq;
                self.replays += 1;
                self.stats.replays += 1;
            }
            if take(&mut self.rr) {
                s.want[1] = LtCode::RetryReq.flit(self.rx_expect_prev as u32);
                s.want[2] = LtCode::LaneMask.flit(self.rx_mask_prev as u32);
                self.stats.retry_reqs += 1;
            }
            // An echo here is optional (the builder may have taken the request).
            s.want[3] = self.rx_expect_prev as u128;
            // A poll: for the marker outstanding, or for one in an LTP not seen whole yet.
            s.poll_ok = self.late_poll
                || match self.marker {
                    Some(m) => g >= m.written_after + p.rt_timeout,
                    // LTPs built while the marker was out may start after it ended
                    // (behind a replay): the timer runs from the end.
                    None => {
                        g >= self
                            .unseen_after()
                            .min(self.marker_ended_at.unwrap_or(u64::MAX))
                            + p.rt_timeout
                    }
                };
        } else {
            if self.replay.iter().any(|r| r.0 < g) || self.rr.iter().any(|&x| x < g) {
                return bad(
                    t,
                    "a normal LTP started while a null LTP (retry) was wanted".into(),
                );
            }
            self.ltps += 1;
            s.seq = self.pointer;
            self.pointer += 1;
            if s.seq == self.started && self.finished == self.started {
                s.new = true;
                if s.seq >= self.ack + p.replay {
                    return bad(
                        t,
                        format!(
                            "new LTP {} started with the replay buffer full (ack {}, R {})",
                            s.seq, self.ack, p.replay
                        ),
                    );
                }
                s.after = self.new_starts.last().copied().unwrap_or(self.reset_at);
                s.freed_before = Some(
                    (0..p.vcs)
                        .map(|v| self.freed_total[v] - self.freed_last[v])
                        .collect(),
                );
                self.started += 1;
                self.new_starts.push(t);
            } else if s.seq == self.finished && self.finished < self.started {
                // A new LTP cut off by the link going down, sent again: new to the far end.
                s.new = true;
                s.after = match s.seq {
                    0 => self.reset_at,
                    k => self.new_starts[k as usize - 1],
                };
                self.stats.redone += 1;
            } else if s.seq > self.started || s.seq > self.finished {
                return bad(
                    t,
                    format!(
                        "LTP {} skips new LTP {} (finished {})",
                        s.seq, self.started, self.finished
                    ),
                );
            }
        }
        self.start = Some(s);
        Ok(())
    }

    /// The trailer of the LTP in `beats` moved.
    fn end(&mut self, c: &TxCycle) -> Result<(), String> {
        let t = self.t;
        let p = self.p;
        let s = self.start.take().expect("an LTP ended that never started");
        let beats = std::mem::take(&mut self.beats);
        let fires = std::mem::take(&mut self.fire_cycles);
        let flits: [u128; LTP_FLITS] = std::array::from_fn(|i| beats[i]);
        let tr = beats[LTP_FLITS];
        let tag = if s.null {
            format!("null LTP started at {}", s.cycle)
        } else {
            format!("LTP {} started at {}", s.seq, s.cycle)
        };
        if tr >> 16 != 0 {
            return bad(t, format!("{tag}: trailer beat {tr:#x} has bits above 15"));
        }
        let tr = tr as u16;
        let sideband = (tr >> SIDEBAND_SHIFT) as u8;
        if s.null && sideband != 0 {
            return bad(t, format!("{tag}: null LTP with sideband {sideband}"));
        }
        let crc = ltp_crc(&flits, sideband);
        let check = if s.null {
            crc
        } else {
            crc ^ (s.seq as u16 & 0x3fff)
        };
        let want = trailer(check, s.state, sideband);
        if tr != want {
            return bad(
                t,
                format!(
                    "{tag}: trailer {tr:#x}, expected {want:#x} (state {}; a state error \
                     shows in bits 13..12)",
                    s.state
                ),
            );
        }
        // The trailer without the state, which a replay may send at another.
        let stateless = tr ^ (s.state as u16) << STATE_SHIFT;
        self.st = s.state;
        if s.null {
            return self.end_null(&s, &flits, &tag);
        }
        if !s.new {
            let (f, c0) = self.stored[s.seq as usize];
            if f != flits || c0 != stateless {
                let i = (0..LTP_FLITS).find(|&i| f[i] != flits[i]);
                return bad(
                    t,
                    format!("{tag}: replay differs from the first copy (flit {i:?})"),
                );
            }
            self.stats.replayed += 1;
            return Ok(());
        }
        self.stored.push((flits, stateless));
        self.finished += 1;
        self.stats.new_ltps += 1;
        // Slot priority: the builder wrote this LTP's flit 0 after the serializer took the
        // previous new LTP, so it had seen at least that LTP's `freed_before` freed and every
        // credit returned up to that LTP; a VC owed a quarter of the buffer then makes flit 0
        // an urgent CrdtRet (echoes and markers never take flit 0), before any data.
        if let Some(freed) = std::mem::replace(&mut self.last_new_freed, s.freed_before.clone()) {
            let urgent =
                (0..p.vcs).any(|v| freed[v].saturating_sub(self.crdt_seen[v]) >= p.own_depth / 4);
            if urgent {
                if !matches!(kind(flits[0]), Kind::Credit(..)) {
                    return bad(
                        t,
                        format!(
                            "{tag}: flit 0 is {:?} while a VC was owed at least {} credits (freed {freed:?}, returned {:?})",
                            kind(flits[0]),
                            p.own_depth / 4,
                            self.crdt_seen
                        ),
                    );
                }
                self.stats.urgent_first += 1;
            }
        }
        // The sideband's credits, delivered with the LTP.
        if sideband != 0 {
            let Some(v) = sideband_vc(s.seq, p.vcs) else {
                return bad(
                    t,
                    format!("{tag}: sideband {sideband} on a sequence number of no VC"),
                );
            };
            self.crdt_seen[v] += sideband_credits(sideband) as u64;
            self.stats.sideband_credits += sideband_credits(sideband) as u64;
            if self.crdt_seen[v] > self.freed_total[v] {
                return bad(t, format!("{tag}: VC {v} sideband credits before freed"));
            }
        }
        // The far end takes the new LTP's flits.
        for (i, &f) in flits.iter().enumerate() {
            let vc_ok = |v: u8| (v as usize) < p.vcs;
            match kind(f) {
                Kind::Idle => {}
                Kind::Lt(Some((LtCode::RndTripMrkr, x))) if i > 0 => {
                    if x as u16 != s.seq as u16 {
                        return bad(t, format!("{tag}: RndTripMrkr({x}) in flit {i}"));
                    }
                    if let Some(m) = self.marker {
                        return bad(
                            t,
                            format!("{tag}: a new marker while marker {} is outstanding", m.seq),
                        );
                    }
                    self.marker = Some(Marker {
                        seq: s.seq,
                        written_after: s.after,
                        seen: s.cycle,
                    });
                    self.stats.markers += 1;
                }
                Kind::Lt(Some((LtCode::RndTripEcho, x))) if i > 0 => {
                    if !self.echo.iter().any(|&x| x < fires[i]) {
                        return bad(t, format!("{tag}: echo in flit {i} nobody asked for"));
                    }
                    self.echo.clear();
                    if x != c.rx_expect as u32 {
                        return bad(
                            t,
                            format!("{tag}: RndTripEcho({x}), rx_expect {}", c.rx_expect),
                        );
                    }
                    self.stats.echoes_ltp += 1;
                }
                Kind::Lt(x) => return bad(t, format!("{tag}: LT flit {x:?} in flit {i}")),
                Kind::Credit(v, n) => {
                    if !vc_ok(v) || n == 0 {
                        return bad(t, format!("{tag}: CrdtRet({v}, {n})"));
                    }
                    self.crdt_seen[v as usize] += n;
                    self.stats.flit_credits += n;
                    if self.crdt_seen[v as usize] > self.freed_total[v as usize] {
                        return bad(t, format!("{tag}: VC {v} credits returned before freed"));
                    }
                }
                Kind::VlMrkr(v) => {
                    if !vc_ok(v) || v == self.far_vc {
                        return bad(
                            t,
                            format!(
                                "{tag}: VlMrkr({v}) in flit {i}, far end on VC {}",
                                self.far_vc
                            ),
                        );
                    }
                    self.far_vc = v;
                    self.stats.vl_markers += 1;
                }
                Kind::Head(v) => {
                    if !vc_ok(v) {
                        return bad(t, format!("{tag}: head of VC {v}"));
                    }
                    if let Some(o) = self.open {
                        if !p.interleave && o != v {
                            return bad(
                                t,
                                format!("{tag}: head of VC {v} inside a packet of VC {o}"),
                            );
                        }
                    }
                    self.far_vc = v;
                    self.open = Some(v);
                    self.deliver(v, f, &tag, i)?;
                }
                Kind::Data { end } => {
                    let v = self.far_vc;
                    if let Some(o) = self.open {
                        if !p.interleave && o != v {
                            return bad(
                                t,
                                format!("{tag}: flit of VC {v} inside a packet of VC {o}"),
                            );
                        }
                    }
                    if end && self.open == Some(v) {
                        self.open = None;
                    }
                    self.deliver(v, f, &tag, i)?;
                }
            }
        }
        Ok(())
    }

    fn deliver(&mut self, v: u8, f: u128, tag: &str, i: usize) -> Result<(), String> {
        let t = self.t;
        let v = v as usize;
        match self.expect[v].pop_front() {
            Some(w) if w == f => {}
            w => {
                return bad(
                    t,
                    format!("{tag} flit {i}: VC {v} got {f:#x}, expected {w:x?}"),
                )
            }
        }
        self.delivered[v] += 1;
        self.stats.data_flits += 1;
        self.far_occ[v] += 1;
        if self.far_occ[v] > self.p.depth {
            return bad(t, format!("{tag} flit {i}: VC {v} far buffer overflows"));
        }
        Ok(())
    }

    fn end_null(&mut self, s: &Start, flits: &[u128; LTP_FLITS], tag: &str) -> Result<(), String> {
        let t = self.t;
        for i in 0..3 {
            if flits[i] != s.want[i] {
                return bad(
                    t,
                    format!(
                        "{tag}: flit {i} {:x?}, expected {:x?}",
                        decode_lt(flits[i]),
                        decode_lt(s.want[i])
                    ),
                );
            }
        }
        if flits[3] != 0 {
            // An echo: a send_echo pulse before the start must be waiting.
            if !self.echo.iter().any(|&x| x + 1 < s.cycle) {
                return bad(t, format!("{tag}: echo nobody asked for"));
            }
            self.echo.clear();
            let want = LtCode::RndTripEcho.flit(s.want[3] as u32);
            if flits[3] != want {
                return bad(
                    t,
                    format!(
                        "{tag}: flit 3 {:x?}, expected {:x?}",
                        decode_lt(flits[3]),
                        decode_lt(want)
                    ),
                );
            }
            self.stats.echoes_null += 1;
        }
        if flits[4] != 0 {
            let Some((LtCode::RndTripMrkr, x)) = decode_lt(flits[4]) else {
                return bad(t, format!("{tag}: flit 4 {:#x}", flits[4]));
            };
            if !s.poll_ok {
                return bad(
                    t,
                    format!(
                        "{tag}: poll with no marker outstanding for rt_timeout ({:?})",
                        self.marker
                    ),
                );
            }
            let ok = (s.next_lo..=s.next_hi).any(|n| n as u16 == x as u16);
            if !ok {
                return bad(
                    t,
                    format!(
                        "{tag}: poll RndTripMrkr({x}), next_seq in [{}, {}]",
                        s.next_lo, s.next_hi
                    ),
                );
            }
            // The pending poll of an echoed marker leaves first.
            self.late_poll = false;
            self.last_poll = Some(t);
            self.stats.polls += 1;
        }
        if let Some(i) = (5..LTP_FLITS).find(|&i| flits[i] != 0) {
            return bad(t, format!("{tag}: flit {i} is {:#x}, not Idle", flits[i]));
        }
        Ok(())
    }

    /// Checks at the end of a run, after the bench let everything drain.
    pub fn finish(&self, c: &TxCycle) -> Result<(), String> {
        let t = self.t;
        for v in 0..self.p.vcs {
            if !self.expect[v].is_empty() {
                return bad(
                    t,
                    format!(
                        "VC {v}: {} flits taken from the core never arrived",
                        self.expect[v].len()
                    ),
                );
            }
            if self.crdt_seen[v] != self.freed_total[v] {
                return bad(
                    t,
                    format!(
                        "VC {v}: CrdtRet flits and sidebands returned {}, freed {}",
                        self.crdt_seen[v], self.freed_total[v]
                    ),
                );
            }
        }
        if !self.quiet() {
            return bad(t, "requests still pending at the end".into());
        }
        if c.replay_fill != self.started - self.ack {
            return bad(
                t,
                format!(
                    "replay_fill {} at the end, model {}",
                    c.replay_fill,
                    self.started - self.ack
                ),
            );
        }
        Ok(())
    }

    /// Marker timing: when the marker was seen, for the bench's far end.
    pub fn marker_seen(&self) -> Option<u64> {
        self.marker.map(|m| m.seen)
    }
}
