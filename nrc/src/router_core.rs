//! `RouterCore`: the router without its link layers (issue 11): `PORTS` input ports, the
//! routing, the switch and the management plane, between router channels in and out.
//!
//! ```text
//! inputs[p] --> InputPort[p] --switch request--> Switch --> outputs[p]
//!                 |  ^ route       ^ queued          | credits, free    ^ from_agent[p]
//!      route_head v  |             |                 v                  |
//!               RouteUnit <--states-- RouteStatus <--+                  |
//!                 ^ route_table                                         |
//!                 |                                                     |
//!   to_agent[p] --+--> NrcMgmt (RS mesh, agent, register file) --outbound[p]
//!                        i2c, links[p], chip_faults
//! ```
//!
//! - [`InputPort`] per port: the DAMQ buffer, route requests, per-VC state, VC policy, head
//!   rewrite; its management packets go to the mesh's `inbound[p]`.
//! - [`RouteUnit`]: one route-compute stage per input port around one route table (a RAM copy
//!   per input port), written by the register file's indirect routing-table registers
//!   (`route_table` of [`NrcMgmt`]); `deterministic` chooses the route mode for every port.
//! - [`RouteStatus`]: the adaptive choice's view of the outputs (the switch's credits and
//!   free VCs, the input ports' `queued`), registered.
//! - [`Switch`]: allocation, crossbar, output units; the agent's packets for output `p` (the
//!   mesh's `outbound[p]`) are one more requester of that output.
//! - [`NrcMgmt`]: the relay-station mesh in `ROWS` rows, the management agent with its EEPROM
//!   (I2C pins of this block), the router's register file; `links[p]` are the link layers'
//!   reports shown in port `p`'s registers.
//!
//! **Timing**: a head arriving on an idle VC in cycle `c` leaves on its output channel in
//! `c + 3` at zero load (two cycles in the input port: its route is registered, then offered;
//! one in the switch; the system bench asserts it); `c + 2` without the route stage
//! (`router.route_stage = 0`). Management packets take the mesh's latency to the agent and back.
//!
//! **Faults** to the agent (`chip_faults`, agent fault inputs 4..=7; a rising edge is a fault
//! event, reported if enabled): bit 0 pulses when any input port drops a head without a route;
//! bit 1 is high while any output's credit counters saw a protocol error (a broken
//! neighbour); bits 2 and 3 are `link_faults` (the link layers' faults: `nrc_top` drives bit
//! 0 high while any port's link is dead, bit 1 while any port saw a link protocol error).
//!
//! **Events** (one-cycle pulses): per port the input port's drop reasons (`drops[p]`, bit
//! `e` of [`crate::port::event`]), and per output port `flits_out`, `packets_out` (bit `p`);
//! `errors`: the switch's sticky credit errors. The same events, the flits and heads arriving
//! on each input channel, the link ports' `discards` and the input buffers' per-VC occupancy
//! are counted in the management plane's port counters ([`crate::port_counters`]).
//!
//! **Reset** (synchronous) resets everything together; the route table keeps its entries (the
//! configuration loader rewrites them after a reset when the EEPROM holds them).
//!
//! Parameters: `PORTS` (2..=32, as the input port), `VCS`, `VCB`, `W`, `PVW`, `PVB`, `PVL`,
//! `RQ` as [`Switch`]; `SLOTS`, `AW`, `DCW` as the DAMQ; `S`, `SW`, `PS`, `AB` as
//! [`RouteUnit`]; `MCW`, `ROWS`, `RW` as [`NrcMgmt`] (20-bit beats). Use
//! [`router_core!`](crate::router_core) to fill the widths in; elaboration values in
//! [`RouterCoreParams`].
use crate::nrc_mgmt::{NrcMgmt, NrcMgmtParams, RouteTableSource, NRC_CHIP_FAULTS};
use crate::port::{event, InputPort, InputPortParams, SwitchRequestSource};
use crate::routing::route_status::RouteStatus;
use crate::routing::{HeadSource, OutputStatesSource, RouteResultSource, RouteUnit};
use crate::switch::{Switch, SwitchParams};
use hdl::channel::{ChannelSink, ChannelSource};
use hdl::formats::FLIT_BITS;
use hdl::llp::regs::LinkReportSink;
use hdl::mgmt::i2c_master::I2cPins;
use hdl::mgmt::relay_station::{RsBeatSource, RS_BEAT_BITS, RS_PORT_BITS};
use hdl::params::Config;
use rust_hdl::prelude::*;

