//! Receive delivery: the LTP staging buffer, the VC demultiplexer and the per-VC packet
//! buffers of a link receiver (receiver items 2, 6 and 7 in `docs/llp-design.md`).
//!
//! The LTP parser writes the data flits of the LTP in progress (everything but Idle, CrdtRet
//! and LinkTransfer flits, which it consumes) into a [`CommitFifo`], and says `commit` when the
//! LTP passed its CRC (and is not a duplicate), `rollback` otherwise (same timing rules as the
//! CommitFifo: a write in the commit/rollback cycle belongs to the next LTP). So only flits of
//! good LTPs leave the staging buffer.
//!
//! **Demultiplexer.** Committed flits leave the staging buffer one per cycle (it is always
//! read: a [`PacketBuffer`]'s sink is always ready, credits guarantee room) and go, through
//! one register stage, to the packet buffer of the *current VC*:
//! - a head flit (type bit 0, head bit 1, well-formed or not) sets the current VC from its
//!   header's VC field (the transmitter makes it the link VC) and is forwarded;
//! - a VlMrkr sets it from its `CTRL_VC` field and is consumed (it used no credit);
//! - every other flit keeps it and is forwarded;
//! - a head or VlMrkr naming a VC `>= V` counts one `bad_vc` (saturating), and every flit up
//!   to the next head or VlMrkr naming a valid VC is dropped (no credit returns for them: the
//!   sender had no credit counter for that VC). Reset: VC 0.
//!
//! **Status.** `freed[v]` is packet buffer `v`'s `freed` (credits to return). The drop
//! counters are the *totals over all VCs* by reason (16-bit saturating, one cycle behind the
//! per-VC counters): a per-VC counter moves by at most one per cycle and only one VC receives
//! a flit per cycle, so a change of bit 0 of a per-VC counter is one drop, and the totals are
//! `min(0xffff, sum over VCs)` exactly. `err_vc` is the VC of the most recent drop (found the
//! same way, so it stops following a VC for a reason whose per-VC counter saturated) and the
//! error buffer outputs are that VC's. `dropped_any` is the OR over VCs.
//!
//! **Link restart.** When the far end was reset and the link trains again, the transmitter
//! of this endpoint owes the far end its free slots (`free[v]`, read while `quiet`, when no
//! committed flit is still on its way into a packet buffer), and `restart` sets the current VC
//! to 0, the far end's assumption after its reset. A packet left open by the far end's reset
//! is dropped by the packet buffer's own rules (its next head: missing tail; or its length).
//!
//! Handshake: each `sources[v]` obeys the stream hold rule, one flit per cycle sustained; the
//! flits of an LTP committed in cycle `c` enter their packet buffers from the clock edge that
//! ends cycle `c + 2`, one per cycle (staging latency 1, demultiplexer register 1). Synchronous
//! `reset` empties everything and clears every counter.
//!
//! Parameters: `S` staging slots (power of two >= 4; 32 holds one LTP in progress while the
//! previous one drains), `SAW`/`SCW` its widths; `D` slots per VC buffer, `AW`/`CW` its widths
//! (`freed` is [`CREDIT_BITS`] bits); elaboration values `vcs` (V, 1..=8: a runtime value so that a
//! configuration does not instantiate the block once per VC count) and `max_len` (longest
//! packet, see [`PacketBuffer::new`]). Use [`rx_delivery!`](crate::rx_delivery).
use crate::flit_decoder::FlitDecoder;
use crate::formats::ControlCode;
use crate::formats::FLIT_BITS;
use crate::llp::commit_fifo::CommitFifo;
use crate::llp::packet_buffer::PacketBuffer;
use crate::llp::CREDIT_BITS;
use crate::stream::StreamSource;
use rust_hdl::prelude::*;

/// The type of an [`RxDelivery`] with `$s` staging slots and `$d` slots per VC, widths filled
/// in: `rx_delivery!(32, 64)`.
#[macro_export]
macro_rules! rx_delivery {
    ($s:expr, $d:expr) => {
        $crate::llp::rx_delivery::RxDelivery<
            { $s },
            { $crate::fifo::fifo_ptr_bits($s) },
            { $crate::fifo::fifo_count_bits($s) },
            { $d },
            { $crate::fifo::fifo_ptr_bits($d) },
            { $crate::fifo::fifo_count_bits($d) },
        >
    };
}

