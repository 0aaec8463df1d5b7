//! EEPROM bridge: the management agent's EEPROM request unit. It sits between the
//! distributor's `eeprom` output and the collector's `eeprom` input, turns each EEPROM request
//! ticket (type 0x11 read, 0x13 write) into one [`EepAccess`](super::eep_access::EepAccess)
//! command, and answers the request with a response ticket built from the command's result.
//!
//! Ports: `clock`, `reset` (synchronous, shared with the EEPROM unit: forgets the command in
//! progress, whose result the EEPROM unit drops), `requests` (sink: the distributor's `eeprom`
//! output, only types 0x11 and 0x13), `responses` (source), `data` (the
//! [`PacketStore`](super::PacketStore)'s read port of the request's `w6`, the write bytes),
//! `command` / `result` (to the EEPROM unit, through the
//! [`EepArbiter`](super::eep_arbiter::EepArbiter) in the agent).
//!
//! Decoding, as the codec places the fields: `write` = type 0x13, `count` = `w5.count`,
//! `address` = `w5.address0` (16 bits), write data = `w6` bytes 0..5 (byte `i` in bits
//! `8i+7..8i`), read from the store. The bridge judges nothing: count and range are the EEPROM
//! unit's to check (it answers a bad command at once without touching the bus).
//!
//! Response (built by the packer from the ticket and the store, the codec's response rule;
//! `w5` = the request's `count` and `address0`, [`Echo::Eeprom`]; `w7` zero):
//! - read, no error: type 0x12, `w6` = the bytes read (byte `i` in bits `8i+7..8i`, zero beyond
//!   `count`: the EEPROM unit's result as it gives it), carried in the ticket;
//! - write, no error: type 0x14, `w6` zero;
//! - an error: type 0x15, `error` by [`EEP_ERROR_RESPONSES`], `w6` zero.
//!
//! One request at a time (the EEPROM is slow: a byte is 9 SCL periods): the request stays on
//! the sink (the distributor's slot holds it; no copy here) until its response is taken, so
//! later EEPROM requests wait in the distributor (backpressure, never loss). The command is
//! offered in the cycle after the request is (when the store has read its `w6`); its result is
//! not stored here either: the response is offered in the cycle the result is, and the result
//! is taken on the same edge as the response (`result.ready` follows `responses.ready`, ready
//! to ready only), so the EEPROM unit's result register is the bridge's storage.
use super::constant;
use super::eep_access::{
    EepCommandSource, EepError, EepResultSink, EEP_ADDRESS_BITS, EEP_COUNT_BITS, EEP_DATA_BITS,
    EEP_ERROR_BITS,
};
use super::packet_store::StoreReader;
use super::ticket::{
    Echo, ENTRY_BITS, REQUEST_ACCESS, REQUEST_TICKET_BITS, REQUEST_TYPE, RESPONSE_DATA,
    RESPONSE_ECHO, RESPONSE_ERROR, RESPONSE_TICKET_BITS, RESPONSE_TYPE, SLOT_BITS,
    STORE_ADDRESS_BITS,
};
use crate::formats::mgmt::{self, MgmtError, NmpType};
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// Bits of the ticket's `w5` fields.
const ACCESS_BITS: usize = REQUEST_ACCESS.width;

/// How an EEPROM unit result becomes an error response's `error` code, defined once (the
/// hardware's constants and the bench model both read it):
///
/// | [`EepError`] | [`MgmtError`] (code) | response type |
/// |---|---|---|
/// | `None` | `None` (0) | 0x12 read / 0x14 write response |
/// | `NoAcknowledge` | `EepromNack` (5) | 0x15 |
/// | `BadCount` | `BadCount` (3) | 0x15 |
/// | `AddressRange` | `EepromRange` (6) | 0x15 |
pub const EEP_ERROR_RESPONSES: [(EepError, MgmtError); 4] = [
    (EepError::None, MgmtError::None),
    (EepError::NoAcknowledge, MgmtError::EepromNack),
    (EepError::BadCount, MgmtError::BadCount),
    (EepError::AddressRange, MgmtError::EepromRange),
];

