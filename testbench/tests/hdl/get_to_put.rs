//! `GetToPut` (nic::receive) on both backends against the GET-to-PUT model
//! (`testbench::models::get_to_put`, built from the codecs of `hdl/src/formats/nic.rs`).
//!
//! Two devices: 8 slots of 32 words (`GetToPut<3, 5, 8, 4>`, the emitted top's) and 2 slots
//! (`GetToPut<1, 5, 6, 2>`, the queue full most of the time under back pressure).
//!
//! **Random run** (seed per device): GET packets from requesters with random fields, 1..=15
//! segments in all (totals up to 2^32 - 1), and about one in three broken (segment counts 0 or
//! 17, reserved bits in word 2, an address or a bytes word, a zero-byte segment, totals
//! differing, a word missing or one too many, `bytes` not 8 x the words, a body longer than a
//! slot, totals above 32 bits); words offered with random idle (random fields while `valid`
//! is low) and gaps, held until taken; `responses.ready` and `errors.ready` random in phases
//! (long stalls included, so the queue fills); `reset` at random moments (the source drops
//! its packet in progress, the bench forgets what the block forgets). Checked every cycle:
//! - `gets.ready` is high exactly when fewer than `2^SB` good GETs are stored and not yet
//!   emitted in full (and reset is low);
//! - `dropped` pulses exactly on the last word of a GET the model rejects;
//! - every response word taken is the model's next (good GETs in arrival order): kind PUT,
//!   function, QP, destination, `remote_event`, `local_event` 0, key, tag 0, length, counts,
//!   `response_key` 0, `get_response` 1, the word, `last` on the body's last;
//! - `responses` and `errors` hold their offer until taken;
//! - every error event offered is the one of the next dropped GET that found the slot empty
//!   (kind Error, status `BadGet`, op GET, target function and QP, peer, length); `event_lost`
//!   pulses exactly when a GET is dropped while the slot is full;
//! - after reset nothing is offered.
//!
//! At the end the queue drains: every good GET's response was taken.
//!
//! **Rate** (no reset, every output ready, a GET always offered): GETs of 2 segments (5 words)
//! back to back; response words and GETs per 1,000 cycles; the latency from a GET's last word
//! taken to its first response word offered with the queue empty.
use hdl::formats::nic::{
    DescriptorKind, EventKind, EventStatus, DESC_DESTINATIONS, DESC_RESPONSE_KEY, DESC_SOURCES,
};
use hdl::formats::PacketKind;
use nic::receive::get_to_put::GetToPut;
use std::collections::VecDeque;
use testbench::models::get_to_put::{respond, GetPacket, Response};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng, PortId};

macro_rules! table_for {
    ($t:ty) => {
        port_table!($t; reset,
            gets.valid, gets.kind, gets.src_node, gets.src_function, gets.src_qp,
            gets.dst_function, gets.dst_qp, gets.delay, gets.address, gets.nap_offset,
            gets.nap_length, gets.bytes, gets.event, gets.message_last, gets.get_response,
            gets.word, gets.last, gets.ready,
            responses.valid, responses.kind, responses.function, responses.qp,
            responses.dst_node, responses.dst_function, responses.dst_qp,
            responses.remote_event, responses.local_event, responses.key, responses.tag,
            responses.length, responses.sources, responses.destinations,
            responses.response_key, responses.get_response, responses.word, responses.last,
            responses.ready,
            errors.valid, errors.function, errors.qp, errors.receive_ring, errors.kind,
            errors.status, errors.op, errors.peer_node, errors.peer_function, errors.peer_qp,
            errors.length, errors.info, errors.ready,
            dropped, event_lost)
    };
}

type Big = GetToPut<3, 5, 8, 4>;
type Small = GetToPut<1, 5, 6, 2>;

/// Input fields after `valid` (`word`, `last` apart), in port order.
const GET_FIELDS: [&str; 14] = [
    "kind",
    "src_node",
    "src_function",
    "src_qp",
    "dst_function",
    "dst_qp",
    "delay",
    "address",
    "nap_offset",
    "nap_length",
    "bytes",
    "event",
    "message_last",
    "get_response",
];
/// Response fields after `valid` (`ready` apart), in port order.
const RESPONSE_FIELDS: [&str; 17] = [
    "kind",
    "function",
    "qp",
    "dst_node",
    "dst_function",
    "dst_qp",
    "remote_event",
    "local_event",
    "key",
    "tag",
    "length",
    "sources",
    "destinations",
    "response_key",
    "get_response",
    "word",
    "last",
];
const ERROR_FIELDS: [&str; 11] = [
    "function",
    "qp",
    "receive_ring",
    "kind",
    "status",
    "op",
    "peer_node",
    "peer_function",
    "peer_qp",
    "length",
    "info",
];

