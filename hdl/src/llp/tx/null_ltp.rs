//! The null LTP generator of [`TxLink`](super::TxLink): the flits of the null LTP on the way
//! out, which carries the requests that were pending when it started.
//!
//! Flits: 0 `RetryMrkr(replay_seq)` (a replay was pending: it follows the null LTP) or `Null`;
//! 1 `RetryReq(expect_seq)` and 2 `LaneMask(rx_mask)` (a retry request was pending); 3
//! `RndTripEcho(expect_seq)` (an echo); 4 `RndTripMrkr(next_seq)` (a poll); Idle where not
//! wanted and in 5..15.
//!
//! What it carries is registered when the serializer starts it (`null_start`), with the
//! sequence numbers and the receiver's state of that cycle: the requests it takes are cleared
//! at the same edge. The flit is combinational from those registers and the serializer's
//! position; the serializer shows it in place of the RAM's flit. Nothing to reset: the
//! registers are written before every null LTP.
use super::{flit_constant, ProtocolSink, SequenceSink, SerializerSink};
use crate::formats::FLIT_BITS;
use crate::llp::lt::LtCode;
use rust_hdl::prelude::*;

/// The flits of the null LTP on the way out.
#[derive(LogicBlock)]
pub struct TxNullLtp {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// The serializer's starts.
    pub serializer: SerializerSink,
    /// The serializer's beat within the LTP on the way out.
    pub position: Signal<In, Bits<5>>,
    /// The sequence numbers (replay pending and its start, `next_seq`).
    pub numbers: SequenceSink,
    /// The protocol's pending requests.
    pub protocol: ProtocolSink,
    /// Our receiver's next expected sequence number.
    pub expect_seq: Signal<In, Bits<16>>,
    /// Our receiver's lane mask.
    pub rx_mask: Signal<In, Bits<4>>,
    /// The flit at `position`.
    pub flit: Signal<Out, Bits<FLIT_BITS>>,
    replay: DFF<bool>,
    retry_request: DFF<bool>,
    echo: DFF<bool>,
    poll: DFF<bool>,
    replay_seq: DFF<Bits<16>>,
    expect_seq_sent: DFF<Bits<16>>,
    mask_sent: DFF<Bits<4>>,
    next_seq: DFF<Bits<16>>,
    lt_retry_req: Constant<Bits<FLIT_BITS>>,
    lt_retry_marker: Constant<Bits<FLIT_BITS>>,
    lt_round_trip_marker: Constant<Bits<FLIT_BITS>>,
    lt_echo: Constant<Bits<FLIT_BITS>>,
    lt_mask: Constant<Bits<FLIT_BITS>>,
    lt_null: Constant<Bits<FLIT_BITS>>,
    /// The bundle fields this stage does not read, acknowledged here (Verilator's lint passes
    /// names containing "unused"; nothing reads this, so synthesis removes it).
    unused_inputs: Signal<Local, bool>,
}

impl Default for TxNullLtp {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            serializer: Default::default(),
            position: Default::default(),
            numbers: Default::default(),
            protocol: Default::default(),
            expect_seq: Default::default(),
            rx_mask: Default::default(),
            flit: Default::default(),
            replay: Default::default(),
            retry_request: Default::default(),
            echo: Default::default(),
            poll: Default::default(),
            replay_seq: Default::default(),
            expect_seq_sent: Default::default(),
            mask_sent: Default::default(),
            next_seq: Default::default(),
            lt_retry_req: flit_constant(LtCode::RetryReq.flit(0)),
            lt_retry_marker: flit_constant(LtCode::RetryMrkr.flit(0)),
            lt_round_trip_marker: flit_constant(LtCode::RndTripMrkr.flit(0)),
            lt_echo: flit_constant(LtCode::RndTripEcho.flit(0)),
            lt_mask: flit_constant(LtCode::LaneMask.flit(0)),
            lt_null: flit_constant(LtCode::Null.flit(0)),
            unused_inputs: Default::default(),
        }
    }
}

impl Logic for TxNullLtp {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            replay,
            retry_request,
            echo,
            poll,
            replay_seq,
            expect_seq_sent,
            mask_sent,
            next_seq
        );
        self.unused_inputs.next = self.serializer.ltp_start.val()
            | self.serializer.active.val()
            | self.numbers.send_seq.val().any()
            | self.numbers.fill.val().any()
            | self.numbers.acknowledged.val()
            | self.numbers.acknowledged_seq.val().any()
            | self.protocol.null_wanted.val()
            | self.protocol.marker_out.val();
        if self.serializer.null_start.val() {
            self.replay.d.next = self.numbers.replay_pending.val();
            self.replay_seq.d.next = self.numbers.replay_seq.val();
            self.retry_request.d.next = self.protocol.retry_request.val();
            self.expect_seq_sent.d.next = self.expect_seq.val();
            self.mask_sent.d.next = self.rx_mask.val();
            self.echo.d.next = self.protocol.echo_pending.val();
            self.poll.d.next = self.protocol.poll.val();
            self.next_seq.d.next = self.numbers.next_seq.val();
        }
        self.flit.next = 0.into();
        if self.position.val() == 0 {
            self.flit.next = self.lt_null.val();
            if self.replay.q.val() {
                self.flit.next =
                    self.lt_retry_marker.val() | bit_cast::<FLIT_BITS, 16>(self.replay_seq.q.val());
            }
        }
        if (self.position.val() == 1) & self.retry_request.q.val() {
            self.flit.next =
                self.lt_retry_req.val() | bit_cast::<FLIT_BITS, 16>(self.expect_seq_sent.q.val());
        }
        if (self.position.val() == 2) & self.retry_request.q.val() {
            self.flit.next = self.lt_mask.val() | bit_cast::<FLIT_BITS, 4>(self.mask_sent.q.val());
        }
        if (self.position.val() == 3) & self.echo.q.val() {
            self.flit.next =
                self.lt_echo.val() | bit_cast::<FLIT_BITS, 16>(self.expect_seq_sent.q.val());
        }
        if (self.position.val() == 4) & self.poll.q.val() {
            self.flit.next =
                self.lt_round_trip_marker.val() | bit_cast::<FLIT_BITS, 16>(self.next_seq.q.val());
        }
    }
}
