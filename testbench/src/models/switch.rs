//! Cycle-exact model of `nrc::switch::Switch` (and of its allocator, output units and agent
//! ports): the same eligibility, starving marks, round-robin matching with iterations, credit
//! counters, VC ownership and output register, step by step as the module docs state them.
//!
//! Per cycle: [`SwitchModel::allocate`] computes from the inputs' requests and the agent ports'
//! fronts what the hardware grants combinationally; [`SwitchModel::edge`] applies the clock
//! edge (with the flits that moved and the credits returned). The outputs of the cycle are
//! read from the model's registers ([`SwitchModel::channel`], [`SwitchModel::credits`], ...).
use hdl::formats::header::LEN;

/// Sizes and elaboration values.
#[derive(Clone, Copy, Debug)]
pub struct SwitchShape {
    /// Ports.
    pub ports: usize,
    /// VCs per link.
    pub vcs: usize,
    /// Credits per downstream VC after reset.
    pub reserve: usize,
    /// Longest packet.
    pub max_len: usize,
    /// VC of the agent's packets.
    pub mgmt_vc: usize,
    /// Allocator iterations.
    pub iterations: usize,
}

/// One input port's request in a cycle (per VC).
#[derive(Clone, Debug, Default)]
pub struct InputRequest {
    /// Per VC: ready, head, last.
    pub ready: Vec<bool>,
    /// See `ready`.
    pub head: Vec<bool>,
    /// See `ready`.
    pub last: Vec<bool>,
    /// Per VC: output port number (as poked, may be out of range).
    pub port: Vec<usize>,
    /// Per VC: output VC number.
    pub out_vc: Vec<usize>,
    /// Per VC: `len`.
    pub len: Vec<usize>,
}

/// Who an output granted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Winner {
    /// Input `i`, its VC `v`.
    Input(usize, usize),
    /// The output's agent port.
    Agent,
}

/// An output's send in a cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Send {
    /// Who.
    pub winner: Winner,
    /// Output VC.
    pub vc: usize,
    /// A head.
    pub head: bool,
    /// Ends its packet.
    pub last: bool,
}

/// What the allocator decides in a cycle.
#[derive(Clone, Debug, Default)]
pub struct Allocation {
    /// Per input: the VC granted.
    pub input_grants: Vec<Option<usize>>,
    /// Per output: its send.
    pub sends: Vec<Option<Send>>,
    /// Per input: eligible VCs (bit `v`).
    pub eligible: Vec<u32>,
    /// Per output: the agent port eligible.
    pub agent_eligible: Vec<bool>,
    /// Per output: refused VCs (bit `w`).
    refusals: Vec<u32>,
    /// Pointer updates: per input, per output.
    input_after: Vec<Option<u64>>,
    output_after: Vec<Option<u64>>,
}

/// The round-robin choice: lowest request inside `mask`, else lowest; the positions after it.
pub fn rr_pick(requests: u64, mask: u64, n: usize) -> Option<(usize, u64)> {
    let masked = requests & mask;
    let x = if masked != 0 { masked } else { requests };
    if x == 0 {
        return None;
    }
    let k = x.trailing_zeros() as usize;
    let full = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    let above = if k + 1 >= 64 { 0 } else { u64::MAX << (k + 1) };
    Some((k, above & full))
}

/// A sender-side credit counter as `hdl::credit_counter::CreditCounter` behaves.
#[derive(Clone, Debug)]
struct Counter {
    capacity: usize,
    used: usize,
    error: bool,
}

impl Counter {
    fn available(&self) -> usize {
        self.capacity - self.used
    }
    fn edge(&mut self, consume: bool, returned: bool) {
        let take = consume && self.used != self.capacity;
        if consume && !take {
            self.error = true;
        }
        let rest = self.used as i64 - returned as i64 + take as i64;
        if rest < 0 {
            self.used = 0;
            self.error = true;
        } else {
            self.used = rest as usize;
        }
    }
}

/// The switch's state.
#[derive(Clone, Debug)]
pub struct SwitchModel {
    /// Shape.
    pub s: SwitchShape,
    counters: Vec<Vec<Counter>>,
    owned: Vec<u32>,
    starving: Vec<u32>,
    input_masks: Vec<u64>,
    output_masks: Vec<u64>,
    /// Per output: the agent port is inside a packet.
    pub inside: Vec<bool>,
    /// Per output: the output register (valid, flit, vc, last).
    regs: Vec<(bool, u128, usize, bool)>,
}

