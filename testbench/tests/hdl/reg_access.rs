//! RegAccess against its model (`testbench::models::nma::RegAccessModel`) and a Rust model of
//! the register file's port (`RegPortModel`: 64 registers, some read-only, the rest of the
//! 12-bit space unmapped; every access answered in order after 2 cycles or more, as the real
//! register file, whose own bench checks that latency), every cycle, on both backends.
//!
//! Requests: reads and writes of one or two registers at mapped, read-only, unmapped and
//! out-of-range (at or above 2^12) addresses, bad counts (0, 3..7), and requests of a type the
//! unit does not serve (the distributor sends it every type but the EEPROM requests: response
//! and report types sent as requests, EEPROM-family responses, undefined codes); random idle data while
//! `requests.valid` is low; random `register_request.ready`, answer latency and
//! `responses.ready`; reset pulses at random moments (the port model drops the answers in
//! flight, as the register file sharing the reset does). Each request is written into a Rust
//! model of the packet store (a random slot, as the unpacker writes it) and offered as its
//! ticket; the bench serves the unit's store read port (registered, as the store). Every cycle
//! outside reset the register access offered (valid, address, write, data),
//! `register_response.ready`, the answer written into the store (enable, address, data),
//! `responses.valid` and the response ticket and `requests.ready` are compared with the model.
//! Independently, every response taken is built as the packer builds it (the ticket and the
//! store's slot with the answers written: `models::packet_store::response_packet`), decoded
//! with the codec, and must be `MgmtPacket::response_to` of its request (same error and
//! payload) and leave on the request's arrival port: the response rule is the codec's; the
//! response to a type the unit does not serve must be a register error response, error
//! UnknownType, with the request's transaction ID and VPs, the forward route its backward route
//! reversed, addressed to its source, and an empty payload.
use hdl::formats::mgmt::{
    MgmtBeat, MgmtError, MgmtPacket, MgmtPayload, NmpFamily, NmpType, NMP_TYPE, W_INFO,
};
use hdl::mgmt::ticket::{RequestTicket, ResponseTicket, REQUEST_TICKET_BITS};
use hdl::mgmt::RegAccess;
use std::collections::BTreeMap;
use testbench::models::mgmt::{random_packet, unpack_for_chip, Unpacked};
use testbench::models::nma::{ModelRegister, RegAccessModel, RegPortModel};
use testbench::models::packet_store::{response_packet, PackerSettings, ReadPortModel, StoreModel};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng};

const CHIP: u16 = 0x0c0d;
const A: usize = 12;

fn registers(rng: &mut BenchRng) -> RegPortModel {
    let mut port = RegPortModel::default();
    for i in 0..64u16 {
        port.registers.insert(
            i * 3,
            ModelRegister {
                value: rng.bits(64) as u64,
                read_only: i % 4 == 3,
            },
        );
    }
    port
}

fn address(rng: &mut BenchRng) -> u16 {
    match rng.range(0, 9) {
        0..=6 => 3 * rng.range(0, 63) as u16,
        7 => rng.bits(A) as u16,
        8 => 3 * rng.range(0, 63) as u16 + 1,
        _ => (1 << A) + rng.bits(15 - A) as u16 % ((1 << 15) - (1 << A)),
    }
}

/// A random request beat as the unpacker passes it on (the arrival port appended), its codec
/// packet (`None` for an undefined type code) and the arrival port: 15% of a type the unit does
/// not serve.
fn random_request(rng: &mut BenchRng) -> (MgmtBeat, Option<MgmtPacket>, u8) {
    let port = rng.bits(5) as u8;
    let (sent, p) = random_sent(rng);
    let Unpacked::Request(beat) = unpack_for_chip(
        &hdl::formats::mgmt::pack_words(
            hdl::formats::header::FabricHeader {
                dst: CHIP,
                src: sent.src,
                vc: 3,
                kind: hdl::formats::PacketKind::Mgmt,
                len: hdl::formats::mgmt::MGMT_FLITS as u8,
                delay: 0,
            },
            &sent.words,
        ),
        port,
        CHIP,
    ) else {
        panic!("a well-framed packet with room in its backward route");
    };
    // The codec's view of the request as it arrived.
    let p = p.map(|mut p| {
        p.forward.current = 0;
        assert_eq!(p.take_hop(port), hdl::formats::mgmt::Hop::Arrived);
        p
    });
    (beat, p, port)
}

