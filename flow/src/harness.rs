//! The measurement harness: generated Verilog that lets nextpnr time a block whose ports are
//! too many for the package's pins.
//!
//! Written from the block's port list ([`parse_ports`] reads the `input`/`output` declarations
//! of the top module, ANSI or not, with literal widths), the harness has two pins, `clk` (the
//! board clock, P7) and `out` (LED0, J11):
//!
//! - a free-running 32-bit LFSR feeds a shift register with one flip-flop per block input bit
//!   (32 new bits per cycle; no LUT between them), so every input comes from a flip-flop;
//! - every output bit is registered, and the registers are folded by a tree of *registered*
//!   4-input XORs (one LUT level per stage) into `out`, so nothing can be optimized away and
//!   every block path is register to register;
//! - with [`Outputs::Folded`] (for blocks whose outputs would not fit the device twice over),
//!   the outputs are not registered one by one: the first registered XOR stage reads them
//!   directly, so each output path gains one LUT before its flip-flop (which shares the LUT's
//!   logic cell) and the harness needs a quarter of the flip-flops;
//! - with [`Inputs::Lfsr`], the inputs read the LFSR directly (word k of the input bits is the
//!   LFSR rotated by k), without a flip-flop of their own: still register to register, with
//!   the LFSR's bits fanned out, for blocks whose input flip-flops would not fit beside them;
//! - every 1-bit input that looks like a clock (`clock`, `clk`, `*$clock`, `*_clock`, `*_clk`,
//!   `clk_i`, or the names given) is tied to `clk`.
//!
//! The harness's own paths are a single LUT at most, far faster than a block path, so the
//! Fmax nextpnr reports is the block's. Its cells are in the placed design (and in
//! `placed_lcs` of [`crate::measure::BlockCost`]) but not in the block's LUT/FF/BRAM figures,
//! which come from synthesizing the block alone. This is generated measurement scaffolding,
//! not chip hardware.
use crate::target::Target;
use anyhow::{bail, Context, Result};
use std::fmt::Write as _;

/// Direction of a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// `input`.
    Input,
    /// `output`.
    Output,
    /// `inout` (not supported by the harness).
    Inout,
}

/// One port of a module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    /// Name as declared (rust-hdl names may contain `$`).
    pub name: String,
    /// Direction.
    pub dir: Direction,
    /// Width in bits.
    pub width: u32,
}

/// Removes `//` and `/* */` comments.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                i += 1;
            }
            i += 2;
            out.push(' ');
        } else {
            let ch = text[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Word(String),
    Punct(char),
}

fn tokens(text: &str) -> Vec<Tok> {
    let mut out = vec![];
    let mut word = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '\'' {
            word.push(c);
        } else {
            if !word.is_empty() {
                out.push(Tok::Word(std::mem::take(&mut word)));
            }
            if !c.is_whitespace() {
                out.push(Tok::Punct(c));
            }
        }
    }
    if !word.is_empty() {
        out.push(Tok::Word(word));
    }
    out
}

const TYPE_WORDS: [&str; 7] = ["wire", "reg", "logic", "var", "signed", "unsigned", "tri"];

