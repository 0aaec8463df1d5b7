//! The agent's packet store and tickets in Rust (`hdl::mgmt::packet_store`,
//! `hdl::mgmt::ticket`): the store's contents and registered read ports, what the unpacker
//! writes for a request, and the response the packer builds from a ticket and the store (the
//! codec's response rule, written on the stored words, so the benches can check it against
//! `MgmtPacket::response_to`).
use hdl::formats::mgmt::{
    self, hop_field, DestType, MgmtBeat, CURRENT, ERROR, HOPS_PER_WORD, HOP_NUM, MGMT_WORDS,
    NMP_TYPE, ROUTE_HOPS, TRANSACTION_ID,
};
use hdl::mgmt::ticket::{
    store_address, ResponseTicket, ENTRY_BITS, ENTRY_PORT, ENTRY_SRC, HEAD_ENTRY,
    STORE_ADDRESS_BITS,
};

/// Entries of the store.
pub const STORE_ENTRIES: usize = 1 << STORE_ADDRESS_BITS;
/// Entries of a slot.
pub const SLOT_ENTRIES: usize = 1 << ENTRY_BITS;

/// The store's contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreModel {
    /// Word at each address.
    pub words: [u64; STORE_ENTRIES],
}

impl Default for StoreModel {
    fn default() -> Self {
        Self {
            words: [0; STORE_ENTRIES],
        }
    }
}

impl StoreModel {
    /// The entries of `slot`.
    pub fn slot(&self, slot: u8) -> [u64; SLOT_ENTRIES] {
        std::array::from_fn(|e| self.words[store_address(slot as usize, e)])
    }
    /// Writes what the unpacker writes for request `beat` that arrived on `in_port` into `slot`.
    pub fn put_request(&mut self, slot: u8, beat: &MgmtBeat, in_port: u8) {
        for (e, w) in request_entries(beat, in_port) {
            self.words[store_address(slot as usize, e)] = w;
        }
    }
}

/// A registered read port of the store: the word at the address given in one cycle is the
/// data of the next.
#[derive(Clone, Debug, Default)]
pub struct ReadPortModel {
    /// The data offered this cycle.
    pub data: u64,
}

impl ReadPortModel {
    /// The edge: `address` read from `store` (which has not yet taken this edge's writes: the
    /// hardware reads before it writes, and never reads a word being written).
    pub fn edge(&mut self, store: &StoreModel, address: usize) {
        self.data = store.words[address % STORE_ENTRIES];
    }
}

/// The head entry of a request from `src` that arrived on `in_port`.
pub fn head_entry(src: u16, in_port: u8) -> u64 {
    ENTRY_SRC.set(ENTRY_PORT.set(0, in_port as u128), src as u128) as u64
}

/// The entries the unpacker writes for request `beat` (after the append) from `in_port`: its
/// words at `0..8` and the head entry.
pub fn request_entries(beat: &MgmtBeat, in_port: u8) -> Vec<(usize, u64)> {
    let mut v: Vec<(usize, u64)> = beat.words.iter().copied().enumerate().collect();
    v.push((HEAD_ENTRY, head_entry(beat.src, in_port)));
    v
}

/// The backward-route append the unpacker makes to a route word as it passes
/// (`hdl::mgmt::backward_append`): on the low word (`w3`) `hop_num := slot + 1` (5 bits) and hop
/// `slot` (0..=9) := `port`; on the high word (`w4`) hop `slot` (10..=19) := `port`.
pub fn append_word(word: u64, low: bool, slot: u8, port: u8) -> u64 {
    let s = slot as usize;
    let mut w = word as u128;
    if low {
        w = HOP_NUM.set(w, (slot as u128 + 1) & 31);
        if s < HOPS_PER_WORD {
            w = hop_field(s).set(w, port as u128);
        }
    } else if (HOPS_PER_WORD..ROUTE_HOPS).contains(&s) {
        w = hop_field(s).set(w, port as u128);
    }
    w as u64
}

/// The agent's settings the packer reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PackerSettings {
    /// This chip's ID.
    pub chip: u16,
    /// Fault reports' forward route words `w1`, `w2`.
    pub report_route: [u64; 2],
    /// Fault reports' DestID.
    pub report_dest: u16,
}

