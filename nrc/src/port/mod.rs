//! A router port's input unit: the DAMQ input buffer ([`Damq`]) behind the router channel
//! ([`hdl::channel`]), made of the packet checks ([`Intake`]), the credit policy
//! ([`CreditLender`]) and the shared storage with its per-VC linked lists ([`DamqStore`]).
//!
//! The bundles between the pieces and towards the switch are defined here once:
//! [`VcWriteSource`]/[`VcWriteSink`] (a flit to store on a VC, no backpressure: the credit
//! policy guarantees room) and [`VcReadSource`]/[`VcReadSink`] (the switch's one read port:
//! the VC to read in this cycle and the flit that moves), and [`SwitchRequestSource`]/
//! [`SwitchRequestSink`] (a whole input port's offer to the switch and the switch's grant).
//!
//! [`InputPort`] is a whole port's input side: [`ArrivalStamp`], the [`Damq`], the route
//! request path ([`RouteRequest`], with [`VcChoice`], the VC policy), what each VC's front may
//! do ([`VcFronts`]), the per-VC packet state ([`VcFlags`]) and the DAMQ's read port
//! ([`ReadPort`], with [`HeadRewrite`] and the agent's register). The bundles between those
//! four are defined here too: [`RouteArrivalSource`] (the route of the lookup in flight),
//! [`VcStatusSource`] (the packet state), [`TransitDecisionSource`] (the management transit's
//! decision), [`SideIntentSource`] (what each VC wants of the read port) and
//! [`ReadOutcomeSource`] (what was read in this cycle).
use hdl::formats::FLIT_BITS;
use rust_hdl::prelude::*;

pub mod arrival_stamp;
pub mod credit_lender;
pub mod damq;
pub mod damq_store;
pub mod delta_crc;
pub mod head_rewrite;
pub mod hop_fields;
pub mod input_port;
pub mod intake;
pub mod mgmt_flit;
pub mod mgmt_transit;
pub mod packet_check;
pub mod read_port;
pub mod route_request;
pub mod vc_choice;
pub mod vc_flags;
pub mod vc_fronts;

pub use arrival_stamp::ArrivalStamp;
pub use credit_lender::CreditLender;
pub use damq::{Damq, DamqParams};
pub use damq_store::DamqStore;
pub use delta_crc::DeltaCrc;
pub use head_rewrite::HeadRewrite;
pub use hop_fields::HopFields;
pub use input_port::{InputPort, InputPortParams};
pub use intake::Intake;
pub use mgmt_flit::MgmtFlit;
pub use mgmt_transit::MgmtTransit;
pub use packet_check::PacketCheck;
pub use read_port::ReadPort;
pub use route_request::RouteRequest;
pub use vc_choice::VcChoice;
pub use vc_flags::VcFlags;
pub use vc_fronts::VcFronts;

/// The sending end of a store request: `flit` goes at the end of VC `vc`'s queue on this edge.
#[derive(LogicInterface, Default)]
#[join = "VcWriteSink"]
pub struct VcWriteSource<const VCB: usize> {
    /// Store `flit` on this edge.
    pub valid: Signal<Out, bool>,
    /// The queue (VC) it joins.
    pub vc: Signal<Out, Bits<VCB>>,
    /// The flit.
    pub flit: Signal<Out, Bits<FLIT_BITS>>,
}

/// The receiving end of [`VcWriteSource`].
#[derive(LogicInterface, Default)]
#[join = "VcWriteSource"]
pub struct VcWriteSink<const VCB: usize> {
    /// Store `flit` on this edge.
    pub valid: Signal<In, bool>,
    /// The queue (VC) it joins.
    pub vc: Signal<In, Bits<VCB>>,
    /// The flit.
    pub flit: Signal<In, Bits<FLIT_BITS>>,
}

/// The switch's end of an input unit's read port: in a cycle with `valid`, the front flit of
/// VC `vc` moves and is on `flit` (combinationally, so the switch can pass it on in the same
/// cycle). A read of a VC with no flit ready is ignored.
#[derive(LogicInterface, Default)]
#[join = "VcReadSink"]
pub struct VcReadSource<const VCB: usize> {
    /// Take the front flit of VC `vc` on this edge.
    pub valid: Signal<Out, bool>,
    /// The VC read (may change every cycle).
    pub vc: Signal<Out, Bits<VCB>>,
    /// The front flit of VC `vc`.
    pub flit: Signal<In, Bits<FLIT_BITS>>,
}

