//! Seeded reset schedules: when a bench asserts `reset` under traffic (convention 16).
//!
//! A bench asks the schedule once per cycle whether `reset` is high ([`ResetSchedule::next`]);
//! pulses of a few cycles come at random moments, spaced by gaps drawn uniformly around a mean,
//! so a run of a known length gets several of them whatever the seed (a per-cycle coin could
//! leave a short run without any). Everything comes from the bench's own [`BenchRng`], so a
//! failing seed replays the same resets. After each pulse the bench checks what the block's
//! `//!` header promises about reset ([`ResetSchedule::released`] marks the first cycle out of
//! reset) and resets its reference model with the block.
use crate::backend::{Backend, PortId};
use crate::rng::BenchRng;

/// When `reset` is asserted during a run.
#[derive(Clone, Debug)]
pub struct ResetSchedule {
    /// Gap between pulses: uniform in `gap.0..=gap.1` cycles.
    gap: (u64, u64),
    /// Pulse length: uniform in `len.0..=len.1` cycles.
    len: (u64, u64),
    /// Cycles until the next pulse may start.
    wait: u64,
    /// Cycles of the current pulse still to come.
    left: u64,
    /// This cycle is the first with reset low after a pulse.
    released: bool,
    /// Reset is high in this cycle (the last answer of `next_if`).
    high: bool,
    /// Pulses started.
    pulses: u64,
}

impl ResetSchedule {
    /// Pulses of 1 to 3 cycles, about `mean_gap` cycles apart (uniform in `mean_gap / 2 ..=
    /// 3 * mean_gap / 2`); the first one comes after such a gap too.
    pub fn new(rng: &mut BenchRng, mean_gap: u64) -> Self {
        assert!(
            mean_gap >= 2,
            "ResetSchedule: mean gap {mean_gap} is too short"
        );
        let gap = (mean_gap / 2, mean_gap + mean_gap / 2);
        Self {
            gap,
            len: (1, 3),
            wait: rng.range(gap.0, gap.1),
            left: 0,
            released: false,
            high: false,
            pulses: 0,
        }
    }

    /// A schedule that never resets (for the runs that measure throughput or exact timing).
    pub fn never() -> Self {
        Self {
            gap: (u64::MAX, u64::MAX),
            len: (1, 1),
            wait: u64::MAX,
            left: 0,
            released: false,
            high: false,
            pulses: 0,
        }
    }

    /// Whether `reset` is high in this cycle; call exactly once per cycle. A pulse starts only
    /// when `allowed` (a bench keeps resets out of phases whose checks span the whole phase);
    /// one already started runs to its end.
    pub fn next_if(&mut self, rng: &mut BenchRng, allowed: bool) -> bool {
        self.wait = self.wait.saturating_sub(1);
        if self.left == 0 && self.wait == 0 && allowed {
            self.left = rng.range(self.len.0, self.len.1);
            self.wait = rng.range(self.gap.0, self.gap.1);
            self.pulses += 1;
        }
        let high = self.left > 0;
        self.left = self.left.saturating_sub(1);
        self.released = self.high && !high;
        self.high = high;
        high
    }

    /// [`ResetSchedule::next_if`] with pulses allowed at any time.
    pub fn next(&mut self, rng: &mut BenchRng) -> bool {
        self.next_if(rng, true)
    }

    /// Drives `port` for this cycle from the schedule; returns the value driven.
    pub fn drive(&mut self, b: &mut dyn Backend, port: PortId, rng: &mut BenchRng) -> bool {
        let r = self.next(rng);
        b.poke_bool(port, r);
        r
    }

    /// This is the first cycle after a pulse (reset low again): the block must now show the
    /// state its documentation promises after reset.
    pub fn released(&self) -> bool {
        self.released
    }

    /// A pulse is in progress (reset high in this cycle).
    pub fn active(&self) -> bool {
        self.high
    }

    /// Pulses started so far.
    pub fn pulses(&self) -> u64 {
        self.pulses
    }

    /// Panics, naming `what`, unless at least `min` pulses happened: a run whose resets never
    /// came has not tested them.
    pub fn assert_pulses(&self, what: &str, min: u64) {
        assert!(
            self.pulses >= min,
            "{what}: only {} reset pulses happened, expected at least {min} (shorten the gap)",
            self.pulses
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pulses_come_at_the_mean_gap() {
        let mut rng = BenchRng::new(1);
        let mut s = ResetSchedule::new(&mut rng, 100);
        let (mut high, mut releases) = (0, 0);
        let mut prev = false;
        for _ in 0..10_000 {
            let r = s.next(&mut rng);
            assert_eq!(s.released(), prev && !r);
            releases += s.released() as u64;
            high += r as u64;
            prev = r;
        }
        // About 100 pulses of 2 cycles on average.
        assert!((80..=120).contains(&s.pulses()), "{} pulses", s.pulses());
        assert!(releases + 1 >= s.pulses() && releases <= s.pulses());
        assert!(high >= s.pulses() && high <= 3 * s.pulses());
    }

    #[test]
    fn never_and_disallowed_do_not_reset() {
        let mut rng = BenchRng::new(2);
        let mut s = ResetSchedule::never();
        let mut t = ResetSchedule::new(&mut rng, 4);
        for _ in 0..1000 {
            assert!(!s.next(&mut rng));
            assert!(!t.next_if(&mut rng, false));
        }
        assert_eq!((s.pulses(), t.pulses()), (0, 0));
    }
}
