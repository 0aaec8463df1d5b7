//! The router's switch (issue 11, items 5 and 6): the input ports' requests in, one flit per
//! output port per cycle out on its router channel, with virtual cut-through credit control.
//!
//! ```text
//!  inputs[i] (SwitchRequestSink) --ready/head/last/ports/out_vcs/lens--> SwitchAllocator
//!       |  <--grant, grant_vc--------------------------------------------/   |  ^  controls[p]
//!       |  flit                                        from_agent[p] -> AgentPort[p]  |
//!       v                                                                     v  |
//!  Crossbar (tiles: rows of inputs x columns of outputs) --flit[p]--> OutputUnit[p] --> outputs[p]
//!                                                                    (credits, VC owners,
//!                                                                     the output register)
//! ```
//!
//! - [`OutputUnit`]: per output port, the credits of every VC of the downstream buffer,
//!   which VCs a packet holds, and the output register (the one register between an input's
//!   front and the link).
//! - [`SwitchAllocator`]: separable allocation in the cycle of the request: which input VCs
//!   may move (virtual cut-through), then the [`Matcher`]: round robin per input (over its
//!   VCs) and per output (over the inputs and the agent), iSLIP-style iterations. VC
//!   allocation is folded in (the output VC is given by the input port).
//! - [`Crossbar`]: per output, the flit of the granted input, built from tiles.
//! - [`AgentPort`]: the management agent's packets for one output port, as one more requester.
//! - [`Matcher`]: the allocator's iterations of round-robin matching.
//! - [`StarvingMarks`] and [`AgentCheck`]: the allocator's per-output starving marks and the
//!   eligibility of its agent port.
//!
//! The bundles between them are defined here once: [`OutputControlSource`]/
//! [`OutputControlSink`] (an output unit's state to the allocator, the allocator's send back)
//! and [`AgentRequestSource`]/[`AgentRequestSink`] (an agent port's request and its grant).
use rust_hdl::prelude::*;

pub mod agent_check;
pub mod agent_port;
pub mod allocator;
pub mod crossbar;
pub mod matcher;
pub mod output_unit;
pub mod starving_marks;
#[allow(clippy::module_inception)]
pub mod switch;

pub use agent_check::AgentCheck;
pub use agent_port::AgentPort;
pub use allocator::SwitchAllocator;
pub use crossbar::Crossbar;
pub use matcher::Matcher;
pub use output_unit::OutputUnit;
pub use starving_marks::StarvingMarks;
pub use switch::Switch;

/// Bits of a credit count and of a head's `len` (the header's `len` field is 8 bits, so a
/// downstream buffer reservation fits too: `router.reserved_flits_per_vc` is at most 255).
pub const CREDIT_BITS: usize = 8;

/// Elaboration values of a [`Switch`] (and of its children).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwitchParams {
    /// Credits each VC of a downstream buffer starts with after reset
    /// (`router.reserved_flits_per_vc`: what the downstream DAMQ gives each VC).
    pub reserve: usize,
    /// Longest packet, flits (`network.max_packet_flits`): the credits a head needs while its
    /// output VC is marked starving (see [`SwitchAllocator`]).
    pub max_len: usize,
    /// VC of the management agent's packets (`network.mgmt_vc`).
    pub mgmt_vc: usize,
    /// Allocator iterations, 1..=3 (`router.alloc_iterations`).
    pub iterations: usize,
    /// Crossbar tile rows and columns (`router.tile_rows`, `router.tile_cols`).
    pub tile_rows: usize,
    /// See `tile_rows`.
    pub tile_cols: usize,
}

impl SwitchParams {
    /// The values of `cfg`.
    pub fn from_config(cfg: &hdl::params::Config) -> Self {
        Self {
            reserve: cfg.router.reserved_flits_per_vc as usize,
            max_len: cfg.network.max_packet_flits as usize,
            mgmt_vc: cfg.network.mgmt_vc as usize,
            iterations: cfg.router.alloc_iterations as usize,
            tile_rows: cfg.router.tile_rows as usize,
            tile_cols: cfg.router.tile_cols as usize,
        }
    }
}

/// The type of a [`Switch`] with `$ports` ports and `$vcs` VCs, widths filled in:
/// `switch!(5, 2)`.
#[macro_export]
macro_rules! switch {
    ($ports:expr, $vcs:expr) => {
        $crate::switch::Switch<
            { $ports },
            { $vcs },
            { hdl::channel::channel_vc_bits($vcs) },
            { hdl::bits::index_bits($ports) },
            { $vcs * hdl::bits::index_bits($ports) },
            { $vcs * hdl::channel::channel_vc_bits($vcs) },
            { $vcs * 8 },
            { $ports + 1 },
        >
    };
}

