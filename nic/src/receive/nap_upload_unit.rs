//! `NapUploadUnit`: the NAP upload joined with its buffer manager (the take port inside), the
//! emitted top `nic_nap_upload` and the block the `nap_upload` bench drives
//! (`docs/nic-design.md`, "NAP upload").
//!
//! ```text
//! packets ─► NapUpload ─► writes, events, errors, pulses
//!               │ take (function, QP) ▲ buffer address, ring index / none
//!               ▼                     │
//!            BufferManager ─► lookup, tag alloc / free, 8-byte ring reads, pointer advance
//!                  ▲ completions (the completion router's NAP output)
//! ```
//!
//! Every port is its child's, with the child's handshake (see [`NapUpload`] and
//! [`BufferManager`]). Parameters: `EAW` the buffer manager's entry bits (`functions x qps
//! <= 2^EAW`); elaboration values functions, QPs per function, `nap_open`, `nap_timeout`,
//! `max_payload`. Reset (synchronous) resets both.
use super::buffer_manager::{BufferManager, NapTakeSource};
use super::nap_upload::NapUpload;
use super::ReceivedPacketSink;
use crate::events::EventRequestSource;
use crate::function_table::{PointerAdvanceSource, QpLookupSource};
use crate::host::{ReadCompletionSink, ReadRequestSource, WriteBeatSource};
use crate::tag_pool::{TagAllocSink, TagFreeSource};
use rust_hdl::prelude::*;

/// Settings of the NAP upload unit.
#[derive(Clone, Copy, Debug)]
pub struct NapSettings {
    /// SR-IOV functions (`nic.functions`).
    pub functions: usize,
    /// QPs per function (`nic.qps_per_function`).
    pub qps: usize,
    /// Open-message entries (`nic.nap_open`).
    pub open: usize,
    /// Idle cycles before an open message is dropped (`nic.nap_timeout`).
    pub timeout: usize,
    /// Largest write (`nic.max_payload`).
    pub max_payload: usize,
}

/// The NAP upload with its buffer manager; see the module documentation.
#[derive(LogicBlock)]
pub struct NapUploadUnit<const EAW: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Checked NAP packets from the dispatch.
    pub packets: ReceivedPacketSink,
    /// Posted writes (to the write arbiter).
    pub writes: WriteBeatSource,
    /// Receive events (to the event writer).
    pub events: EventRequestSource,
    /// Error events (to the event writer).
    pub errors: EventRequestSource,
    /// QP lookups (the NAP ring's base, size, pointers).
    pub lookup: QpLookupSource,
    /// Tag allocation (owner `NAP_BUFFER_OWNER`).
    pub tag_alloc: TagAllocSink,
    /// Tags given back.
    pub tag_free: TagFreeSource,
    /// Ring entry reads.
    pub read: ReadRequestSource,
    /// Their completions.
    pub completion: ReadCompletionSink,
    /// The NAP ring's consumer advanced per entry consumed.
    pub advance: PointerAdvanceSource,
    /// Pulse: a message is complete.
    pub delivered: Signal<Out, bool>,
    /// Pulse: a message is dropped for want of a buffer.
    pub no_buffer: Signal<Out, bool>,
    /// Pulse: a packet is dropped, every open-message entry busy.
    pub assembly_full: Signal<Out, bool>,
    /// Pulse: an open message is freed by its timeout.
    pub incomplete: Signal<Out, bool>,
    /// Pulse: a packet that would overrun its message is dropped.
    pub overrun: Signal<Out, bool>,
    /// Pulse: an error event is lost to a full slot.
    pub event_lost: Signal<Out, bool>,
    /// Pulse: a ring entry's read failed.
    pub read_error: Signal<Out, bool>,
    /// Pulse: a ring entry held no usable address.
    pub bad_entry: Signal<Out, bool>,
    upload: NapUpload,
    manager: BufferManager<EAW>,
}

impl<const EAW: usize> NapUploadUnit<EAW> {
    /// The unit for `s` (each value's rule is its child's).
    pub fn new(s: NapSettings) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            packets: Default::default(),
            writes: Default::default(),
            events: Default::default(),
            errors: Default::default(),
            lookup: Default::default(),
            tag_alloc: Default::default(),
            tag_free: Default::default(),
            read: Default::default(),
            completion: Default::default(),
            advance: Default::default(),
            delivered: Default::default(),
            no_buffer: Default::default(),
            assembly_full: Default::default(),
            incomplete: Default::default(),
            overrun: Default::default(),
            event_lost: Default::default(),
            read_error: Default::default(),
            bad_entry: Default::default(),
            upload: NapUpload::new(s.open, s.timeout, s.max_payload),
            manager: BufferManager::new(s.functions, s.qps),
        }
    }
}

impl<const EAW: usize> Logic for NapUploadUnit<EAW> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, upload, manager);
        self.upload.reset.next = self.reset.val();
        self.manager.reset.next = self.reset.val();
        NapTakeSource::join(&mut self.upload.take, &mut self.manager.take);
        ReceivedPacketSink::link(&mut self.packets, &mut self.upload.packets);
        WriteBeatSource::link(&mut self.writes, &mut self.upload.writes);
        EventRequestSource::link(&mut self.events, &mut self.upload.events);
        EventRequestSource::link(&mut self.errors, &mut self.upload.errors);
        QpLookupSource::link(&mut self.lookup, &mut self.manager.lookup);
        TagAllocSink::link(&mut self.tag_alloc, &mut self.manager.tag_alloc);
        TagFreeSource::link(&mut self.tag_free, &mut self.manager.tag_free);
        ReadRequestSource::link(&mut self.read, &mut self.manager.read);
        ReadCompletionSink::link(&mut self.completion, &mut self.manager.completion);
        PointerAdvanceSource::link(&mut self.advance, &mut self.manager.advance);
        self.delivered.next = self.upload.delivered.val();
        self.no_buffer.next = self.upload.no_buffer.val();
        self.assembly_full.next = self.upload.assembly_full.val();
        self.incomplete.next = self.upload.incomplete.val();
        self.overrun.next = self.upload.overrun.val();
        self.event_lost.next = self.upload.event_lost.val();
        self.read_error.next = self.manager.read_error.val();
        self.bad_entry.next = self.manager.bad_entry.val();
    }
}

#[test]
fn nap_upload_unit_is_synthesizable() {
    let mut uut = NapUploadUnit::<5>::new(NapSettings {
        functions: 8,
        qps: 4,
        open: 8,
        timeout: 256,
        max_payload: 256,
    });
    uut.connect_all();
    yosys_validate("nap_upload_unit", &generate_verilog(&uut)).unwrap();
}
