//! `BistLanes`: the BIST's lane side, a [`PrbsGen`] and a [`PrbsCheck`] per physical lane.
//!
//! Send: in a cycle with `send` high every lane of `tx_mask` carries its generator's word with
//! `valid` high and `start` low (so no receiver takes it for a training word or the start of
//! an LTP), and every generator steps; otherwise nothing is sent. Receive: while `check` is
//! high each lane's checker reads its lane of `lanes_in` (`data` where `valid` is high and
//! `start` low: a word with `start` is the far end's training word, sent before it entered
//! the BIST or after it left). `errors` holds the
//! four 16-bit counts (lane `n` at bits `16n ..`), `seen` the lanes that received a word, and
//! `clean` says every lane of `rx_mask` (at least one) received words and counted no error:
//! the run's pass.
//!
//! Reset (synchronous; the controller's `clear` at the start of a run): generators to their
//! seeds ([`lane_seed`]), checkers cleared.
use super::lane_seed;
use super::prbs_check::PrbsCheck;
use super::prbs_gen::PrbsGen;
use crate::llp::lane_channel::{LaneChannelIn, LaneChannelOut, MAX_LANES, XFR_BITS};
use rust_hdl::prelude::*;

/// The four lanes' senders and checkers.
#[derive(LogicBlock)]
pub struct BistLanes {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: seeds loaded, counts cleared.
    pub reset: Signal<In, bool>,
    /// Send a pattern word on every lane of `tx_mask` this cycle.
    pub send: Signal<In, bool>,
    /// Check what arrives this cycle.
    pub check: Signal<In, bool>,
    /// Lanes to send on.
    pub tx_mask: Signal<In, Bits<4>>,
    /// Lanes the result covers.
    pub rx_mask: Signal<In, Bits<4>>,
    /// The pattern words out.
    pub lanes_out: LaneChannelOut,
    /// The far end's pattern words in.
    pub lanes_in: LaneChannelIn,
    /// Errors per physical lane, 16 bits each, saturating.
    pub errors: Signal<Out, Bits<64>>,
    /// Lanes that received a pattern word since reset.
    pub seen: Signal<Out, Bits<4>>,
    /// Every lane of `rx_mask` (and there is one) received words and counted no error.
    pub clean: Signal<Out, bool>,
    /// Per lane: an error counted this cycle (events; acknowledged by the parent or unused).
    pub error_lanes: Signal<Out, Bits<4>>,
    generators: Vec<PrbsGen>,
    checks: Vec<PrbsCheck>,
    lane_bits: Vec<Constant<Bits<4>>>,
    lane_shift: Vec<Constant<Bits<8>>>,
    count_shift: Vec<Constant<Bits<8>>>,
    no_lanes: Constant<Bits<4>>,
    lane_word: Signal<Local, Bits<32>>,
    lane_count: Signal<Local, Bits<16>>,
    data_acc: Signal<Local, Bits<128>>,
    errors_acc: Signal<Local, Bits<64>>,
    seen_acc: Signal<Local, Bits<4>>,
    dirty_acc: Signal<Local, Bits<4>>,
    error_acc: Signal<Local, Bits<4>>,
}

impl Default for BistLanes {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            send: Default::default(),
            check: Default::default(),
            tx_mask: Default::default(),
            rx_mask: Default::default(),
            lanes_out: Default::default(),
            lanes_in: Default::default(),
            errors: Default::default(),
            seen: Default::default(),
            clean: Default::default(),
            error_lanes: Default::default(),
            generators: (0..MAX_LANES).map(|n| PrbsGen::new(lane_seed(n))).collect(),
            checks: (0..MAX_LANES).map(|_| Default::default()).collect(),
            lane_bits: (0..MAX_LANES)
                .map(|n| Constant::new((1u64 << n).into()))
                .collect(),
            lane_shift: (0..MAX_LANES)
                .map(|n| Constant::new(((n * XFR_BITS) as u64).into()))
                .collect(),
            count_shift: (0..MAX_LANES)
                .map(|n| Constant::new(((n * 16) as u64).into()))
                .collect(),
            no_lanes: Constant::new(0u64.into()),
            lane_word: Default::default(),
            lane_count: Default::default(),
            data_acc: Default::default(),
            errors_acc: Default::default(),
            seen_acc: Default::default(),
            dirty_acc: Default::default(),
            error_acc: Default::default(),
        }
    }
}

impl Logic for BistLanes {
    #[hdl_gen]
    fn update(&mut self) {
        self.data_acc.next = 0.into();
        self.errors_acc.next = 0.into();
        self.seen_acc.next = 0.into();
        self.dirty_acc.next = 0.into();
        self.error_acc.next = 0.into();
        for n in 0..MAX_LANES {
            self.generators[n].clock.next = self.clock.val();
            self.generators[n].reset.next = self.reset.val();
            self.generators[n].advance.next = self.send.val();
            self.lane_word.next = self.generators[n].word.val();
            self.data_acc.next = self.data_acc.val()
                | (bit_cast::<128, 32>(self.lane_word.val()) << self.lane_shift[n].val());
            self.checks[n].clock.next = self.clock.val();
            self.checks[n].reset.next = self.reset.val();
            self.checks[n].enable.next = self.check.val();
            // A word with `start` high is a training word (the far end is not in BIST yet or
            // already out of it): not a pattern word.
            self.checks[n].valid.next =
                (self.lanes_in.valid.val() & !self.lanes_in.start.val() & self.lane_bits[n].val())
                    .any();
            self.checks[n].data.next = self
                .lanes_in
                .data
                .val()
                .get_bits::<32>(self.lane_shift[n].val().index());
            self.lane_count.next = self.checks[n].errors.val();
            self.errors_acc.next = self.errors_acc.val()
                | (bit_cast::<64, 16>(self.lane_count.val()) << self.count_shift[n].val());
            if self.checks[n].seen.val() {
                self.seen_acc.next = self.seen_acc.val() | self.lane_bits[n].val();
            }
            if !self.checks[n].seen.val() | self.checks[n].errors.val().any() {
                self.dirty_acc.next = self.dirty_acc.val() | self.lane_bits[n].val();
            }
            if self.checks[n].error.val() {
                self.error_acc.next = self.error_acc.val() | self.lane_bits[n].val();
            }
        }
        self.lanes_out.valid.next = self.no_lanes.val();
        if self.send.val() {
            self.lanes_out.valid.next = self.tx_mask.val();
        }
        self.lanes_out.start.next = self.no_lanes.val();
        self.lanes_out.data.next = self.data_acc.val();
        self.errors.next = self.errors_acc.val();
        self.seen.next = self.seen_acc.val();
        self.error_lanes.next = self.error_acc.val();
        self.clean.next =
            self.rx_mask.val().any() & !(self.dirty_acc.val() & self.rx_mask.val()).any();
    }
}

#[test]
fn bist_lanes_is_synthesizable() {
    let mut uut = BistLanes::default();
    uut.connect_all();
    yosys_validate("bist_lanes", &generate_verilog(&uut)).unwrap();
}
