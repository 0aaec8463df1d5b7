//! The Verilator backend: the emitted Verilog compiled to C++, linked into a shared object with a
//! generated shim, and loaded into the test process.
//!
//! The shim exposes `new/free/eval/set/get` (and `set_wide/get_wide` for ports of any width),
//! each port reached by index through a `switch`, so a step costs a few direct calls (the guide
//! measured this route at 4-5 M cycles/s on an 8-FIFO arbiter, against 2 M for marlin's static
//! API). Verilator keeps ports up to 64 bits in integers and wider ones in arrays of 32-bit
//! words, least significant first; the shim converts both to 64-bit words.
//!
//! **The model cache.** Building a model (Verilator, then the C++ compiler) costs seconds to a
//! minute, so compiled models live in a machine-wide cache outside any clone,
//! [`cache_root`] (`$HOME/.cache/hpcnet/verilator`, or `HPCNET_VL_CACHE`), one directory per
//! model named by a stable 128-bit FNV-1a hash of everything that determines the library: the
//! Verilog with its wrapper, the shim, the Verilator version and installation, the compiler's
//! version and every flag ([`RECIPE`]). A second run of the tests on the same machine, from any
//! clone, loads the models it needs and builds none.
//! - *Shared*: [`VerilatorModel::build_for`] emits every design under one top name
//!   ([`SHARED_TOP`]), so two benches of the same design (whatever they call it) get the same
//!   hash and one model; in a process each model is loaded once and handed out as an `Arc`.
//! - *Concurrent*: in a process, the first thread to ask for a model builds it and the others
//!   wait for it (a once-cell per hash); across processes an exclusive `flock` on
//!   `<hash>.lock` does the same, and a model is built in a temporary directory and renamed into
//!   place, so an interrupted build never looks finished.
//! - *Cheap and parallel*: Verilator splits a model into several C++ files, each of which spends
//!   most of its compile time parsing `verilated.h`; that header is precompiled once per
//!   toolchain (with the Verilator runtime, in `common-<hash>`), which cut the compile of a
//!   small model from about 3.8 to 0.8 s of CPU. The files are compiled as separate compiler
//!   jobs, at most [`build_jobs`] at a time in the process (the test threads share the slots, so
//!   builds never oversubscribe the machine), then linked.
//! - *Bounded*: each model directory's `used` file is touched whenever the model is loaded; once
//!   per process, directories unused for [`EVICT_DAYS`] days (`HPCNET_VL_CACHE_DAYS`) are
//!   removed, and temporary directories older than a day (from killed builds). The cache thus
//!   holds the models of the designs tested in the last weeks: after the whole test suite, 96
//!   models of 0.26 to 0.74 MB (only the library and the Verilog are kept) and the runtime with
//!   the precompiled header, 57 MB, 85 MB in all.
use crate::backend::{mask, words, Backend, PortId};
use anyhow::{anyhow, bail, Context, Result};
use flow::Tool;
use hdl::emit::{PortDir, PortInfo};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, SystemTime};

type NewFn = unsafe extern "C" fn() -> *mut std::ffi::c_void;
type FreeFn = unsafe extern "C" fn(*mut std::ffi::c_void);
type EvalFn = unsafe extern "C" fn(*mut std::ffi::c_void);
type SetFn = unsafe extern "C" fn(*mut std::ffi::c_void, u32, u64, u64);
type GetFn = unsafe extern "C" fn(*mut std::ffi::c_void, u32, *mut u64) -> u64;
type SetWideFn = unsafe extern "C" fn(*mut std::ffi::c_void, u32, *const u64);
type GetWideFn = unsafe extern "C" fn(*mut std::ffi::c_void, u32, *mut u64);

/// The build recipe, hashed into every cache key with the flags below: change it when the way a
/// model is built changes in a way the hashed texts do not show.
pub const RECIPE: &str = "hpcnet-verilator-model 2";

/// The top name [`VerilatorModel::build_for`] emits every design under, so that equal designs
/// share one model whatever their bench calls them.
pub const SHARED_TOP: &str = "hpcnet_top";

/// Days a cached model may stay unused before a test run removes it.
pub const EVICT_DAYS: u64 = 30;

