//! `PacketRam`: the receive buffer's payload store, one block-RAM ring of 64-bit words whose
//! writes become visible to the reader only on `commit` and are given back on `drop`
//! (`docs/nic-design.md`, "Receive buffer"). The same pointer scheme as the link layer's
//! `hdl::llp::CommitStore` (read, commit and write pointers of `RAW + 1` bits), 64 bits wide
//! instead of 65 (a 64-bit word packs into 4 iCE40 RAMs of 16 bits, 65 would take 5) and with
//! the `full` flag the writer needs to stall.
//!
//! Write side (no `ready`: the writer looks at `full`):
//! - `write` stores `word` at the write pointer (ignored when `full`);
//! - `commit` makes every word written on *earlier* edges visible (commit pointer = write
//!   pointer); `drop` discards them (write pointer = commit pointer). The receive buffer
//!   never writes on the edge it commits or drops (its writer waits while a verdict is due),
//!   and never raises both.
//!
//! Read side: `words` obeys the stream hold rule, one word per cycle sustained; a word
//! committed on edge `c` is offered from cycle `c + 1` (the RAM's read register is the output
//! stage, as in `CommitStore`).
//!
//! Reset (synchronous): empty. Parameters: `RAW` address bits (`2^RAW` words), `CW = RAW + 1`.
use hdl::stream::StreamSource;
use rust_hdl::prelude::*;

/// Bits of a stored payload word.
pub const WORD_BITS: usize = 64;

/// The payload ring; see the module documentation.
#[derive(LogicBlock)]
pub struct PacketRam<const RAW: usize, const CW: usize> {
    /// Clock of the registers and the RAM.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: empty.
    pub reset: Signal<In, bool>,
    /// Store `word` this cycle.
    pub write: Signal<In, bool>,
    /// The word to store.
    pub word: Signal<In, Bits<WORD_BITS>>,
    /// Make every word written on earlier edges visible.
    pub commit: Signal<In, bool>,
    /// Give back every word written since the last commit.
    pub drop: Signal<In, bool>,
    /// Every slot holds a word (committed or not): a write now is ignored.
    pub full: Signal<Out, bool>,
    /// Committed words, in order.
    pub words: StreamSource<Bits<WORD_BITS>>,
    ram: RAM<Bits<WORD_BITS>, RAW>,
    read_pointer: DFF<Bits<CW>>,
    write_pointer: DFF<Bits<CW>>,
    commit_pointer: DFF<Bits<CW>>,
    shown: DFF<bool>,
    pop: Signal<Local, bool>,
    read_next: Signal<Local, Bits<CW>>,
    commit_next: Signal<Local, Bits<CW>>,
    fill: Signal<Local, Bits<CW>>,
    store: Signal<Local, bool>,
    /// `2^RAW`: its one set bit is the full flag of a fill count.
    depth: Constant<Bits<CW>>,
    one: Constant<Bits<CW>>,
    bit0: Constant<Bits<RAW>>,
}

impl<const RAW: usize, const CW: usize> PacketRam<RAW, CW> {
    /// A ring of `2^RAW` words. Panics unless `CW == RAW + 1` and `RAW >= 2`.
    pub fn new() -> Self {
        assert!(
            RAW >= 2 && CW == RAW + 1,
            "PacketRam: RAW = {RAW}, CW = {CW}: need RAW >= 2 and CW = RAW + 1"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            write: Default::default(),
            word: Default::default(),
            commit: Default::default(),
            drop: Default::default(),
            full: Default::default(),
            words: Default::default(),
            ram: Default::default(),
            read_pointer: Default::default(),
            write_pointer: Default::default(),
            commit_pointer: Default::default(),
            shown: Default::default(),
            pop: Default::default(),
            read_next: Default::default(),
            commit_next: Default::default(),
            fill: Default::default(),
            store: Default::default(),
            depth: Constant::new((1usize << RAW).to_bits()),
            one: Constant::new(1usize.to_bits()),
            bit0: Constant::new(1usize.to_bits()),
        }
    }
}

impl<const RAW: usize, const CW: usize> Default for PacketRam<RAW, CW> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const RAW: usize, const CW: usize> Logic for PacketRam<RAW, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            read_pointer,
            write_pointer,
            commit_pointer,
            shown
        );
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();

        // Read side: the RAM reads the head slot of the next cycle, shown if committed after
        // this edge.
        self.words.valid.next = self.shown.q.val();
        self.words.data.next = self.ram.read_data.val();
        self.pop.next = self.words.ready.val() & self.shown.q.val();
        self.read_next.next = self.read_pointer.q.val();
        if self.pop.val() {
            self.read_next.next = self.read_pointer.q.val() + self.one.val();
        }
        self.read_pointer.d.next = self.read_next.val();
        self.commit_next.next = self.commit_pointer.q.val();
        if self.commit.val() {
            self.commit_next.next = self.write_pointer.q.val();
        }
        self.commit_pointer.d.next = self.commit_next.val();
        self.shown.d.next = self.commit_next.val() != self.read_next.val();

        // Write side. The fill never exceeds 2^RAW: its top bit is `full`.
        self.fill.next = self.write_pointer.q.val() - self.read_pointer.q.val();
        self.full.next = (self.fill.val() & self.depth.val()).any();
        self.store.next = self.write.val() & !self.full.val();
        if self.store.val() {
            self.write_pointer.d.next = self.write_pointer.q.val() + self.one.val();
        }
        if self.drop.val() {
            self.write_pointer.d.next = self.commit_pointer.q.val();
        }
        self.ram.write_enable.next = self.store.val();
        self.ram.write_address.next = self.write_pointer.q.val().get_bits::<RAW>(0);
        self.ram.write_data.next = self.word.val();
        // Read-during-write: the slot written is past the commit pointer, never the one shown
        // next; when the addresses meet read the neighbour, so Yosys maps a bare RAM.
        self.ram.read_address.next = self.read_next.val().get_bits::<RAW>(0);
        if self.store.val()
            & (self.read_next.val().get_bits::<RAW>(0)
                == self.write_pointer.q.val().get_bits::<RAW>(0))
        {
            self.ram.read_address.next = self.read_next.val().get_bits::<RAW>(0) ^ self.bit0.val();
        }

        if self.reset.val() {
            self.read_pointer.d.next = 0.into();
            self.write_pointer.d.next = 0.into();
            self.commit_pointer.d.next = 0.into();
            self.shown.d.next = false;
        }
    }
}

#[test]
fn packet_ram_is_synthesizable() {
    let mut uut = PacketRam::<6, 7>::new();
    uut.connect_all();
    yosys_validate("packet_ram", &generate_verilog(&uut)).unwrap();
}
