//! MgmtTransit (source routing of management packets between a DAMQ's intake and store)
//! against the format's own rule (`MgmtPacket::take_hop`, `packet_crc`), on both backends.
//!
//! The world stores flits as an intake would: whole packets per VC, VCs interleaved flit by
//! flit, random idle with random lines while `valid` is low. Packets: management packets on the
//! management VC with random routes (forward routes of 0 to 20 hops, `current` anywhere from 0
//! to `hop_num`, backward routes of 0 to 20 hops, hops that are ports and hops that are not),
//! malformed ones (`hop_num` above 20, `current` above `hop_num`), some with a wrong CRC, some
//! closed early by a TailBadPkt; management heads of another length; data packets on the
//! management VC and on the others. Every cycle the stored flit must be the arriving one,
//! except in a transit packet: `w1`, `w3`, `w4` as `take_hop` leaves them and the tail's CRC
//! fixed (a wrong CRC stays exactly as wrong). Decisions, in order, one per 10-flit management
//! packet: agent when the route ends here, drop when malformed, else transit with
//! `F.hops[current - 1]`. Reset at random moments under traffic (the packet in progress and
//! the decisions not yet taken are gone).
#![allow(clippy::needless_range_loop)] // per-VC packet state is indexed by VC
use hdl::formats::flit::{ControlCode, Flit};
use hdl::formats::header::{FabricHeader, PacketKind};
use hdl::formats::mgmt::{
    packet_crc, unpack_words, MgmtPacket, Route, MGMT_FLITS, MGMT_WORDS, ROUTE_HOPS, W_BACKWARD,
    W_BACKWARD_HIGH, W_FORWARD, W_FORWARD_HIGH,
};
use hdl::formats::FLIT_BITS;
use nrc::port::mgmt_transit::{MgmtTransit, DROP, TO_AGENT, TRANSIT};
use std::collections::VecDeque;
use testbench::models::formats::{random_body_flit, random_head_flit, random_tail_flit};
use testbench::{port_table, run_both, Backend, BenchRng, PortTable, ResetSchedule};

type Dut = MgmtTransit<2>;
const VCS: usize = 3;
const MGMT_VC: usize = 1;
const PORT: u8 = 3;
const PORTS: usize = 5;

fn table() -> PortTable<Dut> {
    port_table!(Dut; reset, arriving.valid, arriving.vc, arriving.flit, storing.valid,
        storing.vc, storing.flit, decisions.valid, decisions.data, decisions.ready)
}

/// A packet to store, what must be stored, and the decision it must get.
struct Item {
    flits: Vec<u128>,
    stored: Vec<u128>,
    decision: Option<u64>,
}

fn random_route(rng: &mut BenchRng, forward: bool) -> Route {
    let hop_num = rng.range(0, ROUTE_HOPS as u64) as u8;
    let mut hops = [0u8; ROUTE_HOPS];
    for h in hops.iter_mut().take(hop_num as usize) {
        // Mostly ports of this router, sometimes not.
        *h = if rng.chance(0.9) {
            rng.range(0, PORTS as u64 - 1) as u8
        } else {
            rng.range(PORTS as u64, 31) as u8
        };
    }
    Route {
        hop_num,
        current: if forward {
            rng.range(0, hop_num as u64) as u8
        } else {
            0
        },
        hops,
    }
}

