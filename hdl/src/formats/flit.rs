//! The 65-bit network flit: 64 data bits plus one flit-type bit (link digest, "Flits and fabric
//! packets").
//!
//! - type bit (bit 64) = 1: **body** flit, all 64 bits are payload;
//! - type bit = 0 and bit 63 = 1: **head** flit, bits 61..0 hold the [`FabricHeader`];
//! - type bit = 0, bit 63 = 0, bit 62 = 1: **tail** flit;
//! - type bit = 0, bits 63..62 = 0: **control** flit, its kind in [`CODE`] (bits 61..56).
//!
//! A fabric packet is a head, zero or more bodies and a tail (at least two flits).
//! Control flits ([`ControlCode`]) are link fabric commands (Idle, CrdtRet, VLMrkr), bad-packet
//! markers (HeadBadPkt, BodyBadPkt, TailBadPkt: a packet already known bad, to be discarded whole
//! by the receiver) and link-transfer control flits, whose codes the link layer owns (0x20..0x3f).
use super::field::Field;
use super::header::FabricHeader;

/// Bits of a flit on the link.
pub const FLIT_BITS: usize = 65;
/// The low [`FLIT_BITS`] bits set: masks a flit held in a `u128`.
pub const FLIT_MASK: u128 = (1 << FLIT_BITS) - 1;
/// The flit-type bit: 1 for body flits.
pub const TYPE_BIT: usize = 64;
/// Set in head flits (type bit 0).
pub const HEAD_BIT: usize = 63;
/// Set in tail flits (type bit 0, head bit 0).
pub const TAIL_BIT: usize = 62;

/// Kind of a control flit.
pub const CODE: Field = Field {
    name: "code",
    lsb: 56,
    width: 6,
    doc: "control flit kind (ControlCode)",
};
/// Virtual channel a CrdtRet or VLMrkr flit refers to.
pub const CTRL_VC: Field = Field {
    name: "vc",
    lsb: 48,
    width: 3,
    doc: "virtual channel of CrdtRet / VLMrkr",
};
/// Credits (flit buffers) returned by a CrdtRet flit.
pub const CTRL_CREDITS: Field = Field {
    name: "credits",
    lsb: 32,
    width: 16,
    doc: "flit buffers freed (CrdtRet)",
};
/// Low bits of the original flit, carried by a *BadPkt marker for the error buffer.
pub const CTRL_ORIG: Field = Field {
    name: "orig",
    lsb: 0,
    width: 32,
    doc: "bits 31..0 of the flit a *BadPkt marker replaces",
};
/// Per-packet CRC-16 over the head and body flits' 64 data bits, in the tail flit.
pub const TAIL_CRC: Field = Field {
    name: "crc16",
    lsb: 0,
    width: 16,
    doc: "CRC-16 of the packet's head and body data, set by the source",
};

/// Fields of a control flit, for documentation and layout checks.
pub const CONTROL_FIELDS: [Field; 4] = [CODE, CTRL_VC, CTRL_CREDITS, CTRL_ORIG];
/// Fields of a tail flit.
pub const TAIL_FIELDS: [Field; 1] = [TAIL_CRC];

/// Control flit kinds (the [`CODE`] field).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ControlCode {
    /// Fills the datapath when nothing is to be sent.
    Idle,
    /// Returns credits of one virtual channel.
    CrdtRet,
    /// Virtual-lane marker: following body flits belong to this VC (flit interleaving).
    VlMrkr,
    /// Head of a packet known to be bad: discard the packet.
    HeadBadPkt,
    /// Body of a packet known to be bad.
    BodyBadPkt,
    /// Tail of a packet known to be bad.
    TailBadPkt,
    /// Link-transfer control flit (retry request, retry marker, round-trip marker, ...), code
    /// 0x20..=0x3f, defined by the link layer.
    LinkTransfer(u8),
}

