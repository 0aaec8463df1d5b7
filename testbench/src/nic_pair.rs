//! Two NICs back to back on Verilator, from MMIO doorbells to bytes in the far host's memory:
//! either two DMA cores (`nic::dma::NicCore`, the emitted `nic_core`, [`Variant::Core`]) whose
//! network channels are joined directly, flits one way and credits the other, or two whole
//! chips (`nic::dma::NicTop`, the emitted `nic_top`, [`Variant::Top`]) whose LLP link ports
//! are joined through the lane-channel model in both directions, bit errors on (the link's
//! CRC and replay must hide them), their management agents reading a blank EEPROM.
//! One compiled model per variant, two instances; each has its own host memory
//! ([`HostMemory`]: latency, jitter, split and reordered completions, every interface rule
//! enforced), its own driver ([`DriverModel`]: rings, keys, descriptors, doorbells, events
//! read back by phase) and MMIO port ([`MmioHost`]).
//!
//! **Setup**, through MMIO only: the PF enables every function; every function opens each of
//! its QPs (rings of 16 entries, its key set by the PF, 16 NAP buffers posted).
//!
//! **Traffic**: random operations from every function and QP of both NICs to random functions
//! and QPs of the other: NAP immediate (1..=256 bytes), NAP indirect (1..=2048 bytes), PUT
//! and GET (1 byte to `max_bytes`, random alignment of both ends), a tenth of the NAPs and PUTs
//! with a wrong key. Each operation asks for its send event; PUTs ask for the receive event
//! at random; GETs always ask for theirs (the response's event at the requester). At most 8
//! GETs are in flight per NIC: the default configuration has 2 VCs, so GETs share the data
//! VC with no receive path of their own, and more than the `GetToPut` queue's 8 could
//! deadlock two NICs that GET from each other (`docs/nic-design.md`, "Deadlock").
//!
//! **Load**: operations are issued at random, in bursts now and then, up to 32 in flight per
//! function (its doorbell FIFO's depth); rings are read every 97 cycles, but only every 1,999
//! in one window of 6,000 cycles in three (slow software), so rings fill and the event writer
//! must hold events back (`EventRingFull`, counted in the report) and never overwrite one.
//!
//! **Isolation**: every 501 cycles a VF tries to write its own QP's key (PF only) or a register
//! of another function's page through its BAR; had either landed, later packets to that QP
//! would fail the scoreboard as unexpected `KeyMismatch` events.
//!
//! **Scoreboard.** Every event read from every ring must be one the bench expects, with every
//! field: send events by tag; PUT and GET-response events by their end address (the last
//! packet's bytes); NAP receive events in order per source QP, their buffer (by the ring index
//! in `info`) holding the message's bytes; `KeyMismatch` error events for wrong-key packets at
//! their target QP. At the end every expected event has been seen (or, for wrong keys, its
//! loss counted by `PacketEventLost`), every PUT and GET destination holds its source's bytes,
//! every wrong-key destination is untouched, and the counters show no stray tag, overrun, bad
//! free, CRC error, malformed packet or channel error.
use crate::backend::{Backend, PortId};
use crate::host::memory::{CompletionBeat, ReadRequest, WriteBeat};
use crate::host::{DriverModel, HostMemory, MemoryConfig, MmioHost};
use crate::link_bench::LanePorts;
use crate::models::i2c_eeprom::{EepromTiming, I2cBus, I2cEeprom};
use crate::models::lane_channel::{Faults, LaneChannel};
use crate::nic_fetch_perf::Ports;
use crate::rng::BenchRng;
use crate::verilator::{VerilatorModel, VerilatorSim};
use anyhow::Result;
use hdl::formats::header::PacketKind;
use hdl::formats::nic::{Descriptor, DescriptorBody, Event, EventKind, EventStatus, Segment};
use hdl::params::Config;
use nic::dma::CorePulse;
use nic::receive::receive_engine::ReceivePulse;
use nic::regs::Ring;
use std::collections::HashMap;
use std::sync::Arc;

/// The DMA core of the default configuration's shape.
pub type Core = nic::nic_core!(2, 32, 6, 5, 5, 8);
/// The whole chip of the default configuration's shape (`nic::tops::nic_top`), 16-bit lanes.
pub type Top = nic::nic_top!(2, 32, 6, 5, 5, 8, 16, 256, 32, 16);
/// The DMA core at MTU 256 (packets of 35 flits: intake buffers of 64, packet RAM of 128).
pub type Core256 = nic::nic_core!(2, 64, 7, 5, 5, 8);
/// The whole chip at MTU 256 (16-bit lanes, as the default).
pub type Top256 = nic::nic_top!(2, 64, 7, 5, 5, 8, 16, 256, 32, 16);

/// Which NICs, joined how.
#[derive(Clone, Copy, Debug)]
pub enum Variant {
    /// Two `nic_core`s, channels joined directly.
    Core,
    /// Two `nic_top`s, lanes joined through the lane-channel model with these faults (each
    /// direction).
    Top(Faults),
}

/// log2 of every ring's entries.
const RING_LOG2: u8 = 4;
/// GETs in flight per NIC at most (the `GetToPut` queue's slots).
const GETS_IN_FLIGHT: usize = 8;
/// Operations in flight per function at most (its doorbell FIFO holds 32).
const OPS_PER_FUNCTION: usize = 32;
/// Cycles between two polls of every ring.
const POLL_EVERY: u64 = 97;
/// The same while software is slow.
const SLOW_POLL_EVERY: u64 = 1999;
/// Cycles the bench waits with nothing outstanding before the final checks.
const SETTLE: u64 = 3000;

