//! Receive engine (issue 13, part 4): from network flits to host writes and completion events
//! (`docs/nic-design.md`, "Receive engine (part 4)").
//!
//! ```text
//! flits (whole packets) ─► ReceiveBuffer (packet RAM, CRC-16, format rules, QP lookup at the tail)
//!                               │ checked packet: header fields held over its payload words
//!                               ▼                         └─► error events (key, disabled QP)
//!                        ReceiveDispatch (by kind)
//!                 ┌─────────────┼──────────────────┐
//!                 ▼             ▼                  ▼
//!            PutUpload      NapUpload ◄─ BufferManager   GetToPut ─► send engine
//!                 └─────┬───────┘ (write beats, receive events)
//!                       ▼
//!                 WriteArbiter ─► write (host)
//! ```
//!
//! Modules: [`receive_buffer`] (with `packet_check`, `packet_ram`, `packet_rules`,
//! `receive_verdict`, `error_event_slot`, `packet_output`); [`receive_dispatch`];
//! [`put_upload`] (with `put_event`); [`beat_assembler`] (bytes into 16-byte write beats, cut
//! at `max_payload`: PUT's and NAP's); [`nap_upload`] (with `nap_flow`, `nap_verdict`,
//! `nap_table`, `nap_event`, `nap_error_post`); [`buffer_manager`] (with `nap_ring_read`, `entry_flags`,
//! `refill_beat`); [`nap_upload_unit`] (NAP upload + buffer manager, top `nic_nap_upload`);
//! [`write_arbiter`]; [`receive_engine`] (all of them joined, top `nic_receive`).
//!
//! The bundle every stage after the check speaks is [`ReceivedPacketSource`] /
//! [`ReceivedPacketSink`], defined here once.
pub mod beat_assembler;
pub mod buffer_manager;
pub mod entry_flags;
pub mod error_event_slot;
pub mod get_emit;
pub mod get_rules;
pub mod get_store;
pub mod get_to_put;
pub mod nap_error_post;
pub mod nap_event;
pub mod nap_flow;
pub mod nap_ring_read;
pub mod nap_table;
pub mod nap_upload;
pub mod nap_upload_unit;
pub mod nap_verdict;
pub mod network_intake;
pub mod packet_check;
pub mod packet_output;
pub mod packet_ram;
pub mod packet_rules;
pub mod put_event;
pub mod put_upload;
pub mod receive_buffer;
pub mod receive_dispatch;
pub mod receive_engine;
pub mod receive_verdict;
pub mod refill_beat;
pub mod write_arbiter;

use hdl::formats::nic::{ADDRESS_BITS, BYTES, FUNCTION_BITS, NAP_LENGTH, NAP_OFFSET, QP_BITS};
pub use receive_buffer::ReceiveBuffer;
use rust_hdl::prelude::*;

/// Bits of a packet's kind code (`PacketKind::code`, the fabric header's `kind`).
pub const PACKET_KIND_BITS: usize = hdl::formats::header::KIND.width;
/// Bits of a packet's payload byte count (the header flit's `bytes`).
pub const PACKET_BYTES_BITS: usize = BYTES.width;
/// Bits of a NAP packet's offset in its message.
pub const NAP_OFFSET_BITS: usize = NAP_OFFSET.width;
/// Bits of a NAP message's length.
pub const NAP_LENGTH_BITS: usize = NAP_LENGTH.width;
/// Bits of the fabric header's `delay`.
pub const DELAY_BITS: usize = hdl::formats::header::DELAY.width;

