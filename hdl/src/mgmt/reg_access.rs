//! Register access unit: carries out a register read (0x01) or write (0x03) request of one or
//! two registers on a register file's request/response port ([`crate::regmap::port`]) and
//! answers it with a [`ResponseTicket`](super::ticket::ResponseTicket).
//!
//! Ports: `clock`, `reset` (synchronous; see below), `requests` (sink: request tickets, the
//! distributor's `registers` output: every type but the EEPROM requests), `responses` (source:
//! response tickets), `register_request`/`register_response` (to the register file, `A` address
//! bits, 64-bit data), `data` (the [`PacketStore`](super::PacketStore)'s read port of the
//! request's `w6`/`w7`, the write data), `answers` (its write port: the registers' answers
//! over the request's `w6`/`w7`, where the packer reads them).
//!
//! Decoding (the ticket's `w5` fields): `count` registers at `address0` then `address1` (15 bits
//! each; the reserved address bit 15 is ignored), write data `w6`/`w7` read from the store. A
//! request is **refused**, nothing accessed, if its type is neither 0x01 nor 0x03 (an undefined
//! code, or a response or report type sent as a request: error 4,
//! [`UnknownType`](crate::formats::mgmt::MgmtError::UnknownType), as the codec's `response_to`
//! documentation says; its `w5..w7` are answered zero, the payload having no known meaning), if
//! `count` is 0 or above 2 (error 3, [`BadCount`](crate::formats::mgmt::MgmtError::BadCount)),
//! or if an address it uses is at or above `2^A`, beyond the register file's port (error 1,
//! [`Unmapped`](crate::formats::mgmt::MgmtError::Unmapped): cutting the address to `A` bits
//! would reach another register).
//!
//! Response (built by the packer from the ticket and the store, the codec's response rule),
//! `w5` = the request's count and two 15-bit addresses ([`Echo::Registers`](super::ticket::Echo::Registers)):
//! - read, no error: type 0x02, `w6`/`w7` = the registers' values (`w7` zero for one register):
//!   each answer is written into the store over the request's word, and the ticket says
//!   `w6` (and `w7` for two) are the store's;
//! - write, no error: type 0x04, `w6 = w7 = 0`;
//! - a register error (the register file's `error`: unmapped 1, read-only 2): type 0x05,
//!   `error` = the FIRST failing register's code, `w6` = what each register did: byte 0 the
//!   register file's code for register 0, byte 1 for register 1 (0 = done), `w7 = 0`. Both
//!   accesses of a two-register request are always issued (the second is pipelined behind the
//!   first, before the first's answer is known), so a two-register write whose second register
//!   is refused HAS written the first (byte 0 = 0, byte 1 = 2), and one whose first is refused
//!   has written the second; the register file guarantees a refused access changed nothing;
//! - refused (above): type 0x05 with its error code, `w6 = w7 = 0` (and `w5` zero for an
//!   unknown type, [`Echo::Nothing`](super::ticket::Echo::Nothing)).
//!
//! A write is acknowledged when the register file has answered it, which is one edge after it
//! took effect: the response can then name a read-only or unmapped register instead of
//! acknowledging a write that did not happen.
//!
//! Timing: the unit holds the request on its sink (the unpacker keeps the ticket; no copy
//! here) and consumes it with its response. A read's first register access is offered in the
//! cycle the request is (a refused request is answered in that same cycle); a write's one
//! cycle later, when its data has been read from the store (`data` is a registered read of
//! entry `w6`, then `w7` once the first access is taken); the second access in the cycle after
//! the first is taken. Register responses are always taken. The response is offered in the
//! cycle the last register response arrives: with the register file's 2-cycle read a
//! one-register read is answered 2 cycles after it is offered, a two-register read 3 cycles
//! after (writes one more), and a new request can start the cycle after a response is taken.
//!
//! Storage: the two answers' error codes (2 bits each) and two counters; the data the register
//! file returns goes straight into the store.
//!
//! Reset: clears the unit's state. A register access already taken by the register file would
//! still be answered afterwards, so the register file must share this reset (it does in the
//! agent), which drops such accesses.
//!
//! Parameter: `A`, the register file's address bits (at most 15).
use super::constant;
use super::packet_store::{StoreReader, StoreWriteSource};
use super::reg_response_ticket::RegResponseTicket;
use super::ticket::{
    ENTRY_BITS, REQUEST_ACCESS, REQUEST_TICKET_BITS, REQUEST_TYPE, RESPONSE_TICKET_BITS, SLOT_BITS,
    STORE_ADDRESS_BITS, STORE_WORD_BITS,
};
use crate::formats::mgmt::{self, NmpType, REGISTER_ADDRESS_BITS};
use crate::regmap::port::{RegRequestSource, RegResponseSink, ERROR_BITS};
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// Data bits of a register (the packet's data words).
pub const REGISTER_DATA_BITS: usize = 64;
/// Bits of the ticket's `w5` fields.
const ACCESS_BITS: usize = REQUEST_ACCESS.width;

