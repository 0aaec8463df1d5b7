//! The NIC's emitted artefacts, beside the `hdl` and `nrc` ones (`hpcnet emit`, see
//! `src/emit.rs`): the management agent's NIC wrapper, and the register map (C header and
//! Markdown reference) that drivers and management software are written against.
use crate::nic_mgmt::NicMgmt;
use hdl::params::Config;
use hdl::tops::{emit, Emitted};

/// Entries a NIC's configuration image may hold: its settings (a NIC has no routing table).
pub const MAX_IMAGE_ENTRIES: usize = 64;

/// Every `nic` top of `cfg`, in emission order.
pub fn tops(cfg: &Config) -> Result<Vec<Emitted>, String> {
    Ok(vec![emit(
        NicMgmt::new(hdl::tops::nma_params(cfg, MAX_IMAGE_ENTRIES)),
        "nic_mgmt",
        "the NIC's management agent: the agent design the router shares (core, I2C EEPROM, configuration loader, its register block) with one network port and the NIC's registers (verilog-out/nic.md)",
    )?])
}

/// The NIC's register maps for `cfg`.
pub fn regmaps(_cfg: &Config) -> Result<Vec<hdl::regmap::RegMap>, String> {
    Ok(vec![crate::regs::nic_map(hdl::mgmt::regs::NMA_FAULTS)?])
}
