//! Packet buffer: one virtual channel's receive buffer with commit/rollback (dirty-packet
//! discard, item 6 of the receiver in `docs/llp-design.md`), so only whole good packets leave.
//!
//! Three stages, one block each:
//! ```text
//! sink -> PacketIntake -> PacketChecker -> CommitStore -> source
//!         (input register,  (open packet,      (RAM, read/commit/write
//!          decode)           lengths, discard)   pointers, read stage)
//! ```
//! Flits are written at the store's write pointer; the reader sees slots up to its commit
//! pointer. A good tail commits its packet (`commit_with_write`); a dirty packet is rolled back
//! and never shown. Storage is the [`CommitStore`] (block RAM on iCE40; Yosys maps small
//! depths to LUTs/flip-flops by itself): latency from a tail's write to `source.valid` is 2
//! cycles.
//!
//! **Flit classes** (from [`FlitDecoder`](crate::flit_decoder::FlitDecoder), checked in this
//! order by the [`PacketChecker`]):
//! - *malformed* (`FlitDecoder::malformed`) and *markers* (HeadBadPkt/BodyBadPkt/TailBadPkt):
//!   when already discarding (see below) the flit is dropped silently (TailBadPkt ends the
//!   discard); otherwise it is a drop for [`REASON_BAD`], rolls back the open packet if any, and
//!   starts a discard, except TailBadPkt, after which the buffer is idle.
//! - *other control flits* (Idle, CrdtRet, VlMrkr, LinkTransfer) should never reach a VC
//!   buffer; they are ignored: not stored, no state change, no credit returned.
//! - *head*: if a packet is open, it is rolled back: a drop for [`REASON_MISSING_TAIL`]; a
//!   discard ends. The head then starts a packet, unless the buffer is full (after that
//!   rollback): [`REASON_OVERRUN`], discard; or its `len` field is below 2: [`REASON_BAD`] (a
//!   packet has a head and a tail), discard.
//! - *body/tail* while discarding: dropped silently (a tail ends the discard). With no packet
//!   open: [`REASON_MISSING_HEAD`] (a body starts a discard, so a headless fragment counts
//!   once). In an open packet, checked in this order: buffer full: [`REASON_OVERRUN`]; the
//!   packet would exceed `min(len, max_len)` flits: [`REASON_TOO_LONG`]; a tail ending it
//!   before `len` flits: [`REASON_TOO_SHORT`]. Each rolls the packet back; after a body the
//!   rest is discarded up to its tail. Otherwise the flit is stored; a tail commits.
//!
//! "Discarding" thus ends at a tail, a TailBadPkt, or a head (which starts the next packet):
//! one dirty packet is one drop, and a lost tail costs only the packet it belonged to.
//!
//! **Drop events** (`drops`, registered): bit `r - 1` ([`drop_bit`]) is high for one cycle per
//! drop for reason `r`. A head that ends an open packet and is itself dropped sets two bits in
//! the same cycle (missing tail and its own reason); no other drop coincides. The buffer counts
//! nothing itself: the chip's register file counts the events (`docs/llp-design.md`).
//!
//! **Credits**: the sender spends one credit per flit of this VC (markers and malformed flits
//! included) and starts with `D`. `freed` (registered) is the number of slots freed by the
//! previous clock edge: 1 per flit read out, the stored flits of a rolled-back packet, and 1
//! for a flit dropped without being stored, all added up. A head, body or tail that is to be
//! stored and finds the buffer full means the sender broke the credit rule: the flit is
//! dropped ([`REASON_OVERRUN`]), makes its packet dirty (rolled back, the rest discarded), and
//! returns no credit (the sender never had one); the discarded rest returns credits as usual.
//! So once all is drained, `sum(freed) == flits accepted - overruns - ignored control flits`.
//!
//! **Input register** (timing): a flit accepted on `sink` is registered with its decode
//! ([`PacketIntake`]) and handled in the next cycle, so the classification, length checks and
//! RAM write enable start at flip-flops (the length checks of the open packet's next flit are
//! registered too). Every effect of a flit therefore shows one cycle later than it would
//! without the register: its drop pulse is on `drops` in the second cycle after the one that
//! accepted it, its credit (if dropped unstored) is in `freed` two cycles after its acceptance,
//! and a tail accepted in cycle `t` can show its packet's first flit on `source` in cycle
//! `t + 3` at the earliest.
//!
//! Handshake: `sink.ready` is always high (flow control is by credits). `source` obeys the
//! stream hold rule; one flit per cycle sustained. Synchronous `reset` empties the buffer;
//! `freed` and `drops` are 0 after it (credits not yet returned are for the sender to
//! restore: a link resets both ends), and the flits accepted in the reset cycle and in the
//! cycle before it (still in the input register) are dropped.
//!
//! Parameters: `D` slots (power of two >= 4), `AW` = `fifo_ptr_bits(D)`, `CW` =
//! `fifo_count_bits(D)` (pointer width; `freed` is [`CREDIT_BITS`] wide); elaboration value
//! `max_len` (2..=min(D, 255)), the longest packet accepted, in flits. Use
//! [`packet_buffer!`](crate::packet_buffer).
pub mod packet_checker;
pub mod packet_intake;

