//! `EventSelect`: round robin over the event writer's `N` requesters (in `nic_top`: the send
//! engine, the fetch's errors, and the receive engine's event ports; in `nic_event_writer`:
//! sends, receives, errors), presenting one request at a time on `chosen` without taking it:
//! the writer looks at it (its QP lookup) and then takes it (`chosen.ready`) or passes it over.
//!
//! **Choice** (an [`RrArbiter`], no hold). While not `locked`, `chosen` is the first requester
//! with `valid` after the last one served, in the order sends, receives, errors. `lock` (the writer starts on the request
//! shown) freezes the choice from the next cycle; `finish` (the writer took the request or
//! passed it over) unfreezes it and makes that requester the last served, so the others come
//! first next time (the arbiter's pointer moves on `finish`; while locked only the held
//! requester is shown to it, so it moves past that one): a request whose ring is full is passed over and tried again only after
//! every other requester had its turn, and it stays with its requester meanwhile.
//! `chosen.ready` is routed to the chosen requester only.
//!
//! Latency: combinational from the inputs to `chosen`. Reset (synchronous): unlocked,
//! requester 0 first. Parameters: `N` requesters (2..), `W` = `ceil(log2(N))`.
use super::{EventRequestSink, EventRequestSource};
use hdl::arb::RrArbiter;
use rust_hdl::prelude::*;

/// The requesters' round robin; see the module documentation.
#[derive(LogicBlock)]
pub struct EventSelect<const N: usize, const W: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The requesters, in round-robin order.
    pub requests: [EventRequestSink; N],
    /// The request shown to the writer.
    pub chosen: EventRequestSource,
    /// The writer starts on the request shown: keep it.
    pub lock: Signal<In, bool>,
    /// The writer is done with the request shown (taken or passed over).
    pub finish: Signal<In, bool>,
    /// The round robin over the requesters.
    arbiter: RrArbiter<N, W>,
    locked: DFF<bool>,
    /// The requester locked.
    held: DFF<Bits<W>>,
    /// The requester shown in this cycle.
    index: Signal<Local, Bits<W>>,
    /// The requesters' `valid` bits, accumulated: `valid_bits[i + 1]` holds bits `0..=i`.
    valid_bits: Vec<Signal<Local, Bits<N>>>,
    /// Requester 0's request bit.
    one_requester: Constant<Bits<N>>,
    /// Requester indices.
    indices: Vec<Constant<Bits<W>>>,
    /// The arbiter's one-hot grant and `valid` repeat what `index` and the chosen requester's
    /// `valid` say: acknowledged unused for Verilator's lint.
    arbiter_unused: Signal<Local, bool>,
}

impl<const N: usize, const W: usize> Default for EventSelect<N, W> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            requests: std::array::from_fn(|_| Default::default()),
            chosen: Default::default(),
            lock: Default::default(),
            finish: Default::default(),
            arbiter: RrArbiter::new(false),
            locked: Default::default(),
            held: Default::default(),
            index: Default::default(),
            valid_bits: (0..=N).map(|_| Default::default()).collect(),
            one_requester: Constant::new(1usize.to_bits()),
            indices: (0..N).map(|i| Constant::new((i as u64).into())).collect(),
            arbiter_unused: Default::default(),
        }
    }
}

impl<const N: usize, const W: usize> Logic for EventSelect<N, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, locked, held);
        clock!(self, clock, arbiter);
        self.arbiter.reset.next = self.reset.val();
        self.arbiter.tail.next = false;
        // While locked only the held requester is shown to the round robin, so that `finish`
        // moves its pointer past that one.
        self.valid_bits[0].next = 0.into();
        for i in 0..N {
            self.valid_bits[i + 1].next = self.valid_bits[i]
                .val()
                .replace_bit(i, self.requests[i].valid.val());
        }
        for i in N..(N + 1) {
            self.arbiter.requests.next = self.valid_bits[i].val();
        }
        if self.locked.q.val() {
            self.arbiter.requests.next = self.one_requester.val() << self.held.q.val();
        }
        self.arbiter.advance.next = self.finish.val();
        self.index.next = self.arbiter.grant_index.val();
        self.arbiter_unused.next = self.arbiter.grant.val().any() | self.arbiter.valid.val();
        if self.locked.q.val() {
            self.index.next = self.held.q.val();
        }
        // Show the chosen request; its requester alone sees `ready`.
        self.chosen.valid.next = false;
        self.chosen.function.next = 0.into();
        self.chosen.qp.next = 0.into();
        self.chosen.receive_ring.next = false;
        self.chosen.kind.next = 0.into();
        self.chosen.status.next = 0.into();
        self.chosen.op.next = 0.into();
        self.chosen.peer_node.next = 0.into();
        self.chosen.peer_function.next = 0.into();
        self.chosen.peer_qp.next = 0.into();
        self.chosen.length.next = 0.into();
        self.chosen.info.next = 0.into();
        for i in 0..N {
            self.requests[i].ready.next = false;
            if self.index.val() == self.indices[i].val() {
                self.requests[i].ready.next = self.chosen.ready.val() & !self.reset.val();
                self.chosen.valid.next = self.requests[i].valid.val();
                self.chosen.function.next = self.requests[i].function.val();
                self.chosen.qp.next = self.requests[i].qp.val();
                self.chosen.receive_ring.next = self.requests[i].receive_ring.val();
                self.chosen.kind.next = self.requests[i].kind.val();
                self.chosen.status.next = self.requests[i].status.val();
                self.chosen.op.next = self.requests[i].op.val();
                self.chosen.peer_node.next = self.requests[i].peer_node.val();
                self.chosen.peer_function.next = self.requests[i].peer_function.val();
                self.chosen.peer_qp.next = self.requests[i].peer_qp.val();
                self.chosen.length.next = self.requests[i].length.val();
                self.chosen.info.next = self.requests[i].info.val();
            }
        }
        // Lock and finish.
        if self.lock.val() {
            self.locked.d.next = true;
            self.held.d.next = self.index.val();
        }
        if self.finish.val() {
            self.locked.d.next = false;
        }
        if self.reset.val() {
            self.locked.d.next = false;
        }
    }
}

#[test]
fn event_select_is_synthesizable() {
    let mut uut = EventSelect::<3, 2>::default();
    uut.connect_all();
    yosys_validate("event_select", &generate_verilog(&uut)).unwrap();
}
