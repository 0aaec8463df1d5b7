//! CounterRam (event counters and level peaks in a block RAM, served by a sweep) against its
//! model (`testbench::models::counter_ram`), every output every cycle, on both backends.
//!
//! The world: 3 groups of 3 counters and 2 peaks; random event pulses, with stretches where
//! every counter has an event every cycle (the pre-counters' worst case: a whole sweep of
//! events); random levels; random reads and clears of mapped and unmapped addresses (random
//! request lines while `valid` is low); random response backpressure; `reset` at random
//! moments. The model is the header's promise (every event counted exactly up to the sweep's
//! cycle, peaks the highest level since the clear, reads and clears served by the sweep,
//! unmapped addresses answered at once); besides it the bench checks that every request is
//! taken within a few sweeps (no request starves).
use hdl::regmap::{CounterRam, CounterRamLayout, RegError};
use testbench::models::counter_ram::CounterRamModel;
use testbench::{port_table, run_both, Backend, BenchRng, PortTable, ResetSchedule};

const LAYOUT: CounterRamLayout = CounterRamLayout {
    base: 0x40,
    groups: 3,
    counters: 3,
    peaks: 2,
};
const KW: usize = 3;
type Dut = CounterRam<8, 64, 5, KW, 4, 8, 9, 48>;

fn table() -> PortTable<Dut> {
    port_table!(Dut; reset, request.valid, request.address, request.write, request.data,
        request.ready, response.valid, response.data, response.error, response.ready, events,
        levels)
}

/// (reads checked, clears, unmapped answers, reset pulses).
type Outcome = (u64, u64, u64, u64);

fn bench(b: &mut dyn Backend, seed: u64, resets: bool) -> Outcome {
    let mut rng = BenchRng::new(seed);
    let l = LAYOUT;
    let p = |n: &str| b.port(n);
    let (reset, valid, address, write, data, ready) = (
        p("reset"),
        p("request$valid"),
        p("request$address"),
        p("request$write"),
        p("request$data"),
        p("request$ready"),
    );
    let (r_valid, r_data, r_error, r_ready) = (
        p("response$valid"),
        p("response$data"),
        p("response$error"),
        p("response$ready"),
    );
    let (events_p, levels_p) = (p("events"), p("levels"));
    let mut model = CounterRamModel::new(l, KW);
    let mut sched = if resets {
        ResetSchedule::new(&mut rng, 700)
    } else {
        ResetSchedule::never()
    };
    // The block needs a reset before use (its RAM is cleared by the sweep after one).
    b.poke_bool(reset, true);
    b.tick();
    let sweep = (l.groups * l.slots()) as u64;
    let mut offer: Option<(u64, bool)> = None;
    let mut waiting_since = 0u64;
    let (mut reads, mut clears, mut unmapped) = (0u64, 0u64, 0u64);
    for cycle in 0..6000u64 {
        let rst = sched.next(&mut rng);
        b.poke_bool(reset, rst);
        // Events: bursts of every counter every cycle, else sparse.
        let burst = (cycle / 400) % 3 == 1;
        let events: Vec<bool> = (0..l.groups * l.counters)
            .map(|_| burst || rng.chance(0.2))
            .collect();
        let levels: Vec<u64> = (0..l.groups * l.peaks)
            .map(|_| rng.bits(8) as u64)
            .collect();
        b.poke(
            events_p,
            events
                .iter()
                .enumerate()
                .fold(0u128, |m, (i, &e)| m | (e as u128) << i),
        );
        b.poke(
            levels_p,
            levels
                .iter()
                .enumerate()
                .fold(0u128, |m, (i, &v)| m | (v as u128) << (8 * i)),
        );
        // Requests: reads mostly, some clears, some unmapped addresses.
        if offer.is_none() && rng.chance(0.3) {
            let a = if rng.chance(0.15) {
                rng.bits(8) as u64
            } else {
                let g = rng.range(0, l.groups as u64 - 1);
                let k = rng.range(0, l.slots() as u64 - 1);
                l.base + (g << KW) + k
            };
            offer = Some((a, rng.chance(0.2)));
            waiting_since = cycle;
        }
        match offer {
            Some((a, w)) => {
                b.poke_bool(valid, true);
                b.poke(address, a as u128);
                b.poke_bool(write, w);
                b.poke(data, rng.bits(64));
            }
            None => {
                b.poke_bool(valid, false);
                b.poke(address, rng.bits(8));
                b.poke_bool(write, rng.chance(0.5));
                b.poke(data, rng.bits(64));
            }
        }
        let take = rng.chance(0.7);
        b.poke_bool(r_ready, take);
        let want = model.outputs(rst);
        assert_eq!(
            b.peek_bool(ready),
            want.ready,
            "seed {seed} cycle {cycle}: ready"
        );
        let got = b
            .peek_bool(r_valid)
            .then(|| (b.peek(r_data) as u64, b.peek(r_error) as u64));
        assert_eq!(
            got,
            want.response.map(|(d, e)| (d, e.code())),
            "seed {seed} cycle {cycle}: response"
        );
        if let Some((d, e)) = want.response {
            if take && !rst {
                match e {
                    RegError::Unmapped => unmapped += 1,
                    _ if d == 0 => clears += 1,
                    _ => reads += 1,
                }
            }
        }
        let accepted = offer.is_some() && want.ready;
        if offer.is_some() && !accepted {
            assert!(
                cycle - waiting_since < 4 * sweep,
                "seed {seed} cycle {cycle}: a request waited too long to be taken"
            );
        }
        model.edge(rst, offer, take, &events, &levels);
        b.tick();
        if accepted || rst {
            offer = None;
        }
    }
    if resets {
        sched.assert_pulses("counter_ram", 3);
    }
    (reads, clears, unmapped, sched.pulses())
}

#[test]
fn counter_ram_matches_model() {
    let (reads, clears, unmapped, _) = run_both(
        "counter_ram",
        || Dut::new(LAYOUT),
        table,
        |b| bench(b, 1, true),
    )
    .result;
    assert!(
        reads > 100 && clears > 20 && unmapped > 10,
        "{reads} {clears} {unmapped}"
    );
    let (reads, ..) = run_both(
        "counter_ram",
        || Dut::new(LAYOUT),
        table,
        |b| bench(b, 2, false),
    )
    .result;
    assert!(reads > 100);
}

#[test]
#[should_panic(expected = "pre-counter bits")]
fn too_narrow_pre_counters_are_refused() {
    let _ = CounterRam::<8, 64, 5, KW, 3, 8, 9, 48>::new(LAYOUT);
}
