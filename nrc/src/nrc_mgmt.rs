//! `nrc_mgmt`: the router's management plane (issue 12, item 4), ready for the data plane to
//! attach: `PORTS` ports of plain management flit streams, the relay-station mesh
//! ([`RsMesh`]), the management agent ([`NmaCore`]) with its EEPROM on I2C, the EEPROM
//! configuration loader ([`EepromLoader`]), and the router's register file ([`RegFile`] of
//! [`nrc_map`]) behind a [`RegArbiter`] (the loader first, then the agent).
//!
//! ```text
//! inbound[p] --> RsMesh --> NmaCore --registers--> RegArbiter --> RegFile(nrc_map)
//! outbound[p] <--     <--          <--i2c-- EEPROM   ^ loader       | settings, status,
//!                                     EepromLoader --+               | counters, route table
//! ```
//!
//! What the register file shows and drives (addresses in `verilog-out/nrc.md`): the agent's
//! settings (chip ID, report enable, fault mask, report route and DestID, EEPROM device), the
//! chip type (NRC), the fault levels and sticky fault events, the loader's status, the agent's and
//! the mesh's counters, indirect routing-table access (`route_table`: the table is the data
//! plane's, reached through `route_table`), and per port the link endpoint's report
//! (`links[p]`: status, peer identity, LTP and retry counts).
//!
//! **Faults** of the agent: bits 0..=3 the loader's outcome (blank, corrupt, absent, refused, as
//! levels held until reset, [`NmaFault`]), bits 4..=7 `chip_faults` (the data plane's: link down,
//! say).
//!
//! **Reset** (synchronous) resets everything together; the loader then runs first and its
//! register writes go before the agent's (the arbiter's priority), so a request that arrives
//! during loading is answered between the loader's writes.
use crate::regs::{nrc_map, ROUTE_INDEX_BITS};
use crate::rs_mesh::RsMesh;
use hdl::formats::mgmt::REGISTER_ADDRESS_BITS;
use hdl::formats::FLIT_BITS;
use hdl::llp::regs::{LinkReportSink, LINK_PORT_REGISTERS};
use hdl::mgmt::eeprom_loader::{EepromLoader, LoaderStatus, LOADER_STATUS_BITS};
use hdl::mgmt::i2c_master::I2cPins;
use hdl::mgmt::nma_core::{NmaCore, NMA_DATA_BITS};
use hdl::mgmt::regs::{NmaFault, NMA_CHIP_FAULT_BASE, NMA_FAULTS};
use hdl::mgmt::relay_station::{RsBeatSink, RsBeatSource, RS_BEAT_BITS, RS_PORT_BITS};
use hdl::regmap::{Access, RegArbiter, RegFile, RegMap};
use hdl::width::chunk_index_bits;
use rust_hdl::prelude::*;

/// Fault inputs the chip drives (`chip_faults`).
pub const NRC_CHIP_FAULTS: usize = NMA_FAULTS - NMA_CHIP_FAULT_BASE;

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

/// Positions of the register file's hardware ports (kind order, [`RegMap::index`]) that the
/// top's `update()` names by literal, because rust-hdl indexes only by literals and loop
/// variables. [`NrcMgmt::new`] checks every one against the map.
mod slot {
    pub const CHIP_ID: usize = 0;
    pub const REPORT_ENABLE: usize = 1;
    pub const FAULT_MASK: usize = 2;
    pub const REPORT_ROUTE_LOW: usize = 3;
    pub const REPORT_ROUTE_HIGH: usize = 4;
    pub const REPORT_DEST: usize = 5;
    pub const EEPROM_DEVICE: usize = 6;
    pub const ROUTE_INDEX: usize = 7;
    pub const ROUTE_PORTS: usize = 8;
    pub const FAULT_EVENTS: usize = 0;
    pub const DROPPED_WRONG_ID: usize = 0;
    pub const DROPPED_MALFORMED: usize = 1;
    pub const DROPPED_NO_ROUTE: usize = 2;
    pub const REPORTS_SENT: usize = 3;
    pub const ERROR_RESPONSES: usize = 4;
    pub const MESH_ROW0: usize = 5;
    pub const CHIP_TYPE: usize = 0;
    pub const FAULTS: usize = 1;
    pub const LOADER_STATUS: usize = 2;
    pub const ROUTE_READ: usize = 3;
    pub const PORT0: usize = 4;
}

/// The router's management plane; see the module documentation.
#[derive(LogicBlock)]
pub struct NrcMgmt<
    const B: usize,
    const CW: usize,
    const PORTS: usize,
    const ROWS: usize,
    const RW: usize,
> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset of the whole plane.
    pub reset: Signal<In, bool>,
    /// Per port: management packets arriving on the port (flits, `last` on the tail).
    pub inbound: [RsBeatSink<FLIT_BITS, RS_PORT_BITS>; PORTS],
    /// Per port: management packets leaving on the port.
    pub outbound: [RsBeatSource<FLIT_BITS, RS_PORT_BITS>; PORTS],
    /// Per port: the link endpoint's report, shown in the port's registers.
    pub links: [LinkReportSink; PORTS],
    /// The routing table's indirect access.
    pub route_table: RouteTableSource<PORTS>,
    /// The data plane's faults (agent fault inputs 4..=7).
    pub chip_faults: Signal<In, Bits<NRC_CHIP_FAULTS>>,
    /// The configuration EEPROM's I2C bus.
    pub i2c: I2cPins,
    mesh: RsMesh<B, RS_PORT_BITS, CW, PORTS, ROWS, RW>,
    agent: NmaCore<REGISTER_ADDRESS_BITS, NMA_FAULTS>,
    loader: EepromLoader<REGISTER_ADDRESS_BITS>,
    arbiter: RegArbiter<REGISTER_ADDRESS_BITS, NMA_DATA_BITS>,
    registers: RegFile<REGISTER_ADDRESS_BITS, NMA_DATA_BITS>,
    /// Fault levels last cycle (for the sticky fault events).
    faults_before: DFF<Bits<NMA_FAULTS>>,
    faults_now: Signal<Local, Bits<NMA_FAULTS>>,
    /// Write strobes of the settings the agent reads as levels, and the sticky events' value
    /// (software reads it; no hardware acts on it): acknowledged unused.
    strobes_unused: Signal<Local, bool>,
    /// The loader's outcome pulses: its held status bits carry the same outcome to the
    /// registers and the agent's faults, so the pulses are acknowledged unused.
    loader_pulses_unused: Signal<Local, bool>,
    /// The agent's occupancy (for benches and debug): not in the register map yet.
    agent_held_unused: Signal<Local, bool>,
    chip_type: Constant<Bits<NMA_DATA_BITS>>,
}

/// The default build's plane: 8 ports in 2 rows of 4, 20-bit beats.
pub type NrcMgmt8 = NrcMgmt<RS_BEAT_BITS, { chunk_index_bits(FLIT_BITS, RS_BEAT_BITS) }, 8, 2, 1>;
/// The published router's plane: 24 ports in 4 rows of 6.
pub type NrcMgmt24 = NrcMgmt<RS_BEAT_BITS, { chunk_index_bits(FLIT_BITS, RS_BEAT_BITS) }, 24, 4, 2>;

/// How the top's EEPROM side is timed and where the loader finds its image.
#[derive(Clone, Copy, Debug)]
pub struct NrcMgmtParams {
    /// VC of management packets (`network.mgmt_vc`).
    pub mgmt_vc: u8,
    /// Clock cycles per quarter SCL period.
    pub quarter: u32,
    /// Quarters of clock stretching tolerated.
    pub stretch_limit: u32,
    /// Refused ACK polls before an EEPROM access fails.
    pub poll_limit: u32,
    /// EEPROM byte address of the configuration image.
    pub image_base: usize,
    /// Most entries an image may hold.
    pub max_entries: usize,
}

impl<const B: usize, const CW: usize, const PORTS: usize, const ROWS: usize, const RW: usize>
    NrcMgmt<B, CW, PORTS, ROWS, RW>
{
    /// The router's register map for this size.
    pub fn map() -> RegMap {
        nrc_map(PORTS, ROWS, NMA_FAULTS).expect("the router's register space assembles")
    }

    /// The plane with `params`. Panics if the register map's layout no longer matches the
    /// positions `update()` uses (a change to the map must be carried into this file).
    pub fn new(params: NrcMgmtParams) -> Self {
        let map = Self::map();
        check_slots(&map, PORTS, ROWS);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            inbound: std::array::from_fn(|_| Default::default()),
            outbound: std::array::from_fn(|_| Default::default()),
            links: std::array::from_fn(|_| Default::default()),
            route_table: Default::default(),
            chip_faults: Default::default(),
            i2c: Default::default(),
            mesh: RsMesh::new(),
            agent: NmaCore::new(
                params.mgmt_vc,
                params.quarter,
                params.stretch_limit,
                params.poll_limit,
            ),
            loader: EepromLoader::new(params.image_base, params.max_entries),
            arbiter: Default::default(),
            registers: RegFile::new(&map),
            faults_before: Default::default(),
            faults_now: Default::default(),
            strobes_unused: Default::default(),
            loader_pulses_unused: Default::default(),
            agent_held_unused: Default::default(),
            chip_type: Constant::new((hdl::formats::mgmt::DestType::Nrc.code() as u64).into()),
        }
    }
}