/// `total` bytes cut into `n` segments of at least one byte each.
fn split(rng: &mut BenchRng, total: u64, n: usize) -> Vec<u64> {
    let mut cuts: Vec<u64> = (0..n - 1).map(|_| rng.range(1, total - 1)).collect();
    cuts.sort();
    cuts.dedup();
    while cuts.len() < n - 1 {
        // Collisions: fall back to the smallest parts.
        cuts = (1..n as u64).collect();
    }
    let mut out = vec![];
    let mut prev = 0;
    for c in cuts.into_iter().chain([total]) {
        out.push(c - prev);
        prev = c;
    }
    out
}

/// A GET body of `s` sources and `d` destinations moving `total` bytes.
fn body(rng: &mut BenchRng, s: usize, d: usize, total: u64, key: u32) -> Vec<u64> {
    let w2 = DESC_RESPONSE_KEY.set(
        DESC_DESTINATIONS.set(DESC_SOURCES.set(0, s as u128), d as u128),
        key as u128,
    ) as u64;
    let mut words = vec![w2];
    for bytes in split(rng, total, s).into_iter().chain(split(rng, total, d)) {
        words.push(rng.bits(48) as u64);
        words.push(bytes);
    }
    words
}

/// A random GET packet; about one in three broken. Returns it and whether it was damaged.
fn random_get(rng: &mut BenchRng) -> (GetPacket, bool) {
    let s = rng.range(1, 7) as usize;
    let d = rng.range(1, 15 - s as u64) as usize;
    let total = match rng.range(0, 9) {
        0 => u32::MAX as u64 - rng.range(0, 3),
        1..=3 => rng.range((s.max(d)) as u64, 64),
        _ => rng.range((s.max(d)) as u64, 1 << 20),
    };
    let key = rng.bits(32) as u32;
    let mut words = body(rng, s, d, total, key);
    let damaged = rng.chance(0.33);
    if damaged {
        let n = words.len();
        let segment_word = |rng: &mut BenchRng, bytes: bool| {
            let k = rng.range(0, (s + d - 1) as u64) as usize;
            1 + 2 * k + bytes as usize
        };
        match rng.range(0, 10) {
            0 => words[0] = DESC_SOURCES.set(words[0] as u128, 0) as u64,
            1 => words[0] = DESC_DESTINATIONS.set(words[0] as u128, 17) as u64,
            2 => words[0] |= 1 << rng.range(16, 31),
            3 => {
                let i = segment_word(rng, false);
                words[i] |= 1 << rng.range(48, 63);
            }
            4 => {
                let i = segment_word(rng, true);
                words[i] |= 1 << rng.range(32, 63);
            }
            5 => {
                let i = segment_word(rng, true);
                words[i] = 0;
            }
            6 => words[n - 1] += 1,
            7 => {
                if rng.chance(0.5) {
                    words.pop();
                } else {
                    words.push(rng.bits(20) as u64 + 1);
                }
            }
            8 => {
                // A body longer than a slot (33..=41 words), otherwise good.
                let s = rng.range(8, 12) as usize;
                let d = rng.range(16 - s as u64, 8) as usize;
                let (total, key) = (rng.range(20, 5000), rng.bits(32) as u32);
                words = body(rng, s, d, total, key);
            }
            _ => {
                // Totals equal but above 32 bits.
                let x = rng.range(1, 100);
                let w2 = DESC_DESTINATIONS.set(DESC_SOURCES.set(0, 2), 2) as u64;
                let a = rng.bits(48) as u64;
                words = vec![
                    w2,
                    a,
                    u32::MAX as u64,
                    a,
                    x,
                    a,
                    1 << 31,
                    a,
                    (1 << 31) + x - 1,
                ];
            }
        }
    }
    let mut bytes = 8 * words.len() as u16;
    if damaged && rng.chance(0.1) {
        bytes -= rng.range(1, 7) as u16;
    }
    let p = GetPacket {
        src_node: rng.bits(16) as u16,
        src_function: rng.bits(3) as u8,
        src_qp: rng.bits(4) as u8,
        dst_function: rng.bits(3) as u8,
        dst_qp: rng.bits(4) as u8,
        event: rng.chance(0.5),
        bytes,
        words,
    };
    (p, damaged)
}

