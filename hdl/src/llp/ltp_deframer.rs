//! LTP deframer: the receive gearbox of the link layer, from lane beats to the 16 flits of each
//! LTP, with the LTP's CRC-14 difference, its sequence state and per-XFR-group CRC-8s.
//!
//! Input: `lanes` (no backpressure), as [`super::ltp_striper::LtpStriper`] sends them (software
//! model [`super::ltp::stripe`]): XFR `g` of the rotation on logical lane `g mod L`, logical lane
//! `n` = the `n`-th set bit of `mask`, `start` on the lane that carries an LTP's XFR 0. A beat
//! is a cycle in which any active lane is valid; lanes outside `mask` are ignored.
//!
//! Attempts: every start flag begins an *LTP attempt*, and every attempt gets exactly one
//! `end_valid` pulse, in the order the attempts began, strictly after the attempt's last `flit_valid`. An
//! attempt is intact (`end_intact`) when its 33 XFRs arrived in order with no missing lane, no
//! unexpected start flag and no queue overflow, and its trailer's state bits equal the logical
//! lane of its XFR 0. Anomalies end the attempt at once as bad and the deframer hunts for the
//! next start flag:
//! - a missing lane: an active lane invalid below the highest valid lane of a beat, or a lane
//!   the attempt needed in this beat (a beat must carry `min(L, XFRs left)` XFRs of it);
//! - a start flag where the attempt expects a data XFR: the attempt ends bad and a new one
//!   begins on that lane (several start flags in one beat each begin an attempt, all but the
//!   last ending bad at once);
//! - a change of `mask` (compared with a registered copy);
//! - more XFRs than the queue holds (a far end sending faster than 33 XFRs per 17 cycles).
//!
//! XFRs that belong to no attempt (while hunting, before a start flag) pulse `stray`. The
//! outputs of a bad attempt (its flits, `end_crc_diff`, `end_gcrc`) are meaningless, but every
//! flit of an intact attempt is exactly the one sent.
//!
//! Outputs with `end_valid`: `end_crc_diff` = CRC-14 of the 16 received flits (as
//! [`super::ltp::ltp_crc`]) XOR the trailer's CRC field: the consumer compares it with the value
//! the sender XORed in (a sequence number), so the block does not compare it with zero.
//! `end_state` = logical lane of XFR 0. `end_gcrc` = per-group CRC-8/SMBUS ([`crate::crc::CRC8`],
//! one 32-bit XFR per step, word bit 31 first since the CRC is not reflected): group `m`
//! (bits `8m .. 8m+7`) over XFRs `j` with `j mod L == m` in order of `j`, groups `>= L` zero.
//!
//! Latency: a beat on `lanes` is registered, written into the queue on the next edge, and the
//! flit it completes leaves from a register two edges later; `lane_missing` and `stray` pulse
//! two cycles after the beat was on `lanes` (registered, physical lane order).
//!
//! Structure (why it is cheap): the input beat is registered, then each physical lane has its
//! own FIFO of [`LANE_DEPTH`] fixed slots with read/write pointers (written straight from the
//! lane with no multiplexer). The reader walks the logical lanes: per cycle it takes two XFRs
//! (`2i+1`, `2i+2`, from lanes `lp` and `lp+1 mod L`, two 4:1 multiplexers of lane heads) and
//! shifts the 96-bit window `{XFR 2i+2, XFR 2i+1, XFR 2i}` right by `i` (one log shifter) to get
//! flit `i`; XFR 0 alone takes one cycle, so an LTP takes exactly 17 cycles. At `L` = 1 it takes
//! one XFR per cycle (the first of each pair waits in a register), 33 cycles per LTP, the line
//! rate. The group CRCs are kept per group (two CRC-8 steps, one per XFR read) so no rotation is
//! needed at the end. Control works on 4-bit lane vectors only.
//!
//! Attempt bookkeeping: the reader lags the writer by at most a few XFRs, so it may still be
//! reading an older, complete attempt while the writer aborts a newer one; the writer then
//! rewinds the lane FIFOs to where the newer attempt began (per-lane counts of the older
//! attempt's XFRs are kept), otherwise it empties them. Ends of attempts that ended early are
//! counted and emitted one per cycle when the end port is free, those owed before the reader's
//! attempt before its flit 0, those owed after it after its end (`pend`, `pend_a`, saturating
//! near 24: a far end that begins more than one attempt per cycle for long cannot have them all
//! reported).
//!
//! Ports: `clock`, `reset` (synchronous, active high: drops everything and hunts), `lanes`,
//! `mask`, `flit`, `flit_valid`, `flit_pos`, `end_valid`, `end_intact`, `end_crc_diff`, `end_state`,
//! `end_gcrc`, `lane_missing`, `stray`. No parameters.
use super::lane_channel::LaneChannelIn;
use crate::crc::{CrcStep, CRC14, CRC8};
use rust_hdl::prelude::*;

/// Slots of each physical lane's XFR FIFO (2 overflows at 2 and 3 lanes, where the reader's
/// single XFR-0 cycle per LTP lags the striper's dense beats).
pub const LANE_DEPTH: usize = 3;

