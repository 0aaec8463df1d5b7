//! ChannelReceiver (a router channel into per-VC buffers and streams; freed slots are the
//! credits) against its model (`testbench::models::channel_port`), every output every cycle,
//! on both backends, with register buffers (depth 4) and block-RAM buffers (depth 32).
//!
//! The world: a credit-obeying sender of packets on every VC, interleaving VCs flit by flit,
//! with random idle (random flit and VC while `valid` is low); a consumer per VC with random
//! backpressure; `discard` raised for a stretch (nothing offered, the buffers drained one flit a
//! cycle, every credit back); `reset` at random moments under traffic. Checked besides the
//! model (a FIFO per VC: what the streams give is what was sent, in order, except what was
//! discarded): the sender's credits always come back (its count returns to `credits` when idle, so the
//! buffer it was promised exists); discarded flits and heads are counted exactly. The
//! violation run sends without credit and on VCs out of range: dropped, an event each.
//!
//! The whole-packets runs (`ChannelReceiver::whole_packets`) end some packets with a
//! `TailBadPkt` marker instead of a tail and check, besides the model, that a VC once it offers
//! a packet's head offers every flit of it back to back up to its end (the consumer never waits
//! inside a packet); one run sends packets longer than the buffer (the full buffer is offered
//! anyway, so nothing stays stuck).
#![allow(clippy::needless_range_loop)] // per-VC buffers, consumers and credits are indexed by VC
use hdl::formats::flit::{ControlCode, CODE};
use hdl::formats::FLIT_BITS;
use std::collections::VecDeque;
use testbench::models::channel_port::{is_packet_end, ChannelReceiverModel};
use testbench::models::formats::{random_body_flit, random_head_flit, random_tail_flit};
use testbench::models::stream::{Receiver, StreamPorts};
use testbench::rhdl::SimValue;
use testbench::{port_table, run_both, Backend, BenchRng, PortTable, ResetSchedule};

type Small = hdl::channel_receiver!(3, 4);
type Deep = hdl::channel_receiver!(2, 32);

macro_rules! table_for {
    ($t:ty, $vcs:expr) => {{
        let mut t: PortTable<$t> = port_table!($t; reset, channel.valid, channel.flit,
            channel.vc, channel.credits, discard, discarded, discarded_heads, events);
        for v in 0..$vcs {
            t.add(
                format!("sources${v}$valid"),
                move |x: &mut $t, b| x.sources[v].valid.next = SimValue::from_u128(b),
                move |x: &$t| SimValue::to_u128(&x.sources[v].valid.val()),
            );
            t.add_full(
                format!("sources${v}$data"),
                move |x: &mut $t, b| x.sources[v].data.next = SimValue::from_u128(b),
                move |x: &$t| SimValue::to_u128(&x.sources[v].data.val()),
                move |x: &mut $t, w: &[u64]| x.sources[v].data.next = SimValue::from_words(w),
                move |x: &$t| SimValue::to_words(&x.sources[v].data.val()),
            );
            t.add(
                format!("sources${v}$ready"),
                move |x: &mut $t, b| x.sources[v].ready.next = SimValue::from_u128(b),
                move |x: &$t| SimValue::to_u128(&x.sources[v].ready.val()),
            );
        }
        t
    }};
}

#[derive(Clone, Copy)]
struct Run {
    vcs: usize,
    depth: usize,
    credits: usize,
    seed: u64,
    send: f64,
    take: f64,
    /// Chance per cycle of a flit sent without credit or on a VC out of range.
    violate: f64,
    resets: bool,
    cycles: u64,
    /// The whole-packets option.
    whole: bool,
    /// Longest packet sent (flits).
    max_len: u64,
}

/// (flits delivered, flits discarded, heads discarded, drop events).
type Outcome = (u64, u64, u64, u64);

