//! The two-endpoint link bench: endpoints A and B (the emitted `llp_endpoint` Verilog under
//! Verilator) cross-connected through two [`LaneChannel`]s, random packets on every VC in both
//! directions, random receiver backpressure, and a scoreboard that fails on the first lost,
//! duplicated, reordered or corrupted packet. Used by `tests/llp_link.rs` and by `make bench`.
//!
//! The scoreboard works per VC and per packet: every packet delivered must be the next packet
//! sent on that VC, whole and unchanged. The one exception is a reset of an end (`resets`,
//! `power_up`): what crosses a reset is defined in `docs/llp-design.md` ("What crosses a
//! reset"): packets whose first flit left a core before the link was up again after the reset
//! may be lost, whole (never duplicated, reordered or delivered in part), and the dirty-packet
//! counters may count the pieces the reset cut. Packets sent after that must all arrive.
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
    /// Bits per lane (16 or 32).
    pub lane_bits: usize,
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
            lane_bits: cfg.link.lane_bits as usize,
        }
    }

    /// The default configuration with this shape's sizes (checked by the configuration rules).
    pub fn config(&self) -> Result<Config> {
        let mut cfg = Config::default();
        cfg.network.vcs = self.vcs as u32;
        cfg.network.max_packet_flits = self.max_packet as u32;
        cfg.link.lanes = self.lanes as u32;
        cfg.link.lane_bits = self.lane_bits as u32;
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
    endpoint_model_of(&shape.config()?)
}

/// The endpoint that configuration `cfg` emits, built on Verilator (or loaded from the cache).
pub fn endpoint_model_of(cfg: &Config) -> Result<Arc<VerilatorModel>> {
    let top = hdl::tops::llp_endpoint(cfg).map_err(anyhow::Error::msg)?;
    VerilatorModel::build(&top.verilog, &top.name, &top.ports)
}

/// One end's reset in the middle of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EndReset {
    /// The end (0: A, 1: B).
    pub end: usize,
    /// First cycle of the reset.
    pub at: u64,
    /// Cycles held in reset.
    pub len: u64,
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
    /// Lane error score that removes a lane (0: never).
    pub lane_threshold: u8,
    /// Delivered LTPs per one-point decrease of the lane scores.
    pub lane_drain: u16,
    /// Fruitless retry requests in a row before the link retrains.
    pub retry_limit: u8,
    /// Seed of traffic and wires.
    pub seed: u64,
    /// Cycles without a delivered flit (while flits are outstanding) that count as a deadlock.
    pub stall_limit: u64,
    /// Cycles each end is held in reset at power-up (A, B): the ends may start in any order.
    pub power_up: [u64; 2],
    /// Resets of one end in the middle of the run.
    pub resets: [Option<EndReset>; 4],
    /// A VC (of both directions) whose receiving core takes nothing from this cycle to
    /// `stall_to`: the other VCs must keep flowing.
    pub stall_vc: Option<(usize, u64)>,
    /// End of the VC stall.
    pub stall_to: u64,
    /// Probability that a packet a core sends is dirty (no head, no tail, a length that
    /// disagrees with its head, or a TailBadPkt in place of its tail): the far end must drop
    /// it whole and count it, and deliver everything else.
    pub dirty: f64,
    /// An end whose chip ID the management plane changes in this cycle, to
    /// [`renumbered`]`(IDENTITY[end].1)`: the far end must learn the new ID (the endpoint
    /// retrains to announce it) and nothing may be lost.
    pub renumber: Option<(usize, u64)>,
    /// A run-time settings write: in this cycle both ends' `lane_threshold` input changes to
    /// this value (what a write of the port's `link_settings` register does).
    pub threshold_change: Option<(u64, u8)>,
}

/// The chip ID an end of the bench takes when [`LinkRun::renumber`] changes it.
pub fn renumbered(id: u16) -> u16 {
    id ^ 0x5a5a
}

