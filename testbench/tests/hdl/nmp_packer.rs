//! NmpPacker against its model (`testbench::models::mgmt::PackerModel`, on the response rule of
//! `testbench::models::packet_store`, built on the codec of `hdl::formats::mgmt`), every cycle,
//! on both backends; and the unpacker and packer in a loop through the codec's `response_to`.
//!
//! The packer bench plays the packet store (a Rust model with its registered read port) and
//! offers response tickets: responses of every kind the units make (register read with the
//! data in the store, write, register error with the codes, refused unknown type, EEPROM read
//! with the bytes, EEPROM write and error) to random requests as the unpacker stored them
//! (arrived on a random port, the append made), fault reports on random routes, tickets of
//! random bits over random store words (the packer must carry any bits), and reports without
//! an output port (`current` 0, or above 20) that must be dropped and counted; random idle data
//! while `responses.valid` is low, random words written into the other store slot meanwhile (as
//! the unpacker does), random `flits.ready` backpressure, reset pulses at random moments (the
//! ticket stays offered across them, and its packet must start again from its head). Every
//! cycle `flits.valid`, `flits.data`, `out_port` (while valid), `tail`, `responses.ready` (while
//! a ticket is offered) and `dropped_no_route` are compared with the model. Independently,
//! every whole packet sent for a response must decode with the codec to `response_to` of its
//! request with the ticket's error and the payload its kind intends, `current` one lower and
//! the VC the configured one, on the port the request arrived on; a report to the fault report
//! on its route and port `hops[current - 1]`. The full-rate run checks eleven cycles a packet,
//! back to back (the head one cycle after its ticket: the store's read).
//!
//! The loopback: requests of the four request types arrive at the unpacker (hardware) on random
//! ports; its store writes go into the store model; the codec decodes each stored request and
//! `response_to` answers it, as a register read whose data the bench writes into the store;
//! the packer (hardware) sends the answers from the same store. Each response must leave on
//! the port its request came in on, decode to the codec's response, and, walked back through
//! the routers of the request's path with `take_hop`, reach the requester's NIC.
use hdl::formats::header::FabricHeader;
use hdl::formats::mgmt::{
    self, Hop, MgmtBeat, MgmtError, MgmtPacket, MgmtPayload, NmpFamily, NmpType, Route, CURRENT,
    MGMT_FLITS, ROUTE_HOPS,
};
use hdl::formats::PacketKind;
use hdl::mgmt::ticket::{
    store_address, Echo, RequestTicket, ResponseTicket, RESPONSE_TICKET_BITS, SLOT_BITS,
};
use hdl::mgmt::{NmpPacker, NmpUnpacker};
use std::collections::BTreeMap;
use testbench::backend::u128_to_words;
use testbench::mgmt_perf::unpacker_table;
use testbench::models::mgmt::{random_packet, random_route, PackerModel};
use testbench::models::packet_store::{
    PackerSettings, ReadPortModel, StoreModel, SLOT_ENTRIES, STORE_ENTRIES,
};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng};

/// The management VC of the benches' packers.
const VC: u8 = 3;
/// This chip.
const CHIP: u16 = 0x0badu16;

/// A ticket, the store slot contents it refers to, and the packet the codec says it must
/// become (`None`: no output port, or random bits).
#[derive(Clone)]
struct Offer {
    ticket: ResponseTicket,
    entries: [u64; SLOT_ENTRIES],
    /// The packet as sent (current decremented) and its port.
    want: Option<(MgmtPacket, u8)>,
    label: &'static str,
}

/// A random request as the agent received it (`take_hop` made the append) on `in_port`, of
/// one of the four request types.
fn random_request(rng: &mut BenchRng, in_port: u8) -> MgmtPacket {
    let mut request = {
        let to = rng.bits(16) as u16;
        random_packet(rng, to)
    };
    let kinds = [
        NmpType::RegReadRequest,
        NmpType::RegWriteRequest,
        NmpType::EepReadRequest,
        NmpType::EepWriteRequest,
    ];
    request.nmp_type = kinds[rng.range(0, 3) as usize];
    request.error = MgmtError::None;
    request.payload = random_packet_of(rng, request.nmp_type).payload;
    request.forward.current = 0;
    // At least the hop it arrives on; room for that append.
    request.backward = random_route(rng, ROUTE_HOPS - 1, false);
    assert_eq!(request.take_hop(in_port), Hop::Arrived);
    request
}

