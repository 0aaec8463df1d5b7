//! `NrcTop`: the router chip (issue 11, item 7): the [`RouterCore`] with a [`LinkPort`] on each
//! of its ports, so the chip's ports are lanes.
//!
//! ```text
//! lanes_in[p]  --> LinkPort[p] --to_core-->   RouterCore inputs[p]
//! lanes_out[p] <-- LinkPort[p] <--from_core-- RouterCore outputs[p]
//!                  LinkPort[p].report ------> RouterCore links[p] (port p's registers)
//!                  stalled / error (any port) -> agent chip faults 2 / 3
//! ```
//!
//! The credit loop from an output of one router to an input of the next is described in
//! [`hdl::link_port`]: the output unit's credits are the link port's transmit buffers, the
//! link port's credits towards the input are the DAMQ's reservations.
//!
//! **Faults** to the management agent: chip fault 2 is high while any port's link is dead
//! (its watchdog fired; the port then discards what the router sends on it, see
//! [`hdl::link_port`]), chip fault 3 while any port saw a link protocol error; a rising edge is
//! a fault event (reported if enabled). `link_status.stalled` of each port names the port.
//!
//! **Reset** (synchronous) resets the core and every link port together; the two ends of a
//! link must leave reset together (the link layer has no training).
//!
//! **Timing**: a head crossing the router, lanes in to lanes out, takes the receive side of a
//! link endpoint, one cycle in the link port, the core's two, one or two in the transmit
//! buffer and the transmit side of the next link endpoint.
//!
//! Parameters: those of [`RouterCore`], then `RAW`, `D`, `LAW`, `LCW`, `TD`, `TAW`, `TCW` of
//! [`LinkPort`]. Use [`nrc_top!`](crate::nrc_top); elaboration values in [`NrcTopParams`].
use crate::router_core::{RouterCore, RouterCoreParams};
use hdl::channel::ChannelSource;
use hdl::link_port::{LinkPort, LinkPortParams};
use hdl::llp::lane_channel::{WireLanesIn, WireLanesOut};
use hdl::llp::regs::LinkReportSource;
use hdl::mgmt::i2c_master::I2cPins;
use rust_hdl::prelude::*;

/// The type of an [`NrcTop`]: the core of `router_core!($ports, $vcs, $slots, $nodes, $rows)`
/// with link ports of `$replay` LTPs of replay buffer, `$depth` flits per receive buffer and
/// `$tx_depth` flits per transmit buffer, on lanes of `$lane_bits` (16 or 32; 32 when left
/// out): `nrc_top!(5, 2, 128, 256, 1, 16, 256, 32)`.
#[macro_export]
macro_rules! nrc_top {
    ($ports:expr, $vcs:expr, $slots:expr, $nodes:expr, $rows:expr, $replay:expr, $depth:expr, $tx_depth:expr) => {
        $crate::nrc_top!($ports, $vcs, $slots, $nodes, $rows, $replay, $depth, $tx_depth, 32)
    };
    ($ports:expr, $vcs:expr, $slots:expr, $nodes:expr, $rows:expr, $replay:expr, $depth:expr, $tx_depth:expr, $lane_bits:expr) => {
        $crate::nrc_top::NrcTop<
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
            { hdl::fifo::fifo_ptr_bits($replay) + 4 },
            { $depth },
            { hdl::fifo::fifo_ptr_bits($depth) },
            { hdl::fifo::fifo_count_bits($depth) },
            { $tx_depth },
            { hdl::fifo::fifo_ptr_bits($tx_depth) },
            { hdl::fifo::fifo_count_bits($tx_depth) },
            { hdl::llp::lane_channel::wire_data_bits($lane_bits) },
        >
    };
}

/// Elaboration values of an [`NrcTop`].
#[derive(Clone, Copy, Debug)]
pub struct NrcTopParams {
    /// The core's.
    pub core: RouterCoreParams,
    /// Every link port's (their settings are the reset value of the ports' `link_settings`
    /// registers: they replace `core.link_settings`).
    pub link: LinkPortParams,
}

/// The router chip; see the module documentation.
#[derive(LogicBlock)]
pub struct NrcTop<
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
    const RAW: usize,
    const D: usize,
    const LAW: usize,
    const LCW: usize,
    const TD: usize,
    const TAW: usize,
    const TCW: usize,
    const WD: usize,
