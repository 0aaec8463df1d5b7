//! The Alchitry Cu board top of the demo: pins, power-on reset and LEDs around [`DemoCore`].
//!
//! Only board matters live here (the 100 MHz clock on P7, the eight LEDs): the core is
//! portable. Power-on reset: a counter runs 31 cycles after configuration and a flip-flop
//! `running` (initially low) goes high once it is done; the core is in reset until then.
//! LEDs: 7 = a frame failed its CRC (sticky until reconfiguration); 6..0 = bits 26..20 of the
//! good-frame count (LED 0 toggles about once a second at 100 MHz: a frame every ~85 cycles).
use crate::demo_core::DemoCore;
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
    por: DFF<Bits<5>>,
    /// High once power-on reset is over; a flip-flop, so the counter's compare stays out of the
    /// core's paths (it starts low, so the core is in reset from the first cycle).
    running: DFF<bool>,
    por_done: Constant<Bits<5>>,
}

impl<const D: usize, const AW: usize, const CW: usize> Default for CuDemo<D, AW, CW> {
    fn default() -> Self {
        Self {
            clock: pins::clock(),
            leds: pins::leds(),
            core: DemoCore::default(),
            por: Default::default(),
            running: Default::default(),
            por_done: Constant::new(31_u64.into()),
        }
    }
}

impl<const D: usize, const AW: usize, const CW: usize> Logic for CuDemo<D, AW, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, core);
        dff_setup!(self, clock, por, running);
        if self.por.q.val() != self.por_done.val() {
            self.por.d.next = self.por.q.val() + 1_u64;
        }
        self.running.d.next = self.por.q.val() == self.por_done.val();
        self.core.reset.next = !self.running.q.val();
        self.core.fault.next = false;
        self.leds.next = bit_cast::<8, 7>(self.core.frames_ok.val().get_bits::<7>(20));
        if self.core.frames_bad.val() != 0_u64 {
            self.leds.next =
                bit_cast::<8, 7>(self.core.frames_ok.val().get_bits::<7>(20)) | 0x80_u64;
        }
    }
}
