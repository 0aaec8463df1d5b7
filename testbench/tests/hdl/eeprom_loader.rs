//! `EepromLoader` on both backends in its setting (`testbench::loader_bench::LoaderHarness`):
//! loader -> `EepAccess` -> I2C pins resolved in Rust to the EEPROM model (real I2C timing,
//! checked), and loader -> `RegArbiter` (first input) -> `RegFile` of the sample map (A = 12,
//! D = 64), with a host on the arbiter's second input reading read-only and unmapped registers
//! while the loader runs (random idle lines, random response backpressure). The image sits at
//! `BASE` = 0x7b (its first read crosses a page end), the rest of the part holds random bytes.
//!
//! Images, each a run from reset to `done` checked against the model
//! (`testbench::models::eeprom_loader`, built on `EepromImage::parse`):
//! valid images (16 entries; 8 entries among which unmapped, read-only and beyond-the-port
//! addresses, write-1-to-clear and counter registers, a register written twice; 0 entries),
//! blank (all 0xFF) and all-zero parts, one byte changed at every header position and in
//! entries, a count lowered by one (the checksum covers it), a count above `max_entries`
//! with a right checksum, an address with bit 15 set,
//! an absent part, a part that stops answering in pass 2, and a valid load under random
//! resets with clock stretching.
//!
//! Checked at each run's end: `status` (outcome bit, `refused` bit, no other), exactly the
//! outcome's pulse (and one `refused` pulse per refused entry), no pulse and no change for 40
//! cycles after; `busy == !done` in every cycle; every register of the map read back through
//! the host port equals the model (reset values plus the entries written, none for a blank,
//! corrupt or absent part; the prefix of entries read before a part went away); the bytes the
//! part sent equal what the loader must read (header, then both passes), so nothing past the
//! image is read; every host response right; no I2C timing violation outside the cycles right
//! after a reset.
use hdl::mgmt::eeprom_image::{EepromImage, ImageEntry, ImageError, ENTRY_BYTES, HEADER_BYTES};
use hdl::regmap::{regfile_sample, Access, RegError, RegMap};
use testbench::loader_bench::{
    loader_table, status_value, HostExpect, LoaderDriver, LoaderHarness, A, BASE, MAX_ENTRIES,
};
use testbench::models::eeprom_loader::{apply_writes, expected_load, ExpectedLoad, LoadOutcome};
use testbench::models::i2c_eeprom::EEPROM_BYTES;
use testbench::models::reg_file::{RegFileModel, Request, Response};
use testbench::{run_both, Backend, BenchRng, ResetSchedule, VerilatorSim};

/// One run of the loader.
struct Scenario {
    name: String,
    /// The part's contents.
    memory: Vec<u8>,
    present: bool,
    /// Random resets while loading (at most 3), with clock stretching.
    resets: bool,
    /// The part stops answering at the START of this read of pass 2 (0-based).
    absent_at_pass2_read: Option<u64>,
    /// Run on both backends; the rest of the one-byte sweep runs on Verilator alone (the same
    /// checks; rust-hdl's simulator took most of this bench's minutes on them).
    both: bool,
}

/// What a run showed (identical on both backends).
#[derive(Clone, Debug, PartialEq, Eq)]
struct RunReport {
    name: String,
    outcome: LoadOutcome,
    reason: Option<ImageError>,
    refused: u64,
    /// Cycles from the last reset's release to the first cycle with `done`.
    cycles: u64,
    resets: u64,
    host_reads: u64,
}

fn random_memory(rng: &mut BenchRng) -> Vec<u8> {
    (0..EEPROM_BYTES).map(|_| rng.bits(8) as u8).collect()
}

fn with_image(rng: &mut BenchRng, image: &[u8]) -> Vec<u8> {
    let mut m = random_memory(rng);
    m[BASE..BASE + image.len()].copy_from_slice(image);
    m
}

/// `n` entries naming read-write registers of `map` at random, random values.
fn writable_entries(rng: &mut BenchRng, map: &RegMap, n: usize) -> Vec<ImageEntry> {
    let rw: Vec<u64> = map.of(Access::ReadWrite).map(|r| r.offset).collect();
    (0..n)
        .map(|_| ImageEntry {
            address: rw[rng.range(0, rw.len() as u64 - 1) as usize] as u16,
            value: rng.bits(64) as u64,
        })
        .collect()
}

