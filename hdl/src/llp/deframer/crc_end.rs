//! Stage 5 of the [`LtpDeframer`](super::LtpDeframer): the LTP's CRC-14 over the registered
//! flits, and the end records.
//!
//! The CRC-14 steps over one flit per cycle (flit 0 restarts it), so the end of the reader's
//! attempt leaves one cycle after its last flit, with `end_crc_diff` = the CRC-14 stepped over
//! the trailer's 2 sideband bits (combinationally, at the end), XOR the trailer's check field,
//! XOR the logical lane of XFR 0 at `STATE_SHIFT` (the receiver compares it with the sequence
//! number the sender XORed in; the sender XORed its own lane rotation in too). An end leaves
//! for the reader's attempt, for the end owed before the attempt the reader started
//! (`before_start`), or for an owed end while the reader is idle (`emit`); only the reader's
//! completed attempt can be intact. Latency: one cycle.
//!
//! Reset: no end.
use super::{OwedSink, ShiftedSink};
use crate::crc::{CrcStep, CRC14};
use crate::formats::FLIT_BITS;
use crate::llp::ltp::STATE_SHIFT;
use rust_hdl::prelude::*;

// The trailer slices below are literals (a Verilog slice needs one): keep them the layout's.
const _: () = assert!(crate::llp::ltp::SIDEBAND_SHIFT == 14 && crate::llp::ltp::CHECK_BITS == 14);

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
    /// With `end_valid`: CRC-14 of the received flits and sideband XOR the trailer's check
    /// field XOR the state at `STATE_SHIFT`.
    pub end_crc_diff: Signal<Out, Bits<14>>,
    /// With `end_valid`: logical lane of XFR 0.
    pub end_state: Signal<Out, Bits<2>>,
    /// With `end_valid`: the trailer's credit sideband bits.
    pub end_sideband: Signal<Out, Bits<2>>,
    /// With `end_valid`: the group CRC-8s.
    pub end_gcrc: Signal<Out, Bits<32>>,
    crc: DFF<Bits<14>>,
    ended: DFF<bool>,
    intact: DFF<bool>,
    state: DFF<Bits<2>>,
    group_crcs: DFF<Bits<32>>,
    step: CrcStep<14, FLIT_BITS>,
    /// The CRC-14 of the flits stepped over the trailer's sideband bits.
    sideband_step: CrcStep<14, 2>,
    state_shift: Constant<Bits<14>>,
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
            end_sideband: Default::default(),
            end_gcrc: Default::default(),
            crc: Default::default(),
            ended: Default::default(),
            intact: Default::default(),
            state: Default::default(),
            group_crcs: Default::default(),
            step: CrcStep::new(&CRC14),
            sideband_step: CrcStep::new(&CRC14),
            state_shift: Constant::new((STATE_SHIFT as u64).into()),
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
        self.sideband_step.state.next = self.crc.q.val();
        // Trailer: check in bits 0..13, sideband in 14..15 (`ltp::SIDEBAND_SHIFT`; a literal,
        // as the Verilog slice needs one).
        self.sideband_step.data.next = self.shifted.trailer.val().get_bits::<2>(14);
        self.end_sideband.next = self.shifted.trailer.val().get_bits::<2>(14);
        self.end_crc_diff.next = self.sideband_step.next_state.val()
            ^ self.shifted.trailer.val().get_bits::<14>(0)
            ^ (bit_cast::<14, 2>(self.state.q.val()) << self.state_shift.val());

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
        self.intact.d.next = self.shifted.last.val() & !self.shifted.bad.val();
        if self.shifted.last.val() {
            self.state.d.next = self.shifted.state.val();
            self.group_crcs.d.next = self.shifted.group_crcs.val();
        }

        if self.reset.val() {
            self.ended.d.next = false;
        }
    }
}
