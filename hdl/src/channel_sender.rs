//! `ChannelSender`: per-VC flit streams onto one router channel ([`crate::channel`]), credit
//! flow controlled. A link port's receive side uses it to hand what its link endpoint received
//! to the core's input unit (router) or network port (NIC).
//!
//! **Credits.** One [`CreditCounter`] per VC, starting at `initial` (the receiver's buffer
//! space for that VC: the router's input unit gives each VC `router.reserved_flits_per_vc`).
//! A flit is sent on VC `v` only while its counter has a credit; each set bit `v` of
//! `channel.credits` gives one back (usable from the next cycle, as the counter's
//! `has_credit` comes from a flip-flop). So the sender never overruns the receiver.
//!
//! **Choice.** Every cycle, a round-robin arbiter ([`RrArbiter`], no hold: the channel
//! interleaves VCs flit by flit) picks one VC among those whose stream offers a flit AND has a
//! credit, and takes that flit (`ready` of that stream only). A VC without credit, or whose
//! stream offers nothing, is simply not a candidate: a stalled VC never blocks another, and
//! under persistent offers each VC with credit is served once every `VCS` flits.
//!
//! **Timing.** The chosen flit is registered: taken on the edge that ends cycle `c`, it is on
//! the channel (`valid`, `flit`, `vc`) in cycle `c + 1`. The channel's forward signals come
//! straight from flip-flops, because the receiver (the router's intake) decides on them in the
//! cycle they arrive. One flit per cycle at most; full rate when flits and credits allow.
//!
//! **Errors.** More credits returned than `initial` (a broken receiver) saturate the counter
//! and raise `error`, sticky until reset.
//!
//! **Reset** (synchronous): every counter back to `initial` (the receiver restarts too: a
//! port resets both sides together), the output register empty, `error` cleared; no stream is
//! taken in a reset cycle.
//!
//! Parameters: `VCS` (1..=8) VCs, `VCB` = [`channel_vc_bits`](crate::channel::channel_vc_bits)`(VCS)`;
//! elaboration value `initial` (1..=255 credits per VC).
use crate::arb::RrArbiter;
use crate::channel::ChannelSource;
use crate::credit_counter::CreditCounter;
use crate::formats::FLIT_BITS;
use crate::stream::StreamSink;
use rust_hdl::prelude::*;

/// Bits of each VC's credit count (credits per VC up to 255).
pub const SENDER_CREDIT_BITS: usize = 8;

/// Per-VC streams onto one router channel; see the module documentation.
#[derive(LogicBlock)]
pub struct ChannelSender<const VCS: usize, const VCB: usize> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Per VC: the flits to send on that VC, in order.
    pub sinks: Vec<StreamSink<Bits<FLIT_BITS>>>,
    /// The router channel: flits out, credits back.
    pub channel: ChannelSource<VCS, VCB>,
    /// Sticky: more credits came back than `initial` on some VC.
    pub error: Signal<Out, bool>,
    counters: Vec<CreditCounter<SENDER_CREDIT_BITS>>,
    arbiter: RrArbiter<VCS, VCB>,
    valid: DFF<bool>,
    flit: DFF<Bits<FLIT_BITS>>,
    vc: DFF<Bits<VCB>>,
    /// Bit `v`: VC `v` offers a flit and has a credit.
    candidates: Signal<Local, Bits<VCS>>,
    /// The chosen VC's flit.
    chosen: Signal<Local, Bits<FLIT_BITS>>,
    /// Some counter's `error`.
    any_error: Signal<Local, bool>,
    /// The counters' `available` (the arbiter reads `has_credit`): acknowledged unused.
    unused_available: Signal<Local, bool>,
    /// Bit `v` alone, to pick VC `v`'s bit by a mask (with one VC the vectors are Verilog
    /// scalars, which cannot be bit-selected).
    vc_masks: Vec<Constant<Bits<VCS>>>,
    zero_credit: Constant<Bits<SENDER_CREDIT_BITS>>,
    one_credit: Constant<Bits<SENDER_CREDIT_BITS>>,
}

