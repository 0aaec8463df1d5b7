//! CRC definitions (Rocksoft/Williams model) and software references: a bit-serial engine,
//! the definition every other implementation is checked against, and a bytewise table engine
//! for benches and link software that must compute the same CRCs quickly.
//!
//! # Model
//! A CRC of width `W` is a `W`-bit shift register `s` (the *normal form*, MSB-first, as in
//! Williams' "A painless guide to CRC error detection algorithms" and the reveng catalogue).
//! Per message bit `b`, in wire order: `fb = b ^ s[W-1]; s = (s << 1) & mask; if fb { s ^= poly }`.
//! `s` starts at `init`. The finished CRC is `reflect(s)` if `refout` (else `s`), XORed with
//! `xorout`.
//!
//! # Wire order of message bits
//! - Bytes: with `refin`, each byte is sent least significant bit first (Ethernet, HDLC);
//!   without, most significant bit first.
//! - Words of `n` bits (hardware beats, link flits): with `refin`, bit 0 of the word is the first
//!   on the wire and bit `n-1` the last; without, bit `n-1` first. So a 64-bit CRC-32 beat holds
//!   8 bytes little-endian (byte 0 in bits 7..0, as Ethernet MACs lay them out) and a 16-bit
//!   CRC-16/IBM-3740 beat holds 2 bytes big-endian (byte 0 in bits 15..8); both then give the
//!   same CRC as the byte stream.
//!
//! # Register form
//! Hardware keeps the running remainder in *register form*: `reflect(s)` if `refout`, else `s`,
//! so the finished CRC is just `register ^ xorout` (no wire crossing on the output). For CRC-32
//! this is the familiar reflected register of zlib before the final inversion.
//! [`CrcDigest::register`] and [`CrcSpec::register_init`] use the same form.

/// The parameters of one CRC, in the Rocksoft/Williams model used by the reveng catalogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrcSpec {
    /// Catalogue name.
    pub name: &'static str,
    /// Width `W` in bits (1..=64).
    pub width: usize,
    /// Generator polynomial in normal form, the `x^W` term implied (CRC-32: `0x04C11DB7`).
    pub poly: u64,
    /// Normal-form register value before the first message bit.
    pub init: u64,
    /// Bytes (and words) enter least significant bit first.
    pub refin: bool,
    /// The register is bit-reversed before `xorout`.
    pub refout: bool,
    /// XORed into the result.
    pub xorout: u64,
    /// The CRC of the nine ASCII bytes `"123456789"` (the catalogue's check value).
    pub check: u64,
}

/// CRC-14/DARC (reveng catalogue: width 14, poly 0x0805, init 0, reflected, xorout 0, check
/// 0x082D), used for the 14-bit LTP CRC of the fabric link.
///
/// The link digest (`link-ltp.md`, from the Omni-Path patent) gives the CRC's width (14 bits
/// over 16 flits of 65 bits) but does not name its polynomial, so hpcnet picks this published
/// CRC-14. Reflected like CRC-32: flit bit 0 goes first.
pub const CRC14: CrcSpec = CrcSpec {
    name: "CRC-14/DARC",
    width: 14,
    poly: 0x0805,
    init: 0,
    refin: true,
    refout: true,
    xorout: 0,
    check: 0x082D,
};

/// CRC-16/IBM-3740, better known as CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, not
/// reflected, xorout 0, check 0x29B1): the 16-bit link CRC of the Tianhe-1A NIC model.
///
/// Chosen over CRC-16/KERMIT (same polynomial, reflected, init 0) because its non-zero init
/// catches leading zero bits and, being MSB-first, it exercises the unreflected path of the
/// hardware generator (the other two hpcnet CRCs are reflected). Beats are big-endian.
pub const CRC16: CrcSpec = CrcSpec {
    name: "CRC-16/IBM-3740",
    width: 16,
    poly: 0x1021,
    init: 0xFFFF,
    refin: false,
    refout: false,
    xorout: 0,
    check: 0x29B1,
};

/// CRC-32/ISO-HDLC, the IEEE 802.3 Ethernet FCS and zlib's `crc32` (poly 0x04C11DB7, init and
/// xorout 0xFFFFFFFF, reflected, check 0xCBF43926). Beats are little-endian.
pub const CRC32: CrcSpec = CrcSpec {
    name: "CRC-32/ISO-HDLC",
    width: 32,
    poly: 0x04C1_1DB7,
    init: 0xFFFF_FFFF,
    refin: true,
    refout: true,
    xorout: 0xFFFF_FFFF,
    check: 0xCBF4_3926,
};

/// CRC-8/SMBUS (poly 0x07, init 0, not reflected, xorout 0, check 0xF4): the per-XFR-group
/// CRC of the link receiver (`hdl::llp::deframer`), one 32-bit XFR per step. Not reflected,
/// so in a word step bit 31 goes first (see the module documentation).
pub const CRC8: CrcSpec = CrcSpec {
    name: "CRC-8/SMBUS",
    width: 8,
    poly: 0x07,
    init: 0,
    refin: false,
    refout: false,
    xorout: 0,
    check: 0xF4,
};

