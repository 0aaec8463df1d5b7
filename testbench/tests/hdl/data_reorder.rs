//! `DataReorder` (nic::send, with its `PayloadPacker`) on both backends (`run_both` compares
//! every output every cycle between them), against a transaction-level scoreboard.
//!
//! The bench plays the data read and the host: random messages of 1..=4 segments at random
//! byte addresses, 1..=700 bytes each, cut into requests as `DataRead` cuts them
//! (`models::data_read::cut`, `max_read_request` 128), each issued with a tag of a bench pool
//! of 16 only when `room` covers its beats (the data read's rule). The host answers each
//! request after a random latency of 5..=60 cycles, one beat at a time, the beats of
//! different tags interleaved at random (a finer split than the host's 64-byte completions;
//! in order within a tag) with random gaps, random idle (random fields while `valid` is low);
//! 3 % of the requests fail (one `error` beat).
//! `payload.ready` is random. `reset` comes at random moments (`ResetSchedule`): the next
//! cycle `room` must be the whole ring and nothing offered; the bench forgets what was in
//! flight.
//!
//! Checked: every payload word of a message, in order: its bytes count (8 but the last), the
//! bytes equal to host memory from the message's first byte on (byte 0 of the first word the
//! first byte: misalignment removed), the bytes above `bytes` zero, `last` on the message's
//! last word only; `error` on the last word exactly when a request of the message failed (its
//! bytes then unchecked); every tag freed once, after its request's completions; the ring full
//! again (`room` = 256) and every tag back at the end; `completion.ready` always high.
use nic::send::DataReorder;
use std::collections::VecDeque;
use testbench::models::data_read::{beats, cut};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng, PortTable};

type Dut = DataReorder<8>;

fn table() -> PortTable<Dut> {
    port_table!(Dut; reset, issue.valid, issue.tag, issue.lane, issue.bytes, issue.beats,
        issue.message_last, completion.valid, completion.tag, completion.data, completion.last,
        completion.error, completion.ready, tag_free.valid, tag_free.tag, room, payload.valid,
        payload.word, payload.bytes, payload.last, payload.error, payload.ready)
}

/// Host memory: a byte per address, from a hash.
fn host_byte(a: u64) -> u8 {
    let x = a.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (x >> 29) as u8
}

/// A request in flight at the host.
struct Pending {
    tag: u8,
    /// Beats still to send: (data, last).
    beats: VecDeque<(u128, bool)>,
    failed: bool,
    /// Cycle the next beat may go.
    due: u64,
}

#[derive(Debug, Default, PartialEq)]
struct Report {
    messages: u64,
    failed_messages: u64,
    words: u64,
    requests: u64,
    resets: u64,
}

