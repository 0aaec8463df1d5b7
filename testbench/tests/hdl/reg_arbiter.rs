//! `RegArbiter` on both backends, in front of a `RegFile` of the sample map (`regfile_sample`,
//! A = 12, D = 64; its read-only registers show fixed patterns), with two random requesters:
//! reads and writes of mapped, unmapped and read-only registers at random rates, random
//! address/data/write lines while `valid` is low, random response backpressure per
//! requester, and reset at random moments (`ResetSchedule`).
//!
//! Checked against a functional model of the file (the requests in the order the arbiter
//! lets them through, which the bench sees as the requesters' handshakes): every response
//! goes to the requester that issued the request, in its order, with the right data and error
//! code; none is lost, duplicated or sent to the other requester (at the end every request
//! taken has been answered); at most one request is taken per cycle, none during reset;
//! `second` is never taken while `first` offers a request, unless `second`'s offer was on the
//! port first (the arbiter keeps an offered request until taken). Requests taken before a
//! reset get no response (the file drops them). Directed: one requester alone at full rate
//! is taken every cycle; both offering continuously, `first` takes every cycle and `second`
//! none (fixed priority).
// The two requesters are indexed together with their models' state.
#![allow(clippy::needless_range_loop)]
use hdl::regmap::{regfile_sample, Access, RegArbiter, RegError, RegFile};
use rust_hdl::prelude::*;
use std::collections::VecDeque;
use testbench::models::reg_file::{RegFileModel, Request, RequestLines, Response};
use testbench::{port_table, run_both, Backend, BenchRng, PortId, PortTable, ResetSchedule};

const A: usize = 12;
const D: usize = 64;

/// The value a read-only register `i` of the harness shows.
fn status_value(i: usize) -> u64 {
    0x0123_4567_89ab_cdef_u64.rotate_left(7 * i as u32) ^ i as u64
}

/// The arbiter in front of a register file of the sample map.
#[derive(LogicBlock)]
struct Harness {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub first_request: hdl::regmap::RegRequestSink<A, D>,
    pub first_response: hdl::regmap::RegResponseSource<D>,
    pub second_request: hdl::regmap::RegRequestSink<A, D>,
    pub second_response: hdl::regmap::RegResponseSource<D>,
    arbiter: RegArbiter<A, D>,
    file: RegFile<A, D>,
    status_values: Vec<Constant<Bits<D>>>,
}

impl Harness {
    fn new() -> Self {
        let map = regfile_sample();
        Self {
            clock: Default::default(),
            reset: Default::default(),
            first_request: Default::default(),
            first_response: Default::default(),
            second_request: Default::default(),
            second_response: Default::default(),
            arbiter: RegArbiter::new(),
            file: RegFile::new(&map),
            status_values: (0..map.count(Access::ReadOnly))
                .map(|i| Constant::new(status_value(i).into()))
                .collect(),
        }
    }
}

impl Logic for Harness {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, arbiter, file);
        self.arbiter.reset.next = self.reset.val();
        self.file.reset.next = self.reset.val();
        hdl::regmap::RegRequestSink::<A, D>::link(
            &mut self.first_request,
            &mut self.arbiter.first_request,
        );
        hdl::regmap::RegResponseSource::<D>::link(
            &mut self.first_response,
            &mut self.arbiter.first_response,
        );
        hdl::regmap::RegRequestSink::<A, D>::link(
            &mut self.second_request,
            &mut self.arbiter.second_request,
        );
        hdl::regmap::RegResponseSource::<D>::link(
            &mut self.second_response,
            &mut self.arbiter.second_response,
        );
        hdl::regmap::RegRequestSource::<A, D>::join(
            &mut self.arbiter.request,
            &mut self.file.request,
        );
        hdl::regmap::RegResponseSink::<D>::join(
            &mut self.arbiter.response,
            &mut self.file.response,
        );
        for i in 0..self.file.status.len() {
            self.file.status[i].next = self.status_values[i].val();
        }
        for i in 0..self.file.flags.len() {
            self.file.flags[i].next = 0.into();
        }
        for i in 0..self.file.events.len() {
            self.file.events[i].next = false;
        }
    }
}

fn table() -> PortTable<Harness> {
    port_table!(Harness; reset,
        first_request.valid, first_request.address, first_request.write, first_request.data,
        first_request.ready, first_response.valid, first_response.data, first_response.error,
        first_response.ready,
        second_request.valid, second_request.address, second_request.write, second_request.data,
        second_request.ready, second_response.valid, second_response.data, second_response.error,
        second_response.ready)
}

/// One requester's ports.
struct Requester {
    valid: PortId,
    address: PortId,
    write: PortId,
    data: PortId,
    ready: PortId,
    response_valid: PortId,
    response_data: PortId,
    response_error: PortId,
    response_ready: PortId,
    /// The request offered (held until taken) and the cycle its offer began.
    offer: Option<(Request, u64)>,
    /// Responses due, oldest first.
    expected: VecDeque<Response>,
}

