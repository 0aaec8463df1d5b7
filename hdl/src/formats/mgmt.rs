//! The management packet: the fixed-length fabric packet that carries register and EEPROM
//! requests to a chip's management agent (NMA), their responses, and fault reports
//! (`inband-management.md`, issue 12).
//!
//! A management packet is a fabric packet of [`MGMT_FLITS`] flits: a head, [`MGMT_WORDS`] body
//! flits (words `w0..w7`, 64 bits each) and a tail.
//! - Head: the [`FabricHeader`] with kind [`PacketKind::Mgmt`], `len` = [`MGMT_FLITS`], `vc` =
//!   the configuration's `network.mgmt_vc`, `dst` = the DestID (all ones, [`UNSET_ID`], reaches
//!   a chip that has no ID yet), `src` = the sending node.
//! - Tail: CRC-16 ([`crate::crc::CRC16`]) of the head's and bodies' 64 data bits, each a 64-bit
//!   word fed most significant bit first, with the head's `delay` field taken as zero: routers
//!   add to `delay` in flight, and the CRC protects the packet end to end, from the sender to the
//!   agent.
//!
//! # Source routing
//! A route ([`Route`]) is `hop_num` hops of 5 bits (an output port) and a `current` position.
//! A route's hops are stored LAST HOP FIRST; `current` counts the hops still to take. A chip that
//! receives a management packet appends the port it arrived on to the backward route
//! (`B.hops[B.hop_num] = in_port; B.hop_num += 1`); then if `current == 0` the packet is for this
//! chip (its management agent); else it leaves on port `F.hops[current - 1]` and `current -= 1`.
//! A response's forward route is the request's backward route with `current = hop_num`, and its
//! backward route is empty; so the agent that answers sends the response out on the port the
//! request came in on, and each router on the way back takes the next hop. [`Route::from_path`]
//! builds a forward route from the output ports of the routers on the way, first router first.
//! A packet whose backward route is full ([`ROUTE_HOPS`] hops) when a chip must append, whose
//! forward `current > hop_num`, or with a `hop_num` above [`ROUTE_HOPS`], is malformed
//! ([`MgmtError::MalformedRoute`]).
//!
//! # Layers of the codec
//! - [`pack_words`] / [`unpack_words`]: the framing only (length, flit types, kind, `len`, CRC),
//!   between flits and the eight words. Benches build packets that are well framed but carry
//!   bad contents (unknown types, bad counts, bad routes) at this level, as the agent must answer
//!   those with error responses rather than never see them.
//! - [`MgmtPacket::pack`] / [`MgmtPacket::unpack`]: the whole packet; `unpack` also rejects
//!   reserved bits, unknown codes, bad counts and bad routes, naming the reason
//!   ([`MgmtDecodeError`]).
//! - [`MgmtBeat`]: the words plus the head's `src` and `dst` as one wide bundle, the shape the
//!   agent's units pass along (`hdl::mgmt`).
use super::field::Field;
use super::flit::{Flit, FLIT_MASK};
use super::header::{self, FabricHeader, PacketKind};
use crate::crc::CRC16;
use crate::regmap::RegError;

/// Flits of a management packet: head, [`MGMT_WORDS`] bodies, tail.
pub const MGMT_FLITS: usize = 10;
/// Body flits (64-bit words `w0..w7`) of a management packet.
pub const MGMT_WORDS: usize = MGMT_FLITS - 2;
/// Hops a route can hold.
pub const ROUTE_HOPS: usize = 20;
/// Bits of one hop (an output port number).
pub const HOP_BITS: usize = 5;
/// Hops held in each of a route's two words.
pub const HOPS_PER_WORD: usize = ROUTE_HOPS / 2;
/// The DestID that reaches a chip whatever its ID (one with no ID configured yet).
pub const UNSET_ID: u16 = 0xffff;
/// Bits of the head's data covered by the CRC: the header's `delay` field is left out.
pub const CRC_HEAD_MASK: u64 = !((header::DELAY.max() as u64) << header::DELAY.lsb);

/// Word `w0`: who and what.
pub const W_INFO: usize = 0;
/// Word `w1`: forward route, `hop_num`, `current`, hops 0..9.
pub const W_FORWARD: usize = 1;
/// Word `w2`: forward route, hops 10..19.
pub const W_FORWARD_HIGH: usize = 2;
/// Word `w3`: backward route, `hop_num`, hops 0..9.
pub const W_BACKWARD: usize = 3;
/// Word `w4`: backward route, hops 10..19.
pub const W_BACKWARD_HIGH: usize = 4;
/// Word `w5`: count and addresses.
pub const W_ACCESS: usize = 5;
/// Word `w6`: register data 0, EEPROM bytes, or fault bits.
pub const W_DATA0: usize = 6;
/// Word `w7`: register data 1.
pub const W_DATA1: usize = 7;

const fn field(name: &'static str, lsb: usize, width: usize, doc: &'static str) -> Field {
    Field {
        name,
        lsb,
        width,
        doc,
    }
}

/// `w0`: chip type addressed ([`DestType`]).
pub const DEST_TYPE: Field = field("dest_type", 0, 2, "chip type addressed: 0 NIC, 1 NRC");
/// `w0`: the server's VP that sent the request.
pub const SRC_VP: Field = field(
    "src_vp",
    2,
    8,
    "the server's virtual port that sent the request",
);
/// `w0`: the server's VP that receives the response.
pub const DEST_VP: Field = field(
    "dest_vp",
    10,
    8,
    "the server's virtual port that receives the response",
);
/// `w0`: pairs a response with its request.
pub const TRANSACTION_ID: Field = field(
    "transaction_id",
    18,
    16,
    "pairs a response with its request (copied into the response)",
);
/// `w0`: what the packet asks or answers ([`NmpType`]).
pub const NMP_TYPE: Field = field("nmp_type", 34, 6, "packet type (NMPType table)");
/// `w0`: why a request failed ([`MgmtError`]), zero otherwise.
pub const ERROR: Field = field(
    "error",
    40,
    8,
    "error code of an error response (error table), zero otherwise",
);
/// `w0`: reserved.
pub const W0_RESERVED: Field = field("reserved", 48, 16, "reserved, zero");

/// Route words (`w1`, `w3`): hops in the route.
pub const HOP_NUM: Field = field("hop_num", 0, 5, "hops in the route (0..=20)");
/// Forward route word `w1`: hops still to take.
pub const CURRENT: Field = field(
    "current",
    5,
    5,
    "hops still to take; the next output port is hop[current - 1]",
);
/// Backward route word `w3`: where `current` is in `w1`, reserved.
pub const BACKWARD_RESERVED: Field = field(
    "reserved",
    5,
    5,
    "reserved, zero (a backward route is appended to, never taken)",
);
/// Route words `w1`/`w3`: reserved.
pub const ROUTE_LOW_RESERVED: Field = field("reserved", 60, 4, "reserved, zero");
/// Route words `w2`/`w4`: reserved.
pub const ROUTE_HIGH_RESERVED: Field = field("reserved", 50, 14, "reserved, zero");

