//! The two-endpoint link bench: endpoints A and B (the emitted `llp_endpoint` Verilog under
//! Verilator) cross-connected through two [`LaneChannel`]s, random packets on every VC in both
//! directions, random receiver backpressure, and a scoreboard that fails on the first lost,
//! duplicated, reordered or corrupted flit. Used by `tests/llp_link.rs` and by `make bench`.
use crate::backend::{Backend, PortId};
use crate::models::formats::random_header;
use crate::models::lane_channel::{ChannelStats, Faults, LaneChannel};
use crate::models::stream::{Driver, Receiver, StreamPorts};
use crate::rng::BenchRng;
use crate::verilator::{VerilatorModel, VerilatorSim};
use anyhow::Result;
use hdl::formats::Flit;
use hdl::llp::lane_channel::MAX_LANES;
use hdl::llp::ltp::Beat;
use hdl::params::Config;
use std::collections::VecDeque;
use std::sync::Arc;

/// Sizes of the endpoint under test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EndpointShape {
    /// VCs.
    pub vcs: usize,
    /// Replay buffer, LTPs.
    pub replay: usize,
    /// Receive buffer per VC, flits.
    pub depth: usize,
    /// Longest packet, flits.
    pub max_packet: usize,
    /// Lanes after reset.
    pub lanes: usize,
}

impl EndpointShape {
    /// The shape of the endpoint that configuration `cfg` emits.
    pub fn of(cfg: &Config) -> Self {
        Self {
            vcs: cfg.network.vcs as usize,
            replay: cfg.link.replay_ltps as usize,
            depth: cfg.link.vc_buffer_flits as usize,
            max_packet: cfg.network.max_packet_flits as usize,
            lanes: cfg.link.lanes as usize,
        }
    }

    /// The default configuration with this shape's sizes (checked by the configuration rules).
    pub fn config(&self) -> Result<Config> {
        let mut cfg = Config::default();
        cfg.network.vcs = self.vcs as u32;
        cfg.network.max_packet_flits = self.max_packet as u32;
        cfg.link.lanes = self.lanes as u32;
        cfg.link.vc_buffer_flits = self.depth as u32;
        cfg.link.replay_ltps = self.replay as u32;
        // The endpoint does not depend on the NIC's MTU; a short `max_packet` only needs the
        // largest MTU that still fits (header and tail take 3 flits), so the shape validates.
        while cfg.nic.mtu_bytes > 16 && cfg.nic.mtu_bytes / 8 + 3 > cfg.network.max_packet_flits {
            cfg.nic.mtu_bytes /= 2;
        }
        cfg.validate().map_err(anyhow::Error::msg)?;
        Ok(cfg)
    }
}

/// Compiles (or loads from the cache) the Verilator model of an endpoint of `shape`: the
/// Verilog that `hpcnet emit` writes as `llp_endpoint` for that configuration.
pub fn endpoint_model(shape: EndpointShape) -> Result<Arc<VerilatorModel>> {
    let top = hdl::tops::llp_endpoint(&shape.config()?).map_err(anyhow::Error::msg)?;
    VerilatorModel::build(&top.verilog, &top.name, &top.ports)
}

/// One run of the link bench.
#[derive(Clone, Copy, Debug)]
pub struct LinkRun {
    /// Faults of the A-to-B wire.
    pub ab: Faults,
    /// Faults of the B-to-A wire.
    pub ba: Faults,
    /// Wire delay, cycles.
    pub delay: usize,
    /// Flits to deliver in each direction (the run ends when all sent flits arrived).
    pub flits: u64,
    /// Probability per cycle that a core offers a waiting flit.
    pub tx_rate: f64,
    /// Probability per cycle that a core takes a received flit.
    pub rx_rate: f64,
    /// Packet lengths are uniform in 2..=max_len.
    pub max_len: u64,
    /// Endpoints interleave VCs.
    pub interleave: bool,
    /// Lane errors in a window that remove a lane (0: never).
    pub lane_threshold: u8,
    /// Lane error window, cycles.
    pub lane_window: u32,
    /// Seed of traffic and wires.
    pub seed: u64,
    /// Cycles without a delivered flit (while flits are outstanding) that count as a deadlock.
    pub stall_limit: u64,
}

impl Default for LinkRun {
    fn default() -> Self {
        Self {
            ab: Faults::default(),
            ba: Faults::default(),
            delay: 4,
            flits: 10_000,
            tx_rate: 1.0,
            rx_rate: 1.0,
            max_len: 16,
            interleave: false,
            lane_threshold: 8,
            lane_window: 1 << 16,
            seed: 1,
            stall_limit: 50_000,
        }
    }
}

