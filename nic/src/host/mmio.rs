//! MMIO: the host's register reads and writes towards the NIC, and the read completions.
//!
//! A request names a **function** (its BAR: function 0 is the PF) and a **byte offset** in that
//! BAR, 8-byte aligned: every access is one 64-bit register. A write is posted (no completion:
//! a refused write changes nothing and is counted in the function's registers). A read is
//! answered by exactly one completion, in request order, carrying the request's `tag`, the
//! data and an [`MmioStatus`]; an access the NIC refuses reads zero with a status naming why.
use super::{FUNCTION_BITS, MMIO_DATA_BITS, MMIO_OFFSET_BITS, MMIO_TAG_BITS};
use rust_hdl::prelude::*;

/// Bits of an MMIO completion's status.
pub const MMIO_STATUS_BITS: usize = 2;

/// How an MMIO read was answered, defined once (hardware codes, models, documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmioStatus {
    /// The register's value.
    Ok,
    /// No register at this offset of the page (or an offset not 8-byte aligned); reads zero.
    Unmapped,
    /// The offset is outside the function's BAR (a VF reaching beyond its own page, the PF
    /// beyond the last function's page); reads zero, counted.
    Outside,
}

impl MmioStatus {
    /// Every status with its code and meaning.
    pub const ALL: [(MmioStatus, u64, &'static str); 3] = [
        (MmioStatus::Ok, 0, "the register's value"),
        (
            MmioStatus::Unmapped,
            1,
            "no register at this offset of the page, or an offset not 8-byte aligned; reads zero, changes nothing",
        ),
        (
            MmioStatus::Outside,
            2,
            "the offset is outside the function's BAR (a VF's own page; the PF's pages of every function); reads zero, changes nothing, counted in the function's mmio_outside",
        ),
    ];
    /// The code on the `status` wires.
    pub fn code(self) -> u64 {
        Self::ALL.iter().find(|s| s.0 == self).expect("listed").1
    }
    /// The status of a code.
    pub fn from_code(c: u64) -> Option<Self> {
        Self::ALL.iter().find(|s| s.1 == c).map(|s| s.0)
    }
    /// The code as the hardware's `Bits`.
    pub fn bits(self) -> Bits<MMIO_STATUS_BITS> {
        Bits::<MMIO_STATUS_BITS>::from(self.code())
    }
}

/// MMIO requests, at the host (the side that issues them).
#[derive(LogicInterface, Default)]
#[join = "MmioRequestSink"]
pub struct MmioRequestSource {
    /// A request is offered.
    pub valid: Signal<Out, bool>,
    /// The BAR: the function addressed (0 the PF).
    pub function: Signal<Out, Bits<FUNCTION_BITS>>,
    /// Byte offset in the BAR (8-byte aligned).
    pub offset: Signal<Out, Bits<MMIO_OFFSET_BITS>>,
    /// Write (posted), else read.
    pub write: Signal<Out, bool>,
    /// Write data (ignored by reads).
    pub data: Signal<Out, Bits<MMIO_DATA_BITS>>,
    /// Read tag, returned in the completion (ignored by writes).
    pub tag: Signal<Out, Bits<MMIO_TAG_BITS>>,
    /// The NIC takes the request on this edge.
    pub ready: Signal<In, bool>,
}

/// MMIO requests, at the NIC.
#[derive(LogicInterface, Default)]
#[join = "MmioRequestSource"]
pub struct MmioRequestSink {
    /// A request is offered.
    pub valid: Signal<In, bool>,
    /// The BAR: the function addressed.
    pub function: Signal<In, Bits<FUNCTION_BITS>>,
    /// Byte offset in the BAR.
    pub offset: Signal<In, Bits<MMIO_OFFSET_BITS>>,
    /// Write, else read.
    pub write: Signal<In, bool>,
    /// Write data.
    pub data: Signal<In, Bits<MMIO_DATA_BITS>>,
    /// Read tag.
    pub tag: Signal<In, Bits<MMIO_TAG_BITS>>,
    /// The request is taken on this edge.
    pub ready: Signal<Out, bool>,
}

/// MMIO read completions, at the NIC.
#[derive(LogicInterface, Default)]
#[join = "MmioCompletionSink"]
pub struct MmioCompletionSource {
    /// A completion is offered.
    pub valid: Signal<Out, bool>,
    /// The read's tag.
    pub tag: Signal<Out, Bits<MMIO_TAG_BITS>>,
    /// The register's value (zero unless the status is Ok).
    pub data: Signal<Out, Bits<MMIO_DATA_BITS>>,
    /// [`MmioStatus`] code.
    pub status: Signal<Out, Bits<MMIO_STATUS_BITS>>,
    /// The host takes the completion on this edge.
    pub ready: Signal<In, bool>,
}

/// MMIO read completions, at the host.
#[derive(LogicInterface, Default)]
#[join = "MmioCompletionSource"]
pub struct MmioCompletionSink {
    /// A completion is offered.
    pub valid: Signal<In, bool>,
    /// The read's tag.
    pub tag: Signal<In, Bits<MMIO_TAG_BITS>>,
    /// The register's value.
    pub data: Signal<In, Bits<MMIO_DATA_BITS>>,
    /// [`MmioStatus`] code.
    pub status: Signal<In, Bits<MMIO_STATUS_BITS>>,
    /// The completion is taken on this edge.
    pub ready: Signal<Out, bool>,
}

#[test]
fn status_codes_round_trip_and_fit() {
    for (s, c, _) in MmioStatus::ALL {
        assert_eq!(MmioStatus::from_code(c), Some(s));
        assert!(c < 1 << MMIO_STATUS_BITS);
        assert_eq!(s.bits().to_u64(), c);
    }
    assert_eq!(MmioStatus::from_code(3), None);
}