use crate::fifo::{check_count_width, check_ptr_width};
use crate::formats::FLIT_BITS;
use crate::llp::commit_store::{CommitStore, StoreWriteSource};
use crate::llp::CREDIT_BITS;
use crate::stream::{StreamSink, StreamSource};
pub use packet_checker::PacketChecker;
pub use packet_intake::{ClassifiedFlitSource, PacketIntake};
use rust_hdl::prelude::*;

/// No drop (the reason of an empty error record).
pub const REASON_NONE: u8 = 0;
/// A body or tail with no packet open.
pub const REASON_MISSING_HEAD: u8 = 1;
/// A head while a packet was open (the open packet is dropped).
pub const REASON_MISSING_TAIL: u8 = 2;
/// Longer than `max_len` or than the head's `len`.
pub const REASON_TOO_LONG: u8 = 3;
/// A tail before the head's `len` flits.
pub const REASON_TOO_SHORT: u8 = 4;
/// A bad-packet marker, a malformed flit, or a head with `len < 2`.
pub const REASON_BAD: u8 = 5;
/// A flit arrived with the buffer full (the sender broke the credit rule).
pub const REASON_OVERRUN: u8 = 6;
/// A head or VlMrkr named a VC the link does not have ([`RxDelivery`](super::rx_delivery::RxDelivery)'s
/// demultiplexer; the flits up to the next valid VC are dropped with it).
pub const REASON_BAD_VC: u8 = 7;
/// Width of a drop event vector: one bit per reason `1..=7`.
pub const DROP_BITS: usize = 7;
/// Every drop reason with its name, in bit order.
pub const DROP_REASONS: [(u8, &str); DROP_BITS] = [
    (REASON_MISSING_HEAD, "missing_head"),
    (REASON_MISSING_TAIL, "missing_tail"),
    (REASON_TOO_LONG, "too_long"),
    (REASON_TOO_SHORT, "too_short"),
    (REASON_BAD, "bad"),
    (REASON_OVERRUN, "overrun"),
    (REASON_BAD_VC, "bad_vc"),
];

