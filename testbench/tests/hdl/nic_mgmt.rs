//! The NIC's management agent (`nic::nic_mgmt`, the shared agent with one network port and the
//! NIC's register file) on Verilator, driven through the management client
//! (`testbench::mgmt_client`) as a management server attached to the NIC's port would drive it:
//! the one-port sibling of the router's plane bench (`nrc_mgmt.rs`).
//!
//! 1. **Loading.** After reset the loader reads an image from the I2C EEPROM model (chip ID,
//!    report enable, report route with first hop 0, report DestID); the bench polls
//!    `loader_status` with the all-ones DestID, checks every loaded setting, and that the chip
//!    then answers its ID (and dropped a request to that ID sent before the image was loaded).
//!    The network port's `link_settings` reads the configuration's value (the NIC's link
//!    port's reset) and drives it on `link$settings`; a written value reads back and reaches
//!    `link$settings`.
//! 2. **Random requests** on the port while the chip's fault inputs toggle, with random valid
//!    gaps inbound, random `port` sideband on the inbound flits (a one-port chip ignores it)
//!    and random `ready` outbound: register reads and writes of one and two registers across
//!    the agent's block and the NIC's own registers (the link report the bench drives, and
//!    changes now and then, on `link$...`; the `mgmt_dropped_port` counter), pairs that cross
//!    the split (first register in the agent's block, second in the NIC's part), unmapped
//!    addresses in the agent's window, in the NIC's part and beyond the NIC's 12 address bits,
//!    writes to read-only registers, EEPROM reads and writes of 1..6 bytes and past the array's
//!    end, requests for another chip, the all-ones DestID, malformed packets, bad counts and an
//!    unknown type. The one port feeds one in-order agent, so the bench's register and EEPROM
//!    models take each request's effect when it is submitted, and every response is checked
//!    exactly (data, error code; the client matches TransactionIDs and never retries: one lost
//!    request fails the bench). Writes to the settings keep the bits the hardware acts on (the
//!    chip ID, the report settings, the EEPROM device) and vary the bits above each register's
//!    width, which must read back as zero; `fault_mask` varies in the loader's four bits only.
//! 3. **Fault reports**: every chip fault event is carried by a report that leaves on the port,
//!    no report carries a bit without an event, and there are never more reports than events.
//!    Then `report_route` names port 3: a run of fault events gives reports that the NIC drops
//!    and counts in `mgmt_dropped_port`, nothing but the responses meanwhile leaves, and after
//!    the route names port 0 again a report leaves.
//! 4. **Counters** (`dropped_wrong_id`, `dropped_malformed`, `dropped_no_route`,
//!    `reports_sent`, `error_responses`, `mgmt_dropped_port`) equal what the bench provoked.
//! 5. **DMA counters** (`dma_*`, the DMA core's pulses on `dma_events`): random pulses for
//!    3,000 cycles, then every counter read back equals the pulses driven on its bit.
//! 6. **Loader faults**: reset with a blank image, then a corrupt one: the defaults stay (no
//!    chip ID: a request to the old ID is dropped and counted), `loader_status`, `faults` and
//!    `fault_events` name the outcome, and no report is sent (reporting is off by default).
//!    Then an image that sets reporting up and ends with entries the NIC refuses (a read-only
//!    register, an unmapped address in the NIC's part, one beyond its 12 bits): the settings
//!    load, and the `LoaderRefused` fault leaves as a fault report on the port.
use hdl::formats::mgmt::{
    pack_words, DestType, MgmtError, MgmtPacket, MgmtPayload, NmpType, Route, NMP_TYPE, UNSET_ID,
};
use hdl::llp::regs::{link_port_map, peer_value, SETTINGS_BITS};
use hdl::mgmt::eeprom_image::{EepromImage, ImageEntry, HEADER_BYTES, VALUE_OFFSET};
use hdl::mgmt::eeprom_loader::LoaderStatus;
use hdl::mgmt::nma::{nma_window, NmaParams, NMA_CHIP_FAULTS};
use hdl::mgmt::regs::{NmaFault, NMA_CHIP_FAULT_BASE};
use hdl::regmap::{Access, RegMap};
use nic::nic_mgmt::NicMgmt;
use nic::regs::NIC_ADDRESS_BITS;
use std::collections::{BTreeMap, HashMap};
use testbench::mgmt_client::{ClientConfig, ClientError, MgmtClient, Operation, Reply, Target};
use testbench::models::i2c_eeprom::{EepromTiming, I2cBus, I2cEeprom};
use testbench::models::mgmt::{corrupt, unpack_for_chip, Corruption, Unpacked};
use testbench::models::relay_station::{BeatPorts, Packet, PacketDriver, PacketReceiver};
use testbench::{Backend, BenchRng, PortId, VerilatorSim};

/// Cycles per quarter SCL period: fast, as the EEPROM model's timing scales with it.
const QUARTER: u32 = 2;
/// The EEPROM model's write cycle, in clock cycles.
const WRITE_CYCLE: u64 = 600;
const CHIP_ID: u16 = 0x0456;
const SERVER: u16 = 0x0042;
/// EEPROM addresses the random requests use (above the configuration image).
const EEPROM_SCRATCH: u16 = 0x1000;
/// TransactionIDs from here on are the bench's hand-built requests (the client counts from 0).
const RAW_TRANSACTIONS: u16 = 0xf000;
/// Random requests of phase 2.
const REQUESTS: usize = 1000;
/// The port a badly set report route names (the NIC has only port 0).
const WRONG_PORT: u8 = 3;
/// The `link$...` inputs, in the order of `link_port_map`'s registers.
const LINK_INPUTS: [&str; 8] = [
    "status",
    "peer",
    "ltps_sent",
    "ltps_good",
    "ltps_bad",
    "retries",
    "replays",
    "drops",
];

