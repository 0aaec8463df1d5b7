//! The router's routing of data packets (`nrc::routing::RouteUnit`) behind the register file of
//! the router's indirect routing-table registers (`nrc::regs::route_table_map`, wired as
//! `nrc_mgmt` wires it), against [`RouteUnitModel`] and the register file's model, every cycle,
//! on rust-hdl's simulator and on Verilator.
//!
//! Stimulus: random register requests (writes of `index` and `ports`, reads of `read`, `index`
//! and `ports`, an unmapped address, writes to the read-only `read`) with random idle lines and
//! response backpressure, interleaved with heads on every input (destinations in the table,
//! beyond its depth, in a small hot set that the table writes also hit so that writes race
//! lookups of the same entry; sources random; non-head flits with `valid`, random flits while
//! `valid` is low), random output states per input (with many ties), adaptive and deterministic
//! routing switching during the run, and reset pulses at random moments.
//!
//! Checked every cycle: `request.ready`, every response (the value of `read` as the table
//! answers it, one cycle behind `index`), every input's `route` (valid exactly one cycle after
//! a head, no route for an empty entry or a destination beyond the table, else exactly the
//! port the documented rule picks: adaptive = an allowed port of the best score, ties rotating;
//! deterministic = the first allowed port at or after the flow's hash), and `faults`. The bench
//! also checks the rules on the model's own choices (allowed, best score) and that every case
//! it is about happened: races, reads one cycle after an `index` write, ties, both kinds of no
//! route, ignored non-heads, resets, the power-up table (all no route).
//!
//! Two sizes: the default top's (5 ports, 256 nodes, 7-bit states) and a small one (4 ports,
//! 20 nodes, so destinations 20..31 alias real RAM words and must still have no route; 3-bit
//! states, ties everywhere).
use hdl::formats::flit::Flit;
use hdl::formats::header::{FabricHeader, PacketKind};
use hdl::regmap::{Access, RegError, RegFile, RegMap, RegRequestSink, RegResponseSource};
use nrc::regs::route_table_map;
use nrc::routing::{HeadSink, OutputStatesSink, RouteResultSource, RouteUnit, NODE_BITS};
use rust_hdl::prelude::*;
use testbench::models::reg_file::{Inputs, RegFileModel, Request, RequestLines};
use testbench::models::route::{HeadInput, ManagementInput, OutputState, Route, RouteUnitModel};
use testbench::rhdl::SimValue;
use testbench::{port_table, run_both, Backend, BenchRng, PortId, PortTable, ResetSchedule};

/// Register address bits and data bits of the bench's register file.
const A: usize = 2;
const D: usize = 16;

/// The unit behind its register file: the bench's top.
#[derive(LogicBlock)]
struct RouteBench<
    const PORTS: usize,
    const W: usize,
    const S: usize,
    const SW: usize,
    const PS: usize,
    const AB: usize,
> {
    clock: Signal<In, Clock>,
    reset: Signal<In, bool>,
    request: RegRequestSink<A, D>,
    response: RegResponseSource<D>,
    heads: [HeadSink; PORTS],
    states: [OutputStatesSink<PS>; PORTS],
    deterministic: Signal<In, bool>,
    routes: [RouteResultSource<PORTS, W>; PORTS],
    faults: Signal<Out, Bits<PORTS>>,
    registers: RegFile<A, D>,
    unit: RouteUnit<PORTS, W, S, SW, PS, AB>,
    /// The write strobe of `index` (the table reads the level): unused, as in `nrc_mgmt`.
    index_strobe_unused: Signal<Local, bool>,
}

impl<
        const PORTS: usize,
        const W: usize,
        const S: usize,
        const SW: usize,
        const PS: usize,
        const AB: usize,
    > RouteBench<PORTS, W, S, SW, PS, AB>
{
    fn new(nodes: usize) -> Self {
        let map = route_table_map(PORTS);
        // The positions `update` names (as nrc_mgmt's slots).
        assert_eq!(map.index(Access::ReadWrite, "index"), 0);
        assert_eq!(map.index(Access::ReadWrite, "ports"), 1);
        assert_eq!(map.index(Access::ReadOnly, "read"), 0);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            request: Default::default(),
            response: Default::default(),
            heads: std::array::from_fn(|_| Default::default()),
            states: std::array::from_fn(|_| Default::default()),
            deterministic: Default::default(),
            routes: std::array::from_fn(|_| Default::default()),
            faults: Default::default(),
            registers: RegFile::new(&map),
            unit: RouteUnit::new(nodes),
            index_strobe_unused: Default::default(),
        }
    }
}

