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
//! head in to head out at zero load**. With the **route stage** (`router.route_stage`, on by
//! default) the route is only registered in `c + 1` and the head is offered in `c + 2`:
//! **three cycles**, and the adaptive route computation (table read, port choice over the
//! output ports' credits and queues, VC policy) no longer runs into the switch allocator in
//! the same cycle (that chain set the clock of the 5-port `nrc_top`: 17 MHz on ECP5-85k).
//! A head that becomes the front later (from the RAM, behind other packets) is looked up
//! from the front then: one cycle of route latency more.
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
//! **Output VC** ([`VcChoice`](super::VcChoice), the rule of [`hdl::vc_policy`]) from the
//! head's input VC, kind, destination and whether the chosen port is in the port's
//! `down_ports` mask (a constructor value: the output ports that lead down the fat tree).
//!
//! **Head rewrite** ([`ArrivalStamp`] in, [`HeadRewrite`](super::HeadRewrite) out):
//! `switch.flit` is the granted front with a head's `vc` = its output VC and `delay` = the
//! arrival delay plus the cycles from the input channel to the output channel (exactly 2 at
//! zero load, 3 with the route stage), saturating at 4095.
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
//! **Blocks** (this file only wires them and registers the events): [`ArrivalStamp`], the
//! [`Damq`], [`RouteRequest`] (the lookups, with [`VcChoice`](super::VcChoice)), [`VcFronts`]
//! (what each VC's front may do: the offer to the switch, side reads, lookups), [`VcFlags`]
//! (the per-VC state) and [`ReadPort`] (the DAMQ's read port: grant or side read, the
//! decisions, [`HeadRewrite`](super::HeadRewrite), the agent's register), joined by the
//! bundles of [`super`] (`RouteArrival`, `VcStatus`, `TransitDecision`, `SideIntent`,
//! `ReadOutcome`). The DAMQ's `fronts` go to two of them as a vector (a bundle cannot hold
//! one), and the route lookup taps the channel's flit and VC.
//!
//! Parameters: `VCS`, `VCB`, `SLOTS`, `AW`, `CW` as [`Damq`]; `PORTS` router ports, `W` =
//! `index_bits(PORTS)`, `PVW` = `VCS * W`, `PVB` = `VCS * VCB`, `PVL` = `VCS * 8`. Use
//! [`input_port!`](crate::input_port) to fill the widths in; elaboration values in
//! [`InputPortParams`].
use super::arrival_stamp::STAMP_BITS;
use super::mgmt_transit::DECISION_BITS;
use super::{
    event, ArrivalStamp, Damq, DamqParams, ReadOutcomeSource, ReadPort, RouteArrivalSource,
    RouteRequest, SideIntentSource, SwitchRequestSource, TransitDecisionSource, VcFlags, VcFronts,
    VcReadSource, VcStatusSource,
};
use crate::routing::{HeadSource, RouteResultSink};
use hdl::channel::{ChannelSink, ChannelSource};
use hdl::formats::header::{KIND, LEN};
use hdl::formats::FLIT_BITS;
use hdl::mgmt::relay_station::{RsBeatSource, RS_PORT_BITS};
use hdl::params::Config;
use hdl::stream::StreamSource;
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
    /// The route stage (`router.route_stage`): a head is offered to the switch only once its
    /// route is registered, one cycle after it arrives (see the module documentation).
    pub route_stage: bool,
}

