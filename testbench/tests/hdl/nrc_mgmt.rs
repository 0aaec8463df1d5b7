//! The router's management plane (`nrc::nrc_mgmt`) at the published size, 24 ports in 4 rows of
//! 6, on Verilator, driven by the management client (`testbench::mgmt_client`) as a management
//! server would drive it (issue 12, "Show": the management-plane bench).
//!
//! After reset the EEPROM loader reads a configuration image from the I2C EEPROM model (chip ID,
//! fault-report enable, route and DestID, and routing-table entries written through the indirect
//! registers); the bench checks the loader's status and the table the data plane received. Then
//! thousands of random requests enter on random ports while the chip's fault inputs fire:
//! register reads and writes of one and two registers (the link reports of every port, the
//! routing-table registers, the chip's type and status), EEPROM reads and writes of one to six
//! bytes, unmapped and read-only addresses, bad counts, the all-ones DestID, wrong DestIDs and
//! malformed packets. Every response is checked (data, TransactionID through the client, error
//! code, and the port it leaves on, which must be the one its request came in on); register and
//! EEPROM side effects are checked by reading back and against the EEPROM model's array; fault
//! reports must cover every fault event and never outnumber them; no request may be lost (the
//! client never retries: one lost request fails the bench); at the end the drop and report
//! counters are read and compared with what was sent. Every port's `link_settings` reads its
//! reset value (the configuration's) after reset and drives it on the port's
//! `links[p].settings`; a value written reads back and reaches the port.
//!
//! Requests are random but their expectations are exact: a register (or an EEPROM byte range)
//! with a write in flight is not touched by another request until the write is answered, since
//! requests from different ports meet in the mesh in an order the bench does not predict.
use hdl::formats::mgmt::{DestType, MgmtError, MgmtPacket, Route, UNSET_ID};
use hdl::llp::regs::{link_port_map, SETTINGS_BITS};
use hdl::mgmt::eeprom_image::{EepromImage, ImageEntry};
use hdl::mgmt::regs::NMA_CHIP_FAULT_BASE;
use hdl::regmap::{Access, RegMap};
use nrc::nrc_mgmt::{NrcMgmt24, NrcMgmtParams, NRC_CHIP_FAULTS};
use std::collections::{BTreeMap, HashMap};
use testbench::mgmt_client::{ClientConfig, ClientError, MgmtClient, Operation, Reply, Target};
use testbench::mgmt_plane::{Arrival, PlaneWorld, LINK_SIGNALS};
use testbench::models::i2c_eeprom::{EepromTiming, I2cEeprom};
use testbench::models::mgmt::{corrupt, Corruption};
use testbench::{Backend, VerilatorSim};

const PORTS: usize = 24;
type Dut = NrcMgmt24;

/// The ports' `link_settings` after reset: a router's link port's of the default
/// configuration.
fn settings_reset() -> u64 {
    hdl::link_port::LinkPortParams::router(&hdl::params::Config::default()).settings_reset()
}

/// Cycles per quarter SCL period: fast, as the EEPROM model's timing scales with it.
const QUARTER: u32 = 2;
/// The EEPROM model's write cycle, in clock cycles.
const WRITE_CYCLE: u64 = 600;
const CHIP_ID: u16 = 0x0123;
const SERVER: u16 = 0x0042;
/// The port the fault reports leave on (the server's).
const REPORT_PORT: u8 = 0;
/// EEPROM addresses the random requests use (above the configuration image).
const EEPROM_SCRATCH: u16 = 0x1000;

fn params() -> NrcMgmtParams {
    NrcMgmtParams {
        mgmt_vc: 1,
        quarter: QUARTER,
        stretch_limit: 1024,
        // One poll is about 50 quarters: outlast the write cycle twice over.
        poll_limit: (2 * WRITE_CYCLE / (50 * QUARTER as u64) + 4) as u32,
        image_base: 0,
        max_entries: 64,
    }
}

/// The plane's world ([`PlaneWorld`]: streams, EEPROM, routing table, link reports) and what
/// the bench records of the responses.
struct World {
    plane: PlaneWorld<VerilatorSim>,
    /// The port each response left on, by TransactionID.
    responses_port: HashMap<u16, u8>,
    /// Responses to the requests the bench built by hand (raw TransactionIDs).
    raw_responses: Vec<(u8, MgmtPacket)>,
}

