//! The world around the router core (`nrc::router_core::RouterCore`, top `nrc_core`) on
//! Verilator: a credit-flow-controlled sender on every input channel, a receiver with a
//! `reserve`-flit buffer per VC on every output channel (draining at random, returning each
//! credit after a random delay) or, for `bench router`, a model of the next hop's input buffer
//! behind a wire ([`Downstream`], [`CoreWorld::model_next_hops`]), the management client ([`crate::mgmt_client`]) whose packets
//! enter and leave through the data ports, the I2C EEPROM model (blank) and fixed link reports.
//! Used by the system bench (`tests/router_core.rs`) and by `bench router`
//! ([`crate::router_perf`]).
//!
//! **Scoreboard.** Every data packet carries a unique tag in its header's `src` field and in
//! its bodies; the world keeps what it sent. A packet that leaves must be one the world sent
//! (once), whole and unchanged except for the head's `vc` (the VC policy's choice, which must
//! be the VC it leaves on) and `delay` (the arrival delay plus exactly the cycles from head in
//! to head out), on a port its destination's route table entry allows (in deterministic mode
//! exactly the port the hash names), and in order per flow (input port, input VC, output
//! port). No flit may arrive at a receiver without a free slot. Management packets that leave
//! go to the client.
use crate::backend::{Backend, PortId};
use crate::mgmt_client::{ClientConfig, MgmtClient};
use crate::models::damq::DamqModel;
use crate::models::i2c_eeprom::{EepromTiming, I2cBus, I2cEeprom};
use crate::rng::BenchRng;
use crate::verilator::{VerilatorModel, VerilatorSim};
use hdl::formats::flit::Flit;
use hdl::formats::header::{FabricHeader, PacketKind};
use hdl::params::Config;
use hdl::vc_policy::VcPolicy;
use nrc::nrc_mgmt::NrcMgmtParams;
use nrc::router_core::RouterCoreParams;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};

/// Ports of the simulated core (the `nrc_core` top's).
pub const PORTS: usize = nrc::tops::CORE_PORTS;
/// Destinations in its route table.
pub const NODES: usize = nrc::tops::ROUTE_NODES;
/// The client's node ID.
pub const SERVER: u16 = 0x0042;

/// The configurations simulated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// The default configuration: 2 VCs (management on VC 1), 128-flit DAMQs.
    Default,
    /// The published router's VCs: 6 (management on VC 3), 256-flit DAMQs.
    SixVcs,
}

impl Shape {
    /// The configuration of this shape.
    pub fn config(self) -> Config {
        let mut cfg = Config::default();
        if self == Shape::SixVcs {
            cfg.network.vcs = 6;
            cfg.network.mgmt_vc = 3;
            cfg.router.input_buffer_flits = 256;
        }
        cfg
    }

    /// The core's elaboration values: the configuration's, with a fast EEPROM bus.
    pub fn params(self) -> RouterCoreParams {
        self.params_with(self.config().router.alloc_iterations as usize)
    }

    /// [`Shape::params`] with `router.alloc_iterations` = `iterations` (1..=3).
    pub fn params_with(self, iterations: usize) -> RouterCoreParams {
        let mut cfg = self.config();
        cfg.router.alloc_iterations = iterations as u32;
        let mgmt = NrcMgmtParams {
            mgmt_vc: cfg.network.mgmt_vc as u8,
            quarter: 2,
            stretch_limit: 1024,
            poll_limit: 16,
            image_base: 0,
            max_entries: 64,
        };
        RouterCoreParams::from_config(&cfg, 0, NODES, mgmt)
    }
}

/// The Verilator model of `shape`'s core, built (or loaded from the cache) once per process.
pub fn model(shape: Shape) -> Arc<VerilatorModel> {
    model_with(shape, shape.config().router.alloc_iterations as usize)
}

/// The Verilator model of `shape`'s core with `iterations` allocator iterations (1..=3).
pub fn model_with(shape: Shape, iterations: usize) -> Arc<VerilatorModel> {
    type Models = HashMap<(Shape, usize), Arc<VerilatorModel>>;
    static MODELS: OnceLock<Mutex<Models>> = OnceLock::new();
    let mut models = MODELS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    models
        .entry((shape, iterations))
        .or_insert_with(|| {
            let p = shape.params_with(iterations);
            match shape {
                Shape::Default => VerilatorModel::build_for(
                    &mut <nrc::router_core!(PORTS, 2, 128, NODES, 1)>::new(p),
                    "nrc_core",
                ),
                Shape::SixVcs => VerilatorModel::build_for(
                    &mut <nrc::router_core!(PORTS, 6, 256, NODES, 1)>::new(p),
                    "nrc_core6",
                ),
            }
            .expect("the router core's Verilator model builds")
        })
        .clone()
}