/// Panics unless every literal position of [`slot`] is the map's.
fn check_slots(map: &RegMap, ports: usize, rows: usize) {
    use Access::*;
    let want = [
        (ReadWrite, "chip_id", slot::CHIP_ID),
        (ReadWrite, "report_enable", slot::REPORT_ENABLE),
        (ReadWrite, "fault_mask", slot::FAULT_MASK),
        (ReadWrite, "report_route_low", slot::REPORT_ROUTE_LOW),
        (ReadWrite, "report_route_high", slot::REPORT_ROUTE_HIGH),
        (ReadWrite, "report_dest", slot::REPORT_DEST),
        (ReadWrite, "eeprom_device", slot::EEPROM_DEVICE),
        (ReadWrite, "route_index", slot::ROUTE_INDEX),
        (ReadWrite, "route_ports", slot::ROUTE_PORTS),
        (WriteOneToClear, "fault_events", slot::FAULT_EVENTS),
        (Counter, "dropped_wrong_id", slot::DROPPED_WRONG_ID),
        (Counter, "dropped_malformed", slot::DROPPED_MALFORMED),
        (Counter, "dropped_no_route", slot::DROPPED_NO_ROUTE),
        (Counter, "reports_sent", slot::REPORTS_SENT),
        (Counter, "error_responses", slot::ERROR_RESPONSES),
        (ReadOnly, "chip_type", slot::CHIP_TYPE),
        (ReadOnly, "faults", slot::FAULTS),
        (ReadOnly, "loader_status", slot::LOADER_STATUS),
        (ReadOnly, "route_read", slot::ROUTE_READ),
    ];
    for (access, name, position) in want {
        assert_eq!(map.index(access, name), position, "nrc_mgmt: {name} moved");
    }
    for r in 0..rows {
        let name = format!("rs_dropped_row{r}");
        assert_eq!(map.index(Counter, &name), slot::MESH_ROW0 + r);
    }
    let names = hdl::llp::regs::link_port_map();
    for p in 0..ports {
        for (k, reg) in names.registers.iter().enumerate() {
            let name = format!("port{p}_{}", reg.name);
            let position = slot::PORT0 + LINK_PORT_REGISTERS as usize * p + k;
            assert_eq!(
                map.index(ReadOnly, &name),
                position,
                "nrc_mgmt: {name} moved"
            );
        }
    }
    assert_eq!(map.count(ReadOnly), slot::PORT0 + 8 * ports);
    assert_eq!(map.count(Counter), slot::MESH_ROW0 + rows);
    assert_eq!(map.count(ReadWrite), slot::ROUTE_PORTS + 1);
    // The loader's status bits Blank..=Refused, from bit 2, are the agent's faults 0..=3; the
    // chip's faults start at 4.
    assert_eq!(NMA_CHIP_FAULT_BASE, 4);
    for (k, fault) in NmaFault::ALL.iter().enumerate() {
        assert_eq!(fault.bit(), k);
    }
    let from = [
        LoaderStatus::Blank,
        LoaderStatus::Corrupt,
        LoaderStatus::Absent,
        LoaderStatus::Refused,
    ];
    for (k, status) in from.into_iter().enumerate() {
        assert_eq!(
            status.bit(),
            2 + k,
            "nrc_mgmt: loader status {status:?} moved"
        );
    }
}

