//! Posted memory writes from the NIC to host memory, one 16-byte beat at a time.
//!
//! A write (PCIe's memory-write TLP) is a run of beats ended by `last`. Each beat carries the
//! 16-byte-aligned `address` of its 16 bytes, the data (byte `i` in bits `8 i + 7 .. 8 i`) and
//! the byte enables (bit `i` for byte `i`); the beats of a write cover consecutive 16-byte
//! blocks, its enabled bytes are contiguous (only its first beat may start and only its last
//! may end inside a block), it holds at most `nic.max_payload` bytes and does not cross a 4 KB
//! boundary. No completion comes back; the host applies writes in the order they arrive.
use super::{ADDRESS_BITS, FUNCTION_BITS, HOST_BEAT_BYTES, HOST_DATA_BITS};
use rust_hdl::prelude::*;

/// Write beats, at the NIC.
#[derive(LogicInterface, Default)]
#[join = "WriteBeatSink"]
pub struct WriteBeatSource {
    /// A beat is offered.
    pub valid: Signal<Out, bool>,
    /// The writing function (PCIe requester ID).
    pub function: Signal<Out, Bits<FUNCTION_BITS>>,
    /// Address of the beat's 16 bytes (bits 3..0 zero).
    pub address: Signal<Out, Bits<ADDRESS_BITS>>,
    /// The bytes.
    pub data: Signal<Out, Bits<HOST_DATA_BITS>>,
    /// Bit `i`: byte `i` is written.
    pub enables: Signal<Out, Bits<HOST_BEAT_BYTES>>,
    /// The write's last beat.
    pub last: Signal<Out, bool>,
    /// The host takes the beat on this edge.
    pub ready: Signal<In, bool>,
}

/// Write beats, at the host.
#[derive(LogicInterface, Default)]
#[join = "WriteBeatSource"]
pub struct WriteBeatSink {
    /// A beat is offered.
    pub valid: Signal<In, bool>,
    /// The writing function.
    pub function: Signal<In, Bits<FUNCTION_BITS>>,
    /// Address of the beat's 16 bytes.
    pub address: Signal<In, Bits<ADDRESS_BITS>>,
    /// The bytes.
    pub data: Signal<In, Bits<HOST_DATA_BITS>>,
    /// Byte enables.
    pub enables: Signal<In, Bits<HOST_BEAT_BYTES>>,
    /// The write's last beat.
    pub last: Signal<In, bool>,
    /// The beat is taken on this edge.
    pub ready: Signal<Out, bool>,
}