/// A random packet of type `t` (its payload is of the right family).
fn random_packet_of(rng: &mut BenchRng, t: NmpType) -> MgmtPacket {
    loop {
        let p = random_packet(rng, 0);
        if p.nmp_type.family() == t.family() {
            return p;
        }
    }
}

/// `p` as the packer must send it: `current` one lower, on VC [`VC`], and the port.
fn as_sent(p: &MgmtPacket) -> (MgmtPacket, u8) {
    let mut s = *p;
    s.forward.current -= 1;
    s.vc = VC;
    (s, s.forward.hops[s.forward.current as usize])
}

/// A slot's entries holding `request` (as the unpacker stores it; the arrival port is the
/// backward route's last hop) and the register unit's answers `data` over `w6`/`w7`.
fn stored(request: &MgmtPacket, data: [u64; 2]) -> [u64; SLOT_ENTRIES] {
    let mut store = StoreModel::default();
    let port = request.backward.hops[request.backward.hop_num as usize - 1];
    store.put_request(0, &MgmtBeat::of(request), port);
    store.words[store_address(0, mgmt::W_DATA0)] = data[0];
    store.words[store_address(0, mgmt::W_DATA1)] = data[1];
    store.slot(0)
}

/// A response of a kind the units make to a random request, with the packet it must become.
fn random_response(rng: &mut BenchRng) -> Offer {
    let in_port = rng.bits(5) as u8;
    let request = random_request(rng, in_port);
    let data = [rng.bits(64) as u64, rng.bits(64) as u64];
    let mut ticket = ResponseTicket {
        slot: rng.bits(1) as u8,
        ..Default::default()
    };
    let (kind, error, payload) = match (request.payload, rng.range(0, 2)) {
        (MgmtPayload::Registers { count, address, .. }, k) => {
            ticket.echo = Echo::Registers;
            let write = request.nmp_type == NmpType::RegWriteRequest;
            match k {
                0 if !write => {
                    ticket.w6_stored = true;
                    ticket.w7_stored = count == 2;
                    let data = [data[0], if count == 2 { data[1] } else { 0 }];
                    ("register read", MgmtError::None, (count, address, data))
                }
                0 => ("register write", MgmtError::None, (count, address, [0, 0])),
                1 => {
                    ticket.data = rng.bits(2) as u64 | (rng.bits(2) as u64) << 8;
                    let e = MgmtError::ALL[rng.range(1, 2) as usize].0;
                    ("register error", e, (count, address, [ticket.data, 0]))
                }
                _ => {
                    ticket.echo = Echo::Nothing;
                    ("unknown type", MgmtError::UnknownType, (0, [0, 0], [0, 0]))
                }
            }
        }
        (MgmtPayload::Eeprom { count, address, .. }, k) => {
            ticket.echo = Echo::Eeprom;
            let write = request.nmp_type == NmpType::EepWriteRequest;
            match k {
                0 if !write => {
                    ticket.data = rng.bits(48) as u64;
                    (
                        "EEPROM read",
                        MgmtError::None,
                        (count, [address, 0], [ticket.data, 0]),
                    )
                }
                0 | 1 => (
                    "EEPROM write",
                    MgmtError::None,
                    (count, [address, 0], [0, 0]),
                ),
                _ => {
                    let e = [
                        MgmtError::EepromNack,
                        MgmtError::BadCount,
                        MgmtError::EepromRange,
                    ][rng.range(0, 2) as usize];
                    ("EEPROM error", e, (count, [address, 0], [0, 0]))
                }
            }
        }
        _ => unreachable!("requests are register or EEPROM requests"),
    };
    let (count, address, words) = payload;
    let payload = match request.nmp_type.family() {
        NmpFamily::Register => MgmtPayload::Registers {
            count,
            address,
            data: words,
        },
        _ => MgmtPayload::Eeprom {
            count,
            address: address[0],
            bytes: std::array::from_fn(|i| (words[0] >> (8 * i)) as u8),
        },
    };
    let response = if error == MgmtError::UnknownType {
        // Refused: a register error response with an empty payload, whatever the request.
        let mut r = MgmtPacket::response_to(&request, CHIP, MgmtError::Unmapped, payload)
            .expect("a request type");
        r.nmp_type = NmpType::RegErrorResponse;
        r.error = error;
        r.payload = MgmtPayload::Registers {
            count: 0,
            address: [0; 2],
            data: [0; 2],
        };
        r
    } else {
        MgmtPacket::response_to(&request, CHIP, error, payload).expect("a request type")
    };
    ticket.nmp_type = response.nmp_type.code();
    ticket.error = error.code();
    let (sent, port) = as_sent(&response);
    assert_eq!(
        port, in_port,
        "a response leaves on its request's arrival port"
    );
    Offer {
        ticket,
        entries: stored(&request, data),
        want: Some((sent, port)),
        label: kind,
    }
}

