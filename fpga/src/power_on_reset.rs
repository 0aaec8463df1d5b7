//! Power-on reset of a board top: `reset` is high from configuration until the clock has run
//! 32 cycles, then low for good.
//!
//! FPGAs load every flip-flop with its initial value at configuration, so a counter that starts
//! at zero is a reset source that needs no pin. `running` is a flip-flop of its own (initially
//! low), so the counter's compare stays out of the paths of the logic it resets.
use hdl::prelude::*;

/// Reset for the first 32 cycles after configuration.
#[derive(LogicBlock)]
pub struct PowerOnReset {
    /// The board clock.
    pub clock: Signal<In, Clock>,
    /// High until 32 cycles after configuration.
    pub reset: Signal<Out, bool>,
    count: DFF<Bits<5>>,
    running: DFF<bool>,
    done: Constant<Bits<5>>,
}

impl Default for PowerOnReset {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            count: Default::default(),
            running: Default::default(),
            done: Constant::new(31_u64.into()),
        }
    }
}

impl Logic for PowerOnReset {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, count, running);
        if self.count.q.val() != self.done.val() {
            self.count.d.next = self.count.q.val() + 1_u64;
        }
        self.running.d.next = self.count.q.val() == self.done.val();
        self.reset.next = !self.running.q.val();
    }
}

#[test]
fn power_on_reset_is_synthesizable() {
    let mut uut = PowerOnReset::default();
    uut.connect_all();
    yosys_validate("power_on_reset", &generate_verilog(&uut)).unwrap();
}
