//! RS merge: `N` streams of RS beats into one, round robin by WHOLE packets, registered output.
//!
//! Used twice: inside each relay station (its own port and its left neighbour, toward the NMA)
//! and at the NMA end of the mesh (the last relay station of every row). A [`RrArbiter`] with
//! packet hold picks the input: once an input's beat is granted, the grant stays with it until its
//! `last` beat moves, so beats of two packets never interleave; when several inputs wait, each is
//! served once per `N` packets. The grant is combinational from the inputs' `valid` and registered
//! state, so a beat offered to an idle merge moves on the same edge and is on `source` one cycle
//! later (one register stage, [`RsSpill`]).
//!
//! Handshake: `sinks[i].ready` is the grant bit of input `i` and room in the spill register, so it
//! depends on the inputs' `valid` (allowed: a sink may lower ready at any time) but never the
//! other way round. While the holder of the grant is inside a packet and offers nothing, the other
//! inputs wait (whole packets). Data, `last` and `port` pass through unchanged.
//!
//! Ports: `clock`, `reset` (synchronous: empties the output register, releases the grant, priority
//! back to input 0), `sinks`, `source`. Parameters: `B` beat bits, `P` port bits, `N` inputs (1 is a
//! wire into the spill register, no arbiter), `W` = [`index_width`](crate::arb::index_width)`(N)`.
use super::relay_station::{RsBeatSink, RsBeatSource};
use super::rs_spill::RsSpill;
use crate::arb::{multi, RrArbiter};
use rust_hdl::prelude::*;

/// `N` RS beat streams merged into one, whole packets at a time.
#[derive(LogicBlock)]
pub struct RsMerge<const B: usize, const P: usize, const N: usize, const W: usize> {
    /// Clock of the arbiter and the output register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The inputs; input `i` is requester `i` of the round robin.
    pub sinks: [RsBeatSink<B, P>; N],
    /// The merged packets.
    pub source: RsBeatSource<B, P>,
    arbiter: RrArbiter<N, W>,
    spill: RsSpill<B, P>,
    /// The arbiter's index output, not needed (the mux uses the one-hot grant).
    unused_index: Signal<Local, Bits<W>>,
    /// The one-hot grant, read only for two inputs or more (one input is a wire).
    unused_grant: Signal<Local, Bits<N>>,
    /// `requests_acc[i]` holds the valid bits of inputs below `i`.
    requests_acc: Vec<Signal<Local, Bits<N>>>,
    /// One input: no arbiter in the path.
    single: Constant<bool>,
}

impl<const B: usize, const P: usize, const N: usize, const W: usize> RsMerge<B, P, N, W> {
    /// A merge of `N` inputs; panics, naming the parameter, if `W` is not `index_width(N)`.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sinks: std::array::from_fn(|_| Default::default()),
            source: Default::default(),
            arbiter: RrArbiter::new(true),
            spill: Default::default(),
            unused_index: Default::default(),
            unused_grant: Default::default(),
            requests_acc: (0..=N).map(|_| Default::default()).collect(),
            single: Constant::new(N == 1),
        }
    }
}

impl<const B: usize, const P: usize, const N: usize, const W: usize> Default
    for RsMerge<B, P, N, W>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const B: usize, const P: usize, const N: usize, const W: usize> Logic for RsMerge<B, P, N, W> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, arbiter, spill);
        self.arbiter.reset.next = self.reset.val();
        self.spill.reset.next = self.reset.val();
        self.unused_index.next = self.arbiter.grant_index.val();
        self.unused_grant.next = self.arbiter.grant.val();
        RsBeatSource::<B, P>::link(&mut self.source, &mut self.spill.source);
        self.requests_acc[0].next = 0.into();
        for i in 0..N {
            self.requests_acc[i + 1].next = self.requests_acc[i]
                .val()
                .replace_bit(i, self.sinks[i].valid.val());
        }
        for i in N..(N + 1) {
            self.arbiter.requests.next = self.requests_acc[i].val();
        }
        // Input 0 is the default (also the only input when `N` is 1, where `grant` is a scalar
        // that cannot be indexed); a grant to another input overrides it.
        self.spill.sink.valid.next = self.sinks[0].valid.val();
        self.spill.sink.data.next = self.sinks[0].data.val();
        self.spill.sink.last.next = self.sinks[0].last.val();
        self.spill.sink.port.next = self.sinks[0].port.val();
        self.sinks[0].ready.next = self.spill.sink.ready.val();
        for i in 0..multi(N) {
            self.sinks[i].ready.next =
                self.arbiter.grant.val().get_bit(i) & self.spill.sink.ready.val();
            if self.arbiter.grant.val().get_bit(i) {
                self.spill.sink.data.next = self.sinks[i].data.val();
                self.spill.sink.last.next = self.sinks[i].last.val();
                self.spill.sink.port.next = self.sinks[i].port.val();
            }
        }
        if !self.single.val() {
            self.spill.sink.valid.next = self.arbiter.valid.val();
        }
        // The grant is used when its beat moves; the hold ends with the packet's last beat.
        self.arbiter.advance.next = self.spill.sink.valid.val() & self.spill.sink.ready.val();
        self.arbiter.tail.next = self.spill.sink.last.val();
    }
}

#[test]
fn rs_merge_is_synthesizable() {
    let mut uut = RsMerge::<20, 5, 3, 2>::new();
    uut.connect_all();
    yosys_validate("rs_merge", &generate_verilog(&uut)).unwrap();
    let mut uut = RsMerge::<20, 5, 1, 1>::new();
    uut.connect_all();
    yosys_validate("rs_merge_1", &generate_verilog(&uut)).unwrap();
}
