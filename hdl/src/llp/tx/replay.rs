//! The replay buffer of [`TxLink`](super::TxLink): R LTPs of 16 flits in a RAM, and the
//! sequence numbers that say which are held, built and sent.
//!
//! - `next_seq`: the LTP being built, into slot `next_seq mod R` (the builder writes flit `p`
//!   at `(next_seq mod R) * 16 + p`); it advances when flit 15 is written.
//! - `ack_seq`: the oldest LTP held. `got_echo(v)` inside the window (`v - ack_seq <= next_seq
//!   - ack_seq`) frees the LTPs below `v`; one outside it is ignored.
//! - `send_seq`: the next LTP the serializer reads; it advances as one starts, and a null LTP
//!   with the pending replay's `RetryMrkr` moves it back to `replay_seq`.
//! - `got_retry(e)` makes a replay from `e` pending, from `ack_seq` when `e` is outside the
//!   window (counted in `stale`); so does `start` (RESUME: every unacknowledged LTP again).
//!   Inside the window it is also an acknowledgement, as an echo is: the far end asks from
//!   the first LTP it has not delivered, so it has delivered every one below `e`. Without
//!   this, an idle link whose poll is hit by an error is answered by a retry request, not an
//!   echo, and its last LTPs stay held until a later poll gets through (the link watchdog
//!   counted that as a dead link in the 16-bit fabric).
//! - `out.acknowledged` (with `acknowledged_seq`, the echo's when both come in one cycle):
//!   an echo or a retry request inside the window this cycle; `ack_seq` takes its number on
//!   this edge, and the protocol ends an outstanding round-trip marker by it (an echo that
//!   follows a retry request may fall below the new `ack_seq` and be ignored: the retry
//!   request must end the marker, or none would until a poll).
//!   `restart` sets every sequence number to 0, emptying the buffer (its LTPs counted in
//!   `ltps_discarded`, saturating).
//!
//! Beside each LTP slot a register keeps the LTP's credit sideband code (written with its last
//! flit), which the serializer reads by sequence number (`sideband_seq`) for the trailer: a
//! replay returns the credits the first copy carried, and only one copy is ever delivered.
//!
//! Latency: the RAM reads one cycle after the serializer's address; the sequence numbers are
//! registered, so an echo frees room one cycle after it arrives. Reset: sequence numbers 0,
//! no replay pending, counters 0.
use super::{LinkStateSink, LtpWriteSink, SequenceSource, SerializerSink};
use crate::formats::FLIT_BITS;
use crate::llp::link_requests::LinkRequestsSink;
use rust_hdl::prelude::*;

/// The replay RAM, the sequence numbers, retries and echo frees.
#[derive(LogicBlock)]
pub struct TxReplay<const RAW: usize> {
    /// Clock of every register and of the RAM.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: sequence numbers 0, the buffer empty.
    pub reset: Signal<In, bool>,
    /// The link's state.
    pub link: LinkStateSink,
    /// The receiver's requests (retry and echo).
    pub from_rx: LinkRequestsSink,
    /// The builder's writes.
    pub write: LtpWriteSink,
    /// The serializer's starts.
    pub serializer: SerializerSink,
    /// The serializer's read address (LTP slot * 16 + flit), read on the next edge.
    pub read_address: Signal<In, Bits<RAW>>,
    /// The flit read.
    pub read_data: Signal<Out, Bits<FLIT_BITS>>,
    /// The sequence numbers, to the builder, the serializer and the protocol.
    pub out: SequenceSource,
    /// LTPs dropped at RESTARTs (saturating).
    pub ltps_discarded: Signal<Out, Bits<16>>,
    /// The sequence number of the LTP whose sideband code is read.
    pub sideband_seq: Signal<In, Bits<16>>,
    /// Its sideband code (combinational).
    pub sideband: Signal<Out, Bits<2>>,
    /// Replays started (saturating).
    pub replays: Signal<Out, Bits<16>>,
    /// Retry requests outside the window (saturating).
    pub stale: Signal<Out, Bits<16>>,
    ram: RAM<Bits<FLIT_BITS>, RAW>,
    /// The sideband code of the LTP in each slot.
    sidebands: Vec<DFF<Bits<2>>>,
    /// `R - 1`: a sequence number's slot bits.
    slot_mask: Constant<Bits<16>>,
    slot_numbers: Vec<Constant<Bits<16>>>,
    sideband_read: Signal<Local, Bits<2>>,
    next_seq: DFF<Bits<16>>,
    ack_seq: DFF<Bits<16>>,
    send_seq: DFF<Bits<16>>,
    replay_seq: DFF<Bits<16>>,
    replay_pending: DFF<bool>,
    replays_count: DFF<Bits<16>>,
    stale_count: DFF<Bits<16>>,
    discarded_count: DFF<Bits<16>>,
    /// LTPs held (`next_seq - ack_seq`), the window of valid retries and echoes.
    fill: Signal<Local, Bits<16>>,
    retry_distance: Signal<Local, Bits<16>>,
    echo_distance: Signal<Local, Bits<16>>,
    echo_accepted: Signal<Local, bool>,
    retry_accepted: Signal<Local, bool>,
    discarded_sum: Signal<Local, Bits<17>>,
    /// The bundle fields this stage does not read, acknowledged here (Verilator's lint passes
    /// names containing "unused"; nothing reads this, so synthesis removes it).
    unused_inputs: Signal<Local, bool>,
}

