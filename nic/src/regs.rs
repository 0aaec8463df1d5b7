//! The NIC's register maps.
//!
//! - The management space ([`nic_space`], 12-bit register addresses): the management agent's
//!   block at 0, the management port's counters, the network port's link block and the DMA
//!   core's counters ([`dma_counters_map`]).
//! - The host space (MMIO, `docs/host-interface.md`): each SR-IOV function's **page**
//!   ([`function_page_map`], `verilog-out/nic_function.h`: what every function's driver uses,
//!   relative to its BAR), and the PF's view of all of them ([`nic_host_space`]: page `f` at
//!   register `f x page`, then the PF-only [`nic_global_map`]; `verilog-out/nic_host.h`). The
//!   function table's register file is built from [`nic_host_map`].
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
/// Base of the DMA core's counters.
pub const DMA_COUNTERS_BASE: u64 = 0x80;
/// Counters of the DMA core: the receive engine's reasons, then the core's.
pub const DMA_COUNTERS: usize =
    crate::receive::receive_engine::RECEIVE_PULSES + crate::dma::CORE_PULSES;

/// `KeyMismatch` as `key_mismatch`: a register name from an enum variant's name.
fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The DMA core's counters, one per pulse of `ReceivePulse` and `CorePulse` in bit order
/// (names and documentation from the enums: one place).
pub fn dma_counters_map() -> RegMap {
    use crate::dma::CorePulse;
    use crate::receive::receive_engine::ReceivePulse;
    let mut map = RegMap::new(
        "dma",
        "The DMA core's counters: the receive engine's drops and deliveries, then the core's own events.",
    );
    let names = ReceivePulse::ALL
        .iter()
        .map(|p| (format!("{p:?}"), p.describe()))
        .chain(
            CorePulse::ALL
                .iter()
                .map(|p| (format!("{p:?}"), p.describe())),
        );
    for (i, (name, doc)) in names.enumerate() {
        map = map.reg(Register::counter(snake_case(&name), i as u64, NMA_COUNTER_BITS).doc(doc));
    }
    map
}

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

/// The NIC's management address space with `faults` agent fault inputs, the network port's
/// `link_settings` resetting to `link_settings`
/// ([`LinkPortParams::settings_reset`](hdl::link_port::LinkPortParams::settings_reset)).
pub fn nic_space(faults: usize, link_settings: u64) -> Result<AddressSpace, String> {
    let mut space = AddressSpace::new(
        "nic",
        "Register space of the network interface chip (NIC) as the management agent reaches it.",
        NIC_ADDRESS_BITS,
    );
    space.place(0, "", &nma_map(DestType::Nic, faults))?;
    place_nic_blocks(&mut space, link_settings)?;
    Ok(space)
}

/// The NIC's own registers, the space without the agent's block (which the agent holds): the
/// register file `nic_mgmt` puts behind the agent's `chip_request` port. Same addresses and
/// names as in [`nic_space`].
pub fn nic_chip_map(link_settings: u64) -> Result<RegMap, String> {
    let mut space = AddressSpace::new(
        "nic_chip",
        "The NIC's own registers, beside the agent's block.",
        NIC_ADDRESS_BITS,
    );
    place_nic_blocks(&mut space, link_settings)?;
    Ok(space.to_map())
}

/// Places the management port's counters, the network port's link block (report and
/// `link_settings`) and the DMA core's counters.
fn place_nic_blocks(space: &mut AddressSpace, link_settings: u64) -> Result<(), String> {
    space.place(MGMT_PORT_BASE, "mgmt", &mgmt_port_map())?;
    space.place(NETWORK_PORT_BASE, "port0", &link_port_map(link_settings))?;
    space.place(DMA_COUNTERS_BASE, "dma", &dma_counters_map())
}

