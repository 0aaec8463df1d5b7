//! DAMQ input buffer of a router port: the router channel in, per-VC fronts and one read port
//! out to the switch, with one RAM shared by all the port's VCs.
//!
//! Made of three blocks (see each for the details):
//! - [`Intake`]: the packet checks of every VC (bad lengths, heads inside packets, packets
//!   longer or shorter than `len`, headless fragments, control or malformed flits, flits
//!   without credit or on a VC out of range): what to store, what to drop, which TailBadPkt to
//!   write so that a packet already partly forwarded (cut-through) is discarded whole by the
//!   next hop;
//! - [`DamqStore`]: the shared RAM, a linked list and a front register per VC, the free list;
//! - [`CreditLender`]: which VC gets a credit back each cycle (reservations and the lent pool);
//! - [`MgmtTransit`] between the intake and the store (only [`Damq::with_transit`]): source
//!   routing of management packets, rewritten on their way in, a decision per packet out on
//!   `decisions`.
//!
//! **Credits.** Each VC starts with `reserve` credits (`router.reserved_flits_per_vc`, at
//! least `network.max_packet_flits`: virtual cut-through starts a packet only with credits for
//! all of it) and gets one back per cycle while it holds fewer than `reserve`, if its
//! reservation has room or the shared pool has a slot not lent. With `capacity = SLOTS - VCS -
//! 2` (a pre-allocated tail slot per VC list and one slot of free-list latency kept spare),
//! the pool is `capacity - VCS * reserve` slots, and `sum over VCs of (stored + credits) <=
//! capacity` holds at every cycle: a flit sent with a credit always finds a slot, and a VC that
//! is never read holds at most its reservation and the pool, so it cannot starve the others.
//!
//! **Latency** (zero load): a head that arrives on the channel in cycle `c` is the front of its
//! VC in cycle `c + 1` (`waiting`, `fronts`) and can be read then, leaving on `read.flit` in
//! that same cycle: this unit's share of the router core's head-in to head-out latency is one
//! cycle. The same VC can be read every cycle (refills from the RAM keep up).
//!
//! **Bypass**: `bypass_head` says that the flit on the channel in this cycle is a head stored
//! straight into its VC's front (the VC was idle), so it is that VC's front in the next cycle;
//! the input port starts its route lookup from the channel then (zero-load latency).
//!
//! **Events** (one bit per reason of [`super::event`], a one-cycle pulse in the cycle after the
//! flit; the register file's counter banks count them): drops by reason, and `NO_SLOT`, which
//! cannot happen while the sender obeys credits.
//!
//! Reset: synchronous `reset` empties every VC, makes every packet check idle and gives every
//! VC `reserve` credits (the sender's counters start over too: a link resets both ends); the
//! block needs one before use (its power-up state is not the reset state).
//!
//! Parameters: `VCS` (1..=8), `VCB` = `channel_vc_bits(VCS)`, `SLOTS` (power of two 16..=256),
//! `AW` = `clog2(SLOTS)`, `CW` = `count_bits(SLOTS)`; elaboration values in [`DamqParams`].
//! Use [`damq!`](crate::damq) to fill the widths in.
use super::event;
use super::intake::INTAKE_EVENTS;
use super::mgmt_transit::DECISION_BITS;
use super::{CreditLender, DamqStore, Intake, MgmtTransit, VcReadSink, VcWriteSource};
use hdl::channel::ChannelSink;
use hdl::formats::FLIT_BITS;
use hdl::params::Config;
use hdl::stream::StreamSource;
use rust_hdl::prelude::*;

/// The type of a [`Damq`] with `$vcs` VCs and `$slots` slots, widths filled in:
/// `damq!(2, 128)`.
#[macro_export]
macro_rules! damq {
    ($vcs:expr, $slots:expr) => {
        $crate::port::Damq<
            { $vcs },
            { hdl::channel::channel_vc_bits($vcs) },
            { $slots },
            { hdl::bits::clog2($slots) },
            { hdl::bits::count_bits($slots) },
        >
    };
}

/// Elaboration values of a [`Damq`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DamqParams {
    /// Slots reserved per VC, and the credits each VC starts with.
    pub reserve: usize,
    /// Longest packet accepted, in flits.
    pub max_len: usize,
}

