//! Reference model of `PutUpload` (nic::receive), transaction level, written from the PUT rule
//! of `docs/nic-design.md` ("Receive engine (part 4)"): a PUT packet's payload words as the
//! receive buffer offers them, the write beats the host must see, and the event it must get.
use crate::host::memory::{write_beats, WriteBeat, BEAT_BYTES};
use hdl::formats::header::PacketKind;
use hdl::formats::nic::{Event, EventKind, EventStatus};

/// A checked PUT packet, as the `ReceivedPacket` bundle carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PutPacket {
    /// Source node.
    pub src_node: u16,
    /// Source function.
    pub src_function: u8,
    /// Source QP.
    pub src_qp: u8,
    /// Target function (the writer).
    pub dst_function: u8,
    /// Target QP.
    pub dst_qp: u8,
    /// Host address of the first payload byte (48 bits).
    pub address: u64,
    /// The payload, 1..=2016 bytes.
    pub data: Vec<u8>,
    /// `event` flag.
    pub event: bool,
    /// `last` flag (the message's last packet).
    pub message_last: bool,
    /// `get_response` flag.
    pub get_response: bool,
}

/// Where an event goes and what it says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PutEvent {
    /// Function whose ring gets it.
    pub function: u8,
    /// QP.
    pub qp: u8,
    /// The receive ring (else the send ring).
    pub receive_ring: bool,
    /// The event (phase false: the event writer sets it).
    pub event: Event,
}

impl PutPacket {
    /// The payload words: byte `i` in bits `8 (i mod 8)..` of word `i / 8`, the last word
    /// zero-padded.
    pub fn words(&self) -> Vec<u64> {
        self.data
            .chunks(8)
            .map(|c| {
                let mut b = [0u8; 8];
                b[..c.len()].copy_from_slice(c);
                u64::from_le_bytes(b)
            })
            .collect()
    }

    /// The write beats the host must take, in order: the payload's 16-byte blocks with their
    /// enables, a write ending at every multiple of `max_payload` and at the packet's end.
    pub fn beats(&self, max_payload: u64) -> Vec<WriteBeat> {
        let mut beats = write_beats(self.dst_function, self.address, &self.data);
        for b in &mut beats {
            b.last |= (b.address + BEAT_BYTES).is_multiple_of(max_payload);
        }
        beats
    }

    /// The event the packet asks for, if any.
    pub fn event(&self) -> Option<PutEvent> {
        if !(self.event && self.message_last) {
            return None;
        }
        let (kind, op) = if self.get_response {
            (EventKind::Send, PacketKind::Get.code())
        } else {
            (EventKind::Receive, PacketKind::Put.code())
        };
        Some(PutEvent {
            function: self.dst_function,
            qp: self.dst_qp,
            receive_ring: !self.get_response,
            event: Event {
                kind,
                status: EventStatus::Ok,
                op,
                qp: self.dst_qp,
                peer_node: self.src_node,
                peer_function: self.src_function,
                peer_qp: self.src_qp,
                length: self.data.len() as u32,
                info: (self.address + self.data.len() as u64) as u32,
                phase: false,
            },
        })
    }
}
