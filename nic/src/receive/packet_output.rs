//! `PacketOutput`: the receive buffer's read side (`docs/nic-design.md`, "Receive buffer"):
//! the record FIFO's head (a checked packet's fields) joined with the packet RAM's committed
//! words into the `ReceivedPacketSource` bundle. A beat is offered when both a record and a
//! word are there; `last` on the packet's `ceil(bytes / 8)`-th word, which also pops the
//! record. Records and words are pushed together by the verdict (a good packet's words are
//! exactly its `ceil(bytes / 8)` payload flits), so they stay in step.
//!
//! Field positions: the record's (`receive_verdict::RECORD_*`), the header flit's and the
//! tail's (`hdl::formats::nic`), as shift constants.
//!
//! Latency: none (combinational from the two heads). Reset (synchronous): the word count to
//! zero. No parameters.
use super::packet_check::COUNT_BITS;
use super::receive_verdict::{
    RECORD_BITS, RECORD_DELAY_AT, RECORD_KIND_AT, RECORD_SRC_NODE_AT, RECORD_TAIL_AT, TAIL_IDS_LSB,
};
use super::{
    ReceivedPacketSource, DELAY_BITS, NAP_LENGTH_BITS, NAP_OFFSET_BITS, PACKET_BYTES_BITS,
    PACKET_KIND_BITS,
};
use hdl::bits::constant;
use hdl::formats::nic::{
    ADDRESS, ADDRESS_BITS, BYTES, DST_FUNCTION, DST_QP, EVENT, FUNCTION_BITS, GET_RESPONSE, LAST,
    NAP_LENGTH, NAP_OFFSET, QP_BITS, SRC_FUNCTION, SRC_QP,
};
use hdl::stream::StreamSink;
use rust_hdl::prelude::*;

// `update` reads fields at literal offsets (a `get_bits` offset must be a literal there); they
// are the codec's:
const _: () = assert!(RECORD_KIND_AT == 64);
const _: () = assert!(RECORD_SRC_NODE_AT == 68);
const _: () = assert!(RECORD_DELAY_AT == 84);
const _: () = assert!(RECORD_TAIL_AT + SRC_FUNCTION.lsb - TAIL_IDS_LSB == 100);
const _: () = assert!(RECORD_TAIL_AT + SRC_QP.lsb - TAIL_IDS_LSB == 96);
const _: () = assert!(RECORD_TAIL_AT + DST_FUNCTION.lsb - TAIL_IDS_LSB == 107);
const _: () = assert!(RECORD_TAIL_AT + DST_QP.lsb - TAIL_IDS_LSB == 103);
const _: () = assert!(ADDRESS.lsb == 0);
const _: () = assert!(NAP_OFFSET.lsb == 0);
const _: () = assert!(NAP_LENGTH.lsb == 11);
const _: () = assert!(BYTES.lsb == 48);
const _: () = assert!(EVENT.lsb == 59);
const _: () = assert!(LAST.lsb == 60);
const _: () = assert!(GET_RESPONSE.lsb == 61);

/// The read side; see the module documentation.
#[derive(LogicBlock)]
pub struct PacketOutput {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Records of good packets, in order.
    pub records: StreamSink<Bits<RECORD_BITS>>,
    /// Their payload words, in order.
    pub words: StreamSink<Bits<64>>,
    /// Checked packets out.
    pub packets: ReceivedPacketSource,
    /// Words of the head packet already taken.
    taken: DFF<Bits<COUNT_BITS>>,
    header: Signal<Local, Bits<64>>,
    bytes: Signal<Local, Bits<PACKET_BYTES_BITS>>,
    /// `ceil(bytes / 8) - 1 = (bytes - 1) >> 3`, the last word's index.
    final_index: Signal<Local, Bits<PACKET_BYTES_BITS>>,
    take: Signal<Local, bool>,
    one: Constant<Bits<COUNT_BITS>>,
    one_byte: Constant<Bits<PACKET_BYTES_BITS>>,
    word_shift: Constant<Bits<PACKET_BYTES_BITS>>,
}

impl Default for PacketOutput {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            records: Default::default(),
            words: Default::default(),
            packets: Default::default(),
            taken: Default::default(),
            header: Default::default(),
            bytes: Default::default(),
            final_index: Default::default(),
            take: Default::default(),
            one: constant(1),
            one_byte: constant(1),
            word_shift: constant(3),
        }
    }
}

impl Logic for PacketOutput {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, taken);
        self.header.next = self.records.data.val().get_bits::<64>(0);
        self.bytes.next = self.header.val().get_bits::<PACKET_BYTES_BITS>(48);
        self.final_index.next = (self.bytes.val() - self.one_byte.val()) >> self.word_shift.val();

        self.packets.valid.next = self.records.valid.val() & self.words.valid.val();
        self.packets.kind.next = self.records.data.val().get_bits::<PACKET_KIND_BITS>(64);
        self.packets.src_node.next = self.records.data.val().get_bits::<16>(68);
        self.packets.delay.next = self.records.data.val().get_bits::<DELAY_BITS>(84);
        self.packets.src_function.next = self.records.data.val().get_bits::<FUNCTION_BITS>(100);
        self.packets.src_qp.next = self.records.data.val().get_bits::<QP_BITS>(96);
        self.packets.dst_function.next = self.records.data.val().get_bits::<FUNCTION_BITS>(107);
        self.packets.dst_qp.next = self.records.data.val().get_bits::<QP_BITS>(103);
        self.packets.address.next = self.header.val().get_bits::<ADDRESS_BITS>(0);
        self.packets.nap_offset.next = self.header.val().get_bits::<NAP_OFFSET_BITS>(0);
        self.packets.nap_length.next = self.header.val().get_bits::<NAP_LENGTH_BITS>(11);
        self.packets.bytes.next = self.bytes.val();
        self.packets.event.next = self.header.val().get_bit(59);
        self.packets.message_last.next = self.header.val().get_bit(60);
        self.packets.get_response.next = self.header.val().get_bit(61);
        self.packets.word.next = self.words.data.val();
        self.packets.last.next =
            bit_cast::<PACKET_BYTES_BITS, COUNT_BITS>(self.taken.q.val()) == self.final_index.val();

        self.take.next = self.packets.valid.val() & self.packets.ready.val();
        self.words.ready.next = self.take.val();
        self.records.ready.next = self.take.val() & self.packets.last.val();
        if self.take.val() {
            self.taken.d.next = self.taken.q.val() + self.one.val();
            if self.packets.last.val() {
                self.taken.d.next = 0.into();
            }
        }
        if self.reset.val() {
            self.taken.d.next = 0.into();
        }
    }
}

#[test]
fn packet_output_is_synthesizable() {
    let mut uut = PacketOutput::default();
    uut.connect_all();
    yosys_validate("packet_output", &generate_verilog(&uut)).unwrap();
}