fn next_offer(rng: &mut BenchRng, settings: &mut PackerSettings) -> Offer {
    let roll = rng.range(0, 99);
    if roll < 65 {
        return random_response(rng);
    }
    let random_entries: [u64; SLOT_ENTRIES] = std::array::from_fn(|_| rng.bits(64) as u64);
    if roll < 85 {
        // A fault report; the settings change between packets (as software may while no
        // report waits).
        let n = rng.range(1, ROUTE_HOPS as u64) as usize;
        let path: Vec<u8> = (0..n).map(|_| rng.bits(5) as u8).collect();
        let mut route = Route::from_path(&path);
        let current = match roll {
            65..=79 => rng.range(1, n as u64),
            80..=82 => 0,
            _ => rng.range(ROUTE_HOPS as u64 + 1, 31),
        };
        route.current = current as u8;
        let mut words = route.words(true);
        if current > ROUTE_HOPS as u64 {
            words[0] = CURRENT.set(words[0] as u128, current as u128) as u64;
        }
        settings.report_route = words;
        settings.report_dest = rng.bits(16) as u16;
        let ticket = ResponseTicket {
            slot: rng.bits(1) as u8,
            report: true,
            nmp_type: NmpType::FaultReport.code(),
            id: rng.bits(16) as u16,
            data: rng.bits(64) as u64,
            ..Default::default()
        };
        let want = (1..=ROUTE_HOPS as u64).contains(&current).then(|| {
            let report = MgmtPacket {
                dest_id: settings.report_dest,
                src: settings.chip,
                vc: VC,
                dest_type: mgmt::DestType::Nic,
                src_vp: 0,
                dest_vp: 0,
                transaction_id: ticket.id,
                nmp_type: NmpType::FaultReport,
                error: MgmtError::None,
                forward: route,
                backward: Route::default(),
                payload: MgmtPayload::Fault { bits: ticket.data },
            };
            as_sent(&report)
        });
        return Offer {
            ticket,
            entries: random_entries,
            want,
            label: match current {
                0 => "report, current 0",
                1..=20 => "fault report",
                _ => "report, current above 20",
            },
        };
    }
    // Any bits, any words: the packer carries them (a report ticket among them may have no
    // route under the settings; the model says so).
    Offer {
        ticket: ResponseTicket::unpack(rng.bits(RESPONSE_TICKET_BITS)),
        entries: random_entries,
        want: None,
        label: "random bits",
    }
}

/// What a run did (identical on both backends).
#[derive(Debug, Default, PartialEq)]
struct Report {
    cycles: u64,
    /// Tickets consumed, by label.
    consumed: BTreeMap<String, u64>,
    packets: u64,
    dropped: u64,
    resets: u64,
    /// Packets restarted by a reset after some flits were sent.
    cut: u64,
    /// Cycles with a flit on offer and `flits.ready` low.
    stalled: u64,
}

#[derive(Clone, Copy)]
struct Traffic {
    tickets: usize,
    rate: f64,
    ready: f64,
    reset_gap: u64,
}

/// The packer's ports the benches drive and read.
struct Ports {
    reset: testbench::PortId,
    rv: testbench::PortId,
    rd: testbench::PortId,
    rr: testbench::PortId,
    sa: testbench::PortId,
    sd: testbench::PortId,
    chip: testbench::PortId,
    route: testbench::PortId,
    dest: testbench::PortId,
    fv: testbench::PortId,
    fd: testbench::PortId,
    fr: testbench::PortId,
    tail: testbench::PortId,
    port: testbench::PortId,
    dropped: testbench::PortId,
}

