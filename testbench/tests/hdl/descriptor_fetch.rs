//! `DescriptorFetchUnit` (nic::descriptor: the fetch with its own `TagPool`) against the
//! fetch's model (`testbench::models::descriptor_fetch`), on both backends, driven by the host
//! memory model (`testbench::host::HostMemory`: latency 20 plus up to 180 cycles of jitter per
//! completion, completions split at 64-byte boundaries, reordered across tags, a header cycle
//! before each) with descriptors written into host memory at addresses from the driver
//! model's allocator (`testbench::host::DriverModel`).
//!
//! 1. **Random doorbells** over all 8 functions and QPs 0..=5 (4 per function: 4 and 5 are not
//!    owned), functions and QPs enabled and disabled at random every 700 cycles, random idle
//!    (random fields while `valid` is low), random back pressure on the lookup, the read
//!    requests and both outputs, and `reset` at random moments (`ResetSchedule`): after it no
//!    tag is in use and nothing taken before it may come out. About a third of the
//!    descriptors are broken: every `DescriptorError` the fetch can see (unknown kind,
//!    reserved bits in words 0 and 2 and in segment words, zero length, too long, word count
//!    both ways, segment counts, zero segments, totals, padding), bad doorbells (reserved
//!    bits, fewer than 2 words, unaligned), a QP not owned, disabled functions and QPs,
//!    descriptors longer than the fetch reads, and reads that fail. Descriptors are placed
//!    across read-request boundaries now and then (two reads). Every read request is checked
//!    (function, address, bytes, in doorbell order), every descriptor word and field, every
//!    error event; the run must see every status; a watchdog fails on a hang; at the end the
//!    pool is full again (`tags_in_use` 0), no bad free, no stray beat.
//! 2. **Latency** (no reset, no jitter or split, outputs always ready): cycles from the
//!    doorbell's acceptance to the first body word offered, minus the memory latency (request
//!    taken to first beat taken), for a 3-word NAP immediate and a 7-word PUT.
//!
//! Two devices: 4 slots, 32 tags, reads of 512 bytes (the default); 4 slots, 4 tags, reads
//! of 128 bytes (tags run out, many descriptors split in two reads, 16 words at most).
use hdl::formats::nic::{
    Descriptor, DescriptorBody, Doorbell, EventStatus, Segment, DESC_KIND, DESC_LENGTH,
};
use nic::descriptor::DescriptorFetchUnit;
use std::collections::{BTreeMap, VecDeque};
use testbench::host::memory::{ReadRequest, RCB};
use testbench::host::{DriverModel, HostMemory, MemoryConfig};
use testbench::models::descriptor_fetch::{FetchModel, FetchOutcome, QpAnswer};
use testbench::nic_fetch_perf::{latencies, table, Ports};
use testbench::reset::ResetSchedule;
use testbench::{run_both, Backend, BenchRng};

/// One doorbell as the bench offers it.
#[derive(Clone, Debug)]
struct Bell {
    function: u8,
    word: u64,
}

/// What a run counted.
#[derive(Debug, PartialEq)]
struct Report {
    doorbells: u64,
    descriptors: u64,
    statuses: BTreeMap<String, u64>,
    reads: u64,
    split_reads: u64,
    max_tags_in_flight: usize,
    resets: u64,
    cycles: u64,
}

/// `n` bytes split into `parts` positive parts.
fn split_bytes(rng: &mut BenchRng, n: u64, parts: usize) -> Vec<u32> {
    let mut cuts: Vec<u64> = (0..parts - 1).map(|_| rng.range(1, n - 1)).collect();
    cuts.sort();
    cuts.dedup();
    while cuts.len() < parts - 1 {
        // Collisions: fill from the smallest free cut.
        let c = (1..n).find(|c| !cuts.contains(c)).expect("n >= parts");
        cuts.push(c);
        cuts.sort();
    }
    let mut out = vec![];
    let mut prev = 0;
    for c in cuts.into_iter().chain([n]) {
        out.push((c - prev) as u32);
        prev = c;
    }
    out
}

