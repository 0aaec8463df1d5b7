//! `EepBridge` against its model (`testbench::models::nma::EepBridgeModel`), every cycle, on
//! both backends. The bench plays the EEPROM unit: it takes commands with random `ready`,
//! answers each after a random latency with a random outcome (every `EepError`; random bytes
//! for reads, which the bridge must drop from error responses), and holds the result until
//! the bridge takes it. Requests: EEPROM reads and writes built with the codec, counts 0..7,
//! random addresses; random idle data while `requests.valid` is low and on the result port
//! while its `valid` is low; random `responses.ready`; reset at random moments (the fake unit
//! shares it and drops its command).
//!
//! Checked every cycle outside reset: the command offered (valid and fields),
//! `result.ready`, the response offered, `requests.ready`. Each response taken is decoded with
//! the codec and must be `MgmtPacket::response_to` of its request with the mapped error; each
//! command taken must be the request's (one command per request, none while one is
//! outstanding).
use hdl::formats::mgmt::{MgmtBeat, MgmtError, MgmtPacket, MgmtPayload, NmpType};
use hdl::mgmt::eep_access::EepError;
use hdl::mgmt::ticket::{RequestTicket, ResponseTicket, REQUEST_TICKET_BITS};
use hdl::mgmt::EepBridge;
use std::collections::BTreeMap;
use testbench::models::i2c_eeprom::{EepCommand, EepResult};
use testbench::models::mgmt::random_packet;
use testbench::models::nma::{eeprom_command, EepBridgeModel};
use testbench::models::packet_store::{response_packet, PackerSettings, ReadPortModel, StoreModel};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng};

const CHIP: u16 = 0x0a0e;

fn table() -> testbench::PortTable<EepBridge> {
    port_table!(EepBridge; reset, requests.valid, requests.data, requests.ready,
        responses.valid, responses.data, responses.ready, data.address, data.data,
        command.valid, command.write, command.address, command.count, command.data,
        command.ready, result.valid, result.data, result.error, result.ready)
}

/// A random EEPROM request: reads and writes, counts 0..=7 (mostly 1..=6), any address.
pub fn random_request(rng: &mut BenchRng) -> MgmtPacket {
    let mut p = random_packet(rng, CHIP);
    p.nmp_type = if rng.chance(0.5) {
        NmpType::EepReadRequest
    } else {
        NmpType::EepWriteRequest
    };
    p.error = MgmtError::None;
    let count = if rng.chance(0.1) {
        [0, 7][rng.range(0, 1) as usize]
    } else {
        rng.range(1, 6) as u8
    };
    p.payload = MgmtPayload::Eeprom {
        count,
        address: rng.bits(16) as u16,
        bytes: std::array::from_fn(|_| rng.bits(8) as u8),
    };
    p
}

/// The codec's reading of a response beat (the VC is not in a beat).
pub fn decode(b: &MgmtBeat) -> MgmtPacket {
    let head = hdl::formats::header::FabricHeader {
        dst: b.dst,
        src: b.src,
        vc: 0,
        kind: hdl::formats::PacketKind::Mgmt,
        len: hdl::formats::mgmt::MGMT_FLITS as u8,
        delay: 0,
    };
    MgmtPacket::from_words(&head, &b.words).expect("the codec decodes the response")
}

#[derive(Debug, Default, PartialEq)]
struct Report {
    cycles: u64,
    /// Responses taken by (type, error code).
    responses: BTreeMap<(u8, u8), u64>,
    resets: u64,
    cut: u64,
}

