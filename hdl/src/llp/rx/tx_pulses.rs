//! The pulses of the [`RxLink`](super::RxLink) to its transmitter: registered, one cycle after
//! the LTP's end that carried them (so the transmitter's inputs start at a register, away from
//! the verdict's logic).
//!
//! A good null LTP passes on its `RetryReq`, `LaneMask` and `RndTripEcho` and, for a
//! `RndTripMrkr`, asks for an echo (`send_echo`); a committed LTP passes on its credits (its
//! CrdtRet flits' per VC, plus its credit sideband's for VC `sequence mod P`, `P` the power of
//! two at or above the VC count, as [`crate::llp::ltp::sideband_vc`]), its `RndTripEcho` and
//! its echo request. Our own retry requests (`retry_request` from the
//! verdict) leave as `send_retry`. Each pulse lasts one cycle; the credits are zero when none
//! are returned. The arguments (`*_seq`, `got_mask_val`) hold between pulses.
//!
//! Reset: no pulse, no credits.
use super::{LtpCommandsSink, VerdictSink};
use crate::llp::ltp::{sideband_credits, sideband_vc_mask};
use rust_hdl::prelude::*;

/// The registered requests and credits to the transmitter.
#[derive(LogicBlock)]
pub struct TxPulses<const CW: usize> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: no pulse, no credits.
    pub reset: Signal<In, bool>,
    /// The commands of the LTP ending.
    pub commands: LtpCommandsSink,
    /// Its credits per VC.
    pub pending_credits: Vec<Signal<In, Bits<CW>>>,
    /// What the LTP ending is worth, and our retry requests.
    pub verdict: VerdictSink,
    /// The credit sideband bits of the LTP ending.
    pub sideband: Signal<In, Bits<2>>,
    /// The far end asks for a replay from `got_retry_seq`.
    pub got_retry: Signal<Out, bool>,
    /// Sequence number of `got_retry`.
    pub got_retry_seq: Signal<Out, Bits<16>>,
    /// The far end delivered every LTP below `got_echo_seq`.
    pub got_echo: Signal<Out, bool>,
    /// Sequence number of `got_echo`.
    pub got_echo_seq: Signal<Out, Bits<16>>,
    /// The far end asks us to send on `got_mask_val`.
    pub got_mask: Signal<Out, bool>,
    /// Lane mask of `got_mask`.
    pub got_mask_val: Signal<Out, Bits<4>>,
    /// Ask the far end for a replay.
    pub send_retry: Signal<Out, bool>,
    /// Send the far end an echo.
    pub send_echo: Signal<Out, bool>,
    /// Credits returned per VC (zero when none).
    pub got_credits: Vec<Signal<Out, Bits<CW>>>,
    retry: DFF<bool>,
    retry_seq: DFF<Bits<16>>,
    echo: DFF<bool>,
    echo_seq: DFF<Bits<16>>,
    lane_mask: DFF<bool>,
    lane_mask_value: DFF<Bits<4>>,
    send_retry_pulse: DFF<bool>,
    send_echo_pulse: DFF<bool>,
    credits: Vec<DFF<Bits<CW>>>,
    /// `P - 1`: the sequence number's bits that name the sideband's VC.
    sideband_vc_mask: Constant<Bits<16>>,
    numbers: Vec<Constant<Bits<16>>>,
    /// The credits of each sideband code (`ltp::sideband_credits`).
    sideband_amounts: Vec<Constant<Bits<CW>>>,
    codes: Vec<Constant<Bits<2>>>,
    /// The credits the sideband of the LTP ending returns, to VC `sideband_vc`.
    sideband_credits: Signal<Local, Bits<CW>>,
    sideband_vc: Signal<Local, Bits<16>>,
    /// The bundle fields this block does not read, acknowledged here (Verilator's lint passes
    /// names containing "unused"; nothing reads this, so synthesis removes it).
    unused_inputs: Signal<Local, bool>,
}

