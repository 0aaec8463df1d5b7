//! `InputPort`: one router port's input side (issue 11, items 2-4 and 6): the DAMQ buffer, the
//! route request path, the per-VC packet state, the VC policy and the head rewrite, offering
//! each VC's front to the switch ([`SwitchRequestSource`]) and management packets to the
//! management agent.
//!
//! ```text
//! channel -> ArrivalStamp -> Damq --fronts--> per-VC state --> switch (ready, ports, out_vcs...)
//!                 | now        | bypass_head      ^ route (c+1)      grant -> read -> HeadRewrite
//!                 +--- channel flit / front --> route_head (c)         side reads -> to_agent / drop
//! ```
//!
//! **Route lookup** (one per cycle, `route_head` to this port's `RouteCompute` stage, its
//! `route` back one cycle later). A non-management head arriving in cycle `c` at an idle VC
//! (the DAMQ writes it straight into the VC's front, `bypass_head`) is looked up from the
//! channel in `c`: its route is back in `c + 1`, when it is the front, and the VC is `ready`
//! with its route and output VC in that same cycle (combinationally from `route`), so the
//! switch can grant it in `c + 1` and register it onto the output in `c + 2`: **two cycles
//! head in to head out at zero load**. A head that becomes the front later (from the RAM,
//! behind other packets) is looked up from the front then: one cycle of route latency more.
//! Arbitration: the arrival first, else the lowest VC whose front is an unrouted head (each
//! head asks once: lookups never wait more than a cycle behind an arrival, and a head arrives
//! at most every other cycle). The lookup's VC is registered (`pending`); the route that comes
//! back in the next cycle belongs to that VC's front, which cannot have moved: a head without
//! a route is neither ready nor read. Reset drops the lookup in flight.
//!
//! **Per-VC state.** `routed` (the front head's route is known: port and output VC
//! registered), `moving` (its head has left: bodies and the last flit are `ready` as soon as
//! they are the front, on the same port and output VC), `dropping` (the rest of a dropped
//! packet is discarded), `managing` (the rest of a management packet goes to the agent).
//! `last` is set on a tail and on a TailBadPkt the intake wrote to close a cut packet (the
//! only other flit the DAMQ stores).
//!
//! **Drops and management packets** use the DAMQ's read port in cycles the switch does not
//! grant (the *side* read; the lowest such VC first), one flit per cycle: a packet without a
//! route (`route.no_route`: event `NO_ROUTE`, `fault` pulse) or a management head on a VC
//! other than `mgmt_vc` (event `MGMT_OFF_VC`) is read out and discarded whole; a management
//! packet on `mgmt_vc` goes whole to `to_agent` through a one-flit register (`port` 0, `last`
//! on its last flit; its head's `delay` gets the time to that register, its `vc` is
//! `mgmt_vc`), only while the register has room, so a stalled agent holds only that VC.
//! Management packets are not looked up in the route table. Built [`InputPort::with_transit`]
//! (a router's ports), a 10-flit management head on `mgmt_vc` waits for its source-route
//! decision ([`super::MgmtTransit`], made in the DAMQ as the packet's fifth flit is stored):
//! to the agent as above, dropped whole (event `BAD_ROUTE`), or **transit**: the VC is
//! `ready` with the decision's output port and `mgmt_vc` as output VC, and the packet (already
//! rewritten on its way in) leaves through the switch like a data packet. Built
//! [`InputPort::new`], every management packet goes to the agent. A discard waits while the
//! switch grants this port every cycle; it blocks no other VC.
//!
//! **Output VC** ([`VcChoice`], the rule of [`hdl::vc_policy`]) from the head's input VC,
//! kind, destination and whether the chosen port is in the port's `down_ports` mask (a
//! constructor value: the output ports that lead down the fat tree).
//!
//! **Head rewrite** ([`ArrivalStamp`] in, [`HeadRewrite`] out): `switch.flit` is the granted
//! front with a head's `vc` = its output VC and `delay` = the arrival delay plus the cycles
//! from the input channel to the output channel (exactly 2 at zero load), saturating at 4095.
//!
//! **Adaptive routing input**: `queued` bit `p`: a VC of this port holds a routed packet for
//! output port `p` that has not finished leaving (its head waiting with its route, or its
//! bodies in progress). The router core counts the set bits over its input ports for the
//! route choice's "flits queued for port `p`" (a count of input VCs, not of flits: simple,
//! and zero exactly when nothing waits for the port).
//!
//! **Events** (`events`, [`super::event`]): the DAMQ's, plus `NO_ROUTE` and `MGMT_OFF_VC`,
//! each a one-cycle pulse in the cycle after the route arrived / the head was discarded;
//! `fault` is the `NO_ROUTE` pulse.
//!
//! Reset (synchronous): the DAMQ's reset (every VC empty, credits back to the reservation),
//! every per-VC state idle, the lookup in flight and the agent register dropped.
//!
//! Parameters: `VCS`, `VCB`, `SLOTS`, `AW`, `CW` as [`Damq`]; `PORTS` router ports, `W` =
//! `index_bits(PORTS)`, `PVW` = `VCS * W`, `PVB` = `VCS * VCB`, `PVL` = `VCS * 8`. Use
//! [`input_port!`](crate::input_port) to fill the widths in; elaboration values in
//! [`InputPortParams`].
use super::arrival_stamp::STAMP_BITS;
use super::{event, ArrivalStamp, Damq, DamqParams, HeadRewrite, SwitchRequestSource, VcChoice};
use crate::routing::{defaults, HeadSource, RouteResultSink, NODE_BITS};
use hdl::channel::{ChannelSink, ChannelSource};
use hdl::formats::flit::{HEAD_BIT, TYPE_BIT};
use hdl::formats::header::{DST, KIND, LEN};
use hdl::formats::{PacketKind, FLIT_BITS};
use hdl::mgmt::relay_station::{RsBeatSource, RS_PORT_BITS};
use hdl::params::Config;
use hdl::vc_policy::VcPolicy;
use rust_hdl::prelude::*;

