//! The intake of the [`RxLink`](super::RxLink): the flits of the LTP in progress, as the
//! deframer delivers them.
//!
//! Flit 0 tells a null LTP (an LT flit in flit 0, see [`super::super::lt`]) from a normal one,
//! and clears what the last LTP latched. Data flits (everything but Idle, CrdtRet and LT flits)
//! of normal LTPs are written to the staging buffer at once (`wr_valid`, combinational: the
//! verdict at the LTP's end commits or rolls them back, so they need not wait for it). CrdtRet
//! credits of normal LTPs are summed per VC and LT commands latched with their argument
//! (`RetryReq`, `RetryMrkr`, `RndTripMrkr`, `RndTripEcho`, `LaneMask`), registered, for the
//! verdict and the pulses to act on at the end. Latency: the latches show the flit from the
//! next cycle, which is at the earliest the end's.
//!
//! While not `live` the deframer's flits are ignored.
//!
//! Reset: not null, no credits pending. The commands latched are not cleared: the next LTP's
//! flit 0 clears them, and the deframer, reset with the receiver, delivers nothing before a
//! flit 0.
use super::super::deframer::DeframedSink;
use super::super::lt::{LtCode, LT_CODE_BITS};
use super::LtpCommandsSource;
use crate::flit_decoder::FlitDecoder;
use crate::formats::FLIT_BITS;
use rust_hdl::prelude::*;

/// Flit classification, staging writes, LT command and credit latches.
#[derive(LogicBlock)]
pub struct LtpIntake<const CW: usize> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: not null, no credits pending.
    pub reset: Signal<In, bool>,
    /// The link is up and not starting: the deframer's flits count.
    pub live: Signal<In, bool>,
    /// Flits from the deframer (its ends and lane events are read by the other stages).
    pub deframed: DeframedSink,
    /// Write a data flit to the staging buffer.
    pub wr_valid: Signal<Out, bool>,
    /// The data flit.
    pub wr_data: Signal<Out, Bits<FLIT_BITS>>,
    /// The LTP in progress: null or normal, and its LT commands.
    pub commands: LtpCommandsSource,
    /// Credits of the LTP in progress per VC (registered).
    pub pending_credits: Vec<Signal<Out, Bits<CW>>>,
    null_ltp: DFF<bool>,
    retry_request: DFF<bool>,
    retry_marker: DFF<bool>,
    round_trip_marker: DFF<bool>,
    round_trip_echo: DFF<bool>,
    lane_mask: DFF<bool>,
    retry_request_seq: DFF<Bits<16>>,
    retry_marker_seq: DFF<Bits<16>>,
    round_trip_echo_seq: DFF<Bits<16>>,
    lane_mask_value: DFF<Bits<4>>,
    credits: Vec<DFF<Bits<CW>>>,
    /// The link-transfer commands this block latches ([`LtCode`]).
    code_retry_request: Constant<Bits<LT_CODE_BITS>>,
    code_retry_marker: Constant<Bits<LT_CODE_BITS>>,
    code_round_trip_marker: Constant<Bits<LT_CODE_BITS>>,
    code_round_trip_echo: Constant<Bits<LT_CODE_BITS>>,
    code_lane_mask: Constant<Bits<LT_CODE_BITS>>,
    vc_numbers: Vec<Constant<Bits<3>>>,
    decoder: FlitDecoder,
    /// The LT command code of the flit.
    command: Signal<Local, Bits<LT_CODE_BITS>>,
    /// The deframer's flit, ignored unless `live`.
    flit_valid: Signal<Local, bool>,
    /// The flit is flit 0 of its LTP.
    first: Signal<Local, bool>,
    /// The flit is a data flit (not Idle, CrdtRet or LT).
    is_data: Signal<Local, bool>,
    /// The flit belongs to a null LTP (flit 0 decides for itself).
    in_null: Signal<Local, bool>,
    /// The decoder outputs and deframer fields this block does not read, acknowledged here
    /// (Verilator's lint passes names containing "unused"; nothing reads this, so synthesis
    /// removes it).
    unused_inputs: Signal<Local, bool>,
}

impl<const CW: usize> LtpIntake<CW> {
    /// An intake of `vcs` VCs.
    pub fn new(vcs: usize) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            live: Default::default(),
            deframed: Default::default(),
            wr_valid: Default::default(),
            wr_data: Default::default(),
            commands: Default::default(),
            pending_credits: (0..vcs).map(|_| Default::default()).collect(),
            null_ltp: Default::default(),
            retry_request: Default::default(),
            retry_marker: Default::default(),
            round_trip_marker: Default::default(),
            round_trip_echo: Default::default(),
            lane_mask: Default::default(),
            retry_request_seq: Default::default(),
            retry_marker_seq: Default::default(),
            round_trip_echo_seq: Default::default(),
            lane_mask_value: Default::default(),
            credits: (0..vcs).map(|_| Default::default()).collect(),
            code_retry_request: LtCode::RetryReq.constant(),
            code_retry_marker: LtCode::RetryMrkr.constant(),
            code_round_trip_marker: LtCode::RndTripMrkr.constant(),
            code_round_trip_echo: LtCode::RndTripEcho.constant(),
            code_lane_mask: LtCode::LaneMask.constant(),
            vc_numbers: (0..8).map(|n| Constant::new((n as u64).into())).collect(),
            decoder: Default::default(),
            command: Default::default(),
            flit_valid: Default::default(),
            first: Default::default(),
            is_data: Default::default(),
            in_null: Default::default(),
            unused_inputs: Default::default(),
        }
    }
}

