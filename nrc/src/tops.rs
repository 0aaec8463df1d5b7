//! The router's tops, emitted beside the `hdl` ones by `hpcnet emit` (see `src/emit.rs`), so
//! that lint, synthesis and `tests/fresh.rs` check them as they will be used.
use crate::nrc_mgmt::{NrcMgmt8, NrcMgmtParams};
use crate::routing::route_unit::RouteUnit5;
use crate::rs_mesh::RsMesh8;
use hdl::params::Config;
use hdl::tops::{emit, Emitted};
use hdl::{with_count8, with_log2_in};

/// Every `nrc` top of `cfg`, in emission order. The configuration has no router port count
/// yet, so the mesh is the 8-port one (2 rows of 4); the published 24-port mesh (`RsMesh24`)
/// is synthesized by the `rs_mesh` unit tests.
pub fn tops(cfg: &Config) -> Result<Vec<Emitted>, String> {
    let mut tops = vec![damq(cfg)?];
    tops.extend(input_port(cfg)?);
    tops.extend([
        emit(
            RsMesh8::new(),
            "nrc_rs_mesh",
            "the router's relay-station mesh, 8 ports in 2 rows of 4, 20-bit beats: port packets to the management agent, its packets to the ports, packets to nonexistent ports dropped and counted",
        )?,
        emit(
            NrcMgmt8::new(
                nrc_mgmt_params(cfg),
                hdl::link_port::LinkPortParams::router(cfg).settings_reset(),
            ),
            "nrc_mgmt",
            "the router's management plane: 8 ports of management flit streams, the relay-station mesh, the management agent with its I2C EEPROM, the configuration loader and the router's register file (verilog-out/nrc.md)",
        )?,
        emit(
            RouteUnit5::new(ROUTE_NODES),
            "nrc_route_unit",
            "the router's routing of data packets, 5 ports: a route table of 256 destinations (block RAM, a copy per input port and one for the management read, written through the indirect registers) and per input port a route-compute stage (head in, one allowed output port chosen adaptively or deterministically, or no route with a fault pulse, one cycle later)",
        )?,
        switch(&block_config(cfg), SWITCH_PORTS)?,
    ]);
    tops.extend(core(&block_config(cfg))?);
    tops.extend(top(cfg)?);
    Ok(tops)
}

/// The configuration the block tops (`nrc_switch`, `nrc_core`: 5-port routers' blocks) are
/// built with: `cfg` at 5 ports, its crossbar tiles clamped to 5 rows and columns (the
/// published 4 x 6 tiles become 4 x 5). Only the chip, `nrc_top`, has `router.ports` ports.
pub fn block_config(cfg: &Config) -> Config {
    let mut block = cfg.clone();
    block.router.ports = CORE_PORTS as u32;
    block.router.tile_rows = block.router.tile_rows.min(CORE_PORTS as u32);
    block.router.tile_cols = block.router.tile_cols.min(CORE_PORTS as u32);
    block
}

/// Ports of the default build's switch (the `[router]` section has no port count yet).
pub const SWITCH_PORTS: usize = 5;

/// The router's switch for `cfg` with `ports` ports (5 so far) as top
/// `nrc_switch`: `network.vcs` VCs (2..=8), `router.reserved_flits_per_vc` credits per
/// downstream VC, `network.max_packet_flits`, `network.mgmt_vc`, `router.alloc_iterations`,
/// `router.tile_rows` x `router.tile_cols`. Also what the `switch` bench simulates.
pub fn switch(cfg: &Config, ports: usize) -> Result<Emitted, String> {
    let p = crate::switch::SwitchParams::from_config(cfg);
    if cfg.network.vcs < 2 {
        return Err(format!(
            "nrc_switch: network.vcs = {} must be at least 2 (the switch's per-VC choice)",
            cfg.network.vcs
        ));
    }
    if p.tile_rows > ports || p.tile_cols > ports {
        return Err(format!(
            "nrc_switch: router.tile_rows = {} and router.tile_cols = {} must not exceed the {ports} ports",
            p.tile_rows, p.tile_cols
        ));
    }
    const DOC: &str = "the router's switch: per input port the requests of its VCs (ready, head, last, output port and VC, len) and the granted flit; separable allocation in the cycle of the request (virtual cut-through: a head needs its output VC free and len credits; starving marks; round robin per input and per output, router.alloc_iterations iterations), a tiled crossbar (router.tile_rows x router.tile_cols), the management agent's packets per output port, and per output port credits per VC, VC ownership and the output register (head in to head out: 2 cycles with the input unit, 3 with its route stage)";
    with_count8!(cfg.network.vcs as usize, N, _W => {
        match ports {
            5 => emit(<crate::switch!(5, N)>::new(p), "nrc_switch", DOC),
            n => Err(format!("nrc_switch: {n} ports is not built (5)")),
        }
    })
}