/// The type of an [`InputPort`] with `$vcs` VCs, `$slots` slots and `$ports` router ports,
/// widths filled in: `input_port!(2, 128, 5)`.
#[macro_export]
macro_rules! input_port {
    ($vcs:expr, $slots:expr, $ports:expr) => {
        $crate::port::InputPort<
            { $vcs },
            { hdl::channel::channel_vc_bits($vcs) },
            { $slots },
            { hdl::bits::clog2($slots) },
            { hdl::bits::count_bits($slots) },
            { $ports },
            { hdl::bits::index_bits($ports) },
            { $vcs * hdl::bits::index_bits($ports) },
            { $vcs * hdl::channel::channel_vc_bits($vcs) },
            { $vcs * 8 },
        >
    };
}

/// Elaboration values of an [`InputPort`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputPortParams {
    /// The DAMQ's reservation and longest packet.
    pub damq: DamqParams,
    /// VC of management packets (`network.mgmt_vc`).
    pub mgmt_vc: usize,
    /// The VC policy (`router.vc_policy`).
    pub policy: VcPolicy,
    /// Bit `p`: output port `p` leads down the fat tree (for `up_down`).
    pub down_ports: u64,
}

impl InputPortParams {
    /// The values of `cfg`, with the output ports in `down_ports` leading down.
    pub fn from_config(cfg: &Config, down_ports: u64) -> Self {
        Self {
            damq: DamqParams::from_config(cfg),
            mgmt_vc: cfg.network.mgmt_vc as usize,
            policy: cfg.vc_policy(),
            down_ports,
        }
    }
}

/// One router port's input side; see the module documentation.
#[derive(LogicBlock)]
pub struct InputPort<
    const VCS: usize,
    const VCB: usize,
    const SLOTS: usize,
    const AW: usize,
    const CW: usize,
    const PORTS: usize,
    const W: usize,
    const PVW: usize,
    const PVB: usize,
    const PVL: usize,
> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see the module doc).
    pub reset: Signal<In, bool>,
    /// Flits in from the link layer, credits back.
    pub channel: ChannelSink<VCS, VCB>,
    /// Each VC's offer to the switch; the grant; the flit leaving.
    pub switch: SwitchRequestSource<VCS, VCB, PVW, PVB, PVL>,
    /// Heads to this port's route-compute stage.
    pub route_head: HeadSource,
    /// Their routes, one cycle later.
    pub route: RouteResultSink<PORTS, W>,
    /// Management packets to the relay-station mesh (`port` 0, `last` on the last flit).
    pub to_agent: RsBeatSource<FLIT_BITS, RS_PORT_BITS>,
    /// Bit `e` ([`super::event`]): one-cycle pulses by reason.
    pub events: Signal<Out, Bits<{ event::COUNT }>>,
    /// A head had no route (one-cycle pulse, with the `NO_ROUTE` event).
    pub fault: Signal<Out, bool>,
    /// Bit `p`: a VC holds a routed packet for output port `p` not yet gone.
    pub queued: Signal<Out, Bits<PORTS>>,
    /// Per VC: flits of the VC in the DAMQ now, 8 bits at `v * 8` (a VC holds at most 253:
    /// the router's occupancy-peak counters).
    pub occupancy: Signal<Out, Bits<PVL>>,
    stamp: ArrivalStamp<VCS, VCB>,
    damq: Damq<VCS, VCB, SLOTS, AW, CW>,
    choice: VcChoice<VCB>,
    rewrite: HeadRewrite<VCB>,
    /// One VC's occupancy (a local: `bit_cast` cannot take a loop-indexed port).
    occupancy_now: Signal<Local, Bits<CW>>,
    /// The free-running cycle counter of the delay stamps.
    now: DFF<Bits<STAMP_BITS>>,
    /// A lookup is in flight for VC `pending_vc`, its head's kind and destination.
    pending: DFF<bool>,
    pending_vc: DFF<Bits<VCB>>,
    pending_kind: DFF<Bits<4>>,
    pending_dst: DFF<Bits<NODE_BITS>>,
    /// Per VC: the packet state (see the module doc) and its route.
    routed: Vec<DFF<bool>>,
    moving: Vec<DFF<bool>>,
    dropping: Vec<DFF<bool>>,
    managing: Vec<DFF<bool>>,
    port_index: Vec<DFF<Bits<W>>>,
    port_hot: Vec<DFF<Bits<PORTS>>>,
    out_vc: Vec<DFF<Bits<VCB>>>,
    /// The agent's one-flit register.
    agent_full: DFF<bool>,
    agent_flit: DFF<Bits<FLIT_BITS>>,
    agent_last: DFF<bool>,
    /// The events of this block (`NO_ROUTE`, `MGMT_OFF_VC`), registered.
    own_events: DFF<Bits<{ event::COUNT }>>,
    own_now: Signal<Local, Bits<{ event::COUNT }>>,
    /// Per VC, this cycle: the route arriving is its, its front is a management head, it
    /// discards / feeds the agent, wants a side read, needs a lookup, is granted.
    route_here: Vec<Signal<Local, bool>>,
    mgmt_head: Vec<Signal<Local, bool>>,
    drop_now: Vec<Signal<Local, bool>>,
    agent_now: Vec<Signal<Local, bool>>,
    side_want: Vec<Signal<Local, bool>>,
    need_lookup: Vec<Signal<Local, bool>>,
    granted: Vec<Signal<Local, bool>>,
    side_here: Vec<Signal<Local, bool>>,
    /// Per VC: its front is a 10-flit management head on the management VC (it waits for
    /// its transit decision), and the decision says transit.
    needs_decision: Vec<Signal<Local, bool>>,
    transit_head: Vec<Signal<Local, bool>>,
    /// The decision at the head of the transit FIFO: kind, port, the port one-hot.
    decision_kind: Signal<Local, Bits<2>>,
    decision_port: Signal<Local, Bits<W>>,
    decision_hot: Signal<Local, Bits<PORTS>>,
    /// The side read takes a head with a decision; a malformed route; a decision is used up.
    side_decided: Signal<Local, bool>,
    side_bad_route: Signal<Local, bool>,
    decision_taken: Signal<Local, bool>,
    route_ok: Signal<Local, bool>,
    route_none: Signal<Local, bool>,
    agent_room: Signal<Local, bool>,
    side_found: Signal<Local, bool>,
    side_go: Signal<Local, bool>,
    side_vc: Signal<Local, Bits<VCB>>,
    side_agent: Signal<Local, bool>,
    side_mgmt_drop: Signal<Local, bool>,
    lookup_found: Signal<Local, bool>,
    arrival_lookup: Signal<Local, bool>,
    read_last: Signal<Local, bool>,
    grant_out_vc: Signal<Local, Bits<VCB>>,
    /// The VC being looked at in the per-VC loop: its port, output VC and front's kind.
    port_now: Signal<Local, Bits<W>>,
    out_vc_now: Signal<Local, Bits<VCB>>,
    len_now: Signal<Local, Bits<8>>,
    vc_numbers: Vec<Constant<Bits<VCB>>>,
    port_shifts: Vec<Constant<Bits<8>>>,
    vc_shifts: Vec<Constant<Bits<8>>>,
    len_shifts: Vec<Constant<Bits<8>>>,
    mgmt_vcs: Constant<Bits<VCS>>,
    down_ports: Constant<Bits<PORTS>>,
    kind_mgmt: Constant<Bits<4>>,
    kind_lsb: Constant<Bits<7>>,
    dst_lsb: Constant<Bits<7>>,
    len_lsb: Constant<Bits<7>>,
    type_bit: Constant<Bits<7>>,
    head_bit: Constant<Bits<7>>,
    ev_no_route: Constant<Bits<{ event::COUNT }>>,
    ev_mgmt_off_vc: Constant<Bits<{ event::COUNT }>>,
    ev_bad_route: Constant<Bits<{ event::COUNT }>>,
    /// Management transit on (a router port; off for the stand-alone top and its bench).
    transit_on: Constant<bool>,
    mgmt_len: Constant<Bits<8>>,
    kind_transit: Constant<Bits<2>>,
    kind_agent: Constant<Bits<2>>,
    kind_drop: Constant<Bits<2>>,
    port_bits: Vec<Constant<Bits<PORTS>>>,
    no_event: Constant<Bits<{ event::COUNT }>>,
    no_ports: Constant<Bits<PORTS>>,
    zero_agent_port: Constant<Bits<RS_PORT_BITS>>,
}

