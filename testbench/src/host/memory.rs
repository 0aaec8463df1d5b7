//! The host memory behind the NIC's host interface (`docs/host-interface.md`): a sparse byte
//! memory that serves read requests with split, delayed and reordered completions, and
//! applies posted writes, failing the bench on every broken rule of the interface.
//!
//! **Reads.** A request is checked when it is taken: its tag must be below the configured tag
//! count and not in flight, its length 1..=max read request, and it must not cross a 4 KB
//! boundary. Its data is read at that moment (a posted write taken earlier is visible). The
//! data is cut into completions at 64-byte boundaries (read completion boundary: each
//! boundary inside the request is a cut with probability `split`), each completion a run of
//! 16-byte beats. A completion may start `latency` cycles after its request plus a random
//! 0..=`jitter`, never before the tag's previous one; when several tags have a completion
//! ready, one is chosen at random (reordering across tags; a tag's own completions stay in
//! order); with `header_gap` the port idles one cycle before each completion (its header). The
//! final beat of a request carries `last`. A request touching a `poisoned` range is answered by
//! one beat with `error` and `last`.
//!
//! **Writes.** Beats accumulate into a write until `last`; each beat's address must be 16-byte
//! aligned and follow the previous one; the enabled bytes must be contiguous over the write
//! (only the first beat may start inside its block, only the last may end inside it), at least
//! one byte, at most max payload bytes, within one 4 KB page. A write is applied when its last
//! beat arrives and logged ([`WriteRecord`]), so a bench can check what was written where.
//!
//! The model is plain cycle-based Rust: [`HostMemory::offer`] and [`HostMemory::taken`] for the
//! completion stream, [`HostMemory::request`] and [`HostMemory::write_beat`] for what the NIC
//! sends; [`ReadRequest::peek`] and [`WriteBeat::peek`] read those from a top's ports.
use crate::backend::{Backend, PortId};
use crate::rng::BenchRng;
use std::collections::{HashMap, VecDeque};

/// Bytes of a host beat.
pub const BEAT_BYTES: u64 = 16;
/// Read completion boundary.
pub const RCB: u64 = 64;
/// No request or write crosses a multiple of this.
pub const PAGE: u64 = 4096;

/// How the host memory behaves.
#[derive(Clone, Debug)]
pub struct MemoryConfig {
    /// Cycles from a request's acceptance to the earliest start of its first completion.
    pub latency: u64,
    /// Extra random delay per completion, 0..=jitter cycles.
    pub jitter: u64,
    /// Probability that a read completion boundary inside a request cuts it.
    pub split: f64,
    /// One idle cycle before each completion (PCIe's completion header).
    pub header_gap: bool,
    /// Tags the NIC may use: 0..tags.
    pub tags: usize,
    /// Largest read request, bytes.
    pub max_read_request: u64,
    /// Largest write, bytes.
    pub max_payload: u64,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        Self {
            latency: 100,
            jitter: 8,
            split: 0.5,
            header_gap: true,
            tags: 32,
            max_read_request: 512,
            max_payload: 256,
        }
    }
}

/// A sparse byte memory: unwritten bytes read as zero.
#[derive(Clone, Debug, Default)]
pub struct SparseMemory {
    pages: HashMap<u64, Box<[u8; PAGE as usize]>>,
}

impl SparseMemory {
    /// The byte at `a`.
    pub fn byte(&self, a: u64) -> u8 {
        self.pages
            .get(&(a / PAGE))
            .map_or(0, |p| p[(a % PAGE) as usize])
    }
    /// Sets the byte at `a`.
    pub fn set_byte(&mut self, a: u64, v: u8) {
        self.pages
            .entry(a / PAGE)
            .or_insert_with(|| Box::new([0; PAGE as usize]))[(a % PAGE) as usize] = v;
    }
    /// `n` bytes from `a`.
    pub fn read(&self, a: u64, n: usize) -> Vec<u8> {
        (0..n as u64).map(|i| self.byte(a + i)).collect()
    }
    /// Writes `data` at `a`.
    pub fn write(&mut self, a: u64, data: &[u8]) {
        for (i, &b) in data.iter().enumerate() {
            self.set_byte(a + i as u64, b);
        }
    }
    /// The little-endian 64-bit word at `a`.
    pub fn word(&self, a: u64) -> u64 {
        u64::from_le_bytes(self.read(a, 8).try_into().expect("8 bytes"))
    }
    /// Writes a little-endian 64-bit word at `a`.
    pub fn write_word(&mut self, a: u64, w: u64) {
        self.write(a, &w.to_le_bytes());
    }
}

