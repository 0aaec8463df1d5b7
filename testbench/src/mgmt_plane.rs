//! The world around a router's management plane (`nrc::nrc_mgmt::NrcMgmt`, any port count),
//! driven through its top-level ports only: a packet driver on every `inbound[p]` and a receiver
//! on every `outbound[p]` ([`PacketDriver`], [`PacketReceiver`]), the I2C EEPROM model on `i2c`,
//! the routing table behind `route_table`, the data plane's `chip_faults`, and fixed link reports
//! on `links[p]`. Used by the 24-port bench (`tests/hdl/nrc_mgmt.rs`) and by the plane's figures
//! in `bench mgmt` ([`crate::mgmt_plane_perf`]).
//!
//! Besides the packets, [`PlaneWorld::cycle`] records when things happen, for latencies: the
//! cycle each request's first flit was taken on its port ([`PlaneWorld::started`]) and the first
//! cycle each packet that left was valid on its port ([`Arrival::head`]).
use crate::backend::{Backend, PortId};
use crate::models::i2c_eeprom::{I2cBus, I2cEeprom};
use crate::models::relay_station::{BeatPorts, Packet, PacketDriver, PacketReceiver};
use crate::rng::BenchRng;
use hdl::llp::regs::{link_port_map, peer_value};
use hdl::regmap::RegMap;
use std::collections::BTreeMap;

/// A packet that left the plane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// The port it left on.
    pub port: u8,
    /// Its flits, head first.
    pub flits: Vec<u128>,
    /// The first cycle its head flit was valid on the port.
    pub head: u64,
}

/// Names of a port's link-report registers (the read-only ones), in the order of
/// [`link_port_map`], as the top's `links[p]` bundle names its signals.
pub const LINK_SIGNALS: [&str; 8] = [
    "status",
    "peer",
    "ltps_sent",
    "ltps_good",
    "ltps_bad",
    "retries",
    "replays",
    "drops",
];

/// The plane's ports and the world around them; see the module documentation.
pub struct PlaneWorld<B: Backend> {
    /// The simulated plane.
    pub b: B,
    /// Randomness of the drivers' idle data and of the bench that owns the world.
    pub rng: BenchRng,
    /// The plane's register map (for addresses by name).
    pub map: RegMap,
    /// Per port: the driver of `inbound[p]`.
    pub drivers: Vec<PacketDriver>,
    /// Per port: the receiver of `outbound[p]`.
    pub receivers: Vec<PacketReceiver>,
    /// The I2C bus with the EEPROM model.
    pub bus: I2cBus,
    scl_low: PortId,
    sda_low: PortId,
    scl_in: PortId,
    sda_in: PortId,
    reset: PortId,
    chip_faults: PortId,
    route_index: PortId,
    route_ports: PortId,
    route_write: PortId,
    route_read: PortId,
    /// The routing table behind the indirect registers.
    pub table: BTreeMap<u64, u64>,
    /// Packets that left, in order (the owner takes them).
    pub arrived: Vec<Arrival>,
    /// Packets whose first flit was taken on a port: (port, cycle), in order (the owner takes
    /// them).
    pub started: Vec<(u8, u64)>,
    /// The levels driven on `chip_faults`.
    pub faults: u64,
}

