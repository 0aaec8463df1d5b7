//! `make bench` link tables (issue 3): goodput against bit error rate, replay latency, the
//! latency the link layer adds, flits per cycle at each lane count, and the iCE40 cost of one
//! endpoint. Every figure comes from two emitted `llp_endpoint`s on Verilator
//! ([`run_link`]) or from the FPGA flow ([`flow::measure_block_with`]); nothing here
//! asserts (the guarantees are the tests' job in `tests/llp_link.rs`).
use crate::link_bench::{endpoint_model, run_link, EndpointShape, LinkReport, LinkRun};
use crate::models::lane_channel::Faults;
use anyhow::{anyhow, Result};
use hdl::params::Config;
use std::path::Path;

/// Flits per direction of each measuring run (about as many cycles).
const FLITS: u64 = 300_000;

/// Runs per bit error rate (different traffic and error seeds), averaged.
const SEEDS: [u64; 2] = [0, 1];

/// Bit error rates of the goodput table (issue 3).
pub const BERS: [f64; 5] = [0.0, 1e-7, 1e-6, 1e-5, 1e-4];

/// Wire delay of every run, cycles (subtracted from the added latency).
const DELAY: usize = 4;

fn run(shape: EndpointShape, run: LinkRun) -> Result<LinkReport> {
    let m = endpoint_model(shape)?;
    run_link(&m, shape.vcs, &run).map_err(|e| anyhow!("link run {run:?}: {e}"))
}

fn percentile(v: &mut [u64], p: f64) -> u64 {
    if v.is_empty() {
        return 0;
    }
    v.sort_unstable();
    v[((v.len() - 1) as f64 * p).round() as usize]
}

/// Mean goodput of both directions, payload flits per cycle.
fn goodput(r: &LinkReport) -> f64 {
    (r.dirs[0].goodput() + r.dirs[1].goodput()) / 2.0
}

/// Flit slots per cycle of a wire of `lanes` lanes of `lane_bits`: an LTP of 16 flits is
/// 1,056 bits, and each lane carries `lane_bits` per cycle (4 x 32: 1.94; 4 x 16: 0.97).
pub fn wire_capacity(lanes: usize, lane_bits: usize) -> f64 {
    (lanes * lane_bits) as f64 * 16.0 / 1056.0
}

/// Goodput at each of [`BERS`], full load both ways, and the replay latency at each rate.
fn ber_table(shape: EndpointShape) -> Result<()> {
    println!(
        "\n### Goodput against bit error rate ({} lanes of {} bits, {} VCs, replay {} LTPs, buffers {} flits; {} runs of {FLITS} flits each way, offered every cycle, packets of 2..16 flits, wire delay {DELAY}, lane removal ON at the configuration's defaults, link training on)\n",
        shape.lanes, shape.lane_bits, shape.vcs, shape.replay, shape.depth, SEEDS.len()
    );
    println!("| BER | goodput (flits/cycle, mean of both ways and runs) | of the wire's flit slots | of error-free | widths at the end (A rx, B rx, each run) | trainings | LTPs rejected at A, B (all runs) | retries | replay latency p50 / p90 / max (cycles) |");
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut clean = 0.0;
    for (i, &ber) in BERS.iter().enumerate() {
        let faults = Faults::uniform(ber);
        let runs = SEEDS
            .iter()
            .map(|s| {
                run(
                    shape,
                    LinkRun {
                        ab: faults,
                        ba: faults,
                        delay: DELAY,
                        flits: FLITS,
                        seed: 100 + 10 * i as u64 + s,
                        ..Default::default()
                    },
                )
            })
            .collect::<Result<Vec<_>>>()?;
        let g = runs.iter().map(goodput).sum::<f64>() / runs.len() as f64;
        if i == 0 {
            clean = g;
        }
        let sum = |f: &dyn Fn(&LinkReport) -> u64| runs.iter().map(f).sum::<u64>();
        let mut lat: Vec<u64> = runs.iter().flat_map(|r| r.replay_latency.clone()).collect();
        let replay = if lat.is_empty() {
            "-".to_string()
        } else {
            format!(
                "{} / {} / {} ({} samples)",
                percentile(&mut lat, 0.5),
                percentile(&mut lat, 0.9),
                percentile(&mut lat, 1.0),
                lat.len()
            )
        };
        let widths: Vec<String> = runs
            .iter()
            .map(|r| format!("{}, {}", r.status[0].rx_width, r.status[1].rx_width))
            .collect();
        println!(
            "| {ber:.0e} | {g:.4} | {:.1} % | {:.1} % | {} | {} | {}, {} | {} | {replay} |",
            100.0 * g / wire_capacity(shape.lanes, shape.lane_bits),
            100.0 * g / clean,
            widths.join("; "),
            sum(&|r| r.status[0].trainings + r.status[1].trainings),
            sum(&|r| r.status[0].ltps_bad),
            sum(&|r| r.status[1].ltps_bad),
            sum(&|r| r.status[0].retries + r.status[1].retries),
        );
    }
    println!("\nGoals: at least 90 % of the wire's flit slots error-free; at least 99 % of the error-free goodput at 1e-6 and 90 % at 1e-5, still at 4 lanes, with lane removal on. Rejected LTPs include those discarded in flight during each retry (go-back-N); retries count the error events. Replay latency: cycles at B from a bad LTP (CRC check failed) to the next LTP delivered, which is its replayed good copy.");
    Ok(())
}

