//! The agent's tickets: the narrow bundles its units pass along instead of whole packets.
//!
//! A management packet is ten flits, but a function unit needs only a few of its fields: the
//! register unit the type, `count`, the addresses and (for a write) the data; the EEPROM unit
//! the same with the bytes. The rest of a request (who sent it, its transaction ID and VPs, its
//! backward route) is only echoed into the response. So the unpacker writes every word of a
//! request into the [`PacketStore`](super::packet_store::PacketStore) as it arrives, in the
//! store slot it was given, and hands on a [`RequestTicket`]: the slot, the type and `w5`'s
//! fields. A unit answers with a [`ResponseTicket`]: the slot, the response's type and error,
//! and where `w5..w7` come from (echoed from the store, written into it by the unit, or carried
//! in the ticket). The packer builds the response's flits by reading the request's words back
//! from the store (the routes turned round as the codec's `response_to` says) and patching
//! them with the ticket. A fault report has no slot: its ticket says so and the packer takes
//! its route and DestID from the agent's settings.
//!
//! Why: the agent used to pass every packet as one 544-bit beat (the eight words and the
//! head's addresses), held in the unpacker, in the distributor's EEPROM slot and in the
//! register unit, and multiplexed three ways in the collector and ten ways in the packer. On
//! the iCE40 each of those flip-flops was a logic cell of its own and the two multiplexers
//! about a thousand LUTs, which kept the agent and the router's relay-station mesh from
//! fitting an HX8K; the store holds the words in block RAM instead.
//!
//! Layouts, lowest bit first, defined once here; the hardware's constants, the benches' codecs
//! ([`RequestTicket`], [`ResponseTicket`]) and this documentation derive from them.
use crate::formats::field::{check_layout, Field};
use crate::formats::mgmt::{self, MgmtBeat, MGMT_WORDS, NMP_TYPE, W_ACCESS, W_INFO};

/// Slots of the packet store, lent by the [`SlotPool`](super::SlotPool). At most four requests
/// are ever held at once: the one the unpacker is writing or offering, the response ticket in
/// the collector's register (the packet the packer is sending), the EEPROM request in the
/// distributor's slot and the one the EEPROM unit serves. Four slots let the unpacker take the
/// next request while the packer sends the previous response (`bench mgmt-sim`: 83.3
/// one-register reads per 1,000 cycles; with two slots, which serialized them, 43.5).
pub const STORE_SLOTS: usize = 4;
/// Bits of a slot number.
pub const SLOT_BITS: usize = 2;
/// Bits of an entry number within a slot (16 entries: words `w0..w7` at 0..7, the head
/// entry at [`HEAD_ENTRY`]).
pub const ENTRY_BITS: usize = 4;
/// Bits of a store address: the slot above the entry.
pub const STORE_ADDRESS_BITS: usize = SLOT_BITS + ENTRY_BITS;
/// Bits of a store word.
pub const STORE_WORD_BITS: usize = 64;
/// The entry that holds what the response needs of the request's head: its `src` (in the
/// header's `src` position) and the port it arrived on ([`ENTRY_PORT`]).
pub const HEAD_ENTRY: usize = MGMT_WORDS;
/// Head entry: the port the request arrived on (the response's output port).
pub const ENTRY_PORT: Field = Field {
    name: "port",
    lsb: 0,
    width: mgmt::HOP_BITS,
    doc: "the port the request arrived on",
};
/// Head entry: the request's `src` (the response's `dst`).
pub const ENTRY_SRC: Field = crate::formats::header::SRC;

const fn field(name: &'static str, lsb: usize, width: usize, doc: &'static str) -> Field {
    Field {
        name,
        lsb,
        width,
        doc,
    }
}

/// Request ticket: the store slot holding the request's words.
pub const REQUEST_SLOT: Field = field("slot", 0, SLOT_BITS, "store slot of the request");
/// Request ticket: the request's `nmp_type`.
pub const REQUEST_TYPE: Field = field(
    "nmp_type",
    REQUEST_SLOT.msb() + 1,
    6,
    "the request's nmp_type",
);
/// Request ticket: `w5` bits 0..34, `count`, `address0` and `address1` (16 bits each).
pub const REQUEST_ACCESS: Field = field(
    "access",
    REQUEST_TYPE.msb() + 1,
    mgmt::ADDRESS1.msb() + 1,
    "w5's count, address0 and address1 (w5 bits 0..=34)",
);
/// Bits of a request ticket.
pub const REQUEST_TICKET_BITS: usize = REQUEST_ACCESS.lsb + REQUEST_ACCESS.width;
/// The request ticket's fields.
pub const REQUEST_FIELDS: [Field; 3] = [REQUEST_SLOT, REQUEST_TYPE, REQUEST_ACCESS];

