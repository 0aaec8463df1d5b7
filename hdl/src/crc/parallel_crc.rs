//! Parallel CRC generator/checker: a `W`-bit CRC over frames of `D`-bit beats, one beat per
//! clock, as the FCS unit of a MAC or the LTP CRC of a link.
//!
//! It watches a beat stream rather than taking part in its handshake: the owner raises `valid`
//! on each clock edge where a beat of the frame moves (for a valid/ready stream, `valid && ready`).
//! - `start` begins a new frame on this edge: the register is loaded with the CRC's initial
//!   value *before* this edge's beat, so a frame's first beat carries `start && valid`
//!   (or `start` comes alone on an earlier idle edge: it empties the register, and the CRC of
//!   the empty frame follows).
//! - `crc` is the finished CRC (`refout` and `xorout` applied) of every beat since the last
//!   `start`, up to and including the beats registered at past edges: after the edge that takes
//!   a frame's last beat, `crc` holds the frame's CRC until the next beat or `start`. It comes
//!   from flip-flops through at most one inverter per bit.
//!
//! Bit order of `data`: word bit `k` is `data[k]`. With a reflected CRC (CRC-14, CRC-32) bit 0 is
//! the first bit on the wire, so a 64-bit CRC-32 beat is 8 bytes little-endian (byte 0 in bits
//! 7..0), as in Ethernet MACs; with CRC-16/IBM-3740 bit `D-1` goes first (bytes big-endian).
//!
//! Ports: `clock`, `reset` (synchronous, active high: starts an empty frame, as `start`),
//! `start`, `valid`, `data`, `crc`. Parameters: `W` CRC width, `D` beat width; the CRC is
//! given to [`ParallelCrc::new`] (`Default` picks hpcnet's CRC of width `W`).
//!
//! Implementation: the flip-flops hold the remainder XORed with its initial value, so all-zero
//! (rust-hdl's power-up value, and the reset value) is the start of a frame, `start` gates the
//! register input of the XOR network to zero (one AND per bit, which ABC partly merges into the
//! XOR trees: about 20 LUTs for CRC-32 over 64 bits), and the step becomes affine (`A * q ^ B * data ^ (A * init ^ init)`, inverters only). For CRC-32,
//! whose `init` equals its `xorout`, `crc` is then the flip-flops themselves.
use super::crc_step::{bits_from_fn, CrcStep};
use super::matrix::CrcMatrix;
use super::spec::{CrcSpec, CRC14, CRC16, CRC32, CRC8};
use rust_hdl::prelude::*;

/// A `W`-bit CRC over `D`-bit beats.
#[derive(LogicBlock)]
pub struct ParallelCrc<const W: usize, const D: usize> {
    /// Clock of the register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: starts an empty frame.
    pub reset: Signal<In, bool>,
    /// Begin a new frame at this edge, before this edge's beat.
    pub start: Signal<In, bool>,
    /// A beat of the frame moves at this edge.
    pub valid: Signal<In, bool>,
    /// The beat (word bit `k` is `data[k]`; wire order in the module documentation).
    pub data: Signal<In, Bits<D>>,
    /// Finished CRC of the frame so far.
    pub crc: Signal<Out, Bits<W>>,
    step: CrcStep<W, D>,
    /// Remainder (register form, see [`super::spec`]) XOR `init`.
    remainder: DFF<Bits<W>>,
    /// `init ^ xorout`: `crc = remainder ^ finish`.
    finish: Constant<Bits<W>>,
}

impl<const W: usize, const D: usize> ParallelCrc<W, D> {
    /// The generator of `spec` (whose width must be `W`) over `D`-bit beats.
    pub fn new(spec: &CrcSpec) -> Self {
        assert!(
            spec.width == W,
            "ParallelCrc: W = {W} but {} is {} bits wide",
            spec.name,
            spec.width
        );
        assert!(D >= 1, "ParallelCrc: D must be at least 1");
        let m = CrcMatrix::derive(spec, D);
        let init = spec.register_init();
        let offset = m.step(init, &vec![false; D]) ^ init;
        let step = CrcStep::<W, D>::from_matrix(&m, offset);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            valid: Default::default(),
            data: Default::default(),
            crc: Default::default(),
            step,
            remainder: DFF::default(),
            finish: Constant::new(bits_from_fn(|k| ((init ^ spec.xorout) >> k) & 1 == 1)),
        }
    }
}

impl<const W: usize, const D: usize> Default for ParallelCrc<W, D> {
    /// hpcnet's CRC of width `W` ([`CRC8`], [`CRC14`], [`CRC16`] or [`CRC32`]).
    fn default() -> Self {
        let spec = match W {
            8 => CRC8,
            14 => CRC14,
            16 => CRC16,
            32 => CRC32,
            _ => panic!("ParallelCrc: no default CRC of width W = {W}; use ParallelCrc::new"),
        };
        Self::new(&spec)
    }
}

impl<const W: usize, const D: usize> Logic for ParallelCrc<W, D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, remainder);
        self.step.state.next = self.remainder.q.val();
        if self.start.val() {
            self.step.state.next = 0.into();
        }
        self.step.data.next = self.data.val();
        // One enable and one synchronous clear, so the register maps onto the iCE40's
        // enable-and-reset flip-flop with no multiplexer left in LUTs.
        if self.valid.val() | self.start.val() | self.reset.val() {
            self.remainder.d.next = self.step.next_state.val();
            if !self.valid.val() | self.reset.val() {
                self.remainder.d.next = 0.into();
            }
        }
        self.crc.next = self.remainder.q.val() ^ self.finish.val();
    }
}

#[test]
fn parallel_crc_is_synthesizable() {
    let mut uut = crate::crc::Crc14x65::default();
    uut.connect_all();
    yosys_validate("parallel_crc", &generate_verilog(&uut)).unwrap();
}
