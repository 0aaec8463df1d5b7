//! Reference models of the NIC's doorbell blocks, written from their documentation:
//! [`WrrModel`] (`nic::doorbell::WeightedArbiter`), [`DeficitModel`]
//! (`nic::doorbell::DeficitGate`) and [`DoorbellQueuesModel`]
//! (`nic::doorbell::DoorbellQueues`), cycle-accurate at their ports.
use nic::doorbell::deficit_gate::{charge_units, BIAS, QUANTUM_UNITS};
use std::collections::VecDeque;

/// The byte-fairness gate: per function a credit (`BIAS` + deficit, in 64-byte units); only
/// functions with no deficit pass while enabled; every credit gains the quantum (up to
/// `BIAS` + quantum) when every requesting function has overdrawn; a charge takes its units,
/// saturating at 0.
#[derive(Clone, Debug)]
pub struct DeficitModel {
    /// Per function: `BIAS` + deficit.
    pub credits: Vec<u64>,
}

impl DeficitModel {
    /// `n` functions, every deficit zero.
    pub fn new(n: usize) -> Self {
        Self {
            credits: vec![BIAS; n],
        }
    }
    /// Which requests pass this cycle.
    pub fn eligible(&self, requests: &[bool], enable: bool) -> Vec<bool> {
        requests
            .iter()
            .zip(&self.credits)
            .map(|(&r, &c)| r && (!enable || c >= BIAS))
            .collect()
    }
    /// One clock edge; `charge`: (function, bytes), a function beyond the gate's is ignored.
    pub fn edge(
        &mut self,
        requests: &[bool],
        enable: bool,
        charge: Option<(usize, u64)>,
        reset: bool,
    ) {
        let eligible = self.eligible(requests, enable);
        let replenish = enable && requests.iter().any(|&r| r) && !eligible.iter().any(|&e| e);
        for (f, c) in self.credits.iter_mut().enumerate() {
            if replenish {
                *c = (*c + QUANTUM_UNITS).min(BIAS + QUANTUM_UNITS);
            }
            if let Some((_, bytes)) = charge.filter(|x| x.0 == f) {
                *c = c.saturating_sub(charge_units(bytes));
            }
            if reset || !enable {
                *c = BIAS;
            }
        }
    }
}

/// The weighted round-robin arbiter: round robin from a pointer; when weighted, a granted
/// requester keeps the grant for up to its weight (0 counts as 1) uses in a row while it
/// requests.
#[derive(Clone, Debug)]
pub struct WrrModel {
    n: usize,
    pointer: usize,
    holder: usize,
    holding: bool,
    served: u64,
}

impl WrrModel {
    /// `n` requesters, as after reset.
    pub fn new(n: usize) -> Self {
        Self {
            n,
            pointer: 0,
            holder: 0,
            holding: false,
            served: 0,
        }
    }
    /// Back to the reset state (the holder's number is kept, as the hardware keeps it; with
    /// no burst running it is not looked at).
    pub fn reset(&mut self) {
        self.pointer = 0;
        self.holding = false;
        self.served = 0;
    }
    /// Whether the current burst goes on for `requests`.
    fn stay(&self, requests: &[bool], weighted: bool, weights: &[u64]) -> bool {
        weighted
            && self.holding
            && requests[self.holder]
            && self.served < weights[self.holder].max(1)
    }
    /// The requester granted this cycle.
    pub fn grant(&self, requests: &[bool], weighted: bool, weights: &[u64]) -> Option<usize> {
        if self.stay(requests, weighted, weights) {
            return Some(self.holder);
        }
        (0..self.n)
            .map(|k| (self.pointer + k) % self.n)
            .find(|&i| requests[i])
    }
    /// One clock edge with these inputs (`advance`: the grant is used).
    pub fn edge(&mut self, requests: &[bool], advance: bool, weighted: bool, weights: &[u64]) {
        let stay = self.stay(requests, weighted, weights);
        if let (Some(g), true) = (self.grant(requests, weighted, weights), advance) {
            self.pointer = (g + 1) % self.n;
            if stay {
                self.served += 1;
            } else {
                self.holder = g;
                self.served = 1;
            }
            self.holding = weighted;
        }
        if !weighted {
            self.holding = false;
        }
    }
}

/// Inputs of one cycle of [`DoorbellQueuesModel`].
#[derive(Clone, Debug, Default)]
pub struct QueuesInputs {
    /// Synchronous reset.
    pub reset: bool,
    /// A doorbell offered: (function, word).
    pub doorbell: Option<(usize, u64)>,
    /// `source.ready`.
    pub ready: bool,
    /// Weighted arbitration.
    pub weighted: bool,
    /// Per function weight.
    pub weights: Vec<u64>,
    /// Byte-fair arbitration.
    pub byte_fair: bool,
    /// A charge: (function, bytes).
    pub charge: Option<(usize, u64)>,
}

