//! The two-endpoint link bench on Verilator (issue 3's system bench): endpoints A and B of the
//! default shape cross-connected through faulty wires, random packets on every VC both ways,
//! random receiver backpressure. `run_link` fails on the first lost, duplicated, reordered or
//! corrupted flit, on a deadlock, on a protocol error and on a good packet dropped as dirty;
//! each test then checks what its faults must have caused. Together they move well over a
//! million flits.
use testbench::link_bench::{
    endpoint_model, endpoint_model_of, renumbered, run_link, run_link_models, EndReset,
    EndpointShape, LinkRun, IDENTITY,
};
use testbench::models::lane_channel::{BadLane, Faults, LaneFault};

const SHAPE: EndpointShape = EndpointShape {
    vcs: 2,
    replay: 16,
    depth: 64,
    max_packet: 32,
    lanes: 4,
    lane_bits: 32,
};

/// The default shape on 16-bit lanes: an XFR in two transfers (`hdl::llp::gearbox`), so 4
/// lanes carry the serializer's flit per cycle.
const SHAPE16: EndpointShape = EndpointShape {
    lane_bits: 16,
    ..SHAPE
};

/// Small buffers: a 2-LTP replay buffer and 16-flit receive buffers.
const SMALL: EndpointShape = EndpointShape {
    replay: 2,
    depth: 16,
    max_packet: 16,
    ..SHAPE
};

fn bad(lane: usize, from: u64, to: u64, fault: LaneFault) -> Option<BadLane> {
    Some(BadLane {
        lane,
        from,
        to,
        fault,
    })
}

#[test]
fn clean_link_delivers_every_flit_with_backpressure() {
    let m = endpoint_model(SHAPE).unwrap();
    let r = run_link(
        &m,
        2,
        &LinkRun {
            flits: 150_000,
            rx_rate: 0.7,
            seed: 11,
            ..Default::default()
        },
    )
    .unwrap();
    for s in &r.status {
        assert_eq!((s.ltps_bad, s.retries, s.ltps_dup), (0, 0, 0), "{s:?}");
        assert_eq!((s.trainings, s.rx_mask, s.tx_mask), (0, 0xf, 0xf), "{s:?}");
        assert!(s.link_up);
    }
    assert!(r.dirs.iter().all(|d| d.delivered >= 150_000));
    // Training: 8 good words per lane, then 8 ready words heard and 16 told, over a 4-cycle
    // wire.
    assert!(r.train_cycles < 200, "trained in {} cycles", r.train_cycles);
}

/// BER 1e-4 with error bursts and dropped transfers, no bad lane.
fn rough_wire() -> Faults {
    Faults {
        ber: 1e-4,
        burst_rate: 1e-4,
        burst_len: 12,
        drop_rate: 1e-4,
        bad: None,
        also: None,
    }
}

#[test]
fn random_errors_bursts_and_drops_lose_nothing() {
    let m = endpoint_model(SHAPE).unwrap();
    let wire = rough_wire();
    // Lane removal on, at the configuration's rate: errors spread evenly over the lanes at
    // this rate must not strip good lanes.
    let r = run_link(
        &m,
        2,
        &LinkRun {
            ab: wire,
            ba: wire,
            flits: 300_000,
            rx_rate: 0.9,
            seed: 12,
            ..Default::default()
        },
    )
    .unwrap();
    for (e, s) in r.status.iter().enumerate() {
        let w = r.dirs[1 - e].wire;
        assert!(w.flips > 100 && w.drops > 10 && w.bursts > 10, "{w:?}");
        assert!(s.ltps_bad > 100 && s.retries > 100, "{s:?}");
        assert_eq!(
            (s.rx_mask, s.lanes_removed),
            (0xf, 0),
            "uniform errors removed a lane"
        );
    }
}

