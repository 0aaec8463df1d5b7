//! The rust-hdl backend: a hand-driven, single-threaded loop over a block's own Rust model.
//!
//! The guide measured this at about 5x the threaded `Simulation`. Inputs are settled before
//! every edge and before every peek (skipping either gave wrong results in the guide's
//! experiments). Set `HPCNET_VCD=DIR` to write `DIR/<bench>.vcd` of every run.
use crate::backend::{check_narrow, fit_words, u128_to_words, words, words_to_u128};
use crate::backend::{Backend, PortId};
use hdl::emit::{top_ports, PortDir, PortInfo};
use num_bigint::BigUint;
use rust_hdl::prelude::*;
use std::fs::File;
use std::io::BufWriter;

/// Conversion between a port's signal type and the values a bench pokes and peeks: a `u128`
/// for ports of up to 128 bits, 64-bit words (least significant first) for any width.
pub trait SimValue: Sized {
    /// Builds the value from the low bits of `v`.
    fn from_u128(v: u128) -> Self;
    /// The value as an unsigned integer (ports of up to 128 bits).
    fn to_u128(&self) -> u128;
    /// Builds the value from 64-bit words, least significant first (bits beyond the width
    /// ignored, missing words zero).
    fn from_words(w: &[u64]) -> Self;
    /// The value as [`words`]`(width)` 64-bit words, least significant first.
    fn to_words(&self) -> Vec<u64>;
}

impl SimValue for bool {
    fn from_u128(v: u128) -> Self {
        v & 1 != 0
    }
    fn to_u128(&self) -> u128 {
        *self as u128
    }
    fn from_words(w: &[u64]) -> Self {
        w.first().is_some_and(|x| x & 1 != 0)
    }
    fn to_words(&self) -> Vec<u64> {
        vec![*self as u64]
    }
}

impl<const N: usize> SimValue for Bits<N> {
    fn from_u128(v: u128) -> Self {
        let v = v & crate::backend::mask(N);
        if N <= 64 {
            Bits::<N>::from(v as u64)
        } else {
            Self::from_words(&u128_to_words(v, N.min(128)))
        }
    }
    fn to_u128(&self) -> u128 {
        if N <= 64 {
            self.to_u64() as u128
        } else {
            assert!(
                N <= 128,
                "a {N}-bit value does not fit a u128: use to_words (peek_wide)"
            );
            // The inherent method (by value); `self.to_u128()` would call this trait method
            // again and loop forever.
            Bits::<N>::to_u128(*self)
        }
    }
    fn from_words(w: &[u64]) -> Self {
        if N <= 64 {
            return Bits::<N>::from(fit_words(w, N)[0]);
        }
        // Through a big integer: rust-hdl builds its long bit vectors from one in a single
        // pass, where setting bit by bit would copy the whole vector per bit.
        let digits: Vec<u32> = fit_words(w, N)
            .iter()
            .flat_map(|&x| [x as u32, (x >> 32) as u32])
            .collect();
        Bits::<N>::from(BigUint::new(digits))
    }
    fn to_words(&self) -> Vec<u64> {
        if N <= 128 {
            return u128_to_words(SimValue::to_u128(self), N);
        }
        let mut d = BigUint::from(*self).to_u64_digits();
        d.resize(words(N), 0);
        d
    }
}

pub(crate) type Setter<T> = Box<dyn Fn(&mut T, u128) + Send + Sync>;
pub(crate) type Getter<T> = Box<dyn Fn(&T) -> u128 + Send + Sync>;
pub(crate) type WideSetter<T> = Box<dyn Fn(&mut T, &[u64]) + Send + Sync>;
pub(crate) type WideGetter<T> = Box<dyn Fn(&T) -> Vec<u64> + Send + Sync>;
pub(crate) type Clocker<T> = fn(&mut T, bool);
type Vcd = rust_hdl::core::vcd_probe::VCDProbe<BufWriter<File>>;

/// How a bench reaches one port: `u128` access, and word access for any width (derived from
/// the `u128` access when absent, for ports of up to 128 bits).
pub(crate) struct Entry<T> {
    name: String,
    set: Setter<T>,
    get: Getter<T>,
    set_wide: Option<WideSetter<T>>,
    get_wide: Option<WideGetter<T>>,
}

