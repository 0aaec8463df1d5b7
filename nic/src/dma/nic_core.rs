//! `NicCore`: the NIC's DMA core joined, from the host's MMIO and memory ports to the network
//! channel (issue 13, part 5; `docs/nic-design.md`, "The DMA core joined"), the emitted top
//! `nic_core`. `nic_top` adds the link port and the management agent around it.
//!
//! ```text
//! mmio ─► FunctionTable ─► doorbells ─► DoorbellQueues ─► SendEngine ─► NetworkSend ─► network_out
//!   ▲        ▲ lookup  ▲ advance, advance_second            ▲ │ responses   ▲ management_out
//!   │   QpLookupShare<3>: fetch, event writer, receive      │ │             │
//! completion                                                │ ▼
//! network_in ─► ReceiveEngine ─► management_in       (tags, reads, completions of the
//!                 │ writes ─┐      events (5 ports)     NAP buffer manager through the
//!                 ▼         ▼            ▼              send engine's pool and read merge)
//!         EventWriter<7> ◄─ sends, fetch errors
//!                 │ write ─► WriteArbiter<2> ─► write;  interrupt
//! ```
//!
//! **What joins what**, each bundle whole:
//! - host: `mmio`/`completion` to the function table; the send engine's `read`/`completion`
//!   are the NIC's (its read merge carries the buffer manager's ring reads first); the receive
//!   engine's writes and the event writer's share `write` through a [`WriteArbiter`] by whole
//!   writes; the event writer's interrupts are `interrupt`;
//! - doorbells: the function table's decoded doorbell writes into the [`DoorbellQueues`], whose
//!   fills and overflows the table shows and counts and whose arbitration mode and weights are
//!   the table's registers; the granted doorbells into the send engine;
//! - tags: the send engine's pool serves the buffer manager (`nap_tags`, `nap_tag_free`);
//! - QP lookups: the fetch's, the event writer's and the receive engine's through one
//!   [`QpLookupShare`]; pointer advances: the event writer's (event rings) on `advance`, the
//!   buffer manager's (NAP rings) on `advance_second`;
//! - events: one [`EventWriter`] over seven requesters, in this order: the send engine's
//!   `sends`, the fetch's errors (through [`ErrorEventRequest`]), the receive engine's PUT
//!   events, NAP events, NAP errors, packet errors and GET errors;
//! - GETs: the receive engine's PUT descriptors answering GETs into the send engine's
//!   `responses`;
//! - network: the send engine's packets and the management agent's (`management_out`) onto
//!   `network_out` through [`NetworkSend`]; `network_in` into the receive engine, whose
//!   management packets leave on `management_in` for the agent.
//!
//! **Counters**: `receive_pulses` ([`ReceivePulse`](crate::receive::receive_engine::ReceivePulse)
//! order) and `core_pulses` ([`CorePulse`] order) pulse once per event; `tags_in_use` and
//! `channel_error` are levels. The register bank that counts them is `nic_top`'s.
//!
//! **Reset** (synchronous) resets every block: the NIC resets as a whole. The function table
//! then sweeps its QP RAMs (`2^QAW` cycles) before it takes an access.
//!
//! Parameters: those of [`ReceiveEngine`] (`VCS` .. `PB`), `DAW` as [`DoorbellQueues`]' `AW`,
//! `FSB`, `FRAW` as [`SendEngine`]'s `SB`, `RAW`; the function table's `QAW` is `EAW`. Use
//! [`nic_core!`](crate::nic_core) to fill them in.
use super::network_send::NetworkSend;
use crate::descriptor::{DescriptorSource, ErrorEventSource};
use crate::doorbell::{ChargeSource, DoorbellQueues, DoorbellSource};
use crate::events::{ErrorEventRequest, EventRequestSource, EventWriter};
use crate::function_table::{FunctionTable, PointerAdvanceSource, QpLookupSource};
use crate::host::mmio::{MmioCompletionSource, MmioRequestSink};
use crate::host::{
    InterruptSource, ReadCompletionSink, ReadCompletionSource, ReadRequestSource, WriteBeatSource,
};
use crate::qp_lookup_share::QpLookupShare;
use crate::receive::receive_engine::{ReceiveEngine, ReceiveSettings, RECEIVE_PULSES};
use crate::receive::write_arbiter::WriteArbiter;
use crate::send::{SendEngine, SendSettings};
use crate::tag_pool::{TagAllocSource, TagFreeSource, TAG_COUNT_BITS};
use hdl::channel::{ChannelSink, ChannelSource};
use hdl::formats::FLIT_BITS;
use hdl::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// The core's own counter pulses (beside the receive engine's), in bit order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CorePulse {
    /// A read completion of a tag nobody holds (or the fetch's stray).
    TagStray,
    /// A read completion steered to a requester that could not take it.
    CompletionOverrun,
    /// The tag pool ignored a bad free.
    BadTagFree,
    /// A packet left stomped (a failed data read).
    PacketStomped,
    /// A GET refused by the packetizer (`GetTooLong`).
    GetRefused,
    /// An event of a QP that does not exist or is disabled, discarded.
    EventDropped,
    /// An event passed over: its ring is full.
    EventRingFull,
    /// A doorbell naming no function (never sent by the MMIO decode).
    DoorbellStray,
    /// A packet flit on the management VC or a VC out of range (never sent by the send engine).
    NetworkStray,
}

