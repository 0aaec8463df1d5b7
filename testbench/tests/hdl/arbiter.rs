//! RrArbiter and FpArbiter against their model, every cycle, for N in {1, 2, 3, 5, 8}, with and
//! without hold: random request patterns (random bits, persistent subsets, stream-like requests
//! that wait for their grant), random advance/tail, and resets of 1-3 cycles at random moments
//! of the random phases (the shared [`ResetSchedule`]): their doc promises the pointer back to
//! requester 0 and the hold released, so in the first cycle after a reset the grant must go to
//! the lowest requester, whoever held it before. Round robin is also checked for
//! fairness on its own (not only through the model): a waiting requester sees at most N - 1
//! other grants (packets, with hold) before its own, and under persistent requests the grant
//! counts of all requesters stay within one of each other.
use hdl::prelude::*;
use testbench::models::arbiter::{ArbiterModel, Policy};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both_seeds, Backend, BenchRng, PortTable};

fn rr_table<const N: usize, const W: usize>() -> PortTable<RrArbiter<N, W>> {
    port_table!(RrArbiter<N, W>; reset, requests, advance, tail, grant, grant_index, valid)
}

fn fp_table<const N: usize, const W: usize>() -> PortTable<FpArbiter<N, W>> {
    port_table!(FpArbiter<N, W>; reset, requests, advance, tail, grant, grant_index, valid)
}

/// What a run measured: fires per requester during the persistent phases.
#[derive(Debug, PartialEq)]
struct Report {
    grants: u64,
    persistent_counts: Vec<Vec<u64>>,
}

/// How requests behave during a phase.
#[derive(Clone, Copy, Debug)]
enum Pattern {
    /// Every bit random each cycle with this probability.
    Random(f64),
    /// A fixed subset requests every cycle (fairness phase).
    Persistent(u64),
    /// Each requester raises its request at random and keeps it until its grant is used.
    Streams(f64),
}

fn bench(b: &mut dyn Backend, seed: u64, n: usize, policy: Policy, hold: bool) -> Report {
    let mut rng = BenchRng::new(seed);
    let (reset, requests, advance, tail) = (
        b.port("reset"),
        b.port("requests"),
        b.port("advance"),
        b.port("tail"),
    );
    let (grant, grant_index, valid) = (b.port("grant"), b.port("grant_index"), b.port("valid"));
    let all = (1u64 << n) - 1;
    let mut model = ArbiterModel::new(n, policy, hold);
    let mut report = Report {
        grants: 0,
        persistent_counts: vec![],
    };
    // Fairness bookkeeping: others' grants (packets with hold) seen while continuously waiting.
    let mut waited = vec![0u64; n];
    let mut stream_req = 0u64;
    // Resets only in the random phases: the fairness phases count grants across the phase.
    let mut sched = ResetSchedule::new(&mut rng, 100);
    let phases = 48;
    for phase in 0..phases {
        let pattern = match phase % 4 {
            0 => Pattern::Random([0.2, 0.5, 0.8][rng.range(0, 2) as usize]),
            // A holder left out of the subset would block the whole phase, so it is kept in.
            1 => Pattern::Persistent(if phase % 8 == 1 {
                all
            } else {
                rng.bits(n) as u64
                    | 1 << rng.range(0, n as u64 - 1)
                    | model.holder().map_or(0, |h| 1 << h)
            }),
            2 => Pattern::Streams([0.1, 0.4, 0.9][rng.range(0, 2) as usize]),
            _ => Pattern::Random(0.5),
        };
        let p_adv = [0.3, 0.7, 1.0][rng.range(0, 2) as usize];
        let p_tail = [0.2, 0.5, 1.0][rng.range(0, 2) as usize];
        let mut counts = vec![0u64; n];
        let mut packets = vec![0u64; n];
        let mut prev_req = 0u64;
        for k in 0..150 {
            // A pulse (up to 3 cycles) must end inside its random phase.
            let do_reset =
                sched.next_if(&mut rng, matches!(pattern, Pattern::Random(_)) && k < 147);
            let req = match pattern {
                Pattern::Random(p) => (0..n).fold(0, |m, i| m | (rng.chance(p) as u64) << i),
                Pattern::Persistent(s) => s,
                Pattern::Streams(p) => {
                    for i in 0..n {
                        if rng.chance(p) {
                            stream_req |= 1 << i;
                        }
                    }
                    stream_req
                }
            };
            let adv = rng.chance(p_adv);
            let last = rng.chance(p_tail);
            b.poke_bool(reset, do_reset);
            b.poke(requests, req as u128);
            b.poke_bool(advance, adv);
            b.poke_bool(tail, last);
            let expect = model.grant(req);
            let g = b.peek(grant) as u64;
            let cycle = b.cycle();
            if sched.released() && req != 0 {
                assert_eq!(
                    g,
                    req & req.wrapping_neg(),
                    "seed {seed} n {n} {policy:?} hold {hold}: after reset the lowest requester \
                     must win (cycle {cycle}, requests {req:b})"
                );
            }
            assert_eq!(
                g,
                expect.map_or(0, |e| 1 << e),
                "seed {seed} n {n} {policy:?} hold {hold}: grant at cycle {cycle}, requests {req:b}"
            );
            assert_eq!(
                b.peek_bool(valid),
                expect.is_some(),
                "valid at cycle {cycle}"
            );
            assert_eq!(
                b.peek(grant_index) as usize,
                expect.unwrap_or(0),
                "grant_index at cycle {cycle}"
            );
            b.tick();
            if do_reset {
                model.reset();
                waited.iter_mut().for_each(|w| *w = 0);
                stream_req = 0;
                prev_req = 0;
                continue;
            }
            model.edge(req, adv, last);
            // A use ends a grant for fairness purposes when it ends the packet (with hold).
            if let (Some(e), true) = (expect, adv) {
                report.grants += 1;
                counts[e] += 1;
                stream_req &= !(1 << e);
                if !hold || last {
                    packets[e] += 1;
                    for (i, w) in waited.iter_mut().enumerate() {
                        if i != e && (req >> i) & 1 == 1 && (prev_req >> i) & 1 == 1 {
                            *w += 1;
                        }
                    }
                }
                waited[e] = 0;
            }
            for (i, w) in waited.iter_mut().enumerate() {
                if (req >> i) & 1 == 0 {
                    *w = 0;
                }
                assert!(
                    policy != Policy::RoundRobin || *w < n as u64,
                    "seed {seed} n {n} hold {hold}: requester {i} waited {w} grants (cycle {cycle})"
                );
            }
            prev_req = req;
        }
        if let Pattern::Persistent(s) = pattern {
            if policy == Policy::RoundRobin {
                let served: Vec<u64> = (0..n)
                    .filter(|i| (s >> i) & 1 == 1)
                    .map(|i| packets[i])
                    .collect();
                let (lo, hi) = (served.iter().min().unwrap(), served.iter().max().unwrap());
                assert!(
                    hi - lo <= 1,
                    "seed {seed} n {n} hold {hold}: unfair packet counts {packets:?} for requesters {s:b}"
                );
            }
            report.persistent_counts.push(counts);
        }
    }
    sched.assert_pulses(&format!("arbiter seed {seed}"), 5);
    report
}