// The core drives four of the agent's chip fault inputs (see the module documentation).
const _: () = assert!(
    NRC_CHIP_FAULTS >= 4,
    "RouterCore: the agent needs four chip fault inputs"
);

/// State bits per output port of the adaptive choice (credits and occupancy saturate at 127).
pub const ROUTE_STATE_BITS: usize = 7;

/// The type of a [`RouterCore`] with `$ports` ports, `$vcs` VCs, `$slots` DAMQ slots per port,
/// a route table of `$nodes` destinations and the mesh in `$rows` rows, widths filled in:
/// `router_core!(5, 2, 128, 256, 1)`.
#[macro_export]
macro_rules! router_core {
    ($ports:expr, $vcs:expr, $slots:expr, $nodes:expr, $rows:expr) => {
        $crate::router_core::RouterCore<
            { $ports },
            { $vcs },
            { hdl::channel::channel_vc_bits($vcs) },
            { hdl::bits::index_bits($ports) },
            { $vcs * hdl::bits::index_bits($ports) },
            { $vcs * hdl::channel::channel_vc_bits($vcs) },
            { $vcs * 8 },
            { $ports + 1 },
            { $slots },
            { hdl::bits::clog2($slots) },
            { hdl::bits::count_bits($slots) },
            { $crate::router_core::ROUTE_STATE_BITS },
            { $crate::router_core::ROUTE_STATE_BITS + 1 },
            { $ports * $crate::router_core::ROUTE_STATE_BITS },
            { hdl::bits::clog2($nodes) },
            { hdl::width::chunk_index_bits(hdl::formats::FLIT_BITS, hdl::mgmt::relay_station::RS_BEAT_BITS) },
            { $rows },
            { hdl::arb::index_width($rows) },
            { hdl::bits::clog2($ports << $crate::regs::PORT_COUNTER_BITS) },
            { hdl::bits::count_bits($ports << $crate::regs::PORT_COUNTER_BITS) },
            { $ports * $crate::port_counters::COUNTERS },
            { $ports * $vcs * $crate::port_counters::OCCUPANCY_BITS },
        >
    };
}

/// Elaboration values of a [`RouterCore`].
#[derive(Clone, Copy, Debug)]
pub struct RouterCoreParams {
    /// Every input port's (the same for all: DAMQ, management VC, VC policy, down ports).
    pub input: InputPortParams,
    /// The switch's.
    pub switch: SwitchParams,
    /// The management plane's (the agent's EEPROM timing and image).
    pub mgmt: NrcMgmtParams,
    /// Destinations in the route table (its depth).
    pub nodes: usize,
    /// The reset value of every port's `link_settings` register: the link ports'
    /// [`LinkPortParams::settings_reset`](hdl::link_port::LinkPortParams::settings_reset)
    /// (`NrcTop` sets it from its ports' parameters).
    pub link_settings: u64,
}

impl RouterCoreParams {
    /// The values of `cfg`, with `down_ports` leading down the fat tree, a route table of
    /// `nodes` destinations and the management plane's `mgmt` values; the ports'
    /// `link_settings` reset to the settings of a router's link port of `cfg`.
    pub fn from_config(cfg: &Config, down_ports: u64, nodes: usize, mgmt: NrcMgmtParams) -> Self {
        Self {
            input: InputPortParams::from_config(cfg, down_ports),
            switch: SwitchParams::from_config(cfg),
            mgmt,
            nodes,
            link_settings: hdl::link_port::LinkPortParams::router(cfg).settings_reset(),
        }
    }
}

