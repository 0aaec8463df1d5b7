//! A register map as Rust data: registers with their address, width, access kind, reset value,
//! meaning and fields, and the checks that make a map usable by every generator.
//!
//! Maps are built at run time (from a [`Config`](crate::params::Config), so per-VC or per-port
//! registers follow the configuration) with a builder:
//!
//! ```
//! use hdl::regmap::{RegMap, Register};
//! let map = RegMap::new("link", "link-layer settings and statistics")
//!     .reg(Register::rw("timeout", 0x0, 16).reset(256).doc("cycles before a retry")
//!         .field("cycles", 0, 16, "the timeout in clock cycles"))
//!     .reg(Register::counter("retries", 0x1, 32).doc("retry requests sent"));
//! map.validate().unwrap();
//! assert_eq!(map.index(hdl::regmap::Access::Counter, "retries"), 0);
//! ```
//!
//! Names are lowercase C identifiers (the C header upper-cases them into macro names, so
//! `Timeout` and `timeout` would collide) and every generated macro name must be unique.
use crate::formats::Field;
use std::fmt;

/// How software and hardware reach a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Read-only: the value comes from the hardware (a `status` input); writes are refused with
    /// [`RegError::ReadOnly`](super::RegError::ReadOnly).
    ReadOnly,
    /// Read-write: software sets it, the hardware reads it (a `settings` output).
    ReadWrite,
    /// Write-1-to-clear: the hardware sets bits (a `flags` input, sticky), software clears
    /// them by writing ones; a set and a clear of one bit in one cycle leave it set.
    WriteOneToClear,
    /// A saturating counter of hardware event pulses (an `events` input); any write clears it
    /// (the data is ignored).
    Counter,
}

impl Access {
    /// The kinds in the order the register file lays out its storage and read multiplexer.
    pub const ALL: [Access; 4] = [
        Access::ReadWrite,
        Access::WriteOneToClear,
        Access::Counter,
        Access::ReadOnly,
    ];

    /// Short name used in the C header and the Markdown reference.
    pub fn short(self) -> &'static str {
        match self {
            Access::ReadOnly => "RO",
            Access::ReadWrite => "RW",
            Access::WriteOneToClear => "W1C",
            Access::Counter => "CNT",
        }
    }

    /// What reading and writing the register does.
    pub fn meaning(self) -> &'static str {
        match self {
            Access::ReadOnly => "read-only: reads the hardware's value; a write is refused (error) and changes nothing",
            Access::ReadWrite => "read-write: a write sets the value the hardware uses; reads return it",
            Access::WriteOneToClear => "write-1-to-clear: the hardware sets bits, writing 1 to a bit clears it (a bit set by the hardware in the same cycle stays set)",
            Access::Counter => "counter: counts hardware events, saturating at its largest value (never wraps); any write clears it",
        }
    }
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short())
    }
}

/// One register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Register {
    /// Lowercase C identifier, unique in its map.
    pub name: String,
    /// Address in registers (not bytes): what a management request carries.
    pub offset: u64,
    /// Bits stored (1..=64); reads are zero-extended, writes keep the low `width` bits.
    pub width: usize,
    /// How it is reached.
    pub access: Access,
    /// Value after reset (read-write registers only; the others reset to zero).
    pub reset: u64,
    /// What it is for.
    pub doc: String,
    /// Its fields, if it has several (a register without fields is one value).
    pub fields: Vec<Field>,
}

