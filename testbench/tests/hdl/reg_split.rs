//! `RegSplit` on both backends: one random requester, addresses below the limit (0x20) to a
//! `RegFile` of the sample map (`regfile_sample`, A = 12, D = 64; two cycles per answer),
//! the others to a "chip" register file the bench plays: it takes requests with random
//! `ready`, answers each after a random delay of 0 to 12 cycles, in order, with data made from
//! the request, and a random error code. So the two files answer at different times and the
//! chip's answers often come while the local file's older answer is pending, and the other
//! way round. Random address/data/write lines while `valid` is low, random response
//! backpressure, reset at random moments (`ResetSchedule`; the chip side is reset with the
//! split, as the split's contract says).
//!
//! Checked every cycle: each request reaches exactly one side, the right one, unchanged
//! (address, write, data), once; no side sees `valid` in a reset cycle; responses leave in
//! request order with the data and error code of the file that answered (the local one
//! against the register-file model); none is lost or duplicated (at the end every request
//! taken has been answered, apart from those a reset cut). Directed: back-to-back requests
//! to one side, then alternating sides, with both files always ready: one request taken per
//! cycle (the split adds no cycle and no bubble).
use hdl::regmap::reg_split::SPLIT_TAG_DEPTH;
use hdl::regmap::{regfile_sample, Access, RegError, RegFile, RegSplit};
use rust_hdl::prelude::*;
use std::collections::VecDeque;
use testbench::models::reg_file::{RegFileModel, Request, RequestLines, Response};
use testbench::{port_table, run_both, Backend, BenchRng, PortId, PortTable, ResetSchedule};

const A: usize = 12;
const D: usize = 64;
/// Addresses below this go to the sample file.
const LIMIT: u64 = 0x20;

/// The value a read-only register `i` of the sample file shows.
fn status_value(i: usize) -> u64 {
    0x0f1e_2d3c_4b5a_6978_u64.rotate_left(5 * i as u32) ^ i as u64
}

/// What the chip side answers to a request: data from the request, an error from its address.
fn chip_answer(r: &Request) -> Response {
    let error = match r.address % 7 {
        0 => RegError::Unmapped,
        1 if r.write => RegError::ReadOnly,
        _ => RegError::None,
    };
    let data = if r.write || error != RegError::None {
        0
    } else {
        r.address.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5a5a
    };
    Response { data, error }
}

/// The split in front of the sample file, the chip side out on ports.
#[derive(LogicBlock)]
struct Harness {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub request: hdl::regmap::RegRequestSink<A, D>,
    pub response: hdl::regmap::RegResponseSource<D>,
    pub chip_request: hdl::regmap::RegRequestSource<A, D>,
    pub chip_response: hdl::regmap::RegResponseSink<D>,
    split: RegSplit<A, D>,
    file: RegFile<A, D>,
    status_values: Vec<Constant<Bits<D>>>,
}