fn bench(b: &mut dyn Backend, seed: u64, requests: usize) -> Report {
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(n);
    let (reset, rv, rd, rr) = (
        p("reset"),
        p("requests$valid"),
        p("requests$data"),
        p("requests$ready"),
    );
    let (sa, sd) = (p("data$address"), p("data$data"));
    let (ov, od, or) = (
        p("responses$valid"),
        p("responses$data"),
        p("responses$ready"),
    );
    let (cv, cw, ca, cc, cd, cr) = (
        p("command$valid"),
        p("command$write"),
        p("command$address"),
        p("command$count"),
        p("command$data"),
        p("command$ready"),
    );
    let (xv, xd, xe, xr) = (
        p("result$valid"),
        p("result$data"),
        p("result$error"),
        p("result$ready"),
    );
    let mut sched = ResetSchedule::new(&mut rng, 150);
    let mut model = EepBridgeModel::default();
    let mut report = Report::default();
    // The request on offer; the fake unit's command (due cycle) and its result.
    let mut offer: Option<(MgmtPacket, MgmtBeat, RequestTicket)> = None;
    let mut unit: Option<(EepCommand, u64)> = None;
    let mut result: Option<EepResult> = None;
    let mut store = StoreModel::default();
    let mut read_port = ReadPortModel::default();
    let mut made = 0;
    let mut c = 0u64;
    while made < requests || offer.is_some() {
        if offer.is_none() && made < requests && rng.chance(0.5) {
            let p = random_request(&mut rng);
            let beat = MgmtBeat::of(&p);
            let slot = rng.bits(1) as u8;
            store.put_request(slot, &beat, rng.bits(5) as u8);
            offer = Some((p, beat, RequestTicket::of(&beat, slot)));
            made += 1;
        }
        let rst = sched.drive(b, reset, &mut rng);
        report.resets += sched.released() as u64;
        b.poke_bool(rv, offer.is_some());
        let idle = rng.bits(REQUEST_TICKET_BITS);
        b.poke(rd, offer.as_ref().map_or(idle, |o| o.2.pack()));
        b.poke(sd, read_port.data as u128 & ((1 << 48) - 1));
        // The fake unit offers its result once due.
        if result.is_none() {
            if let Some((cmd, _)) = unit.as_ref().filter(|u| u.1 <= c) {
                // A bad count is the unit's to refuse; otherwise any outcome.
                let error = if (1..=6).contains(&cmd.count) {
                    EepError::ALL[rng.range(0, 3) as usize]
                } else {
                    EepError::BadCount
                };
                let data = if !cmd.write && (error == EepError::None || rng.chance(0.5)) {
                    std::array::from_fn(|i| {
                        if i < cmd.count as usize {
                            rng.bits(8) as u8
                        } else {
                            0
                        }
                    })
                } else {
                    [0; 6]
                };
                result = Some(EepResult { data, error });
            }
        }
        b.poke_bool(xv, result.is_some());
        match &result {
            Some(r) => {
                let d = r
                    .data
                    .iter()
                    .enumerate()
                    .fold(0u128, |d, (i, &x)| d | (x as u128) << (8 * i));
                b.poke(xd, d);
                b.poke(xe, r.error.code() as u128);
            }
            None => {
                b.poke(xd, rng.bits(48));
                b.poke(xe, rng.bits(2));
            }
        }
        let command_ready = unit.is_none() && rng.chance(0.6);
        let responses_ready = rng.chance(0.6);
        b.poke_bool(cr, command_ready);
        b.poke_bool(or, responses_ready);
        let input = offer.as_ref().map(|o| o.2);
        let w6 = store.slot(input.map_or(0, |t| t.slot))[hdl::formats::mgmt::W_DATA0];
        let want = model.outputs(input.as_ref(), w6, result.as_ref(), responses_ready);
        let tag = format!("seed {seed} cycle {c}");
        if !rst {
            let got_command = b.peek_bool(cv).then(|| {
                let mut data = [0u8; 6];
                let d = b.peek(cd);
                for (i, x) in data.iter_mut().enumerate() {
                    *x = (d >> (8 * i)) as u8;
                }
                EepCommand {
                    write: b.peek_bool(cw),
                    address: b.peek(ca) as u32,
                    count: b.peek(cc) as u32,
                    data,
                }
            });
            assert_eq!(got_command, want.command, "{tag}: command");
            assert_eq!(b.peek_bool(xr), want.result_ready, "{tag}: result.ready");
            let got = b.peek_bool(ov).then(|| ResponseTicket::unpack(b.peek(od)));
            assert_eq!(got, want.response, "{tag}: response");
            if input.is_some() {
                assert_eq!(b.peek_bool(rr), want.consumed, "{tag}: requests.ready");
            }
        } else {
            assert!(
                !b.peek_bool(cv) && !b.peek_bool(ov),
                "{tag}: valid in reset"
            );
        }
        let result_taken = !rst && result.is_some() && want.result_ready;
        let consumed = model.edge(
            rst,
            input.as_ref(),
            w6,
            result.as_ref(),
            command_ready,
            responses_ready,
        );
        read_port.edge(&store, b.peek(sa) as usize);
        if rst {
            report.cut += unit.is_some() as u64;
            unit = None;
            result = None;
        } else {
            if let Some(cmd) = want.command.filter(|_| command_ready) {
                let request = offer.as_ref().map(|o| eeprom_command(&o.1));
                assert_eq!(Some(&cmd), request.as_ref());
                unit = Some((cmd, c + rng.range(1, 12)));
            }
            if result_taken {
                unit = None;
                result = None;
            }
        }
        if consumed {
            let (req, _, ticket) = offer.take().unwrap();
            let settings = PackerSettings {
                chip: CHIP,
                ..Default::default()
            };
            let (_, beat) =
                response_packet(&want.response.unwrap(), &store.slot(ticket.slot), &settings)
                    .unwrap();
            let got = decode(&beat);
            let mut expected = req;
            expected.vc = 0;
            assert_eq!(
                MgmtPacket::response_to(&expected, CHIP, got.error, got.payload),
                Some(got),
                "{tag}: not the codec's response"
            );
            *report
                .responses
                .entry((got.nmp_type.code(), got.error.code()))
                .or_default() += 1;
        }
        b.tick();
        c += 1;
        assert!(c < 100 * (requests as u64 + 10), "{tag}: hang");
    }
    report.cycles = c;
    report
}

#[test]
fn eep_bridge_against_its_model() {
    let r = run_both("eep_bridge", EepBridge::default, table, |b| {
        bench(b, 41, 300)
    })
    .result;
    println!("eep_bridge: {r:?}");
    for t in [
        NmpType::EepReadResponse,
        NmpType::EepWriteResponse,
        NmpType::EepErrorResponse,
    ] {
        assert!(
            r.responses.keys().any(|k| k.0 == t.code()),
            "no {t:?}: {r:?}"
        );
    }
    for e in [
        MgmtError::EepromNack,
        MgmtError::BadCount,
        MgmtError::EepromRange,
    ] {
        assert!(
            r.responses.keys().any(|k| k.1 == e.code()),
            "no {e:?}: {r:?}"
        );
    }
    assert!(r.resets >= 5 && r.cut >= 1, "{r:?}");
}
