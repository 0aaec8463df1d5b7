//! `VcFronts`: what the front flit of each VC of an input port ([`InputPort`](super::InputPort))
//! may do in this cycle: the offer to the switch, a side read (to the agent or discarded), a
//! route lookup. Combinational, from the DAMQ's view of the fronts, the registered packet state
//! ([`VcFlags`](super::VcFlags), `status`), the route arriving (`arrival`) and the management
//! transit's decision (`decision`).
//!
//! Per VC `v`:
//! - a *management head*: the front is a head of kind `Mgmt`; on the management VC of a port
//!   built with transit, a 10-flit one waits for its transit decision (`decided`), which says
//!   transit (`transits`: the VC is `ready` with the decision's port and its own VC as output
//!   VC), to the agent, or drop (`bad_routes`);
//! - `agents`: the rest of a managed packet, or a management head on the management VC going
//!   to the agent (no decision needed, or the decision says so);
//! - discarded: the rest of a dropped packet, a management head off the management VC
//!   (`mgmt_drops`), a head whose route arrives with none, a head whose decision says drop;
//! - `wants`: either, with a flit to read (for the agent also `agent_room`);
//! - `need_lookup`: a head, not a management head, not routed, not being dropped, no lookup in
//!   flight for it;
//! - `ready`: a head (not management) with its route (registered, or arriving now), a flit of
//!   a moving packet, or a transit head; `last`: the front ends its packet (a tail or a
//!   TailBadPkt); `ports`, `out_vcs`: the registered route once routed or moving, else the
//!   arriving one, the decision's for a transit head; `lens`: the front's `len` field.
//! - With the **route stage** (`router.route_stage`), the arriving route is only registered
//!   (by [`VcFlags`](super::VcFlags)): a head is `ready`, and a head without a route
//!   discarded, from the cycle after, and `ports`/`out_vcs` always come from the registers, so
//!   no path runs from the route computation to the switch.
//! - `grant_out_vc`: the output VC of the VC the switch grants (`grant_vc`).
//!
//! No state, no reset. A pipeline stage of the input port: no bench of its own, covered by the
//! `input_port` bench.
//!
//! Parameters: `VCS`, `VCB`, `PORTS`, `W`, `PVW`, `PVB`, `PVL` as [`InputPort`](super::InputPort);
//! elaboration values: the management VC, and whether management transit is on.
use super::{RouteArrivalSink, SideIntentSource, TransitDecisionSink, VcStatusSink};
use crate::routing::defaults;
use hdl::formats::flit::{HEAD_BIT, TYPE_BIT};
use hdl::formats::header::{KIND, LEN};
use hdl::formats::{PacketKind, FLIT_BITS};
use rust_hdl::prelude::*;

/// What each VC's front may do; see the module documentation.
#[derive(LogicBlock)]
pub struct VcFronts<
    const VCS: usize,
    const VCB: usize,
    const PORTS: usize,
    const W: usize,
    const PVW: usize,
    const PVB: usize,
    const PVL: usize,
