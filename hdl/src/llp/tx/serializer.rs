//! The serializer of [`TxLink`](super::TxLink): sends LTPs to the striper, 17 beats each (16
//! flits, then the trailer in bits 15..0), always read from the replay buffer (new and
//! replayed alike), or a null LTP from a generator.
//!
//! **Starts.** Between LTPs (idle, or the trailer leaving now), while the link runs and no
//! lane mask change waits: a null LTP if one is wanted (a replay, a retry request, a poll, or
//! an echo that waited 63 cycles while the builder is idle), else LTP `send_seq` if it is
//! built, or being built with two flits written (cut-through).
//!
//! **Null LTP** flits come from [`TxNullLtp`](super::TxNullLtp), at the serializer's
//! `beat`.
//!
//! **Trailer** (`hdl::llp::ltp::trailer`): the credit sideband code in bits 15..14 (the one
//! kept with the LTP in the replay buffer; 0 for a null LTP), and in bits 13..0
//! `CRC14(flits, sideband) ^ (seq mod 2^14)` for a normal LTP (so a lost LTP fails the next
//! one's check), `CRC14(flits, sideband)` for a null LTP, either XOR the sequence state at
//! bits 13..12: the logical lane of the LTP's first XFR as the striper places it,
//! `(state + 33) mod L` when the LTP follows the previous trailer at once, else 0.
//!
//! Latency: the RAM read address is computed a cycle ahead (`read_address`), so the flit at
//! the output is the one the RAM read on the last edge: a beat per cycle while `out.ready`
//! holds. `up` low abandons the LTP on the way out (it stays in the replay buffer). Reset:
//! idle, sequence state 0, counters 0.
use super::{
    BuilderSink, LaneStateSink, LinkStateSink, ProtocolSink, SequenceSink, SerializerSource,
};
use crate::crc::{Crc14x65, CrcStep, CRC14};
use crate::formats::FLIT_BITS;
use crate::llp::ltp::STATE_SHIFT;
use crate::stream::StreamSource;
use rust_hdl::prelude::*;

/// Reads LTPs and null LTPs out with their CRC-14 trailer.
#[derive(LogicBlock)]
pub struct TxSerializer<const RAW: usize> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: idle.
    pub reset: Signal<In, bool>,
    /// The link's state.
    pub link: LinkStateSink,
    /// LTP beats to the striper.
    pub out: StreamSource<Bits<FLIT_BITS>>,
    /// The builder's state (idle, cut-through).
    pub builder: BuilderSink,
    /// The sequence numbers.
    pub numbers: SequenceSink,
    /// The protocol's pending requests.
    pub protocol: ProtocolSink,
    /// A lane mask change waits; the sequence state's step.
    pub lanes: LaneStateSink,
    /// What starts now, to the replay buffer, the builder, the lanes and the protocol.
    pub status: SerializerSource,
    /// The replay RAM address of the flit shown next cycle.
    pub read_address: Signal<Out, Bits<RAW>>,
    /// The flit the RAM read.
    pub read_data: Signal<In, Bits<FLIT_BITS>>,
    /// The sequence number of the normal LTP on the way out, whose sideband code is read.
    pub sideband_seq: Signal<Out, Bits<16>>,
    /// Its sideband code, kept with it in the replay buffer.
    pub sideband: Signal<In, Bits<2>>,
    /// The beat within the LTP on the way out, to the null LTP generator.
    pub beat: Signal<Out, Bits<5>>,
    /// The null LTP's flit at `beat` ([`TxNullLtp`](super::TxNullLtp)).
    pub null_flit: Signal<In, Bits<FLIT_BITS>>,
    /// Normal LTPs sent, replays included (wrapping).
    pub ltps_sent: Signal<Out, Bits<32>>,
    /// Null LTPs sent (wrapping).
    pub nulls_sent: Signal<Out, Bits<32>>,
    ltp_crc: Crc14x65,
    /// The CRC-14 of the flits stepped over the sideband bits.
    sideband_step: CrcStep<14, 2>,
    state_shift: Constant<Bits<14>>,
    /// The sideband code in the trailer (0 for a null LTP).
    trailer_sideband: Signal<Local, Bits<2>>,
    active: DFF<bool>,
    /// Beat of the LTP on the way out (16: the trailer).
    position: DFF<Bits<5>>,
    null_ltp: DFF<bool>,
    /// Sequence number of the normal LTP on the way out.
    ltp_seq: DFF<Bits<16>>,
    /// Its sequence state.
    state: DFF<Bits<2>>,
    address: DFF<Bits<RAW>>,
    ltps_count: DFF<Bits<32>>,
    nulls_count: DFF<Bits<32>>,
    fire: Signal<Local, bool>,
    trailer_fire: Signal<Local, bool>,
    free: Signal<Local, bool>,
    want_null: Signal<Local, bool>,
    null_start: Signal<Local, bool>,
    ltp_start: Signal<Local, bool>,
    next_state: Signal<Local, Bits<2>>,
    next_address: Signal<Local, Bits<RAW>>,
    trailer: Signal<Local, Bits<16>>,
    seq_xor: Signal<Local, Bits<14>>,
    /// The bundle fields this stage does not read, acknowledged here (Verilator's lint passes
    /// names containing "unused"; nothing reads this, so synthesis removes it).
    unused_inputs: Signal<Local, bool>,
}

