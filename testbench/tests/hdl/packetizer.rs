//! `Packetizer` (nic::send) on both backends (`run_both` compares every output every cycle
//! between them), against the transaction model `testbench::models::packetizer`.
//!
//! The bench plays the send split and the reorder buffer: random checked descriptors of every
//! kind (NAP immediate 1..=256 bytes, NAP indirect 1..=2048, PUT 1..=3000 bytes over 1..=16
//! destination segments of random lengths and addresses, GET over 2..=32 segments so that
//! about a third do not fit one packet), with random issuers, flags, keys and tags; the record
//! offered with random gaps (fields random while `valid` is low), the `inline` words (immediate
//! data, PUT destination segments, GET segment words) and the reorder buffer's `payload` words
//! each as their own stream with random gaps; 10 % of the messages with data from the reorder
//! buffer have a failed read, flagged from a random word to the last. `flits.ready` and
//! `sends.ready` random, with phases of heavy back-pressure. `reset` at random moments
//! (`ResetSchedule`): the bench then forgets everything in flight and starts a new message.
//!
//! Checked: every packet flit for flit against `NicPacket::pack` of the model's packet (the
//! tail's CRC inverted exactly on the packets the model says a flagged word reaches), decoded
//! with `NicPacket::unpack` as well when not poisoned; `vc` over each packet; every event
//! request against the model's, in order (send events on request, `ReadFailed` for a failed
//! read whether asked or not, `GetTooLong` for a refused GET, none for a GET otherwise);
//! `stomped` and `refused` pulses counted against the model; after a reset nothing is offered;
//! everything drained at the end. Throughput: with `flits.ready` high, a packet's head follows
//! the previous tail in the next cycle (checked in a burst phase of NAP immediate messages).
//! Store and forward: inside a packet of reorder-buffer data (NAP indirect, PUT) a flit is
//! offered in every cycle, whatever the gaps of the `payload` stream.
use hdl::formats::nic::{
    Descriptor, DescriptorBody, NicPacket, Segment, IMMEDIATE_MAX_BYTES, NAP_MAX_BYTES,
};
use nic::send::Packetizer;
use std::collections::VecDeque;
use testbench::models::packetizer::{poisoned_packets, random_segments, Message, PacketizerConfig};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng, PortTable};

const CONFIG: PacketizerConfig = PacketizerConfig {
    mtu_bytes: 128,
    max_packet_flits: 32,
    data_vc: 0,
    get_vc: 2,
    node_id: 0x2a5c,
};

fn table() -> PortTable<Packetizer> {
    port_table!(Packetizer; reset, messages.valid, messages.kind, messages.function,
        messages.qp, messages.dst_node, messages.dst_function, messages.dst_qp,
        messages.remote_event, messages.local_event, messages.key, messages.tag,
        messages.length, messages.sources, messages.destinations, messages.response_key,
        messages.get_response,
        messages.ready, inline.valid, inline.word, inline.bytes, inline.last, inline.error,
        inline.ready, payload.valid, payload.word, payload.bytes, payload.last, payload.error,
        payload.ready, node_id, flits.valid, flits.data, flits.ready, vc, sends.valid,
        sends.function, sends.qp, sends.receive_ring, sends.kind, sends.status, sends.op,
        sends.peer_node, sends.peer_function, sends.peer_qp, sends.length, sends.info,
        sends.ready, stomped, refused)
}

/// Random segments summing to `total` at random addresses of 40 bits (low 3 bits random too).
fn segments(rng: &mut BenchRng, total: u64, max: u64) -> Vec<Segment> {
    random_segments(rng, total, max, |rng| rng.bits(40) as u64 | rng.range(0, 7))
}

