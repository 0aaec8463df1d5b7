//! `PayloadPacker`: the reorder buffer's output stage. It takes 16-byte beats read from the
//! reorder RAM, each with the lanes that hold message bytes (`lo`, `count`: lanes
//! `lo..lo + count`), and packs those bytes, in order, into 8-byte payload words whose byte 0
//! is the message's next byte: the source misalignment (a request's first lane, a segment's
//! odd length) disappears here. A message's last word holds 1..=8 bytes, the rest zero.
//!
//! **Handshake**: the beat is announced in cycle `c` (`beat.valid` with its lanes, `end` for the
//! message's last beat, `error` for a failed read) and its data arrives on `data` in `c + 1`
//! (the RAM's registered read). The announcer may announce only when `space` is high (the
//! bytes will fit: at most 8 left in the accumulator when they arrive) and, for a message's
//! first beat, only when `drained` is high (the last message's bytes are all out, so two
//! messages never share a word). `payload` is valid/ready with the hold rule.
//!
//! **Throughput**: one word per cycle while bytes come (a beat every other cycle keeps it
//! full); between messages the announcer waits for `drained` (a gap of about 2 cycles).
//!
//! **Error**: `payload.error` is high from the first word after a failed beat's bytes were
//! packed to the message's last word: the last word's flag is the message's verdict.
//!
//! **Reset** (synchronous): the accumulator empties, nothing is offered; a beat announced in
//! the reset cycle is dropped.
use super::PayloadWordSource;
use crate::host::HOST_DATA_BITS;
use rust_hdl::prelude::*;

/// Bits of the accumulator: 8 bytes left over plus a 16-byte beat.
const ACC_BITS: usize = 192;

/// A beat announced to the packer (valid only: `space` and `drained` were checked).
#[derive(LogicInterface, Default)]
#[join = "PackerBeatSink"]
pub struct PackerBeatSource {
    /// A beat is announced; its data follows in the next cycle.
    pub valid: Signal<Out, bool>,
    /// The first lane holding message bytes.
    pub lo: Signal<Out, Bits<4>>,
    /// Lanes holding message bytes (1..=16).
    pub count: Signal<Out, Bits<5>>,
    /// The message's last beat.
    pub end: Signal<Out, bool>,
    /// The beat's read failed (its bytes are not host data).
    pub error: Signal<Out, bool>,
}

/// A beat announced, at the packer.
#[derive(LogicInterface, Default)]
#[join = "PackerBeatSource"]
pub struct PackerBeatSink {
    /// A beat is announced.
    pub valid: Signal<In, bool>,
    /// First lane.
    pub lo: Signal<In, Bits<4>>,
    /// Lanes.
    pub count: Signal<In, Bits<5>>,
    /// Last beat of the message.
    pub end: Signal<In, bool>,
    /// Failed read.
    pub error: Signal<In, bool>,
}

/// The packer; see the module documentation.
#[derive(LogicBlock)]
pub struct PayloadPacker {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Beats announced.
    pub beat: PackerBeatSink,
    /// The announced beat's 16 bytes, one cycle after the announcement.
    pub data: Signal<In, Bits<HOST_DATA_BITS>>,
    /// A beat announced now fits.
    pub space: Signal<Out, bool>,
    /// No byte of a message is pending or on its way (a new message may start).
    pub drained: Signal<Out, bool>,
    /// Payload words.
    pub payload: PayloadWordSource,
    accumulator: DFF<Bits<ACC_BITS>>,
    fill: DFF<Bits<5>>,
    flush: DFF<bool>,
    failed: DFF<bool>,
    arriving: DFF<bool>,
    arriving_lo: DFF<Bits<4>>,
    arriving_count: DFF<Bits<5>>,
    arriving_end: DFF<bool>,
    arriving_error: DFF<bool>,
    emitting: Signal<Local, bool>,
    emitted: Signal<Local, Bits<5>>,
    remaining: Signal<Local, Bits<5>>,
    kept: Signal<Local, Bits<ACC_BITS>>,
    lanes: Signal<Local, Bits<ACC_BITS>>,
    mask: Signal<Local, Bits<ACC_BITS>>,
    incoming: Signal<Local, Bits<5>>,
    /// The shift amounts in bits: the beat's first lane, its lanes, the bytes kept.
    lo_bits: Signal<Local, Bits<8>>,
    count_bits: Signal<Local, Bits<8>>,
    remaining_bits: Signal<Local, Bits<8>>,
    ones: Constant<Bits<ACC_BITS>>,
    eight: Constant<Bits<5>>,
}