/// The error response code of an EEPROM unit result ([`EEP_ERROR_RESPONSES`]).
pub fn response_error(e: EepError) -> MgmtError {
    EEP_ERROR_RESPONSES
        .iter()
        .find(|m| m.0 == e)
        .map(|m| m.1)
        .expect("every EepError is listed")
}

/// The EEPROM bridge; see the module documentation.
#[derive(LogicBlock)]
pub struct EepBridge {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (shared with the EEPROM unit).
    pub reset: Signal<In, bool>,
    /// EEPROM requests (tickets of types 0x11, 0x13).
    pub requests: StreamSink<Bits<REQUEST_TICKET_BITS>>,
    /// Their responses (tickets), in order.
    pub responses: StreamSource<Bits<RESPONSE_TICKET_BITS>>,
    /// The request's write bytes, read from the store.
    pub data: StoreReader<EEP_DATA_BITS>,
    /// Commands to the EEPROM unit.
    pub command: EepCommandSource,
    /// The EEPROM unit's results.
    pub result: EepResultSink,
    /// The command of the request on offer was taken; its result is awaited.
    issued: DFF<bool>,
    /// The request was offered, unconsumed, in the previous cycle: `data` holds its `w6`.
    settled: DFF<bool>,
    slot: Signal<Local, Bits<SLOT_BITS>>,
    access: Signal<Local, Bits<ACCESS_BITS>>,
    writing: Signal<Local, bool>,
    /// The result is offered for the request's command (so the response is offered).
    answering: Signal<Local, bool>,
    response_type: Signal<Local, Bits<6>>,
    response_error: Signal<Local, Bits<8>>,
    response_data: Signal<Local, Bits<EEP_DATA_BITS>>,
    type_lsb: Constant<Bits<7>>,
    access_lsb: Constant<Bits<7>>,
    address_lsb: Constant<Bits<7>>,
    entry_shift: Constant<Bits<7>>,
    /// Entry of `w6` in a slot.
    data_entry: Constant<Bits<STORE_ADDRESS_BITS>>,
    ticket_type_lsb: Constant<Bits<7>>,
    ticket_error_lsb: Constant<Bits<7>>,
    ticket_echo_lsb: Constant<Bits<7>>,
    ticket_data_lsb: Constant<Bits<7>>,
    echo_eeprom: Constant<Bits<2>>,
    eeprom_write: Constant<Bits<6>>,
    read_response: Constant<Bits<6>>,
    write_response: Constant<Bits<6>>,
    error_response: Constant<Bits<6>>,
    error_none: Constant<Bits<EEP_ERROR_BITS>>,
    /// [`EEP_ERROR_RESPONSES`]: the EEPROM unit's codes and the response's codes.
    eep_codes: Vec<Constant<Bits<EEP_ERROR_BITS>>>,
    response_codes: Vec<Constant<Bits<8>>>,
}

impl Default for EepBridge {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            requests: Default::default(),
            responses: Default::default(),
            data: Default::default(),
            command: Default::default(),
            result: Default::default(),
            issued: Default::default(),
            settled: Default::default(),
            slot: Default::default(),
            access: Default::default(),
            writing: Default::default(),
            answering: Default::default(),
            response_type: Default::default(),
            response_error: Default::default(),
            response_data: Default::default(),
            type_lsb: constant(REQUEST_TYPE.lsb as u64),
            access_lsb: constant(REQUEST_ACCESS.lsb as u64),
            address_lsb: constant(mgmt::ADDRESS0.lsb as u64),
            entry_shift: constant(ENTRY_BITS as u64),
            data_entry: constant(mgmt::W_DATA0 as u64),
            ticket_type_lsb: constant(RESPONSE_TYPE.lsb as u64),
            ticket_error_lsb: constant(RESPONSE_ERROR.lsb as u64),
            ticket_echo_lsb: constant(RESPONSE_ECHO.lsb as u64),
            ticket_data_lsb: constant(RESPONSE_DATA.lsb as u64),
            echo_eeprom: constant(Echo::Eeprom.code() as u64),
            eeprom_write: constant(NmpType::EepWriteRequest.code() as u64),
            read_response: constant(NmpType::EepReadResponse.code() as u64),
            write_response: constant(NmpType::EepWriteResponse.code() as u64),
            error_response: constant(NmpType::EepErrorResponse.code() as u64),
            error_none: constant(EepError::None.code()),
            eep_codes: EEP_ERROR_RESPONSES
                .iter()
                .map(|m| constant(m.0.code()))
                .collect(),
            response_codes: EEP_ERROR_RESPONSES
                .iter()
                .map(|m| constant(m.1.code() as u64))
                .collect(),
        }
    }
}

