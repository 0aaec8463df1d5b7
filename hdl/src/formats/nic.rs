//! The NIC's formats (issue 13, `nic-dma-sriov.md`, `docs/nic-design.md`): the network packet
//! the DMA engines send and receive, the descriptors software writes into host memory, the
//! doorbell word that names one, and the completion events the NIC writes back.
//!
//! Each format is a table of [`Field`]s (the hardware's field extraction, `docs/formats.md`
//! and the codecs below all read them) and a Rust type with `pack` / `unpack`, where `unpack`
//! names every reason it refuses input ([`NicPacketError`], [`DescriptorError`],
//! [`DoorbellError`], [`EventError`]). What the hardware does with each refusal (drop and
//! count, error completion event) is the engines' documentation; the reasons are defined here
//! once, and [`EventStatus`] gives each a code for the error events.
//!
//! # Network packet
//! A fabric packet of kind NAP, PUT or GET: the head (the [`FabricHeader`]), one **header
//! flit** ([`HEADER_FIELDS`], a body flit), the payload in body flits (byte `i` in flit
//! `i / 8`, bits `8 (i % 8) + 7 .. 8 (i % 8)`; the unused bytes of the last flit zero), and the
//! **tail**: the fabric CRC-16 in bits 15..0 as every packet's, and in its spare bits 61..16 the
//! NIC's [`TAIL_FIELDS`] (source and destination function and QP, QPMagic). Head + header +
//! tail = [`OVERHEAD_FLITS`], so `len = 3 + ceil(bytes / 8)`.
//!
//! The CRC-16 ([`crate::crc::CRC16`]) covers the head's 64 data bits with `delay` taken as
//! zero (routers add to it), the header flit, the payload flits, then the tail's 46 spare bits
//! (bits 61..16 as one 46-bit word): a corrupted key or QP number is a CRC error, never a
//! delivery to the wrong QP. Each 64-bit word is fed most significant bit first.
//!
//! Packets of one message travel in order (one source QP, one destination, one VC); the
//! target acts on a message when its `last` packet arrives.
use super::field::Field;
use super::flit::{Flit, FlitError, FLIT_MASK, TAIL_BIT, TAIL_CRC};
use super::header::{FabricHeader, PacketKind};
use super::mgmt::CRC_HEAD_MASK;
use crate::crc::CRC16;

/// Bits of a function number in packets, doorbells and events: at most 8 functions (1 PF +
/// 7 VFs, `nic-dma-sriov.md`).
pub const FUNCTION_BITS: usize = 3;
/// Bits of a QP number: at most 16 QPs per function.
pub const QP_BITS: usize = 4;
/// Bits of a host address.
pub const ADDRESS_BITS: usize = 48;
/// Flits of a packet besides its payload: head, header flit, tail.
pub const OVERHEAD_FLITS: usize = 3;
/// Most payload flits of a packet (a fabric packet has at most 255 flits).
pub const MAX_PAYLOAD_FLITS: usize = 255 - OVERHEAD_FLITS;
/// Most payload bytes of a packet.
pub const MAX_PACKET_BYTES: usize = 8 * MAX_PAYLOAD_FLITS;
/// Most bytes of a NAP message (one NAP receive buffer, 2 KB aligned).
pub const NAP_MAX_BYTES: usize = 2048;
/// Most immediate bytes a NAP-immediate descriptor carries.
pub const IMMEDIATE_MAX_BYTES: usize = 256;
/// Most source (and destination) segments of a PUT or GET descriptor.
pub const MAX_SEGMENTS: usize = 16;
/// Bytes of a completion event (one 128-bit host beat).
pub const EVENT_BYTES: usize = 16;
/// Bits of the tail covered by the CRC besides the head and bodies: its spare bits 61..16.
pub const TAIL_SPARE_BITS: usize = TAIL_BIT - TAIL_CRC.width;

const fn field(name: &'static str, lsb: usize, width: usize, doc: &'static str) -> Field {
    Field {
        name,
        lsb,
        width,
        doc,
    }
}

// ---- Network packet: header flit ----

/// Header flit: PUT target address.
pub const ADDRESS: Field = field(
    "address",
    0,
    ADDRESS_BITS,
    "PUT: host address at the target of the packet's first payload byte; GET: zero; NAP: `nap_offset`, `nap_length`",
);
/// Header flit of a NAP: offset of this packet's payload in its message.
pub const NAP_OFFSET: Field = field(
    "nap_offset",
    0,
    11,
    "NAP: byte offset of this packet's payload in its message (0..=2047)",
);
/// Header flit of a NAP: the message's length.
pub const NAP_LENGTH: Field = field(
    "nap_length",
    11,
    12,
    "NAP: the message's length in bytes (1..=2048); bits 47..23 are zero",
);
/// Header flit: payload bytes.
pub const BYTES: Field = field(
    "bytes",
    48,
    11,
    "payload bytes of this packet (1..=2016; `len` = 3 + ceil(bytes / 8))",
);
/// Header flit flag: event requested.
pub const EVENT: Field = field(
    "event",
    59,
    1,
    "post a receive-completion event at the target when the message ends (PUT: on request; NAP: always, so set)",
);
/// Header flit flag: last packet of the message.
pub const LAST: Field = field(
    "last",
    60,
    1,
    "last packet of its message: the target completes the message (event, GET response) on it",
);
/// Header flit flag: the PUT answers a GET.
pub const GET_RESPONSE: Field = field(
    "get_response",
    61,
    1,
    "PUT only: the data a GET asked for (its last packet completes the requester's GET)",
);
/// Header flit: reserved.
pub const HEADER_RESERVED: Field = field("reserved", 62, 2, "reserved, zero");

/// The header flit's fields, lowest first (the NAP fields overlay `address`).
pub const HEADER_FIELDS: [Field; 6] = [ADDRESS, BYTES, EVENT, LAST, GET_RESPONSE, HEADER_RESERVED];
/// The fields `address` holds in a NAP.
pub const NAP_FIELDS: [Field; 2] = [NAP_OFFSET, NAP_LENGTH];

// ---- Network packet: tail ----

/// Tail: the sending QP.
pub const SRC_QP: Field = field("src_qp", 16, QP_BITS, "source QP (of the source function)");
/// Tail: the sending function.
pub const SRC_FUNCTION: Field = field(
    "src_function",
    20,
    FUNCTION_BITS,
    "source function (0 the PF, 1..=7 VFs)",
);
/// Tail: the target QP.
pub const DST_QP: Field = field(
    "dst_qp",
    23,
    QP_BITS,
    "destination QP (of the destination function)",
);
/// Tail: the target function.
pub const DST_FUNCTION: Field = field("dst_function", 27, FUNCTION_BITS, "destination function");
/// Tail: the protection key.
pub const QP_MAGIC: Field = field(
    "qp_magic",
    30,
    32,
    "QPMagic: must equal the destination QP's key, else the packet is dropped, counted and reported",
);

/// The NIC's fields of a tail flit (bits 15..0 are the fabric CRC-16, `crc16`), lowest first.
pub const TAIL_FIELDS: [Field; 6] = [
    TAIL_CRC,
    SRC_QP,
    SRC_FUNCTION,
    DST_QP,
    DST_FUNCTION,
    QP_MAGIC,
];

/// What a NIC packet does at its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NicOp {
    /// Non-address packet: part of a message of `message_bytes` (1..=2048) bytes, at `offset`,
    /// written into a NAP buffer the target chooses.
    Nap {
        /// Byte offset of this packet's payload in its message.
        offset: u16,
        /// The message's length in bytes.
        message_bytes: u16,
    },
    /// Memory write at `address` of the target.
    Put {
        /// Target address of the first payload byte.
        address: u64,
        /// The data a GET asked for.
        get_response: bool,
    },
    /// Read request: the payload is the GET descriptor's body ([`Descriptor::get_body`]).
    Get,
}

impl NicOp {
    /// The fabric packet kind.
    pub fn kind(&self) -> PacketKind {
        match self {
            NicOp::Nap { .. } => PacketKind::Nap,
            NicOp::Put { .. } => PacketKind::Put,
            NicOp::Get => PacketKind::Get,
        }
    }
}

/// A decoded NIC network packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NicPacket {
    /// Destination node.
    pub dst_node: u16,
    /// Source node.
    pub src_node: u16,
    /// Virtual channel.
    pub vc: u8,
    /// Source function.
    pub src_function: u8,
    /// Source QP.
    pub src_qp: u8,
    /// Destination function.
    pub dst_function: u8,
    /// Destination QP.
    pub dst_qp: u8,
    /// Protection key of the destination QP.
    pub qp_magic: u32,
    /// Receive-completion event requested (always set in a NAP).
    pub event: bool,
    /// Last packet of its message.
    pub last: bool,
    /// Kind and placement.
    pub op: NicOp,
    /// Payload bytes (1..=[`MAX_PACKET_BYTES`]).
    pub payload: Vec<u8>,
}