impl Harness {
    fn new() -> Self {
        let map = regfile_sample();
        Self {
            clock: Default::default(),
            reset: Default::default(),
            request: Default::default(),
            response: Default::default(),
            chip_request: Default::default(),
            chip_response: Default::default(),
            split: RegSplit::new(LIMIT),
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
        clock!(self, clock, split, file);
        self.split.reset.next = self.reset.val();
        self.file.reset.next = self.reset.val();
        hdl::regmap::RegRequestSink::<A, D>::link(&mut self.request, &mut self.split.request);
        hdl::regmap::RegResponseSource::<D>::link(&mut self.response, &mut self.split.response);
        hdl::regmap::RegRequestSource::<A, D>::link(
            &mut self.chip_request,
            &mut self.split.chip_request,
        );
        hdl::regmap::RegResponseSink::<D>::link(
            &mut self.chip_response,
            &mut self.split.chip_response,
        );
        hdl::regmap::RegRequestSource::<A, D>::join(
            &mut self.split.local_request,
            &mut self.file.request,
        );
        hdl::regmap::RegResponseSink::<D>::join(
            &mut self.split.local_response,
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
        request.valid, request.address, request.write, request.data, request.ready,
        response.valid, response.data, response.error, response.ready,
        chip_request.valid, chip_request.address, chip_request.write, chip_request.data,
        chip_request.ready, chip_response.valid, chip_response.data, chip_response.error,
        chip_response.ready)
}

/// How the bench behaves in a phase.
#[derive(Clone, Copy)]
struct Traffic {
    /// Chance per idle cycle of a new request.
    rate: f64,
    /// Chance a new request goes to the chip side.
    chip_share: f64,
    /// Chance of `response.ready`.
    ready: f64,
    /// Chance of `chip_request.ready`.
    chip_ready: f64,
    /// Longest delay of a chip answer, in cycles.
    chip_delay: u64,
    /// Reset at random moments.
    resets: bool,
}

/// What the bench exercised (identical on both backends).
#[derive(Debug, Default, PartialEq, Clone)]
struct Report {
    taken: u64,
    to_chip: u64,
    answered: u64,
    errors: u64,
    /// Responses of one side that waited while the other side's older answer was pending.
    reordered: u64,
    resets: u64,
    cut: u64,
    /// Cycles with a request offered and the tag FIFO full.
    full: u64,
}

/// The bench's ports, by name.
struct Ports {
    reset: PortId,
    valid: PortId,
    address: PortId,
    write: PortId,
    data: PortId,
    ready: PortId,
    response_valid: PortId,
    response_data: PortId,
    response_error: PortId,
    response_ready: PortId,
    chip_valid: PortId,
    chip_address: PortId,
    chip_write: PortId,
    chip_data: PortId,
    chip_ready: PortId,
    chip_response_valid: PortId,
    chip_response_data: PortId,
    chip_response_error: PortId,
    chip_response_ready: PortId,
}

impl Ports {
    fn new(b: &dyn Backend) -> Self {
        let p = |s: &str| b.port(s);
        Self {
            reset: p("reset"),
            valid: p("request$valid"),
            address: p("request$address"),
            write: p("request$write"),
            data: p("request$data"),
            ready: p("request$ready"),
            response_valid: p("response$valid"),
            response_data: p("response$data"),
            response_error: p("response$error"),
            response_ready: p("response$ready"),
            chip_valid: p("chip_request$valid"),
            chip_address: p("chip_request$address"),
            chip_write: p("chip_request$write"),
            chip_data: p("chip_request$data"),
            chip_ready: p("chip_request$ready"),
            chip_response_valid: p("chip_response$valid"),
            chip_response_data: p("chip_response$data"),
            chip_response_error: p("chip_response$error"),
            chip_response_ready: p("chip_response$ready"),
        }
    }
}

struct Bench<'a> {
    b: &'a mut dyn Backend,
    ports: Ports,
    model: RegFileModel,
    status: Vec<u64>,
    /// The request offered (held until taken).
    offer: Option<Request>,
    /// Responses due, oldest first, with the side that answers.
    expected: VecDeque<(Response, bool)>,
    /// The chip side's requests taken, with the cycle its answer is due.
    chip_queue: VecDeque<(Request, u64)>,
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
        let ports = Ports::new(b);
        Bench {
            b,
            ports,
            status: (0..map.count(Access::ReadOnly)).map(status_value).collect(),
            model: RegFileModel::new(&map),
            offer: None,
            expected: VecDeque::new(),
            chip_queue: VecDeque::new(),
            rng,
            schedule,
            report: Report::default(),
            seed,
        }
    }

    fn random_request(&mut self, chip: bool) -> Request {
        let address = if chip {
            self.rng.range(LIMIT, (1 << A) - 1)
        } else {
            self.rng.range(0, LIMIT - 1)
        };
        Request {
            address,
            write: self.rng.chance(0.5),
            data: self.rng.bits(D) as u64,
        }
    }

