//! Stage 5 of the [`LtpDeframer`](super::LtpDeframer): the LTP's CRC-14 over the registered
//! flits, and the end records.
//!
//! The CRC-14 steps over one flit per cycle (flit 0 restarts it), so the end of the reader's
//! attempt leaves one cycle after its last flit, with `end_crc_diff` = CRC-14 XOR the trailer's
//! CRC field (the receiver compares it with the sequence number the sender XORed in). An end
//! leaves for the reader's attempt, for the end owed before the attempt the reader started
//! (`before_start`), or for an owed end while the reader is idle (`emit`); only the reader's
//! completed attempt can be intact, and only when its trailer's state bits equal the logical
//! lane of its XFR 0. Latency: one cycle.
//!
//! Reset: no end.
use super::{OwedSink, ShiftedSink};
use crate::crc::{CrcStep, CRC14};
use crate::formats::FLIT_BITS;
use rust_hdl::prelude::*;

/// The CRC-14 stage and the end records.
#[derive(LogicBlock)]
pub struct CrcEnd {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: no end.
    pub reset: Signal<In, bool>,
    /// The flit stage's flit, trailer, group CRCs and end.
    pub shifted: ShiftedSink,
    /// Ends owed for attempts the reader never read.
    pub owed: OwedSink,
    /// One pulse per attempt.
    pub end_valid: Signal<Out, bool>,
    /// With `end_valid`: the attempt is intact.
    pub end_intact: Signal<Out, bool>,
    /// With `end_valid`: CRC-14 of the received flits XOR the trailer's CRC field.
    pub end_crc_diff: Signal<Out, Bits<14>>,
    /// With `end_valid`: logical lane of XFR 0.
    pub end_state: Signal<Out, Bits<2>>,
    /// With `end_valid`: the group CRC-8s.
    pub end_gcrc: Signal<Out, Bits<32>>,
    crc: DFF<Bits<14>>,
    ended: DFF<bool>,
    intact: DFF<bool>,
    state: DFF<Bits<2>>,
    group_crcs: DFF<Bits<32>>,
    step: CrcStep<14, FLIT_BITS>,
    /// The bundle fields this stage does not read, acknowledged here (Verilator's lint passes
    /// names containing "unused"; nothing reads this, so synthesis removes it).
    unused_inputs: Signal<Local, bool>,
}

impl Default for CrcEnd {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            shifted: Default::default(),
            owed: Default::default(),
            end_valid: Default::default(),
            end_intact: Default::default(),
            end_crc_diff: Default::default(),
            end_state: Default::default(),
            end_gcrc: Default::default(),
            crc: Default::default(),
            ended: Default::default(),
            intact: Default::default(),
            state: Default::default(),
            group_crcs: Default::default(),
            step: CrcStep::new(&CRC14),
            unused_inputs: Default::default(),
        }
    }
}

impl Logic for CrcEnd {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, crc, ended, intact, state, group_crcs);
        self.unused_inputs.next = self.owed.none.val() | self.owed.one.val();
        self.end_valid.next = self.ended.q.val();
        self.end_intact.next = self.intact.q.val();
        self.end_state.next = self.state.q.val();
        self.end_gcrc.next = self.group_crcs.q.val();
        self.end_crc_diff.next = self.crc.q.val() ^ self.shifted.trailer.val().get_bits::<14>(0);

        self.step.data.next = self.shifted.flit.val();
        self.step.state.next = self.crc.q.val();
        if self.shifted.position.val() == 0 {
            self.step.state.next = 0.into();
        }
        if self.shifted.valid.val() {
            self.crc.d.next = self.step.next_state.val();
        }
        // The reader's end, the one owed before its attempt, or an owed one while the reader
        // is idle and its last end has left.
        self.ended.d.next =
            self.shifted.last.val() | self.owed.before_start.val() | self.owed.emit.val();
        self.intact.d.next = self.shifted.last.val()
            & !self.shifted.bad.val()
            & (self.shifted.trailer.val().get_bits::<2>(14) == self.shifted.state.val());
        if self.shifted.last.val() {
            self.state.d.next = self.shifted.state.val();
            self.group_crcs.d.next = self.shifted.group_crcs.val();
        }

        if self.reset.val() {
            self.ended.d.next = false;
        }
    }
}
