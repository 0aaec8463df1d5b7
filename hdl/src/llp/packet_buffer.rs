//! Packet buffer: one virtual channel's receive buffer with commit/rollback (dirty-packet
//! discard, item 6 of the receiver in `docs/llp-design.md`), so only whole good packets leave.
//!
//! Flits are written at a write pointer `wptr`; the reader sees slots up to a commit pointer
//! `cptr`. A good tail moves `cptr` to just past itself (the packet is committed); a dirty
//! packet is rolled back (`wptr` back to `cptr`) and never shown. Storage is rust-hdl's `RAM`
//! (block RAM on iCE40; Yosys maps small depths to LUTs/flip-flops by itself), read as in
//! [`BramFifo`](crate::fifo::BramFifo): the RAM's read register is the output stage, a flag
//! register says it holds a committed slot, latency from commit to `source.valid` is 2 cycles.
//!
//! **Flit classes** (from [`FlitDecoder`], checked in this order):
//! - *malformed* (`FlitDecoder::malformed`) and *markers* (HeadBadPkt/BodyBadPkt/TailBadPkt):
//!   when already discarding (see below) the flit is dropped silently (TailBadPkt ends the
//!   discard); otherwise it counts one `bad`, rolls back the open packet if any, and starts a
//!   discard, except TailBadPkt, after which the buffer is idle.
//! - *other control flits* (Idle, CrdtRet, VlMrkr, LinkTransfer) should never reach a VC
//!   buffer; they are ignored: not stored, no state change, no credit returned.
//! - *head*: if a packet is open, it is rolled back and counts `missing_tail`; a discard ends.
//!   The head then starts a packet, unless the buffer is full (after that rollback): `overrun`,
//!   discard; or its `len` field is below 2: `bad` (a packet has a head and a tail), discard.
//! - *body/tail* while discarding: dropped silently (a tail ends the discard). With no packet
//!   open: `missing_head` (a body starts a discard, so a headless fragment counts once).
//!   In an open packet, checked in this order: buffer full: `overrun`; the packet would exceed
//!   `min(len, max_len)` flits: `too_long`; a tail ending it before `len` flits: also
//!   `too_long` (reason code [`REASON_TOO_SHORT`]). Each rolls the packet back; after a body
//!   the rest is discarded up to its tail. Otherwise the flit is stored; a tail commits.
//!
//! "Discarding" thus ends at a tail, a TailBadPkt, or a head (which starts the next packet):
//! one dirty packet counts once, and a lost tail costs only the packet it belonged to.
//!
//! **Error buffer**: on every drop, `err_flit0`/`err_flit1` take the first two flits received
//! of the dropped packet (the flit causing the drop included when it belongs to it, i.e. not a
//! new head), zero where there is none; `err_reason` takes the reason code (`REASON_*`), and
//! `dropped_any` is set. When a head both ends an open packet and is itself dropped, the record
//! is the head's. All of them, and the 16-bit saturating counters, clear only on `reset`.
//!
//! **Credits**: the sender spends one credit per flit of this VC (markers and malformed flits
//! included) and starts with `D`. `freed` (registered) is the number of slots freed by the
//! previous clock edge: 1 per flit read out, the stored flits of a rolled-back packet, and 1
//! for a flit dropped without being stored, all added up. A head, body or tail that is to be
//! stored and finds the buffer full means the sender broke the credit rule: the flit is
//! dropped, counted in `overrun`, makes its packet dirty (rolled back, the rest discarded), and
//! returns no credit (the sender never had one); the discarded rest returns credits as usual.
//! So once all is drained, `sum(freed) == flits accepted - overrun - ignored control flits`.
//!
//! **Input register** (timing): a flit accepted on `sink` is registered with its decode and
//! handled in the next cycle, so the classification, length checks and RAM write enable start
//! at flip-flops (the length checks of the open packet's next flit are registered too). Every
//! effect of a flit therefore shows one cycle later than it would without the register: the
//! counters and the error buffer change on the edge after the one that accepted it, its credit
//! (if dropped unstored) is in `freed` two cycles after its acceptance, and a tail accepted in
//! cycle `t` can show its packet's first flit on `source` in cycle `t + 3` at the earliest.
//!
//! Handshake: `sink.ready` is always high (flow control is by credits). `source` obeys the
//! stream hold rule; one flit per cycle sustained. Synchronous `reset` empties the buffer and
//! clears counters and the error buffer; `freed` is 0 after it (credits not yet returned are
//! for the sender to restore: a link resets both ends), and the flits accepted in the reset
//! cycle and in the cycle before it (still in the input register) are dropped.
//!
//! Parameters: `D` slots (power of two >= 4), `AW` = `fifo_ptr_bits(D)`, `CW` =
//! `fifo_count_bits(D)` (pointer width; `freed` is [`CREDIT_BITS`] wide); elaboration value `max_len` (2..=min(D,
//! 255)), the longest packet accepted, in flits. Use [`packet_buffer!`](crate::packet_buffer).
use crate::fifo::{check_count_width, check_ptr_width};
use crate::flit_decoder::FlitDecoder;
use crate::formats::ControlCode;
use crate::formats::FLIT_BITS;
use crate::llp::CREDIT_BITS;
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// `err_reason` before any drop.
pub const REASON_NONE: u8 = 0;
/// A body or tail with no packet open.
pub const REASON_MISSING_HEAD: u8 = 1;
/// A head while a packet was open (the open packet is dropped).
pub const REASON_MISSING_TAIL: u8 = 2;
/// Longer than `max_len` or than the head's `len` (counted in `too_long`).
pub const REASON_TOO_LONG: u8 = 3;
/// A tail before the head's `len` flits (counted in `too_long`).
pub const REASON_TOO_SHORT: u8 = 4;
/// A bad-packet marker, a malformed flit, or a head with `len < 2` (counted in `bad`).
pub const REASON_BAD: u8 = 5;
/// A flit arrived with the buffer full (counted in `overrun`).
pub const REASON_OVERRUN: u8 = 6;

