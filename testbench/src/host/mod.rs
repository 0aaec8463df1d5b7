//! Rust models of the NIC's host side, reusable by every NIC bench (`docs/host-interface.md`):
//! - [`memory`]: host memory behind the read and write ports: latency, completions split at
//!   64-byte boundaries and reordered across tags, the tag limit and every request and write
//!   rule enforced (a broken rule fails the bench);
//! - [`mmio`]: the host's MMIO port (the driver's accesses issued with random idle, read
//!   completions paired with their reads in order);
//! - [`driver`]: the driver side: rings, keys, descriptors and doorbells, events read back by
//!   phase, interrupts counted, every register offset taken from the NIC's maps.
pub mod driver;
pub mod memory;
pub mod mmio;

pub use driver::{DriverModel, QpDriver, RingDriver};
pub use memory::{HostMemory, MemoryConfig, SparseMemory};
pub use mmio::{MmioAccess, MmioCompletion, MmioHost};