/// The type of a [`Matcher`] with `$ports` ports and `$vcs` VCs: `matcher!(5, 2)`.
#[macro_export]
macro_rules! matcher {
    ($ports:expr, $vcs:expr) => {
        $crate::switch::Matcher<
            { $ports },
            { $vcs },
            { hdl::bits::index_bits($ports) },
            { $vcs * hdl::bits::index_bits($ports) },
            { $ports + 1 },
        >
    };
}

/// The type of a [`SwitchAllocator`] with `$ports` ports and `$vcs` VCs: `allocator!(5, 2)`.
#[macro_export]
macro_rules! allocator {
    ($ports:expr, $vcs:expr) => {
        $crate::switch::SwitchAllocator<
            { $ports },
            { $vcs },
            { hdl::channel::channel_vc_bits($vcs) },
            { hdl::bits::index_bits($ports) },
            { $vcs * hdl::bits::index_bits($ports) },
            { $vcs * hdl::channel::channel_vc_bits($vcs) },
            { $vcs * 8 },
            { $ports + 1 },
        >
    };
}

/// The type of an [`OutputUnit`] with `$vcs` VCs: `output_unit!(2)`.
#[macro_export]
macro_rules! output_unit {
    ($vcs:expr) => {
        $crate::switch::OutputUnit<
            { $vcs },
            { hdl::channel::channel_vc_bits($vcs) },
            { $vcs * 8 },
        >
    };
}

/// An output unit's state for the allocator, and the allocator's send for this cycle back.
/// The output unit's end.
#[derive(LogicInterface, Default)]
#[join = "OutputControlSink"]
pub struct OutputControlSource<const VCS: usize, const VCB: usize, const PVL: usize> {
    /// Per VC: free credits of the downstream buffer (from registers), 8 bits at `v * 8`.
    pub credits: Signal<Out, Bits<PVL>>,
    /// Bit `v`: no packet holds VC `v` (a head may take it).
    pub free: Signal<Out, Bits<VCS>>,
    /// A flit leaves on this edge (it is on the link in the next cycle).
    pub send: Signal<In, bool>,
    /// Its VC on the link.
    pub vc: Signal<In, Bits<VCB>>,
    /// It is a head: its packet takes VC `vc`.
    pub head: Signal<In, bool>,
    /// It ends its packet: VC `vc` is free again.
    pub last: Signal<In, bool>,
    /// It comes from the management agent's port (else from the crossbar).
    pub agent: Signal<In, bool>,
}

/// The allocator's end of [`OutputControlSource`].
#[derive(LogicInterface, Default)]
#[join = "OutputControlSource"]
pub struct OutputControlSink<const VCS: usize, const VCB: usize, const PVL: usize> {
    /// Per VC: free credits, 8 bits at `v * 8`.
    pub credits: Signal<In, Bits<PVL>>,
    /// Bit `v`: VC `v` is free.
    pub free: Signal<In, Bits<VCS>>,
    /// A flit leaves on this edge.
    pub send: Signal<Out, bool>,
    /// Its VC on the link.
    pub vc: Signal<Out, Bits<VCB>>,
    /// It is a head.
    pub head: Signal<Out, bool>,
    /// It ends its packet.
    pub last: Signal<Out, bool>,
    /// It comes from the management agent's port.
    pub agent: Signal<Out, bool>,
}

/// The management agent's request for one output port (always on `network.mgmt_vc`): the
/// front flit of its packet stream. The agent port's end.
#[derive(LogicInterface, Default)]
#[join = "AgentRequestSink"]
pub struct AgentRequestSource {
    /// A flit is offered.
    pub valid: Signal<Out, bool>,
    /// It is the first flit of a packet (read as a head: its `len` is `len`).
    pub head: Signal<Out, bool>,
    /// It ends its packet.
    pub last: Signal<Out, bool>,
    /// The head's `len` field (meaningful with `head`).
    pub len: Signal<Out, Bits<CREDIT_BITS>>,
    /// The flit moves on this edge.
    pub grant: Signal<In, bool>,
}

/// The allocator's end of [`AgentRequestSource`].
#[derive(LogicInterface, Default)]
#[join = "AgentRequestSource"]
pub struct AgentRequestSink {
    /// A flit is offered.
    pub valid: Signal<In, bool>,
    /// It is the first flit of a packet.
    pub head: Signal<In, bool>,
    /// It ends its packet.
    pub last: Signal<In, bool>,
    /// The head's `len`.
    pub len: Signal<In, Bits<CREDIT_BITS>>,
    /// The flit moves on this edge.
    pub grant: Signal<Out, bool>,
}
