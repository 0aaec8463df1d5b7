//! Finding and running the external tools, with every run logged and checked.
//!
//! Each tool is looked up on `PATH` unless an environment variable names it (`HPCNET_YOSYS`,
//! `HPCNET_NEXTPNR_ICE40`, `HPCNET_VERILATOR`, `HPCNET_ICEPACK`), so a CI image or a second
//! toolchain can be chosen without code changes. [`run_logged`] writes the tool's output to a
//! log file in the caller's work directory and turns a non-zero exit into an error that quotes
//! the log's tail: a flow step never "returns normally" after a tool failed (the trap of
//! rust-hdl's own `generate_bitstream`, which ignores exit codes).
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// One of the external programs the flow drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// Yosys (synthesis).
    Yosys,
    /// nextpnr-ice40 (placement and routing).
    NextpnrIce40,
    /// Verilator (lint).
    Verilator,
    /// icepack (bitstream packing, from IceStorm).
    Icepack,
}

impl Tool {
    /// Executable name on `PATH`.
    pub fn program(self) -> &'static str {
        match self {
            Tool::Yosys => "yosys",
            Tool::NextpnrIce40 => "nextpnr-ice40",
            Tool::Verilator => "verilator",
            Tool::Icepack => "icepack",
        }
    }

    /// Environment variable that overrides the executable.
    pub fn env_var(self) -> &'static str {
        match self {
            Tool::Yosys => "HPCNET_YOSYS",
            Tool::NextpnrIce40 => "HPCNET_NEXTPNR_ICE40",
            Tool::Verilator => "HPCNET_VERILATOR",
            Tool::Icepack => "HPCNET_ICEPACK",
        }
    }

    /// The executable to run: the environment override, else the program name.
    pub fn path(self) -> PathBuf {
        std::env::var_os(self.env_var())
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(self.program()))
    }

    /// A command for this tool.
    pub fn command(self) -> Command {
        Command::new(self.path())
    }
}

/// What a finished tool run left behind.
#[derive(Clone, Debug)]
pub struct ToolRun {
    /// Exit code (`None` if killed by a signal).
    pub code: Option<i32>,
    /// Standard output and standard error, in that order.
    pub output: String,
    /// Where `output` was written.
    pub log: PathBuf,
    /// Wall time of the run.
    pub elapsed: Duration,
}

impl ToolRun {
    /// The run exited with status 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

/// Number of log lines quoted in error messages.
pub const TAIL_LINES: usize = 40;

/// The last `n` lines of `text`.
pub fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.len().saturating_sub(n);
    lines[start..].join("\n")
}

/// Creates `dir` (and parents) if needed.
pub fn ensure_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))
}

/// Runs `cmd`, writes its output to `log`, and returns it whatever the exit status.
///
/// Fails only if the program cannot be started (not installed: the error names the
/// environment variable that can point at it).
pub fn run_unchecked(tool: Tool, cmd: &mut Command, log: &Path) -> Result<ToolRun> {
    let start = Instant::now();
    let out = cmd.output().with_context(|| {
        format!(
            "cannot start {} ({:?}); install it or set {}",
            tool.program(),
            tool.path(),
            tool.env_var()
        )
    })?;
    let elapsed = start.elapsed();
    let mut output = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !stderr.is_empty() {
        if !output.is_empty() && !output.ends_with('\n') {
            output.push('\n');
        }
        output.push_str(&stderr);
    }
    std::fs::write(log, &output).with_context(|| format!("cannot write {}", log.display()))?;
    Ok(ToolRun {
        code: out.status.code(),
        output,
        log: log.to_path_buf(),
        elapsed,
    })
}

