//! The fat-tree fabric on Verilator (`testbench::fabric`): six `nrc_top` routers (4 leaves, 2
//! spines), twelve NIC link ports, every link through the lane-channel model with bit errors,
//! route tables computed by the up/down routing function and loaded in band by the management
//! client on NIC 0 (management transit through the routers on the way). Each model is built
//! once per process; the longer runs and the throughput figures are `bench -- fabric`.
#![allow(clippy::needless_range_loop)] // NICs and the permutation are indexed by NIC number
use hdl::formats::mgmt::MAX_REGISTERS;
use hdl::llp::regs::{peer_value, settings_value, STATUS_LANES_REMOVED};
use std::collections::{BTreeMap, BTreeSet};
use testbench::fabric::routing::{
    leaf_of, links, spine, End, LEAVES, NICS, NICS_PER_LEAF, ROUTERS, ROUTER_PORTS,
};
use testbench::fabric::FabricWorld;
use testbench::mgmt_client::{Operation, Reply};

/// A fabric with every table loaded in band; checks every write and reads entries back.
fn loaded(seed: u64) -> FabricWorld {
    let mut w = FabricWorld::new(1e-5, seed);
    for r in 0..ROUTERS {
        w.load_table(r);
    }
    for c in w.settle(400_000) {
        assert_eq!(c.outcome, Ok(Reply::Written), "{c:?}");
    }
    // Read a few entries back through the indirect registers.
    let (index, read) = (
        FabricWorld::address("route_index"),
        FabricWorld::address("route_read"),
    );
    for r in [0, 3, spine(1)] {
        let t = w.target(r).unwrap();
        w.client
            .submit(t.clone(), Operation::WriteRegisters(vec![(index, 7)]));
        w.settle(100_000);
        w.client.submit(t, Operation::ReadRegisters(vec![read]));
        let c = w.settle(100_000);
        let want = testbench::fabric::routing::table(r, &BTreeSet::new())[7];
        assert_eq!(
            c[0].outcome,
            Ok(Reply::Registers(vec![want as u64])),
            "router {r}"
        );
    }
    w
}

/// Uniform random traffic at `rate` packets per NIC and cycle for `cycles`.
fn uniform(w: &mut FabricWorld, rate: f64, cycles: u64) {
    for _ in 0..cycles {
        for n in 0..NICS {
            if w.backlog(n) < 64 && w.rng.chance(rate) {
                let mut d = w.rng.range(0, NICS as u64 - 2) as usize;
                if d >= n {
                    d += 1;
                }
                let len = w.rng.range(2, 16) as usize;
                w.send(n, d, len);
            }
        }
        w.cycle();
    }
}