/// The type of a [`PacketBuffer`] of `$depth` slots with widths filled in: `packet_buffer!(64)`.
#[macro_export]
macro_rules! packet_buffer {
    ($depth:expr) => {
        $crate::llp::packet_buffer::PacketBuffer<
            { $depth },
            { $crate::fifo::fifo_ptr_bits($depth) },
            { $crate::fifo::fifo_count_bits($depth) },
        >
    };
}

/// One VC's receive buffer of `D` flits with commit/rollback.
#[derive(LogicBlock)]
pub struct PacketBuffer<const D: usize, const AW: usize, const CW: usize> {
    /// Clock of every register and of the RAM.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: empties the buffer, clears counters and the error buffer.
    pub reset: Signal<In, bool>,
    /// Flits of this VC in order; `ready` is always high.
    pub sink: StreamSink<Bits<FLIT_BITS>>,
    /// Flits of committed packets, in order.
    pub source: StreamSource<Bits<FLIT_BITS>>,
    /// Slots freed by the previous clock edge (credits to return).
    pub freed: Signal<Out, Bits<CREDIT_BITS>>,
    /// Dropped packets that had no head (saturating).
    pub missing_head: Signal<Out, Bits<16>>,
    /// Dropped packets that had no tail (saturating).
    pub missing_tail: Signal<Out, Bits<16>>,
    /// Dropped packets longer than `max_len`, or whose length disagreed with `len` (saturating).
    pub too_long: Signal<Out, Bits<16>>,
    /// Dropped packets with a bad marker, a malformed flit or a `len` below 2 (saturating).
    pub bad: Signal<Out, Bits<16>>,
    /// Flits that arrived with the buffer full (saturating).
    pub overrun: Signal<Out, Bits<16>>,
    /// First flit of the most recently dropped packet.
    pub err_flit0: Signal<Out, Bits<FLIT_BITS>>,
    /// Second flit of the most recently dropped packet (0 if it had one flit).
    pub err_flit1: Signal<Out, Bits<FLIT_BITS>>,
    /// Why the most recent packet was dropped (`REASON_*`).
    pub err_reason: Signal<Out, Bits<3>>,
    /// Some flit or packet was dropped since reset.
    pub dropped_any: Signal<Out, bool>,
    /// Slots not holding a flit (`D` minus stored flits, committed or not): what a far end
    /// that restarted may be given as credits, once `idle`.
    pub free: Signal<Out, Bits<CREDIT_BITS>>,
    /// The input register is empty: no flit accepted on `sink` is still to be handled.
    pub idle: Signal<Out, bool>,
    dec: FlitDecoder,
    /// The decoder outputs this block does not read, acknowledged here (Verilator's lint
    /// passes names containing "unused"; nothing reads this, so synthesis removes it).
    unused_decoded: Signal<Local, bool>,
    // The input register: the flit accepted on the last edge and its decode.
    in_valid: DFF<bool>,
    in_data: DFF<Bits<FLIT_BITS>>,
    in_head: DFF<bool>,
    in_body: DFF<bool>,
    in_tail: DFF<bool>,
    in_bad: DFF<bool>,
    in_tail_marker: DFF<bool>,
    in_len: DFF<Bits<8>>,
    in_short: DFF<bool>,
    in_len_m1: DFF<Bits<8>>,
    in_gt2: DFF<bool>,
    // Length checks of the open packet's next flit, registered (timing): it would exceed
    // `min(len, max_len)`; as a tail it would end the packet before `len`.
    at_len: DFF<bool>,
    early: DFF<bool>,
    hlen_m1: DFF<Bits<8>>,
    ram: RAM<Bits<FLIT_BITS>, AW>,
    rptr: DFF<Bits<CW>>,
    wptr: DFF<Bits<CW>>,
    cptr: DFF<Bits<CW>>,
    shown: DFF<bool>,
    open: DFF<bool>,
    skip: DFF<bool>,
    /// Flits stored of the open packet.
    plen: DFF<Bits<8>>,
    /// The open packet's `len`.
    hlen: DFF<Bits<8>>,
    /// First and second flit of the open packet.
    cur0: DFF<Bits<FLIT_BITS>>,
    cur1: DFF<Bits<FLIT_BITS>>,
    freed_r: DFF<Bits<CW>>,
    c_missing_head: DFF<Bits<16>>,
    c_missing_tail: DFF<Bits<16>>,
    c_too_long: DFF<Bits<16>>,
    c_bad: DFF<Bits<16>>,
    c_overrun: DFF<Bits<16>>,
    e0: DFF<Bits<FLIT_BITS>>,
    e1: DFF<Bits<FLIT_BITS>>,
    ereason: DFF<Bits<3>>,
    edropped: DFF<bool>,
    // Per-cycle decisions.
    /// Slots holding no flit (`free` before widening).
    free_slots: Signal<Local, Bits<CW>>,
    take: Signal<Local, bool>,
    head: Signal<Local, bool>,
    pop: Signal<Local, bool>,
    rnext: Signal<Local, Bits<CW>>,
    base: Signal<Local, Bits<CW>>,
    fill_w: Signal<Local, Bits<CW>>,
    fill_c: Signal<Local, Bits<CW>>,
    base_next: Signal<Local, Bits<CW>>,
    wptr_inc: Signal<Local, Bits<CW>>,
    cptr_inc: Signal<Local, Bits<CW>>,
    full: Signal<Local, bool>,
    write: Signal<Local, bool>,
    commit: Signal<Local, bool>,
    rollback: Signal<Local, bool>,
    retire: Signal<Local, bool>,
    drop: Signal<Local, bool>,
    reason: Signal<Local, Bits<3>>,
    d0: Signal<Local, Bits<FLIT_BITS>>,
    d1: Signal<Local, Bits<FLIT_BITS>>,
    plen_inc: Signal<Local, Bits<8>>,
    has_two: Signal<Local, bool>,
    tail_marker: Signal<Local, bool>,
    inc_mh: Signal<Local, bool>,
    inc_mt: Signal<Local, bool>,
    inc_tl: Signal<Local, bool>,
    inc_bad: Signal<Local, bool>,
    inc_ovr: Signal<Local, bool>,
    fr_roll: Signal<Local, Bits<CW>>,
    fr_step: Signal<Local, Bits<CW>>,
    depth: Constant<Bits<CW>>,
    one: Constant<Bits<CW>>,
    zero: Constant<Bits<CW>>,
    two: Constant<Bits<CW>>,
    bit0: Constant<Bits<AW>>,
    one8: Constant<Bits<8>>,
    two8: Constant<Bits<8>>,
    max_len: Constant<Bits<8>>,
    one16: Constant<Bits<16>>,
    code_tail_bad: Constant<Bits<6>>,
    r_missing_head: Constant<Bits<3>>,
    r_missing_tail: Constant<Bits<3>>,
    r_too_long: Constant<Bits<3>>,
    r_too_short: Constant<Bits<3>>,
    r_bad: Constant<Bits<3>>,
    r_overrun: Constant<Bits<3>>,
}

