//! The owed ends of the [`LtpDeframer`](super::LtpDeframer): attempts that end without the
//! reader ever reading them still get their one `end_valid` each, in order.
//!
//! Such attempts are those begun and ended within a beat (`short_attempts`) and the writer's
//! attempt in progress when it ends early before the reader reached it; they are counted on
//! the next edge (`added`), then held in `owed`, which saturates at 24: a far end that begins
//! more than one attempt per cycle for long cannot have them all reported. One owed end leaves
//! per cycle while the reader is idle and its last end has left the pipeline (`emit`). The
//! reader may start an attempt with one end still owed when that end can leave before the
//! attempt's flit 0: the end leaves on the next cycle (`before_start`) and the count clears.
//! Why counted here and not queued: the ends of such attempts carry nothing (they are bad),
//! so a count is all the order needs.
//!
//! Reset: nothing owed.
use super::{OwedSource, ReaderSink};
use rust_hdl::prelude::*;

/// Counts and emits the ends of attempts the reader never read.
#[derive(LogicBlock)]
pub struct OwedEnds {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: nothing owed.
    pub reset: Signal<In, bool>,
    /// Attempts begun and ended in the registered beat (from the beat stage).
    pub short_attempts: Signal<In, Bits<3>>,
    /// The writer's attempt ends early now.
    pub ends_early: Signal<In, bool>,
    /// The reader: idle, starting, on the writer's attempt, ending.
    pub reader: ReaderSink,
    /// The reader's end is in the end stage's input (the flit stage's `last`).
    pub end_in_flight: Signal<In, bool>,
    /// Owed ends, to the reader and the end stage.
    pub out: OwedSource,
    /// Ends owed.
    owed: DFF<Bits<5>>,
    /// Ends added on the last edge.
    added: DFF<Bits<3>>,
    /// The end owed before the attempt the reader started on the last edge.
    before_start: DFF<bool>,
    one3: Constant<Bits<3>>,
    one5: Constant<Bits<5>>,
    limit: Constant<Bits<5>>,
    emit: Signal<Local, bool>,
    /// Ends owed after this cycle's emission.
    available: Signal<Local, Bits<5>>,
    none: Signal<Local, bool>,
    one: Signal<Local, bool>,
    saturated: Signal<Local, Bits<5>>,
    /// The bundle fields this stage does not read, acknowledged here (Verilator's lint passes
    /// names containing "unused"; nothing reads this, so synthesis removes it).
    unused_inputs: Signal<Local, bool>,
}

impl Default for OwedEnds {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            short_attempts: Default::default(),
            ends_early: Default::default(),
            reader: Default::default(),
            end_in_flight: Default::default(),
            out: Default::default(),
            owed: Default::default(),
            added: Default::default(),
            before_start: Default::default(),
            one3: Constant::new(1u64.into()),
            one5: Constant::new(1u64.into()),
            limit: Constant::new(24u64.into()),
            emit: Default::default(),
            available: Default::default(),
            none: Default::default(),
            one: Default::default(),
            saturated: Default::default(),
            unused_inputs: Default::default(),
        }
    }
}

impl Logic for OwedEnds {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, owed, added, before_start);
        self.unused_inputs.next = self.reader.pop.val().any();
        // An owed end leaves while the reader is idle and its last end has left.
        self.emit.next = self.owed.q.val().any()
            & !self.reader.active.val()
            & !self.reader.finishing.val()
            & !self.end_in_flight.val()
            & !self.before_start.q.val();
        self.available.next = self.owed.q.val() + bit_cast::<5, 3>(self.added.q.val());
        if self.emit.val() {
            self.available.next =
                self.owed.q.val() + bit_cast::<5, 3>(self.added.q.val()) - self.one5.val();
        }
        // None or one owed, not counting the one emitted now (this is on the reader's path).
        self.none.next = (self.owed.q.val() == 0) & (self.added.q.val() == 0);
        self.one.next = ((self.owed.q.val() == 0) & (self.added.q.val() == 1))
            | ((self.owed.q.val() == 1) & (self.added.q.val() == 0));
        // Attempts begun and ended in a beat, and the attempt in progress when it ends early
        // without the reader on it.
        self.added.d.next = self.short_attempts.val();
        if self.ends_early.val() & !(self.reader.owns_current.val() | self.reader.starting.val()) {
            self.added.d.next = self.short_attempts.val() + self.one3.val();
        }
        self.before_start.d.next = self.reader.starting.val() & self.one.val() & !self.emit.val();
        self.saturated.next = self.available.val();
        if self.available.val() > self.limit.val() {
            self.saturated.next = self.limit.val();
        }
        self.owed.d.next = self.saturated.val();
        if self.reader.starting.val() & self.one.val() & !self.emit.val() {
            self.owed.d.next = 0.into();
        }
        self.out.none.next = self.none.val();
        self.out.one.next = self.one.val();
        self.out.emit.next = self.emit.val();
        self.out.before_start.next = self.before_start.q.val();

        if self.reset.val() {
            self.owed.d.next = 0.into();
            self.added.d.next = 0.into();
            self.before_start.d.next = false;
        }
    }
}
