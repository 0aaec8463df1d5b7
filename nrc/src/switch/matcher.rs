//! The allocator's matching: which input sends which of its eligible VCs to which output, in
//! the cycle of the request, separable input-first round robin with iSLIP-style iterations.
//!
//! Iteration `1..=iterations`, over the inputs and outputs not matched by earlier ones:
//! 1. each input picks one of its eligible VCs whose output is still unmatched, round robin
//!    from its pointer, and asks that VC's output (`ports`, packed as the input port's request);
//! 2. each output picks one of the inputs asking it, or its agent port (requester `PORTS`,
//!    which asks only its own output, in every iteration while eligible), round robin from its
//!    pointer. An input asks one output, so every grant is accepted.
//!
//! Round robin: the pointer is a thermometer of the requesters after the last one served; the
//! choice is the lowest request inside it, else the lowest request overall, each found with a
//! prefix OR in `ceil(log2 N)` doubling steps (as [`hdl::arb::RrArbiter`]; the positions after
//! the choice are the prefix shifted by one, the next pointer at no extra cost). The choice is
//! written out in place rather than as a child block, because every iteration needs its own
//! copy and rust-hdl cannot index a per-iteration, per-port array of children by two loop
//! variables.
//!
//! Pointers: on an edge where input `i` is matched, its pointer moves just past the VC granted
//! when the flit granted is its packet's last (`lasts`), and onto that VC otherwise, so an input
//! keeps sending one packet while it can (packet-mode round robin over its VCs). Why: each
//! output VC is held by one packet from its head to its tail, so a packet whose input sends
//! it only every k-th cycle (interleaved with its other VCs' packets) holds its output at 1/k
//! of a flit per cycle while heads of other inputs wait for that VC; with the Dest-Mod VC rule
//! (one data VC per destination port) this cost uniform traffic about a third of the
//! throughput (`bench router`). Where output `p` is matched, just past the requester granted (whatever the iteration: an
//! output left unmatched by iteration 1 had no request in it, so a later iteration never moves
//! a pointer past an input that asked in iteration 1). Otherwise they stay, and every
//! iteration uses the same pointers.
//!
//! Outputs (combinational): per input the VC granted, one-hot (zero: none); per output the
//! requester granted, one-hot over `PORTS + 1` (bit `PORTS`: the agent port). Nothing is
//! granted while `reset` is high, which puts every pointer back to the first requester.
//!
//! Parameters: `PORTS` (2..=64), `VCS` (2..=8), `W` = `index_bits(PORTS)`, `PVW` = `VCS * W`,
//! `RQ` = `PORTS + 1`; elaboration value `iterations` (1..=3, `router.alloc_iterations`). Use
//! [`matcher!`](crate::matcher).
use crate::routing::defaults;
use rust_hdl::prelude::*;

/// The matching; see the module documentation.
#[derive(LogicBlock)]
pub struct Matcher<
    const PORTS: usize,
    const VCS: usize,
    const W: usize,
    const PVW: usize,
    const RQ: usize,
> {
    /// Clock of the pointers.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: pointers to the first requester; no grant in this cycle.
    pub reset: Signal<In, bool>,
    /// Per input: bit `v`, VC `v` may be granted.
    pub eligible: Vec<Signal<In, Bits<VCS>>>,
    /// Per input: each VC's output port number, `W` bits at `v * W`.
    pub ports: Vec<Signal<In, Bits<PVW>>>,
    /// Per input: bit `v`, VC `v`'s front is its packet's last flit.
    pub lasts: Vec<Signal<In, Bits<VCS>>>,
    /// Bit `p`: output `p`'s agent port may be granted.
    pub agents: Signal<In, Bits<PORTS>>,
    /// Per input: the VC granted, one-hot (zero: none).
    pub input_grants: Vec<Signal<Out, Bits<VCS>>>,
    /// Per output: the requester granted, one-hot (bit `PORTS`: the agent port; zero: none).
    pub output_grants: Vec<Signal<Out, Bits<RQ>>>,
    /// Per input and output: the pointer.
    input_masks: Vec<DFF<Bits<VCS>>>,
    output_masks: Vec<DFF<Bits<RQ>>>,
    /// Inputs and outputs matched so far (over the iterations).
    matched_inputs: Signal<Local, Bits<PORTS>>,
    matched_outputs: Signal<Local, Bits<PORTS>>,
    /// Per input, in the current iteration: candidate VCs, the pick, the positions after it,
    /// the output asked (one-hot).
    candidates: Vec<Signal<Local, Bits<VCS>>>,
    picks: Vec<Signal<Local, Bits<VCS>>>,
    pick_after: Vec<Signal<Local, Bits<VCS>>>,
    asks: Vec<Signal<Local, Bits<PORTS>>>,
    /// Per output, in the current iteration: its requesters.
    requesters: Vec<Signal<Local, Bits<RQ>>>,
    /// Per input and output: the next pointer if matched.
    input_after: Vec<Signal<Local, Bits<VCS>>>,
    output_after: Vec<Signal<Local, Bits<RQ>>>,
    // Working values, reused by every port and iteration in turn.
    vc_masked: Signal<Local, Bits<VCS>>,
    vc_prefix: Signal<Local, Bits<VCS>>,
    rq_masked: Signal<Local, Bits<RQ>>,
    rq_prefix: Signal<Local, Bits<RQ>>,
    rq_grant: Signal<Local, Bits<RQ>>,
    rq_after: Signal<Local, Bits<RQ>>,
    port_field: Signal<Local, Bits<PVW>>,
    port_number: Signal<Local, Bits<W>>,
    blocked: Signal<Local, Bits<PORTS>>,
    port_numbers: Vec<Constant<Bits<W>>>,
    port_offsets: Vec<Constant<Bits<16>>>,
    _iterations: usize,
    _vc_steps: usize,
    _rq_steps: usize,
}

