//! Checks for the rust-hdl emission hazards: two that no tool reports, and one that the tools
//! report only as a puzzling syntax error, or not at all.
//!
//! rust-hdl prints each `#[hdl_gen]` block as one `always @(*)` of blocking assignments. Two
//! classes of its output compile cleanly, pass `check_all`, `yosys_validate` and (with the
//! WIDTH waiver) Verilator's lint, yet the Verilog computes something other than the Rust:
//!
//! - [`HazardKind::Precedence`]: the printer drops the grouping that Rust's precedence implied.
//!   Rust binds comparisons *looser* than `& | ^`, Verilog binds them *tighter*, so Rust's
//!   `a & b == c` (`(a & b) == c`) is printed as `a & b == c` and Verilog reads `a & (b == c)`.
//!   Any unparenthesized mix of a binary `& | ^` and a comparison in one group is flagged
//!   (parentheses written in the Rust source are printed, so the fix is to add them there).
//! - [`HazardKind::LiteralWidening`]: Rust literals are printed as 32-bit (`32'h1`) and Verilog
//!   sizes an expression by its whole context, so `(a + 1) == 0` with a 4-bit `a` wraps to 0 in
//!   Rust but is 16 in Verilog. Widening is harmless where the result is only truncated into a
//!   register (`a$d = a$q + 32'h1`), and wrong where higher bits are observed: in comparisons,
//!   right shifts, indices, conditions and case selectors. An addition, subtraction,
//!   multiplication or left shift is flagged when it sits in such an observed context that is
//!   wider than its non-literal operands (the width Rust computes it in). The fix is the
//!   guide's: assign the sum to a same-width local first, then compare.
//!
//! These two are looked for only in the generated `// Update code` blocks (not in `(custom)`
//! Verilog such as rust-hdl's DFF and RAM), one statement per line, as rust-hdl prints them.
//!
//! A third class passes rust-hdl's design-rule check (`check_all`) but does not parse:
//!
//! - [`HazardKind::Keyword`]: rust-hdl prints Rust field names as Verilog identifiers unchanged
//!   (its derive refuses only six of them), so a port, signal, `Constant` or child block named
//!   `end`, `wait`, `expect`, `dist`, `initial`, ... compiles in Rust, but Verilator stops on a
//!   syntax error or an "unsupported reserved word" far from the Rust cause, while Yosys
//!   rejects only some of the words (it takes `wait`, `expect`, `dist` as names), so synthesis
//!   may pass where the lint fails. Every *declared* name in the whole file, custom Verilog
//!   included, is checked against [`VERILOG_KEYWORDS`]: module names, port list entries,
//!   `input`/`output`/`inout`/`reg`/`wire`/`localparam`/`parameter`/`integer`/...
//!   declarations and instance names. Keywords in their keyword positions are not names and
//!   are not looked at; rust-hdl's `child$port` stubs are single identifiers, and only a whole
//!   identifier can be a keyword. The fix is to rename the Rust field or port.
//!
//! This is a rust-hdl-specific check, not a general Verilog linter.
use std::collections::HashMap;
use std::fmt;

mod expressions;
mod keywords;
mod lexer;

pub use keywords::{is_verilog_keyword, VERILOG_KEYWORDS};

use expressions::{max_opt, precedence_mix, Parser, Scope};
use keywords::{is_ident_char, KeywordNames};
use lexer::{declaration, statement_exprs, tokenize, Root};

/// What kind of Rust/Verilog mismatch was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HazardKind {
    /// A comparison mixed with `& | ^` without parentheses.
    Precedence,
    /// Arithmetic evaluated wider than in Rust, in a context that observes the extra bits.
    LiteralWidening,
    /// A declared name (port, signal, constant, instance, module) that is a reserved word of
    /// Verilog-2005 or SystemVerilog-2017 ([`VERILOG_KEYWORDS`]).
    Keyword,
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hazard {
    /// What was found.
    pub kind: HazardKind,
    /// Module name.
    pub module: String,
    /// 1-based line number in the scanned text.
    pub line: usize,
    /// The statement, trimmed.
    pub statement: String,
    /// Explanation naming the operator, sub-expression or identifier, and the fix.
    pub detail: String,
}

