//! ActiveReport against its model (`testbench::models::nma::ActiveReportModel`), every cycle,
//! on both backends, with random fault waveforms (faults that stay high, toggle, glitch for one
//! cycle), random mask and enable changes, random `reports.ready` and reset pulses. Every cycle
//! outside reset the offered report (valid and ticket) and `reports_sent` are compared with the
//! model. Independently of the model, event accounting: every event (rising edge of an
//! unmasked fault while enabled) must be carried by a report taken at or after it (never lost),
//! and every bit of a report taken must stand for at least one event not carried before (never
//! reported twice); a fault that stays high is reported once. Reports, built as the packer
//! builds them from the ticket and the settings (`models::packet_store::response_packet`),
//! decode with the codec as fault reports on their route.
use hdl::formats::mgmt::{MgmtPacket, MgmtPayload, NmpType, Route};
use hdl::mgmt::ticket::ResponseTicket;
use hdl::mgmt::ActiveReport;
use testbench::models::nma::{ActiveReportModel, ReportConfig};
use testbench::models::packet_store::{response_packet, PackerSettings};
use testbench::reset::ResetSchedule;
use testbench::{port_table, run_both, Backend, BenchRng};

const F: usize = 8;

#[derive(Debug, Default, PartialEq)]
struct Report {
    cycles: u64,
    events: u64,
    reports: u64,
    bits_reported: u64,
    resets: u64,
}

fn bench(b: &mut dyn Backend, seed: u64, cycles: u64, ready: f64, gap: u64) -> Report {
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(n);
    let (reset, faults, enable, mask) =
        (p("reset"), p("faults"), p("report_enable"), p("fault_mask"));
    let (v, d, r, sent) = (
        p("reports$valid"),
        p("reports$data"),
        p("reports$ready"),
        p("reports_sent"),
    );
    let mut sched = if gap == 0 {
        ResetSchedule::never()
    } else {
        ResetSchedule::new(&mut rng, gap)
    };
    let path: Vec<u8> = (0..rng.range(1, 20)).map(|_| rng.bits(5) as u8).collect();
    let words = Route::from_path(&path).words(true);
    let mut cfg = ReportConfig {
        enable: true,
        mask: 0,
    };
    let settings = PackerSettings {
        chip: 0x0ace,
        report_route: words,
        report_dest: 0x5e5e,
    };
    let mut model = ActiveReportModel::default();
    let mut report = Report::default();
    let mut level = 0u64;
    // Per fault: events not yet carried by a taken report.
    let mut uncarried = [0u64; F];
    let mut transaction = None::<u16>;
    // The last cycles drain: levels held, `reports.ready` high, no reset.
    let drain = 4;
    for c in 0..cycles + drain {
        let draining = c >= cycles;
        let rst = if draining {
            b.poke_bool(reset, false);
            false
        } else {
            sched.drive(b, reset, &mut rng)
        };
        report.resets += sched.released() as u64;
        // Waveforms: each fault flips with its own probability (some stay put for long).
        for i in 0..F {
            let p = [0.002, 0.02, 0.2, 0.5][i % 4];
            if rng.chance(p) && !draining {
                level ^= 1 << i;
            }
        }
        if rng.chance(0.01) {
            cfg.mask = rng.bits(F) as u64 & rng.bits(F) as u64;
        }
        if rng.chance(0.005) {
            cfg.enable = !cfg.enable || rng.chance(0.5);
        }
        b.poke(faults, level as u128);
        b.poke(mask, cfg.mask as u128);
        b.poke_bool(enable, cfg.enable);
        let ready = rng.chance(ready) || draining;
        b.poke_bool(r, ready);
        let tag = format!("seed {seed} cycle {c}");
        let (want, want_sent) = model.outputs();
        if !rst {
            let got = b.peek_bool(v).then(|| ResponseTicket::unpack(b.peek(d)));
            assert_eq!(got, want, "{tag}: report");
            assert_eq!(b.peek_bool(sent), want_sent, "{tag}: reports_sent");
        }
        let (events, taken) = model.edge(rst, level, &cfg, ready);
        if rst {
            uncarried = [0; F];
            transaction = None;
        }
        if let Some(bits) = taken {
            let (_, beat) =
                response_packet(&want.unwrap(), &[0; 16], &settings).expect("a route with hops");
            assert_eq!((beat.dst, beat.src), (0x5e5e, 0x0ace), "{tag}");
            let head = hdl::formats::header::FabricHeader {
                dst: beat.dst,
                src: beat.src,
                vc: 0,
                kind: hdl::formats::PacketKind::Mgmt,
                len: hdl::formats::mgmt::MGMT_FLITS as u8,
                delay: 0,
            };
            let pkt = MgmtPacket::from_words(&head, &beat.words).expect("a fault report decodes");
            assert_eq!(pkt.nmp_type, NmpType::FaultReport, "{tag}");
            assert_eq!(pkt.payload, MgmtPayload::Fault { bits }, "{tag}");
            assert_eq!(pkt.forward.path(), path, "{tag}");
            if let Some(t) = transaction {
                assert_eq!(
                    pkt.transaction_id,
                    t.wrapping_add(1),
                    "{tag}: running transaction id"
                );
            }
            transaction = Some(pkt.transaction_id);
            assert_ne!(bits, 0, "{tag}: an empty report");
            for (i, u) in uncarried.iter_mut().enumerate() {
                if (bits >> i) & 1 == 1 {
                    assert!(*u > 0, "{tag}: fault {i} reported without a new event");
                    *u = 0;
                }
            }
            report.reports += 1;
            report.bits_reported += bits.count_ones() as u64;
        }
        for (i, u) in uncarried.iter_mut().enumerate() {
            *u += (events >> i) & 1;
        }
        report.events += events.count_ones() as u64;
        b.tick();
        report.cycles = c + 1;
    }
    // Never lost: after the drain every event has been carried by a report taken.
    assert_eq!(uncarried, [0; F], "seed {seed}: events never reported");
    report
}

fn table() -> testbench::PortTable<ActiveReport<F>> {
    port_table!(ActiveReport<F>; reset, faults, report_enable, fault_mask, reports.valid,
        reports.data, reports.ready, reports_sent)
}

#[test]
fn active_report_against_its_model() {
    for (i, (ready, gap)) in [(0.9, 0), (0.1, 700)].into_iter().enumerate() {
        let seed = 600 + i as u64;
        let r = run_both("active_report", ActiveReport::<F>::new, table, |b| {
            bench(b, seed, 3000, ready, gap)
        })
        .result;
        println!("active_report run {i}: {r:?}");
        assert!(r.reports > 20 && r.events > r.bits_reported, "{r:?}");
        if i == 1 {
            assert!(r.resets > 0, "{r:?}");
        }
    }
}
