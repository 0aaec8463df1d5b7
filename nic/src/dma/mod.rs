//! The NIC's DMA core joined (`NicCore`, the emitted top `nic_core`), the steering of its
//! outgoing packets onto the network channel (`NetworkSend`), and the whole chip with its
//! link port and management agent (`NicTop`, the emitted top `nic_top`).
pub mod network_send;
pub mod nic_core;
pub mod nic_top;

pub use network_send::NetworkSend;
pub use nic_core::{CorePulse, NicCore, NicSettings, CORE_PULSES};
pub use nic_top::{NicTop, NicTopParams};
