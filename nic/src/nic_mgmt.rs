//! `nic_mgmt`: the NIC's wrapper of the management agent (issue 12, item 2). The same agent
//! design as the router's ([`Nma`]: core, EEPROM on I2C, configuration loader, the agent's
//! register block), with the NIC's interfaces: one network port instead of a relay-station
//! mesh, and the NIC's own register file ([`RegFile`] of [`nic_chip_map`]) behind the agent's
//! `chip_request` port.
//!
//! ```text
//! inbound  --(port 0)--> Nma --chip_request--> RegFile(nic_chip_map): mgmt port counter,
//! outbound <--(port 0)--  |                                           network port's link report
//!                         +--i2c-- EEPROM
//! ```
//!
//! **The network port.** The NIC's network interface hands arriving management requests
//! straight to the agent (`inbound`, flits with `last` on the tail; its `port` is not read:
//! the agent records port 0, the NIC's only port, as the first hop of the backward route).
//! Responses and fault reports leave on `outbound` with `port` 0. The agent takes a packet's
//! output port from its route, as a router's does; a packet whose route names another port
//! (a fault report with a badly set `report_route`, say) cannot leave a one-port chip: it is
//! dropped whole and counted (`mgmt_dropped_port`), never sent out on the wrong assumption.
//! The agent's packer keeps `port` the same on every flit of a packet, so dropping by flit
//! drops whole packets.
//!
//! **Registers** (addresses in `verilog-out/nic.md`): the agent's block at 0, the
//! management port's counter at 0x20, the network port's link block at 0x40 (`link`: status,
//! peer identity, LTP and retry counts, and the read-write `link_settings` at 0x48, which
//! drives `link.settings`: the endpoint's lane removal, retraining and VC mode), the DMA core's counters at 0x80 (`dma_events`, one
//! pulse per counted event). The host-facing registers are the function table's.
//!
//! **Reset** (synchronous) resets everything together; the loader then runs first.
use crate::regs::{nic_chip_map, nic_map, DMA_COUNTERS, NIC_ADDRESS_BITS};
use hdl::formats::mgmt::DestType;
use hdl::formats::FLIT_BITS;
use hdl::llp::regs::{LinkReportSink, LINK_REPORT_REGISTERS};
use hdl::mgmt::i2c_master::I2cPins;
use hdl::mgmt::nma::{nma_window, Nma, NmaParams, NMA_CHIP_FAULTS};
use hdl::mgmt::nma_core::NMA_DATA_BITS;
use hdl::mgmt::regs::NMA_FAULTS;
use hdl::mgmt::relay_station::{RsBeatSink, RsBeatSource, RS_PORT_BITS};
use hdl::regmap::{Access, RegFile, RegMap, RegRequestSource, RegResponseSource};
use rust_hdl::prelude::*;

/// Fault inputs the NIC drives (`chip_faults`).
pub const NIC_CHIP_FAULTS: usize = NMA_CHIP_FAULTS;

/// Positions of the NIC register file's hardware ports that `update()` names by literal;
/// [`NicMgmt::new`] checks them against the map.
mod slot {
    pub const DROPPED_PORT: usize = 0;
    pub const PORT0: usize = 0;
    /// The network port's `link_settings` (the only read-write register).
    pub const SETTINGS: usize = 0;
    /// The DMA core's first counter.
    pub const DMA: usize = 1;
}

/// The NIC's management agent; see the module documentation.
#[derive(LogicBlock)]
pub struct NicMgmt {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Management requests from the network port (flits, `last` on the tail; `port` unused).
    pub inbound: RsBeatSink<FLIT_BITS, RS_PORT_BITS>,
    /// Responses and fault reports to the network port (`port` always 0).
    pub outbound: RsBeatSource<FLIT_BITS, RS_PORT_BITS>,
    /// The network port's link report, shown in its registers, and its `link_settings`
    /// register to the port.
    pub link: LinkReportSink,
    /// The NIC's faults (agent fault inputs 4..=7).
    pub chip_faults: Signal<In, Bits<NIC_CHIP_FAULTS>>,
    /// The DMA core's counter pulses (`dma_*` counters, `ReceivePulse` then `CorePulse` order).
    pub dma_events: Signal<In, Bits<DMA_COUNTERS>>,
    /// The configuration EEPROM's I2C bus.
    pub i2c: I2cPins,
    /// This chip's ID (the agent's `chip_id` register), for the network port's training words.
    pub chip_id: Signal<Out, Bits<16>>,
    agent: Nma<NIC_ADDRESS_BITS>,
    registers: RegFile<NIC_ADDRESS_BITS, NMA_DATA_BITS>,
    /// The agent's packet at hand names port 0.
    for_this_port: Signal<Local, bool>,
    /// `inbound.port`, which a one-port chip does not need: acknowledged unused.
    arrival_port_unused: Signal<Local, bool>,
    /// The write strobe of `link_settings` (a level the port reads): acknowledged unused.
    settings_strobe_unused: Signal<Local, bool>,
}

impl NicMgmt {
    /// The NIC's whole register map (the agent's block and the NIC's), the network port's
    /// `link_settings` resetting to `link_settings`.
    pub fn map(link_settings: u64) -> RegMap {
        nic_map(NMA_FAULTS, link_settings).expect("the NIC's register space assembles")
    }