impl<
        const VCS: usize,
        const VCB: usize,
        const SLOTS: usize,
        const AW: usize,
        const CW: usize,
        const PORTS: usize,
        const W: usize,
        const PVW: usize,
        const PVB: usize,
        const PVL: usize,
    > InputPort<VCS, VCB, SLOTS, AW, CW, PORTS, W, PVW, PVB, PVL>
{
    /// The input port for `p` without management transit (every management packet goes to
    /// the agent); panics naming the parameter as [`Damq::new`] and [`VcChoice::new`], or if
    /// the packed widths disagree.
    pub fn new(p: InputPortParams) -> Self {
        Self::built(p, Damq::new(p.damq), false)
    }

    /// The input port `port` of a router for `p`, management packets source routed
    /// ([`super::MgmtTransit`]: forwarded on the data plane, dropped if malformed, or to the
    /// agent when their route ends here).
    pub fn with_transit(p: InputPortParams, port: usize) -> Self {
        Self::built(p, Damq::with_transit(p.damq, p.mgmt_vc, port, PORTS), true)
    }

    fn built(p: InputPortParams, damq: Damq<VCS, VCB, SLOTS, AW, CW>, transit: bool) -> Self {
        assert!(
            (2..=32).contains(&PORTS),
            "InputPort: PORTS (router ports) must be 2..=32 (5-bit hops), got {PORTS}"
        );
        assert_eq!(W, hdl::bits::index_bits(PORTS), "InputPort: W");
        assert_eq!(PVW, VCS * W, "InputPort: PVW = VCS * W");
        assert_eq!(PVB, VCS * VCB, "InputPort: PVB = VCS * VCB");
        assert_eq!(PVL, VCS * 8, "InputPort: PVL = VCS * 8");
        assert_eq!(LEN.width, 8, "lens are 8 bits");
        assert_eq!(KIND.width, 4, "kinds are 4 bits");
        assert!(
            p.down_ports < 1 << PORTS,
            "InputPort: down_ports {:#x} names ports beyond {PORTS}",
            p.down_ports
        );
        let c = |v: usize| Constant::new(Bits::<8>::from(v as u64));
        let pos = |v: usize| Constant::new(Bits::<7>::from(v as u64));
        let ev = |e: usize| Constant::new(Bits::<{ event::COUNT }>::from(1u64 << e));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            channel: Default::default(),
            switch: Default::default(),
            route_head: Default::default(),
            route: Default::default(),
            to_agent: Default::default(),
            events: Default::default(),
            fault: Default::default(),
            queued: Default::default(),
            occupancy: Default::default(),
            occupancy_now: Default::default(),
            stamp: ArrivalStamp::new(),
            damq,
            choice: VcChoice::new(p.policy, VCS, p.mgmt_vc),
            rewrite: HeadRewrite::new(),
            now: Default::default(),
            pending: Default::default(),
            pending_vc: Default::default(),
            pending_kind: Default::default(),
            pending_dst: Default::default(),
            routed: defaults(VCS),
            moving: defaults(VCS),
            dropping: defaults(VCS),
            managing: defaults(VCS),
            port_index: defaults(VCS),
            port_hot: defaults(VCS),
            out_vc: defaults(VCS),
            agent_full: Default::default(),
            agent_flit: Default::default(),
            agent_last: Default::default(),
            own_events: Default::default(),
            own_now: Default::default(),
            route_here: defaults(VCS),
            mgmt_head: defaults(VCS),
            drop_now: defaults(VCS),
            agent_now: defaults(VCS),
            side_want: defaults(VCS),
            need_lookup: defaults(VCS),
            granted: defaults(VCS),
            side_here: defaults(VCS),
            needs_decision: defaults(VCS),
            transit_head: defaults(VCS),
            decision_kind: Default::default(),
            decision_port: Default::default(),
            decision_hot: Default::default(),
            side_decided: Default::default(),
            side_bad_route: Default::default(),
            decision_taken: Default::default(),
            route_ok: Default::default(),
            route_none: Default::default(),
            agent_room: Default::default(),
            side_found: Default::default(),
            side_go: Default::default(),
            side_vc: Default::default(),
            side_agent: Default::default(),
            side_mgmt_drop: Default::default(),
            lookup_found: Default::default(),
            arrival_lookup: Default::default(),
            read_last: Default::default(),
            grant_out_vc: Default::default(),
            port_now: Default::default(),
            out_vc_now: Default::default(),
            len_now: Default::default(),
            vc_numbers: (0..VCS)
                .map(|v| Constant::new(Bits::from(v as u64)))
                .collect(),
            port_shifts: (0..VCS).map(|v| c(v * W)).collect(),
            vc_shifts: (0..VCS).map(|v| c(v * VCB)).collect(),
            len_shifts: (0..VCS).map(|v| c(v * 8)).collect(),
            mgmt_vcs: Constant::new(Bits::from(1u64 << p.mgmt_vc)),
            down_ports: Constant::new(Bits::from(p.down_ports)),
            kind_mgmt: Constant::new((PacketKind::Mgmt.code() as u64).into()),
            kind_lsb: pos(KIND.lsb),
            dst_lsb: pos(DST.lsb),
            len_lsb: pos(LEN.lsb),
            type_bit: pos(TYPE_BIT),
            head_bit: pos(HEAD_BIT),
            ev_no_route: ev(event::NO_ROUTE),
            ev_mgmt_off_vc: ev(event::MGMT_OFF_VC),
            ev_bad_route: ev(event::BAD_ROUTE),
            transit_on: Constant::new(transit),
            mgmt_len: Constant::new((hdl::formats::mgmt::MGMT_FLITS as u64).into()),
            kind_transit: Constant::new(super::mgmt_transit::TRANSIT.into()),
            kind_agent: Constant::new(super::mgmt_transit::TO_AGENT.into()),
            kind_drop: Constant::new(super::mgmt_transit::DROP.into()),
            port_bits: (0..PORTS)
                .map(|q| Constant::new((1u64 << q).into()))
                .collect(),
            no_event: Constant::new(0u64.into()),
            no_ports: Constant::new(0u64.into()),
            zero_agent_port: Constant::new(0u64.into()),
        }
    }
}

