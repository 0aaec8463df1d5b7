//! `FunctionTable` (nic::function_table, with its `MmioDecode`) against its model
//! (`testbench::models::function_table`), on both backends, driven through the host's MMIO
//! port model (`testbench::host::MmioHost`) with offsets from the driver model's register
//! maps; the doorbell FIFOs behind it are their model (`DoorbellQueuesModel`), whose overflow
//! pulses and fills the bench feeds back as the real FIFOs would.
//!
//! 1. **Random accesses** from every function, with random idle (random fields while `valid` is
//!    low) and random backpressure on completions: reads and writes of the registers each
//!    function reaches (the PF: every page and the global block; a VF: its page), writes to
//!    PF-only registers by VFs (refused), doorbells (queued, or refused when the function is
//!    disabled), offsets beyond the BAR (refused, `Outside`), misaligned offsets, holes in a
//!    page and writes to read-only registers (`Unmapped`, counted), while random lookups and
//!    pointer advances (some naming no function or QP) run every cycle and `reset` comes at
//!    random moments. Every completion is checked (data and status; read-only registers and
//!    counters against the values they had while the read was in flight), every doorbell
//!    against the access that rang it, every lookup answer exactly, and the arbitration
//!    settings every cycle.
//! 2. **Drain and read back everything** through the PF: every register of every page equals
//!    the model exactly (counters included): no refused access changed anything.
use nic::function_table::FunctionTable;
use nic::host::mmio::MmioStatus;
use std::collections::{HashSet, VecDeque};
use testbench::host::{DriverModel, MmioAccess, MmioHost};
use testbench::models::doorbell::{DoorbellQueuesModel, QueuesInputs};
use testbench::models::function_table::{Expect, FunctionTableModel, Outcome};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng, PortId, PortTable, SimValue};

type Dut<const QAW: usize> = FunctionTable<QAW>;

fn table<const QAW: usize>(functions: usize) -> PortTable<Dut<QAW>> {
    let mut t = port_table!(Dut<QAW>; reset,
        mmio.valid, mmio.function, mmio.offset, mmio.write, mmio.data, mmio.tag, mmio.ready,
        completion.valid, completion.tag, completion.data, completion.status, completion.ready,
        doorbells.valid, doorbells.function, doorbells.word, doorbells.ready, weighted, byte_fair,
        lookup.valid, lookup.function, lookup.qp, lookup.ready, lookup.answered, lookup.owned,
        lookup.function_enabled, lookup.qp_enabled, lookup.key, lookup.interrupt,
        lookup.send_base, lookup.send_size, lookup.send_producer, lookup.send_consumer,
        lookup.receive_base, lookup.receive_size, lookup.receive_producer, lookup.receive_consumer,
        lookup.nap_base, lookup.nap_size, lookup.nap_producer, lookup.nap_consumer,
        advance.valid, advance.function, advance.qp, advance.ring, advance_second.valid,
        advance_second.function, advance_second.qp, advance_second.ring);
    for i in 0..functions {
        t.add(
            format!("doorbell_overflows${i}"),
            move |x: &mut Dut<QAW>, v| x.doorbell_overflows[i].next = SimValue::from_u128(v),
            move |x: &Dut<QAW>| SimValue::to_u128(&x.doorbell_overflows[i].val()),
        );
        t.add(
            format!("doorbell_fills${i}"),
            move |x: &mut Dut<QAW>, v| x.doorbell_fills[i].next = SimValue::from_u128(v),
            move |x: &Dut<QAW>| SimValue::to_u128(&x.doorbell_fills[i].val()),
        );
        t.add(
            format!("weights${i}"),
            move |x: &mut Dut<QAW>, v| x.weights[i].next = SimValue::from_u128(v),
            move |x: &Dut<QAW>| SimValue::to_u128(&x.weights[i].val()),
        );
    }
    t
}

/// The lookup's answer ports, in `LookupAnswer` order.
struct LookupPorts {
    valid: PortId,
    function: PortId,
    qp: PortId,
    ready: PortId,
    answered: PortId,
    flags: [PortId; 4],
    key: PortId,
    rings: [[PortId; 4]; 3],
}

