//! The LTP builder of [`TxLink`](super::TxLink): builds LTP `next_seq` into its replay slot,
//! one flit per cycle, 16 cycles without a pause once started.
//!
//! It starts only when there is something to send (a data flit that may go, or credits owed),
//! the replay buffer has room and the serializer has taken every earlier LTP
//! (`send_seq == next_seq`), so control flits never queue behind a backlog; not while the link
//! is down or in its `start` cycle (an LTP in progress completes). Each slot takes, in order:
//! 1. the pending `RndTripEcho(expect_seq)` (not in flit 0, and not when a null LTP takes it
//!    now);
//! 2. a `RndTripMrkr(next_seq)` when none is outstanding (not in flit 0);
//! 3. a `CrdtRet` of a VC owed at least a quarter of its buffer;
//! 4. the arbiter's data flit (or the `VlMrkr` it needs first);
//! 5. a `CrdtRet` of any VC owed credits;
//! 6. else Idle.
//!
//! **Room** (`next_seq - ack_seq < R`) is a register, so the 16-bit fill subtraction stays
//! out of the start decision: exact for the builder's own LTPs (an LTP finished now counts at
//! once), one cycle late for frees by an echo. Without room the builder waits and keeps all
//! state.
//!
//! Latency: the slot's flit is written into the RAM on the edge that ends its cycle; the
//! serializer may start the LTP once two flits are written (`cut_through`). Reset: idle, room.
use super::super::lt::LtCode;
use super::flit_constant;
use super::{
    BuilderSource, CandidateSink, LinkStateSink, LtpWriteSource, OwedSink, ProtocolSink,
    SequenceSink, SerializerSink, SlotSource,
};
use crate::formats::FLIT_BITS;
use rust_hdl::prelude::*;

/// Builds LTPs, one slot per cycle, by slot priority.
#[derive(LogicBlock)]
pub struct TxBuilder {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: idle, with room.
    pub reset: Signal<In, bool>,
    /// The link's state.
    pub link: LinkStateSink,
    /// Our receiver's next expected sequence number (for the echo).
    pub expect_seq: Signal<In, Bits<16>>,
    /// The data slot's offer.
    pub candidate: CandidateSink,
    /// The `CrdtRet` slot's offer.
    pub owed: OwedSink,
    /// The pending echo and the outstanding marker.
    pub protocol: ProtocolSink,
    /// The sequence numbers.
    pub numbers: SequenceSink,
    /// The serializer's starts (a null LTP takes the echo).
    pub serializer: SerializerSink,
    /// The builder's state and the protocol's slots, to the serializer and the protocol.
    pub out: BuilderSource,
    /// Whose offer the slot takes, to the arbiter and the owed credits.
    pub slots: SlotSource,
    /// The flit written, to the replay buffer.
    pub write: LtpWriteSource,
    /// Not in the middle of an LTP.
    pub idle: Signal<Out, bool>,
    active: DFF<bool>,
    /// The next slot of the LTP being built.
    position: DFF<Bits<4>>,
    /// The replay buffer has room for the next LTP (registered; module doc).
    room: DFF<bool>,
    lt_echo: Constant<Bits<FLIT_BITS>>,
    lt_round_trip_marker: Constant<Bits<FLIT_BITS>>,
    replay_ltps: Constant<Bits<16>>,
    replay_ltps_less_one: Constant<Bits<16>>,
    starting: Signal<Local, bool>,
    writing: Signal<Local, bool>,
    slot: Signal<Local, Bits<4>>,
    echo_slot: Signal<Local, bool>,
    marker_slot: Signal<Local, bool>,
    data_slot: Signal<Local, bool>,
    credit_slot: Signal<Local, bool>,
    flit: Signal<Local, Bits<FLIT_BITS>>,
    /// The bundle fields this stage does not read, acknowledged here (Verilator's lint passes
    /// names containing "unused"; nothing reads this, so synthesis removes it).
    unused_inputs: Signal<Local, bool>,
}

