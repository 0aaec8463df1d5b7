//! `DescriptorMerge`: the send engine's two descriptor streams merged into one in front of
//! [`SendSplit`](super::SendSplit): the descriptor fetch's (`fetched`, local doorbells) and the
//! receive engine's GET responses (`responses`, from `GetToPut`). Whole descriptors: once a
//! stream's descriptor has a word offered, that stream keeps the output until the
//! descriptor's `last` word is taken, so two descriptors' words never interleave (SendSplit
//! counts a descriptor's words from its first) and the offered word holds until taken.
//!
//! **Policy: round robin by descriptor.** When both offer a new descriptor, the one not served
//! last wins. Responses first would bound a GET's latency tighter, but a remote node sending
//! GETs back to back could then starve this node's own doorbells (the fetch) for as long as it
//! likes; round robin gives each stream every other descriptor, so a GET response waits for
//! at most one local descriptor's words (at most 63) and local traffic for at most one
//! response's (at most 64). The bytes each descriptor moves are not weighed (the data read
//! and packetizer serve descriptors in order anyway).
//!
//! Combinational path from either input to the output (no latency); two flip-flops of state.
//! **Reset** (synchronous): no stream held, the fetch preferred next.
use crate::descriptor::{DescriptorSink, DescriptorSource};
use rust_hdl::prelude::*;

/// The merge; see the module documentation.
#[derive(LogicBlock, Default)]
pub struct DescriptorMerge {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Descriptors from the fetch.
    pub fetched: DescriptorSink,
    /// GET responses.
    pub responses: DescriptorSink,
    /// The merged stream.
    pub merged: DescriptorSource,
    /// A descriptor has the output (a word of it was offered and its last not taken).
    holding: DFF<bool>,
    /// The stream that has it, or was served last: `true` for the responses.
    owner: DFF<bool>,
    /// This cycle's stream: `true` for the responses.
    pick: Signal<Local, bool>,
}

impl Logic for DescriptorMerge {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, holding, owner);
        // Round robin at a descriptor boundary; the holder otherwise.
        self.pick.next = self.owner.q.val();
        if !self.holding.q.val() {
            self.pick.next = self.responses.valid.val();
            if self.fetched.valid.val() & self.responses.valid.val() {
                self.pick.next = !self.owner.q.val();
            }
        }
        self.merged.valid.next = self.fetched.valid.val();
        self.merged.kind.next = self.fetched.kind.val();
        self.merged.function.next = self.fetched.function.val();
        self.merged.qp.next = self.fetched.qp.val();
        self.merged.dst_node.next = self.fetched.dst_node.val();
        self.merged.dst_function.next = self.fetched.dst_function.val();
        self.merged.dst_qp.next = self.fetched.dst_qp.val();
        self.merged.remote_event.next = self.fetched.remote_event.val();
        self.merged.local_event.next = self.fetched.local_event.val();
        self.merged.key.next = self.fetched.key.val();
        self.merged.tag.next = self.fetched.tag.val();
        self.merged.length.next = self.fetched.length.val();
        self.merged.sources.next = self.fetched.sources.val();
        self.merged.destinations.next = self.fetched.destinations.val();
        self.merged.response_key.next = self.fetched.response_key.val();
        self.merged.get_response.next = self.fetched.get_response.val();
        self.merged.word.next = self.fetched.word.val();
        self.merged.last.next = self.fetched.last.val();
        if self.pick.val() {
            self.merged.valid.next = self.responses.valid.val();
            self.merged.kind.next = self.responses.kind.val();
            self.merged.function.next = self.responses.function.val();
            self.merged.qp.next = self.responses.qp.val();
            self.merged.dst_node.next = self.responses.dst_node.val();
            self.merged.dst_function.next = self.responses.dst_function.val();
            self.merged.dst_qp.next = self.responses.dst_qp.val();
            self.merged.remote_event.next = self.responses.remote_event.val();
            self.merged.local_event.next = self.responses.local_event.val();
            self.merged.key.next = self.responses.key.val();
            self.merged.tag.next = self.responses.tag.val();
            self.merged.length.next = self.responses.length.val();
            self.merged.sources.next = self.responses.sources.val();
            self.merged.destinations.next = self.responses.destinations.val();
            self.merged.response_key.next = self.responses.response_key.val();
            self.merged.get_response.next = self.responses.get_response.val();
            self.merged.word.next = self.responses.word.val();
            self.merged.last.next = self.responses.last.val();
        }
        self.fetched.ready.next = self.merged.ready.val() & !self.pick.val();
        self.responses.ready.next = self.merged.ready.val() & self.pick.val();
        // A word offered locks the stream until its descriptor's last word is taken.
        if self.merged.valid.val() {
            self.holding.d.next = true;
            self.owner.d.next = self.pick.val();
            if self.merged.ready.val() & self.merged.last.val() {
                self.holding.d.next = false;
            }
        }
        if self.reset.val() {
            self.holding.d.next = false;
            self.owner.d.next = true;
            self.fetched.ready.next = false;
            self.responses.ready.next = false;
        }
    }
}

#[test]
fn descriptor_merge_is_synthesizable() {
    let mut uut = DescriptorMerge::default();
    uut.connect_all();
    yosys_validate("descriptor_merge", &generate_verilog(&uut)).unwrap();
}