/// Why flits are not a valid NIC packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NicPacketError {
    /// Fewer than [`OVERHEAD_FLITS`] + 1 flits, or more than 255.
    Length(usize),
    /// The flit at this position is not what the position needs (head, body, tail).
    FlitType(usize),
    /// The head's header is not a valid fabric header.
    Header(String),
    /// The head's kind is not NAP, PUT or GET.
    Kind(PacketKind),
    /// The head's `len` is not the number of flits.
    LenField {
        /// `len` in the head.
        len: u8,
        /// Flits received.
        flits: usize,
    },
    /// The tail's CRC-16 is not the packet's.
    Crc {
        /// CRC-16 computed over what arrived.
        computed: u16,
        /// CRC-16 in the tail.
        carried: u16,
    },
    /// `bytes` does not fit the payload flits (or is zero, or above [`MAX_PACKET_BYTES`]).
    Bytes {
        /// `bytes` in the header flit.
        bytes: usize,
        /// Payload flits received.
        flits: usize,
    },
    /// An unused byte of the last payload flit is not zero.
    Padding,
    /// Reserved header bits are set (including `address` bits of a NAP above its fields, and
    /// of a GET).
    Reserved(u64),
    /// A NAP's message length is 0 or above [`NAP_MAX_BYTES`], or its packet runs past it.
    NapRange {
        /// Offset in the message.
        offset: usize,
        /// Payload bytes.
        bytes: usize,
        /// Message length.
        message: usize,
    },
    /// A NAP without its `event` flag.
    NapWithoutEvent,
    /// `get_response` on a packet that is not a PUT.
    GetResponseFlag,
}

impl std::fmt::Display for NicPacketError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "malformed NIC packet: {self:?}")
    }
}

impl std::error::Error for NicPacketError {}

/// The tail's spare bits (61..16) of a tail flit, as the CRC reads them.
fn tail_spare(tail: u128) -> u128 {
    (tail >> TAIL_CRC.width) & ((1u128 << TAIL_SPARE_BITS) - 1)
}

/// CRC-16 of a NIC packet: the head's data bits (`delay` taken as zero), the header flit, the
/// payload flits, then the tail's spare bits; see the module documentation.
pub fn packet_crc(head_data: u64, bodies: &[u64], tail: u128) -> u16 {
    let mut d = CRC16.digest();
    d.update_word((head_data & CRC_HEAD_MASK) as u128, 64);
    for &w in bodies {
        d.update_word(w as u128, 64);
    }
    d.update_word(tail_spare(tail), TAIL_SPARE_BITS);
    d.finish() as u16
}

/// The payload's body flits' 64-bit words: byte `i` in word `i / 8` at bits `8 (i % 8)`.
pub fn payload_words(payload: &[u8]) -> Vec<u64> {
    payload
        .chunks(8)
        .map(|c| c.iter().rev().fold(0u64, |w, &b| (w << 8) | b as u64))
        .collect()
}

impl NicPacket {
    /// The fabric header (delay zero, `len` from the payload).
    pub fn header(&self) -> FabricHeader {
        FabricHeader {
            dst: self.dst_node,
            src: self.src_node,
            vc: self.vc,
            kind: self.op.kind(),
            len: (OVERHEAD_FLITS + self.payload.len().div_ceil(8)) as u8,
            delay: 0,
        }
    }

    /// The header flit's 64 bits.
    pub fn header_word(&self) -> u64 {
        let w = match self.op {
            NicOp::Nap {
                offset,
                message_bytes,
            } => NAP_LENGTH.set(NAP_OFFSET.set(0, offset as u128), message_bytes as u128),
            NicOp::Put { address, .. } => ADDRESS.set(0, address as u128),
            NicOp::Get => 0,
        };
        let w = BYTES.set(w, self.payload.len() as u128);
        let w = EVENT.set(w, self.event as u128);
        let w = LAST.set(w, self.last as u128);
        let gr = matches!(
            self.op,
            NicOp::Put {
                get_response: true,
                ..
            }
        );
        GET_RESPONSE.set(w, gr as u128) as u64
    }

    /// The tail flit with its CRC zero (the CRC covers the rest of it).
    fn tail_without_crc(&self) -> u128 {
        let w = SRC_QP.set(1u128 << TAIL_BIT, self.src_qp as u128);
        let w = SRC_FUNCTION.set(w, self.src_function as u128);
        let w = DST_QP.set(w, self.dst_qp as u128);
        let w = DST_FUNCTION.set(w, self.dst_function as u128);
        QP_MAGIC.set(w, self.qp_magic as u128)
    }

    /// The packet's flits. Panics if a field does not fit or the payload is empty or too long
    /// (a caller's bug, not bad input).
    pub fn pack(&self) -> Vec<u128> {
        assert!(
            (1..=MAX_PACKET_BYTES).contains(&self.payload.len()),
            "NicPacket: {} payload bytes (1..={MAX_PACKET_BYTES})",
            self.payload.len()
        );
        let head = Flit::Head(self.header()).pack();
        let mut bodies = vec![self.header_word()];
        bodies.extend(payload_words(&self.payload));
        let tail = self.tail_without_crc();
        let crc = packet_crc(head as u64, &bodies, tail);
        let mut flits = vec![head];
        flits.extend(bodies.iter().map(|&w| Flit::Body(w).pack()));
        flits.push(TAIL_CRC.set(tail, crc as u128));
        flits
    }

    /// Decodes flits, naming the first thing wrong with them.
    pub fn unpack(flits: &[u128]) -> Result<NicPacket, NicPacketError> {
        let n = flits.len();
        if !(OVERHEAD_FLITS + 1..=255).contains(&n) {
            return Err(NicPacketError::Length(n));
        }
        let head = match Flit::unpack(flits[0]) {
            Ok(Flit::Head(h)) => h,
            Err(FlitError::BadHeader(e)) => return Err(NicPacketError::Header(e)),
            _ => return Err(NicPacketError::FlitType(0)),
        };
        let mut bodies = Vec::with_capacity(n - 2);
        for (i, &w) in flits.iter().enumerate().take(n - 1).skip(1) {
            match Flit::unpack(w) {
                Ok(Flit::Body(d)) => bodies.push(d),
                _ => return Err(NicPacketError::FlitType(i)),
            }
        }
        // A NIC tail is a tail flit whose spare bits are the NIC's, so it is read raw.
        let tail = flits[n - 1];
        if tail > FLIT_MASK || (tail >> TAIL_BIT) != 1 {
            return Err(NicPacketError::FlitType(n - 1));
        }
        if !matches!(
            head.kind,
            PacketKind::Nap | PacketKind::Put | PacketKind::Get
        ) {
            return Err(NicPacketError::Kind(head.kind));
        }
        if head.len as usize != n {
            return Err(NicPacketError::LenField {
                len: head.len,
                flits: n,
            });
        }
        let computed = packet_crc(flits[0] as u64, &bodies, tail);
        let carried = TAIL_CRC.get(tail) as u16;
        if computed != carried {
            return Err(NicPacketError::Crc { computed, carried });
        }
        let h = bodies[0] as u128;
        let words = &bodies[1..];
        let bytes = BYTES.get(h) as usize;
        if bytes == 0 || bytes.div_ceil(8) != words.len() {
            return Err(NicPacketError::Bytes {
                bytes,
                flits: words.len(),
            });
        }
        let mut payload: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        if payload[bytes..].iter().any(|&b| b != 0) {
            return Err(NicPacketError::Padding);
        }
        payload.truncate(bytes);
        if HEADER_RESERVED.get(h) != 0 {
            return Err(NicPacketError::Reserved(h as u64 & mask(&HEADER_RESERVED)));
        }
        let get_response = GET_RESPONSE.get(h) == 1;
        let event = EVENT.get(h) == 1;
        let op = match head.kind {
            PacketKind::Nap => {
                let above = ADDRESS.get(h) >> (NAP_LENGTH.lsb + NAP_LENGTH.width);
                if above != 0 {
                    return Err(NicPacketError::Reserved(
                        (above as u64) << (NAP_LENGTH.lsb + NAP_LENGTH.width),
                    ));
                }
                let (offset, message) = (NAP_OFFSET.get(h) as usize, NAP_LENGTH.get(h) as usize);
                if !(1..=NAP_MAX_BYTES).contains(&message) || offset + bytes > message {
                    return Err(NicPacketError::NapRange {
                        offset,
                        bytes,
                        message,
                    });
                }
                if !event {
                    return Err(NicPacketError::NapWithoutEvent);
                }
                NicOp::Nap {
                    offset: offset as u16,
                    message_bytes: message as u16,
                }
            }
            PacketKind::Put => NicOp::Put {
                address: ADDRESS.get(h) as u64,
                get_response,
            },
            _ => {
                if ADDRESS.get(h) != 0 {
                    return Err(NicPacketError::Reserved(h as u64 & mask(&ADDRESS)));
                }
                NicOp::Get
            }
        };
        if get_response && head.kind != PacketKind::Put {
            return Err(NicPacketError::GetResponseFlag);
        }
        Ok(NicPacket {
            dst_node: head.dst,
            src_node: head.src,
            vc: head.vc,
            src_function: SRC_FUNCTION.get(tail) as u8,
            src_qp: SRC_QP.get(tail) as u8,
            dst_function: DST_FUNCTION.get(tail) as u8,
            dst_qp: DST_QP.get(tail) as u8,
            qp_magic: QP_MAGIC.get(tail) as u32,
            event,
            last: LAST.get(h) == 1,
            op,
            payload,
        })
    }
}

/// The in-place mask of a field within its 64-bit word.
fn mask(f: &Field) -> u64 {
    (f.max() as u64) << f.lsb
}