/// A random request as sent (before the append): 15% of a type the unit does not serve.
fn random_sent(rng: &mut BenchRng) -> (MgmtBeat, Option<MgmtPacket>) {
    match rng.range(0, 99) {
        0..=9 => {
            let mut p = random_packet(rng, CHIP);
            while p.nmp_type.is_request() {
                p = random_packet(rng, CHIP);
            }
            (MgmtBeat::of(&p), Some(p))
        }
        10..=14 => {
            let mut b = MgmtBeat::of(&random_packet(rng, CHIP));
            let code = loop {
                let c = rng.bits(6) as u8;
                if NmpType::from_code(c).is_none() {
                    break c;
                }
            };
            b.words[W_INFO] = NMP_TYPE.set(b.words[W_INFO] as u128, code as u128) as u64;
            (b, None)
        }
        _ => {
            let p = random_register_request(rng);
            (MgmtBeat::of(&p), Some(p))
        }
    }
}

fn random_register_request(rng: &mut BenchRng) -> MgmtPacket {
    let mut p = random_packet(rng, CHIP);
    while p.nmp_type.family() != NmpFamily::Register || !p.nmp_type.is_request() {
        p = random_packet(rng, CHIP);
    }
    let count = match rng.range(0, 19) {
        0 => 0,
        1 => rng.range(3, 7) as u8,
        n => 1 + (n % 2) as u8,
    };
    let a0 = address(rng);
    let a1 = if count >= 2 { address(rng) } else { 0 };
    p.payload = MgmtPayload::Registers {
        count,
        address: [a0, a1],
        data: [
            rng.bits(64) as u64,
            if count >= 2 { rng.bits(64) as u64 } else { 0 },
        ],
    };
    p
}

#[derive(Debug, Default, PartialEq)]
struct Report {
    cycles: u64,
    /// Responses taken, by (type, error code).
    responses: BTreeMap<(u8, u8), u64>,
    resets: u64,
    /// Cycles from a request offered to its response offered: min and max per (count,
    /// write).
    latency: BTreeMap<(u8, bool), (u64, u64)>,
}

#[derive(Clone, Copy)]
struct Traffic {
    requests: usize,
    rate: f64,
    access_ready: f64,
    responses_ready: f64,
    slow_answers: f64,
    gap: u64,
}

