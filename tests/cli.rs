//! The command line: bad configurations exit non-zero with one line naming the field.
use std::process::Command;

fn hpcnet(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hpcnet"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn check_text(text: &str) -> (bool, String) {
    let dir =
        std::env::temp_dir().join(format!("hpcnet-cli-{}-{}", std::process::id(), text.len()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("c.toml");
    std::fs::write(&f, text).unwrap();
    let (ok, _, err) = hpcnet(&["check", "--config", f.to_str().unwrap()]);
    (ok, err)
}

#[test]
fn bad_configurations_fail_with_one_line() {
    for (text, needle) in [
        ("[link]\nlanes = 0\n", "link.lanes = 0: must be in 1..=4"),
        (
            "[link]\nreplay_ltps = 3\n",
            "link.replay_ltps = 3: must be a power of two",
        ),
        ("[network]\nbogus = 1\n", "unknown field `bogus`"),
        (
            "[link]\nvc_buffer_flits = 99999999999\n",
            "link.vc_buffer_flits",
        ),
        ("not toml at all [", "line 1"),
    ] {
        let (ok, err) = check_text(text);
        assert!(!ok, "{text:?} was accepted");
        assert_eq!(err.lines().count(), 1, "{text:?}: not one line: {err:?}");
        assert!(err.contains(needle), "{text:?}: {err:?} lacks {needle:?}");
        assert!(
            !err.contains("panicked") && !err.contains("backtrace"),
            "{err}"
        );
    }
}

#[test]
fn default_config_round_trips_through_check() {
    let (ok, text, _) = hpcnet(&["config"]);
    assert!(ok);
    let (ok, err) = check_text(&text);
    assert!(ok, "{err}");
}

#[test]
fn emit_rejects_unknown_top() {
    let dir = std::env::temp_dir().join(format!("hpcnet-emit-{}", std::process::id()));
    let (ok, _, err) = hpcnet(&["emit", "--out", dir.to_str().unwrap(), "no_such_top"]);
    assert!(!ok);
    assert!(
        err.contains("no top or register map called \"no_such_top\"") && err.lines().count() == 1,
        "{err}"
    );
}

#[test]
fn lint_findings_print_one_per_line() {
    let dir = std::env::temp_dir().join(format!("hpcnet-lint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Two latches and an unused input: three findings.
    std::fs::write(
        dir.join("bad.v"),
        "module bad(input wire en, input wire d, input wire spare, output reg q, output reg r);\n always @(*) begin\n  if (en) q = d;\n  if (d) r = en;\n end\nendmodule\n",
    )
    .unwrap();
    let work = dir.join("work");
    let (ok, _, err) = hpcnet(&[
        "lint",
        "--dir",
        dir.to_str().unwrap(),
        "--work",
        work.to_str().unwrap(),
    ]);
    assert!(!ok, "a design with latches passed lint");
    let findings: Vec<&str> = err.lines().filter(|l| l.starts_with("%Warning")).collect();
    assert!(findings.len() >= 3, "one finding per line expected: {err}");
    assert!(
        findings.iter().filter(|l| l.contains("LATCH")).count() >= 2,
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn emit_names_the_path_it_cannot_write() {
    let dir = std::env::temp_dir().join(format!("hpcnet-emit-blocked-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A file where the output directory should go.
    let blocker = dir.join("not_a_dir");
    std::fs::write(&blocker, "").unwrap();
    let out = blocker.join("verilog");
    let (ok, _, err) = hpcnet(&["emit", "--out", out.to_str().unwrap(), "flit_decoder"]);
    assert!(!ok);
    assert!(err.contains(out.to_str().unwrap()), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
