//! Reference model of the send engine's `Packetizer` (nic::send): the packets a checked
//! descriptor becomes and the event its message ends with, at transaction level
//! (`docs/nic-design.md`, "Packetizer"). The send-engine benches compare the flits they see
//! with [`NicPacket::pack`] of these packets.
use crate::rng::BenchRng;
use hdl::formats::nic::Segment;
use hdl::formats::nic::{
    payload_words, Descriptor, DescriptorBody, EventKind, EventStatus, NicOp, NicPacket,
    OVERHEAD_FLITS,
};
use hdl::formats::PacketKind;

/// The packetizer's settings.
#[derive(Clone, Copy, Debug)]
pub struct PacketizerConfig {
    /// `nic.mtu_bytes`.
    pub mtu_bytes: usize,
    /// `network.max_packet_flits`.
    pub max_packet_flits: usize,
    /// VC of data packets.
    pub data_vc: u8,
    /// VC of GET requests.
    pub get_vc: u8,
    /// This NIC's node.
    pub node_id: u16,
}

/// A message as the packetizer receives it: a checked descriptor and its issuer.
#[derive(Clone, Debug)]
pub struct Message {
    /// The descriptor.
    pub descriptor: Descriptor,
    /// Issuing function.
    pub function: u8,
    /// Issuing QP.
    pub qp: u8,
    /// PUT: answers a GET.
    pub get_response: bool,
    /// The data (NAP indirect, PUT: what the reads return; NAP immediate: its data; GET: none).
    pub data: Vec<u8>,
}

/// The event a message ends with, as the event writer's request carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SendEventRequest {
    /// Issuing function.
    pub function: u8,
    /// Issuing QP.
    pub qp: u8,
    /// Kind.
    pub kind: EventKind,
    /// Status.
    pub status: EventStatus,
    /// Packet kind code.
    pub op: u8,
    /// Destination node, function, QP.
    pub peer: (u16, u8, u8),
    /// The descriptor's length.
    pub length: u32,
    /// Software's tag.
    pub info: u32,
}

impl Message {
    /// The GET's payload words, which must fit one packet.
    fn get_words(&self) -> Option<Vec<u64>> {
        self.descriptor.get_body()
    }

    /// A GET refused because its words do not fit one packet.
    pub fn refused(&self, c: &PacketizerConfig) -> bool {
        self.get_words()
            .is_some_and(|w| w.len() + OVERHEAD_FLITS > c.max_packet_flits)
    }

    /// The packets, in order (none for a refused GET).
    pub fn packets(&self, c: &PacketizerConfig) -> Vec<NicPacket> {
        let d = &self.descriptor;
        let packet = |op: NicOp, vc: u8, event: bool, last: bool, payload: Vec<u8>| NicPacket {
            dst_node: d.dst_node,
            src_node: c.node_id,
            vc,
            src_function: self.function,
            src_qp: self.qp,
            dst_function: d.dst_function,
            dst_qp: d.dst_qp,
            qp_magic: d.qp_magic,
            event,
            last,
            op,
            payload,
        };
        let mtu = c.mtu_bytes;
        match &d.body {
            DescriptorBody::NapImmediate(_) | DescriptorBody::NapIndirect { .. } => {
                let n = self.data.len();
                (0..n)
                    .step_by(mtu)
                    .map(|o| {
                        let end = (o + mtu).min(n);
                        let op = NicOp::Nap {
                            offset: o as u16,
                            message_bytes: n as u16,
                        };
                        packet(op, c.data_vc, true, end == n, self.data[o..end].to_vec())
                    })
                    .collect()
            }
            DescriptorBody::Put { destinations, .. } => {
                let mut out = vec![];
                let mut at = 0usize;
                for s in destinations {
                    let mut o = 0usize;
                    while o < s.bytes as usize {
                        let k = mtu.min(s.bytes as usize - o);
                        let op = NicOp::Put {
                            address: s.address + o as u64,
                            get_response: self.get_response,
                        };
                        let last = at + k == self.data.len();
                        out.push(packet(
                            op,
                            c.data_vc,
                            d.remote_event,
                            last,
                            self.data[at..at + k].to_vec(),
                        ));
                        o += k;
                        at += k;
                    }
                }
                out
            }
            DescriptorBody::Get { .. } => {
                if self.refused(c) {
                    return vec![];
                }
                let payload = self
                    .get_words()
                    .unwrap()
                    .iter()
                    .flat_map(|w| w.to_le_bytes())
                    .collect();
                vec![packet(NicOp::Get, c.get_vc, d.remote_event, true, payload)]
            }
        }
    }

