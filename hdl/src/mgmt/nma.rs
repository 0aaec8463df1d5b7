//! `Nma`: the management agent as a chip instantiates it, the one design the router's and the
//! NIC's wrappers share (issue 12, item 2: "one design with an NRC wrapper and a NIC wrapper
//! that differ only in their interfaces"). The agent core ([`NmaCore`]), the EEPROM
//! configuration loader ([`EepromLoader`]), the agent's own register block ([`nma_map`] at
//! address 0, in a [`RegFile`] here) and the port to the rest of the chip's register space.
//!
//! ```text
//! from_port --> NmaCore --registers--> RegArbiter --> RegSplit --> RegFile(nma_map)  (below the window)
//! to_port   <--   |  ^                  ^ loader first     +-----> chip_request / chip_response
//!                 |  +-- EepromLoader --+                          (the chip's registers, above it)
//!                 +-- i2c (the configuration EEPROM)
//! ```
//!
//! **Register space.** Both chips place the agent's block at address 0 of their space; the
//! block's window (the power of two above its last register, [`nma_window`]) is answered
//! here and every other address goes out on `chip_request` to the chip's own register file
//! (which answers unmapped addresses with an error, as any register file does). The loader's
//! writes take the same path, so an image can set the chip's registers (routing tables) as
//! well as the agent's. Responses come back in request order whichever file answers
//! ([`RegSplit`]).
//!
//! **The agent's block** ([`nma_map`]): the settings the core reads (chip ID, report enable,
//! fault mask, report route and DestID, EEPROM device), the chip type, the fault levels and the
//! sticky fault events, the loader's status, and the agent's counters.
//!
//! **Faults**: bits 0..=3 are the loader's outcome (blank, corrupt, absent, refused), held as
//! levels until reset ([`NmaFault`]); bits 4..=7 are `chip_faults` (the chip's own: link down,
//! say). A fault event is a rising edge of an unmasked fault: reported if enabled and recorded
//! in `fault_events` either way.
//!
//! **Ports.** `from_port` carries request flits with `port` = the port the packet arrived on;
//! `to_port` carries response and report flits with `port` = the output port the packet's
//! route names (see [`NmaCore`]).
//!
//! **Reset** (synchronous) resets everything inside; the chip's register file must be reset
//! with it (see [`RegSplit`]). The loader then runs first, and its register writes go before
//! the agent's (the arbiter's priority).
use super::eeprom_loader::{EepromLoader, LoaderStatus, LOADER_STATUS_BITS};
use super::i2c_master::I2cPins;
use super::nma_core::{NmaCore, NMA_DATA_BITS};
use super::regs::{nma_map, NmaFault, NMA_CHIP_FAULT_BASE, NMA_FAULTS};
use super::relay_station::{RsBeatSink, RsBeatSource, RS_PORT_BITS};
use crate::formats::mgmt::DestType;
use crate::formats::FLIT_BITS;
use crate::regmap::{
    Access, AddressSpace, RegArbiter, RegFile, RegMap, RegRequestSource, RegResponseSink, RegSplit,
};
use rust_hdl::prelude::*;

/// Fault inputs a chip drives (`chip_faults`): the agent's after the loader's.
pub const NMA_CHIP_FAULTS: usize = NMA_FAULTS - NMA_CHIP_FAULT_BASE;

/// The agent's register block of a chip of type `chip` in the chips' default build.
pub fn nma_block(chip: DestType) -> RegMap {
    nma_map(chip, NMA_FAULTS)
}

/// Addresses below this are the agent's block; the chip's own registers start at or above it.
pub fn nma_window(chip: DestType) -> u64 {
    AddressSpace::window_of(&nma_block(chip))
}

