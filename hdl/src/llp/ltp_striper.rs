//! LTP striper: the transmit gearbox from LTP words (65-bit flits) to lane beats.
//!
//! Input: each LTP arrives on `sink` as 17 beats, its 16 flits then the trailer beat (trailer
//! in bits 15..0, the other bits zero). There is no framing signal: the striper counts beats
//! from reset. Output: `lanes`, one beat per cycle of up to `L` XFRs (`L` = set bits of the
//! lane mask), XFR `g` on logical lane `g mod L` (logical lane `n` = the `n`-th set bit of
//! `mask`), `start` on the lane carrying an LTP's XFR 0; lanes have no backpressure, and a
//! cycle with nothing to send has `valid` = 0 (and `start`, `data` zero; so has every lane
//! not valid in a beat). Software model: [`super::ltp::stripe`].
//!
//! Gearbox: since 65 = 2 x 32 + 1, flit `i` starts in XFR `2i` at bit offset `i`, so XFRs `2i`
//! and `2i+1` are 64 bits at offset `15 - i` of `{flit i, bits 15..1 of the top 16 of flit
//! i-1}`: one 16-way shift of 80 bits. XFR 32 is `{trailer, top 16 bits of flit 15}`, wired
//! past the shifter. The XFRs of a beat accepted on an edge are held in a pair register
//! (`lo`, `hi`) for the next cycle.
//!
//! Beat former: the pair's XFRs go to their physical lanes: `lo` to logical lane `w` (the
//! position of the next XFR in the beat being formed), `hi` to `w + 1`, or to logical lane 0
//! of the next beat when `lo` completes this one. Each physical lane has one 32-bit register
//! holding the XFR it received last; a beat leaves (into the output registers) on the edge on
//! which its last XFR arrives, its lanes taking that XFR straight from the pair and the
//! earlier ones from their registers. A lane's register is overwritten only by the lane's next
//! XFR, which belongs to the next beat, so no lane needs more than one. Why this shape: the
//! former XFR queue (shifting, variable pop, then a logical-to-physical mux) cost three times
//! the LUTs; here a lane's output is a 2:1 mux of a 2:1 mux, the lane routing being decided
//! from registers (`w`, each lane's logical index) a cycle after the mask was sampled.
//!
//! Partial beats: when an LTP's last XFR does not fill its beat, the next LTP's XFRs complete
//! it if the next LTP's flit 0 is accepted in the cycle right after the trailer ("in time");
//! otherwise the partial beat leaves in that cycle (valid only on the used logical lanes) and
//! the next LTP starts on logical lane 0 of a new beat, i.e. the rotation restarts (sequence
//! state 0).
//!
//! `mask` (active physical lanes, at least one set) is sampled in every cycle in which `idle`
//! is high (and during `reset`); change it only while the input is idle between LTPs and the
//! last beat has been formed. A new mask therefore always starts a restarted rotation. `idle`
//! is high when no XFR is held (the last beat has left) and the next beat on `sink` is flit 0,
//! including the cycle in which that flit 0 is accepted.
//!
//! Throughput: one flit per cycle in; `sink.ready` is low only at `L` = 1 (one XFR per cycle
//! out): in the cycle that sends the first XFR of a flit (its second is sent in the next one).
//! Latency: two cycles from the beat accepted on `sink` to its XFRs on `lanes` (whose outputs
//! come from flip-flops), when those XFRs complete a beat.
//!
//! Hold: while `hold` is high (a wire of 16-bit lanes sending a beat's second halves, see
//! `gearbox`) and a formed beat waits on `lanes`, nothing moves: every register keeps its
//! value and `sink.ready` is low, a clock enable, so the striper behaves exactly as it would
//! on the cycles it runs. With nothing formed it runs on, so at 4 lanes (a beat per two cycles
//! at most) it never waits; at fewer lanes the hold slows the serializer to the wire.
//!
//! Ports: `clock`, `reset` (synchronous, active high: drops the XFRs held and the LTP in
//! progress; the next beat on `sink` is flit 0), `sink`, `mask`, `hold`, `lanes`, `idle`.
use super::lane_channel::{LaneChannelOut, MAX_LANES};
use crate::formats::FLIT_BITS;
use crate::stream::StreamSink;
use rust_hdl::prelude::*;

