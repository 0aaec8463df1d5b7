//! Reference model of `RrArbiter` and `FpArbiter`, written from their specification (not from
//! their circuits): a round-robin pointer that moves on `advance` to just after the granted
//! requester, and a holder that keeps the grant from its first offer to `advance && tail`.
//!
//! The hardware moves its pointer differently under hold (when the grant is first offered); the
//! benches compare every cycle, so they also check that this is invisible at the ports.

/// Which arbitration the model follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Round robin: the first requester at or after the pointer, cyclically.
    RoundRobin,
    /// Fixed priority: the lowest requester.
    FixedPriority,
}

/// Cycle-accurate model of an `N`-requester arbiter.
#[derive(Clone, Debug)]
pub struct ArbiterModel {
    n: usize,
    policy: Policy,
    hold: bool,
    /// The requester with the highest priority (round robin).
    pointer: usize,
    /// The requester holding the grant (hold).
    holder: Option<usize>,
}

impl ArbiterModel {
    /// A model of `n` requesters, as after reset.
    pub fn new(n: usize, policy: Policy, hold: bool) -> Self {
        assert!((1..=64).contains(&n));
        Self {
            n,
            policy,
            hold,
            pointer: 0,
            holder: None,
        }
    }

    /// Back to the reset state.
    pub fn reset(&mut self) {
        self.pointer = 0;
        self.holder = None;
    }

    /// The requester granted this cycle for `requests` (bit `i` = requester `i`).
    pub fn grant(&self, requests: u64) -> Option<usize> {
        let asks = |i: usize| (requests >> i) & 1 == 1;
        if let Some(h) = self.holder {
            return asks(h).then_some(h);
        }
        let start = match self.policy {
            Policy::RoundRobin => self.pointer,
            Policy::FixedPriority => 0,
        };
        (0..self.n).map(|k| (start + k) % self.n).find(|&i| asks(i))
    }

    /// Applies a clock edge with these inputs (`advance`: the grant was used; `tail`: that use
    /// ended the holder's packet).
    pub fn edge(&mut self, requests: u64, advance: bool, tail: bool) {
        let Some(g) = self.grant(requests) else {
            return;
        };
        if advance {
            self.pointer = (g + 1) % self.n;
        }
        if self.hold {
            self.holder = if advance && tail { None } else { Some(g) };
        }
    }

    /// The current holder (hold only).
    pub fn holder(&self) -> Option<usize> {
        self.holder
    }
}
