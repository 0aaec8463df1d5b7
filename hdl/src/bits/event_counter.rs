//! Saturating event counter: counts one-cycle event pulses (`pulse`) up to the largest value
//! of its width, and stays there (it never wraps, so a counter read as full means "at least
//! this many", never "a few after a wrap").
//!
//! Cycle rules, all on the rising edge:
//! - `pulse` high adds one, unless the count is already at its maximum `2^width - 1`;
//! - `clear` high sets the count to zero, except that a `pulse` in the same cycle is not lost:
//!   the count is then 1 (the event happened after the old count was read and cleared);
//! - `reset` high sets the count to zero and wins over both (a pulse in a reset cycle is not
//!   counted). The all-zero power-up state is the reset state.
//!
//! `value` is the register itself (no logic after the flip-flops).
//!
//! Structure, for cost and speed on iCE40 (Yosys `synth_ice40`, nextpnr; figures for the 24
//! counters, 664 bits, of `regfile_sample` inside its register file):
//! - the count is cut into chunks of [`CHUNK`] bits, each incremented by its own carry chain;
//!   chunk `k` counts when every chunk below it is all ones, which each chunk's chain gives
//!   for free as its carry out, and the count is full when every chunk is. The all-ones flags
//!   of chunks 1 and up are read through flip-flops (exact where used: see `update`), so only
//!   chunk 0's chain and one LUT stand before the flip-flops' enables. Measured on the
//!   register file (`make bench`, `bench regfile`, median of 3 seeds): one 48-bit chain,
//!   74.6 MHz; chunks of 16 bits without the flip-flops, 91.8 MHz; chunks of 8 with the
//!   flags chained from chunk to chunk before one flip-flop, 93.2 MHz; as here, 105.1 MHz;
//! - the all-ones test is that carry out, not a compare: a `width`-bit compare cost 911 LUTs
//!   for the counters alone against 688;
//! - bit 0 is a flip-flop of its own (`lowest`). A clear sets bits 1 and up to zero, which
//!   Yosys maps to their flip-flops' synchronous reset (`reset | clear`, one LUT per chunk),
//!   while bit 0 takes `pulse`. With the count in one word, bit 0 kept Yosys from seeing the
//!   clear as a reset of the word, and inside the register file (where `clear` is a function
//!   of several signals that did not fit the carry cell's spare LUT input) every bit spent a
//!   second LUT on it: 1358 LUTs against 731.
//!
//! Parameters: `D` width of `value` (1..=64, the register file's data width); `width`, given
//! to [`EventCounter::new`], is the counter's own width (1..=`D`): the bits of `value` above it
//! are always zero, and synthesis removes their flip-flops (their next value is a constant
//! zero, the reset value).
use rust_hdl::prelude::*;

/// Bits per carry chain of an [`EventCounter`].
pub const CHUNK: usize = 8;

