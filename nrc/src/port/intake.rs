//! Intake of a router input unit: takes flits from the router channel, checks each VC's
//! packets, and says what to store; the channel's credit return comes from the
//! [`CreditLender`](super::CreditLender) and only passes through here.
//!
//! Every flit is handled in the cycle it arrives (no input register), so that a head that
//! arrives in cycle `c` can be stored on the edge that ends `c` and read in `c + 1`.
//!
//! **Checks**, per VC, with a state of *idle*, *open* (a packet is being stored, `left` flits
//! to come including its tail) or *dropping* (the rest of a bad packet, up to its tail). A
//! flit whose `vc` is out of range, or that comes on a VC with no credit, is dropped and
//! counted (`BAD_VC`, `NO_CREDIT`) and changes nothing else. Otherwise it spends a credit and:
//! - a **head** (well formed): if a packet is open, the head is stored as a TailBadPkt that
//!   closes it (the next hop discards that packet whole: its first flits may already be gone,
//!   this is cut-through) and its own packet is dropped (`HEAD_IN_PACKET`); else, if `len` is
//!   below 2 or above `max_len`, it is dropped with its packet (`BAD_LEN`); else it is stored
//!   and opens a packet of `len` flits;
//! - a **body**: in an open packet, stored, unless it is flit number `len` (where the tail
//!   belongs): then stored as a TailBadPkt, the rest dropped (`TOO_LONG`); while dropping,
//!   dropped; idle, dropped and the rest dropped (`NO_HEAD`, once per headless fragment);
//! - a **tail**: in an open packet, stored if it is flit number `len`, else stored as a
//!   TailBadPkt (`TOO_SHORT`); the VC is idle after it; while dropping, dropped silently (it
//!   ends the drop); idle, dropped (`NO_HEAD`);
//! - any **other** flit (control flits, bad-packet markers, reserved encodings): closes an open
//!   packet as a TailBadPkt stored in its place, or is dropped; the rest is dropped
//!   (`BAD_FLIT`, not counted again while dropping).
//!
//! A head always ends a drop (it is checked as if the VC were idle), so a lost tail costs only
//! its own packet. What is stored on each VC is therefore always whole packets (head, bodies,
//! then a tail or a TailBadPkt) plus the one being received. A TailBadPkt written in place of a
//! flit keeps that flit's low 32 bits in its `orig` field.
//!
//! The decision for one flit is [`PacketCheck`] (combinational); this block holds the per-VC
//! state, picks the flit's VC, and applies the decision only to a flit that spends a credit.
//!
//! **Outputs**: `write` (what to store, same cycle), `spent` and `stored` (one bit per VC, for
//! the credit policy), `events` (one bit per reason of [`super::event`], bits 0..8, a one-cycle
//! pulse in the cycle after the flit). Synchronous `reset` makes every VC idle.
//!
//! Parameters: `VCS` VCs, `VCB` = [`channel_vc_bits`](hdl::channel::channel_vc_bits)`(VCS)`;
//! elaboration value `max_len` (`network.max_packet_flits`, 2..=255).
use super::packet_check::PacketCheck;
use super::VcWriteSource;
use hdl::channel::ChannelSink;
use hdl::flit_decoder::FlitDecoder;
use hdl::formats::{flit, ControlCode, FLIT_BITS};
use rust_hdl::prelude::*;

/// Event bits the intake reports (those of [`super::event`] below `NO_SLOT`).
pub const INTAKE_EVENTS: usize = 8;

