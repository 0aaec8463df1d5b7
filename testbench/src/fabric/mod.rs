//! The fat-tree fabric bench (issue 11): six router chips (`nrc::nrc_top::NrcTop5`, the
//! emitted `nrc_top`'s design, on Verilator) as a two-level fat tree ([`routing`]: 4 leaves
//! of 3 NICs and 2 up ports, 2 spines), twelve NICs played by link ports
//! (`hdl::link_port::LinkPort`, one more Verilator model each, the same block a NIC's network
//! port is) with Rust traffic sources and sinks on their router channels, every link through
//! the lane-channel model (`testbench::models::lane_channel`, bit errors on) in both
//! directions, and the management client (`testbench::mgmt_client`) on NIC 0, which loads
//! the route tables IN BAND: every table write is a management packet source routed through
//! the routers on the way (management transit).
//!
//! **Scoreboard.** Every data packet carries its source NIC in the head's `src`, a tag in its
//! tail's CRC field and in its bodies (`tag << 32 | flit number`), so a delivered packet is
//! found by `(src, tag)`: it must be one the bench sent and still in flight (so delivered once),
//! at the NIC its `dst` names, whole, every flit after the head unchanged, the head unchanged
//! but for `vc` (the same: the VC policy keeps it) and `delay` (grown by the time in the
//! fabric). Flows with a single path (same leaf; every flow in deterministic mode) arrive in
//! order. A flit at a NIC without a free slot, a protocol error or a credit error anywhere
//! fails the run. A link may be cut ([`FabricWorld::cut`]): its lanes carry nothing from then
//! on in both directions; the packets lost on it are counted, not failed, and the tests
//! define which may be lost.
use crate::backend::{Backend, PortId};
use crate::channel_end::{ChannelPorts, ChannelRx, ChannelTx};
use crate::link_bench::LanePorts;
use crate::mgmt_client::{ClientConfig, MgmtClient, Operation, Target};
use crate::models::i2c_eeprom::{EepromTiming, I2cBus, I2cEeprom};
use crate::models::lane_channel::{Faults, LaneChannel};
use crate::rng::BenchRng;
use crate::verilator::{VerilatorModel, VerilatorSim};
use hdl::formats::flit::Flit;
use hdl::formats::header::{FabricHeader, PacketKind};
use hdl::formats::mgmt::{DestType, UNSET_ID};
use hdl::link_port::LinkPortParams;
use hdl::params::Config;
use nrc::nrc_mgmt::NrcMgmtParams;
use nrc::nrc_top::NrcTopParams;
use nrc::router_core::RouterCoreParams;
use routing::{End, UpLink, LEAVES, NICS, ROUTERS, ROUTER_PORTS};
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, OnceLock};

pub mod perf;
pub mod routing;

/// The watchdog limit of the simulated routers' and NICs' link ports: a dead link is taken out
/// of the way this many cycles after its traffic stops being acknowledged.
pub const STALL_LIMIT: u32 = 1024;
/// The management server's node ID.
pub const SERVER: u16 = 0x00f0;
/// Data VC (the default configuration: VC 0 data, VC 1 management).
pub const DATA_VC: usize = 0;

/// The fabric's configuration: the default, but for `link.lane_bits` when the environment sets
/// `HPCNET_FABRIC_LANE_BITS` (16 or 32): the fabric on the other lane width, for diagnosis
/// (`HPCNET_FABRIC_LANE_BITS=32 cargo test --release -p testbench --test fabric`).
fn config() -> Config {
    let mut cfg = Config::default();
    if let Ok(bits) = std::env::var("HPCNET_FABRIC_LANE_BITS") {
        cfg.link.lane_bits = bits.parse().expect("lane bits");
    }
    cfg
}

/// The routers' elaboration values: the default configuration's, a fast EEPROM bus, the
/// bench's watchdog limit.
pub fn router_params() -> NrcTopParams {
    let cfg = config();
    let mgmt = NrcMgmtParams {
        mgmt_vc: cfg.network.mgmt_vc as u8,
        quarter: 2,
        stretch_limit: 1024,
        poll_limit: 16,
        image_base: 0,
        max_entries: 64,
    };
    NrcTopParams {
        core: RouterCoreParams::from_config(&cfg, 0, nrc::tops::ROUTE_NODES, mgmt),
        link: LinkPortParams {
            stall_limit: STALL_LIMIT,
            ..LinkPortParams::router(&cfg)
        },
    }
}

