//! NmpDistributor against its model (`testbench::models::nma`), every cycle, on both backends:
//! request tickets of random requests of every type (register and EEPROM requests, response and
//! report types sent as requests, undefined codes) in random store slots, random idle data while
//! `requests.valid` is low, random backpressure on each output, reset pulses at random moments.
//! Every cycle (outside reset) `requests.ready` (while a ticket is offered), each output's
//! `valid` and `data` and `held` are compared with the model. Independently of the model, every
//! ticket taken on an output is checked to be of that output's kind (EEPROM requests on
//! `eeprom`, everything else on `registers`, where the register unit refuses unknown types; see
//! its bench).
use hdl::formats::mgmt::{MgmtBeat, MgmtPacket, NmpFamily, NmpType, NMP_TYPE, W_INFO};
use hdl::mgmt::ticket::RequestTicket;
use hdl::mgmt::NmpDistributor;
use std::collections::BTreeMap;
use testbench::models::mgmt::random_packet;
use testbench::models::nma::DistributorModel;
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng};

const CHIP: u16 = 0x1234;

/// The ticket of a random request in a random slot.
fn random_ticket(rng: &mut BenchRng) -> RequestTicket {
    RequestTicket::of(&random_request(rng).0, rng.bits(1) as u8)
}

/// A random request beat and the codec packet it came from (`None` for an undefined code).
fn random_request(rng: &mut BenchRng) -> (MgmtBeat, Option<MgmtPacket>) {
    let mut p = random_packet(rng, CHIP);
    let roll = rng.range(0, 99);
    let want = match roll {
        0..=34 => Some(NmpFamily::Register),
        35..=59 => Some(NmpFamily::Eeprom),
        _ => None,
    };
    if let Some(f) = want {
        while !(p.nmp_type.family() == f && p.nmp_type.is_request()) {
            p = random_packet(rng, CHIP);
        }
        return (MgmtBeat::of(&p), Some(p));
    }
    if roll < 85 {
        while p.nmp_type.is_request() {
            p = random_packet(rng, CHIP);
        }
        return (MgmtBeat::of(&p), Some(p));
    }
    let mut b = MgmtBeat::of(&p);
    let code = loop {
        let c = rng.bits(6) as u8;
        if NmpType::from_code(c).is_none() {
            break c;
        }
    };
    b.words[W_INFO] = NMP_TYPE.set(b.words[W_INFO] as u128, code as u128) as u64;
    (b, None)
}

#[derive(Debug, Default, PartialEq)]
struct Report {
    cycles: u64,
    taken: BTreeMap<usize, u64>,
    unknown_types_passed: u64,
    resets: u64,
    input_stalls: u64,
}

fn bench(
    b: &mut dyn Backend,
    seed: u64,
    requests: usize,
    rate: f64,
    ready: f64,
    gap: u64,
) -> Report {
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(n);
    let (reset, rv, rd, rr) = (
        p("reset"),
        p("requests$valid"),
        p("requests$data"),
        p("requests$ready"),
    );
    let outs: Vec<_> = ["registers", "eeprom"]
        .iter()
        .map(|n| {
            (
                p(&format!("{n}$valid")),
                p(&format!("{n}$data")),
                p(&format!("{n}$ready")),
            )
        })
        .collect();
    let held_port = b.port("held");
    let mut sched = if gap == 0 {
        ResetSchedule::never()
    } else {
        ResetSchedule::new(&mut rng, gap)
    };
    let mut model = DistributorModel::default();
    let mut report = Report::default();
    let mut offer: Option<RequestTicket> = None;
    let mut made = 0;
    let mut c = 0u64;
    while made < requests || offer.is_some() || model.eeprom_slot.is_some() {
        if offer.is_none() && made < requests && rng.chance(rate) {
            offer = Some(random_ticket(&mut rng));
            made += 1;
        }
        let rst = sched.drive(b, reset, &mut rng);
        report.resets += sched.released() as u64;
        b.poke_bool(rv, offer.is_some());
        let idle = rng.bits(hdl::mgmt::ticket::REQUEST_TICKET_BITS);
        b.poke(rd, offer.map_or(idle, |o| o.pack()));
        let readies: [bool; 2] = std::array::from_fn(|_| rng.chance(ready));
        for (k, o) in outs.iter().enumerate() {
            b.poke_bool(o.2, readies[k]);
        }
        let input = offer;
        let tag = format!("seed {seed} cycle {c}");
        let (want_ready, want_outs) = model.outputs(input.as_ref(), readies);
        let mut got_outs = [None; 2];
        for (k, o) in outs.iter().enumerate() {
            if b.peek_bool(o.0) {
                got_outs[k] = Some(RequestTicket::unpack(b.peek(o.1)));
            }
        }
        if !rst {
            if input.is_some() {
                assert_eq!(b.peek_bool(rr), want_ready, "{tag}: requests.ready");
                report.input_stalls += !want_ready as u64;
            }
            assert_eq!(got_outs, want_outs, "{tag}: outputs differ from the model");
            // Bit 0: a register request is offered (it has no slot); bit 1: the slot is full.
            let held = want_outs[0].is_some() as u128 | (model.eeprom_slot.is_some() as u128) << 1;
            assert_eq!(b.peek(held_port), held, "{tag}: held");
            for k in 0..2 {
                let Some(ticket) = got_outs[k].filter(|_| readies[k]) else {
                    continue;
                };
                *report.taken.entry(k).or_default() += 1;
                // The kind check, independent of the model.
                let eeprom_request = matches!(
                    NmpType::from_code(ticket.nmp_type),
                    Some(NmpType::EepReadRequest | NmpType::EepWriteRequest)
                );
                assert_eq!(eeprom_request, k == 1, "{tag}: ticket on output {k}");
                let known_request =
                    NmpType::from_code(ticket.nmp_type).is_some_and(|t| t.is_request());
                report.unknown_types_passed += (k == 0 && !known_request) as u64;
            }
        }
        let accepted = model.edge(rst, input.as_ref(), readies);
        b.tick();
        c += 1;
        if accepted {
            offer = None;
        }
        assert!(c < 100 * (requests as u64 + 10), "{tag}: hang");
    }
    report.cycles = c;
    report
}

fn table() -> testbench::PortTable<NmpDistributor> {
    port_table!(NmpDistributor; reset, requests.valid, requests.data, requests.ready,
        registers.valid, registers.data, registers.ready, eeprom.valid, eeprom.data,
        eeprom.ready, held)
}

#[test]
fn nmp_distributor_against_its_model() {
    for (i, (n, rate, ready, gap)) in [(200, 1.0, 1.0, 0), (400, 0.7, 0.4, 150)]
        .into_iter()
        .enumerate()
    {
        let seed = 400 + i as u64;
        let r = run_both("nmp_distributor", NmpDistributor::default, table, |b| {
            bench(b, seed, n, rate, ready, gap)
        })
        .result;
        println!("nmp_distributor run {i}: {r:?}");
        assert!(
            (0..2).all(|k| r.taken.get(&k).copied().unwrap_or(0) > 10),
            "{r:?}"
        );
        assert!(r.unknown_types_passed > 10, "{r:?}");
        if i == 0 {
            // Everything ready: one request per cycle, no stall.
            assert_eq!(r.input_stalls, 0, "{r:?}");
            assert_eq!(r.taken.values().sum::<u64>(), n as u64);
        } else {
            assert!(r.resets > 0 && r.input_stalls > 0, "{r:?}");
        }
    }
}