/// The input unit's end of [`VcReadSource`].
#[derive(LogicInterface, Default)]
#[join = "VcReadSource"]
pub struct VcReadSink<const VCB: usize> {
    /// Take the front flit of VC `vc` on this edge.
    pub valid: Signal<In, bool>,
    /// The VC read.
    pub vc: Signal<In, Bits<VCB>>,
    /// The front flit of VC `vc`.
    pub flit: Signal<Out, Bits<FLIT_BITS>>,
}

/// An input port's end of the switch (router core, issue 11): per VC, whether its front flit
/// can move and where it goes; back, the switch's grant of one VC per cycle; forward again,
/// the granted flit as it leaves.
///
/// A VC is `ready` when its front is a body or tail of a packet that holds its output VC (its
/// head was granted), or a head whose route and output VC are known. A ready head moves only
/// when the switch grants it its output VC: that VC free (no packet holds it) and at least
/// `len` credits there (virtual cut-through: the whole packet fits downstream, so its bodies
/// never wait for credits). The output VC is then held until the flit with `last` moves. The
/// per-VC fields are packed, VC `v` at bits `v * width`: `ports` (`W` bits each: the output
/// port's number), `out_vcs` (`VCB` bits: the VC on the output link), `lens` (8 bits: the
/// head's `len`, meaningful for heads).
///
/// `grant` with `grant_vc`: the front of that VC moves on this edge (the switch grants only a
/// ready VC). `flit` is that front combinationally (the head's `vc` and `delay` fields already
/// rewritten for the next hop), so the switch registers it into the output in the same cycle.
///
/// Parameters: `VCS`, `VCB` as the channel; `PVW` = `VCS * W` (`W` =
/// `index_bits(ports)`), `PVB` = `VCS * VCB`, `PVL` = `VCS * 8`.
#[derive(LogicInterface, Default)]
#[join = "SwitchRequestSink"]
pub struct SwitchRequestSource<
    const VCS: usize,
    const VCB: usize,
    const PVW: usize,
    const PVB: usize,
    const PVL: usize,
> {
    /// Bit `v`: VC `v`'s front can move if granted.
    pub ready: Signal<Out, Bits<VCS>>,
    /// Bit `v`: that front is a head (needs its output VC free and `len` credits there).
    pub head: Signal<Out, Bits<VCS>>,
    /// Bit `v`: that front ends its packet (a tail, or a TailBadPkt that closes it): it frees
    /// the output VC.
    pub last: Signal<Out, Bits<VCS>>,
    /// VC `v`'s output port number, bits `v * W ..`.
    pub ports: Signal<Out, Bits<PVW>>,
    /// VC `v`'s VC on the output link, bits `v * VCB ..`.
    pub out_vcs: Signal<Out, Bits<PVB>>,
    /// VC `v`'s packet length in flits (its head's `len`), bits `v * 8 ..`.
    pub lens: Signal<Out, Bits<PVL>>,
    /// The front of VC `grant_vc` moves on this edge.
    pub grant: Signal<In, bool>,
    /// The VC granted.
    pub grant_vc: Signal<In, Bits<VCB>>,
    /// The front flit of `grant_vc` as it leaves (combinational).
    pub flit: Signal<Out, Bits<FLIT_BITS>>,
}

/// The switch's end of [`SwitchRequestSource`].
#[derive(LogicInterface, Default)]
#[join = "SwitchRequestSource"]
pub struct SwitchRequestSink<
    const VCS: usize,
    const VCB: usize,
    const PVW: usize,
    const PVB: usize,
    const PVL: usize,
