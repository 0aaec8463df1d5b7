//! `QpLookupShare`: the function table's one QP lookup port shared by the engines that need
//! it: the descriptor fetch (issuing QP), the event writer (the event's ring) and the receive
//! side (the target QP's key and rings).
//!
//! **Requests**: a round robin ([`RrArbiter`], no hold) over the requesters' `valid`; the
//! granted one's function and QP go to the table, and its `ready` is the table's (only the
//! granted requester sees `ready`). Under persistent requests each requester is served once in
//! three lookups, so a lookup waits at most two others (plus the table's own waits).
//!
//! **Answers**: the table answers the cycle after it took a request; the answer's fields go to
//! every requester, and `answered` only to the one whose request was taken (registered with
//! the take), so each requester sees exactly the answers to its own lookups, one cycle after
//! they were taken, as with the table alone.
//!
//! Latency: none added (request and `ready` combinational through the arbiter's grant; the
//! answer routed by one register). Reset (synchronous): the arbiter's pointer to the fetch, no
//! answer owed.
use crate::function_table::{QpLookupSink, QpLookupSource};
use hdl::arb::RrArbiter;
use rust_hdl::prelude::*;

/// The shared QP lookup port; see the module documentation.
#[derive(LogicBlock)]
pub struct QpLookupShare {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The descriptor fetch's lookups (requester 0).
    pub fetch: QpLookupSink,
    /// The event writer's lookups (requester 1).
    pub events: QpLookupSink,
    /// The receive side's lookups (requester 2).
    pub receive: QpLookupSink,
    /// To the function table.
    pub table: QpLookupSource,
    arbiter: RrArbiter<3, 2>,
    /// A request was taken last cycle, and whose.
    asked: DFF<bool>,
    asker: DFF<Bits<2>>,
}

impl Default for QpLookupShare {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            fetch: Default::default(),
            events: Default::default(),
            receive: Default::default(),
            table: Default::default(),
            arbiter: RrArbiter::new(false),
            asked: Default::default(),
            asker: Default::default(),
        }
    }
}

impl Logic for QpLookupShare {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, asked, asker);
        clock!(self, clock, arbiter);
        self.arbiter.reset.next = self.reset.val();
        self.arbiter.tail.next = false;
        self.arbiter.requests.next = bit_cast::<3, 1>(self.fetch.valid.val().into())
            | (bit_cast::<3, 1>(self.events.valid.val().into()) << 1)
            | (bit_cast::<3, 1>(self.receive.valid.val().into()) << 2);
        // The granted request to the table.
        self.table.valid.next = self.arbiter.valid.val();
        self.table.function.next = self.fetch.function.val();
        self.table.qp.next = self.fetch.qp.val();
        if self.arbiter.grant_index.val() == 1 {
            self.table.function.next = self.events.function.val();
            self.table.qp.next = self.events.qp.val();
        }
        if self.arbiter.grant_index.val() == 2 {
            self.table.function.next = self.receive.function.val();
            self.table.qp.next = self.receive.qp.val();
        }
        self.fetch.ready.next = self.table.ready.val() & self.arbiter.grant.val().get_bit(0);
        self.events.ready.next = self.table.ready.val() & self.arbiter.grant.val().get_bit(1);
        self.receive.ready.next = self.table.ready.val() & self.arbiter.grant.val().get_bit(2);
        self.arbiter.advance.next = self.arbiter.valid.val() & self.table.ready.val();
        self.asked.d.next = self.arbiter.valid.val() & self.table.ready.val();
        self.asker.d.next = self.arbiter.grant_index.val();
        // The answer: its fields to all, `answered` to the requester whose lookup it is.
        self.fetch.answered.next =
            self.table.answered.val() & self.asked.q.val() & (self.asker.q.val() == 0);
        self.events.answered.next =
            self.table.answered.val() & self.asked.q.val() & (self.asker.q.val() == 1);
        self.receive.answered.next =
            self.table.answered.val() & self.asked.q.val() & (self.asker.q.val() == 2);
        self.fetch.owned.next = self.table.owned.val();
        self.fetch.function_enabled.next = self.table.function_enabled.val();
        self.fetch.qp_enabled.next = self.table.qp_enabled.val();
        self.fetch.key.next = self.table.key.val();
        self.fetch.interrupt.next = self.table.interrupt.val();
        self.fetch.send_base.next = self.table.send_base.val();
        self.fetch.send_size.next = self.table.send_size.val();
        self.fetch.send_producer.next = self.table.send_producer.val();
        self.fetch.send_consumer.next = self.table.send_consumer.val();
        self.fetch.receive_base.next = self.table.receive_base.val();
        self.fetch.receive_size.next = self.table.receive_size.val();
        self.fetch.receive_producer.next = self.table.receive_producer.val();
        self.fetch.receive_consumer.next = self.table.receive_consumer.val();
        self.fetch.nap_base.next = self.table.nap_base.val();
        self.fetch.nap_size.next = self.table.nap_size.val();
        self.fetch.nap_producer.next = self.table.nap_producer.val();
        self.fetch.nap_consumer.next = self.table.nap_consumer.val();
        self.events.owned.next = self.table.owned.val();
        self.events.function_enabled.next = self.table.function_enabled.val();
        self.events.qp_enabled.next = self.table.qp_enabled.val();
        self.events.key.next = self.table.key.val();
        self.events.interrupt.next = self.table.interrupt.val();
        self.events.send_base.next = self.table.send_base.val();
        self.events.send_size.next = self.table.send_size.val();
        self.events.send_producer.next = self.table.send_producer.val();
        self.events.send_consumer.next = self.table.send_consumer.val();
        self.events.receive_base.next = self.table.receive_base.val();
        self.events.receive_size.next = self.table.receive_size.val();
        self.events.receive_producer.next = self.table.receive_producer.val();
        self.events.receive_consumer.next = self.table.receive_consumer.val();
        self.events.nap_base.next = self.table.nap_base.val();
        self.events.nap_size.next = self.table.nap_size.val();
        self.events.nap_producer.next = self.table.nap_producer.val();
        self.events.nap_consumer.next = self.table.nap_consumer.val();
        self.receive.owned.next = self.table.owned.val();
        self.receive.function_enabled.next = self.table.function_enabled.val();
        self.receive.qp_enabled.next = self.table.qp_enabled.val();
        self.receive.key.next = self.table.key.val();
        self.receive.interrupt.next = self.table.interrupt.val();
        self.receive.send_base.next = self.table.send_base.val();
        self.receive.send_size.next = self.table.send_size.val();
        self.receive.send_producer.next = self.table.send_producer.val();
        self.receive.send_consumer.next = self.table.send_consumer.val();
        self.receive.receive_base.next = self.table.receive_base.val();
        self.receive.receive_size.next = self.table.receive_size.val();
        self.receive.receive_producer.next = self.table.receive_producer.val();
        self.receive.receive_consumer.next = self.table.receive_consumer.val();
        self.receive.nap_base.next = self.table.nap_base.val();
        self.receive.nap_size.next = self.table.nap_size.val();
        self.receive.nap_producer.next = self.table.nap_producer.val();
        self.receive.nap_consumer.next = self.table.nap_consumer.val();
        if self.reset.val() {
            self.asked.d.next = false;
        }
    }
}

#[test]
fn qp_lookup_share_is_synthesizable() {
    let mut uut = QpLookupShare::default();
    uut.connect_all();
    yosys_validate("qp_lookup_share", &generate_verilog(&uut)).unwrap();
}
