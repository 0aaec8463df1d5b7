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

/// A packed head flit of a random header ([`random_header`]) with length `len`.
pub fn random_head_flit(rng: &mut BenchRng, len: u8) -> u128 {
    Flit::Head(random_header(rng, len)).pack()
}

/// A packed body flit of random data.
pub fn random_body_flit(rng: &mut BenchRng) -> u128 {
    Flit::Body(rng.bits(64) as u64).pack()
}

/// A packed tail flit with a random CRC-16.
pub fn random_tail_flit(rng: &mut BenchRng) -> u128 {
    Flit::Tail {
        crc16: rng.bits(16) as u16,
    }
    .pack()
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