> {
    /// Each VC's front flit (the DAMQ's `fronts`).
    pub fronts: Vec<Signal<In, Bits<FLIT_BITS>>>,
    /// Bit `v`: VC `v`'s front is a head (the DAMQ's `waiting`).
    pub waiting: Signal<In, Bits<VCS>>,
    /// Bit `v`: VC `v` has a flit to read (the DAMQ's `ready`).
    pub has_flit: Signal<In, Bits<VCS>>,
    /// The route of the lookup in flight.
    pub arrival: RouteArrivalSink<PORTS, W, VCB>,
    /// The registered packet state.
    pub status: VcStatusSink<VCS, PVW, PVB>,
    /// The management transit's decision.
    pub decision: TransitDecisionSink<PORTS, W>,
    /// The agent's register can take a flit in this cycle.
    pub agent_room: Signal<In, bool>,
    /// The VC the switch grants (if it grants).
    pub grant_vc: Signal<In, Bits<VCB>>,
    /// Bit `v`: VC `v`'s front can move if granted.
    pub ready: Signal<Out, Bits<VCS>>,
    /// Bit `v`: that front ends its packet.
    pub last: Signal<Out, Bits<VCS>>,
    /// VC `v`'s output port number, bits `v * W ..`.
    pub ports: Signal<Out, Bits<PVW>>,
    /// VC `v`'s output VC, bits `v * VCB ..`.
    pub out_vcs: Signal<Out, Bits<PVB>>,
    /// VC `v`'s front's `len`, bits `v * 8 ..`.
    pub lens: Signal<Out, Bits<PVL>>,
    /// Bit `v`: VC `v`'s front needs a route lookup.
    pub need_lookup: Signal<Out, Bits<VCS>>,
    /// What each VC wants of the read port.
    pub intents: SideIntentSource<VCS, VCB>,
    /// Per VC, this cycle: the route arriving is its, its front is a management head, waits
    /// for its decision, leaves in transit, goes to the agent, is discarded.
    route_here: Vec<Signal<Local, bool>>,
    mgmt_head: Vec<Signal<Local, bool>>,
    needs_decision: Vec<Signal<Local, bool>>,
    transit_head: Vec<Signal<Local, bool>>,
    agent_now: Vec<Signal<Local, bool>>,
    drop_now: Vec<Signal<Local, bool>>,
    /// The VC being looked at in the per-VC loop: its flags, port, output VC and front's len.
    routed_now: Signal<Local, bool>,
    moving_now: Signal<Local, bool>,
    port_now: Signal<Local, Bits<W>>,
    out_vc_now: Signal<Local, Bits<VCB>>,
    len_now: Signal<Local, Bits<8>>,
    /// The one-hot port of the route and of the decision: not needed here (the numbers are).
    unused_inputs: Signal<Local, bool>,
    vc_numbers: Vec<Constant<Bits<VCB>>>,
    port_shifts: Vec<Constant<Bits<8>>>,
    vc_shifts: Vec<Constant<Bits<8>>>,
    len_shifts: Vec<Constant<Bits<8>>>,
    mgmt_vcs: Constant<Bits<VCS>>,
    transit_on: Constant<bool>,
    /// The route stage: the arriving route reaches only the registers.
    staged: Constant<bool>,
    mgmt_len: Constant<Bits<8>>,
    kind_mgmt: Constant<Bits<4>>,
    kind_lsb: Constant<Bits<7>>,
    len_lsb: Constant<Bits<7>>,
    type_bit: Constant<Bits<7>>,
    head_bit: Constant<Bits<7>>,
}