impl<
        const PORTS: usize,
        const W: usize,
        const S: usize,
        const SW: usize,
        const PS: usize,
        const AB: usize,
    > Logic for RouteBench<PORTS, W, S, SW, PS, AB>
{
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, registers, unit);
        self.registers.reset.next = self.reset.val();
        self.unit.reset.next = self.reset.val();
        RegRequestSink::<A, D>::link(&mut self.request, &mut self.registers.request);
        RegResponseSource::<D>::link(&mut self.response, &mut self.registers.response);
        for i in 0..PORTS {
            HeadSink::link(&mut self.heads[i], &mut self.unit.heads[i]);
            OutputStatesSink::<PS>::link(&mut self.states[i], &mut self.unit.states[i]);
            RouteResultSource::<PORTS, W>::link(&mut self.routes[i], &mut self.unit.routes[i]);
        }
        self.unit.deterministic.next = self.deterministic.val();
        self.faults.next = self.unit.faults.val();
        // The indirect registers, wired as nrc_mgmt wires them.
        self.unit.management.index.next = self.registers.settings[0].val().get_bits::<NODE_BITS>(0);
        self.unit.management.ports.next = self.registers.settings[1].val().get_bits::<PORTS>(0);
        self.unit.management.write.next = self.registers.written[1].val();
        self.index_strobe_unused.next = self.registers.written[0].val();
        self.registers.status[0].next = bit_cast::<D, PORTS>(self.unit.management.read.val());
    }
}

macro_rules! sig {
    ($t:expr, $T:ty, $name:expr, $($path:tt)+) => {
        $t.add(
            $name,
            move |x: &mut $T, v| x.$($path)+.next = SimValue::from_u128(v),
            move |x: &$T| SimValue::to_u128(&x.$($path)+.val()),
        );
    };
}

fn table<
    const PORTS: usize,
    const W: usize,
    const S: usize,
    const SW: usize,
    const PS: usize,
    const AB: usize,
>() -> PortTable<RouteBench<PORTS, W, S, SW, PS, AB>> {
    let mut t = port_table!(RouteBench<PORTS, W, S, SW, PS, AB>; reset, deterministic, faults,
        request.valid, request.address, request.write, request.data, request.ready,
        response.valid, response.data, response.error, response.ready);
    for i in 0..PORTS {
        sig!(t, RouteBench<PORTS, W, S, SW, PS, AB>, format!("heads${i}$valid"), heads[i].valid);
        sig!(t, RouteBench<PORTS, W, S, SW, PS, AB>, format!("heads${i}$flit"), heads[i].flit);
        sig!(t, RouteBench<PORTS, W, S, SW, PS, AB>, format!("states${i}$credits"), states[i].credits);
        sig!(t, RouteBench<PORTS, W, S, SW, PS, AB>, format!("states${i}$occupancy"), states[i].occupancy);
        sig!(t, RouteBench<PORTS, W, S, SW, PS, AB>, format!("routes${i}$valid"), routes[i].valid);
        sig!(t, RouteBench<PORTS, W, S, SW, PS, AB>, format!("routes${i}$port"), routes[i].port);
        sig!(t, RouteBench<PORTS, W, S, SW, PS, AB>, format!("routes${i}$index"), routes[i].index);
        sig!(t, RouteBench<PORTS, W, S, SW, PS, AB>, format!("routes${i}$no_route"), routes[i].no_route);
    }
    t
}

/// The ports, looked up once.
struct Ports {
    reset: PortId,
    deterministic: PortId,
    faults: PortId,
    valid: PortId,
    address: PortId,
    write: PortId,
    data: PortId,
    ready: PortId,
    rsp_valid: PortId,
    rsp_data: PortId,
    rsp_error: PortId,
    rsp_ready: PortId,
    head_valid: Vec<PortId>,
    head_flit: Vec<PortId>,
    credits: Vec<PortId>,
    occupancy: Vec<PortId>,
    route_valid: Vec<PortId>,
    route_port: Vec<PortId>,
    route_index: Vec<PortId>,
    route_none: Vec<PortId>,
}

