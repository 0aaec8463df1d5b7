//! The two expression hazards: a comparison mixed with `& | ^` ([`precedence_mix`]) and
//! arithmetic widened by 32-bit literals where the extra bits are observed ([`Scope::visit`]),
//! over a small Pratt parser of the printed expressions ([`Parser`]).
use super::lexer::Tok;
use std::collections::HashMap;
use std::fmt;

pub(super) fn max_opt(a: Option<u32>, b: Option<u32>) -> Option<u32> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

pub(super) fn is_comparison(op: &str) -> bool {
    matches!(op, "==" | "!=" | "===" | "!==" | "<" | "<=" | ">" | ">=")
}

pub(super) fn is_bitwise(op: &str) -> bool {
    matches!(op, "&" | "|" | "^" | "~^" | "^~")
}

/// A binary `& | ^` and a comparison in the same parenthesis group: returns the bitwise op.
pub(super) fn precedence_mix(tokens: &[Tok]) -> Option<&'static str> {
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
pub(super) enum Expr {
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

pub(super) fn binding_power(op: &str) -> Option<u8> {
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

pub(super) struct Parser<'a> {
    toks: &'a [Tok],
    pos: usize,
}

impl<'a> Parser<'a> {
    pub(super) fn new(toks: &'a [Tok]) -> Self {
        Parser { toks, pos: 0 }
    }

    pub(super) fn parse_all(mut self) -> Option<Expr> {
        let e = self.expr(0)?;
        (self.pos == self.toks.len()).then_some(e)
    }

    pub(super) fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    pub(super) fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    pub(super) fn expr(&mut self, min_bp: u8) -> Option<Expr> {
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

    pub(super) fn unary(&mut self) -> Option<Expr> {
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

    pub(super) fn postfix(&mut self, mut e: Expr) -> Option<Expr> {
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

pub(super) struct Scope<'a> {
    pub(super) widths: &'a HashMap<String, u32>,
}

impl Scope<'_> {
    /// Verilog's self-determined width (literals included).
    pub(super) fn self_width(&self, e: &Expr) -> Option<u32> {
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
    pub(super) fn typed_width(&self, e: &Expr) -> Option<u32> {
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
    pub(super) fn visit(
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

    pub(super) fn check(
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