impl Ports {
    fn new(b: &dyn Backend) -> Self {
        let p = |n: &str| b.port(n);
        Self {
            reset: p("reset"),
            rv: p("responses$valid"),
            rd: p("responses$data"),
            rr: p("responses$ready"),
            sa: p("store$address"),
            sd: p("store$data"),
            chip: p("chip_id"),
            route: p("report_route"),
            dest: p("report_dest"),
            fv: p("flits$valid"),
            fd: p("flits$data"),
            fr: p("flits$ready"),
            tail: p("tail"),
            port: p("out_port"),
            dropped: p("dropped_no_route"),
        }
    }
    fn settings(&self, b: &mut dyn Backend, s: &PackerSettings) {
        b.poke(self.chip, s.chip as u128);
        b.poke(
            self.route,
            s.report_route[0] as u128 | (s.report_route[1] as u128) << 64,
        );
        b.poke(self.dest, s.report_dest as u128);
    }
}

fn bench(b: &mut dyn Backend, seed: u64, t: Traffic) -> Report {
    let mut rng = BenchRng::new(seed);
    let ports = Ports::new(b);
    let mut sched = match t.reset_gap {
        0 => ResetSchedule::never(),
        gap => ResetSchedule::new(&mut rng, gap),
    };
    let mut model = PackerModel::new(VC);
    let mut report = Report::default();
    let mut offer: Option<Offer> = None;
    let mut settings = PackerSettings {
        chip: CHIP,
        ..Default::default()
    };
    let mut store = StoreModel::default();
    let mut read_port = ReadPortModel::default();
    let mut made = 0usize;
    // Flits of the packet in progress as sent, with their port.
    let mut packet: Vec<(u8, u128)> = Vec::new();
    b.poke_bool(ports.reset, true);
    b.tick();
    let mut c = 0u64;
    while made < t.tickets || offer.is_some() || model.dropped {
        if offer.is_none() && made < t.tickets && rng.chance(t.rate) {
            let o = next_offer(&mut rng, &mut settings);
            for (e, &w) in o.entries.iter().enumerate() {
                store.words[store_address(o.ticket.slot as usize, e)] = w;
            }
            offer = Some(o);
            made += 1;
        }
        let rst = sched.drive(b, ports.reset, &mut rng);
        report.resets += sched.released() as u64;
        b.poke_bool(ports.rv, offer.is_some());
        let idle = rng.bits(RESPONSE_TICKET_BITS);
        b.poke(ports.rd, offer.as_ref().map_or(idle, |o| o.ticket.pack()));
        b.poke(ports.sd, read_port.data as u128);
        ports.settings(b, &settings);
        let ready = rng.chance(t.ready);
        b.poke_bool(ports.fr, ready);
        let tag = format!("seed {seed} cycle {c}");
        let ticket = offer.as_ref().map(|o| o.ticket);
        let entries = store.slot(ticket.map_or(0, |t| t.slot));
        let want = model.outputs(rst, ticket.as_ref(), &entries, &settings, ready);
        let valid = b.peek_bool(ports.fv);
        let got = valid.then(|| {
            let w = b.peek_wide(ports.fd);
            (
                b.peek(ports.port) as u8,
                w[0] as u128 | (w[1] as u128) << 64,
            )
        });
        assert_eq!(
            got,
            want.flit,
            "{tag}: (out_port, flit) differ from the model {model:?} {:?} {:x?}",
            offer.as_ref().map(|o| (o.label, o.ticket)),
            entries
        );
        if valid {
            assert_eq!(
                b.peek_bool(ports.tail),
                packet.len() == MGMT_FLITS - 1,
                "{tag}: tail is not set on exactly the packet's last flit"
            );
        }
        if offer.is_some() {
            assert_eq!(
                b.peek_bool(ports.rr),
                want.responses_ready,
                "{tag}: responses.ready differs from the model"
            );
        }
        assert_eq!(
            b.peek_bool(ports.dropped),
            model.dropped,
            "{tag}: dropped_no_route differs from the model"
        );
        report.dropped += model.dropped as u64;
        report.stalled += (valid && !ready) as u64;
        let consumed = model.edge(rst, ticket.as_ref(), &entries, &settings, ready);
        // The store's read, then a write into the other slot (the unpacker at work).
        read_port.edge(&store, b.peek(ports.sa) as usize);
        if rng.chance(0.3) {
            let other = 1 - ticket.map_or(0, |t| t.slot) as usize;
            let e = rng.range(0, SLOT_ENTRIES as u64 - 1) as usize;
            store.words[store_address(other, e) % STORE_ENTRIES] = rng.bits(64) as u64;
        }
        b.tick();
        c += 1;
        if rst {
            report.cut += !packet.is_empty() as u64;
            packet.clear();
        } else if let Some(f) = got.filter(|_| ready) {
            packet.push(f);
        }
        if consumed {
            let o = offer.take().unwrap();
            *report.consumed.entry(o.label.into()).or_default() += 1;
            if let Some((want, want_port)) = o.want {
                assert_eq!(packet.len(), MGMT_FLITS, "{tag}: {} flits", packet.len());
                let flits: Vec<u128> = packet.iter().map(|f| f.1).collect();
                assert_eq!(
                    MgmtPacket::unpack(&flits),
                    Ok(want),
                    "{tag}: the {} packet is not the codec's",
                    o.label
                );
                assert!(
                    packet.iter().all(|f| f.0 == want_port),
                    "{tag}: out_port is not {want_port} throughout"
                );
            }
            report.packets += !packet.is_empty() as u64;
            packet.clear();
        }
        assert!(
            c < 40 * (t.tickets as u64 + 10) * MGMT_FLITS as u64,
            "{tag}: hang"
        );
    }
    report.cycles = c;
    if t.reset_gap > 0 {
        sched.assert_pulses(&format!("nmp_packer seed {seed}"), 3);
    }
    report
}

