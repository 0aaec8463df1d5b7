//! Elaboration-time derivation of a parallel CRC: the GF(2) matrices of one `D`-bit step.
//!
//! A CRC step is linear over GF(2) in the register and the data, so
//! `next = A * register ^ B * data` with `A` a `W x W` and `B` a `W x D` bit matrix. Both are
//! found by superposition from the bit-serial reference ([`CrcSpec::step_register`]): column
//! `j` of `A` is the step of the unit register `e_j` with zero data, column `k` of `B` the step
//! of a zero register with the unit word `e_k`. The hardware ([`super::CrcStep`]) uses the rows:
//! output bit `i` is the parity of `register & A[i]` and `data & B[i]`, the same formulation as
//! alexforencich's `lfsr.v` (which computes its masks in a Verilog `initial` block instead).
//!
//! The register is in register form (see [`super::spec`]), and data bits are in word order
//! (bit `k` of the beat is `data[k]`), so the matrices already contain the bit reflections.
use super::spec::CrcSpec;

/// The matrices of one `data_bits`-bit step of a CRC, stored by rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrcMatrix {
    /// CRC width `W`.
    pub width: usize,
    /// Data bits per step `D`.
    pub data_bits: usize,
    /// Row `i` of `A`: the register bits XORed into next register bit `i`.
    pub state_rows: Vec<u64>,
    /// Row `i` of `B`: `data_rows[i][k]` says data bit `k` is XORed into register bit `i`.
    pub data_rows: Vec<Vec<bool>>,
}

impl CrcMatrix {
    /// Derives the step matrices of `spec` for `data_bits` bits per step.
    pub fn derive(spec: &CrcSpec, data_bits: usize) -> Self {
        spec.validate();
        assert!(data_bits >= 1, "CrcMatrix: data_bits must be at least 1");
        let w = spec.width;
        let zeros = vec![false; data_bits];
        let mut state_rows = vec![0u64; w];
        for j in 0..w {
            let col = spec.step_register(1u64 << j, &zeros);
            for (i, row) in state_rows.iter_mut().enumerate() {
                if (col >> i) & 1 == 1 {
                    *row |= 1u64 << j;
                }
            }
        }
        let mut data_rows = vec![vec![false; data_bits]; w];
        let mut unit = zeros.clone();
        for k in 0..data_bits {
            unit[k] = true;
            let col = spec.step_register(0, &unit);
            unit[k] = false;
            for (i, row) in data_rows.iter_mut().enumerate() {
                row[k] = (col >> i) & 1 == 1;
            }
        }
        Self {
            width: w,
            data_bits,
            state_rows,
            data_rows,
        }
    }

    /// One step computed with the matrices: `data[k]` is bit `k` of the beat.
    pub fn step(&self, register: u64, data: &[bool]) -> u64 {
        assert_eq!(data.len(), self.data_bits, "CrcMatrix::step: data width");
        let mut next = 0u64;
        for i in 0..self.width {
            let mut p = (register & self.state_rows[i]).count_ones() & 1 == 1;
            for (k, &d) in data.iter().enumerate() {
                p ^= d & self.data_rows[i][k];
            }
            if p {
                next |= 1u64 << i;
            }
        }
        next
    }

    /// [`Self::step`] with the beat as an integer (at most 128 bits).
    pub fn step_word(&self, register: u64, data: u128) -> u64 {
        assert!(self.data_bits <= 128, "step_word: more than 128 data bits");
        let bits: Vec<bool> = (0..self.data_bits).map(|k| (data >> k) & 1 == 1).collect();
        self.step(register, &bits)
    }

    /// Number of inputs XORed into register bit `i`.
    pub fn terms(&self, i: usize) -> usize {
        self.state_rows[i].count_ones() as usize + self.data_rows[i].iter().filter(|&&b| b).count()
    }

    /// The widest XOR of the step (sets the depth of its LUT tree).
    pub fn max_terms(&self) -> usize {
        (0..self.width).map(|i| self.terms(i)).max().unwrap_or(0)
    }

    /// Total XOR inputs over all bits (a size estimate: about `total_terms / 3` 4-input LUTs).
    pub fn total_terms(&self) -> usize {
        (0..self.width).map(|i| self.terms(i)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crc::spec::{CRC14, CRC16, CRC32, CRC8};

    /// A small deterministic generator (xorshift), so the hdl crate needs no rand at run time.
    fn next(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    #[test]
    fn matrix_step_matches_serial() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for spec in [CRC8, CRC14, CRC16, CRC32] {
            for d in [1, 8, 13, 16, 32, 64, 65, 128] {
                let m = CrcMatrix::derive(&spec, d);
                for _ in 0..20 {
                    let r = next(&mut seed) & spec.mask();
                    let data: Vec<bool> = (0..d).map(|_| next(&mut seed) & 1 == 1).collect();
                    assert_eq!(
                        m.step(r, &data),
                        spec.step_register(r, &data),
                        "{} D={d}",
                        spec.name
                    );
                }
            }
        }
    }

    #[test]
    fn one_bit_step_of_unreflected_crc_is_the_shift_register() {
        // D = 1, not reflected: bit i of the next register is bit i-1, plus the feedback taps.
        let m = CrcMatrix::derive(&CRC16, 1);
        for i in 0..16 {
            let shift = if i > 0 { 1u64 << (i - 1) } else { 0 };
            let tap = if (CRC16.poly >> i) & 1 == 1 {
                1u64 << 15
            } else {
                0
            };
            assert_eq!(m.state_rows[i], shift ^ tap, "row {i}");
            assert_eq!(m.data_rows[i][0], tap != 0, "data row {i}");
        }
    }

    #[test]
    fn step_sizes() {
        // Pins the derivation: XOR inputs of the widest output bit and of all output bits.
        let m = CrcMatrix::derive(&CRC32, 64);
        assert_eq!((m.max_terms(), m.total_terms()), (52, 1422));
        let m = CrcMatrix::derive(&CRC14, crate::formats::FLIT_BITS);
        assert_eq!((m.max_terms(), m.total_terms()), (45, 519));
    }
}