const HOP_NAMES: [&str; ROUTE_HOPS] = [
    "hop0", "hop1", "hop2", "hop3", "hop4", "hop5", "hop6", "hop7", "hop8", "hop9", "hop10",
    "hop11", "hop12", "hop13", "hop14", "hop15", "hop16", "hop17", "hop18", "hop19",
];

/// Bit position of hop `i` (0..20) inside its route word (`w1`/`w3` for 0..9, `w2`/`w4` for
/// 10..19).
pub const fn hop_lsb(i: usize) -> usize {
    if i < HOPS_PER_WORD {
        HOP_NUM.width + CURRENT.width + HOP_BITS * i
    } else {
        HOP_BITS * (i - HOPS_PER_WORD)
    }
}

/// The field of hop `i` in its route word.
pub const fn hop_field(i: usize) -> Field {
    field(
        HOP_NAMES[i],
        hop_lsb(i),
        HOP_BITS,
        "output port, stored last hop first",
    )
}

/// `w5`: registers (1..=2) or EEPROM bytes (1..=6) accessed.
pub const COUNT: Field = field(
    "count",
    0,
    3,
    "registers (1..=2) or EEPROM bytes (1..=6) accessed",
);
/// `w5`: first register address (low 15 bits) or EEPROM byte address.
pub const ADDRESS0: Field = field(
    "address0",
    3,
    16,
    "first register address (15 bits, bit 15 reserved) or EEPROM byte address",
);
/// `w5`: second register address.
pub const ADDRESS1: Field = field(
    "address1",
    19,
    16,
    "second register address (15 bits); zero for EEPROM",
);
/// `w5`: reserved.
pub const W5_RESERVED: Field = field("reserved", 35, 29, "reserved, zero");
/// `w6`: register data 0 or fault bits.
pub const DATA0: Field = field(
    "data0",
    0,
    64,
    "register data 0 (write data, read data); fault bits in a fault report",
);
/// `w6` of an EEPROM packet: bytes 0..5, byte `i` in bits `8i+7..8i`.
pub const EEPROM_BYTES: Field = field(
    "bytes",
    0,
    48,
    "EEPROM packets: byte i (address0 + i) in bits 8i+7..8i",
);
/// `w7`: register data 1.
pub const DATA1: Field = field(
    "data1",
    0,
    64,
    "register data 1; zero in EEPROM packets and fault reports",
);
/// Register addresses are 15 bits (NRC; the NIC uses the low 12).
pub const REGISTER_ADDRESS_BITS: usize = 15;
/// Most registers in one request.
pub const MAX_REGISTERS: u8 = 2;
/// Most EEPROM bytes in one request.
pub const MAX_EEPROM_BYTES: u8 = 6;

/// The fields of `w0`.
pub const INFO_FIELDS: [Field; 7] = [
    DEST_TYPE,
    SRC_VP,
    DEST_VP,
    TRANSACTION_ID,
    NMP_TYPE,
    ERROR,
    W0_RESERVED,
];
/// The fields of `w5`.
pub const ACCESS_FIELDS: [Field; 4] = [COUNT, ADDRESS0, ADDRESS1, W5_RESERVED];

/// The fields of route word `w1` (`forward`) or `w3` (backward).
pub fn route_low_fields(forward: bool) -> Vec<Field> {
    let mut f = vec![HOP_NUM, if forward { CURRENT } else { BACKWARD_RESERVED }];
    f.extend((0..HOPS_PER_WORD).map(hop_field));
    f.push(ROUTE_LOW_RESERVED);
    f
}

/// The fields of route word `w2` or `w4`.
pub fn route_high_fields() -> Vec<Field> {
    let mut f: Vec<Field> = (HOPS_PER_WORD..ROUTE_HOPS).map(hop_field).collect();
    f.push(ROUTE_HIGH_RESERVED);
    f
}

/// Mask of the bits of a word not covered by `fields` named `reserved`: what must be zero.
fn reserved_mask(fields: &[Field]) -> u64 {
    fields
        .iter()
        .filter(|f| f.name == "reserved")
        .fold(0, |m, f| m | ((f.max() as u64) << f.lsb))
}

/// The chip type a request addresses (`dest_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum DestType {
    /// A network interface chip.
    #[default]
    Nic,
    /// A router chip.
    Nrc,
}

impl DestType {
    /// The code in `dest_type`.
    pub const fn code(self) -> u8 {
        match self {
            DestType::Nic => 0,
            DestType::Nrc => 1,
        }
    }
    /// The type of a code, `None` for the reserved codes 2 and 3.
    pub const fn from_code(c: u8) -> Option<Self> {
        match c {
            0 => Some(DestType::Nic),
            1 => Some(DestType::Nrc),
            _ => None,
        }
    }
}

/// What a packet's payload is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NmpFamily {
    /// Register access (`w5` addresses, `w6`/`w7` data).
    Register,
    /// EEPROM access (`w5` address, `w6` bytes).
    Eeprom,
    /// Fault report (`w6` fault bits).
    Fault,
}

/// The management packet types (`nmp_type`, 6 bits): the 11 types of the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NmpType {
    /// Read one or two registers.
    RegReadRequest,
    /// The registers' data.
    RegReadResponse,
    /// Write one or two registers.
    RegWriteRequest,
    /// The write was accepted.
    RegWriteResponse,
    /// A register request could not be carried out (`error` says why).
    RegErrorResponse,
    /// Read one to six EEPROM bytes.
    EepReadRequest,
    /// The bytes read.
    EepReadResponse,
    /// Write one to six EEPROM bytes.
    EepWriteRequest,
    /// The bytes were written.
    EepWriteResponse,
    /// An EEPROM request could not be carried out (`error` says why).
    EepErrorResponse,
    /// A fault event, sent by the agent on its own.
    FaultReport,
}

