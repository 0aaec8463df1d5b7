//! Fixed-priority arbiter for `N` requesters (lowest index wins), with optional packet hold.
//!
//! Same ports and hold rule as [`super::RrArbiter`], so the two are interchangeable: the grant
//! is combinational, one-hot, zero when nobody requests: `x & !(p << 1)` with `p` the prefix OR
//! of the eligible requests `x`, built in `ceil(log2 N)` shift-and-OR steps (a log-depth tree).
//! It is not fair: a persistent low index starves the others, which is what a fixed priority
//! is for (e.g. control traffic before bulk).
//!
//! The holder is kept as a one-hot register plus a `locked` flag, so the holder's register loads
//! straight from `grant` with a shared enable and gating the requests costs one LUT per bit.
//!
//! Hold (elaboration option, [`FpArbiter::new`]): once a requester is granted, the grant stays
//! with it until an edge where `advance && tail`, even if a lower index starts requesting; while
//! it holds the grant and does not request, `grant` is zero. Without hold, `advance` and `tail`
//! are ignored (there is no pointer to move).
//!
//! Parameters: `N` requesters (1 is a wire: `grant = requests`); `W` = width of `grant_index`,
//! `ceil(log2(N))` and at least 1 (checked at elaboration).
use super::{check_generics, index_bits, index_masks};
use rust_hdl::prelude::*;

/// Fixed-priority arbiter: requester 0 first.
#[derive(LogicBlock)]
pub struct FpArbiter<const N: usize, const W: usize> {
    /// Clock of the hold register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: hold released.
    pub reset: Signal<In, bool>,
    /// Bit `i`: requester `i` asks for the resource.
    pub requests: Signal<In, Bits<N>>,
    /// With hold: the offered grant was used on this edge (ignored when `valid` is low).
    pub advance: Signal<In, bool>,
    /// With hold: the use on this edge ends the holder's packet.
    pub tail: Signal<In, bool>,
    /// One-hot grant, zero when no grant is offered.
    pub grant: Signal<Out, Bits<N>>,
    /// Index of the granted requester (0 when none).
    pub grant_index: Signal<Out, Bits<W>>,
    /// A grant is offered (`grant != 0`).
    pub valid: Signal<Out, bool>,
    hold: Constant<bool>,
    single: Constant<bool>,
    index_masks: Vec<Constant<Bits<N>>>,
    index_bits: Vec<Constant<Bits<W>>>,
    /// With hold: a requester holds the grant.
    locked: DFF<bool>,
    /// With hold: the one-hot holder (meaningful only while `locked`).
    held: DFF<Bits<N>>,
    /// The requests that may be granted now (only the holder's while it holds).
    eligible: Signal<Local, Bits<N>>,
    /// Prefix ORs of `eligible`, step `k` covering `2^k - 1` positions below.
    prefix: Vec<Signal<Local, Bits<N>>>,
    index_acc: Vec<Signal<Local, Bits<W>>>,
}

impl<const N: usize, const W: usize> FpArbiter<N, W> {
    /// An arbiter; `hold` keeps each grant until the end of its packet (`advance && tail`).
    pub fn new(hold: bool) -> Self {
        check_generics("FpArbiter", N, W);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            requests: Default::default(),
            advance: Default::default(),
            tail: Default::default(),
            grant: Default::default(),
            grant_index: Default::default(),
            valid: Default::default(),
            hold: Constant::new(hold),
            single: Constant::new(N == 1),
            index_masks: index_masks::<N, W>(),
            index_bits: index_bits::<W>(),
            locked: Default::default(),
            held: Default::default(),
            eligible: Default::default(),
            prefix: (0..=W).map(|_| Default::default()).collect(),
            index_acc: (0..=W).map(|_| Default::default()).collect(),
        }
    }
}

impl<const N: usize, const W: usize> Default for FpArbiter<N, W> {
    /// Without hold.
    fn default() -> Self {
        Self::new(false)
    }
}

impl<const N: usize, const W: usize> Logic for FpArbiter<N, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, locked, held);
        self.eligible.next = self.requests.val();
        if self.locked.q.val() {
            self.eligible.next = self.requests.val() & self.held.q.val();
        }
        self.prefix[0].next = self.eligible.val();
        for k in 0..W {
            self.prefix[k + 1].next = self.prefix[k].val() | (self.prefix[k].val() << (1_u64 << k));
        }
        for k in W..(W + 1) {
            self.grant.next = self.eligible.val() & !(self.prefix[k].val() << 1);
        }
        self.valid.next = self.eligible.val().any();
        if self.single.val() {
            self.grant.next = self.requests.val();
            self.valid.next = self.requests.val().any();
        }
        // One-hot to binary: bit b of the index ORs the grant bits whose index has bit b set.
        self.index_acc[0].next = 0.into();
        for b in 0..W {
            self.index_acc[b + 1].next = self.index_acc[b].val();
            if (self.grant.val() & self.index_masks[b].val()).any() {
                self.index_acc[b + 1].next = self.index_acc[b].val() | self.index_bits[b].val();
            }
        }
        for b in W..(W + 1) {
            self.grant_index.next = self.index_acc[b].val();
        }
        if self.hold.val() & self.valid.val() {
            self.locked.d.next = !(self.advance.val() & self.tail.val());
            if !self.locked.q.val() {
                self.held.d.next = self.grant.val();
            }
        }
        if self.reset.val() {
            self.locked.d.next = false;
        }
    }
}

#[test]
fn fp_arbiter_is_synthesizable() {
    let mut uut = FpArbiter::<5, 3>::new(true);
    uut.connect_all();
    yosys_validate("fp_arbiter", &generate_verilog(&uut)).unwrap();
    let mut uut = FpArbiter::<1, 1>::new(false);
    uut.connect_all();
    yosys_validate("fp_arbiter_1", &generate_verilog(&uut)).unwrap();
}
