//! LTP deframer: the receive gearbox of the link layer, from lane beats to the 16 flits of each
//! LTP, with the LTP's CRC-14 difference, its sequence state and per-XFR-group CRC-8s.
//!
//! Input: `lanes` (no backpressure), as [`super::ltp_striper::LtpStriper`] sends them (software
//! model [`super::ltp::stripe`]): XFR `g` of the rotation on logical lane `g mod L`, logical lane
//! `n` = the `n`-th set bit of `mask`, `start` on the lane that carries an LTP's XFR 0. A beat
//! is a cycle in which any active lane is valid; lanes outside `mask` are ignored.
//!
//! Attempts: every start flag begins an *LTP attempt*, and every attempt gets exactly one
//! `end_valid` pulse, in the order the attempts began, strictly after the attempt's last
//! `flit_valid`. An attempt is intact (`end_intact`) when its 33 XFRs arrived in order with no
//! missing lane, no unexpected start flag and no queue overflow, and its trailer's state bits
//! equal the logical lane of its XFR 0. Anomalies end the attempt at once as bad and the
//! deframer hunts for the next start flag:
//! - a missing lane: an active lane invalid below the highest valid lane of a beat, or a lane
//!   the attempt needed in this beat (a beat must carry `min(L, XFRs left)` XFRs of it);
//! - a start flag where the attempt expects a data XFR: the attempt ends bad and a new one
//!   begins on that lane (several start flags in one beat each begin an attempt, all but the
//!   last ending bad at once);
//! - a change of `mask` (compared with a registered copy).
//!
//! A queue overflow (a far end sending faster than 33 XFRs per 17 cycles) loses the XFR that
//! found its lane queue full; the attempt it belonged to keeps its framing (so ends and events
//! are as without the overflow) but ends bad.
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
//! Pipeline (one register stage per step; the beat's analysis and the writer's decisions no
//! longer share a cycle, nor do the reader's pops and the overflow check):
//! 1. *Beat*: the beat on `lanes` is registered with its analysis, which depends on the beat
//!    and `mask` alone: valid and start lanes, lanes that end an attempt needing them, where
//!    the last start flag begins an attempt and whether all its lanes are valid, the attempts
//!    begun and ended in the beat, the lanes of its XFRs 0 and 1.
//! 2. *Writer*: the attempt in progress (registered: lanes needed from this beat, last beat)
//!    takes the beat or ends; the XFRs kept go into their physical lane's queue; `lane_missing`
//!    and `stray` are registered (they pulse two cycles after the beat was on `lanes`).
//! 3. *Reader*: reads XFRs `2n` and `2n+1` (`n` = 0..16; XFR 32 alone) from the heads of two
//!    lanes into registers, one pair per cycle (one XFR per cycle at `L` = 1): 17 cycles per
//!    LTP, the striper's own pace.
//! 4. *Flit*: flit `n-1` = `{XFR 2n, XFR 2n-1, XFR 2n-2} >> (n-1)` (one 16-way shift of 80
//!    bits), registered; the group CRCs take the pair (two CRC-8 steps).
//! 5. *CRC*: the CRC-14 steps over the registered flit; the end leaves with the CRC of flit 15.
//!
//! Latency: a flit leaves four cycles after the beat that completed it was on `lanes`, an end
//! one cycle after the attempt's last flit.
//!
//! Lane queues (why they are cheap): each physical lane has a head and a spare register, each
//! 32 bits with a valid flag and a tag (the XFR belongs to the attempt still in progress). The
//! spare is written straight from the registered beat, the head from the spare or the beat
//! (one 2:1 multiplexer), and the reader's two ports are 4:1 multiplexers of the heads. Two
//! entries suffice at the striper's exact pace at every `L`. An attempt that ends early
//! removes its tagged entries; the reader may meanwhile be on the older, complete attempt
//! (untagged entries). An overflow (a write to a lane whose head and spare both stay) is
//! recorded on its edge and acted on in the next cycle: it marks the attempt in progress bad,
//! or ends the attempt that completed on that edge (the reader is on it) and removes its
//! entries.
//!
//! Ends: the reader's attempt ends through the pipeline (when the writer ends it early, on the
//! same cycle: the reader stops and points at the next attempt); attempts that end without
//! being read (ended early before the reader reached them, or begun and ended within a beat)
//! are counted (`owed`, saturating at 24: a far end that begins more than one attempt per cycle
//! for long cannot have them all reported) and emitted one per cycle while the reader is idle,
//! after the end of the reader's last attempt. The reader starts the next attempt when none is
//! owed, or one whose end can still leave before the attempt's flit 0 (on the next cycle),
//! so the ends of earlier attempts precede its flits. Starting without waiting matters: at two
//! lanes the queues have no room for a reader that falls behind the striper's pace.
//!
//! Reset (synchronous, active high) drops everything and hunts for a start flag: the attempt in
//! progress ends without an `end_valid`, ends and flits not yet reported are dropped, and so
//! are the beats of the reset cycles and of the cycle before them (in the beat stage); from the
//! cycle after it every output is low until new beats come through.
//!
//! Ports: `clock`, `reset` (synchronous, active high: drops everything and hunts), `lanes`,
//! `mask`, `flit`, `flit_valid`, `flit_pos`, `end_valid`, `end_intact`, `end_crc_diff`, `end_state`,
//! `end_gcrc`, `lane_missing`, `stray`. No parameters.
use super::lane_channel::LaneChannelIn;
use crate::crc::{CrcStep, CRC14, CRC8};
use crate::formats::FLIT_BITS;
use rust_hdl::prelude::*;

