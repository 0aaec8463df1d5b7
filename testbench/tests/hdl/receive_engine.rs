//! The joined receive engine (`nic::receive::receive_engine::ReceiveEngine`: network intake,
//! receive buffer, dispatch, PUT upload, NAP upload with its buffer manager, GET to PUT, write
//! arbiter, lookup share) at the default shape (2 VCs, management on VC 1, 8 functions x 4
//! QPs, `max_payload` 128), on both backends, end to end: flits in on the channel, host
//! writes, events, GET responses and management flits out, checked against the packets sent.
//!
//! Traffic on the data VC (a `ChannelTx` obeying credits, random idle): PUT packets of
//! 1..=128 bytes at fresh addresses (a fifth of them GET responses, half asking for an event),
//! NAP messages of 1..=512 bytes cut at 128 (their packets back to back), GET requests over
//! 1..=3 + 1..=3 segments, and bad packets aimed at a poison region of host memory: a wrong
//! QPMagic, a disabled QP (function 5, QP 3), and broken packets (a bit flipped, `len`,
//! `bytes`, reserved bits, a management kind: `testbench::models::receive_buffer::damage`).
//! Management packets on VC 1. The bench plays the function table (lookups answered one cycle
//! after they are taken: keys, enables, NAP rings), the tag pool, software posting NAP buffers
//! (`DriverModel::post_nap_buffers`, 64-entry rings) and the host (`HostMemory`, latency 30 +
//! up to 40), with random back pressure on every output.
//!
//! Checked: every write beat inside a good PUT's range or a posted NAP buffer (never the
//! poison region); at the end every good PUT's bytes in memory; each NAP receive event equal
//! to its message's (in order), naming the QP's next posted buffer, which holds the message;
//! each PUT event (receive or GET-response send event) equal to its packet's, in order; each
//! GET response equal to `testbench::models::get_to_put::respond`; the receive buffer's error
//! events in order (a lost one only with its `PacketEventLost` pulse); management flits in
//! order; the pulses counted per reason equal to what was sent (`check` decides CRC against
//! malformed for each broken packet); nothing left over once the traffic drains.
use hdl::formats::nic::{
    Descriptor, DescriptorBody, DescriptorKind, Event, EventKind, EventStatus, NicOp, NicPacket,
    NAP_MAX_BYTES,
};
use nic::receive::nap_upload_unit::NapSettings;
use nic::receive::receive_engine::{ReceivePulse, ReceiveSettings, RECEIVE_PULSES};
use std::collections::{BTreeSet, VecDeque};
use testbench::channel_end::{ChannelPorts, ChannelTx};
use testbench::host::driver::{DriverModel, RingDriver, NAP_ENTRY_BYTES};
use testbench::host::memory::{CompletionBeat, ReadRequest, WriteBeat};
use testbench::host::{HostMemory, MemoryConfig};
use testbench::models::get_to_put::{respond, GetPacket, Response};
use testbench::models::nap_upload::nap_event;
use testbench::models::put_upload::PutPacket;
use testbench::models::receive_buffer::{check, damage, verdict, Outcome, QpEntry, TableModel};
use testbench::nic_fetch_perf::Ports;
use testbench::{port_table, run_both, Backend, BenchRng, PortTable};

type Dut = nic::receive_engine!(2, 32, 6, 5, 5);
const FUNCTIONS: usize = 8;
const QPS: usize = 4;
const MAX_FLITS: usize = 32;
const MAX_PAYLOAD: u64 = 128;
const MTU: usize = 128;
const TAGS: usize = 32;
const SLOT_WORDS: usize = 32;
const NAP_RING_LOG2: u8 = 6;
/// Packets aimed here must never be written.
const POISON: u64 = 0x7000_0000_0000;
/// The disabled QP.
const DISABLED: (usize, usize) = (5, 3);

fn make() -> Dut {
    <Dut>::new(ReceiveSettings {
        max_packet_flits: MAX_FLITS,
        mgmt_vc: 1,
        max_payload: MAX_PAYLOAD as usize,
        nap: NapSettings {
            functions: FUNCTIONS,
            qps: QPS,
            open: 4,
            timeout: 4096,
            max_payload: MAX_PAYLOAD as usize,
        },
    })
}

