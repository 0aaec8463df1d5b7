//! `RefillBeat`: the buffer manager's completion stage. A NAP-ring read's completion (one
//! 16-byte beat: an 8-byte read never crosses a 64-byte split) is registered, then decoded with
//! its tag's record (`record`: the manager's tag RAM read at `completion.tag` in the
//! registering cycle, so it arrives with the registered beat: entry in bits 7..0, the entry's lane of the beat in bit 8, its ring
//! index in bits 24..9). Outcomes, in the decoding cycle: `failed` (the read completed with an
//! error: the consumer stays), `bad` (the entry is not a 2 KB-aligned address below 2^48: it
//! is skipped), `good` (`cache_data` = the address's bits 47..11 above the ring index). The
//! tag is freed on every completion; the QP's NAP-ring consumer advances on `good` or `bad`.
//! `completion.ready` is always high (the reads were reserved). Latency: one cycle. Reset:
//! the registered beat is dropped and nothing is freed or advanced in that cycle.
//! Parameter `EAW` entry bits; elaboration value QPs per function (a power of two).
use super::buffer_manager::{BUFFER_ADDRESS_BITS, CACHE_WORD_BITS, TAG_INFO_BITS};
use crate::function_table::{PointerAdvanceSource, RING_BITS};
use crate::host::{ReadCompletionSink, HOST_DATA_BITS, TAG_BITS};
use crate::regs::{Ring, RING_POINTER_BITS};
use crate::tag_pool::TagFreeSource;
use hdl::formats::nic::{FUNCTION_BITS, QP_BITS};
use rust_hdl::prelude::*;

/// The completion stage; see the module documentation.
#[derive(LogicBlock)]
pub struct RefillBeat<const EAW: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Completions of NAP-ring reads.
    pub completion: ReadCompletionSink,
    /// The tag RAM's read data: the owner presents `completion.tag` as the RAM's read address
    /// in the cycle the beat arrives, so in the decoding cycle this is the beat's record.
    pub record: Signal<In, Bits<TAG_INFO_BITS>>,
    /// Tags given back.
    pub tag_free: TagFreeSource,
    /// Consumer advances of the NAP rings.
    pub advance: PointerAdvanceSource,
    /// The decoded beat's entry.
    pub entry: Signal<Out, Bits<EAW>>,
    /// Pulse: the read failed.
    pub failed: Signal<Out, bool>,
    /// Pulse: the ring entry is unusable (skipped).
    pub bad: Signal<Out, bool>,
    /// Pulse: the ring entry is a buffer; `cache_data` holds it.
    pub good: Signal<Out, bool>,
    /// The buffer's cache word (address bits 47..11, ring index).
    pub cache_data: Signal<Out, Bits<CACHE_WORD_BITS>>,
    /// A decoded beat is in this cycle.
    pub decoded: Signal<Out, bool>,
    beat_valid: DFF<bool>,
    beat_error: DFF<bool>,
    beat_tag: DFF<Bits<TAG_BITS>>,
    beat_data: DFF<Bits<HOST_DATA_BITS>>,
    beat_word: Signal<Local, Bits<64>>,
    bad_word: Signal<Local, bool>,
    qp_shift: Constant<Bits<4>>,
    qp_mask: Constant<Bits<EAW>>,
    nap_ring: Constant<Bits<RING_BITS>>,
}

impl<const EAW: usize> RefillBeat<EAW> {
    /// The stage for `qps` QPs per function.
    pub fn new(qps: usize) -> Self {
        assert!(qps.is_power_of_two());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            completion: Default::default(),
            record: Default::default(),
            tag_free: Default::default(),
            advance: Default::default(),
            entry: Default::default(),
            failed: Default::default(),
            bad: Default::default(),
            good: Default::default(),
            cache_data: Default::default(),
            decoded: Default::default(),
            beat_valid: Default::default(),
            beat_error: Default::default(),
            beat_tag: Default::default(),
            beat_data: Default::default(),
            beat_word: Default::default(),
            bad_word: Default::default(),
            qp_shift: Constant::new((qps.trailing_zeros() as usize).to_bits()),
            qp_mask: Constant::new((qps - 1).to_bits()),
            nap_ring: Constant::new((Ring::NapBuffers.code() as usize).to_bits()),
        }
    }
}

impl<const EAW: usize> Logic for RefillBeat<EAW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, beat_valid, beat_error, beat_tag, beat_data);
        self.completion.ready.next = true;
        self.beat_valid.d.next = self.completion.valid.val() & self.completion.last.val();
        self.beat_error.d.next = self.completion.error.val();
        self.beat_tag.d.next = self.completion.tag.val();
        self.beat_data.d.next = self.completion.data.val();
        self.decoded.next = self.beat_valid.q.val();
        self.entry.next = bit_cast::<EAW, 8>(self.record.val().get_bits::<8>(0));
        self.beat_word.next = self.beat_data.q.val().get_bits::<64>(0);
        if self.record.val().get_bit(8) {
            self.beat_word.next = self.beat_data.q.val().get_bits::<64>(64);
        }
        self.bad_word.next = self.beat_word.val().get_bits::<11>(0).any()
            | self.beat_word.val().get_bits::<16>(48).any();
        self.failed.next = self.beat_valid.q.val() & self.beat_error.q.val();
        self.good.next = self.beat_valid.q.val() & !self.beat_error.q.val() & !self.bad_word.val();
        self.bad.next = self.beat_valid.q.val() & !self.beat_error.q.val() & self.bad_word.val();
        self.tag_free.valid.next = self.beat_valid.q.val();
        self.tag_free.tag.next = self.beat_tag.q.val();
        self.advance.valid.next = self.good.val() | self.bad.val();
        self.advance.function.next =
            bit_cast::<FUNCTION_BITS, EAW>(self.entry.val() >> self.qp_shift.val());
        self.advance.qp.next = bit_cast::<QP_BITS, EAW>(self.entry.val() & self.qp_mask.val());
        self.advance.ring.next = self.nap_ring.val();
        self.cache_data.next = (bit_cast::<CACHE_WORD_BITS, BUFFER_ADDRESS_BITS>(
            self.beat_word.val().get_bits::<BUFFER_ADDRESS_BITS>(11),
        ) << 16)
            | bit_cast::<CACHE_WORD_BITS, RING_POINTER_BITS>(
                self.record.val().get_bits::<RING_POINTER_BITS>(9),
            );
        if self.reset.val() {
            self.beat_valid.d.next = false;
            self.tag_free.valid.next = false;
            self.advance.valid.next = false;
        }
    }
}

#[test]
fn refill_beat_is_synthesizable() {
    let mut uut = RefillBeat::<5>::new(4);
    uut.connect_all();
    yosys_validate("refill_beat", &generate_verilog(&uut)).unwrap();
}
