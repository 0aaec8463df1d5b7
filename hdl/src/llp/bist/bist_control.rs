//! `BistControl`: the BIST's sequence and result.
//!
//! - IDLE: `start` (a pulse, the control register's start bit written) clears the lanes'
//!   counts (`clear`), the result, and goes to ASK. `start` outside IDLE is ignored.
//! - ASK: `want` is high (the flag in our training words: the link trains again and both ends
//!   enter the BIST once trained with the flag). When `bist_up` rises, RUN. After
//!   `ask_timeout` cycles without it the far end does not take part (an old peer, or none):
//!   `absent`, to END.
//! - RUN (`want` high, `check` high): `send` is high in the first `intensity + 1` cycles of
//!   every 16 ([`sends`](super::sends)); after `duration` cycles (0: 2^24) to END. `stop`
//!   ends it early (`stopped`); `bist_up` falling (the far end reset or started training)
//!   ends it with `absent`.
//! - END (one cycle, nothing checked): the result is taken: `pass` = the lanes were clean
//!   (`lanes_clean`), the run completed, nothing absent. Then IDLE with `done` high, `want`
//!   low: the link trains normally again.
//!
//! `stop` in ASK ends at once (`stopped`). `running` is high in ASK, RUN and END. `done`,
//! `pass`, `absent` and `stopped` hold until the next start.
//!
//! Parameter: `ask_timeout` (>= 1) cycles. Reset (synchronous): IDLE, result cleared.
use rust_hdl::prelude::*;

/// Bits of the run's duration in cycles.
pub const DURATION_BITS: usize = 24;
/// Bits of the intensity.
pub const INTENSITY_BITS: usize = 4;

/// `state` code: idle.
pub const BIST_IDLE: u64 = 0;
/// `state` code: asking the far end through training.
pub const BIST_ASK: u64 = 1;
/// `state` code: the pattern runs.
pub const BIST_RUN: u64 = 2;
/// `state` code: taking the result.
pub const BIST_END: u64 = 3;

/// The BIST's sequencer.
#[derive(LogicBlock)]
pub struct BistControl {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Start a run (pulse).
    pub start: Signal<In, bool>,
    /// End the run early (pulse).
    pub stop: Signal<In, bool>,
    /// Cycles of the run (0: 2^24); read at `start` and while running.
    pub duration: Signal<In, Bits<DURATION_BITS>>,
    /// A pattern word in `intensity + 1` of every 16 cycles.
    pub intensity: Signal<In, Bits<INTENSITY_BITS>>,
    /// The link trainer has both ends in the BIST.
    pub bist_up: Signal<In, bool>,
    /// The lanes' verdict (`BistLanes::clean`).
    pub lanes_clean: Signal<In, bool>,
    /// Ask the link trainer for the BIST (the training words' flag).
    pub want: Signal<Out, bool>,
    /// Clear the lanes (seeds, counts): the start pulse.
    pub clear: Signal<Out, bool>,
    /// Send a pattern word this cycle.
    pub send: Signal<Out, bool>,
    /// Check the lanes this cycle.
    pub check: Signal<Out, bool>,
    /// A run is in progress (ASK, RUN, END).
    pub running: Signal<Out, bool>,
    /// The last run ended.
    pub done: Signal<Out, bool>,
    /// ... and passed.
    pub pass: Signal<Out, bool>,
    /// ... and the far end did not take part, or left it.
    pub absent: Signal<Out, bool>,
    /// ... and was stopped.
    pub stopped: Signal<Out, bool>,
    /// `BIST_IDLE`, `BIST_ASK`, `BIST_RUN` or `BIST_END`.
    pub state: Signal<Out, Bits<2>>,
    phase: DFF<Bits<2>>,
    timer: DFF<Bits<DURATION_BITS>>,
    cycle: DFF<Bits<INTENSITY_BITS>>,
    done_reg: DFF<bool>,
    pass_reg: DFF<bool>,
    absent_reg: DFF<bool>,
    stopped_reg: DFF<bool>,
    idle_code: Constant<Bits<2>>,
    ask_code: Constant<Bits<2>>,
    run_code: Constant<Bits<2>>,
    end_code: Constant<Bits<2>>,
    one: Constant<Bits<DURATION_BITS>>,
    one_cycle: Constant<Bits<INTENSITY_BITS>>,
    ask_last: Constant<Bits<DURATION_BITS>>,
    timer_next: Signal<Local, Bits<DURATION_BITS>>,
    in_idle: Signal<Local, bool>,
    in_ask: Signal<Local, bool>,
    in_run: Signal<Local, bool>,
    in_end: Signal<Local, bool>,
}