/// Router ports of the default build's core (the `[router]` section has no port count yet).
pub const CORE_PORTS: usize = 5;

/// The router core for `cfg` as top `nrc_core`: [`CORE_PORTS`] input ports (the DAMQ of
/// [`damq`], `network.mgmt_vc`, `router.vc_policy`, no down ports), the routing of
/// [`ROUTE_NODES`] destinations, the switch of [`switch`], and the management plane with the
/// relay-station mesh in one row of 5 (I2C at `fpga.clock_mhz` as [`nrc_mgmt_params`]).
/// Also what the router-core benches simulate.
///
/// Only the shapes of `configs/` are built (default: 2 VCs, 128 slots; published: 6 VCs, 256
/// slots); for any other shape the top is left out (`None`), for the compile-time reason of
/// [`input_port`].
pub fn core(cfg: &Config) -> Result<Option<Emitted>, String> {
    if cfg.network.vcs < 2 {
        return Err(format!(
            "nrc_core: network.vcs = {} must be at least 2 (the switch's per-VC choice)",
            cfg.network.vcs
        ));
    }
    let p = crate::router_core::RouterCoreParams::from_config(
        cfg,
        0,
        ROUTE_NODES,
        nrc_mgmt_params(cfg),
    );
    const DOC: &str = "the router core, 5 ports: per port the input side (DAMQ, route lookup, VC policy, head rewrite), the routing of 256 destinations (adaptive among the allowed ports, or deterministic), the switch (allocators, tiled crossbar, output units with credits), and the management plane (relay-station mesh in one row of 5, the management agent with its I2C EEPROM, the register file with the indirect route-table access); router channels in and out, head in to head out 3 cycles (2 without router.route_stage)";
    let name = "nrc_core";
    Ok(match (cfg.network.vcs, cfg.router.input_buffer_flits) {
        (2, 128) => Some(emit(
            <crate::router_core!(CORE_PORTS, 2, 128, ROUTE_NODES, 1)>::new(p),
            name,
            DOC,
        )?),
        (6, 256) => Some(emit(
            <crate::router_core!(CORE_PORTS, 6, 256, ROUTE_NODES, 1)>::new(p),
            name,
            DOC,
        )?),
        _ => None,
    })
}

/// The router chip for `cfg` as top `nrc_top`: the core of [`core`] with a link port per port
/// (the link endpoint of `hdl::tops::llp_endpoint`, transmit buffers of
/// `router.reserved_flits_per_vc` flits per VC, dead links discarded after
/// [`hdl::link_port::DEFAULT_STALL_LIMIT`] cycles); lanes in and out per port.
///
/// Only the shapes of `configs/` are built: the default (5 ports, 2 VCs, 128 slots, 16 LTPs of
/// replay, 256-flit receive buffers, 32 credits per VC, the mesh in one row of 5) and the
/// published NRC (24 ports, 6 VCs, 256 slots, 32 LTPs, 128-flit receive buffers, 32 credits
/// per VC, the mesh in 4 rows of 6); for any other the top is left out.
pub fn top(cfg: &Config) -> Result<Option<Emitted>, String> {
    let core = crate::router_core::RouterCoreParams::from_config(
        cfg,
        0,
        ROUTE_NODES,
        nrc_mgmt_params(cfg),
    );
    let p = crate::nrc_top::NrcTopParams {
        core,
        link: hdl::link_port::LinkPortParams::router(cfg),
    };
    const DOC: &str = "the router chip, 5 ports: the router core (input ports with DAMQs, routing of 256 destinations, switch, management plane with its register file) and per port a link port (the link endpoint with a router channel on each side: credit-flow-controlled delivery to the core, transmit buffers whose free slots are the core's credits, a dead-link watchdog that makes the port discard); lanes in and out per port";
    const DOC24: &str = "the published router chip, 24 ports, 6 VCs, crossbar in router.tile_rows x router.tile_cols tiles: the router core (input ports with DAMQs, routing of 256 destinations, switch, management plane with its relay-station mesh in 4 rows of 6 and its register file) and per port a link port (the link endpoint with a router channel on each side, transmit buffers whose free slots are the core's credits, a dead-link watchdog that makes the port discard); lanes in and out per port";
    let shape = (
        cfg.router.ports,
        cfg.network.vcs,
        cfg.router.input_buffer_flits,
        cfg.link.replay_ltps,
        cfg.link.vc_buffer_flits,
        cfg.router.reserved_flits_per_vc,
        cfg.link.lane_bits,
    );
    // The published size is built with 32-bit lanes only (`link.lane_bits`).
    Ok(match shape {
        (5, 2, 128, 16, 256, 32, 32) => Some(emit(
            <crate::nrc_top!(CORE_PORTS, 2, 128, ROUTE_NODES, 1, 16, 256, 32)>::new(p),
            "nrc_top",
            DOC,
        )?),
        (5, 2, 128, 16, 256, 32, 16) => Some(emit(
            <crate::nrc_top!(CORE_PORTS, 2, 128, ROUTE_NODES, 1, 16, 256, 32, 16)>::new(p),
            "nrc_top",
            DOC,
        )?),
        (24, 6, 256, 32, 128, 32, 32) => Some(emit(
            <crate::nrc_top!(24, 6, 256, ROUTE_NODES, 4, 32, 128, 32)>::new(p),
            "nrc_top",
            DOC24,
        )?),
        _ => None,
    })
}

