//! `ReadMerge`: the NIC's three read requesters on the one host read-request port. The
//! receive engine's NAP buffer manager goes first (a ring read of 8 bytes now and then, at
//! most one per tag it holds: it cannot starve the others, and the network's NAP traffic waits
//! for it); the descriptor fetch and the data read share the rest round robin: when both offer,
//! the one not served last goes first. A request offered to the host stays offered until taken
//! (the hold rule): while the host has not taken it, the choice does not change.
//!
//! Ports: `nap_buffer`, `fetch`, `data` (sinks), `read` (source), `clock`, `reset`.
use crate::host::{ReadRequestSink, ReadRequestSource};
use rust_hdl::prelude::*;

/// The merge; see the module documentation.
#[derive(LogicBlock, Default)]
pub struct ReadMerge {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The NAP buffer manager's ring reads (first).
    pub nap_buffer: ReadRequestSink,
    /// The descriptor fetch's requests.
    pub fetch: ReadRequestSink,
    /// The data read's requests.
    pub data: ReadRequestSink,
    /// To the host.
    pub read: ReadRequestSource,
    /// The data read goes first when it and the fetch both offer.
    prefer_data: DFF<bool>,
    /// A request was offered and not taken: keep the choice.
    holding: DFF<bool>,
    held_data: DFF<bool>,
    held_nap: DFF<bool>,
    /// The data read's request is the one offered.
    choose_data: Signal<Local, bool>,
    /// The buffer manager's request is the one offered.
    choose_nap: Signal<Local, bool>,
}

impl Logic for ReadMerge {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, prefer_data, holding, held_data, held_nap);
        self.choose_nap.next = self.nap_buffer.valid.val();
        self.choose_data.next = !self.nap_buffer.valid.val()
            & self.data.valid.val()
            & (!self.fetch.valid.val() | self.prefer_data.q.val());
        if self.holding.q.val() {
            self.choose_nap.next = self.held_nap.q.val();
            self.choose_data.next = self.held_data.q.val();
        }
        self.read.valid.next = self.fetch.valid.val();
        self.read.function.next = self.fetch.function.val();
        self.read.address.next = self.fetch.address.val();
        self.read.bytes.next = self.fetch.bytes.val();
        self.read.tag.next = self.fetch.tag.val();
        self.fetch.ready.next =
            self.read.ready.val() & !self.choose_data.val() & !self.choose_nap.val();
        self.data.ready.next = self.read.ready.val() & self.choose_data.val();
        self.nap_buffer.ready.next = self.read.ready.val() & self.choose_nap.val();
        if self.choose_data.val() {
            self.read.valid.next = self.data.valid.val();
            self.read.function.next = self.data.function.val();
            self.read.address.next = self.data.address.val();
            self.read.bytes.next = self.data.bytes.val();
            self.read.tag.next = self.data.tag.val();
        }
        if self.choose_nap.val() {
            self.read.valid.next = self.nap_buffer.valid.val();
            self.read.function.next = self.nap_buffer.function.val();
            self.read.address.next = self.nap_buffer.address.val();
            self.read.bytes.next = self.nap_buffer.bytes.val();
            self.read.tag.next = self.nap_buffer.tag.val();
        }
        self.holding.d.next = self.read.valid.val() & !self.read.ready.val();
        self.held_data.d.next = self.choose_data.val();
        self.held_nap.d.next = self.choose_nap.val();
        if self.read.valid.val() & self.read.ready.val() & !self.choose_nap.val() {
            self.prefer_data.d.next = !self.choose_data.val();
        }
        if self.reset.val() {
            self.holding.d.next = false;
            self.prefer_data.d.next = false;
        }
    }
}

#[test]
fn read_merge_is_synthesizable() {
    let mut uut = ReadMerge::default();
    uut.connect_all();
    yosys_validate("read_merge", &generate_verilog(&uut)).unwrap();
}
