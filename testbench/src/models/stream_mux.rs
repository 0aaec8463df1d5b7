//! Reference model of `StreamMux`: a round-robin [`ArbiterModel`] choosing among the inputs
//! that offer a beat, feeding a two-entry skid buffer (output register plus skid register)
//! whose input is ready while the skid register is empty.
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
    arbiter: ArbiterModel,
    out: Option<u128>,
    skid: Option<u128>,
}

impl StreamMuxModel {
    /// A model of `n` inputs; `hold` keeps packets whole.
    pub fn new(n: usize, hold: bool) -> Self {
        Self {
            arbiter: ArbiterModel::new(n, Policy::RoundRobin, hold),
            out: None,
            skid: None,
        }
    }
    /// Back to the reset state.
    pub fn reset(&mut self) {
        self.arbiter.reset();
        self.out = None;
        self.skid = None;
    }
    /// The outputs for inputs offering beats `offers[i]` (None = not valid).
    pub fn outputs(&self, offers: &[Option<u128>]) -> MuxOutputs {
        let grant = self.arbiter.grant(valids(offers));
        let room = self.skid.is_none();
        MuxOutputs {
            readies: match grant {
                Some(g) if room => 1 << g,
                _ => 0,
            },
            valid: self.out.is_some(),
            data: self.out.unwrap_or(0),
        }
    }
    /// Applies a clock edge; `lasts` bit `i` marks `offers[i]` as its packet's last beat.
    pub fn edge(&mut self, offers: &[Option<u128>], lasts: u64, ready: bool) {
        let requests = valids(offers);
        let grant = self.arbiter.grant(requests);
        let room = self.skid.is_none();
        let moving = grant.filter(|_| room).and_then(|g| offers[g]);
        let tail = grant.is_some_and(|g| (lasts >> g) & 1 == 1);
        self.arbiter.edge(requests, room, tail);
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