/// The NICs' link ports: the routers' (so both ends of a link are alike).
pub fn nic_params() -> LinkPortParams {
    LinkPortParams {
        chip_type: 0,
        ..router_params().link
    }
}

/// A data packet of `len` flits (at least 2) from NIC `src` to NIC `dst` on [`DATA_VC`]: a head
/// of `kind`, bodies numbered by `tag` and their index, and a tail carrying `tag` (what the
/// scoreboards match arrivals by).
pub fn data_packet(src: usize, dst: usize, len: usize, kind: PacketKind, tag: u16) -> Vec<u128> {
    let head = FabricHeader {
        dst: dst as u16,
        src: src as u16,
        vc: DATA_VC as u8,
        kind,
        len: len as u8,
        delay: 0,
    };
    let mut flits = vec![Flit::Head(head).pack()];
    for k in 1..len - 1 {
        flits.push(Flit::Body((tag as u64) << 32 | k as u64).pack());
    }
    flits.push(Flit::Tail { crc16: tag }.pack());
    flits
}

/// The router's and the NIC's Verilator models, built (or loaded from the cache) once.
pub fn models() -> (Arc<VerilatorModel>, Arc<VerilatorModel>) {
    static MODELS: OnceLock<(Arc<VerilatorModel>, Arc<VerilatorModel>)> = OnceLock::new();
    MODELS
        .get_or_init(|| {
            // The chips' lanes are the configuration's width (`link.lane_bits`).
            let (router, nic) = if config().link.lane_bits == 16 {
                (
                    VerilatorModel::build_for(
                        &mut nrc::nrc_top::NrcTop5::new(router_params()),
                        "nrc_top (fabric)",
                    ),
                    VerilatorModel::build_for(
                        &mut <hdl::link_port!(2, 16, 256, 32, 16)>::new(nic_params()),
                        "link_port (fabric NIC)",
                    ),
                )
            } else {
                (
                    VerilatorModel::build_for(
                        &mut <nrc::nrc_top!(5, 2, 128, 256, 1, 16, 256, 32)>::new(router_params()),
                        "nrc_top (fabric, 32-bit lanes)",
                    ),
                    VerilatorModel::build_for(
                        &mut <hdl::link_port!(2, 16, 256, 32)>::new(nic_params()),
                        "link_port (fabric NIC, 32-bit lanes)",
                    ),
                )
            };
            (
                router.expect("the router's Verilator model builds"),
                nic.expect("the NIC port's Verilator model builds"),
            )
        })
        .clone()
}

/// A router chip in the world.
struct Router {
    sim: VerilatorSim,
    lanes_out: Vec<LanePorts>,
    lanes_in: Vec<LanePorts>,
    bus: I2cBus,
    reset: PortId,
    deterministic: PortId,
    stalled: PortId,
    scl_low: PortId,
    sda_low: PortId,
    scl_in: PortId,
    sda_in: PortId,
}

/// A NIC in the world: its link port and the traffic on its channels.
struct Nic {
    sim: VerilatorSim,
    lanes_out: LanePorts,
    lanes_in: LanePorts,
    tx: ChannelTx,
    rx: ChannelRx,
    reset: PortId,
    error: PortId,
    /// Per VC: the packet being received.
    open: Vec<Vec<u128>>,
}

/// A directed wire: from an end's lanes out to another end's lanes in.
struct Wire {
    from: End,
    to: End,
    channel: LaneChannel,
    /// Cut: nothing arrives from this cycle on.
    cut: bool,
}

/// A data packet in flight.
#[derive(Clone, Debug)]
struct Flight {
    flits: Vec<u128>,
    sent_at: u64,
    seq: u64,
    /// In flight at a cut or sent before the cut link's tables were rewritten (it may be lost).
    before_rewrite: bool,
}

/// Counts of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FabricStats {
    /// Data packets queued at the NICs.
    pub queued: u64,
    /// Data packets delivered (checked).
    pub delivered: u64,
    /// Their flits.
    pub delivered_flits: u64,
    /// Sum of head latencies (NIC to NIC, cycles) and the largest.
    pub latency_sum: u64,
    /// See `latency_sum`.
    pub latency_max: u64,
    /// Management packets delivered to the client.
    pub mgmt_in: u64,
}

