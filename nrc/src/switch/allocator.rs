//! Switch allocator: which input VC (or agent port) sends a flit to which output in this
//! cycle, decided in the cycle of the request (combinational), so the grant and the flit move
//! together. VC allocation is folded in: the output VC is given by the input port (its VC
//! policy computes it with the route), so a head needs only that one VC free.
//!
//! **Eligibility** of input `i`'s VC `v` (its front, to output `p` = `ports[v]` on VC `w` =
//! `out_vcs[v]`): `ready`, and either
//! - a body or tail (`!head`): its packet holds `(p, w)` (the input port shows bodies only of
//!   packets whose head was granted, so the switch trusts it). Bodies never wait for credits:
//!   the head reserved them (virtual cut-through);
//! - a head: `(p, w)` free and at least `need` credits there, `need = len`, or `max_len` while
//!   `(p, w)` is *starving* (below).
//!
//! A port or VC number out of range is never eligible (the route unit never makes one). The
//! agent port of output `p` (on `mgmt_vc`) is eligible with `valid` and a credit on
//! `(p, mgmt_vc)`, and for a head also `(p, mgmt_vc)` free and `need` credits with its `len`
//! clamped to `1..=max_len` (see [`super::AgentPort`]: a bad `len` cannot overdraw or hang).
//!
//! **Starving.** A long packet's head could wait for ever behind short packets on the same
//! output VC, each taking it as soon as `len` credits are back. So when a head finds its output
//! VC free but too few credits while another head takes that VC in the same cycle, the VC is
//! marked starving, and while marked every head needs `max_len` credits for it: the credits
//! then build up until every waiting head fits (the downstream buffer returns at least
//! `reserve >= max_len` to a VC that drains), and the heads compete by round robin. The mark
//! clears when a head takes the VC (and is set again if another head is refused in that
//! cycle). A refusal while nobody takes the VC does not mark it: the credits then only build
//! up, until the refused head fits. Cost: after a mark, a burst of short packets waits for
//! `max_len` credits.
//!
//! **Matching** ([`super::Matcher`]): per input one eligible VC (round robin, packet by
//! packet: the input's pointer stays on a VC until its packet's last flit is sent), per output
//! one asking input or its agent port (round robin), `iterations` iterations; pointers move
//! only on a grant. **Fairness**: an eligible VC stays eligible until it moves (a body), or until its
//! output VC is taken (a head; then the starving mark and the output's round robin decide the
//! next owner among the waiting heads). Every time an input asks output `p` in iteration 1 and
//! loses, `p`'s pointer moves past the winner, which was ahead of the input, so an input that
//! keeps asking wins within `PORTS` grants of `p`; an input's pointer moves past each VC whose
//! packet's last flit it sends, so a VC that stays eligible is its pick within `VCS` of its
//! packets (at most `VCS * max_len` grants). A VC whose output
//! VC has no credit is simply not eligible, so it never blocks another VC of its input.
//!
//! **Why giving the output VC is enough**: the VC policy computes the output VC from the packet
//! (keep, dest-mod, up/down) and it must be a function of the packet for deadlock freedom
//! anyway; choosing among several output VCs would only help when the policy allows more than
//! one. Cost: a head waits for its one VC even while another VC of the same port is free.
//!
//! Outputs: per input `grant`/`grant_vc`; per output the control of its output unit (`send`,
//! `vc`, `head`, `last`, `agent`) and the crossbar's one-hot `select`; per agent port `grant`.
//! Nothing is granted while `reset` is high (pointers and marks are cleared).
//!
//! Parameters: `PORTS` (2..=64), `VCS` (1..=8), `VCB` = `channel_vc_bits(VCS)`, `W` =
//! `index_bits(PORTS)`, `PVW` = `VCS * W`, `PVB` = `VCS * VCB`, `PVL` = `VCS * 8`, `RQ` =
//! `PORTS + 1`; `VCS` at least 2. Use [`allocator!`](crate::allocator).
use super::{AgentCheck, AgentRequestSink, Matcher, OutputControlSink, StarvingMarks, CREDIT_BITS};
use crate::port::SwitchRequestSink;
use crate::routing::defaults;
use rust_hdl::prelude::*;

/// The switch allocator; see the module documentation.
#[derive(LogicBlock)]
pub struct SwitchAllocator<
    const PORTS: usize,
    const VCS: usize,
    const VCB: usize,
    const W: usize,
    const PVW: usize,
    const PVB: usize,
    const PVL: usize,
    const RQ: usize,
