//! `NapUploadUnit` (nic::receive: `NapUpload` + `BufferManager`, 8 functions x 4 QPs, 4
//! open-message entries, `nap_timeout` 256, `max_payload` 128) against the NAP model
//! (`testbench::models::nap_upload`), the driver model's NAP-buffer rings and the host-memory
//! model, on both backends.
//!
//! 1. **Random messages**: NAP messages of 1..=2048 bytes (one in two fits one packet: the
//!    single-packet path) cut at an MTU of 64, 128 or 256 bytes, their packets in random order,
//!    up to 3, 4 or 6 messages interleaved across keys in phases (so the 4 entries run out now and
//!    then: `AssemblyFull`); one
//!    message in ten loses a packet (it never completes: `NapIncomplete` after the timeout);
//!    3 % rogue packets (a copy of a message's packet with another length, or a packet past
//!    its length: overrun); targets over every QP, QP 1 of each function seldom given buffers
//!    and QP 3 of function 5 disabled and a few missing QPs (`NoBuffer`); 5 % of the ring
//!    entries bad; the bench plays the function table, the tag pool, software
//!    (`DriverModel::post_nap_buffers`) and the host (`HostMemory`, latency 30 + up to 40);
//!    random idle on the packets, random back pressure on writes, events, errors, lookups,
//!    tags and reads; `reset` at random moments. Checked every cycle: the open-message table
//!    mirrored entry by entry (`NapModel`: verdict, index, bytes, the coarse timers), the
//!    `overrun`, `assembly_full`, `no_buffer`, `incomplete` and `event_lost` pulses exactly
//!    when the model says (a "none" only if the QP had no good buffer untaken at some cycle of
//!    the packet's wait at the head, or is missing or disabled); every write beat equal to the
//!    model's (the packet at its buffer + offset, cut at `max_payload`) and through
//!    `HostMemory::write_beat`; each buffer the QP's next good posted one in ring order, used
//!    by one message; each receive event's fields, offered only after its message's last beat
//!    was taken, in order; each error event's fields, in order; the hold rule on every
//!    output; nothing stuck (work owed and nothing moving for 200 cycles with every port
//!    ready); at the end every entry freed, every beat and event taken.
//! 2. **Throughput**: every ring full, the caches warm, 8-byte single-packet messages round
//!    robin over the 32 QPs, every port ready: messages per 1,000 cycles.
use super::buffer_manager::{answer, Rings};
use hdl::formats::nic::{EventKind, EventStatus, NAP_MAX_BYTES};
use nic::receive::nap_upload_unit::{NapSettings, NapUploadUnit};
use std::collections::{BTreeSet, HashMap, VecDeque};
use testbench::host::memory::{CompletionBeat, ReadRequest, WriteBeat};
use testbench::host::{HostMemory, MemoryConfig};
use testbench::models::nap_upload::{nap_event, Entry, NapEventOut, NapModel, NapPacket, Verdict};
use testbench::nic_fetch_perf::Ports;
use testbench::port_table;
use testbench::reset::ResetSchedule;
use testbench::rhdl::PortTable;
use testbench::{run_both, Backend, BenchRng};

const FUNCTIONS: usize = 8;
const QPS: usize = 4;
const TAGS: usize = 32;
const OPEN: usize = 4;
const TIMEOUT: u64 = 256;
const MAX_PAYLOAD: u64 = 128;
type Uut = NapUploadUnit<5>;
type Key = (u16, u8, u8, u8, u8);

fn make() -> Uut {
    NapUploadUnit::<5>::new(NapSettings {
        functions: FUNCTIONS,
        qps: QPS,
        open: OPEN,
        timeout: TIMEOUT as usize,
        max_payload: MAX_PAYLOAD as usize,
    })
}

