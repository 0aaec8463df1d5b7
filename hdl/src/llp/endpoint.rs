//! One end of a link: the whole link layer between a chip core's per-VC flit streams and the
//! physical lanes (`docs/llp-design.md`). Every network port of both chips instantiates it.
//!
//! ```text
//! tx_vcs -> TxClassifier -> SkidBuffer per VC -> TxLink -> LtpStriper -> LinkTrainer -> TxGearbox -> lanes_out
//! lanes_in -> RxGearbox -> LinkTrainer -> LtpDeframer -> RxLink -> RxDelivery (staging, VC demux, PacketBuffer per VC) -> rx_vcs
//! ```
//! `LinkTrainer` owns the lanes while the link is not up: it trains them, brings the link up
//! (the striper and deframer are held in reset until then), and takes it down to train again
//! when `RxLink` reports that the link cannot make progress or the far end starts training. At
//! each bring-up `TxLink` and `RxLink` resume (nothing lost) or restart (the far end was reset),
//! as `docs/llp-design.md` ("Link training") describes.
//! `TxLink` and `RxLink` of the same endpoint talk through one bundle
//! ([`LinkRequestsSource`](super::link_requests::LinkRequestsSource)): the receiver hands the
//! far end's requests (retry, echo, lane mask) to the transmitter, and asks it to send its own
//! (retry request with lane mask, echo); beside it, per VC, the credits the far end returned
//! and the receive buffers' freed slots, which become credits the transmitter owes. The
//! deframer hands the receiver one bundle too ([`DeframedSource`]).
//!
//! Guarantees (shown by the two-endpoint bench on Verilator): within a VC every flit the core
//! hands to `tx_vcs` leaves the far end's `rx_vcs` exactly once, in order and unchanged,
//! whatever the wire does (bit errors, bursts, dropped transfers, lanes dying, stuck or turning
//! noisy), as long as one lane works; the sender never overruns the receiver's buffers;
//! packets that are malformed when the core sends them are dropped whole at the far end and
//! reported as drop events (dirty-packet discard). When one end is reset, packets in flight then may be lost
//! whole, never duplicated or delivered in part, and the link comes up again by itself.
//!
//! Configuration inputs: `interleave`, `lane_threshold`, `lane_drain`, `retry_limit` (a link
//! port drives them from its `link_settings` register, `hdl::llp::regs`; each may change at
//! any cycle: the lane and retry limits act on the next comparison, a fall of `interleave`
//! waits for the packets sent interleaved, see `tx::arbiter`), and the identity sent in training
//! (`chip_type`, `chip_id`, `port_number`; a `chip_id` written while the link is up is sent by
//! training again). Status outputs: see the port list.
//!
//! The wire has 4 lanes of `LD / 4` bits (`link.lane_bits`): at 32 bits an XFR per transfer,
//! at 16 bits an XFR in two transfers through the lane gearboxes ([`super::gearbox`]), which
//! make 4 lanes carry exactly the serializer's flit per cycle.
//!
//! Parameters: `RAW` replay address bits (log2(replay LTPs) + 4), `D` slots of each VC
//! buffer with its widths `AW`, `CW`, and `LD` wire data bits (64 or 128); use
//! [`llp_endpoint!`](crate::llp_endpoint). Credit counts
//! are [`CREDIT_BITS`] wide whatever the buffer size. Elaboration values: [`EndpointParams`].
use super::deframer::{DeframedSource, LtpDeframer};
use super::gearbox::{rx::RxGearbox, tx::TxGearbox};
use super::lane_channel::{LaneChannelOut, WireLanesIn, WireLanesOut};
use super::link_requests::LinkRequestsSource;
use super::ltp_striper::LtpStriper;
use super::packet_buffer::DROP_BITS;
use super::rx::RxLink;
use super::rx_delivery::RxDelivery;
use super::train::LinkTrainer;
use super::tx::{TxClassifier, TxLink, Q_BITS};
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
    /// Cycles a link end waits in training for the far end's readiness before it starts over.
    pub train_timeout: u16,
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
            train_timeout: link.train_timeout as u16,
        }
    }

    /// The link of configuration `cfg` (`network.vcs`, `link.lanes`,
    /// `network.max_packet_flits`, `link.retry_timeout`, `link.rt_timeout`).
    pub fn from_config(cfg: &crate::params::Config) -> Self {
        Self {
            retry_timeout: cfg.link.retry_timeout as u16,
            rt_timeout: cfg.link.rt_timeout as u16,
            train_timeout: cfg.link.train_timeout as u16,
            ..Self::new(
                cfg.network.vcs as usize,
                cfg.link.lanes as usize,
                cfg.network.max_packet_flits as usize,
            )
        }
    }
}