/// Verilator's options (lint is `make lint`'s job: here only real errors stop the build).
const VERILATOR_FLAGS: &[&str] = &[
    "--cc",
    "-O3",
    "--top-module",
    "hpcnet_dut",
    "-Wno-fatal",
    "-Wno-lint",
    "-Wno-style",
    "-Wno-UNOPTFLAT",
];
/// Compiler options of every C++ file.
const CXX_FLAGS: &[&str] = &["-fPIC", "-std=c++17", "-w"];
/// Optimisation of the model's files (`HPCNET_VL_OPT` overrides it, for measurements).
///
/// Measured on this project's 2-core machine with the link endpoint (the biggest model): `-O1`
/// built it (with the runtime and the header) in 10.2 s, `-Os` in 12.9 s, `-O2` in 14.1 s; the
/// five `llp_link` benches then ran in 8.78 s at `-O1` and 8.63 s at `-O2`, while a test at
/// `-Os` simulated 25 % slower than at `-O1`. `-O1` is cheapest to build at `-O2`'s speed.
const OPT_MODEL: &str = "-O1";
/// Optimisation of the Verilator runtime (compiled once per installation).
const OPT_RUNTIME: &str = "-O2";

/// The optimisation the model's files are compiled with.
fn opt_model() -> String {
    std::env::var("HPCNET_VL_OPT").unwrap_or_else(|_| OPT_MODEL.to_string())
}

/// A compiled Verilator model of one top: load it once, instantiate it many times
/// (several instances step in lockstep in a fabric).
pub struct VerilatorModel {
    lib: libloading::Library,
    ports: Vec<PortInfo>,
    /// Per port: its mask (of the low 128 bits), and whether a bench may poke it (inputs other
    /// than the clock).
    masks: Vec<(u128, bool)>,
    clock: Option<u32>,
    /// Where the library is (for reports).
    dir: PathBuf,
}

/// One instance of a [`VerilatorModel`].
pub struct VerilatorSim {
    model: Arc<VerilatorModel>,
    handle: *mut std::ffi::c_void,
    eval: EvalFn,
    set: SetFn,
    get: GetFn,
    set_wide: SetWideFn,
    get_wide: GetWideFn,
    dirty: bool,
    cycle: u64,
}

/// Where compiled models are cached: `HPCNET_VL_CACHE`, else `verilator` in the machine-wide
/// cache [`flow::cache_dir`] (outside the clone, so every clone of the machine shares it).
pub fn cache_root() -> PathBuf {
    if let Some(d) = std::env::var_os("HPCNET_VL_CACHE") {
        return PathBuf::from(d);
    }
    flow::cache_dir().join("verilator")
}

