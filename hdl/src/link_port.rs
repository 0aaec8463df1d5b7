//! `LinkPort`: a network port of a chip, the link layer between a router channel on the core's
//! side and the physical lanes: the [`LlpEndpoint`] with a [`ChannelSender`] on its receive
//! side and a [`ChannelReceiver`] on its transmit side, its report for the chip's registers,
//! and a [`LinkWatchdog`] that takes a dead link out of the way. Every router port (`nrc_top`)
//! holds one; the NIC's network port is the same block.
//!
//! ```text
//!   core side                                        lane side
//! to_core   <-- ChannelSender   <-- rx_vcs -- LlpEndpoint <-- lanes_in
//! from_core --> ChannelReceiver --> tx_vcs -- LlpEndpoint --> lanes_out
//!                    ^ discard <-- LinkWatchdog <-- replay_fill
//! ```
//!
//! # The credit loop, end to end (router A's output to router B's input over one link)
//! 1. A's output unit holds one credit counter per VC for A's link port's transmit buffer
//!    (`ChannelReceiver`), starting at `credits_out` (= `router.reserved_flits_per_vc`, the
//!    output unit's initial count). Virtual cut-through: A starts a packet on a VC only with
//!    credits for all of it, i.e. only when that buffer has room for the whole packet.
//! 2. Each flit that leaves that buffer into the endpoint's `tx_vcs` returns one credit to A
//!    (the channel's per-VC credit bit, one cycle later).
//! 3. The endpoint's transmitter sends a VC's flits only with credits for the far end's
//!    receive buffer of that VC (`link.vc_buffer_flits` per VC, returned in CrdtRet flits as
//!    the far end frees them); the link's replay makes delivery exact.
//! 4. B's endpoint delivers good packets, per VC, on `rx_vcs`; B's link port sends them to B's
//!    input unit (`ChannelSender`) only with a credit of B's input buffer for that VC: one
//!    counter per VC starting at `credits_in` (= `router.reserved_flits_per_vc`, what B's DAMQ
//!    gives each VC after reset), one credit back per slot the DAMQ frees or lends.
//! 5. B's DAMQ frees the slot when the switch reads the flit towards B's output: the loop
//!    closes hop by hop, and no buffer in it can overflow. A VC without credit on any of the
//!    three legs waits alone: every leg has one buffer per VC.
//!
//! # A dead link
//! When every lane is cut, the transmitter's LTPs are never acknowledged. After
//! `stall_limit` cycles without progress ([`LinkWatchdog`]) the port is `stalled` (sticky until
//! reset): the report's `link_status.stalled` bit rises, `fault` rises (the chip's fault input:
//! a fault event for the management agent), and the transmit buffers **discard**: what they
//! hold and every flit the core sends on this port from then on is dropped, each returning its
//! credit, and counted (`discarded`, `discarded_heads`). So packets the routing still sends to
//! the dead port leave the router's buffers instead of blocking their input VCs (and with them
//! the whole fabric) until management rewrites the routing tables. Lost on a dead link: the
//! flits in the endpoint (its transmit queues and replay buffer, never acknowledged), the
//! partial packets the far end holds uncommitted (never delivered), and everything discarded.
//! Packets whole at the far end before the cut are delivered.
//!
//! # Settings
//! The endpoint's lane threshold, retry limit, lane drain and VC mode come from
//! `report.settings`, the chip's `link_settings` register of this port
//! ([`crate::llp::regs::SETTINGS_FIELDS`]), which management may write at any cycle: the
//! limits act from the next comparison on (a lane whose score already reaches a lowered
//! threshold goes at once, a threshold of 0 stops removal); a change of the VC mode to whole
//! packets takes effect once the packets sent interleaved have ended (`tx::arbiter`). The
//! register resets to [`LinkPortParams::settings_reset`], so after reset the port behaves as
//! its parameters say.
//!
//! # Timing (zero load)
//! Core to lanes: one cycle in the transmit buffer with register FIFOs (`TD <= 16`), two with
//! block RAM, then the endpoint's. Lanes to core: the endpoint's, then one cycle (the sender's
//! output register).
//!
//! Reset (synchronous): everything of this port together. The far end may be reset at any
//! other time: the endpoint trains the link again by itself, and when the link comes up
//! again the watchdog starts over (a port declared dead stops discarding).
//!
//! Parameters: `VCS`, `VCB` as the channel; `RAW`, `D`, `AW`, `CW` as [`LlpEndpoint`]; `TD`,
//! `TAW`, `TCW` the transmit buffers' depth and widths ([`ChannelReceiver`]). Use
//! [`link_port!`](crate::link_port); elaboration values in [`LinkPortParams`].
use crate::bits::PopCount;
use crate::channel::{ChannelSink, ChannelSource};
use crate::channel_receiver::ChannelReceiver;
use crate::channel_sender::ChannelSender;
use crate::formats::FLIT_BITS;
use crate::link_watchdog::LinkWatchdog;
use crate::llp::endpoint::{EndpointParams, LlpEndpoint};
use crate::llp::lane_channel::{WireLanesIn, WireLanesOut};
use crate::llp::packet_buffer::DROP_BITS;
use crate::llp::regs::{
    LinkReportSource, PEER_CHIP_ID, PEER_PORT, PEER_TYPE, PEER_VALID, SETTINGS_BITS,
    SETTINGS_INTERLEAVE, SETTINGS_LANE_DRAIN, SETTINGS_LANE_THRESHOLD, SETTINGS_RETRY_LIMIT,
    STATUS_LANES_REMOVED, STATUS_RX_MASK, STATUS_RX_WIDTH, STATUS_STALLED, STATUS_TX_MASK,
    STATUS_TX_WIDTH, STATUS_UP,
};
use crate::params::Config;
use crate::stream::StreamSource;
use rust_hdl::prelude::*;

