//! `hpcnet lint` and `hpcnet synth`: the open-source checks over every emitted top.
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// The `.v` files of `dir`, each holding one top named after the file, sorted.
pub fn emitted_tops(dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    let mut tops = vec![];
    for e in std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}: run `make` first", dir.display()))?
    {
        let path = e?.path();
        if path.extension().is_some_and(|x| x == "v") {
            let stem = path.file_stem().unwrap().to_string_lossy().to_string();
            tops.push((stem, path));
        }
    }
    tops.sort();
    if tops.is_empty() {
        bail!("no .v files in {}: run `make` first", dir.display());
    }
    Ok(tops)
}

/// Lints every top in `dir`; fails listing every finding of every unclean top.
pub fn lint(dir: &Path, work: &Path) -> Result<()> {
    let mut bad = vec![];
    println!("{:<24} {:>8} {:>8}", "top", "findings", "seconds");
    for (top, path) in emitted_tops(dir)? {
        let r = fpga::flow::lint_unchecked(&[&path], &top, &work.join(&top), &Default::default())?;
        println!(
            "{:<24} {:>8} {:>8.2}",
            top,
            r.messages.len() + r.hazards.len(),
            r.elapsed.as_secs_f64()
        );
        if !r.is_clean() {
            bad.push(format!("{top}:\n{}", r.findings()));
        }
    }
    if !bad.is_empty() {
        bail!(
            "lint findings (waivers: lint/verilator.vlt):\n{}",
            bad.join("\n")
        );
    }
    println!(
        "lint: every top clean under {}",
        fpga::flow::waiver_file().display()
    );
    Ok(())
}

/// Synthesizes every top in `dir` (generic with latch check, and iCE40); prints a table.
pub fn synth(dir: &Path, work: &Path) -> Result<()> {
    println!(
        "{:<24} {:>6} {:>6} {:>5} {:>6} {:>8}",
        "top", "LUTs", "FFs", "BRAM", "CARRY", "seconds"
    );
    for (top, path) in emitted_tops(dir)? {
        let r = fpga::flow::synth(&path, &top, &work.join(&top))
            .with_context(|| format!("synthesis of {top}"))?;
        println!(
            "{:<24} {:>6} {:>6} {:>5} {:>6} {:>8.1}",
            top,
            r.luts,
            r.ffs,
            r.brams,
            r.carries,
            r.elapsed.as_secs_f64()
        );
    }
    println!("synth: generic synthesis without latches and synth_ice40 passed for every top (iCE40-HX8K has 7680 LUTs, 32 BRAMs)");
    Ok(())
}

/// Builds the Alchitry Cu bitstream of the demo top of `cfg` in `work`; prints its cost.
pub fn fpga(cfg: &hdl::params::Config, cfg_name: &str, work: &Path) -> Result<()> {
    let (top, pcf) = fpga::tops::demo(cfg).map_err(anyhow::Error::msg)?;
    std::fs::create_dir_all(work)?;
    let v = work.join(format!("{}.v", top.name));
    let p = work.join(format!("{}.pcf", top.name));
    std::fs::write(
        &v,
        format!(
            "{}{}",
            crate::emit::header(cfg, cfg_name, &top),
            top.verilog
        ),
    )?;
    std::fs::write(&p, &pcf)?;
    let freq = cfg.fpga.clock_mhz as f64;
    let b = fpga::flow::bitstream(&v, &top.name, &p, freq, work)
        .with_context(|| format!("bitstream of {} at {freq} MHz", top.name))?;
    let r = &b.pnr;
    println!("| top | LCs | LUTs | FFs | BRAMs | IOs | Fmax MHz | target MHz | bitstream |");
    println!("|---|---|---|---|---|---|---|---|---|");
    println!(
        "| {} | {}/{} | {} | {} | {}/{} | {} | {:.1} | {freq} | {} ({} bytes) |",
        top.name,
        r.lcs.used,
        r.lcs.available,
        r.synth.luts,
        r.synth.ffs,
        r.brams.used,
        r.brams.available,
        r.ios.used,
        r.fmax_mhz().unwrap_or(f64::NAN),
        b.bin.display(),
        b.bytes
    );
    Ok(())
}
