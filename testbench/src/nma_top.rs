//! The bench top of the management agent: an [`NmaCore`] at the NRC's 15 address bits with the
//! real register file of the sample map ([`hdl::regmap::regfile_sample`]) behind its register
//! port, as a chip wrapper will have its own map there. Everything else of the core is a port
//! of this top: the bench drives the mesh, the loader port, the I2C lines (through the EEPROM
//! model), the faults and the settings.
//!
//! The register file's inputs are fixed here: no write-1-to-clear flag is ever set, no counter
//! event comes, and read-only register `i` reads [`status_value`]`(i)` (cut to its width), so
//! the bench's register model knows every value.
use hdl::formats::mgmt::REGISTER_ADDRESS_BITS;
use hdl::formats::FLIT_BITS;
use hdl::mgmt::eep_access::{EepCommandSink, EepResultSource};
use hdl::mgmt::i2c_master::I2cPins;
use hdl::mgmt::nma_core::NMA_DATA_BITS;
use hdl::mgmt::relay_station::{RsBeatSink, RsBeatSource, RS_PORT_BITS};
use hdl::mgmt::NmaCore;
use hdl::regmap::port::{RegRequestSource, RegResponseSource};
use hdl::regmap::RegFile;
use hdl::tops::{NMA_CORE_FAULTS, NMA_CORE_POLL_LIMIT, NMA_CORE_QUARTER, NMA_CORE_STRETCH_LIMIT};
use rust_hdl::prelude::*;

/// Register address bits of the bench's agent (the NRC's).
pub const A: usize = REGISTER_ADDRESS_BITS;
/// Fault inputs of the bench's agent.
pub const F: usize = NMA_CORE_FAULTS;

/// What read-only register `i` (in the map's order of read-only registers) shows.
pub fn status_value(i: usize) -> u64 {
    0x0123_4567_89ab_cdefu64.rotate_left(7 * i as u32 + 1)
}

/// The agent with the sample register file; see the module documentation.
#[derive(LogicBlock)]
pub struct NmaBenchTop {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Reset of the agent and the register file.
    pub reset: Signal<In, bool>,
    /// Request flits.
    pub from_mesh: RsBeatSink<FLIT_BITS, RS_PORT_BITS>,
    /// Response and report flits.
    pub to_mesh: RsBeatSource<FLIT_BITS, RS_PORT_BITS>,
    /// The loader's EEPROM commands.
    pub loader_command: EepCommandSink,
    /// Their results.
    pub loader_result: EepResultSource,
    /// The EEPROM's bus.
    pub i2c: I2cPins,
    /// Fault levels.
    pub faults: Signal<In, Bits<F>>,
    /// Settings of the agent.
    pub chip_id: Signal<In, Bits<16>>,
    /// Reporting enabled.
    pub report_enable: Signal<In, bool>,
    /// Masked faults.
    pub fault_mask: Signal<In, Bits<F>>,
    /// Reports' forward route words.
    pub report_route: Signal<In, Bits<128>>,
    /// Reports' DestID.
    pub report_dest: Signal<In, Bits<16>>,
    /// A2..A0 of the EEPROM.
    pub eeprom_device: Signal<In, Bits<3>>,
    /// Events of the agent.
    pub dropped_wrong_id: Signal<Out, bool>,
    /// A malformed packet was dropped.
    pub dropped_malformed: Signal<Out, bool>,
    /// A beat without an output port was dropped.
    pub dropped_no_route: Signal<Out, bool>,
    /// A report was queued.
    pub reports_sent: Signal<Out, bool>,
    /// An error response was queued.
    pub error_responses: Signal<Out, bool>,
    core: NmaCore<A, F>,
    registers: RegFile<A, NMA_DATA_BITS>,
    status_values: Vec<Constant<Bits<NMA_DATA_BITS>>>,
}