/// Transmit gearbox from 17 LTP beats (16 flits, trailer) to beats of up to 4 lane XFRs.
#[derive(LogicBlock)]
pub struct LtpStriper {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: drops the XFRs held and restarts the beat count at flit 0.
    pub reset: Signal<In, bool>,
    /// LTP beats: 16 flits, then the trailer in bits 15..0.
    pub sink: StreamSink<Bits<FLIT_BITS>>,
    /// Active physical lanes (at least one); sampled only while `idle` (and in reset).
    pub mask: Signal<In, Bits<4>>,
    /// The wire takes no beat this cycle: a formed beat stays on `lanes` and nothing moves.
    pub hold: Signal<In, bool>,
    /// Lane beats to the PHY.
    pub lanes: LaneChannelOut,
    /// The striper samples `mask` this cycle: no XFR held, the next beat on `sink` is flit 0.
    pub idle: Signal<Out, bool>,
    // Number of the next beat on `sink` within its LTP: 0..15 flits, 16 the trailer.
    beat: DFF<Bits<5>>,
    prev_top: DFF<Bits<16>>,
    // The pair register: the XFRs of the beat accepted on the last edge.
    p_lo: DFF<Bits<32>>,
    p_hi: DFF<Bits<32>>,
    p_one: DFF<bool>,
    p_two: DFF<bool>,
    // `lo` is XFR 0 of an LTP; the pair is the trailer XFR alone.
    p_start: DFF<bool>,
    p_trailer: DFF<bool>,
    // At one lane: `lo` has been sent, `hi` goes this cycle.
    phase: DFF<bool>,
    lane_mask: DFF<Bits<4>>,
    // L - 1, and L = 1.
    last: DFF<Bits<2>>,
    single: DFF<bool>,
    // Logical index of each physical lane.
    lane_idx: Vec<DFF<Bits<2>>>,
    // Logical lane of the next XFR in the beat being formed.
    w: DFF<Bits<2>>,
    // Per physical lane: the XFR it received last, and whether that was an LTP's XFR 0.
    held: Vec<DFF<Bits<32>>>,
    held_start: DFF<Bits<4>>,
    out_valid: DFF<Bits<4>>,
    out_start: DFF<Bits<4>>,
    out_data: DFF<Bits<128>>,
    one2: Constant<Bits<2>>,
    one3: Constant<Bits<3>>,
    lane_shift: Vec<Constant<Bits<8>>>,
    advance: Signal<Local, bool>,
    fire: Signal<Local, bool>,
    trailer: Signal<Local, bool>,
    beat_inc: Signal<Local, Bits<5>>,
    window: Signal<Local, Bits<80>>,
    coarse: Signal<Local, Bits<67>>,
    pair: Signal<Local, Bits<64>>,
    trailer_xfr: Signal<Local, Bits<32>>,
    c_lo: Signal<Local, bool>,
    c_hi: Signal<Local, bool>,
    w_inc: Signal<Local, Bits<2>>,
    w_hi: Signal<Local, Bits<2>>,
    w_hi_inc: Signal<Local, Bits<2>>,
    wrap: Signal<Local, bool>,
    complete: Signal<Local, bool>,
    beat_end: Signal<Local, Bits<2>>,
    hit_lo: Signal<Local, bool>,
    hit_hi: Signal<Local, bool>,
    take_new: Signal<Local, bool>,
    in_beat: Signal<Local, bool>,
    incoming: Signal<Local, Bits<32>>,
    lane_data: Signal<Local, Bits<32>>,
    data_acc: Signal<Local, Bits<128>>,
    valid_acc: Signal<Local, Bits<4>>,
    start_acc: Signal<Local, Bits<4>>,
    held_start_acc: Signal<Local, Bits<4>>,
    pc: Vec<Signal<Local, Bits<3>>>,
    pc_m1: Signal<Local, Bits<3>>,
}

impl LtpStriper {
    /// A striper.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sink: Default::default(),
            mask: Default::default(),
            lanes: Default::default(),
            idle: Default::default(),
            hold: Default::default(),
            advance: Default::default(),
            beat: Default::default(),
            prev_top: Default::default(),
            p_lo: Default::default(),
            p_hi: Default::default(),
            p_one: Default::default(),
            p_two: Default::default(),
            p_start: Default::default(),
            p_trailer: Default::default(),
            phase: Default::default(),
            lane_mask: Default::default(),
            last: Default::default(),
            single: Default::default(),
            lane_idx: (0..MAX_LANES).map(|_| Default::default()).collect(),
            w: Default::default(),
            held: (0..MAX_LANES).map(|_| Default::default()).collect(),
            held_start: Default::default(),
            out_valid: Default::default(),
            out_start: Default::default(),
            out_data: Default::default(),
            one2: Constant::new(1u64.into()),
            one3: Constant::new(1u64.into()),
            lane_shift: (0..MAX_LANES)
                .map(|p| Constant::new(((32 * p) as u64).into()))
                .collect(),
            fire: Default::default(),
            trailer: Default::default(),
            beat_inc: Default::default(),
            window: Default::default(),
            coarse: Default::default(),
            pair: Default::default(),
            trailer_xfr: Default::default(),
            c_lo: Default::default(),
            c_hi: Default::default(),
            w_inc: Default::default(),
            w_hi: Default::default(),
            w_hi_inc: Default::default(),
            wrap: Default::default(),
            complete: Default::default(),
            beat_end: Default::default(),
            hit_lo: Default::default(),
            hit_hi: Default::default(),
            take_new: Default::default(),
            in_beat: Default::default(),
            incoming: Default::default(),
            lane_data: Default::default(),
            data_acc: Default::default(),
            valid_acc: Default::default(),
            start_acc: Default::default(),
            held_start_acc: Default::default(),
            pc: (0..=MAX_LANES).map(|_| Default::default()).collect(),
            pc_m1: Default::default(),
        }
    }
}

