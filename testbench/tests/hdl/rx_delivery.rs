//! RxDelivery against its model: an LTP sender model builds groups of up to 16 data flits
//! from per-VC packet streams (good packets and some dirty ones), switching VCs by head flits
//! or VlMrkrs, spending one credit per flit of a VC and taking credits back from `freed` as a
//! real sender would (starting at D), with occasional heads/VlMrkrs naming a VC out of range
//! followed by junk. Each group is written with random idle and then committed or rolled back
//! (a rolled-back group is replayed, as the link's retry does), the decision often in the same
//! cycle as the next group's first write. Every VC's reader applies random backpressure.
//! Checks: each VC delivers exactly the flits its own packet-buffer model commits for the
//! sender's stream of that VC, in order (so nothing of a rolled-back group leaks and nothing is
//! lost or misrouted), every credit comes back, the drop events (`drops`) counted per reason
//! match the model and the sender's count of dirty packets (and each cycle's drops are one
//! flit's: a bad VC alone, or at most a missing tail and one other reason), the error record
//! (`err_reason`, `err_vc`) is the model's most recent drop, and the staging
//! buffer never overflows. `wr_data` is random while `wr_valid` is low. Whenever `quiet` is
//! high, each `free[v]` must be the depth less the flits the model's buffer holds; far-end
//! restarts (`restart`) come at random quiet moments between groups, after which the sender
//! names its VC with a VlMrkr (the model's current VC goes to 0, as the hardware's must).
//!
//! Reset (its doc: "empties everything and clears the error record", current VC 0): a run
//! with 1-3 cycle pulses at random moments (the shared [`ResetSchedule`]). In the first cycle
//! after each, every `sources[v].valid`, every `freed[v]`, `drops`, `drop_vc`, the error
//! record and `overflow` must be zero. The sender abandons the LTP it was
//! writing and starts over with full credits and VC 0, in the middle of its streams (as a link
//! does when both ends reset); every flit delivered afterwards is checked against the reset
//! model, and at the end every credit must be back and the status must be the model's.
use hdl::formats::flit::{ControlCode, Flit};
use hdl::rx_delivery;
use std::collections::VecDeque;
use testbench::models::formats::{
    random_body_flit as body, random_header, random_tail_flit as tail,
};
use testbench::models::packet_buffer::{Counters, PacketBufferModel};
use testbench::models::rx_delivery::{route, Route, RxDeliveryModel};
use testbench::models::stream::{Receiver, StreamPorts};
use testbench::reset::ResetSchedule;
use testbench::rhdl::SimValue;
use testbench::{port_table, run_both, Backend, BenchRng, PortTable};

type Dut16 = rx_delivery!(32, 16);
type Dut32 = rx_delivery!(32, 32);

fn table<
    const S: usize,
    const SAW: usize,
    const SCW: usize,
    const D: usize,
    const AW: usize,
    const CW: usize,
>(
    vcs: usize,
) -> PortTable<hdl::llp::rx_delivery::RxDelivery<S, SAW, SCW, D, AW, CW>> {
    type T<
        const S: usize,
        const SAW: usize,
        const SCW: usize,
        const D: usize,
        const AW: usize,
        const CW: usize,
    > = hdl::llp::rx_delivery::RxDelivery<S, SAW, SCW, D, AW, CW>;
    let mut t = port_table!(T<S, SAW, SCW, D, AW, CW>; reset, wr_valid, wr_data, commit, rollback,
        drops, drop_vc, err_reason, err_vc, overflow, restart, quiet);
    for i in 0..vcs {
        t.add(
            format!("sources${i}$valid"),
            move |x: &mut T<S, SAW, SCW, D, AW, CW>, v| {
                x.sources[i].valid.next = SimValue::from_u128(v)
            },
            move |x: &T<S, SAW, SCW, D, AW, CW>| x.sources[i].valid.val().to_u128(),
        );
        t.add(
            format!("sources${i}$data"),
            move |x: &mut T<S, SAW, SCW, D, AW, CW>, v| {
                x.sources[i].data.next = SimValue::from_u128(v)
            },
            move |x: &T<S, SAW, SCW, D, AW, CW>| SimValue::to_u128(&x.sources[i].data.val()),
        );
        t.add(
            format!("sources${i}$ready"),
            move |x: &mut T<S, SAW, SCW, D, AW, CW>, v| {
                x.sources[i].ready.next = SimValue::from_u128(v)
            },
            move |x: &T<S, SAW, SCW, D, AW, CW>| x.sources[i].ready.val().to_u128(),
        );
        t.add(
            format!("freed${i}"),
            move |x: &mut T<S, SAW, SCW, D, AW, CW>, v| x.freed[i].next = SimValue::from_u128(v),
            move |x: &T<S, SAW, SCW, D, AW, CW>| SimValue::to_u128(&x.freed[i].val()),
        );
        t.add(
            format!("free${i}"),
            move |x: &mut T<S, SAW, SCW, D, AW, CW>, v| x.free[i].next = SimValue::from_u128(v),
            move |x: &T<S, SAW, SCW, D, AW, CW>| SimValue::to_u128(&x.free[i].val()),
        );
    }
    t
}

