//! `PrbsCheck`: one lane's self-synchronising PRBS-31 checker and its error count.
//!
//! While `enable` is high, each word with `valid` high is compared with the word that follows
//! the previous one received ([`PrbsStep`]); the first word after `reset` only primes the
//! checker (`seen`). One error is counted (`errors`, 16 bits, saturating) for a word that
//! differs from its prediction, for a word whose bits 31..1 are all zero (a lane stuck at zero
//! would otherwise predict itself), and for every [`SILENCE_LIMIT`](super::SILENCE_LIMIT)
//! cycles in a row without a word once primed (a lane that died). `error` is the cycle's
//! event. Outside `enable` nothing is checked, counted or remembered.
//!
//! Reset (synchronous): not primed, count and silence zero.
use super::prbs_step::PrbsStep;
use rust_hdl::prelude::*;

/// One lane's checker.
#[derive(LogicBlock)]
pub struct PrbsCheck {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: forget the lane, count zero.
    pub reset: Signal<In, bool>,
    /// Check this cycle (the run's window).
    pub enable: Signal<In, bool>,
    /// A word arrived on the lane.
    pub valid: Signal<In, bool>,
    /// The word.
    pub data: Signal<In, Bits<32>>,
    /// Errors counted since reset (saturating).
    pub errors: Signal<Out, Bits<16>>,
    /// A word has arrived since reset.
    pub seen: Signal<Out, bool>,
    /// This cycle counts an error.
    pub error: Signal<Out, bool>,
    step: PrbsStep,
    previous: DFF<Bits<32>>,
    primed: DFF<bool>,
    count: DFF<Bits<16>>,
    silence: DFF<Bits<8>>,
    one: Constant<Bits<16>>,
    one_silent: Constant<Bits<8>>,
    silence_last: Constant<Bits<8>>,
    count_max: Constant<Bits<16>>,
    checked: Signal<Local, bool>,
    mismatch: Signal<Local, bool>,
    silent_too_long: Signal<Local, bool>,
}

impl Default for PrbsCheck {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            valid: Default::default(),
            data: Default::default(),
            errors: Default::default(),
            seen: Default::default(),
            error: Default::default(),
            step: Default::default(),
            previous: Default::default(),
            primed: Default::default(),
            count: Default::default(),
            silence: Default::default(),
            one: Constant::new(1u64.into()),
            one_silent: Constant::new(1u64.into()),
            silence_last: Constant::new(((super::SILENCE_LIMIT - 1) as u64).into()),
            count_max: Constant::new(0xFFFFu64.into()),
            checked: Default::default(),
            mismatch: Default::default(),
            silent_too_long: Default::default(),
        }
    }
}

impl Logic for PrbsCheck {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, previous, primed, count, silence);
        self.step.word.next = self.previous.q.val();
        self.checked.next = self.enable.val() & self.valid.val();
        self.mismatch.next = self.checked.val()
            & (!self.data.val().get_bits::<31>(1).any()
                | (self.primed.q.val() & (self.data.val() != self.step.following.val())));
        self.silent_too_long.next = false;
        if self.checked.val() {
            self.previous.d.next = self.data.val();
            self.primed.d.next = true;
            self.silence.d.next = 0.into();
        }
        if self.enable.val() & !self.valid.val() & self.primed.q.val() {
            self.silence.d.next = self.silence.q.val() + self.one_silent.val();
            if self.silence.q.val() == self.silence_last.val() {
                self.silent_too_long.next = true;
                self.silence.d.next = 0.into();
            }
        }
        self.error.next = self.mismatch.val() | self.silent_too_long.val();
        if self.error.val() & (self.count.q.val() != self.count_max.val()) {
            self.count.d.next = self.count.q.val() + self.one.val();
        }
        self.errors.next = self.count.q.val();
        self.seen.next = self.primed.q.val();
        if self.reset.val() {
            self.primed.d.next = false;
            self.count.d.next = 0.into();
            self.silence.d.next = 0.into();
        }
    }
}

#[test]
fn prbs_check_is_synthesizable() {
    let mut uut = PrbsCheck::default();
    uut.connect_all();
    yosys_validate("prbs_check", &generate_verilog(&uut)).unwrap();
}
