//! `RouteRequest`: the route lookups of one input port ([`InputPort`](super::InputPort)): which
//! head asks this port's route-compute stage in this cycle, the lookup in flight, and its
//! answer with the output VC of the VC policy ([`VcChoice`]).
//!
//! **Choice** (one lookup per cycle, `route_head`): the head arriving at an idle VC
//! (`bypass_head`: the DAMQ writes it straight into the VC's front) is looked up from the
//! channel (`arrival_flit`, on VC `arrival_vc`), unless it is a management head (those are not
//! routed by the table); else the lowest VC whose front needs a lookup (`need_lookup`, from
//! [`VcFronts`](super::VcFronts)), from that front (`fronts`).
//!
//! **In flight**: the lookup's VC, kind and destination are registered (`pending`); in the
//! next cycle the answer `route` belongs to that VC's front (a head without a route is neither
//! ready nor read, so it cannot have moved), and goes out on `arrival` with the output VC
//! ([`VcChoice`] of the registered VC, kind and destination, and whether the chosen port is in
//! the constructor's `down_ports` mask).
//!
//! Latency: `route_head` combinational from its inputs; `arrival` one cycle after the lookup.
//! Reset (synchronous): the lookup in flight is dropped. A pipeline stage of the input port:
//! no bench of its own, covered by the `input_port` bench.
//!
//! Parameters: `VCS`, `VCB` as the channel; `PORTS` router ports, `W` = `index_bits(PORTS)`.
use super::{RouteArrivalSource, VcChoice};
use crate::routing::{defaults, HeadSource, RouteResultSink, NODE_BITS};
use hdl::formats::header::{DST, KIND};
use hdl::formats::{PacketKind, FLIT_BITS};
use hdl::vc_policy::VcPolicy;
use rust_hdl::prelude::*;

/// The route lookups of one input port; see the module documentation.
#[derive(LogicBlock)]
pub struct RouteRequest<const VCS: usize, const VCB: usize, const PORTS: usize, const W: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: the lookup in flight is dropped.
    pub reset: Signal<In, bool>,
    /// The flit on the input channel and its VC.
    pub arrival_flit: Signal<In, Bits<FLIT_BITS>>,
    /// See `arrival_flit`.
    pub arrival_vc: Signal<In, Bits<VCB>>,
    /// The channel's flit is a head written straight into an idle VC's front.
    pub bypass_head: Signal<In, bool>,
    /// Each VC's front flit.
    pub fronts: Vec<Signal<In, Bits<FLIT_BITS>>>,
    /// Bit `v`: VC `v`'s front is a head that needs a lookup.
    pub need_lookup: Signal<In, Bits<VCS>>,
    /// Heads to this port's route-compute stage.
    pub route_head: HeadSource,
    /// Their routes, one cycle later.
    pub route: RouteResultSink<PORTS, W>,
    /// The answer of the lookup in flight, with its output VC.
    pub arrival: RouteArrivalSource<PORTS, W, VCB>,
    choice: VcChoice<VCB>,
    /// The lookup in flight: its VC, its head's kind and destination.
    pending: DFF<bool>,
    pending_vc: DFF<Bits<VCB>>,
    pending_kind: DFF<Bits<4>>,
    pending_dst: DFF<Bits<NODE_BITS>>,
    arrival_lookup: Signal<Local, bool>,
    lookup_found: Signal<Local, bool>,
    vc_numbers: Vec<Constant<Bits<VCB>>>,
    down_ports: Constant<Bits<PORTS>>,
    kind_mgmt: Constant<Bits<4>>,
    kind_lsb: Constant<Bits<7>>,
    dst_lsb: Constant<Bits<7>>,
}

impl<const VCS: usize, const VCB: usize, const PORTS: usize, const W: usize>
    RouteRequest<VCS, VCB, PORTS, W>
{
    /// The lookups of a port with VC policy `policy`, management VC `mgmt_vc` and the output
    /// ports of `down_ports` leading down; panics naming the parameter as [`VcChoice::new`].
    pub fn new(policy: VcPolicy, mgmt_vc: usize, down_ports: u64) -> Self {
        let pos = |v: usize| Constant::new(Bits::<7>::from(v as u64));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            arrival_flit: Default::default(),
            arrival_vc: Default::default(),
            bypass_head: Default::default(),
            fronts: defaults(VCS),
            need_lookup: Default::default(),
            route_head: Default::default(),
            route: Default::default(),
            arrival: Default::default(),
            choice: VcChoice::new(policy, VCS, mgmt_vc),
            pending: Default::default(),
            pending_vc: Default::default(),
            pending_kind: Default::default(),
            pending_dst: Default::default(),
            arrival_lookup: Default::default(),
            lookup_found: Default::default(),
            vc_numbers: (0..VCS)
                .map(|v| Constant::new(Bits::from(v as u64)))
                .collect(),
            down_ports: Constant::new(Bits::from(down_ports)),
            kind_mgmt: Constant::new((PacketKind::Mgmt.code() as u64).into()),
            kind_lsb: pos(KIND.lsb),
            dst_lsb: pos(DST.lsb),
        }
    }
}

impl<const VCS: usize, const VCB: usize, const PORTS: usize, const W: usize> Logic
    for RouteRequest<VCS, VCB, PORTS, W>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, pending, pending_vc, pending_kind, pending_dst);
        // The answer of the lookup in flight, and its output VC.
        self.choice.in_vc.next = self.pending_vc.q.val();
        self.choice.kind.next = self.pending_kind.q.val();
        self.choice.dst.next = self.pending_dst.q.val();
        self.choice.down.next = (self.route.port.val() & self.down_ports.val()).any();
        self.arrival.pending.next = self.pending.q.val();
        self.arrival.vc.next = self.pending_vc.q.val();
        self.arrival.ok.next =
            self.route.valid.val() & self.pending.q.val() & !self.route.no_route.val();
        self.arrival.none.next =
            self.route.valid.val() & self.pending.q.val() & self.route.no_route.val();
        self.arrival.index.next = self.route.index.val();
        self.arrival.port.next = self.route.port.val();
        self.arrival.out_vc.next = self.choice.out_vc.val();
        // The lookup: the head arriving at an idle VC first, else the lowest unrouted front.
        self.lookup_found.next = false;
        self.route_head.flit.next = self.arrival_flit.val();
        self.pending_vc.d.next = self.arrival_vc.val();
        self.arrival_lookup.next = self.bypass_head.val()
            & (self
                .arrival_flit
                .val()
                .get_bits::<4>(self.kind_lsb.val().index())
                != self.kind_mgmt.val());
        if !self.arrival_lookup.val() {
            for v in 0..VCS {
                if self.need_lookup.val().get_bit(v) & !self.lookup_found.val() {
                    self.lookup_found.next = true;
                    self.route_head.flit.next = self.fronts[v].val();
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
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn route_request_is_synthesizable() {
        use super::*;
        let mut uut = RouteRequest::<3, 2, 5, 3>::new(VcPolicy::DestMod, 2, 0b1100);
        uut.connect_all();
        yosys_validate("route_request", &generate_verilog(&uut)).unwrap();
    }
}
