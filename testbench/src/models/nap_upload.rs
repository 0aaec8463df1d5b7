//! Reference model of `NapUpload` (nic::receive), written from the NAP rule of
//! `docs/nic-design.md` ("NAP upload"): the open-message table entry by entry (index choice,
//! bytes received, coarse idle timers), the verdict of each packet at the head, and the events
//! and beats that follow. Outcomes that depend on the buffer manager (a buffer found or not)
//! are given to it by the bench, which checks them against the rings separately.
use crate::host::memory::WriteBeat;
use crate::models::put_upload::PutPacket;
use hdl::formats::header::PacketKind;
use hdl::formats::nic::{Event, EventKind, EventStatus};

/// Ticks after which an untouched entry expires (`nap_table::AGE_LIMIT`).
pub const AGE_LIMIT: u8 = 5;

/// A checked NAP packet, as the `ReceivedPacket` bundle carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NapPacket {
    /// Source node.
    pub src_node: u16,
    /// Source function.
    pub src_function: u8,
    /// Source QP.
    pub src_qp: u8,
    /// Target function.
    pub dst_function: u8,
    /// Target QP.
    pub dst_qp: u8,
    /// Offset of the payload in its message.
    pub offset: u16,
    /// The message's length.
    pub length: u16,
    /// The payload.
    pub data: Vec<u8>,
}

impl NapPacket {
    /// The message key.
    pub fn key(&self) -> (u16, u8, u8, u8, u8) {
        (
            self.src_node,
            self.src_function,
            self.src_qp,
            self.dst_function,
            self.dst_qp,
        )
    }
    /// The payload words, as the bundle carries them.
    pub fn words(&self) -> Vec<u64> {
        self.as_put(0).words()
    }
    /// The beats that write the packet at `buffer` + offset, writes cut at `max_payload`.
    pub fn beats(&self, buffer: u64, max_payload: u64) -> Vec<WriteBeat> {
        self.as_put(buffer + self.offset as u64).beats(max_payload)
    }
    fn as_put(&self, address: u64) -> PutPacket {
        PutPacket {
            src_node: self.src_node,
            src_function: self.src_function,
            src_qp: self.src_qp,
            dst_function: self.dst_function,
            dst_qp: self.dst_qp,
            address,
            data: self.data.clone(),
            event: true,
            message_last: false,
            get_response: false,
        }
    }
}

/// An event with the ring it goes to (always the target QP's receive ring).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NapEventOut {
    /// Function whose ring gets it.
    pub function: u8,
    /// QP.
    pub qp: u8,
    /// The event (phase false: the writer sets it).
    pub event: Event,
}

/// An event of kind `kind` and `status` for the message of `key`.
pub fn nap_event(
    key: (u16, u8, u8, u8, u8),
    kind: EventKind,
    status: EventStatus,
    length: u32,
    info: u32,
) -> NapEventOut {
    NapEventOut {
        function: key.3,
        qp: key.4,
        event: Event {
            kind,
            status,
            op: PacketKind::Nap.code(),
            qp: key.4,
            peer_node: key.0,
            peer_function: key.1,
            peer_qp: key.2,
            length,
            info,
            phase: false,
        },
    }
}

/// An open-message entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The message key.
    pub key: (u16, u8, u8, u8, u8),
    /// Its buffer and ring index, or none (the message is discarded).
    pub buffer: Option<(u64, u16)>,
    /// Bytes received.
    pub received: u16,
    /// Message length.
    pub length: u16,
    /// Ticks untouched.
    pub age: u8,
}

/// What the head does with a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Dropped, counted: it would overrun its message.
    Overrun,
    /// Written into entry `index`'s buffer; `completes` frees the entry with its event.
    Append {
        /// The entry.
        index: usize,
        /// The message is whole with it.
        completes: bool,
    },
    /// Dropped: entry `index` discards its message.
    Swallow {
        /// The entry.
        index: usize,
        /// The message is whole with it.
        completes: bool,
    },
    /// A single-packet message: a buffer, no entry.
    Single,
    /// Dropped: every entry busy.
    Full,
    /// A multi-packet message's first packet: a buffer and entry `index` (the highest free).
    Open {
        /// The entry.
        index: usize,
    },
}

/// The open-message table and its timers.
#[derive(Clone, Debug)]
pub struct NapModel {
    /// The entries.
    pub entries: Vec<Option<Entry>>,
    /// The timer's prescaler.
    pub prescaler: u64,
    /// Cycles per tick (`timeout / 4`).
    pub period: u64,
}

impl NapModel {
    /// A table of `open` entries with idle timeout `timeout`.
    pub fn new(open: usize, timeout: u64) -> Self {
        Self {
            entries: vec![None; open],
            prescaler: 0,
            period: timeout / 4,
        }
    }
    /// The entry of `key`.
    pub fn find(&self, key: (u16, u8, u8, u8, u8)) -> Option<usize> {
        self.entries
            .iter()
            .position(|e| e.is_some_and(|e| e.key == key))
    }
    /// The verdict on `p` at the head.
    pub fn verdict(&self, p: &NapPacket) -> Verdict {
        let bytes = p.data.len() as u16;
        let fits = p.offset + bytes <= p.length;
        match self.find(p.key()) {
            Some(index) => {
                let e = self.entries[index].expect("found");
                let after = e.received + bytes;
                if !fits || p.length != e.length || after > e.length {
                    Verdict::Overrun
                } else if e.buffer.is_some() {
                    Verdict::Append {
                        index,
                        completes: after == e.length,
                    }
                } else {
                    Verdict::Swallow {
                        index,
                        completes: after == e.length,
                    }
                }
            }
            None if !fits => Verdict::Overrun,
            None if p.offset == 0 && bytes == p.length => Verdict::Single,
            None => match self.entries.iter().rposition(|e| e.is_none()) {
                Some(index) => Verdict::Open { index },
                None => Verdict::Full,
            },
        }
    }
    /// The entry that expires now (the highest at the age limit, not touched), if any.
    pub fn expired(&self, touched: Option<usize>) -> Option<usize> {
        self.entries
            .iter()
            .enumerate()
            .rev()
            .find(|(i, e)| Some(*i) != touched && e.is_some_and(|e| e.age == AGE_LIMIT))
            .map(|(i, _)| i)
    }
    /// The clock edge: entry `touched` restarts its timer, the others count a tick.
    pub fn edge(&mut self, touched: Option<usize>) {
        let tick = self.prescaler == self.period - 1;
        self.prescaler = if tick { 0 } else { self.prescaler + 1 };
        for (i, e) in self.entries.iter_mut().enumerate() {
            if let Some(e) = e {
                if Some(i) == touched {
                    e.age = 0;
                } else if tick && e.age != AGE_LIMIT {
                    e.age += 1;
                }
            }
        }
    }
    /// Reset: every entry free, the prescaler restarted.
    pub fn reset(&mut self) {
        self.entries.iter_mut().for_each(|e| *e = None);
        self.prescaler = 0;
    }
}