// ---- Doorbell ----

/// Doorbell: the QP that issues the descriptor.
pub const DOORBELL_QP: Field = field(
    "qp",
    0,
    QP_BITS,
    "the issuing QP of the function whose doorbell register is written (its send-completion ring gets the events)",
);
/// Doorbell: reserved.
pub const DOORBELL_RESERVED: Field = field("reserved", 4, 4, "reserved, zero");
/// Doorbell: descriptor length in words.
pub const DOORBELL_WORDS: Field = field(
    "words",
    8,
    8,
    "descriptor length in 8-byte words (2..=255); must be the descriptor's own length",
);
/// Doorbell: descriptor address.
pub const DOORBELL_ADDRESS: Field = field(
    "address",
    16,
    ADDRESS_BITS,
    "host address of the descriptor, 8-byte aligned",
);
/// The doorbell word's fields, lowest first.
pub const DOORBELL_FIELDS: [Field; 4] = [
    DOORBELL_QP,
    DOORBELL_RESERVED,
    DOORBELL_WORDS,
    DOORBELL_ADDRESS,
];

/// One doorbell: the word a process writes to its function's doorbell register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Doorbell {
    /// The issuing QP.
    pub qp: u8,
    /// Descriptor length in 8-byte words.
    pub words: u8,
    /// Descriptor address (8-byte aligned).
    pub address: u64,
}

/// Why a doorbell word is refused (the engine answers with an error event, status
/// [`EventStatus::BadDoorbell`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DoorbellError {
    /// Reserved bits set.
    Reserved,
    /// Fewer than 2 words: no descriptor is that short.
    Words(u8),
    /// The descriptor address is not 8-byte aligned.
    Unaligned(u64),
}

impl Doorbell {
    /// The 64-bit doorbell word.
    pub fn pack(&self) -> u64 {
        let w = DOORBELL_QP.set(0, self.qp as u128);
        let w = DOORBELL_WORDS.set(w, self.words as u128);
        DOORBELL_ADDRESS.set(w, self.address as u128) as u64
    }
    /// Decodes a doorbell word (the QP's range is the configuration's, checked by the engine).
    pub fn unpack(w: u64) -> Result<Doorbell, DoorbellError> {
        let w = w as u128;
        if DOORBELL_RESERVED.get(w) != 0 {
            return Err(DoorbellError::Reserved);
        }
        let d = Doorbell {
            qp: DOORBELL_QP.get(w) as u8,
            words: DOORBELL_WORDS.get(w) as u8,
            address: DOORBELL_ADDRESS.get(w) as u64,
        };
        if d.words < 2 {
            return Err(DoorbellError::Words(d.words));
        }
        if !d.address.is_multiple_of(8) {
            return Err(DoorbellError::Unaligned(d.address));
        }
        Ok(d)
    }
}

// ---- Descriptors ----

/// Descriptor word 0: kind.
pub const DESC_KIND: Field = field("kind", 0, 3, "descriptor kind (DescriptorKind table)");
/// Descriptor word 0: remote event.
pub const DESC_REMOTE_EVENT: Field = field(
    "remote_event",
    3,
    1,
    "PUT, GET: ask the target for a receive-completion event (a NAP always posts one)",
);
/// Descriptor word 0: local event.
pub const DESC_LOCAL_EVENT: Field = field(
    "local_event",
    4,
    1,
    "post a send-completion event when done (an error always posts an error event)",
);
/// Descriptor word 0: reserved.
pub const DESC_RESERVED0: Field = field("reserved", 5, 3, "reserved, zero");
/// Descriptor word 0: target function.
pub const DESC_DST_FUNCTION: Field =
    field("dst_function", 8, FUNCTION_BITS, "destination function");
/// Descriptor word 0: reserved.
pub const DESC_RESERVED1: Field = field("reserved1", 11, 1, "reserved, zero");
/// Descriptor word 0: target QP.
pub const DESC_DST_QP: Field = field("dst_qp", 12, QP_BITS, "destination QP");
/// Descriptor word 0: target node.
pub const DESC_DST_NODE: Field = field("dst_node", 16, 16, "destination node id");
/// Descriptor word 0: total length.
pub const DESC_LENGTH: Field = field(
    "length",
    32,
    32,
    "bytes to move (NAP: 1..=2048, immediate 1..=256; PUT, GET: 1.., the total of each segment list)",
);
/// Descriptor word 1: key.
pub const DESC_QP_MAGIC: Field = field(
    "qp_magic",
    0,
    32,
    "the destination QP's key (agreed when the connection was set up)",
);
/// Descriptor word 1: software tag.
pub const DESC_TAG: Field = field(
    "tag",
    32,
    32,
    "software's tag, echoed in the send-completion or error event",
);
/// NAP indirect word 2: data address.
pub const DESC_SOURCE: Field = field(
    "source",
    0,
    ADDRESS_BITS,
    "NAP indirect: host address of the data; bits 63..48 zero",
);
/// PUT / GET word 2: source segments.
pub const DESC_SOURCES: Field = field(
    "sources",
    0,
    8,
    "PUT, GET: source segments (1..=16), at the sender for PUT, at the target for GET",
);
/// PUT / GET word 2: destination segments.
pub const DESC_DESTINATIONS: Field = field(
    "destinations",
    8,
    8,
    "PUT, GET: destination segments (1..=16), at the target for PUT, at the sender for GET; bits 31..16 zero",
);
/// GET word 2: the key of the response.
pub const DESC_RESPONSE_KEY: Field = field(
    "response_key",
    32,
    32,
    "GET: the requesting QP's own key, the QPMagic the target's response PUT carries back (checked at the requester like any PUT's); PUT: reserved, zero",
);
/// Segment word 0: address.
pub const SEGMENT_ADDRESS: Field = field(
    "address",
    0,
    ADDRESS_BITS,
    "segment address (bits 63..48 zero)",
);
/// Segment word 1: bytes.
pub const SEGMENT_BYTES: Field = field("bytes", 0, 32, "segment bytes (1..; bits 63..32 zero)");

/// Word 0 of every descriptor.
pub const DESC_CONTROL_FIELDS: [Field; 8] = [
    DESC_KIND,
    DESC_REMOTE_EVENT,
    DESC_LOCAL_EVENT,
    DESC_RESERVED0,
    DESC_DST_FUNCTION,
    DESC_RESERVED1,
    DESC_DST_QP,
    DESC_DST_NODE,
];
/// Word 1 of every descriptor.
pub const DESC_KEY_FIELDS: [Field; 2] = [DESC_QP_MAGIC, DESC_TAG];

/// A descriptor's kind (`kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DescriptorKind {
    /// NAP with the data inside the descriptor.
    NapImmediate,
    /// NAP with the data at an address.
    NapIndirect,
    /// Chain-DMA memory write to the target.
    Put,
    /// Chain-DMA read from the target.
    Get,
}

impl DescriptorKind {
    /// Every kind with its code and meaning.
    pub const ALL: [(DescriptorKind, u8, &'static str); 4] = [
        (
            DescriptorKind::NapImmediate,
            0,
            "NAP immediate: words 2.. hold the data (little-endian bytes, the last word zero-padded); 2 + ceil(length / 8) words",
        ),
        (
            DescriptorKind::NapIndirect,
            1,
            "NAP indirect: word 2 holds the data's address; 3 words",
        ),
        (
            DescriptorKind::Put,
            2,
            "PUT: word 2 the segment counts, then each source segment's address and bytes words, then each destination segment's; 3 + 2 (sources + destinations) words",
        ),
        (
            DescriptorKind::Get,
            3,
            "GET: as PUT, the sources at the target and the destinations here; the target answers with PUT packets",
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
    /// The packets it sends.
    pub fn packet_kind(self) -> PacketKind {
        match self {
            DescriptorKind::NapImmediate | DescriptorKind::NapIndirect => PacketKind::Nap,
            DescriptorKind::Put => PacketKind::Put,
            DescriptorKind::Get => PacketKind::Get,
        }
    }
}

/// One segment of a chain-DMA list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Segment {
    /// Host address.
    pub address: u64,
    /// Bytes (at least 1).
    pub bytes: u32,
}

/// What a descriptor moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DescriptorBody {
    /// NAP with its data (1..=[`IMMEDIATE_MAX_BYTES`] bytes).
    NapImmediate(Vec<u8>),
    /// NAP of `bytes` (1..=[`NAP_MAX_BYTES`]) at `address`.
    NapIndirect {
        /// Data address.
        address: u64,
        /// Data bytes.
        bytes: u32,
    },
    /// PUT: from `sources` here to `destinations` at the target (equal totals).
    Put {
        /// Source segments (local).
        sources: Vec<Segment>,
        /// Destination segments (at the target).
        destinations: Vec<Segment>,
    },
    /// GET: from `sources` at the target to `destinations` here (equal totals).
    Get {
        /// Source segments (at the target).
        sources: Vec<Segment>,
        /// Destination segments (local).
        destinations: Vec<Segment>,
        /// The issuing QP's own key: the response PUT's QPMagic.
        response_key: u32,
    },
}

/// A descriptor as software writes it into host memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Descriptor {
    /// Destination node.
    pub dst_node: u16,
    /// Destination function.
    pub dst_function: u8,
    /// Destination QP.
    pub dst_qp: u8,
    /// PUT, GET: receive-completion event at the target.
    pub remote_event: bool,
    /// Send-completion event here when done.
    pub local_event: bool,
    /// The destination QP's key.
    pub qp_magic: u32,
    /// Software's tag, echoed in events.
    pub tag: u32,
    /// What it moves.
    pub body: DescriptorBody,
}

