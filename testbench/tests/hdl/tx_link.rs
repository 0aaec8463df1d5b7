//! TxLink alone at its ports, against `testbench::models::tx_link` (the model and the far end
//! of `out`). Per VC the core offers random packets (some with *BadPkt markers, random VC
//! fields in the heads) mixed with flits that are not the core's to send (Idle, CrdtRet,
//! VlMrkr, LT), with random idle; `out.ready` has random backpressure; `striper_idle` comes from
//! a small model of the striper (low for 1..3 cycles after a trailer, between LTPs only, and
//! low at random for up to 30 cycles). The far end drains its VC buffers at random and returns
//! the credits after a random delay on `got_credits`, echoes the LTPs it has whole at random
//! times (and sometimes a sequence number outside the window), asks for replays from a random
//! sequence number inside the window (or outside: stale), changes the lane mask at random; the
//! near receiver pulses `freed` (sometimes a quarter of the buffer at once: urgent credits),
//! `send_retry` and `send_echo` with a slowly moving `rx_expect`/`rx_mask`. For a long stretch
//! the far end withholds every echo: the replay buffer must fill, the builder stall, polls go
//! out, and nothing be lost or duplicated once echoes resume. The model checks every cycle and
//! every LTP (see its header); the bench also asserts that each mechanism was exercised.
//!
//! Bench rules that keep the far end within the protocol: one `got_retry`, `send_retry`,
//! `send_echo` and `got_mask` outstanding at a time, `rx_expect`/`rx_mask` held while a request
//! carrying them is outstanding, and no echo between a `got_retry` and its RetryMrkr (a real far
//! end waiting for a replay echoes nothing newer than the retry's sequence number).
//!
//! Reset (its doc: "sequence numbers to 0, replay empty, credits full", and the initial lane
//! mask): before the withholding stretch, 1-3 cycle pulses at random moments of the traffic
//! (the shared [`ResetSchedule`]). In the first cycle after each, `mask` must be the initial
//! mask, every counter and `replay_fill` zero, every VC's credits `depth` and `credit_error`
//! low; the far end, the striper, the near receiver and the core restart with it (the flits
//! taken from the core before the reset are lost, as on a link that resets, and the core drops
//! the rest of a packet it was in the middle of), and the model restarts too. The payloads of
//! the protocol pulses are random while their pulse is low.
//!
//! Link up and down: after every reset the link is down for a few cycles and comes up with a
//! RESTART (`start` with `fresh_far`); later, at random (never while an echo request is
//! pending, nor near the withholding stretch or while draining), it goes down for 1..40 cycles
//! and comes up again, once the builder is `idle`, with a RESUME or a RESTART (half each) and a
//! random lane mask, with random `rx_free`. While it is down the far end sends nothing (no
//! retry, echo, mask or credits) and the striper is idle (held in reset). The far end's credits
//! arrive only through `got_credits`: at every RESTART it hands over its whole buffer (after a
//! random delay) and forgets what it held. Some heads carry LEN 0 or a LEN above `max_packet`
//! (admitted with 1 and `max_packet` credits in whole-packet mode).
//!
//! Expectations changed by issue 10: credits are 0 after reset (not the far buffer's depth),
//! and VlMrkrs may appear in whole-packet mode (a packet in progress across a RESTART resumes
//! on VC `lock_vc` while the link VC is 0).
//!
//! TxClassifier is combinational (no clock, no reset): its bench has no reset to test.
#![allow(clippy::needless_range_loop)] // per-VC ports, queues and model state are indexed by VC
use hdl::fifo::fifo_ptr_bits;
use hdl::formats::flit::{ControlCode, Flit};
use hdl::llp::tx::{TxClassifier, TxLink, Q_DROP, Q_END, Q_HEAD, Q_LEN};
use testbench::models::formats::{random_control, random_header};
use testbench::models::stream::{Driver, StreamPorts};
use testbench::models::tx_link::{
    kind, tx_word, Kind, TxCycle, TxLinkModel, TxLinkParams, TxStats,
};
use testbench::reset::ResetSchedule;
use testbench::rhdl::SimValue;
use testbench::{port_table, run_both, run_both_seeds, Backend, BenchRng, PortId, PortTable};