impl NmpType {
    /// Every type with its code and meaning, in code order.
    pub const ALL: [(NmpType, u8, &'static str); 11] = [
        (
            NmpType::RegReadRequest,
            0x01,
            "register read request (count registers at address0, address1)",
        ),
        (
            NmpType::RegReadResponse,
            0x02,
            "register read response (data0, data1)",
        ),
        (
            NmpType::RegWriteRequest,
            0x03,
            "register write request (data0, data1 to address0, address1)",
        ),
        (
            NmpType::RegWriteResponse,
            0x04,
            "register write response (sent when the write is accepted)",
        ),
        (
            NmpType::RegErrorResponse,
            0x05,
            "register error response (`error` names the reason)",
        ),
        (
            NmpType::EepReadRequest,
            0x11,
            "EEPROM read request (count bytes from address0)",
        ),
        (
            NmpType::EepReadResponse,
            0x12,
            "EEPROM read response (the bytes)",
        ),
        (
            NmpType::EepWriteRequest,
            0x13,
            "EEPROM write request (count bytes to address0)",
        ),
        (
            NmpType::EepWriteResponse,
            0x14,
            "EEPROM write response (sent when the bytes are written)",
        ),
        (
            NmpType::EepErrorResponse,
            0x15,
            "EEPROM error response (`error` names the reason)",
        ),
        (
            NmpType::FaultReport,
            0x20,
            "fault report, sent by the agent on its own (data0 = fault bits)",
        ),
    ];

    /// The type's code.
    pub fn code(self) -> u8 {
        Self::ALL
            .iter()
            .find(|t| t.0 == self)
            .map(|t| t.1)
            .expect("listed")
    }
    /// The type of a code, `None` if undefined.
    pub fn from_code(c: u8) -> Option<Self> {
        Self::ALL.iter().find(|t| t.1 == c).map(|t| t.0)
    }
    /// What the payload is about.
    pub fn family(self) -> NmpFamily {
        match self.code() >> 4 {
            0 => NmpFamily::Register,
            1 => NmpFamily::Eeprom,
            _ => NmpFamily::Fault,
        }
    }
    /// A request the agent carries out (read or write, register or EEPROM).
    pub fn is_request(self) -> bool {
        matches!(
            self,
            NmpType::RegReadRequest
                | NmpType::RegWriteRequest
                | NmpType::EepReadRequest
                | NmpType::EepWriteRequest
        )
    }
    /// An error response.
    pub fn is_error_response(self) -> bool {
        matches!(self, NmpType::RegErrorResponse | NmpType::EepErrorResponse)
    }
    /// The response to this request: the matching response if `ok`, else the family's error
    /// response. `None` for a type that is not a request.
    pub fn response(self, ok: bool) -> Option<NmpType> {
        Some(match (self, ok) {
            (NmpType::RegReadRequest, true) => NmpType::RegReadResponse,
            (NmpType::RegWriteRequest, true) => NmpType::RegWriteResponse,
            (NmpType::EepReadRequest, true) => NmpType::EepReadResponse,
            (NmpType::EepWriteRequest, true) => NmpType::EepWriteResponse,
            (NmpType::RegReadRequest | NmpType::RegWriteRequest, false) => {
                NmpType::RegErrorResponse
            }
            (NmpType::EepReadRequest | NmpType::EepWriteRequest, false) => {
                NmpType::EepErrorResponse
            }
            _ => return None,
        })
    }
}

/// Why a request failed (`error`, 8 bits), one definition for the agent, the codec and docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum MgmtError {
    /// No error.
    #[default]
    None,
    /// No register at the address ([`RegError::Unmapped`]).
    Unmapped,
    /// A write to a read-only register ([`RegError::ReadOnly`]).
    ReadOnly,
    /// `count` is 0, or more than 2 registers / 6 EEPROM bytes.
    BadCount,
    /// `nmp_type` is undefined, or not a request.
    UnknownType,
    /// The EEPROM did not acknowledge.
    EepromNack,
    /// `address0 + count` goes past the 64 KiB EEPROM.
    EepromRange,
    /// The routing fields are malformed.
    MalformedRoute,
}

impl MgmtError {
    /// Every code with its meaning, in code order.
    pub const ALL: [(MgmtError, u8, &'static str); 8] = [
        (
            MgmtError::None,
            0,
            "none (every response that is not an error response)",
        ),
        (MgmtError::Unmapped, 1, "unmapped register address"),
        (MgmtError::ReadOnly, 2, "write to a read-only register"),
        (
            MgmtError::BadCount,
            3,
            "bad count: 0, or more than 2 registers or 6 EEPROM bytes",
        ),
        (
            MgmtError::UnknownType,
            4,
            "unknown NMPType, or a response type sent as a request",
        ),
        (MgmtError::EepromNack, 5, "the EEPROM did not acknowledge"),
        (
            MgmtError::EepromRange,
            6,
            "EEPROM address range: address0 + count past 64 KiB",
        ),
        (MgmtError::MalformedRoute, 7, "malformed routing fields"),
    ];
    /// The code in `error`.
    pub fn code(self) -> u8 {
        Self::ALL
            .iter()
            .find(|e| e.0 == self)
            .map(|e| e.1)
            .expect("listed")
    }
    /// The error of a code, `None` if undefined.
    pub fn from_code(c: u8) -> Option<Self> {
        Self::ALL.iter().find(|e| e.1 == c).map(|e| e.0)
    }
}

impl From<RegError> for MgmtError {
    fn from(e: RegError) -> Self {
        match e {
            RegError::None => MgmtError::None,
            RegError::Unmapped => MgmtError::Unmapped,
            RegError::ReadOnly => MgmtError::ReadOnly,
        }
    }
}

/// A source route: `hop_num` output ports, stored last hop first, and `current`, the hops still
/// to take (forward routes only; zero in a backward route).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Route {
    /// Hops in the route (0..=20).
    pub hop_num: u8,
    /// Hops still to take; the next output port is `hops[current - 1]`.
    pub current: u8,
    /// Output ports, last hop first; zero from `hop_num` on.
    pub hops: [u8; ROUTE_HOPS],
}

/// What a chip does with a management packet it received ([`MgmtPacket::take_hop`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hop {
    /// The packet is for this chip's agent.
    Arrived,
    /// The packet leaves on this port.
    Forward(u8),
    /// The routing fields are malformed: the packet is dropped and counted.
    Malformed,
}

