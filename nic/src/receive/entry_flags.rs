//! `EntryFlags`: the buffer manager's three flags per (function, QP) entry, in flip-flops so
//! every entry is read and written in the same cycle: `valid` (a buffer address is cached),
//! `pending` (its ring read is in flight), `stale` (a refill is wanted and not yet started).
//!
//! Read side (combinational, from the flags' registers): the flags of `take_entry`, and the
//! highest stale entry (`highest_stale`, `any_stale`), the refill's default choice.
//!
//! Write side, per entry, in this order (a later rule wins): the take's entry loses its buffer
//! and goes stale on a `hit`, goes stale on `want_refill`; the `pick`ed entry stops being
//! stale when its refill `started`; the entry being `serving`d turns pending when its read is
//! `posted`; the completed read's entry (`beat_entry`, on `beat_valid`) stops pending and gets
//! its buffer (`good`) or goes stale again (`bad`: an unusable ring entry was skipped).
//! Reset clears every flag. Parameter: `EAW` entry-number bits; elaboration value `entries`.
use rust_hdl::prelude::*;

/// The entries' flags; see the module documentation.
#[derive(LogicBlock)]
pub struct EntryFlags<const EAW: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The waiting take's entry.
    pub take_entry: Signal<In, Bits<EAW>>,
    /// Its `valid` flag.
    pub take_valid: Signal<Out, bool>,
    /// Its `pending` flag.
    pub take_pending: Signal<Out, bool>,
    /// Its `stale` flag.
    pub take_stale: Signal<Out, bool>,
    /// The highest stale entry (0 if none).
    pub highest_stale: Signal<Out, Bits<EAW>>,
    /// Some entry is stale.
    pub any_stale: Signal<Out, bool>,
    /// The take hits its entry's cached buffer on this edge.
    pub hit: Signal<In, bool>,
    /// The take's entry wants a refill.
    pub want_refill: Signal<In, bool>,
    /// The refill of `pick` starts on this edge.
    pub started: Signal<In, bool>,
    /// The entry whose refill starts.
    pub pick: Signal<In, Bits<EAW>>,
    /// A read of entry `serving` is posted on this edge.
    pub posted: Signal<In, bool>,
    /// The entry the ring read works for.
    pub serving: Signal<In, Bits<EAW>>,
    /// A read completes in this cycle for entry `beat_entry`.
    pub beat_valid: Signal<In, bool>,
    /// The completed read's entry.
    pub beat_entry: Signal<In, Bits<EAW>>,
    /// It brought a usable buffer address.
    pub good: Signal<In, bool>,
    /// It brought an unusable ring entry (skipped).
    pub bad: Signal<In, bool>,
    valid: Vec<DFF<bool>>,
    pending: Vec<DFF<bool>>,
    stale: Vec<DFF<bool>>,
    entry_ids: Vec<Constant<Bits<EAW>>>,
}

impl<const EAW: usize> EntryFlags<EAW> {
    /// Flags of `entries` entries (at most `2^EAW`).
    pub fn new(entries: usize) -> Self {
        assert!(entries >= 1 && entries <= 1 << EAW);
        let flags = || {
            (0..entries)
                .map(|_| Default::default())
                .collect::<Vec<DFF<bool>>>()
        };
        Self {
            clock: Default::default(),
            reset: Default::default(),
            take_entry: Default::default(),
            take_valid: Default::default(),
            take_pending: Default::default(),
            take_stale: Default::default(),
            highest_stale: Default::default(),
            any_stale: Default::default(),
            hit: Default::default(),
            want_refill: Default::default(),
            started: Default::default(),
            pick: Default::default(),
            posted: Default::default(),
            serving: Default::default(),
            beat_valid: Default::default(),
            beat_entry: Default::default(),
            good: Default::default(),
            bad: Default::default(),
            valid: flags(),
            pending: flags(),
            stale: flags(),
            entry_ids: (0..entries).map(|i| Constant::new(i.to_bits())).collect(),
        }
    }
}

impl<const EAW: usize> Logic for EntryFlags<EAW> {
    #[hdl_gen]
    fn update(&mut self) {
        self.take_valid.next = false;
        self.take_pending.next = false;
        self.take_stale.next = false;
        self.highest_stale.next = 0.into();
        self.any_stale.next = false;
        for i in 0..self.entry_ids.len() {
            if self.take_entry.val() == self.entry_ids[i].val() {
                self.take_valid.next = self.valid[i].q.val();
                self.take_pending.next = self.pending[i].q.val();
                self.take_stale.next = self.stale[i].q.val();
            }
            if self.stale[i].q.val() {
                self.highest_stale.next = self.entry_ids[i].val();
                self.any_stale.next = true;
            }
        }
        for i in 0..self.entry_ids.len() {
            self.valid[i].clock.next = self.clock.val();
            self.pending[i].clock.next = self.clock.val();
            self.stale[i].clock.next = self.clock.val();
            self.valid[i].d.next = self.valid[i].q.val();
            self.pending[i].d.next = self.pending[i].q.val();
            self.stale[i].d.next = self.stale[i].q.val();
            if self.take_entry.val() == self.entry_ids[i].val() {
                if self.hit.val() {
                    self.valid[i].d.next = false;
                    self.stale[i].d.next = true;
                }
                if self.want_refill.val() {
                    self.stale[i].d.next = true;
                }
            }
            if self.started.val() & (self.pick.val() == self.entry_ids[i].val()) {
                self.stale[i].d.next = false;
            }
            if self.posted.val() & (self.serving.val() == self.entry_ids[i].val()) {
                self.pending[i].d.next = true;
            }
            if self.beat_valid.val() & (self.beat_entry.val() == self.entry_ids[i].val()) {
                self.pending[i].d.next = false;
                if self.good.val() {
                    self.valid[i].d.next = true;
                }
                if self.bad.val() {
                    self.stale[i].d.next = true;
                }
            }
            if self.reset.val() {
                self.valid[i].d.next = false;
                self.pending[i].d.next = false;
                self.stale[i].d.next = false;
            }
        }
    }
}

#[test]
fn entry_flags_is_synthesizable() {
    let mut uut = EntryFlags::<5>::new(32);
    uut.connect_all();
    yosys_validate("entry_flags", &generate_verilog(&uut)).unwrap();
}
