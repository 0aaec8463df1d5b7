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
        err.contains("no top called") && err.lines().count() == 1,
        "{err}"
    );
}