impl fmt::Display for Hazard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            HazardKind::Precedence => "precedence",
            HazardKind::LiteralWidening => "literal widening",
            HazardKind::Keyword => "reserved word as a name",
        };
        write!(
            f,
            "line {} in module {}: {kind}: {} [{}]",
            self.line, self.module, self.detail, self.statement
        )
    }
}

/// Scans rust-hdl Verilog for precedence, widening and reserved-word hazards.
///
/// Findings are in line order; a reserved word is reported once per module, at its first
/// declaration (a port at its `input`/`output` line rather than in the module's port list).
pub fn scan(verilog: &str) -> Vec<Hazard> {
    let mut out = vec![];
    let mut module: Option<String> = None;
    let mut widths: HashMap<String, u32> = HashMap::new();
    let mut in_update = false;
    let mut names = KeywordNames::default();
    for (i, raw) in verilog.lines().enumerate() {
        let line = raw.trim();
        if let Some(rest) = line.strip_prefix("module ") {
            let rest = rest.trim_start();
            let name: String = rest.chars().take_while(|c| is_ident_char(*c)).collect();
            names.flush(&mut out);
            names.module = name.clone();
            names.module_header(i + 1, line, &name, &rest[name.len()..]);
            module = Some(name);
            widths.clear();
            in_update = false;
            continue;
        }
        let Some(m) = module.as_ref() else { continue };
        if line.starts_with("endmodule") {
            names.flush(&mut out);
            module = None;
            in_update = false;
            continue;
        }
        names.declarations(i + 1, line);
        if line == "// Update code" {
            in_update = true;
            continue;
        }
        if line.starts_with("// Update code") {
            // `(custom)` Verilog is hand-written inside rust-hdl: not from #[hdl_gen].
            in_update = false;
            continue;
        }
        if !in_update {
            if let Some((name, w)) = declaration(line) {
                widths.insert(name, w);
            }
            continue;
        }
        let ctx = Scope { widths: &widths };
        for (root, expr) in statement_exprs(line) {
            let Some(tokens) = tokenize(expr) else {
                continue;
            };
            if let Some(op) = precedence_mix(&tokens) {
                out.push(Hazard {
                    kind: HazardKind::Precedence,
                    module: m.clone(),
                    line: i + 1,
                    statement: line.to_string(),
                    detail: format!(
                        "`{op}` mixed with a comparison without parentheses: Verilog binds the \
                         comparison first, Rust the other way round"
                    ),
                });
                continue;
            }
            let Some(ast) = Parser::new(&tokens).parse_all() else {
                continue;
            };
            let mut found = vec![];
            match root {
                Root::Assign(lhs) => {
                    let lw = ctx.widths.get(lhs).copied();
                    let w = max_opt(lw, ctx.self_width(&ast));
                    ctx.visit(&ast, w, false, &mut found);
                }
                Root::Condition => {
                    let w = ctx.self_width(&ast);
                    ctx.visit(&ast, w, true, &mut found);
                }
            }
            for (text, typed, evaluated) in found {
                out.push(Hazard {
                    kind: HazardKind::LiteralWidening,
                    module: m.clone(),
                    line: i + 1,
                    statement: line.to_string(),
                    detail: format!(
                        "`{text}` is {typed} bits wide in Rust but evaluated in {evaluated} bits \
                         here, and the extra bits are observed; assign it to a {typed}-bit local \
                         first"
                    ),
                });
            }
        }
    }
    names.flush(&mut out);
    out.sort_by_key(|h| h.line);
    out
}

#[cfg(test)]
mod tests {
    use super::keywords::{declared_names, is_identifier};
    use super::*;