    /// The local file's functional effect of a request taken now: its response.
    fn execute_local(&mut self, r: &Request) -> Response {
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
        let reset = t.resets && self.schedule.next(&mut self.rng);
        let cycle = self.b.cycle();
        let seed = self.seed;
        if self.offer.is_none() && self.rng.chance(t.rate) {
            let chip = self.rng.chance(t.chip_share);
            self.offer = Some(self.random_request(chip));
        }
        let p = &self.ports;
        self.b.poke_bool(p.reset, reset);
        let b = &mut *self.b;
        RequestLines {
            valid: p.valid,
            address: p.address,
            write: p.write,
            data: p.data,
        }
        .poke(b, self.offer, &mut self.rng, A, D);
        b.poke_bool(p.response_ready, self.rng.chance(t.ready));
        let chip_ready = self.rng.chance(t.chip_ready);
        b.poke_bool(p.chip_ready, chip_ready);
        // The chip side answers its oldest request once due, holding it until taken.
        let chip_answer_now = self
            .chip_queue
            .front()
            .filter(|(_, due)| *due <= cycle)
            .map(|(r, _)| chip_answer(r));
        b.poke_bool(p.chip_response_valid, chip_answer_now.is_some());
        let shown = chip_answer_now.unwrap_or(Response {
            data: self.rng.bits(D) as u64,
            error: RegError::Unmapped,
        });
        b.poke(p.chip_response_data, shown.data as u128);
        b.poke(p.chip_response_error, shown.error.code() as u128);

        // What crossed this cycle.
        let taken = self.offer.is_some() && b.peek_bool(p.ready);
        let chip_valid = b.peek_bool(p.chip_valid);
        if reset {
            assert!(!chip_valid, "seed {seed}: chip request offered in reset");
        }
        if let Some(r) = self.offer.filter(|_| !reset) {
            let chip = r.address >= LIMIT;
            // The split offers a request only while its tag FIFO has room: fewer than
            // SPLIT_TAG_DEPTH requests in flight (a full FIFO refuses even while it pops).
            let room = self.expected.len() < SPLIT_TAG_DEPTH;
            if !room {
                assert!(
                    !taken,
                    "seed {seed}: cycle {cycle}: taken with {SPLIT_TAG_DEPTH} in flight"
                );
                self.report.full += 1;
            }
            if chip {
                assert_eq!(
                    chip_valid, room,
                    "seed {seed}: cycle {cycle}: request for {:#x} offered to the chip side or not",
                    r.address
                );
                assert_eq!(
                    (
                        b.peek(p.chip_address) as u64,
                        b.peek_bool(p.chip_write),
                        b.peek(p.chip_data) as u64
                    ),
                    (r.address, r.write, r.data),
                    "seed {seed}: cycle {cycle}: chip request changed"
                );
            } else {
                assert!(
                    !chip_valid,
                    "seed {seed}: cycle {cycle}: request for {:#x} offered to the chip side",
                    r.address
                );
            }
            if chip {
                assert_eq!(
                    taken,
                    chip_ready && room,
                    "seed {seed}: cycle {cycle}: taken other than when the chip side was ready"
                );
            }
        } else {
            assert!(
                !chip_valid,
                "seed {seed}: cycle {cycle}: chip request with nothing offered"
            );
        }
        let chip_response_taken = chip_answer_now.is_some() && b.peek_bool(p.chip_response_ready);
        if b.peek_bool(p.response_valid) && b.peek_bool(p.response_ready) {
            let got = Response {
                data: b.peek(p.response_data) as u64,
                error: RegError::from_code(b.peek(p.response_error) as u64).unwrap(),
            };
            let (want, chip) = self.expected.pop_front().unwrap_or_else(|| {
                panic!("seed {seed}: a response {got:?} without a request at cycle {cycle}")
            });
            assert_eq!(got, want, "seed {seed}: response at cycle {cycle}");
            assert_eq!(
                chip_response_taken, chip,
                "seed {seed}: cycle {cycle}: the chip side's answer taken for another's response"
            );
            self.report.answered += 1;
            self.report.errors += (got.error != RegError::None) as u64;
        } else {
            assert!(
                !chip_response_taken,
                "seed {seed}: cycle {cycle}: the chip side's answer taken and not passed on"
            );
        }
        if chip_answer_now.is_some()
            && !chip_response_taken
            && self.expected.front().is_some_and(|(_, chip)| !chip)
        {
            self.report.reordered += 1;
        }
        if chip_response_taken {
            self.chip_queue.pop_front();
        }
        if reset {
            assert!(!taken, "seed {seed}: a request taken during reset");
            self.report.cut += self.expected.len() as u64;
            self.expected.clear();
            self.chip_queue.clear();
            self.model.reset();
        } else if taken {
            let r = self.offer.take().unwrap();
            self.report.taken += 1;
            if r.address >= LIMIT {
                let due = cycle + 1 + self.rng.range(0, t.chip_delay);
                self.chip_queue.push_back((r, due));
                self.expected.push_back((chip_answer(&r), true));
                self.report.to_chip += 1;
            } else {
                let response = self.execute_local(&r);
                self.expected.push_back((response, false));
            }
        }
        self.b.tick();
    }