impl CorePulse {
    /// Every reason, in bit order.
    pub const ALL: [CorePulse; 9] = [
        CorePulse::TagStray,
        CorePulse::CompletionOverrun,
        CorePulse::BadTagFree,
        CorePulse::PacketStomped,
        CorePulse::GetRefused,
        CorePulse::EventDropped,
        CorePulse::EventRingFull,
        CorePulse::DoorbellStray,
        CorePulse::NetworkStray,
    ];

    /// The reason's bit in `core_pulses`.
    pub fn bit(self) -> usize {
        self as usize
    }

    /// What its counter counts (the register map's documentation of it).
    pub fn describe(self) -> &'static str {
        use CorePulse::*;
        match self {
            TagStray => "read completions of a tag nobody holds",
            CompletionOverrun => "read completions steered to a requester that could not take them",
            BadTagFree => "frees of a tag not allocated, ignored",
            PacketStomped => "packets sent stomped (a failed data read)",
            GetRefused => "GETs refused: their words do not fit one packet",
            EventDropped => "events of a QP that does not exist or is disabled, discarded",
            EventRingFull => "events passed over because their ring was full",
            DoorbellStray => "doorbells naming no function",
            NetworkStray => "packet flits on the management VC or a VC out of range",
        }
    }
}

/// Bits of `core_pulses`.
pub const CORE_PULSES: usize = CorePulse::ALL.len();

/// Event writer requesters: send engine, fetch errors, five receive ports.
const EVENT_SOURCES: usize = 7;

/// The core's settings (elaboration).
#[derive(Clone, Copy, Debug)]
pub struct NicSettings {
    /// The send engine's.
    pub send: SendSettings,
    /// The receive engine's.
    pub receive: ReceiveSettings,
    /// `nic.doorbell_depth`.
    pub doorbell_depth: usize,
    /// Credits per VC of the far receiver of `network_out` (its buffer per VC).
    pub channel_credits: usize,
}

/// The type of a [`NicCore`]: the [`receive_engine!`](crate::receive_engine) shape, then
/// `$daw` the doorbell RAM's address bits: `nic_core!(2, 32, 6, 5, 5, 8)`.
#[macro_export]
macro_rules! nic_core {
    ($vcs:expr, $depth:expr, $raw:expr, $eaw:expr, $wb:expr, $daw:expr) => {
        $crate::dma::nic_core::NicCore<
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
        >
    };
}

