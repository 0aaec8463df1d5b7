//! `ReceiveEngine`: the NIC's receive side joined, from the network channel to host writes,
//! completion events and GET responses (issue 13, part 4; `docs/nic-design.md`, "Receive
//! engine joined"), the emitted top `nic_receive`.
//!
//! ```text
//! channel ─► NetworkIntake ─┬─► management (flits, to the management agent)
//!                           └─► data (whole packets) ─► ReceiveBuffer ─► packet_errors
//!                                                          │ checked packets
//!                                                          ▼
//!                                                   ReceiveDispatch (by kind)
//!                        ┌─────────────────────────────────┼──────────────────────┐
//!                        ▼                                 ▼                      ▼
//!                    PutUpload ─► put_events       NapUploadUnit ─► nap_events   GetToPut ─► responses
//!                        │                             │   └────► nap_errors          └────► get_errors
//!                        └──────► WriteArbiter ◄───────┘ (buffer manager: tag_alloc, tag_free,
//!                                     ▼                   read, completion, advance)
//!                                   writes
//! lookup ◄─ QpLookupShare ◄─ ReceiveBuffer (target QP, key), buffer manager (NAP rings)
//! ```
//!
//! **What joins what.** Every stage is its own block with its own bench; this block only joins
//! them, each bundle whole: the intake's `data` into the buffer, the buffer's checked packets
//! into the dispatch, the dispatch's outputs into the PUT upload, the NAP upload (with its
//! buffer manager) and GET to PUT; the two uploads' writes into one [`WriteArbiter`] (round
//! robin by whole writes); the buffer's and the buffer manager's QP lookups into one
//! [`QpLookupShare`].
//!
//! **Events** leave on five ports, one per source, each with the hold rule of
//! [`EventRequestSource`]: the event writer serves them by round robin with pass-over (a
//! request whose ring is full stays with its source while the others go first), which a merge
//! here could not do without holding one source's request in front of the others.
//!
//! **GET requests** arrive on the data VCs (the intake is built without a GET VC of its own,
//! so a configuration's GET VC is merged with the data VCs) and reach `GetToPut` through the
//! dispatch; its queue of 8 GETs answers them as PUT descriptors on `responses` (the send
//! engine's input). While that queue is full the dispatch waits, and with it the data
//! packets behind: the GET VC's own receive path that removes this wait is named in the design
//! doc as not built.
//!
//! **Counters**: `pulses` bit [`ReceivePulse`]`::X as usize` pulses for one event of reason X
//! (the children's pulses gathered; a register file counts them).
//!
//! **Reset** (synchronous) resets every block: the NIC resets as a whole.
//!
//! Parameters: `VCS`, `VCB`, `D`, `AW`, `CW`, `W` as [`NetworkIntake`]; `RAW`, `RCW` as
//! [`ReceiveBuffer`]; `EAW` as [`NapUploadUnit`]; `SB`, `WB`, `QAW`, `PB` as [`GetToPut`]. Use
//! [`receive_engine!`](crate::receive_engine) to fill them in.
use super::get_to_put::GetToPut;
use super::nap_upload_unit::{NapSettings, NapUploadUnit};
use super::network_intake::NetworkIntake;
use super::put_upload::PutUpload;
use super::receive_dispatch::ReceiveDispatch;
use super::write_arbiter::WriteArbiter;
use super::{ReceiveBuffer, ReceivedPacketSource};
use crate::descriptor::DescriptorSource;
use crate::events::EventRequestSource;
use crate::function_table::{PointerAdvanceSource, QpLookupSource};
use crate::host::{ReadCompletionSink, ReadRequestSource, WriteBeatSource};
use crate::qp_lookup_share::QpLookupShare;
use crate::tag_pool::{TagAllocSink, TagFreeSource};
use hdl::channel::ChannelSink;
use hdl::formats::FLIT_BITS;
use hdl::stream::StreamSource;
use rust_hdl::prelude::*;

