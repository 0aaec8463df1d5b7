//! Commit FIFO: the receiver's LTP staging buffer (receiver item 2 in `docs/llp-design.md`).
//! Flits of the LTP in progress are written as they are parsed; the reader only sees them once
//! the LTP's CRC has passed (`commit`), and a bad or duplicate LTP is discarded (`rollback`),
//! so no flit of a bad LTP can ever reach a packet buffer.
//!
//! Pointers (all `CW` = `AW + 1` bits, so `D` slots can be told from none): `rptr` (head),
//! `cptr` (end of the committed entries) and `wptr` (end of everything written). Storage is
//! rust-hdl's `RAM` (block RAM on iCE40), read as in [`BramFifo`](crate::fifo::BramFifo): the
//! RAM's read register is the output stage and a flag register says it holds a committed slot.
//!
//! Write side (no `ready`: the writer guarantees space by construction, see `overflow`):
//! - `wr_valid` writes `wr_data` at the write pointer;
//! - `commit` makes every entry written in *earlier* cycles visible (`cptr <= wptr`); a write
//!   in the same cycle is not included (it belongs to the next LTP);
//! - `rollback` discards every entry written since the last commit (`wptr <= cptr`), again
//!   without the write of the same cycle, which is kept (written where the discarded ones
//!   began); `commit` and `rollback` are never both high;
//! - a write that finds all `D` slots used (the count before this cycle's read) is dropped and
//!   sets the sticky `overflow`; the FIFO stays consistent.
//!
//! Read side: `source` obeys the stream hold rule, one entry per cycle sustained. An entry
//! committed in cycle `c` is offered from cycle `c + 1` at the earliest (the visibility test
//! uses the commit pointer of the next cycle, so the latency is one cycle, not BramFifo's two).
//!
//! Synchronous `reset` empties the FIFO and clears `overflow`.
//!
//! Parameters: `D` slots (a power of two >= 4), `AW` = `fifo_ptr_bits(D)`, `CW` =
//! `fifo_count_bits(D)`. Use [`commit_fifo!`](crate::commit_fifo).
use crate::fifo::{check_count_width, check_ptr_width};
use crate::formats::FLIT_BITS;
use crate::stream::StreamSource;
use rust_hdl::prelude::*;

/// The type of a [`CommitFifo`] of `$depth` slots with widths filled in: `commit_fifo!(32)`.
#[macro_export]
macro_rules! commit_fifo {
    ($depth:expr) => {
        $crate::llp::commit_fifo::CommitFifo<
            { $depth },
            { $crate::fifo::fifo_ptr_bits($depth) },
            { $crate::fifo::fifo_count_bits($depth) },
        >
    };
}

/// A FIFO of `D` 65-bit entries whose writes become visible only on `commit`.
#[derive(LogicBlock)]
pub struct CommitFifo<const D: usize, const AW: usize, const CW: usize> {
    /// Clock of every register and of the RAM.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: empties the FIFO, clears `overflow`.
    pub reset: Signal<In, bool>,
    /// Write `wr_data` this cycle.
    pub wr_valid: Signal<In, bool>,
    /// The entry to write.
    pub wr_data: Signal<In, Bits<FLIT_BITS>>,
    /// Make every entry written in earlier cycles visible.
    pub commit: Signal<In, bool>,
    /// Discard every entry written since the last commit (not this cycle's write).
    pub rollback: Signal<In, bool>,
    /// Committed entries, in order.
    pub source: StreamSource<Bits<FLIT_BITS>>,
    /// Sticky: a write found the FIFO full and was dropped.
    pub overflow: Signal<Out, bool>,
    /// Nothing committed is left to read: no entry between the read and commit pointers and
    /// none on `source` (entries written but not committed may remain).
    pub drained: Signal<Out, bool>,
    ram: RAM<Bits<FLIT_BITS>, AW>,
    rptr: DFF<Bits<CW>>,
    wptr: DFF<Bits<CW>>,
    cptr: DFF<Bits<CW>>,
    shown: DFF<bool>,
    ovf: DFF<bool>,
    pop: Signal<Local, bool>,
    rnext: Signal<Local, Bits<CW>>,
    cnext: Signal<Local, Bits<CW>>,
    base: Signal<Local, Bits<CW>>,
    base_next: Signal<Local, Bits<CW>>,
    fill: Signal<Local, Bits<CW>>,
    full: Signal<Local, bool>,
    write: Signal<Local, bool>,
    wptr_inc: Signal<Local, Bits<CW>>,
    cptr_inc: Signal<Local, Bits<CW>>,
    /// `D`: its one set bit is the full flag of a fill count.
    depth: Constant<Bits<CW>>,
    one: Constant<Bits<CW>>,
    bit0: Constant<Bits<AW>>,
}