/// A packet waiting at a sender.
struct Outgoing {
    flits: Vec<u128>,
    /// The data packet's tag (`None`: a management packet).
    tag: Option<u16>,
}

/// One input channel's sender: per VC a queue of packets, per VC credits.
struct Sender {
    queues: Vec<VecDeque<Outgoing>>,
    /// Next flit of each VC's front packet.
    next: Vec<usize>,
    credits: Vec<usize>,
    turn: usize,
    valid: PortId,
    flit: PortId,
    vc: PortId,
    returned: PortId,
}

/// One output channel's receiver.
struct Receiver {
    /// Per VC: flits held in the buffer.
    buffers: Vec<VecDeque<u128>>,
    /// Per VC: slots in use (flits held, and drained flits whose credit is not back yet).
    held: Vec<usize>,
    /// Per VC: the packet being received and the cycle its head arrived.
    open: Vec<Option<(Vec<u128>, u64)>>,
    /// Per VC: cycles at which a drained flit's credit goes back.
    due: Vec<VecDeque<u64>>,
    /// The next hop's input buffer, when modelled (then `buffers`, `held` and `due` are
    /// unused, and `drain` is the chance the next hop reads a flit in a cycle).
    next_hop: Option<Downstream>,
    valid: PortId,
    flit: PortId,
    vc: PortId,
    credits: PortId,
}

/// The next hop as an output channel of the core sees it: a wire of `wire` cycles to the next
/// router's input unit, that unit's DAMQ buffer exactly as configured (the reference model
/// [`DamqModel`]: `router.input_buffer_flits` slots, `router.reserved_flits_per_vc` per VC and
/// the pool lent by its credit policy, its `returned` register), and a wire of `wire` cycles
/// back for the credits. The next router's switch reads at most one flit a cycle from it (round
/// robin over the VCs holding flits), in a cycle with probability `drain`. The flow control is
/// checked: a flit that arrives without a credit, or any packet-check event, panics.
#[derive(Clone, Debug)]
pub struct Downstream {
    damq: DamqModel,
    wire: u64,
    /// Flits on the wire: (cycle of arrival, VC, flit).
    flits: VecDeque<(u64, usize, u128)>,
    /// Credits on the wire back: (cycle of arrival, VC bits).
    credits: VecDeque<(u64, u32)>,
    turn: usize,
}

impl Downstream {
    /// An empty input unit of `vcs` VCs, `slots` buffer slots, `reserve` credits per VC,
    /// packets up to `max_len` flits, behind a wire of `wire` cycles each way.
    pub fn new(vcs: usize, slots: usize, reserve: usize, max_len: usize, wire: u64) -> Self {
        let capacity = nrc::port::damq::damq_capacity(vcs, slots);
        Self {
            damq: DamqModel::new(vcs, capacity, reserve, max_len),
            wire,
            flits: VecDeque::new(),
            credits: VecDeque::new(),
            turn: 0,
        }
    }

    /// One cycle: `sent` = the (VC, flit) the core drives now, `read` = whether the next
    /// router's switch reads a flit in this cycle. Returns the credits arriving back at the
    /// core now (bit `v`: one of VC `v`).
    pub fn cycle(&mut self, now: u64, sent: Option<(usize, u128)>, read: bool) -> u32 {
        if let Some((v, flit)) = sent {
            self.flits.push_back((now + self.wire, v, flit));
        }
        let arrival = match self.flits.front() {
            Some(&(t, v, flit)) if t <= now => {
                self.flits.pop_front();
                Some((v, flit))
            }
            _ => None,
        };
        let vcs = self.damq.queues.len();
        let pick = read
            .then(|| {
                (0..vcs)
                    .map(|k| (self.turn + k) % vcs)
                    .find(|&v| self.damq.ready(v))
            })
            .flatten();
        if let Some(v) = pick {
            self.turn = (v + 1) % vcs;
        }
        // The `returned` register before this edge goes onto the wire back.
        if self.damq.returned != 0 {
            self.credits
                .push_back((now + self.wire, self.damq.returned));
        }
        self.damq.edge(arrival, pick);
        assert_eq!(
            self.damq.events, 0,
            "next hop: event {:#x} (a flit without a credit, or a malformed packet) at cycle {now}",
            self.damq.events
        );
        match self.credits.front() {
            Some(&(t, bits)) if t <= now => {
                self.credits.pop_front();
                bits
            }
            _ => 0,
        }
    }

