//! The joined send engine (`nic::send::SendEngine`) driven against the host-memory model, with
//! a scoreboard: the `nic_send` bench (random traffic, both backends) and `bench nic`'s send
//! figures (bandwidth, message rate, the engine's own latency) both run [`run`].
//!
//! The harness offers doorbells in order (the hold rule), answers each QP lookup one cycle
//! after it is taken (every QP owned and enabled: isolation is the fetch's bench's subject),
//! serves reads from [`HostMemory`] (latency, jitter, 64-byte splits, completions reordered
//! across tags, failing ranges), and takes flits, error events and send events with random
//! readiness. Every descriptor ends as expected: a malformed one as an error event with the
//! status `Descriptor::unpack` names; a good one as its packets, flit for flit against the
//! packetizer's model (`models::packetizer`) over the bytes in host memory, and its send event.
//! A message whose data overlaps a failing range must end with its last packet stomped (CRC
//! wrong) and a `ReadFailed` event; its payload is not compared. Inside a packet of host-memory
//! data (NAP indirect, PUT) a flit is offered in every cycle (store and forward). At the end every tag is back
//! in the pool and no stray, overrun or bad free was seen.
//!
//! **GET responses** ([`ResponsePost`]): PUT descriptors offered on the engine's `responses`
//! input beside the doorbells (word by word, held until taken, random gaps), as the receive
//! engine's `GetToPut` offers them. The engine merges them with the fetch's descriptors whole,
//! so messages leave in an order the bench cannot know in advance: each message's first flit
//! (its head's destination node: below `0x8000` for doorbells, `0x8000` and above for
//! responses, as the bench generates them) says which stream's next message it starts, and
//! every flit of it is then checked against that message's packets (PUT kind, `get_response`
//! set, the response's key and destination, the data read from host memory). A merge that
//! interleaved two descriptors' words would garble both messages' packets. Each read request
//! inside a response's source segments must carry the response's `function` (the GET's
//! target, whose memory is read).
use crate::backend::Backend;
use crate::host::memory::ReadRequest;
use crate::host::HostMemory;
use crate::models::packetizer::{Message, PacketizerConfig};
use crate::nic_fetch_perf::Ports;
use crate::port_table;
use crate::rhdl::PortTable;
use crate::rng::BenchRng;
use hdl::formats::nic::{Descriptor, DescriptorBody, Doorbell, EventStatus, NicPacket, Segment};
use hdl::formats::Flit;
use nic::send::{SendEngine, SendSettings};
use std::collections::{HashMap, VecDeque};

/// The device: 4 descriptor slots.
pub type Engine = SendEngine<2, 7>;

/// The default settings at `mtu_bytes` (`max_packet_flits` just holds a full packet when
/// above the default 32).
pub fn settings(mtu_bytes: usize, tags: usize) -> SendSettings {
    SendSettings {
        tags,
        max_read_request: 512,
        mtu_bytes,
        max_packet_flits: (mtu_bytes / 8 + 3).max(32),
        data_vc: 0,
        get_vc: 2,
    }
}

/// The packetizer model's view of `s`.
pub fn model_config(s: &SendSettings, node_id: u16) -> PacketizerConfig {
    PacketizerConfig {
        mtu_bytes: s.mtu_bytes,
        max_packet_flits: s.max_packet_flits,
        data_vc: s.data_vc,
        get_vc: s.get_vc,
        node_id,
    }
}

