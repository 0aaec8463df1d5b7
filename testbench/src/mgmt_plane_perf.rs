//! `bench mgmt`: the router's management plane measured from its ports (issue 12, "Show"): the
//! emitted 8-port plane (`nrc::nrc_mgmt::NrcMgmt8` with the `nrc_mgmt` top's parameters,
//! [`nrc::tops::nrc_mgmt_params`] of the default configuration: I2C standard mode at
//! `fpga.clock_mhz`) on Verilator, driven only through its top-level ports ([`PlaneWorld`]) by
//! the management client ([`MgmtClient`]), the EEPROM model on its bus, every output always
//! ready.
//!
//! - **Latency from a port** ([`PlaneFigures::latencies`]): per request kind and per input
//!   port, alone in an idle plane, cycles from the cycle the request's first flit is taken on
//!   `inbound[p]` to the first cycle its response's first flit is valid on `outbound[p]`.
//! - **Relay-station transit per hop**: the plane's ports show only the round trip, so the
//!   per-hop figure of the plane is the difference between neighbouring positions of a row.
//!   The mesh alone (`nrc::rs_mesh::RsMesh8`, whose `to_nma`/`from_nma` are ports) separates the
//!   two directions ([`MeshFigures`]). The agent's own time is not derived here by subtracting
//!   the mesh's figures from a plane latency: the mesh alone starts its clock when a flit is
//!   taken at a port whose downsizer takes a flit with its last beat, which is not the event
//!   the plane's clock starts on, so the difference overstated the agent by 3 cycles. It is
//!   measured directly on the core (`mgmt_perf`, last request flit taken to first response
//!   flit valid).
//! - **Sustained** ([`PlaneFigures::all_ports`], [`PlaneFigures::one_port`]): one-register reads
//!   kept waiting on the inputs (each port's stream always valid), responses per 1,000 cycles in
//!   a window after the plane has filled.
//!
//! Every response timed is checked before it counts: it must decode, answer a request in
//! flight (TransactionID), leave on that request's port, and give the client the expected
//! outcome (type, count, responder and data: registers of known value, EEPROM bytes from the
//! model's array). Nothing here asserts timing.
use crate::backend::Backend;
use crate::mgmt_client::{ClientConfig, MgmtClient, Operation, Reply, Target};
use crate::mgmt_plane::PlaneWorld;
use crate::models::i2c_eeprom::{EepromTiming, I2cEeprom};
use crate::models::relay_station::{BeatPorts, Packet, PacketDriver, PacketReceiver};
use crate::rng::BenchRng;
use crate::verilator::VerilatorSim;
use anyhow::{anyhow, bail, ensure, Result};
use hdl::formats::mgmt::{DestType, MgmtPacket, MGMT_FLITS, UNSET_ID};
use hdl::formats::FLIT_BITS;
use hdl::mgmt::eeprom_image::{EepromImage, ImageEntry};
use hdl::mgmt::eeprom_loader::LoaderStatus;
use hdl::params::Config;
use nrc::nrc_mgmt::NrcMgmt8;
use nrc::rs_mesh::RsMesh8;
use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

/// Ports of the measured plane.
pub const PORTS: usize = 8;
/// Ports per relay-station row (2 rows of 4); port `p` crosses `PER_ROW - p % PER_ROW` stations.
pub const PER_ROW: usize = 4;
/// The chip ID the plane loads from its EEPROM image.
const CHIP_ID: u16 = 0x0123;
/// The management server's node ID.
const SERVER: u16 = 0x0042;
/// Where the EEPROM reads read (a known pattern, above the configuration image).
const EEPROM_DATA: u16 = 0x0100;
/// The value the register write writes (into `fault_mask`, read back at the end).
const WRITTEN: u64 = 0x5a;
/// Cycles of the sustained runs before the window (the inputs' queues fill) and of the window.
const WARM_UP: u64 = 3_000;
const WINDOW: u64 = 20_000;

/// Relay stations a request entering on `port` crosses to the agent (and its response back).
pub fn stations(port: usize) -> usize {
    PER_ROW - port % PER_ROW
}

