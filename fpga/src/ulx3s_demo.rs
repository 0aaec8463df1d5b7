//! The ULX3S 85F board top of the demo (Lattice LFE5U-85F, CABGA381): pins, power-on reset and
//! LEDs around the same portable [`DemoCore`] as the Alchitry Cu's.
//!
//! Board matters only: the 25 MHz oscillator on G2 and the eight LEDs (B2, C2, C1, D2, D1, E2,
//! E1, H3), all LVCMOS33, as in the board's published constraint file. LEDs: 7 = a frame
//! failed its CRC (sticky until reconfiguration); 6..0 = bits 24..18 of the good-frame count
//! (LED 0 toggles about once a second at 25 MHz).
use crate::demo_core::DemoCore;
use crate::power_on_reset::PowerOnReset;
use hdl::prelude::*;

/// The board's oscillator, MHz.
pub const CLOCK_MHZ: u32 = 25;
/// The oscillator's pin.
pub const CLOCK_PIN: &str = "G2";
/// The eight LEDs' pins, LED 0 first.
pub const LED_PINS: [&str; 8] = ["B2", "C2", "C1", "D2", "D1", "E2", "E1", "H3"];

/// Demo board top; `D`, `AW`, `CW` size the core's FIFO.
#[derive(LogicBlock)]
pub struct Ulx3sDemo<const D: usize, const AW: usize, const CW: usize> {
    /// 25 MHz board clock (pin G2).
    pub clock: Signal<In, Clock>,
    /// The eight LEDs.
    pub leds: Signal<Out, Bits<8>>,
    core: DemoCore<D, AW, CW>,
    power_on: PowerOnReset,
}

impl<const D: usize, const AW: usize, const CW: usize> Default for Ulx3sDemo<D, AW, CW> {
    fn default() -> Self {
        let mut clock = Signal::<In, Clock>::default();
        clock.add_location(0, CLOCK_PIN);
        clock.add_signal_type(0, SignalType::LowVoltageCMOS_3v3);
        let mut leds = Signal::<Out, Bits<8>>::default();
        for (i, pad) in LED_PINS.iter().enumerate() {
            leds.add_location(i, pad);
            leds.add_signal_type(i, SignalType::LowVoltageCMOS_3v3);
        }
        Self {
            clock,
            leds,
            core: DemoCore::default(),
            power_on: PowerOnReset::default(),
        }
    }
}

impl<const D: usize, const AW: usize, const CW: usize> Logic for Ulx3sDemo<D, AW, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, core, power_on);
        self.core.reset.next = self.power_on.reset.val();
        self.core.fault.next = false;
        self.leds.next = bit_cast::<8, 7>(self.core.frames_ok.val().get_bits::<7>(18));
        if self.core.frames_bad.val() != 0_u64 {
            self.leds.next =
                bit_cast::<8, 7>(self.core.frames_ok.val().get_bits::<7>(18)) | 0x80_u64;
        }
    }
}