pub(crate) const CW: usize = 13;
/// The flit bits of a classified word.
pub(crate) const FLIT_MASK: u128 = (1 << 65) - 1;
type DutA = TxLink<{ fifo_ptr_bits(4) + 4 }, CW>;
type DutB = TxLink<{ fifo_ptr_bits(2) + 4 }, CW>;

pub(crate) fn table<const RAW: usize>(vcs: usize) -> PortTable<TxLink<RAW, CW>> {
    type T<const RAW: usize> = TxLink<RAW, CW>;
    let mut t = port_table!(T<RAW>; reset, out.valid, out.data, out.ready, striper_idle, mask,
        interleave, from_rx.got_retry, from_rx.got_retry_seq, from_rx.got_echo,
        from_rx.got_echo_seq, from_rx.got_mask, from_rx.got_mask_val, from_rx.send_retry,
        from_rx.send_echo, from_rx.expect_seq, from_rx.mask, ltps_sent, nulls_sent, replays,
        stale, core_dropped, credit_error, replay_fill, up, start, fresh_far, start_mask, idle,
        ltps_discarded);
    for i in 0..vcs {
        t.add(
            format!("sinks${i}$valid"),
            move |x: &mut T<RAW>, v| x.sinks[i].valid.next = SimValue::from_u128(v),
            move |x: &T<RAW>| x.sinks[i].valid.val().to_u128(),
        );
        t.add(
            format!("sinks${i}$data"),
            move |x: &mut T<RAW>, v| x.sinks[i].data.next = SimValue::from_u128(v),
            move |x: &T<RAW>| SimValue::to_u128(&x.sinks[i].data.val()),
        );
        t.add(
            format!("sinks${i}$ready"),
            move |x: &mut T<RAW>, v| x.sinks[i].ready.next = SimValue::from_u128(v),
            move |x: &T<RAW>| x.sinks[i].ready.val().to_u128(),
        );
        t.add(
            format!("got_credits${i}"),
            move |x: &mut T<RAW>, v| x.got_credits[i].next = SimValue::from_u128(v),
            move |x: &T<RAW>| SimValue::to_u128(&x.got_credits[i].val()),
        );
        t.add(
            format!("freed${i}"),
            move |x: &mut T<RAW>, v| x.freed[i].next = SimValue::from_u128(v),
            move |x: &T<RAW>| SimValue::to_u128(&x.freed[i].val()),
        );
        t.add(
            format!("rx_free${i}"),
            move |x: &mut T<RAW>, v| x.rx_free[i].next = SimValue::from_u128(v),
            move |x: &T<RAW>| SimValue::to_u128(&x.rx_free[i].val()),
        );
        t.add(
            format!("credits${i}"),
            move |x: &mut T<RAW>, v| x.credits[i].next = SimValue::from_u128(v),
            move |x: &T<RAW>| SimValue::to_u128(&x.credits[i].val()),
        );
    }
    t
}

/// One run's settings.
#[derive(Clone, Copy, Debug)]
struct Run {
    p: TxLinkParams,
    /// Data flits the core offers in all.
    flits: u64,
    /// Probability per cycle that a core VC offers a waiting flit.
    in_rate: f64,
    /// Probability of `out.ready`.
    ready: f64,
    /// Probability per cycle that the far end drains a flit of a VC.
    drain: f64,
    /// Cycles (from, length) in which the far end withholds echoes.
    withhold: (u64, u64),
}

/// What a run exercised (equal on both backends).
#[derive(Debug, PartialEq)]
struct Outcome {
    cycles: u64,
    stats: TxStats,
    /// Polls and replay-full cycles while echoes were withheld.
    withheld: (u64, u64),
}