impl World {
    fn new(seed: u64, image: &[u8]) -> Self {
        let b = VerilatorSim::of(Dut::new(params(), settings_reset()), "nrc_mgmt24").unwrap();
        let mut part = I2cEeprom::new(0, EepromTiming::for_quarter(QUARTER as u64, WRITE_CYCLE));
        part.memory[..image.len()].copy_from_slice(image);
        Self {
            plane: PlaneWorld::new(b, PORTS, Dut::map(settings_reset()), part, seed, 0.8, 0.7),
            responses_port: HashMap::new(),
            raw_responses: vec![],
        }
    }
}

/// The image: identity, fault reporting to the server through port 0, and routing-table
/// entries (each an `index` write then a `ports` write, which the loader does in order).
fn image(map: &RegMap, table: &[(u64, u64)]) -> Vec<u8> {
    let a = |n: &str| map.get(n).unwrap().offset as u16;
    let route = Route::from_path(&[REPORT_PORT]).words(true);
    let mut entries = vec![
        entry(a("chip_id"), CHIP_ID as u64),
        entry(a("report_enable"), 1),
        entry(a("report_route_low"), route[0]),
        entry(a("report_route_high"), route[1]),
        entry(a("report_dest"), SERVER as u64),
    ];
    for &(index, ports) in table {
        entries.push(entry(a("route_index"), index));
        entries.push(entry(a("route_ports"), ports));
    }
    EepromImage::new(&entries).bytes()
}

