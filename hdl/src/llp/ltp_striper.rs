//! LTP striper: the transmit gearbox from LTP words (65-bit flits) to lane beats.
//!
//! Input: each LTP arrives on `sink` as 17 beats, its 16 flits then the trailer beat (trailer
//! in bits 15..0, the other bits zero). There is no framing signal: the striper counts beats
//! from reset. Output: `lanes`, one beat per cycle of up to `L` XFRs (`L` = set bits of the
//! lane mask), XFR `g` on logical lane `g mod L` (logical lane `n` = the `n`-th set bit of
//! `mask`), `start` on the lane carrying an LTP's XFR 0; lanes have no backpressure, and a
//! cycle with nothing to send has `valid` = 0. Software model: [`super::ltp::stripe`].
//!
//! Gearbox: since 65 = 2 x 32 + 1, flit `i` starts in XFR `2i` at bit offset `i`, so XFRs `2i`
//! and `2i+1` are 64 bits at offset `16 - i` of `{flit i, top 16 bits of flit i-1}`, and XFR 32
//! is the same window of the trailer beat at offset 0: one 16-way shift of 81 bits. XFRs go
//! into a queue of six, from which the beat former takes `L` at once.
//!
//! Partial beats: when an LTP's last XFR does not fill its beat, the next LTP's XFRs complete
//! it if the next LTP's flit 0 is accepted in the cycle right after the trailer ("in time");
//! otherwise the partial beat is sent as soon as it reaches the head of the queue (valid only
//! on the used logical lanes) and the next LTP starts on logical lane 0 of a new beat, i.e. the
//! rotation restarts (sequence state 0).
//!
//! `mask` (active physical lanes, at least one set) is sampled in every cycle in which the
//! striper is idle between LTPs with nothing queued (no partial beat pending), including the
//! cycle in which the next LTP's flit 0 is accepted; change it only while the input is idle
//! between LTPs and the last beat has been formed. A new mask therefore always starts a
//! restarted rotation.
//!
//! Throughput: one flit per cycle in; `sink.ready` is low only when the queue could overflow,
//! which happens only at `L` = 1 (one XFR per cycle out). Latency: two cycles from the beat
//! accepted on `sink` to its XFRs on `lanes` (whose outputs come from flip-flops).
//!
//! Ports: `clock`, `reset` (synchronous, active high: drops the queue and the LTP in
//! progress; the next beat on `sink` is flit 0), `sink`, `mask`, `lanes`.
use super::lane_channel::LaneChannelOut;
use crate::stream::StreamSink;
use rust_hdl::prelude::*;

