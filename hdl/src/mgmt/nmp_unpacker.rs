//! NMP unpacker: the management agent's entrance. Takes whole management packets
//! ([`crate::formats::mgmt`]) as a flit stream, checks them, writes each packet's words into the
//! [`PacketStore`](super::packet_store::PacketStore) as they arrive (the port it arrived on
//! appended to its backward route on the way), and offers each good one as a
//! [`RequestTicket`](super::ticket::RequestTicket): its store slot, `nmp_type` and `w5`'s
//! `count`, `address0`, `address1`.
//!
//! Ports: `clock`, `reset` (synchronous: forgets the packet in progress and the ticket on offer;
//! the rest of a packet cut by reset arrives without its head and is dropped as malformed when
//! its tail comes), `flits` (sink), `in_port` (the port the packet came in on, sampled with the
//! head), `chip_id` (this chip's ID, compared at the tail), `slots` (the
//! [`SlotPool`](super::SlotPool)'s lease: a free store slot, claimed with a head, given back on
//! the edge after a packet is dropped), `store` (the store's write port), `requests` (source),
//! `dropped_wrong_id` and `dropped_malformed` (one-cycle pulses, the cycle after a dropped
//! packet's tail was taken; counters live in the register file).
//!
//! A packet ends at a tail flit (however malformed; a stream that never sends one is upstream's
//! fault). It is dropped as **malformed** if its head is not a head flit of kind `Mgmt`, `len`
//! [`MGMT_FLITS`] and zero reserved header bits; if a flit between head and tail is not a body
//! flit; if the tail comes early or late (not the tenth flit); if the tail's reserved bits are
//! set or its CRC-16 (the head's `delay` taken as zero) is not the packet's; or if its routing
//! fields are malformed (forward `hop_num > 20` or `current > hop_num`, backward route full or
//! `hop_num > 20`, so that the append below cannot be made). Else it is dropped as **wrong ID**
//! if its DestID is neither `chip_id` nor all ones. Malformed wins: a packet with a bad CRC has
//! no DestID to trust. These are the framing and routing checks of the codec
//! (`unpack_words` and `Route::forward_fault`/`backward_fault`); the NMPType, count and reserved
//! payload bits are the function units' to answer with error responses.
//!
//! Store writes: the head flit writes the slot's head entry (the head's `src` where the header
//! has it, the arrival port in the low bits: [`ENTRY_SRC`], [`ENTRY_PORT`]), body flit `k`
//! writes word `w(k-1)` at entry `k - 1`, with the append made to `w3`/`w4`
//! ([`BackwardAppend`]: the hop slot is known from `w3`'s `hop_num`, so no second pass). A
//! dropped packet leaves its words in its slot, which is given back. The slot is the pool's
//! `free_slot`, claimed when the head is taken; a head waits (`flits.ready` low) while no slot
//! is free. A request handed on keeps its slot until its response has left the packer (the
//! agent gives it back then; see [`NmaCore`](super::NmaCore)).
//!
//! Timing: one flit per cycle; the ticket of a good packet is offered in the cycle after its
//! tail was taken. While a ticket waits (`requests.valid && !requests.ready`), `flits.ready` is
//! low (the ticket's registers are in use), so nothing is overwritten and nothing lost.
//! `flits.ready` follows `requests.ready` combinationally (ready to ready only, which the stream
//! rules allow), so back-to-back packets stream at one flit per cycle when `requests` takes
//! every ticket and a slot is free.
//! Dropped packets are consumed to their tail at full rate and never stall the stream.
//!
//! Structure: the unpacker keeps only what the ticket and its checks need (the type, `w5`'s
//! fields, the DestID, the slot); the words are in block RAM. Each flit's checks are
//! [`NmpFlitCheck`] (by its place in the packet), the CRC [`ParallelCrc`].
use super::backward_append::BackwardAppend;
use super::nmp_flit_check::NmpFlitCheck;
use super::packet_store::StoreWriteSource;
use super::slot_pool::SlotLease;
use super::ticket::{
    ENTRY_BITS, ENTRY_PORT, ENTRY_SRC, HEAD_ENTRY, REQUEST_ACCESS, REQUEST_TICKET_BITS,
    REQUEST_TYPE, SLOT_BITS, STORE_ADDRESS_BITS,
};
use crate::crc::{ParallelCrc, CRC16};
use crate::formats::mgmt::{self, CRC_HEAD_MASK, HOP_BITS, MGMT_FLITS};
use crate::formats::FLIT_BITS;
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

