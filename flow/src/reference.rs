//! Reference figures: the iCE40 and ECP5 cost of the best open-source Verilog equivalents of
//! hpcnet's building blocks, measured with the same flow ([`crate::measure_block_with`]) and
//! committed in `flow/bench/reference.toml` (the iCE40 figures at the top level of each entry,
//! the ECP5 ones in its `ecp5` table).
//!
//! The project's goal for a building block is at most [`LUT_RATIO_MAX`] times the reference's
//! LUTs and at least [`FMAX_RATIO_MIN`] times its Fmax at the same parameters; [`compare`]
//! computes both ratios. Third-party sources are never committed: each entry names the
//! repository, path and commit it was read from, and a measurement wrapper of ours (in
//! `bench/wrappers/`, literal widths, parameters set) that instantiates it.
use crate::{BlockCost, Target};
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// At most this many times the reference's LUTs.
pub const LUT_RATIO_MAX: f64 = 1.2;
/// At least this fraction of the reference's Fmax.
pub const FMAX_RATIO_MIN: f64 = 0.9;

/// One third-party file a reference was built from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SourceFile {
    /// GitHub `owner/name`.
    pub repo: String,
    /// Path in the repository.
    pub path: String,
    /// Commit the text was read at (40 hex digits).
    pub commit: String,
}

/// Figures of one reference configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReferenceEntry {
    /// Short name (`axis_fifo_d32_w32`).
    pub name: String,
    /// What it is and what hpcnet block it stands for.
    pub what: String,
    /// Our wrapper, relative to this crate's directory.
    pub wrapper: String,
    /// Top module measured (the wrapper's).
    pub top: String,
    /// Parameters of the reference module, as written in the wrapper.
    pub parameters: BTreeMap<String, String>,
    /// `SB_LUT4`.
    pub luts: u64,
    /// `SB_DFF*`.
    pub ffs: u64,
    /// `SB_RAM40_4K`.
    pub brams: u64,
    /// `SB_CARRY`.
    pub carries: u64,
    /// Median Fmax over the seeds, MHz.
    pub fmax_mhz: f64,
    /// Fmax per seed, MHz.
    pub fmax_runs_mhz: Vec<f64>,
    /// Logic cells of the placed harness (block plus harness).
    pub placed_lcs: u64,
    /// nextpnr target used while measuring, MHz.
    pub freq_target_mhz: f64,
    /// Placer seeds.
    pub seeds: Vec<u64>,
    /// Tool versions.
    pub flow_version: String,
    /// Measurement date (UTC, YYYY-MM-DD).
    pub date: String,
    /// Command that produced the figures.
    pub command: String,
    /// Remarks (differences in behaviour that matter when comparing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// Third-party files, in the order they were read.
    pub source: Vec<SourceFile>,
    /// The same block measured on the ECP5-85k (ULX3S package), when it has been.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecp5: Option<Figures>,
}

/// The measured figures of one reference on one part.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    /// LUT4s.
    pub luts: u64,
    /// Flip-flops.
    pub ffs: u64,
    /// Block RAMs.
    pub brams: u64,
    /// Carry cells.
    pub carries: u64,
    /// ECP5 distributed-RAM cells (`TRELLIS_DPR16X4`); zero on the iCE40.
    #[serde(default)]
    pub lutrams: u64,
    /// Median Fmax over the seeds, MHz.
    pub fmax_mhz: f64,
    /// Fmax per seed, MHz.
    pub fmax_runs_mhz: Vec<f64>,
    /// Logic cells of the placed harness (block plus harness).
    pub placed_lcs: u64,
    /// nextpnr target used while measuring, MHz.
    pub freq_target_mhz: f64,
    /// Placer seeds.
    pub seeds: Vec<u64>,
    /// Tool versions.
    pub flow_version: String,
    /// Measurement date (UTC, YYYY-MM-DD).
    pub date: String,
    /// Command that produced the figures.
    pub command: String,
}

impl ReferenceEntry {
    /// The figures on `target`: the entry's own for the iCE40, its `ecp5` table for the ECP5.
    pub fn figures(&self, target: Target) -> Option<Figures> {
        match target {
            Target::Ice40 => Some(Figures {
                luts: self.luts,
                ffs: self.ffs,
                brams: self.brams,
                carries: self.carries,
                lutrams: 0,
                fmax_mhz: self.fmax_mhz,
                fmax_runs_mhz: self.fmax_runs_mhz.clone(),
                placed_lcs: self.placed_lcs,
                freq_target_mhz: self.freq_target_mhz,
                seeds: self.seeds.clone(),
                flow_version: self.flow_version.clone(),
                date: self.date.clone(),
                command: self.command.clone(),
            }),
            Target::Ecp5(_) => self.ecp5.clone(),
        }
    }
}

/// A reference that could not be measured with this flow, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Unmeasured {
    /// Name.
    pub name: String,
    /// Files tried.
    pub source: Vec<SourceFile>,
    /// Why not.
    pub reason: String,
}

/// The whole `bench/reference.toml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReferenceTable {
    /// Measured references.
    #[serde(rename = "entry")]
    pub entries: Vec<ReferenceEntry>,
    /// References that could not be measured.
    #[serde(default, rename = "unmeasured", skip_serializing_if = "Vec::is_empty")]
    pub unmeasured: Vec<Unmeasured>,
}

