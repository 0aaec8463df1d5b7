//! `hpcnet lint`, `hpcnet synth` and `hpcnet fpga`: the open-source checks over every emitted
//! top, and the board bitstreams.
use anyhow::{bail, Context, Result};
use flow::{SynthOptions, Target};
use fpga::tops::Board;
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
    let tops = emitted_tops(dir)?;
    // Verilator lints on one thread: two at a time, one per core of the CI machine (one after
    // the other the 50 tops took 73 s).
    let next = std::sync::Mutex::new(tops.iter());
    let reports: std::sync::Mutex<Vec<(String, Result<flow::LintReport>)>> = Default::default();
    std::thread::scope(|s| {
        for _ in 0..TOOL_THREADS {
            s.spawn(|| loop {
                let Some((top, path)) = next.lock().unwrap().next() else {
                    return;
                };
                let r = flow::lint_unchecked(&[path], top, &work.join(top), &Default::default());
                reports.lock().unwrap().push((top.clone(), r));
            });
        }
    });
    let mut reports = reports.into_inner().unwrap();
    reports.sort_by(|a, b| a.0.cmp(&b.0));
    let mut bad = vec![];
    println!("{:<24} {:>8} {:>8}", "top", "findings", "seconds");
    for (top, r) in reports {
        let r = r?;
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
            "lint findings (waivers: {}):\n{}",
            flow::waiver_file().display(),
            bad.join("\n")
        );
    }
    println!(
        "lint: every top clean under {}",
        flow::waiver_file().display()
    );
    Ok(())
}

/// Whole chips and the router core: on the iCE40 (which they do not fit, by several times) only
/// the generic pass with its latch and `check -assert` checks runs; their part figures come
/// from `make bench` (`bench -- nrc-top`: `nrc_top` placed on the ECP5, the 6-VC core mapped
/// to iCE40 cells). Mapping `nrc_top` to iCE40 cells had not finished after 23.5 minutes on the
/// loaded machine, for a figure nobody can use; the generic pass takes 28 s. Mapping `nrc_core`
/// (about 15,000 LUT4s, twice the HX8K) took 279 s of `make test`'s 25-minute budget. The
/// NIC's DMA core `nic_core` maps to 23,788 LUT4s, 10,969 FFs and 78 BRAMs (three HX8Ks) in
/// 178 s; each of its parts is a top of its own that is mapped here, and `nic_top` is that
/// core with a link port and the management agent.
const WHOLE_CHIPS: &[&str] = &["nrc_top", "nrc_core", "nic_core", "nic_top"];

/// Tops the ECP5 flow's WebAssembly Yosys cannot map: `synth_ecp5` exhausts its call stack
/// in the XAiger pass on the NIC's DMA core and chip ("wasm trap: call stack exhausted", with
/// `-noabc9` too; measured 2026-11-28). Only the generic pass runs for them on the ECP5 here
/// (9 s and 13 s). Debian's native Yosys maps them (`flow::SynthOptions::native_yosys`), and
/// `make bench` does so (`bench nic-top`: `nic_top` placed, its figures in
/// docs/nic-design.md), but it takes minutes per top where the generic pass takes seconds
/// (`synth_ecp5` alone: `nic_top` 4 min 11 s, `nic_core` 5 min 50 s on the shared machine;
/// `nic_top`'s block synthesis in the bench, generic pass included, 6 min 19 s), which would
/// make `hpcnet synth --target ecp5` (`make synth`) minutes longer for figures the bench
/// already gives.
const ECP5_STACK_LIMITED: &[&str] = &["nic_core", "nic_top"];

/// Yosys and Verilator's lint run one thread per process: `synth` and `lint` keep this many
/// running, one per core of the CI machine (sequential, `make test`'s synthesis took 450 s of
/// its 25-minute budget).
const TOOL_THREADS: usize = 2;

