//! `bench router`: the router core (`nrc_core`, 5 ports) on Verilator under traffic patterns
//! (issue 11): latency (head in to head out, and whole packets from their queueing at the
//! source to their last flit out) against offered load for uniform random, hotspot,
//! permutation and bursty traffic, the saturation throughput as a fraction of capacity (one
//! flit per cycle per port), the zero-load hop latency, adaptive against deterministic routing
//! where a destination has two allowed ports, and an SVG plot of latency against load
//! (`build/bench/router_latency.svg`, plain SVG written here); for the default configuration
//! (2 VCs) and the published router's 6 VCs.
//!
//! The world ([`crate::router_core_bench::CoreWorld`]): behind every output a model of the next
//! hop's input unit ([`Downstream`](crate::router_core_bench::Downstream): the configured DAMQ
//! and its credit policy as the reference model `DamqModel` has them, a wire of [`WIRE`]
//! cycles each way), whose switch reads a flit a cycle (or, with back-pressure, with
//! probability [`BACKPRESSURE`]); every input a source that offers
//! packets as an open-loop process (lengths uniform in 2..=`network.max_packet_flits`) on
//! the VC the source NIC's Dest-Mod rule gives (data VC `dst mod n` of the `n` data VCs, the
//! spec's VC policy: with 6 VCs, 5 data VCs for 5 ports, the VCs act as virtual output
//! queues); with the router's `keep` policy the packet leaves on that VC. Destinations: 40
//! nodes, node `d` on port `d mod 5` (one allowed port), or on ports `d mod 5` and
//! `d + 1 mod 5` for the adaptive comparison. The scoreboard of `CoreWorld` checks every packet
//! (once, whole, on an allowed port, in order per flow, head rewritten) in every run.
//!
//! Patterns ([`Pattern`]): uniform (every node alike, own port included), hotspot (30 % of
//! packets to port 0's nodes, the rest uniform: port 0 is offered 2.2 times the load),
//! permutation (input `i` to port `(i + 2) mod 5`), bursty (on/off sources: bursts of 8
//! packets on average back to back to one destination, idle between, averaging the offered
//! load).
//!
//! Saturation is the highest accepted throughput over the offered loads (open loop: beyond it
//! the sources' queues grow). Also measured: uniform traffic at offered 1.0 with 1 to 3
//! allocator iterations (`router.alloc_iterations`, a model per setting), with the sources'
//! VC chosen at random instead of Dest-Mod, with next-hop back-pressure and with a longer wire.
//! Measures, never asserts (the scoreboard's checks excepted).
use crate::backend::Backend;
use crate::mgmt_client::{Operation, Reply, Target};
use crate::plot::{self, Axis, Curve, COLOURS};
use crate::rng::BenchRng;
use crate::router_core_bench::{CoreWorld, Shape, PORTS};
use hdl::formats::header::PacketKind;
use std::path::Path;
use std::time::Instant;

/// Destinations of the traffic (node `d` on port `d mod PORTS`).
pub const NODES_USED: u16 = 40;
/// Wire delay each way between an output and the next hop's buffer, cycles.
pub const WIRE: u64 = 2;
/// Chance per cycle that a next hop reads a flit, in the runs with back-pressure.
pub const BACKPRESSURE: f64 = 0.8;
/// A longer wire each way, for the saturation table.
pub const LONG_WIRE: u64 = 8;
const WARMUP: u64 = 2_000;
const MEASURED: u64 = 8_000;
/// Offered loads, flits per cycle per input.
pub const LOADS: [f64; 8] = [0.1, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
/// Share of hotspot traffic to the hot port.
pub const HOT_SHARE: f64 = 0.3;
/// Mean packets of a burst.
pub const BURST: f64 = 8.0;

/// A traffic pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Destinations uniform over every node.
    Uniform,
    /// [`HOT_SHARE`] of the packets to port 0's nodes, the rest uniform.
    Hotspot,
    /// Input `i` to port `(i + 2) mod 5`'s nodes.
    Permutation,
    /// On/off sources: bursts to one destination.
    Bursty,
}

impl Pattern {
    /// Every pattern.
    pub const ALL: [Pattern; 4] = [
        Pattern::Uniform,
        Pattern::Hotspot,
        Pattern::Permutation,
        Pattern::Bursty,
    ];
    /// Its name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Uniform => "uniform",
            Pattern::Hotspot => "hotspot",
            Pattern::Permutation => "permutation",
            Pattern::Bursty => "bursty",
        }
    }
}

/// How the source picks a packet's VC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VcRule {
    /// Data VC `dst mod n` (the source NIC's Dest-Mod).
    DestMod,
    /// A data VC at random.
    Random,
}

