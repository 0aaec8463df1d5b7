//! NmpPacker against its model (`testbench::models::mgmt`, built on the codec of
//! `hdl::formats::mgmt`), every cycle, on both backends; and the unpacker and packer in a loop
//! through the codec's `response_to`.
//!
//! The packer bench offers beats built by the codec: responses of every kind to random requests
//! as their agent received them (`take_hop` made the append), fault reports on random routes,
//! beats of random words (the packer must carry any bits), and beats without an output port
//! (`current` 0, or above 20) that must be dropped and counted; random idle data while
//! `responses.valid` is low, random `flits.ready` backpressure, reset pulses at random moments
//! (the beat stays offered across them, and its packet must start again from its head). Every
//! cycle `flits.valid`, `flits.data`, `out_port` (while valid), `responses.ready` (while a beat
//! is offered) and `dropped_no_route` are compared with the model. Independently, every whole
//! packet sent for a codec-built beat must decode with the codec to that packet with
//! `current` one lower and the VC the configured one, on the port `hops[current - 1]`; the
//! full-rate run checks ten flits in ten cycles, back to back, the head in the cycle the beat
//! arrives.
//!
//! The loopback: requests of the four request types arrive at the unpacker (hardware) on random
//! ports; the codec decodes each beat and `response_to` answers it; the packer (hardware) sends
//! the answers. Each response must leave on the port its request came in on, decode to the
//! codec's response, and, walked back through the routers of the request's path with
//! `take_hop`, reach the requester's NIC.
use hdl::formats::header::FabricHeader;
use hdl::formats::mgmt::{
    DestType, Hop, MgmtBeat, MgmtError, MgmtPacket, MgmtPayload, NmpType, Route, CURRENT,
    MGMT_FLITS, ROUTE_HOPS,
};
use hdl::formats::PacketKind;
use hdl::mgmt::{NmpPacker, NmpUnpacker};
use std::collections::BTreeMap;
use testbench::backend::{fit_words, u128_to_words};
use testbench::models::mgmt::{random_packet, random_route, PackerModel};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng};

/// The management VC of the benches' packers.
const VC: u8 = 3;

/// A beat and the packet the codec says it must become (`None`: no output port, or raw words).
#[derive(Clone)]
struct Offer {
    beat: MgmtBeat,
    /// The packet as sent (current decremented) and its port.
    want: Option<(MgmtPacket, u8)>,
    label: &'static str,
}

