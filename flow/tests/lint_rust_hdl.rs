//! The lint waivers against real rust-hdl output: designs built from hdl's blocks and
//! rust-hdl's own widgets (FIFOs, RAM, enums, structs, a stream mux that Verilator sees as a loop) must
//! lint clean, and a design with the defects the waivers must not hide must fail on each.
use flow::{self, HazardKind};
use hdl::emit::emit_verilog;
use hdl::skid_buffer::SkidBuffer;
use rust_hdl::prelude::*;
use std::path::PathBuf;

#[derive(LogicBlock, Default)]
struct FifoTop {
    clock: Signal<In, Clock>,
    fifo: SynchronousFIFO<Bits<32>, 5, 6, 1>,
    data_in: Signal<In, Bits<32>>,
    write: Signal<In, bool>,
    read: Signal<In, bool>,
    data_out: Signal<Out, Bits<32>>,
    empty: Signal<Out, bool>,
    full: Signal<Out, bool>,
    /// The FIFO's status outputs this top does not need, acknowledged.
    unused_status: Signal<Local, bool>,
}

impl Logic for FifoTop {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, fifo);
        self.fifo.data_in.next = self.data_in.val();
        self.fifo.write.next = self.write.val();
        self.fifo.read.next = self.read.val();
        self.data_out.next = self.fifo.data_out.val();
        self.empty.next = self.fifo.empty.val();
        self.full.next = self.fifo.full.val();
        self.unused_status.next = self.fifo.almost_empty.val()
            | self.fifo.almost_full.val()
            | self.fifo.overflow.val()
            | self.fifo.underflow.val();
    }
}

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum Phase {
    Idle,
    Run,
    Done,
}

#[derive(LogicStruct, Copy, Clone, Default, PartialEq, Debug)]
struct Header {
    kind: Bits<4>,
    length: Bits<12>,
}

/// Enum state machine, struct field reads, partial bus use, arrays, a `Constant`.
#[derive(LogicBlock)]
struct Misc {
    clock: Signal<In, Clock>,
    reset: Signal<In, bool>,
    go: Signal<In, bool>,
    x: Signal<In, Bits<4>>,
    header: Signal<In, Header>,
    wide: Signal<In, Bits<64>>,
    sel: Signal<In, Bits<2>>,
    count: Signal<Out, Bits<4>>,
    done: Signal<Out, bool>,
    is_k: Signal<Out, bool>,
    part: Signal<Out, Bits<8>>,
    phase: DFF<Phase>,
    counter: DFF<Bits<4>>,
    slots: [DFF<Bits<4>>; 4],
    k: Constant<Bits<4>>,
}

impl Default for Misc {
    fn default() -> Self {
        Misc {
            clock: Default::default(),
            reset: Default::default(),
            go: Default::default(),
            x: Default::default(),
            header: Default::default(),
            wide: Default::default(),
            sel: Default::default(),
            count: Default::default(),
            done: Default::default(),
            is_k: Default::default(),
            part: Default::default(),
            phase: Default::default(),
            counter: Default::default(),
            slots: Default::default(),
            k: Constant::new(3.into()),
        }
    }
}

impl Logic for Misc {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, phase, counter);
        for i in 0..4 {
            self.slots[i].clock.next = self.clock.val();
            self.slots[i].d.next = self.slots[i].q.val();
        }
        self.count.next = self.counter.q.val() ^ self.slots[0].q.val();
        self.done.next = false;
        self.is_k.next = self.x.val() == self.k.val();
        self.part.next = self.wide.val().get_bits::<8>(8);
        match self.phase.q.val() {
            Phase::Idle => {
                if self.go.val() {
                    self.phase.d.next = Phase::Run;
                }
            }
            Phase::Run => {
                self.counter.d.next = self.counter.q.val() + 1;
                if self.counter.q.val() == 7 {
                    self.phase.d.next = Phase::Done;
                }
            }
            Phase::Done => {
                self.done.next = true;
                self.phase.d.next = Phase::Idle;
            }
        }
        for i in 0..4 {
            if self.sel.val().index() == i {
                self.slots[i].d.next = self.header.val().kind;
            }
        }
        if self.reset.val() {
            self.phase.d.next = Phase::Idle;
            self.counter.d.next = 0.into();
        }
    }
}

