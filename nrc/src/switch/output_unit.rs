//! Output unit of one router port: the downstream buffer's credits per VC, which VCs a packet
//! holds, and the output register in front of the router channel.
//!
//! **Output register.** The flit the allocator sends in cycle `c` (`control.send`, from the
//! crossbar, or from the management agent's port when `control.agent`) is on `channel`
//! (`valid`, `flit`, `vc`) in cycle `c + 1`. It is the only register between an input's front
//! and the link: with the input unit's one cycle, a head goes from the router's input channel
//! to its output channel in 2 cycles at zero load (3 with the input unit's route stage).
//!
//! **Credits.** One [`CreditCounter`] per VC (8 bits, `initial` = `reserve`, the credits the
//! downstream buffer gives each VC after a reset): a flit sent on VC `v` spends one credit in
//! its cycle; a set bit `v` of `channel.credits` returns one. `control.credits` (VC `v` at bits
//! `v * 8`) comes from the counters' registers, so a credit returned in cycle `c` can be spent
//! from `c + 1`. The allocator sends a head only with at least `len` credits on its VC and
//! bodies of held packets without looking (the head reserved them), so the count never goes
//! below zero; if it would (a spend without credit, or more credits back than `reserve`),
//! the counter ignores it (see [`CreditCounter`]) and `error` stays high until reset.
//!
//! **Ownership.** Bit `v` of `control.free` is low from the edge where a head leaves on VC `v`
//! to the edge where the flit with `last` leaves on it: a VC carries one packet at a time, so
//! packets never interleave on a VC of the link (virtual cut-through: they may interleave with
//! other VCs' flits).
//!
//! **Events** (one-cycle pulses, registered with the flit: they rise in the cycle the flit is
//! on the link): `flit_out` for every flit, `packet_out` for every flit with `last`.
//!
//! Reset (synchronous): every VC free with `reserve` credits (a link reset resets both ends),
//! the output register empty, `error` cleared.
//!
//! Parameters: `VCS` (1..=8), `VCB` = `channel_vc_bits(VCS)`, `PVL` = `VCS * 8`.
use super::{OutputControlSource, CREDIT_BITS};
use hdl::channel::ChannelSource;
use hdl::credit_counter::CreditCounter;
use hdl::formats::FLIT_BITS;
use rust_hdl::prelude::*;

/// The output unit of one port; see the module documentation.
#[derive(LogicBlock)]
pub struct OutputUnit<const VCS: usize, const VCB: usize, const PVL: usize> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// State to the allocator, the send of this cycle back.
    pub control: OutputControlSource<VCS, VCB, PVL>,
    /// The crossbar's flit for this port (used unless `control.agent`).
    pub crossbar_flit: Signal<In, Bits<FLIT_BITS>>,
    /// The management agent's flit for this port (used with `control.agent`).
    pub agent_flit: Signal<In, Bits<FLIT_BITS>>,
    /// The link: the registered flit out, credits in.
    pub channel: ChannelSource<VCS, VCB>,
    /// A flit is on `channel` in this cycle (event).
    pub flit_out: Signal<Out, bool>,
    /// The flit on `channel` ends its packet (event).
    pub packet_out: Signal<Out, bool>,
    /// Sticky: a counter saw a spend without credit or an over-return (never in a correct
    /// network).
    pub error: Signal<Out, bool>,
    counters: Vec<CreditCounter<CREDIT_BITS>>,
    valid: DFF<bool>,
    flit: DFF<Bits<FLIT_BITS>>,
    vc: DFF<Bits<VCB>>,
    last: DFF<bool>,
    /// Bit `v`: a packet holds VC `v`.
    owned: DFF<Bits<VCS>>,
    /// The next `owned` (a local: a DFF's `d` cannot be read back in `update`).
    owned_next: Signal<Local, Bits<VCS>>,
    /// VC numbers, to decode `control.vc`.
    numbers: Vec<Constant<Bits<VCB>>>,
    /// Per VC: `send` on this VC.
    spend: Vec<Signal<Local, bool>>,
    /// Per VC: the counter's `available` widened to `PVL` bits.
    wide: Vec<Signal<Local, Bits<PVL>>>,
    /// Per VC: its position in `control.credits`.
    offsets: Vec<Constant<Bits<PVL>>>,
    /// The counters' `has_credit` (the allocator compares `available` itself): acknowledged
    /// unused for the lint.
    unused_has_credit: Signal<Local, bool>,
    one: Constant<Bits<CREDIT_BITS>>,
    zero: Constant<Bits<CREDIT_BITS>>,
    zero_wide: Constant<Bits<PVL>>,
}

