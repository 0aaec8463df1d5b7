//! The VC arbiter of [`TxLink`](super::TxLink): which VC's flit takes the builder's data slot,
//! with our credits for the far end's buffers (module doc, "VC arbitration", "Whole-packet
//! admission", "Credits").
//!
//! A VC is eligible when its queue has a flit and it has a credit, or its flit is one the core
//! may not send (dropped: no credit, no slot), and, with `interleave` low, a head only when
//! its VC's available credits cover its LEN (1 for LEN 0, `max_packet` above it), so a VC
//! short of credits never holds the link. The candidate is the VC holding the link (from a
//! head to its tail; with `interleave` high only while it is eligible), else the first
//! eligible VC after the last one served, round robin. The class comes from the queue's
//! flip-flops ([`TxClassifier`](super::TxClassifier)), not from decoding the flit here.
//!
//! The offer ([`CandidateSource`]): a body or tail of a VC other than the link VC (the one the
//! receiver last heard of) needs `VlMrkr(vc)` first, which takes the slot and leaves the flit
//! in its queue; a head names its VC itself (its VC field becomes the queue's index); a
//! dropped flit becomes Idle. When the builder takes the data slot the flit is popped (unless
//! it was the `VlMrkr`), its credit consumed (unless dropped, counted in `core_dropped`).
//!
//! **A change of the VC mode** (`interleave`, a register the chip's management writes at any
//! cycle) takes effect at a packet boundary where it matters. A rise (to interleaving) is safe
//! at once: it only lets a stalled packet's slots carry other VCs' flits. A fall (to whole
//! packets) is not: a packet whose head went while interleaving may hold only part of its
//! credits, and under whole-packet rules it would hold the link until its tail, waiting for
//! credits with every other VC shut out (the deadlock whole-packet admission exists to avoid).
//! So the mode in force (`interleaving`) falls only once every packet whose head went while
//! interleaving has sent its end (`open_interleaved`, one bit per VC). Meanwhile (the fall
//! pending) heads already need their whole packet's credits, so the pending packets are the
//! last ones that may lack credits, and a stalled one never holds the link.
//!
//! `restart` empties the credit counters and makes VC 0 the link VC (what a fresh far end
//! assumes); the queues and the packet holding the link are kept. `credit_error` is sticky
//! until reset, across RESTARTs. Combinational offer, registered state; reset: no credits, no
//! packet holding the link, VC 0 the link VC and last served.
use super::candidate::TxCandidate;
use super::vc_mode::TxVcMode;
use super::{class_bit, flit_constant, CandidateSource, SlotSink};
use super::{Q_BITS, Q_DROP, Q_END, Q_HEAD, Q_LEN};
use crate::credit_counter::CreditCounter;
use crate::formats::flit::{CODE, CTRL_VC};
use crate::formats::header::VC;
use crate::formats::{ControlCode, FLIT_BITS, FLIT_MASK};
use crate::stream::StreamSink;
use rust_hdl::prelude::*;

/// Chooses the VC for the data slot and keeps our credits.
#[derive(LogicBlock)]
pub struct TxArbiter<const CW: usize> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: no credits, no packet holding the link.
    pub reset: Signal<In, bool>,
    /// The link comes up with a fresh far end (RESTART).
    pub restart: Signal<In, bool>,
    /// Per-VC queues of classified flits.
    pub sinks: Vec<StreamSink<Bits<Q_BITS>>>,
    /// Fill a stalled packet's slots with other VCs' flits.
    pub interleave: Signal<In, bool>,
    /// Credits the far end returned, per VC.
    pub got_credits: Vec<Signal<In, Bits<CW>>>,
    /// Whose offer the builder's slot takes.
    pub slots: SlotSink,
    /// The data slot's offer, to the builder.
    pub out: CandidateSource,
    /// Credits available per VC.
    pub credits: Vec<Signal<Out, Bits<CW>>>,
    /// Sticky until reset: a credit counter's error.
    pub credit_error: Signal<Out, bool>,
    /// Flits from the core that were not the core's to send (saturating).
    pub core_dropped: Signal<Out, Bits<16>>,
    counters: Vec<CreditCounter<CW>>,
    /// The VC the receiver last heard of.
    link_vc: DFF<Bits<3>>,
    /// The VC of the last data slot: the packet holding the link.
    lock_vc: DFF<Bits<3>>,
    /// A packet holds the link (a head went, its end not yet).
    locked: DFF<bool>,
    /// The last VC served, for round robin.
    last_served: DFF<Bits<3>>,
    dropped_count: DFF<Bits<16>>,
    /// A credit counter's error, kept across RESTARTs (which reset the counters).
    credit_failed: DFF<bool>,
    /// The VC mode in force (module doc, "A change of the VC mode").
    vc_mode: TxVcMode,
    /// The candidate VC (`candidate`).
    pick: TxCandidate,
    q_drop: Constant<Bits<Q_BITS>>,
    q_head: Constant<Bits<Q_BITS>>,
    q_end: Constant<Bits<Q_BITS>>,
    q_len_lsb: Constant<Bits<8>>,
    max_need: Constant<Bits<8>>,
    vl_marker: Constant<Bits<FLIT_BITS>>,
    vc_clear: Constant<Bits<FLIT_BITS>>,
    vc_lsb: Constant<Bits<8>>,
    ctrl_vc_lsb: Constant<Bits<8>>,
    numbers: Vec<Constant<Bits<3>>>,
    eligible: Signal<Local, Bits<8>>,
    dropping: Signal<Local, Bits<8>>,
    candidate: Signal<Local, Bits<3>>,
    flit: Signal<Local, Bits<Q_BITS>>,
    head: Signal<Local, bool>,
    ends_packet: Signal<Local, bool>,
    dropped: Signal<Local, bool>,
    needs_marker: Signal<Local, bool>,
    pop: Signal<Local, bool>,
    head_len: Signal<Local, Bits<8>>,
    head_need: Signal<Local, Bits<8>>,
    available_now: Signal<Local, Bits<CW>>,
    available_wide: Signal<Local, Bits<16>>,
    head_admitted: Signal<Local, bool>,
    /// The bundle fields this stage does not read, acknowledged here (Verilator's lint passes
    /// names containing "unused"; nothing reads this, so synthesis removes it).
    unused_inputs: Signal<Local, bool>,
}

