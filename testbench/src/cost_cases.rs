//! The building blocks `make bench` measures, each at the parameters of its reference design
//! in `flow/bench/reference.toml`.
use hdl::tops::{emit, Emitted};
use rust_hdl::prelude::Bits;

/// One block to measure.
pub struct CostCase {
    /// Row label.
    pub label: &'static str,
    /// Name of the reference entry it is compared with.
    pub reference: &'static str,
    /// Emits the block.
    pub make: fn() -> Result<Emitted, String>,
}

/// Every measured block.
pub fn cases() -> Vec<CostCase> {
    vec![
        CostCase {
            label: "StreamFifo 32x32 (BRAM)",
            reference: "axis_fifo_d32_w32",
            make: || {
                emit(
                    <hdl::stream_fifo!(Bits<32>, 32)>::new(),
                    "bench_stream_fifo32x32",
                    "32-deep 32-bit stream FIFO",
                )
            },
        },
        CostCase {
            label: "ParallelCrc CRC-32 x 64",
            reference: "crc32_d64",
            make: || {
                emit(
                    hdl::crc::Crc32x64::new(&hdl::crc::CRC32),
                    "bench_crc32x64",
                    "CRC-32 over 64-bit words",
                )
            },
        },
        CostCase {
            label: "RrArbiter<8>",
            reference: "arbiter_rr8",
            make: || {
                emit(
                    hdl::arb::RrArbiter::<8, 3>::new(false),
                    "bench_rr_arbiter8",
                    "8-way round-robin arbiter",
                )
            },
        },
        CostCase {
            label: "StreamMux<Bits<64>, 4> hold",
            reference: "axis_arb_mux_s4_w64",
            make: || {
                emit(
                    hdl::arb::StreamMux::<Bits<64>, 4, 2>::new(true),
                    "bench_stream_mux4x64",
                    "4-input 64-bit arbitrated stream mux, packets kept whole",
                )
            },
        },
    ]
}