pub use super::nmp_flit_check::POSITION_BITS;
/// Bits of `w5` kept for the ticket.
const ACCESS_BITS: usize = REQUEST_ACCESS.width;

/// The unpacker; see the module documentation.
#[derive(LogicBlock)]
pub struct NmpUnpacker {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Management packets for this chip, whole, one flit per beat.
    pub flits: StreamSink<Bits<FLIT_BITS>>,
    /// The port the packet arrived on, sampled with its head.
    pub in_port: Signal<In, Bits<HOP_BITS>>,
    /// This chip's ID.
    pub chip_id: Signal<In, Bits<16>>,
    /// The store slot lent for each packet: claimed with its head, given back if it is dropped.
    pub slots: SlotLease,
    /// The packets' words, written into the store as they arrive.
    pub store: StoreWriteSource,
    /// One ticket per good packet.
    pub requests: StreamSource<Bits<REQUEST_TICKET_BITS>>,
    /// A packet addressed to another chip was dropped.
    pub dropped_wrong_id: Signal<Out, bool>,
    /// A malformed packet was dropped.
    pub dropped_malformed: Signal<Out, bool>,
    /// CRC-16 of the head and bodies (named so that its `crc` output does not shadow it).
    checksum: ParallelCrc<16, 64>,
    /// Flits of the packet in progress taken so far (saturates at [`MGMT_FLITS`]).
    position: DFF<Bits<POSITION_BITS>>,
    /// The packet in progress has failed a check.
    malformed: DFF<bool>,
    /// The port the packet in progress arrived on.
    arrival_port: DFF<Bits<HOP_BITS>>,
    /// The backward route's `hop_num` as received (from `w3`), for the append into `w4`.
    backward_hops: DFF<Bits<5>>,
    /// The store slot of the packet in progress (or of the ticket on offer).
    slot: DFF<Bits<SLOT_BITS>>,
    /// Its `nmp_type` (from `w0`).
    nmp_type: DFF<Bits<6>>,
    /// Its `w5` bits 0..=34.
    access: DFF<Bits<ACCESS_BITS>>,
    /// Its DestID (the head's `dst`).
    destination: DFF<Bits<16>>,
    /// A ticket is on offer.
    offering: DFF<bool>,
    wrong_id_pulse: DFF<bool>,
    malformed_pulse: DFF<bool>,
    /// The checks of the incoming flit.
    check: NmpFlitCheck,
    /// The arrival port written into the backward route as its words pass.
    append: BackwardAppend,
    /// A flit moves this cycle.
    taken: Signal<Local, bool>,
    /// The slot the incoming flit belongs to.
    write_slot: Signal<Local, Bits<SLOT_BITS>>,
    /// The entry it is written to.
    write_entry: Signal<Local, Bits<ENTRY_BITS>>,
    /// The incoming flit's low 5 bits: a route word's `hop_num` (for the append).
    route_hops_in: Signal<Local, Bits<5>>,
    position_head: Constant<Bits<POSITION_BITS>>,
    position_info: Constant<Bits<POSITION_BITS>>,
    position_backward: Constant<Bits<POSITION_BITS>>,
    position_backward_high: Constant<Bits<POSITION_BITS>>,
    position_access: Constant<Bits<POSITION_BITS>>,
    position_tail: Constant<Bits<POSITION_BITS>>,
    position_past: Constant<Bits<POSITION_BITS>>,
    head_entry: Constant<Bits<ENTRY_BITS>>,
    unset_id: Constant<Bits<16>>,
    crc_head_mask: Constant<Bits<64>>,
    /// The head entry's `src` bits.
    src_mask: Constant<Bits<64>>,
    type_lsb: Constant<Bits<7>>,
    port_lsb: Constant<Bits<7>>,
    entry_shift: Constant<Bits<7>>,
    ticket_type_lsb: Constant<Bits<7>>,
    ticket_access_lsb: Constant<Bits<7>>,
}

fn constant<const N: usize>(v: usize) -> Constant<Bits<N>> {
    Constant::new(Bits::from(v as u64))
}

impl Default for NmpUnpacker {
    fn default() -> Self {
        Self::new()
    }
}