/// A host read whose answer does not depend on the loader: a read-only register or an
/// unmapped address.
fn host_read(rng: &mut BenchRng, map: &RegMap) -> HostExpect {
    let ro: Vec<_> = map.of(Access::ReadOnly).collect();
    if rng.chance(0.7) {
        let i = rng.range(0, ro.len() as u64 - 1) as usize;
        let r = ro[i];
        HostExpect {
            request: Request {
                address: r.offset,
                write: false,
                data: 0,
            },
            response: Response {
                data: status_value(i) & r.mask(),
                error: RegError::None,
            },
        }
    } else {
        let address = loop {
            let a = rng.bits(A) as u64;
            if map.registers.iter().all(|r| r.offset != a) {
                break a;
            }
        };
        HostExpect {
            request: Request {
                address,
                write: rng.chance(0.5),
                data: rng.bits(64) as u64,
            },
            response: Response {
                data: 0,
                error: RegError::Unmapped,
            },
        }
    }
}

/// Bytes the part must send in a run without resets.
fn bytes_read(expected: &ExpectedLoad, memory: &[u8], absent_at: Option<u64>) -> u64 {
    let count = u16::from_le_bytes([memory[BASE + 6], memory[BASE + 7]]) as u64;
    let entries = ENTRY_BYTES as u64 * count;
    match (expected.outcome, expected.reason) {
        (LoadOutcome::Absent, _) => match absent_at {
            None => 0,
            Some(k) => HEADER_BYTES as u64 + entries + 6 * k,
        },
        (LoadOutcome::Blank, _) => HEADER_BYTES as u64,
        (LoadOutcome::Corrupt, Some(ImageError::BadChecksum { .. }))
        | (LoadOutcome::Corrupt, Some(ImageError::BadAddress(_))) => HEADER_BYTES as u64 + entries,
        (LoadOutcome::Corrupt, _) => HEADER_BYTES as u64,
        (LoadOutcome::Loaded, _) => HEADER_BYTES as u64 + 2 * entries,
    }
}

