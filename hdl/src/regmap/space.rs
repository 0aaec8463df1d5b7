//! A chip's register address space, assembled from its blocks' maps.
//!
//! Each block's registers live beside the block as a [`RegMap`] with addresses from 0; the
//! chip places each map at a base address with a name prefix (`port3` makes `retries` into
//! `port3_retries`). A placed map occupies a *window*: its highest address plus one, rounded
//! up to a power of two, and its base must be a multiple of the window. So a block is
//! recognized by the address bits above its window alone, which is how a register router
//! decodes it (a compare of a few high bits, not a range compare), and windows never
//! interleave.
//!
//! [`AddressSpace::place`] refuses, with a one-line message naming the space and both
//! registers, a map whose window overlaps one already placed ("nrc: port1_retries at 0x1003
//! overlaps port0_status at 0x1003"), a register past the address range, a misaligned base, and
//! a register name already used. [`AddressSpace::to_map`] flattens the space into one map
//! (for the chip's C header and reference).
use super::map::{check_name, RegMap, Register};

/// One map placed in an [`AddressSpace`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    /// Prefix of its register names (empty: names unchanged).
    pub prefix: String,
    /// Address of its register 0.
    pub base: u64,
    /// Addresses it occupies from `base`: a power of two.
    pub window: u64,
    /// The block's own map (addresses from 0, names without the prefix).
    pub map: RegMap,
}

impl Placed {
    /// The full name of a register of this block.
    pub fn full_name(&self, r: &Register) -> String {
        if self.prefix.is_empty() {
            r.name.clone()
        } else {
            format!("{}_{}", self.prefix, r.name)
        }
    }
    /// The registers with their full names and absolute addresses.
    pub fn registers(&self) -> impl Iterator<Item = (String, u64)> + '_ {
        self.map
            .registers
            .iter()
            .map(|r| (self.full_name(r), self.base + r.offset))
    }
    /// The last address of the window.
    pub fn end(&self) -> u64 {
        self.base + self.window - 1
    }
    /// The block's name in messages: its prefix, or its map's name.
    pub fn label(&self) -> &str {
        if self.prefix.is_empty() {
            &self.map.name
        } else {
            &self.prefix
        }
    }
}

/// The register addresses of a chip (or of any register router).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddressSpace {
    /// Lowercase C identifier: the name of the flattened map (`nic`, `nrc`).
    pub name: String,
    /// What the space is.
    pub doc: String,
    /// Address bits (NIC 12, NRC 15): addresses `0 .. 2^address_bits`.
    pub address_bits: usize,
    blocks: Vec<Placed>,
}

impl AddressSpace {
    /// An empty space of `address_bits` address bits (1..=63).
    pub fn new(name: impl Into<String>, doc: impl Into<String>, address_bits: usize) -> Self {
        let name = name.into();
        assert!(
            (1..=63).contains(&address_bits),
            "AddressSpace {name}: address_bits must be 1..=63, got {address_bits}"
        );
        AddressSpace {
            name,
            doc: doc.into(),
            address_bits,
            blocks: vec![],
        }
    }

    /// The maps placed so far, in placement order.
    pub fn blocks(&self) -> &[Placed] {
        &self.blocks
    }

    /// The window a map needs: its highest address plus one, rounded up to a power of two.
    pub fn window_of(map: &RegMap) -> u64 {
        map.last_offset().map_or(1, |o| (o + 1).next_power_of_two())
    }

