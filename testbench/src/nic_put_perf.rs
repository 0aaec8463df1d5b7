//! `bench nic-put`: the DMA figures of issue 13 measured on two NICs back to back
//! ([`crate::nic_pair`]'s harness: Verilator, host memory with jitter 8 and completions split
//! at random 64-byte boundaries with a header cycle each, every host port always ready).
//!
//! - **PUT bandwidth against payload**: a stream of PUTs of one payload size (1 byte to
//!   512 KB) from NIC 0 to NIC 1, spread over every function and QP (as many PUTs as make
//!   512 KB, at most 256 and at least one: one doorbell FIFO's depth per function), no events
//!   asked for. Bandwidth: payload bytes over the cycles from the first doorbell write the NIC
//!   takes to the last byte written into the far host's memory, as a fraction of the network
//!   port's 8 payload bytes per cycle and of the packet format's limit (`mtu / (mtu + 24)` of
//!   it: head, header and tail flits). MTU 128 and 256, 32 and 256 tags, memory latency 100
//!   and 200, the NICs' channels joined flit to flit (`nic_core`) or through their LLP link
//!   ports and the lane-channel model (`nic_top`, error-free and at BER 1e-5). Every
//!   destination byte is checked.
//! - **NAP immediate and PUT latency**: one 8-byte NAP immediate, then one 64-byte PUT, alone
//!   on an idle pair: cycles from the doorbell write's acceptance to the packet's head flit
//!   and first payload flit, and the engine's own share: those cycles minus each host read's
//!   latency on the way (request taken to its first completion beat: the descriptor's, and
//!   the PUT's first data read's).
//! - **8-byte NAP immediates back to back**: 256 of them over every function and QP; messages
//!   per 100 cycles from the first head flit to the last tail flit.
//! - **Function shares**: 8 functions each keep 24 PUTs of random size (1 to 4,096 bytes,
//!   random alignment) queued; each function's payload bytes in the packets that left in the
//!   first 100,000, 300,000 and 1,000,000 cycles, against an equal share; byte-fair
//!   arbitration (the default) and round robin over doorbells.
//!
//! The SVG plot of bandwidth against payload goes to `build/bench/nic/put_bandwidth.svg`.
use crate::host::MemoryConfig;
use crate::models::lane_channel::Faults;
use crate::nic_pair::{build, model_for, step, PairReport, PairSetup, Side, Variant};
use crate::plot::{self, Axis, Curve, COLOURS};
use crate::rng::BenchRng;
use crate::verilator::VerilatorModel;
use anyhow::Result;
use hdl::formats::flit::{HEAD_BIT, TAIL_BIT, TYPE_BIT};
use hdl::formats::nic::{Descriptor, DescriptorBody, NicPacket, Segment, OVERHEAD_FLITS};
use hdl::params::Config;
use nic::regs::Ring;
use std::path::Path;
use std::sync::Arc;

/// Payload bytes of a bandwidth stream (at most [`STREAM_PUTS`] PUTs of its size).
const STREAM_BYTES: u64 = 512 << 10;
/// Most PUTs in a stream: one doorbell FIFO (32) per function.
const STREAM_PUTS: u64 = 256;
/// Payload sizes of the bandwidth table, bytes.
const PAYLOADS: [u64; 11] = [
    1,
    8,
    64,
    128,
    256,
    1 << 10,
    4 << 10,
    16 << 10,
    64 << 10,
    256 << 10,
    512 << 10,
];
/// PUTs each function keeps queued in the share run.
const SHARE_QUEUED: usize = 24;

/// How the two NICs are joined.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Join {
    /// `nic_core`s, network channels joined flit to flit.
    Flit,
    /// `nic_top`s, LLP link ports through the lane-channel model at this bit error rate.
    Llp(f64),
}

impl Join {
    fn variant(self) -> Variant {
        match self {
            Join::Flit => Variant::Core,
            Join::Llp(ber) => Variant::Top(Faults {
                ber,
                ..Default::default()
            }),
        }
    }
    fn name(self) -> String {
        match self {
            Join::Flit => "flit to flit".into(),
            Join::Llp(0.0) => "LLP".into(),
            Join::Llp(ber) => format!("LLP, BER {ber:.0e}"),
        }
    }
}

