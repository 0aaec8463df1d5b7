//! Credit policy of a DAMQ input unit: which VC gets a credit back in each cycle.
//!
//! The receiver drives the credits, so the sender's per-VC credit counters stay plain counters
//! (the link layer's [`CreditCounter`](hdl::credit_counter::CreditCounter) with `initial` =
//! `reserve`). Per VC `v` this block counts `credits[v]` (credits the sender holds or has
//! spent on flits not yet arrived) and `held[v] = stored[v] + credits[v]`, the slots `v` may
//! occupy (`stored[v]`: flits of `v` in the buffer; a flit that spent a credit and was dropped
//! frees its slot at once), and keeps `lent` (below) up to date by each term's change. The buffer's `capacity` slots
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
//! `spent`, `stored` and `returned` on each edge, and `left` one edge late (registered first):
//! a slot freed by a read counts as held for one cycle more, so a credit comes back at most a
//! cycle later and the policy stays conservative. The register takes the lender's arithmetic
//! off the end of the router's allocation path (matcher -> grant -> DAMQ read -> `left`),
//! where it was the longest tail on the ECP5-85k. `occupancy` does not count the flit
//! that left (it subtracts the late bit). `has_credit[v]` = `credits[v] > 0`.
//! Synchronous `reset`: every VC back to `reserve` credits and nothing stored (the link resets
//! both ends), nothing returned.
//!
//! Parameters: `VCS` VCs; `CW` width of the counts (at least `count_bits(capacity)`; the counts step by two's complement constants); elaboration values
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
    /// Per VC: flits of the VC in the buffer now (`held - credits`, from the registers; for
    /// the router's occupancy-peak counters).
    pub occupancy: Vec<Signal<Out, Bits<CW>>>,
    /// Per VC: credits out.
    credits: Vec<DFF<Bits<CW>>>,
    /// Per VC: `stored + credits` (a flit that left in the last cycle still counted).
    held: Vec<DFF<Bits<CW>>>,
    /// `left` of the last cycle, counted on this edge.
    left_late: DFF<Bits<VCS>>,
    /// Per VC: `held - credits`, before the late bit.
    in_buffer: Vec<Signal<Local, Bits<CW>>>,
    /// Slots lent: `sum over VCs of max(0, held - reserve)`, kept up to date by the change of
    /// each VC's term rather than summed anew (at 6 VCs the sum of 6 differences cost about 500
    /// more iCE40 LUTs).
    lent: DFF<Bits<CW>>,
    returning: DFF<Bits<VCS>>,
    /// Per VC: fewer than `reserve` credits.
    short: Vec<Signal<Local, bool>>,
    /// Per VC: `held < reserve`, `held > reserve`, `held > reserve + 1`.
    within: Vec<Signal<Local, bool>>,
    above: Vec<Signal<Local, bool>>,
    above_two: Vec<Signal<Local, bool>>,
    /// Per VC: a flit that spent a credit was not stored (its slot is free at once).
    dropped: Vec<Signal<Local, bool>>,
    /// Per VC: the change of `held` on this edge (+1 to -2, in the count's width).
    step: Vec<Signal<Local, Bits<CW>>>,
    /// Per VC: the change of its `max(0, held - reserve)` on this edge.
    change: Vec<Signal<Local, Bits<CW>>>,
    /// `lent_change[v]`: the change of `lent` from the VCs below `v`.
    lent_change: Vec<Signal<Local, Bits<CW>>>,
    /// `asked[v]`: a VC below `v` needs a lent credit.
    asked: Vec<Signal<Local, bool>>,
    /// The pool has a slot not lent.
    room: Signal<Local, bool>,
    /// The credits to return this cycle.
    give: Signal<Local, Bits<VCS>>,
    reserve: Constant<Bits<CW>>,
    reserve_plus_one: Constant<Bits<CW>>,
    pool: Constant<Bits<CW>>,
    zero: Constant<Bits<CW>>,
    plus_one: Constant<Bits<CW>>,
    minus_one: Constant<Bits<CW>>,
    minus_two: Constant<Bits<CW>>,
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
        let all = (1u64 << CW) - 1;
        let c = |x: u64| Constant::new(x.into());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            spent: Default::default(),
            stored: Default::default(),
            left: Default::default(),
            returned: Default::default(),
            has_credit: Default::default(),
            occupancy: (0..VCS).map(|_| Default::default()).collect(),
            credits: (0..VCS).map(|_| Default::default()).collect(),
            held: (0..VCS).map(|_| Default::default()).collect(),
            left_late: Default::default(),
            in_buffer: (0..VCS).map(|_| Default::default()).collect(),
            lent: Default::default(),
            returning: Default::default(),
            short: (0..VCS).map(|_| Default::default()).collect(),
            within: (0..VCS).map(|_| Default::default()).collect(),
            above: (0..VCS).map(|_| Default::default()).collect(),
            above_two: (0..VCS).map(|_| Default::default()).collect(),
            dropped: (0..VCS).map(|_| Default::default()).collect(),
            step: (0..VCS).map(|_| Default::default()).collect(),
            change: (0..VCS).map(|_| Default::default()).collect(),
            lent_change: (0..=VCS).map(|_| Default::default()).collect(),
            asked: (0..VCS).map(|_| Default::default()).collect(),
            room: Default::default(),
            give: Default::default(),
            reserve: c(reserve as u64),
            reserve_plus_one: c(reserve as u64 + 1),
            pool: c((capacity - VCS * reserve) as u64),
            zero: c(0),
            plus_one: c(1),
            minus_one: c(all),
            minus_two: c(all - 1),
            no_vcs: Constant::new(0u64.into()),
        }
    }
}

