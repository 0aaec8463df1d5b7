//! The link protocol of [`TxLink`](super::TxLink): the link's state for every stage, and the
//! requests that ride in LTPs or take a null LTP: the receiver's retry requests and echoes,
//! round-trip markers and polls with their timers (module doc, "Protocol inputs", "Link up").
//!
//! - **Link state** ([`LinkStateSource`]): `up`, `start`, `run` (up and not in the `start`
//!   cycle: nothing starts in the cycle the link comes up) and `restart` (`start` with a fresh
//!   far end), combinational from the ports.
//! - **Echo**: `send_echo` makes one pending; the builder puts it in an LTP slot, or after 63
//!   cycles (with the builder idle) the serializer sends it in a null LTP (`null_wanted`).
//!   During a replay the builder is idle for several LTPs, and a null LTP per echo there cost
//!   more wire time than the replays themselves.
//! - **Round-trip marker**: the builder writes one when none is outstanding; an
//!   acknowledgement newer than the marker (an echo or a retry request inside the window, the
//!   replay buffer's `acknowledged`) ends it. The poll timer counts while a marker is outstanding or LTPs
//!   wait for acknowledgement (LTPs built while a marker was out carry none: if the link then
//!   goes idle no later LTP brings one, so without a poll they would stay unacknowledged and
//!   the link watchdog would call the link dead); at `rt_timeout` a poll is made pending. It
//!   restarts with each marker, each acknowledgement (progress) and each retry from the far end
//!   (the echo follows the replayed marker), and holds while the link is down (nothing could
//!   answer a poll).
//! - **Retry request**: `send_retry` makes one pending, for the next null LTP.
//!
//! A null LTP (`null_start`) takes every pending request. `start` drops a pending retry
//! request and poll and restarts the timer; `restart` also ends the outstanding marker and the
//! pending echo. Reset: nothing pending, no marker out, timers 0.
//!
//! Latency: requests are registered here, so a request pulse can be served from the next
//! cycle; the link state is combinational (the stages register what it starts).
use super::{BuilderSink, LinkStateSource, ProtocolSource, SequenceSink, SerializerSink};
use crate::llp::link_requests::LinkRequestsSink;
use rust_hdl::prelude::*;

/// Link state, retry requests, echoes, round-trip markers and polls.
#[derive(LogicBlock)]
pub struct TxProtocol {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: nothing pending.
    pub reset: Signal<In, bool>,
    /// The link is trained (level).
    pub up: Signal<In, bool>,
    /// First cycle of `up`.
    pub start: Signal<In, bool>,
    /// Valid with `start`: the far end was reset.
    pub fresh_far: Signal<In, bool>,
    /// The receiver's requests.
    pub from_rx: LinkRequestsSink,
    /// The builder's slots.
    pub builder: BuilderSink,
    /// The serializer's starts.
    pub serializer: SerializerSink,
    /// The sequence numbers.
    pub numbers: SequenceSink,
    /// The link's state, to every stage.
    pub link: LinkStateSource,
    /// The pending requests, to the builder and the serializer.
    pub out: ProtocolSource,
    echo_pending: DFF<bool>,
    /// Cycles the pending echo has waited (saturates at 63).
    echo_age: DFF<Bits<6>>,
    marker_out: DFF<bool>,
    /// Sequence number of the LTP that carries the outstanding marker.
    marker_seq: DFF<Bits<16>>,
    marker_timer: DFF<Bits<16>>,
    poll_pending: DFF<bool>,
    retry_request_pending: DFF<bool>,
    rt_timeout: Constant<Bits<16>>,
    /// Distance of the acknowledgement from the marker, and of the next LTP from the marker.
    acknowledged_after_marker: Signal<Local, Bits<16>>,
    next_after_marker: Signal<Local, Bits<16>>,
    /// The bundle fields this stage does not read, acknowledged here (Verilator's lint passes
    /// names containing "unused"; nothing reads this, so synthesis removes it).
    unused_inputs: Signal<Local, bool>,
}

impl TxProtocol {
    /// A protocol stage polling after `rt_timeout` cycles.
    pub fn new(rt_timeout: u16) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            up: Default::default(),
            start: Default::default(),
            fresh_far: Default::default(),
            from_rx: Default::default(),
            builder: Default::default(),
            serializer: Default::default(),
            numbers: Default::default(),
            link: Default::default(),
            out: Default::default(),
            echo_pending: Default::default(),
            echo_age: Default::default(),
            marker_out: Default::default(),
            marker_seq: Default::default(),
            marker_timer: Default::default(),
            poll_pending: Default::default(),
            retry_request_pending: Default::default(),
            rt_timeout: Constant::new((rt_timeout as u64).into()),
            acknowledged_after_marker: Default::default(),
            next_after_marker: Default::default(),
            unused_inputs: Default::default(),
        }
    }
}