#[test]
fn dead_lane_is_named_and_removed_and_traffic_goes_on_at_three_lanes() {
    let m = endpoint_model(SHAPE).unwrap();
    let r = run_link(
        &m,
        2,
        &LinkRun {
            ab: Faults {
                bad: bad(2, 20_000, u64::MAX, LaneFault::Dead),
                ..Faults::uniform(1e-6)
            },
            ba: Faults::uniform(1e-6),
            flits: 200_000,
            seed: 13,
            ..Default::default()
        },
    )
    .unwrap();
    let (a, b) = (r.status[0], r.status[1]);
    assert_eq!(
        (b.rx_mask, a.tx_mask, b.lanes_removed),
        (0b1011, 0b1011, 1),
        "{a:?} {b:?}"
    );
    assert_eq!(
        (b.rx_width, a.tx_width, a.rx_width),
        (3, 3, 4),
        "{a:?} {b:?}"
    );
    assert!(b.lane_errors[2] >= 8, "{b:?}");
    assert_eq!(
        (a.rx_mask, b.tx_mask),
        (0xf, 0xf),
        "the other direction keeps 4 lanes"
    );
    assert!(r.dirs[0].last > 40_000, "traffic went on after the removal");
}

#[test]
fn noisy_lane_is_identified_by_group_crcs_and_removed() {
    let m = endpoint_model(SHAPE).unwrap();
    let r = run_link(
        &m,
        2,
        &LinkRun {
            ab: Faults::uniform(1e-6),
            ba: Faults {
                bad: bad(1, 10_000, u64::MAX, LaneFault::Noisy(2e-3)),
                ..Faults::uniform(1e-6)
            },
            flits: 200_000,
            seed: 14,
            ..Default::default()
        },
    )
    .unwrap();
    let (a, b) = (r.status[0], r.status[1]);
    assert_eq!(
        (a.rx_mask, b.tx_mask, a.lanes_removed),
        (0b1101, 0b1101, 1),
        "{a:?} {b:?}"
    );
    // Lane 1 reached the threshold and was the one removed; the good lanes keep counting
    // their own background errors for the rest of the run, so whole-run totals are not compared.
    assert!(a.lane_errors[1] >= 8, "{a:?}");
    // The good lanes see the background errors (BER 1e-6) too: every error charged to a lane
    // must come from bits flipped on that very lane, so none is charged to the wrong one.
    let flips = r.dirs[1].wire.lane_flips;
    for n in 0..4 {
        assert!(
            a.lane_errors[n] <= flips[n],
            "lane {n} charged {} errors but only {} bits flipped on it: {a:?} {flips:?}",
            a.lane_errors[n],
            flips[n]
        );
    }
}

/// The lane threshold is a run-time setting (the port's `link_settings` register drives the
/// endpoint's input): written to 0 (never remove) while the link runs, a lane that turns
/// noisy afterwards is charged its errors but not removed, and nothing is lost. The same run
/// without the write removes the lane (so the test can fail). The lane is noisy enough to
/// reach the default threshold (about 12 % of its LTPs fail, above the drain's 6.25 %) but not
/// so noisy that `retry_limit` fruitless retries in a row take the link down: at BER 2e-3
/// (40 % of LTPs) they do, and training then leaves the lane out, whatever the threshold.
#[test]
fn lane_threshold_written_to_zero_at_run_time_stops_removal() {
    let m = endpoint_model(SHAPE).unwrap();
    let run = |threshold_change| {
        run_link(
            &m,
            2,
            &LinkRun {
                ab: Faults::uniform(1e-6),
                ba: Faults {
                    bad: bad(1, 10_000, u64::MAX, LaneFault::Noisy(5e-4)),
                    ..Faults::uniform(1e-6)
                },
                flits: 100_000,
                seed: 14,
                threshold_change,
                ..Default::default()
            },
        )
        .unwrap()
    };
    let r = run(Some((5_000, 0)));
    let (a, b) = (r.status[0], r.status[1]);
    assert_eq!(
        (a.rx_mask, b.tx_mask, a.lanes_removed, a.trainings),
        (0b1111, 0b1111, 0, 0),
        "{a:?} {b:?}"
    );
    assert!(a.lane_errors[1] >= 8, "the noisy lane was charged: {a:?}");
    let r = run(None);
    let a = r.status[0];
    assert_eq!(
        (a.rx_mask, a.lanes_removed),
        (0b1101, 1),
        "without the write the lane is removed: {a:?}"
    );
}

