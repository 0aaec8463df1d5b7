//! `verilog-out/` (Verilog, register-map C headers and Markdown references) and
//! `docs/formats.md` must be exactly what `make` regenerates from the sources.
use hdl::params::Config;
use std::path::Path;

#[test]
fn verilog_out_is_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cfg = Config::default();
    let tops = hpcnet::emit::all_tops(&cfg).unwrap();
    let mut expected: Vec<String> = vec![];
    for t in &tops {
        let want = format!("{}{}", hpcnet::emit::header(&cfg, "default", t), t.verilog);
        let path = root.join("verilog-out").join(format!("{}.v", t.name));
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "{} is stale or missing: run `make`",
            path.display()
        );
        expected.push(format!("{}.v", t.name));
    }
    for (file, want) in hpcnet::emit::all_regmap_files(&cfg).unwrap() {
        let path = root.join("verilog-out").join(&file);
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "{} is stale or missing: run `make`",
            path.display()
        );
        expected.push(file);
    }
    for e in std::fs::read_dir(root.join("verilog-out")).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().to_string();
        if [".v", ".h", ".md"].iter().any(|x| name.ends_with(x)) {
            assert!(
                expected.contains(&name),
                "verilog-out/{name} is not a top or register map of the default configuration: run `make`"
            );
        }
    }
}

#[test]
fn module_names_are_unique_across_tops() {
    let tops = hpcnet::emit::all_tops(&Config::default()).unwrap();
    let mut seen = std::collections::HashMap::new();
    for t in &tops {
        for l in t.verilog.lines().filter(|l| l.starts_with("module ")) {
            let m = l[7..].split(['(', ' ']).next().unwrap().to_string();
            if let Some(other) = seen.insert(m.clone(), t.name.clone()) {
                panic!("module {m} is defined by both {other} and {}", t.name);
            }
        }
    }
}

#[test]
fn formats_doc_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/formats.md");
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == hdl::formats::markdown(),
        "{} is stale: run `make`",
        path.display()
    );
}
