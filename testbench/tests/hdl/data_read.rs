//! `DataRead` (nic::send) against its model (`testbench::models::data_read`), every output
//! every cycle, on both backends, at `max_read_request` 64 and 512.
//!
//! The descriptor stream carries random checked descriptors of every kind (NAP immediate and
//! GET: nothing to read; NAP indirect: one address; PUT: 1..=6 source and 1..=4 destination
//! segments), at random byte addresses (a third of them just below a 4 KB or block boundary)
//! and lengths 1..=1200, with random idle (random words while `valid` is low). Tags come from
//! a small bench-side pool of 6 that runs dry (each held until a random time after its request
//! was taken), the reorder room is random (phases of plenty and of almost none), the host's
//! `ready` random. `reset` comes at random moments under traffic (`ResetSchedule`): the next
//! cycle must offer no request and no record, and the bench drops what was in flight.
//!
//! Checked beyond the model (a scoreboard independent of the cycle model): the requests taken
//! by the host, message after message, are exactly the cut of each segment ([`cut`]): every
//! byte of every source segment requested once, in order, none above `max_read_request` and
//! none crossing a block (so no 4 KB) boundary; each record's beats are its request's rows and
//! its tag the request's; `message_last` on the message's final request only; a tag is never
//! used while held; the pool ran dry and the room stopped requests.
use nic::send::DataRead;
use testbench::models::data_read::{beats, cut, DataReadInputs, DataReadModel, DescriptorWord};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng, PortTable};

fn table() -> PortTable<DataRead> {
    port_table!(DataRead; reset, descriptor.valid, descriptor.kind, descriptor.function,
        descriptor.qp, descriptor.dst_node, descriptor.dst_function, descriptor.dst_qp,
        descriptor.remote_event, descriptor.local_event, descriptor.key, descriptor.tag,
        descriptor.length, descriptor.sources, descriptor.destinations,
        descriptor.response_key, descriptor.get_response, descriptor.word,
        descriptor.last, descriptor.ready, tag_alloc.valid, tag_alloc.tag, tag_alloc.ready,
        tag_alloc.owner, read.valid, read.function, read.address, read.bytes, read.tag,
        read.ready, room, issued.valid, issued.tag, issued.lane, issued.bytes, issued.beats,
        issued.message_last)
}

/// A random address: anywhere, or a few bytes below a block or page boundary.
fn address(rng: &mut BenchRng, mrrs: u64) -> u64 {
    let a = rng.bits(47) as u64;
    match rng.range(0, 2) {
        0 => a,
        1 => (a | (mrrs - 1)) - rng.range(0, 20),
        _ => (a | 4095) - rng.range(0, 20),
    }
}

/// One descriptor: its body words and the segments (address, bytes) the data read must read.
struct Message {
    words: Vec<DescriptorWord>,
    segments: Vec<(u64, u64)>,
}

fn message(rng: &mut BenchRng, mrrs: u64) -> Message {
    let function = rng.bits(3) as u8;
    let length = |rng: &mut BenchRng| {
        if rng.chance(0.3) {
            rng.range(1, 20)
        } else {
            rng.range(1, 1200)
        }
    };
    let kind = rng.range(0, 3) as u8;
    let (body, segments, total, sources): (Vec<u64>, Vec<(u64, u64)>, u64, u8) = match kind {
        0 => {
            let n = rng.range(1, 256);
            let words = (0..n.div_ceil(8)).map(|_| rng.bits(64) as u64).collect();
            (words, vec![], n, 0)
        }
        1 => {
            let (a, n) = (address(rng, mrrs), length(rng).min(2048));
            (vec![a], vec![(a, n)], n, 0)
        }
        _ => {
            let s = rng.range(1, 6) as usize;
            let d = rng.range(1, 4) as usize;
            let segs: Vec<(u64, u64)> = (0..s).map(|_| (address(rng, mrrs), length(rng))).collect();
            let total: u64 = segs.iter().map(|x| x.1).sum();
            let mut words = vec![];
            for &(a, n) in &segs {
                words.extend([a, n]);
            }
            for _ in 0..d {
                words.extend([address(rng, mrrs), rng.range(1, 5000)]);
            }
            let read = if kind == 2 { segs } else { vec![] };
            (words, read, total, s as u8)
        }
    };
    let last = body.len() - 1;
    Message {
        words: body
            .iter()
            .enumerate()
            .map(|(k, &w)| DescriptorWord {
                kind,
                function,
                length: total as u32,
                sources,
                word: w,
                last: k == last,
            })
            .collect(),
        segments,
    }
}

