//! `DataReorder`: the send engine's reorder buffer. One block RAM of `2^RB` rows of 16 bytes
//! (4 KB at `RB` = 8) used as a ring: each data read request reserves its rows when
//! [`DataRead`](super::DataRead) decides it (the `issue` record: tag, first lane, bytes,
//! beats), its completion beats are written at its rows by tag (in order within a tag, any
//! order across tags, split anywhere), and the rows are read back in request order and packed
//! by [`PayloadPacker`](super::PayloadPacker) into 8-byte payload words whose byte 0 is the
//! message's first byte. A row is freed (counted back into `room`) when it is read.
//!
//! **Handshake**: `completion` is always ready (the rows were reserved: the host is never
//! back-pressured); `issue` is valid-only (the data read checked `room`); `payload`
//! valid/ready with the hold rule. `room` is the rows free, or 0 while the order FIFO's
//! [`ORDER_DEPTH`] slots are all taken (a request needs one slot), so a request that fits
//! also has its slot.
//!
//! **Tags**: a request's tag goes back to the pool (`tag_free`) when the reader has read the
//! request's last row, not at its last completion beat, so the per-tag state (next row,
//! failed) is never overwritten while the reader needs it.
//!
//! **Bad input**: a completion beat with `error` marks its request failed: its rows are not
//! waited for, their bytes (whatever the RAM holds) go out with `payload.error`, the tag is
//! freed as usual: an error completion, never a hang. A beat for a tag with no request (a
//! router fault) is written nowhere harmful only if its tag's state is stale: the completion
//! router keeps such beats out (`stray`).
//!
//! **Latency**: a row whose beat arrives in cycle `c` can be read in `c + 1` and its bytes
//! leave the packer in `c + 3` at the earliest; one payload word per cycle sustained within a
//! message, about 2 idle cycles between messages (the packer drains first).
//!
//! **Reset** (synchronous): the ring, the order FIFO and the packer empty, `room` full again
//! the next cycle; tags held are not freed (the pool is reset with the NIC).
//!
//! Parameters: `RB` row address bits (the RAM holds `2^RB` rows, 4..=11); elaboration value
//! `tags` (`nic.tags`: the per-tag tables' size).
use super::{
    HeadBeat, PayloadPacker, PayloadWordSource, ReadIssueSink, BEAT_COUNT_BITS, ROW_COUNT_BITS,
};
use crate::host::{ReadCompletionSink, HOST_DATA_BITS, READ_BYTES_BITS, TAG_BITS};
use crate::tag_pool::TagFreeSource;
use hdl::stream_fifo;
use rust_hdl::prelude::*;

/// Requests the order FIFO holds (issued and not yet read out).
pub const ORDER_DEPTH: usize = 32;
/// Bits of an order record: tag, lane, bytes, beats, message last.
pub const RECORD_BITS: usize = TAG_BITS + 4 + READ_BYTES_BITS + BEAT_COUNT_BITS + 1;
/// Offsets of the record's fields.
const RECORD_LANE: usize = TAG_BITS;
const RECORD_BYTES: usize = RECORD_LANE + 4;
const RECORD_BEATS: usize = RECORD_BYTES + READ_BYTES_BITS;
const RECORD_LAST: usize = RECORD_BEATS + BEAT_COUNT_BITS;

// The update's shifts are literals (`hdl_gen` shifts `Bits` by an `i32` literal, not a
// `usize` constant); these keep them equal to the offsets.
const _: () =
    assert!(RECORD_LANE == 8 && RECORD_BYTES == 12 && RECORD_BEATS == 25 && RECORD_LAST == 34);

type OrderFifo = stream_fifo!(Bits<RECORD_BITS>, ORDER_DEPTH);

/// The reorder buffer; see the module documentation.
#[derive(LogicBlock)]
pub struct DataReorder<const RB: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Requests decided by the data read (rows reserved on this edge).
    pub issue: ReadIssueSink,
    /// Completion beats of the data read's tags (from the completion router).
    pub completion: ReadCompletionSink,
    /// Tags given back to the pool.
    pub tag_free: TagFreeSource,
    /// Rows free (for the data read's room check).
    pub room: Signal<Out, Bits<ROW_COUNT_BITS>>,
    /// Payload words, in request order.
    pub payload: PayloadWordSource,
    ram: RAM<Bits<HOST_DATA_BITS>, RB>,
    order: OrderFifo,
    packer: PayloadPacker,
    /// Per tag: the row its next beat goes to.
    write_rows: Vec<DFF<Bits<RB>>>,
    /// Per tag: its read failed.
    failed: Vec<DFF<bool>>,
    /// Per row: written and not yet read.
    row_valid: Vec<DFF<bool>>,
    allocate_row: DFF<Bits<RB>>,
    read_row: DFF<Bits<RB>>,
    used: DFF<Bits<ROW_COUNT_BITS>>,
    beat_index: DFF<Bits<BEAT_COUNT_BITS>>,
    /// The head request continues a message (its first beat needs no drained packer).
    mid_message: DFF<bool>,
    /// The issue's order record.
    record: Signal<Local, Bits<RECORD_BITS>>,
    /// The head request's next beat.
    head_beat: HeadBeat,
    row_ready: Signal<Local, bool>,
    head_failed: Signal<Local, bool>,
    reading: Signal<Local, bool>,
    write_row: Signal<Local, Bits<RB>>,
    writing: Signal<Local, bool>,
    added: Signal<Local, Bits<ROW_COUNT_BITS>>,
    rows_free: Signal<Local, Bits<ROW_COUNT_BITS>>,
    slots_free: Signal<Local, Bits<ROW_COUNT_BITS>>,
    rows: Constant<Bits<ROW_COUNT_BITS>>,
    depth: Constant<Bits<ROW_COUNT_BITS>>,
    one_row: Constant<Bits<RB>>,
    one_used: Constant<Bits<ROW_COUNT_BITS>>,
    one_beat: Constant<Bits<BEAT_COUNT_BITS>>,
    /// The FIFO's `ready` (never low: `room` counts its slots) and the completions' `last`
    /// (a request's rows are counted by its beats): acknowledged unused.
    inputs_unused: Signal<Local, bool>,
}

