//! NMP distributor: dispatches each request ticket
//! ([`RequestTicket`](super::ticket::RequestTicket)) from the unpacker to its function unit by
//! `nmp_type`: EEPROM reads (0x11) and writes (0x13) to `eeprom`, every other type to
//! `registers`. The register unit answers register reads (0x01) and writes (0x03) and refuses
//! anything else (an undefined code, or a response or report type sent as a request) with a
//! register error response, error code 4
//! ([`MgmtError::UnknownType`](crate::formats::mgmt::MgmtError::UnknownType)), so no unit and
//! no slot is spent here on malformed traffic.
//!
//! Ports: `clock`, `reset` (synchronous: drops the ticket held in the EEPROM slot; the
//! requester's timeout and retry cover it), `requests` (sink), `registers`, `eeprom`
//! (sources), `held` (which outputs hold a ticket, for a status register).
//!
//! Backpressure and order: one input stream, taken in order. Register requests pass straight
//! through: `registers` is the input itself (the unpacker holds its ticket until taken), and the
//! register unit, which answers in a few cycles, takes it with its response. The EEPROM output
//! has a one-ticket slot (a depth-1 fall-through [`RegFifo`]): a ticket is taken at once when the
//! slot is free (and shown on `eeprom` in the same cycle if the slot was empty), so an EEPROM
//! access, which takes milliseconds, holds back the input only when a second EEPROM request
//! arrives while the slot is full. From then on the input waits, and so do requests for the
//! register unit behind it (head-of-line blocking, kept on purpose: it bounds the agent's
//! storage, and requests are paced by a management server that waits for its responses).
//! `requests.ready` is, by the offered ticket's type, the register unit's `ready` or the slot's
//! `sink.ready` (a flip-flop): ready depends on data and on the unit's ready, never on valid.
//!
//! A ticket in the EEPROM slot keeps its request's store slot in use (the
//! [`SlotPool`](super::SlotPool) lends the unpacker another meanwhile; see
//! [`NmaCore`](super::NmaCore)).
//!
//! Cost: one ticket slot (43 flip-flops before synthesis trims the `address1` bits the EEPROM
//! unit never reads; it held a whole 544-bit packet beat before the words moved to the
//! [`PacketStore`](super::packet_store::PacketStore)). The register path has no slot: a
//! request waits in the unpacker's ticket register for the few cycles the register unit needs.
//! The EEPROM unit reads its request from its slot while it works (it stores no copy).
use super::constant;
use super::ticket::{REQUEST_TICKET_BITS, REQUEST_TYPE};
use crate::formats::mgmt::NmpType;
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// The one-ticket fall-through slot in front of the EEPROM output.
pub type DistributorSlot = crate::reg_fifo!(Bits<REQUEST_TICKET_BITS>, 1);

/// The distributor; see the module documentation.
#[derive(LogicBlock)]
pub struct NmpDistributor {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Request tickets from the unpacker.
    pub requests: StreamSink<Bits<REQUEST_TICKET_BITS>>,
    /// Register read and write requests, and requests of an unknown type (refused there).
    pub registers: StreamSource<Bits<REQUEST_TICKET_BITS>>,
    /// EEPROM read and write requests.
    pub eeprom: StreamSource<Bits<REQUEST_TICKET_BITS>>,
    /// Outputs holding a ticket: bit 0 `registers` (a request offered to the register unit),
    /// bit 1 `eeprom` (status).
    pub held: Signal<Out, Bits<2>>,
    eeprom_slot: DistributorSlot,
    nmp_type: Signal<Local, Bits<6>>,
    to_eeprom: Signal<Local, bool>,
    type_lsb: Constant<Bits<7>>,
    eeprom_read: Constant<Bits<6>>,
    eeprom_write: Constant<Bits<6>>,
}

impl Default for NmpDistributor {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            requests: Default::default(),
            registers: Default::default(),
            eeprom: Default::default(),
            held: Default::default(),
            eeprom_slot: DistributorSlot::new(true),
            nmp_type: Default::default(),
            to_eeprom: Default::default(),
            type_lsb: constant(REQUEST_TYPE.lsb as u64),
            eeprom_read: constant(NmpType::EepReadRequest.code() as u64),
            eeprom_write: constant(NmpType::EepWriteRequest.code() as u64),
        }
    }
}

impl Logic for NmpDistributor {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, eeprom_slot);
        self.eeprom_slot.reset.next = self.reset.val();
        self.nmp_type.next = self
            .requests
            .data
            .val()
            .get_bits::<6>(self.type_lsb.val().index());
        self.to_eeprom.next = (self.nmp_type.val() == self.eeprom_read.val())
            | (self.nmp_type.val() == self.eeprom_write.val());
        self.registers.data.next = self.requests.data.val();
        self.eeprom_slot.sink.data.next = self.requests.data.val();
        self.registers.valid.next = self.requests.valid.val() & !self.to_eeprom.val();
        self.eeprom_slot.sink.valid.next = self.requests.valid.val() & self.to_eeprom.val();
        self.requests.ready.next = self.registers.ready.val();
        if self.to_eeprom.val() {
            self.requests.ready.next = self.eeprom_slot.sink.ready.val();
        }
        if self.reset.val() {
            self.requests.ready.next = false;
            self.registers.valid.next = false;
            self.eeprom_slot.sink.valid.next = false;
        }
        self.held.next = bit_cast::<2, 1>(self.registers.valid.val().into())
            | (bit_cast::<2, 1>(self.eeprom_slot.count.val()) << 1);
        StreamSource::<Bits<REQUEST_TICKET_BITS>>::link(
            &mut self.eeprom,
            &mut self.eeprom_slot.source,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nmp_distributor_is_synthesizable() {
        let mut uut = NmpDistributor::default();
        uut.connect_all();
        yosys_validate("nmp_distributor", &generate_verilog(&uut)).unwrap();
    }
}