impl Route {
    /// The forward route through routers whose output ports are `path`, first router first:
    /// `current = hop_num = path.len()`. Panics on more than [`ROUTE_HOPS`] hops or a port
    /// wider than [`HOP_BITS`] (a caller's bug).
    pub fn from_path(path: &[u8]) -> Self {
        assert!(
            path.len() <= ROUTE_HOPS,
            "a route holds at most {ROUTE_HOPS} hops, not {}",
            path.len()
        );
        let mut hops = [0; ROUTE_HOPS];
        for (i, &p) in path.iter().rev().enumerate() {
            assert!(
                p < 1 << HOP_BITS,
                "port {p} does not fit in {HOP_BITS} bits"
            );
            hops[i] = p;
        }
        Route {
            hop_num: path.len() as u8,
            current: path.len() as u8,
            hops,
        }
    }
    /// The path of a route, first hop first (the inverse of [`Route::from_path`]).
    pub fn path(&self) -> Vec<u8> {
        self.hops[..(self.hop_num as usize).min(ROUTE_HOPS)]
            .iter()
            .rev()
            .copied()
            .collect()
    }
    /// The route taken back: the forward route of a response to a request whose backward route
    /// is `self`.
    pub fn reversed(&self) -> Route {
        Route {
            hop_num: self.hop_num,
            current: self.hop_num,
            hops: self.hops,
        }
    }
    /// Why this route is malformed as a forward route, if it is.
    pub fn forward_fault(&self) -> Option<&'static str> {
        if self.hop_num as usize > ROUTE_HOPS {
            Some("forward hop_num above 20")
        } else if self.current > self.hop_num {
            Some("forward current above hop_num")
        } else {
            None
        }
    }
    /// Why this route is malformed as a backward route that a chip must append to, if it is.
    pub fn backward_fault(&self) -> Option<&'static str> {
        if self.hop_num as usize > ROUTE_HOPS {
            Some("backward hop_num above 20")
        } else if self.hop_num as usize == ROUTE_HOPS {
            Some("backward route full")
        } else {
            None
        }
    }
    /// The two route words (low: `hop_num`, `current` if `forward`, hops 0..9; high: hops
    /// 10..19).
    pub fn words(&self, forward: bool) -> [u64; 2] {
        let mut low = HOP_NUM.set(0, self.hop_num as u128);
        if forward {
            low = CURRENT.set(low, self.current as u128);
        }
        let mut high = 0;
        for (i, &h) in self.hops.iter().enumerate() {
            if i < HOPS_PER_WORD {
                low = hop_field(i).set(low, h as u128);
            } else {
                high = hop_field(i).set(high, h as u128);
            }
        }
        [low as u64, high as u64]
    }
    /// The route in two route words; the reserved bits are not checked here.
    pub fn from_words(low: u64, high: u64, forward: bool) -> Route {
        let (low, high) = (low as u128, high as u128);
        let mut hops = [0; ROUTE_HOPS];
        for (i, h) in hops.iter_mut().enumerate() {
            *h = hop_field(i).get(if i < HOPS_PER_WORD { low } else { high }) as u8;
        }
        Route {
            hop_num: HOP_NUM.get(low) as u8,
            current: if forward { CURRENT.get(low) as u8 } else { 0 },
            hops,
        }
    }
}

/// What a management packet carries in `w5..w7`, by its type's family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MgmtPayload {
    /// Register access: `count` registers at `address` (15 bits each), data in `data`.
    Registers {
        /// Registers accessed (1..=2 in a valid request).
        count: u8,
        /// Register addresses; `address[1]` is zero when `count` is 1.
        address: [u16; 2],
        /// Write data (requests) or read data (responses); unused entries zero.
        data: [u64; 2],
    },
    /// EEPROM access: `count` bytes from `address`.
    Eeprom {
        /// Bytes accessed (1..=6 in a valid request).
        count: u8,
        /// Byte address of the first byte.
        address: u16,
        /// Write data (requests) or read data (responses); unused bytes zero.
        bytes: [u8; 6],
    },
    /// A fault report's fault bits.
    Fault {
        /// One bit per fault input that fired.
        bits: u64,
    },
}

impl MgmtPayload {
    /// The family the payload belongs to.
    pub fn family(&self) -> NmpFamily {
        match self {
            MgmtPayload::Registers { .. } => NmpFamily::Register,
            MgmtPayload::Eeprom { .. } => NmpFamily::Eeprom,
            MgmtPayload::Fault { .. } => NmpFamily::Fault,
        }
    }
    /// Words `w5..w7`.
    pub fn words(&self) -> [u64; 3] {
        match *self {
            MgmtPayload::Registers {
                count,
                address,
                data,
            } => {
                let w = COUNT.set(0, count as u128);
                let w = ADDRESS0.set(w, address[0] as u128);
                let w = ADDRESS1.set(w, address[1] as u128);
                [w as u64, data[0], data[1]]
            }
            MgmtPayload::Eeprom {
                count,
                address,
                bytes,
            } => {
                let w = COUNT.set(0, count as u128);
                let w = ADDRESS0.set(w, address as u128);
                let data = bytes
                    .iter()
                    .enumerate()
                    .fold(0u64, |d, (i, &b)| d | (b as u64) << (8 * i));
                [w as u64, data, 0]
            }
            MgmtPayload::Fault { bits } => [0, bits, 0],
        }
    }
}

/// A management packet, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MgmtPacket {
    /// DestID, the head's `dst` ([`UNSET_ID`] reaches a chip with no ID).
    pub dest_id: u16,
    /// The sending node, the head's `src`.
    pub src: u16,
    /// Virtual channel (the configuration's `network.mgmt_vc`).
    pub vc: u8,
    /// Chip type addressed.
    pub dest_type: DestType,
    /// The server's VP that sent the request.
    pub src_vp: u8,
    /// The server's VP that receives the response.
    pub dest_vp: u8,
    /// Pairs a response with its request.
    pub transaction_id: u16,
    /// Packet type; its family must be the payload's.
    pub nmp_type: NmpType,
    /// Error code ([`MgmtError::None`] unless an error response).
    pub error: MgmtError,
    /// Forward route.
    pub forward: Route,
    /// Backward route, appended to by every chip on the way.
    pub backward: Route,
    /// Words `w5..w7`.
    pub payload: MgmtPayload,
}

/// Why flits are not a valid management packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MgmtDecodeError {
    /// Not [`MGMT_FLITS`] flits.
    Length(usize),
    /// The flit at this position is not what the position needs (head, body, tail).
    FlitType(usize),
    /// The head's header is not a valid fabric header (reserved bits or kind).
    Header(String),
    /// The head's kind is not [`PacketKind::Mgmt`].
    Kind(PacketKind),
    /// The head's `len` is not [`MGMT_FLITS`].
    LenField(u8),
    /// The tail's CRC-16 is not the packet's.
    Crc {
        /// CRC-16 of the head and bodies received.
        computed: u16,
        /// CRC-16 in the tail.
        carried: u16,
    },
    /// Reserved bits of a word are set.
    Reserved {
        /// Word index (0..8).
        word: usize,
        /// The offending bits.
        bits: u64,
    },
    /// `dest_type` is a reserved code.
    DestType(u8),
    /// `nmp_type` is undefined.
    UnknownType(u8),
    /// `error` is undefined.
    UnknownError(u8),
    /// `count` is 0 or above the family's maximum, in a request or successful response.
    BadCount(u8),
    /// The routing fields are malformed.
    Route(&'static str),
}

impl std::fmt::Display for MgmtDecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "malformed management packet: {self:?}")
    }
}

impl std::error::Error for MgmtDecodeError {}

/// CRC-16 of a management packet: `head_data` is the head flit's 64 data bits (the head bit
/// and the header; `delay` is taken as zero here), then the body words.
pub fn packet_crc(head_data: u64, words: &[u64; MGMT_WORDS]) -> u16 {
    let mut d = CRC16.digest();
    d.update_word((head_data & CRC_HEAD_MASK) as u128, 64);
    for &w in words {
        d.update_word(w as u128, 64);
    }
    d.finish() as u16
}

/// The flits of a management packet with header `head` (its kind and `len` are set here) and
/// body words `words`, tail CRC computed.
pub fn pack_words(head: FabricHeader, words: &[u64; MGMT_WORDS]) -> Vec<u128> {
    let head = FabricHeader {
        kind: PacketKind::Mgmt,
        len: MGMT_FLITS as u8,
        ..head
    };
    let mut flits = vec![Flit::Head(head).pack()];
    flits.extend(words.iter().map(|&w| Flit::Body(w).pack()));
    flits.push(
        Flit::Tail {
            crc16: packet_crc(flits[0] as u64, words),
        }
        .pack(),
    );
    flits
}