> {
    /// Clock of the pointers and starving marks.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: no grant; pointers and marks cleared.
    pub reset: Signal<In, bool>,
    /// Per input port: its requests, the grant back (`flit` is the crossbar's).
    pub requests: [SwitchRequestSink<VCS, VCB, PVW, PVB, PVL>; PORTS],
    /// Per output port: its unit's state, the send back.
    pub controls: [OutputControlSink<VCS, VCB, PVL>; PORTS],
    /// Per output port: the agent port's request.
    pub agents: [AgentRequestSink; PORTS],
    /// Per output port: the granted input, one-hot, for the crossbar.
    pub selects: Vec<Signal<Out, Bits<PORTS>>>,
    matcher: Matcher<PORTS, VCS, W, PVW, RQ>,
    /// Per output port: bit `w`, VC `w` is marked starving.
    starving: Vec<StarvingMarks<VCS, VCB>>,
    /// Per output port: its agent port's eligibility.
    agent_checks: Vec<AgentCheck>,
    /// Per output port: the VCs refused this cycle.
    refusals: Vec<Signal<Local, Bits<VCS>>>,
    /// Per input: its eligible VCs.
    eligible: Vec<Signal<Local, Bits<VCS>>>,
    agent_eligible: Signal<Local, Bits<PORTS>>,
    // Per input: the granted VC's output VC, head and last.
    sent_vc: Vec<Signal<Local, Bits<VCB>>>,
    sent_head: Vec<Signal<Local, bool>>,
    sent_last: Vec<Signal<Local, bool>>,
    granted: Vec<Signal<Local, Bits<RQ>>>,
    // Working values, reused by every input VC in turn: its fields and its target's state.
    port_field: Signal<Local, Bits<PVW>>,
    vc_field: Signal<Local, Bits<PVB>>,
    len_field: Signal<Local, Bits<PVL>>,
    port: Signal<Local, Bits<W>>,
    vc: Signal<Local, Bits<VCB>>,
    len: Signal<Local, Bits<CREDIT_BITS>>,
    need: Signal<Local, Bits<CREDIT_BITS>>,
    credit_shift: Signal<Local, Bits<16>>,
    credits_field: Signal<Local, Bits<PVL>>,
    credits: Signal<Local, Bits<CREDIT_BITS>>,
    vc_hot: Signal<Local, Bits<VCS>>,
    free: Signal<Local, bool>,
    starved: Signal<Local, bool>,
    in_range: Signal<Local, bool>,
    ready: Signal<Local, bool>,
    head: Signal<Local, bool>,
    /// The input ports' flits are the crossbar's, not read here: acknowledged for the lint.
    unused_flits: Signal<Local, bool>,
    port_numbers: Vec<Constant<Bits<W>>>,
    vc_numbers: Vec<Constant<Bits<VCB>>>,
    port_offsets: Vec<Constant<Bits<16>>>,
    vc_offsets: Vec<Constant<Bits<16>>>,
    len_offsets: Vec<Constant<Bits<16>>>,
    max_len: Constant<Bits<CREDIT_BITS>>,
    one_hot: Constant<Bits<VCS>>,
    mgmt_vc: Constant<Bits<VCB>>,
    mgmt_shift: Constant<Bits<16>>,
}

