//! Every register map's C header (the sample map's and the chips' of the default configuration)
//! compiles (`cc -fsyntax-only`, warnings as errors, C99 and C11;
//! the program including it with `-pedantic` too),
//! survives a second `#include`, and gives back, in a small C program compiled and run here,
//! every register's address, byte offset, width and reset value and every field's shift,
//! width and mask, which must equal the Rust map's.
use hdl::regmap::{c_header, RegMap, BYTES_PER_REGISTER};
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hpcnet-c-header-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().expect("cannot run the C compiler (cc)");
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The lines the C program prints and the Rust map expects, in the same order.
fn program_and_expected(map: &RegMap) -> (String, String) {
    let m = map.name.to_ascii_uppercase();
    let mut c = format!(
        "#include <stdio.h>\n#include \"{0}.h\"\n#include \"{0}.h\"\nint main(void) {{\n",
        map.name
    );
    let mut want = String::new();
    writeln!(
        c,
        "    printf(\"count %d bytes %d\\n\", {m}_REGISTER_COUNT, {m}_BYTES_PER_REGISTER);"
    )
    .unwrap();
    writeln!(
        want,
        "count {} bytes {}",
        map.registers.len(),
        BYTES_PER_REGISTER
    )
    .unwrap();
    for r in &map.registers {
        let p = format!("{m}_{}", r.name.to_ascii_uppercase());
        writeln!(
            c,
            "    printf(\"{} %llu %llu %d %llu\\n\", {p}_ADDR, {p}_OFFSET, {p}_WIDTH, {p}_RESET);",
            r.name
        )
        .unwrap();
        writeln!(
            want,
            "{} {} {} {} {}",
            r.name,
            r.offset,
            r.offset * BYTES_PER_REGISTER,
            r.width,
            r.reset
        )
        .unwrap();
        for f in &r.fields {
            let q = format!("{p}_{}", f.name.to_ascii_uppercase());
            writeln!(
                c,
                "    printf(\"{}.{} %d %d %llu\\n\", {q}_SHIFT, {q}_WIDTH, {q}_MASK);",
                r.name, f.name
            )
            .unwrap();
            let mask = hdl::regmap::map::mask(f.width) << f.lsb;
            writeln!(want, "{}.{} {} {} {}", r.name, f.name, f.lsb, f.width, mask).unwrap();
        }
    }
    writeln!(
        c,
        "    printf(\"errors %d %d %d\\n\", HPCNET_REG_ERROR_NONE, HPCNET_REG_ERROR_UNMAPPED, HPCNET_REG_ERROR_READ_ONLY);\n    return 0;\n}}"
    )
    .unwrap();
    want.push_str("errors 0 1 2\n");
    (c, want)
}

fn check(map: &RegMap, dir: &Path) {
    let header = dir.join(format!("{}.h", map.name));
    std::fs::write(&header, c_header(map)).unwrap();
    for std in ["-std=c99", "-std=c11"] {
        run(Command::new("cc")
            .args(["-fsyntax-only", "-Wall", "-Wextra", "-Werror", std])
            .arg(&header));
    }
    let (program, want) = program_and_expected(map);
    let source = dir.join("print_map.c");
    let exe = dir.join("print_map");
    std::fs::write(&source, program).unwrap();
    run(Command::new("cc")
        .args([
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-pedantic",
            "-Werror",
            "-Wformat=2",
            "-o",
        ])
        .arg(&exe)
        .arg(&source)
        .arg("-I")
        .arg(dir));
    let got = run(&mut Command::new(&exe));
    assert_eq!(got, want, "the C header disagrees with the Rust map");
}

#[test]
fn every_header_compiles_and_reads_back() {
    let dir = scratch();
    let maps = hpcnet::emit::all_regmaps(&hdl::params::Config::default()).unwrap();
    for name in ["regfile_sample", "nrc", "nic"] {
        assert!(
            maps.iter().any(|m| m.name == name),
            "map {name} is not emitted"
        );
    }
    for map in &maps {
        check(map, &dir);
    }
    std::fs::remove_dir_all(&dir).ok();
}
