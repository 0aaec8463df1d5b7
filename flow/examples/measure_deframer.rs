//! The iCE40 cost of `hdl::llp::LtpDeframer` alone, with the flow `make bench` uses.
//!
//! ```text
//! cargo run -p flow --example measure_deframer -- [work dir, default /tmp/measure_deframer]
//! ```
//!
//! Prints LUTs, flip-flops, block RAMs and the median Fmax of five nextpnr seeds (HX8K).
use anyhow::{Context, Result};
use hdl::llp::deframer::LtpDeframer;
use std::path::PathBuf;

fn main() -> Result<()> {
    let work = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "/tmp/measure_deframer".into()),
    );
    std::fs::create_dir_all(&work)?;
    let v = hdl::emit::emit_verilog(&mut LtpDeframer::new(), "ltp_deframer")
        .map_err(anyhow::Error::msg)?;
    let file = work.join("ltp_deframer.v");
    std::fs::write(&file, v).with_context(|| format!("cannot write {}", file.display()))?;
    let c = flow::measure_block(&file, "ltp_deframer", &work)?;
    println!(
        "ltp_deframer: {} LUTs, {} FFs, {} BRAMs, {} carries, {:.1} MHz (seeds {:?})",
        c.luts, c.ffs, c.brams, c.carries, c.fmax_mhz, c.fmax_runs_mhz
    );
    Ok(())
}