impl NmaBenchTop {
    /// The top at the `nma_core` top's EEPROM timing, packets on VC `mgmt_vc`.
    pub fn new(mgmt_vc: u8) -> Self {
        let map = hdl::regmap::regfile_sample();
        let statuses = map.count(hdl::regmap::Access::ReadOnly);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            from_mesh: Default::default(),
            to_mesh: Default::default(),
            loader_command: Default::default(),
            loader_result: Default::default(),
            i2c: Default::default(),
            faults: Default::default(),
            chip_id: Default::default(),
            report_enable: Default::default(),
            fault_mask: Default::default(),
            report_route: Default::default(),
            report_dest: Default::default(),
            eeprom_device: Default::default(),
            dropped_wrong_id: Default::default(),
            dropped_malformed: Default::default(),
            dropped_no_route: Default::default(),
            reports_sent: Default::default(),
            error_responses: Default::default(),
            core: NmaCore::new(
                mgmt_vc,
                NMA_CORE_QUARTER,
                NMA_CORE_STRETCH_LIMIT,
                NMA_CORE_POLL_LIMIT,
            ),
            registers: RegFile::new(&map),
            status_values: (0..statuses)
                .map(|i| Constant::new(Bits::from(status_value(i))))
                .collect(),
        }
    }
}

impl Logic for NmaBenchTop {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, core, registers);
        self.core.reset.next = self.reset.val();
        self.registers.reset.next = self.reset.val();
        RsBeatSink::<FLIT_BITS, RS_PORT_BITS>::link(&mut self.from_mesh, &mut self.core.from_mesh);
        RsBeatSource::<FLIT_BITS, RS_PORT_BITS>::link(&mut self.to_mesh, &mut self.core.to_mesh);
        EepCommandSink::link(&mut self.loader_command, &mut self.core.loader_command);
        EepResultSource::link(&mut self.loader_result, &mut self.core.loader_result);
        I2cPins::link(&mut self.i2c, &mut self.core.i2c);
        RegRequestSource::<A, NMA_DATA_BITS>::join(
            &mut self.core.registers,
            &mut self.registers.request,
        );
        RegResponseSource::<NMA_DATA_BITS>::join(
            &mut self.registers.response,
            &mut self.core.register_responses,
        );
        self.core.faults.next = self.faults.val();
        self.core.chip_id.next = self.chip_id.val();
        self.core.report_enable.next = self.report_enable.val();
        self.core.fault_mask.next = self.fault_mask.val();
        self.core.report_route.next = self.report_route.val();
        self.core.report_dest.next = self.report_dest.val();
        self.core.eeprom_device.next = self.eeprom_device.val();
        self.dropped_wrong_id.next = self.core.dropped_wrong_id.val();
        self.dropped_malformed.next = self.core.dropped_malformed.val();
        self.dropped_no_route.next = self.core.dropped_no_route.val();
        self.reports_sent.next = self.core.reports_sent.val();
        self.error_responses.next = self.core.error_responses.val();
        for i in 0..self.registers.flags.len() {
            self.registers.flags[i].next = 0.into();
        }
        for i in 0..self.registers.events.len() {
            self.registers.events[i].next = false;
        }
        for i in 0..self.registers.status.len() {
            self.registers.status[i].next = self.status_values[i].val();
        }
    }
}

/// How a bench reaches the top's ports on rust-hdl's simulator.
pub fn port_table() -> crate::PortTable<NmaBenchTop> {
    crate::port_table!(NmaBenchTop; reset,
        from_mesh.valid, from_mesh.data, from_mesh.last, from_mesh.port, from_mesh.ready,
        to_mesh.valid, to_mesh.data, to_mesh.last, to_mesh.port, to_mesh.ready,
        loader_command.valid, loader_command.write, loader_command.address,
        loader_command.count, loader_command.data, loader_command.ready,
        loader_result.valid, loader_result.data, loader_result.error, loader_result.ready,
        i2c.scl_drive_low, i2c.sda_drive_low, i2c.scl_in, i2c.sda_in,
        faults, chip_id, report_enable, fault_mask, report_route, report_dest, eeprom_device,
        dropped_wrong_id, dropped_malformed, dropped_no_route, reports_sent, error_responses)
}
