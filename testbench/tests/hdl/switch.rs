//! The router's switch (`nrc::switch::Switch`) against [`SwitchModel`], every cycle, on
//! rust-hdl's simulator and on Verilator.
//!
//! Stimulus: scripted input ports obeying the boundary's rules (`nrc::port::SwitchRequestSource`):
//! per input and VC a stream of packets (2 to `max_len` flits, `len` = their length) to random
//! output ports and VCs; a VC's front is `ready` at random (as a DAMQ's front arrives), a body
//! only after its head moved; every field of a VC that is not ready is random, and so is the
//! `flit` of an input not granted. The management agent's ports offer packets on every output
//! (valid at random, held until taken; now and then a head whose `len` is wrong: 0, too large,
//! shorter or longer than the packet). Downstream of every output a receiver with `reserve`
//! slots per VC drains at random (one VC stalled for a long phase), returning each credit after
//! a random delay, at most one per VC and cycle. Reset pulses at random moments (the input
//! ports, the agent and the receivers start over with the switch, as a link reset does).
//!
//! Checked every cycle against the model: every input's `grant`/`grant_vc`, every agent port's
//! `ready`, every output's `valid`/`flit`/`vc`, `credits`, `free`, `flits_out`,
//! `packets_out`, `errors` (always zero). Properties checked by the bench itself: a granted VC
//! was eligible (ready; a head with its output VC free and `len` credits); per output VC the
//! flits are exactly the packets' flits in order, one packet at a time, on the port and VC the
//! packet asked for; no flit arrives at a receiver without a free slot (credit); at the end,
//! after a drain phase, every packet not cut by a reset arrived whole. Starvation: per input VC
//! the cycles it was eligible but not granted since its front last moved, measured and bounded.
//!
//! Pathological pattern (directed, its own run): every input sends to output 0 on VC 0, input 0
//! long packets (`max_len`), the others packets of 2 flits back to back, the receiver draining
//! one flit per cycle: the long packets must still leave (the starving marks).
#![allow(clippy::needless_range_loop)] // per-port and per-VC ports, queues and model state are indexed together
use hdl::formats::flit::Flit;
use hdl::formats::header::{FabricHeader, PacketKind};
use nrc::switch::SwitchParams;
use std::collections::{HashMap, VecDeque};
use testbench::models::switch::{InputRequest, SwitchModel, SwitchShape, Winner};
use testbench::rhdl::SimValue;
use testbench::{run_both, Backend, BenchRng, PortId, PortTable, ResetSchedule};

type Small = nrc::switch!(4, 3);
type Default5 = nrc::switch!(5, 2);

const SMALL: SwitchParams = SwitchParams {
    reserve: 6,
    max_len: 6,
    mgmt_vc: 1,
    iterations: 2,
    tile_rows: 2,
    tile_cols: 2,
};

macro_rules! sig {
    ($t:expr, $T:ty, $name:expr, $($path:tt)+) => {
        $t.add(
            $name,
            move |x: &mut $T, v| x.$($path)+.next = SimValue::from_u128(v),
            move |x: &$T| SimValue::to_u128(&x.$($path)+.val()),
        );
    };
}

macro_rules! table {
    ($T:ty, $ports:expr) => {{
        let mut t = testbench::port_table!($T; reset, flits_out, packets_out, errors);
        for i in 0..$ports {
            sig!(t, $T, format!("inputs${i}$ready"), inputs[i].ready);
            sig!(t, $T, format!("inputs${i}$head"), inputs[i].head);
            sig!(t, $T, format!("inputs${i}$last"), inputs[i].last);
            sig!(t, $T, format!("inputs${i}$ports"), inputs[i].ports);
            sig!(t, $T, format!("inputs${i}$out_vcs"), inputs[i].out_vcs);
            sig!(t, $T, format!("inputs${i}$lens"), inputs[i].lens);
            sig!(t, $T, format!("inputs${i}$grant"), inputs[i].grant);
            sig!(t, $T, format!("inputs${i}$grant_vc"), inputs[i].grant_vc);
            sig!(t, $T, format!("inputs${i}$flit"), inputs[i].flit);
            sig!(t, $T, format!("outputs${i}$valid"), outputs[i].valid);
            sig!(t, $T, format!("outputs${i}$flit"), outputs[i].flit);
            sig!(t, $T, format!("outputs${i}$vc"), outputs[i].vc);
            sig!(t, $T, format!("outputs${i}$credits"), outputs[i].credits);
            sig!(t, $T, format!("from_agent${i}$valid"), from_agent[i].valid);
            sig!(t, $T, format!("from_agent${i}$data"), from_agent[i].data);
            sig!(t, $T, format!("from_agent${i}$last"), from_agent[i].last);
            sig!(t, $T, format!("from_agent${i}$port"), from_agent[i].port);
            sig!(t, $T, format!("from_agent${i}$ready"), from_agent[i].ready);
            sig!(t, $T, format!("credits${i}"), credits[i]);
            sig!(t, $T, format!("free${i}"), free[i]);
        }
        t
    }};
}