impl<T> Entry<T> {
    /// Drives the port with `v` (the low 128 bits of a wider port).
    pub(crate) fn set(&self, x: &mut T, v: u128) {
        (self.set)(x, v)
    }
    /// Reads a port of up to 128 bits.
    pub(crate) fn get(&self, x: &T) -> u128 {
        (self.get)(x)
    }
    /// Drives the `width`-bit port with `w`.
    pub(crate) fn set_wide(&self, x: &mut T, w: &[u64], width: usize) {
        let w = fit_words(w, width);
        match &self.set_wide {
            Some(set) => set(x, &w),
            None => {
                assert!(
                    width <= 128,
                    "port {}: a {width}-bit port needs a wide entry in the port table (add_wide)",
                    self.name
                );
                (self.set)(x, words_to_u128(&w))
            }
        }
    }
    /// Reads the `width`-bit port as words.
    pub(crate) fn get_wide(&self, x: &T, width: usize) -> Vec<u64> {
        match &self.get_wide {
            Some(get) => get(x),
            None => u128_to_words((self.get)(x), width),
        }
    }
}

/// How a bench reaches the ports of a rust-hdl block `T`: a setter and getter per Verilog port
/// name. Build one with [`crate::port_table!`] and [`PortTable::add`] for array ports.
pub struct PortTable<T> {
    clock: Option<Clocker<T>>,
    entries: Vec<Entry<T>>,
}

impl<T> PortTable<T> {
    /// A table whose clock is driven by `clock` (the block's `clock` field).
    pub fn new(clock: fn(&mut T, bool)) -> Self {
        Self {
            clock: Some(clock),
            entries: vec![],
        }
    }
    /// A table for a purely combinational block (no clock; `tick` only advances the count).
    pub fn combinational() -> Self {
        Self {
            clock: None,
            entries: vec![],
        }
    }
    /// Adds the port called `name` (Verilog spelling, `sinks$0$valid`), of up to 128 bits.
    pub fn add(
        &mut self,
        name: impl Into<String>,
        set: impl Fn(&mut T, u128) + Send + Sync + 'static,
        get: impl Fn(&T) -> u128 + Send + Sync + 'static,
    ) -> &mut Self {
        self.entries.push(Entry {
            name: name.into(),
            set: Box::new(set),
            get: Box::new(get),
            set_wide: None,
            get_wide: None,
        });
        self
    }
    /// Adds the port called `name` of any width, reached as 64-bit words.
    pub fn add_wide(
        &mut self,
        name: impl Into<String>,
        set: impl Fn(&mut T, &[u64]) + Send + Sync + 'static,
        get: impl Fn(&T) -> Vec<u64> + Send + Sync + 'static,
    ) -> &mut Self {
        let set = std::sync::Arc::new(set);
        let get = std::sync::Arc::new(get);
        let (set2, get2) = (set.clone(), get.clone());
        self.add_full(
            name,
            move |x, v| set2(x, &[v as u64, (v >> 64) as u64]),
            move |x| words_to_u128(&get2(x)),
            move |x, w| set(x, w),
            move |x| get(x),
        )
    }
    /// Adds the port called `name` with both kinds of access: `u128` (the fast path for ports of
    /// up to 128 bits) and 64-bit words (any width). [`crate::port_table!`] uses it.
    pub fn add_full(
        &mut self,
        name: impl Into<String>,
        set: impl Fn(&mut T, u128) + Send + Sync + 'static,
        get: impl Fn(&T) -> u128 + Send + Sync + 'static,
        set_wide: impl Fn(&mut T, &[u64]) + Send + Sync + 'static,
        get_wide: impl Fn(&T) -> Vec<u64> + Send + Sync + 'static,
    ) -> &mut Self {
        self.entries.push(Entry {
            name: name.into(),
            set: Box::new(set),
            get: Box::new(get),
            set_wide: Some(Box::new(set_wide)),
            get_wide: Some(Box::new(get_wide)),
        });
        self
    }

    /// The clock driver, if the block is sequential.
    pub(crate) fn clock(&self) -> Option<Clocker<T>> {
        self.clock
    }