impl NmpUnpacker {
    /// The unpacker (it has no parameters: the format is fixed).
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            flits: Default::default(),
            in_port: Default::default(),
            chip_id: Default::default(),
            slots: Default::default(),
            store: Default::default(),
            requests: Default::default(),
            dropped_wrong_id: Default::default(),
            dropped_malformed: Default::default(),
            checksum: ParallelCrc::new(&CRC16),
            position: Default::default(),
            malformed: Default::default(),
            arrival_port: Default::default(),
            backward_hops: Default::default(),
            slot: Default::default(),
            nmp_type: Default::default(),
            access: Default::default(),
            destination: Default::default(),
            offering: Default::default(),
            wrong_id_pulse: Default::default(),
            malformed_pulse: Default::default(),
            check: Default::default(),
            append: Default::default(),
            taken: Default::default(),
            write_slot: Default::default(),
            write_entry: Default::default(),
            route_hops_in: Default::default(),
            position_head: constant(0),
            position_info: constant(1 + mgmt::W_INFO),
            position_backward: constant(1 + mgmt::W_BACKWARD),
            position_backward_high: constant(1 + mgmt::W_BACKWARD_HIGH),
            position_access: constant(1 + mgmt::W_ACCESS),
            position_tail: constant(MGMT_FLITS - 1),
            position_past: constant(MGMT_FLITS),
            head_entry: constant(HEAD_ENTRY),
            unset_id: constant(mgmt::UNSET_ID as usize),
            crc_head_mask: Constant::new(Bits::from(CRC_HEAD_MASK)),
            src_mask: Constant::new(Bits::from((ENTRY_SRC.max() as u64) << ENTRY_SRC.lsb)),
            type_lsb: constant(mgmt::NMP_TYPE.lsb),
            port_lsb: constant(ENTRY_PORT.lsb),
            entry_shift: constant(ENTRY_BITS),
            ticket_type_lsb: constant(REQUEST_TYPE.lsb),
            ticket_access_lsb: constant(REQUEST_ACCESS.lsb),
        }
    }
}