/// One run.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    /// The configuration simulated.
    pub shape: Shape,
    /// The traffic.
    pub pattern: Pattern,
    /// Offered load, flits per cycle per input.
    pub load: f64,
    /// Chance the next hop reads a flit in a cycle.
    pub drain: f64,
    /// The source's VC rule.
    pub vc_rule: VcRule,
    /// Two allowed ports per destination (else one).
    pub two_ports: bool,
    /// Deterministic routing (else adaptive).
    pub deterministic: bool,
    /// Allocator iterations (`router.alloc_iterations`, 1..=3).
    pub iterations: usize,
    /// Wire delay each way to the next hop's buffer, cycles.
    pub wire: u64,
    /// The sources send packet by packet (a diagnostic: the link port's sender interleaves
    /// its VCs flit by flit).
    pub packet_senders: bool,
    /// Cycles measured (after a warm-up of [`WARMUP`]).
    pub cycles: u64,
    /// Seed of the world.
    pub seed: u64,
}

impl Run {
    /// `pattern` at `load` on `shape`, Dest-Mod VCs, one allowed port, adaptive, the
    /// configured allocator iterations, no back-pressure, [`WIRE`], [`MEASURED`] cycles.
    pub fn new(shape: Shape, pattern: Pattern, load: f64) -> Self {
        Run {
            shape,
            pattern,
            load,
            drain: 1.0,
            vc_rule: VcRule::DestMod,
            two_ports: false,
            deterministic: false,
            iterations: shape.config().router.alloc_iterations as usize,
            wire: WIRE,
            packet_senders: false,
            cycles: MEASURED,
            seed: 1,
        }
    }
}

/// What a run measured.
#[derive(Clone, Copy, Debug, Default)]
pub struct Point {
    /// Offered load, flits per cycle per input.
    pub offered: f64,
    /// Accepted throughput, flits per cycle per output.
    pub accepted: f64,
    /// Mean head in to head out of the packets that left while measuring, cycles.
    pub hop_latency: f64,
    /// Mean packet latency (queued at the source to last flit out), cycles.
    pub packet_latency: f64,
    /// Packets checked while measuring.
    pub packets: u64,
}

