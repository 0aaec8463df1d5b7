//! Shared hardware of hpcnet: the stream interface, FIFOs, skid buffers, arbiters, CRC
//! generators, width converters, credit counters, the network flit and fabric packet formats,
//! and the machinery that emits Verilog with a unique module name per top.
#![allow(clippy::needless_range_loop)]

pub mod emit;
pub mod fifo;
pub mod prelude;
pub mod skid_buffer;
pub mod stream;
