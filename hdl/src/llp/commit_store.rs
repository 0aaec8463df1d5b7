//! Commit store: a FIFO of flits whose writes become visible only when committed and can be
//! discarded until then (rolled back). The receiver's LTP staging buffer (receiver item 2 in
//! `docs/llp-design.md`: only flits of LTPs whose CRC passed reach a packet buffer) and each
//! VC's packet buffer (item 6: only whole good packets leave) are this block with different
//! writers; it is their one copy of the pointers, the RAM and the read stage.
//!
//! Pointers (all `CW` = `AW + 1` bits, so `D` slots can be told from none): `read_at` (head),
//! `commit_at` (end of the committed entries) and `write_at` (end of everything written).
//! Storage is rust-hdl's `RAM` (block RAM on iCE40), read as in
//! [`BramFifo`](crate::fifo::BramFifo): the RAM's read register is the output stage and a flag
//! register (`shown`) says it holds a committed slot.
//!
//! Write side ([`StoreWriteSink`]; no `ready`: the writer guarantees space or checks `full`):
//! - `valid` writes `data` at the write pointer;
//! - `commit` makes every entry written in *earlier* cycles visible (`commit_at <= write_at`);
//!   a write in the same cycle is not included (it belongs to the next group: the staging
//!   buffer's next LTP);
//! - `commit_with_write` commits this cycle's write too, with everything before it (a packet
//!   buffer's good tail); the entries it commits are offered one cycle later than `commit`'s,
//!   since the slot written on this edge cannot be read on it;
//! - `rollback` discards every entry written since the last commit (`write_at <= commit_at`),
//!   without the write of the same cycle, which is kept (written where the discarded ones
//!   began); at most one of `commit`, `commit_with_write`, `rollback` is high, except that
//!   `rollback` with `commit_with_write` commits just this cycle's write;
//! - `full` (every slot holds an entry) and `full_after_rollback` (every slot holds a committed
//!   entry) come from registers only, so a writer may decide on them in the same cycle; a
//!   write that finds no room (`full`, or `full_after_rollback` with a rollback; the count is
//!   the one before this cycle's read) is dropped and sets the sticky `overflow`; the store
//!   stays consistent.
//!
//! Read side: `source` obeys the stream hold rule, one entry per cycle sustained. An entry
//! committed by `commit` in cycle `c` is offered from cycle `c + 1` at the earliest; one
//! committed by `commit_with_write` from cycle `c + 2`.
//!
//! Counts: `free` (slots holding no entry) and `uncommitted` (entries a rollback in this cycle
//! would discard), both from registers.
//!
//! Synchronous `reset` empties the store and clears `overflow`.
//!
//! Parameters: `D` slots (a power of two >= 4), `AW` = `fifo_ptr_bits(D)`, `CW` =
//! `fifo_count_bits(D)`. Use [`commit_store!`](crate::commit_store).
use crate::fifo::{check_count_width, check_ptr_width};
use crate::formats::FLIT_BITS;
use crate::stream::StreamSource;
use rust_hdl::prelude::*;

/// The type of a [`CommitStore`] of `$depth` slots with widths filled in: `commit_store!(32)`.
#[macro_export]
macro_rules! commit_store {
    ($depth:expr) => {
        $crate::llp::commit_store::CommitStore<
            { $depth },
            { $crate::fifo::fifo_ptr_bits($depth) },
            { $crate::fifo::fifo_count_bits($depth) },
        >
    };
}

/// The writer's end of a [`CommitStore`]'s write port.
#[derive(LogicInterface, Default)]
#[join = "StoreWriteSink"]
pub struct StoreWriteSource {
    /// Write `data` this cycle.
    pub valid: Signal<Out, bool>,
    /// The flit to write.
    pub data: Signal<Out, Bits<FLIT_BITS>>,
    /// Make every entry written in earlier cycles visible.
    pub commit: Signal<Out, bool>,
    /// Make this cycle's write and every earlier one visible.
    pub commit_with_write: Signal<Out, bool>,
    /// Discard every entry written since the last commit (not this cycle's write).
    pub rollback: Signal<Out, bool>,
    /// Every slot holds an entry (committed or not).
    pub full: Signal<In, bool>,
    /// Every slot holds a committed entry: no room even after a rollback.
    pub full_after_rollback: Signal<In, bool>,
}