/// A response the agent would send: to a random request as it arrived, on a path of routers.
fn random_response(rng: &mut BenchRng) -> (MgmtPacket, MgmtPacket) {
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
    assert_eq!(request.take_hop(rng.bits(5) as u8), Hop::Arrived);
    let ok = rng.chance(0.7);
    let error = if ok {
        MgmtError::None
    } else {
        MgmtError::ALL[rng.range(1, 7) as usize].0
    };
    let payload = random_packet_of(rng, request.nmp_type).payload;
    let response = MgmtPacket::response_to(&request, rng.bits(16) as u16, error, payload)
        .expect("a request type");
    (request, response)
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

fn next_offer(rng: &mut BenchRng) -> Offer {
    let roll = rng.range(0, 99);
    if roll < 60 {
        let (_, r) = random_response(rng);
        return Offer {
            beat: MgmtBeat::of(&r),
            want: Some(as_sent(&r)),
            label: "response",
        };
    }
    if roll < 70 {
        let mut r = {
            let to = rng.bits(16) as u16;
            random_packet(rng, to)
        };
        r.nmp_type = NmpType::FaultReport;
        r.error = MgmtError::None;
        r.dest_type = DestType::Nic;
        r.payload = MgmtPayload::Fault {
            bits: rng.bits(64) as u64,
        };
        let n = rng.range(1, ROUTE_HOPS as u64) as usize;
        let path: Vec<u8> = (0..n).map(|_| rng.bits(5) as u8).collect();
        r.forward = Route::from_path(&path);
        r.backward = Route::default();
        return Offer {
            beat: MgmtBeat::of(&r),
            want: Some(as_sent(&r)),
            label: "fault report",
        };
    }
    let mut words: [u64; 8] = std::array::from_fn(|_| rng.bits(64) as u64);
    let current = match roll {
        70..=84 => rng.range(1, ROUTE_HOPS as u64),
        85..=93 => 0,
        _ => rng.range(ROUTE_HOPS as u64 + 1, 31),
    };
    words[1] = CURRENT.set(words[1] as u128, current as u128) as u64;
    Offer {
        beat: MgmtBeat {
            src: rng.bits(16) as u16,
            dst: rng.bits(16) as u16,
            words,
        },
        want: None,
        label: match current {
            0 => "current 0",
            1..=20 => "random words",
            _ => "current above 20",
        },
    }
}

/// What a run did (identical on both backends).
#[derive(Debug, Default, PartialEq)]
struct Report {
    cycles: u64,
    /// Beats consumed, by label.
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
    beats: usize,
    beat_rate: f64,
    ready: f64,
    reset_gap: u64,
}

fn bench(b: &mut dyn Backend, seed: u64, t: Traffic) -> Report {
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(n);
    let (reset, rv, rd, rr) = (
        p("reset"),
        p("responses$valid"),
        p("responses$data"),
        p("responses$ready"),
    );
    let (fv, fd, fr, tail, port, dropped) = (
        p("flits$valid"),
        p("flits$data"),
        p("flits$ready"),
        p("tail"),
        p("out_port"),
        p("dropped_no_route"),
    );
    let width = b.width(rd);
    let mut sched = match t.reset_gap {
        0 => ResetSchedule::never(),
        gap => ResetSchedule::new(&mut rng, gap),
    };
    let mut model = PackerModel::new(VC);
    let mut report = Report::default();
    let mut offer: Option<Offer> = None;
    let mut made = 0usize;
    // Flits of the packet in progress as sent, with their port.
    let mut packet: Vec<(u8, u128)> = Vec::new();
    b.poke_bool(reset, true);
    b.tick();
    let mut c = 0u64;
    while made < t.beats || offer.is_some() || model.dropped {
        if offer.is_none() && made < t.beats && rng.chance(t.beat_rate) {
            offer = Some(next_offer(&mut rng));
            made += 1;
        }
        let rst = sched.drive(b, reset, &mut rng);
        report.resets += sched.released() as u64;
        b.poke_bool(rv, offer.is_some());
        let idle: Vec<u64> = (0..9).map(|_| rng.bits(64) as u64).collect();
        b.poke_wide(
            rd,
            &fit_words(&offer.as_ref().map_or(idle, |o| o.beat.to_words()), width),
        );
        let ready = rng.chance(t.ready);
        b.poke_bool(fr, ready);
        let tag = format!("seed {seed} cycle {c}");
        let beat = offer.as_ref().map(|o| o.beat);
        let want = model.outputs(rst, beat.as_ref(), ready);
        let valid = b.peek_bool(fv);
        let got = valid.then(|| {
            let w = b.peek_wide(fd);
            (b.peek(port) as u8, w[0] as u128 | (w[1] as u128) << 64)
        });
        assert_eq!(
            got, want.flit,
            "{tag}: (out_port, flit) differ from the model"
        );
        if valid {
            assert_eq!(
                b.peek_bool(tail),
                packet.len() == MGMT_FLITS - 1,
                "{tag}: tail is not set on exactly the packet's last flit"
            );
        }
        if offer.is_some() {
            assert_eq!(
                b.peek_bool(rr),
                want.responses_ready,
                "{tag}: responses.ready differs from the model"
            );
        }
        assert_eq!(
            b.peek_bool(dropped),
            model.dropped,
            "{tag}: dropped_no_route differs from the model"
        );
        report.dropped += model.dropped as u64;
        report.stalled += (valid && !ready) as u64;
        let consumed = model.edge(rst, beat.as_ref(), ready);
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
                    "{tag}: the packet is not the codec's"
                );
                assert!(
                    packet.iter().all(|f| f.0 == want_port),
                    "{tag}: out_port is not hops[current - 1] = {want_port} throughout"
                );
            }
            report.packets += !packet.is_empty() as u64;
            packet.clear();
        }
        assert!(
            c < 40 * (t.beats as u64 + 10) * MGMT_FLITS as u64,
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
        flits.valid, flits.data, flits.ready, tail, out_port, dropped_no_route)
}

fn unpacker_table() -> testbench::PortTable<NmpUnpacker> {
    port_table!(NmpUnpacker; reset, flits.valid, flits.data, flits.ready, in_port, chip_id,
        requests.valid, requests.data, requests.ready, dropped_wrong_id, dropped_malformed)
}