/// What a run counted.
#[derive(Debug, Default, PartialEq)]
struct Report {
    messages: u64,
    requests: u64,
    dry_cycles: u64,
    no_room_cycles: u64,
    resets: u64,
}

fn bench(b: &mut dyn Backend, seed: u64, mrrs: u64) -> Report {
    let what = format!("data_read mrrs {mrrs} seed {seed}");
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(&n.replace('.', "$"));
    let reset = p("reset");
    let d = [
        "descriptor.valid",
        "descriptor.kind",
        "descriptor.function",
        "descriptor.qp",
        "descriptor.dst_node",
        "descriptor.dst_function",
        "descriptor.dst_qp",
        "descriptor.remote_event",
        "descriptor.local_event",
        "descriptor.key",
        "descriptor.tag",
        "descriptor.length",
        "descriptor.sources",
        "descriptor.destinations",
        "descriptor.word",
        "descriptor.last",
    ]
    .map(p);
    let d_ready = p("descriptor.ready");
    let (t_valid, t_tag, t_ready, t_owner) = (
        p("tag_alloc.valid"),
        p("tag_alloc.tag"),
        p("tag_alloc.ready"),
        p("tag_alloc.owner"),
    );
    let (r_valid, r_function, r_address, r_bytes, r_tag, r_ready) = (
        p("read.valid"),
        p("read.function"),
        p("read.address"),
        p("read.bytes"),
        p("read.tag"),
        p("read.ready"),
    );
    let room_port = p("room");
    let (i_valid, i_tag, i_lane, i_bytes, i_beats, i_last) = (
        p("issued.valid"),
        p("issued.tag"),
        p("issued.lane"),
        p("issued.bytes"),
        p("issued.beats"),
        p("issued.message_last"),
    );
    let mut m = DataReadModel::new(mrrs);
    let mut sched = ResetSchedule::new(&mut rng, 700);
    let mut r = Report::default();
    // The stream: the current message's words, the next word's index.
    let mut queue: std::collections::VecDeque<Message> = Default::default();
    let mut word = 0usize;
    // Expected requests (address, bytes, message last) of messages whose words were taken.
    let mut expected: std::collections::VecDeque<(u64, u64, bool)> = Default::default();
    // Tags held: (tag, taken by the host, free at cycle).
    const POOL: u8 = 6;
    let mut held: Vec<(u8, bool, u64)> = vec![];
    let mut room = 16u64;
    let cycles = 6000u64;
    for k in 0..cycles + 3000 {
        let draining = k >= cycles;
        while queue.len() < 2 {
            queue.push_back(message(&mut rng, mrrs));
        }
        let mut i = DataReadInputs {
            reset: sched.next_if(&mut rng, !draining),
            ..Default::default()
        };
        if sched.released() {
            assert!(
                !b.peek_bool(r_valid),
                "{what} cycle {k}: request after reset"
            );
        }
        // Draining: the message begun is finished, no new one starts.
        let offer = (!draining || word > 0) && rng.chance(0.7);
        let cur = &queue[0].words[word];
        if offer {
            i.descriptor = Some(*cur);
        }
        let free = (0..POOL).find(|t| !held.iter().any(|h| h.0 == *t));
        i.tag = free.filter(|_| rng.chance(0.9));
        i.read_ready = rng.chance(0.7);
        if k % 300 == 0 {
            room = if rng.chance(0.5) || draining {
                300
            } else {
                rng.range(0, 12)
            };
        }
        i.room = room;
        // Drive.
        b.poke_bool(reset, i.reset);
        let w = i.descriptor.unwrap_or(DescriptorWord {
            kind: rng.bits(3) as u8,
            function: rng.bits(3) as u8,
            length: rng.bits(32) as u32,
            sources: rng.bits(5) as u8,
            word: rng.bits(64) as u64,
            last: rng.chance(0.5),
        });
        b.poke_bool(d[0], i.descriptor.is_some());
        b.poke(d[1], w.kind as u128);
        b.poke(d[2], w.function as u128);
        for &q in &d[3..11] {
            let wd = b.width(q);
            b.poke(q, rng.bits(wd));
        }
        b.poke(d[11], w.length as u128);
        b.poke(d[12], w.sources as u128);
        b.poke(d[13], rng.bits(5));
        b.poke(d[14], w.word as u128);
        b.poke_bool(d[15], w.last);
        b.poke_bool(t_valid, i.tag.is_some());
        b.poke(t_tag, i.tag.unwrap_or(rng.bits(8) as u8) as u128);
        b.poke_bool(r_ready, i.read_ready);
        b.poke(room_port, i.room as u128);
        // Compare.
        let want = m.outputs(&i);
        let at = format!("{what} cycle {k}");
        if i.descriptor.is_some() {
            assert_eq!(
                b.peek_bool(d_ready),
                want.descriptor_ready,
                "{at}: descriptor.ready"
            );
        }
        assert_eq!(
            b.peek_bool(t_ready),
            want.tag_ready,
            "{at}: tag_alloc.ready"
        );
        assert_eq!(b.peek(t_owner), 1, "{at}: owner");
        let got_issue = b.peek_bool(i_valid).then(|| {
            (
                b.peek(i_tag) as u8,
                b.peek(i_lane) as u8,
                b.peek(i_bytes) as u64,
                b.peek(i_beats) as u64,
                b.peek_bool(i_last),
            )
        });
        let want_issue = want
            .issued
            .map(|x| (x.tag, x.lane, x.bytes, x.beats, x.message_last));
        assert_eq!(got_issue, want_issue, "{at}: issued");
        let got_read = b.peek_bool(r_valid).then(|| {
            (
                b.peek(r_function) as u8,
                b.peek(r_address) as u64,
                b.peek(r_bytes) as u64,
                b.peek(r_tag) as u8,
            )
        });
        let want_read = want.read.map(|x| (x.function, x.address, x.bytes, x.tag));
        assert_eq!(got_read, want_read, "{at}: read");
        if !i.reset && m.busy() {
            let slot_free = want.read.is_none() || i.read_ready;
            if i.tag.is_none() && slot_free {
                r.dry_cycles += 1;
            }
            if i.tag.is_some() && slot_free && want.issued.is_none() {
                r.no_room_cycles += 1;
            }
        }
        // Scoreboard: the request the host takes.
        if let (Some(req), true) = (want.read, i.read_ready && !i.reset) {
            let (a, n, _) = expected
                .pop_front()
                .unwrap_or_else(|| panic!("{at}: unexpected request {req:?}"));
            assert_eq!((req.address, req.bytes), (a, n), "{at}: request");
            assert!(
                n <= mrrs && a / mrrs == (a + n - 1) / mrrs,
                "{at}: crosses a block"
            );
            assert_eq!(a / 4096, (a + n - 1) / 4096, "{at}: crosses 4 KB");
            let h = held.iter_mut().find(|h| h.0 == req.tag).unwrap();
            h.1 = true;
            h.2 = k + rng.range(1, 30);
            r.requests += 1;
        }
        if let Some(iss) = want.issued {
            assert!(
                !held.iter().any(|h| h.0 == iss.tag),
                "{at}: tag {} used while held",
                iss.tag
            );
            let &(a, n, last) = expected
                .get(want.read.is_some_and(|_| !i.read_ready) as usize)
                .unwrap_or_else(|| panic!("{at}: a record with nothing expected"));
            assert_eq!(iss.beats, beats(a, n), "{at}: record beats");
            assert_eq!(iss.message_last, last, "{at}: message_last");
            held.push((iss.tag, false, u64::MAX));
        }
        b.tick();
        m.edge(&i);
        if i.reset {
            r.resets += 1;
            expected.clear();
            held.clear();
            queue.pop_front();
            word = 0;
            continue;
        }
        held.retain(|h| !(h.1 && h.2 <= k));
        if i.descriptor.is_some() && want.descriptor_ready {
            if word == 0 {
                for &(a, n) in &queue[0].segments {
                    let c = cut(a, n, mrrs);
                    let nreq = c.len();
                    let last_seg = (a, n) == *queue[0].segments.last().unwrap();
                    for (j, (ra, rn)) in c.into_iter().enumerate() {
                        expected.push_back((ra, rn, last_seg && j + 1 == nreq));
                    }
                }
            }
            word += 1;
            if word == queue[0].words.len() {
                queue.pop_front();
                word = 0;
                r.messages += 1;
            }
        }
    }
    sched.assert_pulses(&what, 5);
    assert!(
        expected.is_empty(),
        "{what}: requests never issued: {expected:?}"
    );
    assert!(r.dry_cycles > 20, "{what}: the tags never ran dry: {r:?}");
    assert!(
        r.no_room_cycles > 20,
        "{what}: the room never stopped a request: {r:?}"
    );
    assert!(r.messages > 60, "{what}: too few messages: {r:?}");
    r
}

#[test]
fn data_read_matches_model() {
    for (mrrs, seed) in [(64, 31), (512, 32)] {
        let r = run_both(
            &format!("data_read_{mrrs}"),
            || DataRead::new(mrrs as usize),
            table,
            |b| bench(b, seed, mrrs),
        );
        println!("data read {mrrs}: {:?}", r.result);
    }
}
