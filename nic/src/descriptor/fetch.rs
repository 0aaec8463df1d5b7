//! `DescriptorFetch`: the descriptor fetch's stages joined (see [`super`] for the picture):
//! [`DescriptorRequest`] → [`FetchSlots`] (with the slot RAM) → [`DescriptorExtract`].
//!
//! **Ports**: granted doorbells in; the function table's QP lookup; tags from the central
//! [`TagPool`](crate::tag_pool::TagPool) and their frees; read requests to the host and their
//! completion beats (only this block's tags: always taken); checked descriptors and error
//! events out, in doorbell order. `stray` pulses for a completion beat of a tag no fetch holds
//! (dropped).
//!
//! **In flight**: up to `2^SB` descriptors (4 by default) between doorbell and output, each
//! holding one or two tags while its reads are out, so at most `2^(SB+1)` tags.
//!
//! **Latency** (memory excluded): a doorbell taken in cycle `c` has its first read request
//! offered in `c + 2` (a tag free); the slot is offered to the extract stage the cycle after
//! its last completion beat, and the first body word `words + 3` cycles later.
//!
//! **Reset** (synchronous): every stage idle, every slot closed, nothing offered; reads in
//! flight are forgotten (the tag pool and the host are reset with the NIC).
//!
//! Parameters: `SB` slot bits (1..=3), `RAW = SB + 5`; elaboration value `max_read_request`.
use super::slots::{SlotHeadSource, SlotOpenSource, SlotTagSource};
use super::{DescriptorExtract, DescriptorRequest, DescriptorSource, ErrorEventSource, FetchSlots};
use crate::doorbell::DoorbellSink;
use crate::function_table::QpLookupSource;
use crate::host::{ReadCompletionSink, ReadRequestSource, HOST_DATA_BITS};
use crate::tag_pool::{TagAllocSink, TagFreeSource};
use rust_hdl::prelude::*;

/// The descriptor fetch; see the module documentation.
#[derive(LogicBlock)]
pub struct DescriptorFetch<const SB: usize, const RAW: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Granted doorbells.
    pub doorbell: DoorbellSink,
    /// QP lookups.
    pub lookup: QpLookupSource,
    /// Tags.
    pub tag_alloc: TagAllocSink,
    /// Tags given back.
    pub tag_free: TagFreeSource,
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
    request: DescriptorRequest,
    slots: FetchSlots<SB, RAW>,
    extract: DescriptorExtract<SB, RAW>,
    ram: RAM<Bits<HOST_DATA_BITS>, RAW>,
}

impl<const SB: usize, const RAW: usize> DescriptorFetch<SB, RAW> {
    /// A fetch of `2^SB` slots for reads of at most `max_read_request` bytes.
    pub fn new(max_read_request: usize) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            doorbell: Default::default(),
            lookup: Default::default(),
            tag_alloc: Default::default(),
            tag_free: Default::default(),
            read: Default::default(),
            completion: Default::default(),
            descriptor: Default::default(),
            error: Default::default(),
            stray: Default::default(),
            request: DescriptorRequest::new(max_read_request),
            slots: FetchSlots::new(),
            extract: DescriptorExtract::new(),
            ram: Default::default(),
        }
    }
}

impl<const SB: usize, const RAW: usize> Logic for DescriptorFetch<SB, RAW> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, request, slots, extract);
        self.request.reset.next = self.reset.val();
        self.slots.reset.next = self.reset.val();
        self.extract.reset.next = self.reset.val();
        DoorbellSink::link(&mut self.doorbell, &mut self.request.doorbell);
        QpLookupSource::link(&mut self.lookup, &mut self.request.lookup);
        TagAllocSink::link(&mut self.tag_alloc, &mut self.request.tag);
        ReadRequestSource::link(&mut self.read, &mut self.request.read);
        SlotOpenSource::join(&mut self.request.open, &mut self.slots.open);
        SlotTagSource::join(&mut self.request.set_tag, &mut self.slots.set_tag);
        self.request.room.next = self.slots.room.val();
        ReadCompletionSink::link(&mut self.completion, &mut self.slots.completion);
        TagFreeSource::link(&mut self.tag_free, &mut self.slots.tag_free);
        self.stray.next = self.slots.stray.val();
        SlotHeadSource::<SB>::join(&mut self.slots.head, &mut self.extract.head);
        self.ram.write_clock.next = self.clock.val();
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_address.next = self.slots.write_address.val();
        self.ram.write_data.next = self.slots.write_data.val();
        self.ram.write_enable.next = self.slots.write_enable.val();
        self.ram.read_address.next = self.extract.read_address.val();
        self.extract.read_data.next = self.ram.read_data.val();
        DescriptorSource::link(&mut self.descriptor, &mut self.extract.descriptor);
        ErrorEventSource::link(&mut self.error, &mut self.extract.error);
    }
}

#[test]
fn descriptor_fetch_is_synthesizable() {
    let mut uut = DescriptorFetch::<2, 7>::new(512);
    uut.connect_all();
    yosys_validate("descriptor_fetch", &generate_verilog(&uut)).unwrap();
}
