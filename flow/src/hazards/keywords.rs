//! Reserved words used as names: every name a module declares (ports, signals, constants,
//! instances, the module itself), checked against [`VERILOG_KEYWORDS`].
use super::lexer::matching_paren;
use super::{Hazard, HazardKind};

/// The reserved words of Verilog and SystemVerilog, sorted (byte order) for binary search.
///
/// The union of the keyword lists of IEEE Std 1364-2005 Annex B (Verilog-2005, 124 words) and
/// IEEE Std 1800-2017 Annex B (SystemVerilog-2017, 248 words), the latter containing all of the
/// former: 248 words. Measured with the flow's tools on `reg [3:0] WORD;`: Verilator 5.006
/// (which reads `.v` files as SystemVerilog) rejects every one of them except `global`, and
/// Yosys 0.23 `read_verilog` rejects 60 Verilog-2005 words (`end`, `initial`, `begin`, ...) and
/// accepts the other 188. Names that are only built-in methods or packages (`randomize`,
/// `std`) are not reserved, are accepted by both tools, and are not listed.
#[rustfmt::skip]
pub const VERILOG_KEYWORDS: &[&str] = &[
    "accept_on", "alias", "always", "always_comb", "always_ff", "always_latch", "and", "assert",
    "assign", "assume", "automatic", "before", "begin", "bind", "bins", "binsof", "bit", "break",
    "buf", "bufif0", "bufif1", "byte", "case", "casex", "casez", "cell", "chandle", "checker",
    "class", "clocking", "cmos", "config", "const", "constraint", "context", "continue", "cover",
    "covergroup", "coverpoint", "cross", "deassign", "default", "defparam", "design", "disable",
    "dist", "do", "edge", "else", "end", "endcase", "endchecker", "endclass", "endclocking",
    "endconfig", "endfunction", "endgenerate", "endgroup", "endinterface", "endmodule",
    "endpackage", "endprimitive", "endprogram", "endproperty", "endsequence", "endspecify",
    "endtable", "endtask", "enum", "event", "eventually", "expect", "export", "extends", "extern",
    "final", "first_match", "for", "force", "foreach", "forever", "fork", "forkjoin", "function",
    "generate", "genvar", "global", "highz0", "highz1", "if", "iff", "ifnone", "ignore_bins",
    "illegal_bins", "implements", "implies", "import", "incdir", "include", "initial", "inout",
    "input", "inside", "instance", "int", "integer", "interconnect", "interface", "intersect",
    "join", "join_any", "join_none", "large", "let", "liblist", "library", "local", "localparam",
    "logic", "longint", "macromodule", "matches", "medium", "modport", "module", "nand", "negedge",
    "nettype", "new", "nexttime", "nmos", "nor", "noshowcancelled", "not", "notif0", "notif1",
    "null", "or", "output", "package", "packed", "parameter", "pmos", "posedge", "primitive",
    "priority", "program", "property", "protected", "pull0", "pull1", "pulldown", "pullup",
    "pulsestyle_ondetect", "pulsestyle_onevent", "pure", "rand", "randc", "randcase",
    "randsequence", "rcmos", "real", "realtime", "ref", "reg", "reject_on", "release", "repeat",
    "restrict", "return", "rnmos", "rpmos", "rtran", "rtranif0", "rtranif1", "s_always",
    "s_eventually", "s_nexttime", "s_until", "s_until_with", "scalared", "sequence", "shortint",
    "shortreal", "showcancelled", "signed", "small", "soft", "solve", "specify", "specparam",
    "static", "string", "strong", "strong0", "strong1", "struct", "super", "supply0", "supply1",
    "sync_accept_on", "sync_reject_on", "table", "tagged", "task", "this", "throughout", "time",
    "timeprecision", "timeunit", "tran", "tranif0", "tranif1", "tri", "tri0", "tri1", "triand",
    "trior", "trireg", "type", "typedef", "union", "unique", "unique0", "unsigned", "until",
    "until_with", "untyped", "use", "uwire", "var", "vectored", "virtual", "void", "wait",
    "wait_order", "wand", "weak", "weak0", "weak1", "while", "wildcard", "wire", "with", "within",
    "wor", "xnor", "xor",
];

