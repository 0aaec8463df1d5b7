//! `CounterRam`: many event counters and level peaks in one block RAM, behind a register
//! request/response port: what a chip with hundreds of per-port counters uses instead of a
//! [`CounterBank`](super::counter_bank::CounterBank) of flip-flops (a 32-bit counter in
//! flip-flops costs 32 of them, its adder and its share of the read multiplexer; here a counter
//! costs a small pre-counter and a RAM word).
//!
//! **Layout.** `G` groups (a router's ports) of `K` slots, at addresses `base + g * 2^KW + k`
//! (`k < K <= 2^KW`; the rest of each group's window is unmapped). In each group the first `C`
//! slots are **counters** (bit `g * C + c` of `events`: one event per cycle at most,
//! saturating at 2^32 - 1, never wrapping) and the next `L = K - C` are **peaks** (bits
//! `(g * L + l) * LW ..` of `levels`: the highest value the level had). Any write clears a slot (the data is ignored), as a
//! register file's counters; a read returns it zero-extended to `D` bits.
//!
//! **Sweep.** The values live in a RAM of 32-bit words. Each counter slot has a `PW`-bit
//! pre-counter of the events since the slot was last swept, each peak slot a register of the
//! highest level since then. A sweep visits one slot per cycle, in address order, endlessly
//! (a period of `G * K` cycles): in cycle `t` it reads the slot's word and takes its pre-counter
//! (which restarts with this cycle's event) or its highest level (which restarts with this
//! cycle's level); in `t + 1` it writes back the word plus the events (saturating) or the
//! higher of the word and the level. So no event is ever lost: a pre-counter holds at most
//! `G * K` events (`PW` is checked at elaboration) and the RAM is written only by the sweep.
//!
//! **Requests** are served by the sweep: a request is taken when none is in progress, and
//! waits for the sweep to reach its slot; a read is then answered with the value the sweep
//! writes back (exact: every event up to the sweep's cycle `t` counted), a write clears the
//! slot at that moment (events before it are forgotten, events from cycle `t` on are counted).
//! The response is offered in the cycle after the write-back and held until taken, so a
//! request is answered **between 2 and `G * K + 2` cycles after it was taken**; one request
//! at a time. An address outside the layout is answered at once (the next cycle) with
//! [`RegError::Unmapped`] and data zero.
//!
//! **Reset** (synchronous): pre-counters and highest levels zero, no request, no response, and
//! the first sweep after it writes every slot as if its word were zero (a RAM cannot be
//! cleared in one cycle); reads during that sweep already see zero plus what came since the
//! reset. `request.ready` is low in reset cycles.
//!
//! Parameters: `A` address bits and `D` data bits of the ports (`D >= 32`), `RA` RAM address
//! bits (`G * 2^KW <= 2^RA`), `KW` bits of a slot within its group, `PW` pre-counter bits, `LW`
//! level bits, `N` = `G * C` event bits, `LV` = `G * L * LW` level bits; elaboration values in
//! [`CounterRamLayout`].
use super::port::{RegError, RegRequestSink, RegResponseSource, ERROR_BITS};
use rust_hdl::prelude::*;

/// Bits of a stored value: counters saturate at 2^32 - 1.
pub const COUNTER_RAM_BITS: usize = 32;

/// The slots of a [`CounterRam`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterRamLayout {
    /// Address of group 0's slot 0.
    pub base: u64,
    /// Groups.
    pub groups: usize,
    /// Counter slots per group (first).
    pub counters: usize,
    /// Peak slots per group (after the counters).
    pub peaks: usize,
}

impl CounterRamLayout {
    /// Slots per group.
    pub fn slots(&self) -> usize {
        self.counters + self.peaks
    }
    /// Pre-counter bits this layout needs: enough for one event per cycle over a sweep.
    pub fn pre_bits(&self) -> usize {
        crate::bits::count_bits(self.groups * self.slots())
    }
}

/// Counters and peaks in a block RAM; see the module documentation.
#[derive(LogicBlock)]
pub struct CounterRam<
    const A: usize,
    const D: usize,
    const RA: usize,
    const KW: usize,
    const PW: usize,
    const LW: usize,
    const N: usize,
    const LV: usize,
> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Register requests.
    pub request: RegRequestSink<A, D>,
    /// One response per request, in order.
    pub response: RegResponseSource<D>,
    /// Bit `g * C + c`: one event for group `g`'s counter `c` in this cycle.
    pub events: Signal<In, Bits<N>>,
    /// Bits `(g * L + l) * LW ..`: group `g`'s level `l` now.
    pub levels: Signal<In, Bits<LV>>,
    ram: RAM<Bits<COUNTER_RAM_BITS>, RA>,
    /// Per counter slot: events since it was last swept.
    pre: Vec<DFF<Bits<PW>>>,
    /// Per peak slot: the highest level since it was last swept.
    high: Vec<DFF<Bits<LW>>>,
    /// The sweep's slot: group and slot within it.
    group: DFF<Bits<RA>>,
    slot: DFF<Bits<KW>>,
    /// The first sweep after reset: the RAM's words count as zero.
    clearing: DFF<bool>,
    /// Write-back stage: valid, address, a peak, what to add or compare, clearing, the request
    /// in progress is this slot's.
    back_valid: DFF<bool>,
    back_address: DFF<Bits<RA>>,
    back_peak: DFF<bool>,
    back_count: DFF<Bits<PW>>,
    back_level: DFF<Bits<LW>>,
    back_clearing: DFF<bool>,
    back_request: DFF<bool>,
    /// The request in progress: its slot's RAM address, a write.
    pending: DFF<bool>,
    pending_address: DFF<Bits<RA>>,
    pending_write: DFF<bool>,
    /// The response register.
    answered: DFF<bool>,
    answer: DFF<Bits<D>>,
    failure: DFF<Bits<ERROR_BITS>>,
    /// Per counter / peak slot: its RAM address.
    counter_addresses: Vec<Constant<Bits<RA>>>,
    peak_addresses: Vec<Constant<Bits<RA>>>,
    /// Per peak slot: its level's position in `levels`.
    level_offsets: Vec<Constant<Bits<16>>>,
    base: Constant<Bits<A>>,
    /// The first address past the layout (`end` is a Verilog keyword).
    past: Constant<Bits<A>>,
    slot_mask: Constant<Bits<A>>,
    slots: Constant<Bits<A>>,
    last_slot: Constant<Bits<KW>>,
    last_group: Constant<Bits<RA>>,
    /// Slot index of the first peak.
    first_peak: Constant<Bits<KW>>,
    slot_shift: Constant<Bits<8>>,
    saturated: Constant<Bits<COUNTER_RAM_BITS>>,
    one: Constant<Bits<PW>>,
    /// The carry out of a word's sum.
    carry_bit: Constant<Bits<8>>,
    error_none: Constant<Bits<ERROR_BITS>>,
    error_unmapped: Constant<Bits<ERROR_BITS>>,
    /// A write's data: any write clears, whatever it carries (acknowledged unused).
    unused_write_data: Signal<Local, bool>,
    /// The sweep's RAM address now.
    here: Signal<Local, Bits<RA>>,
    /// The sweep's slot now is a peak; its pre-counter or highest level.
    here_peak: Signal<Local, bool>,
    here_count: Signal<Local, Bits<PW>>,
    here_level: Signal<Local, Bits<LW>>,
    /// The level of the peak slot at hand in the loop.
    level_now: Signal<Local, Bits<LW>>,
    /// The word read, as the write-back sees it (zero while clearing).
    word: Signal<Local, Bits<COUNTER_RAM_BITS>>,
    sum: Signal<Local, Bits<33>>,
    /// The word written back.
    updated: Signal<Local, Bits<COUNTER_RAM_BITS>>,
    /// The request offered: its offset from `base`, inside the layout, taken now.
    offset: Signal<Local, Bits<A>>,
    mapped: Signal<Local, bool>,
    accept: Signal<Local, bool>,
}

