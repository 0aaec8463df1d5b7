//! `hpcnet`: emit the Verilog of a configuration, print or check configurations, and run the
//! open-source lint, synthesis and FPGA flows on what was emitted.
use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
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
    /// Synthesize every emitted top with Yosys (generic, no latches; iCE40), print utilization.
    Synth {
        /// Directory of emitted tops.
        #[arg(long, default_value = "verilog-out")]
        dir: PathBuf,
        /// Work directory for logs and netlists.
        #[arg(long, default_value = "build/synth")]
        work: PathBuf,
    },
    /// Build the Alchitry Cu bitstream of the demo top (synth_ice40, nextpnr at the configured
    /// MHz, icepack), failing if timing is missed; print LUTs, BRAMs and Fmax.
    Fpga {
        /// Configuration file (TOML); the default configuration if absent.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Work directory for the Verilog, PCF, logs and bitstream.
        #[arg(long, default_value = "build/fpga")]
        dir: PathBuf,
    },
    /// Write docs/formats.md from the format definitions.
    Docs {
        /// Output directory.
        #[arg(long, default_value = "docs")]
        out: PathBuf,
    },
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
        Command::Fpga { config, dir } => {
            let (cfg, name) = load(config.as_deref())?;
            flows::fpga(&cfg, &name, &dir)
        }
        Command::Synth { dir, work } => flows::synth(&dir, &work),
        Command::Docs { out } => {
            std::fs::create_dir_all(&out)?;
            let path = out.join("formats.md");
            std::fs::write(&path, hdl::formats::markdown())?;
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
            eprintln!("error: {}", format!("{e:#}").replace('\n', " "));
            ExitCode::FAILURE
        }
    }
}