impl Default for LinkRun {
    fn default() -> Self {
        let link = hdl::params::LinkConfig::default();
        Self {
            ab: Faults::default(),
            ba: Faults::default(),
            delay: 4,
            flits: 10_000,
            tx_rate: 1.0,
            rx_rate: 1.0,
            max_len: 16,
            interleave: false,
            lane_threshold: link.lane_threshold as u8,
            lane_drain: link.lane_drain as u16,
            retry_limit: link.retry_limit as u8,
            seed: 1,
            stall_limit: 50_000,
            power_up: [2, 2],
            resets: [None; 4],
            stall_vc: None,
            stall_to: 0,
            dirty: 0.0,
            renumber: None,
            threshold_change: None,
        }
    }
}

/// Identity each end of the bench sends in training (chip type, chip ID, port number).
pub const IDENTITY: [(u8, u16, u8); 2] = [(1, 0x1a2b, 3), (2, 0xbeef, 17)];

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
    /// Dirty packets dropped: the endpoint's drop events (`drops`), counted by the bench
    /// every cycle as a register file would.
    pub dirty_drops: u64,
    /// Sticky protocol error.
    pub protocol_error: bool,
    /// Times the link went down and trained again.
    pub trainings: u64,
    /// ... of which because the far end started training.
    pub far_downs: u64,
    /// LTPs of the replay buffer discarded because the far end was reset.
    pub ltps_discarded: u64,
    /// The far end's identity as trained: chip type, chip ID, port number, all known.
    pub far: (u8, u16, u8, bool),
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
    /// Packets lost to resets (allowed: sent before the link was up again after a reset).
    pub lost: u64,
    /// Packets delivered whose first flit left after the last reset's recovery.
    pub after_recovery: u64,
    /// Dirty packets sent (each must be dropped, not delivered).
    pub dirty_sent: u64,
    /// Flits delivered on VCs other than the stalled one while `stall_vc` was stalled.
    pub during_stall: u64,
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
    /// Cycles from power-up (both ends out of reset) to both ends up.
    pub train_cycles: u64,
    /// Per mid-run reset: cycles from its end to both ends up again.
    pub reset_recovery: Vec<u64>,
    /// Per lane failure of `ab`/`ba` (`bad.from`): cycles from the failure to the next
    /// delivered flit in that direction.
    pub fault_recovery: Vec<u64>,
    /// Per end (A, B): the longest time its replay fill was neither zero nor falling, reset
    /// when its link comes up, as the link port's `LinkWatchdog` counts (a live link must stay
    /// well below the watchdog's limit).
    pub fill_stall_max: [u64; 2],
}

/// The lane ports of an endpoint's top (`lanes_out` or `lanes_in`), read and written as beats
/// (one transfer per lane: 32 or 16 bits, as wide as the top's lanes).
pub struct LanePorts {
    valid: PortId,
    start: PortId,
    data: PortId,
    /// Bits per lane.
    pub lane_bits: usize,
}

impl LanePorts {
    /// The lanes `{prefix}$valid`, `$start`, `$data` of `b`.
    pub fn new(b: &dyn Backend, prefix: &str) -> Self {
        let data = b.port(&format!("{prefix}$data"));
        Self {
            valid: b.port(&format!("{prefix}$valid")),
            start: b.port(&format!("{prefix}$start")),
            data,
            lane_bits: b.width(data) / MAX_LANES,
        }
    }
    /// The beat on the lanes now.
    pub fn read(&self, b: &mut dyn Backend) -> Beat {
        let d = b.peek(self.data);
        Beat {
            valid: b.peek(self.valid) as u8,
            start: b.peek(self.start) as u8,
            data: std::array::from_fn(|n| {
                (d >> (self.lane_bits * n)) as u32 & crate::backend::mask(self.lane_bits) as u32
            }),
        }
    }
    /// Drives a beat; lanes that are not valid carry random start flags and data (a wire
    /// carries something whether or not it is valid).
    pub fn write(&self, b: &mut dyn Backend, beat: &Beat, rng: &mut BenchRng) {
        let idle = !beat.valid & ((1 << MAX_LANES) - 1) as u8;
        b.poke(self.valid, beat.valid as u128);
        let start = beat.start & beat.valid | rng.bits(MAX_LANES) as u8 & idle;
        b.poke(self.start, start as u128);
        let width = self.lane_bits;
        let junk = rng.bits(width * MAX_LANES);
        let d = (0..MAX_LANES).fold(0u128, |x, n| {
            let lane = if idle >> n & 1 == 1 {
                junk >> (width * n)
            } else {
                beat.data[n] as u128
            };
            x | (lane & crate::backend::mask(width)) << (width * n)
        });
        b.poke(self.data, d);
    }
}

