//! `ReceiveBuffer` (nic::receive: network flits in, checked packets out) against the model
//! `testbench::models::receive_buffer`, on both backends.
//!
//! Traffic: messages of every kind cut into packets by the packetizer's model (NAP of 1 to
//! 2048 bytes, PUT over several destination segments, GET bodies; MTU 8 to 232 bytes, the
//! most one packet of 32 flits carries), a random head `delay`, targets mostly existing QPs
//! with their keys, some with a wrong key, a disabled or a missing function or QP; about one
//! packet in six broken (`DAMAGES`: a bit flip anywhere, truncated, no tail, `len` wrong, Mgmt
//! kind, padding, reserved bits, `bytes`, `get_response`, NAP rules, stray flits; the CRC
//! recomputed where a format rule must catch it) and oversize packets. Random gaps (random
//! data while `valid` is low) and burst phases, random output back pressure, the lookup
//! taken at random and answered the cycle after from a Rust table model, the error-event
//! slot drained at random, `reset` at random moments under traffic.
//!
//! Checked every cycle: the lookup asks for the oldest undecided packet's target; at most one
//! outcome pulse, the model's outcome of the oldest ended segment; `event_lost` exactly when
//! the model's one-event slot is busy; every error event's fields; every output beat (every
//! field, the word, `last`) against the next good packet, so each is delivered once, in order.
use hdl::formats::header::DELAY;
use hdl::formats::nic::{
    payload_words, Descriptor, DescriptorBody, NicOp, NicPacket, IMMEDIATE_MAX_BYTES, NAP_MAX_BYTES,
};
use nic::receive::ReceiveBuffer;
use std::collections::VecDeque;
use testbench::models::packetizer::{random_segments, Message, PacketizerConfig};
use testbench::models::receive_buffer::{
    check, damage, verdict, Outcome, ReceiveErrorEvent, Segmenter, TableModel, DAMAGES,
};
use testbench::nic_fetch_perf::Ports;
use testbench::port_table;
use testbench::reset::ResetSchedule;
use testbench::rhdl::PortTable;
use testbench::{run_both, Backend, BenchRng};

/// `network.max_packet_flits` of the default configuration.
const MAX_FLITS: usize = 32;
/// Packet-RAM address bits of the unit under test (64 words = 2 x 32).
const RAW: usize = 6;
/// Functions and QPs per function the table model has (the rest are not owned).
const FUNCTIONS: usize = 4;
const QPS: usize = 4;

type Dut = ReceiveBuffer<RAW, { RAW + 1 }>;

fn dut() -> Dut {
    ReceiveBuffer::new(MAX_FLITS)
}

fn table() -> PortTable<Dut> {
    port_table!(Dut; reset, flits.valid, flits.data, flits.ready,
        packets.valid, packets.kind, packets.src_node, packets.src_function, packets.src_qp,
        packets.dst_function, packets.dst_qp, packets.delay, packets.address, packets.nap_offset,
        packets.nap_length, packets.bytes, packets.event, packets.message_last,
        packets.get_response, packets.word, packets.last, packets.ready,
        lookup.valid, lookup.function, lookup.qp, lookup.ready, lookup.answered, lookup.owned,
        lookup.function_enabled, lookup.qp_enabled, lookup.key, lookup.interrupt,
        lookup.send_base, lookup.send_size, lookup.send_producer, lookup.send_consumer,
        lookup.receive_base, lookup.receive_size, lookup.receive_producer,
        lookup.receive_consumer, lookup.nap_base, lookup.nap_size, lookup.nap_producer,
        lookup.nap_consumer,
        errors.valid, errors.function, errors.qp, errors.receive_ring, errors.kind,
        errors.status, errors.op, errors.peer_node, errors.peer_function, errors.peer_qp,
        errors.length, errors.info, errors.ready,
        received, crc_error, malformed, key_mismatch, target_refused, event_lost)
}