macro_rules! event_port {
    ($t:ident, $p:ident) => {
        port_table!(@add $t, Dut; $p.valid, $p.function, $p.qp, $p.receive_ring, $p.kind,
            $p.status, $p.op, $p.peer_node, $p.peer_function, $p.peer_qp, $p.length, $p.info,
            $p.ready)
    };
}

fn table() -> PortTable<Dut> {
    let t = port_table!(Dut; reset, channel.valid, channel.flit, channel.vc, channel.credits,
        management.valid, management.data, management.ready,
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
        writes.valid, writes.function, writes.address, writes.data, writes.enables, writes.last,
        writes.ready,
        responses.valid, responses.kind, responses.function, responses.qp,
        responses.dst_node, responses.dst_function, responses.dst_qp,
        responses.remote_event, responses.local_event, responses.key, responses.tag,
        responses.length, responses.sources, responses.destinations,
        responses.response_key, responses.get_response, responses.word, responses.last,
        responses.ready,
        pulses);
    let t = event_port!(t, put_events);
    let t = event_port!(t, nap_events);
    let t = event_port!(t, nap_errors);
    let t = event_port!(t, packet_errors);
    event_port!(t, get_errors)
}

/// The event ports, and their fields after `valid` (`ready` apart), in port order.
const EVENT_PORTS: [&str; 5] = [
    "put_events",
    "nap_events",
    "nap_errors",
    "packet_errors",
    "get_errors",
];
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
const LOOKUP_FIELDS: [&str; 17] = [
    "owned",
    "function_enabled",
    "qp_enabled",
    "key",
    "interrupt",
    "send_base",
    "send_size",
    "send_producer",
    "send_consumer",
    "receive_base",
    "receive_size",
    "receive_producer",
    "receive_consumer",
    "nap_base",
    "nap_size",
    "nap_producer",
    "nap_consumer",
];

/// An event as its port shows it.
fn event_values(function: u8, qp: u8, receive_ring: bool, e: &Event) -> Vec<u128> {
    vec![
        function as u128,
        qp as u128,
        receive_ring as u128,
        e.kind.code() as u128,
        e.status.code() as u128,
        e.op as u128,
        e.peer_node as u128,
        e.peer_function as u128,
        e.peer_qp as u128,
        e.length as u128,
        e.info as u128,
    ]
}

/// A GET response's word `i` as the ports show it.
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

/// The bench's side of the function table and software.
struct Host {
    keys: [[u32; QPS]; FUNCTIONS],
    driver: DriverModel,
    /// The NIC's NAP consumer per QP.
    consumer: [[u16; QPS]; FUNCTIONS],
    /// Buffers posted and not yet used by a message, in ring order: (ring index, address).
    posted: Vec<Vec<VecDeque<(u16, u64)>>>,
    /// Byte ranges writes may touch.
    allowed: Vec<(u64, u64)>,
    memory: HostMemory,
}

impl Host {
    fn enabled(f: usize, q: usize) -> bool {
        (f, q) != DISABLED
    }
    fn ring(&self, f: usize, q: usize) -> RingDriver {
        self.driver.qp[f][q].rings[nic::regs::Ring::NapBuffers as usize]
    }
    /// Software posts buffers while the ring has room.
    fn post(&mut self, f: usize, q: usize, n: usize) {
        for _ in 0..n {
            let r = self.ring(f, q);
            if r.pointer.wrapping_sub(self.consumer[f][q]) as u64 >= r.entries() {
                return;
            }
            let _ = self.driver.post_nap_buffers(&mut self.memory.mem, f, q, 1);
            let index = (r.pointer as u64 % r.entries()) as u16;
            let buffer = self.driver.qp[f][q].buffers[&(index as u64)];
            self.posted[f][q].push_back((index, buffer));
            self.allowed.push((buffer, buffer + NAP_MAX_BYTES as u64));
        }
    }
    /// The lookup answer's fields for (f, q).
    fn answer(&self, rng: &mut BenchRng, f: usize, q: usize) -> Vec<u128> {
        let owned = f < FUNCTIONS && q < QPS;
        let mut v: Vec<u128> = LOOKUP_FIELDS.iter().map(|_| rng.bits(16)).collect();
        v[0] = owned as u128;
        v[1] = owned as u128;
        if owned {
            let r = self.ring(f, q);
            v[2] = Self::enabled(f, q) as u128;
            v[3] = self.keys[f][q] as u128;
            v[13] = r.base as u128;
            v[14] = r.log2 as u128;
            v[15] = r.pointer as u128;
            v[16] = self.consumer[f][q] as u128;
        } else {
            v[2] = 0;
        }
        v
    }
}