/// The fabric and the world around it; see the module documentation.
pub struct FabricWorld {
    routers: Vec<Router>,
    nics: Vec<Nic>,
    wires: Vec<Wire>,
    /// Randomness of the world.
    pub rng: BenchRng,
    /// The management client, on NIC 0.
    pub client: MgmtClient,
    /// Counts.
    pub stats: FabricStats,
    /// Route mode of every router.
    pub deterministic: bool,
    /// The up links declared dead (the tables avoid them).
    pub dead: BTreeSet<UpLink>,
    flights: HashMap<(usize, u16), Flight>,
    next_tag: Vec<u16>,
    seq: u64,
    last_seq: HashMap<(usize, usize), u64>,
    cycle: u64,
    /// Packets sent before a rewrite are marked so (set while a cut is not yet routed around).
    pub marking: bool,
}

fn router_end(r: usize, p: usize) -> End {
    End::Router(r, p)
}

impl FabricWorld {
    /// A new fabric (every chip reset, the tables empty); `ber` on every wire, `seed`.
    pub fn new(ber: f64, seed: u64) -> Self {
        let (rm, nm) = models();
        let mut rng = BenchRng::new(seed);
        let cfg = config();
        let routers: Vec<Router> = (0..ROUTERS)
            .map(|_| {
                let sim = rm.instance();
                let lanes_out = (0..ROUTER_PORTS)
                    .map(|p| LanePorts::new(&sim, &format!("lanes_out${p}")))
                    .collect();
                let lanes_in = (0..ROUTER_PORTS)
                    .map(|p| LanePorts::new(&sim, &format!("lanes_in${p}")))
                    .collect();
                Router {
                    reset: sim.port("reset"),
                    deterministic: sim.port("deterministic"),
                    stalled: sim.port("stalled"),
                    scl_low: sim.port("i2c$scl_drive_low"),
                    sda_low: sim.port("i2c$sda_drive_low"),
                    scl_in: sim.port("i2c$scl_in"),
                    sda_in: sim.port("i2c$sda_in"),
                    bus: I2cBus::new(I2cEeprom::new(0, EepromTiming::for_quarter(2, 600))),
                    lanes_out,
                    lanes_in,
                    sim,
                }
            })
            .collect();
        let vcs = cfg.network.vcs as usize;
        let reserve = cfg.router.reserved_flits_per_vc as usize;
        let nics = (0..NICS)
            .map(|_| {
                let mut sim = nm.instance();
                // The NIC port's settings: what a NIC's `link_settings` register holds after
                // reset (the bench has no NIC register file).
                let settings = sim.port("report$settings");
                sim.poke(settings, nic_params().settings_reset() as u128);
                let mut rx = ChannelRx::new(ChannelPorts::new(&sim, "to_core"), vcs, reserve, 1.0);
                rx.delay = (1, 2);
                Nic {
                    lanes_out: LanePorts::new(&sim, "lanes_out"),
                    lanes_in: LanePorts::new(&sim, "lanes_in"),
                    tx: ChannelTx::new(ChannelPorts::new(&sim, "from_core"), vcs, reserve, 1.0),
                    rx,
                    reset: sim.port("reset"),
                    error: sim.port("error"),
                    open: vec![vec![]; vcs],
                    sim,
                }
            })
            .collect();
        let faults = Faults {
            ber,
            ..Default::default()
        };
        // The wires' lanes are as wide as the chips' (`NrcTop5`'s).
        let lane_bits = routers[0].lanes_out[0].lane_bits as u32;
        let mut wires = vec![];
        for (a, b) in routing::links() {
            for (from, to) in [(a, b), (b, a)] {
                wires.push(Wire {
                    from,
                    to,
                    channel: LaneChannel::new(4, faults, rng.bits(32) as u64)
                        .with_lane_bits(lane_bits),
                    cut: false,
                });
            }
        }
        let mut w = Self {
            routers,
            nics,
            wires,
            client: MgmtClient::new(ClientConfig {
                node_id: SERVER,
                mgmt_vc: cfg.network.mgmt_vc as u8,
                vp: 1,
                timeout: 400_000,
                retries: 0,
            }),
            rng,
            stats: FabricStats::default(),
            deterministic: false,
            dead: BTreeSet::new(),
            flights: HashMap::new(),
            next_tag: vec![0; NICS],
            seq: 0,
            last_seq: HashMap::new(),
            cycle: 0,
            marking: false,
        };
        w.reset();
        w
    }