impl<
        const PORTS: usize,
        const VCS: usize,
        const VCB: usize,
        const W: usize,
        const PVW: usize,
        const PVB: usize,
        const PVL: usize,
        const RQ: usize,
    > SwitchAllocator<PORTS, VCS, VCB, W, PVW, PVB, PVL, RQ>
{
    /// The allocator: `iterations` (1..=3), `max_len` (2..=255), `mgmt_vc` (below `VCS`).
    /// Panics naming the parameter if the generics disagree.
    pub fn new(iterations: usize, max_len: usize, mgmt_vc: usize) -> Self {
        assert!(
            VCB == hdl::channel::channel_vc_bits(VCS) && W == hdl::bits::index_bits(PORTS),
            "SwitchAllocator<PORTS = {PORTS}, VCS = {VCS}>: VCB must be channel_vc_bits(VCS), W index_bits(PORTS)"
        );
        assert!(
            PVW == VCS * W && PVB == VCS * VCB && PVL == VCS * CREDIT_BITS,
            "SwitchAllocator: PVW, PVB, PVL must be VCS * (W, VCB, 8)"
        );
        assert!(
            (2..=255).contains(&max_len),
            "SwitchAllocator: max_len (network.max_packet_flits) must be 2..=255, got {max_len}"
        );
        assert!(
            mgmt_vc < VCS,
            "SwitchAllocator: mgmt_vc (network.mgmt_vc) = {mgmt_vc} must be below VCS = {VCS}"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            requests: std::array::from_fn(|_| Default::default()),
            controls: std::array::from_fn(|_| Default::default()),
            agents: std::array::from_fn(|_| Default::default()),
            selects: defaults(PORTS),
            matcher: Matcher::new(iterations),
            starving: defaults(PORTS),
            agent_checks: (0..PORTS).map(|_| AgentCheck::new(max_len)).collect(),
            refusals: defaults(PORTS),
            eligible: defaults(PORTS),
            agent_eligible: Default::default(),
            sent_vc: defaults(PORTS),
            sent_head: defaults(PORTS),
            sent_last: defaults(PORTS),
            granted: defaults(PORTS),
            port_field: Default::default(),
            vc_field: Default::default(),
            len_field: Default::default(),
            port: Default::default(),
            vc: Default::default(),
            len: Default::default(),
            need: Default::default(),
            credit_shift: Default::default(),
            credits_field: Default::default(),
            credits: Default::default(),
            vc_hot: Default::default(),
            free: Default::default(),
            starved: Default::default(),
            in_range: Default::default(),
            ready: Default::default(),
            head: Default::default(),
            unused_flits: Default::default(),
            port_numbers: (0..PORTS)
                .map(|p| Constant::new((p as u64).into()))
                .collect(),
            vc_numbers: (0..VCS).map(|v| Constant::new((v as u64).into())).collect(),
            port_offsets: (0..VCS)
                .map(|v| Constant::new(((v * W) as u64).into()))
                .collect(),
            vc_offsets: (0..VCS)
                .map(|v| Constant::new(((v * VCB) as u64).into()))
                .collect(),
            len_offsets: (0..VCS)
                .map(|v| Constant::new(((v * CREDIT_BITS) as u64).into()))
                .collect(),
            max_len: Constant::new((max_len as u64).into()),
            one_hot: Constant::new(1u64.into()),
            mgmt_vc: Constant::new((mgmt_vc as u64).into()),
            mgmt_shift: Constant::new(((mgmt_vc * CREDIT_BITS) as u64).into()),
        }
    }
}