impl LookupPorts {
    fn new(b: &dyn Backend) -> Self {
        let p = |n: &str| b.port(&format!("lookup${n}"));
        let ring = |r: &str| {
            ["base", "size", "producer", "consumer"].map(|k| b.port(&format!("lookup${r}_{k}")))
        };
        Self {
            valid: p("valid"),
            function: p("function"),
            qp: p("qp"),
            ready: p("ready"),
            answered: p("answered"),
            flags: [
                p("owned"),
                p("function_enabled"),
                p("qp_enabled"),
                p("interrupt"),
            ],
            key: p("key"),
            rings: [ring("send"), ring("receive"), ring("nap")],
        }
    }
}

/// What a run counted.
#[derive(Debug, PartialEq, Default)]
struct Report {
    accesses: u64,
    reads: u64,
    doorbells: u64,
    refused: [u64; 5],
    lookups: u64,
    lookups_waited: u64,
    resets: u64,
    registers_checked: u64,
}

/// Random accesses of the kinds the module documentation lists.
fn random_access(rng: &mut BenchRng, d: &DriverModel, m: &FunctionTableModel) -> MmioAccess {
    let f = if rng.chance(0.9) {
        rng.range(0, m.functions as u64 - 1) as usize
    } else {
        rng.range(0, 7) as usize
    };
    let page = m.page_registers() * 8;
    if rng.chance(0.08) {
        // The PF sets a function or a QP up (enabled most of the time).
        let g = rng.range(0, m.functions as u64 - 1) as usize;
        return if rng.chance(0.5) {
            d.pf_write(g, "enable", rng.chance(0.8) as u64)
        } else {
            let q = rng.range(0, d.qps as u64 - 1);
            d.pf_write(
                g,
                &format!("qp{q}_key"),
                rng.bits(32) as u64 | (rng.chance(0.8) as u64) << 32,
            )
        };
    }
    if f >= m.functions {
        // A BAR no function has: refused whatever it is.
        return MmioAccess {
            function: f as u8,
            offset: rng.range(0, 0x1fff) * 8,
            write: rng.chance(0.5),
            data: rng.bits(64) as u64,
        };
    }
    let reach = if f == 0 {
        d.global_offset("arb_mode") + 8
    } else {
        page
    };
    // A register of the function's reach (own page for a VF).
    let reg = |rng: &mut BenchRng| -> (u64, hdl::regmap::Access, String) {
        let g = if f == 0 {
            rng.range(0, m.functions as u64 - 1) as usize
        } else {
            f
        };
        let regs: Vec<_> = m
            .map
            .registers
            .iter()
            .filter(|r| r.name.starts_with(&format!("f{g}_")) || (f == 0 && r.name == "arb_mode"))
            .collect();
        let r = regs[rng.range(0, regs.len() as u64 - 1) as usize];
        let own = if f == 0 {
            r.offset
        } else {
            r.offset - f as u64 * m.page_registers()
        };
        (own * 8, r.access, r.name.clone())
    };
    let data = |rng: &mut BenchRng, name: &str| -> u64 {
        if name.ends_with("enable") || name.ends_with("arb_mode") {
            rng.chance(0.7) as u64
        } else if name.ends_with("_key") {
            rng.bits(32) as u64 | (rng.chance(0.7) as u64) << 32 | (rng.bits(31) as u64) << 33
        } else {
            rng.bits(64) as u64
        }
    };
    match rng.range(0, 99) {
        0..=29 => MmioAccess::read(f as u8, reg(rng).0),
        30..=54 => {
            // A writable register (PF-only ones too: refused for a VF).
            loop {
                let (o, a, n) = reg(rng);
                if a == hdl::regmap::Access::ReadWrite {
                    return MmioAccess::write(f as u8, o, data(rng, &n));
                }
            }
        }
        55..=74 => {
            let o = if f == 0 {
                rng.range(0, m.functions as u64 - 1) * page
            } else {
                0
            };
            MmioAccess::write(f as u8, o, rng.bits(64) as u64)
        }
        75..=81 => {
            let o = rng.range(reach / 8, 0x1fff) * 8;
            MmioAccess {
                function: f as u8,
                offset: o,
                write: rng.chance(0.5),
                data: rng.bits(64) as u64,
            }
        }
        82..=85 => MmioAccess {
            function: f as u8,
            offset: rng.range(0, reach - 1) | (1 + rng.range(0, 6)),
            write: rng.chance(0.5),
            data: rng.bits(64) as u64,
        },
        86..=95 => {
            // Any offset of the reach: holes, read-only registers; counters only read.
            let o = rng.range(0, reach / 8 - 1) * 8;
            let a = MmioAccess::read(f as u8, o);
            let w = MmioAccess::write(f as u8, o, rng.bits(64) as u64);
            match m.decide(&w) {
                Outcome::Register { address } => match m.register(address).map(|r| r.access) {
                    Some(hdl::regmap::Access::Counter) => a,
                    _ if rng.chance(0.5) => w,
                    _ => a,
                },
                _ => a,
            }
        }
        _ => {
            // A read-only register written (refused).
            loop {
                let (o, a, _) = reg(rng);
                if a == hdl::regmap::Access::ReadOnly && o % page != 0 {
                    return MmioAccess::write(f as u8, o, rng.bits(64) as u64);
                }
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn bench(b: &mut dyn Backend, seed: u64, functions: usize, qps: usize, cycles: u64) -> Report {
    let mut rng = BenchRng::new(seed);
    let what = format!("seed {seed} {functions}x{qps}");
    let mut m = FunctionTableModel::new(functions, qps);
    let d = DriverModel::new(functions, qps, 0x10_0000);
    // Shallow FIFOs behind the table, so that overflows are frequent.
    let mut q = DoorbellQueuesModel::new(functions, 4);
    let mut host = MmioHost::new(b, "", 0.6, 0.7);
    let lp = LookupPorts::new(b);
    let reset = b.port("reset");
    let (db_valid, db_function, db_word, db_ready) = (
        b.port("doorbells$valid"),
        b.port("doorbells$function"),
        b.port("doorbells$word"),
        b.port("doorbells$ready"),
    );
    let weighted = b.port("weighted");
    let byte_fair = b.port("byte_fair");
    let per = |n: &str| -> Vec<PortId> {
        (0..functions)
            .map(|i| b.port(&format!("{n}${i}")))
            .collect()
    };
    let (overflows, fills, weights) = (
        per("doorbell_overflows"),
        per("doorbell_fills"),
        per("weights"),
    );
    let (adv_valid, adv_function, adv_qp, adv_ring) = (
        b.port("advance$valid"),
        b.port("advance$function"),
        b.port("advance$qp"),
        b.port("advance$ring"),
    );
    let second = [
        b.port("advance_second$valid"),
        b.port("advance_second$function"),
        b.port("advance_second$qp"),
        b.port("advance_second$ring"),
    ];
    let mut sched = ResetSchedule::new(&mut rng, 700);
    let mut report = Report::default();
    // Reads in flight: what each must return, and the values a read-only one has had.
    let mut inflight: VecDeque<(MmioAccess, Expect, HashSet<u64>)> = VecDeque::new();
    let mut expected_lookup: Option<testbench::models::function_table::LookupAnswer> = None;
    let mut draining = false;
    let mut readback: Vec<(u64, String, u64)> = vec![];
    // Power-up is not reset for the register file (read-write registers hold zero, not their
    // reset values): the NIC is reset first.
    b.poke_bool(reset, true);
    b.tick();
    let mut now = 0u64;
    loop {
        let random_phase = now < cycles;
        if random_phase && host.queue.len() < 2 {
            host.queue.push_back(random_access(&mut rng, &d, &m));
        }
        if !random_phase && !draining && host.idle() {
            // Drained: every pending refusal is counted; read everything back through the PF.
            draining = true;
            m.settle();
            let fills_now: Vec<usize> = q.outputs(&QueuesInputs::default()).fills;
            readback = m.all_values(&fills_now);
            for (addr, _, _) in &readback {
                host.queue.push_back(MmioAccess::read(0, addr * 8));
            }
            readback.reverse();
        }
        if draining && host.idle() {
            break;
        }
        let rst = sched.next_if(&mut rng, random_phase && now + 10 < cycles);
        b.poke_bool(reset, rst);
        host.drive(b, &mut rng);
        b.poke_bool(db_ready, !rst);
        // Lookups and advances, some naming no function or QP.
        let look = rng
            .chance(0.7)
            .then(|| (rng.range(0, 7) as usize, rng.range(0, 15) as usize));
        b.poke_bool(lp.valid, look.is_some());
        let (lf, lq) = look.unwrap_or((rng.range(0, 7) as usize, rng.range(0, 15) as usize));
        b.poke(lp.function, lf as u128);
        b.poke(lp.qp, lq as u128);
        let adv = (rng.chance(0.3) && !draining).then(|| {
            (
                rng.range(0, 7) as usize,
                rng.range(0, qps as u64) as usize,
                rng.range(0, 3) as usize,
            )
        });
        b.poke_bool(adv_valid, adv.is_some());
        let (af, aq, ar) = adv.unwrap_or((rng.range(0, 7) as usize, 0, 3));
        b.poke(adv_function, af as u128);
        b.poke(adv_qp, aq as u128);
        b.poke(adv_ring, ar as u128);
        // The second port: mostly the NAP ring (as the buffer manager), now and then the
        // first port's pointer in the same cycle (one advance, not two).
        let adv_second = (rng.chance(0.3) && !draining).then(|| match (adv, rng.chance(0.1)) {
            (Some(a), true) => a,
            _ => (
                rng.range(0, 7) as usize,
                rng.range(0, qps as u64) as usize,
                if rng.chance(0.7) {
                    2
                } else {
                    rng.range(0, 3) as usize
                },
            ),
        });
        b.poke_bool(second[0], adv_second.is_some());
        let (sf, sq, sr) = adv_second.unwrap_or((rng.range(0, 7) as usize, 0, 3));
        b.poke(second[1], sf as u128);
        b.poke(second[2], sq as u128);
        b.poke(second[3], sr as u128);
        // The doorbell FIFOs' answer to a doorbell in this cycle.
        let (mode, fair, w) = m.arbitration();
        let rung = b
            .peek_bool(db_valid)
            .then(|| (b.peek(db_function) as usize, b.peek(db_word) as u64));
        let qi = QueuesInputs {
            reset: rst,
            doorbell: rung,
            ready: !draining
                && rng.chance(if (now / 500).is_multiple_of(2) {
                    0.5
                } else {
                    0.0
                }),
            weighted: mode,
            weights: w.clone(),
            byte_fair: fair,
            // The function table charges nothing: the send engine does.
            charge: None,
        };
        let qo = q.outputs(&qi);
        for f in 0..functions {
            b.poke_bool(overflows[f], qo.overflows[f]);
            b.poke(fills[f], qo.fills[f] as u128);
        }
        assert_eq!(b.peek_bool(weighted), mode, "{what} cycle {now}: weighted");
        assert_eq!(
            b.peek_bool(byte_fair),
            fair,
            "{what} cycle {now}: byte_fair"
        );
        for f in 0..functions {
            assert_eq!(
                b.peek(weights[f]) as u64,
                w[f],
                "{what} cycle {now}: weights[{f}]"
            );
        }
        // Lookup answer of the last cycle's request.
        match expected_lookup.take() {
            Some(want) => {
                assert!(
                    b.peek_bool(lp.answered),
                    "{what} cycle {now}: lookup answered"
                );
                let flags = lp.flags.map(|p| b.peek_bool(p));
                assert_eq!(
                    flags,
                    [
                        want.owned,
                        want.function_enabled,
                        want.qp_enabled,
                        want.interrupt
                    ],
                    "{what} cycle {now}: lookup flags"
                );
                assert_eq!(b.peek(lp.key) as u64, want.key, "{what} cycle {now}: key");
                for r in 0..3 {
                    let got = lp.rings[r].map(|p| b.peek(p) as u64);
                    assert_eq!(got, want.rings[r], "{what} cycle {now}: ring {r}");
                }
                report.lookups += 1;
            }
            None => assert!(
                !b.peek_bool(lp.answered),
                "{what} cycle {now}: answered unasked"
            ),
        }
        // Read-only values seen while reads are in flight.
        for (_, e, seen) in inflight.iter_mut() {
            if let Expect::Status(a) = e {
                seen.insert(m.status(*a, &qo.fills));
            }
        }
        let (sent, done) = host.fired(b);
        if let Some((a, c)) = done {
            let (want_a, e, seen) = inflight.pop_front().expect("a read in flight");
            assert_eq!(a, want_a);
            let ok = match &e {
                Expect::Exact(v, s) => c.data == *v && c.status == *s,
                Expect::Status(_) => c.status == MmioStatus::Ok && seen.contains(&c.data),
                Expect::Counter {
                    function,
                    which,
                    low,
                } => {
                    let high = m.counts[*function][*which]
                        + if *which == 4 {
                            m.unsettled[*function]
                        } else {
                            0
                        };
                    c.status == MmioStatus::Ok && (*low..=high).contains(&c.data)
                }
            };
            assert!(
                ok,
                "{what} cycle {now}: {a:x?} answered {c:x?}, expected {e:x?} (seen {seen:x?})"
            );
            if draining {
                // Read-only registers were checked against their values in flight above (the
                // doorbell FIFOs may still move); the rest must be exact.
                let (addr, name, v) = readback.pop().expect("a register read back");
                assert_eq!(a.offset, addr * 8);
                if !matches!(e, Expect::Status(_)) {
                    assert_eq!(c.data, v, "{what}: {name} after the drain");
                }
                report.registers_checked += 1;
            }
        }
        if let Some(a) = sent {
            assert!(!rst, "{what} cycle {now}: an access taken in reset");
            report.accesses += 1;
            let (o, e) = m.accept(now, &a);
            match o {
                Outcome::Doorbell { function } => {
                    assert_eq!(
                        rung,
                        Some((function, a.data)),
                        "{what} cycle {now}: doorbell of {a:x?}"
                    );
                    report.doorbells += 1;
                }
                _ => assert_eq!(
                    rung, None,
                    "{what} cycle {now}: doorbell from {a:x?} ({o:?})"
                ),
            }
            match o {
                Outcome::Outside { .. } => report.refused[0] += 1,
                Outcome::Misaligned { .. } => report.refused[1] += 1,
                Outcome::Privileged { .. } => report.refused[2] += 1,
                Outcome::Disabled { .. } => report.refused[3] += 1,
                _ => {}
            }
            if let Some(e) = e {
                report.reads += 1;
                let mut seen = HashSet::new();
                if let Expect::Status(addr) = e {
                    seen.insert(m.status(addr, &qo.fills));
                }
                inflight.push_back((a, e, seen));
            }
        } else {
            assert_eq!(
                rung, None,
                "{what} cycle {now}: a doorbell with no access taken"
            );
        }
        for f in 0..functions {
            if qo.overflows[f] {
                m.overflow(f);
                report.refused[4] += 1;
            }
        }
        if let Some((f, qp)) = look {
            // Taken only with `ready` (a register read or the clearing after reset holds it).
            if b.peek_bool(lp.ready) {
                assert!(!rst, "{what} cycle {now}: a lookup taken in reset");
                expected_lookup = Some(m.lookup(f, qp));
            } else {
                report.lookups_waited += 1;
            }
        }
        b.tick();
        q.edge(&qi);
        if rst {
            report.resets += 1;
            m.reset();
            host.reset();
            inflight.clear();
            expected_lookup = None;
        } else {
            let advances: Vec<_> = [adv, adv_second]
                .into_iter()
                .flatten()
                .filter(|a| a.2 < 3)
                .collect();
            m.edge(now, &advances);
        }
        now += 1;
        assert!(now < cycles + 20_000, "{what}: hang");
    }
    sched.assert_pulses(&what, 3);
    report
}

#[test]
fn function_table_matches_model() {
    let r = run_both(
        "function_table_3x2",
        || Dut::<3>::new(3, 2),
        || table::<3>(3),
        |b| bench(b, 21, 3, 2, 6000),
    );
    let x = &r.result;
    assert!(x.refused.iter().all(|&n| n > 20), "{x:?}");
    assert!(x.doorbells > 100 && x.registers_checked > 100, "{x:?}");
    // Lookups wait only for register reads (at most one cycle each) and the clearing.
    assert!(x.lookups_waited * 10 < x.lookups, "{x:?}");
    println!("function table 3x2: {x:?}, {} cycles", r.cycles);
    // The default size: 8 functions of 4 QPs.
    let r = run_both(
        "function_table_8x4",
        || Dut::<5>::new(8, 4),
        || table::<5>(8),
        |b| bench(b, 22, 8, 4, 3000),
    );
    let x = &r.result;
    // Overflows are the 3 x 2 run's to show (8 functions share fewer doorbells each).
    assert!(x.refused[..4].iter().all(|&n| n > 5), "{x:?}");
    assert!(x.registers_checked > 400, "{x:?}");
    println!("function table 8x4: {x:?}, {} cycles", r.cycles);
}
