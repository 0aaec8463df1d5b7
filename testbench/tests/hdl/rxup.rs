//! Targeted benches of `RxLink` under link training (hpcnet issue 10), on both backends and
//! cycle by cycle against `testbench::models::rx_link`: lane removal by error rate (uniform
//! errors below `1 / lane_drain` remove nothing, a lane at ten times that rate goes exactly when
//! its score, worked out here independently, reaches the threshold); the last lane raising
//! `link_fail` instead of going; a stuck far end failing the link after exactly `retry_limit`
//! retry requests (and a commit restarting the count); RESUME keeping `expect` and skipping a
//! replay's duplicates, RESTART accepting sequence 0 again, nothing happening while down.
//!
//! LTPs are driven as the deframer would show them, reduced to what `RxLink` reads: flit 0 (an
//! Idle flit, or an LT flit for a null LTP) and, the next cycle, the end with its CRC
//! difference (the sequence number for a good normal LTP, 0 for a good null LTP).
use super::rx_link::{read, table, Dut, Ports, CW, OUTS, RETRY_TIMEOUT, VCS};
use hdl::llp::lt::LtCode;
use testbench::models::rx_link::{End, RxIn, RxLinkModel, RxOut};
use testbench::{run_both, Backend};

/// A driver: pokes a cycle's inputs, checks every output against the model, ticks.
struct Drv {
    p: Ports,
    model: RxLinkModel,
    /// Settings held from cycle to cycle.
    set: RxIn,
    /// Outputs seen, cycle by cycle.
    seen: Vec<RxOut>,
}

impl Drv {
    fn new(b: &mut dyn Backend) -> Self {
        let p = Ports {
            reset: b.port("reset"),
            flit: b.port("deframed$flit"),
            flit_valid: b.port("deframed$flit_valid"),
            flit_pos: b.port("deframed$flit_pos"),
            end: [
                b.port("deframed$end_valid"),
                b.port("deframed$end_intact"),
                b.port("deframed$end_crc_diff"),
                b.port("deframed$end_state"),
                b.port("deframed$end_gcrc"),
                b.port("deframed$end_sideband"),
            ],
            lane_missing: b.port("deframed$lane_missing"),
            stray: b.port("deframed$stray"),
            threshold: b.port("lane_threshold"),
            up: b.port("up"),
            start: b.port("start"),
            fresh_far: b.port("fresh_far"),
            start_mask: b.port("start_mask"),
            retry_limit: b.port("retry_limit"),
            lane_drain: b.port("lane_drain"),
            outs: OUTS.iter().map(|n| b.port(n)).collect(),
        };
        let d = Self {
            p,
            model: RxLinkModel::new(VCS, CW, 0b1111, RETRY_TIMEOUT),
            set: RxIn::default(),
            seen: vec![],
        };
        // Reset (outputs before it are not the model's business).
        b.poke_bool(d.p.reset, true);
        b.poke_bool(d.p.flit_valid, false);
        b.poke_bool(d.p.end[0], false);
        b.poke_bool(d.p.stray, false);
        b.poke(d.p.lane_missing, 0);
        b.poke_bool(d.p.start, false);
        b.tick();
        b.poke_bool(d.p.reset, false);
        d
    }

    /// One cycle with the held settings and the events of `ev`; returns the outputs.
    fn cycle(&mut self, b: &mut dyn Backend, ev: RxIn) -> RxOut {
        let i = RxIn {
            lane_threshold: self.set.lane_threshold,
            up: self.set.up,
            retry_limit: self.set.retry_limit,
            lane_drain: self.set.lane_drain,
            ..ev
        };
        let p = &self.p;
        b.poke_bool(p.flit_valid, i.flit.is_some());
        b.poke(p.flit_pos, i.flit.map_or(0, |f| f.0 as u128));
        b.poke(p.flit, i.flit.map_or(0, |f| f.1));
        let e = i.end.unwrap_or_default();
        b.poke_bool(p.end[0], i.end.is_some());
        b.poke_bool(p.end[1], e.intact);
        b.poke(p.end[2], e.crc_diff as u128);
        b.poke(p.end[3], e.state as u128);
        b.poke(p.end[4], e.gcrc as u128);
        b.poke(p.end[5], e.sideband as u128);
        b.poke(p.lane_missing, i.lane_missing as u128);
        b.poke_bool(p.stray, i.stray);
        b.poke(p.threshold, i.lane_threshold as u128);
        b.poke_bool(p.up, i.up);
        b.poke_bool(p.start, i.start.is_some());
        let (fresh, mask) = i.start.unwrap_or((false, 0));
        b.poke_bool(p.fresh_far, fresh);
        b.poke(p.start_mask, mask as u128);
        b.poke(p.retry_limit, i.retry_limit as u128);
        b.poke(p.lane_drain, i.lane_drain as u128);
        let o = read(b, p);
        let n = self.seen.len();
        assert_eq!(
            o,
            self.model.outputs(&i),
            "cycle {n}: outputs against the model"
        );
        self.model.edge(&i);
        b.tick();
        self.seen.push(o.clone());
        o
    }

