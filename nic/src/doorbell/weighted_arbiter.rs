//! Weighted round-robin arbiter over up to 8 requesters (the functions' doorbell FIFOs).
//!
//! Round robin (`weighted` low): the grant goes to the first requester at or after the
//! pointer, cyclically; the pointer moves to just after the granted requester on an edge where
//! the grant is used (`advance`), so a grant that waits is not lost and, under persistent
//! requests, each requester is served once per `N` grants.
//!
//! Weighted (`weighted` high): a requester, once granted, keeps the grant for up to
//! `weights[i]` uses in a row (a weight of 0 counts as 1) while it still requests; then the
//! round robin moves on. Under persistent requests requester `i` gets `w_i / sum(w)` of the
//! grants. A burst ends early when its requester stops requesting (an empty FIFO never holds
//! the others up) or when `weighted` falls.
//!
//! The grant is combinational from `requests`, the pointer and the burst state (all
//! flip-flops): `valid` says a grant is offered, `grant` is its index (0 when none).
//!
//! Reset (synchronous): pointer to requester 0, no burst.
//!
//! Parameters (elaboration): `N` requesters, 1..=8.
use super::MAX_FUNCTIONS;
use crate::regs::WEIGHT_BITS;
use hdl::formats::nic::FUNCTION_BITS;
use rust_hdl::prelude::*;

/// Weighted round-robin arbiter; see the module documentation.
#[derive(LogicBlock)]
pub struct WeightedArbiter {
    /// Clock of the pointer and the burst state.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: pointer to 0, no burst.
    pub reset: Signal<In, bool>,
    /// Per requester: it asks.
    pub requests: Vec<Signal<In, bool>>,
    /// The offered grant is used on this edge (ignored without `valid`).
    pub advance: Signal<In, bool>,
    /// Weighted round robin (else plain round robin).
    pub weighted: Signal<In, bool>,
    /// Per requester: uses in a row when weighted (0 counts as 1).
    pub weights: Vec<Signal<In, Bits<WEIGHT_BITS>>>,
    /// A grant is offered.
    pub valid: Signal<Out, bool>,
    /// The granted requester (0 when none).
    pub grant: Signal<Out, Bits<FUNCTION_BITS>>,
    /// The round robin's first candidate.
    pointer: DFF<Bits<FUNCTION_BITS>>,
    /// The requester of the current burst.
    holder: DFF<Bits<FUNCTION_BITS>>,
    /// A burst is running.
    holding: DFF<bool>,
    /// Uses of the current burst so far.
    served: DFF<Bits<WEIGHT_BITS>>,
    /// Requester numbers.
    ids: Vec<Constant<Bits<FUNCTION_BITS>>>,
    /// Per pointer value `p`: the requesters at or after it (bits `p..N`).
    upper_masks: Vec<Constant<Bits<MAX_FUNCTIONS>>>,
    /// `upper_masks` of the pointer.
    upper_mask: Signal<Local, Bits<MAX_FUNCTIONS>>,
    /// Someone requests; someone at or after the pointer requests.
    any: Signal<Local, bool>,
    any_upper: Signal<Local, bool>,
    /// The lowest requester, and the lowest at or after the pointer.
    lowest: Signal<Local, Bits<FUNCTION_BITS>>,
    lowest_upper: Signal<Local, Bits<FUNCTION_BITS>>,
    /// The holder's weight, at least 1.
    weight: Signal<Local, Bits<WEIGHT_BITS>>,
    /// The holder still requests.
    holder_asks: Signal<Local, bool>,
    /// The burst goes on this cycle.
    stay: Signal<Local, bool>,
    /// The granted requester's successor (the pointer after a use).
    successor: Signal<Local, Bits<FUNCTION_BITS>>,
    one: Constant<Bits<WEIGHT_BITS>>,
    _n: usize,
}