fn bench(b: &mut dyn Backend, seed: u64, t: Traffic) -> Report {
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(n);
    let (reset, rv, rd, rr) = (
        p("reset"),
        p("requests$valid"),
        p("requests$data"),
        p("requests$ready"),
    );
    let (sa, sd) = (p("data$address"), p("data$data"));
    let (we, wa, wd) = (p("answers$enable"), p("answers$address"), p("answers$data"));
    let (ov, od, or) = (
        p("responses$valid"),
        p("responses$data"),
        p("responses$ready"),
    );
    let (qv, qa, qw, qd, qr) = (
        p("register_request$valid"),
        p("register_request$address"),
        p("register_request$write"),
        p("register_request$data"),
        p("register_request$ready"),
    );
    let (av, ad, ae, ar) = (
        p("register_response$valid"),
        p("register_response$data"),
        p("register_response$error"),
        p("register_response$ready"),
    );
    let mut sched = if t.gap == 0 {
        ResetSchedule::never()
    } else {
        ResetSchedule::new(&mut rng, t.gap)
    };
    let mut port = registers(&mut rng);
    let mut model = RegAccessModel::new(A);
    let mut report = Report::default();
    // The request: its packet (if the codec decodes it), beat, ticket, arrival port, the cycle
    // offered, and whether its response was offered yet.
    let mut offer: Option<(Option<MgmtPacket>, MgmtBeat, RequestTicket, u8, u64, bool)> = None;
    // The units' copy of the store (the requests) and the packer's (with the answers).
    let (mut store, mut packer_store) = (StoreModel::default(), StoreModel::default());
    let mut read_port = ReadPortModel::default();
    let mut made = 0;
    let mut c = 0u64;
    while made < t.requests || offer.is_some() {
        if offer.is_none() && made < t.requests && rng.chance(t.rate) {
            let (beat, p, port) = random_request(&mut rng);
            let slot = rng.bits(1) as u8;
            store.put_request(slot, &beat, port);
            packer_store.put_request(slot, &beat, port);
            let ticket = RequestTicket::of(&beat, slot);
            offer = Some((p, beat, ticket, port, c, false));
            made += 1;
        }
        let rst = sched.drive(b, reset, &mut rng);
        report.resets += sched.released() as u64;
        b.poke_bool(rv, offer.is_some());
        let idle = rng.bits(REQUEST_TICKET_BITS);
        b.poke(rd, offer.as_ref().map_or(idle, |o| o.2.pack()));
        b.poke(sd, read_port.data as u128);
        let answer = if rst { None } else { port.offered(c) };
        b.poke_bool(av, answer.is_some());
        b.poke(ad, answer.map_or(rng.bits(64), |a| a.0 as u128));
        b.poke(ae, answer.map_or(rng.bits(2), |a| a.1 as u128));
        let access_ready = rng.chance(t.access_ready);
        let responses_ready = rng.chance(t.responses_ready);
        b.poke_bool(qr, access_ready);
        b.poke_bool(or, responses_ready);
        let input = offer.as_ref().map(|o| o.2);
        let entries = store.slot(input.map_or(0, |t| t.slot));
        let want = model.outputs(input.as_ref(), &entries, answer, responses_ready);
        let tag = format!("seed {seed} cycle {c}");
        if !rst {
            let got_access = b.peek_bool(qv).then(|| {
                let w = b.peek_bool(qw);
                (b.peek(qa) as u16, w, b.peek(qd) as u64)
            });
            // Write data only matters for writes.
            let norm =
                |a: Option<(u16, bool, u64)>| a.map(|(x, w, d)| (x, w, if w { d } else { 0 }));
            assert_eq!(
                norm(got_access),
                norm(want.access),
                "{tag}: register access"
            );
            assert!(
                b.peek_bool(ar),
                "{tag}: register_response.ready is always high"
            );
            let got = b.peek_bool(ov).then(|| ResponseTicket::unpack(b.peek(od)));
            assert_eq!(got, want.response, "{tag}: response");
            let got_answer = b
                .peek_bool(we)
                .then(|| (b.peek(wa) as usize, b.peek(wd) as u64));
            assert_eq!(
                got_answer, want.answer,
                "{tag}: answer written into the store"
            );
            if let Some((a, d)) = want.answer {
                packer_store.words[a] = d;
            }
            if input.is_some() {
                assert_eq!(b.peek_bool(rr), want.consumed, "{tag}: requests.ready");
            }
        }
        if let (Some(o), Some(_)) = (offer.as_mut(), want.response.as_ref()) {
            if !o.5 && !rst {
                o.5 = true;
                let (count, _) = model.needed(&o.2);
                let write = o.2.nmp_type == NmpType::RegWriteRequest.code();
                let e = report
                    .latency
                    .entry((count, write))
                    .or_insert((u64::MAX, 0));
                let l = c - o.4;
                *e = (e.0.min(l), e.1.max(l));
            }
        }
        if !rst {
            if let Some((addr, w, d)) = want.access.filter(|_| access_ready) {
                let latency = if rng.chance(t.slow_answers) {
                    rng.range(3, 6)
                } else {
                    2
                };
                port.access(c, latency, addr, w, d);
            }
            if answer.is_some() {
                port.answers.pop_front();
            }
        }
        let consumed = model.edge(
            rst,
            input.as_ref(),
            &entries,
            answer,
            access_ready,
            responses_ready,
        );
        read_port.edge(&store, b.peek(sa) as usize);
        if rst {
            port.reset();
            if let Some(o) = offer.as_mut() {
                o.4 = c + 1;
                o.5 = false;
            }
        }
        if consumed {
            let (req, _, ticket, in_port, _, _) = offer.take().unwrap();
            let got = want.response.unwrap();
            // The response as the packer builds it from the ticket and the store.
            let settings = PackerSettings {
                chip: CHIP,
                ..Default::default()
            };
            let (out_port, beat) =
                response_packet(&got, &packer_store.slot(ticket.slot), &settings).unwrap();
            assert_eq!(out_port, in_port, "{tag}: output port");
            let d = testbench_decode(&beat);
            match req {
                Some(req)
                    if req.nmp_type.family() == NmpFamily::Register
                        && req.nmp_type.is_request() =>
                {
                    assert_eq!(
                        MgmtPacket::response_to(&req, CHIP, d.error, d.payload).map(|mut r| {
                            r.vc = 0;
                            r
                        }),
                        Some(d),
                        "{tag}: not the codec's response"
                    );
                }
                req => {
                    assert_eq!(d.nmp_type, NmpType::RegErrorResponse, "{tag}");
                    assert_eq!(d.error, MgmtError::UnknownType, "{tag}");
                    assert_eq!(d.payload, empty_payload(), "{tag}: payload");
                    if let Some(req) = req {
                        assert_eq!(
                            (d.transaction_id, d.src_vp, d.dest_vp, d.dest_id, d.src),
                            (req.transaction_id, req.src_vp, req.dest_vp, req.src, CHIP),
                            "{tag}"
                        );
                        assert_eq!(d.forward, req.backward.reversed(), "{tag}");
                    }
                }
            }
            *report
                .responses
                .entry((d.nmp_type.code(), d.error.code()))
                .or_default() += 1;
        }
        b.tick();
        c += 1;
        assert!(c < 50 * (t.requests as u64 + 10), "{tag}: hang");
    }
    report.cycles = c;
    report
}