/// The long run: 2 million flits each way at BER 1e-6 with lane removal on, one run.
fn long_run(shape: EndpointShape) -> Result<()> {
    const LONG: u64 = 2_000_000;
    let faults = Faults::uniform(1e-6);
    let r = run(
        shape,
        LinkRun {
            ab: faults,
            ba: faults,
            delay: DELAY,
            flits: LONG,
            seed: 700,
            ..Default::default()
        },
    )?;
    println!("\n### Long run: {LONG} flits each way, BER 1e-6, lane removal ON, full load, wire delay {DELAY}\n");
    println!("| cycles | goodput A to B, B to A (flits/cycle) | of the wire's flit slots | widths at the end (A rx, B rx) | lanes removed | LTPs rejected at A, B | retries | trainings | flits lost |");
    println!("|---|---|---|---|---|---|---|---|---|");
    let (a, b) = (r.status[0], r.status[1]);
    println!(
        "| {} | {:.4}, {:.4} | {:.1} % | {}, {} | {} | {}, {} | {} | {} | 0 (the scoreboard fails the run on any loss) |",
        r.cycles,
        r.dirs[0].goodput(),
        r.dirs[1].goodput(),
        100.0 * goodput(&r) / wire_capacity(shape.lanes, shape.lane_bits),
        a.rx_width,
        b.rx_width,
        a.lanes_removed + b.lanes_removed,
        a.ltps_bad,
        b.ltps_bad,
        a.retries + b.retries,
        a.trainings + b.trainings,
    );
    Ok(())
}

/// Latency from a flit entering A's core port to it leaving B's, without errors.
fn latency_table(shape: EndpointShape) -> Result<()> {
    println!("\n### Latency added by the link layer (no errors, A to B, VC interleaving on, wire delay {DELAY} cycles subtracted)\n");
    println!("| offered load (flits/cycle/VC) | flit min | flit mean | tail min | tail mean | tail max (cycles) |");
    println!("|---|---|---|---|---|---|");
    for (i, rate) in [0.05, 0.2, 0.4].into_iter().enumerate() {
        let r = run(
            shape,
            LinkRun {
                delay: DELAY,
                flits: 20_000,
                tx_rate: rate,
                interleave: true,
                seed: 200 + i as u64,
                ..Default::default()
            },
        )?;
        let d = &r.dirs[0];
        let sub = DELAY as u64;
        println!(
            "| {rate} | {} | {:.1} | {} | {:.1} | {} |",
            d.lat_min - sub,
            d.lat_mean - sub as f64,
            d.tail_min - sub,
            d.tail_mean - sub as f64,
            d.tail_max - sub
        );
    }
    println!("\nThe receive buffers release whole packets only (virtual cut-through with dirty-packet discard), so a flit's latency includes waiting for its packet's tail, which a slow source makes long; the tail latency (a packet's last flit, in at A to out at B) is what the link layer adds to a packet. It is set by the LTP: the tail is delivered once its whole LTP (16 flits, 17 cycles on the lanes) has arrived and passed its CRC, plus the stages of queue, builder, replay RAM, striper, deframer, receive protocol and staging. With VC interleaving off (whole packets), a packet trickling in slowly on one VC holds the link and the other VC waits behind it.");
    Ok(())
}