fn params() -> NmaParams {
    NmaParams {
        mgmt_vc: 1,
        quarter: QUARTER,
        stretch_limit: 1024,
        // One poll is about 50 quarters: outlast the write cycle twice over.
        poll_limit: (2 * WRITE_CYCLE / (50 * QUARTER as u64) + 4) as u32,
        image_base: 0,
        max_entries: 64,
    }
}

/// A packet that left on the port.
struct Arrival {
    cycle: u64,
    packet: MgmtPacket,
    flits: Vec<u128>,
}

/// The bench's view of the top's ports and the world around it.
struct World {
    b: VerilatorSim,
    rng: BenchRng,
    map: RegMap,
    driver: PacketDriver,
    receiver: PacketReceiver,
    bus: I2cBus,
    scl_low: PortId,
    sda_low: PortId,
    scl_in: PortId,
    sda_in: PortId,
    reset: PortId,
    chip_faults: PortId,
    link: Vec<PortId>,
    /// The chip fault inputs as driven.
    faults: u64,
    dma_events: PortId,
    /// Pulse the DMA counters' inputs at random (phase 5).
    pulsing: bool,
    /// Pulses driven per DMA counter since the last reset.
    dma_pulses: Vec<u64>,
    /// Packets that left since the last `pump`, in order.
    arrived: Vec<Arrival>,
    /// Every fault report that left: (cycle, bits).
    reports: Vec<(u64, u64)>,
    /// Responses to the bench's hand-built requests.
    raw_responses: Vec<MgmtPacket>,
    /// The next hand-built request's TransactionID.
    next_raw: u16,
}

impl World {
    fn new(seed: u64, image: &[u8]) -> Self {
        let b = VerilatorSim::of(NicMgmt::new(params(), settings_reset()), "nic_mgmt").unwrap();
        let driver = PacketDriver::new(BeatPorts::new(&b, "inbound"), 0.8);
        let receiver = PacketReceiver::new(BeatPorts::new(&b, "outbound"), 0.7);
        let mut part = I2cEeprom::new(0, EepromTiming::for_quarter(QUARTER as u64, WRITE_CYCLE));
        part.memory[..image.len()].copy_from_slice(image);
        let link = LINK_INPUTS
            .iter()
            .map(|n| b.port(&format!("link${n}")))
            .collect();
        let mut w = Self {
            scl_low: b.port("i2c$scl_drive_low"),
            sda_low: b.port("i2c$sda_drive_low"),
            scl_in: b.port("i2c$scl_in"),
            sda_in: b.port("i2c$sda_in"),
            reset: b.port("reset"),
            chip_faults: b.port("chip_faults"),
            dma_events: b.port("dma_events"),
            pulsing: false,
            dma_pulses: vec![0; nic::regs::DMA_COUNTERS],
            link,
            b,
            rng: BenchRng::new(seed),
            map: NicMgmt::map(settings_reset()),
            driver,
            receiver,
            bus: I2cBus::new(part),
            faults: 0,
            arrived: vec![],
            reports: vec![],
            raw_responses: vec![],
            next_raw: RAW_TRANSACTIONS,
        };
        for k in 0..LINK_INPUTS.len() {
            let v = w.random_link_value(k);
            w.set_link(k, v);
        }
        w
    }

    /// A value for link input `k`: 64 random bits (the register keeps its width's low bits),
    /// the peer identity well formed below them.
    fn random_link_value(&mut self, k: usize) -> u64 {
        let noise = self.rng.bits(64) as u64;
        if LINK_INPUTS[k] == "peer" {
            let width = link_port_map(0).registers[k].width;
            peer_value(1, self.rng.bits(16) as u16, self.rng.bits(5) as u8)
                | noise >> width << width
        } else {
            noise
        }
    }

    fn set_link(&mut self, k: usize, v: u64) {
        self.b.poke(self.link[k], v as u128);
    }

    fn link_value(&mut self, k: usize) -> u64 {
        self.b.peek(self.link[k]) as u64
    }

    /// One clock cycle: the streams, the I2C bus, the fault inputs.
    fn cycle(&mut self, reset: bool) {
        let b = &mut self.b;
        b.poke_bool(self.reset, reset);
        self.driver.drive(b, &mut self.rng);
        self.receiver.drive(b, &mut self.rng);
        let (scl, sda) = self
            .bus
            .lines(b.peek_bool(self.scl_low), b.peek_bool(self.sda_low));
        b.poke_bool(self.scl_in, scl);
        b.poke_bool(self.sda_in, sda);
        b.poke(self.chip_faults, self.faults as u128);
        let pulses = if self.pulsing {
            self.rng.bits(nic::regs::DMA_COUNTERS) & self.rng.bits(nic::regs::DMA_COUNTERS)
        } else {
            0
        };
        b.poke(self.dma_events, pulses);
        for (i, n) in self.dma_pulses.iter_mut().enumerate() {
            if reset {
                *n = 0;
            } else {
                *n += (pulses >> i & 1) as u64;
            }
        }
        self.driver.fired(b);
        if let Some(packet) = self.receiver.fired(b) {
            assert_eq!(packet.port, 0, "a packet left naming port {}", packet.port);
            let p = MgmtPacket::unpack(&packet.beats).expect("the agent sent a malformed packet");
            if p.nmp_type == NmpType::FaultReport {
                let MgmtPayload::Fault { bits } = p.payload else {
                    panic!("a fault report without fault bits: {p:?}");
                };
                self.reports.push((b.cycle(), bits));
            }
            self.arrived.push(Arrival {
                cycle: b.cycle(),
                packet: p,
                flits: packet.beats,
            });
        }
        self.bus.step(scl, sda, 0);
        b.tick();
    }

    /// A TransactionID for a hand-built request.
    fn raw_tid(&mut self) -> u16 {
        self.next_raw += 1;
        self.next_raw - 1
    }

    fn send(&mut self, flits: Vec<u128>) {
        // The `port` sideband is random: the NIC's agent must not read it.
        let port = self.rng.bits(5) as u64;
        self.driver.queue.push_back(Packet { beats: flits, port });
    }