/// The default configuration with `mtu` and `tags`; packets long enough for the MTU.
pub fn config(mtu: u32, tags: u32) -> Config {
    let mut cfg = Config::default();
    cfg.nic.mtu_bytes = mtu;
    cfg.nic.tags = tags;
    let flits = mtu / 8 + OVERHEAD_FLITS as u32;
    if flits > cfg.network.max_packet_flits {
        cfg.network.max_packet_flits = flits;
        cfg.router.reserved_flits_per_vc = cfg.router.reserved_flits_per_vc.max(flits);
    }
    cfg.validate().expect("a valid configuration");
    cfg
}

/// The compiled model of `join`'s NIC for `cfg` ([`crate::nic_pair::model_for`]).
pub fn model(join: Join, cfg: &Config) -> Result<Arc<VerilatorModel>> {
    model_for(join.variant(), cfg)
}

/// A pair of NICs set up and idle, with a cycle count and a bench RNG.
struct Pair {
    sides: Vec<Side>,
    rng: BenchRng,
    now: u64,
    report: PairReport,
    cfg: Config,
}

impl Pair {
    /// Two NICs of `model` joined by `join`, host memory latency `latency`, every host port
    /// always ready; set up through MMIO and left idle for 2,000 cycles (the buffer
    /// managers prefetch their NAP buffers), the traces then cleared.
    fn new(model: &Arc<VerilatorModel>, join: Join, cfg: &Config, latency: u64, seed: u64) -> Self {
        let setup = PairSetup {
            cfg: cfg.clone(),
            memory: MemoryConfig {
                latency,
                jitter: 8,
                tags: cfg.nic.tags as usize,
                max_read_request: cfg.nic.max_read_request as u64,
                max_payload: cfg.nic.max_payload as u64,
                ..Default::default()
            },
            host_ready: 1.0,
            mmio_rate: 1.0,
        };
        let mut rng = BenchRng::new(seed);
        let sides = build(model, join.variant(), seed, &setup, &mut rng);
        let mut pair = Self {
            sides,
            rng,
            now: 0,
            report: PairReport::default(),
            cfg: cfg.clone(),
        };
        pair.run_until(20_000, "setup", |p| p.sides.iter().all(|s| s.mmio.idle()));
        let idle = pair.now + 2_000;
        pair.run_until(idle + 1, "settle", |p| p.now >= idle);
        for s in pair.sides.iter_mut() {
            s.trace = Default::default();
        }
        pair
    }

    /// Steps until `done` holds; panics after `limit` more cycles.
    fn run_until(&mut self, limit: u64, what: &str, done: impl Fn(&Self) -> bool) {
        let end = self.now + limit;
        while !done(self) {
            assert!(
                self.now < end,
                "nic_put_perf: {what}: not done by cycle {}",
                self.now
            );
            self.step();
        }
    }

    fn step(&mut self) {
        step(&mut self.sides, &mut self.rng, self.now, &mut self.report);
        self.now += 1;
    }

    /// Posts a descriptor of `body` on function `f`, QP `q` of NIC 0 to the same function
    /// and QP of NIC 1 (its key), events as asked; its doorbell queued for MMIO.
    fn post(&mut self, f: usize, q: usize, body: DescriptorBody, local_event: bool, tag: u32) {
        let (near, far) = self.sides.split_at_mut(1);
        let d = Descriptor {
            dst_node: far[0].node,
            dst_function: f as u8,
            dst_qp: q as u8,
            remote_event: false,
            local_event,
            qp_magic: far[0].driver.qp[f][q].key,
            tag,
            body,
        };
        let s = &mut near[0];
        let bell = s.driver.post_descriptor(&mut s.memory.mem, f, q, &d);
        s.mmio.queue.push_back(bell);
    }

