//! Everything a block or bench of hpcnet usually needs, in one `use`.
pub use crate::arb::{index_width, FpArbiter, RrArbiter, StreamMux};
pub use crate::bits::{clog2, count_bits, index_bits, popcount, EventCounter, PopCount};
pub use crate::crc::{
    CrcDigest, CrcMatrix, CrcSpec, CrcStep, CrcTable, ParallelCrc, CRC14, CRC16, CRC32, CRC8,
};
pub use crate::credit_counter::CreditCounter;
pub use crate::emit::{emit_verilog, top_ports, PortDir, PortInfo};
pub use crate::fifo::{
    fifo_count_bits, fifo_ptr_bits, BramFifo, FifoKind, RegFifo, StreamFifo, REG_FIFO_MAX_DEPTH,
};
pub use crate::flit_decoder::FlitDecoder;
pub use crate::lfsr::Lfsr32;
pub use crate::llp::deframer::LtpDeframer;
pub use crate::llp::ltp_striper::LtpStriper;
pub use crate::skid_buffer::SkidBuffer;
pub use crate::stream::{StreamSink, StreamSource};
pub use crate::width::{chunk_index_bits, chunks, Downsizer, Upsizer};
pub use crate::{bram_fifo, reg_fifo, stream_fifo};
pub use crate::{commit_store, llp::commit_store::CommitStore};
pub use crate::{llp::packet_buffer::PacketBuffer, packet_buffer};
pub use crate::{llp::rx_delivery::RxDelivery, rx_delivery};
pub use rust_hdl::prelude::*;
