//! The rust-hdl backend: a hand-driven, single-threaded loop over a block's own Rust model.
//!
//! The guide measured this at about 5x the threaded `Simulation`. Inputs are settled before
//! every edge and before every peek (skipping either gave wrong results in the guide's
//! experiments). Set `HPCNET_VCD=DIR` to write `DIR/<bench>.vcd` of every run.
use crate::backend::{Backend, PortId};
use hdl::emit::{top_ports, PortDir, PortInfo};
use rust_hdl::prelude::*;
use std::fs::File;
use std::io::BufWriter;

/// Conversion between a port's signal type and the `u128` a bench pokes and peeks.
pub trait SimValue: Sized {
    /// Builds the value from the low bits of `v`.
    fn from_u128(v: u128) -> Self;
    /// The value as an unsigned integer.
    fn to_u128(&self) -> u128;
}

impl SimValue for bool {
    fn from_u128(v: u128) -> Self {
        v & 1 != 0
    }
    fn to_u128(&self) -> u128 {
        *self as u128
    }
}

impl<const N: usize> SimValue for Bits<N> {
    fn from_u128(v: u128) -> Self {
        let v = v & crate::backend::mask(N);
        if N <= 64 {
            Bits::<N>::from(v as u64)
        } else {
            let mut b = Bits::<N>::default();
            for i in 0..N.min(128) {
                if (v >> i) & 1 == 1 {
                    b = b.replace_bit(i, true);
                }
            }
            b
        }
    }
    fn to_u128(&self) -> u128 {
        if N <= 64 {
            self.to_u64() as u128
        } else {
            assert!(
                N <= 128,
                "ports wider than 128 bits are not supported by the bench API"
            );
            // The inherent method (by value); `self.to_u128()` would call this trait method
            // again and loop forever.
            Bits::<N>::to_u128(*self)
        }
    }
}

pub(crate) type Setter<T> = Box<dyn Fn(&mut T, u128) + Send + Sync>;
pub(crate) type Getter<T> = Box<dyn Fn(&T) -> u128 + Send + Sync>;
pub(crate) type Clocker<T> = fn(&mut T, bool);
type Entry<T> = (String, Setter<T>, Getter<T>);
type Vcd = rust_hdl::core::vcd_probe::VCDProbe<BufWriter<File>>;

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
    /// Adds the port called `name` (Verilog spelling, `sinks$0$valid`).
    pub fn add(
        &mut self,
        name: impl Into<String>,
        set: impl Fn(&mut T, u128) + Send + Sync + 'static,
        get: impl Fn(&T) -> u128 + Send + Sync + 'static,
    ) -> &mut Self {
        self.entries
            .push((name.into(), Box::new(set), Box::new(get)));
        self
    }

    /// The clock driver, if the block is sequential.
    pub(crate) fn clock(&self) -> Option<Clocker<T>> {
        self.clock
    }

    /// Orders the entries as `ports`: a setter per input (none for the clock and outputs) and a
    /// getter per port. Panics naming `bench` if a port has no entry or an entry no port.
    pub(crate) fn resolve(
        self,
        ports: &[PortInfo],
        bench: &str,
    ) -> (Vec<Option<Setter<T>>>, Vec<Getter<T>>) {
        let mut entries: Vec<Option<Entry<T>>> = self.entries.into_iter().map(Some).collect();
        let mut set = vec![];
        let mut get = vec![];
        for p in ports {
            if p.name == "clock" {
                set.push(None);
                get.push(Box::new(|_: &T| 0u128) as Getter<T>);
                continue;
            }
            let i = entries
                .iter()
                .position(|e| e.as_ref().is_some_and(|e| e.0 == p.name))
                .unwrap_or_else(|| {
                    panic!("port table of {bench} has no entry for port {}", p.name)
                });
            let (_, s, g) = entries[i].take().expect("entry used once");
            set.push(if p.dir == PortDir::Input {
                Some(s)
            } else {
                None
            });
            get.push(g);
        }
        if let Some(extra) = entries.iter().flatten().next() {
            panic!(
                "port table of {bench} names {}, which is not a top-level port",
                extra.0
            );
        }
        (set, get)
    }
}

/// Builds a [`PortTable`] for block type `$t` from field paths: `port_table!(Fifo; sink.valid, sink.data)`.
/// The Verilog name of `a.b` is `a$b`. Every sequential top has a `clock` field; write
/// `port_table!(comb Decoder; ...)` for a purely combinational block.
#[macro_export]
macro_rules! port_table {
    (@add $table:ident, $t:ty; $($($p:ident).+),*) => {{
        let mut table = $table;
        $(
            table.add(
                stringify!($($p).+).replace(' ', "").replace('.', "$"),
                |x: &mut $t, v: u128| x.$($p).+.next = $crate::rhdl::SimValue::from_u128(v),
                |x: &$t| $crate::rhdl::SimValue::to_u128(&x.$($p).+.val()),
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
    set: Vec<Option<Setter<T>>>,
    get: Vec<Getter<T>>,
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
        let clock = table.clock;
        let (set, get) = table.resolve(&ports, bench);
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
            set,
            get,
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

impl<T: Block> Backend for RhdlSim<T> {
    fn kind(&self) -> &'static str {
        "rust-hdl"
    }
    fn ports(&self) -> &[PortInfo] {
        &self.ports
    }
    fn poke(&mut self, p: PortId, v: u128) {
        let set = self.set[p.0]
            .as_ref()
            .unwrap_or_else(|| panic!("port {} is not a pokeable input", self.ports[p.0].name));
        set(&mut self.uut, v);
        self.dirty = true;
    }
    fn peek(&mut self, p: PortId) -> u128 {
        if self.dirty {
            self.settle();
        }
        (self.get[p.0])(&self.uut)
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
