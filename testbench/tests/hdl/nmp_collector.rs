//! NmpCollector and NmpOutputFifo on both backends. The collector against its model
//! (`testbench::models::nma::CollectorModel`, a ticket register loaded by fixed priority):
//! three producers offer random tickets (held until taken, as the stream rules require), random
//! idle data, random `beats.ready`, reset pulses; every cycle outside reset `beats` (valid,
//! data) and each sink's `ready` are compared with the model, and no report is ever taken while
//! a response is offered.
//! The output FIFO (packed flits with `last` and `port`, in block RAM) against the block-RAM
//! FIFO model, every cycle.
use hdl::formats::FLIT_BITS;
use hdl::mgmt::ticket::RESPONSE_TICKET_BITS;
use hdl::mgmt::NmpCollector;
use testbench::models::fifo::{FifoFlavor, FifoModel};
use testbench::models::nma::CollectorModel;
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng};

/// A random response ticket's bits (the collector passes them on unread).
fn random_ticket(rng: &mut BenchRng) -> u128 {
    rng.bits(RESPONSE_TICKET_BITS)
}

#[derive(Debug, Default, PartialEq)]
struct Report {
    taken: [u64; 3],
    reports_behind_responses: u64,
    resets: u64,
}

fn collector_bench(b: &mut dyn Backend, seed: u64) -> Report {
    let mut rng = BenchRng::new(seed);
    let names = ["responses", "eeprom", "reports"];
    let ins: Vec<_> = names
        .iter()
        .map(|n| {
            (
                b.port(&format!("{n}$valid")),
                b.port(&format!("{n}$data")),
                b.port(&format!("{n}$ready")),
            )
        })
        .collect();
    let (reset, ov, od, or) = (
        b.port("reset"),
        b.port("beats$valid"),
        b.port("beats$data"),
        b.port("beats$ready"),
    );
    let rates = [0.15, 0.1, 0.3];
    let mut sched = ResetSchedule::new(&mut rng, 300);
    let mut model = CollectorModel::default();
    let mut offered: [Option<u128>; 3] = [None; 3];
    let mut report = Report::default();
    for c in 0..3000u64 {
        for k in 0..3 {
            if offered[k].is_none() && rng.chance(rates[k]) {
                offered[k] = Some(random_ticket(&mut rng));
            }
        }
        let rst = sched.drive(b, reset, &mut rng);
        report.resets += sched.released() as u64;
        for k in 0..3 {
            b.poke_bool(ins[k].0, offered[k].is_some());
            let w = offered[k].unwrap_or_else(|| random_ticket(&mut rng));
            b.poke(ins[k].1, w);
        }
        let ready = rng.chance(0.6);
        b.poke_bool(or, ready);
        let tag = format!("seed {seed} cycle {c}");
        let loading = model.loading(rst, &offered, ready);
        if !rst {
            let got = b.peek_bool(ov).then(|| b.peek(od));
            assert_eq!(got, model.held, "{tag}: beats");
            // `ready` matters only where a beat is offered (no beat moves without `valid`).
            for k in (0..3).filter(|&k| offered[k].is_some()) {
                assert_eq!(
                    b.peek_bool(ins[k].2),
                    loading == Some(k),
                    "{tag}: {} ready",
                    names[k]
                );
            }
            if loading == Some(2) && offered[..2].iter().any(|o| o.is_some()) {
                report.reports_behind_responses += 1;
            }
        }
        let taken = model.edge(rst, &offered, ready);
        if let Some(k) = taken {
            offered[k] = None;
            report.taken[k] += 1;
        }
        b.tick();
    }
    report
}

fn collector_table() -> testbench::PortTable<NmpCollector> {
    port_table!(NmpCollector; reset, responses.valid, responses.data, responses.ready,
        eeprom.valid, eeprom.data, eeprom.ready,
        reports.valid, reports.data, reports.ready, beats.valid, beats.data, beats.ready)
}

#[test]
fn nmp_collector_against_its_model() {
    let r = run_both(
        "nmp_collector",
        NmpCollector::default,
        collector_table,
        |b| collector_bench(b, 700),
    )
    .result;
    println!("nmp_collector: {r:?}");
    assert!(r.taken.iter().all(|&t| t > 50) && r.resets > 0, "{r:?}");
    assert_eq!(
        r.reports_behind_responses, 0,
        "a report chosen over a response"
    );
}

