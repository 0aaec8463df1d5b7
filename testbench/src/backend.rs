//! The interface a bench drives: poke inputs, peek outputs, tick the clock.
use hdl::emit::{PortDir, PortInfo};

/// Index of a top-level port in a backend's port list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PortId(pub usize);

/// A simulated top with one clock called `clock`.
///
/// Cycle protocol of every bench: poke inputs, peek outputs (the backend settles the
/// combinational logic first), then [`Backend::tick`] applies one rising clock edge.
pub trait Backend {
    /// Name of the backend, for reports.
    fn kind(&self) -> &'static str;
    /// Top-level ports, in declaration order (the clock included).
    fn ports(&self) -> &[PortInfo];
    /// Drives input port `p` with `v` (bits above the port's width must be zero).
    fn poke(&mut self, p: PortId, v: u128);
    /// Reads port `p` after settling the logic on the current inputs.
    fn peek(&mut self, p: PortId) -> u128;
    /// Applies one rising clock edge (and the falling edge after it).
    fn tick(&mut self);
    /// Rising edges applied so far.
    fn cycle(&self) -> u64;

    /// Looks up a port by its Verilog name (`sink$valid`); panics with the list of ports if absent.
    fn port(&self, name: &str) -> PortId {
        match self.ports().iter().position(|p| p.name == name) {
            Some(i) => PortId(i),
            None => panic!(
                "no port {name:?}; ports are: {}",
                self.ports()
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
    /// Pokes a one-bit port.
    fn poke_bool(&mut self, p: PortId, v: bool) {
        self.poke(p, v as u128);
    }
    /// Peeks a one-bit port.
    fn peek_bool(&mut self, p: PortId) -> bool {
        self.peek(p) != 0
    }
    /// Ids of all output ports, in declaration order.
    fn output_ids(&self) -> Vec<PortId> {
        self.ports()
            .iter()
            .enumerate()
            .filter(|(_, p)| p.dir == PortDir::Output)
            .map(|(i, _)| PortId(i))
            .collect()
    }
}

/// Mask of the low `width` bits.
pub fn mask(width: usize) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}
