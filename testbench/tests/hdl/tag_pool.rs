//! `TagPool` (nic::tag_pool) against its model (`testbench::models::tag_pool`), every output
//! every cycle, on both backends, at 4 tags (exhaustion most of the time) and 32 (the default).
//!
//! A requester takes tags with random `ready` and random owners and holds each for a random
//! 1..=80 cycles (phases of light and heavy load, so the pool runs dry and back-pressures),
//! frees them in random order, now and then in the same cycle as an allocation (also of the
//! tag allocated the cycle before), and throws in bad frees: tags it does not hold, tags at or
//! above the pool's size, and double frees; on all three free ports (`free`, `free_second`,
//! `free_third`), often in the same cycle, now and then the same tag on two of them (one free
//! and one bad free).
//! `lookup_tag` is random (held and free tags).
//! `reset` comes at random moments under traffic (`ResetSchedule`): the next cycle must offer
//! tag 0 with nothing in use, and the requester forgets what it held.
//!
//! Checked beyond the model: a tag is never handed out while the requester holds it; after the
//! final drain every tag has come back (`in_use` 0, tag 0 offered) and every tag was allocated
//! at least once; the pool ran dry (back pressure seen) and bad frees were counted.
use nic::tag_pool::TagPool;
use testbench::models::tag_pool::{TagPoolInputs, TagPoolModel};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng, PortTable};

fn table() -> PortTable<TagPool> {
    port_table!(TagPool; reset, alloc.valid, alloc.tag, alloc.ready, alloc.owner, free.valid,
        free.tag, free_second.valid, free_second.tag, free_third.valid, free_third.tag, bad_free, lookup_tag, lookup_owner, lookup_allocated, in_use)
}

/// What a run counted.
#[derive(Debug, PartialEq)]
struct Report {
    allocations: u64,
    frees: u64,
    bad_frees: u64,
    dry_cycles: u64,
    resets: u64,
}

