//! Response flit: the one place where the agent builds its responses, by the codec's rule
//! ([`MgmtPacket::response_to`](crate::formats::mgmt::MgmtPacket::response_to)), and its fault
//! reports: the flit at `position` (0 head, 1..=8 words `w0..w7`, 9 tail) of the packet a
//! [`ResponseTicket`](super::ticket::ResponseTicket) stands for, from the request's word the
//! [`PacketStore`](super::PacketStore) read for that position (`stored`; see
//! [`response_entry`]) and the ticket.
//!
//! A response (ticket `report` clear) to a request whose words the store holds:
//! - head: kind `Mgmt`, `len` 10, `vc` the management VC, `delay` zero, `dst` = the request's
//!   `src` (head entry), `src` = `chip_id`;
//! - `w0`: `dest_type` NIC (responses go to the management server's NIC), the request's
//!   `src_vp`, `dest_vp` and `transaction_id`, the ticket's `nmp_type` and `error`, reserved
//!   bits zero;
//! - `w1`/`w2`: the request's backward route (`w3`/`w4`, the arrival port already appended)
//!   with `current = hop_num` less the hop this chip takes now (`current - 1` is sent), its
//!   reserved bits zero; `w3 = w4 = 0` (backward route empty);
//! - `w5`: the request's `w5` masked by the ticket's echo ([`Echo::mask`](super::ticket::Echo::mask));
//! - `w6`: the store's word (the register unit wrote the registers' data over the request's)
//!   or the ticket's `data`; `w7`: the store's word or zero;
//! - tail: the CRC given.
//!
//! A fault report (ticket `report` set): `dst` = `report_dest`; `w0` = `dest_type` NIC, VPs
//! zero, the ticket's `id` as `transaction_id`, type and error; `w1`/`w2` = `report_route`
//! with its `current` less one; the rest as above (the active report unit's tickets echo and
//! store nothing, so `w5 = w7 = 0` and `w6` is the ticket's `data`).
//!
//! Purely combinational; ports are plain signals (a child of [`NmpPacker`](super::NmpPacker),
//! not a stage of its stream). Position 4 and 5 (`w3`, `w4`) and the tail read nothing.
use super::constant;
use super::field_mask;
use super::ticket::{
    Echo, ENTRY_SRC, HEAD_ENTRY, RESPONSE_DATA, RESPONSE_ECHO, RESPONSE_ERROR, RESPONSE_ID,
    RESPONSE_REPORT, RESPONSE_STORED, RESPONSE_TICKET_BITS, RESPONSE_TYPE, STORE_WORD_BITS,
};
use crate::formats::mgmt::{self, DestType, MGMT_FLITS};
use crate::formats::{flit, header, PacketKind, FLIT_BITS};
use rust_hdl::prelude::*;

/// Bits of a flit position (0..[`MGMT_FLITS`]).
pub const POSITION_BITS: usize = crate::bits::index_bits(MGMT_FLITS);

/// The store entry a response reads for the flit at `position`: the head entry for the head,
/// `w0` for `w0`, the backward route `w3`/`w4` for the forward route `w1`/`w2`, `w5..w7` for
/// themselves; the others read nothing (`w0` is given).
pub const fn response_entry(position: usize) -> usize {
    match position {
        0 => HEAD_ENTRY,
        2 => mgmt::W_BACKWARD,
        3 => mgmt::W_BACKWARD_HIGH,
        p if p > mgmt::W_ACCESS && p <= 1 + mgmt::W_DATA1 => p - 1,
        _ => mgmt::W_INFO,
    }
}