/// The mesh alone, per port: head (first flit) and whole-packet latencies of a lone
/// management-sized packet, everything ready.
#[derive(Clone, Debug, Default)]
pub struct MeshFigures {
    /// Port to NMA: cycles from the first flit taken on `inbound[p]` to the first flit valid on
    /// `to_nma`.
    pub inbound_head: Vec<u64>,
    /// Port to NMA: cycles from the first flit taken on `inbound[p]` to the last flit valid on
    /// `to_nma` (when the agent can start on the request).
    pub inbound_packet: Vec<u64>,
    /// NMA to port: cycles from the first flit taken on `from_nma` to the first flit valid on
    /// `outbound[p]`.
    pub outbound_head: Vec<u64>,
}

/// Sustained one-register reads.
#[derive(Clone, Debug, Default)]
pub struct Sustained {
    /// Responses per 1,000 cycles in the window.
    pub per_1000: f64,
    /// Responses per port in the window.
    pub per_port: Vec<u64>,
}

/// The plane's figures; see the module documentation.
#[derive(Clone, Debug, Default)]
pub struct PlaneFigures {
    /// The I2C quarter period the plane was built with (cycles).
    pub quarter: u32,
    /// The configuration's clock (MHz), which the quarter is computed for.
    pub clock_mhz: u32,
    /// (request kind, cycles per input port 0..8).
    pub latencies: Vec<(&'static str, Vec<u64>)>,
    /// The mesh alone.
    pub mesh: MeshFigures,
    /// All 8 ports at once.
    pub all_ports: Sustained,
    /// Port 0 only.
    pub one_port: Sustained,
    /// Responses checked in all.
    pub checked: u64,
    /// Cycles simulated (plane and mesh).
    pub cycles: u64,
    /// Wall time of the measurement, the models' builds or loads included.
    pub elapsed: Duration,
}

/// A request in flight.
struct Flight {
    port: u8,
    /// The outcome it must give; `None` for any success (the loader's status while polling).
    expect: Option<Reply>,
    taken: Option<u64>,
}

/// A response checked: (port, first request flit taken, first response flit valid, reply).
struct Answered {
    port: u8,
    taken: u64,
    head: u64,
    reply: Reply,
}

/// The plane, the client, and the requests in flight.
struct Plane {
    w: PlaneWorld<VerilatorSim>,
    c: MgmtClient,
    /// Per port: TransactionIDs queued on its driver whose first flit has not been taken.
    queued: Vec<VecDeque<u16>>,
    in_flight: HashMap<u16, Flight>,
    answered: Vec<Answered>,
    checked: u64,
}

impl Plane {
    fn new(config: &Config) -> Result<Self> {
        let params = nrc::tops::nrc_mgmt_params(config);
        let settings = hdl::link_port::LinkPortParams::router(config).settings_reset();
        let b = VerilatorSim::of(NrcMgmt8::new(params, settings), "nrc_mgmt")?;
        let map = NrcMgmt8::map(settings);
        let address = |name: &str| -> Result<u16> {
            Ok(map
                .get(name)
                .ok_or_else(|| anyhow!("no register {name}"))?
                .offset as u16)
        };
        // The part at standard-mode timing for the configuration's clock (it checks the
        // master's); writes are not measured, so its write cycle does not matter.
        let clock_hz = config.fpga.clock_mhz as u64 * 1_000_000;
        let mut part = I2cEeprom::new(0, EepromTiming::standard(clock_hz, clock_hz / 200));
        let image = EepromImage::new(&[ImageEntry {
            address: address("chip_id")?,
            value: CHIP_ID as u64,
        }])
        .bytes();
        part.memory[..image.len()].copy_from_slice(&image);
        for i in 0..64 {
            part.memory[EEPROM_DATA as usize + i] = (i as u8).wrapping_mul(37).wrapping_add(11);
        }
        let c = MgmtClient::new(ClientConfig {
            node_id: SERVER,
            mgmt_vc: params.mgmt_vc,
            vp: 2,
            // Nothing is lost and nothing retried: a missing answer is an error below.
            timeout: 1 << 40,
            retries: 0,
        });
        Ok(Self {
            w: PlaneWorld::new(b, PORTS, map, part, 12, 1.0, 1.0),
            c,
            queued: vec![VecDeque::new(); PORTS],
            in_flight: HashMap::new(),
            answered: vec![],
            checked: 0,
        })
    }