    /// Runs until every request taken has been answered (responses always taken).
    fn drain(&mut self) {
        let idle = Traffic {
            rate: 0.0,
            chip_share: 0.0,
            ready: 1.0,
            chip_ready: 1.0,
            chip_delay: 0,
            resets: false,
        };
        let mut n = 0;
        while !self.expected.is_empty() || self.offer.is_some() {
            self.cycle(&idle);
            n += 1;
            assert!(n < 200, "seed {}: requests never answered", self.seed);
        }
    }
}

fn random_bench(b: &mut dyn Backend, seed: u64) -> Report {
    let mut bench = Bench::new(b, seed);
    bench.b.poke_bool(bench.ports.reset, true);
    bench.b.tick();
    let phase = |rate, chip_share, ready, chip_ready, chip_delay| Traffic {
        rate,
        chip_share,
        ready,
        chip_ready,
        chip_delay,
        resets: true,
    };
    let phases = [
        // Busy, both sides, slow chip answers.
        phase(0.8, 0.5, 0.8, 0.7, 12),
        // Mostly local with a few slow chip requests among them: local answers wait.
        phase(0.9, 0.15, 0.9, 0.9, 12),
        // Mostly chip, quick answers, heavy backpressure.
        phase(0.9, 0.85, 0.3, 0.5, 2),
        // Sparse.
        phase(0.1, 0.5, 0.5, 0.5, 6),
    ];
    for t in phases {
        for _ in 0..1500 {
            bench.cycle(&t);
        }
    }
    bench.drain();
    bench.report.resets = bench.schedule.pulses();
    bench.schedule.assert_pulses("reg_split", 4);
    bench.report
}

/// Requests offered every cycle, both files always ready, chip answers at once: requests
/// taken in 200 cycles to the local side alone, the chip side alone, and alternating.
fn full_rate(b: &mut dyn Backend) -> [u64; 3] {
    let mut bench = Bench::new(b, 99);
    bench.b.poke_bool(bench.ports.reset, true);
    bench.b.tick();
    let mut taken = [0; 3];
    for (k, share) in [0.0, 1.0, 0.5].into_iter().enumerate() {
        let t = Traffic {
            rate: 1.0,
            chip_share: share,
            ready: 1.0,
            chip_ready: 1.0,
            chip_delay: 0,
            resets: false,
        };
        let before = bench.report.taken;
        for _ in 0..200 {
            bench.cycle(&t);
        }
        taken[k] = bench.report.taken - before;
        bench.drain();
    }
    taken
}

#[test]
fn reg_split_two_files_answering_at_different_times() {
    for seed in [1, 2] {
        let r = run_both("reg_split", Harness::new, table, |b| random_bench(b, seed)).result;
        eprintln!("{r:?}");
        assert!(r.taken > 1500 && r.to_chip > 600, "{r:?}");
        assert!(r.errors > 200 && r.reordered > 100 && r.full > 50, "{r:?}");
        assert!(r.cut > 0, "{r:?}");
        assert_eq!(r.taken, r.answered + r.cut, "{r:?}");
    }
}

#[test]
fn reg_split_full_rate() {
    let taken = run_both("reg_split", Harness::new, table, full_rate).result;
    eprintln!("reg_split: requests taken in 200 cycles (local, chip, alternating): {taken:?}");
    // Alternating sides, a chip answer can wait behind a local one: the tag FIFO (3) keeps the
    // rate only while both files answer as fast as the sample file (2 cycles).
    assert!(taken.iter().all(|&n| n >= 199), "{taken:?}");
}