> {
    /// Bit `v`: VC `v`'s front can move if granted.
    pub ready: Signal<In, Bits<VCS>>,
    /// Bit `v`: that front is a head.
    pub head: Signal<In, Bits<VCS>>,
    /// Bit `v`: that front ends its packet.
    pub last: Signal<In, Bits<VCS>>,
    /// VC `v`'s output port number, bits `v * W ..`.
    pub ports: Signal<In, Bits<PVW>>,
    /// VC `v`'s VC on the output link, bits `v * VCB ..`.
    pub out_vcs: Signal<In, Bits<PVB>>,
    /// VC `v`'s packet length in flits, bits `v * 8 ..`.
    pub lens: Signal<In, Bits<PVL>>,
    /// The front of VC `grant_vc` moves on this edge.
    pub grant: Signal<Out, bool>,
    /// The VC granted.
    pub grant_vc: Signal<Out, Bits<VCB>>,
    /// The front flit of `grant_vc` as it leaves.
    pub flit: Signal<In, Bits<FLIT_BITS>>,
}

/// The route of an input port's lookup in flight ([`RouteRequest`] to [`VcFronts`] and
/// [`VcFlags`]): the lookup asked in the previous cycle for VC `vc`'s front (`pending`), and
/// in this cycle its answer: a port (`ok`, with `index`, the one-hot `port` and the output VC
/// `out_vc` of the VC policy) or none (`none`). `ok` and `none` already include `pending`.
#[derive(LogicInterface, Default)]
#[join = "RouteArrivalSink"]
pub struct RouteArrivalSource<const PORTS: usize, const W: usize, const VCB: usize> {
    /// A lookup is in flight (its answer is in this cycle).
    pub pending: Signal<Out, bool>,
    /// The VC whose front it is for.
    pub vc: Signal<Out, Bits<VCB>>,
    /// The answer names a port.
    pub ok: Signal<Out, bool>,
    /// The answer names no port (the packet is dropped).
    pub none: Signal<Out, bool>,
    /// The port's number.
    pub index: Signal<Out, Bits<W>>,
    /// The port, one-hot.
    pub port: Signal<Out, Bits<PORTS>>,
    /// The output VC of the head.
    pub out_vc: Signal<Out, Bits<VCB>>,
}

/// The receiving end of [`RouteArrivalSource`].
#[derive(LogicInterface, Default)]
#[join = "RouteArrivalSource"]
pub struct RouteArrivalSink<const PORTS: usize, const W: usize, const VCB: usize> {
    /// A lookup is in flight.
    pub pending: Signal<In, bool>,
    /// The VC whose front it is for.
    pub vc: Signal<In, Bits<VCB>>,
    /// The answer names a port.
    pub ok: Signal<In, bool>,
    /// The answer names no port.
    pub none: Signal<In, bool>,
    /// The port's number.
    pub index: Signal<In, Bits<W>>,
    /// The port, one-hot.
    pub port: Signal<In, Bits<PORTS>>,
    /// The output VC of the head.
    pub out_vc: Signal<In, Bits<VCB>>,
}

/// The registered packet state of an input port's VCs ([`VcFlags`] to [`VcFronts`]), VC `v`
/// at bit `v` (flags), bits `v * W ..` (`ports`) and `v * VCB ..` (`out_vcs`); the meaning of
/// each flag is in [`InputPort`]'s documentation.
#[derive(LogicInterface, Default)]
#[join = "VcStatusSink"]
pub struct VcStatusSource<const VCS: usize, const PVW: usize, const PVB: usize> {
    /// The front head's route is known.
    pub routed: Signal<Out, Bits<VCS>>,
    /// The packet's head has left; the rest follows on the same port and output VC.
    pub moving: Signal<Out, Bits<VCS>>,
    /// The rest of the packet is discarded.
    pub dropping: Signal<Out, Bits<VCS>>,
    /// The rest of the packet goes to the agent.
    pub managing: Signal<Out, Bits<VCS>>,
    /// The registered output port numbers.
    pub ports: Signal<Out, Bits<PVW>>,
    /// The registered output VCs.
    pub out_vcs: Signal<Out, Bits<PVB>>,
}

/// The receiving end of [`VcStatusSource`].
#[derive(LogicInterface, Default)]
#[join = "VcStatusSource"]
pub struct VcStatusSink<const VCS: usize, const PVW: usize, const PVB: usize> {
    /// The front head's route is known.
    pub routed: Signal<In, Bits<VCS>>,
    /// The packet's head has left.
    pub moving: Signal<In, Bits<VCS>>,
    /// The rest of the packet is discarded.
    pub dropping: Signal<In, Bits<VCS>>,
    /// The rest of the packet goes to the agent.
    pub managing: Signal<In, Bits<VCS>>,
    /// The registered output port numbers.
    pub ports: Signal<In, Bits<PVW>>,
    /// The registered output VCs.
    pub out_vcs: Signal<In, Bits<PVB>>,
}

