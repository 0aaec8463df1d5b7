//! The relay-station mesh of the router (issue 12, item 4): one relay station per port, in rows,
//! carrying management packets between the ports and the management agent (NMA).
//!
//! `PORTS` ports in `ROWS` rows of `n = PORTS / ROWS` (8 ports: 2 rows of 4; the published
//! router: 24 in 4 rows of 6). Row `r` holds ports `r * n` (leftmost) to `r * n + n - 1`
//! (rightmost, next to the NMA).
//!
//! - Per port, an inbound packet stream of flits (`inbound[p]`, an [`RsBeatSink`] of
//!   [`FLIT_BITS`]-bit flits with `last`; its `port` is ignored) is cut into `B`-bit beats
//!   ([`RsDownsizer`]) and enters station `p`, which stamps its port number on the packet and
//!   relays it right, hop by hop, to the row's end. Each station merges its own port's packets
//!   with those from its left round robin by whole packets, and so does an [`RsMerge`] of the
//!   rows' ends; an [`RsUpsizer`] rebuilds the flits for the NMA on `to_nma`, whose `port` is the
//!   packet's input port.
//! - The NMA's outbound packets (`from_nma`, `port` = output port) are cut into beats and enter
//!   the row of their port ([`RsDemux`]) at its rightmost station; they move left until the
//!   station of their port sends them out (`outbound[p]`, flits again, `port` = `p`). A port
//!   number beyond the last port enters the last row and falls off its left end: its leftmost
//!   station drops it and raises bit `r` of `dropped` for one cycle (the counter lives in the
//!   register file's counter bank).
//!
//! Backpressure everywhere, nothing lost: a busy port or a busy NMA stalls the flow that needs
//! it. Inbound and outbound flows never block each other; an outbound packet waiting for its
//! port blocks the outbound packets behind it in its row and, until it has entered its row, at
//! the NMA (head of line, see [`hdl::mgmt::relay_station`]).
//!
//! Latency (20-bit beats, everything ready), `s` the relay stations a packet crosses (1 to `n`,
//! the port's own included), 3 the cycles of a flit's remaining beats, which the upsizer at the
//! far end waits for, and no cycle for a downsizer (they hold no word: they send the sender's
//! flit a chunk at a time, in the cycle it is offered):
//! - inbound, the first flit is offered to the NMA `5 + s` cycles after the port offered it:
//!   one per station (its merge register), one for the NMA-side merge, one for the upsizer, 3;
//! - outbound, it is offered on port `p` `4 + s` cycles after the NMA offered it: one for the
//!   demux, one per station it passes on its way left (`s - 1`; the port's own station sends it
//!   out without a register), one for the port's upsizer, 3.
//!
//! Both are checked by the bench (`testbench/tests/hdl/rs_mesh.rs`).
//!
//! Ports: `clock`, `reset` (synchronous: every packet inside is dropped), `inbound`, `outbound`,
//! `to_nma`, `from_nma`, `dropped`. Parameters: `B` beat bits, `P` port bits (5, the width of a
//! management route's hop), `CW` = `chunk_index_bits(FLIT_BITS, B)`, `PORTS`, `ROWS`, `RW` =
//! `index_width(ROWS)`; aliases [`RsMesh8`], [`RsMesh24`].
use hdl::formats::FLIT_BITS;
use hdl::mgmt::relay_station::{
    RelayStation, RsBeatSink, RsBeatSource, RS_BEAT_BITS, RS_PORT_BITS,
};
use hdl::mgmt::rs_demux::RsDemux;
use hdl::mgmt::rs_downsizer::RsDownsizer;
use hdl::mgmt::rs_merge::RsMerge;
use hdl::mgmt::rs_upsizer::RsUpsizer;
use hdl::mgmt::rs_wire::{RsRowEnd, RsWire};
use hdl::width::chunk_index_bits;
use rust_hdl::prelude::*;

/// The relay-station mesh.
#[derive(LogicBlock)]
pub struct RsMesh<
    const B: usize,
    const P: usize,
    const CW: usize,
    const PORTS: usize,
    const ROWS: usize,
    const RW: usize,
> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: drops every packet inside.
    pub reset: Signal<In, bool>,
    /// Per port: management packets arriving on the port (flits), toward the NMA.
    pub inbound: [RsBeatSink<FLIT_BITS, P>; PORTS],
    /// Per port: management packets leaving on the port (flits), `port` = the port.
    pub outbound: [RsBeatSource<FLIT_BITS, P>; PORTS],
    /// Packets to the NMA (flits), `port` = the input port.
    pub to_nma: RsBeatSource<FLIT_BITS, P>,
    /// Packets from the NMA (flits), `port` = the output port.
    pub from_nma: RsBeatSink<FLIT_BITS, P>,
    /// Bit `r`: row `r` dropped a packet for a port that does not exist (one cycle per packet).
    pub dropped: Signal<Out, Bits<ROWS>>,
    stations: Vec<RelayStation<B, P>>,
    /// `rightward[r * (n - 1) + j]`: from station `r * n + j` to its right neighbour.
    rightward: Vec<RsWire<B, P>>,
    /// `leftward[r * (n - 1) + j]`: from station `r * n + j + 1` to its left neighbour.
    leftward: Vec<RsWire<B, P>>,
    /// `row_ends[r]`: left of row `r`'s leftmost station.
    row_ends: Vec<RsRowEnd<B, P>>,
    port_down: Vec<RsDownsizer<FLIT_BITS, B, P, CW>>,
    port_up: Vec<RsUpsizer<FLIT_BITS, B, P, CW>>,
    merge: RsMerge<B, P, ROWS, RW>,
    nma_up: RsUpsizer<FLIT_BITS, B, P, CW>,
    nma_down: RsDownsizer<FLIT_BITS, B, P, CW>,
    demux: RsDemux<B, P, ROWS>,
    /// `drop_acc[r]`: the drop pulses of rows below `r`.
    drop_acc: Vec<Signal<Local, Bits<ROWS>>>,
    /// `row_drop[r * (n + 1) + j]`: a drop pulse of one of row `r`'s first `j` stations (only
    /// the leftmost ever drops; OR-ing all of them keeps every station's output used).
    row_drop: Vec<Signal<Local, bool>>,
}

/// The 8-port mesh: 2 rows of 4, 20-bit beats.
pub type RsMesh8 =
    RsMesh<RS_BEAT_BITS, RS_PORT_BITS, { chunk_index_bits(FLIT_BITS, RS_BEAT_BITS) }, 8, 2, 1>;
/// The published router's mesh: 24 ports in 4 rows of 6, 20-bit beats.
pub type RsMesh24 =
    RsMesh<RS_BEAT_BITS, RS_PORT_BITS, { chunk_index_bits(FLIT_BITS, RS_BEAT_BITS) }, 24, 4, 2>;

impl<
        const B: usize,
        const P: usize,
        const CW: usize,
        const PORTS: usize,
        const ROWS: usize,
        const RW: usize,
    > RsMesh<B, P, CW, PORTS, ROWS, RW>
{
    /// The mesh; panics, naming the parameter, if `ROWS` does not divide `PORTS` or the port
    /// numbers do not fit in `P` bits.
    pub fn new() -> Self {
        assert!(ROWS >= 1, "RsMesh: ROWS must be at least 1");
        assert!(
            PORTS >= ROWS && PORTS.is_multiple_of(ROWS),
            "RsMesh: PORTS = {PORTS} must split evenly into ROWS = {ROWS} rows"
        );
        let n = PORTS / ROWS;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            inbound: std::array::from_fn(|_| Default::default()),
            outbound: std::array::from_fn(|_| Default::default()),
            to_nma: Default::default(),
            from_nma: Default::default(),
            dropped: Default::default(),
            stations: (0..PORTS)
                .map(|p| RelayStation::new(p, p % n == 0))
                .collect(),
            rightward: (0..PORTS - ROWS).map(|_| Default::default()).collect(),
            leftward: (0..PORTS - ROWS).map(|_| Default::default()).collect(),
            row_ends: (0..ROWS).map(|_| Default::default()).collect(),
            port_down: (0..PORTS).map(|_| RsDownsizer::new()).collect(),
            port_up: (0..PORTS).map(|_| RsUpsizer::new()).collect(),
            merge: RsMerge::new(),
            nma_up: RsUpsizer::new(),
            nma_down: RsDownsizer::new(),
            demux: RsDemux::new(n),
            drop_acc: (0..=ROWS).map(|_| Default::default()).collect(),
            row_drop: (0..ROWS * (n + 1)).map(|_| Default::default()).collect(),
        }
    }
}