/// A ring: (side, function, QP, ring code).
type RingAt = (usize, usize, usize, usize);
/// Events expected per ring, each with its operation's index.
type Expected = HashMap<RingAt, Vec<(Event, usize)>>;

/// What a run measured.
#[derive(Clone, Debug, Default)]
pub struct PairReport {
    /// Cycles simulated.
    pub cycles: u64,
    /// Operations completed, per kind: NAP immediate, NAP indirect, PUT, GET.
    pub completed: [u64; 4],
    /// Wrong-key operations (dropped at the target).
    pub wrong_keys: u64,
    /// Bytes delivered (PUT, GET and NAP payloads).
    pub bytes: u64,
    /// Events read from the rings.
    pub events: u64,
    /// Events that waited for room in their ring (`EventRingFull` passes).
    pub ring_full: u64,
    /// MMIO writes a VF tried outside its rights (another page, a PF-only register).
    pub isolation_attempts: u64,
    /// `KeyMismatch` error events lost to a full slot (counted by `PacketEventLost`).
    pub lost_error_events: u64,
    /// Flits that crossed the channels (the `Core` variant).
    pub flits: u64,
    /// Wall-clock seconds of the simulation loop.
    pub seconds: f64,
    /// Bits the lane channels flipped (the `Top` variant).
    pub flipped_bits: u64,
}

/// The kind of an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OpKind {
    NapImmediate,
    NapIndirect,
    Put,
    Get,
}

/// An operation in flight and what it must leave behind.
#[derive(Clone, Debug)]
struct Op {
    kind: OpKind,
    /// Issuing side, function, QP.
    side: usize,
    function: usize,
    /// The bytes moved (read from the source when issued).
    data: Vec<u8>,
    /// PUT: destination at the target; GET: destination here.
    destination: u64,
    wrong_key: bool,
    /// Events still owed.
    owed: usize,
}

/// A QP's NAP buffers as the bench tracks them: the NIC takes ring entries in order, but
/// messages complete out of order (interleaved sources), so an entry is posted again only once
/// every older one's message has been read.
#[derive(Default)]
struct NapLedger {
    /// The oldest free-running ring pointer whose message is not yet read.
    next_release: u16,
    /// Pointers whose message has been read, not yet reposted.
    released: std::collections::HashSet<u16>,
    /// The buffer posted at each free-running pointer still in use.
    addresses: HashMap<u16, u64>,
}

/// One NIC with its host.
pub(crate) struct Side {
    pub sim: VerilatorSim,
    ports: Ports,
    pub memory: HostMemory,
    pub mmio: MmioHost,
    pub driver: DriverModel,
    pub node: u16,
    /// Per function: operations in flight.
    in_flight: Vec<usize>,
    gets: usize,
    /// Pulse totals, per bit.
    receive_pulses: Vec<u64>,
    core_pulses: Vec<u64>,
    /// `[function][qp]`.
    nap: Vec<Vec<NapLedger>>,
    /// The `Top` variant: lanes out and in, the EEPROM's bus.
    chip: Option<ChipSide>,
    /// Probability that each host port (read, write, MMIO) is ready in a cycle.
    host_ready: f64,
    /// What the host saw, for the performance benches ([`crate::nic_put_perf`]).
    pub(crate) trace: HostTrace,
}

/// What a NIC's host saw: written bytes, reads and their first beats, flits sent (the `Core`
/// variant: its network port is a port of the model).
#[derive(Clone, Debug, Default)]
pub(crate) struct HostTrace {
    /// Bytes written (byte enables set) into host memory.
    pub written: u64,
    /// The cycle of the last write beat taken.
    pub last_write: u64,
    /// Per read request: (tag, cycle taken, cycle of its first completion beat).
    pub reads: Vec<(u8, u64, Option<u64>)>,
    /// Flits out of the network port, and the cycle of the first and of the last one.
    pub flits: u64,
    pub first_flit: Option<u64>,
    pub last_flit: u64,
    /// Cycles of the MMIO writes the NIC took.
    pub mmio_writes: Vec<u64>,
    /// When kept (`Some`): every flit out of the network port as (cycle, flit, VC).
    pub flit_log: Option<Vec<(u64, u128, u8)>>,
}

/// How a pair is built: its configuration (whose shape must be the model's), its hosts'
/// memory, and how often the hosts' ports are ready.
#[derive(Clone, Debug)]
pub(crate) struct PairSetup {
    pub cfg: Config,
    pub memory: MemoryConfig,
    pub host_ready: f64,
    /// Probability that the host offers its next MMIO access in a cycle.
    pub mmio_rate: f64,
}

impl PairSetup {
    /// The random bench's hosts: latency 60 with jitter 8, ports ready 80% of cycles.
    fn random(cfg: Config) -> Self {
        let memory = MemoryConfig {
            latency: 60,
            jitter: 8,
            tags: cfg.nic.tags as usize,
            max_read_request: cfg.nic.max_read_request as u64,
            max_payload: cfg.nic.max_payload as u64,
            ..Default::default()
        };
        Self {
            cfg,
            memory,
            host_ready: 0.8,
            mmio_rate: 0.7,
        }
    }
}

/// What a whole chip has beyond a core.
struct ChipSide {
    lanes_out: LanePorts,
    lanes_in: LanePorts,
    wire_in: LaneChannel,
    bus: I2cBus,
    i2c: [PortId; 4],
}

impl Side {
    pub(crate) fn id(&self, n: &str) -> PortId {
        self.ports.id(n)
    }
}

