//! Reference models of the link BIST's blocks (`hdl::llp::bist`): `BistLanes` (four PRBS-31
//! senders and self-synchronising checkers) and `BistControl` (the run's sequence), cycle
//! accurate at their ports. The pattern itself is `hdl::llp::bist::prbs31_next`, the one
//! definition.
use hdl::llp::bist::bist_control::{BIST_ASK, BIST_END, BIST_IDLE, BIST_RUN, DURATION_BITS};
use hdl::llp::bist::{lane_seed, prbs31_next, SILENCE_LIMIT};

/// One lane's checker.
#[derive(Clone, Copy, Debug, Default)]
struct Check {
    previous: u32,
    primed: bool,
    count: u16,
    silence: u32,
}

/// What `BistLanes` shows in a cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LanesOut {
    /// `lanes_out.valid`.
    pub valid: u8,
    /// `lanes_out.data`, lane `n` at bits `32n`.
    pub data: u128,
    /// `errors`, lane `n` at bits `16n`.
    pub errors: u64,
    /// `seen`.
    pub seen: u8,
    /// `clean`.
    pub clean: bool,
    /// `error_lanes` (this cycle's events).
    pub error_lanes: u8,
}

/// Model of `BistLanes`.
#[derive(Clone, Debug)]
pub struct BistLanesModel {
    words: [u32; 4],
    checks: [Check; 4],
}

impl Default for BistLanesModel {
    fn default() -> Self {
        Self::new()
    }
}

impl BistLanesModel {
    /// The block at power-up (every flip-flop zero; a reset loads the seeds).
    pub fn new() -> Self {
        Self {
            words: [0; 4],
            checks: [Check::default(); 4],
        }
    }

    /// This cycle's outputs and the next state, for the inputs of the cycle (`reset` wins).
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &mut self,
        reset: bool,
        send: bool,
        check: bool,
        tx_mask: u8,
        rx_mask: u8,
        in_valid: u8,
        in_start: u8,
        in_data: u128,
    ) -> LanesOut {
        let mut out = LanesOut {
            valid: if send { tx_mask } else { 0 },
            data: 0,
            errors: 0,
            seen: 0,
            clean: false,
            error_lanes: 0,
        };
        let mut dirty = 0u8;
        for n in 0..4 {
            out.data |= (self.words[n] as u128) << (32 * n);
            let c = &mut self.checks[n];
            out.errors |= (c.count as u64) << (16 * n);
            if c.primed {
                out.seen |= 1 << n;
            }
            if !c.primed || c.count != 0 {
                dirty |= 1 << n;
            }
            let valid = (in_valid & !in_start) >> n & 1 == 1;
            let data = (in_data >> (32 * n)) as u32;
            let checked = check && valid;
            let mismatch =
                checked && (data >> 1 == 0 || (c.primed && data != prbs31_next(c.previous)));
            let mut silent = false;
            let mut next = *c;
            if checked {
                next.previous = data;
                next.primed = true;
                next.silence = 0;
            }
            if check && !valid && c.primed {
                next.silence = c.silence + 1;
                if c.silence == SILENCE_LIMIT - 1 {
                    silent = true;
                    next.silence = 0;
                }
            }
            let error = mismatch || silent;
            if error {
                out.error_lanes |= 1 << n;
                next.count = c.count.saturating_add(1);
            }
            if reset {
                next.primed = false;
                next.count = 0;
                next.silence = 0;
            }
            *c = next;
            if reset {
                self.words[n] = lane_seed(n);
            } else if send {
                self.words[n] = prbs31_next(self.words[n]);
            }
        }
        out.clean = rx_mask != 0 && dirty & rx_mask == 0;
        out
    }
}

/// What `BistControl` shows in a cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ControlOut {
    /// `want`.
    pub want: bool,
    /// `clear`.
    pub clear: bool,
    /// `send`.
    pub send: bool,
    /// `check`.
    pub check: bool,
    /// `running`.
    pub running: bool,
    /// `done`.
    pub done: bool,
    /// `pass`.
    pub pass: bool,
    /// `absent`.
    pub absent: bool,
    /// `stopped`.
    pub stopped: bool,
    /// `state`.
    pub state: u64,
}

/// Model of `BistControl`.
#[derive(Clone, Debug)]
pub struct BistControlModel {
    ask_timeout: u32,
    phase: u64,
    timer: u32,
    cycle: u32,
    done: bool,
    pass: bool,
    absent: bool,
    stopped: bool,
}

impl BistControlModel {
    /// The sequencer with `ask_timeout`, after reset.
    pub fn new(ask_timeout: u32) -> Self {
        Self {
            ask_timeout,
            phase: BIST_IDLE,
            timer: 0,
            cycle: 0,
            done: false,
            pass: false,
            absent: false,
            stopped: false,
        }
    }

    /// This cycle's outputs and the next state (`reset` wins).
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &mut self,
        reset: bool,
        start: bool,
        stop: bool,
        duration: u32,
        intensity: u32,
        bist_up: bool,
        lanes_clean: bool,
    ) -> ControlOut {
        let mask = (1u32 << DURATION_BITS) - 1;
        let idle = self.phase == BIST_IDLE;
        let run = self.phase == BIST_RUN;
        let out = ControlOut {
            want: self.phase == BIST_ASK || run,
            clear: idle && start,
            send: run && hdl::llp::bist::sends(self.cycle, intensity),
            check: run,
            running: !idle,
            done: self.done,
            pass: self.pass,
            absent: self.absent,
            stopped: self.stopped,
            state: self.phase,
        };
        let timer_next = (self.timer + 1) & mask;
        let mut n = self.clone();
        n.timer = timer_next;
        if out.clear {
            n.phase = BIST_ASK;
            n.timer = 0;
            n.done = false;
            n.pass = false;
            n.absent = false;
            n.stopped = false;
        }
        match self.phase {
            BIST_ASK => {
                if bist_up {
                    n.phase = BIST_RUN;
                    n.timer = 0;
                    n.cycle = 0;
                } else if stop {
                    n.phase = BIST_END;
                    n.stopped = true;
                } else if self.timer == self.ask_timeout - 1 {
                    n.phase = BIST_END;
                    n.absent = true;
                }
            }
            BIST_RUN => {
                n.cycle = (self.cycle + 1) & 15;
                if !bist_up {
                    n.phase = BIST_END;
                    n.absent = true;
                } else if stop {
                    n.phase = BIST_END;
                    n.stopped = true;
                } else if timer_next == duration & mask {
                    n.phase = BIST_END;
                }
            }
            BIST_END => {
                n.phase = BIST_IDLE;
                n.done = true;
                n.pass = lanes_clean && !self.absent && !self.stopped;
            }
            _ => {}
        }
        if reset {
            n = Self::new(self.ask_timeout);
        }
        *self = n;
        out
    }
}
