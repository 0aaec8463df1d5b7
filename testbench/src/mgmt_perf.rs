//! `bench mgmt`: the figures of the management agent's entrance and exit
//! ([`hdl::mgmt::NmpUnpacker`], [`hdl::mgmt::NmpPacker`]): the unpacker's latency and rate
//! measured on rust-hdl's simulator with back-to-back traffic and no backpressure (the packer
//! reads the packet store, so its latency is part of the core's figures), and their cost on
//! iCE40-HX8K from the FPGA flow ([`flow::measure_block_with`]: the block synthesized alone for
//! LUTs and flip-flops, the median Fmax of 3 placer seeds on a register-to-register harness).
//! The agent core ([`hdl::mgmt::NmaCore`], [`core_figures`]): request-to-response latency per
//! request kind and sustained register reads, and its cost as the `nma_core` top. The router's
//! whole management plane measured from its ports: [`crate::mgmt_plane_perf`].
//! Nothing here asserts (the guarantees are the benches' job in `tests/hdl/nmp_*.rs` and
//! `tests/hdl/nma_core.rs`).
use crate::backend::{u128_to_words, Backend};
use crate::models::mgmt::random_packet;
use crate::rhdl::RhdlSim;
use crate::rng::BenchRng;
use crate::{port_table, PortTable};
use anyhow::{anyhow, Result};
use flow::{MeasureOptions, SynthOptions, Target};
use hdl::formats::mgmt::MGMT_FLITS;
use hdl::mgmt::{NmpPacker, NmpUnpacker};
use std::path::Path;

/// The management VC the packer is measured with (the published configuration's).
const VC: u8 = 3;

/// Every port of the unpacker (its unit bench and the packer bench use it too).
pub fn unpacker_table() -> PortTable<NmpUnpacker> {
    port_table!(NmpUnpacker; reset, flits.valid, flits.data, flits.ready, in_port, chip_id,
        slots.free_slot, slots.available, slots.claim, slots.give_back, slots.returned,
        store.enable, store.address, store.data, requests.valid, requests.data,
        requests.ready, dropped_wrong_id, dropped_malformed)
}

/// Unpacker, `n` packets back to back: cycles from the edge that takes a tail to the first
/// cycle with its beat valid (min, max), and cycles per packet.
pub fn unpacker_latency(n: usize) -> (u64, u64, f64) {
    let mut b = RhdlSim::new(NmpUnpacker::new(), unpacker_table(), "nmp_unpacker");
    let [reset, fv, fd, fr, chip, rv, rr, available] = [
        "reset",
        "flits$valid",
        "flits$data",
        "flits$ready",
        "chip_id",
        "requests$valid",
        "requests$ready",
        "slots$available",
    ]
    .map(|p| b.port(p));
    let mut rng = BenchRng::new(1);
    let flits: Vec<u128> = (0..n)
        .flat_map(|_| random_packet(&mut rng, 7).pack())
        .collect();
    b.poke_bool(reset, true);
    b.tick();
    b.poke_bool(reset, false);
    b.poke(chip, 7);
    b.poke_bool(rr, true);
    b.poke_bool(available, true);
    let (mut next, mut tails, mut beats) = (0, std::collections::VecDeque::new(), 0);
    let (mut lo, mut hi, mut cycle) = (u64::MAX, 0, 0u64);
    while beats < n {
        b.poke_bool(fv, next < flits.len());
        b.poke_wide(
            fd,
            &u128_to_words(flits.get(next).copied().unwrap_or(0), 65),
        );
        if b.peek_bool(rv) {
            let t: u64 = tails.pop_front().expect("a beat without a packet");
            lo = lo.min(cycle - t);
            hi = hi.max(cycle - t);
            beats += 1;
        }
        if next < flits.len() && b.peek_bool(fr) {
            if next % MGMT_FLITS == MGMT_FLITS - 1 {
                tails.push_back(cycle);
            }
            next += 1;
        }
        b.tick();
        cycle += 1;
    }
    (lo, hi, cycle as f64 / n as f64)
}

/// Prints the simulated figures (`sim`: the unpacker's and packer's latency lines, the agent
/// core's table, then the router's plane measured from its ports, [`crate::mgmt_plane_perf`])
/// and the iCE40 cost table (`cost`, which takes minutes); `work` holds the FPGA flow's files.
pub fn report(work: &Path, sim: bool, cost: bool) -> Result<()> {
    if sim {
        sim_report()?;
    }
    if cost {
        cost_report(work)?;
    }
    Ok(())
}

