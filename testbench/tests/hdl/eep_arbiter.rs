//! `EepArbiter` against its model (`testbench::models::nma::EepArbiterModel`), every cycle,
//! on both backends. Two bench requesters (each with one command at a time, offered at random
//! moments and held until taken, random write data as a tag) share a bench EEPROM unit that
//! takes a command only when idle (as `EepAccess` does, with a random `ready` on top), answers
//! it after a random latency with its write data echoed as read data, and holds the result until
//! taken. Random idle fields while any `valid` is low, random result readiness per requester,
//! reset at random moments (the fake unit and the requesters drop what is outstanding).
//!
//! Checked every cycle outside reset: the command passed on, both command readies, both
//! result valids and `result.ready` equal the model's; both result ports carry the unit's
//! result. Each requester's results are its own commands' tags (the result goes back to the
//! issuer); input 0 wins whenever both offer and nothing holds the choice.
use hdl::mgmt::eep_access::EepError;
use hdl::mgmt::EepArbiter;
use testbench::models::i2c_eeprom::EepCommand;
use testbench::models::nma::EepArbiterModel;
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng, PortId};

fn table() -> testbench::PortTable<EepArbiter> {
    port_table!(EepArbiter; reset,
        first_command.valid, first_command.write, first_command.address, first_command.count,
        first_command.data, first_command.ready, first_result.valid, first_result.data,
        first_result.error, first_result.ready,
        second_command.valid, second_command.write, second_command.address,
        second_command.count, second_command.data, second_command.ready, second_result.valid,
        second_result.data, second_result.error, second_result.ready,
        command.valid, command.write, command.address, command.count, command.data,
        command.ready, result.valid, result.data, result.error, result.ready)
}

struct CommandPorts {
    valid: PortId,
    write: PortId,
    address: PortId,
    count: PortId,
    data: PortId,
    ready: PortId,
}

struct ResultPorts {
    valid: PortId,
    data: PortId,
    error: PortId,
    ready: PortId,
}

fn command_ports(b: &dyn Backend, n: &str) -> CommandPorts {
    CommandPorts {
        valid: b.port(&format!("{n}$valid")),
        write: b.port(&format!("{n}$write")),
        address: b.port(&format!("{n}$address")),
        count: b.port(&format!("{n}$count")),
        data: b.port(&format!("{n}$data")),
        ready: b.port(&format!("{n}$ready")),
    }
}

fn result_ports(b: &dyn Backend, n: &str) -> ResultPorts {
    ResultPorts {
        valid: b.port(&format!("{n}$valid")),
        data: b.port(&format!("{n}$data")),
        error: b.port(&format!("{n}$error")),
        ready: b.port(&format!("{n}$ready")),
    }
}

fn data_of(c: &EepCommand) -> u128 {
    c.data
        .iter()
        .enumerate()
        .fold(0, |d, (i, &x)| d | (x as u128) << (8 * i))
}

fn poke_command(b: &mut dyn Backend, p: &CommandPorts, c: Option<&EepCommand>, rng: &mut BenchRng) {
    b.poke_bool(p.valid, c.is_some());
    match c {
        Some(c) => {
            b.poke_bool(p.write, c.write);
            b.poke(p.address, c.address as u128);
            b.poke(p.count, c.count as u128);
            b.poke(p.data, data_of(c));
        }
        None => {
            b.poke_bool(p.write, rng.chance(0.5));
            b.poke(p.address, rng.bits(16));
            b.poke(p.count, rng.bits(3));
            b.poke(p.data, rng.bits(48));
        }
    }
}

fn peek_command(b: &mut dyn Backend, p: &CommandPorts) -> Option<EepCommand> {
    b.peek_bool(p.valid).then(|| {
        let d = b.peek(p.data);
        EepCommand {
            write: b.peek_bool(p.write),
            address: b.peek(p.address) as u32,
            count: b.peek(p.count) as u32,
            data: std::array::from_fn(|i| (d >> (8 * i)) as u8),
        }
    })
}

#[derive(Debug, Default, PartialEq)]
struct Report {
    cycles: u64,
    /// Commands passed on per input.
    passed: [u64; 2],
    /// Cycles in which both inputs offered and input 0 was chosen.
    contested: u64,
    resets: u64,
}

