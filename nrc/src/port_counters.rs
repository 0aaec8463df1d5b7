//! The boundary between the router's data plane and its counters: per port, one
//! [`PortCountersSource`] from the router core (the input port, the switch's output side) to
//! the register file's counters in the management plane ([`crate::nrc_mgmt`]), which counts the
//! pulses and keeps the occupancy peaks (issue 11, item 6).
//!
//! Every pulse is one cycle and means one event in that cycle; the register side counts them
//! (saturating) and never loses one. `occupancy` is a level, sampled every cycle by the peak
//! registers.
//!
//! Parameters: `PV` = `VCS * 8` (per VC an 8-bit flit count, VC `v` at bits `v * 8 ..`,
//! saturated at 255 by the sender).
use crate::port::event;
use rust_hdl::prelude::*;

/// Bits of one VC's occupancy in [`PortCountersSource::occupancy`].
pub const OCCUPANCY_BITS: usize = 8;

/// The data plane's end: one port's events, every cycle.
#[derive(LogicInterface, Default)]
#[join = "PortCountersSink"]
pub struct PortCountersSource<const PV: usize> {
    /// A flit arrived on the port's input channel (any VC, whatever its fate).
    pub flit_in: Signal<Out, bool>,
    /// That flit is a head (a packet arrived).
    pub packet_in: Signal<Out, bool>,
    /// A flit left on the port's output channel.
    pub flit_out: Signal<Out, bool>,
    /// That flit is a head (a packet left).
    pub packet_out: Signal<Out, bool>,
    /// Bit `e` ([`event`]): the input port dropped or refused something for reason `e`.
    pub drops: Signal<Out, Bits<{ event::COUNT }>>,
    /// Per VC: flits of that VC in the port's input buffer now, `v * 8 ..`.
    pub occupancy: Signal<Out, Bits<PV>>,
}

/// The register side's end of [`PortCountersSource`].
#[derive(LogicInterface, Default)]
#[join = "PortCountersSource"]
pub struct PortCountersSink<const PV: usize> {
    /// A flit arrived.
    pub flit_in: Signal<In, bool>,
    /// A packet arrived.
    pub packet_in: Signal<In, bool>,
    /// A flit left.
    pub flit_out: Signal<In, bool>,
    /// A packet left.
    pub packet_out: Signal<In, bool>,
    /// Drops by reason.
    pub drops: Signal<In, Bits<{ event::COUNT }>>,
    /// Per VC occupancy.
    pub occupancy: Signal<In, Bits<PV>>,
}
