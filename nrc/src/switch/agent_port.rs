//! The management agent's packets for one output port, as one more requester of that port.
//!
//! `from_agent` carries whole packets, one flit per beat (`nrc_mgmt`'s `outbound[p]`: a flit
//! in `data`, `last` on the tail; `port` is the port and is not looked at). The first flit of
//! every packet is taken for its head: its `len` field ([`hdl::formats::header::LEN`]) is what
//! the allocator checks against the credits of `network.mgmt_vc`, as for any packet (virtual
//! cut-through). The flit moves when the allocator grants it (`ready` is the grant, so it is
//! combinational from `valid` and the port's state, as the beat stream allows).
//!
//! Defined outcome of a malformed stream (the agent builds its packets, but the switch must not
//! hang or break the credit rule on them): the allocator clamps the head's `len` to 1..=`max_len`
//! and sends every flit of the agent only with a credit, so a `len` smaller than the packet
//! cannot overdraw the credits and a larger one cannot block the port for ever; the next hop's
//! input unit then drops the packet whole (its `len` checks).
//!
//! Reset (synchronous): between packets. Parameters: none (the flit is `FLIT_BITS` bits).
use super::{AgentRequestSource, CREDIT_BITS};
use hdl::formats::header::LEN;
use hdl::formats::FLIT_BITS;
use hdl::mgmt::relay_station::{RsBeatSink, RS_PORT_BITS};
use rust_hdl::prelude::*;

/// One output port's agent requester; see the module documentation.
#[derive(LogicBlock)]
pub struct AgentPort {
    /// Clock of the packet state.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: between packets.
    pub reset: Signal<In, bool>,
    /// The agent's packets for this port.
    pub from_agent: RsBeatSink<FLIT_BITS, RS_PORT_BITS>,
    /// The request to the allocator.
    pub request: AgentRequestSource,
    /// The front flit (to the output unit).
    pub flit: Signal<Out, Bits<FLIT_BITS>>,
    /// A packet's first flit moved and its `last` not yet.
    in_packet: DFF<bool>,
    /// The beat's `port` (always this port): acknowledged unused for the lint.
    unused_port: Signal<Local, bool>,
    /// Position of the head's `len` field.
    len_lsb: Constant<Bits<8>>,
}

impl AgentPort {
    /// The requester.
    pub fn new() -> Self {
        assert_eq!(LEN.width, CREDIT_BITS, "the head's len field is 8 bits");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            from_agent: Default::default(),
            request: Default::default(),
            flit: Default::default(),
            in_packet: Default::default(),
            unused_port: Default::default(),
            len_lsb: Constant::new((LEN.lsb as u64).into()),
        }
    }
}

impl Default for AgentPort {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for AgentPort {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, in_packet);
        self.request.valid.next = self.from_agent.valid.val();
        self.request.head.next = !self.in_packet.q.val();
        self.request.last.next = self.from_agent.last.val();
        self.request.len.next = self
            .from_agent
            .data
            .val()
            .get_bits::<CREDIT_BITS>(self.len_lsb.val().index());
        self.flit.next = self.from_agent.data.val();
        self.unused_port.next = self.from_agent.port.val().any();
        self.from_agent.ready.next = self.request.grant.val();
        if self.request.grant.val() & self.from_agent.valid.val() {
            self.in_packet.d.next = !self.from_agent.last.val();
        }
        if self.reset.val() {
            self.in_packet.d.next = false;
        }
    }
}

#[test]
fn agent_port_is_synthesizable() {
    let mut uut = AgentPort::new();
    uut.connect_all();
    yosys_validate("agent_port", &generate_verilog(&uut)).unwrap();
}
