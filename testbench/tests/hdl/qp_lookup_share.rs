//! `QpLookupShare` (nic: the function table's QP lookup shared by the fetch, the event writer
//! and the receive side) against a model, on both backends: three requesters with random
//! lookups (held while `valid` until taken, random fields while idle), the table's `ready` at
//! random, its answer one cycle after each take (every field a function of the function, QP
//! and cycle, so a misrouted or stale answer shows), and `reset` at random moments. Checked
//! every cycle: the table sees the round robin's requester's function and QP (pointer after
//! the last one served, moved only by a take), only that requester sees `ready`, and exactly
//! the requester whose lookup was taken sees `answered` in the next cycle, with the table's
//! fields.
use nic::qp_lookup_share::QpLookupShare;
use std::collections::VecDeque;
use testbench::nic_fetch_perf::Ports;
use testbench::port_table;
use testbench::reset::ResetSchedule;
use testbench::rhdl::PortTable;
use testbench::{run_both, Backend, BenchRng, SimValue};

/// The requesters as the bench names them (the NIC's fetch, event writer, receive engine).
const REQUESTERS: [&str; 3] = ["requesters$0", "requesters$1", "requesters$2"];
/// The answer's fields and their widths.
const FIELDS: [(&str, usize); 17] = [
    ("owned", 1),
    ("function_enabled", 1),
    ("qp_enabled", 1),
    ("key", 32),
    ("interrupt", 1),
    ("send_base", 48),
    ("send_size", 4),
    ("send_producer", 16),
    ("send_consumer", 16),
    ("receive_base", 48),
    ("receive_size", 4),
    ("receive_producer", 16),
    ("receive_consumer", 16),
    ("nap_base", 48),
    ("nap_size", 4),
    ("nap_producer", 16),
    ("nap_consumer", 16),
];

type Dut = QpLookupShare<3, 2>;

fn table() -> PortTable<Dut> {
    let mut t = port_table!(Dut; reset,
        table.valid, table.function, table.qp, table.ready, table.answered, table.owned,
        table.function_enabled, table.qp_enabled, table.key, table.interrupt,
        table.send_base, table.send_size, table.send_producer, table.send_consumer,
        table.receive_base, table.receive_size, table.receive_producer,
        table.receive_consumer, table.nap_base, table.nap_size, table.nap_producer,
        table.nap_consumer);
    macro_rules! requester_port {
        ($i:ident, $f:ident) => {
            t.add(
                format!("requesters${}${}", $i, stringify!($f)),
                move |x: &mut Dut, v| x.requesters[$i].$f.next = SimValue::from_u128(v),
                move |x: &Dut| SimValue::to_u128(&x.requesters[$i].$f.val()),
            );
        };
    }
    for i in 0..REQUESTERS.len() {
        requester_port!(i, valid);
        requester_port!(i, function);
        requester_port!(i, qp);
        requester_port!(i, ready);
        requester_port!(i, answered);
        requester_port!(i, owned);
        requester_port!(i, function_enabled);
        requester_port!(i, qp_enabled);
        requester_port!(i, key);
        requester_port!(i, interrupt);
        requester_port!(i, send_base);
        requester_port!(i, send_size);
        requester_port!(i, send_producer);
        requester_port!(i, send_consumer);
        requester_port!(i, receive_base);
        requester_port!(i, receive_size);
        requester_port!(i, receive_producer);
        requester_port!(i, receive_consumer);
        requester_port!(i, nap_base);
        requester_port!(i, nap_size);
        requester_port!(i, nap_producer);
        requester_port!(i, nap_consumer);
    }
    t
}

/// The table's answer fields for a lookup of (f, q) taken in cycle `k`.
fn answer_fields(f: u128, q: u128, k: u64) -> Vec<u128> {
    FIELDS
        .iter()
        .enumerate()
        .map(|(i, &(_, w))| {
            let x = (f * 0x9E37_79B9
                + q * 0x85EB_CA6B
                + k as u128 * 0xC2B2_AE35
                + i as u128 * 0x27D4_EB2F)
                ^ (k as u128) << 7;
            x & ((1u128 << w) - 1)
        })
        .collect()
}

