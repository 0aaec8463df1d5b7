//! The link training state machine: SEEK, READY, UP (see [`super`] for the protocol).
//!
//! Every decision reads registers (the lane checkers' `rx_good` and `far_seeking`, the latched
//! far mask, `heard`, `told`, the READY timer) and this cycle's inputs (`link_fail`, `quiet`
//! and the reference word of this cycle, which `heard` counts).
//!
//! - SEEK: to READY when `rx_good != 0` and the latest reference word's mask (`far_mask`) is not
//!   zero; `rx_frozen := rx_good`, the timer restarts.
//! - READY: a reference word with ready = 1 is heard: `heard` counts it (saturating at
//!   [`HEARD_NEEDED`]) and its mask and fresh bit are latched, unless its mask differs from the
//!   one latched at the previous heard word, when `heard` restarts at 1. `told` counts the
//!   ready words sent (cycles with `tx_slot`) in READY with `heard >= 1` (saturating at [`TOLD_NEEDED`]). To UP
//!   when `heard >= 8`, `told >= 16` and `quiet`; else after `train_timeout` cycles in READY
//!   to SEEK.
//! - UP: to SEEK on `link_fail` or when a lane's `seek_run` reached [`FAR_SEEK_RUN`]
//!   (`far_seeking`), counting `trainings` and, for the latter, `far_downs` (both saturating).
//!   `own_fresh` clears in UP.
//!
//! The word index advances in cycles with `tx_slot` (the wire took the word).
//! Leaving READY or UP for SEEK clears `heard` and `told` and pulses `restart` (the far end's
//! identity must be heard again). Reset: SEEK, `own_fresh` high, everything else zero.
use super::ts_word::*;
use rust_hdl::prelude::*;

/// State codes of the `state` output.
pub const STATE_SEEK: u64 = 0;
/// READY.
pub const STATE_READY: u64 = 1;
/// UP.
pub const STATE_UP: u64 = 2;

/// The state machine of [`super::LinkTrainer`].
#[derive(LogicBlock)]
pub struct TrainState {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Live good lanes.
    pub rx_good: Signal<In, Bits<4>>,
    /// Lanes on which the far end has been seeking for [`FAR_SEEK_RUN`] words.
    pub far_seeking: Signal<In, Bits<4>>,
    /// A reference word is present this cycle ...
    pub heard_present: Signal<In, bool>,
    /// ... with this ready bit,
    pub heard_ready: Signal<In, bool>,
    /// ... fresh bit,
    pub heard_fresh: Signal<In, bool>,
    /// ... and mask.
    pub heard_mask: Signal<In, Bits<4>>,
    /// The latest reference word's mask.
    pub far_mask: Signal<In, Bits<4>>,
    /// The layer above cannot make progress.
    pub link_fail: Signal<In, bool>,
    /// The layer above may be restarted.
    pub quiet: Signal<In, bool>,
    /// The wire takes the word sent this cycle: the word index and `told` advance.
    pub tx_slot: Signal<In, bool>,
    /// `STATE_SEEK`, `STATE_READY` or `STATE_UP` (registered).
    pub state: Signal<Out, Bits<2>>,
    /// Registered: in UP.
    pub up: Signal<Out, bool>,
    /// Registered: the first cycle of UP.
    pub went_up: Signal<Out, bool>,
    /// The far end's frozen mask (from the last heard ready word).
    pub tx_mask: Signal<Out, Bits<4>>,
    /// Our frozen receive mask.
    pub rx_mask: Signal<Out, Bits<4>>,
    /// The far end's fresh bit from the last heard ready word.
    pub far_fresh: Signal<Out, bool>,
    /// UP -> SEEK transitions.
    pub trainings: Signal<Out, Bits<16>>,
    /// ... of which the far end started training.
    pub far_downs: Signal<Out, Bits<16>>,
    /// TS fields to send: word index,
    pub send_index: Signal<Out, Bits<2>>,
    /// ... fresh bit,
    pub send_fresh: Signal<Out, bool>,
    /// ... ready bit,
    pub send_ready: Signal<Out, bool>,
    /// ... mask.
    pub send_mask: Signal<Out, Bits<4>>,
    /// Pulse: entering SEEK from READY or UP at this edge.
    pub restart: Signal<Out, bool>,
    phase: DFF<Bits<2>>,
    up_reg: DFF<bool>,
    went_up_reg: DFF<bool>,
    /// Held inverted (`fresh = !been_up`) so the power-up value is already right.
    been_up: DFF<bool>,
    index: DFF<Bits<2>>,
    heard: DFF<Bits<4>>,
    told: DFF<Bits<5>>,
    timer: DFF<Bits<16>>,
    far_mask_ready: DFF<Bits<4>>,
    far_fresh_reg: DFF<bool>,
    rx_frozen: DFF<Bits<4>>,
    trainings_reg: DFF<Bits<16>>,
    far_downs_reg: DFF<Bits<16>>,
    seek: Constant<Bits<2>>,
    ready: Constant<Bits<2>>,
    up_code: Constant<Bits<2>>,
    one_index: Constant<Bits<2>>,
    one_heard: Constant<Bits<4>>,
    heard_needed: Constant<Bits<4>>,
    one_told: Constant<Bits<5>>,
    told_needed: Constant<Bits<5>>,
    one_count: Constant<Bits<16>>,
    count_max: Constant<Bits<16>>,
    timeout_last: Constant<Bits<16>>,
    in_seek: Signal<Local, bool>,
    in_ready: Signal<Local, bool>,
    in_up: Signal<Local, bool>,
    hear: Signal<Local, bool>,
    go_ready: Signal<Local, bool>,
    go_up: Signal<Local, bool>,
    give_up: Signal<Local, bool>,
    far_started: Signal<Local, bool>,
    go_down: Signal<Local, bool>,
}