impl Logic for EepBridge {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, issued, settled);
        // Decode the request held on the sink; its bytes come from the store.
        self.slot.next = self.requests.data.val().get_bits::<SLOT_BITS>(0);
        self.access.next = self
            .requests
            .data
            .val()
            .get_bits::<ACCESS_BITS>(self.access_lsb.val().index());
        self.writing.next = self
            .requests
            .data
            .val()
            .get_bits::<6>(self.type_lsb.val().index())
            == self.eeprom_write.val();
        self.data.address.next = (bit_cast::<STORE_ADDRESS_BITS, SLOT_BITS>(self.slot.val())
            << self.entry_shift.val())
            | self.data_entry.val();
        // Its one command, offered until taken.
        self.command.valid.next = self.requests.valid.val()
            & self.settled.q.val()
            & !self.issued.q.val()
            & !self.reset.val();
        self.command.write.next = self.writing.val();
        self.command.count.next = self.access.val().get_bits::<EEP_COUNT_BITS>(0);
        self.command.address.next = self
            .access
            .val()
            .get_bits::<EEP_ADDRESS_BITS>(self.address_lsb.val().index());
        self.command.data.next = self.data.data.val();
        if self.command.valid.val() & self.command.ready.val() {
            self.issued.d.next = true;
        }
        // The response, offered with the result and taken with it.
        self.answering.next =
            self.requests.valid.val() & self.issued.q.val() & self.result.valid.val();
        self.response_error.next = 0.into();
        self.response_data.next = self.result.data.val();
        self.response_type.next = self.read_response.val();
        if self.writing.val() {
            self.response_type.next = self.write_response.val();
            self.response_data.next = 0.into();
        }
        if self.result.error.val() != self.error_none.val() {
            self.response_type.next = self.error_response.val();
            self.response_data.next = 0.into();
            for i in 0..4 {
                if self.result.error.val() == self.eep_codes[i].val() {
                    self.response_error.next = self.response_codes[i].val();
                }
            }
        }
        self.responses.data.next = bit_cast::<RESPONSE_TICKET_BITS, SLOT_BITS>(self.slot.val())
            | (bit_cast::<RESPONSE_TICKET_BITS, 6>(self.response_type.val())
                << self.ticket_type_lsb.val())
            | (bit_cast::<RESPONSE_TICKET_BITS, 8>(self.response_error.val())
                << self.ticket_error_lsb.val())
            | (bit_cast::<RESPONSE_TICKET_BITS, 2>(self.echo_eeprom.val())
                << self.ticket_echo_lsb.val())
            | (bit_cast::<RESPONSE_TICKET_BITS, EEP_DATA_BITS>(self.response_data.val())
                << self.ticket_data_lsb.val());
        self.responses.valid.next = self.answering.val() & !self.reset.val();
        self.result.ready.next =
            self.issued.q.val() & self.responses.ready.val() & !self.reset.val();
        self.requests.ready.next = self.responses.valid.val() & self.responses.ready.val();
        self.settled.d.next = self.requests.valid.val() & !self.requests.ready.val();
        if self.requests.ready.val() {
            self.issued.d.next = false;
        }
        if self.reset.val() {
            self.issued.d.next = false;
            self.settled.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eep_bridge_is_synthesizable() {
        let mut uut = EepBridge::default();
        uut.connect_all();
        yosys_validate("eep_bridge", &generate_verilog(&uut)).unwrap();
    }

    #[test]
    fn every_eeprom_error_has_one_response_code() {
        for e in EepError::ALL {
            let m = response_error(e);
            assert_eq!(m == MgmtError::None, e == EepError::None, "{e:?}");
        }
        assert_eq!(EEP_ERROR_RESPONSES.len(), EepError::ALL.len());
    }
}
