//! The lane queues of the [`LtpDeframer`](super::LtpDeframer): between the writer (stage 2)
//! and the reader (stage 3), two entries per physical lane.
//!
//! Why they are cheap: each physical lane has a head and a spare register, each 32 bits with a
//! valid flag and a tag (the XFR belongs to the attempt still in progress). The spare is
//! written straight from the registered beat, the head from the spare or the beat (one 2:1
//! multiplexer), and the reader's two ports are 4:1 multiplexers of the heads. Two entries
//! ([`LANE_DEPTH`]) suffice at the striper's exact pace at every `L`.
//!
//! The head loads when it is empty or popped (from the spare if that is full, else from the
//! beat); the spare loads the beat whenever it is free. An attempt that ends early removes its
//! tagged entries (its new XFRs are not written); an attempt completed with a lost XFR removes
//! the untagged ones (the reader is on it). A write to a lane whose head and spare both stay
//! is an overflow: the XFR is lost, and the lanes it struck are reported on the next cycle
//! (with the pops and the completion of that edge) for the writer to act on. Latency: an XFR
//! written on an edge is at the head after it when the lane was empty.
//!
//! Reset: every entry empty, no overflow reported.
use super::{AttemptSink, QueueSource, ReaderSink};
use rust_hdl::prelude::*;

/// Entries of each physical lane's XFR queue (head and spare).
pub const LANE_DEPTH: usize = 2;

/// Head and spare registers per physical lane.
#[derive(LogicBlock)]
pub struct LaneQueues {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: every queue empty.
    pub reset: Signal<In, bool>,
    /// The registered beat's XFRs (the only field of the beat the queues need).
    pub data: Signal<In, Bits<128>>,
    /// The writer: lanes written, tags, removals.
    pub attempt: AttemptSink,
    /// The reader: lanes popped.
    pub reader: ReaderSink,
    /// Heads and what the last edge did.
    pub out: QueueSource,
    head: Vec<DFF<Bits<32>>>,
    spare: Vec<DFF<Bits<32>>>,
    head_valid: DFF<Bits<4>>,
    head_tagged: DFF<Bits<4>>,
    spare_valid: DFF<Bits<4>>,
    spare_tagged: DFF<Bits<4>>,
    overflow_current: DFF<Bits<4>>,
    overflow_new: DFF<Bits<4>>,
    popped: DFF<Bits<4>>,
    completed: DFF<bool>,
    /// Lanes written now.
    written: Signal<Local, Bits<4>>,
    /// The head of this lane loads.
    take: Signal<Local, bool>,
    /// The head of this lane is removed.
    head_removed: Signal<Local, bool>,
    /// The spare of this lane is removed.
    spare_removed: Signal<Local, bool>,
    head_valid_next: Signal<Local, Bits<4>>,
    head_tagged_next: Signal<Local, Bits<4>>,
    spare_valid_next: Signal<Local, Bits<4>>,
    spare_tagged_next: Signal<Local, Bits<4>>,
    /// Lanes whose write is lost now.
    overflow: Signal<Local, Bits<4>>,
    /// The bundle fields this stage does not read, acknowledged here (Verilator's lint passes
    /// names containing "unused"; nothing reads this, so synthesis removes it).
    unused_inputs: Signal<Local, bool>,
}

impl Default for LaneQueues {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            data: Default::default(),
            attempt: Default::default(),
            reader: Default::default(),
            out: Default::default(),
            head: (0..4).map(|_| Default::default()).collect(),
            spare: (0..4).map(|_| Default::default()).collect(),
            head_valid: Default::default(),
            head_tagged: Default::default(),
            spare_valid: Default::default(),
            spare_tagged: Default::default(),
            overflow_current: Default::default(),
            overflow_new: Default::default(),
            popped: Default::default(),
            completed: Default::default(),
            written: Default::default(),
            take: Default::default(),
            head_removed: Default::default(),
            spare_removed: Default::default(),
            head_valid_next: Default::default(),
            head_tagged_next: Default::default(),
            spare_valid_next: Default::default(),
            spare_tagged_next: Default::default(),
            overflow: Default::default(),
            unused_inputs: Default::default(),
        }
    }
}