const MH: usize = 0;
const MT: usize = 1;
const TL: usize = 2;
const BAD: usize = 3;

fn head(rng: &mut BenchRng, vc: u8, len: u8) -> u128 {
    let mut h = random_header(rng, len);
    h.vc = vc;
    Flit::Head(h).pack()
}
fn control(code: ControlCode, vc: u8, rng: &mut BenchRng) -> u128 {
    Flit::Control {
        code,
        vc,
        credits: 0,
        orig: rng.bits(32) as u64,
    }
    .pack()
}
fn vl_marker(vc: u8, rng: &mut BenchRng) -> u128 {
    control(ControlCode::VlMrkr, vc, rng)
}

/// One VC's stream: packets (some dirty), ending with a good one. Returns the flits and the
/// dirty packets by counter.
fn vc_stream(
    rng: &mut BenchRng,
    vc: u8,
    items: usize,
    max_len: usize,
    dirty: f64,
) -> (Vec<u128>, Counters) {
    let mut flits = vec![];
    let mut want = [0u64; 5];
    let mut open_end = false;
    for i in 0..items {
        let n = rng.range(2, max_len as u64) as usize;
        let mut p = vec![head(rng, vc, n as u8)];
        p.extend((2..n).map(|_| body(rng)));
        p.push(tail(rng));
        let kind = if i + 1 < items && rng.chance(dirty) {
            rng.range(1, 4)
        } else {
            0
        };
        let kind = if open_end && kind == 1 { 0 } else { kind };
        open_end = false;
        match kind {
            1 => {
                p.remove(0);
                want[MH] += 1;
            }
            2 => {
                p.pop();
                want[MT] += 1;
                open_end = true;
            }
            3 => {
                let len = (n + rng.range(1, 3) as usize) as u8;
                p[0] = head(rng, vc, len);
                want[TL] += 1;
            }
            4 => {
                let j = rng.range(0, n as u64 - 1) as usize;
                let code = match j {
                    0 => ControlCode::HeadBadPkt,
                    j if j == n - 1 => ControlCode::TailBadPkt,
                    _ => ControlCode::BodyBadPkt,
                };
                p[j] = control(code, vc, rng);
                want[BAD] += 1;
            }
            _ => {}
        }
        flits.extend(p);
    }
    (flits, want)
}

struct Params {
    vcs: usize,
    max_len: usize,
    items: usize,
    /// Share of dirty packets.
    dirty: f64,
    /// Probability of writing the next flit of a group in a cycle.
    in_rate: f64,
    /// Commit probability of a finished group (else rollback and replay).
    commit: f64,
    /// Probability per group of a head or VlMrkr naming a VC out of range.
    bad_vc: f64,
    /// Per-VC reader ready probability.
    out_rates: Vec<f64>,
    /// Mean cycles between reset pulses (0: none). With resets the totals and deliveries are
    /// the reset model's alone (the streams' dirty packets are cut at random).
    reset_gap: u64,
    /// Probability per eligible cycle of a far-end restart (`restart`): eligible when the
    /// hardware is `quiet` and the next group has not started.
    restart: f64,
}