/// Why descriptor words are refused; each has an error event status ([`EventStatus::from`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DescriptorError {
    /// `kind` is reserved.
    UnknownKind(u8),
    /// The doorbell's word count is not the descriptor's length.
    WordCount {
        /// Words the doorbell named.
        given: usize,
        /// Words the descriptor needs (0 if not even word 0 and 1 arrived).
        needed: usize,
    },
    /// Reserved bits of word `word` are set.
    Reserved {
        /// Word index.
        word: usize,
        /// The offending bits.
        bits: u64,
    },
    /// `length` is zero.
    ZeroLength,
    /// `length` is above the kind's maximum (NAP 2048, immediate 256).
    TooLong(u32),
    /// A segment count is 0 or above [`MAX_SEGMENTS`].
    SegmentCount {
        /// Source segments.
        sources: usize,
        /// Destination segments.
        destinations: usize,
    },
    /// A segment of zero bytes (index in the whole list: sources first).
    ZeroSegment(usize),
    /// The segment lists' totals and `length` are not all equal.
    TotalsMismatch {
        /// `length`.
        length: u64,
        /// Sum of the source segments.
        sources: u64,
        /// Sum of the destination segments.
        destinations: u64,
    },
    /// A padding byte of the immediate data's last word is not zero.
    Padding,
}

impl Descriptor {
    /// The kind.
    pub fn kind(&self) -> DescriptorKind {
        match self.body {
            DescriptorBody::NapImmediate(_) => DescriptorKind::NapImmediate,
            DescriptorBody::NapIndirect { .. } => DescriptorKind::NapIndirect,
            DescriptorBody::Put { .. } => DescriptorKind::Put,
            DescriptorBody::Get { .. } => DescriptorKind::Get,
        }
    }
    /// Bytes the descriptor moves.
    pub fn length(&self) -> u64 {
        match &self.body {
            DescriptorBody::NapImmediate(d) => d.len() as u64,
            DescriptorBody::NapIndirect { bytes, .. } => *bytes as u64,
            DescriptorBody::Put { sources, .. } | DescriptorBody::Get { sources, .. } => {
                sources.iter().map(|s| s.bytes as u64).sum()
            }
        }
    }
    /// The descriptor's 8-byte words. Panics if a field does not fit.
    pub fn pack(&self) -> Vec<u64> {
        let w0 = DESC_KIND.set(0, self.kind().code() as u128);
        let w0 = DESC_REMOTE_EVENT.set(w0, self.remote_event as u128);
        let w0 = DESC_LOCAL_EVENT.set(w0, self.local_event as u128);
        let w0 = DESC_DST_FUNCTION.set(w0, self.dst_function as u128);
        let w0 = DESC_DST_QP.set(w0, self.dst_qp as u128);
        let w0 = DESC_DST_NODE.set(w0, self.dst_node as u128);
        let w0 = DESC_LENGTH.set(w0, self.length() as u128);
        let w1 = DESC_TAG.set(
            DESC_QP_MAGIC.set(0, self.qp_magic as u128),
            self.tag as u128,
        );
        let mut words = vec![w0 as u64, w1 as u64];
        match &self.body {
            DescriptorBody::NapImmediate(d) => words.extend(payload_words(d)),
            DescriptorBody::NapIndirect { address, .. } => {
                words.push(DESC_SOURCE.set(0, *address as u128) as u64)
            }
            DescriptorBody::Put {
                sources,
                destinations,
            } => words.extend(segment_words(sources, destinations, 0)),
            DescriptorBody::Get {
                sources,
                destinations,
                response_key,
            } => words.extend(segment_words(sources, destinations, *response_key)),
        }
        words
    }

    /// For a GET: the words a GET packet carries to the target as its payload (word 2 with
    /// the response key, and the segment lists: what the target needs to answer with PUTs).
    pub fn get_body(&self) -> Option<Vec<u64>> {
        match &self.body {
            DescriptorBody::Get {
                sources,
                destinations,
                response_key,
            } => Some(segment_words(sources, destinations, *response_key)),
            _ => None,
        }
    }

    /// Words a descriptor of `kind` needs, given its first words (word 0, and word 2 for
    /// PUT/GET); `None` if more words must be read to know.
    pub fn words_needed(words: &[u64]) -> Option<usize> {
        let w0 = *words.first()? as u128;
        Some(match DescriptorKind::from_code(DESC_KIND.get(w0) as u8)? {
            DescriptorKind::NapImmediate => 2 + (DESC_LENGTH.get(w0) as usize).div_ceil(8),
            DescriptorKind::NapIndirect => 3,
            DescriptorKind::Put | DescriptorKind::Get => {
                let w2 = *words.get(2)? as u128;
                3 + 2 * (DESC_SOURCES.get(w2) + DESC_DESTINATIONS.get(w2)) as usize
            }
        })
    }

    /// Decodes the `words` a doorbell named, naming the first thing wrong with them.
    pub fn unpack(words: &[u64]) -> Result<Descriptor, DescriptorError> {
        let given = words.len();
        let short = |needed| DescriptorError::WordCount { given, needed };
        if given < 2 {
            return Err(short(0));
        }
        let (w0, w1) = (words[0] as u128, words[1] as u128);
        let code = DESC_KIND.get(w0) as u8;
        let kind = DescriptorKind::from_code(code).ok_or(DescriptorError::UnknownKind(code))?;
        let reserved0 = mask(&DESC_RESERVED0) | mask(&DESC_RESERVED1);
        if words[0] & reserved0 != 0 {
            return Err(DescriptorError::Reserved {
                word: 0,
                bits: words[0] & reserved0,
            });
        }
        let length = DESC_LENGTH.get(w0) as u32;
        if length == 0 {
            return Err(DescriptorError::ZeroLength);
        }
        let max = match kind {
            DescriptorKind::NapImmediate => IMMEDIATE_MAX_BYTES as u32,
            DescriptorKind::NapIndirect => NAP_MAX_BYTES as u32,
            _ => u32::MAX,
        };
        if length > max {
            return Err(DescriptorError::TooLong(length));
        }
        if matches!(kind, DescriptorKind::Put | DescriptorKind::Get) && given < 3 {
            return Err(short(0));
        }
        let needed = Self::words_needed(words).expect("kind known, word 2 present");
        if given != needed {
            return Err(short(needed));
        }
        let reserved = |word: usize, keep: u64| match words[word] & !keep {
            0 => Ok(()),
            bits => Err(DescriptorError::Reserved { word, bits }),
        };
        let body = match kind {
            DescriptorKind::NapImmediate => {
                let mut data: Vec<u8> = words[2..].iter().flat_map(|w| w.to_le_bytes()).collect();
                if data[length as usize..].iter().any(|&b| b != 0) {
                    return Err(DescriptorError::Padding);
                }
                data.truncate(length as usize);
                DescriptorBody::NapImmediate(data)
            }
            DescriptorKind::NapIndirect => {
                reserved(2, mask(&DESC_SOURCE))?;
                DescriptorBody::NapIndirect {
                    address: words[2],
                    bytes: length,
                }
            }
            DescriptorKind::Put | DescriptorKind::Get => {
                // A GET's word 2 carries the response key; in a PUT those bits are reserved.
                let key = match kind {
                    DescriptorKind::Get => mask(&DESC_RESPONSE_KEY),
                    _ => 0,
                };
                reserved(2, mask(&DESC_SOURCES) | mask(&DESC_DESTINATIONS) | key)?;
                let w2 = words[2] as u128;
                let (s, d) = (
                    DESC_SOURCES.get(w2) as usize,
                    DESC_DESTINATIONS.get(w2) as usize,
                );
                if !(1..=MAX_SEGMENTS).contains(&s) || !(1..=MAX_SEGMENTS).contains(&d) {
                    return Err(DescriptorError::SegmentCount {
                        sources: s,
                        destinations: d,
                    });
                }
                let mut segs = Vec::with_capacity(s + d);
                for i in 0..s + d {
                    let (a, b) = (3 + 2 * i, 4 + 2 * i);
                    reserved(a, mask(&SEGMENT_ADDRESS))?;
                    reserved(b, mask(&SEGMENT_BYTES))?;
                    if words[b] == 0 {
                        return Err(DescriptorError::ZeroSegment(i));
                    }
                    segs.push(Segment {
                        address: words[a],
                        bytes: words[b] as u32,
                    });
                }
                let destinations = segs.split_off(s);
                let total = |v: &[Segment]| v.iter().map(|x| x.bytes as u64).sum::<u64>();
                let (ts, td) = (total(&segs), total(&destinations));
                if ts != length as u64 || td != length as u64 {
                    return Err(DescriptorError::TotalsMismatch {
                        length: length as u64,
                        sources: ts,
                        destinations: td,
                    });
                }
                if kind == DescriptorKind::Put {
                    DescriptorBody::Put {
                        sources: segs,
                        destinations,
                    }
                } else {
                    DescriptorBody::Get {
                        sources: segs,
                        destinations,
                        response_key: DESC_RESPONSE_KEY.get(w2) as u32,
                    }
                }
            }
        };
        Ok(Descriptor {
            dst_node: DESC_DST_NODE.get(w0) as u16,
            dst_function: DESC_DST_FUNCTION.get(w0) as u8,
            dst_qp: DESC_DST_QP.get(w0) as u8,
            remote_event: DESC_REMOTE_EVENT.get(w0) == 1,
            local_event: DESC_LOCAL_EVENT.get(w0) == 1,
            qp_magic: DESC_QP_MAGIC.get(w1) as u32,
            tag: DESC_TAG.get(w1) as u32,
            body,
        })
    }
}