/// The compiled model of `variant`'s NIC for `cfg`, whose shape (`nic::tops::nic_shape`) must
/// be that of [`Core`] / [`Top`] (the default configuration's) or [`Core256`] / [`Top256`].
pub fn model_for(variant: Variant, cfg: &Config) -> Result<Arc<VerilatorModel>> {
    let shape = nic::tops::nic_shape(cfg);
    let (default, mtu256) = ((2, 32, 6, 5, 5, 8), (2, 64, 7, 5, 5, 8));
    match variant {
        Variant::Core if shape == default => {
            VerilatorModel::build_for(&mut <Core>::new(nic::tops::nic_settings(cfg)), "nic_core")
        }
        Variant::Core if shape == mtu256 => VerilatorModel::build_for(
            &mut <Core256>::new(nic::tops::nic_settings(cfg)),
            "nic_core",
        ),
        Variant::Top(_) if shape == default => {
            VerilatorModel::build_for(&mut <Top>::new(nic::tops::nic_top_params(cfg)), "nic_top")
        }
        Variant::Top(_) if shape == mtu256 => VerilatorModel::build_for(
            &mut <Top256>::new(nic::tops::nic_top_params(cfg)),
            "nic_top",
        ),
        _ => anyhow::bail!("nic_pair: no NIC type of shape {shape:?}"),
    }
}

/// The compiled model of [`Core`] at the default configuration.
pub fn model() -> Result<Arc<VerilatorModel>> {
    model_for(Variant::Core, &Config::default())
}

/// The compiled model of [`Top`] at the default configuration.
pub fn top_model() -> Result<Arc<VerilatorModel>> {
    model_for(Variant::Top(Faults::default()), &Config::default())
}

/// Runs `operations` random operations with `seed`, PUT and GET lengths up to `max_bytes`,
/// on two instances of `model` (of `variant`).
pub fn run(
    model: &Arc<VerilatorModel>,
    variant: Variant,
    seed: u64,
    operations: usize,
    max_bytes: u64,
) -> PairReport {
    let cfg = Config::default();
    let (functions, qps) = (
        cfg.nic.functions as usize,
        cfg.nic.qps_per_function as usize,
    );
    let mut rng = BenchRng::new(seed);
    let what = format!("nic_pair seed {seed}");
    let mut sides = build(model, variant, seed, &PairSetup::random(cfg), &mut rng);
    let mut ops: Vec<Op> = vec![];
    // Expected events per (side, function, QP, ring): (event, op index); NAP receives in
    // order per source.
    let mut expected: Expected = HashMap::new();
    let mut tag_next = 1u32;
    let mut issued = 0usize;
    let mut report = PairReport::default();
    let mut now = 0u64;
    let mut quiet_since = 0u64;
    let start = std::time::Instant::now();
    loop {
        // Issue an operation now and then once set up.
        let setup_done = sides.iter().all(|s| s.mmio.idle()) || issued > 0;
        // Bursts: now and then many operations back to back, so functions reach their limit.
        let burst = (now / 2000) % 4 == 3;
        if setup_done && issued < operations && rng.chance(if burst { 0.5 } else { 0.02 }) {
            let side = rng.range(0, 1) as usize;
            let function = rng.range(0, functions as u64 - 1) as usize;
            let qp = rng.range(0, qps as u64 - 1) as usize;
            let kind = match rng.range(0, 3) {
                0 => OpKind::NapImmediate,
                1 => OpKind::NapIndirect,
                2 => OpKind::Put,
                _ => OpKind::Get,
            };
            let ok = sides[side].in_flight[function] < OPS_PER_FUNCTION
                && (kind != OpKind::Get || sides[side].gets < GETS_IN_FLIGHT);
            if ok {
                let target = (
                    rng.range(0, functions as u64 - 1) as usize,
                    rng.range(0, qps as u64 - 1) as usize,
                );
                let index = ops.len();
                let op = issue(
                    &mut sides,
                    &mut rng,
                    &mut expected,
                    (side, function, qp),
                    target,
                    kind,
                    max_bytes,
                    tag_next,
                    index,
                );
                tag_next += 1;
                issued += 1;
                sides[side].in_flight[function] += 1;
                if kind == OpKind::Get {
                    sides[side].gets += 1;
                }
                if op.wrong_key {
                    report.wrong_keys += 1;
                }
                ops.push(op);
            }
        }
        if setup_done && now.is_multiple_of(501) {
            isolation_attempt(&mut sides, &mut rng);
            report.isolation_attempts += 1;
        }
        step(&mut sides, &mut rng, now, &mut report);
        // Software is slow now and then (one window in three): its rings fill and the event
        // writer must hold events back rather than overwrite them.
        let poll_every = if (now / 6000) % 3 == 2 {
            SLOW_POLL_EVERY
        } else {
            POLL_EVERY
        };
        if now.is_multiple_of(poll_every) {
            poll(&mut sides, &mut expected, &mut ops, &mut report, &what);
        }
        let busy = issued < operations
            || ops.iter().any(|o| o.owed > 0)
            || sides.iter().any(|s| !s.mmio.idle());
        if busy {
            quiet_since = now;
        }
        now += 1;
        if !busy && now - quiet_since > SETTLE {
            break;
        }
        assert!(
            now < 400_000 + 2_000 * operations as u64,
            "{what}: no progress by cycle {now}: {} operations owe events: {:?}",
            ops.iter().filter(|o| o.owed > 0).count(),
            ops.iter()
                .filter(|o| o.owed > 0)
                .take(4)
                .collect::<Vec<_>>()
        );
    }
    report.seconds = start.elapsed().as_secs_f64();
    report.cycles = now;
    for (i, s) in sides.iter_mut().enumerate() {
        if s.chip.is_some() {
            let (stalled, error) = (s.id("link_stalled"), s.id("link_error"));
            assert!(
                !s.sim.peek_bool(stalled),
                "{what}: NIC {i}: its link stalled"
            );
            assert!(
                !s.sim.peek_bool(error),
                "{what}: NIC {i}: a link protocol error"
            );
        }
    }
    report.ring_full = sides
        .iter()
        .map(|s| s.core_pulses[CorePulse::EventRingFull.bit()])
        .sum();
    report.flipped_bits = sides
        .iter()
        .filter_map(|s| s.chip.as_ref())
        .map(|c| c.wire_in.stats.flips)
        .sum();
    final_checks(&sides, &ops, &expected, &mut report, &what);
    report
}