/// Response ticket: the store slot of the request answered (unused in a report).
pub const RESPONSE_SLOT: Field = field("slot", 0, SLOT_BITS, "store slot of the request");
/// Response ticket: a fault report (no request; route, DestID from the settings).
pub const RESPONSE_REPORT: Field = field(
    "report",
    RESPONSE_SLOT.msb() + 1,
    1,
    "a fault report: no request in the store; route and DestID from the agent's settings",
);
/// Response ticket: the response's `nmp_type`.
pub const RESPONSE_TYPE: Field = field(
    "nmp_type",
    RESPONSE_REPORT.msb() + 1,
    6,
    "the response's nmp_type",
);
/// Response ticket: the response's `error`.
pub const RESPONSE_ERROR: Field = field(
    "error",
    RESPONSE_TYPE.msb() + 1,
    8,
    "the response's error code",
);
/// Response ticket: what `w5` echoes of the request's ([`Echo`]).
pub const RESPONSE_ECHO: Field = field(
    "echo",
    RESPONSE_ERROR.msb() + 1,
    2,
    "w5 echoed: 0 none, 1 register, 2 EEPROM",
);
/// Response ticket: bit 0, `w6` is the store's (the register unit wrote the data there);
/// bit 1, `w7` is. Otherwise `w6` is [`RESPONSE_DATA`] and `w7` zero.
pub const RESPONSE_STORED: Field = field(
    "stored",
    RESPONSE_ECHO.msb() + 1,
    2,
    "bit 0: w6 from the store, else data; bit 1: w7 from the store, else zero",
);
/// Response ticket: a fault report's transaction ID.
pub const RESPONSE_ID: Field = field(
    "id",
    RESPONSE_STORED.msb() + 1,
    16,
    "a fault report's transaction_id",
);
/// Response ticket: `w6` unless it is the store's.
pub const RESPONSE_DATA: Field = field("data", RESPONSE_ID.msb() + 1, 64, "w6 unless stored");
/// Bits of a response ticket.
pub const RESPONSE_TICKET_BITS: usize = RESPONSE_DATA.lsb + RESPONSE_DATA.width;
/// The response ticket's fields.
pub const RESPONSE_FIELDS: [Field; 8] = [
    RESPONSE_SLOT,
    RESPONSE_REPORT,
    RESPONSE_TYPE,
    RESPONSE_ERROR,
    RESPONSE_ECHO,
    RESPONSE_STORED,
    RESPONSE_ID,
    RESPONSE_DATA,
];

/// What a response's `w5` echoes of its request's `w5`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Echo {
    /// `w5` zero (an unknown type, a fault report).
    #[default]
    Nothing,
    /// `count` and the two 15-bit register addresses.
    Registers,
    /// `count` and the 16-bit EEPROM address.
    Eeprom,
}

impl Echo {
    /// The code in [`RESPONSE_ECHO`].
    pub const fn code(self) -> u8 {
        match self {
            Echo::Nothing => 0,
            Echo::Registers => 1,
            Echo::Eeprom => 2,
        }
    }
    /// The echo of a code (3 echoes nothing).
    pub const fn from_code(c: u8) -> Self {
        match c {
            1 => Echo::Registers,
            2 => Echo::Eeprom,
            _ => Echo::Nothing,
        }
    }
    /// The bits of the request's `w5` echoed.
    pub const fn mask(self) -> u64 {
        let count = (mgmt::COUNT.max() as u64) << mgmt::COUNT.lsb;
        let register = (1u64 << mgmt::REGISTER_ADDRESS_BITS) - 1;
        match self {
            Echo::Nothing => 0,
            Echo::Registers => {
                count | register << mgmt::ADDRESS0.lsb | register << mgmt::ADDRESS1.lsb
            }
            Echo::Eeprom => count | (mgmt::ADDRESS0.max() as u64) << mgmt::ADDRESS0.lsb,
        }
    }
}

/// The store address of `entry` in `slot`.
pub const fn store_address(slot: usize, entry: usize) -> usize {
    slot << ENTRY_BITS | entry
}

/// A request ticket, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct RequestTicket {
    /// Store slot.
    pub slot: u8,
    /// `nmp_type`.
    pub nmp_type: u8,
    /// `w5` bits 0..=34.
    pub access: u64,
}