/// The header and body words of a management packet, checking its framing only: length, flit
/// types, header, kind, `len` and CRC.
pub fn unpack_words(flits: &[u128]) -> Result<(FabricHeader, [u64; MGMT_WORDS]), MgmtDecodeError> {
    if flits.len() != MGMT_FLITS {
        return Err(MgmtDecodeError::Length(flits.len()));
    }
    let mut head = None;
    let mut words = [0u64; MGMT_WORDS];
    let mut carried = 0;
    for (i, &w) in flits.iter().enumerate() {
        match (i, Flit::unpack(w & FLIT_MASK)) {
            _ if w > FLIT_MASK => return Err(MgmtDecodeError::FlitType(i)),
            (0, Ok(Flit::Head(h))) => head = Some(h),
            (0, Err(super::flit::FlitError::BadHeader(e))) => {
                return Err(MgmtDecodeError::Header(e))
            }
            (i, Ok(Flit::Body(d))) if (1..=MGMT_WORDS).contains(&i) => words[i - 1] = d,
            (i, Ok(Flit::Tail { crc16 })) if i == MGMT_FLITS - 1 => carried = crc16,
            _ => return Err(MgmtDecodeError::FlitType(i)),
        }
    }
    let head = head.expect("position 0 checked");
    if head.kind != PacketKind::Mgmt {
        return Err(MgmtDecodeError::Kind(head.kind));
    }
    if head.len as usize != MGMT_FLITS {
        return Err(MgmtDecodeError::LenField(head.len));
    }
    let computed = packet_crc(flits[0] as u64, &words);
    if computed != carried {
        return Err(MgmtDecodeError::Crc { computed, carried });
    }
    Ok((head, words))
}

impl MgmtPacket {
    /// The eight body words. Panics if the payload's family is not the type's, or a field does
    /// not fit (a caller's bug, not bad input).
    pub fn words(&self) -> [u64; MGMT_WORDS] {
        assert_eq!(
            self.nmp_type.family(),
            self.payload.family(),
            "{:?} with a {:?} payload",
            self.nmp_type,
            self.payload
        );
        let w0 = DEST_TYPE.set(0, self.dest_type.code() as u128);
        let w0 = SRC_VP.set(w0, self.src_vp as u128);
        let w0 = DEST_VP.set(w0, self.dest_vp as u128);
        let w0 = TRANSACTION_ID.set(w0, self.transaction_id as u128);
        let w0 = NMP_TYPE.set(w0, self.nmp_type.code() as u128);
        let w0 = ERROR.set(w0, self.error.code() as u128);
        let [f0, f1] = self.forward.words(true);
        let [b0, b1] = self.backward.words(false);
        let [p0, p1, p2] = self.payload.words();
        [w0 as u64, f0, f1, b0, b1, p0, p1, p2]
    }

    /// The header of the head flit (delay zero).
    pub fn header(&self) -> FabricHeader {
        FabricHeader {
            dst: self.dest_id,
            src: self.src,
            vc: self.vc,
            kind: PacketKind::Mgmt,
            len: MGMT_FLITS as u8,
            delay: 0,
        }
    }

    /// The packet's [`MGMT_FLITS`] flits.
    pub fn pack(&self) -> Vec<u128> {
        pack_words(self.header(), &self.words())
    }

    /// Decodes flits, rejecting bad framing, reserved bits, undefined codes, bad counts and
    /// bad routes.
    pub fn unpack(flits: &[u128]) -> Result<MgmtPacket, MgmtDecodeError> {
        let (head, words) = unpack_words(flits)?;
        Self::from_words(&head, &words)
    }

    /// Decodes the header and body words of a well-framed packet (see [`MgmtPacket::unpack`]).
    pub fn from_words(
        head: &FabricHeader,
        words: &[u64; MGMT_WORDS],
    ) -> Result<MgmtPacket, MgmtDecodeError> {
        let check = |word: usize, mask: u64| match words[word] & mask {
            0 => Ok(()),
            bits => Err(MgmtDecodeError::Reserved { word, bits }),
        };
        check(W_INFO, reserved_mask(&INFO_FIELDS))?;
        check(W_FORWARD, reserved_mask(&route_low_fields(true)))?;
        check(W_FORWARD_HIGH, reserved_mask(&route_high_fields()))?;
        check(W_BACKWARD, reserved_mask(&route_low_fields(false)))?;
        check(W_BACKWARD_HIGH, reserved_mask(&route_high_fields()))?;
        let w0 = words[W_INFO] as u128;
        let dest_type = DestType::from_code(DEST_TYPE.get(w0) as u8)
            .ok_or(MgmtDecodeError::DestType(DEST_TYPE.get(w0) as u8))?;
        let code = NMP_TYPE.get(w0) as u8;
        let nmp_type = NmpType::from_code(code).ok_or(MgmtDecodeError::UnknownType(code))?;
        let code = ERROR.get(w0) as u8;
        let error = MgmtError::from_code(code).ok_or(MgmtDecodeError::UnknownError(code))?;
        let forward = Route::from_words(words[W_FORWARD], words[W_FORWARD_HIGH], true);
        let backward = Route::from_words(words[W_BACKWARD], words[W_BACKWARD_HIGH], false);
        if let Some(e) = forward.forward_fault() {
            return Err(MgmtDecodeError::Route(e));
        }
        if backward.hop_num as usize > ROUTE_HOPS {
            return Err(MgmtDecodeError::Route("backward hop_num above 20"));
        }
        for (r, which) in [(&forward, "forward"), (&backward, "backward")] {
            if r.hops[r.hop_num as usize..].iter().any(|&h| h != 0) {
                return Err(MgmtDecodeError::Route(if which == "forward" {
                    "forward hops set beyond hop_num"
                } else {
                    "backward hops set beyond hop_num"
                }));
            }
        }
        let access = words[W_ACCESS] as u128;
        let count = COUNT.get(access) as u8;
        let address0 = ADDRESS0.get(access) as u16;
        let address1 = ADDRESS1.get(access) as u16;
        let (payload, reserved) = match nmp_type.family() {
            NmpFamily::Register => (
                MgmtPayload::Registers {
                    count,
                    address: [address0, address1],
                    data: [words[W_DATA0], words[W_DATA1]],
                },
                [
                    reserved_mask(&ACCESS_FIELDS)
                        | 1 << (ADDRESS0.lsb + REGISTER_ADDRESS_BITS)
                        | 1 << (ADDRESS1.lsb + REGISTER_ADDRESS_BITS),
                    0,
                    0,
                ],
            ),
            NmpFamily::Eeprom => (
                MgmtPayload::Eeprom {
                    count,
                    address: address0,
                    bytes: std::array::from_fn(|i| (words[W_DATA0] >> (8 * i)) as u8),
                },
                [
                    reserved_mask(&ACCESS_FIELDS) | ((ADDRESS1.max() as u64) << ADDRESS1.lsb),
                    !(EEPROM_BYTES.max() as u64),
                    u64::MAX,
                ],
            ),
            NmpFamily::Fault => (
                MgmtPayload::Fault {
                    bits: words[W_DATA0],
                },
                [u64::MAX, 0, u64::MAX],
            ),
        };
        for (i, mask) in reserved.into_iter().enumerate() {
            check(W_ACCESS + i, mask)?;
        }
        let max = match nmp_type.family() {
            NmpFamily::Register => MAX_REGISTERS,
            NmpFamily::Eeprom => MAX_EEPROM_BYTES,
            NmpFamily::Fault => 0,
        };
        // An error response echoes the request's count, which may be the error.
        if nmp_type.family() != NmpFamily::Fault
            && !nmp_type.is_error_response()
            && !(1..=max).contains(&count)
        {
            return Err(MgmtDecodeError::BadCount(count));
        }
        Ok(MgmtPacket {
            dest_id: head.dst,
            src: head.src,
            vc: head.vc,
            dest_type,
            src_vp: SRC_VP.get(w0) as u8,
            dest_vp: DEST_VP.get(w0) as u8,
            transaction_id: TRANSACTION_ID.get(w0) as u16,
            nmp_type,
            error,
            forward,
            backward,
            payload,
        })
    }