    fn idle(&mut self, b: &mut dyn Backend, n: usize) -> Vec<RxOut> {
        (0..n).map(|_| self.cycle(b, RxIn::default())).collect()
    }

    /// An LTP: flit 0, then its end with CRC difference `diff`; the outputs of both cycles.
    fn ltp(&mut self, b: &mut dyn Backend, flit0: u128, diff: u16) -> [RxOut; 2] {
        let a = self.cycle(
            b,
            RxIn {
                flit: Some((0, flit0)),
                ..Default::default()
            },
        );
        let e = self.cycle(
            b,
            RxIn {
                end: Some(End {
                    intact: true,
                    crc_diff: diff & 0x3fff,
                    state: 0,
                    sideband: 0,
                    gcrc: 0,
                }),
                ..Default::default()
            },
        );
        [a, e]
    }

    /// A good normal LTP `seq`; whether it was committed.
    fn good(&mut self, b: &mut dyn Backend, seq: u16) -> bool {
        self.ltp(b, 0, seq)[1].commit
    }

    /// A good null LTP with RetryMrkr(`s`).
    fn marker(&mut self, b: &mut dyn Backend, s: u16) {
        self.ltp(b, LtCode::RetryMrkr.flit(s as u32), 0);
    }

    /// A bad normal LTP (wrong CRC difference).
    fn bad(&mut self, b: &mut dyn Backend) {
        let d = self.model.in_seq ^ 1;
        self.ltp(b, 0, d);
    }

    /// `lane_missing` pulses on `lanes` in one cycle.
    fn miss(&mut self, b: &mut dyn Backend, lanes: u8) -> RxOut {
        self.cycle(
            b,
            RxIn {
                lane_missing: lanes,
                ..Default::default()
            },
        )
    }

    /// Up with a bring-up: the start cycle, then the far end's marker `mrkr` (if any).
    fn bring_up(&mut self, b: &mut dyn Backend, fresh: bool, mask: u8, mrkr: Option<u16>) -> RxOut {
        self.set.up = true;
        let o = self.cycle(
            b,
            RxIn {
                start: Some((fresh, mask)),
                ..Default::default()
            },
        );
        if let Some(s) = mrkr {
            self.marker(b, s);
        }
        o
    }
}

/// What a targeted run saw (equal on both backends).
#[derive(Debug, PartialEq)]
struct Seen(Vec<u64>);