fn packer_table() -> testbench::PortTable<NmpPacker> {
    port_table!(NmpPacker; reset, responses.valid, responses.data, responses.ready,
        store.address, store.data, chip_id, report_route, report_dest, flits.valid,
        flits.data, flits.ready, tail, out_port, dropped_no_route)
}

#[test]
fn nmp_packer_against_its_model() {
    let runs = [
        Traffic {
            tickets: 60,
            rate: 1.0,
            ready: 1.0,
            reset_gap: 0,
        },
        Traffic {
            tickets: 500,
            rate: 0.3,
            ready: 0.7,
            reset_gap: 300,
        },
        Traffic {
            tickets: 150,
            rate: 1.0,
            ready: 0.1,
            reset_gap: 900,
        },
    ];
    for (i, t) in runs.into_iter().enumerate() {
        let seed = 200 + i as u64;
        let r = run_both(
            "nmp_packer",
            || NmpPacker::new(VC),
            packer_table,
            |b| bench(b, seed, t),
        )
        .result;
        println!("nmp_packer run {i}: {r:?}");
        assert_eq!(r.consumed.values().sum::<u64>(), t.tickets as u64);
        let labels: &[&str] = if i == 0 {
            &[
                "fault report",
                "random bits",
                "register read",
                "EEPROM read",
            ]
        } else {
            &[
                "register read",
                "register write",
                "register error",
                "unknown type",
                "EEPROM read",
                "EEPROM write",
                "EEPROM error",
                "fault report",
                "random bits",
                "report, current 0",
                "report, current above 20",
            ]
        };
        for label in labels {
            assert!(
                r.consumed.contains_key(*label),
                "run {i}: no {label} ticket"
            );
        }
        assert!(
            r.dropped
                >= r.consumed.get("report, current 0").copied().unwrap_or(0)
                    + r.consumed
                        .get("report, current above 20")
                        .copied()
                        .unwrap_or(0)
        );
        if i == 0 {
            // Eleven cycles a packet (the store's read, ten flits), back to back; a dropped
            // ticket takes one cycle.
            assert!(
                r.cycles <= r.packets * (MGMT_FLITS as u64 + 1) + r.dropped + 2,
                "{r:?}"
            );
        } else {
            assert!(r.resets > 0 && r.cut > 0 && r.stalled > 0, "{r:?}");
        }
    }
}