/// A random message; `small` gives 8-byte NAP immediates (the burst phase).
fn message(rng: &mut BenchRng, small: bool) -> Message {
    let kind = if small { 0 } else { rng.range(0, 3) };
    let len = |rng: &mut BenchRng, max: u64| {
        if rng.chance(0.3) {
            rng.range(1, 24)
        } else {
            rng.range(1, max)
        }
    };
    let (body, data) = match kind {
        0 => {
            let n = if small {
                8
            } else {
                len(rng, IMMEDIATE_MAX_BYTES as u64)
            };
            let d: Vec<u8> = (0..n).map(|_| rng.bits(8) as u8).collect();
            (DescriptorBody::NapImmediate(d.clone()), d)
        }
        1 => {
            let n = len(rng, NAP_MAX_BYTES as u64);
            let body = DescriptorBody::NapIndirect {
                address: rng.bits(40) as u64,
                bytes: n as u32,
            };
            (body, (0..n).map(|_| rng.bits(8) as u8).collect())
        }
        2 => {
            let n = len(rng, 3000);
            let body = DescriptorBody::Put {
                sources: segments(rng, n, 16),
                destinations: segments(rng, n, 16),
            };
            (body, (0..n).map(|_| rng.bits(8) as u8).collect())
        }
        _ => {
            let n = rng.range(16, 5000);
            let body = DescriptorBody::Get {
                sources: segments(rng, n, 16),
                destinations: segments(rng, n, 16),
                response_key: rng.bits(32) as u32,
            };
            (body, vec![])
        }
    };
    Message {
        descriptor: Descriptor {
            dst_node: rng.bits(16) as u16,
            dst_function: rng.bits(3) as u8,
            dst_qp: rng.bits(4) as u8,
            remote_event: rng.chance(0.5),
            local_event: rng.chance(0.6),
            qp_magic: rng.bits(32) as u32,
            tag: rng.bits(32) as u32,
            body,
        },
        function: rng.bits(3) as u8,
        qp: rng.bits(4) as u8,
        get_response: rng.chance(0.3),
        data,
    }
}

/// A message on its way through the bench.
struct InFlight {
    message: Message,
    packets: VecDeque<(NicPacket, bool)>,
}

#[derive(Debug, Default, PartialEq)]
struct Report {
    messages: u64,
    packets: u64,
    flits: u64,
    poisoned_packets: u64,
    refused: u64,
    events: u64,
    back_to_back_heads: u64,
    /// Cycles inside packets of reorder-buffer data, each with a flit offered.
    streamed_flits: u64,
    resets: u64,
}