impl Logic for TxProtocol {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            echo_pending,
            echo_age,
            marker_out,
            marker_seq,
            marker_timer,
            poll_pending,
            retry_request_pending
        );
        // (`got_echo` and `got_retry` arrive checked against the window, as the replay
        // buffer's `acknowledged`.)
        self.unused_inputs.next = self.from_rx.got_retry_seq.val().any()
            | self.from_rx.got_echo.val()
            | self.from_rx.got_echo_seq.val().any()
            | self.from_rx.got_mask.val()
            | self.from_rx.got_mask_val.val().any()
            | self.from_rx.expect_seq.val().any()
            | self.from_rx.mask.val().any()
            | self.builder.cut_through.val()
            | self.serializer.ltp_start.val()
            | self.serializer.active.val()
            | self.numbers.send_seq.val().any()
            | self.numbers.replay_seq.val().any()
            | self.numbers.replay_pending.val();
        self.link.up.next = self.up.val();
        self.link.start.next = self.start.val();
        self.link.run.next = self.up.val() & !self.start.val();
        self.link.restart.next = self.start.val() & self.fresh_far.val();
        self.out.echo_pending.next = self.echo_pending.q.val();
        self.out.null_wanted.next = self.retry_request_pending.q.val()
            | self.poll_pending.q.val()
            | (self.echo_pending.q.val()
                & !self.builder.active.val()
                & self.echo_age.q.val().all());
        self.out.retry_request.next = self.retry_request_pending.q.val();
        self.out.poll.next = self.poll_pending.q.val();
        self.out.marker_out.next = self.marker_out.q.val();

        if self.builder.echo_slot.val() {
            self.echo_pending.d.next = false;
        }
        if self.builder.marker_slot.val() {
            self.marker_out.d.next = true;
            self.marker_seq.d.next = self.numbers.next_seq.val();
            self.marker_timer.d.next = 0.into();
        }
        if self.serializer.null_start.val() {
            self.retry_request_pending.d.next = false;
            self.poll_pending.d.next = false;
            self.echo_pending.d.next = false;
        }
        // An acknowledgement (an echo, or a retry request: `tx::replay`) newer than the
        // outstanding marker ends it. `marker_seq` is the previous marker's while a new one is
        // written (`marker_slot`): no acknowledgement can be newer than the new marker yet.
        self.acknowledged_after_marker.next =
            self.numbers.acknowledged_seq.val() - self.marker_seq.q.val();
        self.next_after_marker.next = self.numbers.next_seq.val() - self.marker_seq.q.val();
        if self.numbers.acknowledged.val()
            & !self.builder.marker_slot.val()
            & self.acknowledged_after_marker.val().any()
            & (self.acknowledged_after_marker.val() <= self.next_after_marker.val())
        {
            self.marker_out.d.next = false;
        }
        if self.from_rx.send_retry.val() {
            self.retry_request_pending.d.next = true;
        }
        if self.from_rx.send_echo.val() {
            self.echo_pending.d.next = true;
        }
        // The echo's age (module doc): holds at 63 and while the link is down.
        self.echo_age.d.next = 0.into();
        if self.echo_pending.q.val() & !self.echo_age.q.val().all() {
            self.echo_age.d.next = self.echo_age.q.val() + 1;
        }
        if (self.echo_pending.q.val() & self.echo_age.q.val().all()) | !self.up.val() {
            self.echo_age.d.next = self.echo_age.q.val();
        }
        // The poll timer (module doc).
        if (self.marker_out.q.val() | self.numbers.fill.val().any())
            & !self.builder.marker_slot.val()
            & self.up.val()
        {
            self.marker_timer.d.next = self.marker_timer.q.val() + 1;
            if self.marker_timer.q.val() == self.rt_timeout.val() {
                self.marker_timer.d.next = 0.into();
                self.poll_pending.d.next = true;
            }
        } else if !self.builder.marker_slot.val() & self.up.val() {
            self.marker_timer.d.next = 0.into();
        }
        if self.numbers.acknowledged.val() & !self.builder.marker_slot.val() {
            self.marker_timer.d.next = 0.into();
        }
        if self.from_rx.got_retry.val() {
            self.marker_timer.d.next = 0.into();
        }
        // Link up: RESUME drops the requests the replay makes moot; RESTART forgets the marker
        // and the echo (the fresh far end has neither).
        if self.start.val() {
            self.retry_request_pending.d.next = false;
            self.poll_pending.d.next = false;
            self.marker_timer.d.next = 0.into();
        }
        if self.start.val() & self.fresh_far.val() {
            self.marker_out.d.next = false;
            self.echo_pending.d.next = false;
        }
        if self.reset.val() {
            self.echo_pending.d.next = false;
            self.echo_age.d.next = 0.into();
            self.marker_out.d.next = false;
            self.marker_timer.d.next = 0.into();
            self.poll_pending.d.next = false;
            self.retry_request_pending.d.next = false;
        }
    }
}