/// A well-formed descriptor; `long` allows PUT/GET segment lists beyond what the fetch reads.
fn random_descriptor(rng: &mut BenchRng, long: bool) -> Descriptor {
    let body = match rng.range(0, 3) {
        0 => {
            let n = if rng.chance(0.5) {
                rng.range(1, 24)
            } else {
                rng.range(1, 256)
            };
            DescriptorBody::NapImmediate((0..n).map(|_| rng.bits(8) as u8).collect())
        }
        1 => DescriptorBody::NapIndirect {
            address: rng.bits(48) as u64,
            bytes: rng.range(1, 2048) as u32,
        },
        k => {
            let most = if long { 32 } else { 30 };
            let s = rng.range(1, 16) as usize;
            let d = rng.range(1, (most - s).min(16) as u64) as usize;
            let n = rng.range(s.max(d) as u64, 1 << 20);
            let seg = |rng: &mut BenchRng, b: u32| Segment {
                address: rng.bits(48) as u64,
                bytes: b,
            };
            let sources = split_bytes(rng, n, s)
                .into_iter()
                .map(|b| seg(rng, b))
                .collect();
            let destinations = split_bytes(rng, n, d)
                .into_iter()
                .map(|b| seg(rng, b))
                .collect();
            if k == 2 {
                DescriptorBody::Put {
                    sources,
                    destinations,
                }
            } else {
                DescriptorBody::Get {
                    sources,
                    destinations,
                    response_key: rng.bits(32) as u32,
                }
            }
        }
    };
    Descriptor {
        dst_node: rng.bits(16) as u16,
        dst_function: rng.bits(3) as u8,
        dst_qp: rng.bits(4) as u8,
        remote_event: rng.chance(0.5),
        local_event: rng.chance(0.5),
        qp_magic: rng.bits(32) as u32,
        tag: rng.bits(32) as u32,
        body,
    }
}

/// The traffic: host memory, driver, and the doorbells to ring.
struct Traffic {
    mem: HostMemory,
    driver: DriverModel,
    max_read_request: u64,
}

impl Traffic {
    /// Writes a random, perhaps broken, descriptor and returns its doorbell.
    fn next(&mut self, rng: &mut BenchRng) -> Bell {
        let function = rng.range(0, 7) as u8;
        let qp = if rng.chance(0.06) {
            rng.range(4, 5)
        } else {
            rng.range(0, 3)
        } as u8;
        let long = rng.chance(0.05);
        let mut words = random_descriptor(rng, long).pack();
        let mut given = words.len();
        let imm = words[0] & 7 == 0;
        let chained = words[0] & 7 >= 2;
        let bump = |rng: &mut BenchRng, w: &mut u64, lo: u32, hi: u32| {
            *w |= 1 << rng.range(lo as u64, hi as u64)
        };
        if rng.chance(0.35) {
            match rng.range(0, 13) {
                0 => words[0] = (words[0] & !7) | rng.range(4, 7),
                1 => {
                    let b = [5, 6, 7, 11][rng.range(0, 3) as usize];
                    words[0] |= 1 << b;
                }
                2 => words[0] &= !(DESC_LENGTH.max() as u64) << 32,
                3 => {
                    let kind = if rng.chance(0.5) { 0 } else { 1 };
                    let len = if kind == 0 {
                        rng.range(257, 4000)
                    } else {
                        rng.range(2049, 1 << 31)
                    };
                    words[0] =
                        DESC_KIND.set(DESC_LENGTH.set(words[0] as u128, len as u128), kind) as u64;
                }
                4 => given += 1,
                5 => given = given.saturating_sub(1).max(2),
                6 if words.len() > 2 && !imm => {
                    let lo = if chained { 16 } else { 48 };
                    bump(rng, &mut words[2], lo, 63);
                }
                7 if chained => {
                    // A segment count of 0 or above 16, the words to match.
                    let (s, d) = if rng.chance(0.5) {
                        (0, rng.range(1, 16))
                    } else {
                        (rng.range(17, 20), rng.range(1, 4))
                    };
                    words[2] = s | (d << 8);
                    given = 3 + 2 * (s + d) as usize;
                    words.resize(given, 0);
                }
                8 if chained => {
                    let i = rng.range(0, (words.len() as u64 - 3) / 2 - 1) as usize;
                    words[4 + 2 * i] = 0;
                }
                9 if chained => {
                    let i = rng.range(3, words.len() as u64 - 1) as usize;
                    let lo = if i % 2 == 1 { 48 } else { 32 };
                    bump(rng, &mut words[i], lo, 63);
                }
                10 if chained => {
                    let i = rng.range(0, (words.len() as u64 - 3) / 2 - 1) as usize;
                    words[4 + 2 * i] += 1;
                }
                11 if imm && !(words[0] >> 32).is_multiple_of(8) => {
                    let last = words.len() - 1;
                    let r = (words[0] >> 32) % 8;
                    words[last] |= 1 << (8 * rng.range(r, 7) + rng.range(0, 7));
                }
                12 => given = rng.range(64, 255) as usize,
                _ => {}
            }
        }
        // Placement: usually anywhere (odd words too), now and then across a read boundary.
        let bytes = 8 * words.len().max(given) as u64;
        let address = if rng.chance(0.2) {
            let mrrs = self.max_read_request;
            let base = self.driver.alloc(bytes + 2 * mrrs, mrrs);
            base + mrrs - 8 * rng.range(1, (bytes / 8).min(mrrs / 8))
        } else {
            self.driver.alloc(bytes + RCB, RCB) + 8 * rng.range(0, 7)
        };
        for (i, &w) in words.iter().enumerate() {
            self.mem.mem.write_word(address + 8 * i as u64, w);
        }
        let mut word = Doorbell {
            qp,
            words: given.min(255) as u8,
            address,
        }
        .pack();
        match rng.range(0, 60) {
            0 => word |= 1 << rng.range(4, 7),
            1 => word &= !(0xff << 8) | ((rng.range(0, 1)) << 8),
            2 => word += 4 << 16,
            3 | 4 => self.mem.poisoned.push((
                address + 8 * rng.range(0, given as u64 - 1),
                address + bytes,
            )),
            _ => {}
        }
        Bell { function, word }
    }
}

