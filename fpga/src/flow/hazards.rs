//! Checks for the two rust-hdl emission hazards that no tool reports.
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
//! Only the generated `// Update code` blocks are scanned (not `(custom)` Verilog such as
//! rust-hdl's DFF and RAM), one statement per line, as rust-hdl prints them. This is a
//! rust-hdl-specific check, not a general Verilog linter.
use std::collections::HashMap;
use std::fmt;

/// What kind of Rust/Verilog mismatch was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HazardKind {
    /// A comparison mixed with `& | ^` without parentheses.
    Precedence,
    /// Arithmetic evaluated wider than in Rust, in a context that observes the extra bits.
    LiteralWidening,
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
    /// Explanation naming the operator or sub-expression.
    pub detail: String,
}

impl fmt::Display for Hazard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            HazardKind::Precedence => "precedence",
            HazardKind::LiteralWidening => "literal widening",
        };
        write!(
            f,
            "line {} in module {}: {kind}: {} [{}]",
            self.line, self.module, self.detail, self.statement
        )
    }
}

/// Scans rust-hdl Verilog for precedence and widening hazards.
pub fn scan(verilog: &str) -> Vec<Hazard> {
    let mut out = vec![];
    let mut module: Option<String> = None;
    let mut widths: HashMap<String, u32> = HashMap::new();
    let mut in_update = false;
    for (i, raw) in verilog.lines().enumerate() {
        let line = raw.trim();
        if let Some(rest) = line.strip_prefix("module ") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
                .collect();
            module = Some(name);
            widths.clear();
            in_update = false;
            continue;
        }
        let Some(m) = module.as_ref() else { continue };
        if line.starts_with("endmodule") {
            module = None;
            in_update = false;
            continue;
        }
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
}
