//! `BufferManager`: one cached 2 KB NAP buffer address per (function, QP), filled from the
//! QP's NAP-buffer ring in host memory, handed to [`NapUpload`](super) through the take port
//! and refilled right after each take (`docs/nic-design.md`, "Buffer manager").
//!
//! ```text
//! take (function, QP) ─► entry flags (valid / pending / stale) ─► cache RAM ─► address, index
//!                              │ stale: wants a refill         ▲ good entry
//!                              ▼                               │
//!        pick (the waiting take's entry first) ─► NapRingRead ─┼─► lookup, tag, 8-byte read (host)
//!                                                              │
//! completion (router's NAP output) ─► register ─► tag RAM (entry, lane, ring index) ─► decode
//!                                                      └─► tag free, consumer advance (ring 2)
//! ```
//!
//! **Entries**: `F x Q` (entry `f x Q + q`), each `valid` (an address cached), `pending` (its
//! ring entry's read in flight) or `stale` (a refill is wanted), or none of them (idle: its ring
//! was empty at the last lookup, or a read failed). The addresses (bits 47..11) and ring
//! indices live in a RAM of `2^EAW` words, written as a completion arrives.
//!
//! **Take** ([`NapTakeSink`]: `valid`, `function`, `qp` held until `done`): an entry that is
//! `valid` is answered in the next cycle (`done`, `found`, the buffer's address and its ring
//! index: `consumer mod 2^size` when it was read) and becomes `stale`, so its refill starts at
//! once. A miss waits: if the entry's read is in flight the take waits for its completion
//! (memory latency, never a drop); if it is idle it is made `stale` and its refill goes first.
//! `done` with `found` low ("none posted", the message gets `NoBuffer`) only when a lookup
//! **started after the take arrived** showed the ring empty (or the QP disabled), or when the
//! entry's read failed (an `error` completion). A function or QP beyond the configuration is
//! answered "none" at once. One take at a time; at best one every 2 cycles.
//!
//! **Refill** ([`NapRingRead`]): lookup, tag (owner `NAP_BUFFER_OWNER`), the 8-byte read of
//! entry `consumer mod 2^size` at `base + 8 x index`; one refill at a time, 3 cycles each with
//! everything ready. The consumer pointer is **not** moved by the read: the completion moves it.
//!
//! **Completion** (one cycle later, after a register and the tag RAM's read), its tag always
//! freed:
//! - a good entry (bits 10..0 and 63..48 zero: a 2 KB-aligned 48-bit address): the address is
//!   cached, the entry `valid`, the QP's NAP-ring consumer advanced (`advance`, ring 2);
//! - a **bad entry** (not 2 KB aligned, or above the 48-bit address space): `bad_entry`
//!   pulses, the consumer is advanced (the entry is consumed: software wrote something the NIC
//!   cannot use, and skipping it keeps the ring moving), and the entry is made `stale` again,
//!   so the next posted buffer is read (a take waiting meanwhile keeps waiting);
//! - an `error` completion: `read_error` pulses, the consumer is **not** advanced (the buffer
//!   is still software's), the entry goes idle, and a take waiting on it is answered "none"
//!   (`NoBuffer`), so a host that cannot serve the ring never hangs the receive path.
//!
//! **Prefetch**: none at reset (every entry idle: the QPs are disabled and their rings unset
//! then); the first take of each QP after software opens it is a miss. After that each take
//! refills its entry at once.
//!
//! **Children**: [`NapRingRead`] (the refill step), [`EntryFlags`] (`entry_flags.rs`: the
//! three flags of every entry, in flip-flops), [`RefillBeat`] (`refill_beat.rs`: the
//! completion registered and decoded, the tag freed, the consumer advanced).
//!
//! **Completions** are never back-pressured (`completion.ready` high): one read per entry at
//! most, and each beat is taken in the cycle it arrives.
//!
//! **Reset** (synchronous): every entry idle, the take and refill sequences idle. Reads in
//! flight are forgotten (the pool and the host are reset with the NIC).
//!
//! **Known limit**: a QP disabled and enabled again keeps the address cached from before (its
//! ring restarts at entry 0, the NIC's consumer being held at zero while disabled); software
//! must not reuse a buffer it posted to a QP it closed, until the NIC is reset.
//!
//! Parameters: `EAW` entry address bits (`F x Q <= 2^EAW`, `Q` a power of two); elaboration
//! values functions and QPs per function.
use super::entry_flags::EntryFlags;
use super::nap_ring_read::NapRingRead;
use super::refill_beat::RefillBeat;
use crate::function_table::{PointerAdvanceSource, QpLookupSource};
use crate::host::{ReadCompletionSink, ReadRequestSource, TAG_BITS};
use crate::regs::RING_POINTER_BITS;
use crate::tag_pool::{TagAllocSink, TagFreeSource};
use hdl::formats::nic::{ADDRESS_BITS, FUNCTION_BITS, QP_BITS};
use rust_hdl::prelude::*;

