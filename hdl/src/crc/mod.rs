//! Cyclic redundancy checks: definitions, software references and parallel hardware.
//!
//! - [`spec`]: [`CrcSpec`] (Rocksoft model) with hpcnet's CRCs ([`CRC8`], [`CRC14`], [`CRC16`],
//!   [`CRC32`]), the bit-serial reference [`CrcDigest`] and the bytewise [`CrcTable`]. Benches
//!   and link software compute CRCs with these, so they live beside the hardware.
//! - [`matrix`]: [`CrcMatrix`], the GF(2) matrices of a `D`-bit step, derived in Rust at
//!   elaboration from the bit-serial reference.
//! - [`CrcStep`]: the combinational step (one XOR reduction per register bit).
//! - [`ParallelCrc`]: register plus step, with frame start, beat enable and finished output.
//!
//! Bit order everywhere: with a reflected CRC, bit 0 of a beat is first on the wire (bytes
//! little-endian in a beat); with an unreflected one, bit `D-1` is first (bytes big-endian).
//! The instances hpcnet uses have aliases below.
pub mod crc_step;
pub mod matrix;
pub mod parallel_crc;
pub mod spec;

use crate::formats::FLIT_BITS;
pub use crc_step::CrcStep;
pub use matrix::CrcMatrix;
pub use parallel_crc::ParallelCrc;
pub use spec::{reflect, CrcDigest, CrcSpec, CrcTable, CRC14, CRC16, CRC32, CRC8};

/// CRC-8/SMBUS over one 32-bit XFR per beat (the per-group CRC of the LTP receiver).
pub type Crc8x32 = ParallelCrc<8, 32>;
/// CRC-14/DARC over one 65-bit link flit per beat (the LTP CRC).
pub type Crc14x65 = ParallelCrc<14, FLIT_BITS>;
/// CRC-16/IBM-3740 over 16-bit beats.
pub type Crc16x16 = ParallelCrc<16, 16>;
/// CRC-32 (Ethernet FCS) over 64-bit beats, 8 bytes little-endian.
pub type Crc32x64 = ParallelCrc<32, 64>;
/// CRC-32 over 32-bit beats, 4 bytes little-endian.
pub type Crc32x32 = ParallelCrc<32, 32>;
/// CRC-32 over bytes.
pub type Crc32x8 = ParallelCrc<32, 8>;