impl<const RAW: usize> Default for TxSerializer<RAW> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            link: Default::default(),
            out: Default::default(),
            builder: Default::default(),
            numbers: Default::default(),
            protocol: Default::default(),
            lanes: Default::default(),
            status: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            sideband_seq: Default::default(),
            sideband: Default::default(),
            beat: Default::default(),
            null_flit: Default::default(),
            ltps_sent: Default::default(),
            nulls_sent: Default::default(),
            ltp_crc: Crc14x65::new(&CRC14),
            sideband_step: CrcStep::new(&CRC14),
            state_shift: Constant::new((STATE_SHIFT as u64).into()),
            trailer_sideband: Default::default(),
            active: Default::default(),
            position: Default::default(),
            null_ltp: Default::default(),
            ltp_seq: Default::default(),
            state: Default::default(),
            address: Default::default(),
            ltps_count: Default::default(),
            nulls_count: Default::default(),
            fire: Default::default(),
            trailer_fire: Default::default(),
            free: Default::default(),
            want_null: Default::default(),
            null_start: Default::default(),
            ltp_start: Default::default(),
            next_state: Default::default(),
            next_address: Default::default(),
            trailer: Default::default(),
            seq_xor: Default::default(),
            unused_inputs: Default::default(),
        }
    }
}

