//! InputPort (a router port's input side) against its model, on both backends, every cycle.
//!
//! A sender keeps one stream of packets per VC (good packets of 2 to `max_len` flits of every
//! kind, management packets on every VC and more of them on `mgmt_vc`, and bad packets of
//! every kind the DAMQ drops), sends at most one flit per cycle on a random VC with a credit,
//! with random idle data, and takes back the credits `channel.credits` returns. A scripted
//! route unit answers every lookup (`route_head`) one cycle later with a random port, or no
//! route (a tenth of them). A switch model grants a random ready VC in random cycles (never a
//! VC that is not ready; random `grant_vc` when not granting). `to_agent.ready` is random.
//! Resets come at random moments ([`ResetSchedule`]).
//!
//! Checked every cycle against [`InputPortModel`]: per VC `ready`, `head`, `last`, and for a
//! ready VC its port and output VC (the VC policy's rule), for a ready head its `len`; the
//! lookup (valid, and its flit: the right head, the delay and reserved bits aside, which hold
//! the arrival stamp); the granted flit as it leaves (a head's `vc` and `delay` rewritten:
//! old delay + cycles from input channel to output channel, saturating); `to_agent` (valid,
//! data with the same rewrite, `last`, `port` 0); `channel.credits`; `events` (the DAMQ's
//! and `NO_ROUTE`, `MGMT_OFF_VC`); `fault`; `queued`.
//!
//! Zero load (directed): a head on the channel in cycle `c` is looked up in `c`, `ready` with
//! its route and output VC in `c + 1`, and leaves (granted) in `c + 1` with `delay + 2`; its
//! bodies and tail each leave the cycle after they arrive.
#![allow(clippy::needless_range_loop)] // per-VC offers and streams are indexed by VC
use hdl::formats::flit::{ControlCode, Flit};
use hdl::formats::header::{DELAY, KIND, RSVD};
use hdl::formats::{FabricHeader, PacketKind};
use hdl::vc_policy::VcPolicy;
use nrc::input_port;
use nrc::port::damq::damq_capacity;
use nrc::port::{event, DamqParams, InputPort, InputPortParams};
use std::collections::VecDeque;
use testbench::backend::PortId;
use testbench::models::formats::{random_control, random_header};
use testbench::models::input_port::{InputPortModel, Inputs, RouteAnswer, VcOffer};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng, PortTable};

/// 3 VCs (management on VC 2), 32 slots, 6 reserved per VC, packets up to 6 flits, 5 ports.
type Small = input_port!(3, 32, 5);
/// The default configuration's port (2 VCs, management on VC 1, 128 slots, 32 reserved,
/// packets up to 32 flits), 5 ports: the emitted top `nrc_input_port`.
type Default2 = input_port!(2, 128, 5);

#[derive(Clone, Copy)]
struct Shape {
    vcs: usize,
    slots: usize,
    reserve: usize,
    max_len: usize,
    ports: usize,
    mgmt_vc: usize,
    policy: VcPolicy,
    down_ports: u64,
    route_stage: bool,
}

const SMALL: Shape = Shape {
    vcs: 3,
    slots: 32,
    reserve: 6,
    max_len: 6,
    ports: 5,
    mgmt_vc: 2,
    policy: VcPolicy::DestMod,
    down_ports: 0b11000,
    route_stage: false,
};

/// `SMALL` with the up_down policy and the route stage (`router.route_stage`, the default).
const STAGED: Shape = Shape {
    policy: VcPolicy::UpDown,
    route_stage: true,
    ..SMALL
};

impl Shape {
    fn params(&self) -> InputPortParams {
        InputPortParams {
            damq: DamqParams {
                reserve: self.reserve,
                max_len: self.max_len,
            },
            mgmt_vc: self.mgmt_vc,
            policy: self.policy,
            down_ports: self.down_ports,
            route_stage: self.route_stage,
        }
    }
    fn model(&self) -> InputPortModel {
        InputPortModel::new(
            self.vcs,
            damq_capacity(self.vcs, self.slots),
            self.reserve,
            self.max_len,
            self.mgmt_vc,
            self.policy,
            self.down_ports,
        )
        .with_route_stage(self.route_stage)
    }
}

