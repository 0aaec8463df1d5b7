//! Reference model of `StreamMux`, written from its specification: a registered grant (one
//! input, or none after reset) whose input's beat is offered to a two-entry skid buffer (output
//! register plus skid register, ready while the skid register is empty). The next grant is
//! decided by a round-robin [`ArbiterModel`] among every valid input when the granted beat moves
//! (with hold: its packet's last beat) or when the granted input offers nothing (with hold: and
//! is not inside a packet); the grant stays when nobody asks.
use super::arbiter::{ArbiterModel, Policy};

/// What the mux drives in one cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MuxOutputs {
    /// Bit `i`: `sinks[i].ready`.
    pub readies: u64,
    /// `source.valid`.
    pub valid: bool,
    /// `source.data` (meaningful when `valid`).
    pub data: u128,
}

/// Cycle-accurate model of an `N`-input stream mux.
#[derive(Clone, Debug)]
pub struct StreamMuxModel {
    n: usize,
    hold: bool,
    /// Round-robin order of the next decision (no hold: the model keeps the hold itself).
    arbiter: ArbiterModel,
    /// The input whose beat is offered to the skid buffer.
    grant: Option<usize>,
    /// With hold: the granted input is inside a packet.
    locked: bool,
    out: Option<u128>,
    skid: Option<u128>,
}

impl StreamMuxModel {
    /// A model of `n` inputs; `hold` keeps packets whole.
    pub fn new(n: usize, hold: bool) -> Self {
        Self {
            n,
            hold,
            arbiter: ArbiterModel::new(n, Policy::RoundRobin, false),
            grant: None,
            locked: false,
            out: None,
            skid: None,
        }
    }
    /// Back to the reset state.
    pub fn reset(&mut self) {
        *self = Self::new(self.n, self.hold);
    }
    /// The input whose beat goes into the skid buffer this cycle (one input: always input 0).
    fn granted(&self) -> Option<usize> {
        if self.n == 1 {
            Some(0)
        } else {
            self.grant
        }
    }
    /// The outputs for inputs offering beats `offers[i]` (None = not valid).
    pub fn outputs(&self, offers: &[Option<u128>]) -> MuxOutputs {
        let _ = offers; // the readies depend on registers only
        MuxOutputs {
            readies: match self.granted() {
                Some(g) if self.skid.is_none() => 1 << g,
                _ => 0,
            },
            valid: self.out.is_some(),
            data: self.out.unwrap_or(0),
        }
    }
    /// Applies a clock edge; `lasts` bit `i` marks `offers[i]` as its packet's last beat.
    pub fn edge(&mut self, offers: &[Option<u128>], lasts: u64, ready: bool) {
        let room = self.skid.is_none();
        let granted = self.granted();
        let offered = granted.and_then(|g| offers[g]);
        let last = granted.is_some_and(|g| (lasts >> g) & 1 == 1);
        let moving = offered.filter(|_| room);
        let keep = match offered {
            Some(_) => !(room && (last || !self.hold)),
            None => self.hold && self.locked,
        };
        if moving.is_some() {
            self.locked = self.hold && !last;
        }
        if !keep {
            let requests = valids(offers);
            if let Some(w) = self.arbiter.grant(requests) {
                self.grant = Some(w);
                self.arbiter.edge(requests, true, false);
            }
        }
        if ready || self.out.is_none() {
            self.out = self.skid.take().or(moving);
        } else if moving.is_some() {
            self.skid = moving;
        }
    }
}

fn valids(offers: &[Option<u128>]) -> u64 {
    offers
        .iter()
        .enumerate()
        .fold(0, |m, (i, o)| m | ((o.is_some() as u64) << i))
}
