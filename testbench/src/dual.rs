//! Differential runs: one bench on both backends, every output compared on every cycle.
use crate::backend::{Backend, PortId};
use crate::rhdl::{PortTable, RhdlSim};
use crate::verilator::VerilatorSim;
use hdl::emit::PortInfo;
use rust_hdl::prelude::Block;
use std::fmt::Debug;

/// Records the value of every output port just before each rising edge.
struct Recorder<'a> {
    inner: &'a mut dyn Backend,
    outputs: Vec<PortId>,
    trace: Vec<u128>,
}

impl Backend for Recorder<'_> {
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }
    fn ports(&self) -> &[PortInfo] {
        self.inner.ports()
    }
    fn poke(&mut self, p: PortId, v: u128) {
        self.inner.poke(p, v)
    }
    fn peek(&mut self, p: PortId) -> u128 {
        self.inner.peek(p)
    }
    fn tick(&mut self) {
        for &o in &self.outputs {
            let v = self.inner.peek(o);
            self.trace.push(v);
        }
        self.inner.tick()
    }
    fn cycle(&self) -> u64 {
        self.inner.cycle()
    }
}

/// What a differential run measured.
#[derive(Debug)]
pub struct DualReport<R> {
    /// The bench's own result (identical on both backends).
    pub result: R,
    /// Clock cycles simulated (per backend).
    pub cycles: u64,
}

fn record<R>(b: &mut dyn Backend, bench: &dyn Fn(&mut dyn Backend) -> R) -> (R, Vec<u128>, u64) {
    let outputs = b.output_ids();
    let mut rec = Recorder {
        inner: b,
        outputs,
        trace: vec![],
    };
    let r = bench(&mut rec);
    let cycles = rec.cycle();
    (r, rec.trace, cycles)
}

/// Runs `bench` on rust-hdl's simulator and on Verilator, with fresh instances from `make`,
/// and panics at the first cycle where any output differs, or if the results differ.
///
/// `name` names the emitted top (and the VCD file when `HPCNET_VCD` is set). The bench itself
/// checks the block against its reference model and panics on a mismatch.
pub fn run_both<T, R>(
    name: &str,
    make: impl Fn() -> T,
    table: impl Fn() -> PortTable<T>,
    bench: impl Fn(&mut dyn Backend) -> R,
) -> DualReport<R>
where
    T: Block,
    R: PartialEq + Debug,
{
    let mut vl = VerilatorSim::of(make(), name)
        .unwrap_or_else(|e| panic!("cannot build the Verilator model of {name}: {e:#}"));
    let mut rh = RhdlSim::new(make(), table(), name);
    let (r_rh, t_rh, cycles) = record(&mut rh, &bench);
    let (r_vl, t_vl, _) = record(&mut vl, &bench);
    let outs: Vec<String> = vl
        .output_ids()
        .iter()
        .map(|p| vl.ports()[p.0].name.clone())
        .collect();
    if t_rh != t_vl {
        let n = outs.len().max(1);
        let i = t_rh
            .iter()
            .zip(&t_vl)
            .position(|(a, b)| a != b)
            .unwrap_or(t_rh.len().min(t_vl.len()));
        panic!(
            "{name}: rust-hdl and Verilator disagree at cycle {} on output {}: rust-hdl {:?}, Verilator {:?} (traces of {} and {} values)",
            i / n,
            outs.get(i % n).map_or("?", |s| s.as_str()),
            t_rh.get(i),
            t_vl.get(i),
            t_rh.len(),
            t_vl.len()
        );
    }
    assert_eq!(
        r_rh, r_vl,
        "{name}: bench results differ between rust-hdl and Verilator"
    );
    DualReport {
        result: r_rh,
        cycles,
    }
}

/// [`run_both`] once per seed; the bench receives the seed.
pub fn run_both_seeds<T, R>(
    name: &str,
    seeds: &[u64],
    make: impl Fn() -> T,
    table: impl Fn() -> PortTable<T>,
    bench: impl Fn(&mut dyn Backend, u64) -> R,
) -> Vec<DualReport<R>>
where
    T: Block,
    R: PartialEq + Debug,
{
    seeds
        .iter()
        .map(|&s| run_both(name, &make, &table, |b| bench(b, s)))
        .collect()
}