/// Topology discovery in band: management gives every router an ID (its agent's `chip_id`
/// register, written through the fabric). Each of the router's links trains again to announce
/// it (nothing lost: the traffic after this must all arrive), and then every router port's
/// `peer` register names the chip type, chip ID and port at its far end, as the fabric is
/// wired: a router's ID and port, or a NIC (type 0; the bench's NIC ports send ID 0, port 0).
/// A port with nothing attached shows no peer.
fn discover(w: &mut FabricWorld) {
    let id_register = FabricWorld::address("chip_id");
    let router_id = |r: usize| 0x100 + r as u16;
    for r in 0..ROUTERS {
        let t = w.target(r).unwrap();
        w.client.submit(
            t,
            Operation::WriteRegisters(vec![(id_register, router_id(r) as u64)]),
        );
    }
    for c in w.settle(200_000) {
        assert_eq!(c.outcome, Ok(Reply::Written), "{c:?}");
    }
    let mut want = BTreeMap::new();
    for (a, b) in links() {
        for (near, far) in [(a, b), (b, a)] {
            if let End::Router(r, p) = near {
                let peer = match far {
                    End::Router(fr, fp) => peer_value(1, router_id(fr), fp as u8),
                    End::Nic(_) => peer_value(0, 0, 0),
                };
                want.insert((r, p), peer);
            }
        }
    }
    let peers: Vec<u16> = (0..ROUTER_PORTS)
        .map(|p| FabricWorld::address(&format!("port{p}_peer")))
        .collect();
    // The last ID written retrains links whose near ends were read already in an earlier
    // round: a link still training shows no peer. Read every router again until all agree,
    // for at most ten rounds 1,000 cycles apart (a retrain takes under 100 cycles).
    let mut rounds = 0;
    loop {
        let mut mismatches = vec![];
        for r in 0..ROUTERS {
            let mut read: Vec<u64> = vec![];
            for chunk in peers.chunks(MAX_REGISTERS as usize) {
                let t = w.target(r).unwrap();
                w.client.submit(t, Operation::ReadRegisters(chunk.to_vec()));
                match &w.settle(100_000)[0].outcome {
                    Ok(Reply::Registers(v)) => read.extend(v),
                    other => panic!("router {r}: {other:?}"),
                }
            }
            let expected: Vec<u64> = (0..ROUTER_PORTS)
                .map(|p| want.get(&(r, p)).copied().unwrap_or(0))
                .collect();
            if read != expected {
                mismatches.push((r, read, expected));
            }
        }
        rounds += 1;
        if mismatches.is_empty() {
            break;
        }
        assert!(
            rounds < 10,
            "peer registers (router, read, expected) after {rounds} rounds: {mismatches:?}"
        );
        for _ in 0..1_000 {
            w.cycle();
        }
    }
    eprintln!("discovery: peers agree with the wiring after {rounds} read round(s)");
}

#[test]
fn fabric_uniform_and_permutation_traffic_arrive_whole_once_in_order() {
    let mut w = loaded(1);
    let loaded_at = w.now();
    discover(&mut w);
    // Adaptive, uniform random.
    uniform(&mut w, 0.04, 3_000);
    assert!(
        w.drain(60_000),
        "uniform traffic did not drain: deadlock or loss"
    );
    // Deterministic, the adversarial permutation (every flow on one path: in order).
    w.deterministic = true;
    w.forget_order();
    let perm = testbench::fabric::routing::adversarial_permutation().expect("a permutation");
    for _ in 0..1_500 {
        for n in 0..NICS {
            if w.backlog(n) < 64 && w.rng.chance(0.05) {
                w.send(n, perm[n], 8);
            }
        }
        w.cycle();
    }
    assert!(w.drain(60_000), "permutation traffic did not drain");
    eprintln!(
        "fabric: tables loaded in {loaded_at} cycles, {} packets ({} flits) delivered, latency mean {:.1} max {}, {} cycles",
        w.stats.delivered,
        w.stats.delivered_flits,
        w.stats.latency_sum as f64 / w.stats.delivered.max(1) as f64,
        w.stats.latency_max,
        w.now()
    );
    assert!(w.stats.delivered >= 1_000, "{:?}", w.stats);
}