    /// A PUT of `bytes` from function `f`, QP `q` at `offset` past a 64-byte boundary on both
    /// ends: random source bytes, zeroed destination. Returns (destination, bytes).
    fn put(
        &mut self,
        f: usize,
        q: usize,
        bytes: u64,
        offset: u64,
        event: bool,
        tag: u32,
    ) -> (u64, Vec<u8>) {
        let data: Vec<u8> = (0..bytes).map(|_| self.rng.bits(8) as u8).collect();
        let source = self.sides[0].driver.alloc(bytes + 64, 64) + offset;
        self.sides[0].memory.mem.write(source, &data);
        let destination = self.sides[1].driver.alloc(bytes + 64, 64) + offset;
        self.sides[1]
            .memory
            .mem
            .write(destination, &vec![0; bytes as usize]);
        let segment = |address| Segment {
            address,
            bytes: bytes as u32,
        };
        let body = DescriptorBody::Put {
            sources: vec![segment(source)],
            destinations: vec![segment(destination)],
        };
        self.post(f, q, body, event, tag);
        (destination, data)
    }

    /// The (function, QP) of the `i`th operation of a stream: functions first.
    fn spread(&self, i: u64) -> (usize, usize) {
        let (f, q) = (
            self.cfg.nic.functions as u64,
            self.cfg.nic.qps_per_function as u64,
        );
        ((i % f) as usize, ((i / f) % q) as usize)
    }
}

/// One point of the bandwidth table.
#[derive(Clone, Copy, Debug)]
pub struct Bandwidth {
    /// PUTs in the stream.
    pub puts: u64,
    /// Payload bytes moved.
    pub bytes: u64,
    /// Cycles from the first doorbell taken to the last byte written.
    pub cycles: u64,
}

impl Bandwidth {
    /// Payload bytes per cycle.
    pub fn rate(&self) -> f64 {
        self.bytes as f64 / self.cycles as f64
    }
}

/// A stream of PUTs of `payload` bytes each from NIC 0 to NIC 1 (see the module
/// documentation); every destination byte checked.
pub fn put_stream(
    model: &Arc<VerilatorModel>,
    join: Join,
    cfg: &Config,
    latency: u64,
    payload: u64,
    seed: u64,
) -> Bandwidth {
    let mut pair = Pair::new(model, join, cfg, latency, seed);
    let puts = (STREAM_BYTES / payload).clamp(1, STREAM_PUTS);
    let mut expected = vec![];
    for i in 0..puts {
        let (f, q) = pair.spread(i);
        expected.push(pair.put(f, q, payload, 0, false, i as u32));
    }
    let bytes = puts * payload;
    let limit = 100_000 + bytes;
    pair.run_until(limit, "PUT stream", |p| p.sides[1].trace.written >= bytes);
    let what = format!("PUT stream of {puts} x {payload} bytes ({})", join.name());
    assert_eq!(pair.sides[1].trace.written, bytes, "{what}: bytes written");
    for (destination, data) in &expected {
        let got = pair.sides[1].memory.mem.read(*destination, data.len());
        assert!(got == *data, "{what}: wrong bytes at {destination:#x}");
    }
    let start = pair.sides[0].trace.mmio_writes[0];
    Bandwidth {
        puts,
        bytes,
        cycles: pair.sides[1].trace.last_write - start + 1,
    }
}

/// Latency of one operation alone, cycles.
#[derive(Clone, Copy, Debug)]
pub struct Latency {
    /// Doorbell taken to head flit.
    pub to_head: u64,
    /// Doorbell taken to first payload flit.
    pub to_payload: u64,
    /// The host's share: each read's latency on the way.
    pub memory: u64,
}