/// Receive gearbox from lane beats to LTP flits, with CRC-14 difference and group CRCs.
#[derive(LogicBlock)]
pub struct LtpDeframer {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: drops everything and hunts for a start flag.
    pub reset: Signal<In, bool>,
    /// Physical lanes from the PHY (no backpressure).
    pub lanes: LaneChannelIn,
    /// Active physical lanes (at least one); a change ends the attempt in progress as bad.
    pub mask: Signal<In, Bits<4>>,
    /// Flit `flit_pos` of the attempt in progress.
    pub flit: Signal<Out, Bits<65>>,
    /// `flit` is valid (at most one per cycle, positions 0..15 in order).
    pub flit_valid: Signal<Out, bool>,
    /// Position of `flit` in its LTP.
    pub flit_pos: Signal<Out, Bits<4>>,
    /// One pulse per attempt, after its last flit (the brief's `end`: `end` is a Verilog
    /// keyword).
    pub end_valid: Signal<Out, bool>,
    /// With `end`: the attempt is intact (see the module documentation).
    pub end_intact: Signal<Out, bool>,
    /// With `end`: CRC-14 of the received flits XOR the trailer's CRC field.
    pub end_crc_diff: Signal<Out, Bits<14>>,
    /// With `end`: logical lane of XFR 0.
    pub end_state: Signal<Out, Bits<2>>,
    /// With `end`: CRC-8 of XFR group `m` in bits `8m .. 8m+7`.
    pub end_gcrc: Signal<Out, Bits<32>>,
    /// Physical lanes (in the mask) that dropped a transfer (two cycles after the beat).
    pub lane_missing: Signal<Out, Bits<4>>,
    /// Valid XFRs that belong to no attempt arrived (two cycles after the beat).
    pub stray: Signal<Out, bool>,

    // Input registers and lane tables of the registered mask.
    in_valid: DFF<Bits<4>>,
    in_start: DFF<Bits<4>>,
    in_data: DFF<Bits<128>>,
    mask_q: DFF<Bits<4>>,
    mask_chg: DFF<bool>,
    // Logical lane n -> physical lane, bits 2n..2n+1.
    w_phys: DFF<Bits<8>>,
    // Physical lane p -> logical lane, bits 2p..2p+1.
    w_log: DFF<Bits<8>>,
    w_lanes: DFF<Bits<3>>,
    // Logical lanes below L.
    w_lmask: DFF<Bits<4>>,
    // Writer: an attempt in progress, its XFRs so far.
    w_active: DFF<bool>,
    w_j: DFF<Bits<6>>,
    w_need: DFF<Bits<4>>,
    w_last: DFF<bool>,
    // Lane FIFOs: slot s of physical lane p is slots[2p + s].
    slots: Vec<DFF<Bits<32>>>,
    slot_start: DFF<Bits<16>>,
    rptr: Vec<DFF<Bits<3>>>,
    cnt: Vec<DFF<Bits<3>>>,
    // XFRs of the reader's older attempt per lane (valid while `r_older`).
    base: Vec<DFF<Bits<3>>>,
    // Reader.
    r_active: DFF<bool>,
    r_older: DFF<bool>,
    r_i: DFF<Bits<4>>,
    r_phase: DFF<bool>,
    r_lp: DFF<Bits<2>>,
    r_ga: DFF<Bits<2>>,
    r_state: DFF<Bits<2>>,
    r_phys: DFF<Bits<8>>,
    r_lanes: DFF<Bits<3>>,
    carry: DFF<Bits<32>>,
    hold: DFF<Bits<32>>,
    trailer: DFF<Bits<16>>,
    gcrc: Vec<DFF<Bits<8>>>,
    crc: DFF<Bits<14>>,
    // Ends not yet emitted of attempts that ended early.
    pend: DFF<Bits<5>>,
    // Ends owed after the end of the reader's attempt.
    pend_a: DFF<Bits<5>>,
    inc_p: DFF<Bits<5>>,
    inc_a: DFF<Bits<5>>,
    pend_in: Signal<Local, Bits<5>>,
    end_s1: DFF<bool>,
    // Output registers.
    flit_q: DFF<Bits<65>>,
    flit_valid_q: DFF<bool>,
    flit_pos_q: DFF<Bits<4>>,
    end_q: DFF<bool>,
    end_intact_q: DFF<bool>,
    end_state_q: DFF<Bits<2>>,
    end_gcrc_q: DFF<Bits<32>>,
    missing_q: DFF<Bits<4>>,
    stray_q: DFF<bool>,
    // CRC steps: group CRC of the first and second XFR read in a cycle, LTP CRC of a flit.
    step_a: CrcStep<8, 32>,
    step_b: CrcStep<8, 32>,
    step_c: CrcStep<14, 65>,
    // Constants.
    k2: Vec<Constant<Bits<2>>>,
    k3: Vec<Constant<Bits<3>>>,
    k4: Vec<Constant<Bits<4>>>,
    low: Vec<Constant<Bits<4>>>,
    one3: Constant<Bits<3>>,
    one4: Constant<Bits<4>>,
    one5: Constant<Bits<5>>,
    sat: Constant<Bits<5>>,
    xfrs: Constant<Bits<6>>,
    fifteen: Constant<Bits<4>>,
    // Lane tables of the mask port.
    t_log: Vec<Signal<Local, Bits<2>>>,
    t_pn: Vec<Signal<Local, Bits<2>>>,
    t_phys: Signal<Local, Bits<8>>,
    t_low: Signal<Local, Bits<5>>,
    wp_all: Signal<Local, Bits<4>>,
    t_lanes: Signal<Local, Bits<3>>,
    // Writer.
    vl: Signal<Local, Bits<4>>,
    sl: Signal<Local, Bits<4>>,
    pn: Signal<Local, Bits<2>>,
    act: Signal<Local, bool>,
    beat: Signal<Local, bool>,
    rem: Signal<Local, Bits<6>>,
    cur_m: Signal<Local, Bits<4>>,
    s_cur: Signal<Local, Bits<4>>,
    unexpected: Signal<Local, bool>,
    cur_part: Signal<Local, Bits<4>>,
    cur_miss: Signal<Local, Bits<4>>,
    cur_abort: Signal<Local, bool>,
    cur_done: Signal<Local, bool>,
    after_m: Signal<Local, Bits<4>>,
    s_after: Signal<Local, Bits<4>>,
    has_new: Signal<Local, bool>,
    new_m: Signal<Local, Bits<4>>,
    new_ok: Signal<Local, bool>,
    starts: Signal<Local, Bits<5>>,
    below_hi: Signal<Local, Bits<4>>,
    miss_log: Signal<Local, Bits<4>>,
    miss_phys: Signal<Local, Bits<4>>,
    stray_m: Signal<Local, Bits<4>>,
    w_old: Signal<Local, Bits<4>>,
    w_new: Signal<Local, Bits<4>>,
    wp_old: Signal<Local, Bits<4>>,
    wp_new: Signal<Local, Bits<4>>,
    kill: Signal<Local, bool>,
    ss: Signal<Local, Bits<16>>,
    kill_all: Signal<Local, bool>,
    flush: Signal<Local, bool>,
    ovf: Signal<Local, bool>,
    new_go: Signal<Local, bool>,
    inc: Signal<Local, Bits<5>>,
    cnt_old: Signal<Local, Bits<3>>,
    cnt_new: Signal<Local, Bits<3>>,
    eff: Vec<Signal<Local, Bits<3>>>,
    left: Vec<Signal<Local, Bits<3>>>,
    wsum: Vec<Signal<Local, Bits<3>>>,
    rsum: Vec<Signal<Local, Bits<3>>>,
    depth: Constant<Bits<3>>,
    // Reader.
    pop: Signal<Local, Bits<4>>,
    head_v: Signal<Local, Bits<4>>,
    head_s: Signal<Local, Bits<4>>,
    heads: Vec<Signal<Local, Bits<32>>>,
    one_lane: Signal<Local, bool>,
    lp_b: Signal<Local, Bits<2>>,
    lp_2: Signal<Local, Bits<2>>,
    g_b: Signal<Local, Bits<2>>,
    g_2: Signal<Local, Bits<2>>,
    inc_t: Signal<Local, Bits<3>>,
    phys_a: Signal<Local, Bits<2>>,
    phys_b: Signal<Local, Bits<2>>,
    va: Signal<Local, bool>,
    vb: Signal<Local, bool>,
    xa: Signal<Local, Bits<32>>,
    xb: Signal<Local, Bits<32>>,
    a_eff: Signal<Local, Bits<32>>,
    read_a: Signal<Local, bool>,
    read_b: Signal<Local, bool>,
    emit: Signal<Local, bool>,
    found: Signal<Local, bool>,
    r_start: Signal<Local, bool>,
    start_lane: Signal<Local, Bits<2>>,
    start_phys: Signal<Local, Bits<2>>,
    finish: Signal<Local, bool>,
    active_next: Signal<Local, bool>,
    ga_eff: Signal<Local, Bits<2>>,
    window: Signal<Local, Bits<96>>,
    dec: Signal<Local, bool>,
}