/// Word 2 and the segment words of a PUT (`response_key` 0) or GET.
fn segment_words(sources: &[Segment], destinations: &[Segment], response_key: u32) -> Vec<u64> {
    let w2 = DESC_DESTINATIONS.set(
        DESC_SOURCES.set(0, sources.len() as u128),
        destinations.len() as u128,
    );
    let w2 = DESC_RESPONSE_KEY.set(w2, response_key as u128);
    let mut words = vec![w2 as u64];
    for s in sources.iter().chain(destinations) {
        words.push(SEGMENT_ADDRESS.set(0, s.address as u128) as u64);
        words.push(SEGMENT_BYTES.set(0, s.bytes as u128) as u64);
    }
    words
}

// ---- Completion events ----

/// Event word 0: kind.
pub const EVENT_KIND: Field = field("kind", 0, 2, "event kind: 0 send, 1 receive, 2 error");
/// Event word 0: status.
pub const EVENT_STATUS: Field = field(
    "status",
    2,
    6,
    "status code (EventStatus table); 0 for send and receive events",
);
/// Event word 0: operation.
pub const EVENT_OP: Field = field(
    "op",
    8,
    3,
    "the operation's packet kind (0 NAP, 1 PUT, 2 GET); 7 when a descriptor's kind is unknown",
);
/// Event word 0: reserved.
pub const EVENT_RESERVED0: Field = field("reserved", 11, 1, "reserved, zero");
/// Event word 0: local QP.
pub const EVENT_QP: Field = field("qp", 12, QP_BITS, "the local QP whose ring holds the event");
/// Event word 0: peer node.
pub const EVENT_PEER_NODE: Field = field(
    "peer_node",
    16,
    16,
    "the other end: destination node (send events), source node (receive events)",
);
/// Event word 0: peer function.
pub const EVENT_PEER_FUNCTION: Field = field(
    "peer_function",
    32,
    FUNCTION_BITS,
    "the other end's function",
);
/// Event word 0: reserved.
pub const EVENT_RESERVED1: Field = field("reserved1", 35, 1, "reserved, zero");
/// Event word 0: peer QP.
pub const EVENT_PEER_QP: Field = field("peer_qp", 36, QP_BITS, "the other end's QP");
/// Event word 0: reserved.
pub const EVENT_RESERVED2: Field = field("reserved2", 40, 23, "reserved, zero");
/// Event word 0: phase.
pub const EVENT_PHASE: Field = field(
    "phase",
    63,
    1,
    "the ring's pass parity: 1 on the first pass after reset, flipped each time the producer wraps (an entry is new when its phase is the pass software expects)",
);
/// Event word 1: length.
pub const EVENT_LENGTH: Field = field("length", 0, 32, "bytes sent or received");
/// Event word 1: info.
pub const EVENT_INFO: Field = field(
    "info",
    32,
    32,
    "send and descriptor-error events: the descriptor's tag; NAP receive: the NAP-buffer ring index holding the data; PUT receive: bits 31..0 of the end address",
);
/// Event word 0's fields.
pub const EVENT_WORD0_FIELDS: [Field; 10] = [
    EVENT_KIND,
    EVENT_STATUS,
    EVENT_OP,
    EVENT_RESERVED0,
    EVENT_QP,
    EVENT_PEER_NODE,
    EVENT_PEER_FUNCTION,
    EVENT_RESERVED1,
    EVENT_PEER_QP,
    EVENT_RESERVED2,
];
/// Event word 1's fields.
pub const EVENT_WORD1_FIELDS: [Field; 2] = [EVENT_LENGTH, EVENT_INFO];

/// An event's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// A descriptor completed (send-completion ring).
    Send,
    /// A message arrived (receive-completion ring).
    Receive,
    /// Something failed (`status` says what): a descriptor (send-completion ring) or an
    /// arriving packet (receive-completion ring).
    Error,
}

impl EventKind {
    /// The code in `kind`.
    pub fn code(self) -> u8 {
        match self {
            EventKind::Send => 0,
            EventKind::Receive => 1,
            EventKind::Error => 2,
        }
    }
    /// The kind of a code.
    pub fn from_code(c: u8) -> Option<Self> {
        [EventKind::Send, EventKind::Receive, EventKind::Error]
            .into_iter()
            .find(|k| k.code() == c)
    }
}

/// Status codes of events, defined once: what the engines write, the driver model expects and
/// `docs/formats.md` lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventStatus {
    /// Done.
    Ok,
    /// Descriptor: reserved kind.
    UnknownKind,
    /// Descriptor: the doorbell's word count is not the descriptor's length.
    WordCount,
    /// Descriptor: reserved bits set.
    Reserved,
    /// Descriptor: length zero.
    ZeroLength,
    /// Descriptor: length above the kind's maximum.
    TooLong,
    /// Descriptor: a segment count is 0 or above 16.
    SegmentCount,
    /// Descriptor: a zero-byte segment.
    ZeroSegment,
    /// Descriptor: segment totals and length differ.
    TotalsMismatch,
    /// Descriptor: immediate padding not zero.
    Padding,
    /// Doorbell: reserved bits, fewer than 2 words, or an unaligned address.
    BadDoorbell,
    /// Doorbell: a QP the function does not own (at or above `nic.qps_per_function`).
    QpNotOwned,
    /// Doorbell: the issuing QP is disabled.
    QpDisabled,
    /// A host memory read (descriptor or data) completed with an error.
    ReadFailed,
    /// Descriptor: a GET whose segment lists do not fit one packet of
    /// `network.max_packet_flits` (the send engine refuses it; nothing is sent).
    GetTooLong,
    /// Arriving packet: QPMagic differs from the QP's key (nothing written).
    KeyMismatch,
    /// Arriving packet: the destination QP is disabled or not owned (nothing written).
    TargetQpDisabled,
    /// Arriving NAP: the QP's NAP-buffer ring is empty (software posted no buffer); the message
    /// is dropped, nothing written.
    NoBuffer,
    /// Arriving NAP: no room to assemble one more multi-packet message (every open-message
    /// entry busy); the message is dropped, nothing written.
    AssemblyFull,
    /// NAP message: its packets stopped arriving before the message was whole (a packet lost
    /// to a stomp, say); `info` names the buffer, which software takes back.
    NapIncomplete,
    /// Arriving GET: its body is not a valid segment list (segment counts out of 1..=16 or
    /// not matching its words, reserved bits, a zero-byte segment, source and destination
    /// totals differing or above 32 bits); dropped, nothing sent.
    BadGet,
}

