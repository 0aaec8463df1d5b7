//! `bench nic`, descriptor fetch part: the cycles the fetch itself takes (memory latency
//! excluded) from a doorbell's acceptance to the first body word offered, for one descriptor
//! alone with a free tag and every output ready; measured on rust-hdl's simulator (the
//! `descriptor_fetch` bench measures the same on both backends and checks they agree). Also
//! the port table of `DescriptorFetchUnit` the bench shares.
use crate::backend::{Backend, PortId};
use crate::host::memory::ReadRequest;
use crate::host::{HostMemory, MemoryConfig};
use crate::port_table;
use crate::rhdl::{PortTable, RhdlSim};
use crate::rng::BenchRng;
use hdl::formats::nic::{Descriptor, DescriptorBody, Doorbell, Segment};
use nic::descriptor::DescriptorFetchUnit;
use std::collections::HashMap;

/// The device: 4 slots.
pub type Unit = DescriptorFetchUnit<2, 7>;

/// Every port of [`Unit`].
pub fn table() -> PortTable<Unit> {
    port_table!(Unit; reset,
        doorbell.valid, doorbell.function, doorbell.word, doorbell.ready,
        lookup.valid, lookup.function, lookup.qp, lookup.ready, lookup.answered, lookup.owned,
        lookup.function_enabled, lookup.qp_enabled, lookup.key, lookup.interrupt,
        lookup.send_base, lookup.send_size, lookup.send_producer, lookup.send_consumer,
        lookup.receive_base, lookup.receive_size, lookup.receive_producer,
        lookup.receive_consumer, lookup.nap_base, lookup.nap_size, lookup.nap_producer,
        lookup.nap_consumer,
        read.valid, read.function, read.address, read.bytes, read.tag, read.ready,
        completion.valid, completion.tag, completion.data, completion.last, completion.error,
        completion.ready,
        descriptor.valid, descriptor.kind, descriptor.function, descriptor.qp,
        descriptor.dst_node, descriptor.dst_function, descriptor.dst_qp,
        descriptor.remote_event, descriptor.local_event, descriptor.key, descriptor.tag,
        descriptor.length, descriptor.sources, descriptor.destinations,
        descriptor.response_key, descriptor.get_response, descriptor.word,
        descriptor.last, descriptor.ready,
        error.valid, error.function, error.qp, error.status, error.op, error.tag,
        error.peer_node, error.peer_function, error.peer_qp, error.length, error.ready,
        stray, bad_free, tags_in_use)
}

/// Port ids by name.
pub struct Ports(HashMap<String, PortId>);

impl Ports {
    /// The ports of `b`.
    pub fn new(b: &dyn Backend) -> Self {
        Self(
            b.ports()
                .iter()
                .enumerate()
                .map(|(i, p)| (p.name.clone(), PortId(i)))
                .collect(),
        )
    }
    /// The id of port `n`.
    pub fn id(&self, n: &str) -> PortId {
        *self.0.get(n).unwrap_or_else(|| panic!("no port {n}"))
    }
}

/// Cycles of the fetch itself (memory latency excluded) from doorbell acceptance to the first
/// body word offered, for one descriptor alone.
pub fn latency(b: &mut dyn Backend, d: &Descriptor) -> u64 {
    let p = Ports::new(b);
    let id = |n: &str| p.id(n);
    let mut rng = BenchRng::new(5);
    let mut mem = HostMemory::new(MemoryConfig {
        latency: 20,
        jitter: 0,
        split: 0.0,
        header_gap: false,
        tags: 32,
        max_read_request: 512,
        max_payload: 256,
    });
    let words = d.pack();
    let address = 0x4000;
    for (i, &w) in words.iter().enumerate() {
        mem.mem.write_word(address + 8 * i as u64, w);
    }
    let bell = Doorbell {
        qp: 1,
        words: words.len() as u8,
        address,
    }
    .pack();
    b.poke_bool(id("reset"), true);
    b.tick();
    b.poke_bool(id("reset"), false);
    for n in [
        "lookup$ready",
        "read$ready",
        "descriptor$ready",
        "error$ready",
        "lookup$owned",
        "lookup$function_enabled",
        "lookup$qp_enabled",
    ] {
        b.poke_bool(id(n), true);
    }
    let (mut taken, mut requested, mut first_beat) = (None, None, None);
    let mut answered = false;
    for k in 0..400u64 {
        b.poke_bool(id("doorbell$valid"), taken.is_none());
        b.poke(id("doorbell$function"), 2);
        b.poke(id("doorbell$word"), bell as u128);
        b.poke_bool(id("lookup$answered"), answered);
        let beat = mem.offer(k, &mut rng);
        b.poke_bool(id("completion$valid"), beat.is_some());
        if let Some(bt) = beat {
            b.poke(id("completion$tag"), bt.tag as u128);
            b.poke(id("completion$data"), bt.data);
            b.poke_bool(id("completion$last"), bt.last);
            b.poke_bool(id("completion$error"), false);
        }
        if b.peek_bool(id("descriptor$valid")) {
            let (t, rq, fb) = (taken.unwrap(), requested.unwrap(), first_beat.unwrap());
            return (k - t) - (fb - rq);
        }
        assert!(
            !b.peek_bool(id("error$valid")),
            "latency run: an error event"
        );
        answered = false;
        if taken.is_none() && b.peek_bool(id("doorbell$ready")) {
            taken = Some(k);
            answered = true;
        }
        let read = b.peek_bool(id("read$valid")).then(|| ReadRequest {
            function: 2,
            address: b.peek(id("read$address")) as u64,
            bytes: b.peek(id("read$bytes")) as u64,
            tag: b.peek(id("read$tag")) as u8,
        });
        b.tick();
        if beat.is_some() {
            mem.taken();
            first_beat.get_or_insert(k);
        }
        if let Some(rq) = read {
            mem.request(k, rq, &mut rng);
            requested.get_or_insert(k);
        }
    }
    panic!("latency run: no descriptor word")
}

/// The fetch's own cycles for an 8-byte NAP immediate and a 1 + 1 segment PUT.
pub fn latencies(b: &mut dyn Backend) -> (u64, u64) {
    let mut rng = BenchRng::new(9);
    let _ = &mut rng;
    let nap = Descriptor {
        dst_node: 5,
        dst_function: 1,
        dst_qp: 2,
        remote_event: false,
        local_event: true,
        qp_magic: 0x1234_5678,
        tag: 77,
        body: DescriptorBody::NapImmediate(vec![7; 8]),
    };
    let mut put = nap.clone();
    put.body = DescriptorBody::Put {
        sources: vec![Segment {
            address: 0x100,
            bytes: 64,
        }],
        destinations: vec![Segment {
            address: 0x200,
            bytes: 64,
        }],
    };
    (latency(b, &nap), latency(b, &put))
}

/// Measures on rust-hdl's simulator and prints the table of `bench nic`.
pub fn report() {
    let mut sim = RhdlSim::new(
        DescriptorFetchUnit::<2, 7>::new(32, 512),
        table(),
        "fetch_latency",
    );
    let (nap, put) = latencies(&mut sim);
    println!("\n## The descriptor fetch's own latency (memory latency excluded)\n");
    println!("| descriptor | words | cycles from doorbell taken to first body word, minus memory latency |");
    println!("|---|---|---|");
    println!("| NAP immediate, 8 bytes | 3 | {nap} |");
    println!("| PUT, 1 source + 1 destination segment | 7 | {put} |");
}