fn bench(b: &mut dyn Backend, r: Run) -> Outcome {
    let mut rng = BenchRng::new(r.seed);
    let vcs = r.vcs;
    let vc_bits = hdl::channel::channel_vc_bits(vcs);
    let mut model = ChannelReceiverModel::new(vcs, r.depth);
    if r.whole {
        model = model.whole_packets();
    }
    // Whole packets, packets that fit: per VC, inside a packet being offered.
    let check_runs = r.whole && r.max_len <= r.depth as u64 && r.violate == 0.0;
    let mut inside = vec![false; vcs];
    let mut consumers: Vec<Receiver> = (0..vcs)
        .map(|v| Receiver::new(StreamPorts::new(b, &format!("sources${v}")), r.take))
        .collect();
    let p = |n: &str| b.port(n);
    let (reset, valid, flit, vc, credits, discard) = (
        p("reset"),
        p("channel$valid"),
        p("channel$flit"),
        p("channel$vc"),
        p("channel$credits"),
        p("discard"),
    );
    let (discarded, discarded_heads, events) = (p("discarded"), p("discarded_heads"), p("events"));
    let mut sched = if r.resets {
        ResetSchedule::new(&mut rng, 500)
    } else {
        ResetSchedule::never()
    };
    // The sender: per VC the packet in progress and its credits.
    let mut pending: Vec<VecDeque<u128>> = vec![VecDeque::new(); vcs];
    let mut credit = vec![r.credits; vcs];
    let window = (r.cycles / 2, r.cycles / 2 + 300);
    let (mut delivered, mut gone, mut gone_heads, mut drops) = (0u64, 0u64, 0u64, 0u64);
    for cycle in 0..r.cycles + 400 {
        let tail_end = cycle >= r.cycles;
        let rst = sched.next_if(&mut rng, !tail_end);
        b.poke_bool(reset, rst);
        let dis = (window.0..window.1).contains(&cycle);
        b.poke_bool(discard, dis);
        for v in 0..vcs {
            if pending[v].is_empty() && !tail_end {
                let len = rng.range(2, r.max_len) as u8;
                pending[v].push_back(random_head_flit(&mut rng, len));
                for _ in 2..len {
                    pending[v].push_back(random_body_flit(&mut rng));
                }
                if r.whole && rng.chance(0.1) {
                    // A packet closed as bad by an upstream router.
                    pending[v].push_back(CODE.set(0, ControlCode::TailBadPkt.code() as u128));
                } else {
                    pending[v].push_back(random_tail_flit(&mut rng));
                }
            }
            consumers[v].drive(b, &mut rng);
        }
        // Send: a VC with a flit and a credit, at random; or a violation.
        let able: Vec<usize> = (0..vcs)
            .filter(|&v| !pending[v].is_empty() && credit[v] > 0)
            .collect();
        let mut sent: Option<(usize, u128)> = None;
        let violation = !tail_end && rng.chance(r.violate);
        if violation {
            // Out of range when possible, else a VC without credit (an overflow if full).
            let v = if (vcs as u64) < (1 << vc_bits) && rng.chance(0.5) {
                rng.range(vcs as u64, (1 << vc_bits) - 1) as usize
            } else {
                rng.range(0, vcs as u64 - 1) as usize
            };
            sent = Some((v, rng.bits(FLIT_BITS)));
        } else if !able.is_empty() && rng.chance(r.send) {
            let v = able[rng.range(0, able.len() as u64 - 1) as usize];
            sent = Some((v, pending[v].pop_front().unwrap()));
            credit[v] -= 1;
        }
        match sent {
            Some((v, f)) => {
                b.poke_bool(valid, true);
                b.poke(flit, f);
                b.poke(vc, v as u128);
            }
            None => {
                b.poke_bool(valid, false);
                b.poke(flit, rng.bits(FLIT_BITS));
                b.poke(vc, rng.bits(vc_bits));
            }
        }
        let want = model.outputs(dis, rst);
        assert_eq!(
            b.peek(credits) as u64,
            want.credits,
            "cycle {cycle}: credits"
        );
        assert_eq!(b.peek(events) as u64, want.events, "cycle {cycle}: events");
        assert_eq!(
            (b.peek_bool(discarded), b.peek_bool(discarded_heads)),
            (want.discarded, want.discarded_head),
            "cycle {cycle}: discarded"
        );
        for v in 0..vcs {
            let got = b.peek_bool(consumers[v].ports.valid);
            assert_eq!(got, want.offers[v].is_some(), "cycle {cycle}: VC {v} valid");
            if check_runs && !dis && !rst {
                assert!(
                    got || !inside[v],
                    "cycle {cycle}: VC {v} waits inside a packet"
                );
            }
            if got {
                assert_eq!(
                    Some(b.peek(consumers[v].ports.data)),
                    want.offers[v],
                    "cycle {cycle}: VC {v} data"
                );
            }
        }
        let returned = want.credits;
        drops += want.events.count_ones() as u64;
        if want.discarded {
            gone += 1;
            gone_heads += want.discarded_head as u64;
        }
        let mut ready = 0u64;
        for v in 0..vcs {
            if dis {
                // Discard withdraws the offers (the link behind them is gone).
                consumers[v].reset();
                inside[v] = false;
            }
            if let Some(f) = consumers[v].fired(b) {
                delivered += 1;
                ready |= 1 << v;
                inside[v] = !is_packet_end(f);
            } else if b.peek_bool(consumers[v].ports.ready) {
                ready |= 1 << v;
            }
        }
        let (sv, sf, svc) = match sent {
            Some((v, f)) => (true, f, v),
            None => (false, 0, 0),
        };
        model.edge(rst, sv, sf, svc, ready, dis);
        b.tick();
        // Credits: each returned bit pays one back (the sender spends them from the next cycle).
        for v in 0..vcs {
            if returned >> v & 1 == 1 && !rst {
                credit[v] += 1;
            }
        }
        if rst {
            for v in 0..vcs {
                pending[v].clear();
                credit[v] = r.credits;
                consumers[v].reset();
                inside[v] = false;
            }
        }
    }
    if r.violate == 0.0 {
        for v in 0..vcs {
            assert_eq!(
                credit[v], r.credits,
                "VC {v}: the credits did not all come back when idle"
            );
        }
        assert_eq!(drops, 0, "no drop event without a violation");
    }
    if r.resets {
        sched.assert_pulses("channel_receiver", 3);
    }
    (delivered, gone, gone_heads, drops)
}