/// The reasons `pulses` counts, in bit order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReceivePulse {
    /// A flit on a VC out of range (the intake's receiver).
    BadVc,
    /// A flit without credit (the intake's receiver).
    Overflow,
    /// A packet passed every check.
    Received,
    /// A packet dropped: CRC-16.
    CrcError,
    /// A packet dropped: a format rule (or longer than `network.max_packet_flits`).
    Malformed,
    /// A packet dropped: its QPMagic is not the target QP's key.
    KeyMismatch,
    /// A packet dropped: target function or QP disabled or not owned.
    TargetRefused,
    /// The receive buffer's error event not posted (its slot was full).
    PacketEventLost,
    /// A word of a packet of unknown kind dropped at the dispatch.
    UnknownKind,
    /// A NAP message delivered (its receive event captured).
    NapDelivered,
    /// A NAP message dropped: no buffer.
    NoBuffer,
    /// A NAP packet dropped: every open-message entry busy.
    AssemblyFull,
    /// An open NAP message freed by its timeout.
    NapIncomplete,
    /// A NAP packet dropped: it would overrun its message.
    NapOverrun,
    /// A NAP error event not posted (its slot was full).
    NapEventLost,
    /// A NAP-buffer ring entry's read failed.
    RingReadError,
    /// A NAP-buffer ring entry held no usable address.
    BadRingEntry,
    /// A GET dropped: its body broke a rule (`BadGet`).
    BadGet,
    /// A GET's error event not posted (its slot was full).
    GetEventLost,
}

impl ReceivePulse {
    /// Every reason, in bit order.
    pub const ALL: [ReceivePulse; 19] = [
        ReceivePulse::BadVc,
        ReceivePulse::Overflow,
        ReceivePulse::Received,
        ReceivePulse::CrcError,
        ReceivePulse::Malformed,
        ReceivePulse::KeyMismatch,
        ReceivePulse::TargetRefused,
        ReceivePulse::PacketEventLost,
        ReceivePulse::UnknownKind,
        ReceivePulse::NapDelivered,
        ReceivePulse::NoBuffer,
        ReceivePulse::AssemblyFull,
        ReceivePulse::NapIncomplete,
        ReceivePulse::NapOverrun,
        ReceivePulse::NapEventLost,
        ReceivePulse::RingReadError,
        ReceivePulse::BadRingEntry,
        ReceivePulse::BadGet,
        ReceivePulse::GetEventLost,
    ];

    /// The reason's bit in `pulses`.
    pub fn bit(self) -> usize {
        self as usize
    }

    /// What its counter counts (the register map's documentation of it).
    pub fn describe(self) -> &'static str {
        use ReceivePulse::*;
        match self {
            BadVc => "flits on a VC out of range, dropped",
            Overflow => "flits without a credit, dropped",
            Received => "packets that passed every check",
            CrcError => "packets dropped: CRC-16",
            Malformed => "packets dropped: a format rule, or longer than network.max_packet_flits",
            KeyMismatch => "packets dropped: QPMagic is not the target QP's key",
            TargetRefused => "packets dropped: target function or QP disabled or not owned",
            PacketEventLost => "packet error events not posted (their slot was full)",
            UnknownKind => "words of packets of unknown kind dropped at the dispatch",
            NapDelivered => "NAP messages delivered",
            NoBuffer => "NAP messages dropped: no buffer",
            AssemblyFull => "NAP packets dropped: every open-message entry busy",
            NapIncomplete => "open NAP messages freed by their timeout",
            NapOverrun => "NAP packets dropped: they would overrun their message",
            NapEventLost => "NAP error events not posted (their slot was full)",
            RingReadError => "NAP-buffer ring reads that failed",
            BadRingEntry => "NAP-buffer ring entries with no usable address",
            BadGet => "GETs dropped: their body broke a rule",
            GetEventLost => "GET error events not posted (their slot was full)",
        }
    }
}