#[test]
fn fabric_routes_around_a_dead_link() {
    let mut w = loaded(2);
    let (leaf, sp) = (1usize, 0usize);
    uniform(&mut w, 0.04, 800);
    // The link dies under traffic; packets sent from now until the tables avoid it may be lost.
    w.marking = true;
    let cut_at = w.now();
    w.cut(leaf, sp);
    uniform(&mut w, 0.04, 200);
    // The management server rewrites every table around the dead link, in band, on paths that
    // avoid it, while traffic goes on.
    w.dead.insert((leaf, sp));
    for r in 0..ROUTERS {
        w.load_table(r);
    }
    let mut t = 0;
    while w.client.pending() > 0 {
        uniform(&mut w, 0.04, 1);
        for c in w.client.completions() {
            assert_eq!(c.outcome, Ok(Reply::Written), "{c:?}");
        }
        t += 1;
        assert!(t < 300_000, "the rewrite did not complete");
    }
    let rewritten_at = w.now();
    // Both ends of the dead link are stalled (discarding) by now or soon.
    for _ in 0..3 * testbench::fabric::STALL_LIMIT as u64 {
        w.cycle();
    }
    assert_ne!(
        w.stalled(leaf) >> (NICS_PER_LEAF + sp) & 1,
        0,
        "leaf port stalled"
    );
    assert_ne!(w.stalled(spine(sp)) >> leaf & 1, 0, "spine port stalled");
    // Everything sent from now on must arrive.
    w.marking = false;
    uniform(&mut w, 0.04, 2_000);
    let mut t = 0u64;
    loop {
        let after = w.in_flight() - w.lost_candidates().len();
        if after == 0 && (0..NICS).all(|n| w.backlog(n) == 0) {
            break;
        }
        w.cycle();
        t += 1;
        if t == 60_000 {
            for r in 0..ROUTERS {
                let mut line = format!("router {r}:");
                for p in 0..ROUTER_PORTS {
                    let d = read_counter(&mut w, r, &format!("port{p}_discarded_packets"));
                    let n = read_counter(&mut w, r, &format!("port{p}_drop_no_route"));
                    line += &format!(" port {p} discarded {d} no route {n};");
                }
                eprintln!("{line}");
            }
            let waiting: BTreeSet<usize> = w.flights().iter().map(|f| f.1).collect();
            for n in waiting {
                eprintln!(
                    "NIC {n} (a destination still waiting): {}",
                    w.nic_link_report(n)
                );
                let (r, p) = (leaf_of(n), n % NICS_PER_LEAF);
                for name in [
                    "link_status",
                    "ltps_sent",
                    "ltps_good",
                    "ltps_bad",
                    "retries",
                ] {
                    let v = read_counter(&mut w, r, &format!("port{p}_{name}"));
                    eprintln!("  its router {r} port {p}: {name} {v:#x}");
                }
            }
        }
        assert!(
            t < 60_000,
            "{after} packets sent after the rewrite did not arrive (deadlock or loss): (src, dst, sent at, before the rewrite) {:?}; stalled ports {:?}",
            w.flights(),
            (0..ROUTERS).map(|r| w.stalled(r)).collect::<Vec<_>>()
        );
    }
    // What the routers counted at the dead link's ends (port counters, read in band).
    let discarded = read_counter(
        &mut w,
        leaf,
        &format!("port{}_discarded_packets", NICS_PER_LEAF + sp),
    ) + read_counter(&mut w, spine(sp), &format!("port{leaf}_discarded_packets"));
    let no_route = read_counter(&mut w, spine(sp), "port0_drop_no_route")
        + (1..LEAVES)
            .map(|l| read_counter(&mut w, spine(sp), &format!("port{l}_drop_no_route")))
            .sum::<u64>();
    let lost = w.lost_candidates();
    for &(s, d) in &lost {
        assert!(
            leaf_of(s) == leaf || leaf_of(d) == leaf,
            "packet {s} -> {d} lost, though its paths never needed the dead link"
        );
    }
    let n_lost = w.forget_lost();
    assert!(
        discarded as usize <= n_lost,
        "the dead link's ends counted {discarded} discarded packets, but only {n_lost} were lost"
    );
    assert!(w.drain(20_000));
    eprintln!(
        "fabric with a dead link: tables rewritten {} cycles after the cut, {} packets delivered, {n_lost} lost (all in flight at the cut or sent before the rewrite, to or from leaf {leaf}); the dead link's ends discarded {discarded} packets, spine {sp} dropped {no_route} without a route",
        rewritten_at - cut_at,
        w.stats.delivered,
    );
}