impl<const B: usize, const CW: usize, const PORTS: usize, const ROWS: usize, const RW: usize> Logic
    for NrcMgmt<B, CW, PORTS, ROWS, RW>
{
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, mesh, agent, loader, arbiter, registers);
        dff_setup!(self, clock, faults_before);
        self.mesh.reset.next = self.reset.val();
        self.agent.reset.next = self.reset.val();
        self.loader.reset.next = self.reset.val();
        self.arbiter.reset.next = self.reset.val();
        self.registers.reset.next = self.reset.val();
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
            &mut self.agent.from_mesh,
        );
        RsBeatSource::<FLIT_BITS, RS_PORT_BITS>::join(
            &mut self.agent.to_mesh,
            &mut self.mesh.from_nma,
        );
        // The loader first (it runs after reset), then the agent.
        hdl::mgmt::eep_access::EepCommandSource::join(
            &mut self.loader.eeprom,
            &mut self.agent.loader_command,
        );
        hdl::mgmt::eep_access::EepResultSource::join(
            &mut self.agent.loader_result,
            &mut self.loader.eeprom_result,
        );
        I2cPins::link(&mut self.i2c, &mut self.agent.i2c);
        hdl::regmap::RegRequestSource::<REGISTER_ADDRESS_BITS, NMA_DATA_BITS>::join(
            &mut self.loader.registers,
            &mut self.arbiter.first_request,
        );
        hdl::regmap::RegResponseSource::<NMA_DATA_BITS>::join(
            &mut self.arbiter.first_response,
            &mut self.loader.register_responses,
        );
        hdl::regmap::RegRequestSource::<REGISTER_ADDRESS_BITS, NMA_DATA_BITS>::join(
            &mut self.agent.registers,
            &mut self.arbiter.second_request,
        );
        hdl::regmap::RegResponseSource::<NMA_DATA_BITS>::join(
            &mut self.arbiter.second_response,
            &mut self.agent.register_responses,
        );
        hdl::regmap::RegRequestSource::<REGISTER_ADDRESS_BITS, NMA_DATA_BITS>::join(
            &mut self.arbiter.request,
            &mut self.registers.request,
        );
        hdl::regmap::RegResponseSource::<NMA_DATA_BITS>::join(
            &mut self.registers.response,
            &mut self.arbiter.response,
        );
        // The agent's settings (read-write registers, slot positions checked by `new`).
        self.agent.chip_id.next = self.registers.settings[0].val().get_bits::<16>(0);
        self.agent.report_enable.next = self.registers.settings[1].val().get_bit(0);
        self.agent.fault_mask.next = self.registers.settings[2].val().get_bits::<NMA_FAULTS>(0);
        self.agent.report_route.next = bit_cast::<128, 64>(self.registers.settings[3].val())
            | (bit_cast::<128, 64>(self.registers.settings[4].val()) << 64);
        self.agent.report_dest.next = self.registers.settings[5].val().get_bits::<16>(0);
        self.agent.eeprom_device.next = self.registers.settings[6].val().get_bits::<3>(0);
        // Indirect routing-table access.
        self.route_table.index.next = self.registers.settings[7]
            .val()
            .get_bits::<ROUTE_INDEX_BITS>(0);
        self.route_table.ports.next = self.registers.settings[8].val().get_bits::<PORTS>(0);
        self.route_table.write.next = self.registers.written[8].val();
        self.loader_pulses_unused.next = self.loader.busy.val()
            | self.loader.done.val()
            | self.loader.blank.val()
            | self.loader.corrupt.val()
            | self.loader.absent.val()
            | self.loader.refused.val();
        self.strobes_unused.next = self.registers.flag_values[0].val().any();
        self.agent_held_unused.next = self.agent.held.val().any();
        for k in 0..8 {
            self.strobes_unused.next = self.strobes_unused.val() | self.registers.written[k].val();
        }
        // Faults (literal positions checked by `new`): the loader's outcome as levels (its status bits Blank..Refused), then the chip's.
        self.faults_now.next = bit_cast::<NMA_FAULTS, 4>(self.loader.status.val().get_bits::<4>(2))
            | (bit_cast::<NMA_FAULTS, NRC_CHIP_FAULTS>(self.chip_faults.val()) << 4);
        self.agent.faults.next = self.faults_now.val();
        self.faults_before.d.next = self.faults_now.val();
        // Sticky events: rising edges of unmasked faults, reported or not.
        self.registers.flags[0].next = bit_cast::<NMA_DATA_BITS, NMA_FAULTS>(
            self.faults_now.val()
                & !self.faults_before.q.val()
                & !self.registers.settings[2].val().get_bits::<NMA_FAULTS>(0),
        );
        // Counters.
        self.registers.events[0].next = self.agent.dropped_wrong_id.val();
        self.registers.events[1].next = self.agent.dropped_malformed.val();
        self.registers.events[2].next = self.agent.dropped_no_route.val();
        self.registers.events[3].next = self.agent.reports_sent.val();
        self.registers.events[4].next = self.agent.error_responses.val();
        for r in 0..ROWS {
            self.registers.events[5 + r].next = self.mesh.dropped.val().get_bit(r);
        }
        // Read-only registers.
        self.registers.status[0].next = self.chip_type.val();
        self.registers.status[1].next =
            bit_cast::<NMA_DATA_BITS, NMA_FAULTS>(self.faults_now.val());
        self.registers.status[2].next =
            bit_cast::<NMA_DATA_BITS, LOADER_STATUS_BITS>(self.loader.status.val());
        self.registers.status[3].next =
            bit_cast::<NMA_DATA_BITS, PORTS>(self.route_table.read.val());
        for p in 0..PORTS {
            self.registers.status[4 + 8 * p].next = self.links[p].status.val();
            self.registers.status[5 + 8 * p].next = self.links[p].peer.val();
            self.registers.status[6 + 8 * p].next = self.links[p].ltps_sent.val();
            self.registers.status[7 + 8 * p].next = self.links[p].ltps_good.val();
            self.registers.status[8 + 8 * p].next = self.links[p].ltps_bad.val();
            self.registers.status[9 + 8 * p].next = self.links[p].retries.val();
            self.registers.status[10 + 8 * p].next = self.links[p].replays.val();
            self.registers.status[11 + 8 * p].next = self.links[p].drops.val();
        }
    }
}