impl Default for LtpStriper {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for LtpStriper {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, beat, prev_top, p_lo, p_hi, p_one, p_two, p_start, p_trailer, phase,
            lane_mask, last, single, w, held_start, out_valid, out_start, out_data
        );
        for p in 0..4 {
            self.lane_idx[p].clock.next = self.clock.val();
            self.lane_idx[p].d.next = self.lane_idx[p].q.val();
            self.held[p].clock.next = self.clock.val();
            self.held[p].d.next = self.held[p].q.val();
        }
        self.lanes.valid.next = self.out_valid.q.val();
        self.lanes.start.next = self.out_start.q.val();
        self.lanes.data.next = self.out_data.q.val();
        self.idle.next = (self.beat.q.val() == 0) & !self.p_one.q.val() & (self.w.q.val() == 0);

        // Input: the pair register is emptied every cycle but at one lane, where a flit's
        // XFRs leave in two cycles and the pair holds for the second.
        self.advance.next = !self.hold.val() | !self.out_valid.q.val().any();
        self.sink.ready.next =
            !(self.single.q.val() & self.p_two.q.val() & !self.phase.q.val()) & self.advance.val();
        self.fire.next = self.sink.valid.val() & self.sink.ready.val();
        self.phase.d.next = !self.sink.ready.val();

