//! `MessageQueue`: the packetizer's message records in a 2-deep register FIFO, so the send
//! split can push the next descriptor's record (and its inline words) while the packetizer
//! still sends the current message; its head is then at the packetizer in the cycle after the
//! current message's last tail, and back-to-back messages leave back to back.
//!
//! The record's fields are packed into one FIFO word (positions from [`MESSAGE_WIDTHS`]) and
//! unpacked at the head, `get_response` (a PUT answering a GET, from the receive engine's
//! `GetToPut`) and a GET's `response_key` with the rest.
//!
//! Ports: `push` (sink), `pop` (source), `clock`, `reset` (empties it).
use super::{MessageSink, MessageSource};
use crate::descriptor::{KIND_BITS, SEGMENT_COUNT_BITS};
use hdl::formats::nic::{FUNCTION_BITS, QP_BITS};
use hdl::stream_fifo;
use rust_hdl::prelude::*;

/// Widths of the packed fields, lowest first: kind, function, QP, destination node, function,
/// QP, remote event, local event, key, tag, length, sources, destinations, response key,
/// GET response.
pub const MESSAGE_WIDTHS: [usize; 15] = [
    KIND_BITS,
    FUNCTION_BITS,
    QP_BITS,
    16,
    FUNCTION_BITS,
    QP_BITS,
    1,
    1,
    32,
    32,
    32,
    SEGMENT_COUNT_BITS,
    SEGMENT_COUNT_BITS,
    32,
    1,
];
/// Bits of a packed record.
pub const MESSAGE_BITS: usize =
    KIND_BITS + 2 * FUNCTION_BITS + 2 * QP_BITS + 16 + 3 + 4 * 32 + 2 * SEGMENT_COUNT_BITS;

/// The least significant bit of each field of a packed entry.
pub(crate) fn offsets(widths: &[usize]) -> Vec<Constant<Bits<8>>> {
    widths
        .iter()
        .scan(0usize, |at, w| {
            let lsb = *at;
            *at += w;
            Some(Constant::new(lsb.to_bits()))
        })
        .collect()
}

/// The record queue; see the module documentation.
#[derive(LogicBlock)]
pub struct MessageQueue {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Records in.
    pub push: MessageSink,
    /// Records out.
    pub pop: MessageSource,
    fifo: stream_fifo!(Bits<MESSAGE_BITS>, 2),
    head: Signal<Local, Bits<MESSAGE_BITS>>,
    at: Vec<Constant<Bits<8>>>,
    /// The FIFO's fill is not needed (its `ready` is the room).
    count_unused: Signal<Local, bool>,
}

impl Default for MessageQueue {
    fn default() -> Self {
        assert_eq!(MESSAGE_WIDTHS.iter().sum::<usize>(), MESSAGE_BITS);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            push: Default::default(),
            pop: Default::default(),
            fifo: Default::default(),
            head: Default::default(),
            at: offsets(&MESSAGE_WIDTHS),
            count_unused: Default::default(),
        }
    }
}

impl Logic for MessageQueue {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, fifo);
        self.count_unused.next = self.fifo.count.val().any();
        self.fifo.reset.next = self.reset.val();
        self.fifo.sink.valid.next = self.push.valid.val();
        self.push.ready.next = self.fifo.sink.ready.val();
        self.fifo.sink.data.next = (bit_cast::<MESSAGE_BITS, KIND_BITS>(self.push.kind.val())
            << self.at[0].val())
            | (bit_cast::<MESSAGE_BITS, FUNCTION_BITS>(self.push.function.val())
                << self.at[1].val())
            | (bit_cast::<MESSAGE_BITS, QP_BITS>(self.push.qp.val()) << self.at[2].val())
            | (bit_cast::<MESSAGE_BITS, 16>(self.push.dst_node.val()) << self.at[3].val())
            | (bit_cast::<MESSAGE_BITS, FUNCTION_BITS>(self.push.dst_function.val())
                << self.at[4].val())
            | (bit_cast::<MESSAGE_BITS, QP_BITS>(self.push.dst_qp.val()) << self.at[5].val())
            | (bit_cast::<MESSAGE_BITS, 1>(self.push.remote_event.val().into())
                << self.at[6].val())
            | (bit_cast::<MESSAGE_BITS, 1>(self.push.local_event.val().into()) << self.at[7].val())
            | (bit_cast::<MESSAGE_BITS, 32>(self.push.key.val()) << self.at[8].val())
            | (bit_cast::<MESSAGE_BITS, 32>(self.push.tag.val()) << self.at[9].val())
            | (bit_cast::<MESSAGE_BITS, 32>(self.push.length.val()) << self.at[10].val())
            | (bit_cast::<MESSAGE_BITS, SEGMENT_COUNT_BITS>(self.push.sources.val())
                << self.at[11].val())
            | (bit_cast::<MESSAGE_BITS, SEGMENT_COUNT_BITS>(self.push.destinations.val())
                << self.at[12].val())
            | (bit_cast::<MESSAGE_BITS, 32>(self.push.response_key.val()) << self.at[13].val())
            | (bit_cast::<MESSAGE_BITS, 1>(self.push.get_response.val().into())
                << self.at[14].val());
        self.head.next = self.fifo.source.data.val();
        self.pop.valid.next = self.fifo.source.valid.val();
        self.fifo.source.ready.next = self.pop.ready.val();
        self.pop.kind.next = self
            .head
            .val()
            .get_bits::<KIND_BITS>(self.at[0].val().index());
        self.pop.function.next = self
            .head
            .val()
            .get_bits::<FUNCTION_BITS>(self.at[1].val().index());
        self.pop.qp.next = self
            .head
            .val()
            .get_bits::<QP_BITS>(self.at[2].val().index());
        self.pop.dst_node.next = self.head.val().get_bits::<16>(self.at[3].val().index());
        self.pop.dst_function.next = self
            .head
            .val()
            .get_bits::<FUNCTION_BITS>(self.at[4].val().index());
        self.pop.dst_qp.next = self
            .head
            .val()
            .get_bits::<QP_BITS>(self.at[5].val().index());
        self.pop.remote_event.next = self.head.val().get_bit(self.at[6].val().index());
        self.pop.local_event.next = self.head.val().get_bit(self.at[7].val().index());
        self.pop.key.next = self.head.val().get_bits::<32>(self.at[8].val().index());
        self.pop.tag.next = self.head.val().get_bits::<32>(self.at[9].val().index());
        self.pop.length.next = self.head.val().get_bits::<32>(self.at[10].val().index());
        self.pop.sources.next = self
            .head
            .val()
            .get_bits::<SEGMENT_COUNT_BITS>(self.at[11].val().index());
        self.pop.destinations.next = self
            .head
            .val()
            .get_bits::<SEGMENT_COUNT_BITS>(self.at[12].val().index());
        self.pop.response_key.next = self.head.val().get_bits::<32>(self.at[13].val().index());
        self.pop.get_response.next = self.head.val().get_bit(self.at[14].val().index());
    }
}

#[test]
fn message_queue_is_synthesizable() {
    let mut uut = MessageQueue::default();
    uut.connect_all();
    yosys_validate("message_queue", &generate_verilog(&uut)).unwrap();
}
