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

fn max_opt(a: Option<u32>, b: Option<u32>) -> Option<u32> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// `input wire [15:0] name;`, `reg  name;`, `localparam k = 4'h3;` → (name, width).
fn declaration(line: &str) -> Option<(String, u32)> {
    let line = line.strip_suffix(';')?;
    let mut words = line.split_whitespace().peekable();
    let first = *words.peek()?;
    if first == "localparam" {
        words.next();
        let rest: Vec<&str> = words.collect();
        let joined = rest.join(" ");
        let (lhs, rhs) = joined.split_once('=')?;
        let lhs = lhs.trim();
        let (range, name) = match lhs.rsplit_once(' ') {
            Some((r, n)) => (Some(r), n),
            None => (None, lhs),
        };
        let w = match range.and_then(range_width) {
            Some(w) => w,
            None => literal_width(rhs.trim()).unwrap_or(32),
        };
        return Some((name.to_string(), w));
    }
    let mut width = 1;
    let mut seen_kind = false;
    let mut name = None;
    for w in words {
        match w {
            "input" | "output" | "inout" | "wire" | "reg" | "signed" => seen_kind = true,
            _ if w.starts_with('[') => width = range_width(w)?,
            _ => {
                if name.is_some() {
                    return None;
                }
                name = Some(w.to_string());
            }
        }
    }
    if !seen_kind {
        return None;
    }
    Some((name?, width))
}

/// `[15:0]` → 16.
fn range_width(r: &str) -> Option<u32> {
    let inner = r.trim().strip_prefix('[')?.strip_suffix(']')?;
    let (a, b) = inner.split_once(':')?;
    let a: i64 = a.trim().parse().ok()?;
    let b: i64 = b.trim().parse().ok()?;
    Some(((a - b).unsigned_abs() + 1) as u32)
}

/// `4'h3` → 4, `12` → 32 (unsized).
fn literal_width(s: &str) -> Option<u32> {
    match s.split_once('\'') {
        Some(("", _)) => Some(32),
        Some((w, _)) => w.trim().parse().ok(),
        None if s.chars().all(|c| c.is_ascii_digit() || c == '_') && !s.is_empty() => Some(32),
        None => None,
    }
}

enum Root<'a> {
    Assign(&'a str),
    Condition,
}

/// The expressions of one printed statement and how each is consumed.
fn statement_exprs(line: &str) -> Vec<(Root<'_>, &str)> {
    let line = line.strip_prefix("end ").unwrap_or(line).trim();
    let line = line.strip_prefix("else ").unwrap_or(line).trim();
    for kw in ["if", "case"] {
        if let Some(rest) = line.strip_prefix(kw) {
            let rest = rest.trim_start();
            if rest.starts_with('(') {
                if let Some(close) = matching_paren(rest) {
                    return vec![(Root::Condition, &rest[1..close])];
                }
            }
            return vec![];
        }
    }
    if let Some(body) = line.strip_suffix(';') {
        if let Some(eq) = find_assign_eq(body) {
            let lhs = body[..eq].trim();
            if lhs
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
            {
                return vec![(Root::Assign(lhs), body[eq + 1..].trim())];
            }
        }
    }
    vec![]
}

