//! `ChannelReceiver`: one router channel ([`crate::channel`]) into per-VC buffers and out as
//! per-VC flit streams; each buffer's freed slots are the channel's credits. A link port's
//! transmit side uses it between the core's output unit and its link endpoint's `tx_vcs`.
//!
//! **Buffers and credits.** Each VC has a FIFO of `D` flits ([`StreamFifo`]: registers up to
//! 16, block RAM above). The sender (the router's output unit) starts each VC with `credits`
//! credits (elaboration value, at most `D`: the router's `router.reserved_flits_per_vc`), so a
//! flit sent with a credit always finds a slot. Every flit that leaves buffer `v` (its stream
//! fires) returns one credit: bit `v` of `channel.credits`, registered (the flit leaving in
//! cycle `c` is paid back in `c + 1`). At most one flit leaves a VC per cycle, so one credit bit
//! per VC is enough. So the credits the sender holds are exactly the free slots of a buffer
//! that exists: the router's virtual cut-through check ("credits for the whole packet") is
//! about this buffer.
//!
//! **Streams.** `sources[v]` is buffer `v`'s front, valid/ready with the hold rule; each VC
//! has its own buffer, so a stalled VC never blocks another. Latency: a flit on the channel in
//! cycle `c` is offered from `c + 1` (registers) or `c + 2` (block RAM).
//!
//! **Whole packets** (option of [`ChannelReceiver::whole_packets`], for a consumer that merges
//! VCs into one stream of whole packets: the NIC's network intake). Each VC counts the packet
//! ends in its buffer (tail flits and `TailBadPkt` markers, counted as they are written and
//! as they leave) and offers its front only while that count is non-zero: the flits offered
//! are always those of a packet whose end is already buffered, so a consumer that holds a VC
//! from a packet's head to its end never waits in the middle of a packet, and a VC whose
//! sender stalls mid-packet never blocks another. The buffer must hold the largest packet
//! (`D >= network.max_packet_flits`); a buffer that is full without an end (a sender breaking
//! the packet format) is offered anyway, so it drains and never holds its VC for good (the
//! consumer's format check drops what it gets). Without the option the counts still exist but
//! gate nothing (their only reader is ANDed with a constant; that synthesis then removes them
//! was not checked).
//!
//! **Discard.** While `discard` is high (the link is dead, see [`crate::link_port`]), nothing
//! is offered on the streams and the buffers are emptied, one flit per cycle from the buffers
//! holding flits in round robin, each returning its credit as if the link took it: the channel
//! brings at most one flit per cycle, so the buffers drain as fast as they fill and the sender
//! is never blocked by a dead link. (Raising `discard` withdraws what the streams offered: the
//! link behind them is gone.) Each flit discarded this way is an event (`discarded`, and
//! `discarded_heads` when it is a packet's head).
//!
//! **Errors** (one-cycle pulses in the cycle after the flit, `events`): bit [`BAD_VC`] a flit
//! whose `vc` is not below `VCS`, bit [`OVERFLOW`] a flit for a full buffer (a sender without
//! credit). Either flit is dropped and changes nothing else. Neither happens with a correct
//! sender.
//!
//! **Reset** (synchronous): every buffer empty, no credit pending, no event (the sender's
//! counters restart at `credits`: a port resets both sides together).
//!
//! Parameters: `VCS` (1..=8), `VCB` = `channel_vc_bits(VCS)`, `D` buffer depth per VC (1..=16
//! or a power of two), `AW`, `CW` its address and count widths
//! ([`fifo_ptr_bits`](crate::fifo::fifo_ptr_bits), [`fifo_count_bits`](crate::fifo::fifo_count_bits));
//! use [`channel_receiver!`](crate::channel_receiver).
use crate::arb::RrArbiter;
use crate::channel::ChannelSink;
use crate::fifo::StreamFifo;
use crate::formats::flit::{ControlCode, CODE, HEAD_BIT, TAIL_BIT, TYPE_BIT};
use crate::formats::FLIT_BITS;
use crate::stream::StreamSource;
use rust_hdl::prelude::*;

// `update` reads a control flit's code at a literal offset (a `get_bits` offset must be one).
const _: () = assert!(CODE.lsb == 56 && CODE.width == 6);

/// `events` bit: a flit on a VC out of range, dropped.
pub const BAD_VC: usize = 0;
/// `events` bit: a flit for a full buffer, dropped.
pub const OVERFLOW: usize = 1;
/// Bits of `events`.
pub const RECEIVER_EVENTS: usize = 2;

