//! `NicTop`: the network interface chip (issue 13, item 7), the emitted top `nic_top`: the DMA
//! core ([`NicCore`]) with its network port (a [`LinkPort`]: the LLP endpoint, its channel
//! sender and receiver, its watchdog) and the management agent ([`NicMgmt`]) with the NIC's
//! register file, which counts the core's events.
//!
//! ```text
//! host (mmio, reads, writes, interrupts) ═══ NicCore ══ network_out ─► LinkPort.from_core ─► lanes_out
//!                                              ║    ◄── network_in  ◄─ LinkPort.to_core  ◄─ lanes_in
//!                                 management_in ╲ ╱ management_out          │ report
//!                                             NicMgmt (agent, EEPROM, registers) ◄─┘
//!                                     receive_pulses, core_pulses ─► dma_* counters
//! ```
//!
//! **Credits.** The core's `NetworkSend` spends the link port's transmit-buffer credits
//! (`credits_out` per VC, which [`NicTopParams`] sets as the core's `channel_credits`); the link
//! port's sender spends the core's intake buffer (`credits_in` = the intake depth per VC).
//!
//! **Management packets.** Arriving ones leave the core's intake whole on `management_in`
//! and enter the agent's `inbound` beat by beat, `last` on the tail flit (decoded from the
//! flit's type bits); the agent's responses and reports (`outbound`, port 0) enter
//! the core's `management_out` to leave on the management VC.
//!
//! **Faults** (agent fault inputs 4..=7, levels): 4 the link is dead (the port's watchdog
//! stalled it), 5 a link protocol error, 6 the far receiver returned more credits than it has
//! (the core's channel), 7 a host read completion that no requester holds or could take (a
//! broken host).
//!
//! **Reset** (synchronous) resets the whole chip: core, link port (both ends of a link are
//! expected to reset together; retraining after a one-sided reset is the link layer issue's),
//! agent.
//!
//! Parameters: those of [`NicCore`] and of [`LinkPort`] (`LRAW`, `LD`, `LAW`, `LCW`, `TD`,
//! `TAW`, `TCW`); use [`nic_top!`](crate::nic_top).
use super::nic_core::{NicCore, NicSettings, CORE_PULSES};
use super::CorePulse;
use crate::host::mmio::{MmioCompletionSource, MmioRequestSink};
use crate::host::{InterruptSource, ReadCompletionSink, ReadRequestSource, WriteBeatSource};
use crate::nic_mgmt::{NicMgmt, NIC_CHIP_FAULTS};
use crate::receive::receive_engine::RECEIVE_PULSES;
use crate::regs::DMA_COUNTERS;
use hdl::channel::ChannelSource;
use hdl::formats::flit::{HEAD_BIT, TAIL_BIT, TYPE_BIT};
use hdl::link_port::{LinkPort, LinkPortParams};
use hdl::llp::lane_channel::{WireLanesIn, WireLanesOut};
use hdl::llp::regs::LinkReportSource;
use hdl::mgmt::i2c_master::I2cPins;
use hdl::mgmt::NmaParams;
use rust_hdl::prelude::*;

// The management adapter decodes a tail flit by these positions.
const _: () = assert!(TYPE_BIT == 64 && HEAD_BIT == 63 && TAIL_BIT == 62);
// The fault of a broken host reads these two pulses by position.
const _: () = assert!(CorePulse::TagStray as usize == 0);
const _: () = assert!(CorePulse::CompletionOverrun as usize == 1);

/// Elaboration values of a [`NicTop`].
#[derive(Clone, Copy, Debug)]
pub struct NicTopParams {
    /// The core's (its `channel_credits` is set to the link port's `credits_out`).
    pub core: NicSettings,
    /// The network port's.
    pub link: LinkPortParams,
    /// The management agent's.
    pub agent: NmaParams,
}