/// Two instances of `model` (of `variant`) with their hosts for `setup`: every function
/// enabled and every QP opened (rings of 16 entries, random keys, 16 NAP buffers posted) by
/// MMIO writes queued, not yet made; both NICs reset for a cycle.
pub(crate) fn build(
    model: &Arc<VerilatorModel>,
    variant: Variant,
    seed: u64,
    setup: &PairSetup,
    rng: &mut BenchRng,
) -> Vec<Side> {
    let cfg = &setup.cfg;
    let (functions, qps) = (
        cfg.nic.functions as usize,
        cfg.nic.qps_per_function as usize,
    );
    let mut sides: Vec<Side> = (0..2)
        .map(|i| {
            let sim = model.instance();
            let ports = Ports::new(&sim);
            let mmio = MmioHost::new(&sim, "", setup.mmio_rate, setup.host_ready);
            let chip = match variant {
                Variant::Core => None,
                Variant::Top(faults) => Some(ChipSide {
                    lanes_out: LanePorts::new(&sim, "lanes_out"),
                    lanes_in: LanePorts::new(&sim, "lanes_in"),
                    wire_in: LaneChannel::new(4, faults, seed * 2 + i as u64)
                        .with_lane_bits(LanePorts::new(&sim, "lanes_in").lane_bits as u32),
                    bus: I2cBus::new(I2cEeprom::new(0, EepromTiming::for_quarter(2, 600))),
                    i2c: [
                        sim.port("i2c$scl_drive_low"),
                        sim.port("i2c$sda_drive_low"),
                        sim.port("i2c$scl_in"),
                        sim.port("i2c$sda_in"),
                    ],
                }),
            };
            Side {
                sim,
                ports,
                memory: HostMemory::new(setup.memory.clone()),
                mmio,
                driver: DriverModel::new(functions, qps, 0x10_0000),
                node: 0x21 + i as u16,
                in_flight: vec![0; functions],
                gets: 0,
                receive_pulses: vec![0; ReceivePulse::ALL.len()],
                core_pulses: vec![0; CorePulse::ALL.len()],
                nap: (0..functions)
                    .map(|_| (0..qps).map(|_| NapLedger::default()).collect())
                    .collect(),
                chip,
                host_ready: setup.host_ready,
                trace: HostTrace::default(),
            }
        })
        .collect();
    // Setup through MMIO.
    for s in sides.iter_mut() {
        for f in 0..functions {
            let w = s.driver.enable_function(f, true);
            s.mmio.queue.extend(w);
        }
        for f in 0..functions {
            for q in 0..qps {
                let key = rng.bits(31) as u32 | 1;
                let w = s.driver.open_qp(&mut s.memory.mem, f, q, key, RING_LOG2);
                s.mmio.queue.extend(w);
                for p in 0..1u16 << RING_LOG2 {
                    let a = s.driver.qp[f][q].buffers[&(p as u64)];
                    s.nap[f][q].addresses.insert(p, a);
                }
            }
        }
    }
    // Reset both NICs for a cycle.
    for s in sides.iter_mut() {
        let (reset, node) = (s.id("reset"), s.id("node_id"));
        s.sim.poke_bool(reset, true);
        s.sim.poke(node, s.node as u128);
        s.sim.tick();
        s.sim.poke_bool(reset, false);
    }
    sides
}

/// A VF tries to write what it may not: its own QP's key (PF only) or a register of another
/// function's page (beyond its BAR's page). The MMIO decode must drop both; had either
/// landed, a key would have changed and later packets to that QP would fail the bench as
/// `KeyMismatch` events it does not expect.
fn isolation_attempt(sides: &mut [Side], rng: &mut BenchRng) {
    let s = &mut sides[rng.range(0, 1) as usize];
    let f = rng.range(1, s.driver.functions as u64 - 1) as usize;
    let q = rng.range(0, s.driver.qps as u64 - 1) as usize;
    let key = format!("qp{q}_key");
    let access = if rng.chance(0.5) {
        s.driver.own_write(f, &key, rng.bits(32) as u64 | 1 << 32)
    } else {
        // Another function's page, through this VF's BAR.
        let mut a = s.driver.own_write(f, &key, rng.bits(32) as u64 | 1 << 32);
        a.offset += s.driver.page_bytes * rng.range(1, 7);
        a
    };
    s.mmio.queue.push_back(access);
}