    /// Orders the entries as `ports`. Panics naming `bench` if a port has no entry or an entry
    /// no port.
    pub(crate) fn resolve(self, ports: &[PortInfo], bench: &str) -> Vec<Option<Entry<T>>> {
        let mut entries: Vec<Option<Entry<T>>> = self.entries.into_iter().map(Some).collect();
        let mut out = vec![];
        for p in ports {
            if p.name == "clock" {
                out.push(None);
                continue;
            }
            let i = entries
                .iter()
                .position(|e| e.as_ref().is_some_and(|e| e.name == p.name))
                .unwrap_or_else(|| {
                    panic!("port table of {bench} has no entry for port {}", p.name)
                });
            out.push(entries[i].take());
        }
        if let Some(extra) = entries.iter().flatten().next() {
            panic!(
                "port table of {bench} names {}, which is not a top-level port",
                extra.name
            );
        }
        out
    }
}

/// Builds a [`PortTable`] for block type `$t` from field paths: `port_table!(Fifo; sink.valid, sink.data)`.
/// The Verilog name of `a.b` is `a$b`. Every sequential top has a `clock` field; write
/// `port_table!(comb Decoder; ...)` for a purely combinational block. Ports of any width work.
#[macro_export]
macro_rules! port_table {
    (@add $table:ident, $t:ty; $($($p:ident).+),*) => {{
        let mut table = $table;
        $(
            table.add_full(
                stringify!($($p).+).replace(' ', "").replace('.', "$"),
                |x: &mut $t, v: u128| x.$($p).+.next = $crate::rhdl::SimValue::from_u128(v),
                |x: &$t| $crate::rhdl::SimValue::to_u128(&x.$($p).+.val()),
                |x: &mut $t, w: &[u64]| x.$($p).+.next = $crate::rhdl::SimValue::from_words(w),
                |x: &$t| $crate::rhdl::SimValue::to_words(&x.$($p).+.val()),
            );
        )*
        table
    }};
    (comb $t:ty; $($($p:ident).+),* $(,)?) => {{
        let table = $crate::rhdl::PortTable::<$t>::combinational();
        $crate::port_table!(@add table, $t; $($($p).+),*)
    }};
    ($t:ty; $($($p:ident).+),* $(,)?) => {{
        let table = $crate::rhdl::PortTable::<$t>::new(|x: &mut $t, high: bool| {
            x.clock.next = rust_hdl::prelude::Clock { clk: high }
        });
        $crate::port_table!(@add table, $t; $($($p).+),*)
    }};
}

/// A rust-hdl block under simulation.
pub struct RhdlSim<T: Block> {
    uut: T,
    ports: Vec<PortInfo>,
    /// Per port (in `ports` order): how to reach it (none for the clock).
    access: Vec<Option<Entry<T>>>,
    clock: Option<Clocker<T>>,
    dirty: bool,
    cycle: u64,
    vcd: Option<Vcd>,
}

impl<T: Block> RhdlSim<T> {
    /// Simulates `uut`, reaching its ports through `table`, which must name every top-level
    /// port. `bench` names the VCD file when `HPCNET_VCD` is set.
    pub fn new(mut uut: T, table: PortTable<T>, bench: &str) -> Self {
        let ports = top_ports(&uut);
        let clock = table.clock();
        let access = table.resolve(&ports, bench);
        uut.connect_all();
        check_all(&uut).unwrap_or_else(|e| panic!("design rule check of {bench} failed: {e:?}"));
        let vcd = std::env::var_os("HPCNET_VCD").map(|dir| {
            std::fs::create_dir_all(&dir).expect("create VCD directory");
            let path = std::path::Path::new(&dir).join(format!("{bench}.vcd"));
            let f = BufWriter::new(File::create(&path).expect("create VCD file"));
            write_vcd_header(f, &uut)
        });
        let mut s = Self {
            uut,
            ports,
            access,
            clock,
            dirty: true,
            cycle: 0,
            vcd,
        };
        if let Some(c) = s.clock {
            c(&mut s.uut, false);
        }
        s.settle();
        s
    }

