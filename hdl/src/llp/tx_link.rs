//! Transmit side of a link endpoint: VC arbitration with credits, LTP builder, replay buffer,
//! serializer with the LTP CRC, null LTPs, retry and round-trip protocol (`docs/llp-design.md`,
//! "Transmitter"). Its `out` stream feeds an [`LtpStriper`](super::ltp_striper::LtpStriper)
//! with 17 beats per LTP (16 flits, then the trailer).
//!
//! **Builder.** Builds LTP `next_seq` into replay slot `next_seq mod R`, one flit per cycle,
//! 16 cycles without a pause once started. It starts only when there is something to send
//! (a data flit that may go, or credits owed), the replay buffer has room
//! (`next_seq - ack_seq < R`, registered, so a free by an echo counts one cycle later; else
//! the builder stalls and keeps all state) and the serializer
//! has taken every earlier LTP, so control flits never queue behind a backlog. Each slot takes,
//! in order: a pending `RndTripEcho` (not in flit 0), a `RndTripMrkr` when none is outstanding
//! (not in flit 0), a `CrdtRet` of a VC owed at least a quarter of its buffer, a data flit (or
//! the `VlMrkr` it needs first), a `CrdtRet` of any VC owed credits, else Idle.
//!
//! **Classified flits.** Each VC's sink takes the flit (bits 64..0) with its class in bits
//! [`Q_DROP`], [`Q_HEAD`] and [`Q_END`] and a head's LEN field from bit [`Q_LEN`], decoded
//! before the queue that feeds it
//! ([`TxClassifier`]): the arbitration reads flags that come from the queue's flip-flops
//! instead of decoding the flit it picked, which had put decode, arbitration and the pop into
//! one cycle's path.
//!
//! **VC arbitration.** A VC may send when its queue has a flit and it has a credit. With
//! `interleave` low a VC keeps the link from a head to its tail (Idle while it stalls), and a
//! head is admitted only when its VC has credits for the whole packet (below); with it
//! high the packet in progress keeps priority but another VC's flits fill its stalls
//! ("bubble" interleaving). Otherwise round robin. A body or tail of a VC other than the one
//! the receiver last heard of is preceded by `VlMrkr(vc)`; a head names its VC itself: its VC
//! field is overwritten with the queue's index, the link VC. Idle, CrdtRet, VlMrkr and LT flits
//! offered by the core are not the core's to send: they are dropped and counted
//! (`core_dropped`), use no credit and no slot.
//!
//! **Whole-packet admission** (`interleave` low): a head may go only when its VC's available
//! credits are at least its LEN. Its later flits then always have credit (today's per-flit
//! check), so a VC waiting for credits waits before its head, with the link free for other
//! VCs: a packet that started with one credit and held the link until its tail could deadlock
//! the fabric. A head with LEN 0 (malformed: the far end drops it whole) needs one credit; a
//! head with LEN above `max_packet` (the far end drops it whole as too long) needs
//! `max_packet`, so no head waits for more credits than a configured buffer holds
//! (`vc_buffer_flits >= max_packet_flits` is a rule of the configuration).
//!
//! **Serializer.** Always reads LTPs from the replay buffer (new and replayed alike), or a
//! null LTP from a generator, and computes the CRC-14 on the way out; the trailer carries
//! `CRC14(flits) ^ (seq mod 2^14)` for a normal LTP (so a lost LTP fails the next one's check)
//! and `CRC14(flits)` for a null LTP, plus the LTP's sequence state: the logical lane of its
//! first XFR, tracked as the striper places it ((state + 33) mod L when the LTP follows the
//! previous trailer at once, else 0). It starts an LTP being built once two of its flits are
//! written (cut-through). Between LTPs, in priority: apply a new lane mask (waits until the
//! striper is idle), send a null LTP if one is wanted, send the next LTP.
//!
//! **Null LTP** flits: 0 `RetryMrkr(replay_seq)` or `Null`; 1 `RetryReq(rx_expect)`; 2
//! `LaneMask(rx_mask)` (with the retry request); 3 `RndTripEcho(rx_expect)`; 4
//! `RndTripMrkr(next_seq)` (a poll); Idle where not wanted and in 5..15.
//!
//! **Protocol inputs** (pulses, from the receiver of the same endpoint): `got_retry(e)` replays
//! from `e` (from `ack_seq` if `e` is outside the window, counted in `stale`) after a null LTP
//! with `RetryMrkr`; `got_echo(v)` frees the replay buffer below `v` (ignored outside the
//! window) and ends an outstanding round-trip marker older than `v`; `got_mask(m)` switches to
//! lane mask `m` (nonzero); `got_credits[v]` returns credits. `send_retry` and `send_echo` ask
//! for a RetryReq (with LaneMask) and an echo. An echo rides in the LTP being built; only
//! when no LTP has been built for 63 cycles (as during a replay) does it take a null LTP. A
//! round-trip marker outstanding for `rt_timeout` cycles sends a poll, and so do LTPs left
//! unacknowledged for `rt_timeout` cycles with no marker outstanding (built while one was out,
//! then the link went idle); a replay for the far end restarts that timer (the echo follows
//! the replayed marker).
//!
//! **Link up.** A link-training block owns the lanes while `up` is low. Then the serializer
//! starts no LTP (`out.valid` low; an LTP on the way out when `up` fell is abandoned, and
//! stays in the replay buffer), the builder starts none (one in progress completes: `idle`
//! rises within 16 cycles), lane mask changes wait, and the poll timer and the echo age hold;
//! the receiver's requests are still taken. `start` (the first cycle of `up`, in which nothing
//! starts either; the trainer gives it only while `idle` is high) brings the link up:
//! - RESUME (`fresh_far` low, the far end kept its state): the lane mask becomes `start_mask`
//!   at once, the sequence state restarts at 0, a replay from `ack_seq` is made pending (a
//!   null LTP with `RetryMrkr(ack_seq)`, then every unacknowledged LTP: the far receiver's
//!   duplicate skip drops those it had), a pending retry request, poll or mask change is
//!   dropped, and the poll timer restarts. Nothing in the replay buffer is lost.
//! - RESTART (`fresh_far` high, the far end was reset): as RESUME, and the protocol starts
//!   afresh: every sequence number 0, the replay buffer emptied (its LTPs counted in
//!   `ltps_discarded`), no marker outstanding, no echo pending, the link VC 0 (what a fresh
//!   far end assumes), every VC's credits 0 (the far end returns its whole free buffer as
//!   CrdtRet flits once up) and every VC's owed credits `rx_free[v]` (our free slots now,
//!   which already count the slots `freed` reports in the same cycle; later frees come
//!   through `freed`). The VC queues are kept, and a packet in
//!   progress stays in progress: its remaining flits go out and the far end drops them as a
//!   packet without a head.
//!
//! **Credits.** The counters start empty and hold up to 2^CW - 1
//! ([`CreditCounter::starting_empty`]): the far buffer's size is not known at elaboration, it
//! arrives as credits. `credit_error` (sticky until reset, across RESTARTs) still catches a
//! consume without credit and a total above 2^CW - 1 (a far end returning credits twice over,
//! say), not a far end returning a little more than its buffer holds.
//!
//! **Reset** (synchronous): sequence numbers 0, the replay buffer empty, every VC's credits 0
//! and none owed to the far end, the counters cleared, no request pending; the initial lane
//! mask is applied as a pending change (once the link is up and the striper idle). The first
//! bring-up after reset is a RESTART on both ends: each end's owed becomes its free buffer,
//! and the credits are exchanged as CrdtRet flits (ends may have different buffer sizes).
//!
//! Parameters: `RAW` = log2(R) + 4 replay address bits (R LTPs of 16 flits), `CW`
//! credit width (at least `fifo_count_bits` of the VC buffer depths; the endpoint uses
//! [`CREDIT_BITS`](super::CREDIT_BITS)); elaboration values: the number of VCs (1..=8), our
//! own VC buffer depth (the urgent CrdtRet threshold), the initial lane mask, `rt_timeout`,
//! `max_packet`.
use super::link_requests::LinkRequestsSink;
use super::lt::LtCode;
use crate::crc::crc_step::bits_from_fn;
use crate::crc::{Crc14x65, CRC14};
use crate::credit_counter::CreditCounter;
use crate::flit_decoder::FlitDecoder;
use crate::formats::flit::{CODE, CTRL_CREDITS, CTRL_VC};
use crate::formats::header::VC;
use crate::formats::{FLIT_BITS, FLIT_MASK};
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// Bits of a classified flit: the flit, its class and a head's length.
pub const Q_BITS: usize = 76;
/// Class bit: the flit is not the core's to send (Idle, CrdtRet, VlMrkr, LT).
pub const Q_DROP: usize = FLIT_BITS;
/// Class bit: the flit is a head.
pub const Q_HEAD: usize = 66;
/// Class bit: the flit ends a packet (tail or TailBadPkt).
pub const Q_END: usize = 67;
/// Lowest of the 8 class bits holding a head's LEN field (the packet's length in flits, 0 for
/// any other flit): whole-packet admission reads it from the queue's flip-flops.
pub const Q_LEN: usize = 68;

