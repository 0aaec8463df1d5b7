//! Lint: `verilator --lint-only -Wall` with the committed waiver file, plus the rust-hdl hazard
//! scan ([`super::hazards`]). Any message left is an error.
//!
//! The waiver file `flow/lint/verilator.vlt` lists each waived rule with a
//! one-line reason; it only waives rust-hdl printing artefacts, so LATCH, SELRANGE,
//! MULTIDRIVEN, undeclared identifiers and the rest still fail. [`lint`] fails on any remaining
//! Verilator message or hazard; [`lint_unchecked`] returns them for display.
use crate::hazards::{self, Hazard};
use crate::tools::{self, Tool};
use anyhow::{bail, Context, Result};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// One Verilator message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LintMessage {
    /// `Warning` or `Error`.
    pub severity: String,
    /// The rule (`LATCH`, `SELRANGE`, ...); empty for plain errors such as syntax errors.
    pub rule: String,
    /// Source file as Verilator printed it.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// The message text (first line).
    pub text: String,
}

impl fmt::Display for LintMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rule = if self.rule.is_empty() {
            String::new()
        } else {
            format!("-{}", self.rule)
        };
        write!(
            f,
            "%{}{}: {}:{}:{}: {}",
            self.severity, rule, self.file, self.line, self.column, self.text
        )
    }
}

/// Result of a lint run.
#[derive(Clone, Debug)]
pub struct LintReport {
    /// Top module linted.
    pub top: String,
    /// Verilator messages left after the waivers (empty when clean).
    pub messages: Vec<LintMessage>,
    /// rust-hdl hazards found (empty when clean).
    pub hazards: Vec<Hazard>,
    /// Waiver files applied, in order.
    pub waivers: Vec<PathBuf>,
    /// Verilator's output.
    pub log: PathBuf,
    /// Wall time.
    pub elapsed: Duration,
}

impl LintReport {
    /// No message and no hazard.
    pub fn is_clean(&self) -> bool {
        self.messages.is_empty() && self.hazards.is_empty()
    }

    /// Every finding, one per line.
    pub fn findings(&self) -> String {
        let mut lines: Vec<String> = self.messages.iter().map(|m| m.to_string()).collect();
        lines.extend(self.hazards.iter().map(|h| format!("hazard: {h}")));
        lines.join("\n")
    }
}

/// Options of [`lint_with`].
#[derive(Clone, Debug)]
pub struct LintOptions {
    /// Waiver files, applied in order; by default only [`waiver_file`].
    pub waivers: Vec<PathBuf>,
    /// Run the rust-hdl hazard scan (default true; turn off for hand-written Verilog).
    pub hazards: bool,
}

impl Default for LintOptions {
    fn default() -> Self {
        LintOptions {
            waivers: vec![waiver_file()],
            hazards: true,
        }
    }
}

/// The committed waiver file, `lint/verilator.vlt` of this crate.
pub fn waiver_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("lint/verilator.vlt")
}

/// Lints `verilog` (top module `top`) with the committed waivers; fails on any finding.
///
/// Verilator's output goes to `work/lint.log`.
pub fn lint(verilog: &Path, top: &str, work: &Path) -> Result<LintReport> {
    lint_with(&[verilog], top, work, &LintOptions::default())
}

/// Like [`lint`], over several sources and with options; fails on any finding.
pub fn lint_with<P: AsRef<Path>>(
    sources: &[P],
    top: &str,
    work: &Path,
    options: &LintOptions,
) -> Result<LintReport> {
    let report = lint_unchecked(sources, top, work, options)?;
    if !report.is_clean() {
        bail!(
            "lint of {top} failed ({} Verilator message(s), {} hazard(s)); log {}:\n{}",
            report.messages.len(),
            report.hazards.len(),
            report.log.display(),
            report.findings()
        );
    }
    Ok(report)
}