impl<const PORTS: usize, const VCS: usize, const W: usize, const PVW: usize, const RQ: usize>
    Matcher<PORTS, VCS, W, PVW, RQ>
{
    /// The matching with `iterations` iterations; panics naming the parameter unless the
    /// generics agree and `iterations` is 1..=3.
    pub fn new(iterations: usize) -> Self {
        assert!(
            (2..=64).contains(&PORTS),
            "Matcher: PORTS must be 2..=64, got {PORTS}"
        );
        assert!(
            (2..=8).contains(&VCS),
            "Matcher: VCS (network.vcs) must be 2..=8, got {VCS}"
        );
        assert!(
            W == hdl::bits::index_bits(PORTS) && PVW == VCS * W && RQ == PORTS + 1,
            "Matcher<PORTS = {PORTS}, VCS = {VCS}>: W must be index_bits(PORTS), PVW = VCS * W, RQ = PORTS + 1"
        );
        assert!(
            (1..=3).contains(&iterations),
            "Matcher: router.alloc_iterations = {iterations} must be 1..=3"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            eligible: defaults(PORTS),
            ports: defaults(PORTS),
            lasts: defaults(PORTS),
            agents: Default::default(),
            input_grants: defaults(PORTS),
            output_grants: defaults(PORTS),
            input_masks: defaults(PORTS),
            output_masks: defaults(PORTS),
            matched_inputs: Default::default(),
            matched_outputs: Default::default(),
            candidates: defaults(PORTS),
            picks: defaults(PORTS),
            pick_after: defaults(PORTS),
            asks: defaults(PORTS),
            requesters: defaults(PORTS),
            input_after: defaults(PORTS),
            output_after: defaults(PORTS),
            vc_masked: Default::default(),
            vc_prefix: Default::default(),
            rq_masked: Default::default(),
            rq_prefix: Default::default(),
            rq_grant: Default::default(),
            rq_after: Default::default(),
            port_field: Default::default(),
            port_number: Default::default(),
            blocked: Default::default(),
            port_numbers: (0..PORTS)
                .map(|p| Constant::new((p as u64).into()))
                .collect(),
            port_offsets: (0..VCS)
                .map(|v| Constant::new(((v * W) as u64).into()))
                .collect(),
            _iterations: iterations,
            _vc_steps: hdl::bits::index_bits(VCS),
            _rq_steps: hdl::bits::index_bits(RQ),
        }
    }
}