fn table() -> PortTable<Uut> {
    port_table!(Uut; reset,
        packets.valid, packets.kind, packets.src_node, packets.src_function, packets.src_qp,
        packets.dst_function, packets.dst_qp, packets.delay, packets.address, packets.nap_offset,
        packets.nap_length, packets.bytes, packets.event, packets.message_last,
        packets.get_response, packets.word, packets.last, packets.ready,
        writes.valid, writes.function, writes.address, writes.data, writes.enables, writes.last,
        writes.ready,
        events.valid, events.function, events.qp, events.receive_ring, events.kind,
        events.status, events.op, events.peer_node, events.peer_function, events.peer_qp,
        events.length, events.info, events.ready,
        errors.valid, errors.function, errors.qp, errors.receive_ring, errors.kind,
        errors.status, errors.op, errors.peer_node, errors.peer_function, errors.peer_qp,
        errors.length, errors.info, errors.ready,
        lookup.valid, lookup.function, lookup.qp, lookup.ready, lookup.answered, lookup.owned,
        lookup.function_enabled, lookup.qp_enabled, lookup.key, lookup.interrupt,
        lookup.send_base, lookup.send_size, lookup.send_producer, lookup.send_consumer,
        lookup.receive_base, lookup.receive_size, lookup.receive_producer,
        lookup.receive_consumer, lookup.nap_base, lookup.nap_size, lookup.nap_producer,
        lookup.nap_consumer,
        tag_alloc.valid, tag_alloc.tag, tag_alloc.ready, tag_alloc.owner,
        tag_free.valid, tag_free.tag,
        read.valid, read.function, read.address, read.bytes, read.tag, read.ready,
        completion.valid, completion.tag, completion.data, completion.last, completion.error,
        completion.ready,
        advance.valid, advance.function, advance.qp, advance.ring,
        delivered, no_buffer, assembly_full, incomplete, overrun, event_lost, read_error,
        bad_entry)
}

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
const WRITE_FIELDS: [&str; 5] = ["function", "address", "data", "enables", "last"];

/// The values an event request port must show for `e`.
fn event_values(e: &NapEventOut) -> Vec<u128> {
    vec![
        e.function as u128,
        e.qp as u128,
        1,
        e.event.kind.code() as u128,
        e.event.status.code() as u128,
        e.event.op as u128,
        e.event.peer_node as u128,
        e.event.peer_function as u128,
        e.event.peer_qp as u128,
        e.event.length as u128,
        e.event.info as u128,
    ]
}

/// A message being sent: its key and the packets not yet sent.
struct Message {
    key: Key,
    length: u16,
    packets: Vec<NapPacket>,
}

/// The packet source: messages interleaved across keys.
struct Source {
    active: Vec<Message>,
    /// Keys not to be used again before a cycle (an abandoned message's entry may linger).
    blocked: HashMap<Key, u64>,
    messages: u64,
    abandoned: u64,
    rogue: u64,
}

impl Source {
    fn key_free(&self, k: Key, now: u64) -> bool {
        self.active.iter().all(|m| m.key != k) && self.blocked.get(&k).is_none_or(|&t| t <= now)
    }
    fn new_message(&mut self, rng: &mut BenchRng, now: u64) {
        let key = loop {
            let q = if rng.chance(0.02) {
                rng.range(4, 15)
            } else {
                rng.range(0, 3)
            };
            let k = (
                rng.range(0, 3) as u16,
                rng.range(0, 7) as u8,
                rng.range(0, 15) as u8,
                rng.range(0, 7) as u8,
                q as u8,
            );
            if self.key_free(k, now) {
                break k;
            }
        };
        let mtu = [64u64, 128, 256][rng.range(0, 2) as usize];
        let length = if rng.chance(0.5) {
            rng.range(1, mtu)
        } else {
            rng.range(1, NAP_MAX_BYTES as u64)
        } as u16;
        let data: Vec<u8> = (0..length).map(|_| rng.bits(8) as u8).collect();
        let mut packets: Vec<NapPacket> = data
            .chunks(mtu as usize)
            .enumerate()
            .map(|(i, c)| NapPacket {
                src_node: key.0,
                src_function: key.1,
                src_qp: key.2,
                dst_function: key.3,
                dst_qp: key.4,
                offset: (i as u64 * mtu) as u16,
                length,
                data: c.to_vec(),
            })
            .collect();
        for i in (1..packets.len()).rev() {
            let j = rng.range(0, i as u64) as usize;
            packets.swap(i, j);
        }
        let abandoned = packets.len() > 1 && rng.chance(0.1);
        if abandoned {
            let i = rng.range(0, packets.len() as u64 - 1) as usize;
            packets.remove(i);
            self.abandoned += 1;
        }
        self.messages += 1;
        self.active.push(Message {
            key,
            length,
            packets,
        });
    }
    /// The next packet to send, if any.
    fn next(&mut self, rng: &mut BenchRng, now: u64, generate: bool) -> Option<NapPacket> {
        // Phases of up to 3, 4 or 6 messages at once (the table has 4 entries).
        let most = [3, 4, 3, 6][(now / 500 % 4) as usize];
        if generate && ((self.active.len() < most && rng.chance(0.3)) || self.active.is_empty()) {
            self.new_message(rng, now);
        }
        if self.active.is_empty() {
            return None;
        }
        let i = rng.range(0, self.active.len() as u64 - 1) as usize;
        if generate && rng.chance(0.03) {
            // A rogue packet: another length, or past its length.
            let m = &self.active[i];
            let mut p = m.packets.last().expect("a packet").clone();
            if rng.chance(0.5) && m.length < NAP_MAX_BYTES as u16 {
                p.length = m.length + 1;
            } else {
                p.length = p.offset + p.data.len() as u16 - 1;
                if p.length == 0 {
                    p.offset = 1;
                    p.length = 1;
                }
            }
            self.rogue += 1;
            return Some(p);
        }
        let m = &mut self.active[i];
        let p = m.packets.pop().expect("a packet");
        if m.packets.is_empty() {
            let m = self.active.swap_remove(i);
            // An entry lives at most 1.25 timeouts after its last packet (which may still
            // wait behind others): keep the key away for 4.
            self.blocked.insert(m.key, now + 4 * TIMEOUT);
        }
        Some(p)
    }
}

