//! What we know of the far end: the reference word of each cycle and the far end's identity
//! latched from the reference words.
//!
//! The reference word of a cycle is the word of the lowest-numbered lane whose checker flags it
//! (`reference`: good, and its lane's run counting it at least 2). Its fields are outputs this
//! cycle (`present`, `ready`, `fresh`, `mask`) and `mask` is also latched (`far_mask`, the
//! latest reference word's mask). Its payload byte is latched into the identity field its word
//! index names, and the index is recorded; `far_known` is high once all four were latched
//! since the last `restart` (the state machine's SEEK entry) or reset.
use super::ts_word::*;
use crate::llp::lane_channel::{MAX_LANES, XFR_BITS};
use rust_hdl::prelude::*;

/// Reference word selection and the far end's latched identity.
#[derive(LogicBlock)]
pub struct FarEnd {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: nothing known.
    pub reset: Signal<In, bool>,
    /// The four lanes' transfers from the wire.
    pub words: Signal<In, Bits<128>>,
    /// Lanes whose word qualifies as the reference word this cycle.
    pub reference: Signal<In, Bits<4>>,
    /// Forget which identity words were latched (SEEK entry).
    pub restart: Signal<In, bool>,
    /// A reference word is present this cycle.
    pub present: Signal<Out, bool>,
    /// This cycle's reference word's ready bit.
    pub ready: Signal<Out, bool>,
    /// This cycle's reference word's fresh bit.
    pub fresh: Signal<Out, bool>,
    /// This cycle's reference word's mask.
    pub mask: Signal<Out, Bits<4>>,
    /// The latest reference word's mask (registered).
    pub far_mask: Signal<Out, Bits<4>>,
    /// Latched identity.
    pub far_chip_type: Signal<Out, Bits<8>>,
    /// Latched identity.
    pub far_chip_id: Signal<Out, Bits<16>>,
    /// Latched identity.
    pub far_port: Signal<Out, Bits<8>>,
    /// All four identity words latched since the last restart.
    pub far_known: Signal<Out, bool>,
    mask_reg: DFF<Bits<4>>,
    chip_type: DFF<Bits<8>>,
    chip_id_high: DFF<Bits<8>>,
    chip_id_low: DFF<Bits<8>>,
    port: DFF<Bits<8>>,
    known: DFF<Bits<4>>,
    lane_shift: Vec<Constant<Bits<8>>>,
    lane_bits: Vec<Constant<Bits<4>>>,
    index_lsb: Constant<Bits<8>>,
    fresh_bit: Constant<Bits<8>>,
    ready_bit: Constant<Bits<8>>,
    mask_lsb: Constant<Bits<8>>,
    payload_lsb: Constant<Bits<8>>,
    byte_shift: Constant<Bits<8>>,
    one_lane: Constant<Bits<4>>,
    index_values: Vec<Constant<Bits<2>>>,
    lower: Signal<Local, Bits<4>>,
    first: Signal<Local, Bits<4>>,
    picked: Signal<Local, Bits<32>>,
    index: Signal<Local, Bits<2>>,
    payload: Signal<Local, Bits<8>>,
}

impl Default for FarEnd {
    fn default() -> Self {
        let c8 = |v: usize| Constant::new((v as u64).into());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            words: Default::default(),
            reference: Default::default(),
            restart: Default::default(),
            present: Default::default(),
            ready: Default::default(),
            fresh: Default::default(),
            mask: Default::default(),
            far_mask: Default::default(),
            far_chip_type: Default::default(),
            far_chip_id: Default::default(),
            far_port: Default::default(),
            far_known: Default::default(),
            mask_reg: Default::default(),
            chip_type: Default::default(),
            chip_id_high: Default::default(),
            chip_id_low: Default::default(),
            port: Default::default(),
            known: Default::default(),
            lane_shift: (0..MAX_LANES).map(|n| c8(n * XFR_BITS)).collect(),
            lane_bits: (0..MAX_LANES)
                .map(|n| Constant::new((1u64 << n).into()))
                .collect(),
            index_lsb: c8(TS_INDEX_LSB),
            fresh_bit: c8(TS_FRESH_BIT),
            ready_bit: c8(TS_READY_BIT),
            mask_lsb: c8(TS_MASK_LSB),
            payload_lsb: c8(TS_PAYLOAD_LSB),
            byte_shift: c8(8),
            one_lane: Constant::new(1u64.into()),
            index_values: (0..4u64).map(|i| Constant::new(i.into())).collect(),
            lower: Default::default(),
            first: Default::default(),
            picked: Default::default(),
            index: Default::default(),
            payload: Default::default(),
        }
    }
}

impl Logic for FarEnd {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            mask_reg,
            chip_type,
            chip_id_high,
            chip_id_low,
            port,
            known
        );
        // The lowest set bit of `reference`: `r & !(r - 1)`.
        self.lower.next = self.reference.val() - self.one_lane.val();
        self.first.next = self.reference.val() & !self.lower.val();
        // An OR of the selected lanes' words (one at most), not a priority chain.
        self.picked.next = 0.into();
        for n in 0..MAX_LANES {
            if (self.first.val() & self.lane_bits[n].val()).any() {
                self.picked.next = self.picked.val()
                    | self
                        .words
                        .val()
                        .get_bits::<32>(self.lane_shift[n].val().index());
            }
        }
        self.present.next = self.reference.val().any();
        self.ready.next = self.picked.val().get_bit(self.ready_bit.val().index());
        self.fresh.next = self.picked.val().get_bit(self.fresh_bit.val().index());
        self.mask.next = self.picked.val().get_bits::<4>(self.mask_lsb.val().index());
        self.index.next = self
            .picked
            .val()
            .get_bits::<2>(self.index_lsb.val().index());
        self.payload.next = self
            .picked
            .val()
            .get_bits::<8>(self.payload_lsb.val().index());
        if self.present.val() {
            self.mask_reg.d.next = self.mask.val();
            self.known.d.next = self.known.q.val() | (self.one_lane.val() << self.index.val());
            if self.index.val() == self.index_values[0].val() {
                self.chip_type.d.next = self.payload.val();
            }
            if self.index.val() == self.index_values[1].val() {
                self.chip_id_high.d.next = self.payload.val();
            }
            if self.index.val() == self.index_values[2].val() {
                self.chip_id_low.d.next = self.payload.val();
            }
            if self.index.val() == self.index_values[3].val() {
                self.port.d.next = self.payload.val();
            }
        }
        if self.restart.val() {
            self.known.d.next = 0.into();
        }
        self.far_mask.next = self.mask_reg.q.val();
        self.far_chip_type.next = self.chip_type.q.val();
        self.far_chip_id.next = (bit_cast::<16, 8>(self.chip_id_high.q.val())
            << self.byte_shift.val())
            | bit_cast::<16, 8>(self.chip_id_low.q.val());
        self.far_port.next = self.port.q.val();
        self.far_known.next = self.known.q.val().all();
        if self.reset.val() {
            self.mask_reg.d.next = 0.into();
            self.chip_type.d.next = 0.into();
            self.chip_id_high.d.next = 0.into();
            self.chip_id_low.d.next = 0.into();
            self.port.d.next = 0.into();
            self.known.d.next = 0.into();
        }
    }
}

#[test]
fn far_end_is_synthesizable() {
    let mut uut = FarEnd::default();
    uut.connect_all();
    yosys_validate("far_end", &generate_verilog(&uut)).unwrap();
}