/// Checked packets, at the receive buffer: a packet that passed every check (CRC-16, the
/// format rules of `NicPacket::unpack`, its target function and QP enabled and owned, its
/// QPMagic the QP's key), one beat per 64-bit payload word, the packet's fields held over all
/// its beats (valid/ready, the hold rule of `hdl::stream`: fields and word held while `valid`
/// until taken).
///
/// Payload words are the packet's payload flits as they arrived: byte `i` of the payload in
/// bits `8 (i mod 8) + 7 .. 8 (i mod 8)` of word `i / 8`; the last word's unused bytes are
/// zero (a format rule). A GET's words are its descriptor body (`Descriptor::get_body`).
#[derive(LogicInterface, Default)]
#[join = "ReceivedPacketSink"]
pub struct ReceivedPacketSource {
    /// A payload word is offered.
    pub valid: Signal<Out, bool>,
    /// The packet's kind code (`PacketKind`: 0 NAP, 1 PUT, 2 GET).
    pub kind: Signal<Out, Bits<PACKET_KIND_BITS>>,
    /// Source node (the head's `src`).
    pub src_node: Signal<Out, Bits<16>>,
    /// Source function (tail).
    pub src_function: Signal<Out, Bits<FUNCTION_BITS>>,
    /// Source QP (tail).
    pub src_qp: Signal<Out, Bits<QP_BITS>>,
    /// Target function (tail), checked enabled.
    pub dst_function: Signal<Out, Bits<FUNCTION_BITS>>,
    /// Target QP (tail), checked owned, enabled and keyed.
    pub dst_qp: Signal<Out, Bits<QP_BITS>>,
    /// The network delay the routers summed into the head (for congestion control).
    pub delay: Signal<Out, Bits<DELAY_BITS>>,
    /// PUT: host address of the first payload byte (zero for GET; NAP: use the fields below).
    pub address: Signal<Out, Bits<ADDRESS_BITS>>,
    /// NAP: byte offset of this packet's payload in its message.
    pub nap_offset: Signal<Out, Bits<NAP_OFFSET_BITS>>,
    /// NAP: the message's length in bytes (1..=2048).
    pub nap_length: Signal<Out, Bits<NAP_LENGTH_BITS>>,
    /// Payload bytes of this packet (1..=2016).
    pub bytes: Signal<Out, Bits<PACKET_BYTES_BITS>>,
    /// The header's `event` flag: a completion event is asked for.
    pub event: Signal<Out, bool>,
    /// The header's `last` flag: the message's last packet.
    pub message_last: Signal<Out, bool>,
    /// The header's `get_response` flag: this PUT answers a GET.
    pub get_response: Signal<Out, bool>,
    /// The payload word.
    pub word: Signal<Out, Bits<64>>,
    /// The packet's last payload word.
    pub last: Signal<Out, bool>,
    /// The word is taken on this edge.
    pub ready: Signal<In, bool>,
}

/// Checked packets, at a consumer (dispatch, upload units).
#[derive(LogicInterface, Default)]
#[join = "ReceivedPacketSource"]
pub struct ReceivedPacketSink {
    /// A payload word is offered.
    pub valid: Signal<In, bool>,
    /// Kind code.
    pub kind: Signal<In, Bits<PACKET_KIND_BITS>>,
    /// Source node.
    pub src_node: Signal<In, Bits<16>>,
    /// Source function.
    pub src_function: Signal<In, Bits<FUNCTION_BITS>>,
    /// Source QP.
    pub src_qp: Signal<In, Bits<QP_BITS>>,
    /// Target function.
    pub dst_function: Signal<In, Bits<FUNCTION_BITS>>,
    /// Target QP.
    pub dst_qp: Signal<In, Bits<QP_BITS>>,
    /// Network delay.
    pub delay: Signal<In, Bits<DELAY_BITS>>,
    /// PUT address of the first payload byte.
    pub address: Signal<In, Bits<ADDRESS_BITS>>,
    /// NAP offset.
    pub nap_offset: Signal<In, Bits<NAP_OFFSET_BITS>>,
    /// NAP message length.
    pub nap_length: Signal<In, Bits<NAP_LENGTH_BITS>>,
    /// Payload bytes.
    pub bytes: Signal<In, Bits<PACKET_BYTES_BITS>>,
    /// Event asked for.
    pub event: Signal<In, bool>,
    /// Message's last packet.
    pub message_last: Signal<In, bool>,
    /// Answers a GET.
    pub get_response: Signal<In, bool>,
    /// The payload word.
    pub word: Signal<In, Bits<64>>,
    /// Last payload word.
    pub last: Signal<In, bool>,
    /// Taken on this edge.
    pub ready: Signal<Out, bool>,
}