fn matching_paren(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Position of the assignment `=` (not part of `==`, `!=`, `<=`, `>=`).
fn find_assign_eq(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    for i in 0..b.len() {
        if b[i] == b'=' {
            let prev = if i > 0 { b[i - 1] } else { b' ' };
            let next = b.get(i + 1).copied().unwrap_or(b' ');
            if next != b'=' && !matches!(prev, b'=' | b'!' | b'<' | b'>') {
                return Some(i);
            }
        }
    }
    None
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// A number: its width (32 if unsized) and value when it fits.
    Num(u32, Option<u64>),
    Op(&'static str),
    LParen,
    RParen,
    LBracket,
    RBracket,
    PlusColon,
    Colon,
}

const OPS: [&str; 24] = [
    "===", "!==", "<<<", ">>>", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "~^", "^~", "+",
    "-", "*", "/", "%", "<", ">", "&", "|", "^",
];

fn tokenize(s: &str) -> Option<Vec<Tok>> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut out = vec![];
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' || c == '$' {
            let start = i;
            while i < b.len()
                && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$')
            {
                i += 1;
            }
            out.push(Tok::Ident(s[start..i].to_string()));
            continue;
        }
        if c.is_ascii_digit() || c == '\'' {
            let start = i;
            while i < b.len() && ((b[i] as char).is_ascii_digit() || b[i] == b'_') {
                i += 1;
            }
            let digits = &s[start..i];
            if i < b.len() && b[i] == b'\'' {
                i += 1;
                let base = b.get(i).map(|c| c.to_ascii_lowercase());
                let radix = match base {
                    Some(b'h') => 16,
                    Some(b'b') => 2,
                    Some(b'o') => 8,
                    _ => 10,
                };
                if radix != 10 || base == Some(b'd') {
                    i += 1;
                }
                let vstart = i;
                while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                let w = if digits.is_empty() {
                    32
                } else {
                    digits.parse().ok()?
                };
                let v = u64::from_str_radix(&s[vstart..i].replace('_', ""), radix).ok();
                out.push(Tok::Num(w, v));
            } else {
                out.push(Tok::Num(32, digits.replace('_', "").parse().ok()));
            }
            continue;
        }
        match c {
            '(' => out.push(Tok::LParen),
            ')' => out.push(Tok::RParen),
            '[' => out.push(Tok::LBracket),
            ']' => out.push(Tok::RBracket),
            ':' => out.push(Tok::Colon),
            '~' | '!' if !s[i..].starts_with("!=") && !s[i..].starts_with("~^") => {
                out.push(Tok::Op(if c == '~' { "~" } else { "!" }));
            }
            _ => {
                if s[i..].starts_with("+:") {
                    out.push(Tok::PlusColon);
                    i += 2;
                    continue;
                }
                let op = OPS.iter().find(|op| s[i..].starts_with(**op))?;
                out.push(Tok::Op(op));
                i += op.len();
                continue;
            }
        }
        i += 1;
    }
    Some(out)
}

fn is_comparison(op: &str) -> bool {
    matches!(op, "==" | "!=" | "===" | "!==" | "<" | "<=" | ">" | ">=")
}

fn is_bitwise(op: &str) -> bool {
    matches!(op, "&" | "|" | "^" | "~^" | "^~")
}

/// A binary `& | ^` and a comparison in the same parenthesis group: returns the bitwise op.
fn precedence_mix(tokens: &[Tok]) -> Option<&'static str> {
    // One frame per open group: (bitwise op seen, comparison seen).
    let mut frames: Vec<(Option<&'static str>, bool)> = vec![(None, false)];
    let mut prev_is_operand = false;
    for t in tokens {
        match t {
            Tok::LParen | Tok::LBracket => {
                frames.push((None, false));
                prev_is_operand = false;
            }
            Tok::RParen | Tok::RBracket => {
                let (bit, cmp) = frames.pop()?;
                if let (Some(op), true) = (bit, cmp) {
                    return Some(op);
                }
                prev_is_operand = true;
            }
            Tok::Op(op) => {
                let binary = prev_is_operand;
                let top = frames.last_mut()?;
                if binary && is_bitwise(op) {
                    top.0 = Some(op);
                }
                if is_comparison(op) {
                    top.1 = true;
                }
                prev_is_operand = false;
            }
            Tok::PlusColon | Tok::Colon => prev_is_operand = false,
            Tok::Ident(_) | Tok::Num(..) => prev_is_operand = true,
        }
    }
    match frames.pop()? {
        (Some(op), true) => Some(op),
        _ => None,
    }
}

#[derive(Clone, Debug)]
enum Expr {
    Ident(String),
    /// Width and value (when known).
    Lit(u32, Option<u64>),
    Unary(&'static str, Box<Expr>),
    Binary(&'static str, Box<Expr>, Box<Expr>),
    Index(Box<Expr>, Box<Expr>),
    Slice(Box<Expr>, Box<Expr>, u32),
    Call(Box<Expr>),
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Ident(n) => write!(f, "{n}"),
            Expr::Lit(w, Some(v)) => write!(f, "{w}'d{v}"),
            Expr::Lit(w, None) => write!(f, "{w}'d?"),
            Expr::Unary(op, e) => write!(f, "{op}{e}"),
            Expr::Binary(op, a, b) => write!(f, "({a} {op} {b})"),
            Expr::Index(a, i) => write!(f, "{a}[{i}]"),
            Expr::Slice(a, o, w) => write!(f, "{a}[{o}+:{w}]"),
            Expr::Call(e) => write!(f, "$cast({e})"),
        }
    }
}

fn binding_power(op: &str) -> Option<u8> {
    Some(match op {
        "||" => 1,
        "&&" => 2,
        "|" => 3,
        "^" | "~^" | "^~" => 4,
        "&" => 5,
        "==" | "!=" | "===" | "!==" => 6,
        "<" | "<=" | ">" | ">=" => 7,
        "<<" | ">>" | "<<<" | ">>>" => 8,
        "+" | "-" => 9,
        "*" | "/" | "%" => 10,
        _ => return None,
    })
}