/// Bits of `pulses`.
pub const RECEIVE_PULSES: usize = ReceivePulse::ALL.len();

/// The receive engine's settings (elaboration).
#[derive(Clone, Copy, Debug)]
pub struct ReceiveSettings {
    /// `network.max_packet_flits`.
    pub max_packet_flits: usize,
    /// `network.mgmt_vc`.
    pub mgmt_vc: usize,
    /// `nic.max_payload`.
    pub max_payload: usize,
    /// The NAP upload's.
    pub nap: NapSettings,
}

/// The type of a [`ReceiveEngine`] of `$vcs` VCs with intake buffers of `$depth` flits, a
/// packet RAM of `2^$raw` words, `2^$eaw` (function, QP) entries in the buffer manager and
/// GET slots of `2^$wb` words, widths filled in: `receive_engine!(2, 32, 6, 5, 5)`.
#[macro_export]
macro_rules! receive_engine {
    ($vcs:expr, $depth:expr, $raw:expr, $eaw:expr, $wb:expr) => {
        $crate::receive::receive_engine::ReceiveEngine<
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
        >
    };
}

/// The receive engine; see the module documentation.
#[derive(LogicBlock)]
pub struct ReceiveEngine<
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
> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The network channel from the link layer.
    pub channel: ChannelSink<VCS, VCB>,
    /// Management packets' flits, whole packets (to the management agent).
    pub management: StreamSource<Bits<FLIT_BITS>>,
    /// QP lookups (to the function table).
    pub lookup: QpLookupSource,
    /// Tag allocation (owner `NAP_BUFFER_OWNER`, the buffer manager's).
    pub tag_alloc: TagAllocSink,
    /// Tags given back.
    pub tag_free: TagFreeSource,
    /// NAP-buffer ring entry reads (host).
    pub read: ReadRequestSource,
    /// Their completions (the completion router's NAP output).
    pub completion: ReadCompletionSink,
    /// NAP rings' consumer pointers advanced per buffer taken.
    pub advance: PointerAdvanceSource,
    /// Posted writes (host).
    pub writes: WriteBeatSource,
    /// PUT descriptors answering GETs (to the send engine's `responses`).
    pub responses: DescriptorSource,
    /// PUT receive events and GET-response send events.
    pub put_events: EventRequestSource,
    /// NAP receive events.
    pub nap_events: EventRequestSource,
    /// NAP error events (`NoBuffer`, `AssemblyFull`, `NapIncomplete`).
    pub nap_errors: EventRequestSource,
    /// The receive buffer's error events (`KeyMismatch`, `TargetQpDisabled`).
    pub packet_errors: EventRequestSource,
    /// GET error events (`BadGet`).
    pub get_errors: EventRequestSource,
    /// One bit per [`ReceivePulse`].
    pub pulses: Signal<Out, Bits<RECEIVE_PULSES>>,
    intake: NetworkIntake<VCS, VCB, D, AW, CW, W>,
    buffer: ReceiveBuffer<RAW, RCW>,
    dispatch: ReceiveDispatch,
    put_upload: PutUpload,
    nap_upload: NapUploadUnit<EAW>,
    get_to_put: GetToPut<SB, WB, QAW, PB>,
    write_arbiter: WriteArbiter<2, 1>,
    lookup_share: QpLookupShare<2, 1>,
    /// The intake's GET stream (no GET VC: never offers).
    unused_gets: Signal<Local, bool>,
    unused_get_flit: Signal<Local, Bits<FLIT_BITS>>,
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
    > ReceiveEngine<VCS, VCB, D, AW, CW, W, RAW, RCW, EAW, SB, WB, QAW, PB>
{
    /// The engine for `settings`; panics as its children do on out-of-range settings.
    pub fn new(settings: ReceiveSettings) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            channel: Default::default(),
            management: Default::default(),
            lookup: Default::default(),
            tag_alloc: Default::default(),
            tag_free: Default::default(),
            read: Default::default(),
            completion: Default::default(),
            advance: Default::default(),
            writes: Default::default(),
            responses: Default::default(),
            put_events: Default::default(),
            nap_events: Default::default(),
            nap_errors: Default::default(),
            packet_errors: Default::default(),
            get_errors: Default::default(),
            pulses: Default::default(),
            intake: NetworkIntake::new(settings.max_packet_flits, settings.mgmt_vc, None),
            buffer: ReceiveBuffer::new(settings.max_packet_flits),
            dispatch: Default::default(),
            put_upload: PutUpload::new(settings.max_payload),
            nap_upload: NapUploadUnit::new(settings.nap),
            get_to_put: GetToPut::new(settings.max_packet_flits),
            write_arbiter: WriteArbiter::new(),
            lookup_share: Default::default(),
            unused_gets: Default::default(),
            unused_get_flit: Default::default(),
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
    > Logic for ReceiveEngine<VCS, VCB, D, AW, CW, W, RAW, RCW, EAW, SB, WB, QAW, PB>
{
    #[hdl_gen]
    fn update(&mut self) {
        clock!(
            self,
            clock,
            intake,
            buffer,
            put_upload,
            nap_upload,
            get_to_put,
            write_arbiter,
            lookup_share
        );
        self.intake.reset.next = self.reset.val();
        self.buffer.reset.next = self.reset.val();
        self.put_upload.reset.next = self.reset.val();
        self.nap_upload.reset.next = self.reset.val();
        self.get_to_put.reset.next = self.reset.val();
        self.write_arbiter.reset.next = self.reset.val();
        self.lookup_share.reset.next = self.reset.val();
        // Network side.
        ChannelSink::<VCS, VCB>::link(&mut self.channel, &mut self.intake.channel);
        StreamSource::<Bits<FLIT_BITS>>::link(&mut self.management, &mut self.intake.management);
        StreamSource::<Bits<FLIT_BITS>>::join(&mut self.intake.data, &mut self.buffer.flits);
        self.intake.gets.ready.next = true;
        self.unused_gets.next = self.intake.gets.valid.val();
        self.unused_get_flit.next = self.intake.gets.data.val();
        // Checked packets by kind to their engines.
        ReceivedPacketSource::join(&mut self.buffer.packets, &mut self.dispatch.packets);
        ReceivedPacketSource::join(&mut self.dispatch.put, &mut self.put_upload.packets);
        ReceivedPacketSource::join(&mut self.dispatch.nap, &mut self.nap_upload.packets);
        ReceivedPacketSource::join(&mut self.dispatch.get, &mut self.get_to_put.gets);
        // Host side: writes merged, lookups shared, the buffer manager's own ports.
        WriteBeatSource::join(
            &mut self.put_upload.writes,
            &mut self.write_arbiter.inputs[0],
        );
        WriteBeatSource::join(
            &mut self.nap_upload.writes,
            &mut self.write_arbiter.inputs[1],
        );
        WriteBeatSource::link(&mut self.writes, &mut self.write_arbiter.write);
        QpLookupSource::join(
            &mut self.buffer.lookup,
            &mut self.lookup_share.requesters[0],
        );
        QpLookupSource::join(
            &mut self.nap_upload.lookup,
            &mut self.lookup_share.requesters[1],
        );
        QpLookupSource::link(&mut self.lookup, &mut self.lookup_share.table);
        TagAllocSink::link(&mut self.tag_alloc, &mut self.nap_upload.tag_alloc);
        TagFreeSource::link(&mut self.tag_free, &mut self.nap_upload.tag_free);
        ReadRequestSource::link(&mut self.read, &mut self.nap_upload.read);
        ReadCompletionSink::link(&mut self.completion, &mut self.nap_upload.completion);
        PointerAdvanceSource::link(&mut self.advance, &mut self.nap_upload.advance);
        DescriptorSource::link(&mut self.responses, &mut self.get_to_put.responses);
        // Events, one port per source.
        EventRequestSource::link(&mut self.put_events, &mut self.put_upload.events);
        EventRequestSource::link(&mut self.nap_events, &mut self.nap_upload.events);
        EventRequestSource::link(&mut self.nap_errors, &mut self.nap_upload.errors);
        EventRequestSource::link(&mut self.packet_errors, &mut self.buffer.errors);
        EventRequestSource::link(&mut self.get_errors, &mut self.get_to_put.errors);
        // Counters' pulses, in `ReceivePulse` order.
        self.pulses.next = bit_cast::<RECEIVE_PULSES, 2>(self.intake.events.val())
            | (bit_cast::<RECEIVE_PULSES, 1>(self.buffer.received.val().into()) << 2)
            | (bit_cast::<RECEIVE_PULSES, 1>(self.buffer.crc_error.val().into()) << 3)
            | (bit_cast::<RECEIVE_PULSES, 1>(self.buffer.malformed.val().into()) << 4)
            | (bit_cast::<RECEIVE_PULSES, 1>(self.buffer.key_mismatch.val().into()) << 5)
            | (bit_cast::<RECEIVE_PULSES, 1>(self.buffer.target_refused.val().into()) << 6)
            | (bit_cast::<RECEIVE_PULSES, 1>(self.buffer.event_lost.val().into()) << 7)
            | (bit_cast::<RECEIVE_PULSES, 1>(self.dispatch.unknown.val().into()) << 8)
            | (bit_cast::<RECEIVE_PULSES, 1>(self.nap_upload.delivered.val().into()) << 9)
            | (bit_cast::<RECEIVE_PULSES, 1>(self.nap_upload.no_buffer.val().into()) << 10)
            | (bit_cast::<RECEIVE_PULSES, 1>(self.nap_upload.assembly_full.val().into()) << 11)
            | (bit_cast::<RECEIVE_PULSES, 1>(self.nap_upload.incomplete.val().into()) << 12)
            | (bit_cast::<RECEIVE_PULSES, 1>(self.nap_upload.overrun.val().into()) << 13)
            | (bit_cast::<RECEIVE_PULSES, 1>(self.nap_upload.event_lost.val().into()) << 14)
            | (bit_cast::<RECEIVE_PULSES, 1>(self.nap_upload.read_error.val().into()) << 15)
            | (bit_cast::<RECEIVE_PULSES, 1>(self.nap_upload.bad_entry.val().into()) << 16)
            | (bit_cast::<RECEIVE_PULSES, 1>(self.get_to_put.dropped.val().into()) << 17)
            | (bit_cast::<RECEIVE_PULSES, 1>(self.get_to_put.event_lost.val().into()) << 18);
    }
}

// `update` writes the pulses at literal bits in `ReceivePulse` order.
const _: () = assert!(RECEIVE_PULSES == 19 && hdl::channel_receiver::RECEIVER_EVENTS == 2);
const _: () = assert!(
    hdl::channel_receiver::BAD_VC == ReceivePulse::BadVc as usize
        && hdl::channel_receiver::OVERFLOW == ReceivePulse::Overflow as usize
        && ReceivePulse::GetEventLost as usize == 18
        && ReceivePulse::Received as usize == 2
        && ReceivePulse::NapDelivered as usize == 9
        && ReceivePulse::BadGet as usize == 17
);

#[test]
fn receive_engine_is_synthesizable() {
    let nap = NapSettings {
        functions: 2,
        qps: 1,
        open: 4,
        timeout: 256,
        max_payload: 128,
    };
    let mut uut = <crate::receive_engine!(2, 32, 6, 1, 5)>::new(ReceiveSettings {
        max_packet_flits: 32,
        mgmt_vc: 1,
        max_payload: 128,
        nap,
    });
    uut.connect_all();
    yosys_validate("receive_engine", &generate_verilog(&uut)).unwrap();
}