/// Every port of [`Engine`].
pub fn table() -> PortTable<Engine> {
    port_table!(Engine; reset,
        doorbell.valid, doorbell.function, doorbell.word, doorbell.ready,
        responses.valid, responses.kind, responses.function, responses.qp, responses.dst_node,
        responses.dst_function, responses.dst_qp, responses.remote_event,
        responses.local_event, responses.key, responses.tag, responses.length,
        responses.sources, responses.destinations, responses.response_key,
        responses.get_response, responses.word, responses.last, responses.ready,
        lookup.valid, lookup.function, lookup.qp, lookup.ready, lookup.answered, lookup.owned,
        lookup.function_enabled, lookup.qp_enabled, lookup.key, lookup.interrupt,
        lookup.send_base, lookup.send_size, lookup.send_producer, lookup.send_consumer,
        lookup.receive_base, lookup.receive_size, lookup.receive_producer,
        lookup.receive_consumer, lookup.nap_base, lookup.nap_size, lookup.nap_producer,
        lookup.nap_consumer,
        nap_tags.valid, nap_tags.tag, nap_tags.ready, nap_tags.owner,
        nap_tag_free.valid, nap_tag_free.tag,
        nap_read.valid, nap_read.function, nap_read.address, nap_read.bytes, nap_read.tag,
        nap_read.ready, nap_completion.valid, nap_completion.tag, nap_completion.data,
        nap_completion.last, nap_completion.error, nap_completion.ready,
        read.valid, read.function, read.address, read.bytes, read.tag, read.ready,
        completion.valid, completion.tag, completion.data, completion.last, completion.error,
        completion.ready, node_id, flits.valid, flits.data, flits.ready, vc,
        errors.valid, errors.function, errors.qp, errors.status, errors.op, errors.tag,
        errors.peer_node, errors.peer_function, errors.peer_qp, errors.length, errors.ready,
        sends.valid, sends.function, sends.qp, sends.receive_ring, sends.kind, sends.status,
        sends.op, sends.peer_node, sends.peer_function, sends.peer_qp, sends.length,
        sends.info, sends.ready,
        stray, overrun, bad_free, stomped, refused, tags_in_use,
        charge.valid, charge.function, charge.bytes)
}

/// One doorbell of a run and what it must give.
#[derive(Clone, Debug)]
pub struct Post {
    /// Issuing function.
    pub function: u8,
    /// Issuing QP.
    pub qp: u8,
    /// The descriptor's words as written to host memory.
    pub words: Vec<u64>,
}

/// One GET response (a PUT descriptor with `get_response`) offered on `responses`.
#[derive(Clone, Debug)]
pub struct ResponsePost {
    /// The PUT descriptor (`local_event` false, `tag` 0; `dst_node` at or above `0x8000`).
    pub descriptor: Descriptor,
    /// Issuing function and QP: the GET's target, whose memory is read.
    pub function: u8,
    /// See `function`.
    pub qp: u8,
}

/// How a run drives the engine.
#[derive(Clone, Debug)]
pub struct Drive {
    /// Probabilities that `flits.ready`, `sends.ready` / `errors.ready`, `read.ready` and the
    /// lookup's `ready` are high in a cycle.
    pub flit_ready: f64,
    /// As above, for the event outputs.
    pub event_ready: f64,
    /// As above, for read requests.
    pub read_ready: f64,
    /// Cycles a run may take before it counts as a hang.
    pub limit: u64,
    /// This NIC's node.
    pub node_id: u16,
}

/// What a run saw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// Cycles until everything was out.
    pub cycles: u64,
    /// Messages sent, error events, send events.
    pub messages: u64,
    /// Error events of refused descriptors.
    pub errors: u64,
    /// Send and error events of messages.
    pub sends: u64,
    /// Packets and flits.
    pub packets: u64,
    /// Flits.
    pub flits: u64,
    /// Payload bytes in good packets.
    pub payload_bytes: u64,
    /// Stomped packets.
    pub stomped: u64,
    /// Per message: when its doorbell was taken and its flits left.
    pub timeline: Vec<MessageTimes>,
    /// Per read request: (taken, first beat taken) cycles, in order.
    pub reads: Vec<(u64, u64)>,
    /// GET responses sent (all their packets checked).
    pub responses: u64,
}

/// A good message in flight at the scoreboard.
struct Expected {
    message: Message,
    packets: VecDeque<NicPacket>,
    failed: bool,
    post: usize,
    first_flit: Option<u64>,
    first_payload: Option<u64>,
}