    fn address(&self, name: &str) -> u16 {
        self.map
            .get(name)
            .unwrap_or_else(|| panic!("no register {name}"))
            .offset as u16
    }

    /// Reset for a few cycles (nothing in flight on the port).
    fn reset(&mut self) {
        assert!(self.driver.idle(), "reset with a request still to send");
        for _ in 0..4 {
            self.cycle(true);
        }
        self.driver.reset();
        self.receiver.reset();
    }
}

/// The identity and fault-report settings an image sets, reports going out on port 0.
fn settings(map: &RegMap) -> Vec<ImageEntry> {
    let route = Route::from_path(&[0]).words(true);
    vec![
        entry(map, "chip_id", CHIP_ID as u64),
        entry(map, "report_enable", 1),
        entry(map, "report_route_low", route[0]),
        entry(map, "report_route_high", route[1]),
        entry(map, "report_dest", SERVER as u64),
    ]
}

fn entry(map: &RegMap, name: &str, value: u64) -> ImageEntry {
    ImageEntry {
        address: map.get(name).unwrap().offset as u16,
        value,
    }
}

fn client() -> MgmtClient {
    MgmtClient::new(ClientConfig {
        node_id: SERVER,
        mgmt_vc: 1,
        vp: 2,
        timeout: 400_000,
        retries: 0,
    })
}

fn target(chip_id: u16) -> Target {
    Target {
        chip_id,
        chip_type: DestType::Nic,
        entry_port: 0,
        path: vec![],
    }
}

/// One cycle with the client: its next packet is queued on the port, arrivals go to it (fault
/// reports too: it checks their DestID) or, answers to hand-built requests, to the bench.
fn pump(w: &mut World, c: &mut MgmtClient) {
    let now = w.b.cycle();
    if let Some((_, flits)) = c.next_packet(now) {
        w.send(flits);
    }
    w.cycle(false);
    for a in std::mem::take(&mut w.arrived) {
        let p = a.packet;
        if p.nmp_type != NmpType::FaultReport && p.transaction_id >= RAW_TRANSACTIONS {
            w.raw_responses.push(p);
        } else {
            c.receive(a.cycle, &a.flits);
        }
    }
}

/// One request through the client until its answer.
fn ask(
    w: &mut World,
    c: &mut MgmtClient,
    chip_id: u16,
    op: Operation,
) -> Result<Reply, ClientError> {
    let ticket = c.submit(target(chip_id), op).unwrap();
    let start = w.b.cycle();
    loop {
        pump(w, c);
        if let Some(done) = c.completions().into_iter().find(|d| d.ticket == ticket) {
            return done.outcome;
        }
        assert!(w.b.cycle() - start < 200_000, "no answer in 200,000 cycles");
    }
}

/// Reads registers by name (one or two), expecting an answer.
fn read(w: &mut World, c: &mut MgmtClient, chip_id: u16, names: &[&str]) -> Vec<u64> {
    let a = names.iter().map(|n| w.address(n)).collect();
    match ask(w, c, chip_id, Operation::ReadRegisters(a)) {
        Ok(Reply::Registers(v)) => v,
        other => panic!("reading {names:?}: {other:?}"),
    }
}

fn write(w: &mut World, c: &mut MgmtClient, name: &str, value: u64) {
    let a = w.address(name);
    assert_eq!(
        ask(w, c, CHIP_ID, Operation::WriteRegisters(vec![(a, value)])),
        Ok(Reply::Written),
        "writing {name}"
    );
}

/// Polls `loader_status` with the all-ones DestID (answered with or without a chip ID) until
/// the loader has finished; returns the status.
fn wait_for_loader(w: &mut World, c: &mut MgmtClient) -> u64 {
    for _ in 0..1000 {
        let status = read(w, c, UNSET_ID, &["loader_status"])[0];
        if status & LoaderStatus::Busy.mask() == 0 {
            return status;
        }
        for _ in 0..200 {
            w.cycle(false);
        }
    }
    panic!("the loader did not finish");
}

/// Cycles with the client until no request is pending and nothing is left to send or
/// arrive, then `extra` more.
fn drain(w: &mut World, c: &mut MgmtClient, extra: usize) {
    let start = w.b.cycle();
    while c.pending() > 0 || !w.driver.idle() {
        pump(w, c);
        assert!(w.b.cycle() - start < 400_000, "the port did not drain");
    }
    for _ in 0..extra {
        pump(w, c);
    }
}

/// The bench's model of the registers the random requests reach.
struct Model {
    map: RegMap,
    /// Registers whose value the bench knows at every moment (the settings, identity,
    /// loader status, link report, the NIC's counter).
    known: BTreeMap<u16, u64>,
    /// Registers a random read may name (known, and not moving with the fault inputs).
    readable: Vec<u16>,
    /// The same in the agent's block and in the NIC's part.
    agent_readable: Vec<u16>,
    nic_readable: Vec<u16>,
    /// Registers a random write may name that take it (read-write, write-1-to-clear, the
    /// NIC's counter), and those that refuse it.
    writable: Vec<u16>,
    read_only: Vec<u16>,
    /// Both, in the agent's block and in the NIC's part (for pairs across the split).
    agent_writes: Vec<u16>,
    nic_writes: Vec<u16>,
    /// Unmapped addresses: in the agent's window, in the NIC's part, beyond 12 bits.
    unmapped: [Vec<u16>; 3],
    link_base: u16,
    eeprom: Vec<u8>,
}

impl Model {
    /// A random register address for a request: now and then an unmapped one (in the agent's
    /// window, the NIC's part or beyond), for writes now and then a read-only one.
    fn random_address(&self, rng: &mut BenchRng, write: bool) -> u16 {
        match rng.range(0, 9) {
            0 => {
                let kind = rng.range(0, 2) as usize;
                pick(rng, &self.unmapped[kind])
            }
            1..=2 if write => pick(rng, &self.read_only),
            _ if write => pick(rng, &self.writable),
            _ => pick(rng, &self.readable),
        }
    }

