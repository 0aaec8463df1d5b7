//! `EventWriterUnit` (nic::events: the event writer with the fetch's error input) against the
//! event writer's model (`testbench::models::event_writer`), on both backends.
//!
//! 1. **Random events** from the three requesters (send events, receive events, the fetch's
//!    error events) for all 8 functions and QPs 0..=5 (4 per function: 4 and 5 are not owned;
//!    QP 3 of every function disabled; function 6 disabled; function 7 enabled and disabled
//!    every 1,500 cycles), rings of 1 to 16 entries with garbage in their base's low 4 bits
//!    now and then, interrupts on for half the QPs, random idle (random fields while `valid`
//!    is low), random back pressure on the lookup, the write and the interrupt port, and
//!    `reset` at random moments (`ResetSchedule`: the whole NIC resets, so the table's and
//!    software's pointers start over and the rings are opened again). Software consumes
//!    each ring at its own random rate, and stops consuming some rings for long stretches, so
//!    rings fill. Every cycle the writer's decision is checked against the table's answer
//!    (discard and `dropped`, pass over and `ring_full`, or take), every beat's function,
//!    address, bytes, enables and `last`, every pointer advance, and every interrupt (only
//!    for a QP with interrupts on and an event written since its last message; none owed at
//!    the end). Software reads every ring by phase and finds exactly the events taken for
//!    it, in order; an unconsumed entry is never overwritten (a beat to an entry software
//!    has not read fails the bench). A watchdog fails if nothing is decided for 300 cycles.
//! 2. **Throughput**: with every port ready and one requester streaming events to a ring with
//!    room, one event every 3 cycles.
use hdl::formats::nic::{Event, EventKind, EventStatus, EVENT_BYTES, OP_UNKNOWN};
use nic::events::EventWriterUnit;
use nic::regs::Ring;
use std::collections::{BTreeSet, VecDeque};
use testbench::host::SparseMemory;
use testbench::models::event_writer::{decide, Decision, EventRing, RingAnswer};
use testbench::nic_fetch_perf::Ports;
use testbench::port_table;
use testbench::reset::ResetSchedule;
use testbench::rhdl::PortTable;
use testbench::{run_both, Backend, BenchRng};

const FUNCTIONS: usize = 8;
const QPS: usize = 4;
/// The requesters in the select's order.
const REQUESTERS: [&str; 3] = ["sends", "receives", "errors"];

fn table() -> PortTable<EventWriterUnit> {
    port_table!(EventWriterUnit; reset,
        sends.valid, sends.function, sends.qp, sends.receive_ring, sends.kind, sends.status,
        sends.op, sends.peer_node, sends.peer_function, sends.peer_qp, sends.length,
        sends.info, sends.ready,
        receives.valid, receives.function, receives.qp, receives.receive_ring, receives.kind,
        receives.status, receives.op, receives.peer_node, receives.peer_function,
        receives.peer_qp, receives.length, receives.info, receives.ready,
        errors.valid, errors.function, errors.qp, errors.status, errors.op, errors.tag,
        errors.peer_node, errors.peer_function, errors.peer_qp, errors.length, errors.ready,
        lookup.valid, lookup.function, lookup.qp, lookup.ready, lookup.answered, lookup.owned,
        lookup.function_enabled, lookup.qp_enabled, lookup.key, lookup.interrupt,
        lookup.send_base, lookup.send_size, lookup.send_producer, lookup.send_consumer,
        lookup.receive_base, lookup.receive_size, lookup.receive_producer,
        lookup.receive_consumer, lookup.nap_base, lookup.nap_size, lookup.nap_producer,
        lookup.nap_consumer,
        write.valid, write.function, write.address, write.data, write.enables, write.last,
        write.ready,
        advance.valid, advance.function, advance.qp, advance.ring,
        interrupt.valid, interrupt.function, interrupt.vector, interrupt.ready,
        dropped, ring_full)
}

/// One request: where it goes and the event (phase left false).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Request {
    function: usize,
    qp: usize,
    receive_ring: bool,
    event: Event,
}

