//! NMP packer: the management agent's exit. Takes one response or fault report per
//! [`ResponseTicket`](super::ticket::ResponseTicket) and sends it as a management packet of
//! [`MGMT_FLITS`] flits, built by [`ResponseFlit`] from the ticket and the request's words read
//! back from the [`PacketStore`](super::PacketStore) (the codec's response rule: the head to
//! the request's sender, the forward route the request's backward route with the hop this chip
//! takes already taken, `current` decremented), and the tail with the CRC-16 of what was sent.
//!
//! Ports: `clock`, `reset` (synchronous: the packet in progress starts again from its head;
//! the ticket is not consumed until its tail is taken, so a reset loses no response, and the
//! flits already sent form a packet without a tail, which the link's receiver drops as dirty),
//! `responses` (sink), `store` (the store's read port), `chip_id`, `report_route`,
//! `report_dest` (the agent's settings, for the heads and the reports), `flits` (source),
//! `tail` (the flit on offer is the tail), `out_port` (the output port of the packet on offer,
//! valid with `flits.valid` and steady for the whole packet), `dropped_no_route` (one-cycle pulse
//! the cycle after a ticket was dropped).
//!
//! Output port: a response leaves on the port its request arrived on (the first hop of its
//! route back, which the unpacker appended: the store's head entry holds it); a report on
//! `F.hops[current - 1]` of `report_route`. A report whose `current` is 0 (it would be for this
//! chip) or above 20 (no such hop) has no output port: it is consumed without sending anything
//! and counted on `dropped_no_route`. A response always has one (its route back holds at least
//! the arrival hop).
//!
//! Timing: the store's read is registered, so the packer reads the word of the flit it will
//! offer next (the head entry while it waits at the head, the word after each flit that
//! moves), and a ticket's head is offered one cycle after the ticket (`primed`); then one flit
//! per cycle that `flits.ready` is high; the ticket is consumed (`responses.ready`) with the
//! tail, so back-to-back tickets go out as back-to-back packets, eleven cycles each.
//!
//! Structure: the packer stores no words (a 4-bit position, the output port, two flags); the
//! CRC is a [`ParallelCrc`] watching the flits sent.
use super::packet_store::StoreReader;
pub use super::response_flit::POSITION_BITS;
use super::response_flit::{response_entry, ResponseFlit};
use super::ticket::{
    ENTRY_BITS, ENTRY_PORT, RESPONSE_REPORT, RESPONSE_TICKET_BITS, SLOT_BITS, STORE_ADDRESS_BITS,
    STORE_WORD_BITS,
};
use crate::crc::{ParallelCrc, CRC16};
use crate::formats::mgmt::{self, hop_lsb, HOPS_PER_WORD, HOP_BITS, MGMT_FLITS, ROUTE_HOPS};
use crate::formats::{header, FLIT_BITS};
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// The packer; see the module documentation.
#[derive(LogicBlock)]
pub struct NmpPacker {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Responses and fault reports, one ticket each.
    pub responses: StreamSink<Bits<RESPONSE_TICKET_BITS>>,
    /// The requests' words.
    pub store: StoreReader<STORE_WORD_BITS>,
    /// This chip's ID (the packets' `src`).
    pub chip_id: Signal<In, Bits<16>>,
    /// Fault reports' forward route words `w1` (low) and `w2` (high) (registers).
    pub report_route: Signal<In, Bits<128>>,
    /// Fault reports' DestID (register).
    pub report_dest: Signal<In, Bits<16>>,
    /// The packets' flits.
    pub flits: StreamSource<Bits<FLIT_BITS>>,
    /// The port the packet on offer leaves on.
    pub out_port: Signal<Out, Bits<HOP_BITS>>,
    /// The flit on offer is the packet's tail (valid with `flits.valid`).
    pub tail: Signal<Out, bool>,
    /// A ticket without an output port was dropped.
    pub dropped_no_route: Signal<Out, bool>,
    builder: ResponseFlit,
    /// CRC-16 of the flits sent (named so that its `crc` output does not shadow it).
    checksum: ParallelCrc<16, 64>,
    /// Flits of the packet on offer already sent.
    position: DFF<Bits<POSITION_BITS>>,
    /// The store's word is the one for `position` of the ticket on offer.
    primed: DFF<bool>,
    /// The output port of a response, from its head on.
    held_port: DFF<Bits<HOP_BITS>>,
    dropped_pulse: DFF<bool>,
    report: Signal<Local, bool>,
    /// A report's `current`.
    current: Signal<Local, Bits<5>>,
    /// The ticket has no output port.
    no_route: Signal<Local, bool>,
    /// A report's output port.
    report_port: Signal<Local, Bits<HOP_BITS>>,
    /// `report_route`'s high word.
    route_high: Signal<Local, Bits<64>>,
    /// A flit moves this cycle.
    moving: Signal<Local, bool>,
    /// `position` after this edge.
    next_position: Signal<Local, Bits<POSITION_BITS>>,
    /// The store entry of the flit at `next_position`.
    entry: Signal<Local, Bits<ENTRY_BITS>>,
    hop_lsbs: Vec<Constant<Bits<7>>>,
    positions: Vec<Constant<Bits<POSITION_BITS>>>,
    entries: Vec<Constant<Bits<ENTRY_BITS>>>,
    position_tail: Constant<Bits<POSITION_BITS>>,
    route_hops: Constant<Bits<5>>,
    report_lsb: Constant<Bits<7>>,
    current_lsb: Constant<Bits<7>>,
    port_lsb: Constant<Bits<7>>,
    entry_shift: Constant<Bits<7>>,
}

