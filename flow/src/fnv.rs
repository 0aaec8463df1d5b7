//! [`Fnv128`]: the hash of the machine-wide caches' keys (the Verilator models of
//! `testbench`, the synthesis results of [`crate::synth_cache`]).

/// FNV-1a, 128 bits: a hash whose value is fixed by its definition (unlike the standard
/// library's `DefaultHasher`, which may change between Rust releases), so cache keys stay valid
/// across toolchain updates and between processes.
#[derive(Clone, Copy, Debug)]
pub struct Fnv128(u128);

impl Fnv128 {
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;

    /// The empty hash.
    pub fn new() -> Self {
        Self(Self::OFFSET)
    }
    /// Hashes `bytes` preceded by their length, so that a sequence of parts cannot collide
    /// with a different split of the same bytes.
    pub fn part(mut self, bytes: &[u8]) -> Self {
        for &b in (bytes.len() as u64).to_le_bytes().iter().chain(bytes) {
            self.0 ^= b as u128;
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
        self
    }
    /// The hash.
    pub fn finish(self) -> u128 {
        self.0
    }
}

impl Default for Fnv128 {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv128_is_the_published_function() {
        // FNV-1a 128 of "" and of "a" (draft-eastlake-fnv test vectors), without our length
        // prefix: the raw function must match, so the keys are stable by definition.
        let raw = |s: &[u8]| {
            let mut h = Fnv128::OFFSET;
            for &b in s {
                h ^= b as u128;
                h = h.wrapping_mul(Fnv128::PRIME);
            }
            h
        };
        assert_eq!(raw(b""), 0x6c62272e07bb014262b821756295c58d);
        assert_eq!(raw(b"a"), 0xd228cb696f1a8caf78912b704e4a8964);
        assert_ne!(
            Fnv128::new().part(b"ab").part(b"c").finish(),
            Fnv128::new().part(b"a").part(b"bc").finish()
        );
    }
}