/// The link settings in band (issue 10, item 6): router 0's port 1 (NIC 1's link) reads its
/// configured `link_settings`, is written a lane threshold of 1 through management (read back),
/// then carries traffic over wires with bit errors: it removes a lane at the first error charged
/// to one, which the reset threshold (8, scores drained every 16 delivered LTPs) never does at
/// this error rate; port 2 (NIC 2's link, the same errors, its settings untouched) keeps every
/// lane. Nothing is lost meanwhile.
#[test]
fn fabric_link_settings_written_in_band_drive_the_link() {
    let mut w = loaded(3);
    let (r, written, untouched) = (0usize, 1usize, 2usize);
    let link = testbench::fabric::router_params().link;
    let settings = FabricWorld::address(&format!("port{written}_link_settings"));
    let t = w.target(r).unwrap();
    w.client
        .submit(t.clone(), Operation::ReadRegisters(vec![settings]));
    let c = w.settle(100_000);
    assert_eq!(
        c[0].outcome,
        Ok(Reply::Registers(vec![link.settings_reset()])),
        "link_settings after reset"
    );
    let v = settings_value(1, link.retry_limit, link.lane_drain, link.interleave);
    w.client
        .submit(t.clone(), Operation::WriteRegisters(vec![(settings, v)]));
    assert_eq!(w.settle(100_000)[0].outcome, Ok(Reply::Written));
    w.client.submit(t, Operation::ReadRegisters(vec![settings]));
    assert_eq!(
        w.settle(100_000)[0].outcome,
        Ok(Reply::Registers(vec![v])),
        "link_settings read back"
    );
    let removed = |w: &mut FabricWorld, port: usize| {
        STATUS_LANES_REMOVED.get(read_counter(w, r, &format!("port{port}_link_status")) as u128)
    };
    let mut rounds = 0;
    while removed(&mut w, written) == 0 {
        rounds += 1;
        assert!(
            rounds <= 10,
            "no lane removed with threshold 1 after {rounds} rounds"
        );
        uniform(&mut w, 0.04, 2_000);
    }
    assert_eq!(
        removed(&mut w, untouched),
        0,
        "the untouched port removed a lane"
    );
    assert!(
        w.drain(60_000),
        "traffic did not drain after the lane removal"
    );
    eprintln!(
        "fabric link settings: a lane removed after {rounds} round(s) of 2,000 cycles of traffic"
    );
}

/// Reads the counter (or any register) `name` of router `r` in band.
fn read_counter(w: &mut FabricWorld, r: usize, name: &str) -> u64 {
    let t = w.target(r).expect("reachable");
    w.client.submit(
        t,
        Operation::ReadRegisters(vec![FabricWorld::address(name)]),
    );
    let c = w.settle(100_000);
    match &c[0].outcome {
        Ok(Reply::Registers(v)) => v[0],
        other => panic!("reading {name} of router {r}: {other:?}"),
    }
}