/// Flits per cycle at 1 to 4 lanes, full load, no errors.
fn lanes_table(base: EndpointShape) -> Result<()> {
    println!(
        "\n### Flits per cycle at each link width, lanes of {} bits (no errors, full load)\n",
        base.lane_bits
    );
    println!("| lanes | goodput (flits/cycle) | of 4 lanes | of the wire's flit slots |");
    println!("|---|---|---|---|");
    let mut full = 0.0;
    for lanes in [4, 3, 2, 1] {
        let shape = EndpointShape { lanes, ..base };
        let r = run(
            shape,
            LinkRun {
                delay: DELAY,
                flits: 100_000,
                seed: 300 + lanes as u64,
                ..Default::default()
            },
        )?;
        let g = goodput(&r);
        if lanes == 4 {
            full = g;
        }
        println!(
            "| {lanes} | {g:.4} | {:.1} % | {:.1} % |",
            100.0 * g / full,
            100.0 * g / wire_capacity(lanes, base.lane_bits)
        );
    }
    println!("\nThe serializer sends an LTP (33 XFRs of 32 bits) in 17 cycles when the wire takes it: at 32-bit lanes 2 to 4 lanes keep that rate and 1 lane takes 33 cycles; at 16-bit lanes (an XFR in two transfers) 4 lanes keep it and fewer lanes take 33 x 2 / L cycles. The payload rate is the LTP rate less Idle, CrdtRet, VlMrkr and round-trip flits.");
    Ok(())
}

/// Time to train at power-up, to recover from one end's reset, and to recover from a lane
/// that gets stuck (training leaves it out) or dies (lane removal), with traffic both ways.
fn recovery_table(shape: EndpointShape) -> Result<()> {
    use crate::link_bench::EndReset;
    use crate::models::lane_channel::{BadLane, LaneFault};
    println!("\n### Training and recovery (full load both ways, BER 1e-6, wire delay {DELAY}, 3 seeds)\n");
    println!("| event | cycles (each seed) | goal |");
    println!("|---|---|---|");
    let bad = |fault| Faults {
        ber: 1e-6,
        bad: Some(BadLane {
            lane: 2,
            from: 20_000,
            to: u64::MAX,
            fault,
        }),
        ..Default::default()
    };
    let mut train = vec![];
    let mut reset = vec![];
    let mut stuck = vec![];
    let mut dead = vec![];
    for seed in 0..3u64 {
        let r = run(
            shape,
            LinkRun {
                ab: Faults::uniform(1e-6),
                ba: Faults::uniform(1e-6),
                delay: DELAY,
                flits: 60_000,
                power_up: [2, 2 + 1000 * seed],
                resets: [
                    Some(EndReset {
                        end: (seed % 2) as usize,
                        at: 30_000,
                        len: 10,
                    }),
                    None,
                    None,
                    None,
                ],
                seed: 400 + seed,
                ..Default::default()
            },
        )?;
        train.push(r.train_cycles.to_string());
        reset.extend(r.reset_recovery.iter().map(|c| c.to_string()));
        for (fault, out) in [
            (LaneFault::Stuck(0xffff_ffff), &mut stuck),
            (LaneFault::Dead, &mut dead),
        ] {
            let r = run(
                shape,
                LinkRun {
                    ab: bad(fault),
                    ba: Faults::uniform(1e-6),
                    delay: DELAY,
                    flits: 60_000,
                    seed: 410 + seed,
                    ..Default::default()
                },
            )?;
            out.extend(r.fault_recovery.iter().map(|c| c.to_string()));
        }
    }
    println!(
        "| power-up to both ends up (B up to 2,000 cycles after A) | {} | - |",
        train.join(", ")
    );
    println!(
        "| one end reset for 10 cycles: release to both ends up | {} | 20,000 |",
        reset.join(", ")
    );
    println!("| lane 2 stuck at all ones (valid high): failure to the first packet sent after it delivered | {} | 5,000 |", stuck.join(", "));
    println!(
        "| lane 2 dead: failure to the first packet sent after it delivered | {} | 5,000 |",
        dead.join(", ")
    );
    if shape.lane_bits == 32 {
        println!("\nA stuck lane fails every LTP and every retry marker, so the link goes down after `link.retry_limit` retry requests of `link.retry_timeout` cycles each and trains without it; a dead lane is named by the deframer (missing transfers) and removed without training.");
    } else {
        println!("\nOn 16-bit lanes a lane stuck at a constant with its sideband low frames no transfer (the receive gearbox pairs halves by the sideband), so it is missing like a dead lane: named by the deframer and removed without training.");
    }
    Ok(())
}