/// The payload of an error response to an unknown type, as the codec decodes all-zero words.
fn empty_payload() -> MgmtPayload {
    MgmtPayload::Registers {
        count: 0,
        address: [0; 2],
        data: [0; 2],
    }
}

fn testbench_decode(b: &MgmtBeat) -> MgmtPacket {
    let head = hdl::formats::header::FabricHeader {
        dst: b.dst,
        src: b.src,
        vc: 0,
        kind: hdl::formats::PacketKind::Mgmt,
        len: hdl::formats::mgmt::MGMT_FLITS as u8,
        delay: 0,
    };
    let mut p = MgmtPacket::from_words(&head, &b.words).expect("the codec decodes the response");
    p.vc = 0;
    p
}

fn table() -> testbench::PortTable<RegAccess<A>> {
    port_table!(RegAccess<A>; reset, requests.valid, requests.data, requests.ready,
        responses.valid, responses.data, responses.ready, register_request.valid,
        register_request.address, register_request.write, register_request.data,
        register_request.ready, register_response.valid, register_response.data,
        register_response.error, register_response.ready, data.address, data.data,
        answers.enable, answers.address, answers.data)
}

#[test]
fn reg_access_against_its_model() {
    let runs = [
        // Timing: everything ready, answers in 2 cycles, no reset.
        Traffic {
            requests: 150,
            rate: 1.0,
            access_ready: 1.0,
            responses_ready: 1.0,
            slow_answers: 0.0,
            gap: 0,
        },
        Traffic {
            requests: 400,
            rate: 0.6,
            access_ready: 0.6,
            responses_ready: 0.6,
            slow_answers: 0.3,
            gap: 200,
        },
    ];
    for (i, t) in runs.into_iter().enumerate() {
        let seed = 500 + i as u64;
        let r = run_both("reg_access", RegAccess::<A>::new, table, |b| {
            bench(b, seed, t)
        })
        .result;
        println!("reg_access run {i}: {r:?}");
        let read = NmpType::RegReadResponse.code();
        let write = NmpType::RegWriteResponse.code();
        let error = NmpType::RegErrorResponse.code();
        for key in [(read, 0), (write, 0), (error, 1), (error, 3), (error, 4)] {
            assert!(
                r.responses.contains_key(&key),
                "run {i}: no {key:?} response: {r:?}"
            );
        }
        if i == 0 {
            assert!(r.responses.contains_key(&(error, 2)), "{r:?}");
            // One register read answered 2 cycles after the request is offered, two in 3,
            // writes one cycle later (their data is read from the store first), refused at once.
            assert_eq!(r.latency[&(1, false)], (2, 2), "{r:?}");
            assert_eq!(r.latency[&(2, false)], (3, 3), "{r:?}");
            assert_eq!(r.latency[&(1, true)], (3, 3), "{r:?}");
            assert_eq!(r.latency[&(2, true)], (4, 4), "{r:?}");
            for write in [false, true] {
                if let Some(l) = r.latency.get(&(0, write)) {
                    assert_eq!(*l, (0, 0), "{r:?}");
                }
            }
        } else {
            assert!(r.resets > 0, "{r:?}");
        }
    }
}