/// Whether `name` is exactly a reserved word of [`VERILOG_KEYWORDS`] (Verilog is
/// case-sensitive: `End` and `tx$end` are not).
pub fn is_verilog_keyword(name: &str) -> bool {
    VERILOG_KEYWORDS.binary_search(&name).is_ok()
}

/// What a declared name is, for the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Declared {
    Module,
    Port,
    Signal,
    Constant,
    Instance,
}

impl Declared {
    pub(super) fn noun(self) -> &'static str {
        match self {
            Declared::Module => "module",
            Declared::Port => "port",
            Declared::Signal => "signal",
            Declared::Constant => "constant",
            Declared::Instance => "instance",
        }
    }
}

/// One declared name that is a keyword.
pub(super) struct KeywordHit {
    name: String,
    what: Declared,
    line: usize,
    statement: String,
    in_header: bool,
}

/// The keyword names declared in the module being scanned, reported at its end.
#[derive(Default)]
pub(super) struct KeywordNames {
    pub(super) module: String,
    hits: Vec<KeywordHit>,
}

impl KeywordNames {
    pub(super) fn push(
        &mut self,
        line: usize,
        statement: &str,
        name: &str,
        what: Declared,
        header: bool,
    ) {
        if is_verilog_keyword(name) {
            self.hits.push(KeywordHit {
                name: name.to_string(),
                what,
                line,
                statement: statement.to_string(),
                in_header: header,
            });
        }
    }

    /// `module NAME(a,b,c);`, `module NAME (input D, output Q);`, `module NAME #(...) (`: the
    /// module name and the names in its port list (`rest` follows the name).
    pub(super) fn module_header(&mut self, line: usize, statement: &str, name: &str, rest: &str) {
        self.push(line, statement, name, Declared::Module, true);
        let mut rest = strip_comment(rest).trim_start();
        if let Some(r) = rest.strip_prefix('#') {
            let r = r.trim_start();
            let Some(close) = matching_paren(r) else {
                return;
            };
            rest = r[close + 1..].trim_start();
        }
        let Some(list) = rest.strip_prefix('(') else {
            return;
        };
        let list = match matching_paren(rest) {
            Some(close) => &rest[1..close],
            None => list,
        };
        for entry in split_top_level(list) {
            if entry.trim_start().starts_with('.') {
                continue;
            }
            if let Some(port) = declarator_words(entry).last() {
                if is_identifier(port) {
                    self.push(line, statement, port, Declared::Port, true);
                }
            }
        }
    }

    /// The names a declaration or instance line declares.
    pub(super) fn declarations(&mut self, line: usize, statement: &str) {
        for (name, what) in declared_names(statement) {
            self.push(line, statement, &name, what, false);
        }
    }

    /// Reports each keyword name once: at its first declaration, else in the port list.
    pub(super) fn flush(&mut self, out: &mut Vec<Hazard>) {
        let hits = std::mem::take(&mut self.hits);
        let mut done: Vec<&str> = vec![];
        for h in &hits {
            if done.contains(&h.name.as_str()) {
                continue;
            }
            done.push(&h.name);
            let h = hits
                .iter()
                .find(|o| o.name == h.name && !o.in_header)
                .unwrap_or(h);
            let fix = if h.what == Declared::Module {
                "rename the module"
            } else {
                "rename the Rust field/port"
            };
            out.push(Hazard {
                kind: HazardKind::Keyword,
                module: self.module.clone(),
                line: h.line,
                statement: h.statement.clone(),
                detail: format!(
                    "{} `{}` is a reserved word of Verilog-2005/SystemVerilog-2017 and cannot \
                     be a Verilog name; {fix}",
                    h.what.noun(),
                    h.name
                ),
            });
        }
    }
}

pub(super) fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// A simple Verilog identifier: a letter or `_`, then letters, digits, `_` and `$`.
pub(super) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(is_ident_char)
}

