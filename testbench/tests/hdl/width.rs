//! Downsizer and Upsizer against their models, alone and back to back: random words under
//! random idle and backpressure, exact chunks, `last` flags and words, every handshake signal
//! compared with the cycle-level contract on every cycle, full throughput at full rate, and
//! synchronous reset in the middle of a word.
//!
//! Reset (their docs: the downsizer "drops the held word", the upsizer "drops a partial or
//! finished word"): after the checked traffic, a phase of random traffic with 1-3 cycle pulses
//! at random moments (the shared [`ResetSchedule`]) checked against the reset model on every
//! cycle; in the first cycle after each pulse nothing may be offered on `source` (a one-chunk
//! converter is a wire and shows `sink`) and `sink.ready` must be high. The round trip has
//! resets in its random-rate runs: words inside the pair when it resets are dropped, and every
//! word delivered after a reset must be one sent after it, whole.
use hdl::prelude::*;
use hdl::width::chunks;
use std::collections::VecDeque;
use testbench::models::stream::{Driver, Receiver, StreamPorts};
use testbench::models::width::{split, ConverterOutputs, DownsizerModel, UpsizerModel};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both_seeds, Backend, BenchRng, PortId};

/// Rates (sink offers, source takes) of each run; the first is the full-throughput run.
const RATES: [(f64, f64); 4] = [(1.0, 1.0), (0.5, 0.9), (0.9, 0.3), (0.7, 0.7)];

/// Which converter a bench drives.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Down,
    Up,
}

/// Either model behind one interface.
enum Model {
    Down(DownsizerModel),
    Up(UpsizerModel),
}

impl Model {
    fn new(kind: Kind, w: usize, b: usize) -> Self {
        match kind {
            Kind::Down => Model::Down(DownsizerModel::new(w, b)),
            Kind::Up => Model::Up(UpsizerModel::new(w, b)),
        }
    }
    fn outputs(&self, v: bool, d: u128, r: bool) -> ConverterOutputs {
        match self {
            Model::Down(m) => m.outputs(v, d, r),
            Model::Up(m) => m.outputs(v, d, r),
        }
    }
    fn edge(&mut self, reset: bool, v: bool, d: u128, r: bool) {
        match self {
            Model::Down(m) => m.edge(reset, v, d, r),
            Model::Up(m) => m.edge(reset, v, d, r),
        }
    }
}

/// Compares the block's outputs with the model's for the inputs now on the ports.
fn check(
    b: &mut dyn Backend,
    m: &Model,
    sink: &StreamPorts,
    source: &StreamPorts,
    last: Option<PortId>,
) {
    let (v, d, r) = (
        b.peek_bool(sink.valid),
        b.peek(sink.data),
        b.peek_bool(source.ready),
    );
    let o = m.outputs(v, d, r);
    let c = b.cycle();
    assert_eq!(
        b.peek_bool(sink.ready),
        o.sink_ready,
        "cycle {c}: sink.ready"
    );
    assert_eq!(
        b.peek_bool(source.valid),
        o.valid,
        "cycle {c}: source.valid"
    );
    if o.valid {
        assert_eq!(b.peek(source.data), o.data, "cycle {c}: source.data");
        if let Some(l) = last {
            assert_eq!(b.peek_bool(l), o.last, "cycle {c}: last");
        }
    }
}

