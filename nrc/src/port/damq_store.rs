//! Storage of a DAMQ input unit: one RAM of `SLOTS` flits shared by every VC, a linked list
//! per VC, and a front register per VC that the switch reads.
//!
//! **Structure.** Each VC's flits are, in order: its *front* (a register, or the RAM's read
//! register right after a refill), then its *list* in the RAM. A RAM word is a flit and the
//! slot of the next flit of the same list (8 bits: `SLOTS <= 256`). Each list ends in a
//! pre-allocated empty *tail slot*: a flit joining the list is written there together with the
//! slot taken from the free list as the new tail, so every link is written with its flit in
//! one full-word write and no word is written twice. Free slots come first from `fresh` (slots
//! never used since reset) and then from a free list, a [`BramFifo`] of slot numbers, which
//! takes back the slot of every flit read out of the RAM. After reset VC `v`'s tail slot is
//! slot `v`; the free list is empty and `fresh` = `VCS`.
//!
//! **Reads.** In a cycle with `read.valid` and a flit ready on `read.vc`, the front of that VC
//! moves (on `read.flit`, combinationally). If its list holds flits, the list's first slot is
//! read from the RAM on the same edge (a *refill*) and its slot goes to the free list; in the
//! next cycle the RAM's read register is that VC's front and its word's link is the list's
//! new first slot, so the same VC can be read again at once: one flit per cycle, any VC order.
//! A front not read in that cycle is copied into the VC's front register.
//!
//! **Writes.** A flit to store goes straight into its VC's front register when the VC's list
//! is empty and its front is free after this edge (the *bypass*); otherwise at the end of its
//! list. So a head arriving in cycle `c` at an idle VC is the VC's front in `c + 1`:
//! `ready`, `waiting` and `fronts` show it, and the switch can read it then.
//!
//! Read-during-write: the RAM is written only at a list's tail slot, which holds no flit, and
//! read only at a list's first slot, which holds one, so the two never meet; the write enable
//! also requires the two addresses to differ (never false when it matters; when nothing is
//! refilled the read address is the write address with bit 0 flipped), so that Yosys proves
//! the RAM needs no read-first emulation, as in [`BramFifo`].
//!
//! **Room.** A flit to store always finds a slot while at most `SLOTS - VCS - 2` flits are
//! stored (the tail slots, and one slot freed in the last cycle that the free list does not
//! show yet); the credit policy keeps it so. If it ever finds none, the flit is lost and
//! `no_slot` pulses in the next cycle.
//!
//! Outputs: `ready[v]` (VC `v` has a front), `waiting[v]` (that front is a head: a packet waits
//! for route and allocation; its header is `fronts[v]`), `fronts[v]` (any data when not
//! ready), `left` (bit `v`: a flit of VC `v` moved out this cycle), `bypassed` (the flit
//! written in this cycle goes straight into its VC's front: it is that VC's front in the next
//! cycle; the input port looks a head written so up in the cycle it arrives). A read of a VC with no flit
//! ready, or `read.vc >= VCS`, is ignored. Synchronous `reset` empties every VC.
//!
//! Parameters: `VCS`, `VCB` as in the channel; `SLOTS` (a power of two, 16..=256), `AW` =
//! `clog2(SLOTS)`, `CW` = `count_bits(SLOTS)`.
use super::{VcReadSink, VcWriteSink};
use hdl::fifo::BramFifo;
use hdl::formats::{flit, FLIT_BITS};
use rust_hdl::prelude::*;

/// Bits of a RAM word's link field (slot numbers up to 256).
pub const NEXT_BITS: usize = 8;
/// Bits of a RAM word: a flit, then the link.
pub const WORD_BITS: usize = FLIT_BITS + NEXT_BITS;

/// Shared flit storage with one linked list and one front register per VC.
#[derive(LogicBlock)]
pub struct DamqStore<
    const VCS: usize,
    const VCB: usize,
    const SLOTS: usize,
    const AW: usize,
    const CW: usize,
