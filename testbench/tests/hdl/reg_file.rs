//! RegFile against its model, every cycle, on both backends: random reads and writes with
//! random request idle and response backpressure (random address, data and write lines while
//! `request.valid` is low), counters under event bursts reaching saturation and cleared by
//! writes, write-1-to-clear set/clear races, `status` inputs changing (with bits above the
//! registers' widths set), `written` strobes, unmapped addresses and writes to read-only
//! registers answered with their error and changing nothing (shown by reading every register
//! before and after, on the hardware's own answers), and reset asserted at random moments
//! mid-traffic. Every output is compared with the model on every cycle; `request.ready` low
//! during reset is part of it. The read latency is measured: the response to a request taken
//! on an edge is offered exactly two cycles later when the response side is free, and with
//! `response.ready` high one request per cycle is taken and answered.
//!
//! Two maps: a small bench map (A = 6, D = 16) with 1- to 3-bit counters that saturate within
//! a burst, long random runs; and the emitted sample map `regfile_sample` (A = 12, D = 64).
use hdl::regmap::{regfile_sample, Access, RegError, RegFile, RegMap, Register};
use std::collections::VecDeque;
use testbench::models::reg_file::{port_table, Inputs, RegFileModel, Request, RequestLines};
use testbench::{run_both, Backend, BenchRng, PortId};

/// The bench map: every kind, widths 1 to 16, narrow counters, holes, the last address.
fn bench_map() -> RegMap {
    RegMap::new("bench", "register file bench map")
        .reg(
            Register::rw("ctl", 0x00, 16)
                .reset(0xa5a5)
                .field("go", 0, 1, "go"),
        )
        .reg(Register::rw("narrow", 0x01, 3).reset(5))
        .reg(Register::ro("id", 0x02, 16))
        .reg(Register::rw("bit", 0x03, 1).reset(1))
        .reg(Register::w1c("faults", 0x04, 8))
        .reg(Register::ro("small", 0x05, 5))
        .reg(Register::counter("c1", 0x06, 1))
        .reg(Register::counter("c2", 0x07, 2))
        .reg(Register::w1c("one", 0x08, 1))
        .reg(Register::counter("c3", 0x09, 3))
        .reg(Register::counter("c16", 0x0c, 16))
        .reg(Register::w1c("wide", 0x0d, 16))
        .reg(Register::rw("high", 0x1f, 16))
        .reg(Register::ro("last", 0x3f, 12))
}

/// The ports, looked up once.
struct Ports {
    reset: PortId,
    valid: PortId,
    address: PortId,
    write: PortId,
    data: PortId,
    ready: PortId,
    rsp_valid: PortId,
    rsp_data: PortId,
    rsp_error: PortId,
    rsp_ready: PortId,
    settings: Vec<PortId>,
    written: Vec<PortId>,
    flags: Vec<PortId>,
    flag_values: Vec<PortId>,
    events: Vec<PortId>,
    status: Vec<PortId>,
}

impl Ports {
    fn new(b: &dyn Backend, map: &RegMap) -> Self {
        let many = |kind: Access, name: &str| -> Vec<PortId> {
            (0..map.count(kind))
                .map(|i| b.port(&format!("{name}${i}")))
                .collect()
        };
        Ports {
            reset: b.port("reset"),
            valid: b.port("request$valid"),
            address: b.port("request$address"),
            write: b.port("request$write"),
            data: b.port("request$data"),
            ready: b.port("request$ready"),
            rsp_valid: b.port("response$valid"),
            rsp_data: b.port("response$data"),
            rsp_error: b.port("response$error"),
            rsp_ready: b.port("response$ready"),
            settings: many(Access::ReadWrite, "settings"),
            written: many(Access::ReadWrite, "written"),
            flags: many(Access::WriteOneToClear, "flags"),
            flag_values: many(Access::WriteOneToClear, "flag_values"),
            events: many(Access::Counter, "events"),
            status: many(Access::ReadOnly, "status"),
        }
    }
}

/// What the traffic of one phase looks like.
#[derive(Clone, Copy)]
struct Traffic {
    /// Probability of offering a request when none is waiting.
    request: f64,
    /// Probability that a request is a write.
    write: f64,
    /// Probability that a request's address is drawn from the whole address range (else a
    /// register's address).
    stray: f64,
    /// Probability of `response.ready`.
    ready: f64,
    /// Probability of reset in a cycle.
    reset: f64,
    /// Hardware activity (events, flag sets, status changes).
    hardware: bool,
    /// Only requests that must fail: unmapped addresses and writes to read-only registers.
    only_errors: bool,
}