/// A NAP message sent: its target (f, q), its event's values (`info` filled in when the event
/// names its buffer), its data.
type NapMessage = ((usize, usize), Vec<u128>, Vec<u8>);

/// What the bench expects to come out.
#[derive(Default)]
struct Expected {
    /// Good PUTs: address, bytes.
    puts: Vec<(u64, Vec<u8>)>,
    put_events: VecDeque<Vec<u128>>,
    naps: VecDeque<NapMessage>,
    responses: VecDeque<Response>,
    packet_errors: VecDeque<Vec<u128>>,
    management: VecDeque<u128>,
    pulses: [u64; RECEIVE_PULSES],
}

/// A random source (node, function, QP).
fn source(rng: &mut BenchRng) -> (u16, u8, u8) {
    (rng.bits(16) as u16, rng.bits(3) as u8, rng.bits(4) as u8)
}

fn packet(
    rng: &mut BenchRng,
    target: (usize, usize),
    key: u32,
    op: NicOp,
    payload: Vec<u8>,
) -> NicPacket {
    let (node, function, qp) = source(rng);
    NicPacket {
        dst_node: rng.bits(16) as u16,
        src_node: node,
        vc: 0,
        src_function: function,
        src_qp: qp,
        dst_function: target.0 as u8,
        dst_qp: target.1 as u8,
        qp_magic: key,
        event: rng.chance(0.5),
        last: true,
        op,
        payload,
    }
}

fn bytes(rng: &mut BenchRng, n: u64) -> Vec<u8> {
    (0..n).map(|_| rng.bits(8) as u8).collect()
}