/// The type of a [`LinkPort`] with `$vcs` VCs, `$replay` LTPs of replay buffer, `$depth` flits
/// per receive buffer, `$tx_depth` flits per transmit buffer and lanes of `$lane_bits` (16 or
/// 32; 32 when left out): `link_port!(2, 16, 256, 32)`, `link_port!(2, 16, 256, 32, 16)`.
#[macro_export]
macro_rules! link_port {
    ($vcs:expr, $replay:expr, $depth:expr, $tx_depth:expr) => {
        $crate::link_port!($vcs, $replay, $depth, $tx_depth, 32)
    };
    ($vcs:expr, $replay:expr, $depth:expr, $tx_depth:expr, $lane_bits:expr) => {
        $crate::link_port::LinkPort<
            { $vcs },
            { $crate::channel::channel_vc_bits($vcs) },
            { $crate::fifo::fifo_ptr_bits($replay) + 4 },
            { $depth },
            { $crate::fifo::fifo_ptr_bits($depth) },
            { $crate::fifo::fifo_count_bits($depth) },
            { $tx_depth },
            { $crate::fifo::fifo_ptr_bits($tx_depth) },
            { $crate::fifo::fifo_count_bits($tx_depth) },
            { $crate::llp::lane_channel::wire_data_bits($lane_bits) },
        >
    };
}

/// Elaboration values of a [`LinkPort`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkPortParams {
    /// The endpoint's.
    pub endpoint: EndpointParams,
    /// Credits per VC of the core's input buffer (the sender's initial count).
    pub credits_in: usize,
    /// Credits per VC the core's output may spend (the transmit buffers' share, at most `TD`).
    pub credits_out: usize,
    /// Cycles without acknowledgement that declare the link dead.
    pub stall_limit: u32,
    /// Let other VCs fill a stalled packet's LTP slots (the endpoint's `interleave`). This and
    /// the next three are the reset value of the port's `link_settings` register
    /// ([`LinkPortParams::settings_reset`]), which drives the endpoint.
    pub interleave: bool,
    /// Lane error score that removes a lane (0: never; `link.lane_threshold`).
    pub lane_threshold: u8,
    /// Delivered LTPs per one-point decrease of the lane scores (`link.lane_drain`).
    pub lane_drain: u16,
    /// Fruitless retry requests in a row before the link trains again (`link.retry_limit`).
    pub retry_limit: u8,
    /// This chip's type as the `peer` register codes it (0 NIC, 1 NRC), sent in training.
    pub chip_type: u8,
    /// This port's number on its chip, sent in training.
    pub port_number: u8,
}

