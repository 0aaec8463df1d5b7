//! The VC arbiter's choice of candidate (`arbiter` module doc): the VC holding the link while
//! a packet holds it (with the interleaving mode in force, only while that VC is eligible),
//! else the first eligible VC after the last one served, round robin. Combinational.
use rust_hdl::prelude::*;

/// Candidate VC of the data slot among `vcs` VCs (at most 8).
#[derive(LogicBlock)]
pub struct TxCandidate {
    /// Bit `v`: VC `v` may send now.
    pub eligible: Signal<In, Bits<8>>,
    /// The last VC served.
    pub last_served: Signal<In, Bits<3>>,
    /// A packet holds the link.
    pub locked: Signal<In, bool>,
    /// Its VC.
    pub lock_vc: Signal<In, Bits<3>>,
    /// Interleaving is in force.
    pub in_force: Signal<In, bool>,
    /// The candidate VC.
    pub candidate: Signal<Out, Bits<3>>,
    /// The candidate may send.
    pub ready: Signal<Out, bool>,
    numbers: Vec<Constant<Bits<3>>>,
    found: Signal<Local, bool>,
}

impl TxCandidate {
    /// The choice among `vcs` (1..=8) VCs.
    pub fn new(vcs: usize) -> Self {
        assert!(
            (1..=8).contains(&vcs),
            "TxCandidate: {vcs} VCs is not 1..=8"
        );
        Self {
            eligible: Default::default(),
            last_served: Default::default(),
            locked: Default::default(),
            lock_vc: Default::default(),
            in_force: Default::default(),
            candidate: Default::default(),
            ready: Default::default(),
            numbers: (0..vcs).map(|n| Constant::new((n as u64).into())).collect(),
            found: Default::default(),
        }
    }
}

impl Logic for TxCandidate {
    #[hdl_gen]
    fn update(&mut self) {
        self.found.next = false;
        self.candidate.next = 0.into();
        // (VC 0 is never after `last_served`: the loop starts at 1.)
        for v in 1..self.numbers.len() {
            if !self.found.val()
                & self.eligible.val().get_bit(v)
                & (self.numbers[v].val() > self.last_served.val())
            {
                self.candidate.next = self.numbers[v].val();
                self.found.next = true;
            }
        }
        for v in 0..self.numbers.len() {
            if !self.found.val() & self.eligible.val().get_bit(v) {
                self.candidate.next = self.numbers[v].val();
                self.found.next = true;
            }
        }
        self.ready.next = self.found.val();
        if self.locked.val()
            & (!self.in_force.val() | self.eligible.val().get_bit(self.lock_vc.val().index()))
        {
            self.candidate.next = self.lock_vc.val();
            self.ready.next = self.eligible.val().get_bit(self.lock_vc.val().index());
        }
    }
}

#[test]
fn tx_candidate_is_synthesizable() {
    let mut uut = TxCandidate::new(8);
    uut.connect_all();
    yosys_validate("tx_candidate", &generate_verilog(&uut)).unwrap();
}
