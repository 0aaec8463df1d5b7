//! `ReceiveDispatch` (nic::receive) on both backends, combinational: a stream of packets of
//! random kinds (NAP, PUT, GET, and now and then a kind the receive buffer never passes),
//! 1..=12 words each, fields held over the packet, random idle (random fields and word while
//! `valid` is low) and random `ready` on the three outputs. Checked every cycle against the
//! rule: exactly the output of the packet's kind is valid (none for another kind, which pulses
//! `unknown` and is taken at once), every output carries the input's fields and word, the input's
//! `ready` is that output's `ready`. Per output, the packets reassembled from its words equal
//! the packets of its kind in the order sent (whole, never reordered), and with every output
//! ready a packet's first word follows the previous packet's last with no idle cycle. The block
//! has no state, so there is no reset to test.
use nic::receive::receive_dispatch::ReceiveDispatch;
use testbench::{port_table, run_both, Backend, BenchRng, PortId, PortTable};

fn table() -> PortTable<ReceiveDispatch> {
    port_table!(comb ReceiveDispatch;
        packets.valid, packets.kind, packets.src_node, packets.src_function, packets.src_qp,
        packets.dst_function, packets.dst_qp, packets.delay, packets.address, packets.nap_offset,
        packets.nap_length, packets.bytes, packets.event, packets.message_last,
        packets.get_response, packets.word, packets.last, packets.ready,
        nap.valid, nap.kind, nap.src_node, nap.src_function, nap.src_qp, nap.dst_function,
        nap.dst_qp, nap.delay, nap.address, nap.nap_offset, nap.nap_length, nap.bytes,
        nap.event, nap.message_last, nap.get_response, nap.word, nap.last, nap.ready,
        put.valid, put.kind, put.src_node, put.src_function, put.src_qp, put.dst_function,
        put.dst_qp, put.delay, put.address, put.nap_offset, put.nap_length, put.bytes,
        put.event, put.message_last, put.get_response, put.word, put.last, put.ready,
        get.valid, get.kind, get.src_node, get.src_function, get.src_qp, get.dst_function,
        get.dst_qp, get.delay, get.address, get.nap_offset, get.nap_length, get.bytes,
        get.event, get.message_last, get.get_response, get.word, get.last, get.ready,
        unknown)
}

/// The fields after `valid`, in bundle order, `last` included (`ready` apart).
const FIELDS: [&str; 16] = [
    "kind",
    "src_node",
    "src_function",
    "src_qp",
    "dst_function",
    "dst_qp",
    "delay",
    "address",
    "nap_offset",
    "nap_length",
    "bytes",
    "event",
    "message_last",
    "get_response",
    "word",
    "last",
];
const OUTPUTS: [&str; 3] = ["nap", "put", "get"];

/// A packet: its header fields (kind first, `word` and `last` slots unused) and its words.
type Packet = (Vec<u128>, Vec<u128>);

fn random_packet(rng: &mut BenchRng, b: &dyn Backend, ports: &[PortId]) -> Packet {
    let kind = if rng.chance(0.05) {
        rng.range(3, 7) as u128
    } else {
        rng.range(0, 2) as u128
    };
    let mut fields: Vec<u128> = ports[..14].iter().map(|&p| rng.bits(b.width(p))).collect();
    fields[0] = kind;
    let words = (0..rng.range(1, 12)).map(|_| rng.bits(64)).collect();
    (fields, words)
}