/// A packet a core sent: its flits and the cycle each left the core.
#[derive(Clone, Debug, Default)]
struct SentPacket {
    flits: Vec<u128>,
    fired: Vec<u64>,
    /// Made dirty on purpose: the far end must drop it.
    dirty: bool,
}

/// The core side of one endpoint: traffic generation and checking of what arrives.
struct Core {
    tx: Vec<Driver>,
    rx: Vec<Receiver>,
    /// Per VC: packets sent and not yet seen at the far end (the last one may be in progress).
    sent: Vec<VecDeque<SentPacket>>,
    /// Per VC: the flits of the packet being received, with their arrival cycles.
    partial: Vec<Vec<(u128, u64)>>,
    generated: u64,
    /// Per VC: the packets queued for sending (flits, dirty), so the scoreboard splits the
    /// flits that leave into packets as they were made, whatever they look like.
    shapes: Vec<VecDeque<(usize, bool)>>,
    /// Per VC: flits of the packet leaving now still to leave.
    left: Vec<usize>,
    /// Per VC: the last packet made was dirty without a tail.
    tailless: Vec<bool>,
}

fn is_head(f: u128) -> bool {
    matches!(Flit::unpack(f), Ok(Flit::Head(_)))
}

fn is_tail(f: u128) -> bool {
    matches!(Flit::unpack(f), Ok(Flit::Tail { .. }))
}

/// Makes packet `p` dirty in one of four ways the receiver must catch.
fn make_dirty(rng: &mut BenchRng, p: &mut Vec<u128>, after_tailless: bool) -> bool {
    // A headless packet right after a tail-less one would join it: one dirty packet.
    let kind = if after_tailless {
        rng.range(1, 3)
    } else {
        rng.range(0, 3)
    };
    match kind {
        0 => {
            p.remove(0);
        }
        1 => {
            p.pop();
        }
        2 => {
            let Ok(Flit::Head(mut h)) = Flit::unpack(p[0]) else {
                unreachable!("a packet starts with its head")
            };
            h.len = h.len.saturating_add(1);
            p[0] = Flit::Head(h).pack();
        }
        _ => {
            let last = p.len() - 1;
            p[last] = Flit::Control {
                code: hdl::formats::ControlCode::TailBadPkt,
                vc: 0,
                credits: 0,
                orig: rng.bits(32) as u64,
            }
            .pack();
        }
    }
    kind == 1
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

/// Status ports read by the bench, by name.
const STATUS: [&str; 20] = [
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
    "protocol_error",
    "trainings",
    "far_downs",
    "ltps_discarded",
    "far_chip_id",
    "far_known",
];

struct Status {
    ports: Vec<(&'static str, PortId)>,
    far_type: PortId,
    far_port: PortId,
}

impl Status {
    fn new(b: &dyn Backend) -> Self {
        Self {
            ports: STATUS.iter().map(|n| (*n, b.port(n))).collect(),
            far_type: b.port("far_chip_type"),
            far_port: b.port("far_port"),
        }
    }
    fn read(&self, b: &mut dyn Backend) -> EndpointStatus {
        let mut s = EndpointStatus::default();
        s.far.0 = b.peek(self.far_type) as u8;
        s.far.2 = b.peek(self.far_port) as u8;
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
                "protocol_error" => s.protocol_error = v != 0,
                "trainings" => s.trainings = v as u64,
                "far_downs" => s.far_downs = v as u64,
                "ltps_discarded" => s.ltps_discarded = v as u64,
                "far_chip_id" => s.far.1 = v as u16,
                _ => s.far.3 = v != 0,
            }
        }
        s
    }
}

