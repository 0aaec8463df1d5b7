//! `SendEngine`: the NIC's send side joined, from granted doorbells to network flits and send
//! events (issue 13, part 3; `docs/nic-design.md`, "Send engine"), the emitted top `nic_send`.
//!
//! ```text
//! doorbell ─► DescriptorFetch ─► DescriptorMerge ─► SendSplit ─┬─► ReadQueue ─► DataRead ─► ReadMerge ─► read (host)
//!                 │        responses (GET) ──┘
//!                 │ read ─────────────────────────────────────────────────┘
//!                 │ error events                 │ issued (rows reserved)
//!                 ▼                              ▼
//!               errors    completion ─► CompletionRouter ─► DataReorder ─► payload words
//!                                          └─► fetch                        │
//!                            MessageQueue, inline words ─► Packetizer ◄─────┘
//!                                                             ├─► flits, vc
//!                                                             └─► sends (events)
//! TagPool (one allocation port, TagShare: NAP buffer manager, fetch, data read; three free
//! ports: fetch, reorder, NAP buffer manager)
//! nap_read ─► ReadMerge (first);  CompletionRouter ─► nap_completion
//! ```
//!
//! Ports: `doorbell` (granted doorbells), `responses` (PUT descriptors answering GETs, from the
//! receive engine's `GetToPut`: merged with the fetch's descriptors whole, round robin, by
//! [`DescriptorMerge`]; their data reads carry the descriptor's `function`, the GET's target),
//! `lookup` (the fetch's QP lookups), `read`,
//! `completion` (host reads), `node_id`, `flits` and `vc` (the packets), `errors` (refused
//! descriptors' error events), `sends` (send and error events of sent messages), the pulses
//! `stray` (a completion of a tag nobody holds), `overrun` (a completion steered to a full
//! requester: a broken reservation), `bad_free`, `stomped`, `refused`, and `tags_in_use`.
//! The receive engine's NAP buffer manager shares the pool and the host read port through
//! `nap_tags` (first in the tag share), `nap_tag_free` (the pool's third free port),
//! `nap_read` (first in the read merge) and `nap_completion` (the completion router's beats
//! of tags it owns): `nic_core` joins them to `ReceiveEngine`'s `tag_alloc`, `tag_free`,
//! `read` and `completion`.
//!
//! Reset (synchronous) resets every block: the NIC resets as a whole.
//!
//! Parameters: `SB`, `RAW` as [`DescriptorFetch`]; elaboration values `tags`,
//! `max_read_request`, `mtu_bytes`, `max_packet_flits`, `data_vc`, `get_vc`.
use super::{
    CompletionRouter, DataRead, DataReorder, DescriptorMerge, Packetizer, PayloadWordSource,
    ReadIssueSource, ReadMerge, SendSplit, TagShare,
};
use crate::descriptor::{DescriptorFetch, DescriptorSink, DescriptorSource, ErrorEventSource};
use crate::doorbell::{ChargeSource, DoorbellSink};
use crate::events::EventRequestSource;
use crate::function_table::QpLookupSource;
use crate::host::{ReadCompletionSink, ReadCompletionSource, ReadRequestSink, ReadRequestSource};
use crate::tag_pool::{TagAllocSource, TagFreeSink, TagFreeSource, TagPool, TAG_COUNT_BITS};
use hdl::formats::FLIT_BITS;
use hdl::stream::StreamSource;
use rust_hdl::prelude::*;

/// Reorder-buffer ring of `2^8` rows of 16 bytes: 4 KB (`docs/nic-design.md`, the goals'
/// arithmetic).
pub const REORDER_ROW_BITS: usize = 8;

/// The send engine's settings (elaboration).
#[derive(Clone, Copy, Debug)]
pub struct SendSettings {
    /// `nic.tags`.
    pub tags: usize,
    /// `nic.max_read_request`.
    pub max_read_request: usize,
    /// `nic.mtu_bytes`.
    pub mtu_bytes: usize,
    /// `network.max_packet_flits`.
    pub max_packet_flits: usize,
    /// VC of data packets.
    pub data_vc: u8,
    /// VC of GET requests.
    pub get_vc: u8,
}

