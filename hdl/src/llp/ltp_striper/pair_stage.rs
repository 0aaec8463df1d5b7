//! The striper's input stage: LTP beats on `sink` to the pair register, the XFRs of the beat
//! accepted on the last edge (`low`, `high`; the trailer beat is one XFR).
//!
//! Gearbox: since 65 = 2 x 32 + 1, flit `i` starts in XFR `2i` at bit offset `i`, so XFRs `2i`
//! and `2i+1` are 64 bits at offset `15 - i` of `{flit i, bits 15..1 of the top 16 of flit
//! i-1}`: one 16-way shift of 80 bits. XFR 32 is `{trailer, top 16 bits of flit 15}`, wired
//! past the shifter. The pair register empties every cycle but at one lane (`single`), where a
//! flit's XFRs leave in two cycles and the pair holds for the second (`phase`).
//!
//! `advance` low freezes every register and holds `sink.ready` low (the striper's hold).
//! Reset (synchronous): the pair empty, the next beat on `sink` is flit 0.
use crate::formats::FLIT_BITS;
use crate::stream::StreamSink;
use rust_hdl::prelude::*;

/// Beats in, XFR pairs out.
#[derive(LogicBlock, Default)]
pub struct StriperPairs {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// LTP beats: 16 flits, then the trailer in bits 15..0.
    pub sink: StreamSink<Bits<FLIT_BITS>>,
    /// One active lane: a pair leaves in two cycles.
    pub single: Signal<In, bool>,
    /// The striper moves this cycle (else everything holds).
    pub advance: Signal<In, bool>,
    /// The pair's first XFR.
    pub low: Signal<Out, Bits<32>>,
    /// The pair's second XFR.
    pub high: Signal<Out, Bits<32>>,
    /// The pair holds `low`.
    pub has_low: Signal<Out, bool>,
    /// The pair holds `high` (not after the trailer).
    pub has_high: Signal<Out, bool>,
    /// `low` is XFR 0 of an LTP.
    pub start: Signal<Out, bool>,
    /// The pair is the trailer XFR alone.
    pub trailer: Signal<Out, bool>,
    /// At one lane: `low` has been sent, `high` goes this cycle.
    pub phase: Signal<Out, bool>,
    /// A beat is accepted on `sink` this cycle.
    pub fire: Signal<Out, bool>,
    /// The next beat on `sink` is flit 0.
    pub at_flit0: Signal<Out, bool>,
    // Number of the next beat on `sink` within its LTP: 0..15 flits, 16 the trailer.
    beat: DFF<Bits<5>>,
    prev_top: DFF<Bits<16>>,
    pair_low: DFF<Bits<32>>,
    pair_high: DFF<Bits<32>>,
    holds_low: DFF<bool>,
    holds_high: DFF<bool>,
    pair_start: DFF<bool>,
    pair_trailer: DFF<bool>,
    second_phase: DFF<bool>,
    is_trailer: Signal<Local, bool>,
    beat_inc: Signal<Local, Bits<5>>,
    window: Signal<Local, Bits<80>>,
    coarse: Signal<Local, Bits<67>>,
    pair: Signal<Local, Bits<64>>,
    trailer_xfr: Signal<Local, Bits<32>>,
}

