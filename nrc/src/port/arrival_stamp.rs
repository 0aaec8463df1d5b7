//! `ArrivalStamp`: the router channel passed through, with every head's `delay` field (and the
//! reserved bits above it) replaced by its arrival *stamp*, so the input port can add the exact
//! time the head spends in the router when it leaves ([`HeadRewrite`](super::HeadRewrite)).
//!
//! **Why a stamp in the flit.** A head may wait behind other packets in the DAMQ's RAM for an
//! unbounded time; keeping its arrival time beside it would need a second per-VC queue. The
//! header has room instead: `delay` (12 bits) and the 3 reserved bits above it form one
//! 15-bit field, [`STAMP_BITS`]. On arrival in cycle `c` it becomes `stamp = now(c) - delay`
//! (modulo 2^15, `now` a free-running cycle counter); when the head leaves in cycle `g` the
//! rewrite writes `delay = min(4095, now(g) + 1 - stamp)` = the old delay plus `g + 1 - c`
//! (the cycles from the input channel to the output channel: the switch registers the head)
//! and zeroes the reserved bits again. Exact while the old delay plus the time in the router
//! stays below 2^15 cycles; a head held longer (a VC blocked for over 28 000 cycles) would
//! leave with its delay modulo 2^15.
//!
//! Combinational; bodies, tails and control flits pass unchanged; `credits` pass back.
//! Parameters: `VCS`, `VCB` as the channel.
use hdl::channel::{ChannelSink, ChannelSource};
use hdl::formats::flit::{HEAD_BIT, TYPE_BIT};
use hdl::formats::header::{DELAY, RSVD};
use hdl::formats::FLIT_BITS;
use rust_hdl::prelude::*;

/// Bits of the stamp: the header's `delay` field and the reserved bits above it.
pub const STAMP_BITS: usize = 15;
/// Bits of the header's `delay` field (`hdl::formats::header::DELAY`; a test checks).
pub const DELAY_BITS: usize = 12;

/// The channel with each head's arrival stamp written in; see the module documentation.
#[derive(LogicBlock)]
pub struct ArrivalStamp<const VCS: usize, const VCB: usize> {
    /// From the link layer.
    pub inbound: ChannelSink<VCS, VCB>,
    /// To the DAMQ.
    pub outbound: ChannelSource<VCS, VCB>,
    /// The free-running cycle counter.
    pub now: Signal<In, Bits<STAMP_BITS>>,
    delay: Signal<Local, Bits<DELAY_BITS>>,
    /// The arrival stamp (`now - delay`).
    base: Signal<Local, Bits<STAMP_BITS>>,
    /// The flit without its stamp field.
    cleared: Signal<Local, Bits<FLIT_BITS>>,
    field_mask: Constant<Bits<FLIT_BITS>>,
    delay_lsb: Constant<Bits<7>>,
    type_bit: Constant<Bits<7>>,
    head_bit: Constant<Bits<7>>,
}

impl<const VCS: usize, const VCB: usize> ArrivalStamp<VCS, VCB> {
    /// The stage.
    pub fn new() -> Self {
        assert_eq!(DELAY.width, DELAY_BITS, "the delay field's width");
        assert_eq!(
            RSVD.lsb,
            DELAY.lsb + DELAY.width,
            "reserved bits above delay"
        );
        assert_eq!(DELAY.width + RSVD.width, STAMP_BITS, "the stamp's width");
        let mask = ((1u128 << STAMP_BITS) - 1) << DELAY.lsb;
        Self {
            inbound: Default::default(),
            outbound: Default::default(),
            now: Default::default(),
            delay: Default::default(),
            base: Default::default(),
            cleared: Default::default(),
            field_mask: Constant::new(Bits::<FLIT_BITS>::from(mask as u64)),
            delay_lsb: Constant::new((DELAY.lsb as u64).into()),
            type_bit: Constant::new((TYPE_BIT as u64).into()),
            head_bit: Constant::new((HEAD_BIT as u64).into()),
        }
    }
}

impl<const VCS: usize, const VCB: usize> Default for ArrivalStamp<VCS, VCB> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const VCS: usize, const VCB: usize> Logic for ArrivalStamp<VCS, VCB> {
    #[hdl_gen]
    fn update(&mut self) {
        self.outbound.valid.next = self.inbound.valid.val();
        self.outbound.vc.next = self.inbound.vc.val();
        self.inbound.credits.next = self.outbound.credits.val();
        self.delay.next = self
            .inbound
            .flit
            .val()
            .get_bits::<DELAY_BITS>(self.delay_lsb.val().index());
        self.base.next = self.now.val() - bit_cast::<STAMP_BITS, DELAY_BITS>(self.delay.val());
        self.cleared.next = self.inbound.flit.val() & !self.field_mask.val();
        self.outbound.flit.next = self.inbound.flit.val();
        if !self.inbound.flit.val().get_bit(self.type_bit.val().index())
            & self.inbound.flit.val().get_bit(self.head_bit.val().index())
        {
            self.outbound.flit.next = self.cleared.val()
                | (bit_cast::<FLIT_BITS, STAMP_BITS>(self.base.val()) << self.delay_lsb.val());
        }
    }
}

#[test]
fn arrival_stamp_is_synthesizable() {
    let mut uut = ArrivalStamp::<3, 2>::new();
    uut.connect_all();
    yosys_validate("arrival_stamp", &generate_verilog(&uut)).unwrap();
}
