//! The credits [`TxLink`](super::TxLink) owes the far end: per VC, the slots our receive
//! buffers freed (`freed`) not yet returned, and the `CrdtRet` flit that returns them.
//!
//! A VC owed at least a quarter of its buffer (`vc_buffer / 4`) is urgent: its `CrdtRet` goes
//! before data (a far end starved of credits stalls the link); the first urgent VC is offered,
//! else the first VC owed anything. The `CrdtRet` carries everything the VC is owed; when the
//! builder takes the slot the count restarts from this cycle's `freed`.
//!
//! `restart` sets each VC's count to `rx_free` (our free slots now, which already count this
//! cycle's `freed`): a fresh far end gets our whole free buffer. Reset sets it to `vc_buffer`:
//! our buffers are empty after our reset, and the far end gets all of them whether it
//! restarts too or resumes. Combinational offer ([`OwedSource`]), registered counts.
use super::{flit_constant, OwedSource, SlotSink};
use crate::formats::flit::{CODE, CTRL_CREDITS, CTRL_VC};
use crate::formats::{ControlCode, FLIT_BITS};
use rust_hdl::prelude::*;

/// Counts the credits owed to the far end and offers their `CrdtRet`.
#[derive(LogicBlock)]
pub struct TxOwedCredits<const CW: usize> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: each VC owed `vc_buffer`.
    pub reset: Signal<In, bool>,
    /// The link comes up with a fresh far end (RESTART).
    pub restart: Signal<In, bool>,
    /// Slots our receive buffers freed, per VC.
    pub freed: Vec<Signal<In, Bits<CW>>>,
    /// Our free slots per VC, not counting this cycle's `freed` (read at a RESTART).
    pub rx_free: Vec<Signal<In, Bits<CW>>>,
    /// Whose offer the builder's slot takes.
    pub slots: SlotSink,
    /// The `CrdtRet` slot's offer, to the builder.
    pub out: OwedSource,
    owed: Vec<DFF<Bits<CW>>>,
    urgent: Constant<Bits<CW>>,
    /// Our receive buffers' depth: the credits owed after our reset.
    own_depth: Constant<Bits<CW>>,
    credit_return: Constant<Bits<FLIT_BITS>>,
    ctrl_vc_lsb: Constant<Bits<8>>,
    credits_lsb: Constant<Bits<8>>,
    numbers: Vec<Constant<Bits<3>>>,
    any_owed: Signal<Local, bool>,
    urgent_found: Signal<Local, bool>,
    urgent_vc: Signal<Local, Bits<3>>,
    first_owed_vc: Signal<Local, Bits<3>>,
    credit_vc: Signal<Local, Bits<3>>,
    amount: Signal<Local, Bits<CW>>,
    /// The bundle fields this stage does not read, acknowledged here (Verilator's lint passes
    /// names containing "unused"; nothing reads this, so synthesis removes it).
    unused_inputs: Signal<Local, bool>,
}

impl<const CW: usize> TxOwedCredits<CW> {
    /// Owed credits of `vcs` VCs whose receive buffers hold `vc_buffer` flits each.
    pub fn new(vcs: usize, vc_buffer: u64) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            restart: Default::default(),
            freed: (0..vcs).map(|_| Default::default()).collect(),
            rx_free: (0..vcs).map(|_| Default::default()).collect(),
            slots: Default::default(),
            out: Default::default(),
            owed: (0..vcs).map(|_| Default::default()).collect(),
            urgent: Constant::new((vc_buffer / 4).into()),
            own_depth: Constant::new(vc_buffer.into()),
            credit_return: flit_constant(CODE.set(0, ControlCode::CrdtRet.code() as u128)),
            ctrl_vc_lsb: Constant::new((CTRL_VC.lsb as u64).into()),
            credits_lsb: Constant::new((CTRL_CREDITS.lsb as u64).into()),
            numbers: (0..8).map(|n| Constant::new((n as u64).into())).collect(),
            any_owed: Default::default(),
            urgent_found: Default::default(),
            urgent_vc: Default::default(),
            first_owed_vc: Default::default(),
            credit_vc: Default::default(),
            amount: Default::default(),
            unused_inputs: Default::default(),
        }
    }
}

impl<const CW: usize> Logic for TxOwedCredits<CW> {
    #[hdl_gen]
    fn update(&mut self) {
        self.unused_inputs.next = self.slots.data_slot.val();
        // The first urgent VC, else the first VC owed anything.
        self.any_owed.next = false;
        self.urgent_found.next = false;
        self.urgent_vc.next = 0.into();
        self.first_owed_vc.next = 0.into();
        for v in 0..self.owed.len() {
            self.owed[v].clock.next = self.clock.val();
            if !self.any_owed.val() & self.owed[v].q.val().any() {
                self.first_owed_vc.next = self.numbers[v].val();
                self.any_owed.next = true;
            }
            if !self.urgent_found.val() & (self.owed[v].q.val() >= self.urgent.val()) {
                self.urgent_vc.next = self.numbers[v].val();
                self.urgent_found.next = true;
            }
        }
        self.credit_vc.next = self.first_owed_vc.val();
        if self.urgent_found.val() {
            self.credit_vc.next = self.urgent_vc.val();
        }
        self.amount.next = 0.into();
        for v in 0..self.owed.len() {
            if self.credit_vc.val() == self.numbers[v].val() {
                self.amount.next = self.owed[v].q.val();
            }
        }
        self.out.any.next = self.any_owed.val();
        self.out.urgent.next = self.urgent_found.val();
        self.out.flit.next = self.credit_return.val()
            | (bit_cast::<FLIT_BITS, 3>(self.credit_vc.val()) << self.ctrl_vc_lsb.val())
            | (bit_cast::<FLIT_BITS, CW>(self.amount.val()) << self.credits_lsb.val());

        for v in 0..self.owed.len() {
            self.owed[v].d.next = self.owed[v].q.val() + self.freed[v].val();
            if self.slots.credit_slot.val() & (self.credit_vc.val() == self.numbers[v].val()) {
                self.owed[v].d.next = self.freed[v].val();
            }
            if self.restart.val() {
                self.owed[v].d.next = self.rx_free[v].val();
            }
            if self.reset.val() {
                self.owed[v].d.next = self.own_depth.val();
            }
        }
    }
}