    /// Flits on the wire or in the buffer (the next hop is idle when false).
    pub fn busy(&self) -> bool {
        !self.flits.is_empty() || self.damq.queues.iter().any(|q| !q.is_empty())
    }
}

/// What the scoreboard expects of a data packet in flight.
struct Expected {
    input: usize,
    in_vc: usize,
    /// Order of sending (per flow, arrivals must increase).
    seq: u64,
    flits: Vec<u128>,
    /// The cycle its head was on the input channel.
    head_in: Option<u64>,
    /// Its destination has no route: it must never leave.
    no_route: bool,
    /// The cycle it was queued at the sender.
    born: u64,
}

/// Counts of the run.
#[derive(Clone, Copy, Debug, Default)]
pub struct CoreStats {
    /// Data packets queued at the senders.
    pub queued: u64,
    /// Data packets that left, checked.
    pub delivered: u64,
    /// Their flits.
    pub delivered_flits: u64,
    /// Sum and maximum of head in to head out, cycles.
    pub latency_sum: u64,
    /// See `latency_sum`.
    pub latency_max: u64,
    /// Smallest head in to head out seen.
    pub latency_min: u64,
    /// Sum of packet latencies: from queued at the sender to its tail out.
    pub packet_latency_sum: u64,
    /// `NO_ROUTE` drop events seen on the core's `drops` outputs.
    pub no_route_events: u64,
    /// Every other drop event (none in a correct run).
    pub other_drop_events: u64,
    /// Management packets that left.
    pub mgmt_out: u64,
}

/// The core and the world around it; see the module documentation.
pub struct CoreWorld {
    /// The simulated core.
    pub b: VerilatorSim,
    /// Randomness of the world.
    pub rng: BenchRng,
    /// VCs, the management VC, credits per downstream VC, the longest packet.
    pub vcs: usize,
    /// See `vcs`.
    pub mgmt_vc: usize,
    /// See `vcs`.
    pub reserve: usize,
    /// See `vcs`.
    pub max_len: usize,
    /// Slots of an input buffer (`router.input_buffer_flits`).
    pub slots: usize,
    policy: VcPolicy,
    /// Route mode driven on `deterministic`.
    pub deterministic: bool,
    /// Per output port and VC cycle: chance the receiver drains a flit.
    pub drain: f64,
    /// The senders keep to one VC until its packet's last flit (else, as the link port's
    /// `ChannelSender`, a flit of the next VC with a flit and a credit each cycle).
    pub packet_senders: bool,
    /// Credit return delay after a drain, cycles (uniform in this range).
    pub credit_delay: (u64, u64),
    /// The route table as the bench wrote it (destination -> allowed ports).
    pub table: Vec<u8>,
    /// The management client.
    pub client: MgmtClient,
    /// Counts.
    pub stats: CoreStats,
    senders: Vec<Sender>,
    receivers: Vec<Receiver>,
    bus: I2cBus,
    reset: PortId,
    deterministic_port: PortId,
    scl_low: PortId,
    sda_low: PortId,
    scl_in: PortId,
    sda_in: PortId,
    drops: Vec<PortId>,
    errors: PortId,
    inflight: HashMap<u16, Expected>,
    next_tag: u16,
    seq: u64,
    last_seq: HashMap<(usize, usize, usize), u64>,
}

impl CoreWorld {
    /// A world around a new instance of `shape`'s core; `seed` seeds its randomness.
    pub fn new(shape: Shape, seed: u64) -> Self {
        Self::with_iterations(shape, shape.config().router.alloc_iterations as usize, seed)
    }