/// Bits of a cached address (its bits 47..11: the buffer is 2 KB aligned).
pub const BUFFER_ADDRESS_BITS: usize = ADDRESS_BITS - 11;
/// Bits of a cache RAM word: the address's bits 47..11 above the ring index.
pub const CACHE_WORD_BITS: usize = BUFFER_ADDRESS_BITS + RING_POINTER_BITS;
/// Bits of a tag RAM word: the entry (8 bits), the lane (1), the ring index (16).
pub const TAG_INFO_BITS: usize = 8 + 1 + RING_POINTER_BITS;

/// The take port, at `NapUpload`: a (function, QP) asks for its buffer; held until `done`.
#[derive(LogicInterface, Default)]
#[join = "NapTakeSink"]
pub struct NapTakeSource {
    /// A buffer is asked for (held with the fields until `done`).
    pub valid: Signal<Out, bool>,
    /// The function.
    pub function: Signal<Out, Bits<FUNCTION_BITS>>,
    /// The QP.
    pub qp: Signal<Out, Bits<QP_BITS>>,
    /// The answer is here (one cycle): the take is over.
    pub done: Signal<In, bool>,
    /// With `done`: a buffer was taken (else none is posted: `NoBuffer`).
    pub found: Signal<In, bool>,
    /// With `found`: the buffer's host address (2 KB aligned).
    pub address: Signal<In, Bits<ADDRESS_BITS>>,
    /// With `found`: its ring index (`consumer mod 2^size` when read).
    pub index: Signal<In, Bits<RING_POINTER_BITS>>,
}

/// The take port, at the buffer manager.
#[derive(LogicInterface, Default)]
#[join = "NapTakeSource"]
pub struct NapTakeSink {
    /// A buffer is asked for.
    pub valid: Signal<In, bool>,
    /// The function.
    pub function: Signal<In, Bits<FUNCTION_BITS>>,
    /// The QP.
    pub qp: Signal<In, Bits<QP_BITS>>,
    /// The answer is here.
    pub done: Signal<Out, bool>,
    /// A buffer was taken.
    pub found: Signal<Out, bool>,
    /// The buffer's address.
    pub address: Signal<Out, Bits<ADDRESS_BITS>>,
    /// Its ring index.
    pub index: Signal<Out, Bits<RING_POINTER_BITS>>,
}

/// Where the take sequence is.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum TakeState {
    /// Looking at the take's entry every cycle.
    Look,
    /// A hit: the cache RAM's word arrives in this cycle.
    Answer,
}

/// The buffer manager; see the module documentation.
#[derive(LogicBlock)]
pub struct BufferManager<const EAW: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Buffer takes from the NAP upload.
    pub take: NapTakeSink,
    /// QP lookups (the NAP ring's base, size, pointers).
    pub lookup: QpLookupSource,
    /// Tag allocation (owner `NAP_BUFFER_OWNER`).
    pub tag_alloc: TagAllocSink,
    /// Tags given back.
    pub tag_free: TagFreeSource,
    /// Ring entry reads.
    pub read: ReadRequestSource,
    /// Their completions (the completion router's NAP output; always taken).
    pub completion: ReadCompletionSink,
    /// The NAP ring's consumer advanced per entry consumed.
    pub advance: PointerAdvanceSource,
    /// A ring entry's read failed (pulse, for a counter).
    pub read_error: Signal<Out, bool>,
    /// A ring entry held no usable 2 KB-aligned address (pulse, for a counter).
    pub bad_entry: Signal<Out, bool>,
    ring_read: NapRingRead<EAW>,
    cache: RAM<Bits<CACHE_WORD_BITS>, EAW>,
    tag_info: RAM<Bits<TAG_INFO_BITS>, TAG_BITS>,
    flags: EntryFlags<EAW>,
    state: DFF<TakeState>,
    /// A lookup of the waiting take's entry started after the take arrived.
    fresh: DFF<bool>,
    beat: RefillBeat<EAW>,
    // The take's entry and its flags.
    take_entry: Signal<Local, Bits<EAW>>,
    take_owned: Signal<Local, bool>,
    take_function_ok: Signal<Local, bool>,
    take_serving: Signal<Local, bool>,
    hit: Signal<Local, bool>,
    want_refill: Signal<Local, bool>,
    none_posted: Signal<Local, bool>,
    // The refill's choice.
    pick: Signal<Local, Bits<EAW>>,
    any_stale: Signal<Local, bool>,
    /// The tag record's lane bit.
    lane_bits: Signal<Local, Bits<TAG_INFO_BITS>>,
    started: Signal<Local, bool>,
    function_ids: Vec<Constant<Bits<FUNCTION_BITS>>>,
    lane_flag: Constant<Bits<TAG_INFO_BITS>>,
    qp_shift: Constant<Bits<4>>,
    qp_mask: Constant<Bits<EAW>>,
}