impl Logic for LaneQueues {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            head_valid,
            head_tagged,
            spare_valid,
            spare_tagged,
            overflow_current,
            overflow_new,
            popped,
            completed
        );
        self.unused_inputs.next = self.attempt.active.val()
            | self.attempt.first_lane.val().any()
            | self.attempt.second_lane.val().any()
            | self.attempt.state.val().any()
            | self.reader.active.val()
            | self.reader.owns_current.val()
            | self.reader.starting.val()
            | self.reader.finishing.val();
        for p in 0..4 {
            self.head[p].clock.next = self.clock.val();
            self.head[p].d.next = self.head[p].q.val();
            self.spare[p].clock.next = self.clock.val();
            self.spare[p].d.next = self.spare[p].q.val();
        }
        self.out.heads.next = (bit_cast::<128, 32>(self.head[3].q.val()) << 96)
            | (bit_cast::<128, 32>(self.head[2].q.val()) << 64)
            | (bit_cast::<128, 32>(self.head[1].q.val()) << 32)
            | bit_cast::<128, 32>(self.head[0].q.val());
        self.out.head_valid.next = self.head_valid.q.val();
        self.out.overflow_current.next = self.overflow_current.q.val();
        self.out.overflow_new.next = self.overflow_new.q.val();
        self.out.popped.next = self.popped.q.val();
        self.out.completed.next = self.completed.q.val();

        self.written.next = self.attempt.writes_current.val() | self.attempt.writes_new.val();
        self.head_valid_next.next = 0.into();
        self.head_tagged_next.next = 0.into();
        self.spare_valid_next.next = 0.into();
        self.spare_tagged_next.next = 0.into();
        self.overflow.next = 0.into();
        for p in 0..4 {
            self.take.next = !self.head_valid.q.val().get_bit(p) | self.reader.pop.val().get_bit(p);
            self.head_removed.next = self.head_valid.q.val().get_bit(p)
                & ((self.head_tagged.q.val().get_bit(p) & self.attempt.ends_early.val())
                    | (!self.head_tagged.q.val().get_bit(p) & self.attempt.completed_lost.val()));
            self.spare_removed.next = self.spare_valid.q.val().get_bit(p)
                & ((self.spare_tagged.q.val().get_bit(p) & self.attempt.ends_early.val())
                    | (!self.spare_tagged.q.val().get_bit(p) & self.attempt.completed_lost.val()));
            if self.take.val() {
                self.head[p].d.next = self.data.val().get_bits::<32>(32 * p);
                if self.spare_valid.q.val().get_bit(p) {
                    self.head[p].d.next = self.spare[p].q.val();
                }
            }
            if self.take.val() | !self.spare_valid.q.val().get_bit(p) | self.spare_removed.val() {
                self.spare[p].d.next = self.data.val().get_bits::<32>(32 * p);
            }
            if self.take.val() {
                if self.spare_valid.q.val().get_bit(p) {
                    // Spare to head, beat to spare.
                    self.head_valid_next.next = self
                        .head_valid_next
                        .val()
                        .replace_bit(p, !self.spare_removed.val());
                    self.head_tagged_next.next = self.head_tagged_next.val().replace_bit(
                        p,
                        self.spare_tagged.q.val().get_bit(p) & !self.attempt.completes.val(),
                    );
                    self.spare_valid_next.next = self
                        .spare_valid_next
                        .val()
                        .replace_bit(p, self.written.val().get_bit(p));
                    self.spare_tagged_next.next = self
                        .spare_tagged_next
                        .val()
                        .replace_bit(p, self.attempt.tagged.val().get_bit(p));
                } else {
                    // Beat to head.
                    self.head_valid_next.next = self
                        .head_valid_next
                        .val()
                        .replace_bit(p, self.written.val().get_bit(p));
                    self.head_tagged_next.next = self
                        .head_tagged_next
                        .val()
                        .replace_bit(p, self.attempt.tagged.val().get_bit(p));
                }
            } else {
                self.head_valid_next.next = self
                    .head_valid_next
                    .val()
                    .replace_bit(p, !self.head_removed.val());
                self.head_tagged_next.next = self.head_tagged_next.val().replace_bit(
                    p,
                    self.head_tagged.q.val().get_bit(p) & !self.attempt.completes.val(),
                );
                if self.spare_valid.q.val().get_bit(p) & !self.spare_removed.val() {
                    // Spare holds; a write is lost.
                    self.spare_valid_next.next = self.spare_valid_next.val().replace_bit(p, true);
                    self.spare_tagged_next.next = self.spare_tagged_next.val().replace_bit(
                        p,
                        self.spare_tagged.q.val().get_bit(p) & !self.attempt.completes.val(),
                    );
                } else {
                    // Beat to spare.
                    self.spare_valid_next.next = self
                        .spare_valid_next
                        .val()
                        .replace_bit(p, self.written.val().get_bit(p));
                    self.spare_tagged_next.next = self
                        .spare_tagged_next
                        .val()
                        .replace_bit(p, self.attempt.tagged.val().get_bit(p));
                }
            }
        }
        for p in 0..4 {
            if self.written.val().get_bit(p)
                & self.head_valid.q.val().get_bit(p)
                & self.spare_valid.q.val().get_bit(p)
                & !((self.spare_tagged.q.val().get_bit(p) & self.attempt.ends_early.val())
                    | (!self.spare_tagged.q.val().get_bit(p) & self.attempt.completed_lost.val()))
            {
                self.overflow.next = self.overflow.val().replace_bit(p, true);
            }
        }
        self.head_valid.d.next = self.head_valid_next.val();
        self.head_tagged.d.next = self.head_tagged_next.val();
        self.spare_valid.d.next = self.spare_valid_next.val();
        self.spare_tagged.d.next = self.spare_tagged_next.val();
        self.overflow_current.d.next = self.overflow.val() & self.attempt.writes_current.val();
        self.overflow_new.d.next = self.overflow.val() & self.attempt.writes_new.val();
        self.popped.d.next = self.reader.pop.val();
        self.completed.d.next = self.attempt.completes.val();

        if self.reset.val() {
            self.overflow_current.d.next = 0.into();
            self.overflow_new.d.next = 0.into();
            self.head_valid.d.next = 0.into();
            self.spare_valid.d.next = 0.into();
        }
    }
}