/// A classified word with only class bit `k` set.
fn class_bit(k: usize) -> Constant<Bits<Q_BITS>> {
    Constant::new(bits_from_fn(|i| i == k))
}

/// Classifies a core's flit for [`TxLink`]'s sinks: the flit with its class bits.
#[derive(LogicBlock)]
pub struct TxClassifier {
    /// The flit.
    pub flit: Signal<In, Bits<FLIT_BITS>>,
    /// The flit with its class bits.
    pub word: Signal<Out, Bits<Q_BITS>>,
    dec: FlitDecoder,
    /// The decoder outputs this block does not read, acknowledged here (Verilator's lint
    /// passes names containing "unused"; nothing reads this, so synthesis removes it).
    unused_decoded: Signal<Local, bool>,
    code_vl_mrkr: Constant<Bits<6>>,
    code_tail_bad: Constant<Bits<6>>,
    q_drop: Constant<Bits<Q_BITS>>,
    q_head: Constant<Bits<Q_BITS>>,
    q_end: Constant<Bits<Q_BITS>>,
    q_len_lsb: Constant<Bits<8>>,
}

impl Default for TxClassifier {
    fn default() -> Self {
        use crate::formats::ControlCode;
        let code = |c: ControlCode| Constant::new((c.code() as u64).into());
        Self {
            flit: Default::default(),
            word: Default::default(),
            dec: Default::default(),
            unused_decoded: Default::default(),
            code_vl_mrkr: code(ControlCode::VlMrkr),
            code_tail_bad: code(ControlCode::TailBadPkt),
            q_drop: class_bit(Q_DROP),
            q_head: class_bit(Q_HEAD),
            q_end: class_bit(Q_END),
            q_len_lsb: Constant::new((Q_LEN as u64).into()),
        }
    }
}

impl Logic for TxClassifier {
    #[hdl_gen]
    fn update(&mut self) {
        self.dec.flit.next = self.flit.val();
        self.unused_decoded.next = self.dec.is_body.val()
            | self.dec.is_bad_marker.val()
            | self.dec.malformed.val()
            | self.dec.dst.val().any()
            | self.dec.src.val().any()
            | self.dec.vc.val().any()
            | self.dec.kind.val().any()
            | self.dec.delay.val().any()
            | self.dec.ctrl_vc.val().any()
            | self.dec.credits.val().any();
        self.word.next = bit_cast::<Q_BITS, FLIT_BITS>(self.flit.val());
        if self.dec.is_idle.val()
            | self.dec.is_credit.val()
            | (self.dec.is_control.val() & (self.dec.code.val() == self.code_vl_mrkr.val()))
            | self.dec.is_link_transfer.val()
        {
            self.word.next = self.word.val() | self.q_drop.val();
        }
        if self.dec.is_head.val() {
            self.word.next = self.word.val()
                | self.q_head.val()
                | (bit_cast::<Q_BITS, 8>(self.dec.len.val()) << self.q_len_lsb.val());
        }
        if self.dec.is_tail.val()
            | (self.dec.is_control.val() & (self.dec.code.val() == self.code_tail_bad.val()))
        {
            self.word.next = self.word.val() | self.q_end.val();
        }
    }
}

/// A 65-bit constant.
fn flit_constant(v: u128) -> Constant<Bits<FLIT_BITS>> {
    Constant::new(bits_from_fn(|k| (v >> k) & 1 == 1))
}