/// The store's end of [`StoreWriteSource`].
#[derive(LogicInterface, Default)]
#[join = "StoreWriteSource"]
pub struct StoreWriteSink {
    /// Write `data` this cycle.
    pub valid: Signal<In, bool>,
    /// The flit to write.
    pub data: Signal<In, Bits<FLIT_BITS>>,
    /// Make every entry written in earlier cycles visible.
    pub commit: Signal<In, bool>,
    /// Make this cycle's write and every earlier one visible.
    pub commit_with_write: Signal<In, bool>,
    /// Discard every entry written since the last commit (not this cycle's write).
    pub rollback: Signal<In, bool>,
    /// Every slot holds an entry (committed or not).
    pub full: Signal<Out, bool>,
    /// Every slot holds a committed entry: no room even after a rollback.
    pub full_after_rollback: Signal<Out, bool>,
}

/// A FIFO of `D` 65-bit entries whose writes become visible only on a commit.
#[derive(LogicBlock)]
pub struct CommitStore<const D: usize, const AW: usize, const CW: usize> {
    /// Clock of every register and of the RAM.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: empties the store, clears `overflow`.
    pub reset: Signal<In, bool>,
    /// Writes, commits and rollbacks.
    pub write: StoreWriteSink,
    /// Committed entries, in order.
    pub source: StreamSource<Bits<FLIT_BITS>>,
    /// Sticky: a write found no room and was dropped.
    pub overflow: Signal<Out, bool>,
    /// Nothing committed is left to read: no entry between the read and commit pointers and
    /// none on `source` (entries written but not committed may remain).
    pub drained: Signal<Out, bool>,
    /// Slots holding no entry, committed or not.
    pub free: Signal<Out, Bits<CW>>,
    /// Entries written since the last commit.
    pub uncommitted: Signal<Out, Bits<CW>>,
    ram: RAM<Bits<FLIT_BITS>, AW>,
    read_at: DFF<Bits<CW>>,
    write_at: DFF<Bits<CW>>,
    commit_at: DFF<Bits<CW>>,
    /// The RAM's read register holds a committed entry.
    shown: DFF<bool>,
    overflowed: DFF<bool>,
    pop: Signal<Local, bool>,
    read_next: Signal<Local, Bits<CW>>,
    /// Where entries are visible up to after this edge (this cycle's write excluded).
    visible_next: Signal<Local, Bits<CW>>,
    /// Where this cycle's write goes, and the slot after it.
    base: Signal<Local, Bits<CW>>,
    base_next: Signal<Local, Bits<CW>>,
    write_next: Signal<Local, Bits<CW>>,
    stored: Signal<Local, Bits<CW>>,
    committed: Signal<Local, Bits<CW>>,
    full_now: Signal<Local, bool>,
    full_committed: Signal<Local, bool>,
    writing: Signal<Local, bool>,
    /// `D`: its one set bit is the full flag of a fill count.
    depth: Constant<Bits<CW>>,
    one: Constant<Bits<CW>>,
    bit0: Constant<Bits<AW>>,
}

impl<const D: usize, const AW: usize, const CW: usize> CommitStore<D, AW, CW> {
    /// A store of `D` slots. Panics unless `D` is a power of two >= 4 and `AW`/`CW` match it.
    pub fn new() -> Self {
        assert!(
            D >= 4 && D.is_power_of_two(),
            "CommitStore: D (depth) is {D}; it must be a power of two >= 4"
        );
        check_ptr_width("CommitStore", D, AW);
        check_count_width("CommitStore", D, CW);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            write: Default::default(),
            source: Default::default(),
            overflow: Default::default(),
            drained: Default::default(),
            free: Default::default(),
            uncommitted: Default::default(),
            ram: Default::default(),
            read_at: Default::default(),
            write_at: Default::default(),
            commit_at: Default::default(),
            shown: Default::default(),
            overflowed: Default::default(),
            pop: Default::default(),
            read_next: Default::default(),
            visible_next: Default::default(),
            base: Default::default(),
            base_next: Default::default(),
            write_next: Default::default(),
            stored: Default::default(),
            committed: Default::default(),
            full_now: Default::default(),
            full_committed: Default::default(),
            writing: Default::default(),
            depth: Constant::new(D.to_bits()),
            one: Constant::new(1usize.to_bits()),
            bit0: Constant::new(1usize.to_bits()),
        }
    }
}