/// The packet being offered.
struct Current {
    packet: NapPacket,
    words: Vec<u64>,
    next: usize,
    offering: bool,
    /// A cycle of its wait at the head saw its QP without a good buffer.
    none_allowed: bool,
}

/// What a run counted.
#[derive(Debug, PartialEq, Default, Clone, Copy)]
struct Report {
    messages: u64,
    abandoned: u64,
    rogue: u64,
    packets: u64,
    delivered: u64,
    written_packets: u64,
    beats: u64,
    no_buffer: u64,
    assembly_full: u64,
    overrun: u64,
    incomplete: u64,
    incomplete_events: u64,
    lost: u64,
    error_events: u64,
    resets: u64,
    cycles: u64,
}

/// Output checks shared by the random and throughput parts: the hold rule.
#[derive(Default)]
struct Hold {
    write: Option<Vec<u128>>,
    event: Option<Vec<u128>>,
    error: Option<Vec<u128>>,
}

fn peek_all(b: &mut dyn Backend, p: &Ports, port: &str, fields: &[&str]) -> Vec<u128> {
    fields
        .iter()
        .map(|f| b.peek(p.id(&format!("{port}${f}"))))
        .collect()
}

fn bench(b: &mut dyn Backend, seed: u64, cycles: u64) -> Report {
    let what = format!("nap_upload seed {seed}");
    let mut rng = BenchRng::new(seed);
    let p = Ports::new(b);
    let id = |n: &str| p.id(n);
    let mut host = HostMemory::new(MemoryConfig {
        latency: 30,
        jitter: 40,
        tags: TAGS,
        max_payload: MAX_PAYLOAD,
        ..MemoryConfig::default()
    });
    let mut heap = 0x100_0000u64;
    let mut rings = Rings::new(&mut rng, heap);
    let mut sched = ResetSchedule::new(&mut rng, 5000);
    let mut free_tags: BTreeSet<u8> = (0..TAGS as u8).collect();
    let mut asked: Option<(usize, usize)> = None;
    let mut pool_dry = 0u64;
    let mut model = NapModel::new(OPEN, TIMEOUT);
    let mut source = Source {
        active: vec![],
        blocked: HashMap::new(),
        messages: 0,
        abandoned: 0,
        rogue: 0,
    };
    let mut current: Option<Current> = None;
    let mut holding: Option<Key> = None;
    // Beats owed: the beat, and whether it is its packet's last (releasing event `Some(id)`).
    let mut beats: VecDeque<(WriteBeat, Option<u64>)> = VecDeque::new();
    // Receive events owed: id, event, released.
    let mut events: VecDeque<(u64, NapEventOut, bool)> = VecDeque::new();
    let mut errors: VecDeque<NapEventOut> = VecDeque::new();
    let mut hold = Hold::default();
    let mut event_id = 0u64;
    let (mut host_p, mut event_p, mut error_p, mut offer_p) = (0.8, 0.8, 0.8, 0.8);
    let mut idle = 0u64;
    let mut r = Report::default();
    let mut k = 0u64;
    loop {
        let ending = k >= cycles;
        let busy = current.is_some()
            || !source.active.is_empty()
            || !beats.is_empty()
            || !events.is_empty()
            || !errors.is_empty()
            || model.entries.iter().any(|e| e.is_some());
        if ending && !busy {
            break;
        }
        assert!(k < cycles + 20_000, "{what}: the drain did not finish");
        if k.is_multiple_of(300) {
            host_p = [0.2, 0.8, 1.0, 1.0][rng.range(0, 3) as usize];
            event_p = [0.0, 0.3, 1.0, 1.0][rng.range(0, 3) as usize];
            error_p = [0.1, 0.5, 1.0][rng.range(0, 2) as usize];
            offer_p = [0.3, 0.9, 1.0][rng.range(0, 2) as usize];
        }
        if ending {
            (host_p, event_p, error_p, offer_p) = (1.0, 1.0, 1.0, 1.0);
        }
        let reset = sched.next_if(&mut rng, !ending);
        b.poke_bool(id("reset"), reset);
        if reset {
            free_tags = (0..TAGS as u8).collect();
            host.abandon();
            heap += 0x100_0000;
            rings = Rings::new(&mut rng, heap);
            asked = None;
            current = None;
            holding = None;
            source.active.clear();
            beats.clear();
            events.clear();
            errors.clear();
            hold = Hold::default();
        }
        // Software posts buffers; QP 1 of each function seldom.
        if rng.chance(0.08) {
            let (f, q) = (rng.range(0, 7) as usize, rng.range(0, 3) as usize);
            let rate = if q == 1 { 0.1 } else { 1.0 };
            if rings.enabled(f, q) && rng.chance(rate) {
                let n = rng.range(0, rings.room(f, q));
                rings.post(&mut host, &mut rng, f, q, n);
            }
        }
        // The packet source: a word held until taken.
        if current.is_none() && !reset {
            if let Some(packet) = source.next(&mut rng, k, !ending) {
                let words = packet.words();
                current = Some(Current {
                    packet,
                    words,
                    next: 0,
                    offering: false,
                    none_allowed: false,
                });
            }
        }
        let mut offered = false;
        if let Some(c) = current.as_mut().filter(|_| !reset) {
            if c.offering || rng.chance(offer_p) {
                c.offering = true;
                offered = true;
                let q = &c.packet;
                let values: [(&str, u128); 16] = [
                    ("kind", 0),
                    ("src_node", q.src_node as u128),
                    ("src_function", q.src_function as u128),
                    ("src_qp", q.src_qp as u128),
                    ("dst_function", q.dst_function as u128),
                    ("dst_qp", q.dst_qp as u128),
                    ("delay", (k & 0xffff) as u128),
                    ("address", rng.bits(48)),
                    ("nap_offset", q.offset as u128),
                    ("nap_length", q.length as u128),
                    ("bytes", q.data.len() as u128),
                    ("event", 1),
                    ("message_last", rng.bits(1)),
                    ("get_response", 0),
                    ("word", c.words[c.next] as u128),
                    ("last", (c.next + 1 == c.words.len()) as u128),
                ];
                for (n, v) in values {
                    b.poke(id(&format!("packets${n}")), v);
                }
                if c.next == 0 {
                    let (f, qp) = (q.dst_function as usize, q.dst_qp as usize);
                    if !rings.enabled(f, qp) || rings.available(f, qp) == 0 {
                        c.none_allowed = true;
                    }
                }
            }
        }
        b.poke_bool(id("packets$valid"), offered);
        if !offered {
            for n in [
                "src_node",
                "dst_qp",
                "nap_offset",
                "nap_length",
                "bytes",
                "word",
            ] {
                let port = id(&format!("packets${n}"));
                let w = b.width(port);
                b.poke(port, rng.bits(w));
            }
        }
        // The host, the table, the pool.
        let host_ready = !reset && rng.chance(host_p);
        let event_ready = !reset && rng.chance(event_p);
        let error_ready = !reset && rng.chance(error_p);
        b.poke_bool(id("writes$ready"), host_ready);
        b.poke_bool(id("events$ready"), event_ready);
        b.poke_bool(id("errors$ready"), error_ready);
        let lookup_ready = rng.chance(0.8);
        b.poke_bool(id("lookup$ready"), lookup_ready);
        answer(b, &p, &mut rng, &rings, asked);
        if pool_dry == 0 && rng.chance(0.003) {
            pool_dry = rng.range(20, 200);
        }
        pool_dry = pool_dry.saturating_sub(1);
        let offered_tag = free_tags.first().copied().filter(|_| pool_dry == 0);
        b.poke_bool(id("tag_alloc$valid"), offered_tag.is_some());
        b.poke(id("tag_alloc$tag"), offered_tag.unwrap_or(0) as u128);
        let read_ready = rng.chance(0.7);
        b.poke_bool(id("read$ready"), read_ready);
        let beat = if reset { None } else { host.offer(k, &mut rng) };
        b.poke_bool(id("completion$valid"), beat.is_some());
        let shown = beat.unwrap_or(CompletionBeat {
            tag: rng.bits(8) as u8,
            data: rng.bits(128),
            last: rng.chance(0.5),
            error: rng.chance(0.5),
        });
        b.poke(id("completion$tag"), shown.tag as u128);
        b.poke(id("completion$data"), shown.data);
        b.poke_bool(id("completion$last"), shown.last);
        b.poke_bool(id("completion$error"), shown.error);

        // The buffer manager's side: tags, advance, reads, lookups.
        if !reset {
            if b.peek_bool(id("tag_free$valid")) {
                free_tags.insert(b.peek(id("tag_free$tag")) as u8);
            }
            if b.peek_bool(id("advance$valid")) {
                let (f, q) = (
                    b.peek(id("advance$function")) as usize,
                    b.peek(id("advance$qp")) as usize,
                );
                rings.consumer[f][q] = rings.consumer[f][q].wrapping_add(1);
            }
            if let Some(beat) = beat {
                host.taken();
                if beat.last {
                    let (f, q, _) = rings.reads.remove(&beat.tag).expect("a read in flight");
                    if beat.error {
                        if let Some(c) = current.as_mut().filter(|c| {
                            c.next == 0
                                && (c.packet.dst_function as usize, c.packet.dst_qp as usize)
                                    == (f, q)
                        }) {
                            c.none_allowed = true;
                        }
                    }
                }
            }
            if let (Some(tag), true) = (offered_tag, b.peek_bool(id("tag_alloc$ready"))) {
                free_tags.remove(&tag);
            }
            if b.peek_bool(id("read$valid")) && read_ready {
                let req = ReadRequest {
                    function: b.peek(id("read$function")) as u8,
                    address: b.peek(id("read$address")) as u64,
                    bytes: b.peek(id("read$bytes")) as u64,
                    tag: b.peek(id("read$tag")) as u8,
                };
                let (f, q) = rings
                    .owner_of(req.address)
                    .unwrap_or_else(|| panic!("{what} cycle {k}: read of no ring: {req:?}"));
                rings
                    .reads
                    .insert(req.tag, (f, q, host.mem.word(req.address)));
                host.request(k, req, &mut rng);
            }
        }
        asked = None;
        if !reset && b.peek_bool(id("lookup$valid")) && lookup_ready {
            asked = Some((
                b.peek(id("lookup$function")) as usize,
                b.peek(id("lookup$qp")) as usize,
            ));
        }

        // Outputs with the hold rule.
        let w_valid = b.peek_bool(id("writes$valid"));
        let w = peek_all(b, &p, "writes", &WRITE_FIELDS);
        let e_valid = b.peek_bool(id("events$valid"));
        let e = peek_all(b, &p, "events", &EVENT_FIELDS);
        let x_valid = b.peek_bool(id("errors$valid"));
        let x = peek_all(b, &p, "errors", &EVENT_FIELDS);
        if !reset {
            for (prev, valid, now, n) in [
                (&hold.write, w_valid, &w, "write beat"),
                (&hold.event, e_valid, &e, "event"),
                (&hold.error, x_valid, &x, "error event"),
            ] {
                if let Some(prev) = prev {
                    assert!(valid, "{what} cycle {k}: {n} withdrawn");
                    assert_eq!(now, prev, "{what} cycle {k}: a waiting {n} changed");
                }
            }
        }
        hold.write = (w_valid && !host_ready && !reset).then(|| w.clone());
        hold.event = (e_valid && !event_ready && !reset).then(|| e.clone());
        hold.error = (x_valid && !error_ready && !reset).then(|| x.clone());
        let pulse = |b: &mut dyn Backend, n: &str| b.peek_bool(id(n));
        let (p_overrun, p_full, p_none) = (
            pulse(b, "overrun"),
            pulse(b, "assembly_full"),
            pulse(b, "no_buffer"),
        );
        let (p_incomplete, p_lost, p_delivered) = (
            pulse(b, "incomplete"),
            pulse(b, "event_lost"),
            pulse(b, "delivered"),
        );
        if reset {
            assert!(
                !(p_overrun || p_full || p_none || p_incomplete || p_delivered),
                "{what} cycle {k}: a pulse in reset"
            );
            model.reset();
            b.tick();
            k += 1;
            continue;
        }
        r.delivered += p_delivered as u64;
        if e_valid {
            let (idn, want, released) = events
                .front()
                .unwrap_or_else(|| panic!("{what} cycle {k}: a receive event nobody asked for"));
            assert!(
                *released,
                "{what} cycle {k}: event {idn} offered before its last beat was taken"
            );
            assert_eq!(
                e,
                event_values(want),
                "{what} cycle {k}: receive event {want:?}"
            );
            if event_ready {
                events.pop_front();
            }
        }
        // Writes taken: the model's next beat, through the host's rules.
        if w_valid && host_ready {
            let (want, release) = beats
                .pop_front()
                .unwrap_or_else(|| panic!("{what} cycle {k}: a write beat nobody asked for"));
            let mask: u128 = (0..16)
                .filter(|i| (want.enables >> i) & 1 == 1)
                .map(|i| 0xffu128 << (8 * i))
                .sum();
            let got = WriteBeat {
                function: w[0] as u8,
                address: w[1] as u64,
                data: w[2] & mask,
                enables: w[3] as u16,
                last: w[4] == 1,
            };
            assert_eq!(got, want, "{what} cycle {k}: write beat");
            host.write_beat(k, got);
            r.beats += 1;
            if let Some(idn) = release {
                let ev = events
                    .iter_mut()
                    .find(|e| e.0 == idn)
                    .expect("the packet's event");
                ev.2 = true;
            }
        }
        if x_valid {
            let want = errors
                .front()
                .unwrap_or_else(|| panic!("{what} cycle {k}: an error event nobody asked for"));
            assert_eq!(
                x,
                event_values(want),
                "{what} cycle {k}: error event {want:?}"
            );
            if error_ready {
                errors.pop_front();
                r.error_events += 1;
            }
        }
        // The model: the entry touched, the head's verdict, the expired entry.
        let head = current.as_ref().filter(|c| c.next == 0 && offered);
        let touched = match (head, holding) {
            (Some(c), _) => model.find(c.packet.key()),
            (None, Some(key)) if current.is_some() => model.find(key),
            _ => None,
        };
        let taken = offered && b.peek_bool(id("packets$ready"));
        let verdict = head.filter(|_| taken).map(|c| model.verdict(&c.packet));
        assert_eq!(
            (p_overrun, p_full),
            (
                verdict == Some(Verdict::Overrun),
                verdict == Some(Verdict::Full)
            ),
            "{what} cycle {k}: pulses for verdict {verdict:?}"
        );
        assert!(
            !p_none || matches!(verdict, Some(Verdict::Single | Verdict::Open { .. })),
            "{what} cycle {k}: no_buffer for verdict {verdict:?}"
        );
        let packet_post = p_none || p_full;
        let expired = model.expired(touched);
        let retire = expired.is_some_and(|i| {
            !packet_post && (model.entries[i].expect("expired").buffer.is_none() || !x_valid)
        });
        assert_eq!(
            p_incomplete, retire,
            "{what} cycle {k}: incomplete (expired entry {expired:?}, slot full {x_valid})"
        );
        assert_eq!(
            p_lost,
            packet_post && x_valid,
            "{what} cycle {k}: event_lost"
        );
        if retire {
            let i = expired.expect("expired");
            let en = model.entries[i].take().expect("expired");
            r.incomplete += 1;
            if let Some((_, index)) = en.buffer {
                errors.push_back(nap_event(
                    en.key,
                    EventKind::Error,
                    EventStatus::NapIncomplete,
                    en.received as u32,
                    index as u32,
                ));
                r.incomplete_events += 1;
            }
        }
        model.edge(touched);
        // The head's packet taken: its verdict applied.
        if let (Some(v), Some(c)) = (verdict, current.as_mut()) {
            let q = c.packet.clone();
            let (f, qp) = (q.dst_function as usize, q.dst_qp as usize);
            let bytes = q.data.len() as u16;
            let post = |errors: &mut VecDeque<NapEventOut>, status, r: &mut Report| {
                if p_lost {
                    r.lost += 1;
                } else {
                    errors.push_back(nap_event(
                        q.key(),
                        EventKind::Error,
                        status,
                        bytes as u32,
                        0,
                    ));
                }
            };
            let take_buffer = |rings: &mut Rings| -> (u64, u16) {
                while rings.posted[f][qp].front().is_some_and(|e| !e.good) {
                    rings.posted[f][qp].pop_front();
                }
                let e = rings.posted[f][qp].pop_front().unwrap_or_else(|| {
                    panic!("{what} cycle {k}: ({f}, {qp}) used a buffer never posted")
                });
                (
                    e.word,
                    (e.pointer as u64 % rings.ring(f, qp).entries()) as u16,
                )
            };
            let mut written: Option<(u64, Option<(u16, u16)>)> = None;
            holding = None;
            match v {
                Verdict::Overrun => r.overrun += 1,
                Verdict::Full => {
                    r.assembly_full += 1;
                    post(&mut errors, EventStatus::AssemblyFull, &mut r);
                }
                Verdict::Single | Verdict::Open { .. } if p_none => {
                    assert!(
                        c.none_allowed,
                        "{what} cycle {k}: {q:?} found no buffer with buffers posted"
                    );
                    r.no_buffer += 1;
                    post(&mut errors, EventStatus::NoBuffer, &mut r);
                    if let Verdict::Open { index } = v {
                        model.entries[index] = Some(Entry {
                            key: q.key(),
                            buffer: None,
                            received: bytes,
                            length: q.length,
                            age: 0,
                        });
                        holding = Some(q.key());
                    }
                }
                Verdict::Single => {
                    let (buffer, index) = take_buffer(&mut rings);
                    written = Some((buffer, Some((q.length, index))));
                }
                Verdict::Open { index } => {
                    let (buffer, ring_index) = take_buffer(&mut rings);
                    model.entries[index] = Some(Entry {
                        key: q.key(),
                        buffer: Some((buffer, ring_index)),
                        received: bytes,
                        length: q.length,
                        age: 0,
                    });
                    written = Some((buffer, None));
                    holding = Some(q.key());
                }
                Verdict::Append { index, completes } | Verdict::Swallow { index, completes } => {
                    let en = model.entries[index].as_mut().expect("hit");
                    en.received += bytes;
                    let (buffer, length) = (en.buffer, en.length);
                    if let (Verdict::Append { .. }, Some((address, ring_index))) = (v, buffer) {
                        written = Some((address, completes.then_some((length, ring_index))));
                    }
                    if completes {
                        model.entries[index] = None;
                    } else {
                        holding = Some(q.key());
                    }
                }
            }
            if let Some((buffer, event)) = written {
                r.written_packets += 1;
                let list = q.beats(buffer, MAX_PAYLOAD);
                let n = list.len();
                let release = event.map(|(length, index)| {
                    event_id += 1;
                    events.push_back((
                        event_id,
                        nap_event(
                            q.key(),
                            EventKind::Receive,
                            EventStatus::Ok,
                            length as u32,
                            index as u32,
                        ),
                        false,
                    ));
                    event_id
                });
                for (i, bt) in list.into_iter().enumerate() {
                    beats.push_back((bt, if i + 1 == n { release } else { None }));
                }
            }
        }
        if taken {
            let c = current.as_mut().expect("offered");
            c.next += 1;
            c.offering = false;
            if c.next == c.words.len() {
                current = None;
                holding = None;
                r.packets += 1;
            }
        }
        // Liveness: work owed and nothing moving with every port ready.
        let moving = taken || (w_valid && host_ready) || (e_valid && event_ready);
        if moving || !busy || !(host_ready && event_ready && error_ready) {
            idle = 0;
        } else {
            idle += 1;
            assert!(
                idle < 200 + 2 * TIMEOUT,
                "{what} cycle {k}: stuck with work owed"
            );
        }
        b.tick();
        k += 1;
    }
    assert_eq!(free_tags.len(), TAGS, "{what}: tags not back in the pool");
    sched.assert_pulses(&what, 3);
    r.messages = source.messages;
    r.abandoned = source.abandoned;
    r.rogue = source.rogue;
    r.resets = sched.pulses();
    r.cycles = k;
    r
}