/// A read request as the NIC sends it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadRequest {
    /// Requesting function.
    pub function: u8,
    /// First byte's address.
    pub address: u64,
    /// Bytes.
    pub bytes: u64,
    /// Tag.
    pub tag: u8,
}

/// One completion beat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompletionBeat {
    /// The request's tag.
    pub tag: u8,
    /// 16 bytes, byte `i` in bits `8 i ..`.
    pub data: u128,
    /// The request's final beat.
    pub last: bool,
    /// The read failed.
    pub error: bool,
}

/// One posted write beat as the NIC sends it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteBeat {
    /// Writing function.
    pub function: u8,
    /// The beat's 16-byte block.
    pub address: u64,
    /// Bytes.
    pub data: u128,
    /// Byte enables.
    pub enables: u16,
    /// The write's last beat.
    pub last: bool,
}

/// A write applied to memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteRecord {
    /// Writing function.
    pub function: u8,
    /// First byte written.
    pub address: u64,
    /// The bytes.
    pub data: Vec<u8>,
    /// Cycle of its last beat.
    pub cycle: u64,
}

impl ReadRequest {
    /// The request on a top's `{prefix}$function`, `$address`, `$bytes`, `$tag` ports now
    /// (`port` names them to ids).
    pub fn peek(b: &mut dyn Backend, port: impl Fn(&str) -> PortId, prefix: &str) -> Self {
        let mut field = |n: &str| b.peek(port(&format!("{prefix}${n}")));
        Self {
            function: field("function") as u8,
            address: field("address") as u64,
            bytes: field("bytes") as u64,
            tag: field("tag") as u8,
        }
    }
}

impl WriteBeat {
    /// The beat on a top's `{prefix}$function`, `$address`, `$data`, `$enables`, `$last` ports
    /// now (`port` names them to ids).
    pub fn peek(b: &mut dyn Backend, port: impl Fn(&str) -> PortId, prefix: &str) -> Self {
        let mut field = |n: &str| b.peek(port(&format!("{prefix}${n}")));
        Self {
            function: field("function") as u8,
            address: field("address") as u64,
            data: field("data"),
            enables: field("enables") as u16,
            last: field("last") == 1,
        }
    }
}

/// A completion waiting to be sent.
#[derive(Clone, Debug)]
struct Completion {
    /// Earliest cycle it may start.
    at: u64,
    beats: VecDeque<CompletionBeat>,
}

/// What the model has counted, for bench reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryStats {
    /// Read requests taken.
    pub reads: u64,
    /// Bytes requested.
    pub read_bytes: u64,
    /// Completions sent.
    pub completions: u64,
    /// Beats sent.
    pub beats: u64,
    /// Writes applied.
    pub writes: u64,
    /// Bytes written.
    pub written_bytes: u64,
    /// Most tags in flight at once.
    pub max_tags_in_flight: usize,
}

/// The host memory model; see the module documentation.
pub struct HostMemory {
    /// The bytes.
    pub mem: SparseMemory,
    /// Behaviour.
    pub cfg: MemoryConfig,
    /// Address ranges whose reads fail: `[start, end)`.
    pub poisoned: Vec<(u64, u64)>,
    /// Every write applied, in order.
    pub log: Vec<WriteRecord>,
    /// Counts.
    pub stats: MemoryStats,
    /// Per tag in flight: its completions still to send.
    in_flight: HashMap<u8, VecDeque<Completion>>,
    /// The completion being sent (its tag), once started.
    current: Option<u8>,
    /// Idle cycles owed before the next completion starts (its header).
    gap: u64,
    /// The beat on offer (held until taken).
    offered: Option<CompletionBeat>,
    /// The write being assembled: its beats so far.
    writing: Vec<WriteBeat>,
}

