//! TxLink's whole-packet admission, targeted (issue 10): with `interleave` low a VC whose head
//! needs more credits than it has must wait while another VC's packets flow, and go as soon as
//! the credits arrive.
//!
//! After reset the link comes up with a RESTART (owing nothing: `rx_free` 0). The far end then
//! grants VC 0 three credits and VC 1 four. VC 0 offers a packet of 8 flits (head LEN 8), then
//! one of 3 flits whose head claims LEN 200 (above `max_packet` = 16: it needs 16 credits);
//! VC 1 offers packets of 2 flits all along, its credits returned a few cycles after each flit
//! leaves. Phase 1 (400 cycles): VC 0 takes nothing, VC 1 flows. Then VC 0 gets 5 more
//! credits (8): its first packet must leave whole within 40 cycles. Phase 2: the far end
//! returns those 8; VC 0 (8 of 16) must wait 300 cycles while VC 1 flows, then 8 more arrive
//! and the LEN-200 head goes. `out` is always ready; the far end echoes what was sent, so the
//! replay buffer never fills. Both backends, the same trace.
use super::tx_link::{table, CW, FLIT_MASK};
use hdl::fifo::fifo_ptr_bits;
use hdl::formats::flit::Flit;
use hdl::llp::tx::TxLink;
use testbench::models::formats::random_header;
use testbench::models::stream::{Driver, StreamPorts};
use testbench::models::tx_link::{kind, tx_word, Kind};
use testbench::{run_both_seeds, Backend, BenchRng};

type Dut = TxLink<{ fifo_ptr_bits(4) + 4 }, CW>;

/// What happened, cycle numbers counted from the `start` pulse.
#[derive(Debug, PartialEq)]
struct Trace {
    /// VC 1 flits sent while VC 0 waited (phase 1, phase 2).
    vc1_flowed: (u64, u64),
    /// Cycles from the credits' arrival to VC 0's head leaving its queue (packet 1, 2).
    head_after: (u64, u64),
    /// Cycles from VC 0's first head to its tail leaving the queue.
    packet_span: u64,
}

fn packet(rng: &mut BenchRng, flits: usize, len: u8) -> Vec<u128> {
    let mut p = vec![Flit::Head(random_header(rng, len)).pack()];
    for _ in 0..flits - 2 {
        p.push(Flit::Body(rng.bits(64) as u64).pack());
    }
    p.push(
        Flit::Tail {
            crc16: rng.bits(16) as u16,
        }
        .pack(),
    );
    p
}