    /// The value a random write of register `a` carries: the bits the hardware acts on are
    /// kept, the rest random (bits above the width must be dropped).
    fn write_value(&self, rng: &mut BenchRng, a: u16) -> u64 {
        let noise = rng.bits(64) as u64;
        let Some(r) = self.map.registers.iter().find(|r| r.offset == a as u64) else {
            return noise;
        };
        let above = |width: usize| {
            if width >= 64 {
                0
            } else {
                noise >> width << width
            }
        };
        match (r.access, r.name.as_str()) {
            (Access::ReadWrite, "fault_mask") => {
                // Mask only the loader's faults (steady after loading): the chip's faults,
                // whose reports the bench checks, stay unmasked.
                noise & !(((1 << NMA_CHIP_FAULTS) - 1) << NMA_CHIP_FAULT_BASE)
            }
            (Access::ReadWrite, _) => self.known[&a] | above(r.width),
            _ => noise,
        }
    }

    /// One register access in request order: what it answers, what it changes.
    fn access(&mut self, a: u16, write: Option<u64>) -> Result<u64, MgmtError> {
        let Some(r) = self.map.registers.iter().find(|r| r.offset == a as u64) else {
            return Err(MgmtError::Unmapped);
        };
        match (write, r.access) {
            (Some(_), Access::ReadOnly) => Err(MgmtError::ReadOnly),
            (Some(v), Access::ReadWrite) => {
                self.known.insert(a, v & r.mask());
                Ok(0)
            }
            (Some(_), Access::Counter) => {
                if let Some(k) = self.known.get_mut(&a) {
                    *k = 0;
                }
                Ok(0)
            }
            (Some(_), Access::WriteOneToClear) => Ok(0),
            (None, _) => Ok(*self
                .known
                .get(&a)
                .unwrap_or_else(|| panic!("the bench read {} at random", r.name))),
        }
    }

    /// What a register request gives: one or two accesses, in order, unless an address does
    /// not fit the NIC's 12 bits (refused whole, nothing accessed).
    fn registers(&mut self, accesses: &[(u16, Option<u64>)]) -> Result<Reply, MgmtError> {
        if accesses.iter().any(|&(a, _)| a >= 1 << NIC_ADDRESS_BITS) {
            return Err(MgmtError::Unmapped);
        }
        let answers: Vec<_> = accesses.iter().map(|&(a, v)| self.access(a, v)).collect();
        if let Some(e) = answers.iter().find_map(|r| r.err()) {
            return Err(e);
        }
        Ok(if accesses[0].1.is_some() {
            Reply::Written
        } else {
            Reply::Registers(answers.into_iter().map(Result::unwrap).collect())
        })
    }
}

/// A request in flight: what it must give, the link registers it reads (the bench changes a
/// link input only while no read of it is in flight).
struct Issued {
    expect: Result<Reply, MgmtError>,
    link_reads: Vec<u16>,
    eeprom: bool,
    cross_split: bool,
}

/// Counts of what the bench sent and provoked.
#[derive(Default, Debug)]
struct Tally {
    wrong_id: u64,
    malformed: u64,
    errors: u64,
    unset_id: u64,
    single: u64,
    pairs: u64,
    cross_split: u64,
    eeprom: u64,
    link_changes: u64,
    /// Chip fault events (rising edges).
    events: u64,
    /// Fault reports that left on the port.
    reports: u64,
    /// Reports dropped for naming port 3.
    dropped_port: u64,
}

/// The network port's `link_settings` after reset: the NIC's link port's of the default
/// configuration.
fn settings_reset() -> u64 {
    nic::tops::nic_top_params(&hdl::params::Config::default())
        .link
        .settings_reset()
}

fn pick(rng: &mut BenchRng, from: &[u16]) -> u16 {
    from[rng.range(0, from.len() as u64 - 1) as usize]
}

#[test]
fn nic_mgmt_loading_random_requests_faults_and_counters() {
    let seed = 2027;
    let map = NicMgmt::map(settings_reset());
    let mut w = World::new(seed, &EepromImage::new(&settings(&map)).bytes());
    let mut c = client();
    let mut tally = Tally::default();
    let started = std::time::Instant::now();
    w.reset();
    loading(&mut w, &mut c, &mut tally);
    let mut model = model(&mut w, &mut c);
    let start = w.b.cycle();
    random_requests(&mut w, &mut c, &mut model, &mut tally);
    let cycles_random = w.b.cycle() - start;
    wrong_port(&mut w, &mut c, &mut tally);
    counters(&mut w, &mut c, &tally);
    dma_counters(&mut w, &mut c);
    loader_faults(&mut w, &mut c, model.unmapped[1][0]);
    eprintln!(
        "nic_mgmt: {REQUESTS} random requests in {cycles_random} cycles ({} unset ID, {} single, {} pairs of which {} cross the split, {} EEPROM, {} wrong ID, {} malformed, {} errors, {} link changes), {} fault events, {} reports out, {} dropped for port {WRONG_PORT}; {} cycles in all, {:.1} s",
        tally.unset_id,
        tally.single,
        tally.pairs,
        tally.cross_split,
        tally.eeprom,
        tally.wrong_id,
        tally.malformed,
        tally.errors,
        tally.link_changes,
        tally.events,
        tally.reports,
        tally.dropped_port,
        w.b.cycle(),
        started.elapsed().as_secs_f64()
    );
}

/// Phase 5 (before the loader faults): the DMA core's counters (`dma_*`, one per receive and
/// core pulse) count the pulses driven on `dma_events`, a quarter of the bits per cycle, while
/// requests read them; the final reads equal the tallies, counter by counter (a counter wired
/// to the wrong pulse, or two swapped, fails).
fn dma_counters(w: &mut World, c: &mut MgmtClient) {
    let names: Vec<String> = nic::regs::dma_counters_map()
        .registers
        .iter()
        .map(|r| format!("dma_{}", r.name))
        .collect();
    w.pulsing = true;
    for _ in 0..3000 {
        w.cycle(false);
    }
    w.pulsing = false;
    let expected = w.dma_pulses.clone();
    assert!(
        expected.iter().all(|&n| n > 300),
        "every counter pulsed: {expected:?}"
    );
    for (chunk, want) in names.chunks(2).zip(expected.chunks(2)) {
        let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
        let got = read(w, c, CHIP_ID, &refs);
        assert_eq!(got, want, "{refs:?}");
    }
}