/// Drives whole packets (flits, arrival port) into the unpacker at random rates and returns,
/// for each ticket it offered, the ticket and its slot's entries as the unpacker wrote them.
fn unpack_all(
    b: &mut dyn Backend,
    rng: &mut BenchRng,
    packets: &[(Vec<u128>, u8)],
    chip: u16,
) -> Vec<(RequestTicket, [u64; SLOT_ENTRIES])> {
    let p = |n: &str| b.port(n);
    let (reset, fv, fd, fr) = (
        p("reset"),
        p("flits$valid"),
        p("flits$data"),
        p("flits$ready"),
    );
    let (in_port, chip_id) = (p("in_port"), p("chip_id"));
    let (free, available) = (p("slots$free_slot"), p("slots$available"));
    let (we, wa, wd) = (p("store$enable"), p("store$address"), p("store$data"));
    let (rv, rd, rr) = (p("requests$valid"), p("requests$data"), p("requests$ready"));
    b.poke_bool(reset, true);
    b.tick();
    b.poke_bool(reset, false);
    b.poke(chip_id, chip as u128);
    let flits: Vec<(u128, u8)> = packets
        .iter()
        .flat_map(|(f, port)| f.iter().map(move |&x| (x, *port)))
        .collect();
    let mut store = StoreModel::default();
    let (mut next, mut tickets) = (0, Vec::new());
    for _ in 0..20 * flits.len() {
        let send = next < flits.len() && rng.chance(0.8);
        b.poke_bool(fv, send);
        let (flit, port) = flits.get(next).copied().unwrap_or((0, 0));
        b.poke_wide(
            fd,
            &u128_to_words(if send { flit } else { rng.bits(65) }, 65),
        );
        b.poke(in_port, port as u128);
        b.poke(free, rng.bits(SLOT_BITS));
        b.poke_bool(available, true);
        let ready = rng.chance(0.7);
        b.poke_bool(rr, ready);
        if send && b.peek_bool(fr) {
            next += 1;
        }
        if ready && b.peek_bool(rv) {
            let t = RequestTicket::unpack(b.peek(rd));
            tickets.push((t, store.slot(t.slot)));
        }
        if b.peek_bool(we) {
            store.words[b.peek(wa) as usize] = b.peek(wd) as u64;
        }
        b.tick();
        if tickets.len() == packets.len() {
            break;
        }
    }
    tickets
}

/// Sends tickets through the packer, each with its slot's entries in the store, and returns
/// each packet's flits and port.
fn pack_all(
    b: &mut dyn Backend,
    rng: &mut BenchRng,
    tickets: &[(ResponseTicket, [u64; SLOT_ENTRIES])],
) -> Vec<(Vec<u128>, u8)> {
    let ports = Ports::new(b);
    let settings = PackerSettings {
        chip: CHIP,
        ..Default::default()
    };
    b.poke_bool(ports.reset, true);
    b.tick();
    b.poke_bool(ports.reset, false);
    ports.settings(b, &settings);
    let mut store = StoreModel::default();
    let mut read_port = ReadPortModel::default();
    let (mut next, mut out, mut packet) = (0, Vec::new(), Vec::new());
    let mut loaded = None;
    for _ in 0..40 * MGMT_FLITS * (tickets.len() + 1) {
        if let Some((t, entries)) = tickets.get(next).filter(|_| loaded != Some(next)) {
            for (e, &w) in entries.iter().enumerate() {
                store.words[store_address(t.slot as usize, e)] = w;
            }
            loaded = Some(next);
        }
        b.poke_bool(ports.rv, next < tickets.len());
        b.poke(ports.rd, tickets.get(next).map_or(0, |(t, _)| t.pack()));
        b.poke(ports.sd, read_port.data as u128);
        let ready = rng.chance(0.7);
        b.poke_bool(ports.fr, ready);
        if ready && b.peek_bool(ports.fv) {
            let w = b.peek_wide(ports.fd);
            packet.push(w[0] as u128 | (w[1] as u128) << 64);
            if packet.len() == MGMT_FLITS {
                out.push((std::mem::take(&mut packet), b.peek(ports.port) as u8));
            }
        }
        if next < tickets.len() && b.peek_bool(ports.rr) {
            next += 1;
        }
        read_port.edge(&store, b.peek(ports.sa) as usize);
        b.tick();
        if out.len() == tickets.len() {
            break;
        }
    }
    out
}

