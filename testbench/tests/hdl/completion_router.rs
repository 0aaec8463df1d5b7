//! `CompletionRouter` (nic::send) on both backends, combinational: every cycle a random beat
//! (random idle: random fields while `valid` is low) whose tag the bench's pool table gives a
//! random owner (fetch, data read, NAP buffer, the spare id 3) or none (free), and random
//! `ready` on the three outputs. Checked every cycle against the rule: exactly the owner's
//! output is valid, with the beat's tag, data, `last` and `error` unchanged; `completion.ready`
//! always high (the host is never back-pressured); `lookup_tag` is the beat's tag; `stray`
//! for a free tag or the spare owner; `overrun` when the owner's output is not ready. The
//! block has no state, so there is no reset to test (its header says so).
use nic::send::CompletionRouter;
use testbench::{port_table, run_both, Backend, BenchRng, PortTable};

fn table() -> PortTable<CompletionRouter> {
    port_table!(comb CompletionRouter; completion.valid, completion.tag, completion.data,
        completion.last, completion.error, completion.ready, lookup_tag, lookup_owner,
        lookup_allocated, fetch.valid, fetch.tag, fetch.data, fetch.last, fetch.error,
        fetch.ready, data.valid, data.tag, data.data, data.last, data.error, data.ready,
        nap_buffer.valid, nap_buffer.tag, nap_buffer.data, nap_buffer.last, nap_buffer.error,
        nap_buffer.ready, stray, overrun)
}

fn bench(b: &mut dyn Backend, seed: u64) -> [u64; 6] {
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(&n.replace('.', "$"));
    let c = [
        "completion.valid",
        "completion.tag",
        "completion.data",
        "completion.last",
        "completion.error",
    ]
    .map(p);
    let (c_ready, l_tag, l_owner, l_alloc, stray, overrun) = (
        p("completion.ready"),
        p("lookup_tag"),
        p("lookup_owner"),
        p("lookup_allocated"),
        p("stray"),
        p("overrun"),
    );
    let outs = ["fetch", "data", "nap_buffer"].map(|o| {
        ["valid", "tag", "data", "last", "error", "ready"].map(|f| p(&format!("{o}.{f}")))
    });
    // Per tag: its owner while allocated.
    let mut owners: Vec<Option<u8>> = (0..256).map(|_| None).collect();
    // Counts: to each owner 0..=2, stray, overrun, idle.
    let mut n = [0u64; 6];
    for k in 0..20_000u64 {
        let t = rng.bits(8) as usize;
        if rng.chance(0.2) {
            owners[t] = if rng.chance(0.8) {
                Some(rng.bits(2) as u8)
            } else {
                None
            };
        }
        let valid = rng.chance(0.8);
        let tag = rng.bits(8) as usize;
        let data = rng.bits(128);
        let (last, error) = (rng.chance(0.3), rng.chance(0.05));
        let readies = [rng.chance(0.95), rng.chance(0.95), rng.chance(0.95)];
        b.poke_bool(c[0], valid);
        b.poke(c[1], tag as u128);
        b.poke(c[2], data);
        b.poke_bool(c[3], last);
        b.poke_bool(c[4], error);
        for o in 0..3 {
            b.poke_bool(outs[o][5], readies[o]);
        }
        // The pool answers for the tag the router looks up.
        let looked = b.peek(l_tag) as usize;
        assert_eq!(looked, tag, "cycle {k}: lookup_tag");
        b.poke_bool(l_alloc, owners[looked].is_some());
        b.poke(l_owner, owners[looked].unwrap_or(0) as u128);
        assert!(b.peek_bool(c_ready), "cycle {k}: completion.ready low");
        let owner = owners[tag].filter(|&o| valid && o < 3);
        for o in 0..3 {
            let want = owner == Some(o as u8);
            assert_eq!(b.peek_bool(outs[o][0]), want, "cycle {k}: output {o} valid");
            if want {
                assert_eq!(b.peek(outs[o][1]) as usize, tag, "cycle {k}: tag");
                assert_eq!(b.peek(outs[o][2]), data, "cycle {k}: data");
                assert_eq!(b.peek_bool(outs[o][3]), last, "cycle {k}: last");
                assert_eq!(b.peek_bool(outs[o][4]), error, "cycle {k}: error");
                n[o] += 1;
            }
        }
        let want_stray = valid && owner.is_none();
        let want_overrun = owner.is_some_and(|o| !readies[o as usize]);
        assert_eq!(b.peek_bool(stray), want_stray, "cycle {k}: stray");
        assert_eq!(b.peek_bool(overrun), want_overrun, "cycle {k}: overrun");
        n[3] += want_stray as u64;
        n[4] += want_overrun as u64;
        n[5] += !valid as u64;
        b.tick();
    }
    assert!(
        n.iter().all(|&x| x > 100),
        "seed {seed}: a case never seen: {n:?}"
    );
    n
}

#[test]
fn completion_router_matches_rule() {
    let r = run_both("completion_router", CompletionRouter::default, table, |b| {
        bench(b, 41)
    });
    println!(
        "completion router (fetch, data, nap, stray, overrun, idle): {:?}",
        r.result
    );
}
