//! Slot pool: lends the [`PacketStore`](super::PacketStore)'s slots to the requests the agent
//! holds, so the unpacker can write a new request while earlier ones are still being answered
//! and sent, and never writes a slot a request still needs.
//!
//! Ports: `clock`, `reset` (synchronous: every slot free; the whole agent resets with it, so
//! no request survives to use one), `lease` (to the unpacker: [`SlotLender`]) and `sent` (the
//! packer took a response ticket: its request's slot is free again).
//!
//! A slot is **claimed** on the edge where the unpacker takes a packet's first flit
//! (`lease.claim`): it takes `lease.free_slot`, offered only while `lease.available`. It is
//! **given back** either by the unpacker, on the edge after it dropped the packet (malformed or
//! wrong ID: `lease.give_back` with the slot in `lease.returned`), or, for a request it handed
//! on, when the response to it leaves: `sent.done` with the slot in `sent.slot` (the packer
//! takes a response ticket with the tail of its packet; fault reports hold no slot and are not
//! given). A slot is given back only by the holder of the request in it, so a slot claimed and
//! a slot given back on the same edge are different slots, and both apply.
//!
//! Choice: the highest-numbered free slot (any would do; this is the cheapest priority
//! encoder). Timing: `free_slot` and `available` come from the busy register alone (no path
//! from an input), so the unpacker's head-flit `ready` does not wait on the packer. A slot given
//! back on an edge can be claimed on the next.
//!
//! Storage: [`STORE_SLOTS`] flip-flops (the busy bits).
use super::constant;
use super::ticket::{SLOT_BITS, STORE_SLOTS};
use rust_hdl::prelude::*;

/// The unpacker's side of the lease: a free slot offered, the claim and the give-back.
#[derive(LogicInterface, Default)]
#[join = "SlotLender"]
pub struct SlotLease {
    /// A slot that holds no request (meaningful while `available`).
    pub free_slot: Signal<In, Bits<SLOT_BITS>>,
    /// Some slot is free.
    pub available: Signal<In, bool>,
    /// `free_slot` is claimed on this edge.
    pub claim: Signal<Out, bool>,
    /// The slot in `returned` is given back on this edge (a dropped packet's).
    pub give_back: Signal<Out, bool>,
    /// The slot given back.
    pub returned: Signal<Out, Bits<SLOT_BITS>>,
}

/// The pool's side of the lease.
#[derive(LogicInterface, Default)]
#[join = "SlotLease"]
pub struct SlotLender {
    /// A slot that holds no request (meaningful while `available`).
    pub free_slot: Signal<Out, Bits<SLOT_BITS>>,
    /// Some slot is free.
    pub available: Signal<Out, bool>,
    /// `free_slot` is claimed on this edge.
    pub claim: Signal<In, bool>,
    /// The slot in `returned` is given back on this edge.
    pub give_back: Signal<In, bool>,
    /// The slot given back.
    pub returned: Signal<In, Bits<SLOT_BITS>>,
}

/// A slot freed because its request's response was sent (driven by the agent from the
/// packer's ticket stream).
#[derive(LogicInterface, Default)]
#[join = "SlotSentSink"]
pub struct SlotSentSource {
    /// The slot in `slot` is free again on this edge.
    pub done: Signal<Out, bool>,
    /// The slot.
    pub slot: Signal<Out, Bits<SLOT_BITS>>,
}

/// The pool's side of [`SlotSentSource`].
#[derive(LogicInterface, Default)]
#[join = "SlotSentSource"]
pub struct SlotSentSink {
    /// The slot in `slot` is free again on this edge.
    pub done: Signal<In, bool>,
    /// The slot.
    pub slot: Signal<In, Bits<SLOT_BITS>>,
}

/// The slot pool; see the module documentation.
#[derive(LogicBlock)]
pub struct SlotPool {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: every slot free.
    pub reset: Signal<In, bool>,
    /// The unpacker's lease.
    pub lease: SlotLender,
    /// Responses sent.
    pub sent: SlotSentSink,
    /// Bit `k`: slot `k` holds a request.
    busy: DFF<Bits<STORE_SLOTS>>,
    /// The slot numbers, as constants for the choice.
    slot_numbers: [Constant<Bits<SLOT_BITS>>; STORE_SLOTS],
    /// A one in bit 0.
    one: Constant<Bits<STORE_SLOTS>>,
    /// Every slot busy.
    all_busy: Constant<Bits<STORE_SLOTS>>,
    /// The busy bits after this edge's claim.
    claimed: Signal<Local, Bits<STORE_SLOTS>>,
    /// The slots given back or sent on this edge.
    freed: Signal<Local, Bits<STORE_SLOTS>>,
}

impl Default for SlotPool {
    fn default() -> Self {
        const {
            assert!(1 << SLOT_BITS == STORE_SLOTS);
        }
        Self {
            clock: Default::default(),
            reset: Default::default(),
            lease: Default::default(),
            sent: Default::default(),
            busy: Default::default(),
            slot_numbers: std::array::from_fn(|k| constant(k as u64)),
            one: constant(1),
            all_busy: constant((1 << STORE_SLOTS) - 1),
            claimed: Default::default(),
            freed: Default::default(),
        }
    }
}

impl Logic for SlotPool {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy);
        // The highest-numbered free slot (the last assignment wins).
        self.lease.free_slot.next = self.slot_numbers[0].val();
        for k in 0..STORE_SLOTS {
            if !self.busy.q.val().get_bit(k) {
                self.lease.free_slot.next = self.slot_numbers[k].val();
            }
        }
        self.lease.available.next = self.busy.q.val() != self.all_busy.val();
        self.claimed.next = self.busy.q.val();
        if self.lease.claim.val() {
            self.claimed.next = self.busy.q.val()
                | (self.one.val()
                    << bit_cast::<STORE_SLOTS, SLOT_BITS>(self.lease.free_slot.val()));
        }
        self.freed.next = 0.into();
        if self.lease.give_back.val() {
            self.freed.next =
                self.one.val() << bit_cast::<STORE_SLOTS, SLOT_BITS>(self.lease.returned.val());
        }
        if self.sent.done.val() {
            self.freed.next = self.freed.val()
                | (self.one.val() << bit_cast::<STORE_SLOTS, SLOT_BITS>(self.sent.slot.val()));
        }
        self.busy.d.next = self.claimed.val() & !self.freed.val();
        if self.reset.val() {
            self.busy.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_pool_is_synthesizable() {
        let mut uut = SlotPool::default();
        uut.connect_all();
        yosys_validate("slot_pool", &generate_verilog(&uut)).unwrap();
    }
}