/// The function table and the rings, as the bench keeps them.
struct Nic {
    mem: SparseMemory,
    function_enabled: [bool; FUNCTIONS],
    qp_enabled: [[bool; QPS]; FUNCTIONS],
    interrupt: [[bool; QPS]; FUNCTIONS],
    /// Garbage in the base registers' low 4 bits.
    base_low: [[[u64; 2]; QPS]; FUNCTIONS],
    rings: Vec<Vec<[EventRing; 2]>>,
}

impl Nic {
    fn new(rng: &mut BenchRng) -> Self {
        let mut n = Nic {
            mem: SparseMemory::default(),
            function_enabled: [true; FUNCTIONS],
            qp_enabled: [[true, true, true, false]; FUNCTIONS],
            interrupt: [[false; QPS]; FUNCTIONS],
            base_low: [[[0; 2]; QPS]; FUNCTIONS],
            rings: vec![],
        };
        n.function_enabled[6] = false;
        for f in 0..FUNCTIONS {
            for q in 0..QPS {
                n.interrupt[f][q] = rng.chance(0.5);
                for r in 0..2 {
                    n.base_low[f][q][r] = if rng.chance(0.3) { rng.range(1, 15) } else { 0 };
                }
            }
        }
        n.open_all(rng);
        n
    }
    /// Every ring opened again (after a reset: pointers zero, memory cleared).
    fn open_all(&mut self, rng: &mut BenchRng) {
        self.rings = (0..FUNCTIONS)
            .map(|f| {
                (0..QPS)
                    .map(|q| {
                        [0, 1].map(|r| {
                            let base = 0x10_0000 * (1 + f as u64) + 0x1000 * (2 * q + r) as u64;
                            EventRing::open(&mut self.mem, base, rng.range(0, 4) as u8)
                        })
                    })
                    .collect()
            })
            .collect();
    }
    fn usable(&self, f: usize, q: usize) -> bool {
        f < FUNCTIONS && q < QPS && self.function_enabled[f] && self.qp_enabled[f][q]
    }
    /// The table's answer for one ring of (f, q).
    fn answer(&self, f: usize, q: usize, r: usize) -> RingAnswer {
        if !(f < FUNCTIONS && q < QPS) {
            return RingAnswer::default();
        }
        let ring = &self.rings[f][q][r];
        RingAnswer {
            usable: self.usable(f, q),
            base: ring.driver.base | self.base_low[f][q][r],
            log2: ring.driver.log2,
            producer: ring.producer,
            consumer: ring.driver.pointer,
        }
    }
}

/// A random event request (about 1 in 8 for a missing QP, 1 in 8 for function 6 or 7).
fn random_request(rng: &mut BenchRng, requester: usize) -> Request {
    let function = if rng.chance(0.25) {
        rng.range(6, 7) as usize
    } else {
        rng.range(0, 5) as usize
    };
    let qp = if rng.chance(0.12) {
        rng.range(4, 5) as usize
    } else {
        rng.range(0, 3) as usize
    };
    let (kind, status, receive_ring) = match requester {
        0 => (EventKind::Send, EventStatus::Ok, false),
        1 => (EventKind::Receive, EventStatus::Ok, true),
        _ => {
            let s = [
                EventStatus::UnknownKind,
                EventStatus::TotalsMismatch,
                EventStatus::BadDoorbell,
                EventStatus::ReadFailed,
            ][rng.range(0, 3) as usize];
            (EventKind::Error, s, false)
        }
    };
    let op = if kind == EventKind::Error && rng.chance(0.3) {
        OP_UNKNOWN
    } else {
        rng.range(0, 2) as u8
    };
    Request {
        function,
        qp,
        receive_ring,
        event: Event {
            kind,
            status,
            op,
            qp: qp as u8,
            peer_node: rng.bits(16) as u16,
            peer_function: rng.bits(3) as u8,
            peer_qp: rng.bits(4) as u8,
            length: rng.bits(32) as u32,
            info: rng.bits(32) as u32,
            phase: false,
        },
    }
}

