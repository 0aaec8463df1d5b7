//! Reference model of `nic::function_table::FunctionTable` and its MMIO decode, written from
//! their documentation and `docs/host-interface.md`: the isolation rules (what each access of
//! each function reaches, and what is refused and counted), the registers' values, the NIC's
//! ring pointers and the lookup's answers.
//!
//! Timing, as the blocks document it: a write taken on the edge ending cycle `c` is seen by
//! the hardware (enables, keys, rings, the lookup) from cycle `c + 2`; a read returns every
//! earlier write; an advance on the edge ending `c` shows from `c + 1`, and a QP's pointers
//! read zero from the cycle after one in which it or its function was disabled. A lookup in
//! cycle `c` answers in `c + 1` with the values of cycle `c`. Counters are kept as a range:
//! refusals decided on the accepting edge are certain from the next cycle; an access that no
//! register took is counted when it leaves the decode's queue, which the bench does not see,
//! so it is pending until the bench drains the table.
use crate::host::MmioAccess;
use hdl::regmap::{Access, RegMap, Register};
use nic::host::mmio::MmioStatus;
use nic::regs::{nic_host_map, page_registers, privileged_offsets, Ring};
use std::collections::{HashMap, VecDeque};

/// Counter positions of a function page.
pub const OVERFLOWS: usize = 0;
/// Doorbells refused, function disabled.
pub const DISABLED: usize = 1;
/// Accesses beyond the BAR.
pub const OUTSIDE: usize = 2;
/// VF writes to PF-only registers.
pub const PRIVILEGED: usize = 3;
/// Accesses no register took.
pub const INVALID: usize = 4;
/// The counters' names, in position order.
pub const COUNTERS: [&str; 5] = [
    "doorbell_overflows",
    "doorbells_disabled",
    "mmio_outside",
    "mmio_privileged",
    "mmio_invalid",
];

/// What an access does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Reaches the register file at host register `address` (a register or a hole).
    Register {
        /// Host-space register address.
        address: u64,
    },
    /// Queues a doorbell for `function`.
    Doorbell {
        /// The page's function.
        function: usize,
    },
    /// A doorbell refused: `function` is disabled.
    Disabled {
        /// The page's function.
        function: usize,
    },
    /// Beyond the BAR (`function` none when no such BAR exists).
    Outside {
        /// The requesting function.
        function: Option<usize>,
    },
    /// A VF's write to a PF-only register.
    Privileged {
        /// The requesting function.
        function: usize,
    },
    /// An offset not 8-byte aligned.
    Misaligned {
        /// The requesting function.
        function: usize,
    },
}

/// What a read must return.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Exactly this.
    Exact(u64, MmioStatus),
    /// A read-only register: any value it had while the read was in flight.
    Status(u64),
    /// A counter of `function`: at least `low`, at most the certain count at completion plus
    /// the pending ones.
    Counter {
        /// Function.
        function: usize,
        /// Counter position.
        which: usize,
        /// Certain count when the read was taken.
        low: u64,
    },
}

/// The lookup's answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LookupAnswer {
    /// The function and QP exist.
    pub owned: bool,
    /// Function enabled.
    pub function_enabled: bool,
    /// QP enabled.
    pub qp_enabled: bool,
    /// Key.
    pub key: u64,
    /// Interrupt enabled.
    pub interrupt: bool,
    /// Per ring: base, size, producer, consumer.
    pub rings: [[u64; 4]; 3],
}

/// The model; see the module documentation.
pub struct FunctionTableModel {
    /// Functions.
    pub functions: usize,
    /// QPs per function.
    pub qps: usize,
    /// The host space.
    pub map: RegMap,
    page: u64,
    globals: u64,
    privileged: Vec<u64>,
    /// Read-write registers as the next read returns them.
    values: HashMap<u64, u64>,
    /// Read-write registers as the hardware uses them this cycle.
    visible: HashMap<u64, u64>,
    /// Writes not yet visible: (first cycle visible, address, value).
    pending: VecDeque<(u64, u64, u64)>,
    /// Certain counts, `[function][counter]`.
    pub counts: Vec<[u64; 5]>,
    /// Invalid accesses not yet known to be counted, per function.
    pub unsettled: Vec<u64>,
    /// The NIC's pointers, `[f x Q + q][ring]`.
    pub pointers: Vec<[u16; 3]>,
}

impl FunctionTableModel {
    /// The table after reset.
    pub fn new(functions: usize, qps: usize) -> Self {
        let map = nic_host_map(functions, qps).expect("host space");
        let mut m = Self {
            functions,
            qps,
            page: page_registers(qps),
            globals: nic::regs::nic_global_map().registers.len() as u64,
            privileged: privileged_offsets(qps),
            values: HashMap::new(),
            visible: HashMap::new(),
            pending: VecDeque::new(),
            counts: vec![[0; 5]; functions],
            unsettled: vec![0; functions],
            pointers: vec![[0; 3]; functions * qps],
            map,
        };
        m.reset();
        m
    }