    /// Places `map` at `base` with names prefixed by `prefix` (`""` for none). On error nothing
    /// is placed and the message (one line) names the space and the registers concerned.
    pub fn place(&mut self, base: u64, prefix: &str, map: &RegMap) -> Result<(), String> {
        let s = &self.name;
        map.validate().map_err(|e| format!("{s}: {e}"))?;
        if !prefix.is_empty() {
            check_name(prefix).map_err(|e| format!("{s}: prefix {prefix:?} {e}"))?;
        }
        let placed = Placed {
            prefix: prefix.into(),
            base,
            window: Self::window_of(map),
            map: map.clone(),
        };
        let limit = 1u64 << self.address_bits;
        for r in &map.registers {
            let a = base.saturating_add(r.offset);
            if a >= limit {
                return Err(format!(
                    "{s}: {} at {a:#x} is past the {}-bit address space (0x0..={:#x})",
                    placed.full_name(r),
                    self.address_bits,
                    limit - 1
                ));
            }
        }
        if base & (placed.window - 1) != 0 {
            return Err(format!(
                "{s}: block {} at {base:#x} is not aligned to its window of {} registers (its highest register {} is at offset {:#x})",
                placed.label(),
                placed.window,
                map.registers.iter().max_by_key(|r| r.offset).map_or("-", |r| r.name.as_str()),
                map.last_offset().unwrap_or(0)
            ));
        }
        for other in &self.blocks {
            if let Some(e) = clash(s, other, &placed) {
                return Err(e);
            }
            for (name, a) in placed.registers() {
                if let Some((_, b)) = other.registers().find(|(n, _)| *n == name) {
                    return Err(format!(
                        "{s}: register name {name} is used twice (at {b:#x} by block {} and at {a:#x} by block {})",
                        other.label(),
                        placed.label()
                    ));
                }
            }
        }
        self.blocks.push(placed);
        Ok(())
    }

    /// The whole space as one map: every register under its full name at its absolute
    /// address, in placement order.
    pub fn to_map(&self) -> RegMap {
        let mut map = RegMap::new(self.name.clone(), self.doc.clone());
        for b in &self.blocks {
            for r in &b.map.registers {
                let mut r2 = r.clone();
                r2.name = b.full_name(r);
                r2.offset = b.base + r.offset;
                map = map.reg(r2);
            }
        }
        map
    }
}