/// The low `width` bits of `v`, reversed.
pub fn reflect(v: u64, width: usize) -> u64 {
    assert!(
        (1..=64).contains(&width),
        "reflect: width {width} not in 1..=64"
    );
    v.reverse_bits() >> (64 - width)
}

impl CrcSpec {
    /// Mask of the `width` low bits.
    pub fn mask(&self) -> u64 {
        if self.width >= 64 {
            u64::MAX
        } else {
            (1u64 << self.width) - 1
        }
    }

    /// Panics, naming the field, if the parameters are not a valid CRC.
    pub fn validate(&self) {
        assert!(
            (1..=64).contains(&self.width),
            "{}: width {} not in 1..=64",
            self.name,
            self.width
        );
        for (field, v) in [
            ("poly", self.poly),
            ("init", self.init),
            ("xorout", self.xorout),
            ("check", self.check),
        ] {
            assert!(
                v & !self.mask() == 0,
                "{}: {field} {v:#x} is wider than width {}",
                self.name,
                self.width
            );
        }
        assert!(
            self.poly & 1 == 1,
            "{}: poly must have the x^0 term",
            self.name
        );
    }

    /// Normal form to register form (see the module documentation).
    pub fn to_register(&self, s: u64) -> u64 {
        if self.refout {
            reflect(s, self.width)
        } else {
            s
        }
    }

    /// Register form to normal form.
    pub fn from_register(&self, r: u64) -> u64 {
        self.to_register(r)
    }

    /// The register-form value before the first bit of a frame.
    pub fn register_init(&self) -> u64 {
        self.to_register(self.init)
    }

    /// The finished CRC of a register-form value.
    pub fn finish_register(&self, r: u64) -> u64 {
        r ^ self.xorout
    }

    /// One bit-serial step of the normal-form register.
    pub fn serial_bit(&self, s: u64, bit: bool) -> u64 {
        let fb = bit ^ ((s >> (self.width - 1)) & 1 == 1);
        let s = (s << 1) & self.mask();
        if fb {
            s ^ self.poly
        } else {
            s
        }
    }

    /// A bit-serial engine at the start of a frame.
    pub fn digest(&self) -> CrcDigest {
        self.validate();
        CrcDigest {
            spec: *self,
            s: self.init,
        }
    }

    /// CRC of a byte string, bit-serially.
    pub fn checksum(&self, bytes: &[u8]) -> u64 {
        let mut d = self.digest();
        d.update_bytes(bytes);
        d.finish()
    }

    /// CRC of a sequence of `bits`-bit words (bit order: see the module documentation).
    pub fn checksum_words(&self, words: &[u128], bits: usize) -> u64 {
        let mut d = self.digest();
        for &w in words {
            d.update_word(w, bits);
        }
        d.finish()
    }

    /// The register-form value after one word, bit-serially; `word[k]` is bit `k` of the word.
    /// This is the function the hardware's matrices are derived from.
    pub fn step_register(&self, r: u64, word: &[bool]) -> u64 {
        let mut d = CrcDigest {
            spec: *self,
            s: self.from_register(r),
        };
        d.update_word_bits(word);
        d.register()
    }
}

/// The bit-serial reference engine: the definition of every hpcnet CRC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrcDigest {
    spec: CrcSpec,
    /// Normal-form register.
    s: u64,
}

impl CrcDigest {
    /// Feeds one bit (wire order).
    pub fn update_bit(&mut self, bit: bool) {
        self.s = self.spec.serial_bit(self.s, bit);
    }

    /// Feeds bytes, each in the spec's bit order.
    pub fn update_bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            for k in 0..8 {
                let bit = if self.spec.refin {
                    (b >> k) & 1 == 1
                } else {
                    (b >> (7 - k)) & 1 == 1
                };
                self.update_bit(bit);
            }
        }
    }

    /// Feeds a word given bit by bit: `word[k]` is bit `k` (with `refin`, bit 0 goes first;
    /// without, the last element goes first).
    pub fn update_word_bits(&mut self, word: &[bool]) {
        let n = word.len();
        for k in 0..n {
            let bit = if self.spec.refin {
                word[k]
            } else {
                word[n - 1 - k]
            };
            self.update_bit(bit);
        }
    }

    /// Feeds the low `bits` bits of `word` (at most 128).
    pub fn update_word(&mut self, word: u128, bits: usize) {
        assert!(bits <= 128, "update_word: {bits} bits > 128");
        let v: Vec<bool> = (0..bits).map(|k| (word >> k) & 1 == 1).collect();
        self.update_word_bits(&v);
    }

    /// The running remainder in register form.
    pub fn register(&self) -> u64 {
        self.spec.to_register(self.s)
    }

    /// The CRC of everything fed so far.
    pub fn finish(&self) -> u64 {
        self.spec.finish_register(self.register())
    }
}

/// Bytewise table-driven engine, 8 bits per lookup, for benches and software.
#[derive(Clone, Debug)]
pub struct CrcTable {
    spec: CrcSpec,
    table: [u64; 256],
}