impl<const VCS: usize, const VCB: usize, const PVL: usize> OutputUnit<VCS, VCB, PVL> {
    /// The unit for a downstream buffer that gives each VC `reserve` credits (1..=255).
    pub fn new(reserve: usize) -> Self {
        assert!(
            (1..=8).contains(&VCS),
            "OutputUnit: VCS must be 1..=8, got {VCS}"
        );
        assert!(
            VCB == hdl::channel::channel_vc_bits(VCS),
            "OutputUnit<VCS = {VCS}, VCB = {VCB}>: VCB must be channel_vc_bits(VCS)"
        );
        assert!(
            PVL == VCS * CREDIT_BITS,
            "OutputUnit<VCS = {VCS}, PVL = {PVL}>: PVL must be VCS * 8"
        );
        assert!(
            (1..=255).contains(&reserve),
            "OutputUnit: reserve (router.reserved_flits_per_vc) must be 1..=255, got {reserve}"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            control: Default::default(),
            crossbar_flit: Default::default(),
            agent_flit: Default::default(),
            channel: Default::default(),
            flit_out: Default::default(),
            packet_out: Default::default(),
            error: Default::default(),
            counters: (0..VCS)
                .map(|_| CreditCounter::new(reserve as u64))
                .collect(),
            valid: Default::default(),
            flit: Default::default(),
            vc: Default::default(),
            last: Default::default(),
            owned: Default::default(),
            owned_next: Default::default(),
            numbers: (0..VCS).map(|v| Constant::new((v as u64).into())).collect(),
            spend: (0..VCS).map(|_| Default::default()).collect(),
            wide: (0..VCS).map(|_| Default::default()).collect(),
            offsets: (0..VCS)
                .map(|v| Constant::new(((v * CREDIT_BITS) as u64).into()))
                .collect(),
            unused_has_credit: Default::default(),
            one: Constant::new(1u64.into()),
            zero: Constant::new(0u64.into()),
            zero_wide: Constant::new(0u64.into()),
        }
    }
}

impl<const VCS: usize, const VCB: usize, const PVL: usize> Logic for OutputUnit<VCS, VCB, PVL> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid, flit, vc, last, owned);
        // The output register.
        self.valid.d.next = self.control.send.val();
        self.vc.d.next = self.control.vc.val();
        self.last.d.next = self.control.send.val() & self.control.last.val();
        self.flit.d.next = self.crossbar_flit.val();
        if self.control.agent.val() {
            self.flit.d.next = self.agent_flit.val();
        }
        self.channel.valid.next = self.valid.q.val();
        self.channel.flit.next = self.flit.q.val();
        self.channel.vc.next = self.vc.q.val();
        self.flit_out.next = self.valid.q.val();
        self.packet_out.next = self.last.q.val();
        // Credits and ownership, per VC.
        self.control.credits.next = self.zero_wide.val();
        self.control.free.next = !self.owned.q.val();
        self.error.next = false;
        self.unused_has_credit.next = false;
        self.owned_next.next = self.owned.q.val();
        for v in 0..VCS {
            self.counters[v].clock.next = self.clock.val();
            self.counters[v].reset.next = self.reset.val();
            self.spend[v].next =
                self.control.send.val() & (self.control.vc.val() == self.numbers[v].val());
            self.counters[v].consume.next = self.spend[v].val();
            self.counters[v].returned.next = self.zero.val();
            if self.channel.credits.val().get_bit(v) {
                self.counters[v].returned.next = self.one.val();
            }
            if self.spend[v].val() & self.control.head.val() {
                self.owned_next.next = self.owned_next.val().replace_bit(v, true);
            }
            if self.spend[v].val() & self.control.last.val() {
                self.owned_next.next = self.owned_next.val().replace_bit(v, false);
            }
            self.wide[v].next = self.zero_wide.val();
            for b in 0..CREDIT_BITS {
                self.wide[v].next = self.wide[v]
                    .val()
                    .replace_bit(b, self.counters[v].available.val().get_bit(b));
            }
            self.control.credits.next =
                self.control.credits.val() | (self.wide[v].val() << self.offsets[v].val());
            self.error.next = self.error.val() | self.counters[v].error.val();
            self.unused_has_credit.next =
                self.unused_has_credit.val() | self.counters[v].has_credit.val();
        }
        self.owned.d.next = self.owned_next.val();
        if self.reset.val() {
            self.valid.d.next = false;
            self.last.d.next = false;
            self.owned.d.next = 0.into();
        }
    }
}

#[test]
fn output_unit_is_synthesizable() {
    let mut uut = <crate::output_unit!(3)>::new(6);
    uut.connect_all();
    yosys_validate("output_unit", &generate_verilog(&uut)).unwrap();
}
