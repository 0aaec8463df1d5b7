//! `TxGearbox`: XFR beats to the wire's lanes (framing in [`super`]).
//!
//! At 32-bit lanes a wire: `lanes` is `xfrs`, `slot` is high. At 16-bit lanes: in a cycle with
//! `slot` high the gearbox takes the beat on `xfrs` and sends each valid lane's first half
//! (`start` high) at once; if any lane was valid, the next cycle sends the second halves
//! (from registers, `start` the XFR's) with `slot` low, so a beat offered then is not taken.
//! Latency zero; one beat per two cycles at most.
//!
//! Reset (synchronous): no second half pending.
use crate::llp::lane_channel::{LaneChannelIn, WireLanesOut, MAX_LANES};
use rust_hdl::prelude::*;

/// The transmit lane gearbox of a wire with `LD / 4`-bit lanes (`LD` 64 or 128).
#[derive(LogicBlock)]
pub struct TxGearbox<const LD: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// A beat of XFRs, taken in cycles with `slot` high.
    pub xfrs: LaneChannelIn,
    /// To the wire.
    pub lanes: WireLanesOut<LD>,
    /// This cycle's beat on `xfrs` is taken (always at 32-bit lanes).
    pub slot: Signal<Out, bool>,
    narrow: Constant<bool>,
    second: DFF<bool>,
    upper_valid: DFF<Bits<4>>,
    upper_start: DFF<Bits<4>>,
    upper_data: DFF<Bits<64>>,
    lower_halves: Signal<Local, Bits<64>>,
    upper_halves: Signal<Local, Bits<64>>,
}

impl<const LD: usize> Default for TxGearbox<LD> {
    fn default() -> Self {
        assert!(
            LD == 64 || LD == 128,
            "TxGearbox: {LD} wire bits is not 4 lanes of 16 or 32"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            xfrs: Default::default(),
            lanes: Default::default(),
            slot: Default::default(),
            narrow: Constant::new(LD == MAX_LANES * super::HALF_BITS),
            second: Default::default(),
            upper_valid: Default::default(),
            upper_start: Default::default(),
            upper_data: Default::default(),
            lower_halves: Default::default(),
            upper_halves: Default::default(),
        }
    }
}

impl<const LD: usize> Logic for TxGearbox<LD> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, second, upper_valid, upper_start, upper_data);
        // Lane n's halves: XFR bits 32n + 15 .. 32n and 32n + 31 .. 32n + 16, to 16n.
        self.lower_halves.next = (bit_cast::<64, 16>(self.xfrs.data.val().get_bits::<16>(96))
            << 48)
            | (bit_cast::<64, 16>(self.xfrs.data.val().get_bits::<16>(64)) << 32)
            | (bit_cast::<64, 16>(self.xfrs.data.val().get_bits::<16>(32)) << 16)
            | bit_cast::<64, 16>(self.xfrs.data.val().get_bits::<16>(0));
        self.upper_halves.next = (bit_cast::<64, 16>(self.xfrs.data.val().get_bits::<16>(112))
            << 48)
            | (bit_cast::<64, 16>(self.xfrs.data.val().get_bits::<16>(80)) << 32)
            | (bit_cast::<64, 16>(self.xfrs.data.val().get_bits::<16>(48)) << 16)
            | bit_cast::<64, 16>(self.xfrs.data.val().get_bits::<16>(16));
        self.slot.next = true;
        self.lanes.valid.next = self.xfrs.valid.val();
        self.lanes.start.next = self.xfrs.start.val();
        self.lanes.data.next = bit_cast::<LD, 128>(self.xfrs.data.val());
        if self.narrow.val() {
            self.slot.next = !self.second.q.val();
            if self.second.q.val() {
                self.lanes.valid.next = self.upper_valid.q.val();
                self.lanes.start.next = self.upper_start.q.val();
                self.lanes.data.next = bit_cast::<LD, 64>(self.upper_data.q.val());
                self.second.d.next = false;
            } else {
                self.lanes.start.next = self.xfrs.valid.val();
                self.lanes.data.next = bit_cast::<LD, 64>(self.lower_halves.val());
                self.second.d.next = self.xfrs.valid.val().any();
                self.upper_valid.d.next = self.xfrs.valid.val();
                self.upper_start.d.next = self.xfrs.start.val() & self.xfrs.valid.val();
                self.upper_data.d.next = self.upper_halves.val();
            }
        }
        if self.reset.val() {
            self.second.d.next = false;
        }
    }
}

#[test]
fn tx_gearbox_is_synthesizable() {
    let mut uut = TxGearbox::<64>::default();
    uut.connect_all();
    yosys_validate("tx_gearbox", &generate_verilog(&uut)).unwrap();
}