impl<const D: usize, const AW: usize, const CW: usize> CommitFifo<D, AW, CW> {
    /// A FIFO of `D` slots. Panics unless `D` is a power of two >= 4 and `AW`/`CW` match it.
    pub fn new() -> Self {
        assert!(
            D >= 4 && D.is_power_of_two(),
            "CommitFifo: D (depth) is {D}; it must be a power of two >= 4"
        );
        check_ptr_width("CommitFifo", D, AW);
        check_count_width("CommitFifo", D, CW);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            wr_valid: Default::default(),
            wr_data: Default::default(),
            commit: Default::default(),
            rollback: Default::default(),
            source: Default::default(),
            overflow: Default::default(),
            drained: Default::default(),
            ram: Default::default(),
            rptr: Default::default(),
            wptr: Default::default(),
            cptr: Default::default(),
            shown: Default::default(),
            ovf: Default::default(),
            pop: Default::default(),
            rnext: Default::default(),
            cnext: Default::default(),
            base: Default::default(),
            base_next: Default::default(),
            fill: Default::default(),
            full: Default::default(),
            write: Default::default(),
            wptr_inc: Default::default(),
            cptr_inc: Default::default(),
            depth: Constant::new(D.to_bits()),
            one: Constant::new(1usize.to_bits()),
            bit0: Constant::new(1usize.to_bits()),
        }
    }
}

impl<const D: usize, const AW: usize, const CW: usize> Default for CommitFifo<D, AW, CW> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const D: usize, const AW: usize, const CW: usize> Logic for CommitFifo<D, AW, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rptr, wptr, cptr, shown, ovf);
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.overflow.next = self.ovf.q.val();
        self.drained.next = !self.shown.q.val() & (self.cptr.q.val() == self.rptr.q.val());

        // Read side: the RAM reads the head slot of the next cycle; it is shown if it is
        // committed after this edge (a commit now covers only slots written on earlier edges).
        self.source.valid.next = self.shown.q.val();
        self.source.data.next = self.ram.read_data.val();
        self.pop.next = self.source.ready.val() & self.shown.q.val();
        self.rnext.next = self.rptr.q.val();
        if self.pop.val() {
            self.rnext.next = self.rptr.q.val() + self.one.val();
        }
        self.rptr.d.next = self.rnext.val();
        self.cnext.next = self.cptr.q.val();
        if self.commit.val() {
            self.cnext.next = self.wptr.q.val();
        }
        self.cptr.d.next = self.cnext.val();
        self.shown.d.next = self.cnext.val() != self.rnext.val();

        // Write side: at `wptr`, or where the discarded entries began on a rollback.
        self.wptr_inc.next = self.wptr.q.val() + self.one.val();
        self.cptr_inc.next = self.cptr.q.val() + self.one.val();
        self.base.next = self.wptr.q.val();
        self.base_next.next = self.wptr_inc.val();
        self.fill.next = self.wptr.q.val() - self.rptr.q.val();
        if self.rollback.val() {
            self.base.next = self.cptr.q.val();
            self.base_next.next = self.cptr_inc.val();
            self.fill.next = self.cptr.q.val() - self.rptr.q.val();
            self.wptr.d.next = self.cptr.q.val();
        }
        // The fill never exceeds D, a power of two: its top bit is `full`.
        self.full.next = (self.fill.val() & self.depth.val()).any();
        self.write.next = self.wr_valid.val() & !self.full.val();
        if self.wr_valid.val() & self.full.val() {
            self.ovf.d.next = true;
        }
        if self.write.val() {
            self.wptr.d.next = self.base_next.val();
        }
        self.ram.write_enable.next = self.write.val();
        self.ram.write_address.next = self.base.val().get_bits::<AW>(0);
        self.ram.write_data.next = self.wr_data.val();
        // Read-during-write: the slot written is at or past the commit pointer of the next
        // cycle, so it is never the one shown next; when the addresses meet, read the
        // neighbour instead, and Yosys maps the bare RAM (as in BramFifo and PacketBuffer).
        self.ram.read_address.next = self.rnext.val().get_bits::<AW>(0);
        if self.write.val()
            & (self.rnext.val().get_bits::<AW>(0) == self.base.val().get_bits::<AW>(0))
        {
            self.ram.read_address.next = self.rnext.val().get_bits::<AW>(0) ^ self.bit0.val();
        }

        if self.reset.val() {
            self.rptr.d.next = 0.into();
            self.wptr.d.next = 0.into();
            self.cptr.d.next = 0.into();
            self.shown.d.next = false;
            self.ovf.d.next = false;
        }
    }
}

#[test]
fn commit_fifo_is_synthesizable() {
    let mut uut = <crate::commit_fifo!(32)>::new();
    uut.connect_all();
    yosys_validate("commit_fifo", &generate_verilog(&uut)).unwrap();
    let mut uut = <crate::commit_fifo!(4)>::new();
    uut.connect_all();
    yosys_validate("commit_fifo_4", &generate_verilog(&uut)).unwrap();
}

#[test]
#[should_panic(expected = "D (depth)")]
fn commit_fifo_rejects_depth_24() {
    let _ = CommitFifo::<24, 5, 5>::new();
}