/// The type of an [`LlpEndpoint`] with `$replay` LTPs of replay buffer and `$depth` flits per VC
/// buffer (both powers of two) on lanes of `$lane_bits` (16 or 32; 32 when left out):
/// `llp_endpoint!(16, 64)`, `llp_endpoint!(16, 64, 16)`.
#[macro_export]
macro_rules! llp_endpoint {
    ($replay:expr, $depth:expr) => {
        $crate::llp_endpoint!($replay, $depth, 32)
    };
    ($replay:expr, $depth:expr, $lane_bits:expr) => {
        $crate::llp::endpoint::LlpEndpoint<
            { $crate::fifo::fifo_ptr_bits($replay) + 4 },
            { $depth },
            { $crate::fifo::fifo_ptr_bits($depth) },
            { $crate::fifo::fifo_count_bits($depth) },
            { $crate::llp::lane_channel::wire_data_bits($lane_bits) },
        >
    };
}

/// Staging slots between the receive protocol and the VC buffers: one LTP's 16 flits plus the
/// next LTP's, so the protocol never waits for the previous LTP to drain.
pub const STAGE: usize = 32;

/// A link endpoint.
#[derive(LogicBlock)]
pub struct LlpEndpoint<
    const RAW: usize,
    const D: usize,
    const AW: usize,
    const CW: usize,
    const LD: usize,