    /// Resets every chip together (the wires go quiet), as a fabric powers up.
    fn reset(&mut self) {
        for _ in 0..3 {
            for r in &mut self.routers {
                r.sim.poke_bool(r.reset, true);
                r.sim.tick();
            }
            for n in &mut self.nics {
                n.sim.poke_bool(n.reset, true);
                n.sim.tick();
            }
        }
        for r in &mut self.routers {
            r.sim.poke_bool(r.reset, false);
        }
        for n in &mut self.nics {
            n.sim.poke_bool(n.reset, false);
        }
    }

    /// The cycle number.
    pub fn now(&self) -> u64 {
        self.cycle
    }

    /// The register address of `name` in a router's map.
    pub fn address(name: &str) -> u16 {
        crate::router_core_bench::router_map()
            .get(name)
            .unwrap_or_else(|| panic!("no register {name}"))
            .offset as u16
    }

    /// Where a management request to router `r` goes (`None` if it cannot be reached).
    pub fn target(&self, r: usize) -> Option<Target> {
        Some(Target {
            chip_id: UNSET_ID,
            chip_type: DestType::Nrc,
            entry_port: 0,
            path: routing::mgmt_path(r, &self.dead)?,
        })
    }

    /// Writes router `r`'s whole route table (computed around `dead`) in band.
    pub fn load_table(&mut self, r: usize) {
        let index = Self::address("route_index");
        let ports = Self::address("route_ports");
        let target = self.target(r).expect("the router is reachable");
        for (d, mask) in routing::table(r, &self.dead).into_iter().enumerate() {
            self.client.submit(
                target.clone(),
                Operation::WriteRegisters(vec![(index, d as u64), (ports, mask as u64)]),
            );
        }
    }

    /// Runs until the client has nothing pending; returns its completions (panics after
    /// `limit` cycles).
    pub fn settle(&mut self, limit: u64) -> Vec<crate::mgmt_client::Completion> {
        let mut done = vec![];
        for _ in 0..limit {
            done.extend(self.client.completions());
            if self.client.pending() == 0 {
                return done;
            }
            self.cycle_once();
        }
        panic!(
            "management requests still pending after {limit} cycles: {:?}",
            self.client.stats()
        );
    }

    /// Queues a data packet of `len` flits from NIC `src` to NIC `dst`.
    pub fn send(&mut self, src: usize, dst: usize, len: usize) {
        let tag = self.next_tag[src];
        self.next_tag[src] = tag.wrapping_add(1);
        assert!(
            !self.flights.contains_key(&(src, tag)),
            "NIC {src}: 65,536 packets in flight"
        );
        let kind =
            [PacketKind::Nap, PacketKind::Put, PacketKind::Response][self.rng.range(0, 2) as usize];
        let flits = data_packet(src, dst, len, kind, tag);
        self.flights.insert(
            (src, tag),
            Flight {
                flits: flits.clone(),
                sent_at: self.cycle,
                seq: self.seq,
                before_rewrite: self.marking,
            },
        );
        self.seq += 1;
        self.nics[src].tx.queues[DATA_VC].push_back(flits);
        self.stats.queued += 1;
    }

    /// Flits waiting at NIC `n`'s sender.
    pub fn backlog(&self, n: usize) -> usize {
        self.nics[n].tx.backlog()
    }

    /// NIC `n`'s link as its port reports it (status fields, LTP counters), for failure
    /// messages.
    pub fn nic_link_report(&mut self, n: usize) -> String {
        let open: Vec<usize> = self.nics[n].open.iter().map(|p| p.len()).collect();
        let sim = &mut self.nics[n].sim;
        let mut out = format!("flits of an unfinished packet per VC {open:?}; ");
        let status = sim.peek(sim.port("report$status"));
        for f in hdl::llp::regs::STATUS_FIELDS {
            out += &format!("{} {} ", f.name, f.get(status));
        }
        for name in [
            "ltps_sent",
            "ltps_good",
            "ltps_bad",
            "retries",
            "replays",
            "drops",
        ] {
            out += &format!("{name} {} ", sim.peek(sim.port(&format!("report${name}"))));
        }
        out
    }

