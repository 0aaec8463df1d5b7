//! Relay station (RS): one per router port, in rows, carrying management packets between the
//! ports and the management agent (NMA) over a narrow datapath (issue 12, item 4).
//!
//! # The beat bundle
//! [`RsBeatSource`]/[`RsBeatSink`] is a valid/ready stream (hold rule of [`crate::stream`]) of
//! beats: `data` (`B` bits, a flit moves as several beats, least significant first, see
//! [`crate::width`]), `last` (this beat ends its packet, so no station parses flits) and `port`
//! (`P` bits). Outbound (NMA to a port) `port` names the output port and must be the same on every
//! beat of a packet (the station routes by the packet's first beat and keeps the route to its
//! `last` beat). Inbound (a port to the NMA) the station of the port where the packet came in
//! writes its own number into `port`, so the NMA learns the input port of every packet without
//! any other sideband.
//!
//! # The four flows of station `k`
//! Rows run from left (first station) to right (last station, next to the NMA).
//! 1. `from_port` (its own port, toward the NMA) and 2. `from_left` (inbound from the left
//!    neighbour) both leave on `to_right`, merged round robin by WHOLE packets ([`RsMerge`]):
//!    beats of two packets never interleave.
//! 3. `from_right` (outbound from the right neighbour, or the NMA for the last station) with
//!    `port == k` leaves on `to_port`;
//! 4. any other outbound packet goes on through `to_left`. The leftmost station of a row has no
//!    left neighbour: it consumes such a packet (a port number no station of the row owns), drops
//!    it and raises `dropped` for one cycle on its last beat, so a bad port number never hangs the
//!    row.
//!
//! The two outputs that lead on to another station, `to_right` and `to_left`, come from a
//! register ([`RsSpill`]): one register stage per hop, so a row of any length closes timing at
//! the speed of one hop. A packet's first beat offered to an idle station leaves it one cycle
//! later (the goal was at most 2 cycles per hop beyond its beats), and each flow moves one beat
//! per cycle when not blocked. `to_port` leaves the row and is not registered: it is
//! `from_right` (a neighbour's spill register) gated by the route, so a beat for this port
//! leaves in the cycle it arrives, and `from_right.ready` follows `to_port.ready` for it. The
//! port's side registers it (the mesh's upsizer); a station without a spill on this flow saves
//! `2 (B + P + 1)` flip-flops (54 at 20 bits, 432 in the 8-port mesh), which the mesh needed to
//! fit an iCE40-HX8K beside the agent.
//!
//! # Backpressure and head-of-line blocking
//! Inbound and outbound flows share nothing, so a stalled output port (`to_port` not ready)
//! never blocks the inbound flow. The outbound flow is one ordered stream: an outbound packet
//! waiting for a busy `to_port` (or a busy left neighbour) blocks the outbound packets behind it
//! in the same row (head of line) until it moves; packets behind it for other ports wait, none
//! is lost or reordered. Management traffic is light (one response per request), so the row has
//! no per-port queues to avoid this.
//!
//! Ports: `clock`, `reset` (synchronous, active high: every held beat dropped, routes and grants
//! released), the six streams above and `dropped`. Parameters: `B` beat bits, `P` port bits;
//! constructor: `k` the station's port number, `leftmost` (drop instead of `to_left`).
use super::rs_merge::RsMerge;
use super::rs_spill::RsSpill;
use rust_hdl::prelude::*;

/// Beat bits of the router's relay stations: a flit moves as 4 beats of 20 bits (the source's
/// datapath; `B` stays a parameter for other widths).
pub const RS_BEAT_BITS: usize = 20;
/// Port-number bits of the router's relay stations: 5, the width of one hop of a management
/// packet's source route (up to 32 ports; the published router has 24).
pub const RS_PORT_BITS: usize = 5;

/// The sending end of an RS beat stream.
#[derive(LogicInterface, Default)]
#[join = "RsBeatSink"]
pub struct RsBeatSource<const B: usize, const P: usize> {
    /// A beat is offered.
    pub valid: Signal<Out, bool>,
    /// The beat's data; stable while `valid && !ready`.
    pub data: Signal<Out, Bits<B>>,
    /// The beat is the last of its packet.
    pub last: Signal<Out, bool>,
    /// Outbound: the packet's output port; inbound: its input port.
    pub port: Signal<Out, Bits<P>>,
    /// The receiver takes the beat on this clock edge.
    pub ready: Signal<In, bool>,
}

/// The receiving end of an RS beat stream.
#[derive(LogicInterface, Default)]
#[join = "RsBeatSource"]
pub struct RsBeatSink<const B: usize, const P: usize> {
    /// A beat is offered.
    pub valid: Signal<In, bool>,
    /// The beat's data.
    pub data: Signal<In, Bits<B>>,
    /// The beat is the last of its packet.
    pub last: Signal<In, bool>,
    /// Outbound: the packet's output port; inbound: its input port.
    pub port: Signal<In, Bits<P>>,
    /// This block takes the beat on this clock edge.
    pub ready: Signal<Out, bool>,
}

