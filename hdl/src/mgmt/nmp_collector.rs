//! NMP collector: gathers the agent's outgoing response tickets
//! ([`ResponseTicket`](super::ticket::ResponseTicket)) from its three producers into one stream,
//! whole packets at a time (a ticket stands for a whole packet), one ticket per cycle. (The
//! stream's items are called beats below.)
//!
//! Ports: `clock`, `reset`, sinks `responses` (register unit, which also answers requests of
//! an unknown type), `eeprom` (EEPROM unit), `reports` (fault reports), and
//! the source `beats` (to the packer, which reads the ticket while it sends the packet and
//! takes it with the tail).
//!
//! Fixed priority, in this order: `responses`, `eeprom`, `reports`. Responses of every kind
//! come before fault reports (the rule); among responses the register unit goes first
//! because its answers are the fastest and most frequent. Starvation: a report waits
//! while responses keep coming, but responses are bounded by requests (one per request, and
//! the management server paces its requests by their responses), so a report always leaves
//! once the requests pause; a low-priority response likewise.
//!
//! Handshake: the collector is a REGISTER stage. The ticket offered on `beats` is a register
//! (`ticket`, `full`); on every edge where the register is empty or its ticket is taken, it
//! loads the first valid sink in priority order, whose `ready` is high in that cycle (the other
//! sinks' low). So a producer's ticket is taken as soon as the register can hold it, not when
//! the packer has sent its packet: the register unit and the unpacker behind it go on to the
//! next request while the packer sends this one's flits (that overlap is what sustains the
//! agent's request rate). A ticket offered in cycle `c` to an empty collector is on `beats` in
//! `c + 1`; one taken in `c` is replaced by the next on the same edge. The choice is made at
//! the load: a higher-priority ticket that arrives while one is held goes next. No path from a
//! producer's `valid` or data to `beats` (the agent's critical path used to run from a unit's
//! valid through the choice, the packer and the FIFO back to the unit's ready); the sinks'
//! `ready` follows `beats.ready` (ready to ready only).
//!
//! Cost: the ticket register ([`RESPONSE_TICKET_BITS`] flip-flops and `full`) after the
//! three-way multiplexer the agent had before without it.
//!
//! Reset (synchronous): the register empties, nothing is taken.
use super::ticket::RESPONSE_TICKET_BITS;
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// The collector; see the module documentation.
#[derive(LogicBlock, Default)]
pub struct NmpCollector {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Register responses (highest priority).
    pub responses: StreamSink<Bits<RESPONSE_TICKET_BITS>>,
    /// EEPROM responses.
    pub eeprom: StreamSink<Bits<RESPONSE_TICKET_BITS>>,
    /// Fault reports (lowest priority).
    pub reports: StreamSink<Bits<RESPONSE_TICKET_BITS>>,
    /// Every beat, one per cycle.
    pub beats: StreamSource<Bits<RESPONSE_TICKET_BITS>>,
    /// The ticket offered.
    ticket: DFF<Bits<RESPONSE_TICKET_BITS>>,
    /// `ticket` holds a ticket.
    full: DFF<bool>,
    /// The register takes a ticket on this edge if one is offered.
    loading: Signal<Local, bool>,
}

impl Logic for NmpCollector {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ticket, full);
        self.beats.valid.next = self.full.q.val() & !self.reset.val();
        self.beats.data.next = self.ticket.q.val();
        self.loading.next = (!self.full.q.val() | self.beats.ready.val()) & !self.reset.val();
        if self.beats.ready.val() {
            self.full.d.next = false;
        }
        // The first valid sink in priority order, taken if the register can hold it.
        self.responses.ready.next = false;
        self.eeprom.ready.next = false;
        self.reports.ready.next = false;
        if self.responses.valid.val() {
            self.responses.ready.next = self.loading.val();
            if self.loading.val() {
                self.ticket.d.next = self.responses.data.val();
                self.full.d.next = true;
            }
        } else if self.eeprom.valid.val() {
            self.eeprom.ready.next = self.loading.val();
            if self.loading.val() {
                self.ticket.d.next = self.eeprom.data.val();
                self.full.d.next = true;
            }
        } else if self.reports.valid.val() {
            self.reports.ready.next = self.loading.val();
            if self.loading.val() {
                self.ticket.d.next = self.reports.data.val();
                self.full.d.next = true;
            }
        }
        if self.reset.val() {
            self.full.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nmp_collector_is_synthesizable() {
        let mut uut = NmpCollector::default();
        uut.connect_all();
        yosys_validate("nmp_collector", &generate_verilog(&uut)).unwrap();
    }
}