#[test]
fn nmp_packer_against_its_model() {
    let runs = [
        Traffic {
            beats: 60,
            beat_rate: 1.0,
            ready: 1.0,
            reset_gap: 0,
        },
        Traffic {
            beats: 500,
            beat_rate: 0.3,
            ready: 0.7,
            reset_gap: 300,
        },
        Traffic {
            beats: 150,
            beat_rate: 1.0,
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
        assert_eq!(r.consumed.values().sum::<u64>(), t.beats as u64);
        for label in [
            "response",
            "fault report",
            "random words",
            "current 0",
            "current above 20",
        ] {
            assert!(r.consumed.contains_key(label), "run {i}: no {label} beat");
        }
        assert_eq!(
            r.dropped,
            r.consumed["current 0"] + r.consumed["current above 20"]
        );
        if i == 0 {
            // Ten flits in ten cycles, back to back; a dropped beat takes one cycle.
            assert!(
                r.cycles <= r.packets * MGMT_FLITS as u64 + r.dropped + 2,
                "{r:?}"
            );
        } else {
            assert!(r.resets > 0 && r.cut > 0 && r.stalled > 0, "{r:?}");
        }
    }
}

/// Drives whole packets (flits, arrival port) into the unpacker at random rates and returns
/// the beats it offered, in order.
fn unpack_all(
    b: &mut dyn Backend,
    rng: &mut BenchRng,
    packets: &[(Vec<u128>, u8)],
    chip: u16,
) -> Vec<MgmtBeat> {
    let p = |n: &str| b.port(n);
    let (reset, fv, fd, fr) = (
        p("reset"),
        p("flits$valid"),
        p("flits$data"),
        p("flits$ready"),
    );
    let (in_port, chip_id) = (p("in_port"), p("chip_id"));
    let (rv, rd, rr) = (p("requests$valid"), p("requests$data"), p("requests$ready"));
    b.poke_bool(reset, true);
    b.tick();
    b.poke_bool(reset, false);
    b.poke(chip_id, chip as u128);
    let flits: Vec<(u128, u8)> = packets
        .iter()
        .flat_map(|(f, port)| f.iter().map(move |&x| (x, *port)))
        .collect();
    let (mut next, mut beats) = (0, Vec::new());
    for _ in 0..20 * flits.len() {
        let send = next < flits.len() && rng.chance(0.8);
        b.poke_bool(fv, send);
        let (flit, port) = flits.get(next).copied().unwrap_or((0, 0));
        b.poke_wide(
            fd,
            &u128_to_words(if send { flit } else { rng.bits(65) }, 65),
        );
        b.poke(in_port, port as u128);
        let ready = rng.chance(0.7);
        b.poke_bool(rr, ready);
        if send && b.peek_bool(fr) {
            next += 1;
        }
        if ready && b.peek_bool(rv) {
            beats.push(MgmtBeat::from_words(&b.peek_wide(rd)));
        }
        b.tick();
        if beats.len() == packets.len() {
            break;
        }
    }
    beats
}

/// Sends beats through the packer and returns each packet's flits and port.
fn pack_all(b: &mut dyn Backend, rng: &mut BenchRng, beats: &[MgmtBeat]) -> Vec<(Vec<u128>, u8)> {
    let p = |n: &str| b.port(n);
    let (reset, rv, rd, rr) = (
        p("reset"),
        p("responses$valid"),
        p("responses$data"),
        p("responses$ready"),
    );
    let (fv, fd, fr, port) = (
        p("flits$valid"),
        p("flits$data"),
        p("flits$ready"),
        p("out_port"),
    );
    let width = b.width(rd);
    b.poke_bool(reset, true);
    b.tick();
    b.poke_bool(reset, false);
    let (mut next, mut out, mut packet) = (0, Vec::new(), Vec::new());
    for _ in 0..40 * MGMT_FLITS * (beats.len() + 1) {
        b.poke_bool(rv, next < beats.len());
        b.poke_wide(
            rd,
            &fit_words(
                &beats.get(next).copied().unwrap_or_default().to_words(),
                width,
            ),
        );
        let ready = rng.chance(0.7);
        b.poke_bool(fr, ready);
        if ready && b.peek_bool(fv) {
            let w = b.peek_wide(fd);
            packet.push(w[0] as u128 | (w[1] as u128) << 64);
            if packet.len() == MGMT_FLITS {
                out.push((std::mem::take(&mut packet), b.peek(port) as u8));
            }
        }
        if next < beats.len() && b.peek_bool(rr) {
            next += 1;
        }
        b.tick();
        if out.len() == beats.len() {
            break;
        }
    }
    out
}

#[test]
fn nmp_unpacker_then_packer_answer_through_the_codec() {
    const CHIP: u16 = 0x0badu16;
    let mut rng = BenchRng::new(300);
    // Requests that crossed `path` (the routers' output ports, first router first) and arrive
    // on `in_port`: the backward route holds the ports they came in on at each router.
    let mut cases = Vec::new();
    for _ in 0..120 {
        let mut req = random_response(&mut rng).0;
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
    let beats = run_both("nmp_unpacker", NmpUnpacker::new, unpacker_table, |b| {
        unpack_all(b, &mut BenchRng::new(301), &packets, CHIP)
    })
    .result;
    assert_eq!(beats.len(), cases.len(), "every request passed on");
    // The agent, in Rust: the codec decodes each beat and answers.
    let mut responses = Vec::new();
    for ((req, arrivals), beat) in cases.iter().zip(&beats) {
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
        assert_eq!(got, arrived, "the unpacker's beat is the codec's arrival");
        let payload = random_packet_of(&mut rng, got.nmp_type).payload;
        responses.push(MgmtPacket::response_to(&got, CHIP, MgmtError::None, payload).unwrap());
    }
    let response_beats: Vec<MgmtBeat> = responses.iter().map(MgmtBeat::of).collect();
    let sent = run_both(
        "nmp_packer",
        || NmpPacker::new(VC),
        packer_table,
        |b| pack_all(b, &mut BenchRng::new(302), &response_beats),
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