/// The type of a [`ChannelReceiver`] with `$vcs` VCs and `$depth` flits per VC, widths filled
/// in: `channel_receiver!(2, 32)`.
#[macro_export]
macro_rules! channel_receiver {
    ($vcs:expr, $depth:expr) => {
        $crate::channel_receiver::ChannelReceiver<
            { $vcs },
            { $crate::channel::channel_vc_bits($vcs) },
            { $depth },
            { $crate::fifo::fifo_ptr_bits($depth) },
            { $crate::fifo::fifo_count_bits($depth) },
        >
    };
}

/// One router channel into per-VC buffered streams; see the module documentation.
#[derive(LogicBlock)]
pub struct ChannelReceiver<
    const VCS: usize,
    const VCB: usize,
    const D: usize,
    const AW: usize,
    const CW: usize,
> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The router channel: flits in, credits back.
    pub channel: ChannelSink<VCS, VCB>,
    /// Per VC: the buffered flits, in order.
    pub sources: Vec<StreamSource<Bits<FLIT_BITS>>>,
    /// Empty the buffers instead of offering them (the link is dead).
    pub discard: Signal<In, bool>,
    /// A flit was discarded in this cycle (event).
    pub discarded: Signal<Out, bool>,
    /// That flit was a head (event: a packet, or its start, was discarded).
    pub discarded_heads: Signal<Out, bool>,
    /// Bit [`BAD_VC`], [`OVERFLOW`]: the flit of the previous cycle was dropped (events).
    pub events: Signal<Out, Bits<RECEIVER_EVENTS>>,
    fifos: Vec<StreamFifo<Bits<FLIT_BITS>, D, AW, CW>>,
    /// While discarding: which buffer gives up a flit this cycle.
    drain: RrArbiter<VCS, VCB>,
    /// Bit `v`: a flit left buffer `v` on the last edge (its credit, on the channel now).
    credits: DFF<Bits<VCS>>,
    events_q: DFF<Bits<RECEIVER_EVENTS>>,
    /// Per VC: a flit leaves buffer `v` on this edge.
    leaves: Signal<Local, Bits<VCS>>,
    /// This cycle's events.
    events_now: Signal<Local, Bits<RECEIVER_EVENTS>>,
    /// Bit `v`: buffer `v` holds a flit.
    holding: Signal<Local, Bits<VCS>>,
    /// The flit on the channel is on a VC in range.
    in_range: Signal<Local, bool>,
    /// The front of the buffer the drain chose.
    drained: Signal<Local, Bits<FLIT_BITS>>,
    /// The buffers' counts (the credits tell the sender the same) and the drain's grant index
    /// (its one-hot grant selects the buffer): acknowledged unused.
    unused_counts: Signal<Local, bool>,
    vc_limit: Constant<Bits<8>>,
    ev_bad_vc: Constant<Bits<RECEIVER_EVENTS>>,
    ev_overflow: Constant<Bits<RECEIVER_EVENTS>>,
    numbers: Vec<Constant<Bits<VCB>>>,
    /// Bit `v` alone (with one VC the vectors are Verilog scalars: no bit-selects).
    vc_masks: Vec<Constant<Bits<VCS>>>,
    type_bit: Constant<Bits<7>>,
    head_bit: Constant<Bits<7>>,
    tail_bit: Constant<Bits<7>>,
    code_tail_bad: Constant<Bits<6>>,
    /// Per VC: packet ends (tails, `TailBadPkt`) in the buffer.
    ends_held: Vec<DFF<Bits<CW>>>,
    /// The option: offer only what belongs to a buffered packet end.
    gate_whole_packets: Constant<bool>,
    /// A full buffer's count.
    depth_count: Constant<Bits<CW>>,
    /// The flit on the channel ends a packet.
    channel_end: Signal<Local, bool>,
    /// Per VC: the front of its buffer ends a packet.
    front_end: Vec<Signal<Local, bool>>,
    /// Per VC: an end is written into its buffer on this edge.
    end_enters: Vec<Signal<Local, bool>>,
    /// Per VC: an end leaves its buffer on this edge.
    end_leaves: Vec<Signal<Local, bool>>,
    /// Per VC: it may offer its front.
    gate_open: Vec<Signal<Local, bool>>,
}