impl Register {
    /// A register of `access` called `name` at `offset` (in registers), `width` bits.
    pub fn new(name: impl Into<String>, offset: u64, width: usize, access: Access) -> Self {
        Register {
            name: name.into(),
            offset,
            width,
            access,
            reset: 0,
            doc: String::new(),
            fields: vec![],
        }
    }
    /// A read-only register.
    pub fn ro(name: impl Into<String>, offset: u64, width: usize) -> Self {
        Self::new(name, offset, width, Access::ReadOnly)
    }
    /// A read-write register.
    pub fn rw(name: impl Into<String>, offset: u64, width: usize) -> Self {
        Self::new(name, offset, width, Access::ReadWrite)
    }
    /// A write-1-to-clear register.
    pub fn w1c(name: impl Into<String>, offset: u64, width: usize) -> Self {
        Self::new(name, offset, width, Access::WriteOneToClear)
    }
    /// A saturating event counter of `width` bits.
    pub fn counter(name: impl Into<String>, offset: u64, width: usize) -> Self {
        Self::new(name, offset, width, Access::Counter)
    }
    /// With reset value `v` (read-write registers).
    pub fn reset(mut self, v: u64) -> Self {
        self.reset = v;
        self
    }
    /// With its meaning.
    pub fn doc(mut self, doc: impl Into<String>) -> Self {
        self.doc = doc.into();
        self
    }
    /// With a field `name` of `width` bits from bit `lsb`.
    pub fn field(
        mut self,
        name: &'static str,
        lsb: usize,
        width: usize,
        doc: &'static str,
    ) -> Self {
        self.fields.push(Field {
            name,
            lsb,
            width,
            doc,
        });
        self
    }
    /// The mask of its `width` low bits.
    pub fn mask(&self) -> u64 {
        mask(self.width)
    }
}

/// The mask of `width` low bits (`width` up to 64).
pub fn mask(width: usize) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// Where the hardware port of a register is: its kind and its position among the registers of
/// that kind, in map order (the index into the register file's `status`, `settings`, `flags`
/// or `events` vector).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The register's kind.
    pub access: Access,
    /// Its position among the registers of that kind.
    pub index: usize,
}

/// A named set of registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegMap {
    /// Lowercase C identifier: the prefix of the header's macros and the file names.
    pub name: String,
    /// What the map is for.
    pub doc: String,
    /// The registers, in the order given (which fixes their [`Slot`]s).
    pub registers: Vec<Register>,
}

