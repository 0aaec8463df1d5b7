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
/// (the board demos, for instance) is not checked twice. Mapping to iCE40 cells is left out:
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
        hpcnet::emit::emit(&cfg, &name, &out, &[]).unwrap();
        let tops: Vec<(String, PathBuf)> = hpcnet::flows::emitted_tops(&out)
            .unwrap()
            .into_iter()
            .filter(|(top, _)| {
                let own = hpcnet::emit::all_tops(&cfg).unwrap();
                let mine = own.iter().find(|t| &t.name == top).map(|t| &t.verilog);
                let default = defaults.iter().find(|t| &t.name == top).map(|t| &t.verilog);
                mine != default
            })
            .collect();
        assert!(
            tops.iter().any(|(t, _)| t == "llp_endpoint"),
            "{name}: the link endpoint must differ from the default's"
        );
        let next = std::sync::Mutex::new(tops.into_iter());
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| loop {
                    let Some((top, path)) = next.lock().unwrap().next() else {
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
                    let generic = flow::SynthOptions {
                        map_to_target: false,
                        ..Default::default()
                    };
                    flow::synth_with(&[&path], &top, &work.join("synth"), &generic)
                        .unwrap_or_else(|e| panic!("{name}: synthesis of {top}: {e:#}"));
                });
            }
        });
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
