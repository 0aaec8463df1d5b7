//! `make bench`: simulation speed of one bench on both backends, the iCE40-HX8K cost of the
//! building blocks against the reference designs in `bench/reference.toml`, the link
//! layer's goodput, latencies and endpoint cost ([`testbench::link_perf`]), and the register
//! file's latency and cost on iCE40 and ECP5 ([`testbench::regfile_perf`]).
//!
//! Usage: `bench [speed|cost|link|link-sim|link-cost|regfile]...` (all when none; `link` is
//! `link-sim`, the simulated link tables, plus `link-cost`, the endpoint's placement, which
//! takes minutes). Prints tables; measures, never asserts.
use anyhow::Result;
use std::path::{Path, PathBuf};
use testbench::speed;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn cost() -> Result<()> {
    let root = workspace();
    let refs = flow::reference::load(&flow::reference::default_path())?;
    let work = root.join("build/bench");
    println!("\n## iCE40-HX8K cost of building blocks (flow::measure_block: block alone for LUT/FF/BRAM, median Fmax of 5 placer seeds on a register-to-register harness)\n");
    println!(
        "{:<28} {:>5} {:>5} {:>4} {:>7} | {:<22} {:>5} {:>7} | {:>6} {:>6} goal (<=1.2x LUT, >=0.9x Fmax)",
        "block",
        "LUTs",
        "FFs",
        "BRAM",
        "Fmax",
        "reference",
        "LUTs",
        "Fmax",
        "LUT x",
        "Fmax x",
    );
    for case in testbench::cost_cases::cases() {
        let top = (case.make)().map_err(anyhow::Error::msg)?;
        let dir = work.join(&top.name);
        std::fs::create_dir_all(&dir)?;
        let file = dir.join(format!("{}.v", top.name));
        std::fs::write(&file, &top.verilog)?;
        let c = flow::measure_block(&file, &top.name, &dir)?;
        let r = refs.get(case.reference).ok_or_else(|| {
            anyhow::anyhow!("no reference {} in bench/reference.toml", case.reference)
        })?;
        let cmp = flow::reference::compare(&c, r);
        println!(
            "{:<28} {:>5} {:>5} {:>4} {:>7.1} | {:<22} {:>5} {:>7.1} | {:>6.2} {:>6.2} {}",
            case.label,
            c.luts,
            c.ffs,
            c.brams,
            c.fmax_mhz,
            r.name,
            r.luts,
            r.fmax_mhz,
            cmp.lut_ratio,
            cmp.fmax_ratio,
            if cmp.meets_goal() { "met" } else { "MISSED" }
        );
    }
    Ok(())
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let all = args.is_empty();
    if all || args.iter().any(|a| a == "speed") {
        speed::report()?;
    }
    if all || args.iter().any(|a| a == "cost") {
        cost()?;
    }
    let has = |a: &str| args.iter().any(|x| x == a);
    let (sim, cost) = (
        all || has("link") || has("link-sim"),
        all || has("link") || has("link-cost"),
    );
    if sim || cost {
        testbench::link_perf::report(&workspace().join("build/bench"), sim, cost)?;
    }
    if all || has("regfile") {
        testbench::regfile_perf::report(&workspace().join("build/bench/regfile"))?;
    }
    Ok(())
}
