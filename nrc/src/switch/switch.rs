//! The router's switch: every input port's requests, the management agent's packets per
//! output port, and per output port one flit per cycle onto its router channel, with
//! virtual-cut-through credit control. See [`crate::switch`] for the pieces.
//!
//! **Timing.** A flit granted in cycle `c` (the grant is combinational from the input ports'
//! requests and registered state, and the input port's `flit` follows the grant in the same
//! cycle) is on `outputs[p]` in `c + 1`: head in to head out is 2 cycles through the router
//! core at zero load (one for the input unit, one here; 3 with the input unit's route stage,
//! `router.route_stage`).
//!
//! **Guarantees** (the benches check them): per output VC one packet at a time, whole and in
//! order (a head takes the VC, its `last` flit frees it); a head leaves only with at least its
//! `len` credits on its output VC, so no flit ever leaves without a credit; the management
//! agent's packets leave on `network.mgmt_vc` of their port under the same rule; no input VC
//! starves (see [`SwitchAllocator`]); a VC without credits never blocks another VC.
//!
//! **Status** for adaptive routing: per output port the free credits of every VC (`credits[p]`,
//! VC `v` at bits `v * 8`, registered) and the VCs no packet holds (`free[p]`).
//! **Events** (item 6, one-cycle pulses counted by the register file's counter banks): bit `p`
//! of `flits_out` for every flit on `outputs[p]`, of `packets_out` for every packet's last flit.
//! `errors` (sticky): an output's credit counter saw a spend without credit or an
//! over-return (a broken neighbour; never in a correct network).
//!
//! Reset (synchronous, with the input ports and the links): nothing granted while high; every
//! output VC free with `reserve` credits, pointers and starving marks cleared, the agent ports
//! between packets.
//!
//! Parameters: as [`SwitchAllocator`]; elaboration values in [`SwitchParams`]. Use
//! [`switch!`](crate::switch).
use super::{
    AgentPort, AgentRequestSource, Crossbar, OutputControlSource, OutputUnit, SwitchAllocator,
    SwitchParams,
};
use crate::port::SwitchRequestSink;
use hdl::channel::ChannelSource;
use hdl::formats::FLIT_BITS;
use hdl::mgmt::relay_station::{RsBeatSink, RS_PORT_BITS};
use rust_hdl::prelude::*;

/// The switch; see the module documentation.
#[derive(LogicBlock)]
pub struct Switch<
    const PORTS: usize,
    const VCS: usize,
    const VCB: usize,
    const W: usize,
    const PVW: usize,
    const PVB: usize,
    const PVL: usize,
    const RQ: usize,
> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see the module documentation).
    pub reset: Signal<In, bool>,
    /// Per input port: its requests and flits, the grant back.
    pub inputs: [SwitchRequestSink<VCS, VCB, PVW, PVB, PVL>; PORTS],
    /// Per output port: the link (flit out, credits back).
    pub outputs: [ChannelSource<VCS, VCB>; PORTS],
    /// Per output port: the management agent's packets for it (`nrc_mgmt`'s `outbound[p]`).
    pub from_agent: [RsBeatSink<FLIT_BITS, RS_PORT_BITS>; PORTS],
    /// Per output port: free credits per VC (8 bits at `v * 8`).
    pub credits: Vec<Signal<Out, Bits<PVL>>>,
    /// Per output port: bit `v`, no packet holds VC `v`.
    pub free: Vec<Signal<Out, Bits<VCS>>>,
    /// Bit `p`: a flit is on `outputs[p]` (event).
    pub flits_out: Signal<Out, Bits<PORTS>>,
    /// Bit `p`: the flit on `outputs[p]` ends its packet (event).
    pub packets_out: Signal<Out, Bits<PORTS>>,
    /// Bit `p`: output `p`'s credit counters saw a protocol error (sticky until reset).
    pub errors: Signal<Out, Bits<PORTS>>,
    allocator: SwitchAllocator<PORTS, VCS, VCB, W, PVW, PVB, PVL, RQ>,
    crossbar: Crossbar<PORTS>,
    units: Vec<OutputUnit<VCS, VCB, PVL>>,
    agent_ports: Vec<AgentPort>,
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
    > Switch<PORTS, VCS, VCB, W, PVW, PVB, PVL, RQ>
{
    /// The switch for `p`; panics naming the parameter on a bad combination.
    pub fn new(p: SwitchParams) -> Self {
        assert!(
            p.reserve >= p.max_len,
            "Switch: reserve ({}, router.reserved_flits_per_vc) must be at least max_len ({}, network.max_packet_flits)",
            p.reserve,
            p.max_len
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            inputs: std::array::from_fn(|_| Default::default()),
            outputs: std::array::from_fn(|_| Default::default()),
            from_agent: std::array::from_fn(|_| Default::default()),
            credits: (0..PORTS).map(|_| Default::default()).collect(),
            free: (0..PORTS).map(|_| Default::default()).collect(),
            flits_out: Default::default(),
            packets_out: Default::default(),
            errors: Default::default(),
            allocator: SwitchAllocator::new(p.iterations, p.max_len, p.mgmt_vc),
            crossbar: Crossbar::new(p.tile_rows, p.tile_cols),
            units: (0..PORTS).map(|_| OutputUnit::new(p.reserve)).collect(),
            agent_ports: (0..PORTS).map(|_| AgentPort::new()).collect(),
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
    > Logic for Switch<PORTS, VCS, VCB, W, PVW, PVB, PVL, RQ>
{
    #[hdl_gen]
    fn update(&mut self) {
        self.allocator.clock.next = self.clock.val();
        self.allocator.reset.next = self.reset.val();
        self.flits_out.next = 0.into();
        self.packets_out.next = 0.into();
        self.errors.next = 0.into();
        for i in 0..PORTS {
            SwitchRequestSink::<VCS, VCB, PVW, PVB, PVL>::link(
                &mut self.inputs[i],
                &mut self.allocator.requests[i],
            );
            self.crossbar.flits[i].next = self.inputs[i].flit.val();
        }
        for p in 0..PORTS {
            self.units[p].clock.next = self.clock.val();
            self.units[p].reset.next = self.reset.val();
            self.agent_ports[p].clock.next = self.clock.val();
            self.agent_ports[p].reset.next = self.reset.val();
            RsBeatSink::<FLIT_BITS, RS_PORT_BITS>::link(
                &mut self.from_agent[p],
                &mut self.agent_ports[p].from_agent,
            );
            AgentRequestSource::join(
                &mut self.agent_ports[p].request,
                &mut self.allocator.agents[p],
            );
            OutputControlSource::<VCS, VCB, PVL>::join(
                &mut self.units[p].control,
                &mut self.allocator.controls[p],
            );
            self.crossbar.selects[p].next = self.allocator.selects[p].val();
            self.units[p].crossbar_flit.next = self.crossbar.outputs[p].val();
            self.units[p].agent_flit.next = self.agent_ports[p].flit.val();
            ChannelSource::<VCS, VCB>::link(&mut self.outputs[p], &mut self.units[p].channel);
            self.credits[p].next = self.units[p].control.credits.val();
            self.free[p].next = self.units[p].control.free.val();
            self.flits_out.next = self
                .flits_out
                .val()
                .replace_bit(p, self.units[p].flit_out.val());
            self.packets_out.next = self
                .packets_out
                .val()
                .replace_bit(p, self.units[p].packet_out.val());
            self.errors.next = self.errors.val().replace_bit(p, self.units[p].error.val());
        }
    }
}

#[test]
fn switch_is_synthesizable() {
    let mut uut = <crate::switch!(4, 2)>::new(SwitchParams {
        reserve: 8,
        max_len: 6,
        mgmt_vc: 1,
        iterations: 2,
        tile_rows: 2,
        tile_cols: 2,
    });
    uut.connect_all();
    yosys_validate("switch", &generate_verilog(&uut)).unwrap();
}
