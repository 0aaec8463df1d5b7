//! `RegResponseTicket`: the register access unit's answer, combinational: from what the
//! request was and what the register file answered, the response ticket the packer builds the
//! response from (the rules are [`RegAccess`](super::reg_access::RegAccess)'s module
//! documentation, "Response"). Split out of the unit so that its `update()` holds the
//! request's accesses and this one the response's encoding.
use super::constant;
use super::ticket::{
    Echo, RESPONSE_DATA, RESPONSE_ECHO, RESPONSE_ERROR, RESPONSE_STORED, RESPONSE_TICKET_BITS,
    RESPONSE_TYPE, SLOT_BITS,
};
use crate::formats::mgmt::{MgmtError, NmpType};
use crate::regmap::port::ERROR_BITS;
use rust_hdl::prelude::*;

/// The response encoder; see the module documentation.
#[derive(LogicBlock)]
pub struct RegResponseTicket {
    /// The request's packet-store slot.
    pub slot: Signal<In, Bits<SLOT_BITS>>,
    /// The request is a write (else a read, or refused).
    pub writing: Signal<In, bool>,
    /// Two registers (else one).
    pub two: Signal<In, bool>,
    /// The request was refused before any access (bad count, address, or type).
    pub refused: Signal<In, bool>,
    /// Refused: an address beyond the register file's port.
    pub out_of_range: Signal<In, bool>,
    /// Refused: a count of 0 or above 2.
    pub bad_count: Signal<In, bool>,
    /// Refused: neither a register read nor write.
    pub unknown: Signal<In, bool>,
    /// The register file's code for register 0 (0 = done).
    pub error0: Signal<In, Bits<ERROR_BITS>>,
    /// Its code for register 1.
    pub error1: Signal<In, Bits<ERROR_BITS>>,
    /// The response ticket.
    pub ticket: Signal<Out, Bits<RESPONSE_TICKET_BITS>>,
    failed: Signal<Local, bool>,
    response_type: Signal<Local, Bits<6>>,
    response_error: Signal<Local, Bits<8>>,
    response_echo: Signal<Local, Bits<2>>,
    response_stored: Signal<Local, Bits<2>>,
    response_data: Signal<Local, Bits<64>>,
    ticket_type_lsb: Constant<Bits<7>>,
    ticket_error_lsb: Constant<Bits<7>>,
    ticket_echo_lsb: Constant<Bits<7>>,
    ticket_stored_lsb: Constant<Bits<7>>,
    ticket_data_lsb: Constant<Bits<7>>,
    read_response: Constant<Bits<6>>,
    write_response: Constant<Bits<6>>,
    error_response: Constant<Bits<6>>,
    bad_count_code: Constant<Bits<8>>,
    unmapped_code: Constant<Bits<8>>,
    unknown_code: Constant<Bits<8>>,
    echo_registers: Constant<Bits<2>>,
    byte_shift: Constant<Bits<7>>,
}

impl Default for RegResponseTicket {
    fn default() -> Self {
        Self {
            slot: Default::default(),
            writing: Default::default(),
            two: Default::default(),
            refused: Default::default(),
            out_of_range: Default::default(),
            bad_count: Default::default(),
            unknown: Default::default(),
            error0: Default::default(),
            error1: Default::default(),
            ticket: Default::default(),
            failed: Default::default(),
            response_type: Default::default(),
            response_error: Default::default(),
            response_echo: Default::default(),
            response_stored: Default::default(),
            response_data: Default::default(),
            ticket_type_lsb: constant(RESPONSE_TYPE.lsb as u64),
            ticket_error_lsb: constant(RESPONSE_ERROR.lsb as u64),
            ticket_echo_lsb: constant(RESPONSE_ECHO.lsb as u64),
            ticket_stored_lsb: constant(RESPONSE_STORED.lsb as u64),
            ticket_data_lsb: constant(RESPONSE_DATA.lsb as u64),
            read_response: constant(NmpType::RegReadResponse.code() as u64),
            write_response: constant(NmpType::RegWriteResponse.code() as u64),
            error_response: constant(NmpType::RegErrorResponse.code() as u64),
            bad_count_code: constant(MgmtError::BadCount.code() as u64),
            unmapped_code: constant(MgmtError::Unmapped.code() as u64),
            unknown_code: constant(MgmtError::UnknownType.code() as u64),
            echo_registers: constant(Echo::Registers.code() as u64),
            byte_shift: constant(8),
        }
    }
}

impl Logic for RegResponseTicket {
    #[hdl_gen]
    fn update(&mut self) {
        self.failed.next = self.refused.val() | (self.error0.val() != 0) | (self.error1.val() != 0);
        self.response_error.next = 0.into();
        self.response_echo.next = self.echo_registers.val();
        self.response_data.next = 0.into();
        self.response_type.next = self.read_response.val();
        self.response_stored.next = 1.into();
        if self.two.val() {
            self.response_stored.next = 3.into();
        }
        if self.writing.val() {
            self.response_type.next = self.write_response.val();
            self.response_stored.next = 0.into();
        }
        if self.failed.val() {
            // The first failing register's code names the error; a refusal overrides both.
            self.response_type.next = self.error_response.val();
            self.response_stored.next = 0.into();
            self.response_data.next = bit_cast::<64, ERROR_BITS>(self.error0.val())
                | (bit_cast::<64, ERROR_BITS>(self.error1.val()) << self.byte_shift.val());
            if self.error1.val() != 0 {
                self.response_error.next = bit_cast::<8, ERROR_BITS>(self.error1.val());
            }
            if self.error0.val() != 0 {
                self.response_error.next = bit_cast::<8, ERROR_BITS>(self.error0.val());
            }
            if self.out_of_range.val() {
                self.response_error.next = self.unmapped_code.val();
            }
            if self.bad_count.val() {
                self.response_error.next = self.bad_count_code.val();
            }
            if self.unknown.val() {
                self.response_error.next = self.unknown_code.val();
                self.response_echo.next = 0.into();
            }
        }
        self.ticket.next = bit_cast::<RESPONSE_TICKET_BITS, SLOT_BITS>(self.slot.val())
            | (bit_cast::<RESPONSE_TICKET_BITS, 6>(self.response_type.val())
                << self.ticket_type_lsb.val())
            | (bit_cast::<RESPONSE_TICKET_BITS, 8>(self.response_error.val())
                << self.ticket_error_lsb.val())
            | (bit_cast::<RESPONSE_TICKET_BITS, 2>(self.response_echo.val())
                << self.ticket_echo_lsb.val())
            | (bit_cast::<RESPONSE_TICKET_BITS, 2>(self.response_stored.val())
                << self.ticket_stored_lsb.val())
            | (bit_cast::<RESPONSE_TICKET_BITS, 64>(self.response_data.val())
                << self.ticket_data_lsb.val());
    }
}