fn sim_report() -> Result<()> {
    let (ulo, uhi, urate) = unpacker_latency(200);
    println!(
        "\n## Management agent: unpacker and packer (management packets of {MGMT_FLITS} flits)\n"
    );
    println!("Unpacker (rust-hdl simulation, 200 packets back to back, requests always ready): {ulo} to {uhi} cycles from the edge that takes a tail to the first cycle with its beat valid; {urate:.2} cycles per packet.");
    println!("Packer: it now builds each response from the packet store's words (a ticket names the slot), so it is measured with the units around it, in the core's figures below.\n");
    let core = core_figures();
    println!(
        "\n## Management agent core (`nma_core`: the units assembled, the sample register file behind it, I2C at quarter {} cycles)\n",
        hdl::tops::NMA_CORE_QUARTER
    );
    println!("rust-hdl simulation, `to_mesh` always ready; cycles from the cycle a request's last flit is taken by `from_mesh` to the first cycle its response's first flit is valid on `to_mesh` (goal for a register read: 8 or fewer):\n");
    println!("| request | cycles |");
    println!("|---|---|");
    for (what, cycles) in &core.latencies {
        println!("| {what} | {cycles} |");
    }
    println!(
        "\nSustained: 100 one-register reads back to back, {:.1} requests per 1,000 cycles (goal 62.5, one every 16 cycles; a request is {MGMT_FLITS} flits, so the input allows at most {:.1}).\n",
        core.reads_per_1000,
        1000.0 / MGMT_FLITS as f64
    );
    crate::mgmt_plane_perf::report()
}

fn cost_report(work: &Path) -> Result<()> {
    println!("\n## Management agent units and core on iCE40\n");
    let target = Target::Ice40;
    let options = MeasureOptions {
        seeds: vec![1, 2, 3],
        synth: SynthOptions::for_target(target),
        ..Default::default()
    };
    println!("| block | part | LUTs | FFs | carries | Fmax (MHz) | seeds (MHz) |");
    println!("|---|---|---|---|---|---|---|");
    let tops = [
        hdl::tops::emit(
            NmpUnpacker::new(),
            "nmp_unpacker",
            "management agent entrance",
        ),
        hdl::tops::emit(NmpPacker::new(VC), "nmp_packer", "management agent exit"),
        hdl::tops::nma_core(&hdl::params::Config::default()),
    ];
    // The plane (the agent behind the 8-port mesh, and `nrc_mgmt`) is measured after this
    // table, by `crate::nma_mesh_top::report`.
    for top in tops {
        let top = top.map_err(anyhow::Error::msg)?;
        let dir = work.join(target.name()).join(&top.name);
        std::fs::create_dir_all(&dir)?;
        let file = dir.join(format!("{}.v", top.name));
        std::fs::write(&file, &top.verilog)?;
        let c = flow::measure_block_with(&[&file], &top.name, &dir, &options)
            .map_err(|e| anyhow!("{} on {}: {e:#}", top.name, target.part()))?;
        println!(
            "| {} | {} | {} | {} | {} | {:.1} | {:?} |",
            top.name,
            target.part(),
            c.luts,
            c.ffs,
            c.carries,
            c.fmax_mhz,
            c.fmax_runs_mhz
        );
    }
    Ok(())
}

/// Drives the agent core in its bench top ([`crate::nma_top::NmaBenchTop`]: the sample
/// register file behind it, the EEPROM model on its bus) with `to_mesh` always ready, the
/// loader idle and no faults; one request stream of flits.
pub struct CoreDriver {
    b: RhdlSim<crate::nma_top::NmaBenchTop>,
    bus: crate::models::i2c_eeprom::I2cBus,
    ports: [crate::backend::PortId; 9],
    /// Flits to send: (flit, arrival port, last).
    queue: std::collections::VecDeque<(u128, u8, bool)>,
    /// Cycle now.
    pub cycle: u64,
    /// Cycles in which a tail was taken, in order.
    pub tails: Vec<u64>,
    /// Cycles in which a response's head was valid (and taken), in order.
    pub heads: Vec<u64>,
    /// Flits of the response in progress.
    position: usize,
}

/// Chip ID of the measured agent.
const CORE_CHIP: u16 = 0x0042;

impl CoreDriver {
    /// The core after one reset cycle.
    pub fn new() -> Self {
        use crate::models::i2c_eeprom::{EepromTiming, I2cBus, I2cEeprom};
        let b = RhdlSim::new(
            crate::nma_top::NmaBenchTop::new(VC),
            crate::nma_top::port_table(),
            "nma_core",
        );
        let ports = [
            "reset",
            "from_mesh$valid",
            "from_mesh$data",
            "from_mesh$port",
            "from_mesh$ready",
            "to_mesh$valid",
            "to_mesh$ready",
            "i2c$scl_drive_low",
            "i2c$sda_drive_low",
        ]
        .map(|p| b.port(p));
        let part = I2cEeprom::new(
            0,
            EepromTiming::for_quarter(hdl::tops::NMA_CORE_QUARTER as u64, 300),
        );
        let mut d = Self {
            b,
            bus: I2cBus::new(part),
            ports,
            queue: Default::default(),
            cycle: 0,
            tails: vec![],
            heads: vec![],
            position: 0,
        };
        let chip = d.b.port("chip_id");
        d.b.poke(chip, CORE_CHIP as u128);
        d.step(true);
        d
    }

    /// Queues a request packet arriving on `port`.
    pub fn send(&mut self, p: &hdl::formats::mgmt::MgmtPacket, port: u8) {
        let flits = p.pack();
        let n = flits.len();
        for (i, f) in flits.into_iter().enumerate() {
            self.queue.push_back((f, port, i + 1 == n));
        }
    }

