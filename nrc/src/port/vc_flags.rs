//! `VcFlags`: the registered packet state of each VC of an input port
//! ([`InputPort`](super::InputPort), where the flags are described): `routed`, `moving`,
//! `dropping`, `managing`, and the route of the packet (output port number and one-hot,
//! output VC), out on `status`; and `queued` (bit `p`: a VC holds a routed packet for output
//! port `p` not yet gone).
//!
//! **Edge**, per VC: the route arriving for it (`arrival`) sets `routed` with its port and
//! output VC, or `dropping` when it names none; a granted transit head (`intents.transits`)
//! takes the decision's port and its own VC as output VC; a granted head clears `routed` and
//! sets `moving`, a granted last flit clears `moving`; a side read sets `managing` (to the
//! agent) or `dropping` until the flit read is its packet's last (`outcome`).
//!
//! Latency: `status` and `queued` are the registers (one cycle after the events above).
//! Reset (synchronous): the four flags cleared (the route registers keep stale values, unused
//! while the flags are clear). A pipeline stage of the input port: no bench of its own,
//! covered by the `input_port` bench.
//!
//! Parameters: `VCS`, `VCB`, `PORTS`, `W`, `PVW`, `PVB` as [`InputPort`](super::InputPort).
use super::{
    ReadOutcomeSink, RouteArrivalSink, SideIntentSink, TransitDecisionSink, VcStatusSource,
};
use crate::routing::defaults;
use rust_hdl::prelude::*;

/// The per-VC packet state of an input port; see the module documentation.
#[derive(LogicBlock)]
pub struct VcFlags<
    const VCS: usize,
    const VCB: usize,
    const PORTS: usize,
    const W: usize,
    const PVW: usize,
    const PVB: usize,
> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: every flag cleared.
    pub reset: Signal<In, bool>,
    /// Bit `v`: VC `v`'s front is a head (the DAMQ's `waiting`).
    pub waiting: Signal<In, Bits<VCS>>,
    /// The route of the lookup in flight.
    pub arrival: RouteArrivalSink<PORTS, W, VCB>,
    /// The management transit's decision.
    pub decision: TransitDecisionSink<PORTS, W>,
    /// What each VC wants of the read port (its transit heads).
    pub intents: SideIntentSink<VCS, VCB>,
    /// What the read port does in this cycle.
    pub outcome: ReadOutcomeSink<VCB>,
    /// The registered state.
    pub status: VcStatusSource<VCS, PVW, PVB>,
    /// Bit `p`: a VC holds a routed packet for output port `p` not yet gone.
    pub queued: Signal<Out, Bits<PORTS>>,
    routed: Vec<DFF<bool>>,
    moving: Vec<DFF<bool>>,
    dropping: Vec<DFF<bool>>,
    managing: Vec<DFF<bool>>,
    port_index: Vec<DFF<Bits<W>>>,
    port_hot: Vec<DFF<Bits<PORTS>>>,
    out_vc: Vec<DFF<Bits<VCB>>>,
    /// Per VC, this cycle: the route arriving is its, it is granted, it is read by the side.
    route_here: Vec<Signal<Local, bool>>,
    granted: Vec<Signal<Local, bool>>,
    side_here: Vec<Signal<Local, bool>>,
    /// One VC's registered port and output VC (a local: `bit_cast` cannot take a loop-indexed
    /// register).
    port_now: Signal<Local, Bits<W>>,
    out_vc_now: Signal<Local, Bits<VCB>>,
    /// The bundles' fields this block does not need (their other readers do): acknowledged.
    unused_inputs: Signal<Local, bool>,
    vc_numbers: Vec<Constant<Bits<VCB>>>,
    port_shifts: Vec<Constant<Bits<8>>>,
    vc_shifts: Vec<Constant<Bits<8>>>,
    no_ports: Constant<Bits<PORTS>>,
}