/// Phase 1: the image loads (polled with the all-ones DestID); a request to the chip's ID
/// sent before it loaded was dropped; the settings read back.
fn loading(w: &mut World, c: &mut MgmtClient, tally: &mut Tally) {
    let early = c
        .packet(
            &target(CHIP_ID),
            &Operation::ReadRegisters(vec![0]),
            w.raw_tid(),
        )
        .unwrap();
    w.send(early.pack());
    tally.wrong_id += 1;
    let status = wait_for_loader(w, c);
    assert_eq!(status, LoaderStatus::Loaded.mask(), "loader_status");
    assert!(w.raw_responses.is_empty(), "the early request was answered");
    assert_eq!(read(w, c, CHIP_ID, &["chip_id"]), [CHIP_ID as u64]);
    assert_eq!(
        read(w, c, CHIP_ID, &["report_enable", "report_dest"]),
        [1, SERVER as u64]
    );
    assert_eq!(
        read(w, c, UNSET_ID, &["report_route_low", "report_route_high"]),
        Route::from_path(&[0]).words(true)
    );
    assert_eq!(read(w, c, CHIP_ID, &["faults", "fault_events"]), [0, 0]);
    assert_eq!(
        read(w, c, CHIP_ID, &["chip_type", "eeprom_device"]),
        [DestType::Nic.code() as u64, 0]
    );
}

/// The register model after loading: the known registers as read (and the link inputs as
/// driven), the address sets the random requests draw from.
fn model(w: &mut World, c: &mut MgmtClient) -> Model {
    let map = NicMgmt::map(settings_reset());
    let window = nma_window(DestType::Nic) as u16;
    let mut known = BTreeMap::new();
    for name in [
        "chip_id",
        "report_enable",
        "fault_mask",
        "report_route_low",
        "report_route_high",
        "report_dest",
        "eeprom_device",
        "chip_type",
        "loader_status",
        "mgmt_dropped_port",
    ] {
        known.insert(w.address(name), read(w, c, CHIP_ID, &[name])[0]);
    }
    let names = link_port_map(0);
    for (k, r) in names.of(Access::ReadOnly).enumerate() {
        let v = w.link_value(k) & r.mask();
        known.insert(w.address(&format!("port0_{}", r.name)), v);
    }
    // The port's settings: the configuration's after reset, on the register and on the port;
    // a write reads back and reaches the port.
    let settings_out = w.b.port("link$settings");
    assert_eq!(
        read(w, c, CHIP_ID, &["port0_link_settings"]),
        [settings_reset()]
    );
    assert_eq!(w.b.peek(settings_out) as u64, settings_reset());
    let v = w.rng.bits(SETTINGS_BITS) as u64;
    write(w, c, "port0_link_settings", v | 0xdead << 48);
    assert_eq!(read(w, c, CHIP_ID, &["port0_link_settings"]), [v]);
    assert_eq!(
        w.b.peek(settings_out) as u64,
        v,
        "link$settings after the write"
    );
    known.insert(w.address("port0_link_settings"), v);
    let readable: Vec<u16> = known.keys().copied().collect();
    let offsets =
        |access: Access| -> Vec<u16> { map.of(access).map(|r| r.offset as u16).collect() };
    let mut writable = offsets(Access::ReadWrite);
    writable.extend(offsets(Access::WriteOneToClear));
    writable.push(w.address("mgmt_dropped_port"));
    let read_only = offsets(Access::ReadOnly);
    let mut unmapped: [Vec<u16>; 3] = Default::default();
    for a in 0..1u16 << 15 {
        if map.registers.iter().all(|r| r.offset != a as u64) {
            let kind = if a < window {
                0
            } else if a < 1 << NIC_ADDRESS_BITS {
                1
            } else {
                2
            };
            unmapped[kind].push(a);
        }
    }
    let writes: Vec<u16> = writable.iter().chain(&read_only).copied().collect();
    let split = |from: &[u16], agent: bool| -> Vec<u16> {
        from.iter()
            .copied()
            .filter(|&a| (a < window) == agent)
            .collect()
    };
    let model = Model {
        agent_writes: split(&writes, true),
        nic_writes: split(&writes, false),
        agent_readable: split(&readable, true),
        nic_readable: split(&readable, false),
        readable,
        writable,
        read_only,
        unmapped,
        link_base: w.address("port0_link_status"),
        eeprom: w.bus.part.memory.clone(),
        known,
        map,
    };
    assert_eq!(
        (model.agent_readable.len(), model.nic_readable.len()),
        (9, 10)
    );
    model
}

