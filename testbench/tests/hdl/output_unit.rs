//! The switch's output unit (`nrc::switch::OutputUnit`) against a model, every cycle, on both
//! backends: per VC a credit counter (`reserve` after reset, one spent per flit sent on the VC,
//! one back per set bit of `channel.credits`), VC ownership (a head takes its VC, `last` frees
//! it), and the output register (the flit sent in cycle `c`, from the crossbar or, with
//! `agent`, from the agent port, is on the channel in `c + 1`, with `flit_out` and
//! `packet_out`).
//!
//! Stimulus: a sender that follows the allocator's rules (a head only on a free VC with at
//! least `len` credits, then its bodies and tail without looking; packets of 2 to `reserve`
//! flits interleaved over the VCs) at random rates, random flits on both flit inputs, random
//! `vc`/`head`/`last`/`agent` while `send` is low; a receiver with `reserve` slots per VC
//! returning each slot's credit after a random delay. Checked: `control.credits` (never
//! above `reserve`; the sender's own count), `control.free`, the channel, the events, and that
//! the receiver never gets a flit without a free slot; `error` stays low. Then a phase of
//! protocol violations (sends without credit, credits returned that were never spent): the
//! counters must ignore them as the model does (never below zero, never above `reserve`) and
//! raise `error` until the next reset. Reset pulses at random moments.
#![allow(clippy::needless_range_loop)] // per-port and per-VC ports, queues and model state are indexed together
use std::collections::VecDeque;
use testbench::{port_table, run_both, Backend, BenchRng, PortTable, ResetSchedule};

type Unit = nrc::output_unit!(3);
const VCS: usize = 3;
const RESERVE: usize = 6;

fn table() -> PortTable<Unit> {
    port_table!(Unit; reset, control.credits, control.free, control.send, control.vc,
        control.head, control.last, control.agent, crossbar_flit, agent_flit, channel.valid,
        channel.flit, channel.vc, channel.credits, flit_out, packet_out, error)
}

#[derive(Clone)]
struct Model {
    used: [usize; VCS],
    error: bool,
    owned: u32,
    reg: (bool, u128, usize, bool),
}

impl Model {
    fn new() -> Self {
        Model {
            used: [0; VCS],
            error: false,
            owned: 0,
            reg: (false, 0, 0, false),
        }
    }
    fn available(&self, w: usize) -> usize {
        RESERVE - self.used[w]
    }
}

#[derive(Debug, PartialEq)]
struct Outcome {
    flits: u64,
    packets: u64,
    errors_seen: u64,
}

