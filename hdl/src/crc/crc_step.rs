//! One combinational step of a parallel CRC: `D` data bits per step, register in, register out.
//!
//! Output bit `i` is `^(state & A[i]) ^ ^(data & B[i]) ^ offset[i]`, with the rows of the step
//! matrices
//! ([`super::CrcMatrix`]) held in [`Constant`]s: each output is one XOR reduction, which yosys
//! maps to a balanced tree of 4-input LUTs (the "REDUCTION" style of alexforencich's `lfsr.v`).
//!
//! rust-hdl has no bit concatenation and its Rust model reads signal values from the previous
//! settle pass, so the `W` parity bits cannot be gathered into one word by assigning bit by bit.
//! Each parity is therefore placed in its own `W`-bit word (`nodes`, the leaves of a binary tree)
//! and the words are ORed pairwise up the heap (each node a single assignment, correct in both
//! the simulation and the Verilog). The OR tree only moves wires: after constant propagation
//! synthesis sees exactly the `W` XOR reductions.
//!
//! The constant `offset` (zero from [`CrcStep::new`]) lets a register hold the remainder XORed
//! with a constant, as [`super::ParallelCrc`] does so that its all-zero power-up value means
//! "start of frame"; in LUTs it only inverts some outputs.
//!
//! Ports: `state` (register form, see [`super::spec`]), `data` (bit `k` is word bit `k`: with a
//! reflected CRC bit 0 goes first on the wire), `next_state`. Parameters: `W` CRC width (1..=64),
//! `D` data bits per step (>= 1); the CRC itself is given to [`CrcStep::new`].
use super::matrix::CrcMatrix;
use super::spec::CrcSpec;
use rust_hdl::prelude::*;

/// `next_state = A * state ^ B * data ^ offset` for one `D`-bit beat of a `W`-bit CRC.
#[derive(LogicBlock)]
pub struct CrcStep<const W: usize, const D: usize> {
    /// Register (register form) before the beat.
    pub state: Signal<In, Bits<W>>,
    /// The beat.
    pub data: Signal<In, Bits<D>>,
    /// Register after the beat.
    pub next_state: Signal<Out, Bits<W>>,
    /// Row `i` of `A`.
    state_masks: Vec<Constant<Bits<W>>>,
    /// Row `i` of `B`.
    data_masks: Vec<Constant<Bits<D>>>,
    /// Constant XORed into the result.
    offset: Constant<Bits<W>>,
    zero: Constant<Bits<W>>,
    /// A binary tree of `2W - 1` words, children before parents (so the emitted Verilog reads
    /// every word after it is assigned): node `i < W` holds parity bit `i` in place, node
    /// `W + k` is the OR of nodes `2k` and `2k + 1`, node `2W - 2` is the result.
    nodes: Vec<Signal<Local, Bits<W>>>,
}

/// A `Bits<N>` with the bits `f(k)` set.
pub(crate) fn bits_from_fn<const N: usize>(f: impl Fn(usize) -> bool) -> Bits<N> {
    let mut b = Bits::<N>::default();
    for k in 0..N {
        if f(k) {
            b = b.replace_bit(k, true);
        }
    }
    b
}

impl<const W: usize, const D: usize> CrcStep<W, D> {
    /// The step of `spec` (whose width must be `W`) over `D` data bits.
    pub fn new(spec: &CrcSpec) -> Self {
        assert!(
            spec.width == W,
            "CrcStep: W = {W} but {} is {} bits wide",
            spec.name,
            spec.width
        );
        assert!((1..=64).contains(&W), "CrcStep: W = {W} not in 1..=64");
        assert!(D >= 1, "CrcStep: D must be at least 1");
        Self::from_matrix(&CrcMatrix::derive(spec, D), 0)
    }

    /// The affine step `A * state ^ B * data ^ offset` with explicit matrices
    /// (`m.width == W`, `m.data_bits == D`).
    pub fn from_matrix(m: &CrcMatrix, offset: u64) -> Self {
        assert!(
            m.width == W,
            "CrcStep: W = {W} but the matrix has {} rows",
            m.width
        );
        assert!(
            m.data_bits == D,
            "CrcStep: D = {D} but the matrix has {} data columns",
            m.data_bits
        );
        Self {
            state: Default::default(),
            data: Default::default(),
            next_state: Default::default(),
            state_masks: (0..W)
                .map(|i| Constant::new(bits_from_fn(|j| (m.state_rows[i] >> j) & 1 == 1)))
                .collect(),
            data_masks: (0..W)
                .map(|i| Constant::new(bits_from_fn(|k| m.data_rows[i][k])))
                .collect(),
            offset: Constant::new(bits_from_fn(|i| (offset >> i) & 1 == 1)),
            zero: Constant::new(Bits::<W>::default()),
            nodes: (0..2 * W - 1).map(|_| Default::default()).collect(),
        }
    }
}

impl<const W: usize, const D: usize> Logic for CrcStep<W, D> {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..W {
            self.nodes[i].next = self.zero.val().replace_bit(
                i,
                ((self.state.val() & self.state_masks[i].val()).xor())
                    ^ ((self.data.val() & self.data_masks[i].val()).xor()),
            );
        }
        // `t` and `r` only bind the constants W and 2W - 2 for the generated index expressions.
        for t in W..(W + 1) {
            for k in 0..(W - 1) {
                self.nodes[t + k].next = self.nodes[2 * k].val() | self.nodes[2 * k + 1].val();
            }
        }
        for r in (2 * W - 2)..(2 * W - 1) {
            self.next_state.next = self.nodes[r].val() ^ self.offset.val();
        }
    }
}

#[test]
fn crc_step_is_synthesizable() {
    let mut uut = CrcStep::<32, 64>::new(&super::spec::CRC32);
    uut.connect_all();
    yosys_validate("crc_step", &generate_verilog(&uut)).unwrap();
}
