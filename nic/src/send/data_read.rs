//! `DataRead`: the send engine's data reads. From the checked descriptor stream it takes the
//! data to read (NAP indirect: its one address and `length` bytes; PUT: each source segment,
//! address word then bytes word) and issues host read requests of at most `max_read_request`
//! bytes, each inside one `max_read_request`-aligned block (so none crosses a 4 KB boundary,
//! `max_read_request` dividing 4096), each with its own tag from the central pool (owner
//! [`DATA_READ_OWNER`]). NAP immediate and GET descriptors, and PUT destination segments, are
//! taken and ignored (no data is read for them).
//!
//! **Room**: a request is issued only when the reorder buffer has room for all its beats
//! (`room`, in 16-byte rows, from [`DataReorder`](super::DataReorder)); the `issued` record
//! (tag, first lane, bytes, beats, last request of the message) tells the reorder buffer to
//! reserve them in the same edge, so completions are never back-pressured. A request needs
//! `ceil((address % 16 + bytes) / 16)` rows, at most `max_read_request / 16`.
//!
//! **Cut**: a segment at `a` of `n` bytes gives requests `[a, min(a + n, next multiple of
//! max_read_request))`, then whole blocks, then the rest: the fewest requests that keep the
//! rule (a segment starting mid-block gets a short first read).
//!
//! **Handshake**: `descriptor` valid/ready: a NAP indirect address word and a PUT source bytes
//! word are taken only when no segment is being read (one segment at a time); every other word
//! at once. The tag is taken in the cycle the request is decided (`tag_alloc.ready`, with
//! `issued`), the request is then held in a register and offered on `read` until the host
//! takes it (the pool's offered tag may change meanwhile, the request's may not). One request
//! per cycle at most; a new one is decided in the cycle the previous is taken.
//!
//! **Latency**: a segment's bytes word taken in cycle `c` has its first request offered in
//! `c + 2` (a tag free and room); the address word of a NAP indirect likewise.
//!
//! **Reset** (synchronous): the segment and the held request are dropped. Tags already taken
//! are the pool's to forget (the NIC resets as a whole).
//!
//! Parameters (elaboration): `max_read_request` (a power of two, 64..=4096).
use super::{ReadIssueSource, BEAT_COUNT_BITS, ROW_COUNT_BITS};
use crate::descriptor::{DescriptorSink, KIND_BITS, SEGMENT_COUNT_BITS};
use crate::host::{ReadRequestSource, READ_BYTES_BITS, TAG_BITS};
use crate::tag_pool::{TagAllocSink, DATA_READ_OWNER, OWNER_BITS};
use hdl::formats::nic::{DescriptorKind, ADDRESS_BITS, FUNCTION_BITS};
use rust_hdl::prelude::*;

/// Bits of a byte count inside the data read (a descriptor's `length`).
const LENGTH_BITS: usize = 32;