impl SwitchModel {
    /// The state after reset.
    pub fn new(s: SwitchShape) -> Self {
        let mut m = Self {
            s,
            counters: vec![],
            owned: vec![],
            starving: vec![],
            input_masks: vec![],
            output_masks: vec![],
            inside: vec![],
            regs: vec![],
        };
        m.reset();
        m
    }

    /// Synchronous reset (the flit and VC registers load zero, as the hardware's do when
    /// nothing is granted).
    pub fn reset(&mut self) {
        let s = self.s;
        self.counters = vec![
            vec![
                Counter {
                    capacity: s.reserve,
                    used: 0,
                    error: false
                };
                s.vcs
            ];
            s.ports
        ];
        self.owned = vec![0; s.ports];
        self.starving = vec![0; s.ports];
        self.input_masks = vec![0; s.ports];
        self.output_masks = vec![0; s.ports];
        self.inside = vec![false; s.ports];
        self.regs = vec![(false, 0, 0, false); s.ports];
    }

    /// Free credits of output `p`'s VC `w`.
    pub fn credit(&self, p: usize, w: usize) -> usize {
        self.counters[p][w].available()
    }
    /// Output `p`'s `credits` port (VC `w` at bits `w * 8`).
    pub fn credits(&self, p: usize) -> u128 {
        (0..self.s.vcs).fold(0, |a, w| a | (self.credit(p, w) as u128) << (8 * w))
    }
    /// Output `p`'s `free` port.
    pub fn free(&self, p: usize) -> u32 {
        !self.owned[p] & ((1 << self.s.vcs) - 1)
    }
    /// Output `p`'s channel: (valid, flit, vc).
    pub fn channel(&self, p: usize) -> (bool, u128, usize) {
        let r = self.regs[p];
        (r.0, r.1, r.2)
    }
    /// `flits_out`, `packets_out`, `errors` as bit masks.
    pub fn events(&self) -> (u32, u32, u32) {
        let mut e = (0, 0, 0);
        for p in 0..self.s.ports {
            e.0 |= (self.regs[p].0 as u32) << p;
            e.1 |= (self.regs[p].3 as u32) << p;
            e.2 |= (self.counters[p].iter().any(|c| c.error) as u32) << p;
        }
        e
    }
    /// Output `p`'s VC `w` is marked starving.
    pub fn starving(&self, p: usize, w: usize) -> bool {
        self.starving[p] >> w & 1 == 1
    }