impl<
        const B: usize,
        const P: usize,
        const CW: usize,
        const PORTS: usize,
        const ROWS: usize,
        const RW: usize,
    > Default for RsMesh<B, P, CW, PORTS, ROWS, RW>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<
        const B: usize,
        const P: usize,
        const CW: usize,
        const PORTS: usize,
        const ROWS: usize,
        const RW: usize,
    > Logic for RsMesh<B, P, CW, PORTS, ROWS, RW>
{
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, merge, nma_up, nma_down, demux);
        self.merge.reset.next = self.reset.val();
        self.nma_up.reset.next = self.reset.val();
        self.nma_down.reset.next = self.reset.val();
        self.demux.reset.next = self.reset.val();
        // Each port: flits to beats into its station, beats back to flits out of it.
        for p in 0..PORTS {
            self.stations[p].clock.next = self.clock.val();
            self.stations[p].reset.next = self.reset.val();
            self.port_down[p].clock.next = self.clock.val();
            self.port_down[p].reset.next = self.reset.val();
            self.port_up[p].clock.next = self.clock.val();
            self.port_up[p].reset.next = self.reset.val();
            RsBeatSink::<FLIT_BITS, P>::link(&mut self.inbound[p], &mut self.port_down[p].sink);
            RsBeatSource::<B, P>::join(
                &mut self.port_down[p].source,
                &mut self.stations[p].from_port,
            );
            RsBeatSource::<B, P>::join(&mut self.stations[p].to_port, &mut self.port_up[p].sink);
            RsBeatSource::<FLIT_BITS, P>::link(&mut self.outbound[p], &mut self.port_up[p].source);
        }
        // The rows (`n` ports each, `m = n - 1` wires each way; index expressions may only
        // use loop variables, hence the one-iteration loops that name `n` and `m`; loop bounds
        // may not use them).
        self.drop_acc[0].next = 0.into();
        for n in (PORTS / ROWS)..(PORTS / ROWS + 1) {
            for m in (PORTS / ROWS - 1)..(PORTS / ROWS) {
                for r in 0..ROWS {
                    for j in 0..(PORTS / ROWS - 1) {
                        RsBeatSource::<B, P>::join(
                            &mut self.stations[r * n + j].to_right,
                            &mut self.rightward[r * m + j].sink,
                        );
                        RsBeatSource::<B, P>::join(
                            &mut self.rightward[r * m + j].source,
                            &mut self.stations[r * n + j + 1].from_left,
                        );
                        RsBeatSource::<B, P>::join(
                            &mut self.stations[r * n + j + 1].to_left,
                            &mut self.leftward[r * m + j].sink,
                        );
                        RsBeatSource::<B, P>::join(
                            &mut self.leftward[r * m + j].source,
                            &mut self.stations[r * n + j].from_right,
                        );
                    }
                }
            }
            for r in 0..ROWS {
                // The left end: nothing comes in from the left, nothing leaves to it.
                RsBeatSource::<B, P>::join(
                    &mut self.row_ends[r].source,
                    &mut self.stations[r * n].from_left,
                );
                RsBeatSource::<B, P>::join(
                    &mut self.stations[r * n].to_left,
                    &mut self.row_ends[r].sink,
                );
                self.row_drop[r * (n + 1)].next = false;
                for j in 0..(PORTS / ROWS) {
                    self.row_drop[r * (n + 1) + j + 1].next = self.row_drop[r * (n + 1) + j].val()
                        | self.stations[r * n + j].dropped.val();
                }
                self.drop_acc[r + 1].next = self.drop_acc[r]
                    .val()
                    .replace_bit(r, self.row_drop[r * (n + 1) + n].val());
                // The right end: to and from the NMA.
                RsBeatSource::<B, P>::join(
                    &mut self.stations[r * n + n - 1].to_right,
                    &mut self.merge.sinks[r],
                );
                RsBeatSource::<B, P>::join(
                    &mut self.demux.sources[r],
                    &mut self.stations[r * n + n - 1].from_right,
                );
            }
        }
        for r in ROWS..(ROWS + 1) {
            self.dropped.next = self.drop_acc[r].val();
        }
        RsBeatSource::<B, P>::join(&mut self.merge.source, &mut self.nma_up.sink);
        RsBeatSource::<FLIT_BITS, P>::link(&mut self.to_nma, &mut self.nma_up.source);
        RsBeatSink::<FLIT_BITS, P>::link(&mut self.from_nma, &mut self.nma_down.sink);
        RsBeatSource::<B, P>::join(&mut self.nma_down.source, &mut self.demux.sink);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rs_mesh_is_synthesizable() {
        let mut uut = RsMesh8::new();
        uut.connect_all();
        yosys_validate("nrc_rs_mesh8", &generate_verilog(&uut)).unwrap();
        // The 24-port mesh is the same station modules in more rows; it is elaborated whole by
        // Verilator in the `nrc_mgmt` 24-port bench. Generating its Verilog here again cost
        // about two minutes of CI for no check the 8-port mesh and that bench do not make.
    }

    #[test]
    #[should_panic(expected = "must split evenly")]
    fn uneven_rows_are_rejected() {
        let _ = RsMesh::<20, 5, { chunk_index_bits(FLIT_BITS, 20) }, 8, 3, 2>::new();
    }
}