/// The data read; see the module documentation.
#[derive(LogicBlock)]
pub struct DataRead {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Checked descriptors (this block's copy of the stream).
    pub descriptor: DescriptorSink,
    /// Tags from the central pool.
    pub tag_alloc: TagAllocSink,
    /// Read requests to the host.
    pub read: ReadRequestSource,
    /// Free rows of the reorder buffer.
    pub room: Signal<In, Bits<ROW_COUNT_BITS>>,
    /// Each request decided, to the reorder buffer (which reserves its rows on this edge).
    pub issued: ReadIssueSource,
    /// A segment is being read.
    active: DFF<bool>,
    /// The segment's next byte address.
    address: DFF<Bits<ADDRESS_BITS>>,
    /// The segment's bytes still to request.
    remaining: DFF<Bits<LENGTH_BITS>>,
    /// The segment is the message's last.
    final_segment: DFF<bool>,
    /// The issuing function.
    issuer: DFF<Bits<FUNCTION_BITS>>,
    /// PUT: the source segment address word taken, waiting for its bytes word.
    segment_address: DFF<Bits<ADDRESS_BITS>>,
    /// Index of the next body word in its descriptor.
    word_index: DFF<Bits<6>>,
    /// The request offered to the host.
    pending: DFF<bool>,
    pending_address: DFF<Bits<ADDRESS_BITS>>,
    pending_bytes: DFF<Bits<READ_BYTES_BITS>>,
    pending_tag: DFF<Bits<TAG_BITS>>,
    pending_function: DFF<Bits<FUNCTION_BITS>>,
    /// Bytes to the end of the current `max_read_request` block.
    block_left: Signal<Local, Bits<LENGTH_BITS>>,
    /// This request's bytes.
    request_bytes: Signal<Local, Bits<LENGTH_BITS>>,
    /// This request ends the segment.
    request_final: Signal<Local, bool>,
    /// Beats (rows) of this request.
    request_beats: Signal<Local, Bits<LENGTH_BITS>>,
    /// The request is decided on this edge.
    deciding: Signal<Local, bool>,
    /// The output register is free for a new request on this edge.
    slot_free: Signal<Local, bool>,
    /// The offered word is a source segment's address / bytes word / the NAP address.
    address_word: Signal<Local, bool>,
    bytes_word: Signal<Local, bool>,
    indirect_word: Signal<Local, bool>,
    /// Source segment words of the descriptor (2 x sources).
    source_words: Signal<Local, Bits<6>>,
    block_mask: Constant<Bits<ADDRESS_BITS>>,
    block_bytes: Constant<Bits<LENGTH_BITS>>,
    fifteen: Constant<Bits<LENGTH_BITS>>,
    one_index: Constant<Bits<6>>,
    indirect_code: Constant<Bits<KIND_BITS>>,
    put_code: Constant<Bits<KIND_BITS>>,
    owner: Constant<Bits<OWNER_BITS>>,
    /// Descriptor fields this block does not need (the packetizer's): acknowledged unused.
    descriptor_unused: Signal<Local, bool>,
}

impl DataRead {
    /// A data read issuing requests of at most `max_read_request` bytes.
    pub fn new(max_read_request: usize) -> Self {
        assert!(
            max_read_request.is_power_of_two() && (64..=4096).contains(&max_read_request),
            "DataRead: max_read_request (nic.max_read_request) = {max_read_request} must be a power of two in 64..=4096"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            descriptor: Default::default(),
            tag_alloc: Default::default(),
            read: Default::default(),
            room: Default::default(),
            issued: Default::default(),
            active: Default::default(),
            address: Default::default(),
            remaining: Default::default(),
            final_segment: Default::default(),
            issuer: Default::default(),
            segment_address: Default::default(),
            word_index: Default::default(),
            pending: Default::default(),
            pending_address: Default::default(),
            pending_bytes: Default::default(),
            pending_tag: Default::default(),
            pending_function: Default::default(),
            block_left: Default::default(),
            request_bytes: Default::default(),
            request_final: Default::default(),
            request_beats: Default::default(),
            deciding: Default::default(),
            slot_free: Default::default(),
            address_word: Default::default(),
            bytes_word: Default::default(),
            indirect_word: Default::default(),
            source_words: Default::default(),
            block_mask: Constant::new((max_read_request as u64 - 1).to_bits()),
            block_bytes: Constant::new((max_read_request as u64).to_bits()),
            fifteen: Constant::new(15u64.to_bits()),
            one_index: Constant::new(1u64.to_bits()),
            indirect_code: Constant::new((DescriptorKind::NapIndirect.code() as u64).to_bits()),
            put_code: Constant::new((DescriptorKind::Put.code() as u64).to_bits()),
            owner: Constant::new(DATA_READ_OWNER.to_bits()),
            descriptor_unused: Default::default(),
        }
    }
}

impl Logic for DataRead {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            active,
            address,
            remaining,
            final_segment,
            issuer,
            segment_address,
            word_index,
            pending,
            pending_address,
            pending_bytes,
            pending_tag,
            pending_function
        );
        self.descriptor_unused.next = self.descriptor.qp.val().any()
            | self.descriptor.dst_node.val().any()
            | self.descriptor.dst_function.val().any()
            | self.descriptor.dst_qp.val().any()
            | self.descriptor.remote_event.val()
            | self.descriptor.local_event.val()
            | self.descriptor.key.val().any()
            | self.descriptor.tag.val().any()
            | self.descriptor.destinations.val().any()
            | self.descriptor.response_key.val().any()
            | self.descriptor.get_response.val();
        // The next request of the segment: to the end of its block or of the segment.
        self.block_left.next = self.block_bytes.val()
            - bit_cast::<LENGTH_BITS, ADDRESS_BITS>(self.address.q.val() & self.block_mask.val());
        self.request_final.next = self.remaining.q.val() <= self.block_left.val();
        self.request_bytes.next = self.block_left.val();
        if self.request_final.val() {
            self.request_bytes.next = self.remaining.q.val();
        }
        self.request_beats.next =
            (bit_cast::<LENGTH_BITS, 4>(self.address.q.val().get_bits::<4>(0))
                + self.request_bytes.val()
                + self.fifteen.val())
                >> 4;
        self.slot_free.next = !self.pending.q.val() | self.read.ready.val();
        self.deciding.next = self.active.q.val()
            & self.slot_free.val()
            & self.tag_alloc.valid.val()
            & (bit_cast::<LENGTH_BITS, ROW_COUNT_BITS>(self.room.val())
                >= self.request_beats.val());
        self.tag_alloc.ready.next = self.deciding.val();
        self.tag_alloc.owner.next = self.owner.val();
        self.issued.valid.next = self.deciding.val();
        self.issued.tag.next = self.tag_alloc.tag.val();
        self.issued.lane.next = self.address.q.val().get_bits::<4>(0);
        self.issued.bytes.next = self.request_bytes.val().get_bits::<READ_BYTES_BITS>(0);
        self.issued.beats.next = self.request_beats.val().get_bits::<BEAT_COUNT_BITS>(0);
        self.issued.message_last.next = self.request_final.val() & self.final_segment.q.val();
        // The held request.
        self.read.valid.next = self.pending.q.val();
        self.read.address.next = self.pending_address.q.val();
        self.read.bytes.next = self.pending_bytes.q.val();
        self.read.tag.next = self.pending_tag.q.val();
        self.read.function.next = self.pending_function.q.val();
        if self.pending.q.val() & self.read.ready.val() {
            self.pending.d.next = false;
        }
        if self.deciding.val() {
            self.pending.d.next = true;
            self.pending_address.d.next = self.address.q.val();
            self.pending_bytes.d.next = self.request_bytes.val().get_bits::<READ_BYTES_BITS>(0);
            self.pending_tag.d.next = self.tag_alloc.tag.val();
            self.pending_function.d.next = self.issuer.q.val();
            self.address.d.next = self.address.q.val()
                + bit_cast::<ADDRESS_BITS, LENGTH_BITS>(self.request_bytes.val());
            self.remaining.d.next = self.remaining.q.val() - self.request_bytes.val();
            if self.request_final.val() {
                self.active.d.next = false;
            }
        }
        // The descriptor's words: which ones start a segment.
        self.source_words.next =
            bit_cast::<6, SEGMENT_COUNT_BITS>(self.descriptor.sources.val()) << 1;
        self.indirect_word.next = self.descriptor.kind.val() == self.indirect_code.val();
        self.address_word.next = (self.descriptor.kind.val() == self.put_code.val())
            & (self.word_index.q.val() < self.source_words.val())
            & !self.word_index.q.val().get_bit(0);
        self.bytes_word.next = (self.descriptor.kind.val() == self.put_code.val())
            & (self.word_index.q.val() < self.source_words.val())
            & self.word_index.q.val().get_bit(0);
        // A segment starts only when the last one has been fully requested.
        self.descriptor.ready.next = true;
        if (self.indirect_word.val() | self.bytes_word.val()) & self.active.q.val() {
            self.descriptor.ready.next = false;
        }
        if self.descriptor.valid.val() & self.descriptor.ready.val() {
            self.word_index.d.next = self.word_index.q.val() + self.one_index.val();
            if self.descriptor.last.val() {
                self.word_index.d.next = 0.into();
            }
            if self.address_word.val() {
                self.segment_address.d.next =
                    self.descriptor.word.val().get_bits::<ADDRESS_BITS>(0);
            }
            if self.indirect_word.val() {
                self.active.d.next = true;
                self.address.d.next = self.descriptor.word.val().get_bits::<ADDRESS_BITS>(0);
                self.remaining.d.next = self.descriptor.length.val();
                self.final_segment.d.next = true;
                self.issuer.d.next = self.descriptor.function.val();
            }
            if self.bytes_word.val() {
                self.active.d.next = true;
                self.address.d.next = self.segment_address.q.val();
                self.remaining.d.next = self.descriptor.word.val().get_bits::<LENGTH_BITS>(0);
                self.final_segment.d.next =
                    (self.word_index.q.val() + self.one_index.val()) == self.source_words.val();
                self.issuer.d.next = self.descriptor.function.val();
            }
        }
        if self.reset.val() {
            self.active.d.next = false;
            self.pending.d.next = false;
            self.word_index.d.next = 0.into();
            self.tag_alloc.ready.next = false;
            self.issued.valid.next = false;
            self.descriptor.ready.next = false;
        }
    }
}

#[test]
fn data_read_is_synthesizable() {
    let mut uut = DataRead::new(512);
    uut.connect_all();
    yosys_validate("data_read", &generate_verilog(&uut)).unwrap();
}
