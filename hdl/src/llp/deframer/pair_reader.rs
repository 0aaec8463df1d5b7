//! Stage 3 of the [`LtpDeframer`](super::LtpDeframer): the reader takes an attempt's XFRs from
//! the heads of the lane queues in order, two per cycle, into registers.
//!
//! Pair `n` (0..16) is XFRs `2n` and `2n+1` (XFR 32 alone), on the physical lanes that
//! [`ReadPointer`](super::ReadPointer) holds; the next pair's lanes come from the attempt's
//! next-lane table, so the reader follows the rotation without counting XFRs. At `L` = 1 both
//! XFRs of a pair share a lane and are read in two cycles (`phase`). 17 cycles per LTP, the striper's own pace: at
//! two lanes the queues have no room for a reader that falls behind it, so the reader starts
//! the writer's attempt without waiting for its last beat. Latency: one cycle from a head to
//! the pair registers.
//!
//! When the reader starts: when it is idle, the writer has an attempt in progress, the lane
//! tables it loaded while idle are the current mask's (`fresh`: after a mask change it waits a
//! cycle for them), and no end is owed ([`OwedEnds`](super::OwedEnds)), or one whose end can
//! still leave before the attempt's flit 0, so the ends of earlier attempts precede its
//! flits. Its attempt ends through the pipeline after pair 16, or at once when the writer ends
//! it early or it completed with a lost XFR; the reader then points at the next attempt.
//!
//! Reset: idle, nothing in flight to the flit stage.
use super::read_pointer::{PointerSink, ReadStepSource};
use super::{AttemptSink, OwedSink, PairSource, QueueSink, ReaderSource};
use rust_hdl::prelude::*;

/// The reader: lane queue heads to XFR pairs.
#[derive(LogicBlock)]
pub struct PairReader {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: idle.
    pub reset: Signal<In, bool>,
    /// The writer's attempt in progress.
    pub attempt: AttemptSink,
    /// The lane queues' heads.
    pub queues: QueueSink,
    /// Ends owed before the reader may start.
    pub owed: OwedSink,
    /// Where the next pair lies ([`ReadPointer`](super::ReadPointer)).
    pub pointer: PointerSink,
    /// What the reader did, to its pointer.
    pub step: ReadStepSource,
    /// Pops and status, to the queues and the owed ends.
    pub status: ReaderSource,
    /// The pair read, to the flit stage.
    pub pair: PairSource,
    active: DFF<bool>,
    /// The reader's attempt is the writer's attempt in progress.
    live: DFF<bool>,
    /// The pair read (XFRs `2n`, `2n+1`) and the pair before it.
    first: DFF<Bits<32>>,
    second: DFF<Bits<32>>,
    previous_first: DFF<Bits<32>>,
    previous_second: DFF<Bits<32>>,
    /// To the flit stage, registered with the pair.
    flit_ready: DFF<bool>,
    position: DFF<Bits<4>>,
    first_read: DFF<bool>,
    second_read: DFF<bool>,
    restart: DFF<bool>,
    pair_first_group: DFF<Bits<2>>,
    pair_second_group: DFF<Bits<2>>,
    last: DFF<bool>,
    bad: DFF<bool>,
    pair_state: DFF<Bits<2>>,
    fifteen: Constant<Bits<5>>,
    lane_numbers: Vec<Constant<Bits<2>>>,
    /// The reader is on the writer's attempt in progress.
    owns_current: Signal<Local, bool>,
    /// Its attempt completed with a lost XFR: it ends now.
    ended_lost: Signal<Local, bool>,
    /// It starts the writer's attempt now.
    starting: Signal<Local, bool>,
    /// It is on an attempt this cycle.
    going: Signal<Local, bool>,
    /// The writer ends the reader's attempt now (the reader may still read this cycle).
    ended_early: Signal<Local, bool>,
    first_valid: Signal<Local, bool>,
    second_valid: Signal<Local, bool>,
    /// Pair 16 (XFR 32 alone).
    last_pair: Signal<Local, bool>,
    read_first: Signal<Local, bool>,
    read_second: Signal<Local, bool>,
    advance: Signal<Local, bool>,
    finished: Signal<Local, bool>,
    redirect: Signal<Local, bool>,
    pop: Signal<Local, Bits<4>>,
    first_offset: Signal<Local, Bits<7>>,
    second_offset: Signal<Local, Bits<7>>,
    /// The bundle fields this stage does not read, acknowledged here (Verilator's lint passes
    /// names containing "unused"; nothing reads this, so synthesis removes it).
    unused_inputs: Signal<Local, bool>,
}

