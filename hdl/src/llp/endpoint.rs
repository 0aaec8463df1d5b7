//! One end of a link: the whole link layer between a chip core's per-VC flit streams and the
//! physical lanes (`docs/llp-design.md`). Every network port of both chips instantiates it.
//!
//! ```text
//! tx_vcs -> TxClassifier -> SkidBuffer per VC -> TxLink -> LtpStriper -> lanes_out
//! lanes_in -> LtpDeframer -> RxLink -> RxDelivery (staging, VC demux, PacketBuffer per VC) -> rx_vcs
//! ```
//! `TxLink` and `RxLink` of the same endpoint talk through one bundle
//! ([`LinkRequestsSource`](super::link_requests::LinkRequestsSource)): the receiver hands the
//! far end's requests (retry, echo, lane mask) to the transmitter, and asks it to send its own
//! (retry request with lane mask, echo); beside it, per VC, the credits the far end returned
//! and the receive buffers' freed slots, which become credits the transmitter owes. The
//! deframer hands the receiver one bundle too ([`DeframedSource`]).
//!
//! Guarantees (shown by the two-endpoint bench on Verilator): within a VC every flit the core
//! hands to `tx_vcs` leaves the far end's `rx_vcs` exactly once, in order and unchanged,
//! whatever the wire does (bit errors, bursts, dropped transfers, a lane dying or turning
//! noisy), as long as at least one lane works; the sender never overruns the receiver's
//! buffers; packets that are malformed when the core sends them are dropped whole at the far
//! end and counted (dirty-packet discard).
//!
//! Configuration inputs (registers once the register map exists): `interleave`,
//! `lane_threshold`, `lane_window`. Status outputs: see the port list. Both ends must leave
//! reset together (link training is not part of this block).
//!
//! Parameters: `RAW` replay address bits (log2(replay LTPs) + 4) and `D` slots of each VC
//! buffer with its widths `AW`, `CW`; use [`llp_endpoint!`](crate::llp_endpoint). Credit counts
//! are [`CREDIT_BITS`] wide whatever the buffer size. Elaboration values: [`EndpointParams`].
use super::deframer::{DeframedSource, LtpDeframer};
use super::lane_channel::{LaneChannelIn, LaneChannelOut};
use super::link_requests::LinkRequestsSource;
use super::ltp_striper::LtpStriper;
use super::rx_delivery::RxDelivery;
use super::rx_link::RxLink;
use super::tx_link::{TxClassifier, TxLink, Q_BITS};
use super::CREDIT_BITS;
use crate::bits::PopCount;
use crate::fifo::{fifo_count_bits, fifo_ptr_bits};
use crate::formats::FLIT_BITS;
use crate::skid_buffer::SkidBuffer;
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// Elaboration values of an [`LlpEndpoint`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EndpointParams {
    /// Virtual channels (1..=8).
    pub vcs: usize,
    /// Longest packet accepted, in flits.
    pub max_packet: usize,
    /// Lanes after reset (bit n: physical lane n).
    pub mask: u8,
    /// Cycles before a receiver repeats a retry request.
    pub retry_timeout: u16,
    /// Cycles before a transmitter polls for an overdue round-trip echo.
    pub rt_timeout: u16,
}

impl EndpointParams {
    /// The defaults for `vcs` VCs, `lanes` lanes and packets of up to `max_packet` flits.
    pub fn new(vcs: usize, lanes: usize, max_packet: usize) -> Self {
        assert!(
            (1..=4).contains(&lanes),
            "EndpointParams: lanes = {lanes} must be 1..=4"
        );
        // The timeouts' defaults are the configuration's, defined once in `params`.
        let link = crate::params::LinkConfig::default();
        Self {
            vcs,
            max_packet,
            mask: ((1u32 << lanes) - 1) as u8,
            retry_timeout: link.retry_timeout as u16,
            rt_timeout: link.rt_timeout as u16,
        }
    }

    /// The link of configuration `cfg` (`network.vcs`, `link.lanes`,
    /// `network.max_packet_flits`, `link.retry_timeout`, `link.rt_timeout`).
    pub fn from_config(cfg: &crate::params::Config) -> Self {
        Self {
            retry_timeout: cfg.link.retry_timeout as u16,
            rt_timeout: cfg.link.rt_timeout as u16,
            ..Self::new(
                cfg.network.vcs as usize,
                cfg.link.lanes as usize,
                cfg.network.max_packet_flits as usize,
            )
        }
    }
}

