//! `nrc_mgmt`: the router's management plane (issue 12, item 4), ready for the data plane to
//! attach: `PORTS` ports of plain management flit streams, the relay-station mesh
//! ([`RsMesh`]), the management agent ([`Nma`]: the agent core with its EEPROM on I2C, the
//! configuration loader and the agent's register block, the design the NIC's wrapper shares)
//! and the router's own register file ([`RegFile`] of [`nrc_router_map`]) behind the agent's
//! `chip_request` port.
//!
//! ```text
//! inbound[p] --> RsMesh --> Nma --chip_request--> RegSplit --> RegFile(nrc_router_map)
//! outbound[p] <--     <--   |  (agent block 0x00..0x1f inside)   |   route table, ports' reports,
//!                           +--i2c-- EEPROM                      |   mesh counters
//!                                                                +--> CounterRam (>= 0x400)
//!                                           counters[p] --------------^ port counters, peaks
//! ```
//!
//! What the registers show and drive (addresses in `verilog-out/nrc.md`, the agent's block and
//! the router's together): the agent's block (see [`Nma`]), the mesh's drop counters, indirect
//! routing-table access (`route_table`: the table is the data plane's, reached through
//! `route_table`), per port the link endpoint's report (`links[p]`: status, peer identity,
//! LTP and retry counts) and the port's `link_settings` (read-write, driving
//! `links[p].settings`: the endpoint's lane removal, retraining and VC mode), and per port the data plane's counters (`counters[p]`: flits and
//! packets in and out, drops by reason, dead-link discards, per-VC occupancy peaks), kept in
//! a [`CounterRam`] (a read or clear waits for its sweep, at most
//! [`counter_sweep_cycles`](crate::regs::counter_sweep_cycles) cycles; every other register
//! answers in 2).
//!
//! **Faults** of the agent: bits 0..=3 the loader's outcome, bits 4..=7 `chip_faults` (the
//! data plane's: link down, say).
//!
//! **Reset** (synchronous) resets everything together; the loader then runs first and its
//! register writes (routing-table entries included) go before the agent's, so a request that
//! arrives during loading is answered between the loader's writes.
use crate::port_counters::{PortCountersSink, COUNTERS, OCCUPANCY_BITS};
use crate::regs::{
    nrc_counter_layout, nrc_map, nrc_router_map, PEAK_BITS, PORT_COUNTERS_BASE, PORT_COUNTER_BITS,
    ROUTE_INDEX_BITS,
};
use crate::rs_mesh::RsMesh;
use hdl::formats::mgmt::{DestType, REGISTER_ADDRESS_BITS};
use hdl::formats::FLIT_BITS;
use hdl::llp::regs::{LinkReportSink, LINK_REPORT_REGISTERS};
use hdl::mgmt::i2c_master::I2cPins;
use hdl::mgmt::nma::{Nma, NmaParams, NMA_CHIP_FAULTS};
use hdl::mgmt::nma_core::NMA_DATA_BITS;
use hdl::mgmt::regs::NMA_FAULTS;
use hdl::mgmt::relay_station::{RsBeatSink, RsBeatSource, RS_PORT_BITS};
use hdl::regmap::{Access, CounterRam, RegFile, RegMap, RegSplit};
use rust_hdl::prelude::*;

/// Fault inputs the chip drives (`chip_faults`).
pub const NRC_CHIP_FAULTS: usize = NMA_CHIP_FAULTS;

/// How the plane's EEPROM side is timed and where the loader finds its image (the agent's).
pub type NrcMgmtParams = NmaParams;

/// The data plane's side of indirect routing-table access: the entry `index` and a write of
/// `ports` there (`write` high for one cycle); the table answers `read`, its entry at `index`.
#[derive(LogicInterface, Default)]
#[join = "RouteTableSink"]
pub struct RouteTableSource<const N: usize> {
    /// The destination node whose entry is written or read.
    pub index: Signal<Out, Bits<ROUTE_INDEX_BITS>>,
    /// The entry to write: one bit per allowed output port.
    pub ports: Signal<Out, Bits<N>>,
    /// Write `ports` at `index` on this edge.
    pub write: Signal<Out, bool>,
    /// The table's entry at `index`.
    pub read: Signal<In, Bits<N>>,
}