type T<
    const VCS: usize,
    const VCB: usize,
    const SLOTS: usize,
    const AW: usize,
    const CW: usize,
    const PORTS: usize,
    const W: usize,
    const PVW: usize,
    const PVB: usize,
    const PVL: usize,
> = InputPort<VCS, VCB, SLOTS, AW, CW, PORTS, W, PVW, PVB, PVL>;

fn table<
    const VCS: usize,
    const VCB: usize,
    const SLOTS: usize,
    const AW: usize,
    const CW: usize,
    const PORTS: usize,
    const W: usize,
    const PVW: usize,
    const PVB: usize,
    const PVL: usize,
>() -> PortTable<T<VCS, VCB, SLOTS, AW, CW, PORTS, W, PVW, PVB, PVL>> {
    port_table!(T<VCS, VCB, SLOTS, AW, CW, PORTS, W, PVW, PVB, PVL>; reset, channel.valid,
        channel.flit, channel.vc, channel.credits, switch.ready, switch.head, switch.last,
        switch.ports, switch.out_vcs, switch.lens, switch.grant, switch.grant_vc, switch.flit,
        route_head.valid, route_head.flit, route.valid, route.port, route.index,
        route.no_route, to_agent.valid, to_agent.data, to_agent.last, to_agent.port,
        to_agent.ready, events, fault, queued, occupancy)
}

/// The stamp bits of a stored head (delay and reserved): unspecified in a lookup's flit.
const STAMP_MASK: u128 = (DELAY.max() << DELAY.lsb) | (RSVD.max() << RSVD.lsb);

fn head(rng: &mut BenchRng, len: u8, mgmt: bool) -> u128 {
    let mut h: FabricHeader = random_header(rng, len);
    if mgmt {
        h.kind = PacketKind::Mgmt;
    }
    Flit::Head(h).pack()
}
fn body(rng: &mut BenchRng) -> u128 {
    Flit::Body(rng.bits(64) as u64).pack()
}
fn tail(rng: &mut BenchRng) -> u128 {
    Flit::Tail {
        crc16: rng.bits(16) as u16,
    }
    .pack()
}
fn packet(rng: &mut BenchRng, n: usize, len: u8, mgmt: bool) -> Vec<u128> {
    let mut p = vec![head(rng, len, mgmt)];
    p.extend((2..n).map(|_| body(rng)));
    p.push(tail(rng));
    p
}

/// A good packet, or (if `bad`) one the DAMQ drops or cuts, of a random kind.
fn item(rng: &mut BenchRng, max_len: usize, bad: bool, mgmt: bool) -> Vec<u128> {
    let n = rng.range(2, max_len as u64) as usize;
    let mut p = packet(rng, n, n as u8, mgmt);
    if !bad {
        return p;
    }
    match rng.range(0, 5) {
        0 => p[0] = head(rng, (max_len + 1) as u8, mgmt),
        1 => p.insert(n - 1, body(rng)),
        2 => p[0] = head(rng, (n + 1) as u8, mgmt),
        3 => {
            p.pop();
        }
        4 => {
            p.remove(0);
        }
        _ => {
            let i = rng.range(1, n as u64 - 1) as usize;
            p[i] = random_control(rng, ControlCode::Idle);
        }
    }
    p
}

/// The bench's handles on the ports.
struct Ports {
    reset: PortId,
    valid: PortId,
    flit: PortId,
    vc: PortId,
    credits: PortId,
    ready: PortId,
    head: PortId,
    last: PortId,
    ports: PortId,
    out_vcs: PortId,
    lens: PortId,
    grant: PortId,
    grant_vc: PortId,
    switch_flit: PortId,
    lookup_valid: PortId,
    lookup_flit: PortId,
    route_valid: PortId,
    route_port: PortId,
    route_index: PortId,
    route_none: PortId,
    agent_valid: PortId,
    agent_data: PortId,
    agent_last: PortId,
    agent_port: PortId,
    agent_ready: PortId,
    events: PortId,
    fault: PortId,
    queued: PortId,
}