impl RegMap {
    /// An empty map.
    pub fn new(name: impl Into<String>, doc: impl Into<String>) -> Self {
        RegMap {
            name: name.into(),
            doc: doc.into(),
            registers: vec![],
        }
    }
    /// With register `r` added.
    pub fn reg(mut self, r: Register) -> Self {
        self.registers.push(r);
        self
    }
    /// The register called `name`.
    pub fn get(&self, name: &str) -> Option<&Register> {
        self.registers.iter().find(|r| r.name == name)
    }
    /// The registers of kind `access`, in map order (slot order).
    pub fn of(&self, access: Access) -> impl Iterator<Item = &Register> + '_ {
        self.registers.iter().filter(move |r| r.access == access)
    }
    /// How many registers of kind `access` there are.
    pub fn count(&self, access: Access) -> usize {
        self.of(access).count()
    }
    /// The slot of register `name`.
    pub fn slot(&self, name: &str) -> Option<Slot> {
        let r = self.get(name)?;
        let index = self
            .of(r.access)
            .position(|x| x.name == name)
            .expect("a register is among those of its kind");
        Some(Slot {
            access: r.access,
            index,
        })
    }
    /// The index of register `name` among the registers of kind `access`; panics naming the
    /// register if it is absent or of another kind.
    pub fn index(&self, access: Access, name: &str) -> usize {
        match self.slot(name) {
            Some(s) if s.access == access => s.index,
            Some(s) => panic!(
                "regmap {}: register {name} is {}, not {}",
                self.name, s.access, access
            ),
            None => panic!("regmap {}: no register called {name}", self.name),
        }
    }
    /// The registers sorted by address.
    pub fn by_offset(&self) -> Vec<&Register> {
        let mut v: Vec<&Register> = self.registers.iter().collect();
        v.sort_by_key(|r| r.offset);
        v
    }
    /// Bits stored by the register file (every register but the read-only ones).
    pub fn stored_bits(&self) -> usize {
        self.registers
            .iter()
            .filter(|r| r.access != Access::ReadOnly)
            .map(|r| r.width)
            .sum()
    }
    /// The highest register address, if any.
    pub fn last_offset(&self) -> Option<u64> {
        self.registers.iter().map(|r| r.offset).max()
    }

    /// Checks everything the generators rely on; the error is one line naming the map and the
    /// offending register (both of them for a clash) or field.
    pub fn validate(&self) -> Result<(), String> {
        let m = &self.name;
        check_name(&self.name).map_err(|e| format!("regmap {m:?}: map name {e}"))?;
        for (i, r) in self.registers.iter().enumerate() {
            let n = &r.name;
            check_name(n).map_err(|e| format!("regmap {m}: register name {n:?} {e}"))?;
            if let Some(o) = self.registers[..i].iter().find(|o| o.name == r.name) {
                return Err(format!(
                    "regmap {m}: register name {n} is used twice (at {:#x} and {:#x})",
                    o.offset, r.offset
                ));
            }
            if let Some(o) = self.registers[..i].iter().find(|o| o.offset == r.offset) {
                return Err(format!(
                    "regmap {m}: {n} at {:#x} overlaps {} at {:#x}",
                    r.offset, o.name, o.offset
                ));
            }
            if !(1..=64).contains(&r.width) {
                return Err(format!(
                    "regmap {m}: register {n} has width {}; registers are 1..=64 bits",
                    r.width
                ));
            }
            if r.reset & !r.mask() != 0 {
                return Err(format!(
                    "regmap {m}: register {n} resets to {:#x}, which does not fit its {} bits",
                    r.reset, r.width
                ));
            }
            if r.access != Access::ReadWrite && r.reset != 0 {
                return Err(format!(
                    "regmap {m}: register {n} is {} and resets to zero (or reads the hardware), so its reset value {:#x} is not allowed",
                    r.access, r.reset
                ));
            }
            for (j, f) in r.fields.iter().enumerate() {
                let fname = f.name;
                check_name(fname)
                    .map_err(|e| format!("regmap {m}: field name {n}.{fname:?} {e}"))?;
                if f.width == 0 {
                    return Err(format!("regmap {m}: field {n}.{fname} has width 0"));
                }
                if f.lsb + f.width > r.width {
                    return Err(format!(
                        "regmap {m}: field {n}.{fname} (bits {}..{}) is outside the register's {} bits",
                        f.lsb + f.width - 1,
                        f.lsb,
                        r.width
                    ));
                }
                for o in &r.fields[..j] {
                    if o.name == f.name {
                        return Err(format!("regmap {m}: field name {n}.{fname} is used twice"));
                    }
                    if f.lsb < o.lsb + o.width && o.lsb < f.lsb + f.width {
                        return Err(format!(
                            "regmap {m}: field {n}.{fname} (bits {}..{}) overlaps field {n}.{} (bits {}..{})",
                            f.lsb + f.width - 1,
                            f.lsb,
                            o.name,
                            o.lsb + o.width - 1,
                            o.lsb
                        ));
                    }
                }
            }
        }
        super::c_header::check_macro_names(self)
    }
}