impl<const RAW: usize> Default for TxReplay<RAW> {
    fn default() -> Self {
        let slots = 1usize << (RAW - 4);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            link: Default::default(),
            from_rx: Default::default(),
            write: Default::default(),
            serializer: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            out: Default::default(),
            ltps_discarded: Default::default(),
            sideband_seq: Default::default(),
            sideband: Default::default(),
            replays: Default::default(),
            stale: Default::default(),
            ram: Default::default(),
            sidebands: (0..slots).map(|_| Default::default()).collect(),
            slot_mask: Constant::new((slots as u64 - 1).into()),
            slot_numbers: (0..slots)
                .map(|k| Constant::new((k as u64).into()))
                .collect(),
            sideband_read: Default::default(),
            next_seq: Default::default(),
            ack_seq: Default::default(),
            send_seq: Default::default(),
            replay_seq: Default::default(),
            replay_pending: Default::default(),
            replays_count: Default::default(),
            stale_count: Default::default(),
            discarded_count: Default::default(),
            fill: Default::default(),
            retry_distance: Default::default(),
            echo_distance: Default::default(),
            echo_accepted: Default::default(),
            retry_accepted: Default::default(),
            discarded_sum: Default::default(),
            unused_inputs: Default::default(),
        }
    }
}

impl<const RAW: usize> Logic for TxReplay<RAW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            next_seq,
            ack_seq,
            send_seq,
            replay_seq,
            replay_pending,
            replays_count,
            stale_count,
            discarded_count
        );
        self.unused_inputs.next = self.link.up.val()
            | self.link.run.val()
            | self.from_rx.got_mask.val()
            | self.from_rx.got_mask_val.val().any()
            | self.from_rx.send_retry.val()
            | self.from_rx.send_echo.val()
            | self.from_rx.expect_seq.val().any()
            | self.from_rx.mask.val().any()
            | self.serializer.active.val();
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.ram.write_enable.next = self.write.write.val();
        self.ram.write_address.next = (self.next_seq.q.val().get_bits::<RAW>(0) << 4)
            | bit_cast::<RAW, 4>(self.write.position.val());
        self.ram.write_data.next = self.write.flit.val();
        self.ram.read_address.next = self.read_address.val();
        self.read_data.next = self.ram.read_data.val();
        // The sideband codes: written with an LTP's last flit, read by sequence number.
        self.sideband_read.next = 0.into();
        for k in 0..self.sidebands.len() {
            self.sidebands[k].clock.next = self.clock.val();
            self.sidebands[k].d.next = self.sidebands[k].q.val();
            if self.write.write.val()
                & (self.write.position.val() == 15)
                & ((self.next_seq.q.val() & self.slot_mask.val()) == self.slot_numbers[k].val())
            {
                self.sidebands[k].d.next = self.write.sideband.val();
            }
            if (self.sideband_seq.val() & self.slot_mask.val()) == self.slot_numbers[k].val() {
                self.sideband_read.next = self.sidebands[k].q.val();
            }
        }
        self.sideband.next = self.sideband_read.val();

        self.fill.next = self.next_seq.q.val() - self.ack_seq.q.val();
        self.echo_distance.next = self.from_rx.got_echo_seq.val() - self.ack_seq.q.val();
        self.retry_distance.next = self.from_rx.got_retry_seq.val() - self.ack_seq.q.val();
        self.retry_accepted.next =
            self.from_rx.got_retry.val() & (self.retry_distance.val() <= self.fill.val());
        self.echo_accepted.next =
            self.from_rx.got_echo.val() & (self.echo_distance.val() <= self.fill.val());
        self.out.next_seq.next = self.next_seq.q.val();
        self.out.send_seq.next = self.send_seq.q.val();
        self.out.replay_seq.next = self.replay_seq.q.val();
        self.out.replay_pending.next = self.replay_pending.q.val();
        self.out.fill.next = self.fill.val();
        self.out.acknowledged.next = self.echo_accepted.val() | self.retry_accepted.val();
        self.out.acknowledged_seq.next = self.from_rx.got_retry_seq.val();
        if self.echo_accepted.val() {
            self.out.acknowledged_seq.next = self.from_rx.got_echo_seq.val();
        }
        self.ltps_discarded.next = self.discarded_count.q.val();
        self.replays.next = self.replays_count.q.val();
        self.stale.next = self.stale_count.q.val();

        if self.write.write.val() & (self.write.position.val() == 15) {
            self.next_seq.d.next = self.next_seq.q.val() + 1;
        }
        if self.serializer.ltp_start.val() {
            self.send_seq.d.next = self.send_seq.q.val() + 1;
        }
        if self.serializer.null_start.val() {
            self.replay_pending.d.next = false;
            if self.replay_pending.q.val() {
                self.send_seq.d.next = self.replay_seq.q.val();
                if self.replays_count.q.val() != 0xffff {
                    self.replays_count.d.next = self.replays_count.q.val() + 1;
                }
            }
        }
        if self.from_rx.got_retry.val() {
            self.replay_pending.d.next = true;
            self.replay_seq.d.next = self.from_rx.got_retry_seq.val();
            if self.retry_distance.val() > self.fill.val() {
                self.replay_seq.d.next = self.ack_seq.q.val();
                if self.stale_count.q.val() != 0xffff {
                    self.stale_count.d.next = self.stale_count.q.val() + 1;
                }
            }
        }
        // A retry request is a cumulative acknowledgement too (module doc); an echo in the
        // same cycle wins (both are in the window: either is a correct `ack_seq`).
        if self.retry_accepted.val() {
            self.ack_seq.d.next = self.from_rx.got_retry_seq.val();
        }
        if self.echo_accepted.val() {
            self.ack_seq.d.next = self.from_rx.got_echo_seq.val();
        }
        // Link up: a replay from the oldest LTP held (RESUME); RESTART empties the buffer.
        if self.link.start.val() {
            self.replay_pending.d.next = true;
            self.replay_seq.d.next = self.ack_seq.q.val();
        }
        self.discarded_sum.next =
            bit_cast::<17, 16>(self.discarded_count.q.val()) + bit_cast::<17, 16>(self.fill.val());
        if self.link.restart.val() {
            self.next_seq.d.next = 0.into();
            self.ack_seq.d.next = 0.into();
            self.send_seq.d.next = 0.into();
            self.replay_seq.d.next = 0.into();
            self.discarded_count.d.next = self.discarded_sum.val().get_bits::<16>(0);
            if self.discarded_sum.val().get_bit(16) {
                self.discarded_count.d.next = 0xffff.into();
            }
        }
        if self.reset.val() {
            self.next_seq.d.next = 0.into();
            self.ack_seq.d.next = 0.into();
            self.send_seq.d.next = 0.into();
            self.replay_pending.d.next = false;
            self.replays_count.d.next = 0.into();
            self.stale_count.d.next = 0.into();
            self.discarded_count.d.next = 0.into();
        }
    }
}