impl Default for PairReader {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            attempt: Default::default(),
            queues: Default::default(),
            owed: Default::default(),
            pointer: Default::default(),
            step: Default::default(),
            status: Default::default(),
            pair: Default::default(),
            active: Default::default(),
            live: Default::default(),
            first: Default::default(),
            second: Default::default(),
            previous_first: Default::default(),
            previous_second: Default::default(),
            flit_ready: Default::default(),
            position: Default::default(),
            first_read: Default::default(),
            second_read: Default::default(),
            restart: Default::default(),
            pair_first_group: Default::default(),
            pair_second_group: Default::default(),
            last: Default::default(),
            bad: Default::default(),
            pair_state: Default::default(),
            fifteen: Constant::new(15u64.into()),
            lane_numbers: (0..4).map(|n| Constant::new((n as u64).into())).collect(),
            owns_current: Default::default(),
            ended_lost: Default::default(),
            starting: Default::default(),
            going: Default::default(),
            ended_early: Default::default(),
            first_valid: Default::default(),
            second_valid: Default::default(),
            last_pair: Default::default(),
            read_first: Default::default(),
            read_second: Default::default(),
            advance: Default::default(),
            finished: Default::default(),
            redirect: Default::default(),
            pop: Default::default(),
            first_offset: Default::default(),
            second_offset: Default::default(),
            unused_inputs: Default::default(),
        }
    }
}

