//! The wire between two link endpoints, one direction: a fixed delay plus the faults a link
//! sees, applied to [`Beat`]s. Used by the two-endpoint link bench and `make bench`.
//!
//! Lanes are 32 bits wide unless [`LaneChannel::with_lane_bits`] says 16 (a [`Beat`]'s data
//! then holds one 16-bit transfer per lane, in the low bits). Faults (each independent, all
//! off by default; "per beat" is per cycle of the wire):
//! - random bit errors at `ber` per transferred bit (data bits of valid lanes), drawn as
//!   geometric gaps so a low rate costs nothing per cycle;
//! - error bursts: with probability `burst_rate` per beat, `burst_len` consecutive bits of one
//!   random valid lane flip;
//! - dropped transfers: with probability `drop_rate` per beat, one random valid lane loses its
//!   transfer (valid, start and data);
//! - up to two bad lanes (`bad`, `also`), each from cycle `from` until cycle `to`:
//!   [`LaneFault::Dead`] (no transfers at all, as after loss of lock), [`LaneFault::Noisy`] (its
//!   own bit error rate), [`LaneFault::Stuck`] (a constant with `valid` high whatever is sent,
//!   as a driver stuck at a level behind a PHY that still claims lock) or [`LaneFault::Garbage`]
//!   (random data and `start` with `valid` high).
use crate::rng::BenchRng;
use hdl::llp::lane_channel::MAX_LANES;
use hdl::llp::ltp::Beat;
use std::collections::VecDeque;

/// How the bad lane fails.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LaneFault {
    /// The lane carries nothing.
    Dead,
    /// The lane's bits flip at this rate.
    Noisy(f64),
    /// The lane carries this constant, `valid` high and `start` low, every cycle.
    Stuck(u32),
    /// The lane carries random data and `start`, `valid` high, every cycle.
    Garbage,
}

/// One lane going bad mid-run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BadLane {
    /// Physical lane.
    pub lane: usize,
    /// First faulty cycle.
    pub from: u64,
    /// First healthy cycle again (`u64::MAX`: never).
    pub to: u64,
    /// The fault.
    pub fault: LaneFault,
}

/// Fault settings of one direction.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Faults {
    /// Bit error rate of every lane.
    pub ber: f64,
    /// Probability per beat of an error burst.
    pub burst_rate: f64,
    /// Bits per burst.
    pub burst_len: u32,
    /// Probability per beat of a dropped transfer.
    pub drop_rate: f64,
    /// A lane that goes bad.
    pub bad: Option<BadLane>,
    /// A second lane that goes bad.
    pub also: Option<BadLane>,
}

impl Faults {
    /// Uniform random bit errors at `ber` on every lane, nothing else.
    pub fn uniform(ber: f64) -> Self {
        Self {
            ber,
            ..Default::default()
        }
    }
}

/// What a channel did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChannelStats {
    /// Transfers carried.
    pub xfrs: u64,
    /// Bits flipped by random errors and bursts.
    pub flips: u64,
    /// Bursts injected.
    pub bursts: u64,
    /// Transfers dropped (random drops and the dead lane).
    pub drops: u64,
    /// Bits flipped on the noisy bad lane.
    pub bad_flips: u64,
    /// Bits flipped per physical lane, by every cause (the most lane errors a receiver may
    /// charge to that lane).
    pub lane_flips: [u64; MAX_LANES],
}

/// A delay line with faults.
pub struct LaneChannel {
    faults: Faults,
    pipe: VecDeque<Beat>,
    rng: BenchRng,
    /// Random bits still to pass before the next random bit error.
    gap: u64,
    bad_gap: u64,
    cycle: u64,
    /// Bits per lane (16 or 32).
    lane_bits: u32,
    /// What was done so far.
    pub stats: ChannelStats,
}

fn geometric(rng: &mut BenchRng, p: f64) -> u64 {
    if p <= 0.0 {
        return u64::MAX;
    }
    let u = (rng.bits(53) as f64 + 1.0) / (1u64 << 53) as f64;
    (u.ln() / (1.0 - p).ln()).floor() as u64
}

