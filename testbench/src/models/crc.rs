//! Reference model of `hdl::crc::ParallelCrc`: the bit-serial CRC, clocked like the block.
//!
//! It shares nothing with the hardware's derivation except the [`CrcSpec`] parameters: the
//! hardware runs the GF(2) matrices, the model feeds every bit through the serial register.
use hdl::crc::{CrcDigest, CrcSpec};

/// Cycle-level model of a `ParallelCrc<W, D>`.
#[derive(Clone, Debug)]
pub struct CrcModel {
    spec: CrcSpec,
    bits: usize,
    digest: CrcDigest,
}

impl CrcModel {
    /// The model of a generator of `spec` over `bits`-bit beats, as after reset.
    pub fn new(spec: &CrcSpec, bits: usize) -> Self {
        Self {
            spec: *spec,
            bits,
            digest: spec.digest(),
        }
    }
    /// One rising edge with these inputs.
    pub fn edge(&mut self, reset: bool, start: bool, valid: bool, data: u128) {
        if reset {
            self.digest = self.spec.digest();
            return;
        }
        if start {
            self.digest = self.spec.digest();
        }
        if valid {
            self.digest.update_word(data, self.bits);
        }
    }
    /// Reset: an empty frame (as `start`).
    pub fn reset(&mut self) {
        self.digest = self.spec.digest();
    }
    /// The `crc` output.
    pub fn crc(&self) -> u64 {
        self.digest.finish()
    }
}

/// Packs bytes into `bits`-bit beats in the CRC's wire order: little-endian for a reflected CRC,
/// big-endian otherwise (`bits` a multiple of 8, `bytes.len()` a multiple of `bits / 8`).
pub fn words_from_bytes(spec: &CrcSpec, bytes: &[u8], bits: usize) -> Vec<u128> {
    assert!(
        bits.is_multiple_of(8) && bits <= 128,
        "beats of {bits} bits hold no whole bytes"
    );
    let n = bits / 8;
    assert!(
        bytes.len().is_multiple_of(n),
        "{} bytes are not whole beats of {n}",
        bytes.len()
    );
    bytes
        .chunks(n)
        .map(|c| {
            let mut w = 0u128;
            for (k, &b) in c.iter().enumerate() {
                let pos = if spec.refin { k } else { n - 1 - k };
                w |= (b as u128) << (8 * pos);
            }
            w
        })
        .collect()
}

/// The inverse of [`words_from_bytes`].
pub fn bytes_from_words(spec: &CrcSpec, words: &[u128], bits: usize) -> Vec<u8> {
    let n = bits / 8;
    let mut out = vec![];
    for &w in words {
        for k in 0..n {
            let pos = if spec.refin { k } else { n - 1 - k };
            out.push((w >> (8 * pos)) as u8);
        }
    }
    out
}
