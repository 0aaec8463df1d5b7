//! The EEPROM configuration image, defined once: what the [`EepromLoader`] reads after reset
//! to fill configuration registers (routing tables included, through their indirect
//! address/data registers) and what management software writes into the part.
//!
//! **Layout** (byte offsets from the image's base address, 0 by default; multi-byte fields
//! little-endian, byte 0 least significant, as [`eep_access`] places bytes in its data):
//!
//! | offset | bytes | field | meaning |
//! |---|---|---|---|
//! | 0 | 4 | `magic` | [`IMAGE_MAGIC`], the ASCII bytes `hpcN`; all ones (a blank part) or all zeros: *blank*; anything else: *corrupt* |
//! | 4 | 2 | `version` | [`IMAGE_VERSION`]; any other: *corrupt* |
//! | 6 | 2 | `count` | entries that follow, at most the loader's `max_entries`; more: *corrupt* |
//! | 8 | 2 | `checksum` | [`IMAGE_CRC`] of `version`, `count` (bytes 4..8) and every entry's bytes in order; a mismatch: *corrupt* |
//! | 10 + 10 i | 2 | entry `i`: `address` | register address (15 bits; bit 15 set: *corrupt*) |
//! | 12 + 10 i | 8 | entry `i`: `value` | the 64-bit value written to it |
//!
//! The header is as long as an entry, so the image is a run of 10-byte records that the
//! loader reads as one byte stream in 6-byte EEPROM reads.
//!
//! **Why CRC-16/IBM-3740** ([`crate::crc::CRC16`], the management packets' CRC, so the
//! hardware is a `ParallelCrc` already in the tree): a CRC of degree 16 detects every error
//! burst of at most 16 bits, so every change of one byte; two bytes exchanged differ by
//! `d(x) (x^(8i) + x^(8j))` with `d` of degree below 8, which the generator
//! `(x + 1) p(x)` (`p` primitive of degree 15, period 32767) divides only if `8 (j - i)` is a
//! multiple of 32767, far beyond the largest image (65536 bytes). Covering `version` and
//! `count` as well ties the checksum to the number of entries read. A simple sum, by
//! contrast, misses every exchange of bytes. The magic is outside the checksum: it says
//! whether there is an image at all.
//!
//! [`EepromImage::new`] builds the bytes, [`EepromImage::parse`] is the reference model of
//! the loader's checks, and [`docs`] is the table `docs/formats.md` shows.
//!
//! [`EepromLoader`]: super::eeprom_loader::EepromLoader
//! [`eep_access`]: super::eep_access
use crate::crc::{CrcSpec, CRC16};

/// The checksum of an image: CRC-16/IBM-3740, bytes most significant bit first.
pub const IMAGE_CRC: CrcSpec = CRC16;
/// The magic bytes, in address order.
pub const IMAGE_MAGIC: [u8; 4] = *b"hpcN";
/// The format version this code writes and the loader accepts.
pub const IMAGE_VERSION: u16 = 1;
/// Bytes of the header.
pub const HEADER_BYTES: usize = 10;
/// Bytes of one entry.
pub const ENTRY_BYTES: usize = 10;
/// Offset of `magic` in the header.
pub const MAGIC_OFFSET: usize = 0;
/// Offset of `version` in the header.
pub const VERSION_OFFSET: usize = 4;
/// Offset of `count` in the header.
pub const COUNT_OFFSET: usize = 6;
/// Offset of `checksum` in the header.
pub const CHECKSUM_OFFSET: usize = 8;
/// Offset of `address` in an entry.
pub const ADDRESS_OFFSET: usize = 0;
/// Offset of `value` in an entry.
pub const VALUE_OFFSET: usize = 2;
/// Bits of an entry's register address.
pub const IMAGE_ADDRESS_BITS: usize = 15;
/// Bytes of the part (16-bit byte addresses).
pub const EEPROM_SIZE: usize = 1 << 16;

/// The magic as the little-endian number the loader assembles from its 4 bytes.
pub const fn magic_word() -> u32 {
    u32::from_le_bytes(IMAGE_MAGIC)
}

/// The most entries an image at `base` can hold inside the 64 KiB part.
pub const fn entries_that_fit(base: usize) -> usize {
    if base + HEADER_BYTES > EEPROM_SIZE {
        0
    } else {
        (EEPROM_SIZE - base - HEADER_BYTES) / ENTRY_BYTES
    }
}

/// One register setting of an image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImageEntry {
    /// Register address (below `2^15`).
    pub address: u16,
    /// Value written to it.
    pub value: u64,
}

/// Why an image is refused, as the loader decides it (checks in this order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageError {
    /// The magic is all ones (an erased part) or all zeros: no image was ever written.
    Blank,
    /// The magic is neither the image's nor blank.
    BadMagic,
    /// A version other than [`IMAGE_VERSION`].
    BadVersion(u16),
    /// More entries than the loader's `max_entries`.
    TooMany(u16),
    /// The checksum stored does not match the one computed.
    BadChecksum {
        /// The header's `checksum`.
        stored: u16,
        /// Computed over `version`, `count` and the entries.
        computed: u16,
    },
    /// Entry `n` has bit 15 of its address set (addresses have 15 bits).
    BadAddress(u16),
    /// The bytes end before the image does (only a slice can; the part has 64 KiB).
    Truncated,
}