struct Ports {
    reset: PortId,
    g_valid: PortId,
    g_fields: Vec<PortId>,
    g_word: PortId,
    g_last: PortId,
    g_ready: PortId,
    r_valid: PortId,
    r_fields: Vec<PortId>,
    r_ready: PortId,
    e_valid: PortId,
    e_fields: Vec<PortId>,
    e_ready: PortId,
    dropped: PortId,
    event_lost: PortId,
}

impl Ports {
    fn new(b: &dyn Backend) -> Self {
        let p = |n: &str| b.port(n);
        let many = |prefix: &str, names: &[&str]| {
            names
                .iter()
                .map(|f| b.port(&format!("{prefix}${f}")))
                .collect::<Vec<_>>()
        };
        Ports {
            reset: p("reset"),
            g_valid: p("gets$valid"),
            g_fields: many("gets", &GET_FIELDS),
            g_word: p("gets$word"),
            g_last: p("gets$last"),
            g_ready: p("gets$ready"),
            r_valid: p("responses$valid"),
            r_fields: many("responses", &RESPONSE_FIELDS),
            r_ready: p("responses$ready"),
            e_valid: p("errors$valid"),
            e_fields: many("errors", &ERROR_FIELDS),
            e_ready: p("errors$ready"),
            dropped: p("dropped"),
            event_lost: p("event_lost"),
        }
    }
}

/// The response fields as the ports show them for word `i` of `r`.
fn response_values(r: &Response, i: usize) -> Vec<u128> {
    vec![
        DescriptorKind::Put.code() as u128,
        r.function as u128,
        r.qp as u128,
        r.dst_node as u128,
        r.dst_function as u128,
        r.dst_qp as u128,
        r.remote_event as u128,
        0,
        r.key as u128,
        0,
        r.length as u128,
        r.sources as u128,
        r.destinations as u128,
        0,
        1,
        r.words[i] as u128,
        (i + 1 == r.words.len()) as u128,
    ]
}

/// The `BadGet` event of a dropped GET, as the ports show it.
fn error_values(p: &GetPacket) -> Vec<u128> {
    vec![
        p.dst_function as u128,
        p.dst_qp as u128,
        1,
        EventKind::Error.code() as u128,
        EventStatus::BadGet.code() as u128,
        PacketKind::Get.code() as u128,
        p.src_node as u128,
        p.src_function as u128,
        p.src_qp as u128,
        p.bytes as u128,
        0,
    ]
}

#[derive(Debug, Default, PartialEq, Clone, Copy)]
struct Counts {
    gets: u64,
    good: u64,
    dropped: u64,
    responses: u64,
    response_words: u64,
    events: u64,
    events_lost: u64,
    full_cycles: u64,
    resets: u64,
}

fn peek_all(b: &mut dyn Backend, ports: &[PortId]) -> Vec<u128> {
    ports.iter().map(|&p| b.peek(p)).collect()
}