impl<
        const A: usize,
        const D: usize,
        const RA: usize,
        const KW: usize,
        const PW: usize,
        const LW: usize,
        const N: usize,
        const LV: usize,
    > CounterRam<A, D, RA, KW, PW, LW, N, LV>
{
    /// The block for `layout`. Panics naming the parameter if the widths do not fit it.
    pub fn new(layout: CounterRamLayout) -> Self {
        let k = layout.slots();
        assert!(
            (32..=64).contains(&D),
            "CounterRam: D (data bits) must be 32..=64, got {D}"
        );
        assert!(
            k >= 1 && k <= 1 << KW,
            "CounterRam: {k} slots per group do not fit KW = {KW}"
        );
        assert!(
            layout.groups >= 1 && layout.groups << KW <= 1 << RA,
            "CounterRam: {} groups of 2^{KW} slots do not fit RA = {RA}",
            layout.groups
        );
        assert!(
            layout.groups * k >= 2,
            "CounterRam: at least 2 slots (the sweep writes one while it reads the next)"
        );
        assert!(
            PW >= layout.pre_bits(),
            "CounterRam: PW = {PW} pre-counter bits cannot hold a sweep's {} events",
            layout.groups * k
        );
        assert!(
            LW <= COUNTER_RAM_BITS,
            "CounterRam: LW = {LW} is wider than a word"
        );
        assert_eq!(N, layout.groups * layout.counters, "CounterRam: N = G * C");
        assert_eq!(
            LV,
            layout.groups * layout.peaks * LW,
            "CounterRam: LV = G * L * LW"
        );
        let end = layout.base + ((layout.groups as u64) << KW);
        assert!(end <= 1 << A, "CounterRam: the layout ends past 2^{A}");
        let addr = |g: usize, s: usize| Constant::new(Bits::<RA>::from(((g << KW) + s) as u64));
        let counter_addresses = (0..layout.groups)
            .flat_map(|g| (0..layout.counters).map(move |c| (g, c)))
            .map(|(g, c)| addr(g, c))
            .collect();
        let peak_addresses = (0..layout.groups)
            .flat_map(|g| (0..layout.peaks).map(move |l| (g, l)))
            .map(|(g, l)| addr(g, layout.counters + l))
            .collect();
        Self {
            clock: Default::default(),
            reset: Default::default(),
            request: Default::default(),
            response: Default::default(),
            events: Default::default(),
            levels: Default::default(),
            ram: Default::default(),
            pre: (0..layout.groups * layout.counters)
                .map(|_| Default::default())
                .collect(),
            high: (0..layout.groups * layout.peaks)
                .map(|_| Default::default())
                .collect(),
            group: Default::default(),
            slot: Default::default(),
            clearing: Default::default(),
            back_valid: Default::default(),
            back_address: Default::default(),
            back_peak: Default::default(),
            back_count: Default::default(),
            back_level: Default::default(),
            back_clearing: Default::default(),
            back_request: Default::default(),
            pending: Default::default(),
            pending_address: Default::default(),
            pending_write: Default::default(),
            answered: Default::default(),
            answer: Default::default(),
            failure: Default::default(),
            counter_addresses,
            peak_addresses,
            level_offsets: (0..layout.groups * layout.peaks)
                .map(|i| Constant::new(((i * LW) as u64).into()))
                .collect(),
            base: Constant::new(layout.base.into()),
            past: Constant::new(end.into()),
            slot_mask: Constant::new(((1u64 << KW) - 1).into()),
            slots: Constant::new((k as u64).into()),
            last_slot: Constant::new(((k - 1) as u64).into()),
            last_group: Constant::new(((layout.groups - 1) as u64).into()),
            first_peak: Constant::new((layout.counters as u64).into()),
            slot_shift: Constant::new((KW as u64).into()),
            saturated: Constant::new(((1u64 << COUNTER_RAM_BITS) - 1).into()),
            one: Constant::new(1u64.into()),
            carry_bit: Constant::new((COUNTER_RAM_BITS as u64).into()),
            error_none: Constant::new(RegError::None.bits()),
            error_unmapped: Constant::new(RegError::Unmapped.bits()),
            unused_write_data: Default::default(),
            here: Default::default(),
            here_peak: Default::default(),
            here_count: Default::default(),
            here_level: Default::default(),
            level_now: Default::default(),
            word: Default::default(),
            sum: Default::default(),
            updated: Default::default(),
            offset: Default::default(),
            mapped: Default::default(),
            accept: Default::default(),
        }
    }
}