impl<const RAW: usize> Logic for TxSerializer<RAW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            active,
            position,
            null_ltp,
            ltp_seq,
            state,
            address,
            ltps_count,
            nulls_count
        );
        self.unused_inputs.next = self.link.start.val()
            | self.link.restart.val()
            | self.builder.active.val()
            | self.builder.echo_slot.val()
            | self.builder.marker_slot.val()
            | self.numbers.fill.val().any()
            | self.numbers.acknowledged.val()
            | self.numbers.acknowledged_seq.val().any()
            | self.numbers.replay_seq.val().any()
            | self.protocol.echo_pending.val()
            | self.protocol.retry_request.val()
            | self.protocol.poll.val()
            | self.protocol.marker_out.val();
        self.ltp_crc.clock.next = self.clock.val();
        self.ltp_crc.reset.next = self.reset.val();
        self.ltps_sent.next = self.ltps_count.q.val();
        self.nulls_sent.next = self.nulls_count.q.val();

        // Starts (module doc).
        self.fire.next = self.active.q.val() & self.out.ready.val() & self.link.up.val();
        self.trailer_fire.next = self.fire.val() & self.position.q.val().get_bit(4);
        self.free.next = !self.active.q.val() | self.trailer_fire.val();
        self.want_null.next = self.numbers.replay_pending.val() | self.protocol.null_wanted.val();
        self.null_start.next = self.link.run.val()
            & self.free.val()
            & !self.lanes.change_pending.val()
            & self.want_null.val();
        self.ltp_start.next = self.link.run.val()
            & self.free.val()
            & !self.lanes.change_pending.val()
            & !self.want_null.val()
            & ((self.numbers.send_seq.val() != self.numbers.next_seq.val())
                | self.builder.cut_through.val());
        self.status.null_start.next = self.null_start.val();
        self.status.ltp_start.next = self.ltp_start.val();
        self.status.active.next = self.active.q.val();
        self.beat.next = self.position.q.val();

        // Output flit, CRC, trailer.
        self.out.valid.next = self.active.q.val() & self.link.up.val();
        self.seq_xor.next = self.ltp_seq.q.val().get_bits::<14>(0);
        if self.null_ltp.q.val() {
            self.seq_xor.next = 0.into();
        }
        self.sideband_seq.next = self.ltp_seq.q.val();
        self.trailer_sideband.next = self.sideband.val();
        if self.null_ltp.q.val() {
            self.trailer_sideband.next = 0.into();
        }
        self.sideband_step.state.next = self.ltp_crc.crc.val();
        self.sideband_step.data.next = self.trailer_sideband.val();
        self.trailer.next = bit_cast::<16, 14>(
            self.sideband_step.next_state.val()
                ^ self.seq_xor.val()
                ^ (bit_cast::<14, 2>(self.state.q.val()) << self.state_shift.val()),
        ) | (bit_cast::<16, 2>(self.trailer_sideband.val()) << 14);
        self.out.data.next = self.read_data.val();
        if self.null_ltp.q.val() {
            self.out.data.next = self.null_flit.val();
        }
        if self.position.q.val().get_bit(4) {
            self.out.data.next = bit_cast::<FLIT_BITS, 16>(self.trailer.val());
        }
        self.ltp_crc.start.next = self.fire.val() & (self.position.q.val() == 0);
        self.ltp_crc.valid.next = self.fire.val() & !self.position.q.val().get_bit(4);
        self.ltp_crc.data.next = self.out.data.val();

        // Sequence state of the next LTP: it follows the trailer at once, or restarts at 0.
        self.next_state.next = 0.into();
        if self.trailer_fire.val() {
            self.next_state.next =
                (self.state.q.val() + self.lanes.state_step.val()) & self.lanes.state_wrap.val();
        }
        // RAM read address: the flit shown next cycle.
        self.next_address.next = self.address.q.val();
        if self.fire.val() & !self.position.q.val().get_bit(4) {
            self.next_address.next = self.address.q.val() + 1;
            self.position.d.next = self.position.q.val() + 1;
        }
        if self.ltp_start.val() {
            self.next_address.next = self.numbers.send_seq.val().get_bits::<RAW>(0) << 4;
        }
        self.address.d.next = self.next_address.val();
        self.read_address.next = self.next_address.val();
        if self.trailer_fire.val() {
            self.active.d.next = false;
        }
        if self.null_start.val() | self.ltp_start.val() {
            self.active.d.next = true;
            self.position.d.next = 0.into();
            self.null_ltp.d.next = self.null_start.val();
            self.state.d.next = self.next_state.val();
        }
        if self.ltp_start.val() {
            self.ltp_seq.d.next = self.numbers.send_seq.val();
            self.ltps_count.d.next = self.ltps_count.q.val() + 1;
        }
        if self.null_start.val() {
            self.nulls_count.d.next = self.nulls_count.q.val() + 1;
        }
        // Link down: an LTP on the way out is abandoned (it stays in the replay buffer).
        if !self.link.up.val() {
            self.active.d.next = false;
        }
        if self.reset.val() {
            self.active.d.next = false;
            self.position.d.next = 0.into();
            self.null_ltp.d.next = false;
            self.state.d.next = 0.into();
            self.ltps_count.d.next = 0.into();
            self.nulls_count.d.next = 0.into();
        }
    }
}
