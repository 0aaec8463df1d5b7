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
//! request path, the per-VC packet state, [`VcChoice`] (the VC policy) and [`HeadRewrite`].
use hdl::formats::FLIT_BITS;
use rust_hdl::prelude::*;

pub mod arrival_stamp;
pub mod credit_lender;
pub mod damq;
pub mod damq_store;
pub mod head_rewrite;
pub mod input_port;
pub mod intake;
pub mod mgmt_transit;
pub mod packet_check;
pub mod vc_choice;

pub use arrival_stamp::ArrivalStamp;
pub use credit_lender::CreditLender;
pub use damq::{Damq, DamqParams};
pub use damq_store::DamqStore;
pub use head_rewrite::HeadRewrite;
pub use input_port::{InputPort, InputPortParams};
pub use intake::Intake;
pub use mgmt_transit::MgmtTransit;
pub use packet_check::PacketCheck;
pub use vc_choice::VcChoice;

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