/// Transmit gearbox from 17 LTP beats (16 flits, trailer) to beats of up to 4 lane XFRs.
#[derive(LogicBlock)]
pub struct LtpStriper {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: empties the queue and restarts the beat count at flit 0.
    pub reset: Signal<In, bool>,
    /// LTP beats: 16 flits, then the trailer in bits 15..0.
    pub sink: StreamSink<Bits<65>>,
    /// Active physical lanes (at least one); sampled only while idle between LTPs.
    pub mask: Signal<In, Bits<4>>,
    /// Lane beats to the PHY.
    pub lanes: LaneChannelOut,
    // The XFR queue: entry e at bits 32e..32e+31, entries at and above `count` zero.
    queue: DFF<Bits<192>>,
    q_start: DFF<Bits<6>>,
    // Entry ends an LTP that was not followed in time (a partial beat may end there).
    q_last: DFF<Bits<6>>,
    count: DFF<Bits<3>>,
    // 16 - (beat number within the LTP): the gearbox shift; 0 at the trailer beat.
    shift: DFF<Bits<5>>,
    prev_top: DFF<Bits<16>>,
    // The trailer XFR was pushed on the last edge; decided this cycle whether in time.
    open_end: DFF<bool>,
    lane_mask: DFF<Bits<4>>,
    lane_count: DFF<Bits<3>>,
    // Bits 1..L-1 set: bit `f + 1` set iff `f < L - 1`.
    lane_below: DFF<Bits<5>>,
    out_valid: DFF<Bits<4>>,
    out_start: DFF<Bits<4>>,
    out_data: DFF<Bits<128>>,
    one3: Constant<Bits<3>>,
    one5: Constant<Bits<5>>,
    one6: Constant<Bits<6>>,
    four: Constant<Bits<3>>,
    sixteen: Constant<Bits<5>>,
    nums: Vec<Constant<Bits<3>>>,
    lane_shift: Vec<Constant<Bits<8>>>,
    fire: Signal<Local, bool>,
    window: Signal<Local, Bits<81>>,
    pair: Signal<Local, Bits<64>>,
    push: Signal<Local, Bits<192>>,
    push_n: Signal<Local, Bits<3>>,
    push_start: Signal<Local, Bits<6>>,
    eff_last: Signal<Local, Bits<6>>,
    count_m1: Signal<Local, Bits<3>>,
    take_safe: Signal<Local, Bits<3>>,
    take: Signal<Local, Bits<3>>,
    found: Signal<Local, bool>,
    rest: Signal<Local, Bits<3>>,
    rest_safe: Signal<Local, Bits<3>>,
    take_mask: Signal<Local, Bits<5>>,
    idx: Vec<Signal<Local, Bits<2>>>,
    off: Signal<Local, Bits<8>>,
    idx_p: Signal<Local, Bits<2>>,
    lane_on: Signal<Local, bool>,
    data_acc: Signal<Local, Bits<128>>,
    valid_acc: Signal<Local, Bits<4>>,
    start_acc: Signal<Local, Bits<4>>,
    take_bits: Signal<Local, Bits<8>>,
    rest_bits: Signal<Local, Bits<8>>,
    new_count: Signal<Local, Bits<3>>,
    new_below: Signal<Local, Bits<5>>,
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
            queue: Default::default(),
            q_start: Default::default(),
            q_last: Default::default(),
            count: Default::default(),
            shift: Default::default(),
            prev_top: Default::default(),
            open_end: Default::default(),
            lane_mask: Default::default(),
            lane_count: Default::default(),
            lane_below: Default::default(),
            out_valid: Default::default(),
            out_start: Default::default(),
            out_data: Default::default(),
            one3: Constant::new(1u64.into()),
            one5: Constant::new(1u64.into()),
            one6: Constant::new(1u64.into()),
            four: Constant::new(4u64.into()),
            sixteen: Constant::new(16u64.into()),
            nums: (0..8).map(|n| Constant::new((n as u64).into())).collect(),
            lane_shift: (0..4)
                .map(|p| Constant::new(((32 * p) as u64).into()))
                .collect(),
            fire: Default::default(),
            window: Default::default(),
            pair: Default::default(),
            push: Default::default(),
            push_n: Default::default(),
            push_start: Default::default(),
            eff_last: Default::default(),
            count_m1: Default::default(),
            take_safe: Default::default(),
            take: Default::default(),
            found: Default::default(),
            rest: Default::default(),
            rest_safe: Default::default(),
            take_mask: Default::default(),
            idx: (0..4).map(|_| Default::default()).collect(),
            off: Default::default(),
            idx_p: Default::default(),
            lane_on: Default::default(),
            data_acc: Default::default(),
            valid_acc: Default::default(),
            start_acc: Default::default(),
            take_bits: Default::default(),
            rest_bits: Default::default(),
            new_count: Default::default(),
            new_below: Default::default(),
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
            self, clock, queue, q_start, q_last, count, shift, prev_top, open_end, lane_mask,
            lane_count, lane_below, out_valid, out_start, out_data
        );
        self.lanes.valid.next = self.out_valid.q.val();
        self.lanes.start.next = self.out_start.q.val();
        self.lanes.data.next = self.out_data.q.val();

        // Pop counts: `take_safe` ignores the in-time decision of this cycle (it never exceeds
        // `take`), so `sink.ready` does not depend on `sink.valid`.
        self.take_safe.next = 0.into();
        if self.count.q.val() >= self.lane_count.q.val() {
            self.take_safe.next = self.lane_count.q.val();
        }
        self.found.next = false;
        for f in 0..3 {
            if !self.found.val()
                & self.q_last.q.val().get_bit(f)
                & self.lane_below.q.val().get_bit(f + 1)
            {
                self.take_safe.next = self.nums[f + 1].val();
                self.found.next = true;
            }
        }
        self.rest_safe.next = self.count.q.val() - self.take_safe.val();
        self.sink.ready.next = self.rest_safe.val() <= self.four.val();
        self.fire.next = self.sink.valid.val() & self.sink.ready.val();

        // The last LTP's end closes (may end a partial beat) unless the next flit 0 came in time.
        self.count_m1.next = self.count.q.val() - self.one3.val();
        self.eff_last.next = self.q_last.q.val();
        if self.open_end.q.val() & !self.fire.val() {
            self.eff_last.next = self.q_last.q.val() | (self.one6.val() << self.count_m1.val());
        }
        self.take.next = 0.into();
        if self.count.q.val() >= self.lane_count.q.val() {
            self.take.next = self.lane_count.q.val();
        }
        self.found.next = false;
        for f in 0..3 {
            if !self.found.val()
                & self.eff_last.val().get_bit(f)
                & self.lane_below.q.val().get_bit(f + 1)
            {
                self.take.next = self.nums[f + 1].val();
                self.found.next = true;
            }
        }
        self.rest.next = self.count.q.val() - self.take.val();

        // Gearbox: two XFRs of a flit, or the trailer XFR.
        self.window.next = (bit_cast::<81, 65>(self.sink.data.val()) << 16)
            | bit_cast::<81, 16>(self.prev_top.q.val());
        self.pair.next = self.window.val().get_bits::<64>(self.shift.q.val().index());
        self.push_n.next = 0.into();
        self.push.next = 0.into();
        self.push_start.next = 0.into();
        if self.fire.val() {
            self.prev_top.d.next = self.sink.data.val().get_bits::<16>(49);
            if self.shift.q.val() == 0 {
                self.push_n.next = 1.into();
                self.push.next = bit_cast::<192, 32>(self.pair.val().get_bits::<32>(0));
                self.shift.d.next = self.sixteen.val();
            } else {
                self.push_n.next = 2.into();
                self.push.next = bit_cast::<192, 64>(self.pair.val());
                self.shift.d.next = self.shift.q.val() - 1;
            }
            if self.shift.q.val() == self.sixteen.val() {
                self.push_start.next = self.one6.val();
            }
        }
        self.open_end.d.next = self.fire.val() & (self.shift.q.val() == 0);

        // Queue update: pop `take` from the head, push at the new tail.
        self.take_bits.next = bit_cast::<8, 3>(self.take.val()) << 5;
        self.rest_bits.next = bit_cast::<8, 3>(self.rest.val()) << 5;
        self.queue.d.next = (self.queue.q.val() >> self.take_bits.val())
            | (self.push.val() << self.rest_bits.val());
        self.q_start.d.next =
            (self.q_start.q.val() >> self.take.val()) | (self.push_start.val() << self.rest.val());
        self.q_last.d.next = self.eff_last.val() >> self.take.val();
        self.count.d.next = self.rest.val() + self.push_n.val();

        // Beat former: logical lane n = entry n, valid for n < take; mapped to physical lanes.
        self.take_mask.next = (self.one5.val() << self.take.val()) - self.one5.val();
        self.idx[0].next = 0.into();
        for p in 1..4 {
            self.idx[p].next = self.idx[p - 1].val();
            if self.lane_mask.q.val().get_bit(p - 1) {
                self.idx[p].next = self.idx[p - 1].val() + 1;
            }
        }
        self.valid_acc.next = 0.into();
        self.start_acc.next = 0.into();
        self.data_acc.next = 0.into();
        for p in 0..4 {
            self.idx_p.next = self.idx[p].val();
            self.lane_on.next = self.lane_mask.q.val().get_bit(p)
                & self.take_mask.val().get_bit(self.idx_p.val().index());
            self.off.next = bit_cast::<8, 2>(self.idx_p.val()) << 5;
            if self.lane_on.val() {
                self.valid_acc.next = self.valid_acc.val().replace_bit(p, true);
                self.start_acc.next = self
                    .start_acc
                    .val()
                    .replace_bit(p, self.q_start.q.val().get_bit(self.idx_p.val().index()));
                self.data_acc.next = self.data_acc.val()
                    | (bit_cast::<128, 32>(
                        self.queue.q.val().get_bits::<32>(self.off.val().index()),
                    ) << self.lane_shift[p].val());
            }
        }
        self.out_valid.d.next = self.valid_acc.val();
        self.out_start.d.next = self.start_acc.val();
        self.out_data.d.next = self.data_acc.val();

        // Mask: sampled while idle between LTPs (nothing queued, next beat is flit 0).
        self.new_count.next = bit_cast::<3, 1>(self.mask.val().get_bits::<1>(0))
            + bit_cast::<3, 1>(self.mask.val().get_bits::<1>(1))
            + bit_cast::<3, 1>(self.mask.val().get_bits::<1>(2))
            + bit_cast::<3, 1>(self.mask.val().get_bits::<1>(3));
        self.new_below.next = (self.one5.val() << self.new_count.val()) - self.one5.val();
        if ((self.count.q.val() == 0) & (self.shift.q.val() == self.sixteen.val()))
            | self.reset.val()
        {
            self.lane_mask.d.next = self.mask.val();
            self.lane_count.d.next = self.new_count.val();
            self.lane_below.d.next = self.new_below.val() & !self.one5.val();
        }

        if self.reset.val() {
            self.queue.d.next = 0.into();
            self.q_start.d.next = 0.into();
            self.q_last.d.next = 0.into();
            self.count.d.next = 0.into();
            self.shift.d.next = self.sixteen.val();
            self.open_end.d.next = false;
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
