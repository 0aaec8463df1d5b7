//! ChannelSender (per-VC streams onto a router channel, credit flow controlled) against its
//! model (`testbench::models::channel_port`), every output every cycle, on both backends.
//!
//! The world: per VC a stream driver with random idle (random data while `valid` is low), a
//! receiver with `initial` slots per VC that drains at random and returns each credit after a
//! random delay (one credit bit per VC per cycle), `reset` at random moments under traffic.
//! Checked besides the model: every flit on the channel is the next one its VC's driver sent
//! (per-VC order, nothing lost or invented between resets), never without a free slot at the
//! receiver (so never without a credit), and a VC whose receiver stops draining never delays
//! another's flits. The violation run also returns credits that were never spent: the counter
//! saturates and `error` rises, as the header says.
#![allow(clippy::needless_range_loop)] // per-VC drivers, credits and model state are indexed by VC
use hdl::channel_sender::ChannelSender;
use hdl::formats::FLIT_BITS;
use std::collections::VecDeque;
use testbench::models::channel_port::ChannelSenderModel;
use testbench::models::stream::{Driver, StreamPorts};
use testbench::rhdl::SimValue;
use testbench::{port_table, run_both, Backend, BenchRng, PortTable, ResetSchedule};

fn table<const VCS: usize, const VCB: usize>() -> PortTable<ChannelSender<VCS, VCB>> {
    type T<const VCS: usize, const VCB: usize> = ChannelSender<VCS, VCB>;
    let mut t = port_table!(T<VCS, VCB>; reset, channel.valid, channel.flit, channel.vc,
        channel.credits, error);
    for v in 0..VCS {
        t.add(
            format!("sinks${v}$valid"),
            move |x: &mut T<VCS, VCB>, b| x.sinks[v].valid.next = SimValue::from_u128(b),
            move |x: &T<VCS, VCB>| SimValue::to_u128(&x.sinks[v].valid.val()),
        );
        t.add_full(
            format!("sinks${v}$data"),
            move |x: &mut T<VCS, VCB>, b| x.sinks[v].data.next = SimValue::from_u128(b),
            move |x: &T<VCS, VCB>| SimValue::to_u128(&x.sinks[v].data.val()),
            move |x: &mut T<VCS, VCB>, w: &[u64]| x.sinks[v].data.next = SimValue::from_words(w),
            move |x: &T<VCS, VCB>| SimValue::to_words(&x.sinks[v].data.val()),
        );
        t.add(
            format!("sinks${v}$ready"),
            move |x: &mut T<VCS, VCB>, b| x.sinks[v].ready.next = SimValue::from_u128(b),
            move |x: &T<VCS, VCB>| SimValue::to_u128(&x.sinks[v].ready.val()),
        );
    }
    t
}

/// How a run behaves.
#[derive(Clone, Copy)]
struct Run {
    vcs: usize,
    initial: usize,
    seed: u64,
    /// Chance per cycle that a driver offers a waiting flit.
    offer: f64,
    /// Chance per cycle that the receiver drains a VC.
    drain: f64,
    /// Credits come back after 1..=this many cycles.
    delay: u64,
    /// Chance per cycle and VC of a credit bit that pays back nothing (a broken receiver).
    bogus: f64,
    resets: bool,
    cycles: u64,
}

/// (flits delivered, reset pulses, error seen).
type Outcome = (u64, u64, bool);

