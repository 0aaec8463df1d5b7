//! Bench-side drivers and checkers for valid/ready streams, with random idle and backpressure.
//!
//! While `valid` is low the [`Driver`] puts random bits on `data` (from the bench's seeded
//! generator), never zero: a block that used `data` without looking at `valid` would then
//! show it.
use crate::backend::{Backend, PortId};
use crate::rng::BenchRng;
use std::collections::VecDeque;

/// The ports of one stream on a top, looked up by prefix (`sink` gives `sink$valid`, ...).
#[derive(Clone, Copy, Debug)]
pub struct StreamPorts {
    /// `valid`.
    pub valid: PortId,
    /// `data`.
    pub data: PortId,
    /// `ready`.
    pub ready: PortId,
    /// Width of `data` in bits.
    pub data_width: usize,
}

impl StreamPorts {
    /// Ports `{prefix}$valid`, `{prefix}$data`, `{prefix}$ready` of `b`.
    pub fn new(b: &dyn Backend, prefix: &str) -> Self {
        let data = b.port(&format!("{prefix}$data"));
        Self {
            valid: b.port(&format!("{prefix}$valid")),
            data,
            ready: b.port(&format!("{prefix}$ready")),
            data_width: b.ports()[data.0].width,
        }
    }
}

/// Drives a block's sink with queued beats, idling at random, obeying the hold rule
/// (valid and data stay until the beat moves), with random data while idle.
pub struct Driver {
    /// The block's sink ports.
    pub ports: StreamPorts,
    /// Beats still to send.
    pub queue: VecDeque<u128>,
    /// Probability of offering a beat in a cycle when one is waiting.
    pub rate: f64,
    offering: bool,
}

impl Driver {
    /// A driver of `ports` that offers a waiting beat with probability `rate` per cycle.
    pub fn new(ports: StreamPorts, rate: f64) -> Self {
        Self {
            ports,
            queue: VecDeque::new(),
            rate,
            offering: false,
        }
    }
    /// Sets valid/data for this cycle (call before peeking outputs): the waiting beat, or
    /// random bits while idle.
    pub fn drive(&mut self, b: &mut dyn Backend, rng: &mut BenchRng) {
        if !self.offering && !self.queue.is_empty() && rng.chance(self.rate) {
            self.offering = true;
        }
        b.poke_bool(self.ports.valid, self.offering);
        let data = if self.offering {
            self.queue[0]
        } else {
            rng.bits(self.ports.data_width)
        };
        b.poke(self.ports.data, data);
    }
    /// The source this driver stands for was reset: it stops offering (the beat it offered
    /// stays first in the queue).
    pub fn reset(&mut self) {
        self.offering = false;
    }
    /// After outputs are settled and before the edge: returns the beat that moves on this edge.
    pub fn fired(&mut self, b: &mut dyn Backend) -> Option<u128> {
        if self.offering && b.peek_bool(self.ports.ready) {
            self.offering = false;
            self.queue.pop_front()
        } else {
            None
        }
    }
}

/// Takes beats from a block's source, with random backpressure, and checks the hold rule.
pub struct Receiver {
    /// The block's source ports.
    pub ports: StreamPorts,
    /// Probability of `ready` in a cycle.
    pub rate: f64,
    ready: bool,
    held: Option<u128>,
}

impl Receiver {
    /// A receiver of `ports` that is ready with probability `rate` per cycle.
    pub fn new(ports: StreamPorts, rate: f64) -> Self {
        Self {
            ports,
            rate,
            ready: false,
            held: None,
        }
    }
    /// Sets ready for this cycle.
    pub fn drive(&mut self, b: &mut dyn Backend, rng: &mut BenchRng) {
        self.ready = rng.chance(self.rate);
        b.poke_bool(self.ports.ready, self.ready);
    }
    /// The block was reset: a beat it was offering is gone, and its source may drop `valid`.
    pub fn reset(&mut self) {
        self.held = None;
    }
    /// After outputs settle and before the edge: the beat taken on this edge, if any.
    /// Panics if a source withdrew or changed a beat it offered before it moved.
    pub fn fired(&mut self, b: &mut dyn Backend) -> Option<u128> {
        let valid = b.peek_bool(self.ports.valid);
        let data = b.peek(self.ports.data);
        if let Some(h) = self.held {
            assert!(
                valid,
                "cycle {}: source dropped valid before its beat moved",
                b.cycle()
            );
            assert_eq!(
                data,
                h,
                "cycle {}: source changed data before its beat moved",
                b.cycle()
            );
        }
        if valid && self.ready {
            self.held = None;
            Some(data)
        } else {
            self.held = if valid { Some(data) } else { None };
            None
        }
    }
}