/// A flit the core may not send.
fn junk(rng: &mut BenchRng) -> u128 {
    let code = match rng.range(0, 3) {
        0 => ControlCode::Idle,
        1 => ControlCode::CrdtRet,
        2 => ControlCode::VlMrkr,
        _ => ControlCode::LinkTransfer(rng.range(0, 31) as u8),
    };
    random_control(rng, code)
}

/// A packet of 2..=6 flits (heads with a random VC field), some with *BadPkt markers, with a
/// few junk flits mixed in.
fn packet(rng: &mut BenchRng) -> Vec<u128> {
    let len = rng.range(2, 6);
    // Some heads lie about their length: LEN 0 (malformed) or far above `max_packet`.
    let head_len = match rng.range(0, 40) {
        0 => 0,
        1 => 200,
        _ => len as u8,
    };
    let mut p = vec![Flit::Head(random_header(rng, head_len)).pack()];
    for _ in 0..len - 2 {
        p.push(if rng.chance(0.05) {
            Flit::Control {
                code: ControlCode::BodyBadPkt,
                vc: 0,
                credits: 0,
                orig: rng.bits(32) as u64,
            }
            .pack()
        } else {
            Flit::Body(rng.bits(64) as u64).pack()
        });
    }
    p.push(if rng.chance(0.03) {
        Flit::Control {
            code: ControlCode::TailBadPkt,
            vc: 0,
            credits: 0,
            orig: rng.bits(32) as u64,
        }
        .pack()
    } else {
        Flit::Tail {
            crc16: rng.bits(16) as u16,
        }
        .pack()
    });
    let mut out = vec![];
    for f in p {
        while rng.chance(0.03) {
            out.push(junk(rng));
        }
        out.push(f);
    }
    out
}

struct Ports {
    reset: PortId,
    out_valid: PortId,
    out_data: PortId,
    out_ready: PortId,
    idle: PortId,
    mask: PortId,
    interleave: PortId,
    retry: (PortId, PortId),
    echo: (PortId, PortId),
    gmask: (PortId, PortId),
    send_retry: PortId,
    send_echo: PortId,
    rx_expect: PortId,
    rx_mask: PortId,
    counters: [PortId; 6],
    credit_error: PortId,
    replay_fill: PortId,
    got_credits: Vec<PortId>,
    freed: Vec<PortId>,
    credits: Vec<PortId>,
    up: PortId,
    start: PortId,
    fresh_far: PortId,
    start_mask: PortId,
    rx_free: Vec<PortId>,
    b_idle: PortId,
    ltps_discarded: PortId,
}

impl Ports {
    fn new(b: &dyn Backend, vcs: usize) -> Self {
        let p = |n: &str| b.port(n);
        let per = |n: &str| (0..vcs).map(|i| b.port(&format!("{n}${i}"))).collect();
        Self {
            reset: p("reset"),
            out_valid: p("out$valid"),
            out_data: p("out$data"),
            out_ready: p("out$ready"),
            idle: p("striper_idle"),
            mask: p("mask"),
            interleave: p("interleave"),
            retry: (p("from_rx$got_retry"), p("from_rx$got_retry_seq")),
            echo: (p("from_rx$got_echo"), p("from_rx$got_echo_seq")),
            gmask: (p("from_rx$got_mask"), p("from_rx$got_mask_val")),
            send_retry: p("from_rx$send_retry"),
            send_echo: p("from_rx$send_echo"),
            rx_expect: p("from_rx$expect_seq"),
            rx_mask: p("from_rx$mask"),
            counters: [
                p("ltps_sent"),
                p("nulls_sent"),
                p("replays"),
                p("stale"),
                p("core_dropped"),
                p("replay_fill"),
            ],
            credit_error: p("credit_error"),
            replay_fill: p("replay_fill"),
            got_credits: per("got_credits"),
            freed: per("freed"),
            credits: per("credits"),
            up: p("up"),
            start: p("start"),
            fresh_far: p("fresh_far"),
            start_mask: p("start_mask"),
            rx_free: per("rx_free"),
            b_idle: p("idle"),
            ltps_discarded: p("ltps_discarded"),
        }
    }
}