/// Runs the lint and returns its findings without failing on them.
///
/// Fails only if Verilator cannot run or exits non-zero without saying why (a crash).
pub fn lint_unchecked<P: AsRef<Path>>(
    sources: &[P],
    top: &str,
    work: &Path,
    options: &LintOptions,
) -> Result<LintReport> {
    let start = Instant::now();
    tools::ensure_dir(work)?;
    let sources = tools::existing_sources(sources)?;
    let mut waivers = vec![];
    for w in &options.waivers {
        if !w.is_file() {
            bail!("waiver file {} does not exist", w.display());
        }
        waivers.push(tools::absolute(w)?);
    }
    let log = work.join("lint.log");
    let mut cmd = Tool::Verilator.command();
    cmd.args(["--lint-only", "-Wall", "--top-module", top]);
    // Configuration files apply only to sources read after them: waivers first.
    cmd.args(&waivers).args(&sources);
    cmd.current_dir(work);
    let run = tools::run_unchecked(Tool::Verilator, &mut cmd, &log)?;
    let messages = parse_messages(&run.output);
    if !run.success() && messages.is_empty() {
        bail!(
            "verilator failed (exit {:?}) without a diagnostic; log {}:\n{}",
            run.code,
            log.display(),
            tools::tail(&run.output, tools::TAIL_LINES)
        );
    }
    let mut found = vec![];
    if options.hazards {
        for s in &sources {
            let text = std::fs::read_to_string(s)
                .with_context(|| format!("cannot read {}", s.display()))?;
            found.extend(hazards::scan(&text));
        }
    }
    Ok(LintReport {
        top: top.to_string(),
        messages,
        hazards: found,
        waivers,
        log,
        elapsed: start.elapsed(),
    })
}

/// Parses Verilator's `%Warning-RULE: file:line:col: text` / `%Error: file:line:col: text`
/// lines. The closing `%Error: Exiting due to ...` summary and continuation lines are skipped.
pub fn parse_messages(output: &str) -> Vec<LintMessage> {
    let mut out = vec![];
    for line in output.lines() {
        let Some(rest) = line.strip_prefix('%') else {
            continue;
        };
        let Some((head, body)) = rest.split_once(": ") else {
            continue;
        };
        let (severity, rule) = match head.split_once('-') {
            Some((s, r)) => (s, r),
            None => (head, ""),
        };
        if severity != "Warning" && severity != "Error" {
            continue;
        }
        // body = "file:line:col: text"; without a location it is a summary or a tool error.
        let mut parts = body.splitn(4, ':');
        let (Some(file), Some(l), Some(c), Some(text)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            if !body.starts_with("Exiting due to") {
                out.push(LintMessage {
                    severity: severity.into(),
                    rule: rule.into(),
                    file: String::new(),
                    line: 0,
                    column: 0,
                    text: body.trim().into(),
                });
            }
            continue;
        };
        let (Ok(l), Ok(c)) = (l.trim().parse(), c.trim().parse()) else {
            if !body.starts_with("Exiting due to") {
                out.push(LintMessage {
                    severity: severity.into(),
                    rule: rule.into(),
                    file: String::new(),
                    line: 0,
                    column: 0,
                    text: body.trim().into(),
                });
            }
            continue;
        };
        out.push(LintMessage {
            severity: severity.into(),
            rule: rule.into(),
            file: file.trim().into(),
            line: l,
            column: c,
            text: text.trim().into(),
        });
    }
    out
}

/// Checks a waiver file's discipline: every `lint_off` line has a `//` reason comment on the
/// line directly above, naming the rule it waives. Returns the waived rules in order.
pub fn check_waivers(text: &str) -> Result<Vec<String>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut rules = vec![];
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim();
        if !t.starts_with("lint_off") {
            continue;
        }
        let rule = t
            .split_whitespace()
            .skip_while(|w| *w != "-rule")
            .nth(1)
            .with_context(|| format!("line {}: lint_off without -rule waives everything", i + 1))?;
        let above = i.checked_sub(1).map(|j| lines[j].trim()).unwrap_or("");
        let reason = above.strip_prefix("//").map(str::trim).unwrap_or("");
        if !reason.starts_with(rule) || reason.len() < rule.len() + 20 {
            bail!(
                "line {}: lint_off -rule {rule} needs a one-line `// {rule}...: reason` comment \
                 directly above",
                i + 1
            );
        }
        rules.push(rule.to_string());
    }
    Ok(rules)
}