    /// Data packets sent and not delivered.
    pub fn in_flight(&self) -> usize {
        self.flights.len()
    }

    /// Every data packet in flight: (src, dst, cycle sent, sent before the rewrite), oldest
    /// first (for failure messages).
    pub fn flights(&self) -> Vec<(usize, usize, u64, bool)> {
        let mut v: Vec<_> = self
            .flights
            .iter()
            .map(|(&(s, _), f)| {
                let dst = match Flit::unpack(f.flits[0]) {
                    Ok(Flit::Head(h)) => h.dst as usize,
                    _ => unreachable!(),
                };
                (s, dst, f.sent_at, f.before_rewrite)
            })
            .collect();
        v.sort_by_key(|f| f.2);
        v
    }

    /// Packets in flight that were sent before the tables were rewritten around a cut
    /// (`marking`), with their (src, dst).
    pub fn lost_candidates(&self) -> Vec<(usize, usize)> {
        self.flights()
            .into_iter()
            .filter(|f| f.3)
            .map(|(s, d, _, _)| (s, d))
            .collect()
    }

    /// Forgets the packets sent before the rewrite that never arrived; returns how many.
    pub fn forget_lost(&mut self) -> usize {
        let n = self.flights.len();
        self.flights.retain(|_, f| !f.before_rewrite);
        n - self.flights.len()
    }

    /// Cuts the link between leaf `l` and spine `s` (both directions) from now on. Every
    /// packet in flight is marked as one that may be lost (those on the link, in its ends'
    /// buffers or routed to it before the tables change are; the tests check that only
    /// packets whose path needed the link are).
    pub fn cut(&mut self, l: usize, s: usize) {
        for f in self.flights.values_mut() {
            f.before_rewrite = true;
        }
        let a = router_end(l, routing::NICS_PER_LEAF + s);
        let b = router_end(routing::spine(s), l);
        for w in &mut self.wires {
            if (w.from == a && w.to == b) || (w.from == b && w.to == a) {
                w.cut = true;
            }
        }
    }

    /// Bit `p` of router `r`'s `stalled`: its port `p` discards (its link is dead).
    pub fn stalled(&mut self, r: usize) -> u64 {
        let rt = &mut self.routers[r];
        rt.sim.peek(rt.stalled) as u64
    }

    /// One cycle.
    pub fn cycle(&mut self) {
        self.cycle_once();
    }

    fn cycle_once(&mut self) {
        let now = self.cycle;
        // Management packets from the client enter at NIC 0 on the management VC.
        if let Some((_, flits)) = self.client.next_packet(now) {
            let mgmt_vc = self.client_mgmt_vc();
            self.nics[0].tx.queues[mgmt_vc].push_back(flits);
        }
        // Wires.
        for i in 0..self.wires.len() {
            let beat = match self.wires[i].from {
                End::Router(r, p) => {
                    let rt = &mut self.routers[r];
                    rt.lanes_out[p].read(&mut rt.sim)
                }
                End::Nic(n) => {
                    let nic = &mut self.nics[n];
                    nic.lanes_out.read(&mut nic.sim)
                }
            };
            let mut arrived = self.wires[i].channel.step(beat);
            if self.wires[i].cut {
                arrived.valid = 0;
            }
            match self.wires[i].to {
                End::Router(r, p) => {
                    let rt = &mut self.routers[r];
                    rt.lanes_in[p].write(&mut rt.sim, &arrived, &mut self.rng);
                }
                End::Nic(n) => {
                    let nic = &mut self.nics[n];
                    nic.lanes_in.write(&mut nic.sim, &arrived, &mut self.rng);
                }
            }
        }
        // Routers: the EEPROM bus, the route mode.
        for r in &mut self.routers {
            r.sim.poke_bool(r.deterministic, self.deterministic);
            let (scl, sda) = r
                .bus
                .lines(r.sim.peek_bool(r.scl_low), r.sim.peek_bool(r.sda_low));
            r.sim.poke_bool(r.scl_in, scl);
            r.sim.poke_bool(r.sda_in, sda);
            r.bus.step(scl, sda, 0);
        }
        // NICs: send, receive, return credits.
        for n in 0..NICS {
            let nic = &mut self.nics[n];
            nic.tx.drive(&mut nic.sim, &mut self.rng, false);
            nic.rx.drive(&mut nic.sim, &mut self.rng, now);
            nic.tx.collect(&mut nic.sim);
            assert!(!nic.sim.peek_bool(nic.error), "NIC {n}: link port error");
            if let Some((vc, f)) = nic.rx.take(&mut nic.sim, &format!("NIC {n}")) {
                nic.open[vc].push(f);
                let end = !matches!(Flit::unpack(f), Ok(Flit::Head(_)) | Ok(Flit::Body(_)));
                if end {
                    let packet = std::mem::take(&mut self.nics[n].open[vc]);
                    self.arrive(n, vc, packet);
                }
            }
        }
        for r in &mut self.routers {
            r.sim.tick();
        }
        for n in &mut self.nics {
            n.sim.tick();
        }
        self.cycle += 1;
    }