impl<const CW: usize> Logic for LtpIntake<CW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            null_ltp,
            retry_request,
            retry_marker,
            round_trip_marker,
            round_trip_echo,
            lane_mask,
            retry_request_seq,
            retry_marker_seq,
            round_trip_echo_seq,
            lane_mask_value
        );
        for v in 0..self.pending_credits.len() {
            self.credits[v].clock.next = self.clock.val();
            self.credits[v].d.next = self.credits[v].q.val();
            self.pending_credits[v].next = self.credits[v].q.val();
        }
        self.unused_inputs.next = self.decoder.is_body.val()
            | self.decoder.is_head.val()
            | self.decoder.is_tail.val()
            | self.decoder.is_control.val()
            | self.decoder.is_bad_marker.val()
            | self.decoder.malformed.val()
            | self.decoder.dst.val().any()
            | self.decoder.src.val().any()
            | self.decoder.vc.val().any()
            | self.decoder.kind.val().any()
            | self.decoder.len.val().any()
            | self.decoder.delay.val().any()
            | self.deframed.end_valid.val()
            | self.deframed.end_intact.val()
            | self.deframed.end_crc_diff.val().any()
            | self.deframed.end_state.val().any()
            | self.deframed.end_sideband.val().any()
            | self.deframed.end_gcrc.val().any()
            | self.deframed.lane_missing.val().any()
            | self.deframed.stray.val();
        self.commands.null.next = self.null_ltp.q.val();
        self.commands.retry_request.next = self.retry_request.q.val();
        self.commands.retry_request_seq.next = self.retry_request_seq.q.val();
        self.commands.retry_marker.next = self.retry_marker.q.val();
        self.commands.retry_marker_seq.next = self.retry_marker_seq.q.val();
        self.commands.round_trip_marker.next = self.round_trip_marker.q.val();
        self.commands.round_trip_echo.next = self.round_trip_echo.q.val();
        self.commands.round_trip_echo_seq.next = self.round_trip_echo_seq.q.val();
        self.commands.lane_mask.next = self.lane_mask.q.val();
        self.commands.lane_mask_value.next = self.lane_mask_value.q.val();
        self.flit_valid.next = self.deframed.flit_valid.val() & self.live.val();

        // Classify the flit (the decoder reads the field tables of `formats`).
        self.decoder.flit.next = self.deframed.flit.val();
        self.command.next = self.decoder.code.val().get_bits::<LT_CODE_BITS>(0);
        self.is_data.next = !(self.decoder.is_idle.val()
            | self.decoder.is_credit.val()
            | self.decoder.is_link_transfer.val());
        self.first.next = self.deframed.flit_pos.val() == 0;
        self.in_null.next = self.null_ltp.q.val();
        if self.first.val() {
            self.in_null.next = self.decoder.is_link_transfer.val();
        }
        self.wr_valid.next = self.flit_valid.val() & self.is_data.val() & !self.in_null.val();
        self.wr_data.next = self.deframed.flit.val();

        // Latch the LTP's LT commands and credits (cleared by its flit 0).
        if self.flit_valid.val() {
            if self.first.val() {
                self.null_ltp.d.next = self.decoder.is_link_transfer.val();
                self.retry_request.d.next = false;
                self.retry_marker.d.next = false;
                self.round_trip_marker.d.next = false;
                self.round_trip_echo.d.next = false;
                self.lane_mask.d.next = false;
                for v in 0..self.pending_credits.len() {
                    self.credits[v].d.next = 0.into();
                }
            }
            if self.decoder.is_link_transfer.val() {
                if self.command.val() == self.code_retry_request.val() {
                    self.retry_request.d.next = true;
                    self.retry_request_seq.d.next = self.deframed.flit.val().get_bits::<16>(0);
                }
                if self.command.val() == self.code_retry_marker.val() {
                    self.retry_marker.d.next = true;
                    self.retry_marker_seq.d.next = self.deframed.flit.val().get_bits::<16>(0);
                }
                if self.command.val() == self.code_round_trip_marker.val() {
                    self.round_trip_marker.d.next = true;
                }
                if self.command.val() == self.code_round_trip_echo.val() {
                    self.round_trip_echo.d.next = true;
                    self.round_trip_echo_seq.d.next = self.deframed.flit.val().get_bits::<16>(0);
                }
                if self.command.val() == self.code_lane_mask.val() {
                    self.lane_mask.d.next = true;
                    self.lane_mask_value.d.next = self.deframed.flit.val().get_bits::<4>(0);
                }
            }
            // Credits count only in normal LTPs (TxLink never puts them in a null one).
            if self.decoder.is_credit.val() & !self.in_null.val() {
                for v in 0..self.pending_credits.len() {
                    if self.decoder.ctrl_vc.val() == self.vc_numbers[v].val() {
                        if self.first.val() {
                            self.credits[v].d.next = self.decoder.credits.val().get_bits::<CW>(0);
                        } else {
                            self.credits[v].d.next = self.credits[v].q.val()
                                + self.decoder.credits.val().get_bits::<CW>(0);
                        }
                    }
                }
            }
        }

        if self.reset.val() {
            self.null_ltp.d.next = false;
            for v in 0..self.pending_credits.len() {
                self.credits[v].d.next = 0.into();
            }
        }
    }
}