/// The random run on a device of `2^slot_bits` slots of 32 words.
fn random_run(b: &mut dyn Backend, seed: u64, slot_bits: u32, cycles: u64) -> Counts {
    let what = format!("get_to_put seed {seed}");
    let depth = 1usize << slot_bits;
    let mut rng = BenchRng::new(seed);
    let ports = Ports::new(b);
    let mut resets = ResetSchedule::new(&mut rng, 1500);
    let mut counts = Counts::default();
    // The packet being offered: packet, next word, offering (held).
    let mut current: Option<(GetPacket, usize, bool)> = None;
    // Good GETs stored or being emitted, in order, with the next word to take.
    let mut stored: VecDeque<(Response, usize)> = VecDeque::new();
    // The error event slot's content.
    let mut slot: Option<GetPacket> = None;
    let mut prev_response: Option<Vec<u128>> = None;
    let mut prev_error: Option<Vec<u128>> = None;
    let (mut out_phase, mut ev_phase) = (0.9, 0.9);
    let mut cycle = 0u64;
    let mut draining = false;
    while cycle < cycles || (draining && (!stored.is_empty() || slot.is_some())) {
        if cycle == cycles {
            draining = true;
        }
        if cycle.is_multiple_of(300) {
            out_phase = [0.05, 0.5, 0.9, 1.0][rng.range(0, 3) as usize];
            ev_phase = [0.02, 0.5, 1.0][rng.range(0, 2) as usize];
        }
        if draining {
            out_phase = 1.0;
            ev_phase = 1.0;
        }
        let reset = !draining && resets.next(&mut rng);
        b.poke_bool(ports.reset, reset);
        if resets.released() {
            counts.resets += 1;
        }
        // The source.
        if current.is_none() && !draining && rng.chance(0.3) {
            current = Some((random_get(&mut rng).0, 0, false));
        }
        let mut offered = false;
        if let Some((p, next, offering)) = &mut current {
            if !reset && (*offering || rng.chance(0.8)) {
                *offering = true;
                offered = true;
                let values = [
                    PacketKind::Get.code() as u128,
                    p.src_node as u128,
                    p.src_function as u128,
                    p.src_qp as u128,
                    p.dst_function as u128,
                    p.dst_qp as u128,
                    rng.bits(16),
                    0,
                    0,
                    0,
                    p.bytes as u128,
                    p.event as u128,
                    1,
                    0,
                ];
                for (&port, v) in ports.g_fields.iter().zip(values) {
                    b.poke(port, v);
                }
                b.poke(ports.g_word, p.words[*next] as u128);
                b.poke_bool(ports.g_last, *next + 1 == p.words.len());
            }
        }
        if !offered {
            for &port in &ports.g_fields {
                let w = b.width(port);
                b.poke(port, rng.bits(w));
            }
            b.poke(ports.g_word, rng.bits(64));
            b.poke_bool(ports.g_last, rng.chance(0.5));
        }
        b.poke_bool(ports.g_valid, offered);
        let r_ready = rng.chance(out_phase);
        let e_ready = rng.chance(ev_phase);
        b.poke_bool(ports.r_ready, r_ready);
        b.poke_bool(ports.e_ready, e_ready);
        // Sample.
        let g_ready = b.peek_bool(ports.g_ready);
        let r_valid = b.peek_bool(ports.r_valid);
        let e_valid = b.peek_bool(ports.e_valid);
        let dropped = b.peek_bool(ports.dropped);
        let lost = b.peek_bool(ports.event_lost);
        let response = r_valid.then(|| peek_all(b, &ports.r_fields));
        let error = e_valid.then(|| peek_all(b, &ports.e_fields));
        let at = format!("{what} cycle {cycle}");
        // Input ready: exactly when a slot is free.
        let free = stored.len() < depth;
        assert_eq!(
            g_ready,
            free && !reset,
            "{at}: gets.ready ({} stored)",
            stored.len()
        );
        if !free {
            counts.full_cycles += 1;
        }
        if reset {
            // Handshakes and hold rules are void in a reset cycle.
            prev_response = None;
            prev_error = None;
            current = None;
            stored.clear();
            slot = None;
            b.tick();
            cycle += 1;
            continue;
        }
        if let Some(prev) = prev_response.take() {
            assert_eq!(
                response.as_ref(),
                Some(&prev),
                "{at}: a response word not taken changed"
            );
        }
        if let Some(prev) = prev_error.take() {
            assert_eq!(
                error.as_ref(),
                Some(&prev),
                "{at}: an error event not taken changed"
            );
        }
        if resets.released() {
            assert!(!r_valid && !e_valid, "{at}: something offered after reset");
        }
        // The error slot: what it held at the start of this cycle.
        let slot_was_full = slot.is_some();
        if let Some(got) = &error {
            let p = slot
                .as_ref()
                .unwrap_or_else(|| panic!("{at}: an error event with none posted"));
            assert_eq!(got, &error_values(p), "{at}: error event");
            if e_ready {
                counts.events += 1;
                slot = None;
            } else {
                prev_error = Some(got.clone());
            }
        }
        // The input handshake.
        let mut want_dropped = false;
        let mut want_lost = false;
        if offered && g_ready {
            let (p, next, offering) = current.as_mut().unwrap();
            *offering = false;
            *next += 1;
            if *next == p.words.len() {
                let p = current.take().unwrap().0;
                counts.gets += 1;
                match respond(&p, 32) {
                    Some(r) => {
                        counts.good += 1;
                        stored.push_back((r, 0));
                    }
                    None => {
                        want_dropped = true;
                        counts.dropped += 1;
                        if slot_was_full {
                            // A post while the slot is full (even if it empties on this
                            // edge) is lost.
                            want_lost = true;
                            counts.events_lost += 1;
                        } else {
                            slot = Some(p);
                        }
                    }
                }
            }
        }
        assert_eq!(dropped, want_dropped, "{at}: dropped");
        assert_eq!(lost, want_lost, "{at}: event_lost");
        // The response stream.
        if let Some(got) = &response {
            let (r, i) = stored
                .front()
                .unwrap_or_else(|| panic!("{at}: a response word with no GET stored"));
            let want = response_values(r, *i);
            for (k, name) in RESPONSE_FIELDS.iter().enumerate() {
                assert_eq!(
                    got[k], want[k],
                    "{at}: response {} word {i}: {name}",
                    counts.responses
                );
            }
            if r_ready {
                counts.response_words += 1;
                let (r, i) = stored.front_mut().unwrap();
                *i += 1;
                if *i == r.words.len() {
                    stored.pop_front();
                    counts.responses += 1;
                }
            } else {
                prev_response = Some(got.clone());
            }
        }
        b.tick();
        cycle += 1;
        assert!(cycle < cycles + 20_000, "{what}: the queue does not drain");
    }
    resets.assert_pulses(&what, 3);
    counts
}