/// The send engine; see the module documentation.
#[derive(LogicBlock)]
pub struct SendEngine<const SB: usize, const RAW: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Granted doorbells.
    pub doorbell: DoorbellSink,
    /// GET responses (PUT descriptors with `get_response`).
    pub responses: DescriptorSink,
    /// The fetch's QP lookups.
    pub lookup: QpLookupSource,
    /// Tags offered to the NAP buffer manager (owner `NAP_BUFFER_OWNER`).
    pub nap_tags: TagAllocSource,
    /// The NAP buffer manager's tag frees.
    pub nap_tag_free: TagFreeSink,
    /// The NAP buffer manager's host reads.
    pub nap_read: ReadRequestSink,
    /// Completions of the NAP buffer manager's reads.
    pub nap_completion: ReadCompletionSource,
    /// Each fetched descriptor's bytes, charged to its function on the edge its last word
    /// leaves the fetch (the doorbell arbiter's byte fairness).
    pub charge: ChargeSource,
    /// Host read requests.
    pub read: ReadRequestSource,
    /// Host read completions.
    pub completion: ReadCompletionSink,
    /// This NIC's node.
    pub node_id: Signal<In, Bits<16>>,
    /// The packets' flits.
    pub flits: StreamSource<Bits<FLIT_BITS>>,
    /// The VC of the packet on offer.
    pub vc: Signal<Out, Bits<3>>,
    /// Error events of refused descriptors.
    pub errors: ErrorEventSource,
    /// Send and error events of sent messages.
    pub sends: EventRequestSource,
    /// A completion beat of a tag nobody holds.
    pub stray: Signal<Out, bool>,
    /// A completion beat steered to a requester that could not take it.
    pub overrun: Signal<Out, bool>,
    /// The pool ignored a bad free.
    pub bad_free: Signal<Out, bool>,
    /// A packet left stomped (a failed data read).
    pub stomped: Signal<Out, bool>,
    /// A GET was refused (`GetTooLong`).
    pub refused: Signal<Out, bool>,
    /// Tags allocated.
    pub tags_in_use: Signal<Out, Bits<TAG_COUNT_BITS>>,
    fetch: DescriptorFetch<SB, RAW>,
    merge: DescriptorMerge,
    pool: TagPool,
    tag_share: TagShare,
    router: CompletionRouter,
    read_merge: ReadMerge,
    split: SendSplit,
    data_read: DataRead,
    reorder: DataReorder<REORDER_ROW_BITS>,
    packetizer: Packetizer,
}

impl<const SB: usize, const RAW: usize> SendEngine<SB, RAW> {
    /// The engine with `settings`.
    pub fn new(settings: SendSettings) -> Self {
        let s = settings;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            doorbell: Default::default(),
            responses: Default::default(),
            lookup: Default::default(),
            nap_tags: Default::default(),
            nap_tag_free: Default::default(),
            nap_read: Default::default(),
            nap_completion: Default::default(),
            charge: Default::default(),
            read: Default::default(),
            completion: Default::default(),
            node_id: Default::default(),
            flits: Default::default(),
            vc: Default::default(),
            errors: Default::default(),
            sends: Default::default(),
            stray: Default::default(),
            overrun: Default::default(),
            bad_free: Default::default(),
            stomped: Default::default(),
            refused: Default::default(),
            tags_in_use: Default::default(),
            fetch: DescriptorFetch::new(s.max_read_request),
            merge: Default::default(),
            pool: TagPool::new(s.tags),
            tag_share: Default::default(),
            router: Default::default(),
            read_merge: Default::default(),
            split: Default::default(),
            data_read: DataRead::new(s.max_read_request),
            reorder: DataReorder::new(s.tags),
            packetizer: Packetizer::new(s.mtu_bytes, s.max_packet_flits, s.data_vc, s.get_vc),
        }
    }
}