    /// One cycle.
    pub fn step(&mut self, reset: bool) {
        let [rst, iv, id, ip, ir, ov, or, scl_low, sda_low] = self.ports;
        let b = &mut self.b;
        b.poke_bool(rst, reset);
        let front = self.queue.front().copied();
        b.poke_bool(iv, front.is_some());
        let (flit, port, last) = front.unwrap_or((0, 0, false));
        b.poke_wide(id, &u128_to_words(flit, hdl::formats::FLIT_BITS));
        b.poke(ip, port as u128);
        b.poke_bool(or, true);
        let (scl, sda) = self.bus.lines(b.peek_bool(scl_low), b.peek_bool(sda_low));
        let (scl_in, sda_in) = (b.port("i2c$scl_in"), b.port("i2c$sda_in"));
        b.poke_bool(scl_in, scl);
        b.poke_bool(sda_in, sda);
        if !reset && front.is_some() && b.peek_bool(ir) {
            self.queue.pop_front();
            if last {
                self.tails.push(self.cycle);
            }
        }
        if !reset && b.peek_bool(ov) {
            if self.position == 0 {
                self.heads.push(self.cycle);
            }
            self.position = (self.position + 1) % MGMT_FLITS;
        }
        self.bus.step(scl, sda, 0);
        b.tick();
        self.cycle += 1;
    }

    /// Sends `p` alone and returns the cycles from the cycle its tail was taken to the first
    /// cycle its response's head was valid; runs on until the response has left.
    pub fn latency(&mut self, p: &hdl::formats::mgmt::MgmtPacket) -> u64 {
        let (t, h) = (self.tails.len(), self.heads.len());
        self.send(p, 7);
        while self.heads.len() == h || self.position != 0 {
            self.step(false);
            assert!(self.cycle < 10_000_000, "no response");
        }
        self.heads[h] - self.tails[t]
    }
}

impl Default for CoreDriver {
    fn default() -> Self {
        Self::new()
    }
}

/// A request of `nmp_type` to the measured agent with `payload`, from a server two routers
/// away.
fn core_request(
    nmp_type: hdl::formats::mgmt::NmpType,
    payload: hdl::formats::mgmt::MgmtPayload,
    tid: u16,
) -> hdl::formats::mgmt::MgmtPacket {
    use hdl::formats::mgmt::*;
    MgmtPacket {
        dest_id: CORE_CHIP,
        src: 0x0001,
        vc: VC,
        dest_type: DestType::Nrc,
        src_vp: 1,
        dest_vp: 2,
        transaction_id: tid,
        nmp_type,
        error: MgmtError::None,
        forward: Route {
            current: 0,
            ..Route::from_path(&[3, 4])
        },
        backward: Route::from_path(&[9, 12]),
        payload,
    }
}

/// The agent core's figures: latency per request kind (last request flit taken to first
/// response flit valid) and sustained register reads per 1,000 cycles.
pub struct CoreFigures {
    /// (what, cycles).
    pub latencies: Vec<(&'static str, u64)>,
    /// Back-to-back register reads of one register: requests answered per 1,000 cycles.
    pub reads_per_1000: f64,
}

/// Measures [`CoreFigures`] on rust-hdl's simulator.
pub fn core_figures() -> CoreFigures {
    use hdl::formats::mgmt::{MgmtPayload, NmpType};
    let reg = |count: u8, address: [u16; 2]| MgmtPayload::Registers {
        count,
        address,
        data: [0x1234, 0x5678],
    };
    let eep = |count: u8| MgmtPayload::Eeprom {
        count,
        address: 0x0100,
        bytes: [1, 2, 3, 4, 5, 6],
    };
    // Addresses of the sample map: 0x00 and 0x01 are read-write registers.
    let cases = [
        (
            "register read, 1 register",
            core_request(NmpType::RegReadRequest, reg(1, [0, 0]), 1),
        ),
        (
            "register read, 2 registers",
            core_request(NmpType::RegReadRequest, reg(2, [0, 1]), 2),
        ),
        (
            "register write, 1 register",
            core_request(NmpType::RegWriteRequest, reg(1, [0, 0]), 3),
        ),
        (
            "EEPROM read, 1 byte",
            core_request(NmpType::EepReadRequest, eep(1), 4),
        ),
        (
            "EEPROM read, 6 bytes",
            core_request(NmpType::EepReadRequest, eep(6), 5),
        ),
    ];
    let mut d = CoreDriver::new();
    let latencies = cases
        .iter()
        .map(|(what, p)| (*what, d.latency(p)))
        .collect();
    // Back to back: the flits of n reads queued at once.
    let n = 100;
    let h = d.heads.len();
    for i in 0..n {
        d.send(
            &core_request(NmpType::RegReadRequest, reg(1, [0, 0]), 100 + i),
            5,
        );
    }
    while d.heads.len() < h + n as usize {
        d.step(false);
    }
    // Steady state: the first ten responses are left out (the pipeline filling).
    let span = (d.heads[h + n as usize - 1] - d.heads[h + 10]) as f64 / (n as f64 - 11.0);
    CoreFigures {
        latencies,
        reads_per_1000: 1000.0 / span,
    }
}
