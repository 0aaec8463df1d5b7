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
//! Handshake: the choice is a REGISTER (`held`): the beat offered in a cycle is the held
//! sink's, multiplexed from it (no storage: the producers hold their beats), and each sink's
//! `ready` is `beats.ready` when it is held. The register takes a new choice, the first valid
//! sink in priority order, on every edge where the held sink offers nothing or its beat is
//! taken; while a beat waits (`valid && !ready`) the choice stays, so the offered beat stays
//! the same until taken, as the stream rules require, even if a higher-priority beat arrives
//! meanwhile (it goes next). The registered choice costs one cycle when the collector was idle
//! (a beat offered in cycle `c` is on `beats` in `c + 1`) and keeps the producers' valid logic
//! out of the paths into the packer and the output FIFO: without it the agent's critical path
//! ran from a unit's valid through the choice, the packer and the FIFO back to the unit's
//! ready (56 MHz on the ECP5). No path from a ready to a valid.
//!
//! Reset (synchronous): takes nothing; the choice starts at `responses`.
use super::ticket::RESPONSE_TICKET_BITS;
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// Which sink is chosen, in priority order.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum CollectorChoice {
    /// The register unit's responses.
    Responses,
    /// The EEPROM unit's responses.
    Eeprom,
    /// Fault reports.
    Reports,
}

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
    /// The sink whose beat is offered.
    held: DFF<CollectorChoice>,
    /// The first valid sink in priority order (the next choice).
    choice: Signal<Local, CollectorChoice>,
}

impl Logic for NmpCollector {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, held);
        self.choice.next = CollectorChoice::Reports;
        if self.eeprom.valid.val() {
            self.choice.next = CollectorChoice::Eeprom;
        }
        if self.responses.valid.val() {
            self.choice.next = CollectorChoice::Responses;
        }
        self.responses.ready.next = false;
        self.eeprom.ready.next = false;
        self.reports.ready.next = false;
        // Defaults for every choice (the match below covers them all, but a case statement
        // without a default arm is a latch to Yosys).
        self.beats.valid.next = false;
        self.beats.data.next = self.reports.data.val();
        match self.held.q.val() {
            CollectorChoice::Responses => {
                self.beats.valid.next = self.responses.valid.val();
                self.beats.data.next = self.responses.data.val();
                self.responses.ready.next = self.beats.ready.val() & !self.reset.val();
            }
            CollectorChoice::Eeprom => {
                self.beats.valid.next = self.eeprom.valid.val();
                self.beats.data.next = self.eeprom.data.val();
                self.eeprom.ready.next = self.beats.ready.val() & !self.reset.val();
            }
            CollectorChoice::Reports => {
                self.beats.valid.next = self.reports.valid.val();
                self.beats.data.next = self.reports.data.val();
                self.reports.ready.next = self.beats.ready.val() & !self.reset.val();
            }
        }
        if self.reset.val() {
            self.beats.valid.next = false;
        }
        // A new choice unless a beat waits.
        if !self.beats.valid.val() | self.beats.ready.val() {
            self.held.d.next = self.choice.val();
        }
        if self.reset.val() {
            self.held.d.next = CollectorChoice::Responses;
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