impl EventStatus {
    /// Every status with its code and meaning.
    pub const ALL: [(EventStatus, u8, &'static str); 21] = [
        (EventStatus::Ok, 0, "done"),
        (EventStatus::UnknownKind, 1, "descriptor: reserved kind"),
        (EventStatus::WordCount, 2, "descriptor: the doorbell's word count is not the descriptor's length"),
        (EventStatus::Reserved, 3, "descriptor: reserved bits set"),
        (EventStatus::ZeroLength, 4, "descriptor: length zero"),
        (EventStatus::TooLong, 5, "descriptor: length above the kind's maximum (NAP 2048, immediate 256)"),
        (EventStatus::SegmentCount, 6, "descriptor: a segment count is 0 or above 16"),
        (EventStatus::ZeroSegment, 7, "descriptor: a segment of zero bytes"),
        (EventStatus::TotalsMismatch, 8, "descriptor: the segment lists' totals and length differ"),
        (EventStatus::Padding, 9, "descriptor: a padding byte of the immediate data is not zero"),
        (EventStatus::BadDoorbell, 10, "doorbell: reserved bits, fewer than 2 words or an unaligned address"),
        (EventStatus::QpNotOwned, 11, "doorbell: a QP the function does not own"),
        (EventStatus::QpDisabled, 12, "doorbell: the issuing QP is disabled"),
        (EventStatus::ReadFailed, 13, "a host memory read completed with an error"),
        (EventStatus::GetTooLong, 14, "descriptor: a GET whose segment lists do not fit one packet (network.max_packet_flits); nothing sent"),
        (EventStatus::KeyMismatch, 32, "arriving packet: QPMagic is not the QP's key; dropped, nothing written"),
        (EventStatus::TargetQpDisabled, 33, "arriving packet: the destination QP is disabled or not owned; dropped, nothing written"),
        (EventStatus::NoBuffer, 34, "arriving NAP: the QP's NAP-buffer ring is empty; message dropped, nothing written"),
        (EventStatus::AssemblyFull, 35, "arriving NAP: every open-message entry is busy; message dropped, nothing written"),
        (EventStatus::NapIncomplete, 36, "NAP message: its packets stopped arriving before it was whole; `info` names its buffer"),
        (EventStatus::BadGet, 37, "arriving GET: its body is not a valid segment list (counts, words, reserved bits, zero segment, totals); dropped, nothing sent"),
    ];
    /// The code in `status`.
    pub fn code(self) -> u8 {
        Self::ALL
            .iter()
            .find(|s| s.0 == self)
            .map(|s| s.1)
            .expect("listed")
    }
    /// The status of a code, `None` if undefined.
    pub fn from_code(c: u8) -> Option<Self> {
        Self::ALL.iter().find(|s| s.1 == c).map(|s| s.0)
    }
}

impl From<DescriptorError> for EventStatus {
    fn from(e: DescriptorError) -> Self {
        match e {
            DescriptorError::UnknownKind(_) => EventStatus::UnknownKind,
            DescriptorError::WordCount { .. } => EventStatus::WordCount,
            DescriptorError::Reserved { .. } => EventStatus::Reserved,
            DescriptorError::ZeroLength => EventStatus::ZeroLength,
            DescriptorError::TooLong(_) => EventStatus::TooLong,
            DescriptorError::SegmentCount { .. } => EventStatus::SegmentCount,
            DescriptorError::ZeroSegment(_) => EventStatus::ZeroSegment,
            DescriptorError::TotalsMismatch { .. } => EventStatus::TotalsMismatch,
            DescriptorError::Padding => EventStatus::Padding,
        }
    }
}

impl From<DoorbellError> for EventStatus {
    fn from(_: DoorbellError) -> Self {
        EventStatus::BadDoorbell
    }
}

/// `op` of an event whose descriptor's kind is unknown.
pub const OP_UNKNOWN: u8 = 7;

/// A completion event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    /// Kind.
    pub kind: EventKind,
    /// Status ([`EventStatus::Ok`] unless an error event).
    pub status: EventStatus,
    /// The operation's packet kind code (0 NAP, 1 PUT, 2 GET) or [`OP_UNKNOWN`].
    pub op: u8,
    /// Local QP.
    pub qp: u8,
    /// The other end's node.
    pub peer_node: u16,
    /// The other end's function.
    pub peer_function: u8,
    /// The other end's QP.
    pub peer_qp: u8,
    /// Bytes moved.
    pub length: u32,
    /// Tag, ring index or end address (see [`EVENT_INFO`]).
    pub info: u32,
    /// Ring pass parity.
    pub phase: bool,
}

/// Why 16 bytes are not an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventError {
    /// `kind` is 3.
    Kind(u8),
    /// `status` is undefined.
    Status(u8),
    /// `op` is 3..=6.
    Op(u8),
    /// Reserved bits set.
    Reserved(u64),
    /// A send or receive event with a status other than Ok, or an error event with Ok.
    StatusKind,
}