#[derive(Debug, PartialEq)]
struct Outcome {
    delivered: Vec<usize>,
    totals: Counters,
    bad_vc: u64,
    err: (u8, usize),
    cycles: u64,
    rollbacks: u64,
    /// Restarts made.
    restarts: u64,
    /// Cycles in which `quiet` was high (and `free` checked against the model).
    quiet_cycles: u64,
}

/// The link sender: per-VC streams, credits, and its view of the current VC.
struct Sender {
    streams: Vec<VecDeque<u128>>,
    credits: Vec<u64>,
    ctx: u8,
    bad_vc_sent: u64,
}

impl Sender {
    /// Builds the next LTP's data flits: at most 16, from VCs with credit and flits to send.
    fn build(&mut self, rng: &mut BenchRng, p: &Params) -> Vec<u128> {
        let vcs = p.vcs as u8;
        let mut g = vec![];
        if rng.chance(p.bad_vc) {
            // A head or VlMrkr naming a VC out of range, then junk up to the next switch.
            let v = rng.range(vcs as u64, 7) as u8;
            g.push(if rng.chance(0.5) {
                head(rng, v, 4)
            } else {
                vl_marker(v, rng)
            });
            for _ in 0..rng.range(0, 3) {
                g.push(body(rng));
            }
            self.ctx = v;
            self.bad_vc_sent += 1;
        }
        while g.len() < 15 {
            let ready: Vec<usize> = (0..p.vcs)
                .filter(|&v| self.credits[v] > 0 && !self.streams[v].is_empty())
                .collect();
            if ready.is_empty() {
                break;
            }
            // Mostly stay on the current VC (runs), sometimes switch.
            let v = if ready.contains(&(self.ctx as usize)) && rng.chance(0.7) {
                self.ctx as usize
            } else {
                ready[rng.range(0, ready.len() as u64 - 1) as usize]
            };
            let w = self.streams[v][0];
            let is_head = route(w) != Route::Same;
            if (self.ctx as usize != v && !is_head) || rng.chance(0.03) {
                g.push(vl_marker(v as u8, rng));
            }
            self.ctx = v as u8;
            self.streams[v].pop_front();
            self.credits[v] -= 1;
            g.push(w);
        }
        g
    }
}

