//! The eligibility of one output port's agent port, a stage of the
//! [`SwitchAllocator`](super::SwitchAllocator): the management agent's flit for this output
//! (on `mgmt_vc`) may move when it is offered and the output's `mgmt_vc` has a credit; a head
//! also needs the VC free and `need` credits, `need` = its `len` clamped to `1..=max_len`, or
//! `max_len` while the VC is marked starving (a bad `len` can neither overdraw nor hang).
//! `refused`: a head found the VC free but too few credits for its clamped `len` (it sets the
//! starving mark). Combinational; `grant` (the matcher's) is passed back on the request.
use super::{AgentRequestSink, CREDIT_BITS};
use rust_hdl::prelude::*;

/// The agent port's eligibility; see the module documentation.
#[derive(LogicBlock)]
pub struct AgentCheck {
    /// The agent port's request; `grant` back.
    pub request: AgentRequestSink,
    /// The matcher granted this agent port.
    pub grant: Signal<In, bool>,
    /// Credits of the output's `mgmt_vc`.
    pub credits: Signal<In, Bits<CREDIT_BITS>>,
    /// The output's `mgmt_vc` is free (no packet holds it).
    pub free: Signal<In, bool>,
    /// The output's `mgmt_vc` is marked starving.
    pub starved: Signal<In, bool>,
    /// The offered flit may move.
    pub eligible: Signal<Out, bool>,
    /// A head was refused for too few credits.
    pub refused: Signal<Out, bool>,
    /// The head's `len` clamped to `1..=max_len`, and the credits it needs.
    len: Signal<Local, Bits<CREDIT_BITS>>,
    need: Signal<Local, Bits<CREDIT_BITS>>,
    /// `last` is the allocator's (for the output unit), not read here: acknowledged for the lint.
    unused_last: Signal<Local, bool>,
    max_len: Constant<Bits<CREDIT_BITS>>,
    one: Constant<Bits<CREDIT_BITS>>,
}

impl AgentCheck {
    /// The check for packets of at most `max_len` flits.
    pub fn new(max_len: usize) -> Self {
        Self {
            request: Default::default(),
            grant: Default::default(),
            credits: Default::default(),
            free: Default::default(),
            starved: Default::default(),
            eligible: Default::default(),
            refused: Default::default(),
            len: Default::default(),
            need: Default::default(),
            unused_last: Default::default(),
            max_len: Constant::new((max_len as u64).into()),
            one: Constant::new(1u64.into()),
        }
    }
}

impl Logic for AgentCheck {
    #[hdl_gen]
    fn update(&mut self) {
        self.request.grant.next = self.grant.val();
        self.unused_last.next = self.request.last.val();
        self.len.next = self.request.len.val();
        if self.request.len.val() > self.max_len.val() {
            self.len.next = self.max_len.val();
        }
        if self.request.len.val() == 0 {
            self.len.next = self.one.val();
        }
        self.need.next = self.len.val();
        if self.starved.val() {
            self.need.next = self.max_len.val();
        }
        self.eligible.next = self.request.valid.val()
            & self.credits.val().any()
            & (!self.request.head.val()
                | (self.free.val() & (self.credits.val() >= self.need.val())));
        self.refused.next = self.request.valid.val()
            & self.request.head.val()
            & self.free.val()
            & (self.credits.val() < self.len.val());
    }
}

#[test]
fn agent_check_is_synthesizable() {
    let mut uut = AgentCheck::new(6);
    uut.connect_all();
    yosys_validate("agent_check", &generate_verilog(&uut)).unwrap();
}
