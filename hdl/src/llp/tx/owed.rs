//! The credits [`TxLink`](super::TxLink) owes the far end: per VC, the slots our receive
//! buffers freed (`freed`) not yet returned, and the `CrdtRet` flit that returns them.
//!
//! A VC owed at least a quarter of its buffer (`vc_buffer / 4`) is urgent: its `CrdtRet` goes
//! before data (a far end starved of credits stalls the link); the first urgent VC is offered,
//! else the first VC owed anything. The `CrdtRet` carries everything the VC is owed; when the
//! builder takes the slot the count restarts from this cycle's `freed`.
//!
//! **Sideband.** The LTP being built returns credits in its trailer's two sideband bits too
//! (`ltp::sideband_vc`, `ltp::sideband_code`): VC `next_seq mod P` (`P` the power of two at or
//! above the VC count; none when that is no VC) gets the largest code whose credits (0, 4, 8,
//! 16) it is owed, taken when the builder writes the LTP's last flit (`sideband_slot`), so a
//! busy link returns most credits without CrdtRet slots. When the `CrdtRet` slot takes the
//! same VC in that cycle, the sideband returns nothing (the flit carries all).
//!
//! `restart` sets each VC's count to `rx_free` (our free slots now, which already count this
//! cycle's `freed`): a fresh far end gets our whole free buffer. Reset sets it to `vc_buffer`:
//! our buffers are empty after our reset, and the far end gets all of them whether it
//! restarts too or resumes. Combinational offer ([`OwedSource`]), registered counts.
use super::{flit_constant, OwedSource, SlotSink};
use crate::formats::flit::{CODE, CTRL_CREDITS, CTRL_VC};
use crate::formats::{ControlCode, FLIT_BITS};
use crate::llp::ltp::{sideband_credits, sideband_vc_mask};
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
    /// The sequence number of the LTP being built (its sideband's VC).
    pub next_seq: Signal<In, Bits<16>>,
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
    /// `P - 1`: the sequence number's bits that name the sideband's VC.
    sideband_vc_mask: Constant<Bits<16>>,
    sequence_numbers: Vec<Constant<Bits<16>>>,
    /// The credits of sideband codes 1, 2 and 3.
    code_credits: Vec<Constant<Bits<CW>>>,
    /// The owed count of the sideband's VC (zero when it names none).
    sideband_owed: Signal<Local, Bits<CW>>,
    sideband_vc: Signal<Local, Bits<16>>,
    /// The sideband's VC is the one the `CrdtRet` slot takes now.
    sideband_clash: Signal<Local, bool>,
    sideband_code: Signal<Local, Bits<2>>,
    sideband_amount: Signal<Local, Bits<CW>>,
    codes: Vec<Constant<Bits<2>>>,
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
            next_seq: Default::default(),
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
            sideband_vc_mask: Constant::new(sideband_vc_mask(vcs).into()),
            sequence_numbers: (0..vcs).map(|v| Constant::new((v as u64).into())).collect(),
            code_credits: (1..4)
                .map(|c| Constant::new((sideband_credits(c) as u64).into()))
                .collect(),
            sideband_owed: Default::default(),
            sideband_vc: Default::default(),
            sideband_clash: Default::default(),
            sideband_code: Default::default(),
            sideband_amount: Default::default(),
            codes: (1..4).map(|c| Constant::new((c as u64).into())).collect(),
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

        // The sideband of the LTP being built (module doc).
        self.sideband_vc.next = self.next_seq.val() & self.sideband_vc_mask.val();
        self.sideband_owed.next = 0.into();
        self.sideband_clash.next = false;
        for v in 0..self.owed.len() {
            if self.sideband_vc.val() == self.sequence_numbers[v].val() {
                self.sideband_owed.next = self.owed[v].q.val();
                self.sideband_clash.next =
                    self.slots.credit_slot.val() & (self.credit_vc.val() == self.numbers[v].val());
            }
        }
        self.sideband_code.next = 0.into();
        self.sideband_amount.next = 0.into();
        if !self.sideband_clash.val() {
            for c in 0..3 {
                if self.sideband_owed.val() >= self.code_credits[c].val() {
                    self.sideband_code.next = self.codes[c].val();
                    self.sideband_amount.next = self.code_credits[c].val();
                }
            }
        }
        self.out.sideband.next = self.sideband_code.val();

        for v in 0..self.owed.len() {
            self.owed[v].d.next = self.owed[v].q.val() + self.freed[v].val();
            if self.slots.sideband_slot.val()
                & (self.sideband_vc.val() == self.sequence_numbers[v].val())
            {
                self.owed[v].d.next =
                    self.owed[v].q.val() + self.freed[v].val() - self.sideband_amount.val();
            }
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