impl BistControl {
    /// A sequencer that waits `ask_timeout` (1..2^24) cycles for the far end.
    pub fn new(ask_timeout: u32) -> Self {
        assert!(
            (1..1 << DURATION_BITS).contains(&ask_timeout),
            "BistControl: ask_timeout = {ask_timeout} must be 1..2^24"
        );
        let c2 = |v: u64| Constant::new(Bits::<2>::from(v));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            stop: Default::default(),
            duration: Default::default(),
            intensity: Default::default(),
            bist_up: Default::default(),
            lanes_clean: Default::default(),
            want: Default::default(),
            clear: Default::default(),
            send: Default::default(),
            check: Default::default(),
            running: Default::default(),
            done: Default::default(),
            pass: Default::default(),
            absent: Default::default(),
            stopped: Default::default(),
            state: Default::default(),
            phase: Default::default(),
            timer: Default::default(),
            cycle: Default::default(),
            done_reg: Default::default(),
            pass_reg: Default::default(),
            absent_reg: Default::default(),
            stopped_reg: Default::default(),
            idle_code: c2(BIST_IDLE),
            ask_code: c2(BIST_ASK),
            run_code: c2(BIST_RUN),
            end_code: c2(BIST_END),
            one: Constant::new(1u64.into()),
            one_cycle: Constant::new(1u64.into()),
            ask_last: Constant::new(((ask_timeout - 1) as u64).into()),
            timer_next: Default::default(),
            in_idle: Default::default(),
            in_ask: Default::default(),
            in_run: Default::default(),
            in_end: Default::default(),
        }
    }
}

impl Logic for BistControl {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            phase,
            timer,
            cycle,
            done_reg,
            pass_reg,
            absent_reg,
            stopped_reg
        );
        self.in_idle.next = self.phase.q.val() == self.idle_code.val();
        self.in_ask.next = self.phase.q.val() == self.ask_code.val();
        self.in_run.next = self.phase.q.val() == self.run_code.val();
        self.in_end.next = self.phase.q.val() == self.end_code.val();
        self.timer_next.next = self.timer.q.val() + self.one.val();
        self.timer.d.next = self.timer_next.val();
        self.clear.next = self.in_idle.val() & self.start.val();
        self.want.next = self.in_ask.val() | self.in_run.val();
        self.check.next = self.in_run.val();
        self.send.next = self.in_run.val() & (self.cycle.q.val() <= self.intensity.val());
        self.running.next = !self.in_idle.val();
        if self.clear.val() {
            self.phase.d.next = self.ask_code.val();
            self.timer.d.next = 0.into();
            self.done_reg.d.next = false;
            self.pass_reg.d.next = false;
            self.absent_reg.d.next = false;
            self.stopped_reg.d.next = false;
        }
        if self.in_ask.val() {
            if self.bist_up.val() {
                self.phase.d.next = self.run_code.val();
                self.timer.d.next = 0.into();
                self.cycle.d.next = 0.into();
            } else if self.stop.val() {
                self.phase.d.next = self.end_code.val();
                self.stopped_reg.d.next = true;
            } else if self.timer.q.val() == self.ask_last.val() {
                self.phase.d.next = self.end_code.val();
                self.absent_reg.d.next = true;
            }
        }
        if self.in_run.val() {
            self.cycle.d.next = self.cycle.q.val() + self.one_cycle.val();
            if !self.bist_up.val() {
                self.phase.d.next = self.end_code.val();
                self.absent_reg.d.next = true;
            } else if self.stop.val() {
                self.phase.d.next = self.end_code.val();
                self.stopped_reg.d.next = true;
            } else if self.timer_next.val() == self.duration.val() {
                self.phase.d.next = self.end_code.val();
            }
        }
        if self.in_end.val() {
            self.phase.d.next = self.idle_code.val();
            self.done_reg.d.next = true;
            self.pass_reg.d.next =
                self.lanes_clean.val() & !self.absent_reg.q.val() & !self.stopped_reg.q.val();
        }
        self.state.next = self.phase.q.val();
        self.done.next = self.done_reg.q.val();
        self.pass.next = self.pass_reg.q.val();
        self.absent.next = self.absent_reg.q.val();
        self.stopped.next = self.stopped_reg.q.val();
        if self.reset.val() {
            self.phase.d.next = self.idle_code.val();
            self.timer.d.next = 0.into();
            self.cycle.d.next = 0.into();
            self.done_reg.d.next = false;
            self.pass_reg.d.next = false;
            self.absent_reg.d.next = false;
            self.stopped_reg.d.next = false;
        }
    }
}

#[test]
fn bist_control_is_synthesizable() {
    let mut uut = BistControl::new(1000);
    uut.connect_all();
    yosys_validate("bist_control", &generate_verilog(&uut)).unwrap();
}