/// Four FIFOs behind a rotating grant, and a RAM.
#[derive(LogicBlock)]
struct Arb4 {
    clock: Signal<In, Clock>,
    fifos: [hdl::fifo::StreamFifo<Bits<16>, 4, 2, 3>; 4],
    ins: [Signal<In, Bits<16>>; 4],
    writes: [Signal<In, bool>; 4],
    out: Signal<Out, Bits<16>>,
    out_valid: Signal<Out, bool>,
    out_ready: Signal<In, bool>,
    ram: RAM<Bits<16>, 8>,
    address: Signal<In, Bits<8>>,
    ram_out: Signal<Out, Bits<16>>,
    grant: DFF<Bits<2>>,
    /// The FIFOs' fill counts and input readiness: writes are not flow-controlled here.
    unused_fifo: [Signal<Local, bool>; 4],
}

impl Default for Arb4 {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            fifos: std::array::from_fn(|_| hdl::fifo::StreamFifo::new()),
            ins: Default::default(),
            writes: Default::default(),
            out: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            ram: Default::default(),
            address: Default::default(),
            ram_out: Default::default(),
            grant: Default::default(),
            unused_fifo: Default::default(),
        }
    }
}

impl Logic for Arb4 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, grant);
        self.out.next = 0.into();
        self.out_valid.next = false;
        for i in 0..4 {
            self.fifos[i].clock.next = self.clock.val();
            self.fifos[i].reset.next = false;
            self.fifos[i].sink.data.next = self.ins[i].val();
            self.fifos[i].sink.valid.next = self.writes[i].val();
            self.fifos[i].source.ready.next = false;
            self.unused_fifo[i].next =
                self.fifos[i].sink.ready.val() | self.fifos[i].count.val().any();
            if self.grant.q.val().index() == i {
                self.out.next = self.fifos[i].source.data.val();
                self.out_valid.next = self.fifos[i].source.valid.val();
                self.fifos[i].source.ready.next = self.out_ready.val();
                if !self.fifos[i].source.valid.val() | self.out_ready.val() {
                    self.grant.d.next = self.grant.q.val() + 1;
                }
            }
        }
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.ram.read_address.next = self.address.val();
        self.ram.write_address.next = self.address.val();
        self.ram.write_data.next = bit_cast::<16, 8>(self.address.val());
        self.ram.write_enable.next = self.out_ready.val();
        self.ram_out.next = self.ram.read_data.val();
    }
}

/// One of each defect the waivers must not hide.
#[derive(LogicBlock, Default)]
struct Defects {
    clock: Signal<In, Clock>,
    reset: Signal<In, bool>,
    a: Signal<In, bool>,
    b: Signal<In, bool>,
    c: Signal<In, bool>,
    x: Signal<In, Bits<4>>,
    w: Signal<In, Bits<16>>,
    latch: Signal<Out, bool>,
    prec: Signal<Out, bool>,
    wrap: Signal<Out, bool>,
    sel: Signal<Out, Bits<8>>,
    r: DFF<bool>,
}

impl Logic for Defects {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r);
        self.prec.next = false;
        self.wrap.next = false;
        self.sel.next = 0.into();
        // Latch: no default for `latch`.
        if self.a.val() {
            self.latch.next = self.b.val();
        }
        // Precedence: Rust (a & b) == c, Verilog a & (b == c).
        self.prec.next = self.a.val() & self.b.val() == self.c.val();
        // Widening: (x + 1) wraps at 4 bits in Rust, not in Verilog.
        self.wrap.next = (self.x.val() + 1) == 0;
        // Out of range: bits 12..19 of a 16-bit bus.
        self.sel.next = self.w.val().get_bits::<8>(12);
        self.r.d.next = self.a.val();
        // `reset` is never read.
    }
}

/// Rust field names that are Verilog/SystemVerilog reserved words: rust-hdl's derive and
/// `check_all` accept them and print them unchanged.
#[derive(LogicBlock)]
struct Reserved {
    clock: Signal<In, Clock>,
    expect: Signal<In, Bits<4>>,
    end: Signal<Out, bool>,
    initial: Signal<Local, Bits<4>>,
    dist: Constant<Bits<4>>,
    wait: DFF<Bits<4>>,
}