/// The type of a [`NicTop`]: the [`nic_core!`](crate::nic_core) shape, then the link port's
/// [`link_port!`](hdl::link_port) shape after the VCs: replay LTPs, receive and transmit
/// buffer flits per VC, and lane bits (16 or 32; 32 when left out):
/// `nic_top!(2, 32, 6, 5, 5, 8, 16, 256, 32)`.
#[macro_export]
macro_rules! nic_top {
    ($vcs:expr, $depth:expr, $raw:expr, $eaw:expr, $wb:expr, $daw:expr, $replay:expr, $link_depth:expr, $tx_depth:expr) => {
        $crate::nic_top!($vcs, $depth, $raw, $eaw, $wb, $daw, $replay, $link_depth, $tx_depth, 32)
    };
    ($vcs:expr, $depth:expr, $raw:expr, $eaw:expr, $wb:expr, $daw:expr, $replay:expr, $link_depth:expr, $tx_depth:expr, $lane_bits:expr) => {
        $crate::dma::nic_top::NicTop<
            { $vcs },
            { hdl::channel::channel_vc_bits($vcs) },
            { $depth },
            { hdl::fifo::fifo_ptr_bits($depth) },
            { hdl::fifo::fifo_count_bits($depth) },
            { hdl::arb::index_width($vcs) },
            { $raw },
            { $raw + 1 },
            { $eaw },
            { $crate::tops::GET_QUEUE_SLOT_BITS },
            { $wb },
            { $crate::tops::GET_QUEUE_SLOT_BITS + $wb },
            { $crate::tops::GET_QUEUE_SLOT_BITS + 1 },
            { $daw },
            { $crate::tops::FETCH_SLOT_BITS },
            { $crate::tops::FETCH_SLOT_BITS + 5 },
            { hdl::fifo::fifo_ptr_bits($replay) + 4 },
            { $link_depth },
            { hdl::fifo::fifo_ptr_bits($link_depth) },
            { hdl::fifo::fifo_count_bits($link_depth) },
            { $tx_depth },
            { hdl::fifo::fifo_ptr_bits($tx_depth) },
            { hdl::fifo::fifo_count_bits($tx_depth) },
            { hdl::llp::lane_channel::wire_data_bits($lane_bits) },
        >
    };
}

/// The network interface chip; see the module documentation.
#[derive(LogicBlock)]
pub struct NicTop<
    const VCS: usize,
    const VCB: usize,
    const D: usize,
    const AW: usize,
    const CW: usize,
    const W: usize,
    const RAW: usize,
    const RCW: usize,
    const EAW: usize,
    const SB: usize,
    const WB: usize,
    const QAW: usize,
    const PB: usize,
    const DAW: usize,
    const FSB: usize,
    const FRAW: usize,
    const LRAW: usize,
    const LD: usize,
    const LAW: usize,
    const LCW: usize,
    const TD: usize,
    const TAW: usize,
    const TCW: usize,
    const WD: usize,
> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// This NIC's node (strapped, as the chip's identity).
    pub node_id: Signal<In, Bits<16>>,
    /// The host's MMIO requests.
    pub mmio: MmioRequestSink,
    /// MMIO read completions.
    pub completion: MmioCompletionSource,
    /// Host memory read requests.
    pub read: ReadRequestSource,
    /// Their completions.
    pub read_completion: ReadCompletionSink,
    /// Posted host memory writes.
    pub write: WriteBeatSource,
    /// Interrupt messages.
    pub interrupt: InterruptSource,
    /// Lanes to the far end.
    pub lanes_out: WireLanesOut<WD>,
    /// Lanes from the far end.
    pub lanes_in: WireLanesIn<WD>,
    /// The configuration EEPROM's I2C bus.
    pub i2c: I2cPins,
    /// The receive engine's counter pulses (also counted in the `dma_*` registers).
    pub receive_pulses: Signal<Out, Bits<RECEIVE_PULSES>>,
    /// The core's other counter pulses (also counted).
    pub core_pulses: Signal<Out, Bits<CORE_PULSES>>,
    /// The network port's link is dead (sticky until reset).
    pub link_stalled: Signal<Out, bool>,
    /// A link protocol error (sticky until reset).
    pub link_error: Signal<Out, bool>,
    core: NicCore<VCS, VCB, D, AW, CW, W, RAW, RCW, EAW, SB, WB, QAW, PB, DAW, FSB, FRAW>,
    port: LinkPort<VCS, VCB, LRAW, LD, LAW, LCW, TD, TAW, TCW, WD>,
    agent: NicMgmt,
    /// The core's count of tags in use (the host's view has none yet): acknowledged unused.
    tags_unused: Signal<Local, bool>,
    /// Where the core's pulses start in `dma_events`.
    core_pulses_at: Constant<Bits<8>>,
    /// The agent's `outbound.last` and `port` (flits carry their own type; the port is 0):
    /// acknowledged unused.
    outbound_unused: Signal<Local, bool>,
    /// Flits the port discarded while stalled (the watchdog's count is in its report):
    /// acknowledged unused.
    discards_unused: Signal<Local, bool>,
}