/// Builds and posts one operation; returns it with its expected events recorded.
#[allow(clippy::too_many_arguments)]
fn issue(
    sides: &mut [Side],
    rng: &mut BenchRng,
    expected: &mut Expected,
    (side, function, qp): (usize, usize, usize),
    (tf, tq): (usize, usize),
    kind: OpKind,
    max_bytes: u64,
    tag: u32,
    index: usize,
) -> Op {
    let other = 1 - side;
    let (src_node, dst_node) = (sides[side].node, sides[other].node);
    let wrong_key = kind != OpKind::Get && rng.chance(0.1);
    let target_key = sides[other].driver.qp[tf][tq].key;
    let key = if wrong_key {
        target_key ^ 0x40
    } else {
        target_key
    };
    let bytes = match kind {
        OpKind::NapImmediate => rng.range(1, 256),
        OpKind::NapIndirect => rng.range(1, 2048),
        // Mostly short, now and then long.
        _ if rng.chance(0.8) => rng.range(1, 256.min(max_bytes)),
        _ => rng.range(1, max_bytes),
    };
    let data: Vec<u8> = (0..bytes).map(|_| rng.bits(8) as u8).collect();
    // A region of `bytes` at a random alignment in side `s`'s memory, zeroed.
    let region = |s: &mut Side, rng: &mut BenchRng| {
        let a = s.driver.alloc(bytes + 64, 64) + rng.range(0, 63);
        s.memory.mem.write(a, &vec![0; bytes as usize]);
        a
    };
    let (body, destination, payload) = match kind {
        OpKind::NapImmediate => (DescriptorBody::NapImmediate(data.clone()), 0, data),
        OpKind::NapIndirect => {
            let a = region(&mut sides[side], rng);
            sides[side].memory.mem.write(a, &data);
            (
                DescriptorBody::NapIndirect {
                    address: a,
                    bytes: bytes as u32,
                },
                0,
                data,
            )
        }
        OpKind::Put => {
            let a = region(&mut sides[side], rng);
            sides[side].memory.mem.write(a, &data);
            let d = region(&mut sides[other], rng);
            (
                DescriptorBody::Put {
                    sources: vec![Segment {
                        address: a,
                        bytes: bytes as u32,
                    }],
                    destinations: vec![Segment {
                        address: d,
                        bytes: bytes as u32,
                    }],
                },
                d,
                data,
            )
        }
        OpKind::Get => {
            let a = region(&mut sides[other], rng);
            sides[other].memory.mem.write(a, &data);
            let d = region(&mut sides[side], rng);
            (
                DescriptorBody::Get {
                    sources: vec![Segment {
                        address: a,
                        bytes: bytes as u32,
                    }],
                    destinations: vec![Segment {
                        address: d,
                        bytes: bytes as u32,
                    }],
                    response_key: sides[side].driver.qp[function][qp].key,
                },
                d,
                data,
            )
        }
    };
    let remote_event = match kind {
        OpKind::Put => rng.chance(0.5),
        _ => true,
    };
    let descriptor = Descriptor {
        dst_node,
        dst_function: tf as u8,
        dst_qp: tq as u8,
        remote_event,
        local_event: kind != OpKind::Get,
        qp_magic: key,
        tag,
        body,
    };
    let bell =
        sides[side]
            .driver
            .post_descriptor(&mut sides[side].memory.mem, function, qp, &descriptor);
    sides[side].mmio.queue.push_back(bell);
    let op_code = match kind {
        OpKind::NapImmediate | OpKind::NapIndirect => PacketKind::Nap.code(),
        OpKind::Put => PacketKind::Put.code(),
        OpKind::Get => PacketKind::Get.code(),
    };
    let n = payload.len() as u32;
    let mut owed = 0;
    // Error events of wrong-key packets may be lost (counted): they are expected but not
    // owed, so the operation completes with its send event.
    let mut expect = |at: RingAt, e: Event| {
        expected.entry(at).or_default().push((e, index));
        owed += (e.kind != EventKind::Error) as usize;
    };
    let send = Ring::SendCompletion as usize;
    let receive = Ring::ReceiveCompletion as usize;
    let event = |kind, status, op, qp: usize, peer: (u16, usize, usize), length, info| Event {
        kind,
        status,
        op,
        qp: qp as u8,
        peer_node: peer.0,
        peer_function: peer.1 as u8,
        peer_qp: peer.2 as u8,
        length,
        info,
        phase: false,
    };
    // The last packet's bytes of a single-segment PUT (cut at the MTU from the segment's start).
    let mtu = Config::default().nic.mtu_bytes;
    let last_packet = |n: u32| n - mtu * ((n - 1) / mtu);
    if kind != OpKind::Get {
        expect(
            (side, function, qp, send),
            event(
                EventKind::Send,
                EventStatus::Ok,
                op_code,
                qp,
                (dst_node, tf, tq),
                n,
                tag,
            ),
        );
    }
    let from = (src_node, function, qp);
    match kind {
        _ if wrong_key => {
            // One KeyMismatch per packet at the target (or its loss, counted).
            for _ in 0..n.div_ceil(mtu) {
                expect(
                    (other, tf, tq, receive),
                    event(
                        EventKind::Error,
                        EventStatus::KeyMismatch,
                        op_code,
                        tq,
                        from,
                        0,
                        0,
                    ),
                );
            }
        }
        OpKind::NapImmediate | OpKind::NapIndirect => expect(
            (other, tf, tq, receive),
            event(EventKind::Receive, EventStatus::Ok, op_code, tq, from, n, 0),
        ),
        OpKind::Put if remote_event => expect(
            (other, tf, tq, receive),
            event(
                EventKind::Receive,
                EventStatus::Ok,
                op_code,
                tq,
                from,
                last_packet(n),
                (destination + n as u64) as u32,
            ),
        ),
        OpKind::Put => {}
        OpKind::Get => expect(
            (side, function, qp, send),
            event(
                EventKind::Send,
                EventStatus::Ok,
                PacketKind::Get.code(),
                qp,
                (dst_node, tf, tq),
                last_packet(n),
                (destination + n as u64) as u32,
            ),
        ),
    }
    Op {
        kind,
        side,
        function,
        data: payload,
        destination,
        wrong_key,
        owed,
    }
}