    fn module(decls: &str, body: &str) -> String {
        format!(
            "module m(a,b,c,x,y,o);\n{decls}\n    // Update code\n    always @(*) begin\n{body}\n    end\nendmodule // m\n"
        )
    }

    const DECLS: &str = "    input wire  a;\n    input wire  b;\n    input wire  c;\n    input wire  [3:0] x;\n    input wire  [3:0] y;\n    output reg  o;\n    reg  [3:0] n$d;\n    wire  [3:0] n$q;\n    localparam  k = 4'h3;";

    #[test]
    fn precedence_mix_is_flagged() {
        let v = module(DECLS, "        o = a & b == c;");
        let h = scan(&v);
        assert_eq!(h.len(), 1, "{h:?}");
        assert_eq!(h[0].kind, HazardKind::Precedence);
        assert_eq!(h[0].line, 13);
        assert!(h[0].detail.contains('&'));
    }

    #[test]
    fn parenthesized_mix_is_fine() {
        let v = module(
            DECLS,
            "        o = (a & b) == c;\n        o = a & (b == c);\n        if ((x == y) | a) begin\n        o = &x | ~a;",
        );
        assert!(scan(&v).is_empty(), "{:?}", scan(&v));
    }

    #[test]
    fn widened_comparison_is_flagged() {
        let v = module(DECLS, "        o = (x + 32'h1) == 32'h0;");
        let h = scan(&v);
        assert_eq!(h.len(), 1, "{h:?}");
        assert_eq!(h[0].kind, HazardKind::LiteralWidening);
        assert!(
            h[0].detail
                .contains("4 bits wide in Rust but evaluated in 32"),
            "{}",
            h[0]
        );
        // A same-width constant does not help: the literal 0 still widens the comparison.
        let v = module(DECLS, "        if (x + k == 32'h0) begin");
        assert_eq!(scan(&v).len(), 1);
    }

    #[test]
    fn widened_condition_index_and_shift_are_flagged() {
        for body in [
            "        if (x - 32'h1) begin",
            "        o = y[(x + 32'h1)];",
            "        n$d = (x + 32'h1) >> 32'h1;",
        ] {
            let v = module(DECLS, body);
            assert_eq!(scan(&v).len(), 1, "{body}: {:?}", scan(&v));
        }
    }

    #[test]
    fn truncated_arithmetic_is_fine() {
        let v = module(
            DECLS,
            "        n$d = n$q + 32'h1;\n        n$d = ((n$q + 32'h1) & 4'hf);\n        o = x == 32'h7;\n        o = (x + y) == n$q;\n        if (x == 0) begin\n        n$d = (n$q & ~(1 << (32'h2)) | ((a) << (32'h2)));",
        );
        assert!(scan(&v).is_empty(), "{:?}", scan(&v));
    }

    #[test]
    fn custom_verilog_is_not_scanned() {
        let v = "module d(d,q,clock);\n    input wire  [3:0] d;\n    output reg  [3:0] q;\n    // Update code (custom)\n    always @(posedge clock) begin\n       q <= d + 1 == 0;\n    end\nendmodule // d\n";
        assert!(scan(v).is_empty());
    }

    #[test]
    fn declarations_give_widths() {
        assert_eq!(
            declaration("input wire  [15:0] sink$data;"),
            Some(("sink$data".into(), 16))
        );
        assert_eq!(
            declaration("reg  a_valid$d;"),
            Some(("a_valid$d".into(), 1))
        );
        assert_eq!(declaration("localparam  k = 4'h3;"), Some(("k".into(), 4)));
        assert_eq!(
            declaration("localparam St$Idle = 0;"),
            Some(("St$Idle".into(), 32))
        );
        assert_eq!(declaration("a = b;"), None);
    }
    fn keyword_findings(v: &str) -> Vec<Hazard> {
        let h = scan(v);
        assert!(h.iter().all(|h| h.kind == HazardKind::Keyword), "{h:?}");
        h
    }

