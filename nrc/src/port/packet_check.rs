//! The packet check of one flit on its VC: from the flit's class (head, body, tail, other), the
//! VC's state (idle, open with `left` flits to come, or dropping) and the head's `len`, what
//! to store (`keep` the flit, or `mark`: a TailBadPkt in its place), the VC's next state and
//! the reason to count. Combinational; the rules are [`Intake`](super::Intake)'s (see its
//! module documentation), which holds the per-VC state and applies the decision only to a flit
//! that spends a credit.
//!
//! Parameter (elaboration value): `max_len` (`network.max_packet_flits`, 2..=255).
use super::intake::INTAKE_EVENTS;
use rust_hdl::prelude::*;

/// The decision of the packet check for one flit; see the module documentation.
#[derive(LogicBlock)]
pub struct PacketCheck {
    /// The flit is a well-formed head.
    pub head: Signal<In, bool>,
    /// The flit is a body flit.
    pub body: Signal<In, bool>,
    /// The flit is a tail flit.
    pub tail: Signal<In, bool>,
    /// The head's `len` (meaningful for heads).
    pub len: Signal<In, Bits<8>>,
    /// A packet is open on the flit's VC.
    pub open: Signal<In, bool>,
    /// The rest of a bad packet is being dropped on the flit's VC.
    pub dropping: Signal<In, bool>,
    /// Flits of the open packet still to come, its tail included.
    pub left: Signal<In, Bits<8>>,
    /// Store the flit as it is.
    pub keep: Signal<Out, bool>,
    /// Store a TailBadPkt in its place.
    pub mark: Signal<Out, bool>,
    /// The VC's next state: a packet open.
    pub next_open: Signal<Out, bool>,
    /// The VC's next state: dropping.
    pub next_dropping: Signal<Out, bool>,
    /// The VC's next count of flits to come.
    pub next_left: Signal<Out, Bits<8>>,
    /// The event to count (one bit of [`super::event`], or none).
    pub reason: Signal<Out, Bits<INTAKE_EVENTS>>,
    /// Any other flit (control, bad-packet marker, malformed, reserved encodings).
    other: Signal<Local, bool>,
    /// The head's `len` is in 2..=`max_len`.
    len_ok: Signal<Local, bool>,
    /// The flit is number `len` of the open packet.
    last: Signal<Local, bool>,
    no_event: Constant<Bits<INTAKE_EVENTS>>,
    ev_bad_len: Constant<Bits<INTAKE_EVENTS>>,
    ev_head_in_packet: Constant<Bits<INTAKE_EVENTS>>,
    ev_too_long: Constant<Bits<INTAKE_EVENTS>>,
    ev_too_short: Constant<Bits<INTAKE_EVENTS>>,
    ev_no_head: Constant<Bits<INTAKE_EVENTS>>,
    ev_bad_flit: Constant<Bits<INTAKE_EVENTS>>,
    one: Constant<Bits<8>>,
    two: Constant<Bits<8>>,
    max_len: Constant<Bits<8>>,
}

impl PacketCheck {
    /// The check for packets of up to `max_len` flits (the caller checks the range).
    pub fn new(max_len: usize) -> Self {
        let ev = |e: usize| Constant::new(Bits::<INTAKE_EVENTS>::from(1u64 << e));
        use super::event::*;
        Self {
            head: Default::default(),
            body: Default::default(),
            tail: Default::default(),
            len: Default::default(),
            open: Default::default(),
            dropping: Default::default(),
            left: Default::default(),
            keep: Default::default(),
            mark: Default::default(),
            next_open: Default::default(),
            next_dropping: Default::default(),
            next_left: Default::default(),
            reason: Default::default(),
            other: Default::default(),
            len_ok: Default::default(),
            last: Default::default(),
            no_event: Constant::new(0u64.into()),
            ev_bad_len: ev(BAD_LEN),
            ev_head_in_packet: ev(HEAD_IN_PACKET),
            ev_too_long: ev(TOO_LONG),
            ev_too_short: ev(TOO_SHORT),
            ev_no_head: ev(NO_HEAD),
            ev_bad_flit: ev(BAD_FLIT),
            one: Constant::new(1u64.into()),
            two: Constant::new(2u64.into()),
            max_len: Constant::new((max_len as u64).into()),
        }
    }
}

impl Logic for PacketCheck {
    #[hdl_gen]
    fn update(&mut self) {
        self.other.next = !(self.head.val() | self.body.val() | self.tail.val());
        self.len_ok.next =
            (self.len.val() >= self.two.val()) & (self.len.val() <= self.max_len.val());
        self.last.next = self.left.val() == self.one.val();
        self.keep.next = false;
        self.mark.next = false;
        self.next_open.next = self.open.val();
        self.next_dropping.next = self.dropping.val();
        self.next_left.next = self.left.val() - 1;
        self.reason.next = self.no_event.val();
        if self.head.val() {
            self.next_open.next = false;
            self.next_dropping.next = true;
            if self.open.val() {
                self.mark.next = true;
                self.reason.next = self.ev_head_in_packet.val();
            } else if !self.len_ok.val() {
                self.reason.next = self.ev_bad_len.val();
            } else {
                self.keep.next = true;
                self.next_open.next = true;
                self.next_dropping.next = false;
                self.next_left.next = self.len.val() - 1;
            }
        }
        if self.body.val() {
            if self.open.val() {
                if self.last.val() {
                    self.mark.next = true;
                    self.reason.next = self.ev_too_long.val();
                    self.next_open.next = false;
                    self.next_dropping.next = true;
                } else {
                    self.keep.next = true;
                }
            } else if !self.dropping.val() {
                self.reason.next = self.ev_no_head.val();
                self.next_dropping.next = true;
            }
        }
        if self.tail.val() {
            if self.open.val() {
                if self.last.val() {
                    self.keep.next = true;
                } else {
                    self.mark.next = true;
                    self.reason.next = self.ev_too_short.val();
                }
            } else if !self.dropping.val() {
                self.reason.next = self.ev_no_head.val();
            }
            self.next_open.next = false;
            self.next_dropping.next = false;
        }
        if self.other.val() {
            self.mark.next = self.open.val();
            if !self.dropping.val() {
                self.reason.next = self.ev_bad_flit.val();
            }
            self.next_open.next = false;
            self.next_dropping.next = true;
        }
    }
}

#[test]
fn packet_check_is_synthesizable() {
    let mut uut = PacketCheck::new(8);
    uut.connect_all();
    yosys_validate("packet_check", &generate_verilog(&uut)).unwrap();
}