/// What the packer sends for `ticket`, `entries` the ticket's slot in the store (a report's
/// ticket names a slot too, which it reads only if it asks for an echo or stored words, as the
/// active report unit's never do): the packet as
/// a beat (its words and `src`/`dst`; the forward route still with the `current` of the route,
/// which the packer decrements as it sends) and the output port; `None` if it has no output port
/// (a report whose `current` is 0 or above 20: dropped and counted).
pub fn response_packet(
    ticket: &ResponseTicket,
    entries: &[u64; SLOT_ENTRIES],
    s: &PackerSettings,
) -> Option<(u8, MgmtBeat)> {
    let mask = |f: hdl::formats::field::Field| (f.max() as u64) << f.lsb;
    let info = mgmt::DEST_TYPE.set(0, DestType::Nic.code() as u128);
    let info = NMP_TYPE.set(info, ticket.nmp_type as u128);
    let info = ERROR.set(info, ticket.error as u128) as u64;
    let w6 = if ticket.w6_stored {
        entries[mgmt::W_DATA0]
    } else {
        ticket.data
    };
    let w7 = if ticket.w7_stored {
        entries[mgmt::W_DATA1]
    } else {
        0
    };
    if ticket.report {
        let current = CURRENT.get(s.report_route[0] as u128) as usize;
        if current == 0 || current > ROUTE_HOPS {
            return None;
        }
        let route = mgmt::Route::from_words(s.report_route[0], s.report_route[1], true);
        let info = TRANSACTION_ID.set(info as u128, ticket.id as u128) as u64;
        let beat = MgmtBeat {
            src: s.chip,
            dst: s.report_dest,
            words: [
                info,
                s.report_route[0],
                s.report_route[1],
                0,
                0,
                entries[mgmt::W_ACCESS] & ticket.echo.mask(),
                w6,
                w7,
            ],
        };
        return Some((route.hops[current - 1], beat));
    }
    let hops = |r: std::ops::Range<usize>| r.fold(0u64, |m, i| m | mask(hop_field(i)));
    let backward = entries[mgmt::W_BACKWARD];
    let hop_num = HOP_NUM.get(backward as u128);
    let forward = backward & (mask(HOP_NUM) | hops(0..HOPS_PER_WORD));
    let forward = CURRENT.set(forward as u128, hop_num) as u64;
    let keep = mask(mgmt::SRC_VP) | mask(mgmt::DEST_VP) | mask(TRANSACTION_ID);
    let head = entries[HEAD_ENTRY] as u128;
    let words: [u64; MGMT_WORDS] = [
        info | (entries[mgmt::W_INFO] & keep),
        forward,
        entries[mgmt::W_BACKWARD_HIGH] & hops(HOPS_PER_WORD..ROUTE_HOPS),
        0,
        0,
        entries[mgmt::W_ACCESS] & ticket.echo.mask(),
        w6,
        w7,
    ];
    Some((
        ENTRY_PORT.get(head) as u8,
        MgmtBeat {
            src: s.chip,
            dst: ENTRY_SRC.get(head) as u16,
            words,
        },
    ))
}

/// The flits of [`response_packet`] on VC `mgmt_vc` (`current` decremented as sent), with the
/// output port.
pub fn response_flits(
    ticket: &ResponseTicket,
    entries: &[u64; SLOT_ENTRIES],
    s: &PackerSettings,
    mgmt_vc: u8,
) -> Option<(u8, Vec<u128>)> {
    let (port, beat) = response_packet(ticket, entries, s)?;
    let mut words = beat.words;
    let current = CURRENT.get(words[1] as u128);
    words[1] = CURRENT.set(words[1] as u128, current.wrapping_sub(1) & 31) as u64;
    let head = hdl::formats::header::FabricHeader {
        dst: beat.dst,
        src: beat.src,
        vc: mgmt_vc,
        kind: hdl::formats::PacketKind::Mgmt,
        len: mgmt::MGMT_FLITS as u8,
        delay: 0,
    };
    Some((port, mgmt::pack_words(head, &words)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::mgmt::{random_packet, unpack_for_chip, Unpacked};
    use crate::rng::BenchRng;
    use hdl::formats::mgmt::{MgmtError, MgmtPacket, MgmtPayload, UNSET_ID};
    use hdl::mgmt::ticket::Echo;

    /// A response built from the store by the packer's rule is the codec's `response_to`.
    #[test]
    fn the_stored_response_is_the_codecs() {
        let mut rng = BenchRng::new(3);
        for _ in 0..300 {
            let mut p = random_packet(&mut rng, UNSET_ID);
            if !p.nmp_type.is_request() || p.nmp_type.family() != mgmt::NmpFamily::Register {
                continue;
            }
            p.forward.current = 0;
            let port = rng.bits(5) as u8;
            let Unpacked::Request(beat) = unpack_for_chip(&p.pack(), port, 7) else {
                panic!("valid")
            };
            let mut store = StoreModel::default();
            store.put_request(1, &beat, port);
            let data = [rng.bits(64) as u64, rng.bits(64) as u64];
            store.words[store_address(1, mgmt::W_DATA0)] = data[0];
            store.words[store_address(1, mgmt::W_DATA1)] = data[1];
            let t = ResponseTicket {
                slot: 1,
                nmp_type: p.nmp_type.response(true).unwrap().code(),
                echo: Echo::Registers,
                w6_stored: true,
                w7_stored: true,
                ..Default::default()
            };
            let s = PackerSettings {
                chip: 0x0102,
                ..Default::default()
            };
            let (out, b) = response_packet(&t, &store.slot(1), &s).unwrap();
            assert_eq!(out, port);
            let mut q = p;
            assert_eq!(q.take_hop(port), mgmt::Hop::Arrived);
            let MgmtPayload::Registers { count, address, .. } = q.payload else {
                unreachable!()
            };
            let want = MgmtPacket::response_to(
                &q,
                0x0102,
                MgmtError::None,
                MgmtPayload::Registers {
                    count,
                    address,
                    data,
                },
            )
            .unwrap();
            assert_eq!(b, MgmtBeat::of(&want));
        }
    }
}