/// The register access unit; see the module documentation.
#[derive(LogicBlock)]
pub struct RegAccess<const A: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (shared with the register file).
    pub reset: Signal<In, bool>,
    /// Register requests (tickets).
    pub requests: StreamSink<Bits<REQUEST_TICKET_BITS>>,
    /// Their responses (tickets), in order.
    pub responses: StreamSource<Bits<RESPONSE_TICKET_BITS>>,
    /// Register accesses to the register file.
    pub register_request: RegRequestSource<A, REGISTER_DATA_BITS>,
    /// The register file's answers.
    pub register_response: RegResponseSink<REGISTER_DATA_BITS>,
    /// The request's write data, read from the store.
    pub data: StoreReader<STORE_WORD_BITS>,
    /// The registers' answers, written into the store.
    pub answers: StoreWriteSource,
    /// Register accesses of the current request taken by the register file.
    issued: DFF<Bits<2>>,
    /// Register answers of the current request received.
    answered: DFF<Bits<2>>,
    stored_error0: DFF<Bits<ERROR_BITS>>,
    stored_error1: DFF<Bits<ERROR_BITS>>,
    /// The request was offered, unconsumed, in the previous cycle: `data` holds the word of
    /// the access to issue.
    settled: DFF<bool>,
    slot: Signal<Local, Bits<SLOT_BITS>>,
    nmp_type: Signal<Local, Bits<6>>,
    access: Signal<Local, Bits<ACCESS_BITS>>,
    count: Signal<Local, Bits<3>>,
    address0: Signal<Local, Bits<15>>,
    address1: Signal<Local, Bits<15>>,
    writing: Signal<Local, bool>,
    /// The request's type is not a register read or write.
    unknown: Signal<Local, bool>,
    bad_count: Signal<Local, bool>,
    two: Signal<Local, bool>,
    out_of_range: Signal<Local, bool>,
    /// Register accesses this request needs (0 if refused).
    needed: Signal<Local, Bits<2>>,
    /// An access is taken on this edge.
    issuing: Signal<Local, bool>,
    /// `issued` after this edge (the store entry read for the next access).
    issued_next: Signal<Local, Bits<2>>,
    /// Answers received, counting one arriving now.
    answered_now: Signal<Local, Bits<2>>,
    error0: Signal<Local, Bits<ERROR_BITS>>,
    error1: Signal<Local, Bits<ERROR_BITS>>,
    complete: Signal<Local, bool>,
    /// The response's encoding.
    response_encoder: RegResponseTicket,
    type_lsb: Constant<Bits<7>>,
    access_lsb: Constant<Bits<7>>,
    address0_lsb: Constant<Bits<7>>,
    address1_lsb: Constant<Bits<7>>,
    entry_shift: Constant<Bits<7>>,
    /// Entry of `w6` in a slot (`w7` is the next).
    data_entry: Constant<Bits<STORE_ADDRESS_BITS>>,
    /// Address bits beyond the register file's port (`A` and above).
    beyond_port: Constant<Bits<15>>,
    max_count: Constant<Bits<3>>,
    register_read: Constant<Bits<6>>,
    register_write: Constant<Bits<6>>,
}

