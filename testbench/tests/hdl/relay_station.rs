//! One relay station (`hdl::mgmt::relay_station`) against its model
//! ([`RelayStationModel`]), on rust-hdl's simulator and on Verilator: random packets of 1 to 12
//! flits (4 beats of 20 bits each) on its three inputs, random idle (random data, `last` and
//! `port` while `valid` is low), random backpressure on its three outputs, and reset pulses at
//! random moments. Every packet must come out whole (never interleaved with another), in the
//! order of its flow, on the right output, with `port` = the station's number on packets from its
//! own port; outbound packets for other ports go left, or, in the leftmost station, are dropped
//! with one `dropped` pulse each. After each reset pulse no output may offer a beat, and nothing
//! sent before it may come out.
//!
//! Timing runs (no reset, everything ready): the head latency of each flow through one hop
//! (the goal: at most 2 cycles), one beat per cycle per flow, and round robin by whole
//! packets when both inbound flows are saturated.
use hdl::formats::FLIT_BITS;
use hdl::mgmt::relay_station::{RelayStation, RS_BEAT_BITS, RS_PORT_BITS};
use hdl::width::chunks;
use testbench::models::relay_station::{
    BeatPorts, Packet, PacketDriver, PacketReceiver, RelayStationModel,
};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng, PortTable};

/// Beat bits (the source's 20).
const B: usize = RS_BEAT_BITS;
/// Port bits (the management route's hop field).
const P: usize = RS_PORT_BITS;
/// The station's port number.
const K: u64 = 5;
/// Beats per flit.
const FLIT_BEATS: usize = chunks(FLIT_BITS, B);

type Dut = RelayStation<B, P>;

fn table() -> PortTable<Dut> {
    port_table!(Dut; reset,
        from_port.valid, from_port.data, from_port.last, from_port.port, from_port.ready,
        from_left.valid, from_left.data, from_left.last, from_left.port, from_left.ready,
        to_right.valid, to_right.data, to_right.last, to_right.port, to_right.ready,
        from_right.valid, from_right.data, from_right.last, from_right.port, from_right.ready,
        to_port.valid, to_port.data, to_port.last, to_port.port, to_port.ready,
        to_left.valid, to_left.data, to_left.last, to_left.port, to_left.ready,
        dropped)
}

/// A packet of `flits` flits (random beats) for `port`.
fn packet(rng: &mut BenchRng, flits: u64, port: u64) -> Packet {
    Packet {
        beats: (0..flits as usize * FLIT_BEATS)
            .map(|_| rng.bits(B))
            .collect(),
        port,
    }
}

/// An outbound port: `K` with probability 0.4, else any other (in the leftmost station, a port
/// no station of the row owns).
fn outbound_port(rng: &mut BenchRng) -> u64 {
    if rng.chance(0.4) {
        K
    } else {
        (K + rng.range(1, (1 << P) - 1)) % (1 << P)
    }
}

/// The station's streams: drivers of its inputs, receivers of its outputs.
struct Streams {
    from: [PacketDriver; 3],
    to: [PacketReceiver; 3],
}

impl Streams {
    fn new(b: &dyn Backend, input: f64, output: f64) -> Self {
        let d = |n| PacketDriver::new(BeatPorts::new(b, n), input);
        let r = |n| PacketReceiver::new(BeatPorts::new(b, n), output);
        Self {
            from: [d("from_port"), d("from_left"), d("from_right")],
            to: [r("to_right"), r("to_port"), r("to_left")],
        }
    }
    fn drive(&mut self, b: &mut dyn Backend, rng: &mut BenchRng) {
        for d in &mut self.from {
            d.drive(b, rng);
        }
        for r in &mut self.to {
            r.drive(b, rng);
        }
    }
    fn reset(&mut self) {
        self.from.iter_mut().for_each(|d| d.reset());
        self.to.iter_mut().for_each(|r| r.reset());
    }
}

/// What one random run delivered (identical on both backends).
#[derive(Debug, PartialEq)]
struct Report {
    /// Packets out of `to_right` from the port and from the left, out of `to_port`, `to_left`.
    delivered: [u64; 4],
    drops: u64,
    resets: u64,
    cycles: u64,
}