impl<
        const PORTS: usize,
        const VCS: usize,
        const VCB: usize,
        const W: usize,
        const PVW: usize,
        const PVB: usize,
        const PVL: usize,
        const RQ: usize,
    > Logic for SwitchAllocator<PORTS, VCS, VCB, W, PVW, PVB, PVL, RQ>
{
    #[hdl_gen]
    fn update(&mut self) {
        self.matcher.clock.next = self.clock.val();
        self.matcher.reset.next = self.reset.val();
        for p in 0..PORTS {
            self.starving[p].clock.next = self.clock.val();
            self.starving[p].reset.next = self.reset.val();
            self.refusals[p].next = 0.into();
        }
        // Every input VC: its target's state, and whether it may move.
        self.unused_flits.next = false;
        for i in 0..PORTS {
            self.unused_flits.next = self.unused_flits.val() | self.requests[i].flit.val().any();
            self.eligible[i].next = 0.into();
            for v in 0..VCS {
                self.port_field.next = self.requests[i].ports.val() >> self.port_offsets[v].val();
                self.vc_field.next = self.requests[i].out_vcs.val() >> self.vc_offsets[v].val();
                self.len_field.next = self.requests[i].lens.val() >> self.len_offsets[v].val();
                self.port.next = self.port_field.val().get_bits::<W>(0);
                self.vc.next = self.vc_field.val().get_bits::<VCB>(0);
                self.len.next = self.len_field.val().get_bits::<CREDIT_BITS>(0);
                self.ready.next = self.requests[i].ready.val().get_bit(v);
                self.head.next = self.requests[i].head.val().get_bit(v);
                self.credit_shift.next = bit_cast::<16, VCB>(self.vc.val()) << 3;
                self.vc_hot.next = self.one_hot.val() << self.vc.val();
                self.in_range.next = false;
                self.credits.next = 0.into();
                self.free.next = false;
                self.starved.next = false;
                for p in 0..PORTS {
                    if self.port.val() == self.port_numbers[p].val() {
                        // A VC number beyond VCS shifts the one-hot bit out.
                        self.in_range.next = self.vc_hot.val().any();
                        self.credits_field.next =
                            self.controls[p].credits.val() >> self.credit_shift.val();
                        self.credits.next = self.credits_field.val().get_bits::<CREDIT_BITS>(0);
                        self.free.next = (self.controls[p].free.val() & self.vc_hot.val()).any();
                        self.starved.next =
                            (self.starving[p].marks.val() & self.vc_hot.val()).any();
                    }
                }
                self.need.next = self.len.val();
                if self.starved.val() {
                    self.need.next = self.max_len.val();
                }
                if self.ready.val()
                    & self.in_range.val()
                    & (!self.head.val()
                        | (self.free.val() & (self.credits.val() >= self.need.val())))
                {
                    self.eligible[i].next = self.eligible[i].val().replace_bit(v, true);
                }
                // A head finding its VC free but too few credits for its own len.
                for p in 0..PORTS {
                    if self.ready.val()
                        & self.head.val()
                        & self.in_range.val()
                        & self.free.val()
                        & (self.credits.val() < self.len.val())
                        & (self.port.val() == self.port_numbers[p].val())
                    {
                        self.refusals[p].next = self.refusals[p].val() | self.vc_hot.val();
                    }
                }
            }
            self.matcher.eligible[i].next = self.eligible[i].val();
            self.matcher.ports[i].next = self.requests[i].ports.val();
            self.matcher.lasts[i].next = self.requests[i].last.val();
        }
        // The agent ports (on mgmt_vc): see `AgentCheck`.
        self.agent_eligible.next = 0.into();
        self.vc_hot.next = self.one_hot.val() << self.mgmt_vc.val();
        for p in 0..PORTS {
            AgentRequestSink::link(&mut self.agents[p], &mut self.agent_checks[p].request);
            self.credits_field.next = self.controls[p].credits.val() >> self.mgmt_shift.val();
            self.agent_checks[p].credits.next = self.credits_field.val().get_bits::<CREDIT_BITS>(0);
            self.agent_checks[p].free.next =
                (self.controls[p].free.val() & self.vc_hot.val()).any();
            self.agent_checks[p].starved.next =
                (self.starving[p].marks.val() & self.vc_hot.val()).any();
            self.agent_eligible.next = self
                .agent_eligible
                .val()
                .replace_bit(p, self.agent_checks[p].eligible.val());
            if self.agent_checks[p].refused.val() {
                self.refusals[p].next = self.refusals[p].val() | self.vc_hot.val();
            }
        }
        self.matcher.agents.next = self.agent_eligible.val();
        // Per input: the grant, and the granted VC's output VC, head and last.
        for i in 0..PORTS {
            self.requests[i].grant.next = self.matcher.input_grants[i].val().any();
            self.requests[i].grant_vc.next = 0.into();
            self.sent_vc[i].next = 0.into();
            self.sent_head[i].next =
                (self.matcher.input_grants[i].val() & self.requests[i].head.val()).any();
            self.sent_last[i].next =
                (self.matcher.input_grants[i].val() & self.requests[i].last.val()).any();
            for v in 0..VCS {
                self.vc_field.next = self.requests[i].out_vcs.val() >> self.vc_offsets[v].val();
                if self.matcher.input_grants[i].val().get_bit(v) {
                    self.requests[i].grant_vc.next = self.vc_numbers[v].val();
                    self.sent_vc[i].next = self.vc_field.val().get_bits::<VCB>(0);
                }
            }
        }
        // Per output: what its unit sends, the crossbar's select, the starving marks (set by
        // a refusal, cleared when a head takes the VC).
        for p in 0..PORTS {
            self.granted[p].next = self.matcher.output_grants[p].val();
            self.selects[p].next = self.granted[p].val().get_bits::<PORTS>(0);
            self.controls[p].send.next = self.granted[p].val().any();
            self.controls[p].vc.next = 0.into();
            self.controls[p].head.next = false;
            self.controls[p].last.next = false;
            for i in 0..PORTS {
                if self.granted[p].val().get_bit(i) {
                    self.controls[p].vc.next = self.sent_vc[i].val();
                    self.controls[p].head.next = self.sent_head[i].val();
                    self.controls[p].last.next = self.sent_last[i].val();
                }
            }
            self.controls[p].agent.next = false;
            self.agent_checks[p].grant.next = false;
            for top in PORTS..(PORTS + 1) {
                if self.granted[p].val().get_bit(top) {
                    self.controls[p].agent.next = true;
                    self.agent_checks[p].grant.next = true;
                    self.controls[p].vc.next = self.mgmt_vc.val();
                    self.controls[p].head.next = self.agents[p].head.val();
                    self.controls[p].last.next = self.agents[p].last.val();
                }
            }
            self.starving[p].refusals.next = self.refusals[p].val();
            self.starving[p].head_sent.next =
                self.controls[p].send.val() & self.controls[p].head.val();
            self.starving[p].vc.next = self.controls[p].vc.val();
        }
    }
}

#[test]
fn switch_allocator_is_synthesizable() {
    let mut uut = <crate::allocator!(4, 3)>::new(2, 6, 1);
    uut.connect_all();
    yosys_validate("switch_allocator", &generate_verilog(&uut)).unwrap();
}