impl TrainState {
    /// A state machine that gives up READY after `train_timeout` (>= 1) cycles.
    pub fn new(train_timeout: u16) -> Self {
        assert!(
            train_timeout >= 1,
            "TrainState: train_timeout must be at least 1 cycle"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rx_good: Default::default(),
            far_seeking: Default::default(),
            heard_present: Default::default(),
            heard_ready: Default::default(),
            heard_fresh: Default::default(),
            heard_mask: Default::default(),
            far_mask: Default::default(),
            link_fail: Default::default(),
            quiet: Default::default(),
            tx_slot: Default::default(),
            state: Default::default(),
            up: Default::default(),
            went_up: Default::default(),
            tx_mask: Default::default(),
            rx_mask: Default::default(),
            far_fresh: Default::default(),
            trainings: Default::default(),
            far_downs: Default::default(),
            send_index: Default::default(),
            send_fresh: Default::default(),
            send_ready: Default::default(),
            send_mask: Default::default(),
            restart: Default::default(),
            phase: Default::default(),
            up_reg: Default::default(),
            went_up_reg: Default::default(),
            been_up: Default::default(),
            index: Default::default(),
            heard: Default::default(),
            told: Default::default(),
            timer: Default::default(),
            far_mask_ready: Default::default(),
            far_fresh_reg: Default::default(),
            rx_frozen: Default::default(),
            trainings_reg: Default::default(),
            far_downs_reg: Default::default(),
            seek: Constant::new(STATE_SEEK.into()),
            ready: Constant::new(STATE_READY.into()),
            up_code: Constant::new(STATE_UP.into()),
            one_index: Constant::new(1u64.into()),
            one_heard: Constant::new(1u64.into()),
            heard_needed: Constant::new((HEARD_NEEDED as u64).into()),
            one_told: Constant::new(1u64.into()),
            told_needed: Constant::new((TOLD_NEEDED as u64).into()),
            one_count: Constant::new(1u64.into()),
            count_max: Constant::new(0xFFFFu64.into()),
            timeout_last: Constant::new((train_timeout as u64 - 1).into()),
            in_seek: Default::default(),
            in_ready: Default::default(),
            in_up: Default::default(),
            hear: Default::default(),
            go_ready: Default::default(),
            go_up: Default::default(),
            give_up: Default::default(),
            far_started: Default::default(),
            go_down: Default::default(),
        }
    }
}