impl ImageError {
    /// The loader's outcome: blank for [`ImageError::Blank`], corrupt for every other.
    pub fn is_blank(self) -> bool {
        self == ImageError::Blank
    }
}

/// An image: its entries, in the order the loader writes them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EepromImage {
    /// The register settings.
    pub entries: Vec<ImageEntry>,
}

/// The image's checksum of the header bytes 4..8 and the entries' bytes.
fn checksum(header: &[u8], entries: &[u8]) -> u16 {
    let mut d = IMAGE_CRC.digest();
    d.update_bytes(&header[VERSION_OFFSET..CHECKSUM_OFFSET]);
    d.update_bytes(entries);
    d.finish() as u16
}

impl EepromImage {
    /// The image of `entries`. Panics if an address has more than 15 bits or there are more
    /// than 65535 entries (a bug of the caller, not bad input).
    pub fn new(entries: &[ImageEntry]) -> Self {
        assert!(
            entries.len() <= u16::MAX as usize,
            "EepromImage: {} entries, at most 65535",
            entries.len()
        );
        for (i, e) in entries.iter().enumerate() {
            assert!(
                e.address >> IMAGE_ADDRESS_BITS == 0,
                "EepromImage: entry {i} has address {:#x}, more than {IMAGE_ADDRESS_BITS} bits",
                e.address
            );
        }
        Self {
            entries: entries.to_vec(),
        }
    }

    /// The image's bytes, from its base address on.
    pub fn bytes(&self) -> Vec<u8> {
        let mut header = vec![0u8; HEADER_BYTES];
        header[MAGIC_OFFSET..MAGIC_OFFSET + 4].copy_from_slice(&IMAGE_MAGIC);
        header[VERSION_OFFSET..VERSION_OFFSET + 2].copy_from_slice(&IMAGE_VERSION.to_le_bytes());
        header[COUNT_OFFSET..COUNT_OFFSET + 2]
            .copy_from_slice(&(self.entries.len() as u16).to_le_bytes());
        let mut body = Vec::with_capacity(ENTRY_BYTES * self.entries.len());
        for e in &self.entries {
            let mut record = [0u8; ENTRY_BYTES];
            record[ADDRESS_OFFSET..ADDRESS_OFFSET + 2].copy_from_slice(&e.address.to_le_bytes());
            record[VALUE_OFFSET..VALUE_OFFSET + 8].copy_from_slice(&e.value.to_le_bytes());
            body.extend_from_slice(&record);
        }
        let sum = checksum(&header, &body);
        header[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 2].copy_from_slice(&sum.to_le_bytes());
        header.extend(body);
        header
    }

    /// The image held by `bytes` (from the base address on), checked as the loader checks it
    /// with `max_entries`: magic (blank or not), version, count, entries' addresses, checksum.
    pub fn parse(bytes: &[u8], max_entries: usize) -> Result<Self, ImageError> {
        let header = bytes.get(..HEADER_BYTES).ok_or(ImageError::Truncated)?;
        let le16 = |b: &[u8], at: usize| u16::from_le_bytes([b[at], b[at + 1]]);
        let magic = &header[MAGIC_OFFSET..MAGIC_OFFSET + 4];
        if magic.iter().all(|&b| b == 0xff) || magic.iter().all(|&b| b == 0) {
            return Err(ImageError::Blank);
        }
        if magic != IMAGE_MAGIC {
            return Err(ImageError::BadMagic);
        }
        let version = le16(header, VERSION_OFFSET);
        if version != IMAGE_VERSION {
            return Err(ImageError::BadVersion(version));
        }
        let count = le16(header, COUNT_OFFSET);
        if count as usize > max_entries {
            return Err(ImageError::TooMany(count));
        }
        let end = HEADER_BYTES + ENTRY_BYTES * count as usize;
        let body = bytes.get(HEADER_BYTES..end).ok_or(ImageError::Truncated)?;
        let entries: Vec<ImageEntry> = body
            .chunks(ENTRY_BYTES)
            .map(|r| ImageEntry {
                address: le16(r, ADDRESS_OFFSET),
                value: u64::from_le_bytes(r[VALUE_OFFSET..VALUE_OFFSET + 8].try_into().unwrap()),
            })
            .collect();
        let computed = checksum(header, body);
        let stored = le16(header, CHECKSUM_OFFSET);
        if computed != stored {
            return Err(ImageError::BadChecksum { stored, computed });
        }
        if let Some(n) = entries
            .iter()
            .position(|e| e.address >> IMAGE_ADDRESS_BITS != 0)
        {
            return Err(ImageError::BadAddress(n as u16));
        }
        Ok(Self { entries })
    }
}