impl<const D: usize, const AW: usize, const CW: usize> PacketBuffer<D, AW, CW> {
    /// A buffer of `D` slots accepting packets of up to `max_len` flits. Panics unless `D` is a
    /// power of two >= 4, `AW`/`CW` match it and `2 <= max_len <= min(D, 255)`.
    pub fn new(max_len: usize) -> Self {
        assert!(
            D >= 4 && D.is_power_of_two(),
            "PacketBuffer: D (depth) is {D}; it must be a power of two >= 4"
        );
        check_ptr_width("PacketBuffer", D, AW);
        check_count_width("PacketBuffer", D, CW);
        assert!(
            (2..=D.min(255)).contains(&max_len),
            "PacketBuffer: max_len is {max_len}; it must be in 2..=min(D, 255) = 2..={}",
            D.min(255)
        );
        let c3 = |v: u8| Constant::new((v as usize).to_bits());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sink: Default::default(),
            source: Default::default(),
            freed: Default::default(),
            missing_head: Default::default(),
            missing_tail: Default::default(),
            too_long: Default::default(),
            bad: Default::default(),
            overrun: Default::default(),
            err_flit0: Default::default(),
            err_flit1: Default::default(),
            err_reason: Default::default(),
            dropped_any: Default::default(),
            free: Default::default(),
            idle: Default::default(),
            dec: Default::default(),
            unused_decoded: Default::default(),
            in_valid: Default::default(),
            in_data: Default::default(),
            in_head: Default::default(),
            in_body: Default::default(),
            in_tail: Default::default(),
            in_bad: Default::default(),
            in_tail_marker: Default::default(),
            in_len: Default::default(),
            in_short: Default::default(),
            in_len_m1: Default::default(),
            in_gt2: Default::default(),
            at_len: Default::default(),
            early: Default::default(),
            hlen_m1: Default::default(),
            ram: Default::default(),
            rptr: Default::default(),
            wptr: Default::default(),
            cptr: Default::default(),
            shown: Default::default(),
            open: Default::default(),
            skip: Default::default(),
            plen: Default::default(),
            hlen: Default::default(),
            cur0: Default::default(),
            cur1: Default::default(),
            freed_r: Default::default(),
            c_missing_head: Default::default(),
            c_missing_tail: Default::default(),
            c_too_long: Default::default(),
            c_bad: Default::default(),
            c_overrun: Default::default(),
            e0: Default::default(),
            e1: Default::default(),
            ereason: Default::default(),
            edropped: Default::default(),
            free_slots: Default::default(),
            take: Default::default(),
            head: Default::default(),
            pop: Default::default(),
            rnext: Default::default(),
            base: Default::default(),
            fill_w: Default::default(),
            fill_c: Default::default(),
            base_next: Default::default(),
            wptr_inc: Default::default(),
            cptr_inc: Default::default(),
            full: Default::default(),
            write: Default::default(),
            commit: Default::default(),
            rollback: Default::default(),
            retire: Default::default(),
            drop: Default::default(),
            reason: Default::default(),
            d0: Default::default(),
            d1: Default::default(),
            plen_inc: Default::default(),
            has_two: Default::default(),
            tail_marker: Default::default(),
            inc_mh: Default::default(),
            inc_mt: Default::default(),
            inc_tl: Default::default(),
            inc_bad: Default::default(),
            inc_ovr: Default::default(),
            fr_roll: Default::default(),
            fr_step: Default::default(),
            depth: Constant::new(D.to_bits()),
            one: Constant::new(1usize.to_bits()),
            zero: Constant::new(0usize.to_bits()),
            two: Constant::new(2usize.to_bits()),
            bit0: Constant::new(1usize.to_bits()),
            one8: Constant::new(1usize.to_bits()),
            two8: Constant::new(2usize.to_bits()),
            max_len: Constant::new(max_len.to_bits()),
            one16: Constant::new(1usize.to_bits()),
            code_tail_bad: Constant::new((ControlCode::TailBadPkt.code() as usize).to_bits()),
            r_missing_head: c3(REASON_MISSING_HEAD),
            r_missing_tail: c3(REASON_MISSING_TAIL),
            r_too_long: c3(REASON_TOO_LONG),
            r_too_short: c3(REASON_TOO_SHORT),
            r_bad: c3(REASON_BAD),
            r_overrun: c3(REASON_OVERRUN),
        }
    }
}