> {
    /// Clock of every register and RAM.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: every VC empty.
    pub reset: Signal<In, bool>,
    /// Flits to store (no backpressure).
    pub write: VcWriteSink<VCB>,
    /// The switch's read port.
    pub read: VcReadSink<VCB>,
    /// Bit `v`: VC `v` has a flit to read.
    pub ready: Signal<Out, Bits<VCS>>,
    /// Bit `v`: VC `v`'s front is a head.
    pub waiting: Signal<Out, Bits<VCS>>,
    /// Per VC: its front flit.
    pub fronts: Vec<Signal<Out, Bits<FLIT_BITS>>>,
    /// Bit `v`: a flit of VC `v` moved out in this cycle.
    pub left: Signal<Out, Bits<VCS>>,
    /// A flit found no free slot in the previous cycle and was lost.
    pub no_slot: Signal<Out, bool>,
    /// The flit written in this cycle bypasses to its VC's front (the front in the next cycle).
    pub bypassed: Signal<Out, bool>,
    ram: RAM<Bits<WORD_BITS>, AW>,
    free: BramFifo<Bits<AW>, SLOTS, AW, CW>,
    /// The free list's outputs this block does not need (it never fills: it has a slot for
    /// every slot), acknowledged for Verilator's lint; synthesis removes it.
    unused_free: Signal<Local, bool>,
    /// Per VC: the front register and whether it holds a flit.
    front: Vec<DFF<Bits<FLIT_BITS>>>,
    full: Vec<DFF<bool>>,
    /// Per VC: the list's first slot and its tail slot (empty, pre-allocated).
    first: Vec<DFF<Bits<AW>>>,
    tail: Vec<DFF<Bits<AW>>>,
    /// Per VC: flits in the list.
    count: Vec<DFF<Bits<CW>>>,
    /// The RAM's read register holds the front of VC `refilled_vc`.
    refilled: DFF<bool>,
    refilled_vc: DFF<Bits<VCB>>,
    /// Slots `fresh..SLOTS` have not been used since reset.
    fresh: DFF<Bits<CW>>,
    lost: DFF<bool>,
    /// Per VC: the RAM's read register is its front.
    landing: Vec<Signal<Local, bool>>,
    /// Per VC: its front and its list's first slot in this cycle.
    front_now: Vec<Signal<Local, Bits<FLIT_BITS>>>,
    first_now: Vec<Signal<Local, Bits<AW>>>,
    ram_flit: Signal<Local, Bits<FLIT_BITS>>,
    ram_next: Signal<Local, Bits<AW>>,
    /// A flit moves out.
    taken: Signal<Local, bool>,
    /// The VC read has flits in its list, and its first slot.
    read_more: Signal<Local, bool>,
    read_first: Signal<Local, Bits<AW>>,
    refill: Signal<Local, bool>,
    /// The VC written: its list is empty, its front is taken after this edge, its tail slot.
    write_empty: Signal<Local, bool>,
    write_busy: Signal<Local, bool>,
    write_tail: Signal<Local, Bits<AW>>,
    bypass: Signal<Local, bool>,
    to_ram: Signal<Local, bool>,
    fresh_left: Signal<Local, bool>,
    alloc: Signal<Local, Bits<AW>>,
    have_slot: Signal<Local, bool>,
    placed: Signal<Local, bool>,
    read_address: Signal<Local, Bits<AW>>,
    slots: Constant<Bits<CW>>,
    first_fresh: Constant<Bits<CW>>,
    /// Per VC: its tail slot after reset.
    home: Vec<Constant<Bits<AW>>>,
    bit0: Constant<Bits<AW>>,
    next_lsb: Constant<Bits<7>>,
    type_bit: Constant<Bits<7>>,
    head_bit: Constant<Bits<7>>,
    zero_count: Constant<Bits<CW>>,
    no_vcs: Constant<Bits<VCS>>,
}