    /// Reset: registers to their reset values, counters and pointers to zero.
    pub fn reset(&mut self) {
        self.values = self
            .map
            .of(Access::ReadWrite)
            .map(|r| (r.offset, r.reset))
            .collect();
        self.visible = self.values.clone();
        self.pending.clear();
        self.counts.iter_mut().for_each(|c| *c = [0; 5]);
        self.unsettled.iter_mut().for_each(|c| *c = 0);
        self.pointers.iter_mut().for_each(|p| *p = [0; 3]);
    }

    /// Registers of a page.
    pub fn page_registers(&self) -> u64 {
        self.page
    }

    /// The register at host address `a`.
    pub fn register(&self, a: u64) -> Option<&Register> {
        self.map.registers.iter().find(|r| r.offset == a)
    }

    /// Host address of function `f`'s register `name`.
    pub fn address(&self, f: usize, name: &str) -> u64 {
        self.map
            .get(&format!("f{f}_{name}"))
            .unwrap_or_else(|| panic!("no register f{f}_{name}"))
            .offset
    }

    /// The hardware's view of function `f`'s register `name` this cycle.
    fn seen(&self, f: usize, name: &str) -> u64 {
        self.visible[&self.address(f, name)]
    }

    /// Function `f` and its QP `q` are enabled (as the hardware sees it this cycle).
    pub fn live(&self, f: usize, q: usize) -> bool {
        self.seen(f, "enable") & 1 == 1 && (self.seen(f, &format!("qp{q}_key")) >> 32) & 1 == 1
    }

    /// Function `f` is enabled (as the hardware sees it this cycle).
    pub fn enabled(&self, f: usize) -> bool {
        self.seen(f, "enable") & 1 == 1
    }

    /// Weighted arbitration (`arb_mode` 1 or 3), byte-fair arbitration (`arb_mode` 0) and
    /// the weights, as the hardware sees them.
    pub fn arbitration(&self) -> (bool, bool, Vec<u64>) {
        let mode = self.visible[&self.map.get("arb_mode").expect("arb_mode").offset];
        let w = (0..self.functions)
            .map(|f| self.seen(f, "weight"))
            .collect();
        (mode & 1 == 1, mode & 3 == 0, w)
    }

    /// What access `a` does, by the isolation rules.
    pub fn decide(&self, a: &MmioAccess) -> Outcome {
        let f = a.function as usize;
        if f >= self.functions {
            return Outcome::Outside { function: None };
        }
        let r = a.offset / 8;
        let (limit, target) = if f == 0 {
            (self.functions as u64 * self.page + self.globals, r)
        } else {
            (self.page, f as u64 * self.page + r)
        };
        if r >= limit {
            return Outcome::Outside { function: Some(f) };
        }
        if !a.offset.is_multiple_of(8) {
            return Outcome::Misaligned { function: f };
        }
        let (page, within) = (target / self.page, target % self.page);
        let in_page = (page as usize) < self.functions;
        if a.write && f != 0 && in_page && self.privileged.contains(&within) {
            return Outcome::Privileged { function: f };
        }
        if a.write && in_page && within == 0 {
            let g = page as usize;
            return if self.enabled(g) {
                Outcome::Doorbell { function: g }
            } else {
                Outcome::Disabled { function: g }
            };
        }
        Outcome::Register { address: target }
    }

    /// Access `a` is taken on the edge ending cycle `now`: applies it and returns what a read
    /// must return (`None` for a write).
    pub fn accept(&mut self, now: u64, a: &MmioAccess) -> (Outcome, Option<Expect>) {
        let o = self.decide(a);
        let expect = match o {
            Outcome::Outside { function } => {
                if let Some(f) = function {
                    self.counts[f][OUTSIDE] += 1;
                }
                (!a.write).then_some(Expect::Exact(0, MmioStatus::Outside))
            }
            Outcome::Misaligned { function } => {
                self.unsettled[function] += 1;
                (!a.write).then_some(Expect::Exact(0, MmioStatus::Unmapped))
            }
            Outcome::Privileged { function } => {
                self.counts[function][PRIVILEGED] += 1;
                None
            }
            Outcome::Disabled { function } => {
                self.counts[function][DISABLED] += 1;
                None
            }
            Outcome::Doorbell { .. } => None,
            Outcome::Register { address } => {
                let f = a.function as usize;
                let reg = self.register(address).cloned();
                match (reg, a.write) {
                    (None, _) => {
                        self.unsettled[f] += 1;
                        (!a.write).then_some(Expect::Exact(0, MmioStatus::Unmapped))
                    }
                    (Some(r), true) => {
                        match r.access {
                            Access::ReadWrite => {
                                let v = a.data & r.mask();
                                self.values.insert(address, v);
                                self.pending.push_back((now + 2, address, v));
                            }
                            Access::ReadOnly => self.unsettled[f] += 1,
                            _ => panic!("the bench does not write counters at random ({})", r.name),
                        }
                        None
                    }
                    (Some(r), false) => Some(match r.access {
                        Access::ReadWrite => Expect::Exact(self.values[&address], MmioStatus::Ok),
                        Access::ReadOnly => Expect::Status(address),
                        Access::Counter => {
                            let (g, which) = self.counter_of(&r);
                            Expect::Counter {
                                function: g,
                                which,
                                low: self.counts[g][which],
                            }
                        }
                        Access::WriteOneToClear => unreachable!("no such registers"),
                    }),
                }
            }
        };
        (o, expect)
    }