/// (a) Uniform `lane_missing` errors on every lane at one per 8 LTPs against `lane_drain` 4
/// (half the break-even rate) for 400 LTPs remove nothing; then lane 2 at 10/8 per LTP (ten
/// times that) goes exactly when its score, worked out here, reaches `lane_threshold` 3.
fn rate(b: &mut dyn Backend) -> Seen {
    let mut d = Drv::new(b);
    (d.set.lane_threshold, d.set.lane_drain) = (3, 4);
    d.bring_up(b, true, 0b1111, Some(0));
    // Independent score arithmetic: +1 per error, -1 per 4 commits, floor 0.
    let mut score = [0i64; 4];
    let mut commits = 0u64;
    let mut max_seen = 0;
    let mut removed_at = None;
    for k in 0..600u16 {
        let hot = k >= 400;
        let mut lanes = if k % 8 == 0 { 0b1111 } else { 0 };
        if hot {
            lanes |= 0b0100;
        }
        if lanes != 0 {
            d.miss(b, lanes & d.model.mask);
            for n in 0..4 {
                if (lanes & d.model.mask) >> n & 1 == 1 {
                    score[n] += 1;
                }
            }
        }
        if hot && k % 4 == 0 && d.model.mask & 0b0100 != 0 {
            d.miss(b, 0b0100);
            score[2] += 1;
        }
        if removed_at.is_none() && score[2] >= 3 {
            // Reached: the removal follows (registered compare), with a retry request.
            let o = d.idle(b, 2);
            assert_eq!(
                o[1].mask, 0b1011,
                "LTP {k}: lane 2 removed once its score is 3"
            );
            assert!(o[1].send_retry && o[1].waiting && o[1].lanes_removed == 1);
            removed_at = Some(k);
            score = [0; 4];
            d.marker(b, d.model.expect);
        }
        assert_eq!(d.model.score.map(|x| x as i64), score, "LTP {k}: scores");
        let s = d.model.expect;
        assert!(d.good(b, s), "LTP {k} committed");
        commits += 1;
        if commits.is_multiple_of(4) {
            score = score.map(|x| (x - 1).max(0));
        }
        assert_eq!(
            d.model.score.map(|x| x as i64),
            score,
            "LTP {k}: scores after the commit"
        );
        if !hot {
            assert_eq!(
                d.model.mask, 0b1111,
                "LTP {k}: uniform errors removed a lane"
            );
            max_seen = max_seen.max(*score.iter().max().unwrap());
        }
    }
    let removed_at = removed_at.expect("the hot lane was never removed");
    assert!(d.seen.iter().all(|o| !o.link_fail));
    assert!(max_seen <= 1, "uniform scores stay at 0..1: {max_seen}");
    // Rate 1.25 + 0.125 per LTP against 0.25 drained: 3 reached within the first few LTPs.
    assert!(
        (400..410).contains(&removed_at),
        "removed at LTP {removed_at}"
    );
    Seen(vec![
        removed_at as u64,
        max_seen as u64,
        d.seen.len() as u64,
    ])
}

/// (b) The last lane reaching the threshold raises `link_fail` and stays; scores restart.
fn last_lane(b: &mut dyn Backend) -> Seen {
    let mut d = Drv::new(b);
    (d.set.lane_threshold, d.set.lane_drain) = (2, 0);
    d.bring_up(b, true, 0b0100, Some(0));
    for s in 0..3 {
        assert!(d.good(b, s));
    }
    let mut fails = vec![];
    for round in 0..2 {
        d.miss(b, 0b0100);
        let o = d.miss(b, 0b0100);
        assert!(!o.link_fail);
        let o = d.idle(b, 3);
        // Score 2 after the second pulse's edge; decided the cycle after, shown the next.
        assert_eq!(
            o.iter().map(|o| o.link_fail).collect::<Vec<_>>(),
            [false, true, false],
            "round {round}"
        );
        assert!(o
            .iter()
            .all(|o| o.mask == 0b0100 && !o.send_retry && o.lanes_removed == 0));
        assert_eq!(d.model.score, [0; 4]);
        fails.push(d.seen.len() as u64);
    }
    // Still delivering on that lane.
    let s = d.model.expect;
    assert!(d.good(b, s));
    Seen(fails)
}

/// (c) A stuck far end (every LTP and marker bad) raises `link_fail` with exactly the
/// `retry_limit`-th retry request, and again `retry_limit` requests later; a commit in between
/// restarts the count.
fn stuck(b: &mut dyn Backend) -> Seen {
    let mut d = Drv::new(b);
    d.set.retry_limit = 4;
    d.bring_up(b, true, 0b1111, Some(0));
    for s in 0..3 {
        assert!(d.good(b, s));
    }
    // Three fruitless requests, then progress: no failure.
    d.bad(b);
    let mut reqs = 0;
    while reqs < 3 {
        let o = d.cycle(b, RxIn::default());
        reqs += o.send_retry as u32;
        assert!(!o.link_fail);
    }
    d.marker(b, 3);
    assert!(d.good(b, 3));
    // Stuck from now on: the first request and timeout repeats; bad markers in between.
    d.bad(b);
    let mut at = vec![];
    let mut reqs = 0u64;
    while at.len() < 2 {
        let o = d.cycle(b, RxIn::default());
        if o.send_retry {
            reqs += 1;
            if reqs % 7 == 3 {
                d.ltp(b, LtCode::RetryMrkr.flit(4), 5); // a corrupted marker
            }
        }
        if o.link_fail {
            assert!(
                o.send_retry,
                "link_fail with the request that reached the limit"
            );
            at.push(reqs);
        }
        assert!(reqs <= 8);
    }
    assert_eq!(at, [4, 8], "link_fail after exactly retry_limit requests");
    Seen(at)
}