fn run(d: &mut LoaderDriver, map: &RegMap, s: &Scenario) -> RunReport {
    d.bus.part.memory = s.memory.clone();
    d.bus.part.present = s.present;
    let mut expected = expected_load(&s.memory, BASE, MAX_ENTRIES, s.present, A, map);
    let what = format!("{} ({})", d.what, s.name);
    // The part goes away once it has sent the bytes before pass 2's read `k`.
    let count = u16::from_le_bytes([s.memory[BASE + 6], s.memory[BASE + 7]]) as usize;
    let sent_before = d.bus.part.counts.bytes_read;
    let absent_after = s
        .absent_at_pass2_read
        .map(|k| sent_before + (HEADER_BYTES + ENTRY_BYTES * count) as u64 + 6 * k);
    if let Some(k) = s.absent_at_pass2_read {
        // The entries whose bytes all came in the reads before the part went away.
        let whole = (6 * k as usize) / ENTRY_BYTES;
        let image = EepromImage::parse(&s.memory[BASE..], MAX_ENTRIES).unwrap();
        let model = expected_load(&s.memory, BASE, MAX_ENTRIES, true, A, map);
        let refused = image.entries[..whole]
            .iter()
            .filter(|e| !model.written.contains(e))
            .count() as u64;
        expected = ExpectedLoad {
            outcome: LoadOutcome::Absent,
            reason: None,
            written: image.entries[..whole]
                .iter()
                .filter(|e| model.written.contains(e))
                .copied()
                .collect(),
            refused,
        };
    }
    d.stretch = if s.resets { (0.1, 6) } else { (0.0, 1) };
    d.host_ready = 0.6;
    d.cycle(true);
    d.cycle(true);
    let mut schedule = if s.resets {
        ResetSchedule::new(&mut d.rng, 8000)
    } else {
        ResetSchedule::never()
    };
    let mut start = d.b.cycle();
    let mut host_reads = 0;
    let done = loop {
        if d.host_offer.is_none() && d.rng.chance(0.02) {
            d.host_offer = Some(host_read(&mut d.rng, map));
            host_reads += 1;
        }
        let allowed = schedule.pulses() < 3;
        let reset = schedule.next_if(&mut d.rng, allowed);
        if let Some(n) = absent_after {
            if d.bus.part.counts.bytes_read >= n {
                d.bus.part.present = false;
            }
        }
        let out = d.cycle(reset);
        if reset {
            start = d.b.cycle();
        } else if out.done {
            break out;
        }
        assert!(
            d.b.cycle() - start < 300_000,
            "{what}: the loader hangs ({out:?})"
        );
    };
    let cycles = d.b.cycle() - 1 - start;
    assert_eq!(
        done.status,
        expected.status(),
        "{what}: status (expected {expected:?})"
    );
    let pulses = d.pulses;
    let want = |o: LoadOutcome| (expected.outcome == o) as u64;
    assert_eq!(
        (pulses.blank, pulses.corrupt, pulses.absent, pulses.refused),
        (
            want(LoadOutcome::Blank),
            want(LoadOutcome::Corrupt),
            want(LoadOutcome::Absent),
            expected.refused
        ),
        "{what}: pulses (expected {expected:?})"
    );
    if !s.resets {
        assert_eq!(
            d.bus.part.counts.bytes_read - sent_before,
            bytes_read(&expected, &s.memory, s.absent_at_pass2_read),
            "{what}: bytes read from the part"
        );
    }
    // Quiet afterwards: the outcome holds, no pulse.
    for _ in 0..40 {
        let out = d.cycle(false);
        assert!(
            out.done
                && out.status == done.status
                && !out.blank
                && !out.corrupt
                && !out.absent
                && !out.refused,
            "{what}: after done {out:?}"
        );
    }
    d.bus.part.present = true;
    // Every register of the map, read back through the host port.
    let mut model = RegFileModel::new(map);
    apply_writes(&mut model, &expected.written);
    let status: Vec<u64> = (0..map.count(Access::ReadOnly)).map(status_value).collect();
    for r in map.registers.iter() {
        while d.host_offer.is_some() {
            d.cycle(false);
        }
        let request = Request {
            address: r.offset,
            write: false,
            data: 0,
        };
        d.host_offer = Some(HostExpect {
            request,
            response: model.answer(&request, &status),
        });
    }
    let mut n = 0;
    while d.host_offer.is_some() || !d.host_pending.is_empty() {
        d.cycle(false);
        n += 1;
        assert!(n < 1000, "{what}: host reads not answered");
    }
    RunReport {
        name: s.name.clone(),
        outcome: expected.outcome,
        reason: expected.reason,
        refused: expected.refused,
        cycles,
        resets: schedule.pulses(),
        host_reads,
    }
}