impl<const D: usize, const AW: usize, const CW: usize> Default for PacketBuffer<D, AW, CW> {
    /// `max_len = min(D, 255)`.
    fn default() -> Self {
        Self::new(D.min(255))
    }
}

impl<const D: usize, const AW: usize, const CW: usize> Logic for PacketBuffer<D, AW, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            in_valid,
            in_data,
            in_head,
            in_body,
            in_tail,
            in_bad,
            in_tail_marker,
            in_len,
            in_short,
            in_len_m1,
            in_gt2,
            at_len,
            early,
            hlen_m1,
            rptr,
            wptr,
            cptr,
            shown,
            open,
            skip,
            plen,
            hlen,
            cur0,
            cur1,
            freed_r,
            c_missing_head,
            c_missing_tail,
            c_too_long,
            c_bad,
            c_overrun,
            e0,
            e1,
            ereason,
            edropped
        );
        self.unused_decoded.next = self.dec.is_idle.val()
            | self.dec.is_credit.val()
            | self.dec.is_link_transfer.val()
            | self.dec.dst.val().any()
            | self.dec.src.val().any()
            | self.dec.vc.val().any()
            | self.dec.kind.val().any()
            | self.dec.delay.val().any()
            | self.dec.ctrl_vc.val().any()
            | self.dec.credits.val().any();
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.dec.flit.next = self.sink.data.val();
        self.sink.ready.next = true;
        self.freed.next = bit_cast::<CREDIT_BITS, CW>(self.freed_r.q.val());
        self.missing_head.next = self.c_missing_head.q.val();
        self.missing_tail.next = self.c_missing_tail.q.val();
        self.too_long.next = self.c_too_long.q.val();
        self.bad.next = self.c_bad.q.val();
        self.overrun.next = self.c_overrun.q.val();
        self.err_flit0.next = self.e0.q.val();
        self.err_flit1.next = self.e1.q.val();
        self.err_reason.next = self.ereason.q.val();
        self.dropped_any.next = self.edropped.q.val();
        // Kept in a CW-bit signal before widening: the difference of CW-bit values must wrap at
        // CW bits (rust-hdl's simulator widens an unwrapped difference with its high bits).
        self.free_slots.next = self.depth.val() - (self.wptr.q.val() - self.rptr.q.val());
        self.free.next = bit_cast::<CREDIT_BITS, CW>(self.free_slots.val());
        self.idle.next = !self.in_valid.q.val();

        // Read side, as BramFifo: the RAM reads the head slot of the next cycle; it is shown
        // if it was committed before this edge (so written on an earlier edge).
        self.source.valid.next = self.shown.q.val();
        self.source.data.next = self.ram.read_data.val();
        self.pop.next = self.source.ready.val() & self.shown.q.val();
        self.rnext.next = self.rptr.q.val();
        if self.pop.val() {
            self.rnext.next = self.rptr.q.val() + self.one.val();
        }
        self.rptr.d.next = self.rnext.val();
        self.ram.read_address.next = self.rnext.val().get_bits::<AW>(0);
        self.shown.d.next = self.cptr.q.val() != self.rnext.val();

        // Input register: the flit and its class; it is handled in the next cycle, so every
        // path below starts at flip-flops.
        self.in_valid.d.next = self.sink.valid.val()
            & !(self.dec.is_control.val()
                & !self.dec.is_bad_marker.val()
                & !self.dec.malformed.val());
        self.in_data.d.next = self.sink.data.val();
        self.in_head.d.next = self.dec.is_head.val() & !self.dec.malformed.val();
        self.in_body.d.next = self.dec.is_body.val();
        self.in_tail.d.next = self.dec.is_tail.val();
        self.in_bad.d.next = self.dec.malformed.val() | self.dec.is_bad_marker.val();
        self.in_tail_marker.d.next =
            self.dec.is_bad_marker.val() & (self.dec.code.val() == self.code_tail_bad.val());
        self.in_len.d.next = self.dec.len.val();
        self.in_short.d.next = self.dec.len.val() < self.two8.val();
        self.in_len_m1.d.next = self.dec.len.val() - self.one8.val();
        self.in_gt2.d.next = self.dec.len.val() > self.two8.val();

        // Write side: the registered flit.
        self.take.next = self.in_valid.q.val();
        self.head.next = self.in_head.q.val();
        self.tail_marker.next = self.in_tail_marker.q.val();
        self.plen_inc.next = self.plen.q.val() + self.one8.val();
        self.has_two.next = self.plen.q.val() >= self.two8.val();
        // A head ends the open packet first, so it is written where that packet began. The
        // sums and tests of both candidates come from registers only (timing), then a mux.
        self.fill_w.next = self.wptr.q.val() - self.rptr.q.val();
        self.fill_c.next = self.cptr.q.val() - self.rptr.q.val();
        self.wptr_inc.next = self.wptr.q.val() + self.one.val();
        self.cptr_inc.next = self.cptr.q.val() + self.one.val();
        self.base.next = self.wptr.q.val();
        self.base_next.next = self.wptr_inc.val();
        self.full.next = self.fill_w.val() == self.depth.val();
        if self.head.val() & self.open.q.val() {
            self.base.next = self.cptr.q.val();
            self.base_next.next = self.cptr_inc.val();
            self.full.next = self.fill_c.val() == self.depth.val();
        }
        self.write.next = false;
        self.commit.next = false;
        self.rollback.next = false;
        self.retire.next = false;
        self.drop.next = false;
        self.reason.next = self.r_bad.val();
        self.d0.next = self.in_data.q.val();
        self.d1.next = 0.into();
        self.inc_mh.next = false;
        self.inc_mt.next = false;
        self.inc_tl.next = false;
        self.inc_bad.next = false;
        self.inc_ovr.next = false;
        if self.take.val() {
            if self.in_bad.q.val() {
                self.retire.next = true;
                if self.skip.q.val() {
                    if self.tail_marker.val() {
                        self.skip.d.next = false;
                    }
                } else {
                    self.inc_bad.next = true;
                    self.drop.next = true;
                    self.reason.next = self.r_bad.val();
                    if self.open.q.val() {
                        self.rollback.next = true;
                        self.d0.next = self.cur0.q.val();
                        self.d1.next = self.in_data.q.val();
                        if self.has_two.val() {
                            self.d1.next = self.cur1.q.val();
                        }
                    }
                    self.open.d.next = false;
                    self.skip.d.next = !self.tail_marker.val();
                }
            } else if self.head.val() {
                if self.open.q.val() {
                    self.rollback.next = true;
                    self.inc_mt.next = true;
                    self.drop.next = true;
                    self.reason.next = self.r_missing_tail.val();
                    self.d0.next = self.cur0.q.val();
                    if self.has_two.val() {
                        self.d1.next = self.cur1.q.val();
                    }
                }
                self.skip.d.next = false;
                self.open.d.next = false;
                if self.full.val() {
                    self.inc_ovr.next = true;
                    self.drop.next = true;
                    self.reason.next = self.r_overrun.val();
                    self.d0.next = self.in_data.q.val();
                    self.d1.next = 0.into();
                    self.skip.d.next = true;
                } else if self.in_short.q.val() {
                    self.retire.next = true;
                    self.inc_bad.next = true;
                    self.drop.next = true;
                    self.reason.next = self.r_bad.val();
                    self.d0.next = self.in_data.q.val();
                    self.d1.next = 0.into();
                    self.skip.d.next = true;
                } else {
                    self.write.next = true;
                    self.open.d.next = true;
                    self.plen.d.next = self.one8.val();
                    self.hlen.d.next = self.in_len.q.val();
                    self.hlen_m1.d.next = self.in_len_m1.q.val();
                    // One flit stored, len >= 2 and max_len >= 2: not at the length yet.
                    self.at_len.d.next = false;
                    self.early.d.next = self.in_gt2.q.val();
                    self.cur0.d.next = self.in_data.q.val();
                }
            } else if self.skip.q.val() {
                // Body or tail of a packet being discarded.
                self.retire.next = true;
                if self.in_tail.q.val() {
                    self.skip.d.next = false;
                }
            } else if !self.open.q.val() {
                self.retire.next = true;
                self.inc_mh.next = true;
                self.drop.next = true;
                self.reason.next = self.r_missing_head.val();
                self.skip.d.next = self.in_body.q.val();
            } else {
                // Body or tail of the open packet: every outcome but storing drops it.
                self.d0.next = self.cur0.q.val();
                self.d1.next = self.in_data.q.val();
                if self.has_two.val() {
                    self.d1.next = self.cur1.q.val();
                }
                if self.full.val() {
                    self.inc_ovr.next = true;
                    self.drop.next = true;
                    self.reason.next = self.r_overrun.val();
                    self.rollback.next = true;
                    self.open.d.next = false;
                    self.skip.d.next = self.in_body.q.val();
                } else if self.at_len.q.val() {
                    self.inc_tl.next = true;
                    self.retire.next = true;
                    self.drop.next = true;
                    self.reason.next = self.r_too_long.val();
                    self.rollback.next = true;
                    self.open.d.next = false;
                    self.skip.d.next = self.in_body.q.val();
                } else if self.in_tail.q.val() & self.early.q.val() {
                    self.inc_tl.next = true;
                    self.retire.next = true;
                    self.drop.next = true;
                    self.reason.next = self.r_too_short.val();
                    self.rollback.next = true;
                    self.open.d.next = false;
                } else {
                    self.write.next = true;
                    self.plen.d.next = self.plen_inc.val();
                    self.at_len.d.next = (self.plen_inc.val() >= self.hlen.q.val())
                        | (self.plen_inc.val() >= self.max_len.val());
                    self.early.d.next = self.plen_inc.val() < self.hlen_m1.q.val();
                    if self.plen.q.val() == self.one8.val() {
                        self.cur1.d.next = self.in_data.q.val();
                    }
                    if self.in_tail.q.val() {
                        self.commit.next = true;
                        self.open.d.next = false;
                    }
                }
            }
        }

        // Pointers.
        self.ram.write_enable.next = self.write.val();
        self.ram.write_address.next = self.base.val().get_bits::<AW>(0);
        self.ram.write_data.next = self.in_data.q.val();
        // rust-hdl's RAM is read-first, which iCE40 block RAMs don't guarantee; Yosys would add
        // ~130 flip-flops of emulation. The slot read is the slot written only when it is not
        // shown next cycle (it is at or past `cptr`), so then read its neighbour: Yosys proves
        // the addresses of an enabled write differ and maps the bare RAM.
        if self.write.val()
            & (self.rnext.val().get_bits::<AW>(0) == self.base.val().get_bits::<AW>(0))
        {
            self.ram.read_address.next = self.rnext.val().get_bits::<AW>(0) ^ self.bit0.val();
        }
        if self.rollback.val() {
            self.wptr.d.next = self.cptr.q.val();
        }
        if self.write.val() {
            self.wptr.d.next = self.base_next.val();
        }
        if self.commit.val() {
            self.cptr.d.next = self.base_next.val();
        }

        // Credits freed on this edge.
        self.fr_roll.next = self.zero.val();
        if self.rollback.val() {
            self.fr_roll.next = self.wptr.q.val() - self.cptr.q.val();
        }
        // One adder: the rolled-back count plus 0, 1 or 2 (a read and a retired flit).
        self.fr_step.next = self.zero.val();
        if self.pop.val() ^ self.retire.val() {
            self.fr_step.next = self.one.val();
        }
        if self.pop.val() & self.retire.val() {
            self.fr_step.next = self.two.val();
        }
        self.freed_r.d.next = self.fr_roll.val() + self.fr_step.val();

        // Counters and the error buffer.
        if self.inc_mh.val() & !self.c_missing_head.q.val().all() {
            self.c_missing_head.d.next = self.c_missing_head.q.val() + self.one16.val();
        }
        if self.inc_mt.val() & !self.c_missing_tail.q.val().all() {
            self.c_missing_tail.d.next = self.c_missing_tail.q.val() + self.one16.val();
        }
        if self.inc_tl.val() & !self.c_too_long.q.val().all() {
            self.c_too_long.d.next = self.c_too_long.q.val() + self.one16.val();
        }
        if self.inc_bad.val() & !self.c_bad.q.val().all() {
            self.c_bad.d.next = self.c_bad.q.val() + self.one16.val();
        }
        if self.inc_ovr.val() & !self.c_overrun.q.val().all() {
            self.c_overrun.d.next = self.c_overrun.q.val() + self.one16.val();
        }
        if self.drop.val() {
            self.e0.d.next = self.d0.val();
            self.e1.d.next = self.d1.val();
            self.ereason.d.next = self.reason.val();
            self.edropped.d.next = true;
        }

        if self.reset.val() {
            self.in_valid.d.next = false;
            self.rptr.d.next = 0.into();
            self.wptr.d.next = 0.into();
            self.cptr.d.next = 0.into();
            self.shown.d.next = false;
            self.open.d.next = false;
            self.skip.d.next = false;
            self.plen.d.next = 0.into();
            self.freed_r.d.next = 0.into();
            self.c_missing_head.d.next = 0.into();
            self.c_missing_tail.d.next = 0.into();
            self.c_too_long.d.next = 0.into();
            self.c_bad.d.next = 0.into();
            self.c_overrun.d.next = 0.into();
            self.e0.d.next = 0.into();
            self.e1.d.next = 0.into();
            self.ereason.d.next = 0.into();
            self.edropped.d.next = false;
        }
    }
}

#[test]
fn packet_buffer_is_synthesizable() {
    let mut uut = <crate::packet_buffer!(64)>::new(32);
    uut.connect_all();
    yosys_validate("packet_buffer", &generate_verilog(&uut)).unwrap();
    let mut uut = <crate::packet_buffer!(4)>::new(4);
    uut.connect_all();
    yosys_validate("packet_buffer_4", &generate_verilog(&uut)).unwrap();
}

#[test]
#[should_panic(expected = "max_len")]
fn packet_buffer_rejects_max_len_above_depth() {
    let _ = <crate::packet_buffer!(16)>::new(17);
}