/// The bit of reason `reason` (1..=7) in a drop event vector.
pub const fn drop_bit(reason: u8) -> usize {
    assert!(reason >= 1 && reason as usize <= DROP_BITS);
    reason as usize - 1
}

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
    /// Synchronous reset: empties the buffer.
    pub reset: Signal<In, bool>,
    /// Flits of this VC in order; `ready` is always high.
    pub sink: StreamSink<Bits<FLIT_BITS>>,
    /// Flits of committed packets, in order.
    pub source: StreamSource<Bits<FLIT_BITS>>,
    /// Slots freed by the previous clock edge (credits to return).
    pub freed: Signal<Out, Bits<CREDIT_BITS>>,
    /// Drop events: bit `r - 1` pulses for one cycle per drop for reason `r` (`REASON_*`).
    pub drops: Signal<Out, Bits<DROP_BITS>>,
    /// Slots not holding a flit (`D` minus stored flits, committed or not): what a far end
    /// that restarted may be given as credits, once `idle`.
    pub free: Signal<Out, Bits<CREDIT_BITS>>,
    /// The input register is empty: no flit accepted on `sink` is still to be handled.
    pub idle: Signal<Out, bool>,
    intake: PacketIntake,
    packet_check: PacketChecker,
    store: CommitStore<D, AW, CW>,
    /// The store's outputs this block does not use, acknowledged (the checker writes only
    /// when there is room, so the store never overflows; nothing waits for it to drain).
    unused_store: Signal<Local, bool>,
    freed_held: DFF<Bits<CW>>,
    pop: Signal<Local, bool>,
    /// Flits a rollback frees on this edge.
    rolled_back: Signal<Local, Bits<CW>>,
    /// Flits read or retired on this edge: 0, 1 or 2.
    stepped: Signal<Local, Bits<CW>>,
    one: Constant<Bits<CW>>,
    two: Constant<Bits<CW>>,
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
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sink: Default::default(),
            source: Default::default(),
            freed: Default::default(),
            drops: Default::default(),
            free: Default::default(),
            idle: Default::default(),
            intake: PacketIntake::new(),
            packet_check: PacketChecker::new(max_len),
            store: CommitStore::new(),
            unused_store: Default::default(),
            freed_held: Default::default(),
            pop: Default::default(),
            rolled_back: Default::default(),
            stepped: Default::default(),
            one: Constant::new(1usize.to_bits()),
            two: Constant::new(2usize.to_bits()),
        }
    }
}

impl<const D: usize, const AW: usize, const CW: usize> Logic for PacketBuffer<D, AW, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, freed_held);
        clock!(self, clock, intake, packet_check, store);
        self.intake.reset.next = self.reset.val();
        self.packet_check.reset.next = self.reset.val();
        self.store.reset.next = self.reset.val();
        StreamSink::<Bits<FLIT_BITS>>::link(&mut self.sink, &mut self.intake.sink);
        ClassifiedFlitSource::join(&mut self.intake.flit, &mut self.packet_check.flit);
        StoreWriteSource::join(&mut self.packet_check.store, &mut self.store.write);
        StreamSource::<Bits<FLIT_BITS>>::link(&mut self.source, &mut self.store.source);
        self.idle.next = self.intake.idle.val();
        self.drops.next = self.packet_check.drops.val();
        self.free.next = bit_cast::<CREDIT_BITS, CW>(self.store.free.val());
        self.unused_store.next = self.store.overflow.val() | self.store.drained.val();

        // Credits freed on this edge: a rolled-back packet's stored flits, plus 0, 1 or 2 (a
        // flit read out, a flit retired unstored), in one adder.
        self.pop.next = self.source.ready.val() & self.source.valid.val();
        self.rolled_back.next = 0.into();
        if self.packet_check.store.rollback.val() {
            self.rolled_back.next = self.store.uncommitted.val();
        }
        self.stepped.next = 0.into();
        if self.pop.val() ^ self.packet_check.retire.val() {
            self.stepped.next = self.one.val();
        }
        if self.pop.val() & self.packet_check.retire.val() {
            self.stepped.next = self.two.val();
        }
        self.freed_held.d.next = self.rolled_back.val() + self.stepped.val();
        self.freed.next = bit_cast::<CREDIT_BITS, CW>(self.freed_held.q.val());
        if self.reset.val() {
            self.freed_held.d.next = 0.into();
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
