//! The router's relay-station mesh (`nrc::rs_mesh`, 8 ports in 2 rows of 4, 20-bit beats)
//! against its model ([`RsMeshModel`]), on rust-hdl's simulator and on Verilator: random
//! packets of 1 to 12 flits from every port to the NMA side and from the NMA side to every port
//! (one in ten to a port that does not exist), random idle data, random backpressure on every
//! output, reset pulses at random moments. Every packet must reach the NMA whole, in its port's
//! order, with its input port as `port`; every outbound packet must leave whole on its port, in
//! order; a packet for a port that does not exist must be dropped by the last row, one `dropped`
//! pulse each; after a reset pulse no output may offer a flit and nothing sent before it may
//! come out.
//!
//! A timing run (no reset, everything ready) measures, port by port, the cycles from a lone
//! packet's first flit being taken to its first flit offered at the other end, inbound and
//! outbound, and checks it against the latency stated in `nrc::rs_mesh` (one cycle per relay
//! station crossed).
use hdl::formats::FLIT_BITS;
use hdl::width::chunks;
use nrc::rs_mesh::RsMesh8;
use testbench::models::relay_station::{
    BeatPorts, Packet, PacketDriver, PacketReceiver, RsMeshModel,
};
use testbench::reset::ResetSchedule;
use testbench::rhdl::SimValue;
use testbench::{port_table, run_both, Backend, BenchRng, PortTable};

type Dut = RsMesh8;
const PORTS: usize = 8;
const PER_ROW: usize = 4;
const P: usize = 5;
/// Beat bits of [`RsMesh8`].
const B: usize = 20;

macro_rules! sig {
    ($t:expr, $name:expr, $($path:tt)+) => {
        $t.add(
            $name,
            move |x: &mut Dut, v| x.$($path)+.next = SimValue::from_u128(v),
            move |x: &Dut| SimValue::to_u128(&x.$($path)+.val()),
        );
    };
}

fn table() -> PortTable<Dut> {
    let mut t = port_table!(Dut; reset, dropped,
        to_nma.valid, to_nma.data, to_nma.last, to_nma.port, to_nma.ready,
        from_nma.valid, from_nma.data, from_nma.last, from_nma.port, from_nma.ready);
    for i in 0..PORTS {
        sig!(t, format!("inbound${i}$valid"), inbound[i].valid);
        sig!(t, format!("inbound${i}$data"), inbound[i].data);
        sig!(t, format!("inbound${i}$last"), inbound[i].last);
        sig!(t, format!("inbound${i}$port"), inbound[i].port);
        sig!(t, format!("inbound${i}$ready"), inbound[i].ready);
        sig!(t, format!("outbound${i}$valid"), outbound[i].valid);
        sig!(t, format!("outbound${i}$data"), outbound[i].data);
        sig!(t, format!("outbound${i}$last"), outbound[i].last);
        sig!(t, format!("outbound${i}$port"), outbound[i].port);
        sig!(t, format!("outbound${i}$ready"), outbound[i].ready);
    }
    t
}

fn packet(rng: &mut BenchRng, flits: u64, port: u64) -> Packet {
    Packet {
        beats: (0..flits).map(|_| rng.bits(FLIT_BITS)).collect(),
        port,
    }
}

/// The mesh's streams: drivers of `inbound[p]` (0..8) and `from_nma` (8); receivers of
/// `outbound[p]` (0..8) and `to_nma` (8).
struct Streams {
    from: Vec<PacketDriver>,
    to: Vec<PacketReceiver>,
}

impl Streams {
    fn new(b: &dyn Backend, input: f64, output: f64) -> Self {
        let mut from: Vec<_> = (0..PORTS)
            .map(|i| PacketDriver::new(BeatPorts::new(b, &format!("inbound${i}")), input))
            .collect();
        from.push(PacketDriver::new(BeatPorts::new(b, "from_nma"), input));
        let mut to: Vec<_> = (0..PORTS)
            .map(|i| PacketReceiver::new(BeatPorts::new(b, &format!("outbound${i}")), output))
            .collect();
        to.push(PacketReceiver::new(BeatPorts::new(b, "to_nma"), output));
        Self { from, to }
    }
    fn drive(&mut self, b: &mut dyn Backend, rng: &mut BenchRng) {
        self.from.iter_mut().for_each(|d| d.drive(b, rng));
        self.to.iter_mut().for_each(|r| r.drive(b, rng));
    }
}

#[derive(Debug, PartialEq)]
struct Report {
    to_nma: u64,
    outbound: u64,
    drops: u64,
    resets: u64,
    cycles: u64,
}

