//! Verilog emission with a unique module name per top.
//!
//! rust-hdl names every top `top` (and its child modules `top$...`), so two tops cannot be
//! compiled together. Emitting through [`emit_verilog`] names the top (and, by prefix, every
//! child module) after the block instead, and reports design-rule failures as errors rather
//! than the panic of `generate_verilog`.
use rust_hdl::prelude::*;

/// Direction of a top-level port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortDir {
    /// Driven from outside the block.
    Input,
    /// Driven by the block.
    Output,
}

/// One top-level port of a block, named as in the emitted Verilog.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortInfo {
    /// Verilog name (`sink$valid` for field `valid` of interface `sink`).
    pub name: String,
    /// Width in bits.
    pub width: usize,
    /// Direction.
    pub dir: PortDir,
}

/// Emits the Verilog of `uut` with its top module called `name` (child modules `name$...`).
///
/// Fails, naming the problem, when rust-hdl's design-rule check (open inputs, combinational
/// loops, writes to inputs) rejects the block.
pub fn emit_verilog<U: Block>(uut: &mut U, name: &str) -> Result<String, String> {
    assert!(
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
        "top name {name:?} must be a plain Verilog identifier"
    );
    uut.connect_all();
    check_all(uut).map_err(|e| format!("design rule check of {name} failed: {e:?}"))?;
    let mut defines = ModuleDefines::default();
    uut.accept(name, &mut defines);
    // rust-hdl names the top's ports after the instance path; nothing else needs renaming.
    Ok(defines.defines())
}

/// The top-level ports of `uut`, in declaration order.
pub fn top_ports<U: Block>(uut: &U) -> Vec<PortInfo> {
    struct Ports {
        depth: usize,
        out: Vec<PortInfo>,
        prefix: Vec<String>,
    }
    impl Probe for Ports {
        fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {
            self.depth += 1;
        }
        fn visit_start_namespace(&mut self, name: &str, _node: &dyn Block) {
            self.prefix.push(name.to_string());
        }
        fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
            if self.depth != 1 {
                return;
            }
            let dir = match signal.kind() {
                AtomKind::InputParameter => PortDir::Input,
                AtomKind::OutputParameter | AtomKind::OutputPassthrough => PortDir::Output,
                _ => return,
            };
            let mut full = self.prefix.clone();
            full.push(name.to_string());
            self.out.push(PortInfo {
                name: full.join("$"),
                width: signal.bits(),
                dir,
            });
        }
        fn visit_end_namespace(&mut self, _name: &str, _node: &dyn Block) {
            self.prefix.pop();
        }
        fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
            self.depth -= 1;
        }
    }
    let mut p = Ports {
        depth: 0,
        out: vec![],
        prefix: vec![],
    };
    uut.accept("top", &mut p);
    p.out
}