impl TxBuilder {
    /// A builder for a replay buffer of `replay_ltps` LTPs.
    pub fn new(replay_ltps: u64) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            link: Default::default(),
            expect_seq: Default::default(),
            candidate: Default::default(),
            owed: Default::default(),
            protocol: Default::default(),
            numbers: Default::default(),
            serializer: Default::default(),
            out: Default::default(),
            slots: Default::default(),
            write: Default::default(),
            idle: Default::default(),
            active: Default::default(),
            position: Default::default(),
            room: Default::default(),
            lt_echo: flit_constant(LtCode::RndTripEcho.flit(0)),
            lt_round_trip_marker: flit_constant(LtCode::RndTripMrkr.flit(0)),
            replay_ltps: Constant::new(replay_ltps.into()),
            replay_ltps_less_one: Constant::new((replay_ltps - 1).into()),
            starting: Default::default(),
            writing: Default::default(),
            slot: Default::default(),
            echo_slot: Default::default(),
            marker_slot: Default::default(),
            data_slot: Default::default(),
            credit_slot: Default::default(),
            flit: Default::default(),
            unused_inputs: Default::default(),
        }
    }
}

impl Logic for TxBuilder {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, active, position, room);
        self.unused_inputs.next = self.link.up.val()
            | self.link.start.val()
            | self.numbers.replay_seq.val().any()
            | self.numbers.replay_pending.val()
            | self.numbers.acknowledged.val()
            | self.numbers.acknowledged_seq.val().any()
            | self.serializer.ltp_start.val()
            | self.serializer.active.val()
            | self.protocol.null_wanted.val()
            | self.protocol.retry_request.val()
            | self.protocol.poll.val();
        self.idle.next = !self.active.q.val();
        self.out.active.next = self.active.q.val();
        self.out.cut_through.next = self.active.q.val() & (self.position.q.val() >= 2);

        self.starting.next = !self.active.q.val()
            & !self.reset.val()
            & self.link.run.val()
            & self.room.q.val()
            & (self.numbers.send_seq.val() == self.numbers.next_seq.val())
            & (self.candidate.ready.val() | self.owed.any.val());
        self.writing.next = self.active.q.val() | self.starting.val();
        self.slot.next = 0.into();
        if self.active.q.val() {
            self.slot.next = self.position.q.val();
        }
        // Slot priority (module doc). A null LTP starting now takes the echo instead.
        self.echo_slot.next = self.writing.val()
            & self.slot.val().any()
            & self.protocol.echo_pending.val()
            & !self.serializer.null_start.val();
        self.marker_slot.next = self.writing.val()
            & self.slot.val().any()
            & !self.echo_slot.val()
            & !self.protocol.marker_out.val();
        self.credit_slot.next = false;
        self.data_slot.next = false;
        if self.writing.val() & !self.echo_slot.val() & !self.marker_slot.val() {
            if self.owed.urgent.val() {
                self.credit_slot.next = true;
            } else if self.candidate.ready.val() {
                self.data_slot.next = true;
            } else if self.owed.any.val() {
                self.credit_slot.next = true;
            }
        }
        self.flit.next = 0.into();
        if self.echo_slot.val() {
            self.flit.next = self.lt_echo.val() | bit_cast::<FLIT_BITS, 16>(self.expect_seq.val());
        }
        if self.marker_slot.val() {
            self.flit.next = self.lt_round_trip_marker.val()
                | bit_cast::<FLIT_BITS, 16>(self.numbers.next_seq.val());
        }
        if self.credit_slot.val() {
            self.flit.next = self.owed.flit.val();
        }
        if self.data_slot.val() {
            self.flit.next = self.candidate.flit.val();
        }
        self.out.echo_slot.next = self.echo_slot.val();
        self.out.marker_slot.next = self.marker_slot.val();
        self.slots.data_slot.next = self.data_slot.val();
        self.slots.credit_slot.next = self.credit_slot.val();
        self.write.write.next = self.writing.val();
        self.write.position.next = self.slot.val();
        self.write.flit.next = self.flit.val();
        self.write.sideband.next = self.owed.sideband.val();
        self.slots.sideband_slot.next = self.writing.val() & (self.slot.val() == 15);

        // Room after this cycle: an LTP finished now counts at once; echoes count next cycle.
        self.room.d.next = self.numbers.fill.val() < self.replay_ltps.val();
        if self.writing.val() & (self.slot.val() == 15) {
            self.room.d.next = self.numbers.fill.val() < self.replay_ltps_less_one.val();
        }
        if self.writing.val() {
            self.position.d.next = self.slot.val() + 1;
            self.active.d.next = true;
            if self.slot.val() == 15 {
                self.active.d.next = false;
            }
        }
        if self.link.restart.val() {
            self.room.d.next = true;
        }
        if self.reset.val() {
            self.room.d.next = true;
            self.active.d.next = false;
            self.position.d.next = 0.into();
        }
    }
}
