//! Register maps, defined once as Rust data, and everything made from them.
//!
//! A [`RegMap`] lists registers ([`Register`]: name, address, width, [`Access`] kind, reset
//! value, meaning, fields). From one map come:
//! - the hardware: a [`RegFile`] (request/response ports of [`port`], a one-hot decode, the
//!   registers of each kind, a [`CounterBank`] of saturating counters, a balanced [`ReadMux`]),
//!   answering a read in two cycles;
//! - the C header ([`c_header()`]) and the Markdown reference ([`markdown()`]), written by
//!   `hpcnet emit` beside the Verilog (`verilog-out/<map>.h`, `.md`) and checked fresh by the
//!   tests, as the Verilog is;
//! - the indices of the hardware ports of each register ([`RegMap::index`]), for the Rust code
//!   that wires a block to its register file, and for benches.
//!
//! A chip's address space is assembled from its blocks' maps in an [`AddressSpace`]: each
//! block's map lives beside the block with addresses from 0, and the chip places it at a base
//! with a name prefix; overlapping or out-of-range placements are refused with a message
//! naming both registers.
//!
//! Wiring a block to its register file:
//! ```
//! use hdl::prelude::*;
//! use hdl::regmap::{Access, RegFile, RegMap, Register};
//! let map = RegMap::new("port", "one port")
//!     .reg(Register::rw("timeout", 0, 16).reset(256).doc("cycles before a retry"))
//!     .reg(Register::counter("retries", 1, 32).doc("retries made"));
//! let regs = RegFile::<4, 64>::new(&map);
//! let timeout = map.index(Access::ReadWrite, "timeout"); // regs.settings[timeout]
//! let retries = map.index(Access::Counter, "retries"); // regs.events[retries]
//! assert_eq!((timeout, retries, regs.settings.len(), regs.events.len()), (0, 0, 1, 1));
//! ```
//! and in the parent's `update`: `self.block.timeout.next = self.regs.settings[0].val()
//! .get_bits::<16>(0); self.regs.events[0].next = self.block.retried.val();`.
//!
//! One concern per file: [`map`] (the data and its checks), [`space`] (assembly), [`port`]
//! (the request/response bundles and the error codes), [`reg_file`], [`counter_bank`],
//! [`counter_ram`] (counters and peaks in a block RAM, served by a sweep),
//! [`read_mux`], [`reg_arbiter`], [`reg_split`] (hardware), [`c_header`](mod@c_header) and [`markdown`](mod@markdown)
//! (generated text), [`sample`] (the sample map that exercises all of it).
pub mod c_header;
pub mod counter_bank;
pub mod counter_ram;
pub mod map;
pub mod markdown;
pub mod port;
pub mod read_mux;
pub mod reg_arbiter;
pub mod reg_file;
pub mod reg_split;
pub mod sample;
pub mod space;

pub use c_header::{c_header, BYTES_PER_REGISTER};
pub use counter_bank::CounterBank;
pub use counter_ram::{CounterRam, CounterRamLayout};
pub use map::{Access, RegMap, Register, Slot};
pub use markdown::markdown;
pub use port::{
    RegError, RegRequestSink, RegRequestSource, RegResponseSink, RegResponseSource, ERROR_BITS,
};
pub use read_mux::ReadMux;
pub use reg_arbiter::RegArbiter;
pub use reg_file::RegFile;
pub use reg_split::RegSplit;
pub use sample::regfile_sample;
pub use space::{AddressSpace, Placed};