/// The type of an [`LlpEndpoint`] with `$replay` LTPs of replay buffer and `$depth` flits per VC
/// buffer (both powers of two): `llp_endpoint!(16, 64)`.
#[macro_export]
macro_rules! llp_endpoint {
    ($replay:expr, $depth:expr) => {
        $crate::llp::endpoint::LlpEndpoint<
            { $crate::fifo::fifo_ptr_bits($replay) + 4 },
            { $depth },
            { $crate::fifo::fifo_ptr_bits($depth) },
            { $crate::fifo::fifo_count_bits($depth) },
        >
    };
}

/// Staging slots between the receive protocol and the VC buffers: one LTP's 16 flits plus the
/// next LTP's, so the protocol never waits for the previous LTP to drain.
pub const STAGE: usize = 32;

/// A link endpoint.
#[derive(LogicBlock)]
pub struct LlpEndpoint<const RAW: usize, const D: usize, const AW: usize, const CW: usize> {
    /// Clock of everything.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (both ends together).
    pub reset: Signal<In, bool>,
    /// Flits of fabric packets to send, per VC.
    pub tx_vcs: Vec<StreamSink<Bits<FLIT_BITS>>>,
    /// Flits of good packets received, per VC.
    pub rx_vcs: Vec<StreamSource<Bits<FLIT_BITS>>>,
    /// Lanes to the far end.
    pub lanes_out: LaneChannelOut,
    /// Lanes from the far end.
    pub lanes_in: LaneChannelIn,
    /// Let other VCs fill a stalled packet's slots (else whole packets).
    pub interleave: Signal<In, bool>,
    /// Errors within a window that remove a lane (0: never).
    pub lane_threshold: Signal<In, Bits<8>>,
    /// Cycles of the lane error window.
    pub lane_window: Signal<In, Bits<32>>,
    /// Lanes we send on.
    pub tx_mask: Signal<Out, Bits<4>>,
    /// Lanes we receive on.
    pub rx_mask: Signal<Out, Bits<4>>,
    /// Number of lanes we send on (the link width, 1..=4).
    pub tx_width: Signal<Out, Bits<3>>,
    /// Number of lanes we receive on.
    pub rx_width: Signal<Out, Bits<3>>,
    /// The receiver is in step with the far transmitter.
    pub link_up: Signal<Out, bool>,
    /// Normal LTPs sent, replays included.
    pub ltps_sent: Signal<Out, Bits<32>>,
    /// Null LTPs sent.
    pub nulls_sent: Signal<Out, Bits<32>>,
    /// Normal LTPs received and delivered.
    pub ltps_good: Signal<Out, Bits<32>>,
    /// LTPs rejected (CRC, sequence, framing), those discarded in flight during a retry
    /// included; `retries` counts the error events.
    pub ltps_bad: Signal<Out, Bits<32>>,
    /// Replayed duplicates dropped.
    pub ltps_dup: Signal<Out, Bits<32>>,
    /// Retry requests made.
    pub retries: Signal<Out, Bits<16>>,
    /// Replays made for the far end.
    pub replays: Signal<Out, Bits<16>>,
    /// Errors per physical lane (16 bits each).
    pub lane_errors: Signal<Out, Bits<64>>,
    /// Lanes removed on the receive side.
    pub lanes_removed: Signal<Out, Bits<3>>,
    /// LTPs in the replay buffer.
    pub replay_fill: Signal<Out, Bits<16>>,
    /// Credits available per VC.
    pub credits: Vec<Signal<Out, Bits<CREDIT_BITS>>>,
    /// Sticky protocol errors: over-returned credits, staging overflow.
    pub protocol_error: Signal<Out, bool>,
    /// Dirty packets dropped on receive, all reasons and VCs (saturating each, summed).
    pub dirty_drops: Signal<Out, Bits<16>>,
    /// Flits from the core that were not the core's to send.
    pub core_dropped: Signal<Out, Bits<16>>,
    /// First flit of the most recently dropped dirty packet.
    pub err_flit0: Signal<Out, Bits<FLIT_BITS>>,
    /// Second flit of the most recently dropped dirty packet.
    pub err_flit1: Signal<Out, Bits<FLIT_BITS>>,
    /// Why it was dropped (`packet_buffer::REASON_*`).
    pub err_reason: Signal<Out, Bits<3>>,
    classify: Vec<TxClassifier>,
    queues: Vec<SkidBuffer<Bits<Q_BITS>>>,
    tx: TxLink<RAW, CREDIT_BITS>,
    striper: LtpStriper,
    deframer: LtpDeframer,
    rx: RxLink<CREDIT_BITS>,
    delivery: RxDelivery<STAGE, { fifo_ptr_bits(STAGE) }, { fifo_count_bits(STAGE) }, D, AW, CW>,
    /// Status of the children that has no port of the endpoint yet (the drop's VC, the
    /// any-drop flag, good null LTPs, waiting for a retry marker, stale retry requests): the
    /// link's register map will carry it. Acknowledged here, not read.
    unused_status: Signal<Local, bool>,
    /// Lanes in `tx_mask`: the transmit link width.
    tx_lanes: PopCount<4, 3>,
    /// Lanes in `rx_mask`: the receive link width.
    rx_lanes: PopCount<4, 3>,
    /// Out of reset for a cycle: the receiver's one bring-up (RESTART at the initial mask)
    /// until a link trainer drives `up`/`start`.
    rx_started: DFF<bool>,
}