/// Drives requester `i`'s ports with `req` (or random fields when idle).
fn offer(b: &mut dyn Backend, p: &Ports, rng: &mut BenchRng, i: usize, req: Option<&Request>) {
    let n = REQUESTERS[i];
    let id = |s: &str| p.id(&format!("{n}${s}"));
    let r = req.copied().unwrap_or_else(|| random_request(rng, i));
    b.poke_bool(id("valid"), req.is_some());
    b.poke(id("function"), r.function as u128);
    b.poke(id("qp"), r.qp as u128);
    b.poke(id("status"), r.event.status.code() as u128);
    b.poke(id("op"), r.event.op as u128);
    b.poke(id("peer_node"), r.event.peer_node as u128);
    b.poke(id("peer_function"), r.event.peer_function as u128);
    b.poke(id("peer_qp"), r.event.peer_qp as u128);
    b.poke(id("length"), r.event.length as u128);
    if i == 2 {
        b.poke(id("tag"), r.event.info as u128);
    } else {
        b.poke(id("info"), r.event.info as u128);
        b.poke(id("kind"), r.event.kind.code() as u128);
        b.poke_bool(id("receive_ring"), r.receive_ring);
    }
}

/// Drives the lookup's answer (`None`: no answer, random fields).
/// The table's answer to a lookup: owned, function enabled, QP enabled, interrupts on, and
/// the two event rings.
type Answer = (bool, bool, bool, bool, [RingAnswer; 2]);

fn answer(b: &mut dyn Backend, p: &Ports, rng: &mut BenchRng, a: Option<Answer>) {
    let id = |s: &str| p.id(&format!("lookup${s}"));
    b.poke_bool(id("answered"), a.is_some());
    let (owned, function_enabled, qp_enabled, interrupt, rings) = a.unwrap_or_else(|| {
        let r = RingAnswer {
            usable: rng.chance(0.5),
            base: rng.bits(48) as u64,
            log2: rng.bits(4) as u8,
            producer: rng.bits(16) as u16,
            consumer: rng.bits(16) as u16,
        };
        (
            rng.chance(0.5),
            rng.chance(0.5),
            rng.chance(0.5),
            rng.chance(0.5),
            [r, r],
        )
    });
    b.poke_bool(id("owned"), owned);
    b.poke_bool(id("function_enabled"), function_enabled);
    b.poke_bool(id("qp_enabled"), qp_enabled);
    b.poke_bool(id("interrupt"), interrupt);
    for (n, r) in ["send", "receive"].iter().zip(rings) {
        b.poke(id(&format!("{n}_base")), r.base as u128);
        b.poke(id(&format!("{n}_size")), r.log2 as u128);
        b.poke(id(&format!("{n}_producer")), r.producer as u128);
        b.poke(id(&format!("{n}_consumer")), r.consumer as u128);
    }
    for n in [
        "key",
        "nap_base",
        "nap_size",
        "nap_producer",
        "nap_consumer",
    ] {
        let w = b.width(id(n));
        b.poke(id(n), rng.bits(w));
    }
}

/// What a run counted.
#[derive(Debug, PartialEq, Default)]
struct Report {
    written: u64,
    discarded: u64,
    passed_over: u64,
    read_by_software: u64,
    interrupts: u64,
    resets: u64,
    cycles: u64,
}