impl<const VCS: usize, const VCB: usize, const SLOTS: usize, const AW: usize, const CW: usize>
    DamqStore<VCS, VCB, SLOTS, AW, CW>
{
    /// Storage of `SLOTS` flits for `VCS` VCs.
    pub fn new() -> Self {
        assert!(
            (1..=8).contains(&VCS),
            "DamqStore: VCS (virtual channels) must be 1..=8, got {VCS}"
        );
        assert_eq!(
            VCB,
            hdl::channel::channel_vc_bits(VCS),
            "DamqStore<VCS = {VCS}>: VCB (VC index bits) must be channel_vc_bits(VCS)"
        );
        assert!(
            SLOTS.is_power_of_two() && (16..=1 << NEXT_BITS).contains(&SLOTS),
            "DamqStore: SLOTS (router.input_buffer_flits) must be a power of two in 16..=256, got {SLOTS}"
        );
        assert!(
            SLOTS >= VCS + 3,
            "DamqStore: SLOTS ({SLOTS}) leaves no slot to store in with {VCS} VCs"
        );
        assert_eq!(
            AW,
            hdl::bits::clog2(SLOTS),
            "DamqStore: AW must be clog2(SLOTS)"
        );
        assert_eq!(
            CW,
            hdl::bits::count_bits(SLOTS),
            "DamqStore: CW must be count_bits(SLOTS)"
        );
        let pos = |p: usize| Constant::new((p as u64).into());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            write: Default::default(),
            read: Default::default(),
            ready: Default::default(),
            waiting: Default::default(),
            fronts: (0..VCS).map(|_| Default::default()).collect(),
            left: Default::default(),
            no_slot: Default::default(),
            bypassed: Default::default(),
            ram: Default::default(),
            free: BramFifo::new(),
            unused_free: Default::default(),
            front: (0..VCS).map(|_| Default::default()).collect(),
            full: (0..VCS).map(|_| Default::default()).collect(),
            first: (0..VCS).map(|_| Default::default()).collect(),
            tail: (0..VCS).map(|_| Default::default()).collect(),
            count: (0..VCS).map(|_| Default::default()).collect(),
            refilled: Default::default(),
            refilled_vc: Default::default(),
            fresh: Default::default(),
            lost: Default::default(),
            landing: (0..VCS).map(|_| Default::default()).collect(),
            front_now: (0..VCS).map(|_| Default::default()).collect(),
            first_now: (0..VCS).map(|_| Default::default()).collect(),
            ram_flit: Default::default(),
            ram_next: Default::default(),
            taken: Default::default(),
            read_more: Default::default(),
            read_first: Default::default(),
            refill: Default::default(),
            write_empty: Default::default(),
            write_busy: Default::default(),
            write_tail: Default::default(),
            bypass: Default::default(),
            to_ram: Default::default(),
            fresh_left: Default::default(),
            alloc: Default::default(),
            have_slot: Default::default(),
            placed: Default::default(),
            read_address: Default::default(),
            slots: Constant::new((SLOTS as u64).into()),
            first_fresh: Constant::new((VCS as u64).into()),
            home: (0..VCS).map(|v| Constant::new((v as u64).into())).collect(),
            bit0: Constant::new(1u64.into()),
            next_lsb: pos(FLIT_BITS),
            type_bit: pos(flit::TYPE_BIT),
            head_bit: pos(flit::HEAD_BIT),
            zero_count: Constant::new(0u64.into()),
            no_vcs: Constant::new(0u64.into()),
        }
    }
}