/// Compiler jobs a process runs at once: `HPCNET_VL_JOBS`, else the machine's parallelism.
pub fn build_jobs() -> usize {
    std::env::var("HPCNET_VL_JOBS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n >= 1)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
}

pub use flow::Fnv128;

fn run(cmd: &mut Command, what: &str) -> Result<()> {
    let out = cmd
        .output()
        .with_context(|| format!("cannot start {what} ({:?})", cmd.get_program()))?;
    if !out.status.success() {
        bail!(
            "{what} failed ({}):\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

/// Slots for compiler jobs, shared by every thread of the process.
struct Jobs {
    free: Mutex<usize>,
    freed: Condvar,
}

/// A job slot, returned when dropped.
struct Slot(&'static Jobs);

impl Jobs {
    fn get() -> &'static Jobs {
        static JOBS: OnceLock<Jobs> = OnceLock::new();
        JOBS.get_or_init(|| Jobs {
            free: Mutex::new(build_jobs()),
            freed: Condvar::new(),
        })
    }
    fn acquire(&'static self) -> Slot {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        while *free == 0 {
            free = self.freed.wait(free).unwrap_or_else(|e| e.into_inner());
        }
        *free -= 1;
        Slot(self)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.0.freed.notify_one();
    }
}

/// Runs a tool in a job slot.
fn run_job(cmd: &mut Command, what: &str) -> Result<()> {
    let _slot = Jobs::get().acquire();
    run(cmd, what)
}

/// An exclusive advisory lock on a file (`flock`), released when dropped or when the process
/// dies, so a killed build never leaves the cache locked.
struct FileLock(#[allow(dead_code)] std::fs::File);

impl FileLock {
    fn open(path: &Path) -> Result<std::fs::File> {
        std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .with_context(|| format!("cannot open lock file {}", path.display()))
    }
    /// Waits for the lock.
    fn exclusive(path: &Path) -> Result<Self> {
        let f = Self::open(path)?;
        Self::flock(&f, false)
            .with_context(|| format!("cannot lock {}", path.display()))?
            .then_some(Self(f))
            .ok_or_else(|| anyhow!("lock {} not taken", path.display()))
    }
    /// Takes the lock if nobody holds it.
    fn try_exclusive(path: &Path) -> Result<Option<Self>> {
        let f = Self::open(path)?;
        Ok(Self::flock(&f, true)?.then_some(Self(f)))
    }
    #[cfg(unix)]
    fn flock(f: &std::fs::File, nonblocking: bool) -> std::io::Result<bool> {
        use std::os::unix::io::AsRawFd;
        let op = libc::LOCK_EX | if nonblocking { libc::LOCK_NB } else { 0 };
        loop {
            // SAFETY: `f` is an open file for the whole call.
            if unsafe { libc::flock(f.as_raw_fd(), op) } == 0 {
                return Ok(true);
            }
            let e = std::io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::EWOULDBLOCK) if nonblocking => return Ok(false),
                _ => return Err(e),
            }
        }
    }
    #[cfg(not(unix))]
    fn flock(_f: &std::fs::File, _nonblocking: bool) -> std::io::Result<bool> {
        // No advisory locks: concurrent processes may build a model twice; the rename below
        // still keeps the cache consistent.
        Ok(true)
    }
}

fn c_name(port: &str) -> String {
    port.replace('$', "_")
}

/// The wrapper module `hpcnet_dut` with `$`-free port names around the top `top`.
fn wrapper(top: &str, ports: &[PortInfo]) -> String {
    let mut s = String::from("module hpcnet_dut(\n");
    let decls: Vec<String> = ports
        .iter()
        .map(|p| {
            let dir = if p.dir == PortDir::Input {
                "input"
            } else {
                "output"
            };
            let range = if p.width > 1 {
                format!("[{}:0] ", p.width - 1)
            } else {
                String::new()
            };
            format!("    {dir} wire {range}{}", c_name(&p.name))
        })
        .collect();
    s += &decls.join(",\n");
    s += &format!("\n);\n{top} dut(\n");
    let conns: Vec<String> = ports
        .iter()
        .map(|p| format!("    .{}({})", p.name, c_name(&p.name)))
        .collect();
    s += &conns.join(",\n");
    s += "\n);\nendmodule\n";
    s
}

fn shim(ports: &[PortInfo]) -> String {
    let (mut set, mut get, mut set_wide, mut get_wide) =
        (String::new(), String::new(), String::new(), String::new());
    for (i, p) in ports.iter().enumerate() {
        let n = c_name(&p.name);
        let input = p.dir == PortDir::Input;
        if p.width <= 64 {
            // Verilator keeps the port in an integer (CData/SData/IData/QData).
            if input {
                set += &format!("    case {i}: m->{n} = lo; break;\n");
                set_wide += &format!("    case {i}: m->{n} = w[0]; break;\n");
            }
            get += &format!("    case {i}: *hi = 0; return m->{n};\n");
            get_wide += &format!("    case {i}: w[0] = m->{n}; break;\n");
            continue;
        }
        // Wider: an array of 32-bit words (VlWide), least significant first.
        let w32 = p.width.div_ceil(32);
        if input {
            set += &format!("    case {i}:");
            for w in 0..w32.min(4) {
                let src = if w < 2 { "lo" } else { "hi" };
                set += &format!(" m->{n}[{w}] = (uint32_t)({src} >> {});", 32 * (w % 2));
            }
            set += &format!(" for (int k = 4; k < {w32}; ++k) m->{n}[k] = 0; break;\n");
            set_wide += &format!(
                "    case {i}: for (int k = 0; k < {w32}; ++k) m->{n}[k] = (uint32_t)(w[k / 2] >> (32 * (k % 2))); break;\n"
            );
        }
        get += &format!("    case {i}: {{ uint64_t l = m->{n}[0] | ((uint64_t)m->{n}[1] << 32); uint64_t h = 0;");
        for w in 2..w32.min(4) {
            get += &format!(" h |= (uint64_t)m->{n}[{w}] << {};", 32 * (w - 2));
        }
        get += " *hi = h; return l; }\n";
        get_wide += &format!(
            "    case {i}: for (int k = 0; k < {}; ++k) w[k] = 0; for (int k = 0; k < {w32}; ++k) w[k / 2] |= (uint64_t)m->{n}[k] << (32 * (k % 2)); break;\n",
            words(p.width)
        );
    }
    format!(
        r#"// Generated by hpcnet testbench: C entry points to one Verilator model.
#include "Vhpcnet_dut.h"
#include "verilated.h"
#include <cstdint>
struct Inst {{ VerilatedContext ctx; Vhpcnet_dut* m; }};
extern "C" {{
void* hpcnet_new() {{ Inst* i = new Inst; i->m = new Vhpcnet_dut(&i->ctx); return i; }}
void hpcnet_free(void* p) {{ Inst* i = (Inst*)p; i->m->final(); delete i->m; delete i; }}
void hpcnet_eval(void* p) {{ ((Inst*)p)->m->eval(); }}
// Ports up to 128 bits, as two 64-bit halves (wider ones: the low 128 bits, the rest zero).
void hpcnet_set(void* p, uint32_t id, uint64_t lo, uint64_t hi) {{
  Vhpcnet_dut* m = ((Inst*)p)->m; (void)hi; (void)lo;
  switch (id) {{
{set}    default: break;
  }}
}}
uint64_t hpcnet_get(void* p, uint32_t id, uint64_t* hi) {{
  Vhpcnet_dut* m = ((Inst*)p)->m;
  switch (id) {{
{get}    default: *hi = 0; return 0;
  }}
}}
// Ports of any width, as 64-bit words, least significant first.
void hpcnet_set_wide(void* p, uint32_t id, const uint64_t* w) {{
  Vhpcnet_dut* m = ((Inst*)p)->m; (void)w;
  switch (id) {{
{set_wide}    default: break;
  }}
}}
void hpcnet_get_wide(void* p, uint32_t id, uint64_t* w) {{
  Vhpcnet_dut* m = ((Inst*)p)->m;
  switch (id) {{
{get_wide}    default: break;
  }}
}}
}}
"#
    )
}

/// The Verilator installation and the compiler, as the cache keys see them.
struct Toolchain {
    root: PathBuf,
    /// Versions and paths of Verilator and the compiler.
    identity: String,
}

fn toolchain() -> Result<&'static Toolchain> {
    static TOOLCHAIN: OnceLock<std::result::Result<Toolchain, String>> = OnceLock::new();
    TOOLCHAIN
        .get_or_init(|| probe_toolchain().map_err(|e| format!("{e:#}")))
        .as_ref()
        .map_err(|e| anyhow!("{e}"))
}

fn probe_toolchain() -> Result<Toolchain> {
    let output = |tool: Tool, args: &[&str]| -> Result<String> {
        let out = tool.command().args(args).output().with_context(|| {
            format!(
                "cannot start {} ({:?}): run `make deps` or set {}",
                tool.program(),
                tool.path(),
                tool.env_var()
            )
        })?;
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let root = PathBuf::from(output(Tool::Verilator, &["--getenv", "VERILATOR_ROOT"])?);
    let identity = format!(
        "{}\n{}\n{:?}\n{}\n{}",
        output(Tool::Verilator, &["--version"])?,
        root.display(),
        Tool::Cxx.path(),
        output(Tool::Cxx, &["--version"])?,
        output(Tool::Cxx, &["-dumpmachine"])?,
    );
    Ok(Toolchain { root, identity })
}

/// Hash of the build recipe and the toolchain: the part of every key that is not the design.
fn recipe_hash(tc: &Toolchain) -> Fnv128 {
    let flags = [
        VERILATOR_FLAGS.join(" "),
        CXX_FLAGS.join(" "),
        opt_model(),
        OPT_RUNTIME.to_string(),
    ];
    let mut h = Fnv128::new()
        .part(RECIPE.as_bytes())
        .part(tc.identity.as_bytes());
    for f in &flags {
        h = h.part(f.as_bytes());
    }
    h
}

/// Removes, once per process, cached models unused for [`EVICT_DAYS`] (or
/// `HPCNET_VL_CACHE_DAYS`) days and temporary directories older than a day.
fn sweep(cache: &Path) {
    static SWEPT: OnceLock<()> = OnceLock::new();
    SWEPT.get_or_init(|| {
        let days = std::env::var("HPCNET_VL_CACHE_DAYS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(EVICT_DAYS);
        sweep_now(cache, Duration::from_secs(days * 86_400));
    });
}

/// Removes the entries of `cache` unused for longer than `unused` (their `used` file, touched
/// at every load, is older), and temporary directories older than a day (a killed build's).
/// An entry is removed under its lock, so never while a process builds or publishes it. The
/// lock files themselves (empty) stay: removing one could let two processes lock different
/// files for the same entry.
fn sweep_now(cache: &Path, unused: Duration) {
    let now = SystemTime::now();
    let older = |p: &Path, limit: Duration| {
        std::fs::metadata(p)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > limit)
    };
    let Ok(entries) = std::fs::read_dir(cache) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if !e.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        if name.starts_with("tmp-") && older(&path, Duration::from_secs(86_400)) {
            let _ = std::fs::remove_dir_all(&path);
        } else if (name.starts_with("m-") || name.starts_with("common-"))
            && older(&path.join("used"), unused)
        {
            let lock = cache.join(format!("{name}.lock"));
            if let Ok(Some(_held)) = FileLock::try_exclusive(&lock) {
                let _ = std::fs::remove_dir_all(&path);
            }
        }
    }
}

/// Marks a cache entry as used now (the sweep's clock).
fn touch(dir: &Path) {
    let used = dir.join("used");
    if let Ok(f) = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&used)
    {
        let _ = f.set_modified(SystemTime::now());
    }
}

