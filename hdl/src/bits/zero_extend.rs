//! Zero extension (or truncation) as a block: `extended = value` widened with zeros (or cut to
//! its low bits). A wire in the emitted Verilog. It exists because rust-hdl 0.46 cannot write
//! `bit_cast` of a loop-indexed signal (`rust-hdl-guide.md`, "Structuring"): a parent that
//! widens each element of a `Vec` of signals instantiates one of these per element.
//!
//! Parameters: `N` input bits, `M` output bits.
use rust_hdl::prelude::*;

/// `extended` is `value` zero-extended (or truncated) to `M` bits.
#[derive(LogicBlock, Default)]
pub struct ZeroExtend<const N: usize, const M: usize> {
    /// The value.
    pub value: Signal<In, Bits<N>>,
    /// The value in `M` bits.
    pub extended: Signal<Out, Bits<M>>,
}

impl<const N: usize, const M: usize> Logic for ZeroExtend<N, M> {
    #[hdl_gen]
    fn update(&mut self) {
        self.extended.next = bit_cast::<M, N>(self.value.val());
    }
}

#[test]
fn zero_extend_is_synthesizable() {
    let mut uut = ZeroExtend::<9, 64>::default();
    uut.connect_all();
    yosys_validate("zero_extend", &generate_verilog(&uut)).unwrap();
}