impl Ports {
    fn of(b: &mut dyn Backend) -> Self {
        let p = |n: &str| b.port(n);
        Ports {
            reset: p("reset"),
            valid: p("channel$valid"),
            flit: p("channel$flit"),
            vc: p("channel$vc"),
            credits: p("channel$credits"),
            ready: p("switch$ready"),
            head: p("switch$head"),
            last: p("switch$last"),
            ports: p("switch$ports"),
            out_vcs: p("switch$out_vcs"),
            lens: p("switch$lens"),
            grant: p("switch$grant"),
            grant_vc: p("switch$grant_vc"),
            switch_flit: p("switch$flit"),
            lookup_valid: p("route_head$valid"),
            lookup_flit: p("route_head$flit"),
            route_valid: p("route$valid"),
            route_port: p("route$port"),
            route_index: p("route$index"),
            route_none: p("route$no_route"),
            agent_valid: p("to_agent$valid"),
            agent_data: p("to_agent$data"),
            agent_last: p("to_agent$last"),
            agent_port: p("to_agent$port"),
            agent_ready: p("to_agent$ready"),
            events: p("events"),
            fault: p("fault"),
            queued: p("queued"),
        }
    }
}

/// Model and device in lockstep: one cycle driven, every output checked.
struct Harness<'a> {
    b: &'a mut dyn Backend,
    p: Ports,
    s: Shape,
    model: InputPortModel,
    rng: BenchRng,
    seed: u64,
    /// The lookup of the last cycle (the route unit answers it now).
    asked: bool,
}

/// What one cycle did.
struct Step {
    offers: Vec<VcOffer>,
    grant: Option<usize>,
    out: testbench::models::input_port::Outputs,
}

impl Harness<'_> {
    /// One cycle: `arrival`, the route answer if a lookup was made (`none` forces no route
    /// else random), `choose` picks the grant from the offers, `agent_ready`, `rst`.
    fn step(
        &mut self,
        arrival: Option<(usize, u128)>,
        answer: Option<RouteAnswer>,
        choose: &mut dyn FnMut(&mut BenchRng, &[VcOffer]) -> Option<usize>,
        agent_ready: bool,
        rst: bool,
    ) -> Step {
        let (s, seed) = (self.s, self.seed);
        let cycle = self.b.cycle();
        let b = &mut *self.b;
        let p = &self.p;
        let vcb = b.width(p.vc);
        let w = b.width(p.route_index);
        b.poke_bool(p.reset, rst);
        assert_eq!(
            b.peek(p.credits) as u32,
            self.model.damq.returned,
            "seed {seed} cycle {cycle}: credits returned"
        );
        // The route unit's answer to last cycle's lookup (random idle values otherwise).
        let route = if self.asked { answer } else { None };
        b.poke_bool(p.route_valid, route.is_some());
        let idle_port = self.rng.range(0, s.ports as u64 - 1) as usize;
        let (rp, rn) = route.map_or((idle_port, self.rng.chance(0.5)), |r| (r.port, r.none));
        b.poke(p.route_port, if rn { 0 } else { 1 << rp });
        b.poke(p.route_index, if rn { 0 } else { rp as u128 });
        b.poke_bool(p.route_none, rn);
        b.poke_bool(p.valid, arrival.is_some());
        let (av, af) = arrival.unwrap_or((self.rng.bits(vcb) as usize, self.rng.bits(65)));
        b.poke(p.flit, af);
        b.poke(p.vc, av as u128);
        b.poke_bool(p.agent_ready, agent_ready);
        // The offer.
        let offers: Vec<VcOffer> = (0..s.vcs).map(|v| self.model.offer(v, route)).collect();
        let (ready, head, last) = (b.peek(p.ready), b.peek(p.head), b.peek(p.last));
        let (ports, out_vcs, lens) = (b.peek(p.ports), b.peek(p.out_vcs), b.peek(p.lens));
        for (v, o) in offers.iter().enumerate() {
            let bit = |x: u128| (x >> v) & 1 == 1;
            assert_eq!(
                (bit(ready), bit(head), bit(last)),
                (o.ready, o.head, o.last),
                "seed {seed} cycle {cycle}: VC {v} ready, head, last"
            );
            let field = |x: u128, width: usize| ((x >> (v * width)) & ((1 << width) - 1)) as usize;
            if o.ready {
                assert_eq!(
                    (field(ports, w), field(out_vcs, vcb)),
                    (o.port, o.out_vc),
                    "seed {seed} cycle {cycle}: VC {v} port, output VC"
                );
            }
            if o.ready && o.head {
                assert_eq!(
                    field(lens, 8),
                    o.len,
                    "seed {seed} cycle {cycle}: VC {v} len"
                );
            }
        }
        // The grant.
        let grant = choose(&mut self.rng, &offers);
        b.poke_bool(p.grant, grant.is_some());
        let idle_vc = self.rng.bits(vcb);
        b.poke(p.grant_vc, grant.map_or(idle_vc, |g| g as u128));
        let out = self.model.cycle(Inputs {
            arrival,
            route,
            grant,
            agent_ready,
        });
        // Everything else.
        let lookup = b
            .peek_bool(p.lookup_valid)
            .then(|| b.peek(p.lookup_flit) & !STAMP_MASK);
        assert_eq!(
            lookup,
            out.lookup.map(|l| l.1 & !STAMP_MASK),
            "seed {seed} cycle {cycle}: lookup (for VC {:?})",
            out.lookup.map(|l| l.0)
        );
        if let Some(f) = out.switch_flit {
            assert_eq!(
                b.peek(p.switch_flit),
                f,
                "seed {seed} cycle {cycle}: flit leaving VC {grant:?}"
            );
        }
        let agent = b
            .peek_bool(p.agent_valid)
            .then(|| (b.peek(p.agent_data), b.peek_bool(p.agent_last)));
        assert_eq!(agent, out.to_agent, "seed {seed} cycle {cycle}: to_agent");
        assert_eq!(b.peek(p.agent_port), 0, "to_agent.port");
        assert_eq!(
            (
                b.peek(p.events) as u32,
                b.peek_bool(p.fault),
                b.peek(p.queued) as u32
            ),
            (out.events, out.fault, out.queued),
            "seed {seed} cycle {cycle}: events, fault, queued"
        );
        b.tick();
        self.asked = out.lookup.is_some() && !rst;
        if rst {
            self.model.reset();
        }
        Step { offers, grant, out }
    }
}