impl<const VCS: usize, const VCB: usize, const SLOTS: usize, const AW: usize, const CW: usize>
    Default for DamqStore<VCS, VCB, SLOTS, AW, CW>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const VCS: usize, const VCB: usize, const SLOTS: usize, const AW: usize, const CW: usize> Logic
    for DamqStore<VCS, VCB, SLOTS, AW, CW>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, refilled, refilled_vc, fresh, lost);
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.free.clock.next = self.clock.val();
        self.free.reset.next = self.reset.val();
        self.unused_free.next = self.free.sink.ready.val() | self.free.count.val().any();
        self.no_slot.next = self.lost.q.val();
        self.ram_flit.next = self.ram.read_data.val().get_bits::<FLIT_BITS>(0);
        self.ram_next.next = bit_cast::<AW, NEXT_BITS>(
            self.ram
                .read_data
                .val()
                .get_bits::<NEXT_BITS>(self.next_lsb.val().index()),
        );
        // Each VC's front and first slot in this cycle: the RAM's read register after a refill.
        self.ready.next = self.no_vcs.val();
        self.waiting.next = self.no_vcs.val();
        for v in 0..VCS {
            self.front[v].clock.next = self.clock.val();
            self.front[v].d.next = self.front[v].q.val();
            self.full[v].clock.next = self.clock.val();
            self.full[v].d.next = self.full[v].q.val();
            self.first[v].clock.next = self.clock.val();
            self.tail[v].clock.next = self.clock.val();
            self.tail[v].d.next = self.tail[v].q.val();
            self.count[v].clock.next = self.clock.val();
            self.landing[v].next = self.refilled.q.val() & (self.refilled_vc.q.val().index() == v);
            self.front_now[v].next = self.front[v].q.val();
            self.first_now[v].next = self.first[v].q.val();
            if self.landing[v].val() {
                self.front_now[v].next = self.ram_flit.val();
                self.first_now[v].next = self.ram_next.val();
            }
            self.fronts[v].next = self.front_now[v].val();
            self.ready.next = self
                .ready
                .val()
                .replace_bit(v, self.full[v].q.val() | self.landing[v].val());
            self.waiting.next = self.waiting.val().replace_bit(
                v,
                self.ready.val().get_bit(v)
                    & !self.front_now[v].val().get_bit(self.type_bit.val().index())
                    & self.front_now[v].val().get_bit(self.head_bit.val().index()),
            );
        }
        // The read port.
        self.read.flit.next = self.front_now[0].val();
        self.taken.next = false;
        self.read_more.next = false;
        self.read_first.next = self.first_now[0].val();
        self.left.next = self.no_vcs.val();
        for v in 0..VCS {
            if self.read.vc.val().index() == v {
                self.read.flit.next = self.front_now[v].val();
                self.taken.next = self.read.valid.val() & self.ready.val().get_bit(v);
                self.read_more.next = self.count[v].q.val() != self.zero_count.val();
                self.read_first.next = self.first_now[v].val();
                self.left.next = self.no_vcs.val().replace_bit(v, self.taken.val());
            }
        }
        self.refill.next = self.taken.val() & self.read_more.val();
        // The write port: the bypass, or the list's tail slot with a newly allocated link.
        self.write_empty.next = false;
        self.write_busy.next = false;
        self.write_tail.next = self.tail[0].q.val();
        for v in 0..VCS {
            if self.write.vc.val().index() == v {
                self.write_empty.next = self.count[v].q.val() == self.zero_count.val();
                self.write_busy.next = self.ready.val().get_bit(v) & !self.left.val().get_bit(v);
                self.write_tail.next = self.tail[v].q.val();
            }
        }
        self.bypass.next = self.write.valid.val() & self.write_empty.val() & !self.write_busy.val();
        self.bypassed.next = self.bypass.val();
        self.to_ram.next = self.write.valid.val() & !self.bypass.val();
        self.fresh_left.next = self.fresh.q.val() != self.slots.val();
        self.alloc.next = self.free.source.data.val();
        if self.fresh_left.val() {
            self.alloc.next = bit_cast::<AW, CW>(self.fresh.q.val());
        }
        self.have_slot.next = self.fresh_left.val() | self.free.source.valid.val();
        self.placed.next = self.to_ram.val() & self.have_slot.val();
        self.free.source.ready.next = self.placed.val() & !self.fresh_left.val();
        if self.placed.val() & self.fresh_left.val() {
            self.fresh.d.next = self.fresh.q.val() + 1;
        }
        self.lost.d.next = self.to_ram.val() & !self.have_slot.val();
        // The RAM: refill reads at the first slot, writes at the tail slot.
        self.read_address.next = self.write_tail.val() ^ self.bit0.val();
        if self.refill.val() {
            self.read_address.next = self.read_first.val();
        }
        self.ram.read_address.next = self.read_address.val();
        self.ram.write_address.next = self.write_tail.val();
        self.ram.write_data.next = bit_cast::<WORD_BITS, FLIT_BITS>(self.write.flit.val())
            | (bit_cast::<WORD_BITS, AW>(self.alloc.val()) << self.next_lsb.val());
        self.ram.write_enable.next =
            self.placed.val() & (self.write_tail.val() != self.read_address.val());
        self.free.sink.valid.next = self.refill.val();
        self.free.sink.data.next = self.read_first.val();
        self.refilled.d.next = self.refill.val();
        self.refilled_vc.d.next = self.read.vc.val();
        for v in 0..VCS {
            self.first[v].d.next = self.first_now[v].val();
            if self.landing[v].val() {
                self.front[v].d.next = self.ram_flit.val();
                self.full[v].d.next = true;
            }
            if self.left.val().get_bit(v) {
                self.full[v].d.next = false;
            }
            self.count[v].d.next = self.count[v].q.val();
            if self.write.vc.val().index() == v {
                if self.bypass.val() {
                    self.front[v].d.next = self.write.flit.val();
                    self.full[v].d.next = true;
                }
                if self.placed.val() {
                    self.tail[v].d.next = self.alloc.val();
                    self.count[v].d.next = self.count[v].q.val() + 1;
                }
            }
            if self.refill.val() & (self.read.vc.val().index() == v) {
                self.count[v].d.next = self.count[v].q.val() - 1;
                if self.placed.val() & (self.write.vc.val().index() == v) {
                    self.count[v].d.next = self.count[v].q.val();
                }
            }
            if self.reset.val() {
                self.full[v].d.next = false;
                self.first[v].d.next = self.home[v].val();
                self.tail[v].d.next = self.home[v].val();
                self.count[v].d.next = self.zero_count.val();
            }
        }
        if self.reset.val() {
            self.refilled.d.next = false;
            self.fresh.d.next = self.first_fresh.val();
            self.lost.d.next = false;
        }
    }
}

#[test]
fn damq_store_is_synthesizable() {
    let mut uut = DamqStore::<3, 2, 32, 5, 6>::new();
    uut.connect_all();
    yosys_validate("damq_store", &generate_verilog(&uut)).unwrap();
}
