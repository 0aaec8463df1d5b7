//! The two-endpoint link bench on Verilator (issue 3's system bench): endpoints A and B of the
//! default shape cross-connected through faulty wires, random packets on every VC both ways,
//! random receiver backpressure. `run_link` fails on the first lost, duplicated, reordered or
//! corrupted flit, on a deadlock, on a protocol error and on a good packet dropped as dirty;
//! each test then checks what its faults must have caused. Together they move well over a
//! million flits.
use testbench::link_bench::{endpoint_model, run_link, EndpointShape, LinkRun};
use testbench::models::lane_channel::{BadLane, Faults, LaneFault};

const SHAPE: EndpointShape = EndpointShape {
    vcs: 2,
    replay: 16,
    depth: 64,
    max_packet: 32,
    lanes: 4,
};

fn faults(ber: f64) -> Faults {
    Faults {
        ber,
        ..Default::default()
    }
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
        assert!(s.link_up);
    }
    assert!(r.dirs.iter().all(|d| d.delivered >= 150_000));
}

#[test]
fn random_errors_bursts_and_drops_lose_nothing() {
    let m = endpoint_model(SHAPE).unwrap();
    let wire = Faults {
        ber: 1e-4,
        burst_rate: 1e-4,
        burst_len: 12,
        drop_rate: 1e-4,
        bad: None,
    };
    let r = run_link(
        &m,
        2,
        &LinkRun {
            ab: wire,
            ba: wire,
            flits: 300_000,
            rx_rate: 0.9,
            lane_threshold: 0,
            seed: 12,
            ..Default::default()
        },
    )
    .unwrap();
    for (e, s) in r.status.iter().enumerate() {
        let w = r.dirs[1 - e].wire;
        assert!(w.flips > 100 && w.drops > 10 && w.bursts > 10, "{w:?}");
        assert!(s.ltps_bad > 100 && s.retries > 100, "{s:?}");
        assert_eq!(s.rx_mask, 0xf, "threshold 0 never removes a lane");
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
                bad: Some(BadLane {
                    lane: 2,
                    from: 20_000,
                    fault: LaneFault::Dead,
                }),
                ..faults(1e-6)
            },
            ba: faults(1e-6),
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
            ab: faults(1e-6),
            ba: Faults {
                bad: Some(BadLane {
                    lane: 1,
                    from: 10_000,
                    fault: LaneFault::Noisy(2e-3),
                }),
                ..faults(1e-6)
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
    // The noisy lane reached the threshold (8 errors within one window) and was the only one
    // removed. The good lanes' counts are totals over the whole run (they keep counting, at
    // BER 1e-6, after the noisy lane stopped at its removal), so they may end above 8 without
    // ever reaching 8 within a window: comparing totals failed for some seeds with either
    // deframer.
    assert!(a.lane_errors[1] >= 8, "{a:?}");
}

#[test]
fn full_replay_buffer_and_exhausted_credits_do_not_deadlock() {
    let m = endpoint_model(EndpointShape {
        replay: 2,
        depth: 16,
        max_packet: 16,
        ..SHAPE
    })
    .unwrap();
    let r = run_link(
        &m,
        2,
        &LinkRun {
            ab: faults(1e-5),
            ba: faults(1e-5),
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