/// Staging buffer, VC demultiplexer and `vcs` packet buffers of a link receiver.
#[derive(LogicBlock)]
pub struct RxDelivery<
    const S: usize,
    const SAW: usize,
    const SCW: usize,
    const D: usize,
    const AW: usize,
    const CW: usize,
> {
    /// Clock of every register and RAM.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: empties every buffer, clears every counter, current VC 0.
    pub reset: Signal<In, bool>,
    /// Write `wr_data` (a data flit of the LTP in progress) into the staging buffer.
    pub wr_valid: Signal<In, bool>,
    /// The flit to write.
    pub wr_data: Signal<In, Bits<FLIT_BITS>>,
    /// The LTP passed: deliver every flit written in earlier cycles.
    pub commit: Signal<In, bool>,
    /// The LTP failed or is a duplicate: discard every flit written since the last commit.
    pub rollback: Signal<In, bool>,
    /// Flits of good packets, per VC.
    pub sources: Vec<StreamSource<Bits<FLIT_BITS>>>,
    /// Credits freed per VC by the previous clock edge.
    pub freed: Vec<Signal<Out, Bits<CREDIT_BITS>>>,
    /// Dropped packets that had no head, all VCs (saturating).
    pub missing_head: Signal<Out, Bits<16>>,
    /// Dropped packets that had no tail, all VCs (saturating).
    pub missing_tail: Signal<Out, Bits<16>>,
    /// Dropped packets of the wrong length, all VCs (saturating).
    pub too_long: Signal<Out, Bits<16>>,
    /// Dropped packets with a bad marker, a malformed flit or `len < 2`, all VCs (saturating).
    pub bad: Signal<Out, Bits<16>>,
    /// Flits that found their VC buffer full, all VCs (saturating).
    pub overrun: Signal<Out, Bits<16>>,
    /// VC of the most recent drop.
    pub err_vc: Signal<Out, Bits<3>>,
    /// First flit of the most recently dropped packet (on VC `err_vc`).
    pub err_flit0: Signal<Out, Bits<FLIT_BITS>>,
    /// Second flit of the most recently dropped packet.
    pub err_flit1: Signal<Out, Bits<FLIT_BITS>>,
    /// Why it was dropped (`packet_buffer::REASON_*`).
    pub err_reason: Signal<Out, Bits<3>>,
    /// Some packet or flit was dropped on some VC since reset.
    pub dropped_any: Signal<Out, bool>,
    /// Heads and VlMrkrs naming a VC `>= vcs` (saturating).
    pub bad_vc: Signal<Out, Bits<16>>,
    /// Sticky: the staging buffer overflowed (the parser broke its space guarantee).
    pub overflow: Signal<Out, bool>,
    /// The far end restarted (it was reset, the link trained again): the current VC goes back
    /// to 0, which is what the far end's transmitter assumes after its reset.
    pub restart: Signal<In, bool>,
    /// Per VC: slots holding no flit, read when the far end restarts (its credits start from
    /// them). Exact only while `quiet`.
    pub free: Vec<Signal<Out, Bits<CREDIT_BITS>>>,
    /// No committed flit is on its way to a packet buffer (staging drained, demultiplexer and
    /// packet buffer input registers empty), so `free` counts every flit received.
    pub quiet: Signal<Out, bool>,
    staging: CommitFifo<S, SAW, SCW>,
    dec: FlitDecoder,
    /// The decoder outputs this block does not read, acknowledged here (Verilator's lint
    /// passes names containing "unused"; nothing reads this, so synthesis removes it).
    unused_decoded: Signal<Local, bool>,
    bufs: Vec<PacketBuffer<D, AW, CW>>,
    /// The buffers' `sink.ready`, always high (flow control is by credits: a flit that finds
    /// its buffer full is counted as an overrun), acknowledged here and not read.
    unused_ready: Vec<Signal<Local, bool>>,
    /// Current VC (may be >= vcs: then flits are dropped).
    cur: DFF<Bits<3>>,
    /// The demultiplexed flit and its per-VC valid.
    od: DFF<Bits<FLIT_BITS>>,
    ov: Vec<DFF<bool>>,
    c_bad_vc: DFF<Bits<16>>,
    /// Bit 0 of each per-VC counter one cycle ago.
    p_mh: Vec<DFF<bool>>,
    p_mt: Vec<DFF<bool>>,
    p_tl: Vec<DFF<bool>>,
    p_bad: Vec<DFF<bool>>,
    p_ovr: Vec<DFF<bool>>,
    t_mh: DFF<Bits<16>>,
    t_mt: DFF<Bits<16>>,
    t_tl: DFF<Bits<16>>,
    t_bad: DFF<Bits<16>>,
    t_ovr: DFF<Bits<16>>,
    evc: DFF<Bits<3>>,
    mark: Signal<Local, bool>,
    nvc: Signal<Local, Bits<3>>,
    nvc_ok: Signal<Local, bool>,
    fwd: Signal<Local, bool>,
    inc_mh: Signal<Local, bool>,
    inc_mt: Signal<Local, bool>,
    inc_tl: Signal<Local, bool>,
    inc_bad: Signal<Local, bool>,
    inc_ovr: Signal<Local, bool>,
    vc_ids: Vec<Constant<Bits<3>>>,
    nv: Constant<Bits<4>>,
    one16: Constant<Bits<16>>,
    code_vlmrkr: Constant<Bits<6>>,
}