impl Default for PayloadPacker {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            beat: Default::default(),
            data: Default::default(),
            space: Default::default(),
            drained: Default::default(),
            payload: Default::default(),
            accumulator: Default::default(),
            fill: Default::default(),
            flush: Default::default(),
            failed: Default::default(),
            arriving: Default::default(),
            arriving_lo: Default::default(),
            arriving_count: Default::default(),
            arriving_end: Default::default(),
            arriving_error: Default::default(),
            emitting: Default::default(),
            emitted: Default::default(),
            remaining: Default::default(),
            kept: Default::default(),
            lanes: Default::default(),
            mask: Default::default(),
            incoming: Default::default(),
            lo_bits: Default::default(),
            count_bits: Default::default(),
            remaining_bits: Default::default(),
            ones: Constant::new(!Bits::<ACC_BITS>::default()),
            eight: Constant::new(8u64.to_bits()),
        }
    }
}

impl Logic for PayloadPacker {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            accumulator,
            fill,
            flush,
            failed,
            arriving,
            arriving_lo,
            arriving_count,
            arriving_end,
            arriving_error
        );
        // The word offered: 8 bytes, or the message's last 1..=8.
        self.payload.valid.next = (self.fill.q.val() >= self.eight.val())
            | (self.flush.q.val() & self.fill.q.val().any());
        self.payload.word.next = self.accumulator.q.val().get_bits::<64>(0);
        self.payload.bytes.next = 8.into();
        if self.fill.q.val() < self.eight.val() {
            self.payload.bytes.next = self.fill.q.val().get_bits::<4>(0);
        }
        self.payload.last.next = self.flush.q.val() & (self.fill.q.val() <= self.eight.val());
        self.payload.error.next = self.failed.q.val();
        self.emitting.next = self.payload.valid.val() & self.payload.ready.val();
        self.emitted.next = 0.into();
        self.kept.next = self.accumulator.q.val();
        if self.emitting.val() {
            self.emitted.next = bit_cast::<5, 4>(self.payload.bytes.val());
            self.kept.next = self.accumulator.q.val() >> 64;
        }
        self.remaining.next = self.fill.q.val() - self.emitted.val();
        // The arriving beat's bytes, moved to lane 0, masked, then behind the kept bytes.
        // Shift amounts in bits, each in its own 8-bit local (so the Verilog evaluates them in
        // 8 bits, as the Rust does).
        self.lo_bits.next = bit_cast::<8, 4>(self.arriving_lo.q.val()) << 3;
        self.count_bits.next = bit_cast::<8, 5>(self.arriving_count.q.val()) << 3;
        self.lanes.next =
            bit_cast::<ACC_BITS, HOST_DATA_BITS>(self.data.val()) >> self.lo_bits.val();
        self.mask.next = !(self.ones.val() << self.count_bits.val());
        self.remaining_bits.next = bit_cast::<8, 5>(self.remaining.val()) << 3;
        self.incoming.next = 0.into();
        if self.arriving.q.val() {
            self.incoming.next = self.arriving_count.q.val();
        }
        self.accumulator.d.next = self.kept.val();
        self.fill.d.next = self.remaining.val() + self.incoming.val();
        if self.arriving.q.val() {
            self.accumulator.d.next = self.kept.val()
                | ((self.lanes.val() & self.mask.val()) << self.remaining_bits.val());
            if self.arriving_end.q.val() {
                self.flush.d.next = true;
            }
            if self.arriving_error.q.val() {
                self.failed.d.next = true;
            }
        }
        if self.emitting.val() & self.payload.last.val() {
            self.flush.d.next = false;
            self.failed.d.next = false;
        }
        self.space.next = (self.remaining.val() + self.incoming.val()) <= self.eight.val();
        self.drained.next = !self.flush.q.val() & !self.arriving.q.val();
        self.arriving.d.next = self.beat.valid.val();
        self.arriving_lo.d.next = self.beat.lo.val();
        self.arriving_count.d.next = self.beat.count.val();
        self.arriving_end.d.next = self.beat.end.val();
        self.arriving_error.d.next = self.beat.error.val();
        if self.reset.val() {
            self.accumulator.d.next = 0.into();
            self.fill.d.next = 0.into();
            self.flush.d.next = false;
            self.failed.d.next = false;
            self.arriving.d.next = false;
            self.payload.valid.next = false;
        }
    }
}

#[test]
fn payload_packer_is_synthesizable() {
    let mut uut = PayloadPacker::default();
    uut.connect_all();
    yosys_validate("payload_packer", &generate_verilog(&uut)).unwrap();
}