/// The flit of a response at a position; see the module documentation.
#[derive(LogicBlock)]
pub struct ResponseFlit {
    /// The flit's position in the packet.
    pub position: Signal<In, Bits<POSITION_BITS>>,
    /// The response ticket.
    pub ticket: Signal<In, Bits<RESPONSE_TICKET_BITS>>,
    /// The store's word for this position ([`response_entry`]).
    pub stored: Signal<In, Bits<STORE_WORD_BITS>>,
    /// This chip's ID.
    pub chip_id: Signal<In, Bits<16>>,
    /// Fault reports' forward route words `w1` (low) and `w2` (high).
    pub report_route: Signal<In, Bits<128>>,
    /// Fault reports' DestID.
    pub report_dest: Signal<In, Bits<16>>,
    /// The CRC-16 of the flits before the tail.
    pub crc: Signal<In, Bits<16>>,
    /// The flit.
    pub flit: Signal<Out, Bits<FLIT_BITS>>,
    report: Signal<Local, bool>,
    echo: Signal<Local, Bits<2>>,
    stored_words: Signal<Local, Bits<2>>,
    /// The word of a body position (the type bit added below).
    word: Signal<Local, Bits<64>>,
    /// The forward route's low word before its `current` is set.
    route_low: Signal<Local, Bits<64>>,
    /// Its `current`.
    current: Signal<Local, Bits<5>>,
    /// `current - 1`, in a 5-bit signal of its own (Verilog then wraps as rust-hdl does).
    current_sent: Signal<Local, Bits<5>>,
    /// The response's `dst`.
    destination: Signal<Local, Bits<16>>,
    positions: Vec<Constant<Bits<POSITION_BITS>>>,
    position_tail: Constant<Bits<POSITION_BITS>>,
    /// The head flit's constant bits: head bit, kind, `len`, `vc`.
    head_constant: Constant<Bits<FLIT_BITS>>,
    body_bit: Constant<Bits<FLIT_BITS>>,
    tail_bit: Constant<Bits<FLIT_BITS>>,
    /// `w0`'s constant bits (`dest_type`) and the bits copied from the request.
    info_constant: Constant<Bits<64>>,
    info_keep: Constant<Bits<64>>,
    /// Backward route bits copied: `hop_num` and hops 0..9 / hops 10..19.
    route_keep: Constant<Bits<64>>,
    route_high_keep: Constant<Bits<64>>,
    current_clear: Constant<Bits<64>>,
    register_echo: Constant<Bits<64>>,
    eeprom_echo: Constant<Bits<64>>,
    echo_registers: Constant<Bits<2>>,
    echo_eeprom: Constant<Bits<2>>,
    report_lsb: Constant<Bits<7>>,
    type_lsb: Constant<Bits<7>>,
    error_lsb: Constant<Bits<7>>,
    echo_lsb: Constant<Bits<7>>,
    stored_lsb: Constant<Bits<7>>,
    id_lsb: Constant<Bits<7>>,
    data_lsb: Constant<Bits<7>>,
    entry_src_lsb: Constant<Bits<7>>,
    current_lsb: Constant<Bits<7>>,
    type_shift: Constant<Bits<7>>,
    error_shift: Constant<Bits<7>>,
    transaction_shift: Constant<Bits<7>>,
    header_src_shift: Constant<Bits<7>>,
    header_dst_shift: Constant<Bits<7>>,
    high_shift: Constant<Bits<8>>,
}

/// A flit constant: `low` with the type bit set if `body`.
fn flit_constant(low: u64, body: bool) -> Constant<Bits<FLIT_BITS>> {
    Constant::new(Bits::<FLIT_BITS>::from(low).replace_bit(flit::TYPE_BIT, body))
}

impl ResponseFlit {
    /// The builder of packets on virtual channel `mgmt_vc`.
    pub fn new(mgmt_vc: u8) -> Self {
        let head = header::FabricHeader {
            dst: 0,
            src: 0,
            vc: mgmt_vc,
            kind: PacketKind::Mgmt,
            len: MGMT_FLITS as u8,
            delay: 0,
        };
        let hops_mask = |range: std::ops::Range<usize>| {
            range.fold(0u64, |m, i| m | field_mask(mgmt::hop_field(i)))
        };
        Self {
            position: Default::default(),
            ticket: Default::default(),
            stored: Default::default(),
            chip_id: Default::default(),
            report_route: Default::default(),
            report_dest: Default::default(),
            crc: Default::default(),
            flit: Default::default(),
            report: Default::default(),
            echo: Default::default(),
            stored_words: Default::default(),
            word: Default::default(),
            route_low: Default::default(),
            current: Default::default(),
            current_sent: Default::default(),
            destination: Default::default(),
            positions: (0..MGMT_FLITS).map(|p| constant(p as u64)).collect(),
            position_tail: constant((MGMT_FLITS - 1) as u64),
            head_constant: flit_constant(flit::Flit::Head(head).pack() as u64, false),
            body_bit: flit_constant(0, true),
            tail_bit: flit_constant(1 << flit::TAIL_BIT, false),
            info_constant: constant((DestType::Nic.code() as u64) << mgmt::DEST_TYPE.lsb),
            info_keep: constant(
                field_mask(mgmt::SRC_VP)
                    | field_mask(mgmt::DEST_VP)
                    | field_mask(mgmt::TRANSACTION_ID),
            ),
            route_keep: constant(field_mask(mgmt::HOP_NUM) | hops_mask(0..mgmt::HOPS_PER_WORD)),
            route_high_keep: constant(hops_mask(mgmt::HOPS_PER_WORD..mgmt::ROUTE_HOPS)),
            current_clear: constant(!field_mask(mgmt::CURRENT)),
            register_echo: constant(Echo::Registers.mask()),
            eeprom_echo: constant(Echo::Eeprom.mask()),
            echo_registers: constant(Echo::Registers.code() as u64),
            echo_eeprom: constant(Echo::Eeprom.code() as u64),
            report_lsb: constant(RESPONSE_REPORT.lsb as u64),
            type_lsb: constant(RESPONSE_TYPE.lsb as u64),
            error_lsb: constant(RESPONSE_ERROR.lsb as u64),
            echo_lsb: constant(RESPONSE_ECHO.lsb as u64),
            stored_lsb: constant(RESPONSE_STORED.lsb as u64),
            id_lsb: constant(RESPONSE_ID.lsb as u64),
            data_lsb: constant(RESPONSE_DATA.lsb as u64),
            entry_src_lsb: constant(ENTRY_SRC.lsb as u64),
            current_lsb: constant(mgmt::CURRENT.lsb as u64),
            type_shift: constant(mgmt::NMP_TYPE.lsb as u64),
            error_shift: constant(mgmt::ERROR.lsb as u64),
            transaction_shift: constant(mgmt::TRANSACTION_ID.lsb as u64),
            header_src_shift: constant(header::SRC.lsb as u64),
            header_dst_shift: constant(header::DST.lsb as u64),
            high_shift: constant(64),
        }
    }
}

