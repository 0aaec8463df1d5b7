//! The switch's tiled crossbar (`nrc::switch::Crossbar`): per output, the flit of the input
//! its one-hot `select` names (zero for none; several bits OR their flits, which the allocator
//! never asks), against a direct model, every cycle.
//!
//! Every tiling (`tile_rows` x `tile_cols`, each 1..=ports) of 4, 5, 6 and 8 ports on rust-hdl's
//! simulator; a selection of tilings (flat, rows only, columns only, uneven, one tile per port)
//! on both backends. Stimulus: random flits; per output a random input, none, or (1 in 20) two.
#![allow(clippy::needless_range_loop)] // per-port and per-VC ports, queues and model state are indexed together
use nrc::switch::Crossbar;
use testbench::rhdl::SimValue;
use testbench::{run_both, Backend, BenchRng, PortTable, RhdlSim};

fn table<const N: usize>() -> PortTable<Crossbar<N>> {
    let mut t = PortTable::<Crossbar<N>>::combinational();
    for i in 0..N {
        t.add(
            format!("flits${i}"),
            move |x: &mut Crossbar<N>, v| x.flits[i].next = SimValue::from_u128(v),
            move |x: &Crossbar<N>| SimValue::to_u128(&x.flits[i].val()),
        );
        t.add(
            format!("selects${i}"),
            move |x: &mut Crossbar<N>, v| x.selects[i].next = SimValue::from_u128(v),
            move |x: &Crossbar<N>| SimValue::to_u128(&x.selects[i].val()),
        );
        t.add(
            format!("outputs${i}"),
            move |x: &mut Crossbar<N>, v| x.outputs[i].next = SimValue::from_u128(v),
            move |x: &Crossbar<N>| SimValue::to_u128(&x.outputs[i].val()),
        );
    }
    t
}

/// Random stimulus for `cycles` cycles, every output checked. Returns the flits moved.
fn bench(b: &mut dyn Backend, n: usize, seed: u64, cycles: u64) -> u64 {
    let mut rng = BenchRng::new(seed);
    let flits: Vec<_> = (0..n).map(|i| b.port(&format!("flits${i}"))).collect();
    let selects: Vec<_> = (0..n).map(|i| b.port(&format!("selects${i}"))).collect();
    let outputs: Vec<_> = (0..n).map(|i| b.port(&format!("outputs${i}"))).collect();
    let mut moved = 0;
    for cycle in 0..cycles {
        let f: Vec<u128> = (0..n).map(|_| rng.bits(65)).collect();
        for i in 0..n {
            b.poke(flits[i], f[i]);
        }
        let mut want = vec![0u128; n];
        for p in 0..n {
            let mut sel = 0u128;
            if rng.chance(0.8) {
                sel |= 1 << rng.range(0, n as u64 - 1);
            }
            if rng.chance(0.05) {
                sel |= 1 << rng.range(0, n as u64 - 1);
            }
            b.poke(selects[p], sel);
            for i in 0..n {
                if sel >> i & 1 == 1 {
                    want[p] |= f[i];
                }
            }
            moved += (sel != 0) as u64;
        }
        for p in 0..n {
            assert_eq!(
                b.peek(outputs[p]),
                want[p],
                "seed {seed} cycle {cycle}: output {p}"
            );
        }
        b.tick();
    }
    moved
}

fn every_tiling<const N: usize>() {
    for rows in 1..=N {
        for cols in 1..=N {
            let name = format!("crossbar_{N}_{rows}x{cols}");
            let mut sim = RhdlSim::new(Crossbar::<N>::new(rows, cols), table::<N>(), &name);
            assert!(bench(&mut sim, N, (rows * 10 + cols) as u64, 200) > 0);
        }
    }
}

#[test]
fn crossbar_every_tiling_of_4_5_6_8_ports() {
    every_tiling::<4>();
    every_tiling::<5>();
    every_tiling::<6>();
    every_tiling::<8>();
}

#[test]
fn crossbar_tilings_on_both_backends() {
    for (rows, cols) in [(1, 1), (2, 3), (6, 1), (4, 5)] {
        run_both(
            &format!("crossbar_6_{rows}x{cols}"),
            || Crossbar::<6>::new(rows, cols),
            table::<6>,
            |b| bench(b, 6, 5, 2000),
        );
    }
    for (rows, cols) in [(1, 1), (2, 2), (5, 5)] {
        run_both(
            &format!("crossbar_5_{rows}x{cols}"),
            || Crossbar::<5>::new(rows, cols),
            table::<5>,
            |b| bench(b, 5, 6, 2000),
        );
    }
}