struct Run {
    seed: u64,
    cycles: u64,
    bad: f64,
    in_rate: f64,
    grant_rate: f64,
    agent_rate: f64,
    no_route: f64,
    reset_gap: u64,
}

#[derive(Debug, Default, PartialEq)]
struct Outcome {
    /// Packets whose last flit left to the switch / to the agent.
    switched: u64,
    to_agent: u64,
    /// Flits discarded by side reads.
    discarded: u64,
    events: Vec<u64>,
    resets: u64,
}

fn bench(b: &mut dyn Backend, s: Shape, run: &Run) -> Outcome {
    let seed = run.seed;
    let p = Ports::of(b);
    let mut h = Harness {
        b,
        p,
        s,
        model: s.model(),
        rng: BenchRng::new(seed),
        seed,
        asked: false,
    };
    let mut sched = match run.reset_gap {
        0 => ResetSchedule::never(),
        gap => ResetSchedule::new(&mut h.rng, gap),
    };
    let mut out = Outcome {
        events: vec![0; event::COUNT],
        ..Default::default()
    };
    h.b.poke_bool(h.p.reset, true);
    h.b.tick();
    h.b.tick();
    let mut credits = vec![s.reserve; s.vcs];
    let mut streams: Vec<VecDeque<u128>> = vec![VecDeque::new(); s.vcs];
    for _ in 0..run.cycles {
        let rst = sched.next(&mut h.rng);
        let ret = h.model.damq.returned;
        for v in 0..s.vcs {
            credits[v] += (ret >> v) as usize & 1;
        }
        assert_eq!(credits, h.model.damq.credits, "seed {seed}: credit counts");
        for v in 0..s.vcs {
            if streams[v].is_empty() {
                let bad = h.rng.chance(run.bad);
                let mgmt = h.rng.chance(if v == s.mgmt_vc { 0.4 } else { 0.05 });
                streams[v].extend(item(&mut h.rng, s.max_len, bad, mgmt));
            }
        }
        let mut arrival = None;
        if h.rng.chance(run.in_rate) {
            let able: Vec<usize> = (0..s.vcs).filter(|&v| credits[v] > 0).collect();
            if !able.is_empty() {
                let v = able[h.rng.range(0, able.len() as u64 - 1) as usize];
                credits[v] -= 1;
                arrival = Some((v, streams[v].pop_front().unwrap()));
            }
        }
        let answer = RouteAnswer {
            port: h.rng.range(0, s.ports as u64 - 1) as usize,
            none: h.rng.chance(run.no_route),
        };
        let agent_ready = h.rng.chance(run.agent_rate);
        let grant_rate = run.grant_rate;
        let st = h.step(
            arrival,
            Some(answer),
            &mut |rng, offers| {
                let able: Vec<usize> = (0..offers.len()).filter(|&v| offers[v].ready).collect();
                (!able.is_empty() && rng.chance(grant_rate))
                    .then(|| able[rng.range(0, able.len() as u64 - 1) as usize])
            },
            agent_ready,
            rst,
        );
        if rst {
            credits = vec![s.reserve; s.vcs];
            out.resets += 1;
            continue;
        }
        if let Some(g) = st.grant {
            out.switched += st.offers[g].last as u64;
        }
        if let Some((_, true)) = st.out.to_agent.filter(|_| agent_ready) {
            out.to_agent += 1;
        }
        if let Some((_, false)) = st.out.side {
            out.discarded += 1;
        }
        for e in 0..event::COUNT {
            out.events[e] += (st.out.events >> e) as u64 & 1;
        }
    }
    if run.reset_gap > 0 {
        sched.assert_pulses(&format!("input_port seed {seed}"), 2);
    }
    assert_eq!(
        out.events[event::NO_SLOT],
        0,
        "seed {seed}: a flit found no slot"
    );
    out
}

