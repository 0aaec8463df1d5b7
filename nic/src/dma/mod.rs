//! The NIC's DMA core joined (`NicCore`, the emitted top `nic_core`) and the steering of its
//! outgoing packets onto the network channel (`NetworkSend`).
pub mod network_send;
pub mod nic_core;

pub use network_send::NetworkSend;
pub use nic_core::{CorePulse, NicCore, NicSettings, CORE_PULSES};