    /// The words the packetizer's `inline` input carries for this message: immediate data,
    /// PUT destination segments, GET segment words (word 2 excluded: the packetizer builds it),
    /// each with its byte count.
    pub fn inline_words(&self) -> Vec<(u64, usize)> {
        let d = &self.descriptor;
        let words = d.pack();
        match &d.body {
            DescriptorBody::NapImmediate(data) => payload_words(data)
                .into_iter()
                .enumerate()
                .map(|(i, w)| (w, (data.len() - 8 * i).min(8)))
                .collect(),
            DescriptorBody::NapIndirect { .. } => vec![],
            DescriptorBody::Put { sources, .. } => words[3 + 2 * sources.len()..]
                .iter()
                .map(|&w| (w, 8))
                .collect(),
            DescriptorBody::Get { .. } => words[3..].iter().map(|&w| (w, 8)).collect(),
        }
    }

    /// The message's data arrives from the reorder buffer.
    pub fn from_reorder(&self) -> bool {
        matches!(
            self.descriptor.body,
            DescriptorBody::NapIndirect { .. } | DescriptorBody::Put { .. }
        )
    }

    /// The packet kind code of its operation.
    pub fn op(&self) -> u8 {
        self.descriptor.kind().packet_kind().code()
    }

    /// The event it ends with: `poisoned` when a data read failed.
    pub fn event(&self, c: &PacketizerConfig, poisoned: bool) -> Option<SendEventRequest> {
        let d = &self.descriptor;
        let (kind, status) = if self.refused(c) {
            (EventKind::Error, EventStatus::GetTooLong)
        } else if poisoned {
            (EventKind::Error, EventStatus::ReadFailed)
        } else if d.local_event && d.kind().packet_kind() != PacketKind::Get {
            (EventKind::Send, EventStatus::Ok)
        } else {
            return None;
        };
        Some(SendEventRequest {
            function: self.function,
            qp: self.qp,
            kind,
            status,
            op: self.op(),
            peer: (d.dst_node, d.dst_function, d.dst_qp),
            length: d.length() as u32,
            info: d.tag,
        })
    }
}

/// Which packets are poisoned (sent with their CRC inverted) when the payload words from
/// `first_error` on are flagged: the packet holding the first byte of a flagged word (the
/// packetizer takes a word with the packet that needs its first byte), and the message's last.
pub fn poisoned_packets(packets: &[NicPacket], first_error: Option<usize>) -> Vec<bool> {
    let Some(f) = first_error else {
        return vec![false; packets.len()];
    };
    let mut at = 0usize;
    let mut poisoned: Vec<bool> = packets
        .iter()
        .map(|p| {
            let (lo, hi) = (at, at + p.payload.len());
            at = hi;
            // A flagged word j >= f starts at byte 8 j.
            let first = (lo.div_ceil(8)).max(f);
            8 * first < hi
        })
        .collect();
    // The message failed: its last packet is stomped too, so the target never completes it.
    if let Some(last) = poisoned.last_mut() {
        *last = true;
    }
    poisoned
}

/// Random segments of random lengths summing to `total` (at least 1), at most `max` of them,
/// each at the address `address` draws (the benches' descriptor generators).
pub fn random_segments(
    rng: &mut BenchRng,
    total: u64,
    max: u64,
    mut address: impl FnMut(&mut BenchRng) -> u64,
) -> Vec<Segment> {
    let n = rng.range(1, max.min(total));
    let mut cuts: Vec<u64> = (0..n - 1).map(|_| rng.range(1, total - 1)).collect();
    cuts.sort();
    cuts.dedup();
    let mut out = vec![];
    let mut at = 0;
    for c in cuts.into_iter().chain([total]) {
        out.push(Segment {
            address: address(rng),
            bytes: (c - at) as u32,
        });
        at = c;
    }
    out
}