/// Status of one endpoint at the end of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EndpointStatus {
    /// Lanes it sends on.
    pub tx_mask: u8,
    /// Lanes it receives on.
    pub rx_mask: u8,
    /// Width it sends at.
    pub tx_width: u8,
    /// Width it receives at.
    pub rx_width: u8,
    /// Link up.
    pub link_up: bool,
    /// Normal LTPs sent.
    pub ltps_sent: u64,
    /// Null LTPs sent.
    pub nulls_sent: u64,
    /// LTPs delivered.
    pub ltps_good: u64,
    /// Bad LTPs received.
    pub ltps_bad: u64,
    /// Duplicates dropped.
    pub ltps_dup: u64,
    /// Retry requests made.
    pub retries: u64,
    /// Replays made.
    pub replays: u64,
    /// Errors per physical lane.
    pub lane_errors: [u64; MAX_LANES],
    /// Lanes removed.
    pub lanes_removed: u64,
    /// Dirty packets dropped.
    pub dirty_drops: u64,
    /// Sticky protocol error.
    pub protocol_error: bool,
}

/// One direction's traffic figures.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DirReport {
    /// Flits delivered.
    pub delivered: u64,
    /// Cycle of the first delivery.
    pub first: u64,
    /// Cycle of the last delivery.
    pub last: u64,
    /// Smallest flit latency (core to core), cycles.
    pub lat_min: u64,
    /// Mean flit latency, cycles.
    pub lat_mean: f64,
    /// Largest flit latency, cycles.
    pub lat_max: u64,
    /// Packets delivered (tails).
    pub packets: u64,
    /// Smallest tail latency (a packet's last flit, core to core), cycles: what the link adds
    /// to a packet's completion, since the receive buffers release whole packets only.
    pub tail_min: u64,
    /// Mean tail latency, cycles.
    pub tail_mean: f64,
    /// Largest tail latency, cycles.
    pub tail_max: u64,
    /// What the wire did.
    pub wire: ChannelStats,
}

impl DirReport {
    /// Flits delivered per cycle from the first delivery to the last.
    pub fn goodput(&self) -> f64 {
        if self.last <= self.first {
            return 0.0;
        }
        self.delivered as f64 / (self.last - self.first) as f64
    }
}

/// The result of a run.
#[derive(Clone, Debug, Default)]
pub struct LinkReport {
    /// Cycles run.
    pub cycles: u64,
    /// A to B, then B to A.
    pub dirs: [DirReport; 2],
    /// A, then B.
    pub status: [EndpointStatus; 2],
    /// Cycles from each bad LTP at B (A to B) to the next delivered LTP.
    pub replay_latency: Vec<u64>,
}

/// The lane ports of an endpoint's top (`lanes_out` or `lanes_in`), read and written as beats.
pub struct LanePorts {
    valid: PortId,
    start: PortId,
    data: PortId,
}

impl LanePorts {
    /// The lanes `{prefix}$valid`, `$start`, `$data` of `b`.
    pub fn new(b: &dyn Backend, prefix: &str) -> Self {
        Self {
            valid: b.port(&format!("{prefix}$valid")),
            start: b.port(&format!("{prefix}$start")),
            data: b.port(&format!("{prefix}$data")),
        }
    }
    /// The beat on the lanes now.
    pub fn read(&self, b: &mut dyn Backend) -> Beat {
        let d = b.peek(self.data);
        Beat {
            valid: b.peek(self.valid) as u8,
            start: b.peek(self.start) as u8,
            data: std::array::from_fn(|n| (d >> (32 * n)) as u32),
        }
    }
    /// Drives a beat; lanes that are not valid carry random start flags and data (a wire
    /// carries something whether or not it is valid).
    pub fn write(&self, b: &mut dyn Backend, beat: &Beat, rng: &mut BenchRng) {
        let idle = !beat.valid & ((1 << MAX_LANES) - 1) as u8;
        b.poke(self.valid, beat.valid as u128);
        let start = beat.start & beat.valid | rng.bits(MAX_LANES) as u8 & idle;
        b.poke(self.start, start as u128);
        let junk = rng.bits(32 * MAX_LANES);
        let d = (0..MAX_LANES).fold(0u128, |x, n| {
            let lane = if idle >> n & 1 == 1 {
                (junk >> (32 * n)) as u32
            } else {
                beat.data[n]
            };
            x | (lane as u128) << (32 * n)
        });
        b.poke(self.data, d);
    }
}

/// The core side of one endpoint: traffic generation and checking of what arrives.
struct Core {
    tx: Vec<Driver>,
    rx: Vec<Receiver>,
    /// Per VC: flits sent and not yet seen at the far end, with the cycle they left.
    sent: Vec<VecDeque<(u128, u64)>>,
    generated: u64,
}