> {
    /// Clock of everything.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (both ends together).
    pub reset: Signal<In, bool>,
    /// Flits of fabric packets to send, per VC.
    pub tx_vcs: Vec<StreamSink<Bits<FLIT_BITS>>>,
    /// Flits of good packets received, per VC.
    pub rx_vcs: Vec<StreamSource<Bits<FLIT_BITS>>>,
    /// Lanes to the far end.
    pub lanes_out: WireLanesOut<LD>,
    /// Lanes from the far end.
    pub lanes_in: WireLanesIn<LD>,
    /// Let other VCs fill a stalled packet's slots (else whole packets); a fall takes effect
    /// once the packets sent interleaved have ended (`tx::arbiter`).
    pub interleave: Signal<In, bool>,
    /// Lane error score that removes a lane (0: never; `link.lane_threshold`).
    pub lane_threshold: Signal<In, Bits<8>>,
    /// Delivered LTPs per one-point decrease of the lane scores (`link.lane_drain`).
    pub lane_drain: Signal<In, Bits<16>>,
    /// Fruitless retry requests in a row before the link trains again (`link.retry_limit`).
    pub retry_limit: Signal<In, Bits<8>>,
    /// Our chip type, sent in training.
    pub chip_type: Signal<In, Bits<8>>,
    /// Our chip ID, sent in training. The management agent may write it at any time: a
    /// change while the link is up takes the link down to train again (a RESUME on both ends,
    /// nothing lost, about a hundred cycles), which is how the far end learns the new ID.
    pub chip_id: Signal<In, Bits<16>>,
    /// This port's number on our chip, sent in training.
    pub port_number: Signal<In, Bits<8>>,
    /// Lanes we send on.
    pub tx_mask: Signal<Out, Bits<4>>,
    /// Lanes we receive on.
    pub rx_mask: Signal<Out, Bits<4>>,
    /// Number of lanes we send on (the link width, 1..=4).
    pub tx_width: Signal<Out, Bits<3>>,
    /// Number of lanes we receive on.
    pub rx_width: Signal<Out, Bits<3>>,
    /// The link is trained and the receiver is in step with the far transmitter.
    pub link_up: Signal<Out, bool>,
    /// Training state: 0 SEEK, 1 READY, 2 UP.
    pub link_state: Signal<Out, Bits<2>>,
    /// Lanes whose training words arrive well (live).
    pub rx_good: Signal<Out, Bits<4>>,
    /// Times the link went down and trained again (saturating).
    pub trainings: Signal<Out, Bits<16>>,
    /// ... of which because the far end started training (saturating).
    pub far_downs: Signal<Out, Bits<16>>,
    /// The far end's chip type, from its training words: the port's peer for topology
    /// discovery.
    pub far_chip_type: Signal<Out, Bits<8>>,
    /// The far end's chip ID.
    pub far_chip_id: Signal<Out, Bits<16>>,
    /// The far end's port number.
    pub far_port: Signal<Out, Bits<8>>,
    /// The far end's identity is complete.
    pub far_known: Signal<Out, bool>,
    /// LTPs of the replay buffer discarded because the far end was reset (saturating).
    pub ltps_discarded: Signal<Out, Bits<16>>,
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
    /// Flits from the core that were not the core's to send.
    pub core_dropped: Signal<Out, Bits<16>>,
    /// Dirty packets (and flits on a VC out of range) dropped on receive, as events: bit
    /// `r - 1` pulses for one cycle per drop for reason `r` (`packet_buffer::REASON_*`); the
    /// chip's register file counts them.
    pub drops: Signal<Out, Bits<DROP_BITS>>,
    /// The VC of this cycle's `drops`.
    pub drop_vc: Signal<Out, Bits<3>>,
    /// Why the most recent dirty packet was dropped (`packet_buffer::REASON_*`, 0: none).
    pub err_reason: Signal<Out, Bits<3>>,
    /// The VC of the most recent drop.
    pub err_vc: Signal<Out, Bits<3>>,
    classify: Vec<TxClassifier>,
    queues: Vec<SkidBuffer<Bits<Q_BITS>>>,
    tx: TxLink<RAW, CREDIT_BITS>,
    striper: LtpStriper,
    deframer: LtpDeframer,
    rx: RxLink<CREDIT_BITS>,
    delivery: RxDelivery<STAGE, { fifo_ptr_bits(STAGE) }, { fifo_count_bits(STAGE) }, D, AW, CW>,
    trainer: LinkTrainer,
    tx_gearbox: TxGearbox<LD>,
    rx_gearbox: RxGearbox<LD>,
    /// The transmitter is up: the trainer is up and the far end's training words stopped.
    tx_up: DFF<bool>,
    /// `tx_up` one cycle ago (its rise is the transmitter's `start`).
    tx_was_up: DFF<bool>,
    /// The far end still sends training words on one of our lanes (it is not up yet).
    far_training: Signal<Local, bool>,
    /// The lanes of the configuration (`link.lanes`): training uses no others.
    lanes_allowed: Constant<Bits<4>>,
    /// Status of the children that has no port of the endpoint yet (good null LTPs, waiting
    /// for a retry marker, stale retry requests): the
    /// link's register map will carry it. Acknowledged here, not read.
    unused_status: Signal<Local, bool>,
    /// Lanes in `tx_mask`: the transmit link width.
    tx_lanes: PopCount<4, 3>,
    /// Lanes in `rx_mask`: the receive link width.
    rx_lanes: PopCount<4, 3>,
}

