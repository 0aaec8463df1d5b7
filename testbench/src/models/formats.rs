//! Random, well-formed format values for benches, from the definitions in `hdl::formats`.
use crate::rng::BenchRng;
use hdl::formats::flit::{ControlCode, Flit};
use hdl::formats::{FabricHeader, PacketKind};

/// A header with random fields, a defined packet kind and length `len`.
pub fn random_header(rng: &mut BenchRng, len: u8) -> FabricHeader {
    FabricHeader {
        dst: rng.bits(16) as u16,
        src: rng.bits(16) as u16,
        vc: rng.bits(3) as u8,
        kind: PacketKind::ALL[rng.range(0, PacketKind::ALL.len() as u64 - 1) as usize].0,
        len,
        delay: rng.bits(12) as u16,
    }
}

/// A packed control flit of `code` with random VC, credits and original-code fields.
pub fn random_control(rng: &mut BenchRng, code: ControlCode) -> u128 {
    Flit::Control {
        code,
        vc: rng.bits(3) as u8,
        credits: rng.bits(16) as u16,
        orig: rng.bits(32) as u64,
    }
    .pack()
}