impl Ports {
    fn new(b: &dyn Backend, ports: usize) -> Self {
        let many = |f: &str| -> Vec<PortId> {
            (0..ports)
                .map(|i| b.port(&f.replace('#', &i.to_string())))
                .collect()
        };
        Ports {
            reset: b.port("reset"),
            deterministic: b.port("deterministic"),
            faults: b.port("faults"),
            valid: b.port("request$valid"),
            address: b.port("request$address"),
            write: b.port("request$write"),
            data: b.port("request$data"),
            ready: b.port("request$ready"),
            rsp_valid: b.port("response$valid"),
            rsp_data: b.port("response$data"),
            rsp_error: b.port("response$error"),
            rsp_ready: b.port("response$ready"),
            head_valid: many("heads$#$valid"),
            head_flit: many("heads$#$flit"),
            credits: many("states$#$credits"),
            occupancy: many("states$#$occupancy"),
            route_valid: many("routes$#$valid"),
            route_port: many("routes$#$port"),
            route_index: many("routes$#$index"),
            route_none: many("routes$#$no_route"),
        }
    }
}

/// The size of one bench run.
#[derive(Clone, Copy)]
struct Size {
    ports: usize,
    state_bits: usize,
    nodes: usize,
}

/// What the traffic of a phase looks like.
#[derive(Clone, Copy)]
struct Traffic {
    /// Probability of offering a register request when none waits.
    request: f64,
    /// Probability of `response.ready`.
    response_ready: f64,
    /// Per input: probability of `head.valid`.
    head: f64,
    /// Nodes (destinations and indices) only from the hot set.
    hot_only: bool,
    /// Register writes only (no reads, no errors): the fill phase.
    fill: bool,
    /// Register requests at all.
    registers: bool,
    /// Resets allowed.
    resets: bool,
    /// Probability per cycle of switching between adaptive and deterministic routing.
    switch: f64,
}

/// Counts of what the bench exercised (identical on both backends).
#[derive(Debug, Default, PartialEq, Clone)]
struct Report {
    cycles: u64,
    resets: u64,
    routed_adaptive: u64,
    routed_deterministic: u64,
    /// Adaptive choices among several ports of the best score.
    ties: u64,
    /// Adaptive choices where the best port was not the lowest allowed one.
    not_lowest: u64,
    no_route_empty: u64,
    no_route_beyond: u64,
    /// Heads that arrived in the power-up phase (all without a route).
    power_up_no_route: u64,
    /// Non-head flits offered with `valid` (ignored).
    ignored: u64,
    /// Heads whose entry was written on the edge that read it (seen new).
    races: u64,
    table_writes: u64,
    writes_beyond: u64,
    reads: u64,
    /// Reads of `read` sampled the cycle right after `index` changed (the previous entry).
    lagged_reads: u64,
    errors: u64,
}

struct Bench<'a> {
    b: &'a mut dyn Backend,
    p: Ports,
    size: Size,
    regs: RegFileModel,
    unit: RouteUnitModel,
    rng: BenchRng,
    resets: ResetSchedule,
    offer: Option<Request>,
    deterministic: bool,
    /// Per input, per output: the states of this cycle.
    states: Vec<Vec<OutputState>>,
    hot: Vec<u64>,
    index_address: u64,
    ports_address: u64,
    read_address: u64,
    report: Report,
    seed: u64,
    power_up: bool,
}

