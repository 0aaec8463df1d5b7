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
//! Stages: [`pair_stage`] (the gearbox from 65-bit flits to XFR pairs: the XFRs of a beat
//! accepted on an edge are held in a pair register, `low` and `high`, for the next cycle),
//! [`lane_map`] (the sampled mask and each physical lane's logical index) and, here, the beat
//! former and the output registers.
//!
//! Beat former: the pair's XFRs go to their physical lanes: `low` to logical lane `next_lane`
//! (the position of the next XFR in the beat being formed), `high` to `next_lane + 1`, or to
//! logical lane 0 of the next beat when `low` completes this one. Each physical lane has one 32-bit register
//! holding the XFR it received last; a beat leaves (into the output registers) on the edge on
//! which its last XFR arrives, its lanes taking that XFR straight from the pair and the
//! earlier ones from their registers. A lane's register is overwritten only by the lane's next
//! XFR, which belongs to the next beat, so no lane needs more than one. Why this shape: the
//! former XFR queue (shifting, variable pop, then a logical-to-physical mux) cost three times
//! the LUTs; here a lane's output is a 2:1 mux of a 2:1 mux, the lane routing being decided
//! from registers (`next_lane`, each lane's logical index) a cycle after the mask was sampled.
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
use lane_map::StriperLaneMap;
use pair_stage::StriperPairs;
use rust_hdl::prelude::*;

pub mod lane_map;
pub mod pair_stage;

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
    pairs: StriperPairs,
    lane_map: StriperLaneMap,
    // Logical lane of the next XFR in the beat being formed.
    next_lane: DFF<Bits<2>>,
    // Per physical lane: the XFR it received last, and whether that was an LTP's XFR 0.
    held: Vec<DFF<Bits<32>>>,
    held_start: DFF<Bits<4>>,
    out_valid: DFF<Bits<4>>,
    out_start: DFF<Bits<4>>,
    out_data: DFF<Bits<128>>,
    one: Constant<Bits<2>>,
    lane_shift: Vec<Constant<Bits<8>>>,
    index_shift: Vec<Constant<Bits<8>>>,
    advance: Signal<Local, bool>,
    place_low: Signal<Local, bool>,
    place_high: Signal<Local, bool>,
    lane_after: Signal<Local, Bits<2>>,
    high_lane: Signal<Local, Bits<2>>,
    lane_after_high: Signal<Local, Bits<2>>,
    wrap: Signal<Local, bool>,
    complete: Signal<Local, bool>,
    beat_end: Signal<Local, Bits<2>>,
    lane_index: Signal<Local, Bits<2>>,
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
}

impl LtpStriper {
    /// A striper.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sink: Default::default(),
            mask: Default::default(),
            hold: Default::default(),
            lanes: Default::default(),
            idle: Default::default(),
            pairs: Default::default(),
            lane_map: Default::default(),
            next_lane: Default::default(),
            held: (0..MAX_LANES).map(|_| Default::default()).collect(),
            held_start: Default::default(),
            out_valid: Default::default(),
            out_start: Default::default(),
            out_data: Default::default(),
            one: Constant::new(1u64.into()),
            lane_shift: (0..MAX_LANES)
                .map(|p| Constant::new(((32 * p) as u64).into()))
                .collect(),
            index_shift: (0..MAX_LANES)
                .map(|p| Constant::new(((2 * p) as u64).into()))
                .collect(),
            advance: Default::default(),
            place_low: Default::default(),
            place_high: Default::default(),
            lane_after: Default::default(),
            high_lane: Default::default(),
            lane_after_high: Default::default(),
            wrap: Default::default(),
            complete: Default::default(),
            beat_end: Default::default(),
            lane_index: Default::default(),
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
        dff_setup!(self, clock, next_lane, held_start, out_valid, out_start, out_data);
        clock!(self, clock, pairs, lane_map);
        for p in 0..4 {
            self.held[p].clock.next = self.clock.val();
            self.held[p].d.next = self.held[p].q.val();
        }
        self.lanes.valid.next = self.out_valid.q.val();
        self.lanes.start.next = self.out_start.q.val();
        self.lanes.data.next = self.out_data.q.val();
        // Hold: a formed beat waits for the wire and nothing moves (a clock enable).
        self.advance.next = !self.hold.val() | !self.out_valid.q.val().any();
        StreamSink::<Bits<FLIT_BITS>>::link(&mut self.sink, &mut self.pairs.sink);
        self.pairs.reset.next = self.reset.val();
        self.pairs.single.next = self.lane_map.single.val();
        self.pairs.advance.next = self.advance.val();
        self.idle.next =
            self.pairs.at_flit0.val() & !self.pairs.has_low.val() & (self.next_lane.q.val() == 0);
        // Mask: sampled while idle (and in reset).
        self.lane_map.mask.next = self.mask.val();
        self.lane_map.sample.next = (self.idle.val() | self.reset.val()) & self.advance.val();