/// How the agent's EEPROM side is timed and where the loader finds its image.
#[derive(Clone, Copy, Debug)]
pub struct NmaParams {
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

/// Positions of the agent block's hardware ports (kind order, [`RegMap::index`]) that
/// `update()` names by literal, because rust-hdl indexes only by literals and loop variables.
/// [`Nma::new`] checks every one against the map.
mod slot {
    pub const CHIP_ID: usize = 0;
    pub const REPORT_ENABLE: usize = 1;
    pub const FAULT_MASK: usize = 2;
    pub const REPORT_ROUTE_LOW: usize = 3;
    pub const REPORT_ROUTE_HIGH: usize = 4;
    pub const REPORT_DEST: usize = 5;
    pub const EEPROM_DEVICE: usize = 6;
    pub const FAULT_EVENTS: usize = 0;
    pub const DROPPED_WRONG_ID: usize = 0;
    pub const DROPPED_MALFORMED: usize = 1;
    pub const DROPPED_NO_ROUTE: usize = 2;
    pub const REPORTS_SENT: usize = 3;
    pub const ERROR_RESPONSES: usize = 4;
    pub const CHIP_TYPE: usize = 0;
    pub const FAULTS: usize = 1;
    pub const LOADER_STATUS: usize = 2;
}

/// The management agent of a chip with `A` register address bits; see the module
/// documentation.
#[derive(LogicBlock)]
pub struct Nma<const A: usize> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset of the agent (the chip's register file with it).
    pub reset: Signal<In, bool>,
    /// Request flits, `port` = the arrival port.
    pub from_port: RsBeatSink<FLIT_BITS, RS_PORT_BITS>,
    /// Response and report flits, `port` = the output port.
    pub to_port: RsBeatSource<FLIT_BITS, RS_PORT_BITS>,
    /// Register requests outside the agent's block, to the chip's register file.
    pub chip_request: RegRequestSource<A, NMA_DATA_BITS>,
    /// The chip's register file's responses, in order.
    pub chip_response: RegResponseSink<NMA_DATA_BITS>,
    /// The chip's faults (agent fault inputs 4..=7).
    pub chip_faults: Signal<In, Bits<NMA_CHIP_FAULTS>>,
    /// The configuration EEPROM's I2C bus.
    pub i2c: I2cPins,
    /// This chip's ID (the `chip_id` register), which the chip's link ports send in training.
    pub chip_id: Signal<Out, Bits<16>>,
    core: NmaCore<A, NMA_FAULTS>,
    loader: EepromLoader<A>,
    arbiter: RegArbiter<A, NMA_DATA_BITS>,
    split: RegSplit<A, NMA_DATA_BITS>,
    registers: RegFile<A, NMA_DATA_BITS>,
    /// Fault levels last cycle (for the sticky fault events).
    faults_before: DFF<Bits<NMA_FAULTS>>,
    faults_now: Signal<Local, Bits<NMA_FAULTS>>,
    /// Write strobes of the settings the core reads as levels, and the sticky events' value
    /// (software reads it; no hardware acts on it): acknowledged unused.
    strobes_unused: Signal<Local, bool>,
    /// The loader's outcome pulses: its held status bits carry the same outcome to the
    /// registers and the faults, so the pulses are acknowledged unused.
    loader_pulses_unused: Signal<Local, bool>,
    /// The core's occupancy (for its own benches): not in the register map.
    core_held_unused: Signal<Local, bool>,
    chip_type: Constant<Bits<NMA_DATA_BITS>>,
}

impl<const A: usize> Nma<A> {
    /// The agent of a chip of type `chip` with `params`. Panics if the agent block's layout
    /// no longer matches the positions `update()` uses (a change to [`nma_map`] must be
    /// carried into this file).
    pub fn new(chip: DestType, params: NmaParams) -> Self {
        let map = nma_block(chip);
        check_slots(&map);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            from_port: Default::default(),
            to_port: Default::default(),
            chip_request: Default::default(),
            chip_response: Default::default(),
            chip_faults: Default::default(),
            i2c: Default::default(),
            chip_id: Default::default(),
            core: NmaCore::new(
                params.mgmt_vc,
                params.quarter,
                params.stretch_limit,
                params.poll_limit,
            ),
            loader: EepromLoader::new(params.image_base, params.max_entries),
            arbiter: Default::default(),
            split: RegSplit::new(nma_window(chip)),
            registers: RegFile::new(&map),
            faults_before: Default::default(),
            faults_now: Default::default(),
            strobes_unused: Default::default(),
            loader_pulses_unused: Default::default(),
            core_held_unused: Default::default(),
            chip_type: Constant::new((chip.code() as u64).into()),
        }
    }
}