/// Drives a pulse and its payload (random while the pulse is low).
fn pulse<T: Copy>(
    b: &mut dyn Backend,
    rng: &mut BenchRng,
    p: (PortId, PortId),
    v: Option<T>,
    f: impl Fn(T) -> u128,
) {
    b.poke_bool(p.0, v.is_some());
    let idle = rng.bits(b.width(p.1));
    b.poke(p.1, v.map_or(idle, f));
}

fn bench(b: &mut dyn Backend, seed: u64, run: &Run) -> Outcome {
    let p = run.p;
    let vcs = p.vcs;
    let mut rng = BenchRng::new(seed);
    let ports = Ports::new(b, vcs);
    let mut core: Vec<Driver> = (0..vcs)
        .map(|v| Driver::new(StreamPorts::new(b, &format!("sinks${v}")), run.in_rate))
        .collect();
    let mut model = TxLinkModel::new(p);
    for &i in [
        ports.out_ready,
        ports.idle,
        ports.retry.0,
        ports.echo.0,
        ports.gmask.0,
        ports.send_retry,
        ports.send_echo,
        ports.up,
        ports.start,
        ports.fresh_far,
    ]
    .iter()
    {
        b.poke_bool(i, false);
    }
    b.poke_bool(ports.interleave, p.interleave);
    b.poke_bool(ports.reset, true);
    b.tick();
    b.poke_bool(ports.reset, false);

    let mut generated = 0u64;
    let mut returns: Vec<(u64, usize)> = vec![];
    let (mut rx_expect, mut rx_mask) = (0u16, 0b1111u8);
    // Striper model: beats taken, and cycles its `idle` stays low.
    let (mut beats, mut hold) = (0u64, 0u64);
    let mut t = 0u64;
    let mut quiet_for = 0u64;
    let mut withheld = (0u64, 0u64);
    // Resets end well before the withholding stretch, whose checks need a filled buffer.
    let mut sched = ResetSchedule::new(&mut rng, 1500);
    // Per VC: the core has handed over part of a packet (a head, not yet its end).
    let mut mid_packet = vec![false; vcs];
    // The link: down after reset until a RESTART; `down_left` cycles before it may come up.
    let (mut link_up, mut down_left, mut fresh_next) = (false, rng.range(1, 10), true);
    let last = loop {
        let rst = sched.next_if(&mut rng, t + 3000 < run.withhold.0);
        b.poke_bool(ports.reset, rst);
        let draining = generated >= run.flits;
        let withholding = t >= run.withhold.0 && t < run.withhold.0 + run.withhold.1;
        let calm = t + 2000 < run.withhold.0 || t > run.withhold.0 + run.withhold.1 + 500;
        let mut start = false;
        if rst {
            link_up = false;
        } else if link_up {
            if !draining && calm && !model.echo_pending() && rng.chance(1.0 / 1200.0) {
                link_up = false;
                down_left = rng.range(1, 40);
            }
        } else if down_left > 0 {
            down_left -= 1;
        } else if b.peek_bool(ports.b_idle) {
            link_up = true;
            start = true;
        }
        let fresh = start && (fresh_next || rng.chance(0.5));
        let start_mask = if start {
            rng.range(1, 15) as u8
        } else {
            rng.bits(4) as u8
        };
        if start {
            fresh_next = false;
        }
        let talk = link_up && !start;
        for v in 0..vcs {
            if !draining && core[v].queue.len() < 8 {
                let pk = packet(&mut rng);
                generated += pk
                    .iter()
                    .filter(|&&f| !testbench::models::tx_link::is_core_drop(f))
                    .count() as u64;
                core[v].queue.extend(pk.iter().map(|&f| tx_word(f)));
            }
            core[v].drive(b, &mut rng);
        }
        let mut c = TxCycle {
            sink_fire: vec![None; vcs],
            got_credits: vec![0; vcs],
            freed: vec![0; vcs],
            credits: vec![0; vcs],
            rx_free: (0..vcs).map(|_| rng.range(0, p.depth)).collect(),
            up: link_up,
            start,
            fresh_far: if start { fresh } else { rng.chance(0.5) },
            start_mask,
            ..Default::default()
        };
        c.out_ready = rng.chance(run.ready);
        if !link_up {
            // The striper is held in reset while the link is down.
            (beats, hold) = (0, 0);
        }
        c.striper_idle = beats % 17 == 0 && hold == 0;
        // The near receiver: its expect and mask move only while no request carries them.
        if !model.rr_pending() && !model.echo_pending() && rng.chance(0.02) {
            rx_expect = rx_expect.wrapping_add(rng.range(1, 3) as u16);
            if rng.chance(0.2) {
                rx_mask = rng.range(1, 15) as u8;
            }
        }
        if !draining {
            c.send_retry = !model.rr_pending() && rng.chance(1.0 / 250.0);
            c.send_echo = !model.echo_pending() && rng.chance(1.0 / 120.0);
            for v in 0..vcs {
                if rng.chance(0.08) {
                    c.freed[v] = rng.range(1, 3);
                } else if rng.chance(0.004) {
                    c.freed[v] = rng.range(p.depth / 4, p.depth);
                }
            }
        }
        c.rx_expect = rx_expect;
        c.rx_mask = rx_mask;
        // The far end: replays, echoes, lane masks, credits.
        let (lo, hi) = model.next_bounds();
        let ack = model.ack;
        if talk && !draining && !model.retry_pending() && rng.chance(1.0 / 300.0) {
            c.got_retry = Some(if rng.chance(0.25) {
                if rng.chance(0.5) {
                    (hi + 1 + rng.range(0, 100)) as u16
                } else {
                    (ack as u16).wrapping_sub(1 + rng.range(0, 100) as u16)
                }
            } else {
                rng.range(ack, lo) as u16
            });
        }
        if talk && !withholding && c.got_retry.is_none() && !model.retry_pending() {
            if rng.chance(0.04) {
                c.got_echo = Some(model.finished as u16);
            } else if rng.chance(0.003) {
                c.got_echo = Some(if rng.chance(0.5) {
                    (hi + 1 + rng.range(0, 100)) as u16
                } else {
                    (ack as u16).wrapping_sub(1 + rng.range(0, 100) as u16)
                });
            }
        }
        if talk && !draining && model.mask_pending.is_none() && rng.chance(1.0 / 700.0) {
            c.got_mask = Some(rng.range(1, 15) as u8);
        }
        if start && fresh {
            // A fresh far end forgets the credits it owed and hands over its whole buffer.
            returns.clear();
            for v in 0..vcs {
                let at = t + rng.range(1, 20);
                returns.extend((0..p.depth).map(|_| (at, v)));
            }
        }
        returns.retain(|&(at, v)| {
            if talk && at <= t {
                c.got_credits[v] += 1;
                false
            } else {
                true
            }
        });
        b.poke_bool(ports.out_ready, c.out_ready);
        b.poke_bool(ports.idle, c.striper_idle);
        pulse(b, &mut rng, ports.retry, c.got_retry, |x| x as u128);
        pulse(b, &mut rng, ports.echo, c.got_echo, |x| x as u128);
        pulse(b, &mut rng, ports.gmask, c.got_mask, |x| x as u128);
        b.poke_bool(ports.send_retry, c.send_retry);
        b.poke_bool(ports.send_echo, c.send_echo);
        b.poke(ports.rx_expect, c.rx_expect as u128);
        b.poke(ports.rx_mask, c.rx_mask as u128);
        for v in 0..vcs {
            b.poke(ports.got_credits[v], c.got_credits[v] as u128);
            b.poke(ports.freed[v], c.freed[v] as u128);
            b.poke(ports.rx_free[v], c.rx_free[v] as u128);
        }
        b.poke_bool(ports.up, c.up);
        b.poke_bool(ports.start, c.start);
        b.poke_bool(ports.fresh_far, c.fresh_far);
        b.poke(ports.start_mask, c.start_mask as u128);
        // Outputs.
        c.out_valid = b.peek_bool(ports.out_valid);
        c.out_data = b.peek(ports.out_data);
        c.mask = b.peek(ports.mask) as u8;
        let n: Vec<u64> = ports.counters.iter().map(|&q| b.peek(q) as u64).collect();
        (
            c.ltps_sent,
            c.nulls_sent,
            c.replays,
            c.stale,
            c.core_dropped,
        ) = (n[0], n[1], n[2], n[3], n[4]);
        c.replay_fill = b.peek(ports.replay_fill) as u64;
        c.idle = b.peek_bool(ports.b_idle);
        c.ltps_discarded = b.peek(ports.ltps_discarded) as u64;
        c.credit_error = b.peek_bool(ports.credit_error);
        for v in 0..vcs {
            c.credits[v] = b.peek(ports.credits[v]) as u64;
            // The model sees the flit; its class bits are checked by the classifier's bench.
            c.sink_fire[v] = core[v].fired(b).map(|w| w & FLIT_MASK);
            match c.sink_fire[v].map(kind) {
                Some(Kind::Head(_)) => mid_packet[v] = true,
                Some(Kind::Data { end }) => mid_packet[v] = !end,
                _ => {}
            }
        }
        if sched.released() {
            let counters = (
                c.ltps_sent,
                c.nulls_sent,
                c.replays,
                c.stale,
                c.core_dropped,
            );
            assert!(
                c.mask == p.init_mask
                    && counters == (0, 0, 0, 0, 0)
                    && c.replay_fill == 0
                    && c.ltps_discarded == 0
                    && c.idle
                    && c.credits.iter().all(|&n| n == 0)
                    && !c.credit_error,
                "seed {seed} cycle {t}: state after reset: mask {:#x}, counters {counters:?}, \
                 replay_fill {}, ltps_discarded {}, idle {}, credits {:?}, credit_error {}",
                c.mask,
                c.replay_fill,
                c.ltps_discarded,
                c.idle,
                c.credits,
                c.credit_error
            );
        }
        if rst {
            // The block, its far end, the striper and the near receiver restart together.
            model.reset();
            returns.clear();
            for v in 0..vcs {
                core[v].reset();
                // The core restarts at a packet boundary: the rest of its packet is dropped.
                while mid_packet[v] {
                    match core[v].queue.pop_front().map(|w| kind(w & FLIT_MASK)) {
                        Some(Kind::Data { end: true }) | None => mid_packet[v] = false,
                        _ => {}
                    }
                }
            }
            (beats, hold) = (0, 0);
            (rx_expect, rx_mask) = (0, 0b1111);
            (down_left, fresh_next) = (rng.range(1, 10), true);
            b.tick();
            t += 1;
            continue;
        }
        let polls = model.stats.polls;
        let full = model.stats.full_cycles;
        if let Err(e) = model.cycle(&c) {
            panic!("seed {seed}: {e}");
        }
        if withholding {
            withheld.0 += model.stats.polls - polls;
            withheld.1 += model.stats.full_cycles - full;
        }
        // After the edge: striper, far-end drain.
        hold = hold.saturating_sub(1);
        if c.out_valid && c.out_ready {
            beats += 1;
            if beats % 17 == 0 {
                hold = rng.range(1, 3);
            }
        }
        if hold == 0 && beats % 17 == 0 && rng.chance(0.01) {
            hold = rng.range(1, 30);
        }
        for v in 0..vcs {
            if model.far_occ[v] > 0 && rng.chance(run.drain) {
                model.drain(v);
                returns.push((t + rng.range(1, 20), v));
            }
        }
        b.tick();
        t += 1;
        let done = draining
            && link_up
            && core.iter().all(|d| d.queue.is_empty())
            && model.expect.iter().all(|q| q.is_empty())
            && model.far_occ.iter().all(|&o| o == 0)
            && returns.is_empty()
            && model.quiet()
            && model.crdt_seen == model.freed_total
            && model.ack == model.finished;
        quiet_for = if done { quiet_for + 1 } else { 0 };
        if quiet_for > 40 {
            break c;
        }
        assert!(
            t < 40 * run.flits + 20_000,
            "seed {seed}: no end after {t} cycles: left {:?}, far {:?}, model quiet {}, credits seen {:?} of {:?}, ack {} finished {}",
            model.expect.iter().map(|q| q.len()).collect::<Vec<_>>(),
            model.far_occ,
            model.quiet(),
            model.crdt_seen,
            model.freed_total,
            model.ack,
            model.finished
        );
    };
    sched.assert_pulses(&format!("tx link seed {seed}"), 3);
    if let Err(e) = model.finish(&last) {
        panic!("seed {seed}: {e}");
    }
    for v in 0..vcs {
        assert_eq!(
            last.credits[v], p.depth,
            "seed {seed}: VC {v} credits at the end"
        );
    }
    Outcome {
        cycles: t,
        stats: model.stats,
        withheld,
    }
}