impl<
        const VCS: usize,
        const VCB: usize,
        const PORTS: usize,
        const W: usize,
        const PVW: usize,
        const PVB: usize,
    > VcFlags<VCS, VCB, PORTS, W, PVW, PVB>
{
    /// Every VC idle.
    pub fn new() -> Self {
        let c = |v: usize| Constant::new(Bits::<8>::from(v as u64));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            waiting: Default::default(),
            arrival: Default::default(),
            decision: Default::default(),
            intents: Default::default(),
            outcome: Default::default(),
            status: Default::default(),
            queued: Default::default(),
            routed: defaults(VCS),
            moving: defaults(VCS),
            dropping: defaults(VCS),
            managing: defaults(VCS),
            port_index: defaults(VCS),
            port_hot: defaults(VCS),
            out_vc: defaults(VCS),
            route_here: defaults(VCS),
            granted: defaults(VCS),
            side_here: defaults(VCS),
            port_now: Default::default(),
            out_vc_now: Default::default(),
            unused_inputs: Default::default(),
            vc_numbers: (0..VCS)
                .map(|v| Constant::new(Bits::from(v as u64)))
                .collect(),
            port_shifts: (0..VCS).map(|v| c(v * W)).collect(),
            vc_shifts: (0..VCS).map(|v| c(v * VCB)).collect(),
            no_ports: Constant::new(0u64.into()),
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
    > Default for VcFlags<VCS, VCB, PORTS, W, PVW, PVB>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<
        const VCS: usize,
        const VCB: usize,
        const PORTS: usize,
        const W: usize,
        const PVW: usize,
        const PVB: usize,
    > Logic for VcFlags<VCS, VCB, PORTS, W, PVW, PVB>
{
    #[hdl_gen]
    fn update(&mut self) {
        // Only the transit heads of the intents and the port of the decision are needed here
        // (the decision's kind is already in `intents.transits`).
        self.unused_inputs.next = self.arrival.pending.val()
            | self.decision.valid.val()
            | self.decision.transit.val()
            | self.decision.agent.val()
            | self.decision.drop.val()
            | self.intents.wants.val().any()
            | self.intents.agents.val().any()
            | self.intents.mgmt_drops.val().any()
            | self.intents.decided.val().any()
            | self.intents.bad_routes.val().any()
            | self.intents.grant_out_vc.val().any();
        self.queued.next = self.no_ports.val();
        self.status.routed.next = 0.into();
        self.status.moving.next = 0.into();
        self.status.dropping.next = 0.into();
        self.status.managing.next = 0.into();
        self.status.ports.next = 0.into();
        self.status.out_vcs.next = 0.into();
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
            // The state out, packed.
            self.status.routed.next = self
                .status
                .routed
                .val()
                .replace_bit(v, self.routed[v].q.val());
            self.status.moving.next = self
                .status
                .moving
                .val()
                .replace_bit(v, self.moving[v].q.val());
            self.status.dropping.next = self
                .status
                .dropping
                .val()
                .replace_bit(v, self.dropping[v].q.val());
            self.status.managing.next = self
                .status
                .managing
                .val()
                .replace_bit(v, self.managing[v].q.val());
            self.port_now.next = self.port_index[v].q.val();
            self.out_vc_now.next = self.out_vc[v].q.val();
            self.status.ports.next = self.status.ports.val()
                | (bit_cast::<PVW, W>(self.port_now.val()) << self.port_shifts[v].val());
            self.status.out_vcs.next = self.status.out_vcs.val()
                | (bit_cast::<PVB, VCB>(self.out_vc_now.val()) << self.vc_shifts[v].val());
            if self.routed[v].q.val() | self.moving[v].q.val() {
                self.queued.next = self.queued.val() | self.port_hot[v].q.val();
            }
            // The edge.
            self.route_here[v].next = (self.arrival.vc.val().index() == v)
                & (self.arrival.ok.val() | self.arrival.none.val());
            self.granted[v].next =
                self.outcome.granted.val() & (self.outcome.grant_vc.val().index() == v);
            self.side_here[v].next =
                self.outcome.side_go.val() & (self.outcome.side_vc.val().index() == v);
            if self.route_here[v].val() & self.arrival.ok.val() {
                self.routed[v].d.next = true;
                self.port_index[v].d.next = self.arrival.index.val();
                self.port_hot[v].d.next = self.arrival.port.val();
                self.out_vc[v].d.next = self.arrival.out_vc.val();
            }
            if self.route_here[v].val() & self.arrival.none.val() {
                self.dropping[v].d.next = true;
            }
            if self.granted[v].val() & self.intents.transits.val().get_bit(v) {
                // A transit head leaves: its bodies follow on the decision's port.
                self.port_index[v].d.next = self.decision.port.val();
                self.port_hot[v].d.next = self.decision.hot.val();
                self.out_vc[v].d.next = self.vc_numbers[v].val();
            }
            if self.granted[v].val() {
                if self.waiting.val().get_bit(v) {
                    self.routed[v].d.next = false;
                    self.moving[v].d.next = true;
                }
                if self.outcome.read_last.val() {
                    self.moving[v].d.next = false;
                }
            }
            if self.side_here[v].val() {
                if self.outcome.side_agent.val() {
                    self.managing[v].d.next = !self.outcome.read_last.val();
                } else {
                    self.dropping[v].d.next = !self.outcome.read_last.val();
                }
            }
            if self.reset.val() {
                self.routed[v].d.next = false;
                self.moving[v].d.next = false;
                self.dropping[v].d.next = false;
                self.managing[v].d.next = false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn vc_flags_is_synthesizable() {
        use super::*;
        let mut uut = VcFlags::<3, 2, 5, 3, 9, 6>::new();
        uut.connect_all();
        yosys_validate("vc_flags", &generate_verilog(&uut)).unwrap();
    }
}