> {
    /// Clock of everything.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset of the whole chip (both ends of every link together).
    pub reset: Signal<In, bool>,
    /// Per port: the lanes from the far end.
    pub lanes_in: Vec<WireLanesIn<WD>>,
    /// Per port: the lanes to the far end.
    pub lanes_out: Vec<WireLanesOut<WD>>,
    /// Deterministic routing (else adaptive), every port.
    pub deterministic: Signal<In, bool>,
    /// The configuration EEPROM's I2C bus.
    pub i2c: I2cPins,
    /// Bit `p`: port `p`'s link is dead (its port discards).
    pub stalled: Signal<Out, Bits<PORTS>>,
    core: RouterCore<
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
    >,
    ports: Vec<LinkPort<VCS, VCB, RAW, D, LAW, LCW, TD, TAW, TCW, WD>>,
    /// Some port is stalled; some port saw an error.
    any_stalled: Signal<Local, bool>,
    any_error: Signal<Local, bool>,
    /// The core's event outputs (its counters count them inside): acknowledged unused.
    unused_events: Signal<Local, bool>,
    discard_bit: Constant<Bits<2>>,
    discard_head_bits: Constant<Bits<2>>,
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
        const RAW: usize,
        const D: usize,
        const LAW: usize,
        const LCW: usize,
        const TD: usize,
        const TAW: usize,
        const TCW: usize,
        const WD: usize,
    >
    NrcTop<
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
        RAW,
        D,
        LAW,
        LCW,
        TD,
        TAW,
        TCW,
        WD,
    >
{
    /// The chip for `p`; panics naming the parameter as its parts do, or if the link ports'
    /// credits disagree with the core's buffers.
    pub fn new(p: NrcTopParams) -> Self {
        assert_eq!(
            p.link.credits_in, p.core.input.damq.reserve,
            "NrcTop: the link ports' credits_in must be the DAMQ's reservation per VC"
        );
        assert_eq!(
            p.link.credits_out, p.core.switch.reserve,
            "NrcTop: the link ports' credits_out must be the output units' initial credits"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            lanes_in: (0..PORTS).map(|_| Default::default()).collect(),
            lanes_out: (0..PORTS).map(|_| Default::default()).collect(),
            deterministic: Default::default(),
            i2c: Default::default(),
            stalled: Default::default(),
            // The ports' `link_settings` registers reset to what the ports were built with.
            core: RouterCore::new(RouterCoreParams {
                link_settings: p.link.settings_reset(),
                ..p.core
            }),
            ports: (0..PORTS)
                .map(|i| {
                    LinkPort::new(LinkPortParams {
                        port_number: i as u8,
                        ..p.link
                    })
                })
                .collect(),
            any_stalled: Default::default(),
            any_error: Default::default(),
            unused_events: Default::default(),
            discard_bit: Constant::new(1u64.into()),
            discard_head_bits: Constant::new(3u64.into()),
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
        const RAW: usize,
        const D: usize,
        const LAW: usize,
        const LCW: usize,
        const TD: usize,
        const TAW: usize,
        const TCW: usize,
        const WD: usize,
    > Logic
    for NrcTop<
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
        RAW,
        D,
        LAW,
        LCW,
        TD,
        TAW,
        TCW,
        WD,
    >
{
    #[hdl_gen]
    fn update(&mut self) {
        self.core.clock.next = self.clock.val();
        self.core.reset.next = self.reset.val();
        self.core.deterministic.next = self.deterministic.val();
        I2cPins::link(&mut self.i2c, &mut self.core.i2c);
        self.any_stalled.next = false;
        self.any_error.next = false;
        self.unused_events.next = self.core.flits_out.val().any()
            | self.core.packets_out.val().any()
            | self.core.errors.val().any();
        self.stalled.next = 0.into();
        for p in 0..PORTS {
            self.ports[p].clock.next = self.clock.val();
            self.ports[p].reset.next = self.reset.val();
            self.ports[p].chip_id.next = self.core.chip_id.val();
            WireLanesIn::<WD>::link(&mut self.lanes_in[p], &mut self.ports[p].lanes_in);
            WireLanesOut::<WD>::link(&mut self.lanes_out[p], &mut self.ports[p].lanes_out);
            ChannelSource::<VCS, VCB>::join(&mut self.ports[p].to_core, &mut self.core.inputs[p]);
            ChannelSource::<VCS, VCB>::join(
                &mut self.core.outputs[p],
                &mut self.ports[p].from_core,
            );
            LinkReportSource::join(&mut self.ports[p].report, &mut self.core.links[p]);
            self.any_stalled.next = self.any_stalled.val() | self.ports[p].stalled.val();
            self.any_error.next = self.any_error.val() | self.ports[p].error.val();
            self.stalled.next = self
                .stalled
                .val()
                .replace_bit(p, self.ports[p].stalled.val());
            self.unused_events.next = self.unused_events.val() | self.core.drops[p].val().any();
            self.core.discards[p].next = 0.into();
            if self.ports[p].discarded.val() {
                self.core.discards[p].next = self.discard_bit.val();
                if self.ports[p].discarded_heads.val() {
                    self.core.discards[p].next = self.discard_head_bits.val();
                }
            }
        }
        self.core.link_faults.next = 0.into();
        self.core.link_faults.next = self
            .core
            .link_faults
            .val()
            .replace_bit(0, self.any_stalled.val());
        self.core.link_faults.next = self
            .core
            .link_faults
            .val()
            .replace_bit(1, self.any_error.val());
    }
}

/// The default build's chip: the core of [`crate::router_core::RouterCore5`] with link ports of
/// 16 LTPs of replay, 256-flit receive and 32-flit transmit buffers per VC, on 4 lanes of 16
/// bits (`link.lane_bits`).
pub type NrcTop5 = crate::nrc_top!(5, 2, 128, 256, 1, 16, 256, 32, 16);

#[cfg(test)]
mod tests {
    use super::*;
    use hdl::params::Config;

    #[test]
    fn nrc_top_is_synthesizable() {
        let cfg = Config::default();
        let p = NrcTopParams {
            core: RouterCoreParams::from_config(&cfg, 0, 256, crate::tops::nrc_mgmt_params(&cfg)),
            link: LinkPortParams::router(&cfg),
        };
        let mut uut = NrcTop5::new(p);
        uut.connect_all();
        yosys_validate("nrc_top", &generate_verilog(&uut)).unwrap();
    }
}
