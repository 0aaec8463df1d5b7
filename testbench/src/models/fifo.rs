//! Cycle-accurate model of the FIFO family (`RegFifo`, `BramFifo`, `StreamFifo`) at its ports.
//!
//! Given the inputs of a cycle, [`FifoModel::outputs`] gives the exact `sink.ready`,
//! `source.valid`, `source.data` (when valid) and `count` the hardware must show; then
//! [`FifoModel::tick`] applies the clock edge. The rules, shared by every FIFO of the family:
//! - `sink.ready == count < depth` (a full FIFO refuses a beat even while popping one);
//! - `count` = beats accepted and not yet popped (a beat falling through is never counted);
//! - a reset edge empties the FIFO; handshakes in a reset cycle are void on both sides;
//! - visibility: a register FIFO shows a beat the cycle after it is accepted (with
//!   fall-through, the same cycle when empty); a block-RAM FIFO two cycles after.
use std::collections::VecDeque;

/// Which FIFO the model follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FifoFlavor {
    /// `RegFifo` (and `StreamFifo` in registers, `fall_through: false`). Depth 0 is a wire.
    Registers {
        /// Beats reach `source` in the cycle they arrive at an empty FIFO.
        fall_through: bool,
    },
    /// `BramFifo` (and `StreamFifo` in block RAM): latency 2.
    BlockRam,
}

/// The outputs of a FIFO in one cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FifoOutputs {
    /// `sink.ready`.
    pub sink_ready: bool,
    /// `source.valid`.
    pub source_valid: bool,
    /// `source.data` when `source.valid` (unspecified otherwise).
    pub source_data: Option<u128>,
    /// `count`.
    pub count: usize,
}

/// What an edge did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FifoEdge {
    /// The beat accepted from `sink` (also a beat that fell straight through).
    pub accepted: Option<u128>,
    /// The beat delivered on `source`.
    pub delivered: Option<u128>,
}

/// The model: the beats held, each with the first cycle it may be shown.
#[derive(Clone, Debug)]
pub struct FifoModel {
    depth: usize,
    flavor: FifoFlavor,
    /// (beat, first cycle number in which it may be at the head of `source`).
    beats: VecDeque<(u128, u64)>,
    /// Edges applied so far, i.e. the number of the current cycle.
    cycle: u64,
}

impl FifoModel {
    /// A FIFO of `depth` slots of `flavor`.
    pub fn new(depth: usize, flavor: FifoFlavor) -> Self {
        assert!(
            depth > 0 || flavor != FifoFlavor::BlockRam,
            "a block-RAM FIFO has at least one slot"
        );
        Self {
            depth,
            flavor,
            beats: VecDeque::new(),
            cycle: 0,
        }
    }

    /// A reset edge: empty (what [`FifoModel::tick`] does with `reset`).
    pub fn reset(&mut self) {
        self.beats.clear();
    }

    /// Beats held.
    pub fn len(&self) -> usize {
        self.beats.len()
    }

    /// True when no beat is held.
    pub fn is_empty(&self) -> bool {
        self.beats.is_empty()
    }

    fn latency(&self) -> u64 {
        match self.flavor {
            FifoFlavor::Registers { .. } => 1,
            FifoFlavor::BlockRam => 2,
        }
    }

    fn fall_through(&self) -> bool {
        matches!(self.flavor, FifoFlavor::Registers { fall_through: true })
    }

    /// The outputs in the current cycle for the given inputs.
    pub fn outputs(&self, sink_valid: bool, sink_data: u128, source_ready: bool) -> FifoOutputs {
        if self.depth == 0 {
            return FifoOutputs {
                sink_ready: source_ready,
                source_valid: sink_valid,
                source_data: sink_valid.then_some(sink_data),
                count: 0,
            };
        }
        let head = self
            .beats
            .front()
            .filter(|(_, from)| *from <= self.cycle)
            .map(|(d, _)| *d);
        let (source_valid, source_data) = match head {
            Some(d) => (true, Some(d)),
            None if self.beats.is_empty() && self.fall_through() && sink_valid => {
                (true, Some(sink_data))
            }
            None => (false, None),
        };
        FifoOutputs {
            sink_ready: self.beats.len() < self.depth,
            source_valid,
            source_data,
            count: self.beats.len(),
        }
    }

    /// Applies one clock edge with the given inputs; returns what moved.
    pub fn tick(
        &mut self,
        reset: bool,
        sink_valid: bool,
        sink_data: u128,
        source_ready: bool,
    ) -> FifoEdge {
        let out = self.outputs(sink_valid, sink_data, source_ready);
        let cycle = self.cycle;
        self.cycle += 1;
        if reset {
            self.reset();
            return FifoEdge::default();
        }
        let push = sink_valid && out.sink_ready;
        let pop = out.source_valid && source_ready;
        let edge = FifoEdge {
            accepted: push.then_some(sink_data),
            delivered: if pop { out.source_data } else { None },
        };
        if self.depth == 0 || (pop && push && self.beats.is_empty()) {
            // A wire, or a beat falling straight through an empty fall-through FIFO.
            return edge;
        }
        if pop {
            self.beats.pop_front();
        }
        if push {
            self.beats.push_back((sink_data, cycle + self.latency()));
        }
        edge
    }
}

#[test]
fn model_latencies() {
    // Register FIFO: shown the cycle after; block RAM: two cycles after; fall-through: at once.
    for (flavor, latency) in [
        (
            FifoFlavor::Registers {
                fall_through: false,
            },
            1,
        ),
        (FifoFlavor::Registers { fall_through: true }, 0),
        (FifoFlavor::BlockRam, 2),
    ] {
        let mut m = FifoModel::new(4, flavor);
        let mut seen = None;
        for c in 0..4 {
            let o = m.outputs(c == 0, 7, false);
            if o.source_valid && seen.is_none() {
                seen = Some(c);
                assert_eq!(o.source_data, Some(7));
            }
            m.tick(false, c == 0, 7, false);
        }
        assert_eq!(seen, Some(latency), "{flavor:?}");
    }
}

#[test]
fn model_full_refuses_while_popping() {
    let mut m = FifoModel::new(
        2,
        FifoFlavor::Registers {
            fall_through: false,
        },
    );
    m.tick(false, true, 1, false);
    m.tick(false, true, 2, false);
    let o = m.outputs(true, 3, true);
    assert!(!o.sink_ready && o.source_valid && o.count == 2);
    let e = m.tick(false, true, 3, true);
    assert_eq!((e.accepted, e.delivered), (None, Some(1)));
    assert_eq!(m.len(), 1);
}