impl<const RAW: usize, const D: usize, const AW: usize, const CW: usize>
    LlpEndpoint<RAW, D, AW, CW>
{
    /// An endpoint with elaboration values `p`.
    pub fn new(p: EndpointParams) -> Self {
        assert!(
            (1..=8).contains(&p.vcs),
            "LlpEndpoint: vcs = {} must be 1..=8",
            p.vcs
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            tx_vcs: (0..p.vcs).map(|_| Default::default()).collect(),
            rx_vcs: (0..p.vcs).map(|_| Default::default()).collect(),
            lanes_out: Default::default(),
            lanes_in: Default::default(),
            interleave: Default::default(),
            lane_threshold: Default::default(),
            lane_window: Default::default(),
            tx_mask: Default::default(),
            rx_mask: Default::default(),
            tx_width: Default::default(),
            rx_width: Default::default(),
            link_up: Default::default(),
            ltps_sent: Default::default(),
            nulls_sent: Default::default(),
            ltps_good: Default::default(),
            ltps_bad: Default::default(),
            ltps_dup: Default::default(),
            retries: Default::default(),
            replays: Default::default(),
            lane_errors: Default::default(),
            lanes_removed: Default::default(),
            replay_fill: Default::default(),
            credits: (0..p.vcs).map(|_| Default::default()).collect(),
            protocol_error: Default::default(),
            dirty_drops: Default::default(),
            core_dropped: Default::default(),
            err_flit0: Default::default(),
            err_flit1: Default::default(),
            err_reason: Default::default(),
            classify: (0..p.vcs).map(|_| Default::default()).collect(),
            queues: (0..p.vcs).map(|_| Default::default()).collect(),
            tx: TxLink::new(p.vcs, D as u64, p.mask, p.rt_timeout),
            striper: LtpStriper::new(),
            deframer: LtpDeframer::new(),
            rx: RxLink::new(p.vcs, p.mask, p.retry_timeout),
            delivery: RxDelivery::new(p.vcs, p.max_packet),
            unused_status: Default::default(),
            tx_lanes: PopCount::new(),
            rx_lanes: PopCount::new(),
            rx_started: Default::default(),
        }
    }
}