impl DamqParams {
    /// The values of `cfg` (`router.reserved_flits_per_vc`, `network.max_packet_flits`).
    pub fn from_config(cfg: &Config) -> Self {
        Self {
            reserve: cfg.router.reserved_flits_per_vc as usize,
            max_len: cfg.network.max_packet_flits as usize,
        }
    }
}

/// Slots of a `slots`-slot buffer with `vcs` VCs that the credit policy may hand out: one tail
/// slot per VC list and two slots of free-list latency are kept back.
pub const fn damq_capacity(vcs: usize, slots: usize) -> usize {
    slots - vcs - 2
}

/// The DAMQ input buffer of one router port.
#[derive(LogicBlock)]
pub struct Damq<
    const VCS: usize,
    const VCB: usize,
    const SLOTS: usize,
    const AW: usize,
    const CW: usize,
> {
    /// Clock of every register and RAM.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see the module doc).
    pub reset: Signal<In, bool>,
    /// Flits in from the port's link layer, credits back.
    pub channel: ChannelSink<VCS, VCB>,
    /// The switch's read port: one flit per cycle, from any VC with `ready`.
    pub read: VcReadSink<VCB>,
    /// Bit `v`: VC `v` has a flit to read.
    pub ready: Signal<Out, Bits<VCS>>,
    /// Bit `v`: VC `v`'s front is a packet head (its header is `fronts[v]`).
    pub waiting: Signal<Out, Bits<VCS>>,
    /// Per VC: the front flit.
    pub fronts: Vec<Signal<Out, Bits<FLIT_BITS>>>,
    /// Bit `e` ([`super::event`]): a flit was dropped or rewritten for reason `e`.
    pub events: Signal<Out, Bits<{ event::COUNT }>>,
    /// The flit on `channel` is a head stored straight into the front of `channel.vc` in this
    /// cycle (it is that VC's front, `waiting`, in the next cycle).
    pub bypass_head: Signal<Out, bool>,
    /// Per VC: flits of the VC in the buffer now (for the occupancy-peak counters).
    pub occupancy: Vec<Signal<Out, Bits<CW>>>,
    /// The management transit's decisions, one per management packet stored, in order (none
    /// unless built [`Damq::with_transit`]).
    pub decisions: StreamSource<Bits<DECISION_BITS>>,
    intake: Intake<VCS, VCB>,
    store: DamqStore<VCS, VCB, SLOTS, AW, CW>,
    lender: CreditLender<VCS, CW>,
    transit: MgmtTransit<VCB>,
    /// The `NO_SLOT` bit of `events`.
    no_slot_event: Constant<Bits<{ event::COUNT }>>,
    type_bit: Constant<Bits<7>>,
    head_bit: Constant<Bits<7>>,
}

impl<const VCS: usize, const VCB: usize, const SLOTS: usize, const AW: usize, const CW: usize>
    Damq<VCS, VCB, SLOTS, AW, CW>
{
    /// The buffer for `p`. Panics (naming the parameter) unless `reserve >= max_len` and the
    /// reservations fit in the capacity.
    pub fn new(p: DamqParams) -> Self {
        Self::built(p, MgmtTransit::disabled())
    }

    /// The buffer for `p` of input port `port` of a router with `ports` ports, whose
    /// management packets on `mgmt_vc` are source routed by a [`MgmtTransit`] between the
    /// intake and the store.
    pub fn with_transit(p: DamqParams, mgmt_vc: usize, port: usize, ports: usize) -> Self {
        Self::built(p, MgmtTransit::new(mgmt_vc, port, ports))
    }

    fn built(p: DamqParams, transit: MgmtTransit<VCB>) -> Self {
        let capacity = damq_capacity(VCS, SLOTS.max(VCS + 2));
        assert!(
            p.reserve >= p.max_len,
            "Damq: reserve ({}, router.reserved_flits_per_vc) must be at least max_len ({}, network.max_packet_flits)",
            p.reserve,
            p.max_len
        );
        assert!(
            VCS * p.reserve <= capacity,
            "Damq: {VCS} VCs x reserve {} exceed the {capacity} slots of SLOTS = {SLOTS} (router.input_buffer_flits) that can be handed out",
            p.reserve
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            channel: Default::default(),
            read: Default::default(),
            ready: Default::default(),
            waiting: Default::default(),
            fronts: (0..VCS).map(|_| Default::default()).collect(),
            events: Default::default(),
            bypass_head: Default::default(),
            occupancy: (0..VCS).map(|_| Default::default()).collect(),
            decisions: Default::default(),
            intake: Intake::new(p.max_len),
            store: DamqStore::new(),
            lender: CreditLender::new(p.reserve, capacity),
            transit,
            no_slot_event: Constant::new((1u64 << event::NO_SLOT).into()),
            type_bit: Constant::new((hdl::formats::flit::TYPE_BIT as u64).into()),
            head_bit: Constant::new((hdl::formats::flit::HEAD_BIT as u64).into()),
        }
    }
}

