//! The boundary between the router's data plane and its counters: per port, one
//! [`PortCountersSource`] from the router core (the input port, the switch's output side, the
//! link port's discards) to the counters of the management plane ([`crate::nrc_mgmt`], a
//! [`CounterRam`](hdl::regmap::CounterRam) behind the register file), which counts the pulses
//! and keeps the occupancy peaks (issue 11, item 6). The registers are
//! [`crate::regs::port_counter_map`]'s, one slot per field below in [`COUNTER_NAMES`] order.
//!
//! Every pulse is one cycle and means one event in that cycle; the register side counts them
//! (saturating at 2^32 - 1) and never loses one. `occupancy` is a level, sampled every cycle
//! by the peak registers.
//!
//! Parameters: `PV` = `VCS * 8` (per VC an 8-bit flit count, VC `v` at bits `v * 8 ..`).
use crate::port::event;
use rust_hdl::prelude::*;

/// Bits of one VC's occupancy in [`PortCountersSource::occupancy`].
pub const OCCUPANCY_BITS: usize = 8;

/// The counters of one port, in slot order: the four traffic counts, the input port's drop
/// reasons (bit order of [`event`]), the link port's discards. (Name, meaning.)
pub const COUNTER_NAMES: [(&str, &str); COUNTERS] = [
    ("flits_in", "flits that arrived on the port's input channel (any VC, whatever their fate)"),
    ("packets_in", "heads that arrived on the port's input channel"),
    ("flits_out", "flits that left on the port's output channel"),
    ("packets_out", "packets that finished leaving on the port's output channel (tails and closing TailBadPkts)"),
    ("drop_bad_vc", "input: flits on a VC out of range, dropped"),
    ("drop_no_credit", "input: flits on a VC with no credit left, dropped"),
    ("drop_bad_len", "input: heads with a len below 2 or above network.max_packet_flits, dropped with their packet"),
    ("drop_head_in_packet", "input: heads inside an open packet (the open packet closed with a TailBadPkt, the new one dropped)"),
    ("drop_too_long", "input: packets longer than their len (closed with a TailBadPkt, the rest dropped)"),
    ("drop_too_short", "input: packets shorter than their len (closed with a TailBadPkt)"),
    ("drop_no_head", "input: bodies or tails with no packet open, dropped"),
    ("drop_bad_flit", "input: control or malformed flits (an open packet closed with a TailBadPkt)"),
    ("drop_no_slot", "input: flits that found no free slot (never while the sender obeys credits)"),
    ("drop_no_route", "input: packets whose destination has no allowed port, dropped whole (the router's no-route drops)"),
    ("drop_mgmt_off_vc", "input: management packets on a VC other than network.mgmt_vc, dropped whole"),
    ("drop_bad_route", "input: management packets with a malformed source route, dropped whole"),
    ("discarded_flits", "output: flits discarded because the port's link is dead (its watchdog fired)"),
    ("discarded_packets", "output: heads among them"),
];

/// Counter slots per port.
pub const COUNTERS: usize = 4 + event::COUNT + 2;

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
    /// That flit ends its packet (a packet left).
    pub packet_out: Signal<Out, bool>,
    /// Bit `e` ([`event`]): the input port dropped or refused something for reason `e`.
    pub drops: Signal<Out, Bits<{ event::COUNT }>>,
    /// The port's link is dead and a flit the router sent on it was discarded.
    pub discarded: Signal<Out, bool>,
    /// That flit is a head.
    pub discarded_head: Signal<Out, bool>,
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
    /// A flit discarded on a dead link.
    pub discarded: Signal<In, bool>,
    /// That flit is a head.
    pub discarded_head: Signal<In, bool>,
    /// Per VC occupancy.
    pub occupancy: Signal<In, Bits<PV>>,
}

#[test]
fn every_counter_has_a_name_and_the_drops_follow_the_events() {
    for (e, name) in event::NAMES.iter().enumerate() {
        assert_eq!(COUNTER_NAMES[4 + e].0, format!("drop_{name}"));
    }
}
