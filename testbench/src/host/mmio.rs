//! The host's MMIO port towards a NIC top: issues the driver's register accesses on the
//! `mmio$...` ports (random idle with random fields, the hold rule), takes read completions on
//! `completion$...` with random backpressure, and pairs each completion with its read.
//!
//! Each read gets the next tag (mod 256); completions must come back in request order with the
//! request's tag, and a completion that changes or withdraws before it is taken fails the
//! bench (`models::stream::Receiver`'s checks).
use crate::backend::{Backend, PortId};
use crate::models::stream::{Receiver, StreamPorts};
use crate::rng::BenchRng;
use nic::host::mmio::MmioStatus;
use std::collections::VecDeque;

/// One register access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmioAccess {
    /// The BAR (function).
    pub function: u8,
    /// Byte offset in the BAR.
    pub offset: u64,
    /// Write (posted), else read.
    pub write: bool,
    /// Write data.
    pub data: u64,
}

impl MmioAccess {
    /// A read of `offset` in BAR `function`.
    pub fn read(function: u8, offset: u64) -> Self {
        Self {
            function,
            offset,
            write: false,
            data: 0,
        }
    }
    /// A write of `data` to `offset` in BAR `function`.
    pub fn write(function: u8, offset: u64, data: u64) -> Self {
        Self {
            function,
            offset,
            write: true,
            data,
        }
    }
}

/// A read's completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmioCompletion {
    /// The read's tag.
    pub tag: u8,
    /// The data.
    pub data: u64,
    /// How the read was answered.
    pub status: MmioStatus,
}

/// The request-side ports.
#[derive(Clone, Copy, Debug)]
struct RequestPorts {
    valid: PortId,
    function: PortId,
    offset: PortId,
    write: PortId,
    data: PortId,
    tag: PortId,
    ready: PortId,
}

/// The host's MMIO side; see the module documentation.
pub struct MmioHost {
    req: RequestPorts,
    completion: Receiver,
    completion_tag: PortId,
    completion_status: PortId,
    /// Accesses still to issue, in order.
    pub queue: VecDeque<MmioAccess>,
    /// Probability of offering a waiting access in a cycle.
    pub rate: f64,
    offering: Option<(MmioAccess, u8)>,
    next_tag: u8,
    /// Reads issued and not yet answered, with their tags.
    pub outstanding: VecDeque<(u8, MmioAccess)>,
}

impl MmioHost {
    /// The host on `b`'s `{prefix}mmio$...` and `{prefix}completion$...` ports, offering with
    /// probability `rate` and ready with probability `ready_rate`.
    pub fn new(b: &dyn Backend, prefix: &str, rate: f64, ready_rate: f64) -> Self {
        let p = |n: &str| b.port(&format!("{prefix}mmio${n}"));
        Self {
            req: RequestPorts {
                valid: p("valid"),
                function: p("function"),
                offset: p("offset"),
                write: p("write"),
                data: p("data"),
                tag: p("tag"),
                ready: p("ready"),
            },
            completion: Receiver::new(
                StreamPorts::new(b, &format!("{prefix}completion")),
                ready_rate,
            ),
            completion_tag: b.port(&format!("{prefix}completion$tag")),
            completion_status: b.port(&format!("{prefix}completion$status")),
            queue: VecDeque::new(),
            rate,
            offering: None,
            next_tag: 0,
            outstanding: VecDeque::new(),
        }
    }

    /// Whether nothing is waiting to be issued or answered.
    pub fn idle(&self) -> bool {
        self.queue.is_empty() && self.offering.is_none() && self.outstanding.is_empty()
    }

    /// Sets this cycle's inputs: the waiting access (or random fields with `valid` low) and
    /// the completion's `ready`.
    pub fn drive(&mut self, b: &mut dyn Backend, rng: &mut BenchRng) {
        if self.offering.is_none() && !self.queue.is_empty() && rng.chance(self.rate) {
            let a = self.queue.pop_front().expect("waiting");
            let tag = self.next_tag;
            self.offering = Some((a, tag));
        }
        let r = self.req;
        match self.offering {
            Some((a, tag)) => {
                b.poke_bool(r.valid, true);
                b.poke(r.function, a.function as u128);
                b.poke(r.offset, a.offset as u128);
                b.poke_bool(r.write, a.write);
                b.poke(r.data, a.data as u128);
                b.poke(r.tag, tag as u128);
            }
            None => {
                b.poke_bool(r.valid, false);
                b.poke(r.function, rng.bits(3));
                b.poke(r.offset, rng.bits(16));
                b.poke(r.write, rng.bits(1));
                b.poke(r.data, rng.bits(64));
                b.poke(r.tag, rng.bits(8));
            }
        }
        self.completion.drive(b, rng);
    }

    /// After outputs settle, before the edge: the access taken on this edge, and the
    /// completion taken with the read it answers. Panics if a completion comes out of order,
    /// with a wrong tag, or with no read outstanding.
    pub fn fired(
        &mut self,
        b: &mut dyn Backend,
    ) -> (Option<MmioAccess>, Option<(MmioAccess, MmioCompletion)>) {
        let done = self.completion.fired(b).map(|data| {
            let tag = b.peek(self.completion_tag) as u8;
            let code = b.peek(self.completion_status) as u64;
            let status = MmioStatus::from_code(code)
                .unwrap_or_else(|| panic!("cycle {}: MMIO status code {code}", b.cycle()));
            let (want, a) = self
                .outstanding
                .pop_front()
                .unwrap_or_else(|| panic!("cycle {}: a completion with no read", b.cycle()));
            assert_eq!(
                tag,
                want,
                "cycle {}: completion tag (reads answered in order)",
                b.cycle()
            );
            (
                a,
                MmioCompletion {
                    tag,
                    data: data as u64,
                    status,
                },
            )
        });
        let mut sent = None;
        if let Some((a, tag)) = self.offering {
            if b.peek_bool(self.req.ready) {
                self.offering = None;
                if !a.write {
                    self.outstanding.push_back((tag, a));
                    self.next_tag = self.next_tag.wrapping_add(1);
                }
                sent = Some(a);
            }
        }
        (sent, done)
    }

    /// The NIC was reset: the access on offer is withdrawn (it stays first in the queue) and
    /// reads not answered are abandoned.
    pub fn reset(&mut self) {
        if let Some((a, _)) = self.offering.take() {
            self.queue.push_front(a);
        }
        self.outstanding.clear();
        self.completion.reset();
    }
}
