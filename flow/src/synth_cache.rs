//! Synthesis results that passed, kept machine-wide so that the same Verilog is not
//! synthesized again: `hpcnet synth` (in `make test`) and the configuration test map some
//! fifty tops, about ten minutes of Yosys on the two-core CI machine, and a change to one block
//! leaves most tops' Verilog as it was. This is what the Verilator model cache of `testbench`
//! does for simulation models.
//!
//! An entry is keyed by an [`Fnv128`] over everything the verdict depends on: [`FORMAT`] (the
//! checks this crate applies to Yosys's output), the Yosys that runs (its `-V` line: another
//! version is another key), the script (the options, the top, the commands), and the bytes of
//! every source. Only a passing run is stored, so a failure is always Yosys's own, this run.
//! An entry is a small JSON file (`<cache>/synth/<key>.json`, [`crate::cache_dir`]) with the
//! report's figures and the run's wall time; it is written to a temporary name and renamed, so
//! a reader never sees half of one. Entries are about 2 kB and are not swept.
//!
//! `HPCNET_SYNTH_CACHE=off` runs Yosys every time (and still stores what passes), for timing
//! the runs themselves.
//!
//! A hit reports the stored figures and time, and writes no netlist, log or script: callers
//! that place the netlist ([`crate::place_netlist`]) synthesize with [`crate::synth_with`].
use crate::fnv::Fnv128;
use crate::synth::{script, synth_with, CellCounts, SynthOptions, SynthReport};
use crate::tools::{self, Tool};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// Version of what a stored verdict means: bump it when the checks made on Yosys's output (the
/// latch rule, the `stat` parsing) change, so no entry made under the old checks is reused.
pub const FORMAT: &str = "hpcnet synth cache 1";

/// What is kept of a passing run.
#[derive(Serialize, Deserialize)]
struct Entry {
    cells: BTreeMap<String, u64>,
    generic: Option<BTreeMap<String, u64>>,
    warnings: Vec<String>,
    seconds: f64,
}

/// [`synth_with`], or its stored result when the same sources, top, options and Yosys passed
/// before on this machine; the flag says which (true: from the cache).
pub fn synth_cached<P: AsRef<Path>>(
    sources: &[P],
    top: &str,
    work: &Path,
    options: &SynthOptions,
) -> Result<(SynthReport, bool)> {
    synth_cached_in(&crate::cache_dir(), sources, top, work, options)
}

/// [`synth_cached`] with the cache under `cache` (`<cache>/synth/`).
pub fn synth_cached_in<P: AsRef<Path>>(
    cache: &Path,
    sources: &[P],
    top: &str,
    work: &Path,
    options: &SynthOptions,
) -> Result<(SynthReport, bool)> {
    let dir = cache.join("synth");
    let key = key(sources, top, options)?;
    let file = dir.join(format!("{key:032x}.json"));
    let consult = std::env::var("HPCNET_SYNTH_CACHE").map_or(true, |v| v != "off");
    if let Some(entry) = consult
        .then(|| std::fs::read_to_string(&file).ok())
        .flatten()
        .and_then(|text| serde_json::from_str::<Entry>(&text).ok())
    {
        return Ok((report(top, work, options, entry), true));
    }
    let report = synth_with(sources, top, work, options)?;
    let entry = Entry {
        cells: report.cells.0.clone(),
        generic: report.generic.as_ref().map(|g| g.0.clone()),
        warnings: report.warnings.clone(),
        seconds: report.elapsed.as_secs_f64(),
    };
    // A cache that cannot be written costs time, never a verdict: the run itself passed.
    let _ = store(&dir, &file, &entry);
    Ok((report, false))
}

/// The cache key of a synthesis run.
fn key<P: AsRef<Path>>(sources: &[P], top: &str, options: &SynthOptions) -> Result<u128> {
    let mut h = Fnv128::new()
        .part(FORMAT.as_bytes())
        .part(yosys_identity(options.yosys())?.as_bytes())
        .part(script("<sources>", top, options)?.as_bytes())
        .part(format!("{options:?}").as_bytes());
    for s in tools::existing_sources(sources)? {
        let bytes = std::fs::read(&s).with_context(|| format!("cannot read {}", s.display()))?;
        h = h.part(&bytes);
    }
    Ok(h.finish())
}

/// `yosys -V` of `tool`, asked once per process.
fn yosys_identity(tool: Tool) -> Result<String> {
    static SEEN: OnceLock<Mutex<HashMap<&'static str, String>>> = OnceLock::new();
    let seen = SEEN.get_or_init(Default::default);
    if let Some(v) = seen.lock().unwrap().get(tool.program()) {
        return Ok(v.clone());
    }
    let v = tools::version_of(tool, "-V")?;
    seen.lock().unwrap().insert(tool.program(), v.clone());
    Ok(v)
}

fn store(dir: &Path, file: &Path, entry: &Entry) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        "tmp-{}-{:?}.json",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::write(&tmp, serde_json::to_string(entry)?)?;
    std::fs::rename(&tmp, file)?;
    Ok(())
}

/// The report of a cached run: its figures, and the paths a run in `work` would have written.
fn report(top: &str, work: &Path, options: &SynthOptions, entry: Entry) -> SynthReport {
    let cells = CellCounts(entry.cells);
    SynthReport {
        top: top.to_string(),
        target: options.target,
        luts: cells.luts(),
        ffs: cells.ffs(),
        brams: cells.brams(),
        carries: cells.carries(),
        cells,
        generic: entry.generic.map(CellCounts),
        warnings: entry.warnings,
        netlist: work.join(format!("{top}.json")),
        script: work.join("synth.ys"),
        log: work.join("synth.log"),
        elapsed: Duration::from_secs_f64(entry.seconds),
    }
}
