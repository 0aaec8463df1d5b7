//! The management agent's own registers (issue 12, item 3), one block map that both chips place
//! at address 0 of their register space: the chip's identity, the fault-report settings of
//! [`ActiveReport`](super::ActiveReport), the EEPROM device address, the EEPROM loader's
//! outcome, and the agent's drop and report counters.
//!
//! The fault inputs of the agent are numbered once here ([`NmaFault`]): the EEPROM loader's four
//! outcomes first, then the chip's own faults from [`NMA_CHIP_FAULT_BASE`] on.
use crate::formats::mgmt::DestType;
use crate::regmap::{RegMap, Register};

/// Fault inputs of the agent in the chips' default build: the loader's four and four of the chip.
pub const NMA_FAULTS: usize = 8;
/// The first fault input a chip drives with its own faults (link down, say).
pub const NMA_CHIP_FAULT_BASE: usize = 4;
/// Width of the agent's event counters.
pub const NMA_COUNTER_BITS: usize = 32;
pub use super::eeprom_loader::LOADER_STATUS_BITS;

/// The agent's fault inputs that the agent itself drives (from the EEPROM loader).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NmaFault {
    /// The EEPROM holds no image (all ones or all zeros where the magic is).
    LoaderBlank = 0,
    /// The image is corrupt (magic, version, count or checksum wrong): nothing loaded.
    LoaderCorrupt = 1,
    /// The EEPROM does not acknowledge: nothing loaded.
    LoaderAbsent = 2,
    /// A register named by the image refused its write (unmapped or read-only).
    LoaderRefused = 3,
}

impl NmaFault {
    /// Every loader fault, in bit order.
    pub const ALL: [NmaFault; 4] = [
        NmaFault::LoaderBlank,
        NmaFault::LoaderCorrupt,
        NmaFault::LoaderAbsent,
        NmaFault::LoaderRefused,
    ];
    /// The fault's bit in `faults`, `fault_mask` and the reports.
    pub const fn bit(self) -> usize {
        self as usize
    }
}

/// The agent's register block of a chip of type `chip` with `faults` fault inputs (at most 64).
pub fn nma_map(chip: DestType, faults: usize) -> RegMap {
    assert!(
        (NMA_CHIP_FAULT_BASE + 1..=64).contains(&faults),
        "nma_map: faults must be {}..=64, got {faults}",
        NMA_CHIP_FAULT_BASE + 1
    );
    let chip_name = match chip {
        DestType::Nic => "NIC",
        DestType::Nrc => "NRC",
    };
    RegMap::new(
        "nma",
        format!("Management agent of the {chip_name}: identity, fault reports, EEPROM, counters."),
    )
    .reg(
        Register::rw("chip_id", 0x00, 16)
            .reset(crate::formats::mgmt::UNSET_ID as u64)
            .doc("this chip's ID (DestID of the requests it answers; all ones: no ID yet, answers only all-ones DestID)"),
    )
    .reg(
        Register::ro("chip_type", 0x01, 2)
            .doc("the chip's type as management packets name it (DestType: 0 NIC, 1 NRC)"),
    )
    .reg(
        Register::rw("report_enable", 0x02, 1)
            .doc("send a fault report for each new fault event (0: events are only recorded in fault_events)"),
    )
    .reg(
        Register::rw("fault_mask", 0x03, faults)
            .doc("one bit per fault input: 1 masks the fault (no event, no report)"),
    )
    .reg(
        Register::rw("report_route_low", 0x04, 64)
            .doc("forward route of fault reports, low word (hop_num, current, hops 0..9 as in a packet's forward route word)"),
    )
    .reg(
        Register::rw("report_route_high", 0x05, 64)
            .doc("forward route of fault reports, high word (hops 10..19)"),
    )
    .reg(
        Register::rw("report_dest", 0x06, 16)
            .doc("DestID of fault reports (the management server's node)"),
    )
    .reg(
        Register::rw("eeprom_device", 0x07, 3)
            .doc("A2..A0 of the configuration EEPROM on the I2C bus"),
    )
    .reg(Register::ro("faults", 0x08, faults).doc("the fault inputs now (levels)"))
    .reg(
        Register::w1c("fault_events", 0x09, faults)
            .doc("fault events seen (rising edges of unmasked faults), whether reported or not; write 1 to clear"),
    )
    .reg(
        Register::ro("loader_status", 0x0a, LOADER_STATUS_BITS)
            .doc("outcome of the EEPROM configuration loader after reset"),
    )
    .reg(
        Register::counter("dropped_wrong_id", 0x10, NMA_COUNTER_BITS)
            .doc("requests dropped: DestID neither chip_id nor all ones"),
    )
    .reg(
        Register::counter("dropped_malformed", 0x11, NMA_COUNTER_BITS)
            .doc("packets dropped: bad framing, CRC, kind, reserved bits or routing fields"),
    )
    .reg(
        Register::counter("dropped_no_route", 0x12, NMA_COUNTER_BITS)
            .doc("responses or reports dropped: their forward route has no hop left"),
    )
    .reg(
        Register::counter("reports_sent", 0x13, NMA_COUNTER_BITS)
            .doc("fault reports sent"),
    )
    .reg(
        Register::counter("error_responses", 0x14, NMA_COUNTER_BITS)
            .doc("error responses sent (register or EEPROM family)"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_chips_maps_are_valid() {
        for chip in [DestType::Nic, DestType::Nrc] {
            nma_map(chip, NMA_FAULTS).validate().unwrap();
        }
        assert!(NmaFault::ALL.iter().all(|f| f.bit() < NMA_CHIP_FAULT_BASE));
    }
}