/// Destinations in the default build's route table (node IDs 0..=255). The `[router]` section
/// has no port or node count yet, so the routing top is sized here: 5 ports, 256 nodes.
pub const ROUTE_NODES: usize = 256;

/// One port's DAMQ input unit for `cfg` (`network.vcs` VCs, `router.input_buffer_flits`
/// slots, `router.reserved_flits_per_vc`, `network.max_packet_flits`) as top `nrc_damq`; also
/// what the `damq` bench simulates for the default configuration.
pub fn damq(cfg: &Config) -> Result<Emitted, String> {
    let p = crate::port::DamqParams::from_config(cfg);
    // The arms are the configuration's ranges (1..=8 VCs, 16..=256 slots): 40 shapes.
    with_count8!(cfg.network.vcs as usize, N, _W => {
        with_log2_in!(cfg.router.input_buffer_flits as usize, [4, 5, 6, 7, 8], L => {
            emit(
                <crate::damq!(N, 1 << L)>::new(p),
                "nrc_damq",
                "one router port's DAMQ input unit: router channel in (credits back: per-VC reservations and a lent pool), packet checks with drops and TailBadPkt closes by reason, one RAM of router.input_buffer_flits flits shared by network.vcs linked lists with front registers, one read port for the switch",
            )
        })
    })
}

/// Router ports of the default build's input port top (the `[router]` section has no port
/// count yet): 5, as the routing top.
pub const INPUT_PORT_PORTS: usize = 5;

/// One port's input side for `cfg` (the DAMQ of [`damq`], `network.mgmt_vc`,
/// `router.vc_policy`, no down ports) in a router of [`INPUT_PORT_PORTS`] ports, as top
/// `nrc_input_port`; also what the `input_port` bench simulates for the default configuration.
///
/// Only the shapes of `configs/` are built (default: 2 VCs, 128 slots; published: 6 VCs, 256
/// slots); for any other shape the top is left out (`None`). Each shape is a separate
/// instantiation of the whole block, and the 40 shapes of [`damq`]'s ranges took the `nrc`
/// crate's release build from about a minute to over eight on this machine.
pub fn input_port(cfg: &Config) -> Result<Option<Emitted>, String> {
    let p = crate::port::InputPortParams::from_config(cfg, 0);
    const DOC: &str = "one router port's input side, 5 ports' worth of port numbers: the DAMQ input unit, route lookups (a head arriving at an idle VC looked up from the channel, ready with its route and output VC in the next cycle), per-VC packet state, the VC policy (router.vc_policy), drops of packets without a route, management packets to the agent's stream, and the head rewrite (vc, delay) on the way to the switch";
    let name = "nrc_input_port";
    Ok(match (cfg.network.vcs, cfg.router.input_buffer_flits) {
        (2, 128) => Some(emit(
            <crate::input_port!(2, 128, INPUT_PORT_PORTS)>::new(p),
            name,
            DOC,
        )?),
        (6, 256) => Some(emit(
            <crate::input_port!(6, 256, INPUT_PORT_PORTS)>::new(p),
            name,
            DOC,
        )?),
        _ => None,
    })
}

/// The management plane's parameters for `cfg`: I2C standard mode at `fpga.clock_mhz`, the
/// configuration image at EEPROM address 0 with up to [`MAX_IMAGE_ENTRIES`] entries.
pub fn nrc_mgmt_params(cfg: &Config) -> NrcMgmtParams {
    hdl::tops::nma_params(cfg, MAX_IMAGE_ENTRIES)
}

/// Entries a router's configuration image may hold: its settings and a routing table of a few
/// hundred destinations (two entries each).
pub const MAX_IMAGE_ENTRIES: usize = 1024;

/// The router's register maps: its whole space for the `nrc_mgmt` top (8 ports in 2 rows, 2
/// VCs, the agent's default fault inputs, the link ports' settings of `cfg`).
pub fn regmaps(cfg: &Config) -> Result<Vec<hdl::regmap::RegMap>, String> {
    Ok(vec![crate::regs::nrc_map(
        8,
        2,
        2,
        hdl::mgmt::regs::NMA_FAULTS,
        hdl::link_port::LinkPortParams::router(cfg).settings_reset(),
    )?])
}