impl Bench<'_> {
    /// A node: from the hot set, in the table, just beyond it, or anywhere.
    fn node(&mut self, t: &Traffic) -> u64 {
        if t.hot_only || self.rng.chance(0.3) {
            let i = self.rng.range(0, self.hot.len() as u64 - 1) as usize;
            return self.hot[i];
        }
        let nodes = self.size.nodes as u64;
        match self.rng.range(0, 9) {
            0..=5 => self.rng.range(0, nodes - 1),
            6 | 7 => self.rng.range(nodes, (nodes + 16).min(0xffff)),
            _ => self.rng.bits(NODE_BITS) as u64,
        }
    }

    fn random_request(&mut self, t: &Traffic) -> Request {
        let ports = self.size.ports;
        let entry = |rng: &mut BenchRng| {
            if rng.chance(0.1) {
                0
            } else {
                rng.bits(ports) as u64
            }
        };
        let kind = if t.fill {
            self.rng.range(0, 1)
        } else {
            self.rng.range(0, 9)
        };
        let (address, write, data) = match kind {
            0 => (self.index_address, true, self.node(t)),
            1 => (self.ports_address, true, entry(&mut self.rng)),
            2..=4 => (self.read_address, false, 0),
            5 => (self.index_address, false, 0),
            6 => (self.ports_address, false, 0),
            7 => (3, self.rng.chance(0.5), self.rng.bits(D) as u64),
            8 => (self.read_address, true, self.rng.bits(D) as u64),
            _ => (self.index_address, true, self.node(t)),
        };
        Request {
            address,
            write,
            data,
        }
    }

    fn head(&mut self, t: &Traffic) -> HeadInput {
        let valid = self.rng.chance(t.head);
        if !valid {
            return HeadInput {
                valid,
                flit: self.rng.bits(hdl::formats::FLIT_BITS),
            };
        }
        if self.rng.chance(0.1) {
            // Not a head: a body, tail or control flit offered with valid.
            let flit = match self.rng.range(0, 2) {
                0 => Flit::Body(self.rng.bits(64) as u64).pack(),
                1 => Flit::Tail {
                    crc16: self.rng.bits(16) as u16,
                }
                .pack(),
                _ => Flit::credit_return(self.rng.bits(3) as u8, self.rng.bits(16) as u16).pack(),
            };
            return HeadInput { valid, flit };
        }
        let header = FabricHeader {
            dst: self.node(t) as u16,
            src: self.rng.bits(NODE_BITS) as u16,
            vc: self.rng.bits(3) as u8,
            kind: PacketKind::Put,
            len: self.rng.range(2, 255) as u8,
            delay: self.rng.bits(12) as u16,
        };
        HeadInput {
            valid,
            flit: Flit::Head(header).pack(),
        }
    }

    /// New output states for some inputs: small values often, so that scores tie.
    fn churn_states(&mut self) {
        let max = (1u64 << self.size.state_bits) - 1;
        for i in 0..self.size.ports {
            if !self.rng.chance(0.3) {
                continue;
            }
            for o in 0..self.size.ports {
                let mut v = || {
                    if self.rng.chance(0.5) {
                        [0, 1, max][self.rng.range(0, 2) as usize]
                    } else {
                        self.rng.range(0, max)
                    }
                };
                let credits = v();
                let occupancy = v();
                self.states[i][o] = OutputState { credits, occupancy };
            }
        }
    }

    fn poke(&mut self, reset: bool, inputs: &Inputs, heads: &[HeadInput]) {
        let b = &mut *self.b;
        let p = &self.p;
        b.poke_bool(p.reset, reset);
        b.poke_bool(p.rsp_ready, inputs.response_ready);
        b.poke_bool(p.deterministic, self.deterministic);
        RequestLines {
            valid: p.valid,
            address: p.address,
            write: p.write,
            data: p.data,
        }
        .poke(b, inputs.request, &mut self.rng, A, D);
        let s = self.size.state_bits;
        for (i, h) in heads.iter().enumerate() {
            b.poke_bool(p.head_valid[i], h.valid);
            b.poke(p.head_flit[i], h.flit);
            let pack = |f: &dyn Fn(&OutputState) -> u64| {
                self.states[i]
                    .iter()
                    .enumerate()
                    .fold(0u128, |w, (o, st)| w | (f(st) as u128) << (o * s))
            };
            b.poke(p.credits[i], pack(&|st| st.credits));
            b.poke(p.occupancy[i], pack(&|st| st.occupancy));
        }
    }

    /// Every output against the models; returns the routes offered.
    fn check(&mut self, reset: bool, inputs: &Inputs) -> Vec<Option<Route>> {
        let (seed, cycle) = (self.seed, self.report.cycles);
        let b = &mut *self.b;
        let p = &self.p;
        assert_eq!(
            b.peek_bool(p.ready),
            self.regs.request_ready(reset, inputs.response_ready),
            "seed {seed}: request.ready at cycle {cycle}"
        );
        let want = self.regs.response();
        assert_eq!(
            b.peek_bool(p.rsp_valid),
            want.is_some(),
            "seed {seed}: response.valid at cycle {cycle}"
        );
        if let Some(w) = want {
            let (data, error) = (b.peek(p.rsp_data) as u64, b.peek(p.rsp_error) as u64);
            assert_eq!(
                (data, RegError::from_code(error)),
                (w.data, Some(w.error)),
                "seed {seed}: response (data, error) at cycle {cycle}"
            );
        }
        let mut routes = vec![];
        let mut faults = 0u128;
        for i in 0..self.size.ports {
            let route = self.unit.route(i, &self.states[i], self.deterministic);
            let valid = b.peek_bool(p.route_valid[i]);
            assert_eq!(
                valid,
                route.is_some(),
                "seed {seed}: routes[{i}].valid at cycle {cycle}"
            );
            if let Some(r) = &route {
                let (port, index, none) = (
                    b.peek(p.route_port[i]) as u64,
                    b.peek(p.route_index[i]) as u64,
                    b.peek_bool(p.route_none[i]),
                );
                let want = match &r.choice {
                    Some(c) => (1u64 << c.port, c.port as u64, false),
                    None => (0, 0, true),
                };
                assert_eq!(
                    (port, index, none),
                    want,
                    "seed {seed}: routes[{i}] (port one-hot, index, no_route) at cycle {cycle} for dst {:#x} src {:#x}, entry {:#b}, deterministic {}, states {:?}",
                    r.dst,
                    r.src,
                    r.allowed,
                    self.deterministic,
                    self.states[i]
                );
                faults |= (none as u128) << i;
            }
            routes.push(route);
        }
        assert_eq!(
            b.peek(p.faults),
            faults,
            "seed {seed}: faults at cycle {cycle}"
        );
        routes
    }

    /// The rules on the model's own choices, and the statistics.
    fn count(&mut self, routes: &[Option<Route>], heads: &[HeadInput], m: &ManagementInput) {
        let r = &mut self.report;
        for (i, route) in routes.iter().enumerate() {
            let Some(route) = route else { continue };
            match &route.choice {
                None if self.power_up => r.power_up_no_route += 1,
                None if self.unit.table.holds(route.dst) => {
                    assert_eq!(route.allowed, 0);
                    r.no_route_empty += 1
                }
                None => r.no_route_beyond += 1,
                Some(c) => {
                    assert!(route.allowed >> c.port & 1 == 1, "chose a port not allowed");
                    let chooser = self.unit.chooser(i);
                    if self.deterministic {
                        r.routed_deterministic += 1;
                        assert_eq!(c.start, chooser.hash(route.src, route.dst));
                    } else {
                        r.routed_adaptive += 1;
                        let score = |p: usize| chooser.score(&self.states[i][p]);
                        let best = (0..self.size.ports)
                            .filter(|&p| route.allowed >> p & 1 == 1)
                            .map(score)
                            .max()
                            .unwrap();
                        assert_eq!(score(c.port), best, "not the best score");
                        r.ties += (c.pool.count_ones() > 1) as u64;
                        r.not_lowest += (c.port != route.allowed.trailing_zeros() as usize) as u64;
                    }
                }
            }
        }
        for (i, h) in heads.iter().enumerate() {
            r.ignored += (h.valid && !h.is_head()) as u64;
            r.races += (h.valid && h.is_head() && self.unit.races(i, heads, m)) as u64;
        }
        if m.write {
            if self.unit.table.holds(m.index) {
                r.table_writes += 1;
            } else {
                r.writes_beyond += 1;
            }
        }
    }

    /// One cycle: drive, compare every output with the models, count, edge.
    fn cycle(&mut self, t: &Traffic) {
        let reset = if t.resets {
            self.resets.next(&mut self.rng)
        } else {
            false
        };
        if self.rng.chance(t.switch) {
            self.deterministic = !self.deterministic;
        }
        self.churn_states();
        if t.registers && self.offer.is_none() && self.rng.chance(t.request) {
            self.offer = Some(self.random_request(t));
        }
        let heads: Vec<HeadInput> = (0..self.size.ports).map(|_| self.head(t)).collect();
        let inputs = Inputs {
            reset,
            request: self.offer,
            response_ready: self.rng.chance(t.response_ready),
            flags: vec![],
            events: vec![],
            status: vec![self.unit.read()],
        };
        // The management side this cycle: the register file's outputs before the edge.
        let m = ManagementInput {
            index: self.regs.settings[0],
            ports: self.regs.settings[1],
            write: self.regs.written[1],
        };
        self.poke(reset, &inputs, &heads);
        let routes = self.check(reset, &inputs);
        self.count(&routes, &heads, &m);
        let advance = self.regs.response().is_none() || inputs.response_ready;
        if let Some(s) = self.regs.staged().filter(|_| advance && !reset) {
            if !s.write && s.address == self.read_address {
                self.report.reads += 1;
                self.report.lagged_reads += (self.unit.last_index() != m.index) as u64;
            }
        }
        self.b.tick();
        let taken = self.regs.edge(&inputs);
        self.unit.edge(reset, &m, &heads, &routes);
        if let Some(request) = taken {
            assert_eq!(self.offer, Some(request));
            self.offer = None;
        }
        if let Some(w) = self.regs.response().filter(|_| advance) {
            self.report.errors += (w.error != RegError::None) as u64;
        }
        self.report.resets += reset as u64;
        self.report.cycles += 1;
    }
}