impl<
        const VCS: usize,
        const VCB: usize,
        const PORTS: usize,
        const W: usize,
        const PVW: usize,
        const PVB: usize,
        const PVL: usize,
    > VcFronts<VCS, VCB, PORTS, W, PVW, PVB, PVL>
{
    /// The fronts of a port whose management VC is `mgmt_vc`, with management transit when
    /// `transit`, with the route stage when `staged`.
    pub fn new(mgmt_vc: usize, transit: bool, staged: bool) -> Self {
        let c = |v: usize| Constant::new(Bits::<8>::from(v as u64));
        let pos = |v: usize| Constant::new(Bits::<7>::from(v as u64));
        Self {
            fronts: defaults(VCS),
            waiting: Default::default(),
            has_flit: Default::default(),
            arrival: Default::default(),
            status: Default::default(),
            decision: Default::default(),
            agent_room: Default::default(),
            grant_vc: Default::default(),
            ready: Default::default(),
            last: Default::default(),
            ports: Default::default(),
            out_vcs: Default::default(),
            lens: Default::default(),
            need_lookup: Default::default(),
            intents: Default::default(),
            route_here: defaults(VCS),
            mgmt_head: defaults(VCS),
            needs_decision: defaults(VCS),
            transit_head: defaults(VCS),
            agent_now: defaults(VCS),
            drop_now: defaults(VCS),
            routed_now: Default::default(),
            moving_now: Default::default(),
            port_now: Default::default(),
            out_vc_now: Default::default(),
            len_now: Default::default(),
            unused_inputs: Default::default(),
            vc_numbers: (0..VCS)
                .map(|v| Constant::new(Bits::from(v as u64)))
                .collect(),
            port_shifts: (0..VCS).map(|v| c(v * W)).collect(),
            vc_shifts: (0..VCS).map(|v| c(v * VCB)).collect(),
            len_shifts: (0..VCS).map(|v| c(v * 8)).collect(),
            mgmt_vcs: Constant::new(Bits::from(1u64 << mgmt_vc)),
            transit_on: Constant::new(transit),
            staged: Constant::new(staged),
            mgmt_len: Constant::new((hdl::formats::mgmt::MGMT_FLITS as u64).into()),
            kind_mgmt: Constant::new((PacketKind::Mgmt.code() as u64).into()),
            kind_lsb: pos(KIND.lsb),
            len_lsb: pos(LEN.lsb),
            type_bit: pos(TYPE_BIT),
            head_bit: pos(HEAD_BIT),
        }
    }
}