/// Writes a waiver file for one design (extra to the committed one) and returns its path.
///
/// Each entry is `(rule, match pattern or "", reason)`; the reason is mandatory, as in the
/// committed file.
pub fn write_waivers(path: &Path, entries: &[(&str, &str, &str)]) -> Result<PathBuf> {
    let mut s = String::from("`verilator_config\n");
    for (rule, pattern, reason) in entries {
        if reason.trim().is_empty() {
            bail!("waiver of {rule} has no reason");
        }
        s.push_str(&format!("// {rule}: {reason}\n"));
        if pattern.is_empty() {
            s.push_str(&format!("lint_off -rule {rule}\n"));
        } else {
            s.push_str(&format!(
                "lint_off -rule {rule} -file \"*\" -match \"{pattern}\"\n"
            ));
        }
    }
    std::fs::write(path, s).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!("../tests/fixtures/verilator_lint_bad.txt");

    #[test]
    fn parses_captured_verilator_output() {
        let m = parse_messages(SAMPLE);
        let rules: Vec<&str> = m.iter().map(|m| m.rule.as_str()).collect();
        assert_eq!(
            rules,
            [
                "SELRANGE",
                "UNUSEDSIGNAL",
                "LATCH",
                "LATCH",
                "LATCH",
                "LATCH",
                "LATCH"
            ]
        );
        assert_eq!(m[0].file, "bad.v");
        assert_eq!((m[0].line, m[0].column), (39, 16));
        assert_eq!(
            m[0].text,
            "Selection index out of range: 19:12 outside 15:0"
        );
        assert_eq!(m[1].text, "Signal is not used: 'reset'");
        assert!(m.iter().all(|m| m.severity == "Warning"));
    }

    #[test]
    fn parses_plain_errors_and_skips_summary() {
        let out = "%Error: top.v:3:5: syntax error, unexpected IDENTIFIER\n%Error: Cannot find file containing module: 'x'\n%Error: Exiting due to 2 error(s)\n";
        let m = parse_messages(out);
        assert_eq!(m.len(), 2, "{m:?}");
        assert_eq!(m[0].rule, "");
        assert_eq!(m[0].line, 3);
        assert_eq!(m[1].line, 0);
    }

    #[test]
    fn committed_waivers_all_have_reasons() {
        let text = std::fs::read_to_string(waiver_file()).unwrap();
        let rules = check_waivers(&text).unwrap();
        assert_eq!(
            rules,
            [
                "WIDTH",
                "DECLFILENAME",
                "UNOPTFLAT",
                "UNUSEDSIGNAL",
                "UNUSEDPARAM"
            ]
        );
        // Real defects must never be waived.
        for keep in ["LATCH", "SELRANGE", "MULTIDRIVEN", "UNDRIVEN", "IMPLICIT"] {
            assert!(!rules.iter().any(|r| r == keep), "{keep} is waived");
        }
    }

    #[test]
    fn waiver_without_reason_is_rejected() {
        assert!(check_waivers("`verilator_config\nlint_off -rule WIDTH\n").is_err());
        assert!(
            check_waivers("// other: some reason that is long enough\nlint_off -rule WIDTH\n")
                .is_err()
        );
        assert!(check_waivers("lint_off\n").is_err());
        assert!(check_waivers(
            "// WIDTH: literals are printed 32 bits wide by the generator\nlint_off -rule WIDTH\n"
        )
        .is_ok());
    }
}
