//! NmpUnpacker against its model (`testbench::models::mgmt`, built on the codec of
//! `hdl::formats::mgmt`), every cycle, on both backends: a stream of management packets, random
//! valid ones of all 11 types with random routes and data addressed to the chip or to all ones,
//! others addressed to other chips, and packets spoiled for every rejection reason (CRC, early
//! and late tail, kind, `len`, reserved header and tail bits, a non-body flit inside, forward
//! `current > hop_num`, `hop_num > 20`, backward route full or above 20) plus well-framed
//! packets with bad contents that must be passed on; random idle flits and a random `in_port`
//! on the cycles that do not carry a head, random `requests.ready` backpressure, the chip's ID
//! changed now and then between packets, and reset pulses at random moments (the rest of a
//! packet cut by reset arrives without its head and must be dropped as malformed).
//!
//! The slot pool's side of the lease is random every cycle: `slots.free_slot` (the unpacker
//! samples it with a head) and `slots.available` (a head must wait while it is low). Every cycle
//! `flits.ready`, `requests.valid`, `requests.data` (the ticket, while valid), the store write
//! port (enable, and address and word when enabled), both drop pulses, `slots.claim` (with each
//! head taken) and the slot given back (`slots.give_back` and `slots.returned`: a dropped
//! packet's, the cycle after its tail) are compared with the model. Independently of the model, every packet not touched by a reset
//! must get the outcome its construction intends, every request of an intact valid packet must
//! be what the codec makes of it ([`hdl::formats::mgmt::MgmtPacket::take_hop`] on the arrival
//! port, then [`MgmtBeat::of`]), and when its ticket is offered the store's slot (as the
//! unpacker wrote it) must hold exactly that request's words and head entry, and the ticket
//! its slot, type and `w5` fields. The full-rate run checks the timing: one flit per cycle with
//! back-to-back packets, the ticket offered in the cycle after the tail was taken.
use hdl::formats::mgmt::{Hop, MgmtBeat, MGMT_FLITS, UNSET_ID};
use hdl::mgmt::ticket::{RequestTicket, SLOT_BITS};
use hdl::mgmt::NmpUnpacker;
use std::collections::BTreeMap;
use testbench::backend::u128_to_words;
use testbench::mgmt_perf::unpacker_table;
use testbench::models::mgmt::{corrupt, random_packet, Corruption, Unpacked, UnpackerModel};
use testbench::models::packet_store::{request_entries, StoreModel};
use testbench::reset::ResetSchedule;
use testbench::{run_both, Backend, BenchRng};

/// One packet of the stream and what it must come to.
struct Sent {
    flits: Vec<u128>,
    in_port: u8,
    /// What it was built to be (`None`: its outcome is only the model's, e.g. cut by reset).
    intent: Option<Intent>,
    label: &'static str,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Intent {
    /// An intact valid packet for this chip: this beat.
    Beat(MgmtBeat),
    /// Well framed, bad contents: passed on (any beat).
    PassedOn,
    WrongId,
    Malformed,
}

/// What a run did (identical on both backends).
#[derive(Debug, Default, PartialEq)]
struct Report {
    cycles: u64,
    flits: u64,
    /// Outcomes by packet label.
    outcomes: BTreeMap<String, u64>,
    beats: u64,
    wrong_id: u64,
    malformed: u64,
    resets: u64,
    /// Cycles with a beat on offer and `requests.ready` low (backpressure felt).
    stalled: u64,
    /// Beats offered in the cycle after their tail was taken (all of them).
    next_cycle_beats: u64,
    /// Slots given back (dropped packets).
    slots_given_back: u64,
    /// Cycles a head was offered while no slot was free.
    head_waits: u64,
}

#[derive(Clone, Copy)]
struct Traffic {
    packets: usize,
    /// Probability of offering a flit in a cycle.
    flit_rate: f64,
    /// Probability of `requests.ready`.
    ready: f64,
    /// Mean gap between reset pulses (0: none).
    reset_gap: u64,
    /// Share of packets that are spoiled or misaddressed.
    bad: f64,
    /// Probability of `slots.available`.
    slot_available: f64,
}