fn bench(b: &mut dyn Backend, seed: u64) -> Report {
    let what = format!("packetizer seed {seed}");
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(&n.replace('.', "$"));
    let reset = p("reset");
    let rec = [
        "messages.valid",
        "messages.kind",
        "messages.function",
        "messages.qp",
        "messages.dst_node",
        "messages.dst_function",
        "messages.dst_qp",
        "messages.remote_event",
        "messages.local_event",
        "messages.key",
        "messages.tag",
        "messages.length",
        "messages.sources",
        "messages.destinations",
        "messages.response_key",
        "messages.get_response",
        "messages.ready",
    ]
    .map(p);
    let word_ports = |s: &str| {
        ["valid", "word", "bytes", "last", "error", "ready"].map(|f| p(&format!("{s}.{f}")))
    };
    let inline = word_ports("inline");
    let payload = word_ports("payload");
    let (f_valid, f_data, f_ready, vc) =
        (p("flits.valid"), p("flits.data"), p("flits.ready"), p("vc"));
    let ev = [
        "sends.valid",
        "sends.function",
        "sends.qp",
        "sends.receive_ring",
        "sends.kind",
        "sends.status",
        "sends.op",
        "sends.peer_node",
        "sends.peer_function",
        "sends.peer_qp",
        "sends.length",
        "sends.info",
        "sends.ready",
    ]
    .map(p);
    let (stomped, refused) = (p("stomped"), p("refused"));
    b.poke(p("node_id"), CONFIG.node_id as u128);
    let mut sched = ResetSchedule::new(&mut rng, 6000);
    let mut r = Report::default();
    // Messages offered on `messages`, in order; the front is the one being packetized.
    let mut flight: VecDeque<InFlight> = VecDeque::new();
    // Inline and payload words still to offer: (word, bytes, last, error).
    let mut inline_q: VecDeque<(u64, usize, bool, bool)> = VecDeque::new();
    let mut payload_q: VecDeque<(u64, usize, bool, bool)> = VecDeque::new();
    // Events expected, in order.
    let mut events: VecDeque<_> = VecDeque::new();
    // The packet being received.
    let mut flits: Vec<u128> = vec![];
    let mut packet_vc = 0u128;
    let (mut stomps_seen, mut stomps_due) = (0u64, 0u64);
    let (mut refusals_seen, mut refusals_due) = (0u64, 0u64);
    let mut last_tail_cycle = u64::MAX;
    // Offers made and not taken (they stay: the hold rule).
    let mut held_offer = [false; 3];
    let cycles = 60_000u64;
    for k in 0..cycles + 8000 {
        let draining = k >= cycles;
        let burst = (k / 3000) % 4 == 3 && !draining;
        let at = format!("{what} cycle {k}");
        let rst = sched.next_if(&mut rng, !draining);
        if sched.released() {
            assert!(!b.peek_bool(f_valid), "{at}: flit after reset");
            assert!(!b.peek_bool(ev[0]), "{at}: event after reset");
        }
        // New messages: keep two in flight.
        while flight.len() < 2 && !draining {
            let m = message(&mut rng, burst);
            let words = m.inline_words();
            for (i, &(w, n)) in words.iter().enumerate() {
                inline_q.push_back((w, n, i + 1 == words.len(), false));
            }
            let packets = m.packets(&CONFIG);
            let mut first_error = None;
            if m.from_reorder() {
                let data_words = hdl::formats::nic::payload_words(&m.data);
                let nw = data_words.len();
                if rng.chance(0.1) {
                    first_error = Some(rng.range(0, nw as u64 - 1) as usize);
                }
                for (i, w) in data_words.into_iter().enumerate() {
                    let bytes = (m.data.len() - 8 * i).min(8);
                    let error = first_error.is_some_and(|f| i >= f);
                    payload_q.push_back((w, bytes, i + 1 == nw, error));
                }
            }
            let poison = poisoned_packets(&packets, first_error);
            let poisoned = poison.iter().any(|&x| x);
            events.extend(m.event(&CONFIG, poisoned));
            flight.push_back(InFlight {
                packets: packets.into_iter().zip(poison).collect(),
                message: m,
            });
        }
        // Drive the record (random fields while not offered).
        // The hold rule: an offer stays until taken.
        let offer = !flight.is_empty() && (held_offer[0] || burst || rng.chance(0.9));
        b.poke_bool(reset, rst);
        b.poke_bool(rec[0], offer);
        let m = match flight.front() {
            Some(f) if offer => f.message.clone(),
            _ => message(&mut rng, false),
        };
        let d = &m.descriptor;
        let (sources, destinations, response_key) = match &d.body {
            DescriptorBody::Put {
                sources,
                destinations,
            } => (sources.len(), destinations.len(), 0),
            DescriptorBody::Get {
                sources,
                destinations,
                response_key,
            } => (sources.len(), destinations.len(), *response_key),
            _ => (0, 0, 0),
        };
        let fields = [
            d.kind().code() as u128,
            m.function as u128,
            m.qp as u128,
            d.dst_node as u128,
            d.dst_function as u128,
            d.dst_qp as u128,
            d.remote_event as u128,
            d.local_event as u128,
            d.qp_magic as u128,
            d.tag as u128,
            d.length() as u128,
            sources as u128,
            destinations as u128,
            response_key as u128,
            m.get_response as u128,
        ];
        for (i, v) in fields.into_iter().enumerate() {
            b.poke(rec[1 + i], v);
        }
        // The word streams.
        let drive = |b: &mut dyn Backend,
                     ports: &[testbench::PortId; 6],
                     q: &VecDeque<(u64, usize, bool, bool)>,
                     held: bool,
                     rng: &mut BenchRng| {
            let on = !q.is_empty() && (held || burst || rng.chance(0.8));
            b.poke_bool(ports[0], on);
            let (w, n, l, e) = match q.front() {
                Some(&x) if on => x,
                _ => (
                    rng.bits(64) as u64,
                    rng.range(1, 8) as usize,
                    rng.chance(0.5),
                    rng.chance(0.5),
                ),
            };
            b.poke(ports[1], w as u128);
            b.poke(ports[2], n as u128);
            b.poke_bool(ports[3], l);
            b.poke_bool(ports[4], e);
            on
        };
        let inline_on = drive(b, &inline, &inline_q, held_offer[1], &mut rng);
        let payload_on = drive(b, &payload, &payload_q, held_offer[2], &mut rng);
        let take = burst || rng.chance(if k % 5000 < 500 { 0.15 } else { 0.85 });
        b.poke_bool(f_ready, take);
        let ev_take = burst || rng.chance(if k % 7000 < 700 { 0.05 } else { 0.7 });
        b.poke_bool(ev[12], ev_take);
        // Outputs.
        let record_taken = offer && b.peek_bool(rec[16]) && !rst;
        let inline_taken = inline_on && b.peek_bool(inline[5]) && !rst;
        let payload_taken = payload_on && b.peek_bool(payload[5]) && !rst;
        if b.peek_bool(stomped) {
            stomps_seen += 1;
        }
        if b.peek_bool(refused) {
            refusals_seen += 1;
        }
        if b.peek_bool(ev[0]) && ev_take && !rst {
            let e = events
                .pop_front()
                .unwrap_or_else(|| panic!("{at}: an event not expected"));
            let got = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map(|i| b.peek(ev[i]));
            let want = [
                e.function as u128,
                e.qp as u128,
                0,
                e.kind.code() as u128,
                e.status.code() as u128,
                e.op as u128,
                e.peer.0 as u128,
                e.peer.1 as u128,
                e.peer.2 as u128,
                e.length as u128,
                e.info as u128,
            ];
            assert_eq!(got, want, "{at}: event {e:?}");
            r.events += 1;
        }
        // Store and forward: once a head has left, a packet of reorder-buffer data never waits
        // for its payload (the bench's gaps on `payload` must not show on the flits).
        if !flits.is_empty() && !rst && flight.front().is_some_and(|f| f.message.from_reorder()) {
            assert!(b.peek_bool(f_valid), "{at}: a packet stalled half sent");
            r.streamed_flits += 1;
        }
        if b.peek_bool(f_valid) && take && !rst {
            let flit = b.peek(f_data);
            if flits.is_empty() {
                packet_vc = b.peek(vc);
                if burst && last_tail_cycle == k.wrapping_sub(1) {
                    r.back_to_back_heads += 1;
                }
            } else {
                assert_eq!(b.peek(vc), packet_vc, "{at}: vc changed within a packet");
            }
            flits.push(flit);
            r.flits += 1;
            let f = flight
                .front_mut()
                .unwrap_or_else(|| panic!("{at}: a flit with no message"));
            let (want, poisoned) = f
                .packets
                .front()
                .unwrap_or_else(|| panic!("{at}: a flit beyond the message's packets"))
                .clone();
            let mut want_flits = want.pack();
            if poisoned {
                *want_flits.last_mut().unwrap() ^= 0xffff;
            }
            let i = flits.len() - 1;
            assert!(
                i < want_flits.len(),
                "{at}: packet longer than {}",
                want_flits.len()
            );
            assert_eq!(
                flit, want_flits[i],
                "{at}: flit {i} of packet {want:?} (poisoned {poisoned})"
            );
            if i + 1 == want_flits.len() {
                assert_eq!(packet_vc, want.vc as u128, "{at}: vc");
                if !poisoned {
                    assert_eq!(
                        NicPacket::unpack(&flits).as_ref(),
                        Ok(&want),
                        "{at}: unpack"
                    );
                } else {
                    stomps_due += 1;
                    r.poisoned_packets += 1;
                }
                f.packets.pop_front();
                flits.clear();
                r.packets += 1;
                last_tail_cycle = k;
            }
        }
        held_offer = [
            offer && !record_taken,
            inline_on && !inline_taken,
            payload_on && !payload_taken,
        ];
        b.tick();
        if rst {
            held_offer = [false; 3];
            r.resets += 1;
            flight.clear();
            inline_q.clear();
            payload_q.clear();
            events.clear();
            flits.clear();
            continue;
        }
        if inline_taken {
            inline_q.pop_front();
        }
        if payload_taken {
            payload_q.pop_front();
        }
        if record_taken {
            let f = flight.pop_front().unwrap();
            assert!(f.packets.is_empty(), "{at}: record taken with packets left");
            assert!(flits.is_empty(), "{at}: record taken mid-packet");
            r.messages += 1;
            r.refused += f.message.refused(&CONFIG) as u64;
            refusals_due += f.message.refused(&CONFIG) as u64;
        }
    }
    sched.assert_pulses(&what, 5);
    assert!(
        flight.is_empty() && inline_q.is_empty() && payload_q.is_empty() && events.is_empty(),
        "{what}: not drained: {} messages, {} inline, {} payload, {} events",
        flight.len(),
        inline_q.len(),
        payload_q.len(),
        events.len()
    );
    assert_eq!(stomps_seen, stomps_due, "{what}: stomped pulses");
    assert_eq!(refusals_seen, refusals_due, "{what}: refused pulses");
    assert!(
        r.messages > 200 && r.poisoned_packets > 5 && r.refused > 10 && r.back_to_back_heads > 100,
        "{what}: {r:?}"
    );
    r
}

#[test]
fn packetizer_matches_model() {
    let r = run_both(
        "packetizer",
        || {
            Packetizer::new(
                CONFIG.mtu_bytes,
                CONFIG.max_packet_flits,
                CONFIG.data_vc,
                CONFIG.get_vc,
            )
        },
        table,
        |b| bench(b, 61),
    );
    println!("packetizer: {:?}", r.result);
}
