//! The NIC's register space as the management plane reaches it (12-bit register addresses):
//! the management agent's block at 0 and the network port's link block. The host-facing
//! registers (doorbells, SR-IOV functions, rings) join it with the DMA core.
use hdl::formats::mgmt::DestType;
use hdl::llp::regs::link_port_map;
use hdl::mgmt::regs::nma_map;
use hdl::regmap::{AddressSpace, RegMap};

/// Register address bits of the NIC.
pub const NIC_ADDRESS_BITS: usize = 12;
/// Base of the network port's link block.
pub const NETWORK_PORT_BASE: u64 = 0x40;

/// The NIC's management address space with `faults` agent fault inputs.
pub fn nic_space(faults: usize) -> Result<AddressSpace, String> {
    let mut space = AddressSpace::new(
        "nic",
        "Register space of the network interface chip (NIC) as the management agent reaches it.",
        NIC_ADDRESS_BITS,
    );
    space.place(0, "", &nma_map(DestType::Nic, faults))?;
    space.place(NETWORK_PORT_BASE, "port0", &link_port_map())?;
    Ok(space)
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
