//! The router core (`nrc::router_core::RouterCore`, top `nrc_core`) on Verilator, in the world of
//! `testbench::router_core_bench`: route tables written in band through management packets,
//! random traffic on every input with random back-pressure, a scoreboard (every packet whole,
//! uncorrupted, once, on a port its table entry allows, in order per flow, head rewritten as
//! promised), the zero-load latency of exactly 2 cycles, register reads answered while data
//! flows, packets without a route dropped and counted, reset under traffic.
use hdl::formats::header::PacketKind;
use hdl::mgmt::regs::NMA_CHIP_FAULT_BASE;
use testbench::mgmt_client::{Operation, Reply, Target};
use testbench::router_core_bench::{link_value, CoreWorld, Shape, PORTS};
use testbench::Backend;

/// Destinations the tests route (the rest of the table stays empty: no route).
const ROUTED: u16 = 48;
/// Destinations inside `ROUTED` left without a route.
const HOLES: [u16; 2] = [7, 30];

fn target(port: u8) -> Target {
    Target {
        chip_id: hdl::formats::mgmt::UNSET_ID,
        chip_type: hdl::formats::mgmt::DestType::Nrc,
        entry_port: port,
        path: vec![],
    }
}

/// Runs until the client has nothing pending; returns its completions.
fn settle(w: &mut CoreWorld, limit: u64) -> Vec<testbench::mgmt_client::Completion> {
    let mut done = vec![];
    for _ in 0..limit {
        done.extend(w.client.completions());
        if w.client.pending() == 0 {
            return done;
        }
        w.cycle();
    }
    panic!("management requests still pending after {limit} cycles");
}

/// Writes the route table in band (entries random, `HOLES` empty), one request per entry
/// (index then ports), from random ports; checks every write and reads a few entries back.
fn load_table(w: &mut CoreWorld) {
    let index = CoreWorld::address("route_index");
    let ports = CoreWorld::address("route_ports");
    let read = CoreWorld::address("route_read");
    for d in 0..ROUTED {
        let mask = if HOLES.contains(&d) {
            0
        } else {
            w.rng.range(1, (1 << PORTS) - 1) as u8
        };
        w.table[d as usize] = mask;
        let entry = w.rng.range(0, PORTS as u64 - 1) as u8;
        w.client.submit(
            target(entry),
            Operation::WriteRegisters(vec![(index, d as u64), (ports, mask as u64)]),
        );
    }
    for c in settle(w, 200_000) {
        assert_eq!(c.outcome, Ok(Reply::Written), "{c:?}");
    }
    for d in [0, 5, 7, ROUTED - 1] {
        w.client.submit(
            target(0),
            Operation::WriteRegisters(vec![(index, d as u64)]),
        );
        settle(w, 20_000);
        w.client
            .submit(target(1), Operation::ReadRegisters(vec![read]));
        let c = settle(w, 20_000);
        assert_eq!(
            c[0].outcome,
            Ok(Reply::Registers(vec![w.table[d as usize] as u64])),
            "route_read of entry {d}"
        );
    }
}

/// A random routed destination.
fn routed(w: &mut CoreWorld) -> u16 {
    loop {
        let d = w.rng.range(0, ROUTED as u64 - 1) as u16;
        if !HOLES.contains(&d) {
            return d;
        }
    }
}

fn random_kind(w: &mut CoreWorld) -> PacketKind {
    [
        PacketKind::Nap,
        PacketKind::Put,
        PacketKind::Get,
        PacketKind::Response,
    ][w.rng.range(0, 3) as usize]
}

fn fresh(shape: Shape, seed: u64) -> CoreWorld {
    let mut w = CoreWorld::new(shape, seed);
    w.reset(4);
    load_table(&mut w);
    w
}

/// Head in to head out at zero load: 2 cycles, 3 with the route stage (`router.route_stage`,
/// on in the default configuration).
#[test]
fn router_core_zero_load_latency() {
    let mut w = fresh(Shape::Default, 1);
    let hop = 2 + Shape::Default.config().router.route_stage as u64;
    for input in 0..PORTS {
        for vc in 0..w.vcs {
            let d = routed(&mut w);
            w.send(input, vc, d, 2 + input + vc, PacketKind::Nap);
            assert!(w.drain_all(1_000), "the packet did not leave");
        }
    }
    assert_eq!(w.stats.delivered, (PORTS * w.vcs) as u64);
    assert_eq!(
        (w.stats.latency_min, w.stats.latency_max),
        (hop, hop),
        "head in to head out at zero load"
    );
}

