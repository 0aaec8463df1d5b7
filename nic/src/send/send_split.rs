//! `SendSplit`: the checked descriptor stream forked to the send engine's two consumers, each
//! behind its own FIFO, so that neither waits for the other.
//!
//! - **`reads`** (to [`DataRead`](super::DataRead)): the words it reads data for, and only
//!   those: a NAP indirect's address word, a PUT's source segment words (address, bytes), with
//!   `last` on the last of them and the fields the data read uses (`kind`, `function`,
//!   `sources`, `length`; the others zero). Behind a 32-word block-RAM FIFO ([`ReadQueue`]): a PUT's whole
//!   source list (16 segments, 32 words) fits, so the stream always gets past a message's
//!   sources to its destination segments, which the packetizer needs before its first packet,
//!   while the data read is still requesting the first source segment (it takes one segment at
//!   a time and only as the reorder buffer frees room, which only the packetizer's progress
//!   does: without this FIFO a PUT of several large source segments would deadlock).
//! - **`messages`** (to the [`Packetizer`](super::Packetizer)): one record per descriptor,
//!   pushed with its first body word ([`MessageQueue`], 2 deep).
//! - **`inline`** (to the packetizer): a NAP immediate's data words (with their byte counts),
//!   a PUT's destination segment words, a GET's segment words (4-deep register FIFO; the
//!   packetizer takes them as it goes, so no message has to fit).
//!
//! A body word is taken when every FIFO it goes to has room (and, for a descriptor's first
//! word, the record FIFO). Reset empties the FIFOs and the word count.
use super::message_queue::MessageQueue;
use super::read_queue::{ReadQueue, READ_LENGTH_BITS};
use super::{MessageSource, PayloadWordSource};
use crate::descriptor::{DescriptorSink, DescriptorSource, KIND_BITS, SEGMENT_COUNT_BITS};
use hdl::formats::nic::{DescriptorKind, ADDRESS_BITS};
use hdl::stream_fifo;
use rust_hdl::prelude::*;

/// An inline-FIFO entry: word (bits 63..0), bytes (67..64), last (68).
const INLINE_ENTRY_BITS: usize = 64 + 4 + 1;
/// Depth of the inline FIFO.
pub const INLINE_FIFO_DEPTH: usize = 4;

/// The split; see the module documentation.
#[derive(LogicBlock)]
pub struct SendSplit {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Checked descriptors from the fetch.
    pub descriptor: DescriptorSink,
    /// The data read's words.
    pub reads: DescriptorSource,
    /// The packetizer's records.
    pub messages: MessageSource,
    /// The packetizer's inline words.
    pub inline: PayloadWordSource,
    read_queue: ReadQueue,
    message_queue: MessageQueue,
    inline_fifo: stream_fifo!(Bits<INLINE_ENTRY_BITS>, INLINE_FIFO_DEPTH),
    /// Index of the offered word in its descriptor's body.
    word_index: DFF<Bits<6>>,
    /// Where the offered word goes.
    to_reads: Signal<Local, bool>,
    to_inline: Signal<Local, bool>,
    /// The offered word is its descriptor's first.
    first: Signal<Local, bool>,
    /// The word is taken on this edge.
    taking: Signal<Local, bool>,
    /// Source segment words of a PUT (2 x sources).
    source_words: Signal<Local, Bits<6>>,
    /// A NAP immediate's bytes before this word, and those left from it.
    bytes_before: Signal<Local, Bits<32>>,
    bytes_left: Signal<Local, Bits<32>>,
    /// The inline word's bytes.
    word_bytes: Signal<Local, Bits<4>>,
    inline_head: Signal<Local, Bits<INLINE_ENTRY_BITS>>,
    immediate_code: Constant<Bits<KIND_BITS>>,
    indirect_code: Constant<Bits<KIND_BITS>>,
    put_code: Constant<Bits<KIND_BITS>>,
    eight: Constant<Bits<32>>,
    one_index: Constant<Bits<6>>,
    bytes_at: Constant<Bits<8>>,
    last_at: Constant<Bits<8>>,
    /// The FIFO's fill is not needed (its `ready` is the room).
    count_unused: Signal<Local, bool>,
}

impl Default for SendSplit {
    fn default() -> Self {
        let code = |k: DescriptorKind| Constant::new((k.code() as u64).to_bits());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            descriptor: Default::default(),
            reads: Default::default(),
            messages: Default::default(),
            inline: Default::default(),
            read_queue: Default::default(),
            message_queue: Default::default(),
            inline_fifo: Default::default(),
            word_index: Default::default(),
            to_reads: Default::default(),
            to_inline: Default::default(),
            first: Default::default(),
            taking: Default::default(),
            source_words: Default::default(),
            bytes_before: Default::default(),
            bytes_left: Default::default(),
            word_bytes: Default::default(),
            inline_head: Default::default(),
            immediate_code: code(DescriptorKind::NapImmediate),
            indirect_code: code(DescriptorKind::NapIndirect),
            put_code: code(DescriptorKind::Put),
            eight: Constant::new(8u64.to_bits()),
            one_index: Constant::new(1u64.to_bits()),
            bytes_at: Constant::new(64u64.to_bits()),
            last_at: Constant::new(68u64.to_bits()),
            count_unused: Default::default(),
        }
    }
}