impl HostMemory {
    /// An empty memory.
    pub fn new(cfg: MemoryConfig) -> Self {
        Self {
            mem: SparseMemory::default(),
            cfg,
            poisoned: vec![],
            log: vec![],
            stats: MemoryStats::default(),
            in_flight: HashMap::new(),
            current: None,
            gap: 0,
            offered: None,
            writing: vec![],
        }
    }

    /// Tags in flight.
    pub fn tags_in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// Forgets every read in flight and the write being assembled (the NIC was reset).
    pub fn abandon(&mut self) {
        self.in_flight.clear();
        self.current = None;
        self.gap = 0;
        self.offered = None;
        self.writing.clear();
    }

    /// Takes a read request in cycle `now`; panics (a bench failure) on a broken rule.
    pub fn request(&mut self, now: u64, r: ReadRequest, rng: &mut BenchRng) {
        assert!(
            (r.tag as usize) < self.cfg.tags,
            "cycle {now}: read tag {} beyond the {} tags configured",
            r.tag,
            self.cfg.tags
        );
        assert!(
            !self.in_flight.contains_key(&r.tag),
            "cycle {now}: read tag {} reused while in flight ({r:?})",
            r.tag
        );
        assert!(
            (1..=self.cfg.max_read_request).contains(&r.bytes),
            "cycle {now}: read of {} bytes (1..={}) ({r:?})",
            r.bytes,
            self.cfg.max_read_request
        );
        assert!(
            r.address / PAGE == (r.address + r.bytes - 1) / PAGE,
            "cycle {now}: read crosses a 4 KB boundary ({r:?})"
        );
        self.stats.reads += 1;
        self.stats.read_bytes += r.bytes;
        let end = r.address + r.bytes;
        let mut completions = VecDeque::new();
        let mut at = now + self.cfg.latency;
        if self.poisoned.iter().any(|&(s, e)| r.address < e && s < end) {
            completions.push_back(Completion {
                at: at + rng.range(0, self.cfg.jitter),
                beats: VecDeque::from([CompletionBeat {
                    tag: r.tag,
                    data: 0,
                    last: true,
                    error: true,
                }]),
            });
        } else {
            // Cut points: the RCB boundaries strictly inside the request, each with `split`.
            let mut cuts: Vec<u64> = (r.address / RCB + 1..=(end - 1) / RCB)
                .map(|k| k * RCB)
                .filter(|_| rng.chance(self.cfg.split))
                .collect();
            cuts.push(end);
            let mut start = r.address;
            for cut in cuts {
                let mut beats = VecDeque::new();
                let mut block = start / BEAT_BYTES * BEAT_BYTES;
                while block < cut {
                    let bytes = self.mem.read(block, BEAT_BYTES as usize);
                    let data = bytes.iter().rev().fold(0u128, |w, &b| (w << 8) | b as u128);
                    beats.push_back(CompletionBeat {
                        tag: r.tag,
                        data,
                        last: false,
                        error: false,
                    });
                    block += BEAT_BYTES;
                }
                at += rng.range(0, self.cfg.jitter);
                completions.push_back(Completion { at, beats });
                start = cut;
            }
            let last = completions.back_mut().expect("one completion at least");
            last.beats.back_mut().expect("one beat at least").last = true;
        }
        self.in_flight.insert(r.tag, completions);
        self.stats.max_tags_in_flight = self.stats.max_tags_in_flight.max(self.in_flight.len());
    }

