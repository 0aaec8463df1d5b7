//! Round-robin arbiter for `N` requesters, with optional packet hold.
//!
//! The grant is combinational: `grant` is one-hot (zero when nobody requests), `grant_index` is
//! its binary index and `valid` says a grant is offered. The priority pointer `mask` is a
//! thermometer of the requesters after the last one served; the grant is the lowest requester
//! inside the mask, else the lowest requester overall. Each "lowest requester" is `x & !(p << 1)`
//! where `p` is the prefix OR of `x`, built in `ceil(log2 N)` shift-and-OR steps (a log-depth
//! tree, not a ripple chain); the next mask is `p << 1` itself, so the pointer update costs no
//! extra logic. On iCE40 this came out smaller and faster than `x & !(x - 1)` on carry chains
//! (N = 8: 38 against 62 LUTs) and than alexforencich's registered `arbiter` (45 LUTs).
//!
//! The pointer moves, to just after the granted requester, only on an edge where `advance` is
//! high (the grant was used), so a grant that waits is not lost. Under persistent requests each
//! requester is served once per `N` grants.
//!
//! Hold (elaboration option, [`RrArbiter::new`]): once a requester is granted, the grant stays
//! with it until an edge where `advance && tail` (the last beat of its packet moved), whatever the
//! other requests do; while it holds the grant and does not request, `grant` is zero and others
//! wait. Without hold, `tail` is ignored and a new, higher-priority request may take a grant that
//! was not yet used. (With hold the pointer is moved when the grant is first offered rather than
//! used: it is not observable while the grant is held, and the hold ends only with a use, so
//! the behaviour is the same and the pointer needs no second prefix tree for the holder.)
//!
//! Parameters: `N` requesters (1 is a wire: `grant = requests`); `W` = width of `grant_index`,
//! `ceil(log2(N))` and at least 1 (stable Rust cannot derive it; checked at elaboration).
use super::{check_generics, index_bits, index_masks};
use rust_hdl::prelude::*;

/// Round-robin arbiter (lowest index first after reset).
#[derive(LogicBlock)]
pub struct RrArbiter<const N: usize, const W: usize> {
    /// Clock of the priority pointer and the hold register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: pointer back to requester 0, hold released.
    pub reset: Signal<In, bool>,
    /// Bit `i`: requester `i` asks for the resource.
    pub requests: Signal<In, Bits<N>>,
    /// The offered grant was used on this edge (ignored when `valid` is low).
    pub advance: Signal<In, bool>,
    /// With hold: the use on this edge ends the holder's packet (ignored without hold).
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
    /// Requesters after the last one served (thermometer, zero after reset).
    mask: DFF<Bits<N>>,
    /// With hold: a requester holds the grant (the one just below the mask).
    locked: DFF<bool>,
    /// Bit `N - 1` alone: the holder when the mask is empty.
    top: Constant<Bits<N>>,
    /// The requester just below the mask: the holder while `locked`.
    holder: Signal<Local, Bits<N>>,
    /// The requests that may be granted now (only the holder's while `locked`).
    eligible: Signal<Local, Bits<N>>,
    masked: Signal<Local, Bits<N>>,
    /// Prefix ORs of `masked` and `requests`, step `k` covering `2^k - 1` positions below.
    masked_prefix: Vec<Signal<Local, Bits<N>>>,
    eligible_prefix: Vec<Signal<Local, Bits<N>>>,
    masked_after: Signal<Local, Bits<N>>,
    eligible_after: Signal<Local, Bits<N>>,
    after: Signal<Local, Bits<N>>,
    index_acc: Vec<Signal<Local, Bits<W>>>,
}

impl<const N: usize, const W: usize> RrArbiter<N, W> {
    /// An arbiter; `hold` keeps each grant until the end of its packet (`advance && tail`).
    pub fn new(hold: bool) -> Self {
        check_generics("RrArbiter", N, W);
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
            mask: Default::default(),
            locked: Default::default(),
            top: Constant::new(Bits::<N>::default().replace_bit(N - 1, true)),
            holder: Default::default(),
            eligible: Default::default(),
            masked: Default::default(),
            masked_prefix: (0..=W).map(|_| Default::default()).collect(),
            eligible_prefix: (0..=W).map(|_| Default::default()).collect(),
            masked_after: Default::default(),
            eligible_after: Default::default(),
            after: Default::default(),
            index_acc: (0..=W).map(|_| Default::default()).collect(),
        }
    }
}

impl<const N: usize, const W: usize> Default for RrArbiter<N, W> {
    /// Without hold.
    fn default() -> Self {
        Self::new(false)
    }
}

impl<const N: usize, const W: usize> Logic for RrArbiter<N, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, mask, locked);
        // With hold the mask moved past the holder when it was granted, so the holder is the
        // requester just below the mask's lowest bit (the top one when the mask is empty).
        self.holder.next = !self.mask.q.val() & ((self.mask.q.val() >> 1) | self.top.val());
        self.eligible.next = self.requests.val();
        if self.locked.q.val() {
            self.eligible.next = self.requests.val() & self.holder.val();
        }
        self.masked.next = self.eligible.val() & self.mask.q.val();
        // Prefix OR in W doubling steps: bit j of step W is set when any bit <= j is.
        self.masked_prefix[0].next = self.masked.val();
        self.eligible_prefix[0].next = self.eligible.val();
        for k in 0..W {
            self.masked_prefix[k + 1].next =
                self.masked_prefix[k].val() | (self.masked_prefix[k].val() << (1_u64 << k));
            self.eligible_prefix[k + 1].next =
                self.eligible_prefix[k].val() | (self.eligible_prefix[k].val() << (1_u64 << k));
        }
        // The bits above the lowest set bit of x; the lowest set bit is x & !after.
        for k in W..(W + 1) {
            self.masked_after.next = self.masked_prefix[k].val() << 1;
            self.eligible_after.next = self.eligible_prefix[k].val() << 1;
        }
        if self.masked.val().any() {
            self.grant.next = self.masked.val() & !self.masked_after.val();
            self.after.next = self.masked_after.val();
        } else {
            self.grant.next = self.eligible.val() & !self.eligible_after.val();
            self.after.next = self.eligible_after.val();
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
        // Without hold the pointer moves on use; with hold, as soon as a grant is offered (then
        // it marks the holder; while locked, `after` is the mask itself).
        if self.valid.val() & (self.advance.val() | self.hold.val()) {
            self.mask.d.next = self.after.val();
        }
        if self.hold.val() & self.valid.val() {
            self.locked.d.next = !(self.advance.val() & self.tail.val());
        }
        if self.reset.val() {
            self.mask.d.next = 0.into();
            self.locked.d.next = false;
        }
    }
}

#[test]
fn rr_arbiter_is_synthesizable() {
    let mut uut = RrArbiter::<5, 3>::new(true);
    uut.connect_all();
    yosys_validate("rr_arbiter", &generate_verilog(&uut)).unwrap();
    let mut uut = RrArbiter::<1, 1>::new(false);
    uut.connect_all();
    yosys_validate("rr_arbiter_1", &generate_verilog(&uut)).unwrap();
}