impl InputPortParams {
    /// The values of `cfg`, with the output ports in `down_ports` leading down.
    pub fn from_config(cfg: &Config, down_ports: u64) -> Self {
        Self {
            damq: DamqParams::from_config(cfg),
            mgmt_vc: cfg.network.mgmt_vc as usize,
            policy: cfg.vc_policy(),
            down_ports,
            route_stage: cfg.router.route_stage == 1,
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
    request: RouteRequest<VCS, VCB, PORTS, W>,
    fronts: VcFronts<VCS, VCB, PORTS, W, PVW, PVB, PVL>,
    flags: VcFlags<VCS, VCB, PORTS, W, PVW, PVB>,
    read_port: ReadPort<VCS, VCB, PORTS, W>,
    /// One VC's occupancy (a local: `bit_cast` cannot take a loop-indexed port).
    occupancy_now: Signal<Local, Bits<CW>>,
    /// The free-running cycle counter of the delay stamps.
    now: DFF<Bits<STAMP_BITS>>,
    /// The events of this block (`NO_ROUTE`, `MGMT_OFF_VC`, `BAD_ROUTE`), registered.
    own_events: DFF<Bits<{ event::COUNT }>>,
    own_now: Signal<Local, Bits<{ event::COUNT }>>,
    len_shifts: Vec<Constant<Bits<8>>>,
    ev_no_route: Constant<Bits<{ event::COUNT }>>,
    ev_mgmt_off_vc: Constant<Bits<{ event::COUNT }>>,
    ev_bad_route: Constant<Bits<{ event::COUNT }>>,
    no_event: Constant<Bits<{ event::COUNT }>>,
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
            request: RouteRequest::new(p.policy, p.mgmt_vc, p.down_ports),
            fronts: VcFronts::new(p.mgmt_vc, transit, p.route_stage),
            flags: VcFlags::new(),
            read_port: ReadPort::new(),
            now: Default::default(),
            own_events: Default::default(),
            own_now: Default::default(),
            len_shifts: (0..VCS).map(|v| c(v * 8)).collect(),
            ev_no_route: ev(event::NO_ROUTE),
            ev_mgmt_off_vc: ev(event::MGMT_OFF_VC),
            ev_bad_route: ev(event::BAD_ROUTE),
            no_event: Constant::new(0u64.into()),
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
        dff_setup!(self, clock, now, own_events);
        self.damq.clock.next = self.clock.val();
        self.damq.reset.next = self.reset.val();
        self.request.clock.next = self.clock.val();
        self.request.reset.next = self.reset.val();
        self.flags.clock.next = self.clock.val();
        self.flags.reset.next = self.reset.val();
        self.read_port.clock.next = self.clock.val();
        self.read_port.reset.next = self.reset.val();
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
        // The fronts (a vector: a bundle cannot hold one) to the lookups and the per-VC view.
        for v in 0..VCS {
            self.request.fronts[v].next = self.damq.fronts[v].val();
            self.fronts.fronts[v].next = self.damq.fronts[v].val();
        }
        // Route lookups: the channel's head (a tap of the channel, which goes whole to the
        // stamp) or an unrouted front.
        self.request.arrival_flit.next = self.channel.flit.val();
        self.request.arrival_vc.next = self.channel.vc.val();
        self.request.bypass_head.next = self.damq.bypass_head.val();
        self.request.need_lookup.next = self.fronts.need_lookup.val();
        HeadSource::link(&mut self.route_head, &mut self.request.route_head);
        RouteResultSink::<PORTS, W>::link(&mut self.route, &mut self.request.route);
        RouteArrivalSource::<PORTS, W, VCB>::join(
            &mut self.request.arrival,
            &mut self.fronts.arrival,
        );
        RouteArrivalSource::<PORTS, W, VCB>::join(
            &mut self.request.arrival,
            &mut self.flags.arrival,
        );
        // What each front may do, from the packet state and the transit decision.
        self.fronts.waiting.next = self.damq.waiting.val();
        self.fronts.has_flit.next = self.damq.ready.val();
        self.fronts.agent_room.next = self.read_port.room.val();
        self.fronts.grant_vc.next = self.switch.grant_vc.val();
        VcStatusSource::<VCS, PVW, PVB>::join(&mut self.flags.status, &mut self.fronts.status);
        TransitDecisionSource::<PORTS, W>::join(
            &mut self.read_port.decision,
            &mut self.fronts.decision,
        );
        TransitDecisionSource::<PORTS, W>::join(
            &mut self.read_port.decision,
            &mut self.flags.decision,
        );
        SideIntentSource::<VCS, VCB>::join(&mut self.fronts.intents, &mut self.read_port.intents);
        SideIntentSource::<VCS, VCB>::join(&mut self.fronts.intents, &mut self.flags.intents);
        // The offer to the switch.
        self.switch.ready.next = self.fronts.ready.val();
        self.switch.head.next = self.damq.waiting.val();
        self.switch.last.next = self.fronts.last.val();
        self.switch.ports.next = self.fronts.ports.val();
        self.switch.out_vcs.next = self.fronts.out_vcs.val();
        self.switch.lens.next = self.fronts.lens.val();
        // The read port: the switch's grant, side reads, decisions, the agent's register.
        VcReadSource::<VCB>::join(&mut self.read_port.read, &mut self.damq.read);
        StreamSource::<Bits<DECISION_BITS>>::join(
            &mut self.damq.decisions,
            &mut self.read_port.decisions,
        );
        RsBeatSource::<FLIT_BITS, RS_PORT_BITS>::link(
            &mut self.to_agent,
            &mut self.read_port.to_agent,
        );
        self.read_port.grant.next = self.switch.grant.val();
        self.read_port.grant_vc.next = self.switch.grant_vc.val();
        self.read_port.now.next = self.now.q.val();
        self.switch.flit.next = self.read_port.rewritten.val();
        // The per-VC packet state.
        self.flags.waiting.next = self.damq.waiting.val();
        ReadOutcomeSource::<VCB>::join(&mut self.read_port.outcome, &mut self.flags.outcome);
        self.queued.next = self.flags.queued.val();
        // Events: this block's, registered, beside the DAMQ's.
        self.own_now.next = self.no_event.val();
        if self.request.arrival.none.val() {
            self.own_now.next = self.ev_no_route.val();
        }
        if self.read_port.bad_route.val() {
            self.own_now.next = self.own_now.val() | self.ev_bad_route.val();
        }
        if self.read_port.off_vc.val() {
            self.own_now.next = self.own_now.val() | self.ev_mgmt_off_vc.val();
        }
        self.own_events.d.next = self.own_now.val();
        if self.reset.val() {
            self.own_events.d.next = self.no_event.val();
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
            route_stage: true,
        };
        let mut uut = <crate::input_port!(3, 32, 5)>::new(p);
        uut.connect_all();
        yosys_validate("input_port", &generate_verilog(&uut)).unwrap();
    }
}