    /// The function and position of counter register `r`.
    fn counter_of(&self, r: &Register) -> (usize, usize) {
        let (f, name) = r.name[1..].split_once('_').expect("f<n>_name");
        let which = COUNTERS.iter().position(|c| *c == name).expect("a counter");
        (f.parse().expect("function number"), which)
    }

    /// A doorbell refused for `f` by its full FIFO on this edge.
    pub fn overflow(&mut self, f: usize) {
        self.counts[f][OVERFLOWS] += 1;
    }

    /// The value of read-only register `address` this cycle, given the doorbell fills.
    pub fn status(&self, address: u64, fills: &[usize]) -> u64 {
        let r = self.register(address).expect("a register");
        let (f, name) = r.name[1..].split_once('_').expect("f<n>_name");
        let f: usize = f.parse().expect("function");
        if name == "doorbell" {
            return fills[f] as u64;
        }
        let (qp, rest) = name[2..].split_once('_').expect("qp<q>_...");
        let q: usize = qp.parse().expect("qp number");
        let ring = Ring::ALL
            .into_iter()
            .position(|x| rest.starts_with(x.prefix()))
            .expect("a ring register");
        self.pointers[f * self.qps + q][ring] as u64
    }

    /// The lookup's answer for a request in this cycle.
    pub fn lookup(&self, f: usize, q: usize) -> LookupAnswer {
        if f >= self.functions || q >= self.qps {
            return LookupAnswer::default();
        }
        let key = self.seen(f, &format!("qp{q}_key"));
        let mut rings = [[0u64; 4]; 3];
        for (i, r) in Ring::ALL.into_iter().enumerate() {
            let n = |s: &str| format!("qp{q}_{}_{s}", r.prefix());
            let nic = self.pointers[f * self.qps + q][i] as u64;
            let (producer, consumer) = if r.nic_produces() {
                (nic, self.seen(f, &n("consumer")))
            } else {
                (self.seen(f, &n("producer")), nic)
            };
            rings[i] = [
                self.seen(f, &n("base")),
                self.seen(f, &n("size")),
                producer,
                consumer,
            ];
        }
        LookupAnswer {
            owned: true,
            function_enabled: self.enabled(f),
            qp_enabled: (key >> 32) & 1 == 1,
            key: key & 0xffff_ffff,
            interrupt: (self.seen(f, "interrupts") >> q) & 1 == 1,
            rings,
        }
    }

    /// The edge ending cycle `now`, with the advances (function, QP, ring code) of both ports:
    /// pointers move by one if any advance names them (or are held at zero while disabled),
    /// then writes due become visible.
    pub fn edge(&mut self, now: u64, advances: &[(usize, usize, usize)]) {
        for f in 0..self.functions {
            for q in 0..self.qps {
                let live = self.live(f, q);
                for r in 0..3 {
                    let p = &mut self.pointers[f * self.qps + q][r];
                    if !live {
                        *p = 0;
                    } else if advances.contains(&(f, q, r)) {
                        *p = p.wrapping_add(1);
                    }
                }
            }
        }
        while self.pending.front().is_some_and(|p| p.0 <= now + 1) {
            let (_, a, v) = self.pending.pop_front().expect("due");
            self.visible.insert(a, v);
        }
    }

    /// After a drain: every pending invalid access has been counted.
    pub fn settle(&mut self) {
        for f in 0..self.functions {
            self.counts[f][INVALID] += std::mem::take(&mut self.unsettled[f]);
        }
    }

    /// Every register's value after a drain (RW: written values; counters: counts; RO: the
    /// hardware's), by host address.
    pub fn all_values(&self, fills: &[usize]) -> Vec<(u64, String, u64)> {
        self.map
            .by_offset()
            .into_iter()
            .map(|r| {
                let v = match r.access {
                    Access::ReadWrite => self.values[&r.offset],
                    Access::ReadOnly => self.status(r.offset, fills),
                    Access::Counter => {
                        let (f, k) = self.counter_of(r);
                        self.counts[f][k]
                    }
                    Access::WriteOneToClear => 0,
                };
                (r.offset, r.name.clone(), v)
            })
            .collect()
    }
}