impl<const D: usize, const AW: usize, const CW: usize> Default for CommitStore<D, AW, CW> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const D: usize, const AW: usize, const CW: usize> Logic for CommitStore<D, AW, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, read_at, write_at, commit_at, shown, overflowed);
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.overflow.next = self.overflowed.q.val();
        self.drained.next = !self.shown.q.val() & (self.commit_at.q.val() == self.read_at.q.val());
        // Counts are kept in CW-bit signals: a difference of CW-bit values must wrap at CW bits
        // (rust-hdl's simulator widens an unwrapped difference with its high bits).
        self.stored.next = self.write_at.q.val() - self.read_at.q.val();
        self.committed.next = self.commit_at.q.val() - self.read_at.q.val();
        self.free.next = self.depth.val() - self.stored.val();
        self.uncommitted.next = self.write_at.q.val() - self.commit_at.q.val();
        // A fill never exceeds D, a power of two: its top bit is the full flag.
        self.full_now.next = (self.stored.val() & self.depth.val()).any();
        self.full_committed.next = (self.committed.val() & self.depth.val()).any();
        self.write.full.next = self.full_now.val();
        self.write.full_after_rollback.next = self.full_committed.val();

        // Read side: the RAM reads the head slot of the next cycle; it is shown if it is
        // committed after this edge by an entry written on an earlier edge.
        self.source.valid.next = self.shown.q.val();
        self.source.data.next = self.ram.read_data.val();
        self.pop.next = self.source.ready.val() & self.shown.q.val();
        self.read_next.next = self.read_at.q.val();
        if self.pop.val() {
            self.read_next.next = self.read_at.q.val() + self.one.val();
        }
        self.read_at.d.next = self.read_next.val();
        self.visible_next.next = self.commit_at.q.val();
        if self.write.commit.val() {
            self.visible_next.next = self.write_at.q.val();
        }
        self.shown.d.next = self.visible_next.val() != self.read_next.val();

        // Write side: at the write pointer, or where the discarded entries began on a rollback.
        self.base.next = self.write_at.q.val();
        self.writing.next = self.write.valid.val() & !self.full_now.val();
        if self.write.rollback.val() {
            self.base.next = self.commit_at.q.val();
            self.writing.next = self.write.valid.val() & !self.full_committed.val();
        }
        self.base_next.next = self.base.val() + self.one.val();
        self.write_next.next = self.base.val();
        if self.writing.val() {
            self.write_next.next = self.base_next.val();
        }
        if self.write.valid.val() & !self.writing.val() {
            self.overflowed.d.next = true;
        }
        self.write_at.d.next = self.write_next.val();
        self.commit_at.d.next = self.visible_next.val();
        if self.write.commit_with_write.val() {
            self.commit_at.d.next = self.write_next.val();
        }
        self.ram.write_enable.next = self.writing.val();
        self.ram.write_address.next = self.base.val().get_bits::<AW>(0);
        self.ram.write_data.next = self.write.data.val();
        // rust-hdl's RAM is read-first, which iCE40 block RAMs don't guarantee; Yosys would add
        // ~130 flip-flops of emulation. The slot written is at or past the visible pointer of
        // the next cycle, so it is never the one shown next; when the addresses meet, read the
        // neighbour instead: Yosys proves the addresses of an enabled write differ and maps
        // the bare RAM.
        self.ram.read_address.next = self.read_next.val().get_bits::<AW>(0);
        if self.writing.val()
            & (self.read_next.val().get_bits::<AW>(0) == self.base.val().get_bits::<AW>(0))
        {
            self.ram.read_address.next = self.read_next.val().get_bits::<AW>(0) ^ self.bit0.val();
        }

        if self.reset.val() {
            self.read_at.d.next = 0.into();
            self.write_at.d.next = 0.into();
            self.commit_at.d.next = 0.into();
            self.shown.d.next = false;
            self.overflowed.d.next = false;
        }
    }
}

#[test]
fn commit_store_is_synthesizable() {
    let mut uut = <crate::commit_store!(32)>::new();
    uut.connect_all();
    yosys_validate("commit_store", &generate_verilog(&uut)).unwrap();
    let mut uut = <crate::commit_store!(4)>::new();
    uut.connect_all();
    yosys_validate("commit_store_4", &generate_verilog(&uut)).unwrap();
}

#[test]
#[should_panic(expected = "D (depth)")]
fn commit_store_rejects_depth_24() {
    let _ = CommitStore::<24, 5, 5>::new();
}
