//! EEPROM bridge: the management agent's EEPROM request unit. It sits between the
//! distributor's `eeprom` output and the collector's `eeprom` input, turns each EEPROM request
//! beat (type 0x11 read, 0x13 write) into one [`EepAccess`](super::eep_access::EepAccess)
//! command, and answers the request with the command's result, built by the one response rule
//! ([`ResponseBuilder`]).
//!
//! Ports: `clock`, `reset` (synchronous, shared with the EEPROM unit: forgets the command in
//! progress, whose result the EEPROM unit drops), `chip_id` (the responses' `src`), `requests`
//! (sink: the distributor's `eeprom` output, only types 0x11 and 0x13), `responses` (source),
//! `command` / `result` (to the EEPROM unit, through the [`EepArbiter`](super::eep_arbiter::EepArbiter)
//! in the agent).
//!
//! Decoding, as the codec places the fields: `write` = type 0x13, `count` = `w5.count`,
//! `address` = `w5.address0` (16 bits), write data = `w6` bytes 0..5 (byte `i` in bits
//! `8i+7..8i`). The bridge judges nothing: count and range are the EEPROM unit's to check
//! (it answers a bad command at once without touching the bus).
//!
//! Response (the codec's response rule; `w5` = the request's `count` and `address0`, the rest of
//! `w5` zero; `w7` zero):
//! - read, no error: type 0x12, `w6` = the bytes read (byte `i` in bits `8i+7..8i`, zero beyond
//!   `count`: the EEPROM unit's result as it gives it);
//! - write, no error: type 0x14, `w6` zero;
//! - an error: type 0x15, `error` by [`EEP_ERROR_RESPONSES`], `w6` zero.
//!
//! One request at a time (the EEPROM is slow: a byte is 9 SCL periods): the request stays on
//! the sink (the distributor's slot holds it; no copy here) until its response is taken, so
//! later EEPROM requests wait in the distributor (backpressure, never loss). The command is
//! offered in the cycle the request is; its result is not stored here either: the response is
//! offered in the cycle the result is (passed through the [`ResponseBuilder`]), and the result
//! is taken on the same edge as the response (`result.ready` follows `responses.ready`, ready
//! to ready only), so the EEPROM unit's result register is the bridge's storage.
use super::eep_access::{
    EepCommandSource, EepError, EepResultSink, EEP_ADDRESS_BITS, EEP_COUNT_BITS, EEP_DATA_BITS,
    EEP_ERROR_BITS,
};
use super::response_builder::{constant, field_mask, ResponseBuilder};
use crate::formats::mgmt::{self, MgmtError, NmpType, MGMT_BEAT_BITS};
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

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
    /// This chip's ID (the responses' `src`).
    pub chip_id: Signal<In, Bits<16>>,
    /// EEPROM requests (types 0x11, 0x13).
    pub requests: StreamSink<Bits<MGMT_BEAT_BITS>>,
    /// Their responses, in order.
    pub responses: StreamSource<Bits<MGMT_BEAT_BITS>>,
    /// Commands to the EEPROM unit.
    pub command: EepCommandSource,
    /// The EEPROM unit's results.
    pub result: EepResultSink,
    builder: ResponseBuilder,
    /// The command of the request on offer was taken; its result is awaited.
    issued: DFF<bool>,
    info: Signal<Local, Bits<64>>,
    access: Signal<Local, Bits<64>>,
    writing: Signal<Local, bool>,
    /// The result is offered for the request's command (so the response is offered).
    answering: Signal<Local, bool>,
    info_lsb: Constant<Bits<10>>,
    access_lsb: Constant<Bits<10>>,
    data0_lsb: Constant<Bits<10>>,
    type_lsb: Constant<Bits<7>>,
    address_lsb: Constant<Bits<7>>,
    /// `w5` bits echoed: `count` and `address0`.
    access_keep: Constant<Bits<64>>,
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
            chip_id: Default::default(),
            requests: Default::default(),
            responses: Default::default(),
            command: Default::default(),
            result: Default::default(),
            builder: Default::default(),
            issued: Default::default(),
            info: Default::default(),
            access: Default::default(),
            writing: Default::default(),
            answering: Default::default(),
            info_lsb: constant(mgmt::beat_word_lsb(mgmt::W_INFO) as u64),
            access_lsb: constant(mgmt::beat_word_lsb(mgmt::W_ACCESS) as u64),
            data0_lsb: constant(mgmt::beat_word_lsb(mgmt::W_DATA0) as u64),
            type_lsb: constant(mgmt::NMP_TYPE.lsb as u64),
            address_lsb: constant(mgmt::ADDRESS0.lsb as u64),
            access_keep: constant(field_mask(mgmt::COUNT) | field_mask(mgmt::ADDRESS0)),
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
        dff_setup!(self, clock, issued);
        // Decode the request held on the sink.
        self.info.next = self
            .requests
            .data
            .val()
            .get_bits::<64>(self.info_lsb.val().index());
        self.access.next = self
            .requests
            .data
            .val()
            .get_bits::<64>(self.access_lsb.val().index());
        self.writing.next =
            self.info.val().get_bits::<6>(self.type_lsb.val().index()) == self.eeprom_write.val();
        // Its one command, offered until taken.
        self.command.valid.next =
            self.requests.valid.val() & !self.issued.q.val() & !self.reset.val();
        self.command.write.next = self.writing.val();
        self.command.count.next = self.access.val().get_bits::<EEP_COUNT_BITS>(0);
        self.command.address.next = self
            .access
            .val()
            .get_bits::<EEP_ADDRESS_BITS>(self.address_lsb.val().index());
        self.command.data.next = self
            .requests
            .data
            .val()
            .get_bits::<EEP_DATA_BITS>(self.data0_lsb.val().index());
        if self.command.valid.val() & self.command.ready.val() {
            self.issued.d.next = true;
        }
        // The response, offered with the result and taken with it.
        self.answering.next =
            self.requests.valid.val() & self.issued.q.val() & self.result.valid.val();
        self.builder.request.next = self.requests.data.val();
        self.builder.chip_id.next = self.chip_id.val();
        self.builder.access.next = self.access.val() & self.access_keep.val();
        self.builder.data1.next = 0.into();
        self.builder.error.next = 0.into();
        self.builder.data0.next = bit_cast::<64, EEP_DATA_BITS>(self.result.data.val());
        self.builder.nmp_type.next = self.read_response.val();
        if self.writing.val() {
            self.builder.nmp_type.next = self.write_response.val();
            self.builder.data0.next = 0.into();
        }
        if self.result.error.val() != self.error_none.val() {
            self.builder.nmp_type.next = self.error_response.val();
            self.builder.data0.next = 0.into();
            for i in 0..4 {
                if self.result.error.val() == self.eep_codes[i].val() {
                    self.builder.error.next = self.response_codes[i].val();
                }
            }
        }
        self.responses.data.next = self.builder.response.val();
        self.responses.valid.next = self.answering.val() & !self.reset.val();
        self.result.ready.next =
            self.issued.q.val() & self.responses.ready.val() & !self.reset.val();
        self.requests.ready.next = self.responses.valid.val() & self.responses.ready.val();
        if self.requests.ready.val() {
            self.issued.d.next = false;
        }
        if self.reset.val() {
            self.issued.d.next = false;
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