/// A temporary directory in the cache, unique to this process and thread.
fn temp_dir(cache: &Path, what: &str) -> Result<PathBuf> {
    // `ThreadId(7)` printed with `{:?}`, parentheses dropped.
    let thread = format!("{:?}", std::thread::current().id()).replace(['(', ')'], "");
    let tmp = cache.join(format!("tmp-{what}-{}-{thread}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
    Ok(tmp)
}

/// Builds cache entry `name` with `build` (into a temporary directory that is then renamed to
/// `cache/name`) unless it exists; waits while another process builds it.
fn cached_entry(
    cache: &Path,
    name: &str,
    done: &str,
    build: impl FnOnce(&Path) -> Result<()>,
) -> Result<PathBuf> {
    let dir = cache.join(name);
    if !dir.join(done).exists() {
        let _lock = FileLock::exclusive(&cache.join(format!("{name}.lock")))?;
        if !dir.join(done).exists() {
            let tmp = temp_dir(cache, name)?;
            let built = build(&tmp);
            if let Err(e) = built {
                let _ = std::fs::remove_dir_all(&tmp);
                return Err(e);
            }
            let _ = std::fs::remove_dir_all(&dir); // a stale, unfinished entry
            std::fs::rename(&tmp, &dir)
                .with_context(|| format!("cannot move {} to {}", tmp.display(), dir.display()))?;
        }
    }
    touch(&dir);
    Ok(dir)
}

/// What every model of a toolchain shares, built once per toolchain and recipe: the Verilator
/// runtime's objects, and `verilated.h` precompiled for the model's compiler options.
struct Common {
    objects: Vec<PathBuf>,
    /// Holds `verilated.h` and `verilated.h.gch`; searched first and force-included.
    pch: PathBuf,
}

fn common(tc: &Toolchain, cache: &Path) -> Result<&'static Common> {
    static COMMON: OnceLock<std::result::Result<Common, String>> = OnceLock::new();
    COMMON
        .get_or_init(|| build_common(tc, cache).map_err(|e| format!("{e:#}")))
        .as_ref()
        .map_err(|e| anyhow!("{e}"))
}

fn build_common(tc: &Toolchain, cache: &Path) -> Result<Common> {
    let names = ["verilated", "verilated_threads"];
    let key = recipe_hash(tc).part(b"runtime and header").finish();
    let include = tc.root.join("include");
    let dir = cached_entry(cache, &format!("common-{key:032x}"), "done", |tmp| {
        let pch = tmp.join("pch");
        std::fs::create_dir_all(&pch)?;
        // The precompiled header is found next to a copy of the header (GCC looks for
        // `verilated.h.gch` where it would find `verilated.h`).
        std::fs::copy(include.join("verilated.h"), pch.join("verilated.h"))?;
        let mut jobs: Vec<Command> = names
            .iter()
            .map(|n| {
                let mut c = Tool::Cxx.command();
                c.args(CXX_FLAGS)
                    .arg(OPT_RUNTIME)
                    .arg("-c")
                    .arg(include.join(format!("{n}.cpp")))
                    .arg("-I")
                    .arg(&include)
                    .arg("-I")
                    .arg(include.join("vltstd"))
                    .arg("-o")
                    .arg(tmp.join(format!("{n}.o")));
                c
            })
            .collect();
        let mut header = Tool::Cxx.command();
        header
            .args(CXX_FLAGS)
            .arg(opt_model())
            .arg("-I")
            .arg(&include)
            .arg("-I")
            .arg(include.join("vltstd"))
            .args(["-x", "c++-header"])
            .arg(include.join("verilated.h"))
            .arg("-o")
            .arg(pch.join("verilated.h.gch"));
        jobs.push(header);
        run_parallel(jobs, "g++ (Verilator runtime)")?;
        std::fs::write(tmp.join("done"), "")?;
        Ok(())
    })?;
    Ok(Common {
        objects: names.iter().map(|n| dir.join(format!("{n}.o"))).collect(),
        pch: dir.join("pch"),
    })
}

/// Runs `jobs` as parallel compiler jobs (each in a job slot); fails with the first failure.
fn run_parallel(jobs: Vec<Command>, what: &str) -> Result<()> {
    std::thread::scope(|s| {
        let running: Vec<_> = jobs
            .into_iter()
            .map(|mut cmd| s.spawn(move || run_job(&mut cmd, what)))
            .collect();
        running
            .into_iter()
            .map(|j| j.join().expect("compiler job thread"))
            .collect::<Result<Vec<()>>>()
            .map(|_| ())
    })
}

/// Verilator, then the compiler, into `tmp`: `libhpcnet_dut.so`.
fn compile_model(
    tc: &Toolchain,
    common: &Common,
    tmp: &Path,
    source: &str,
    shim: &str,
) -> Result<()> {
    std::fs::write(tmp.join("dut.v"), source)?;
    std::fs::write(tmp.join("shim.cpp"), shim)?;
    run_job(
        Tool::Verilator
            .command()
            .current_dir(tmp)
            .args(VERILATOR_FLAGS)
            .args(["--Mdir", "obj_dir", "dut.v"]),
        "verilator",
    )?;
    let mut cpps: Vec<PathBuf> = std::fs::read_dir(tmp.join("obj_dir"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
        .collect();
    cpps.sort();
    cpps.push(tmp.join("shim.cpp"));
    // One compiler job per file, as job slots allow, each starting from the precompiled
    // header; then one link.
    let objects: Vec<PathBuf> = cpps.iter().map(|c| c.with_extension("o")).collect();
    let include = tc.root.join("include");
    let jobs = cpps
        .iter()
        .zip(&objects)
        .map(|(cpp, obj)| {
            let mut c = Tool::Cxx.command();
            c.args(CXX_FLAGS)
                .arg(opt_model())
                .arg("-I")
                .arg(&common.pch)
                .arg("-I")
                .arg(tmp.join("obj_dir"))
                .arg("-I")
                .arg(&include)
                .arg("-I")
                .arg(include.join("vltstd"))
                .args(["-include", "verilated.h", "-c"])
                .arg(cpp)
                .arg("-o")
                .arg(obj);
            c
        })
        .collect();
    run_parallel(jobs, "g++ (model)")?;
    run_job(
        Tool::Cxx
            .command()
            .args(["-shared", "-fPIC"])
            .args(&objects)
            .args(&common.objects)
            .arg("-lpthread")
            .arg("-o")
            .arg(tmp.join("libhpcnet_dut.so")),
        "g++ (model link)",
    )?;
    // Only the library and the Verilog are kept; the C++ is rebuilt if ever needed.
    let _ = std::fs::remove_dir_all(tmp.join("obj_dir"));
    Ok(())
}

/// Models loaded in this process, by cache key: each built or loaded once, whatever the number
/// of threads asking for it.
type Loaded = Arc<OnceLock<std::result::Result<Arc<VerilatorModel>, String>>>;

fn loaded(key: u128) -> Loaded {
    static MODELS: OnceLock<Mutex<HashMap<u128, Loaded>>> = OnceLock::new();
    MODELS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(key)
        .or_default()
        .clone()
}

impl VerilatorModel {
    /// Compiles (or loads from the cache) the model of `verilog`, whose top module is `top`
    /// with the given ports (from [`hdl::emit::top_ports`]), and a clock port named `clock`.
    pub fn build(verilog: &str, top: &str, ports: &[PortInfo]) -> Result<Arc<Self>> {
        for p in ports {
            if ports
                .iter()
                .filter(|q| c_name(&q.name) == c_name(&p.name))
                .count()
                > 1
            {
                bail!("ports of {top} collide when `$` becomes `_`: {}", p.name);
            }
        }
        let source = format!("{verilog}\n{}", wrapper(top, ports));
        let shim = shim(ports);
        let tc = toolchain()?;
        let key = recipe_hash(tc)
            .part(source.as_bytes())
            .part(shim.as_bytes())
            .finish();
        let cell = loaded(key);
        cell.get_or_init(|| {
            Self::build_or_load(tc, key, top, &source, &shim, ports).map_err(|e| format!("{e:#}"))
        })
        .clone()
        .map_err(|e| anyhow!("{e}"))
    }

    fn build_or_load(
        tc: &Toolchain,
        key: u128,
        top: &str,
        source: &str,
        shim: &str,
        ports: &[PortInfo],
    ) -> Result<Arc<Self>> {
        let cache = cache_root();
        std::fs::create_dir_all(&cache)
            .with_context(|| format!("cannot create the model cache {}", cache.display()))?;
        sweep(&cache);
        let so_name = "libhpcnet_dut.so";
        let dir = cached_entry(&cache, &format!("m-{key:032x}"), so_name, |tmp| {
            let common = common(tc, &cache)?;
            std::fs::write(tmp.join("name.txt"), format!("first built for {top}\n"))?;
            compile_model(tc, common, tmp, source, shim)
        })?;
        let so = dir.join(so_name);
        // SAFETY: the library was built from our own generated shim, for these ports.
        let lib = unsafe { libloading::Library::new(&so) }
            .with_context(|| format!("cannot load {}", so.display()))?;
        let clock = ports
            .iter()
            .position(|p| p.name == "clock")
            .map(|i| i as u32);
        let masks = ports
            .iter()
            .map(|p| (mask(p.width), p.dir == PortDir::Input && p.name != "clock"))
            .collect();
        Ok(Arc::new(Self {
            lib,
            ports: ports.to_vec(),
            masks,
            clock,
            dir,
        }))
    }

    /// The cache directory holding this model's library.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A new instance of the model, with every register at its initial value.
    pub fn instance(self: &Arc<Self>) -> VerilatorSim {
        // SAFETY: the symbols have the signatures of the generated shim.
        unsafe {
            let new: libloading::Symbol<NewFn> = self.lib.get(b"hpcnet_new").expect("shim symbol");
            let eval = *self.lib.get::<EvalFn>(b"hpcnet_eval").expect("shim symbol");
            let set = *self.lib.get::<SetFn>(b"hpcnet_set").expect("shim symbol");
            let get = *self.lib.get::<GetFn>(b"hpcnet_get").expect("shim symbol");
            let set_wide = *self
                .lib
                .get::<SetWideFn>(b"hpcnet_set_wide")
                .expect("shim symbol");
            let get_wide = *self
                .lib
                .get::<GetWideFn>(b"hpcnet_get_wide")
                .expect("shim symbol");
            let handle = new();
            let s = VerilatorSim {
                model: self.clone(),
                handle,
                eval,
                set,
                get,
                set_wide,
                get_wide,
                dirty: true,
                cycle: 0,
            };
            if let Some(c) = self.clock {
                (s.set)(s.handle, c, 0, 0);
            }
            (s.eval)(s.handle);
            s
        }
    }

    /// Emits `uut` as Verilog (under the shared top name [`SHARED_TOP`], so equal designs share
    /// one model whatever `name` a bench gives them) and compiles it, for many instances.
    pub fn build_for<U: rust_hdl::prelude::Block>(uut: &mut U, name: &str) -> Result<Arc<Self>> {
        let (verilog, ports) = emit(uut)?;
        VerilatorModel::build(&verilog, SHARED_TOP, &ports)
            .with_context(|| format!("Verilator model of {name}"))
    }
}

/// The Verilog of `uut` under [`SHARED_TOP`] and its ports: what [`VerilatorModel::build`] takes.
pub fn emit<U: rust_hdl::prelude::Block>(uut: &mut U) -> Result<(String, Vec<PortInfo>)> {
    let verilog = hdl::emit::emit_verilog(uut, SHARED_TOP).map_err(anyhow::Error::msg)?;
    Ok((verilog, hdl::emit::top_ports(uut)))
}

impl VerilatorSim {
    /// Emits `uut` as Verilog and compiles it (or loads it from the cache): the one-call route
    /// for benches (`name` names it in errors).
    pub fn of<U: rust_hdl::prelude::Block>(mut uut: U, name: &str) -> Result<Self> {
        Ok(VerilatorModel::build_for(&mut uut, name)?.instance())
    }
}

impl Drop for VerilatorSim {
    fn drop(&mut self) {
        // SAFETY: `handle` came from this model's `hpcnet_new` and is freed once.
        unsafe {
            let free = *self
                .model
                .lib
                .get::<FreeFn>(b"hpcnet_free")
                .expect("shim symbol");
            free(self.handle);
        }
    }
}

impl VerilatorSim {
    fn settle(&mut self) {
        if self.dirty {
            // SAFETY: handle is live.
            unsafe { (self.eval)(self.handle) };
            self.dirty = false;
        }
    }
    fn check_pokeable(&self, p: PortId) {
        assert!(
            self.model.masks[p.0].1,
            "port {} is not a pokeable input",
            self.model.ports[p.0].name
        );
    }
}

impl Backend for VerilatorSim {
    fn kind(&self) -> &'static str {
        "verilator"
    }
    fn ports(&self) -> &[PortInfo] {
        &self.model.ports
    }
    fn poke(&mut self, p: PortId, v: u128) {
        self.check_pokeable(p);
        let v = v & self.model.masks[p.0].0;
        // SAFETY: handle is live; the shim ignores unknown ids.
        unsafe { (self.set)(self.handle, p.0 as u32, v as u64, (v >> 64) as u64) };
        self.dirty = true;
    }
    fn peek(&mut self, p: PortId) -> u128 {
        crate::backend::check_narrow(&self.model.ports[p.0]);
        self.settle();
        let mut hi = 0u64;
        // SAFETY: handle is live.
        let lo = unsafe { (self.get)(self.handle, p.0 as u32, &mut hi) };
        ((hi as u128) << 64 | lo as u128) & self.model.masks[p.0].0
    }
    fn poke_wide(&mut self, p: PortId, words: &[u64]) {
        self.check_pokeable(p);
        let w = crate::backend::fit_words(words, self.model.ports[p.0].width);
        // SAFETY: handle is live; `w` has a word for every 64 bits of the port.
        unsafe { (self.set_wide)(self.handle, p.0 as u32, w.as_ptr()) };
        self.dirty = true;
    }
    fn peek_wide(&mut self, p: PortId) -> Vec<u64> {
        self.settle();
        let mut w = vec![0u64; words(self.model.ports[p.0].width)];
        // SAFETY: handle is live; the shim writes exactly `words(width)` words.
        unsafe { (self.get_wide)(self.handle, p.0 as u32, w.as_mut_ptr()) };
        w
    }
    fn tick(&mut self) {
        let Some(c) = self.model.clock else {
            self.cycle += 1; // combinational: nothing to clock
            return;
        };
        // SAFETY: handle is live.
        unsafe {
            if self.dirty {
                (self.eval)(self.handle); // settle new inputs before the edge samples them
            }
            (self.set)(self.handle, c, 1, 0);
            (self.eval)(self.handle);
            // The falling edge triggers nothing (rust-hdl registers are rising-edge only), so
            // it is evaluated lazily with the next inputs: two evals a cycle instead of three.
            (self.set)(self.handle, c, 0, 0);
        }
        self.dirty = true;
        self.cycle += 1;
    }
    fn cycle(&self) -> u64 {
        self.cycle
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_removes_only_old_entries() {
        let cache = std::env::temp_dir().join(format!("hpcnet-sweep-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&cache);
        for d in ["m-old", "m-new", "tmp-old", "tmp-new"] {
            std::fs::create_dir_all(cache.join(d)).unwrap();
        }
        touch(&cache.join("m-new"));
        touch(&cache.join("m-old"));
        let long_ago = SystemTime::now() - Duration::from_secs(40 * 86_400);
        let age = |p: PathBuf| {
            let f = std::fs::File::options().write(true).open(p).unwrap();
            f.set_modified(long_ago).unwrap();
        };
        age(cache.join("m-old/used"));
        // A directory's time is set through a handle opened on it (read-only works on Linux).
        std::fs::File::open(cache.join("tmp-old"))
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
        sweep_now(&cache, Duration::from_secs(30 * 86_400));
        let mut left: Vec<String> = std::fs::read_dir(&cache)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !n.ends_with(".lock"))
            .collect();
        left.sort();
        assert_eq!(left, ["m-new", "tmp-new"]);
        let _ = std::fs::remove_dir_all(&cache);
    }

    #[test]
    fn shim_handles_every_width() {
        let port = |name: &str, width, dir| PortInfo {
            name: name.into(),
            width,
            dir,
        };
        let s = shim(&[
            port("a", 1, PortDir::Input),
            port("b", 100, PortDir::Input),
            port("c", 512, PortDir::Output),
        ]);
        assert!(s.contains("case 1: for (int k = 0; k < 4; ++k) m->b[k]"));
        assert!(s.contains("case 2: for (int k = 0; k < 8; ++k) w[k] = 0; for (int k = 0; k < 16;"));
    }
}
