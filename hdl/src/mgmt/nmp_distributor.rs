//! NMP distributor: dispatches each request beat from the unpacker to its function unit by
//! `nmp_type`: register reads (0x01) and writes (0x03) to `registers`, EEPROM reads (0x11) and
//! writes (0x13) to `eeprom`; anything else (an undefined code, or a response or report type
//! sent as a request) is answered right here with a register error response, error code 4
//! ([`MgmtError::UnknownType`](crate::formats::mgmt::MgmtError::UnknownType), as the codec's
//! `response_to` documentation says), offered on `errors`. That error response carries zero
//! `w5..w7` (the request's payload has no known meaning).
//!
//! Ports: `clock`, `reset` (synchronous: drops the beats held in the two slots; the
//! requester's timeout and retry cover them), `chip_id` (the error response's `src`),
//! `requests` (sink), `registers`, `eeprom`, `errors` (sources), `held` (which outputs hold a
//! beat, for a status register).
//!
//! Backpressure and order: one input stream, taken in order. Register requests pass straight
//! through: `registers` is the input itself (the unpacker holds its beat until taken), and the
//! register unit, which answers in a few cycles, takes it with its response. The EEPROM and
//! error outputs each have a one-beat slot (a depth-1 fall-through [`RegFifo`]): a beat whose
//! slot is free is taken at once (and shown on its output in the same cycle if the slot was
//! empty), so an EEPROM access, which takes milliseconds, holds back the input only when a
//! second EEPROM request arrives while its slot is full. From then on the input waits, and so
//! do requests for other units behind it (head-of-line blocking, kept on purpose: it bounds
//! the agent's storage, and requests are paced by a management server that waits for its
//! responses). `requests.ready` is, by the offered beat's type, the register unit's `ready` or
//! the chosen slot's `sink.ready` (a flip-flop): ready depends on data and on the unit's
//! ready, never on valid.
//!
//! Cost: two 544-bit slots (1088 flip-flops before synthesis trims the bits the units never
//! read). The register path has no slot: a request waits in the unpacker's beat register for
//! the few cycles the register unit needs, and a slot there cost about 500 flip-flops, each a
//! logic cell of its own on the iCE40 (the agent's fit on the HX8K is a goal). The EEPROM unit
//! reads its request from its slot while it works (it stores no copy).
use super::response_builder::{constant, ResponseBuilder};
use crate::formats::mgmt::{self, MgmtError, NmpType, MGMT_BEAT_BITS};
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// The one-beat fall-through slot in front of each output.
pub type DistributorSlot = crate::reg_fifo!(Bits<MGMT_BEAT_BITS>, 1);

/// The distributor; see the module documentation.
#[derive(LogicBlock)]
pub struct NmpDistributor {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// This chip's ID.
    pub chip_id: Signal<In, Bits<16>>,
    /// Request beats from the unpacker.
    pub requests: StreamSink<Bits<MGMT_BEAT_BITS>>,
    /// Register read and write requests.
    pub registers: StreamSource<Bits<MGMT_BEAT_BITS>>,
    /// EEPROM read and write requests.
    pub eeprom: StreamSource<Bits<MGMT_BEAT_BITS>>,
    /// Error responses to requests of an unknown type.
    pub errors: StreamSource<Bits<MGMT_BEAT_BITS>>,
    /// Outputs holding a beat: bit 0 `registers` (a request offered to the register unit),
    /// bit 1 `eeprom`, bit 2 `errors` (status).
    pub held: Signal<Out, Bits<3>>,
    eeprom_slot: DistributorSlot,
    error_slot: DistributorSlot,
    builder: ResponseBuilder,
    nmp_type: Signal<Local, Bits<6>>,
    to_registers: Signal<Local, bool>,
    to_eeprom: Signal<Local, bool>,
    type_lsb: Constant<Bits<10>>,
    register_read: Constant<Bits<6>>,
    register_write: Constant<Bits<6>>,
    eeprom_read: Constant<Bits<6>>,
    eeprom_write: Constant<Bits<6>>,
    error_type: Constant<Bits<6>>,
    unknown_type: Constant<Bits<8>>,
}