/// Registers of a function page before its first QP block (function-level registers).
pub const QP_BASE: u64 = 0x10;
/// Registers between two QP blocks of a page.
pub const QP_STRIDE: u64 = 0x10;
/// Bits of a register address in the host space (8 functions of 512-register pages and the
/// global block fit).
pub const HOST_REGISTER_BITS: usize = 13;
/// Bits of a ring pointer (producer, consumer): free-running, the ring's entry is the pointer
/// modulo the ring's size.
pub const RING_POINTER_BITS: usize = 16;
/// Bits of a ring's size register (log2 of its entries).
pub const RING_SIZE_BITS: usize = 4;
/// Bits of a QP key.
pub const KEY_BITS: usize = 32;
/// Bits of a function's arbitration weight.
pub const WEIGHT_BITS: usize = 4;
/// Bits of a function's refusal counters.
pub const FUNCTION_COUNTER_BITS: usize = 16;

/// The three rings of a QP, in register order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ring {
    /// Send-completion events (written by the NIC).
    SendCompletion,
    /// Receive-completion events (written by the NIC).
    ReceiveCompletion,
    /// NAP receive buffers (posted by software, taken by the NIC).
    NapBuffers,
}

impl Ring {
    /// Every ring, in register order.
    pub const ALL: [Ring; 3] = [
        Ring::SendCompletion,
        Ring::ReceiveCompletion,
        Ring::NapBuffers,
    ];
    /// Register name prefix.
    pub fn prefix(self) -> &'static str {
        match self {
            Ring::SendCompletion => "scq",
            Ring::ReceiveCompletion => "rcq",
            Ring::NapBuffers => "nbr",
        }
    }
    /// Code on a [`PointerAdvance`](crate::function_table) port.
    pub fn code(self) -> u64 {
        match self {
            Ring::SendCompletion => 0,
            Ring::ReceiveCompletion => 1,
            Ring::NapBuffers => 2,
        }
    }
    /// Whether the NIC produces the ring's entries (events) rather than consuming them.
    pub fn nic_produces(self) -> bool {
        self != Ring::NapBuffers
    }
}

/// Registers of a function page that only the PF may write (a VF's write is refused and
/// counted in its `mmio_privileged`); `qp{q}_key` for every QP besides these.
pub const PRIVILEGED: [&str; 2] = ["enable", "weight"];

/// The register names of a QP block in page order (`qp{q}_` prefixed in the page).
pub fn qp_register_names() -> Vec<String> {
    let mut v = vec!["key".to_string()];
    for r in Ring::ALL {
        for k in ["base", "size", "producer", "consumer"] {
            v.push(format!("{}_{k}", r.prefix()));
        }
    }
    v
}

