//! The simulation backends themselves: VCD output, lockstep instances, and that a
//! disagreement between backends is reported.
use hdl::prelude::*;
use testbench::models::stream::StreamPorts;
use testbench::verilator::VerilatorModel;
use testbench::{port_table, Backend, RhdlSim};

type Skid = SkidBuffer<Bits<8>>;

fn table() -> testbench::PortTable<Skid> {
    port_table!(Skid; reset, sink.valid, sink.data, sink.ready, source.valid, source.data, source.ready)
}

#[test]
fn vcd_trace_records_every_cycle() {
    let path = std::env::temp_dir().join(format!("hpcnet-vcd-{}.vcd", std::process::id()));
    {
        let mut b = RhdlSim::traced(Skid::default(), table(), "skid", &path).unwrap();
        let s = StreamPorts::new(&b, "sink");
        let o = StreamPorts::new(&b, "source");
        b.poke_bool(o.ready, true);
        for i in 0..10 {
            b.poke_bool(s.valid, true);
            b.poke(s.data, 0x40 + i);
            b.tick();
        }
    }
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("$enddefinitions"), "VCD header missing");
    assert!(
        text.contains("source$data") || text.contains("data"),
        "signals missing"
    );
    assert!(
        text.matches("\n#").count() >= 10,
        "expected a timestamp per cycle"
    );
    let _ = std::fs::remove_file(path);
}

/// Two instances of one compiled model stepped in lockstep, A's output feeding B's input:
/// the way fabrics of several chips are simulated.
#[test]
fn verilator_instances_run_in_lockstep() {
    let mut uut = Skid::default();
    let model = VerilatorModel::build_for(&mut uut, "skid_lockstep").unwrap();
    let (mut a, mut b) = (model.instance(), model.instance());
    let (ai, ao) = (StreamPorts::new(&a, "sink"), StreamPorts::new(&a, "source"));
    let (bi, bo) = (StreamPorts::new(&b, "sink"), StreamPorts::new(&b, "source"));
    let mut got = vec![];
    let mut next = 0u128;
    for c in 0..300u128 {
        // Drive A's sink and B's source; connect A.source -> B.sink combinationally.
        a.poke_bool(ai.valid, next < 100);
        a.poke(ai.data, next);
        b.poke_bool(bo.ready, c % 3 != 0);
        let (v, d) = (a.peek_bool(ao.valid), a.peek(ao.data));
        b.poke_bool(bi.valid, v);
        b.poke(bi.data, d);
        let r = b.peek_bool(bi.ready);
        a.poke_bool(ao.ready, r);
        if b.peek_bool(bo.valid) && c % 3 != 0 {
            got.push(b.peek(bo.data));
        }
        if next < 100 && a.peek_bool(ai.ready) {
            next += 1;
        }
        a.tick();
        b.tick();
    }
    assert_eq!(
        got,
        (0..100).collect::<Vec<u128>>(),
        "beats through two lockstep instances"
    );
}

/// A bench whose result depends on the backend must make `run_both` fail.
#[test]
#[should_panic(expected = "bench results differ")]
fn run_both_reports_a_disagreement() {
    testbench::run_both("skid_disagree", Skid::default, table, |b| {
        b.kind().to_string()
    });
}

/// A bench that fails on one backend only must fail naming that backend, with its own message.
#[test]
#[should_panic(expected = "skid_fails_on_verilator on verilator: a verilator-only failure")]
fn a_failure_on_verilator_names_verilator() {
    testbench::run_both("skid_fails_on_verilator", Skid::default, table, |b| {
        if b.kind() == "verilator" {
            panic!("a verilator-only failure");
        }
    });
}

#[test]
fn a_failure_on_rust_hdl_names_rust_hdl() {
    let caught = std::panic::catch_unwind(|| {
        testbench::run_both("skid_fails_on_rust_hdl", Skid::default, table, |b| {
            assert!(
                b.kind() != "rust-hdl",
                "cycle {}: a rust-hdl-only failure",
                b.cycle()
            );
        })
    });
    let e = caught.expect_err("the bench failed on rust-hdl, so run_both must fail");
    let msg = e.downcast_ref::<String>().cloned().unwrap_or_default();
    assert_eq!(
        msg,
        "skid_fails_on_rust_hdl on rust-hdl: cycle 0: a rust-hdl-only failure"
    );
}