struct Parser<'a> {
    toks: &'a [Tok],
    pos: usize,
}

impl<'a> Parser<'a> {
    fn new(toks: &'a [Tok]) -> Self {
        Parser { toks, pos: 0 }
    }

    fn parse_all(mut self) -> Option<Expr> {
        let e = self.expr(0)?;
        (self.pos == self.toks.len()).then_some(e)
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    fn expr(&mut self, min_bp: u8) -> Option<Expr> {
        let mut lhs = self.unary()?;
        while let Some(Tok::Op(op)) = self.peek() {
            let op: &'static str = op;
            let bp = binding_power(op)?;
            if bp <= min_bp {
                break;
            }
            self.pos += 1;
            let rhs = self.expr(bp)?;
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs));
        }
        Some(lhs)
    }

    fn unary(&mut self) -> Option<Expr> {
        match self.next()? {
            Tok::Op(op) if matches!(op, "~" | "!" | "-" | "&" | "|" | "^" | "+") => {
                let e = self.unary()?;
                Some(Expr::Unary(op, Box::new(e)))
            }
            Tok::LParen => {
                let e = self.expr(0)?;
                matches!(self.next()?, Tok::RParen).then_some(())?;
                self.postfix(e)
            }
            Tok::Num(w, v) => Some(Expr::Lit(w, v)),
            Tok::Ident(n) if n == "$signed" || n == "$unsigned" => {
                matches!(self.next()?, Tok::LParen).then_some(())?;
                let e = self.expr(0)?;
                matches!(self.next()?, Tok::RParen).then_some(())?;
                Some(Expr::Call(Box::new(e)))
            }
            Tok::Ident(n) => self.postfix(Expr::Ident(n)),
            _ => None,
        }
    }

    fn postfix(&mut self, mut e: Expr) -> Option<Expr> {
        while let Some(Tok::LBracket) = self.peek() {
            self.pos += 1;
            let idx = self.expr(0)?;
            match self.next()? {
                Tok::RBracket => e = Expr::Index(Box::new(e), Box::new(idx)),
                Tok::PlusColon => {
                    let w = match self.expr(0)? {
                        Expr::Lit(_, Some(v)) => u32::try_from(v).ok()?,
                        _ => return None,
                    };
                    matches!(self.next()?, Tok::RBracket).then_some(())?;
                    e = Expr::Slice(Box::new(e), Box::new(idx), w);
                }
                Tok::Colon => {
                    // [msb:lsb]: rust-hdl never prints it; give up on the statement.
                    return None;
                }
                _ => return None,
            }
        }
        Some(e)
    }
}

struct Scope<'a> {
    widths: &'a HashMap<String, u32>,
}

