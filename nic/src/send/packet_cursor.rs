//! `PacketCursor`: where the packetizer stands in its message and packet. It holds the
//! message's progress (bytes already in packets: the next packet's offset), a PUT's current
//! destination segment (next address, bytes left; taken from two inline words, address then
//! bytes), and the packet on the wire (its payload bytes, the bytes still to send, its offset,
//! address and `last` flag), latched from [`PacketCut`](super::PacketCut) when its head leaves.
//!
//! Ports: `start` (the head leaves: latch `cut`, `cut_last`; advance the message and, for a
//! PUT, the segment), `segment_word` (with `segment_valid`: a PUT's next segment word),
//! `sent_bytes` (with `payload_moving`: a payload word of that many bytes left), `done` (the
//! message ended: progress and segment back to zero), the registers out. Reset as `done`.
use super::packet_cut::LENGTH_BITS;
use super::packet_flit::{NAP_OFFSET_BITS, PACKET_BYTES_BITS};
use hdl::formats::nic::ADDRESS_BITS;
use rust_hdl::prelude::*;

/// The cursor; see the module documentation.
#[derive(LogicBlock, Default)]
pub struct PacketCursor {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The packet's head leaves on this edge.
    pub start: Signal<In, bool>,
    /// Its payload bytes.
    pub cut: Signal<In, Bits<PACKET_BYTES_BITS>>,
    /// It is the message's last packet.
    pub cut_last: Signal<In, bool>,
    /// The message is a PUT (segments advance).
    pub put: Signal<In, bool>,
    /// A PUT segment word is taken on this edge.
    pub segment_valid: Signal<In, bool>,
    /// The segment word.
    pub segment_word: Signal<In, Bits<64>>,
    /// A payload word leaves on this edge.
    pub payload_moving: Signal<In, bool>,
    /// Its bytes.
    pub sent_bytes: Signal<In, Bits<4>>,
    /// The message ends on this edge.
    pub done: Signal<In, bool>,
    /// Bytes of the message in packets already begun.
    pub sent: Signal<Out, Bits<LENGTH_BITS>>,
    /// PUT: bytes left in the current destination segment.
    pub segment_left: Signal<Out, Bits<LENGTH_BITS>>,
    /// The packet's payload bytes.
    pub packet_bytes: Signal<Out, Bits<PACKET_BYTES_BITS>>,
    /// Its bytes still to send.
    pub packet_left: Signal<Out, Bits<PACKET_BYTES_BITS>>,
    /// Its offset in the message (NAP).
    pub packet_offset: Signal<Out, Bits<NAP_OFFSET_BITS>>,
    /// Its target address (PUT; zero otherwise).
    pub packet_address: Signal<Out, Bits<ADDRESS_BITS>>,
    /// It is the message's last.
    pub packet_last: Signal<Out, bool>,
    sent_reg: DFF<Bits<LENGTH_BITS>>,
    segment_address: DFF<Bits<ADDRESS_BITS>>,
    segment_left_reg: DFF<Bits<LENGTH_BITS>>,
    /// The next segment's address word was taken; its bytes word is next.
    address_taken: DFF<bool>,
    bytes_reg: DFF<Bits<PACKET_BYTES_BITS>>,
    left_reg: DFF<Bits<PACKET_BYTES_BITS>>,
    offset_reg: DFF<Bits<NAP_OFFSET_BITS>>,
    address_reg: DFF<Bits<ADDRESS_BITS>>,
    last_reg: DFF<bool>,
}

impl Logic for PacketCursor {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            sent_reg,
            segment_address,
            segment_left_reg,
            address_taken,
            bytes_reg,
            left_reg,
            offset_reg,
            address_reg,
            last_reg
        );
        self.sent.next = self.sent_reg.q.val();
        self.segment_left.next = self.segment_left_reg.q.val();
        self.packet_bytes.next = self.bytes_reg.q.val();
        self.packet_left.next = self.left_reg.q.val();
        self.packet_offset.next = self.offset_reg.q.val();
        self.packet_address.next = self.address_reg.q.val();
        self.packet_last.next = self.last_reg.q.val();
        // A PUT's next destination segment: its address word, then its bytes word.
        if self.segment_valid.val() {
            self.address_taken.d.next = !self.address_taken.q.val();
            if self.address_taken.q.val() {
                self.segment_left_reg.d.next = self.segment_word.val().get_bits::<LENGTH_BITS>(0);
            } else {
                self.segment_address.d.next = self.segment_word.val().get_bits::<ADDRESS_BITS>(0);
            }
        }
        if self.start.val() {
            self.bytes_reg.d.next = self.cut.val();
            self.left_reg.d.next = self.cut.val();
            self.offset_reg.d.next = self.sent_reg.q.val().get_bits::<NAP_OFFSET_BITS>(0);
            // The header's address: a PUT's; zero in a GET (NAP: unused).
            self.address_reg.d.next = 0.into();
            if self.put.val() {
                self.address_reg.d.next = self.segment_address.q.val();
                self.segment_left_reg.d.next = self.segment_left_reg.q.val()
                    - bit_cast::<LENGTH_BITS, PACKET_BYTES_BITS>(self.cut.val());
            }
            self.last_reg.d.next = self.cut_last.val();
            self.sent_reg.d.next =
                self.sent_reg.q.val() + bit_cast::<LENGTH_BITS, PACKET_BYTES_BITS>(self.cut.val());
            self.segment_address.d.next = self.segment_address.q.val()
                + bit_cast::<ADDRESS_BITS, PACKET_BYTES_BITS>(self.cut.val());
        }
        if self.payload_moving.val() {
            self.left_reg.d.next =
                self.left_reg.q.val() - bit_cast::<PACKET_BYTES_BITS, 4>(self.sent_bytes.val());
        }
        if self.done.val() | self.reset.val() {
            self.sent_reg.d.next = 0.into();
            self.segment_left_reg.d.next = 0.into();
        }
        if self.reset.val() {
            self.address_taken.d.next = false;
        }
    }
}

#[test]
fn packet_cursor_is_synthesizable() {
    let mut uut = PacketCursor::default();
    uut.connect_all();
    yosys_validate("packet_cursor", &generate_verilog(&uut)).unwrap();
}