fn check(tag: &str, r: &Outcome, run: &Run) {
    let s = &r.stats;
    eprintln!(
        "{tag}: {} cycles, withheld {:?}, {s:?}",
        r.cycles, r.withheld
    );
    assert!(
        s.replays >= 3 && s.replayed > 0 && s.stale > 0,
        "{tag}: replays"
    );
    assert!(
        s.polls > 0 && r.withheld.0 > 0,
        "{tag}: polls while echoes withheld"
    );
    assert!(
        r.withheld.1 > 50,
        "{tag}: the replay buffer never stayed full"
    );
    assert!(
        s.markers > 3 && s.echoes_ltp > 0 && s.echoes_null > 0,
        "{tag}: echoes"
    );
    assert!(
        s.retry_reqs > 0 && s.core_dropped > 0 && s.mask_changes > 0,
        "{tag}: requests"
    );
    // VlMrkrs are needed when packets interleave (and after a RESTART in a packet).
    assert!(s.vl_markers > 0 || !run.p.interleave, "{tag}: VlMrkrs");
    assert!(
        s.restarts > 3 && s.resumes > 0 && s.abandoned > 0 && s.discarded > 0,
        "{tag}: link down and up"
    );
    assert!(
        run.p.interleave || s.tight_heads > 0 || run.p.depth >= 64,
        "{tag}: no head admitted with just enough credits"
    );
    assert!(
        s.in_time > 0,
        "{tag}: no LTP followed its predecessor at once"
    );
    assert!(
        s.urgent_first > 0,
        "{tag}: the slot priority check never applied (no new LTP began while a VC was urgent)"
    );
    // Small buffers make every VC urgent (a quarter of 16 is one sideband unit) before an
    // LTP ends, so only the deep run must use the sideband.
    assert!(
        s.flit_credits > 0 && (s.sideband_credits > 0 || run.p.depth < 64),
        "{tag}: credits returned in sidebands and in CrdtRet flits"
    );
}

