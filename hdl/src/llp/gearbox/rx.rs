//! `RxGearbox`: the wire's lanes to XFRs (framing in [`super`]).
//!
//! At 32-bit lanes a wire. At 16-bit lanes each lane pairs its transfers on its own: a valid
//! transfer with `start` high while the lane holds nothing is a first half (kept); the next
//! transfer completes the XFR if it is valid (its `start` is the XFR's), and is dropped with
//! the kept half if not. The completed XFR leaves in the cycle of its second half (no
//! register on the way: latency zero), so a beat that left the far end's gearbox together
//! arrives together, and a lane that lost a transfer shows as missing in that beat.
//!
//! Reset (synchronous): no lane holds a half.
use crate::llp::lane_channel::{LaneChannelOut, WireLanesIn, MAX_LANES};
use rust_hdl::prelude::*;

/// The receive lane gearbox of a wire with `LD / 4`-bit lanes (`LD` 64 or 128).
#[derive(LogicBlock)]
pub struct RxGearbox<const LD: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// From the wire.
    pub lanes: WireLanesIn<LD>,
    /// XFRs as they complete, one beat per cycle at most.
    pub xfrs: LaneChannelOut,
    narrow: Constant<bool>,
    /// Per lane: a first half is held.
    holding: DFF<Bits<4>>,
    /// Per lane: the first half held, at bits `16n`.
    lower: DFF<Bits<64>>,
    half_shift: Vec<Constant<Bits<8>>>,
    xfr_shift: Vec<Constant<Bits<8>>>,
    halves: Signal<Local, Bits<64>>,
    lane_half: Signal<Local, Bits<16>>,
    lane_lower: Signal<Local, Bits<16>>,
    lane_xfr: Signal<Local, Bits<32>>,
    data_acc: Signal<Local, Bits<128>>,
    complete: Signal<Local, Bits<4>>,
    first_half: Signal<Local, Bits<4>>,
}

impl<const LD: usize> Default for RxGearbox<LD> {
    fn default() -> Self {
        assert!(
            LD == 64 || LD == 128,
            "RxGearbox: {LD} wire bits is not 4 lanes of 16 or 32"
        );
        let c8 = |v: usize| Constant::new((v as u64).into());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            lanes: Default::default(),
            xfrs: Default::default(),
            narrow: Constant::new(LD == MAX_LANES * super::HALF_BITS),
            holding: Default::default(),
            lower: Default::default(),
            half_shift: (0..MAX_LANES).map(|n| c8(16 * n)).collect(),
            xfr_shift: (0..MAX_LANES).map(|n| c8(32 * n)).collect(),
            halves: Default::default(),
            lane_half: Default::default(),
            lane_lower: Default::default(),
            lane_xfr: Default::default(),
            data_acc: Default::default(),
            complete: Default::default(),
            first_half: Default::default(),
        }
    }
}

impl<const LD: usize> Logic for RxGearbox<LD> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, holding, lower);
        self.halves.next = bit_cast::<64, LD>(self.lanes.data.val());
        // A held half completes with any valid transfer; a free lane keeps a framed one.
        self.complete.next = self.holding.q.val() & self.lanes.valid.val();
        self.first_half.next =
            !self.holding.q.val() & self.lanes.valid.val() & self.lanes.start.val();
        self.data_acc.next = 0.into();
        for n in 0..4 {
            self.lane_half.next = self
                .halves
                .val()
                .get_bits::<16>(self.half_shift[n].val().index());
            self.lane_lower.next = self
                .lower
                .q
                .val()
                .get_bits::<16>(self.half_shift[n].val().index());
            self.lane_xfr.next = (bit_cast::<32, 16>(self.lane_half.val()) << 16)
                | bit_cast::<32, 16>(self.lane_lower.val());
            self.data_acc.next = self.data_acc.val()
                | (bit_cast::<128, 32>(self.lane_xfr.val()) << self.xfr_shift[n].val());
        }
        self.xfrs.valid.next = self.lanes.valid.val();
        self.xfrs.start.next = self.lanes.start.val();
        self.xfrs.data.next = bit_cast::<128, LD>(self.lanes.data.val());
        if self.narrow.val() {
            self.xfrs.valid.next = self.complete.val();
            self.xfrs.start.next = self.complete.val() & self.lanes.start.val();
            self.xfrs.data.next = self.data_acc.val();
            self.holding.d.next = self.first_half.val();
            // Every lane keeps this cycle's half: a lane holding one next cycle is a lane
            // whose first half this is, and the others do not read theirs.
            self.lower.d.next = self.halves.val();
        }
        if self.reset.val() {
            self.holding.d.next = 0.into();
        }
    }
}

#[test]
fn rx_gearbox_is_synthesizable() {
    let mut uut = RxGearbox::<64>::default();
    uut.connect_all();
    yosys_validate("rx_gearbox", &generate_verilog(&uut)).unwrap();
}
