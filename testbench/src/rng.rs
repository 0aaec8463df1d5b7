//! Seeded randomness for benches: reproducible from the seed a failing test prints.
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// A seeded generator with the helpers benches use for random idle and backpressure.
pub struct BenchRng(SmallRng);

impl BenchRng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        Self(SmallRng::seed_from_u64(seed))
    }
    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.0.gen_bool(p.clamp(0.0, 1.0))
    }
    /// A uniform value with `width` random low bits.
    pub fn bits(&mut self, width: usize) -> u128 {
        let v: u128 = self.0.gen();
        v & crate::backend::mask(width)
    }
    /// A uniform value in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        self.0.gen_range(lo..=hi)
    }
}
