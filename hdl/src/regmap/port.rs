//! The register access ports: a request stream (address, read or write, write data) and a
//! response stream (read data, error code), each a `LogicInterface` pair joined whole, as
//! [`StreamSource`](crate::stream::StreamSource)/[`StreamSink`](crate::stream::StreamSink).
//!
//! Both follow the stream rules of [`crate::stream`]: a beat moves on an edge where
//! `valid && ready`; a source holds `valid` and its data until the beat moves and does not wait
//! for `ready` to raise `valid`. Every request is answered by exactly one response, in order:
//! a read with the register's value (zero-extended), a write with an empty `data`; both carry
//! an error code ([`RegError`]), and a request answered with an error has changed nothing.
//!
//! Parameters: `A` address bits (addresses count registers, not bytes); `D` data bits.
use rust_hdl::prelude::*;

/// Width of the error code of a response.
pub const ERROR_BITS: usize = 2;

/// Why a register request failed, defined once: the register file drives these codes, the
/// bench models expect them, the C header and the Markdown reference list them, and the
/// management agent turns them into error responses naming the reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegError {
    /// The request was carried out.
    None,
    /// No register at this address (read or write); a read returns zero.
    Unmapped,
    /// A write to a read-only register; nothing was written.
    ReadOnly,
}

impl RegError {
    /// Every code, in code order.
    pub const ALL: [RegError; 3] = [RegError::None, RegError::Unmapped, RegError::ReadOnly];

    /// The numeric code on the `error` wires.
    pub const fn code(self) -> u64 {
        match self {
            RegError::None => 0,
            RegError::Unmapped => 1,
            RegError::ReadOnly => 2,
        }
    }
    /// The error of numeric code `code`, if any.
    pub fn from_code(code: u64) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.code() == code)
    }
    /// Lowercase name (`read_only`), as in the C header's `HPCNET_REG_ERROR_READ_ONLY`.
    pub fn name(self) -> &'static str {
        match self {
            RegError::None => "none",
            RegError::Unmapped => "unmapped",
            RegError::ReadOnly => "read_only",
        }
    }
    /// What the code means.
    pub fn meaning(self) -> &'static str {
        match self {
            RegError::None => "done: a read returns the register's value, a write took effect",
            RegError::Unmapped => {
                "no register at this address; nothing changed, a read returns zero"
            }
            RegError::ReadOnly => "write to a read-only register; nothing changed",
        }
    }
    /// The code as the hardware's `Bits`.
    pub fn bits(self) -> Bits<ERROR_BITS> {
        Bits::<ERROR_BITS>::from(self.code())
    }
}

/// The requesting end of register access (a management agent, an MMIO decoder, a bench).
#[derive(LogicInterface, Default)]
#[join = "RegRequestSink"]
pub struct RegRequestSource<const A: usize, const D: usize> {
    /// A request is offered.
    pub valid: Signal<Out, bool>,
    /// The register's address (in registers).
    pub address: Signal<Out, Bits<A>>,
    /// Write (else read).
    pub write: Signal<Out, bool>,
    /// Data to write (ignored by reads).
    pub data: Signal<Out, Bits<D>>,
    /// The register file takes the request on this edge.
    pub ready: Signal<In, bool>,
}

/// The serving end of register access (a register file's request port).
#[derive(LogicInterface, Default)]
#[join = "RegRequestSource"]
pub struct RegRequestSink<const A: usize, const D: usize> {
    /// A request is offered.
    pub valid: Signal<In, bool>,
    /// The register's address (in registers).
    pub address: Signal<In, Bits<A>>,
    /// Write (else read).
    pub write: Signal<In, bool>,
    /// Data to write (ignored by reads).
    pub data: Signal<In, Bits<D>>,
    /// The request is taken on this edge.
    pub ready: Signal<Out, bool>,
}

/// The answering end of register access (a register file's response port).
#[derive(LogicInterface, Default)]
#[join = "RegResponseSink"]
pub struct RegResponseSource<const D: usize> {
    /// A response is offered.
    pub valid: Signal<Out, bool>,
    /// Read data, zero-extended (zero for writes and errors).
    pub data: Signal<Out, Bits<D>>,
    /// [`RegError`] code.
    pub error: Signal<Out, Bits<ERROR_BITS>>,
    /// The requester takes the response on this edge.
    pub ready: Signal<In, bool>,
}

/// The receiving end of register responses (at the requester).
#[derive(LogicInterface, Default)]
#[join = "RegResponseSource"]
pub struct RegResponseSink<const D: usize> {
    /// A response is offered.
    pub valid: Signal<In, bool>,
    /// Read data.
    pub data: Signal<In, Bits<D>>,
    /// [`RegError`] code.
    pub error: Signal<In, Bits<ERROR_BITS>>,
    /// The response is taken on this edge.
    pub ready: Signal<Out, bool>,
}

#[test]
fn error_codes_round_trip_and_fit() {
    for e in RegError::ALL {
        assert_eq!(RegError::from_code(e.code()), Some(e));
        assert!(e.code() < 1 << ERROR_BITS);
        assert_eq!(e.bits().to_u64(), e.code());
    }
    assert_eq!(RegError::from_code(3), None);
}