    /// The NIC's own registers (the register file of this top).
    pub fn chip_map(link_settings: u64) -> RegMap {
        nic_chip_map(link_settings).expect("the NIC's register space assembles")
    }

    /// The agent with `params`, the network port's `link_settings` resetting to
    /// `link_settings` (the port's
    /// [`LinkPortParams::settings_reset`](hdl::link_port::LinkPortParams::settings_reset)).
    /// Panics if the register map's layout no longer matches the positions `update()` uses.
    pub fn new(params: NmaParams, link_settings: u64) -> Self {
        let map = Self::chip_map(link_settings);
        check_slots(&map);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            inbound: Default::default(),
            outbound: Default::default(),
            link: Default::default(),
            chip_faults: Default::default(),
            dma_events: Default::default(),
            i2c: Default::default(),
            chip_id: Default::default(),
            agent: Nma::new(DestType::Nic, params),
            registers: RegFile::new(&map),
            for_this_port: Default::default(),
            arrival_port_unused: Default::default(),
            settings_strobe_unused: Default::default(),
        }
    }
}

/// Panics unless every literal position of [`slot`] is the map's and the NIC's registers lie
/// above the agent's window.
fn check_slots(map: &RegMap) {
    use Access::*;
    assert_eq!(map.index(Counter, "mgmt_dropped_port"), slot::DROPPED_PORT);
    let names = hdl::llp::regs::link_port_map(0);
    for (k, reg) in names.of(ReadOnly).enumerate() {
        let name = format!("port0_{}", reg.name);
        assert_eq!(
            map.index(ReadOnly, &name),
            slot::PORT0 + k,
            "nic_mgmt: {name} moved"
        );
    }
    assert_eq!(map.count(ReadOnly), LINK_REPORT_REGISTERS);
    assert_eq!(map.index(ReadWrite, "port0_link_settings"), slot::SETTINGS);
    let dma = crate::regs::dma_counters_map();
    for (k, reg) in dma.registers.iter().enumerate() {
        let name = format!("dma_{}", reg.name);
        assert_eq!(
            map.index(Counter, &name),
            slot::DMA + k,
            "nic_mgmt: {name} moved"
        );
    }
    assert_eq!(map.count(Counter), 1 + DMA_COUNTERS);
    assert_eq!(map.count(ReadWrite), 1);
    assert_eq!(map.count(WriteOneToClear), 0);
    let window = nma_window(DestType::Nic);
    assert!(
        map.registers.iter().all(|r| r.offset >= window),
        "nic_mgmt: a NIC register lies in the agent's window"
    );
}

impl Logic for NicMgmt {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, agent, registers);
        self.agent.reset.next = self.reset.val();
        self.chip_id.next = self.agent.chip_id.val();
        self.registers.reset.next = self.reset.val();
        I2cPins::link(&mut self.i2c, &mut self.agent.i2c);
        self.agent.chip_faults.next = self.chip_faults.val();
        RegRequestSource::<NIC_ADDRESS_BITS, NMA_DATA_BITS>::join(
            &mut self.agent.chip_request,
            &mut self.registers.request,
        );
        RegResponseSource::<NMA_DATA_BITS>::join(
            &mut self.registers.response,
            &mut self.agent.chip_response,
        );

        // Requests: the one port is port 0. An adapter, not a join: the bundle is the same
        // type on both sides but `port` is replaced (as a relay station replaces it).
        self.agent.from_port.valid.next = self.inbound.valid.val();
        self.agent.from_port.data.next = self.inbound.data.val();
        self.agent.from_port.last.next = self.inbound.last.val();
        self.agent.from_port.port.next = 0.into();
        self.inbound.ready.next = self.agent.from_port.ready.val();
        self.arrival_port_unused.next = self.inbound.port.val().any();

        // Responses and reports: out if they name port 0, else dropped (taken, not sent).
        self.for_this_port.next = !self.agent.to_port.port.val().any();
        self.outbound.valid.next = self.agent.to_port.valid.val() & self.for_this_port.val();
        self.outbound.data.next = self.agent.to_port.data.val();
        self.outbound.last.next = self.agent.to_port.last.val();
        self.outbound.port.next = 0.into();
        self.agent.to_port.ready.next = self.outbound.ready.val() | !self.for_this_port.val();
        self.registers.events[0].next = self.agent.to_port.valid.val()
            & self.agent.to_port.last.val()
            & !self.for_this_port.val();

        for i in 0..DMA_COUNTERS {
            // slot::DMA, as a literal (checked by `check_slots`).
            self.registers.events[1 + i].next = self.dma_events.val().get_bit(i);
        }

        self.registers.status[0].next = self.link.status.val();
        self.registers.status[1].next = self.link.peer.val();
        self.registers.status[2].next = self.link.ltps_sent.val();
        self.registers.status[3].next = self.link.ltps_good.val();
        self.registers.status[4].next = self.link.ltps_bad.val();
        self.registers.status[5].next = self.link.retries.val();
        self.registers.status[6].next = self.link.replays.val();
        self.registers.status[7].next = self.link.drops.val();
        // slot::SETTINGS: the port's `link_settings`, to the port.
        self.link.settings.next = self.registers.settings[0].val();
        self.settings_strobe_unused.next = self.registers.written[0].val();
    }
}