/// The identifier at the start of `s` (empty if none).
pub(super) fn leading_identifier(s: &str) -> &str {
    if !s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        return "";
    }
    let end = s.find(|c: char| !is_ident_char(c)).unwrap_or(s.len());
    &s[..end]
}

/// `s` without a `//` comment.
pub(super) fn strip_comment(s: &str) -> &str {
    s.split_once("//").map_or(s, |(code, _)| code)
}

/// Splits `s` at the commas outside brackets, parentheses, braces and string literals.
pub(super) fn split_top_level(s: &str) -> Vec<&str> {
    let mut out = vec![];
    let mut depth = 0i32;
    let mut in_string = false;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '"' => in_string = !in_string,
            _ if in_string => {}
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// The words of one declarator before its initializer, without ranges and dimensions:
/// `input wire  [3:0] x` → `[input, wire, x]`, `reg[64:0] mem[63:0]` → `[reg, mem]`,
/// `localparam  k = 4'h3` → `[localparam, k]`.
pub(super) fn declarator_words(s: &str) -> Vec<&str> {
    let mut words = vec![];
    let mut depth = 0i32;
    let mut start: Option<usize> = None;
    for (i, c) in s.char_indices() {
        let word_char = depth == 0 && is_ident_char(c);
        if !word_char {
            if let Some(b) = start.take() {
                words.push(&s[b..i]);
            }
        }
        match c {
            '[' | '(' | '{' => depth += 1,
            ']' | ')' | '}' => depth -= 1,
            '=' if depth == 0 => return words,
            _ if word_char && start.is_none() => start = Some(i),
            _ => {}
        }
    }
    if let Some(b) = start {
        words.push(&s[b..]);
    }
    words
}

/// The first word of a declaration, and what the declared names are.
pub(super) fn declaration_kind(word: &str) -> Option<Declared> {
    Some(match word {
        "input" | "output" | "inout" => Declared::Port,
        "localparam" | "parameter" | "specparam" => Declared::Constant,
        "reg" | "wire" | "logic" | "uwire" | "tri" | "integer" | "genvar" | "real" | "realtime"
        | "time" => Declared::Signal,
        _ => return None,
    })
}

/// The names declared by one line: every declarator of a declaration (`reg a, b;`,
/// `input wire  [3:0] x;`, `localparam  k = 4'h3;`, an ANSI port line `input D,`), or the
/// instance name of `kind name(`, `kind #(...) name(` or the `) name (` that closes a
/// multi-line parameter list. Keywords in keyword positions are never returned.
pub(super) fn declared_names(line: &str) -> Vec<(String, Declared)> {
    let body = strip_comment(line).trim();
    let body = body.trim_end_matches([';', ',', ')', ' ']);
    let first = leading_identifier(body);
    if let Some(what) = declaration_kind(first) {
        let mut out = vec![];
        for (i, seg) in split_top_level(body).into_iter().enumerate() {
            let words = declarator_words(seg);
            // `input = x;` assigns a signal named `input`: its declaration is what is flagged.
            if i == 0 && words.len() < 2 {
                return vec![];
            }
            if let Some(name) = words.last().filter(|w| is_identifier(w)) {
                out.push((name.to_string(), what));
            }
        }
        return out;
    }
    instance_name(strip_comment(line).trim())
        .map(|n| vec![(n.to_string(), Declared::Instance)])
        .unwrap_or_default()
}

/// The instance name of `kind name(`, `kind #(...) name (` or `) name (`.
pub(super) fn instance_name(line: &str) -> Option<&str> {
    let rest = match line.strip_prefix(')') {
        Some(r) => r.trim_start(),
        None => {
            let kind = leading_identifier(line);
            if kind.is_empty() || is_verilog_keyword(kind) {
                return None;
            }
            let mut r = line[kind.len()..].trim_start();
            if let Some(p) = r.strip_prefix('#') {
                let p = p.trim_start();
                r = p[matching_paren(p)? + 1..].trim_start();
            }
            r
        }
    };
    let name = leading_identifier(rest);
    let after = rest[name.len()..].trim_start();
    (!name.is_empty() && after.starts_with('(')).then_some(name)
}
