//! Simulation speed: one bench (8 stream FIFOs feeding an 8-way arbitrated stream mux, as in
//! the rust-hdl guide's Arb8) run on both backends, in cycles per second.
//!
//! The bench is written once against [`Backend`]; both runs must end with the same checksum of
//! every beat delivered, so the two speeds are of the same work.
use crate::backend::Backend;
use crate::rhdl::{PortTable, RhdlSim};
use crate::threaded::run_threaded;
use crate::verilator::VerilatorModel;
use anyhow::{ensure, Result};
use hdl::prelude::*;
use std::time::Instant;

/// 8 FIFOs of 16 x 32 bits into an 8-way round-robin stream mux.
#[derive(LogicBlock)]
pub struct Arb8 {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The eight inputs.
    pub sinks: [StreamSink<Bits<32>>; 8],
    /// The merged output.
    pub source: StreamSource<Bits<32>>,
    fifos: [stream_fifo!(Bits<32>, 16); 8],
    mux: StreamMux<Bits<32>, 8, 3>,
}

impl Arb8 {
    /// Arb8 whose FIFOs use storage `kind`.
    pub fn new(kind: FifoKind) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sinks: Default::default(),
            source: Default::default(),
            fifos: std::array::from_fn(|_| StreamFifo::with_kind(kind)),
            mux: StreamMux::new(false),
        }
    }
}

impl Logic for Arb8 {
    #[hdl_gen]
    fn update(&mut self) {
        self.mux.clock.next = self.clock.val();
        self.mux.reset.next = self.reset.val();
        self.mux.lasts.next = 0.into();
        for i in 0..8 {
            self.fifos[i].clock.next = self.clock.val();
            self.fifos[i].reset.next = self.reset.val();
            StreamSink::<Bits<32>>::link(&mut self.sinks[i], &mut self.fifos[i].sink);
            StreamSource::<Bits<32>>::join(&mut self.fifos[i].source, &mut self.mux.sinks[i]);
        }
        StreamSource::<Bits<32>>::link(&mut self.source, &mut self.mux.source);
    }
}

/// The rust-hdl port table of [`Arb8`].
pub fn arb8_ports() -> PortTable<Arb8> {
    let mut t = PortTable::new(|x: &mut Arb8, h| x.clock.next = Clock { clk: h });
    t.add(
        "reset",
        |x: &mut Arb8, v| x.reset.next = v != 0,
        |x| x.reset.val() as u128,
    );
    for i in 0..8 {
        t.add(
            format!("sinks${i}$valid"),
            move |x: &mut Arb8, v| x.sinks[i].valid.next = v != 0,
            move |x| x.sinks[i].valid.val() as u128,
        );
        t.add(
            format!("sinks${i}$data"),
            move |x: &mut Arb8, v| x.sinks[i].data.next = (v as u64).into(),
            move |x| x.sinks[i].data.val().to_u64() as u128,
        );
        t.add(
            format!("sinks${i}$ready"),
            |_: &mut Arb8, _| {},
            move |x| x.sinks[i].ready.val() as u128,
        );
    }
    t.add(
        "source$valid",
        |_: &mut Arb8, _| {},
        |x| x.source.valid.val() as u128,
    );
    t.add(
        "source$data",
        |_: &mut Arb8, _| {},
        |x| x.source.data.val().to_u64() as u128,
    );
    t.add(
        "source$ready",
        |x: &mut Arb8, v| x.source.ready.next = v != 0,
        |x| x.source.ready.val() as u128,
    );
    t
}