/// GETs of 2 segments back to back with every output ready: (response words, GETs) per
/// 1,000 cycles, and the latency from a GET's last word taken to its first response word
/// offered (queue empty).
fn rate(b: &mut dyn Backend) -> (u64, u64, u64) {
    let mut rng = BenchRng::new(7);
    let ports = Ports::new(b);
    b.poke_bool(ports.reset, true);
    b.tick();
    b.poke_bool(ports.reset, false);
    b.poke_bool(ports.r_ready, true);
    b.poke_bool(ports.e_ready, true);
    // Latency: one GET into an empty queue.
    let p = GetPacket {
        src_node: 1,
        src_function: 2,
        src_qp: 3,
        dst_function: 4,
        dst_qp: 5,
        event: true,
        bytes: 40,
        words: body(&mut rng, 1, 1, 100, 9),
    };
    let drive = |b: &mut dyn Backend, p: &GetPacket, i: usize| {
        b.poke_bool(ports.g_valid, true);
        b.poke(ports.g_fields[0], PacketKind::Get.code() as u128);
        b.poke(ports.g_fields[10], p.bytes as u128);
        b.poke(ports.g_word, p.words[i] as u128);
        b.poke_bool(ports.g_last, i + 1 == p.words.len());
    };
    for i in 0..p.words.len() {
        drive(b, &p, i);
        assert!(b.peek_bool(ports.g_ready));
        b.tick();
    }
    b.poke_bool(ports.g_valid, false);
    let mut latency = 1;
    while !b.peek_bool(ports.r_valid) {
        b.tick();
        latency += 1;
        assert!(latency < 50, "rate: no response");
    }
    for _ in 0..10 {
        b.tick();
    }
    // Throughput.
    let (mut words, mut gets, mut i) = (0, 0, 0);
    for _ in 0..1000 {
        drive(b, &p, i);
        if b.peek_bool(ports.g_ready) {
            i += 1;
            if i == p.words.len() {
                i = 0;
            }
        }
        if b.peek_bool(ports.r_valid) {
            words += 1;
            if b.peek_bool(ports.r_fields[16]) {
                gets += 1;
            }
        }
        b.tick();
    }
    (words, gets, latency)
}

#[test]
fn get_to_put_matches_model() {
    let r = run_both(
        "get_to_put",
        || Big::new(32),
        || table_for!(Big),
        |b| (random_run(b, 131, 3, 30_000), rate(b)),
    );
    let (c, (words, gets, latency)) = r.result;
    println!(
        "get_to_put (8 slots): {c:?}; rate: {words} response words and {gets} GETs per 1,000 cycles; latency {latency} cycles; {} cycles",
        r.cycles
    );
    assert!(c.responses > 200 && c.dropped > 50 && c.events > 20 && c.events_lost > 0);
    assert!(c.full_cycles > 0, "the queue never filled");
    let r = run_both(
        "get_to_put_small",
        || Small::new(32),
        || table_for!(Small),
        |b| random_run(b, 132, 1, 20_000),
    );
    println!("get_to_put (2 slots): {:?}; {} cycles", r.result, r.cycles);
    assert!(r.result.full_cycles > 1000);
}