/// The next item of data traffic: its packets' flits; what it must do goes into `x`.
fn data_item(
    rng: &mut BenchRng,
    host: &mut Host,
    x: &mut Expected,
    heap: &mut u64,
) -> Vec<Vec<u128>> {
    let target = |rng: &mut BenchRng| {
        (
            rng.range(0, FUNCTIONS as u64 - 1) as usize,
            rng.range(0, QPS as u64 - 1) as usize,
        )
    };
    let mut t = target(rng);
    while !Host::enabled(t.0, t.1) {
        t = target(rng);
    }
    let key = host.keys[t.0][t.1];
    let roll = rng.range(0, 99);
    let good = |x: &mut Expected| x.pulses[ReceivePulse::Received.bit()] += 1;
    if roll < 35 {
        let n = rng.range(1, MTU as u64);
        let address = *heap + rng.range(0, 15);
        *heap += 4096;
        let get_response = rng.chance(0.2);
        let payload = bytes(rng, n);
        let p = packet(
            rng,
            t,
            key,
            NicOp::Put {
                address,
                get_response,
            },
            payload,
        );
        good(x);
        host.allowed.push((address, address + n));
        x.puts.push((address, p.payload.clone()));
        let put = PutPacket {
            src_node: p.src_node,
            src_function: p.src_function,
            src_qp: p.src_qp,
            dst_function: p.dst_function,
            dst_qp: p.dst_qp,
            address,
            data: p.payload.clone(),
            event: p.event,
            message_last: p.last,
            get_response,
        };
        if let Some(e) = put.event() {
            x.put_events
                .push_back(event_values(e.function, e.qp, e.receive_ring, &e.event));
        }
        vec![p.pack()]
    } else if roll < 60 {
        let length = rng.range(1, 512) as usize;
        let data = bytes(rng, length as u64);
        let (node, function, qp) = source(rng);
        let mut packets = vec![];
        for (i, chunk) in data.chunks(MTU).enumerate() {
            let mut p = packet(
                rng,
                t,
                key,
                NicOp::Nap {
                    offset: (i * MTU) as u16,
                    message_bytes: length as u16,
                },
                chunk.to_vec(),
            );
            (p.src_node, p.src_function, p.src_qp, p.event) = (node, function, qp, true);
            p.last = (i + 1) * MTU >= length;
            good(x);
            packets.push(p.pack());
        }
        // `info` (the buffer's ring index) is filled in when the event names its buffer.
        let e = nap_event(
            (node, function, qp, t.0 as u8, t.1 as u8),
            EventKind::Receive,
            EventStatus::Ok,
            length as u32,
            0,
        );
        x.naps
            .push_back((t, event_values(e.function, e.qp, true, &e.event), data));
        x.pulses[ReceivePulse::NapDelivered.bit()] += 1;
        packets
    } else if roll < 72 {
        let total = rng.range(1, 100_000);
        let segments = |rng: &mut BenchRng| {
            testbench::models::packetizer::random_segments(rng, total, 3, |rng| rng.bits(40) as u64)
        };
        let d = Descriptor {
            dst_node: 0,
            dst_function: t.0 as u8,
            dst_qp: t.1 as u8,
            remote_event: false,
            local_event: false,
            qp_magic: key,
            tag: 0,
            body: DescriptorBody::Get {
                sources: segments(rng),
                destinations: segments(rng),
                response_key: rng.bits(32) as u32,
            },
        };
        let words = d.get_body().expect("a GET");
        let payload: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let p = packet(rng, t, key, NicOp::Get, payload);
        good(x);
        let g = GetPacket {
            src_node: p.src_node,
            src_function: p.src_function,
            src_qp: p.src_qp,
            dst_function: p.dst_function,
            dst_qp: p.dst_qp,
            event: p.event,
            bytes: (8 * words.len()) as u16,
            words,
        };
        x.responses
            .push_back(respond(&g, SLOT_WORDS).expect("a good GET"));
        vec![p.pack()]
    } else {
        // Bad packets, aimed at the poison region.
        let n = rng.range(1, MTU as u64);
        let op = NicOp::Put {
            address: POISON + rng.range(0, 0xFFFF),
            get_response: false,
        };
        let (t, key, broken) = match roll {
            72..=81 => (t, key ^ (1 << rng.range(0, 31)), false),
            82..=87 => (DISABLED, host.keys[DISABLED.0][DISABLED.1], false),
            _ => (t, key, true),
        };
        let payload = bytes(rng, n);
        let p = packet(rng, t, key, op, payload);
        let mut flits = p.pack();
        if broken {
            // A damage that happens to leave a well-formed packet is tried again.
            let good = flits.clone();
            loop {
                // A bit flip (kept off the head and tail marks, bits 62 and 63, which would
                // cut the packet in two segments), `len`, a management kind, reserved bits,
                // `bytes`: each leaves one segment, so one drop.
                let which = [0usize, 3, 4, 6, 7][rng.range(0, 4) as usize];
                flits = if which == 0 {
                    let mut f = good.clone();
                    let i = rng.range(0, f.len() as u64 - 1) as usize;
                    f[i] ^= 1 << rng.range(0, 61);
                    f
                } else {
                    damage(rng, &good, which)
                };
                if check(&flits, MAX_FLITS).is_err() {
                    break;
                }
            }
        }
        let table = TableModel {
            functions: FUNCTIONS,
            qps: QPS,
            entries: (0..FUNCTIONS)
                .flat_map(|f| (0..QPS).map(move |q| (f, q)))
                .map(|(f, q)| QpEntry {
                    function_enabled: true,
                    qp_enabled: Host::enabled(f, q),
                    key: host.keys[f][q],
                })
                .collect(),
        };
        let outcome = match check(&flits, MAX_FLITS) {
            Ok((p, delay)) => verdict(p, delay, &table),
            Err(o) => o,
        };
        let reason = match &outcome {
            Outcome::Crc => ReceivePulse::CrcError,
            Outcome::Malformed => ReceivePulse::Malformed,
            Outcome::KeyMismatch(_) => ReceivePulse::KeyMismatch,
            Outcome::TargetRefused(_) => ReceivePulse::TargetRefused,
            Outcome::Received(..) => panic!("a bad packet passes: {outcome:?}"),
        };
        x.pulses[reason.bit()] += 1;
        if let Some(e) = outcome.event() {
            let ev = Event {
                kind: EventKind::Error,
                status: e.status,
                op: e.op,
                qp: e.qp,
                peer_node: e.peer.0,
                peer_function: e.peer.1,
                peer_qp: e.peer.2,
                length: e.length,
                info: 0,
                phase: false,
            };
            x.packet_errors
                .push_back(event_values(e.function, e.qp, true, &ev));
        }
        vec![flits]
    }
}

