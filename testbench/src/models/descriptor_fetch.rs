//! Reference model of `nic::descriptor::DescriptorFetch` at the transaction level: what one
//! doorbell must produce (the reads it issues, then a checked descriptor or an error event),
//! given the QP lookup's answer and host memory. The fetch answers doorbells in order, so a
//! bench keeps a queue of these expectations.
use hdl::formats::nic::{
    Descriptor, DescriptorKind, Doorbell, EventStatus, DESC_DESTINATIONS, DESC_DST_FUNCTION,
    DESC_DST_NODE, DESC_DST_QP, DESC_KIND, DESC_LENGTH, DESC_LOCAL_EVENT, DESC_QP_MAGIC,
    DESC_REMOTE_EVENT, DESC_RESPONSE_KEY, DESC_SOURCES, DESC_TAG, OP_UNKNOWN,
};

use crate::host::SparseMemory;

/// The QP lookup's answer for a doorbell's (function, QP).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QpAnswer {
    /// The function and QP exist.
    pub owned: bool,
    /// The function is enabled.
    pub function_enabled: bool,
    /// The QP is enabled.
    pub qp_enabled: bool,
}

/// A checked descriptor as the fetch streams it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckedDescriptor {
    /// Kind code.
    pub kind: u8,
    /// Issuing function.
    pub function: u8,
    /// Issuing QP.
    pub qp: u8,
    /// Destination node.
    pub dst_node: u16,
    /// Destination function.
    pub dst_function: u8,
    /// Destination QP.
    pub dst_qp: u8,
    /// Remote event.
    pub remote_event: bool,
    /// Local event.
    pub local_event: bool,
    /// Destination key.
    pub key: u32,
    /// Software tag.
    pub tag: u32,
    /// Length.
    pub length: u32,
    /// Source segments (PUT, GET).
    pub sources: u8,
    /// Destination segments (PUT, GET).
    pub destinations: u8,
    /// GET: the response key (word 2 bits 63..32; 0 otherwise).
    pub response_key: u32,
    /// The body words.
    pub words: Vec<u64>,
}

/// An error event as the fetch offers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FetchError {
    /// Issuing function.
    pub function: u8,
    /// Issuing QP.
    pub qp: u8,
    /// Status.
    pub status: EventStatus,
    /// Operation code.
    pub op: u8,
    /// Software tag (word 1), 0 if not read.
    pub tag: u32,
    /// Destination node (word 0), 0 if not read.
    pub peer_node: u16,
    /// Destination function.
    pub peer_function: u8,
    /// Destination QP.
    pub peer_qp: u8,
    /// Length (word 0).
    pub length: u32,
}

/// What a doorbell produces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FetchOutcome {
    /// A checked descriptor.
    Descriptor(CheckedDescriptor),
    /// An error event.
    Error(FetchError),
}

/// The fetch's model: its elaboration values.
#[derive(Clone, Copy, Debug)]
pub struct FetchModel {
    /// `nic.max_read_request`.
    pub max_read_request: u64,
    /// The most words read per descriptor.
    pub max_words: usize,
}

impl FetchModel {
    /// A fetch for reads of at most `max_read_request` bytes.
    pub fn new(max_read_request: u64) -> Self {
        Self {
            max_read_request,
            max_words: nic::descriptor::max_words(max_read_request as usize),
        }
    }

    /// The doorbell's verdict before any read: `Some(status)` if it is refused.
    pub fn verdict(&self, word: u64, answer: QpAnswer) -> Option<EventStatus> {
        let bell = Doorbell::unpack(word);
        if bell.is_err() {
            return Some(EventStatus::BadDoorbell);
        }
        if !answer.owned {
            return Some(EventStatus::QpNotOwned);
        }
        if !answer.function_enabled || !answer.qp_enabled {
            return Some(EventStatus::QpDisabled);
        }
        if bell.expect("checked").words as usize > self.max_words {
            return Some(EventStatus::WordCount);
        }
        None
    }

    /// The reads (address, bytes) a doorbell accepted by [`FetchModel::verdict`] issues: one,
    /// or two split at the first `max_read_request` boundary inside the descriptor.
    pub fn reads(&self, word: u64) -> Vec<(u64, u64)> {
        let bell = Doorbell::unpack(word).expect("an accepted doorbell");
        let (start, end) = (bell.address, bell.address + 8 * bell.words as u64);
        let boundary = (start | (self.max_read_request - 1)) + 1;
        if end > boundary {
            vec![(start, boundary - start), (boundary, end - boundary)]
        } else {
            vec![(start, end - start)]
        }
    }

    /// The outcome of doorbell `word` of `function`, the lookup having answered `answer`;
    /// `failed` when a read of it fails; the words come from `mem`.
    pub fn outcome(
        &self,
        function: u8,
        word: u64,
        answer: QpAnswer,
        failed: bool,
        mem: &SparseMemory,
    ) -> FetchOutcome {
        let qp = (word & 15) as u8;
        let refuse = |status, words: Option<&[u64]>| {
            let (w0, w1) = words.map_or((0, 0), |w| (w[0] as u128, w[1] as u128));
            let kind = DescriptorKind::from_code(DESC_KIND.get(w0) as u8);
            FetchOutcome::Error(FetchError {
                function,
                qp,
                status,
                op: match (words, kind) {
                    (Some(_), Some(k)) => k.packet_kind().code(),
                    _ => OP_UNKNOWN,
                },
                tag: DESC_TAG.get(w1) as u32,
                peer_node: DESC_DST_NODE.get(w0) as u16,
                peer_function: DESC_DST_FUNCTION.get(w0) as u8,
                peer_qp: DESC_DST_QP.get(w0) as u8,
                length: DESC_LENGTH.get(w0) as u32,
            })
        };
        if let Some(status) = self.verdict(word, answer) {
            return refuse(status, None);
        }
        if failed {
            return refuse(EventStatus::ReadFailed, None);
        }
        let bell = Doorbell::unpack(word).expect("accepted");
        let words: Vec<u64> = (0..bell.words as u64)
            .map(|i| mem.word(bell.address + 8 * i))
            .collect();
        if let Err(e) = Descriptor::unpack(&words) {
            return refuse(EventStatus::from(e), Some(&words));
        }
        let (w0, w1) = (words[0] as u128, words[1] as u128);
        let kind = DESC_KIND.get(w0) as u8;
        let chained = kind >= 2;
        let w2 = if chained { words[2] as u128 } else { 0 };
        FetchOutcome::Descriptor(CheckedDescriptor {
            kind,
            function,
            qp,
            dst_node: DESC_DST_NODE.get(w0) as u16,
            dst_function: DESC_DST_FUNCTION.get(w0) as u8,
            dst_qp: DESC_DST_QP.get(w0) as u8,
            remote_event: DESC_REMOTE_EVENT.get(w0) == 1,
            local_event: DESC_LOCAL_EVENT.get(w0) == 1,
            key: DESC_QP_MAGIC.get(w1) as u32,
            tag: DESC_TAG.get(w1) as u32,
            length: DESC_LENGTH.get(w0) as u32,
            sources: DESC_SOURCES.get(w2) as u8,
            destinations: DESC_DESTINATIONS.get(w2) as u8,
            response_key: if kind == DescriptorKind::Get.code() {
                DESC_RESPONSE_KEY.get(w2) as u32
            } else {
                0
            },
            words: words[if chained { 3 } else { 2 }..].to_vec(),
        })
    }
}