/// The routing table's end of [`RouteTableSource`].
#[derive(LogicInterface, Default)]
#[join = "RouteTableSource"]
pub struct RouteTableSink<const N: usize> {
    /// The destination node whose entry is written or read.
    pub index: Signal<In, Bits<ROUTE_INDEX_BITS>>,
    /// The entry to write.
    pub ports: Signal<In, Bits<N>>,
    /// Write `ports` at `index` on this edge.
    pub write: Signal<In, bool>,
    /// The entry at `index`.
    pub read: Signal<Out, Bits<N>>,
}

/// Positions of the router register file's hardware ports (kind order, [`RegMap::index`])
/// that the top's `update()` names by literal, because rust-hdl indexes only by literals and
/// loop variables. [`NrcMgmt::new`] checks every one against the map.
mod slot {
    pub const ROUTE_INDEX: usize = 0;
    pub const ROUTE_PORTS: usize = 1;
    pub const MESH_ROW0: usize = 0;
    pub const ROUTE_READ: usize = 0;
    /// Port 0's first report register (read-only, `LINK_REPORT_REGISTERS` per port).
    pub const PORT0: usize = 1;
    /// Port 0's `link_settings` (read-write, one per port).
    pub const SETTINGS0: usize = 2;
}

/// The type of an [`NrcMgmt`] with `$ports` ports in `$rows` rows and `$vcs` VCs (the
/// occupancy peaks), widths filled in: `nrc_mgmt!(8, 2, 2)`.
#[macro_export]
macro_rules! nrc_mgmt {
    ($ports:expr, $rows:expr, $vcs:expr) => {
        $crate::nrc_mgmt::NrcMgmt<
            { hdl::mgmt::relay_station::RS_BEAT_BITS },
            { hdl::width::chunk_index_bits(hdl::formats::FLIT_BITS, hdl::mgmt::relay_station::RS_BEAT_BITS) },
            { $ports },
            { $rows },
            { hdl::arb::index_width($rows) },
            { $vcs * $crate::port_counters::OCCUPANCY_BITS },
            { hdl::bits::clog2($ports << $crate::regs::PORT_COUNTER_BITS) },
            { hdl::bits::count_bits($ports << $crate::regs::PORT_COUNTER_BITS) },
            { $ports * $crate::port_counters::COUNTERS },
            { $ports * $vcs * $crate::port_counters::OCCUPANCY_BITS },
        >
    };
}

/// The router's management plane; see the module documentation.
///
/// Parameters: `B` beat bits, `CW` chunk index bits, `PORTS`, `ROWS`, `RW` as [`RsMesh`];
/// `PV` = `VCS * 8` (the counters' occupancy bundle), `CRA` the counter RAM's address bits,
/// `CPW` its pre-counter bits, `CN` = `PORTS * COUNTERS`, `CLV` = `PORTS * PV`. Use
/// [`nrc_mgmt!`](crate::nrc_mgmt).
#[derive(LogicBlock)]
pub struct NrcMgmt<
    const B: usize,
    const CW: usize,
    const PORTS: usize,
    const ROWS: usize,
    const RW: usize,
    const PV: usize,
    const CRA: usize,
    const CPW: usize,
    const CN: usize,
    const CLV: usize,
> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset of the whole plane.
    pub reset: Signal<In, bool>,
    /// Per port: management packets arriving on the port (flits, `last` on the tail).
    pub inbound: [RsBeatSink<FLIT_BITS, RS_PORT_BITS>; PORTS],
    /// Per port: management packets leaving on the port.
    pub outbound: [RsBeatSource<FLIT_BITS, RS_PORT_BITS>; PORTS],
    /// Per port: the link endpoint's report, shown in the port's registers, and the port's
    /// `link_settings` register to the port.
    pub links: [LinkReportSink; PORTS],
    /// The routing table's indirect access.
    pub route_table: RouteTableSource<PORTS>,
    /// Per port: the data plane's events and occupancy, counted in the port's counters.
    pub counters: [PortCountersSink<PV>; PORTS],
    /// The data plane's faults (agent fault inputs 4..=7).
    pub chip_faults: Signal<In, Bits<NRC_CHIP_FAULTS>>,
    /// The configuration EEPROM's I2C bus.
    pub i2c: I2cPins,
    /// This chip's ID (the agent's `chip_id` register), for the link ports' training words.
    pub chip_id: Signal<Out, Bits<16>>,
    mesh: RsMesh<B, RS_PORT_BITS, CW, PORTS, ROWS, RW>,
    agent: Nma<REGISTER_ADDRESS_BITS>,
    registers: RegFile<REGISTER_ADDRESS_BITS, NMA_DATA_BITS>,
    /// The agent's chip requests: below the port counters to `registers`, the rest to `tallies`.
    split: RegSplit<REGISTER_ADDRESS_BITS, NMA_DATA_BITS>,
    /// The port counters and occupancy peaks.
    tallies: CounterRam<
        REGISTER_ADDRESS_BITS,
        NMA_DATA_BITS,
        CRA,
        PORT_COUNTER_BITS,
        CPW,
        PEAK_BITS,
        CN,
        CLV,
    >,
    /// The events and levels of every port, packed as `tallies` takes them.
    events: Signal<Local, Bits<CN>>,
    levels: Signal<Local, Bits<CLV>>,
    /// One port's events in slot order (`COUNTERS` bits), its drops and its levels (locals:
    /// `bit_cast` cannot take a loop-indexed port).
    port_events: Signal<Local, Bits<COUNTERS>>,
    port_drops: Signal<Local, Bits<{ crate::port::event::COUNT }>>,
    port_levels: Signal<Local, Bits<PV>>,
    /// Per port: the position of its events and its levels.
    event_offsets: Vec<Constant<Bits<16>>>,
    level_offsets: Vec<Constant<Bits<16>>>,
    /// Positions in `port_events` (the slot order of `COUNTER_NAMES`).
    drops_at: Constant<Bits<8>>,
    discarded_bit: Constant<Bits<COUNTERS>>,
    discarded_head_bit: Constant<Bits<COUNTERS>>,
    /// The write strobe of `route_index` (a level the table reads): acknowledged unused.
    index_strobe_unused: Signal<Local, bool>,
    /// The write strobes of the ports' `link_settings` (levels the ports read): acknowledged
    /// unused.
    settings_strobes_unused: Signal<Local, bool>,
    /// `row_bits[r]`: bit `r` alone, to pick row `r`'s drop pulse by a mask (with one row
    /// `dropped` is a Verilog scalar, which cannot be bit-selected).
    row_bits: Vec<Constant<Bits<ROWS>>>,
}

/// The default build's plane: 8 ports in 2 rows of 4, 20-bit beats, 2 VCs.
pub type NrcMgmt8 = crate::nrc_mgmt!(8, 2, 2);
/// The published router's plane: 24 ports in 4 rows of 6, 6 VCs.
pub type NrcMgmt24 = crate::nrc_mgmt!(24, 4, 6);

impl<
        const B: usize,
        const CW: usize,
        const PORTS: usize,
        const ROWS: usize,
        const RW: usize,
        const PV: usize,
        const CRA: usize,
        const CPW: usize,
        const CN: usize,
        const CLV: usize,
    > NrcMgmt<B, CW, PORTS, ROWS, RW, PV, CRA, CPW, CN, CLV>
{
    /// VCs of the occupancy peaks.
    pub const VCS: usize = PV / OCCUPANCY_BITS;

    /// The router's whole register map for this size (the agent's block and the router's),
    /// every port's `link_settings` resetting to `link_settings`.
    pub fn map(link_settings: u64) -> RegMap {
        nrc_map(PORTS, ROWS, Self::VCS, NMA_FAULTS, link_settings)
            .expect("the router's register space assembles")
    }

    /// The router's own registers (the register file of this top).
    pub fn router_map(link_settings: u64) -> RegMap {
        nrc_router_map(PORTS, ROWS, link_settings).expect("the router's register space assembles")
    }

    /// The plane with `params`, every port's `link_settings` resetting to `link_settings`
    /// (the link ports'
    /// [`LinkPortParams::settings_reset`](hdl::link_port::LinkPortParams::settings_reset)).
    /// Panics if the register map's layout no longer matches the positions `update()` uses (a
    /// change to the map must be carried into this file).
    pub fn new(params: NrcMgmtParams, link_settings: u64) -> Self {
        let map = Self::router_map(link_settings);
        check_slots(&map, PORTS, ROWS);
        assert_eq!(PV % OCCUPANCY_BITS, 0, "NrcMgmt: PV = VCS * 8");
        let layout = nrc_counter_layout(PORTS, Self::VCS);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            inbound: std::array::from_fn(|_| Default::default()),
            outbound: std::array::from_fn(|_| Default::default()),
            links: std::array::from_fn(|_| Default::default()),
            counters: std::array::from_fn(|_| Default::default()),
            route_table: Default::default(),
            chip_faults: Default::default(),
            i2c: Default::default(),
            chip_id: Default::default(),
            mesh: RsMesh::new(),
            agent: Nma::new(DestType::Nrc, params),
            registers: RegFile::new(&map),
            split: RegSplit::new(PORT_COUNTERS_BASE),
            tallies: CounterRam::new(layout),
            events: Default::default(),
            levels: Default::default(),
            port_events: Default::default(),
            port_drops: Default::default(),
            port_levels: Default::default(),
            event_offsets: (0..PORTS)
                .map(|p| Constant::new(((p * COUNTERS) as u64).into()))
                .collect(),
            level_offsets: (0..PORTS)
                .map(|p| Constant::new(((p * PV) as u64).into()))
                .collect(),
            drops_at: Constant::new(4u64.into()),
            discarded_bit: Constant::new((1u64 << (COUNTERS - 2)).into()),
            discarded_head_bit: Constant::new((1u64 << (COUNTERS - 1)).into()),
            index_strobe_unused: Default::default(),
            settings_strobes_unused: Default::default(),
            row_bits: (0..ROWS)
                .map(|r| Constant::new(Bits::from(1u64 << r)))
                .collect(),
        }
    }
}