impl<const RAW: usize, const D: usize, const AW: usize, const CW: usize> Logic
    for LlpEndpoint<RAW, D, AW, CW>
{
    #[hdl_gen]
    fn update(&mut self) {
        // Transmit: flits classified on their way into the queues, transmitter, striper.
        for v in 0..self.queues.len() {
            self.classify[v].flit.next = self.tx_vcs[v].data.val();
            self.queues[v].clock.next = self.clock.val();
            self.queues[v].reset.next = self.reset.val();
            self.queues[v].sink.valid.next = self.tx_vcs[v].valid.val();
            self.queues[v].sink.data.next = self.classify[v].word.val();
            self.tx_vcs[v].ready.next = self.queues[v].sink.ready.val();
            StreamSource::<Bits<Q_BITS>>::join(&mut self.queues[v].source, &mut self.tx.sinks[v]);
            self.tx.got_credits[v].next = self.rx.got_credits[v].val();
            self.tx.freed[v].next = self.delivery.freed[v].val();
            self.credits[v].next = self.tx.credits[v].val();
            self.rx_vcs[v].valid.next = self.delivery.sources[v].valid.val();
            self.rx_vcs[v].data.next = self.delivery.sources[v].data.val();
            self.delivery.sources[v].ready.next = self.rx_vcs[v].ready.val();
        }
        self.tx.clock.next = self.clock.val();
        self.tx.reset.next = self.reset.val();
        self.tx.interleave.next = self.interleave.val();
        LinkRequestsSource::join(&mut self.rx.to_tx, &mut self.tx.from_rx);
        self.tx.striper_idle.next = self.striper.idle.val();
        self.striper.clock.next = self.clock.val();
        self.striper.reset.next = self.reset.val();
        StreamSource::<Bits<FLIT_BITS>>::join(&mut self.tx.out, &mut self.striper.sink);
        self.striper.mask.next = self.tx.mask.val();
        LaneChannelOut::link(&mut self.lanes_out, &mut self.striper.lanes);

        // Receive: deframer, protocol, delivery.
        self.deframer.clock.next = self.clock.val();
        self.deframer.reset.next = self.reset.val();
        LaneChannelIn::link(&mut self.lanes_in, &mut self.deframer.lanes);
        self.deframer.mask.next = self.rx.to_tx.mask.val();
        self.rx.clock.next = self.clock.val();
        self.rx.reset.next = self.reset.val();
        DeframedSource::join(&mut self.deframer.out, &mut self.rx.deframed);
        self.rx.lane_threshold.next = self.lane_threshold.val();
        // Until the link trainer is wired: always up, one RESTART bring-up after reset at the
        // mask reset gave (the receiver's own), no fruitless-retry limit, rate-based lane
        // removal draining a point per 16 LTPs. `lane_window` is no longer used.
        self.rx_started.clock.next = self.clock.val();
        self.rx_started.d.next = !self.reset.val();
        self.rx.up.next = true;
        self.rx.start.next = !self.rx_started.q.val() & !self.reset.val();
        self.rx.fresh_far.next = true;
        self.rx.start_mask.next = self.rx.to_tx.mask.val();
        self.rx.retry_limit.next = 0.into();
        self.rx.lane_drain.next = 16.into();
        self.delivery.clock.next = self.clock.val();
        self.unused_status.next = self.delivery.err_vc.val().any()
            | self.delivery.dropped_any.val()
            | self.rx.nulls_good.val().any()
            | self.rx.waiting.val()
            | self.rx.link_fail.val()
            | self.lane_window.val().any()
            | self.tx.stale.val().any();
        self.delivery.reset.next = self.reset.val();
        self.delivery.wr_valid.next = self.rx.wr_valid.val();
        self.delivery.wr_data.next = self.rx.wr_data.val();
        self.delivery.commit.next = self.rx.commit.val();
        self.delivery.rollback.next = self.rx.rollback.val();

        // Status.
        self.tx_mask.next = self.tx.mask.val();
        self.rx_mask.next = self.rx.to_tx.mask.val();
        self.tx_lanes.bits.next = self.tx.mask.val();
        self.tx_width.next = self.tx_lanes.count.val();
        self.rx_lanes.bits.next = self.rx.to_tx.mask.val();
        self.rx_width.next = self.rx_lanes.count.val();
        self.link_up.next = self.rx.link_up.val();
        self.ltps_sent.next = self.tx.ltps_sent.val();
        self.nulls_sent.next = self.tx.nulls_sent.val();
        self.ltps_good.next = self.rx.ltps_good.val();
        self.ltps_bad.next = self.rx.ltps_bad.val();
        self.ltps_dup.next = self.rx.ltps_dup.val();
        self.retries.next = self.rx.retries.val();
        self.replays.next = self.tx.replays.val();
        self.lane_errors.next = self.rx.lane_errors.val();
        self.lanes_removed.next = self.rx.lanes_removed.val();
        self.replay_fill.next = self.tx.replay_fill.val();
        self.protocol_error.next = self.tx.credit_error.val() | self.delivery.overflow.val();
        self.dirty_drops.next = self.delivery.missing_head.val()
            + self.delivery.missing_tail.val()
            + self.delivery.too_long.val()
            + self.delivery.bad.val()
            + self.delivery.overrun.val()
            + self.delivery.bad_vc.val();
        self.core_dropped.next = self.tx.core_dropped.val();
        self.err_flit0.next = self.delivery.err_flit0.val();
        self.err_flit1.next = self.delivery.err_flit1.val();
        self.err_reason.next = self.delivery.err_reason.val();
    }
}
