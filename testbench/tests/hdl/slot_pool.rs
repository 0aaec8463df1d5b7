//! SlotPool against its model (`testbench::models::nma::SlotPoolModel`), every cycle, on both
//! backends, driven as the agent drives it: the unpacker claims the offered slot now and then
//! (only while one is available), and slots it holds are given back at random, some by the
//! unpacker (a dropped packet) and some as sent responses, both in the same cycle often (and
//! with a claim); random idle values on the slot numbers while their strobes are low; reset
//! pulses at random moments. Every cycle `lease.free_slot` and `lease.available` are compared
//! with the model, and, independently of it, with the bench's own list of slots held: a slot is
//! available exactly when fewer than all are held, and the slot offered is never one held.
use hdl::mgmt::ticket::{SLOT_BITS, STORE_SLOTS};
use hdl::mgmt::SlotPool;
use testbench::models::nma::SlotPoolModel;
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng};

#[derive(Debug, Default, PartialEq)]
struct Report {
    claims: u64,
    given_back: u64,
    sent: u64,
    /// Cycles with every slot held.
    full: u64,
    /// Cycles with a claim and a give-back together.
    claim_and_free: u64,
    resets: u64,
}

/// Takes a random slot out of `held`.
fn take_random(rng: &mut BenchRng, held: &mut Vec<u8>) -> u8 {
    let i = rng.range(0, held.len() as u64 - 1) as usize;
    held.swap_remove(i)
}

fn bench(b: &mut dyn Backend, seed: u64, cycles: u64) -> Report {
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(n);
    let (reset, free, available) = (p("reset"), p("lease$free_slot"), p("lease$available"));
    let (claim, give_back, returned) =
        (p("lease$claim"), p("lease$give_back"), p("lease$returned"));
    let (sent_done, sent_slot) = (p("sent$done"), p("sent$slot"));
    let mut sched = ResetSchedule::new(&mut rng, 250);
    let mut model = SlotPoolModel::default();
    let mut held: Vec<u8> = Vec::new();
    let mut report = Report::default();
    for c in 0..cycles {
        let rst = sched.drive(b, reset, &mut rng);
        report.resets += sched.released() as u64;
        let tag = format!("seed {seed} cycle {c}");
        let got_available = b.peek_bool(available);
        let got_free = b.peek(free) as u8;
        if !rst {
            assert_eq!(got_available, model.available(), "{tag}: available");
            assert_eq!(
                got_available,
                held.len() < STORE_SLOTS,
                "{tag}: available vs held"
            );
            if got_available {
                assert_eq!(got_free, model.free_slot(), "{tag}: free_slot");
                assert!(
                    !held.contains(&got_free),
                    "{tag}: slot {got_free} offered while held"
                );
            }
        }
        report.full += (held.len() == STORE_SLOTS) as u64;
        // The holders give slots back (before the claim: a slot claimed now is held from the edge).
        let given =
            (!held.is_empty() && rng.chance(0.25)).then(|| take_random(&mut rng, &mut held));
        let sent = (!held.is_empty() && rng.chance(0.25)).then(|| take_random(&mut rng, &mut held));
        let claiming = got_available && !rst && rng.chance(0.5);
        b.poke_bool(claim, claiming);
        b.poke_bool(give_back, given.is_some());
        b.poke(returned, given.unwrap_or(rng.bits(SLOT_BITS) as u8) as u128);
        b.poke_bool(sent_done, sent.is_some());
        b.poke(sent_slot, sent.unwrap_or(rng.bits(SLOT_BITS) as u8) as u128);
        if claiming {
            held.push(got_free);
            report.claims += 1;
        }
        report.given_back += given.is_some() as u64;
        report.sent += sent.is_some() as u64;
        report.claim_and_free += (claiming && (given.is_some() || sent.is_some())) as u64;
        model.edge(rst, claiming, given, sent);
        if rst {
            held.clear();
        }
        b.tick();
    }
    sched.assert_pulses(&format!("slot_pool seed {seed}"), 3);
    report
}

fn table() -> testbench::PortTable<SlotPool> {
    port_table!(SlotPool; reset, lease.free_slot, lease.available, lease.claim,
        lease.give_back, lease.returned, sent.done, sent.slot)
}

#[test]
fn slot_pool_against_its_model() {
    let r = run_both("slot_pool", SlotPool::default, table, |b| {
        bench(b, 31, 3000)
    })
    .result;
    println!("slot_pool: {r:?}");
    assert!(
        r.claims > 500
            && r.given_back > 200
            && r.sent > 200
            && r.full > 50
            && r.claim_and_free > 50,
        "{r:?}"
    );
}