impl Requester {
    fn new(b: &dyn Backend, name: &str) -> Self {
        let p = |s: &str| b.port(&format!("{name}_{s}"));
        Self {
            valid: p("request$valid"),
            address: p("request$address"),
            write: p("request$write"),
            data: p("request$data"),
            ready: p("request$ready"),
            response_valid: p("response$valid"),
            response_data: p("response$data"),
            response_error: p("response$error"),
            response_ready: p("response$ready"),
            offer: None,
            expected: VecDeque::new(),
        }
    }
}

/// How the two requesters behave in a phase.
#[derive(Clone, Copy)]
struct Traffic {
    /// Chance per idle cycle of a new request, per requester.
    rate: [f64; 2],
    /// Chance of `response.ready`, per requester.
    ready: [f64; 2],
    /// Reset at random moments.
    resets: bool,
}

/// What the bench exercised (identical on both backends).
#[derive(Debug, Default, PartialEq, Clone)]
struct Report {
    taken: [u64; 2],
    answered: [u64; 2],
    errors: u64,
    /// Cycles where both offered and `first` was taken.
    contended: u64,
    /// `second` taken while `first` offered (its offer came later).
    held: u64,
    resets: u64,
    /// Requests taken but cut by a reset before their response.
    cut: u64,
}

struct Bench<'a> {
    b: &'a mut dyn Backend,
    reset: PortId,
    requesters: [Requester; 2],
    model: RegFileModel,
    status: Vec<u64>,
    rng: BenchRng,
    schedule: ResetSchedule,
    report: Report,
    seed: u64,
}

impl Bench<'_> {
    fn new(b: &mut dyn Backend, seed: u64) -> Bench<'_> {
        let map = regfile_sample();
        let mut rng = BenchRng::new(seed);
        let schedule = ResetSchedule::new(&mut rng, 700);
        let requesters = [Requester::new(b, "first"), Requester::new(b, "second")];
        let reset = b.port("reset");
        Bench {
            b,
            reset,
            requesters,
            status: (0..map.count(Access::ReadOnly)).map(status_value).collect(),
            model: RegFileModel::new(&map),
            rng,
            schedule,
            report: Report::default(),
            seed,
        }
    }

    fn random_request(&mut self) -> Request {
        let map = self.model.map();
        let address = if self.rng.chance(0.15) {
            self.rng.bits(A) as u64
        } else {
            let n = map.registers.len() as u64;
            map.registers[self.rng.range(0, n - 1) as usize].offset
        };
        Request {
            address,
            write: self.rng.chance(0.5),
            data: self.rng.bits(D) as u64,
        }
    }

    /// The functional effect of a request taken now: its response, and the register written.
    fn execute(&mut self, r: &Request) -> Response {
        let answer = self.model.answer(r, &self.status);
        if r.write && answer.error == RegError::None {
            let reg = self.model.register_at(r.address).unwrap().clone();
            let i = self.model.map().index(reg.access, &reg.name);
            match reg.access {
                Access::ReadWrite => self.model.settings[i] = r.data & reg.mask(),
                Access::WriteOneToClear => self.model.flags[i] &= !r.data,
                Access::Counter => self.model.counters[i].value = 0,
                Access::ReadOnly => unreachable!(),
            }
        }
        answer
    }

    fn cycle(&mut self, t: &Traffic) {
        let reset = if t.resets {
            self.schedule.next(&mut self.rng)
        } else {
            false
        };
        let cycle = self.b.cycle();
        self.b.poke_bool(self.reset, reset);
        for k in 0..2 {
            if self.requesters[k].offer.is_none() && self.rng.chance(t.rate[k]) {
                let r = self.random_request();
                self.requesters[k].offer = Some((r, cycle));
            }
            let ready = self.rng.chance(t.ready[k]);
            let q = &self.requesters[k];
            let b = &mut *self.b;
            b.poke_bool(q.response_ready, ready);
            RequestLines {
                valid: q.valid,
                address: q.address,
                write: q.write,
                data: q.data,
            }
            .poke(b, q.offer.map(|(r, _)| r), &mut self.rng, A, D);
        }
        let mut taken = [false; 2];
        for k in 0..2 {
            let q = &self.requesters[k];
            taken[k] = q.offer.is_some() && self.b.peek_bool(q.ready);
            // A response offered in a reset cycle and taken is delivered (the stream rules);
            // the file drops only those still waiting after the reset edge.
            if self.b.peek_bool(q.response_valid) && self.b.peek_bool(q.response_ready) {
                let got = Response {
                    data: self.b.peek(q.response_data) as u64,
                    error: RegError::from_code(self.b.peek(q.response_error) as u64).unwrap(),
                };
                let want = self.requesters[k].expected.pop_front().unwrap_or_else(|| {
                    panic!(
                        "seed {}: requester {k} got a response {got:?} without a request at cycle {cycle}",
                        self.seed
                    )
                });
                assert_eq!(
                    got, want,
                    "seed {}: requester {k}'s response at cycle {cycle}",
                    self.seed
                );
                self.report.answered[k] += 1;
                self.report.errors += (got.error != RegError::None) as u64;
            }
        }
        if reset {
            assert!(
                !taken[0] && !taken[1],
                "seed {}: a request taken during reset",
                self.seed
            );
            for q in self.requesters.iter_mut() {
                self.report.cut += q.expected.len() as u64;
                q.expected.clear();
            }
            self.model.reset();
        } else {
            assert!(
                !(taken[0] && taken[1]),
                "seed {}: both requests taken at cycle {cycle}",
                self.seed
            );
            let first_offer = self.requesters[0].offer.map(|o| o.1);
            if taken[1] {
                if let Some(since) = first_offer {
                    let second_since = self.requesters[1].offer.unwrap().1;
                    assert!(
                        since > second_since,
                        "seed {}: second taken at cycle {cycle} while first offered since {since} (second since {second_since})",
                        self.seed
                    );
                    self.report.held += 1;
                }
            }
            if taken[0] && self.requesters[1].offer.is_some() {
                self.report.contended += 1;
            }
            for k in 0..2 {
                if taken[k] {
                    let (r, _) = self.requesters[k].offer.take().unwrap();
                    let response = self.execute(&r);
                    self.requesters[k].expected.push_back(response);
                    self.report.taken[k] += 1;
                }
            }
        }
        self.b.tick();
    }

    /// Runs until every request taken has been answered (responses always taken).
    fn drain(&mut self) {
        let idle = Traffic {
            rate: [0.0; 2],
            ready: [1.0; 2],
            resets: false,
        };
        let mut n = 0;
        while self
            .requesters
            .iter()
            .any(|q| !q.expected.is_empty() || q.offer.is_some())
        {
            self.cycle(&idle);
            n += 1;
            assert!(n < 100, "seed {}: requests never answered", self.seed);
        }
    }
}

