//! `WriteArbiter`: the receive side's `N` writers (in the NIC 3: PUT upload, NAP upload, the
//! event writer) on the host's one posted-write port, round robin **by whole writes**.
//!
//! A [`RrArbiter`] with hold grants one writer; from the cycle the grant is first offered it
//! stays with that writer until the edge where the host takes its beat with `last`, so the
//! beats of two writes are never interleaved (a write is one PCIe TLP: its beats must be
//! consecutive on the port, `docs/host-interface.md`). In the cycle after that `last` beat the
//! next writer in round-robin order that offers a beat is granted, so writes from different
//! writers follow each other with no idle cycle. Under persistent requests each writer gets one
//! write in `N`.
//!
//! Handshake: every input is a [`WriteBeatSink`] (its writer holds a beat's fields while
//! `valid` until taken); `write` is combinational from the granted input (no latency, no
//! storage), and since the grant cannot move while a beat waits, `write` obeys the hold rule
//! too. `inputs[i].ready` is `write.ready` while `i` holds the grant. A writer may pause
//! between the beats of its write (`valid` low): the grant waits for it and the port idles.
//!
//! Parameters: `N` writers, at least 2 (one writer needs no arbiter: join it to the port);
//! `W` = `ceil(log2(N))`, the arbiter's index width. Latency 0; one beat per cycle.
//!
//! Reset (synchronous): the grant is released and the round robin starts again at writer 0;
//! a write cut by reset is left unfinished on the port (the whole NIC resets with it).
use crate::host::{WriteBeatSink, WriteBeatSource};
use hdl::arb::RrArbiter;
use rust_hdl::prelude::*;

/// `N` writers on one host write port; see the module documentation.
#[derive(LogicBlock)]
pub struct WriteArbiter<const N: usize, const W: usize> {
    /// Clock of the arbiter.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The writers (in the NIC: 0 PUT upload, 1 NAP upload, 2 event writer).
    pub inputs: [WriteBeatSink; N],
    /// To the host.
    pub write: WriteBeatSource,
    /// Round robin, a grant held from a write's first offer to its `last` beat taken.
    arbiter: RrArbiter<N, W>,
    /// The arbiter's binary index (the one-hot grant drives the mux).
    unused_index: Signal<Local, Bits<W>>,
    /// The arbiter's `valid` (the granted writer's own `valid` says whether a beat is offered).
    unused_valid: Signal<Local, bool>,
    /// Bit `i`: writer `i` offers a beat.
    requests_acc: Vec<Signal<Local, Bits<N>>>,
}

impl<const N: usize, const W: usize> WriteArbiter<N, W> {
    /// The arbiter; panics unless `N >= 2` and `W = ceil(log2(N))`.
    pub fn new() -> Self {
        assert!(
            N >= 2,
            "WriteArbiter: N (writers) must be at least 2, got {N}: join a single writer to the port"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            inputs: std::array::from_fn(|_| Default::default()),
            write: Default::default(),
            arbiter: RrArbiter::new(true),
            unused_index: Default::default(),
            unused_valid: Default::default(),
            requests_acc: (0..=N).map(|_| Default::default()).collect(),
        }
    }
}

impl<const N: usize, const W: usize> Default for WriteArbiter<N, W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const W: usize> Logic for WriteArbiter<N, W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.arbiter.clock.next = self.clock.val();
        self.arbiter.reset.next = self.reset.val();
        self.unused_index.next = self.arbiter.grant_index.val();
        self.unused_valid.next = self.arbiter.valid.val();
        self.requests_acc[0].next = 0.into();
        for i in 0..N {
            self.requests_acc[i + 1].next = self.requests_acc[i]
                .val()
                .replace_bit(i, self.inputs[i].valid.val());
        }
        for i in N..(N + 1) {
            self.arbiter.requests.next = self.requests_acc[i].val();
        }
        // The granted writer's beat, else nothing (fields zero so the port shows no stale beat).
        self.write.valid.next = false;
        self.write.function.next = 0.into();
        self.write.address.next = 0.into();
        self.write.data.next = 0.into();
        self.write.enables.next = 0.into();
        self.write.last.next = false;
        for i in 0..N {
            self.inputs[i].ready.next =
                self.arbiter.grant.val().get_bit(i) & self.write.ready.val();
            if self.arbiter.grant.val().get_bit(i) {
                self.write.valid.next = self.inputs[i].valid.val();
                self.write.function.next = self.inputs[i].function.val();
                self.write.address.next = self.inputs[i].address.val();
                self.write.data.next = self.inputs[i].data.val();
                self.write.enables.next = self.inputs[i].enables.val();
                self.write.last.next = self.inputs[i].last.val();
            }
        }
        // The grant moves on only when the host takes the write's last beat.
        self.arbiter.advance.next = self.write.valid.val() & self.write.ready.val();
        self.arbiter.tail.next = self.write.last.val();
    }
}

#[test]
fn write_arbiter_is_synthesizable() {
    let mut uut = WriteArbiter::<3, 2>::new();
    uut.connect_all();
    yosys_validate("write_arbiter", &generate_verilog(&uut)).unwrap();
}

#[test]
#[should_panic(expected = "N (writers) must be at least 2")]
fn write_arbiter_refuses_one_writer() {
    let _ = WriteArbiter::<1, 1>::new();
}