impl LtpDeframer {
    /// A deframer.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            lanes: Default::default(),
            mask: Default::default(),
            flit: Default::default(),
            flit_valid: Default::default(),
            flit_pos: Default::default(),
            end_valid: Default::default(),
            end_intact: Default::default(),
            end_crc_diff: Default::default(),
            end_state: Default::default(),
            end_gcrc: Default::default(),
            lane_missing: Default::default(),
            stray: Default::default(),
            in_valid: Default::default(),
            in_start: Default::default(),
            in_data: Default::default(),
            mask_q: Default::default(),
            mask_chg: Default::default(),
            w_phys: Default::default(),
            w_log: Default::default(),
            w_lanes: Default::default(),
            w_lmask: Default::default(),
            w_active: Default::default(),
            w_j: Default::default(),
            w_need: Default::default(),
            w_last: Default::default(),
            slots: (0..4 * LANE_DEPTH).map(|_| Default::default()).collect(),
            slot_start: Default::default(),
            rptr: (0..4).map(|_| Default::default()).collect(),
            cnt: (0..4).map(|_| Default::default()).collect(),
            base: (0..4).map(|_| Default::default()).collect(),
            r_active: Default::default(),
            r_older: Default::default(),
            r_i: Default::default(),
            r_phase: Default::default(),
            r_lp: Default::default(),
            r_ga: Default::default(),
            r_state: Default::default(),
            r_phys: Default::default(),
            r_lanes: Default::default(),
            carry: Default::default(),
            hold: Default::default(),
            trailer: Default::default(),
            gcrc: (0..4).map(|_| Default::default()).collect(),
            crc: Default::default(),
            pend: Default::default(),
            pend_a: Default::default(),
            inc_p: Default::default(),
            inc_a: Default::default(),
            pend_in: Default::default(),
            end_s1: Default::default(),
            flit_q: Default::default(),
            flit_valid_q: Default::default(),
            flit_pos_q: Default::default(),
            end_q: Default::default(),
            end_intact_q: Default::default(),
            end_state_q: Default::default(),
            end_gcrc_q: Default::default(),
            missing_q: Default::default(),
            stray_q: Default::default(),
            step_a: CrcStep::new(&CRC8),
            step_b: CrcStep::new(&CRC8),
            step_c: CrcStep::new(&CRC14),
            k2: (0..4).map(|n| Constant::new((n as u64).into())).collect(),
            k3: (0..8).map(|n| Constant::new((n as u64).into())).collect(),
            k4: (0..16).map(|n| Constant::new((n as u64).into())).collect(),
            low: (0..5)
                .map(|n| Constant::new((((1u64 << n) - 1) & 15).into()))
                .collect(),
            one3: Constant::new(1u64.into()),
            one4: Constant::new(1u64.into()),
            one5: Constant::new(1u64.into()),
            sat: Constant::new(24u64.into()),
            xfrs: Constant::new(33u64.into()),
            fifteen: Constant::new(15u64.into()),
            t_log: (0..4).map(|_| Default::default()).collect(),
            t_pn: (0..4).map(|_| Default::default()).collect(),
            t_phys: Default::default(),
            t_low: Default::default(),
            wp_all: Default::default(),
            t_lanes: Default::default(),
            vl: Default::default(),
            sl: Default::default(),
            pn: Default::default(),
            act: Default::default(),
            beat: Default::default(),
            rem: Default::default(),
            cur_m: Default::default(),
            s_cur: Default::default(),
            unexpected: Default::default(),
            cur_part: Default::default(),
            cur_miss: Default::default(),
            cur_abort: Default::default(),
            cur_done: Default::default(),
            after_m: Default::default(),
            s_after: Default::default(),
            has_new: Default::default(),
            new_m: Default::default(),
            new_ok: Default::default(),
            starts: Default::default(),
            below_hi: Default::default(),
            miss_log: Default::default(),
            miss_phys: Default::default(),
            stray_m: Default::default(),
            w_old: Default::default(),
            w_new: Default::default(),
            wp_old: Default::default(),
            wp_new: Default::default(),
            kill: Default::default(),
            ss: Default::default(),
            kill_all: Default::default(),
            flush: Default::default(),
            ovf: Default::default(),
            new_go: Default::default(),
            inc: Default::default(),
            cnt_old: Default::default(),
            cnt_new: Default::default(),
            eff: (0..4).map(|_| Default::default()).collect(),
            left: (0..4).map(|_| Default::default()).collect(),
            wsum: (0..4).map(|_| Default::default()).collect(),
            rsum: (0..4).map(|_| Default::default()).collect(),
            depth: Constant::new((LANE_DEPTH as u64).into()),
            pop: Default::default(),
            head_v: Default::default(),
            head_s: Default::default(),
            heads: (0..4).map(|_| Default::default()).collect(),
            one_lane: Default::default(),
            lp_b: Default::default(),
            lp_2: Default::default(),
            g_b: Default::default(),
            g_2: Default::default(),
            inc_t: Default::default(),
            phys_a: Default::default(),
            phys_b: Default::default(),
            va: Default::default(),
            vb: Default::default(),
            xa: Default::default(),
            xb: Default::default(),
            a_eff: Default::default(),
            read_a: Default::default(),
            read_b: Default::default(),
            emit: Default::default(),
            found: Default::default(),
            r_start: Default::default(),
            start_lane: Default::default(),
            start_phys: Default::default(),
            finish: Default::default(),
            active_next: Default::default(),
            ga_eff: Default::default(),
            window: Default::default(),
            dec: Default::default(),
        }
    }
}