/// Packet checks of one input unit.
#[derive(LogicBlock)]
pub struct Intake<const VCS: usize, const VCB: usize> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: every VC idle, no event.
    pub reset: Signal<In, bool>,
    /// Flits in; its `credits` are `credits`.
    pub channel: ChannelSink<VCS, VCB>,
    /// The credits to return, from the credit policy.
    pub credits: Signal<In, Bits<VCS>>,
    /// Bit `v`: VC `v` has a credit left (the credit policy's count).
    pub has_credit: Signal<In, Bits<VCS>>,
    /// What to store, in the cycle the flit arrives.
    pub write: VcWriteSource<VCB>,
    /// Bit `v`: a flit spent a credit of VC `v` in this cycle (stored or dropped).
    pub spent: Signal<Out, Bits<VCS>>,
    /// Bit `v`: a flit joins VC `v`'s queue on this edge (`write.valid` on VC `v`).
    pub stored: Signal<Out, Bits<VCS>>,
    /// Bit `e` ([`super::event`]): the flit of the previous cycle was dropped or rewritten for
    /// reason `e`.
    pub events: Signal<Out, Bits<INTAKE_EVENTS>>,
    decoder: FlitDecoder,
    /// The decision for the flit on its VC.
    check: PacketCheck,
    /// The decoder outputs this block does not read, acknowledged here (Verilator's lint
    /// passes names containing "unused"; nothing reads this, so synthesis removes it).
    unused_decoded: Signal<Local, bool>,
    /// Per VC: a packet is open.
    open: Vec<DFF<bool>>,
    /// Per VC: the rest of a bad packet is being dropped.
    dropping: Vec<DFF<bool>>,
    /// Per VC: flits of the open packet still to come, its tail included.
    left: Vec<DFF<Bits<8>>>,
    event_reg: DFF<Bits<INTAKE_EVENTS>>,
    /// The flit's VC exists.
    vc_ok: Signal<Local, bool>,
    /// Its VC has a credit.
    credit_ok: Signal<Local, bool>,
    /// It spends a credit (is checked).
    take: Signal<Local, bool>,
    /// State of the flit's VC.
    is_open: Signal<Local, bool>,
    is_dropping: Signal<Local, bool>,
    left_now: Signal<Local, Bits<8>>,
    /// The event of this cycle's flit.
    happened: Signal<Local, Bits<INTAKE_EVENTS>>,
    no_event: Constant<Bits<INTAKE_EVENTS>>,
    ev_bad_vc: Constant<Bits<INTAKE_EVENTS>>,
    ev_no_credit: Constant<Bits<INTAKE_EVENTS>>,
    /// A TailBadPkt with an empty `orig` field.
    marker: Constant<Bits<FLIT_BITS>>,
    orig_lsb: Constant<Bits<7>>,
    one: Constant<Bits<8>>,
    no_vcs: Constant<Bits<VCS>>,
}

impl<const VCS: usize, const VCB: usize> Intake<VCS, VCB> {
    /// The checks of `VCS` VCs for packets of up to `max_len` flits.
    pub fn new(max_len: usize) -> Self {
        assert!(
            (1..=8).contains(&VCS),
            "Intake: VCS (virtual channels) must be 1..=8, got {VCS}"
        );
        assert_eq!(
            VCB,
            hdl::channel::channel_vc_bits(VCS),
            "Intake<VCS = {VCS}>: VCB (VC index bits) must be channel_vc_bits(VCS)"
        );
        assert!(
            (2..=255).contains(&max_len),
            "Intake: max_len (network.max_packet_flits) must be 2..=255, got {max_len}"
        );
        assert_eq!(flit::CTRL_ORIG.width, 32, "the marker keeps 32 bits");
        let ev = |e: usize| Constant::new(Bits::<INTAKE_EVENTS>::from(1u64 << e));
        use super::event::*;
        let marker = flit::CODE.set(0, ControlCode::TailBadPkt.code() as u128);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            channel: Default::default(),
            credits: Default::default(),
            has_credit: Default::default(),
            write: Default::default(),
            spent: Default::default(),
            stored: Default::default(),
            events: Default::default(),
            decoder: Default::default(),
            check: PacketCheck::new(max_len),
            unused_decoded: Default::default(),
            open: (0..VCS).map(|_| Default::default()).collect(),
            dropping: (0..VCS).map(|_| Default::default()).collect(),
            left: (0..VCS).map(|_| Default::default()).collect(),
            event_reg: Default::default(),
            vc_ok: Default::default(),
            credit_ok: Default::default(),
            take: Default::default(),
            is_open: Default::default(),
            is_dropping: Default::default(),
            left_now: Default::default(),
            happened: Default::default(),
            no_event: Constant::new(0u64.into()),
            ev_bad_vc: ev(BAD_VC),
            ev_no_credit: ev(NO_CREDIT),
            marker: Constant::new(Bits::<FLIT_BITS>::from(marker as u64)),
            orig_lsb: Constant::new((flit::CTRL_ORIG.lsb as u64).into()),
            one: Constant::new(1u64.into()),
            no_vcs: Constant::new(0u64.into()),
        }
    }
}