/// Cycles without acknowledgement after which a link port declares its link dead, by default:
/// 16 round-trip timeouts of the default configuration (256 cycles each), far above a live
/// link's worst acknowledgement delay (a poll, a retry and a replay take a few hundred).
pub const DEFAULT_STALL_LIMIT: u32 = 4096;

impl LinkPortParams {
    /// The port of a router built with `cfg`: the endpoint of `cfg`, both credit counts
    /// `router.reserved_flits_per_vc`, lane removal and retraining as `cfg.link` says, VCs
    /// interleaved in the LTPs (a stalled packet's slots carry other VCs' flits), chip type
    /// NRC, port 0 (the chip's top numbers its ports).
    pub fn router(cfg: &Config) -> Self {
        let reserve = cfg.router.reserved_flits_per_vc as usize;
        Self {
            endpoint: EndpointParams::from_config(cfg),
            credits_in: reserve,
            credits_out: reserve,
            stall_limit: DEFAULT_STALL_LIMIT,
            interleave: true,
            lane_threshold: cfg.link.lane_threshold as u8,
            lane_drain: cfg.link.lane_drain as u16,
            retry_limit: cfg.link.retry_limit as u8,
            chip_type: 1,
            port_number: 0,
        }
    }
}

impl LinkPortParams {
    /// The reset value of the port's `link_settings` register
    /// ([`crate::llp::regs::SETTINGS_FIELDS`]): this port's lane threshold, retry limit, lane
    /// drain and VC mode, so the register starts as the configuration says.
    pub fn settings_reset(&self) -> u64 {
        crate::llp::regs::settings_value(
            self.lane_threshold,
            self.retry_limit,
            self.lane_drain,
            self.interleave,
        )
    }
}

/// A chip's network port; see the module documentation.
#[derive(LogicBlock)]
pub struct LinkPort<
    const VCS: usize,
    const VCB: usize,
    const RAW: usize,
    const D: usize,
    const AW: usize,
    const CW: usize,
    const TD: usize,
    const TAW: usize,
    const TCW: usize,
    const LD: usize,
> {
    /// Clock of everything.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (both ends of the link together).
    pub reset: Signal<In, bool>,
    /// Flits received, to the core's input; credits of the core's buffer back.
    pub to_core: ChannelSource<VCS, VCB>,
    /// Flits from the core's output to send; credits of the transmit buffers back.
    pub from_core: ChannelSink<VCS, VCB>,
    /// Lanes to the far end.
    pub lanes_out: WireLanesOut<LD>,
    /// Lanes from the far end.
    pub lanes_in: WireLanesIn<LD>,
    /// This chip's ID (the management agent's `chip_id` register), sent in training; a
    /// change while the link is up is sent by training again.
    pub chip_id: Signal<In, Bits<16>>,
    /// The link's state and counts for the chip's registers, and from them the port's
    /// `link_settings` (`report.settings`), which drives the endpoint.
    pub report: LinkReportSource,
    /// The link is dead and its port discards (sticky until reset).
    pub stalled: Signal<Out, bool>,
    /// Sticky: a protocol error on either side (the endpoint's, the sender's over-returned
    /// credits) or a flit the transmit buffers dropped (never with a correct core).
    pub error: Signal<Out, bool>,
    /// A flit from the core was discarded in this cycle (event; the port is stalled).
    pub discarded: Signal<Out, bool>,
    /// That flit was a packet's head (event).
    pub discarded_heads: Signal<Out, bool>,
    endpoint: LlpEndpoint<RAW, D, AW, CW, LD>,
    sender: ChannelSender<VCS, VCB>,
    receiver: ChannelReceiver<VCS, VCB, TD, TAW, TCW>,
    watchdog: LinkWatchdog,
    /// A transmit-buffer drop since reset.
    dropped: DFF<bool>,
    /// The `drops` register's `dirty` field: the endpoint's receive drop events, all reasons,
    /// counted (16 bits, saturating; up to three events coincide, see `RxDelivery`).
    dirty_drops: DFF<Bits<16>>,
    /// Drop events in this cycle, and the count plus them (17 bits: the carry saturates).
    dirty_now: PopCount<DROP_BITS, 3>,
    dirty_sum: Signal<Local, Bits<17>>,
    saturated: Constant<Bits<16>>,
    /// The link was up in the previous cycle: a link that comes up again clears the watchdog.
    was_up: DFF<bool>,
    /// Positions of the `link_settings` fields, and its width (the bits above are unused).
    interleave_at: Constant<Bits<8>>,
    lane_threshold_at: Constant<Bits<8>>,
    lane_drain_at: Constant<Bits<8>>,
    retry_limit_at: Constant<Bits<8>>,
    settings_bits: Constant<Bits<8>>,
    chip_type: Constant<Bits<8>>,
    port_number: Constant<Bits<8>>,
    /// The `peer` register: the far end's identity once trained.
    peer: Signal<Local, Bits<64>>,
    peer_valid: Constant<Bits<64>>,
    peer_type_at: Constant<Bits<8>>,
    peer_id_at: Constant<Bits<8>>,
    peer_port_at: Constant<Bits<8>>,
    /// Positions of the `link_status` fields.
    tx_width_at: Constant<Bits<8>>,
    rx_width_at: Constant<Bits<8>>,
    tx_mask_at: Constant<Bits<8>>,
    rx_mask_at: Constant<Bits<8>>,
    removed_at: Constant<Bits<8>>,
    stalled_at: Constant<Bits<8>>,
    half: Constant<Bits<8>>,
    up_at: Constant<Bits<8>>,
    /// `link_status` as it is built.
    status: Signal<Local, Bits<64>>,
    /// Endpoint status the report does not carry (the link bench reads it from the endpoint's
    /// own top): acknowledged unused.
    unused_status: Signal<Local, bool>,
}

