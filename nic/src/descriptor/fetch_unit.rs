//! `DescriptorFetchUnit`: the [`DescriptorFetch`] with a [`TagPool`] of its own, the emitted
//! top `nic_descriptor_fetch` and the device of the `descriptor_fetch` bench. In the NIC the
//! pool is shared (data reads and NAP-buffer reads draw from it too); here it is the fetch's
//! alone, so the bench can check that every tag comes back.
//!
//! Ports: those of [`DescriptorFetch`] without the tag ports, plus the pool's `bad_free` pulse
//! and `tags_in_use` count. Reset (synchronous) resets both.
//!
//! Parameters: `SB`, `RAW` as [`DescriptorFetch`]; elaboration values `tags` (`nic.tags`) and
//! `max_read_request` (`nic.max_read_request`).
use super::{DescriptorFetch, DescriptorSource, ErrorEventSource};
use crate::doorbell::DoorbellSink;
use crate::function_table::QpLookupSource;
use crate::host::TAG_BITS;
use crate::host::{ReadCompletionSink, ReadRequestSource};
use crate::tag_pool::{TagAllocSource, TagFreeSource, TagPool, TAG_COUNT_BITS};
use rust_hdl::prelude::*;

/// The fetch with its tag pool; see the module documentation.
#[derive(LogicBlock)]
pub struct DescriptorFetchUnit<const SB: usize, const RAW: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Granted doorbells.
    pub doorbell: DoorbellSink,
    /// QP lookups.
    pub lookup: QpLookupSource,
    /// Read requests.
    pub read: ReadRequestSource,
    /// Read completions.
    pub completion: ReadCompletionSink,
    /// Checked descriptors.
    pub descriptor: DescriptorSource,
    /// Error events.
    pub error: ErrorEventSource,
    /// A completion beat of a tag no fetch holds was dropped.
    pub stray: Signal<Out, bool>,
    /// The pool ignored a bad free.
    pub bad_free: Signal<Out, bool>,
    /// Tags allocated.
    pub tags_in_use: Signal<Out, Bits<TAG_COUNT_BITS>>,
    fetch: DescriptorFetch<SB, RAW>,
    pool: TagPool,
    zero_tag: Constant<Bits<TAG_BITS>>,
    /// The pool's owner lookup: every tag here is the fetch's, so no completion needs routing
    /// (the NIC's completion router uses it); acknowledged unused.
    owner_unused: Signal<Local, bool>,
}

impl<const SB: usize, const RAW: usize> DescriptorFetchUnit<SB, RAW> {
    /// A fetch of `2^SB` slots with a pool of `tags` tags, for reads of at most
    /// `max_read_request` bytes.
    pub fn new(tags: usize, max_read_request: usize) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            doorbell: Default::default(),
            lookup: Default::default(),
            read: Default::default(),
            completion: Default::default(),
            descriptor: Default::default(),
            error: Default::default(),
            stray: Default::default(),
            bad_free: Default::default(),
            tags_in_use: Default::default(),
            fetch: DescriptorFetch::new(max_read_request),
            pool: TagPool::new(tags),
            zero_tag: Constant::new(0usize.to_bits()),
            owner_unused: Default::default(),
        }
    }
}

impl<const SB: usize, const RAW: usize> Logic for DescriptorFetchUnit<SB, RAW> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, fetch, pool);
        self.fetch.reset.next = self.reset.val();
        self.pool.reset.next = self.reset.val();
        DoorbellSink::link(&mut self.doorbell, &mut self.fetch.doorbell);
        QpLookupSource::link(&mut self.lookup, &mut self.fetch.lookup);
        ReadRequestSource::link(&mut self.read, &mut self.fetch.read);
        ReadCompletionSink::link(&mut self.completion, &mut self.fetch.completion);
        DescriptorSource::link(&mut self.descriptor, &mut self.fetch.descriptor);
        ErrorEventSource::link(&mut self.error, &mut self.fetch.error);
        TagAllocSource::join(&mut self.pool.alloc, &mut self.fetch.tag_alloc);
        TagFreeSource::join(&mut self.fetch.tag_free, &mut self.pool.free);
        // The fetch is the pool's only requester: one free port is enough.
        self.pool.free_second.valid.next = false;
        self.pool.free_second.tag.next = self.zero_tag.val();
        self.pool.free_third.valid.next = false;
        self.pool.free_third.tag.next = self.zero_tag.val();
        // Completions are not routed by owner here: every tag is the fetch's.
        self.pool.lookup_tag.next = self.zero_tag.val();
        self.owner_unused.next =
            self.pool.lookup_owner.val().any() | self.pool.lookup_allocated.val();
        self.stray.next = self.fetch.stray.val();
        self.bad_free.next = self.pool.bad_free.val();
        self.tags_in_use.next = self.pool.in_use.val();
    }
}

#[test]
fn descriptor_fetch_unit_is_synthesizable() {
    let mut uut = DescriptorFetchUnit::<2, 7>::new(32, 512);
    uut.connect_all();
    yosys_validate("descriptor_fetch_unit", &generate_verilog(&uut)).unwrap();
}