impl<const CW: usize> TxPulses<CW> {
    /// Pulses of `vcs` VCs.
    pub fn new(vcs: usize) -> Self {
        assert!(
            CW > 4,
            "TxPulses: {CW}-bit credits cannot hold the sideband's 16"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            commands: Default::default(),
            pending_credits: (0..vcs).map(|_| Default::default()).collect(),
            verdict: Default::default(),
            sideband: Default::default(),
            got_retry: Default::default(),
            got_retry_seq: Default::default(),
            got_echo: Default::default(),
            got_echo_seq: Default::default(),
            got_mask: Default::default(),
            got_mask_val: Default::default(),
            send_retry: Default::default(),
            send_echo: Default::default(),
            got_credits: (0..vcs).map(|_| Default::default()).collect(),
            retry: Default::default(),
            retry_seq: Default::default(),
            echo: Default::default(),
            echo_seq: Default::default(),
            lane_mask: Default::default(),
            lane_mask_value: Default::default(),
            send_retry_pulse: Default::default(),
            send_echo_pulse: Default::default(),
            credits: (0..vcs).map(|_| Default::default()).collect(),
            sideband_vc_mask: Constant::new(sideband_vc_mask(vcs).into()),
            numbers: (0..vcs).map(|v| Constant::new((v as u64).into())).collect(),
            sideband_amounts: (0..4)
                .map(|c| Constant::new((sideband_credits(c) as u64).into()))
                .collect(),
            codes: (0..4).map(|c| Constant::new((c as u64).into())).collect(),
            sideband_credits: Default::default(),
            sideband_vc: Default::default(),
            unused_inputs: Default::default(),
        }
    }
}

impl<const CW: usize> Logic for TxPulses<CW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            retry,
            retry_seq,
            echo,
            echo_seq,
            lane_mask,
            lane_mask_value,
            send_retry_pulse,
            send_echo_pulse
        );
        self.unused_inputs.next = self.commands.null.val()
            | self.commands.retry_marker.val()
            | self.commands.retry_marker_seq.val().any()
            | self.verdict.accepted.val()
            | self.verdict.keep_bad.val()
            | self.verdict.resizing.val();
        for v in 0..self.got_credits.len() {
            self.credits[v].clock.next = self.clock.val();
            self.credits[v].d.next = 0.into();
            self.got_credits[v].next = self.credits[v].q.val();
        }
        self.got_retry.next = self.retry.q.val();
        self.got_retry_seq.next = self.retry_seq.q.val();
        self.got_echo.next = self.echo.q.val();
        self.got_echo_seq.next = self.echo_seq.q.val();
        self.got_mask.next = self.lane_mask.q.val();
        self.got_mask_val.next = self.lane_mask_value.q.val();
        self.send_retry.next = self.send_retry_pulse.q.val();
        self.send_echo.next = self.send_echo_pulse.q.val();
        self.retry.d.next = false;
        self.echo.d.next = false;
        self.lane_mask.d.next = false;
        self.send_retry_pulse.d.next = self.verdict.retry_request.val();
        self.send_echo_pulse.d.next = false;
        // A null LTP's requests act even while waiting for a marker; a normal LTP's only when
        // it is committed (a duplicate's were acted on the first time).
        if self.verdict.null_acts.val() {
            self.retry.d.next = self.commands.retry_request.val();
            self.retry_seq.d.next = self.commands.retry_request_seq.val();
            self.lane_mask.d.next = self.commands.lane_mask.val();
            self.lane_mask_value.d.next = self.commands.lane_mask_value.val();
        }
        if self.verdict.null_acts.val() | self.verdict.commit.val() {
            self.echo.d.next = self.commands.round_trip_echo.val();
            self.echo_seq.d.next = self.commands.round_trip_echo_seq.val();
            self.send_echo_pulse.d.next = self.commands.round_trip_marker.val();
        }
        self.sideband_vc.next = self.verdict.sequence.val() & self.sideband_vc_mask.val();
        self.sideband_credits.next = 0.into();
        for c in 0..4 {
            if self.sideband.val() == self.codes[c].val() {
                self.sideband_credits.next = self.sideband_amounts[c].val();
            }
        }
        if self.verdict.commit.val() {
            for v in 0..self.got_credits.len() {
                self.credits[v].d.next = self.pending_credits[v].val();
                if self.sideband_vc.val() == self.numbers[v].val() {
                    self.credits[v].d.next =
                        self.pending_credits[v].val() + self.sideband_credits.val();
                }
            }
        }

        if self.reset.val() {
            self.retry.d.next = false;
            self.echo.d.next = false;
            self.lane_mask.d.next = false;
            self.send_retry_pulse.d.next = false;
            self.send_echo_pulse.d.next = false;
            for v in 0..self.got_credits.len() {
                self.credits[v].d.next = 0.into();
            }
        }
    }
}