/// One SR-IOV function's MMIO page with `qps` QPs: what its driver reaches through its BAR.
pub fn function_page_map(qps: usize) -> RegMap {
    let mut m = RegMap::new(
        "nic_function",
        "One SR-IOV function's MMIO page (its BAR; the PF reaches every function's page). PF only: enable, weight and each QP's key (a VF's write is refused and counted).",
    )
    .reg(Register::ro("doorbell", 0, 16).doc(
        "write: queue one doorbell word (docs/formats.md) in this function's FIFO (refused and counted when full or when the function is disabled); read: doorbells queued",
    ))
    .reg(Register::rw("enable", 1, 1).doc(
        "PF only: the function is enabled (a disabled function's doorbells are refused, packets to it dropped, its QPs' NIC pointers held at zero)",
    ))
    .reg(Register::rw("weight", 2, WEIGHT_BITS).reset(1).doc(
        "PF only: doorbells served in a row for this function when arbitration is weighted (global arb_mode); 0 counts as 1",
    ))
    .reg(Register::rw("interrupts", 3, 16).doc(
        "bit q: raise an interrupt (vector q) after writing an event to QP q's rings",
    ))
    .reg(Register::counter("doorbell_overflows", 4, FUNCTION_COUNTER_BITS).doc(
        "doorbells refused because this function's FIFO was full (the queued ones unchanged)",
    ))
    .reg(Register::counter("doorbells_disabled", 5, FUNCTION_COUNTER_BITS).doc(
        "doorbells refused because this function was disabled",
    ))
    .reg(Register::counter("mmio_outside", 6, FUNCTION_COUNTER_BITS).doc(
        "this function's MMIO accesses beyond its BAR (reads answered Outside, writes dropped)",
    ))
    .reg(Register::counter("mmio_privileged", 7, FUNCTION_COUNTER_BITS).doc(
        "this function's writes to a PF-only register, refused (a VF only)",
    ))
    .reg(Register::counter("mmio_invalid", 8, FUNCTION_COUNTER_BITS).doc(
        "this function's accesses to no register of its page, not 8-byte aligned, or writing a read-only register (reads answered Unmapped, writes dropped)",
    ));
    for q in 0..qps {
        let b = QP_BASE + QP_STRIDE * q as u64;
        let p = |n: &str| format!("qp{q}_{n}");
        m = m.reg(
            Register::rw(p("key"), b, KEY_BITS + 1)
                .doc("PF only: the QP's QPMagic key and enable (packets to a disabled QP are dropped, its NIC pointers held at zero)")
                .field("key", 0, KEY_BITS, "QPMagic: arriving packets must carry it")
                .field("enable", KEY_BITS, 1, "the QP is enabled"),
        );
        for (i, r) in Ring::ALL.into_iter().enumerate() {
            let o = b + 1 + 4 * i as u64;
            let (what, entry) = match r {
                Ring::SendCompletion => ("send-completion event ring", "16-byte events"),
                Ring::ReceiveCompletion => ("receive-completion event ring", "16-byte events"),
                Ring::NapBuffers => (
                    "NAP-buffer ring",
                    "8-byte addresses of 2 KB-aligned buffers",
                ),
            };
            let n = r.prefix();
            m = m
                .reg(
                    Register::rw(p(&format!("{n}_base")), o, hdl::formats::nic::ADDRESS_BITS).doc(
                        format!("host address of the {what} ({entry}), aligned to its size"),
                    ),
                )
                .reg(
                    Register::rw(p(&format!("{n}_size")), o + 1, RING_SIZE_BITS)
                        .doc(format!("log2 of the {what}'s entries (1..=32768)")),
                );
            let (producer, consumer) = if r.nic_produces() {
                (
                    Register::ro(p(&format!("{n}_producer")), o + 2, RING_POINTER_BITS)
                        .doc(format!("entries the NIC has written to the {what} (free-running; held at zero while the QP or function is disabled)")),
                    Register::rw(p(&format!("{n}_consumer")), o + 3, RING_POINTER_BITS)
                        .doc(format!("entries software has consumed from the {what} (free-running); the NIC never writes more than the ring's size ahead of it")),
                )
            } else {
                (
                    Register::rw(p(&format!("{n}_producer")), o + 2, RING_POINTER_BITS)
                        .doc(format!("buffers software has posted to the {what} (free-running)")),
                    Register::ro(p(&format!("{n}_consumer")), o + 3, RING_POINTER_BITS)
                        .doc(format!("buffers the NIC has taken from the {what} (free-running; held at zero while the QP or function is disabled)")),
                )
            };
            m = m.reg(producer).reg(consumer);
        }
    }
    m
}

/// Registers of a function page with `qps` QPs (a power of two): its BAR's size is 8 bytes
/// times this.
pub fn page_registers(qps: usize) -> u64 {
    AddressSpace::window_of(&function_page_map(qps))
}

/// The PF-only registers after the last function page.
pub fn nic_global_map() -> RegMap {
    RegMap::new("nic_global", "PF only: the NIC's settings shared by all functions.").reg(
        Register::rw("arb_mode", 0, 2)
            .doc("doorbell arbitration: 0 byte-fair (deficit round robin, each function charged with its descriptors' bytes; the default), 1 or 3 weighted round robin over doorbells (each function's weight doorbells in a row), 2 round robin over doorbells"),
    )
}