    /// What a chip does with this packet arriving on `in_port`, by the routing rule of the
    /// module documentation; the routes are updated unless the packet is malformed.
    pub fn take_hop(&mut self, in_port: u8) -> Hop {
        if self.forward.forward_fault().is_some() || self.backward.backward_fault().is_some() {
            return Hop::Malformed;
        }
        self.backward.hops[self.backward.hop_num as usize] = in_port;
        self.backward.hop_num += 1;
        if self.forward.current == 0 {
            Hop::Arrived
        } else {
            self.forward.current -= 1;
            Hop::Forward(self.forward.hops[self.forward.current as usize])
        }
    }

    /// The response of chip `responder` to `request` as its agent received it (after
    /// [`MgmtPacket::take_hop`] appended the port it came in on): addressed to the request's
    /// source, same VC, VPs and TransactionID, type the request's response ([`NmpType::response`]
    /// with `error == None`), forward route the request's backward route reversed, backward
    /// route empty. `None` if the request's type is not a request (such a request gets a
    /// register error response [`MgmtError::UnknownType`] from the agent, built by hand).
    pub fn response_to(
        request: &MgmtPacket,
        responder: u16,
        error: MgmtError,
        payload: MgmtPayload,
    ) -> Option<MgmtPacket> {
        Some(MgmtPacket {
            dest_id: request.src,
            src: responder,
            vc: request.vc,
            dest_type: DestType::Nic,
            src_vp: request.src_vp,
            dest_vp: request.dest_vp,
            transaction_id: request.transaction_id,
            nmp_type: request.nmp_type.response(error == MgmtError::None)?,
            error,
            forward: request.backward.reversed(),
            backward: Route::default(),
            payload,
        })
    }
}

/// Bits of the bundle the agent's units pass along ([`MgmtBeat`]): the eight words, then the
/// head's `src` and `dst`.
pub const MGMT_BEAT_BITS: usize = 64 * MGMT_WORDS + 2 * header::DST.width;
/// Lowest bit of word `w` in a beat.
pub const fn beat_word_lsb(w: usize) -> usize {
    64 * w
}
/// Lowest bit of the head's `src` in a beat.
pub const BEAT_SRC_LSB: usize = 64 * MGMT_WORDS;
/// Lowest bit of the head's `dst` in a beat.
pub const BEAT_DST_LSB: usize = BEAT_SRC_LSB + header::SRC.width;

/// One management packet as the agent's units see it: the body words and the head's `src`
/// and `dst`, packed into [`MGMT_BEAT_BITS`] bits (words `w0..w7` at bits `64w..`, then
/// `src`, then `dst`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct MgmtBeat {
    /// The head's `src` (the sender; a response's `dst` is the request's `src`).
    pub src: u16,
    /// The head's `dst` (the DestID).
    pub dst: u16,
    /// Words `w0..w7`.
    pub words: [u64; MGMT_WORDS],
}