impl Logic for NmpUnpacker {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            position,
            malformed,
            arrival_port,
            backward_hops,
            slot,
            nmp_type,
            access,
            destination,
            offering,
            wrong_id_pulse,
            malformed_pulse
        );
        clock!(self, clock, checksum);
        // A head waits for a free store slot.
        self.flits.ready.next = (!self.reset.val())
            & ((!self.offering.q.val()) | self.requests.ready.val())
            & ((self.position.q.val() != self.position_head.val()) | self.slots.available.val());
        self.taken.next = self.flits.valid.val() & self.flits.ready.val();
        self.wrong_id_pulse.d.next = false;
        self.malformed_pulse.d.next = false;
        if self.requests.ready.val() {
            self.offering.d.next = false;
        }
        // The flit's checks, by its place in the packet.
        self.check.flit.next = self.flits.data.val();
        self.check.position.next = self.position.q.val();
        self.check.crc.next = self.checksum.crc.val();
        self.route_hops_in.next = self.flits.data.val().get_bits::<5>(0);
        // The backward route's append: the slot is hop_num, in w3 (0..9) or w4 (10..19).
        self.append.word.next = bit_cast::<64, FLIT_BITS>(self.flits.data.val());
        self.append.port.next = self.arrival_port.q.val();
        self.append.low_word.next = self.position.q.val() == self.position_backward.val();
        self.append.high_word.next = self.position.q.val() == self.position_backward_high.val();
        self.append.slot.next = self.backward_hops.q.val();
        if self.append.low_word.val() {
            self.append.slot.next = self.route_hops_in.val();
        }
        // The store: the head entry from the head flit, word k-1 from body flit k.
        self.write_slot.next = self.slot.q.val();
        self.write_entry.next = bit_cast::<ENTRY_BITS, POSITION_BITS>(self.position.q.val() - 1);
        self.store.data.next = self.append.patched.val();
        if self.position.q.val() == self.position_head.val() {
            self.write_slot.next = self.slots.free_slot.val();
            self.write_entry.next = self.head_entry.val();
            self.store.data.next = (bit_cast::<64, FLIT_BITS>(self.flits.data.val())
                & self.src_mask.val())
                | (bit_cast::<64, HOP_BITS>(self.in_port.val()) << self.port_lsb.val());
        }
        self.store.enable.next =
            self.taken.val() & (self.position.q.val() < self.position_tail.val());
        self.store.address.next =
            (bit_cast::<STORE_ADDRESS_BITS, SLOT_BITS>(self.write_slot.val())
                << self.entry_shift.val())
                | bit_cast::<STORE_ADDRESS_BITS, ENTRY_BITS>(self.write_entry.val());
        // The CRC covers the head (delay as zero) and the bodies.
        self.checksum.reset.next = self.reset.val();
        self.checksum.start.next = self.position.q.val() == self.position_head.val();
        self.checksum.valid.next =
            self.taken.val() & (self.position.q.val() < self.position_tail.val());
        self.checksum.data.next = bit_cast::<64, FLIT_BITS>(self.flits.data.val());
        if self.position.q.val() == self.position_head.val() {
            self.checksum.data.next =
                bit_cast::<64, FLIT_BITS>(self.flits.data.val()) & self.crc_head_mask.val();
        }
        if self.taken.val() {
            if self.position.q.val() != self.position_past.val() {
                self.position.d.next = self.position.q.val() + 1;
            }
            self.malformed.d.next = self.malformed.q.val() | self.check.bad.val();
            if self.position.q.val() == self.position_head.val() {
                self.malformed.d.next = self.check.bad.val();
                self.arrival_port.d.next = self.in_port.val();
                self.slot.d.next = self.slots.free_slot.val();
                self.destination.d.next = self.check.dst.val();
            }
            if self.position.q.val() == self.position_info.val() {
                self.nmp_type.d.next = self
                    .flits
                    .data
                    .val()
                    .get_bits::<6>(self.type_lsb.val().index());
            }
            if self.position.q.val() == self.position_backward.val() {
                self.backward_hops.d.next = self.route_hops_in.val();
            }
            if self.position.q.val() == self.position_access.val() {
                self.access.d.next = self.flits.data.val().get_bits::<ACCESS_BITS>(0);
            }
            if self.check.is_tail.val() {
                self.position.d.next = 0.into();
                if self.malformed.q.val() | self.check.bad.val() {
                    self.malformed_pulse.d.next = true;
                } else if (self.destination.q.val() != self.chip_id.val())
                    & (self.destination.q.val() != self.unset_id.val())
                {
                    self.wrong_id_pulse.d.next = true;
                } else {
                    self.offering.d.next = true;
                }
            }
        }
        if self.reset.val() {
            self.position.d.next = 0.into();
            self.malformed.d.next = false;
            self.offering.d.next = false;
            self.wrong_id_pulse.d.next = false;
            self.malformed_pulse.d.next = false;
        }
        self.requests.valid.next = self.offering.q.val();
        self.requests.data.next = bit_cast::<REQUEST_TICKET_BITS, SLOT_BITS>(self.slot.q.val())
            | (bit_cast::<REQUEST_TICKET_BITS, 6>(self.nmp_type.q.val())
                << self.ticket_type_lsb.val())
            | (bit_cast::<REQUEST_TICKET_BITS, ACCESS_BITS>(self.access.q.val())
                << self.ticket_access_lsb.val());
        self.slots.claim.next =
            self.taken.val() & (self.position.q.val() == self.position_head.val());
        self.slots.give_back.next = self.wrong_id_pulse.q.val() | self.malformed_pulse.q.val();
        self.slots.returned.next = self.slot.q.val();
        self.dropped_wrong_id.next = self.wrong_id_pulse.q.val();
        self.dropped_malformed.next = self.malformed_pulse.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_match_the_format() {
        // Widths written as literals in `update`.
        assert_eq!((mgmt::HOP_NUM.width, mgmt::HOP_NUM.lsb), (5, 0));
        assert_eq!(HOP_BITS, 5);
        assert_eq!(mgmt::HOPS_PER_WORD, 10);
        assert_eq!(mgmt::NMP_TYPE.width, 6);
        assert_eq!(REQUEST_TYPE.width, 6);
        // Body flit k is word k - 1 at entry k - 1: the entry is the position less one.
        assert_eq!(HEAD_ENTRY, MGMT_FLITS - 2);
    }

    #[test]
    fn nmp_unpacker_is_synthesizable() {
        let mut uut = NmpUnpacker::new();
        uut.connect_all();
        yosys_validate("nmp_unpacker", &generate_verilog(&uut)).unwrap();
    }
}