impl<const PORTS: usize, const VCS: usize, const W: usize, const PVW: usize, const RQ: usize> Logic
    for Matcher<PORTS, VCS, W, PVW, RQ>
{
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..PORTS {
            self.input_masks[i].clock.next = self.clock.val();
            self.input_masks[i].d.next = self.input_masks[i].q.val();
            self.input_grants[i].next = 0.into();
            self.input_after[i].next = self.input_masks[i].q.val();
        }
        for p in 0..PORTS {
            self.output_masks[p].clock.next = self.clock.val();
            self.output_masks[p].d.next = self.output_masks[p].q.val();
            self.output_grants[p].next = 0.into();
            self.output_after[p].next = self.output_masks[p].q.val();
        }
        self.matched_inputs.next = 0.into();
        self.matched_outputs.next = 0.into();
        for _it in 0..self._iterations {
            // 1. Each unmatched input picks an eligible VC whose output is unmatched.
            for i in 0..PORTS {
                self.candidates[i].next = 0.into();
                for v in 0..VCS {
                    self.port_field.next = self.ports[i].val() >> self.port_offsets[v].val();
                    self.port_number.next = self.port_field.val().get_bits::<W>(0);
                    self.blocked.next = self.matched_outputs.val() >> self.port_number.val();
                    if self.eligible[i].val().get_bit(v) & !self.blocked.val().get_bit(0) {
                        self.candidates[i].next = self.candidates[i].val().replace_bit(v, true);
                    }
                }
                if self.matched_inputs.val().get_bit(i) {
                    self.candidates[i].next = 0.into();
                }
                self.vc_masked.next = self.candidates[i].val() & self.input_masks[i].q.val();
                if !self.vc_masked.val().any() {
                    self.vc_masked.next = self.candidates[i].val();
                }
                self.vc_prefix.next = self.vc_masked.val();
                for s in 0..self._vc_steps {
                    self.vc_prefix.next =
                        self.vc_prefix.val() | (self.vc_prefix.val() << (1_u64 << s));
                }
                self.picks[i].next = self.vc_masked.val() & !(self.vc_prefix.val() << 1);
                // Past the pick after a packet's last flit, else onto it.
                self.pick_after[i].next = self.vc_prefix.val();
                if (self.picks[i].val() & self.lasts[i].val()).any() {
                    self.pick_after[i].next = self.vc_prefix.val() << 1;
                }
                self.asks[i].next = 0.into();
                for v in 0..VCS {
                    self.port_field.next = self.ports[i].val() >> self.port_offsets[v].val();
                    self.port_number.next = self.port_field.val().get_bits::<W>(0);
                    for p in 0..PORTS {
                        if self.picks[i].val().get_bit(v)
                            & (self.port_number.val() == self.port_numbers[p].val())
                        {
                            self.asks[i].next = self.asks[i].val().replace_bit(p, true);
                        }
                    }
                }
            }
            // 2. Each unmatched output picks an input asking it, or its agent port.
            for p in 0..PORTS {
                self.requesters[p].next = 0.into();
                for i in 0..PORTS {
                    self.requesters[p].next = self.requesters[p]
                        .val()
                        .replace_bit(i, self.asks[i].val().get_bit(p));
                }
                for top in PORTS..(PORTS + 1) {
                    self.requesters[p].next = self.requesters[p]
                        .val()
                        .replace_bit(top, self.agents.val().get_bit(p));
                }
                if self.matched_outputs.val().get_bit(p) {
                    self.requesters[p].next = 0.into();
                }
                self.rq_masked.next = self.requesters[p].val() & self.output_masks[p].q.val();
                if !self.rq_masked.val().any() {
                    self.rq_masked.next = self.requesters[p].val();
                }
                self.rq_prefix.next = self.rq_masked.val();
                for s in 0..self._rq_steps {
                    self.rq_prefix.next =
                        self.rq_prefix.val() | (self.rq_prefix.val() << (1_u64 << s));
                }
                self.rq_grant.next = self.rq_masked.val() & !(self.rq_prefix.val() << 1);
                self.rq_after.next = self.rq_prefix.val() << 1;
                if self.rq_grant.val().any() {
                    self.output_grants[p].next = self.rq_grant.val();
                    self.output_after[p].next = self.rq_after.val();
                    self.matched_outputs.next = self.matched_outputs.val().replace_bit(p, true);
                }
                for i in 0..PORTS {
                    if self.rq_grant.val().get_bit(i) {
                        self.input_grants[i].next = self.picks[i].val();
                        self.input_after[i].next = self.pick_after[i].val();
                        self.matched_inputs.next = self.matched_inputs.val().replace_bit(i, true);
                    }
                }
            }
        }
        // Pointers move past what was granted.
        for i in 0..PORTS {
            if self.matched_inputs.val().get_bit(i) {
                self.input_masks[i].d.next = self.input_after[i].val();
            }
            if self.reset.val() {
                self.input_grants[i].next = 0.into();
                self.input_masks[i].d.next = 0.into();
            }
        }
        for p in 0..PORTS {
            if self.matched_outputs.val().get_bit(p) {
                self.output_masks[p].d.next = self.output_after[p].val();
            }
            if self.reset.val() {
                self.output_grants[p].next = 0.into();
                self.output_masks[p].d.next = 0.into();
            }
        }
    }
}

#[test]
fn matcher_is_synthesizable() {
    let mut uut = <crate::matcher!(4, 3)>::new(2);
    uut.connect_all();
    yosys_validate("matcher", &generate_verilog(&uut)).unwrap();
}