impl<const A: usize> RegAccess<A> {
    /// A unit for a register file with `A` address bits. Panics if `A` is 0 or above the
    /// packet's 15 address bits.
    pub fn new() -> Self {
        assert!(
            (1..=REGISTER_ADDRESS_BITS).contains(&A),
            "RegAccess: A = {A} address bits, must be 1..={REGISTER_ADDRESS_BITS}"
        );
        assert_eq!(mgmt::W_DATA1, mgmt::W_DATA0 + 1);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            requests: Default::default(),
            responses: Default::default(),
            register_request: Default::default(),
            register_response: Default::default(),
            data: Default::default(),
            answers: Default::default(),
            issued: Default::default(),
            answered: Default::default(),
            stored_error0: Default::default(),
            stored_error1: Default::default(),
            settled: Default::default(),
            slot: Default::default(),
            nmp_type: Default::default(),
            access: Default::default(),
            count: Default::default(),
            address0: Default::default(),
            address1: Default::default(),
            writing: Default::default(),
            unknown: Default::default(),
            bad_count: Default::default(),
            two: Default::default(),
            out_of_range: Default::default(),
            needed: Default::default(),
            issuing: Default::default(),
            issued_next: Default::default(),
            answered_now: Default::default(),
            error0: Default::default(),
            error1: Default::default(),
            complete: Default::default(),
            response_encoder: Default::default(),
            type_lsb: constant(REQUEST_TYPE.lsb as u64),
            access_lsb: constant(REQUEST_ACCESS.lsb as u64),
            address0_lsb: constant(mgmt::ADDRESS0.lsb as u64),
            address1_lsb: constant(mgmt::ADDRESS1.lsb as u64),
            entry_shift: constant(ENTRY_BITS as u64),
            data_entry: constant(mgmt::W_DATA0 as u64),
            beyond_port: constant(((1u64 << REGISTER_ADDRESS_BITS) - 1) & !((1u64 << A) - 1)),
            max_count: constant(mgmt::MAX_REGISTERS as u64),
            register_read: constant(NmpType::RegReadRequest.code() as u64),
            register_write: constant(NmpType::RegWriteRequest.code() as u64),
        }
    }
}