impl<const VCS: usize, const VCB: usize, const D: usize, const AW: usize, const CW: usize>
    ChannelReceiver<VCS, VCB, D, AW, CW>
{
    /// A receiver that gives its sender `credits` credits per VC. Panics naming the parameter
    /// if `VCS` is not 1..=8, `VCB` is not `channel_vc_bits(VCS)`, or `credits` is not 1..=`D`.
    pub fn new(credits: usize) -> Self {
        assert!(
            (1..=8).contains(&VCS),
            "ChannelReceiver: VCS must be 1..=8, got {VCS}"
        );
        assert_eq!(
            VCB,
            crate::channel::channel_vc_bits(VCS),
            "ChannelReceiver: VCB must be channel_vc_bits(VCS)"
        );
        assert!(
            (1..=D).contains(&credits),
            "ChannelReceiver<D = {D}>: credits per VC must be 1..=D (the buffer must hold what the sender may send), got {credits}"
        );
        let pos = |b: usize| Constant::new(Bits::<7>::from(b as u64));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            channel: Default::default(),
            sources: (0..VCS).map(|_| Default::default()).collect(),
            discard: Default::default(),
            discarded: Default::default(),
            discarded_heads: Default::default(),
            events: Default::default(),
            fifos: (0..VCS).map(|_| StreamFifo::new()).collect(),
            drain: RrArbiter::new(false),
            credits: Default::default(),
            events_q: Default::default(),
            leaves: Default::default(),
            events_now: Default::default(),
            holding: Default::default(),
            in_range: Default::default(),
            drained: Default::default(),
            unused_counts: Default::default(),
            vc_limit: Constant::new((VCS as u64).into()),
            ev_bad_vc: Constant::new((1u64 << BAD_VC).into()),
            ev_overflow: Constant::new((1u64 << OVERFLOW).into()),
            numbers: (0..VCS).map(|v| Constant::new((v as u64).into())).collect(),
            vc_masks: (0..VCS)
                .map(|v| Constant::new((1u64 << v).into()))
                .collect(),
            type_bit: pos(TYPE_BIT),
            head_bit: pos(HEAD_BIT),
            tail_bit: pos(TAIL_BIT),
            code_tail_bad: Constant::new((ControlCode::TailBadPkt.code() as u64).into()),
            ends_held: (0..VCS).map(|_| Default::default()).collect(),
            gate_whole_packets: Constant::new(false),
            depth_count: Constant::new((D as u64).into()),
            channel_end: Default::default(),
            front_end: (0..VCS).map(|_| Default::default()).collect(),
            end_enters: (0..VCS).map(|_| Default::default()).collect(),
            end_leaves: (0..VCS).map(|_| Default::default()).collect(),
            gate_open: (0..VCS).map(|_| Default::default()).collect(),
        }
    }

    /// This receiver offering each VC's flits only once its buffer holds the packet's end
    /// (see the module documentation, "Whole packets"). Panics if `D` is below
    /// `max_packet_flits`, since such a packet could never be offered.
    pub fn whole_packets(mut self, max_packet_flits: usize) -> Self {
        assert!(
            D >= max_packet_flits,
            "ChannelReceiver<D = {D}>: whole packets need buffers of at least max_packet_flits = {max_packet_flits}"
        );
        self.gate_whole_packets = Constant::new(true);
        self
    }
}

