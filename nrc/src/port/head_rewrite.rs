//! `HeadRewrite`: a flit leaving the input port, with a head's fields rewritten for the next
//! hop: `vc` = the output VC, `delay` = its arrival delay plus the cycles it spent in this
//! router (from the stamp [`ArrivalStamp`](super::ArrivalStamp) wrote, saturating at 4095),
//! the reserved bits zero again. Bodies, tails and TailBadPkt flits pass unchanged.
//!
//! Combinational. `now` is the cycle counter in the cycle the flit leaves the input port;
//! the delay counts one more cycle, the switch's output register (head in at `c`, on the
//! output channel at `c + 2` at zero load: `delay + 2`). Parameters: `VCB` bits of `out_vc`.
use super::arrival_stamp::{DELAY_BITS, STAMP_BITS};
use hdl::formats::flit::{HEAD_BIT, TYPE_BIT};
use hdl::formats::header::{DELAY, VC};
use hdl::formats::FLIT_BITS;
use rust_hdl::prelude::*;

/// Bits of the header's `vc` field (`hdl::formats::header::VC`; a test checks).
pub const VC_BITS: usize = 3;

/// The outgoing head rewrite; see the module documentation.
#[derive(LogicBlock)]
pub struct HeadRewrite<const VCB: usize> {
    /// The flit as stored (a head carries its arrival stamp).
    pub flit: Signal<In, Bits<FLIT_BITS>>,
    /// The VC it leaves on.
    pub out_vc: Signal<In, Bits<VCB>>,
    /// The free-running cycle counter.
    pub now: Signal<In, Bits<STAMP_BITS>>,
    /// The flit as it leaves.
    pub rewritten: Signal<Out, Bits<FLIT_BITS>>,
    /// Cycles from the stamp to the output channel, plus the old delay (modulo 2^15).
    total: Signal<Local, Bits<STAMP_BITS>>,
    delay: Signal<Local, Bits<DELAY_BITS>>,
    next_cycle: Signal<Local, Bits<STAMP_BITS>>,
    cleared: Signal<Local, Bits<FLIT_BITS>>,
    fields_mask: Constant<Bits<FLIT_BITS>>,
    delay_max: Constant<Bits<STAMP_BITS>>,
    delay_lsb: Constant<Bits<7>>,
    vc_lsb: Constant<Bits<7>>,
    type_bit: Constant<Bits<7>>,
    head_bit: Constant<Bits<7>>,
}

impl<const VCB: usize> HeadRewrite<VCB> {
    /// The rewrite.
    pub fn new() -> Self {
        assert_eq!(VC.width, VC_BITS, "the vc field's width");
        assert!(
            VCB <= VC_BITS,
            "HeadRewrite: VCB ({VCB}) wider than the header's vc field"
        );
        // The stamp field (delay and reserved bits) and the vc field.
        let mask =
            (((1u128 << STAMP_BITS) - 1) << DELAY.lsb) | (((1u128 << VC.width) - 1) << VC.lsb);
        Self {
            flit: Default::default(),
            out_vc: Default::default(),
            now: Default::default(),
            rewritten: Default::default(),
            total: Default::default(),
            delay: Default::default(),
            next_cycle: Default::default(),
            cleared: Default::default(),
            fields_mask: Constant::new(Bits::<FLIT_BITS>::from(mask as u64)),
            delay_max: Constant::new(((1u64 << DELAY.width) - 1).into()),
            delay_lsb: Constant::new((DELAY.lsb as u64).into()),
            vc_lsb: Constant::new((VC.lsb as u64).into()),
            type_bit: Constant::new((TYPE_BIT as u64).into()),
            head_bit: Constant::new((HEAD_BIT as u64).into()),
        }
    }
}

impl<const VCB: usize> Default for HeadRewrite<VCB> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const VCB: usize> Logic for HeadRewrite<VCB> {
    #[hdl_gen]
    fn update(&mut self) {
        // A same-width signal first: `now + 1` must wrap at 15 bits in Verilog too.
        self.next_cycle.next = self.now.val() + 1;
        self.total.next = self.next_cycle.val()
            - self
                .flit
                .val()
                .get_bits::<STAMP_BITS>(self.delay_lsb.val().index());
        self.delay.next = self.total.val().get_bits::<DELAY_BITS>(0);
        if self.total.val() > self.delay_max.val() {
            self.delay.next = self.delay_max.val().get_bits::<DELAY_BITS>(0);
        }
        self.cleared.next = self.flit.val() & !self.fields_mask.val();
        self.rewritten.next = self.flit.val();
        if !self.flit.val().get_bit(self.type_bit.val().index())
            & self.flit.val().get_bit(self.head_bit.val().index())
        {
            self.rewritten.next = self.cleared.val()
                | (bit_cast::<FLIT_BITS, DELAY_BITS>(self.delay.val()) << self.delay_lsb.val())
                | (bit_cast::<FLIT_BITS, VCB>(self.out_vc.val()) << self.vc_lsb.val());
        }
    }
}

#[test]
fn head_rewrite_is_synthesizable() {
    let mut uut = HeadRewrite::<2>::new();
    uut.connect_all();
    yosys_validate("head_rewrite", &generate_verilog(&uut)).unwrap();
}