impl<const CW: usize> TxArbiter<CW> {
    /// An arbiter of `vcs` VCs whose heads wait for at most `max_packet` credits.
    pub fn new(vcs: usize, max_packet: u64) -> Self {
        let vc_field = ((1u128 << VC.width) - 1) << VC.lsb;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            restart: Default::default(),
            sinks: (0..vcs).map(|_| Default::default()).collect(),
            interleave: Default::default(),
            got_credits: (0..vcs).map(|_| Default::default()).collect(),
            slots: Default::default(),
            out: Default::default(),
            credits: (0..vcs).map(|_| Default::default()).collect(),
            credit_error: Default::default(),
            core_dropped: Default::default(),
            counters: (0..vcs)
                .map(|_| CreditCounter::starting_empty((1u64 << CW) - 1))
                .collect(),
            link_vc: Default::default(),
            lock_vc: Default::default(),
            locked: Default::default(),
            last_served: Default::default(),
            dropped_count: Default::default(),
            credit_failed: Default::default(),
            vc_mode: Default::default(),
            pick: TxCandidate::new(vcs),
            q_drop: class_bit(Q_DROP),
            q_head: class_bit(Q_HEAD),
            q_end: class_bit(Q_END),
            q_len_lsb: Constant::new((Q_LEN as u64).into()),
            max_need: Constant::new(max_packet.into()),
            vl_marker: flit_constant(CODE.set(0, ControlCode::VlMrkr.code() as u128)),
            vc_clear: flit_constant(FLIT_MASK & !vc_field),
            vc_lsb: Constant::new((VC.lsb as u64).into()),
            ctrl_vc_lsb: Constant::new((CTRL_VC.lsb as u64).into()),
            numbers: (0..8).map(|n| Constant::new((n as u64).into())).collect(),
            eligible: Default::default(),
            dropping: Default::default(),
            candidate: Default::default(),
            flit: Default::default(),
            head: Default::default(),
            ends_packet: Default::default(),
            dropped: Default::default(),
            needs_marker: Default::default(),
            pop: Default::default(),
            head_len: Default::default(),
            head_need: Default::default(),
            available_now: Default::default(),
            available_wide: Default::default(),
            head_admitted: Default::default(),
            unused_inputs: Default::default(),
        }
    }
}