impl LaneChannel {
    /// A channel of `delay` cycles (at least 1) with `faults`.
    pub fn new(delay: usize, faults: Faults, seed: u64) -> Self {
        assert!(delay >= 1, "a channel delays at least one cycle");
        let mut rng = BenchRng::new(seed);
        let gap = geometric(&mut rng, faults.ber);
        let noisy = [faults.bad, faults.also]
            .into_iter()
            .flatten()
            .find_map(|b| match b.fault {
                LaneFault::Noisy(p) => Some(p),
                _ => None,
            });
        assert!(
            [faults.bad, faults.also]
                .iter()
                .flatten()
                .filter(|b| matches!(b.fault, LaneFault::Noisy(_)))
                .count()
                <= 1,
            "at most one noisy bad lane"
        );
        let bad_gap = noisy.map_or(u64::MAX, |p| geometric(&mut rng, p));
        Self {
            faults,
            pipe: (0..delay).map(|_| Beat::default()).collect(),
            rng,
            gap,
            bad_gap,
            cycle: 0,
            lane_bits: 32,
            stats: ChannelStats::default(),
        }
    }

    /// The same channel with lanes of `lane_bits` (16 or 32): errors strike, and stuck or
    /// garbage lanes carry, only that many bits per transfer.
    pub fn with_lane_bits(mut self, lane_bits: u32) -> Self {
        assert!(
            lane_bits == 16 || lane_bits == 32,
            "lanes of {lane_bits} bits: 16 or 32"
        );
        self.lane_bits = lane_bits;
        self
    }

    fn lane_mask(&self) -> u32 {
        (((1u64 << self.lane_bits) - 1) & 0xFFFF_FFFF) as u32
    }

    /// Sends `beat` into the wire and returns the beat leaving it this cycle.
    pub fn step(&mut self, mut beat: Beat) -> Beat {
        let lanes: Vec<usize> = (0..MAX_LANES)
            .filter(|n| beat.valid >> n & 1 == 1)
            .collect();
        self.stats.xfrs += lanes.len() as u64;
        // Random bit errors over the valid lanes' bits, in lane order.
        let width = self.lane_bits as u64;
        let mut bits = width * lanes.len() as u64;
        let mut base = 0u64;
        while self.gap < bits {
            let b = base + self.gap;
            let lane = lanes[(b / width) as usize];
            beat.data[lane] ^= 1 << (b % width);
            self.stats.flips += 1;
            self.stats.lane_flips[lane] += 1;
            base = b + 1;
            bits -= self.gap + 1;
            self.gap = geometric(&mut self.rng, self.faults.ber);
        }
        self.gap = self.gap.saturating_sub(bits);
        if !lanes.is_empty() {
            if self.rng.chance(self.faults.burst_rate) {
                let lane = lanes[self.rng.range(0, lanes.len() as u64 - 1) as usize];
                let width = self.lane_bits;
                let start = self.rng.range(0, width as u64 - 1) as u32;
                let len = self.faults.burst_len.min(width);
                for k in 0..len {
                    beat.data[lane] ^= 1 << ((start + k) % width);
                }
                self.stats.bursts += 1;
                self.stats.flips += len as u64;
                self.stats.lane_flips[lane] += len as u64;
            }
            if self.rng.chance(self.faults.drop_rate) {
                let lane = lanes[self.rng.range(0, lanes.len() as u64 - 1) as usize];
                self.drop(&mut beat, lane);
            }
        }
        for bad in [self.faults.bad, self.faults.also].into_iter().flatten() {
            if (bad.from..bad.to).contains(&self.cycle) {
                self.apply(&mut beat, bad);
            }
        }
        self.cycle += 1;
        self.pipe.push_back(beat);
        self.pipe.pop_front().expect("the pipe is never empty")
    }

    fn apply(&mut self, beat: &mut Beat, bad: BadLane) {
        let sent = beat.valid >> bad.lane & 1 == 1;
        match bad.fault {
            LaneFault::Dead if sent => self.drop(beat, bad.lane),
            LaneFault::Noisy(p) if sent => {
                let mut left = self.lane_bits as u64;
                let mut at = 0u64;
                while self.bad_gap < left {
                    let b = at + self.bad_gap;
                    beat.data[bad.lane] ^= 1 << b;
                    self.stats.bad_flips += 1;
                    self.stats.lane_flips[bad.lane] += 1;
                    at = b + 1;
                    left -= self.bad_gap + 1;
                    self.bad_gap = geometric(&mut self.rng, p);
                }
                self.bad_gap -= left;
            }
            LaneFault::Stuck(v) => {
                self.force(beat, bad.lane, v & self.lane_mask(), false);
            }
            LaneFault::Garbage => {
                let (v, start) = (
                    self.rng.bits(self.lane_bits as usize) as u32,
                    self.rng.chance(0.5),
                );
                self.force(beat, bad.lane, v, start);
            }
            _ => {}
        }
    }

