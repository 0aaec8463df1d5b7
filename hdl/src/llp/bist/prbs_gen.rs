//! `PrbsGen`: one lane's PRBS-31 sender. `word` is the current pattern word; it moves to the
//! next on every edge where `advance` is high (the cycle's word was sent). `reset` loads the
//! lane's seed ([`lane_seed`](super::lane_seed)), so every run of a BIST starts the same.
//!
//! Parameter: the seed (non-zero in bits 31..1, else the pattern would stay zero).
use super::prbs_step::PrbsStep;
use rust_hdl::prelude::*;

/// One lane's pattern generator.
#[derive(LogicBlock)]
pub struct PrbsGen {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: load the seed.
    pub reset: Signal<In, bool>,
    /// `word` was sent: step on this edge.
    pub advance: Signal<In, bool>,
    /// The word to send.
    pub word: Signal<Out, Bits<32>>,
    step: PrbsStep,
    state: DFF<Bits<32>>,
    seed: Constant<Bits<32>>,
}

impl PrbsGen {
    /// A generator starting at `seed`.
    pub fn new(seed: u32) -> Self {
        assert!(
            seed >> 1 != 0,
            "PrbsGen: seed {seed:#x} has bits 31..1 zero, the pattern would stay zero"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            advance: Default::default(),
            word: Default::default(),
            step: Default::default(),
            state: Default::default(),
            seed: Constant::new((seed as u64).into()),
        }
    }
}

impl Logic for PrbsGen {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state);
        self.step.word.next = self.state.q.val();
        self.word.next = self.state.q.val();
        if self.advance.val() {
            self.state.d.next = self.step.following.val();
        }
        if self.reset.val() {
            self.state.d.next = self.seed.val();
        }
    }
}

#[test]
fn prbs_gen_is_synthesizable() {
    let mut uut = PrbsGen::new(super::lane_seed(0));
    uut.connect_all();
    yosys_validate("prbs_gen", &generate_verilog(&uut)).unwrap();
}