/// The DMA core; see the module documentation.
#[derive(LogicBlock)]
pub struct NicCore<
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
> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// This NIC's node.
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
    /// The network channel out.
    pub network_out: ChannelSource<VCS, VCB>,
    /// The network channel in.
    pub network_in: ChannelSink<VCS, VCB>,
    /// Management packets arrived (to the agent).
    pub management_in: StreamSource<Bits<FLIT_BITS>>,
    /// Management packets to send (from the agent).
    pub management_out: StreamSink<Bits<FLIT_BITS>>,
    /// The receive engine's counter pulses.
    pub receive_pulses: Signal<Out, Bits<RECEIVE_PULSES>>,
    /// The core's other counter pulses.
    pub core_pulses: Signal<Out, Bits<CORE_PULSES>>,
    /// Tags allocated.
    pub tags_in_use: Signal<Out, Bits<TAG_COUNT_BITS>>,
    /// The far receiver returned more credits than it has (sticky until reset).
    pub channel_error: Signal<Out, bool>,
    functions: FunctionTable<EAW>,
    doorbells: DoorbellQueues<DAW>,
    send: SendEngine<FSB, FRAW>,
    receive: ReceiveEngine<VCS, VCB, D, AW, CW, W, RAW, RCW, EAW, SB, WB, QAW, PB>,
    network_send: NetworkSend<VCS, VCB>,
    lookup_share: QpLookupShare<3, 2>,
    fetch_errors: ErrorEventRequest,
    events: EventWriter<EVENT_SOURCES, 3>,
    write_arbiter: WriteArbiter<2, 1>,
}

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
    > NicCore<VCS, VCB, D, AW, CW, W, RAW, RCW, EAW, SB, WB, QAW, PB, DAW, FSB, FRAW>
{
    /// The core for `settings`; panics as its children do on out-of-range settings.
    pub fn new(settings: NicSettings) -> Self {
        let s = settings;
        let (functions, qps) = (s.receive.nap.functions, s.receive.nap.qps);
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
            network_out: Default::default(),
            network_in: Default::default(),
            management_in: Default::default(),
            management_out: Default::default(),
            receive_pulses: Default::default(),
            core_pulses: Default::default(),
            tags_in_use: Default::default(),
            channel_error: Default::default(),
            functions: FunctionTable::new(functions, qps),
            doorbells: DoorbellQueues::new(functions, s.doorbell_depth),
            send: SendEngine::new(s.send),
            receive: ReceiveEngine::new(s.receive),
            network_send: NetworkSend::new(
                s.channel_credits,
                s.receive.mgmt_vc,
                &[s.send.data_vc, s.send.get_vc],
            ),
            lookup_share: Default::default(),
            fetch_errors: Default::default(),
            events: Default::default(),
            write_arbiter: WriteArbiter::new(),
        }
    }
}

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
    > Logic for NicCore<VCS, VCB, D, AW, CW, W, RAW, RCW, EAW, SB, WB, QAW, PB, DAW, FSB, FRAW>
{
    #[hdl_gen]
    fn update(&mut self) {
        clock!(
            self,
            clock,
            functions,
            doorbells,
            send,
            receive,
            network_send,
            lookup_share,
            events,
            write_arbiter
        );
        self.functions.reset.next = self.reset.val();
        self.doorbells.reset.next = self.reset.val();
        self.send.reset.next = self.reset.val();
        self.receive.reset.next = self.reset.val();
        self.network_send.reset.next = self.reset.val();
        self.lookup_share.reset.next = self.reset.val();
        self.events.reset.next = self.reset.val();
        self.write_arbiter.reset.next = self.reset.val();
        // Host registers and doorbells.
        MmioRequestSink::link(&mut self.mmio, &mut self.functions.mmio);
        MmioCompletionSource::link(&mut self.completion, &mut self.functions.completion);
        DoorbellSource::join(&mut self.functions.doorbells, &mut self.doorbells.sink);
        self.doorbells.weighted.next = self.functions.weighted.val();
        self.doorbells.byte_fair.next = self.functions.byte_fair.val();
        for f in 0..self.doorbells.fills.len() {
            self.doorbells.weights[f].next = self.functions.weights[f].val();
            self.functions.doorbell_fills[f].next = self.doorbells.fills[f].val();
            self.functions.doorbell_overflows[f].next = self.doorbells.overflows[f].val();
        }
        DoorbellSource::join(&mut self.doorbells.source, &mut self.send.doorbell);
        ChargeSource::join(&mut self.send.charge, &mut self.doorbells.charge);
        // QP lookups and pointer advances.
        QpLookupSource::join(&mut self.send.lookup, &mut self.lookup_share.requesters[0]);
        QpLookupSource::join(
            &mut self.events.lookup,
            &mut self.lookup_share.requesters[1],
        );
        QpLookupSource::join(
            &mut self.receive.lookup,
            &mut self.lookup_share.requesters[2],
        );
        QpLookupSource::join(&mut self.lookup_share.table, &mut self.functions.lookup);
        PointerAdvanceSource::join(&mut self.events.advance, &mut self.functions.advance);
        PointerAdvanceSource::join(
            &mut self.receive.advance,
            &mut self.functions.advance_second,
        );
        // Host reads: the send engine's port, the buffer manager's through it.
        ReadRequestSource::link(&mut self.read, &mut self.send.read);
        ReadCompletionSink::link(&mut self.read_completion, &mut self.send.completion);
        self.send.node_id.next = self.node_id.val();
        TagAllocSource::join(&mut self.send.nap_tags, &mut self.receive.tag_alloc);
        TagFreeSource::join(&mut self.receive.tag_free, &mut self.send.nap_tag_free);
        ReadRequestSource::join(&mut self.receive.read, &mut self.send.nap_read);
        ReadCompletionSource::join(&mut self.send.nap_completion, &mut self.receive.completion);
        // GET responses back into the send engine.
        DescriptorSource::join(&mut self.receive.responses, &mut self.send.responses);
        // Events.
        EventRequestSource::join(&mut self.send.sends, &mut self.events.requests[0]);
        ErrorEventSource::join(&mut self.send.errors, &mut self.fetch_errors.errors);
        EventRequestSource::join(&mut self.fetch_errors.request, &mut self.events.requests[1]);
        EventRequestSource::join(&mut self.receive.put_events, &mut self.events.requests[2]);
        EventRequestSource::join(&mut self.receive.nap_events, &mut self.events.requests[3]);
        EventRequestSource::join(&mut self.receive.nap_errors, &mut self.events.requests[4]);
        EventRequestSource::join(
            &mut self.receive.packet_errors,
            &mut self.events.requests[5],
        );
        EventRequestSource::join(&mut self.receive.get_errors, &mut self.events.requests[6]);
        InterruptSource::link(&mut self.interrupt, &mut self.events.interrupt);
        // Host writes: uploads and events, whole writes.
        WriteBeatSource::join(&mut self.receive.writes, &mut self.write_arbiter.inputs[0]);
        WriteBeatSource::join(&mut self.events.write, &mut self.write_arbiter.inputs[1]);
        WriteBeatSource::link(&mut self.write, &mut self.write_arbiter.write);
        // Network.
        StreamSource::<Bits<FLIT_BITS>>::join(&mut self.send.flits, &mut self.network_send.packets);
        self.network_send.vc.next = self.send.vc.val();
        StreamSink::<Bits<FLIT_BITS>>::link(
            &mut self.management_out,
            &mut self.network_send.management,
        );
        ChannelSource::<VCS, VCB>::link(&mut self.network_out, &mut self.network_send.channel);
        ChannelSink::<VCS, VCB>::link(&mut self.network_in, &mut self.receive.channel);
        StreamSource::<Bits<FLIT_BITS>>::link(
            &mut self.management_in,
            &mut self.receive.management,
        );
        // Counters.
        self.receive_pulses.next = self.receive.pulses.val();
        self.core_pulses.next = bit_cast::<CORE_PULSES, 1>(self.send.stray.val().into())
            | (bit_cast::<CORE_PULSES, 1>(self.send.overrun.val().into()) << 1)
            | (bit_cast::<CORE_PULSES, 1>(self.send.bad_free.val().into()) << 2)
            | (bit_cast::<CORE_PULSES, 1>(self.send.stomped.val().into()) << 3)
            | (bit_cast::<CORE_PULSES, 1>(self.send.refused.val().into()) << 4)
            | (bit_cast::<CORE_PULSES, 1>(self.events.dropped.val().into()) << 5)
            | (bit_cast::<CORE_PULSES, 1>(self.events.ring_full.val().into()) << 6)
            | (bit_cast::<CORE_PULSES, 1>(self.doorbells.stray.val().into()) << 7)
            | (bit_cast::<CORE_PULSES, 1>(self.network_send.stray.val().into()) << 8);
        self.tags_in_use.next = self.send.tags_in_use.val();
        self.channel_error.next = self.network_send.error.val();
    }
}

#[test]
fn nic_core_is_synthesizable() {
    let cfg = hdl::params::Config::default();
    let mut uut = <crate::nic_core!(2, 32, 6, 5, 5, 8)>::new(crate::tops::nic_settings(&cfg));
    uut.connect_all();
    yosys_validate("nic_core", &generate_verilog(&uut)).unwrap();
}
