//! `RegSplit`: one register requester onto two register files by address, e.g. the management
//! agent's own block (`local`, addresses below a limit) and the rest of its chip's register
//! space (`chip`), so one agent design serves chips whose register files differ.
//!
//! **Requests.** A request whose address is below `limit` goes to `local`, any other to
//! `chip`; the path is combinational (a compare and a mux, no register), so the split adds no
//! cycle. A request stays offered on its target, unchanged, until taken (the requester's
//! stream rules hold through the split), and the other target sees `valid` low.
//!
//! **Responses.** Each file answers its own requests in order, but the two files may answer at
//! different times, so the split keeps the target of every request taken and not yet answered
//! in a FIFO of tags ([`SPLIT_TAG_DEPTH`] deep) and passes on only the response of the file at
//! its head; the other file's response waits there (its `ready` low), so responses leave in
//! request order and none is lost. `response.ready` goes to the file at the head. With the
//! tag FIFO full, no request is taken. A response from a file with no request outstanding at
//! the head (which a conforming file never gives) is held (not taken) until its turn comes;
//! it cannot reach the requester out of order.
//!
//! **Reset** (synchronous): no tag; both files must be reset with the split (their responses
//! to requests taken before the reset would otherwise meet no tag). `request.ready` is low in
//! reset cycles.
//!
//! Parameters: `A` address bits, `D` data bits of the ports; `limit` at construction.
use super::port::{RegRequestSink, RegRequestSource, RegResponseSink, RegResponseSource};
use crate::fifo::RegFifo;
use crate::reg_fifo;
use rust_hdl::prelude::*;

/// Requests in flight the split tracks: a [`RegFile`](super::RegFile)'s two stages plus one,
/// because a full register FIFO refuses a push in the cycle it pops.
pub const SPLIT_TAG_DEPTH: usize = 3;

/// One register requester onto two register files by address; see the module documentation.
#[derive(LogicBlock)]
pub struct RegSplit<const A: usize, const D: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Requests of the requester.
    pub request: RegRequestSink<A, D>,
    /// Its responses, in request order.
    pub response: RegResponseSource<D>,
    /// Requests below `limit`.
    pub local_request: RegRequestSource<A, D>,
    /// The local file's responses.
    pub local_response: RegResponseSink<D>,
    /// Requests at `limit` and above.
    pub chip_request: RegRequestSource<A, D>,
    /// The chip file's responses.
    pub chip_response: RegResponseSink<D>,
    /// Per request in flight, oldest first: it went to `chip`.
    tags: reg_fifo!(bool, SPLIT_TAG_DEPTH),
    /// The first address that goes to `chip`.
    limit: Constant<Bits<A>>,
    /// The request at hand goes to `chip`.
    to_chip: Signal<Local, bool>,
    /// The oldest request in flight went to `chip`.
    from_chip: Signal<Local, bool>,
    /// The tag FIFO's fill, not needed: its `ready` says when it is full.
    unused_tag_count: Signal<Local, Bits<{ crate::fifo::fifo_count_bits(SPLIT_TAG_DEPTH) }>>,
}

impl<const A: usize, const D: usize> RegSplit<A, D> {
    /// A split sending addresses below `limit` to `local` and the others to `chip`.
    pub fn new(limit: u64) -> Self {
        assert!(
            (1..=63).contains(&A),
            "RegSplit: A (address bits) must be 1..=63, got {A}"
        );
        assert!(
            (1..=64).contains(&D),
            "RegSplit: D (data bits) must be 1..=64, got {D}"
        );
        assert!(
            limit > 0 && limit < 1 << A,
            "RegSplit: limit {limit:#x} must leave both sides an address below 2^{A}"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            request: Default::default(),
            response: Default::default(),
            local_request: Default::default(),
            local_response: Default::default(),
            chip_request: Default::default(),
            chip_response: Default::default(),
            tags: RegFifo::new(false),
            limit: Constant::new(limit.into()),
            to_chip: Default::default(),
            from_chip: Default::default(),
            unused_tag_count: Default::default(),
        }
    }
}

impl<const A: usize, const D: usize> Logic for RegSplit<A, D> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, tags);
        self.tags.reset.next = self.reset.val();
        self.unused_tag_count.next = self.tags.count.val();

        // Requests: by address, while the tag FIFO has room (the room cannot shrink while a
        // request is offered, so an offer is never withdrawn).
        self.to_chip.next = self.request.address.val() >= self.limit.val();
        self.local_request.address.next = self.request.address.val();
        self.local_request.write.next = self.request.write.val();
        self.local_request.data.next = self.request.data.val();
        self.chip_request.address.next = self.request.address.val();
        self.chip_request.write.next = self.request.write.val();
        self.chip_request.data.next = self.request.data.val();
        self.local_request.valid.next = self.request.valid.val()
            & !self.to_chip.val()
            & self.tags.sink.ready.val()
            & !self.reset.val();
        self.chip_request.valid.next = self.request.valid.val()
            & self.to_chip.val()
            & self.tags.sink.ready.val()
            & !self.reset.val();
        self.request.ready.next = self.local_request.ready.val();
        if self.to_chip.val() {
            self.request.ready.next = self.chip_request.ready.val();
        }
        self.request.ready.next =
            self.request.ready.val() & self.tags.sink.ready.val() & !self.reset.val();
        self.tags.sink.valid.next = self.request.valid.val() & self.request.ready.val();
        self.tags.sink.data.next = self.to_chip.val();

        // Responses: only from the file of the oldest request in flight.
        self.from_chip.next = self.tags.source.data.val();
        self.response.valid.next = self.tags.source.valid.val() & self.local_response.valid.val();
        self.response.data.next = self.local_response.data.val();
        self.response.error.next = self.local_response.error.val();
        if self.from_chip.val() {
            self.response.valid.next =
                self.tags.source.valid.val() & self.chip_response.valid.val();
            self.response.data.next = self.chip_response.data.val();
            self.response.error.next = self.chip_response.error.val();
        }
        self.local_response.ready.next =
            self.tags.source.valid.val() & !self.from_chip.val() & self.response.ready.val();
        self.chip_response.ready.next =
            self.tags.source.valid.val() & self.from_chip.val() & self.response.ready.val();
        self.tags.source.ready.next = self.response.valid.val() & self.response.ready.val();
    }
}

#[test]
fn reg_split_is_synthesizable() {
    let mut uut = RegSplit::<15, 64>::new(0x20);
    uut.connect_all();
    yosys_validate("reg_split", &generate_verilog(&uut)).unwrap();
}
