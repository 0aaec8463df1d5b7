//! Shared hardware of hpcnet: the stream interface, FIFOs, skid buffers, arbiters, CRC
//! generators, width converters, credit counters, the router channel (`channel`), bit helpers
//! (`bits`), register maps
//! (`regmap`), the network flit and fabric packet formats,
//! and the machinery that emits Verilog with a unique module name per top.
#![allow(clippy::needless_range_loop)]

pub mod arb;
pub mod bits;
pub mod channel;
pub mod channel_receiver;
pub mod channel_sender;
pub mod crc;
pub mod credit_counter;
pub mod emit;
pub mod fifo;
pub mod flit_decoder;
pub mod formats;
pub mod lfsr;
pub mod link_port;
pub mod link_watchdog;
pub mod llp;
pub mod mgmt;
pub mod params;
pub mod prelude;
pub mod regmap;
pub mod skid_buffer;
pub mod stream;
pub mod tops;
pub mod vc_policy;
pub mod width;