/// When a message's doorbell was taken and its flits left (cycles).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MessageTimes {
    /// The doorbell taken.
    pub taken: u64,
    /// The first packet's head.
    pub first_flit: u64,
    /// The first packet's first payload flit.
    pub first_payload: u64,
    /// The last packet's tail.
    pub last_flit: u64,
}

/// Descriptor data for `d` from host memory (NAP immediate: its data; GET: none).
pub fn message_data(mem: &HostMemory, d: &Descriptor) -> Vec<u8> {
    match &d.body {
        DescriptorBody::NapImmediate(v) => v.clone(),
        DescriptorBody::NapIndirect { address, bytes } => mem.mem.read(*address, *bytes as usize),
        DescriptorBody::Put { sources, .. } => sources
            .iter()
            .flat_map(|s| mem.mem.read(s.address, s.bytes as usize))
            .collect(),
        DescriptorBody::Get { .. } => vec![],
    }
}

/// The data ranges a descriptor reads.
fn read_ranges(d: &Descriptor) -> Vec<(u64, u64)> {
    match &d.body {
        DescriptorBody::NapIndirect { address, bytes } => vec![(*address, address + *bytes as u64)],
        DescriptorBody::Put { sources, .. } => sources
            .iter()
            .map(|s: &Segment| (s.address, s.address + s.bytes as u64))
            .collect(),
        _ => vec![],
    }
}

