//! `bench router`: the router core (`nrc_core`, 5 ports) on Verilator under uniform random
//! traffic: accepted throughput and mean head latency against offered load, the saturation
//! throughput as a fraction of capacity (one flit per cycle per port), the zero-load latency
//! (head in to head out), and the simulation speed; for the default configuration (2 VCs) and
//! the published router's 6 VCs.
//!
//! Traffic: every input offers packets as a Bernoulli process (open loop: a packet joins the
//! input's queue with probability `load / mean length` per cycle), lengths uniform in
//! 2..=`network.max_packet_flits`, VCs uniform over every VC (the default VC policy keeps it),
//! destinations uniform over 40 nodes whose route table entries name one port each
//! (`node mod 5`), so outputs are uniform too. The outputs drain every cycle and return each
//! credit 2 to 4 cycles later (a short link). Warm-up 2,000 cycles, then 10,000 measured.
use crate::backend::Backend;
use crate::mgmt_client::{Operation, Reply, Target};
use crate::router_core_bench::{CoreWorld, Shape, PORTS};
use hdl::formats::header::PacketKind;
use std::time::Instant;

/// Destinations of the traffic.
const NODES_USED: u16 = 40;
const WARMUP: u64 = 2_000;
const MEASURED: u64 = 10_000;
/// Offered loads, flits per cycle per input.
pub const LOADS: [f64; 7] = [0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 1.0];

/// One point of the curve.
#[derive(Clone, Copy, Debug)]
pub struct Point {
    /// Offered load, flits per cycle per input.
    pub offered: f64,
    /// Accepted throughput, flits per cycle per output.
    pub accepted: f64,
    /// Mean head in to head out of the packets that left while measuring, cycles.
    pub latency: f64,
}

/// A world of `shape` with the uniform table loaded in band.
pub fn uniform_world(shape: Shape, seed: u64) -> CoreWorld {
    let mut w = CoreWorld::new(shape, seed);
    w.reset(4);
    let index = CoreWorld::address("route_index");
    let ports = CoreWorld::address("route_ports");
    for d in 0..NODES_USED {
        let mask = 1u8 << (d as usize % PORTS);
        w.table[d as usize] = mask;
        w.client.submit(
            Target {
                chip_id: hdl::formats::mgmt::UNSET_ID,
                chip_type: hdl::formats::mgmt::DestType::Nrc,
                entry_port: (d as usize % PORTS) as u8,
                path: vec![],
            },
            Operation::WriteRegisters(vec![(index, d as u64), (ports, mask as u64)]),
        );
    }
    let mut left = NODES_USED as usize;
    for _ in 0..200_000 {
        for c in w.client.completions() {
            assert_eq!(c.outcome, Ok(Reply::Written), "route table write");
            left -= 1;
        }
        if left == 0 {
            break;
        }
        w.cycle();
    }
    assert_eq!(left, 0, "route table writes unanswered");
    w.credit_delay = (2, 4);
    w
}

/// One load point on a fresh world: (point, cycles simulated, seconds).
pub fn measure(shape: Shape, load: f64, seed: u64) -> (Point, u64, f64) {
    let mut w = uniform_world(shape, seed);
    let mean_len = (2 + w.max_len) as f64 / 2.0;
    let start_cycle = w.b.cycle();
    let start = Instant::now();
    let mut base = w.stats;
    for t in 0..WARMUP + MEASURED {
        if t == WARMUP {
            base = w.stats;
        }
        for input in 0..PORTS {
            if w.rng.chance(load / mean_len) {
                let vc = w.rng.range(0, w.vcs as u64 - 1) as usize;
                let len = w.rng.range(2, w.max_len as u64) as usize;
                let d = w.rng.range(0, NODES_USED as u64 - 1) as u16;
                w.send(input, vc, d, len, PacketKind::Put);
            }
        }
        w.cycle();
    }
    let seconds = start.elapsed().as_secs_f64();
    let s = w.stats;
    let packets = s.delivered - base.delivered;
    let point = Point {
        offered: load,
        accepted: (s.delivered_flits - base.delivered_flits) as f64
            / (MEASURED * PORTS as u64) as f64,
        latency: (s.latency_sum - base.latency_sum) as f64 / packets.max(1) as f64,
    };
    (point, w.b.cycle() - start_cycle, seconds)
}

/// Zero-load latency: one packet at a time on every input and VC; (min, max).
pub fn zero_load(shape: Shape) -> (u64, u64) {
    let mut w = uniform_world(shape, 3);
    for input in 0..PORTS {
        for vc in 0..w.vcs {
            w.send(input, vc, (input + 1) as u16, 4, PacketKind::Nap);
            assert!(w.drain_all(1_000), "a packet did not leave");
        }
    }
    (w.stats.latency_min, w.stats.latency_max)
}

/// Runs the table of both shapes and prints it.
pub fn report() {
    println!("\n## The router core under uniform random traffic (Verilator, 5 ports)\n");
    println!("Offered and accepted load in flits per cycle per port (capacity 1); latency head in to head out, cycles.\n");
    for shape in [Shape::Default, Shape::SixVcs] {
        let vcs = shape.config().network.vcs;
        let (zmin, zmax) = zero_load(shape);
        println!("### {vcs} VCs (zero-load latency {zmin}..{zmax} cycles)\n");
        println!("| offered | accepted | mean latency |");
        println!("|---|---|---|");
        let mut cycles = 0;
        let mut seconds = 0.0;
        let mut saturation: f64 = 0.0;
        for (k, load) in LOADS.iter().enumerate() {
            let (p, c, s) = measure(shape, *load, 100 + k as u64);
            cycles += c;
            seconds += s;
            saturation = saturation.max(p.accepted);
            println!(
                "| {:.2} | {:.3} | {:.1} |",
                p.offered, p.accepted, p.latency
            );
        }
        println!(
            "\nSaturation throughput ({vcs} VCs): {:.3} of capacity; Verilator with the bench: {:.0} cycles/s\n",
            saturation,
            cycles as f64 / seconds
        );
    }
}
