//! `CompletionRouter`: steers the host's read-completion beats to the requester that owns
//! their tag (the [`TagPool`](crate::tag_pool::TagPool)'s owner lookup): the descriptor fetch
//! ([`FETCH_OWNER`]), the send engine's data read ([`DATA_READ_OWNER`]) or the NAP-buffer-address
//! reads of the receive engine ([`NAP_BUFFER_OWNER`], an output unused until that engine exists).
//!
//! **Handshake**: the host is never back-pressured: `completion.ready` is always high, because
//! every requester reserved room for its completions when it issued the request (the host
//! interface's completions are posted). Each output is valid/ready in form, but a requester
//! must take every beat offered to it; a beat offered to an output whose `ready` is low is lost
//! and `overrun` pulses (a requester that broke its promise; never seen in a correct NIC).
//!
//! **Bad input**: a beat whose tag is not allocated in the pool, or is allocated to the spare
//! owner id 3, goes nowhere and `stray` pulses (the register file counts it); the host model
//! never sends one, so a `stray` in a bench is a failure of the host side.
//!
//! **Latency**: none (combinational): the pool's lookup is combinational, so a beat reaches
//! its requester in the cycle it arrives, with its fields unchanged.
//!
//! **Reset**: no state, no reset; the pool's reset frees every tag, after which any beat still
//! arriving is `stray`.
use crate::host::{ReadCompletionSink, ReadCompletionSource, TAG_BITS};
use crate::tag_pool::{DATA_READ_OWNER, FETCH_OWNER, NAP_BUFFER_OWNER, OWNER_BITS};
use rust_hdl::prelude::*;

/// The router; see the module documentation.
#[derive(LogicBlock)]
pub struct CompletionRouter {
    /// Completion beats from the host (always taken).
    pub completion: ReadCompletionSink,
    /// The tag looked up in the pool: the arriving beat's.
    pub lookup_tag: Signal<Out, Bits<TAG_BITS>>,
    /// The pool's answer: the tag's owner.
    pub lookup_owner: Signal<In, Bits<OWNER_BITS>>,
    /// The pool's answer: the tag is allocated.
    pub lookup_allocated: Signal<In, bool>,
    /// Beats of the descriptor fetch's tags.
    pub fetch: ReadCompletionSource,
    /// Beats of the data read's tags (to the reorder buffer).
    pub data: ReadCompletionSource,
    /// Beats of the NAP-buffer-address reads' tags.
    pub nap_buffer: ReadCompletionSource,
    /// A beat of a tag that is free or owned by no requester was dropped this cycle.
    pub stray: Signal<Out, bool>,
    /// A beat was steered to an output that was not ready: lost (a requester's fault).
    pub overrun: Signal<Out, bool>,
    fetch_owner: Constant<Bits<OWNER_BITS>>,
    data_owner: Constant<Bits<OWNER_BITS>>,
    nap_owner: Constant<Bits<OWNER_BITS>>,
    to_fetch: Signal<Local, bool>,
    to_data: Signal<Local, bool>,
    to_nap: Signal<Local, bool>,
}

impl Default for CompletionRouter {
    fn default() -> Self {
        Self {
            completion: Default::default(),
            lookup_tag: Default::default(),
            lookup_owner: Default::default(),
            lookup_allocated: Default::default(),
            fetch: Default::default(),
            data: Default::default(),
            nap_buffer: Default::default(),
            stray: Default::default(),
            overrun: Default::default(),
            fetch_owner: Constant::new(FETCH_OWNER.to_bits()),
            data_owner: Constant::new(DATA_READ_OWNER.to_bits()),
            nap_owner: Constant::new(NAP_BUFFER_OWNER.to_bits()),
            to_fetch: Default::default(),
            to_data: Default::default(),
            to_nap: Default::default(),
        }
    }
}

impl Logic for CompletionRouter {
    #[hdl_gen]
    fn update(&mut self) {
        self.completion.ready.next = true;
        self.lookup_tag.next = self.completion.tag.val();
        self.to_fetch.next = self.completion.valid.val()
            & self.lookup_allocated.val()
            & (self.lookup_owner.val() == self.fetch_owner.val());
        self.to_data.next = self.completion.valid.val()
            & self.lookup_allocated.val()
            & (self.lookup_owner.val() == self.data_owner.val());
        self.to_nap.next = self.completion.valid.val()
            & self.lookup_allocated.val()
            & (self.lookup_owner.val() == self.nap_owner.val());
        self.stray.next = self.completion.valid.val()
            & !self.to_fetch.val()
            & !self.to_data.val()
            & !self.to_nap.val();
        self.overrun.next = (self.to_fetch.val() & !self.fetch.ready.val())
            | (self.to_data.val() & !self.data.ready.val())
            | (self.to_nap.val() & !self.nap_buffer.ready.val());
        // The beat's fields go to every output; only the owner's `valid` rises.
        self.fetch.valid.next = self.to_fetch.val();
        self.fetch.tag.next = self.completion.tag.val();
        self.fetch.data.next = self.completion.data.val();
        self.fetch.last.next = self.completion.last.val();
        self.fetch.error.next = self.completion.error.val();
        self.data.valid.next = self.to_data.val();
        self.data.tag.next = self.completion.tag.val();
        self.data.data.next = self.completion.data.val();
        self.data.last.next = self.completion.last.val();
        self.data.error.next = self.completion.error.val();
        self.nap_buffer.valid.next = self.to_nap.val();
        self.nap_buffer.tag.next = self.completion.tag.val();
        self.nap_buffer.data.next = self.completion.data.val();
        self.nap_buffer.last.next = self.completion.last.val();
        self.nap_buffer.error.next = self.completion.error.val();
    }
}

#[test]
fn completion_router_is_synthesizable() {
    let mut uut = CompletionRouter::default();
    uut.connect_all();
    yosys_validate("completion_router", &generate_verilog(&uut)).unwrap();
}