impl<const CW: usize> Logic for TxArbiter<CW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            link_vc,
            lock_vc,
            locked,
            last_served,
            dropped_count,
            credit_failed
        );
        self.unused_inputs.next = self.slots.credit_slot.val() | self.slots.sideband_slot.val();
        self.credit_error.next = self.credit_failed.q.val();
        for v in 0..self.sinks.len() {
            self.counters[v].clock.next = self.clock.val();
            // A RESTART empties the counters: the fresh far end hands over its buffer anew.
            self.counters[v].reset.next = self.reset.val() | self.restart.val();
            self.counters[v].consume.next = false;
            self.counters[v].returned.next = self.got_credits[v].val();
            self.credits[v].next = self.counters[v].available.val();
            self.sinks[v].ready.next = false;
            self.credit_error.next = self.credit_error.val() | self.counters[v].error.val();
        }
        self.credit_failed.d.next = self.credit_error.val();
        self.core_dropped.next = self.dropped_count.q.val();

        // Which VCs may send: a flit and a credit, or a flit that is dropped (no credit). Unless
        // interleaving is in force and still asked for, a head needs credits for its whole
        // packet.
        self.vc_mode.clock.next = self.clock.val();
        self.vc_mode.reset.next = self.reset.val();
        self.vc_mode.interleave.next = self.interleave.val();
        self.eligible.next = 0.into();
        self.dropping.next = 0.into();
        for v in 0..self.sinks.len() {
            if (self.sinks[v].data.val() & self.q_drop.val()).any() {
                self.dropping.next = self.dropping.val().replace_bit(v, true);
            }
            self.head_len.next = self.sinks[v]
                .data
                .val()
                .get_bits::<8>(self.q_len_lsb.val().index());
            self.head_need.next = self.head_len.val();
            if !self.head_len.val().any() {
                self.head_need.next = 1.into();
            }
            if self.head_len.val() > self.max_need.val() {
                self.head_need.next = self.max_need.val();
            }
            // (bit_cast of an indexed expression does not compile inside an hdl_gen loop.)
            self.available_now.next = self.counters[v].available.val();
            self.available_wide.next = bit_cast::<16, CW>(self.available_now.val());
            self.head_admitted.next = self.vc_mode.admit_any.val()
                | !(self.sinks[v].data.val() & self.q_head.val()).any()
                | (self.available_wide.val() >= bit_cast::<16, 8>(self.head_need.val()));
            if self.sinks[v].valid.val()
                & (self.counters[v].has_credit.val() | self.dropping.val().get_bit(v))
                & self.head_admitted.val()
            {
                self.eligible.next = self.eligible.val().replace_bit(v, true);
            }
        }
        // Candidate VC: the packet in progress, else round robin after `last_served`.
        self.pick.eligible.next = self.eligible.val();
        self.pick.last_served.next = self.last_served.q.val();
        self.pick.locked.next = self.locked.q.val();
        self.pick.lock_vc.next = self.lock_vc.q.val();
        self.pick.in_force.next = self.vc_mode.in_force.val();
        self.candidate.next = self.pick.candidate.val();
        self.out.ready.next = self.pick.ready.val();
        self.flit.next = 0.into();
        for v in 0..self.sinks.len() {
            if self.candidate.val() == self.numbers[v].val() {
                self.flit.next = self.sinks[v].data.val();
            }
        }
        self.head.next = (self.flit.val() & self.q_head.val()).any();
        self.ends_packet.next = (self.flit.val() & self.q_end.val()).any();
        self.dropped.next = (self.flit.val() & self.q_drop.val()).any();
        self.needs_marker.next =
            !self.head.val() & !self.dropped.val() & (self.candidate.val() != self.link_vc.q.val());

        // The offer: the VlMrkr first, Idle for a dropped flit, a head with the link VC.
        self.out.flit.next = bit_cast::<FLIT_BITS, Q_BITS>(self.flit.val());
        if self.needs_marker.val() {
            self.out.flit.next = self.vl_marker.val()
                | (bit_cast::<FLIT_BITS, 3>(self.candidate.val()) << self.ctrl_vc_lsb.val());
        } else if self.dropped.val() {
            self.out.flit.next = 0.into();
        } else if self.head.val() {
            self.out.flit.next = (bit_cast::<FLIT_BITS, Q_BITS>(self.flit.val())
                & self.vc_clear.val())
                | (bit_cast::<FLIT_BITS, 3>(self.candidate.val()) << self.vc_lsb.val());
        }

        // The data slot taken: pop the flit (not for its VlMrkr) and consume its credit.
        self.pop.next = self.slots.data_slot.val() & !self.needs_marker.val();
        for v in 0..self.sinks.len() {
            if self.pop.val() & (self.candidate.val() == self.numbers[v].val()) {
                self.sinks[v].ready.next = true;
                self.counters[v].consume.next = !self.dropped.val();
            }
        }
        if self.slots.data_slot.val() {
            self.lock_vc.d.next = self.candidate.val();
            if self.needs_marker.val() {
                self.link_vc.d.next = self.candidate.val();
            }
        }
        if self.pop.val() {
            self.last_served.d.next = self.candidate.val();
            if self.dropped.val() & (self.dropped_count.q.val() != 0xffff) {
                self.dropped_count.d.next = self.dropped_count.q.val() + 1;
            }
            if self.head.val() {
                self.link_vc.d.next = self.candidate.val();
                self.locked.d.next = true;
            }
            if self.ends_packet.val() {
                self.locked.d.next = false;
            }
        }
        // The packets sent interleaved, and the VC mode in force (module doc).
        self.vc_mode.pop.next = self.pop.val();
        self.vc_mode.head.next = self.head.val();
        self.vc_mode.ends_packet.next = self.ends_packet.val();
        self.vc_mode.vc.next = self.candidate.val();
        if self.restart.val() {
            self.link_vc.d.next = 0.into();
        }
        if self.reset.val() {
            self.link_vc.d.next = 0.into();
            self.lock_vc.d.next = 0.into();
            self.locked.d.next = false;
            self.last_served.d.next = 0.into();
            self.dropped_count.d.next = 0.into();
            self.credit_failed.d.next = false;
        }
    }
}