impl ControlCode {
    /// The code's value in the [`CODE`] field.
    pub const fn code(self) -> u8 {
        match self {
            ControlCode::Idle => 0x00,
            ControlCode::CrdtRet => 0x01,
            ControlCode::VlMrkr => 0x02,
            ControlCode::HeadBadPkt => 0x03,
            ControlCode::BodyBadPkt => 0x04,
            ControlCode::TailBadPkt => 0x05,
            ControlCode::LinkTransfer(c) => 0x20 | (c & 0x1f),
        }
    }
    /// Decodes a code, `None` for reserved values (a malformed flit).
    pub const fn from_code(c: u8) -> Option<Self> {
        Some(match c {
            0x00 => ControlCode::Idle,
            0x01 => ControlCode::CrdtRet,
            0x02 => ControlCode::VlMrkr,
            0x03 => ControlCode::HeadBadPkt,
            0x04 => ControlCode::BodyBadPkt,
            0x05 => ControlCode::TailBadPkt,
            0x20..=0x3f => ControlCode::LinkTransfer(c & 0x1f),
            _ => return None,
        })
    }
    /// Every named code, for documentation.
    pub const NAMED: [(ControlCode, &'static str); 6] = [
        (
            ControlCode::Idle,
            "fills the datapath when there is nothing to send",
        ),
        (
            ControlCode::CrdtRet,
            "returns `credits` flit buffers of VC `vc`",
        ),
        (
            ControlCode::VlMrkr,
            "following body flits belong to VC `vc` (flit interleaving)",
        ),
        (
            ControlCode::HeadBadPkt,
            "head of a packet known bad: the receiver discards the packet",
        ),
        (ControlCode::BodyBadPkt, "body of a packet known bad"),
        (ControlCode::TailBadPkt, "tail of a packet known bad"),
    ];
}

/// A decoded flit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flit {
    /// Head flit carrying a fabric packet header.
    Head(FabricHeader),
    /// Body flit: 64 payload bits.
    Body(u64),
    /// Tail flit with the packet's CRC-16.
    Tail {
        /// CRC-16 of the packet's head and body data.
        crc16: u16,
    },
    /// Control flit.
    Control {
        /// Kind.
        code: ControlCode,
        /// VC field (CrdtRet, VLMrkr).
        vc: u8,
        /// Credits field (CrdtRet).
        credits: u16,
        /// Original low bits (*BadPkt).
        orig: u64,
    },
}

/// Why a 65-bit word is not a well-formed flit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FlitError {
    /// Bits above bit 64 set.
    TooWide,
    /// Control code not defined.
    ReservedCode(u8),
    /// A reserved bit of a head, tail or control flit is set.
    ReservedBits,
    /// Header field out of range.
    BadHeader(String),
}

impl Flit {
    /// An Idle control flit.
    pub const IDLE: Flit = Flit::Control {
        code: ControlCode::Idle,
        vc: 0,
        credits: 0,
        orig: 0,
    };

    /// The 65 bits on the link.
    pub fn pack(&self) -> u128 {
        match *self {
            Flit::Body(d) => (1u128 << TYPE_BIT) | d as u128,
            Flit::Head(h) => (1u128 << HEAD_BIT) | h.pack() as u128,
            Flit::Tail { crc16 } => TAIL_CRC.set(1u128 << TAIL_BIT, crc16 as u128),
            Flit::Control {
                code,
                vc,
                credits,
                orig,
            } => {
                let w = CODE.set(0, code.code() as u128);
                let w = CTRL_VC.set(w, vc as u128);
                let w = CTRL_CREDITS.set(w, credits as u128);
                CTRL_ORIG.set(w, orig as u128)
            }
        }
    }