/// The lookup table's state the bench answers from.
struct Functions {
    enabled: [bool; 8],
    qps: [[bool; 4]; 8],
}

impl Functions {
    fn shuffle(&mut self, rng: &mut BenchRng) {
        for f in 0..8 {
            self.enabled[f] = rng.chance(0.93);
            for q in 0..4 {
                self.qps[f][q] = rng.chance(0.9);
            }
        }
    }
    fn answer(&self, f: u8, q: u8) -> QpAnswer {
        let owned = f < 8 && q < 4;
        QpAnswer {
            owned,
            function_enabled: owned && self.enabled[f as usize],
            qp_enabled: owned && self.qps[f as usize][q as usize],
        }
    }
}

fn status_name(s: EventStatus) -> String {
    format!("{s:?}")
}

/// The random run.
fn bench(b: &mut dyn Backend, seed: u64, tags: usize, mrrs: u64, doorbells: u64) -> Report {
    let what = format!("descriptor_fetch {tags} tags mrrs {mrrs} seed {seed}");
    let mut rng = BenchRng::new(seed);
    let p = Ports::new(b);
    let id = |n: &str| p.id(n);
    let model = FetchModel::new(mrrs);
    let mut traffic = Traffic {
        mem: HostMemory::new(MemoryConfig {
            latency: 20,
            jitter: 180,
            split: 0.5,
            header_gap: true,
            tags,
            max_read_request: mrrs,
            max_payload: 256,
        }),
        driver: DriverModel::new(8, 4, 0x1_0000_0000),
        max_read_request: mrrs,
    };
    let mut functions = Functions {
        enabled: [true; 8],
        qps: [[true; 4]; 8],
    };
    let mut sched = ResetSchedule::new(&mut rng, 2500);
    let mut bells: VecDeque<Bell> = VecDeque::new();
    // Doorbells taken, waiting for their lookup answer next cycle.
    let mut asked: Option<Bell> = None;
    let mut expected: VecDeque<FetchOutcome> = VecDeque::new();
    let mut reads: VecDeque<(u8, u64, u64)> = VecDeque::new();
    let mut word_index = 0usize;
    let mut r = Report {
        doorbells: 0,
        descriptors: 0,
        statuses: BTreeMap::new(),
        reads: 0,
        split_reads: 0,
        max_tags_in_flight: 0,
        resets: 0,
        cycles: 0,
    };
    let mut generated = 0u64;
    let mut last_progress = 0u64;
    let mut k = 0u64;
    loop {
        let ending = generated >= doorbells;
        if ending
            && bells.is_empty()
            && asked.is_none()
            && expected.is_empty()
            && traffic.mem.tags_in_flight() == 0
        {
            break;
        }
        if k.is_multiple_of(700) {
            functions.shuffle(&mut rng);
        }
        while !ending && bells.len() < 2 {
            bells.push_back(traffic.next(&mut rng));
            generated += 1;
        }
        let reset = sched.next_if(&mut rng, !ending);
        if sched.released() {
            assert_eq!(
                b.peek(id("tags_in_use")),
                0,
                "{what} cycle {k}: tags after reset"
            );
        }
        b.poke_bool(id("reset"), reset);
        // Doorbells, with random idle.
        let offer = bells.front().filter(|_| rng.chance(0.7)).cloned();
        b.poke_bool(id("doorbell$valid"), offer.is_some());
        match &offer {
            Some(bell) => {
                b.poke(id("doorbell$function"), bell.function as u128);
                b.poke(id("doorbell$word"), bell.word as u128);
            }
            None => {
                b.poke(id("doorbell$function"), rng.bits(3));
                b.poke(id("doorbell$word"), rng.bits(64));
            }
        }
        // The lookup: last cycle's question answered now.
        let lookup_ready = rng.chance(0.8);
        b.poke_bool(id("lookup$ready"), lookup_ready);
        let answer = asked
            .as_ref()
            .map(|bell| functions.answer(bell.function, (bell.word & 15) as u8));
        b.poke_bool(id("lookup$answered"), answer.is_some());
        let a = answer.unwrap_or_default();
        b.poke_bool(id("lookup$owned"), a.owned);
        b.poke_bool(id("lookup$function_enabled"), a.function_enabled);
        b.poke_bool(id("lookup$qp_enabled"), a.qp_enabled);
        for n in ["key", "send_base", "receive_base", "nap_base"] {
            b.poke(id(&format!("lookup${n}")), rng.bits(32));
        }
        // Reads and completions.
        let read_ready = rng.chance(0.85);
        b.poke_bool(id("read$ready"), read_ready);
        let beat = traffic.mem.offer(k, &mut rng);
        b.poke_bool(id("completion$valid"), beat.is_some());
        let bt = beat.unwrap_or(testbench::host::memory::CompletionBeat {
            tag: rng.bits(8) as u8,
            data: rng.bits(128),
            last: rng.chance(0.5),
            error: rng.chance(0.5),
        });
        b.poke(id("completion$tag"), bt.tag as u128);
        b.poke(id("completion$data"), bt.data);
        b.poke_bool(id("completion$last"), bt.last);
        b.poke_bool(id("completion$error"), bt.error);
        let d_ready = rng.chance([0.9, 0.5, 0.2][(k / 900 % 3) as usize]);
        let e_ready = rng.chance(0.6);
        b.poke_bool(id("descriptor$ready"), d_ready);
        b.poke_bool(id("error$ready"), e_ready);
        // Check what the fetch offers.
        assert!(
            b.peek_bool(id("completion$ready")),
            "{what} cycle {k}: completion refused"
        );
        assert!(!b.peek_bool(id("stray")), "{what} cycle {k}: stray beat");
        assert!(!b.peek_bool(id("bad_free")), "{what} cycle {k}: bad free");
        let took_bell = offer.is_some() && b.peek_bool(id("doorbell$ready"));
        let lookup_valid = b.peek_bool(id("lookup$valid"));
        if lookup_valid && !reset {
            let bell = bells.front().expect("a lookup for the offered doorbell");
            assert_eq!(
                (
                    b.peek(id("lookup$function")) as u8,
                    b.peek(id("lookup$qp")) as u64
                ),
                (bell.function, bell.word & 15),
                "{what} cycle {k}: lookup"
            );
        }
        assert_eq!(
            took_bell,
            offer.is_some() && lookup_valid && lookup_ready && !reset,
            "{what} cycle {k}: doorbell taken with its lookup"
        );
        let read_fire = b.peek_bool(id("read$valid")) && read_ready;
        let request = ReadRequest {
            function: b.peek(id("read$function")) as u8,
            address: b.peek(id("read$address")) as u64,
            bytes: b.peek(id("read$bytes")) as u64,
            tag: b.peek(id("read$tag")) as u8,
        };
        let d_valid = b.peek_bool(id("descriptor$valid"));
        let e_valid = b.peek_bool(id("error$valid"));
        assert!(
            !(d_valid && e_valid),
            "{what} cycle {k}: both outputs offered"
        );
        if d_valid {
            let Some(FetchOutcome::Descriptor(want)) = expected.front() else {
                panic!(
                    "{what} cycle {k}: a descriptor offered, expected {:?}",
                    expected.front()
                );
            };
            let got = [
                (
                    "kind",
                    b.peek(id("descriptor$kind")) as u64,
                    want.kind as u64,
                ),
                (
                    "function",
                    b.peek(id("descriptor$function")) as u64,
                    want.function as u64,
                ),
                ("qp", b.peek(id("descriptor$qp")) as u64, want.qp as u64),
                (
                    "dst_node",
                    b.peek(id("descriptor$dst_node")) as u64,
                    want.dst_node as u64,
                ),
                (
                    "dst_function",
                    b.peek(id("descriptor$dst_function")) as u64,
                    want.dst_function as u64,
                ),
                (
                    "dst_qp",
                    b.peek(id("descriptor$dst_qp")) as u64,
                    want.dst_qp as u64,
                ),
                (
                    "remote_event",
                    b.peek(id("descriptor$remote_event")) as u64,
                    want.remote_event as u64,
                ),
                (
                    "local_event",
                    b.peek(id("descriptor$local_event")) as u64,
                    want.local_event as u64,
                ),
                ("key", b.peek(id("descriptor$key")) as u64, want.key as u64),
                ("tag", b.peek(id("descriptor$tag")) as u64, want.tag as u64),
                (
                    "length",
                    b.peek(id("descriptor$length")) as u64,
                    want.length as u64,
                ),
                (
                    "sources",
                    b.peek(id("descriptor$sources")) as u64,
                    want.sources as u64,
                ),
                (
                    "destinations",
                    b.peek(id("descriptor$destinations")) as u64,
                    want.destinations as u64,
                ),
                (
                    "response_key",
                    b.peek(id("descriptor$response_key")) as u64,
                    want.response_key as u64,
                ),
                (
                    "get_response",
                    b.peek(id("descriptor$get_response")) as u64,
                    0,
                ),
                (
                    "word",
                    b.peek(id("descriptor$word")) as u64,
                    want.words[word_index],
                ),
                (
                    "last",
                    b.peek(id("descriptor$last")) as u64,
                    (word_index + 1 == want.words.len()) as u64,
                ),
            ];
            for (name, g, w) in got {
                assert_eq!(
                    g, w,
                    "{what} cycle {k}: descriptor {name} (word {word_index}) of {want:x?}"
                );
            }
        }
        if e_valid {
            let Some(FetchOutcome::Error(want)) = expected.front() else {
                panic!(
                    "{what} cycle {k}: an error offered, expected {:x?}",
                    expected.front()
                );
            };
            let got = (
                b.peek(id("error$function")) as u8,
                b.peek(id("error$qp")) as u8,
                EventStatus::from_code(b.peek(id("error$status")) as u8),
                b.peek(id("error$op")) as u8,
                b.peek(id("error$tag")) as u32,
                b.peek(id("error$peer_node")) as u16,
                b.peek(id("error$peer_function")) as u8,
                b.peek(id("error$peer_qp")) as u8,
                b.peek(id("error$length")) as u32,
            );
            let wanted = (
                want.function,
                want.qp,
                Some(want.status),
                want.op,
                want.tag,
                want.peer_node,
                want.peer_function,
                want.peer_qp,
                want.length,
            );
            assert_eq!(got, wanted, "{what} cycle {k}: error event");
        }
        b.tick();
        k += 1;
        if reset {
            traffic.mem.abandon();
            asked = None;
            expected.clear();
            reads.clear();
            word_index = 0;
            r.resets += 1;
            last_progress = k;
            continue;
        }
        // The edge's effects on the models.
        if beat.is_some() {
            traffic.mem.taken();
            last_progress = k;
        }
        if let Some(bell) = asked.take() {
            let a = answer.expect("answered");
            let failed_reads = model.verdict(bell.word, a).is_none();
            let mut failed = false;
            if failed_reads {
                let rs = model.reads(bell.word);
                r.split_reads += (rs.len() == 2) as u64;
                for &(addr, bytes) in &rs {
                    failed |= traffic
                        .mem
                        .poisoned
                        .iter()
                        .any(|&(s, e)| addr < e && s < addr + bytes);
                    reads.push_back((bell.function, addr, bytes));
                }
            }
            expected.push_back(model.outcome(
                bell.function,
                bell.word,
                a,
                failed,
                &traffic.mem.mem,
            ));
        }
        if took_bell {
            asked = bells.pop_front();
            r.doorbells += 1;
            last_progress = k;
        }
        if read_fire {
            let (f, addr, bytes) = reads
                .pop_front()
                .unwrap_or_else(|| panic!("{what} cycle {k}: an unexpected read {request:x?}"));
            assert_eq!(
                (request.function, request.address, request.bytes),
                (f, addr, bytes),
                "{what} cycle {k}: read request"
            );
            traffic.mem.request(k, request, &mut rng);
            r.reads += 1;
            last_progress = k;
        }
        if d_valid && d_ready {
            word_index += 1;
            last_progress = k;
            if let Some(FetchOutcome::Descriptor(want)) = expected.front() {
                if word_index == want.words.len() {
                    word_index = 0;
                    expected.pop_front();
                    r.descriptors += 1;
                }
            }
        }
        if e_valid && e_ready {
            if let Some(FetchOutcome::Error(want)) = expected.pop_front() {
                *r.statuses.entry(status_name(want.status)).or_default() += 1;
            }
            last_progress = k;
        }
        assert!(
            k - last_progress < 3000,
            "{what} cycle {k}: no progress for 3000 cycles (a hang); expecting {:x?}",
            expected.front()
        );
    }
    for _ in 0..3 {
        b.poke_bool(id("reset"), false);
        b.poke_bool(id("doorbell$valid"), false);
        b.poke_bool(id("completion$valid"), false);
        b.tick();
    }
    assert_eq!(
        b.peek(id("tags_in_use")),
        0,
        "{what}: the pool is not full again"
    );
    assert!(
        !b.peek_bool(id("descriptor$valid")) && !b.peek_bool(id("error$valid")),
        "{what}: output after the end"
    );
    sched.assert_pulses(&what, 3);
    r.max_tags_in_flight = traffic.mem.stats.max_tags_in_flight;
    r.cycles = k;
    r
}

