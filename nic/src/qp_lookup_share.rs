//! `QpLookupShare`: the function table's one QP lookup port shared by `N` requesters (in the
//! NIC: the descriptor fetch, the event writer and the receive engine; inside the receive
//! engine: its receive buffer and its NAP buffer manager).
//!
//! **Requests**: a round robin ([`RrArbiter`], no hold) over the requesters' `valid`; the
//! granted one's function and QP go to the table, and its `ready` is the table's (only the
//! granted requester sees `ready`). Under persistent requests each requester is served once in
//! `N` lookups, so a lookup waits at most `N - 1` others (plus the table's own waits).
//!
//! **Answers**: the table answers the cycle after it took a request; the answer's fields go to
//! every requester, and `answered` only to the one whose request was taken (registered with
//! the take), so each requester sees exactly the answers to its own lookups, one cycle after
//! they were taken, as with the table alone.
//!
//! Latency: none added (request and `ready` combinational through the arbiter's grant; the
//! answer routed by one register). Reset (synchronous): the arbiter's pointer to requester 0,
//! no answer owed. Parameters: `N` requesters (2..), `W` = `ceil(log2(N))`.
use crate::function_table::{QpLookupSink, QpLookupSource};
use hdl::arb::RrArbiter;
use rust_hdl::prelude::*;

/// The shared QP lookup port; see the module documentation.
#[derive(LogicBlock)]
pub struct QpLookupShare<const N: usize, const W: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The requesters' lookups, first served first after reset.
    pub requesters: [QpLookupSink; N],
    /// To the function table.
    pub table: QpLookupSource,
    arbiter: RrArbiter<N, W>,
    /// A request was taken last cycle, and whose.
    asked: DFF<bool>,
    asker: DFF<Bits<W>>,
    /// The requesters' `valid` bits, accumulated: `requests[i + 1]` holds bits `0..=i`.
    requests: Vec<Signal<Local, Bits<N>>>,
    /// Requester indices as constants.
    indices: Vec<Constant<Bits<W>>>,
}

impl<const N: usize, const W: usize> Default for QpLookupShare<N, W> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            requesters: std::array::from_fn(|_| Default::default()),
            table: Default::default(),
            arbiter: RrArbiter::new(false),
            asked: Default::default(),
            asker: Default::default(),
            requests: (0..=N).map(|_| Default::default()).collect(),
            indices: (0..N).map(|i| Constant::new((i as u64).into())).collect(),
        }
    }
}

impl<const N: usize, const W: usize> Logic for QpLookupShare<N, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, asked, asker);
        clock!(self, clock, arbiter);
        self.arbiter.reset.next = self.reset.val();
        self.arbiter.tail.next = false;
        self.requests[0].next = 0.into();
        for i in 0..N {
            self.requests[i + 1].next = self.requests[i]
                .val()
                .replace_bit(i, self.requesters[i].valid.val());
        }
        for i in N..(N + 1) {
            self.arbiter.requests.next = self.requests[i].val();
        }
        // The granted request to the table.
        self.table.valid.next = self.arbiter.valid.val();
        self.table.function.next = 0.into();
        self.table.qp.next = 0.into();
        for i in 0..N {
            if self.arbiter.grant.val().get_bit(i) {
                self.table.function.next = self.requesters[i].function.val();
                self.table.qp.next = self.requesters[i].qp.val();
            }
            self.requesters[i].ready.next =
                self.table.ready.val() & self.arbiter.grant.val().get_bit(i);
        }
        self.arbiter.advance.next = self.arbiter.valid.val() & self.table.ready.val();
        self.asked.d.next = self.arbiter.valid.val() & self.table.ready.val();
        self.asker.d.next = self.arbiter.grant_index.val();
        // The answer: its fields to all, `answered` to the requester whose lookup it is.
        for i in 0..N {
            self.requesters[i].answered.next = self.table.answered.val()
                & self.asked.q.val()
                & (self.asker.q.val() == self.indices[i].val());
            self.requesters[i].owned.next = self.table.owned.val();
            self.requesters[i].function_enabled.next = self.table.function_enabled.val();
            self.requesters[i].qp_enabled.next = self.table.qp_enabled.val();
            self.requesters[i].key.next = self.table.key.val();
            self.requesters[i].interrupt.next = self.table.interrupt.val();
            self.requesters[i].send_base.next = self.table.send_base.val();
            self.requesters[i].send_size.next = self.table.send_size.val();
            self.requesters[i].send_producer.next = self.table.send_producer.val();
            self.requesters[i].send_consumer.next = self.table.send_consumer.val();
            self.requesters[i].receive_base.next = self.table.receive_base.val();
            self.requesters[i].receive_size.next = self.table.receive_size.val();
            self.requesters[i].receive_producer.next = self.table.receive_producer.val();
            self.requesters[i].receive_consumer.next = self.table.receive_consumer.val();
            self.requesters[i].nap_base.next = self.table.nap_base.val();
            self.requesters[i].nap_size.next = self.table.nap_size.val();
            self.requesters[i].nap_producer.next = self.table.nap_producer.val();
            self.requesters[i].nap_consumer.next = self.table.nap_consumer.val();
        }
        if self.reset.val() {
            self.asked.d.next = false;
        }
    }
}

#[test]
fn qp_lookup_share_is_synthesizable() {
    let mut uut = QpLookupShare::<3, 2>::default();
    uut.connect_all();
    yosys_validate("qp_lookup_share", &generate_verilog(&uut)).unwrap();
}
