//! `PacketStore` against a Rust model of its three copies, every cycle, on both backends:
//! random writes on `requests` (every copy) and `answers` (the packer's copy, first when both
//! write), both in the same cycle now and then, random read addresses on the three read ports,
//! often the address being written (the dodge: the neighbouring entry is read instead, which the
//! model says too). Every cycle each port's `data` is compared with the model: the word read at
//! the previous edge, before that edge's write. The store has no reset (its contents mean
//! something only under a ticket), so the bench has none.
use hdl::mgmt::eep_access::EEP_DATA_BITS;
use hdl::mgmt::ticket::STORE_ADDRESS_BITS;
use hdl::mgmt::PacketStore;
use testbench::{port_table, run_both, Backend, BenchRng};

const ENTRIES: usize = 1 << STORE_ADDRESS_BITS;

#[derive(Debug, Default, PartialEq)]
struct Report {
    writes: u64,
    both: u64,
    dodged: u64,
}

/// A write port's offer this cycle.
fn random_write(rng: &mut BenchRng, rate: f64) -> Option<(usize, u64)> {
    rng.chance(rate)
        .then(|| (rng.bits(STORE_ADDRESS_BITS) as usize, rng.bits(64) as u64))
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
    // The copies (packer, registers, eeprom) and each port's data register.
    let mut copies = [[0u64; ENTRIES]; 3];
    let mut data = [0u64; 3];
    let mut report = Report::default();
    for c in 0..cycles {
        let writes = [random_write(&mut rng, 0.5), random_write(&mut rng, 0.2)];
        for (k, w) in writes.iter().enumerate() {
            b.poke_bool(writers[k].0, w.is_some());
            let (a, d) = w.unwrap_or((rng.bits(STORE_ADDRESS_BITS) as usize, rng.bits(64) as u64));
            b.poke(writers[k].1, a as u128);
            b.poke(writers[k].2, d as u128);
        }
        // The write each copy takes: the packer's, answers first.
        let taken = [writes[1].or(writes[0]), writes[0], writes[0]];
        let mut addresses = [0usize; 3];
        for (k, r) in readers.iter().enumerate() {
            // Often the word being written.
            addresses[k] = match taken[k] {
                Some((a, _)) if rng.chance(0.3) => a,
                _ => rng.bits(STORE_ADDRESS_BITS) as usize,
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
            let mut a = addresses[k];
            if taken[k].is_some_and(|(w, _)| w == a) {
                a ^= 1;
                report.dodged += 1;
            }
            data[k] = copies[k][a];
        }
        for k in 0..3 {
            if let Some((a, d)) = taken[k] {
                copies[k][a] = d;
            }
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
    assert!(r.writes > 1000 && r.both > 100 && r.dodged > 100, "{r:?}");
}