impl<
        const A: usize,
        const D: usize,
        const RA: usize,
        const KW: usize,
        const PW: usize,
        const LW: usize,
        const N: usize,
        const LV: usize,
    > Logic for CounterRam<A, D, RA, KW, PW, LW, N, LV>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            group,
            slot,
            clearing,
            back_valid,
            back_address,
            back_peak,
            back_count,
            back_level,
            back_clearing,
            back_request,
            pending,
            pending_address,
            pending_write,
            answered,
            answer,
            failure
        );
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.unused_write_data.next = self.request.data.val().any();
        // The sweep: this cycle's slot is read, its pre-counter or highest level taken.
        self.here.next =
            (self.group.q.val() << self.slot_shift.val()) | bit_cast::<RA, KW>(self.slot.q.val());
        self.here_peak.next = self.slot.q.val() >= self.first_peak.val();
        self.ram.read_address.next = self.here.val();
        self.here_count.next = 0.into();
        for i in 0..self.pre.len() {
            self.pre[i].clock.next = self.clock.val();
            self.pre[i].d.next = self.pre[i].q.val();
            if self.events.val().get_bit(i) {
                self.pre[i].d.next = self.pre[i].q.val() + 1;
            }
            if self.here.val() == self.counter_addresses[i].val() {
                self.here_count.next = self.pre[i].q.val();
                self.pre[i].d.next = 0.into();
                if self.events.val().get_bit(i) {
                    self.pre[i].d.next = self.one.val();
                }
            }
            if self.reset.val() {
                self.pre[i].d.next = 0.into();
            }
        }
        self.here_level.next = 0.into();
        for i in 0..self.high.len() {
            self.high[i].clock.next = self.clock.val();
            self.high[i].d.next = self.high[i].q.val();
            self.level_now.next = self
                .levels
                .val()
                .get_bits::<LW>(self.level_offsets[i].val().index());
            if self.level_now.val() > self.high[i].q.val() {
                self.high[i].d.next = self.level_now.val();
            }
            if self.here.val() == self.peak_addresses[i].val() {
                self.here_level.next = self.high[i].q.val();
                self.high[i].d.next = self.level_now.val();
            }
            if self.reset.val() {
                self.high[i].d.next = 0.into();
            }
        }
        // Next slot.
        if self.slot.q.val() == self.last_slot.val() {
            self.slot.d.next = 0.into();
            if self.group.q.val() == self.last_group.val() {
                self.group.d.next = 0.into();
                self.clearing.d.next = false;
            } else {
                self.group.d.next = self.group.q.val() + 1;
            }
        } else {
            self.slot.d.next = self.slot.q.val() + 1;
        }
        self.back_valid.d.next = true;
        self.back_address.d.next = self.here.val();
        self.back_peak.d.next = self.here_peak.val();
        self.back_count.d.next = self.here_count.val();
        self.back_level.d.next = self.here_level.val();
        self.back_clearing.d.next = self.clearing.q.val();
        self.back_request.d.next =
            self.pending.q.val() & (self.pending_address.q.val() == self.here.val());
        // Write-back: the word plus the events, or the higher of the word and the level.
        self.word.next = self.ram.read_data.val();
        if self.back_clearing.q.val() {
            self.word.next = 0.into();
        }
        self.sum.next = bit_cast::<33, COUNTER_RAM_BITS>(self.word.val())
            + bit_cast::<33, PW>(self.back_count.q.val());
        self.updated.next = self.sum.val().get_bits::<COUNTER_RAM_BITS>(0);
        if self.sum.val().get_bit(self.carry_bit.val().index()) {
            self.updated.next = self.saturated.val();
        }
        if self.back_peak.q.val() {
            self.updated.next = self.word.val();
            if bit_cast::<COUNTER_RAM_BITS, LW>(self.back_level.q.val()) > self.word.val() {
                self.updated.next = bit_cast::<COUNTER_RAM_BITS, LW>(self.back_level.q.val());
            }
        }
        self.ram.write_address.next = self.back_address.q.val();
        self.ram.write_enable.next = self.back_valid.q.val();
        self.ram.write_data.next = self.updated.val();
        // Requests: taken when none is in progress; unmapped ones answered at once.
        self.offset.next = self.request.address.val() - self.base.val();
        self.mapped.next = (self.request.address.val() >= self.base.val())
            & (self.request.address.val() < self.past.val())
            & ((self.offset.val() & self.slot_mask.val()) < self.slots.val());
        self.request.ready.next =
            !self.pending.q.val() & !self.answered.q.val() & !self.reset.val();
        self.accept.next = self.request.valid.val() & self.request.ready.val();
        if self.accept.val() {
            if self.mapped.val() {
                self.pending.d.next = true;
                self.pending_address.d.next = self.offset.val().get_bits::<RA>(0);
                self.pending_write.d.next = self.request.write.val();
            } else {
                self.answered.d.next = true;
                self.answer.d.next = 0.into();
                self.failure.d.next = self.error_unmapped.val();
            }
        }
        if self.back_valid.q.val() & self.back_request.q.val() {
            self.pending.d.next = false;
            self.answered.d.next = true;
            self.failure.d.next = self.error_none.val();
            self.answer.d.next = bit_cast::<D, COUNTER_RAM_BITS>(self.updated.val());
            if self.pending_write.q.val() {
                self.answer.d.next = 0.into();
                self.ram.write_data.next = 0.into();
            }
        }
        if self.response.ready.val() & self.answered.q.val() {
            self.answered.d.next = false;
        }
        self.response.valid.next = self.answered.q.val();
        self.response.data.next = self.answer.q.val();
        self.response.error.next = self.failure.q.val();
        if self.reset.val() {
            self.group.d.next = 0.into();
            self.slot.d.next = 0.into();
            self.clearing.d.next = true;
            self.back_valid.d.next = false;
            self.back_request.d.next = false;
            self.pending.d.next = false;
            self.answered.d.next = false;
        }
    }
}

#[test]
fn counter_ram_is_synthesizable() {
    let layout = CounterRamLayout {
        base: 0x40,
        groups: 3,
        counters: 3,
        peaks: 2,
    };
    let mut uut = CounterRam::<8, 64, 5, 3, 4, 8, 9, 48>::new(layout);
    uut.connect_all();
    yosys_validate("counter_ram", &generate_verilog(&uut)).unwrap();
}