fn next_packet(rng: &mut BenchRng, chip_id: u16, t: &Traffic) -> Sent {
    let in_port = rng.bits(5) as u8;
    let to = if rng.chance(0.2) { UNSET_ID } else { chip_id };
    let p = random_packet(rng, to);
    if !rng.chance(t.bad) {
        let mut arrived = p;
        arrived.forward.current = 0;
        assert_eq!(arrived.take_hop(in_port), Hop::Arrived);
        let mut beat = MgmtBeat::of(&arrived);
        // The unpacker leaves `current` as it came (routing is the relay's business).
        beat.words[1] = p.words()[1];
        return Sent {
            flits: p.pack(),
            in_port,
            intent: Some(Intent::Beat(beat)),
            label: if to == UNSET_ID {
                "valid, all ones"
            } else {
                "valid"
            },
        };
    }
    if rng.chance(0.25) {
        let mut q = p;
        q.dest_id = loop {
            let id = rng.bits(16) as u16;
            if id != chip_id && id != UNSET_ID {
                break id;
            }
        };
        return Sent {
            flits: q.pack(),
            in_port,
            intent: Some(Intent::WrongId),
            label: "wrong id",
        };
    }
    let c = Corruption::ALL[rng.range(0, Corruption::ALL.len() as u64 - 1) as usize];
    let mut q = p;
    // Malformed wins over a wrong DestID.
    if rng.chance(0.2) {
        q.dest_id = chip_id ^ 1;
    }
    let flits = corrupt(rng, &q, c);
    let (intent, label) = match c {
        Corruption::Contents if q.dest_id == chip_id ^ 1 && chip_id ^ 1 != UNSET_ID => {
            (Intent::WrongId, "bad contents, wrong id")
        }
        Corruption::Contents => (Intent::PassedOn, "bad contents"),
        Corruption::Crc => (Intent::Malformed, "crc"),
        Corruption::Short => (Intent::Malformed, "short"),
        Corruption::Long => (Intent::Malformed, "long"),
        Corruption::Kind => (Intent::Malformed, "kind"),
        Corruption::LenField => (Intent::Malformed, "len field"),
        Corruption::HeaderReserved => (Intent::Malformed, "header reserved"),
        Corruption::NotABody => (Intent::Malformed, "not a body"),
        Corruption::TailReserved => (Intent::Malformed, "tail reserved"),
        Corruption::ForwardCurrent => (Intent::Malformed, "forward current"),
        Corruption::ForwardHops => (Intent::Malformed, "forward hop_num"),
        Corruption::BackwardFull => (Intent::Malformed, "backward full"),
        Corruption::BackwardHops => (Intent::Malformed, "backward hop_num"),
    };
    Sent {
        flits,
        in_port,
        intent: Some(intent),
        label,
    }
}

