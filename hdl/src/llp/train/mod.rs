//! `LinkTrainer`: link bring-up and retraining, between an endpoint's striper/deframer and the
//! wire.
//!
//! Outside UP every physical lane carries a training-sequence word (layout in [`ts_word`])
//! with `valid` high and `start` high (low on 16-bit lanes, see [`lane_check`]), the word index advancing every cycle. Each lane's checker
//! ([`lane_check`]) counts the good TS words in a row it receives; lanes with at least
//! [`ts_word::GOOD_RUN`] are `rx_good`. The far end's state, mask and identity come from the
//! reference word ([`far_end`]): the good word of the lowest-numbered lane whose run (counting
//! it) is at least 2. The state machine ([`state`]):
//!
//! - SEEK: send ready = 0 and our live `rx_good`; to READY once some lane works in each
//!   direction (`rx_good != 0` and the far end's mask `!= 0`), freezing `rx_good`.
//! - READY: send ready = 1 and the frozen mask; to UP after hearing 8 ready words with one
//!   mask, telling 16 ready words since the first was heard, and `quiet`; after
//!   `train_timeout` cycles to SEEK.
//! - UP: `lanes_out` is `from_striper`, `to_deframer` is `lanes_in`; `tx_mask` is the far
//!   end's frozen mask, `rx_mask` ours. To SEEK on `link_fail` or when 4 good words with
//!   ready = 0 arrive in a row on a lane (the far end started training; its remaining ready
//!   words after we went up do not count).
//!
//! Outside UP `to_deframer` has `valid` and `start` low (its `data` follows `lanes_in`).
//! `up`, `went_up`, `state`, the masks, `far_fresh` and the counters come from flip-flops.
//!
//! Our chip ID travels only in training words (index 1 its high byte, index 2 its low byte),
//! so the far end knows the bytes of the last such words the wire took. A `chip_id` changed
//! during training holds READY until both bytes have gone out (at most four words); one
//! changed while UP sends the link to SEEK (a `link_fail`), which trains again to announce it.
//!
//! Parameter: `train_timeout` (>= 1), the cycles spent in READY before giving up.
//! Reset (synchronous): SEEK, own fresh = 1, counters and knowledge of the far end cleared.
pub mod far_end;
pub mod lane_check;
pub mod state;
pub mod ts_word;

use crate::llp::lane_channel::{LaneChannelIn, LaneChannelOut, MAX_LANES};
use far_end::FarEnd;
use lane_check::LaneCheck;
use rust_hdl::prelude::*;
use state::TrainState;
use ts_word::TsGenerator;

/// The link trainer of one endpoint.
#[derive(LogicBlock)]
pub struct LinkTrainer {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset; after it: SEEK, own fresh = 1.
    pub reset: Signal<In, bool>,
    /// The link's LTP beats (sent while up).
    pub from_striper: LaneChannelIn,
    /// To the wire.
    pub lanes_out: LaneChannelOut,
    /// From the wire.
    pub lanes_in: LaneChannelIn,
    /// `lanes_in` while up; `valid` and `start` low otherwise.
    pub to_deframer: LaneChannelOut,
    /// Our identity, sent in TS words.
    pub chip_type: Signal<In, Bits<8>>,
    /// Our identity.
    pub chip_id: Signal<In, Bits<16>>,
    /// Our identity.
    pub port_number: Signal<In, Bits<8>>,
    /// The wire takes this cycle's beat on `lanes_out` (always at 32-bit lanes; every second
    /// cycle at most at 16-bit lanes): the training-word index advances only then.
    pub tx_slot: Signal<In, bool>,
    /// Lanes this end may use (`link.lanes`): the others carry nothing and are never good.
    pub allowed: Signal<In, Bits<4>>,
    /// Pulse from the receiver: it cannot make progress, go down (ignored outside UP).
    pub link_fail: Signal<In, bool>,
    /// The layer above may be restarted now (gate for READY -> UP, with `id_sent`).
    pub quiet: Signal<In, bool>,
    /// Registered: the link is up (LTPs flow).
    pub up: Signal<Out, bool>,
    /// One-cycle pulse in the first cycle `up` is high.
    pub went_up: Signal<Out, bool>,
    /// Valid while up: the far end had not been up since its reset.
    pub far_fresh: Signal<Out, bool>,
    /// Lanes to send on (valid while up): the far end's frozen mask.
    pub tx_mask: Signal<Out, Bits<4>>,
    /// Lanes to receive on (valid while up): our frozen mask.
    pub rx_mask: Signal<Out, Bits<4>>,
    /// Live: lanes with at least 8 consecutive good TS words.
    pub rx_good: Signal<Out, Bits<4>>,
    /// 0 SEEK, 1 READY, 2 UP.
    pub state: Signal<Out, Bits<2>>,
    /// The far end's identity, latched from its TS words.
    pub far_chip_type: Signal<Out, Bits<8>>,
    /// The far end's identity.
    pub far_chip_id: Signal<Out, Bits<16>>,
    /// The far end's identity.
    pub far_port: Signal<Out, Bits<8>>,
    /// All four identity words latched since the last SEEK entry.
    pub far_known: Signal<Out, bool>,
    /// Times the link went down (UP -> SEEK), saturating.
    pub trainings: Signal<Out, Bits<16>>,
    /// ... of which because the far end started training.
    pub far_downs: Signal<Out, Bits<16>>,
    generator: TsGenerator,
    checks: Vec<LaneCheck>,
    far: FarEnd,
    machine: TrainState,
    silent: Constant<Bits<4>>,
    /// The `start` of TS words: every lane at 32-bit lanes, none at 16 (see `lane_check`).
    ts_start: Constant<Bits<4>>,
    good_lanes: Signal<Local, Bits<4>>,
    seeking_lanes: Signal<Local, Bits<4>>,
    reference_lanes: Signal<Local, Bits<4>>,
    /// The chip ID's high byte as the last word of index 1 the wire took carried it.
    sent_id_high: DFF<Bits<8>>,
    /// The chip ID's low byte as the last word of index 2 the wire took carried it.
    sent_id_low: DFF<Bits<8>>,
    /// Registered: up while `chip_id` differs from what the training words carried.
    id_stale: DFF<bool>,
    /// The training words sent last carried `chip_id` whole.
    id_sent: Signal<Local, bool>,
    index_high_byte: Constant<Bits<2>>,
    index_low_byte: Constant<Bits<2>>,
}