/// Synthesizes every top in `dir` for `target` (generic with latch check, then the part's own
/// synthesis, except for [`WHOLE_CHIPS`] on the iCE40 and [`ECP5_STACK_LIMITED`] on the ECP5)
/// on [`TOOL_THREADS`] threads, largest Verilog first so the long ones do not end the run
/// alone; prints a table in name order. A top whose Verilog passed before with the same Yosys
/// and options is not synthesized again: its row is the stored result, marked `(cached)`
/// ([`flow::synth_cache`]; `HPCNET_SYNTH_CACHE=off` runs every top).
pub fn synth(dir: &Path, work: &Path, target: Target) -> Result<()> {
    println!("synthesis for {}", target.part());
    let tops = emitted_tops(dir)?;
    let mut order: Vec<usize> = (0..tops.len()).collect();
    let size = |i: &usize| std::fs::metadata(&tops[*i].1).map_or(0, |m| m.len());
    order.sort_by_key(|i| std::cmp::Reverse(size(i)));
    let next = std::sync::Mutex::new(order.into_iter());
    let rows: std::sync::Mutex<Vec<Option<Result<String>>>> =
        std::sync::Mutex::new((0..tops.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..TOOL_THREADS {
            s.spawn(|| loop {
                let Some(i) = next.lock().unwrap().next() else {
                    return;
                };
                let (top, path) = &tops[i];
                let row = synth_row(top, path, work, target);
                let failed = row.is_err();
                rows.lock().unwrap()[i] = Some(row);
                if failed {
                    // Stop taking tops: the first failure is the answer.
                    next.lock().unwrap().by_ref().for_each(drop);
                }
            });
        }
    });
    println!(
        "{:<24} {:>6} {:>6} {:>5} {:>6} {:>8}",
        "top", "LUTs", "FFs", "BRAM", "CARRY", "seconds"
    );
    let mut cached = 0;
    for row in rows.into_inner().unwrap().into_iter().flatten() {
        let row = row?;
        cached += row.contains("(cached)") as usize;
        println!("{row}");
    }
    if cached > 0 {
        println!(
            "{cached} of {} tops passed before with this Verilog and Yosys: their rows are the stored results (HPCNET_SYNTH_CACHE=off runs them)",
            tops.len()
        );
    }
    let capacity = match target {
        Target::Ice40 => "iCE40-HX8K has 7,680 LUTs and 32 BRAMs",
        Target::Ecp5(_) => "LFE5U-85F has 83,640 LUTs and 208 BRAMs",
    };
    println!(
        "synth: generic synthesis without latches and {} passed for every top ({capacity})",
        target.synth_command("T").split(' ').next().unwrap_or("")
    );
    Ok(())
}

/// Synthesizes one top for `target` and returns its table row.
fn synth_row(top: &str, path: &Path, work: &Path, target: Target) -> Result<String> {
    let options = SynthOptions::for_target(target);
    let chip_on_ice40 = target == Target::Ice40 && WHOLE_CHIPS.contains(&top);
    let stack_limited = matches!(target, Target::Ecp5(_)) && ECP5_STACK_LIMITED.contains(&top);
    let options = SynthOptions {
        map_to_target: options.map_to_target && !chip_on_ice40 && !stack_limited,
        ..options
    };
    let (r, cached) =
        flow::synth_cached(&[path], top, &work.join(target.name()).join(top), &options)
            .with_context(|| format!("synthesis of {top} for {}", target.part()))?;
    let seconds = r.elapsed.as_secs_f64();
    let cached = if cached { " (cached)" } else { "" };
    Ok(if chip_on_ice40 {
        format!("{top:<24} larger than the part: generic checks only ({seconds:.1} s{cached}); its cost: make bench")
    } else if stack_limited {
        format!("{top:<24} generic checks only ({seconds:.1} s{cached}): too deep for the WebAssembly Yosys's stack (the chip on the ECP5: bench nic-top)")
    } else {
        format!(
            "{:<24} {:>6} {:>6} {:>5} {:>6} {:>8.1}{cached}",
            top, r.luts, r.ffs, r.brams, r.carries, seconds
        )
    })
}

/// Builds the bitstream of `board`'s demo top for `cfg` in `work`, failing if timing is missed;
/// prints its cost.
pub fn fpga(cfg: &hdl::params::Config, cfg_name: &str, board: Board, work: &Path) -> Result<()> {
    let bt = fpga::tops::demo(cfg, board).map_err(anyhow::Error::msg)?;
    let target = board.target();
    let top = &bt.top;
    let work = work.join(&top.name);
    std::fs::create_dir_all(&work).with_context(|| format!("cannot create {}", work.display()))?;
    let v = work.join(format!("{}.v", top.name));
    let pins = work.join(format!("{}.{}", top.name, target.constraint_extension()));
    let text = format!("{}{}", crate::emit::header(cfg, cfg_name, top), top.verilog);
    std::fs::write(&v, text).with_context(|| format!("cannot write {}", v.display()))?;
    std::fs::write(&pins, &bt.constraints)
        .with_context(|| format!("cannot write {}", pins.display()))?;
    let freq = board.clock_mhz(cfg) as f64;
    let options = flow::PlaceOptions {
        constraints: Some(pins),
        freq_mhz: freq,
        require_timing: true,
        ..flow::PlaceOptions::for_target(target)
    };
    let b = flow::bitstream_with(&[&v], &top.name, &work, &options)
        .with_context(|| format!("bitstream of {} at {freq} MHz", top.name))?;
    let r = &b.pnr;
    println!("| top | part | logic cells | LUTs | FFs | BRAMs | IOs | Fmax MHz | target MHz | bitstream |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    println!(
        "| {} | {} | {}/{} | {} | {} | {}/{} | {} | {:.1} | {freq} | {} ({} bytes) |",
        top.name,
        target.part(),
        r.lcs.used,
        r.lcs.available,
        r.synth.luts,
        r.synth.ffs,
        r.brams.used,
        r.brams.available,
        r.ios.used,
        r.fmax_mhz().unwrap_or(f64::NAN),
        b.file.display(),
        b.bytes
    );
    Ok(())
}
