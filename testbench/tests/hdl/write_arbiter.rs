//! `WriteArbiter<3, 2>` (nic::receive) against the arbiter model (`testbench::models::arbiter`,
//! round robin with hold), every cycle, on both backends.
//!
//! 1. **Random load** (12,000 cycles): three writers, each with writes of 1..=6 beats (random
//!    function, address, data, enables), offered with random idle (random fields while
//!    `valid` is low) and random pauses between a write's beats; a beat once offered is held
//!    until taken (the hold rule); random host `ready` in phases; `reset` at random moments
//!    (`ResetSchedule`: the writers reset with the arbiter and drop their unfinished write).
//!    Every cycle: `write` is exactly the beat of the writer the model grants (or nothing),
//!    each `inputs[i].ready` is the host's `ready` for the granted writer only. Every write
//!    seen on the port is reassembled and must equal, per writer, the writes that writer
//!    completed, in order (beats of two writes never interleaved).
//! 2. **Saturation** (3,000 cycles, no reset, host always ready, every writer always
//!    offering): a beat on the port every cycle (no bubble between writes), and the writers'
//!    counts of completed writes within one of each other (round robin by whole writes).
use nic::receive::write_arbiter::WriteArbiter;
use testbench::models::arbiter::{ArbiterModel, Policy};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng, PortId, PortTable, SimValue};

const N: usize = 3;
type Dut = WriteArbiter<N, 2>;
const FIELDS: [&str; 7] = [
    "valid", "function", "address", "data", "enables", "last", "ready",
];

fn table() -> PortTable<Dut> {
    let mut t = port_table!(Dut; reset, write.valid, write.function, write.address, write.data,
        write.enables, write.last, write.ready);
    macro_rules! input_port {
        ($i:ident, $f:ident) => {
            t.add(
                format!("inputs${}${}", $i, stringify!($f)),
                move |x: &mut Dut, v| x.inputs[$i].$f.next = SimValue::from_u128(v),
                move |x: &Dut| SimValue::to_u128(&x.inputs[$i].$f.val()),
            );
        };
    }
    for i in 0..N {
        input_port!(i, valid);
        input_port!(i, function);
        input_port!(i, address);
        input_port!(i, data);
        input_port!(i, enables);
        input_port!(i, last);
        input_port!(i, ready);
    }
    t
}

/// One beat: function, address, data, enables, last.
type Beat = (u128, u128, u128, u128, bool);

fn random_write(rng: &mut BenchRng) -> Vec<Beat> {
    let n = rng.range(1, 6) as usize;
    let (function, base) = (rng.bits(3), rng.bits(44) << 4);
    (0..n)
        .map(|k| {
            (
                function,
                base + 16 * k as u128,
                rng.bits(128),
                rng.bits(16),
                k + 1 == n,
            )
        })
        .collect()
}

/// A writer: its current write, the next beat, whether that beat is offered (held until taken).
struct Writer {
    write: Vec<Beat>,
    next: usize,
    offering: bool,
    /// Writes whose last beat was taken.
    done: Vec<Vec<Beat>>,
}

/// Port ids of one bundle, in `FIELDS` order.
fn bundle(b: &dyn Backend, name: &str) -> [PortId; 7] {
    FIELDS.map(|f| b.port(&format!("{name}${f}")))
}

