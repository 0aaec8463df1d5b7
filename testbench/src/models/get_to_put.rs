//! Reference model of `nic::receive::get_to_put::GetToPut` at the transaction level: the PUT
//! descriptor an arriving GET packet becomes (`docs/nic-design.md`, "GET to PUT"), or that it
//! is dropped. Built from the codecs of `hdl/src/formats/nic.rs`: the GET's body is valid when
//! `Descriptor::unpack` accepts a GET descriptor made of it (word 0 with the source total as
//! length, a word 1, then the body), the total fits 32 bits, the packet's `bytes` is 8 x its
//! words and the body fits a slot of the queue.
use hdl::formats::nic::{
    Descriptor, DescriptorBody, DescriptorKind, DESC_KIND, DESC_LENGTH, DESC_SOURCES, SEGMENT_BYTES,
};

/// A checked GET packet as `GetToPut` receives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GetPacket {
    /// Requester's node.
    pub src_node: u16,
    /// Requester's function.
    pub src_function: u8,
    /// Requester's QP.
    pub src_qp: u8,
    /// Target function (here).
    pub dst_function: u8,
    /// Target QP (here).
    pub dst_qp: u8,
    /// The header's `event` flag.
    pub event: bool,
    /// The header's `bytes`.
    pub bytes: u16,
    /// The payload words (`Descriptor::get_body` when well formed).
    pub words: Vec<u64>,
}

/// The PUT descriptor answering a GET, as `GetToPut` offers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    /// Issuing function: the GET's target.
    pub function: u8,
    /// Issuing QP: the GET's target QP.
    pub qp: u8,
    /// Destination: the requester.
    pub dst_node: u16,
    /// See `dst_node`.
    pub dst_function: u8,
    /// See `dst_node`.
    pub dst_qp: u8,
    /// The GET's `event`.
    pub remote_event: bool,
    /// The GET's response key.
    pub key: u32,
    /// Total of the source segments.
    pub length: u32,
    /// Source segments.
    pub sources: u8,
    /// Destination segments.
    pub destinations: u8,
    /// Body words: the segment words.
    pub words: Vec<u64>,
}

/// The response `p` becomes, or `None` if `GetToPut` must drop it (slots of `slot_words`).
pub fn respond(p: &GetPacket, slot_words: usize) -> Option<Response> {
    let n = p.words.len();
    if n == 0 || n > slot_words || p.bytes as usize != 8 * n {
        return None;
    }
    let sources = DESC_SOURCES.get(p.words[0] as u128) as usize;
    // The source total, when the words are where the counts say (else `unpack` refuses).
    let total: u64 = (0..sources)
        .filter_map(|i| p.words.get(2 + 2 * i))
        .map(|&w| SEGMENT_BYTES.get(w as u128) as u64)
        .sum();
    if total == 0 || total > u32::MAX as u64 {
        return None;
    }
    let w0 = DESC_LENGTH.set(
        DESC_KIND.set(0, DescriptorKind::Get.code() as u128),
        total as u128,
    ) as u64;
    let mut words = vec![w0, 0];
    words.extend(&p.words);
    match Descriptor::unpack(&words) {
        Ok(Descriptor {
            body:
                DescriptorBody::Get {
                    sources,
                    destinations,
                    response_key,
                },
            ..
        }) => Some(Response {
            function: p.dst_function,
            qp: p.dst_qp,
            dst_node: p.src_node,
            dst_function: p.src_function,
            dst_qp: p.src_qp,
            remote_event: p.event,
            key: response_key,
            length: total as u32,
            sources: sources.len() as u8,
            destinations: destinations.len() as u8,
            words: p.words[1..].to_vec(),
        }),
        _ => None,
    }
}