        // Gearbox: flit i at offset 15 - i of {flit, prev_top[15:1]}; the trailer XFR wired.
        self.trailer.next = self.beat.q.val().get_bit(4);
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
            self.p_one.d.next = false;
            self.p_two.d.next = false;
            self.p_start.d.next = false;
            self.p_trailer.d.next = false;
        }
        if self.fire.val() {
            self.prev_top.d.next = self.sink.data.val().get_bits::<16>(49);
            self.p_one.d.next = true;
            self.p_two.d.next = !self.trailer.val();
            self.p_start.d.next = self.beat.q.val() == 0;
            self.p_trailer.d.next = self.trailer.val();
            self.p_hi.d.next = self.pair.val().get_bits::<32>(32);
            if self.trailer.val() {
                self.p_lo.d.next = self.trailer_xfr.val();
                self.beat.d.next = 0.into();
            } else {
                self.p_lo.d.next = self.pair.val().get_bits::<32>(0);
                self.beat.d.next = self.beat_inc.val();
            }
        }

        // Beat former: `lo` goes to logical lane w, `hi` to w + 1 or (wrap) to logical lane 0
        // of the next beat. At one lane `lo` and `hi` go in successive cycles.
        self.c_lo.next = self.p_one.q.val() & !(self.single.q.val() & self.phase.q.val());
        self.c_hi.next = self.p_two.q.val() & (!self.single.q.val() | self.phase.q.val());
        self.w_inc.next = self.w.q.val() + self.one2.val();
        self.w_hi.next = self.w_inc.val();
        if self.w.q.val() == self.last.q.val() {
            self.w_hi.next = 0.into();
        }
        self.w_hi_inc.next = self.w_hi.val() + self.one2.val();
        self.wrap.next = self.c_lo.val() & self.c_hi.val() & (self.w.q.val() == self.last.q.val());
        // A beat leaves when its last logical lane is filled, or its LTP ended not in time.
        self.complete.next = (self.c_lo.val() & (self.w.q.val() == self.last.q.val()))
            | (self.c_hi.val() & (self.w_hi.val() == self.last.q.val()))
            | (self.p_trailer.q.val() & !self.fire.val());
        self.beat_end.next = self.w.q.val();
        if self.c_hi.val() & !self.wrap.val() {
            self.beat_end.next = self.w_hi.val();
        }
        if self.c_hi.val() {
            self.w.d.next = self.w_hi_inc.val();
        } else if self.c_lo.val() {
            self.w.d.next = self.w_hi.val();
        }
        if self.complete.val() {
            self.w.d.next = 0.into();
            if self.wrap.val() {
                self.w.d.next = self.one2.val();
            }
        }

        self.valid_acc.next = 0.into();
        self.start_acc.next = 0.into();
        self.data_acc.next = 0.into();
        self.held_start_acc.next = self.held_start.q.val();
        for p in 0..4 {
            self.hit_lo.next = self.c_lo.val()
                & self.lane_mask.q.val().get_bit(p)
                & (self.lane_idx[p].q.val() == self.w.q.val());
            self.hit_hi.next = self.c_hi.val()
                & self.lane_mask.q.val().get_bit(p)
                & (self.lane_idx[p].q.val() == self.w_hi.val());
            self.incoming.next = self.p_lo.q.val();
            if self.hit_hi.val() {
                self.incoming.next = self.p_hi.q.val();
            }
            if self.hit_lo.val() | self.hit_hi.val() {
                self.held[p].d.next = self.incoming.val();
                self.held_start_acc.next = self
                    .held_start_acc
                    .val()
                    .replace_bit(p, self.hit_lo.val() & self.p_start.q.val());
            }
            self.take_new.next = self.hit_lo.val() | (self.hit_hi.val() & !self.wrap.val());
            self.in_beat.next = self.complete.val()
                & self.lane_mask.q.val().get_bit(p)
                & (self.lane_idx[p].q.val() <= self.beat_end.val());
            self.lane_data.next = 0.into();
            if self.in_beat.val() {
                self.valid_acc.next = self.valid_acc.val().replace_bit(p, true);
                if self.take_new.val() {
                    self.lane_data.next = self.incoming.val();
                    self.start_acc.next = self
                        .start_acc
                        .val()
                        .replace_bit(p, self.hit_lo.val() & self.p_start.q.val());
                } else {
                    self.lane_data.next = self.held[p].q.val();
                    self.start_acc.next = self
                        .start_acc
                        .val()
                        .replace_bit(p, self.held_start.q.val().get_bit(p));
                }
            }
            self.data_acc.next = self.data_acc.val()
                | (bit_cast::<128, 32>(self.lane_data.val()) << self.lane_shift[p].val());
        }
        self.held_start.d.next = self.held_start_acc.val();
        self.out_valid.d.next = self.valid_acc.val();
        self.out_start.d.next = self.start_acc.val();
        self.out_data.d.next = self.data_acc.val();

        // Mask: sampled while idle (and in reset); each lane's logical index precomputed.
        self.pc[0].next = 0.into();
        for p in 1..5 {
            self.pc[p].next = self.pc[p - 1].val();
            if self.mask.val().get_bit(p - 1) {
                self.pc[p].next = self.pc[p - 1].val() + self.one3.val();
            }
        }
        self.pc_m1.next = self.pc[4].val() - self.one3.val();
        if self.idle.val() | self.reset.val() {
            self.lane_mask.d.next = self.mask.val();
            self.last.d.next = self.pc_m1.val().get_bits::<2>(0);
            self.single.d.next = self.pc[4].val() == self.one3.val();
            for p in 0..4 {
                self.lane_idx[p].d.next = self.pc[p].val().get_bits::<2>(0);
            }
        }

        // Hold: the formed beat waits for the wire; nothing moves.
        if !self.advance.val() {
            self.beat.d.next = self.beat.q.val();
            self.prev_top.d.next = self.prev_top.q.val();
            self.p_lo.d.next = self.p_lo.q.val();
            self.p_hi.d.next = self.p_hi.q.val();
            self.p_one.d.next = self.p_one.q.val();
            self.p_two.d.next = self.p_two.q.val();
            self.p_start.d.next = self.p_start.q.val();
            self.p_trailer.d.next = self.p_trailer.q.val();
            self.phase.d.next = self.phase.q.val();
            self.lane_mask.d.next = self.lane_mask.q.val();
            self.last.d.next = self.last.q.val();
            self.single.d.next = self.single.q.val();
            self.w.d.next = self.w.q.val();
            self.held_start.d.next = self.held_start.q.val();
            self.out_valid.d.next = self.out_valid.q.val();
            self.out_start.d.next = self.out_start.q.val();
            self.out_data.d.next = self.out_data.q.val();
            for p in 0..4 {
                self.lane_idx[p].d.next = self.lane_idx[p].q.val();
                self.held[p].d.next = self.held[p].q.val();
            }
        }

        if self.reset.val() {
            self.beat.d.next = 0.into();
            self.p_one.d.next = false;
            self.p_two.d.next = false;
            self.p_start.d.next = false;
            self.p_trailer.d.next = false;
            self.phase.d.next = false;
            self.w.d.next = 0.into();
            self.out_valid.d.next = 0.into();
            self.out_start.d.next = 0.into();
            self.out_data.d.next = 0.into();
        }
    }
}

#[test]
fn ltp_striper_is_synthesizable() {
    let mut uut = LtpStriper::default();
    uut.connect_all();
    yosys_validate("ltp_striper", &generate_verilog(&uut)).unwrap();
}