/// One cycle of both NICs: host ports, channels joined, then the edge.
pub(crate) fn step(sides: &mut [Side], rng: &mut BenchRng, now: u64, report: &mut PairReport) {
    // Host side of each NIC.
    for s in sides.iter_mut() {
        s.mmio.drive(&mut s.sim, rng);
        let read_ready = rng.chance(s.host_ready);
        let write_ready = rng.chance(s.host_ready);
        let beat = s.memory.offer(now, rng);
        let (rr, wr, cv, cd) = (
            s.id("read$ready"),
            s.id("write$ready"),
            s.id("read_completion$valid"),
            s.id("read_completion$data"),
        );
        s.sim.poke_bool(rr, read_ready);
        s.sim.poke_bool(wr, write_ready);
        s.sim.poke_bool(cv, beat.is_some());
        let shown = beat.unwrap_or(CompletionBeat {
            tag: 0,
            data: 0,
            last: false,
            error: false,
        });
        s.sim.poke(cd, shown.data);
        let (ct, cl, ce) = (
            s.id("read_completion$tag"),
            s.id("read_completion$last"),
            s.id("read_completion$error"),
        );
        s.sim.poke(ct, shown.tag as u128);
        s.sim.poke_bool(cl, shown.last);
        s.sim.poke_bool(ce, shown.error);
        let ir = s.id("interrupt$ready");
        s.sim.poke_bool(ir, true);
        if s.chip.is_none() {
            // The core alone: no management agent behind its ports.
            let (mi, mo) = (s.id("management_in$ready"), s.id("management_out$valid"));
            s.sim.poke_bool(mi, true);
            s.sim.poke_bool(mo, false);
        }
        if beat.is_some() {
            // The NIC takes every completion beat (its completion router never waits).
            assert!(
                s.sim.peek_bool(s.ports.id("read_completion$ready")),
                "nic_pair cycle {now}: a completion beat refused"
            );
            s.memory.taken();
            let tag = shown.tag;
            if let Some(r) = s.trace.reads.iter_mut().rev().find(|r| r.0 == tag) {
                r.2.get_or_insert(now);
            }
        }
        // What the host takes on this edge.
        let (rv, wv) = (s.id("read$valid"), s.id("write$valid"));
        if s.sim.peek_bool(rv) && read_ready {
            let req = ReadRequest::peek(&mut s.sim, |n| s.ports.id(n), "read");
            s.trace.reads.push((req.tag, now, None));
            s.memory.request(now, req, rng);
        }
        if s.sim.peek_bool(wv) && write_ready {
            let w = WriteBeat::peek(&mut s.sim, |n| s.ports.id(n), "write");
            s.trace.written += w.enables.count_ones() as u64;
            s.trace.last_write = now;
            s.memory.write_beat(now, w);
        }
        let iv = s.id("interrupt$valid");
        if s.sim.peek_bool(iv) {
            let f = s.sim.peek(s.ports.id("interrupt$function")) as u8;
            let v = s.sim.peek(s.ports.id("interrupt$vector")) as u8;
            s.driver.interrupt(f, v);
        }
    }
    if sides[0].chip.is_some() {
        join_lanes(sides, rng);
    } else {
        join_channels(sides, now, report);
    }
    for s in sides.iter_mut() {
        let (sent, done) = s.mmio.fired(&mut s.sim);
        if sent.is_some_and(|a| a.write) {
            s.trace.mmio_writes.push(now);
        }
        assert!(
            done.is_none(),
            "nic_pair cycle {now}: an MMIO read answered, none was issued"
        );
        let r = s.sim.peek(s.ports.id("receive_pulses"));
        for (i, total) in s.receive_pulses.iter_mut().enumerate() {
            *total += (r >> i & 1) as u64;
        }
        let c = s.sim.peek(s.ports.id("core_pulses"));
        for (i, total) in s.core_pulses.iter_mut().enumerate() {
            *total += (c >> i & 1) as u64;
        }
        s.sim.tick();
    }
}

/// The `Core` variant: flits forward (from registers), then credits back.
fn join_channels(sides: &mut [Side], now: u64, report: &mut PairReport) {
    for (from, to) in [(0usize, 1usize), (1, 0)] {
        let valid = sides[from]
            .sim
            .peek_bool(sides[from].ports.id("network_out$valid"));
        let flit = sides[from]
            .sim
            .peek(sides[from].ports.id("network_out$flit"));
        let vc = sides[from].sim.peek(sides[from].ports.id("network_out$vc"));
        let t = &mut sides[to];
        let (v, f, c) = (
            t.id("network_in$valid"),
            t.id("network_in$flit"),
            t.id("network_in$vc"),
        );
        t.sim.poke_bool(v, valid);
        t.sim.poke(f, flit);
        t.sim.poke(c, vc);
        report.flits += valid as u64;
        if valid {
            let trace = &mut sides[from].trace;
            trace.flits += 1;
            trace.first_flit.get_or_insert(now);
            trace.last_flit = now;
            if let Some(log) = trace.flit_log.as_mut() {
                log.push((now, flit, vc as u8));
            }
        }
    }
    for (from, to) in [(0usize, 1usize), (1, 0)] {
        let credits = sides[to].sim.peek(sides[to].ports.id("network_in$credits"));
        let s = &mut sides[from];
        let c = s.id("network_out$credits");
        s.sim.poke(c, credits);
    }
}