fn random_run(seed: u64, cycles: u64) -> Run {
    Run {
        seed,
        cycles,
        bad: 0.15,
        in_rate: 0.8,
        grant_rate: 0.7,
        agent_rate: 0.6,
        no_route: 0.1,
        reset_gap: 0,
    }
}

fn small(name: &str, s: Shape, run: &Run) -> Outcome {
    run_both(name, || Small::new(s.params()), table, |b| bench(b, s, run)).result
}

/// Random traffic of every kind on every VC, dest_mod policy: every outcome occurs.
#[test]
fn input_port_random_traffic() {
    let mut total = [0u64; event::COUNT];
    for (seed, rates) in [(1u64, (0.8, 0.7)), (2, (1.0, 0.95)), (3, (0.5, 0.4))] {
        let mut run = random_run(seed, 12000);
        (run.in_rate, run.grant_rate) = rates;
        let r = small("input_port_small", SMALL, &run);
        eprintln!("seed {seed}: {r:?}");
        assert!(r.switched > 300, "seed {seed}: too few packets switched");
        assert!(r.to_agent > 30, "seed {seed}: too few packets to the agent");
        assert!(r.discarded > 30, "seed {seed}: too few flits discarded");
        for e in 0..event::COUNT {
            total[e] += r.events[e];
        }
    }
    for e in [
        event::NO_ROUTE,
        event::MGMT_OFF_VC,
        event::BAD_LEN,
        event::TOO_SHORT,
    ] {
        assert!(total[e] > 0, "event {} never occurred", event::NAMES[e]);
    }
}

/// The up_down policy (data VCs 0 and 1: VC 0 moves to VC 1 on down ports 3 and 4) and the
/// route stage, with resets under traffic.
#[test]
fn input_port_up_down_with_resets() {
    let s = STAGED;
    let mut run = random_run(7, 8000);
    run.reset_gap = 1500;
    let r = small("input_port_staged", s, &run);
    eprintln!("up_down: {r:?}");
    assert!(r.resets >= 2 && r.switched > 200 && r.to_agent > 10);
}