/// One field of the image's byte layout, for the documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageField {
    /// `header` or `entry`.
    pub record: &'static str,
    /// Byte offset inside its record.
    pub offset: usize,
    /// Bytes.
    pub bytes: usize,
    /// Name as in code.
    pub name: &'static str,
    /// What it means and what the loader does with it.
    pub meaning: &'static str,
}

/// The byte layout, header then entry, for `docs/formats.md`.
pub fn docs() -> Vec<ImageField> {
    let f = |record, offset, bytes, name, meaning| ImageField {
        record,
        offset,
        bytes,
        name,
        meaning,
    };
    vec![
        f("header", MAGIC_OFFSET, 4, "magic", "the ASCII bytes `hpcN`; all ones (an erased part) or all zeros: blank; any other value: corrupt"),
        f("header", VERSION_OFFSET, 2, "version", "format version, 1; any other: corrupt"),
        f("header", COUNT_OFFSET, 2, "count", "entries that follow; more than the loader's `max_entries`: corrupt"),
        f("header", CHECKSUM_OFFSET, 2, "checksum", "CRC-16/IBM-3740 of `version`, `count` and every entry's 10 bytes in order; a mismatch: corrupt"),
        f("entry", ADDRESS_OFFSET, 2, "address", "register address, 15 bits (bit 15 set: corrupt); a register the chip refuses (unmapped, read-only) is counted and skipped"),
        f("entry", VALUE_OFFSET, 8, "value", "the 64-bit value written to the register"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<ImageEntry> {
        (0..5u16)
            .map(|i| ImageEntry {
                address: 0x100 * i + 3,
                value: 0x0123_4567_89ab_cdef_u64.rotate_left(8 * i as u32),
            })
            .collect()
    }

    #[test]
    fn layout_is_consistent() {
        let fields = docs();
        for record in ["header", "entry"] {
            let mut used = vec![false; HEADER_BYTES.max(ENTRY_BYTES)];
            for f in fields.iter().filter(|f| f.record == record) {
                for b in f.offset..f.offset + f.bytes {
                    assert!(!used[b], "{record} byte {b} used twice");
                    used[b] = true;
                }
            }
            assert!(used.iter().all(|&u| u), "{record} has unused bytes");
        }
        assert_eq!(HEADER_BYTES, ENTRY_BYTES);
        assert_eq!(entries_that_fit(0), 6552);
        assert!(!IMAGE_MAGIC.iter().all(|&b| b == 0xff) && IMAGE_MAGIC != [0; 4]);
    }

    #[test]
    fn round_trip() {
        for n in [0, 1, 5] {
            let image = EepromImage::new(&sample()[..n]);
            let bytes = image.bytes();
            assert_eq!(bytes.len(), HEADER_BYTES + ENTRY_BYTES * n);
            assert_eq!(EepromImage::parse(&bytes, 16), Ok(image));
        }
        // The layout by hand: magic, version 1, count 1, then address 3 and the value.
        let b = EepromImage::new(&sample()[..1]).bytes();
        assert_eq!(&b[..8], b"hpcN\x01\x00\x01\x00");
        assert_eq!(&b[10..14], &[3, 0, 0xef, 0xcd]);
    }

    #[test]
    fn blank_and_corrupt_images_are_refused() {
        let good = EepromImage::new(&sample()).bytes();
        assert_eq!(EepromImage::parse(&[0xff; 64], 16), Err(ImageError::Blank));
        assert_eq!(EepromImage::parse(&[0; 64], 16), Err(ImageError::Blank));
        assert_eq!(EepromImage::parse(&good, 4), Err(ImageError::TooMany(5)));
        assert_eq!(
            EepromImage::parse(&good[..30], 16),
            Err(ImageError::Truncated)
        );
        // Every change of any one byte, and every exchange of two different bytes, is caught.
        for i in 0..good.len() {
            for v in [0x01u8, 0x80, 0xff, 0x5a] {
                let mut b = good.clone();
                b[i] ^= v;
                let r = EepromImage::parse(&b, 16);
                assert!(
                    r.is_err() && r != Err(ImageError::Blank),
                    "byte {i} ^ {v:#x}: {r:?}"
                );
            }
            for j in i + 1..good.len() {
                if good[i] != good[j] {
                    let mut b = good.clone();
                    b.swap(i, j);
                    assert!(EepromImage::parse(&b, 16).is_err(), "bytes {i} and {j}");
                }
            }
        }
        // A well-formed image whose entry has bit 15 set.
        let mut bad = sample();
        bad[2].address = 0x8001;
        let image = EepromImage { entries: bad };
        assert_eq!(
            EepromImage::parse(&image.bytes(), 16),
            Err(ImageError::BadAddress(2))
        );
    }

    #[test]
    #[should_panic(expected = "EepromImage: entry 0 has address 0x8000, more than 15 bits")]
    fn addresses_have_15_bits() {
        let _ = EepromImage::new(&[ImageEntry {
            address: 0x8000,
            value: 0,
        }]);
    }
}