/// Drives `cycles` cycles of random traffic (each input offers a beat 1/8 of its cycles and
/// holds it until taken; the output is ready 7/8 of cycles). Returns (beats, checksum).
pub fn arb8_bench(b: &mut dyn Backend, cycles: u64) -> (u64, u64) {
    let sinks: Vec<_> = (0..8)
        .map(|i| {
            (
                b.port(&format!("sinks${i}$valid")),
                b.port(&format!("sinks${i}$data")),
                b.port(&format!("sinks${i}$ready")),
            )
        })
        .collect();
    let (ov, od, or) = (
        b.port("source$valid"),
        b.port("source$data"),
        b.port("source$ready"),
    );
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut offering = [None::<u32>; 8];
    let mut next = 0u32;
    let (mut beats, mut sum) = (0u64, 0u64);
    for _ in 0..cycles {
        // xorshift64: cheap, so the bench measures the simulator rather than its stimulus.
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        for (i, s) in sinks.iter().enumerate() {
            if offering[i].is_none() && (rng >> (3 * i)) & 7 == 0 {
                offering[i] = Some(next);
                next = next.wrapping_add(0x9e37_79b9);
            }
            b.poke(s.0, offering[i].is_some() as u128);
            b.poke(s.1, offering[i].unwrap_or(0) as u128);
        }
        let ready = (rng >> 40) & 7 != 0;
        b.poke(or, ready as u128);
        for (i, s) in sinks.iter().enumerate() {
            if offering[i].is_some() && b.peek(s.2) != 0 {
                offering[i] = None;
            }
        }
        if ready && b.peek(ov) != 0 {
            beats += 1;
            sum = sum.wrapping_mul(31).wrapping_add(b.peek(od) as u64);
        }
        b.tick();
    }
    (beats, sum)
}

/// One row of the speed table.
struct Row {
    backend: &'static str,
    cycles: u64,
    seconds: f64,
    result: (u64, u64),
}

fn timed(backend: &'static str, cycles: u64, run: impl FnOnce(u64) -> (u64, u64)) -> Row {
    let t = Instant::now();
    let result = run(cycles);
    Row {
        backend,
        cycles,
        seconds: t.elapsed().as_secs_f64(),
        result,
    }
}

fn variant(label: &str, kind: FifoKind) -> Result<()> {
    let make = move || Arb8::new(kind);
    let t = Instant::now();
    let model = VerilatorModel::build_for(&mut make(), "arb8")?;
    let build = t.elapsed().as_secs_f64();
    let short = 20_000;
    let rows = [
        timed("rust-hdl threaded Simulation", 20_000, |n| {
            run_threaded(make(), arb8_ports(), move |b| arb8_bench(b, n))
        }),
        timed("rust-hdl hand-driven loop", short, |n| {
            arb8_bench(&mut RhdlSim::new(make(), arb8_ports(), "arb8"), n)
        }),
        timed("Verilator (C shim)", 4_000_000, |n| {
            arb8_bench(&mut model.instance(), n)
        }),
    ];
    // Same work: every backend's checksum over its first cycles must agree.
    let check = |n| arb8_bench(&mut model.instance(), n);
    ensure!(
        rows[0].result == check(rows[0].cycles),
        "threaded Simulation and Verilator disagree"
    );
    ensure!(
        rows[1].result == check(rows[1].cycles),
        "hand-driven loop and Verilator disagree"
    );
    println!("### Arb8 with {label} FIFOs (Verilator model build {build:.1} s, cached after the first)\n");
    println!("| backend | cycles | seconds | cycles/s | vs threaded | beats/cycle |");
    println!("|---|---|---|---|---|---|");
    let base = rows[0].cycles as f64 / rows[0].seconds;
    for r in &rows {
        let rate = r.cycles as f64 / r.seconds;
        println!(
            "| {} | {} | {:.2} | {:.0} | {:.0}x | {:.3} |",
            r.backend,
            r.cycles,
            r.seconds,
            rate,
            rate / base,
            r.result.0 as f64 / r.cycles as f64
        );
    }
    let vl = rows[2].cycles as f64 / rows[2].seconds;
    let hand = rows[1].cycles as f64 / rows[1].seconds;
    println!(
        "\nVerilator: {:.0}x rust-hdl's threaded Simulation (goal: 300x), {:.0}x the hand-driven loop; checksums agree.\n",
        vl / base,
        vl / hand
    );
    Ok(())
}

/// Prints the speed table of `make bench`.
pub fn report() -> Result<()> {
    println!("## Simulation speed: Arb8 (8 x StreamFifo 16x32 -> 8-way StreamMux), one bench on every backend\n");
    variant("block-RAM", FifoKind::BlockRam)?;
    variant(
        "register (StreamFifo's choice at depth 16)",
        FifoKind::Registers,
    )?;
    Ok(())
}
