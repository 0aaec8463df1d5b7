//! `RegArbiter`: two requesters onto one register file's port ([`super::port`]), e.g. the
//! configuration loader and the management agent's `reg_access` in front of a chip's
//! register file.
//!
//! **Requests.** Fixed priority: `first` wins when both offer (the loader, say, whose few
//! writes after reset must not wait behind a management server's stream), `second` otherwise;
//! a persistent `first` starves `second`, as a fixed priority means to. Once a request is
//! offered on `request` it stays offered, unchanged, until the file takes it, even if `first`
//! starts asking meanwhile (the stream rules of [`crate::stream`] hold on the output too). The
//! request path is combinational (mux and grant, no register): the arbiter adds no cycle.
//!
//! **Responses.** The file answers in order, so the arbiter keeps the requester of every
//! request taken and not yet answered in a FIFO of tags ([`TAG_DEPTH`] deep) and hands each
//! response to the requester at its head; `response.ready` is that requester's `ready`, so a
//! requester that does not take its response at once holds the file (backpressure: nothing is
//! lost or handed to the other). With the tag FIFO full, no request is taken. [`RegFile`]
//! holds at most 2 requests (its two stages), so back-to-back requests keep one per cycle; a
//! file with a deeper pipeline is served correctly, at most `TAG_DEPTH` requests in flight.
//! A response while no request is outstanding (which a conforming file never gives) is taken
//! and dropped, so it cannot reach either requester.
//!
//! **Reset** (synchronous): no request held, no tag; the file must be reset with the arbiter
//! (its responses to requests taken before the reset would otherwise meet no tag, or the next
//! request's). `request.valid` is low in reset cycles.
//!
//! Parameters: `A` address bits, `D` data bits of the port.
//!
//! [`RegFile`]: super::RegFile
use super::port::{RegRequestSink, RegRequestSource, RegResponseSink, RegResponseSource};
use crate::fifo::RegFifo;
use crate::reg_fifo;
use rust_hdl::prelude::*;

/// Requests in flight the arbiter tracks: [`RegFile`](super::RegFile)'s two stages plus one,
/// because a full register FIFO refuses a push in the cycle it pops.
pub const TAG_DEPTH: usize = 3;

/// Two register requesters onto one register port; see the module documentation.
#[derive(LogicBlock)]
pub struct RegArbiter<const A: usize, const D: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Requests of the first requester (priority).
    pub first_request: RegRequestSink<A, D>,
    /// Its responses.
    pub first_response: RegResponseSource<D>,
    /// Requests of the second requester.
    pub second_request: RegRequestSink<A, D>,
    /// Its responses.
    pub second_response: RegResponseSource<D>,
    /// Requests to the register file.
    pub request: RegRequestSource<A, D>,
    /// The file's responses, in request order.
    pub response: RegResponseSink<D>,
    /// Per request in flight, oldest first: it came from `second`.
    tags: reg_fifo!(bool, TAG_DEPTH),
    /// The request offered on the last edge was not taken: its requester keeps the port.
    holding: DFF<bool>,
    /// The held request is `second`'s.
    held_second: DFF<bool>,
    /// `second` has the port this cycle.
    choose_second: Signal<Local, bool>,
    /// The response at hand belongs to `second`.
    to_second: Signal<Local, bool>,
    /// The tag FIFO's fill, not needed: its `ready` says when it is full.
    unused_tag_count: Signal<Local, Bits<{ crate::fifo::fifo_count_bits(TAG_DEPTH) }>>,
}

impl<const A: usize, const D: usize> RegArbiter<A, D> {
    /// An arbiter for `A`-bit addresses and `D`-bit data.
    pub fn new() -> Self {
        assert!(
            (1..=63).contains(&A),
            "RegArbiter: A (address bits) must be 1..=63, got {A}"
        );
        assert!(
            (1..=64).contains(&D),
            "RegArbiter: D (data bits) must be 1..=64, got {D}"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            first_request: Default::default(),
            first_response: Default::default(),
            second_request: Default::default(),
            second_response: Default::default(),
            request: Default::default(),
            response: Default::default(),
            tags: RegFifo::new(false),
            holding: Default::default(),
            held_second: Default::default(),
            choose_second: Default::default(),
            to_second: Default::default(),
            unused_tag_count: Default::default(),
        }
    }
}

impl<const A: usize, const D: usize> Default for RegArbiter<A, D> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const A: usize, const D: usize> Logic for RegArbiter<A, D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, holding, held_second);
        clock!(self, clock, tags);
        self.tags.reset.next = self.reset.val();
        self.unused_tag_count.next = self.tags.count.val();

        // Requests: the held requester, else `first` if it asks, else `second`.
        self.choose_second.next = !self.first_request.valid.val();
        if self.holding.q.val() {
            self.choose_second.next = self.held_second.q.val();
        }
        self.request.valid.next = self.first_request.valid.val();
        self.request.address.next = self.first_request.address.val();
        self.request.write.next = self.first_request.write.val();
        self.request.data.next = self.first_request.data.val();
        if self.choose_second.val() {
            self.request.valid.next = self.second_request.valid.val();
            self.request.address.next = self.second_request.address.val();
            self.request.write.next = self.second_request.write.val();
            self.request.data.next = self.second_request.data.val();
        }
        // No request without room for its tag (the room cannot shrink while one is offered).
        if !self.tags.sink.ready.val() | self.reset.val() {
            self.request.valid.next = false;
        }
        self.first_request.ready.next =
            self.request.ready.val() & self.tags.sink.ready.val() & !self.choose_second.val();
        self.second_request.ready.next =
            self.request.ready.val() & self.tags.sink.ready.val() & self.choose_second.val();
        self.tags.sink.valid.next = self.request.valid.val() & self.request.ready.val();
        self.tags.sink.data.next = self.choose_second.val();
        self.holding.d.next = self.request.valid.val() & !self.request.ready.val();
        self.held_second.d.next = self.choose_second.val();

        // Responses: to the requester of the oldest request in flight.
        self.to_second.next = self.tags.source.data.val();
        self.first_response.valid.next =
            self.response.valid.val() & self.tags.source.valid.val() & !self.to_second.val();
        self.second_response.valid.next =
            self.response.valid.val() & self.tags.source.valid.val() & self.to_second.val();
        self.first_response.data.next = self.response.data.val();
        self.first_response.error.next = self.response.error.val();
        self.second_response.data.next = self.response.data.val();
        self.second_response.error.next = self.response.error.val();
        self.response.ready.next = true;
        if self.tags.source.valid.val() {
            self.response.ready.next = self.first_response.ready.val();
            if self.to_second.val() {
                self.response.ready.next = self.second_response.ready.val();
            }
        }
        // Popped when the response moves (never while empty: a stray response pops nothing).
        self.tags.source.ready.next =
            self.response.valid.val() & self.response.ready.val() & self.tags.source.valid.val();
        if self.reset.val() {
            self.holding.d.next = false;
        }
    }
}

#[test]
fn reg_arbiter_is_synthesizable() {
    let mut uut = RegArbiter::<15, 64>::new();
    uut.connect_all();
    yosys_validate("reg_arbiter", &generate_verilog(&uut)).unwrap();
}