/// Messages per 1,000 cycles (cycles 3,500..4,500): warm caches, every ring full, 8-byte
/// single-packet messages round robin over the 32 QPs, every port ready, memory latency 60.
fn throughput(b: &mut dyn Backend) -> u64 {
    let p = Ports::new(b);
    let id = |n: &str| p.id(n);
    let mut rng = BenchRng::new(3);
    let mut host = HostMemory::new(MemoryConfig {
        latency: 60,
        jitter: 0,
        split: 0.0,
        header_gap: false,
        tags: TAGS,
        max_payload: MAX_PAYLOAD,
        ..MemoryConfig::default()
    });
    let mut rings = Rings::new(&mut rng, 0x100_0000);
    for f in 0..FUNCTIONS {
        for q in 0..QPS {
            rings.driver.qp[f][q].enabled = true;
            rings.base_low[f][q] = 0;
        }
    }
    let mut free_tags: BTreeSet<u8> = (0..TAGS as u8).collect();
    let mut asked = None;
    let mut next = 0usize;
    let mut delivered = vec![];
    b.poke_bool(id("reset"), true);
    b.tick();
    b.poke_bool(id("reset"), false);
    for k in 0..4500u64 {
        for f in 0..FUNCTIONS {
            for q in 0..QPS {
                for _ in 0..rings.room(f, q) {
                    let _ = rings.driver.post_nap_buffers(&mut host.mem, f, q, 1);
                }
            }
        }
        let (f, q) = (next / QPS, next % QPS);
        for (n, v) in [
            ("valid", 1u128),
            ("src_node", 7),
            ("src_function", 1),
            ("src_qp", 2),
            ("dst_function", f as u128),
            ("dst_qp", q as u128),
            ("nap_offset", 0),
            ("nap_length", 8),
            ("bytes", 8),
            ("word", k as u128),
            ("last", 1),
        ] {
            b.poke(id(&format!("packets${n}")), v);
        }
        for n in [
            "writes$ready",
            "events$ready",
            "errors$ready",
            "lookup$ready",
            "read$ready",
        ] {
            b.poke_bool(id(n), true);
        }
        answer(b, &p, &mut rng, &rings, asked);
        let offered = free_tags.first().copied();
        b.poke_bool(id("tag_alloc$valid"), offered.is_some());
        b.poke(id("tag_alloc$tag"), offered.unwrap_or(0) as u128);
        let beat = host.offer(k, &mut rng);
        b.poke_bool(id("completion$valid"), beat.is_some());
        if let Some(beat) = beat {
            b.poke(id("completion$tag"), beat.tag as u128);
            b.poke(id("completion$data"), beat.data);
            b.poke_bool(id("completion$last"), beat.last);
            b.poke_bool(id("completion$error"), beat.error);
            host.taken();
        }
        if b.peek_bool(id("tag_free$valid")) {
            free_tags.insert(b.peek(id("tag_free$tag")) as u8);
        }
        if b.peek_bool(id("advance$valid")) {
            let (g, h) = (
                b.peek(id("advance$function")) as usize,
                b.peek(id("advance$qp")) as usize,
            );
            rings.consumer[g][h] = rings.consumer[g][h].wrapping_add(1);
        }
        if let (Some(tag), true) = (offered, b.peek_bool(id("tag_alloc$ready"))) {
            free_tags.remove(&tag);
        }
        if b.peek_bool(id("read$valid")) {
            let req = ReadRequest {
                function: b.peek(id("read$function")) as u8,
                address: b.peek(id("read$address")) as u64,
                bytes: 8,
                tag: b.peek(id("read$tag")) as u8,
            };
            host.request(k, req, &mut rng);
        }
        asked = b.peek_bool(id("lookup$valid")).then(|| {
            (
                b.peek(id("lookup$function")) as usize,
                b.peek(id("lookup$qp")) as usize,
            )
        });
        assert!(
            !b.peek_bool(id("no_buffer")) && !b.peek_bool(id("errors$valid")),
            "throughput: a message found no buffer (cycle {k})"
        );
        if b.peek_bool(id("delivered")) {
            delivered.push(k);
        }
        if b.peek_bool(id("packets$ready")) {
            next = (next + 1) % (FUNCTIONS * QPS);
        }
        b.tick();
    }
    delivered
        .iter()
        .filter(|&&t| (3500..4500).contains(&t))
        .count() as u64
}

#[test]
fn nap_upload_matches_model() {
    let r = run_both("nap_upload", make, table, |b| {
        (bench(b, 131, 40_000), throughput(b))
    });
    let (report, per_1000) = r.result;
    println!("nap upload: {report:?}; warm 8-byte messages: {per_1000} per 1,000 cycles");
    assert!(
        report.delivered > 100
            && report.no_buffer > 20
            && report.assembly_full > 20
            && report.overrun > 10
            && report.incomplete_events > 10
            && report.lost > 0,
        "too few cases: {report:?}"
    );
    assert!(per_1000 >= 320, "warm messages {per_1000} per 1,000 cycles");
}
