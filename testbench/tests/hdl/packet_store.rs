//! `PacketStore` against a Rust model of its RAMs, every cycle, on both backends: random writes
//! on `requests` (the three request copies) and `answers` (the answers' RAM: `w6`/`w7` of a
//! slot), both in the same cycle often, random read addresses on the three read ports, often the
//! address being written (the dodge: the neighbouring entry is read instead, which the model
//! says too) and often `w6`/`w7` on the packer's port (read from the answers). Every cycle each
//! port's `data` is compared with the model: the word read at the previous edge, before that
//! edge's write. The store has no reset (its contents mean something only under a ticket), so
//! the bench has none.
use hdl::formats::mgmt::{W_DATA0, W_DATA1};
use hdl::mgmt::eep_access::EEP_DATA_BITS;
use hdl::mgmt::ticket::{store_address, ENTRY_BITS, STORE_ADDRESS_BITS, STORE_SLOTS};
use hdl::mgmt::PacketStore;
use testbench::{port_table, run_both, Backend, BenchRng};

const ENTRIES: usize = 1 << STORE_ADDRESS_BITS;

#[derive(Debug, Default, PartialEq)]
struct Report {
    writes: u64,
    both: u64,
    dodged: u64,
    answers_read: u64,
}

/// A random store address; `answer`: one of a slot's `w6`/`w7`.
fn random_address(rng: &mut BenchRng, answer: bool) -> usize {
    if answer {
        let slot = rng.range(0, STORE_SLOTS as u64 - 1) as usize;
        store_address(slot, if rng.chance(0.5) { W_DATA0 } else { W_DATA1 })
    } else {
        rng.bits(STORE_ADDRESS_BITS) as usize
    }
}

/// A write port's offer this cycle.
fn random_write(rng: &mut BenchRng, rate: f64, answer: bool) -> Option<(usize, u64)> {
    rng.chance(rate)
        .then(|| (random_address(rng, answer), rng.bits(64) as u64))
}

/// The answers' RAM index of a `w6`/`w7` address.
fn answer_index(address: usize) -> usize {
    (address >> ENTRY_BITS) << 1 | (address & 1)
}

/// The packer's port reads the answers' RAM for `w6`/`w7`.
fn is_answer(address: usize) -> bool {
    (address & ((1 << ENTRY_BITS) - 1)) >> 1 == W_DATA0 >> 1
}

fn bench(b: &mut dyn Backend, seed: u64, cycles: u64) -> Report {
    let mut rng = BenchRng::new(seed);
    let p = |n: &str| b.port(n);
    let writers = [
        (
            p("requests$enable"),
            p("requests$address"),
            p("requests$data"),
        ),
        (p("answers$enable"), p("answers$address"), p("answers$data")),
    ];
    let readers = [
        (p("packer$address"), p("packer$data"), 64),
        (p("registers$address"), p("registers$data"), 64),
        (p("eeprom$address"), p("eeprom$data"), EEP_DATA_BITS),
    ];
    // The request copies (packer, registers, eeprom), the answers, each port's data register.
    let mut copies = [[0u64; ENTRIES]; 3];
    let mut answers = [0u64; 2 * STORE_SLOTS];
    let mut data = [0u64; 3];
    let mut report = Report::default();
    for c in 0..cycles {
        let writes = [
            random_write(&mut rng, 0.5, false),
            random_write(&mut rng, 0.4, true),
        ];
        for (k, w) in writes.iter().enumerate() {
            b.poke_bool(writers[k].0, w.is_some());
            let (a, d) = w.unwrap_or((rng.bits(STORE_ADDRESS_BITS) as usize, rng.bits(64) as u64));
            b.poke(writers[k].1, a as u128);
            b.poke(writers[k].2, d as u128);
        }
        let mut addresses = [0usize; 3];
        for (k, r) in readers.iter().enumerate() {
            // Often the word being written; the packer often a slot's answer.
            let answer = k == 0 && rng.chance(0.4);
            let colliding = if answer { writes[1] } else { writes[0] };
            addresses[k] = match colliding {
                Some((a, _)) if rng.chance(0.3) && (!answer || is_answer(a)) => a,
                _ => random_address(&mut rng, answer),
            };
            b.poke(r.0, addresses[k] as u128);
        }
        let tag = format!("seed {seed} cycle {c}");
        for (k, r) in readers.iter().enumerate() {
            let mask = (1u128 << r.2) - 1;
            assert_eq!(b.peek(r.1), data[k] as u128 & mask, "{tag}: read port {k}");
        }
        // The edge: reads first (the dodge on a collision), then the writes.
        for k in 0..3 {
            let a = addresses[k];
            if k == 0 && is_answer(a) {
                let mut i = answer_index(a);
                if writes[1].is_some_and(|(w, _)| answer_index(w) == i) {
                    i ^= 1;
                    report.dodged += 1;
                }
                data[k] = answers[i];
                report.answers_read += 1;
            } else {
                let mut a = a;
                if writes[0].is_some_and(|(w, _)| w == a) {
                    a ^= 1;
                    report.dodged += 1;
                }
                data[k] = copies[k][a];
            }
        }
        if let Some((a, d)) = writes[0] {
            for copy in copies.iter_mut() {
                copy[a] = d;
            }
        }
        if let Some((a, d)) = writes[1] {
            answers[answer_index(a)] = d;
        }
        report.writes += writes.iter().filter(|w| w.is_some()).count() as u64;
        report.both += writes.iter().all(|w| w.is_some()) as u64;
        b.tick();
    }
    report
}

fn table() -> testbench::PortTable<PacketStore> {
    port_table!(PacketStore; requests.enable, requests.address, requests.data,
        answers.enable, answers.address, answers.data, packer.address, packer.data,
        registers.address, registers.data, eeprom.address, eeprom.data)
}

#[test]
fn packet_store_against_its_model() {
    let r = run_both("packet_store", PacketStore::default, table, |b| {
        bench(b, 77, 3000)
    })
    .result;
    println!("packet_store: {r:?}");
    assert!(
        r.writes > 1000 && r.both > 300 && r.dodged > 100 && r.answers_read > 500,
        "{r:?}"
    );
}