fn bench(b: &mut dyn Backend, r: Run) -> Outcome {
    let mut rng = BenchRng::new(r.seed);
    let vcs = r.vcs;
    let mut model = ChannelSenderModel::new(vcs, r.initial as u64);
    let mut drivers: Vec<Driver> = (0..vcs)
        .map(|v| Driver::new(StreamPorts::new(b, &format!("sinks${v}")), r.offer))
        .collect();
    let (reset, valid, flit, vc, credits, error) = (
        b.port("reset"),
        b.port("channel$valid"),
        b.port("channel$flit"),
        b.port("channel$vc"),
        b.port("channel$credits"),
        b.port("error"),
    );
    let mut sched = if r.resets {
        ResetSchedule::new(&mut rng, 300)
    } else {
        ResetSchedule::never()
    };
    // Per VC: flits taken from the driver and not yet seen on the channel; the receiver's
    // buffer; credits due (cycle); slots in use.
    let mut taken: Vec<VecDeque<u128>> = vec![VecDeque::new(); vcs];
    let mut buffer: Vec<VecDeque<u128>> = vec![VecDeque::new(); vcs];
    let mut due: Vec<VecDeque<u64>> = vec![VecDeque::new(); vcs];
    let mut used = vec![0usize; vcs];
    // VC 0's receiver stops draining for a while in every run: the others must go on.
    let stall = (r.cycles / 3, r.cycles / 3 + 400);
    let (mut delivered, mut error_seen) = (0u64, false);
    let mut others_during_stall = 0u64;
    for cycle in 0..r.cycles {
        let rst = sched.drive(b, reset, &mut rng);
        for v in 0..vcs {
            while drivers[v].queue.len() < 8 {
                drivers[v].queue.push_back(rng.bits(FLIT_BITS));
            }
            drivers[v].drive(b, &mut rng);
        }
        // The receiver: drains, and returns credits when due (one per VC per cycle).
        let mut back = 0u64;
        for v in 0..vcs {
            let stalled = v == 0 && (stall.0..stall.1).contains(&cycle);
            if !buffer[v].is_empty() && !stalled && rng.chance(r.drain) {
                buffer[v].pop_front();
                due[v].push_back(cycle + rng.range(1, r.delay));
            }
            if due[v].front().is_some_and(|&t| t <= cycle) {
                due[v].pop_front();
                used[v] = used[v].saturating_sub(1);
                back |= 1 << v;
            } else if rng.chance(r.bogus) {
                back |= 1 << v;
            }
        }
        b.poke(credits, back as u128);
        let offers: u64 = (0..vcs)
            .filter(|&v| b.peek_bool(drivers[v].ports.valid))
            .fold(0, |m, v| m | 1 << v);
        let data: Vec<u128> = (0..vcs).map(|v| b.peek(drivers[v].ports.data)).collect();
        let want = model.outputs(offers, rst);
        let ready: u64 = (0..vcs)
            .filter(|&v| b.peek_bool(drivers[v].ports.ready))
            .fold(0, |m, v| m | 1 << v);
        let got_valid = b.peek_bool(valid);
        assert_eq!(ready, want.ready, "cycle {cycle}: ready");
        assert_eq!(got_valid, want.valid, "cycle {cycle}: channel.valid");
        assert_eq!(b.peek_bool(error), want.error, "cycle {cycle}: error");
        error_seen |= want.error;
        if got_valid && !rst {
            let (f, v) = (b.peek(flit), b.peek(vc) as usize);
            assert_eq!((f, v), (want.flit, want.vc), "cycle {cycle}: channel flit");
            assert_eq!(
                taken[v].pop_front(),
                Some(f),
                "cycle {cycle}: VC {v} sent a flit out of order"
            );
            assert!(
                r.bogus > 0.0 || used[v] < r.initial,
                "cycle {cycle}: VC {v} sent without a free slot at the receiver"
            );
            used[v] += 1;
            buffer[v].push_back(f);
            delivered += 1;
            if (stall.0 + 50..stall.1).contains(&cycle) && v != 0 {
                others_during_stall += 1;
            }
        }
        for v in 0..vcs {
            if let Some(f) = drivers[v].fired(b) {
                taken[v].push_back(f);
            }
        }
        model.edge(rst, offers, &data, back);
        b.tick();
        if rst {
            // Everything in flight is gone; the receiver restarts with its sender.
            for v in 0..vcs {
                taken[v].clear();
                buffer[v].clear();
                due[v].clear();
                used[v] = 0;
                drivers[v].reset();
            }
        }
        if r.bogus > 0.0 {
            // Bogus credits make the bench's slot count meaningless: follow the model's.
            for v in 0..vcs {
                used[v] = r.initial - model.credits(v) as usize;
            }
        }
    }
    if r.resets {
        sched.assert_pulses("channel_sender", 3);
    }
    if vcs > 1 && !r.resets && r.bogus == 0.0 {
        assert!(
            others_during_stall > 100,
            "VC 0 stalled and the others sent only {others_during_stall} flits"
        );
    }
    (delivered, sched.pulses(), error_seen)
}

fn run<const VCS: usize, const VCB: usize>(name: &str, r: Run) -> Outcome {
    run_both(
        name,
        || ChannelSender::<VCS, VCB>::new(r.initial),
        table::<VCS, VCB>,
        |b| bench(b, r),
    )
    .result
}

const BASE: Run = Run {
    vcs: 3,
    initial: 4,
    seed: 1,
    offer: 0.7,
    drain: 0.5,
    delay: 6,
    bogus: 0.0,
    resets: true,
    cycles: 4000,
};

#[test]
fn channel_sender_matches_model() {
    let (n, pulses, error) = run::<3, 2>("channel_sender", BASE);
    assert!(n > 2000 && pulses >= 3 && !error, "{n} {pulses} {error}");
    // Full rate without resets: the stall of VC 0 must not hold the others.
    let (n, _, _) = run::<3, 2>(
        "channel_sender",
        Run {
            seed: 2,
            offer: 1.0,
            drain: 1.0,
            delay: 1,
            resets: false,
            ..BASE
        },
    );
    assert!(n > 3500, "full rate: {n} flits in 4000 cycles");
}

#[test]
fn channel_sender_single_vc_and_violations() {
    let (n, _, error) = run::<1, 1>(
        "channel_sender_1",
        Run {
            vcs: 1,
            initial: 2,
            seed: 3,
            ..BASE
        },
    );
    assert!(n > 500 && !error);
    let (_, _, error) = run::<3, 2>(
        "channel_sender",
        Run {
            seed: 4,
            bogus: 0.01,
            resets: false,
            ..BASE
        },
    );
    assert!(error, "over-returned credits raise error");
}