fn bench(b: &mut dyn Backend, seed: u64, t: Traffic) -> Report {
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(n);
    let (reset, fv, fd, fr) = (
        p("reset"),
        p("flits$valid"),
        p("flits$data"),
        p("flits$ready"),
    );
    let (in_port, chip) = (p("in_port"), p("chip_id"));
    let (free, available) = (p("slots$free_slot"), p("slots$available"));
    let (claim, give_back, returned) =
        (p("slots$claim"), p("slots$give_back"), p("slots$returned"));
    let (we, wa, wd) = (p("store$enable"), p("store$address"), p("store$data"));
    let (rv, rd, rr) = (p("requests$valid"), p("requests$data"), p("requests$ready"));
    let (wrong, bad) = (p("dropped_wrong_id"), p("dropped_malformed"));
    let mut sched = match t.reset_gap {
        0 => ResetSchedule::never(),
        gap => ResetSchedule::new(&mut rng, gap),
    };
    let mut model = UnpackerModel::default();
    let mut store = StoreModel::default();
    let mut report = Report::default();
    let mut chip_id = rng.bits(16) as u16;
    // The packet being sent and the index of its next flit.
    let mut current: Option<(Sent, usize)> = None;
    let mut sent_packets = 0usize;
    // A packet passed on had its tail taken on the last edge: its beat must be offered now.
    let mut expect_offer = false;
    b.poke_bool(reset, true);
    b.tick();
    let mut c = 0u64;
    loop {
        if current.is_none() {
            if sent_packets == t.packets {
                if model.offer.is_none() && !model.wrong_id && !model.malformed {
                    break;
                }
            } else {
                if rng.chance(0.01) {
                    // The ID changes between packets (as when software assigns it).
                    chip_id = rng.bits(16) as u16;
                }
                current = Some((next_packet(&mut rng, chip_id, &t), 0));
                sent_packets += 1;
            }
        }
        let rst = sched.drive(b, reset, &mut rng);
        report.resets += sched.released() as u64;
        if rst {
            // A packet cut by reset has no intended outcome any more.
            if let Some((s, i)) = current.as_mut() {
                if *i > 0 {
                    s.intent = None;
                }
            }
        }
        let offering = current
            .as_ref()
            .filter(|_| rng.chance(t.flit_rate))
            .map(|(s, i)| (s.flits[*i], *i == 0, s.in_port));
        b.poke_bool(fv, offering.is_some());
        b.poke_wide(
            fd,
            &u128_to_words(offering.map_or(rng.bits(65), |o| o.0), 65),
        );
        let port = match offering {
            Some((_, true, port)) => port,
            _ => rng.bits(5) as u8,
        };
        b.poke(in_port, port as u128);
        b.poke(chip, chip_id as u128);
        let free_slot = rng.bits(SLOT_BITS) as u8;
        b.poke(free, free_slot as u128);
        let slot_available = rng.chance(t.slot_available);
        b.poke_bool(available, slot_available);
        let ready = rng.chance(t.ready);
        b.poke_bool(rr, ready);
        let tag = format!("seed {seed} cycle {c}");
        // Outputs against the model.
        let got_ready = b.peek_bool(fr);
        assert_eq!(
            got_ready,
            model.ready(rst, ready, slot_available),
            "{tag}: flits.ready differs from the model"
        );
        let valid = b.peek_bool(rv);
        assert_eq!(
            valid,
            model.offer.is_some(),
            "{tag}: requests.valid differs from the model"
        );
        if let Some(ticket) = model.offer {
            assert_eq!(
                RequestTicket::unpack(b.peek(rd)),
                ticket,
                "{tag}: requests.data differs from the model"
            );
            report.stalled += !ready as u64;
        }
        // The store write of the flit taken now, if any.
        let taken = offering.filter(|_| got_ready).map(|o| o.0);
        assert_eq!(
            b.peek_bool(claim),
            !rst && model.claims(taken.is_some()),
            "{tag}: slots.claim differs from the model"
        );
        let got_back = b.peek_bool(give_back).then(|| b.peek(returned) as u8);
        assert_eq!(
            got_back,
            model.gives_back(),
            "{tag}: slot given back differs from the model"
        );
        report.slots_given_back += got_back.is_some() as u64;
        report.head_waits += (offering.is_some_and(|o| o.1) && !slot_available) as u64;
        let want_write = taken.and_then(|f| model.store_write(f, port, free_slot));
        let got_write = b
            .peek_bool(we)
            .then(|| (b.peek(wa) as usize, b.peek(wd) as u64));
        assert_eq!(
            got_write, want_write,
            "{tag}: store write differs from the model"
        );
        if let Some((a, w)) = want_write {
            store.words[a] = w;
        }
        assert!(
            valid || !expect_offer,
            "{tag}: the beat was not offered in the cycle after its tail"
        );
        report.next_cycle_beats += expect_offer as u64;
        expect_offer = false;
        assert_eq!(
            (b.peek_bool(wrong), b.peek_bool(bad)),
            (model.wrong_id, model.malformed),
            "{tag}: (dropped_wrong_id, dropped_malformed) differ from the model"
        );
        report.beats += (valid && ready && !rst) as u64;
        report.wrong_id += model.wrong_id as u64;
        report.malformed += model.malformed as u64;
        // The edge.
        let verdict = model.edge(rst, taken, port, free_slot, chip_id, valid && ready);
        b.tick();
        c += 1;
        if taken.is_some() {
            report.flits += 1;
            let (s, i) = current.as_mut().unwrap();
            *i += 1;
            if *i == s.flits.len() {
                let (s, _) = current.take().unwrap();
                let verdict = verdict.unwrap_or_else(|| panic!("{tag}: the tail ended nothing"));
                *report.outcomes.entry(s.label.into()).or_default() += 1;
                expect_offer = matches!(verdict, Unpacked::Request(_));
                if let Unpacked::Request(beat) = verdict {
                    // The request as the store holds it, and its ticket.
                    let entries = store.slot(model.slot);
                    for (e, w) in request_entries(&beat, s.in_port) {
                        assert_eq!(entries[e], w, "{tag}: store entry {e} of the request");
                    }
                    assert_eq!(
                        model.offer,
                        Some(RequestTicket::of(&beat, model.slot)),
                        "{tag}: ticket"
                    );
                }
                match (s.intent, verdict) {
                    (None, _) => {}
                    (Some(Intent::Beat(want)), Unpacked::Request(got)) => {
                        assert_eq!(got, want, "{tag}: the beat is not the codec's")
                    }
                    (Some(Intent::PassedOn), Unpacked::Request(_))
                    | (Some(Intent::WrongId), Unpacked::WrongId)
                    | (Some(Intent::Malformed), Unpacked::Malformed) => {}
                    (Some(i), v) => panic!("{tag}: {} packet meant {i:?}, got {v:?}", s.label),
                }
            } else {
                assert!(verdict.is_none(), "{tag}: a verdict before the tail");
            }
        }
        assert!(
            c < 40 * (t.packets as u64 + 10) * MGMT_FLITS as u64,
            "{tag}: hang"
        );
    }
    report.cycles = c;
    if t.reset_gap > 0 {
        sched.assert_pulses(&format!("nmp_unpacker seed {seed}"), 3);
    }
    report
}