/// The management transit's decision at the head of the DAMQ's decision FIFO, decoded
/// ([`ReadPort`] to [`VcFronts`] and [`VcFlags`]): `valid` (a decision is there); its kind
/// (`transit`, `agent`, `drop`: each the kind alone, without `valid`); its output `port`
/// (number and one-hot `hot`).
#[derive(LogicInterface, Default)]
#[join = "TransitDecisionSink"]
pub struct TransitDecisionSource<const PORTS: usize, const W: usize> {
    /// A decision is waiting.
    pub valid: Signal<Out, bool>,
    /// Its kind is transit (forwarded through the switch).
    pub transit: Signal<Out, bool>,
    /// Its kind is to the agent.
    pub agent: Signal<Out, bool>,
    /// Its kind is drop (a malformed route).
    pub drop: Signal<Out, bool>,
    /// The output port's number (transit).
    pub port: Signal<Out, Bits<W>>,
    /// The output port, one-hot.
    pub hot: Signal<Out, Bits<PORTS>>,
}

/// The receiving end of [`TransitDecisionSource`].
#[derive(LogicInterface, Default)]
#[join = "TransitDecisionSource"]
pub struct TransitDecisionSink<const PORTS: usize, const W: usize> {
    /// A decision is waiting.
    pub valid: Signal<In, bool>,
    /// Its kind is transit.
    pub transit: Signal<In, bool>,
    /// Its kind is to the agent.
    pub agent: Signal<In, bool>,
    /// Its kind is drop.
    pub drop: Signal<In, bool>,
    /// The output port's number.
    pub port: Signal<In, Bits<W>>,
    /// The output port, one-hot.
    pub hot: Signal<In, Bits<PORTS>>,
}

/// What each VC's front wants of the DAMQ's read port in this cycle ([`VcFronts`] to
/// [`ReadPort`] and [`VcFlags`]), VC `v` at bit `v`: a side read (`wants`), to the agent
/// (`agents`, else discarded), as a management head off the management VC (`mgmt_drops`), a
/// head waiting for its transit decision (`decided`) that says drop (`bad_routes`) or transit
/// (`transits`); and the output VC of the VC the switch grants (`grant_out_vc`).
#[derive(LogicInterface, Default)]
#[join = "SideIntentSink"]
pub struct SideIntentSource<const VCS: usize, const VCB: usize> {
    /// The front wants a side read.
    pub wants: Signal<Out, Bits<VCS>>,
    /// The front goes to the agent.
    pub agents: Signal<Out, Bits<VCS>>,
    /// The front is a management head off the management VC.
    pub mgmt_drops: Signal<Out, Bits<VCS>>,
    /// The front is a management head that waits for its transit decision.
    pub decided: Signal<Out, Bits<VCS>>,
    /// ... and the decision's kind is drop.
    pub bad_routes: Signal<Out, Bits<VCS>>,
    /// ... and the decision is there and says transit.
    pub transits: Signal<Out, Bits<VCS>>,
    /// The output VC of the VC the switch grants.
    pub grant_out_vc: Signal<Out, Bits<VCB>>,
}

/// The receiving end of [`SideIntentSource`].
#[derive(LogicInterface, Default)]
#[join = "SideIntentSource"]
pub struct SideIntentSink<const VCS: usize, const VCB: usize> {
    /// The front wants a side read.
    pub wants: Signal<In, Bits<VCS>>,
    /// The front goes to the agent.
    pub agents: Signal<In, Bits<VCS>>,
    /// The front is a management head off the management VC.
    pub mgmt_drops: Signal<In, Bits<VCS>>,
    /// The front waits for its transit decision.
    pub decided: Signal<In, Bits<VCS>>,
    /// ... which says drop.
    pub bad_routes: Signal<In, Bits<VCS>>,
    /// ... which is there and says transit.
    pub transits: Signal<In, Bits<VCS>>,
    /// The output VC of the VC the switch grants.
    pub grant_out_vc: Signal<In, Bits<VCB>>,
}