fn small_table() -> PortTable<Small> {
    table!(Small, 4)
}
fn default_table() -> PortTable<Default5> {
    table!(Default5, 5)
}

/// Every port, looked up once.
struct Ports {
    reset: PortId,
    flits_out: PortId,
    packets_out: PortId,
    errors: PortId,
    ready: Vec<PortId>,
    head: Vec<PortId>,
    last: Vec<PortId>,
    ports: Vec<PortId>,
    out_vcs: Vec<PortId>,
    lens: Vec<PortId>,
    grant: Vec<PortId>,
    grant_vc: Vec<PortId>,
    flit: Vec<PortId>,
    out_valid: Vec<PortId>,
    out_flit: Vec<PortId>,
    out_vc: Vec<PortId>,
    out_credits: Vec<PortId>,
    agent_valid: Vec<PortId>,
    agent_data: Vec<PortId>,
    agent_last: Vec<PortId>,
    agent_port: Vec<PortId>,
    agent_ready: Vec<PortId>,
    credits: Vec<PortId>,
    free: Vec<PortId>,
}

impl Ports {
    fn new(b: &dyn Backend, n: usize) -> Self {
        let many = |f: &str| -> Vec<PortId> {
            (0..n)
                .map(|i| b.port(&f.replace('#', &i.to_string())))
                .collect()
        };
        Ports {
            reset: b.port("reset"),
            flits_out: b.port("flits_out"),
            packets_out: b.port("packets_out"),
            errors: b.port("errors"),
            ready: many("inputs$#$ready"),
            head: many("inputs$#$head"),
            last: many("inputs$#$last"),
            ports: many("inputs$#$ports"),
            out_vcs: many("inputs$#$out_vcs"),
            lens: many("inputs$#$lens"),
            grant: many("inputs$#$grant"),
            grant_vc: many("inputs$#$grant_vc"),
            flit: many("inputs$#$flit"),
            out_valid: many("outputs$#$valid"),
            out_flit: many("outputs$#$flit"),
            out_vc: many("outputs$#$vc"),
            out_credits: many("outputs$#$credits"),
            agent_valid: many("from_agent$#$valid"),
            agent_data: many("from_agent$#$data"),
            agent_last: many("from_agent$#$last"),
            agent_port: many("from_agent$#$port"),
            agent_ready: many("from_agent$#$ready"),
            credits: many("credits$#"),
            free: many("free$#"),
        }
    }
}

/// A packet to send, and what the receivers check it against.
#[derive(Clone, Debug)]
struct Packet {
    id: u32,
    port: usize,
    out_vc: usize,
    flits: Vec<u128>,
}

fn make_packet(
    rng: &mut BenchRng,
    id: u32,
    port: usize,
    out_vc: usize,
    n: usize,
    len: u8,
) -> Packet {
    let mut h = FabricHeader {
        dst: id as u16,
        src: (id >> 16) as u16,
        vc: out_vc as u8,
        kind: PacketKind::Nap,
        len,
        delay: rng.bits(12) as u16,
    };
    h.kind = PacketKind::ALL[rng.range(0, PacketKind::ALL.len() as u64 - 1) as usize].0;
    let mut flits = vec![Flit::Head(h).pack()];
    for k in 1..n - 1 {
        flits.push(Flit::Body((id as u64) << 16 | k as u64).pack());
    }
    flits.push(Flit::Tail { crc16: id as u16 }.pack());
    Packet {
        id,
        port,
        out_vc,
        flits,
    }
}

/// The id a head carries.
fn head_id(flit: u128) -> u32 {
    match Flit::unpack(flit) {
        Ok(Flit::Head(h)) => h.dst as u32 | (h.src as u32) << 16,
        _ => u32::MAX,
    }
}