fn bench(b: &mut dyn Backend, size: Size, seed: u64, cycles: u64) -> Report {
    let map: RegMap = route_table_map(size.ports);
    let address = |n: &str| map.get(n).unwrap().offset;
    let mut rng = BenchRng::new(seed);
    let resets = ResetSchedule::new(&mut rng, 400);
    let hot: Vec<u64> = (0..3)
        .map(|_| rng.range(0, size.nodes as u64 - 1))
        .chain([size.nodes as u64])
        .collect();
    let p = Ports::new(b, size.ports);
    let mut bench = Bench {
        b,
        p,
        size,
        regs: RegFileModel::power_up(&map),
        unit: RouteUnitModel::new(size.ports, size.state_bits, size.nodes),
        rng,
        resets,
        offer: None,
        deterministic: false,
        states: vec![vec![OutputState::default(); size.ports]; size.ports],
        hot,
        index_address: address("index"),
        ports_address: address("ports"),
        read_address: address("read"),
        report: Report::default(),
        seed,
        power_up: true,
    };
    let base = Traffic {
        request: 0.8,
        response_ready: 0.7,
        head: 0.5,
        hot_only: false,
        fill: false,
        registers: true,
        resets: true,
        switch: 0.01,
    };
    // Power-up: the table is empty, every head has no route (the registers' power-up values
    // are their reset values, zero).
    for _ in 0..60 {
        bench.cycle(&Traffic {
            registers: false,
            resets: false,
            switch: 0.05,
            ..base
        });
    }
    bench.power_up = false;
    // Fill: writes of index and ports only, heads meanwhile.
    for _ in 0..cycles / 4 {
        bench.cycle(&Traffic {
            fill: true,
            request: 1.0,
            response_ready: 0.9,
            ..base
        });
    }
    // Everything at random, resets included.
    for _ in 0..cycles / 2 {
        bench.cycle(&base);
    }
    // The hot set only: writes race lookups of the same entries, reads follow index writes.
    for _ in 0..cycles / 4 {
        bench.cycle(&Traffic {
            hot_only: true,
            request: 1.0,
            response_ready: 1.0,
            head: 0.9,
            ..base
        });
    }
    let r = bench.report.clone();
    let what = format!("route_unit seed {seed}: {r:?}");
    assert!(r.power_up_no_route > 20, "{what}");
    assert!(
        r.routed_adaptive > 100 && r.routed_deterministic > 100,
        "{what}"
    );
    assert!(r.ties > 20 && r.not_lowest > 20, "{what}");
    assert!(r.no_route_empty > 10 && r.no_route_beyond > 10, "{what}");
    assert!(r.races > 5 && r.lagged_reads > 5 && r.reads > 100, "{what}");
    assert!(r.table_writes > 100 && r.writes_beyond > 5, "{what}");
    assert!(r.ignored > 50 && r.resets > 5 && r.errors > 20, "{what}");
    r
}

type Default5 = RouteBench<5, 3, 7, 8, 35, 8>;
type Small4 = RouteBench<4, 2, 3, 4, 12, 5>;

#[test]
fn route_unit_default_size_against_model() {
    let size = Size {
        ports: 5,
        state_bits: 7,
        nodes: 256,
    };
    for seed in [1, 2] {
        let r = run_both(
            "route_unit_5",
            || Default5::new(size.nodes),
            table::<5, 3, 7, 8, 35, 8>,
            |b| bench(b, size, seed, 8000),
        );
        println!("route_unit 5 ports, seed {seed}: {:?}", r.result);
    }
}

#[test]
fn route_unit_small_table_against_model() {
    let size = Size {
        ports: 4,
        state_bits: 3,
        nodes: 20,
    };
    for seed in [3, 4] {
        let r = run_both(
            "route_unit_4",
            || Small4::new(size.nodes),
            table::<4, 2, 3, 4, 12, 5>,
            |b| bench(b, size, seed, 8000),
        );
        println!("route_unit 4 ports, seed {seed}: {:?}", r.result);
    }
}
