//! `EventSelect`: round robin over the event writer's three requesters (send engine, receive
//! engine, the fetch's errors), presenting one request at a time on `chosen` without taking it:
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
//! Latency: combinational from the inputs to `chosen`. Reset (synchronous): unlocked, sends
//! first.
use super::{EventRequestSink, EventRequestSource};
use hdl::arb::RrArbiter;
use rust_hdl::prelude::*;

/// The requesters' round robin; see the module documentation.
#[derive(LogicBlock)]
pub struct EventSelect {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The send engine's events.
    pub sends: EventRequestSink,
    /// The receive engine's events.
    pub receives: EventRequestSink,
    /// The fetch's error events.
    pub errors: EventRequestSink,
    /// The request shown to the writer.
    pub chosen: EventRequestSource,
    /// The writer starts on the request shown: keep it.
    pub lock: Signal<In, bool>,
    /// The writer is done with the request shown (taken or passed over).
    pub finish: Signal<In, bool>,
    /// The round robin over the requesters (0 sends, 1 receives, 2 errors).
    arbiter: RrArbiter<3, 2>,
    locked: DFF<bool>,
    /// The requester locked.
    held: DFF<Bits<2>>,
    /// The requester shown in this cycle.
    index: Signal<Local, Bits<2>>,
    /// Requester 0's request bit.
    one_requester: Constant<Bits<3>>,
    /// The arbiter's one-hot grant and `valid` repeat what `index` and the chosen requester's
    /// `valid` say: acknowledged unused for Verilator's lint.
    arbiter_unused: Signal<Local, bool>,
}

impl Default for EventSelect {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sends: Default::default(),
            receives: Default::default(),
            errors: Default::default(),
            chosen: Default::default(),
            lock: Default::default(),
            finish: Default::default(),
            arbiter: RrArbiter::new(false),
            locked: Default::default(),
            held: Default::default(),
            index: Default::default(),
            one_requester: Constant::new(1usize.to_bits()),
            arbiter_unused: Default::default(),
        }
    }
}

impl Logic for EventSelect {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, locked, held);
        clock!(self, clock, arbiter);
        self.arbiter.reset.next = self.reset.val();
        self.arbiter.tail.next = false;
        // While locked only the held requester is shown to the round robin, so that `finish`
        // moves its pointer past that one.
        self.arbiter.requests.next = bit_cast::<3, 1>(self.sends.valid.val().into())
            | (bit_cast::<3, 1>(self.receives.valid.val().into()) << 1)
            | (bit_cast::<3, 1>(self.errors.valid.val().into()) << 2);
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
        self.sends.ready.next = false;
        self.receives.ready.next = false;
        self.errors.ready.next = false;
        self.chosen.valid.next = self.sends.valid.val();
        self.chosen.function.next = self.sends.function.val();
        self.chosen.qp.next = self.sends.qp.val();
        self.chosen.receive_ring.next = self.sends.receive_ring.val();
        self.chosen.kind.next = self.sends.kind.val();
        self.chosen.status.next = self.sends.status.val();
        self.chosen.op.next = self.sends.op.val();
        self.chosen.peer_node.next = self.sends.peer_node.val();
        self.chosen.peer_function.next = self.sends.peer_function.val();
        self.chosen.peer_qp.next = self.sends.peer_qp.val();
        self.chosen.length.next = self.sends.length.val();
        self.chosen.info.next = self.sends.info.val();
        if self.index.val() == 0 {
            self.sends.ready.next = self.chosen.ready.val();
        }
        if self.index.val() == 1 {
            self.receives.ready.next = self.chosen.ready.val();
            self.chosen.valid.next = self.receives.valid.val();
            self.chosen.function.next = self.receives.function.val();
            self.chosen.qp.next = self.receives.qp.val();
            self.chosen.receive_ring.next = self.receives.receive_ring.val();
            self.chosen.kind.next = self.receives.kind.val();
            self.chosen.status.next = self.receives.status.val();
            self.chosen.op.next = self.receives.op.val();
            self.chosen.peer_node.next = self.receives.peer_node.val();
            self.chosen.peer_function.next = self.receives.peer_function.val();
            self.chosen.peer_qp.next = self.receives.peer_qp.val();
            self.chosen.length.next = self.receives.length.val();
            self.chosen.info.next = self.receives.info.val();
        }
        if self.index.val() == 2 {
            self.errors.ready.next = self.chosen.ready.val();
            self.chosen.valid.next = self.errors.valid.val();
            self.chosen.function.next = self.errors.function.val();
            self.chosen.qp.next = self.errors.qp.val();
            self.chosen.receive_ring.next = self.errors.receive_ring.val();
            self.chosen.kind.next = self.errors.kind.val();
            self.chosen.status.next = self.errors.status.val();
            self.chosen.op.next = self.errors.op.val();
            self.chosen.peer_node.next = self.errors.peer_node.val();
            self.chosen.peer_function.next = self.errors.peer_function.val();
            self.chosen.peer_qp.next = self.errors.peer_qp.val();
            self.chosen.length.next = self.errors.length.val();
            self.chosen.info.next = self.errors.info.val();
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
            self.sends.ready.next = false;
            self.receives.ready.next = false;
            self.errors.ready.next = false;
        }
    }
}

#[test]
fn event_select_is_synthesizable() {
    let mut uut = EventSelect::default();
    uut.connect_all();
    yosys_validate("event_select", &generate_verilog(&uut)).unwrap();
}