    /// [`CoreWorld::new`] with `iterations` allocator iterations (1..=3).
    pub fn with_iterations(shape: Shape, iterations: usize, seed: u64) -> Self {
        let mut b = model_with(shape, iterations).instance();
        let cfg = shape.config();
        let vcs = cfg.network.vcs as usize;
        let senders = (0..PORTS)
            .map(|p| Sender {
                queues: (0..vcs).map(|_| VecDeque::new()).collect(),
                next: vec![0; vcs],
                credits: vec![cfg.router.reserved_flits_per_vc as usize; vcs],
                turn: 0,
                valid: b.port(&format!("inputs${p}$valid")),
                flit: b.port(&format!("inputs${p}$flit")),
                vc: b.port(&format!("inputs${p}$vc")),
                returned: b.port(&format!("inputs${p}$credits")),
            })
            .collect();
        let receivers = (0..PORTS)
            .map(|p| Receiver {
                buffers: (0..vcs).map(|_| VecDeque::new()).collect(),
                held: vec![0; vcs],
                open: vec![None; vcs],
                due: (0..vcs).map(|_| VecDeque::new()).collect(),
                next_hop: None,
                valid: b.port(&format!("outputs${p}$valid")),
                flit: b.port(&format!("outputs${p}$flit")),
                vc: b.port(&format!("outputs${p}$vc")),
                credits: b.port(&format!("outputs${p}$credits")),
            })
            .collect();
        // Fixed link reports: port `p`'s status register reads `0x5000 + p`.
        for p in 0..PORTS {
            for (k, name) in crate::mgmt_plane::LINK_SIGNALS.iter().enumerate() {
                let id = b.port(&format!("links${p}${name}"));
                b.poke(id, link_value(p, k) as u128);
            }
        }
        let part = I2cEeprom::new(0, EepromTiming::for_quarter(2, 600));
        Self {
            reset: b.port("reset"),
            deterministic_port: b.port("deterministic"),
            scl_low: b.port("i2c$scl_drive_low"),
            sda_low: b.port("i2c$sda_drive_low"),
            scl_in: b.port("i2c$scl_in"),
            sda_in: b.port("i2c$sda_in"),
            drops: (0..PORTS).map(|p| b.port(&format!("drops${p}"))).collect(),
            errors: b.port("errors"),
            b,
            rng: BenchRng::new(seed),
            vcs,
            mgmt_vc: cfg.network.mgmt_vc as usize,
            reserve: cfg.router.reserved_flits_per_vc as usize,
            max_len: cfg.network.max_packet_flits as usize,
            slots: cfg.router.input_buffer_flits as usize,
            policy: cfg.vc_policy(),
            deterministic: false,
            packet_senders: false,
            drain: 1.0,
            credit_delay: (1, 1),
            table: vec![0; NODES],
            client: MgmtClient::new(ClientConfig {
                node_id: SERVER,
                mgmt_vc: cfg.network.mgmt_vc as u8,
                vp: 1,
                timeout: 1_000_000,
                retries: 0,
            }),
            stats: CoreStats {
                latency_min: u64::MAX,
                ..Default::default()
            },
            senders,
            receivers,
            bus: I2cBus::new(part),
            inflight: HashMap::new(),
            next_tag: 0,
            seq: 0,
            last_seq: HashMap::new(),
        }
    }

    /// Every output drives a model of the next hop ([`Downstream`]: the configured input buffer
    /// behind a wire of `wire` cycles each way) instead of the simple receiver; `drain` is then
    /// the chance the next hop reads a flit in a cycle.
    pub fn model_next_hops(&mut self, wire: u64) {
        for r in &mut self.receivers {
            r.next_hop = Some(Downstream::new(
                self.vcs,
                self.slots,
                self.reserve,
                self.max_len,
                wire,
            ));
        }
    }