/// Panics unless every literal position of [`slot`] is the map's, and the router's registers
/// all lie above the agent's window.
fn check_slots(map: &RegMap, ports: usize, rows: usize) {
    use Access::*;
    let want = [
        (ReadWrite, "route_index", slot::ROUTE_INDEX),
        (ReadWrite, "route_ports", slot::ROUTE_PORTS),
        (ReadOnly, "route_read", slot::ROUTE_READ),
    ];
    for (access, name, position) in want {
        assert_eq!(map.index(access, name), position, "nrc_mgmt: {name} moved");
    }
    for r in 0..rows {
        let name = format!("rs_dropped_row{r}");
        assert_eq!(map.index(Counter, &name), slot::MESH_ROW0 + r);
    }
    let names = hdl::llp::regs::link_port_map(0);
    let reports: Vec<_> = names.of(ReadOnly).collect();
    assert_eq!(reports.len(), LINK_REPORT_REGISTERS);
    for p in 0..ports {
        for (k, reg) in reports.iter().enumerate() {
            let name = format!("port{p}_{}", reg.name);
            let position = slot::PORT0 + LINK_REPORT_REGISTERS * p + k;
            assert_eq!(
                map.index(ReadOnly, &name),
                position,
                "nrc_mgmt: {name} moved"
            );
        }
        let name = format!("port{p}_link_settings");
        assert_eq!(
            map.index(ReadWrite, &name),
            slot::SETTINGS0 + p,
            "nrc_mgmt: {name} moved"
        );
    }
    assert_eq!(map.count(ReadOnly), slot::PORT0 + 8 * ports);
    assert_eq!(map.count(Counter), slot::MESH_ROW0 + rows);
    assert_eq!(map.count(ReadWrite), slot::SETTINGS0 + ports);
    assert_eq!(map.count(WriteOneToClear), 0);
    let window = hdl::mgmt::nma::nma_window(DestType::Nrc);
    assert!(
        map.registers.iter().all(|r| r.offset >= window),
        "nrc_mgmt: a router register lies in the agent's window"
    );
}