impl<
        const VCS: usize,
        const VCB: usize,
        const PORTS: usize,
        const W: usize,
        const PVW: usize,
        const PVB: usize,
        const PVL: usize,
    > Logic for VcFronts<VCS, VCB, PORTS, W, PVW, PVB, PVL>
{
    #[hdl_gen]
    fn update(&mut self) {
        self.unused_inputs.next = self.arrival.port.val().any() | self.decision.hot.val().any();
        self.ready.next = 0.into();
        self.last.next = 0.into();
        self.ports.next = 0.into();
        self.out_vcs.next = 0.into();
        self.lens.next = 0.into();
        self.need_lookup.next = 0.into();
        self.intents.wants.next = 0.into();
        self.intents.agents.next = 0.into();
        self.intents.mgmt_drops.next = 0.into();
        self.intents.decided.next = 0.into();
        self.intents.bad_routes.next = 0.into();
        self.intents.transits.next = 0.into();
        // Set below for the granted VC (a granted VC is always one of ours).
        self.intents.grant_out_vc.next = 0.into();
        for v in 0..VCS {
            self.routed_now.next = self.status.routed.val().get_bit(v);
            self.moving_now.next = self.status.moving.val().get_bit(v);
            self.route_here[v].next = (self.arrival.vc.val().index() == v)
                & (self.arrival.ok.val() | self.arrival.none.val())
                & !self.staged.val();
            self.mgmt_head[v].next = self.waiting.val().get_bit(v)
                & (self.fronts[v]
                    .val()
                    .get_bits::<4>(self.kind_lsb.val().index())
                    == self.kind_mgmt.val());
            // A 10-flit management head on the management VC waits for its transit decision.
            self.needs_decision[v].next = self.mgmt_head[v].val()
                & self.mgmt_vcs.val().get_bit(v)
                & self.transit_on.val()
                & (self.fronts[v]
                    .val()
                    .get_bits::<8>(self.len_lsb.val().index())
                    == self.mgmt_len.val());
            self.transit_head[v].next = self.needs_decision[v].val()
                & self.decision.valid.val()
                & self.decision.transit.val();
            self.agent_now[v].next = self.status.managing.val().get_bit(v)
                | (self.mgmt_head[v].val()
                    & self.mgmt_vcs.val().get_bit(v)
                    & (!self.needs_decision[v].val()
                        | (self.decision.valid.val() & self.decision.agent.val())));
            self.drop_now[v].next = self.status.dropping.val().get_bit(v)
                | (self.mgmt_head[v].val() & !self.mgmt_vcs.val().get_bit(v))
                | (self.route_here[v].val() & self.arrival.none.val())
                | (self.needs_decision[v].val()
                    & self.decision.valid.val()
                    & self.decision.drop.val());
            self.intents.wants.next = self.intents.wants.val().replace_bit(
                v,
                self.has_flit.val().get_bit(v)
                    & (self.drop_now[v].val() | (self.agent_now[v].val() & self.agent_room.val())),
            );
            self.intents.agents.next = self
                .intents
                .agents
                .val()
                .replace_bit(v, self.agent_now[v].val());
            self.intents.mgmt_drops.next = self
                .intents
                .mgmt_drops
                .val()
                .replace_bit(v, self.mgmt_head[v].val() & !self.mgmt_vcs.val().get_bit(v));
            self.intents.decided.next = self
                .intents
                .decided
                .val()
                .replace_bit(v, self.needs_decision[v].val());
            self.intents.bad_routes.next = self
                .intents
                .bad_routes
                .val()
                .replace_bit(v, self.needs_decision[v].val() & self.decision.drop.val());
            self.intents.transits.next = self
                .intents
                .transits
                .val()
                .replace_bit(v, self.transit_head[v].val());
            self.need_lookup.next = self.need_lookup.val().replace_bit(
                v,
                self.waiting.val().get_bit(v)
                    & !self.mgmt_head[v].val()
                    & !self.routed_now.val()
                    & !self.status.dropping.val().get_bit(v)
                    & !(self.arrival.pending.val() & (self.arrival.vc.val().index() == v)),
            );
            self.ready.next = self.ready.val().replace_bit(
                v,
                (self.waiting.val().get_bit(v)
                    & !self.mgmt_head[v].val()
                    & (self.routed_now.val() | (self.route_here[v].val() & self.arrival.ok.val())))
                    | (self.moving_now.val() & self.has_flit.val().get_bit(v))
                    | self.transit_head[v].val(),
            );
            self.last.next = self.last.val().replace_bit(
                v,
                self.has_flit.val().get_bit(v)
                    & !self.fronts[v].val().get_bit(self.type_bit.val().index())
                    & !self.fronts[v].val().get_bit(self.head_bit.val().index()),
            );
            // The route: registered once routed or moving (always with the stage), else the
            // one arriving.
            self.port_now.next = self.arrival.index.val();
            self.out_vc_now.next = self.arrival.out_vc.val();
            if self.routed_now.val() | self.moving_now.val() | self.staged.val() {
                self.port_now.next = self
                    .status
                    .ports
                    .val()
                    .get_bits::<W>(self.port_shifts[v].val().index());
                self.out_vc_now.next = self
                    .status
                    .out_vcs
                    .val()
                    .get_bits::<VCB>(self.vc_shifts[v].val().index());
            }
            if self.transit_head[v].val() {
                self.port_now.next = self.decision.port.val();
                self.out_vc_now.next = self.vc_numbers[v].val();
            }
            if self.grant_vc.val().index() == v {
                self.intents.grant_out_vc.next = self.out_vc_now.val();
            }
            self.len_now.next = self.fronts[v]
                .val()
                .get_bits::<8>(self.len_lsb.val().index());
            self.ports.next = self.ports.val()
                | (bit_cast::<PVW, W>(self.port_now.val()) << self.port_shifts[v].val());
            self.out_vcs.next = self.out_vcs.val()
                | (bit_cast::<PVB, VCB>(self.out_vc_now.val()) << self.vc_shifts[v].val());
            self.lens.next = self.lens.val()
                | (bit_cast::<PVL, 8>(self.len_now.val()) << self.len_shifts[v].val());
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn vc_fronts_is_synthesizable() {
        use super::*;
        let mut uut = VcFronts::<3, 2, 5, 3, 9, 6, 24>::new(2, true, true);
        uut.connect_all();
        yosys_validate("vc_fronts", &generate_verilog(&uut)).unwrap();
    }
}