    /// The allocator's decision for this cycle. `agents[p]`: the agent port's front flit and
    /// its `last`, if valid. `reset`: nothing is granted.
    pub fn allocate(
        &self,
        inputs: &[InputRequest],
        agents: &[Option<(u128, bool)>],
        reset: bool,
    ) -> Allocation {
        let s = self.s;
        let mut a = Allocation {
            input_grants: vec![None; s.ports],
            sends: vec![None; s.ports],
            eligible: vec![0; s.ports],
            agent_eligible: vec![false; s.ports],
            refusals: vec![0; s.ports],
            input_after: vec![None; s.ports],
            output_after: vec![None; s.ports],
        };
        for (i, r) in inputs.iter().enumerate() {
            for v in 0..s.vcs {
                let (p, w) = (r.port[v], r.out_vc[v]);
                let in_range = p < s.ports && w < s.vcs;
                let (credits, free, starved) = if in_range {
                    (
                        self.credit(p, w),
                        self.owned[p] >> w & 1 == 0,
                        self.starving(p, w),
                    )
                } else {
                    (0, false, false)
                };
                let need = if starved { s.max_len } else { r.len[v] };
                if r.ready[v] && in_range && (!r.head[v] || (free && credits >= need)) {
                    a.eligible[i] |= 1 << v;
                }
                if r.ready[v] && r.head[v] && in_range && free && credits < r.len[v] {
                    a.refusals[p] |= 1 << w;
                }
            }
        }
        let m = s.mgmt_vc;
        for p in 0..s.ports {
            if let Some((flit, _)) = agents[p] {
                let head = !self.inside[p];
                let len = LEN.get(flit) as usize;
                let len = len.clamp(1, s.max_len);
                let need = if self.starving(p, m) { s.max_len } else { len };
                let credits = self.credit(p, m);
                let free = self.owned[p] >> m & 1 == 0;
                a.agent_eligible[p] = credits > 0 && (!head || (free && credits >= need));
                if head && free && credits < len {
                    a.refusals[p] |= 1 << m;
                }
            }
        }
        if reset {
            return a;
        }
        // Matching.
        let mut matched_in = vec![false; s.ports];
        let mut matched_out = vec![false; s.ports];
        let mut winners: Vec<Option<Winner>> = vec![None; s.ports];
        for _ in 0..s.iterations {
            let mut picks = vec![None; s.ports];
            for i in 0..s.ports {
                if matched_in[i] {
                    continue;
                }
                let mut cand = 0u64;
                for v in 0..s.vcs {
                    let p = inputs[i].port[v];
                    let blocked = p < s.ports && matched_out[p];
                    if a.eligible[i] >> v & 1 == 1 && !blocked {
                        cand |= 1 << v;
                    }
                }
                picks[i] = rr_pick(cand, self.input_masks[i], s.vcs);
            }
            for p in 0..s.ports {
                if matched_out[p] {
                    continue;
                }
                let mut req = 0u64;
                for i in 0..s.ports {
                    if let Some((v, _)) = picks[i] {
                        if inputs[i].port[v] == p {
                            req |= 1 << i;
                        }
                    }
                }
                if a.agent_eligible[p] {
                    req |= 1 << s.ports;
                }
                if let Some((g, after)) = rr_pick(req, self.output_masks[p], s.ports + 1) {
                    matched_out[p] = true;
                    a.output_after[p] = Some(after);
                    if g == s.ports {
                        winners[p] = Some(Winner::Agent);
                    } else {
                        let (v, in_after) = picks[g].unwrap();
                        matched_in[g] = true;
                        a.input_grants[g] = Some(v);
                        // Packet by packet: the pointer stays on the VC until its last flit.
                        a.input_after[g] = Some(if inputs[g].last[v] {
                            in_after
                        } else {
                            in_after | 1 << v
                        });
                        winners[p] = Some(Winner::Input(g, v));
                    }
                }
            }
        }
        for p in 0..s.ports {
            a.sends[p] = winners[p].map(|w| match w {
                Winner::Input(i, v) => Send {
                    winner: w,
                    vc: inputs[i].out_vc[v],
                    head: inputs[i].head[v],
                    last: inputs[i].last[v],
                },
                Winner::Agent => Send {
                    winner: w,
                    vc: m,
                    head: !self.inside[p],
                    last: agents[p].unwrap().1,
                },
            });
        }
        a
    }

    /// The clock edge: `a` is this cycle's allocation, `flits[p]` the flit output `p` sends
    /// (the granted input's or agent's), `returned[p]` bit `w` a credit back on VC `w`.
    pub fn edge(&mut self, a: &Allocation, flits: &[u128], returned: &[u32], reset: bool) {
        if reset {
            self.reset();
            return;
        }
        let s = self.s;
        for i in 0..s.ports {
            if let Some(m) = a.input_after[i] {
                self.input_masks[i] = m;
            }
        }
        for p in 0..s.ports {
            if let Some(m) = a.output_after[p] {
                self.output_masks[p] = m;
            }
            let send = a.sends[p];
            // A refusal marks the VC only when another head takes it in the same cycle.
            let taken = send.filter(|x| x.head).map_or(0, |x| 1u32 << x.vc);
            self.starving[p] = (self.starving[p] & !taken) | (a.refusals[p] & taken);
            for w in 0..s.vcs {
                let consume = send.is_some_and(|x| x.vc == w);
                self.counters[p][w].edge(consume, returned[p] >> w & 1 == 1);
            }
            match send {
                Some(x) => {
                    if x.head {
                        self.owned[p] |= 1 << x.vc;
                    }
                    if x.last {
                        self.owned[p] &= !(1 << x.vc);
                    }
                    if x.winner == Winner::Agent {
                        self.inside[p] = !x.last;
                    }
                    self.regs[p] = (true, flits[p], x.vc, x.last);
                }
                None => self.regs[p] = (false, 0, 0, false),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rr_pick_follows_the_pointer() {
        assert_eq!(rr_pick(0b1010, 0, 4), Some((1, 0b1100)));
        assert_eq!(rr_pick(0b1010, 0b1100, 4), Some((3, 0)));
        assert_eq!(rr_pick(0b0010, 0b1100, 4), Some((1, 0b1100)));
        assert_eq!(rr_pick(0, 0b1100, 4), None);
    }
}
