//! `RouteStatus`: the output ports' state as the adaptive route choice reads it, built from
//! the switch's credits and the input ports' queues (the router core's glue between them and
//! the [`RouteUnit`](super::RouteUnit)).
//!
//! Per output port `p`:
//! - **credits**: the free credits of `p`'s free VCs downstream summed (the switch's
//!   `credits[p]`, 8 bits per VC, of the VCs whose bit in `free[p]` is set: a VC a packet holds
//!   cannot take a new head), saturated at `2^S - 1`. The sum, not the credits of one VC,
//!   because the route is chosen before the packet's output VC (which the VC policy may derive
//!   from the chosen port); the sum is the room the next hop has for a new packet.
//! - **occupancy**: `16 x` the number of input ports holding a routed packet for `p` that has not
//!   finished leaving (bit `p` of each input port's `queued`), saturated at `2^S - 1`. `queued`
//!   counts packets, not flits; 16 flits is about a packet's mean length under the benches'
//!   uniform lengths 2..=32, so a waiting packet weighs against a port about as much as the
//!   flits it will spend there.
//!
//! Every input port sees the same state (`states[i]` are equal): they share one switch.
//!
//! **Registered**: `states` show the sums of the cycle before. The choice is a heuristic, so a
//! state one cycle old costs nothing measurable, and the register takes the credit counters'
//! arithmetic and the sums off the path from the switch's credit counters through the route
//! choice (which ended in the switch allocator and set the clock of the 5-port `nrc_top`).
//! No reset: the registers follow their inputs one cycle later.
//!
//! Parameters: `PORTS` ports, `VCS` VCs, `PVL` = `VCS * 8` (the switch's credit
//! buses), `S` state bits per port (1..=12), `PS` = `PORTS * S`.
use super::OutputStatesSource;
use rust_hdl::prelude::*;

/// Bits of the internal sums (8 VCs of 255 credits at most: 11 bits).
const SUM_BITS: usize = 12;

/// The output ports' state for the route choice; see the module documentation.
#[derive(LogicBlock)]
pub struct RouteStatus<
    const PORTS: usize,
    const VCS: usize,
    const PVL: usize,
    const S: usize,
    const PS: usize,
> {
    /// Per output port: free credits per VC (the switch's `credits[p]`, VC `v` at `v * 8`).
    pub credits: Vec<Signal<In, Bits<PVL>>>,
    /// Per output port: bit `v`, no packet holds VC `v` (the switch's `free[p]`).
    pub free: Vec<Signal<In, Bits<VCS>>>,
    /// Clock of the state registers.
    pub clock: Signal<In, Clock>,
    /// Per input port: bit `p`, it holds a routed packet for output `p` not yet gone.
    pub queued: Vec<Signal<In, Bits<PORTS>>>,
    /// Per input port: every output port's state (all equal).
    pub states: [OutputStatesSource<PS>; PORTS],
    /// Port `p`'s state at bit `p * S` of the packed buses; VC `v`'s credits at `v * 8`.
    port_offsets: Vec<Constant<Bits<8>>>,
    vc_offsets: Vec<Constant<Bits<8>>>,
    /// `2^S - 1`, the saturation value.
    most: Constant<Bits<SUM_BITS>>,
    /// The output port of the loop: one VC's credits, their sum and the queued count.
    vc_credit: Signal<Local, Bits<8>>,
    sum: Signal<Local, Bits<SUM_BITS>>,
    count: Signal<Local, Bits<SUM_BITS>>,
    /// The packed buses, built port by port.
    credit_bus: Signal<Local, Bits<PS>>,
    occupancy_bus: Signal<Local, Bits<PS>>,
    /// The buses as `states` show them: registered.
    credit_state: DFF<Bits<PS>>,
    occupancy_state: DFF<Bits<PS>>,
}

impl<const PORTS: usize, const VCS: usize, const PVL: usize, const S: usize, const PS: usize>
    RouteStatus<PORTS, VCS, PVL, S, PS>
{
    /// The block; panics naming the parameter if the widths disagree.
    pub fn new() -> Self {
        assert_eq!(PVL, VCS * 8, "RouteStatus: PVL = VCS * 8");
        assert_eq!(PS, PORTS * S, "RouteStatus: PS = PORTS * S");
        assert!(
            (1..=SUM_BITS).contains(&S),
            "RouteStatus: S must be 1..={SUM_BITS}"
        );
        assert!(PS < 256, "RouteStatus: PORTS * S must be below 256");
        let c = |v: usize| Constant::new(Bits::<8>::from(v as u64));
        Self {
            clock: Default::default(),
            credits: (0..PORTS).map(|_| Default::default()).collect(),
            free: (0..PORTS).map(|_| Default::default()).collect(),
            queued: (0..PORTS).map(|_| Default::default()).collect(),
            states: std::array::from_fn(|_| Default::default()),
            port_offsets: (0..PORTS).map(|p| c(p * S)).collect(),
            vc_offsets: (0..VCS).map(|v| c(v * 8)).collect(),
            most: Constant::new(Bits::from((1u64 << S) - 1)),
            vc_credit: Default::default(),
            sum: Default::default(),
            count: Default::default(),
            credit_bus: Default::default(),
            occupancy_bus: Default::default(),
            credit_state: Default::default(),
            occupancy_state: Default::default(),
        }
    }
}

impl<const PORTS: usize, const VCS: usize, const PVL: usize, const S: usize, const PS: usize>
    Default for RouteStatus<PORTS, VCS, PVL, S, PS>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const PORTS: usize, const VCS: usize, const PVL: usize, const S: usize, const PS: usize> Logic
    for RouteStatus<PORTS, VCS, PVL, S, PS>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, credit_state, occupancy_state);
        self.credit_bus.next = 0.into();
        self.occupancy_bus.next = 0.into();
        for p in 0..PORTS {
            self.sum.next = 0.into();
            for v in 0..VCS {
                self.vc_credit.next = self.credits[p]
                    .val()
                    .get_bits::<8>(self.vc_offsets[v].val().index());
                if self.free[p].val().get_bit(v) {
                    self.sum.next = self.sum.val() + bit_cast::<SUM_BITS, 8>(self.vc_credit.val());
                }
            }
            if self.sum.val() > self.most.val() {
                self.sum.next = self.most.val();
            }
            self.count.next = 0.into();
            for i in 0..PORTS {
                if self.queued[i].val().get_bit(p) {
                    self.count.next = self.count.val() + 16;
                }
            }
            if self.count.val() > self.most.val() {
                self.count.next = self.most.val();
            }
            self.credit_bus.next = self.credit_bus.val()
                | (bit_cast::<PS, S>(bit_cast::<S, SUM_BITS>(self.sum.val()))
                    << self.port_offsets[p].val());
            self.occupancy_bus.next = self.occupancy_bus.val()
                | (bit_cast::<PS, S>(bit_cast::<S, SUM_BITS>(self.count.val()))
                    << self.port_offsets[p].val());
        }
        self.credit_state.d.next = self.credit_bus.val();
        self.occupancy_state.d.next = self.occupancy_bus.val();
        for i in 0..PORTS {
            self.states[i].credits.next = self.credit_state.q.val();
            self.states[i].occupancy.next = self.occupancy_state.q.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn route_status_is_synthesizable() {
        let mut uut = RouteStatus::<5, 2, 16, 7, 35>::new();
        uut.connect_all();
        yosys_validate("route_status", &generate_verilog(&uut)).unwrap();
    }
}