impl<B: Backend> PlaneWorld<B> {
    /// The world of plane `b` with `ports` ports and register map `map`, the EEPROM `part` on
    /// its bus; the drivers offer a waiting flit with probability `input_rate` per cycle and the
    /// receivers are ready with probability `output_rate` (1.0 for always). Every port's link
    /// report gets fixed values from `BenchRng::new(seed)` (the peer identity well formed); that
    /// generator then serves the drivers and the owner.
    pub fn new(
        mut b: B,
        ports: usize,
        map: RegMap,
        part: I2cEeprom,
        seed: u64,
        input_rate: f64,
        output_rate: f64,
    ) -> Self {
        let drivers = (0..ports)
            .map(|p| PacketDriver::new(BeatPorts::new(&b, &format!("inbound${p}")), input_rate))
            .collect();
        let receivers = (0..ports)
            .map(|p| PacketReceiver::new(BeatPorts::new(&b, &format!("outbound${p}")), output_rate))
            .collect();
        let mut rng = BenchRng::new(seed);
        for p in 0..ports {
            let names = link_port_map(0);
            for (k, r) in names.of(hdl::regmap::Access::ReadOnly).enumerate() {
                let v = if r.name == "peer" {
                    peer_value(1, 0x100 + p as u16, ((p + 3) % ports) as u8)
                } else {
                    rng.bits(r.width) as u64
                };
                let port = b.port(&format!("links${p}${}", LINK_SIGNALS[k]));
                b.poke(port, v as u128);
            }
        }
        Self {
            scl_low: b.port("i2c$scl_drive_low"),
            sda_low: b.port("i2c$sda_drive_low"),
            scl_in: b.port("i2c$scl_in"),
            sda_in: b.port("i2c$sda_in"),
            reset: b.port("reset"),
            chip_faults: b.port("chip_faults"),
            route_index: b.port("route_table$index"),
            route_ports: b.port("route_table$ports"),
            route_write: b.port("route_table$write"),
            route_read: b.port("route_table$read"),
            b,
            rng,
            map,
            drivers,
            receivers,
            bus: I2cBus::new(part),
            table: BTreeMap::new(),
            arrived: vec![],
            started: vec![],
            faults: 0,
        }
    }

    /// Ports of the plane.
    pub fn ports(&self) -> usize {
        self.drivers.len()
    }

    /// The value the world drives on port `port`'s link report register `register` (a name of
    /// [`link_port_map`]).
    pub fn link_value(&mut self, port: usize, register: &str) -> u64 {
        let id = self.b.port(&format!("links${port}${register}"));
        self.b.peek(id) as u64
    }

    /// One clock cycle: the streams, the I2C bus, the routing table.
    pub fn cycle(&mut self, reset: bool) {
        let b = &mut self.b;
        let now = b.cycle();
        b.poke_bool(self.reset, reset);
        for d in &mut self.drivers {
            d.drive(b, &mut self.rng);
        }
        for r in &mut self.receivers {
            r.drive(b, &mut self.rng);
        }
        let (scl, sda) = self
            .bus
            .lines(b.peek_bool(self.scl_low), b.peek_bool(self.sda_low));
        b.poke_bool(self.scl_in, scl);
        b.poke_bool(self.sda_in, sda);
        b.poke(self.chip_faults, self.faults as u128);
        let index = b.peek(self.route_index) as u64;
        b.poke(
            self.route_read,
            *self.table.get(&index).unwrap_or(&0) as u128,
        );
        if b.peek_bool(self.route_write) {
            let ports = b.peek(self.route_ports) as u64;
            self.table.insert(index, ports);
        }
        for (p, d) in self.drivers.iter_mut().enumerate() {
            if let Some((true, _)) = d.fired(b) {
                self.started.push((p as u8, now));
            }
        }
        for (p, r) in self.receivers.iter_mut().enumerate() {
            // The head's first valid cycle: seen in an earlier cycle, or in this one (the
            // receiver forgets it when the packet completes).
            let before = r.head_seen;
            if let Some(packet) = r.fired(b) {
                assert_eq!(
                    packet.port, p as u64,
                    "a packet left port {p} naming another"
                );
                self.arrived.push(Arrival {
                    port: p as u8,
                    flits: packet.beats,
                    head: before.unwrap_or(now),
                });
            }
        }
        self.bus.step(scl, sda, 0);
        b.tick();
    }

    /// Queues `flits` (a packet) on port `port`'s driver; the `port` sideband, which the plane
    /// ignores inbound, gets a random value.
    pub fn send(&mut self, port: u8, flits: Vec<u128>) {
        self.drivers[port as usize].queue.push_back(Packet {
            beats: flits,
            port: self.rng.bits(5) as u64,
        });
    }

    /// The address of register `name`; panics if the map has none.
    pub fn address(&self, name: &str) -> u16 {
        self.map
            .get(name)
            .unwrap_or_else(|| panic!("no register {name}"))
            .offset as u16
    }
}