impl Event {
    /// The two 64-bit words (word 0 at the lower address).
    pub fn pack(&self) -> [u64; 2] {
        let w = EVENT_KIND.set(0, self.kind.code() as u128);
        let w = EVENT_STATUS.set(w, self.status.code() as u128);
        let w = EVENT_OP.set(w, self.op as u128);
        let w = EVENT_QP.set(w, self.qp as u128);
        let w = EVENT_PEER_NODE.set(w, self.peer_node as u128);
        let w = EVENT_PEER_FUNCTION.set(w, self.peer_function as u128);
        let w = EVENT_PEER_QP.set(w, self.peer_qp as u128);
        let w = EVENT_PHASE.set(w, self.phase as u128);
        let w1 = EVENT_INFO.set(EVENT_LENGTH.set(0, self.length as u128), self.info as u128);
        [w as u64, w1 as u64]
    }
    /// The event as the 16 bytes in host memory (little-endian words).
    pub fn to_bytes(&self) -> [u8; EVENT_BYTES] {
        let [a, b] = self.pack();
        let mut out = [0u8; EVENT_BYTES];
        out[..8].copy_from_slice(&a.to_le_bytes());
        out[8..].copy_from_slice(&b.to_le_bytes());
        out
    }
    /// Decodes the two words.
    pub fn unpack(words: [u64; 2]) -> Result<Event, EventError> {
        let w = words[0] as u128;
        let reserved = mask(&EVENT_RESERVED0) | mask(&EVENT_RESERVED1) | mask(&EVENT_RESERVED2);
        if words[0] & reserved != 0 {
            return Err(EventError::Reserved(words[0] & reserved));
        }
        let k = EVENT_KIND.get(w) as u8;
        let kind = EventKind::from_code(k).ok_or(EventError::Kind(k))?;
        let s = EVENT_STATUS.get(w) as u8;
        let status = EventStatus::from_code(s).ok_or(EventError::Status(s))?;
        let op = EVENT_OP.get(w) as u8;
        if (3..OP_UNKNOWN).contains(&op) {
            return Err(EventError::Op(op));
        }
        if (kind == EventKind::Error) == (status == EventStatus::Ok) {
            return Err(EventError::StatusKind);
        }
        Ok(Event {
            kind,
            status,
            op,
            qp: EVENT_QP.get(w) as u8,
            peer_node: EVENT_PEER_NODE.get(w) as u16,
            peer_function: EVENT_PEER_FUNCTION.get(w) as u8,
            peer_qp: EVENT_PEER_QP.get(w) as u8,
            length: EVENT_LENGTH.get(words[1] as u128) as u32,
            info: EVENT_INFO.get(words[1] as u128) as u32,
            phase: EVENT_PHASE.get(w) == 1,
        })
    }
    /// Decodes the 16 bytes of host memory.
    pub fn from_bytes(b: &[u8; EVENT_BYTES]) -> Result<Event, EventError> {
        let word = |i: usize| u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().expect("8 bytes"));
        Self::unpack([word(0), word(1)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::field::check_layout;

    /// A small deterministic generator (the `hdl` crate has no `rand`).
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
        fn bytes(&mut self, n: usize) -> Vec<u8> {
            (0..n).map(|_| self.next() as u8).collect()
        }
    }

    #[test]
    fn layouts_fit() {
        check_layout(&HEADER_FIELDS, 64);
        check_layout(&NAP_FIELDS, ADDRESS_BITS);
        let mut t = TAIL_FIELDS.to_vec();
        t.push(field("type/head/tail", TAIL_BIT, 3, ""));
        check_layout(&t, 65);
        assert_eq!(
            QP_MAGIC.msb(),
            TAIL_BIT - 1,
            "the tail's spare bits are all used"
        );
        check_layout(&DOORBELL_FIELDS, 64);
        let mut c = DESC_CONTROL_FIELDS.to_vec();
        c.push(DESC_LENGTH);
        check_layout(&c, 64);
        check_layout(&DESC_KEY_FIELDS, 64);
        let mut e = EVENT_WORD0_FIELDS.to_vec();
        e.push(EVENT_PHASE);
        check_layout(&e, 64);
        assert_eq!(e.iter().map(|f| f.width).sum::<usize>(), 64);
        check_layout(&EVENT_WORD1_FIELDS, 64);
        check_layout(&[DESC_SOURCES, DESC_DESTINATIONS, DESC_RESPONSE_KEY], 64);
        assert!(IMMEDIATE_MAX_BYTES.div_ceil(8) + 2 <= 255);
        const { assert!(3 + 4 * MAX_SEGMENTS <= 255) };
        for (s, c, _) in EventStatus::ALL {
            assert!((c as u128) <= EVENT_STATUS.max(), "{s:?}");
        }
    }

    fn random_packet(r: &mut Rng) -> NicPacket {
        let bytes = match r.below(4) {
            0 => 1 + r.below(8) as usize,
            1 => 1 + r.below(MAX_PACKET_BYTES as u64) as usize,
            2 => MAX_PACKET_BYTES,
            _ => 1 + r.below(256) as usize,
        };
        let op = match r.below(3) {
            0 => {
                let bytes = bytes.min(NAP_MAX_BYTES);
                let message = bytes + r.below((NAP_MAX_BYTES - bytes) as u64 + 1) as usize;
                let offset = r.below((message - bytes) as u64 + 1) as u16;
                return NicPacket {
                    event: true,
                    op: NicOp::Nap {
                        offset,
                        message_bytes: message as u16,
                    },
                    payload: r.bytes(bytes),
                    ..random_packet_fields(r)
                };
            }
            1 => NicOp::Put {
                address: r.next() & ((1 << ADDRESS_BITS) - 1),
                get_response: r.below(2) == 1,
            },
            _ => NicOp::Get,
        };
        NicPacket {
            op,
            payload: r.bytes(bytes),
            event: r.below(2) == 1,
            ..random_packet_fields(r)
        }
    }

    fn random_packet_fields(r: &mut Rng) -> NicPacket {
        NicPacket {
            dst_node: r.next() as u16,
            src_node: r.next() as u16,
            vc: r.below(8) as u8,
            src_function: r.below(8) as u8,
            src_qp: r.below(16) as u8,
            dst_function: r.below(8) as u8,
            dst_qp: r.below(16) as u8,
            qp_magic: r.next() as u32,
            event: false,
            last: r.below(2) == 1,
            op: NicOp::Get,
            payload: vec![],
        }
    }

    #[test]
    fn packets_round_trip_over_many_seeds() {
        for seed in 1..=400u64 {
            let mut r = Rng(seed * 0x9e37_79b9_7f4a_7c15);
            let p = random_packet(&mut r);
            let flits = p.pack();
            assert_eq!(flits.len(), 3 + p.payload.len().div_ceil(8));
            assert_eq!(NicPacket::unpack(&flits), Ok(p.clone()), "seed {seed}");
            // Routers may change `delay`: still valid.
            let mut f = flits.clone();
            f[0] |= 0x7ff << 47;
            assert_eq!(NicPacket::unpack(&f), Ok(p.clone()), "seed {seed}: delay");
            // Any single bit flipped in the data bits, tail spare bits or CRC is refused.
            let i = r.below(flits.len() as u64) as usize;
            let bit = if i == flits.len() - 1 {
                r.below(62)
            } else if i == 0 {
                [0, 20, 40, 60][r.below(4) as usize] + r.below(3)
            } else {
                r.below(64)
            };
            let mut g = flits.clone();
            g[i] ^= 1 << bit;
            assert!(
                NicPacket::unpack(&g).is_err(),
                "seed {seed}: flit {i} bit {bit}"
            );
        }
    }

    fn base_packet() -> NicPacket {
        NicPacket {
            dst_node: 2,
            src_node: 1,
            vc: 0,
            src_function: 1,
            src_qp: 2,
            dst_function: 3,
            dst_qp: 1,
            qp_magic: 0xfeed_beef,
            event: true,
            last: true,
            op: NicOp::Put {
                address: 0x1000,
                get_response: false,
            },
            payload: vec![1, 2, 3, 4, 5, 6, 7, 8, 9],
        }
    }

    /// `flits` with the header flit changed by `f` and the CRC recomputed.
    fn rewrite(flits: &[u128], f: impl Fn(&mut u64)) -> Vec<u128> {
        rewrite_bodies(flits, |b| f(&mut b[0]))
    }

    /// `flits` with the body words changed by `f` and the CRC recomputed.
    fn rewrite_bodies(flits: &[u128], f: impl Fn(&mut Vec<u64>)) -> Vec<u128> {
        let mut bodies: Vec<u64> = flits[1..flits.len() - 1]
            .iter()
            .map(|&w| w as u64)
            .collect();
        f(&mut bodies);
        let mut out = vec![flits[0]];
        out.extend(bodies.iter().map(|&w| Flit::Body(w).pack()));
        let tail = flits[flits.len() - 1];
        let crc = packet_crc(flits[0] as u64, &bodies, tail);
        out.push(TAIL_CRC.set(tail, crc as u128));
        out
    }

    #[test]
    fn every_packet_rejection_names_its_reason() {
        let p = base_packet();
        let f = p.pack();
        use NicPacketError as E;
        assert_eq!(NicPacket::unpack(&f[..3]), Err(E::Length(3)));
        let mut g = f.clone();
        g.swap(0, 1);
        assert_eq!(NicPacket::unpack(&g), Err(E::FlitType(0)));
        let mut g = f.clone();
        g[2] = Flit::Tail { crc16: 0 }.pack();
        assert_eq!(NicPacket::unpack(&g), Err(E::FlitType(2)));
        let mut g = f.clone();
        g[4] = Flit::Body(0).pack();
        assert_eq!(NicPacket::unpack(&g), Err(E::FlitType(4)));
        let mut g = f.clone();
        g[0] = Flit::Head(FabricHeader {
            kind: PacketKind::Mgmt,
            ..p.header()
        })
        .pack();
        assert_eq!(NicPacket::unpack(&g), Err(E::Kind(PacketKind::Mgmt)));
        let mut g = f.clone();
        g[0] = Flit::Head(FabricHeader {
            len: 9,
            ..p.header()
        })
        .pack();
        assert_eq!(NicPacket::unpack(&g), Err(E::LenField { len: 9, flits: 5 }));
        let mut g = f.clone();
        g[4] ^= 1 << 40; // a key bit: covered by the CRC
        assert!(matches!(NicPacket::unpack(&g), Err(E::Crc { .. })));
        let g = rewrite(&f, |h| *h = BYTES.set(*h as u128, 17) as u64);
        assert_eq!(
            NicPacket::unpack(&g),
            Err(E::Bytes {
                bytes: 17,
                flits: 2
            })
        );
        let g = rewrite(&f, |h| *h = BYTES.set(*h as u128, 0) as u64);
        assert_eq!(NicPacket::unpack(&g), Err(E::Bytes { bytes: 0, flits: 2 }));
        let g = rewrite(&f, |h| *h = BYTES.set(*h as u128, 8) as u64);
        assert_eq!(NicPacket::unpack(&g), Err(E::Bytes { bytes: 8, flits: 2 }));
        let g = rewrite_bodies(&f, |b| b[2] |= 0xff00);
        assert_eq!(NicPacket::unpack(&g), Err(E::Padding));
        let g = rewrite(&f, |h| *h |= 1 << 63);
        assert_eq!(NicPacket::unpack(&g), Err(E::Reserved(1 << 63)));
        let nap = NicPacket {
            op: NicOp::Nap {
                offset: 8,
                message_bytes: 17,
            },
            ..p.clone()
        };
        assert_eq!(NicPacket::unpack(&nap.pack()), Ok(nap.clone()));
        let g = rewrite(&nap.pack(), |h| *h = NAP_LENGTH.set(*h as u128, 16) as u64);
        assert_eq!(
            NicPacket::unpack(&g),
            Err(E::NapRange {
                offset: 8,
                bytes: 9,
                message: 16
            })
        );
        let g = rewrite(&nap.pack(), |h| {
            *h = NAP_LENGTH.set(*h as u128, 2049) as u64
        });
        assert!(matches!(
            NicPacket::unpack(&g),
            Err(E::NapRange { message: 2049, .. })
        ));
        let g = rewrite(&nap.pack(), |h| *h |= 1 << 30);
        assert_eq!(NicPacket::unpack(&g), Err(E::Reserved(1 << 30)));
        let g = rewrite(&nap.pack(), |h| *h = EVENT.set(*h as u128, 0) as u64);
        assert_eq!(NicPacket::unpack(&g), Err(E::NapWithoutEvent));
        let g = rewrite(&nap.pack(), |h| *h = GET_RESPONSE.set(*h as u128, 1) as u64);
        assert_eq!(NicPacket::unpack(&g), Err(E::GetResponseFlag));
        let get = NicPacket {
            op: NicOp::Get,
            ..p.clone()
        };
        let g = rewrite(&get.pack(), |h| *h |= 0x40);
        assert_eq!(NicPacket::unpack(&g), Err(E::Reserved(0x40)));
        let mut g = f.clone();
        g[0] |= 1 << 60; // a reserved fabric header bit
        assert!(matches!(NicPacket::unpack(&g), Err(E::Header(_))));
    }

    fn random_descriptor(r: &mut Rng) -> Descriptor {
        let seg = |r: &mut Rng, bytes: u32| Segment {
            address: r.next() & ((1 << ADDRESS_BITS) - 1),
            bytes,
        };
        let split = |r: &mut Rng, total: u32| -> Vec<Segment> {
            let n = (1 + r.below(MAX_SEGMENTS as u64) as u32).min(total);
            let mut cuts: Vec<u32> = (0..n - 1)
                .map(|_| 1 + r.below(total as u64 - 1) as u32)
                .collect();
            cuts.sort();
            cuts.dedup();
            let mut prev = 0;
            let mut out = vec![];
            for c in cuts.into_iter().chain([total]) {
                out.push(seg(r, c - prev));
                prev = c;
            }
            out
        };
        let body = match r.below(4) {
            0 => {
                let n = 1 + r.below(IMMEDIATE_MAX_BYTES as u64) as usize;
                DescriptorBody::NapImmediate(r.bytes(n))
            }
            1 => DescriptorBody::NapIndirect {
                address: r.next() & ((1 << ADDRESS_BITS) - 1),
                bytes: 1 + r.below(NAP_MAX_BYTES as u64) as u32,
            },
            k => {
                let total = 1 + r.below(1 << 20) as u32;
                let (sources, destinations) = (split(r, total), split(r, total));
                if k == 2 {
                    DescriptorBody::Put {
                        sources,
                        destinations,
                    }
                } else {
                    DescriptorBody::Get {
                        sources,
                        destinations,
                        response_key: r.next() as u32,
                    }
                }
            }
        };
        Descriptor {
            dst_node: r.next() as u16,
            dst_function: r.below(8) as u8,
            dst_qp: r.below(16) as u8,
            remote_event: r.below(2) == 1,
            local_event: r.below(2) == 1,
            qp_magic: r.next() as u32,
            tag: r.next() as u32,
            body,
        }
    }

    #[test]
    fn descriptors_round_trip_over_many_seeds() {
        for seed in 1..=400u64 {
            let mut r = Rng(seed * 0x2545_f491_4f6c_dd1d);
            let d = random_descriptor(&mut r);
            let w = d.pack();
            assert_eq!(Descriptor::words_needed(&w), Some(w.len()), "seed {seed}");
            assert_eq!(Descriptor::unpack(&w), Ok(d.clone()), "seed {seed}");
            if let Some(body) = d.get_body() {
                assert_eq!(body, w[2..].to_vec());
            }
        }
    }

    #[test]
    fn every_descriptor_rejection_names_its_reason() {
        use DescriptorError as E;
        let put = Descriptor {
            dst_node: 5,
            dst_function: 1,
            dst_qp: 2,
            remote_event: true,
            local_event: true,
            qp_magic: 7,
            tag: 9,
            body: DescriptorBody::Put {
                sources: vec![
                    Segment {
                        address: 0x100,
                        bytes: 10,
                    },
                    Segment {
                        address: 0x900,
                        bytes: 6,
                    },
                ],
                destinations: vec![Segment {
                    address: 0x4000,
                    bytes: 16,
                }],
            },
        };
        let w = put.pack();
        assert_eq!(
            Descriptor::unpack(&w[..1]),
            Err(E::WordCount {
                given: 1,
                needed: 0
            })
        );
        assert_eq!(
            Descriptor::unpack(&w[..8]),
            Err(E::WordCount {
                given: 8,
                needed: 9
            })
        );
        let mut x = w.clone();
        x.push(0);
        assert_eq!(
            Descriptor::unpack(&x),
            Err(E::WordCount {
                given: 10,
                needed: 9
            })
        );
        let mut x = w.clone();
        x[0] = DESC_KIND.set(x[0] as u128, 5) as u64;
        assert_eq!(Descriptor::unpack(&x), Err(E::UnknownKind(5)));
        let mut x = w.clone();
        x[0] |= 1 << 11;
        assert_eq!(
            Descriptor::unpack(&x),
            Err(E::Reserved {
                word: 0,
                bits: 1 << 11
            })
        );
        let mut x = w.clone();
        x[0] = DESC_LENGTH.set(x[0] as u128, 0) as u64;
        assert_eq!(Descriptor::unpack(&x), Err(E::ZeroLength));
        let mut x = w.clone();
        x[0] = DESC_LENGTH.set(x[0] as u128, 17) as u64;
        assert_eq!(
            Descriptor::unpack(&x),
            Err(E::TotalsMismatch {
                length: 17,
                sources: 16,
                destinations: 16
            })
        );
        let mut x = w.clone();
        x[8] = 15;
        assert_eq!(
            Descriptor::unpack(&x),
            Err(E::TotalsMismatch {
                length: 16,
                sources: 16,
                destinations: 15
            })
        );
        let mut x = w.clone();
        x[4] = 0;
        assert_eq!(Descriptor::unpack(&x), Err(E::ZeroSegment(0)));
        let mut x = w.clone();
        x[3] |= 1 << 50;
        assert_eq!(
            Descriptor::unpack(&x),
            Err(E::Reserved {
                word: 3,
                bits: 1 << 50
            })
        );
        let mut x = w.clone();
        x[2] = DESC_SOURCES.set(x[2] as u128, 0) as u64;
        assert_eq!(
            Descriptor::unpack(&x[..5]),
            Err(E::SegmentCount {
                sources: 0,
                destinations: 1
            })
        );
        let mut x = w.clone();
        x[2] = DESC_DESTINATIONS.set(x[2] as u128, 17) as u64;
        x.resize(3 + 2 * (2 + 17), 0);
        assert_eq!(
            Descriptor::unpack(&x),
            Err(E::SegmentCount {
                sources: 2,
                destinations: 17
            })
        );
        let mut x = w.clone();
        x[2] |= 1 << 20;
        assert_eq!(
            Descriptor::unpack(&x),
            Err(E::Reserved {
                word: 2,
                bits: 1 << 20
            })
        );
        // The response key's bits: reserved in a PUT, the key in a GET.
        let mut x = w.clone();
        x[2] |= 1 << 40;
        assert_eq!(
            Descriptor::unpack(&x),
            Err(E::Reserved {
                word: 2,
                bits: 1 << 40
            })
        );
        let mut x = w.clone();
        x[0] = DESC_KIND.set(x[0] as u128, DescriptorKind::Get.code() as u128) as u64;
        x[2] |= 0xdead_beef << 32;
        match Descriptor::unpack(&x) {
            Ok(Descriptor {
                body: DescriptorBody::Get { response_key, .. },
                ..
            }) => assert_eq!(response_key, 0xdead_beef),
            other => panic!("a GET with a response key: {other:?}"),
        }
        x[2] |= 1 << 20;
        assert_eq!(
            Descriptor::unpack(&x),
            Err(E::Reserved {
                word: 2,
                bits: 1 << 20
            })
        );
        let imm = Descriptor {
            body: DescriptorBody::NapImmediate(vec![1, 2, 3]),
            ..put.clone()
        };
        let mut x = imm.pack();
        x[2] |= 1 << 40;
        assert_eq!(Descriptor::unpack(&x), Err(E::Padding));
        let mut x = imm.pack();
        x[0] = DESC_LENGTH.set(x[0] as u128, 257) as u64;
        assert_eq!(Descriptor::unpack(&x), Err(E::TooLong(257)));
        let ind = Descriptor {
            body: DescriptorBody::NapIndirect {
                address: 0x88,
                bytes: 2049,
            },
            ..put.clone()
        };
        assert_eq!(Descriptor::unpack(&ind.pack()), Err(E::TooLong(2049)));
        let ind = Descriptor {
            body: DescriptorBody::NapIndirect {
                address: 0x88,
                bytes: 2048,
            },
            ..put
        };
        let mut x = ind.pack();
        x[2] |= 1 << 48;
        assert_eq!(
            Descriptor::unpack(&x),
            Err(E::Reserved {
                word: 2,
                bits: 1 << 48
            })
        );
        // Every reason has a status code of its own.
        let statuses: std::collections::HashSet<u8> = [
            E::UnknownKind(5),
            E::WordCount {
                given: 0,
                needed: 0,
            },
            E::Reserved { word: 0, bits: 0 },
            E::ZeroLength,
            E::TooLong(0),
            E::SegmentCount {
                sources: 0,
                destinations: 0,
            },
            E::ZeroSegment(0),
            E::TotalsMismatch {
                length: 0,
                sources: 0,
                destinations: 0,
            },
            E::Padding,
        ]
        .into_iter()
        .map(|e| EventStatus::from(e).code())
        .collect();
        assert_eq!(statuses.len(), 9);
    }

    #[test]
    fn doorbells_round_trip_and_reject() {
        let mut r = Rng(77);
        for _ in 0..400 {
            let d = Doorbell {
                qp: r.below(16) as u8,
                words: 2 + r.below(254) as u8,
                address: r.next() & ((1 << ADDRESS_BITS) - 8),
            };
            assert_eq!(Doorbell::unpack(d.pack()), Ok(d));
            assert_eq!(
                d.pack() >> 16,
                d.address,
                "the address is the word's top 48 bits"
            );
        }
        let d = Doorbell {
            qp: 1,
            words: 3,
            address: 0x1000,
        };
        assert_eq!(
            Doorbell::unpack(d.pack() | 0x10),
            Err(DoorbellError::Reserved)
        );
        assert_eq!(
            Doorbell::unpack(Doorbell { words: 1, ..d }.pack()),
            Err(DoorbellError::Words(1))
        );
        assert_eq!(
            Doorbell::unpack(
                Doorbell {
                    address: 0x1004,
                    ..d
                }
                .pack()
            ),
            Err(DoorbellError::Unaligned(0x1004))
        );
    }

    #[test]
    fn events_round_trip_and_reject() {
        let mut r = Rng(99);
        for _ in 0..400 {
            let kind = EventKind::from_code(r.below(3) as u8).unwrap();
            let status = if kind == EventKind::Error {
                EventStatus::ALL[1 + r.below(16) as usize].0
            } else {
                EventStatus::Ok
            };
            let e = Event {
                kind,
                status,
                op: [0, 1, 2, OP_UNKNOWN][r.below(4) as usize],
                qp: r.below(16) as u8,
                peer_node: r.next() as u16,
                peer_function: r.below(8) as u8,
                peer_qp: r.below(16) as u8,
                length: r.next() as u32,
                info: r.next() as u32,
                phase: r.below(2) == 1,
            };
            assert_eq!(Event::unpack(e.pack()), Ok(e));
            assert_eq!(Event::from_bytes(&e.to_bytes()), Ok(e));
        }
        let e = Event {
            kind: EventKind::Send,
            status: EventStatus::Ok,
            op: 1,
            qp: 0,
            peer_node: 0,
            peer_function: 0,
            peer_qp: 0,
            length: 0,
            info: 0,
            phase: true,
        };
        let [a, b] = e.pack();
        assert_eq!(Event::unpack([a | 3, b]), Err(EventError::Kind(3)));
        assert_eq!(
            Event::unpack([a | 1 << 40, b]),
            Err(EventError::Reserved(1 << 40))
        );
        assert_eq!(
            Event::unpack([EVENT_OP.set(a as u128, 4) as u64, b]),
            Err(EventError::Op(4))
        );
        assert_eq!(Event::unpack([a | 63 << 2, b]), Err(EventError::Status(63)));
        assert_eq!(Event::unpack([a | 1 << 2, b]), Err(EventError::StatusKind));
        assert_eq!(
            Event::unpack([EVENT_KIND.set(a as u128, 2) as u64, b]),
            Err(EventError::StatusKind)
        );
    }
}