/// A saturating counter of event pulses, `width` bits, cleared by `clear`.
#[derive(LogicBlock)]
pub struct EventCounter<const D: usize> {
    /// Clock of the count.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: count to zero (wins over `pulse` and `clear`).
    pub reset: Signal<In, bool>,
    /// One event happened this cycle (`event` is a Verilog keyword).
    pub pulse: Signal<In, bool>,
    /// Set the count to zero on this edge (to 1 if `pulse` is high too).
    pub clear: Signal<In, bool>,
    /// The count, `0 ..= 2^width - 1`, zero-extended to `D` bits.
    pub value: Signal<Out, Bits<D>>,
    /// Per chunk, its bits of the count (bit 0 excepted: it is `lowest`).
    chunks: Vec<DFF<Bits<D>>>,
    /// Bit 0 of the count.
    lowest: DFF<bool>,
    /// Per chunk: the mask of its bits.
    spans: Vec<Constant<Bits<D>>>,
    /// Per chunk: the mask of the bits its flip-flops hold (`spans` less bit 0).
    held: Vec<Constant<Bits<D>>>,
    /// Per chunk: its lowest bit, the one its increment adds.
    units: Vec<Constant<Bits<D>>>,
    /// Per chunk: the bit just above it, where its increment carries out (zero if that is
    /// past `D`: then `tops` says so and the chunk is tested with a compare).
    carries: Vec<Constant<Bits<D>>>,
    /// Per chunk: it ends at bit `D - 1`, so it has no carry bit.
    tops: Vec<Constant<bool>>,
    zero: Constant<Bits<D>>,
    /// The count, `chunks` and `lowest` together.
    whole: Signal<Local, Bits<D>>,
    /// Per chunk: its bits plus its unit (carries out into the bit above when all ones).
    sums: Vec<Signal<Local, Bits<D>>>,
    /// Per chunk: it is all ones.
    ones: Vec<Signal<Local, bool>>,
    /// `seen[k - 1]`: `ones[k]` of the previous cycle, for `k >= 1`.
    seen: Vec<DFF<bool>>,
    /// `upper[k - 1]` (`k >= 1`): chunks 1 to `k - 1` were all ones in the previous cycle, which is
    /// exact whenever chunk 0 is all ones (see `update`).
    upper: Vec<Signal<Local, bool>>,
    /// The count is at `2^width - 1`.
    full: Signal<Local, bool>,
    /// `room[k - 1]` (`k >= 1`): two cycles ago chunks 1 to `k - 1` were all ones and not
    /// every chunk above 0 was (exact where used: see `update`). A flip-flop, so that chunk
    /// `k`'s enable is one LUT of three inputs after chunk 0's carry chain.
    room: Vec<DFF<bool>>,
    /// Number of chunks.
    _chunks: usize,
}

impl<const D: usize> EventCounter<D> {
    /// A counter of `width` bits (1..=`D`), in carry chains of [`CHUNK`] bits. Panics naming
    /// the parameter if out of range.
    pub fn new(width: usize) -> Self {
        Self::with_chunk(width, CHUNK)
    }

    /// A counter of `width` bits in carry chains of `chunk` bits (2..=64; benches use short
    /// chunks to reach saturation across several in few cycles).
    pub fn with_chunk(width: usize, chunk: usize) -> Self {
        assert!(
            (2..=64).contains(&chunk),
            "EventCounter: chunk must be 2..=64, got {chunk}"
        );
        assert!(
            (1..=64).contains(&D),
            "EventCounter: D (value width) must be 1..=64, got {D}"
        );
        assert!(
            (1..=D).contains(&width),
            "EventCounter<D = {D}>: width must be 1..={D}, got {width}"
        );
        let chunks = width.div_ceil(chunk);
        let bits = |k: usize| k * chunk..(k * chunk + chunk).min(width);
        let mask = |r: std::ops::Range<usize>| r.fold(0u64, |m, b| m | (1u64 << b));
        let constants = |f: &dyn Fn(usize) -> u64| -> Vec<Constant<Bits<D>>> {
            (0..chunks)
                .map(|k| Constant::new(Bits::<D>::from(f(k))))
                .collect()
        };
        Self {
            clock: Default::default(),
            reset: Default::default(),
            pulse: Default::default(),
            clear: Default::default(),
            value: Default::default(),
            chunks: (0..chunks).map(|_| Default::default()).collect(),
            lowest: Default::default(),
            spans: constants(&|k| mask(bits(k))),
            held: constants(&|k| mask(bits(k)) & !1),
            units: constants(&|k| 1u64 << (k * chunk)),
            carries: constants(&|k| {
                let end = bits(k).end;
                if end < D {
                    1u64 << end
                } else {
                    0
                }
            }),
            tops: (0..chunks)
                .map(|k| Constant::new(bits(k).end == D))
                .collect(),
            zero: Constant::new(Bits::<D>::default()),
            whole: Default::default(),
            sums: (0..chunks).map(|_| Default::default()).collect(),
            ones: (0..chunks).map(|_| Default::default()).collect(),
            seen: (1..chunks).map(|_| Default::default()).collect(),
            upper: (0..chunks).map(|_| Default::default()).collect(),
            full: Default::default(),
            room: (1..chunks).map(|_| Default::default()).collect(),
            _chunks: chunks,
        }
    }
}

