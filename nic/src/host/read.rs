//! Memory reads: the NIC's read requests to host memory and the host's completions.
//!
//! A **request** names the requesting function, a byte `address`, a byte count `bytes`
//! (1..=`nic.max_read_request`, not crossing a 4 KB boundary) and a `tag` that no other
//! request in flight holds (the NIC's central tag pool guarantees it; the host model fails the
//! bench otherwise).
//!
//! The **completion** of a request is a run of 16-byte beats: beat `k` holds host bytes
//! `align16(address) + 16 k ..+ 16`, byte `i` of the beat in bits `8 i + 7 .. 8 i` (so the
//! request's first byte is at lane `address % 16` of beat 0); there are
//! `ceil((address % 16 + bytes) / 16)` beats, and the bytes outside the request are
//! unspecified. The host may split a request's data into several completions at multiples of
//! [`READ_COMPLETION_BOUNDARY`](super::READ_COMPLETION_BOUNDARY) bytes, with idle cycles
//! between them (PCIe's completion headers), and interleave the beats of different tags in
//! any order; the beats of one tag arrive in order. `last` marks the request's final beat:
//! after it the tag is free. A read the host cannot serve is answered by one beat with
//! `error` and `last` set (no data): the NIC reports the operation as failed.
use super::{ADDRESS_BITS, FUNCTION_BITS, HOST_DATA_BITS, READ_BYTES_BITS, TAG_BITS};
use rust_hdl::prelude::*;

/// Read requests, at the NIC.
#[derive(LogicInterface, Default)]
#[join = "ReadRequestSink"]
pub struct ReadRequestSource {
    /// A request is offered.
    pub valid: Signal<Out, bool>,
    /// The requesting function (PCIe requester ID).
    pub function: Signal<Out, Bits<FUNCTION_BITS>>,
    /// Byte address of the first byte.
    pub address: Signal<Out, Bits<ADDRESS_BITS>>,
    /// Bytes to read (1..=max read request).
    pub bytes: Signal<Out, Bits<READ_BYTES_BITS>>,
    /// Tag of the request (free until its completion's `last` beat).
    pub tag: Signal<Out, Bits<TAG_BITS>>,
    /// The host takes the request on this edge.
    pub ready: Signal<In, bool>,
}

/// Read requests, at the host.
#[derive(LogicInterface, Default)]
#[join = "ReadRequestSource"]
pub struct ReadRequestSink {
    /// A request is offered.
    pub valid: Signal<In, bool>,
    /// The requesting function.
    pub function: Signal<In, Bits<FUNCTION_BITS>>,
    /// Byte address.
    pub address: Signal<In, Bits<ADDRESS_BITS>>,
    /// Bytes to read.
    pub bytes: Signal<In, Bits<READ_BYTES_BITS>>,
    /// Tag.
    pub tag: Signal<In, Bits<TAG_BITS>>,
    /// The request is taken on this edge.
    pub ready: Signal<Out, bool>,
}

/// Read completion beats, at the host.
#[derive(LogicInterface, Default)]
#[join = "ReadCompletionSink"]
pub struct ReadCompletionSource {
    /// A beat is offered.
    pub valid: Signal<Out, bool>,
    /// The request's tag.
    pub tag: Signal<Out, Bits<TAG_BITS>>,
    /// 16 bytes of host memory, 16-byte aligned.
    pub data: Signal<Out, Bits<HOST_DATA_BITS>>,
    /// The request's final beat (its tag is free after it).
    pub last: Signal<Out, bool>,
    /// The read failed (no data; `last` is set too).
    pub error: Signal<Out, bool>,
    /// The NIC takes the beat on this edge.
    pub ready: Signal<In, bool>,
}

/// Read completion beats, at the NIC.
#[derive(LogicInterface, Default)]
#[join = "ReadCompletionSource"]
pub struct ReadCompletionSink {
    /// A beat is offered.
    pub valid: Signal<In, bool>,
    /// The request's tag.
    pub tag: Signal<In, Bits<TAG_BITS>>,
    /// 16 bytes of host memory.
    pub data: Signal<In, Bits<HOST_DATA_BITS>>,
    /// The request's final beat.
    pub last: Signal<In, bool>,
    /// The read failed.
    pub error: Signal<In, bool>,
    /// The beat is taken on this edge.
    pub ready: Signal<Out, bool>,
}
