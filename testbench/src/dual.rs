//! Differential runs: one bench on both backends, every output compared on every cycle.
//!
//! The Verilator model is built (or loaded from the machine-wide cache) on a second thread
//! while the bench runs on rust-hdl's simulator, so a cold build overlaps the slower of the two
//! runs. A panic inside the bench on one backend is caught and raised again with the bench's
//! name and the backend's in front of the original message (`skid_buffer on verilator: ...`).
use crate::backend::{hex_words, words, Backend, PortId};
use crate::rhdl::{PortTable, RhdlSim};
use crate::verilator::VerilatorModel;
use hdl::emit::PortInfo;
use rust_hdl::prelude::Block;
use std::fmt::Debug;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

/// Records the value of every output port just before each rising edge.
struct Recorder<'a> {
    inner: &'a mut dyn Backend,
    /// Output ports with their number of 64-bit words.
    outputs: Vec<(PortId, usize)>,
    /// Every output's words, output after output, cycle after cycle.
    trace: Vec<u64>,
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
    fn poke_wide(&mut self, p: PortId, w: &[u64]) {
        self.inner.poke_wide(p, w)
    }
    fn peek_wide(&mut self, p: PortId) -> Vec<u64> {
        self.inner.peek_wide(p)
    }
    fn tick(&mut self) {
        for &(o, n) in &self.outputs {
            if n <= 2 {
                // The fast path: no allocation per port and cycle.
                let v = self.inner.peek(o);
                self.trace.push(v as u64);
                if n == 2 {
                    self.trace.push((v >> 64) as u64);
                }
            } else {
                let w = self.inner.peek_wide(o);
                self.trace.extend(w);
            }
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

/// The output ports of `ports` with their word counts.
fn output_layout(ports: &[PortInfo], ids: Vec<PortId>) -> Vec<(PortId, usize)> {
    ids.into_iter()
        .map(|p| (p, words(ports[p.0].width)))
        .collect()
}

/// Runs `bench` on `b`, recording every output; a panic in the bench is raised again with
/// `name` and the backend's kind in front of its message.
fn record<R>(
    name: &str,
    b: &mut dyn Backend,
    bench: &dyn Fn(&mut dyn Backend) -> R,
) -> (R, Vec<u64>, u64) {
    let kind = b.kind();
    let outputs = output_layout(b.ports(), b.output_ids());
    let mut rec = Recorder {
        inner: b,
        outputs,
        trace: vec![],
    };
    match catch_unwind(AssertUnwindSafe(|| bench(&mut rec))) {
        Ok(r) => {
            let cycles = rec.cycle();
            (r, rec.trace, cycles)
        }
        Err(e) => fail_on(name, kind, e),
    }
}

/// The text of a panic payload.
fn panic_message(e: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = e.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = e.downcast_ref::<String>() {
        s.clone()
    } else {
        "(a panic without a message)".to_string()
    }
}

/// Raises a caught panic again as `"{name} on {kind}: {original message}"`.
fn fail_on(name: &str, kind: &str, e: Box<dyn std::any::Any + Send>) -> ! {
    let msg = panic_message(&*e);
    if msg.starts_with(&format!("{name} on ")) {
        resume_unwind(e); // already named (a nested run)
    }
    panic!("{name} on {kind}: {msg}")
}

/// Panics at the first cycle where the two traces differ, naming the output and both values.
fn compare(name: &str, ports: &[PortInfo], layout: &[(PortId, usize)], t_rh: &[u64], t_vl: &[u64]) {
    if t_rh == t_vl {
        return;
    }
    let per_cycle: usize = layout.iter().map(|o| o.1).sum::<usize>().max(1);
    let i = t_rh
        .iter()
        .zip(t_vl)
        .position(|(a, b)| a != b)
        .unwrap_or(t_rh.len().min(t_vl.len()));
    let (cycle, mut within) = (i / per_cycle, i % per_cycle);
    let mut out = None;
    for &(p, n) in layout {
        if within < n {
            out = Some((p, n));
            break;
        }
        within -= n;
    }
    let value = |t: &[u64]| match out {
        Some((_, n)) => {
            let start = i - within;
            t.get(start..start + n)
                .map_or("(none)".to_string(), |w| format!("{:#x}", HexWords(w)))
        }
        None => "(none)".to_string(),
    };
    panic!(
        "{name}: rust-hdl and Verilator disagree at cycle {cycle} on output {}: rust-hdl {}, Verilator {} (traces of {} and {} words)",
        out.map_or("?", |(p, _)| ports[p.0].name.as_str()),
        value(t_rh),
        value(t_vl),
        t_rh.len(),
        t_vl.len()
    );
}

/// Formats words as one hexadecimal number.
struct HexWords<'a>(&'a [u64]);

impl std::fmt::LowerHex for HexWords<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if f.alternate() {
            f.write_str("0x")?;
        }
        f.write_str(&hex_words(self.0))
    }
}