fn bench(b: &mut dyn Backend, seed: u64) -> Trace {
    let mut rng = BenchRng::new(seed);
    let port = |b: &dyn Backend, n: &str| b.port(n);
    let (reset, up, start, fresh) = (
        port(b, "reset"),
        port(b, "up"),
        port(b, "start"),
        port(b, "fresh_far"),
    );
    let (start_mask, out_ready, striper_idle, interleave) = (
        port(b, "start_mask"),
        port(b, "out$ready"),
        port(b, "striper_idle"),
        port(b, "interleave"),
    );
    let (echo, echo_seq, ltps_sent) = (
        port(b, "from_rx$got_echo"),
        port(b, "from_rx$got_echo_seq"),
        port(b, "ltps_sent"),
    );
    let got: Vec<_> = (0..2)
        .map(|v| port(b, &format!("got_credits${v}")))
        .collect();
    let credits: Vec<_> = (0..2).map(|v| port(b, &format!("credits${v}"))).collect();
    for v in 0..2 {
        b.poke(port(b, &format!("rx_free${v}")), 0);
        b.poke(port(b, &format!("freed${v}")), 0);
        b.poke(got[v], 0);
    }
    for n in [
        "from_rx$got_retry",
        "from_rx$got_mask",
        "from_rx$send_retry",
        "from_rx$send_echo",
    ] {
        b.poke_bool(port(b, n), false);
    }
    b.poke_bool(interleave, false);
    b.poke_bool(out_ready, true);
    b.poke_bool(striper_idle, true);
    b.poke_bool(echo, false);
    b.poke_bool(up, false);
    b.poke_bool(start, false);
    b.poke_bool(reset, true);
    b.tick();
    b.poke_bool(reset, false);
    for _ in 0..3 {
        b.tick();
    }
    b.poke_bool(up, true);
    b.poke_bool(start, true);
    b.poke_bool(fresh, true);
    b.poke(start_mask, 0b1111);
    b.tick();
    b.poke_bool(start, false);

    let mut core: Vec<Driver> = (0..2)
        .map(|v| Driver::new(StreamPorts::new(b, &format!("sinks${v}")), 1.0))
        .collect();
    let (p1, p2) = (packet(&mut rng, 8, 8), packet(&mut rng, 3, 200));
    core[0]
        .queue
        .extend(p1.iter().chain(p2.iter()).map(|&f| tx_word(f)));
    let mut returns: Vec<(u64, usize)> = vec![];
    let mut grants: Vec<(u64, usize, u64)> = vec![(1, 0, 3), (1, 1, 4), (400, 0, 5)];
    let (mut flowed, mut heads, mut tail_at) = ([0u64; 3], vec![], None);
    let mut phase = 0usize;
    let mut granted_at = [401u64, 0];
    for t in 0..1200u64 {
        if core[1].queue.len() < 4 {
            let p = packet(&mut rng, 2, 2);
            core[1].queue.extend(p.iter().map(|&f| tx_word(f)));
        }
        for d in core.iter_mut() {
            d.drive(b, &mut rng);
        }
        let mut ret = [0u64; 2];
        grants.retain(|&(at, v, n)| {
            if at == t {
                ret[v] += n;
            }
            at != t
        });
        returns.retain(|&(at, v)| {
            if at == t {
                ret[v] += 1;
            }
            at != t
        });
        for v in 0..2 {
            b.poke(got[v], ret[v] as u128);
        }
        // The far end echoes every LTP sent whole (all but the one on the wire).
        let sent = b.peek(ltps_sent) as u64;
        let e = t % 10 == 0 && sent > 1;
        b.poke_bool(echo, e);
        b.poke(echo_seq, (sent.saturating_sub(1)) as u128);
        let have = [b.peek(credits[0]) as u64, b.peek(credits[1]) as u64];
        for v in 0..2 {
            let Some(w) = core[v].fired(b) else { continue };
            let f = w & FLIT_MASK;
            if v == 1 {
                flowed[phase] += 1;
                returns.push((t + rng.range(2, 6), 1));
                continue;
            }
            match kind(f) {
                Kind::Head(_) => {
                    let need = if heads.is_empty() { 8 } else { 16 };
                    assert!(
                        have[0] >= need,
                        "seed {seed} cycle {t}: VC 0 head left with {} credits, needs {need}",
                        have[0]
                    );
                    heads.push(t);
                    phase += 1;
                }
                Kind::Data { end: true } if tail_at.is_none() => {
                    tail_at = Some(t);
                    // The far end frees the whole packet: 8 credits back, then 8 more later.
                    grants.push((t + 5, 0, 8));
                    grants.push((t + 305, 0, 8));
                    granted_at[1] = t + 306;
                }
                _ => {}
            }
        }
        b.tick();
    }
    assert_eq!(
        heads.len(),
        2,
        "seed {seed}: VC 0's heads left at {heads:?}"
    );
    assert!(
        heads[0] >= granted_at[0] && heads[1] >= granted_at[1],
        "seed {seed}: a VC 0 head left before its credits ({heads:?}, credits at {granted_at:?})"
    );
    let trace = Trace {
        vc1_flowed: (flowed[0], flowed[1]),
        head_after: (heads[0] - granted_at[0], heads[1] - granted_at[1]),
        packet_span: tail_at.expect("VC 0's first packet never ended") - heads[0],
    };
    assert!(
        trace.vc1_flowed.0 > 150 && trace.vc1_flowed.1 > 100,
        "seed {seed}: VC 1 did not flow while VC 0 waited: {trace:?}"
    );
    assert!(
        trace.head_after.0 < 40 && trace.head_after.1 < 40 && trace.packet_span < 40,
        "seed {seed}: VC 0 slow once its credits came: {trace:?}"
    );
    trace
}

#[test]
fn tx_link_whole_packet_head_waits_for_its_credits() {
    let rep = run_both_seeds(
        "txup_whole_packet",
        &[21],
        || Dut::new(2, 16, 0b1111, 64, 16),
        || table(2),
        bench,
    );
    eprintln!("{:?}", rep[0].result);
}