/// The cost of the default configuration's endpoint on both parts.
fn cost_table(cfg: &Config, work: &Path) -> Result<()> {
    let top = hdl::tops::llp_endpoint(cfg).map_err(anyhow::Error::msg)?;
    let dir = work.join(format!("{}_{}", top.name, cfg.link.lane_bits));
    std::fs::create_dir_all(&dir)?;
    let file = dir.join(format!("{}.v", top.name));
    std::fs::write(&file, &top.verilog)?;
    let label = format!(
        "llp_endpoint (L = {} x {} bits, {} VCs, replay {} LTPs, buffers {} flits)",
        cfg.link.lanes,
        cfg.link.lane_bits,
        cfg.network.vcs,
        cfg.link.replay_ltps,
        cfg.link.vc_buffer_flits
    );
    println!("\n### Cost of one endpoint ({}-bit lanes; LUT/FF/BRAM of the endpoint synthesized alone, Fmax the median of 3 nextpnr seeds on a register-to-register harness fed straight from its LFSR, whose first stage XOR-folds the outputs)\n", cfg.link.lane_bits);
    println!("| part | block | LUTs | FFs | BRAMs | carries | Fmax (MHz) | seeds (MHz) | placed logic cells incl. harness | place and route (s, 3 seeds) |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for target in flow::Target::ALL {
        // Three seeds: one placement of this design takes minutes. A flip-flop per input bit
        // and per output bit (about 1,100) would not leave room for the endpoint on the HX8K:
        // inputs come straight from the LFSR and outputs are folded before their first
        // register (the same harness on both parts, so the figures compare).
        let options = flow::MeasureOptions {
            seeds: vec![1, 2, 3],
            inputs: flow::harness::Inputs::Lfsr,
            outputs: flow::harness::Outputs::Folded,
            synth: flow::SynthOptions::for_target(target),
            ..Default::default()
        };
        let tdir = dir.join(target.name());
        match flow::measure_block_with(&[&file], &top.name, &tdir, &options) {
            Ok(c) => println!(
                "| {} | {label} | {} | {} | {} | {} | {:.1} | {} | {} of {} | {:.0} |",
                target.part(),
                c.luts,
                c.ffs,
                c.brams,
                c.carries,
                c.fmax_mhz,
                c.seeds_text(),
                c.placed_lcs,
                c.placements[0].lcs.available,
                c.elapsed[2].as_secs_f64()
            ),
            // A design that does not fit is a figure too: keep the synthesis numbers.
            Err(e) => {
                let block = flow::synth_with(
                    &[&file],
                    &top.name,
                    &tdir.join("alone"),
                    &flow::SynthOptions::for_target(target),
                )?;
                let why = format!("{e:#}");
                let why = why
                    .lines()
                    .find(|l| l.contains("ERROR"))
                    .unwrap_or("placement failed")
                    .trim()
                    .to_string();
                println!(
                    "| {} | {label} | {} | {} | {} | {} | not placed: {why} | - | - | - |",
                    target.part(),
                    block.luts,
                    block.ffs,
                    block.brams,
                    block.carries,
                );
            }
        }
    }
    println!("\nGoals: fits an iCE40-HX8K (7,680 logic cells of one LUT and one flip-flop each, 32 BRAMs) at 60 MHz or more; on the ECP5-85k (83,640 LUTs, 208 BRAMs) whole chips are placed, so the endpoint's share of it is what matters.");
    Ok(())
}

/// The lane width `link.lane_bits` allows besides `lane_bits`.
fn other_lane_bits(lane_bits: u32) -> u32 {
    if lane_bits == 16 {
        32
    } else {
        16
    }
}

/// Prints the simulated link tables (`sim`) and the endpoint's cost on both parts (`cost`);
/// `work` holds the FPGA flow's files.
pub fn report(work: &Path, sim: bool, cost: bool) -> Result<()> {
    let cfg = Config::default();
    let shape = EndpointShape::of(&cfg);
    if sim {
        println!("\n## Link layer (two emitted llp_endpoints on Verilator, default configuration)");
        ber_table(shape)?;
        long_run(shape)?;
        latency_table(shape)?;
        lanes_table(shape)?;
        recovery_table(shape)?;
        // The other lane width (`link.lane_bits`): its goodput, long run, widths and recovery.
        let other = EndpointShape {
            lane_bits: other_lane_bits(shape.lane_bits as u32) as usize,
            ..shape
        };
        println!(
            "\n## Link layer on lanes of {} bits (`link.lane_bits = {}`, otherwise the default configuration)",
            other.lane_bits, other.lane_bits
        );
        ber_table(other)?;
        long_run(other)?;
        lanes_table(other)?;
        recovery_table(other)?;
    }
    if cost {
        cost_table(&cfg, work)?;
        let mut other = cfg.clone();
        other.link.lane_bits = other_lane_bits(cfg.link.lane_bits);
        cost_table(&other, work)?;
    }
    Ok(())
}