/// Matches a packet delivered on `vc` against what the far core sent: it must be the first
/// packet not yet seen, except that packets whose first flit left before `lossy_before` may
/// have been lost whole. Returns the packets skipped as lost.
fn match_packet(
    sent: &mut VecDeque<SentPacket>,
    got: &[(u128, u64)],
    lossy_before: u64,
    vc: usize,
    cycle: u64,
) -> Result<(u64, SentPacket), String> {
    let flits: Vec<u128> = got.iter().map(|f| f.0).collect();
    let Some(i) = sent.iter().position(|p| !p.dirty && p.flits == flits) else {
        return Err(format!(
            "cycle {cycle}: VC {vc} delivered a packet of {} flits (head {:#x}) that matches no packet sent and not yet delivered: corrupted, duplicated or invented; next expected {:?}, delivered {:x?}",
            flits.len(),
            flits[0],
            sent.front().map(|p| (p.dirty, p.flits.iter().map(|f| format!("{f:x}")).collect::<Vec<_>>())),
            flits
        ));
    };
    for p in sent.iter().take(i) {
        if !p.dirty && p.fired[0] >= lossy_before {
            return Err(format!(
                "cycle {cycle}: VC {vc} lost a packet (head {:#x}, sent at cycle {}) that left after the link recovered from the last reset (cycle {lossy_before}), or reordered packets",
                p.flits[0], p.fired[0]
            ));
        }
    }
    let lost = sent.drain(..i).filter(|p| !p.dirty).count() as u64;
    let p = sent.pop_front().expect("found above");
    Ok((lost, p))
}

/// Runs two endpoints of `model` against each other; `Err` names the first broken guarantee.
pub fn run_link(
    model: &Arc<VerilatorModel>,
    vcs: usize,
    run: &LinkRun,
) -> Result<LinkReport, String> {
    run_link_models([model, model], vcs, run)
}