#[test]
fn nmp_unpacker_then_packer_answer_through_the_codec() {
    let mut rng = BenchRng::new(300);
    // Requests that crossed `path` (the routers' output ports, first router first) and arrive
    // on `in_port`: the backward route holds the ports they came in on at each router.
    let mut cases = Vec::new();
    for _ in 0..120 {
        let mut req = random_request(&mut rng, 0);
        req.dest_id = if rng.chance(0.2) { 0xffff } else { CHIP };
        let routers = rng.range(0, ROUTE_HOPS as u64 - 1) as usize;
        let path: Vec<u8> = (0..routers).map(|_| rng.bits(5) as u8).collect();
        let arrivals: Vec<u8> = (0..=routers).map(|_| rng.bits(5) as u8).collect();
        req.forward = Route::from_path(&path);
        req.backward = Route::default();
        // Through the routers: each appends its arrival port and takes its hop.
        for (i, &a) in arrivals[..routers].iter().enumerate() {
            assert_eq!(req.take_hop(a), Hop::Forward(path[i]));
        }
        cases.push((req, arrivals));
    }
    let packets: Vec<(Vec<u128>, u8)> = cases
        .iter()
        .map(|(r, a)| (r.pack(), *a.last().unwrap()))
        .collect();
    let tickets = run_both("nmp_unpacker", NmpUnpacker::new, unpacker_table, |b| {
        unpack_all(b, &mut BenchRng::new(301), &packets, CHIP)
    })
    .result;
    assert_eq!(tickets.len(), cases.len(), "every request passed on");
    // The agent, in Rust: the codec decodes each stored request and answers it as a register
    // read would (the data written into the store, the words echoed from it).
    let mut responses = Vec::new();
    let mut answers = Vec::new();
    for ((req, arrivals), (ticket, entries)) in cases.iter().zip(&tickets) {
        let beat = MgmtBeat {
            src: hdl::mgmt::ticket::ENTRY_SRC.get(entries[8] as u128) as u16,
            dst: req.dest_id,
            words: std::array::from_fn(|i| entries[i]),
        };
        assert_eq!(*ticket, RequestTicket::of(&beat, ticket.slot));
        let head = FabricHeader {
            dst: beat.dst,
            src: beat.src,
            vc: req.vc,
            kind: PacketKind::Mgmt,
            len: MGMT_FLITS as u8,
            delay: 0,
        };
        let got = MgmtPacket::from_words(&head, &beat.words).expect("a valid request");
        let mut arrived = *req;
        assert_eq!(arrived.take_hop(*arrivals.last().unwrap()), Hop::Arrived);
        assert_eq!(got, arrived, "the stored request is the codec's arrival");
        let data = [rng.bits(64) as u64, rng.bits(64) as u64];
        let mut entries = *entries;
        entries[mgmt::W_DATA0] = data[0];
        entries[mgmt::W_DATA1] = data[1];
        let payload = MgmtPayload::Registers {
            count: 2,
            address: [0x1234, 0x0042],
            data,
        };
        // Answered as a two-register read: the words echoed are the request's.
        let mut read = got;
        read.nmp_type = NmpType::RegReadRequest;
        read.payload = payload;
        entries[mgmt::W_ACCESS] = read.words()[mgmt::W_ACCESS];
        responses.push(MgmtPacket::response_to(&read, CHIP, MgmtError::None, payload).unwrap());
        answers.push((
            ResponseTicket {
                slot: ticket.slot,
                nmp_type: NmpType::RegReadResponse.code(),
                echo: Echo::Registers,
                w6_stored: true,
                w7_stored: true,
                ..Default::default()
            },
            entries,
        ));
    }
    let sent = run_both(
        "nmp_packer",
        || NmpPacker::new(VC),
        packer_table,
        |b| pack_all(b, &mut BenchRng::new(302), &answers),
    )
    .result;
    assert_eq!(sent.len(), responses.len(), "every response sent");
    for (((req, arrivals), response), (flits, port)) in cases.iter().zip(&responses).zip(&sent) {
        // Out on the port the request came in on.
        assert_eq!(*port, *arrivals.last().unwrap());
        let mut back = MgmtPacket::unpack(flits).expect("a valid response");
        assert_eq!(back, as_sent(response).0);
        // Back through the routers to the requester: each takes the port the request came in on.
        for (i, &a) in arrivals[..arrivals.len() - 1].iter().enumerate().rev() {
            let path_port = req.forward.hops[req.forward.hop_num as usize - 1 - i];
            assert_eq!(back.take_hop(path_port), Hop::Forward(a));
        }
        assert_eq!(back.take_hop(0), Hop::Arrived);
        assert_eq!(back.dest_id, req.src);
    }
}