impl<const RB: usize> DataReorder<RB> {
    /// A reorder buffer of `2^RB` rows for a pool of `tags` tags.
    pub fn new(tags: usize) -> Self {
        assert!(
            (4..=11).contains(&RB),
            "DataReorder: RB = {RB} row bits must be in 4..=11 (256 B..32 KB)"
        );
        assert!(
            tags.is_power_of_two() && (4..=1 << TAG_BITS).contains(&tags),
            "DataReorder: tags (nic.tags) = {tags} must be a power of two in 4..=256"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            issue: Default::default(),
            completion: Default::default(),
            tag_free: Default::default(),
            room: Default::default(),
            payload: Default::default(),
            ram: Default::default(),
            order: Default::default(),
            packer: Default::default(),
            write_rows: (0..tags).map(|_| Default::default()).collect(),
            failed: (0..tags).map(|_| Default::default()).collect(),
            row_valid: (0..1usize << RB).map(|_| Default::default()).collect(),
            allocate_row: Default::default(),
            read_row: Default::default(),
            used: Default::default(),
            beat_index: Default::default(),
            mid_message: Default::default(),
            record: Default::default(),
            head_beat: Default::default(),
            row_ready: Default::default(),
            head_failed: Default::default(),
            reading: Default::default(),
            write_row: Default::default(),
            writing: Default::default(),
            added: Default::default(),
            rows_free: Default::default(),
            slots_free: Default::default(),
            rows: Constant::new((1u64 << RB).to_bits()),
            depth: Constant::new((ORDER_DEPTH as u64).to_bits()),
            one_row: Constant::new(1u64.to_bits()),
            one_used: Constant::new(1u64.to_bits()),
            one_beat: Constant::new(1u64.to_bits()),
            inputs_unused: Default::default(),
        }
    }
}

