//! Routing of data packets (issue 11, item 3): the run-time route table, the choice of one
//! output port among the allowed ones, and the per-input-port stage that combines them.
//!
//! ```text
//!                 management (RouteTableSink: index, ports, write -> read)
//!                        |
//! head[i] --> RouteCompute[i] --lookup[i]--> RouteTable (one RAM copy per input port,
//!   (flit)       |  PortSelect  <--allowed--             one for `read`, written together)
//!                |     ^ states[i]: per output port free credits, queue occupancy
//!                v
//!            route[i]: valid, port (one-hot), index, no_route;  fault[i]
//! ```
//!
//! - [`RouteTable`]: destination node -> set of allowed output ports, in block RAM, written
//!   and read at run time through the router's indirect registers (`route_table_map`).
//! - [`PortSelect`]: one port out of the allowed set, adaptive (most free credits less queued
//!   flits, ties rotating) or deterministic (a hash of source and destination).
//! - [`RouteCompute`]: one input port's stage: head in, route out one cycle later.
//! - [`RouteUnit`]: the table and one stage per input port, the router's routing block.
//! - [`RouteStatus`]: the output ports' state for the choice, from the switch's credits and
//!   the input ports' queues (the router core's glue).
//!
//! The bundles between them are defined here once, each as a `LogicInterface` pair.
pub mod port_select;
pub mod route_compute;
pub mod route_status;
pub mod route_table;
pub mod route_unit;

pub use port_select::PortSelect;
pub use route_compute::RouteCompute;
pub use route_status::RouteStatus;
pub use route_table::RouteTable;
pub use route_unit::RouteUnit;

use hdl::formats::FLIT_BITS;
use rust_hdl::prelude::*;

/// Bits of a node ID as the header's `dst` and `src` carry it (`hdl::formats::header::DST`;
/// a test checks they agree, as rust-hdl widths cannot be read from the field table).
pub const NODE_BITS: usize = 16;

/// A head flit offered to a route-compute stage: valid only, no backpressure (the stage takes
/// one head per cycle).
#[derive(LogicInterface, Default)]
#[join = "HeadSink"]
pub struct HeadSource {
    /// A flit is offered (only head flits are routed; others are ignored).
    pub valid: Signal<Out, bool>,
    /// The flit.
    pub flit: Signal<Out, Bits<FLIT_BITS>>,
}

/// The receiving end of [`HeadSource`].
#[derive(LogicInterface, Default)]
#[join = "HeadSource"]
pub struct HeadSink {
    /// A flit is offered.
    pub valid: Signal<In, bool>,
    /// The flit.
    pub flit: Signal<In, Bits<FLIT_BITS>>,
}

/// A lookup in the route table: the destination of this cycle in, its entry out on the next
/// cycle (the table's RAM has a registered read).
#[derive(LogicInterface, Default)]
#[join = "RouteLookupSink"]
pub struct RouteLookupSource<const PORTS: usize> {
    /// The destination node looked up this cycle.
    pub dst: Signal<Out, Bits<NODE_BITS>>,
    /// The allowed output ports of the destination looked up on the previous cycle (zero for
    /// a destination at or beyond the table's depth).
    pub allowed: Signal<In, Bits<PORTS>>,
}

/// The table's end of [`RouteLookupSource`].
#[derive(LogicInterface, Default)]
#[join = "RouteLookupSource"]
pub struct RouteLookupSink<const PORTS: usize> {
    /// The destination node looked up this cycle.
    pub dst: Signal<In, Bits<NODE_BITS>>,
    /// The entry of the previous cycle's destination.
    pub allowed: Signal<Out, Bits<PORTS>>,
}

/// The state of every output port as one input port's packet sees it, packed port after
/// port (`S` bits per port: port `p` in bits `p * S ..`; `PS = PORTS * S`).
#[derive(LogicInterface, Default)]
#[join = "OutputStatesSink"]
pub struct OutputStatesSource<const PS: usize> {
    /// Per output port: free credits of the packet's output VC downstream (saturated to `S`
    /// bits by the sender).
    pub credits: Signal<Out, Bits<PS>>,
    /// Per output port: flits queued for the port (saturated to `S` bits by the sender).
    pub occupancy: Signal<Out, Bits<PS>>,
}

/// The receiving end of [`OutputStatesSource`].
#[derive(LogicInterface, Default)]
#[join = "OutputStatesSource"]
pub struct OutputStatesSink<const PS: usize> {
    /// Per output port: free credits of the packet's output VC.
    pub credits: Signal<In, Bits<PS>>,
    /// Per output port: flits queued.
    pub occupancy: Signal<In, Bits<PS>>,
}

/// The route of one head: valid only, one cycle per head (the receiver takes it in that
/// cycle).
#[derive(LogicInterface, Default)]
#[join = "RouteResultSink"]
pub struct RouteResultSource<const PORTS: usize, const W: usize> {
    /// A route is offered (one cycle).
    pub valid: Signal<Out, bool>,
    /// The chosen output port, one-hot (zero with `no_route`).
    pub port: Signal<Out, Bits<PORTS>>,
    /// The chosen output port's number (zero with `no_route`).
    pub index: Signal<Out, Bits<W>>,
    /// No output port is allowed: the packet must be dropped and counted.
    pub no_route: Signal<Out, bool>,
}

/// The receiving end of [`RouteResultSource`].
#[derive(LogicInterface, Default)]
#[join = "RouteResultSource"]
pub struct RouteResultSink<const PORTS: usize, const W: usize> {
    /// A route is offered.
    pub valid: Signal<In, bool>,
    /// The chosen output port, one-hot.
    pub port: Signal<In, Bits<PORTS>>,
    /// The chosen output port's number.
    pub index: Signal<In, Bits<W>>,
    /// No output port is allowed.
    pub no_route: Signal<In, bool>,
}

/// `n` default values (the per-port, per-VC and per-copy signal vectors of the router's blocks).
pub(crate) fn defaults<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn node_bits_match_the_header() {
        use hdl::formats::header::{DST, SRC};
        assert_eq!(super::NODE_BITS, DST.width);
        assert_eq!(super::NODE_BITS, SRC.width);
        assert_eq!(super::NODE_BITS, crate::regs::ROUTE_INDEX_BITS);
    }
}