fn constant<const N: usize>(v: usize) -> Constant<Bits<N>> {
    Constant::new(Bits::from(v as u64))
}

impl NmpPacker {
    /// A packer whose packets travel on virtual channel `mgmt_vc` (`network.mgmt_vc`).
    pub fn new(mgmt_vc: u8) -> Self {
        assert!(
            (mgmt_vc as u128) <= header::VC.max(),
            "NmpPacker: mgmt_vc = {mgmt_vc} does not fit the header's vc field"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            responses: Default::default(),
            store: Default::default(),
            chip_id: Default::default(),
            report_route: Default::default(),
            report_dest: Default::default(),
            flits: Default::default(),
            out_port: Default::default(),
            tail: Default::default(),
            dropped_no_route: Default::default(),
            builder: ResponseFlit::new(mgmt_vc),
            checksum: ParallelCrc::new(&CRC16),
            position: Default::default(),
            primed: Default::default(),
            held_port: Default::default(),
            dropped_pulse: Default::default(),
            report: Default::default(),
            current: Default::default(),
            no_route: Default::default(),
            report_port: Default::default(),
            route_high: Default::default(),
            moving: Default::default(),
            next_position: Default::default(),
            entry: Default::default(),
            hop_lsbs: (0..ROUTE_HOPS).map(|i| constant(hop_lsb(i))).collect(),
            positions: (0..MGMT_FLITS).map(constant).collect(),
            entries: (0..MGMT_FLITS)
                .map(|p| constant(response_entry(p)))
                .collect(),
            position_tail: constant(MGMT_FLITS - 1),
            route_hops: constant(ROUTE_HOPS),
            report_lsb: constant(RESPONSE_REPORT.lsb),
            current_lsb: constant(mgmt::CURRENT.lsb),
            port_lsb: constant(ENTRY_PORT.lsb),
            entry_shift: constant(ENTRY_BITS),
        }
    }
}