impl<const RAW: usize, const D: usize, const AW: usize, const CW: usize, const LD: usize>
    LlpEndpoint<RAW, D, AW, CW, LD>
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
            lane_drain: Default::default(),
            retry_limit: Default::default(),
            chip_type: Default::default(),
            chip_id: Default::default(),
            port_number: Default::default(),
            tx_mask: Default::default(),
            rx_mask: Default::default(),
            tx_width: Default::default(),
            rx_width: Default::default(),
            link_up: Default::default(),
            link_state: Default::default(),
            rx_good: Default::default(),
            trainings: Default::default(),
            far_downs: Default::default(),
            far_chip_type: Default::default(),
            far_chip_id: Default::default(),
            far_port: Default::default(),
            far_known: Default::default(),
            ltps_discarded: Default::default(),
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
            core_dropped: Default::default(),
            drops: Default::default(),
            drop_vc: Default::default(),
            err_reason: Default::default(),
            err_vc: Default::default(),
            classify: (0..p.vcs).map(|_| Default::default()).collect(),
            queues: (0..p.vcs).map(|_| Default::default()).collect(),
            tx: TxLink::new(p.vcs, D as u64, p.mask, p.rt_timeout, p.max_packet as u64),
            striper: LtpStriper::new(),
            deframer: LtpDeframer::new(),
            rx: RxLink::new(p.vcs, p.mask, p.retry_timeout),
            delivery: RxDelivery::new(p.vcs, p.max_packet),
            trainer: LinkTrainer::new(p.train_timeout, 128 / LD),
            tx_gearbox: Default::default(),
            rx_gearbox: Default::default(),
            lanes_allowed: Constant::new((p.mask as u64).into()),
            tx_up: Default::default(),
            tx_was_up: Default::default(),
            far_training: Default::default(),
            unused_status: Default::default(),
            tx_lanes: PopCount::new(),
            rx_lanes: PopCount::new(),
        }
    }
}

