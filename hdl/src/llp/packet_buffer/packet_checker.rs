//! Packet checker: the second stage of a [`PacketBuffer`](super::PacketBuffer). Takes one
//! classified flit per cycle from the [`PacketIntake`](super::packet_intake::PacketIntake),
//! keeps the state of the open packet (its length so far, its `len`, the discard state) and
//! tells the [`CommitStore`](crate::llp::commit_store::CommitStore) what to do with the flit:
//! store it, commit the packet (a good tail, `commit_with_write`), roll it back (a dirty
//! packet). The rules are the packet buffer's (its module documentation, "Flit classes").
//!
//! Outputs besides the store's commands: `retire` (this cycle's flit is dropped without being
//! stored: its credit returns) and `drops`, registered: bit `r - 1` pulses for one cycle, the
//! cycle after the flit's, when a packet (or flit) is dropped for reason `r` (`REASON_*`).
//! A head that ends an open packet and is itself dropped sets two bits (missing tail and its
//! own reason): two drops, both kept.
//!
//! Synchronous `reset`: no packet open, no discard, no drop pulse after it.
//!
//! Elaboration value `max_len` (2..=255): the longest packet accepted, in flits.
use super::packet_intake::ClassifiedFlitSink;
use super::{
    drop_bit, DROP_BITS, REASON_BAD, REASON_MISSING_HEAD, REASON_MISSING_TAIL, REASON_OVERRUN,
    REASON_TOO_LONG, REASON_TOO_SHORT,
};
use crate::llp::commit_store::StoreWriteSource;
use rust_hdl::prelude::*;

/// The dirty-packet rules of a packet buffer.
#[derive(LogicBlock)]
pub struct PacketChecker {
    /// Clock of the packet state.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: no packet open, no discard.
    pub reset: Signal<In, bool>,
    /// This cycle's flit, classified.
    pub flit: ClassifiedFlitSink,
    /// Writes, commits and rollbacks of the store.
    pub store: StoreWriteSource,
    /// This cycle's flit is dropped without being stored (its credit returns).
    pub retire: Signal<Out, bool>,
    /// Registered drop events: bit `r - 1` for reason `r`.
    pub drops: Signal<Out, Bits<DROP_BITS>>,
    /// A packet is open (its head stored, its tail not yet).
    open: DFF<bool>,
    /// Discarding the rest of a dirty packet, up to its tail.
    skip: DFF<bool>,
    /// Flits stored of the open packet.
    stored: DFF<Bits<8>>,
    /// The open packet's `len` and `len - 1`.
    len: DFF<Bits<8>>,
    len_less_one: DFF<Bits<8>>,
    /// Length checks of the open packet's next flit, registered (timing): it would exceed
    /// `min(len, max_len)`; as a tail it would end the packet before `len`.
    at_len: DFF<bool>,
    early: DFF<bool>,
    drops_held: DFF<Bits<DROP_BITS>>,
    /// The store's full test for this flit (a head after a rollback of the open packet).
    full: Signal<Local, bool>,
    stored_next: Signal<Local, Bits<8>>,
    dropping: Signal<Local, Bits<DROP_BITS>>,
    one: Constant<Bits<8>>,
    max_len: Constant<Bits<8>>,
    missing_head: Constant<Bits<DROP_BITS>>,
    missing_tail: Constant<Bits<DROP_BITS>>,
    too_long: Constant<Bits<DROP_BITS>>,
    too_short: Constant<Bits<DROP_BITS>>,
    bad: Constant<Bits<DROP_BITS>>,
    overrun: Constant<Bits<DROP_BITS>>,
}

impl PacketChecker {
    /// A checker accepting packets of up to `max_len` flits (2..=255; the packet buffer
    /// checks it against its depth).
    pub fn new(max_len: usize) -> Self {
        assert!(
            (2..=255).contains(&max_len),
            "PacketChecker: max_len is {max_len}; it must be in 2..=255"
        );
        let bit = |r: u8| Constant::new((1u64 << drop_bit(r)).to_bits());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            flit: Default::default(),
            store: Default::default(),
            retire: Default::default(),
            drops: Default::default(),
            open: Default::default(),
            skip: Default::default(),
            stored: Default::default(),
            len: Default::default(),
            len_less_one: Default::default(),
            at_len: Default::default(),
            early: Default::default(),
            drops_held: Default::default(),
            full: Default::default(),
            stored_next: Default::default(),
            dropping: Default::default(),
            one: Constant::new(1usize.to_bits()),
            max_len: Constant::new(max_len.to_bits()),
            missing_head: bit(REASON_MISSING_HEAD),
            missing_tail: bit(REASON_MISSING_TAIL),
            too_long: bit(REASON_TOO_LONG),
            too_short: bit(REASON_TOO_SHORT),
            bad: bit(REASON_BAD),
            overrun: bit(REASON_OVERRUN),
        }
    }
}