    /// Queues `op` to chip `chip_id` on `port`; its response must give `expect` (any success
    /// for `None`). Returns its TransactionID.
    fn issue(
        &mut self,
        port: u8,
        chip_id: u16,
        op: Operation,
        expect: Option<Reply>,
    ) -> Result<u16> {
        let target = Target {
            chip_id,
            chip_type: DestType::Nrc,
            entry_port: port,
            path: vec![],
        };
        self.c
            .submit(target, op)
            .ok_or_else(|| anyhow!("no TransactionID free"))?;
        let now = self.w.b.cycle();
        let (entry, flits) = self
            .c
            .next_packet(now)
            .ok_or_else(|| anyhow!("the client sent nothing"))?;
        ensure!(entry == port, "the client sent on port {entry}, not {port}");
        let tid = MgmtPacket::unpack(&flits)
            .map_err(|e| anyhow!("the client's packet: {e:?}"))?
            .transaction_id;
        self.w.send(port, flits);
        self.queued[port as usize].push_back(tid);
        self.in_flight.insert(
            tid,
            Flight {
                port,
                expect,
                taken: None,
            },
        );
        Ok(tid)
    }

    /// One cycle; every response that completed is checked and kept in `answered`.
    fn step(&mut self) -> Result<()> {
        self.w.cycle(false);
        let now = self.w.b.cycle();
        for (port, cycle) in std::mem::take(&mut self.w.started) {
            let tid = self.queued[port as usize]
                .pop_front()
                .ok_or_else(|| anyhow!("port {port} took a packet nobody sent"))?;
            if let Some(f) = self.in_flight.get_mut(&tid) {
                f.taken = Some(cycle);
            }
        }
        for a in std::mem::take(&mut self.w.arrived) {
            let p = MgmtPacket::unpack(&a.flits).map_err(|e| {
                anyhow!(
                    "cycle {now}: a malformed packet left port {}: {e:?}",
                    a.port
                )
            })?;
            let tid = p.transaction_id;
            let f = self.in_flight.remove(&tid).ok_or_else(|| {
                anyhow!(
                    "cycle {now}: a {:?} with TransactionID {tid} left port {}, answering nothing in flight",
                    p.nmp_type,
                    a.port
                )
            })?;
            ensure!(
                a.port == f.port,
                "TransactionID {tid}: asked on port {}, answered on port {}",
                f.port,
                a.port
            );
            self.c.receive(now, &a.flits);
            let done = self.c.completions();
            let [d] = done.as_slice() else {
                bail!("TransactionID {tid}: the client completed {done:?}");
            };
            ensure!(
                d.transaction_id == tid,
                "the client matched {tid} to {}",
                d.transaction_id
            );
            let reply = d
                .outcome
                .clone()
                .map_err(|e| anyhow!("TransactionID {tid} ({:?}): {e:?}", d.operation))?;
            if let Some(want) = &f.expect {
                ensure!(
                    &reply == want,
                    "TransactionID {tid} ({:?}): {reply:?}, expected {want:?}",
                    d.operation
                );
            }
            let taken = f
                .taken
                .ok_or_else(|| anyhow!("TransactionID {tid} answered before it was taken"))?;
            self.checked += 1;
            self.answered.push(Answered {
                port: a.port,
                taken,
                head: a.head,
                reply,
            });
        }
        Ok(())
    }

    /// Steps until nothing is in flight (at most `limit` cycles).
    fn drain(&mut self, limit: u64) -> Result<()> {
        let start = self.w.b.cycle();
        while !self.in_flight.is_empty() {
            ensure!(
                self.w.b.cycle() - start < limit,
                "{} requests unanswered after {limit} cycles",
                self.in_flight.len()
            );
            self.step()?;
        }
        Ok(())
    }

    fn idle(&mut self, cycles: u64) -> Result<()> {
        for _ in 0..cycles {
            self.step()?;
        }
        Ok(())
    }

    /// `op` alone on `port` in the idle plane: cycles from its first flit taken to its
    /// response's first flit valid.
    fn latency(&mut self, port: u8, op: Operation, expect: Reply, settle: u64) -> Result<u64> {
        self.issue(port, CHIP_ID, op, Some(expect))?;
        self.drain(100 * settle)?;
        let a = self.answered.pop().expect("drained");
        // Let the agent finish whatever follows the response (an I2C STOP) before the next.
        self.idle(settle)?;
        Ok(a.head - a.taken)
    }

