//! `RouteCompute`: one input port's route-compute stage. A head flit in; one cycle later its
//! route out: the output port chosen among those the route table allows, or "no route".
//!
//! ```text
//! cycle c:     head.valid, head.flit --> dst --lookup--> RouteTable (RAM read)
//!              src, dst, "a head"  --> registers
//! cycle c + 1: lookup.allowed --> PortSelect (with states, deterministic) --> route, fault
//! ```
//!
//! **Handshake: valid only.** The stage takes a head in every cycle where `head.valid` is high
//! and the flit is a head flit (type bit 0, head bit 1, as `hdl::flit_decoder::FlitDecoder`
//! reads it; a malformed head is routed too, the input unit drops malformed packets); any
//! other flit with `valid` is
//! ignored (no route offered, no fault). The route of a head taken in cycle `c` is offered in
//! cycle `c + 1` only (`route.valid` high for that one cycle): **latency 1 cycle**, one head per
//! cycle, no backpressure: the input unit stores the route the cycle it is offered.
//!
//! **Choice** ([`PortSelect`](super::PortSelect)): adaptive or deterministic, by `deterministic`
//! in the cycle the route is offered; the output `states` are those of that cycle (the freshest
//! the stage can use). The choice's rotating pointer moves with every head routed.
//!
//! **No route**: a head whose destination's entry is empty, or whose destination is at or
//! beyond the table's depth, gets `route.no_route` high (with `port` and `index` zero) and a
//! one-cycle pulse on `fault` in the same cycle (for the management agent's fault inputs); the
//! input unit drops and counts the packet.
//!
//! **Reset** (synchronous): no route is offered in the cycle after a reset edge (a head taken
//! in a reset cycle is dropped), and the rotating pointer goes back to port 0.
//!
//! Parameters as [`PortSelect`](super::PortSelect): `PORTS`, `W`, `S`, `SW`, `PS`.
use super::{
    HeadSink, OutputStatesSink, PortSelect, RouteLookupSource, RouteResultSource, NODE_BITS,
};
use hdl::formats::flit::{HEAD_BIT, TYPE_BIT};
use hdl::formats::header::{DST, SRC};
use rust_hdl::prelude::*;

/// One input port's route-compute stage; see the module documentation.
#[derive(LogicBlock)]
pub struct RouteCompute<
    const PORTS: usize,
    const W: usize,
    const S: usize,
    const SW: usize,
    const PS: usize,
> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Heads in.
    pub head: HeadSink,
    /// The route table's lookup port for this input.
    pub lookup: RouteLookupSource<PORTS>,
    /// Every output port's state as this input's packet sees it.
    pub states: OutputStatesSink<PS>,
    /// Deterministic routing (else adaptive): the register option.
    pub deterministic: Signal<In, bool>,
    /// The route of the head taken on the previous cycle.
    pub route: RouteResultSource<PORTS, W>,
    /// One-cycle pulse: a head without a route (with `route.valid && route.no_route`).
    pub fault: Signal<Out, bool>,
    /// Bit positions of the flit's type and head bits and of the header's `dst` and `src`,
    /// from the format tables (`hdl::formats`).
    type_bit: Constant<Bits<8>>,
    head_bit: Constant<Bits<8>>,
    dst_lsb: Constant<Bits<8>>,
    src_lsb: Constant<Bits<8>>,
    /// The flit is a head flit.
    is_head: Signal<Local, bool>,
    /// The header's destination and source (whatever the flit is).
    head_dst: Signal<Local, Bits<NODE_BITS>>,
    head_src: Signal<Local, Bits<NODE_BITS>>,
    select: PortSelect<PORTS, W, S, SW, PS>,
    /// A head was taken on the last edge: its route is offered now.
    routing: DFF<bool>,
    /// Its source and destination (the deterministic hash).
    src: DFF<Bits<NODE_BITS>>,
    dst: DFF<Bits<NODE_BITS>>,
}

/// A bit position as a constant.
fn position(bit: usize) -> Constant<Bits<8>> {
    Constant::new(Bits::from(bit as u64))
}

impl<const PORTS: usize, const W: usize, const S: usize, const SW: usize, const PS: usize>
    RouteCompute<PORTS, W, S, SW, PS>
{
    /// The stage; panics as [`PortSelect::new`] if the generics disagree.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            head: Default::default(),
            lookup: Default::default(),
            states: Default::default(),
            deterministic: Default::default(),
            route: Default::default(),
            fault: Default::default(),
            type_bit: position(TYPE_BIT),
            head_bit: position(HEAD_BIT),
            dst_lsb: position(DST.lsb),
            src_lsb: position(SRC.lsb),
            is_head: Default::default(),
            head_dst: Default::default(),
            head_src: Default::default(),
            select: PortSelect::new(),
            routing: Default::default(),
            src: Default::default(),
            dst: Default::default(),
        }
    }
}

impl<const PORTS: usize, const W: usize, const S: usize, const SW: usize, const PS: usize> Default
    for RouteCompute<PORTS, W, S, SW, PS>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const PORTS: usize, const W: usize, const S: usize, const SW: usize, const PS: usize> Logic
    for RouteCompute<PORTS, W, S, SW, PS>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, routing, src, dst);
        clock!(self, clock, select);
        self.select.reset.next = self.reset.val();
        // Cycle c: decode, look the destination up, keep what the choice needs.
        self.is_head.next = !self.head.flit.val().get_bit(self.type_bit.val().index())
            & self.head.flit.val().get_bit(self.head_bit.val().index());
        self.head_dst.next = self
            .head
            .flit
            .val()
            .get_bits::<NODE_BITS>(self.dst_lsb.val().index());
        self.head_src.next = self
            .head
            .flit
            .val()
            .get_bits::<NODE_BITS>(self.src_lsb.val().index());
        self.lookup.dst.next = self.head_dst.val();
        self.routing.d.next = self.head.valid.val() & self.is_head.val() & !self.reset.val();
        self.src.d.next = self.head_src.val();
        self.dst.d.next = self.head_dst.val();
        // Cycle c + 1: choose among the allowed ports.
        self.select.allowed.next = self.lookup.allowed.val();
        OutputStatesSink::<PS>::link(&mut self.states, &mut self.select.states);
        self.select.deterministic.next = self.deterministic.val();
        self.select.src.next = self.src.q.val();
        self.select.dst.next = self.dst.q.val();
        self.select.advance.next = self.routing.q.val();
        self.route.valid.next = self.routing.q.val();
        self.route.port.next = self.select.choice.val();
        self.route.index.next = self.select.choice_index.val();
        self.route.no_route.next = self.select.none.val();
        self.fault.next = self.routing.q.val() & self.select.none.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn route_compute_is_synthesizable() {
        let mut uut = RouteCompute::<5, 3, 7, 8, 35>::new();
        uut.connect_all();
        yosys_validate("route_compute", &generate_verilog(&uut)).unwrap();
    }
}