    fn client_mgmt_vc(&self) -> usize {
        config().network.mgmt_vc as usize
    }

    /// A whole packet arrived at NIC `n` on VC `vc`.
    fn arrive(&mut self, n: usize, vc: usize, flits: Vec<u128>) {
        let now = self.cycle;
        let head = match Flit::unpack(flits[0]) {
            Ok(Flit::Head(h)) => h,
            other => panic!("NIC {n} cycle {now}: a packet starts with {other:?}"),
        };
        if head.kind == PacketKind::Mgmt {
            assert_eq!(n, 0, "a management packet reached NIC {n}");
            assert_eq!(vc, self.client_mgmt_vc(), "a management packet on VC {vc}");
            self.stats.mgmt_in += 1;
            self.client.receive(now, &flits);
            return;
        }
        assert_eq!(vc, DATA_VC, "NIC {n}: a data packet on VC {vc}");
        assert_eq!(
            head.dst as usize, n,
            "NIC {n} got a packet for {}",
            head.dst
        );
        let src = head.src as usize;
        let tag = match Flit::unpack(*flits.last().unwrap()) {
            Ok(Flit::Tail { crc16 }) => crc16,
            other => panic!("NIC {n}: packet from {src} ends with {other:?} (cut short?)"),
        };
        let f = self.flights.remove(&(src, tag)).unwrap_or_else(|| {
            panic!("NIC {n} cycle {now}: packet {tag} from {src} not in flight (duplicate or invented)")
        });
        assert_eq!(
            flits.len(),
            f.flits.len(),
            "packet {tag} from {src}: length"
        );
        for k in 1..flits.len() {
            assert_eq!(
                flits[k], f.flits[k],
                "packet {tag} from {src}: flit {k} corrupted"
            );
        }
        let sent = match Flit::unpack(f.flits[0]) {
            Ok(Flit::Head(h)) => h,
            _ => unreachable!(),
        };
        let latency = now - f.sent_at;
        assert_eq!(
            FabricHeader {
                delay: head.delay,
                ..sent
            },
            head,
            "packet {tag} from {src}: head changed"
        );
        assert!(
            head.delay > 0 && (head.delay as u64) <= latency.min(4095),
            "packet {tag} from {src}: delay {} for {latency} cycles",
            head.delay
        );
        let single_path = routing::leaf_of(src) == routing::leaf_of(n) || self.deterministic;
        if single_path && !f.before_rewrite {
            let flow = (src, n);
            if let Some(&last) = self.last_seq.get(&flow) {
                assert!(last < f.seq, "flow {flow:?}: packet {tag} overtook another");
            }
            self.last_seq.insert(flow, f.seq);
        }
        self.stats.delivered += 1;
        self.stats.delivered_flits += flits.len() as u64;
        self.stats.latency_sum += latency;
        self.stats.latency_max = self.stats.latency_max.max(latency);
    }

    /// Runs until every data packet is delivered and the senders and the client are idle, at
    /// most `limit` cycles; returns whether it drained.
    pub fn drain(&mut self, limit: u64) -> bool {
        for _ in 0..limit {
            let busy = !self.flights.is_empty()
                || (0..NICS).any(|n| self.backlog(n) > 0)
                || self.client.pending() > 0;
            if !busy {
                return true;
            }
            self.cycle_once();
        }
        false
    }

    /// Forgets the order of flows (after a change of route mode, packets of one flow may
    /// legitimately be on two paths).
    pub fn forget_order(&mut self) {
        self.last_seq.clear();
    }

    /// Leaf of router `r` (for the tests' readability).
    pub fn leaves() -> usize {
        LEAVES
    }
}