impl<const VCS: usize, const VCB: usize, const D: usize, const AW: usize, const CW: usize> Logic
    for ChannelReceiver<VCS, VCB, D, AW, CW>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, credits, events_q);
        clock!(self, clock, drain);
        for v in 0..VCS {
            self.ends_held[v].clock.next = self.clock.val();
            self.ends_held[v].d.next = self.ends_held[v].q.val();
        }
        self.channel_end.next = !self.channel.flit.val().get_bit(self.type_bit.val().index())
            & !self.channel.flit.val().get_bit(self.head_bit.val().index())
            & (self.channel.flit.val().get_bit(self.tail_bit.val().index())
                | (self.channel.flit.val().get_bits::<6>(56) == self.code_tail_bad.val()));
        self.drain.reset.next = self.reset.val();
        // With VCS = 2^VCB every `vc` is in range: the 8-bit compare says so too.
        self.in_range.next = bit_cast::<8, VCB>(self.channel.vc.val()) < self.vc_limit.val();
        self.events_now.next = 0.into();
        if self.channel.valid.val() & !self.in_range.val() {
            self.events_now.next = self.events_now.val() | self.ev_bad_vc.val();
        }
        self.holding.next = 0.into();
        for v in 0..VCS {
            if self.fifos[v].source.valid.val() {
                self.holding.next = self.holding.val() | self.vc_masks[v].val();
            }
        }
        self.drain.requests.next = self.holding.val();
        self.drain.advance.next = self.discard.val() & self.drain.valid.val() & !self.reset.val();
        self.drain.tail.next = true;
        self.leaves.next = 0.into();
        self.drained.next = 0.into();
        self.unused_counts.next = self.drain.grant_index.val().any();
        for v in 0..VCS {
            self.fifos[v].clock.next = self.clock.val();
            self.fifos[v].reset.next = self.reset.val();
            self.fifos[v].sink.valid.next = self.channel.valid.val()
                & (self.channel.vc.val() == self.numbers[v].val())
                & !self.reset.val();
            self.fifos[v].sink.data.next = self.channel.flit.val();
            if self.fifos[v].sink.valid.val() & !self.fifos[v].sink.ready.val() {
                self.events_now.next = self.events_now.val() | self.ev_overflow.val();
            }
            self.gate_open[v].next = !self.gate_whole_packets.val()
                | self.ends_held[v].q.val().any()
                | (self.fifos[v].count.val() == self.depth_count.val());
            self.sources[v].valid.next =
                self.fifos[v].source.valid.val() & !self.discard.val() & self.gate_open[v].val();
            self.sources[v].data.next = self.fifos[v].source.data.val();
            self.fifos[v].source.ready.next =
                self.sources[v].ready.val() & !self.discard.val() & self.gate_open[v].val();
            if self.discard.val() {
                self.fifos[v].source.ready.next =
                    (self.drain.grant.val() & self.vc_masks[v].val()).any();
            }
            if (self.drain.grant.val() & self.vc_masks[v].val()).any() {
                self.drained.next = self.fifos[v].source.data.val();
            }
            if self.fifos[v].source.valid.val() & self.fifos[v].source.ready.val() {
                self.leaves.next = self.leaves.val() | self.vc_masks[v].val();
            }
            // The packet ends held: one more when an end is written, one fewer when one leaves.
            self.front_end[v].next = !self.fifos[v]
                .source
                .data
                .val()
                .get_bit(self.type_bit.val().index())
                & !self.fifos[v]
                    .source
                    .data
                    .val()
                    .get_bit(self.head_bit.val().index())
                & (self.fifos[v]
                    .source
                    .data
                    .val()
                    .get_bit(self.tail_bit.val().index())
                    | (self.fifos[v].source.data.val().get_bits::<6>(56)
                        == self.code_tail_bad.val()));
            self.end_enters[v].next = self.fifos[v].sink.valid.val()
                & self.fifos[v].sink.ready.val()
                & self.channel_end.val();
            self.end_leaves[v].next = self.fifos[v].source.valid.val()
                & self.fifos[v].source.ready.val()
                & self.front_end[v].val();
            if self.end_enters[v].val() & !self.end_leaves[v].val() {
                self.ends_held[v].d.next = self.ends_held[v].q.val() + 1;
            }
            if self.end_leaves[v].val() & !self.end_enters[v].val() {
                self.ends_held[v].d.next = self.ends_held[v].q.val() - 1;
            }
            if self.reset.val() {
                self.ends_held[v].d.next = 0.into();
            }
            self.unused_counts.next = self.unused_counts.val() | self.fifos[v].count.val().any();
        }
        self.credits.d.next = self.leaves.val();
        self.events_q.d.next = self.events_now.val();
        if self.reset.val() {
            self.credits.d.next = 0.into();
            self.events_q.d.next = 0.into();
        }
        self.channel.credits.next = self.credits.q.val();
        self.events.next = self.events_q.q.val();
        self.discarded.next = self.discard.val() & self.drain.valid.val() & !self.reset.val();
        self.discarded_heads.next = self.discarded.val()
            & self.drained.val().get_bit(self.head_bit.val().index())
            & !self.drained.val().get_bit(self.type_bit.val().index());
    }
}

#[test]
fn channel_receiver_is_synthesizable() {
    let mut uut = <crate::channel_receiver!(3, 4)>::new(4);
    uut.connect_all();
    yosys_validate("channel_receiver", &generate_verilog(&uut)).unwrap();
    let mut one = <crate::channel_receiver!(1, 4)>::new(2);
    one.connect_all();
    yosys_validate("channel_receiver_1", &generate_verilog(&one)).unwrap();
}