impl Logic for SendSplit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, word_index);
        clock!(self, clock, read_queue, message_queue, inline_fifo);
        self.count_unused.next = self.inline_fifo.count.val().any();
        // Where the offered word goes.
        self.first.next = !self.word_index.q.val().any();
        self.source_words.next =
            bit_cast::<6, SEGMENT_COUNT_BITS>(self.descriptor.sources.val()) << 1;
        self.to_reads.next = (self.descriptor.kind.val() == self.indirect_code.val())
            | ((self.descriptor.kind.val() == self.put_code.val())
                & (self.word_index.q.val() < self.source_words.val()));
        self.to_inline.next =
            (self.descriptor.kind.val() != self.indirect_code.val()) & !self.to_reads.val();
        self.descriptor.ready.next = (!self.to_reads.val() | self.read_queue.push_ready.val())
            & (!self.to_inline.val() | self.inline_fifo.sink.ready.val())
            & (!self.first.val() | self.message_queue.push.ready.val());
        self.taking.next = self.descriptor.valid.val() & self.descriptor.ready.val();
        if self.taking.val() {
            self.word_index.d.next = self.word_index.q.val() + self.one_index.val();
            if self.descriptor.last.val() {
                self.word_index.d.next = 0.into();
            }
        }
        // The record, with the first word.
        self.message_queue.push.valid.next = self.taking.val() & self.first.val();
        self.message_queue.push.kind.next = self.descriptor.kind.val();
        self.message_queue.push.function.next = self.descriptor.function.val();
        self.message_queue.push.qp.next = self.descriptor.qp.val();
        self.message_queue.push.dst_node.next = self.descriptor.dst_node.val();
        self.message_queue.push.dst_function.next = self.descriptor.dst_function.val();
        self.message_queue.push.dst_qp.next = self.descriptor.dst_qp.val();
        self.message_queue.push.remote_event.next = self.descriptor.remote_event.val();
        self.message_queue.push.local_event.next = self.descriptor.local_event.val();
        self.message_queue.push.key.next = self.descriptor.key.val();
        self.message_queue.push.tag.next = self.descriptor.tag.val();
        self.message_queue.push.length.next = self.descriptor.length.val();
        self.message_queue.push.sources.next = self.descriptor.sources.val();
        self.message_queue.push.destinations.next = self.descriptor.destinations.val();
        self.message_queue.push.response_key.next = self.descriptor.response_key.val();
        self.message_queue.push.get_response.next = self.descriptor.get_response.val();
        MessageSource::link(&mut self.messages, &mut self.message_queue.pop);
        // The data read's words: `last` on a PUT's last source word too.
        self.read_queue.push_valid.next = self.taking.val() & self.to_reads.val();
        self.read_queue.push_word.next = self.descriptor.word.val().get_bits::<ADDRESS_BITS>(0);
        self.read_queue.push_last.next = self.descriptor.last.val()
            | ((self.word_index.q.val() + self.one_index.val()) == self.source_words.val());
        self.read_queue.push_indirect.next = self.descriptor.kind.val() == self.indirect_code.val();
        self.read_queue.push_sources.next = self.descriptor.sources.val();
        self.read_queue.push_issuer.next = self.descriptor.function.val();
        self.read_queue.push_length.next =
            self.descriptor.length.val().get_bits::<READ_LENGTH_BITS>(0);
        DescriptorSource::link(&mut self.reads, &mut self.read_queue.pop);
        // The inline words, a NAP immediate's last with its bytes.
        self.bytes_before.next = bit_cast::<32, 6>(self.word_index.q.val()) << 3;
        self.bytes_left.next = self.descriptor.length.val() - self.bytes_before.val();
        self.word_bytes.next = 8.into();
        if (self.descriptor.kind.val() == self.immediate_code.val())
            & (self.bytes_left.val() < self.eight.val())
        {
            self.word_bytes.next = self.bytes_left.val().get_bits::<4>(0);
        }
        self.inline_fifo.sink.valid.next = self.taking.val() & self.to_inline.val();
        self.inline_fifo.sink.data.next =
            bit_cast::<INLINE_ENTRY_BITS, 64>(self.descriptor.word.val())
                | (bit_cast::<INLINE_ENTRY_BITS, 4>(self.word_bytes.val()) << self.bytes_at.val())
                | (bit_cast::<INLINE_ENTRY_BITS, 1>(self.descriptor.last.val().into())
                    << self.last_at.val());
        self.inline_head.next = self.inline_fifo.source.data.val();
        self.inline.valid.next = self.inline_fifo.source.valid.val();
        self.inline.word.next = self.inline_head.val().get_bits::<64>(0);
        self.inline.bytes.next = self
            .inline_head
            .val()
            .get_bits::<4>(self.bytes_at.val().index());
        self.inline.last.next = self.inline_head.val().get_bit(self.last_at.val().index());
        self.inline.error.next = false;
        self.inline_fifo.source.ready.next = self.inline.ready.val();
        self.read_queue.reset.next = self.reset.val();
        self.message_queue.reset.next = self.reset.val();
        self.inline_fifo.reset.next = self.reset.val();
        if self.reset.val() {
            self.word_index.d.next = 0.into();
            self.descriptor.ready.next = false;
        }
    }
}

#[test]
fn send_split_is_synthesizable() {
    let mut uut = SendSplit::default();
    uut.connect_all();
    yosys_validate("send_split", &generate_verilog(&uut)).unwrap();
}
