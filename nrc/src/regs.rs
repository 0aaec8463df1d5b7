//! The router's register space (15-bit register addresses, as management requests carry them),
//! assembled from block maps defined beside their blocks:
//!
//! | base | block | prefix |
//! |---|---|---|
//! | `0x000` | the management agent ([`hdl::mgmt::regs::nma_map`]) | none |
//! | `0x020` | the relay-station mesh's drop counters ([`rs_mesh_map`]) | `rs` |
//! | `0x040` | indirect routing-table access ([`route_table_map`]) | `route` |
//! | `0x100 + 16 p` | link port `p` ([`hdl::llp::regs::link_port_map`]: report, `link_settings`) | `port<p>` |
//! | `0x400 + 32 p` | port `p`'s counters and occupancy peaks ([`port_counter_map`]) | `port<p>` |
//!
//! The port counters are not in the register file of [`nrc_router_map`]: they live in a
//! [`CounterRam`](hdl::regmap::CounterRam) (block RAM, served by a sweep: a read is answered
//! within [`counter_sweep_cycles`] cycles) behind the same agent port, at and above
//! [`PORT_COUNTERS_BASE`] ([`nrc_counter_layout`] gives its layout, checked against the map).
//!
//! The routing table itself belongs to the router's data plane; the register file only gives
//! software its indirect port: write `index` (a destination node), then either write `ports`
//! (the set of allowed output ports: the write strobes one table write of that value at `index`)
//! or read `read` (the table's entry at `index`, as the table answers it).
use crate::port_counters::{COUNTERS, COUNTER_NAMES};
use hdl::formats::mgmt::{DestType, REGISTER_ADDRESS_BITS};
use hdl::llp::regs::{link_port_map, LINK_PORT_REGISTERS};
use hdl::mgmt::regs::{nma_map, NMA_COUNTER_BITS};
use hdl::regmap::counter_ram::COUNTER_RAM_BITS;
use hdl::regmap::{AddressSpace, CounterRamLayout, RegMap, Register};

/// Register address bits of the router.
pub const NRC_ADDRESS_BITS: usize = REGISTER_ADDRESS_BITS;
/// Base of the mesh's counters.
pub const RS_MESH_BASE: u64 = 0x20;
/// Base of the routing-table access registers.
pub const ROUTE_TABLE_BASE: u64 = 0x40;
/// Base of port 0's link block; port `p` is at `PORTS_BASE + LINK_PORT_REGISTERS * p`.
pub const PORTS_BASE: u64 = 0x100;
/// Base of port 0's counters; port `p` is at `PORT_COUNTERS_BASE + (p << PORT_COUNTER_BITS)`.
pub const PORT_COUNTERS_BASE: u64 = 0x400;
/// Bits of a register's position in one port's counter window (32 registers).
pub const PORT_COUNTER_BITS: usize = 5;
/// Bits of an occupancy peak (a VC holds at most 253 flits: 256 slots less the kept ones).
pub const PEAK_BITS: usize = crate::port_counters::OCCUPANCY_BITS;
/// Bits of a routing-table index (a destination node ID).
pub const ROUTE_INDEX_BITS: usize = 16;

/// The mesh's counters: one per row (packets for a port that does not exist, dropped at the
/// row's left end).
pub fn rs_mesh_map(rows: usize) -> RegMap {
    (0..rows).fold(
        RegMap::new(
            "rs_mesh",
            "Relay-station mesh: packets dropped because their output port does not exist.",
        ),
        |m, r| {
            m.reg(
                Register::counter(format!("dropped_row{r}"), r as u64, NMA_COUNTER_BITS).doc(
                    "packets from the agent for a nonexistent port, dropped at this row's left end",
                ),
            )
        },
    )
}

/// Indirect access to the routing table of a router with `ports` ports.
pub fn route_table_map(ports: usize) -> RegMap {
    RegMap::new(
        "route_table",
        "Indirect access to the routing table: destination node -> set of allowed output ports.",
    )
    .reg(
        Register::rw("index", 0, ROUTE_INDEX_BITS)
            .doc("the destination node whose entry `ports` writes and `read` shows"),
    )
    .reg(
        Register::rw("ports", 1, ports)
            .doc("write: sets the entry at `index` to this set of allowed output ports (one bit per port; 0 = unreachable, dropped and counted)"),
    )
    .reg(Register::ro("read", 2, ports).doc("the entry at `index` as the table holds it"))
}

/// The counters of one port with `vcs` VCs: [`COUNTER_NAMES`] (32-bit saturating event
/// counters), then one occupancy peak per VC. Every register clears on any write.
pub fn port_counter_map(vcs: usize) -> RegMap {
    let map = COUNTER_NAMES.iter().enumerate().fold(
        RegMap::new(
            "port_counters",
            "One router port's traffic counters, drops by reason, dead-link discards and per-VC input-buffer occupancy peaks (a block RAM served by a sweep: a read or clear takes effect when the sweep reaches the register, within a sweep of all ports' counters).",
        ),
        |m, (i, (name, doc))| {
            m.reg(Register::counter(*name, i as u64, COUNTER_RAM_BITS).doc(*doc))
        },
    );
    (0..vcs).fold(map, |m, v| {
        m.reg(
            Register::counter(format!("peak_vc{v}"), (COUNTERS + v) as u64, PEAK_BITS).doc(format!(
                "the most flits VC {v} held in the port's input buffer since the last write (a peak, not an event count; any write restarts it from the present occupancy)"
            )),
        )
    })
}