/// The generic parameters of [`NicTop`], for its `impl`s.
macro_rules! nic_top_impl {
    ($($item:tt)*) => {
        impl<
                const VCS: usize,
                const VCB: usize,
                const D: usize,
                const AW: usize,
                const CW: usize,
                const W: usize,
                const RAW: usize,
                const RCW: usize,
                const EAW: usize,
                const SB: usize,
                const WB: usize,
                const QAW: usize,
                const PB: usize,
                const DAW: usize,
                const FSB: usize,
                const FRAW: usize,
                const LRAW: usize,
                const LD: usize,
                const LAW: usize,
                const LCW: usize,
                const TD: usize,
                const TAW: usize,
                const TCW: usize,
                const WD: usize,
            > $($item)*
    };
}

nic_top_impl! {
    NicTop<VCS, VCB, D, AW, CW, W, RAW, RCW, EAW, SB, WB, QAW, PB, DAW, FSB, FRAW, LRAW, LD, LAW, LCW, TD, TAW, TCW, WD>
    {
        /// The chip with `params`; the core's `channel_credits` becomes the link port's
        /// `credits_out`. Panics if the port's `credits_in` exceeds the core's intake depth.
        pub fn new(params: NicTopParams) -> Self {
            assert!(
                params.link.credits_in <= D,
                "NicTop: the link port's credits_in {} exceed the intake's {D} flits per VC",
                params.link.credits_in
            );
            let core = NicSettings {
                channel_credits: params.link.credits_out,
                ..params.core
            };
            Self {
                clock: Default::default(),
                reset: Default::default(),
                node_id: Default::default(),
                mmio: Default::default(),
                completion: Default::default(),
                read: Default::default(),
                read_completion: Default::default(),
                write: Default::default(),
                interrupt: Default::default(),
                lanes_out: Default::default(),
                lanes_in: Default::default(),
                i2c: Default::default(),
                receive_pulses: Default::default(),
                core_pulses: Default::default(),
                link_stalled: Default::default(),
                link_error: Default::default(),
                core: NicCore::new(core),
                port: LinkPort::new(params.link),
                // The port's `link_settings` resets to what the port was built with.
                agent: NicMgmt::new(params.agent, params.link.settings_reset()),
                tags_unused: Default::default(),
                core_pulses_at: Constant::new(RECEIVE_PULSES.to_bits()),
                outbound_unused: Default::default(),
                discards_unused: Default::default(),
            }
        }
    }
}