/// Random traffic through one converter; returns (beats out, cycles of the traffic phase).
fn bench(
    b: &mut dyn Backend,
    seed: u64,
    kind: Kind,
    w: usize,
    nb: usize,
    rates: (f64, f64),
) -> (u64, u64) {
    let mut rng = BenchRng::new(seed);
    let k = chunks(w, nb);
    let sink = StreamPorts::new(b, "sink");
    let source = StreamPorts::new(b, "source");
    let reset = b.port("reset");
    let last = (kind == Kind::Down).then(|| b.port("last"));
    let mut tx = Driver::new(sink, rates.0);
    let mut rx = Receiver::new(source, rates.1);
    let mut m = Model::new(kind, w, nb);
    let words: Vec<u128> = (0..500).map(|_| rng.bits(w)).collect();
    // What goes in and what must come out, with the `last` flag of each downsizer beat.
    let mut expect: VecDeque<(u128, bool)> = VecDeque::new();
    match kind {
        Kind::Down => {
            tx.queue.extend(words.iter().copied());
            for &x in &words {
                let c = split(x, w, nb);
                expect.extend(c.iter().enumerate().map(|(i, &v)| (v, i == k - 1)));
            }
        }
        Kind::Up => {
            for &x in &words {
                tx.queue.extend(split(x, w, nb));
            }
            expect.extend(words.iter().map(|&x| (x, true)));
        }
    }
    b.poke_bool(reset, true);
    b.poke_bool(sink.valid, false);
    b.poke_bool(source.ready, false);
    m.edge(true, false, 0, false);
    b.tick();
    let total = expect.len() as u64;
    let start = b.cycle();
    let mut got = 0u64;
    while got < total {
        b.poke_bool(reset, false);
        tx.drive(b, &mut rng);
        rx.drive(b, &mut rng);
        check(b, &m, &sink, &source, last);
        let (v, d, r) = (
            b.peek_bool(sink.valid),
            b.peek(sink.data),
            b.peek_bool(source.ready),
        );
        let l = match last {
            Some(l) => b.peek_bool(l),
            None => true,
        };
        let taken = rx.fired(b);
        tx.fired(b);
        m.edge(false, v, d, r);
        b.tick();
        if let Some(x) = taken {
            let (e, el) = expect.pop_front().expect("more beats than expected");
            assert_eq!(x, e, "seed {seed}: beat {got}");
            assert_eq!(l, el, "seed {seed}: last of beat {got}");
            got += 1;
        }
        assert!(b.cycle() - start < 100 * total, "seed {seed}: hang");
    }
    let cycles = b.cycle() - start;
    if rates == (1.0, 1.0) {
        // One narrow beat per cycle, plus the register stage.
        let narrow = (words.len() * k) as u64;
        assert!(
            cycles <= narrow + 2,
            "throughput: {narrow} narrow beats took {cycles} cycles"
        );
    }
    // Reset at random moments, also in the middle of a word; cycle-level checks only.
    let mut sched = ResetSchedule::new(&mut rng, 20);
    for _ in 0..300 {
        let rst = sched.drive(b, reset, &mut rng);
        let v = rng.chance(0.7);
        b.poke_bool(sink.valid, v);
        b.poke(sink.data, rng.bits(if kind == Kind::Down { w } else { nb }));
        b.poke_bool(source.ready, rng.chance(0.7));
        if sched.released() {
            let wire = k == 1;
            assert!(
                wire || (!b.peek_bool(source.valid) && b.peek_bool(sink.ready)),
                "seed {seed} cycle {}: a word survived the reset",
                b.cycle()
            );
        }
        check(b, &m, &sink, &source, last);
        let (v, d, r) = (
            b.peek_bool(sink.valid),
            b.peek(sink.data),
            b.peek_bool(source.ready),
        );
        m.edge(rst, v, d, r);
        b.tick();
    }
    sched.assert_pulses(&format!("width converter seed {seed}"), 5);
    (got, cycles)
}

macro_rules! converter_benches {
    ($down:ident, $up:ident, $w:literal, $b:literal) => {
        #[test]
        fn $down() {
            type Dut = Downsizer<$w, $b, { chunk_index_bits($w, $b) }>;
            let table = || port_table!(Dut; reset, sink.valid, sink.data, sink.ready, source.valid, source.data, source.ready, last);
            for (i, &r) in RATES.iter().enumerate() {
                run_both_seeds(stringify!($down), &[i as u64 + 1], Dut::new, table, |b, s| {
                    bench(b, s, Kind::Down, $w, $b, r)
                });
            }
        }
        #[test]
        fn $up() {
            type Dut = Upsizer<$w, $b, { chunk_index_bits($w, $b) }>;
            let table = || port_table!(Dut; reset, sink.valid, sink.data, sink.ready, source.valid, source.data, source.ready);
            for (i, &r) in RATES.iter().enumerate() {
                run_both_seeds(stringify!($up), &[i as u64 + 11], Dut::new, table, |b, s| {
                    bench(b, s, Kind::Up, $w, $b, r)
                });
            }
        }
    };
}

converter_benches!(downsizer_65_20, upsizer_65_20, 65, 20);
converter_benches!(downsizer_64_16, upsizer_64_16, 64, 16);
converter_benches!(downsizer_64_32, upsizer_64_32, 64, 32);
converter_benches!(downsizer_32_8, upsizer_32_8, 32, 8);
converter_benches!(downsizer_16_20_single, upsizer_16_20_single, 16, 20);

/// A Downsizer feeding an Upsizer, as two relay stations would: words in, the same words out.
#[derive(LogicBlock)]
struct RoundTrip<const W: usize, const B: usize, const CW: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub sink: StreamSink<Bits<W>>,
    pub source: StreamSource<Bits<W>>,
    /// A chunk moves between the two on this edge.
    pub narrow_fire: Signal<Out, bool>,
    down: Downsizer<W, B, CW>,
    up: Upsizer<W, B, CW>,
}