impl<const RAW: usize, const D: usize, const AW: usize, const CW: usize, const LD: usize> Logic
    for LlpEndpoint<RAW, D, AW, CW, LD>
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
            self.tx.rx_free[v].next = self.delivery.free[v].val();
            self.credits[v].next = self.tx.credits[v].val();
            self.rx_vcs[v].valid.next = self.delivery.sources[v].valid.val();
            self.rx_vcs[v].data.next = self.delivery.sources[v].data.val();
            self.delivery.sources[v].ready.next = self.rx_vcs[v].ready.val();
        }
        self.tx.clock.next = self.clock.val();
        self.tx.reset.next = self.reset.val();
        self.tx.interleave.next = self.interleave.val();
        // The transmitter starts once the far end's training words have stopped (it is up and
        // its deframer listens): LTPs sent before that would be lost, the resume marker with
        // them, and the link would wait a retry timeout.
        self.far_training.next = (self.trainer.rx_good.val() & self.lanes_allowed.val()).any();
        self.tx_up.clock.next = self.clock.val();
        self.tx_up.d.next = self.trainer.up.val() & (self.tx_up.q.val() | !self.far_training.val());
        self.tx.up.next = self.tx_up.q.val();
        self.tx.start.next = self.tx_up.q.val() & !self.tx_was_up.q.val();
        self.tx_was_up.clock.next = self.clock.val();
        self.tx_was_up.d.next = self.tx_up.q.val();
        self.tx.fresh_far.next = self.trainer.far_fresh.val();
        self.tx.start_mask.next = self.trainer.tx_mask.val();
        LinkRequestsSource::join(&mut self.rx.to_tx, &mut self.tx.from_rx);
        self.tx.striper_idle.next = self.striper.idle.val();
        self.striper.clock.next = self.clock.val();
        // The striper and deframer start from nothing at each bring-up.
        self.striper.reset.next = self.reset.val() | !self.trainer.up.val();
        StreamSource::<Bits<FLIT_BITS>>::join(&mut self.tx.out, &mut self.striper.sink);
        self.striper.mask.next = self.tx.mask.val();

        // Training: the trainer owns the lanes while the link is not up.
        self.trainer.clock.next = self.clock.val();
        self.trainer.reset.next = self.reset.val();
        LaneChannelOut::join(&mut self.striper.lanes, &mut self.trainer.from_striper);
        // The lane gearboxes: wires at 32-bit lanes; at 16-bit lanes the striper holds a formed
        // beat and the trainer its word while the wire sends a beat's second halves.
        self.tx_gearbox.clock.next = self.clock.val();
        self.tx_gearbox.reset.next = self.reset.val();
        self.rx_gearbox.clock.next = self.clock.val();
        self.rx_gearbox.reset.next = self.reset.val();
        LaneChannelOut::join(&mut self.trainer.lanes_out, &mut self.tx_gearbox.xfrs);
        WireLanesOut::<LD>::link(&mut self.lanes_out, &mut self.tx_gearbox.lanes);
        WireLanesIn::<LD>::link(&mut self.lanes_in, &mut self.rx_gearbox.lanes);
        LaneChannelOut::join(&mut self.rx_gearbox.xfrs, &mut self.trainer.lanes_in);
        self.trainer.tx_slot.next = self.tx_gearbox.slot.val();
        self.striper.hold.next = !self.tx_gearbox.slot.val();
        LaneChannelOut::join(&mut self.trainer.to_deframer, &mut self.deframer.lanes);
        self.trainer.chip_type.next = self.chip_type.val();
        self.trainer.chip_id.next = self.chip_id.val();
        self.trainer.port_number.next = self.port_number.val();
        self.trainer.allowed.next = self.lanes_allowed.val();
        // A chip ID changed while up makes the trainer train again (see `train`).
        self.trainer.link_fail.next = self.rx.link_fail.val();
        self.trainer.quiet.next = self.tx.idle.val() & self.delivery.quiet.val();

        // Receive: deframer, protocol, delivery.
        self.deframer.clock.next = self.clock.val();
        // ... and while the far end still sends training words (it is not up yet): they are
        // no LTPs. Its first LTP comes a few cycles after its last training word.
        self.deframer.reset.next =
            self.reset.val() | !self.trainer.up.val() | self.far_training.val();
        self.deframer.mask.next = self.rx.to_tx.mask.val();
        self.rx.clock.next = self.clock.val();
        self.rx.reset.next = self.reset.val();
        DeframedSource::join(&mut self.deframer.out, &mut self.rx.deframed);
        self.rx.lane_threshold.next = self.lane_threshold.val();
        self.rx.lane_drain.next = self.lane_drain.val();
        self.rx.retry_limit.next = self.retry_limit.val();
        self.rx.up.next = self.trainer.up.val();
        self.rx.start.next = self.trainer.went_up.val();
        self.rx.fresh_far.next = self.trainer.far_fresh.val();
        self.rx.start_mask.next = self.trainer.rx_mask.val();
        self.delivery.clock.next = self.clock.val();
        self.unused_status.next =
            self.rx.nulls_good.val().any() | self.rx.waiting.val() | self.tx.stale.val().any();
        self.delivery.reset.next = self.reset.val();
        self.delivery.wr_valid.next = self.rx.wr_valid.val();
        self.delivery.wr_data.next = self.rx.wr_data.val();
        self.delivery.commit.next = self.rx.commit.val();
        // Flits of an LTP cut by the link going down were written but never committed: they
        // are discarded at the next bring-up, before anything new is written.
        self.delivery.rollback.next = self.rx.rollback.val() | self.trainer.went_up.val();
        self.delivery.restart.next = self.trainer.went_up.val() & self.trainer.far_fresh.val();

        // Status.
        self.tx_mask.next = self.tx.mask.val();
        self.rx_mask.next = self.rx.to_tx.mask.val();
        self.tx_lanes.bits.next = self.tx.mask.val();
        self.tx_width.next = self.tx_lanes.count.val();
        self.rx_lanes.bits.next = self.rx.to_tx.mask.val();
        self.rx_width.next = self.rx_lanes.count.val();
        self.link_up.next = self.trainer.up.val() & self.rx.link_up.val();
        self.link_state.next = self.trainer.state.val();
        self.rx_good.next = self.trainer.rx_good.val();
        self.trainings.next = self.trainer.trainings.val();
        self.far_downs.next = self.trainer.far_downs.val();
        self.far_chip_type.next = self.trainer.far_chip_type.val();
        self.far_chip_id.next = self.trainer.far_chip_id.val();
        self.far_port.next = self.trainer.far_port.val();
        self.far_known.next = self.trainer.far_known.val();
        self.ltps_discarded.next = self.tx.ltps_discarded.val();
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
        self.core_dropped.next = self.tx.core_dropped.val();
        self.drops.next = self.delivery.drops.val();
        self.drop_vc.next = self.delivery.drop_vc.val();
        self.err_reason.next = self.delivery.err_reason.val();
        self.err_vc.next = self.delivery.err_vc.val();
    }
}