    /// Decodes 65 bits, rejecting reserved encodings.
    pub fn unpack(w: u128) -> Result<Flit, FlitError> {
        if w >> FLIT_BITS != 0 {
            return Err(FlitError::TooWide);
        }
        if (w >> TYPE_BIT) & 1 == 1 {
            return Ok(Flit::Body(w as u64));
        }
        if (w >> HEAD_BIT) & 1 == 1 {
            if (w >> TAIL_BIT) & 1 == 1 {
                return Err(FlitError::ReservedBits);
            }
            return FabricHeader::unpack(w as u64 & ((1 << 62) - 1))
                .map(Flit::Head)
                .map_err(FlitError::BadHeader);
        }
        if (w >> TAIL_BIT) & 1 == 1 {
            if w & !((1u128 << TAIL_BIT) | (TAIL_CRC.max() << TAIL_CRC.lsb)) != 0 {
                return Err(FlitError::ReservedBits);
            }
            return Ok(Flit::Tail {
                crc16: TAIL_CRC.get(w) as u16,
            });
        }
        let c = CODE.get(w) as u8;
        let code = ControlCode::from_code(c).ok_or(FlitError::ReservedCode(c))?;
        let known = CONTROL_FIELDS
            .iter()
            .fold(0u128, |m, f| m | (f.max() << f.lsb));
        if w & !known != 0 {
            return Err(FlitError::ReservedBits);
        }
        Ok(Flit::Control {
            code,
            vc: CTRL_VC.get(w) as u8,
            credits: CTRL_CREDITS.get(w) as u16,
            orig: CTRL_ORIG.get(w) as u64,
        })
    }

    /// A credit-return flit.
    pub fn credit_return(vc: u8, credits: u16) -> Flit {
        Flit::Control {
            code: ControlCode::CrdtRet,
            vc,
            credits,
            orig: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::field::check_layout;

    #[test]
    fn layouts_are_disjoint() {
        let mut c = CONTROL_FIELDS.to_vec();
        c.push(Field {
            name: "type/head/tail",
            lsb: TAIL_BIT,
            width: 3,
            doc: "",
        });
        check_layout(&c, FLIT_BITS);
        let mut t = TAIL_FIELDS.to_vec();
        t.push(Field {
            name: "type/head/tail",
            lsb: TAIL_BIT,
            width: 3,
            doc: "",
        });
        check_layout(&t, FLIT_BITS);
    }

    #[test]
    fn encodings_follow_the_digest() {
        // Body: type bit 1. Head: type 0, bit 63. Tail: type 0, bit 62 only. Control: 63..62 = 0.
        assert_eq!(Flit::Body(0).pack() >> 64, 1);
        let h = Flit::Head(FabricHeader::default()).pack();
        assert_eq!((h >> 64, (h >> 63) & 1, (h >> 62) & 1), (0, 1, 0));
        let t = Flit::Tail { crc16: 0xffff }.pack();
        assert_eq!((t >> 64, (t >> 63) & 1, (t >> 62) & 1), (0, 0, 1));
        let c = Flit::credit_return(7, 0xffff).pack();
        assert_eq!(c >> 62, 0);
        assert_eq!(Flit::IDLE.pack(), 0, "an Idle flit is all zeros");
    }

    #[test]
    fn round_trip_and_rejects() {
        let flits = [
            Flit::Body(u64::MAX),
            Flit::Tail { crc16: 0x1234 },
            Flit::credit_return(3, 17),
            Flit::Control {
                code: ControlCode::HeadBadPkt,
                vc: 0,
                credits: 0,
                orig: 0xabcdef,
            },
            Flit::Control {
                code: ControlCode::LinkTransfer(5),
                vc: 0,
                credits: 0,
                orig: 0,
            },
            Flit::Head(FabricHeader {
                dst: 513,
                src: 7,
                vc: 2,
                kind: crate::formats::PacketKind::Put,
                len: 9,
                delay: 100,
            }),
        ];
        for f in flits {
            assert_eq!(Flit::unpack(f.pack()), Ok(f));
        }
        assert_eq!(Flit::unpack(1u128 << FLIT_BITS), Err(FlitError::TooWide));
        assert_eq!(Flit::unpack(3u128 << 62), Err(FlitError::ReservedBits));
        assert_eq!(
            Flit::unpack(CODE.set(0, 0x10)),
            Err(FlitError::ReservedCode(0x10))
        );
        assert_eq!(
            Flit::unpack((1u128 << 62) | (1 << 40)),
            Err(FlitError::ReservedBits)
        );
    }
}