fn bench(b: &mut dyn Backend, seed: u64, requests: u64) -> Report {
    let what = format!("event_writer seed {seed}");
    let mut rng = BenchRng::new(seed);
    let p = Ports::new(b);
    let id = |n: &str| p.id(n);
    let mut nic = Nic::new(&mut rng);
    let mut sched = ResetSchedule::new(&mut rng, 3000);
    let mut queues: [VecDeque<Request>; 3] = Default::default();
    let mut offering = [false; 3];
    // The lookup taken last cycle and the answer the table gives for it in this one.
    let mut asked: Option<(usize, usize, Answer)> = None;
    // The select's round robin: the requester whose request is looked up, the one served last.
    let mut asked_by = 0usize;
    let mut served_last = 2usize;
    // The beat the writer owes: (request, address, phase, interrupt wanted).
    let mut owed_beat: Option<(Request, u64, bool, bool)> = None;
    // The writer's one message register: the interrupt raised and not yet taken.
    let mut owed_interrupt: Option<(usize, usize)> = None;
    // Rings software leaves alone for a while, and how fast it reads the others.
    let mut stalled: BTreeSet<(usize, usize, usize)> = BTreeSet::new();
    let mut r = Report::default();
    let mut generated = 0u64;
    let mut last_decision = 0u64;
    let mut k = 0u64;
    loop {
        let ending = generated >= requests;
        if ending
            && queues.iter().all(|q| q.is_empty())
            && owed_beat.is_none()
            && owed_interrupt.is_none()
        {
            break;
        }
        assert!(
            k - last_decision < 300,
            "{what} cycle {k}: no decision for 300 cycles (queued {:?}, interrupt owed {owed_interrupt:?})",
            queues.iter().map(|q| q.len()).collect::<Vec<_>>()
        );
        if k.is_multiple_of(1500) && k > 0 {
            nic.function_enabled[7] = !nic.function_enabled[7];
            if !nic.function_enabled[7] {
                // A disabled function's pointers are held at zero; software opens it again.
                for q in 0..QPS {
                    for ring in 0..2 {
                        let (base, log2) = (
                            nic.rings[7][q][ring].driver.base,
                            nic.rings[7][q][ring].driver.log2,
                        );
                        nic.rings[7][q][ring] = EventRing::open(&mut nic.mem, base, log2);
                    }
                }
            }
        }
        if k.is_multiple_of(800) {
            stalled.clear();
            for _ in 0..rng.range(0, 4) {
                stalled.insert((
                    rng.range(0, 5) as usize,
                    rng.range(0, 2) as usize,
                    rng.range(0, 1) as usize,
                ));
            }
        }
        for (i, q) in queues.iter_mut().enumerate() {
            while !ending && q.len() < 3 {
                q.push_back(random_request(&mut rng, i));
                generated += 1;
            }
        }
        let reset = sched.next_if(&mut rng, true);
        b.poke_bool(id("reset"), reset);
        if reset {
            asked = None;
            served_last = 2;
            owed_beat = None;
            owed_interrupt = None;
            nic.open_all(&mut rng);
        }
        for i in 0..3 {
            offering[i] = offering[i] || (!queues[i].is_empty() && rng.chance(0.6));
            offer(
                b,
                &p,
                &mut rng,
                i,
                queues[i].front().filter(|_| offering[i]),
            );
        }
        let lookup_ready = rng.chance(0.8);
        b.poke_bool(id("lookup$ready"), lookup_ready);
        answer(b, &p, &mut rng, asked.map(|a| a.2));
        let write_ready = rng.chance(0.7);
        b.poke_bool(id("write$ready"), write_ready);
        let interrupt_ready = rng.chance(0.5);
        b.poke_bool(id("interrupt$ready"), interrupt_ready);

        // The decision on last cycle's lookup.
        let taken: Vec<usize> = (0..3)
            .filter(|&i| offering[i] && b.peek_bool(id(&format!("{}$ready", REQUESTERS[i]))))
            .collect();
        let dropped = b.peek_bool(id("dropped"));
        let full = b.peek_bool(id("ring_full"));
        if reset {
            assert!(
                taken.is_empty() && !dropped && !full,
                "{what} cycle {k}: action in reset"
            );
        }
        assert!(taken.len() <= 1, "{what} cycle {k}: two requests taken");
        if let Some((f, q, (_, _, _, interrupt, rings))) = asked.filter(|_| !reset) {
            last_decision = k;
            let head = |i: usize| queues[i].front().copied().expect("taken from a queue");
            match taken.first() {
                Some(&i) => {
                    let req = head(i);
                    assert_eq!(
                        (i, req.function, req.qp),
                        (asked_by, f, q),
                        "{what} cycle {k}: took another request than it looked up"
                    );
                    served_last = i;
                    match decide(&rings[req.receive_ring as usize]) {
                        Decision::Discard => {
                            assert!(
                                dropped && !full,
                                "{what} cycle {k}: {req:?} discarded without `dropped`"
                            );
                            r.discarded += 1;
                        }
                        Decision::PassOver => {
                            panic!("{what} cycle {k}: {req:?} taken into a full ring")
                        }
                        Decision::Write { address, phase } => {
                            assert!(!dropped && !full, "{what} cycle {k}: pulse on a write");
                            owed_beat = Some((req, address, phase, interrupt));
                        }
                    }
                    queues[i].pop_front();
                    offering[i] = false;
                }
                None => {
                    assert!(
                        full && !dropped,
                        "{what} cycle {k}: answer for ({f}, {q}) neither taken nor passed over"
                    );
                    let h = head(asked_by);
                    assert!(
                        decide(&rings[h.receive_ring as usize]) == Decision::PassOver,
                        "{what} cycle {k}: passed over {h:?}, whose ring has room"
                    );
                    served_last = asked_by;
                    r.passed_over += 1;
                }
            }
        } else {
            assert!(
                taken.is_empty() && !dropped && !full,
                "{what} cycle {k}: decision without a lookup"
            );
        }

        // The beat, its advance and the interrupt.
        let write_valid = b.peek_bool(id("write$valid"));
        let advance = b.peek_bool(id("advance$valid"));
        let write_fire = write_valid && write_ready;
        assert_eq!(
            advance, write_fire,
            "{what} cycle {k}: advance without its beat"
        );
        if write_valid {
            let (req, address, phase, _) = owed_beat.expect("a beat owed");
            assert!(!reset, "{what} cycle {k}: beat in reset");
            let want = Event { phase, ..req.event };
            let got = (
                b.peek(id("write$function")) as usize,
                b.peek(id("write$address")) as u64,
                b.peek(id("write$data")),
                b.peek(id("write$enables")),
                b.peek_bool(id("write$last")),
            );
            let bytes = want.to_bytes();
            assert_eq!(
                got,
                (
                    req.function,
                    address,
                    u128::from_le_bytes(bytes),
                    0xFFFF,
                    true
                ),
                "{what} cycle {k}: beat of {req:?}"
            );
        }
        let interrupt_valid = b.peek_bool(id("interrupt$valid"));
        if interrupt_valid {
            let pair = (
                b.peek(id("interrupt$function")) as usize,
                b.peek(id("interrupt$vector")) as usize,
            );
            assert_eq!(
                Some(pair),
                owed_interrupt,
                "{what} cycle {k}: interrupt offered"
            );
        } else {
            assert!(
                owed_interrupt.is_none() || reset,
                "{what} cycle {k}: interrupt {owed_interrupt:?} not offered"
            );
        }
        if interrupt_valid && interrupt_ready {
            owed_interrupt = None;
            r.interrupts += 1;
        }
        if write_fire {
            let (req, address, phase, interrupt) = owed_beat.take().expect("checked");
            let got_advance = (
                b.peek(id("advance$function")) as usize,
                b.peek(id("advance$qp")) as usize,
                b.peek(id("advance$ring")) as u64,
            );
            let ring = if req.receive_ring {
                Ring::ReceiveCompletion
            } else {
                Ring::SendCompletion
            };
            assert_eq!(
                got_advance,
                (req.function, req.qp, ring.code()),
                "{what} cycle {k}: advance"
            );
            if nic.usable(req.function, req.qp) {
                let er = &mut nic.rings[req.function][req.qp][req.receive_ring as usize];
                assert!(
                    er.fill() < er.driver.entries(),
                    "{what} cycle {k}: {req:?} overwrites an unread entry"
                );
                assert_eq!(
                    address,
                    er.driver.entry(er.producer, EVENT_BYTES as u64),
                    "{what} cycle {k}: entry"
                );
                er.producer = er.producer.wrapping_add(1);
                er.expected.push_back(Event { phase, ..req.event });
            }
            // The host applies the write whatever the table did meanwhile (a function
            // disabled after the decision: its rings are opened again before use).
            nic.mem
                .write(address, &Event { phase, ..req.event }.to_bytes());
            if interrupt {
                // Only into a free register, or coalesced with the same pair.
                let pair = (req.function, req.qp);
                assert!(
                    owed_interrupt.is_none_or(|p| p == pair),
                    "{what} cycle {k}: beat for {pair:?} written while interrupt {owed_interrupt:?} is pending: one is lost"
                );
                owed_interrupt = Some(pair);
            }
            r.written += 1;
        }
        // The next cycle's answer: the table's values of this cycle.
        asked = None;
        if b.peek_bool(id("lookup$valid")) && lookup_ready && !reset {
            let (f, q) = (
                b.peek(id("lookup$function")) as usize,
                b.peek(id("lookup$qp")) as usize,
            );
            asked_by = (1..=3)
                .map(|d| (served_last + d) % 3)
                .find(|&i| offering[i])
                .unwrap_or_else(|| panic!("{what} cycle {k}: a lookup with nothing offered"));
            let h = queues[asked_by].front().expect("offered");
            assert_eq!(
                (h.function, h.qp),
                (f, q),
                "{what} cycle {k}: lookup not of the round robin's requester {asked_by}"
            );
            let owned = f < FUNCTIONS && q < QPS;
            asked = Some((
                f,
                q,
                (
                    owned,
                    owned && nic.function_enabled[f],
                    owned && nic.qp_enabled[f][q],
                    owned && nic.interrupt[f][q],
                    [nic.answer(f, q, 0), nic.answer(f, q, 1)],
                ),
            ));
        }
        // Software reads its rings.
        for f in 0..6 {
            for q in 0..QPS {
                for ring in 0..2 {
                    if !stalled.contains(&(f, q, ring)) && (ending || rng.chance(0.05)) {
                        let w = format!("{what} cycle {k} function {f} QP {q} ring {ring}");
                        r.read_by_software += nic.rings[f][q][ring].consume(&nic.mem, &w) as u64;
                    }
                }
            }
        }
        if ending {
            stalled.clear();
        }
        b.tick();
        k += 1;
    }
    for f in 0..6 {
        for q in 0..QPS {
            for ring in 0..2 {
                assert!(
                    nic.rings[f][q][ring].expected.is_empty(),
                    "{what}: ({f}, {q}, {ring}) events never read"
                );
            }
        }
    }
    sched.assert_pulses(&what, 3);
    r.resets = sched.pulses();
    r.cycles = k;
    r
}

