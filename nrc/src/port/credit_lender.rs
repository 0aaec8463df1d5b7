//! Credit policy of a DAMQ input unit: which VC gets a credit back in each cycle.
//!
//! The receiver drives the credits, so the sender's per-VC credit counters stay plain counters
//! (the link layer's [`CreditCounter`](hdl::credit_counter::CreditCounter) with `initial` =
//! `reserve`). Per VC `v` this block counts `credits[v]` (credits the sender holds or has
//! spent on flits not yet arrived) and `stored[v]` (flits of `v` in the buffer), and calls
//! `held[v] = stored[v] + credits[v]` the slots `v` may occupy. The buffer's `capacity` slots
//! (those it can always place a flit in: see [`DamqStore`](super::DamqStore)) are split into
//! `VCS` reservations of `reserve` slots and a shared pool of `capacity - VCS * reserve`.
//!
//! **Policy**, each cycle, from the registered counts: VC `v` gets one credit back
//! (`returned[v]`) when it holds fewer than `reserve` credits, and either
//! - `held[v] < reserve` (its reservation has room), or
//! - it is the lowest-numbered VC that needs a credit beyond its reservation, and the pool has
//!   a slot not lent: `lent = sum over VCs of max(0, held[v] - reserve) < pool`.
//!
//! So a VC's credits are topped up to `reserve` (at least one maximum packet, which virtual
//! cut-through needs to start one) while there is room, one credit per VC per cycle (as fast
//! as a link can spend them), and at most one credit per cycle is lent from the pool.
//!
//! **Invariant** (checked by the bench every cycle): `lent <= pool`, hence
//! `sum over VCs of (stored + credits) <= capacity`: a flit sent with a credit always finds a
//! slot. And every VC can always reach its reservation: a VC below it gets a credit back every
//! cycle whatever the others do, so a VC that is never read (stalled) fills its reservation and
//! at most the pool, and can never starve another.
//!
//! Timing: `returned` is a register (computed from the counts before the edge); the counts take
//! `spent`, `stored`, `left` and `returned` on each edge. `has_credit[v]` = `credits[v] > 0`.
//! Synchronous `reset`: every VC back to `reserve` credits and nothing stored (the link resets
//! both ends), nothing returned.
//!
//! Parameters: `VCS` VCs; `CW` width of the counts (at least `count_bits(capacity)`); elaboration values
//! `reserve` (>= 1) and `capacity` (>= `VCS * reserve`).
use rust_hdl::prelude::*;

/// Credit return policy of one input unit.
#[derive(LogicBlock)]
pub struct CreditLender<const VCS: usize, const CW: usize> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: `reserve` credits per VC, nothing stored.
    pub reset: Signal<In, bool>,
    /// Bit `v`: the sender spent a credit of VC `v` (a flit arrived on `v`, stored or not).
    pub spent: Signal<In, Bits<VCS>>,
    /// Bit `v`: a flit joined VC `v`'s queue.
    pub stored: Signal<In, Bits<VCS>>,
    /// Bit `v`: a flit of VC `v` left the buffer.
    pub left: Signal<In, Bits<VCS>>,
    /// Bit `v`: one credit of VC `v` goes back to the sender in this cycle (a register).
    pub returned: Signal<Out, Bits<VCS>>,
    /// Bit `v`: the sender holds a credit of VC `v` (a flit on `v` is allowed).
    pub has_credit: Signal<Out, Bits<VCS>>,
    credits: Vec<DFF<Bits<CW>>>,
    queued: Vec<DFF<Bits<CW>>>,
    returning: DFF<Bits<VCS>>,
    /// Per VC: `stored + credits`.
    held: Vec<Signal<Local, Bits<CW>>>,
    /// Per VC: slots held beyond the reservation.
    over: Vec<Signal<Local, Bits<CW>>>,
    /// Per VC: fewer than `reserve` credits.
    short: Vec<Signal<Local, bool>>,
    /// Per VC: `held < reserve`.
    within: Vec<Signal<Local, bool>>,
    /// `lent_sum[v]`: the slots lent to VCs below `v`; `lent_sum[VCS]` is `lent`.
    lent_sum: Vec<Signal<Local, Bits<CW>>>,
    /// `asked[v]`: a VC below `v` needs a lent credit.
    asked: Vec<Signal<Local, bool>>,
    /// The pool has a slot not lent.
    room: Signal<Local, bool>,
    /// The credits to return this cycle.
    give: Signal<Local, Bits<VCS>>,
    reserve: Constant<Bits<CW>>,
    pool: Constant<Bits<CW>>,
    zero: Constant<Bits<CW>>,
    no_vcs: Constant<Bits<VCS>>,
}