impl RequestTicket {
    /// The ticket of request `beat` held in `slot`.
    pub fn of(beat: &MgmtBeat, slot: u8) -> Self {
        RequestTicket {
            slot,
            nmp_type: NMP_TYPE.get(beat.words[W_INFO] as u128) as u8,
            access: REQUEST_ACCESS.max() as u64 & beat.words[W_ACCESS],
        }
    }
    /// The ticket's bits.
    pub fn pack(&self) -> u128 {
        let t = REQUEST_SLOT.set(0, self.slot as u128);
        let t = REQUEST_TYPE.set(t, self.nmp_type as u128);
        REQUEST_ACCESS.set(t, self.access as u128)
    }
    /// The ticket of some bits.
    pub fn unpack(bits: u128) -> Self {
        RequestTicket {
            slot: REQUEST_SLOT.get(bits) as u8,
            nmp_type: REQUEST_TYPE.get(bits) as u8,
            access: REQUEST_ACCESS.get(bits) as u64,
        }
    }
}

/// A response ticket, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct ResponseTicket {
    /// Store slot of the request answered.
    pub slot: u8,
    /// A fault report.
    pub report: bool,
    /// The response's `nmp_type`.
    pub nmp_type: u8,
    /// The response's `error`.
    pub error: u8,
    /// What `w5` echoes.
    pub echo: Echo,
    /// `w6` from the store.
    pub w6_stored: bool,
    /// `w7` from the store.
    pub w7_stored: bool,
    /// A report's transaction ID.
    pub id: u16,
    /// `w6` unless stored.
    pub data: u64,
}

impl ResponseTicket {
    /// The ticket's bits.
    pub fn pack(&self) -> u128 {
        let t = RESPONSE_SLOT.set(0, self.slot as u128);
        let t = RESPONSE_REPORT.set(t, self.report as u128);
        let t = RESPONSE_TYPE.set(t, self.nmp_type as u128);
        let t = RESPONSE_ERROR.set(t, self.error as u128);
        let t = RESPONSE_ECHO.set(t, self.echo.code() as u128);
        let t = RESPONSE_STORED.set(t, self.w6_stored as u128 | (self.w7_stored as u128) << 1);
        let t = RESPONSE_ID.set(t, self.id as u128);
        RESPONSE_DATA.set(t, self.data as u128)
    }
    /// The ticket of some bits.
    pub fn unpack(bits: u128) -> Self {
        let stored = RESPONSE_STORED.get(bits);
        ResponseTicket {
            slot: RESPONSE_SLOT.get(bits) as u8,
            report: RESPONSE_REPORT.get(bits) == 1,
            nmp_type: RESPONSE_TYPE.get(bits) as u8,
            error: RESPONSE_ERROR.get(bits) as u8,
            echo: Echo::from_code(RESPONSE_ECHO.get(bits) as u8),
            w6_stored: stored & 1 == 1,
            w7_stored: stored & 2 == 2,
            id: RESPONSE_ID.get(bits) as u16,
            data: RESPONSE_DATA.get(bits) as u64,
        }
    }
}

/// Checks the layouts (run by the tests).
pub fn check_layouts() {
    check_layout(&REQUEST_FIELDS, REQUEST_TICKET_BITS);
    check_layout(&RESPONSE_FIELDS, RESPONSE_TICKET_BITS);
    check_layout(&[ENTRY_PORT, ENTRY_SRC], STORE_WORD_BITS);
    const {
        assert!(1 << SLOT_BITS >= STORE_SLOTS);
        assert!(1 << ENTRY_BITS > HEAD_ENTRY);
        assert!(REQUEST_TICKET_BITS <= 128 && RESPONSE_TICKET_BITS <= 128);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_fit() {
        check_layouts();
        assert_eq!((REQUEST_TICKET_BITS, RESPONSE_TICKET_BITS), (43, 101));
        assert_eq!(Echo::Registers.mask(), 0x3_fffb_ffff);
        assert_eq!(Echo::Eeprom.mask(), 0x7_ffff);
        for e in [Echo::Nothing, Echo::Registers, Echo::Eeprom] {
            assert_eq!(Echo::from_code(e.code()), e);
        }
    }

    #[test]
    fn tickets_round_trip() {
        let r = RequestTicket {
            slot: 3,
            nmp_type: 0x13,
            access: 0x7_1234_5678,
        };
        assert_eq!(RequestTicket::unpack(r.pack()), r);
        let t = ResponseTicket {
            slot: 2,
            report: true,
            nmp_type: 0x20,
            error: 7,
            echo: Echo::Eeprom,
            w6_stored: false,
            w7_stored: true,
            id: 0xbeef,
            data: u64::MAX,
        };
        assert_eq!(ResponseTicket::unpack(t.pack()), t);
    }
}
