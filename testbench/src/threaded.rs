//! rust-hdl's own threaded `Simulation` behind the [`Backend`] trait, so the speed bench can
//! run the very same bench on it. Unit benches use the faster hand-driven [`crate::RhdlSim`];
//! this backend exists to measure what the rust-hdl simulator costs as its authors ship it.
use crate::backend::check_narrow;
use crate::backend::{Backend, PortId};
use crate::rhdl::{input, output, Entry, PortTable};
use hdl::emit::{top_ports, PortInfo};
use rust_hdl::prelude::*;
use std::sync::{Arc, Mutex};

/// Half the clock period, in picoseconds (a 100 MHz clock; rising edges at 5 ns + k x 10 ns).
const HALF_PERIOD: u64 = 5_000;

struct Threaded<T: Block> {
    sim: Sim<T>,
    x: Option<Box<T>>,
    ports: Vec<PortInfo>,
    access: Vec<Option<Entry<T>>>,
    now: u64,
    dirty: bool,
    cycle: u64,
}

impl<T: Block + Send + 'static> Threaded<T> {
    /// Settles new inputs: one picosecond of simulated time, no edge.
    fn settle(&mut self) {
        if self.dirty {
            self.wait(1);
            self.dirty = false;
        }
    }
    fn wait(&mut self, delta: u64) {
        let x = self.x.take().expect("circuit held by the testbench");
        self.x = Some(
            self.sim
                .wait(delta, x)
                .unwrap_or_else(|e| panic!("rust-hdl simulation failed: {e:?}")),
        );
        self.now += delta;
    }
}

impl<T: Block + Send + 'static> Backend for Threaded<T> {
    fn kind(&self) -> &'static str {
        "rust-hdl threaded Simulation"
    }
    fn ports(&self) -> &[PortInfo] {
        &self.ports
    }
    fn poke(&mut self, p: PortId, v: u128) {
        input(&self.access, &self.ports, p).set(self.x.as_mut().expect("circuit"), v);
        self.dirty = true;
    }
    fn peek(&mut self, p: PortId) -> u128 {
        check_narrow(&self.ports[p.0]);
        self.settle();
        output(&self.access, &self.ports, p).get(self.x.as_ref().expect("circuit"))
    }
    fn poke_wide(&mut self, p: PortId, w: &[u64]) {
        let width = self.ports[p.0].width;
        input(&self.access, &self.ports, p).set_wide(self.x.as_mut().expect("circuit"), w, width);
        self.dirty = true;
    }
    fn peek_wide(&mut self, p: PortId) -> Vec<u64> {
        self.settle();
        let width = self.ports[p.0].width;
        output(&self.access, &self.ports, p).get_wide(self.x.as_ref().expect("circuit"), width)
    }
    fn tick(&mut self) {
        // Resume one picosecond after the next rising edge.
        let rise = HALF_PERIOD
            + (self.now.saturating_sub(HALF_PERIOD) / (2 * HALF_PERIOD) + 1) * 2 * HALF_PERIOD;
        let rise = if self.now < HALF_PERIOD {
            HALF_PERIOD
        } else {
            rise
        };
        self.wait(rise + 1 - self.now);
        self.dirty = false;
        self.cycle += 1;
    }
    fn cycle(&self) -> u64 {
        self.cycle
    }
}

/// Runs `bench` on rust-hdl's threaded `Simulation` of `uut` (clock thread plus testbench
/// thread, as in rust-hdl's documentation) and returns its result.
pub fn run_threaded<T, R>(
    uut: T,
    table: PortTable<T>,
    bench: impl FnOnce(&mut dyn Backend) -> R + Send + 'static,
) -> R
where
    T: Block + Send + 'static,
    R: Send + 'static,
{
    let ports = top_ports(&uut);
    let clock = table
        .clock()
        .expect("the threaded backend needs a clocked block");
    let access = table.resolve(&ports, "threaded");
    let state = Arc::new(Mutex::new(Some((access, bench))));
    let result = Arc::new(Mutex::new(None));
    let mut sim = Simulation::<T>::new();
    let level = std::sync::atomic::AtomicBool::new(false);
    sim.add_clock(HALF_PERIOD, move |x: &mut Box<T>| {
        let high = !level.load(std::sync::atomic::Ordering::Relaxed);
        level.store(high, std::sync::atomic::Ordering::Relaxed);
        clock(x, high);
    });
    let (st, res) = (state.clone(), result.clone());
    sim.add_testbench(move |sim: Sim<T>| {
        let (access, bench) = st.lock().unwrap().take().expect("testbench runs once");
        let x = sim.init()?;
        let mut b = Threaded {
            sim,
            x: Some(x),
            ports: ports.clone(),
            access,
            now: 0,
            dirty: true,
            cycle: 0,
        };
        let r = bench(&mut b);
        *res.lock().unwrap() = Some(r);
        let x = b.x.take().expect("circuit");
        b.sim.done(x)
    });
    sim.run(Box::new(uut), u64::MAX)
        .unwrap_or_else(|e| panic!("rust-hdl simulation failed: {e:?}"));
    let r = result.lock().unwrap().take();
    r.expect("bench finished")
}