/// The lookup answer's ring fields, driven with random values.
const RING_FIELDS: [(&str, usize); 13] = [
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

/// A random message of any kind, to `target` (function, QP, key).
fn message(rng: &mut BenchRng, target: (u8, u8, u32)) -> Message {
    let segments = |rng: &mut BenchRng, total: u64| {
        random_segments(rng, total, 4, |rng| rng.bits(40) as u64 | rng.range(0, 7))
    };
    let small = |rng: &mut BenchRng, max: u64| {
        if rng.chance(0.5) {
            rng.range(1, 24)
        } else {
            rng.range(1, max)
        }
    };
    let (body, data) = match rng.range(0, 3) {
        0 => {
            let d: Vec<u8> = (0..small(rng, IMMEDIATE_MAX_BYTES as u64))
                .map(|_| rng.bits(8) as u8)
                .collect();
            (DescriptorBody::NapImmediate(d.clone()), d)
        }
        1 => {
            let n = small(rng, NAP_MAX_BYTES as u64 / 2);
            let body = DescriptorBody::NapIndirect {
                address: rng.bits(40) as u64,
                bytes: n as u32,
            };
            (body, (0..n).map(|_| rng.bits(8) as u8).collect())
        }
        2 => {
            let n = small(rng, 700);
            let body = DescriptorBody::Put {
                sources: segments(rng, n),
                destinations: segments(rng, n),
            };
            (body, (0..n).map(|_| rng.bits(8) as u8).collect())
        }
        _ => {
            let n = rng.range(16, 5000);
            let body = DescriptorBody::Get {
                sources: segments(rng, n),
                destinations: segments(rng, n),
                response_key: rng.bits(32) as u32,
            };
            (body, vec![])
        }
    };
    Message {
        descriptor: Descriptor {
            dst_node: rng.bits(16) as u16,
            dst_function: target.0,
            dst_qp: target.1,
            remote_event: rng.chance(0.5),
            local_event: rng.chance(0.5),
            qp_magic: target.2,
            tag: rng.bits(32) as u32,
            body,
        },
        function: rng.bits(3) as u8,
        qp: rng.bits(4) as u8,
        get_response: rng.chance(0.3),
        data,
    }
}

/// A target: mostly an existing QP with its key, else a wrong key or any function and QP.
fn target(rng: &mut BenchRng, t: &TableModel) -> (u8, u8, u32) {
    let (f, q) = if rng.chance(0.9) {
        (
            rng.range(0, FUNCTIONS as u64 - 1),
            rng.range(0, QPS as u64 - 1),
        )
    } else {
        (rng.bits(3) as u64, rng.bits(4) as u64)
    };
    let key = match t.get(f as u8, q as u8) {
        Some(e) if rng.chance(0.9) => e.key,
        _ => rng.bits(32) as u32,
    };
    (f as u8, q as u8, key)
}

/// An oversize packet (more flits than `MAX_FLITS`, `len` right, CRC right).
fn oversize(rng: &mut BenchRng, t: (u8, u8, u32)) -> NicPacket {
    let bytes = rng.range(8 * (MAX_FLITS as u64 - 3) + 1, 8 * 60) as usize;
    NicPacket {
        dst_node: rng.bits(16) as u16,
        src_node: rng.bits(16) as u16,
        vc: 0,
        src_function: rng.bits(3) as u8,
        src_qp: rng.bits(4) as u8,
        dst_function: t.0,
        dst_qp: t.1,
        qp_magic: t.2,
        event: rng.chance(0.5),
        last: true,
        op: NicOp::Put {
            address: rng.bits(48) as u64,
            get_response: false,
        },
        payload: (0..bytes).map(|_| rng.bits(8) as u8).collect(),
    }
}

/// The flit stream the bench sends, a packet (or broken segment) at a time.
struct Source {
    queue: VecDeque<u128>,
    messages: u64,
    damaged: u64,
}

impl Source {
    /// Tops the queue up with the next message's packets, some broken.
    fn refill(&mut self, rng: &mut BenchRng, t: &TableModel) {
        while self.queue.len() < 2 * MAX_FLITS {
            let tg = target(rng, t);
            let packets = if rng.chance(0.03) {
                vec![oversize(rng, tg)]
            } else {
                let mtu = [8, 64, 128, 232][rng.range(0, 3) as usize];
                let c = PacketizerConfig {
                    mtu_bytes: mtu,
                    max_packet_flits: MAX_FLITS,
                    data_vc: 0,
                    get_vc: 1,
                    node_id: rng.bits(16) as u16,
                };
                message(rng, tg).packets(&c)
            };
            self.messages += 1;
            for p in packets {
                let mut flits = p.pack();
                flits[0] = DELAY.set(flits[0], rng.bits(12));
                if rng.chance(0.15) {
                    let which = rng.range(0, DAMAGES.len() as u64 - 1) as usize;
                    flits = damage(rng, &flits, which);
                    self.damaged += 1;
                }
                self.queue.extend(flits);
            }
        }
    }
    /// After a reset: forget the rest of the packet being sent (the next flit is a head).
    fn restart(&mut self) {
        while self
            .queue
            .front()
            .is_some_and(|&f| !testbench::models::receive_buffer::is_head(f))
        {
            self.queue.pop_front();
        }
    }
}

/// A good packet on its way out.
struct Delivery {
    packet: NicPacket,
    delay: u16,
    header: u64,
    words: Vec<u64>,
    next: usize,
}

#[derive(Debug, Default, PartialEq)]
struct Report {
    cycles: u64,
    flits: u64,
    messages: u64,
    damaged: u64,
    received: u64,
    words: u64,
    crc: u64,
    malformed: u64,
    key_mismatch: u64,
    refused: u64,
    events: u64,
    events_lost: u64,
    lookups: u64,
    resets: u64,
}

fn bench(b: &mut dyn Backend, seed: u64, cycles: u64) -> Report {
    let what = format!("receive_buffer seed {seed}");
    let mut rng = BenchRng::new(seed);
    let p = Ports::new(b);
    let id = |n: &str| p.id(n);
    let mut sched = ResetSchedule::new(&mut rng, 4000);
    let mut t = TableModel::random(&mut rng, FUNCTIONS, QPS);
    let mut src = Source {
        queue: VecDeque::new(),
        messages: 0,
        damaged: 0,
    };
    let mut seg = Segmenter::default();
    // Ended segments awaiting their outcome pulse (the lookup target when one is due).
    let mut pending: VecDeque<(Outcome, Option<(u8, u8)>)> = VecDeque::new();
    let mut out: VecDeque<Delivery> = VecDeque::new();
    let mut slot: Option<ReceiveErrorEvent> = None;
    let mut answer_due: Option<(u8, u8)> = None;
    let mut offering = false;
    let mut r = Report::default();
    let (mut in_rate, mut out_rate) = (0.8, 0.7);
    for k in 0..cycles {
        if k % 1500 == 0 {
            // Phases: bursts, gaps, back pressure.
            in_rate = [1.0, 0.8, 0.5][rng.range(0, 2) as usize];
            out_rate = [1.0, 0.7, 0.3][rng.range(0, 2) as usize];
        }
        let reset = sched.next_if(&mut rng, true);
        b.poke_bool(id("reset"), reset);
        src.refill(&mut rng, &t);
        offering = offering || rng.chance(in_rate);
        let flit = *src.queue.front().expect("refilled");
        b.poke_bool(id("flits$valid"), offering);
        b.poke(id("flits$data"), if offering { flit } else { rng.bits(65) });
        let out_ready = rng.chance(out_rate);
        b.poke_bool(id("packets$ready"), out_ready);
        let lookup_ready = rng.chance(0.7);
        b.poke_bool(id("lookup$ready"), lookup_ready);
        let answered = answer_due.take().filter(|_| !reset);
        b.poke_bool(id("lookup$answered"), answered.is_some());
        let e = answered.and_then(|(f, q)| t.get(f, q));
        b.poke_bool(
            id("lookup$owned"),
            e.is_some() || (answered.is_none() && rng.chance(0.5)),
        );
        let any = |rng: &mut BenchRng| rng.chance(0.5);
        b.poke_bool(
            id("lookup$function_enabled"),
            e.map_or_else(|| any(&mut rng), |e| e.function_enabled),
        );
        b.poke_bool(
            id("lookup$qp_enabled"),
            e.map_or_else(|| any(&mut rng), |e| e.qp_enabled),
        );
        b.poke(
            id("lookup$key"),
            e.map_or_else(|| rng.bits(32), |e| e.key as u128),
        );
        for (n, w) in RING_FIELDS {
            b.poke(id(&format!("lookup${n}")), rng.bits(w));
        }
        let event_ready = rng.chance(0.3);
        b.poke_bool(id("errors$ready"), event_ready);

        if reset {
            b.tick();
            offering = false;
            src.restart();
            seg.clear();
            pending.clear();
            out.clear();
            slot = None;
            if rng.chance(0.5) {
                t = TableModel::random(&mut rng, FUNCTIONS, QPS);
            }
            continue;
        }

        // The lookup: the oldest undecided packet's target.
        if b.peek_bool(id("lookup$valid")) {
            let f = b.peek(id("lookup$function")) as u8;
            let q = b.peek(id("lookup$qp")) as u8;
            let want = pending.front().and_then(|x| x.1);
            assert_eq!(Some((f, q)), want, "{what} cycle {k}: lookup");
            if lookup_ready {
                answer_due = Some((f, q));
                r.lookups += 1;
            }
        }
        // Outcome pulses.
        let pulses = [
            "received",
            "crc_error",
            "malformed",
            "key_mismatch",
            "target_refused",
        ]
        .map(|n| b.peek_bool(id(n)));
        let lost = b.peek_bool(id("event_lost"));
        assert!(
            pulses.iter().filter(|&&x| x).count() <= 1,
            "{what} cycle {k}: pulses {pulses:?}"
        );
        let mut post = None;
        if let Some(i) = pulses.iter().position(|&x| x) {
            let (o, _) = pending
                .pop_front()
                .unwrap_or_else(|| panic!("{what} cycle {k}: pulse {i} without a segment"));
            let expected = match &o {
                Outcome::Received(..) => 0,
                Outcome::Crc => 1,
                Outcome::Malformed => 2,
                Outcome::KeyMismatch(_) => 3,
                Outcome::TargetRefused(_) => 4,
            };
            assert_eq!(i, expected, "{what} cycle {k}: outcome, expected {o:?}");
            match o {
                Outcome::Received(packet, delay) => {
                    let mut flits = packet.pack();
                    flits[0] = DELAY.set(flits[0], delay as u128);
                    out.push_back(Delivery {
                        header: flits[1] as u64,
                        words: payload_words(&packet.payload),
                        packet,
                        delay,
                        next: 0,
                    });
                    r.received += 1;
                }
                Outcome::Crc => r.crc += 1,
                Outcome::Malformed => r.malformed += 1,
                Outcome::KeyMismatch(ev) => {
                    r.key_mismatch += 1;
                    post = Some(ev);
                }
                Outcome::TargetRefused(ev) => {
                    r.refused += 1;
                    post = ev;
                }
            }
        }
        assert_eq!(
            lost,
            post.is_some() && slot.is_some(),
            "{what} cycle {k}: event_lost"
        );
        // The error-event slot.
        assert_eq!(
            b.peek_bool(id("errors$valid")),
            slot.is_some(),
            "{what} cycle {k}: errors valid"
        );
        if let Some(ev) = slot {
            let got = ReceiveErrorEvent {
                function: b.peek(id("errors$function")) as u8,
                qp: b.peek(id("errors$qp")) as u8,
                status:
                    hdl::formats::nic::EventStatus::from_code(b.peek(id("errors$status")) as u8)
                        .expect("a status code"),
                op: b.peek(id("errors$op")) as u8,
                peer: (
                    b.peek(id("errors$peer_node")) as u16,
                    b.peek(id("errors$peer_function")) as u8,
                    b.peek(id("errors$peer_qp")) as u8,
                ),
                length: b.peek(id("errors$length")) as u32,
            };
            assert_eq!(got, ev, "{what} cycle {k}: error event");
            assert!(
                b.peek_bool(id("errors$receive_ring")),
                "{what} cycle {k}: receive ring"
            );
            assert_eq!(b.peek(id("errors$kind")), 2, "{what} cycle {k}: kind Error");
            assert_eq!(b.peek(id("errors$info")), 0, "{what} cycle {k}: info");
            if event_ready {
                slot = None;
                r.events += 1;
            }
        }
        if let Some(ev) = post {
            if lost {
                r.events_lost += 1;
            } else {
                slot = Some(ev);
            }
        }
        // The output.
        if b.peek_bool(id("packets$valid")) {
            let d = out
                .front_mut()
                .unwrap_or_else(|| panic!("{what} cycle {k}: a beat with no packet due"));
            let pk = &d.packet;
            let fields = [
                ("kind", pk.op.kind().code() as u128),
                ("src_node", pk.src_node as u128),
                ("src_function", pk.src_function as u128),
                ("src_qp", pk.src_qp as u128),
                ("dst_function", pk.dst_function as u128),
                ("dst_qp", pk.dst_qp as u128),
                ("delay", d.delay as u128),
                ("address", (d.header & ((1 << 48) - 1)) as u128),
                ("nap_offset", (d.header & 0x7ff) as u128),
                ("nap_length", ((d.header >> 11) & 0xfff) as u128),
                ("bytes", pk.payload.len() as u128),
                ("event", pk.event as u128),
                ("message_last", pk.last as u128),
                (
                    "get_response",
                    matches!(
                        pk.op,
                        NicOp::Put {
                            get_response: true,
                            ..
                        }
                    ) as u128,
                ),
                ("word", d.words[d.next] as u128),
                ("last", (d.next + 1 == d.words.len()) as u128),
            ];
            for (n, v) in fields {
                assert_eq!(
                    b.peek(id(&format!("packets${n}"))),
                    v,
                    "{what} cycle {k}: packets.{n}, word {} of {:?}",
                    d.next,
                    d.packet
                );
            }
            if out_ready {
                d.next += 1;
                r.words += 1;
                if d.next == d.words.len() {
                    out.pop_front();
                }
            }
        }
        // The input.
        if offering && b.peek_bool(id("flits$ready")) {
            src.queue.pop_front();
            offering = false;
            r.flits += 1;
            if let Some(s) = seg.push(flit) {
                let o = match check(&s, MAX_FLITS) {
                    Ok((packet, delay)) => {
                        let at = (packet.dst_function, packet.dst_qp);
                        (verdict(packet, delay, &t), Some(at))
                    }
                    Err(o) => (o, None),
                };
                pending.push_back(o);
            }
        }
        b.tick();
    }
    sched.assert_pulses(&what, 2);
    r.cycles = cycles;
    r.messages = src.messages;
    r.damaged = src.damaged;
    r.resets = sched.pulses();
    r
}

/// Back-to-back full packets (29 payload words, 32 flits), every output and lookup ready, no
/// reset: flits taken per cycle, and cycles from a lone packet's tail taken to its first word.
fn throughput(b: &mut dyn Backend) -> (u64, u64, u64) {
    let p = Ports::new(b);
    let id = |n: &str| p.id(n);
    let mut rng = BenchRng::new(3);
    let t = TableModel {
        functions: 1,
        qps: 1,
        entries: vec![testbench::models::receive_buffer::QpEntry {
            function_enabled: true,
            qp_enabled: true,
            key: 0x1234_5678,
        }],
    };
    let packet = |rng: &mut BenchRng| NicPacket {
        dst_node: 1,
        src_node: 2,
        vc: 0,
        src_function: 0,
        src_qp: 0,
        dst_function: 0,
        dst_qp: 0,
        qp_magic: t.entries[0].key,
        event: false,
        last: true,
        op: NicOp::Put {
            address: 0x1000,
            get_response: false,
        },
        payload: (0..8 * (MAX_FLITS - 3))
            .map(|_| rng.bits(8) as u8)
            .collect(),
    };
    let mut flits: VecDeque<u128> = (0..40).flat_map(|_| packet(&mut rng).pack()).collect();
    let total = flits.len() as u64;
    let mut answer = false;
    let (mut taken, mut words, mut cycles, mut last_take) = (0u64, 0u64, 0u64, 0u64);
    let (mut tail_at, mut first_word_at) = (None, None);
    b.poke_bool(id("reset"), false);
    b.poke_bool(id("packets$ready"), true);
    b.poke_bool(id("lookup$ready"), true);
    b.poke_bool(id("errors$ready"), true);
    b.poke_bool(id("lookup$owned"), true);
    b.poke_bool(id("lookup$function_enabled"), true);
    b.poke_bool(id("lookup$qp_enabled"), true);
    b.poke(id("lookup$key"), t.entries[0].key as u128);
    while words < 40 * (MAX_FLITS as u64 - 3) {
        b.poke_bool(id("lookup$answered"), answer);
        answer = b.peek_bool(id("lookup$valid"));
        b.poke_bool(id("flits$valid"), !flits.is_empty());
        b.poke(id("flits$data"), flits.front().copied().unwrap_or(0));
        if b.peek_bool(id("packets$valid")) {
            words += 1;
            first_word_at.get_or_insert(cycles);
        }
        if !flits.is_empty() && b.peek_bool(id("flits$ready")) {
            let f = flits.pop_front().unwrap();
            taken += 1;
            last_take = cycles;
            if testbench::models::receive_buffer::is_tail(f) {
                tail_at.get_or_insert(cycles);
            }
        }
        b.tick();
        cycles += 1;
        assert!(cycles < 10_000, "throughput: stalled");
    }
    assert_eq!(taken, total);
    let latency = first_word_at.unwrap() - tail_at.unwrap();
    // Cycles to take every flit: the last one's cycle + 1.
    (taken, last_take + 1, latency)
}

#[test]
fn receive_buffer_matches_model() {
    let r = run_both("receive_buffer", dut, table, |b| bench(b, 81, 24_000));
    let rep = r.result;
    println!("receive_buffer: {rep:?}");
    assert!(
        rep.received > 300 && rep.crc > 5 && rep.malformed > 30,
        "{rep:?}"
    );
    assert!(
        rep.key_mismatch > 3 && rep.refused > 3 && rep.events > 3,
        "{rep:?}"
    );
    let t = run_both("receive_buffer_throughput", dut, table, throughput);
    let (flits, cycles, latency) = t.result;
    println!(
        "receive_buffer throughput: {flits} flits of 40 back-to-back 32-flit packets taken in \
         {cycles} cycles ({:.3} flits per cycle); tail taken to first word offered: {latency} cycles",
        flits as f64 / cycles as f64
    );
}
