//! The interface a bench drives: poke inputs, peek outputs, tick the clock.
use hdl::emit::{PortDir, PortInfo};

/// Index of a top-level port in a backend's port list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PortId(pub usize);

/// A simulated top with one clock called `clock`.
///
/// Cycle protocol of every bench: poke inputs, peek outputs (the backend settles the
/// combinational logic first), then [`Backend::tick`] applies one rising clock edge.
///
/// Values: [`Backend::poke`] and [`Backend::peek`] move a port's value as a `u128`, the fast
/// path for ports of up to 128 bits; [`Backend::poke_wide`] and [`Backend::peek_wide`] move any
/// width as 64-bit words, least significant first (`words(width)` of them, [`words`]).
pub trait Backend {
    /// Name of the backend, for reports.
    fn kind(&self) -> &'static str;
    /// Top-level ports, in declaration order (the clock included).
    fn ports(&self) -> &[PortInfo];
    /// Drives input port `p` with `v` (bits above the port's width must be zero; a port wider
    /// than 128 bits gets `v` in its low bits and zero above).
    fn poke(&mut self, p: PortId, v: u128);
    /// Reads port `p` after settling the logic on the current inputs. Panics for a port wider
    /// than 128 bits: use [`Backend::peek_wide`].
    fn peek(&mut self, p: PortId) -> u128;
    /// Drives input port `p` of any width with `words`, least significant first (missing words
    /// are zero; bits above the port's width must be zero).
    fn poke_wide(&mut self, p: PortId, words: &[u64]);
    /// Reads port `p` of any width as [`words`]`(width)` 64-bit words, least significant first.
    fn peek_wide(&mut self, p: PortId) -> Vec<u64>;
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
    /// Width of port `p` in bits.
    fn width(&self, p: PortId) -> usize {
        self.ports()[p.0].width
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

/// Number of 64-bit words of a `width`-bit value (at least one).
pub fn words(width: usize) -> usize {
    width.div_ceil(64).max(1)
}

/// `v` as `words(width)` words, least significant first.
pub fn u128_to_words(v: u128, width: usize) -> Vec<u64> {
    let mut w = vec![0u64; words(width)];
    w[0] = v as u64;
    if w.len() > 1 {
        w[1] = (v >> 64) as u64;
    }
    w
}

/// The low 128 bits of `words` (least significant first).
pub fn words_to_u128(words: &[u64]) -> u128 {
    let lo = words.first().copied().unwrap_or(0) as u128;
    let hi = words.get(1).copied().unwrap_or(0) as u128;
    lo | hi << 64
}

/// `words` resized to `words(width)` and masked to `width` bits: what a backend stores.
pub fn fit_words(words_in: &[u64], width: usize) -> Vec<u64> {
    let mut w = vec![0u64; words(width)];
    for (d, s) in w.iter_mut().zip(words_in) {
        *d = *s;
    }
    let top = width % 64;
    if top != 0 {
        let last = w.len() - 1;
        w[last] &= (1u64 << top) - 1;
    }
    w
}

/// Panics, naming the port, if `port` is wider than the `u128` of [`Backend::peek`].
pub fn check_narrow(port: &PortInfo) {
    assert!(
        port.width <= 128,
        "port {} is {} bits wide: read it with peek_wide",
        port.name,
        port.width
    );
}

/// A value as hexadecimal, most significant word first (for reports).
pub fn hex_words(words: &[u64]) -> String {
    let mut s = String::new();
    for (i, w) in words.iter().rev().enumerate() {
        if i == 0 {
            s += &format!("{w:x}");
        } else {
            s += &format!("_{w:016x}");
        }
    }
    s
}