/// `Ok` if `name` is a lowercase C identifier: `[a-z_][a-z0-9_]*`.
pub(crate) fn check_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let ok = match chars.next() {
        Some(c) => {
            (c.is_ascii_lowercase() || c == '_')
                && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        }
        None => false,
    };
    if ok {
        Ok(())
    } else {
        Err("is not a lowercase C identifier ([a-z_][a-z0-9_]*)".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> RegMap {
        RegMap::new("link", "test")
            .reg(Register::rw("timeout", 0, 16).reset(256))
            .reg(Register::ro("status", 1, 8))
            .reg(Register::counter("retries", 2, 8))
            .reg(Register::rw("mode", 3, 4))
            .reg(Register::w1c("faults", 4, 3))
    }

    fn err(map: RegMap) -> String {
        map.validate().unwrap_err()
    }

    #[test]
    fn slots_follow_map_order_per_kind() {
        let m = base();
        m.validate().unwrap();
        assert_eq!(m.index(Access::ReadWrite, "timeout"), 0);
        assert_eq!(m.index(Access::ReadWrite, "mode"), 1);
        assert_eq!(m.index(Access::ReadOnly, "status"), 0);
        assert_eq!(m.index(Access::Counter, "retries"), 0);
        assert_eq!(
            m.slot("faults"),
            Some(Slot {
                access: Access::WriteOneToClear,
                index: 0
            })
        );
        assert_eq!(m.slot("nothing"), None);
        assert_eq!(m.stored_bits(), 16 + 8 + 4 + 3);
        assert_eq!(m.last_offset(), Some(4));
    }

    #[test]
    #[should_panic(expected = "regmap link: register status is RO, not RW")]
    fn index_names_the_wrong_kind() {
        base().index(Access::ReadWrite, "status");
    }

    #[test]
    fn validation_names_the_offender() {
        let cases = [
            (
                base().reg(Register::rw("Timeout2", 9, 4)),
                "regmap link: register name \"Timeout2\" is not a lowercase C identifier",
            ),
            (
                base().reg(Register::rw("2x", 9, 4)),
                "regmap link: register name \"2x\" is not a lowercase C identifier",
            ),
            (
                base().reg(Register::rw("mode", 9, 4)),
                "regmap link: register name mode is used twice (at 0x3 and 0x9)",
            ),
            (
                base().reg(Register::rw("extra", 3, 4)),
                "regmap link: extra at 0x3 overlaps mode at 0x3",
            ),
            (
                base().reg(Register::rw("wide", 9, 65)),
                "regmap link: register wide has width 65; registers are 1..=64 bits",
            ),
            (
                base().reg(Register::rw("zero", 9, 0)),
                "regmap link: register zero has width 0",
            ),
            (
                base().reg(Register::rw("small", 9, 4).reset(16)),
                "regmap link: register small resets to 0x10, which does not fit its 4 bits",
            ),
            (
                base().reg(Register::counter("hits", 9, 4).reset(1)),
                "regmap link: register hits is CNT and resets to zero",
            ),
            (
                base().reg(Register::rw("ctl", 9, 8).field("go", 7, 2, "")),
                "regmap link: field ctl.go (bits 8..7) is outside the register's 8 bits",
            ),
            (
                base().reg(
                    Register::rw("ctl", 9, 8)
                        .field("a", 0, 4, "")
                        .field("b", 3, 2, ""),
                ),
                "regmap link: field ctl.b (bits 4..3) overlaps field ctl.a (bits 3..0)",
            ),
            (
                base().reg(
                    Register::rw("ctl", 9, 8)
                        .field("a", 0, 1, "")
                        .field("a", 1, 1, ""),
                ),
                "regmap link: field name ctl.a is used twice",
            ),
            (
                base().reg(Register::rw("ctl", 9, 8).field("none", 0, 0, "")),
                "regmap link: field ctl.none has width 0",
            ),
            (
                base().reg(Register::rw("ctl", 9, 8).field("Go", 0, 1, "")),
                "regmap link: field name ctl.\"Go\" is not a lowercase C identifier",
            ),
            (
                RegMap::new("Link", ""),
                "regmap \"Link\": map name is not a lowercase C identifier",
            ),
        ];
        for (map, want) in cases {
            let e = err(map);
            assert!(e.starts_with(want), "want {want:?}, got {e:?}");
            assert!(!e.contains('\n'), "one line: {e:?}");
        }
    }

    #[test]
    fn colliding_macro_names_are_rejected() {
        // Register `a_b` and field `a.b` both want LINK_A_B_WIDTH.
        let e = err(RegMap::new("link", "")
            .reg(Register::rw("a", 0, 8).field("b", 0, 2, ""))
            .reg(Register::rw("a_b", 1, 8)));
        assert_eq!(
            e,
            "regmap link: the C macro LINK_A_B_WIDTH of register a_b is also that of field a.b"
        );
    }
}