/// Runs `bench` on rust-hdl's simulator and on Verilator, with fresh instances from `make`,
/// and panics at the first cycle where any output differs, or if the results differ.
///
/// `name` names the bench in messages (and the VCD file when `HPCNET_VCD` is set); equal
/// designs share one Verilator model whatever their name. The bench itself checks the block
/// against its reference model and panics on a mismatch; that panic is raised again as
/// `"{name} on rust-hdl: ..."` or `"{name} on verilator: ..."`.
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
    let (verilog, ports) = crate::verilator::emit(&mut make())
        .unwrap_or_else(|e| panic!("cannot emit the Verilog of {name}: {e:#}"));
    let (rh_run, model) = std::thread::scope(|s| {
        // The model builds (or loads) meanwhile; the thread only compiles, the bench stays here.
        let build =
            s.spawn(|| VerilatorModel::build(&verilog, crate::verilator::SHARED_TOP, &ports));
        let rh_run = catch_unwind(AssertUnwindSafe(|| {
            let mut rh = RhdlSim::new(make(), table(), name);
            record(name, &mut rh, &bench)
        }));
        let model = build.join();
        (rh_run, model)
    });
    let model = match model {
        Ok(Ok(m)) => m,
        Ok(Err(e)) => panic!("cannot build the Verilator model of {name}: {e:#}"),
        Err(e) => fail_on(name, "verilator (model build)", e),
    };
    let (r_rh, t_rh, cycles) = match rh_run {
        Ok(x) => x,
        Err(e) => resume_unwind(e),
    };
    let mut vl = model.instance();
    let (r_vl, t_vl, _) = record(name, &mut vl, &bench);
    let layout = output_layout(vl.ports(), vl.output_ids());
    compare(name, vl.ports(), &layout, &t_rh, &t_vl);
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

#[cfg(test)]
mod tests {
    use super::*;
    use hdl::emit::PortDir;

    #[test]
    fn a_difference_in_a_wide_output_is_named() {
        let port = |name: &str, width| PortInfo {
            name: name.into(),
            width,
            dir: PortDir::Output,
        };
        let ports = vec![port("valid", 1), port("data", 200), port("count", 3)];
        let layout = output_layout(&ports, vec![PortId(0), PortId(1), PortId(2)]);
        assert_eq!(
            layout.iter().map(|o| o.1).collect::<Vec<_>>(),
            vec![1, 4, 1]
        );
        // Two cycles of (valid, data: 4 words, count); cycle 1 differs in data's top word.
        let a = vec![1, 1, 2, 3, 4, 5, 0, 9, 9, 9, 9, 1];
        let mut b = a.clone();
        b[10] = 8;
        compare("wide", &ports, &layout, &a, &a);
        let e = catch_unwind(|| compare("wide", &ports, &layout, &a, &b)).unwrap_err();
        assert_eq!(
            panic_message(&*e),
            "wide: rust-hdl and Verilator disagree at cycle 1 on output data: rust-hdl \
             0x9_0000000000000009_0000000000000009_0000000000000009, Verilator \
             0x8_0000000000000009_0000000000000009_0000000000000009 (traces of 12 and 12 words)"
        );
    }
}
