//! `NetworkSend` (nic::dma: the send engine's packets and the management agent's flits onto
//! one credit-flow-controlled channel) on both backends, against a per-VC reference: every
//! flit on the channel is the next one its VC's source sent (packet flits on the VC `vc`
//! named, management flits on the management VC), never on a VC whose receiver has no free
//! slot, and nothing is lost or invented.
//!
//! The world: 3 VCs, management on VC 1, packets on VCs 0 and 2 (whole packets of 1..=6
//! flits, `vc` held for the packet), a receiver with 6 slots per VC that drains at random
//! and returns each credit one cycle after it frees the slot. For a long window the receiver
//! stops draining VC 0: management flits must keep flowing through it. Now and then the packet
//! source offers a flit on the management VC or on VC 3 (a broken send engine) for a few
//! cycles and withdraws it: `stray` must pulse in exactly those cycles and nothing may leave.
#![allow(clippy::needless_range_loop)] // per-VC queues are indexed by VC
use nic::dma::NetworkSend;
use std::collections::VecDeque;
use testbench::{port_table, run_both, Backend, BenchRng, PortTable};

type Device = NetworkSend<3, 2>;
const VCS: usize = 3;
const SLOTS: usize = 6;
const MANAGEMENT_VC: usize = 1;

fn table() -> PortTable<Device> {
    port_table!(Device; reset, packets.valid, packets.data, packets.ready, vc,
        management.valid, management.data, management.ready,
        channel.valid, channel.flit, channel.vc, channel.credits, error, stray)
}

/// What a run counted.
#[derive(Debug, PartialEq)]
struct Report {
    flits: [u64; VCS],
    stray_cycles: u64,
    management_in_stall: u64,
}

fn bench(b: &mut dyn Backend, seed: u64) -> Report {
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(n);
    let (reset, pv, pd, pr, vc) = (
        p("reset"),
        p("packets$valid"),
        p("packets$data"),
        p("packets$ready"),
        p("vc"),
    );
    let (mv, md, mr) = (
        p("management$valid"),
        p("management$data"),
        p("management$ready"),
    );
    let (cv, cf, cc, credits, error, stray) = (
        p("channel$valid"),
        p("channel$flit"),
        p("channel$vc"),
        p("channel$credits"),
        p("error"),
        p("stray"),
    );
    b.poke_bool(reset, true);
    b.tick();
    b.poke_bool(reset, false);
    // Sent but not yet seen on the channel, per VC.
    let mut sent: [VecDeque<u128>; VCS] = Default::default();
    // Receiver: flits held per VC; credits owed back next cycle.
    let mut held = [0usize; VCS];
    let mut owed = [false; VCS];
    let mut serial = 1u128;
    // The packet source: (vc, flits left) of the packet in progress; the flit on offer.
    let mut packet: Option<(usize, usize)> = None;
    let mut offer: Option<u128> = None;
    let mut stray_left = 0u64;
    let mut management: Option<u128> = None;
    let mut r = Report {
        flits: [0; VCS],
        stray_cycles: 0,
        management_in_stall: 0,
    };
    let cycles = 20_000u64;
    for k in 0..cycles + 400 {
        let drain_phase = k >= cycles;
        let stall = (6000..9000).contains(&k);
        // Packet source.
        if offer.is_none() && stray_left == 0 && !drain_phase {
            if rng.chance(0.005) {
                stray_left = rng.range(1, 4);
            } else if rng.chance(0.6) {
                if packet.is_none() {
                    packet = Some((
                        if rng.chance(0.5) { 0 } else { 2 },
                        rng.range(1, 6) as usize,
                    ));
                }
                offer = Some(serial << 8);
                serial += 1;
            }
        }
        let (offer_vc, offer_valid, offer_data) = if stray_left > 0 {
            (
                if rng.chance(0.5) { MANAGEMENT_VC } else { 3 },
                true,
                rng.bits(64),
            )
        } else {
            let v = packet.map_or(0, |p| p.0);
            (v, offer.is_some(), offer.unwrap_or(rng.bits(64)))
        };
        b.poke_bool(pv, offer_valid);
        b.poke(pd, offer_data | offer_vc as u128);
        b.poke(vc, offer_vc as u128);
        // Management source.
        if management.is_none() && !drain_phase && rng.chance(0.3) {
            management = Some((serial << 8) | MANAGEMENT_VC as u128);
            serial += 1;
        }
        b.poke_bool(mv, management.is_some());
        b.poke(md, management.unwrap_or(rng.bits(64)));
        // Credits freed last cycle come back now.
        let mut bits = 0u128;
        for v in 0..VCS {
            if owed[v] {
                bits |= 1 << v;
            }
        }
        b.poke(credits, bits);
        // The channel this cycle.
        if b.peek_bool(cv) {
            let (v, f) = (b.peek(cc) as usize, b.peek(cf));
            assert!(v < VCS, "seed {seed} cycle {k}: a flit on VC {v}");
            assert!(
                held[v] < SLOTS,
                "seed {seed} cycle {k}: VC {v} overran its receiver"
            );
            let want = sent[v].pop_front();
            assert_eq!(
                want,
                Some(f),
                "seed {seed} cycle {k}: VC {v} carried the wrong flit"
            );
            held[v] += 1;
            r.flits[v] += 1;
            if stall && v == MANAGEMENT_VC {
                r.management_in_stall += 1;
            }
        }
        assert!(!b.peek_bool(error), "seed {seed} cycle {k}: error");
        let is_stray = b.peek_bool(stray);
        assert_eq!(is_stray, stray_left > 0, "seed {seed} cycle {k}: stray");
        r.stray_cycles += is_stray as u64;
        // What the sender takes on this edge.
        if offer.is_some() && stray_left == 0 && b.peek_bool(pr) {
            let (v, left) = packet.expect("a packet");
            sent[v].push_back(offer.take().expect("offered") | v as u128);
            packet = (left > 1).then_some((v, left - 1));
        }
        assert!(
            !(stray_left > 0 && b.peek_bool(pr)),
            "seed {seed} cycle {k}: a stray flit taken"
        );
        stray_left = stray_left.saturating_sub(1);
        if management.is_some() && b.peek_bool(mr) {
            sent[MANAGEMENT_VC].push_back(management.take().expect("offered"));
        }
        // The receiver drains (never VC 0 in the stall window), one credit per VC per cycle.
        for v in 0..VCS {
            owed[v] = false;
            let drains = drain_phase || (!(stall && v == 0) && rng.chance(0.4));
            if held[v] > 0 && drains {
                held[v] -= 1;
                owed[v] = true;
            }
        }
        b.tick();
    }
    for v in 0..VCS {
        assert!(
            sent[v].is_empty(),
            "seed {seed}: VC {v} still owes {:?}",
            sent[v]
        );
    }
    assert!(r.stray_cycles > 10, "seed {seed}: strays tried: {r:?}");
    assert!(
        r.management_in_stall > 300,
        "seed {seed}: management flits while VC 0 stalled: {r:?}"
    );
    r
}

#[test]
fn network_send_keeps_order_and_credits() {
    for seed in [31, 32] {
        let r = run_both(
            "network_send",
            || Device::new(SLOTS, MANAGEMENT_VC, &[0, 2]),
            table,
            |b| bench(b, seed),
        );
        println!("network_send seed {seed}: {:?}", r.result);
    }
}