impl<
        const VCS: usize,
        const VCB: usize,
        const RAW: usize,
        const D: usize,
        const AW: usize,
        const CW: usize,
        const TD: usize,
        const TAW: usize,
        const TCW: usize,
        const LD: usize,
    > LinkPort<VCS, VCB, RAW, D, AW, CW, TD, TAW, TCW, LD>
{
    /// A port with `p`; panics naming the parameter as its parts do, or if the endpoint's VC
    /// count is not `VCS`.
    pub fn new(p: LinkPortParams) -> Self {
        assert_eq!(
            p.endpoint.vcs, VCS,
            "LinkPort: the endpoint's vcs must be VCS = {VCS}"
        );
        let at = |b: usize| Constant::new(Bits::<8>::from(b as u64));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            to_core: Default::default(),
            from_core: Default::default(),
            lanes_out: Default::default(),
            lanes_in: Default::default(),
            chip_id: Default::default(),
            report: Default::default(),
            stalled: Default::default(),
            error: Default::default(),
            discarded: Default::default(),
            discarded_heads: Default::default(),
            endpoint: LlpEndpoint::new(p.endpoint),
            sender: ChannelSender::new(p.credits_in),
            receiver: ChannelReceiver::new(p.credits_out),
            watchdog: LinkWatchdog::new(p.stall_limit),
            dropped: Default::default(),
            dirty_drops: Default::default(),
            dirty_now: PopCount::new(),
            dirty_sum: Default::default(),
            saturated: Constant::new(0xffffu64.into()),
            was_up: Default::default(),
            interleave_at: at(SETTINGS_INTERLEAVE.lsb),
            lane_threshold_at: at(SETTINGS_LANE_THRESHOLD.lsb),
            lane_drain_at: at(SETTINGS_LANE_DRAIN.lsb),
            retry_limit_at: at(SETTINGS_RETRY_LIMIT.lsb),
            settings_bits: at(SETTINGS_BITS),
            chip_type: Constant::new((p.chip_type as u64).into()),
            port_number: Constant::new((p.port_number as u64).into()),
            peer: Default::default(),
            peer_valid: Constant::new((1u64 << PEER_VALID.lsb).into()),
            peer_type_at: at(PEER_TYPE.lsb),
            peer_id_at: at(PEER_CHIP_ID.lsb),
            peer_port_at: at(PEER_PORT.lsb),
            tx_width_at: at(STATUS_TX_WIDTH.lsb),
            rx_width_at: at(STATUS_RX_WIDTH.lsb),
            tx_mask_at: at(STATUS_TX_MASK.lsb),
            rx_mask_at: at(STATUS_RX_MASK.lsb),
            removed_at: at(STATUS_LANES_REMOVED.lsb),
            stalled_at: at(STATUS_STALLED.lsb),
            half: at(16),
            up_at: at(STATUS_UP.lsb),
            status: Default::default(),
            unused_status: Default::default(),
        }
    }
}