/// Counts of what the bench exercised (identical on both backends).
#[derive(Debug, Default, PartialEq, Clone)]
struct Report {
    cycles: u64,
    reads: u64,
    writes: u64,
    unmapped: u64,
    read_only: u64,
    resets: u64,
    /// Counter events that arrived while the counter was full (saturation held).
    saturated: u64,
    /// Write-1-to-clear writes clearing a bit that the hardware set in the same cycle.
    races: u64,
    counter_clears: u64,
    strobes: u64,
    /// Cycles from the accepting edge to the first cycle with the response valid: min, max.
    latency: (u64, u64),
    /// Requests answered two cycles after acceptance, back to back (full-throughput phase).
    streamed: u64,
}

/// A request taken by the register file and not yet answered.
struct Pending {
    request: Request,
    /// The cycle on whose edge it was taken.
    taken: u64,
    /// Its response has been seen valid.
    seen: bool,
}

struct Bench<'a> {
    b: &'a mut dyn Backend,
    p: Ports,
    model: RegFileModel,
    rng: BenchRng,
    width: usize,
    address_bits: usize,
    /// The request offered (held until taken).
    offer: Option<Request>,
    /// Requests taken and not yet answered, oldest first.
    pending: VecDeque<Pending>,
    /// Per counter: in an event burst.
    bursts: Vec<bool>,
    status: Vec<u64>,
    report: Report,
    /// Every response taken: request, data, error code.
    answers: Vec<(Request, u64, u64)>,
    seed: u64,
}

