//! `LinkWatchdog`: says that a link is dead, from its transmitter's replay buffer.
//!
//! A link layer keeps every LTP it sent in its replay buffer until the far end acknowledges it
//! (a cumulative round-trip echo frees everything up to it; a missing echo is polled for after
//! `link.rt_timeout` cycles, and errors are replayed). While the far end lives, the fill
//! therefore falls back within a few round trips and timeouts, whatever the load: a congested
//! far end stops returning flow-control credits, so no new LTPs are built, but it still
//! echoes. When every lane is cut, or the far end is gone, nothing is ever acknowledged and
//! the fill never falls. An idle dead link is silent and not noticed until something is sent
//! on it (then its first LTP is never acknowledged).
//!
//! The watchdog counts the cycles since the fill was last zero or last fell; when the count
//! reaches `limit`, `stalled` rises and stays high until reset (a dead link is not retrained:
//! the link layer has no training; a reset of both ends brings it back).
//!
//! Reset (synchronous): not stalled, count zero.
//!
//! Elaboration value: `limit` (1..2^24 cycles; choose well above the worst acknowledgement
//! delay of a live link: several `link.rt_timeout`s plus replays).
use rust_hdl::prelude::*;

/// Bits of the watchdog's cycle count.
pub const WATCHDOG_BITS: usize = 24;

/// Dead-link detection; see the module documentation.
#[derive(LogicBlock)]
pub struct LinkWatchdog {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// LTPs in the transmitter's replay buffer (sent, not yet acknowledged).
    pub fill: Signal<In, Bits<16>>,
    /// The link is dead (sticky until reset).
    pub stalled: Signal<Out, bool>,
    limit: Constant<Bits<WATCHDOG_BITS>>,
    last: DFF<Bits<16>>,
    count: DFF<Bits<WATCHDOG_BITS>>,
    stuck: DFF<bool>,
    /// The fill is zero or fell since the last cycle.
    progress: Signal<Local, bool>,
}

impl LinkWatchdog {
    /// A watchdog that declares the link dead after `limit` cycles without progress.
    pub fn new(limit: u32) -> Self {
        assert!(
            limit >= 1 && (limit as u64) < (1u64 << WATCHDOG_BITS),
            "LinkWatchdog: limit must be 1..2^{WATCHDOG_BITS}, got {limit}"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            fill: Default::default(),
            stalled: Default::default(),
            limit: Constant::new((limit as u64).into()),
            last: Default::default(),
            count: Default::default(),
            stuck: Default::default(),
            progress: Default::default(),
        }
    }
}

impl Logic for LinkWatchdog {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, last, count, stuck);
        self.last.d.next = self.fill.val();
        self.progress.next = !self.fill.val().any() | (self.fill.val() < self.last.q.val());
        if self.progress.val() {
            self.count.d.next = 0.into();
        } else if self.count.q.val() != self.limit.val() {
            self.count.d.next = self.count.q.val() + 1;
        }
        if self.count.q.val() == self.limit.val() {
            self.stuck.d.next = true;
        }
        if self.reset.val() {
            self.count.d.next = 0.into();
            self.stuck.d.next = false;
            self.last.d.next = 0.into();
        }
        self.stalled.next = self.stuck.q.val();
    }
}

#[test]
fn link_watchdog_is_synthesizable() {
    let mut uut = LinkWatchdog::new(100);
    uut.connect_all();
    yosys_validate("link_watchdog", &generate_verilog(&uut)).unwrap();
}
