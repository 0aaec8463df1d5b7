//! 32-bit Galois LFSR: a cheap pseudo-random word source for self-checking hardware (the FPGA
//! demo's traffic and backpressure) and for scramblers.
//!
//! Taps 0x80200003 (x^32 + x^22 + x^2 + x + 1, maximal length): `value` steps through all
//! 2^32 - 1 non-zero states. The state moves one step on every edge where `advance` is high;
//! `reset` reloads the seed (which must not be zero: the all-zero state is a fixed point).
//! The power-up state (every flip-flop 0) is that fixed point, so the LFSR must see one reset
//! before use (the board tops hold reset after configuration with their `PowerOnReset`).
use rust_hdl::prelude::*;

/// The feedback taps, applied when the bit shifted out is one.
pub const LFSR32_TAPS: u32 = 0x8020_0003;

/// One step of the LFSR in software (the reference model).
pub fn lfsr32_step(s: u32) -> u32 {
    if s & 1 == 1 {
        (s >> 1) ^ LFSR32_TAPS
    } else {
        s >> 1
    }
}

/// A 32-bit Galois LFSR.
#[derive(LogicBlock)]
pub struct Lfsr32 {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: reload the seed.
    pub reset: Signal<In, bool>,
    /// Step on this edge.
    pub advance: Signal<In, bool>,
    /// Current state.
    pub value: Signal<Out, Bits<32>>,
    state: DFF<Bits<32>>,
    seed: Constant<Bits<32>>,
    taps: Constant<Bits<32>>,
}

impl Lfsr32 {
    /// An LFSR starting at `seed` (non-zero).
    pub fn new(seed: u32) -> Self {
        assert!(
            seed != 0,
            "Lfsr32 seed must not be zero: the all-zero state never leaves zero"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            advance: Default::default(),
            value: Default::default(),
            state: DFF::default(),
            seed: Constant::new(Bits::from(seed as u64)),
            taps: Constant::new(Bits::from(LFSR32_TAPS as u64)),
        }
    }
}

impl Logic for Lfsr32 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state);
        self.value.next = self.state.q.val();
        if self.advance.val() {
            if self.state.q.val().get_bit(0) {
                self.state.d.next = (self.state.q.val() >> 1) ^ self.taps.val();
            } else {
                self.state.d.next = self.state.q.val() >> 1;
            }
        }
        if self.reset.val() {
            self.state.d.next = self.seed.val();
        }
    }
}

#[test]
fn lfsr32_is_synthesizable() {
    let mut uut = Lfsr32::new(1);
    uut.connect_all();
    yosys_validate("lfsr32", &generate_verilog(&uut)).unwrap();
}