fn bench(b: &mut dyn Backend, seed: u64, cycles: u64) -> Outcome {
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(n);
    let (reset, credits, free, send, vc, head, last, agent) = (
        p("reset"),
        p("control$credits"),
        p("control$free"),
        p("control$send"),
        p("control$vc"),
        p("control$head"),
        p("control$last"),
        p("control$agent"),
    );
    let (xflit, aflit, valid, flit, cvc, ret, fo, po, err) = (
        p("crossbar_flit"),
        p("agent_flit"),
        p("channel$valid"),
        p("channel$flit"),
        p("channel$vc"),
        p("channel$credits"),
        p("flit_out"),
        p("packet_out"),
        p("error"),
    );
    let mut m = Model::new();
    let mut sched = ResetSchedule::new(&mut rng, 700);
    // Sender: per VC the flits left of the packet in progress (0: none).
    let mut left = [0usize; VCS];
    let mut slots = [RESERVE; VCS];
    let mut pending: Vec<VecDeque<u64>> = vec![VecDeque::new(); VCS];
    let mut out = Outcome {
        flits: 0,
        packets: 0,
        errors_seen: 0,
    };
    b.poke_bool(reset, true);
    b.tick();
    for cycle in 0..cycles {
        let violate = cycle >= cycles / 2;
        let rst = sched.next(&mut rng);
        b.poke_bool(reset, rst);
        // Outputs of this cycle against the model.
        let packed = (0..VCS).fold(0u128, |a, w| a | (m.available(w) as u128) << (8 * w));
        assert_eq!(
            b.peek(credits),
            packed,
            "seed {seed} cycle {cycle}: credits"
        );
        assert_eq!(
            b.peek(free) as u32,
            !m.owned & 7,
            "seed {seed} cycle {cycle}: free"
        );
        assert_eq!(
            (b.peek_bool(valid), b.peek(flit), b.peek(cvc) as usize),
            (m.reg.0, m.reg.1, m.reg.2),
            "seed {seed} cycle {cycle}: channel"
        );
        assert_eq!(
            (b.peek_bool(fo), b.peek_bool(po), b.peek_bool(err)),
            (m.reg.0, m.reg.3, m.error),
            "seed {seed} cycle {cycle}: events, error"
        );
        assert!(
            violate || !m.error,
            "seed {seed} cycle {cycle}: error without a violation"
        );
        out.errors_seen += m.error as u64;
        // The receiver: the flit on the channel takes a slot; freed slots come back as credits.
        let mut returned = 0u32;
        if m.reg.0 && !rst {
            let w = m.reg.2;
            assert!(
                violate || slots[w] > 0,
                "seed {seed} cycle {cycle}: a flit without credit"
            );
            slots[w] = slots[w].saturating_sub(1);
            pending[w].push_back(cycle + rng.range(1, 6));
            out.flits += 1;
            out.packets += m.reg.3 as u64;
        }
        for w in 0..VCS {
            if pending[w].front().is_some_and(|&t| t <= cycle) {
                pending[w].pop_front();
                slots[w] += 1;
                returned |= 1 << w;
            } else if violate && rng.chance(0.02) {
                returned |= 1 << w; // a credit never spent
            }
        }
        b.poke(ret, returned as u128);
        // The sender.
        let mut go = None;
        if rng.chance(0.7) {
            let w = rng.range(0, VCS as u64 - 1) as usize;
            if left[w] > 0 {
                go = Some((w, false, left[w] == 1));
            } else if m.owned >> w & 1 == 0 {
                let n = rng.range(2, RESERVE as u64) as usize;
                if m.available(w) >= n {
                    left[w] = n;
                    go = Some((w, true, false));
                } else if violate && m.available(w) == 0 && rng.chance(0.3) {
                    go = Some((w, false, false)); // a flit without credit
                }
            }
        }
        let ag = rng.chance(0.3);
        let (xf, af) = (rng.bits(65), rng.bits(65));
        b.poke(xflit, xf);
        b.poke(aflit, af);
        b.poke_bool(send, go.is_some());
        b.poke_bool(agent, ag);
        // While `send` is low the register still loads `vc` and the flit (not valid).
        let idle_vc = (rng.bits(2) % VCS as u128) as usize;
        match go {
            Some((w, h, l)) => {
                b.poke(vc, w as u128);
                b.poke_bool(head, h);
                b.poke_bool(last, l);
            }
            None => {
                b.poke(vc, idle_vc as u128);
                b.poke_bool(head, rng.chance(0.5));
                b.poke_bool(last, rng.chance(0.5));
            }
        }
        b.tick();
        if rst {
            // The flit and VC registers load even in reset (nothing valid).
            let w = go.map_or(idle_vc, |g| g.0);
            m = Model::new();
            m.reg = (false, if ag { af } else { xf }, w, false);
            left = [0; VCS];
            slots = [RESERVE; VCS];
            pending.iter_mut().for_each(|q| q.clear());
            continue;
        }
        // The model's edge.
        for w in 0..VCS {
            let consume = go.is_some_and(|g| g.0 == w);
            let take = consume && m.used[w] != RESERVE;
            m.error |= consume && !take;
            let rest = m.used[w] as i64 - (returned >> w & 1) as i64 + take as i64;
            if rest < 0 {
                m.error = true;
                m.used[w] = 0;
            } else {
                m.used[w] = rest as usize;
            }
        }
        m.reg = match go {
            Some((w, h, l)) => {
                if h {
                    m.owned |= 1 << w;
                }
                if l {
                    m.owned &= !(1 << w);
                }
                left[w] = left[w].saturating_sub(1);
                (true, if ag { af } else { xf }, w, l)
            }
            None => (false, if ag { af } else { xf }, idle_vc, false),
        };
    }
    out
}

#[test]
fn output_unit_against_model() {
    let r = run_both(
        "output_unit",
        || Unit::new(RESERVE),
        table,
        |b| bench(b, 11, 8000),
    );
    println!("output_unit: {:?}", r.result);
    assert!(r.result.flits > 2000 && r.result.packets > 300 && r.result.errors_seen > 0);
}
