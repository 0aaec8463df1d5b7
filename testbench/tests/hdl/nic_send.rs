//! The joined send engine (`nic::send::SendEngine`: descriptor fetch, tag pool, completion
//! router, split, data read, reorder buffer, packetizer) on both backends, against the host
//! memory model and the scoreboard of `testbench::nic_send` (see there for what is checked).
//!
//! Traffic: 160 doorbells over 8 functions and 4 QPs each, descriptors of every kind (NAP
//! immediate 1..=256 bytes, NAP indirect 1..=2048, PUT 1..=4000 bytes over 1..=12 source and
//! 1..=12 destination segments at random byte addresses, GET over up to 24 segments so some do
//! not fit one packet), about 8 % malformed (unknown kind, a reserved bit, segment totals that
//! differ), about 6 % of the data messages reading a range whose reads fail. Host memory:
//! latency 60 plus up to 40 cycles of jitter per completion, completions split at 64-byte
//! boundaries at random and reordered across tags, a header cycle before each. Flits, events
//! and read requests back-pressured at random. No reset: the blocks' own benches cover it.
//! Beside the doorbells, 40 GET responses (PUT descriptors with `get_response`, 1..=3000
//! bytes over 1..=8 + 1..=8 segments, issued by random functions and QPs, to destination
//! nodes `0x8000` and above) on the `responses` input, merged by the engine with the fetch's
//! descriptors: every packet of each is checked (kind PUT, `get_response`, key,
//! destination, data from host memory) and every read of its sources must carry its
//! function (see `testbench::nic_send`).
//! Two devices: MTU 128 with 32 tags (the default), MTU 256 with 4 tags.
use hdl::formats::nic::{Descriptor, DescriptorBody, Segment, IMMEDIATE_MAX_BYTES, NAP_MAX_BYTES};
use testbench::host::{HostMemory, MemoryConfig};
use testbench::models::packetizer::random_segments;
use testbench::nic_send::{run, settings, table, Drive, Engine, Outcome, Post, ResponsePost};
use testbench::{run_both, Backend, BenchRng};

/// Random segments summing to `total`, at random byte addresses inside `[base, base + 1 MB)`.
fn segments(rng: &mut BenchRng, total: u64, max: u64, base: u64) -> Vec<Segment> {
    random_segments(rng, total, max, |rng| base + rng.range(0, 0xf_0000))
}

/// A random good descriptor; its data region is `[base, base + 1 MB)`.
fn descriptor(rng: &mut BenchRng, base: u64) -> Descriptor {
    let len = |rng: &mut BenchRng, max: u64| {
        if rng.chance(0.3) {
            rng.range(1, 24)
        } else {
            rng.range(1, max)
        }
    };
    let body = match rng.range(0, 3) {
        0 => DescriptorBody::NapImmediate(
            (0..len(rng, IMMEDIATE_MAX_BYTES as u64))
                .map(|_| rng.bits(8) as u8)
                .collect(),
        ),
        1 => DescriptorBody::NapIndirect {
            address: base + rng.range(0, 0xf_0000),
            bytes: len(rng, NAP_MAX_BYTES as u64) as u32,
        },
        2 => {
            let n = len(rng, 4000);
            DescriptorBody::Put {
                sources: segments(rng, n, 12, base),
                destinations: segments(rng, n, 12, base + (1 << 36)),
            }
        }
        _ => {
            let n = rng.range(24, 4000);
            DescriptorBody::Get {
                sources: segments(rng, n, 12, base),
                destinations: segments(rng, n, 12, base),
                response_key: rng.bits(32) as u32,
            }
        }
    };
    Descriptor {
        // Below 0x8000: the responses' destinations are above (the scoreboard tells them apart).
        dst_node: rng.bits(15) as u16,
        dst_function: rng.bits(3) as u8,
        dst_qp: rng.bits(2) as u8,
        remote_event: rng.chance(0.5),
        local_event: rng.chance(0.7),
        qp_magic: rng.bits(32) as u32,
        tag: rng.bits(32) as u32,
        body,
    }
}