impl<const D: usize> Logic for EventCounter<D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, lowest);
        self.whole.next = self.zero.val().replace_bit(0, self.lowest.q.val());
        for k in 0..self.chunks.len() {
            self.chunks[k].clock.next = self.clock.val();
            self.chunks[k].d.next = self.chunks[k].q.val();
            self.whole.next = self.whole.val() | self.chunks[k].q.val();
        }
        self.value.next = self.whole.val();
        // Each chunk's increment on its own chain; its carry out says it is all ones (a chunk
        // that ends at bit D - 1 has no carry bit and is compared instead).
        for k in 0..self.chunks.len() {
            self.sums[k].next = (self.whole.val() & self.spans[k].val()) + self.units[k].val();
            self.ones[k].next = (self.sums[k].val() & self.carries[k].val()).any()
                | (self.tops[k].val()
                    & ((self.whole.val() & self.spans[k].val()) == self.spans[k].val()));
        }
        // Chunks 1 and up are read through a register: they change only on an edge where
        // chunk 0 wraps to zero (or on a clear or reset, which leave chunk 0 at 0 or 1, not all
        // ones as it has at least 2 bits), so in any cycle where chunk 0 is all ones they held
        // the same value in the previous cycle, and `upper` is exact where it is used. Only
        // chunk 0's carry chain is then in front of the enables, and the AND of the other
        // chunks' flags starts at flip-flops (chaining the flags of the carry chains instead put
        // one LUT and a long net per chunk in series: 93.2 MHz for the register file).
        for k in 1..(self._chunks + 1) {
            self.upper[k - 1].next = true;
        }
        for k in 1..self._chunks {
            self.seen[k - 1].clock.next = self.clock.val();
            self.seen[k - 1].d.next = self.ones[k].val();
            self.upper[k].next = self.upper[k - 1].val() & self.seen[k - 1].q.val();
        }
        for n in self._chunks..(self._chunks + 1) {
            self.full.next = self.ones[0].val() & self.upper[n - 1].val();
            // With chunk 0 all ones, full is `upper[n - 1]`, so chunk k counts on `pulse`,
            // chunk 0's carry out and `upper[k - 1] & !upper[n - 1]`. That last term is registered once more:
            // with chunk 0 all ones now, chunks 1 and up were unchanged for two cycles (a wrap or
            // clear two edges ago leaves chunk 0 at 2 or less, not all ones as it has at least 2
            // bits), so it is still exact. Left as logic, ABC merged it with the carry out into
            // three LUTs in series (98.5 to 106.7 MHz for the register file).
            for k in 1..self._chunks {
                self.room[k - 1].clock.next = self.clock.val();
                self.room[k - 1].d.next = self.upper[k - 1].val() & !self.upper[n - 1].val();
            }
        }
        // A chunk counts when the pulse reaches it: every chunk below it is all ones (and so
        // wraps to zero on the same edge). The masks make the bits outside the chunk constant
        // zero, so their flip-flops go.
        for k in 0..self.chunks.len().min(1) {
            if self.pulse.val() & !self.full.val() {
                self.chunks[k].d.next = self.sums[k].val() & self.held[k].val();
            }
        }
        for k in 1..self.chunks.len() {
            if self.pulse.val() & self.ones[0].val() & self.room[k - 1].q.val() {
                self.chunks[k].d.next = self.sums[k].val() & self.held[k].val();
            }
        }
        if self.pulse.val() & !self.full.val() {
            self.lowest.d.next = !self.lowest.q.val();
        }
        if self.clear.val() | self.reset.val() {
            for k in 0..self.chunks.len() {
                self.chunks[k].d.next = self.zero.val();
            }
        }
        if self.clear.val() {
            self.lowest.d.next = self.pulse.val();
        }
        if self.reset.val() {
            self.lowest.d.next = false;
        }
    }
}

#[test]
fn event_counter_is_synthesizable() {
    let mut uut = EventCounter::<16>::new(5);
    uut.connect_all();
    yosys_validate("event_counter", &generate_verilog(&uut)).unwrap();
    let mut uut = EventCounter::<64>::new(64);
    uut.connect_all();
    yosys_validate("event_counter_64", &generate_verilog(&uut)).unwrap();
}

#[test]
#[should_panic(expected = "width must be 1..=8")]
fn event_counter_rejects_wide_count() {
    let _ = EventCounter::<8>::new(9);
}