impl<const VCS: usize, const VCB: usize> ChannelSender<VCS, VCB> {
    /// A sender whose receiver holds `initial` flits per VC. Panics naming the parameter if
    /// `VCS` is not 1..=8, `VCB` is not `channel_vc_bits(VCS)` or `initial` is not 1..=255.
    pub fn new(initial: usize) -> Self {
        assert!(
            (1..=8).contains(&VCS),
            "ChannelSender: VCS must be 1..=8, got {VCS}"
        );
        assert_eq!(
            VCB,
            crate::channel::channel_vc_bits(VCS),
            "ChannelSender: VCB must be channel_vc_bits(VCS)"
        );
        assert!(
            (1..=255).contains(&initial),
            "ChannelSender: initial credits must be 1..=255, got {initial}"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sinks: (0..VCS).map(|_| Default::default()).collect(),
            channel: Default::default(),
            error: Default::default(),
            counters: (0..VCS)
                .map(|_| CreditCounter::new(initial as u64))
                .collect(),
            arbiter: RrArbiter::new(false),
            valid: Default::default(),
            flit: Default::default(),
            vc: Default::default(),
            candidates: Default::default(),
            chosen: Default::default(),
            any_error: Default::default(),
            unused_available: Default::default(),
            vc_masks: (0..VCS)
                .map(|v| Constant::new((1u64 << v).into()))
                .collect(),
            zero_credit: Constant::new(0u64.into()),
            one_credit: Constant::new(1u64.into()),
        }
    }
}

impl<const VCS: usize, const VCB: usize> Logic for ChannelSender<VCS, VCB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid, flit, vc);
        clock!(self, clock, arbiter);
        self.arbiter.reset.next = self.reset.val();
        self.candidates.next = 0.into();
        self.any_error.next = false;
        self.unused_available.next = false;
        for v in 0..VCS {
            self.counters[v].clock.next = self.clock.val();
            self.counters[v].reset.next = self.reset.val();
            if self.sinks[v].valid.val() & self.counters[v].has_credit.val() {
                self.candidates.next = self.candidates.val() | self.vc_masks[v].val();
            }
            self.any_error.next = self.any_error.val() | self.counters[v].error.val();
            self.unused_available.next =
                self.unused_available.val() | self.counters[v].available.val().any();
        }
        self.arbiter.requests.next = self.candidates.val();
        self.arbiter.advance.next = self.arbiter.valid.val() & !self.reset.val();
        self.arbiter.tail.next = true;
        self.chosen.next = 0.into();
        for v in 0..VCS {
            self.sinks[v].ready.next =
                (self.arbiter.grant.val() & self.vc_masks[v].val()).any() & !self.reset.val();
            self.counters[v].consume.next = self.sinks[v].ready.val();
            self.counters[v].returned.next = self.zero_credit.val();
            if (self.channel.credits.val() & self.vc_masks[v].val()).any() {
                self.counters[v].returned.next = self.one_credit.val();
            }
            if (self.arbiter.grant.val() & self.vc_masks[v].val()).any() {
                self.chosen.next = self.sinks[v].data.val();
            }
        }
        // The output register: the chosen flit on the channel in the next cycle.
        self.valid.d.next = self.arbiter.valid.val() & !self.reset.val();
        self.flit.d.next = self.chosen.val();
        self.vc.d.next = self.arbiter.grant_index.val();
        self.channel.valid.next = self.valid.q.val();
        self.channel.flit.next = self.flit.q.val();
        self.channel.vc.next = self.vc.q.val();
        self.error.next = self.any_error.val();
    }
}

#[test]
fn channel_sender_is_synthesizable() {
    let mut uut = ChannelSender::<3, 2>::new(6);
    uut.connect_all();
    yosys_validate("channel_sender", &generate_verilog(&uut)).unwrap();
}