impl Bench<'_> {
    fn random_request(&mut self, t: &Traffic) -> Request {
        let map = self.model.map();
        let data = self.rng.bits(self.width) as u64;
        if t.only_errors {
            if self.rng.chance(0.5) {
                loop {
                    let address = self.rng.bits(self.address_bits) as u64;
                    if map.registers.iter().all(|r| r.offset != address) {
                        let write = self.rng.chance(0.5);
                        return Request {
                            address,
                            write,
                            data,
                        };
                    }
                }
            }
            let ro: Vec<u64> = map.of(Access::ReadOnly).map(|r| r.offset).collect();
            let address = ro[self.rng.range(0, ro.len() as u64 - 1) as usize];
            return Request {
                address,
                write: true,
                data,
            };
        }
        let address = if self.rng.chance(t.stray) {
            self.rng.bits(self.address_bits) as u64
        } else {
            let n = map.registers.len() as u64;
            map.registers[self.rng.range(0, n - 1) as usize].offset
        };
        Request {
            address,
            write: self.rng.chance(t.write),
            data,
        }
    }

    /// This cycle's inputs: reset, the offered request, backpressure, hardware activity.
    fn inputs(&mut self, t: &Traffic) -> Inputs {
        if self.offer.is_none() && self.rng.chance(t.request) {
            self.offer = Some(self.random_request(t));
        }
        let mut inputs = Inputs {
            reset: self.rng.chance(t.reset),
            request: self.offer,
            response_ready: self.rng.chance(t.ready),
            flags: vec![0; self.p.flags.len()],
            events: vec![false; self.p.events.len()],
            status: vec![],
        };
        if t.hardware {
            for i in 0..self.bursts.len() {
                if self.rng.chance(0.02) {
                    self.bursts[i] = !self.bursts[i];
                }
                inputs.events[i] = self.rng.chance(if self.bursts[i] { 0.9 } else { 0.05 });
            }
            for f in inputs.flags.iter_mut() {
                if self.rng.chance(0.2) {
                    *f = (self.rng.bits(self.width) & self.rng.bits(self.width)) as u64;
                }
            }
            for i in 0..self.status.len() {
                if self.rng.chance(0.02) {
                    // Bits above the register's width too: the register must not show them.
                    self.status[i] = self.rng.bits(self.width) as u64;
                }
            }
        }
        inputs.status = self.status.clone();
        inputs
    }

    fn poke(&mut self, inputs: &Inputs) {
        let b = &mut *self.b;
        let p = &self.p;
        b.poke_bool(p.reset, inputs.reset);
        b.poke_bool(p.rsp_ready, inputs.response_ready);
        RequestLines {
            valid: p.valid,
            address: p.address,
            write: p.write,
            data: p.data,
        }
        .poke(
            b,
            inputs.request,
            &mut self.rng,
            self.address_bits,
            self.width,
        );
        for (i, &v) in inputs.flags.iter().enumerate() {
            b.poke(p.flags[i], v as u128);
        }
        for (i, &v) in inputs.events.iter().enumerate() {
            b.poke_bool(p.events[i], v);
        }
        for (i, &v) in inputs.status.iter().enumerate() {
            b.poke(p.status[i], v as u128);
        }
    }

    /// Every output against the model; returns `request.ready`.
    fn check(&mut self, inputs: &Inputs) -> bool {
        let (b, p, m) = (&mut *self.b, &self.p, &self.model);
        let (seed, cycle) = (self.seed, self.report.cycles);
        let ready = b.peek_bool(p.ready);
        assert_eq!(
            ready,
            m.request_ready(inputs.reset, inputs.response_ready),
            "seed {seed}: request.ready at cycle {cycle}"
        );
        let want = m.response();
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
        for i in 0..p.settings.len() {
            assert_eq!(
                (b.peek(p.settings[i]) as u64, b.peek_bool(p.written[i])),
                (m.settings[i], m.written[i]),
                "seed {seed}: (settings, written)[{i}] at cycle {cycle}"
            );
        }
        for i in 0..p.flag_values.len() {
            assert_eq!(
                b.peek(p.flag_values[i]) as u64,
                m.flags[i],
                "seed {seed}: flag_values[{i}] at cycle {cycle}"
            );
        }
        ready
    }

    /// Statistics of the coming edge, from the model before it.
    fn count(&mut self, inputs: &Inputs) {
        let cycle = self.report.cycles;
        let m = &self.model;
        let r = &mut self.report;
        r.strobes += m.written.iter().filter(|&&w| w).count() as u64;
        if inputs.reset {
            return;
        }
        for (c, &e) in m.counters.iter().zip(&inputs.events) {
            r.saturated += (e && c.value == c.maximum) as u64;
        }
        let advance = m.response().is_none() || inputs.response_ready;
        if let Some(s) = m.staged().filter(|s| advance && s.write) {
            if let Some(reg) = m.register_at(s.address) {
                match reg.access {
                    Access::WriteOneToClear => {
                        let i = m.map().index(reg.access, &reg.name);
                        r.races += (s.data & inputs.flags[i] != 0) as u64;
                    }
                    Access::Counter => r.counter_clears += 1,
                    _ => {}
                }
            }
        }
        if let Some(w) = m.response() {
            let head = self
                .pending
                .front_mut()
                .expect("a response without a request");
            if !head.seen {
                // The first cycle this response is valid.
                head.seen = true;
                let l = cycle - head.taken;
                r.latency = (r.latency.0.min(l), r.latency.1.max(l));
            }
            if inputs.response_ready {
                let req = self.pending.pop_front().unwrap().request;
                self.answers.push((req, w.data, w.error.code()));
                match w.error {
                    RegError::Unmapped => r.unmapped += 1,
                    RegError::ReadOnly => r.read_only += 1,
                    RegError::None if req.write => r.writes += 1,
                    RegError::None => r.reads += 1,
                }
            }
        }
    }

    /// One cycle: drive, compare every output with the model, count, edge.
    fn cycle(&mut self, t: &Traffic) {
        let inputs = self.inputs(t);
        self.poke(&inputs);
        let ready = self.check(&inputs);
        self.count(&inputs);
        self.b.tick();
        let taken = self.model.edge(&inputs);
        if inputs.reset {
            self.report.resets += 1;
            self.pending.clear();
        }
        if let Some(request) = taken {
            assert!(ready && self.offer == Some(request));
            self.offer = None;
            self.pending.push_back(Pending {
                request,
                taken: self.report.cycles,
                seen: false,
            });
        }
        self.report.cycles += 1;
    }

    /// Reads every register in address order; returns (address, data) as the hardware
    /// answered (the model checks each on the way).
    fn read_all(&mut self, ready: f64) -> Vec<(u64, u64)> {
        let addresses: Vec<u64> = self
            .model
            .map()
            .by_offset()
            .iter()
            .map(|r| r.offset)
            .collect();
        let quiet = Traffic {
            request: 0.0,
            write: 0.0,
            stray: 0.0,
            ready,
            reset: 0.0,
            hardware: false,
            only_errors: false,
        };
        // A request still offered must stay until taken (the hold rule); the answers of
        // earlier requests are not part of the sweep.
        while self.offer.is_some() || !self.pending.is_empty() {
            self.cycle(&quiet);
        }
        let start = self.answers.len();
        for a in addresses.iter() {
            self.offer = Some(Request {
                address: *a,
                write: false,
                data: 0,
            });
            while self.offer.is_some() {
                self.cycle(&quiet);
            }
        }
        while !self.pending.is_empty() {
            self.cycle(&quiet);
        }
        self.answers[start..]
            .iter()
            .map(|(r, d, e)| {
                assert_eq!(*e, 0, "read-back of {:#x} failed", r.address);
                (r.address, *d)
            })
            .collect()
    }
}