impl<
        const B: usize,
        const CW: usize,
        const PORTS: usize,
        const ROWS: usize,
        const RW: usize,
        const PV: usize,
        const CRA: usize,
        const CPW: usize,
        const CN: usize,
        const CLV: usize,
    > Logic for NrcMgmt<B, CW, PORTS, ROWS, RW, PV, CRA, CPW, CN, CLV>
{
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, mesh, agent, registers, split, tallies);
        self.mesh.reset.next = self.reset.val();
        self.agent.reset.next = self.reset.val();
        self.chip_id.next = self.agent.chip_id.val();
        self.registers.reset.next = self.reset.val();
        self.split.reset.next = self.reset.val();
        self.tallies.reset.next = self.reset.val();
        for p in 0..PORTS {
            RsBeatSink::<FLIT_BITS, RS_PORT_BITS>::link(
                &mut self.inbound[p],
                &mut self.mesh.inbound[p],
            );
            RsBeatSource::<FLIT_BITS, RS_PORT_BITS>::link(
                &mut self.outbound[p],
                &mut self.mesh.outbound[p],
            );
        }
        RsBeatSource::<FLIT_BITS, RS_PORT_BITS>::join(
            &mut self.mesh.to_nma,
            &mut self.agent.from_port,
        );
        RsBeatSource::<FLIT_BITS, RS_PORT_BITS>::join(
            &mut self.agent.to_port,
            &mut self.mesh.from_nma,
        );
        I2cPins::link(&mut self.i2c, &mut self.agent.i2c);
        self.agent.chip_faults.next = self.chip_faults.val();
        hdl::regmap::RegRequestSource::<REGISTER_ADDRESS_BITS, NMA_DATA_BITS>::join(
            &mut self.agent.chip_request,
            &mut self.split.request,
        );
        hdl::regmap::RegResponseSource::<NMA_DATA_BITS>::join(
            &mut self.split.response,
            &mut self.agent.chip_response,
        );
        hdl::regmap::RegRequestSource::<REGISTER_ADDRESS_BITS, NMA_DATA_BITS>::join(
            &mut self.split.local_request,
            &mut self.registers.request,
        );
        hdl::regmap::RegResponseSource::<NMA_DATA_BITS>::join(
            &mut self.registers.response,
            &mut self.split.local_response,
        );
        hdl::regmap::RegRequestSource::<REGISTER_ADDRESS_BITS, NMA_DATA_BITS>::join(
            &mut self.split.chip_request,
            &mut self.tallies.request,
        );
        hdl::regmap::RegResponseSource::<NMA_DATA_BITS>::join(
            &mut self.tallies.response,
            &mut self.split.chip_response,
        );
        // The port counters: each port's events in slot order (`COUNTER_NAMES`), packed.
        self.events.next = 0.into();
        self.levels.next = 0.into();
        for p in 0..PORTS {
            self.port_drops.next = self.counters[p].drops.val();
            self.port_levels.next = self.counters[p].occupancy.val();
            self.port_events.next =
                bit_cast::<COUNTERS, { crate::port::event::COUNT }>(self.port_drops.val())
                    << self.drops_at.val();
            self.port_events.next = self
                .port_events
                .val()
                .replace_bit(0, self.counters[p].flit_in.val());
            self.port_events.next = self
                .port_events
                .val()
                .replace_bit(1, self.counters[p].packet_in.val());
            self.port_events.next = self
                .port_events
                .val()
                .replace_bit(2, self.counters[p].flit_out.val());
            self.port_events.next = self
                .port_events
                .val()
                .replace_bit(3, self.counters[p].packet_out.val());
            if self.counters[p].discarded.val() {
                self.port_events.next = self.port_events.val() | self.discarded_bit.val();
            }
            if self.counters[p].discarded_head.val() {
                self.port_events.next = self.port_events.val() | self.discarded_head_bit.val();
            }
            self.events.next = self.events.val()
                | (bit_cast::<CN, COUNTERS>(self.port_events.val()) << self.event_offsets[p].val());
            self.levels.next = self.levels.val()
                | (bit_cast::<CLV, PV>(self.port_levels.val()) << self.level_offsets[p].val());
        }
        self.tallies.events.next = self.events.val();
        self.tallies.levels.next = self.levels.val();
        // Indirect routing-table access (slot positions checked by `new`).
        self.route_table.index.next = self.registers.settings[0]
            .val()
            .get_bits::<ROUTE_INDEX_BITS>(0);
        self.route_table.ports.next = self.registers.settings[1].val().get_bits::<PORTS>(0);
        self.route_table.write.next = self.registers.written[1].val();
        self.index_strobe_unused.next = self.registers.written[0].val();
        self.registers.status[0].next =
            bit_cast::<NMA_DATA_BITS, PORTS>(self.route_table.read.val());
        for r in 0..ROWS {
            self.registers.events[r].next =
                (self.mesh.dropped.val() & self.row_bits[r].val()).any();
        }
        self.settings_strobes_unused.next = false;
        for p in 0..PORTS {
            self.registers.status[1 + 8 * p].next = self.links[p].status.val();
            self.registers.status[2 + 8 * p].next = self.links[p].peer.val();
            self.registers.status[3 + 8 * p].next = self.links[p].ltps_sent.val();
            self.registers.status[4 + 8 * p].next = self.links[p].ltps_good.val();
            self.registers.status[5 + 8 * p].next = self.links[p].ltps_bad.val();
            self.registers.status[6 + 8 * p].next = self.links[p].retries.val();
            self.registers.status[7 + 8 * p].next = self.links[p].replays.val();
            self.registers.status[8 + 8 * p].next = self.links[p].drops.val();
            // slot::SETTINGS0 + p: the port's `link_settings`, to the port.
            self.links[p].settings.next = self.registers.settings[2 + p].val();
            self.settings_strobes_unused.next =
                self.settings_strobes_unused.val() | self.registers.written[2 + p].val();
        }
    }
}