/// The brief's shape: 2 VCs of 16 flits, 4-LTP replay, 4 lanes; whole packets with seed 1,
/// interleaving with seed 2; and with seed 5 far buffers of 64 flits (the default), deep
/// enough for the credit sideband to carry credits.
#[test]
fn tx_link_four_ltp_replay_two_vcs() {
    let depth = |seed: u64| if seed == 5 { 64 } else { 16 };
    // Seeds 5 and 6 share a block built with 64-flit buffers of its own (seed 6's far end has
    // 16): the urgency threshold is a quarter of the block's own.
    let own_depth = |seed: u64| if seed >= 5 { 64 } else { 16 };
    let run = |seed: u64| Run {
        p: TxLinkParams {
            vcs: 2,
            depth: depth(seed),
            own_depth: own_depth(seed),
            replay: 4,
            rt_timeout: 64,
            init_mask: 0b1111,
            interleave: seed & 1 == 0,
            max_packet: 16,
        },
        flits: 20_000,
        in_rate: 0.7,
        ready: 0.8,
        drain: 0.5,
        withhold: (15_000, 800),
    };
    for seeds in [[1, 2], [5, 6]] {
        let rep = run_both_seeds(
            "tx_link_r4",
            &seeds,
            || DutA::new(2, depth(seeds[0]), 0b1111, 64, 16),
            || table(2),
            |b, s| bench(b, s, &run(s)),
        );
        for (r, s) in rep.iter().zip(seeds) {
            check(&format!("R4 seed {s}"), &r.result, &run(s));
        }
    }
}