impl<
        const VCS: usize,
        const VCB: usize,
        const SLOTS: usize,
        const AW: usize,
        const CW: usize,
        const PORTS: usize,
        const W: usize,
        const PVW: usize,
        const PVB: usize,
        const PVL: usize,
    > Logic for InputPort<VCS, VCB, SLOTS, AW, CW, PORTS, W, PVW, PVB, PVL>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            now,
            pending,
            pending_vc,
            pending_kind,
            pending_dst,
            agent_full,
            agent_flit,
            agent_last,
            own_events
        );
        self.damq.clock.next = self.clock.val();
        self.damq.reset.next = self.reset.val();
        self.occupancy.next = 0.into();
        for v in 0..VCS {
            self.occupancy_now.next = self.damq.occupancy[v].val();
            self.occupancy.next = self.occupancy.val()
                | (bit_cast::<PVL, CW>(self.occupancy_now.val()) << self.len_shifts[v].val());
        }
        self.now.d.next = self.now.q.val() + 1;
        // Arrival: heads stamped, into the DAMQ.
        ChannelSink::<VCS, VCB>::link(&mut self.channel, &mut self.stamp.inbound);
        ChannelSource::<VCS, VCB>::join(&mut self.stamp.outbound, &mut self.damq.channel);
        self.stamp.now.next = self.now.q.val();
        // The route of the lookup in flight, and its output VC.
        self.route_ok.next =
            self.route.valid.val() & self.pending.q.val() & !self.route.no_route.val();
        self.route_none.next =
            self.route.valid.val() & self.pending.q.val() & self.route.no_route.val();
        self.choice.in_vc.next = self.pending_vc.q.val();
        self.choice.kind.next = self.pending_kind.q.val();
        self.choice.dst.next = self.pending_dst.q.val();
        self.choice.down.next = (self.route.port.val() & self.down_ports.val()).any();
        self.agent_room.next = !self.agent_full.q.val() | self.to_agent.ready.val();
        // Per VC: what its front may do, and its offer to the switch.
        self.switch.ready.next = 0.into();
        self.switch.head.next = self.damq.waiting.val();
        self.switch.last.next = 0.into();
        self.switch.ports.next = 0.into();
        self.switch.out_vcs.next = 0.into();
        self.switch.lens.next = 0.into();
        self.grant_out_vc.next = self.choice.out_vc.val();
        // The management transit's decision for the management VC's front head.
        self.decision_kind.next = self.damq.decisions.data.val().get_bits::<2>(0);
        self.decision_port.next = self.damq.decisions.data.val().get_bits::<W>(2);
        self.decision_hot.next = self.no_ports.val();
        for q in 0..PORTS {
            if self.decision_port.val().index() == q {
                self.decision_hot.next = self.port_bits[q].val();
            }
        }
        for v in 0..VCS {
            self.route_here[v].next = (self.pending_vc.q.val().index() == v)
                & (self.route_ok.val() | self.route_none.val());
            self.mgmt_head[v].next = self.damq.waiting.val().get_bit(v)
                & (self.damq.fronts[v]
                    .val()
                    .get_bits::<4>(self.kind_lsb.val().index())
                    == self.kind_mgmt.val());
            // A 10-flit management head on the management VC waits for its transit decision.
            self.needs_decision[v].next = self.mgmt_head[v].val()
                & self.mgmt_vcs.val().get_bit(v)
                & self.transit_on.val()
                & (self.damq.fronts[v]
                    .val()
                    .get_bits::<8>(self.len_lsb.val().index())
                    == self.mgmt_len.val());
            self.transit_head[v].next = self.needs_decision[v].val()
                & self.damq.decisions.valid.val()
                & (self.decision_kind.val() == self.kind_transit.val());
            self.agent_now[v].next = self.managing[v].q.val()
                | (self.mgmt_head[v].val()
                    & self.mgmt_vcs.val().get_bit(v)
                    & (!self.needs_decision[v].val()
                        | (self.damq.decisions.valid.val()
                            & (self.decision_kind.val() == self.kind_agent.val()))));
            self.drop_now[v].next = self.dropping[v].q.val()
                | (self.mgmt_head[v].val() & !self.mgmt_vcs.val().get_bit(v))
                | (self.route_here[v].val() & self.route_none.val())
                | (self.needs_decision[v].val()
                    & self.damq.decisions.valid.val()
                    & (self.decision_kind.val() == self.kind_drop.val()));
            self.side_want[v].next = self.damq.ready.val().get_bit(v)
                & (self.drop_now[v].val() | (self.agent_now[v].val() & self.agent_room.val()));
            self.need_lookup[v].next = self.damq.waiting.val().get_bit(v)
                & !self.mgmt_head[v].val()
                & !self.routed[v].q.val()
                & !self.dropping[v].q.val()
                & !(self.pending.q.val() & (self.pending_vc.q.val().index() == v));
            self.switch.ready.next = self.switch.ready.val().replace_bit(
                v,
                (self.damq.waiting.val().get_bit(v)
                    & !self.mgmt_head[v].val()
                    & (self.routed[v].q.val() | (self.route_here[v].val() & self.route_ok.val())))
                    | (self.moving[v].q.val() & self.damq.ready.val().get_bit(v))
                    | self.transit_head[v].val(),
            );
            self.switch.last.next = self.switch.last.val().replace_bit(
                v,
                self.damq.ready.val().get_bit(v)
                    & !self.damq.fronts[v]
                        .val()
                        .get_bit(self.type_bit.val().index())
                    & !self.damq.fronts[v]
                        .val()
                        .get_bit(self.head_bit.val().index()),
            );
            self.port_now.next = self.route.index.val();
            self.out_vc_now.next = self.choice.out_vc.val();
            if self.routed[v].q.val() | self.moving[v].q.val() {
                self.port_now.next = self.port_index[v].q.val();
                self.out_vc_now.next = self.out_vc[v].q.val();
            }
            if self.transit_head[v].val() {
                self.port_now.next = self.decision_port.val();
                self.out_vc_now.next = self.vc_numbers[v].val();
            }
            if self.switch.grant_vc.val().index() == v {
                self.grant_out_vc.next = self.out_vc_now.val();
            }
            self.len_now.next = self.damq.fronts[v]
                .val()
                .get_bits::<8>(self.len_lsb.val().index());
            self.switch.ports.next = self.switch.ports.val()
                | (bit_cast::<PVW, W>(self.port_now.val()) << self.port_shifts[v].val());
            self.switch.out_vcs.next = self.switch.out_vcs.val()
                | (bit_cast::<PVB, VCB>(self.out_vc_now.val()) << self.vc_shifts[v].val());
            self.switch.lens.next = self.switch.lens.val()
                | (bit_cast::<PVL, 8>(self.len_now.val()) << self.len_shifts[v].val());
        }
        // The side read: the lowest VC discarding or feeding the agent, when not granted.
        self.side_found.next = false;
        self.side_vc.next = self.vc_numbers[0].val();
        self.side_agent.next = false;
        self.side_mgmt_drop.next = false;
        self.side_decided.next = false;
        self.side_bad_route.next = false;
        self.lookup_found.next = false;
        self.route_head.flit.next = self.channel.flit.val();
        self.pending_vc.d.next = self.channel.vc.val();
        for v in 0..VCS {
            if self.side_want[v].val() & !self.side_found.val() {
                self.side_found.next = true;
                self.side_vc.next = self.vc_numbers[v].val();
                self.side_agent.next = self.agent_now[v].val();
                self.side_mgmt_drop.next =
                    self.mgmt_head[v].val() & !self.mgmt_vcs.val().get_bit(v);
                self.side_decided.next = self.needs_decision[v].val();
                self.side_bad_route.next = self.needs_decision[v].val()
                    & (self.decision_kind.val() == self.kind_drop.val());
            }
        }
        self.side_go.next = self.side_found.val() & !self.switch.grant.val();
        self.damq.read.valid.next = self.switch.grant.val() | self.side_go.val();
        // A transit decision is used up when its head leaves: granted, or read to the agent or
        // the bin.
        self.decision_taken.next = self.side_go.val() & self.side_decided.val();
        for v in 0..VCS {
            if self.switch.grant.val()
                & (self.switch.grant_vc.val().index() == v)
                & self.transit_head[v].val()
            {
                self.decision_taken.next = true;
            }
        }
        self.damq.decisions.ready.next = self.decision_taken.val() & !self.reset.val();
        self.damq.read.vc.next = self.side_vc.val();
        self.rewrite.out_vc.next = self.side_vc.val();
        if self.switch.grant.val() {
            self.damq.read.vc.next = self.switch.grant_vc.val();
            self.rewrite.out_vc.next = self.grant_out_vc.val();
        }
        self.rewrite.flit.next = self.damq.read.flit.val();
        self.rewrite.now.next = self.now.q.val();
        self.switch.flit.next = self.rewrite.rewritten.val();
        self.read_last.next = !self
            .damq
            .read
            .flit
            .val()
            .get_bit(self.type_bit.val().index())
            & !self
                .damq
                .read
                .flit
                .val()
                .get_bit(self.head_bit.val().index());
        // The lookup: the head arriving at an idle VC first, else the lowest unrouted front.
        self.arrival_lookup.next = self.damq.bypass_head.val()
            & (self
                .channel
                .flit
                .val()
                .get_bits::<4>(self.kind_lsb.val().index())
                != self.kind_mgmt.val());
        if !self.arrival_lookup.val() {
            for v in 0..VCS {
                if self.need_lookup[v].val() & !self.lookup_found.val() {
                    self.lookup_found.next = true;
                    self.route_head.flit.next = self.damq.fronts[v].val();
                    self.pending_vc.d.next = self.vc_numbers[v].val();
                }
            }
        }
        self.route_head.valid.next = self.arrival_lookup.val() | self.lookup_found.val();
        self.pending.d.next = self.route_head.valid.val() & !self.reset.val();
        self.pending_kind.d.next = self
            .route_head
            .flit
            .val()
            .get_bits::<4>(self.kind_lsb.val().index());
        self.pending_dst.d.next = self
            .route_head
            .flit
            .val()
            .get_bits::<NODE_BITS>(self.dst_lsb.val().index());
        // The agent's register.
        if self.to_agent.ready.val() {
            self.agent_full.d.next = false;
        }
        if self.side_go.val() & self.side_agent.val() {
            self.agent_full.d.next = true;
            self.agent_flit.d.next = self.rewrite.rewritten.val();
            self.agent_last.d.next = self.read_last.val();
        }
        self.to_agent.valid.next = self.agent_full.q.val();
        self.to_agent.data.next = self.agent_flit.q.val();
        self.to_agent.last.next = self.agent_last.q.val();
        self.to_agent.port.next = self.zero_agent_port.val();
        // Per-VC state.
        self.queued.next = self.no_ports.val();
        for v in 0..VCS {
            self.routed[v].clock.next = self.clock.val();
            self.moving[v].clock.next = self.clock.val();
            self.dropping[v].clock.next = self.clock.val();
            self.managing[v].clock.next = self.clock.val();
            self.port_index[v].clock.next = self.clock.val();
            self.port_hot[v].clock.next = self.clock.val();
            self.out_vc[v].clock.next = self.clock.val();
            self.routed[v].d.next = self.routed[v].q.val();
            self.moving[v].d.next = self.moving[v].q.val();
            self.dropping[v].d.next = self.dropping[v].q.val();
            self.managing[v].d.next = self.managing[v].q.val();
            self.port_index[v].d.next = self.port_index[v].q.val();
            self.port_hot[v].d.next = self.port_hot[v].q.val();
            self.out_vc[v].d.next = self.out_vc[v].q.val();
            if self.routed[v].q.val() | self.moving[v].q.val() {
                self.queued.next = self.queued.val() | self.port_hot[v].q.val();
            }
            self.granted[v].next =
                self.switch.grant.val() & (self.switch.grant_vc.val().index() == v);
            self.side_here[v].next = self.side_go.val() & (self.side_vc.val().index() == v);
            if self.route_here[v].val() & self.route_ok.val() {
                self.routed[v].d.next = true;
                self.port_index[v].d.next = self.route.index.val();
                self.port_hot[v].d.next = self.route.port.val();
                self.out_vc[v].d.next = self.choice.out_vc.val();
            }
            if self.route_here[v].val() & self.route_none.val() {
                self.dropping[v].d.next = true;
            }
            if self.granted[v].val() & self.transit_head[v].val() {
                // A transit head leaves: its bodies follow on the decision's port.
                self.port_index[v].d.next = self.decision_port.val();
                self.port_hot[v].d.next = self.decision_hot.val();
                self.out_vc[v].d.next = self.vc_numbers[v].val();
            }
            if self.granted[v].val() {
                if self.damq.waiting.val().get_bit(v) {
                    self.routed[v].d.next = false;
                    self.moving[v].d.next = true;
                }
                if self.read_last.val() {
                    self.moving[v].d.next = false;
                }
            }
            if self.side_here[v].val() {
                if self.side_agent.val() {
                    self.managing[v].d.next = !self.read_last.val();
                } else {
                    self.dropping[v].d.next = !self.read_last.val();
                }
            }
            if self.reset.val() {
                self.routed[v].d.next = false;
                self.moving[v].d.next = false;
                self.dropping[v].d.next = false;
                self.managing[v].d.next = false;
            }
        }
        // Events: this block's, registered, beside the DAMQ's.
        self.own_now.next = self.no_event.val();
        if self.route_none.val() {
            self.own_now.next = self.ev_no_route.val();
        }
        if self.side_go.val() & self.side_bad_route.val() {
            self.own_now.next = self.own_now.val() | self.ev_bad_route.val();
        }
        if self.side_go.val() & self.side_mgmt_drop.val() {
            self.own_now.next = self.own_now.val() | self.ev_mgmt_off_vc.val();
        }
        self.own_events.d.next = self.own_now.val();
        if self.reset.val() {
            self.own_events.d.next = self.no_event.val();
            self.agent_full.d.next = false;
        }
        self.events.next = self.damq.events.val() | self.own_events.q.val();
        self.fault.next = (self.own_events.q.val() & self.ev_no_route.val()).any();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn input_port_is_synthesizable() {
        use super::*;
        let p = InputPortParams {
            damq: DamqParams {
                reserve: 6,
                max_len: 6,
            },
            mgmt_vc: 2,
            policy: VcPolicy::DestMod,
            down_ports: 0b1100,
        };
        let mut uut = <crate::input_port!(3, 32, 5)>::new(p);
        uut.connect_all();
        yosys_validate("input_port", &generate_verilog(&uut)).unwrap();
    }
}