impl<
        const S: usize,
        const SAW: usize,
        const SCW: usize,
        const D: usize,
        const AW: usize,
        const CW: usize,
    > RxDelivery<S, SAW, SCW, D, AW, CW>
{
    /// `vcs` VCs of `D` slots each accepting packets of up to `max_len` flits, behind a
    /// staging buffer of `S` slots. Panics unless `1 <= vcs <= 8`, and on the parameter rules
    /// of [`CommitFifo::new`] and [`PacketBuffer::new`].
    pub fn new(vcs: usize, max_len: usize) -> Self {
        assert!(
            (1..=8).contains(&vcs),
            "RxDelivery: vcs is {vcs}; it must be in 1..=8 (the VC field has 3 bits)"
        );
        let dffs = || (0..vcs).map(|_| DFF::default()).collect::<Vec<DFF<bool>>>();
        Self {
            clock: Default::default(),
            reset: Default::default(),
            wr_valid: Default::default(),
            wr_data: Default::default(),
            commit: Default::default(),
            rollback: Default::default(),
            sources: (0..vcs).map(|_| Default::default()).collect(),
            freed: (0..vcs).map(|_| Default::default()).collect(),
            missing_head: Default::default(),
            missing_tail: Default::default(),
            too_long: Default::default(),
            bad: Default::default(),
            overrun: Default::default(),
            err_vc: Default::default(),
            err_flit0: Default::default(),
            err_flit1: Default::default(),
            err_reason: Default::default(),
            dropped_any: Default::default(),
            bad_vc: Default::default(),
            overflow: Default::default(),
            restart: Default::default(),
            free: (0..vcs).map(|_| Default::default()).collect(),
            quiet: Default::default(),
            staging: CommitFifo::new(),
            dec: Default::default(),
            unused_decoded: Default::default(),
            bufs: (0..vcs).map(|_| PacketBuffer::new(max_len)).collect(),
            unused_ready: (0..vcs).map(|_| Default::default()).collect(),
            cur: Default::default(),
            od: Default::default(),
            ov: dffs(),
            c_bad_vc: Default::default(),
            p_mh: dffs(),
            p_mt: dffs(),
            p_tl: dffs(),
            p_bad: dffs(),
            p_ovr: dffs(),
            t_mh: Default::default(),
            t_mt: Default::default(),
            t_tl: Default::default(),
            t_bad: Default::default(),
            t_ovr: Default::default(),
            evc: Default::default(),
            mark: Default::default(),
            nvc: Default::default(),
            nvc_ok: Default::default(),
            fwd: Default::default(),
            inc_mh: Default::default(),
            inc_mt: Default::default(),
            inc_tl: Default::default(),
            inc_bad: Default::default(),
            inc_ovr: Default::default(),
            vc_ids: (0..vcs).map(|i| Constant::new(i.to_bits())).collect(),
            nv: Constant::new(vcs.to_bits()),
            one16: Constant::new(1usize.to_bits()),
            code_vlmrkr: Constant::new((ControlCode::VlMrkr.code() as usize).to_bits()),
        }
    }
}