impl Logic for TrainState {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            phase,
            up_reg,
            went_up_reg,
            been_up,
            index,
            heard,
            told,
            timer,
            far_mask_ready,
            far_fresh_reg,
            rx_frozen,
            trainings_reg,
            far_downs_reg
        );
        self.in_seek.next = self.phase.q.val() == self.seek.val();
        self.in_ready.next = self.phase.q.val() == self.ready.val();
        self.in_up.next = self.phase.q.val() == self.up_code.val();
        if self.tx_slot.val() {
            self.index.d.next = self.index.q.val() + self.one_index.val();
        }
        self.send_index.next = self.index.q.val();
        self.send_fresh.next = !self.been_up.q.val();
        self.send_ready.next = self.in_ready.val();
        self.send_mask.next = self.rx_good.val();
        if self.in_ready.val() {
            self.send_mask.next = self.rx_frozen.q.val();
        }
        // SEEK: both directions have a working lane.
        self.go_ready.next =
            self.in_seek.val() & self.rx_good.val().any() & self.far_mask.val().any();
        if self.go_ready.val() {
            self.phase.d.next = self.ready.val();
            self.rx_frozen.d.next = self.rx_good.val();
            self.timer.d.next = 0.into();
        }
        // READY: count what we heard and what we told.
        self.hear.next = self.in_ready.val() & self.heard_present.val() & self.heard_ready.val();
        if self.hear.val() {
            self.far_mask_ready.d.next = self.heard_mask.val();
            self.far_fresh_reg.d.next = self.heard_fresh.val();
            if self.heard.q.val() != self.heard_needed.val() {
                self.heard.d.next = self.heard.q.val() + self.one_heard.val();
            }
            if self.heard.q.val().any() & (self.heard_mask.val() != self.far_mask_ready.q.val()) {
                self.heard.d.next = self.one_heard.val();
            }
        }
        if self.in_ready.val()
            & self.tx_slot.val()
            & self.heard.q.val().any()
            & (self.told.q.val() != self.told_needed.val())
        {
            self.told.d.next = self.told.q.val() + self.one_told.val();
        }
        if self.in_ready.val() {
            self.timer.d.next = self.timer.q.val() + self.one_count.val();
        }
        self.go_up.next = self.in_ready.val()
            & (self.heard.q.val() >= self.heard_needed.val())
            & (self.told.q.val() >= self.told_needed.val())
            & self.quiet.val();
        self.give_up.next = self.in_ready.val()
            & !self.go_up.val()
            & (self.timer.q.val() == self.timeout_last.val());
        self.went_up_reg.d.next = self.go_up.val();
        if self.go_up.val() {
            self.phase.d.next = self.up_code.val();
            self.up_reg.d.next = true;
        }
        // UP: a ready word from a far end still in READY is no reason to go down.
        if self.in_up.val() {
            self.been_up.d.next = true;
        }
        self.far_started.next = self.far_seeking.val().any();
        self.go_down.next = self.in_up.val() & (self.link_fail.val() | self.far_started.val());
        if self.go_down.val() {
            self.up_reg.d.next = false;
            if self.trainings_reg.q.val() != self.count_max.val() {
                self.trainings_reg.d.next = self.trainings_reg.q.val() + self.one_count.val();
            }
            if self.far_started.val() & (self.far_downs_reg.q.val() != self.count_max.val()) {
                self.far_downs_reg.d.next = self.far_downs_reg.q.val() + self.one_count.val();
            }
        }
        self.restart.next = self.give_up.val() | self.go_down.val();
        if self.restart.val() {
            self.phase.d.next = self.seek.val();
            self.heard.d.next = 0.into();
            self.told.d.next = 0.into();
        }
        self.state.next = self.phase.q.val();
        self.up.next = self.up_reg.q.val();
        self.went_up.next = self.went_up_reg.q.val();
        self.tx_mask.next = self.far_mask_ready.q.val();
        self.rx_mask.next = self.rx_frozen.q.val();
        self.far_fresh.next = self.far_fresh_reg.q.val();
        self.trainings.next = self.trainings_reg.q.val();
        self.far_downs.next = self.far_downs_reg.q.val();
        if self.reset.val() {
            self.phase.d.next = self.seek.val();
            self.up_reg.d.next = false;
            self.went_up_reg.d.next = false;
            self.been_up.d.next = false;
            self.index.d.next = 0.into();
            self.heard.d.next = 0.into();
            self.told.d.next = 0.into();
            self.timer.d.next = 0.into();
            self.far_mask_ready.d.next = 0.into();
            self.far_fresh_reg.d.next = false;
            self.rx_frozen.d.next = 0.into();
            self.trainings_reg.d.next = 0.into();
            self.far_downs_reg.d.next = 0.into();
        }
    }
}

#[test]
fn train_state_is_synthesizable() {
    let mut uut = TrainState::new(100);
    uut.connect_all();
    yosys_validate("train_state", &generate_verilog(&uut)).unwrap();
}