/// Panics unless every literal position of [`slot`] is the map's.
fn check_slots(map: &RegMap) {
    use Access::*;
    let want = [
        (ReadWrite, "chip_id", slot::CHIP_ID),
        (ReadWrite, "report_enable", slot::REPORT_ENABLE),
        (ReadWrite, "fault_mask", slot::FAULT_MASK),
        (ReadWrite, "report_route_low", slot::REPORT_ROUTE_LOW),
        (ReadWrite, "report_route_high", slot::REPORT_ROUTE_HIGH),
        (ReadWrite, "report_dest", slot::REPORT_DEST),
        (ReadWrite, "eeprom_device", slot::EEPROM_DEVICE),
        (WriteOneToClear, "fault_events", slot::FAULT_EVENTS),
        (Counter, "dropped_wrong_id", slot::DROPPED_WRONG_ID),
        (Counter, "dropped_malformed", slot::DROPPED_MALFORMED),
        (Counter, "dropped_no_route", slot::DROPPED_NO_ROUTE),
        (Counter, "reports_sent", slot::REPORTS_SENT),
        (Counter, "error_responses", slot::ERROR_RESPONSES),
        (ReadOnly, "chip_type", slot::CHIP_TYPE),
        (ReadOnly, "faults", slot::FAULTS),
        (ReadOnly, "loader_status", slot::LOADER_STATUS),
    ];
    for (access, name, position) in want {
        assert_eq!(map.index(access, name), position, "Nma: {name} moved");
    }
    assert_eq!(map.count(ReadWrite), slot::EEPROM_DEVICE + 1);
    assert_eq!(map.count(WriteOneToClear), 1);
    assert_eq!(map.count(Counter), slot::ERROR_RESPONSES + 1);
    assert_eq!(map.count(ReadOnly), slot::LOADER_STATUS + 1);
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
        assert_eq!(status.bit(), 2 + k, "Nma: loader status {status:?} moved");
    }
}