/// 3 VCs of 8 flits, 2-LTP replay, 2 lanes (1 and 2) after reset, heavier backpressure and a
/// slower far end (credits scarce).
#[test]
fn tx_link_two_ltp_replay_three_vcs() {
    let run = |seed: u64| Run {
        p: TxLinkParams {
            vcs: 3,
            depth: 8,
            own_depth: 8,
            replay: 2,
            rt_timeout: 64,
            init_mask: 0b0110,
            interleave: seed & 1 == 0,
            max_packet: 8,
        },
        flits: 10_000,
        in_rate: 0.5,
        ready: 0.6,
        drain: 0.3,
        withhold: (10_000, 600),
    };
    let rep = run_both_seeds(
        "tx_link_r2",
        &[3, 4],
        || DutB::new(3, 8, 0b0110, 64, 8),
        || table(3),
        |b, s| bench(b, s, &run(s)),
    );
    for (r, s) in rep.iter().zip([3, 4]) {
        check(&format!("R2 seed {s}"), &r.result, &run(s));
    }
}

/// Every control code (reserved ones included), heads, bodies, tails, and raw 65-bit words.
fn any_flit(rng: &mut BenchRng) -> u128 {
    match rng.range(0, 4) {
        0 => rng.bits(65),
        1 => packet(rng)[0],
        2 => junk(rng),
        _ => (rng.bits(6) << 56) | rng.bits(56),
    }
}

fn classifier_bench(b: &mut dyn Backend) -> [u64; 3] {
    let mut rng = BenchRng::new(11);
    let (flit, word) = (b.port("flit"), b.port("word"));
    let mut seen = [0u64; 3];
    for i in 0..4000 {
        let f = any_flit(&mut rng);
        b.poke(flit, f);
        let w = b.peek(word);
        assert_eq!(w, tx_word(f), "flit {i} {f:#x}");
        for (n, bit) in [Q_DROP, Q_HEAD, Q_END].into_iter().enumerate() {
            seen[n] += (w >> bit & 1) as u64;
        }
        // A head's LEN rides above the class bits; other words have none.
        assert!(
            w >> Q_LEN == 0 || w >> Q_HEAD & 1 == 1,
            "flit {i}: LEN bits of a non-head"
        );
        b.tick();
    }
    assert!(seen.iter().all(|&n| n > 100), "every class bit: {seen:?}");
    seen
}

#[test]
fn tx_classifier_matches_the_model() {
    let table = || port_table!(comb TxClassifier; flit, word);
    run_both(
        "tx_classifier",
        TxClassifier::default,
        table,
        classifier_bench,
    );
}