/// Runs endpoint A of `models[0]` against endpoint B of `models[1]` (they may be built with
/// different buffer sizes); `Err` names the first broken guarantee.
pub fn run_link_models(
    models: [&Arc<VerilatorModel>; 2],
    vcs: usize,
    run: &LinkRun,
) -> Result<LinkReport, String> {
    let mut sims: [VerilatorSim; 2] = [models[0].instance(), models[1].instance()];
    let mut rng = BenchRng::new(run.seed);
    let lane_bits = LanePorts::new(&sims[0], "lanes_out").lane_bits as u32;
    let mut wires = [
        LaneChannel::new(run.delay, run.ab, run.seed ^ 0xa5a5).with_lane_bits(lane_bits),
        LaneChannel::new(run.delay, run.ba, run.seed ^ 0x5a5a).with_lane_bits(lane_bits),
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
            partial: vec![vec![]; vcs],
            generated: 0,
            shapes: vec![VecDeque::new(); vcs],
            left: vec![0; vcs],
            tailless: vec![false; vcs],
        })
        .collect();
    let outs: Vec<LanePorts> = sims
        .iter()
        .map(|s| LanePorts::new(s, "lanes_out"))
        .collect();
    let ins: Vec<LanePorts> = sims.iter().map(|s| LanePorts::new(s, "lanes_in")).collect();
    let status: Vec<Status> = sims.iter().map(|s| Status::new(s)).collect();
    let up_ports: Vec<PortId> = sims.iter().map(|s| s.port("link_up")).collect();
    let state_ports: Vec<PortId> = sims.iter().map(|s| s.port("link_state")).collect();
    let reset_ports: Vec<PortId> = sims.iter().map(|s| s.port("reset")).collect();
    let drop_ports: Vec<PortId> = sims.iter().map(|s| s.port("drops")).collect();
    let fill_ports: Vec<PortId> = sims.iter().map(|s| s.port("replay_fill")).collect();
    // The watchdog's view per end: last fill, link up last cycle, cycles without progress.
    let mut fill_watch = [(0u128, false, 0u64); 2];
    let mut dirty_drops = [0u64; 2];
    let mut report = LinkReport::default();
    let mut lat_sum = [0u64; 2];
    let mut tail_sum = [0u64; 2];
    for d in &mut report.dirs {
        d.lat_min = u64::MAX;
        d.tail_min = u64::MAX;
    }
    for (e, s) in sims.iter_mut().enumerate() {
        let settings = [
            ("interleave", run.interleave as u128),
            ("lane_threshold", run.lane_threshold as u128),
            ("lane_drain", run.lane_drain as u128),
            ("retry_limit", run.retry_limit as u128),
            ("chip_type", IDENTITY[e].0 as u128),
            ("chip_id", IDENTITY[e].1 as u128),
            ("port_number", IDENTITY[e].2 as u128),
        ];
        for (name, v) in settings {
            let p = s.port(name);
            s.poke(p, v);
        }
    }
    let resets_run = run.resets.iter().any(Option::is_some);
    let mut chip_ids = IDENTITY.map(|i| i.1);
    // Each end is held in reset while `cycle < reset_until[e]`.
    let mut reset_until = run.power_up;
    // Packets whose first flit left before this cycle may be lost (a reset is being
    // recovered from: u64::MAX; after the recovery: the cycle both ends were up again).
    let mut lossy_before = 0u64;
    let mut recovered_at = 0u64;
    let mut recovering: Option<u64> = None;
    let mut trained = false;
    let faults_from = [run.ab, run.ba].map(|f| f.bad.map(|b| b.from));
    let mut fault_done = [false; 2];
    let mut cycle = 0u64;
    let mut last_progress = 0u64;
    let mut bad_seen = 0u64;
    let mut bad_at: Option<u64> = None;
    let mut good_seen = 0u64;
    loop {
        // Resets: power-up and mid-run. The reset end's core loses what it had not sent and
        // the packets it was receiving.
        for r in run.resets.iter().flatten() {
            if r.at == cycle {
                reset_until[r.end] = cycle + r.len;
                recovering = Some(cycle);
                lossy_before = u64::MAX;
                let core = &mut cores[r.end];
                for v in 0..vcs {
                    // The packet cut here stays as it left (lossy); the next one starts anew.
                    core.tx[v].queue.clear();
                    core.tx[v].reset();
                    core.shapes[v].clear();
                    core.left[v] = 0;
                    core.partial[v].clear();
                    core.rx[v].reset();
                }
            }
        }
        for e in 0..2 {
            sims[e].poke_bool(reset_ports[e], cycle < reset_until[e]);
        }
        if let Some((e, at)) = run.renumber {
            if at == cycle {
                chip_ids[e] = renumbered(chip_ids[e]);
                let p = sims[e].port("chip_id");
                sims[e].poke(p, chip_ids[e] as u128);
            }
        }
        if let Some((at, threshold)) = run.threshold_change {
            if at == cycle {
                for sim in sims.iter_mut() {
                    let p = sim.port("lane_threshold");
                    sim.poke(p, threshold as u128);
                }
            }
        }
        // Wires: what each end sends now arrives at the other after the delay.
        for e in 0..2 {
            let beat = outs[e].read(&mut sims[e]);
            let arrived = wires[e].step(beat);
            ins[1 - e].write(&mut sims[1 - e], &arrived, &mut rng);
        }
        // Cores: refill the transmit queues, drive both sides of every stream.
        let stalled = run
            .stall_vc
            .filter(|&(_, from)| (from..run.stall_to).contains(&cycle))
            .map(|(v, _)| v);
        for e in 0..2 {
            let core = &mut cores[e];
            for v in 0..vcs {
                if core.generated < run.flits && core.tx[v].queue.len() < 4 {
                    let mut p = packet(&mut rng, v, run.max_len);
                    // Never the last packets: a packet without a tail is caught by the next
                    // head on its VC.
                    let dirty = core.generated + 200 < run.flits && rng.chance(run.dirty);
                    let mut tailless = false;
                    if dirty {
                        tailless = make_dirty(&mut rng, &mut p, core.tailless[v]);
                        report.dirs[e].dirty_sent += 1;
                    }
                    core.tailless[v] = tailless;
                    core.shapes[v].push_back((p.len(), dirty));
                    core.generated += p.len() as u64;
                    core.tx[v].queue.extend(p);
                }
                if cycle < reset_until[e] {
                    // A core held in reset with its endpoint offers and takes nothing.
                    sims[e].poke_bool(core.tx[v].ports.valid, false);
                    sims[e].poke_bool(core.rx[v].ports.ready, false);
                    continue;
                }
                core.tx[v].drive(&mut sims[e], &mut rng);
                if stalled == Some(v) {
                    sims[e].poke_bool(core.rx[v].ports.ready, false);
                } else {
                    core.rx[v].drive(&mut sims[e], &mut rng);
                }
            }
        }
        for e in 0..2 {
            if cycle < reset_until[e] {
                continue;
            }
            for v in 0..vcs {
                if let Some(f) = cores[e].tx[v].fired(&mut sims[e]) {
                    let core = &mut cores[e];
                    if core.left[v] == 0 {
                        let (len, dirty) = core.shapes[v].pop_front().expect("a flit left");
                        core.left[v] = len;
                        core.sent[v].push_back(SentPacket {
                            dirty,
                            ..Default::default()
                        });
                    }
                    core.left[v] -= 1;
                    let p = core.sent[v].back_mut().expect("pushed above");
                    p.flits.push(f);
                    p.fired.push(cycle);
                }
            }
        }
        for e in 0..2 {
            // Flits arriving at `e` were sent by the other end.
            let dir = 1 - e;
            if cycle < reset_until[e] {
                continue;
            }
            for v in 0..vcs {
                if stalled == Some(v) {
                    continue; // its core takes nothing
                }
                let Some(f) = cores[e].rx[v].fired(&mut sims[e]) else {
                    continue;
                };
                if is_head(f) && !cores[e].partial[v].is_empty() {
                    return Err(format!(
                        "cycle {cycle}: end {e} VC {v} delivered a head while a packet of {} flits had no tail yet: a packet delivered in part",
                        cores[e].partial[v].len()
                    ));
                }
                cores[e].partial[v].push((f, cycle));
                let d = &mut report.dirs[dir];
                if d.delivered == 0 {
                    d.first = cycle;
                }
                if stalled.is_some_and(|s| s != v) {
                    d.during_stall += 1;
                }
                d.delivered += 1;
                d.last = cycle;
                last_progress = cycle;
                if !is_tail(f) {
                    continue;
                }
                let got = std::mem::take(&mut cores[e].partial[v]);
                let (lost, p) =
                    match_packet(&mut cores[1 - e].sent[v], &got, lossy_before, v, cycle)?;
                d.lost += lost;
                d.packets += 1;
                if resets_run && p.fired[0] >= recovered_at && recovering.is_none() {
                    d.after_recovery += 1;
                }
                for (&(_, at), &left) in got.iter().zip(&p.fired) {
                    let lat = at - left;
                    lat_sum[dir] += lat;
                    d.lat_min = d.lat_min.min(lat);
                    d.lat_max = d.lat_max.max(lat);
                }
                let tail = cycle - p.fired.last().expect("a packet has flits");
                tail_sum[dir] += tail;
                d.tail_min = d.tail_min.min(tail);
                d.tail_max = d.tail_max.max(tail);
                if let Some(from) = faults_from[dir] {
                    if !fault_done[dir] && p.fired[0] > from {
                        fault_done[dir] = true;
                        report.fault_recovery.push(cycle - from);
                    }
                }
            }
        }
        // Training and recovery from resets: both ends out of reset and up.
        let both_up = (0..2).all(|e| cycle >= reset_until[e] && sims[e].peek_bool(up_ports[e]));
        if both_up && !trained {
            trained = true;
            report.train_cycles = cycle - run.power_up[0].max(run.power_up[1]);
        }
        if let Some(r) = recovering {
            if both_up {
                let released = run
                    .resets
                    .iter()
                    .flatten()
                    .filter(|x| x.at == r)
                    .map(|x| x.at + x.len)
                    .max()
                    .unwrap_or(r);
                report.reset_recovery.push(cycle - released);
                recovering = None;
                lossy_before = cycle;
                recovered_at = cycle;
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
        for (e, s) in sims.iter_mut().enumerate() {
            dirty_drops[e] += (s.peek(drop_ports[e]) as u64).count_ones() as u64;
            let (last, was_up, count) = &mut fill_watch[e];
            let fill = s.peek(fill_ports[e]);
            let up = s.peek_bool(up_ports[e]);
            if fill == 0 || fill < *last || (up && !*was_up) {
                *count = 0;
            } else {
                *count += 1;
                report.fill_stall_max[e] = report.fill_stall_max[e].max(*count);
            }
            (*last, *was_up) = (fill, up);
            s.tick();
        }
        cycle += 1;
        let outstanding: Vec<&SentPacket> =
            cores.iter().flat_map(|c| c.sent.iter().flatten()).collect();
        let waiting: usize = cores
            .iter()
            .map(|c| c.tx.iter().map(|d| d.queue.len()).sum::<usize>())
            .sum();
        let all_lossy = outstanding.iter().all(|p| p.fired[0] < lossy_before);
        let generated = cores.iter().all(|c| c.generated >= run.flits);
        let resets_done = run.resets.iter().flatten().all(|r| r.at + r.len < cycle);
        if generated && waiting == 0 && recovering.is_none() && resets_done {
            // Packets lost to a reset never arrive: once nothing else is outstanding and the
            // link has been quiet for a while, the run is over.
            if outstanding.is_empty() || (all_lossy && cycle - last_progress > 5_000) {
                break;
            }
        }
        if cycle - last_progress > run.stall_limit {
            return Err(format!(
                "cycle {cycle}: no flit delivered for {} cycles with {} packets outstanding and {waiting} flits waiting: deadlock (A {:?}, B {:?})",
                run.stall_limit,
                outstanding.len(),
                status[0].read(&mut sims[0]),
                status[1].read(&mut sims[1])
            ));
        }
    }
    report.cycles = cycle;
    for e in 0..2 {
        report.status[e] = status[e].read(&mut sims[e]);
        report.status[e].dirty_drops = dirty_drops[e];
        report.dirs[e].wire = wires[e].stats;
        let d = &mut report.dirs[e];
        d.lat_mean = lat_sum[e] as f64 / d.delivered.max(1) as f64;
        d.tail_mean = tail_sum[e] as f64 / d.packets.max(1) as f64;
        let s = report.status[e];
        if s.protocol_error {
            return Err(format!("end {e} raised protocol_error: {s:?}"));
        }
        let dirty_sent = report.dirs[1 - e].dirty_sent;
        if s.dirty_drops != dirty_sent && !resets_run {
            return Err(format!(
                "end {e} dropped {} packets as dirty, {dirty_sent} dirty packets were sent: {s:?}",
                s.dirty_drops
            ));
        }
        // Trained (a retry may be in progress at the last delivery).
        if sims[e].peek(state_ports[e]) != 2 {
            return Err(format!("end {e}: the link is not up at the end: {s:?}"));
        }
        let (t, _, port) = IDENTITY[1 - e];
        let id = chip_ids[1 - e];
        if s.far != (t, id, port, true) {
            return Err(format!(
                "end {e}: far identity {:?}, the far end sends {:?}",
                s.far,
                (t, id, port)
            ));
        }
    }
    if resets_run && report.dirs.iter().any(|d| d.after_recovery == 0) {
        return Err(format!(
            "no packet sent after the last reset's recovery arrived: {:?}",
            report.dirs
        ));
    }
    Ok(report)
}