#[test]
fn nmp_unpacker_against_its_model() {
    let runs = [
        // Full rate, all valid: one flit per cycle, every beat taken at once.
        Traffic {
            packets: 60,
            flit_rate: 1.0,
            ready: 1.0,
            reset_gap: 0,
            bad: 0.0,
            slot_available: 1.0,
        },
        // Everything, with idle, backpressure and resets.
        Traffic {
            packets: 500,
            flit_rate: 0.8,
            ready: 0.6,
            reset_gap: 400,
            bad: 0.5,
            slot_available: 0.7,
        },
        // Heavy backpressure: the input must hold.
        Traffic {
            packets: 150,
            flit_rate: 1.0,
            ready: 0.05,
            reset_gap: 700,
            bad: 0.3,
            slot_available: 0.9,
        },
    ];
    for (i, t) in runs.into_iter().enumerate() {
        let seed = 100 + i as u64;
        let r = run_both("nmp_unpacker", NmpUnpacker::new, unpacker_table, |b| {
            bench(b, seed, t)
        })
        .result;
        println!("nmp_unpacker run {i}: {r:?}");
        assert!(r.stalled > 0 || t.ready == 1.0);
        assert!(r.next_cycle_beats > 0);
        if i == 0 {
            assert_eq!(r.next_cycle_beats, r.beats);
            // Back to back: ten flits in ten cycles, plus the reset cycle and the last beat.
            assert_eq!(r.beats, t.packets as u64);
            assert!(
                r.cycles <= (t.packets * MGMT_FLITS) as u64 + 2,
                "{} cycles for {} packets",
                r.cycles,
                t.packets
            );
        } else if i == 1 {
            assert!(r.head_waits > 0 && r.slots_given_back > 0, "{r:?}");
            // Every rejection reason was exercised.
            for label in [
                "crc",
                "short",
                "long",
                "kind",
                "len field",
                "header reserved",
                "not a body",
                "tail reserved",
                "forward current",
                "forward hop_num",
                "backward full",
                "backward hop_num",
                "bad contents",
                "wrong id",
                "valid",
                "valid, all ones",
            ] {
                assert!(r.outcomes.contains_key(label), "run {i}: no {label} packet");
            }
        }
        if i > 0 {
            assert!(r.wrong_id > 0 && r.malformed > 0 && r.resets > 0, "{r:?}");
        }
    }
}