impl Logic for PacketChecker {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            open,
            skip,
            stored,
            len,
            len_less_one,
            at_len,
            early,
            drops_held
        );
        self.drops.next = self.drops_held.q.val();
        self.store.data.next = self.flit.data.val();
        self.stored_next.next = self.stored.q.val() + self.one.val();
        // A head ends the open packet first, so it is written where that packet began.
        self.full.next = self.store.full.val();
        if self.flit.head.val() & self.open.q.val() {
            self.full.next = self.store.full_after_rollback.val();
        }
        self.store.valid.next = false;
        self.store.commit.next = false;
        self.store.commit_with_write.next = false;
        self.store.rollback.next = false;
        self.retire.next = false;
        self.dropping.next = 0.into();
        if self.flit.valid.val() {
            if self.flit.bad.val() {
                self.retire.next = true;
                if self.skip.q.val() {
                    if self.flit.tail_marker.val() {
                        self.skip.d.next = false;
                    }
                } else {
                    self.dropping.next = self.bad.val();
                    self.store.rollback.next = self.open.q.val();
                    self.open.d.next = false;
                    self.skip.d.next = !self.flit.tail_marker.val();
                }
            } else if self.flit.head.val() {
                if self.open.q.val() {
                    self.store.rollback.next = true;
                    self.dropping.next = self.missing_tail.val();
                }
                self.skip.d.next = false;
                self.open.d.next = false;
                if self.full.val() {
                    self.dropping.next = self.dropping.val() | self.overrun.val();
                    self.skip.d.next = true;
                } else if self.flit.short.val() {
                    self.retire.next = true;
                    self.dropping.next = self.dropping.val() | self.bad.val();
                    self.skip.d.next = true;
                } else {
                    self.store.valid.next = true;
                    self.open.d.next = true;
                    self.stored.d.next = self.one.val();
                    self.len.d.next = self.flit.len.val();
                    self.len_less_one.d.next = self.flit.len_less_one.val();
                    // One flit stored, len >= 2 and max_len >= 2: not at the length yet.
                    self.at_len.d.next = false;
                    self.early.d.next = self.flit.longer_than_two.val();
                }
            } else if self.skip.q.val() {
                // Body or tail of a packet being discarded.
                self.retire.next = true;
                if self.flit.tail.val() {
                    self.skip.d.next = false;
                }
            } else if !self.open.q.val() {
                self.retire.next = true;
                self.dropping.next = self.missing_head.val();
                self.skip.d.next = self.flit.body.val();
            } else if self.full.val() {
                // Body or tail of the open packet from here on: every outcome but storing it
                // drops the packet. A flit that finds no room had no credit: none returns.
                self.dropping.next = self.overrun.val();
                self.store.rollback.next = true;
                self.open.d.next = false;
                self.skip.d.next = self.flit.body.val();
            } else if self.at_len.q.val() {
                self.retire.next = true;
                self.dropping.next = self.too_long.val();
                self.store.rollback.next = true;
                self.open.d.next = false;
                self.skip.d.next = self.flit.body.val();
            } else if self.flit.tail.val() & self.early.q.val() {
                self.retire.next = true;
                self.dropping.next = self.too_short.val();
                self.store.rollback.next = true;
                self.open.d.next = false;
            } else {
                self.store.valid.next = true;
                self.stored.d.next = self.stored_next.val();
                self.at_len.d.next = (self.stored_next.val() >= self.len.q.val())
                    | (self.stored_next.val() >= self.max_len.val());
                self.early.d.next = self.stored_next.val() < self.len_less_one.q.val();
                if self.flit.tail.val() {
                    self.store.commit_with_write.next = true;
                    self.open.d.next = false;
                }
            }
        }
        self.drops_held.d.next = self.dropping.val();

        if self.reset.val() {
            self.open.d.next = false;
            self.skip.d.next = false;
            self.stored.d.next = 0.into();
            self.drops_held.d.next = 0.into();
        }
    }
}

#[test]
fn packet_checker_is_synthesizable() {
    let mut uut = PacketChecker::new(32);
    uut.connect_all();
    yosys_validate("packet_checker", &generate_verilog(&uut)).unwrap();
}