impl<const A: usize> Logic for Nma<A> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, core, loader, arbiter, split, registers);
        dff_setup!(self, clock, faults_before);
        self.core.reset.next = self.reset.val();
        self.loader.reset.next = self.reset.val();
        self.arbiter.reset.next = self.reset.val();
        self.split.reset.next = self.reset.val();
        self.registers.reset.next = self.reset.val();
        RsBeatSink::<FLIT_BITS, RS_PORT_BITS>::link(&mut self.from_port, &mut self.core.from_mesh);
        RsBeatSource::<FLIT_BITS, RS_PORT_BITS>::link(&mut self.to_port, &mut self.core.to_mesh);
        I2cPins::link(&mut self.i2c, &mut self.core.i2c);
        // The loader's EEPROM reads go first (it runs after reset).
        super::eep_access::EepCommandSource::join(
            &mut self.loader.eeprom,
            &mut self.core.loader_command,
        );
        super::eep_access::EepResultSource::join(
            &mut self.core.loader_result,
            &mut self.loader.eeprom_result,
        );
        // Register requests: the loader first, then the core; the agent's block here, the
        // rest to the chip.
        RegRequestSource::<A, NMA_DATA_BITS>::join(
            &mut self.loader.registers,
            &mut self.arbiter.first_request,
        );
        crate::regmap::RegResponseSource::<NMA_DATA_BITS>::join(
            &mut self.arbiter.first_response,
            &mut self.loader.register_responses,
        );
        RegRequestSource::<A, NMA_DATA_BITS>::join(
            &mut self.core.registers,
            &mut self.arbiter.second_request,
        );
        crate::regmap::RegResponseSource::<NMA_DATA_BITS>::join(
            &mut self.arbiter.second_response,
            &mut self.core.register_responses,
        );
        RegRequestSource::<A, NMA_DATA_BITS>::join(
            &mut self.arbiter.request,
            &mut self.split.request,
        );
        crate::regmap::RegResponseSource::<NMA_DATA_BITS>::join(
            &mut self.split.response,
            &mut self.arbiter.response,
        );
        RegRequestSource::<A, NMA_DATA_BITS>::join(
            &mut self.split.local_request,
            &mut self.registers.request,
        );
        crate::regmap::RegResponseSource::<NMA_DATA_BITS>::join(
            &mut self.registers.response,
            &mut self.split.local_response,
        );
        RegRequestSource::<A, NMA_DATA_BITS>::link(
            &mut self.chip_request,
            &mut self.split.chip_request,
        );
        RegResponseSink::<NMA_DATA_BITS>::link(
            &mut self.chip_response,
            &mut self.split.chip_response,
        );

        // The core's settings (read-write registers, slot positions checked by `new`).
        self.core.chip_id.next = self.registers.settings[0].val().get_bits::<16>(0);
        self.chip_id.next = self.registers.settings[0].val().get_bits::<16>(0);
        self.core.report_enable.next = self.registers.settings[1].val().get_bit(0);
        self.core.fault_mask.next = self.registers.settings[2].val().get_bits::<NMA_FAULTS>(0);
        self.core.report_route.next = bit_cast::<128, 64>(self.registers.settings[3].val())
            | (bit_cast::<128, 64>(self.registers.settings[4].val()) << 64);
        self.core.report_dest.next = self.registers.settings[5].val().get_bits::<16>(0);
        self.core.eeprom_device.next = self.registers.settings[6].val().get_bits::<3>(0);
        self.loader_pulses_unused.next = self.loader.busy.val()
            | self.loader.done.val()
            | self.loader.blank.val()
            | self.loader.corrupt.val()
            | self.loader.absent.val()
            | self.loader.refused.val();
        self.strobes_unused.next = self.registers.flag_values[0].val().any();
        self.core_held_unused.next = self.core.held.val().any();
        for k in 0..7 {
            self.strobes_unused.next = self.strobes_unused.val() | self.registers.written[k].val();
        }

        // Faults: the loader's outcome as levels (its status bits Blank..=Refused), then the
        // chip's.
        self.faults_now.next = bit_cast::<NMA_FAULTS, 4>(self.loader.status.val().get_bits::<4>(2))
            | (bit_cast::<NMA_FAULTS, NMA_CHIP_FAULTS>(self.chip_faults.val()) << 4);
        self.core.faults.next = self.faults_now.val();
        self.faults_before.d.next = self.faults_now.val();
        // Sticky events: rising edges of unmasked faults, reported or not.
        self.registers.flags[0].next = bit_cast::<NMA_DATA_BITS, NMA_FAULTS>(
            self.faults_now.val()
                & !self.faults_before.q.val()
                & !self.registers.settings[2].val().get_bits::<NMA_FAULTS>(0),
        );

        // Counters and read-only registers.
        self.registers.events[0].next = self.core.dropped_wrong_id.val();
        self.registers.events[1].next = self.core.dropped_malformed.val();
        self.registers.events[2].next = self.core.dropped_no_route.val();
        self.registers.events[3].next = self.core.reports_sent.val();
        self.registers.events[4].next = self.core.error_responses.val();
        self.registers.status[0].next = self.chip_type.val();
        self.registers.status[1].next =
            bit_cast::<NMA_DATA_BITS, NMA_FAULTS>(self.faults_now.val());
        self.registers.status[2].next =
            bit_cast::<NMA_DATA_BITS, LOADER_STATUS_BITS>(self.loader.status.val());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_chips_agents_are_synthesizable() {
        let params = NmaParams {
            mgmt_vc: 3,
            quarter: 2,
            stretch_limit: 40,
            poll_limit: 12,
            image_base: 0,
            max_entries: 64,
        };
        let mut nrc = Nma::<15>::new(DestType::Nrc, params);
        nrc.connect_all();
        yosys_validate("nma_nrc", &generate_verilog(&nrc)).unwrap();
        let mut nic = Nma::<12>::new(DestType::Nic, params);
        nic.connect_all();
        yosys_validate("nma_nic", &generate_verilog(&nic)).unwrap();
    }
}
