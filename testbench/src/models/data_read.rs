//! Reference model of `nic::send::DataRead`, cycle-accurate at its ports: the segment being
//! read, the held request, the descriptor words that start a segment, the cut at
//! `max_read_request` blocks. Also [`cut`], the requests a segment must give (the bench's
//! scoreboard checks the hardware's requests against it, independently of the cycle model).
use hdl::formats::nic::DescriptorKind;

/// The requests of a segment at `address` of `bytes` bytes, cut at `max_read_request`
/// blocks: `(address, bytes)` each.
pub fn cut(address: u64, bytes: u64, max_read_request: u64) -> Vec<(u64, u64)> {
    let mut out = vec![];
    let (mut a, mut left) = (address, bytes);
    while left > 0 {
        let n = left.min(max_read_request - a % max_read_request);
        out.push((a, n));
        a += n;
        left -= n;
    }
    out
}

/// Rows (16-byte beats) of a request.
pub fn beats(address: u64, bytes: u64) -> u64 {
    (address % 16 + bytes).div_ceil(16)
}

/// The descriptor word offered in a cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct DescriptorWord {
    /// Kind code.
    pub kind: u8,
    /// Issuing function.
    pub function: u8,
    /// Descriptor length.
    pub length: u32,
    /// Source segments (PUT, GET).
    pub sources: u8,
    /// The body word.
    pub word: u64,
    /// Last body word.
    pub last: bool,
}

/// Inputs of one cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct DataReadInputs {
    /// Synchronous reset.
    pub reset: bool,
    /// The descriptor word offered, if any.
    pub descriptor: Option<DescriptorWord>,
    /// The pool's offered tag, if any.
    pub tag: Option<u8>,
    /// The host takes a request.
    pub read_ready: bool,
    /// Free reorder rows.
    pub room: u64,
}

/// A request (at the host port or in the issue record).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// Function.
    pub function: u8,
    /// Address.
    pub address: u64,
    /// Bytes.
    pub bytes: u64,
    /// Tag.
    pub tag: u8,
}

/// The issue record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Issue {
    /// Tag.
    pub tag: u8,
    /// First lane.
    pub lane: u8,
    /// Bytes.
    pub bytes: u64,
    /// Beats.
    pub beats: u64,
    /// Last request of the message.
    pub message_last: bool,
}

/// Outputs of one cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataReadOutputs {
    /// The descriptor word is taken.
    pub descriptor_ready: bool,
    /// The offered tag is taken (with the data read's owner).
    pub tag_ready: bool,
    /// The record of a request decided.
    pub issued: Option<Issue>,
    /// The request offered to the host.
    pub read: Option<Request>,
}

/// The model.
#[derive(Clone, Debug, Default)]
pub struct DataReadModel {
    max_read_request: u64,
    /// The segment: (address, remaining, final segment, function).
    segment: Option<(u64, u64, bool, u8)>,
    segment_address: u64,
    word_index: usize,
    pending: Option<Request>,
}

impl DataReadModel {
    /// A model for `max_read_request`.
    pub fn new(max_read_request: u64) -> Self {
        Self {
            max_read_request,
            ..Default::default()
        }
    }

    /// A segment is being read (requests still to decide).
    pub fn busy(&self) -> bool {
        self.segment.is_some()
    }

    fn next_request(&self) -> Option<(u64, u64, bool)> {
        self.segment.map(|(a, left, _, _)| {
            let block_left = self.max_read_request - a % self.max_read_request;
            let n = left.min(block_left);
            (a, n, left <= block_left)
        })
    }

    fn word_role(&self, d: &DescriptorWord) -> (bool, bool, bool) {
        let put = d.kind == DescriptorKind::Put.code();
        let source = put && self.word_index < 2 * d.sources as usize;
        let indirect = d.kind == DescriptorKind::NapIndirect.code();
        (
            source && self.word_index.is_multiple_of(2),
            source && self.word_index % 2 == 1,
            indirect,
        )
    }

    /// The outputs in this cycle.
    pub fn outputs(&self, i: &DataReadInputs) -> DataReadOutputs {
        let mut o = DataReadOutputs {
            descriptor_ready: !i.reset,
            tag_ready: false,
            issued: None,
            read: self.pending,
        };
        if let Some(d) = &i.descriptor {
            let (_, bytes_word, indirect) = self.word_role(d);
            if (bytes_word || indirect) && self.segment.is_some() {
                o.descriptor_ready = false;
            }
        } else {
            // Nothing offered: the hardware's ready is that of the word it sees (random idle
            // data); the bench does not compare it.
        }
        let slot_free = self.pending.is_none() || i.read_ready;
        if let (Some((a, n, fin)), Some(tag)) = (self.next_request(), i.tag) {
            let b = beats(a, n);
            if slot_free && i.room >= b && !i.reset {
                o.tag_ready = true;
                o.issued = Some(Issue {
                    tag,
                    lane: (a % 16) as u8,
                    bytes: n,
                    beats: b,
                    message_last: fin && self.segment.unwrap().2,
                });
            }
        }
        o
    }

    /// The edge; returns the request decided, if any.
    pub fn edge(&mut self, i: &DataReadInputs) -> Option<Issue> {
        let o = self.outputs(i);
        if i.reset {
            *self = Self::new(self.max_read_request);
            return None;
        }
        if self.pending.is_some() && i.read_ready {
            self.pending = None;
        }
        if let Some(iss) = o.issued {
            let (a, n, fin) = self.next_request().unwrap();
            let seg = self.segment.as_mut().unwrap();
            self.pending = Some(Request {
                function: seg.3,
                address: a,
                bytes: n,
                tag: iss.tag,
            });
            seg.0 += n;
            seg.1 -= n;
            if fin {
                self.segment = None;
            }
        }
        if let Some(d) = &i.descriptor {
            if o.descriptor_ready {
                let (address_word, bytes_word, indirect) = self.word_role(d);
                if address_word {
                    self.segment_address = d.word & ((1 << 48) - 1);
                }
                if indirect {
                    self.segment =
                        Some((d.word & ((1 << 48) - 1), d.length as u64, true, d.function));
                }
                if bytes_word {
                    let fin = self.word_index + 1 == 2 * d.sources as usize;
                    self.segment =
                        Some((self.segment_address, d.word & 0xffff_ffff, fin, d.function));
                }
                self.word_index = if d.last { 0 } else { self.word_index + 1 };
            }
        }
        o.issued
    }
}