    /// Holds reset for `cycles` cycles (everything in the world starts over; the route
    /// table is kept, as the core keeps it).
    pub fn reset(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.cycle_with(true);
        }
        for s in &mut self.senders {
            for q in &mut s.queues {
                q.clear();
            }
            s.next.iter_mut().for_each(|n| *n = 0);
            s.credits.iter_mut().for_each(|c| *c = self.reserve);
        }
        for r in &mut self.receivers {
            for v in 0..self.vcs {
                r.buffers[v].clear();
                r.held[v] = 0;
                r.open[v] = None;
                r.due[v].clear();
            }
            if let Some(d) = r.next_hop.as_mut() {
                *d = Downstream::new(self.vcs, self.slots, self.reserve, self.max_len, d.wire);
            }
        }
        self.inflight.clear();
        self.last_seq.clear();
    }

    /// Queues a data packet of `len` flits (2..=255) on input `input`, VC `vc`, for `dst`;
    /// returns its tag.
    pub fn send(&mut self, input: usize, vc: usize, dst: u16, len: usize, kind: PacketKind) -> u16 {
        while self.inflight.contains_key(&self.next_tag) {
            self.next_tag = self.next_tag.wrapping_add(1);
        }
        let tag = self.next_tag;
        self.next_tag = self.next_tag.wrapping_add(1);
        let head = FabricHeader {
            dst,
            src: tag,
            vc: vc as u8,
            kind,
            len: len as u8,
            delay: self.rng.range(0, 1000) as u16,
        };
        let mut flits = vec![Flit::Head(head).pack()];
        for k in 1..len - 1 {
            flits.push(
                Flit::Body((tag as u64) << 32 | (k as u64) << 16 | self.rng.bits(16) as u64).pack(),
            );
        }
        flits.push(
            Flit::Tail {
                crc16: self.rng.bits(16) as u16,
            }
            .pack(),
        );
        let no_route = self.table.get(dst as usize).is_none_or(|m| *m == 0);
        self.inflight.insert(
            tag,
            Expected {
                input,
                in_vc: vc,
                seq: self.seq,
                flits: flits.clone(),
                head_in: None,
                no_route,
                born: self.b.cycle(),
            },
        );
        self.seq += 1;
        self.senders[input].queues[vc].push_back(Outgoing {
            flits,
            tag: Some(tag),
        });
        self.stats.queued += 1;
        tag
    }

    /// Flits waiting at input `input`'s sender (all VCs).
    pub fn backlog(&self, input: usize) -> usize {
        self.senders[input]
            .queues
            .iter()
            .map(|q| q.iter().map(|o| o.flits.len()).sum::<usize>())
            .sum()
    }

    /// Data packets sent and not yet out (those without a route excluded).
    pub fn in_flight(&self) -> usize {
        self.inflight.values().filter(|e| !e.no_route).count()
    }

    /// Packets without a route still held by the scoreboard (removed once their drop is seen).
    pub fn unrouted_pending(&self) -> usize {
        self.inflight.values().filter(|e| e.no_route).count()
    }

    /// One cycle, not in reset.
    pub fn cycle(&mut self) {
        self.cycle_with(false);
    }

    fn cycle_with(&mut self, reset: bool) {
        let now = self.b.cycle();
        self.b.poke_bool(self.reset, reset);
        self.b
            .poke_bool(self.deterministic_port, self.deterministic);
        if !reset {
            if let Some((port, flits)) = self.client.next_packet(now) {
                self.senders[port as usize].queues[self.mgmt_vc]
                    .push_back(Outgoing { flits, tag: None });
            }
        }
        // The EEPROM bus.
        let (scl, sda) = self.bus.lines(
            self.b.peek_bool(self.scl_low),
            self.b.peek_bool(self.sda_low),
        );
        self.b.poke_bool(self.scl_in, scl);
        self.b.poke_bool(self.sda_in, sda);
        self.bus.step(scl, sda, 0);
        for p in 0..PORTS {
            self.drive_sender(p, now, reset);
            self.receive(p, now, reset);
        }
        for p in 0..PORTS {
            let events = self.b.peek(self.drops[p]) as u64;
            if events & (1 << nrc::port::event::NO_ROUTE) != 0 {
                self.stats.no_route_events += 1;
            }
            if events & !(1 << nrc::port::event::NO_ROUTE) != 0 {
                self.stats.other_drop_events += 1;
            }
        }
        assert_eq!(self.b.peek(self.errors), 0, "an output saw a credit error");
        self.b.tick();
    }

    /// Input `p`'s sender: one flit of the next VC (round robin) with a flit and a credit.
    fn drive_sender(&mut self, p: usize, now: u64, reset: bool) {
        let vcs = self.vcs;
        let packet_mode = self.packet_senders;
        let s = &mut self.senders[p];
        let mut chosen = None;
        if !reset {
            for k in 0..vcs {
                let v = (s.turn + k) % vcs;
                if !s.queues[v].is_empty() && s.credits[v] > 0 {
                    chosen = Some(v);
                    break;
                }
            }
        }
        match chosen {
            Some(v) => {
                s.turn = (v + 1) % vcs;
                let front = s.queues[v].front().expect("chosen VC has a packet");
                let flit = front.flits[s.next[v]];
                if s.next[v] == 0 {
                    if let Some(tag) = front.tag {
                        if let Some(e) = self.inflight.get_mut(&tag) {
                            e.head_in = Some(now);
                        }
                    }
                }
                self.b.poke_bool(s.valid, true);
                self.b.poke(s.flit, flit);
                self.b.poke(s.vc, v as u128);
                s.credits[v] -= 1;
                s.next[v] += 1;
                if s.next[v] == front.flits.len() {
                    s.queues[v].pop_front();
                    s.next[v] = 0;
                } else if packet_mode {
                    s.turn = v;
                }
            }
            None => {
                // Idle: random data with `valid` low.
                self.b.poke_bool(s.valid, false);
                self.b.poke(s.flit, self.rng.bits(65));
                self.b.poke(s.vc, self.rng.bits(1));
            }
        }
        let back = self.b.peek(s.returned) as u64;
        for v in 0..vcs {
            if back >> v & 1 != 0 {
                s.credits[v] += 1;
            }
        }
    }

    /// Output `p`'s receiver: the flit arriving, then drains and credit returns.
    fn receive(&mut self, p: usize, now: u64, reset: bool) {
        let vcs = self.vcs;
        let (valid, flit, vc) = {
            let r = &self.receivers[p];
            (
                self.b.peek_bool(r.valid),
                self.b.peek(r.flit),
                self.b.peek(r.vc) as usize,
            )
        };
        if valid && !reset {
            assert!(vc < vcs, "output {p}: a flit on VC {vc}");
            let r = &mut self.receivers[p];
            if r.next_hop.is_none() {
                assert!(
                    r.held[vc] < self.reserve,
                    "output {p} VC {vc}: a flit arrived without a free slot (cycle {now})"
                );
                r.held[vc] += 1;
                r.buffers[vc].push_back(flit);
            }
            let is_head = matches!(Flit::unpack(flit), Ok(Flit::Head(_)));
            match (&mut r.open[vc], is_head) {
                (None, true) => r.open[vc] = Some((vec![flit], now)),
                (Some((flits, _)), false) => flits.push(flit),
                (open, _) => panic!(
                    "output {p} VC {vc}: {} at cycle {now} (flit {flit:x})",
                    if open.is_some() {
                        "a head inside a packet"
                    } else {
                        "a flit outside a packet"
                    }
                ),
            }
            let done = matches!(Flit::unpack(flit), Ok(Flit::Tail { .. }))
                || matches!(Flit::unpack(flit), Ok(Flit::Control { .. }));
            if done {
                let (flits, head) = r.open[vc].take().expect("open packet");
                self.check_packet(p, vc, flits, head, now);
            }
        }
        let mut returned = 0u128;
        let r = &mut self.receivers[p];
        if let Some(d) = r.next_hop.as_mut() {
            let sent = (valid && !reset).then_some((vc, flit));
            let read = !reset && self.rng.chance(self.drain);
            returned = d.cycle(now, sent, read) as u128;
            self.b.poke(r.credits, returned);
            return;
        }
        for v in 0..vcs {
            if reset {
                continue;
            }
            if !r.buffers[v].is_empty() && self.rng.chance(self.drain) {
                r.buffers[v].pop_front();
                let delay = self.rng.range(self.credit_delay.0, self.credit_delay.1);
                r.due[v].push_back(now + delay);
            }
            if r.due[v].front().is_some_and(|&t| t <= now) {
                r.due[v].pop_front();
                r.held[v] -= 1;
                returned |= 1 << v;
            }
        }
        self.b.poke(r.credits, returned);
    }

    /// A whole packet left output `p` on VC `vc`, its head in cycle `head_out`.
    fn check_packet(&mut self, p: usize, vc: usize, flits: Vec<u128>, head_out: u64, now: u64) {
        let head = match Flit::unpack(flits[0]) {
            Ok(Flit::Head(h)) => h,
            other => panic!("output {p}: packet starts with {other:?}"),
        };
        if head.kind == PacketKind::Mgmt {
            assert_eq!(vc, self.mgmt_vc, "a management packet left on VC {vc}");
            self.stats.mgmt_out += 1;
            self.client.receive(now, &flits);
            return;
        }
        let tag = head.src;
        let e = self.inflight.remove(&tag).unwrap_or_else(|| {
            panic!("output {p}: packet with tag {tag} not in flight (duplicate or invented)")
        });
        assert!(!e.no_route, "output {p}: packet {tag} without a route left");
        assert_eq!(flits.len(), e.flits.len(), "packet {tag}: length");
        for k in 1..flits.len() {
            assert_eq!(flits[k], e.flits[k], "packet {tag}: flit {k} corrupted");
        }
        let sent = match Flit::unpack(e.flits[0]) {
            Ok(Flit::Head(h)) => h,
            _ => unreachable!("the bench sends heads"),
        };
        let want_vc = self.policy.out_vc(
            self.vcs,
            self.mgmt_vc,
            e.in_vc,
            sent.kind,
            sent.dst as u64,
            false,
        );
        assert_eq!(
            vc, want_vc,
            "packet {tag}: left on VC {vc}, the policy says {want_vc}"
        );
        let head_in = e.head_in.expect("a packet that left was sent");
        let latency = head_out - head_in;
        let expected_head = FabricHeader {
            vc: vc as u8,
            delay: (sent.delay as u64 + latency).min(4095) as u16,
            ..sent
        };
        assert_eq!(head, expected_head, "packet {tag}: head rewritten wrongly");
        let allowed = self.table[sent.dst as usize];
        assert!(
            allowed >> p & 1 != 0,
            "packet {tag} for {} left on port {p}, the table allows {allowed:05b}",
            sent.dst
        );
        if self.deterministic {
            let want = deterministic_port(allowed, sent.src, sent.dst);
            assert_eq!(p, want, "packet {tag}: deterministic route");
        }
        let flow = (e.input, e.in_vc, p);
        if let Some(&last) = self.last_seq.get(&flow) {
            assert!(last < e.seq, "flow {flow:?}: packet {tag} overtook another");
        }
        self.last_seq.insert(flow, e.seq);
        self.stats.delivered += 1;
        self.stats.delivered_flits += flits.len() as u64;
        self.stats.latency_sum += latency;
        self.stats.latency_max = self.stats.latency_max.max(latency);
        self.stats.latency_min = self.stats.latency_min.min(latency);
        self.stats.packet_latency_sum += now - e.born;
    }

    /// Forgets packets without a route once their drops were all seen (call when idle).
    pub fn settle_unrouted(&mut self) -> usize {
        let n = self.unrouted_pending();
        self.inflight.retain(|_, e| !e.no_route);
        n
    }

    /// Runs until no data packet is in flight and the senders and the client are idle, at most
    /// `limit` cycles; returns whether it drained.
    pub fn drain_all(&mut self, limit: u64) -> bool {
        for _ in 0..limit {
            let busy = self.in_flight() > 0
                || (0..PORTS).any(|p| self.backlog(p) > 0)
                || self.client.pending() > 0
                || self.receivers.iter().any(|r| {
                    r.open.iter().any(|o| o.is_some())
                        || r.next_hop.as_ref().is_some_and(|d| d.busy())
                });
            if !busy {
                return true;
            }
            self.cycle();
        }
        false
    }

    /// The register address of `name` in the router's map.
    pub fn address(name: &str) -> u16 {
        router_map()
            .get(name)
            .unwrap_or_else(|| panic!("no register {name}"))
            .offset as u16
    }
}

