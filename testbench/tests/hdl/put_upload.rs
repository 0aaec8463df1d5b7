//! `PutUpload` (nic::receive) against the PUT model (`testbench::models::put_upload`) and the
//! host-memory model's write rules, on both backends, at `max_payload` 64, 128, 256 and 512.
//!
//! 1. **Random packets** (7,000 cycles per `max_payload`): PUT packets of 1..=2016 bytes at
//!    random byte addresses (a third placed to cross a 4 KB boundary, a third to cross a
//!    `max_payload` boundary), every combination of `event`, `message_last` and
//!    `get_response`, random source and target fields; words offered with random idle (random
//!    fields and word while `valid` is low) and random gaps inside packets, each word held
//!    until taken; random host `ready` and event-writer `ready` in phases (long event stalls
//!    included); `reset` at random moments (`ResetSchedule`; the source drops its packet in
//!    progress, the bench forgets the beats and events not yet taken, handshakes are void in a
//!    reset cycle). Checked: every beat the host takes equals the model's next beat (function,
//!    address, enables, enabled bytes, `last`), and goes through `HostMemory::write_beat` (16-byte
//!    aligned, consecutive, contiguous enables, at most `max_payload` bytes, no 4 KB
//!    crossing); every write applied lies inside its packet and holds the packet's bytes at
//!    that place, the writes of a packet cover it exactly once; every event equals the model's
//!    (ring, kind, op, peer, length, end address), is offered only after its packet's last
//!    beat was taken, exactly once, in packet order; `writes` and `events` keep the hold rule.
//!    At the end everything offered has been written and every event taken.
//! 2. **Rate** (no reset, host and event writer always ready, a word always offered): packets
//!    of 128 bytes and of 2016 bytes at random alignment; payload words taken per cycle.
use nic::receive::put_upload::PutUpload;
use std::collections::VecDeque;
use testbench::host::memory::{WriteBeat, PAGE};
use testbench::host::{HostMemory, MemoryConfig};
use testbench::models::put_upload::{PutEvent, PutPacket};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng, PortId, PortTable};

fn table() -> PortTable<PutUpload> {
    port_table!(PutUpload; reset,
        packets.valid, packets.kind, packets.src_node, packets.src_function, packets.src_qp,
        packets.dst_function, packets.dst_qp, packets.delay, packets.address, packets.nap_offset,
        packets.nap_length, packets.bytes, packets.event, packets.message_last,
        packets.get_response, packets.word, packets.last, packets.ready,
        writes.valid, writes.function, writes.address, writes.data, writes.enables, writes.last,
        writes.ready,
        events.valid, events.function, events.qp, events.receive_ring, events.kind,
        events.status, events.op, events.peer_node, events.peer_function, events.peer_qp,
        events.length, events.info, events.ready)
}

