//! Rust reference models of the hardware blocks, cycle-accurate at their ports where the
//! benches compare cycle by cycle, transaction-level elsewhere.
pub mod fifo;
pub mod stream;
