//! Doorbells: one FIFO per SR-IOV function, fed by MMIO writes to the function's `doorbell`
//! register, served fairly to the descriptor fetch.
//!
//! - [`DoorbellSource`] / [`DoorbellSink`]: the doorbell stream (a function and its 64-bit
//!   doorbell word, `docs/formats.md`), from the MMIO decode into [`DoorbellQueues`] and from
//!   the queues to the descriptor fetch.
//! - [`WeightedArbiter`]: round robin over the functions, or weighted round robin (each
//!   function served up to its weight in a row).
//! - [`DoorbellQueues`]: the functions' FIFOs in one block RAM, overflow refused and reported,
//!   the arbiter choosing which FIFO to pop.
//! - [`DeficitGate`]: byte fairness in front of the arbiter (deficit round robin, charged
//!   with each descriptor's bytes when it leaves the fetch: [`ChargeSource`] / [`ChargeSink`]).
pub mod deficit_gate;
pub mod doorbell_queues;
pub mod weighted_arbiter;

pub use deficit_gate::DeficitGate;
pub use doorbell_queues::DoorbellQueues;
pub use weighted_arbiter::WeightedArbiter;

use hdl::formats::nic::FUNCTION_BITS;
use rust_hdl::prelude::*;

/// Most functions (the function number's width allows 8).
pub const MAX_FUNCTIONS: usize = 1 << FUNCTION_BITS;
/// Bits of a doorbell word.
pub const DOORBELL_BITS: usize = 64;

/// The sending end of a doorbell stream (valid/ready, the hold rule of [`hdl::stream`]).
#[derive(LogicInterface, Default)]
#[join = "DoorbellSink"]
pub struct DoorbellSource {
    /// A doorbell is offered.
    pub valid: Signal<Out, bool>,
    /// The function whose doorbell register was written.
    pub function: Signal<Out, Bits<FUNCTION_BITS>>,
    /// The doorbell word as written.
    pub word: Signal<Out, Bits<DOORBELL_BITS>>,
    /// The receiver takes it on this edge.
    pub ready: Signal<In, bool>,
}

/// The receiving end of a doorbell stream.
#[derive(LogicInterface, Default)]
#[join = "DoorbellSource"]
pub struct DoorbellSink {
    /// A doorbell is offered.
    pub valid: Signal<In, bool>,
    /// The function.
    pub function: Signal<In, Bits<FUNCTION_BITS>>,
    /// The doorbell word.
    pub word: Signal<In, Bits<DOORBELL_BITS>>,
    /// This block takes it on this edge.
    pub ready: Signal<Out, bool>,
}

/// Bits of a charge's byte count (a descriptor's `length`).
pub const CHARGE_BYTES_BITS: usize = 32;

/// A descriptor's bytes charged to its function (a pulse, no back pressure): from the send
/// engine, where descriptors leave the fetch, to the doorbell arbiter's [`DeficitGate`].
#[derive(LogicInterface, Default)]
#[join = "ChargeSink"]
pub struct ChargeSource {
    /// A descriptor left the fetch on this edge.
    pub valid: Signal<Out, bool>,
    /// Its function.
    pub function: Signal<Out, Bits<FUNCTION_BITS>>,
    /// Its bytes.
    pub bytes: Signal<Out, Bits<CHARGE_BYTES_BITS>>,
}

/// The receiving end of a charge.
#[derive(LogicInterface, Default)]
#[join = "ChargeSource"]
pub struct ChargeSink {
    /// A descriptor left the fetch on this edge.
    pub valid: Signal<In, bool>,
    /// Its function.
    pub function: Signal<In, Bits<FUNCTION_BITS>>,
    /// Its bytes.
    pub bytes: Signal<In, Bits<CHARGE_BYTES_BITS>>,
}