impl<const A: usize> Default for RegAccess<A> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const A: usize> Logic for RegAccess<A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            issued,
            answered,
            stored_error0,
            stored_error1,
            settled
        );
        // Decode the request held on the sink.
        self.slot.next = self.requests.data.val().get_bits::<SLOT_BITS>(0);
        self.nmp_type.next = self
            .requests
            .data
            .val()
            .get_bits::<6>(self.type_lsb.val().index());
        self.access.next = self
            .requests
            .data
            .val()
            .get_bits::<ACCESS_BITS>(self.access_lsb.val().index());
        self.writing.next = self.nmp_type.val() == self.register_write.val();
        self.unknown.next = !self.writing.val() & (self.nmp_type.val() != self.register_read.val());
        self.count.next = self.access.val().get_bits::<3>(0);
        self.address0.next = self
            .access
            .val()
            .get_bits::<15>(self.address0_lsb.val().index());
        self.address1.next = self
            .access
            .val()
            .get_bits::<15>(self.address1_lsb.val().index());
        self.bad_count.next = (self.count.val() == 0) | (self.count.val() > self.max_count.val());
        self.two.next = self.count.val() == self.max_count.val();
        // Address bits at or above `A` set (a mask, not a comparison: at A = 15 there are none).
        self.out_of_range.next = ((self.address0.val() & self.beyond_port.val()) != 0)
            | (self.two.val() & ((self.address1.val() & self.beyond_port.val()) != 0));
        self.needed.next = 1.into();
        if self.two.val() {
            self.needed.next = 2.into();
        }
        if self.bad_count.val() | self.out_of_range.val() | self.unknown.val() {
            self.needed.next = 0.into();
        }
        // Issue the accesses, the second right behind the first; a write waits for its data.
        self.register_request.valid.next = self.requests.valid.val()
            & (self.issued.q.val() < self.needed.val())
            & (!self.writing.val() | self.settled.q.val());
        self.register_request.write.next = self.writing.val();
        self.register_request.address.next = bit_cast::<A, 15>(self.address0.val());
        if self.issued.q.val() != 0 {
            self.register_request.address.next = bit_cast::<A, 15>(self.address1.val());
        }
        self.register_request.data.next = self.data.data.val();
        self.issuing.next = self.register_request.valid.val() & self.register_request.ready.val();
        self.issued_next.next = self.issued.q.val();
        if self.issuing.val() {
            self.issued_next.next = self.issued.q.val() + 1;
        }
        self.issued.d.next = self.issued_next.val();
        // The store word of the next access: `w6`, then `w7` (the low bit of `issued`).
        self.data.address.next = (bit_cast::<STORE_ADDRESS_BITS, SLOT_BITS>(self.slot.val())
            << self.entry_shift.val())
            | self.data_entry.val()
            | bit_cast::<STORE_ADDRESS_BITS, 1>(self.issued_next.val().get_bits::<1>(0));
        // Collect the answers; one arriving now is used at once, its data into the store.
        self.register_response.ready.next = true;
        self.error0.next = self.stored_error0.q.val();
        self.error1.next = self.stored_error1.q.val();
        self.answered_now.next = self.answered.q.val();
        if self.register_response.valid.val() {
            self.answered_now.next = self.answered.q.val() + 1;
            if self.answered.q.val() == 0 {
                self.error0.next = self.register_response.error.val();
            } else {
                self.error1.next = self.register_response.error.val();
            }
        }
        self.answers.enable.next = self.register_response.valid.val() & !self.reset.val();
        self.answers.address.next = (bit_cast::<STORE_ADDRESS_BITS, SLOT_BITS>(self.slot.val())
            << self.entry_shift.val())
            | self.data_entry.val()
            | bit_cast::<STORE_ADDRESS_BITS, 1>(self.answered.q.val().get_bits::<1>(0));
        self.answers.data.next = self.register_response.data.val();
        self.answered.d.next = self.answered_now.val();
        self.stored_error0.d.next = self.error0.val();
        self.stored_error1.d.next = self.error1.val();
        // Answer (RegResponseTicket encodes the response).
        self.complete.next = self.answered_now.val() == self.needed.val();
        self.response_encoder.slot.next = self.slot.val();
        self.response_encoder.writing.next = self.writing.val();
        self.response_encoder.two.next = self.two.val();
        self.response_encoder.refused.next = self.needed.val() == 0;
        self.response_encoder.out_of_range.next = self.out_of_range.val();
        self.response_encoder.bad_count.next = self.bad_count.val();
        self.response_encoder.unknown.next = self.unknown.val();
        self.response_encoder.error0.next = self.error0.val();
        self.response_encoder.error1.next = self.error1.val();
        self.responses.data.next = self.response_encoder.ticket.val();
        self.responses.valid.next = self.requests.valid.val() & self.complete.val();
        self.requests.ready.next = self.responses.valid.val() & self.responses.ready.val();
        self.settled.d.next = self.requests.valid.val() & !self.requests.ready.val();
        if self.requests.ready.val() {
            // Start afresh for the next request.
            self.issued.d.next = 0.into();
            self.answered.d.next = 0.into();
            self.stored_error0.d.next = 0.into();
            self.stored_error1.d.next = 0.into();
        }
        if self.reset.val() {
            self.register_request.valid.next = false;
            self.responses.valid.next = false;
            self.requests.ready.next = false;
            self.issued.d.next = 0.into();
            self.answered.d.next = 0.into();
            self.stored_error0.d.next = 0.into();
            self.stored_error1.d.next = 0.into();
            self.settled.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reg_access_is_synthesizable() {
        let mut uut = RegAccess::<12>::new();
        uut.connect_all();
        yosys_validate("reg_access", &generate_verilog(&uut)).unwrap();
    }

    #[test]
    #[should_panic(expected = "RegAccess: A = 16 address bits, must be 1..=15")]
    fn reg_access_rejects_wide_addresses() {
        let _ = RegAccess::<16>::new();
    }
}