/// Phase 2: the random requests while the chip's faults fire, every answer checked as it
/// completes; then the EEPROM's array and the fault reports.
fn random_requests(w: &mut World, c: &mut MgmtClient, model: &mut Model, tally: &mut Tally) {
    let mut issued: HashMap<u64, Issued> = HashMap::new();
    let mut raw_pending: BTreeMap<u16, (NmpType, MgmtError)> = BTreeMap::new();
    // Rising edges of the chip's faults: (cycle, agent fault bit).
    let mut events: Vec<(u64, usize)> = vec![];
    let reports_before = w.reports.len();
    let mut sent = 0;
    let start = w.b.cycle();
    while sent < REQUESTS || c.pending() > 0 || !raw_pending.is_empty() {
        assert!(
            w.b.cycle() - start < 2_000_000,
            "the random phase did not finish"
        );
        if sent < REQUESTS && w.rng.chance(0.002) {
            let bit = w.rng.range(0, NMA_CHIP_FAULTS as u64 - 1);
            if w.faults >> bit & 1 == 0 {
                events.push((w.b.cycle(), bit as usize + NMA_CHIP_FAULT_BASE));
            }
            w.faults ^= 1 << bit;
        }
        // Now and then a link input changes, when no read of its register is in flight.
        if w.rng.chance(0.003) {
            let k = w.rng.range(0, LINK_INPUTS.len() as u64 - 1) as usize;
            let a = model.link_base + k as u16;
            if issued.values().all(|i| !i.link_reads.contains(&a)) {
                let v = w.random_link_value(k);
                w.set_link(k, v);
                let mask = link_port_map(0).registers[k].mask();
                model.known.insert(a, v & mask);
                tally.link_changes += 1;
            }
        }
        if sent < REQUESTS && c.pending() < 32 && w.rng.chance(0.15) {
            let eeprom_busy = issued.values().filter(|i| i.eeprom).count() >= 4;
            let tid = w.raw_tid();
            match random_raw(w, c, tally, tid) {
                Raw::Dropped => sent += 1,
                Raw::Answered(t, e) => {
                    sent += 1;
                    raw_pending.insert(tid, (t, e));
                }
                Raw::Client => {
                    if let Some((op, i)) = random_request(w, model, tally, eeprom_busy) {
                        sent += 1;
                        let dest = if w.rng.chance(0.1) {
                            tally.unset_id += 1;
                            UNSET_ID
                        } else {
                            CHIP_ID
                        };
                        let ticket = c.submit(target(dest), op).unwrap();
                        issued.insert(ticket, i);
                    }
                }
            }
        }
        pump(w, c);
        for done in c.completions() {
            let i = issued
                .remove(&done.ticket)
                .expect("a completion for an issued request");
            match (&i.expect, &done.outcome) {
                (Ok(r), Ok(got)) => assert_eq!(got, r, "{:?}", done.operation),
                (Err(e), Err(ClientError::Remote(got))) => {
                    assert_eq!(got, e, "{:?}", done.operation)
                }
                (want, got) => panic!("{:?}: expected {want:?}, got {got:?}", done.operation),
            }
            if i.cross_split {
                tally.cross_split += 1;
            }
        }
        for p in std::mem::take(&mut w.raw_responses) {
            let want = raw_pending.remove(&p.transaction_id).unwrap_or_else(|| {
                panic!("a response to a request that must not be answered: {p:?}")
            });
            assert_eq!((p.nmp_type, p.error), want, "{p:?}");
            assert_eq!((p.src, p.dest_id), (CHIP_ID, SERVER), "{p:?}");
        }
    }
    assert_eq!(c.stats().timed_out, 0, "lost requests");
    assert!(tally.cross_split > 0, "no register pair crossed the split");
    let scratch = EEPROM_SCRATCH as usize..EEPROM_SCRATCH as usize + 262;
    assert_eq!(
        &w.bus.part.memory[scratch.clone()],
        &model.eeprom[scratch],
        "the EEPROM's array"
    );
    // The faults stop; the last reports come out.
    w.faults = 0;
    drain(w, c, 3000);
    check_reports(&w.reports[reports_before..], &events);
    tally.events = events.len() as u64;
    tally.reports = (w.reports.len() - reports_before) as u64;
}

/// Phase 3: with `report_route` naming port 3, fault events give reports that the NIC drops
/// and counts while responses still leave; back on port 0, a report leaves.
fn wrong_port(w: &mut World, c: &mut MgmtClient, tally: &mut Tally) {
    assert_eq!(
        read(w, c, CHIP_ID, &["reports_sent", "mgmt_dropped_port"]),
        [tally.reports, 0],
        "reports_sent, mgmt_dropped_port after the random phase"
    );
    let route = |port: u8| Route::from_path(&[port]).words(true)[0];
    write(w, c, "report_route_low", route(WRONG_PORT));
    let id = w.address("chip_id");
    let reports_at = w.reports.len();
    for k in 0..8u64 {
        let bit = k % NMA_CHIP_FAULTS as u64;
        w.faults |= 1 << bit;
        tally.events += 1;
        tally.dropped_port += 1;
        // Responses still leave meanwhile: the NIC drops by route, packet by packet.
        assert_eq!(
            ask(w, c, CHIP_ID, Operation::ReadRegisters(vec![id])),
            Ok(Reply::Registers(vec![CHIP_ID as u64]))
        );
        for _ in 0..300 {
            pump(w, c);
        }
        w.faults &= !(1 << bit);
        for _ in 0..100 {
            pump(w, c);
        }
    }
    assert_eq!(w.reports.len(), reports_at, "a report left on the port");
    assert_eq!(
        read(w, c, CHIP_ID, &["mgmt_dropped_port", "reports_sent"]),
        [tally.dropped_port, tally.reports + tally.dropped_port],
        "reports dropped for port {WRONG_PORT}"
    );
    // Port 0 again: the next event's report leaves.
    write(w, c, "report_route_low", route(0));
    w.faults = 1;
    tally.events += 1;
    drain(w, c, 500);
    let bits: Vec<u64> = w.reports[reports_at..].iter().map(|r| r.1).collect();
    assert_eq!(
        bits,
        [1 << NMA_CHIP_FAULT_BASE],
        "the report after the route names port 0 again"
    );
    tally.reports += 1;
    w.faults = 0;
}

/// Phase 4: the agent's counters and the NIC's against what the bench sent and provoked.
fn counters(w: &mut World, c: &mut MgmtClient, tally: &Tally) {
    // The first pair crosses the split: the agent's counter, then the NIC's.
    assert_eq!(
        read(w, c, CHIP_ID, &["error_responses", "mgmt_dropped_port"]),
        [tally.errors, tally.dropped_port],
        "error_responses, mgmt_dropped_port"
    );
    assert_eq!(
        read(w, c, CHIP_ID, &["dropped_wrong_id", "dropped_malformed"]),
        [tally.wrong_id, tally.malformed],
        "dropped_wrong_id, dropped_malformed"
    );
    assert_eq!(
        read(w, c, CHIP_ID, &["dropped_no_route", "reports_sent"]),
        [0, tally.reports + tally.dropped_port],
        "dropped_no_route, reports_sent"
    );
    assert_eq!(c.stats().malformed, 0, "packets the client could not take");
    assert_eq!(c.stats().late, 0);
}