/// Every scenario of the bench, in order.
fn scenarios(rng: &mut BenchRng, map: &RegMap) -> Vec<Scenario> {
    let plain = |name: &str, memory: Vec<u8>| Scenario {
        name: name.into(),
        memory,
        present: true,
        resets: false,
        absent_at_pass2_read: None,
        both: true,
    };
    let mut v = vec![];
    let sixteen = EepromImage::new(&writable_entries(rng, map, 16)).bytes();
    v.push(plain("valid, 16 entries", with_image(rng, &sixteen)));
    // Refusals: unmapped, read-only, beyond the 12-bit port; write-1-to-clear, counter, twice.
    let mut mixed = writable_entries(rng, map, 3);
    let ro = map.of(Access::ReadOnly).nth(2).unwrap().offset as u16;
    let w1c = map.of(Access::WriteOneToClear).next().unwrap().offset as u16;
    let counter = map.of(Access::Counter).nth(1).unwrap().offset as u16;
    for address in [0x0c, ro, 0x1234, w1c, counter] {
        mixed.push(ImageEntry {
            address,
            value: rng.bits(64) as u64,
        });
    }
    mixed.insert(
        2,
        ImageEntry {
            address: mixed[0].address,
            value: 0x5a5a,
        },
    );
    v.push(plain(
        "valid, refused entries",
        with_image(rng, &EepromImage::new(&mixed).bytes()),
    ));
    v.push(plain(
        "valid, no entries",
        with_image(rng, &EepromImage::new(&[]).bytes()),
    ));
    v.push(plain("blank (all ones)", vec![0xff; EEPROM_BYTES]));
    v.push(plain("all zeros", vec![0; EEPROM_BYTES]));
    // One byte changed: every header position, then three entry bytes.
    let three = EepromImage::new(&writable_entries(rng, map, 3)).bytes();
    let mut positions: Vec<usize> = (0..HEADER_BYTES).collect();
    for _ in 0..3 {
        positions.push(rng.range(HEADER_BYTES as u64, three.len() as u64 - 1) as usize);
    }
    for (n, p) in positions.into_iter().enumerate() {
        let mut image = three.clone();
        image[p] ^= rng.range(1, 255) as u8;
        let mut changed = plain(&format!("byte {p} changed"), with_image(rng, &image));
        // Both backends see the first header byte, the count's byte and one entry byte.
        changed.both = matches!(n, 0 | 6 | HEADER_BYTES);
        v.push(changed);
    }
    // A count lowered by one: the checksum (which covers the count) no longer matches.
    let mut fewer = three.clone();
    fewer[6] -= 1;
    v.push(plain("count lowered", with_image(rng, &fewer)));
    let many = EepromImage::new(&writable_entries(rng, map, MAX_ENTRIES + 1)).bytes();
    v.push(plain("count above max_entries", with_image(rng, &many)));
    let mut wide = writable_entries(rng, map, 2);
    wide[1].address |= 0x8000;
    let wide = EepromImage { entries: wide }.bytes();
    v.push(plain("address bit 15 set", with_image(rng, &wide)));
    let mut absent = plain("absent part", with_image(rng, &three));
    absent.present = false;
    v.push(absent);
    let six = EepromImage::new(&writable_entries(rng, map, 6)).bytes();
    let mut gone = plain("part gone in pass 2", with_image(rng, &six));
    gone.absent_at_pass2_read = Some(4);
    v.push(gone);
    let mut resets = plain("valid under resets", with_image(rng, &six));
    resets.resets = true;
    v.push(resets);
    v
}

/// Runs the scenarios whose `both` is `both`.
fn bench(b: &mut dyn Backend, seed: u64, both: bool) -> Vec<RunReport> {
    let map = regfile_sample();
    let mut d = LoaderDriver::new(b, seed, "eeprom_loader");
    let mut rng = BenchRng::new(seed ^ 0x5eed);
    let list = scenarios(&mut rng, &map);
    list.iter()
        .filter(|s| s.both == both)
        .map(|s| run(&mut d, &map, s))
        .collect()
}

#[test]
fn eeprom_loader_against_the_image_model() {
    let mut reports = run_both("eeprom_loader", LoaderHarness::new, loader_table, |b| {
        bench(b, 1, true)
    })
    .result;
    let mut verilator = VerilatorSim::of(LoaderHarness::new(), "eeprom_loader").unwrap();
    let sweep = bench(&mut verilator, 1, false);
    // Ten of the thirteen one-byte changes (header positions 1..=5 and 7..=9, two entry bytes).
    assert_eq!(sweep.len(), 10, "the rest of the one-byte sweep");
    // Among the other corrupt images: `reports[0]`, `[1]` and the last (the run under resets)
    // stay where the checks below look for them.
    reports.splice(5..5, sweep);
    for r in &reports {
        eprintln!("{r:?}");
    }
    let count = |o: LoadOutcome| reports.iter().filter(|r| r.outcome == o).count();
    assert!(
        count(LoadOutcome::Loaded) >= 4
            && count(LoadOutcome::Blank) == 2
            && count(LoadOutcome::Corrupt) >= 16
            && count(LoadOutcome::Absent) == 2,
        "{reports:?}"
    );
    let refused = &reports[1];
    assert_eq!(refused.refused, 3, "{refused:?}");
    let resets = reports.last().unwrap();
    assert!(resets.resets >= 2, "{resets:?}");
    assert!(reports.iter().map(|r| r.host_reads).sum::<u64>() > 100);
    let valid = &reports[0];
    eprintln!(
        "eeprom_loader: 16 entries loaded in {} cycles at quarter {}",
        valid.cycles,
        testbench::loader_bench::QUARTER
    );
    assert!(
        reports
            .iter()
            .filter(|r| r.outcome == LoadOutcome::Corrupt)
            .any(|r| matches!(r.reason, Some(ImageError::BadChecksum { .. }))),
        "{reports:?}"
    );
}