type Fifo = hdl::nmp_output_fifo!(hdl::mgmt::nmp_output_fifo::NMP_OUTPUT_FIFO_DEPTH);
const FIFO_DEPTH: usize = hdl::mgmt::nmp_output_fifo::NMP_OUTPUT_FIFO_DEPTH;

/// One entry as the model holds it: the flit, `last` above it, `port` above that (the layout
/// is the bench's own; only equality matters).
fn entry(flit: u128, last: bool, port: u64) -> u128 {
    flit | (last as u128) << FLIT_BITS | (port as u128) << (FLIT_BITS + 1)
}

/// The output FIFO against the block-RAM FIFO model: random flits with random `last` and
/// `port`, random idle data, random `source.ready`, reset pulses; every cycle `sink.ready`,
/// `source.valid`, `count` and the offered flit, `last` and `port` are compared.
fn fifo_bench(b: &mut dyn Backend, seed: u64, in_rate: f64, out_rate: f64) -> (u64, u64) {
    let mut rng = BenchRng::new(seed);
    let (reset, iv, id, il, ip, ir) = (
        b.port("reset"),
        b.port("sink$valid"),
        b.port("sink$data"),
        b.port("sink$last"),
        b.port("sink$port"),
        b.port("sink$ready"),
    );
    let (ov, od, ol, op, or, count) = (
        b.port("source$valid"),
        b.port("source$data"),
        b.port("source$last"),
        b.port("source$port"),
        b.port("source$ready"),
        b.port("count"),
    );
    let mut model = FifoModel::new(FIFO_DEPTH, FifoFlavor::BlockRam);
    let mut resets = ResetSchedule::new(&mut rng, 500);
    let mut offer: Option<(u128, bool, u64)> = None;
    let (mut moved, mut cycles) = (0u64, 0u64);
    for c in 0..3000u64 {
        let in_reset = resets.next(&mut rng);
        if offer.is_none() && rng.chance(in_rate) {
            offer = Some((rng.bits(FLIT_BITS), rng.chance(0.1), rng.bits(5) as u64));
        }
        let shown =
            offer.unwrap_or_else(|| (rng.bits(FLIT_BITS), rng.chance(0.5), rng.bits(5) as u64));
        b.poke_bool(reset, in_reset);
        b.poke_bool(iv, offer.is_some());
        b.poke(id, shown.0);
        b.poke_bool(il, shown.1);
        b.poke(ip, shown.2 as u128);
        let ready = rng.chance(out_rate);
        b.poke_bool(or, ready);
        let data = entry(shown.0, shown.1, shown.2);
        let expect = model.outputs(offer.is_some(), data, ready);
        let tag = format!("seed {seed} cycle {c}");
        if !in_reset {
            assert_eq!(
                b.peek_bool(ir),
                expect.sink_ready,
                "{tag}: sink.ready is !full"
            );
            assert_eq!(b.peek(count) as usize, expect.count, "{tag}: count");
            assert_eq!(b.peek_bool(ov), expect.source_valid, "{tag}: source.valid");
            if expect.source_valid {
                let got = entry(b.peek(od), b.peek_bool(ol), b.peek(op) as u64);
                assert_eq!(Some(got), expect.source_data, "{tag}: source entry");
            }
        }
        let edge = model.tick(in_reset, offer.is_some(), data, ready);
        if edge.accepted.is_some() || in_reset {
            offer = None;
        }
        moved += edge.delivered.is_some() as u64;
        b.tick();
        cycles += 1;
    }
    (moved, cycles)
}

fn fifo_table() -> testbench::PortTable<Fifo> {
    port_table!(Fifo; reset, sink.valid, sink.data, sink.last, sink.port, sink.ready, source.valid, source.data, source.last, source.port, source.ready, count)
}

#[test]
fn nmp_output_fifo_in_order() {
    let (moved, cycles) = run_both("nmp_output_fifo", Fifo::new, fifo_table, |b| {
        fifo_bench(b, 800, 1.0, 1.0)
    })
    .result;
    // Resets empty it now and then; between them one flit per cycle moves.
    assert!(
        moved >= cycles * 9 / 10,
        "one flit per cycle at full rate: {moved} in {cycles}"
    );
    let (moved, _) = run_both("nmp_output_fifo", Fifo::new, fifo_table, |b| {
        fifo_bench(b, 801, 0.5, 0.4)
    })
    .result;
    assert!(moved > 800, "{moved}");
}