/// One NAP immediate of 8 bytes (or, with `put`, one PUT of 64 bytes) alone on an idle
/// `nic_core` pair at memory latency `latency`.
pub fn single(model: &Arc<VerilatorModel>, cfg: &Config, latency: u64, put: bool) -> Latency {
    let mut pair = Pair::new(model, Join::Flit, cfg, latency, 5);
    pair.sides[0].trace.flit_log = Some(vec![]);
    if put {
        pair.put(0, 0, 64, 0, false, 1);
    } else {
        let body = DescriptorBody::NapImmediate(vec![0x5a; 8]);
        pair.post(0, 0, body, false, 1);
    }
    pair.run_until(10_000, "one operation", |p| {
        p.sides[0]
            .trace
            .flit_log
            .as_ref()
            .is_some_and(|l| l.len() > OVERHEAD_FLITS)
    });
    let t = &pair.sides[0].trace;
    let start = t.mmio_writes[0];
    let log = t.flit_log.as_ref().expect("kept");
    // Reads on the way: the descriptor's, and a PUT's first data read.
    let reads = if put { 2 } else { 1 };
    let memory = t
        .reads
        .iter()
        .take(reads)
        .map(|&(_, taken, first)| first.expect("answered") - taken)
        .sum();
    Latency {
        to_head: log[0].0 - start,
        to_payload: log[OVERHEAD_FLITS - 1].0 - start,
        memory,
    }
}

/// 256 NAP immediates of 8 bytes from NIC 0 over every function and QP: messages per 100
/// cycles from the first head flit to the last tail flit.
pub fn nap_rate(model: &Arc<VerilatorModel>, cfg: &Config, latency: u64) -> f64 {
    let mut pair = Pair::new(model, Join::Flit, cfg, latency, 6);
    let messages = STREAM_PUTS;
    for i in 0..messages {
        let (f, q) = pair.spread(i);
        let body = DescriptorBody::NapImmediate((0..8).map(|b| (i + b) as u8).collect());
        pair.post(f, q, body, false, i as u32);
    }
    let flits = messages * (OVERHEAD_FLITS as u64 + 1);
    pair.run_until(200_000, "NAP stream", |p| p.sides[0].trace.flits >= flits);
    let t = &pair.sides[0].trace;
    let span = t.last_flit - t.first_flit.expect("flits") + 1;
    messages as f64 * 100.0 / span as f64
}

/// Each function's share of the payload bytes that left NIC 0 in the first `w` cycles, for
/// each `w` of `windows`, with every function keeping [`SHARE_QUEUED`] random PUTs queued and
/// the doorbell arbitration in `arb_mode` (the NIC's global register: 0 byte-fair, 2 round
/// robin over doorbells).
pub fn shares(
    model: &Arc<VerilatorModel>,
    cfg: &Config,
    latency: u64,
    arb_mode: u64,
    windows: &[u64],
) -> Vec<Vec<f64>> {
    let mut pair = Pair::new(model, Join::Flit, cfg, latency, 7);
    let mode = pair.sides[0].driver.pf_global_write("arb_mode", arb_mode);
    pair.sides[0].mmio.queue.push_back(mode);
    pair.run_until(1_000, "arb_mode", |p| p.sides[0].mmio.idle());
    pair.sides[0].trace.flit_log = Some(vec![]);
    let functions = cfg.nic.functions as usize;
    let mut queued = vec![0usize; functions];
    let mut tag = 0u32;
    let start = pair.now;
    let end = start + windows.iter().max().copied().unwrap_or(0);
    while pair.now < end {
        for (f, n) in queued.iter_mut().enumerate() {
            while *n < SHARE_QUEUED {
                let q = pair.rng.range(0, cfg.nic.qps_per_function as u64 - 1) as usize;
                let bytes = pair.rng.range(1, 4096);
                let offset = pair.rng.range(0, 63);
                pair.put(f, q, bytes, offset, true, tag);
                tag += 1;
                *n += 1;
            }
        }
        for _ in 0..50 {
            pair.step();
        }
        // Send events hand queue places back.
        let s = &mut pair.sides[0];
        for (f, n) in queued.iter_mut().enumerate() {
            for q in 0..cfg.nic.qps_per_function as usize {
                let (events, write) =
                    s.driver
                        .take_events(&s.memory.mem, f, q, Ring::SendCompletion);
                *n -= events.len();
                s.mmio.queue.extend(write);
            }
        }
    }
    // Payload bytes per function of the packets whose tail left before each window's end.
    let log = pair.sides[0].trace.flit_log.take().expect("kept");
    let mut bytes = vec![vec![0u64; functions]; windows.len()];
    let mut open: Vec<Vec<u128>> = vec![vec![]; 8];
    for (cycle, flit, vc) in log {
        let packet = &mut open[vc as usize];
        packet.push(flit);
        let tail =
            flit >> TYPE_BIT & 1 == 0 && flit >> HEAD_BIT & 1 == 0 && flit >> TAIL_BIT & 1 == 1;
        if tail {
            let p = NicPacket::unpack(packet).expect("a NIC packet");
            for (w, b) in windows.iter().zip(bytes.iter_mut()) {
                if cycle < start + w {
                    b[p.src_function as usize] += p.payload.len() as u64;
                }
            }
            packet.clear();
        }
    }
    bytes
        .iter()
        .map(|b| {
            let total: u64 = b.iter().sum();
            b.iter().map(|&x| x as f64 / total as f64).collect()
        })
        .collect()
}