/// One of the fabric's links alone: two link ports (the NICs' model, which is also every router
/// port's block with the same parameters) joined by the fabric's wires (BER 1e-5 both ways),
/// each sending packets of 2 to 15 flits with chance 0.04 per cycle as a fabric NIC does, their
/// cores taking flits at `drain` per cycle. Every packet must arrive whole and in order, and
/// neither port's watchdog may call the live link dead.
fn link_port_pair(drain: f64, seed: u64, cycles: u64) {
    use hdl::formats::header::PacketKind;
    use std::collections::VecDeque;
    use testbench::backend::Backend;
    use testbench::channel_end::{ChannelPorts, ChannelRx, ChannelTx};
    use testbench::fabric::{data_packet, DATA_VC};
    use testbench::link_bench::LanePorts;
    use testbench::models::lane_channel::{Faults, LaneChannel};
    use testbench::rng::BenchRng;
    let (_, model) = testbench::fabric::models();
    let cfg = hdl::params::Config::default();
    let (vcs, reserve) = (
        cfg.network.vcs as usize,
        cfg.router.reserved_flits_per_vc as usize,
    );
    let mut rng = BenchRng::new(seed);
    let mut sims: Vec<_> = (0..2).map(|_| model.instance()).collect();
    let mut ends: Vec<(LanePorts, LanePorts, ChannelTx, ChannelRx)> = sims
        .iter_mut()
        .map(|sim| {
            let settings = sim.port("report$settings");
            sim.poke(
                settings,
                testbench::fabric::nic_params().settings_reset() as u128,
            );
            let mut rx = ChannelRx::new(ChannelPorts::new(sim, "to_core"), vcs, reserve, drain);
            rx.delay = (1, 2);
            (
                LanePorts::new(sim, "lanes_out"),
                LanePorts::new(sim, "lanes_in"),
                ChannelTx::new(ChannelPorts::new(sim, "from_core"), vcs, reserve, 1.0),
                rx,
            )
        })
        .collect();
    let lane_bits = ends[0].0.lane_bits as u32;
    let faults = Faults {
        ber: 1e-5,
        ..Default::default()
    };
    let mut wires: Vec<LaneChannel> = (0..2)
        .map(|_| LaneChannel::new(4, faults, rng.bits(32) as u64).with_lane_bits(lane_bits))
        .collect();
    let ports: Vec<_> = sims
        .iter()
        .map(|s| (s.port("reset"), s.port("stalled"), s.port("error")))
        .collect();
    for _ in 0..3 {
        for (sim, p) in sims.iter_mut().zip(&ports) {
            sim.poke_bool(p.0, true);
            sim.tick();
        }
    }
    for (sim, p) in sims.iter_mut().zip(&ports) {
        sim.poke_bool(p.0, false);
    }
    // Per direction: the packets sent and not yet arrived, and what has arrived of the next.
    let mut expected: Vec<VecDeque<Vec<u128>>> = vec![VecDeque::new(); 2];
    let mut open: Vec<Vec<u128>> = vec![vec![]; 2];
    let mut tag = 0u16;
    let mut delivered = [0u64; 2];
    for now in 0..cycles {
        for e in 0..2 {
            if ends[e].2.backlog() < 64 && rng.chance(0.04) {
                let len = rng.range(2, 16) as usize;
                let flits = data_packet(e, 1 - e, len, PacketKind::Put, tag);
                tag = tag.wrapping_add(1);
                ends[e].2.queues[DATA_VC].push_back(flits.clone());
                expected[e].push_back(flits);
            }
        }
        for e in 0..2 {
            let beat = ends[e].0.read(&mut sims[e]);
            let arrived = wires[e].step(beat);
            ends[1 - e].1.write(&mut sims[1 - e], &arrived, &mut rng);
        }
        for e in 0..2 {
            let (sim, (_, _, tx, rx)) = (&mut sims[e], &mut ends[e]);
            tx.drive(sim, &mut rng, false);
            rx.drive(sim, &mut rng, now);
            tx.collect(sim);
            assert!(!sim.peek_bool(ports[e].2), "end {e}: link port error");
            assert!(
                !sim.peek_bool(ports[e].1),
                "cycle {now}: end {e}'s watchdog called the live link dead ({}-bit lanes, drain {drain}, seed {seed})",
                lane_bits
            );
            if let Some((vc, f)) = rx.take(sim, &format!("end {e}")) {
                assert_eq!(vc, DATA_VC, "end {e}: a flit on VC {vc}");
                open[e].push(f);
                let sent = expected[1 - e].front().expect("a flit nobody sent");
                if open[e].len() == sent.len() {
                    assert_eq!(&open[e], sent, "end {e}: packet corrupted");
                    expected[1 - e].pop_front();
                    delivered[e] += 1;
                    open[e].clear();
                }
            }
        }
        for sim in &mut sims {
            sim.tick();
        }
    }
    // About 0.04 x `cycles` packets each way are sent; a few are still on their way.
    for e in 0..2 {
        assert!(
            expected[e].len() < 40 && delivered[1 - e] as f64 > 0.035 * cycles as f64,
            "from end {e}: {} packets delivered, {} still waiting at the end",
            delivered[1 - e],
            expected[e].len()
        );
    }
}

/// The fabric's 16-bit false dead link (docs/llp-design.md, "16-bit lanes") is not in the link
/// ports themselves: this passes at both widths (`HPCNET_FABRIC_LANE_BITS=16` for 16).
#[test]
fn a_link_port_pair_at_the_fabric_load_is_never_called_dead() {
    for (drain, seed) in [(1.0, 71), (0.5, 72)] {
        link_port_pair(drain, seed, 60_000);
    }
}
