//! `ReadPort`: the DAMQ's one read port in an input port ([`InputPort`](super::InputPort)):
//! who reads in this cycle, the head rewrite of the flit read ([`HeadRewrite`]), the
//! management transit's decisions, and the agent's one-flit register.
//!
//! **Who reads**: the switch's grant (`grant`, VC `grant_vc`, the flit leaving with the
//! granted VC's output VC `intents.grant_out_vc`); else the *side read* (`outcome.side_go`):
//! the lowest VC that wants one (`intents.wants`: a packet discarded whole, or a management
//! packet to the agent), so a discard waits while the switch grants this port every cycle and
//! blocks no other VC. `read_last`: the flit read is a tail or a TailBadPkt.
//!
//! **Decisions** (`decisions`, the DAMQ's FIFO of the management transit): decoded on
//! `decision` (kind, port number and one-hot); one is used up (`decisions.ready`) when its
//! head leaves: granted in transit (`intents.transits`), or side read to the agent or the bin
//! (`intents.decided`). Not while `reset`.
//!
//! **The agent's register** (`to_agent`: `port` 0, `last` on the packet's last flit): takes
//! the rewritten flit of a side read to the agent (`intents.agents`), empties on an edge with
//! `to_agent.ready`; `room`: it can take a flit in this cycle (combinational from its state
//! and `to_agent.ready`), so a stalled agent holds only the management VC.
//!
//! **Events** (combinational, registered by the input port): `bad_route` (a side read of a
//! head whose decision says drop), `off_vc` (a side read of a management head off the
//! management VC).
//!
//! Latency: everything combinational but the agent's register (one cycle). Reset
//! (synchronous): the agent's register empties; no decision is taken. A pipeline stage of the
//! input port: no bench of its own, covered by the `input_port` bench.
//!
//! Parameters: `VCS`, `VCB`, `PORTS`, `W` as [`InputPort`](super::InputPort).
use super::arrival_stamp::STAMP_BITS;
use super::mgmt_transit::DECISION_BITS;
use super::{HeadRewrite, ReadOutcomeSource, SideIntentSink, TransitDecisionSource, VcReadSource};
use hdl::formats::flit::{HEAD_BIT, TYPE_BIT};
use hdl::formats::FLIT_BITS;
use hdl::mgmt::relay_station::{RsBeatSource, RS_PORT_BITS};
use hdl::stream::StreamSink;
use rust_hdl::prelude::*;

/// The DAMQ's read port of an input port; see the module documentation.
#[derive(LogicBlock)]
pub struct ReadPort<const VCS: usize, const VCB: usize, const PORTS: usize, const W: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: the agent's register empties.
    pub reset: Signal<In, bool>,
    /// The DAMQ's read port.
    pub read: VcReadSource<VCB>,
    /// The DAMQ's transit decisions.
    pub decisions: StreamSink<Bits<DECISION_BITS>>,
    /// The decision at the head of the FIFO, decoded.
    pub decision: TransitDecisionSource<PORTS, W>,
    /// What each VC wants of this port.
    pub intents: SideIntentSink<VCS, VCB>,
    /// The switch grants VC `grant_vc` in this cycle.
    pub grant: Signal<In, bool>,
    /// See `grant`.
    pub grant_vc: Signal<In, Bits<VCB>>,
    /// The free-running cycle counter (for the head's `delay`).
    pub now: Signal<In, Bits<STAMP_BITS>>,
    /// The flit read, rewritten (to the switch).
    pub rewritten: Signal<Out, Bits<FLIT_BITS>>,
    /// What was read in this cycle.
    pub outcome: ReadOutcomeSource<VCB>,
    /// The agent's register can take a flit in this cycle.
    pub room: Signal<Out, bool>,
    /// Management packets to the relay-station mesh.
    pub to_agent: RsBeatSource<FLIT_BITS, RS_PORT_BITS>,
    /// A side read of a head whose transit decision says drop.
    pub bad_route: Signal<Out, bool>,
    /// A side read of a management head off the management VC.
    pub off_vc: Signal<Out, bool>,
    rewrite: HeadRewrite<VCB>,
    /// The agent's one-flit register.
    full: DFF<bool>,
    held: DFF<Bits<FLIT_BITS>>,
    held_last: DFF<bool>,
    /// The decision's kind; the side read's choice (found, VC, to the agent, its events, a
    /// head with a decision); a decision is used up.
    decision_kind: Signal<Local, Bits<2>>,
    side_found: Signal<Local, bool>,
    side_vc: Signal<Local, Bits<VCB>>,
    side_agent: Signal<Local, bool>,
    side_mgmt_drop: Signal<Local, bool>,
    side_decided: Signal<Local, bool>,
    side_bad_route: Signal<Local, bool>,
    side_go: Signal<Local, bool>,
    decision_taken: Signal<Local, bool>,
    read_last: Signal<Local, bool>,
    vc_numbers: Vec<Constant<Bits<VCB>>>,
    port_bits: Vec<Constant<Bits<PORTS>>>,
    no_ports: Constant<Bits<PORTS>>,
    kind_transit: Constant<Bits<2>>,
    kind_agent: Constant<Bits<2>>,
    kind_drop: Constant<Bits<2>>,
    type_bit: Constant<Bits<7>>,
    head_bit: Constant<Bits<7>>,
    zero_agent_port: Constant<Bits<RS_PORT_BITS>>,
}

