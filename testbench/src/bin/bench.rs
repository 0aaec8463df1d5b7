//! `make bench`: simulation speed of one bench on both backends, the iCE40-HX8K and ECP5-85k
//! cost of the building blocks against the reference designs in `flow/bench/reference.toml`
//! ([`testbench::cost_cases`]), the link layer's goodput, latencies and endpoint cost on
//! both parts ([`testbench::link_perf`]), and the register file's latency and cost on iCE40
//! and ECP5 ([`testbench::regfile_perf`]), the management agent's unpacker and packer
//! ([`testbench::mgmt_perf`]) with the configuration loader and register arbiter
//! ([`testbench::loader_perf`]), and the relay station's and 8-port relay-station mesh's cost on
//! iCE40 ([`testbench::rs_perf`]), the router's switch on iCE40 ([`testbench::switch_cost`]),
//! the router core's throughput, latency and simulation speed on Verilator
//! ([`testbench::router_perf`]), the fat tree of six router chips (`fabric`: adaptive against
//! deterministic routing, [`testbench::fabric::perf`]), the router chip's ECP5 placement
//! (`nrc-top`, [`testbench::nrc_top_perf`]) and the published 24-port chip's lint and generic
//! synthesis (`nrc-top24`), and the NIC's doorbells and function table on iCE40
//! ([`testbench::nic_cost`]), and two NIC DMA cores back to back on Verilator (`nic-pair`,
//! [`testbench::nic_pair`]: throughput and simulation speed), and the NIC chip `nic_top` placed
//! on the ECP5 (`nic-top`, [`testbench::nic_cost::chip_on_ecp5`]).
//!
//! Usage: `bench [speed|cost|link|link-sim|link-cost|regfile|mgmt|mgmt-sim|mgmt-cost|rs|switch|router|fabric|nrc-top|nrc-top24|nic|nic-pair|nic-put|nic-shares|nic-top]...` (all
//! when none; `link` is `link-sim`, the simulated link tables, plus `link-cost`, the endpoint's
//! placement, which takes minutes; likewise `mgmt` is `mgmt-sim`, the management agent's and the
//! router's management plane's simulated figures, plus `mgmt-cost`, their iCE40 tables). Prints
//! tables; measures, never asserts.
use anyhow::Result;
use std::path::{Path, PathBuf};
use testbench::speed;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn cost() -> Result<()> {
    testbench::cost_cases::report(&workspace().join("build/bench"))
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
    let (sim, cost) = (
        all || has("mgmt") || has("mgmt-sim"),
        all || has("mgmt") || has("mgmt-cost"),
    );
    if sim || cost {
        testbench::mgmt_perf::report(&workspace().join("build/bench/mgmt"), sim, cost)?;
        testbench::loader_perf::report(&workspace().join("build/bench/loader"), sim, cost)?;
    }
    if cost || has("nma-mesh") {
        testbench::nma_mesh_top::report(&workspace().join("build/bench/nma_mesh"))?;
    }
    if all || has("rs") {
        testbench::rs_perf::report(&workspace().join("build/bench/rs"))?;
    }
    if all || has("switch") {
        testbench::switch_cost::report(&workspace().join("build/bench/switch"))?;
    }
    if all || has("router") {
        testbench::router_perf::report(&workspace().join("build/bench"))?;
    }
    if all || has("fabric") {
        testbench::fabric::perf::report();
    }
    if all || has("nrc-top") {
        testbench::nrc_top_perf::report(&workspace().join("build/bench/nrc_top"))?;
    }
    if all || has("nrc-top24") {
        testbench::nrc_top_perf::report_published(
            &workspace().join("build/bench/nrc_top24"),
            &workspace().join("configs/published.toml"),
        )?;
    }
    if all || has("nic") || has("nic-send") {
        testbench::nic_send_perf::report()?;
    }
    if all || has("nic") {
        testbench::nic_cost::report(&workspace().join("build/bench/nic"))?;
    }
    if all || has("nic") || has("nic-pair") {
        testbench::nic_pair::report()?;
    }
    if all || has("nic") || has("nic-put") {
        testbench::nic_put_perf::report(&workspace().join("build/bench/nic"))?;
    }
    if has("nic-shares") {
        testbench::nic_put_perf::report_shares()?;
    }
    if all || has("nic-top") {
        testbench::nic_cost::chip_on_ecp5(&workspace().join("build/bench/nic"))?;
    }
    Ok(())
}
