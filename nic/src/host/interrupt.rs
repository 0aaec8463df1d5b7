//! Interrupts: one message per interrupt (PCIe MSI-X style), naming the function whose driver
//! is to be woken and a vector (the QP whose ring has news). The NIC raises one after writing
//! an event when the ring's interrupt is enabled; the host takes one message per cycle.
use super::{FUNCTION_BITS, VECTOR_BITS};
use rust_hdl::prelude::*;

/// Interrupt messages, at the NIC.
#[derive(LogicInterface, Default)]
#[join = "InterruptSink"]
pub struct InterruptSource {
    /// A message is offered.
    pub valid: Signal<Out, bool>,
    /// The function interrupted.
    pub function: Signal<Out, Bits<FUNCTION_BITS>>,
    /// The vector (QP).
    pub vector: Signal<Out, Bits<VECTOR_BITS>>,
    /// The host takes the message on this edge.
    pub ready: Signal<In, bool>,
}

/// Interrupt messages, at the host.
#[derive(LogicInterface, Default)]
#[join = "InterruptSource"]
pub struct InterruptSink {
    /// A message is offered.
    pub valid: Signal<In, bool>,
    /// The function interrupted.
    pub function: Signal<In, Bits<FUNCTION_BITS>>,
    /// The vector.
    pub vector: Signal<In, Bits<VECTOR_BITS>>,
    /// The message is taken on this edge.
    pub ready: Signal<Out, bool>,
}