fn bench<const D: usize>(b: &mut dyn Backend, p: &Params, seed: u64) -> Outcome {
    let mut rng = BenchRng::new(seed);
    let port = |n: &str| b.port(n);
    let (reset, wv, wd, cm, rb, ovf) = (
        port("reset"),
        port("wr_valid"),
        port("wr_data"),
        port("commit"),
        port("rollback"),
        port("overflow"),
    );
    let (drops_p, dvc, evc, er) = (
        port("drops"),
        port("drop_vc"),
        port("err_vc"),
        port("err_reason"),
    );
    // The hardware's drop events counted per reason (the model's counter slots) and bad VCs.
    let (mut counted, mut counted_bad_vc) = ([0u64; 5], 0u64);
    let freed: Vec<_> = (0..p.vcs).map(|i| port(&format!("freed${i}"))).collect();
    let free: Vec<_> = (0..p.vcs).map(|i| port(&format!("free${i}"))).collect();
    let (restart_port, quiet_port) = (port("restart"), port("quiet"));
    let mut rx: Vec<Receiver> = (0..p.vcs)
        .map(|i| Receiver::new(StreamPorts::new(b, &format!("sources${i}")), p.out_rates[i]))
        .collect();

    // The sender's streams, and what each VC must deliver (its own packet-buffer model).
    let mut gen = BenchRng::new(seed ^ 0xde11);
    let mut want = [0u64; 5];
    let mut expect: Vec<Vec<u128>> = vec![];
    let mut streams = vec![];
    for v in 0..p.vcs {
        let (s, w) = vc_stream(&mut gen, v as u8, p.items, p.max_len, p.dirty);
        for (a, b) in want.iter_mut().zip(w) {
            *a += b;
        }
        let mut pb = PacketBufferModel::new(D, p.max_len);
        let mut e = vec![];
        for &f in &s {
            pb.edge(Some(f), false);
            e.extend(pb.committed.drain(..));
        }
        assert_eq!(pb.counters, w, "seed {seed}: VC {v} stream generator");
        expect.push(e);
        streams.push(s.into_iter().collect::<VecDeque<u128>>());
    }
    let mut tx = Sender {
        streams,
        credits: vec![D as u64; p.vcs],
        ctx: 0,
        bad_vc_sent: 0,
    };
    let mut model = RxDeliveryModel::new(p.vcs, D, p.max_len);
    let mut got: Vec<Vec<u128>> = vec![vec![]; p.vcs];
    // The sender's view of the receiver's VC before the group in progress was built.
    let mut group_ctx = tx.ctx;
    let mut group = tx.build(&mut rng, p);
    let (mut restarts, mut quiet_cycles) = (0u64, 0u64);
    let mut idx = 0usize;
    let mut wait = 0u64;
    let (mut cycles, mut rollbacks) = (0u64, 0u64);
    let mut bad_vc_committed = 0u64;
    let mut group_bad = tx.bad_vc_sent;
    let mut sched = match p.reset_gap {
        0 => ResetSchedule::never(),
        gap => ResetSchedule::new(&mut rng, gap),
    };

    b.poke_bool(reset, true);
    b.tick();
    b.poke_bool(reset, false);
    loop {
        let rst = sched.drive(b, reset, &mut rng);
        let sender_done = tx.streams.iter().all(|s| s.is_empty());
        let (mut commit, mut rollback) = (false, false);
        if idx == group.len() {
            if wait > 0 {
                wait -= 1;
            } else if !group.is_empty() || !sender_done {
                if rng.chance(p.commit) {
                    commit = true;
                    bad_vc_committed += group_bad;
                    let before = tx.bad_vc_sent;
                    group_ctx = tx.ctx;
                    group = tx.build(&mut rng, p);
                    group_bad = tx.bad_vc_sent - before;
                } else {
                    rollback = true;
                    rollbacks += 1;
                }
                idx = 0;
                wait = rng.range(0, 2);
            }
        }
        // With nothing committed in flight, `free` counts exactly the flits the model holds.
        let quiet = b.peek_bool(quiet_port);
        if quiet && !rst {
            quiet_cycles += 1;
            for v in 0..p.vcs {
                assert_eq!(
                    b.peek(free[v]) as usize,
                    D - model.bufs[v].used(),
                    "seed {seed} cycle {cycles}: VC {v} free slots while quiet"
                );
            }
        }
        // A far-end restart: the receiver's VC goes back to 0; the sender, which assumes that
        // too after its reset, names the group's VC with a VlMrkr first.
        let restart = quiet
            && !rst
            && idx == 0
            && !commit
            && !rollback
            && (group_ctx as usize) < p.vcs
            && rng.chance(p.restart);
        b.poke_bool(restart_port, restart);
        if restart {
            group.insert(0, vl_marker(group_ctx, &mut rng));
            model.cur = 0;
            restarts += 1;
        }
        let mut write = None;
        if idx < group.len() && rng.chance(p.in_rate) {
            write = Some(group[idx]);
            idx += 1;
        }
        b.poke_bool(wv, write.is_some());
        let idle_data = rng.bits(65);
        b.poke(wd, write.unwrap_or(idle_data));
        b.poke_bool(cm, commit);
        b.poke_bool(rb, rollback);
        for r in rx.iter_mut() {
            r.drive(b, &mut rng);
        }
        assert!(
            !b.peek_bool(ovf),
            "seed {seed} cycle {cycles}: staging overflow"
        );
        if sched.released() {
            let mut status: Vec<u128> = freed
                .iter()
                .chain(&[drops_p, dvc, evc, er])
                .map(|&q| b.peek(q))
                .collect();
            status.extend(rx.iter().map(|r| b.peek(r.ports.valid)));
            assert!(
                status.iter().all(|&v| v == 0),
                "seed {seed} cycle {cycles}: status or an output not cleared by reset: {status:?}"
            );
        }
        for v in 0..p.vcs {
            let f = b.peek(freed[v]) as u64;
            tx.credits[v] += f;
            assert!(
                tx.credits[v] <= D as u64,
                "seed {seed}: VC {v} credits above D"
            );
            let taken = rx[v].fired(b);
            if rst {
                continue; // a reset cycle's handshakes are void
            }
            if let Some(w) = taken {
                let m = model.bufs[v].committed.pop_front();
                assert_eq!(
                    Some(w),
                    m,
                    "seed {seed} cycle {cycles}: VC {v} flit {}",
                    got[v].len()
                );
                got[v].push(w);
            }
        }
        count_drops(b.peek(drops_p) as u8, &mut counted, &mut counted_bad_vc)
            .unwrap_or_else(|e| panic!("seed {seed} cycle {cycles}: {e}"));
        for (h, m) in counted.iter().zip(model.totals()) {
            assert!(
                *h <= m,
                "seed {seed} cycle {cycles}: a count ahead of the model"
            );
        }
        b.tick();
        cycles += 1;
        if rst {
            // Everything inside is gone; the sender starts over mid-stream (its group lost).
            model.reset();
            (counted, counted_bad_vc) = ([0; 5], 0);
            rx.iter_mut().for_each(|r| r.reset());
            tx.credits = vec![D as u64; p.vcs];
            tx.ctx = 0;
            group_ctx = 0;
            group = tx.build(&mut rng, p);
            (idx, wait) = (0, 0);
            continue;
        }
        model.edge(write, commit, rollback);
        // Without resets the streams say what must come out; with them, the model.
        let delivered = if p.reset_gap == 0 {
            (0..p.vcs).all(|v| got[v].len() == expect[v].len())
        } else {
            model.pending.is_empty() && model.bufs.iter().all(|b| b.committed.is_empty())
        };
        if sender_done && idx == group.len() && group.is_empty() && delivered {
            break;
        }
        assert!(
            cycles < 100_000,
            "seed {seed}: hang; credits {:?}, left {:?}, got {:?} of {:?}, model holds {:?}, group {}/{}",
            tx.credits,
            tx.streams.iter().map(|s| s.len()).collect::<Vec<_>>(),
            got.iter().map(|g| g.len()).collect::<Vec<_>>(),
            expect.iter().map(|g| g.len()).collect::<Vec<_>>(),
            model.bufs.iter().map(|b| (b.committed.len(), b.used(), b.mid_packet())).collect::<Vec<_>>(),
            idx,
            group.len()
        );
    }
    // Drain: the last credits and status settle within a few cycles.
    for _ in 0..6 {
        b.poke_bool(wv, false);
        b.poke(wd, rng.bits(65));
        b.poke_bool(cm, false);
        b.poke_bool(rb, false);
        for v in 0..p.vcs {
            tx.credits[v] += b.peek(freed[v]) as u64;
            assert!(
                !b.peek_bool(rx[v].ports.valid),
                "seed {seed}: VC {v} extra flit"
            );
        }
        count_drops(b.peek(drops_p) as u8, &mut counted, &mut counted_bad_vc)
            .unwrap_or_else(|e| panic!("seed {seed} drain: {e}"));
        b.tick();
    }
    if p.reset_gap == 0 {
        assert_eq!(got, expect, "seed {seed}: delivered flits per VC");
    } else {
        sched.assert_pulses(&format!("rx delivery seed {seed}"), 5);
    }
    assert_eq!(
        tx.credits,
        vec![D as u64; p.vcs],
        "seed {seed}: credits returned"
    );
    assert_eq!(
        counted,
        model.totals(),
        "seed {seed}: drops counted vs model"
    );
    if p.reset_gap == 0 {
        assert_eq!(
            model.totals(),
            want,
            "seed {seed}: totals vs the dirty packets sent"
        );
    }
    assert_eq!(counted_bad_vc, model.bad_vc, "seed {seed}: bad_vc vs model");
    if p.reset_gap == 0 {
        assert_eq!(
            model.bad_vc, bad_vc_committed,
            "seed {seed}: bad_vc vs sent"
        );
    }
    let err = (b.peek(er) as u8, b.peek(evc) as usize);
    assert_eq!(err, model.last, "seed {seed}: error record (reason, VC)");
    Outcome {
        delivered: got.iter().map(|g| g.len()).collect(),
        totals: model.totals(),
        bad_vc: model.bad_vc,
        err,
        cycles,
        rollbacks,
        restarts,
        quiet_cycles,
    }
}