impl<const EAW: usize> BufferManager<EAW> {
    /// The manager of `functions` functions of `qps` QPs (`qps` a power of two, `functions x
    /// qps <= 2^EAW`, at most 256 entries).
    pub fn new(functions: usize, qps: usize) -> Self {
        assert!(
            qps.is_power_of_two()
                && (1..=8).contains(&functions)
                && qps <= 16
                && functions * qps <= 1 << EAW
                && EAW <= 8,
            "BufferManager<EAW = {EAW}>: {functions} functions of {qps} QPs must fit"
        );
        let n = functions * qps;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            take: Default::default(),
            lookup: Default::default(),
            tag_alloc: Default::default(),
            tag_free: Default::default(),
            read: Default::default(),
            completion: Default::default(),
            advance: Default::default(),
            read_error: Default::default(),
            bad_entry: Default::default(),
            ring_read: Default::default(),
            cache: Default::default(),
            tag_info: Default::default(),
            flags: EntryFlags::new(n),
            state: Default::default(),
            fresh: Default::default(),
            beat: RefillBeat::new(qps),
            take_entry: Default::default(),
            take_owned: Default::default(),
            take_function_ok: Default::default(),
            take_serving: Default::default(),
            hit: Default::default(),
            want_refill: Default::default(),
            none_posted: Default::default(),
            pick: Default::default(),
            any_stale: Default::default(),
            lane_bits: Default::default(),
            started: Default::default(),
            function_ids: (0..functions).map(|f| Constant::new(f.to_bits())).collect(),
            lane_flag: Constant::new((1usize << 8).to_bits()),
            qp_shift: Constant::new((qps.trailing_zeros() as usize).to_bits()),
            qp_mask: Constant::new((qps - 1).to_bits()),
        }
    }
}