/// The relay station of one port.
#[derive(LogicBlock)]
pub struct RelayStation<const B: usize, const P: usize> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Flow 1: packets from this station's port toward the NMA (`port` ignored, replaced by `k`).
    pub from_port: RsBeatSink<B, P>,
    /// Flow 2: packets from the left neighbour toward the NMA.
    pub from_left: RsBeatSink<B, P>,
    /// Flows 1 and 2 out, toward the right neighbour or the NMA.
    pub to_right: RsBeatSource<B, P>,
    /// Flows 3 and 4 in: outbound packets from the right neighbour or the NMA.
    pub from_right: RsBeatSink<B, P>,
    /// Flow 3 out: outbound packets for port `k`.
    pub to_port: RsBeatSource<B, P>,
    /// Flow 4 out: outbound packets for other ports (never valid in the leftmost station).
    pub to_left: RsBeatSource<B, P>,
    /// Leftmost station: an outbound packet for a port not in the row was dropped (one cycle, on
    /// its last beat).
    pub dropped: Signal<Out, bool>,
    /// Round robin by whole packets between `from_port` (input 0) and `from_left` (input 1).
    merge: RsMerge<B, P, 2, 1>,
    left_spill: RsSpill<B, P>,
    /// `k`.
    port_number: Constant<Bits<P>>,
    /// Outbound packets not for `k` are dropped here.
    leftmost: Constant<bool>,
    /// The outbound flow is inside a packet (its first beat moved, its last not yet).
    routing: DFF<bool>,
    /// The route of that packet: to `to_port`.
    routed_here: DFF<bool>,
    /// The outbound beat on `from_right` goes to `to_port`.
    here: Signal<Local, bool>,
    /// The outbound beat on `from_right` moves on this edge.
    moving: Signal<Local, bool>,
    /// `from_port.port`, read only to mark it unused: the station writes `k` instead.
    unused_from_port_port: Signal<Local, Bits<P>>,
}

impl<const B: usize, const P: usize> RelayStation<B, P> {
    /// The station of port `k`; `leftmost` for the first station of a row. Panics if `k` does
    /// not fit in `P` bits.
    pub fn new(k: usize, leftmost: bool) -> Self {
        assert!(B >= 1, "RelayStation: B (beat bits) must be at least 1");
        assert!(
            P < 64 && (k as u64) < (1u64 << P),
            "RelayStation: port number k = {k} does not fit in P = {P} bits"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            from_port: Default::default(),
            from_left: Default::default(),
            to_right: Default::default(),
            from_right: Default::default(),
            to_port: Default::default(),
            to_left: Default::default(),
            dropped: Default::default(),
            merge: RsMerge::new(),
            left_spill: Default::default(),
            port_number: Constant::new((k as u64).into()),
            leftmost: Constant::new(leftmost),
            routing: Default::default(),
            routed_here: Default::default(),
            here: Default::default(),
            moving: Default::default(),
            unused_from_port_port: Default::default(),
        }
    }
}

impl<const B: usize, const P: usize> Logic for RelayStation<B, P> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, routing, routed_here);
        clock!(self, clock, merge, left_spill);
        self.merge.reset.next = self.reset.val();
        self.left_spill.reset.next = self.reset.val();
        // Inbound: the own port's packets are stamped with `k` on the way in.
        self.merge.sinks[0].valid.next = self.from_port.valid.val();
        self.merge.sinks[0].data.next = self.from_port.data.val();
        self.merge.sinks[0].last.next = self.from_port.last.val();
        self.merge.sinks[0].port.next = self.port_number.val();
        self.unused_from_port_port.next = self.from_port.port.val();
        self.from_port.ready.next = self.merge.sinks[0].ready.val();
        RsBeatSink::<B, P>::link(&mut self.from_left, &mut self.merge.sinks[1]);
        RsBeatSource::<B, P>::link(&mut self.to_right, &mut self.merge.source);
        // Outbound: the route is taken from a packet's first beat and kept to its last.
        self.here.next = self.from_right.port.val() == self.port_number.val();
        if self.routing.q.val() {
            self.here.next = self.routed_here.q.val();
        }
        // Flow 3 leaves without a register of its own: `from_right` comes from the right
        // neighbour's (or the demux's) spill register, and `to_port` goes into the port's
        // upsizer, itself a register, so the path is one comparison long.
        self.to_port.valid.next = self.from_right.valid.val() & self.here.val() & !self.reset.val();
        self.to_port.data.next = self.from_right.data.val();
        self.to_port.last.next = self.from_right.last.val();
        self.to_port.port.next = self.from_right.port.val();
        self.left_spill.sink.valid.next =
            self.from_right.valid.val() & !self.here.val() & !self.leftmost.val();
        self.left_spill.sink.data.next = self.from_right.data.val();
        self.left_spill.sink.last.next = self.from_right.last.val();
        self.left_spill.sink.port.next = self.from_right.port.val();
        if self.here.val() {
            self.from_right.ready.next = self.to_port.ready.val() & !self.reset.val();
        } else if self.leftmost.val() {
            // Nowhere further left: consume (and drop) the packet.
            self.from_right.ready.next = true;
        } else {
            self.from_right.ready.next = self.left_spill.sink.ready.val();
        }
        self.moving.next = self.from_right.valid.val() & self.from_right.ready.val();
        if self.moving.val() {
            self.routing.d.next = !self.from_right.last.val();
            self.routed_here.d.next = self.here.val();
        }
        self.dropped.next =
            self.moving.val() & self.from_right.last.val() & !self.here.val() & self.leftmost.val();
        RsBeatSource::<B, P>::link(&mut self.to_left, &mut self.left_spill.source);
        if self.reset.val() {
            self.routing.d.next = false;
        }
    }
}

#[test]
fn relay_station_is_synthesizable() {
    for leftmost in [false, true] {
        let mut uut = RelayStation::<20, 5>::new(3, leftmost);
        uut.connect_all();
        yosys_validate("relay_station", &generate_verilog(&uut)).unwrap();
    }
}

#[test]
#[should_panic(expected = "does not fit in P = 3 bits")]
fn a_port_number_too_wide_is_rejected() {
    let _ = RelayStation::<20, 3>::new(8, false);
}