    /// The completion beat offered in cycle `now` (the same one until it is taken).
    pub fn offer(&mut self, now: u64, rng: &mut BenchRng) -> Option<CompletionBeat> {
        if self.offered.is_some() {
            return self.offered;
        }
        if self.current.is_none() {
            let ready: Vec<u8> = self
                .in_flight
                .iter()
                .filter(|(_, c)| c.front().is_some_and(|c| c.at <= now))
                .map(|(&t, _)| t)
                .collect();
            if ready.is_empty() {
                return None;
            }
            let mut ready = ready;
            ready.sort();
            self.current = Some(ready[rng.range(0, ready.len() as u64 - 1) as usize]);
            self.stats.completions += 1;
            if self.cfg.header_gap {
                self.gap = 1;
            }
        }
        if self.gap > 0 {
            self.gap -= 1;
            return None;
        }
        let tag = self.current.expect("chosen");
        let c = self.in_flight.get_mut(&tag).expect("in flight");
        self.offered = c.front_mut().and_then(|c| c.beats.front().copied());
        self.offered
    }

    /// The offered beat was taken on this edge.
    pub fn taken(&mut self) {
        let beat = self.offered.take().expect("a beat was offered");
        self.stats.beats += 1;
        let q = self.in_flight.get_mut(&beat.tag).expect("in flight");
        let c = q.front_mut().expect("a completion");
        c.beats.pop_front();
        if c.beats.is_empty() {
            q.pop_front();
            self.current = None;
        }
        if beat.last {
            assert!(q.is_empty(), "the last beat ends the request");
            self.in_flight.remove(&beat.tag);
        }
    }

    /// Takes a write beat in cycle `now`; applies the write at its last beat. Panics (a bench
    /// failure) on a broken rule.
    pub fn write_beat(&mut self, now: u64, w: WriteBeat) {
        assert!(
            w.address.is_multiple_of(BEAT_BYTES),
            "cycle {now}: write beat address {:#x} not 16-byte aligned",
            w.address
        );
        if let Some(prev) = self.writing.last() {
            assert_eq!(
                w.address,
                prev.address + BEAT_BYTES,
                "cycle {now}: write beats not consecutive"
            );
            assert_eq!(
                w.function, prev.function,
                "cycle {now}: write changes function"
            );
        }
        self.writing.push(w);
        if !w.last {
            return;
        }
        let beats = std::mem::take(&mut self.writing);
        // Enabled bytes, in address order, must be one contiguous run.
        let mut bytes = vec![];
        let mut first = None;
        let mut ended = false;
        for b in &beats {
            for i in 0..BEAT_BYTES {
                let on = (b.enables >> i) & 1 == 1;
                match (on, first.is_some(), ended) {
                    (true, false, _) => {
                        first = Some(b.address + i);
                        bytes.push((b.data >> (8 * i)) as u8);
                    }
                    (true, true, false) => bytes.push((b.data >> (8 * i)) as u8),
                    (true, true, true) => {
                        panic!("cycle {now}: write's enabled bytes not contiguous ({beats:x?})")
                    }
                    (false, true, _) => ended = true,
                    (false, false, _) => {}
                }
            }
        }
        let first = first.unwrap_or_else(|| panic!("cycle {now}: write with no byte enabled"));
        let n = bytes.len() as u64;
        assert!(
            n <= self.cfg.max_payload,
            "cycle {now}: write of {n} bytes above max payload {}",
            self.cfg.max_payload
        );
        assert!(
            first / PAGE == (first + n - 1) / PAGE,
            "cycle {now}: write at {first:#x} of {n} bytes crosses a 4 KB boundary"
        );
        assert!(
            beats[0].address == first / BEAT_BYTES * BEAT_BYTES
                && beats.last().expect("beats").address
                    == (first + n - 1) / BEAT_BYTES * BEAT_BYTES,
            "cycle {now}: write has beats with no enabled byte"
        );
        self.mem.write(first, &bytes);
        self.stats.writes += 1;
        self.stats.written_bytes += n;
        self.log.push(WriteRecord {
            function: w.function,
            address: first,
            data: bytes,
            cycle: now,
        });
    }
}