impl<const VCS: usize, const CW: usize> CreditLender<VCS, CW> {
    /// The policy for `VCS` reservations of `reserve` slots in a buffer of `capacity` slots.
    pub fn new(reserve: usize, capacity: usize) -> Self {
        assert!(
            (1..=8).contains(&VCS),
            "CreditLender: VCS (virtual channels) must be 1..=8, got {VCS}"
        );
        assert!(
            reserve >= 1 && VCS * reserve <= capacity,
            "CreditLender<VCS = {VCS}>: reserve ({reserve}) must be >= 1 and VCS * reserve at most capacity ({capacity})"
        );
        assert!(
            CW >= hdl::bits::count_bits(capacity) && CW <= 31,
            "CreditLender: CW (count width) must hold capacity = {capacity} (at least {} bits, at most 31), got {CW}",
            hdl::bits::count_bits(capacity)
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            spent: Default::default(),
            stored: Default::default(),
            left: Default::default(),
            returned: Default::default(),
            has_credit: Default::default(),
            credits: (0..VCS).map(|_| Default::default()).collect(),
            queued: (0..VCS).map(|_| Default::default()).collect(),
            returning: Default::default(),
            held: (0..VCS).map(|_| Default::default()).collect(),
            over: (0..VCS).map(|_| Default::default()).collect(),
            short: (0..VCS).map(|_| Default::default()).collect(),
            within: (0..VCS).map(|_| Default::default()).collect(),
            lent_sum: (0..=VCS).map(|_| Default::default()).collect(),
            asked: (0..VCS).map(|_| Default::default()).collect(),
            room: Default::default(),
            give: Default::default(),
            reserve: Constant::new((reserve as u64).into()),
            pool: Constant::new(((capacity - VCS * reserve) as u64).into()),
            zero: Constant::new(0u64.into()),
            no_vcs: Constant::new(0u64.into()),
        }
    }
}

impl<const VCS: usize, const CW: usize> Logic for CreditLender<VCS, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, returning);
        self.returned.next = self.returning.q.val();
        self.has_credit.next = self.no_vcs.val();
        self.lent_sum[0].next = self.zero.val();
        self.asked[0].next = false;
        for v in 0..VCS {
            self.credits[v].clock.next = self.clock.val();
            self.queued[v].clock.next = self.clock.val();
            self.held[v].next = self.queued[v].q.val() + self.credits[v].q.val();
            self.short[v].next = self.credits[v].q.val() < self.reserve.val();
            self.within[v].next = self.held[v].val() < self.reserve.val();
            self.over[v].next = self.zero.val();
            if !self.within[v].val() {
                self.over[v].next = self.held[v].val() - self.reserve.val();
            }
            self.lent_sum[v + 1].next = self.lent_sum[v].val() + self.over[v].val();
        }
        for v in 0..(VCS - 1) {
            self.asked[v + 1].next =
                self.asked[v].val() | (self.short[v].val() & !self.within[v].val());
        }
        for n in VCS..(VCS + 1) {
            self.room.next = self.lent_sum[n].val() < self.pool.val();
        }
        self.give.next = self.no_vcs.val();
        for v in 0..VCS {
            if self.short[v].val()
                & (self.within[v].val() | (self.room.val() & !self.asked[v].val()))
            {
                self.give.next = self.give.val().replace_bit(v, true);
            }
        }
        self.returning.d.next = self.give.val();
        for v in 0..VCS {
            self.has_credit.next = self
                .has_credit
                .val()
                .replace_bit(v, self.credits[v].q.val().any());
            // Steps of one each way; both at once cancel.
            self.credits[v].d.next = self.credits[v].q.val();
            if self.give.val().get_bit(v) & !self.spent.val().get_bit(v) {
                self.credits[v].d.next = self.credits[v].q.val() + 1;
            }
            if !self.give.val().get_bit(v) & self.spent.val().get_bit(v) {
                self.credits[v].d.next = self.credits[v].q.val() - 1;
            }
            self.queued[v].d.next = self.queued[v].q.val();
            if self.stored.val().get_bit(v) & !self.left.val().get_bit(v) {
                self.queued[v].d.next = self.queued[v].q.val() + 1;
            }
            if !self.stored.val().get_bit(v) & self.left.val().get_bit(v) {
                self.queued[v].d.next = self.queued[v].q.val() - 1;
            }
            if self.reset.val() {
                self.credits[v].d.next = self.reserve.val();
                self.queued[v].d.next = self.zero.val();
            }
        }
        if self.reset.val() {
            self.returning.d.next = self.no_vcs.val();
        }
    }
}

#[test]
fn credit_lender_is_synthesizable() {
    let mut uut = CreditLender::<3, 5>::new(6, 27);
    uut.connect_all();
    yosys_validate("credit_lender", &generate_verilog(&uut)).unwrap();
}
