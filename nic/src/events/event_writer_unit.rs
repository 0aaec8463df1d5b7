//! `EventWriterUnit`: the [`EventWriter`] with the fetch's error events joined through
//! [`ErrorEventRequest`], as the NIC joins them: the emitted top `nic_event_writer` and the
//! device of the `event_writer` bench.
//!
//! Ports: the writer's, with `errors` in the fetch's [`ErrorEventSink`] form. Reset
//! (synchronous) is the writer's.
use super::{ErrorEventRequest, EventRequestSink, EventRequestSource, EventWriter};
use crate::descriptor::ErrorEventSink;
use crate::function_table::{PointerAdvanceSource, QpLookupSource};
use crate::host::{InterruptSource, WriteBeatSource};
use rust_hdl::prelude::*;

/// The event writer with the fetch's error input; see the module documentation.
#[derive(LogicBlock, Default)]
pub struct EventWriterUnit {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The send engine's events.
    pub sends: EventRequestSink,
    /// The receive engine's events.
    pub receives: EventRequestSink,
    /// The descriptor fetch's error events.
    pub errors: ErrorEventSink,
    /// QP lookups.
    pub lookup: QpLookupSource,
    /// Event writes.
    pub write: WriteBeatSource,
    /// Pointer advances.
    pub advance: PointerAdvanceSource,
    /// Interrupts.
    pub interrupt: InterruptSource,
    /// Pulse: an event for a missing or disabled function or QP was discarded.
    pub dropped: Signal<Out, bool>,
    /// Pulse: an event was passed over because its ring is full.
    pub ring_full: Signal<Out, bool>,
    to_request: ErrorEventRequest,
    /// Requesters 0 sends, 1 receives, 2 the fetch's errors.
    writer: EventWriter<3, 2>,
}

impl Logic for EventWriterUnit {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, writer);
        self.writer.reset.next = self.reset.val();
        EventRequestSink::link(&mut self.sends, &mut self.writer.requests[0]);
        EventRequestSink::link(&mut self.receives, &mut self.writer.requests[1]);
        ErrorEventSink::link(&mut self.errors, &mut self.to_request.errors);
        EventRequestSource::join(&mut self.to_request.request, &mut self.writer.requests[2]);
        QpLookupSource::link(&mut self.lookup, &mut self.writer.lookup);
        WriteBeatSource::link(&mut self.write, &mut self.writer.write);
        PointerAdvanceSource::link(&mut self.advance, &mut self.writer.advance);
        InterruptSource::link(&mut self.interrupt, &mut self.writer.interrupt);
        self.dropped.next = self.writer.dropped.val();
        self.ring_full.next = self.writer.ring_full.val();
    }
}

#[test]
fn event_writer_unit_is_synthesizable() {
    let mut uut = EventWriterUnit::default();
    uut.connect_all();
    yosys_validate("event_writer_unit", &generate_verilog(&uut)).unwrap();
}