/// The transmit side of a link endpoint.
#[derive(LogicBlock)]
pub struct TxLink<const RAW: usize, const CW: usize> {
    /// Clock of every register and of the replay RAM.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: sequence numbers to 0, replay empty, credits full.
    pub reset: Signal<In, bool>,
    /// Per-VC flits of fabric packets from the core, classified ([`TxClassifier`]).
    pub sinks: Vec<StreamSink<Bits<Q_BITS>>>,
    /// LTP beats to the striper: 16 flits, then the trailer in bits 15..0.
    pub out: StreamSource<Bits<FLIT_BITS>>,
    /// The striper is idle between LTPs (it samples `mask` now).
    pub striper_idle: Signal<In, bool>,
    /// Active physical lanes, to the striper.
    pub mask: Signal<Out, Bits<4>>,
    /// Fill a stalled packet's slots with other VCs' flits.
    pub interleave: Signal<In, bool>,
    /// The far end's requests and our receiver's, from our receiver.
    pub from_rx: LinkRequestsSink,
    /// Credits the far end returned, per VC (zero when none).
    pub got_credits: Vec<Signal<In, Bits<CW>>>,
    /// Slots our receive buffers freed, per VC: credits we owe the far end.
    pub freed: Vec<Signal<In, Bits<CW>>>,
    /// The link is trained (level): while low nothing is sent (module doc, "Link up").
    pub up: Signal<In, bool>,
    /// One-cycle pulse in the first cycle `up` is high: the link came up.
    pub start: Signal<In, bool>,
    /// Valid with `start`: the far end was reset (RESTART), else it kept its state (RESUME).
    pub fresh_far: Signal<In, bool>,
    /// Valid with `start`: the lanes to send on from now.
    pub start_mask: Signal<In, Bits<4>>,
    /// Per VC: free slots of our receive buffers, not counting this cycle's `freed` (read at a
    /// RESTART: what we owe the fresh far end).
    pub rx_free: Vec<Signal<In, Bits<CW>>>,
    /// The builder is not in the middle of an LTP.
    pub idle: Signal<Out, bool>,
    /// LTPs dropped from the replay buffer at RESTARTs (saturating).
    pub ltps_discarded: Signal<Out, Bits<16>>,
    /// Normal LTPs sent, replays included (wrapping).
    pub ltps_sent: Signal<Out, Bits<32>>,
    /// Null LTPs sent (wrapping).
    pub nulls_sent: Signal<Out, Bits<32>>,
    /// Replays started (saturating).
    pub replays: Signal<Out, Bits<16>>,
    /// Retry requests outside the replay window (saturating).
    pub stale: Signal<Out, Bits<16>>,
    /// Flits from the core that were not the core's to send (saturating).
    pub core_dropped: Signal<Out, Bits<16>>,
    /// Credits available per VC.
    pub credits: Vec<Signal<Out, Bits<CW>>>,
    /// Sticky until reset: the far end returned more credits than a counter holds (module doc,
    /// "Credits").
    pub credit_error: Signal<Out, bool>,
    /// LTPs held in the replay buffer (`next_seq - ack_seq`).
    pub replay_fill: Signal<Out, Bits<16>>,
    ram: RAM<Bits<FLIT_BITS>, RAW>,
    ltp_crc: Crc14x65,
    ccs: Vec<CreditCounter<CW>>,
    q_drop: Constant<Bits<Q_BITS>>,
    q_head: Constant<Bits<Q_BITS>>,
    q_end: Constant<Bits<Q_BITS>>,
    next_seq: DFF<Bits<16>>,
    ack_seq: DFF<Bits<16>>,
    send_seq: DFF<Bits<16>>,
    b_active: DFF<bool>,
    /// The replay buffer has room for the next LTP (`next_seq - ack_seq < R`), registered:
    /// exact for the builder's own LTPs, one cycle late for frees by `got_echo`. It keeps
    /// the 16-bit fill subtraction out of the builder's start decision.
    room: DFF<bool>,
    b_pos: DFF<Bits<4>>,
    link_vc: DFF<Bits<3>>,
    lock_vc: DFF<Bits<3>>,
    locked: DFF<bool>,
    rr_last: DFF<Bits<3>>,
    owed: Vec<DFF<Bits<CW>>>,
    echo_pending: DFF<bool>,
    echo_age: DFF<Bits<6>>,
    marker_out: DFF<bool>,
    marker_seq: DFF<Bits<16>>,
    marker_timer: DFF<Bits<16>>,
    poll_pending: DFF<bool>,
    rr_pending: DFF<bool>,
    replay_pending: DFF<bool>,
    replay_seq: DFF<Bits<16>>,
    mask_pending: DFF<bool>,
    new_mask: DFF<Bits<4>>,
    tx_mask: DFF<Bits<4>>,
    // 33 mod L and L - 1 masks for the sequence state: `st_inc` is 1 at L = 2, 4.
    st_inc: DFF<Bits<2>>,
    st_wrap: DFF<Bits<2>>,
    s_active: DFF<bool>,
    s_pos: DFF<Bits<5>>,
    s_null: DFF<bool>,
    s_seq: DFF<Bits<16>>,
    st: DFF<Bits<2>>,
    ra: DFF<Bits<RAW>>,
    n_mrkr: DFF<bool>,
    n_rr: DFF<bool>,
    n_echo: DFF<bool>,
    n_poll: DFF<bool>,
    n_mrkr_seq: DFF<Bits<16>>,
    n_exp: DFF<Bits<16>>,
    n_mask: DFF<Bits<4>>,
    n_next: DFF<Bits<16>>,
    c_ltps: DFF<Bits<32>>,
    c_nulls: DFF<Bits<32>>,
    c_replays: DFF<Bits<16>>,
    c_stale: DFF<Bits<16>>,
    c_dropped: DFF<Bits<16>>,
    c_discarded: DFF<Bits<16>>,
    /// A credit counter's error, kept across RESTARTs (which reset the counters).
    credit_failed: DFF<bool>,
    // Constants.
    lt_retry_req: Constant<Bits<FLIT_BITS>>,
    lt_retry_mrkr: Constant<Bits<FLIT_BITS>>,
    lt_rt_mrkr: Constant<Bits<FLIT_BITS>>,
    lt_echo: Constant<Bits<FLIT_BITS>>,
    lt_mask: Constant<Bits<FLIT_BITS>>,
    lt_null: Constant<Bits<FLIT_BITS>>,
    crdt_ret: Constant<Bits<FLIT_BITS>>,
    vl_mrkr: Constant<Bits<FLIT_BITS>>,
    vc_clear: Constant<Bits<FLIT_BITS>>,
    vc_lsb: Constant<Bits<8>>,
    ctrl_vc_lsb: Constant<Bits<8>>,
    credits_lsb: Constant<Bits<8>>,
    r_ltps: Constant<Bits<16>>,
    r_less: Constant<Bits<16>>,
    urgent: Constant<Bits<CW>>,
    /// Our receive buffers' depth: the credits owed after our reset.
    own_depth: Constant<Bits<CW>>,
    rt_timeout: Constant<Bits<16>>,
    init_mask: Constant<Bits<4>>,
    max_need: Constant<Bits<8>>,
    q_len_lsb: Constant<Bits<8>>,
    nums: Vec<Constant<Bits<3>>>,
    // Per-cycle decisions.
    elig: Signal<Local, Bits<8>>,
    drops: Signal<Local, Bits<8>>,
    cand: Signal<Local, Bits<3>>,
    has: Signal<Local, bool>,
    found: Signal<Local, bool>,
    cf: Signal<Local, Bits<Q_BITS>>,
    cf_head: Signal<Local, bool>,
    cf_end: Signal<Local, bool>,
    cf_drop: Signal<Local, bool>,
    need_vlm: Signal<Local, bool>,
    any_owed: Signal<Local, bool>,
    urg_found: Signal<Local, bool>,
    urg_vc: Signal<Local, Bits<3>>,
    any_vc: Signal<Local, Bits<3>>,
    cr_vc: Signal<Local, Bits<3>>,
    cr_amt: Signal<Local, Bits<CW>>,
    fill: Signal<Local, Bits<16>>,
    b_start: Signal<Local, bool>,
    bw: Signal<Local, bool>,
    pos: Signal<Local, Bits<4>>,
    sel_echo: Signal<Local, bool>,
    sel_mrk: Signal<Local, bool>,
    sel_cr: Signal<Local, bool>,
    sel_data: Signal<Local, bool>,
    pop: Signal<Local, bool>,
    wdata: Signal<Local, Bits<FLIT_BITS>>,
    fire: Signal<Local, bool>,
    s_free: Signal<Local, bool>,
    trailer_fire: Signal<Local, bool>,
    want_null: Signal<Local, bool>,
    go_null: Signal<Local, bool>,
    go_ltp: Signal<Local, bool>,
    null_echo: Signal<Local, bool>,
    new_st: Signal<Local, Bits<2>>,
    ra_next: Signal<Local, Bits<RAW>>,
    null_flit: Signal<Local, Bits<FLIT_BITS>>,
    trailer: Signal<Local, Bits<16>>,
    seq_xor: Signal<Local, Bits<14>>,
    win: Signal<Local, Bits<16>>,
    retry_dist: Signal<Local, Bits<16>>,
    dist2: Signal<Local, Bits<16>>,
    lanes_n: Signal<Local, Bits<3>>,
    /// The link is up and not in its `start` cycle: LTPs may start.
    run: Signal<Local, bool>,
    restart: Signal<Local, bool>,
    lane_src: Signal<Local, Bits<4>>,
    head_len: Signal<Local, Bits<8>>,
    head_need: Signal<Local, Bits<8>>,
    avail_now: Signal<Local, Bits<CW>>,
    avail_wide: Signal<Local, Bits<16>>,
    head_ok: Signal<Local, bool>,
    discarded_sum: Signal<Local, Bits<17>>,
}