        // Beat former: `low` goes to logical lane `next_lane`, `high` to the one after
        // (`high_lane`) or (wrap) to logical lane 0 of the next beat. At one lane `low` and
        // `high` go in successive cycles.
        self.place_low.next =
            self.pairs.has_low.val() & !(self.lane_map.single.val() & self.pairs.phase.val());
        self.place_high.next =
            self.pairs.has_high.val() & (!self.lane_map.single.val() | self.pairs.phase.val());
        self.lane_after.next = self.next_lane.q.val() + self.one.val();
        self.high_lane.next = self.lane_after.val();
        if self.next_lane.q.val() == self.lane_map.last.val() {
            self.high_lane.next = 0.into();
        }
        self.lane_after_high.next = self.high_lane.val() + self.one.val();
        self.wrap.next = self.place_low.val()
            & self.place_high.val()
            & (self.next_lane.q.val() == self.lane_map.last.val());
        // A beat leaves when its last logical lane is filled, or its LTP ended not in time.
        self.complete.next = (self.place_low.val()
            & (self.next_lane.q.val() == self.lane_map.last.val()))
            | (self.place_high.val() & (self.high_lane.val() == self.lane_map.last.val()))
            | (self.pairs.trailer.val() & !self.pairs.fire.val());
        self.beat_end.next = self.next_lane.q.val();
        if self.place_high.val() & !self.wrap.val() {
            self.beat_end.next = self.high_lane.val();
        }
        if self.place_high.val() {
            self.next_lane.d.next = self.lane_after_high.val();
        } else if self.place_low.val() {
            self.next_lane.d.next = self.high_lane.val();
        }
        if self.complete.val() {
            self.next_lane.d.next = 0.into();
            if self.wrap.val() {
                self.next_lane.d.next = self.one.val();
            }
        }

        self.valid_acc.next = 0.into();
        self.start_acc.next = 0.into();
        self.data_acc.next = 0.into();
        self.held_start_acc.next = self.held_start.q.val();
        for p in 0..4 {
            self.lane_index.next = self
                .lane_map
                .indices
                .val()
                .get_bits::<2>(self.index_shift[p].val().index());
            self.hit_lo.next = self.place_low.val()
                & self.lane_map.lane_mask.val().get_bit(p)
                & (self.lane_index.val() == self.next_lane.q.val());
            self.hit_hi.next = self.place_high.val()
                & self.lane_map.lane_mask.val().get_bit(p)
                & (self.lane_index.val() == self.high_lane.val());
            self.incoming.next = self.pairs.low.val();
            if self.hit_hi.val() {
                self.incoming.next = self.pairs.high.val();
            }
            if self.hit_lo.val() | self.hit_hi.val() {
                self.held[p].d.next = self.incoming.val();
                self.held_start_acc.next = self
                    .held_start_acc
                    .val()
                    .replace_bit(p, self.hit_lo.val() & self.pairs.start.val());
            }
            self.take_new.next = self.hit_lo.val() | (self.hit_hi.val() & !self.wrap.val());
            self.in_beat.next = self.complete.val()
                & self.lane_map.lane_mask.val().get_bit(p)
                & (self.lane_index.val() <= self.beat_end.val());
            self.lane_data.next = 0.into();
            if self.in_beat.val() {
                self.valid_acc.next = self.valid_acc.val().replace_bit(p, true);
                if self.take_new.val() {
                    self.lane_data.next = self.incoming.val();
                    self.start_acc.next = self
                        .start_acc
                        .val()
                        .replace_bit(p, self.hit_lo.val() & self.pairs.start.val());
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

        if !self.advance.val() {
            self.next_lane.d.next = self.next_lane.q.val();
            self.held_start.d.next = self.held_start.q.val();
            self.out_valid.d.next = self.out_valid.q.val();
            self.out_start.d.next = self.out_start.q.val();
            self.out_data.d.next = self.out_data.q.val();
            for p in 0..4 {
                self.held[p].d.next = self.held[p].q.val();
            }
        }
        if self.reset.val() {
            self.next_lane.d.next = 0.into();
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