    /// One-register reads kept waiting on `ports`: responses per 1,000 cycles in the window.
    fn sustained(&mut self, ports: &[u8]) -> Result<Sustained> {
        let chip_id = self.w.address("chip_id");
        let start = self.w.b.cycle();
        let (from, to) = (start + WARM_UP, start + WARM_UP + WINDOW);
        self.answered.clear();
        while self.w.b.cycle() < to {
            for &p in ports {
                // Two packets waiting: the stream never goes idle between requests.
                while self.w.drivers[p as usize].queue.len() < 2 {
                    self.issue(
                        p,
                        CHIP_ID,
                        Operation::ReadRegisters(vec![chip_id]),
                        Some(Reply::Registers(vec![CHIP_ID as u64])),
                    )?;
                }
            }
            self.step()?;
        }
        self.drain(100_000)?;
        let mut per_port = vec![0; PORTS];
        let mut n = 0;
        for a in self.answered.drain(..) {
            if (from..to).contains(&a.head) {
                per_port[a.port as usize] += 1;
                n += 1;
            }
        }
        Ok(Sustained {
            per_1000: n as f64 * 1000.0 / WINDOW as f64,
            per_port,
        })
    }
}

/// Measures the plane (and the mesh alone) on Verilator; see the module documentation.
pub fn plane_figures() -> Result<PlaneFigures> {
    let t0 = Instant::now();
    let config = Config::default();
    let mut pl = Plane::new(&config)?;
    let quarter = nrc::tops::nrc_mgmt_params(&config).quarter;
    for _ in 0..4 {
        pl.w.cycle(true);
    }
    // The loader reads its image after reset: poll its status (the all-ones DestID is answered
    // before the chip ID is loaded) until it has loaded, so the plane is idle when measured.
    let status = pl.w.address("loader_status");
    let loaded = 1u64 << LoaderStatus::Loaded.bit();
    let mut polls = 0;
    loop {
        pl.issue(3, UNSET_ID, Operation::ReadRegisters(vec![status]), None)?;
        pl.drain(100_000)?;
        let reply = pl.answered.pop().expect("drained").reply;
        if reply == Reply::Registers(vec![loaded]) {
            break;
        }
        polls += 1;
        ensure!(polls < 500, "the loader did not finish: {reply:?}");
        pl.idle(20_000)?;
    }
    let settle = 16 * quarter as u64 + 200;
    pl.idle(settle)?;

    let a = |name: &str| pl.w.address(name);
    let (chip_id, chip_type, fault_mask) = (a("chip_id"), a("chip_type"), a("fault_mask"));
    let bytes = |n: usize| {
        let at = EEPROM_DATA as usize;
        Reply::Bytes(pl.w.bus.part.memory[at..at + n].to_vec())
    };
    let (one_byte, six_bytes) = (bytes(1), bytes(6));
    let kinds: [(&str, Operation, Reply); 5] = [
        (
            "register read, 1 register",
            Operation::ReadRegisters(vec![chip_id]),
            Reply::Registers(vec![CHIP_ID as u64]),
        ),
        (
            "register read, 2 registers",
            Operation::ReadRegisters(vec![chip_id, chip_type]),
            Reply::Registers(vec![CHIP_ID as u64, DestType::Nrc.code() as u64]),
        ),
        (
            "register write, 1 register",
            Operation::WriteRegisters(vec![(fault_mask, WRITTEN)]),
            Reply::Written,
        ),
        (
            "EEPROM read, 1 byte",
            Operation::ReadEeprom {
                address: EEPROM_DATA,
                count: 1,
            },
            one_byte,
        ),
        (
            "EEPROM read, 6 bytes",
            Operation::ReadEeprom {
                address: EEPROM_DATA,
                count: 6,
            },
            six_bytes,
        ),
    ];
    let mut latencies = vec![];
    for (what, op, expect) in kinds {
        let mut row = vec![];
        for p in 0..PORTS {
            row.push(pl.latency(p as u8, op.clone(), expect.clone(), settle)?);
        }
        latencies.push((what, row));
    }
    // The write took effect.
    pl.latency(
        0,
        Operation::ReadRegisters(vec![fault_mask]),
        Reply::Registers(vec![WRITTEN]),
        settle,
    )?;
    let all: Vec<u8> = (0..PORTS as u8).collect();
    let all_ports = pl.sustained(&all)?;
    pl.idle(settle)?;
    let one_port = pl.sustained(&[0])?;
    let v = &pl.w.bus.part.violations;
    ensure!(v.is_empty(), "I2C timing violations: {v:?}");
    let (mesh, mesh_cycles) = mesh_figures()?;
    Ok(PlaneFigures {
        quarter,
        clock_mhz: config.fpga.clock_mhz,
        latencies,
        mesh,
        all_ports,
        one_port,
        checked: pl.checked,
        cycles: pl.w.b.cycle() + mesh_cycles,
        elapsed: t0.elapsed(),
    })
}

/// The mesh alone ([`RsMesh8`] on Verilator, everything ready): per port, a lone packet of
/// [`MGMT_FLITS`] flits in and one out. Returns the figures and the cycles simulated.
pub fn mesh_figures() -> Result<(MeshFigures, u64)> {
    let mut b = VerilatorSim::of(RsMesh8::new(), "nrc_rs_mesh")?;
    let mut rng = BenchRng::new(5);
    let mut from: Vec<PacketDriver> = (0..PORTS)
        .map(|p| PacketDriver::new(BeatPorts::new(&b, &format!("inbound${p}")), 1.0))
        .collect();
    from.push(PacketDriver::new(BeatPorts::new(&b, "from_nma"), 1.0));
    let mut to: Vec<PacketReceiver> = (0..PORTS)
        .map(|p| PacketReceiver::new(BeatPorts::new(&b, &format!("outbound${p}")), 1.0))
        .collect();
    to.push(PacketReceiver::new(BeatPorts::new(&b, "to_nma"), 1.0));
    let reset = b.port("reset");
    b.poke_bool(reset, true);
    b.tick();
    b.poke_bool(reset, false);
    // Sends a packet on stream `i` to output `o`: (first flit taken, first flit valid out, last
    // flit valid out).
    let mut lone = |b: &mut VerilatorSim, i: usize, o: usize| -> Result<(u64, u64, u64)> {
        let packet = Packet {
            beats: (0..MGMT_FLITS).map(|_| rng.bits(FLIT_BITS)).collect(),
            port: o as u64,
        };
        from[i].queue.push_back(packet.clone());
        let (mut taken, mut head, mut tail) = (None, None, None);
        for _ in 0..1000 {
            for d in from.iter_mut() {
                d.drive(b, &mut rng);
            }
            for r in to.iter_mut() {
                r.drive(b, &mut rng);
            }
            let c = b.cycle();
            if taken.is_some() && head.is_none() && to[o].offered(b) {
                head = Some(c);
            }
            if let Some((true, _)) = from[i].fired(b) {
                taken = Some(c);
            }
            for (k, r) in to.iter_mut().enumerate() {
                if let Some(got) = r.fired(b) {
                    ensure!(
                        k == o && got.beats == packet.beats,
                        "the mesh delivered {got:x?} on output {k}, expected {packet:x?} on {o}"
                    );
                    tail = Some(c);
                }
            }
            b.tick();
            if tail.is_some() {
                break;
            }
        }
        match (taken, head, tail) {
            (Some(t), Some(h), Some(l)) => Ok((t, h, l)),
            _ => bail!("the mesh did not carry a packet from {i} to {o}"),
        }
    };
    let mut m = MeshFigures::default();
    for p in 0..PORTS {
        let (t, h, l) = lone(&mut b, p, PORTS)?;
        m.inbound_head.push(h - t);
        m.inbound_packet.push(l - t);
    }
    for p in 0..PORTS {
        let (t, h, _) = lone(&mut b, PORTS, p)?;
        m.outbound_head.push(h - t);
    }
    Ok((m, b.cycle()))
}

/// Per-hop differences of `v` (per port) along each row, from the leftmost port toward the
/// agent: `v[p] - v[p + 1]`, one crossing fewer each.
fn per_hop(v: &[u64]) -> Vec<i64> {
    (0..PORTS)
        .filter(|p| p % PER_ROW != PER_ROW - 1)
        .map(|p| v[p] as i64 - v[p + 1] as i64)
        .collect()
}

fn list(v: &[i64]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Prints the plane's tables (Markdown).
pub fn report() -> Result<()> {
    let f = plane_figures()?;
    println!(
        "\n## Router management plane from its ports (`nrc_mgmt`, 8 ports in 2 rows of 4, 20-bit beats)\n"
    );
    println!(
        "Verilator, the emitted `NrcMgmt8` with the `nrc_mgmt` top's parameters (`nrc_mgmt_params` of the default configuration: I2C standard mode, quarter {} cycles at {} MHz, the EEPROM model at standard-mode timing), the image loaded, each request alone in an idle plane, every output always ready; {} responses checked (TransactionID, type, data, port), {} cycles simulated in {:.1} s. Cycles from the cycle a request's first flit is taken on `inbound[p]` to the first cycle its response's first flit is valid on `outbound[p]`; port `p` crosses {} - p % {} relay stations each way:\n",
        f.quarter,
        f.clock_mhz,
        f.checked,
        f.cycles,
        f.elapsed.as_secs_f64(),
        PER_ROW,
        PER_ROW
    );
    let header: Vec<String> = (0..PORTS)
        .map(|p| format!("port {p} ({} RS)", stations(p)))
        .collect();
    println!("| request | {} |", header.join(" | "));
    println!("|---|{}", "---|".repeat(PORTS));
    for (what, row) in &f.latencies {
        let cells: Vec<String> = row.iter().map(|c| c.to_string()).collect();
        println!("| {what} | {} |", cells.join(" | "));
    }
    let near = PER_ROW - 1;
    println!(
        "\nIn microseconds at {} MHz, nearest port (3) / farthest (0): {}.\n",
        f.clock_mhz,
        f.latencies
            .iter()
            .map(|(what, row)| format!(
                "{what} {:.2} / {:.2}",
                row[near] as f64 / f.clock_mhz as f64,
                row[0] as f64 / f.clock_mhz as f64
            ))
            .collect::<Vec<_>>()
            .join("; ")
    );
    println!("Relay-station transit per hop (20-bit beats; a management packet is {MGMT_FLITS} flits of {FLIT_BITS} bits, {} beats). Plane: differences between neighbouring ports of a row (ports 0-1, 1-2, 2-3 then 4-5, 5-6, 6-7), request in and response out together. Mesh alone (`RsMesh8` on Verilator, `to_nma`/`from_nma` are its ports, a lone {MGMT_FLITS}-flit packet per port): the two directions apart.\n", MGMT_FLITS * hdl::width::chunks(FLIT_BITS, hdl::mgmt::relay_station::RS_BEAT_BITS));
    println!("| measured | cycles per hop, rows 0 and 1 |");
    println!("|---|---|");
    for (what, row) in &f.latencies {
        println!("| plane, round trip, {what} | {} |", list(&per_hop(row)));
    }
    println!(
        "| mesh alone, port to agent, head | {} |",
        list(&per_hop(&f.mesh.inbound_head))
    );
    println!(
        "| mesh alone, port to agent, whole packet | {} |",
        list(&per_hop(&f.mesh.inbound_packet))
    );
    println!(
        "| mesh alone, agent to port, head | {} |",
        list(&per_hop(&f.mesh.outbound_head))
    );
    let most = |v: &[u64]| per_hop(v).into_iter().max().unwrap_or(0);
    println!(
        "\nCycles a relay station adds, at most: to a packet's head toward the agent {}, back {}; to the whole packet toward the agent {} (its other beats follow the head one per cycle). Goal: at most 2 to the head beyond its beats (the source spends 40 cycles per packet per RS at 20 bits).",
        most(&f.mesh.inbound_head),
        most(&f.mesh.outbound_head),
        most(&f.mesh.inbound_packet)
    );
    println!(
        "\nMesh alone, per port 0..7: port to agent {:?} cycles to the head and {:?} to the last flit; agent to port {:?} to the head. The agent's own time (last request flit in to first response flit out) is the core table's: it is measured there directly, not by subtracting these figures, whose clock starts on a different event.\n",
        f.mesh.inbound_head,
        f.mesh.inbound_packet,
        f.mesh.outbound_head,
    );
    println!(
        "Sustained one-register reads (each stream always valid, outputs always ready, {WINDOW} cycles after {WARM_UP} of filling): all 8 ports at once {:.1} responses per 1,000 cycles (per port {:?}); port 0 alone {:.1} (goal 62.5; a request is {} beats at the agent's entrance, so the mesh delivers at most {:.1}). The per-port counts follow the mesh's arbitration: the rows' ends alternate at the agent, and each station alternates between its own port and the stations to its left, so a row's ports, leftmost first, get 1/8, 1/8, 1/4 and 1/2 of the row's share.\n",
        f.all_ports.per_1000,
        f.all_ports.per_port,
        f.one_port.per_1000,
        MGMT_FLITS * hdl::width::chunks(FLIT_BITS, hdl::mgmt::relay_station::RS_BEAT_BITS),
        1000.0 / (MGMT_FLITS * hdl::width::chunks(FLIT_BITS, hdl::mgmt::relay_station::RS_BEAT_BITS)) as f64
    );
    Ok(())
}