fn run_rr<const N: usize, const W: usize>(hold: bool, seeds: &[u64]) {
    let name = format!("rr_arbiter_{N}{}", if hold { "_hold" } else { "" });
    run_both_seeds(
        &name,
        seeds,
        || RrArbiter::<N, W>::new(hold),
        rr_table::<N, W>,
        |b, s| bench(b, s, N, Policy::RoundRobin, hold),
    );
}

fn run_fp<const N: usize, const W: usize>(hold: bool, seeds: &[u64]) {
    let name = format!("fp_arbiter_{N}{}", if hold { "_hold" } else { "" });
    run_both_seeds(
        &name,
        seeds,
        || FpArbiter::<N, W>::new(hold),
        fp_table::<N, W>,
        |b, s| bench(b, s, N, Policy::FixedPriority, hold),
    );
}

#[test]
fn rr_arbiter_matches_model() {
    for hold in [false, true] {
        run_rr::<1, 1>(hold, &[1, 101, 201]);
        run_rr::<2, 1>(hold, &[2, 102, 202]);
        run_rr::<3, 2>(hold, &[3, 103, 203]);
        run_rr::<5, 3>(hold, &[5, 105, 205]);
        run_rr::<8, 3>(hold, &[8, 108, 208]);
    }
}

#[test]
fn fp_arbiter_matches_model() {
    for hold in [false, true] {
        run_fp::<1, 1>(hold, &[11, 111, 211]);
        run_fp::<2, 1>(hold, &[12, 112, 212]);
        run_fp::<3, 2>(hold, &[13, 113, 213]);
        run_fp::<5, 3>(hold, &[15, 115, 215]);
        run_fp::<8, 3>(hold, &[18, 118, 218]);
    }
}

#[test]
#[should_panic(expected = "W (grant_index width) must be")]
fn arbiter_rejects_wrong_index_width() {
    let _ = RrArbiter::<5, 2>::new(false);
}