nic_top_impl! {
    Logic for NicTop<VCS, VCB, D, AW, CW, W, RAW, RCW, EAW, SB, WB, QAW, PB, DAW, FSB, FRAW, LRAW, LD, LAW, LCW, TD, TAW, TCW, WD>
    {
        #[hdl_gen]
        fn update(&mut self) {
            clock!(self, clock, core, port, agent);
            self.core.reset.next = self.reset.val();
            self.port.reset.next = self.reset.val();
            self.port.chip_id.next = self.agent.chip_id.val();
            self.agent.reset.next = self.reset.val();
            // Host side: the core's.
            self.core.node_id.next = self.node_id.val();
            MmioRequestSink::link(&mut self.mmio, &mut self.core.mmio);
            MmioCompletionSource::link(&mut self.completion, &mut self.core.completion);
            ReadRequestSource::link(&mut self.read, &mut self.core.read);
            ReadCompletionSink::link(&mut self.read_completion, &mut self.core.read_completion);
            WriteBeatSource::link(&mut self.write, &mut self.core.write);
            InterruptSource::link(&mut self.interrupt, &mut self.core.interrupt);
            // Network: the core's channel through the link port to the lanes.
            ChannelSource::<VCS, VCB>::join(&mut self.core.network_out, &mut self.port.from_core);
            ChannelSource::<VCS, VCB>::join(&mut self.port.to_core, &mut self.core.network_in);
            WireLanesOut::<WD>::link(&mut self.lanes_out, &mut self.port.lanes_out);
            WireLanesIn::<WD>::link(&mut self.lanes_in, &mut self.port.lanes_in);
            LinkReportSource::join(&mut self.port.report, &mut self.agent.link);
            self.discards_unused.next =
                self.port.discarded.val() | self.port.discarded_heads.val();
            // Management packets: flits to beats (an adapter: `last` decoded, `port` 0).
            self.agent.inbound.valid.next = self.core.management_in.valid.val();
            self.agent.inbound.data.next = self.core.management_in.data.val();
            // A tail: neither a body (bit 64) nor a head (bit 63), its tail bit (62) set.
            self.agent.inbound.last.next = !self.core.management_in.data.val().get_bit(64)
                & !self.core.management_in.data.val().get_bit(63)
                & self.core.management_in.data.val().get_bit(62);
            self.agent.inbound.port.next = 0.into();
            self.core.management_in.ready.next = self.agent.inbound.ready.val();
            self.core.management_out.valid.next = self.agent.outbound.valid.val();
            self.core.management_out.data.next = self.agent.outbound.data.val();
            self.agent.outbound.ready.next = self.core.management_out.ready.val();
            self.outbound_unused.next =
                self.agent.outbound.last.val() | self.agent.outbound.port.val().any();
            I2cPins::link(&mut self.i2c, &mut self.agent.i2c);
            // Counters and faults.
            self.receive_pulses.next = self.core.receive_pulses.val();
            self.core_pulses.next = self.core.core_pulses.val();
            self.agent.dma_events.next = bit_cast::<DMA_COUNTERS, RECEIVE_PULSES>(
                self.core.receive_pulses.val(),
            ) | (bit_cast::<DMA_COUNTERS, CORE_PULSES>(self.core.core_pulses.val())
                << self.core_pulses_at.val());
            self.agent.chip_faults.next = bit_cast::<NIC_CHIP_FAULTS, 1>(
                self.port.stalled.val().into(),
            ) | (bit_cast::<NIC_CHIP_FAULTS, 1>(self.port.error.val().into()) << 1)
                | (bit_cast::<NIC_CHIP_FAULTS, 1>(self.core.channel_error.val().into()) << 2)
                // Core pulse bits 0 and 1: TagStray, CompletionOverrun (asserted above).
                | (bit_cast::<NIC_CHIP_FAULTS, 1>(
                    (self.core.core_pulses.val().get_bit(0)
                        | self.core.core_pulses.val().get_bit(1))
                    .into(),
                ) << 3);
            self.tags_unused.next = self.core.tags_in_use.val().any();
            self.link_stalled.next = self.port.stalled.val();
            self.link_error.next = self.port.error.val();
        }
    }
}

#[test]
fn nic_top_is_synthesizable() {
    let cfg = hdl::params::Config::default();
    let mut uut =
        <crate::nic_top!(2, 32, 6, 5, 5, 8, 16, 256, 32)>::new(crate::tops::nic_top_params(&cfg));
    uut.connect_all();
    yosys_validate("nic_top", &generate_verilog(&uut)).unwrap();
}