fn packet(rng: &mut BenchRng, vc: usize, max_len: u64) -> Vec<u128> {
    let len = rng.range(2, max_len.max(2));
    let mut h = random_header(rng, len as u8);
    h.vc = vc as u8;
    let mut p = vec![Flit::Head(h).pack()];
    for _ in 0..len - 2 {
        p.push(Flit::Body(rng.bits(64) as u64).pack());
    }
    p.push(
        Flit::Tail {
            crc16: rng.bits(16) as u16,
        }
        .pack(),
    );
    p
}

struct Status {
    ports: Vec<(&'static str, PortId)>,
}

impl Status {
    fn new(b: &dyn Backend) -> Self {
        let names = [
            "tx_mask",
            "rx_mask",
            "tx_width",
            "rx_width",
            "link_up",
            "ltps_sent",
            "nulls_sent",
            "ltps_good",
            "ltps_bad",
            "ltps_dup",
            "retries",
            "replays",
            "lane_errors",
            "lanes_removed",
            "dirty_drops",
            "protocol_error",
        ];
        Self {
            ports: names.iter().map(|n| (*n, b.port(n))).collect(),
        }
    }
    fn read(&self, b: &mut dyn Backend) -> EndpointStatus {
        let mut s = EndpointStatus::default();
        for (n, p) in &self.ports {
            let v = b.peek(*p);
            match *n {
                "tx_mask" => s.tx_mask = v as u8,
                "rx_mask" => s.rx_mask = v as u8,
                "tx_width" => s.tx_width = v as u8,
                "rx_width" => s.rx_width = v as u8,
                "link_up" => s.link_up = v != 0,
                "ltps_sent" => s.ltps_sent = v as u64,
                "nulls_sent" => s.nulls_sent = v as u64,
                "ltps_good" => s.ltps_good = v as u64,
                "ltps_bad" => s.ltps_bad = v as u64,
                "ltps_dup" => s.ltps_dup = v as u64,
                "retries" => s.retries = v as u64,
                "replays" => s.replays = v as u64,
                "lane_errors" => {
                    s.lane_errors = std::array::from_fn(|n| ((v >> (16 * n)) & 0xffff) as u64)
                }
                "lanes_removed" => s.lanes_removed = v as u64,
                "dirty_drops" => s.dirty_drops = v as u64,
                _ => s.protocol_error = v != 0,
            }
        }
        s
    }
}

/// Runs two endpoints of `model` against each other; `Err` names the first broken guarantee.
pub fn run_link(
    model: &Arc<VerilatorModel>,
    vcs: usize,
    run: &LinkRun,
) -> Result<LinkReport, String> {
    let mut sims: [VerilatorSim; 2] = [model.instance(), model.instance()];
    let mut rng = BenchRng::new(run.seed);
    let mut wires = [
        LaneChannel::new(run.delay, run.ab, run.seed ^ 0xa5a5),
        LaneChannel::new(run.delay, run.ba, run.seed ^ 0x5a5a),
    ];
    let mut cores: Vec<Core> = sims
        .iter()
        .map(|s| Core {
            tx: (0..vcs)
                .map(|v| Driver::new(StreamPorts::new(s, &format!("tx_vcs${v}")), run.tx_rate))
                .collect(),
            rx: (0..vcs)
                .map(|v| Receiver::new(StreamPorts::new(s, &format!("rx_vcs${v}")), run.rx_rate))
                .collect(),
            sent: vec![VecDeque::new(); vcs],
            generated: 0,
        })
        .collect();
    let outs: Vec<LanePorts> = sims
        .iter()
        .map(|s| LanePorts::new(s, "lanes_out"))
        .collect();
    let ins: Vec<LanePorts> = sims.iter().map(|s| LanePorts::new(s, "lanes_in")).collect();
    let status: Vec<Status> = sims.iter().map(|s| Status::new(s)).collect();
    let mut report = LinkReport::default();
    let mut lat_sum = [0u64; 2];
    let mut tail_sum = [0u64; 2];
    for d in &mut report.dirs {
        d.lat_min = u64::MAX;
        d.tail_min = u64::MAX;
    }
    for s in sims.iter_mut() {
        let (interleave, thr, win) = (
            s.port("interleave"),
            s.port("lane_threshold"),
            s.port("lane_window"),
        );
        s.poke_bool(interleave, run.interleave);
        s.poke(thr, run.lane_threshold as u128);
        s.poke(win, run.lane_window as u128);
        let reset = s.port("reset");
        s.poke_bool(reset, true);
        s.tick();
        s.tick();
        s.poke_bool(reset, false);
    }
    let mut cycle = 0u64;
    let mut last_progress = 0u64;
    let mut bad_seen = 0u64;
    let mut bad_at: Option<u64> = None;
    let mut good_seen = 0u64;
    loop {
        // Wires: what each end sends now arrives at the other after the delay.
        for e in 0..2 {
            let beat = outs[e].read(&mut sims[e]);
            let arrived = wires[e].step(beat);
            ins[1 - e].write(&mut sims[1 - e], &arrived, &mut rng);
        }
        // Cores: refill the transmit queues, drive both sides of every stream.
        for e in 0..2 {
            let core = &mut cores[e];
            for v in 0..vcs {
                if core.generated < run.flits && core.tx[v].queue.len() < 4 {
                    let p = packet(&mut rng, v, run.max_len);
                    core.generated += p.len() as u64;
                    core.tx[v].queue.extend(p);
                }
                core.tx[v].drive(&mut sims[e], &mut rng);
                core.rx[v].drive(&mut sims[e], &mut rng);
            }
        }
        for e in 0..2 {
            for v in 0..vcs {
                if let Some(f) = cores[e].tx[v].fired(&mut sims[e]) {
                    cores[e].sent[v].push_back((f, cycle));
                }
            }
        }
        for e in 0..2 {
            // Flits arriving at `e` were sent by the other end.
            let dir = 1 - e;
            for v in 0..vcs {
                if let Some(f) = cores[e].rx[v].fired(&mut sims[e]) {
                    let Some((want, at)) = cores[1 - e].sent[v].pop_front() else {
                        return Err(format!(
                            "cycle {cycle}: end {e} VC {v} delivered {f:#x}, which was never sent (duplicate or invented)"
                        ));
                    };
                    if f != want {
                        return Err(format!(
                            "cycle {cycle}: end {e} VC {v} delivered {f:#x}, expected {want:#x} (sent at cycle {at}): lost, reordered or corrupted"
                        ));
                    }
                    let d = &mut report.dirs[dir];
                    if d.delivered == 0 {
                        d.first = cycle;
                    }
                    d.delivered += 1;
                    d.last = cycle;
                    let lat = cycle - at;
                    lat_sum[dir] += lat;
                    d.lat_min = d.lat_min.min(lat);
                    d.lat_max = d.lat_max.max(lat);
                    if matches!(Flit::unpack(f), Ok(Flit::Tail { .. })) {
                        d.packets += 1;
                        tail_sum[dir] += lat;
                        d.tail_min = d.tail_min.min(lat);
                        d.tail_max = d.tail_max.max(lat);
                    }
                    last_progress = cycle;
                }
            }
        }
        // Replay latency at B: from a bad LTP to the next delivered one.
        let sb = status[1].read(&mut sims[1]);
        if sb.ltps_bad > bad_seen {
            bad_seen = sb.ltps_bad;
            bad_at.get_or_insert(cycle);
        }
        if sb.ltps_good > good_seen {
            good_seen = sb.ltps_good;
            if let Some(t) = bad_at.take() {
                report.replay_latency.push(cycle - t);
            }
        }
        for s in sims.iter_mut() {
            s.tick();
        }
        cycle += 1;
        let outstanding: usize = cores
            .iter()
            .map(|c| c.sent.iter().map(|q| q.len()).sum::<usize>())
            .sum();
        let waiting: usize = cores
            .iter()
            .map(|c| c.tx.iter().map(|d| d.queue.len()).sum::<usize>())
            .sum();
        let done =
            cores.iter().all(|c| c.generated >= run.flits) && outstanding == 0 && waiting == 0;
        if done {
            break;
        }
        if cycle - last_progress > run.stall_limit {
            return Err(format!(
                "cycle {cycle}: no flit delivered for {} cycles with {outstanding} outstanding and {waiting} waiting: deadlock (A {:?}, B {:?})",
                run.stall_limit,
                status[0].read(&mut sims[0]),
                status[1].read(&mut sims[1])
            ));
        }
    }
    report.cycles = cycle;
    for e in 0..2 {
        report.status[e] = status[e].read(&mut sims[e]);
        report.dirs[e].wire = wires[e].stats;
        let d = &mut report.dirs[e];
        d.lat_mean = lat_sum[e] as f64 / d.delivered.max(1) as f64;
        d.tail_mean = tail_sum[e] as f64 / d.packets.max(1) as f64;
        if report.status[e].protocol_error {
            return Err(format!(
                "end {e} raised protocol_error: {:?}",
                report.status[e]
            ));
        }
        if report.status[e].dirty_drops != 0 {
            return Err(format!(
                "end {e} dropped good packets as dirty: {:?}",
                report.status[e]
            ));
        }
    }
    Ok(report)
}
