//! `ReadQueue`: the data read's words (a NAP indirect's address, a PUT's source segment
//! words) in a 32-word block-RAM FIFO, so the descriptor stream gets past a PUT's whole source
//! list to its destination segments while the data read is still on its first source segment
//! (see [`SendSplit`](super::SendSplit)). The head is offered as the descriptor stream the data
//! read expects: `kind` NAP indirect or PUT, `function`, `sources`, `length` (a NAP indirect's,
//! at most 2048), the word, `last` on the message's last read word; the other fields zero.
//!
//! An entry packs the word's 48 address bits (a segment's bytes word has bits 63..32 zero, an
//! address word bits 63..48: the fetch's check), `last`, an indirect flag, `sources`,
//! `function` and 12 length bits (positions from [`READ_WIDTHS`]).
//!
//! Ports: `push_*` (valid/ready and the entry's fields), `pop` (source), `clock`, `reset`.
use crate::descriptor::{DescriptorSource, KIND_BITS, SEGMENT_COUNT_BITS};
use hdl::formats::nic::{DescriptorKind, ADDRESS_BITS, FUNCTION_BITS};
use hdl::stream_fifo;
use rust_hdl::prelude::*;

/// Bits of a NAP indirect's length in an entry (at most 2048).
pub const READ_LENGTH_BITS: usize = 12;
/// Widths of the packed fields, lowest first: word, last, indirect, sources, function, length.
pub const READ_WIDTHS: [usize; 6] = [
    ADDRESS_BITS,
    1,
    1,
    SEGMENT_COUNT_BITS,
    FUNCTION_BITS,
    READ_LENGTH_BITS,
];
/// Bits of an entry.
pub const READ_ENTRY_BITS: usize =
    ADDRESS_BITS + 2 + SEGMENT_COUNT_BITS + FUNCTION_BITS + READ_LENGTH_BITS;
/// Depth of the queue: a PUT's whole source list (16 segments, 2 words each).
pub const READ_QUEUE_DEPTH: usize = 32;

/// The read queue; see the module documentation.
#[derive(LogicBlock)]
pub struct ReadQueue {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// A word is pushed on this edge (when `push_ready`).
    pub push_valid: Signal<In, bool>,
    /// The queue has room.
    pub push_ready: Signal<Out, bool>,
    /// The word's low 48 bits.
    pub push_word: Signal<In, Bits<ADDRESS_BITS>>,
    /// The message's last read word.
    pub push_last: Signal<In, bool>,
    /// The message is a NAP indirect (else a PUT).
    pub push_indirect: Signal<In, bool>,
    /// PUT: source segments.
    pub push_sources: Signal<In, Bits<SEGMENT_COUNT_BITS>>,
    /// The issuing function.
    pub push_issuer: Signal<In, Bits<FUNCTION_BITS>>,
    /// NAP indirect: its length.
    pub push_length: Signal<In, Bits<READ_LENGTH_BITS>>,
    /// The data read's descriptor stream.
    pub pop: DescriptorSource,
    fifo: stream_fifo!(Bits<READ_ENTRY_BITS>, READ_QUEUE_DEPTH),
    head: Signal<Local, Bits<READ_ENTRY_BITS>>,
    at: Vec<Constant<Bits<8>>>,
    indirect_code: Constant<Bits<KIND_BITS>>,
    put_code: Constant<Bits<KIND_BITS>>,
    /// The FIFO's fill is not needed (its `ready` is the room).
    count_unused: Signal<Local, bool>,
}

impl Default for ReadQueue {
    fn default() -> Self {
        assert_eq!(READ_WIDTHS.iter().sum::<usize>(), READ_ENTRY_BITS);
        let code = |k: DescriptorKind| Constant::new((k.code() as u64).to_bits());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            push_valid: Default::default(),
            push_ready: Default::default(),
            push_word: Default::default(),
            push_last: Default::default(),
            push_indirect: Default::default(),
            push_sources: Default::default(),
            push_issuer: Default::default(),
            push_length: Default::default(),
            pop: Default::default(),
            fifo: Default::default(),
            head: Default::default(),
            at: super::message_queue::offsets(&READ_WIDTHS),
            indirect_code: code(DescriptorKind::NapIndirect),
            put_code: code(DescriptorKind::Put),
            count_unused: Default::default(),
        }
    }
}

impl Logic for ReadQueue {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, fifo);
        self.count_unused.next = self.fifo.count.val().any();
        self.fifo.reset.next = self.reset.val();
        self.fifo.sink.valid.next = self.push_valid.val();
        self.push_ready.next = self.fifo.sink.ready.val();
        self.fifo.sink.data.next =
            (bit_cast::<READ_ENTRY_BITS, ADDRESS_BITS>(self.push_word.val()) << self.at[0].val())
                | (bit_cast::<READ_ENTRY_BITS, 1>(self.push_last.val().into()) << self.at[1].val())
                | (bit_cast::<READ_ENTRY_BITS, 1>(self.push_indirect.val().into())
                    << self.at[2].val())
                | (bit_cast::<READ_ENTRY_BITS, SEGMENT_COUNT_BITS>(self.push_sources.val())
                    << self.at[3].val())
                | (bit_cast::<READ_ENTRY_BITS, FUNCTION_BITS>(self.push_issuer.val())
                    << self.at[4].val())
                | (bit_cast::<READ_ENTRY_BITS, READ_LENGTH_BITS>(self.push_length.val())
                    << self.at[5].val());
        self.head.next = self.fifo.source.data.val();
        self.pop.valid.next = self.fifo.source.valid.val();
        self.fifo.source.ready.next = self.pop.ready.val();
        self.pop.word.next = bit_cast::<64, ADDRESS_BITS>(
            self.head
                .val()
                .get_bits::<ADDRESS_BITS>(self.at[0].val().index()),
        );
        self.pop.last.next = self.head.val().get_bit(self.at[1].val().index());
        self.pop.kind.next = self.put_code.val();
        if self.head.val().get_bit(self.at[2].val().index()) {
            self.pop.kind.next = self.indirect_code.val();
        }
        self.pop.sources.next = self
            .head
            .val()
            .get_bits::<SEGMENT_COUNT_BITS>(self.at[3].val().index());
        self.pop.function.next = self
            .head
            .val()
            .get_bits::<FUNCTION_BITS>(self.at[4].val().index());
        self.pop.length.next = bit_cast::<32, READ_LENGTH_BITS>(
            self.head
                .val()
                .get_bits::<READ_LENGTH_BITS>(self.at[5].val().index()),
        );
        self.pop.qp.next = 0.into();
        self.pop.dst_node.next = 0.into();
        self.pop.dst_function.next = 0.into();
        self.pop.dst_qp.next = 0.into();
        self.pop.remote_event.next = false;
        self.pop.local_event.next = false;
        self.pop.key.next = 0.into();
        self.pop.tag.next = 0.into();
        self.pop.destinations.next = 0.into();
        self.pop.response_key.next = 0.into();
        self.pop.get_response.next = false;
    }
}

#[test]
fn read_queue_is_synthesizable() {
    let mut uut = ReadQueue::default();
    uut.connect_all();
    yosys_validate("read_queue", &generate_verilog(&uut)).unwrap();
}