impl<const SB: usize, const RAW: usize> Logic for SendEngine<SB, RAW> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, fetch, merge, pool, read_merge, split, data_read, reorder, packetizer);
        self.fetch.reset.next = self.reset.val();
        self.merge.reset.next = self.reset.val();
        self.pool.reset.next = self.reset.val();
        self.read_merge.reset.next = self.reset.val();
        self.split.reset.next = self.reset.val();
        self.data_read.reset.next = self.reset.val();
        self.reorder.reset.next = self.reset.val();
        self.packetizer.reset.next = self.reset.val();
        // Descriptors in, errors out.
        DoorbellSink::link(&mut self.doorbell, &mut self.fetch.doorbell);
        QpLookupSource::link(&mut self.lookup, &mut self.fetch.lookup);
        ErrorEventSource::link(&mut self.errors, &mut self.fetch.error);
        // Tags: one allocation port shared, a free port each for the fetch, the reorder and the
        // NAP buffer manager.
        TagAllocSource::join(&mut self.pool.alloc, &mut self.tag_share.pool);
        TagAllocSource::link(&mut self.nap_tags, &mut self.tag_share.nap_buffer);
        TagFreeSink::link(&mut self.nap_tag_free, &mut self.pool.free_third);
        TagAllocSource::join(&mut self.tag_share.fetch, &mut self.fetch.tag_alloc);
        TagAllocSource::join(&mut self.tag_share.data, &mut self.data_read.tag_alloc);
        TagFreeSource::join(&mut self.fetch.tag_free, &mut self.pool.free);
        TagFreeSource::join(&mut self.reorder.tag_free, &mut self.pool.free_second);
        // Host reads: requests merged, completions steered by the tag's owner.
        ReadRequestSource::join(&mut self.fetch.read, &mut self.read_merge.fetch);
        ReadRequestSource::join(&mut self.data_read.read, &mut self.read_merge.data);
        ReadRequestSink::link(&mut self.nap_read, &mut self.read_merge.nap_buffer);
        ReadRequestSource::link(&mut self.read, &mut self.read_merge.read);
        ReadCompletionSink::link(&mut self.completion, &mut self.router.completion);
        self.pool.lookup_tag.next = self.router.lookup_tag.val();
        self.router.lookup_owner.next = self.pool.lookup_owner.val();
        self.router.lookup_allocated.next = self.pool.lookup_allocated.val();
        ReadCompletionSource::join(&mut self.router.fetch, &mut self.fetch.completion);
        ReadCompletionSource::join(&mut self.router.data, &mut self.reorder.completion);
        ReadCompletionSource::link(&mut self.nap_completion, &mut self.router.nap_buffer);
        // The descriptor stream forked; the data read, the reorder buffer, the packetizer.
        DescriptorSource::join(&mut self.fetch.descriptor, &mut self.merge.fetched);
        self.charge.valid.next = self.fetch.descriptor.valid.val()
            & self.merge.fetched.ready.val()
            & self.fetch.descriptor.last.val();
        self.charge.function.next = self.fetch.descriptor.function.val();
        self.charge.bytes.next = self.fetch.descriptor.length.val();
        DescriptorSink::link(&mut self.responses, &mut self.merge.responses);
        DescriptorSource::join(&mut self.merge.merged, &mut self.split.descriptor);
        DescriptorSource::join(&mut self.split.reads, &mut self.data_read.descriptor);
        self.data_read.room.next = self.reorder.room.val();
        ReadIssueSource::join(&mut self.data_read.issued, &mut self.reorder.issue);
        super::MessageSource::join(&mut self.split.messages, &mut self.packetizer.messages);
        PayloadWordSource::join(&mut self.split.inline, &mut self.packetizer.inline);
        PayloadWordSource::join(&mut self.reorder.payload, &mut self.packetizer.payload);
        self.packetizer.node_id.next = self.node_id.val();
        self.flits.valid.next = self.packetizer.flits.valid.val();
        self.flits.data.next = self.packetizer.flits.data.val();
        self.packetizer.flits.ready.next = self.flits.ready.val();
        self.vc.next = self.packetizer.vc.val();
        EventRequestSource::link(&mut self.sends, &mut self.packetizer.sends);
        // Counters' pulses.
        self.stray.next = self.router.stray.val() | self.fetch.stray.val();
        self.overrun.next = self.router.overrun.val();
        self.bad_free.next = self.pool.bad_free.val();
        self.stomped.next = self.packetizer.stomped.val();
        self.refused.next = self.packetizer.refused.val();
        self.tags_in_use.next = self.pool.in_use.val();
    }
}

#[test]
fn send_engine_is_synthesizable() {
    let mut uut = SendEngine::<2, 7>::new(SendSettings {
        tags: 32,
        max_read_request: 512,
        mtu_bytes: 128,
        max_packet_flits: 32,
        data_vc: 0,
        get_vc: 2,
    });
    uut.connect_all();
    yosys_validate("send_engine", &generate_verilog(&uut)).unwrap();
}