fn traffic(b: &mut dyn Backend, seed: u64, input: f64, output: f64) -> Report {
    let mut rng = BenchRng::new(seed);
    let reset = b.port("reset");
    let dropped = b.port("dropped");
    let mut s = Streams::new(b, input, output);
    for _ in 0..8 {
        for i in 0..PORTS {
            let f = rng.range(1, 12);
            let port = rng.bits(P) as u64;
            let p = packet(&mut rng, f, port);
            s.from[i].queue.push_back(p);
        }
    }
    for _ in 0..70 {
        let port = if rng.chance(0.1) {
            rng.range(PORTS as u64, (1 << P) - 1)
        } else {
            rng.range(0, PORTS as u64 - 1)
        };
        let f = rng.range(1, 12);
        let p = packet(&mut rng, f, port);
        s.from[PORTS].queue.push_back(p);
    }
    let mut m = RsMeshModel::new(PORTS, PER_ROW);
    let mut sched = ResetSchedule::new(&mut rng, 700);
    let (mut to_nma, mut outbound, mut drops) = (0u64, 0u64, 0u64);
    b.poke_bool(reset, true);
    b.tick();
    let start = b.cycle();
    let resets_until = start + 2500;
    loop {
        if s.from.iter().all(|d| d.idle()) && m.empty() {
            break;
        }
        let c = b.cycle();
        assert!(c - start < 60_000, "seed {seed}: hang (model owes {m:x?})");
        let rst = sched.next_if(&mut rng, c < resets_until);
        b.poke_bool(reset, rst);
        s.drive(b, &mut rng);
        if sched.released() {
            for r in &s.to {
                assert!(
                    !r.offered(b),
                    "seed {seed} cycle {c}: a flit survived the reset"
                );
            }
        }
        if rst {
            s.from.iter_mut().for_each(|d| d.reset());
            s.to.iter_mut().for_each(|r| r.reset());
            m.reset();
            b.tick();
            continue;
        }
        let drop = b.peek(dropped);
        for i in 0..=PORTS {
            if let Some((_, Some(p))) = s.from[i].fired(b) {
                if i < PORTS {
                    m.sent_inbound(i, p);
                } else {
                    m.sent_from_nma(p);
                }
            }
        }
        for o in 0..PORTS {
            if let Some(p) = s.to[o].fired(b) {
                assert_eq!(
                    p.port, o as u64,
                    "cycle {c}: port of a packet out of port {o}"
                );
                m.got_outbound(o, &p, c);
                outbound += 1;
            }
        }
        if let Some(p) = s.to[PORTS].fired(b) {
            m.got_to_nma(&p, c);
            to_nma += 1;
        }
        for r in 0..PORTS / PER_ROW {
            if drop >> r & 1 == 1 {
                m.got_drop(r, c);
                drops += 1;
            }
        }
        b.tick();
    }
    sched.assert_pulses(&format!("rs mesh seed {seed}"), 2);
    assert!(
        to_nma > 0 && outbound > 0 && drops > 0,
        "{to_nma} {outbound} {drops}"
    );
    Report {
        to_nma,
        outbound,
        drops,
        resets: sched.pulses(),
        cycles: b.cycle() - start,
    }
}

/// Per port: cycles from a lone packet's first flit offered to its first flit offered at the
/// other end, inbound (port to NMA) and outbound (NMA to port). The mesh is idle, so the first
/// flit is offered in the first cycle (and taken with its last beat, 3 cycles later).
fn timing(b: &mut dyn Backend) -> (Vec<u64>, Vec<u64>) {
    let mut rng = BenchRng::new(7);
    let reset = b.port("reset");
    let mut s = Streams::new(b, 1.0, 1.0);
    b.poke_bool(reset, true);
    b.tick();
    b.poke_bool(reset, false);
    let mut lat = |b: &mut dyn Backend, s: &mut Streams, i: usize, o: usize| {
        let p = packet(&mut rng, 10, o as u64);
        s.from[i].queue.push_back(p);
        let (mut t_in, mut t_out) = (None, None);
        for _ in 0..80 {
            s.drive(b, &mut rng);
            let c = b.cycle();
            if t_out.is_none() && t_in.is_some() && s.to[o].offered(b) {
                t_out = Some(c);
            }
            if t_in.is_none() {
                t_in = Some(c);
            }
            s.from[i].fired(b);
            s.to.iter_mut().for_each(|r| {
                r.fired(b);
            });
            b.tick();
        }
        t_out.expect("delivered") - t_in.expect("sent")
    };
    let inbound: Vec<u64> = (0..PORTS).map(|p| lat(b, &mut s, p, PORTS)).collect();
    let outbound: Vec<u64> = (0..PORTS).map(|p| lat(b, &mut s, PORTS, p)).collect();
    // The flit's remaining beats, which the upsizer at the far end waits for.
    let serialisation = (chunks(FLIT_BITS, B) - 1) as u64;
    for p in 0..PORTS {
        // Stations crossed: the port's own and those between it and the NMA, one cycle each;
        // plus the upsizer and the NMA-side merge or demux (see `nrc::rs_mesh`); outbound, the
        // port's own station adds no cycle.
        let stations = (PER_ROW - p % PER_ROW) as u64;
        assert_eq!(
            inbound[p],
            stations + 2 + serialisation,
            "inbound {inbound:?}"
        );
        assert_eq!(
            outbound[p],
            stations + 1 + serialisation,
            "outbound {outbound:?}"
        );
    }
    println!("rs mesh (8 ports, 2 rows of 4, 20-bit beats), first-flit latency per port: to the NMA {inbound:?}, from the NMA {outbound:?} cycles");
    (inbound, outbound)
}

#[test]
fn rs_mesh_against_model() {
    for (i, &(input, output)) in [(0.7, 0.8), (0.9, 0.3)].iter().enumerate() {
        let seed = 300 + i as u64;
        let r = run_both("nrc_rs_mesh", Dut::new, table, |b| {
            traffic(b, seed, input, output)
        });
        println!("seed {seed}: {:?}", r.result);
    }
}

#[test]
fn rs_mesh_timing() {
    run_both("nrc_rs_mesh_timing", Dut::new, table, timing);
}
