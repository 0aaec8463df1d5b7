//! `EventSelect`: round robin over the event writer's three requesters (send engine, receive
//! engine, the fetch's errors), presenting one request at a time on `chosen` without taking it:
//! the writer looks at it (its QP lookup) and then takes it (`chosen.ready`) or passes it over.
//!
//! **Choice.** While not `locked`, `chosen` is the first requester with `valid` after the last
//! one served, in the order sends, receives, errors. `lock` (the writer starts on the request
//! shown) freezes the choice from the next cycle; `finish` (the writer took the request or
//! passed it over) unfreezes it and makes that requester the last served, so the others come
//! first next time: a request whose ring is full is passed over and tried again only after
//! every other requester had its turn, and it stays with its requester meanwhile.
//! `chosen.ready` is routed to the chosen requester only.
//!
//! Latency: combinational from the inputs to `chosen`. Reset (synchronous): unlocked, sends
//! first.
use super::{EventRequestSink, EventRequestSource};
use rust_hdl::prelude::*;

/// The requesters' round robin; see the module documentation.
#[derive(LogicBlock, Default)]
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
    locked: DFF<bool>,
    /// The requester locked (0 sends, 1 receives, 2 errors).
    held: DFF<Bits<2>>,
    /// The requester served or passed over last.
    last: DFF<Bits<2>>,
    /// The requester shown in this cycle.
    index: Signal<Local, Bits<2>>,
}

impl Logic for EventSelect {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, locked, held, last);
        // The first valid requester after `last` (sends, receives, errors, cyclically).
        self.index.next = self.last.q.val();
        if self.last.q.val() == 0 {
            if self.errors.valid.val() {
                self.index.next = 2.into();
            }
            if self.receives.valid.val() {
                self.index.next = 1.into();
            }
        } else if self.last.q.val() == 1 {
            if self.receives.valid.val() {
                self.index.next = 1.into();
            }
            if self.sends.valid.val() {
                self.index.next = 0.into();
            }
            if self.errors.valid.val() {
                self.index.next = 2.into();
            }
        } else {
            if self.errors.valid.val() {
                self.index.next = 2.into();
            }
            if self.receives.valid.val() {
                self.index.next = 1.into();
            }
            if self.sends.valid.val() {
                self.index.next = 0.into();
            }
        }
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
            self.last.d.next = self.index.val();
        }
        if self.reset.val() {
            self.locked.d.next = false;
            self.last.d.next = 2.into();
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