/// The ports of module `top` in `verilog`, in declaration order.
///
/// Widths must be literal (`[15:0]`); a parameterized range is an error that suggests
/// measuring a wrapper with literal widths.
pub fn parse_ports(verilog: &str, top: &str) -> Result<Vec<Port>> {
    let toks = tokens(&strip_comments(verilog));
    let start = toks
        .windows(2)
        .position(|w| w[0] == Tok::Word("module".into()) && w[1] == Tok::Word(top.into()))
        .with_context(|| format!("no module {top}"))?;
    let end = toks[start..]
        .iter()
        .position(|t| *t == Tok::Word("endmodule".into()))
        .map(|e| start + e)
        .with_context(|| format!("module {top} has no endmodule"))?;
    let body = &toks[start + 2..end];
    let mut ports = vec![];
    let mut i = 0;
    while i < body.len() {
        let dir = match &body[i] {
            Tok::Word(w) if w == "input" => Direction::Input,
            Tok::Word(w) if w == "output" => Direction::Output,
            Tok::Word(w) if w == "inout" => Direction::Inout,
            _ => {
                i += 1;
                continue;
            }
        };
        i += 1;
        while matches!(body.get(i), Some(Tok::Word(w)) if TYPE_WORDS.contains(&w.as_str())) {
            i += 1;
        }
        let mut width = 1;
        if body.get(i) == Some(&Tok::Punct('[')) {
            let close = body[i..]
                .iter()
                .position(|t| *t == Tok::Punct(']'))
                .map(|c| i + c)
                .context("unclosed [ in a port declaration")?;
            let range = &body[i + 1..close];
            width = match range {
                [Tok::Word(a), Tok::Punct(':'), Tok::Word(b)] => {
                    match (a.parse::<i64>(), b.parse::<i64>()) {
                        (Ok(a), Ok(b)) => ((a - b).unsigned_abs() + 1) as u32,
                        _ => bail!(
                            "a port of {top} has a non-literal range [{a}:{b}]; measure a wrapper \
                             with literal widths"
                        ),
                    }
                }
                _ => bail!(
                    "a port of {top} has a range that is not [msb:lsb] with literals; measure a \
                     wrapper with literal widths"
                ),
            };
            i = close + 1;
        }
        // One or more names, separated by commas, until `;`, `)` or the next declaration.
        loop {
            match body.get(i) {
                Some(Tok::Word(name))
                    if !matches!(name.as_str(), "input" | "output" | "inout")
                        && !TYPE_WORDS.contains(&name.as_str()) =>
                {
                    ports.push(Port {
                        name: name.clone(),
                        dir,
                        width,
                    });
                    i += 1;
                }
                _ => break,
            }
            if body.get(i) == Some(&Tok::Punct(',')) {
                i += 1;
            } else {
                break;
            }
        }
    }
    if ports.is_empty() {
        bail!("module {top} declares no ports");
    }
    Ok(ports)
}

/// Whether a 1-bit input name looks like a clock.
pub fn looks_like_clock(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == "clock"
        || n == "clk"
        || n == "clk_i"
        || n.ends_with("$clock")
        || n.ends_with("_clock")
        || n.ends_with("_clk")
}

/// A generated harness.
#[derive(Clone, Debug)]
pub struct Harness {
    /// Its top module (`hpcnet_harness`).
    pub top: String,
    /// Verilog text (instantiates the block; compile it with the block's sources).
    pub verilog: String,
    /// Block inputs tied to the clock.
    pub clocks: Vec<String>,
    /// Block input bits driven from stimulus flip-flops.
    pub input_bits: u32,
    /// Block output bits registered and folded.
    pub output_bits: u32,
}

impl Harness {
    /// Pin constraints for `target`: `clk` and `out` on the part's harness pins
    /// ([`Target::harness_pins`]: the reference board's clock and first LED).
    pub fn constraints(&self, target: Target) -> String {
        let (clk, out) = target.harness_pins();
        target.constraints(&[("clk", clk), ("out", out)])
    }
}

/// Name of the harness's top module.
pub const HARNESS_TOP: &str = "hpcnet_harness";

/// How the harness drives the block's inputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Inputs {
    /// One shift-register flip-flop per input bit, fed 32 bits per cycle by the LFSR.
    #[default]
    Shifted,
    /// Straight from the 32 LFSR flip-flops, each 32-bit word of inputs rotated by its index.
    Lfsr,
}

/// How the harness captures the block's outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Outputs {
    /// Every output bit in its own flip-flop, then the registered XOR tree (the default: the
    /// block's output paths end at a flip-flop with no logic in between).
    #[default]
    Registered,
    /// The first registered 4-input XOR reads the outputs directly: one LUT more on each
    /// output path, a quarter of the flip-flops. For blocks with hundreds of output bits.
    Folded,
}