/// Runs `cmd` like [`run_unchecked`] and fails unless it exits with status 0.
///
/// The error quotes the tail of the tool's own log file `tool_log` when the tool writes one
/// (Yosys `-l`, nextpnr `-l`: fuller than its console output), else of the captured output.
pub fn run_logged(
    tool: Tool,
    cmd: &mut Command,
    log: &Path,
    tool_log: Option<&Path>,
) -> Result<ToolRun> {
    let run = run_unchecked(tool, cmd, log)?;
    if !run.success() {
        let text = tool_log
            .and_then(|p| std::fs::read_to_string(p).ok())
            .filter(|t| !t.trim().is_empty())
            .map(|t| format!("{}\n{}", t, run.output))
            .unwrap_or_else(|| run.output.clone());
        bail!(
            "{} failed (exit {:?}); log {}:\n{}",
            tool.program(),
            run.code,
            tool_log.unwrap_or(log).display(),
            tail(&text, TAIL_LINES)
        );
    }
    Ok(run)
}

/// Versions of the tools, as each reports itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowVersion {
    /// `yosys -V`, e.g. `Yosys 0.23 (git sha1 7ce5011c24b)`.
    pub yosys: String,
    /// `nextpnr-ice40 --version`, e.g. `nextpnr-ice40 -- ... (Version 0.4-1+b1)`.
    pub nextpnr: String,
    /// `verilator --version`, e.g. `Verilator 5.006 2023-01-22 rev (Debian 5.006-3)`.
    pub verilator: String,
}

impl std::fmt::Display for FlowVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}; {}; {}", self.yosys, self.nextpnr, self.verilator)
    }
}

fn version_of(tool: Tool, arg: &str) -> Result<String> {
    let out = tool
        .command()
        .arg(arg)
        .output()
        .with_context(|| format!("cannot start {}", tool.program()))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
        .with_context(|| format!("{} {arg} printed nothing", tool.program()))
}

/// Asks each tool for its version (icepack has no version option; it ships with IceStorm,
/// whose chip database nextpnr was built against).
pub fn flow_version() -> Result<FlowVersion> {
    Ok(FlowVersion {
        yosys: version_of(Tool::Yosys, "-V")?,
        nextpnr: version_of(Tool::NextpnrIce40, "--version")?,
        verilator: version_of(Tool::Verilator, "--version")?,
    })
}

/// Absolute form of `p` (tools run with other working directories see the same file).
pub fn absolute(p: &Path) -> Result<PathBuf> {
    if p.is_absolute() {
        Ok(p.to_path_buf())
    } else {
        Ok(std::env::current_dir()
            .context("no current directory")?
            .join(p))
    }
}

/// Checks that every source exists and returns them as absolute paths.
pub fn existing_sources<P: AsRef<Path>>(sources: &[P]) -> Result<Vec<PathBuf>> {
    if sources.is_empty() {
        bail!("no Verilog sources given");
    }
    sources
        .iter()
        .map(|p| {
            let p = p.as_ref();
            if !p.is_file() {
                bail!("Verilog source {} does not exist", p.display());
            }
            absolute(p)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_last_lines() {
        assert_eq!(tail("a\nb\nc\n", 2), "b\nc");
        assert_eq!(tail("a", 5), "a");
        assert_eq!(tail("", 5), "");
    }

    #[test]
    fn missing_tool_names_its_variable() {
        let dir = crate::flow::scratch_dir("missing_tool").unwrap();
        let mut cmd = Command::new("/nonexistent/hpcnet-no-such-tool");
        let err = run_unchecked(Tool::Yosys, &mut cmd, &dir.join("x.log")).unwrap_err();
        assert!(format!("{err:#}").contains("HPCNET_YOSYS"), "{err:#}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn failing_tool_quotes_log_tail() {
        let dir = crate::flow::scratch_dir("failing_tool").unwrap();
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo first; echo oops-last-line >&2; exit 3"]);
        let err = run_logged(Tool::Yosys, &mut cmd, &dir.join("x.log"), None).unwrap_err();
        let msg = format!("{err:#}");
        assert!(
            msg.contains("oops-last-line") && msg.contains("Some(3)"),
            "{msg}"
        );
        let log = std::fs::read_to_string(dir.join("x.log")).unwrap();
        assert!(log.contains("first") && log.contains("oops-last-line"));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