/// The packet fields in port order (after `valid`, before `word`).
const PACKET_FIELDS: [&str; 15] = [
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
    "word",
];
const WRITE_FIELDS: [&str; 5] = ["function", "address", "data", "enables", "last"];
const EVENT_FIELDS: [&str; 11] = [
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

fn random_packet(rng: &mut BenchRng, max_payload: u64) -> PutPacket {
    let len = match rng.range(0, 9) {
        0..=3 => rng.range(1, 40),
        4..=6 => rng.range(41, 300),
        7 => 2016,
        _ => rng.range(301, 2016),
    };
    let address = match rng.range(0, 2) {
        // Across a 4 KB boundary when the length allows.
        0 => (rng.bits(35) as u64 + 1) * PAGE - rng.range(1, len.clamp(1, 64)),
        // Across a max_payload boundary.
        1 => (rng.bits(36) as u64 + 1) * max_payload - rng.range(1, len.clamp(1, 32)),
        _ => rng.bits(47) as u64,
    };
    PutPacket {
        src_node: rng.bits(16) as u16,
        src_function: rng.bits(3) as u8,
        src_qp: rng.bits(4) as u8,
        dst_function: rng.bits(3) as u8,
        dst_qp: rng.bits(4) as u8,
        address,
        data: (0..len).map(|_| rng.bits(8) as u8).collect(),
        event: rng.chance(0.6),
        message_last: rng.chance(0.6),
        get_response: rng.chance(0.3),
    }
}

/// A beat the host must take, with the packet it belongs to.
struct Expected {
    packet: u64,
    beat: WriteBeat,
    /// The packet's final beat.
    final_beat: bool,
}

/// Counts for the report.
#[derive(Debug, Default, PartialEq, Clone, Copy)]
struct Counts {
    packets: u64,
    beats: u64,
    writes: u64,
    events: u64,
    crossing_page: u64,
    crossing_block: u64,
    resets: u64,
}

/// Port ids.
struct Ports {
    reset: PortId,
    p_valid: PortId,
    p_fields: Vec<PortId>,
    p_last: PortId,
    p_ready: PortId,
    w_valid: PortId,
    w_fields: Vec<PortId>,
    w_ready: PortId,
    e_valid: PortId,
    e_fields: Vec<PortId>,
    e_ready: PortId,
}

struct Harness {
    rng: BenchRng,
    max_payload: u64,
    ports: Ports,
    mem: HostMemory,
    /// Packets still to send, with their ids.
    queue: VecDeque<(u64, PutPacket)>,
    /// The packet being sent: id, packet, words, next word, offering.
    current: Option<(u64, PutPacket, Vec<u64>, usize, bool)>,
    next_id: u64,
    expected: VecDeque<Expected>,
    /// Events owed: packet, event, released (its last beat taken).
    events: VecDeque<(u64, PutEvent, bool)>,
    /// Packets whose beats are being taken: id -> (packet, next address a write must start at).
    writing: std::collections::HashMap<u64, (PutPacket, u64)>,
    prev_write: Option<Vec<u128>>,
    prev_event: Option<Vec<u128>>,
    counts: Counts,
    cycle: u64,
    /// Words taken (for the rate).
    words_taken: u64,
    idle: u64,
}

impl Harness {
    fn new(b: &dyn Backend, seed: u64, max_payload: u64) -> Self {
        let p = |n: &str| b.port(n);
        let ports = Ports {
            reset: p("reset"),
            p_valid: p("packets$valid"),
            p_fields: PACKET_FIELDS
                .iter()
                .map(|f| p(&format!("packets${f}")))
                .collect(),
            p_last: p("packets$last"),
            p_ready: p("packets$ready"),
            w_valid: p("writes$valid"),
            w_fields: WRITE_FIELDS
                .iter()
                .map(|f| p(&format!("writes${f}")))
                .collect(),
            w_ready: p("writes$ready"),
            e_valid: p("events$valid"),
            e_fields: EVENT_FIELDS
                .iter()
                .map(|f| p(&format!("events${f}")))
                .collect(),
            e_ready: p("events$ready"),
        };
        Self {
            rng: BenchRng::new(seed),
            max_payload,
            ports,
            mem: HostMemory::new(MemoryConfig {
                max_payload,
                ..Default::default()
            }),
            queue: VecDeque::new(),
            current: None,
            next_id: 0,
            expected: VecDeque::new(),
            events: VecDeque::new(),
            writing: Default::default(),
            prev_write: None,
            prev_event: None,
            counts: Counts::default(),
            cycle: 0,
            words_taken: 0,
            idle: 0,
        }
    }

    fn push(&mut self, p: PutPacket) {
        self.queue.push_back((self.next_id, p));
        self.next_id += 1;
    }

    /// One cycle: `reset`, the chance a word is offered, the host's and the event writer's.
    fn step(&mut self, b: &mut dyn Backend, reset: bool, offer: f64, host: f64, writer: f64) {
        let ports = &self.ports;
        let rng = &mut self.rng;
        b.poke_bool(ports.reset, reset);
        if self.current.is_none() {
            if let Some((id, p)) = self.queue.pop_front() {
                let words = p.words();
                self.current = Some((id, p, words, 0, false));
            }
        }
        // The source: a word held until taken, else random fields with valid low.
        let mut offered = false;
        if let Some((id, p, words, next, offering)) = &mut self.current {
            if !reset && (*offering || rng.chance(offer)) {
                *offering = true;
                offered = true;
                let values = [
                    1,
                    p.src_node as u128,
                    p.src_function as u128,
                    p.src_qp as u128,
                    p.dst_function as u128,
                    p.dst_qp as u128,
                    (*id * 7) as u128 & 0xffff,
                    p.address as u128,
                    (*id * 5) as u128 & 0x7ff,
                    (*id * 3) as u128 & 0xfff,
                    p.data.len() as u128,
                    p.event as u128,
                    p.message_last as u128,
                    p.get_response as u128,
                    words[*next] as u128,
                ];
                for (&port, v) in ports.p_fields.iter().zip(values) {
                    let w = b.width(port);
                    b.poke(port, v & testbench::backend::mask(w));
                }
                b.poke_bool(ports.p_last, *next + 1 == words.len());
            }
        }
        b.poke_bool(ports.p_valid, offered);
        if !offered {
            for &port in &ports.p_fields {
                let w = b.width(port);
                b.poke(port, rng.bits(w));
            }
            b.poke_bool(ports.p_last, rng.chance(0.5));
        }
        let host_ready = !reset && rng.chance(host);
        let writer_ready = !reset && rng.chance(writer);
        b.poke_bool(ports.w_ready, host_ready);
        b.poke_bool(ports.e_ready, writer_ready);
        let cycle = self.cycle;
        // Outputs, with the hold rule.
        let w_valid = b.peek_bool(ports.w_valid);
        let w: Vec<u128> = ports.w_fields.iter().map(|&f| b.peek(f)).collect();
        if let Some(prev) = &self.prev_write {
            assert!(w_valid, "cycle {cycle}: a write beat withdrawn");
            assert_eq!(&w, prev, "cycle {cycle}: a waiting write beat changed");
        }
        let e_valid = b.peek_bool(ports.e_valid);
        let e: Vec<u128> = ports.e_fields.iter().map(|&f| b.peek(f)).collect();
        if let Some(prev) = &self.prev_event {
            assert!(e_valid, "cycle {cycle}: an event withdrawn");
            assert_eq!(&e, prev, "cycle {cycle}: a waiting event changed");
        }
        let taken_word = offered && b.peek_bool(ports.p_ready);
        self.prev_write = (w_valid && !host_ready && !reset).then(|| w.clone());
        self.prev_event = (e_valid && !writer_ready && !reset).then(|| e.clone());
        // The event at the head of the queue, only once its packet's beats are all taken.
        if e_valid && !reset {
            let (id, want, released) = self
                .events
                .front()
                .unwrap_or_else(|| panic!("cycle {cycle}: an event nobody asked for"));
            assert!(
                *released,
                "cycle {cycle}: packet {id}'s event offered before its last beat was taken"
            );
            let got = [
                want.function as u128,
                want.qp as u128,
                want.receive_ring as u128,
                want.event.kind.code() as u128,
                want.event.status.code() as u128,
                want.event.op as u128,
                want.event.peer_node as u128,
                want.event.peer_function as u128,
                want.event.peer_qp as u128,
                want.event.length as u128,
                want.event.info as u128,
            ];
            assert_eq!(
                e, got,
                "cycle {cycle}: packet {id}'s event ({EVENT_FIELDS:?})"
            );
            if writer_ready {
                self.events.pop_front();
                self.counts.events += 1;
            }
        }
        if w_valid && host_ready {
            let x = self
                .expected
                .pop_front()
                .unwrap_or_else(|| panic!("cycle {cycle}: a write beat nobody asked for"));
            let mask: u128 = (0..16)
                .filter(|i| (x.beat.enables >> i) & 1 == 1)
                .map(|i| 0xffu128 << (8 * i))
                .sum();
            let got = WriteBeat {
                function: w[0] as u8,
                address: w[1] as u64,
                data: w[2] & mask,
                enables: w[3] as u16,
                last: w[4] == 1,
            };
            assert_eq!(got, x.beat, "cycle {cycle}: beat of packet {}", x.packet);
            let logged = self.mem.log.len();
            self.mem.write_beat(cycle, got);
            self.counts.beats += 1;
            if self.mem.log.len() > logged {
                // A write applied: inside its packet, its bytes, after the previous write.
                let r = self.mem.log.last().expect("logged").clone();
                let (p, at) = self.writing.get_mut(&x.packet).expect("packet writing");
                assert_eq!(
                    r.address, *at,
                    "cycle {cycle}: write not where the last ended"
                );
                let offset = (r.address - p.address) as usize;
                assert_eq!(
                    r.data,
                    p.data[offset..offset + r.data.len()],
                    "cycle {cycle}: packet {}'s bytes",
                    x.packet
                );
                *at += r.data.len() as u64;
                self.counts.writes += 1;
            }
            if x.final_beat {
                let (p, at) = self.writing.remove(&x.packet).expect("packet writing");
                assert_eq!(
                    at,
                    p.address + p.data.len() as u64,
                    "packet {} not covered",
                    x.packet
                );
                if let Some(ev) = self.events.iter_mut().find(|e| e.0 == x.packet) {
                    ev.2 = true;
                }
            }
        }
        if taken_word {
            let (id, p, words, next, offering) = self.current.as_mut().expect("offered");
            if *next == 0 {
                let beats = p.beats(self.max_payload);
                let n = beats.len();
                for (k, beat) in beats.into_iter().enumerate() {
                    self.expected.push_back(Expected {
                        packet: *id,
                        beat,
                        final_beat: k + 1 == n,
                    });
                }
                if let Some(ev) = p.event() {
                    self.events.push_back((*id, ev, false));
                }
                self.writing.insert(*id, (p.clone(), p.address));
                let last_byte = p.address + p.data.len() as u64 - 1;
                self.counts.crossing_page += (p.address / PAGE != last_byte / PAGE) as u64;
                self.counts.crossing_block +=
                    (p.address / self.max_payload != last_byte / self.max_payload) as u64;
            }
            *next += 1;
            *offering = false;
            self.words_taken += 1;
            if *next == words.len() {
                self.current = None;
                self.counts.packets += 1;
            }
        }
        if reset {
            self.expected.clear();
            self.events.clear();
            self.writing.clear();
            self.mem.abandon();
            self.current = None;
            self.prev_write = None;
            self.prev_event = None;
        }
        // Liveness: something moves while work is owed.
        // (counted only in cycles where both the host and the event writer are ready).
        let busy = !self.expected.is_empty() || !self.events.is_empty();
        if taken_word || (w_valid && host_ready) || (e_valid && writer_ready) || !busy {
            self.idle = 0;
        } else if host_ready && writer_ready {
            self.idle += 1;
            assert!(self.idle < 20, "cycle {cycle}: stuck with work owed");
        }
        b.tick();
        self.cycle += 1;
    }

    /// Runs with every port ready until all offered packets are written and their events taken.
    fn drain(&mut self, b: &mut dyn Backend) {
        let start = self.cycle;
        while self.current.is_some()
            || !self.queue.is_empty()
            || !self.expected.is_empty()
            || !self.events.is_empty()
        {
            self.step(b, false, 1.0, 1.0, 1.0);
            assert!(self.cycle - start < 5_000, "drain did not finish");
        }
        // A few idle cycles: nothing more may come out.
        for _ in 0..4 {
            self.step(b, false, 1.0, 1.0, 1.0);
        }
    }
}

/// Counts of the random part; words per cycle (x 1000) at 128-byte and 2016-byte packets.
fn bench(b: &mut dyn Backend, seed: u64, max_payload: u64) -> (Counts, u64, u64) {
    let mut h = Harness::new(b, seed, max_payload);
    let mut sched = ResetSchedule::new(&mut h.rng, 1_500);
    let (mut host, mut writer, mut offer) = (0.8, 0.8, 0.8);
    for cycle in 0..7_000u64 {
        if cycle % 250 == 0 {
            host = [0.3, 0.8, 1.0, 1.0][h.rng.range(0, 3) as usize];
            writer = [0.0, 0.3, 1.0][h.rng.range(0, 2) as usize];
            offer = [0.3, 0.9, 1.0][h.rng.range(0, 2) as usize];
        }
        if h.queue.len() < 2 {
            let p = random_packet(&mut h.rng, max_payload);
            h.push(p);
        }
        let r = sched.next(&mut h.rng);
        h.step(b, r, offer, host, writer);
    }
    h.drain(b);
    sched.assert_pulses("put_upload", 3);
    h.counts.resets = sched.pulses();
    assert!(
        h.counts.crossing_page > 5 && h.counts.crossing_block > 20 && h.counts.events > 20,
        "max_payload {max_payload}: too few cases: {:?}",
        h.counts
    );
    // Rate: words taken per cycle with every port ready and the source never idle.
    let mut rate = |h: &mut Harness, len: u64, packets: u64| {
        for _ in 0..packets {
            let mut p = random_packet(&mut h.rng, max_payload);
            p.data.truncate(len as usize);
            while (p.data.len() as u64) < len {
                p.data.push(h.rng.bits(8) as u8);
            }
            p.address = h.rng.bits(47) as u64;
            h.push(p);
        }
        let (c0, w0) = (h.cycle, h.words_taken);
        while !h.queue.is_empty() || h.current.is_some() {
            h.step(b, false, 1.0, 1.0, 1.0);
        }
        let per_mille = 1000 * (h.words_taken - w0) / (h.cycle - c0);
        h.drain(b);
        per_mille
    };
    let small = rate(&mut h, 128, 40);
    let large = rate(&mut h, 2016, 4);
    assert!(
        small >= 900 && large >= 980,
        "max_payload {max_payload}: {small} and {large} words per 1000 cycles"
    );
    (h.counts, small, large)
}

#[test]
fn put_upload_matches_model() {
    for (k, max_payload) in [64u64, 128, 256, 512].into_iter().enumerate() {
        let r = run_both(
            &format!("put_upload_{max_payload}"),
            || PutUpload::new(max_payload as usize),
            table,
            |b| bench(b, 91 + k as u64, max_payload),
        );
        println!(
            "put upload, max_payload {max_payload} (counts; words per 1000 cycles at 128 B and 2016 B packets): {:?}",
            r.result
        );
    }
}