impl<const VCS: usize, const VCB: usize, const PORTS: usize, const W: usize>
    ReadPort<VCS, VCB, PORTS, W>
{
    /// The read port, its agent register empty.
    pub fn new() -> Self {
        let pos = |v: usize| Constant::new(Bits::<7>::from(v as u64));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            read: Default::default(),
            decisions: Default::default(),
            decision: Default::default(),
            intents: Default::default(),
            grant: Default::default(),
            grant_vc: Default::default(),
            now: Default::default(),
            rewritten: Default::default(),
            outcome: Default::default(),
            room: Default::default(),
            to_agent: Default::default(),
            bad_route: Default::default(),
            off_vc: Default::default(),
            rewrite: HeadRewrite::new(),
            full: Default::default(),
            held: Default::default(),
            held_last: Default::default(),
            decision_kind: Default::default(),
            side_found: Default::default(),
            side_vc: Default::default(),
            side_agent: Default::default(),
            side_mgmt_drop: Default::default(),
            side_decided: Default::default(),
            side_bad_route: Default::default(),
            side_go: Default::default(),
            decision_taken: Default::default(),
            read_last: Default::default(),
            vc_numbers: (0..VCS)
                .map(|v| Constant::new(Bits::from(v as u64)))
                .collect(),
            port_bits: (0..PORTS)
                .map(|q| Constant::new((1u64 << q).into()))
                .collect(),
            no_ports: Constant::new(0u64.into()),
            kind_transit: Constant::new(super::mgmt_transit::TRANSIT.into()),
            kind_agent: Constant::new(super::mgmt_transit::TO_AGENT.into()),
            kind_drop: Constant::new(super::mgmt_transit::DROP.into()),
            type_bit: pos(TYPE_BIT),
            head_bit: pos(HEAD_BIT),
            zero_agent_port: Constant::new(0u64.into()),
        }
    }
}