fn bench(b: &mut dyn Backend, seed: u64) -> [u64; 5] {
    let mut rng = BenchRng::new(seed);
    let ins: Vec<PortId> = FIELDS
        .iter()
        .map(|f| b.port(&format!("packets${f}")))
        .collect();
    let (in_valid, in_ready, unknown) = (
        b.port("packets$valid"),
        b.port("packets$ready"),
        b.port("unknown"),
    );
    let outs: Vec<(PortId, Vec<PortId>, PortId)> = OUTPUTS
        .iter()
        .map(|o| {
            (
                b.port(&format!("{o}$valid")),
                FIELDS.iter().map(|f| b.port(&format!("{o}${f}"))).collect(),
                b.port(&format!("{o}$ready")),
            )
        })
        .collect();
    // Packets sent and reassembled, per kind 0..=2.
    let mut sent: Vec<Vec<Packet>> = vec![vec![]; 3];
    let mut got: Vec<Vec<Packet>> = vec![vec![]; 3];
    let mut building: Vec<Packet> = vec![(vec![], vec![]); 3];
    let mut current = random_packet(&mut rng, b, &ins);
    let (mut next, mut offering) = (0usize, false);
    // Counts: packets per kind, unknown words, back-to-back packet starts.
    let mut n = [0u64; 5];
    let mut last_taken_prev = false;
    for cycle in 0..20_000u64 {
        let burst = (cycle / 500) % 2 == 1;
        offering |= burst || rng.chance(0.7);
        b.poke_bool(in_valid, offering);
        for (k, &p) in ins.iter().enumerate() {
            let v = if !offering {
                rng.bits(b.width(p))
            } else if k < 14 {
                current.0[k]
            } else if k == 14 {
                current.1[next]
            } else {
                (next + 1 == current.1.len()) as u128
            };
            b.poke(p, v);
        }
        let readies: Vec<bool> = (0..3).map(|_| burst || rng.chance(0.7)).collect();
        for (o, r) in outs.iter().zip(&readies) {
            b.poke_bool(o.2, *r);
        }
        let kind = current.0[0] as usize;
        for (o, out) in outs.iter().enumerate() {
            let want = offering && kind == o;
            assert_eq!(
                b.peek_bool(out.0),
                want,
                "cycle {cycle}: {} valid",
                OUTPUTS[o]
            );
            for (k, (&pi, &po)) in ins.iter().zip(&out.1).enumerate() {
                assert_eq!(
                    b.peek(po),
                    b.peek(pi),
                    "cycle {cycle}: {}.{}",
                    OUTPUTS[o],
                    FIELDS[k]
                );
            }
        }
        // `ready` follows the kind on the port, whether or not a word is offered.
        let kind_on_port = b.peek(ins[0]) as usize;
        let want_ready = if kind_on_port < 3 {
            readies[kind_on_port]
        } else {
            true
        };
        assert_eq!(
            b.peek_bool(in_ready),
            want_ready,
            "cycle {cycle}: packets.ready"
        );
        assert_eq!(
            b.peek_bool(unknown),
            offering && kind >= 3,
            "cycle {cycle}: unknown"
        );
        if burst && offering && next == 0 && last_taken_prev {
            n[4] += 1;
        }
        last_taken_prev = false;
        if offering && want_ready {
            if kind < 3 {
                let bld = &mut building[kind];
                if next == 0 {
                    bld.0 = outs[kind].1[..14].iter().map(|&p| b.peek(p)).collect();
                }
                bld.1.push(b.peek(outs[kind].1[14]));
                if b.peek_bool(outs[kind].1[15]) {
                    got[kind].push(std::mem::take(bld));
                }
            } else {
                n[3] += 1;
            }
            offering = false;
            next += 1;
            if next == current.1.len() {
                if kind < 3 {
                    sent[kind].push(current.clone());
                    n[kind] += 1;
                }
                current = random_packet(&mut rng, b, &ins);
                next = 0;
                last_taken_prev = true;
            }
        }
        b.tick();
    }
    for (k, (g, s)) in got.iter().zip(&sent).enumerate() {
        assert_eq!(g, s, "{}: packets reassembled", OUTPUTS[k]);
    }
    assert!(
        n.iter().all(|&x| x > 20),
        "seed {seed}: a case never seen: {n:?}"
    );
    n
}

#[test]
fn receive_dispatch_matches_rule() {
    let r = run_both("receive_dispatch", ReceiveDispatch::default, table, |b| {
        bench(b, 101)
    });
    println!(
        "receive dispatch (NAP, PUT, GET packets, unknown words, back-to-back starts): {:?}",
        r.result
    );
}