/// The values of `fields` of bundle `prefix`, in order.
fn peek_all(b: &mut dyn Backend, p: &Ports, prefix: &str, fields: &[&str]) -> Vec<u128> {
    fields
        .iter()
        .map(|f| b.peek(p.id(&format!("{prefix}${f}"))))
        .collect()
}

#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Report {
    cycles: u64,
    items: u64,
    flits: u64,
    puts: u64,
    naps: u64,
    gets: u64,
    bad: u64,
    writes: u64,
    lost_errors: u64,
}

fn bench(b: &mut dyn Backend, seed: u64, items: u64) -> Report {
    let what = format!("receive_engine seed {seed}");
    let mut rng = BenchRng::new(seed);
    let p = Ports::new(b);
    let id = |n: &str| p.id(n);
    let mut host = Host {
        keys: [[0; QPS]; FUNCTIONS],
        driver: DriverModel::new(FUNCTIONS, QPS, 0x1000_0000),
        consumer: [[0; QPS]; FUNCTIONS],
        posted: vec![vec![VecDeque::new(); QPS]; FUNCTIONS],
        allowed: vec![],
        memory: HostMemory::new(MemoryConfig {
            latency: 30,
            jitter: 40,
            tags: TAGS,
            max_payload: MAX_PAYLOAD,
            ..MemoryConfig::default()
        }),
    };
    for f in 0..FUNCTIONS {
        for q in 0..QPS {
            host.keys[f][q] = rng.bits(32) as u32;
            let base = host.driver.alloc(NAP_ENTRY_BYTES << NAP_RING_LOG2, 64);
            host.driver.qp[f][q].rings[nic::regs::Ring::NapBuffers as usize] = RingDriver {
                base,
                log2: NAP_RING_LOG2,
                pointer: 0,
            };
            host.post(f, q, 16);
        }
    }
    let mut heap = 0x2_0000_0000u64;
    let mut x = Expected::default();
    b.poke_bool(id("reset"), true);
    b.tick();
    b.poke_bool(id("reset"), false);
    let mut tx = ChannelTx::new(ChannelPorts::new(b, "channel"), 2, MAX_FLITS, 0.8);
    let mut free_tags: BTreeSet<u8> = (0..TAGS as u8).collect();
    let mut asked: Option<(usize, usize)> = None;
    let mut pulses = [0u64; RECEIVE_PULSES];
    let mut r = Report::default();
    let mut sent_items = 0u64;
    let mut response_word = 0usize;
    let mut idle = 0u64;
    let mut k = 0u64;
    loop {
        // Traffic: keep a few packets queued per VC.
        while sent_items < items && tx.queues[0].len() < 4 {
            let packets = data_item(&mut rng, &mut host, &mut x, &mut heap);
            sent_items += 1;
            tx.queues[0].extend(packets);
        }
        if sent_items < items && tx.queues[1].len() < 2 && rng.chance(0.05) {
            let t = (rng.range(0, 7) as usize, rng.range(0, 3) as usize);
            let n = rng.range(1, 64);
            let payload = bytes(&mut rng, n);
            let m = packet(
                &mut rng,
                t,
                0,
                NicOp::Put {
                    address: 0,
                    get_response: false,
                },
                payload,
            );
            let flits = m.pack();
            x.management.extend(&flits);
            tx.queues[1].push_back(flits);
        }
        if rng.chance(0.02) {
            let (f, q) = (
                rng.range(0, FUNCTIONS as u64 - 1) as usize,
                rng.range(0, QPS as u64 - 1) as usize,
            );
            host.post(f, q, 8);
        }
        r.flits += tx.drive(b, &mut rng, false).is_some() as u64;
        // The host, the table, the pool, the consumers of every output.
        let ready = |rng: &mut BenchRng| rng.chance(0.75);
        let lookup_ready = ready(&mut rng);
        b.poke_bool(id("lookup$ready"), lookup_ready);
        b.poke_bool(id("lookup$answered"), asked.is_some());
        let answer = match asked {
            Some((f, q)) => host.answer(&mut rng, f, q),
            None => LOOKUP_FIELDS.iter().map(|_| rng.bits(16)).collect(),
        };
        for (f, v) in LOOKUP_FIELDS.iter().zip(&answer) {
            let port = id(&format!("lookup${f}"));
            let w = b.width(port);
            b.poke(port, v & ((1u128 << w) - 1));
        }
        let offered_tag = free_tags.first().copied();
        b.poke_bool(id("tag_alloc$valid"), offered_tag.is_some());
        b.poke(id("tag_alloc$tag"), offered_tag.unwrap_or(0) as u128);
        let read_ready = ready(&mut rng);
        b.poke_bool(id("read$ready"), read_ready);
        let beat = host.memory.offer(k, &mut rng);
        b.poke_bool(id("completion$valid"), beat.is_some());
        let shown = beat.unwrap_or(CompletionBeat {
            tag: 0,
            data: rng.bits(128),
            last: false,
            error: false,
        });
        b.poke(id("completion$tag"), shown.tag as u128);
        b.poke(id("completion$data"), shown.data);
        b.poke_bool(id("completion$last"), shown.last);
        b.poke_bool(id("completion$error"), shown.error);
        let writes_ready = ready(&mut rng);
        b.poke_bool(id("writes$ready"), writes_ready);
        let responses_ready = ready(&mut rng);
        b.poke_bool(id("responses$ready"), responses_ready);
        let management_ready = ready(&mut rng);
        b.poke_bool(id("management$ready"), management_ready);
        let event_ready: Vec<bool> = EVENT_PORTS.iter().map(|_| ready(&mut rng)).collect();
        for (port, &on) in EVENT_PORTS.iter().zip(&event_ready) {
            b.poke_bool(id(&format!("{port}$ready")), on);
        }

        // What moves on this edge.
        let mut moved = false;
        tx.collect(b);
        if beat.is_some() {
            host.memory.taken();
            moved = true;
        }
        if b.peek_bool(id("tag_free$valid")) {
            free_tags.insert(b.peek(id("tag_free$tag")) as u8);
        }
        if let (Some(tag), true) = (offered_tag, b.peek_bool(id("tag_alloc$ready"))) {
            free_tags.remove(&tag);
        }
        if b.peek_bool(id("advance$valid")) {
            let (f, q) = (
                b.peek(id("advance$function")) as usize,
                b.peek(id("advance$qp")) as usize,
            );
            host.consumer[f][q] = host.consumer[f][q].wrapping_add(1);
        }
        if b.peek_bool(id("read$valid")) && read_ready {
            let req = ReadRequest::peek(b, id, "read");
            host.memory.request(k, req, &mut rng);
            moved = true;
        }
        asked = None;
        if b.peek_bool(id("lookup$valid")) && lookup_ready {
            asked = Some((
                b.peek(id("lookup$function")) as usize,
                b.peek(id("lookup$qp")) as usize,
            ));
        }
        if b.peek_bool(id("writes$valid")) && writes_ready {
            let w = WriteBeat::peek(b, id, "writes");
            for i in 0..16 {
                if w.enables >> i & 1 == 1 {
                    let a = w.address + i;
                    assert!(
                        host.allowed.iter().any(|&(lo, hi)| (lo..hi).contains(&a)),
                        "{what} cycle {k}: a write to {a:#x}, no good packet's (beat {w:?})"
                    );
                }
            }
            host.memory.write_beat(k, w);
            r.writes += 1;
            moved = true;
        }
        if b.peek_bool(id("management$valid")) && management_ready {
            let flit = b.peek(id("management$data"));
            assert_eq!(
                Some(flit),
                x.management.pop_front(),
                "{what} cycle {k}: management flit"
            );
            moved = true;
        }
        if b.peek_bool(id("responses$valid")) && responses_ready {
            let got = peek_all(b, &p, "responses", &RESPONSE_FIELDS);
            let front = x
                .responses
                .front()
                .unwrap_or_else(|| panic!("{what} cycle {k}: a response nobody asked for"));
            assert_eq!(
                got,
                response_values(front, response_word),
                "{what} cycle {k}: GET response word {response_word}"
            );
            response_word += 1;
            if response_word == front.words.len() {
                x.responses.pop_front();
                response_word = 0;
                r.gets += 1;
            }
            moved = true;
        }
        for (port, &on) in EVENT_PORTS.iter().zip(&event_ready) {
            if !(on && b.peek_bool(id(&format!("{port}$valid")))) {
                continue;
            }
            moved = true;
            let got = peek_all(b, &p, port, &EVENT_FIELDS);
            match *port {
                "put_events" => {
                    let want = x.put_events.pop_front();
                    assert_eq!(Some(got), want, "{what} cycle {k}: PUT event");
                }
                "nap_events" => {
                    let (t, mut want, data) = x
                        .naps
                        .pop_front()
                        .unwrap_or_else(|| panic!("{what} cycle {k}: a NAP event of nothing"));
                    let (index, buffer) = host.posted[t.0][t.1]
                        .pop_front()
                        .unwrap_or_else(|| panic!("{what} cycle {k}: no buffer posted"));
                    want[10] = index as u128;
                    assert_eq!(got, want, "{what} cycle {k}: NAP event");
                    assert_eq!(
                        host.memory.mem.read(buffer, data.len()),
                        data,
                        "{what} cycle {k}: NAP message in buffer {buffer:#x}"
                    );
                    r.naps += 1;
                }
                "packet_errors" => {
                    // An event lost to a full slot is skipped (its pulse is counted).
                    let mut skipped = 0;
                    while x.packet_errors.front().is_some_and(|e| *e != got) {
                        x.packet_errors.pop_front();
                        skipped += 1;
                    }
                    assert!(
                        x.packet_errors.pop_front().is_some(),
                        "{what} cycle {k}: an error event not expected: {got:?}"
                    );
                    r.lost_errors += skipped;
                }
                other => panic!("{what} cycle {k}: an event on {other}: {got:?}"),
            }
        }
        let bits = b.peek(id("pulses"));
        for (i, count) in pulses.iter_mut().enumerate() {
            *count += (bits >> i & 1) as u64;
        }
        b.tick();
        k += 1;
        idle = if moved || tx.backlog() > 0 {
            0
        } else {
            idle + 1
        };
        if sent_items == items && tx.backlog() == 0 && idle > 2_000 {
            break;
        }
        assert!(
            k < 400 * items + 20_000,
            "{what}: still running at cycle {k}"
        );
    }
    r.cycles = k;
    r.items = items;
    r.lost_errors += x.packet_errors.len() as u64;
    // Everything out, every good PUT in memory, every pulse counted.
    assert!(x.put_events.is_empty(), "{what}: PUT events missing");
    assert!(
        x.naps.is_empty(),
        "{what}: {} NAP messages missing",
        x.naps.len()
    );
    assert!(x.responses.is_empty(), "{what}: GET responses missing");
    assert!(x.management.is_empty(), "{what}: management flits missing");
    for (address, data) in &x.puts {
        assert_eq!(
            &host.memory.mem.read(*address, data.len()),
            data,
            "{what}: PUT at {address:#x}"
        );
    }
    r.puts = x.puts.len() as u64;
    x.pulses[ReceivePulse::PacketEventLost.bit()] = r.lost_errors;
    r.bad = [
        ReceivePulse::CrcError,
        ReceivePulse::Malformed,
        ReceivePulse::KeyMismatch,
        ReceivePulse::TargetRefused,
    ]
    .iter()
    .map(|p| x.pulses[p.bit()])
    .sum();
    for reason in ReceivePulse::ALL {
        assert_eq!(
            pulses[reason.bit()],
            x.pulses[reason.bit()],
            "{what}: pulses of {reason:?}"
        );
    }
    r
}

#[test]
fn receive_engine_delivers_end_to_end() {
    let r = run_both("receive_engine", make, table, |b| bench(b, 41, 1500));
    let r = r.result;
    println!("receive_engine: {r:?}");
    assert!(
        r.puts > 300 && r.naps > 250 && r.gets > 100 && r.bad > 200,
        "{r:?}"
    );
}