fn bench(
    b: &mut dyn Backend,
    map: &RegMap,
    seed: u64,
    width: usize,
    address_bits: usize,
    cycles: u64,
) -> Report {
    let p = Ports::new(b, map);
    let n_counters = p.events.len();
    let n_status = p.status.len();
    let mut bench = Bench {
        b,
        p,
        model: RegFileModel::power_up(map),
        rng: BenchRng::new(seed),
        width,
        address_bits,
        offer: None,
        pending: VecDeque::new(),
        bursts: vec![false; n_counters],
        status: vec![0; n_status],
        report: Report {
            latency: (u64::MAX, 0),
            ..Default::default()
        },
        answers: vec![],
        seed,
    };
    // Power-up holds zero in the read-write registers: start with a reset.
    let start = Traffic {
        request: 0.0,
        write: 0.0,
        stray: 0.0,
        ready: 1.0,
        reset: 1.0,
        hardware: false,
        only_errors: false,
    };
    bench.cycle(&start);
    // Random traffic under random reset.
    let random = Traffic {
        request: 0.7,
        write: 0.45,
        stray: 0.15,
        ready: 0.7,
        reset: 0.003,
        hardware: true,
        only_errors: false,
    };
    for _ in 0..cycles {
        bench.cycle(&random);
    }
    // Errors change nothing: read everything, send only failing requests, read again.
    let before = bench.read_all(0.8);
    let errors = Traffic {
        request: 0.8,
        ready: 0.6,
        reset: 0.0,
        hardware: false,
        only_errors: true,
        ..random
    };
    for _ in 0..300 {
        bench.cycle(&errors);
    }
    while !bench.pending.is_empty() || bench.offer.is_some() {
        bench.cycle(&Traffic {
            request: 0.0,
            ..errors
        });
    }
    let after = bench.read_all(0.8);
    assert_eq!(
        before, after,
        "seed {seed}: failing requests changed a register"
    );
    // Full throughput: a request every cycle, response always ready: each answered exactly two
    // cycles after its accepting edge, one per cycle.
    let stream = Traffic {
        request: 1.0,
        ready: 1.0,
        reset: 0.0,
        ..random
    };
    let (first, answered) = (bench.report.cycles, bench.answers.len());
    let max_before = bench.report.latency.1;
    bench.report.latency.1 = 0;
    for _ in 0..200 {
        bench.cycle(&stream);
    }
    let streamed = (bench.answers.len() - answered) as u64;
    assert!(
        streamed >= 200 - 2,
        "seed {seed}: {streamed} responses in 200 cycles at full rate (from cycle {first})"
    );
    assert_eq!(
        bench.report.latency.1, 2,
        "seed {seed}: latency at full rate"
    );
    bench.report.latency.1 = bench.report.latency.1.max(max_before);
    bench.report.streamed = streamed;
    assert_eq!(bench.report.latency.0, 2, "seed {seed}: best read latency");
    bench.report
}

fn run<const A: usize, const D: usize>(
    name: &str,
    map: &RegMap,
    seeds: &[u64],
    cycles: u64,
) -> Vec<Report> {
    seeds
        .iter()
        .map(|&seed| {
            run_both(
                name,
                || RegFile::<A, D>::new(map),
                || port_table::<A, D>(map),
                |b| bench(b, map, seed, D, A, cycles),
            )
            .result
        })
        .collect()
}

#[test]
fn reg_file_matches_model() {
    let map = bench_map();
    for r in run::<6, 16>("reg_file_bench", &map, &[1, 2, 3], 6000) {
        eprintln!("{r:?}");
        assert!(r.reads > 500 && r.writes > 500, "{r:?}");
        assert!(r.unmapped > 100 && r.read_only > 100, "{r:?}");
        assert!(r.resets >= 5, "{r:?}");
        assert!(r.saturated > 100, "{r:?}");
        assert!(r.races > 20, "{r:?}");
        assert!(r.counter_clears > 50 && r.strobes > 100, "{r:?}");
        assert_eq!(r.latency.0, 2, "{r:?}");
    }
}

#[test]
fn regfile_sample_matches_model() {
    let map = regfile_sample();
    let r = run::<12, 64>("regfile_sample", &map, &[7], 3000);
    let r = &r[0];
    eprintln!("{r:?}");
    assert!(
        r.reads > 200 && r.writes > 200 && r.unmapped > 50 && r.read_only > 50,
        "{r:?}"
    );
    assert!(r.saturated > 0 && r.races > 0, "{r:?}");
}