impl<const RAW: usize, const CW: usize> TxLink<RAW, CW> {
    /// A transmitter of `vcs` VCs whose own receive buffers (our `RxLink`'s, for the urgent
    /// quarter-buffer CrdtRet threshold) hold `vc_buffer` flits per VC, lanes `mask` after
    /// reset, a round-trip marker timeout of `rt_timeout` cycles, and packets of at most
    /// `max_packet` flits (`network.max_packet_flits`: the most credits a head waits for). The
    /// far end's buffer sizes are not needed: its credits arrive at bring-up.
    pub fn new(vcs: usize, vc_buffer: u64, mask: u8, rt_timeout: u16, max_packet: u64) -> Self {
        assert!(
            (1..=8).contains(&vcs),
            "TxLink: vcs = {vcs} must be in 1..=8"
        );
        assert!(
            (5..=10).contains(&RAW),
            "TxLink: RAW = {RAW} must be log2(replay LTPs) + 4 with 2..=64 LTPs"
        );
        assert!(
            vc_buffer >= 4 && vc_buffer < (1 << CW),
            "TxLink: vc_buffer = {vc_buffer} must be >= 4 and fit CW = {CW} bits"
        );
        assert!(
            mask != 0 && mask < 16,
            "TxLink: mask {mask:#x} must name 1..4 lanes"
        );
        assert!(
            (1..=255).contains(&max_packet) && max_packet < (1 << CW),
            "TxLink: max_packet = {max_packet} must be 1..=255 and fit CW = {CW} bits"
        );
        assert!(
            rt_timeout >= 64,
            "TxLink: rt_timeout must be at least 64 cycles"
        );
        let ctrl = |c: crate::formats::ControlCode| CODE.set(0, c.code() as u128);
        let vc_field = ((1u128 << VC.width) - 1) << VC.lsb;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sinks: (0..vcs).map(|_| Default::default()).collect(),
            out: Default::default(),
            striper_idle: Default::default(),
            mask: Default::default(),
            interleave: Default::default(),
            from_rx: Default::default(),
            got_credits: (0..vcs).map(|_| Default::default()).collect(),
            freed: (0..vcs).map(|_| Default::default()).collect(),
            up: Default::default(),
            start: Default::default(),
            fresh_far: Default::default(),
            start_mask: Default::default(),
            rx_free: (0..vcs).map(|_| Default::default()).collect(),
            idle: Default::default(),
            ltps_discarded: Default::default(),
            ltps_sent: Default::default(),
            nulls_sent: Default::default(),
            replays: Default::default(),
            stale: Default::default(),
            core_dropped: Default::default(),
            credits: (0..vcs).map(|_| Default::default()).collect(),
            credit_error: Default::default(),
            replay_fill: Default::default(),
            ram: Default::default(),
            ltp_crc: Crc14x65::new(&CRC14),
            ccs: (0..vcs)
                .map(|_| CreditCounter::starting_empty((1u64 << CW) - 1))
                .collect(),
            q_drop: class_bit(Q_DROP),
            q_head: class_bit(Q_HEAD),
            q_end: class_bit(Q_END),
            next_seq: Default::default(),
            ack_seq: Default::default(),
            send_seq: Default::default(),
            b_active: Default::default(),
            room: Default::default(),
            b_pos: Default::default(),
            link_vc: Default::default(),
            lock_vc: Default::default(),
            locked: Default::default(),
            rr_last: Default::default(),
            owed: (0..vcs).map(|_| Default::default()).collect(),
            echo_pending: Default::default(),
            echo_age: Default::default(),
            marker_out: Default::default(),
            marker_seq: Default::default(),
            marker_timer: Default::default(),
            poll_pending: Default::default(),
            rr_pending: Default::default(),
            replay_pending: Default::default(),
            replay_seq: Default::default(),
            mask_pending: Default::default(),
            new_mask: Default::default(),
            tx_mask: Default::default(),
            st_inc: Default::default(),
            st_wrap: Default::default(),
            s_active: Default::default(),
            s_pos: Default::default(),
            s_null: Default::default(),
            s_seq: Default::default(),
            st: Default::default(),
            ra: Default::default(),
            n_mrkr: Default::default(),
            n_rr: Default::default(),
            n_echo: Default::default(),
            n_poll: Default::default(),
            n_mrkr_seq: Default::default(),
            n_exp: Default::default(),
            n_mask: Default::default(),
            n_next: Default::default(),
            c_ltps: Default::default(),
            c_nulls: Default::default(),
            c_replays: Default::default(),
            c_stale: Default::default(),
            c_dropped: Default::default(),
            c_discarded: Default::default(),
            credit_failed: Default::default(),
            lt_retry_req: flit_constant(LtCode::RetryReq.flit(0)),
            lt_retry_mrkr: flit_constant(LtCode::RetryMrkr.flit(0)),
            lt_rt_mrkr: flit_constant(LtCode::RndTripMrkr.flit(0)),
            lt_echo: flit_constant(LtCode::RndTripEcho.flit(0)),
            lt_mask: flit_constant(LtCode::LaneMask.flit(0)),
            lt_null: flit_constant(LtCode::Null.flit(0)),
            crdt_ret: flit_constant(ctrl(crate::formats::ControlCode::CrdtRet)),
            vl_mrkr: flit_constant(ctrl(crate::formats::ControlCode::VlMrkr)),
            vc_clear: flit_constant(FLIT_MASK & !vc_field),
            vc_lsb: Constant::new((VC.lsb as u64).into()),
            ctrl_vc_lsb: Constant::new((CTRL_VC.lsb as u64).into()),
            credits_lsb: Constant::new((CTRL_CREDITS.lsb as u64).into()),
            r_ltps: Constant::new((1u64 << (RAW - 4)).into()),
            r_less: Constant::new(((1u64 << (RAW - 4)) - 1).into()),
            urgent: Constant::new((vc_buffer / 4).into()),
            own_depth: Constant::new(vc_buffer.into()),
            rt_timeout: Constant::new((rt_timeout as u64).into()),
            init_mask: Constant::new((mask as u64).into()),
            max_need: Constant::new(max_packet.into()),
            q_len_lsb: Constant::new((Q_LEN as u64).into()),
            nums: (0..8).map(|n| Constant::new((n as u64).into())).collect(),
            elig: Default::default(),
            drops: Default::default(),
            cand: Default::default(),
            has: Default::default(),
            found: Default::default(),
            cf: Default::default(),
            cf_head: Default::default(),
            cf_end: Default::default(),
            cf_drop: Default::default(),
            need_vlm: Default::default(),
            any_owed: Default::default(),
            urg_found: Default::default(),
            urg_vc: Default::default(),
            any_vc: Default::default(),
            cr_vc: Default::default(),
            cr_amt: Default::default(),
            fill: Default::default(),
            b_start: Default::default(),
            bw: Default::default(),
            pos: Default::default(),
            sel_echo: Default::default(),
            sel_mrk: Default::default(),
            sel_cr: Default::default(),
            sel_data: Default::default(),
            pop: Default::default(),
            wdata: Default::default(),
            fire: Default::default(),
            s_free: Default::default(),
            trailer_fire: Default::default(),
            want_null: Default::default(),
            go_null: Default::default(),
            go_ltp: Default::default(),
            null_echo: Default::default(),
            new_st: Default::default(),
            ra_next: Default::default(),
            null_flit: Default::default(),
            trailer: Default::default(),
            seq_xor: Default::default(),
            win: Default::default(),
            retry_dist: Default::default(),
            dist2: Default::default(),
            lanes_n: Default::default(),
            run: Default::default(),
            restart: Default::default(),
            lane_src: Default::default(),
            head_len: Default::default(),
            head_need: Default::default(),
            avail_now: Default::default(),
            avail_wide: Default::default(),
            head_ok: Default::default(),
            discarded_sum: Default::default(),
        }
    }
}

