//! A bit field of a format: name, position, width and meaning.

/// One field of a packed format, bits `lsb .. lsb + width`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// Name as used in code and documentation.
    pub name: &'static str,
    /// Lowest bit.
    pub lsb: usize,
    /// Width in bits.
    pub width: usize,
    /// What the field means.
    pub doc: &'static str,
}

impl Field {
    /// Highest bit.
    pub const fn msb(&self) -> usize {
        self.lsb + self.width - 1
    }
    /// Mask of the field's width, right-aligned.
    pub const fn max(&self) -> u128 {
        if self.width >= 128 {
            u128::MAX
        } else {
            (1u128 << self.width) - 1
        }
    }
    /// The field's value in `word`.
    pub const fn get(&self, word: u128) -> u128 {
        (word >> self.lsb) & self.max()
    }
    /// `word` with the field set to `v`; panics if `v` does not fit (a codec bug, not bad input).
    pub fn set(&self, word: u128, v: u128) -> u128 {
        assert!(
            v <= self.max(),
            "{} = {v:#x} does not fit in {} bits",
            self.name,
            self.width
        );
        (word & !(self.max() << self.lsb)) | (v << self.lsb)
    }
}

/// Panics unless `fields` are disjoint and fit in `bits`: run by each format's tests.
pub fn check_layout(fields: &[Field], bits: usize) {
    let mut used = vec![None::<&str>; bits];
    for f in fields {
        assert!(
            f.width > 0 && f.msb() < bits,
            "{} exceeds {bits} bits",
            f.name
        );
        for b in f.lsb..=f.msb() {
            if let Some(o) = used[b] {
                panic!("fields {o} and {} overlap at bit {b}", f.name);
            }
            used[b] = Some(f.name);
        }
    }
}