fn bench(b: &mut dyn Backend, seed: u64, cycles: u64) -> Report {
    let mut rng = BenchRng::new(seed);
    let reset = b.port("reset");
    let ins = [
        command_ports(b, "first_command"),
        command_ports(b, "second_command"),
    ];
    let outs = [
        result_ports(b, "first_result"),
        result_ports(b, "second_result"),
    ];
    let cmd = command_ports(b, "command");
    let res = result_ports(b, "result");
    let mut sched = ResetSchedule::new(&mut rng, 200);
    let mut model = EepArbiterModel::default();
    let mut report = Report::default();
    // Per requester: the command offered, the one awaiting its result.
    let mut offers: [Option<EepCommand>; 2] = [None, None];
    let mut waiting: [Option<EepCommand>; 2] = [None, None];
    // The unit: its command and due cycle, its result (data, error).
    let mut unit: Option<(EepCommand, u64)> = None;
    let mut result: Option<(u128, EepError)> = None;
    let rates = [0.15, 0.4];
    for c in 0..cycles {
        for k in 0..2 {
            if offers[k].is_none() && waiting[k].is_none() && rng.chance(rates[k]) {
                offers[k] = Some(EepCommand {
                    write: rng.chance(0.5),
                    address: rng.bits(16) as u32,
                    count: rng.range(0, 7) as u32,
                    data: std::array::from_fn(|_| rng.bits(8) as u8),
                });
            }
        }
        let rst = sched.drive(b, reset, &mut rng);
        report.resets += sched.released() as u64;
        for k in 0..2 {
            poke_command(b, &ins[k], offers[k].as_ref(), &mut rng);
        }
        if result.is_none() {
            if let Some((u, _)) = unit.as_ref().filter(|u| u.1 <= c) {
                result = Some((data_of(u), EepError::ALL[rng.range(0, 3) as usize]));
            }
        }
        b.poke_bool(res.valid, result.is_some());
        b.poke(res.data, result.map_or(rng.bits(48), |r| r.0));
        b.poke(
            res.error,
            result.map_or(rng.bits(2), |r| r.1.code() as u128),
        );
        let command_ready = unit.is_none() && result.is_none() && rng.chance(0.7);
        b.poke_bool(cmd.ready, command_ready);
        let readies = [rng.chance(0.6), rng.chance(0.6)];
        for k in 0..2 {
            b.poke_bool(outs[k].ready, readies[k]);
        }
        let offered = [offers[0].as_ref(), offers[1].as_ref()];
        let want = model.outputs(offered, command_ready, result.is_some(), readies);
        let tag = format!("seed {seed} cycle {c}");
        if !rst {
            assert_eq!(peek_command(b, &cmd), want.command, "{tag}: command");
            for k in 0..2 {
                assert_eq!(
                    b.peek_bool(ins[k].ready),
                    want.command_readies[k],
                    "{tag}: input {k} ready"
                );
                assert_eq!(
                    b.peek_bool(outs[k].valid),
                    want.result_valids[k],
                    "{tag}: result {k} valid"
                );
                if let Some((d, e)) = result {
                    assert_eq!(
                        (b.peek(outs[k].data), b.peek(outs[k].error)),
                        (d, e.code() as u128),
                        "{tag}: result {k}"
                    );
                }
            }
            assert_eq!(
                b.peek_bool(res.ready),
                want.result_ready,
                "{tag}: result.ready"
            );
            if offers[0].is_some() && offers[1].is_some() && want.command == offers[0] {
                report.contested += 1;
            }
        }
        let passed = model.edge(rst, offered, command_ready, result.is_some(), readies);
        if rst {
            unit = None;
            result = None;
            waiting = [None, None];
        } else {
            if let Some((d, _)) = result {
                for k in 0..2 {
                    if want.result_valids[k] && readies[k] {
                        let w = waiting[k].take().expect("a result without a command");
                        assert_eq!(data_of(&w), d, "{tag}: result of another requester");
                        unit = None;
                        result = None;
                    }
                }
            }
            if let Some(k) = passed {
                let taken = offers[k].take().unwrap();
                assert_eq!(want.command.as_ref(), Some(&taken), "{tag}");
                unit = Some((taken.clone(), c + rng.range(1, 10)));
                waiting[k] = Some(taken);
                report.passed[k] += 1;
            }
        }
        b.tick();
    }
    report.cycles = cycles;
    report
}

#[test]
fn eep_arbiter_against_its_model() {
    let r = run_both("eep_arbiter", EepArbiter::default, table, |b| {
        bench(b, 77, 6000)
    })
    .result;
    println!("eep_arbiter: {r:?}");
    assert!(r.passed[0] > 100 && r.passed[1] > 100, "{r:?}");
    assert!(r.contested > 20 && r.resets >= 10, "{r:?}");
}