    /// As [`RhdlSim::new`], writing every cycle's values to the VCD file `path`.
    pub fn traced(
        uut: T,
        table: PortTable<T>,
        bench: &str,
        path: &std::path::Path,
    ) -> std::io::Result<Self> {
        let mut s = Self::new(uut, table, bench);
        let f = BufWriter::new(File::create(path)?);
        s.vcd = Some(write_vcd_header(f, &s.uut));
        Ok(s)
    }

    fn settle(&mut self) {
        assert!(
            simulate(&mut self.uut, 100),
            "logic did not settle within 100 passes (combinational loop?)"
        );
        self.dirty = false;
    }

    /// The block itself, for benches that inspect internal state.
    pub fn uut(&self) -> &T {
        &self.uut
    }
}

/// The access to input `p` of `ports`; panics unless it is an input other than the clock.
pub(crate) fn input<'a, T>(
    access: &'a [Option<Entry<T>>],
    ports: &[PortInfo],
    p: PortId,
) -> &'a Entry<T> {
    match &access[p.0] {
        Some(e) if ports[p.0].dir == PortDir::Input => e,
        _ => panic!("port {} is not a pokeable input", ports[p.0].name),
    }
}

/// The access to port `p` of `ports` for reading.
pub(crate) fn output<'a, T>(
    access: &'a [Option<Entry<T>>],
    ports: &[PortInfo],
    p: PortId,
) -> &'a Entry<T> {
    access[p.0]
        .as_ref()
        .unwrap_or_else(|| panic!("port {} cannot be read", ports[p.0].name))
}

impl<T: Block> Backend for RhdlSim<T> {
    fn kind(&self) -> &'static str {
        "rust-hdl"
    }
    fn ports(&self) -> &[PortInfo] {
        &self.ports
    }
    fn poke(&mut self, p: PortId, v: u128) {
        input(&self.access, &self.ports, p).set(&mut self.uut, v);
        self.dirty = true;
    }
    fn peek(&mut self, p: PortId) -> u128 {
        check_narrow(&self.ports[p.0]);
        if self.dirty {
            self.settle();
        }
        output(&self.access, &self.ports, p).get(&self.uut)
    }
    fn poke_wide(&mut self, p: PortId, w: &[u64]) {
        let width = self.ports[p.0].width;
        input(&self.access, &self.ports, p).set_wide(&mut self.uut, w, width);
        self.dirty = true;
    }
    fn peek_wide(&mut self, p: PortId) -> Vec<u64> {
        if self.dirty {
            self.settle();
        }
        let width = self.ports[p.0].width;
        output(&self.access, &self.ports, p).get_wide(&self.uut, width)
    }
    fn tick(&mut self) {
        if self.dirty {
            self.settle();
        }
        let Some(clock) = self.clock else {
            self.cycle += 1; // combinational: nothing to clock
            return;
        };
        clock(&mut self.uut, true);
        self.settle();
        if let Some(vcd) = self.vcd.take() {
            let mut vcd = vcd;
            vcd.timestamp(self.cycle * 10).expect("write VCD");
            self.vcd = Some(write_vcd_change(vcd, &self.uut));
        }
        clock(&mut self.uut, false);
        self.settle();
        self.cycle += 1;
    }
    fn cycle(&self) -> u64 {
        self.cycle
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_values_convert_both_ways() {
        let w = [
            0x0123_4567_89ab_cdef,
            0xfedc_ba98_7654_3210,
            0x5555,
            0xffff_ffff,
        ];
        let b = Bits::<200>::from_words(&w);
        // 200 bits: the top word keeps its low 8 bits.
        assert_eq!(b.to_words(), vec![w[0], w[1], w[2], 0xff]);
        assert!(b.get_bit(68) && !b.get_bit(64) && b.get_bit(199) && !b.get_bit(191));
        let n = Bits::<100>::from_u128(u128::MAX);
        assert_eq!(n.to_words(), vec![u64::MAX, (1 << 36) - 1]);
        assert_eq!(SimValue::to_u128(&n), (1u128 << 100) - 1);
        assert_eq!(Bits::<8>::from_words(&[0x1ff]).to_words(), vec![0xff]);
        assert!(bool::from_words(&[3]));
    }
}