/// Generates the harness for `block` with `ports`; `clocks` names the clock inputs, or `None`
/// to recognize them by name ([`looks_like_clock`]).
pub fn generate(block: &str, ports: &[Port], clocks: Option<&[String]>) -> Result<Harness> {
    generate_with(block, ports, clocks, Inputs::Shifted, Outputs::Registered)
}

/// Like [`generate`], with the output capture `outputs`.
pub fn generate_with(
    block: &str,
    ports: &[Port],
    clocks: Option<&[String]>,
    inputs_style: Inputs,
    outputs_style: Outputs,
) -> Result<Harness> {
    if let Some(p) = ports.iter().find(|p| p.dir == Direction::Inout) {
        bail!(
            "port {} of {block} is inout; the harness cannot drive it",
            p.name
        );
    }
    let is_clock = |p: &Port| -> bool {
        p.dir == Direction::Input
            && match clocks {
                Some(names) => names.contains(&p.name),
                None => p.width == 1 && looks_like_clock(&p.name),
            }
    };
    if let Some(names) = clocks {
        for n in names {
            if !ports
                .iter()
                .any(|p| p.name == *n && p.dir == Direction::Input)
            {
                bail!("clock {n} is not an input of {block}");
            }
        }
    }
    let clock_names: Vec<String> = ports
        .iter()
        .filter(|p| is_clock(p))
        .map(|p| p.name.clone())
        .collect();
    if clock_names.is_empty() {
        bail!("no clock input found in {block}; name it in the measure options");
    }
    let inputs: Vec<&Port> = ports
        .iter()
        .filter(|p| p.dir == Direction::Input && !is_clock(p))
        .collect();
    let outputs: Vec<&Port> = ports
        .iter()
        .filter(|p| p.dir == Direction::Output)
        .collect();
    let n: u32 = inputs.iter().map(|p| p.width).sum();
    let m: u32 = outputs.iter().map(|p| p.width).sum();
    if m == 0 {
        bail!("{block} has no outputs: nothing to measure");
    }

    let mut v = String::new();
    let w = &mut v;
    writeln!(
        w,
        "// Measurement harness for `{block}`, generated by hpcnet flow::harness."
    )?;
    writeln!(
        w,
        "// Measurement scaffolding, not chip hardware: LFSR-fed flip-flops drive every"
    )?;
    writeln!(
        w,
        "// input ({n} bits), every output ({m} bits) is registered and XOR-folded through"
    )?;
    writeln!(
        w,
        "// registered 4-input XORs into `out`, so every path of the block is reg-to-reg."
    )?;
    writeln!(w, "`default_nettype none")?;
    writeln!(w, "module {HARNESS_TOP} (")?;
    writeln!(w, "    input  wire clk,")?;
    writeln!(w, "    output wire out")?;
    writeln!(w, ");")?;
    writeln!(w, "    reg [31:0] lfsr = 32'h1;")?;
    writeln!(w, "    always @(posedge clk)")?;
    writeln!(
        w,
        "        lfsr <= {{lfsr[30:0], 1'b0}} ^ ({{32{{lfsr[31]}}}} & 32'h04c11db7);"
    )?;
    if n > 0 && inputs_style == Inputs::Lfsr {
        let words: Vec<String> = (0..n.div_ceil(32))
            .rev()
            .map(|k| {
                let r = k % 32;
                if r == 0 {
                    "lfsr".to_string()
                } else {
                    format!("{{lfsr[{}:0], lfsr[31:{}]}}", r - 1, r)
                }
            })
            .collect();
        writeln!(
            w,
            "    wire [{}:0] stim_all = {{{}}};",
            32 * n.div_ceil(32) - 1,
            words.join(", ")
        )?;
        writeln!(w, "    wire [{}:0] stim = stim_all[{}:0];", n - 1, n - 1)?;
    } else if n > 0 {
        writeln!(w, "    reg [{}:0] stim = {n}'b0;", n - 1)?;
        if n > 32 {
            writeln!(
                w,
                "    always @(posedge clk) stim <= {{stim[{}:0], lfsr}};",
                n - 33
            )?;
        } else {
            writeln!(w, "    always @(posedge clk) stim <= lfsr[{}:0];", n - 1)?;
        }
    }
    writeln!(w, "    wire [{}:0] resp;", m - 1)?;
    writeln!(w, "    {block} dut (")?;
    let mut conns = vec![];
    for c in &clock_names {
        conns.push(format!("        .{c}(clk)"));
    }
    let mut at = 0;
    for p in &inputs {
        conns.push(format!(
            "        .{}(stim[{}:{}])",
            p.name,
            at + p.width - 1,
            at
        ));
        at += p.width;
    }
    let mut at = 0;
    for p in &outputs {
        conns.push(format!(
            "        .{}(resp[{}:{}])",
            p.name,
            at + p.width - 1,
            at
        ));
        at += p.width;
    }
    writeln!(w, "{}", conns.join(",\n"))?;
    writeln!(w, "    );")?;
    match outputs_style {
        Outputs::Registered => {
            writeln!(w, "    reg [{}:0] fold0 = {m}'b0;", m - 1)?;
            writeln!(w, "    always @(posedge clk) fold0 <= resp;")?;
        }
        Outputs::Folded => writeln!(w, "    wire [{}:0] fold0 = resp;", m - 1)?,
    }
    let mut width = m;
    let mut level = 0;
    while width > 1 {
        let next = width.div_ceil(4);
        writeln!(w, "    reg [{}:0] fold{} = {next}'b0;", next - 1, level + 1)?;
        writeln!(w, "    always @(posedge clk) begin")?;
        for j in 0..next {
            let lo = 4 * j;
            let hi = (lo + 3).min(width - 1);
            writeln!(
                w,
                "        fold{}[{j}] <= ^fold{level}[{hi}:{lo}];",
                level + 1
            )?;
        }
        writeln!(w, "    end")?;
        width = next;
        level += 1;
    }
    writeln!(w, "    assign out = fold{level}[0];")?;
    writeln!(w, "endmodule")?;
    writeln!(w, "`default_nettype wire")?;

    Ok(Harness {
        top: HARNESS_TOP.into(),
        verilog: v,
        clocks: clock_names,
        input_bits: n,
        output_bits: m,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUST_HDL: &str = "module skid(clock,reset,sink$valid,sink$data,sink$ready,source$valid,source$data,source$ready);\n    // Module arguments\n    input wire  clock;\n    input wire  reset;\n    input wire  sink$valid;\n    input wire  [15:0] sink$data;\n    output reg  sink$ready;\n    output reg  source$valid;\n    output reg  [15:0] source$data;\n    input wire  source$ready;\n    reg  a_valid$d;\n    skid$a_valid a_valid(\n        .d(a_valid$d)\n    );\nendmodule // skid\nmodule skid$a_valid(d,q,clock);\n    input wire  d;\n    output reg  q;\n    input wire  clock;\nendmodule\n";

    const ANSI: &str = "/* header */\n`default_nettype none\nmodule ref_x (\n    input  wire        clk, // clock\n    input  wire        rst,\n    input  wire [63:0] data, valid_n,\n    output wire [31:0] crc\n);\n    wire [31:0] state;\nendmodule\n";

    #[test]
    fn parses_rust_hdl_ports() {
        let p = parse_ports(RUST_HDL, "skid").unwrap();
        let names: Vec<&str> = p.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "clock",
                "reset",
                "sink$valid",
                "sink$data",
                "sink$ready",
                "source$valid",
                "source$data",
                "source$ready"
            ]
        );
        assert_eq!(p[3].width, 16);
        assert_eq!(p[4].dir, Direction::Output);
        // Child modules are not mixed in.
        assert_eq!(parse_ports(RUST_HDL, "skid$a_valid").unwrap().len(), 3);
    }

    #[test]
    fn parses_ansi_ports() {
        let p = parse_ports(ANSI, "ref_x").unwrap();
        let got: Vec<(&str, u32, Direction)> = p
            .iter()
            .map(|p| (p.name.as_str(), p.width, p.dir))
            .collect();
        assert_eq!(
            got,
            [
                ("clk", 1, Direction::Input),
                ("rst", 1, Direction::Input),
                ("data", 64, Direction::Input),
                ("valid_n", 64, Direction::Input),
                ("crc", 32, Direction::Output)
            ]
        );
    }

    #[test]
    fn rejects_parameterized_ranges() {
        let v = "module p #(parameter W = 8) (input wire clk, input wire [W-1:0] a, output wire b);\nendmodule\n";
        let e = parse_ports(v, "p").unwrap_err().to_string();
        assert!(e.contains("wrapper"), "{e}");
        assert!(parse_ports(v, "nope").is_err());
    }

    #[test]
    fn folded_harness_xors_outputs_before_the_first_register() {
        let p = parse_ports(RUST_HDL, "skid").unwrap();
        let r = generate("skid", &p, None).unwrap();
        let f = generate_with("skid", &p, None, Inputs::Shifted, Outputs::Folded).unwrap();
        assert!(r.verilog.contains("always @(posedge clk) fold0 <= resp;"));
        assert!(!f.verilog.contains("fold0 <= resp"));
        assert!(f.verilog.contains("wire [17:0] fold0 = resp;"));
        // The same tree follows: 18 -> 5 -> 2 -> 1.
        assert!(f.verilog.contains("fold1[4] <= ^fold0[17:16];"));
        assert!(f.verilog.contains("assign out = fold3[0];"));
        assert_eq!((f.input_bits, f.output_bits), (r.input_bits, r.output_bits));
    }

    #[test]
    fn lfsr_inputs_need_no_flip_flops_of_their_own() {
        let p = parse_ports(ANSI, "ref_x").unwrap();
        let h = generate_with("ref_x", &p, None, Inputs::Lfsr, Outputs::Registered).unwrap();
        assert_eq!(h.input_bits, 1 + 64 + 64);
        assert!(!h.verilog.contains("reg [128:0] stim"));
        // Five words, each the LFSR rotated by its index.
        assert!(h.verilog.contains(
            "wire [159:0] stim_all = {{lfsr[3:0], lfsr[31:4]}, {lfsr[2:0], lfsr[31:3]}, {lfsr[1:0], lfsr[31:2]}, {lfsr[0:0], lfsr[31:1]}, lfsr};"
        ));
        assert!(h.verilog.contains("wire [128:0] stim = stim_all[128:0];"));
    }

    #[test]
    fn harness_drives_and_folds_everything() {
        let p = parse_ports(RUST_HDL, "skid").unwrap();
        let h = generate("skid", &p, None).unwrap();
        assert_eq!(h.clocks, ["clock"]);
        assert_eq!(h.input_bits, 1 + 1 + 16 + 1);
        assert_eq!(h.output_bits, 1 + 1 + 16);
        assert!(h.verilog.contains(".clock(clk)"));
        assert!(h.verilog.contains(".sink$data(stim[17:2])"));
        assert!(h.verilog.contains(".source$data(resp[17:2])"));
        // 18 -> 5 -> 2 -> 1: three registered XOR levels.
        assert!(h.verilog.contains("fold3[0] <= ^fold2[1:0];"));
        assert!(h.verilog.contains("assign out = fold3[0];"));
        assert_eq!(
            h.constraints(Target::Ice40),
            "set_io clk P7\nset_io out J11\n"
        );
        assert!(h
            .constraints(crate::target::ECP5_ULX3S)
            .contains("LOCATE COMP \"clk\" SITE \"G2\";"));
    }

    #[test]
    fn harness_needs_a_clock_and_an_output() {
        let p = vec![Port {
            name: "a".into(),
            dir: Direction::Input,
            width: 1,
        }];
        assert!(generate("x", &p, None).is_err());
        let mut p = parse_ports(ANSI, "ref_x").unwrap();
        assert!(generate("ref_x", &p, Some(&["nope".to_string()])).is_err());
        p.retain(|p| p.dir == Direction::Input);
        assert!(generate("ref_x", &p, None).is_err());
    }
}