/// The beats a write of `data` at `address` takes (one write; the caller keeps to max payload
/// and 4 KB): what a correct NIC sends, for the model's own tests and for benches that stand
/// in for a NIC block.
pub fn write_beats(function: u8, address: u64, data: &[u8]) -> Vec<WriteBeat> {
    let mut beats = vec![];
    let end = address + data.len() as u64;
    let mut block = address / BEAT_BYTES * BEAT_BYTES;
    while block < end {
        let mut d = 0u128;
        let mut en = 0u16;
        for i in 0..BEAT_BYTES {
            let a = block + i;
            if a >= address && a < end {
                d |= (data[(a - address) as usize] as u128) << (8 * i);
                en |= 1 << i;
            }
        }
        beats.push(WriteBeat {
            function,
            address: block,
            data: d,
            enables: en,
            last: block + BEAT_BYTES >= end,
        });
        block += BEAT_BYTES;
    }
    beats
}

/// The bytes of a request reassembled from its beats (what a correct NIC extracts).
pub fn request_bytes(r: &ReadRequest, beats: &[CompletionBeat]) -> Vec<u8> {
    let all: Vec<u8> = beats
        .iter()
        .flat_map(|b| (0..16).map(move |i| (b.data >> (8 * i)) as u8))
        .collect();
    let skip = (r.address % BEAT_BYTES) as usize;
    all[skip..skip + r.bytes as usize].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(seed: u64) -> (HostMemory, BenchRng) {
        let mut m = HostMemory::new(MemoryConfig {
            latency: 20,
            jitter: 5,
            ..Default::default()
        });
        let mut rng = BenchRng::new(seed);
        for a in (0..0x4000u64).step_by(8) {
            m.mem.write_word(a, a * 0x0101_0101 + seed);
        }
        (m, rng_fork(&mut rng))
    }

    fn rng_fork(r: &mut BenchRng) -> BenchRng {
        BenchRng::new(r.range(0, u64::MAX - 1))
    }

    /// Issues random requests and collects the beats, taking one beat per cycle with random
    /// backpressure: every request's bytes come back exactly, beats of a tag in order, tags
    /// interleaved, completions split only at 64-byte boundaries.
    #[test]
    fn reads_come_back_split_reordered_and_exact() {
        for seed in 1..=20 {
            let (mut m, mut rng) = memory(seed);
            let mut free: Vec<u8> = (0..32).collect();
            let mut pending: HashMap<u8, (ReadRequest, Vec<CompletionBeat>, u64)> = HashMap::new();
            let (mut issued, mut done, mut interleaved, mut split) = (0, 0, 0, 0);
            let mut last_tag = None;
            let mut now = 0;
            while done < 300 {
                if issued < 300 && !free.is_empty() && rng.chance(0.3) {
                    let tag = free.remove(rng.range(0, free.len() as u64 - 1) as usize);
                    let bytes = rng.range(1, 512);
                    let mut address = rng.range(0, 0x3000);
                    if address / PAGE != (address + bytes - 1) / PAGE {
                        address = (address + bytes) / PAGE * PAGE;
                    }
                    let r = ReadRequest {
                        function: 0,
                        address,
                        bytes,
                        tag,
                    };
                    m.request(now, r, &mut rng);
                    pending.insert(tag, (r, vec![], now));
                    issued += 1;
                }
                if let Some(b) = m.offer(now, &mut rng) {
                    if rng.chance(0.8) {
                        m.taken();
                        // Another tag's beat while a request already under way waits.
                        if last_tag.is_some_and(|t| {
                            t != b.tag && pending.get(&t).is_some_and(|p| !p.1.is_empty())
                        }) {
                            interleaved += 1;
                        }
                        last_tag = Some(b.tag);
                        let p = pending
                            .get_mut(&b.tag)
                            .expect("a beat for a request in flight");
                        assert!(now >= p.2 + 20, "seed {seed}: a beat before the latency");
                        p.1.push(b);
                        if b.last {
                            let (r, beats, _) = pending.remove(&b.tag).unwrap();
                            let n = ((r.address % 16 + r.bytes) as usize).div_ceil(16);
                            assert_eq!(beats.len(), n, "seed {seed}: beats of {r:?}");
                            assert_eq!(
                                request_bytes(&r, &beats),
                                m.mem.read(r.address, r.bytes as usize)
                            );
                            free.push(r.tag);
                            done += 1;
                        }
                    }
                }
                now += 1;
                assert!(now < 1_000_000, "hang");
            }
            split += m.stats.completions - m.stats.reads;
            assert!(interleaved > 0, "seed {seed}: tags never interleaved");
            assert!(split > 0, "seed {seed}: never split");
            assert!(m.stats.max_tags_in_flight > 4);
        }
    }

    #[test]
    #[should_panic(expected = "read tag 3 reused while in flight")]
    fn a_tag_in_flight_cannot_be_reused() {
        let (mut m, mut rng) = memory(1);
        let r = ReadRequest {
            function: 0,
            address: 0,
            bytes: 8,
            tag: 3,
        };
        m.request(0, r, &mut rng);
        m.request(1, r, &mut rng);
    }

    #[test]
    #[should_panic(expected = "crosses a 4 KB boundary")]
    fn a_read_must_not_cross_4k() {
        let (mut m, mut rng) = memory(1);
        m.request(
            0,
            ReadRequest {
                function: 0,
                address: 4090,
                bytes: 8,
                tag: 0,
            },
            &mut rng,
        );
    }

    #[test]
    #[should_panic(expected = "beyond the 32 tags")]
    fn tags_beyond_the_limit_fail() {
        let (mut m, mut rng) = memory(1);
        m.request(
            0,
            ReadRequest {
                function: 0,
                address: 0,
                bytes: 8,
                tag: 32,
            },
            &mut rng,
        );
    }

    #[test]
    fn poisoned_reads_fail_with_one_beat() {
        let (mut m, mut rng) = memory(1);
        m.poisoned.push((0x100, 0x140));
        m.request(
            0,
            ReadRequest {
                function: 0,
                address: 0xf0,
                bytes: 32,
                tag: 1,
            },
            &mut rng,
        );
        let mut now = 0;
        let b = loop {
            if let Some(b) = m.offer(now, &mut rng) {
                break b;
            }
            now += 1;
        };
        assert!(b.error && b.last);
        m.taken();
        assert_eq!(m.tags_in_flight(), 0);
    }

    #[test]
    fn writes_apply_and_check_their_rules() {
        let (mut m, _) = memory(1);
        let data: Vec<u8> = (0..100).collect();
        for b in write_beats(2, 0x1003, &data) {
            m.write_beat(7, b);
        }
        assert_eq!(m.mem.read(0x1003, 100), data);
        assert_eq!(m.log.len(), 1);
        assert_eq!(
            (m.log[0].function, m.log[0].address, m.log[0].cycle),
            (2, 0x1003, 7)
        );
        let bad = [
            (write_beats(0, 0xff0, &[1; 32]), "crosses a 4 KB boundary"),
            (write_beats(0, 0x0, &[1; 300]), "above max payload"),
            (
                {
                    let mut b = write_beats(0, 0x2000, &[1; 48]);
                    b[1].enables = 0xff00;
                    b
                },
                "not contiguous",
            ),
            (
                {
                    let mut b = write_beats(0, 0x2000, &[1; 32]);
                    b[1].address = 0x2020;
                    b
                },
                "not consecutive",
            ),
            (
                {
                    let mut b = write_beats(0, 0x2000, &[1; 16]);
                    b[0].enables = 0;
                    b
                },
                "no byte enabled",
            ),
        ];
        for (beats, want) in bad {
            let r = std::panic::catch_unwind(|| {
                let (mut m, _) = memory(1);
                for b in beats {
                    m.write_beat(0, b);
                }
            });
            let e = r.expect_err(want);
            let msg = e.downcast_ref::<String>().cloned().unwrap_or_default();
            assert!(msg.contains(want), "{msg} should say {want}");
        }
    }
}