/// Counts: lookups taken per requester, resets.
fn bench(b: &mut dyn Backend, seed: u64, cycles: u64) -> ([u64; 3], u64) {
    let what = format!("qp_lookup_share seed {seed}");
    let mut rng = BenchRng::new(seed);
    let p = Ports::new(b);
    let id = |n: &str| p.id(n);
    let mut sched = ResetSchedule::new(&mut rng, 1500);
    let mut queues: [VecDeque<(u128, u128)>; 3] = Default::default();
    let mut offering = [false; 3];
    // The round robin's last served requester; the lookup taken last cycle (requester, f, q, k).
    let mut served_last = 2usize;
    let mut taken_last: Option<(usize, u128, u128, u64)> = None;
    let mut taken = [0u64; 3];
    for k in 0..cycles {
        let reset = sched.next_if(&mut rng, true);
        b.poke_bool(id("reset"), reset);
        for (i, n) in REQUESTERS.iter().enumerate() {
            while queues[i].len() < 2 {
                queues[i].push_back((rng.bits(3), rng.bits(4)));
            }
            // Requester 1 asks rarely, so the others meet an idle one as well as a busy one.
            let rate = if i == 1 { 0.2 } else { 0.7 };
            offering[i] = offering[i] || rng.chance(rate);
            let (f, q) = if offering[i] {
                queues[i][0]
            } else {
                (rng.bits(3), rng.bits(4))
            };
            b.poke_bool(id(&format!("{n}$valid")), offering[i]);
            b.poke(id(&format!("{n}$function")), f);
            b.poke(id(&format!("{n}$qp")), q);
        }
        let ready = rng.chance(0.6);
        b.poke_bool(id("table$ready"), ready);
        let answer = taken_last.filter(|_| !reset);
        b.poke_bool(id("table$answered"), answer.is_some());
        let fields = match answer {
            Some((_, f, q, t)) => answer_fields(f, q, t),
            None => FIELDS.iter().map(|&(_, w)| rng.bits(w)).collect(),
        };
        for (&(n, _), &v) in FIELDS.iter().zip(&fields) {
            b.poke(id(&format!("table${n}")), v);
        }
        // The request the table sees.
        let want = (1..=3)
            .map(|d| (served_last + d) % 3)
            .find(|&i| offering[i]);
        assert_eq!(
            b.peek_bool(id("table$valid")),
            want.is_some(),
            "{what} cycle {k}: table valid"
        );
        if let Some(i) = want {
            let got = (b.peek(id("table$function")), b.peek(id("table$qp")));
            assert_eq!(
                got, queues[i][0],
                "{what} cycle {k}: request of {}",
                REQUESTERS[i]
            );
        }
        for (i, n) in REQUESTERS.iter().enumerate() {
            let r = b.peek_bool(id(&format!("{n}$ready")));
            assert_eq!(r, ready && want == Some(i), "{what} cycle {k}: {n} ready");
            let answered = b.peek_bool(id(&format!("{n}$answered")));
            assert_eq!(
                answered,
                answer.is_some_and(|a| a.0 == i),
                "{what} cycle {k}: {n} answered"
            );
            if answered {
                for (&(f, _), &v) in FIELDS.iter().zip(&fields) {
                    assert_eq!(
                        b.peek(id(&format!("{n}${f}"))),
                        v,
                        "{what} cycle {k}: {n} {f}"
                    );
                }
            }
        }
        taken_last = None;
        if reset {
            served_last = 2;
        } else if let Some(i) = want.filter(|_| ready) {
            let (f, q) = queues[i].pop_front().expect("offered");
            offering[i] = false;
            served_last = i;
            taken_last = Some((i, f, q, k));
            taken[i] += 1;
        }
        b.tick();
    }
    sched.assert_pulses(&what, 3);
    (taken, sched.pulses())
}

#[test]
fn qp_lookup_share_matches_model() {
    let r = run_both("qp_lookup_share", Dut::default, table, |b| {
        bench(b, 7, 8000)
    });
    let (taken, resets) = r.result;
    println!("qp_lookup_share: lookups taken per requester {taken:?}, {resets} resets");
    assert!(taken.iter().all(|&t| t > 500), "{taken:?}");
}