/// Checks the link-status reads completed since the last call; returns how many.
fn check_reads(w: &mut CoreWorld) -> u64 {
    let status = |p: usize| CoreWorld::address(&format!("port{p}_link_status"));
    let mut n = 0;
    for c in w.client.completions() {
        let Operation::ReadRegisters(ref a) = c.operation else {
            panic!("unexpected completion {c:?}")
        };
        let p = (0..PORTS)
            .find(|&p| status(p) == a[0])
            .expect("a status read");
        assert_eq!(c.outcome, Ok(Reply::Registers(vec![link_value(p, 0)])));
        n += 1;
    }
    n
}

/// Random traffic on every input (every VC, lengths 2 to the maximum, every data kind),
/// random back-pressure and late credits, register reads while it flows, packets without a
/// route; adaptive, then deterministic, then a reset under traffic.
fn random_traffic(shape: Shape, seed: u64, cycles: u64) {
    let mut w = fresh(shape, seed);
    w.drain = 0.6;
    w.credit_delay = (1, 24);
    let status = |p: usize| CoreWorld::address(&format!("port{p}_link_status"));
    let mut unrouted = 0u64;
    let mut reads = 0u64;
    for deterministic in [false, true] {
        w.deterministic = deterministic;
        for t in 0..cycles {
            for input in 0..PORTS {
                if w.backlog(input) < 64 && w.rng.chance(0.08) {
                    let vc = w.rng.range(0, w.vcs as u64 - 1) as usize;
                    let len = w.rng.range(2, w.max_len as u64) as usize;
                    let kind = random_kind(&mut w);
                    let d = if w.rng.chance(0.03) {
                        unrouted += 1;
                        if w.rng.chance(0.5) {
                            HOLES[0]
                        } else {
                            ROUTED + w.rng.range(0, 200) as u16
                        }
                    } else {
                        routed(&mut w)
                    };
                    w.send(input, vc, d, len, kind);
                }
            }
            if t % 97 == 0 {
                let p = w.rng.range(0, PORTS as u64 - 1) as usize;
                w.client
                    .submit(target(p as u8), Operation::ReadRegisters(vec![status(p)]));
                reads += 1;
            }
            w.cycle();
            reads -= check_reads(&mut w);
        }
        assert!(
            w.drain_all(100_000),
            "traffic did not drain (deadlock or loss)"
        );
        reads -= check_reads(&mut w);
        assert_eq!(reads, 0, "register reads unanswered");
        // Every drop of a packet without a route was seen.
        for _ in 0..50 {
            w.cycle();
        }
        assert_eq!(
            w.stats.no_route_events, unrouted,
            "packets without a route counted"
        );
        w.settle_unrouted();
    }
    assert_eq!(w.stats.other_drop_events, 0, "no other drop");
    assert_eq!(w.stats.delivered + unrouted, w.stats.queued);
    // The drops raised the agent's fault event (chip fault 0).
    w.client.submit(
        target(2),
        Operation::ReadRegisters(vec![CoreWorld::address("fault_events")]),
    );
    let c = settle(&mut w, 20_000);
    let Ok(Reply::Registers(ref v)) = c[0].outcome else {
        panic!("{c:?}")
    };
    assert_ne!(v[0] >> NMA_CHIP_FAULT_BASE & 1, 0, "no-route fault event");
    // Reset under traffic: everything inside is dropped, then traffic flows again.
    w.deterministic = false;
    for input in 0..PORTS {
        for _ in 0..4 {
            let d = routed(&mut w);
            w.send(input, 0, d, w.max_len, PacketKind::Put);
        }
    }
    for _ in 0..w.rng.range(20, 120) {
        w.cycle();
    }
    w.reset(3);
    let before = w.stats.delivered;
    for input in 0..PORTS {
        let d = routed(&mut w);
        w.send(input, 0, d, 5, PacketKind::Nap);
    }
    assert!(w.drain_all(10_000), "no traffic after reset");
    assert_eq!(w.stats.delivered, before + PORTS as u64);
    eprintln!(
        "router core {shape:?}: {} packets, {} flits delivered, latency mean {:.1} max {}, {} without route, {} management packets out, {} cycles",
        w.stats.delivered,
        w.stats.delivered_flits,
        w.stats.latency_sum as f64 / w.stats.delivered as f64,
        w.stats.latency_max,
        unrouted,
        w.stats.mgmt_out,
        w.b.cycle()
    );
}

#[test]
fn router_core_random_traffic_default() {
    random_traffic(Shape::Default, 7, 6_000);
}

#[test]
fn router_core_random_traffic_six_vcs() {
    random_traffic(Shape::SixVcs, 11, 3_000);
}
