//! The lexer of printed rust-hdl statements: what one line of an `// Update code` block
//! assigns or tests ([`statement_exprs`]), its tokens ([`tokenize`]), and the widths that the
//! module's declarations give its names ([`declaration`]).

/// `input wire [15:0] name;`, `reg  name;`, `localparam k = 4'h3;` → (name, width).
pub(super) fn declaration(line: &str) -> Option<(String, u32)> {
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
pub(super) fn range_width(r: &str) -> Option<u32> {
    let inner = r.trim().strip_prefix('[')?.strip_suffix(']')?;
    let (a, b) = inner.split_once(':')?;
    let a: i64 = a.trim().parse().ok()?;
    let b: i64 = b.trim().parse().ok()?;
    Some(((a - b).unsigned_abs() + 1) as u32)
}

/// `4'h3` → 4, `12` → 32 (unsized).
pub(super) fn literal_width(s: &str) -> Option<u32> {
    match s.split_once('\'') {
        Some(("", _)) => Some(32),
        Some((w, _)) => w.trim().parse().ok(),
        None if s.chars().all(|c| c.is_ascii_digit() || c == '_') && !s.is_empty() => Some(32),
        None => None,
    }
}

pub(super) enum Root<'a> {
    Assign(&'a str),
    Condition,
}

/// The expressions of one printed statement and how each is consumed.
pub(super) fn statement_exprs(line: &str) -> Vec<(Root<'_>, &str)> {
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

pub(super) fn matching_paren(s: &str) -> Option<usize> {
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
pub(super) fn find_assign_eq(s: &str) -> Option<usize> {
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
pub(super) enum Tok {
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

pub(super) const OPS: [&str; 24] = [
    "===", "!==", "<<<", ">>>", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "~^", "^~", "+",
    "-", "*", "/", "%", "<", ">", "&", "|", "^",
];

pub(super) fn tokenize(s: &str) -> Option<Vec<Tok>> {
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