/// What the block shows in a cycle (before the edge).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueuesOutputs {
    /// `source`: (function, word) offered.
    pub offered: Option<(usize, u64)>,
    /// Per function: a doorbell refused this cycle.
    pub overflows: Vec<bool>,
    /// A doorbell naming no function dropped this cycle.
    pub stray: bool,
    /// Per function: doorbells queued.
    pub fills: Vec<usize>,
}

/// The doorbell FIFOs: per function a FIFO of `depth`, a read issued when the arbiter grants
/// and the 4-entry output FIFO will have room, landing in the output FIFO one edge later.
#[derive(Clone, Debug)]
pub struct DoorbellQueuesModel {
    depth: usize,
    queues: Vec<VecDeque<u64>>,
    arbiter: WrrModel,
    gate: DeficitModel,
    /// The read issued on the last edge.
    issued: Option<(usize, u64)>,
    output: VecDeque<(usize, u64)>,
}

/// Entries of the output FIFO.
const OUT_DEPTH: usize = 4;

impl DoorbellQueuesModel {
    /// `functions` FIFOs of `depth`, empty.
    pub fn new(functions: usize, depth: usize) -> Self {
        Self {
            depth,
            queues: vec![VecDeque::new(); functions],
            arbiter: WrrModel::new(functions),
            gate: DeficitModel::new(functions),
            issued: None,
            output: VecDeque::new(),
        }
    }
    /// The outputs for inputs `i` in this cycle.
    pub fn outputs(&self, i: &QueuesInputs) -> QueuesOutputs {
        let n = self.queues.len();
        let live = !i.reset;
        QueuesOutputs {
            offered: self.output.front().copied(),
            overflows: (0..n)
                .map(|f| {
                    live && i.doorbell.is_some_and(|d| d.0 == f)
                        && self.queues[f].len() == self.depth
                })
                .collect(),
            stray: live && i.doorbell.is_some_and(|d| d.0 >= n),
            fills: self.queues.iter().map(|q| q.len()).collect(),
        }
    }
    /// One clock edge with inputs `i`; returns the doorbell that left on `source`.
    pub fn edge(&mut self, i: &QueuesInputs) -> Option<(usize, u64)> {
        let queued: Vec<bool> = self.queues.iter().map(|q| !q.is_empty()).collect();
        if i.reset {
            self.queues.iter_mut().for_each(|q| q.clear());
            self.issued = None;
            self.output.clear();
            self.arbiter.reset();
            self.gate.edge(&queued, i.byte_fair, i.charge, true);
            return None;
        }
        let requests = self.gate.eligible(&queued, i.byte_fair);
        self.gate.edge(&queued, i.byte_fair, i.charge, false);
        // A full FIFO refuses even when it is popped on this edge (its count is a register).
        let accepts = i
            .doorbell
            .is_some_and(|(f, _)| f < self.queues.len() && self.queues[f].len() < self.depth);
        let room = self.output.len() + (self.issued.is_some() as usize) < OUT_DEPTH;
        let grant = self.arbiter.grant(&requests, i.weighted, &i.weights);
        let left = if i.ready {
            self.output.pop_front()
        } else {
            None
        };
        if let Some(x) = self.issued.take() {
            self.output.push_back(x);
        }
        if let (Some(g), true) = (grant, room) {
            let w = self.queues[g]
                .pop_front()
                .expect("a request means a doorbell");
            self.issued = Some((g, w));
        }
        self.arbiter
            .edge(&requests, room && grant.is_some(), i.weighted, &i.weights);
        if let (Some((f, w)), true) = (i.doorbell, accepts) {
            self.queues[f].push_back(w);
        }
        left
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weighted_shares_follow_the_weights() {
        let mut a = WrrModel::new(3);
        let w = [1, 2, 5];
        let mut counts = [0; 3];
        for _ in 0..800 {
            let g = a.grant(&[true; 3], true, &w).unwrap();
            counts[g] += 1;
            a.edge(&[true; 3], true, true, &w);
        }
        assert_eq!(counts, [100, 200, 500]);
        let mut a = WrrModel::new(3);
        let mut counts = [0; 3];
        for _ in 0..300 {
            let g = a.grant(&[true; 3], false, &w).unwrap();
            counts[g] += 1;
            a.edge(&[true; 3], true, false, &w);
        }
        assert_eq!(counts, [100, 100, 100]);
    }
}