/// Adds one cycle's drop events to the counts (the model's counter slots, bad VCs apart);
/// fails unless they are one flit's: a bad VC alone, or at most a missing tail and one more.
fn count_drops(drops: u8, counted: &mut Counters, bad_vc: &mut u64) -> Result<(), String> {
    use hdl::llp::packet_buffer::*;
    let bit = |r: u8| drops >> drop_bit(r) & 1 == 1;
    let others = drops & !(1 << drop_bit(REASON_MISSING_TAIL));
    if bit(REASON_BAD_VC) && drops.count_ones() > 1 || others.count_ones() > 1 {
        return Err(format!("drops {drops:#09b} are not one flit's"));
    }
    for (reason, slot) in [
        (REASON_MISSING_HEAD, 0),
        (REASON_MISSING_TAIL, 1),
        (REASON_TOO_LONG, 2),
        (REASON_TOO_SHORT, 2),
        (REASON_BAD, 3),
        (REASON_OVERRUN, 4),
    ] {
        if bit(reason) {
            counted[slot] += 1;
        }
    }
    if bit(REASON_BAD_VC) {
        *bad_vc += 1;
    }
    Ok(())
}

fn params(vcs: usize, max_len: usize, items: usize, rng: &mut BenchRng) -> Params {
    Params {
        vcs,
        max_len,
        items,
        dirty: 0.2,
        in_rate: 0.9,
        commit: 0.75,
        bad_vc: 0.1,
        out_rates: (0..vcs)
            .map(|_| 0.3 + 0.7 * rng.range(0, 10) as f64 / 10.0)
            .collect(),
        reset_gap: 0,
        restart: 0.3,
    }
}