#[test]
fn full_replay_buffer_and_exhausted_credits_do_not_deadlock() {
    let m = endpoint_model(SMALL).unwrap();
    let r = run_link(
        &m,
        2,
        &LinkRun {
            ab: Faults::uniform(1e-5),
            ba: Faults::uniform(1e-5),
            flits: 100_000,
            rx_rate: 0.3,
            interleave: true,
            seed: 15,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(r.status.iter().all(|s| s.ltps_bad > 0), "{:?}", r.status);
}

/// A lane stuck at all ones and, in the other direction, a lane of garbage, both with `valid`
/// high: no group CRC can name them (no good copy ever arrives), so the link makes no
/// progress, goes down after `retry_limit` retries, and training leaves each bad lane out of
/// its own direction. Nothing is lost: the replay buffers survive the retraining.
#[test]
fn stuck_and_garbage_lanes_are_left_out_by_training() {
    let m = endpoint_model(SHAPE).unwrap();
    let r = run_link(
        &m,
        2,
        &LinkRun {
            ab: Faults {
                bad: bad(2, 20_000, u64::MAX, LaneFault::Stuck(0xffff_ffff)),
                also: bad(3, 60_000, u64::MAX, LaneFault::Stuck(0)),
                ..Faults::uniform(1e-6)
            },
            ba: Faults {
                bad: bad(0, 30_000, u64::MAX, LaneFault::Garbage),
                ..Faults::uniform(1e-6)
            },
            flits: 150_000,
            seed: 16,
            ..Default::default()
        },
    )
    .unwrap();
    let (a, b) = (r.status[0], r.status[1]);
    assert_eq!((b.rx_mask, a.tx_mask), (0b0011, 0b0011), "{a:?} {b:?}");
    assert_eq!((a.rx_mask, b.tx_mask), (0b1110, 0b1110), "{a:?} {b:?}");
    assert!(a.trainings >= 3 && b.trainings >= 3, "{a:?} {b:?}");
    assert!(r.dirs[0].last > 100_000, "traffic went on at two lanes");
}

/// Two lanes of one direction die in the same cycle while the other direction loses a lane
/// one cycle later: each side's lane-mask change crosses the other's. Whatever the lane-mask
/// protocol does, the link ends up carrying traffic with the lanes that work, and loses nothing.
#[test]
fn two_lanes_at_once_and_both_directions_at_once_lose_nothing() {
    let m = endpoint_model(SHAPE).unwrap();
    let r = run_link(
        &m,
        2,
        &LinkRun {
            ab: Faults {
                bad: bad(1, 20_000, u64::MAX, LaneFault::Dead),
                also: bad(3, 20_000, u64::MAX, LaneFault::Dead),
                ..Faults::uniform(1e-6)
            },
            ba: Faults {
                bad: bad(0, 20_001, u64::MAX, LaneFault::Dead),
                ..Faults::uniform(1e-6)
            },
            flits: 120_000,
            seed: 17,
            ..Default::default()
        },
    )
    .unwrap();
    let (a, b) = (r.status[0], r.status[1]);
    assert_eq!((b.rx_mask, a.tx_mask), (0b0101, 0b0101), "{a:?} {b:?}");
    assert_eq!((a.rx_mask, b.tx_mask), (0b1110, 0b1110), "{a:?} {b:?}");
    assert!(r.dirs.iter().all(|d| d.last > 60_000), "traffic went on");
}

/// Power-up in either order, one end reset alone in the middle of traffic (each end, several
/// times), and both ends reset at different times: the link comes back by itself each time;
/// packets in flight at a reset may be lost whole, never duplicated, reordered or delivered in
/// part, and every packet sent after the recovery arrives (`run_link` checks all of it).
#[test]
fn one_end_reset_alone_and_both_ends_at_different_times_come_back() {
    let m = endpoint_model(SHAPE).unwrap();
    let reset = |end, at, len| Some(EndReset { end, at, len });
    let r = run_link(
        &m,
        2,
        &LinkRun {
            ab: Faults::uniform(1e-6),
            ba: Faults::uniform(1e-6),
            flits: 120_000,
            rx_rate: 0.8,
            power_up: [3_000, 2],
            resets: [
                reset(0, 20_000, 5),
                reset(1, 45_000, 50),
                reset(0, 70_000, 3),
                reset(1, 70_400, 3),
            ],
            seed: 18,
            ..Default::default()
        },
    )
    .unwrap();
    eprintln!(
        "train {} cycles, recoveries {:?}, lost {} / {}",
        r.train_cycles, r.reset_recovery, r.dirs[0].lost, r.dirs[1].lost
    );
    assert!(r.reset_recovery.len() >= 3, "{:?}", r.reset_recovery);
    assert!(
        r.reset_recovery.iter().all(|&c| c < 20_000),
        "{:?}",
        r.reset_recovery
    );
    // Counters restart at an end's own reset: the survivor of the last reset counts it.
    let (a, b) = (r.status[0], r.status[1]);
    assert!(a.far_downs + b.far_downs >= 1, "{a:?} {b:?}");
    assert!(a.ltps_discarded + b.ltps_discarded > 0, "{a:?} {b:?}");
}

/// Both lanes of a 2-lane link die for 20,000 cycles and come back (the endpoint is built for
/// 2 lanes: training uses only those): everything held in the replay buffers and queues is
/// delivered afterwards, nothing is lost.
#[test]
fn last_lane_dying_and_coming_back_loses_nothing() {
    let m = endpoint_model(EndpointShape { lanes: 2, ..SHAPE }).unwrap();
    let r = run_link(
        &m,
        2,
        &LinkRun {
            ab: Faults {
                bad: bad(0, 20_000, 40_000, LaneFault::Dead),
                also: bad(1, 20_000, 40_000, LaneFault::Dead),
                ..Faults::uniform(1e-6)
            },
            ba: Faults::uniform(1e-6),
            flits: 80_000,
            seed: 19,
            ..Default::default()
        },
    )
    .unwrap();
    let (a, b) = (r.status[0], r.status[1]);
    assert_eq!(
        (a.tx_mask, b.rx_mask, a.rx_mask),
        (0b11, 0b11, 0b11),
        "{a:?} {b:?}"
    );
    // Dead lanes carry nothing, so nothing fails: the link is silent, then the replay buffer
    // and queues drain when the lanes return.
    assert!(r.dirs[0].last > 60_000, "traffic after the lanes came back");
}

/// Ends built with different buffer sizes (64-flit receive buffers and a 16-LTP replay buffer
/// against 16-flit buffers and a 2-LTP replay buffer): credits are exchanged at bring-up, so
/// neither overruns the other (an overrun is a dirty drop, a protocol error fails the run).
#[test]
fn ends_with_different_buffer_sizes_never_overrun() {
    let (big, small) = (
        endpoint_model(SHAPE).unwrap(),
        endpoint_model(SMALL).unwrap(),
    );
    let r = run_link_models(
        [&big, &small],
        2,
        &LinkRun {
            ab: Faults::uniform(1e-6),
            ba: Faults::uniform(1e-6),
            flits: 80_000,
            rx_rate: 0.4,
            seed: 20,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(r.dirs.iter().all(|d| d.delivered >= 80_000));
}

/// One VC's receiving cores take nothing for 100,000 cycles while the other VC flows, in both
/// VC modes: in whole-packet mode a packet is admitted only with credits for all of it, so a
/// VC out of credits never holds the link.
#[test]
fn a_stalled_vc_never_blocks_the_other() {
    let m = endpoint_model(SHAPE).unwrap();
    for (interleave, seed) in [(false, 21), (true, 22)] {
        let r = run_link(
            &m,
            2,
            &LinkRun {
                ab: Faults::uniform(1e-6),
                ba: Faults::uniform(1e-6),
                flits: 120_000,
                interleave,
                stall_vc: Some((0, 10_000)),
                stall_to: 110_000,
                stall_limit: 150_000,
                seed,
                ..Default::default()
            },
        )
        .unwrap();
        for d in &r.dirs {
            assert!(
                d.during_stall > 50_000,
                "interleave {interleave}: only {} flits of the other VC in 100,000 cycles",
                d.during_stall
            );
        }
    }
}

/// Sources send dirty packets (no head, no tail, a wrong length, a TailBadPkt): each is dropped
/// whole and counted at the far end, everything else arrives.
#[test]
fn dirty_packets_from_the_sources_are_dropped_whole_and_counted() {
    let m = endpoint_model(SHAPE).unwrap();
    let r = run_link(
        &m,
        2,
        &LinkRun {
            ab: Faults::uniform(1e-5),
            ba: Faults::uniform(1e-5),
            flits: 60_000,
            dirty: 0.05,
            seed: 23,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(r.dirs.iter().all(|d| d.dirty_sent > 50), "{:?}", r.dirs);
}

/// The bench at every lane count the configuration allows besides the default 4 (1, 2 and 3
/// lanes: the trainer uses only those, the lane rotation has 1, 2 and 3 states), at both lane
/// widths (32 and 16 bits; 4 lanes of 16 bits are `sixteen_bit_lanes_...`'s), and at the
/// shape of `configs/published.toml` (6 VCs, 128-flit buffers, a 32-LTP replay buffer): errors
/// and backpressure on, every VC both ways, the link trained to its whole width at the end.
#[test]
fn every_lane_count_and_the_published_shape_carry_traffic() {
    let published =
        hdl::params::Config::from_toml(include_str!("../../configs/published.toml")).unwrap();
    let mut shapes: Vec<_> = [SHAPE, SHAPE16]
        .into_iter()
        .flat_map(|base| (1..=3).map(move |lanes| EndpointShape { lanes, ..base }))
        .map(|shape| (shape, shape.config().unwrap()))
        .collect();
    shapes.push((EndpointShape::of(&published), published));
    for (k, (shape, cfg)) in shapes.into_iter().enumerate() {
        let m = endpoint_model_of(&cfg).unwrap();
        let r = run_link(
            &m,
            shape.vcs,
            &LinkRun {
                ab: Faults::uniform(1e-5),
                ba: Faults::uniform(1e-5),
                flits: 40_000,
                rx_rate: 0.8,
                seed: 30 + k as u64,
                ..Default::default()
            },
        )
        .unwrap_or_else(|e| panic!("{shape:?}: {e}"));
        let all = (1u8 << shape.lanes) - 1;
        for s in &r.status {
            assert_eq!((s.rx_mask, s.tx_mask), (all, all), "{shape:?}: {s:?}");
            assert!(s.link_up && s.ltps_bad > 0, "{shape:?}: {s:?}");
        }
        assert!(r.dirs.iter().all(|d| d.delivered >= 40_000), "{shape:?}");
    }
}

/// The management agent writes A's chip ID while the link carries traffic: A trains again to
/// announce it (a RESUME on both ends), B's peer identity shows the new ID (`run_link` checks
/// it), and nothing is lost.
#[test]
fn a_chip_id_written_while_up_reaches_the_far_end() {
    chip_id_written_while_up(SHAPE);
}

/// The same on 16-bit lanes (a training word in two transfers).
#[test]
fn a_chip_id_written_while_up_reaches_the_far_end_on_16_bit_lanes() {
    chip_id_written_while_up(SHAPE16);
}

fn chip_id_written_while_up(shape: EndpointShape) {
    let m = endpoint_model(shape).unwrap();
    let r = run_link(
        &m,
        2,
        &LinkRun {
            ab: Faults::uniform(1e-6),
            ba: Faults::uniform(1e-6),
            flits: 60_000,
            renumber: Some((0, 30_000)),
            seed: 24,
            ..Default::default()
        },
    )
    .unwrap();
    for s in &r.status {
        assert_eq!(
            s.trainings, 1,
            "{shape:?}: one training to announce the ID: {s:?}"
        );
    }
    let ids = [IDENTITY[1].1, renumbered(IDENTITY[0].1)];
    for (e, s) in r.status.iter().enumerate() {
        assert_eq!(s.far.1, ids[e], "{shape:?}: end {e} knows the far end's ID");
    }
    assert!(r.dirs.iter().all(|d| d.last > 40_000), "{:?}", r.dirs);
}

/// The link on 16-bit lanes through what the 32-bit tests put it through: random errors,
/// bursts and dropped transfers (a lost half costs its XFR, the lane reframes on the next
/// first half); a dead lane, a lane stuck at a constant (its `start` low: it frames nothing,
/// so it looks dead) and a garbage lane; one end reset alone, twice. Nothing is lost, the bad
/// lanes are named and left out, the link comes back by itself.
#[test]
fn sixteen_bit_lanes_lose_nothing_through_errors_bad_lanes_and_resets() {
    let m = endpoint_model(SHAPE16).unwrap();
    let wire = rough_wire();
    let r = run_link(
        &m,
        2,
        &LinkRun {
            ab: wire,
            ba: wire,
            flits: 100_000,
            rx_rate: 0.9,
            seed: 41,
            ..Default::default()
        },
    )
    .unwrap();
    for (e, s) in r.status.iter().enumerate() {
        let w = r.dirs[1 - e].wire;
        assert!(w.flips > 50 && w.drops > 5 && w.bursts > 5, "{w:?}");
        assert!(s.ltps_bad > 30 && s.retries > 30, "{s:?}");
        assert_eq!((s.rx_mask, s.lanes_removed), (0xf, 0), "{s:?}");
    }

    let r = run_link(
        &m,
        2,
        &LinkRun {
            ab: Faults {
                bad: bad(2, 20_000, u64::MAX, LaneFault::Dead),
                also: bad(0, 60_000, u64::MAX, LaneFault::Garbage),
                ..Faults::uniform(1e-6)
            },
            ba: Faults {
                bad: bad(1, 30_000, u64::MAX, LaneFault::Stuck(0)),
                ..Faults::uniform(1e-6)
            },
            flits: 150_000,
            seed: 42,
            ..Default::default()
        },
    )
    .unwrap();
    let (a, b) = (r.status[0], r.status[1]);
    assert_eq!((b.rx_mask, a.tx_mask), (0b1010, 0b1010), "{a:?} {b:?}");
    assert_eq!((a.rx_mask, b.tx_mask), (0b1101, 0b1101), "{a:?} {b:?}");
    assert!(r.dirs.iter().all(|d| d.last > 100_000), "traffic went on");

    let reset = |end, at, len| Some(EndReset { end, at, len });
    let r = run_link(
        &m,
        2,
        &LinkRun {
            ab: Faults::uniform(1e-6),
            ba: Faults::uniform(1e-6),
            flits: 80_000,
            rx_rate: 0.8,
            power_up: [2_000, 2],
            resets: [reset(0, 20_000, 5), reset(1, 45_000, 50), None, None],
            seed: 43,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(r.reset_recovery.len() >= 2, "{:?}", r.reset_recovery);
    assert!(
        r.reset_recovery.iter().all(|&c| c < 20_000),
        "{:?}",
        r.reset_recovery
    );
    eprintln!(
        "16-bit lanes: train {} cycles, recoveries {:?}",
        r.train_cycles, r.reset_recovery
    );
}

/// A live link under errors is acknowledged soon, lightly loaded or at the fabric's load: a link
/// port's watchdog (`LinkWatchdog`) declares a link dead after its replay fill has been neither
/// zero nor falling for its limit (1,024 cycles in the fabric bench, where every NIC offers a
/// packet of 2 to 15 flits with chance 0.04 per cycle, about 0.34 flits per cycle). Offered
/// 0.04 flits per cycle (a mostly silent link: echoes travel in null LTPs) and 0.4, at BER 1e-5
/// both ways, at either lane width, the longest such time must stay far below that (the
/// longest of these runs, stop 41, is printed; the poll timer `link.rt_timeout` is 256 and a
/// retry takes up to about 90 cycles).
#[test]
fn a_loaded_link_with_errors_is_always_acknowledged_soon() {
    for shape in [SHAPE, SHAPE16] {
        let m = endpoint_model(shape).unwrap();
        for (tx_rate, flits, seed) in [
            (0.04, 4_000, 61),
            (0.04, 4_000, 62),
            (0.4, 20_000, 63),
            (0.4, 20_000, 64),
        ] {
            let r = run_link(
                &m,
                2,
                &LinkRun {
                    ab: Faults::uniform(1e-5),
                    ba: Faults::uniform(1e-5),
                    flits,
                    tx_rate,
                    seed,
                    ..Default::default()
                },
            )
            .unwrap();
            eprintln!(
                "{}-bit lanes, offered {tx_rate}, seed {seed}: longest fill stall {:?} over {} cycles, retries {} / {}",
                shape.lane_bits, r.fill_stall_max, r.cycles, r.status[0].retries, r.status[1].retries
            );
            assert!(
                r.fill_stall_max.iter().all(|&c| c < 512),
                "{}-bit lanes, offered {tx_rate}, seed {seed}: a replay fill stood for {:?} cycles ({:?})",
                shape.lane_bits,
                r.fill_stall_max,
                r.status
            );
        }
    }
}