fn bench(b: &mut dyn Backend, seed: u64, mtu: usize, tags: usize) -> Outcome {
    let mut rng = BenchRng::new(seed);
    let s = settings(mtu, tags);
    let mut mem = HostMemory::new(MemoryConfig {
        latency: 60,
        jitter: 40,
        tags,
        ..MemoryConfig::default()
    });
    let mut posts = vec![];
    let mut addresses = vec![];
    let mut next_descriptor = 0x40_0000u64;
    for i in 0..160u64 {
        let base = 0x1_0000_0000 + (i << 20);
        let d = descriptor(&mut rng, base);
        let mut words = d.pack();
        let reads: Vec<(u64, u64)> = match &d.body {
            DescriptorBody::NapIndirect { address, bytes } => vec![(*address, *bytes as u64)],
            DescriptorBody::Put { sources, .. } => sources
                .iter()
                .map(|s| (s.address, s.bytes as u64))
                .collect(),
            _ => vec![],
        };
        // The data the reads will find.
        for &(a, n) in &reads {
            let data: Vec<u8> = (0..n).map(|_| rng.bits(8) as u8).collect();
            mem.mem.write(a, &data);
        }
        if !reads.is_empty() && rng.chance(0.06) {
            let (a, n) = reads[rng.range(0, reads.len() as u64 - 1) as usize];
            mem.poisoned.push((a, a + n));
        }
        if rng.chance(0.08) {
            match rng.range(0, 2) {
                0 => words[0] = (words[0] & !7) | 6,
                1 => words[0] |= 1 << 5,
                _ => {
                    let last = words.len() - 1;
                    words[last] ^= 1;
                }
            }
        }
        let address = next_descriptor + 8 * rng.range(0, 40);
        for (j, &w) in words.iter().enumerate() {
            mem.mem.write_word(address + 8 * j as u64, w);
        }
        next_descriptor = address + 8 * words.len() as u64;
        addresses.push(address);
        posts.push(Post {
            function: rng.bits(3) as u8,
            qp: rng.bits(2) as u8,
            words,
        });
    }
    // GET responses: PUTs from a region of their own (never a failing one).
    let mut responses = vec![];
    for i in 0..40u64 {
        let base = 0x2_0000_0000 + (i << 20);
        let n = if rng.chance(0.3) {
            rng.range(1, 24)
        } else {
            rng.range(1, 3000)
        };
        let descriptor = Descriptor {
            dst_node: 0x8000 | rng.bits(15) as u16,
            dst_function: rng.bits(3) as u8,
            dst_qp: rng.bits(4) as u8,
            remote_event: rng.chance(0.5),
            local_event: false,
            qp_magic: rng.bits(32) as u32,
            tag: 0,
            body: DescriptorBody::Put {
                sources: segments(&mut rng, n, 8, base),
                destinations: segments(&mut rng, n, 8, base + (1 << 36)),
            },
        };
        if let DescriptorBody::Put { sources, .. } = &descriptor.body {
            for sg in sources {
                let data: Vec<u8> = (0..sg.bytes).map(|_| rng.bits(8) as u8).collect();
                mem.mem.write(sg.address, &data);
            }
        }
        responses.push(ResponsePost {
            descriptor,
            function: rng.bits(3) as u8,
            qp: rng.bits(4) as u8,
        });
    }
    let drive = Drive {
        flit_ready: 0.8,
        event_ready: 0.7,
        read_ready: 0.8,
        limit: 200_000,
        node_id: 0x1234,
    };
    let out = run(
        b, &s, &mut mem, &posts, &addresses, &responses, &drive, &mut rng,
    );
    assert!(
        out.errors > 5 && out.stomped > 2 && out.messages > 100 && out.responses == 40,
        "nic_send seed {seed} mtu {mtu} tags {tags}: {out:?}"
    );
    Outcome {
        timeline: vec![],
        reads: vec![],
        ..out
    }
}

#[test]
fn nic_send_delivers_every_descriptor() {
    let r = run_both(
        "nic_send",
        || Engine::new(settings(128, 32)),
        table,
        |b| bench(b, 71, 128, 32),
    );
    println!("nic_send: {:?}", r.result);
}

/// The other shape: MTU 256 (packets of 35 flits) and a pool of 4 tags, so descriptor and
/// data reads wait for tags most of the time.
#[test]
fn nic_send_at_mtu_256_with_4_tags() {
    let r = run_both(
        "nic_send_mtu256_tags4",
        || Engine::new(settings(256, 4)),
        table,
        |b| bench(b, 72, 256, 4),
    );
    println!("nic_send at MTU 256, 4 tags: {:?}", r.result);
}