fn random_bench(b: &mut dyn Backend, seed: u64) -> Report {
    let mut bench = Bench::new(b, seed);
    bench.b.poke_bool(bench.reset, true);
    bench.b.tick();
    let phases = [
        // Both busy, light backpressure.
        Traffic {
            rate: [0.6, 0.6],
            ready: [0.8, 0.8],
            resets: true,
        },
        // Heavy backpressure on one side, then the other.
        Traffic {
            rate: [0.5, 0.9],
            ready: [0.2, 0.9],
            resets: true,
        },
        Traffic {
            rate: [0.9, 0.5],
            ready: [0.9, 0.2],
            resets: true,
        },
        // Sparse.
        Traffic {
            rate: [0.1, 0.1],
            ready: [0.5, 0.5],
            resets: true,
        },
    ];
    for t in phases {
        for _ in 0..1500 {
            bench.cycle(&t);
        }
    }
    bench.drain();
    bench.report.resets = bench.schedule.pulses();
    bench.schedule.assert_pulses("reg_arbiter", 4);
    bench.report
}

/// `first` alone, then both, offering every cycle with responses always taken: requests taken.
fn full_rate(b: &mut dyn Backend) -> ([u64; 2], [u64; 2]) {
    let mut bench = Bench::new(b, 99);
    bench.b.poke_bool(bench.reset, true);
    bench.b.tick();
    let alone = Traffic {
        rate: [1.0, 0.0],
        ready: [1.0; 2],
        resets: false,
    };
    for _ in 0..200 {
        bench.cycle(&alone);
    }
    bench.drain();
    let one = bench.report.taken;
    let both = Traffic {
        rate: [1.0, 1.0],
        ready: [1.0; 2],
        resets: false,
    };
    for _ in 0..200 {
        bench.cycle(&both);
    }
    let two = [
        bench.report.taken[0] - one[0],
        bench.report.taken[1] - one[1],
    ];
    (one, two)
}

#[test]
fn reg_arbiter_two_requesters_onto_the_sample_file() {
    for seed in [1, 2] {
        let r = run_both("reg_arbiter", Harness::new, table, |b| {
            random_bench(b, seed)
        })
        .result;
        eprintln!("{r:?}");
        assert!(r.taken[0] > 1000 && r.taken[1] > 500, "{r:?}");
        assert!(r.errors > 100 && r.contended > 100 && r.held > 10, "{r:?}");
        assert!(r.cut > 0, "{r:?}");
        assert_eq!(
            r.taken.iter().sum::<u64>(),
            r.answered.iter().sum::<u64>() + r.cut,
            "{r:?}"
        );
    }
}

#[test]
fn reg_arbiter_full_rate_and_priority() {
    let (one, two) = run_both("reg_arbiter", Harness::new, table, full_rate).result;
    eprintln!("reg_arbiter: first alone took {one:?} in 200 cycles; both offering: {two:?}");
    assert!(
        one[0] >= 199 && one[1] == 0,
        "one request per cycle: {one:?}"
    );
    assert_eq!(two, [200, 0], "first every cycle, second never");
}