fn entry(address: u16, value: u64) -> ImageEntry {
    ImageEntry { address, value }
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

fn target(port: u8, chip_id: u16) -> Target {
    Target {
        chip_id,
        chip_type: DestType::Nrc,
        entry_port: port,
        path: vec![],
    }
}

/// One cycle with the client: its next packet is queued on its port, arrivals go to it.
fn pump(w: &mut World, c: &mut MgmtClient) {
    let now = w.plane.b.cycle();
    if let Some((port, flits)) = c.next_packet(now) {
        w.plane.send(port, flits);
    }
    w.plane.cycle(false);
    w.plane.started.clear();
    for Arrival { port, flits, .. } in std::mem::take(&mut w.plane.arrived) {
        let p = MgmtPacket::unpack(&flits).expect("the agent sent a malformed packet");
        if p.nmp_type == hdl::formats::mgmt::NmpType::FaultReport {
            assert_eq!(port, REPORT_PORT, "a fault report left on port {port}");
        } else if p.transaction_id >= RAW_TRANSACTIONS {
            w.raw_responses.push((port, p));
            continue;
        } else {
            w.responses_port.insert(p.transaction_id, port);
        }
        c.receive(now, &flits);
    }
}

/// TransactionIDs from here on are the bench's hand-built requests (the client counts from 0).
const RAW_TRANSACTIONS: u16 = 0xf000;

/// What a request must give.
#[derive(Clone, Debug)]
enum Expect {
    Reply(Reply),
    Error(MgmtError),
}

/// A request in flight: its entry port, what it must give, what it locks.
struct Issued {
    port: u8,
    expect: Expect,
    /// Register writes it makes (model applied when answered).
    writes: Vec<(u16, u64)>,
    /// EEPROM bytes it writes.
    eeprom_write: Option<(u16, Vec<u8>)>,
    locks: Vec<u16>,
    /// Lock groups it reads (a write to them waits for it).
    reads: Vec<u16>,
    eeprom_lock: Option<(u16, u16)>,
}

/// The bench's model of the registers the random requests reach.
struct Model {
    /// Readable registers with fixed values (link reports, identity, status).
    fixed: BTreeMap<u16, u64>,
    route_index: u16,
    route_ports: u16,
    route_read: u16,
    index: u64,
    ports: u64,
    table: BTreeMap<u64, u64>,
    read_only: Vec<u16>,
    eeprom: Vec<u8>,
}

impl Model {
    fn read(&self, a: u16) -> u64 {
        if a == self.route_index {
            self.index
        } else if a == self.route_ports {
            self.ports
        } else if a == self.route_read {
            *self.table.get(&self.index).unwrap_or(&0)
        } else {
            self.fixed[&a]
        }
    }
    /// The lock a register belongs to: the three routing-table registers are one.
    fn lock(&self, a: u16) -> u16 {
        if a == self.route_ports || a == self.route_read {
            self.route_index
        } else {
            a
        }
    }
    fn write(&mut self, a: u16, v: u64) {
        if a == self.route_index {
            self.index = v & 0xffff;
        } else if a == self.route_ports {
            self.ports = v & ((1 << PORTS) - 1);
            self.table.insert(self.index, self.ports);
        }
    }
}

/// Requests, one at a time, through the client until its answer.
fn ask(w: &mut World, c: &mut MgmtClient, t: Target, op: Operation) -> Result<Reply, ClientError> {
    let ticket = c.submit(t, op).unwrap();
    let start = w.plane.b.cycle();
    loop {
        pump(w, c);
        if let Some(done) = c.completions().into_iter().find(|d| d.ticket == ticket) {
            return done.outcome;
        }
        assert!(
            w.plane.b.cycle() - start < 200_000,
            "no answer in 200,000 cycles"
        );
    }
}

#[test]
fn nrc_mgmt_24_ports_random_requests_faults_and_loading() {
    let seed = 2026;
    let map = Dut::map(settings_reset());
    let loaded_table = [(5u64, 0b1010u64), (0x77, 1 << 23), (0xbeef, 0xff_ffff)];
    let mut w = World::new(seed, &image(&map, &loaded_table));
    let mut c = client();
    for _ in 0..4 {
        w.plane.cycle(true);
    }
    // Loading: poll the loader's status with the all-ones DestID (answered before the chip ID
    // is loaded and after) until it says Loaded.
    let status = w.plane.address("loader_status");
    let loaded = 1u64 << hdl::mgmt::eeprom_loader::LoaderStatus::Loaded.bit();
    let mut polls = 0;
    loop {
        let r = ask(
            &mut w,
            &mut c,
            target(7, UNSET_ID),
            Operation::ReadRegisters(vec![status]),
        );
        polls += 1;
        if r == Ok(Reply::Registers(vec![loaded])) {
            break;
        }
        assert!(polls < 1000, "the loader did not finish: {r:?}");
        for _ in 0..200 {
            w.plane.cycle(false);
        }
    }
    assert_eq!(
        w.plane.table,
        loaded_table.iter().copied().collect::<BTreeMap<_, _>>(),
        "the routing table the loader wrote"
    );
    let id = w.plane.address("chip_id");
    assert_eq!(
        ask(
            &mut w,
            &mut c,
            target(3, CHIP_ID),
            Operation::ReadRegisters(vec![id])
        ),
        Ok(Reply::Registers(vec![CHIP_ID as u64]))
    );

    // The model.
    let mut fixed = BTreeMap::new();
    for p in 0..PORTS {
        let names = link_port_map(0);
        for (k, r) in names.of(Access::ReadOnly).enumerate() {
            let v = w.plane.link_value(p, LINK_SIGNALS[k]);
            fixed.insert(w.plane.address(&format!("port{p}_{}", r.name)), v);
        }
    }
    // The ports' settings: the configuration's after reset, on the register and on the port;
    // a write reads back and reaches its port alone (the random reads below check them too).
    for p in 0..PORTS {
        let a = w.plane.address(&format!("port{p}_link_settings"));
        assert_eq!(
            ask(
                &mut w,
                &mut c,
                target(p as u8, CHIP_ID),
                Operation::ReadRegisters(vec![a])
            ),
            Ok(Reply::Registers(vec![settings_reset()])),
            "port {p}: link_settings after reset"
        );
        assert_eq!(
            w.plane.link_value(p, "settings"),
            settings_reset(),
            "port {p}"
        );
    }
    for p in 0..PORTS {
        let a = w.plane.address(&format!("port{p}_link_settings"));
        let v = w.plane.rng.bits(SETTINGS_BITS) as u64;
        let t = target(p as u8, CHIP_ID);
        assert_eq!(
            ask(
                &mut w,
                &mut c,
                t.clone(),
                Operation::WriteRegisters(vec![(a, v)])
            ),
            Ok(Reply::Written)
        );
        assert_eq!(
            ask(&mut w, &mut c, t, Operation::ReadRegisters(vec![a])),
            Ok(Reply::Registers(vec![v])),
            "port {p}: link_settings read back"
        );
        assert_eq!(
            w.plane.link_value(p, "settings"),
            v,
            "port {p}: settings out"
        );
        if p > 0 {
            let before = fixed[&w.plane.address(&format!("port{}_link_settings", p - 1))];
            assert_eq!(
                w.plane.link_value(p - 1, "settings"),
                before,
                "port {}",
                p - 1
            );
        }
        fixed.insert(a, v);
    }
    fixed.insert(w.plane.address("chip_type"), DestType::Nrc.code() as u64);
    fixed.insert(w.plane.address("chip_id"), CHIP_ID as u64);
    fixed.insert(status, loaded);
    fixed.insert(w.plane.address("report_dest"), SERVER as u64);
    let mut model = Model {
        fixed,
        route_index: w.plane.address("route_index"),
        route_ports: w.plane.address("route_ports"),
        route_read: w.plane.address("route_read"),
        index: 0xbeef,
        ports: 0xff_ffff,
        table: w.plane.table.clone(),
        read_only: map.of(Access::ReadOnly).map(|r| r.offset as u16).collect(),
        eeprom: w.plane.bus.part.memory.clone(),
    };
    let mut readable: Vec<u16> = model.fixed.keys().copied().collect();
    readable.extend([model.route_index, model.route_ports, model.route_read]);
    let unmapped: Vec<u16> = (0..1u16 << 15)
        .filter(|a| map.registers.iter().all(|r| r.offset != *a as u64))
        .collect();

    let requests = 3000;
    let mut issued: HashMap<u64, Issued> = HashMap::new();
    let mut sent = 0;
    let (mut wrong_id, mut malformed, mut errors, mut raw_pending) =
        (0u64, 0u64, 0u64, BTreeMap::new());
    let mut raw_tid = RAW_TRANSACTIONS;
    let mut events = 0u64;
    let mut risen = 0u64;
    let mut reports = vec![];
    let start = w.plane.b.cycle();
    while sent < requests || c.pending() > 0 || !raw_pending.is_empty() {
        assert!(
            w.plane.b.cycle() - start < 3_000_000,
            "the random phase did not finish"
        );
        // Faults: a chip fault input toggles now and then.
        if w.plane.rng.chance(0.002) {
            let bit = w.plane.rng.range(0, NRC_CHIP_FAULTS as u64 - 1);
            if w.plane.faults >> bit & 1 == 0 {
                events += 1;
                risen |= 1 << (bit as usize + NMA_CHIP_FAULT_BASE);
            }
            w.plane.faults ^= 1 << bit;
        }
        if sent < requests && c.pending() < 48 && w.plane.rng.chance(0.15) {
            sent += 1;
            let port = w.plane.rng.range(0, PORTS as u64 - 1) as u8;
            let dest = if w.plane.rng.chance(0.1) {
                UNSET_ID
            } else {
                CHIP_ID
            };
            let roll = w.plane.rng.range(0, 99);
            let locked = |issued: &HashMap<u64, Issued>, a: u16| {
                issued.values().any(|i| i.locks.contains(&a))
            };
            if roll < 4 {
                // A request for another chip: dropped and counted, no answer.
                let mut p = c
                    .packet(
                        &target(port, CHIP_ID ^ 0x10),
                        &Operation::ReadRegisters(vec![id]),
                        raw_tid,
                    )
                    .unwrap();
                p.dest_id = CHIP_ID ^ (1 << w.plane.rng.range(0, 15));
                raw_tid += 1;
                wrong_id += 1;
                w.plane.send(port, p.pack());
                continue;
            }
            if roll < 8 {
                let p = c
                    .packet(
                        &target(port, CHIP_ID),
                        &Operation::ReadRegisters(vec![id]),
                        raw_tid,
                    )
                    .unwrap();
                raw_tid += 1;
                let how = [
                    Corruption::Crc,
                    Corruption::Short,
                    Corruption::Long,
                    Corruption::Kind,
                    Corruption::LenField,
                ][w.plane.rng.range(0, 4) as usize];
                malformed += 1;
                let flits = corrupt(&mut w.plane.rng, &p, how);
                w.plane.send(port, flits);
                continue;
            }
            if roll < 11 {
                // A bad count: answered with an error.
                let mut p = c
                    .packet(
                        &target(port, CHIP_ID),
                        &Operation::ReadRegisters(vec![id]),
                        raw_tid,
                    )
                    .unwrap();
                if let hdl::formats::mgmt::MgmtPayload::Registers { count, .. } = &mut p.payload {
                    *count = 3;
                }
                raw_pending.insert(raw_tid, port);
                raw_tid += 1;
                w.plane.send(port, p.pack());
                continue;
            }
            let mut reads = vec![];
            let (op, expect, writes, eeprom_write, locks, eeprom_lock) = if roll < 60 {
                // Register reads of one or two registers.
                let n = w.plane.rng.range(1, 2) as usize;
                let a: Vec<u16> = (0..n)
                    .map(|_| readable[w.plane.rng.range(0, readable.len() as u64 - 1) as usize])
                    .collect();
                if a.iter().any(|&x| locked(&issued, model.lock(x))) {
                    sent -= 1;
                    continue;
                }
                let values = a.iter().map(|&x| model.read(x)).collect();
                reads = a.iter().map(|&x| model.lock(x)).collect();
                (
                    Operation::ReadRegisters(a),
                    Expect::Reply(Reply::Registers(values)),
                    vec![],
                    None,
                    vec![],
                    None,
                )
            } else if roll < 75 {
                // Routing-table writes: index, ports, or both in one request.
                let group = model.route_index;
                if locked(&issued, group) || issued.values().any(|i| i.reads.contains(&group)) {
                    // A read of the group in flight must see the values before this write.
                    sent -= 1;
                    continue;
                }
                let index = *[5u64, 0x77, 0xbeef, w.plane.rng.range(0, 0xffff)]
                    .get(w.plane.rng.range(0, 3) as usize)
                    .unwrap();
                let ports = w.plane.rng.bits(PORTS) as u64;
                let writes = match w.plane.rng.range(0, 2) {
                    0 => vec![(model.route_index, index)],
                    1 => vec![(model.route_ports, ports)],
                    _ => vec![(model.route_index, index), (model.route_ports, ports)],
                };
                (
                    Operation::WriteRegisters(writes.clone()),
                    Expect::Reply(Reply::Written),
                    writes,
                    None,
                    vec![group],
                    None,
                )
            } else if roll < 82 {
                // Writes that must be refused: a read-only or an unmapped register.
                let (a, e) = if w.plane.rng.chance(0.5) {
                    (
                        model.read_only
                            [w.plane.rng.range(0, model.read_only.len() as u64 - 1) as usize],
                        MgmtError::ReadOnly,
                    )
                } else {
                    (
                        unmapped[w.plane.rng.range(0, unmapped.len() as u64 - 1) as usize],
                        MgmtError::Unmapped,
                    )
                };
                (
                    Operation::WriteRegisters(vec![(a, 1)]),
                    Expect::Error(e),
                    vec![],
                    None,
                    vec![],
                    None,
                )
            } else if roll < 86 {
                let a = unmapped[w.plane.rng.range(0, unmapped.len() as u64 - 1) as usize];
                (
                    Operation::ReadRegisters(vec![a]),
                    Expect::Error(MgmtError::Unmapped),
                    vec![],
                    None,
                    vec![],
                    None,
                )
            } else {
                // EEPROM: at most three in flight; reads and writes of 1..6 bytes in the scratch
                // area, now and then one past the end of the array.
                if issued.values().filter(|i| i.eeprom_lock.is_some()).count() >= 3 {
                    sent -= 1;
                    continue;
                }
                let count = w.plane.rng.range(1, 6) as u16;
                if count >= 2 && w.plane.rng.chance(0.05) {
                    // Past the end of the array: refused at once, the bus untouched.
                    let address = (0x10000 - count as u32 + 1) as u16
                        + w.plane.rng.range(0, count as u64 - 2) as u16;
                    (
                        Operation::ReadEeprom {
                            address,
                            count: count as u8,
                        },
                        Expect::Error(MgmtError::EepromRange),
                        vec![],
                        None,
                        vec![],
                        Some((0, 0)),
                    )
                } else {
                    let address = EEPROM_SCRATCH + w.plane.rng.range(0, 255) as u16;
                    let range = (address, address + count);
                    let overlaps = issued.values().any(|i| {
                        i.eeprom_lock
                            .is_some_and(|(lo, hi)| lo < range.1 && range.0 < hi)
                    });
                    if overlaps {
                        sent -= 1;
                        continue;
                    }
                    if w.plane.rng.chance(0.5) {
                        let bytes: Vec<u8> =
                            (0..count).map(|_| w.plane.rng.bits(8) as u8).collect();
                        (
                            Operation::WriteEeprom {
                                address,
                                bytes: bytes.clone(),
                            },
                            Expect::Reply(Reply::Written),
                            vec![],
                            Some((address, bytes)),
                            vec![],
                            Some(range),
                        )
                    } else {
                        let bytes =
                            model.eeprom[address as usize..(address + count) as usize].to_vec();
                        (
                            Operation::ReadEeprom {
                                address,
                                count: count as u8,
                            },
                            Expect::Reply(Reply::Bytes(bytes)),
                            vec![],
                            None,
                            vec![],
                            Some(range),
                        )
                    }
                }
            };
            if matches!(expect, Expect::Error(_)) {
                errors += 1;
            }
            let ticket = c.submit(target(port, dest), op).unwrap();
            issued.insert(
                ticket,
                Issued {
                    port,
                    expect,
                    writes,
                    eeprom_write,
                    locks,
                    reads,
                    eeprom_lock,
                },
            );
        }
        pump(&mut w, &mut c);
        for done in c.completions() {
            let i = issued
                .remove(&done.ticket)
                .expect("a completion for an issued request");
            let port = w.responses_port.remove(&done.transaction_id);
            assert_eq!(
                port,
                Some(i.port),
                "{:?}: the response left on the wrong port",
                done.operation
            );
            match (&i.expect, &done.outcome) {
                (Expect::Reply(r), Ok(got)) => assert_eq!(got, r, "{:?}", done.operation),
                (Expect::Error(e), Err(ClientError::Remote(got))) => {
                    assert_eq!(got, e, "{:?}", done.operation)
                }
                (want, got) => panic!("{:?}: expected {want:?}, got {got:?}", done.operation),
            }
            for (a, v) in i.writes {
                model.write(a, v);
            }
            if let Some((a, bytes)) = i.eeprom_write {
                model.eeprom[a as usize..a as usize + bytes.len()].copy_from_slice(&bytes);
            }
        }
        for (port, p) in std::mem::take(&mut w.raw_responses) {
            let want = raw_pending
                .remove(&p.transaction_id)
                .expect("a response to a request that must not be answered");
            assert_eq!(port, want, "a bad-count error left on the wrong port");
            assert_eq!(
                (p.nmp_type, p.error),
                (
                    hdl::formats::mgmt::NmpType::RegErrorResponse,
                    MgmtError::BadCount
                )
            );
            errors += 1;
        }
        reports.extend(c.faults());
    }
    assert_eq!(c.stats().timed_out, 0, "lost requests");
    assert_eq!(model.table, w.plane.table, "the routing table");
    assert_eq!(
        &w.plane.bus.part.memory[EEPROM_SCRATCH as usize..EEPROM_SCRATCH as usize + 262],
        &model.eeprom[EEPROM_SCRATCH as usize..EEPROM_SCRATCH as usize + 262],
        "the EEPROM's array"
    );
    // Let the last reports out, then compare them with the events.
    for _ in 0..2000 {
        pump(&mut w, &mut c);
    }
    reports.extend(c.faults());
    let reported = reports.iter().fold(0, |a, r| a | r.bits);
    assert_eq!(
        reported, risen,
        "fault bits reported vs risen ({events} events)"
    );
    assert!(
        reports.len() as u64 <= events,
        "{} reports for {events} events",
        reports.len()
    );
    assert!(reports.iter().all(|r| r.chip_id == CHIP_ID));
    // Counters.
    let counters = [
        "dropped_wrong_id",
        "dropped_malformed",
        "dropped_no_route",
        "reports_sent",
        "error_responses",
    ];
    let a: Vec<u16> = counters.iter().map(|n| w.plane.address(n)).collect();
    let got = [
        ask(
            &mut w,
            &mut c,
            target(1, CHIP_ID),
            Operation::ReadRegisters(vec![a[0], a[1]]),
        ),
        ask(
            &mut w,
            &mut c,
            target(2, CHIP_ID),
            Operation::ReadRegisters(vec![a[2], a[3]]),
        ),
        ask(
            &mut w,
            &mut c,
            target(2, CHIP_ID),
            Operation::ReadRegisters(vec![a[4]]),
        ),
    ];
    assert_eq!(got[0], Ok(Reply::Registers(vec![wrong_id, malformed])));
    assert_eq!(got[1], Ok(Reply::Registers(vec![0, reports.len() as u64])));
    assert_eq!(got[2], Ok(Reply::Registers(vec![errors])));
    eprintln!(
        "nrc_mgmt 24 ports: {requests} requests ({wrong_id} wrong ID, {malformed} malformed, {errors} errors), {events} fault events, {} reports, {} cycles",
        reports.len(),
        w.plane.b.cycle()
    );
}