impl WeightedArbiter {
    /// An arbiter of `n` requesters (1..=8).
    pub fn new(n: usize) -> Self {
        assert!(
            (1..=MAX_FUNCTIONS).contains(&n),
            "WeightedArbiter: n (requesters) = {n} must be 1..={MAX_FUNCTIONS}"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            requests: (0..n).map(|_| Default::default()).collect(),
            advance: Default::default(),
            weighted: Default::default(),
            weights: (0..n).map(|_| Default::default()).collect(),
            valid: Default::default(),
            grant: Default::default(),
            pointer: Default::default(),
            holder: Default::default(),
            holding: Default::default(),
            served: Default::default(),
            ids: (0..n).map(|i| Constant::new(i.to_bits())).collect(),
            upper_masks: (0..n)
                .map(|p| Constant::new((((1usize << n) - 1) & !((1usize << p) - 1)).to_bits()))
                .collect(),
            upper_mask: Default::default(),
            any: Default::default(),
            any_upper: Default::default(),
            lowest: Default::default(),
            lowest_upper: Default::default(),
            weight: Default::default(),
            holder_asks: Default::default(),
            stay: Default::default(),
            successor: Default::default(),
            one: Constant::new(1usize.to_bits()),
            _n: n,
        }
    }
}

impl Logic for WeightedArbiter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, pointer, holder, holding, served);
        // The holder's request and weight.
        self.holder_asks.next = false;
        self.weight.next = self.one.val();
        for i in 0..self.ids.len() {
            if self.holder.q.val() == self.ids[i].val() {
                self.holder_asks.next = self.requests[i].val();
                if self.weights[i].val().any() {
                    self.weight.next = self.weights[i].val();
                }
            }
        }
        // The lowest requester overall and at or after the pointer: the highest index is
        // looked at first, so the lowest one is assigned last and wins.
        self.upper_mask.next = 0.into();
        for p in 0..self.ids.len() {
            if self.pointer.q.val() == self.ids[p].val() {
                self.upper_mask.next = self.upper_masks[p].val();
            }
        }
        self.any.next = false;
        self.any_upper.next = false;
        self.lowest.next = 0.into();
        self.lowest_upper.next = 0.into();
        for n in self._n..(self._n + 1) {
            for j in 0..self.ids.len() {
                if self.requests[n - 1 - j].val() {
                    self.any.next = true;
                    self.lowest.next = self.ids[n - 1 - j].val();
                    if self.upper_mask.val().get_bit(n - 1 - j) {
                        self.any_upper.next = true;
                        self.lowest_upper.next = self.ids[n - 1 - j].val();
                    }
                }
            }
        }
        self.stay.next = self.weighted.val()
            & self.holding.q.val()
            & self.holder_asks.val()
            & (self.served.q.val() < self.weight.val());
        self.valid.next = self.any.val();
        self.grant.next = self.lowest.val();
        if self.any_upper.val() {
            self.grant.next = self.lowest_upper.val();
        }
        if self.stay.val() {
            self.grant.next = self.holder.q.val();
        }
        // The successor of the grant, cyclically.
        self.successor.next = 0.into();
        for n in self._n..(self._n + 1) {
            for i in 0..self.ids.len() {
                if self.grant.val() == self.ids[i].val() {
                    self.successor.next = self.ids[(i + 1) % n].val();
                }
            }
        }
        if self.advance.val() & self.valid.val() {
            self.pointer.d.next = self.successor.val();
            if self.stay.val() {
                self.served.d.next = self.served.q.val() + self.one.val();
            } else {
                self.holder.d.next = self.grant.val();
                self.served.d.next = self.one.val();
            }
            self.holding.d.next = self.weighted.val();
        }
        if !self.weighted.val() {
            self.holding.d.next = false;
        }
        if self.reset.val() {
            self.pointer.d.next = 0.into();
            self.holding.d.next = false;
            self.served.d.next = 0.into();
        }
    }
}

#[test]
fn weighted_arbiter_is_synthesizable() {
    for n in [1, 3, 8] {
        let mut uut = WeightedArbiter::new(n);
        uut.connect_all();
        yosys_validate(&format!("weighted_arbiter_{n}"), &generate_verilog(&uut)).unwrap();
    }
}