/// Cycles between takes with every port ready and one requester streaming to a ring with room.
fn throughput(b: &mut dyn Backend) -> u64 {
    let p = Ports::new(b);
    let id = |n: &str| p.id(n);
    let mut rng = BenchRng::new(9);
    let mut producer = 0u16;
    let mut asked = false;
    let mut takes = vec![];
    b.poke_bool(id("reset"), true);
    b.tick();
    b.poke_bool(id("reset"), false);
    offer(b, &p, &mut rng, 1, None);
    offer(b, &p, &mut rng, 2, None);
    for k in 0..60 {
        let req = Request {
            function: 0,
            qp: 0,
            ..random_request(&mut rng, 0)
        };
        offer(b, &p, &mut rng, 0, Some(&req));
        b.poke_bool(id("lookup$ready"), true);
        let ring = RingAnswer {
            usable: true,
            base: 0x4000,
            log2: 10,
            producer,
            consumer: 0,
        };
        answer(
            b,
            &p,
            &mut rng,
            asked.then_some((true, true, true, false, [ring, ring])),
        );
        b.poke_bool(id("write$ready"), true);
        b.poke_bool(id("interrupt$ready"), true);
        if b.peek_bool(id("sends$ready")) {
            takes.push(k);
        }
        if b.peek_bool(id("advance$valid")) {
            producer += 1;
        }
        asked = b.peek_bool(id("lookup$valid"));
        b.tick();
    }
    let gaps: BTreeSet<u64> = takes.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(gaps.len(), 1, "event_writer: uneven takes {takes:?}");
    *gaps.first().expect("takes")
}

#[test]
fn event_writer_matches_model() {
    let r = run_both("event_writer", EventWriterUnit::default, table, |b| {
        (bench(b, 41, 4000), throughput(b))
    });
    let (report, cycles_per_event) = r.result;
    println!("event writer: {report:?}; {cycles_per_event} cycles per event");
    assert!(
        report.written > 1500 && report.discarded > 300 && report.passed_over > 50,
        "{report:?}"
    );
    assert!(
        report.interrupts > 100 && report.read_by_software > 1000,
        "{report:?}"
    );
    assert_eq!(cycles_per_event, 3);
}