/// Entries of each physical lane's XFR queue (head and spare).
pub const LANE_DEPTH: usize = 2;

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
    pub flit: Signal<Out, Bits<FLIT_BITS>>,
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

    // ---- Beat stage: the beat and its analysis (physical lane order throughout).
    in_data: DFF<Bits<128>>,
    mask_q: DFF<Bits<4>>,
    chg_q: DFF<bool>,
    // Active lanes L.
    l_q: DFF<Bits<3>>,
    // Logical lane of each physical lane, bits 2p..2p+1.
    tl_q: DFF<Bits<8>>,
    // Next active lane after each physical lane (cyclic), bits 2p..2p+1.
    nx_q: DFF<Bits<8>>,
    // A lane an attempt needs here would end it: invalid, or a start flag.
    bad_q: DFF<Bits<4>>,
    beat_q: DFF<bool>,
    // The last start flag begins an attempt whose lanes are all valid: its lanes, the XFRs it
    // still needs, the physical lanes of its XFRs 0 and 1, the logical lane of XFR 0.
    new_q: DFF<bool>,
    newm_q: DFF<Bits<4>>,
    rem0_q: DFF<Bits<6>>,
    h_q: DFF<Bits<2>>,
    h1_q: DFF<Bits<2>>,
    f_q: DFF<Bits<2>>,
    // Attempts begun and ended within the beat.
    sup_q: DFF<Bits<3>>,
    // Valid lanes below the first start flag (stray unless an attempt takes them).
    pstray_q: DFF<Bits<4>>,
    // Invalid lanes below the first start flag (missing if the attempt needs them).
    mmask_q: DFF<Bits<4>>,
    // Missing whatever the attempt: holes below the highest valid lane, new attempt's lanes.
    miss0_q: DFF<Bits<4>>,

    // ---- Writer: the attempt in progress.
    w_act: DFF<bool>,
    // It lost an XFR to an overflow.
    w_bad: DFF<bool>,
    // XFRs it needs after the beats taken.
    w_rem: DFF<Bits<6>>,
    // Physical lanes it needs from the next beat, and whether that beat is its last.
    w_need: DFF<Bits<4>>,
    w_last: DFF<bool>,
    // Lanes of its XFRs 0 and 1, logical lane of XFR 0 (for the reader).
    w_h: DFF<Bits<2>>,
    w_h1: DFF<Bits<2>>,
    w_f: DFF<Bits<2>>,
    // Lanes written on the last edge while their queue was full unless popped (an XFR of
    // the attempt taking the beat, of the attempt begun in it), the lanes popped, and whether
    // the attempt taking the beat completed: an overflow is found from these on the next cycle.
    ovo_q: DFF<Bits<4>>,
    ovn_q: DFF<Bits<4>>,
    pop_q: DFF<Bits<4>>,
    done_q: DFF<bool>,
    missing_q: DFF<Bits<4>>,
    stray_q: DFF<bool>,

    // ---- Lane queues: head and spare per physical lane, valid and tag bits by lane.
    head: Vec<DFF<Bits<32>>>,
    spare: Vec<DFF<Bits<32>>>,
    hv: DFF<Bits<4>>,
    ht: DFF<Bits<4>>,
    sv: DFF<Bits<4>>,
    st: DFF<Bits<4>>,

    // ---- Reader.
    r_act: DFF<bool>,
    // The reader's attempt is the writer's attempt in progress.
    r_live: DFF<bool>,
    // Pair index n (0..16) minus one (31 for n = 0: the flit that pair n completes), phase at
    // L = 1 (XFR 2n read, 2n+1 next).
    r_i: DFF<Bits<5>>,
    r_ph: DFF<bool>,
    // Physical lanes of XFRs 2n and 2n+1, their groups.
    pa: DFF<Bits<2>>,
    pb: DFF<Bits<2>>,
    ga: DFF<Bits<2>>,
    gb: DFF<Bits<2>>,
    // The reader's attempt: L, L = 1, next-lane table, logical lane of XFR 0.
    r_l: DFF<Bits<3>>,
    r_l1: DFF<bool>,
    r_nx: DFF<Bits<8>>,
    r_mask: DFF<Bits<4>>,
    // `r_mask` equals `mask_q` (the lane tables are the current mask's).
    fresh: DFF<bool>,
    r_state: DFF<Bits<2>>,
    // Pair read (XFRs 2n, 2n+1) and the pair before it.
    ra: DFF<Bits<32>>,
    rb: DFF<Bits<32>>,
    rao: DFF<Bits<32>>,
    rbo: DFF<Bits<32>>,
    // Flit stage: flit to emit and its position, CRC steps, start, end (and bad), state.
    e2: DFF<bool>,
    i2: DFF<Bits<4>>,
    a2: DFF<bool>,
    b2: DFF<bool>,
    s2: DFF<bool>,
    ga2: DFF<Bits<2>>,
    gb2: DFF<Bits<2>>,
    fin2: DFF<bool>,
    bad2: DFF<bool>,
    state2: DFF<Bits<2>>,
    // CRC stage.
    fin3: DFF<bool>,
    bad3: DFF<bool>,
    state3: DFF<Bits<2>>,
    gcrc: Vec<DFF<Bits<8>>>,
    crc: DFF<Bits<14>>,
    trailer: DFF<Bits<16>>,
    // Ends owed (attempts that end without the reader), those added on the last edge, and
    // one owed before the attempt the reader started on the last edge.
    owed: DFF<Bits<5>>,
    inc_q: DFF<Bits<3>>,
    pre: DFF<bool>,
    // Output registers.
    flit_q: DFF<Bits<FLIT_BITS>>,
    flit_valid_q: DFF<bool>,
    flit_pos_q: DFF<Bits<4>>,
    end_q: DFF<bool>,
    end_intact_q: DFF<bool>,
    end_state_q: DFF<Bits<2>>,
    end_gcrc_q: DFF<Bits<32>>,
    // CRC steps: group CRC of XFR 2n and 2n+1, LTP CRC of a flit.
    step_a: CrcStep<8, 32>,
    step_b: CrcStep<8, 32>,
    step_c: CrcStep<14, FLIT_BITS>,

    // Constants.
    k2: Vec<Constant<Bits<2>>>,
    // Lane m mod 4 for m = 0..7.
    k2x: Vec<Constant<Bits<2>>>,
    // Lanes above n; lanes 0..n.
    above: Vec<Constant<Bits<4>>>,
    upto: Vec<Constant<Bits<4>>>,
    c33: Constant<Bits<6>>,
    c15: Constant<Bits<5>>,
    one3: Constant<Bits<3>>,
    one5: Constant<Bits<5>>,
    sat: Constant<Bits<5>>,

    // Beat stage.
    mv: Signal<Local, Bits<4>>,
    ms: Signal<Local, Bits<4>>,
    tl: Vec<Signal<Local, Bits<2>>>,
    nx: Vec<Signal<Local, Bits<2>>>,
    m8: Signal<Local, Bits<8>>,
    fnd: Signal<Local, bool>,
    lanes_n: Signal<Local, Bits<3>>,
    starts: Signal<Local, Bits<3>>,
    newm: Signal<Local, Bits<4>>,
    new_n: Signal<Local, Bits<3>>,
    new_ok: Signal<Local, bool>,
    hh: Signal<Local, Bits<2>>,
    bl: Signal<Local, Bits<4>>,
    hole: Signal<Local, Bits<4>>,
    // Writer.
    act: Signal<Local, bool>,
    abn: Signal<Local, bool>,
    cont: Signal<Local, bool>,
    lastbad: Signal<Local, bool>,
    ovf_live: Signal<Local, bool>,
    ovf_done: Signal<Local, bool>,
    done: Signal<Local, bool>,
    wkill: Signal<Local, bool>,
    wold: Signal<Local, Bits<4>>,
    wnew: Signal<Local, Bits<4>>,
    wr: Signal<Local, Bits<4>>,
    wtag: Signal<Local, Bits<4>>,
    cm: Signal<Local, Bits<4>>,
    rl: Signal<Local, Bits<6>>,
    lastn: Signal<Local, bool>,
    lown: Signal<Local, Bits<4>>,
    tlp: Signal<Local, Bits<2>>,
    // Lane queues.
    take: Signal<Local, bool>,
    hk: Signal<Local, bool>,
    sk: Signal<Local, bool>,
    hv_n: Signal<Local, Bits<4>>,
    ht_n: Signal<Local, Bits<4>>,
    sv_n: Signal<Local, Bits<4>>,
    st_n: Signal<Local, Bits<4>>,
    ovr: Signal<Local, Bits<4>>,
    pop: Signal<Local, Bits<4>>,
    // Reader.
    kill_w: Signal<Local, bool>,
    kill_o: Signal<Local, bool>,
    avail: Signal<Local, Bits<5>>,
    av0: Signal<Local, bool>,
    av1: Signal<Local, bool>,
    owned: Signal<Local, bool>,
    start_ok: Signal<Local, bool>,
    go: Signal<Local, bool>,
    va: Signal<Local, bool>,
    vb: Signal<Local, bool>,
    r16: Signal<Local, bool>,
    rd_a: Signal<Local, bool>,
    rd_b: Signal<Local, bool>,
    adv: Signal<Local, bool>,
    fin: Signal<Local, bool>,
    redirect: Signal<Local, bool>,
    heads: Signal<Local, Bits<128>>,
    offa: Signal<Local, Bits<7>>,
    offb: Signal<Local, Bits<7>>,
    nxo1: Signal<Local, Bits<3>>,
    nxo2: Signal<Local, Bits<3>>,
    qa: Signal<Local, Bits<2>>,
    qb: Signal<Local, Bits<2>>,
    gi1: Signal<Local, Bits<3>>,
    gi2: Signal<Local, Bits<3>>,
    // Flit stage.
    gcat: Signal<Local, Bits<32>>,
    goa: Signal<Local, Bits<5>>,
    gob: Signal<Local, Bits<5>>,
    sh0: Signal<Local, Bits<80>>,
    sh1: Signal<Local, Bits<80>>,
    sh2: Signal<Local, Bits<80>>,
    sh3: Signal<Local, Bits<80>>,
    sh4: Signal<Local, Bits<80>>,
    // Ends.
    emit_owed: Signal<Local, bool>,
    owed_sat: Signal<Local, Bits<5>>,
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
            in_data: Default::default(),
            mask_q: Default::default(),
            chg_q: Default::default(),
            l_q: Default::default(),
            tl_q: Default::default(),
            nx_q: Default::default(),
            bad_q: Default::default(),
            beat_q: Default::default(),
            new_q: Default::default(),
            newm_q: Default::default(),
            rem0_q: Default::default(),
            h_q: Default::default(),
            h1_q: Default::default(),
            f_q: Default::default(),
            sup_q: Default::default(),
            pstray_q: Default::default(),
            mmask_q: Default::default(),
            miss0_q: Default::default(),
            w_act: Default::default(),
            w_bad: Default::default(),
            w_rem: Default::default(),
            w_need: Default::default(),
            w_last: Default::default(),
            w_h: Default::default(),
            w_h1: Default::default(),
            w_f: Default::default(),
            ovo_q: Default::default(),
            ovn_q: Default::default(),
            pop_q: Default::default(),
            done_q: Default::default(),
            missing_q: Default::default(),
            stray_q: Default::default(),
            head: (0..4).map(|_| Default::default()).collect(),
            spare: (0..4).map(|_| Default::default()).collect(),
            hv: Default::default(),
            ht: Default::default(),
            sv: Default::default(),
            st: Default::default(),
            r_act: Default::default(),
            r_live: Default::default(),
            r_i: Default::default(),
            r_ph: Default::default(),
            pa: Default::default(),
            pb: Default::default(),
            ga: Default::default(),
            gb: Default::default(),
            r_l: Default::default(),
            r_l1: Default::default(),
            r_nx: Default::default(),
            r_mask: Default::default(),
            fresh: Default::default(),
            r_state: Default::default(),
            ra: Default::default(),
            rb: Default::default(),
            rao: Default::default(),
            rbo: Default::default(),
            e2: Default::default(),
            i2: Default::default(),
            a2: Default::default(),
            b2: Default::default(),
            s2: Default::default(),
            ga2: Default::default(),
            gb2: Default::default(),
            fin2: Default::default(),
            bad2: Default::default(),
            state2: Default::default(),
            fin3: Default::default(),
            bad3: Default::default(),
            state3: Default::default(),
            gcrc: (0..4).map(|_| Default::default()).collect(),
            crc: Default::default(),
            trailer: Default::default(),
            owed: Default::default(),
            inc_q: Default::default(),
            pre: Default::default(),
            flit_q: Default::default(),
            flit_valid_q: Default::default(),
            flit_pos_q: Default::default(),
            end_q: Default::default(),
            end_intact_q: Default::default(),
            end_state_q: Default::default(),
            end_gcrc_q: Default::default(),
            step_a: CrcStep::new(&CRC8),
            step_b: CrcStep::new(&CRC8),
            step_c: CrcStep::new(&CRC14),
            k2: (0..4).map(|n| Constant::new((n as u64).into())).collect(),
            k2x: (0..8)
                .map(|n| Constant::new(((n & 3) as u64).into()))
                .collect(),
            above: (0..4)
                .map(|n| Constant::new(((0xf0u64 >> (3 - n)) & 15).into()))
                .collect(),
            upto: (0..4)
                .map(|n| Constant::new(((1u64 << (n + 1)) - 1).into()))
                .collect(),
            c33: Constant::new(33u64.into()),
            c15: Constant::new(15u64.into()),
            one3: Constant::new(1u64.into()),
            one5: Constant::new(1u64.into()),
            sat: Constant::new(24u64.into()),
            mv: Default::default(),
            ms: Default::default(),
            tl: (0..4).map(|_| Default::default()).collect(),
            nx: (0..4).map(|_| Default::default()).collect(),
            m8: Default::default(),
            fnd: Default::default(),
            lanes_n: Default::default(),
            starts: Default::default(),
            newm: Default::default(),
            new_n: Default::default(),
            new_ok: Default::default(),
            hh: Default::default(),
            bl: Default::default(),
            hole: Default::default(),
            act: Default::default(),
            abn: Default::default(),
            cont: Default::default(),
            lastbad: Default::default(),
            ovf_live: Default::default(),
            ovf_done: Default::default(),
            done: Default::default(),
            wkill: Default::default(),
            wold: Default::default(),
            wnew: Default::default(),
            wr: Default::default(),
            wtag: Default::default(),
            cm: Default::default(),
            rl: Default::default(),
            lastn: Default::default(),
            lown: Default::default(),
            tlp: Default::default(),
            take: Default::default(),
            hk: Default::default(),
            sk: Default::default(),
            hv_n: Default::default(),
            ht_n: Default::default(),
            sv_n: Default::default(),
            st_n: Default::default(),
            ovr: Default::default(),
            pop: Default::default(),
            kill_w: Default::default(),
            kill_o: Default::default(),
            avail: Default::default(),
            av0: Default::default(),
            av1: Default::default(),
            owned: Default::default(),
            start_ok: Default::default(),
            go: Default::default(),
            va: Default::default(),
            vb: Default::default(),
            r16: Default::default(),
            rd_a: Default::default(),
            rd_b: Default::default(),
            adv: Default::default(),
            fin: Default::default(),
            redirect: Default::default(),
            heads: Default::default(),
            offa: Default::default(),
            offb: Default::default(),
            nxo1: Default::default(),
            nxo2: Default::default(),
            qa: Default::default(),
            qb: Default::default(),
            gi1: Default::default(),
            gi2: Default::default(),
            gcat: Default::default(),
            goa: Default::default(),
            gob: Default::default(),
            sh0: Default::default(),
            sh1: Default::default(),
            sh2: Default::default(),
            sh3: Default::default(),
            sh4: Default::default(),
            emit_owed: Default::default(),
            owed_sat: Default::default(),
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
            in_data,
            mask_q,
            chg_q,
            l_q,
            tl_q,
            nx_q,
            bad_q,
            beat_q,
            new_q,
            newm_q,
            rem0_q,
            h_q,
            h1_q,
            f_q,
            sup_q,
            pstray_q,
            mmask_q,
            miss0_q,
            w_act,
            w_bad,
            w_rem,
            w_need,
            w_last,
            w_h,
            w_h1,
            w_f,
            ovo_q,
            ovn_q,
            pop_q,
            done_q,
            missing_q,
            stray_q,
            hv,
            ht,
            sv,
            st,
            r_act,
            r_live,
            r_i,
            r_ph,
            pa,
            pb,
            ga,
            gb,
            r_l,
            r_l1,
            r_nx,
            r_mask,
            fresh,
            r_state,
            ra,
            rb,
            rao,
            rbo,
            e2,
            i2,
            a2,
            b2,
            s2,
            ga2,
            gb2,
            fin2,
            bad2,
            state2,
            fin3,
            bad3,
            state3,
            crc,
            trailer,
            owed,
            inc_q,
            pre,
            flit_q,
            flit_valid_q,
            flit_pos_q,
            end_q,
            end_intact_q,
            end_state_q,
            end_gcrc_q
        );
        for p in 0..4 {
            self.head[p].clock.next = self.clock.val();
            self.head[p].d.next = self.head[p].q.val();
            self.spare[p].clock.next = self.clock.val();
            self.spare[p].d.next = self.spare[p].q.val();
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

        // ---- Beat stage: everything here depends on the beat and `mask` only.
        self.in_data.d.next = self.lanes.data.val();
        self.mask_q.d.next = self.mask.val();
        self.chg_q.d.next = self.mask.val() != self.mask_q.q.val();
        self.mv.next = self.lanes.valid.val() & self.mask.val();
        if self.reset.val() {
            self.mv.next = 0.into();
        }
        self.ms.next = self.mv.val() & self.lanes.start.val();
        self.bad_q.d.next = !self.lanes.valid.val() | self.lanes.start.val();
        self.beat_q.d.next = self.mv.val().any();
        // Logical lane of each physical lane, and L.
        self.tl[0].next = 0.into();
        for p in 1..4 {
            self.tl[p].next = self.tl[p - 1].val();
            if self.mask.val().get_bit(p - 1) {
                self.tl[p].next = self.tl[p - 1].val() + 1;
            }
        }
        self.lanes_n.next = 0.into();
        for p in 0..4 {
            if self.mask.val().get_bit(p) {
                self.lanes_n.next = self.lanes_n.val() + 1;
            }
        }
        self.l_q.d.next = self.lanes_n.val();
        self.tl_q.d.next = (bit_cast::<8, 2>(self.tl[3].val()) << 6)
            | (bit_cast::<8, 2>(self.tl[2].val()) << 4)
            | (bit_cast::<8, 2>(self.tl[1].val()) << 2)
            | bit_cast::<8, 2>(self.tl[0].val());
        // Next active lane after each lane, cyclically (itself at L = 1).
        self.m8.next = (bit_cast::<8, 4>(self.mask.val()) << 4) | bit_cast::<8, 4>(self.mask.val());
        for p in 0..4 {
            self.nx[p].next = self.k2[p].val();
            self.fnd.next = false;
            for d in 1..4 {
                if !self.fnd.val() & self.m8.val().get_bit(p + d) {
                    self.nx[p].next = self.k2x[p + d].val();
                    self.fnd.next = true;
                }
            }
        }
        self.nx_q.d.next = (bit_cast::<8, 2>(self.nx[3].val()) << 6)
            | (bit_cast::<8, 2>(self.nx[2].val()) << 4)
            | (bit_cast::<8, 2>(self.nx[1].val()) << 2)
            | bit_cast::<8, 2>(self.nx[0].val());
        // Start flags: the last one begins an attempt on the lanes from it up, which survives
        // the beat if they are all valid; every other start flag begins an attempt that ends
        // in the beat. (No start flag can lie in the lanes the attempt in progress takes: those
        // are below the first start flag, or the attempt ends there.)
        self.starts.next = 0.into();
        self.newm.next = 0.into();
        self.new_n.next = 0.into();
        self.hh.next = 0.into();
        self.f_q.d.next = 0.into();
        for n in 0..4 {
            if self.ms.val().get_bit(n) {
                self.starts.next = self.starts.val() + 1;
                self.hh.next = self.k2[n].val();
                self.f_q.d.next = self.tl[n].val();
            }
            if self.ms.val().any()
                & self.mask.val().get_bit(n)
                & !(self.ms.val() & self.above[n].val()).any()
            {
                self.newm.next = self.newm.val().replace_bit(n, true);
                self.new_n.next = self.new_n.val() + 1;
            }
        }
        self.new_ok.next = self.ms.val().any() & !(self.newm.val() & !self.mv.val()).any();
        self.new_q.d.next = self.new_ok.val();
        self.newm_q.d.next = self.newm.val();
        self.rem0_q.d.next = self.c33.val() - bit_cast::<6, 3>(self.new_n.val());
        self.h_q.d.next = self.hh.val();
        for n in 0..4 {
            if self.hh.val() == self.k2[n].val() {
                self.h1_q.d.next = self.nx[n].val();
            }
        }
        self.sup_q.d.next = self.starts.val();
        if self.new_ok.val() {
            self.sup_q.d.next = self.starts.val() - self.one3.val();
        }
        // Lanes below the first start flag (all lanes without one), holes below the highest
        // valid lane.
        self.bl.next = 0.into();
        self.hole.next = 0.into();
        for n in 0..4 {
            if !(self.ms.val() & self.upto[n].val()).any() {
                self.bl.next = self.bl.val().replace_bit(n, true);
            }
            if (self.mv.val() & self.above[n].val()).any() {
                self.hole.next = self.hole.val().replace_bit(n, true);
            }
        }
        self.pstray_q.d.next = self.mv.val() & self.bl.val();
        self.mmask_q.d.next = 0.into();
        if self.mv.val().any() {
            self.mmask_q.d.next = self.bl.val() & self.mask.val() & !self.mv.val();
        }
        self.miss0_q.d.next =
            (self.hole.val() | self.newm.val()) & self.mask.val() & !self.mv.val();

        // ---- Writer: the attempt in progress takes the beat, completes, or ends early.
        // An XFR lost on the last edge marks the attempt in progress bad, or ends the one
        // that completed on that edge (the reader is on it).
        self.ovf_live.next = (self.ovn_q.q.val() & !self.pop_q.q.val()).any()
            | ((self.ovo_q.q.val() & !self.pop_q.q.val()).any() & !self.done_q.q.val());
        self.ovf_done.next = (self.ovo_q.q.val() & !self.pop_q.q.val()).any() & self.done_q.q.val();
        self.act.next = self.w_act.q.val() & !self.chg_q.q.val();
        self.abn.next = (self.w_need.q.val() & self.bad_q.q.val()).any();
        self.cont.next = self.act.val() & self.beat_q.q.val() & !self.abn.val();
        self.lastbad.next = self.w_last.q.val() & (self.w_bad.q.val() | self.ovf_live.val());
        self.done.next = self.cont.val() & self.w_last.q.val() & !self.lastbad.val();
        self.wkill.next = (self.act.val() & self.beat_q.q.val() & self.abn.val())
            | (self.w_act.q.val() & self.chg_q.q.val())
            | (self.cont.val() & self.lastbad.val());
        self.wold.next = 0.into();
        if self.cont.val() & !self.lastbad.val() {
            self.wold.next = self.w_need.q.val();
        }
        self.wnew.next = 0.into();
        if self.new_q.q.val() {
            self.wnew.next = self.newm_q.q.val();
        }
        self.wr.next = self.wold.val() | self.wnew.val();
        self.wtag.next = self.wnew.val();
        if !self.w_last.q.val() {
            self.wtag.next = self.wnew.val() | self.wold.val();
        }
        // Events.
        self.cm.next = 0.into();
        if self.act.val() {
            self.cm.next = self.w_need.q.val();
        }
        self.missing_q.d.next = self.miss0_q.q.val() | (self.cm.val() & self.mmask_q.q.val());
        self.stray_q.d.next = (self.pstray_q.q.val() & !self.cm.val()).any();
        // Lanes needed from the beat after a full one: all, or the lowest `rl` on the last.
        self.rl.next = self.w_rem.q.val() - bit_cast::<6, 3>(self.l_q.q.val());
        self.lastn.next = self.rl.val() <= bit_cast::<6, 3>(self.l_q.q.val());
        self.lown.next = 0.into();
        for p in 0..4 {
            self.tlp.next = self.tl_q.q.val().get_bits::<2>(2 * p);
            if self.mask_q.q.val().get_bit(p)
                & (bit_cast::<3, 2>(self.tlp.val()) < self.rl.val().get_bits::<3>(0))
            {
                self.lown.next = self.lown.val().replace_bit(p, true);
            }
        }
        if self.cont.val() {
            self.w_rem.d.next = self.rl.val();
            self.w_last.d.next = self.lastn.val();
            if self.lastn.val() {
                self.w_need.d.next = self.lown.val();
            }
        }
        self.w_bad.d.next = self.w_bad.q.val() | self.ovf_live.val();
        if self.done.val() | self.wkill.val() {
            self.w_act.d.next = false;
        }
        if self.new_q.q.val() {
            self.w_act.d.next = true;
            self.w_bad.d.next = false;
            self.w_rem.d.next = self.rem0_q.q.val();
            self.w_need.d.next = self.mask_q.q.val();
            self.w_last.d.next = false;
            self.w_h.d.next = self.h_q.q.val();
            self.w_h1.d.next = self.h1_q.q.val();
            self.w_f.d.next = self.f_q.q.val();
        }

        // ---- Reader: which lanes it pops this cycle (from registers).
        // Ends owed, as if the one emitted now had left: the reader starts the attempt in
        // progress when none is owed, or one that can leave before its flit 0 (the reader's
        // last end then left at least a cycle earlier).
        self.emit_owed.next = self.owed.q.val().any()
            & !self.r_act.q.val()
            & !self.fin2.q.val()
            & !self.fin3.q.val()
            & !self.pre.q.val();
        self.avail.next = self.owed.q.val() + bit_cast::<5, 3>(self.inc_q.q.val());
        if self.emit_owed.val() {
            self.avail.next =
                self.owed.q.val() + bit_cast::<5, 3>(self.inc_q.q.val()) - self.one5.val();
        }
        // None or one owed, not counting the one emitted now (this is on the reader's path).
        self.av0.next = (self.owed.q.val() == 0) & (self.inc_q.q.val() == 0);
        self.av1.next = ((self.owed.q.val() == 0) & (self.inc_q.q.val() == 1))
            | ((self.owed.q.val() == 1) & (self.inc_q.q.val() == 0));
        self.owned.next = self.r_act.q.val() & self.r_live.q.val();
        self.kill_o.next = self.r_act.q.val() & self.ovf_done.val();
        // (The reader's lane tables are loaded while it is idle: after a mask change it waits
        // a cycle for them.)
        self.start_ok.next = !self.r_act.q.val()
            & self.w_act.q.val()
            & (self.av0.val() | (self.av1.val() & !self.fin2.q.val()))
            & self.fresh.q.val()
            & !self.reset.val();
        self.go.next = self.r_act.q.val() | self.start_ok.val();
        // The writer ends the reader's attempt now (the reader may still read this cycle).
        self.kill_w.next = (self.owned.val() | self.start_ok.val()) & self.wkill.val();
        self.va.next = self.hv.q.val().get_bit(self.pa.q.val().index());
        self.vb.next = self.hv.q.val().get_bit(self.pb.q.val().index());
        self.r16.next = self.r_i.q.val() == self.c15.val();
        if self.r_l1.q.val() {
            self.rd_a.next = self.go.val() & self.va.val() & !self.r_ph.q.val();
            self.rd_b.next = self.go.val() & self.va.val() & self.r_ph.q.val();
            self.adv.next = self.rd_b.val() | (self.rd_a.val() & self.r16.val());
        } else {
            self.rd_a.next = self.go.val() & self.va.val() & (self.vb.val() | self.r16.val());
            self.rd_b.next = self.rd_a.val() & !self.r16.val();
            self.adv.next = self.rd_a.val();
        }
        self.fin.next = self.rd_a.val() & self.r16.val();
        self.pop.next = 0.into();
        for p in 0..4 {
            if (self.rd_a.val() & (self.pa.q.val() == self.k2[p].val()))
                | (self.rd_b.val() & (self.pb.q.val() == self.k2[p].val()))
            {
                self.pop.next = self.pop.val().replace_bit(p, true);
            }
        }

        // ---- Lane queues. The head loads when it is empty or popped (from the spare if that
        // is full, else from the beat); the spare loads the beat whenever it is free. An
        // attempt that ends early removes its tagged entries (its new XFRs are not written);
        // an attempt completed with a lost XFR removes the untagged ones (the reader is on it).
        self.hv_n.next = 0.into();
        self.ht_n.next = 0.into();
        self.sv_n.next = 0.into();
        self.st_n.next = 0.into();
        self.ovr.next = 0.into();
        for p in 0..4 {
            self.take.next = !self.hv.q.val().get_bit(p) | self.pop.val().get_bit(p);
            self.hk.next = self.hv.q.val().get_bit(p)
                & ((self.ht.q.val().get_bit(p) & self.wkill.val())
                    | (!self.ht.q.val().get_bit(p) & self.ovf_done.val()));
            self.sk.next = self.sv.q.val().get_bit(p)
                & ((self.st.q.val().get_bit(p) & self.wkill.val())
                    | (!self.st.q.val().get_bit(p) & self.ovf_done.val()));
            if self.take.val() {
                self.head[p].d.next = self.in_data.q.val().get_bits::<32>(32 * p);
                if self.sv.q.val().get_bit(p) {
                    self.head[p].d.next = self.spare[p].q.val();
                }
            }
            if self.take.val() | !self.sv.q.val().get_bit(p) | self.sk.val() {
                self.spare[p].d.next = self.in_data.q.val().get_bits::<32>(32 * p);
            }
            if self.take.val() {
                if self.sv.q.val().get_bit(p) {
                    // Spare to head, beat to spare.
                    self.hv_n.next = self.hv_n.val().replace_bit(p, !self.sk.val());
                    self.ht_n.next = self
                        .ht_n
                        .val()
                        .replace_bit(p, self.st.q.val().get_bit(p) & !self.done.val());
                    self.sv_n.next = self.sv_n.val().replace_bit(p, self.wr.val().get_bit(p));
                    self.st_n.next = self.st_n.val().replace_bit(p, self.wtag.val().get_bit(p));
                } else {
                    // Beat to head.
                    self.hv_n.next = self.hv_n.val().replace_bit(p, self.wr.val().get_bit(p));
                    self.ht_n.next = self.ht_n.val().replace_bit(p, self.wtag.val().get_bit(p));
                }
            } else {
                self.hv_n.next = self.hv_n.val().replace_bit(p, !self.hk.val());
                self.ht_n.next = self
                    .ht_n
                    .val()
                    .replace_bit(p, self.ht.q.val().get_bit(p) & !self.done.val());
                if self.sv.q.val().get_bit(p) & !self.sk.val() {
                    // Spare holds; a write is lost.
                    self.sv_n.next = self.sv_n.val().replace_bit(p, true);
                    self.st_n.next = self
                        .st_n
                        .val()
                        .replace_bit(p, self.st.q.val().get_bit(p) & !self.done.val());
                } else {
                    // Beat to spare.
                    self.sv_n.next = self.sv_n.val().replace_bit(p, self.wr.val().get_bit(p));
                    self.st_n.next = self.st_n.val().replace_bit(p, self.wtag.val().get_bit(p));
                }
            }
        }
        for p in 0..4 {
            if self.wr.val().get_bit(p)
                & self.hv.q.val().get_bit(p)
                & self.sv.q.val().get_bit(p)
                & !((self.st.q.val().get_bit(p) & self.wkill.val())
                    | (!self.st.q.val().get_bit(p) & self.ovf_done.val()))
            {
                self.ovr.next = self.ovr.val().replace_bit(p, true);
            }
        }
        self.hv.d.next = self.hv_n.val();
        self.ht.d.next = self.ht_n.val();
        self.sv.d.next = self.sv_n.val();
        self.st.d.next = self.st_n.val();
        self.ovo_q.d.next = self.ovr.val() & self.wold.val();
        self.ovn_q.d.next = self.ovr.val() & self.wnew.val();
        self.pop_q.d.next = self.pop.val();
        self.done_q.d.next = self.done.val();

        // ---- Reader: the pair into registers, the next lanes and groups.
        self.heads.next = (bit_cast::<128, 32>(self.head[3].q.val()) << 96)
            | (bit_cast::<128, 32>(self.head[2].q.val()) << 64)
            | (bit_cast::<128, 32>(self.head[1].q.val()) << 32)
            | bit_cast::<128, 32>(self.head[0].q.val());
        self.offa.next = bit_cast::<7, 2>(self.pa.q.val()) << 5;
        self.offb.next = bit_cast::<7, 2>(self.pb.q.val()) << 5;
        if self.rd_a.val() {
            self.ra.d.next = self.heads.val().get_bits::<32>(self.offa.val().index());
            self.rao.d.next = self.ra.q.val();
            self.rbo.d.next = self.rb.q.val();
        }
        if self.rd_b.val() {
            self.rb.d.next = self.heads.val().get_bits::<32>(self.offb.val().index());
        }
        self.nxo1.next = bit_cast::<3, 2>(self.pb.q.val()) << 1;
        self.qa.next = self.r_nx.q.val().get_bits::<2>(self.nxo1.val().index());
        self.nxo2.next = bit_cast::<3, 2>(self.qa.val()) << 1;
        self.qb.next = self.r_nx.q.val().get_bits::<2>(self.nxo2.val().index());
        self.gi1.next = bit_cast::<3, 2>(self.gb.q.val()) + self.one3.val();
        if self.gi1.val() == self.r_l.q.val() {
            self.gi1.next = 0.into();
        }
        self.gi2.next = self.gi1.val() + self.one3.val();
        if self.gi2.val() == self.r_l.q.val() {
            self.gi2.next = 0.into();
        }
        // Point at the attempt the reader takes next while it has none, and when its own ends.
        self.redirect.next =
            !self.go.val() | self.fin.val() | self.kill_w.val() | self.kill_o.val();
        if self.redirect.val() {
            self.pa.d.next = self.w_h.q.val();
            self.pb.d.next = self.w_h1.q.val();
            self.r_state.d.next = self.w_f.q.val();
            if self.new_q.q.val() {
                self.pa.d.next = self.h_q.q.val();
                self.pb.d.next = self.h1_q.q.val();
                self.r_state.d.next = self.f_q.q.val();
            }
            self.ga.d.next = 0.into();
            self.gb.d.next = 1.into();
            if self.l_q.q.val() == 1 {
                self.gb.d.next = 0.into();
            }
            self.r_i.d.next = 31.into();
            self.r_ph.d.next = false;
        } else {
            if self.adv.val() {
                self.r_i.d.next = self.r_i.q.val() + self.one5.val();
                self.ga.d.next = self.gi1.val().get_bits::<2>(0);
                self.gb.d.next = self.gi2.val().get_bits::<2>(0);
                if !self.r_l1.q.val() {
                    self.pa.d.next = self.qa.val();
                    self.pb.d.next = self.qb.val();
                }
            }
            if self.rd_a.val() & self.r_l1.q.val() {
                self.r_ph.d.next = true;
            }
            if self.rd_b.val() & self.r_l1.q.val() {
                self.r_ph.d.next = false;
            }
        }
        if !self.r_act.q.val() {
            self.r_l.d.next = self.l_q.q.val();
            self.r_l1.d.next = self.l_q.q.val() == 1;
            self.r_nx.d.next = self.nx_q.q.val();
            self.r_mask.d.next = self.mask_q.q.val();
        }
        self.r_act.d.next =
            self.go.val() & !self.fin.val() & !self.kill_w.val() & !self.kill_o.val();
        self.fresh.d.next = self.mask.val() == self.r_mask.q.val();
        if !self.r_act.q.val() {
            self.fresh.d.next = self.mask.val() == self.mask_q.q.val();
        }
        self.r_live.d.next = (self.start_ok.val() | self.owned.val()) & !self.done.val();
        // To the flit stage.
        self.e2.d.next = self.rd_a.val() & !self.r_i.q.val().all();
        self.i2.d.next = self.r_i.q.val().get_bits::<4>(0);
        self.a2.d.next = self.rd_a.val();
        self.b2.d.next = self.rd_b.val();
        self.s2.d.next = self.rd_a.val() & self.r_i.q.val().all();
        self.ga2.d.next = self.ga.q.val();
        self.gb2.d.next = self.gb.q.val();
        self.fin2.d.next = self.fin.val() | self.kill_w.val() | self.kill_o.val();
        self.bad2.d.next = self.kill_w.val() | self.kill_o.val();
        self.state2.d.next = self.r_state.q.val();

        // ---- Flit stage: flit n-1 = {XFR 2n, XFR 2n-1, XFR 2n-2} >> (n-1).
        self.sh0.next = (bit_cast::<80, 16>(self.ra.q.val().get_bits::<16>(0)) << 64)
            | (bit_cast::<80, 32>(self.rbo.q.val()) << 32)
            | bit_cast::<80, 32>(self.rao.q.val());
        self.sh1.next = self.sh0.val();
        if self.i2.q.val().get_bit(3) {
            self.sh1.next = self.sh0.val() >> 8;
        }
        self.sh2.next = self.sh1.val();
        if self.i2.q.val().get_bit(2) {
            self.sh2.next = self.sh1.val() >> 4;
        }
        self.sh3.next = self.sh2.val();
        if self.i2.q.val().get_bit(1) {
            self.sh3.next = self.sh2.val() >> 2;
        }
        self.sh4.next = self.sh3.val();
        if self.i2.q.val().get_bit(0) {
            self.sh4.next = self.sh3.val() >> 1;
        }
        self.flit_valid_q.d.next = self.e2.q.val();
        if self.e2.q.val() {
            self.flit_q.d.next = self.sh4.val().get_bits::<FLIT_BITS>(0);
            self.flit_pos_q.d.next = self.i2.q.val();
        }
        if self.fin2.q.val() & !self.bad2.q.val() {
            self.trailer.d.next = self.ra.q.val().get_bits::<16>(16);
        }
        // Group CRCs: XFR 2n through step A, 2n+1 through step B; XFR 0 restarts them.
        self.step_a.data.next = self.ra.q.val();
        self.step_b.data.next = self.rb.q.val();
        self.gcat.next = (bit_cast::<32, 8>(self.gcrc[3].q.val()) << 24)
            | (bit_cast::<32, 8>(self.gcrc[2].q.val()) << 16)
            | (bit_cast::<32, 8>(self.gcrc[1].q.val()) << 8)
            | bit_cast::<32, 8>(self.gcrc[0].q.val());
        self.goa.next = bit_cast::<5, 2>(self.ga2.q.val()) << 3;
        self.gob.next = bit_cast::<5, 2>(self.gb2.q.val()) << 3;
        self.step_a.state.next = self.gcat.val().get_bits::<8>(self.goa.val().index());
        self.step_b.state.next = self.gcat.val().get_bits::<8>(self.gob.val().index());
        if self.s2.q.val() {
            self.step_a.state.next = 0.into();
            self.step_b.state.next = 0.into();
        }
        for g in 0..4 {
            if self.s2.q.val() {
                self.gcrc[g].d.next = 0.into();
            }
            if self.b2.q.val() & (self.gb2.q.val() == self.k2[g].val()) {
                self.gcrc[g].d.next = self.step_b.next_state.val();
            }
            if self.a2.q.val() & (self.ga2.q.val() == self.k2[g].val()) {
                self.gcrc[g].d.next = self.step_a.next_state.val();
            }
        }
        self.fin3.d.next = self.fin2.q.val();
        self.bad3.d.next = self.bad2.q.val();
        self.state3.d.next = self.state2.q.val();

        // ---- CRC stage: LTP CRC over the registered flits, and the ends.
        self.step_c.data.next = self.flit_q.q.val();
        self.step_c.state.next = self.crc.q.val();
        if self.flit_pos_q.q.val() == 0 {
            self.step_c.state.next = 0.into();
        }
        if self.flit_valid_q.q.val() {
            self.crc.d.next = self.step_c.next_state.val();
        }
        // The reader's end, the one owed before its attempt, or an owed one while the reader
        // is idle and its last end has left.
        self.end_q.d.next = self.fin3.q.val() | self.pre.q.val() | self.emit_owed.val();
        self.end_intact_q.d.next = self.fin3.q.val()
            & !self.bad3.q.val()
            & (self.trailer.q.val().get_bits::<2>(14) == self.state3.q.val());
        if self.fin3.q.val() {
            self.end_state_q.d.next = self.state3.q.val();
            self.end_gcrc_q.d.next = (bit_cast::<32, 8>(self.gcrc[3].q.val()) << 24)
                | (bit_cast::<32, 8>(self.gcrc[2].q.val()) << 16)
                | (bit_cast::<32, 8>(self.gcrc[1].q.val()) << 8)
                | bit_cast::<32, 8>(self.gcrc[0].q.val());
        }
        // Owed ends: attempts begun and ended in a beat, and the attempt in progress when it
        // ends early without the reader on it (counted on the next edge).
        self.inc_q.d.next = self.sup_q.q.val();
        if self.wkill.val() & !(self.owned.val() | self.start_ok.val()) {
            self.inc_q.d.next = self.sup_q.q.val() + self.one3.val();
        }
        self.pre.d.next = self.start_ok.val() & self.av1.val() & !self.emit_owed.val();
        self.owed_sat.next = self.avail.val();
        if self.avail.val() > self.sat.val() {
            self.owed_sat.next = self.sat.val();
        }
        self.owed.d.next = self.owed_sat.val();
        if self.start_ok.val() & self.av1.val() & !self.emit_owed.val() {
            self.owed.d.next = 0.into();
        }

        if self.reset.val() {
            self.beat_q.d.next = false;
            self.new_q.d.next = false;
            self.sup_q.d.next = 0.into();
            self.w_act.d.next = false;
            self.ovo_q.d.next = 0.into();
            self.ovn_q.d.next = 0.into();
            self.missing_q.d.next = 0.into();
            self.stray_q.d.next = false;
            self.hv.d.next = 0.into();
            self.sv.d.next = 0.into();
            self.r_act.d.next = false;
            self.r_live.d.next = false;
            self.e2.d.next = false;
            self.a2.d.next = false;
            self.b2.d.next = false;
            self.s2.d.next = false;
            self.fin2.d.next = false;
            self.fin3.d.next = false;
            self.flit_valid_q.d.next = false;
            self.end_q.d.next = false;
            self.owed.d.next = 0.into();
            self.inc_q.d.next = 0.into();
            self.pre.d.next = false;
        }
    }
}

#[test]
fn ltp_deframer_is_synthesizable() {
    let mut uut = LtpDeframer::default();
    uut.connect_all();
    yosys_validate("ltp_deframer", &generate_verilog(&uut)).unwrap();
}