/// What the DAMQ's read port does in this cycle ([`ReadPort`] to [`VcFlags`]): the switch's
/// grant of VC `grant_vc` (`granted`), else a side read of VC `side_vc` (`side_go`, to the
/// agent when `side_agent`); `read_last`: the flit read ends its packet.
#[derive(LogicInterface, Default)]
#[join = "ReadOutcomeSink"]
pub struct ReadOutcomeSource<const VCB: usize> {
    /// The switch grants VC `grant_vc`.
    pub granted: Signal<Out, bool>,
    /// The VC granted.
    pub grant_vc: Signal<Out, Bits<VCB>>,
    /// A side read of VC `side_vc`.
    pub side_go: Signal<Out, bool>,
    /// The VC of the side read.
    pub side_vc: Signal<Out, Bits<VCB>>,
    /// The side read goes to the agent (else discards).
    pub side_agent: Signal<Out, bool>,
    /// The flit read ends its packet.
    pub read_last: Signal<Out, bool>,
}

/// The receiving end of [`ReadOutcomeSource`].
#[derive(LogicInterface, Default)]
#[join = "ReadOutcomeSource"]
pub struct ReadOutcomeSink<const VCB: usize> {
    /// The switch grants VC `grant_vc`.
    pub granted: Signal<In, bool>,
    /// The VC granted.
    pub grant_vc: Signal<In, Bits<VCB>>,
    /// A side read of VC `side_vc`.
    pub side_go: Signal<In, bool>,
    /// The VC of the side read.
    pub side_vc: Signal<In, Bits<VCB>>,
    /// The side read goes to the agent.
    pub side_agent: Signal<In, bool>,
    /// The flit read ends its packet.
    pub read_last: Signal<In, bool>,
}

/// Why the input unit dropped or rewrote a flit: bit positions of [`Damq`]'s `events`.
pub mod event {
    /// A flit whose `vc` is not below the VC count: dropped.
    pub const BAD_VC: usize = 0;
    /// A flit on a VC with no credit left: dropped, nothing else changes.
    pub const NO_CREDIT: usize = 1;
    /// A head whose `len` is below 2 or above `network.max_packet_flits`: dropped with its
    /// packet (up to its tail).
    pub const BAD_LEN: usize = 2;
    /// A head while a packet is open on its VC: stored as a TailBadPkt that closes the open
    /// packet; the new packet is dropped up to its tail.
    pub const HEAD_IN_PACKET: usize = 3;
    /// The flit after `len` flits is not a tail: stored as a TailBadPkt closing the packet;
    /// the rest is dropped up to its tail.
    pub const TOO_LONG: usize = 4;
    /// A tail before `len` flits: stored as a TailBadPkt.
    pub const TOO_SHORT: usize = 5;
    /// A body or tail with no packet open (and not being dropped): dropped; after a body, the
    /// rest up to its tail too.
    pub const NO_HEAD: usize = 6;
    /// A control or malformed flit: closes an open packet with a TailBadPkt (stored in its
    /// place) or is dropped; the rest is dropped up to its tail.
    pub const BAD_FLIT: usize = 7;
    /// A flit to store found no free slot. Cannot happen while the sender obeys credits (the
    /// credit policy keeps two slots spare); the flit is lost. The benches check it never fires.
    pub const NO_SLOT: usize = 8;
    /// A head without a route (the route table allows no port for its destination): its
    /// packet is dropped whole by the input port ([`InputPort`](super::InputPort)).
    pub const NO_ROUTE: usize = 9;
    /// A management head on a VC other than `network.mgmt_vc`: its packet is dropped whole by
    /// the input port.
    pub const MGMT_OFF_VC: usize = 10;
    /// A management packet whose source route is malformed (`current > hop_num`, `hop_num > 20`,
    /// a full backward route, a next hop that is not a port): dropped whole by the input port
    /// ([`MgmtTransit`](super::MgmtTransit)).
    pub const BAD_ROUTE: usize = 11;
    /// Number of event bits.
    pub const COUNT: usize = 12;
    /// Names, by bit.
    pub const NAMES: [&str; COUNT] = [
        "bad_vc",
        "no_credit",
        "bad_len",
        "head_in_packet",
        "too_long",
        "too_short",
        "no_head",
        "bad_flit",
        "no_slot",
        "no_route",
        "mgmt_off_vc",
        "bad_route",
    ];
}
