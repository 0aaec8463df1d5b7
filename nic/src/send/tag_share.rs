//! `TagShare`: the central pool's one allocation port shared by the receive engine's NAP
//! buffer manager, the descriptor fetch and the data read, in that fixed priority. The buffer
//! manager goes first: it takes at most one tag per ring refill and holds a few at most, and a
//! buffer manager starved by a busy send side would stall the network's NAP traffic, which
//! the far end's sends wait for. The fetch goes next (at most one tag per descriptor, so it
//! cannot starve the data read for long); the data read is offered the tag in every cycle
//! neither other takes it. Combinational; no state.
//!
//! Ports: `pool` (sink: the pool's offer), `nap_buffer`, `fetch`, `data` (sources: each
//! requester's offer).
use crate::tag_pool::{TagAllocSink, TagAllocSource};
use rust_hdl::prelude::*;

/// The share; see the module documentation.
#[derive(LogicBlock, Default)]
pub struct TagShare {
    /// The pool's offer.
    pub pool: TagAllocSink,
    /// The NAP buffer manager's offer (first).
    pub nap_buffer: TagAllocSource,
    /// The fetch's offer.
    pub fetch: TagAllocSource,
    /// The data read's offer.
    pub data: TagAllocSource,
}

impl Logic for TagShare {
    #[hdl_gen]
    fn update(&mut self) {
        self.nap_buffer.valid.next = self.pool.valid.val();
        self.nap_buffer.tag.next = self.pool.tag.val();
        self.fetch.valid.next = self.pool.valid.val() & !self.nap_buffer.ready.val();
        self.fetch.tag.next = self.pool.tag.val();
        self.data.valid.next =
            self.pool.valid.val() & !self.nap_buffer.ready.val() & !self.fetch.ready.val();
        self.data.tag.next = self.pool.tag.val();
        self.pool.ready.next = self.nap_buffer.ready.val()
            | (self.fetch.ready.val() & self.fetch.valid.val())
            | (self.data.ready.val() & self.data.valid.val());
        self.pool.owner.next = self.data.owner.val();
        if self.fetch.ready.val() {
            self.pool.owner.next = self.fetch.owner.val();
        }
        if self.nap_buffer.ready.val() {
            self.pool.owner.next = self.nap_buffer.owner.val();
        }
    }
}

#[test]
fn tag_share_is_synthesizable() {
    let mut uut = TagShare::default();
    uut.connect_all();
    yosys_validate("tag_share", &generate_verilog(&uut)).unwrap();
}