impl<const VCS: usize, const VCB: usize, const PORTS: usize, const W: usize> Default
    for ReadPort<VCS, VCB, PORTS, W>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const VCS: usize, const VCB: usize, const PORTS: usize, const W: usize> Logic
    for ReadPort<VCS, VCB, PORTS, W>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, full, held, held_last);
        // The decision at the head of the FIFO.
        self.decision_kind.next = self.decisions.data.val().get_bits::<2>(0);
        self.decision.valid.next = self.decisions.valid.val();
        self.decision.transit.next = self.decision_kind.val() == self.kind_transit.val();
        self.decision.agent.next = self.decision_kind.val() == self.kind_agent.val();
        self.decision.drop.next = self.decision_kind.val() == self.kind_drop.val();
        self.decision.port.next = self.decisions.data.val().get_bits::<W>(2);
        self.decision.hot.next = self.no_ports.val();
        for q in 0..PORTS {
            if self.decision.port.val().index() == q {
                self.decision.hot.next = self.port_bits[q].val();
            }
        }
        self.room.next = !self.full.q.val() | self.to_agent.ready.val();
        // The side read: the lowest VC discarding or feeding the agent, when not granted.
        self.side_found.next = false;
        self.side_vc.next = self.vc_numbers[0].val();
        self.side_agent.next = false;
        self.side_mgmt_drop.next = false;
        self.side_decided.next = false;
        self.side_bad_route.next = false;
        for v in 0..VCS {
            if self.intents.wants.val().get_bit(v) & !self.side_found.val() {
                self.side_found.next = true;
                self.side_vc.next = self.vc_numbers[v].val();
                self.side_agent.next = self.intents.agents.val().get_bit(v);
                self.side_mgmt_drop.next = self.intents.mgmt_drops.val().get_bit(v);
                self.side_decided.next = self.intents.decided.val().get_bit(v);
                self.side_bad_route.next = self.intents.bad_routes.val().get_bit(v);
            }
        }
        self.side_go.next = self.side_found.val() & !self.grant.val();
        self.read.valid.next = self.grant.val() | self.side_go.val();
        // A transit decision is used up when its head leaves: granted, or read to the agent or
        // the bin.
        self.decision_taken.next = self.side_go.val() & self.side_decided.val();
        for v in 0..VCS {
            if self.grant.val()
                & (self.grant_vc.val().index() == v)
                & self.intents.transits.val().get_bit(v)
            {
                self.decision_taken.next = true;
            }
        }
        self.decisions.ready.next = self.decision_taken.val() & !self.reset.val();
        // The flit read, rewritten.
        self.read.vc.next = self.side_vc.val();
        self.rewrite.out_vc.next = self.side_vc.val();
        if self.grant.val() {
            self.read.vc.next = self.grant_vc.val();
            self.rewrite.out_vc.next = self.intents.grant_out_vc.val();
        }
        self.rewrite.flit.next = self.read.flit.val();
        self.rewrite.now.next = self.now.val();
        self.rewritten.next = self.rewrite.rewritten.val();
        self.read_last.next = !self.read.flit.val().get_bit(self.type_bit.val().index())
            & !self.read.flit.val().get_bit(self.head_bit.val().index());
        // The agent's register.
        if self.to_agent.ready.val() {
            self.full.d.next = false;
        }
        if self.side_go.val() & self.side_agent.val() {
            self.full.d.next = true;
            self.held.d.next = self.rewrite.rewritten.val();
            self.held_last.d.next = self.read_last.val();
        }
        if self.reset.val() {
            self.full.d.next = false;
        }
        self.to_agent.valid.next = self.full.q.val();
        self.to_agent.data.next = self.held.q.val();
        self.to_agent.last.next = self.held_last.q.val();
        self.to_agent.port.next = self.zero_agent_port.val();
        // What was read, and its events.
        self.outcome.granted.next = self.grant.val();
        self.outcome.grant_vc.next = self.grant_vc.val();
        self.outcome.side_go.next = self.side_go.val();
        self.outcome.side_vc.next = self.side_vc.val();
        self.outcome.side_agent.next = self.side_agent.val();
        self.outcome.read_last.next = self.read_last.val();
        self.bad_route.next = self.side_go.val() & self.side_bad_route.val();
        self.off_vc.next = self.side_go.val() & self.side_mgmt_drop.val();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn read_port_is_synthesizable() {
        use super::*;
        let mut uut = ReadPort::<3, 2, 5, 3>::new();
        uut.connect_all();
        yosys_validate("read_port", &generate_verilog(&uut)).unwrap();
    }
}