/// The host space as the PF reaches it: `functions` pages of `qps` QPs, then the global block.
pub fn nic_host_space(functions: usize, qps: usize) -> Result<AddressSpace, String> {
    let mut space = AddressSpace::new(
        "nic_host",
        "The NIC's MMIO space as the PF reaches it: function f's page at register f x page (prefix f<f>_), then the PF-only global registers. A VF's BAR is its own page alone (nic_function).",
        HOST_REGISTER_BITS,
    );
    let page = page_registers(qps);
    let function = function_page_map(qps);
    for f in 0..functions {
        space.place(f as u64 * page, &format!("f{f}"), &function)?;
    }
    space.place(functions as u64 * page, "", &nic_global_map())?;
    Ok(space)
}

/// The host space flattened: the map of the function table's register file.
pub fn nic_host_map(functions: usize, qps: usize) -> Result<RegMap, String> {
    Ok(nic_host_space(functions, qps)?.to_map())
}

/// The function-level registers of the host space (every register but the QP blocks, at the
/// same addresses and names): the map of the function table's register file; the QP blocks
/// live in the QP table's RAMs (`nic::qp_table`).
pub fn nic_host_functions_map(functions: usize, qps: usize) -> Result<RegMap, String> {
    let mut m = nic_host_map(functions, qps)?;
    m.name = "nic_host_functions".into();
    m.registers.retain(|r| {
        !r.name
            .split_once('_')
            .is_some_and(|(_, rest)| rest.starts_with("qp"))
    });
    Ok(m)
}

/// Page offsets of the registers only the PF may write, for `qps` QPs.
pub fn privileged_offsets(qps: usize) -> Vec<u64> {
    let m = function_page_map(qps);
    let mut v: Vec<u64> = PRIVILEGED
        .iter()
        .map(|n| m.get(n).expect("listed register").offset)
        .collect();
    v.extend((0..qps).map(|q| m.get(&format!("qp{q}_key")).expect("key").offset));
    v
}

/// The NIC's register map (the space flattened), the network port's `link_settings`
/// resetting to `link_settings`.
pub fn nic_map(faults: usize, link_settings: u64) -> Result<RegMap, String> {
    Ok(nic_space(faults, link_settings)?.to_map())
}

// The network port's block (its whole window) stays clear of the DMA counters.
const _: () = assert!(NETWORK_PORT_BASE + hdl::llp::regs::LINK_PORT_REGISTERS <= DMA_COUNTERS_BASE);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_spaces_assemble_for_every_size() {
        for functions in 1..=8 {
            for qps in [1, 2, 4, 8, 16] {
                let m = nic_host_map(functions, qps).unwrap();
                m.validate().unwrap();
                assert!(m.last_offset().unwrap() < 1 << HOST_REGISTER_BITS);
                let page = function_page_map(qps);
                assert!(page.last_offset().unwrap() < QP_BASE + QP_STRIDE * qps as u64);
                assert_eq!(
                    page_registers(qps),
                    (QP_BASE + QP_STRIDE * qps as u64).next_power_of_two()
                );
            }
        }
        let offs = privileged_offsets(4);
        assert_eq!(offs, vec![1, 2, 0x10, 0x20, 0x30, 0x40]);
        assert_eq!(qp_register_names().len(), 13);
    }

    #[test]
    fn the_nic_space_assembles() {
        let reset = crate::tops::nic_top_params(&hdl::params::Config::default())
            .link
            .settings_reset();
        let map = nic_map(hdl::mgmt::regs::NMA_FAULTS, reset).unwrap();
        map.validate().unwrap();
        // The network port's settings: read-write at offset 8 of its block, reset as
        // configured, the block's window clear of the DMA counters.
        let settings = map.get("port0_link_settings").unwrap();
        assert_eq!(settings.offset, NETWORK_PORT_BASE + 8);
        assert_eq!(settings.access, hdl::regmap::Access::ReadWrite);
        assert_eq!(settings.reset, reset);
    }
}