/// Counts: writes per writer, beats, resets, cycles of the saturation phase.
fn bench(b: &mut dyn Backend, seed: u64) -> (Vec<usize>, u64, u64) {
    let mut rng = BenchRng::new(seed);
    let reset = b.port("reset");
    let out = bundle(b, "write");
    let ins: Vec<[PortId; 7]> = (0..N).map(|i| bundle(b, &format!("inputs${i}"))).collect();
    let mut model = ArbiterModel::new(N, Policy::RoundRobin, true);
    let mut writers: Vec<Writer> = (0..N)
        .map(|_| Writer {
            write: random_write(&mut rng),
            next: 0,
            offering: false,
            done: vec![],
        })
        .collect();
    // Per writer: the beats of its write now on the port, and the writes seen whole.
    let mut seen: Vec<(Vec<Beat>, Vec<Vec<Beat>>)> = vec![(vec![], vec![]); N];
    let mut sched = ResetSchedule::new(&mut rng, 1500);
    let (mut beats, mut host_phase) = (0u64, 0.8);
    let random_phase = 12_000u64;
    let mut saturated_done = [0usize; N];
    for cycle in 0..random_phase + 3_000 {
        let saturated = cycle >= random_phase;
        if cycle % 300 == 0 {
            host_phase = [0.2, 0.7, 1.0][rng.range(0, 2) as usize];
        }
        let r = !saturated && sched.next(&mut rng);
        b.poke_bool(reset, r);
        let mut requests = 0u64;
        for (i, w) in writers.iter_mut().enumerate() {
            if !w.offering {
                w.offering = saturated || rng.chance(if w.next == 0 { 0.4 } else { 0.7 });
            }
            let beat = w.write[w.next];
            if w.offering {
                b.poke_bool(ins[i][0], true);
                b.poke(ins[i][1], beat.0);
                b.poke(ins[i][2], beat.1);
                b.poke(ins[i][3], beat.2);
                b.poke(ins[i][4], beat.3);
                b.poke_bool(ins[i][5], beat.4);
                requests |= 1 << i;
            } else {
                b.poke_bool(ins[i][0], false);
                for &port in &ins[i][1..6] {
                    let width = b.width(port);
                    b.poke(port, rng.bits(width));
                }
            }
        }
        let host_ready = saturated || rng.chance(host_phase);
        b.poke_bool(out[6], host_ready);
        let grant = model.grant(requests);
        assert_eq!(
            b.peek_bool(out[0]),
            grant.is_some(),
            "cycle {cycle}: write.valid"
        );
        if let Some(g) = grant {
            let beat = writers[g].write[writers[g].next];
            let got = (
                b.peek(out[1]),
                b.peek(out[2]),
                b.peek(out[3]),
                b.peek(out[4]),
                b.peek_bool(out[5]),
            );
            assert_eq!(got, beat, "cycle {cycle}: the beat of writer {g}");
        }
        for (i, ports) in ins.iter().enumerate() {
            let want = grant == Some(i) && host_ready;
            assert_eq!(
                b.peek_bool(ports[6]),
                want,
                "cycle {cycle}: inputs[{i}].ready"
            );
        }
        if saturated {
            assert!(grant.is_some(), "cycle {cycle}: a bubble under saturation");
        }
        let taken = grant.filter(|_| host_ready);
        if r {
            model.reset();
            for (w, s) in writers.iter_mut().zip(seen.iter_mut()) {
                w.write = random_write(&mut rng);
                w.next = 0;
                w.offering = false;
                s.0.clear();
            }
        } else {
            let last = taken.is_some_and(|g| writers[g].write[writers[g].next].4);
            model.edge(requests, taken.is_some(), last);
            if let Some(g) = taken {
                beats += 1;
                let w = &mut writers[g];
                seen[g].0.push(w.write[w.next]);
                w.offering = false;
                w.next += 1;
                if w.next == w.write.len() {
                    let whole = std::mem::replace(&mut w.write, random_write(&mut rng));
                    w.done.push(whole);
                    w.next = 0;
                    let s = std::mem::take(&mut seen[g].0);
                    seen[g].1.push(s);
                    assert_eq!(
                        seen[g].1.last(),
                        w.done.last(),
                        "cycle {cycle}: writer {g}'s write {} reassembled",
                        w.done.len()
                    );
                    if saturated {
                        saturated_done[g] += 1;
                    }
                }
            }
        }
        b.tick();
    }
    for (g, (s, w)) in seen.iter().zip(&writers).enumerate() {
        assert_eq!(s.1, w.done, "writer {g}: writes seen");
        assert!(w.done.len() > 300, "writer {g}: too few writes");
    }
    let (lo, hi) = (
        *saturated_done.iter().min().expect("writers"),
        *saturated_done.iter().max().expect("writers"),
    );
    assert!(
        hi - lo <= 1,
        "saturation: writes per writer {saturated_done:?} not round robin"
    );
    sched.assert_pulses("write_arbiter", 4);
    (
        writers.iter().map(|w| w.done.len()).collect(),
        beats,
        sched.pulses(),
    )
}

#[test]
fn write_arbiter_matches_model() {
    let r = run_both("write_arbiter", Dut::new, table, |b| bench(b, 81));
    println!(
        "write arbiter (writes per writer, beats, resets): {:?}",
        r.result
    );
}