/// (d) Down: nothing happens (garbage ignored, the timer holds). RESUME keeps `expect` and
/// skips the duplicates of a replay from an older marker; RESTART accepts sequence 0 again.
fn resume_restart(b: &mut dyn Backend) -> Seen {
    let mut d = Drv::new(b);
    d.set.retry_limit = 1;
    d.bring_up(b, true, 0b1111, Some(0));
    for s in 0..10 {
        assert!(d.good(b, s));
    }
    // A bad LTP: waiting, one request (the limit 1 fails the link with it).
    d.bad(b);
    let o = d.idle(b, 1);
    assert!(o[0].send_retry && o[0].link_fail);
    // Down for longer than the timeout: garbage on every deframer port, nothing happens.
    d.set.up = false;
    for k in 0..300u64 {
        let o = d.cycle(
            b,
            RxIn {
                flit: Some((0, 0)),
                end: Some(End {
                    intact: true,
                    crc_diff: 10,
                    ..Default::default()
                }),
                lane_missing: (k % 16) as u8,
                stray: true,
                ..Default::default()
            },
        );
        assert!(!o.send_retry && !o.commit && !o.rollback && !o.link_fail && o.wr.is_none());
        assert_eq!((o.expect_seq, o.lane_errors), (10, [0; 4]));
    }
    // RESUME at 3 lanes: expect kept, no request at the start, rollback of a cut-off LTP.
    let o = d.bring_up(b, false, 0b0111, None);
    assert!(o.rollback && !o.send_retry);
    let o = d.idle(b, 1);
    assert!(o[0].waiting && !o[0].send_retry && o[0].mask == 0b0111 && o[0].expect_seq == 10);
    d.marker(b, 7);
    let dup0 = d.model.outputs(&RxIn::default()).ltps_dup;
    for s in 7..10 {
        assert!(!d.good(b, s), "duplicate {s} committed");
    }
    assert!(d.good(b, 10));
    let o = d.idle(b, 1);
    assert_eq!(
        (o[0].ltps_dup - dup0, o[0].expect_seq, o[0].ltps_good),
        (3, 11, 11)
    );
    // Down, RESTART at 2 lanes: expect 0; the marker is lost, the timer's request comes
    // retry_timeout + 1 cycles after the start.
    d.set.up = false;
    d.idle(b, 5);
    d.bring_up(b, true, 0b1001, None);
    let rt = RETRY_TIMEOUT as usize;
    let o = d.idle(b, rt + 2);
    assert!(o[..=rt].iter().all(|o| !o.send_retry));
    assert!(o[rt + 1].send_retry && o[0].expect_seq == 0);
    d.marker(b, 0);
    for s in 0..3 {
        assert!(d.good(b, s), "after RESTART: LTP {s}");
    }
    Seen(vec![d.seen.len() as u64])
}

fn run(name: &str, f: fn(&mut dyn Backend) -> Seen) {
    let r = run_both(
        name,
        || Dut::new(VCS, 0b1111, RETRY_TIMEOUT as u16),
        table,
        f,
    );
    eprintln!("{name}: {:?}", r.result);
}

#[test]
fn rx_link_removes_lanes_by_rate() {
    run("rxup_rate", rate);
}

#[test]
fn rx_link_last_lane_fails_the_link() {
    run("rxup_last_lane", last_lane);
}

#[test]
fn rx_link_stuck_far_end_fails_after_retry_limit() {
    run("rxup_stuck", stuck);
}

#[test]
fn rx_link_resume_and_restart() {
    run("rxup_resume_restart", resume_restart);
}