/// The [`CounterRam`](hdl::regmap::CounterRam) layout of `ports` ports with `vcs` VCs: what
/// [`port_counter_map`] places at [`PORT_COUNTERS_BASE`] (checked by the tests).
pub fn nrc_counter_layout(ports: usize, vcs: usize) -> CounterRamLayout {
    CounterRamLayout {
        base: PORT_COUNTERS_BASE,
        groups: ports,
        counters: COUNTERS,
        peaks: vcs,
    }
}

/// Cycles a port-counter read or clear may wait for the sweep, at most (with `ports` ports of
/// `vcs` VCs): one sweep, and two cycles to answer.
pub fn counter_sweep_cycles(ports: usize, vcs: usize) -> usize {
    ports * (COUNTERS + vcs) + 2
}

/// The router's address space with `ports` ports in `rows` rows, `vcs` VCs and `faults`
/// agent fault inputs, every port's `link_settings` resetting to `link_settings`
/// ([`LinkPortParams::settings_reset`](hdl::link_port::LinkPortParams::settings_reset)).
pub fn nrc_space(
    ports: usize,
    rows: usize,
    vcs: usize,
    faults: usize,
    link_settings: u64,
) -> Result<AddressSpace, String> {
    let mut space = AddressSpace::new(
        "nrc",
        format!("Register space of the router (NRC), {ports} ports."),
        NRC_ADDRESS_BITS,
    );
    space.place(0, "", &nma_map(DestType::Nrc, faults))?;
    place_router_blocks(&mut space, ports, rows, link_settings)?;
    for p in 0..ports {
        space.place(
            PORT_COUNTERS_BASE + ((p as u64) << PORT_COUNTER_BITS),
            &format!("port{p}"),
            &port_counter_map(vcs),
        )?;
    }
    Ok(space)
}

/// The router's own registers in flip-flops, the space without the agent's block (which the
/// agent holds) and without the port counters (a [`CounterRam`](hdl::regmap::CounterRam)):
/// the register file `nrc_mgmt` puts behind the agent's `chip_request` port. Same addresses
/// and names as in [`nrc_space`].
pub fn nrc_router_map(ports: usize, rows: usize, link_settings: u64) -> Result<RegMap, String> {
    let mut space = AddressSpace::new(
        "nrc_router",
        format!("The router's own registers (NRC, {ports} ports), beside the agent's block."),
        NRC_ADDRESS_BITS,
    );
    place_router_blocks(&mut space, ports, rows, link_settings)?;
    Ok(space.to_map())
}

/// Places the mesh's counters, the routing-table access and the ports' link blocks.
fn place_router_blocks(
    space: &mut AddressSpace,
    ports: usize,
    rows: usize,
    link_settings: u64,
) -> Result<(), String> {
    space.place(RS_MESH_BASE, "rs", &rs_mesh_map(rows))?;
    space.place(ROUTE_TABLE_BASE, "route", &route_table_map(ports))?;
    for p in 0..ports {
        space.place(
            PORTS_BASE + LINK_PORT_REGISTERS * p as u64,
            &format!("port{p}"),
            &link_port_map(link_settings),
        )?;
    }
    Ok(())
}

/// The router's register map (the space flattened), for the C header and Markdown reference
/// and the management software.
pub fn nrc_map(
    ports: usize,
    rows: usize,
    vcs: usize,
    faults: usize,
    link_settings: u64,
) -> Result<RegMap, String> {
    Ok(nrc_space(ports, rows, vcs, faults, link_settings)?.to_map())
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdl::mgmt::regs::NMA_FAULTS;

    #[test]
    fn the_counters_sit_where_their_layout_says() {
        for (ports, vcs) in [(5, 2), (24, 6)] {
            let map = nrc_map(ports, 1, vcs, NMA_FAULTS, 0).unwrap();
            let layout = nrc_counter_layout(ports, vcs);
            let counters = port_counter_map(vcs);
            assert_eq!(counters.registers.len(), layout.slots());
            for p in 0..ports {
                for (k, r) in counters.registers.iter().enumerate() {
                    let placed = map.get(&format!("port{p}_{}", r.name)).unwrap();
                    assert_eq!(
                        placed.offset,
                        layout.base + ((p as u64) << PORT_COUNTER_BITS) + k as u64
                    );
                }
            }
            assert!(layout.slots() <= 1 << PORT_COUNTER_BITS);
            let router = nrc_router_map(ports, 1, 0).unwrap();
            assert!(router
                .registers
                .iter()
                .all(|r| r.offset < PORT_COUNTERS_BASE));
        }
    }

    #[test]
    fn the_default_and_published_spaces_assemble() {
        let reset = hdl::link_port::LinkPortParams::router(&hdl::params::Config::default())
            .settings_reset();
        for (ports, rows) in [(8, 2), (24, 4)] {
            let map = nrc_map(ports, rows, 6, NMA_FAULTS, reset).unwrap();
            map.validate().unwrap();
            let peer = map.get(&format!("port{}_peer", ports - 1)).unwrap();
            assert_eq!(
                peer.offset,
                PORTS_BASE + LINK_PORT_REGISTERS * (ports as u64 - 1) + 1
            );
            // Every port's settings, read-write at offset 8 of its block, reset as configured.
            for p in 0..ports {
                let settings = map.get(&format!("port{p}_link_settings")).unwrap();
                assert_eq!(
                    settings.offset,
                    PORTS_BASE + LINK_PORT_REGISTERS * p as u64 + 8
                );
                assert_eq!(settings.access, hdl::regmap::Access::ReadWrite);
                assert_eq!(settings.reset, reset);
            }
            assert!(PORTS_BASE + LINK_PORT_REGISTERS * ports as u64 <= PORT_COUNTERS_BASE);
        }
    }
}