impl ReferenceTable {
    /// The entry called `name`.
    pub fn get(&self, name: &str) -> Option<&ReferenceEntry> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// Checks the table's consistency (names unique, figures positive, commits well formed).
    pub fn validate(&self) -> Result<()> {
        let mut names = std::collections::BTreeSet::new();
        for e in &self.entries {
            if !names.insert(e.name.as_str()) {
                bail!("duplicate reference {}", e.name);
            }
            if e.luts == 0 || e.fmax_mhz.is_nan() || e.fmax_mhz <= 0.0 {
                bail!("reference {} has no LUTs or no Fmax", e.name);
            }
            if e.fmax_runs_mhz.len() != e.seeds.len() {
                bail!("reference {}: one Fmax per seed expected", e.name);
            }
            if e.source.is_empty() {
                bail!("reference {} names no source", e.name);
            }
            if let Some(f) = &e.ecp5 {
                if f.luts == 0 || f.fmax_mhz.is_nan() || f.fmax_mhz <= 0.0 {
                    bail!("reference {} has no ECP5 LUTs or no ECP5 Fmax", e.name);
                }
                if f.fmax_runs_mhz.len() != f.seeds.len() {
                    bail!("reference {}: one ECP5 Fmax per seed expected", e.name);
                }
            }
            for s in e.source.iter() {
                check_commit(&s.commit).with_context(|| format!("reference {}", e.name))?;
            }
            if e.date.len() != 10 || e.date.as_bytes()[4] != b'-' || e.date.as_bytes()[7] != b'-' {
                bail!("reference {}: date {} is not YYYY-MM-DD", e.name, e.date);
            }
        }
        for u in &self.unmeasured {
            for s in &u.source {
                check_commit(&s.commit).with_context(|| format!("unmeasured {}", u.name))?;
            }
        }
        Ok(())
    }
}

fn check_commit(c: &str) -> Result<()> {
    if c.len() != 40 || !c.chars().all(|c| c.is_ascii_hexdigit()) {
        bail!("commit {c} is not 40 hex digits");
    }
    Ok(())
}

/// `bench/reference.toml` of this crate.
pub fn default_path() -> PathBuf {
    crate_root().join("bench/reference.toml")
}

/// This crate's directory, against which the table's wrapper paths are written.
pub fn crate_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Parses a reference table.
pub fn parse(text: &str) -> Result<ReferenceTable> {
    let t: ReferenceTable = toml::from_str(text).context("reference table is not valid")?;
    t.validate()?;
    Ok(t)
}

/// Reads and parses a reference table.
pub fn load(path: &Path) -> Result<ReferenceTable> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    parse(&text).with_context(|| format!("in {}", path.display()))
}

/// A block against a reference.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Reference name.
    pub reference: String,
    /// Block LUTs / reference LUTs.
    pub lut_ratio: f64,
    /// Block Fmax / reference Fmax.
    pub fmax_ratio: f64,
}

impl Comparison {
    /// Within the project's goal.
    pub fn meets_goal(&self) -> bool {
        self.lut_ratio <= LUT_RATIO_MAX && self.fmax_ratio >= FMAX_RATIO_MIN
    }
}

/// Compares a block measured on `target` with a reference's figures on the same part, if the
/// reference has been measured there.
pub fn compare(
    block: &BlockCost,
    reference: &ReferenceEntry,
    target: Target,
) -> Option<Comparison> {
    let f = reference.figures(target)?;
    Some(Comparison {
        reference: reference.name.clone(),
        lut_ratio: block.luts as f64 / f.luts as f64,
        fmax_ratio: block.fmax_mhz / f.fmax_mhz,
    })
}

/// Compares raw figures with a reference's iCE40 figures.
pub fn compare_figures(luts: u64, fmax_mhz: f64, reference: &ReferenceEntry) -> Comparison {
    Comparison {
        reference: reference.name.clone(),
        lut_ratio: luts as f64 / reference.luts as f64,
        fmax_ratio: fmax_mhz / reference.fmax_mhz,
    }
}

/// Today's date (UTC) as YYYY-MM-DD.
pub fn today_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    civil_date((secs / 86_400) as i64)
}

/// Days since 1970-01-01 to YYYY-MM-DD (proleptic Gregorian).
pub fn civil_date(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committed_reference_table_parses() {
        let t = load(&default_path()).unwrap();
        for name in [
            "axis_fifo_d32_w32",
            "arbiter_rr8",
            "crc32_d64",
            "axis_arb_mux_s4_w64",
        ] {
            let e = t.get(name).unwrap_or_else(|| panic!("{name} missing"));
            assert!(
                crate_root().join(&e.wrapper).is_file(),
                "wrapper {} missing",
                e.wrapper
            );
            assert!(e.flow_version.contains("Yosys") && e.flow_version.contains("nextpnr"));
            assert!(e.command.contains("measure_reference"));
            let median = {
                let mut r = e.fmax_runs_mhz.clone();
                r.sort_by(f64::total_cmp);
                r[r.len() / 2]
            };
            assert_eq!(
                median, e.fmax_mhz,
                "{name}: fmax is not the median of the runs"
            );
        }
    }

    #[test]
    fn goal_ratios() {
        let t = load(&default_path()).unwrap();
        let e = &t.entries[0];
        let same = compare_figures(e.luts, e.fmax_mhz, e);
        assert!(same.meets_goal());
        let fat = compare_figures(e.luts * 2, e.fmax_mhz, e);
        assert!(!fat.meets_goal());
        let slow = compare_figures(e.luts, e.fmax_mhz * 0.8, e);
        assert!(!slow.meets_goal());
    }

    #[test]
    fn invalid_tables_are_rejected() {
        let text = std::fs::read_to_string(default_path()).unwrap();
        let bad_commit = text.replacen("commit = \"", "commit = \"zz", 1);
        assert!(parse(&bad_commit).is_err());
        assert!(parse("entry = []\n").is_ok());
        assert!(parse("nothing = 1\n").is_err());
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(19_723), "2024-01-01");
        assert_eq!(civil_date(20_088), "2024-12-31");
        assert_eq!(today_utc().len(), 10);
    }
}