impl<const EAW: usize> Logic for BufferManager<EAW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, fresh);
        clock!(self, clock, ring_read, flags, beat);
        self.beat.reset.next = self.reset.val();
        self.ring_read.reset.next = self.reset.val();
        self.flags.reset.next = self.reset.val();
        QpLookupSource::link(&mut self.lookup, &mut self.ring_read.lookup);
        TagAllocSink::link(&mut self.tag_alloc, &mut self.ring_read.tag);
        ReadRequestSource::link(&mut self.read, &mut self.ring_read.read);
        self.cache.read_clock.next = self.clock.val();
        self.cache.write_clock.next = self.clock.val();
        self.tag_info.read_clock.next = self.clock.val();
        self.tag_info.write_clock.next = self.clock.val();

        // The take's entry and its flags.
        self.take_entry.next = (bit_cast::<EAW, FUNCTION_BITS>(self.take.function.val())
            << self.qp_shift.val())
            | bit_cast::<EAW, QP_BITS>(self.take.qp.val());
        // A function beyond the configuration matches no id (no `<=`: with 8 functions of 3
        // bits it would compare against a constant).
        self.take_function_ok.next = false;
        for f in 0..self.function_ids.len() {
            if self.take.function.val() == self.function_ids[f].val() {
                self.take_function_ok.next = true;
            }
        }
        self.take_owned.next =
            self.take_function_ok.val() & !(self.take.qp.val() >> self.qp_shift.val()).any();
        // The highest stale entry, unless the waiting take's entry is stale (below).
        self.flags.take_entry.next = self.take_entry.val();
        self.pick.next = self.flags.highest_stale.val();
        self.any_stale.next = self.flags.any_stale.val();
        self.take_serving.next =
            self.ring_read.busy.val() & (self.ring_read.serving.val() == self.take_entry.val());
        if self.take.valid.val() & self.take_owned.val() & self.flags.take_stale.val() {
            self.pick.next = self.take_entry.val();
        }

        // The completion: registered, then decoded with its tag's record (`RefillBeat`).
        ReadCompletionSink::link(&mut self.completion, &mut self.beat.completion);
        TagFreeSource::link(&mut self.tag_free, &mut self.beat.tag_free);
        PointerAdvanceSource::link(&mut self.advance, &mut self.beat.advance);
        self.tag_info.read_address.next = self.completion.tag.val();
        self.beat.record.next = self.tag_info.read_data.val();
        self.read_error.next = self.beat.failed.val();
        self.bad_entry.next = self.beat.bad.val();
        self.cache.write_address.next = self.beat.entry.val();
        self.cache.write_data.next = self.beat.cache_data.val();
        self.cache.write_enable.next = self.beat.good.val();

        // The refill: the picked entry's lookup; a posted read's record by its tag.
        self.ring_read.start_valid.next = self.any_stale.val();
        self.ring_read.start_entry.next = self.pick.val();
        self.ring_read.start_function.next =
            bit_cast::<FUNCTION_BITS, EAW>(self.pick.val() >> self.qp_shift.val());
        self.ring_read.start_qp.next =
            bit_cast::<QP_BITS, EAW>(self.pick.val() & self.qp_mask.val());
        self.started.next = self.any_stale.val() & self.ring_read.start_ready.val();
        self.tag_info.write_address.next = self.read.tag.val();
        self.lane_bits.next = 0.into();
        if self.ring_read.posted_lane.val() {
            self.lane_bits.next = self.lane_flag.val();
        }
        self.tag_info.write_data.next =
            (bit_cast::<TAG_INFO_BITS, RING_POINTER_BITS>(self.ring_read.posted_index.val()) << 9)
                | self.lane_bits.val()
                | bit_cast::<TAG_INFO_BITS, EAW>(self.ring_read.serving.val());
        self.tag_info.write_enable.next = self.ring_read.posted.val();

        // The take.
        self.cache.read_address.next = self.take_entry.val();
        self.take.done.next = false;
        self.take.found.next = false;
        self.take.address.next = bit_cast::<ADDRESS_BITS, BUFFER_ADDRESS_BITS>(
            self.cache
                .read_data
                .val()
                .get_bits::<BUFFER_ADDRESS_BITS>(16),
        ) << 11;
        self.take.index.next = self.cache.read_data.val().get_bits::<RING_POINTER_BITS>(0);
        self.hit.next = false;
        self.want_refill.next = false;
        self.none_posted.next = (self.fresh.q.val()
            & self.ring_read.empty.val()
            & (self.ring_read.serving.val() == self.take_entry.val()))
            | (self.beat.failed.val() & (self.beat.entry.val() == self.take_entry.val()));
        match self.state.q.val() {
            TakeState::Look => {
                if self.take.valid.val() {
                    if !self.take_owned.val() {
                        self.take.done.next = true;
                    } else if self.flags.take_valid.val() {
                        self.hit.next = true;
                        self.state.d.next = TakeState::Answer;
                    } else if self.none_posted.val() {
                        self.take.done.next = true;
                    } else if !self.flags.take_pending.val()
                        & !self.flags.take_stale.val()
                        & !self.take_serving.val()
                    {
                        self.want_refill.next = true;
                    }
                }
            }
            TakeState::Answer => {
                self.take.done.next = true;
                self.take.found.next = true;
                self.state.d.next = TakeState::Look;
            }
        }
        if self.started.val() & self.take.valid.val() & (self.pick.val() == self.take_entry.val()) {
            self.fresh.d.next = true;
        }
        if self.take.done.val() | !self.take.valid.val() {
            self.fresh.d.next = false;
        }

        // The entries' flags.
        self.flags.hit.next = self.hit.val();
        self.flags.want_refill.next = self.want_refill.val();
        self.flags.started.next = self.started.val();
        self.flags.pick.next = self.pick.val();
        self.flags.posted.next = self.ring_read.posted.val();
        self.flags.serving.next = self.ring_read.serving.val();
        self.flags.beat_valid.next = self.beat.decoded.val();
        self.flags.beat_entry.next = self.beat.entry.val();
        self.flags.good.next = self.beat.good.val();
        self.flags.bad.next = self.beat.bad.val();
        if self.reset.val() {
            self.state.d.next = TakeState::Look;
            self.fresh.d.next = false;
            self.take.done.next = false;
            self.ring_read.start_valid.next = false;
            self.cache.write_enable.next = false;
            self.tag_info.write_enable.next = false;
            self.read_error.next = false;
            self.bad_entry.next = false;
        }
    }
}

#[test]
fn buffer_manager_is_synthesizable() {
    let mut uut = BufferManager::<5>::new(8, 4);
    uut.connect_all();
    yosys_validate("buffer_manager", &generate_verilog(&uut)).unwrap();
}
