//! The network management agent (NMA) and its units.
pub mod eep_access;
pub mod i2c_master;