impl<const RB: usize> Logic for DataReorder<RB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            allocate_row,
            read_row,
            used,
            beat_index,
            mid_message
        );
        clock!(self, clock, order, packer);
        for i in 0..self.write_rows.len() {
            self.write_rows[i].clock.next = self.clock.val();
            self.write_rows[i].d.next = self.write_rows[i].q.val();
            self.failed[i].clock.next = self.clock.val();
            self.failed[i].d.next = self.failed[i].q.val();
        }
        for i in 0..self.row_valid.len() {
            self.row_valid[i].clock.next = self.clock.val();
            self.row_valid[i].d.next = self.row_valid[i].q.val();
        }
        self.order.reset.next = self.reset.val();
        self.packer.reset.next = self.reset.val();
        self.ram.write_clock.next = self.clock.val();
        self.ram.read_clock.next = self.clock.val();
        // Issue: the request's rows reserved, its record queued.
        self.order.sink.valid.next = self.issue.valid.val();
        self.record.next = bit_cast::<RECORD_BITS, TAG_BITS>(self.issue.tag.val())
            | (bit_cast::<RECORD_BITS, 4>(self.issue.lane.val()) << 8)
            | (bit_cast::<RECORD_BITS, READ_BYTES_BITS>(self.issue.bytes.val()) << 12)
            | (bit_cast::<RECORD_BITS, BEAT_COUNT_BITS>(self.issue.beats.val()) << 25);
        self.order.sink.data.next = self
            .record
            .val()
            .replace_bit(34, self.issue.message_last.val());
        self.inputs_unused.next = self.order.sink.ready.val() | self.completion.last.val();
        self.added.next = 0.into();
        if self.issue.valid.val() {
            self.added.next = bit_cast::<ROW_COUNT_BITS, BEAT_COUNT_BITS>(self.issue.beats.val());
            self.allocate_row.d.next =
                self.allocate_row.q.val() + bit_cast::<RB, BEAT_COUNT_BITS>(self.issue.beats.val());
        }
        for i in 0..self.write_rows.len() {
            if self.issue.valid.val() & (self.issue.tag.val().index() == i) {
                self.write_rows[i].d.next = self.allocate_row.q.val();
                self.failed[i].d.next = false;
            }
        }
        // Completion beats: written at their tag's next row.
        self.completion.ready.next = true;
        self.write_row.next = 0.into();
        for i in 0..self.write_rows.len() {
            if self.completion.tag.val().index() == i {
                self.write_row.next = self.write_rows[i].q.val();
            }
        }
        self.writing.next = self.completion.valid.val() & !self.completion.error.val();
        self.ram.write_address.next = self.write_row.val();
        self.ram.write_data.next = self.completion.data.val();
        self.ram.write_enable.next = self.writing.val();
        for i in 0..self.write_rows.len() {
            if self.completion.valid.val() & (self.completion.tag.val().index() == i) {
                if self.completion.error.val() {
                    self.failed[i].d.next = true;
                } else {
                    self.write_rows[i].d.next = self.write_rows[i].q.val() + self.one_row.val();
                }
            }
        }
        for i in 0..self.row_valid.len() {
            if self.writing.val() & (self.write_row.val().index() == i) {
                self.row_valid[i].d.next = true;
            }
        }
        // The head request's next row (HeadBeat).
        self.head_beat.record.next = self.order.source.data.val();
        self.head_beat.beat_index.next = self.beat_index.q.val();
        // Both lookups as an OR of decoded terms, not an `if` per index: an `if` chain maps
        // to a priority chain of 256 multiplexers (the ECP5 critical path of `nic_top`,
        // 87 ns), an OR of terms to a balanced tree.
        self.head_failed.next = false;
        for i in 0..self.failed.len() {
            self.head_failed.next = self.head_failed.val()
                | (self.failed[i].q.val() & (self.head_beat.tag.val().index() == i));
        }
        self.row_ready.next = self.head_failed.val();
        for i in 0..self.row_valid.len() {
            self.row_ready.next = self.row_ready.val()
                | (self.row_valid[i].q.val() & (self.read_row.q.val().index() == i));
        }
        self.reading.next = self.order.source.valid.val()
            & self.row_ready.val()
            & self.packer.space.val()
            & (!self.head_beat.first_beat.val()
                | self.mid_message.q.val()
                | self.packer.drained.val())
            & !self.reset.val();
        self.ram.read_address.next = self.read_row.q.val();
        self.packer.data.next = self.ram.read_data.val();
        self.packer.beat.valid.next = self.reading.val();
        self.packer.beat.lo.next = self.head_beat.low_lane.val().get_bits::<4>(0);
        self.packer.beat.count.next =
            self.head_beat.high_lane.val() - self.head_beat.low_lane.val();
        self.packer.beat.end.next =
            self.head_beat.final_beat.val() & self.head_beat.message_last.val();
        self.packer.beat.error.next = self.head_failed.val();
        self.order.source.ready.next = self.reading.val() & self.head_beat.final_beat.val();
        self.tag_free.valid.next = self.reading.val() & self.head_beat.final_beat.val();
        self.tag_free.tag.next = self.head_beat.tag.val();
        self.used.d.next = self.used.q.val() + self.added.val();
        if self.reading.val() {
            self.used.d.next = self.used.q.val() + self.added.val() - self.one_used.val();
            self.read_row.d.next = self.read_row.q.val() + self.one_row.val();
            self.beat_index.d.next = self.beat_index.q.val() + self.one_beat.val();
            if self.head_beat.final_beat.val() {
                self.beat_index.d.next = 0.into();
                self.mid_message.d.next = !self.head_beat.message_last.val();
            }
            for i in 0..self.row_valid.len() {
                if self.read_row.q.val().index() == i {
                    self.row_valid[i].d.next = false;
                }
            }
        }
        // Room: free rows, capped by the order FIFO's free slots.
        self.rows_free.next = self.rows.val() - self.used.q.val();
        self.slots_free.next =
            self.depth.val() - bit_cast::<ROW_COUNT_BITS, 6>(self.order.count.val());
        self.room.next = self.rows_free.val();
        if !self.slots_free.val().any() {
            self.room.next = 0.into();
        }
        PayloadWordSource::link(&mut self.payload, &mut self.packer.payload);
        if self.reset.val() {
            self.allocate_row.d.next = 0.into();
            self.read_row.d.next = 0.into();
            self.used.d.next = 0.into();
            self.beat_index.d.next = 0.into();
            self.mid_message.d.next = false;
            for i in 0..self.row_valid.len() {
                self.row_valid[i].d.next = false;
            }
            self.tag_free.valid.next = false;
            self.order.sink.valid.next = false;
        }
    }
}

#[test]
fn data_reorder_is_synthesizable() {
    let mut uut = DataReorder::<8>::new(32);
    uut.connect_all();
    yosys_validate("data_reorder", &generate_verilog(&uut)).unwrap();
}