const BASE: Run = Run {
    vcs: 3,
    depth: 4,
    credits: 4,
    seed: 1,
    send: 0.8,
    take: 0.6,
    violate: 0.0,
    resets: true,
    cycles: 4000,
    whole: false,
    max_len: 6,
};

#[test]
fn channel_receiver_matches_model() {
    let small = |r: Run| {
        run_both(
            "channel_receiver",
            || Small::new(r.credits),
            || table_for!(Small, 3),
            |b| bench(b, r),
        )
        .result
    };
    let (n, gone, heads, _) = small(BASE);
    assert!(n > 1500 && gone > 100 && heads > 10, "{n} {gone} {heads}");
    let (n, _, _, _) = small(Run {
        seed: 2,
        send: 1.0,
        take: 1.0,
        resets: false,
        ..BASE
    });
    assert!(n > 3000, "full rate: {n}");
    let (_, _, _, drops) = small(Run {
        seed: 3,
        violate: 0.02,
        resets: false,
        ..BASE
    });
    assert!(drops > 20, "violations dropped and counted: {drops}");
}

#[test]
fn channel_receiver_in_block_ram_matches_model() {
    let r = Run {
        vcs: 2,
        depth: 32,
        credits: 32,
        seed: 5,
        take: 0.4,
        ..BASE
    };
    let (n, gone, _, _) = run_both(
        "channel_receiver_deep",
        || Deep::new(r.credits),
        || table_for!(Deep, 2),
        |b| bench(b, r),
    )
    .result;
    assert!(n > 1000 && gone > 100, "{n} {gone}");
}

#[test]
#[should_panic(expected = "credits per VC must be 1..=D")]
fn more_credits_than_slots_are_refused() {
    let _ = Small::new(5);
}

#[test]
fn channel_receiver_whole_packets_match_model() {
    let small = |r: Run| {
        run_both(
            "channel_receiver_whole",
            || Small::new(r.credits).whole_packets(4),
            || table_for!(Small, 3),
            |b| bench(b, r),
        )
        .result
    };
    // Packets that fit: every packet offered back to back once its end is buffered.
    let (n, gone, _, _) = small(Run {
        seed: 11,
        whole: true,
        max_len: 4,
        ..BASE
    });
    assert!(n > 1500 && gone > 50, "{n} {gone}");
    // Packets longer than the buffer: offered when the buffer is full, never stuck.
    let (n, _, _, _) = small(Run {
        seed: 12,
        whole: true,
        max_len: 7,
        resets: false,
        ..BASE
    });
    assert!(n > 1500, "long packets: {n}");
    let r = Run {
        vcs: 2,
        depth: 32,
        credits: 32,
        seed: 13,
        take: 0.4,
        whole: true,
        max_len: 32,
        ..BASE
    };
    let (n, _, _, _) = run_both(
        "channel_receiver_whole_deep",
        || Deep::new(r.credits).whole_packets(32),
        || table_for!(Deep, 2),
        |b| bench(b, r),
    )
    .result;
    assert!(n > 1000, "{n}");
}

#[test]
#[should_panic(expected = "whole packets need buffers of at least max_packet_flits")]
fn whole_packets_need_room_for_the_largest() {
    let _ = Small::new(4).whole_packets(5);
}
