//! `bench nic`, send engine part: the joined `SendEngine` on Verilator through the checked
//! harness of [`crate::nic_send`] (every flit is still compared), with every output ready:
//! - PUT bandwidth: one PUT of `n` bytes (one source and one destination segment), payload
//!   bytes per cycle from its first flit to its last, against the packet format's limit at the
//!   MTU (`mtu / (mtu + 24)` of the port's 8 bytes per cycle); host memory latency 100 and 200
//!   cycles (8 of jitter, completions split at 64-byte boundaries at random, a header cycle
//!   each), 32 and 256 tags.
//! - 8-byte NAP immediate messages back to back: messages per 100 cycles from the first head
//!   to the last tail, with the fetch's 4 descriptor slots.
//! - The engine's own cycles (memory latency excluded) from the doorbell's acceptance to the
//!   head and to the first payload flit: the cycles minus each read's latency on the way
//!   (request taken to first beat: the descriptor's, and for a PUT its first data read's); and
//!   how long the first packet takes from head to tail (a PUT's head leaves before its data
//!   has arrived: the packet then waits mid-way for host memory, see `docs/nic-design.md`).
//! - 8-byte NAP immediates with the emitted engine's 4 descriptor slots and with 8 (the fetch's most).
use crate::host::{HostMemory, MemoryConfig};
use crate::nic_send::{run, settings, Drive, Engine, Post};
use crate::rng::BenchRng;
use crate::verilator::VerilatorSim;
use crate::Backend;
use anyhow::Result;
use hdl::formats::nic::{Descriptor, DescriptorBody, Segment};

/// A descriptor for `body`.
fn descriptor(body: DescriptorBody) -> Descriptor {
    Descriptor {
        dst_node: 9,
        dst_function: 1,
        dst_qp: 2,
        remote_event: true,
        local_event: true,
        qp_magic: 0xC0DE_0001,
        tag: 42,
        body,
    }
}

/// A PUT of `n` bytes, one segment each side.
pub fn put(n: u32) -> Descriptor {
    descriptor(DescriptorBody::Put {
        sources: vec![Segment {
            address: 0x1000_0000,
            bytes: n,
        }],
        destinations: vec![Segment {
            address: 0x8000_0000,
            bytes: n,
        }],
    })
}

/// Host memory of `latency` cycles, `tags` tags.
fn memory(latency: u64, jitter: u64, tags: usize) -> HostMemory {
    HostMemory::new(MemoryConfig {
        latency,
        jitter,
        split: if jitter > 0 { 0.5 } else { 0.0 },
        header_gap: jitter > 0,
        tags,
        ..MemoryConfig::default()
    })
}

/// Runs `descriptors` (posted in order, function 1, QP 0) on `b` and returns the outcome.
fn post_all(
    b: &mut dyn Backend,
    mtu: usize,
    tags: usize,
    mem: &mut HostMemory,
    descriptors: &[Descriptor],
) -> crate::nic_send::Outcome {
    let s = settings(mtu, tags);
    let mut posts = vec![];
    let mut addresses = vec![];
    let mut at = 0x40_0000u64;
    for d in descriptors {
        let words = d.pack();
        for (j, &w) in words.iter().enumerate() {
            mem.mem.write_word(at + 8 * j as u64, w);
        }
        addresses.push(at);
        at += 8 * words.len() as u64;
        posts.push(Post {
            function: 1,
            qp: 0,
            words,
        });
    }
    let drive = Drive {
        flit_ready: 1.0,
        event_ready: 1.0,
        read_ready: 1.0,
        limit: 2_000_000,
        node_id: 0x77,
    };
    let mut rng = BenchRng::new(3);
    run(b, &s, mem, &posts, &addresses, &[], &drive, &mut rng)
}

/// Payload bytes per cycle of one PUT of `n` bytes (first flit to last).
pub fn put_bandwidth(b: &mut dyn Backend, mtu: usize, tags: usize, latency: u64, n: u32) -> f64 {
    let mut mem = memory(latency, 8, tags);
    let out = post_all(b, mtu, tags, &mut mem, &[put(n)]);
    let t = out.timeline[0];
    out.payload_bytes as f64 / (t.last_flit - t.first_flit + 1) as f64
}