impl<const W: usize, const B: usize, const CW: usize> Default for RoundTrip<W, B, CW> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sink: Default::default(),
            source: Default::default(),
            narrow_fire: Default::default(),
            down: Downsizer::new(),
            up: Upsizer::new(),
        }
    }
}

impl<const W: usize, const B: usize, const CW: usize> Logic for RoundTrip<W, B, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, down, up);
        self.down.reset.next = self.reset.val();
        self.up.reset.next = self.reset.val();
        StreamSink::<Bits<W>>::link(&mut self.sink, &mut self.down.sink);
        StreamSource::<Bits<B>>::join(&mut self.down.source, &mut self.up.sink);
        StreamSource::<Bits<W>>::link(&mut self.source, &mut self.up.source);
        self.narrow_fire.next = self.down.source.valid.val() & self.up.sink.ready.val();
    }
}

fn round_trip(
    b: &mut dyn Backend,
    seed: u64,
    w: usize,
    nb: usize,
    rates: (f64, f64),
) -> (u64, u64) {
    let mut rng = BenchRng::new(seed);
    let k = chunks(w, nb) as u64;
    let mut tx = Driver::new(StreamPorts::new(b, "sink"), rates.0);
    let mut rx = Receiver::new(StreamPorts::new(b, "source"), rates.1);
    let reset = b.port("reset");
    let fire = b.port("narrow_fire");
    let n = 200u64;
    tx.queue.extend((0..n).map(|_| rng.bits(w)));
    // Words sent and not yet delivered, and the chunks they have crossed as.
    let mut in_flight: std::collections::VecDeque<u128> = Default::default();
    let mut sched = if rates == (1.0, 1.0) {
        ResetSchedule::never()
    } else {
        ResetSchedule::new(&mut rng, 50)
    };
    b.poke_bool(reset, true);
    b.tick();
    b.poke_bool(reset, false);
    let (mut got, mut dropped, mut narrow, start) = (0u64, 0u64, 0u64, b.cycle());
    // Chunks of dropped words that had crossed before their reset.
    let mut narrow_dropped = 0u64;
    let mut crossed_in_flight = 0u64;
    while got + dropped < n {
        let rst = sched.drive(b, reset, &mut rng);
        tx.drive(b, &mut rng);
        rx.drive(b, &mut rng);
        let crossing = b.peek_bool(fire);
        let taken = rx.fired(b);
        let sent = tx.fired(b);
        b.tick();
        if rst {
            // Void handshakes (a chunk crossing in the reset cycle is lost with its word).
            dropped += in_flight.len() as u64 + sent.is_some() as u64;
            narrow_dropped += crossed_in_flight;
            in_flight.clear();
            crossed_in_flight = 0;
            rx.reset();
            continue;
        }
        narrow += crossing as u64;
        crossed_in_flight += crossing as u64;
        in_flight.extend(sent);
        if let Some(x) = taken {
            assert_eq!(
                Some(x),
                in_flight.pop_front(),
                "seed {seed}: word {got} (or one from before a reset)"
            );
            crossed_in_flight -= k;
            got += 1;
        }
        assert!(b.cycle() - start < 100 * n * k, "seed {seed}: hang");
    }
    assert_eq!(
        narrow - narrow_dropped,
        got * k,
        "every word crossed as {k} chunks"
    );
    if rates != (1.0, 1.0) {
        sched.assert_pulses(&format!("round trip seed {seed}"), 3);
    }
    let cycles = b.cycle() - start;
    if rates == (1.0, 1.0) {
        assert!(
            cycles <= n * k + 3,
            "round trip: {n} words took {cycles} cycles"
        );
    }
    (got, cycles)
}

macro_rules! round_trip_bench {
    ($name:ident, $w:literal, $b:literal) => {
        #[test]
        fn $name() {
            type Dut = RoundTrip<$w, $b, { chunk_index_bits($w, $b) }>;
            let table = || port_table!(Dut; reset, sink.valid, sink.data, sink.ready, source.valid, source.data, source.ready, narrow_fire);
            for (i, &r) in RATES.iter().enumerate() {
                run_both_seeds(stringify!($name), &[i as u64 + 21], Dut::default, table, |b, s| {
                    round_trip(b, s, $w, $b, r)
                });
            }
        }
    };
}

round_trip_bench!(round_trip_65_20, 65, 20);
round_trip_bench!(round_trip_32_8, 32, 8);
round_trip_bench!(round_trip_16_20_single, 16, 20);
