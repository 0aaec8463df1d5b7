//! The NIC's register space as the management plane reaches it (12-bit register addresses):
//! the management agent's block at 0, the management port's counters and the network port's
//! link block. The host-facing
//! registers (doorbells, SR-IOV functions, rings) join it with the DMA core.
use hdl::formats::mgmt::DestType;
use hdl::llp::regs::link_port_map;
use hdl::mgmt::regs::{nma_map, NMA_COUNTER_BITS};
use hdl::regmap::{AddressSpace, RegMap, Register};

/// Register address bits of the NIC.
pub const NIC_ADDRESS_BITS: usize = 12;
/// Base of the network port's link block.
pub const NETWORK_PORT_BASE: u64 = 0x40;

/// Base of the NIC's management-port counters.
pub const MGMT_PORT_BASE: u64 = 0x20;

/// The NIC's management port: what the NIC wrapper of the agent counts.
pub fn mgmt_port_map() -> RegMap {
    RegMap::new(
        "mgmt_port",
        "The NIC's management port (the agent's packets to and from the network port).",
    )
    .reg(
        Register::counter("dropped_port", 0, NMA_COUNTER_BITS).doc(
            "packets from the agent whose route names a port other than 0 (the NIC has one network port), dropped",
        ),
    )
}

/// The NIC's management address space with `faults` agent fault inputs.
pub fn nic_space(faults: usize) -> Result<AddressSpace, String> {
    let mut space = AddressSpace::new(
        "nic",
        "Register space of the network interface chip (NIC) as the management agent reaches it.",
        NIC_ADDRESS_BITS,
    );
    space.place(0, "", &nma_map(DestType::Nic, faults))?;
    place_nic_blocks(&mut space)?;
    Ok(space)
}

/// The NIC's own registers, the space without the agent's block (which the agent holds): the
/// register file `nic_mgmt` puts behind the agent's `chip_request` port. Same addresses and
/// names as in [`nic_space`].
pub fn nic_chip_map() -> Result<RegMap, String> {
    let mut space = AddressSpace::new(
        "nic_chip",
        "The NIC's own registers, beside the agent's block.",
        NIC_ADDRESS_BITS,
    );
    place_nic_blocks(&mut space)?;
    Ok(space.to_map())
}

/// Places the management port's counters and the network port's link block.
fn place_nic_blocks(space: &mut AddressSpace) -> Result<(), String> {
    space.place(MGMT_PORT_BASE, "mgmt", &mgmt_port_map())?;
    space.place(NETWORK_PORT_BASE, "port0", &link_port_map())
}

/// The NIC's register map (the space flattened).
pub fn nic_map(faults: usize) -> Result<RegMap, String> {
    Ok(nic_space(faults)?.to_map())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nic_space_assembles() {
        nic_map(hdl::mgmt::regs::NMA_FAULTS)
            .unwrap()
            .validate()
            .unwrap();
    }
}
