//! `RouteUnit`: the router's routing of data packets, one [`RouteCompute`] stage per input
//! port around one [`RouteTable`] (a RAM copy per input port and one for the management read).
//!
//! Ports: `management` (joined whole to `nrc_mgmt`'s `route_table`: indirect table access),
//! per input port `i`: `heads[i]` in, `states[i]` (every output port's state as input `i`'s
//! packet sees it), `routes[i]` out one cycle after the head, `faults` bit `i` (a head without
//! a route); `deterministic` selects the choice for every input (a register option).
//!
//! Timing, handshakes and reset: as [`RouteCompute`] (latency 1 cycle, valid only, reset drops
//! routes in flight) and [`RouteTable`] (table kept across reset, a lookup sees a write made
//! on its read edge, `read` one cycle behind `index`).
//!
//! Parameters: `PORTS` input and output ports (2..=64), `W` = `index_bits(PORTS)`, `S` state
//! bits per output port, `SW` = `S + 1`, `PS` = `PORTS * S`, `AB` = `clog2(nodes)` with `nodes`
//! the table's depth at construction.
use super::{
    HeadSink, OutputStatesSink, RouteCompute, RouteLookupSource, RouteResultSource, RouteTable,
};
use crate::nrc_mgmt::RouteTableSink;
use rust_hdl::prelude::*;

/// The routing of a router with `PORTS` ports; see the module documentation.
#[derive(LogicBlock)]
pub struct RouteUnit<
    const PORTS: usize,
    const W: usize,
    const S: usize,
    const SW: usize,
    const PS: usize,
    const AB: usize,
> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (the table keeps its entries).
    pub reset: Signal<In, bool>,
    /// Indirect table access from the register file.
    pub management: RouteTableSink<PORTS>,
    /// Per input port: heads in.
    pub heads: [HeadSink; PORTS],
    /// Per input port: the output ports' states as its packet sees them.
    pub states: [OutputStatesSink<PS>; PORTS],
    /// Deterministic routing (else adaptive), every input.
    pub deterministic: Signal<In, bool>,
    /// Per input port: routes out.
    pub routes: [RouteResultSource<PORTS, W>; PORTS],
    /// Bit `i`: input `i` offers a route with `no_route` (one-cycle pulse).
    pub faults: Signal<Out, Bits<PORTS>>,
    routing_table: RouteTable<PORTS, PORTS, AB>,
    stages: [RouteCompute<PORTS, W, S, SW, PS>; PORTS],
    empty: Constant<Bits<PORTS>>,
}

impl<
        const PORTS: usize,
        const W: usize,
        const S: usize,
        const SW: usize,
        const PS: usize,
        const AB: usize,
    > RouteUnit<PORTS, W, S, SW, PS, AB>
{
    /// The unit with a table of `nodes` entries; panics naming the parameter as
    /// [`RouteTable::new`] and [`PortSelect::new`](super::PortSelect::new).
    pub fn new(nodes: usize) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            management: Default::default(),
            heads: std::array::from_fn(|_| Default::default()),
            states: std::array::from_fn(|_| Default::default()),
            deterministic: Default::default(),
            routes: std::array::from_fn(|_| Default::default()),
            faults: Default::default(),
            routing_table: RouteTable::new(nodes),
            stages: std::array::from_fn(|_| RouteCompute::new()),
            empty: Constant::new(Bits::default()),
        }
    }
}

impl<
        const PORTS: usize,
        const W: usize,
        const S: usize,
        const SW: usize,
        const PS: usize,
        const AB: usize,
    > Logic for RouteUnit<PORTS, W, S, SW, PS, AB>
{
    #[hdl_gen]
    fn update(&mut self) {
        self.routing_table.clock.next = self.clock.val();
        RouteTableSink::<PORTS>::link(&mut self.management, &mut self.routing_table.management);
        self.faults.next = self.empty.val();
        for i in 0..PORTS {
            self.stages[i].clock.next = self.clock.val();
            self.stages[i].reset.next = self.reset.val();
            self.stages[i].deterministic.next = self.deterministic.val();
            HeadSink::link(&mut self.heads[i], &mut self.stages[i].head);
            OutputStatesSink::<PS>::link(&mut self.states[i], &mut self.stages[i].states);
            RouteResultSource::<PORTS, W>::link(&mut self.routes[i], &mut self.stages[i].route);
            RouteLookupSource::<PORTS>::join(
                &mut self.stages[i].lookup,
                &mut self.routing_table.lookups[i],
            );
            self.faults.next = self.faults.val().replace_bit(i, self.stages[i].fault.val());
        }
    }
}

/// The default build's routing: 5 ports, 7-bit output states (credits of a 64-flit VC buffer,
/// occupancy saturated alike), a table of 256 destinations.
pub type RouteUnit5 = RouteUnit<5, 3, 7, 8, 35, 8>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn route_unit_is_synthesizable() {
        let mut uut = RouteUnit5::new(256);
        uut.connect_all();
        yosys_validate("route_unit", &generate_verilog(&uut)).unwrap();
    }
}