/// A management packet and what the block must make of it.
fn mgmt_item(rng: &mut BenchRng) -> Item {
    let mut words = [0u64; MGMT_WORDS];
    for w in words.iter_mut() {
        *w = rng.bits(64) as u64;
    }
    let mut forward = random_route(rng, true);
    let backward = random_route(rng, false);
    if rng.chance(0.05) {
        forward.hop_num = rng.range(21, 31) as u8;
    }
    if rng.chance(0.05) {
        forward.current = forward
            .hop_num
            .saturating_add(rng.range(1, 5) as u8)
            .min(31);
    }
    [words[W_FORWARD], words[W_FORWARD_HIGH]] = forward.words(true);
    [words[W_BACKWARD], words[W_BACKWARD_HIGH]] = backward.words(false);
    let head = FabricHeader {
        vc: MGMT_VC as u8,
        ..testbench::models::formats::random_header(rng, MGMT_FLITS as u8)
    };
    let mut flits = hdl::formats::mgmt::pack_words(head, &words);
    if rng.chance(0.1) {
        flits[MGMT_FLITS - 1] ^= 1 << rng.range(0, 15); // a wrong CRC
    }
    let (_, old) = unpack_words(&flits).unwrap_or_else(|_| {
        // A wrong CRC: take the words back by hand.
        let mut w = [0u64; MGMT_WORDS];
        for (k, x) in w.iter_mut().enumerate() {
            *x = flits[1 + k] as u64;
        }
        (head, w)
    });
    // The rule: malformed, arrived, or forwarded with the routes updated.
    let malformed = forward.forward_fault().is_some() || backward.backward_fault().is_some();
    let mut stored = flits.clone();
    // `w1` is rewritten as soon as the forward route is seen good (a later finding, a full
    // backward route or a hop that is no port, drops the packet whole anyway).
    if forward.current != 0 && forward.forward_fault().is_none() {
        let f = Route {
            current: forward.current - 1,
            ..forward
        };
        stored[1 + W_FORWARD] = Flit::Body(f.words(true)[0]).pack();
    }
    let decision = if forward.current == 0 {
        TO_AGENT
    } else if malformed {
        DROP
    } else {
        let mut f = forward;
        let mut b = backward;
        b.hops[b.hop_num as usize] = PORT;
        b.hop_num += 1;
        f.current -= 1;
        let next = f.hops[f.current as usize];
        if next as usize >= PORTS {
            DROP
        } else {
            let mut new = old;
            [new[W_FORWARD], new[W_FORWARD_HIGH]] = f.words(true);
            [new[W_BACKWARD], new[W_BACKWARD_HIGH]] = b.words(false);
            for k in 0..MGMT_WORDS {
                stored[1 + k] = Flit::Body(new[k]).pack();
            }
            let fix = packet_crc(flits[0] as u64, &old) ^ packet_crc(flits[0] as u64, &new);
            stored[MGMT_FLITS - 1] ^= fix as u128;
            TRANSIT | (next as u64) << 2
        }
    };
    // Sometimes closed early by a TailBadPkt (the intake's cut): stored as it comes, decided
    // at the close if before w3.
    if rng.chance(0.08) {
        let at = rng.range(1, MGMT_FLITS as u64 - 1) as usize;
        let bad = testbench::models::formats::random_control(rng, ControlCode::TailBadPkt);
        let mut cut = flits[..at].to_vec();
        cut.push(bad);
        let mut cut_stored = stored[..at].to_vec();
        cut_stored.push(bad);
        let decision = if at <= 4 { TO_AGENT } else { decision };
        // Before w3 no rewrite has happened except w1's, which a forwarded packet keeps.
        return Item {
            flits: cut,
            stored: cut_stored,
            decision: Some(decision),
        };
    }
    Item {
        flits,
        stored,
        decision: Some(decision),
    }
}

/// A packet the block must leave alone.
fn plain_item(rng: &mut BenchRng, mgmt_kind: bool) -> Item {
    let len = rng.range(2, 14) as u8;
    let len = if mgmt_kind && len == MGMT_FLITS as u8 {
        11
    } else {
        len
    };
    let mut head = Flit::unpack(random_head_flit(rng, len)).ok();
    let mut flits = vec![];
    if let Some(Flit::Head(ref mut h)) = head {
        if mgmt_kind {
            h.kind = PacketKind::Mgmt;
        } else if h.kind == PacketKind::Mgmt {
            h.kind = PacketKind::Put;
        }
        flits.push(Flit::Head(*h).pack());
    }
    for _ in 2..len {
        flits.push(random_body_flit(rng));
    }
    flits.push(random_tail_flit(rng));
    Item {
        stored: flits.clone(),
        flits,
        decision: None,
    }
}

/// (transit, agent, drop decisions, reset pulses).
type Outcome = (u64, u64, u64, u64);