impl<const VCS: usize, const CW: usize> Logic for CreditLender<VCS, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, lent, returning, left_late);
        self.left_late.d.next = self.left.val();
        self.returned.next = self.returning.q.val();
        self.has_credit.next = self.no_vcs.val();
        self.room.next = self.lent.q.val() < self.pool.val();
        self.asked[0].next = false;
        for v in 0..VCS {
            self.credits[v].clock.next = self.clock.val();
            self.held[v].clock.next = self.clock.val();
            self.short[v].next = self.credits[v].q.val() < self.reserve.val();
            self.within[v].next = self.held[v].q.val() < self.reserve.val();
            self.above[v].next = self.held[v].q.val() > self.reserve.val();
            self.above_two[v].next = self.held[v].q.val() > self.reserve_plus_one.val();
            self.in_buffer[v].next = self.held[v].q.val() - self.credits[v].q.val();
            self.occupancy[v].next = self.in_buffer[v].val();
            if self.left_late.q.val().get_bit(v) {
                self.occupancy[v].next = self.in_buffer[v].val() - self.plus_one.val();
            }
        }
        for v in 0..(VCS - 1) {
            self.asked[v + 1].next =
                self.asked[v].val() | (self.short[v].val() & !self.within[v].val());
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
        self.lent_change[0].next = self.zero.val();
        for v in 0..VCS {
            self.has_credit.next = self
                .has_credit
                .val()
                .replace_bit(v, self.credits[v].q.val().any());
            // `held` moves by +give - left - dropped; `max(0, held - reserve)` moves with it
            // above the reservation only.
            self.dropped[v].next = self.spent.val().get_bit(v) & !self.stored.val().get_bit(v);
            self.step[v].next = self.zero.val();
            self.change[v].next = self.zero.val();
            if self.give.val().get_bit(v)
                & !self.left_late.q.val().get_bit(v)
                & !self.dropped[v].val()
            {
                self.step[v].next = self.plus_one.val();
                if !self.within[v].val() {
                    self.change[v].next = self.plus_one.val();
                }
            }
            if (self.left_late.q.val().get_bit(v) ^ self.dropped[v].val())
                & !self.give.val().get_bit(v)
            {
                self.step[v].next = self.minus_one.val();
                if self.above[v].val() {
                    self.change[v].next = self.minus_one.val();
                }
            }
            if self.left_late.q.val().get_bit(v) & self.dropped[v].val() {
                if self.give.val().get_bit(v) {
                    self.step[v].next = self.minus_one.val();
                    if self.above[v].val() {
                        self.change[v].next = self.minus_one.val();
                    }
                } else {
                    self.step[v].next = self.minus_two.val();
                    if self.above_two[v].val() {
                        self.change[v].next = self.minus_two.val();
                    } else if self.above[v].val() {
                        self.change[v].next = self.minus_one.val();
                    }
                }
            }
            self.held[v].d.next = self.held[v].q.val() + self.step[v].val();
            self.lent_change[v + 1].next = self.lent_change[v].val() + self.change[v].val();
            // Steps of one each way; both at once cancel.
            self.credits[v].d.next = self.credits[v].q.val();
            if self.give.val().get_bit(v) & !self.spent.val().get_bit(v) {
                self.credits[v].d.next = self.credits[v].q.val() + 1;
            }
            if !self.give.val().get_bit(v) & self.spent.val().get_bit(v) {
                self.credits[v].d.next = self.credits[v].q.val() - 1;
            }
            if self.reset.val() {
                self.credits[v].d.next = self.reserve.val();
                self.held[v].d.next = self.reserve.val();
            }
        }
        for n in VCS..(VCS + 1) {
            self.lent.d.next = self.lent.q.val() + self.lent_change[n].val();
        }
        if self.reset.val() {
            self.lent.d.next = self.zero.val();
            self.returning.d.next = self.no_vcs.val();
            self.left_late.d.next = self.no_vcs.val();
        }
    }
}

#[test]
fn credit_lender_is_synthesizable() {
    let mut uut = CreditLender::<3, 5>::new(6, 27);
    uut.connect_all();
    yosys_validate("credit_lender", &generate_verilog(&uut)).unwrap();
}
