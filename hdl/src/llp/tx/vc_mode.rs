//! The VC mode in force for [`TxArbiter`](super::arbiter::TxArbiter) (its module doc, "A change
//! of the VC mode"): `interleave` is a register management writes at any cycle, but a fall to
//! whole packets may take effect only once every packet whose head went while interleaving has
//! sent its end, or such a packet, short of credits, would hold the link.
//!
//! `in_force` (registered) rises with `interleave` at once and falls once no such packet is
//! open (`open`, one bit per VC, set by a head popped while `admit_any`, cleared by the pop of
//! a packet's end). `admit_any` = `in_force & interleave`: heads go without their whole
//! packet's credits only while interleaving is in force and still asked for. Reset: `in_force`
//! follows `interleave`, nothing open. Kept across RESTARTs, as the packet holding the link is.
use rust_hdl::prelude::*;

/// Tracks the VC mode in force.
#[derive(LogicBlock, Default)]
pub struct TxVcMode {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The mode asked for: 1 interleave, 0 whole packets.
    pub interleave: Signal<In, bool>,
    /// The data slot pops a flit of VC `vc` this cycle.
    pub pop: Signal<In, bool>,
    /// That flit is a head.
    pub head: Signal<In, bool>,
    /// That flit ends its packet.
    pub ends_packet: Signal<In, bool>,
    /// The popped flit's VC.
    pub vc: Signal<In, Bits<3>>,
    /// Interleaving is in force (registered).
    pub in_force: Signal<Out, bool>,
    /// Heads go without their whole packet's credits.
    pub admit_any: Signal<Out, bool>,
    interleaving: DFF<bool>,
    open: DFF<Bits<8>>,
    /// `open` after this cycle's pop.
    open_now: Signal<Local, Bits<8>>,
}

impl Logic for TxVcMode {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, interleaving, open);
        self.in_force.next = self.interleaving.q.val();
        self.admit_any.next = self.interleaving.q.val() & self.interleave.val();
        self.open_now.next = self.open.q.val();
        if self.pop.val() & self.head.val() & self.admit_any.val() {
            self.open_now.next = self.open_now.val().replace_bit(self.vc.val().index(), true);
        }
        if self.pop.val() & self.ends_packet.val() {
            self.open_now.next = self
                .open_now
                .val()
                .replace_bit(self.vc.val().index(), false);
        }
        self.open.d.next = self.open_now.val();
        if self.interleave.val() {
            self.interleaving.d.next = true;
        } else if !self.open_now.val().any() {
            self.interleaving.d.next = false;
        }
        if self.reset.val() {
            self.interleaving.d.next = self.interleave.val();
            self.open.d.next = 0.into();
        }
    }
}
