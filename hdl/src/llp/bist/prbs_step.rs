//! `PrbsStep`: the PRBS-31 word that follows a word (combinational), as
//! [`prbs31_next`](super::prbs31_next) defines it: `low = (w >> 1) ^ (w >> 4)`, then
//! `low ^ (low << 28) ^ (low << 31)` supplies the four bits whose taps lie in the new word
//! itself. One block for sender and checker, so the two cannot disagree.
use rust_hdl::prelude::*;

/// The next word of the pattern.
#[derive(LogicBlock)]
pub struct PrbsStep {
    /// A pattern word.
    pub word: Signal<In, Bits<32>>,
    /// The word that follows it.
    pub following: Signal<Out, Bits<32>>,
    low: Signal<Local, Bits<32>>,
    one: Constant<Bits<8>>,
    four: Constant<Bits<8>>,
    twenty_eight: Constant<Bits<8>>,
    thirty_one: Constant<Bits<8>>,
}

impl Default for PrbsStep {
    fn default() -> Self {
        let c = |v: u64| Constant::new(Bits::<8>::from(v));
        Self {
            word: Default::default(),
            following: Default::default(),
            low: Default::default(),
            one: c(1),
            four: c(4),
            twenty_eight: c(28),
            thirty_one: c(31),
        }
    }
}

impl Logic for PrbsStep {
    #[hdl_gen]
    fn update(&mut self) {
        self.low.next = (self.word.val() >> self.one.val()) ^ (self.word.val() >> self.four.val());
        self.following.next = self.low.val()
            ^ (self.low.val() << self.twenty_eight.val())
            ^ (self.low.val() << self.thirty_one.val());
    }
}

#[test]
fn prbs_step_is_synthesizable() {
    let mut uut = PrbsStep::default();
    uut.connect_all();
    yosys_validate("prbs_step", &generate_verilog(&uut)).unwrap();
}