fn bench(b: &mut dyn Backend, seed: u64, tags: usize) -> Report {
    let what = format!("tag_pool {tags} seed {seed}");
    let mut rng = BenchRng::new(seed);
    let port = |n: &str| b.port(n);
    let (reset, a_valid, a_tag, a_ready, a_owner) = (
        port("reset"),
        port("alloc$valid"),
        port("alloc$tag"),
        port("alloc$ready"),
        port("alloc$owner"),
    );
    let (f_valid, f_tag, bad, l_tag, l_owner, l_alloc, in_use) = (
        port("free$valid"),
        port("free$tag"),
        port("bad_free"),
        port("lookup_tag"),
        port("lookup_owner"),
        port("lookup_allocated"),
        port("in_use"),
    );
    let (f2_valid, f2_tag) = (port("free_second$valid"), port("free_second$tag"));
    let (f3_valid, f3_tag) = (port("free_third$valid"), port("free_third$tag"));
    let mut m = TagPoolModel::new(tags);
    let mut sched = ResetSchedule::new(&mut rng, 400);
    // Tags held: (tag, cycle it is given back).
    let mut held: Vec<(u8, u64)> = vec![];
    let mut ever = vec![false; tags];
    let mut r = Report {
        allocations: 0,
        frees: 0,
        bad_frees: 0,
        dry_cycles: 0,
        resets: 0,
    };
    let cycles = 5000u64;
    for k in 0..cycles + 200 {
        let draining = k >= cycles;
        let heavy = (k / 500) % 2 == 1;
        let mut i = TagPoolInputs {
            reset: sched.next_if(&mut rng, !draining),
            lookup: rng.bits(8) as u8,
            ..Default::default()
        };
        if sched.released() {
            assert_eq!(b.peek(in_use), 0, "{what} cycle {k}: in use after reset");
            assert!(
                b.peek_bool(a_valid) && b.peek(a_tag) == 0,
                "{what} cycle {k}: tag 0 offered after reset"
            );
        }
        let wants = !draining && rng.chance(if heavy { 0.9 } else { 0.3 });
        if wants {
            i.take = Some(rng.bits(2) as u8);
        }
        // A due tag, or everything when draining; else sometimes a bad free.
        let due = held
            .iter()
            .position(|&(_, at)| at <= k || draining && rng.chance(0.7));
        if let Some(p) = due.filter(|_| rng.chance(0.8)) {
            i.free = Some(held.swap_remove(p).0);
        } else if rng.chance(0.03) {
            // Not held: free in the pool, beyond it, or just given back (a double free).
            let t = rng.bits(8) as u8;
            if !held.iter().any(|h| h.0 == t) {
                i.free = Some(t);
            }
        }
        // The second port: another due tag, or now and then a bad one (the first port's tag
        // among them: two frees of one tag).
        let due = held
            .iter()
            .position(|&(_, at)| at <= k || draining && rng.chance(0.7));
        if let Some(p) = due.filter(|_| rng.chance(0.6)) {
            i.free_second = Some(held.swap_remove(p).0);
        } else if rng.chance(0.03) {
            let t = if rng.chance(0.3) {
                i.free.unwrap_or(rng.bits(8) as u8)
            } else {
                rng.bits(8) as u8
            };
            if !held.iter().any(|h| h.0 == t) {
                i.free_second = Some(t);
            }
        }
        // The third port: the same, its bad ones now and then a tag freed on another port.
        let due = held
            .iter()
            .position(|&(_, at)| at <= k || draining && rng.chance(0.7));
        if let Some(p) = due.filter(|_| rng.chance(0.4)) {
            i.free_third = Some(held.swap_remove(p).0);
        } else if rng.chance(0.03) {
            let t = match rng.range(0, 3) {
                0 => i.free.unwrap_or(rng.bits(8) as u8),
                1 => i.free_second.unwrap_or(rng.bits(8) as u8),
                _ => rng.bits(8) as u8,
            };
            if !held.iter().any(|h| h.0 == t) {
                i.free_third = Some(t);
            }
        }
        if let Some(&(t, _)) = held
            .get(rng.range(0, 3) as usize)
            .filter(|_| rng.chance(0.5))
        {
            i.lookup = t;
        }
        b.poke_bool(reset, i.reset);
        b.poke_bool(a_ready, i.take.is_some());
        b.poke(a_owner, i.take.unwrap_or(rng.bits(2) as u8) as u128);
        b.poke_bool(f_valid, i.free.is_some());
        b.poke(f_tag, i.free.unwrap_or(rng.bits(8) as u8) as u128);
        b.poke_bool(f2_valid, i.free_second.is_some());
        b.poke(f2_tag, i.free_second.unwrap_or(rng.bits(8) as u8) as u128);
        b.poke_bool(f3_valid, i.free_third.is_some());
        b.poke(f3_tag, i.free_third.unwrap_or(rng.bits(8) as u8) as u128);
        b.poke(l_tag, i.lookup as u128);
        let want = m.outputs(&i);
        let got_offer = b.peek_bool(a_valid).then(|| b.peek(a_tag) as u8);
        assert_eq!(got_offer, want.offered, "{what} cycle {k}: offered tag");
        assert_eq!(
            b.peek_bool(bad),
            want.bad_free,
            "{what} cycle {k}: bad_free"
        );
        let looked = b.peek_bool(l_alloc).then(|| b.peek(l_owner) as u8);
        assert_eq!(
            looked, want.lookup,
            "{what} cycle {k}: lookup of {}",
            i.lookup
        );
        if !b.peek_bool(l_alloc) {
            assert_eq!(b.peek(l_owner), 0, "{what} cycle {k}: owner of a free tag");
        }
        assert_eq!(
            b.peek(in_use) as usize,
            want.in_use,
            "{what} cycle {k}: in_use"
        );
        b.tick();
        let got = m.edge(&i);
        if i.reset {
            held.clear();
            r.resets += 1;
            continue;
        }
        r.bad_frees += want.bad_free as u64;
        r.frees += i.free.is_some() as u64
            + i.free_second.is_some() as u64
            + i.free_third.is_some() as u64;
        if wants && got.is_none() {
            r.dry_cycles += 1;
        }
        if let Some(t) = got {
            assert!(
                !held.iter().any(|h| h.0 == t),
                "{what} cycle {k}: tag {t} handed out twice"
            );
            ever[t as usize] = true;
            r.allocations += 1;
            held.push((t, k + rng.range(1, 80)));
        }
    }
    sched.assert_pulses(&what, 5);
    assert!(held.is_empty(), "{what}: the drain left {held:?}");
    assert_eq!(b.peek(in_use), 0, "{what}: every tag back");
    assert!(
        b.peek_bool(a_valid) && b.peek(a_tag) == 0,
        "{what}: tag 0 offered at the end"
    );
    assert!(
        ever.iter().all(|&e| e),
        "{what}: tags never allocated: {ever:?}"
    );
    assert!(r.dry_cycles > 50, "{what}: the pool never ran dry: {r:?}");
    assert!(r.bad_frees > 20, "{what}: too few bad frees: {r:?}");
    r
}

#[test]
fn tag_pool_matches_model() {
    for (tags, seed) in [(4, 21), (32, 22)] {
        let r = run_both(
            &format!("tag_pool_{tags}"),
            || TagPool::new(tags),
            table,
            |b| bench(b, seed, tags),
        );
        println!("tag pool {tags}: {:?}", r.result);
    }
}