impl CrcTable {
    /// Builds the table of `spec` (width at least 8).
    pub fn new(spec: &CrcSpec) -> Self {
        spec.validate();
        assert!(
            spec.width >= 8,
            "{}: the bytewise table needs width >= 8",
            spec.name
        );
        let mut table = [0u64; 256];
        for (b, t) in table.iter_mut().enumerate() {
            if spec.refin {
                // Reflected register: the byte enters at the low end.
                let rpoly = reflect(spec.poly, spec.width);
                let mut c = b as u64;
                for _ in 0..8 {
                    c = if c & 1 == 1 { (c >> 1) ^ rpoly } else { c >> 1 };
                }
                *t = c;
            } else {
                let mut c = (b as u64) << (spec.width - 8);
                for _ in 0..8 {
                    let top = (c >> (spec.width - 1)) & 1 == 1;
                    c = (c << 1) & spec.mask();
                    if top {
                        c ^= spec.poly;
                    }
                }
                *t = c;
            }
        }
        Self { spec: *spec, table }
    }

    /// The register-form value after `bytes`, starting from register-form `r`.
    pub fn update(&self, r: u64, bytes: &[u8]) -> u64 {
        let spec = &self.spec;
        let s = spec.from_register(r);
        if spec.refin {
            let mut q = reflect(s, spec.width);
            for &b in bytes {
                q = (q >> 8) ^ self.table[((q ^ b as u64) & 0xFF) as usize];
            }
            spec.to_register(reflect(q, spec.width))
        } else {
            let mut s = s;
            for &b in bytes {
                let i = ((s >> (spec.width - 8)) ^ b as u64) & 0xFF;
                s = ((s << 8) & spec.mask()) ^ self.table[i as usize];
            }
            spec.to_register(s)
        }
    }

    /// CRC of a byte string.
    pub fn checksum(&self, bytes: &[u8]) -> u64 {
        let r = self.update(self.spec.register_init(), bytes);
        self.spec.finish_register(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHECK: &[u8] = b"123456789";

    #[test]
    fn published_check_values_serial() {
        for spec in [CRC8, CRC14, CRC16, CRC32] {
            assert_eq!(spec.checksum(CHECK), spec.check, "{}", spec.name);
        }
    }

    #[test]
    fn published_check_values_table() {
        for spec in [CRC8, CRC14, CRC16, CRC32] {
            assert_eq!(
                CrcTable::new(&spec).checksum(CHECK),
                spec.check,
                "{}",
                spec.name
            );
        }
    }

    #[test]
    fn other_catalogue_crcs() {
        // Unequal refin/refout and odd widths exercise the register-form conversions.
        let cases = [
            // CRC-16/KERMIT
            (16, 0x1021, 0, true, true, 0, 0x2189),
            // CRC-12/UMTS: refin false, refout true
            (12, 0x80F, 0, false, true, 0, 0xDAF),
            // CRC-5/USB
            (5, 0x05, 0x1F, true, true, 0x1F, 0x19),
            // CRC-64/XZ
            (
                64,
                0x42F0_E1EB_A9EA_3693,
                u64::MAX,
                true,
                true,
                u64::MAX,
                0x995D_C9BB_DF19_39FA,
            ),
        ];
        for (width, poly, init, refin, refout, xorout, check) in cases {
            let spec = CrcSpec {
                name: "test",
                width,
                poly,
                init,
                refin,
                refout,
                xorout,
                check,
            };
            assert_eq!(spec.checksum(CHECK), check, "width {width}");
            if width >= 8 {
                assert_eq!(
                    CrcTable::new(&spec).checksum(CHECK),
                    check,
                    "table, width {width}"
                );
            }
        }
    }

    #[test]
    fn words_match_bytes() {
        let bytes: Vec<u8> = (0..64u32).map(|i| (i * 37 + 11) as u8).collect();
        // CRC-32: 64-bit little-endian words.
        let words: Vec<u128> = bytes
            .chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()) as u128)
            .collect();
        assert_eq!(CRC32.checksum_words(&words, 64), CRC32.checksum(&bytes));
        // CRC-16/IBM-3740: 16-bit big-endian words.
        let words: Vec<u128> = bytes
            .chunks(2)
            .map(|c| u16::from_be_bytes(c.try_into().unwrap()) as u128)
            .collect();
        assert_eq!(CRC16.checksum_words(&words, 16), CRC16.checksum(&bytes));
    }

    #[test]
    fn zlib_vectors() {
        // Computed with Python's zlib.crc32 and binascii.crc_hqx(data, 0xFFFF).
        assert_eq!(CRC32.checksum(b"12345678"), 0x9AE0_DAAF);
        assert_eq!(CRC32.checksum(b"1234567812345678"), 0x6BCC_57B7);
        assert_eq!(CRC16.checksum(b"12345678"), 0xA12B);
    }

    #[test]
    fn table_is_incremental() {
        let t = CrcTable::new(&CRC32);
        let r = t.update(CRC32.register_init(), b"1234");
        let r = t.update(r, b"56789");
        assert_eq!(CRC32.finish_register(r), CRC32.check);
    }
}