impl LinkTrainer {
    /// A trainer that gives up READY after `train_timeout` (>= 1) cycles, on a wire that
    /// takes `xfr_cycles` (1 or 2) cycles per XFR.
    pub fn new(train_timeout: u16, xfr_cycles: usize) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            from_striper: Default::default(),
            lanes_out: Default::default(),
            lanes_in: Default::default(),
            to_deframer: Default::default(),
            chip_type: Default::default(),
            chip_id: Default::default(),
            port_number: Default::default(),
            tx_slot: Default::default(),
            allowed: Default::default(),
            link_fail: Default::default(),
            quiet: Default::default(),
            up: Default::default(),
            went_up: Default::default(),
            far_fresh: Default::default(),
            tx_mask: Default::default(),
            rx_mask: Default::default(),
            rx_good: Default::default(),
            state: Default::default(),
            far_chip_type: Default::default(),
            far_chip_id: Default::default(),
            far_port: Default::default(),
            far_known: Default::default(),
            trainings: Default::default(),
            far_downs: Default::default(),
            generator: Default::default(),
            checks: (0..MAX_LANES)
                .map(|n| LaneCheck::new(n, xfr_cycles))
                .collect(),
            far: Default::default(),
            machine: TrainState::new(train_timeout),
            silent: Constant::new(0u64.into()),
            ts_start: Constant::new((if xfr_cycles == 1 { 0xFu64 } else { 0 }).into()),
            good_lanes: Default::default(),
            seeking_lanes: Default::default(),
            reference_lanes: Default::default(),
            sent_id_high: Default::default(),
            sent_id_low: Default::default(),
            id_stale: Default::default(),
            id_sent: Default::default(),
            index_high_byte: Constant::new(1u64.into()),
            index_low_byte: Constant::new(2u64.into()),
        }
    }
}

