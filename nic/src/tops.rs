//! The NIC's emitted artefacts. No hardware top yet; its register map is emitted (C header and
//! Markdown reference) so that drivers and management software are written against it.
use hdl::params::Config;

/// The NIC's register maps for `cfg`.
pub fn regmaps(_cfg: &Config) -> Result<Vec<hdl::regmap::RegMap>, String> {
    Ok(vec![crate::regs::nic_map(hdl::mgmt::regs::NMA_FAULTS)?])
}