/// The router core; see the module documentation.
#[derive(LogicBlock)]
pub struct RouterCore<
    const PORTS: usize,
    const VCS: usize,
    const VCB: usize,
    const W: usize,
    const PVW: usize,
    const PVB: usize,
    const PVL: usize,
    const RQ: usize,
    const SLOTS: usize,
    const AW: usize,
    const DCW: usize,
    const S: usize,
    const SW: usize,
    const PS: usize,
    const AB: usize,
    const MCW: usize,
    const ROWS: usize,
    const RW: usize,
    const CRA: usize,
    const CPW: usize,
    const CN: usize,
    const CLV: usize,
> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset of the whole core (the route table keeps its entries).
    pub reset: Signal<In, bool>,
    /// Per port: flits in from the link layer, credits back.
    pub inputs: [ChannelSink<VCS, VCB>; PORTS],
    /// Per port: flits out to the link layer, credits back from the next hop.
    pub outputs: [ChannelSource<VCS, VCB>; PORTS],
    /// Deterministic routing (else adaptive), every port.
    pub deterministic: Signal<In, bool>,
    /// The link layers' faults, agent chip faults 2 and 3 (see the module documentation).
    pub link_faults: Signal<In, Bits<2>>,
    /// Per port: bit 0 a flit the router sent on the port was discarded (its link is dead),
    /// bit 1 that flit was a head (events, counted in the port's counters).
    pub discards: Vec<Signal<In, Bits<2>>>,
    /// Per port: the link layer's report, shown in the port's registers.
    pub links: [LinkReportSink; PORTS],
    /// The configuration EEPROM's I2C bus.
    pub i2c: I2cPins,
    /// This chip's ID (the management agent's `chip_id` register), for the link ports.
    pub chip_id: Signal<Out, Bits<16>>,
    /// Per port: the input port's drop events (bit `e` of [`event`], one-cycle pulses).
    pub drops: Vec<Signal<Out, Bits<{ event::COUNT }>>>,
    /// Bit `p`: a flit is on `outputs[p]` (event).
    pub flits_out: Signal<Out, Bits<PORTS>>,
    /// Bit `p`: the flit on `outputs[p]` ends its packet (event).
    pub packets_out: Signal<Out, Bits<PORTS>>,
    /// Bit `p`: output `p`'s credit counters saw a protocol error (sticky until reset).
    pub errors: Signal<Out, Bits<PORTS>>,
    ports: Vec<InputPort<VCS, VCB, SLOTS, AW, DCW, PORTS, W, PVW, PVB, PVL>>,
    routing: RouteUnit<PORTS, W, S, SW, PS, AB>,
    status: RouteStatus<PORTS, VCS, PVL, S, PS>,
    switch: Switch<PORTS, VCS, VCB, W, PVW, PVB, PVL, RQ>,
    mgmt: NrcMgmt<RS_BEAT_BITS, MCW, PORTS, ROWS, RW, PVL, CRA, CPW, CN, CLV>,
    /// Some input port dropped a head without a route in this cycle.
    no_route: Signal<Local, bool>,
    faults: Signal<Local, Bits<NRC_CHIP_FAULTS>>,
    /// The route unit's fault pulses: the input ports' `fault` (the same event, registered
    /// with its drop) is what reaches the agent, so these are acknowledged unused.
    route_faults_unused: Signal<Local, bool>,
    type_bit: Constant<Bits<8>>,
    head_bit: Constant<Bits<8>>,
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
        const SLOTS: usize,
        const AW: usize,
        const DCW: usize,
        const S: usize,
        const SW: usize,
        const PS: usize,
        const AB: usize,
        const MCW: usize,
        const ROWS: usize,
        const RW: usize,
        const CRA: usize,
        const CPW: usize,
        const CN: usize,
        const CLV: usize,
    >
    RouterCore<
        PORTS,
        VCS,
        VCB,
        W,
        PVW,
        PVB,
        PVL,
        RQ,
        SLOTS,
        AW,
        DCW,
        S,
        SW,
        PS,
        AB,
        MCW,
        ROWS,
        RW,
        CRA,
        CPW,
        CN,
        CLV,
    >
{
    /// The core for `p`; panics naming the parameter as its children do, or if the input
    /// ports and the switch disagree on the management VC.
    pub fn new(p: RouterCoreParams) -> Self {
        assert_eq!(
            p.input.mgmt_vc, p.switch.mgmt_vc,
            "RouterCore: the input ports' and the switch's mgmt_vc differ"
        );
        assert_eq!(
            p.input.mgmt_vc, p.mgmt.mgmt_vc as usize,
            "RouterCore: the input ports' and the agent's mgmt_vc differ"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            inputs: std::array::from_fn(|_| Default::default()),
            outputs: std::array::from_fn(|_| Default::default()),
            deterministic: Default::default(),
            link_faults: Default::default(),
            discards: (0..PORTS).map(|_| Default::default()).collect(),
            links: std::array::from_fn(|_| Default::default()),
            i2c: Default::default(),
            chip_id: Default::default(),
            drops: (0..PORTS).map(|_| Default::default()).collect(),
            flits_out: Default::default(),
            packets_out: Default::default(),
            errors: Default::default(),
            ports: (0..PORTS)
                .map(|i| InputPort::with_transit(p.input, i))
                .collect(),
            routing: RouteUnit::new(p.nodes),
            status: RouteStatus::new(),
            switch: Switch::new(p.switch),
            mgmt: NrcMgmt::new(p.mgmt, p.link_settings),
            no_route: Default::default(),
            faults: Default::default(),
            route_faults_unused: Default::default(),
            type_bit: Constant::new((hdl::formats::flit::TYPE_BIT as u64).into()),
            head_bit: Constant::new((hdl::formats::flit::HEAD_BIT as u64).into()),
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
        const SLOTS: usize,
        const AW: usize,
        const DCW: usize,
        const S: usize,
        const SW: usize,
        const PS: usize,
        const AB: usize,
        const MCW: usize,
        const ROWS: usize,
        const RW: usize,
        const CRA: usize,
        const CPW: usize,
        const CN: usize,
        const CLV: usize,
    > Logic
    for RouterCore<
        PORTS,
        VCS,
        VCB,
        W,
        PVW,
        PVB,
        PVL,
        RQ,
        SLOTS,
        AW,
        DCW,
        S,
        SW,
        PS,
        AB,
        MCW,
        ROWS,
        RW,
        CRA,
        CPW,
        CN,
        CLV,
    >
{
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, routing, switch, mgmt, status);
        self.routing.reset.next = self.reset.val();
        self.switch.reset.next = self.reset.val();
        self.mgmt.reset.next = self.reset.val();
        self.chip_id.next = self.mgmt.chip_id.val();
        self.routing.deterministic.next = self.deterministic.val();
        RouteTableSource::<PORTS>::join(&mut self.mgmt.route_table, &mut self.routing.management);
        I2cPins::link(&mut self.i2c, &mut self.mgmt.i2c);
        self.no_route.next = false;
        for p in 0..PORTS {
            self.ports[p].clock.next = self.clock.val();
            self.ports[p].reset.next = self.reset.val();
            // Data: channel in, the input port, the switch, channel out.
            ChannelSink::<VCS, VCB>::link(&mut self.inputs[p], &mut self.ports[p].channel);
            SwitchRequestSource::<VCS, VCB, PVW, PVB, PVL>::join(
                &mut self.ports[p].switch,
                &mut self.switch.inputs[p],
            );
            ChannelSource::<VCS, VCB>::link(&mut self.outputs[p], &mut self.switch.outputs[p]);
            // Routing: the port's heads and routes, the outputs' state for the choice.
            HeadSource::join(&mut self.ports[p].route_head, &mut self.routing.heads[p]);
            RouteResultSource::<PORTS, W>::join(
                &mut self.routing.routes[p],
                &mut self.ports[p].route,
            );
            OutputStatesSource::<PS>::join(&mut self.status.states[p], &mut self.routing.states[p]);
            self.status.credits[p].next = self.switch.credits[p].val();
            self.status.free[p].next = self.switch.free[p].val();
            self.status.queued[p].next = self.ports[p].queued.val();
            // Management: the port's packets to the mesh, the agent's for the port to the
            // switch, the link report to the registers.
            RsBeatSource::<FLIT_BITS, RS_PORT_BITS>::join(
                &mut self.ports[p].to_agent,
                &mut self.mgmt.inbound[p],
            );
            RsBeatSource::<FLIT_BITS, RS_PORT_BITS>::join(
                &mut self.mgmt.outbound[p],
                &mut self.switch.from_agent[p],
            );
            LinkReportSink::link(&mut self.links[p], &mut self.mgmt.links[p]);
            self.drops[p].next = self.ports[p].events.val();
            // The port's counters.
            self.mgmt.counters[p].flit_in.next = self.inputs[p].valid.val();
            self.mgmt.counters[p].packet_in.next = self.inputs[p].valid.val()
                & self.inputs[p]
                    .flit
                    .val()
                    .get_bit(self.head_bit.val().index())
                & !self.inputs[p]
                    .flit
                    .val()
                    .get_bit(self.type_bit.val().index());
            self.mgmt.counters[p].flit_out.next = self.switch.flits_out.val().get_bit(p);
            self.mgmt.counters[p].packet_out.next = self.switch.packets_out.val().get_bit(p);
            self.mgmt.counters[p].drops.next = self.ports[p].events.val();
            self.mgmt.counters[p].discarded.next = self.discards[p].val().get_bit(0);
            self.mgmt.counters[p].discarded_head.next = self.discards[p].val().get_bit(1);
            self.mgmt.counters[p].occupancy.next = self.ports[p].occupancy.val();
            self.no_route.next = self.no_route.val() | self.ports[p].fault.val();
        }
        // The route faults of every port and the outputs' credit errors, to the agent.
        self.faults.next = 0.into();
        self.faults.next = self.faults.val().replace_bit(0, self.no_route.val());
        self.faults.next = self
            .faults
            .val()
            .replace_bit(1, self.switch.errors.val().any());
        self.faults.next = self
            .faults
            .val()
            .replace_bit(2, self.link_faults.val().get_bit(0));
        self.faults.next = self
            .faults
            .val()
            .replace_bit(3, self.link_faults.val().get_bit(1));
        self.mgmt.chip_faults.next = self.faults.val();
        self.route_faults_unused.next = self.routing.faults.val().any();
        self.flits_out.next = self.switch.flits_out.val();
        self.packets_out.next = self.switch.packets_out.val();
        self.errors.next = self.switch.errors.val();
    }
}

/// The default build's core: 5 ports, 2 VCs, 128-flit DAMQs, 256 destinations, the mesh in
/// one row of 5.
pub type RouterCore5 = crate::router_core!(5, 2, 128, 256, 1);

#[cfg(test)]
mod tests {
    use super::*;

    /// Small EEPROM timing: the values do not matter for synthesis.
    fn mgmt() -> NrcMgmtParams {
        NrcMgmtParams {
            mgmt_vc: 1,
            quarter: 2,
            stretch_limit: 64,
            poll_limit: 8,
            image_base: 0,
            max_entries: 16,
        }
    }

    #[test]
    fn router_core_is_synthesizable() {
        let cfg = Config::default();
        let mut uut = RouterCore5::new(RouterCoreParams::from_config(&cfg, 0, 256, mgmt()));
        uut.connect_all();
        yosys_validate("router_core", &generate_verilog(&uut)).unwrap();
    }

    #[test]
    #[should_panic(expected = "mgmt_vc differ")]
    fn disagreeing_management_vcs_are_rejected() {
        let cfg = Config::default();
        let mut p = RouterCoreParams::from_config(&cfg, 0, 256, mgmt());
        p.switch.mgmt_vc = 0;
        let _ = RouterCore5::new(p);
    }
}