struct Run {
    seed: u64,
    cycles: u64,
    /// Probability a VC with a front is ready.
    ready: f64,
    /// Probability a VC's stream gets a new packet when empty.
    load: f64,
    /// Probability the agent port offers (when it has a packet).
    agent: f64,
    /// Share of agent packets with a wrong len.
    agent_bad: f64,
    /// Probability a receiver drains a flit in a cycle.
    drain: f64,
    /// Mean cycles between resets (0: none).
    reset_gap: u64,
    /// (output, VC, from, to): that receiver VC does not drain in the phase.
    stall: Option<(usize, usize, u64, u64)>,
    /// Directed: every input to output 0 VC 0, input 0 long packets, the others of 2 flits.
    hotspot: bool,
}

#[derive(Debug, PartialEq)]
struct Outcome {
    packets: u64,
    agent_packets: u64,
    lost_to_reset: u64,
    max_wait: u64,
    long_packets: u64,
    multi_grant_cycles: u64,
    starving_seen: u64,
}

fn bench(b: &mut dyn Backend, s: SwitchShape, run: &Run) -> Outcome {
    let seed = run.seed;
    let mut rng = BenchRng::new(seed);
    let n = s.ports;
    let x = Ports::new(b, n);
    let (wb, vb) = (b.width(x.grant_vc[0]), hdl::bits::index_bits(n));
    let mut model = SwitchModel::new(s);
    let mut sched = match run.reset_gap {
        0 => ResetSchedule::never(),
        g => ResetSchedule::new(&mut rng, g),
    };
    let mut next_id = 1u32;
    let mut streams: Vec<Vec<VecDeque<(Packet, usize)>>> = vec![vec![VecDeque::new(); s.vcs]; n];
    let mut agents: Vec<Option<(Packet, usize)>> = vec![None; n];
    let mut offered = vec![false; n];
    let mut records: HashMap<u32, Packet> = HashMap::new();
    let mut rx_slots = vec![vec![s.reserve; s.vcs]; n];
    let mut rx_queue: Vec<Vec<VecDeque<u128>>> = vec![vec![VecDeque::new(); s.vcs]; n];
    let mut rx_credits: Vec<Vec<VecDeque<u64>>> = vec![vec![VecDeque::new(); s.vcs]; n];
    let mut rx_open: Vec<Vec<Option<(u32, usize)>>> = vec![vec![None; s.vcs]; n];
    let mut wait = vec![vec![0u64; s.vcs]; n];
    let mut out = Outcome {
        packets: 0,
        agent_packets: 0,
        lost_to_reset: 0,
        max_wait: 0,
        long_packets: 0,
        multi_grant_cycles: 0,
        starving_seen: 0,
    };
    b.poke_bool(x.reset, true);
    b.tick();
    let drain_from = run.cycles;
    let total = run.cycles + 4000;
    for cycle in 0..total {
        let draining = cycle >= drain_from;
        let rst = sched.next_if(&mut rng, !draining);
        b.poke_bool(x.reset, rst);
        // New packets.
        for i in 0..n {
            for v in 0..s.vcs {
                if !draining && streams[i][v].is_empty() && rng.chance(run.load) {
                    let (port, out_vc, len) = if run.hotspot {
                        (0, 0, if i == 0 { s.max_len } else { 2 })
                    } else {
                        (
                            rng.range(0, n as u64 - 1) as usize,
                            rng.range(0, s.vcs as u64 - 1) as usize,
                            rng.range(2, s.max_len as u64) as usize,
                        )
                    };
                    let p = make_packet(&mut rng, next_id, port, out_vc, len, len as u8);
                    next_id += 1;
                    records.insert(p.id, p.clone());
                    streams[i][v].push_back((p, 0));
                }
            }
        }
        for p in 0..n {
            if !draining && agents[p].is_none() && !run.hotspot && rng.chance(0.05) {
                let len = rng.range(2, s.max_len as u64) as usize;
                let field = if rng.chance(run.agent_bad) {
                    [0, 255, len - 1, len + 1][rng.range(0, 3) as usize] as u8
                } else {
                    len as u8
                };
                let pk = make_packet(&mut rng, next_id | 1 << 31, p, s.mgmt_vc, len, field);
                next_id += 1;
                records.insert(pk.id, pk.clone());
                agents[p] = Some((pk, 0));
            }
        }
        // The input ports' requests.
        let mut reqs = vec![];
        for i in 0..n {
            let mut r = InputRequest {
                ready: vec![false; s.vcs],
                head: vec![false; s.vcs],
                last: vec![false; s.vcs],
                port: vec![0; s.vcs],
                out_vc: vec![0; s.vcs],
                len: vec![0; s.vcs],
            };
            let (mut rd, mut hd, mut ls, mut po, mut ov, mut le) =
                (0u128, 0u128, 0u128, 0u128, 0u128, 0u128);
            for v in 0..s.vcs {
                let front = streams[i][v].front();
                let ready = front.is_some() && rng.chance(run.ready);
                r.ready[v] = ready;
                if let Some((pk, k)) = front.filter(|_| ready) {
                    r.head[v] = *k == 0;
                    r.last[v] = *k == pk.flits.len() - 1;
                    r.port[v] = pk.port;
                    r.out_vc[v] = pk.out_vc;
                    r.len[v] = if *k == 0 {
                        pk.flits.len()
                    } else {
                        rng.bits(8) as usize
                    };
                } else {
                    r.head[v] = rng.chance(0.5);
                    r.last[v] = rng.chance(0.5);
                    r.port[v] = rng.bits(vb) as usize;
                    r.out_vc[v] = rng.bits(wb) as usize;
                    r.len[v] = rng.bits(8) as usize;
                }
                rd |= (r.ready[v] as u128) << v;
                hd |= (r.head[v] as u128) << v;
                ls |= (r.last[v] as u128) << v;
                po |= (r.port[v] as u128) << (v * vb);
                ov |= (r.out_vc[v] as u128) << (v * wb);
                le |= (r.len[v] as u128) << (v * 8);
            }
            b.poke(x.ready[i], rd);
            b.poke(x.head[i], hd);
            b.poke(x.last[i], ls);
            b.poke(x.ports[i], po);
            b.poke(x.out_vcs[i], ov);
            b.poke(x.lens[i], le);
            reqs.push(r);
        }
        // The agent ports (hold rule: once offered, held until taken).
        let mut afronts = vec![None; n];
        for p in 0..n {
            let valid = match &agents[p] {
                Some(_) => offered[p] || rng.chance(run.agent),
                None => false,
            };
            offered[p] = valid;
            let (data, last) = match (&agents[p], valid) {
                (Some((pk, k)), true) => (pk.flits[*k], *k == pk.flits.len() - 1),
                _ => (rng.bits(65), rng.chance(0.5)),
            };
            b.poke_bool(x.agent_valid[p], valid);
            b.poke(x.agent_data[p], data);
            b.poke_bool(x.agent_last[p], last);
            b.poke(x.agent_port[p], if valid { p as u128 } else { rng.bits(5) });
            if valid {
                afronts[p] = Some((data, last));
            }
        }
        let a = model.allocate(&reqs, &afronts, rst);
        // Grants against the model; the granted input's flit.
        let mut flits_in = vec![0u128; n];
        for i in 0..n {
            let g = b.peek_bool(x.grant[i]);
            let gv = b.peek(x.grant_vc[i]) as usize;
            assert_eq!(
                (g, if g { gv } else { 0 }),
                (a.input_grants[i].is_some(), a.input_grants[i].unwrap_or(0)),
                "seed {seed} cycle {cycle}: input {i} grant (eligible {:#b})",
                a.eligible[i]
            );
            let flit = match a.input_grants[i] {
                Some(v) => {
                    assert!(
                        a.eligible[i] >> v & 1 == 1,
                        "seed {seed} cycle {cycle}: ineligible grant"
                    );
                    let (pk, k) = streams[i][v].front().unwrap();
                    pk.flits[*k]
                }
                None => rng.bits(65),
            };
            flits_in[i] = flit;
            b.poke(x.flit[i], flit);
        }
        if a.input_grants.iter().flatten().count() > 1 {
            out.multi_grant_cycles += 1;
        }
        let mut sent = vec![0u128; n];
        for p in 0..n {
            assert_eq!(
                b.peek_bool(x.agent_ready[p]),
                a.sends[p].is_some_and(|w| w.winner == Winner::Agent),
                "seed {seed} cycle {cycle}: agent port {p} ready"
            );
            sent[p] = match a.sends[p].map(|w| w.winner) {
                Some(Winner::Input(i, _)) => flits_in[i],
                Some(Winner::Agent) => afronts[p].unwrap().0,
                None => 0,
            };
            for w in 0..s.vcs {
                out.starving_seen += model.starving(p, w) as u64;
            }
        }
        // Outputs against the model, and the receivers.
        let (fo, po, er) = model.events();
        assert_eq!(
            [b.peek(x.flits_out), b.peek(x.packets_out), b.peek(x.errors)],
            [fo as u128, po as u128, er as u128],
            "seed {seed} cycle {cycle}: flits_out, packets_out, errors"
        );
        assert_eq!(er, 0, "seed {seed} cycle {cycle}: credit counter error");
        let mut returned = vec![0u32; n];
        for p in 0..n {
            let (valid, flit, vc) = model.channel(p);
            assert_eq!(
                (
                    b.peek_bool(x.out_valid[p]),
                    b.peek(x.out_flit[p]),
                    b.peek(x.out_vc[p]) as usize
                ),
                (valid, flit, vc),
                "seed {seed} cycle {cycle}: output {p}"
            );
            assert_eq!(
                b.peek(x.credits[p]),
                model.credits(p),
                "seed {seed} cycle {cycle}: credits {p}"
            );
            assert_eq!(
                b.peek(x.free[p]) as u32,
                model.free(p),
                "seed {seed} cycle {cycle}: free {p}"
            );
            if valid && !rst {
                assert!(
                    rx_slots[p][vc] > 0,
                    "seed {seed} cycle {cycle}: output {p} VC {vc}: a flit without credit"
                );
                rx_slots[p][vc] -= 1;
                rx_queue[p][vc].push_back(flit);
                // The scoreboard: exactly the packet's flits, in order, one packet per VC.
                let (id, k) = match rx_open[p][vc] {
                    Some(o) => o,
                    None => {
                        let id = head_id(flit);
                        let pk = records.get(&id).unwrap_or_else(|| {
                            panic!("seed {seed} cycle {cycle}: output {p} VC {vc}: {flit:#x} is no packet's head")
                        });
                        assert_eq!(
                            (pk.port, pk.out_vc),
                            (p, vc),
                            "seed {seed} cycle {cycle}: packet {id} on the wrong port or VC"
                        );
                        (id, 0)
                    }
                };
                let pk = &records[&id];
                assert_eq!(
                    flit, pk.flits[k],
                    "seed {seed} cycle {cycle}: output {p} VC {vc}: flit {k} of packet {id}"
                );
                if k + 1 == pk.flits.len() {
                    rx_open[p][vc] = None;
                    if id >> 31 == 1 {
                        out.agent_packets += 1;
                    } else {
                        out.packets += 1;
                        if run.hotspot && pk.flits.len() == s.max_len {
                            out.long_packets += 1;
                        }
                    }
                    records.remove(&id);
                } else {
                    rx_open[p][vc] = Some((id, k + 1));
                }
            }
            // Drain: one flit per output per cycle, a random VC, not the stalled one.
            let stalled = run
                .stall
                .filter(|&(sp, _, from, to)| sp == p && (from..to).contains(&cycle))
                .map(|st| st.1);
            let rate = if draining { 1.0 } else { run.drain };
            let able: Vec<usize> = (0..s.vcs)
                .filter(|&w| !rx_queue[p][w].is_empty() && Some(w) != stalled)
                .collect();
            if !able.is_empty() && rng.chance(rate) {
                let w = able[rng.range(0, able.len() as u64 - 1) as usize];
                rx_queue[p][w].pop_front();
                rx_credits[p][w].push_back(cycle + rng.range(0, 3));
            }
            for w in 0..s.vcs {
                if rx_credits[p][w].front().is_some_and(|&t| t <= cycle) {
                    rx_credits[p][w].pop_front();
                    rx_slots[p][w] += 1;
                    returned[p] |= 1 << w;
                }
            }
            b.poke(x.out_credits[p], returned[p] as u128);
        }
        b.tick();
        model.edge(&a, &sent, &returned, rst);
        if rst {
            // The input ports, the agent and the receivers start over.
            for i in 0..n {
                for v in 0..s.vcs {
                    for (pk, _) in streams[i][v].drain(..) {
                        records.remove(&pk.id);
                        out.lost_to_reset += 1;
                    }
                    wait[i][v] = 0;
                }
            }
            for p in 0..n {
                if let Some((pk, _)) = agents[p].take() {
                    records.remove(&pk.id);
                    out.lost_to_reset += 1;
                }
                offered[p] = false;
                for w in 0..s.vcs {
                    if let Some((id, _)) = rx_open[p][w].take() {
                        records.remove(&id);
                        out.lost_to_reset += 1;
                    }
                    rx_slots[p][w] = s.reserve;
                    rx_queue[p][w].clear();
                    rx_credits[p][w].clear();
                }
            }
            continue;
        }
        for i in 0..n {
            for v in 0..s.vcs {
                if a.input_grants[i] == Some(v) {
                    wait[i][v] = 0;
                    let f = streams[i][v].front_mut().unwrap();
                    f.1 += 1;
                    if f.1 == f.0.flits.len() {
                        streams[i][v].pop_front();
                    }
                } else if a.eligible[i] >> v & 1 == 1 {
                    wait[i][v] += 1;
                    out.max_wait = out.max_wait.max(wait[i][v]);
                }
            }
        }
        for p in 0..n {
            if a.sends[p].is_some_and(|w| w.winner == Winner::Agent) {
                offered[p] = false;
                let (pk, k) = agents[p].as_mut().unwrap();
                *k += 1;
                if *k == pk.flits.len() {
                    agents[p] = None;
                }
            }
        }
    }
    assert!(
        records.is_empty(),
        "seed {seed}: {} packets never arrived whole, e.g. {:?}",
        records.len(),
        records
            .values()
            .next()
            .map(|p| (p.id, p.port, p.out_vc, p.flits.len()))
    );
    out
}