impl Logic for LinkTrainer {
    #[hdl_gen]
    fn update(&mut self) {
        // Receive: the lane checkers see the whole lane bundle; their one-hot outputs OR into
        // lane masks.
        self.good_lanes.next = 0.into();
        self.seeking_lanes.next = 0.into();
        self.reference_lanes.next = 0.into();
        for n in 0..MAX_LANES {
            self.checks[n].clock.next = self.clock.val();
            self.checks[n].reset.next = self.reset.val();
            LaneChannelIn::link(&mut self.lanes_in, &mut self.checks[n].lanes);
            self.good_lanes.next = self.good_lanes.val() | self.checks[n].rx_good.val();
            self.seeking_lanes.next = self.seeking_lanes.val() | self.checks[n].far_seeking.val();
            self.reference_lanes.next = self.reference_lanes.val() | self.checks[n].reference.val();
        }
        // Lanes outside `allowed` do not exist for this end.
        self.good_lanes.next = self.good_lanes.val() & self.allowed.val();
        self.seeking_lanes.next = self.seeking_lanes.val() & self.allowed.val();
        self.reference_lanes.next = self.reference_lanes.val() & self.allowed.val();
        self.far.clock.next = self.clock.val();
        self.far.reset.next = self.reset.val();
        self.far.words.next = self.lanes_in.data.val();
        self.far.reference.next = self.reference_lanes.val();
        self.far.restart.next = self.machine.restart.val();

        self.machine.clock.next = self.clock.val();
        self.machine.reset.next = self.reset.val();
        self.machine.rx_good.next = self.good_lanes.val();
        self.machine.far_seeking.next = self.seeking_lanes.val();
        self.machine.heard_present.next = self.far.present.val();
        self.machine.heard_ready.next = self.far.ready.val();
        self.machine.heard_fresh.next = self.far.fresh.val();
        self.machine.heard_mask.next = self.far.mask.val();
        self.machine.far_mask.next = self.far.far_mask.val();
        // Our chip ID reaches the far end only in training words: what it knows is what the
        // last words of index 1 and 2 the wire took carried. An ID changed in training holds
        // READY until both bytes went out; one changed while up trains again.
        self.sent_id_high.clock.next = self.clock.val();
        self.sent_id_low.clock.next = self.clock.val();
        self.id_stale.clock.next = self.clock.val();
        self.sent_id_high.d.next = self.sent_id_high.q.val();
        self.sent_id_low.d.next = self.sent_id_low.q.val();
        if self.tx_slot.val() & !self.machine.up.val() {
            if self.machine.send_index.val() == self.index_high_byte.val() {
                self.sent_id_high.d.next = self.chip_id.val().get_bits::<8>(8);
            }
            if self.machine.send_index.val() == self.index_low_byte.val() {
                self.sent_id_low.d.next = self.chip_id.val().get_bits::<8>(0);
            }
        }
        self.id_sent.next = (self.sent_id_high.q.val() == self.chip_id.val().get_bits::<8>(8))
            & (self.sent_id_low.q.val() == self.chip_id.val().get_bits::<8>(0));
        self.id_stale.d.next = self.machine.up.val() & !self.id_sent.val() & !self.reset.val();
        self.machine.link_fail.next = self.link_fail.val() | self.id_stale.q.val();
        self.machine.quiet.next = self.quiet.val() & self.id_sent.val();
        self.machine.tx_slot.next = self.tx_slot.val();

        // Transmit: TS words, or the striper's beats while up.
        self.generator.index.next = self.machine.send_index.val();
        self.generator.fresh.next = self.machine.send_fresh.val();
        self.generator.ready.next = self.machine.send_ready.val();
        self.generator.mask.next = self.machine.send_mask.val();
        self.generator.chip_type.next = self.chip_type.val();
        self.generator.chip_id.next = self.chip_id.val();
        self.generator.port_number.next = self.port_number.val();
        self.lanes_out.valid.next = self.generator.lanes.valid.val() & self.allowed.val();
        self.lanes_out.start.next =
            self.generator.lanes.start.val() & self.allowed.val() & self.ts_start.val();
        self.lanes_out.data.next = self.generator.lanes.data.val();
        self.to_deframer.valid.next = self.silent.val();
        self.to_deframer.start.next = self.silent.val();
        self.to_deframer.data.next = self.lanes_in.data.val();
        if self.machine.up.val() {
            self.lanes_out.valid.next = self.from_striper.valid.val();
            self.lanes_out.start.next = self.from_striper.start.val();
            self.lanes_out.data.next = self.from_striper.data.val();
            self.to_deframer.valid.next = self.lanes_in.valid.val();
            self.to_deframer.start.next = self.lanes_in.start.val();
        }

        self.up.next = self.machine.up.val();
        self.went_up.next = self.machine.went_up.val();
        self.far_fresh.next = self.machine.far_fresh.val();
        self.tx_mask.next = self.machine.tx_mask.val();
        self.rx_mask.next = self.machine.rx_mask.val();
        self.rx_good.next = self.good_lanes.val();
        self.state.next = self.machine.state.val();
        self.far_chip_type.next = self.far.far_chip_type.val();
        self.far_chip_id.next = self.far.far_chip_id.val();
        self.far_port.next = self.far.far_port.val();
        self.far_known.next = self.far.far_known.val();
        self.trainings.next = self.machine.trainings.val();
        self.far_downs.next = self.machine.far_downs.val();
    }
}

#[test]
fn link_trainer_is_synthesizable() {
    let mut uut = LinkTrainer::new(300, 2);
    uut.connect_all();
    yosys_validate("link_trainer", &generate_verilog(&uut)).unwrap();
}