impl<
        const VCS: usize,
        const VCB: usize,
        const RAW: usize,
        const D: usize,
        const AW: usize,
        const CW: usize,
        const TD: usize,
        const TAW: usize,
        const TCW: usize,
        const LD: usize,
    > Logic for LinkPort<VCS, VCB, RAW, D, AW, CW, TD, TAW, TCW, LD>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, dropped, dirty_drops, was_up);
        clock!(self, clock, endpoint, sender, receiver, watchdog);
        self.endpoint.reset.next = self.reset.val();
        self.sender.reset.next = self.reset.val();
        self.receiver.reset.next = self.reset.val();
        // A dead link that trains again is alive: the watchdog starts over (its `stalled` is
        // otherwise sticky), and the port stops discarding.
        self.was_up.d.next = self.endpoint.link_up.val();
        self.watchdog.reset.next =
            self.reset.val() | (self.endpoint.link_up.val() & !self.was_up.q.val());
        // The settings, from the `link_settings` register (module doc, "Settings").
        self.endpoint.interleave.next = self
            .report
            .settings
            .val()
            .get_bit(self.interleave_at.val().index());
        self.endpoint.lane_threshold.next = self
            .report
            .settings
            .val()
            .get_bits::<8>(self.lane_threshold_at.val().index());
        self.endpoint.lane_drain.next = self
            .report
            .settings
            .val()
            .get_bits::<16>(self.lane_drain_at.val().index());
        self.endpoint.retry_limit.next = self
            .report
            .settings
            .val()
            .get_bits::<8>(self.retry_limit_at.val().index());
        self.endpoint.chip_type.next = self.chip_type.val();
        self.endpoint.chip_id.next = self.chip_id.val();
        self.endpoint.port_number.next = self.port_number.val();
        WireLanesOut::<LD>::link(&mut self.lanes_out, &mut self.endpoint.lanes_out);
        WireLanesIn::<LD>::link(&mut self.lanes_in, &mut self.endpoint.lanes_in);
        // Receive: the endpoint's VCs onto the channel to the core.
        ChannelSource::<VCS, VCB>::link(&mut self.to_core, &mut self.sender.channel);
        // Transmit: the channel from the core into the buffers, then the endpoint's VCs.
        ChannelSink::<VCS, VCB>::link(&mut self.from_core, &mut self.receiver.channel);
        for v in 0..VCS {
            StreamSource::<Bits<FLIT_BITS>>::join(
                &mut self.endpoint.rx_vcs[v],
                &mut self.sender.sinks[v],
            );
            StreamSource::<Bits<FLIT_BITS>>::join(
                &mut self.receiver.sources[v],
                &mut self.endpoint.tx_vcs[v],
            );
        }
        // A dead link: the transmit buffers discard.
        self.watchdog.fill.next = self.endpoint.replay_fill.val();
        self.receiver.discard.next = self.watchdog.stalled.val();
        self.stalled.next = self.watchdog.stalled.val();
        self.discarded.next = self.receiver.discarded.val();
        self.discarded_heads.next = self.receiver.discarded_heads.val();
        if self.receiver.events.val().any() {
            self.dropped.d.next = true;
        }
        self.dirty_now.bits.next = self.endpoint.drops.val();
        self.dirty_sum.next = bit_cast::<17, 16>(self.dirty_drops.q.val())
            + bit_cast::<17, 3>(self.dirty_now.count.val());
        self.dirty_drops.d.next = self.dirty_sum.val().get_bits::<16>(0);
        if self.dirty_sum.val().get_bit(16) {
            self.dirty_drops.d.next = self.saturated.val();
        }
        if self.reset.val() {
            self.dropped.d.next = false;
            self.dirty_drops.d.next = 0.into();
        }
        self.error.next =
            self.endpoint.protocol_error.val() | self.sender.error.val() | self.dropped.q.val();
        // The report (the fields of `hdl::llp::regs`).
        self.status.next = (bit_cast::<64, 3>(self.endpoint.tx_width.val())
            << self.tx_width_at.val())
            | (bit_cast::<64, 3>(self.endpoint.rx_width.val()) << self.rx_width_at.val())
            | (bit_cast::<64, 4>(self.endpoint.tx_mask.val()) << self.tx_mask_at.val())
            | (bit_cast::<64, 4>(self.endpoint.rx_mask.val()) << self.rx_mask_at.val())
            | (bit_cast::<64, 3>(self.endpoint.lanes_removed.val()) << self.removed_at.val());
        self.status.next = self
            .status
            .val()
            .replace_bit(self.up_at.val().index(), self.endpoint.link_up.val());
        self.status.next = self
            .status
            .val()
            .replace_bit(self.stalled_at.val().index(), self.watchdog.stalled.val());
        self.report.status.next = self.status.val();
        // The far end's identity needs link training, which the link layer does not have.
        // The peer's identity, learned in training (type 2 bits and port 5 bits wide in the
        // register, as the map says).
        self.peer.next = 0.into();
        if self.endpoint.far_known.val() {
            self.peer.next = self.peer_valid.val()
                | (bit_cast::<64, 2>(self.endpoint.far_chip_type.val().get_bits::<2>(0))
                    << self.peer_type_at.val())
                | (bit_cast::<64, 16>(self.endpoint.far_chip_id.val()) << self.peer_id_at.val())
                | (bit_cast::<64, 5>(self.endpoint.far_port.val().get_bits::<5>(0))
                    << self.peer_port_at.val());
        }
        self.report.peer.next = self.peer.val();
        self.report.ltps_sent.next = bit_cast::<64, 32>(self.endpoint.ltps_sent.val());
        self.report.ltps_good.next = bit_cast::<64, 32>(self.endpoint.ltps_good.val());
        self.report.ltps_bad.next = bit_cast::<64, 32>(self.endpoint.ltps_bad.val());
        self.report.retries.next = bit_cast::<64, 16>(self.endpoint.retries.val());
        self.report.replays.next = bit_cast::<64, 16>(self.endpoint.replays.val());
        self.report.drops.next = bit_cast::<64, 16>(self.dirty_drops.q.val())
            | (bit_cast::<64, 16>(self.endpoint.core_dropped.val()) << self.half.val());
        self.unused_status.next = self.endpoint.nulls_sent.val().any()
            | self.endpoint.ltps_dup.val().any()
            | self.endpoint.lane_errors.val().any()
            | self.endpoint.drop_vc.val().any()
            | self.endpoint.err_vc.val().any()
            | self.endpoint.err_reason.val().any()
            | self.endpoint.link_state.val().any()
            | self.endpoint.rx_good.val().any()
            | self.endpoint.trainings.val().any()
            | self.endpoint.far_downs.val().any()
            | self.endpoint.ltps_discarded.val().any()
            | (self.report.settings.val() >> self.settings_bits.val()).any();
        for v in 0..VCS {
            self.unused_status.next =
                self.unused_status.val() | self.endpoint.credits[v].val().any();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_port_is_synthesizable() {
        let cfg = Config::default();
        let mut uut = <crate::link_port!(2, 16, 256, 32)>::new(LinkPortParams::router(&cfg));
        uut.connect_all();
        yosys_validate("link_port", &generate_verilog(&uut)).unwrap();
    }

    #[test]
    #[should_panic(expected = "endpoint's vcs")]
    fn a_vc_count_the_endpoint_does_not_share_is_refused() {
        let cfg = Config::default();
        let _ = <crate::link_port!(3, 16, 256, 32)>::new(LinkPortParams::router(&cfg));
    }
}