    #[test]
    fn keyword_list_is_sorted_unique_and_has_the_offenders() {
        for w in VERILOG_KEYWORDS.windows(2) {
            assert!(
                w[0] < w[1],
                "{} before {}: unsorted or duplicate",
                w[0],
                w[1]
            );
        }
        // IEEE 1800-2017 Annex B lists 248 keywords, all of 1364-2005 Annex B among them.
        assert_eq!(VERILOG_KEYWORDS.len(), 248);
        for k in [
            "end",
            "wait",
            "expect",
            "dist",
            "initial",
            "begin",
            "module",
            "wire",
            "reg",
            "config",
            "edge",
            "disable",
            "time",
            "event",
            "uwire",
            "cross",
            "until_with",
            "soft",
            "implements",
            "interconnect",
            "nettype",
            "eventually",
            "s_until_with",
        ] {
            assert!(is_verilog_keyword(k), "{k} missing");
        }
        for k in [
            "randomize",
            "std",
            "End",
            "tx$end",
            "ending",
            "lane_missing",
            "",
        ] {
            assert!(!is_verilog_keyword(k), "{k} is not reserved");
        }
        assert!(VERILOG_KEYWORDS.iter().all(|k| is_identifier(k)));
    }

    #[test]
    fn port_named_end_is_flagged_once_at_its_declaration() {
        let v = "module m(a,end,o);\n    input wire  a;\n    input wire  end;\n    output reg  o;\n    // Update code\n    always @(*) begin\n        o = a & end;\n    end\nendmodule // m\n";
        let h = keyword_findings(v);
        assert_eq!(h.len(), 1, "{h:?}");
        assert_eq!((h[0].module.as_str(), h[0].line), ("m", 3));
        assert_eq!(h[0].statement, "input wire  end;");
        assert!(
            h[0].detail.starts_with("port `end` is a reserved word"),
            "{}",
            h[0]
        );
        assert!(
            h[0].detail.ends_with("rename the Rust field/port"),
            "{}",
            h[0]
        );
        assert_eq!(
            h[0].to_string(),
            "line 3 in module m: reserved word as a name: port `end` is a reserved word of \
             Verilog-2005/SystemVerilog-2017 and cannot be a Verilog name; rename the Rust \
             field/port [input wire  end;]"
        );
    }

    #[test]
    fn local_constant_and_instance_keywords_are_flagged() {
        let v = module(
            &format!(
                "{DECLS}\n    reg  [3:0] wait;\n    localparam  dist = 4'h3;\n    // Sub module instances\n    m$expect expect(\n        .d(expect$d),\n        .q(expect$q),\n        .clock(expect$clock)\n    );"
            ),
            "        wait = x;\n        o = wait == dist;",
        );
        let h = keyword_findings(&v);
        let got: Vec<(usize, &str)> = h.iter().map(|h| (h.line, h.detail.as_str())).collect();
        assert_eq!(got.len(), 3, "{h:?}");
        assert_eq!(got[0].0, 11);
        assert!(got[0].1.starts_with("signal `wait` "), "{}", got[0].1);
        assert_eq!(got[1].0, 12);
        assert!(got[1].1.starts_with("constant `dist` "), "{}", got[1].1);
        assert_eq!(got[2].0, 14);
        assert!(got[2].1.starts_with("instance `expect` "), "{}", got[2].1);
        assert!(h.iter().all(|h| h.module == "m"));
    }