/// Phase 5: reset with a blank, then a corrupt image (defaults stay, the fault shows, no
/// report with reporting off), then with an image whose last entries the NIC refuses (the
/// settings load and the refusal leaves as a fault report). `unmapped` is an address in the
/// NIC's part where no register is.
fn loader_faults(w: &mut World, c: &mut MgmtClient, unmapped: u16) {
    let map = NicMgmt::map(settings_reset());
    let id = w.address("chip_id");
    let good = EepromImage::new(&settings(&map)).bytes();
    for (what, fault, outcome) in [
        ("blank", NmaFault::LoaderBlank, LoaderStatus::Blank),
        ("corrupt", NmaFault::LoaderCorrupt, LoaderStatus::Corrupt),
    ] {
        let mut image = good.clone();
        if fault == NmaFault::LoaderBlank {
            image[..HEADER_BYTES].fill(0xff);
        } else {
            // One value byte of the first entry: the checksum no longer matches.
            image[HEADER_BYTES + VALUE_OFFSET] ^= 0x10;
            assert!(
                matches!(EepromImage::parse(&image, 64), Err(e) if !e.is_blank()),
                "the corrupted image must be corrupt"
            );
        }
        w.bus.part.memory[..image.len()].copy_from_slice(&image);
        w.reset();
        let reports_at = w.reports.len();
        let status = wait_for_loader(w, c);
        assert_eq!(status, outcome.mask(), "{what} image: loader_status");
        let bit = 1u64 << fault.bit();
        assert_eq!(
            read(w, c, UNSET_ID, &["faults", "fault_events"]),
            [bit, bit],
            "{what} image: faults, fault_events"
        );
        // The defaults stay: no ID, reporting off.
        assert_eq!(
            read(w, c, UNSET_ID, &["chip_id", "report_enable"]),
            [UNSET_ID as u64, 0],
            "{what} image"
        );
        assert_eq!(
            read(w, c, UNSET_ID, &["report_route_low", "report_dest"]),
            [0, 0],
            "{what} image"
        );
        let stale = c
            .packet(
                &target(CHIP_ID),
                &Operation::ReadRegisters(vec![id]),
                w.raw_tid(),
            )
            .unwrap();
        w.send(stale.pack());
        drain(w, c, 2000);
        assert!(
            w.raw_responses.is_empty(),
            "{what} image: the old ID was answered"
        );
        assert_eq!(
            read(w, c, UNSET_ID, &["dropped_wrong_id", "reports_sent"]),
            [1, 0],
            "{what} image: dropped_wrong_id, reports_sent"
        );
        assert_eq!(
            w.reports.len(),
            reports_at,
            "{what} image: a report with reporting off"
        );
    }
    // Entries the NIC refuses, after the settings: the refusal is reported.
    let mut entries = settings(&map);
    entries.push(entry(&map, "chip_type", 1));
    entries.push(ImageEntry {
        address: unmapped,
        value: 5,
    });
    entries.push(ImageEntry {
        address: 1 << NIC_ADDRESS_BITS,
        value: 6,
    });
    let image = EepromImage::new(&entries).bytes();
    w.bus.part.memory[..image.len()].copy_from_slice(&image);
    w.reset();
    let reports_at = w.reports.len();
    let status = wait_for_loader(w, c);
    assert_eq!(
        status,
        LoaderStatus::Loaded.mask() | LoaderStatus::Refused.mask(),
        "refused entries: loader_status"
    );
    let refused = 1u64 << NmaFault::LoaderRefused.bit();
    assert_eq!(
        read(w, c, CHIP_ID, &["faults", "chip_type"]),
        [refused, DestType::Nic.code() as u64]
    );
    drain(w, c, 500);
    let bits: Vec<u64> = w.reports[reports_at..].iter().map(|r| r.1).collect();
    assert_eq!(bits, [refused], "the refusal's fault report");
    let faults = c.faults();
    assert_eq!(
        faults.last().map(|f| (f.chip_id, f.bits)),
        Some((CHIP_ID, refused))
    );
    assert!(faults.iter().all(|f| f.chip_id == CHIP_ID));
    assert_eq!(read(w, c, CHIP_ID, &["reports_sent"]), [1]);
    assert_eq!(c.stats().timed_out, 0, "lost requests");
}

/// What this cycle's request is.
enum Raw {
    /// The client's (a random request).
    Client,
    /// A hand-built packet that must be dropped.
    Dropped,
    /// A hand-built request that must be answered with this error response.
    Answered(NmpType, MgmtError),
}