fn bench(b: &mut dyn Backend, seed: u64) -> Outcome {
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(n);
    let (reset, valid, vc, flit) = (
        p("reset"),
        p("arriving$valid"),
        p("arriving$vc"),
        p("arriving$flit"),
    );
    let (s_valid, s_vc, s_flit) = (p("storing$valid"), p("storing$vc"), p("storing$flit"));
    let (d_valid, d_data, d_ready) = (
        p("decisions$valid"),
        p("decisions$data"),
        p("decisions$ready"),
    );
    let mut sched = ResetSchedule::new(&mut rng, 900);
    // Per VC: the item being stored and the next flit.
    let mut current: Vec<Option<(Item, usize)>> = (0..VCS).map(|_| None).collect();
    let mut expected: VecDeque<u64> = VecDeque::new();
    let (mut transit, mut agent, mut dropped) = (0u64, 0u64, 0u64);
    b.poke_bool(reset, true);
    b.tick();
    for cycle in 0..8000u64 {
        let rst = sched.next(&mut rng);
        b.poke_bool(reset, rst);
        for v in 0..VCS {
            if current[v].is_none() {
                let item = if v == MGMT_VC && rng.chance(0.7) {
                    mgmt_item(&mut rng)
                } else {
                    let mgmt_kind = v == MGMT_VC && rng.chance(0.2);
                    plain_item(&mut rng, mgmt_kind)
                };
                current[v] = Some((item, 0));
            }
        }
        let send = rng.chance(0.8);
        let v = rng.range(0, VCS as u64 - 1) as usize;
        let mut sent = None;
        if send {
            let (item, k) = current[v].as_ref().unwrap();
            sent = Some((v, item.flits[*k], item.stored[*k]));
            b.poke_bool(valid, true);
            b.poke(vc, v as u128);
            b.poke(flit, item.flits[*k]);
        } else {
            b.poke_bool(valid, false);
            b.poke(vc, rng.bits(2));
            b.poke(flit, rng.bits(FLIT_BITS));
        }
        let take = rng.chance(0.6);
        b.poke_bool(d_ready, take);
        assert_eq!(b.peek_bool(s_valid), send, "cycle {cycle}: storing.valid");
        if let Some((v, _, want)) = sent {
            assert_eq!(b.peek(s_vc) as usize, v, "cycle {cycle}: storing.vc");
            assert_eq!(
                b.peek(s_flit),
                want,
                "cycle {cycle}: VC {v} flit {} stored wrong",
                current[v].as_ref().unwrap().1
            );
        }
        if b.peek_bool(d_valid) && take && !rst {
            let d = b.peek(d_data) as u64;
            let want = expected.pop_front().expect("a decision nobody asked for");
            // The port is the decision's only for transit.
            let mask = if want & 3 == TRANSIT { u64::MAX } else { 3 };
            assert_eq!(d & mask, want, "cycle {cycle}: decision");
            match d & 3 {
                TRANSIT => transit += 1,
                TO_AGENT => agent += 1,
                _ => dropped += 1,
            }
        }
        b.tick();
        if rst {
            for c in current.iter_mut() {
                *c = None;
            }
            expected.clear();
            continue;
        }
        if let Some((v, _, _)) = sent {
            let (item, k) = current[v].as_mut().unwrap();
            *k += 1;
            // The decision is due when w3 is stored, or at an early end.
            if let Some(d) = item.decision {
                if *k == 5 || (*k == item.flits.len() && item.flits.len() <= 5) {
                    expected.push_back(d);
                }
            }
            if *k == item.flits.len() {
                current[v] = None;
            }
        }
    }
    sched.assert_pulses("mgmt_transit", 3);
    (transit, agent, dropped, sched.pulses())
}

#[test]
fn mgmt_transit_rewrites_and_decides_by_the_rule() {
    let (t, a, d, _) = run_both(
        "mgmt_transit",
        || Dut::new(MGMT_VC, PORT as usize, PORTS),
        table,
        |b| bench(b, 1),
    )
    .result;
    assert!(
        t > 50 && a > 10 && d > 10,
        "transit {t}, agent {a}, drop {d}"
    );
}

#[test]
fn a_decoded_forward_packet_is_well_formed() {
    // The rule itself, on the codec: a good request forwarded twice still unpacks, with the
    // backward route holding the ports it came in on.
    let mut p = MgmtPacket::unpack(
        &testbench::mgmt_client::MgmtClient::new(testbench::mgmt_client::ClientConfig {
            node_id: 1,
            mgmt_vc: MGMT_VC as u8,
            vp: 1,
            timeout: 1,
            retries: 0,
        })
        .packet(
            &testbench::mgmt_client::Target {
                chip_id: 0xffff,
                chip_type: hdl::formats::mgmt::DestType::Nrc,
                entry_port: 0,
                path: vec![2, 4],
            },
            &testbench::mgmt_client::Operation::ReadRegisters(vec![0x40]),
            7,
        )
        .unwrap()
        .pack(),
    )
    .unwrap();
    assert_eq!(p.take_hop(1), hdl::formats::mgmt::Hop::Forward(2));
    assert_eq!(p.take_hop(3), hdl::formats::mgmt::Hop::Forward(4));
    assert_eq!(p.backward.path(), vec![3, 1]);
}