/// The router's whole register map at this size (5 ports, one mesh row; the occupancy peaks
/// of 2 VCs: the addresses of every other register do not depend on the VCs; the link
/// settings' reset values of the default configuration).
pub fn router_map() -> hdl::regmap::RegMap {
    let settings =
        hdl::link_port::LinkPortParams::router(&hdl::params::Config::default()).settings_reset();
    nrc::regs::nrc_map(PORTS, 1, 2, hdl::mgmt::regs::NMA_FAULTS, settings)
        .expect("the map assembles")
}

/// The value the world drives on port `p`'s link report signal `k`.
pub fn link_value(p: usize, k: usize) -> u64 {
    0x5000 + (p as u64) * 0x10 + k as u64
}

/// The port deterministic routing picks: the first allowed port at or after
/// `(src XOR dst) mod PORTS` (the XOR cut to `index_bits(PORTS)` bits).
pub fn deterministic_port(allowed: u8, src: u16, dst: u16) -> usize {
    let w = hdl::bits::index_bits(PORTS);
    let mut h = ((src ^ dst) as usize) & ((1 << w) - 1);
    if h >= PORTS {
        h -= PORTS;
    }
    (0..PORTS)
        .map(|k| (h + k) % PORTS)
        .find(|q| allowed >> q & 1 != 0)
        .expect("an allowed port")
}