/// 8-byte NAP immediates back to back: messages per 100 cycles (first head to last tail).
pub fn nap_rate(b: &mut dyn Backend, latency: u64, messages: usize) -> f64 {
    let mut mem = memory(latency, 0, 32);
    let d = descriptor(DescriptorBody::NapImmediate(vec![0x5a; 8]));
    let out = post_all(b, 128, 32, &mut mem, &vec![d; messages]);
    let first = out.timeline.iter().map(|t| t.first_flit).min().unwrap();
    let last = out.timeline.iter().map(|t| t.last_flit).max().unwrap();
    100.0 * messages as f64 / (last - first + 1) as f64
}

/// The engine's own cycles for `d`, memory latency of the reads on the way excluded: (to the
/// head, minus the descriptor read's latency; to the first payload flit, minus the latency of
/// the `reads_on_path` reads: the descriptor's, and a PUT's first data read); and the cycles
/// from the first packet's head to its tail.
pub fn own_latency(b: &mut dyn Backend, d: &Descriptor, reads_on_path: usize) -> (i64, u64, u64) {
    let mut mem = memory(100, 0, 32);
    let out = post_all(b, 128, 32, &mut mem, std::slice::from_ref(d));
    let t = out.timeline[0];
    let latency = |r: &(u64, u64)| r.1 - r.0;
    let memory: u64 = out.reads[..reads_on_path].iter().map(latency).sum();
    let head = t.first_flit as i64 - t.taken as i64 - latency(&out.reads[0]) as i64;
    (
        head,
        t.first_payload - t.taken - memory,
        t.last_flit - t.first_flit + 1,
    )
}

/// Measures on Verilator and prints the tables of `bench nic`.
pub fn report() -> Result<()> {
    let mut b128 = VerilatorSim::of(Engine::new(settings(128, 32)), "nic_send")?;
    let nap = descriptor(DescriptorBody::NapImmediate(vec![7; 8]));
    println!("\n## The send engine's own latency (memory latency 100 excluded)\n");
    println!("| descriptor | to the head, minus the descriptor read | to the first payload flit, minus the reads on the way | first packet head to tail | goal |");
    println!("|---|---|---|---|---|");
    for (label, d, reads, goal) in [
        ("NAP immediate, 8 bytes", nap.clone(), 1, 16),
        ("PUT, 64 bytes, 1 + 1 segments", put(64), 2, 24),
        ("PUT, 1 byte, 1 + 1 segments", put(1), 2, 24),
    ] {
        let (head, payload, span) = own_latency(&mut b128, &d, reads);
        println!("| {label} | {head} | {payload} | {span} | <= {goal} |");
    }
    println!("\n## 8-byte NAP immediates back to back\n");
    println!("| descriptor slots | memory latency | messages per 100 cycles | goal |");
    println!("|---|---|---|---|");
    for latency in [10, 100] {
        let r = nap_rate(&mut b128, latency, 200);
        println!("| 4 (`nic_send`) | {latency} | {r:.1} | 25 (one per 4 cycles) |");
    }
    let mut b32 = VerilatorSim::of(
        nic::send::SendEngine::<3, 8>::new(settings(128, 32)),
        "nic_send_slots8",
    )?;
    for latency in [10, 100] {
        let r = nap_rate(&mut b32, latency, 200);
        println!("| 8 | {latency} | {r:.1} | 25 (one per 4 cycles) |");
    }
    println!("\n## PUT bandwidth, NICs' send engine alone (flits always taken)\n");
    println!("| MTU | tags | memory latency | PUT bytes | payload B/cycle | of the format limit | of the port (8 B/cycle) |");
    println!("|---|---|---|---|---|---|---|");
    let mut b256 = VerilatorSim::of(Engine::new(settings(256, 32)), "nic_send_mtu256")?;
    let mut b128t = VerilatorSim::of(Engine::new(settings(128, 256)), "nic_send_tags256")?;
    for (mtu, tags, sim) in [
        (128usize, 32usize, &mut b128 as &mut dyn Backend),
        (256, 32, &mut b256),
        (128, 256, &mut b128t),
    ] {
        for latency in [100u64, 200] {
            for n in [1u32, 64, 1024, 16 * 1024, 512 * 1024] {
                if (tags == 256 || latency == 200) && n < 16 * 1024 {
                    continue;
                }
                let bw = put_bandwidth(sim, mtu, tags, latency, n);
                let limit = 8.0 * mtu as f64 / (mtu as f64 + 24.0);
                println!(
                    "| {mtu} | {tags} | {latency} | {n} | {bw:.2} | {:.1} % | {:.1} % |",
                    100.0 * bw / limit,
                    100.0 * bw / 8.0
                );
            }
        }
    }
    Ok(())
}