    /// Lane `lane` carries `data` with `valid` high whatever was sent; what was sent there is
    /// lost (counted as flipped bits when it differed).
    fn force(&mut self, beat: &mut Beat, lane: usize, data: u32, start: bool) {
        if beat.valid >> lane & 1 == 1 {
            let flips = (beat.data[lane] ^ data).count_ones() as u64;
            self.stats.bad_flips += flips;
            self.stats.lane_flips[lane] += flips;
        }
        beat.valid |= 1 << lane;
        beat.start = beat.start & !(1 << lane) | (start as u8) << lane;
        beat.data[lane] = data;
    }

    fn drop(&mut self, beat: &mut Beat, lane: usize) {
        beat.valid &= !(1 << lane);
        beat.start &= !(1 << lane);
        beat.data[lane] = 0;
        self.stats.drops += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full() -> Beat {
        Beat {
            valid: 0xf,
            start: 0,
            data: [0; MAX_LANES],
        }
    }

    #[test]
    fn clean_channel_is_a_delay_line() {
        let mut c = LaneChannel::new(3, Faults::default(), 1);
        let mut out = vec![];
        for k in 0..10u32 {
            let mut b = full();
            b.data = [k, k + 1, k + 2, k + 3];
            out.push(c.step(b));
        }
        assert_eq!(out[3].data, [0, 1, 2, 3]);
        assert_eq!(out[9].data, [6, 7, 8, 9]);
        assert_eq!(c.stats.flips + c.stats.drops, 0);
    }

    #[test]
    fn bit_error_rate_is_as_set() {
        let ber = 1e-3;
        let mut c = LaneChannel::new(
            1,
            Faults {
                ber,
                ..Default::default()
            },
            7,
        );
        let mut flips = 0u64;
        for _ in 0..100_000 {
            let b = c.step(full());
            flips += b.data.iter().map(|d| d.count_ones() as u64).sum::<u64>();
        }
        let expect = ber * 128.0 * 100_000.0;
        assert!(
            (flips as f64 - expect).abs() < 0.05 * expect,
            "{flips} flips, expected about {expect}"
        );
        assert_eq!(
            flips, c.stats.flips,
            "every flip is counted (no bit flipped twice)"
        );
    }

    #[test]
    fn dead_lane_carries_nothing_after_its_cycle() {
        let bad = BadLane {
            lane: 2,
            from: 5,
            to: u64::MAX,
            fault: LaneFault::Dead,
        };
        let mut c = LaneChannel::new(
            1,
            Faults {
                bad: Some(bad),
                ..Default::default()
            },
            3,
        );
        let outs: Vec<Beat> = (0..10).map(|_| c.step(full())).collect();
        assert_eq!(outs[5].valid, 0xf);
        assert_eq!(outs[6].valid, 0b1011);
        assert_eq!(outs[9].valid, 0b1011);
    }

    #[test]
    fn stuck_lane_holds_its_value_with_valid_until_it_heals() {
        let bad = BadLane {
            lane: 1,
            from: 2,
            to: 6,
            fault: LaneFault::Stuck(0xdead_beef),
        };
        let mut c = LaneChannel::new(
            1,
            Faults {
                bad: Some(bad),
                ..Default::default()
            },
            3,
        );
        let idle = Beat::default();
        let outs: Vec<Beat> = (0..8).map(|_| c.step(idle)).collect();
        // Output k is the beat sent at cycle k - 1 (a one-cycle wire).
        for (k, b) in outs.iter().enumerate() {
            let stuck = (3..7).contains(&k);
            assert_eq!(b.valid, (stuck as u8) << 1, "cycle {k}");
            assert_eq!(b.data[1], if stuck { 0xdead_beef } else { 0 }, "cycle {k}");
            assert_eq!(b.start, 0, "cycle {k}");
        }
    }
}