fn small_shape(p: SwitchParams) -> SwitchShape {
    SwitchShape {
        ports: 4,
        vcs: 3,
        reserve: p.reserve,
        max_len: p.max_len,
        mgmt_vc: p.mgmt_vc,
        iterations: p.iterations,
    }
}

#[test]
fn switch_small_random_with_resets() {
    for seed in [1, 2] {
        let run = Run {
            seed,
            cycles: 6000,
            ready: 0.8,
            load: 0.3,
            agent: 0.7,
            agent_bad: 0.1,
            drain: 0.6,
            reset_gap: 1500,
            stall: Some((1, 2, 1000, 2500)),
            hotspot: false,
        };
        let r = run_both(
            "switch_small",
            || Small::new(SMALL),
            small_table,
            |b| bench(b, small_shape(SMALL), &run),
        );
        let o = &r.result;
        println!("switch_small seed {seed}: {o:?}");
        assert!(o.packets > 1000 && o.agent_packets > 20, "{o:?}");
        assert!(o.multi_grant_cycles > 500, "{o:?}");
        assert!(o.max_wait < 400, "an input VC waited {} cycles", o.max_wait);
    }
}

#[test]
fn switch_small_hotspot_does_not_starve_long_packets() {
    let run = Run {
        seed: 7,
        cycles: 4000,
        ready: 1.0,
        load: 1.0,
        agent: 0.0,
        agent_bad: 0.0,
        drain: 1.0,
        reset_gap: 0,
        stall: None,
        hotspot: true,
    };
    let r = run_both(
        "switch_small",
        || Small::new(SMALL),
        small_table,
        |b| bench(b, small_shape(SMALL), &run),
    );
    let o = &r.result;
    println!("switch_small hotspot: {o:?}");
    assert!(o.long_packets > 20, "the long packets starved: {o:?}");
    assert!(o.max_wait < 100, "an input VC waited {} cycles", o.max_wait);
    assert!(o.starving_seen > 0, "{o:?}");
}

#[test]
fn switch_default_configuration() {
    let cfg = hdl::params::Config::default();
    let p = SwitchParams::from_config(&cfg);
    let shape = SwitchShape {
        ports: nrc::tops::SWITCH_PORTS,
        vcs: cfg.network.vcs as usize,
        reserve: p.reserve,
        max_len: p.max_len,
        mgmt_vc: p.mgmt_vc,
        iterations: p.iterations,
    };
    let run = Run {
        seed: 3,
        cycles: 6000,
        ready: 0.9,
        load: 0.3,
        agent: 0.7,
        agent_bad: 0.05,
        drain: 0.7,
        reset_gap: 2000,
        stall: Some((0, 0, 500, 2500)),
        hotspot: false,
    };
    let r = run_both(
        "switch_default",
        || Default5::new(p),
        default_table,
        |b| bench(b, shape, &run),
    );
    println!("switch_default: {:?}", r.result);
    assert!(r.result.packets > 300, "{:?}", r.result);
}