/// Random traffic: `input`/`output` the rates of offering and taking beats.
fn traffic(b: &mut dyn Backend, seed: u64, leftmost: bool, input: f64, output: f64) -> Report {
    let mut rng = BenchRng::new(seed);
    let reset = b.port("reset");
    let dropped = b.port("dropped");
    let from_right_valid = b.port("from_right$valid");
    let mut s = Streams::new(b, input, output);
    for _ in 0..40 {
        let f = rng.range(1, 12);
        let port = rng.bits(P) as u64;
        let p = packet(&mut rng, f, port);
        s.from[0].queue.push_back(p);
        let f = rng.range(1, 12);
        let port = rng.bits(P) as u64;
        let p = packet(&mut rng, f, port);
        s.from[1].queue.push_back(p);
        let (f, port) = (rng.range(1, 12), outbound_port(&mut rng));
        let p = packet(&mut rng, f, port);
        s.from[2].queue.push_back(p);
    }
    let mut m = RelayStationModel::new(K, leftmost);
    let mut sched = ResetSchedule::new(&mut rng, 400);
    let (mut delivered, mut drops) = ([0u64; 4], 0u64);
    b.poke_bool(reset, true);
    b.tick();
    let start = b.cycle();
    let resets_until = start + 2000;
    loop {
        if s.from.iter().all(|d| d.idle()) && m.empty() {
            break;
        }
        let c = b.cycle();
        assert!(c - start < 40_000, "seed {seed}: hang (model owes {m:x?})");
        let rst = sched.next_if(&mut rng, c < resets_until);
        b.poke_bool(reset, rst);
        s.drive(b, &mut rng);
        if sched.released() {
            // `to_port` is `from_right` gated by the route, with no register: a beat offered
            // there while `from_right` offers one is that new beat, not a survivor.
            let fresh = b.peek_bool(from_right_valid);
            for (j, r) in s.to.iter().enumerate() {
                assert!(
                    !r.offered(b) || (j == 1 && fresh),
                    "seed {seed} cycle {c}: a beat survived the reset"
                );
            }
        }
        if rst {
            s.reset();
            m.reset();
            b.tick();
            continue;
        }
        let drop = b.peek_bool(dropped);
        for i in 0..3 {
            if let Some((_, Some(p))) = s.from[i].fired(b) {
                match i {
                    0 => m.sent_from_port(p),
                    1 => m.sent_from_left(p),
                    _ => m.sent_from_right(p),
                }
            }
        }
        if let Some(p) = s.to[0].fired(b) {
            delivered[m.got_to_right(&p, c)] += 1;
        }
        if let Some(p) = s.to[1].fired(b) {
            m.got_to_port(&p, c);
            delivered[2] += 1;
        }
        if let Some(p) = s.to[2].fired(b) {
            m.got_to_left(&p, c);
            delivered[3] += 1;
        }
        if drop {
            m.got_drop(c);
            drops += 1;
        }
        b.tick();
    }
    sched.assert_pulses(&format!("relay station seed {seed}"), 2);
    // Every flow carried packets (a bench that moved nothing would pass vacuously).
    assert!(
        delivered[0] > 0 && delivered[1] > 0 && delivered[2] > 0,
        "{delivered:?}"
    );
    if leftmost {
        assert!(drops > 0 && delivered[3] == 0, "{delivered:?} {drops}");
    } else {
        assert!(drops == 0 && delivered[3] > 0, "{delivered:?} {drops}");
    }
    Report {
        delivered,
        drops,
        resets: sched.pulses(),
        cycles: b.cycle() - start,
    }
}

/// Timing with everything ready: per flow (port to right, left to right, right to port, right
/// to left) the cycles from a lone packet's first beat moving in to it being offered out, and
/// the cycles taken by back-to-back packets on each flow and by both inbound flows at once.
#[derive(Debug, PartialEq)]
struct Timing {
    head: Vec<u64>,
    stream_cycles: Vec<(u64, u64)>,
}