/// Now and then a hand-built request instead of a client's: another chip's DestID (dropped),
/// a malformed packet (dropped), a bad count or an unknown type (an error response).
fn random_raw(w: &mut World, c: &MgmtClient, tally: &mut Tally, tid: u16) -> Raw {
    let roll = w.rng.range(0, 99);
    if roll >= 14 {
        return Raw::Client;
    }
    let id = w.address("chip_id");
    let read_id = Operation::ReadRegisters(vec![id]);
    let mut p = c.packet(&target(CHIP_ID), &read_id, tid).unwrap();
    if roll < 4 {
        p.dest_id = CHIP_ID ^ (1 << w.rng.range(0, 15));
        tally.wrong_id += 1;
        w.send(p.pack());
        return Raw::Dropped;
    }
    if roll < 9 {
        // Every way of spoiling the framing or the routing fields (the last, `Contents`, is
        // passed on: the unknown type below is that case).
        let how = Corruption::ALL[w.rng.range(0, Corruption::ALL.len() as u64 - 2) as usize];
        assert_ne!(how, Corruption::Contents);
        let flits = corrupt(&mut w.rng, &p, how);
        assert_eq!(
            unpack_for_chip(&flits, 0, CHIP_ID),
            Unpacked::Malformed,
            "{how:?}"
        );
        tally.malformed += 1;
        w.send(flits);
        return Raw::Dropped;
    }
    tally.errors += 1;
    if roll < 11 {
        if let MgmtPayload::Registers { count, .. } = &mut p.payload {
            *count = [0, 3][w.rng.range(0, 1) as usize];
        }
        w.send(p.pack());
        return Raw::Answered(NmpType::RegErrorResponse, MgmtError::BadCount);
    }
    if roll < 13 {
        let op = Operation::ReadEeprom {
            address: EEPROM_SCRATCH,
            count: 1,
        };
        let mut p = c.packet(&target(CHIP_ID), &op, tid).unwrap();
        if let MgmtPayload::Eeprom { count, .. } = &mut p.payload {
            *count = [0, 7][w.rng.range(0, 1) as usize];
        }
        w.send(p.pack());
        return Raw::Answered(NmpType::EepErrorResponse, MgmtError::BadCount);
    }
    let mut words = p.words();
    words[0] = NMP_TYPE.set(words[0] as u128, 0x3f) as u64;
    w.send(pack_words(p.header(), &words));
    Raw::Answered(NmpType::RegErrorResponse, MgmtError::UnknownType)
}

/// A random client request and what it must give (the model takes its effect now: the one
/// port and the agent keep request order). `None` if it has to wait (EEPROM busy).
fn random_request(
    w: &mut World,
    model: &mut Model,
    tally: &mut Tally,
    eeprom_busy: bool,
) -> Option<(Operation, Issued)> {
    let rng = &mut w.rng;
    let roll = rng.range(0, 99);
    if roll < 65 {
        // Registers: one or two; reads of known registers or unmapped ones, writes of the
        // writable, read-only or unmapped ones.
        let pair = rng.chance(0.5);
        let cross = pair && rng.chance(0.3);
        let write = rng.chance(0.4);
        let addresses: Vec<u16> = if cross {
            let (agent, nic) = if write {
                (&model.agent_writes, &model.nic_writes)
            } else {
                (&model.agent_readable, &model.nic_readable)
            };
            vec![pick(rng, agent), pick(rng, nic)]
        } else {
            (0..1 + pair as usize)
                .map(|_| model.random_address(rng, write))
                .collect()
        };
        let accesses: Vec<(u16, Option<u64>)> = addresses
            .iter()
            .map(|&a| (a, write.then(|| model.write_value(rng, a))))
            .collect();
        let expect = model.registers(&accesses);
        if expect.is_err() {
            tally.errors += 1;
        }
        if pair {
            tally.pairs += 1;
        } else {
            tally.single += 1;
        }
        let link = model.link_base..model.link_base + LINK_INPUTS.len() as u16;
        let op = if write {
            Operation::WriteRegisters(accesses.iter().map(|&(a, v)| (a, v.unwrap())).collect())
        } else {
            Operation::ReadRegisters(addresses.clone())
        };
        return Some((
            op,
            Issued {
                expect,
                link_reads: addresses
                    .into_iter()
                    .filter(|a| !write && link.contains(a))
                    .collect(),
                eeprom: false,
                cross_split: cross,
            },
        ));
    }
    if eeprom_busy {
        return None;
    }
    // EEPROM: reads and writes of 1..6 bytes in the scratch area, now and then past the end
    // of the array (refused at once, the bus untouched).
    tally.eeprom += 1;
    let count = rng.range(1, 6) as u16;
    let (op, expect) = if count >= 2 && rng.chance(0.05) {
        let address = (0x10000 - count as u32 + 1) as u16 + rng.range(0, count as u64 - 2) as u16;
        tally.errors += 1;
        (
            Operation::ReadEeprom {
                address,
                count: count as u8,
            },
            Err(MgmtError::EepromRange),
        )
    } else {
        let address = EEPROM_SCRATCH + rng.range(0, 255) as u16;
        let range = address as usize..(address + count) as usize;
        if rng.chance(0.5) {
            let bytes: Vec<u8> = (0..count).map(|_| rng.bits(8) as u8).collect();
            model.eeprom[range].copy_from_slice(&bytes);
            (
                Operation::WriteEeprom { address, bytes },
                Ok(Reply::Written),
            )
        } else {
            (
                Operation::ReadEeprom {
                    address,
                    count: count as u8,
                },
                Ok(Reply::Bytes(model.eeprom[range].to_vec())),
            )
        }
    };
    Some((
        op,
        Issued {
            expect,
            link_reads: vec![],
            eeprom: true,
            cross_split: false,
        },
    ))
}

/// Fault reports against the chip's fault events `(cycle, bit)`: every event is carried by a
/// report that left after it, every bit a report carries had an event before it, only the
/// chip's fault bits are reported, and never more reports than events.
fn check_reports(reports: &[(u64, u64)], events: &[(u64, usize)]) {
    let chip_bits = ((1u64 << NMA_CHIP_FAULTS) - 1) << NMA_CHIP_FAULT_BASE;
    for &(t, bits) in reports {
        assert!(bits != 0 && bits & !chip_bits == 0, "report bits {bits:#x}");
        for bit in 0..64 {
            if bits >> bit & 1 == 1 {
                assert!(
                    events.iter().any(|&(e, b)| b == bit && e < t),
                    "cycle {t}: a report of fault {bit} with no event before it"
                );
            }
        }
    }
    for &(e, bit) in events {
        assert!(
            reports
                .iter()
                .any(|&(t, bits)| t > e && bits >> bit & 1 == 1),
            "the event of fault {bit} at cycle {e} was never reported"
        );
    }
    assert!(
        reports.len() <= events.len(),
        "{} reports for {} events",
        reports.len(),
        events.len()
    );
}