impl<const RAW: usize, const CW: usize> Logic for TxLink<RAW, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            next_seq,
            ack_seq,
            send_seq,
            b_active,
            room,
            b_pos,
            link_vc,
            lock_vc,
            locked,
            rr_last,
            echo_pending,
            echo_age,
            marker_out,
            marker_seq,
            marker_timer,
            poll_pending,
            rr_pending,
            replay_pending,
            replay_seq,
            mask_pending,
            new_mask,
            tx_mask,
            st_inc,
            st_wrap,
            s_active,
            s_pos,
            s_null,
            s_seq,
            st,
            ra,
            n_mrkr,
            n_rr,
            n_echo,
            n_poll,
            n_mrkr_seq,
            n_exp,
            n_mask,
            n_next,
            c_ltps,
            c_nulls,
            c_replays,
            c_stale,
            c_dropped,
            c_discarded,
            credit_failed
        );
        self.run.next = self.up.val() & !self.start.val();
        self.restart.next = self.start.val() & self.fresh_far.val();
        self.idle.next = !self.b_active.q.val();
        self.ltps_discarded.next = self.c_discarded.q.val();
        for v in 0..self.sinks.len() {
            self.owed[v].clock.next = self.clock.val();
            self.owed[v].d.next = self.owed[v].q.val();
            self.ccs[v].clock.next = self.clock.val();
            // A RESTART empties the counters: the fresh far end hands over its buffer anew.
            self.ccs[v].reset.next = self.reset.val() | self.restart.val();
            self.ccs[v].consume.next = false;
            self.ccs[v].returned.next = self.got_credits[v].val();
            self.credits[v].next = self.ccs[v].available.val();
            self.sinks[v].ready.next = false;
        }
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.ltp_crc.clock.next = self.clock.val();
        self.ltp_crc.reset.next = self.reset.val();
        self.mask.next = self.tx_mask.q.val();
        self.ltps_sent.next = self.c_ltps.q.val();
        self.nulls_sent.next = self.c_nulls.q.val();
        self.replays.next = self.c_replays.q.val();
        self.stale.next = self.c_stale.q.val();
        self.core_dropped.next = self.c_dropped.q.val();
        self.credit_error.next = self.credit_failed.q.val();
        for v in 0..self.sinks.len() {
            self.credit_error.next = self.credit_error.val() | self.ccs[v].error.val();
        }
        self.credit_failed.d.next = self.credit_error.val();
        self.fill.next = self.next_seq.q.val() - self.ack_seq.q.val();
        self.replay_fill.next = self.fill.val();

        // Which VCs may send: a flit and a credit, or a flit that is dropped (no credit). With
        // `interleave` low a head needs credits for its whole packet (module doc, "Whole-packet
        // admission"), so a VC short of credits never holds the link.
        self.elig.next = 0.into();
        self.drops.next = 0.into();
        for v in 0..self.sinks.len() {
            if (self.sinks[v].data.val() & self.q_drop.val()).any() {
                self.drops.next = self.drops.val().replace_bit(v, true);
            }
            self.head_len.next = self.sinks[v]
                .data
                .val()
                .get_bits::<8>(self.q_len_lsb.val().index());
            self.head_need.next = self.head_len.val();
            if !self.head_len.val().any() {
                self.head_need.next = 1.into();
            }
            if self.head_len.val() > self.max_need.val() {
                self.head_need.next = self.max_need.val();
            }
            // (bit_cast of an indexed expression does not compile inside an hdl_gen loop.)
            self.avail_now.next = self.ccs[v].available.val();
            self.avail_wide.next = bit_cast::<16, CW>(self.avail_now.val());
            self.head_ok.next = self.interleave.val()
                | !(self.sinks[v].data.val() & self.q_head.val()).any()
                | (self.avail_wide.val() >= bit_cast::<16, 8>(self.head_need.val()));
            if self.sinks[v].valid.val()
                & (self.ccs[v].has_credit.val() | self.drops.val().get_bit(v))
                & self.head_ok.val()
            {
                self.elig.next = self.elig.val().replace_bit(v, true);
            }
        }
        // Candidate VC: the packet in progress, else round robin after `rr_last`.
        self.found.next = false;
        self.cand.next = 0.into();
        // (VC 0 is never after `rr_last`: the loop starts at 1.)
        for v in 1..self.sinks.len() {
            if !self.found.val()
                & self.elig.val().get_bit(v)
                & (self.nums[v].val() > self.rr_last.q.val())
            {
                self.cand.next = self.nums[v].val();
                self.found.next = true;
            }
        }
        for v in 0..self.sinks.len() {
            if !self.found.val() & self.elig.val().get_bit(v) {
                self.cand.next = self.nums[v].val();
                self.found.next = true;
            }
        }
        self.has.next = self.found.val();
        if self.locked.q.val()
            & (!self.interleave.val() | self.elig.val().get_bit(self.lock_vc.q.val().index()))
        {
            self.cand.next = self.lock_vc.q.val();
            self.has.next = self.elig.val().get_bit(self.lock_vc.q.val().index());
        }
        self.cf.next = 0.into();
        for v in 0..self.sinks.len() {
            if self.cand.val() == self.nums[v].val() {
                self.cf.next = self.sinks[v].data.val();
            }
        }
        self.cf_head.next = (self.cf.val() & self.q_head.val()).any();
        self.cf_end.next = (self.cf.val() & self.q_end.val()).any();
        self.cf_drop.next = (self.cf.val() & self.q_drop.val()).any();
        self.need_vlm.next =
            !self.cf_head.val() & !self.cf_drop.val() & (self.cand.val() != self.link_vc.q.val());

        // Credits owed: a VC owed a quarter of its buffer is urgent; any VC owed something.
        self.any_owed.next = false;
        self.urg_found.next = false;
        self.urg_vc.next = 0.into();
        self.any_vc.next = 0.into();
        for v in 0..self.sinks.len() {
            if !self.any_owed.val() & self.owed[v].q.val().any() {
                self.any_vc.next = self.nums[v].val();
                self.any_owed.next = true;
            }
            if !self.urg_found.val() & (self.owed[v].q.val() >= self.urgent.val()) {
                self.urg_vc.next = self.nums[v].val();
                self.urg_found.next = true;
            }
        }

        // Serializer state first (the builder's echo depends on it).
        self.fire.next = self.s_active.q.val() & self.out.ready.val() & self.up.val();
        self.trailer_fire.next = self.fire.val() & self.s_pos.q.val().get_bit(4);
        self.s_free.next = !self.s_active.q.val() | self.trailer_fire.val();
        self.want_null.next = self.replay_pending.q.val()
            | self.rr_pending.q.val()
            | self.poll_pending.q.val()
            | (self.echo_pending.q.val() & !self.b_active.q.val() & self.echo_age.q.val().all());
        self.go_null.next =
            self.run.val() & self.s_free.val() & !self.mask_pending.q.val() & self.want_null.val();
        self.go_ltp.next = self.run.val()
            & self.s_free.val()
            & !self.mask_pending.q.val()
            & !self.want_null.val()
            & ((self.send_seq.q.val() != self.next_seq.q.val())
                | (self.b_active.q.val() & (self.b_pos.q.val() >= 2)));
        self.null_echo.next = self.go_null.val() & self.echo_pending.q.val();

        // Builder.
        self.b_start.next = !self.b_active.q.val()
            & !self.reset.val()
            & self.run.val()
            & self.room.q.val()
            & (self.send_seq.q.val() == self.next_seq.q.val())
            & (self.has.val() | self.any_owed.val());
        self.bw.next = self.b_active.q.val() | self.b_start.val();
        self.pos.next = 0.into();
        if self.b_active.q.val() {
            self.pos.next = self.b_pos.q.val();
        }
        self.sel_echo.next = self.bw.val()
            & self.pos.val().any()
            & self.echo_pending.q.val()
            & !self.null_echo.val();
        self.sel_mrk.next =
            self.bw.val() & self.pos.val().any() & !self.sel_echo.val() & !self.marker_out.q.val();
        self.sel_cr.next = false;
        self.sel_data.next = false;
        self.cr_vc.next = self.urg_vc.val();
        if self.bw.val() & !self.sel_echo.val() & !self.sel_mrk.val() {
            if self.urg_found.val() {
                self.sel_cr.next = true;
            } else if self.has.val() {
                self.sel_data.next = true;
            } else if self.any_owed.val() {
                self.sel_cr.next = true;
                self.cr_vc.next = self.any_vc.val();
            }
        }
        self.cr_amt.next = 0.into();
        for v in 0..self.sinks.len() {
            if self.cr_vc.val() == self.nums[v].val() {
                self.cr_amt.next = self.owed[v].q.val();
            }
        }
        self.pop.next = self.sel_data.val() & !self.need_vlm.val();
        self.wdata.next = 0.into();
        if self.sel_echo.val() {
            self.wdata.next =
                self.lt_echo.val() | bit_cast::<FLIT_BITS, 16>(self.from_rx.expect_seq.val());
        }
        if self.sel_mrk.val() {
            self.wdata.next =
                self.lt_rt_mrkr.val() | bit_cast::<FLIT_BITS, 16>(self.next_seq.q.val());
        }
        if self.sel_cr.val() {
            self.wdata.next = self.crdt_ret.val()
                | (bit_cast::<FLIT_BITS, 3>(self.cr_vc.val()) << self.ctrl_vc_lsb.val())
                | (bit_cast::<FLIT_BITS, CW>(self.cr_amt.val()) << self.credits_lsb.val());
        }
        if self.sel_data.val() {
            if self.need_vlm.val() {
                self.wdata.next = self.vl_mrkr.val()
                    | (bit_cast::<FLIT_BITS, 3>(self.cand.val()) << self.ctrl_vc_lsb.val());
            } else if self.cf_drop.val() {
                self.wdata.next = 0.into();
            } else if self.cf_head.val() {
                self.wdata.next = (bit_cast::<FLIT_BITS, Q_BITS>(self.cf.val())
                    & self.vc_clear.val())
                    | (bit_cast::<FLIT_BITS, 3>(self.cand.val()) << self.vc_lsb.val());
            } else {
                self.wdata.next = bit_cast::<FLIT_BITS, Q_BITS>(self.cf.val());
            }
        }
        self.ram.write_enable.next = self.bw.val();
        self.ram.write_address.next =
            (self.next_seq.q.val().get_bits::<RAW>(0) << 4) | bit_cast::<RAW, 4>(self.pos.val());
        self.ram.write_data.next = self.wdata.val();
        // Room after this cycle: an LTP finished now counts at once; echoes count next cycle.
        self.room.d.next = self.fill.val() < self.r_ltps.val();
        if self.bw.val() & (self.pos.val() == 15) {
            self.room.d.next = self.fill.val() < self.r_less.val();
        }
        if self.bw.val() {
            self.b_pos.d.next = self.pos.val() + 1;
            self.b_active.d.next = true;
            if self.pos.val() == 15 {
                self.b_active.d.next = false;
                self.next_seq.d.next = self.next_seq.q.val() + 1;
            }
        }
        for v in 0..self.sinks.len() {
            self.owed[v].d.next = self.owed[v].q.val() + self.freed[v].val();
            if self.sel_cr.val() & (self.cr_vc.val() == self.nums[v].val()) {
                self.owed[v].d.next = self.freed[v].val();
            }
            if self.pop.val() & (self.cand.val() == self.nums[v].val()) {
                self.sinks[v].ready.next = true;
                self.ccs[v].consume.next = !self.cf_drop.val();
            }
        }
        if self.sel_data.val() {
            self.lock_vc.d.next = self.cand.val();
            if self.need_vlm.val() {
                self.link_vc.d.next = self.cand.val();
            }
        }
        if self.pop.val() {
            self.rr_last.d.next = self.cand.val();
            if self.cf_drop.val() & (self.c_dropped.q.val() != 0xffff) {
                self.c_dropped.d.next = self.c_dropped.q.val() + 1;
            }
            if self.cf_head.val() {
                self.link_vc.d.next = self.cand.val();
                self.locked.d.next = true;
            }
            if self.cf_end.val() {
                self.locked.d.next = false;
            }
        }
        if self.sel_echo.val() {
            self.echo_pending.d.next = false;
        }
        if self.sel_mrk.val() {
            self.marker_out.d.next = true;
            self.marker_seq.d.next = self.next_seq.q.val();
            self.marker_timer.d.next = 0.into();
        }

        // Serializer: output flit, CRC, trailer.
        self.out.valid.next = self.s_active.q.val() & self.up.val();
        self.seq_xor.next = self.s_seq.q.val().get_bits::<14>(0);
        if self.s_null.q.val() {
            self.seq_xor.next = 0.into();
        }
        self.trailer.next = bit_cast::<16, 14>(self.ltp_crc.crc.val() ^ self.seq_xor.val())
            | (bit_cast::<16, 2>(self.st.q.val()) << 14);
        self.null_flit.next = 0.into();
        if self.s_pos.q.val() == 0 {
            self.null_flit.next = self.lt_null.val();
            if self.n_mrkr.q.val() {
                self.null_flit.next =
                    self.lt_retry_mrkr.val() | bit_cast::<FLIT_BITS, 16>(self.n_mrkr_seq.q.val());
            }
        }
        if (self.s_pos.q.val() == 1) & self.n_rr.q.val() {
            self.null_flit.next =
                self.lt_retry_req.val() | bit_cast::<FLIT_BITS, 16>(self.n_exp.q.val());
        }
        if (self.s_pos.q.val() == 2) & self.n_rr.q.val() {
            self.null_flit.next =
                self.lt_mask.val() | bit_cast::<FLIT_BITS, 4>(self.n_mask.q.val());
        }
        if (self.s_pos.q.val() == 3) & self.n_echo.q.val() {
            self.null_flit.next =
                self.lt_echo.val() | bit_cast::<FLIT_BITS, 16>(self.n_exp.q.val());
        }
        if (self.s_pos.q.val() == 4) & self.n_poll.q.val() {
            self.null_flit.next =
                self.lt_rt_mrkr.val() | bit_cast::<FLIT_BITS, 16>(self.n_next.q.val());
        }
        self.out.data.next = self.ram.read_data.val();
        if self.s_null.q.val() {
            self.out.data.next = self.null_flit.val();
        }
        if self.s_pos.q.val().get_bit(4) {
            self.out.data.next = bit_cast::<FLIT_BITS, 16>(self.trailer.val());
        }
        self.ltp_crc.start.next = self.fire.val() & (self.s_pos.q.val() == 0);
        self.ltp_crc.valid.next = self.fire.val() & !self.s_pos.q.val().get_bit(4);
        self.ltp_crc.data.next = self.out.data.val();

        // Sequence state of the next LTP: it follows the trailer at once, or restarts at 0.
        self.new_st.next = 0.into();
        if self.trailer_fire.val() {
            self.new_st.next = (self.st.q.val() + self.st_inc.q.val()) & self.st_wrap.q.val();
        }
        // RAM read address: the flit shown next cycle.
        self.ra_next.next = self.ra.q.val();
        if self.fire.val() & !self.s_pos.q.val().get_bit(4) {
            self.ra_next.next = self.ra.q.val() + 1;
        }
        if self.go_ltp.val() {
            self.ra_next.next = self.send_seq.q.val().get_bits::<RAW>(0) << 4;
        }
        self.ra.d.next = self.ra_next.val();
        self.ram.read_address.next = self.ra_next.val();
        if self.fire.val() & !self.s_pos.q.val().get_bit(4) {
            self.s_pos.d.next = self.s_pos.q.val() + 1;
        }
        if self.trailer_fire.val() {
            self.s_active.d.next = false;
        }
        if self.go_null.val() | self.go_ltp.val() {
            self.s_active.d.next = true;
            self.s_pos.d.next = 0.into();
            self.s_null.d.next = self.go_null.val();
            self.st.d.next = self.new_st.val();
        }
        if self.go_ltp.val() {
            self.s_seq.d.next = self.send_seq.q.val();
            self.send_seq.d.next = self.send_seq.q.val() + 1;
            self.c_ltps.d.next = self.c_ltps.q.val() + 1;
        }
        if self.go_null.val() {
            self.n_mrkr.d.next = self.replay_pending.q.val();
            self.n_mrkr_seq.d.next = self.replay_seq.q.val();
            self.n_rr.d.next = self.rr_pending.q.val();
            self.n_exp.d.next = self.from_rx.expect_seq.val();
            self.n_mask.d.next = self.from_rx.mask.val();
            self.n_echo.d.next = self.echo_pending.q.val();
            self.n_poll.d.next = self.poll_pending.q.val();
            self.n_next.d.next = self.next_seq.q.val();
            self.replay_pending.d.next = false;
            self.rr_pending.d.next = false;
            self.poll_pending.d.next = false;
            self.echo_pending.d.next = false;
            self.c_nulls.d.next = self.c_nulls.q.val() + 1;
            if self.replay_pending.q.val() {
                self.send_seq.d.next = self.replay_seq.q.val();
                if self.c_replays.q.val() != 0xffff {
                    self.c_replays.d.next = self.c_replays.q.val() + 1;
                }
            }
        }
        // A new lane mask, applied while the serializer and the striper are idle, or at once
        // at `start` (the striper is held in reset while the link is down).
        self.lane_src.next = self.new_mask.q.val();
        if self.start.val() {
            self.lane_src.next = self.start_mask.val();
        }
        self.lanes_n.next = bit_cast::<3, 1>(self.lane_src.val().get_bits::<1>(0))
            + bit_cast::<3, 1>(self.lane_src.val().get_bits::<1>(1))
            + bit_cast::<3, 1>(self.lane_src.val().get_bits::<1>(2))
            + bit_cast::<3, 1>(self.lane_src.val().get_bits::<1>(3));
        if (self.mask_pending.q.val()
            & self.run.val()
            & !self.s_active.q.val()
            & self.striper_idle.val())
            | self.start.val()
        {
            self.tx_mask.d.next = self.lane_src.val();
            self.mask_pending.d.next = false;
            self.st_inc.d.next = 0.into();
            self.st_wrap.d.next = 0.into();
            if self.lanes_n.val() == 4 {
                self.st_inc.d.next = 1.into();
                self.st_wrap.d.next = 3.into();
            }
            if self.lanes_n.val() == 2 {
                self.st_inc.d.next = 1.into();
                self.st_wrap.d.next = 1.into();
            }
        }

        // Protocol inputs.
        self.win.next = self.next_seq.q.val() - self.ack_seq.q.val();
        self.retry_dist.next = self.from_rx.got_retry_seq.val() - self.ack_seq.q.val();
        if self.from_rx.got_retry.val() {
            self.replay_pending.d.next = true;
            self.replay_seq.d.next = self.from_rx.got_retry_seq.val();
            if self.retry_dist.val() > self.win.val() {
                self.replay_seq.d.next = self.ack_seq.q.val();
                if self.c_stale.q.val() != 0xffff {
                    self.c_stale.d.next = self.c_stale.q.val() + 1;
                }
            }
        }
        self.dist2.next = self.from_rx.got_echo_seq.val() - self.ack_seq.q.val();
        if self.from_rx.got_echo.val() & (self.dist2.val() <= self.win.val()) {
            self.ack_seq.d.next = self.from_rx.got_echo_seq.val();
            // `marker_seq` is the previous marker's while a new one is written (`sel_mrk`):
            // no echo can be newer than the new marker yet.
            if !self.sel_mrk.val()
                & (self.from_rx.got_echo_seq.val() - self.marker_seq.q.val()).any()
                & ((self.from_rx.got_echo_seq.val() - self.marker_seq.q.val())
                    <= (self.next_seq.q.val() - self.marker_seq.q.val()))
            {
                self.marker_out.d.next = false;
            }
        }
        if self.from_rx.got_mask.val()
            & self.from_rx.got_mask_val.val().any()
            & (self.from_rx.got_mask_val.val() != self.tx_mask.q.val())
        {
            self.mask_pending.d.next = true;
            self.new_mask.d.next = self.from_rx.got_mask_val.val();
        }
        if self.from_rx.send_retry.val() {
            self.rr_pending.d.next = true;
        }
        if self.from_rx.send_echo.val() {
            self.echo_pending.d.next = true;
        }
        // An echo waits up to 63 cycles for a slot in a normal LTP before it takes a null LTP
        // of its own: during a replay the builder is idle for several LTPs, and a null LTP per
        // echo there cost more wire time than the replays themselves.
        self.echo_age.d.next = 0.into();
        if self.echo_pending.q.val() & !self.echo_age.q.val().all() {
            self.echo_age.d.next = self.echo_age.q.val() + 1;
        }
        if (self.echo_pending.q.val() & self.echo_age.q.val().all()) | !self.up.val() {
            self.echo_age.d.next = self.echo_age.q.val();
        }
        // The poll timer also runs while LTPs wait for acknowledgement with no marker
        // outstanding: LTPs built while a marker was out carry none, and if the link then goes
        // idle no later LTP brings one, so without a poll they would stay unacknowledged (the
        // replay buffer never empties and the link watchdog calls the link dead).
        // While the link is down the timer holds (nothing could answer a poll).
        if (self.marker_out.q.val() | (self.next_seq.q.val() != self.ack_seq.q.val()))
            & !self.sel_mrk.val()
            & self.up.val()
        {
            self.marker_timer.d.next = self.marker_timer.q.val() + 1;
            if self.marker_timer.q.val() == self.rt_timeout.val() {
                self.marker_timer.d.next = 0.into();
                self.poll_pending.d.next = true;
            }
        } else if !self.sel_mrk.val() & self.up.val() {
            self.marker_timer.d.next = 0.into();
        }
        // An echo that frees LTPs is progress: the timer starts again from it.
        if self.from_rx.got_echo.val() & (self.dist2.val() <= self.win.val()) & !self.sel_mrk.val()
        {
            self.marker_timer.d.next = 0.into();
        }
        // A replay for the far end re-sends the marker's LTP if the far end lost it: the echo
        // comes after the replay, so the poll timer starts again.
        if self.from_rx.got_retry.val() {
            self.marker_timer.d.next = 0.into();
        }

        // Link down: an LTP on the way out is abandoned (it stays in the replay buffer).
        if !self.up.val() {
            self.s_active.d.next = false;
        }
        // Link up (module doc, "Link up"): RESUME replays everything not acknowledged;
        // RESTART also empties the replay buffer and starts the protocol and credits afresh.
        if self.start.val() {
            self.mask_pending.d.next = false;
            self.replay_pending.d.next = true;
            self.replay_seq.d.next = self.ack_seq.q.val();
            self.rr_pending.d.next = false;
            self.poll_pending.d.next = false;
            self.marker_timer.d.next = 0.into();
        }
        self.discarded_sum.next =
            bit_cast::<17, 16>(self.c_discarded.q.val()) + bit_cast::<17, 16>(self.fill.val());
        if self.restart.val() {
            self.next_seq.d.next = 0.into();
            self.ack_seq.d.next = 0.into();
            self.send_seq.d.next = 0.into();
            self.replay_seq.d.next = 0.into();
            self.room.d.next = true;
            self.c_discarded.d.next = self.discarded_sum.val().get_bits::<16>(0);
            if self.discarded_sum.val().get_bit(16) {
                self.c_discarded.d.next = 0xffff.into();
            }
            self.marker_out.d.next = false;
            self.echo_pending.d.next = false;
            self.link_vc.d.next = 0.into();
            for v in 0..self.sinks.len() {
                self.owed[v].d.next = self.rx_free[v].val();
            }
        }

        if self.reset.val() {
            self.room.d.next = true;
            self.next_seq.d.next = 0.into();
            self.ack_seq.d.next = 0.into();
            self.send_seq.d.next = 0.into();
            self.b_active.d.next = false;
            self.b_pos.d.next = 0.into();
            self.link_vc.d.next = 0.into();
            self.lock_vc.d.next = 0.into();
            self.locked.d.next = false;
            self.rr_last.d.next = 0.into();
            self.echo_pending.d.next = false;
            self.echo_age.d.next = 0.into();
            self.marker_out.d.next = false;
            self.marker_timer.d.next = 0.into();
            self.poll_pending.d.next = false;
            self.rr_pending.d.next = false;
            self.replay_pending.d.next = false;
            self.mask_pending.d.next = true;
            self.new_mask.d.next = self.init_mask.val();
            self.tx_mask.d.next = self.init_mask.val();
            self.s_active.d.next = false;
            self.s_pos.d.next = 0.into();
            self.s_null.d.next = false;
            self.st.d.next = 0.into();
            self.c_ltps.d.next = 0.into();
            self.c_nulls.d.next = 0.into();
            self.c_replays.d.next = 0.into();
            self.c_stale.d.next = 0.into();
            self.c_dropped.d.next = 0.into();
            self.c_discarded.d.next = 0.into();
            self.credit_failed.d.next = false;
            // Our receive buffers are empty after our reset: the far end gets all of them
            // as credits once the link is up, whether it restarts too (then `rx_free` says the
            // same) or resumes (it kept its state; only we were reset).
            for v in 0..self.sinks.len() {
                self.owed[v].d.next = self.own_depth.val();
            }
        }
    }
}

#[test]
fn tx_link_is_synthesizable() {
    let mut uut = TxLink::<8, 7>::new(2, 64, 0xf, 1024, 64);
    uut.connect_all();
    yosys_validate("tx_link", &generate_verilog(&uut)).unwrap();
}

#[test]
fn tx_classifier_is_synthesizable() {
    let mut uut = TxClassifier::default();
    uut.connect_all();
    yosys_validate("tx_classifier", &generate_verilog(&uut)).unwrap();
}