fn bench(b: &mut dyn Backend, seed: u64) -> Report {
    const MRRS: u64 = 128;
    const TAGS: u8 = 16;
    let what = format!("data_reorder seed {seed}");
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(&n.replace('.', "$"));
    let reset = p("reset");
    let iss = [
        "issue.valid",
        "issue.tag",
        "issue.lane",
        "issue.bytes",
        "issue.beats",
        "issue.message_last",
    ]
    .map(p);
    let cpl = [
        "completion.valid",
        "completion.tag",
        "completion.data",
        "completion.last",
        "completion.error",
    ]
    .map(p);
    let c_ready = p("completion.ready");
    let (f_valid, f_tag, room) = (p("tag_free.valid"), p("tag_free.tag"), p("room"));
    let out = [
        "payload.valid",
        "payload.word",
        "payload.bytes",
        "payload.last",
        "payload.error",
        "payload.ready",
    ]
    .map(p);
    let mut sched = ResetSchedule::new(&mut rng, 1500);
    let mut r = Report::default();
    // Messages issued: (expected bytes, failed) in order; the output position in the first.
    let mut messages: VecDeque<(Vec<u8>, bool)> = VecDeque::new();
    let mut position = 0usize;
    // Requests to issue: (address, bytes, message last), of the message being issued.
    let mut to_issue: VecDeque<(u64, u64, bool)> = VecDeque::new();
    let mut pending: Vec<Pending> = vec![];
    let mut held = [false; TAGS as usize];
    // Per tag: its request's last beat was sent (a free before it is an error).
    let mut done = [false; TAGS as usize];
    let cycles = 12_000u64;
    for k in 0..cycles + 4000 {
        let draining = k >= cycles;
        let at = format!("{what} cycle {k}");
        let rst = sched.next_if(&mut rng, !draining);
        if sched.released() {
            assert_eq!(b.peek(room), 256, "{at}: room after reset");
            assert!(!b.peek_bool(out[0]), "{at}: payload after reset");
        }
        // A new message when the last is issued.
        if to_issue.is_empty() && !draining {
            let n = rng.range(1, 4);
            let mut bytes = vec![];
            for s in 0..n {
                let a = rng.bits(40) as u64
                    | if rng.chance(0.2) {
                        0xfff - rng.range(0, 40)
                    } else {
                        0
                    };
                let len = if rng.chance(0.3) {
                    rng.range(1, 20)
                } else {
                    rng.range(1, 700)
                };
                bytes.extend((a..a + len).map(host_byte));
                let c = cut(a, len, MRRS);
                let cn = c.len();
                for (j, (ra, rn)) in c.into_iter().enumerate() {
                    to_issue.push_back((ra, rn, s + 1 == n && j + 1 == cn));
                }
            }
            messages.push_back((bytes, false));
        }
        // Issue: a free tag and room (read before the edge, as DataRead does).
        let room_now = b.peek(room) as u64;
        let tag = (0..TAGS).find(|&t| !held[t as usize]);
        let mut issue = None;
        if let (Some(&(a, n, last)), Some(t)) = (to_issue.front(), tag) {
            if room_now >= beats(a, n) && rng.chance(0.6) && !rst {
                issue = Some((t, a, n, last));
            }
        }
        b.poke_bool(reset, rst);
        b.poke_bool(iss[0], issue.is_some());
        let (t, a, n, last) = issue.unwrap_or((
            rng.bits(4) as u8,
            rng.bits(40) as u64,
            rng.range(1, 128),
            rng.chance(0.5),
        ));
        b.poke(iss[1], t as u128);
        b.poke(iss[2], (a % 16) as u128);
        b.poke(iss[3], n as u128);
        b.poke(iss[4], beats(a, n) as u128);
        b.poke_bool(iss[5], last);
        // A completion beat: a random due request's next beat.
        let ready: Vec<usize> = (0..pending.len())
            .filter(|&i| pending[i].due <= k)
            .collect();
        let pick = (!ready.is_empty() && rng.chance(0.8) && !rst)
            .then(|| ready[rng.range(0, ready.len() as u64 - 1) as usize]);
        let beat = pick.map(|i| {
            let pd = &mut pending[i];
            let (data, l) = pd.beats.pop_front().unwrap();
            (pd.tag, data, l, pd.failed)
        });
        b.poke_bool(cpl[0], beat.is_some());
        let (bt, bd, bl, be) = beat.unwrap_or((
            rng.bits(4) as u8,
            rng.bits(128),
            rng.chance(0.5),
            rng.chance(0.5),
        ));
        b.poke(cpl[1], bt as u128);
        b.poke(cpl[2], bd);
        b.poke_bool(cpl[3], bl);
        b.poke_bool(cpl[4], be);
        let take = rng.chance(if k % 2000 < 300 { 0.2 } else { 0.85 });
        b.poke_bool(out[5], take);
        assert!(b.peek_bool(c_ready), "{at}: completion.ready low");
        // The tag freed.
        if b.peek_bool(f_valid) && !rst {
            let ft = b.peek(f_tag) as usize;
            assert!(
                ft < TAGS as usize && held[ft] && done[ft],
                "{at}: free of tag {ft} not done"
            );
            held[ft] = false;
        }
        // The word taken.
        if b.peek_bool(out[0]) && take && !rst {
            let (word, nb, wl, we) = (
                b.peek(out[1]) as u64,
                b.peek(out[2]) as usize,
                b.peek_bool(out[3]),
                b.peek_bool(out[4]),
            );
            let (bytes, failed) = messages
                .front()
                .unwrap_or_else(|| panic!("{at}: a word with no message"));
            let left = bytes.len() - position;
            assert_eq!(nb, left.min(8), "{at}: bytes of the word at {position}");
            assert_eq!(wl, left <= 8, "{at}: last");
            for i in nb..8 {
                assert_eq!((word >> (8 * i)) as u8, 0, "{at}: padding byte {i}");
            }
            if wl {
                assert_eq!(we, *failed, "{at}: error on the last word");
            }
            if !failed {
                for i in 0..nb {
                    assert_eq!(
                        (word >> (8 * i)) as u8,
                        bytes[position + i],
                        "{at}: byte {}",
                        position + i
                    );
                }
            }
            position += nb;
            r.words += 1;
            if wl {
                r.messages += 1;
                r.failed_messages += *failed as u64;
                messages.pop_front();
                position = 0;
            }
        }
        b.tick();
        if rst {
            r.resets += 1;
            messages.clear();
            position = 0;
            to_issue.clear();
            pending.clear();
            held = [false; TAGS as usize];
            continue;
        }
        if let Some(i) = pick {
            if pending[i].beats.is_empty() {
                done[pending[i].tag as usize] = true;
                pending.swap_remove(i);
            } else if rng.chance(0.1) {
                pending[i].due = k + rng.range(1, 6);
            }
        }
        if let Some((t, a, n, _)) = issue {
            to_issue.pop_front();
            held[t as usize] = true;
            done[t as usize] = false;
            r.requests += 1;
            let failed = rng.chance(0.03);
            if failed {
                messages.back_mut().unwrap().1 = true;
            }
            let base = a & !15;
            let beats: VecDeque<(u128, bool)> = if failed {
                [(0u128, true)].into()
            } else {
                let nb = beats(a, n);
                (0..nb)
                    .map(|j| {
                        let row = (0..16).fold(0u128, |acc, i| {
                            acc | (host_byte(base + 16 * j + i) as u128) << (8 * i)
                        });
                        (row, j + 1 == nb)
                    })
                    .collect()
            };
            pending.push(Pending {
                tag: t,
                beats,
                failed,
                due: k + rng.range(5, 60),
            });
        }
    }
    sched.assert_pulses(&what, 5);
    assert!(
        messages.is_empty() && pending.is_empty(),
        "{what}: not drained"
    );
    assert!(held.iter().all(|h| !h), "{what}: tags not freed: {held:?}");
    assert_eq!(b.peek(room), 256, "{what}: the ring not free at the end");
    assert!(r.failed_messages > 3 && r.messages > 60, "{what}: {r:?}");
    r
}

#[test]
fn data_reorder_matches_scoreboard() {
    let r = run_both(
        "data_reorder",
        || DataReorder::<8>::new(32),
        table,
        |b| bench(b, 51),
    );
    println!("data reorder: {:?}", r.result);
}