/// Resets at random moments while LTPs of good and dirty packets are written, committed and
/// rolled back on three VCs.
#[test]
fn rx_delivery_resets_under_traffic() {
    let mut p = params(3, 8, 60, &mut BenchRng::new(78));
    p.reset_gap = 250;
    let r = run_both(
        "rx_delivery_3x16",
        || Dut16::new(3, 8),
        || table(3),
        |b| bench::<16>(b, &p, 6),
    );
    eprintln!("resets: {:?}", r.result);
    assert!(
        r.result.delivered.iter().all(|&n| n > 20),
        "too little delivered between resets: {:?}",
        r.result.delivered
    );
}

#[test]
fn rx_delivery_random_ltps() {
    let mut rng = BenchRng::new(77);
    for (seed, vcs) in [(1u64, 2usize), (2, 3)] {
        let p = params(vcs, 8, 60, &mut rng);
        let r = run_both(
            &format!("rx_delivery_{vcs}x16"),
            || Dut16::new(vcs, 8),
            || table(vcs),
            |b| bench::<16>(b, &p, seed),
        );
        eprintln!("seed {seed}: {:?}", r.result);
        assert!(
            r.result.totals[..4].iter().all(|&c| c > 0),
            "every dirty kind must occur"
        );
        assert!(r.result.bad_vc > 0 && r.result.rollbacks > 0);
        assert!(
            r.result.restarts >= 1 && r.result.quiet_cycles > 100,
            "restarts and quiet checks must occur: {:?}",
            r.result
        );
    }
    let p = params(4, 16, 40, &mut rng);
    let r = run_both(
        "rx_delivery_4x32",
        || Dut32::new(4, 16),
        || table(4),
        |b| bench::<32>(b, &p, 3),
    );
    eprintln!("seed 3: {:?}", r.result);
}

/// Every group committed, readers always ready: the path keeps up with a sender at full rate.
#[test]
fn rx_delivery_full_rate() {
    let mut p = params(2, 8, 60, &mut BenchRng::new(1));
    p.dirty = 0.0;
    p.bad_vc = 0.0;
    p.commit = 1.0;
    p.in_rate = 1.0;
    p.out_rates = vec![1.0, 1.0];
    let r = run_both(
        "rx_delivery_rate",
        || Dut16::new(2, 8),
        || table(2),
        |b| bench::<16>(b, &p, 5),
    );
    let flits: usize = r.result.delivered.iter().sum();
    eprintln!("{flits} flits in {} cycles", r.result.cycles);
    // Credits (16 per VC, a round trip of about 6 cycles) and the group gaps set the pace.
    assert!(
        r.result.cycles * 10 <= flits as u64 * 14,
        "{flits} flits took {} cycles",
        r.result.cycles
    );
}