/// `bench nic-put`: the tables and the plot (see the module documentation).
pub fn report(dir: &Path) -> Result<()> {
    let started = std::time::Instant::now();
    println!("\n## PUT bandwidth through two NICs (Verilator; host always ready, jitter 8, completions split at random)\n");
    println!("Fraction of the network port's 8 payload bytes per cycle; in brackets, of the packet format's limit at the MTU (payload flits over all flits of a full packet: 84.2 % at MTU 128, 91.4 % at 256).\n");
    // (join, MTU, tags, latency)
    let mut columns = vec![];
    for join in [Join::Flit] {
        for mtu in [128, 256] {
            for tags in [32, 256] {
                for latency in [100, 200] {
                    columns.push((join, mtu, tags, latency));
                }
            }
        }
    }
    for join in [Join::Llp(0.0), Join::Llp(1e-5)] {
        for mtu in [128, 256] {
            columns.push((join, mtu, 32, 100));
        }
    }
    let header: Vec<String> = columns
        .iter()
        .map(|(join, mtu, tags, latency)| {
            format!("{}, MTU {mtu}, {tags} tags, latency {latency}", join.name())
        })
        .collect();
    println!("| payload | {} |", header.join(" | "));
    println!("|---|{}", "---|".repeat(columns.len()));
    let mut table = vec![vec![]; PAYLOADS.len()];
    let mut cycles = 0u64;
    for &(join, mtu, tags, latency) in &columns {
        let cfg = config(mtu, tags);
        let m = model(join, &cfg)?;
        for (row, &payload) in PAYLOADS.iter().enumerate() {
            let b = put_stream(&m, join, &cfg, latency, payload, 40 + row as u64);
            cycles += b.cycles;
            table[row].push(b);
        }
    }
    for (row, &payload) in PAYLOADS.iter().enumerate() {
        let cells: Vec<String> = table[row]
            .iter()
            .zip(&columns)
            .map(|(b, (_, mtu, _, _))| {
                let limit = *mtu as f64 / (*mtu as f64 + 8.0 * OVERHEAD_FLITS as f64);
                let port = b.rate() / 8.0;
                format!("{:.1} % ({:.1} %)", 100.0 * port, 100.0 * port / limit)
            })
            .collect();
        println!(
            "| {} ({} PUTs) | {} |",
            plot_bytes(payload),
            table[row][0].puts,
            cells.join(" | ")
        );
    }
    let curves: Vec<Curve> = columns
        .iter()
        .enumerate()
        .filter(|(_, (join, _, tags, latency))| {
            *join != Join::Flit
                || (*tags == 32 && *latency == 100)
                || (*tags == 256 && *latency == 200)
        })
        .zip(COLOURS.iter())
        .map(|((c, (join, mtu, tags, latency)), colour)| Curve {
            label: format!("{}, {mtu}, {tags} t, {latency}", join.name()),
            colour,
            points: PAYLOADS
                .iter()
                .zip(&table)
                .map(|(&p, row)| (p as f64, row[c].rate() / 8.0))
                .collect(),
        })
        .collect();
    std::fs::create_dir_all(dir)?;
    let file = dir.join("put_bandwidth.svg");
    std::fs::write(
        &file,
        plot::svg(
            "PUT bandwidth through two NICs (label: join, MTU, tags, memory latency)",
            &Axis::log("payload per PUT (bytes)", 2.0, 0, 19),
            &Axis::linear("fraction of the network port (8 B/cycle)", 0.0, 1.0, 0.1),
            &curves,
        ),
    )?;
    println!("\nPlot: `{}`", file.display());

    let cfg = Config::default();
    let core = model(Join::Flit, &cfg)?;
    println!(
        "\n## Latency of one operation on an idle pair (`nic_core`s, default configuration)\n"
    );
    println!("| operation | memory latency | doorbell to head flit | to first payload flit | host reads' latency on the way | engine's own cycles (to head / to payload) | goal (engine) |");
    println!("|---|---|---|---|---|---|---|");
    for (put, name, goal) in [(false, "NAP immediate, 8 B", 16), (true, "PUT, 64 B", 24)] {
        for latency in [100, 200] {
            let l = single(&core, &cfg, latency, put);
            println!(
                "| {name} | {latency} | {} | {} | {} | {} / {} | <= {goal} |",
                l.to_head,
                l.to_payload,
                l.memory,
                l.to_head - l.memory,
                l.to_payload - l.memory
            );
        }
    }
    println!("\n## 8-byte NAP immediates back to back (256 over every function and QP; goal 25 per 100 cycles)\n");
    println!("| memory latency | messages per 100 cycles |");
    println!("|---|---|");
    for latency in [10, 100, 200] {
        println!("| {latency} | {:.1} |", nap_rate(&core, &cfg, latency));
    }
    shares_table(&core, &cfg);
    println!(
        "\n`bench nic-put` took {:.0} s ({cycles} cycles in the bandwidth table)",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The function-share table (also `bench nic-shares` alone): byte-fair arbitration (the
/// default) and round robin over doorbells, after 100,000, 300,000 and 1,000,000 cycles.
pub fn shares_table(core: &Arc<VerilatorModel>, cfg: &Config) {
    println!("\n## Function shares: 8 functions each keeping {SHARE_QUEUED} PUTs of 1 to 4,096 bytes (random alignment) queued; memory latency 100 (goal: each within 2 % of equal after 100,000 cycles)\n");
    let functions = cfg.nic.functions as usize;
    println!(
        "| arbitration (`arb_mode`) | cycles | {} | worst off equal |",
        (0..functions)
            .map(|f| format!("function {f}"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("|---|---|{}---|", "---|".repeat(functions));
    let windows = [100_000, 300_000, 1_000_000];
    for (mode, name) in [
        (0, "byte-fair (0, default)"),
        (2, "round robin over doorbells (2)"),
    ] {
        for (w, s) in windows.iter().zip(shares(core, cfg, 100, mode, &windows)) {
            let equal = 1.0 / s.len() as f64;
            let worst = s
                .iter()
                .map(|x| (x / equal - 1.0).abs())
                .fold(0.0, f64::max);
            let cells: Vec<String> = s.iter().map(|x| format!("{:.2} %", 100.0 * x)).collect();
            println!(
                "| {name} | {w} | {} | {:.1} % |",
                cells.join(" | "),
                100.0 * worst
            );
        }
    }
}

/// `bench nic-shares`: the function-share table alone.
pub fn report_shares() -> Result<()> {
    let cfg = Config::default();
    let core = model(Join::Flit, &cfg)?;
    shares_table(&core, &cfg);
    Ok(())
}

/// A payload size as the table prints it: "64 B", "4 KB", "512 KB".
fn plot_bytes(b: u64) -> String {
    if b >= 1 << 10 {
        format!("{} KB", b >> 10)
    } else {
        format!("{b} B")
    }
}