/// Runs `posts` (descriptors already in `mem` at `addresses`) through `b` with `drive`,
/// checking everything; panics with the cycle on any mismatch or a hang.
#[allow(clippy::too_many_arguments)]
pub fn run(
    b: &mut dyn Backend,
    s: &SendSettings,
    mem: &mut HostMemory,
    posts: &[Post],
    addresses: &[u64],
    responses: &[ResponsePost],
    drive: &Drive,
    rng: &mut BenchRng,
) -> Outcome {
    let p = Ports::new(b);
    let id = |n: &str| p.id(&n.replace('.', "$"));
    let cfg = model_config(s, drive.node_id);
    // The expected outcome of each post, in order.
    let mut expected: VecDeque<Expected> = VecDeque::new();
    let mut errors: VecDeque<(usize, EventStatus)> = VecDeque::new();
    let mut sends = VecDeque::new();
    // Every good descriptor charges its function its bytes as it leaves the fetch, in order.
    let mut charges: VecDeque<(u8, u64)> = VecDeque::new();
    for (i, post) in posts.iter().enumerate() {
        match Descriptor::unpack(&post.words) {
            Err(e) => errors.push_back((i, EventStatus::from(e))),
            Ok(d) => {
                charges.push_back((post.function, d.length()));
                let failed = read_ranges(&d)
                    .iter()
                    .any(|&(a, e)| mem.poisoned.iter().any(|&(ps, pe)| a < pe && ps < e));
                let message = Message {
                    data: message_data(mem, &d),
                    descriptor: d,
                    function: post.function,
                    qp: post.qp,
                    get_response: false,
                };
                sends.extend(message.event(&cfg, failed));
                expected.push_back(Expected {
                    packets: message.packets(&cfg).into(),
                    message,
                    failed,
                    post: i,
                    first_flit: None,
                    first_payload: None,
                });
            }
        }
    }
    // The responses' messages, and which function may read each one's source segments.
    let mut answers: VecDeque<Expected> = VecDeque::new();
    let mut answer_reads: Vec<(u64, u64, u8)> = vec![];
    for r in responses {
        let d = r.descriptor.clone();
        assert!(
            d.dst_node >= 0x8000 && !d.local_event,
            "a response's descriptor: {d:?}"
        );
        answer_reads.extend(read_ranges(&d).into_iter().map(|(a, e)| (a, e, r.function)));
        let message = Message {
            data: message_data(mem, &d),
            descriptor: d,
            function: r.function,
            qp: r.qp,
            get_response: true,
        };
        answers.push_back(Expected {
            packets: message.packets(&cfg).into(),
            message,
            failed: false,
            post: usize::MAX,
            first_flit: None,
            first_payload: None,
        });
    }
    // The response being offered: index and word.
    let (mut next_response, mut response_word) = (0usize, 0usize);
    let mut response_offered = false;
    // The stream of the message in progress: `Some(true)` a response.
    let mut active: Option<bool> = None;
    let total_sends = sends.len();
    let mut out = Outcome {
        timeline: vec![MessageTimes::default(); posts.len()],
        ..Default::default()
    };
    let mut taken_at = vec![0u64; posts.len()];
    b.poke(id("node_id"), drive.node_id as u128);
    b.poke_bool(id("reset"), true);
    b.tick();
    b.poke_bool(id("reset"), false);
    let mut next_post = 0usize;
    let mut answer_next = false;
    let mut flits: Vec<u128> = vec![];
    let mut packet_vc = 0u128;
    // Read requests in flight: tag -> index in `out.reads`.
    let mut open_reads: HashMap<u8, usize> = HashMap::new();
    let (mut stomps_seen, mut stomps_due) = (0u64, 0u64);
    let mut k = 0u64;
    loop {
        let done = next_post == posts.len()
            && next_response == responses.len()
            && answers.is_empty()
            && expected.is_empty()
            && errors.is_empty()
            && sends.is_empty()
            && mem.tags_in_flight() == 0;
        if done {
            break;
        }
        assert!(k < drive.limit, "nic_send: hang at cycle {k}: {} messages, {} errors, {} events left, next post {next_post}", expected.len(), errors.len(), sends.len());
        // Doorbells, in order, held until taken.
        let bell = posts.get(next_post);
        b.poke_bool(id("doorbell.valid"), bell.is_some());
        if let Some(post) = bell {
            b.poke(id("doorbell.function"), post.function as u128);
            let word = Doorbell {
                qp: post.qp,
                words: post.words.len() as u8,
                address: addresses[next_post],
            }
            .pack();
            b.poke(id("doorbell.word"), word as u128);
        }
        // GET responses, word by word, held until taken.
        let response = responses.get(next_response);
        response_offered = response.is_some() && (response_offered || rng.chance(0.4));
        b.poke_bool(id("responses.valid"), response_offered);
        if let Some(r) = response.filter(|_| response_offered) {
            let d = &r.descriptor;
            let words = d.pack();
            let (sources, destinations) = match &d.body {
                DescriptorBody::Put {
                    sources,
                    destinations,
                } => (sources.len(), destinations.len()),
                _ => panic!("a response is a PUT"),
            };
            let body = &words[3..];
            for (n, v) in [
                ("kind", d.kind().code() as u128),
                ("function", r.function as u128),
                ("qp", r.qp as u128),
                ("dst_node", d.dst_node as u128),
                ("dst_function", d.dst_function as u128),
                ("dst_qp", d.dst_qp as u128),
                ("remote_event", d.remote_event as u128),
                ("local_event", 0),
                ("key", d.qp_magic as u128),
                ("tag", 0),
                ("length", d.length() as u128),
                ("sources", sources as u128),
                ("destinations", destinations as u128),
                ("response_key", 0),
                ("get_response", 1),
                ("word", body[response_word] as u128),
                ("last", (response_word + 1 == body.len()) as u128),
            ] {
                b.poke(id(&format!("responses.{n}")), v);
            }
        }
        // The lookup: last cycle's question answered now, every QP owned and enabled.
        let lookup_ready = rng.chance(0.9);
        b.poke_bool(id("lookup.ready"), lookup_ready);
        b.poke_bool(id("lookup.answered"), answer_next);
        for n in [
            "lookup.owned",
            "lookup.function_enabled",
            "lookup.qp_enabled",
        ] {
            b.poke_bool(id(n), true);
        }
        // Reads and completions.
        let read_ready = rng.chance(drive.read_ready);
        b.poke_bool(id("read.ready"), read_ready);
        let beat = mem.offer(k, rng);
        b.poke_bool(id("completion.valid"), beat.is_some());
        if let Some(bt) = beat {
            b.poke(id("completion.tag"), bt.tag as u128);
            b.poke(id("completion.data"), bt.data);
            b.poke_bool(id("completion.last"), bt.last);
            b.poke_bool(id("completion.error"), bt.error);
        }
        let flit_ready = rng.chance(drive.flit_ready);
        b.poke_bool(id("flits.ready"), flit_ready);
        let errors_ready = rng.chance(drive.event_ready);
        b.poke_bool(id("errors.ready"), errors_ready);
        let sends_ready = rng.chance(drive.event_ready);
        b.poke_bool(id("sends.ready"), sends_ready);
        // Outputs.
        assert!(
            b.peek_bool(id("completion.ready")),
            "cycle {k}: completion.ready low"
        );
        for n in ["stray", "overrun", "bad_free"] {
            assert!(!b.peek_bool(id(n)), "cycle {k}: {n}");
        }
        if b.peek_bool(id("stomped")) {
            stomps_seen += 1;
        }
        if b.peek_bool(id("charge.valid")) {
            let got = (
                b.peek(id("charge.function")) as u8,
                b.peek(id("charge.bytes")) as u64,
            );
            assert_eq!(
                Some(got),
                charges.pop_front(),
                "cycle {k}: a charge (function, bytes)"
            );
        }
        let bell_taken = bell.is_some() && b.peek_bool(id("doorbell.ready"));
        let response_taken = response_offered && b.peek_bool(id("responses.ready"));
        answer_next = b.peek_bool(id("lookup.valid")) && lookup_ready;
        let request = (b.peek_bool(id("read.valid")) && read_ready).then(|| ReadRequest {
            function: b.peek(id("read.function")) as u8,
            address: b.peek(id("read.address")) as u64,
            bytes: b.peek(id("read.bytes")) as u64,
            tag: b.peek(id("read.tag")) as u8,
        });
        if let Some(rq) = &request {
            for &(a, e, f) in &answer_reads {
                if a <= rq.address && rq.address < e {
                    assert_eq!(
                        rq.function, f,
                        "cycle {k}: a read of a GET response's source for the wrong function"
                    );
                }
            }
        }
        if b.peek_bool(id("errors.valid")) && errors_ready {
            let (i, status) = errors
                .pop_front()
                .unwrap_or_else(|| panic!("cycle {k}: an error event not expected"));
            let got = (
                b.peek(id("errors.function")) as u8,
                b.peek(id("errors.qp")) as u8,
                b.peek(id("errors.status")) as u8,
            );
            assert_eq!(
                got,
                (posts[i].function, posts[i].qp, status.code()),
                "cycle {k}: error event of post {i}"
            );
            out.errors += 1;
        }
        if b.peek_bool(id("sends.valid")) && sends_ready {
            let e = sends
                .pop_front()
                .unwrap_or_else(|| panic!("cycle {k}: a send event not expected"));
            let got = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map(|i| {
                b.peek(id([
                    "",
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
                ][i]))
            });
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
            assert_eq!(got, want, "cycle {k}: send event {e:?}");
            out.sends += 1;
        }
        // Store and forward: once a head has left, a packet of host-memory data never waits.
        let queue_of = |active: Option<bool>| active == Some(true);
        let front_from_reorder = match active {
            Some(true) => answers.front().is_some_and(|x| x.message.from_reorder()),
            _ => expected.front().is_some_and(|x| x.message.from_reorder()),
        };
        if !flits.is_empty() && front_from_reorder {
            assert!(
                b.peek_bool(id("flits.valid")),
                "cycle {k}: a packet stalled half sent"
            );
        }
        if b.peek_bool(id("flits.valid")) && flit_ready {
            let flit = b.peek(id("flits.data"));
            if flits.is_empty() {
                packet_vc = b.peek(id("vc"));
            }
            flits.push(flit);
            out.flits += 1;
            if active.is_none() {
                // A message starts: its head's destination says which stream's.
                let dst = match Flit::unpack(flit) {
                    Ok(Flit::Head(h)) => h.dst,
                    other => panic!("cycle {k}: a message starts with {other:?}"),
                };
                active = Some(dst >= 0x8000);
                if dst < 0x8000 {
                    // Refused GETs before it sent nothing.
                    while expected
                        .front()
                        .is_some_and(|x| x.packets.is_empty() && x.message.refused(&cfg))
                    {
                        expected.pop_front();
                    }
                }
            }
            let from_answers = queue_of(active);
            let x = if from_answers {
                answers.front_mut()
            } else {
                expected.front_mut()
            }
            .unwrap_or_else(|| panic!("cycle {k}: a flit with no message"));
            x.first_flit.get_or_insert(k);
            if flits.len() == 3 {
                x.first_payload.get_or_insert(k);
            }
            let want = x
                .packets
                .front()
                .unwrap_or_else(|| panic!("cycle {k}: a flit beyond the message's packets"))
                .clone();
            let want_flits = want.pack();
            let i = flits.len() - 1;
            assert!(
                i < want_flits.len(),
                "cycle {k}: packet longer than {}",
                want_flits.len()
            );
            let last = i + 1 == want_flits.len();
            if !x.failed {
                assert_eq!(flit, want_flits[i], "cycle {k}: flit {i} of {want:?}");
            } else if i <= 1 {
                assert_eq!(
                    flit, want_flits[i],
                    "cycle {k}: flit {i} of failed {want:?}"
                );
            } else if last {
                // A failed message: the tail's fields as sent, its CRC not the packet's.
                assert_eq!(
                    flit >> 16,
                    want_flits[i] >> 16,
                    "cycle {k}: tail of failed {want:?}"
                );
            }
            if last {
                assert_eq!(packet_vc, want.vc as u128, "cycle {k}: vc");
                let decoded = NicPacket::unpack(&flits);
                if x.failed && x.packets.len() == 1 {
                    assert!(
                        decoded.is_err(),
                        "cycle {k}: the last packet of a failed message left good"
                    );
                }
                if decoded.is_err() {
                    stomps_due += 1;
                    out.stomped += 1;
                } else {
                    out.payload_bytes += want.payload.len() as u64;
                }
                x.packets.pop_front();
                flits.clear();
                out.packets += 1;
                if x.packets.is_empty() {
                    active = None;
                    if from_answers {
                        answers.pop_front();
                        out.responses += 1;
                    } else {
                        let x = expected.pop_front().unwrap();
                        out.timeline[x.post] = MessageTimes {
                            taken: taken_at[x.post],
                            first_flit: x.first_flit.unwrap(),
                            first_payload: x.first_payload.unwrap(),
                            last_flit: k,
                        };
                        out.messages += 1;
                    }
                }
            }
        }
        // Refused GETs send nothing: they leave the queue when their turn comes (once every
        // response is out; before, the next local head pops them).
        while active.is_none()
            && answers.is_empty()
            && next_response == responses.len()
            && expected
                .front()
                .is_some_and(|x| x.packets.is_empty() && x.message.refused(&cfg))
        {
            expected.pop_front();
        }
        b.tick();
        if bell_taken {
            taken_at[next_post] = k;
            next_post += 1;
        }
        if response_taken {
            response_word += 1;
            response_offered = false;
            if response_word + 3 == responses[next_response].descriptor.pack().len() {
                response_word = 0;
                next_response += 1;
            }
        }
        if let Some(bt) = beat {
            mem.taken();
            let i = open_reads[&bt.tag];
            if out.reads[i].1 == 0 {
                out.reads[i].1 = k;
            }
            if bt.last {
                open_reads.remove(&bt.tag);
            }
        }
        if let Some(rq) = request {
            mem.request(k, rq, rng);
            open_reads.insert(rq.tag, out.reads.len());
            out.reads.push((k, 0));
        }
        k += 1;
    }
    assert_eq!(stomps_seen, stomps_due, "nic_send: stomped pulses");
    assert!(
        charges.is_empty(),
        "nic_send: charges never made: {charges:?}"
    );
    assert_eq!(out.sends as usize, total_sends);
    assert_eq!(
        b.peek(id("tags_in_use")),
        0,
        "nic_send: tags not back in the pool"
    );
    out.cycles = k;
    out
}