impl<const VCS: usize, const VCB: usize, const SLOTS: usize, const AW: usize, const CW: usize> Logic
    for Damq<VCS, VCB, SLOTS, AW, CW>
{
    #[hdl_gen]
    fn update(&mut self) {
        self.intake.clock.next = self.clock.val();
        self.store.clock.next = self.clock.val();
        self.lender.clock.next = self.clock.val();
        self.intake.reset.next = self.reset.val();
        self.store.reset.next = self.reset.val();
        self.lender.reset.next = self.reset.val();
        self.transit.clock.next = self.clock.val();
        self.transit.reset.next = self.reset.val();
        ChannelSink::<VCS, VCB>::link(&mut self.channel, &mut self.intake.channel);
        // What the intake stores passes the management transit (rewritten if forwarded).
        VcWriteSource::<VCB>::join(&mut self.intake.write, &mut self.transit.arriving);
        VcWriteSource::<VCB>::join(&mut self.transit.storing, &mut self.store.write);
        StreamSource::<Bits<DECISION_BITS>>::link(&mut self.decisions, &mut self.transit.decisions);
        VcReadSink::<VCB>::link(&mut self.read, &mut self.store.read);
        // The credit policy sees what arrived, what was stored and what left.
        self.lender.spent.next = self.intake.spent.val();
        self.lender.stored.next = self.intake.stored.val();
        self.lender.left.next = self.store.left.val();
        self.intake.credits.next = self.lender.returned.val();
        self.intake.has_credit.next = self.lender.has_credit.val();
        for v in 0..VCS {
            self.occupancy[v].next = self.lender.occupancy[v].val();
        }
        self.ready.next = self.store.ready.val();
        self.waiting.next = self.store.waiting.val();
        for v in 0..VCS {
            self.fronts[v].next = self.store.fronts[v].val();
        }
        self.events.next = bit_cast::<{ event::COUNT }, INTAKE_EVENTS>(self.intake.events.val());
        // What is stored may be a TailBadPkt in place of the channel's flit: look at the write.
        self.bypass_head.next = self.store.bypassed.val()
            & !self
                .intake
                .write
                .flit
                .val()
                .get_bit(self.type_bit.val().index())
            & self
                .intake
                .write
                .flit
                .val()
                .get_bit(self.head_bit.val().index());
        if self.store.no_slot.val() {
            self.events.next = self.events.val() | self.no_slot_event.val();
        }
    }
}

#[test]
fn damq_is_synthesizable() {
    let mut uut = <crate::damq!(3, 32)>::new(DamqParams {
        reserve: 6,
        max_len: 6,
    });
    uut.connect_all();
    yosys_validate("damq", &generate_verilog(&uut)).unwrap();
}

#[test]
#[should_panic(expected = "reserve (5, router.reserved_flits_per_vc) must be at least max_len")]
fn damq_rejects_a_reserve_below_a_packet() {
    let _ = <crate::damq!(3, 32)>::new(DamqParams {
        reserve: 5,
        max_len: 6,
    });
}

#[test]
#[should_panic(expected = "exceed the")]
fn damq_rejects_reservations_beyond_the_buffer() {
    let _ = <crate::damq!(3, 32)>::new(DamqParams {
        reserve: 10,
        max_len: 6,
    });
}
