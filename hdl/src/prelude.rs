//! Everything a block or bench of hpcnet usually needs, in one `use`.
pub use crate::emit::{emit_verilog, top_ports, PortDir, PortInfo};
pub use crate::fifo::{
    fifo_count_bits, fifo_ptr_bits, BramFifo, FifoKind, RegFifo, StreamFifo, REG_FIFO_MAX_DEPTH,
};
pub use crate::skid_buffer::SkidBuffer;
pub use crate::stream::{StreamSink, StreamSource};
pub use crate::{bram_fifo, reg_fifo, stream_fifo};
pub use rust_hdl::prelude::*;
