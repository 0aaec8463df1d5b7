//! RS demux: outbound packets from the NMA into the relay-station row of their output port.
//!
//! Row `r` owns ports `r * n .. (r + 1) * n` (`n` ports per row). A packet goes to the row
//! owning its `port`, taken from its first beat and kept to its `last` beat; a port number
//! beyond the last row (no such port) goes to the last row, whose leftmost station drops and
//! counts it (see [`super::relay_station`]), so a bad port number neither hangs nor vanishes
//! silently.
//!
//! Every output comes from a spill register ([`RsSpill`], one cycle): without it the path from
//! the NMA's downsizer through the port comparison, the row's rightmost station's route and
//! back to the downsizer's `ready` was the 8-port mesh's critical path on iCE40 (87.5 MHz
//! median of 3 seeds; the relay station alone: 129 MHz). With it the mesh measured 82.5 MHz
//! (seeds 78.7 to 87.6), now limited by routing inside one hop (a station's port comparison to
//! its spill register's enables, 10 of 12 ns routing), so this register did not raise the Fmax
//! by itself. One packet blocks the NMA's outbound stream while its row is busy
//! (the stream is ordered; head of line as in the rows).
//!
//! Ports: `clock`, `reset` (synchronous: releases the route, empties the spill registers),
//! `sink`, `sources` (one per row). Parameters: `B`, `P`, `N` rows; constructor: `per_row`
//! ports per row.
use super::relay_station::{RsBeatSink, RsBeatSource};
use super::rs_spill::RsSpill;
use rust_hdl::prelude::*;

/// Outbound packets to the row of their port.
#[derive(LogicBlock)]
pub struct RsDemux<const B: usize, const P: usize, const N: usize> {
    /// Clock of the route registers.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Outbound packets from the NMA.
    pub sink: RsBeatSink<B, P>,
    /// One stream per row.
    pub sources: [RsBeatSource<B, P>; N],
    /// The output register of each row.
    spills: Vec<RsSpill<B, P>>,
    /// First port of each row (index 0 unused).
    starts: Vec<Constant<Bits<P>>>,
    /// Inside a packet: the route is held.
    routing: DFF<bool>,
    /// The held route, one flag per row.
    routes: Vec<DFF<bool>>,
    /// `above[r]`: the port is at least row `r`'s first (`above[0]` true, `above[N]` false).
    above: Vec<Signal<Local, bool>>,
    /// The row of the beat on `sink`.
    selected: Vec<Signal<Local, bool>>,
    /// `ready_acc[r + 1]`: the selected row among the first `r + 1` is ready.
    ready_acc: Vec<Signal<Local, bool>>,
    /// A beat moves on this edge.
    moving: Signal<Local, bool>,
}

impl<const B: usize, const P: usize, const N: usize> RsDemux<B, P, N> {
    /// A demux into `N` rows of `per_row` ports; panics if the ports do not fit in `P` bits.
    pub fn new(per_row: usize) -> Self {
        assert!(N >= 1, "RsDemux: N (rows) must be at least 1");
        assert!(per_row >= 1, "RsDemux: per_row must be at least 1");
        assert!(
            P < 64 && ((N * per_row - 1) as u64) < (1u64 << P),
            "RsDemux: {} ports do not fit in P = {P} bits",
            N * per_row
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sink: Default::default(),
            sources: std::array::from_fn(|_| Default::default()),
            spills: (0..N).map(|_| Default::default()).collect(),
            starts: (0..N)
                .map(|r| Constant::new(((r * per_row) as u64).into()))
                .collect(),
            routing: Default::default(),
            routes: (0..N).map(|_| Default::default()).collect(),
            above: (0..=N).map(|_| Default::default()).collect(),
            selected: (0..N).map(|_| Default::default()).collect(),
            ready_acc: (0..=N).map(|_| Default::default()).collect(),
            moving: Default::default(),
        }
    }
}

impl<const B: usize, const P: usize, const N: usize> Logic for RsDemux<B, P, N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, routing);
        for r in 0..N {
            self.routes[r].clock.next = self.clock.val();
            self.routes[r].d.next = self.routes[r].q.val();
            self.spills[r].clock.next = self.clock.val();
            self.spills[r].reset.next = self.reset.val();
            RsBeatSource::<B, P>::link(&mut self.sources[r], &mut self.spills[r].source);
        }
        self.above[0].next = true;
        for r in 1..N {
            self.above[r].next = self.sink.port.val() >= self.starts[r].val();
        }
        for r in N..(N + 1) {
            self.above[r].next = false;
        }
        self.ready_acc[0].next = false;
        for r in 0..N {
            self.selected[r].next = self.above[r].val() & !self.above[r + 1].val();
            if self.routing.q.val() {
                self.selected[r].next = self.routes[r].q.val();
            }
            self.spills[r].sink.valid.next = self.sink.valid.val() & self.selected[r].val();
            self.spills[r].sink.data.next = self.sink.data.val();
            self.spills[r].sink.last.next = self.sink.last.val();
            self.spills[r].sink.port.next = self.sink.port.val();
            self.ready_acc[r + 1].next = self.ready_acc[r].val()
                | (self.selected[r].val() & self.spills[r].sink.ready.val());
        }
        for r in N..(N + 1) {
            self.sink.ready.next = self.ready_acc[r].val();
        }
        self.moving.next = self.sink.valid.val() & self.sink.ready.val();
        if self.moving.val() {
            self.routing.d.next = !self.sink.last.val();
            for r in 0..N {
                self.routes[r].d.next = self.selected[r].val();
            }
        }
        if self.reset.val() {
            self.routing.d.next = false;
        }
    }
}

#[test]
fn rs_demux_is_synthesizable() {
    let mut uut = RsDemux::<20, 5, 4>::new(6);
    uut.connect_all();
    yosys_validate("rs_demux", &generate_verilog(&uut)).unwrap();
    let mut uut = RsDemux::<20, 5, 1>::new(8);
    uut.connect_all();
    yosys_validate("rs_demux_1", &generate_verilog(&uut)).unwrap();
}
