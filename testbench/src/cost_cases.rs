//! The building blocks `make bench` measures, each at the parameters of its reference design
//! in `flow/bench/reference.toml`, on both parts ([`report`]).
use anyhow::Result;
use flow::{MeasureOptions, SynthOptions, Target};
use hdl::tops::{emit, Emitted};
use rust_hdl::prelude::Bits;
use std::path::Path;

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

/// Measures every case on the iCE40-HX8K and the ECP5-85k (block alone for LUT/FF/BRAM, median
/// Fmax of 5 placer seeds on the register-to-register harness) and prints one table per part,
/// each row against the reference's figures on the same part.
pub fn report(work: &Path) -> Result<()> {
    let refs = flow::reference::load(&flow::reference::default_path())?;
    for target in Target::ALL {
        println!(
            "\n## {} cost of building blocks (flow::measure_block: block alone for LUT/FF/BRAM, median Fmax of 5 placer seeds on a register-to-register harness)\n",
            target.part()
        );
        println!(
            "{:<28} {:>5} {:>5} {:>4} {:>6} {:>7} | {:<22} {:>5} {:>6} {:>7} | {:>6} {:>6} goal (<=1.2x LUT, >=0.9x Fmax)",
            "block", "LUTs", "FFs", "BRAM", "LUTRAM", "Fmax", "reference", "LUTs", "LUTRAM", "Fmax", "LUT x", "Fmax x",
        );
        let options = MeasureOptions {
            synth: SynthOptions::for_target(target),
            ..MeasureOptions::default()
        };
        for case in cases() {
            let top = (case.make)().map_err(anyhow::Error::msg)?;
            let dir = work.join(target.name()).join(&top.name);
            std::fs::create_dir_all(&dir)?;
            let file = dir.join(format!("{}.v", top.name));
            std::fs::write(&file, &top.verilog)?;
            let c = flow::measure_block_with(&[&file], &top.name, &dir, &options)?;
            let r = refs.get(case.reference).ok_or_else(|| {
                anyhow::anyhow!(
                    "no reference {} in flow/bench/reference.toml",
                    case.reference
                )
            })?;
            let (ref_luts, ref_lutrams, ref_fmax, ratios) =
                match (r.figures(target), flow::reference::compare(&c, r, target)) {
                    (Some(f), Some(cmp)) => (
                        f.luts.to_string(),
                        f.lutrams.to_string(),
                        format!("{:.1}", f.fmax_mhz),
                        format!(
                            "{:>6.2} {:>6.2} {}",
                            cmp.lut_ratio,
                            cmp.fmax_ratio,
                            if cmp.meets_goal() { "met" } else { "MISSED" }
                        ),
                    ),
                    _ => (
                        "-".into(),
                        "-".into(),
                        "-".into(),
                        "(reference not measured on this part)".into(),
                    ),
                };
            println!(
                "{:<28} {:>5} {:>5} {:>4} {:>6} {:>7.1} | {:<22} {:>5} {:>6} {:>7} | {}",
                case.label,
                c.luts,
                c.ffs,
                c.brams,
                c.lutrams,
                c.fmax_mhz,
                r.name,
                ref_luts,
                ref_lutrams,
                ref_fmax,
                ratios
            );
        }
    }
    Ok(())
}