impl Default for Reserved {
    fn default() -> Self {
        Reserved {
            clock: Default::default(),
            expect: Default::default(),
            end: Default::default(),
            initial: Default::default(),
            dist: Constant::new(5.into()),
            wait: Default::default(),
        }
    }
}

impl Logic for Reserved {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wait);
        self.initial.next = self.expect.val() ^ self.dist.val();
        self.wait.d.next = self.initial.val();
        self.end.next = self.wait.q.val() == self.dist.val();
    }
}

fn emit<U: Block>(uut: &mut U, name: &str) -> (PathBuf, PathBuf) {
    let dir = flow::scratch_dir(name).unwrap();
    let v = dir.join(format!("{name}.v"));
    std::fs::write(&v, emit_verilog(uut, name).unwrap()).unwrap();
    (v, dir)
}

#[test]
fn rust_hdl_designs_lint_clean() {
    let mut designs: Vec<(PathBuf, PathBuf, &str)> = vec![];
    let (v, d) = emit(&mut SkidBuffer::<Bits<16>>::default(), "skid");
    designs.push((v, d, "skid"));
    // rust-hdl's own SynchronousFIFO ignores outputs of its children (its RAM's clocks, its
    // halves' fill levels) inside rust-hdl's code, where they cannot be acknowledged: the lint
    // reports exactly those, which is why hpcnet's FIFOs are its own.
    let (v, d) = emit(&mut FifoTop::default(), "fifo_top");
    let r = flow::lint_unchecked(&[&v], "fifo_top", &d, &Default::default()).unwrap();
    let mut unread: Vec<&str> = r
        .messages
        .iter()
        .map(|m| m.text.trim_start_matches("Signal is not used: "))
        .collect();
    unread.sort();
    assert_eq!(
        unread,
        [
            "'read_logic$fill_level'",
            "'read_logic$ram_read_clock'",
            "'write_logic$fill_level'",
            "'write_logic$ram_write_clock'"
        ],
        "{}",
        r.findings()
    );
    std::fs::remove_dir_all(d).unwrap();
    let (v, d) = emit(&mut Misc::default(), "misc");
    designs.push((v, d, "misc"));
    let (v, d) = emit(&mut Arb4::default(), "arb4");
    designs.push((v, d, "arb4"));
    // The mux's single always block reads its skid buffer's `sink.ready` and drives its
    // `sink.valid`: a loop only to Verilator's scheduler (UNOPTFLAT).
    let (v, d) = emit(
        &mut hdl::arb::StreamMux::<Bits<16>, 4, 2>::new(true),
        "stream_mux",
    );
    designs.push((v, d, "stream_mux"));
    for (v, dir, top) in &designs {
        let r = flow::lint(v, top, dir).unwrap_or_else(|e| panic!("{top}: {e:#}"));
        assert!(r.is_clean());
    }
    // The waivers are needed: without them the same designs fail.
    let bare = flow::LintOptions {
        waivers: vec![],
        hazards: true,
    };
    let mut seen = vec![];
    for (v, dir, top) in &designs {
        let r = flow::lint_unchecked(&[v], top, dir, &bare).unwrap();
        seen.extend(r.messages.into_iter().map(|m| m.rule));
    }
    for rule in ["WIDTH", "UNOPTFLAT", "DECLFILENAME", "UNUSEDSIGNAL"] {
        assert!(seen.iter().any(|r| r == rule), "{rule} not seen");
    }
    for (_, dir, _) in designs {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn rust_hdl_defects_are_reported() {
    let (v, dir) = emit(&mut Defects::default(), "defects");
    let r = flow::lint_unchecked(&[&v], "defects", &dir, &flow::LintOptions::default()).unwrap();
    let has = |rule: &str, text: &str| {
        r.messages
            .iter()
            .any(|m| m.rule == rule && m.text.contains(text))
    };
    assert!(has("LATCH", "'latch'"), "{}", r.findings());
    assert!(has("SELRANGE", "19:12"), "{}", r.findings());
    assert!(has("UNUSEDSIGNAL", "'reset'"), "{}", r.findings());
    let kinds: Vec<HazardKind> = r.hazards.iter().map(|h| h.kind).collect();
    assert_eq!(
        kinds,
        [HazardKind::Precedence, HazardKind::LiteralWidening],
        "{}",
        r.findings()
    );
    assert!(flow::lint(&v, "defects", &dir).is_err());
    let e = format!(
        "{:#}",
        flow::synth(&v, "defects", &dir.join("synth")).unwrap_err()
    );
    assert!(e.contains("defects.latch"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn rust_hdl_reserved_names_are_reported() {
    let (v, dir) = emit(&mut Reserved::default(), "reserved");
    let h = flow::hazards::scan(&std::fs::read_to_string(&v).unwrap());
    let found: Vec<(HazardKind, &str, &str)> = h
        .iter()
        .map(|h| {
            (
                h.kind,
                h.module.as_str(),
                h.detail.split('`').nth(1).unwrap(),
            )
        })
        .collect();
    let k = HazardKind::Keyword;
    assert_eq!(
        found,
        [
            (k, "reserved", "expect"),
            (k, "reserved", "end"),
            (k, "reserved", "dist"),
            (k, "reserved", "initial"),
            (k, "reserved", "wait"),
        ],
        "{h:#?}"
    );
    assert!(h
        .iter()
        .all(|h| h.detail.ends_with("rename the Rust field/port")));
    // Verilator agrees that the file is broken; the lint fails and names each word.
    let r = flow::lint_unchecked(&[&v], "reserved", &dir, &flow::LintOptions::default()).unwrap();
    assert!(
        r.messages.iter().any(|m| m.severity == "Error"),
        "{}",
        r.findings()
    );
    assert_eq!(r.hazards, h);
    let e = format!("{:#}", flow::lint(&v, "reserved", &dir).unwrap_err());
    for name in ["`expect`", "`end`", "`dist`", "`initial`", "`wait`"] {
        assert!(e.contains(name), "{name} not named: {e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A parent that ignores an output of its child: reported unless acknowledged.
#[derive(LogicBlock, Default)]
struct Ignores {
    clock: Signal<In, Clock>,
    reset: Signal<In, bool>,
    sink: hdl::stream::StreamSink<Bits<8>>,
    data: Signal<Out, Bits<8>>,
    skid: SkidBuffer<Bits<8>>,
}

impl Logic for Ignores {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, skid);
        self.skid.reset.next = self.reset.val();
        hdl::stream::StreamSink::<Bits<8>>::link(&mut self.sink, &mut self.skid.sink);
        self.data.next = self.skid.source.data.val();
        self.skid.source.ready.next = true;
    }
}

/// The same parent, acknowledging the ignored `valid` where it ignores it.
#[derive(LogicBlock, Default)]
struct Acknowledges {
    clock: Signal<In, Clock>,
    reset: Signal<In, bool>,
    sink: hdl::stream::StreamSink<Bits<8>>,
    data: Signal<Out, Bits<8>>,
    skid: SkidBuffer<Bits<8>>,
    unused_valid: Signal<Local, bool>,
}

impl Logic for Acknowledges {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, skid);
        self.skid.reset.next = self.reset.val();
        hdl::stream::StreamSink::<Bits<8>>::link(&mut self.sink, &mut self.skid.sink);
        self.data.next = self.skid.source.data.val();
        self.skid.source.ready.next = true;
        self.unused_valid.next = self.skid.source.valid.val();
    }
}

#[test]
fn ignored_child_outputs_are_reported_unless_acknowledged() {
    let (v, dir) = emit(&mut Ignores::default(), "ignores");
    let r = flow::lint_unchecked(&[&v], "ignores", &dir, &flow::LintOptions::default()).unwrap();
    assert!(
        r.messages
            .iter()
            .any(|m| m.rule == "UNUSEDSIGNAL" && m.text.contains("skid$source$valid")),
        "{}",
        r.findings()
    );
    std::fs::remove_dir_all(&dir).unwrap();
    let (v, dir) = emit(&mut Acknowledges::default(), "acknowledges");
    let r = flow::lint(&v, "acknowledges", &dir).unwrap_or_else(|e| panic!("{e:#}"));
    assert!(r.is_clean());
    std::fs::remove_dir_all(&dir).unwrap();
}