/// The `Top` variant: each side's lanes through its incoming wire to the other; the EEPROM
/// buses (open drain, pulled up).
fn join_lanes(sides: &mut [Side], rng: &mut BenchRng) {
    for (from, to) in [(0usize, 1usize), (1, 0)] {
        let beat = {
            let s = &mut sides[from];
            let c = s.chip.as_ref().expect("a chip");
            c.lanes_out.read(&mut s.sim)
        };
        let s = &mut sides[to];
        let c = s.chip.as_mut().expect("a chip");
        let arrived = c.wire_in.step(beat);
        c.lanes_in.write(&mut s.sim, &arrived, rng);
    }
    for s in sides.iter_mut() {
        let c = s.chip.as_mut().expect("a chip");
        let (scl, sda) = c
            .bus
            .lines(s.sim.peek_bool(c.i2c[0]), s.sim.peek_bool(c.i2c[1]));
        s.sim.poke_bool(c.i2c[2], scl);
        s.sim.poke_bool(c.i2c[3], sda);
        c.bus.step(scl, sda, 0);
    }
}

/// Reads every ring of both NICs, matches the events, hands entries and NAP buffers back.
fn poll(
    sides: &mut [Side],
    expected: &mut Expected,
    ops: &mut [Op],
    report: &mut PairReport,
    what: &str,
) {
    for side in 0..sides.len() {
        let (functions, qps) = (sides[side].driver.functions, sides[side].driver.qps);
        for f in 0..functions {
            for q in 0..qps {
                for ring in [Ring::SendCompletion, Ring::ReceiveCompletion] {
                    let s = &mut sides[side];
                    let (events, write) = s.driver.take_events(&s.memory.mem, f, q, ring);
                    if let Some(w) = write {
                        s.mmio.queue.push_back(w);
                    }
                    for e in events {
                        report.events += 1;
                        let at = (side, f, q, ring as usize);
                        let list = expected.entry(at).or_default();
                        let found = list.iter().position(|(x, _)| matches(x, &e));
                        let Some(i) = found else {
                            panic!("{what}: NIC {side} function {f} QP {q} {ring:?}: unexpected {e:?}; expected one of {list:?}")
                        };
                        let (x, index) = list.remove(i);
                        if e.kind == EventKind::Error {
                            continue;
                        }
                        let op = &mut ops[index];
                        op.owed -= 1;
                        if e.kind == EventKind::Receive && e.op == PacketKind::Nap.code() {
                            nap_received(&mut sides[side], f, q, e.info, &op.data, what, &x);
                        }
                        if op.owed == 0 {
                            complete(sides, op, report);
                        }
                    }
                }
            }
        }
    }
}

/// A NAP message's receive event of ring index `index` at QP `q` of function `f`: its buffer
/// must hold `data`; buffers are posted again in ring order.
fn nap_received(s: &mut Side, f: usize, q: usize, index: u32, data: &[u8], what: &str, x: &Event) {
    let entries = 1u16 << RING_LOG2;
    let ledger = &mut s.nap[f][q];
    let p = ledger
        .next_release
        .wrapping_add((index as u16).wrapping_sub(ledger.next_release) % entries);
    let buffer = *ledger.addresses.get(&p).unwrap_or_else(|| {
        panic!(
            "{what}: function {f} QP {q}: NAP event of ring index {index}: no buffer in use there"
        )
    });
    let got = s.memory.mem.read(buffer, data.len());
    assert!(
        got == data,
        "{what}: function {f} QP {q}: NAP buffer {buffer:#x} (ring pointer {p}) holds the wrong bytes for {x:?}"
    );
    assert!(
        ledger.released.insert(p),
        "{what}: NAP ring pointer {p} read twice"
    );
    loop {
        let next = s.nap[f][q].next_release;
        if !s.nap[f][q].released.remove(&next) {
            break;
        }
        let ledger = &mut s.nap[f][q];
        let old = ledger.next_release;
        ledger.addresses.remove(&old);
        ledger.next_release = old.wrapping_add(1);
        let producer = s.driver.qp[f][q].rings[Ring::NapBuffers as usize].pointer;
        let w = s.driver.post_nap_buffers(&mut s.memory.mem, f, q, 1);
        s.mmio.queue.extend(w);
        let a = s.driver.qp[f][q].buffers[&((producer % entries) as u64)];
        s.nap[f][q].addresses.insert(producer, a);
    }
}

/// Whether `got` is the expected event `want`: every field, except the ring index of a NAP
/// receive (checked through its buffer) and the length and info of an error event.
fn matches(want: &Event, got: &Event) -> bool {
    let base = want.kind == got.kind
        && want.status == got.status
        && want.op == got.op
        && want.qp == got.qp
        && want.peer_node == got.peer_node
        && want.peer_function == got.peer_function
        && want.peer_qp == got.peer_qp;
    match want.kind {
        EventKind::Error => base,
        EventKind::Receive if want.op == PacketKind::Nap.code() => {
            base && want.length == got.length
        }
        _ => base && want.length == got.length && want.info == got.info,
    }
}

/// An operation whose events have all arrived.
fn complete(sides: &mut [Side], op: &Op, report: &mut PairReport) {
    let k = match op.kind {
        OpKind::NapImmediate => 0,
        OpKind::NapIndirect => 1,
        OpKind::Put => 2,
        OpKind::Get => 3,
    };
    report.completed[k] += 1;
    report.bytes += op.data.len() as u64;
    sides[op.side].in_flight[op.function] -= 1;
    if op.kind == OpKind::Get {
        sides[op.side].gets -= 1;
    }
}