impl MgmtBeat {
    /// The beat as 64-bit words, lowest first (what a wide port carries).
    pub fn to_words(&self) -> Vec<u64> {
        let mut v = self.words.to_vec();
        v.push(self.src as u64 | (self.dst as u64) << header::SRC.width);
        v
    }
    /// The beat of 64-bit words, lowest first.
    pub fn from_words(w: &[u64]) -> Self {
        MgmtBeat {
            src: w[MGMT_WORDS] as u16,
            dst: (w[MGMT_WORDS] >> header::SRC.width) as u16,
            words: std::array::from_fn(|i| w[i]),
        }
    }
    /// The beat of a packet.
    pub fn of(p: &MgmtPacket) -> Self {
        MgmtBeat {
            src: p.src,
            dst: p.dest_id,
            words: p.words(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::field::check_layout;

    /// A small xorshift generator: the hdl crate has no bench RNG.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    fn random_route(rng: &mut Rng, forward: bool) -> Route {
        let n = rng.below(ROUTE_HOPS as u64 + 1) as usize;
        let path: Vec<u8> = (0..n).map(|_| rng.below(32) as u8).collect();
        let mut r = Route::from_path(&path);
        r.current = if forward {
            rng.below(n as u64 + 1) as u8
        } else {
            0
        };
        r
    }

    fn random_packet(rng: &mut Rng) -> MgmtPacket {
        let (nmp_type, _, _) = NmpType::ALL[rng.below(11) as usize];
        let payload = match nmp_type.family() {
            NmpFamily::Register => {
                let count = 1 + rng.below(2) as u8;
                MgmtPayload::Registers {
                    count,
                    address: [
                        rng.below(1 << 15) as u16,
                        if count == 2 {
                            rng.below(1 << 15) as u16
                        } else {
                            0
                        },
                    ],
                    data: [rng.next(), rng.next()],
                }
            }
            NmpFamily::Eeprom => MgmtPayload::Eeprom {
                count: 1 + rng.below(6) as u8,
                address: rng.next() as u16,
                bytes: std::array::from_fn(|_| rng.next() as u8),
            },
            NmpFamily::Fault => MgmtPayload::Fault { bits: rng.next() },
        };
        MgmtPacket {
            dest_id: rng.next() as u16,
            src: rng.next() as u16,
            vc: rng.below(8) as u8,
            dest_type: if rng.below(2) == 0 {
                DestType::Nic
            } else {
                DestType::Nrc
            },
            src_vp: rng.next() as u8,
            dest_vp: rng.next() as u8,
            transaction_id: rng.next() as u16,
            nmp_type,
            error: if nmp_type.is_error_response() {
                MgmtError::ALL[1 + rng.below(7) as usize].0
            } else {
                MgmtError::None
            },
            forward: random_route(rng, true),
            backward: random_route(rng, false),
            payload,
        }
    }

    #[test]
    fn layouts_fit_their_words() {
        check_layout(&INFO_FIELDS, 64);
        check_layout(&route_low_fields(true), 64);
        check_layout(&route_low_fields(false), 64);
        check_layout(&route_high_fields(), 64);
        check_layout(&ACCESS_FIELDS, 64);
        for f in [
            INFO_FIELDS.to_vec(),
            route_low_fields(true),
            route_high_fields(),
            ACCESS_FIELDS.to_vec(),
        ] {
            assert_eq!(f.iter().map(|f| f.width).sum::<usize>(), 64, "{f:?}");
        }
        // The positions the issue gives.
        assert_eq!(
            (hop_lsb(0), hop_lsb(9), hop_lsb(10), hop_lsb(19)),
            (10, 55, 0, 45)
        );
        assert_eq!(
            (TRANSACTION_ID.msb(), NMP_TYPE.msb(), ERROR.msb()),
            (33, 39, 47)
        );
        assert_eq!((ADDRESS0.msb(), ADDRESS1.msb()), (18, 34));
        assert_eq!(MGMT_BEAT_BITS, 544);
        const { assert!(1 << HOP_NUM.width > ROUTE_HOPS) };
    }

    #[test]
    fn codes_are_distinct_and_fit() {
        for (i, (t, c, _)) in NmpType::ALL.iter().enumerate() {
            assert!((*c as u128) <= NMP_TYPE.max());
            assert_eq!(NmpType::from_code(*c), Some(*t));
            assert!(NmpType::ALL[i + 1..].iter().all(|o| o.1 != *c));
        }
        for (e, c, _) in MgmtError::ALL {
            assert_eq!(MgmtError::from_code(c), Some(e));
        }
        for r in RegError::ALL {
            assert_eq!(MgmtError::from(r).code() as u64, r.code(), "{r:?}");
        }
        assert_eq!(NmpType::from_code(0x06), None);
        assert_eq!(
            NmpType::RegReadRequest.response(true),
            Some(NmpType::RegReadResponse)
        );
        assert_eq!(
            NmpType::EepWriteRequest.response(false),
            Some(NmpType::EepErrorResponse)
        );
        assert_eq!(NmpType::FaultReport.response(true), None);
        assert_eq!(NmpType::RegReadResponse.response(false), None);
    }

    #[test]
    fn random_packets_round_trip() {
        for seed in 1..2000u64 {
            let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
            let p = random_packet(&mut rng);
            let flits = p.pack();
            assert_eq!(flits.len(), MGMT_FLITS);
            assert_eq!(MgmtPacket::unpack(&flits), Ok(p), "seed {seed}");
            let beat = MgmtBeat::of(&p);
            assert_eq!(MgmtBeat::from_words(&beat.to_words()), beat);
        }
    }

    #[test]
    fn routers_may_rewrite_delay() {
        let mut rng = Rng(7);
        let p = random_packet(&mut rng);
        let mut flits = p.pack();
        flits[0] = header::DELAY.set(flits[0], 1234);
        assert_eq!(MgmtPacket::unpack(&flits), Ok(p));
    }

    /// A valid register read request with `words` changed by `f`, re-framed (CRC recomputed).
    fn reframed(f: impl Fn(&mut [u64; MGMT_WORDS])) -> Vec<u128> {
        let p = request();
        let mut w = p.words();
        f(&mut w);
        pack_words(p.header(), &w)
    }

    fn request() -> MgmtPacket {
        MgmtPacket {
            dest_id: 0x0102,
            src: 0x0a0b,
            vc: 3,
            dest_type: DestType::Nrc,
            src_vp: 4,
            dest_vp: 5,
            transaction_id: 0xbeef,
            nmp_type: NmpType::RegReadRequest,
            error: MgmtError::None,
            forward: Route::from_path(&[3, 17, 9]),
            backward: Route::default(),
            payload: MgmtPayload::Registers {
                count: 2,
                address: [0x7fff, 0x0123],
                data: [0, 0],
            },
        }
    }

    #[test]
    fn every_rejection_names_its_reason() {
        use MgmtDecodeError as E;
        let good = request().pack();
        assert!(MgmtPacket::unpack(&good).is_ok());
        // Framing.
        assert_eq!(MgmtPacket::unpack(&good[..9]), Err(E::Length(9)));
        let mut long = good.clone();
        long.insert(5, Flit::Body(0).pack());
        assert_eq!(MgmtPacket::unpack(&long), Err(E::Length(11)));
        let mut f = good.clone();
        f[4] = Flit::Tail { crc16: 0 }.pack();
        assert_eq!(MgmtPacket::unpack(&f), Err(E::FlitType(4)));
        let mut f = good.clone();
        f[0] = Flit::Body(0).pack();
        assert_eq!(MgmtPacket::unpack(&f), Err(E::FlitType(0)));
        let mut f = good.clone();
        f[9] = Flit::Body(0).pack();
        assert_eq!(MgmtPacket::unpack(&f), Err(E::FlitType(9)));
        let mut f = good.clone();
        f[0] = header::KIND.set(f[0], PacketKind::Put.code() as u128);
        assert_eq!(MgmtPacket::unpack(&f), Err(E::Kind(PacketKind::Put)));
        let mut f = good.clone();
        f[0] = header::KIND.set(f[0], 9);
        assert!(matches!(MgmtPacket::unpack(&f), Err(E::Header(_))));
        let mut f = good.clone();
        f[0] = header::LEN.set(f[0], 9);
        assert_eq!(MgmtPacket::unpack(&f), Err(E::LenField(9)));
        for bit in [0, 40, 63] {
            let mut f = good.clone();
            f[3] ^= 1 << bit;
            assert!(
                matches!(MgmtPacket::unpack(&f), Err(E::Crc { .. })),
                "bit {bit}"
            );
        }
        let mut f = good.clone();
        f[0] ^= 1 << header::DST.lsb;
        assert!(matches!(MgmtPacket::unpack(&f), Err(E::Crc { .. })));
        let mut f = good.clone();
        f[9] ^= 1;
        assert!(matches!(MgmtPacket::unpack(&f), Err(E::Crc { .. })));
        // Contents.
        let cases: Vec<(Vec<u128>, E)> = vec![
            (
                reframed(|w| w[0] |= 1 << 50),
                E::Reserved {
                    word: 0,
                    bits: 1 << 50,
                },
            ),
            (
                reframed(|w| w[1] |= 1 << 61),
                E::Reserved {
                    word: 1,
                    bits: 1 << 61,
                },
            ),
            (
                reframed(|w| w[2] |= 1 << 55),
                E::Reserved {
                    word: 2,
                    bits: 1 << 55,
                },
            ),
            (
                reframed(|w| w[3] |= 1 << 6),
                E::Reserved {
                    word: 3,
                    bits: 1 << 6,
                },
            ),
            (
                reframed(|w| w[4] |= 1 << 63),
                E::Reserved {
                    word: 4,
                    bits: 1 << 63,
                },
            ),
            (
                reframed(|w| w[5] |= 1 << 40),
                E::Reserved {
                    word: 5,
                    bits: 1 << 40,
                },
            ),
            (
                reframed(|w| w[5] |= 1 << 18),
                E::Reserved {
                    word: 5,
                    bits: 1 << 18,
                },
            ),
            (reframed(|w| w[0] |= 3), E::DestType(3)),
            (
                reframed(|w| w[0] = NMP_TYPE.set(w[0] as u128, 0x3f) as u64),
                E::UnknownType(0x3f),
            ),
            (
                reframed(|w| w[0] = ERROR.set(w[0] as u128, 8) as u64),
                E::UnknownError(8),
            ),
            (
                reframed(|w| w[5] = COUNT.set(w[5] as u128, 0) as u64),
                E::BadCount(0),
            ),
            (
                reframed(|w| w[5] = COUNT.set(w[5] as u128, 3) as u64),
                E::BadCount(3),
            ),
            (
                reframed(|w| w[1] = CURRENT.set(w[1] as u128, 4) as u64),
                E::Route("forward current above hop_num"),
            ),
            (
                reframed(|w| w[1] = HOP_NUM.set(w[1] as u128, 21) as u64),
                E::Route("forward hop_num above 20"),
            ),
            (
                reframed(|w| w[3] = HOP_NUM.set(w[3] as u128, 25) as u64),
                E::Route("backward hop_num above 20"),
            ),
            (
                reframed(|w| w[1] = hop_field(5).set(w[1] as u128, 1) as u64),
                E::Route("forward hops set beyond hop_num"),
            ),
            (
                reframed(|w| w[4] = hop_field(12).set(w[4] as u128, 1) as u64),
                E::Route("backward hops set beyond hop_num"),
            ),
        ];
        for (flits, want) in cases {
            assert_eq!(MgmtPacket::unpack(&flits), Err(want.clone()), "{want:?}");
            assert!(unpack_words(&flits).is_ok(), "framing is fine: {want:?}");
        }
        // EEPROM: address1, bytes 6..7 and w7 are reserved; counts up to 6.
        let mut e = request();
        e.nmp_type = NmpType::EepWriteRequest;
        e.payload = MgmtPayload::Eeprom {
            count: 6,
            address: 0xfffa,
            bytes: [1, 2, 3, 4, 5, 6],
        };
        assert_eq!(MgmtPacket::unpack(&e.pack()), Ok(e));
        let mut w = e.words();
        w[6] |= 1 << 50;
        assert_eq!(
            MgmtPacket::unpack(&pack_words(e.header(), &w)),
            Err(E::Reserved {
                word: 6,
                bits: 1 << 50
            })
        );
        let mut w = e.words();
        w[5] = COUNT.set(w[5] as u128, 7) as u64;
        assert_eq!(
            MgmtPacket::unpack(&pack_words(e.header(), &w)),
            Err(E::BadCount(7))
        );
        // An error response may echo a bad count.
        let mut r = e;
        r.nmp_type = NmpType::EepErrorResponse;
        r.error = MgmtError::BadCount;
        r.payload = MgmtPayload::Eeprom {
            count: 0,
            address: 0,
            bytes: [0; 6],
        };
        assert_eq!(MgmtPacket::unpack(&r.pack()), Ok(r));
    }

    #[test]
    fn a_request_goes_out_and_its_response_comes_back() {
        // Server NIC -> R1 (out 3) -> R2 (out 17) -> R3 (out 9) -> target.
        let mut p = request();
        let arrivals = [
            (1u8, Hop::Forward(3)),
            (4, Hop::Forward(17)),
            (30, Hop::Forward(9)),
        ];
        for (in_port, want) in arrivals {
            assert_eq!(p.take_hop(in_port), want);
        }
        assert_eq!(p.take_hop(12), Hop::Arrived);
        assert_eq!(p.backward.path(), vec![12, 30, 4, 1]);
        assert_eq!(p.backward.hop_num, 4);
        // The agent answers; the packer sends it out on the port the request came in on.
        let mut r = MgmtPacket::response_to(
            &p,
            0x0102,
            MgmtError::None,
            MgmtPayload::Registers {
                count: 2,
                address: [0x7fff, 0x0123],
                data: [11, 22],
            },
        )
        .unwrap();
        assert_eq!(r.nmp_type, NmpType::RegReadResponse);
        assert_eq!(
            (r.dest_id, r.src, r.transaction_id),
            (0x0a0b, 0x0102, 0xbeef)
        );
        assert_eq!(MgmtPacket::unpack(&r.pack()), Ok(r));
        assert_eq!(r.forward.current, 4);
        r.forward.current -= 1;
        assert_eq!(r.forward.hops[r.forward.current as usize], 12);
        // Back through R3, R2, R1 to the server's NIC.
        for (in_port, want) in [
            (9u8, Hop::Forward(30)),
            (17, Hop::Forward(4)),
            (3, Hop::Forward(1)),
        ] {
            assert_eq!(r.take_hop(in_port), want);
        }
        assert_eq!(r.take_hop(0), Hop::Arrived);
        let e = MgmtPacket::response_to(&p, 1, MgmtError::Unmapped, p.payload).unwrap();
        assert_eq!(
            (e.nmp_type, e.error),
            (NmpType::RegErrorResponse, MgmtError::Unmapped)
        );
        assert_eq!(
            MgmtPacket::response_to(&r, 1, MgmtError::None, r.payload),
            None
        );
    }

    #[test]
    fn malformed_routes_are_refused_unchanged() {
        let mut p = request();
        p.backward = Route::from_path(&[1; ROUTE_HOPS]);
        p.backward.current = 0;
        let before = p;
        assert_eq!(p.take_hop(2), Hop::Malformed, "backward route full");
        assert_eq!(p, before);
        let mut p = request();
        p.forward.current = 5;
        assert_eq!(p.take_hop(2), Hop::Malformed, "current above hop_num");
        let mut p = request();
        p.forward.hop_num = 21;
        p.forward.current = 0;
        assert_eq!(p.take_hop(2), Hop::Malformed, "hop_num above 20");
        // Nineteen routers are the most a request can cross: the target appends the twentieth.
        let mut p = request();
        p.forward = Route::from_path(&[7; ROUTE_HOPS - 1]);
        for _ in 0..ROUTE_HOPS - 1 {
            assert_eq!(p.take_hop(1), Hop::Forward(7));
        }
        assert_eq!(p.take_hop(1), Hop::Arrived);
        assert_eq!(p.backward.hop_num as usize, ROUTE_HOPS);
        assert_eq!(Route::from_path(&[5, 6, 7]).path(), vec![5, 6, 7]);
    }
}
