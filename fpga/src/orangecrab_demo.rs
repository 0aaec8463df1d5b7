//! The OrangeCrab 85F board top of the demo (Lattice LFE5U-85F, CSFBGA285): pins, power-on
//! reset and the RGB LED around the same portable [`DemoCore`].
//!
//! Board matters only: the 48 MHz oscillator on A9 and the RGB LED (red K4, green M3, blue
//! J3, lit when low), all LVCMOS33, as in the board's published constraint file. Red = a
//! frame failed its CRC (sticky until reconfiguration); green = bit 25 of the good-frame count
//! (toggles about once a second at 48 MHz); blue = bit 24.
use crate::demo_core::DemoCore;
use crate::power_on_reset::PowerOnReset;
use hdl::prelude::*;

/// The board's oscillator, MHz.
pub const CLOCK_MHZ: u32 = 48;
/// The oscillator's pin.
pub const CLOCK_PIN: &str = "A9";
/// The RGB LED's pins: red, green, blue.
pub const LED_PINS: [&str; 3] = ["K4", "M3", "J3"];

/// Demo board top; `D`, `AW`, `CW` size the core's FIFO.
#[derive(LogicBlock)]
pub struct OrangeCrabDemo<const D: usize, const AW: usize, const CW: usize> {
    /// 48 MHz board clock (pin A9).
    pub clock: Signal<In, Clock>,
    /// The RGB LED, red in bit 0; a low bit lights its colour.
    pub rgb_n: Signal<Out, Bits<3>>,
    core: DemoCore<D, AW, CW>,
    power_on: PowerOnReset,
}

impl<const D: usize, const AW: usize, const CW: usize> Default for OrangeCrabDemo<D, AW, CW> {
    fn default() -> Self {
        let mut clock = Signal::<In, Clock>::default();
        clock.add_location(0, CLOCK_PIN);
        clock.add_signal_type(0, SignalType::LowVoltageCMOS_3v3);
        let mut rgb_n = Signal::<Out, Bits<3>>::default();
        for (i, pad) in LED_PINS.iter().enumerate() {
            rgb_n.add_location(i, pad);
            rgb_n.add_signal_type(i, SignalType::LowVoltageCMOS_3v3);
        }
        Self {
            clock,
            rgb_n,
            core: DemoCore::default(),
            power_on: PowerOnReset::default(),
        }
    }
}

impl<const D: usize, const AW: usize, const CW: usize> Logic for OrangeCrabDemo<D, AW, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, core, power_on);
        self.core.reset.next = self.power_on.reset.val();
        self.core.fault.next = false;
        // Active low: bit 0 red (a CRC failure), bit 1 green, bit 2 blue.
        self.rgb_n.next = !(bit_cast::<3, 2>(self.core.frames_ok.val().get_bits::<2>(24)) << 1);
        if self.core.frames_bad.val() != 0_u64 {
            self.rgb_n.next =
                !((bit_cast::<3, 2>(self.core.frames_ok.val().get_bits::<2>(24)) << 1) | 1_u64);
        }
    }
}