/// The checks after the traffic has drained.
fn final_checks(
    sides: &[Side],
    ops: &[Op],
    expected: &Expected,
    report: &mut PairReport,
    what: &str,
) {
    // Wrong-key error events not seen must have been lost, and counted as lost.
    let mut unseen_errors = [0u64; 2];
    for ((side, f, q, ring), list) in expected {
        for (e, index) in list {
            assert!(
                e.kind == EventKind::Error && ops[*index].wrong_key,
                "{what}: NIC {side} function {f} QP {q} ring {ring}: {e:?} never arrived"
            );
            unseen_errors[*side] += 1;
        }
    }
    for (i, s) in sides.iter().enumerate() {
        let lost = s.receive_pulses[ReceivePulse::PacketEventLost.bit()];
        assert_eq!(
            lost, unseen_errors[i],
            "{what}: NIC {i}: KeyMismatch events not seen against PacketEventLost pulses"
        );
        report.lost_error_events += lost;
        for p in [
            ReceivePulse::BadVc,
            ReceivePulse::Overflow,
            ReceivePulse::CrcError,
            ReceivePulse::Malformed,
            ReceivePulse::TargetRefused,
            ReceivePulse::UnknownKind,
            ReceivePulse::NoBuffer,
            ReceivePulse::NapOverrun,
            ReceivePulse::RingReadError,
            ReceivePulse::BadRingEntry,
            ReceivePulse::BadGet,
        ] {
            assert_eq!(
                s.receive_pulses[p.bit()],
                0,
                "{what}: NIC {i}: {p:?} pulses"
            );
        }
        for p in [
            CorePulse::TagStray,
            CorePulse::CompletionOverrun,
            CorePulse::BadTagFree,
            CorePulse::PacketStomped,
            CorePulse::GetRefused,
            CorePulse::EventDropped,
            CorePulse::DoorbellStray,
            CorePulse::NetworkStray,
        ] {
            assert_eq!(s.core_pulses[p.bit()], 0, "{what}: NIC {i}: {p:?} pulses");
        }
        let wrong: u64 = ops
            .iter()
            .filter(|o| o.wrong_key && o.side != i)
            .map(|o| (o.data.len() as u64).div_ceil(Config::default().nic.mtu_bytes as u64))
            .sum();
        assert_eq!(
            s.receive_pulses[ReceivePulse::KeyMismatch.bit()],
            wrong,
            "{what}: NIC {i}: KeyMismatch pulses against wrong-key packets sent to it"
        );
    }
    for op in ops {
        let other = 1 - op.side;
        match op.kind {
            OpKind::Put => {
                let got = sides[other].memory.mem.read(op.destination, op.data.len());
                if op.wrong_key {
                    assert!(
                        got.iter().all(|&b| b == 0),
                        "{what}: a wrong-key PUT wrote at {:#x}",
                        op.destination
                    );
                } else {
                    assert!(
                        got == op.data,
                        "{what}: PUT of {} bytes to {:#x} (NIC {other}): wrong bytes",
                        op.data.len(),
                        op.destination
                    );
                }
            }
            OpKind::Get => {
                let got = sides[op.side]
                    .memory
                    .mem
                    .read(op.destination, op.data.len());
                assert!(
                    got == op.data,
                    "{what}: GET of {} bytes into {:#x} (NIC {}): wrong bytes",
                    op.data.len(),
                    op.destination,
                    op.side
                );
            }
            _ => {}
        }
    }
}

/// `bench -- nic-pair`: two `nic_core`s (three seeds) and two `nic_top`s over lanes with bit
/// errors at 1e-5 (two seeds), 1,500 operations each, PUT and GET up to 64 KB; prints cycles,
/// operations, bytes per cycle (both directions together) and simulation speed.
pub fn report() -> Result<()> {
    let core = model()?;
    let top = top_model()?;
    println!("two NICs back to back (Verilator; default configuration; host latency 60, completions split and reordered, 20% back pressure; 1,500 operations, PUT and GET up to 64 KB)");
    println!(
        "| NICs | seed | NAP imm. | NAP ind. | PUT | GET | wrong keys | cycles | bytes | bytes/cycle | events | ring-full waits | flipped bits | pair cycles/s |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let faults = Faults {
        ber: 1e-5,
        ..Default::default()
    };
    let runs = [
        ("nic_core", Variant::Core, 11),
        ("nic_core", Variant::Core, 12),
        ("nic_core", Variant::Core, 13),
        ("nic_top, BER 1e-5", Variant::Top(faults), 21),
        ("nic_top, BER 1e-5", Variant::Top(faults), 22),
    ];
    for (name, variant, seed) in runs {
        let m = match variant {
            Variant::Core => &core,
            Variant::Top(_) => &top,
        };
        let r = run(m, variant, seed, 1500, 65536);
        println!(
            "| {name} | {seed} | {} | {} | {} | {} | {} | {} | {} | {:.2} | {} | {} | {} | {:.0} |",
            r.completed[0],
            r.completed[1],
            r.completed[2],
            r.completed[3],
            r.wrong_keys,
            r.cycles,
            r.bytes,
            r.bytes as f64 / r.cycles as f64,
            r.events,
            r.ring_full,
            r.flipped_bits,
            r.cycles as f64 / r.seconds
        );
    }
    Ok(())
}
