//! The fabric packet header, carried in bits 61..0 of a head flit.
//!
//! Routers read `dst` and `vc` to route, and add the cycles a packet spent inside them to
//! `delay` (CMDPD congestion control, `congestion-cmdpd.md`: at the destination the field holds
//! the packet's exact network delay). `len` lets a receiver drop a packet longer than announced
//! or than the network maximum (dirty-packet discard).

use super::field::Field;

/// Destination node.
pub const DST: Field = Field {
    name: "dst",
    lsb: 0,
    width: 16,
    doc: "destination node id",
};
/// Source node.
pub const SRC: Field = Field {
    name: "src",
    lsb: 16,
    width: 16,
    doc: "source node id",
};
/// Virtual channel.
pub const VC: Field = Field {
    name: "vc",
    lsb: 32,
    width: 3,
    doc: "virtual channel (GET requests travel on their own)",
};
/// Packet kind.
pub const KIND: Field = Field {
    name: "kind",
    lsb: 35,
    width: 4,
    doc: "packet kind (PacketKind)",
};
/// Length in flits.
pub const LEN: Field = Field {
    name: "len",
    lsb: 39,
    width: 8,
    doc: "packet length in flits, head and tail included (2..=255)",
};
/// Accumulated network delay.
pub const DELAY: Field = Field {
    name: "delay",
    lsb: 47,
    width: 12,
    doc: "network delay in cycles, summed by every router, saturating at 4095",
};
/// Reserved for later issues; zero.
pub const RSVD: Field = Field {
    name: "reserved",
    lsb: 59,
    width: 3,
    doc: "reserved, zero",
};

/// The header's fields, lowest first.
pub const HEADER_FIELDS: [Field; 7] = [DST, SRC, VC, KIND, LEN, DELAY, RSVD];

/// What a packet carries (`kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PacketKind {
    /// Non-address packet: the receiver chooses the buffer.
    #[default]
    Nap,
    /// Write into the target's memory at an address in the payload.
    Put,
    /// Read request: the target answers with a PUT.
    Get,
    /// Network management (source-routed, for the management agents).
    Mgmt,
    /// Response carrying a delay or completion back to the source.
    Response,
}

impl PacketKind {
    /// Every kind with its code and meaning, for documentation.
    pub const ALL: [(PacketKind, u8, &'static str); 5] = [
        (
            PacketKind::Nap,
            0,
            "non-address packet: the receiver's buffer manager chooses the buffer",
        ),
        (
            PacketKind::Put,
            1,
            "memory write at an address agreed beforehand",
        ),
        (
            PacketKind::Get,
            2,
            "read request, turned into a PUT back at the target",
        ),
        (
            PacketKind::Mgmt,
            3,
            "network management packet for a management agent",
        ),
        (
            PacketKind::Response,
            4,
            "response to the source (delay, completion)",
        ),
    ];
    /// The kind's code.
    pub fn code(self) -> u8 {
        Self::ALL
            .iter()
            .find(|k| k.0 == self)
            .map(|k| k.1)
            .expect("listed")
    }
    /// The kind of a code, `None` if reserved.
    pub fn from_code(c: u8) -> Option<Self> {
        Self::ALL.iter().find(|k| k.1 == c).map(|k| k.0)
    }
}

/// A decoded fabric packet header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct FabricHeader {
    /// Destination node.
    pub dst: u16,
    /// Source node.
    pub src: u16,
    /// Virtual channel (0..=7).
    pub vc: u8,
    /// Packet kind.
    pub kind: PacketKind,
    /// Length in flits, head and tail included.
    pub len: u8,
    /// Accumulated network delay in cycles.
    pub delay: u16,
}

impl FabricHeader {
    /// The 62 header bits of a head flit.
    pub fn pack(&self) -> u64 {
        let w = DST.set(0, self.dst as u128);
        let w = SRC.set(w, self.src as u128);
        let w = VC.set(w, self.vc as u128);
        let w = KIND.set(w, self.kind.code() as u128);
        let w = LEN.set(w, self.len as u128);
        DELAY.set(w, self.delay as u128) as u64
    }
    /// Decodes header bits, rejecting reserved kinds and reserved bits.
    pub fn unpack(w: u64) -> Result<Self, String> {
        let w = w as u128;
        if RSVD.get(w) != 0 || w >> 62 != 0 {
            return Err("reserved header bits set".into());
        }
        let kind = PacketKind::from_code(KIND.get(w) as u8)
            .ok_or_else(|| format!("reserved packet kind {}", KIND.get(w)))?;
        Ok(Self {
            dst: DST.get(w) as u16,
            src: SRC.get(w) as u16,
            vc: VC.get(w) as u8,
            kind,
            len: LEN.get(w) as u8,
            delay: DELAY.get(w) as u16,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_layout_fits_a_head_flit() {
        super::super::field::check_layout(&HEADER_FIELDS, 62);
        assert_eq!(HEADER_FIELDS.iter().map(|f| f.width).sum::<usize>(), 62);
    }

    #[test]
    fn round_trip_extremes() {
        let h = FabricHeader {
            dst: 0xffff,
            src: 0x8001,
            vc: 7,
            kind: PacketKind::Response,
            len: 255,
            delay: 4095,
        };
        assert_eq!(FabricHeader::unpack(h.pack()), Ok(h));
        assert!(FabricHeader::unpack(KIND.set(0, 9) as u64).is_err());
        assert!(FabricHeader::unpack(RSVD.set(0, 1) as u64).is_err());
    }
}