fn run(tags: usize, mrrs: u64, seed: u64, doorbells: u64) -> (Report, (u64, u64)) {
    let r = run_both(
        &format!("descriptor_fetch_{tags}_{mrrs}"),
        || DescriptorFetchUnit::<2, 7>::new(tags, mrrs as usize),
        table,
        |b| (bench(b, seed, tags, mrrs, doorbells), latencies(b)),
    );
    r.result
}

#[test]
fn descriptor_fetch_matches_model() {
    let all = [
        EventStatus::UnknownKind,
        EventStatus::WordCount,
        EventStatus::Reserved,
        EventStatus::ZeroLength,
        EventStatus::TooLong,
        EventStatus::SegmentCount,
        EventStatus::ZeroSegment,
        EventStatus::TotalsMismatch,
        EventStatus::Padding,
        EventStatus::BadDoorbell,
        EventStatus::QpNotOwned,
        EventStatus::QpDisabled,
        EventStatus::ReadFailed,
    ];
    let (r, (nap, put)) = run(32, 512, 31, 1500);
    println!("descriptor fetch 32 tags, 512-byte reads: {r:?}");
    println!("descriptor fetch latency (memory excluded): NAP immediate 8 bytes {nap} cycles, PUT 1+1 segments {put} cycles");
    for s in all {
        assert!(
            r.statuses.contains_key(&status_name(s)),
            "status {s:?} never seen: {r:?}"
        );
    }
    assert!(r.descriptors > 500 && r.split_reads > 100, "{r:?}");
    let (r, _) = run(4, 128, 32, 1200);
    println!("descriptor fetch 4 tags, 128-byte reads: {r:?}");
    assert!(r.max_tags_in_flight == 4 && r.split_reads > 100, "{r:?}");
}
