//! `DeficitGate` (nic::doorbell) against its model (`testbench::models::doorbell::DeficitModel`),
//! every output every cycle, on both backends, for 8 functions and for 3:
//! 1. **Random**: random requests, `enable` switched every 300 cycles, charges in 40% of
//!    cycles to any function number (those beyond the gate's are ignored) of descriptor sizes,
//!    megabytes (saturating at 1 MB) or any 32-bit count, `reset` now and then.
//! 2. **Overdraw** (after a reset): every function requesting, each charged a fixed size
//!    (up to 4 KB, 64 units) every 8 cycles in turn, granted or not: the gate must stop
//!    functions that overdraw and replenish when all have; a run of closed cycles (every
//!    request held) is at most 3 long (each adds the 32-unit quantum to everyone).
use nic::doorbell::DeficitGate;
use testbench::models::doorbell::DeficitModel;
use testbench::{port_table, run_both, Backend, BenchRng, PortTable, SimValue};

fn table(n: usize) -> PortTable<DeficitGate> {
    let mut t =
        port_table!(DeficitGate; reset, enable, charge.valid, charge.function, charge.bytes);
    for i in 0..n {
        t.add(
            format!("requests${i}"),
            move |x: &mut DeficitGate, v| x.requests[i].next = SimValue::from_u128(v),
            move |x: &DeficitGate| SimValue::to_u128(&x.requests[i].val()),
        );
        t.add(
            format!("eligible${i}"),
            move |x: &mut DeficitGate, v| x.eligible[i].next = SimValue::from_u128(v),
            move |x: &DeficitGate| SimValue::to_u128(&x.eligible[i].val()),
        );
    }
    t
}

/// What a run saw.
#[derive(Debug, PartialEq)]
struct Report {
    /// Cycles in which a request was held back.
    held: u64,
    /// Cycles in which every request was held back (replenish cycles).
    closed: u64,
}

fn bench(b: &mut dyn Backend, seed: u64, n: usize) -> Report {
    let mut rng = BenchRng::new(seed);
    let mut m = DeficitModel::new(n);
    let (reset, enable) = (b.port("reset"), b.port("enable"));
    let charge = [
        b.port("charge$valid"),
        b.port("charge$function"),
        b.port("charge$bytes"),
    ];
    let requests: Vec<_> = (0..n).map(|i| b.port(&format!("requests${i}"))).collect();
    let eligible: Vec<_> = (0..n).map(|i| b.port(&format!("eligible${i}"))).collect();
    let mut report = Report { held: 0, closed: 0 };
    let mut on = true;
    let mut closed_run = 0u64;
    for k in 0..8000u64 {
        let overdraw = k >= 5000;
        if !overdraw && k % 300 == 0 {
            on = rng.chance(0.7);
        }
        let rst = k == 5000 || (!overdraw && rng.chance(0.002));
        let req: Vec<bool> = (0..n).map(|_| overdraw || rng.chance(0.6)).collect();
        let c = if overdraw {
            let f = (k as usize) % n;
            Some((f, [700, 64, 3000, 1, 2048, 100, 4096, 900][f]))
        } else {
            rng.chance(0.4).then(|| {
                let bytes = match rng.range(0, 9) {
                    0 => rng.bits(32) as u64,
                    1 | 2 => rng.range(0, 1 << 22),
                    _ => rng.range(0, 4096),
                };
                (rng.range(0, 7) as usize, bytes)
            })
        };
        let enabled = on || overdraw;
        b.poke_bool(reset, rst);
        b.poke_bool(enable, enabled);
        for f in 0..n {
            b.poke_bool(requests[f], req[f]);
        }
        let (cf, cb) = c.unwrap_or((rng.bits(3) as usize, rng.bits(32) as u64));
        b.poke_bool(charge[0], c.is_some());
        b.poke(charge[1], cf as u128);
        b.poke(charge[2], cb as u128);
        let want = m.eligible(&req, enabled);
        for f in 0..n {
            assert_eq!(
                b.peek_bool(eligible[f]),
                want[f],
                "seed {seed} n {n} cycle {k}: eligible[{f}] (credits {:?})",
                m.credits
            );
        }
        let any = req.iter().any(|&r| r);
        let closed = any && !want.iter().any(|&e| e);
        report.held += want.iter().zip(&req).any(|(&e, &r)| r && !e) as u64;
        report.closed += closed as u64;
        closed_run = if closed && !rst { closed_run + 1 } else { 0 };
        if overdraw {
            assert!(
                closed_run <= 3,
                "seed {seed} n {n} cycle {k}: closed {closed_run} cycles running"
            );
        }
        b.tick();
        m.edge(&req, enabled, c.filter(|x| x.0 < n), rst);
    }
    report
}

#[test]
fn deficit_gate_matches_model() {
    for (n, seed) in [(8, 21), (3, 22)] {
        let r = run_both(
            &format!("deficit_gate_{n}"),
            || DeficitGate::new(n),
            || table(n),
            |b| bench(b, seed, n),
        );
        assert!(
            r.result.held > 500 && r.result.closed > 50,
            "n {n}: the gate must both hold back and replenish: {:?}",
            r.result
        );
    }
}