impl<
        const S: usize,
        const SAW: usize,
        const SCW: usize,
        const D: usize,
        const AW: usize,
        const CW: usize,
    > Logic for RxDelivery<S, SAW, SCW, D, AW, CW>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cur, od, c_bad_vc, t_mh, t_mt, t_tl, t_bad, t_ovr, evc);
        self.unused_decoded.next = self.dec.is_body.val()
            | self.dec.is_tail.val()
            | self.dec.is_idle.val()
            | self.dec.is_credit.val()
            | self.dec.is_bad_marker.val()
            | self.dec.is_link_transfer.val()
            | self.dec.malformed.val()
            | self.dec.dst.val().any()
            | self.dec.src.val().any()
            | self.dec.kind.val().any()
            | self.dec.len.val().any()
            | self.dec.delay.val().any()
            | self.dec.credits.val().any();
        self.staging.clock.next = self.clock.val();
        self.staging.reset.next = self.reset.val();
        self.staging.wr_valid.next = self.wr_valid.val();
        self.staging.wr_data.next = self.wr_data.val();
        self.staging.commit.next = self.commit.val();
        self.staging.rollback.next = self.rollback.val();
        self.overflow.next = self.staging.overflow.val();
        self.bad_vc.next = self.c_bad_vc.q.val();
        self.missing_head.next = self.t_mh.q.val();
        self.missing_tail.next = self.t_mt.q.val();
        self.too_long.next = self.t_tl.q.val();
        self.bad.next = self.t_bad.q.val();
        self.overrun.next = self.t_ovr.q.val();
        self.err_vc.next = self.evc.q.val();

        // Demultiplexer: the staging buffer is always read; its output is the RAM's register.
        self.staging.source.ready.next = true;
        self.dec.flit.next = self.staging.source.data.val();
        self.mark.next =
            self.dec.is_control.val() & (self.dec.code.val() == self.code_vlmrkr.val());
        self.nvc.next = self.cur.q.val();
        if self.dec.is_head.val() {
            self.nvc.next = self.dec.vc.val();
        }
        if self.mark.val() {
            self.nvc.next = self.dec.ctrl_vc.val();
        }
        self.nvc_ok.next = bit_cast::<4, 3>(self.nvc.val()) < self.nv.val();
        self.fwd.next = self.staging.source.valid.val() & !self.mark.val() & self.nvc_ok.val();
        if self.staging.source.valid.val() {
            self.cur.d.next = self.nvc.val();
            if (self.dec.is_head.val() | self.mark.val())
                & !self.nvc_ok.val()
                & !self.c_bad_vc.q.val().all()
            {
                self.c_bad_vc.d.next = self.c_bad_vc.q.val() + self.one16.val();
            }
        }
        self.od.d.next = self.staging.source.data.val();

        // Per VC: the registered flit in, the stream and credits out; drops seen as a change
        // of bit 0 of a per-VC counter.
        self.inc_mh.next = false;
        self.inc_mt.next = false;
        self.inc_tl.next = false;
        self.inc_bad.next = false;
        self.inc_ovr.next = false;
        self.dropped_any.next = false;
        self.err_flit0.next = 0.into();
        self.err_flit1.next = 0.into();
        self.err_reason.next = 0.into();
        self.quiet.next = self.staging.drained.val();
        for i in 0..self.bufs.len() {
            self.bufs[i].clock.next = self.clock.val();
            self.bufs[i].reset.next = self.reset.val();
            self.ov[i].clock.next = self.clock.val();
            self.ov[i].d.next = self.fwd.val() & (self.nvc.val() == self.vc_ids[i].val());
            self.bufs[i].sink.valid.next = self.ov[i].q.val();
            self.bufs[i].sink.data.next = self.od.q.val();
            self.unused_ready[i].next = self.bufs[i].sink.ready.val();
            self.sources[i].valid.next = self.bufs[i].source.valid.val();
            self.sources[i].data.next = self.bufs[i].source.data.val();
            self.bufs[i].source.ready.next = self.sources[i].ready.val();
            self.freed[i].next = self.bufs[i].freed.val();
            self.free[i].next = self.bufs[i].free.val();
            if self.ov[i].q.val() | !self.bufs[i].idle.val() {
                self.quiet.next = false;
            }
            if self.bufs[i].dropped_any.val() {
                self.dropped_any.next = true;
            }
            if self.evc.q.val() == self.vc_ids[i].val() {
                self.err_flit0.next = self.bufs[i].err_flit0.val();
                self.err_flit1.next = self.bufs[i].err_flit1.val();
                self.err_reason.next = self.bufs[i].err_reason.val();
            }
            self.p_mh[i].clock.next = self.clock.val();
            self.p_mt[i].clock.next = self.clock.val();
            self.p_tl[i].clock.next = self.clock.val();
            self.p_bad[i].clock.next = self.clock.val();
            self.p_ovr[i].clock.next = self.clock.val();
            self.p_mh[i].d.next = self.bufs[i].missing_head.val().get_bit(0);
            self.p_mt[i].d.next = self.bufs[i].missing_tail.val().get_bit(0);
            self.p_tl[i].d.next = self.bufs[i].too_long.val().get_bit(0);
            self.p_bad[i].d.next = self.bufs[i].bad.val().get_bit(0);
            self.p_ovr[i].d.next = self.bufs[i].overrun.val().get_bit(0);
            if self.bufs[i].missing_head.val().get_bit(0) != self.p_mh[i].q.val() {
                self.inc_mh.next = true;
                self.evc.d.next = self.vc_ids[i].val();
            }
            if self.bufs[i].missing_tail.val().get_bit(0) != self.p_mt[i].q.val() {
                self.inc_mt.next = true;
                self.evc.d.next = self.vc_ids[i].val();
            }
            if self.bufs[i].too_long.val().get_bit(0) != self.p_tl[i].q.val() {
                self.inc_tl.next = true;
                self.evc.d.next = self.vc_ids[i].val();
            }
            if self.bufs[i].bad.val().get_bit(0) != self.p_bad[i].q.val() {
                self.inc_bad.next = true;
                self.evc.d.next = self.vc_ids[i].val();
            }
            if self.bufs[i].overrun.val().get_bit(0) != self.p_ovr[i].q.val() {
                self.inc_ovr.next = true;
                self.evc.d.next = self.vc_ids[i].val();
            }
            if self.reset.val() {
                self.ov[i].d.next = false;
                self.p_mh[i].d.next = false;
                self.p_mt[i].d.next = false;
                self.p_tl[i].d.next = false;
                self.p_bad[i].d.next = false;
                self.p_ovr[i].d.next = false;
            }
        }
        if self.inc_mh.val() & !self.t_mh.q.val().all() {
            self.t_mh.d.next = self.t_mh.q.val() + self.one16.val();
        }
        if self.inc_mt.val() & !self.t_mt.q.val().all() {
            self.t_mt.d.next = self.t_mt.q.val() + self.one16.val();
        }
        if self.inc_tl.val() & !self.t_tl.q.val().all() {
            self.t_tl.d.next = self.t_tl.q.val() + self.one16.val();
        }
        if self.inc_bad.val() & !self.t_bad.q.val().all() {
            self.t_bad.d.next = self.t_bad.q.val() + self.one16.val();
        }
        if self.inc_ovr.val() & !self.t_ovr.q.val().all() {
            self.t_ovr.d.next = self.t_ovr.q.val() + self.one16.val();
        }

        if self.restart.val() {
            self.cur.d.next = 0.into();
        }
        if self.reset.val() {
            self.cur.d.next = 0.into();
            self.c_bad_vc.d.next = 0.into();
            self.t_mh.d.next = 0.into();
            self.t_mt.d.next = 0.into();
            self.t_tl.d.next = 0.into();
            self.t_bad.d.next = 0.into();
            self.t_ovr.d.next = 0.into();
            self.evc.d.next = 0.into();
        }
    }
}

#[test]
fn rx_delivery_is_synthesizable() {
    let mut uut = <crate::rx_delivery!(32, 64)>::new(2, 32);
    uut.connect_all();
    yosys_validate("rx_delivery", &generate_verilog(&uut)).unwrap();
    let mut uut = <crate::rx_delivery!(4, 4)>::new(1, 4);
    uut.connect_all();
    yosys_validate("rx_delivery_1", &generate_verilog(&uut)).unwrap();
}

#[test]
#[should_panic(expected = "vcs")]
fn rx_delivery_rejects_nine_vcs() {
    let _ = <crate::rx_delivery!(32, 16)>::new(9, 8);
}