impl Scope<'_> {
    /// Verilog's self-determined width (literals included).
    fn self_width(&self, e: &Expr) -> Option<u32> {
        match e {
            Expr::Ident(n) => self.widths.get(n).copied(),
            Expr::Lit(w, _) => Some(*w),
            Expr::Unary(op, x) => match *op {
                "~" | "-" | "+" => self.self_width(x),
                _ => Some(1),
            },
            Expr::Binary(op, a, b) => {
                if is_comparison(op) || *op == "&&" || *op == "||" {
                    Some(1)
                } else if matches!(*op, "<<" | ">>" | "<<<" | ">>>") {
                    self.self_width(a)
                } else {
                    max_opt(self.self_width(a), self.self_width(b))
                }
            }
            Expr::Index(..) => Some(1),
            Expr::Slice(_, _, w) => Some(*w),
            Expr::Call(x) => self.self_width(x),
        }
    }

    /// The width Rust computes `e` in: literals do not widen a Rust `Bits<N>` expression.
    fn typed_width(&self, e: &Expr) -> Option<u32> {
        match e {
            Expr::Ident(n) => self.widths.get(n).copied(),
            Expr::Lit(..) => None,
            Expr::Unary(op, x) => match *op {
                "~" | "-" | "+" => self.typed_width(x),
                _ => Some(1),
            },
            Expr::Binary(op, a, b) => {
                if is_comparison(op) || *op == "&&" || *op == "||" {
                    Some(1)
                } else if matches!(*op, "<<" | ">>" | "<<<" | ">>>") {
                    self.typed_width(a)
                } else if *op == "*" {
                    // rust-hdl's only multiply is 16 x 16 -> 32: the product is full width.
                    match (self.typed_width(a), self.typed_width(b)) {
                        (Some(x), Some(y)) => Some(x + y),
                        (x, y) => max_opt(x, y),
                    }
                } else {
                    max_opt(self.typed_width(a), self.typed_width(b))
                }
            }
            Expr::Index(..) => Some(1),
            Expr::Slice(_, _, w) => Some(*w),
            Expr::Call(x) => self.typed_width(x),
        }
    }

    /// Walks `e`, evaluated in `width` bits, `observed` if bits above its Rust width matter.
    fn visit(
        &self,
        e: &Expr,
        width: Option<u32>,
        observed: bool,
        out: &mut Vec<(String, u32, u32)>,
    ) {
        match e {
            Expr::Ident(_) | Expr::Lit(..) => {}
            Expr::Unary(op, x) => match *op {
                "~" | "-" | "+" => self.visit(x, width, observed, out),
                _ => self.visit(x, self.self_width(x), true, out),
            },
            Expr::Binary(op, a, b) => {
                let op = *op;
                if is_comparison(op) {
                    let w = max_opt(self.self_width(a), self.self_width(b));
                    self.visit(a, w, true, out);
                    self.visit(b, w, true, out);
                } else if op == "&&" || op == "||" {
                    self.visit(a, self.self_width(a), true, out);
                    self.visit(b, self.self_width(b), true, out);
                } else if matches!(op, "<<" | ">>" | "<<<" | ">>>") {
                    if op == "<<" || op == "<<<" {
                        self.check(e, width, observed, out);
                    }
                    let shifts_down = op.starts_with(">>");
                    self.visit(a, width, observed || shifts_down, out);
                    self.visit(b, self.self_width(b), true, out);
                } else {
                    if matches!(op, "+" | "-" | "*") {
                        self.check(e, width, observed, out);
                    }
                    // `/` and `%` are never printed by rust-hdl; treat them as observing.
                    let obs = observed || matches!(op, "/" | "%");
                    self.visit(a, width, obs, out);
                    self.visit(b, width, obs, out);
                }
            }
            Expr::Index(base, idx) => {
                self.visit(base, self.self_width(base), observed, out);
                self.visit(idx, self.self_width(idx), true, out);
            }
            Expr::Slice(base, off, _) => {
                self.visit(base, self.self_width(base), observed, out);
                self.visit(off, self.self_width(off), true, out);
            }
            Expr::Call(x) => self.visit(x, self.self_width(x), observed, out),
        }
    }

    fn check(
        &self,
        e: &Expr,
        width: Option<u32>,
        observed: bool,
        out: &mut Vec<(String, u32, u32)>,
    ) {
        if !observed {
            return;
        }
        if let (Some(t), Some(w)) = (self.typed_width(e), width) {
            if w > t {
                out.push((e.to_string(), t, w));
            }
        }
    }
}

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
enum Declared {
    Module,
    Port,
    Signal,
    Constant,
    Instance,
}

impl Declared {
    fn noun(self) -> &'static str {
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
struct KeywordHit {
    name: String,
    what: Declared,
    line: usize,
    statement: String,
    in_header: bool,
}

/// The keyword names declared in the module being scanned, reported at its end.
#[derive(Default)]
struct KeywordNames {
    module: String,
    hits: Vec<KeywordHit>,
}

impl KeywordNames {
    fn push(&mut self, line: usize, statement: &str, name: &str, what: Declared, header: bool) {
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
    fn module_header(&mut self, line: usize, statement: &str, name: &str, rest: &str) {
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
    fn declarations(&mut self, line: usize, statement: &str) {
        for (name, what) in declared_names(statement) {
            self.push(line, statement, &name, what, false);
        }
    }

    /// Reports each keyword name once: at its first declaration, else in the port list.
    fn flush(&mut self, out: &mut Vec<Hazard>) {
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

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// A simple Verilog identifier: a letter or `_`, then letters, digits, `_` and `$`.
fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(is_ident_char)
}

/// The identifier at the start of `s` (empty if none).
fn leading_identifier(s: &str) -> &str {
    if !s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        return "";
    }
    let end = s.find(|c: char| !is_ident_char(c)).unwrap_or(s.len());
    &s[..end]
}

/// `s` without a `//` comment.
fn strip_comment(s: &str) -> &str {
    s.split_once("//").map_or(s, |(code, _)| code)
}

/// Splits `s` at the commas outside brackets, parentheses, braces and string literals.
fn split_top_level(s: &str) -> Vec<&str> {
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
fn declarator_words(s: &str) -> Vec<&str> {
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
fn declaration_kind(word: &str) -> Option<Declared> {
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
fn declared_names(line: &str) -> Vec<(String, Declared)> {
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
fn instance_name(line: &str) -> Option<&str> {
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

#[cfg(test)]
mod tests {
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