impl Default for NmpDistributor {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            chip_id: Default::default(),
            requests: Default::default(),
            registers: Default::default(),
            eeprom: Default::default(),
            errors: Default::default(),
            held: Default::default(),
            eeprom_slot: DistributorSlot::new(true),
            error_slot: DistributorSlot::new(true),
            builder: Default::default(),
            nmp_type: Default::default(),
            to_registers: Default::default(),
            to_eeprom: Default::default(),
            type_lsb: constant((mgmt::beat_word_lsb(mgmt::W_INFO) + mgmt::NMP_TYPE.lsb) as u64),
            register_read: constant(NmpType::RegReadRequest.code() as u64),
            register_write: constant(NmpType::RegWriteRequest.code() as u64),
            eeprom_read: constant(NmpType::EepReadRequest.code() as u64),
            eeprom_write: constant(NmpType::EepWriteRequest.code() as u64),
            error_type: constant(NmpType::RegErrorResponse.code() as u64),
            unknown_type: constant(MgmtError::UnknownType.code() as u64),
        }
    }
}

impl Logic for NmpDistributor {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, eeprom_slot, error_slot);
        self.eeprom_slot.reset.next = self.reset.val();
        self.error_slot.reset.next = self.reset.val();
        self.nmp_type.next = self
            .requests
            .data
            .val()
            .get_bits::<6>(self.type_lsb.val().index());
        self.to_registers.next = (self.nmp_type.val() == self.register_read.val())
            | (self.nmp_type.val() == self.register_write.val());
        self.to_eeprom.next = (self.nmp_type.val() == self.eeprom_read.val())
            | (self.nmp_type.val() == self.eeprom_write.val());
        // The error response of the offered beat (used only if it is of an unknown type).
        self.builder.request.next = self.requests.data.val();
        self.builder.chip_id.next = self.chip_id.val();
        self.builder.nmp_type.next = self.error_type.val();
        self.builder.error.next = self.unknown_type.val();
        self.builder.access.next = 0.into();
        self.builder.data0.next = 0.into();
        self.builder.data1.next = 0.into();
        self.registers.data.next = self.requests.data.val();
        self.eeprom_slot.sink.data.next = self.requests.data.val();
        self.error_slot.sink.data.next = self.builder.response.val();
        self.registers.valid.next = self.requests.valid.val() & self.to_registers.val();
        self.eeprom_slot.sink.valid.next = self.requests.valid.val() & self.to_eeprom.val();
        self.error_slot.sink.valid.next =
            self.requests.valid.val() & !self.to_registers.val() & !self.to_eeprom.val();
        self.requests.ready.next = self.error_slot.sink.ready.val();
        if self.to_registers.val() {
            self.requests.ready.next = self.registers.ready.val();
        }
        if self.to_eeprom.val() {
            self.requests.ready.next = self.eeprom_slot.sink.ready.val();
        }
        if self.reset.val() {
            self.requests.ready.next = false;
            self.registers.valid.next = false;
            self.eeprom_slot.sink.valid.next = false;
            self.error_slot.sink.valid.next = false;
        }
        self.held.next = bit_cast::<3, 1>(self.registers.valid.val().into())
            | (bit_cast::<3, 1>(self.eeprom_slot.count.val()) << 1)
            | (bit_cast::<3, 1>(self.error_slot.count.val()) << 2);
        StreamSource::<Bits<MGMT_BEAT_BITS>>::link(&mut self.eeprom, &mut self.eeprom_slot.source);
        StreamSource::<Bits<MGMT_BEAT_BITS>>::link(&mut self.errors, &mut self.error_slot.source);
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