/// The default configuration (the emitted top): keep policy, long packets, resets.
#[test]
fn input_port_default_configuration() {
    let s = Shape {
        vcs: 2,
        slots: 128,
        reserve: 32,
        max_len: 32,
        ports: 5,
        mgmt_vc: 1,
        policy: VcPolicy::Keep,
        down_ports: 0,
        route_stage: true,
    };
    let mut run = random_run(21, 8000);
    run.reset_gap = 3000;
    let r = run_both(
        "input_port_default",
        || Default2::new(s.params()),
        table,
        |b| bench(b, s, &run),
    )
    .result;
    eprintln!("default: {r:?}");
    assert!(r.switched > 100 && r.to_agent > 10);
}

/// Zero load on shape `s`: head in at `c`, looked up at `c`, its route back at `c + 1`; ready
/// then (at `c + 2` with the route stage, once registered) and granted at once, leaving with
/// `delay + 2` (`+ 3` with the stage) and its output VC; each following flit leaves as soon as
/// it is the front. Returns the cycles from each flit's arrival to its grant.
fn zero_load(b: &mut dyn Backend, s: Shape) -> Vec<u64> {
    let p = Ports::of(b);
    let mut h = Harness {
        b,
        p,
        s,
        model: s.model(),
        rng: BenchRng::new(5),
        seed: 5,
        asked: false,
    };
    h.b.poke_bool(h.p.reset, true);
    h.b.tick();
    h.b.tick();
    let mut none = |_: &mut BenchRng, _: &[VcOffer]| None;
    for _ in 0..3 {
        h.step(None, None, &mut none, true, false);
    }
    let mut pkt = packet(&mut h.rng, 5, 5, false);
    let mut hdr = random_header(&mut h.rng, 5);
    (hdr.kind, hdr.vc, hdr.delay, hdr.dst) = (PacketKind::Put, 0, 100, 13);
    pkt[0] = Flit::Head(hdr).pack();
    let stage = s.route_stage as u64;
    let down = (s.down_ports >> 3) & 1 == 1;
    let out_vc = s
        .policy
        .out_vc(s.vcs, s.mgmt_vc, 1, PacketKind::Put, 13, down);
    let (mut arrived, mut lat) = (vec![], vec![]);
    for i in 0..pkt.len() + 3 {
        let arrival = pkt.get(i).map(|&f| (1usize, f));
        let mut grant_now = |_: &mut BenchRng, offers: &[VcOffer]| offers[1].ready.then_some(1);
        let now = h.b.cycle();
        let st = h.step(
            arrival,
            Some(RouteAnswer {
                port: 3,
                none: false,
            }),
            &mut grant_now,
            true,
            false,
        );
        if i == 0 {
            assert_eq!(
                st.out.lookup.map(|l| l.0),
                Some(1),
                "the head is looked up on arrival"
            );
        }
        if arrival.is_some() {
            arrived.push(now);
        }
        if st.grant == Some(1) {
            if lat.is_empty() {
                let f = st.out.switch_flit.unwrap();
                let out = FabricHeader::unpack(f as u64 & ((1 << 62) - 1)).unwrap();
                assert_eq!(
                    out.delay,
                    102 + stage as u16,
                    "delay + hop cycles at zero load"
                );
                assert_eq!(out.vc as usize, out_vc, "output VC");
                assert_eq!(st.offers[1].port, 3, "the route attached");
                assert_eq!(KIND.get(f), PacketKind::Put.code() as u128);
            }
            lat.push(now - arrived[lat.len()]);
        }
    }
    lat
}

#[test]
fn input_port_zero_load_latency() {
    let r = run_both(
        "input_port_small",
        || Small::new(SMALL.params()),
        table,
        |b| zero_load(b, SMALL),
    );
    eprintln!("arrival to grant, cycles: {:?}", r.result);
    assert_eq!(r.result, vec![1; 5], "without the route stage");
    let r = run_both(
        "input_port_staged",
        || Small::new(STAGED.params()),
        table,
        |b| zero_load(b, STAGED),
    );
    eprintln!(
        "arrival to grant with the route stage, cycles: {:?}",
        r.result
    );
    assert_eq!(r.result, vec![2; 5], "with the route stage");
}
