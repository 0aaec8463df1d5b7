//! The Alchitry Cu board top of the demo: pins, power-on reset and LEDs around [`DemoCore`].
//!
//! Only board matters live here (the 100 MHz clock on P7, the eight LEDs): the core is
//! portable. LEDs: 7 = a frame failed its CRC (sticky until reconfiguration); 6..0 = bits
//! 26..20 of the good-frame count (LED 0 toggles about once a second at 100 MHz: a frame every
//! ~85 cycles).
use crate::demo_core::DemoCore;
use crate::power_on_reset::PowerOnReset;
use hdl::prelude::*;
use rust_hdl_bsp_alchitry_cu::pins;

/// Demo board top; `D`, `AW`, `CW` size the core's FIFO.
#[derive(LogicBlock)]
pub struct CuDemo<const D: usize, const AW: usize, const CW: usize> {
    /// 100 MHz board clock (pin P7).
    pub clock: Signal<In, Clock>,
    /// The eight LEDs.
    pub leds: Signal<Out, Bits<8>>,
    core: DemoCore<D, AW, CW>,
    power_on: PowerOnReset,
}

impl<const D: usize, const AW: usize, const CW: usize> Default for CuDemo<D, AW, CW> {
    fn default() -> Self {
        Self {
            clock: pins::clock(),
            leds: pins::leds(),
            core: DemoCore::default(),
            power_on: PowerOnReset::default(),
        }
    }
}

impl<const D: usize, const AW: usize, const CW: usize> Logic for CuDemo<D, AW, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, core, power_on);
        self.core.reset.next = self.power_on.reset.val();
        self.core.fault.next = false;
        self.leds.next = bit_cast::<8, 7>(self.core.frames_ok.val().get_bits::<7>(20));
        if self.core.frames_bad.val() != 0_u64 {
            self.leds.next =
                bit_cast::<8, 7>(self.core.frames_ok.val().get_bits::<7>(20)) | 0x80_u64;
        }
    }
}
