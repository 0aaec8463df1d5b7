//! `nrc_mgmt`: the router's management plane (issue 12, item 4), ready for the data plane to
//! attach: `PORTS` ports of plain management flit streams, the relay-station mesh
//! ([`RsMesh`]), the management agent ([`Nma`]: the agent core with its EEPROM on I2C, the
//! configuration loader and the agent's register block, the design the NIC's wrapper shares)
//! and the router's own register file ([`RegFile`] of [`nrc_router_map`]) behind the agent's
//! `chip_request` port.
//!
//! ```text
//! inbound[p] --> RsMesh --> Nma --chip_request--> RegFile(nrc_router_map)
//! outbound[p] <--     <--   |  (agent block 0x00..0x1f inside)   | route table, ports' reports,
//!                           +--i2c-- EEPROM                      | mesh counters
//! ```
//!
//! What the registers show and drive (addresses in `verilog-out/nrc.md`, the agent's block and
//! the router's together): the agent's block (see [`Nma`]), the mesh's drop counters, indirect
//! routing-table access (`route_table`: the table is the data plane's, reached through
//! `route_table`), and per port the link endpoint's report (`links[p]`: status, peer identity,
//! LTP and retry counts).
//!
//! **Faults** of the agent: bits 0..=3 the loader's outcome, bits 4..=7 `chip_faults` (the
//! data plane's: link down, say).
//!
//! **Reset** (synchronous) resets everything together; the loader then runs first and its
//! register writes (routing-table entries included) go before the agent's, so a request that
//! arrives during loading is answered between the loader's writes.
use crate::regs::{nrc_map, nrc_router_map, ROUTE_INDEX_BITS};
use crate::rs_mesh::RsMesh;
use hdl::formats::mgmt::{DestType, REGISTER_ADDRESS_BITS};
use hdl::formats::FLIT_BITS;
use hdl::llp::regs::{LinkReportSink, LINK_PORT_REGISTERS};
use hdl::mgmt::i2c_master::I2cPins;
use hdl::mgmt::nma::{Nma, NmaParams, NMA_CHIP_FAULTS};
use hdl::mgmt::nma_core::NMA_DATA_BITS;
use hdl::mgmt::regs::NMA_FAULTS;
use hdl::mgmt::relay_station::{RsBeatSink, RsBeatSource, RS_BEAT_BITS, RS_PORT_BITS};
use hdl::regmap::{Access, RegFile, RegMap};
use hdl::width::chunk_index_bits;
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
    pub const PORT0: usize = 1;
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
    agent: Nma<REGISTER_ADDRESS_BITS>,
    registers: RegFile<REGISTER_ADDRESS_BITS, NMA_DATA_BITS>,
    /// The write strobe of `route_index` (a level the table reads): acknowledged unused.
    index_strobe_unused: Signal<Local, bool>,
    /// `row_bits[r]`: bit `r` alone, to pick row `r`'s drop pulse by a mask (with one row
    /// `dropped` is a Verilog scalar, which cannot be bit-selected).
    row_bits: Vec<Constant<Bits<ROWS>>>,
}

/// The default build's plane: 8 ports in 2 rows of 4, 20-bit beats.
pub type NrcMgmt8 = NrcMgmt<RS_BEAT_BITS, { chunk_index_bits(FLIT_BITS, RS_BEAT_BITS) }, 8, 2, 1>;
/// The published router's plane: 24 ports in 4 rows of 6.
pub type NrcMgmt24 = NrcMgmt<RS_BEAT_BITS, { chunk_index_bits(FLIT_BITS, RS_BEAT_BITS) }, 24, 4, 2>;

impl<const B: usize, const CW: usize, const PORTS: usize, const ROWS: usize, const RW: usize>
    NrcMgmt<B, CW, PORTS, ROWS, RW>
{
    /// The router's whole register map for this size (the agent's block and the router's).
    pub fn map() -> RegMap {
        nrc_map(PORTS, ROWS, NMA_FAULTS).expect("the router's register space assembles")
    }

    /// The router's own registers (the register file of this top).
    pub fn router_map() -> RegMap {
        nrc_router_map(PORTS, ROWS).expect("the router's register space assembles")
    }

    /// The plane with `params`. Panics if the register map's layout no longer matches the
    /// positions `update()` uses (a change to the map must be carried into this file).
    pub fn new(params: NrcMgmtParams) -> Self {
        let map = Self::router_map();
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
            agent: Nma::new(DestType::Nrc, params),
            registers: RegFile::new(&map),
            index_strobe_unused: Default::default(),
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
    assert_eq!(map.count(WriteOneToClear), 0);
    let window = hdl::mgmt::nma::nma_window(DestType::Nrc);
    assert!(
        map.registers.iter().all(|r| r.offset >= window),
        "nrc_mgmt: a router register lies in the agent's window"
    );
}

impl<const B: usize, const CW: usize, const PORTS: usize, const ROWS: usize, const RW: usize> Logic
    for NrcMgmt<B, CW, PORTS, ROWS, RW>
{
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, mesh, agent, registers);
        self.mesh.reset.next = self.reset.val();
        self.agent.reset.next = self.reset.val();
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
            &mut self.registers.request,
        );
        hdl::regmap::RegResponseSource::<NMA_DATA_BITS>::join(
            &mut self.registers.response,
            &mut self.agent.chip_response,
        );
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
        for p in 0..PORTS {
            self.registers.status[1 + 8 * p].next = self.links[p].status.val();
            self.registers.status[2 + 8 * p].next = self.links[p].peer.val();
            self.registers.status[3 + 8 * p].next = self.links[p].ltps_sent.val();
            self.registers.status[4 + 8 * p].next = self.links[p].ltps_good.val();
            self.registers.status[5 + 8 * p].next = self.links[p].ltps_bad.val();
            self.registers.status[6 + 8 * p].next = self.links[p].retries.val();
            self.registers.status[7 + 8 * p].next = self.links[p].replays.val();
            self.registers.status[8 + 8 * p].next = self.links[p].drops.val();
        }
    }
}
