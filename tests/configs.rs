//! The configurations in `configs/`: the default one is exactly `hpcnet config`'s output, and
//! every configuration is valid and its tops emit, lint clean and synthesize without latches.
use hdl::params::Config;
use std::path::{Path, PathBuf};

fn configs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("configs")
}

fn configs() -> Vec<(String, Config)> {
    let mut out: Vec<(String, Config)> = vec![];
    for e in std::fs::read_dir(configs_dir()).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "toml") {
            let text = std::fs::read_to_string(&path).unwrap();
            let cfg =
                Config::from_toml(&text).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
            out.push((path.file_stem().unwrap().to_string_lossy().into(), cfg));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn default_file_is_the_default_configuration() {
    let path = configs_dir().join("default.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text == Config::default_toml(),
        "{} is stale: run `make`",
        path.display()
    );
}

#[test]
fn configurations_are_the_default_and_the_published_sizes() {
    let names: Vec<String> = configs().into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["default", "published"]);
    let published = &configs()[1].1;
    assert_eq!(published.network.vcs, 6, "the NRC's six virtual channels");
    assert_eq!(published.network.mgmt_vc, 3, "management packets on VC3");
}

/// The non-default configurations are emitted, linted and put through Yosys's generic
/// synthesis (no latch, `check -assert`); the default one is `verilog-out/`, which `make test`
/// lints and synthesizes for both parts. A top whose Verilog is the default configuration's
/// (the board demos, for instance) is not checked twice, and a top whose Verilog differs from
/// the default's only in the values of `localparam` constants of the same width (the
/// management blocks, whose only configured value is the management VC in a header constant)
/// is linted but not synthesized again: the same netlist with other constant bits cannot
/// infer a latch or fail where the default's passed. A router chip larger than the default
/// (the published 24 ports) is emitted and checked for its ports only: its lint and synthesis
/// are `make bench`'s. Mapping to iCE40 cells is left out:
/// the published sizes do not fit the HX8K, and the whole-chip placement on the ECP5 is
/// `make bench`'s. Tops run on two threads, one per core.
#[test]
fn every_configuration_emits_lints_and_synthesizes() {
    let defaults = hpcnet::emit::all_tops(&Config::default()).unwrap();
    for (name, cfg) in configs() {
        if cfg == Config::default() {
            continue;
        }
        let dir = flow::scratch_dir(&format!("config-{name}")).unwrap();
        let out = dir.join("verilog");
        // Elaborating the 24-port chip recurses deeper than a test thread's 2 MB stack (the
        // CLI's main thread has 8 MB): emit on a thread of its own with room to spare.
        let own = std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(256 << 20)
                .spawn_scoped(s, || {
                    hpcnet::emit::emit(&cfg, &name, &out, &[]).unwrap();
                    hpcnet::emit::all_tops(&cfg).unwrap()
                })
                .unwrap()
                .join()
                .unwrap()
        });
        // (top, file, synthesize): tops the same as the default's are skipped; tops that differ
        // from it only in the values of constants are linted, not synthesized again.
        let tops: Vec<(String, PathBuf, bool)> = hpcnet::flows::emitted_tops(&out)
            .unwrap()
            .into_iter()
            .filter(|(top, _)| {
                !(top == "nrc_top" && cfg.router.ports as usize > nrc::tops::CORE_PORTS)
            })
            .filter_map(|(top, path)| {
                let mine = own.iter().find(|t| t.name == top).map(|t| &t.verilog);
                let default = defaults.iter().find(|t| t.name == top).map(|t| &t.verilog);
                match (mine, default) {
                    (Some(m), Some(d)) if m == d => None,
                    (Some(m), Some(d)) => {
                        let synthesize = !differ_only_in_constants(m, d);
                        Some((top, path, synthesize))
                    }
                    _ => Some((top, path, true)),
                }
            })
            .collect();
        // The published router chip is emitted (all 24 ports), but its lint and synthesis
        // (35 MB of Verilog: Verilator's lint alone took over 5 minutes) are `make bench`'s
        // (`bench -- nrc-top`), as the CI budget asks of the published sizes.
        if cfg.router.ports as usize > nrc::tops::CORE_PORTS {
            let chip = own.iter().find(|t| t.name == "nrc_top");
            let last = format!("lanes_in${}", cfg.router.ports - 1);
            assert!(
                chip.is_some_and(|t| t.verilog.contains(&last)),
                "{name}: nrc_top with {} ports emitted",
                cfg.router.ports
            );
        }
        assert!(
            tops.iter()
                .any(|(t, _, synth)| t == "llp_endpoint" && *synth),
            "{name}: the link endpoint's structure must differ from the default's"
        );
        let next = std::sync::Mutex::new(tops.into_iter());
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| loop {
                    let Some((top, path, synthesize)) = next.lock().unwrap().next() else {
                        return;
                    };
                    let work = dir.join(&top);
                    let lint = flow::lint_unchecked(
                        &[&path],
                        &top,
                        &work.join("lint"),
                        &Default::default(),
                    )
                    .unwrap();
                    assert!(lint.is_clean(), "{name}: {top}:\n{}", lint.findings());
                    if !synthesize {
                        continue;
                    }
                    let generic = flow::SynthOptions {
                        map_to_target: false,
                        ..Default::default()
                    };
                    flow::synth_cached(&[&path], &top, &work.join("synth"), &generic)
                        .unwrap_or_else(|e| panic!("{name}: synthesis of {top}: {e:#}"));
                });
            }
        });
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// `a` and `b` are the same Verilog except for the header comment (line 1) and the values of
/// `localparam` constants, each keeping its name and its width.
fn differ_only_in_constants(a: &str, b: &str) -> bool {
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().skip(1).collect(), b.lines().skip(1).collect());
    a.len() == b.len()
        && a.iter().zip(&b).all(|(x, y)| {
            x == y
                || match (localparam(x), localparam(y)) {
                    (Some(p), Some(q)) => p == q,
                    _ => false,
                }
        })
}

/// The name and the width of a `localparam NAME = W'hVALUE;` line (`None` for other lines or
/// values without a width).
fn localparam(line: &str) -> Option<(&str, &str)> {
    let rest = line.trim().strip_prefix("localparam")?;
    let (name, value) = rest.split_once('=')?;
    let (width, _) = value.trim().split_once('\'')?;
    Some((name.trim(), width.trim()))
}

#[test]
fn constant_only_differences_are_told_from_structural_ones() {
    let a = "// a\nmodule m;\n    localparam  head = 65'h8000051900000000;\nendmodule";
    let b = "// b\nmodule m;\n    localparam  head = 65'h8000053900000000;\nendmodule";
    let wider = "// b\nmodule m;\n    localparam  head = 66'h8000053900000000;\nendmodule";
    let other = "// b\nmodule m;\n    localparam  tail = 65'h8000051900000000;\nendmodule";
    let logic = "// b\nmodule n;\n    localparam  head = 65'h8000051900000000;\nendmodule";
    assert!(differ_only_in_constants(a, b));
    assert!(!differ_only_in_constants(a, wider));
    assert!(!differ_only_in_constants(a, other));
    assert!(!differ_only_in_constants(a, logic));
}