fn timing(b: &mut dyn Backend, leftmost: bool) -> Timing {
    let mut rng = BenchRng::new(99);
    let reset = b.port("reset");
    let mut s = Streams::new(b, 1.0, 1.0);
    b.poke_bool(reset, true);
    b.tick();
    b.poke_bool(reset, false);
    // (input, output, outbound port) of each flow.
    let mut flows = vec![(0, 0, 0), (1, 0, 3), (2, 1, K)];
    if !leftmost {
        flows.push((2, 2, K + 1));
    }
    let mut head = vec![];
    for &(i, o, port) in &flows {
        let p = packet(&mut rng, 2, port);
        s.from[i].queue.push_back(p);
        let (mut t_in, mut t_out) = (None, None);
        for _ in 0..50 {
            s.drive(b, &mut rng);
            let c = b.cycle();
            if let Some((true, _)) = s.from[i].fired(b) {
                t_in = Some(c);
            }
            if t_out.is_none() && t_in.is_some() && s.to[o].offered(b) {
                t_out = Some(c);
            }
            for r in &mut s.to {
                r.fired(b);
            }
            b.tick();
        }
        head.push(t_out.expect("delivered") - t_in.expect("sent"));
    }
    // Throughput: 8 packets of 3 flits on each flow, then on both inbound flows at once.
    let mut stream_cycles = vec![];
    let mut runs: Vec<Vec<(usize, u64)>> = flows.iter().map(|&(i, _, p)| vec![(i, p)]).collect();
    runs.push(vec![(0, 0), (1, 9)]);
    for run in runs {
        for &(i, port) in &run {
            for _ in 0..8 {
                let p = packet(&mut rng, 3, port);
                s.from[i].queue.push_back(p);
            }
        }
        let beats = (run.len() * 8 * 3 * FLIT_BEATS) as u64;
        let (mut moved, mut first, mut end, mut order) = (0u64, None, 0, vec![]);
        let mut m = RelayStationModel::new(K, leftmost);
        while moved < beats {
            s.drive(b, &mut rng);
            let c = b.cycle();
            for i in 0..3 {
                if let Some((_, done)) = s.from[i].fired(b) {
                    first.get_or_insert(c);
                    if let Some(p) = done {
                        match i {
                            0 => m.sent_from_port(p),
                            1 => m.sent_from_left(p),
                            _ => m.sent_from_right(p),
                        }
                    }
                }
            }
            for o in 0..3 {
                let was = s.to[o].offered(b);
                if let Some(p) = s.to[o].fired(b) {
                    match o {
                        0 => order.push(m.got_to_right(&p, c)),
                        1 => m.got_to_port(&p, c),
                        _ => m.got_to_left(&p, c),
                    }
                }
                if was {
                    moved += 1;
                    end = c;
                }
            }
            b.tick();
            assert!(b.cycle() < 100_000, "throughput run hangs");
        }
        let cycles = end - first.unwrap() + 1;
        assert!(
            cycles <= beats + 2,
            "{beats} beats took {cycles} cycles: not one beat per cycle"
        );
        if run.len() == 2 {
            // Both inbound flows saturated: whole packets, alternating.
            for w in order.windows(2) {
                assert_ne!(w[0], w[1], "round robin: {order:?}");
            }
        }
        stream_cycles.push((beats, cycles));
    }
    // One register per hop on the flows that go on to another station; none on the way out to
    // the port (`to_port` is `from_right` gated by the route). The goal: at most 2.
    for (f, h) in head.iter().enumerate() {
        let expected = if flows[f].1 == 1 { 0 } else { 1 };
        assert_eq!(
            *h, expected,
            "flow {f}: an RS hop adds {h} cycles to a packet's head (goal <= 2)"
        );
    }
    println!("relay station (leftmost {leftmost}): head latency per hop {head:?} cycles; (beats, cycles) back to back {stream_cycles:?}");
    Timing {
        head,
        stream_cycles,
    }
}

#[test]
fn relay_station_against_model() {
    for leftmost in [false, true] {
        let make = move || Dut::new(K as usize, leftmost);
        for (i, &(input, output)) in [(0.8, 0.8), (0.9, 0.3), (0.4, 0.9)].iter().enumerate() {
            let seed = 100 + i as u64 + 10 * leftmost as u64;
            let r = run_both("relay_station", make, table, |b| {
                traffic(b, seed, leftmost, input, output)
            });
            println!("seed {seed}: {:?}", r.result);
        }
    }
}

#[test]
fn relay_station_timing() {
    for leftmost in [false, true] {
        let make = move || Dut::new(K as usize, leftmost);
        run_both("relay_station_timing", make, table, |b| timing(b, leftmost));
    }
}