impl Logic for NmpPacker {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, position, primed, held_port, dropped_pulse);
        clock!(self, clock, checksum);
        self.report.next = self
            .responses
            .data
            .val()
            .get_bit(self.report_lsb.val().index());
        // A report's route: `current` and the output port hops[current - 1], in the low word
        // for hops 0..9, in the high word for 10..19.
        self.current.next = self
            .report_route
            .val()
            .get_bits::<5>(self.current_lsb.val().index());
        self.no_route.next = self.report.val()
            & ((self.current.val() == 0) | (self.current.val() > self.route_hops.val()));
        self.route_high.next = self.report_route.val().get_bits::<64>(64);
        self.report_port.next = 0.into();
        for i in 0..HOPS_PER_WORD {
            if self.current.val().index() == i + 1 {
                self.report_port.next = self
                    .report_route
                    .val()
                    .get_bits::<5>(self.hop_lsbs[i].val().index());
            }
        }
        for i in HOPS_PER_WORD..ROUTE_HOPS {
            if self.current.val().index() == i + 1 {
                self.report_port.next = self
                    .route_high
                    .val()
                    .get_bits::<5>(self.hop_lsbs[i].val().index());
            }
        }
        // A response's: the arrival port, from the head entry (read while at the head).
        self.out_port.next = self.held_port.q.val();
        if self.position.q.val() == self.positions[0].val() {
            self.out_port.next = self
                .store
                .data
                .val()
                .get_bits::<HOP_BITS>(self.port_lsb.val().index());
        }
        if self.report.val() {
            self.out_port.next = self.report_port.val();
        }
        // The flit at this position.
        self.builder.position.next = self.position.q.val();
        self.builder.ticket.next = self.responses.data.val();
        self.builder.stored.next = self.store.data.val();
        self.builder.chip_id.next = self.chip_id.val();
        self.builder.report_route.next = self.report_route.val();
        self.builder.report_dest.next = self.report_dest.val();
        self.builder.crc.next = self.checksum.crc.val();
        self.flits.data.next = self.builder.flit.val();
        self.tail.next = self.position.q.val() == self.position_tail.val();
        self.flits.valid.next = self.responses.valid.val()
            & self.primed.q.val()
            & !self.no_route.val()
            & !self.reset.val();
        self.responses.ready.next = (self.flits.ready.val()
            & (self.position.q.val() == self.position_tail.val()))
            | (self.no_route.val() & (self.position.q.val() == self.positions[0].val()));
        self.moving.next = self.flits.valid.val() & self.flits.ready.val();
        // The store reads the word of the flit offered after this edge.
        self.next_position.next = self.position.q.val();
        if self.moving.val() {
            self.next_position.next = self.position.q.val() + 1;
            if self.position.q.val() == self.position_tail.val() {
                self.next_position.next = 0.into();
            }
        }
        self.position.d.next = self.next_position.val();
        self.entry.next = self.entries[0].val();
        for p in 1..MGMT_FLITS {
            if self.next_position.val() == self.positions[p].val() {
                self.entry.next = self.entries[p].val();
            }
        }
        self.store.address.next = (bit_cast::<STORE_ADDRESS_BITS, SLOT_BITS>(
            self.responses.data.val().get_bits::<SLOT_BITS>(0),
        ) << self.entry_shift.val())
            | bit_cast::<STORE_ADDRESS_BITS, ENTRY_BITS>(self.entry.val());
        // Primed from the cycle after a ticket arrives until its tail leaves.
        self.primed.d.next = self.responses.valid.val()
            & !self.no_route.val()
            & !(self.moving.val() & (self.position.q.val() == self.position_tail.val()));
        if self.moving.val() & (self.position.q.val() == self.positions[0].val()) {
            self.held_port.d.next = self.out_port.val();
        }
        self.dropped_pulse.d.next =
            self.responses.valid.val() & self.responses.ready.val() & self.no_route.val();
        self.checksum.reset.next = self.reset.val();
        self.checksum.start.next = self.position.q.val() == self.positions[0].val();
        self.checksum.valid.next =
            self.moving.val() & (self.position.q.val() != self.position_tail.val());
        self.checksum.data.next = bit_cast::<64, FLIT_BITS>(self.flits.data.val());
        if self.reset.val() {
            self.position.d.next = 0.into();
            self.primed.d.next = false;
            self.dropped_pulse.d.next = false;
            self.flits.valid.next = false;
            self.responses.ready.next = false;
        }
        self.dropped_no_route.next = self.dropped_pulse.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nmp_packer_is_synthesizable() {
        let mut uut = NmpPacker::new(3);
        uut.connect_all();
        yosys_validate("nmp_packer", &generate_verilog(&uut)).unwrap();
    }

    #[test]
    #[should_panic(expected = "NmpPacker: mgmt_vc = 8 does not fit the header's vc field")]
    fn nmp_packer_rejects_a_wide_vc() {
        let _ = NmpPacker::new(8);
    }
}