/// The message for two blocks whose windows overlap, naming a register of each: two at one
/// address if there are, else the first register of either block that lies in the other's
/// window and the other block's register nearest below it (or its first). A block without
/// registers occupies nothing.
fn clash(space: &str, old: &Placed, new: &Placed) -> Option<String> {
    let empty = old.map.registers.is_empty() || new.map.registers.is_empty();
    if empty || new.base > old.end() || old.base > new.end() {
        return None;
    }
    for (n, a) in new.registers() {
        if let Some((o, _)) = old.registers().find(|(_, b)| *b == a) {
            return Some(format!("{space}: {n} at {a:#x} overlaps {o} at {a:#x}"));
        }
    }
    let inside = |p: &Placed, a: u64| a >= p.base && a <= p.end();
    let nearest = |p: &Placed, a: u64| {
        let mut regs: Vec<(String, u64)> = p.registers().collect();
        regs.sort_by_key(|r| r.1);
        regs.iter()
            .rev()
            .find(|r| r.1 <= a)
            .or(regs.first())
            .cloned()
            .expect("a block with a window has registers or is empty")
    };
    let (n, a, o, b, who) = if let Some((n, a)) = new.registers().find(|(_, a)| inside(old, *a)) {
        let (o, b) = nearest(old, a);
        (n, a, o, b, old)
    } else {
        let (o, b) = old
            .registers()
            .find(|(_, b)| inside(new, *b))
            .expect("overlapping windows share an address of a register");
        let (n, a) = nearest(new, b);
        return Some(format!(
            "{space}: {o} at {b:#x} lies in the window {:#x}..={:#x} of block {} (beside {n} at {a:#x})",
            new.base,
            new.end(),
            new.label()
        ));
    };
    Some(format!(
        "{space}: {n} at {a:#x} lies in the window {:#x}..={:#x} of block {} (beside {o} at {b:#x})",
        who.base,
        who.end(),
        who.label()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn port() -> RegMap {
        RegMap::new("port", "one router port")
            .reg(Register::ro("status", 3, 8))
            .reg(Register::counter("retries", 0, 16))
            .reg(Register::rw("enable", 1, 1).reset(1))
    }

    #[test]
    fn places_and_flattens() {
        let mut nrc = AddressSpace::new("nrc", "router", 15);
        nrc.place(0x1000, "port0", &port()).unwrap();
        nrc.place(0x1004, "port1", &port()).unwrap();
        let m = nrc.to_map();
        m.validate().unwrap();
        assert_eq!(m.get("port1_status").unwrap().offset, 0x1007);
        assert_eq!(m.get("port0_retries").unwrap().offset, 0x1000);
        assert_eq!(m.registers.len(), 6);
        assert_eq!(nrc.blocks()[1].window, 4);
        assert_eq!(AddressSpace::window_of(&RegMap::new("e", "")), 1);
    }

    #[test]
    fn overlap_names_both_registers() {
        let mut nrc = AddressSpace::new("nrc", "router", 15);
        nrc.place(0x1000, "port0", &port()).unwrap();
        let e = nrc.place(0x1000, "port1", &port()).unwrap_err();
        assert_eq!(
            e,
            "nrc: port1_status at 0x1003 overlaps port0_status at 0x1003"
        );
        // Nothing was placed by the failed call.
        assert_eq!(nrc.blocks().len(), 1);
        // A small block inside a larger window, at an address no register uses.
        let one = RegMap::new("one", "").reg(Register::rw("x", 0, 8));
        let e = nrc.place(0x1002, "misc", &one).unwrap_err();
        assert_eq!(
            e,
            "nrc: misc_x at 0x1002 lies in the window 0x1000..=0x1003 of block port0 (beside port0_enable at 0x1001)"
        );
        // A large window over a small block that has no register at a shared address.
        let wide = RegMap::new("wide", "")
            .reg(Register::rw("a", 0, 8))
            .reg(Register::rw("b", 15, 8));
        let mut s = AddressSpace::new("nic", "", 12);
        s.place(0x24, "small", &one).unwrap();
        let e = s.place(0x20, "big", &wide).unwrap_err();
        assert_eq!(
            e,
            "nic: small_x at 0x24 lies in the window 0x20..=0x2f of block big (beside big_a at 0x20)"
        );
    }

    #[test]
    fn out_of_range_names_the_register() {
        let mut nrc = AddressSpace::new("nrc", "router", 15);
        nrc.place(0x7ffc, "port23", &port()).unwrap();
        let e = nrc.place(0x8000, "port24", &port()).unwrap_err();
        assert_eq!(
            e,
            "nrc: port24_status at 0x8003 is past the 15-bit address space (0x0..=0x7fff)"
        );
    }

    #[test]
    fn other_errors() {
        let mut nrc = AddressSpace::new("nrc", "router", 15);
        let e = nrc.place(0x1002, "port0", &port()).unwrap_err();
        assert_eq!(
            e,
            "nrc: block port0 at 0x1002 is not aligned to its window of 4 registers (its highest register status is at offset 0x3)"
        );
        nrc.place(0x1000, "port0", &port()).unwrap();
        let e = nrc.place(0x2000, "port0", &port()).unwrap_err();
        assert_eq!(
            e,
            "nrc: register name port0_status is used twice (at 0x1003 by block port0 and at 0x2003 by block port0)"
        );
        let e = nrc.place(0x3000, "Port", &port()).unwrap_err();
        assert!(e.starts_with("nrc: prefix \"Port\" is not a lowercase C identifier"));
        let bad = RegMap::new("bad", "").reg(Register::rw("x", 0, 70));
        let e = nrc.place(0x3000, "b", &bad).unwrap_err();
        assert_eq!(
            e,
            "nrc: regmap bad: register x has width 70; registers are 1..=64 bits"
        );
    }
}