impl Logic for ResponseFlit {
    #[hdl_gen]
    fn update(&mut self) {
        self.report.next = self.ticket.val().get_bit(self.report_lsb.val().index());
        self.echo.next = self.ticket.val().get_bits::<2>(self.echo_lsb.val().index());
        self.stored_words.next = self
            .ticket
            .val()
            .get_bits::<2>(self.stored_lsb.val().index());
        // The forward route: a report's from the settings, a response's the request's
        // backward route with `current = hop_num`.
        self.route_low.next = self.stored.val() & self.route_keep.val();
        self.current.next = self.stored.val().get_bits::<5>(0);
        if self.report.val() {
            self.route_low.next = self.report_route.val().get_bits::<64>(0);
            self.current.next = self
                .report_route
                .val()
                .get_bits::<5>(self.current_lsb.val().index());
        }
        self.current_sent.next = self.current.val() - 1;
        self.destination.next = self
            .stored
            .val()
            .get_bits::<16>(self.entry_src_lsb.val().index());
        if self.report.val() {
            self.destination.next = self.report_dest.val();
        }
        // The word of a body position.
        self.word.next = 0.into();
        if self.position.val() == self.positions[1].val() {
            self.word.next = self.info_constant.val()
                | (bit_cast::<64, 6>(self.ticket.val().get_bits::<6>(self.type_lsb.val().index()))
                    << self.type_shift.val())
                | (bit_cast::<64, 8>(
                    self.ticket
                        .val()
                        .get_bits::<8>(self.error_lsb.val().index()),
                ) << self.error_shift.val());
            if self.report.val() {
                self.word.next = self.word.val()
                    | (bit_cast::<64, 16>(
                        self.ticket.val().get_bits::<16>(self.id_lsb.val().index()),
                    ) << self.transaction_shift.val());
            } else {
                self.word.next = self.word.val() | (self.stored.val() & self.info_keep.val());
            }
        }
        if self.position.val() == self.positions[2].val() {
            self.word.next = (self.route_low.val() & self.current_clear.val())
                | (bit_cast::<64, 5>(self.current_sent.val()) << self.current_lsb.val());
        }
        if self.position.val() == self.positions[3].val() {
            self.word.next = self.stored.val() & self.route_high_keep.val();
            if self.report.val() {
                self.word.next = self
                    .report_route
                    .val()
                    .get_bits::<64>(self.high_shift.val().index());
            }
        }
        if self.position.val() == self.positions[6].val() {
            if self.echo.val() == self.echo_registers.val() {
                self.word.next = self.stored.val() & self.register_echo.val();
            }
            if self.echo.val() == self.echo_eeprom.val() {
                self.word.next = self.stored.val() & self.eeprom_echo.val();
            }
        }
        if self.position.val() == self.positions[7].val() {
            self.word.next = self
                .ticket
                .val()
                .get_bits::<64>(self.data_lsb.val().index());
            if self.stored_words.val().get_bit(0) {
                self.word.next = self.stored.val();
            }
        }
        if (self.position.val() == self.positions[8].val()) & self.stored_words.val().get_bit(1) {
            self.word.next = self.stored.val();
        }
        // The flit.
        self.flit.next = self.body_bit.val() | bit_cast::<FLIT_BITS, 64>(self.word.val());
        if self.position.val() == self.positions[0].val() {
            self.flit.next = self.head_constant.val()
                | (bit_cast::<FLIT_BITS, 16>(self.destination.val())
                    << self.header_dst_shift.val())
                | (bit_cast::<FLIT_BITS, 16>(self.chip_id.val()) << self.header_src_shift.val());
        }
        if self.position.val() == self.position_tail.val() {
            self.flit.next = self.tail_bit.val() | bit_cast::<FLIT_BITS, 16>(self.crc.val());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_flit_is_synthesizable() {
        let mut uut = ResponseFlit::new(3);
        uut.connect_all();
        yosys_validate("response_flit", &generate_verilog(&uut)).unwrap();
    }

    #[test]
    fn entries_follow_the_response_rule() {
        let entries: Vec<usize> = (0..MGMT_FLITS).map(response_entry).collect();
        assert_eq!(entries, vec![8, 0, 3, 4, 0, 0, 5, 6, 7, 0]);
    }
}