impl Logic for PairReader {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            active,
            live,
            first,
            second,
            previous_first,
            previous_second,
            flit_ready,
            position,
            first_read,
            second_read,
            restart,
            pair_first_group,
            pair_second_group,
            last,
            bad,
            pair_state
        );
        self.unused_inputs.next = self.attempt.first_lane.val().any()
            | self.attempt.second_lane.val().any()
            | self.attempt.state.val().any()
            | self.attempt.writes_current.val().any()
            | self.attempt.writes_new.val().any()
            | self.attempt.tagged.val().any()
            | self.queues.overflow_current.val().any()
            | self.queues.overflow_new.val().any()
            | self.queues.popped.val().any()
            | self.queues.completed.val()
            | self.owed.emit.val()
            | self.owed.before_start.val();
        self.pair.first.next = self.first.q.val();
        self.pair.second.next = self.second.q.val();
        self.pair.previous_first.next = self.previous_first.q.val();
        self.pair.previous_second.next = self.previous_second.q.val();
        self.pair.flit_ready.next = self.flit_ready.q.val();
        self.pair.position.next = self.position.q.val();
        self.pair.first_read.next = self.first_read.q.val();
        self.pair.second_read.next = self.second_read.q.val();
        self.pair.restart.next = self.restart.q.val();
        self.pair.first_group.next = self.pair_first_group.q.val();
        self.pair.second_group.next = self.pair_second_group.q.val();
        self.pair.last.next = self.last.q.val();
        self.pair.bad.next = self.bad.q.val();
        self.pair.state.next = self.pair_state.q.val();

        // Which lanes the reader pops this cycle (all from registers but the writer's end).
        self.owns_current.next = self.active.q.val() & self.live.q.val();
        self.ended_lost.next = self.active.q.val() & self.attempt.completed_lost.val();
        self.starting.next = !self.active.q.val()
            & self.attempt.active.val()
            & (self.owed.none.val() | (self.owed.one.val() & !self.last.q.val()))
            & self.pointer.fresh.val()
            & !self.reset.val();
        self.going.next = self.active.q.val() | self.starting.val();
        self.ended_early.next =
            (self.owns_current.val() | self.starting.val()) & self.attempt.ends_early.val();
        self.first_valid.next = self
            .queues
            .head_valid
            .val()
            .get_bit(self.pointer.first_lane.val().index());
        self.second_valid.next = self
            .queues
            .head_valid
            .val()
            .get_bit(self.pointer.second_lane.val().index());
        self.last_pair.next = self.pointer.flit_index.val() == self.fifteen.val();
        if self.pointer.single_lane.val() {
            self.read_first.next =
                self.going.val() & self.first_valid.val() & !self.pointer.phase.val();
            self.read_second.next =
                self.going.val() & self.first_valid.val() & self.pointer.phase.val();
            self.advance.next =
                self.read_second.val() | (self.read_first.val() & self.last_pair.val());
        } else {
            self.read_first.next = self.going.val()
                & self.first_valid.val()
                & (self.second_valid.val() | self.last_pair.val());
            self.read_second.next = self.read_first.val() & !self.last_pair.val();
            self.advance.next = self.read_first.val();
        }
        self.finished.next = self.read_first.val() & self.last_pair.val();
        self.pop.next = 0.into();
        for p in 0..4 {
            if (self.read_first.val()
                & (self.pointer.first_lane.val() == self.lane_numbers[p].val()))
                | (self.read_second.val()
                    & (self.pointer.second_lane.val() == self.lane_numbers[p].val()))
            {
                self.pop.next = self.pop.val().replace_bit(p, true);
            }
        }

        // The pair into registers, the next lanes and groups.
        self.first_offset.next = bit_cast::<7, 2>(self.pointer.first_lane.val()) << 5;
        self.second_offset.next = bit_cast::<7, 2>(self.pointer.second_lane.val()) << 5;
        if self.read_first.val() {
            self.first.d.next = self
                .queues
                .heads
                .val()
                .get_bits::<32>(self.first_offset.val().index());
            self.previous_first.d.next = self.first.q.val();
            self.previous_second.d.next = self.second.q.val();
        }
        if self.read_second.val() {
            self.second.d.next = self
                .queues
                .heads
                .val()
                .get_bits::<32>(self.second_offset.val().index());
        }
        // Point at the attempt the reader takes next while it has none, and when its own ends.
        self.redirect.next = !self.going.val()
            | self.finished.val()
            | self.ended_early.val()
            | self.ended_lost.val();
        self.step.active.next = self.active.q.val();
        self.step.redirect.next = self.redirect.val();
        self.step.advance.next = self.advance.val();
        self.step.read_first.next = self.read_first.val();
        self.step.read_second.next = self.read_second.val();
        self.active.d.next = self.going.val()
            & !self.finished.val()
            & !self.ended_early.val()
            & !self.ended_lost.val();
        self.live.d.next =
            (self.starting.val() | self.owns_current.val()) & !self.attempt.completes.val();
        // To the flit stage.
        self.flit_ready.d.next = self.read_first.val() & !self.pointer.flit_index.val().all();
        self.position.d.next = self.pointer.flit_index.val().get_bits::<4>(0);
        self.first_read.d.next = self.read_first.val();
        self.second_read.d.next = self.read_second.val();
        self.restart.d.next = self.read_first.val() & self.pointer.flit_index.val().all();
        self.pair_first_group.d.next = self.pointer.first_group.val();
        self.pair_second_group.d.next = self.pointer.second_group.val();
        self.last.d.next = self.finished.val() | self.ended_early.val() | self.ended_lost.val();
        self.bad.d.next = self.ended_early.val() | self.ended_lost.val();
        self.pair_state.d.next = self.pointer.state.val();

        self.status.pop.next = self.pop.val();
        self.status.active.next = self.active.q.val();
        self.status.owns_current.next = self.owns_current.val();
        self.status.starting.next = self.starting.val();
        self.status.finishing.next = self.last.q.val();

        if self.reset.val() {
            self.active.d.next = false;
            self.live.d.next = false;
            self.flit_ready.d.next = false;
            self.first_read.d.next = false;
            self.second_read.d.next = false;
            self.restart.d.next = false;
            self.last.d.next = false;
        }
    }
}