    #[test]
    fn keyword_like_names_and_keywords_in_place_are_fine() {
        let v = "module m(clock,tx$end,ending,lane_missing,End,o);\n    input wire  clock;\n    input wire  tx$end;\n    input wire  [3:0] ending;\n    input wire  lane_missing;\n    input wire  End;\n    output reg  o;\n    localparam  St$end = 0;\n    reg  expect$d;\n    wire  expect$q;\n    reg  initial_value;\n    // Sub module instances\n    m$expect expect_(\n        .d(expect$d),\n        .q(expect$q),\n        .clock(expect$clock)\n    );\n    // Update code\n    always @(*) begin\n        o = 1'b0;\n        case (ending)\n            St$end: begin\n                o = tx$end;\n            end\n            default: begin\n                o = lane_missing;\n            end\n        endcase\n        if (End) begin\n        end else begin\n        end\n    end\n    always @(*) expect$clock = clock;\n    assign x = y;\nendmodule // m\n\n\nmodule m$expect_(d,q,clock);\n    input wire  d;\n    output reg  q;\n    input wire  clock;\n    // Update code (custom)\n    initial begin\n        q = 1'b0;\n    end\n    always @(posedge clock) q <= d;\nendmodule // m$expect_\n";
        assert!(scan(v).is_empty(), "{:?}", scan(v));
    }

    #[test]
    fn keywords_in_custom_and_hand_written_verilog_are_flagged() {
        let v = "module r(read_data,clock);\n    output reg  [3:0] read_data;\n    input wire  clock;\n    // Update code (custom)\n    reg[3:0] mem[15:0];\n    reg [3:0] a, final;\n    always @(posedge clock) read_data <= mem[0];\nendmodule // r\n\nmodule OB(input I, output int);\nendmodule\nmodule PLL (\n    input   REFERENCECLK,\n    output  [7:0] priority,\n    input   SCLK\n);\n    parameter DIVR = 4'b0000;\n    parameter DEL_MODE = \"A,B\";\n    parameter class = 1;\nendmodule\nmodule top(clock);\n    input wire  clock;\n    PLL #(\n        .DIVR(4'b0001)\n    ) unique (\n        .SCLK(clock)\n    );\n    OB #(.X(1)) bit (.I(clock));\nendmodule\n";
        let h = keyword_findings(v);
        let got: Vec<(&str, usize, &str)> = h
            .iter()
            .map(|h| {
                let name = h.detail.split('`').nth(1).unwrap();
                (h.module.as_str(), h.line, name)
            })
            .collect();
        assert_eq!(
            got,
            [
                ("r", 6, "final"),
                ("OB", 10, "int"),
                ("PLL", 14, "priority"),
                ("PLL", 19, "class"),
                ("top", 25, "unique"),
                ("top", 28, "bit"),
            ]
        );
    }

    #[test]
    fn keyword_module_name_is_flagged() {
        let h = keyword_findings("module wait(a);\n    input wire  a;\nendmodule // wait\n");
        assert_eq!(h.len(), 1, "{h:?}");
        assert!(h[0].detail.starts_with("module `wait` "), "{}", h[0]);
        assert!(h[0].detail.ends_with("rename the module"), "{}", h[0]);
    }

    #[test]
    fn declared_names_of_one_line() {
        let names =
            |l: &str| -> Vec<String> { declared_names(l).into_iter().map(|(n, _)| n).collect() };
        assert_eq!(names("input wire  [15:0] sink$data;"), ["sink$data"]);
        assert_eq!(names("reg[64:0] mem[63:0];"), ["mem"]);
        assert_eq!(names("reg a, b = 1'b0, c; // x"), ["a", "b", "c"]);
        assert_eq!(names("localparam  k = {2'b0, 2'b1};"), ["k"]);
        assert_eq!(names("output  LOCK"), ["LOCK"]);
        assert_eq!(names("m$child child("), ["child"]);
        assert_eq!(names(") pll ("), ["pll"]);
        for none in [
            "input = a;",
            "wire[(0)+:(4)] = b;",
            "o = a;",
            "if (a) begin",
            "end else if (b) begin",
            "always @(*) begin",
            "initial begin",
            "St$Idle: begin",
            "foo(a);",
            ");",
            ".d(expect$d),",
        ] {
            assert!(names(none).is_empty(), "{none}: {:?}", names(none));
        }
    }
}