/// A world of `shape` with `iterations` allocator iterations, the route table of `two_ports`
/// loaded in band, next hops modelled behind wires of `wire` cycles.
pub fn world(shape: Shape, iterations: usize, seed: u64, two_ports: bool, wire: u64) -> CoreWorld {
    let mut w = CoreWorld::with_iterations(shape, iterations, seed);
    w.reset(4);
    let index = CoreWorld::address("route_index");
    let ports = CoreWorld::address("route_ports");
    for d in 0..NODES_USED {
        let p = d as usize % PORTS;
        let mut mask = 1u8 << p;
        if two_ports {
            mask |= 1 << ((p + 1) % PORTS);
        }
        w.table[d as usize] = mask;
        w.client.submit(
            Target {
                chip_id: hdl::formats::mgmt::UNSET_ID,
                chip_type: hdl::formats::mgmt::DestType::Nrc,
                entry_port: p as u8,
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
    w.model_next_hops(wire);
    w
}

/// A node on port `port` (of the 40).
fn node_on(rng: &mut BenchRng, port: usize) -> u16 {
    let k = rng.range(0, (NODES_USED as u64) / PORTS as u64 - 1);
    (port as u64 + k * PORTS as u64) as u16
}

/// The traffic sources of a run: per input, the burst state of the bursty pattern.
pub struct Sources {
    pattern: Pattern,
    load: f64,
    mean_len: f64,
    /// Per input: the destination of its burst.
    bursts: Vec<u16>,
    /// Per input: the source is on.
    on: Vec<bool>,
}

impl Sources {
    /// The sources of `pattern` at `load` for packets of mean length `mean_len`.
    pub fn new(pattern: Pattern, load: f64, mean_len: f64) -> Self {
        Sources {
            pattern,
            load,
            mean_len,
            bursts: vec![0; PORTS],
            on: vec![false; PORTS],
        }
    }

    /// The packets input `i` queues in this cycle (at most one): its destination.
    pub fn next(&mut self, rng: &mut BenchRng, i: usize) -> Option<u16> {
        let per_cycle = self.load / self.mean_len;
        match self.pattern {
            Pattern::Bursty => {
                // On: a packet every mean_len cycles (the link's rate); the on/off chain keeps
                // the mean at `load` with bursts of BURST packets on average.
                let end = 1.0 / (BURST * self.mean_len);
                if self.on[i] {
                    if rng.chance(end) {
                        self.on[i] = false;
                    }
                } else {
                    let start = (end * self.load / (1.0 - self.load).max(1e-9)).min(1.0);
                    if rng.chance(start) {
                        self.on[i] = true;
                        let port = rng.range(0, PORTS as u64 - 1) as usize;
                        self.bursts[i] = node_on(rng, port);
                    }
                }
                (self.on[i] && rng.chance(1.0 / self.mean_len)).then_some(self.bursts[i])
            }
            _ if !rng.chance(per_cycle) => None,
            Pattern::Uniform => Some(rng.range(0, NODES_USED as u64 - 1) as u16),
            Pattern::Hotspot => Some(if rng.chance(HOT_SHARE) {
                node_on(rng, 0)
            } else {
                rng.range(0, NODES_USED as u64 - 1) as u16
            }),
            Pattern::Permutation => Some(node_on(rng, (i + 2) % PORTS)),
        }
    }
}

/// One run on a fresh world: (point, cycles simulated, seconds).
pub fn measure(run: &Run) -> (Point, u64, f64) {
    let mut w = world(run.shape, run.iterations, run.seed, run.two_ports, run.wire);
    w.deterministic = run.deterministic;
    w.packet_senders = run.packet_senders;
    w.drain = run.drain;
    let data = hdl::vc_policy::data_vcs(w.vcs, w.mgmt_vc);
    let mean_len = (2 + w.max_len) as f64 / 2.0;
    let mut sources = Sources::new(run.pattern, run.load, mean_len);
    let start_cycle = w.b.cycle();
    let start = Instant::now();
    let mut base = w.stats;
    for t in 0..WARMUP + run.cycles {
        if t == WARMUP {
            base = w.stats;
        }
        for input in 0..PORTS {
            if let Some(d) = sources.next(&mut w.rng, input) {
                let vc = match run.vc_rule {
                    VcRule::DestMod => data[d as usize % data.len()],
                    VcRule::Random => data[w.rng.range(0, data.len() as u64 - 1) as usize],
                };
                let len = w.rng.range(2, w.max_len as u64) as usize;
                w.send(input, vc, d, len, PacketKind::Put);
            }
        }
        w.cycle();
    }
    let seconds = start.elapsed().as_secs_f64();
    let s = w.stats;
    let packets = s.delivered - base.delivered;
    let point = Point {
        offered: run.load,
        accepted: (s.delivered_flits - base.delivered_flits) as f64
            / (run.cycles * PORTS as u64) as f64,
        hop_latency: (s.latency_sum - base.latency_sum) as f64 / packets.max(1) as f64,
        packet_latency: (s.packet_latency_sum - base.packet_latency_sum) as f64
            / packets.max(1) as f64,
        packets,
    };
    (point, w.b.cycle() - start_cycle, seconds)
}

/// Zero-load latency: one packet at a time on every input and data VC; (min, max) head in to
/// head out.
pub fn zero_load(shape: Shape) -> (u64, u64) {
    let iterations = shape.config().router.alloc_iterations as usize;
    let mut w = world(shape, iterations, 3, false, WIRE);
    let data = hdl::vc_policy::data_vcs(w.vcs, w.mgmt_vc);
    for input in 0..PORTS {
        for &vc in &data {
            w.send(input, vc, (input + 1) as u16, 4, PacketKind::Nap);
            assert!(w.drain_all(1_000), "a packet did not leave");
        }
    }
    (w.stats.latency_min, w.stats.latency_max)
}

/// "adaptive" or "deterministic".
fn routing_name(deterministic: bool) -> &'static str {
    if deterministic {
        "deterministic"
    } else {
        "adaptive"
    }
}

/// Runs the sweeps of both shapes, prints the tables and writes the plot under `dir`.
pub fn report(dir: &Path) -> anyhow::Result<()> {
    let started = Instant::now();
    println!("\n## The router core under traffic patterns (Verilator, 5 ports)\n");
    println!(
        "Sources: Dest-Mod VCs (data VC `dst mod n`), lengths uniform in 2..=max; next hops: the configured input buffer (DAMQ) with its credit policy behind {WIRE}-cycle wires each way, reading a flit a cycle. Offered and accepted load in flits per cycle per port (capacity 1); hop = head in to head out; packet = queued at the source to tail out (cycles). Warm-up {WARMUP} cycles, {MEASURED} measured. Every run's scoreboard checks every packet.\n"
    );
    let mut curves = vec![];
    let mut cycles = 0;
    let mut seconds = 0.0;
    for shape in [Shape::Default, Shape::SixVcs] {
        let cfg = shape.config();
        let vcs = cfg.network.vcs;
        let (zmin, zmax) = zero_load(shape);
        println!(
            "### {vcs} VCs, {} allocator iteration(s) (zero-load hop latency {zmin}..{zmax} cycles)\n",
            cfg.router.alloc_iterations
        );
        println!("| pattern | offered | accepted | hop latency | packet latency |");
        println!("|---|---|---|---|---|");
        let mut saturations = vec![];
        for (k, pattern) in Pattern::ALL.into_iter().enumerate() {
            let mut points = vec![];
            let mut saturation: f64 = 0.0;
            for (j, &load) in LOADS.iter().enumerate() {
                let mut run = Run::new(shape, pattern, load);
                run.seed = 100 + j as u64;
                let (p, c, s) = measure(&run);
                cycles += c;
                seconds += s;
                saturation = saturation.max(p.accepted);
                points.push((load, p.packet_latency));
                println!(
                    "| {} | {:.2} | {:.3} | {:.1} | {:.1} |",
                    pattern.name(),
                    p.offered,
                    p.accepted,
                    p.hop_latency,
                    p.packet_latency
                );
            }
            saturations.push((pattern, saturation));
            curves.push(Curve {
                label: format!("{} ({vcs} VCs)", pattern.name()),
                colour: COLOURS[(k + 4 * (vcs == 6) as usize) % COLOURS.len()],
                points,
            });
        }
        println!("\nSaturation throughput ({vcs} VCs, fraction of capacity):\n");
        println!("| pattern | saturation |");
        println!("|---|---|");
        for (pattern, saturation) in saturations {
            println!("| {} | {saturation:.3} |", pattern.name());
        }
        println!();
    }
    println!("### Saturation under uniform traffic (offered 1.0): what changes it\n");
    println!("| VCs | allocator iterations | source VC rule | sources | next hop | accepted |");
    println!("|---|---|---|---|---|---|");
    for shape in [Shape::Default, Shape::SixVcs] {
        let vcs = shape.config().network.vcs;
        let configured = shape.config().router.alloc_iterations as usize;
        let mut variants = vec![];
        for iterations in 1..=3 {
            variants.push((iterations, VcRule::DestMod, false, 1.0, WIRE));
        }
        if vcs > 2 {
            // With 2 VCs there is one data VC: both rules give it.
            variants.push((configured, VcRule::Random, false, 1.0, WIRE));
        }
        variants.push((configured, VcRule::DestMod, false, BACKPRESSURE, WIRE));
        variants.push((configured, VcRule::DestMod, false, 1.0, LONG_WIRE));
        // Diagnostics of where throughput goes: no wire (the shortest credit loop), and
        // sources that send packet by packet.
        variants.push((configured, VcRule::DestMod, false, 1.0, 0));
        variants.push((configured, VcRule::DestMod, true, 1.0, WIRE));
        for (iterations, rule, packet_senders, drain, wire) in variants {
            let mut run = Run::new(shape, Pattern::Uniform, 1.0);
            run.iterations = iterations;
            run.vc_rule = rule;
            run.packet_senders = packet_senders;
            run.drain = drain;
            run.wire = wire;
            let (p, c, s) = measure(&run);
            cycles += c;
            seconds += s;
            let next_hop = if drain < 1.0 {
                format!("reads with probability {drain}, {wire}-cycle wires")
            } else {
                format!("reads every cycle, {wire}-cycle wires")
            };
            let sources = if packet_senders {
                "packet by packet"
            } else {
                "VCs interleaved flit by flit"
            };
            println!(
                "| {vcs} | {iterations} | {rule:?} | {sources} | {next_hop} | {:.3} |",
                p.accepted
            );
        }
    }
    println!("\n### Adaptive against deterministic routing (6 VCs, two allowed ports per destination: `d mod 5` and the next)\n");
    println!("| pattern | offered | routing | accepted | packet latency |");
    println!("|---|---|---|---|---|");
    for pattern in [Pattern::Uniform, Pattern::Permutation, Pattern::Hotspot] {
        for load in [0.6, 1.0] {
            for deterministic in [false, true] {
                let mut run = Run::new(Shape::SixVcs, pattern, load);
                run.two_ports = true;
                run.deterministic = deterministic;
                let (p, c, s) = measure(&run);
                cycles += c;
                seconds += s;
                println!(
                    "| {} | {load:.1} | {} | {:.3} | {:.1} |",
                    pattern.name(),
                    routing_name(deterministic),
                    p.accepted,
                    p.packet_latency
                );
            }
        }
    }
    std::fs::create_dir_all(dir)?;
    let file = dir.join("router_latency.svg");
    std::fs::write(
        &file,
        plot::svg(
            "nrc_core (5 ports): mean packet latency against offered load",
            &Axis::linear("offered load (flits per cycle per port)", 0.0, 1.0, 0.1),
            &Axis::log("mean packet latency (cycles, log scale)", 10.0, 0, 1),
            &curves,
        ),
    )?;
    println!("\nPlot: `{}`", file.display());
    println!(
        "\nVerilator with the bench: {:.0} cycles/s; `bench router` took {:.0} s (models built or loaded included)\n",
        cycles as f64 / seconds,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