impl Default for LtpDeframer {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for LtpDeframer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            in_valid,
            in_start,
            in_data,
            mask_q,
            mask_chg,
            w_phys,
            w_log,
            w_lanes,
            w_lmask,
            w_active,
            w_j,
            w_need,
            w_last,
            slot_start,
            r_active,
            r_older,
            r_i,
            r_phase,
            r_lp,
            r_ga,
            r_state,
            r_phys,
            r_lanes,
            carry,
            hold,
            trailer,
            crc,
            pend,
            pend_a,
            inc_p,
            inc_a,
            end_s1,
            flit_q,
            flit_valid_q,
            flit_pos_q,
            end_q,
            end_intact_q,
            end_state_q,
            end_gcrc_q,
            missing_q,
            stray_q
        );
        for i in 0..(4 * LANE_DEPTH) {
            self.slots[i].clock.next = self.clock.val();
            self.slots[i].d.next = self.slots[i].q.val();
        }
        for p in 0..4 {
            self.rptr[p].clock.next = self.clock.val();
            self.rptr[p].d.next = self.rptr[p].q.val();
            self.cnt[p].clock.next = self.clock.val();
            self.cnt[p].d.next = self.cnt[p].q.val();
            self.base[p].clock.next = self.clock.val();
            self.base[p].d.next = self.base[p].q.val();
            self.gcrc[p].clock.next = self.clock.val();
            self.gcrc[p].d.next = self.gcrc[p].q.val();
        }
        self.flit.next = self.flit_q.q.val();
        self.flit_valid.next = self.flit_valid_q.q.val();
        self.flit_pos.next = self.flit_pos_q.q.val();
        self.end_valid.next = self.end_q.q.val();
        self.end_intact.next = self.end_intact_q.q.val();
        self.end_state.next = self.end_state_q.q.val();
        self.end_gcrc.next = self.end_gcrc_q.q.val();
        self.end_crc_diff.next = self.crc.q.val() ^ self.trailer.q.val().get_bits::<14>(0);
        self.lane_missing.next = self.missing_q.q.val();
        self.stray.next = self.stray_q.q.val();

        // ---- Input registers and the lane tables of the mask port.
        self.in_valid.d.next = self.lanes.valid.val();
        self.in_start.d.next = self.lanes.start.val();
        self.in_data.d.next = self.lanes.data.val();
        self.mask_q.d.next = self.mask.val();
        self.mask_chg.d.next = self.mask.val() != self.mask_q.q.val();
        self.t_log[0].next = 0.into();
        for p in 1..4 {
            self.t_log[p].next = self.t_log[p - 1].val();
            if self.mask.val().get_bit(p - 1) {
                self.t_log[p].next = self.t_log[p - 1].val() + 1;
            }
        }
        self.t_lanes.next = 0.into();
        for n in 0..4 {
            self.t_pn[n].next = 0.into();
        }
        for p in 0..4 {
            if self.mask.val().get_bit(p) {
                self.t_lanes.next = self.t_lanes.val() + 1;
                for n in 0..4 {
                    if self.t_log[p].val() == self.k2[n].val() {
                        self.t_pn[n].next = self.k2[p].val();
                    }
                }
            }
        }
        self.t_phys.next = (bit_cast::<8, 2>(self.t_pn[3].val()) << 6)
            | (bit_cast::<8, 2>(self.t_pn[2].val()) << 4)
            | (bit_cast::<8, 2>(self.t_pn[1].val()) << 2)
            | bit_cast::<8, 2>(self.t_pn[0].val());
        self.w_phys.d.next = self.t_phys.val();
        self.w_log.d.next = (bit_cast::<8, 2>(self.t_log[3].val()) << 6)
            | (bit_cast::<8, 2>(self.t_log[2].val()) << 4)
            | (bit_cast::<8, 2>(self.t_log[1].val()) << 2)
            | bit_cast::<8, 2>(self.t_log[0].val());
        self.w_lanes.d.next = self.t_lanes.val();
        self.t_low.next = self.one5.val() << self.t_lanes.val();
        self.w_lmask.d.next = self.t_low.val().get_bits::<4>(0) - self.one4.val();
        if self.t_lanes.val() == 4 {
            self.w_lmask.d.next = self.k4[15].val();
        }

        // ---- Writer: the registered beat in logical lane order.
        self.vl.next = 0.into();
        self.sl.next = 0.into();
        for n in 0..4 {
            self.pn.next = self.w_phys.q.val().get_bits::<2>(2 * n);
            if self.w_lmask.q.val().get_bit(n) {
                self.vl.next = self
                    .vl
                    .val()
                    .replace_bit(n, self.in_valid.q.val().get_bit(self.pn.val().index()));
                self.sl.next = self.sl.val().replace_bit(
                    n,
                    self.in_valid.q.val().get_bit(self.pn.val().index())
                        & self.in_start.q.val().get_bit(self.pn.val().index()),
                );
            }
        }
        self.beat.next = self.vl.val().any();
        self.act.next = self.w_active.q.val() & !self.mask_chg.q.val();
        // Lanes of the attempt in progress in this beat: min(L, XFRs left), decided on the
        // last edge (`w_need`, `w_last`) to keep the subtraction off the beat analysis.
        self.cur_m.next = 0.into();
        if self.act.val() {
            self.cur_m.next = self.w_need.q.val();
        }
        self.s_cur.next = self.sl.val() & self.cur_m.val();
        self.unexpected.next = self.s_cur.val().any();
        self.cur_part.next = self.cur_m.val();
        if self.unexpected.val() {
            // Lanes below the lowest unexpected start.
            self.cur_part.next =
                self.cur_m.val() & !self.s_cur.val() & (self.s_cur.val() - self.one4.val());
        }
        self.cur_miss.next = self.cur_part.val() & !self.vl.val();
        self.cur_abort.next =
            self.beat.val() & self.act.val() & (self.unexpected.val() | self.cur_miss.val().any());
        self.cur_done.next =
            self.beat.val() & self.act.val() & !self.cur_abort.val() & self.w_last.q.val();
        // After the attempt's lanes: start flags begin attempts, the last one survives.
        self.after_m.next = self.w_lmask.q.val() & !self.cur_part.val();
        self.s_after.next = self.sl.val() & self.after_m.val();
        self.has_new.next = self.beat.val() & self.s_after.val().any();
        self.new_m.next = 0.into();
        self.starts.next = 0.into();
        for n in 0..4 {
            if self.s_after.val().get_bit(n) {
                self.new_m.next = self.w_lmask.q.val() & !self.low[n].val();
                self.starts.next = self.starts.val() + 1;
            }
        }
        self.new_ok.next = self.has_new.val() & !(self.new_m.val() & !self.vl.val()).any();
        // Valid lanes after the attempt's part and before the first start flag: stray.
        self.stray_m.next = self.after_m.val()
            & self.vl.val()
            & !self.s_after.val()
            & (self.s_after.val() - self.one4.val());
        // Missing: holes below the highest valid lane, and lanes an attempt needed.
        self.below_hi.next = 0.into();
        for n in 0..4 {
            if self.vl.val().get_bit(n) {
                self.below_hi.next = self.low[n].val();
            }
        }
        self.miss_log.next = 0.into();
        if self.beat.val() {
            self.miss_log.next = (self.below_hi.val() | self.cur_miss.val() | self.new_m.val())
                & !self.vl.val()
                & self.w_lmask.q.val();
        }
        self.miss_phys.next = 0.into();
        for p in 0..4 {
            self.pn.next = self.w_log.q.val().get_bits::<2>(2 * p);
            if self.mask_q.q.val().get_bit(p) {
                self.miss_phys.next = self
                    .miss_phys
                    .val()
                    .replace_bit(p, self.miss_log.val().get_bit(self.pn.val().index()));
            }
        }
        self.missing_q.d.next = self.miss_phys.val();
        self.stray_q.d.next = self.stray_m.val().any();

        // Writes, by logical then physical lane.
        self.w_old.next = 0.into();
        if self.act.val() & !self.cur_abort.val() {
            self.w_old.next = self.cur_part.val() & self.vl.val();
        }
        self.w_new.next = 0.into();
        if self.new_ok.val() {
            self.w_new.next = self.new_m.val();
        }
        self.wp_old.next = 0.into();
        self.wp_new.next = 0.into();
        for n in 0..4 {
            self.pn.next = self.w_phys.q.val().get_bits::<2>(2 * n);
            for p in 0..4 {
                if self.pn.val() == self.k2[p].val() {
                    if self.w_old.val().get_bit(n) {
                        self.wp_old.next = self.wp_old.val().replace_bit(p, true);
                    }
                    if self.w_new.val().get_bit(n) {
                        self.wp_new.next = self.wp_new.val().replace_bit(p, true);
                    }
                }
            }
        }

        // ---- Reader: lane heads and the two XFRs of this cycle.
        self.one_lane.next = self.r_lanes.q.val() == 1;
        self.head_v.next = 0.into();
        self.head_s.next = 0.into();
        for p in 0..4 {
            self.heads[p].next = 0.into();
            // `dd` only binds LANE_DEPTH for the generated index expressions.
            for dd in LANE_DEPTH..(LANE_DEPTH + 1) {
                for k in 0..LANE_DEPTH {
                    if self.rptr[p].q.val() == self.k3[k].val() {
                        self.heads[p].next = self.slots[dd * p + k].q.val();
                        self.head_s.next = self
                            .head_s
                            .val()
                            .replace_bit(p, self.slot_start.q.val().get_bit(dd * p + k));
                    }
                }
            }
            self.head_v.next = self.head_v.val().replace_bit(p, self.cnt[p].q.val().any());
        }
        // Next logical lanes and groups, mod L.
        self.inc_t.next = bit_cast::<3, 2>(self.r_lp.q.val()) + self.one3.val();
        self.lp_b.next = self.inc_t.val().get_bits::<2>(0);
        if self.inc_t.val() == self.r_lanes.q.val() {
            self.lp_b.next = 0.into();
        }
        self.inc_t.next = bit_cast::<3, 2>(self.lp_b.val()) + self.one3.val();
        self.lp_2.next = self.inc_t.val().get_bits::<2>(0);
        if self.inc_t.val() == self.r_lanes.q.val() {
            self.lp_2.next = 0.into();
        }
        self.inc_t.next = bit_cast::<3, 2>(self.r_ga.q.val()) + self.one3.val();
        self.g_b.next = self.inc_t.val().get_bits::<2>(0);
        if self.inc_t.val() == self.r_lanes.q.val() {
            self.g_b.next = 0.into();
        }
        self.inc_t.next = bit_cast::<3, 2>(self.g_b.val()) + self.one3.val();
        self.g_2.next = self.inc_t.val().get_bits::<2>(0);
        if self.inc_t.val() == self.r_lanes.q.val() {
            self.g_2.next = 0.into();
        }
        self.found.next = false;
        self.start_lane.next = 0.into();
        self.start_phys.next = 0.into();
        for n in 0..4 {
            // The lowest logical lane whose head is an XFR 0.
            self.pn.next = self.w_phys.q.val().get_bits::<2>(2 * n);
            if !self.found.val()
                & self.w_lmask.q.val().get_bit(n)
                & self.head_v.val().get_bit(self.pn.val().index())
                & self.head_s.val().get_bit(self.pn.val().index())
            {
                self.found.next = true;
                self.start_lane.next = self.k2[n].val();
                self.start_phys.next = self.pn.val();
            }
        }
        self.phys_a.next = 0.into();
        self.phys_b.next = 0.into();
        for n in 0..4 {
            if self.r_lp.q.val() == self.k2[n].val() {
                self.phys_a.next = self.r_phys.q.val().get_bits::<2>(2 * n);
            }
            if self.lp_b.val() == self.k2[n].val() {
                self.phys_b.next = self.r_phys.q.val().get_bits::<2>(2 * n);
            }
        }
        // While idle, port A reads the XFR 0 that starts the next attempt.
        if !self.r_active.q.val() {
            self.phys_a.next = self.start_phys.val();
        }
        self.xa.next = 0.into();
        self.xb.next = 0.into();
        for p in 0..4 {
            if self.phys_a.val() == self.k2[p].val() {
                self.xa.next = self.heads[p].val();
            }
            if self.phys_b.val() == self.k2[p].val() {
                self.xb.next = self.heads[p].val();
            }
        }
        self.va.next = self.head_v.val().get_bit(self.phys_a.val().index());
        self.vb.next = self.head_v.val().get_bit(self.phys_b.val().index());

        // What the reader does: start an attempt (XFR 0), or read XFR 2i+1 and/or 2i+2.
        self.read_a.next = false;
        self.read_b.next = false;
        self.r_start.next = false;
        self.finish.next = false;
        if self.r_active.q.val() {
            if self.one_lane.val() {
                self.read_a.next = self.va.val() & !self.r_phase.q.val();
                self.read_b.next = self.va.val() & self.r_phase.q.val();
            } else {
                self.read_a.next = self.va.val() & self.vb.val();
                self.read_b.next = self.va.val() & self.vb.val();
            }
            self.finish.next = self.read_b.val() & (self.r_i.q.val() == self.fifteen.val());
        }
        // Start only if the ends owed before this attempt all leave by its flit 0 (two cycles
        // later): at most two, counting the reader's own end in flight.
        self.r_start.next = !self.r_active.q.val()
            & (self.inc_p.q.val() == 0)
            & ((self.pend.q.val() == 0)
                | (self.pend.q.val() == 1)
                | ((self.pend.q.val() == 2) & !self.end_s1.q.val()))
            & self.found.val()
            & !self.reset.val();
        self.pop.next = 0.into();
        for p in 0..4 {
            if (self.read_a.val() & (self.phys_a.val() == self.k2[p].val()))
                | (self.read_b.val() & (self.phys_b.val() == self.k2[p].val()))
                | (self.r_start.val() & (self.start_phys.val() == self.k2[p].val()))
            {
                self.pop.next = self.pop.val().replace_bit(p, true);
            }
        }

        // Flit window: {XFR 2i+2, XFR 2i+1, XFR 2i} >> i.
        self.a_eff.next = self.xa.val();
        if self.one_lane.val() {
            self.a_eff.next = self.hold.q.val();
        }
        self.window.next = (bit_cast::<96, 32>(self.xb.val()) << 64)
            | (bit_cast::<96, 32>(self.a_eff.val()) << 32)
            | bit_cast::<96, 32>(self.carry.q.val());
        self.emit.next = self.read_b.val();
        self.flit_valid_q.d.next = self.emit.val();
        if self.emit.val() {
            self.flit_q.d.next = self.window.val().get_bits::<65>(self.r_i.q.val().index());
            self.flit_pos_q.d.next = self.r_i.q.val();
            self.carry.d.next = self.xb.val();
            self.r_i.d.next = self.r_i.q.val() + 1;
            self.r_lp.d.next = self.lp_2.val();
            self.r_ga.d.next = self.g_2.val();
            if self.one_lane.val() {
                self.r_lp.d.next = 0.into();
                self.r_ga.d.next = 0.into();
            }
        }
        if self.finish.val() {
            self.trailer.d.next = self.xb.val().get_bits::<16>(16);
        }
        if self.one_lane.val() & self.read_a.val() {
            self.hold.d.next = self.xa.val();
        }
        if self.r_active.q.val() & self.one_lane.val() & (self.read_a.val() | self.read_b.val()) {
            self.r_phase.d.next = !self.r_phase.q.val();
        }
        if self.r_start.val() {
            self.carry.d.next = self.xa.val();
            self.r_i.d.next = 0.into();
            self.r_phase.d.next = false;
            self.r_state.d.next = self.start_lane.val();
            self.r_phys.d.next = self.w_phys.q.val();
            self.r_lanes.d.next = self.w_lanes.q.val();
            // Lane and group of XFR 1, mod L (L from the writer's table).
            self.inc_t.next = bit_cast::<3, 2>(self.start_lane.val()) + self.one3.val();
            self.r_lp.d.next = self.inc_t.val().get_bits::<2>(0);
            if self.inc_t.val() == self.w_lanes.q.val() {
                self.r_lp.d.next = 0.into();
            }
            self.r_ga.d.next = 1.into();
            if self.w_lanes.q.val() == 1 {
                self.r_ga.d.next = 0.into();
            }
        }

        // Group CRCs: XFR 0 or 2i+1 through step A, XFR 2i+2 through step B.
        self.ga_eff.next = self.r_ga.q.val();
        self.step_a.state.next = 0.into();
        self.step_a.data.next = self.xa.val();
        if self.r_start.val() {
            self.ga_eff.next = 0.into();
            self.step_a.data.next = self.xa.val();
        }
        self.step_b.state.next = 0.into();
        self.step_b.data.next = self.xb.val();
        for g in 0..4 {
            if (self.r_ga.q.val() == self.k2[g].val()) & !self.r_start.val() {
                self.step_a.state.next = self.gcrc[g].q.val();
            }
            if self.g_b.val() == self.k2[g].val() {
                self.step_b.state.next = self.gcrc[g].q.val();
            }
        }
        for g in 0..4 {
            if self.r_start.val() {
                self.gcrc[g].d.next = 0.into();
            }
            if (self.read_a.val() | self.r_start.val()) & (self.ga_eff.val() == self.k2[g].val()) {
                self.gcrc[g].d.next = self.step_a.next_state.val();
            }
            if self.read_b.val() & (self.g_b.val() == self.k2[g].val()) {
                self.gcrc[g].d.next = self.step_b.next_state.val();
            }
        }

        // LTP CRC over the registered flits.
        self.step_c.data.next = self.flit_q.q.val();
        self.step_c.state.next = self.crc.q.val();
        if self.flit_pos_q.q.val() == 0 {
            self.step_c.state.next = 0.into();
        }
        if self.flit_valid_q.q.val() {
            self.crc.d.next = self.step_c.next_state.val();
        }

        // ---- Aborts, the lane FIFOs and the writer's state.
        self.kill.next = self.cur_abort.val() | (self.w_active.q.val() & self.mask_chg.q.val());
        self.wp_all.next = self.wp_old.val() | self.wp_new.val();
        // Per lane, as if only `kill` (not yet an overflow) applied: a rewind to the older
        // attempt's XFRs while the reader is on it, else an empty FIFO (pops void).
        self.ovf.next = false;
        for p in 0..4 {
            self.eff[p].next = self.cnt[p].q.val();
            if self.kill.val() {
                self.eff[p].next = 0.into();
                if self.r_older.q.val() {
                    self.eff[p].next = self.base[p].q.val();
                }
            }
            self.left[p].next = self.eff[p].val();
            if self.pop.val().get_bit(p) & !(self.kill.val() & !self.r_older.q.val()) {
                self.left[p].next = self.eff[p].val() - 1;
            }
            // Overflow: a lane written while its FIFO stays full after this cycle's pop.
            if self.wp_all.val().get_bit(p) & (self.left[p].val() == self.depth.val()) {
                self.ovf.next = true;
            }
        }
        self.kill_all.next =
            self.kill.val() | (self.ovf.val() & self.act.val() & !self.cur_abort.val());
        self.flush.next = self.kill_all.val() & !self.r_older.q.val();
        self.new_go.next = self.new_ok.val() & !self.ovf.val();
        // Ends owed: the killed attempt, attempts begun and superseded in this beat, a new
        // attempt short of lanes or overflowing.
        self.inc.next = 0.into();
        if self.kill_all.val() {
            self.inc.next = self.one5.val();
        }
        if self.has_new.val() {
            self.inc.next = self.inc.val() + self.starts.val() - self.one5.val();
            if !self.new_go.val() {
                self.inc.next = self.inc.val() + self.one5.val();
            }
        }
        self.ss.next = self.slot_start.q.val();
        for p in 0..4 {
            // Write position: after the XFRs that stay (rewind and flush included).
            self.wsum[p].next = self.rptr[p].q.val() + self.eff[p].val();
            if self.wsum[p].val() >= self.depth.val() {
                self.wsum[p].next = self.wsum[p].val() - self.depth.val();
            }
            self.rsum[p].next = self.rptr[p].q.val() + 1;
            if self.rsum[p].val() == self.depth.val() {
                self.rsum[p].next = 0.into();
            }
            if !self.flush.val() & self.pop.val().get_bit(p) {
                self.rptr[p].d.next = self.rsum[p].val();
            }
            if self.kill_all.val() & !self.kill.val() {
                // Killed by an overflow alone: the same rewind or flush, no writes.
                self.left[p].next = 0.into();
                if self.r_older.q.val() {
                    self.left[p].next = self.base[p].q.val();
                    if self.pop.val().get_bit(p) {
                        self.left[p].next = self.base[p].q.val() - 1;
                    }
                }
            }
            self.cnt[p].d.next = self.left[p].val();
            if !self.ovf.val() & self.wp_all.val().get_bit(p) {
                self.cnt[p].d.next = self.left[p].val() + 1;
                for dd in LANE_DEPTH..(LANE_DEPTH + 1) {
                    for k in 0..LANE_DEPTH {
                        if self.wsum[p].val() == self.k3[k].val() {
                            self.slots[dd * p + k].d.next =
                                self.in_data.q.val().get_bits::<32>(32 * p);
                            self.ss.next = self
                                .ss
                                .val()
                                .replace_bit(dd * p + k, self.in_start.q.val().get_bit(p));
                        }
                    }
                }
            }
            // XFRs of the reader's older attempt per lane: all that stays when a new attempt
            // begins (its part of this beat included), then less each pop.
            self.base[p].d.next = self.base[p].q.val();
            if self.pop.val().get_bit(p) & self.base[p].q.val().any() {
                self.base[p].d.next = self.base[p].q.val() - 1;
            }
            if self.new_go.val() {
                self.base[p].d.next = self.left[p].val();
                if self.wp_old.val().get_bit(p) {
                    self.base[p].d.next = self.left[p].val() + 1;
                }
            }
        }
        self.slot_start.d.next = self.ss.val();
        self.cnt_old.next = bit_cast::<3, 1>(self.cur_part.val().get_bits::<1>(0))
            + bit_cast::<3, 1>(self.cur_part.val().get_bits::<1>(1))
            + bit_cast::<3, 1>(self.cur_part.val().get_bits::<1>(2))
            + bit_cast::<3, 1>(self.cur_part.val().get_bits::<1>(3));
        self.cnt_new.next = bit_cast::<3, 1>(self.new_m.val().get_bits::<1>(0))
            + bit_cast::<3, 1>(self.new_m.val().get_bits::<1>(1))
            + bit_cast::<3, 1>(self.new_m.val().get_bits::<1>(2))
            + bit_cast::<3, 1>(self.new_m.val().get_bits::<1>(3));
        if self.beat.val() & self.act.val() {
            self.w_j.d.next = self.w_j.q.val() + bit_cast::<6, 3>(self.cnt_old.val());
        }
        self.w_active.d.next = self.act.val() & !self.cur_abort.val() & !self.cur_done.val();
        if self.ovf.val() {
            self.w_active.d.next = false;
        }
        if self.new_go.val() {
            self.w_active.d.next = true;
            self.w_j.d.next = bit_cast::<6, 3>(self.cnt_new.val());
        }
        // What the attempt needs of the next beat (the lane count of the next beat changes only
        // with the mask, which ends the attempt).
        self.rem.next = self.xfrs.val() - self.w_j.d.val();
        self.w_need.d.next = self.w_lmask.q.val();
        if self.rem.val() < bit_cast::<6, 3>(self.w_lanes.q.val()) {
            self.w_need.d.next =
                (self.one4.val() << self.rem.val().get_bits::<2>(0)) - self.one4.val();
        }
        self.w_last.d.next = self.rem.val() <= bit_cast::<6, 3>(self.w_lanes.q.val());

        // Reader state after this cycle.
        self.active_next.next = (self.r_active.q.val() & !self.finish.val()) | self.r_start.val();
        if self.flush.val() {
            self.active_next.next = false;
        }
        self.r_active.d.next = self.active_next.val();
        self.r_older.d.next = self.active_next.val()
            & ((self.r_older.q.val() & !self.r_start.val()) | self.new_go.val());

        // Ends: the reader's, one cycle after its last read (so the CRC has the last flit), else
        // the owed ones while the reader is idle.
        self.end_s1.d.next = self.finish.val();
        self.end_q.d.next = false;
        self.end_intact_q.d.next = false;
        self.dec.next = false;
        if self.end_s1.q.val() {
            self.end_q.d.next = true;
            self.end_intact_q.d.next =
                self.trailer.q.val().get_bits::<2>(14) == self.r_state.q.val();
            self.end_state_q.d.next = self.r_state.q.val();
            self.end_gcrc_q.d.next = (bit_cast::<32, 8>(self.gcrc[3].q.val()) << 24)
                | (bit_cast::<32, 8>(self.gcrc[2].q.val()) << 16)
                | (bit_cast::<32, 8>(self.gcrc[1].q.val()) << 8)
                | bit_cast::<32, 8>(self.gcrc[0].q.val());
        } else if self.pend.q.val().any() {
            self.end_q.d.next = true;
            self.dec.next = true;
        }
        if (self.pend.q.val() >= self.sat.val()) | (self.pend_a.q.val() >= self.sat.val()) {
            self.inc.next = 0.into();
        }
        // Ends owed while the reader stays on an attempt are owed after its end (`pend_a`);
        // they join `pend` when the reader stops.
        self.pend_in.next = self.pend.q.val();
        if self.dec.val() {
            self.pend_in.next = self.pend.q.val() - self.one5.val();
        }
        // This cycle's increment is registered first (`inc_p`, `inc_a`), off the abort path.
        self.inc_p.d.next = 0.into();
        self.inc_a.d.next = 0.into();
        if self.active_next.val() {
            self.inc_a.d.next = self.inc.val();
            self.pend.d.next = self.pend_in.val() + self.inc_p.q.val();
            self.pend_a.d.next = self.pend_a.q.val() + self.inc_a.q.val();
        } else {
            self.inc_p.d.next = self.inc.val();
            self.pend.d.next =
                self.pend_in.val() + self.inc_p.q.val() + self.pend_a.q.val() + self.inc_a.q.val();
            self.pend_a.d.next = 0.into();
        }

        if self.reset.val() {
            self.w_active.d.next = false;
            self.r_active.d.next = false;
            self.r_older.d.next = false;
            self.pend.d.next = 0.into();
            self.pend_a.d.next = 0.into();
            self.inc_p.d.next = 0.into();
            self.inc_a.d.next = 0.into();
            self.end_s1.d.next = false;
            self.end_q.d.next = false;
            self.flit_valid_q.d.next = false;
            self.missing_q.d.next = 0.into();
            self.stray_q.d.next = false;
            for p in 0..4 {
                self.rptr[p].d.next = 0.into();
                self.cnt[p].d.next = 0.into();
            }
        }
    }
}

#[test]
fn ltp_deframer_is_synthesizable() {
    let mut uut = LtpDeframer::default();
    uut.connect_all();
    yosys_validate("ltp_deframer", &generate_verilog(&uut)).unwrap();
}