impl<const VCS: usize, const VCB: usize> Logic for Intake<VCS, VCB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, event_reg);
        self.decoder.flit.next = self.channel.flit.val();
        self.unused_decoded.next = self.decoder.is_control.val()
            | self.decoder.is_idle.val()
            | self.decoder.is_credit.val()
            | self.decoder.is_bad_marker.val()
            | self.decoder.is_link_transfer.val()
            | self.decoder.code.val().any()
            | self.decoder.dst.val().any()
            | self.decoder.src.val().any()
            | self.decoder.vc.val().any()
            | self.decoder.kind.val().any()
            | self.decoder.delay.val().any()
            | self.decoder.ctrl_vc.val().any()
            | self.decoder.credits.val().any();
        self.channel.credits.next = self.credits.val();
        self.events.next = self.event_reg.q.val();
        // The state of the flit's VC.
        self.vc_ok.next = false;
        self.credit_ok.next = false;
        self.is_open.next = false;
        self.is_dropping.next = false;
        self.left_now.next = self.one.val();
        for v in 0..VCS {
            self.open[v].clock.next = self.clock.val();
            self.open[v].d.next = self.open[v].q.val();
            self.dropping[v].clock.next = self.clock.val();
            self.dropping[v].d.next = self.dropping[v].q.val();
            self.left[v].clock.next = self.clock.val();
            self.left[v].d.next = self.left[v].q.val();
            if self.channel.vc.val().index() == v {
                self.vc_ok.next = true;
                self.credit_ok.next = self.has_credit.val().get_bit(v);
                self.is_open.next = self.open[v].q.val();
                self.is_dropping.next = self.dropping[v].q.val();
                self.left_now.next = self.left[v].q.val();
            }
        }
        self.take.next = self.channel.valid.val() & self.vc_ok.val() & self.credit_ok.val();
        // The decision for the flit on its VC.
        self.check.head.next = self.decoder.is_head.val() & !self.decoder.malformed.val();
        self.check.body.next = self.decoder.is_body.val();
        self.check.tail.next = self.decoder.is_tail.val();
        self.check.len.next = self.decoder.len.val();
        self.check.open.next = self.is_open.val();
        self.check.dropping.next = self.is_dropping.val();
        self.check.left.next = self.left_now.val();
        // What is stored: the flit, or a TailBadPkt keeping its low bits.
        self.write.valid.next = self.take.val() & (self.check.keep.val() | self.check.mark.val());
        self.write.vc.next = self.channel.vc.val();
        self.write.flit.next = self.channel.flit.val();
        if self.check.mark.val() {
            self.write.flit.next = self.marker.val()
                | (bit_cast::<FLIT_BITS, 32>(
                    self.channel
                        .flit
                        .val()
                        .get_bits::<32>(self.orig_lsb.val().index()),
                ) << self.orig_lsb.val());
        }
        self.happened.next = self.no_event.val();
        if self.channel.valid.val() {
            if !self.vc_ok.val() {
                self.happened.next = self.ev_bad_vc.val();
            } else if !self.credit_ok.val() {
                self.happened.next = self.ev_no_credit.val();
            } else {
                self.happened.next = self.check.reason.val();
            }
        }
        self.event_reg.d.next = self.happened.val();
        self.spent.next = self.no_vcs.val();
        self.stored.next = self.no_vcs.val();
        for v in 0..VCS {
            if self.channel.vc.val().index() == v {
                self.spent.next = self.no_vcs.val().replace_bit(v, self.take.val());
                self.stored.next = self.no_vcs.val().replace_bit(v, self.write.valid.val());
                if self.take.val() {
                    self.open[v].d.next = self.check.next_open.val();
                    self.dropping[v].d.next = self.check.next_dropping.val();
                    self.left[v].d.next = self.check.next_left.val();
                }
            }
            if self.reset.val() {
                self.open[v].d.next = false;
                self.dropping[v].d.next = false;
            }
        }
        if self.reset.val() {
            self.event_reg.d.next = self.no_event.val();
        }
    }
}

#[test]
fn intake_is_synthesizable() {
    let mut uut = Intake::<3, 2>::new(8);
    uut.connect_all();
    yosys_validate("intake", &generate_verilog(&uut)).unwrap();
}
