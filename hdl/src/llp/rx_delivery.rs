//! Receive delivery: the LTP staging buffer, the VC demultiplexer and the per-VC packet
//! buffers of a link receiver (receiver items 2, 6 and 7 in `docs/llp-design.md`).
//!
//! The LTP parser writes the data flits of the LTP in progress (everything but Idle, CrdtRet
//! and LinkTransfer flits, which it consumes) into a [`CommitStore`], and says `commit` when the
//! LTP passed its CRC (and is not a duplicate), `rollback` otherwise (the store's timing rules:
//! a write in the commit/rollback cycle belongs to the next LTP). So only flits of good LTPs
//! leave the staging buffer.
//!
//! **Demultiplexer.** Committed flits leave the staging buffer one per cycle (it is always
//! read: a [`PacketBuffer`]'s sink is always ready, credits guarantee room) and go, through
//! one register stage, to the packet buffer of the *current VC*:
//! - a head flit (type bit 0, head bit 1, well-formed or not) sets the current VC from its
//!   header's VC field (the transmitter makes it the link VC) and is forwarded;
//! - a VlMrkr sets it from its `CTRL_VC` field and is consumed (it used no credit);
//! - every other flit keeps it and is forwarded;
//! - a head or VlMrkr naming a VC `>= V` is a drop for `REASON_BAD_VC`, and every flit up
//!   to the next head or VlMrkr naming a valid VC is dropped (no credit returns for them: the
//!   sender had no credit counter for that VC). Reset: VC 0.
//!
//! **Status.** `freed[v]` is packet buffer `v`'s `freed` (credits to return). `drops` is the
//! drop event vector of the whole receiver (bit `r - 1` for reason `r`, one cycle per drop,
//! [`packet_buffer::drop_bit`](crate::llp::packet_buffer::drop_bit)): the OR of the packet
//! buffers' and the demultiplexer's bad-VC event. The OR loses nothing: the demultiplexer
//! takes one flit per cycle, and the bad-VC event is delayed by the three registers a
//! forwarded flit passes before its drop shows (demultiplexer, packet buffer input, drop
//! register), so the drops of any one cycle are one flit's, in flit order: none, one, or a
//! head's two (the missing tail of the packet it ends and its own reason, two different
//! bits). `drop_vc` is the VC of the cycle's drops (the VC named, for a bad VC). The error
//! record (`err_reason`, `err_vc`, cleared by reset) is the reason and VC of the most recent
//! drop; of a head's two, its own (the higher reason code). Nothing is counted here: the
//! register file counts the events.
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
//! `reset` empties everything and clears the error record.
//!
//! Parameters: `S` staging slots (power of two >= 4; 32 holds one LTP in progress while the
//! previous one drains), `SAW`/`SCW` its widths; `D` slots per VC buffer, `AW`/`CW` its widths
//! (`freed` is [`CREDIT_BITS`] bits); elaboration values `vcs` (V, 1..=8: a runtime value so that a
//! configuration does not instantiate the block once per VC count) and `max_len` (longest
//! packet, see [`PacketBuffer::new`]). Use [`rx_delivery!`](crate::rx_delivery).
use crate::flit_decoder::FlitDecoder;
use crate::formats::ControlCode;
use crate::formats::FLIT_BITS;
use crate::llp::commit_store::CommitStore;
use crate::llp::packet_buffer::{drop_bit, PacketBuffer, DROP_BITS, REASON_BAD_VC};
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
    /// Synchronous reset: empties every buffer, clears the error record, current VC 0.
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
    /// Drop events of every VC: bit `r - 1` pulses for one cycle per drop for reason `r`.
    pub drops: Signal<Out, Bits<DROP_BITS>>,
    /// The VC of this cycle's `drops`.
    pub drop_vc: Signal<Out, Bits<3>>,
    /// Why the most recent packet or flit was dropped (`packet_buffer::REASON_*`; 0: none
    /// since reset).
    pub err_reason: Signal<Out, Bits<3>>,
    /// The VC of the most recent drop.
    pub err_vc: Signal<Out, Bits<3>>,
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
    staging: CommitStore<S, SAW, SCW>,
    /// The staging store's outputs not used here: its room (the parser guarantees it by
    /// construction and `overflow` reports a breach), and its counts.
    unused_staging: Signal<Local, bool>,
    dec: FlitDecoder,
    /// The decoder outputs this block does not read, acknowledged here (Verilator's lint
    /// passes names containing "unused"; nothing reads this, so synthesis removes it).
    unused_decoded: Signal<Local, bool>,
    bufs: Vec<PacketBuffer<D, AW, CW>>,
    /// The buffers' `sink.ready`, always high (flow control is by credits: a flit that finds
    /// its buffer full is an overrun), acknowledged here and not read.
    unused_ready: Vec<Signal<Local, bool>>,
    /// Current VC (may be >= vcs: then flits are dropped).
    cur: DFF<Bits<3>>,
    /// The demultiplexed flit and its per-VC valid.
    od: DFF<Bits<FLIT_BITS>>,
    ov: Vec<DFF<bool>>,
    /// A head or VlMrkr named a VC out of range, and that VC, delayed as a forwarded flit is
    /// on its way to a drop event (demultiplexer register, packet buffer input register, drop
    /// register), so that drop events leave in the order of their flits.
    bad_vc_demuxed: DFF<bool>,
    bad_vc_demuxed_vc: DFF<Bits<3>>,
    bad_vc_taken: DFF<bool>,
    bad_vc_taken_vc: DFF<Bits<3>>,
    bad_vc_judged: DFF<bool>,
    bad_vc_judged_vc: DFF<Bits<3>>,
    /// The error record.
    last_reason: DFF<Bits<3>>,
    last_vc: DFF<Bits<3>>,
    mark: Signal<Local, bool>,
    nvc: Signal<Local, Bits<3>>,
    nvc_ok: Signal<Local, bool>,
    fwd: Signal<Local, bool>,
    /// This cycle's drops and their VC, as they are merged.
    merged: Signal<Local, Bits<DROP_BITS>>,
    merged_vc: Signal<Local, Bits<3>>,
    /// The highest reason among `merged`.
    top_reason: Signal<Local, Bits<3>>,
    bad_vc_bit: Constant<Bits<DROP_BITS>>,
    reason_codes: Vec<Constant<Bits<3>>>,
    vc_ids: Vec<Constant<Bits<3>>>,
    nv: Constant<Bits<4>>,
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
    /// of [`CommitStore::new`] and [`PacketBuffer::new`].
    pub fn new(vcs: usize, max_len: usize) -> Self {
        assert!(
            (1..=8).contains(&vcs),
            "RxDelivery: vcs is {vcs}; it must be in 1..=8 (the VC field has 3 bits)"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            wr_valid: Default::default(),
            wr_data: Default::default(),
            commit: Default::default(),
            rollback: Default::default(),
            sources: (0..vcs).map(|_| Default::default()).collect(),
            freed: (0..vcs).map(|_| Default::default()).collect(),
            drops: Default::default(),
            drop_vc: Default::default(),
            err_reason: Default::default(),
            err_vc: Default::default(),
            overflow: Default::default(),
            restart: Default::default(),
            free: (0..vcs).map(|_| Default::default()).collect(),
            quiet: Default::default(),
            staging: CommitStore::new(),
            unused_staging: Default::default(),
            dec: Default::default(),
            unused_decoded: Default::default(),
            bufs: (0..vcs).map(|_| PacketBuffer::new(max_len)).collect(),
            unused_ready: (0..vcs).map(|_| Default::default()).collect(),
            cur: Default::default(),
            od: Default::default(),
            ov: (0..vcs).map(|_| DFF::default()).collect(),
            bad_vc_demuxed: Default::default(),
            bad_vc_demuxed_vc: Default::default(),
            bad_vc_taken: Default::default(),
            bad_vc_taken_vc: Default::default(),
            bad_vc_judged: Default::default(),
            bad_vc_judged_vc: Default::default(),
            last_reason: Default::default(),
            last_vc: Default::default(),
            mark: Default::default(),
            nvc: Default::default(),
            nvc_ok: Default::default(),
            fwd: Default::default(),
            merged: Default::default(),
            merged_vc: Default::default(),
            top_reason: Default::default(),
            bad_vc_bit: Constant::new((1u64 << drop_bit(REASON_BAD_VC)).to_bits()),
            reason_codes: (1..=DROP_BITS)
                .map(|r| Constant::new(r.to_bits()))
                .collect(),
            vc_ids: (0..vcs).map(|i| Constant::new(i.to_bits())).collect(),
            nv: Constant::new(vcs.to_bits()),
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
        dff_setup!(
            self,
            clock,
            cur,
            od,
            bad_vc_demuxed,
            bad_vc_demuxed_vc,
            bad_vc_taken,
            bad_vc_taken_vc,
            bad_vc_judged,
            bad_vc_judged_vc,
            last_reason,
            last_vc
        );
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
        self.staging.write.valid.next = self.wr_valid.val();
        self.staging.write.data.next = self.wr_data.val();
        self.staging.write.commit.next = self.commit.val();
        self.staging.write.commit_with_write.next = false;
        self.staging.write.rollback.next = self.rollback.val();
        self.unused_staging.next = self.staging.write.full.val()
            | self.staging.write.full_after_rollback.val()
            | self.staging.free.val().any()
            | self.staging.uncommitted.val().any();
        self.overflow.next = self.staging.overflow.val();

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
        }
        self.bad_vc_demuxed.d.next = self.staging.source.valid.val()
            & (self.dec.is_head.val() | self.mark.val())
            & !self.nvc_ok.val();
        self.bad_vc_demuxed_vc.d.next = self.nvc.val();
        self.bad_vc_taken.d.next = self.bad_vc_demuxed.q.val();
        self.bad_vc_taken_vc.d.next = self.bad_vc_demuxed_vc.q.val();
        self.bad_vc_judged.d.next = self.bad_vc_taken.q.val();
        self.bad_vc_judged_vc.d.next = self.bad_vc_taken_vc.q.val();
        self.od.d.next = self.staging.source.data.val();

        // Per VC: the registered flit in, the stream, credits and drop events out. The drops
        // of a cycle are one flit's (one flit per cycle is demultiplexed), so their VC is an
        // OR.
        self.quiet.next = self.staging.drained.val();
        self.merged.next = 0.into();
        self.merged_vc.next = 0.into();
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
            self.merged.next = self.merged.val() | self.bufs[i].drops.val();
            if self.bufs[i].drops.val().any() {
                self.merged_vc.next = self.merged_vc.val() | self.vc_ids[i].val();
            }
            if self.reset.val() {
                self.ov[i].d.next = false;
            }
        }
        if self.bad_vc_judged.q.val() {
            self.merged.next = self.merged.val() | self.bad_vc_bit.val();
            self.merged_vc.next = self.bad_vc_judged_vc.q.val();
        }
        self.drops.next = self.merged.val();
        self.drop_vc.next = self.merged_vc.val();

        // The error record: the highest reason of the cycle's drops (the later flit's).
        self.top_reason.next = 0.into();
        for r in 0..DROP_BITS {
            if self.merged.val().get_bit(r) {
                self.top_reason.next = self.reason_codes[r].val();
            }
        }
        if self.merged.val().any() {
            self.last_reason.d.next = self.top_reason.val();
            self.last_vc.d.next = self.merged_vc.val();
        }
        self.err_reason.next = self.last_reason.q.val();
        self.err_vc.next = self.last_vc.q.val();

        if self.restart.val() {
            self.cur.d.next = 0.into();
        }
        if self.reset.val() {
            self.cur.d.next = 0.into();
            self.bad_vc_demuxed.d.next = false;
            self.bad_vc_taken.d.next = false;
            self.bad_vc_judged.d.next = false;
            self.last_reason.d.next = 0.into();
            self.last_vc.d.next = 0.into();
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