impl Logic for StriperPairs {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            beat,
            prev_top,
            pair_low,
            pair_high,
            holds_low,
            holds_high,
            pair_start,
            pair_trailer,
            second_phase
        );
        self.low.next = self.pair_low.q.val();
        self.high.next = self.pair_high.q.val();
        self.has_low.next = self.holds_low.q.val();
        self.has_high.next = self.holds_high.q.val();
        self.start.next = self.pair_start.q.val();
        self.trailer.next = self.pair_trailer.q.val();
        self.phase.next = self.second_phase.q.val();
        self.at_flit0.next = self.beat.q.val() == 0;
        self.sink.ready.next =
            !(self.single.val() & self.holds_high.q.val() & !self.second_phase.q.val())
                & self.advance.val();
        self.fire.next = self.sink.valid.val() & self.sink.ready.val();
        self.second_phase.d.next = !self.sink.ready.val();

        self.is_trailer.next = self.beat.q.val().get_bit(4);
        self.beat_inc.next = self.beat.q.val() + 1;
        self.window.next = (bit_cast::<80, FLIT_BITS>(self.sink.data.val()) << 15)
            | bit_cast::<80, 16>(self.prev_top.q.val() >> 1);
        // Two 4-way stages (a 4:1 mux is two LUT4s): by 4 x (3 - beat[3:2]), then 3 - beat[1:0].
        self.coarse.next = self.window.val().get_bits::<67>(0);
        if self.beat.q.val().get_bits::<2>(2) == 0 {
            self.coarse.next = self.window.val().get_bits::<67>(12);
        } else if self.beat.q.val().get_bits::<2>(2) == 1 {
            self.coarse.next = self.window.val().get_bits::<67>(8);
        } else if self.beat.q.val().get_bits::<2>(2) == 2 {
            self.coarse.next = self.window.val().get_bits::<67>(4);
        }
        self.pair.next = self.coarse.val().get_bits::<64>(0);
        if self.beat.q.val().get_bits::<2>(0) == 0 {
            self.pair.next = self.coarse.val().get_bits::<64>(3);
        } else if self.beat.q.val().get_bits::<2>(0) == 1 {
            self.pair.next = self.coarse.val().get_bits::<64>(2);
        } else if self.beat.q.val().get_bits::<2>(0) == 2 {
            self.pair.next = self.coarse.val().get_bits::<64>(1);
        }
        self.trailer_xfr.next = (bit_cast::<32, 16>(self.sink.data.val().get_bits::<16>(0)) << 16)
            | bit_cast::<32, 16>(self.prev_top.q.val());
        if self.sink.ready.val() {
            self.holds_low.d.next = false;
            self.holds_high.d.next = false;
            self.pair_start.d.next = false;
            self.pair_trailer.d.next = false;
        }
        if self.fire.val() {
            self.prev_top.d.next = self.sink.data.val().get_bits::<16>(49);
            self.holds_low.d.next = true;
            self.holds_high.d.next = !self.is_trailer.val();
            self.pair_start.d.next = self.beat.q.val() == 0;
            self.pair_trailer.d.next = self.is_trailer.val();
            self.pair_high.d.next = self.pair.val().get_bits::<32>(32);
            if self.is_trailer.val() {
                self.pair_low.d.next = self.trailer_xfr.val();
                self.beat.d.next = 0.into();
            } else {
                self.pair_low.d.next = self.pair.val().get_bits::<32>(0);
                self.beat.d.next = self.beat_inc.val();
            }
        }
        if !self.advance.val() {
            self.beat.d.next = self.beat.q.val();
            self.prev_top.d.next = self.prev_top.q.val();
            self.pair_low.d.next = self.pair_low.q.val();
            self.pair_high.d.next = self.pair_high.q.val();
            self.holds_low.d.next = self.holds_low.q.val();
            self.holds_high.d.next = self.holds_high.q.val();
            self.pair_start.d.next = self.pair_start.q.val();
            self.pair_trailer.d.next = self.pair_trailer.q.val();
            self.second_phase.d.next = self.second_phase.q.val();
        }
        if self.reset.val() {
            self.beat.d.next = 0.into();
            self.holds_low.d.next = false;
            self.holds_high.d.next = false;
            self.pair_start.d.next = false;
            self.pair_trailer.d.next = false;
            self.second_phase.d.next = false;
        }
    }
}

#[test]
fn striper_pairs_is_synthesizable() {
    let mut uut = StriperPairs::default();
    uut.connect_all();
    yosys_validate("striper_pairs", &generate_verilog(&uut)).unwrap();
}
