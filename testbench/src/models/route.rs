//! Reference models of `nrc::routing`, written from the blocks' documentation: the route
//! table ([`RouteTableModel`]), the choice of one output port ([`PortChoiceModel`]), and the
//! routing unit cycle by cycle at its ports ([`RouteUnitModel`]: one route-compute stage per
//! input port around one table, the management read one cycle behind `index`, a lookup seeing
//! a write made on its read edge).
use hdl::bits::index_bits;
use hdl::formats::flit::{HEAD_BIT, TYPE_BIT};
use hdl::formats::header::{DST, SRC};

/// The route table: per destination node the set of allowed output ports.
#[derive(Clone, Debug)]
pub struct RouteTableModel {
    entries: Vec<u64>,
}

impl RouteTableModel {
    /// An empty table (every entry zero: no route) of `nodes` entries.
    pub fn new(nodes: usize) -> Self {
        Self {
            entries: vec![0; nodes],
        }
    }
    /// Entries.
    pub fn nodes(&self) -> usize {
        self.entries.len()
    }
    /// Whether `node` has an entry.
    pub fn holds(&self, node: u64) -> bool {
        (node as usize) < self.entries.len()
    }
    /// The allowed ports of `node`; zero for a node beyond the table.
    pub fn entry(&self, node: u64) -> u64 {
        self.entries.get(node as usize).copied().unwrap_or(0)
    }
    /// Writes the entry of `node`; ignored beyond the table.
    pub fn write(&mut self, node: u64, ports: u64) {
        if let Some(e) = self.entries.get_mut(node as usize) {
            *e = ports;
        }
    }
}

/// One output port's state as a packet sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OutputState {
    /// Free credits of the packet's output VC downstream.
    pub credits: u64,
    /// Flits queued for the port.
    pub occupancy: u64,
}

/// How a choice was made (for the bench's statistics and checks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The port chosen.
    pub port: usize,
    /// The ports it was chosen among (adaptive: the allowed ports of the best score;
    /// deterministic: the allowed ports).
    pub pool: u64,
    /// Where the search for the first port of the pool started.
    pub start: usize,
}

/// `PortSelect`: adaptive (best score, ties by a rotating pointer) or deterministic (first
/// allowed port at or after `(src ^ dst) mod ports`, the XOR cut to `index_bits(ports)` bits).
#[derive(Clone, Debug)]
pub struct PortChoiceModel {
    ports: usize,
    state_bits: usize,
    /// The first port of the rotation (after the last one chosen).
    pointer: usize,
}

impl PortChoiceModel {
    /// The selector of `ports` ports with `state_bits`-bit credits and occupancy, after reset.
    pub fn new(ports: usize, state_bits: usize) -> Self {
        Self {
            ports,
            state_bits,
            pointer: 0,
        }
    }
    /// Reset: the rotation starts at port 0.
    pub fn reset(&mut self) {
        self.pointer = 0;
    }
    /// A port's score: free credits plus room (`2^S - 1 - occupancy`).
    pub fn score(&self, s: &OutputState) -> u64 {
        let max = (1u64 << self.state_bits) - 1;
        s.credits + (max - s.occupancy)
    }
    /// The deterministic start position of a flow.
    pub fn hash(&self, src: u64, dst: u64) -> usize {
        let low = (src ^ dst) & ((1u64 << index_bits(self.ports)) - 1);
        (low % self.ports as u64) as usize
    }
    /// The choice for `allowed` (a port bit set), `None` when it is empty.
    pub fn choose(
        &self,
        allowed: u64,
        states: &[OutputState],
        deterministic: bool,
        src: u64,
        dst: u64,
    ) -> Option<Choice> {
        if allowed == 0 {
            return None;
        }
        let is_allowed = |p: usize| allowed >> p & 1 == 1;
        let (pool, start) = if deterministic {
            (allowed, self.hash(src, dst))
        } else {
            let best = (0..self.ports)
                .filter(|&p| is_allowed(p))
                .map(|p| self.score(&states[p]))
                .max()
                .expect("a port is allowed");
            let pool = (0..self.ports)
                .filter(|&p| is_allowed(p) && self.score(&states[p]) == best)
                .fold(0, |m, p| m | 1 << p);
            (pool, self.pointer)
        };
        let in_pool = |p: &usize| pool >> p & 1 == 1;
        let port = (start..self.ports)
            .find(in_pool)
            .or_else(|| (0..self.ports).find(in_pool))
            .expect("the pool is not empty");
        Some(Choice { port, pool, start })
    }
    /// A choice was used: the rotation continues after it.
    pub fn advance(&mut self, port: usize) {
        self.pointer = (port + 1) % self.ports;
    }
}

/// A route as the routing unit offers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    /// The choice; `None` is "no route".
    pub choice: Option<Choice>,
    /// The head's entry.
    pub allowed: u64,
    /// The head's destination and source.
    pub dst: u64,
    /// Source node.
    pub src: u64,
}

/// One input's head this cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct HeadInput {
    /// `head.valid`.
    pub valid: bool,
    /// `head.flit` (65 bits).
    pub flit: u128,
}

impl HeadInput {
    /// The flit is a head flit (type bit 0, head bit 1).
    pub fn is_head(&self) -> bool {
        self.flit >> TYPE_BIT & 1 == 0 && self.flit >> HEAD_BIT & 1 == 1
    }
    /// The header's destination (whatever the flit is).
    pub fn dst(&self) -> u64 {
        DST.get(self.flit) as u64
    }
    /// The header's source.
    pub fn src(&self) -> u64 {
        SRC.get(self.flit) as u64
    }
}

/// The management side's inputs in one cycle (the register file's outputs).
#[derive(Clone, Copy, Debug, Default)]
pub struct ManagementInput {
    /// `index`.
    pub index: u64,
    /// `ports`.
    pub ports: u64,
    /// `write`.
    pub write: bool,
}

/// One route-compute stage's state.
#[derive(Clone, Debug)]
struct Stage {
    /// The node looked up on the last edge (the RAM reads every cycle).
    looked_up: u64,
    /// A head taken on the last edge: (src, dst).
    routing: Option<(u64, u64)>,
    choice: PortChoiceModel,
}

/// `RouteUnit` at its ports, cycle by cycle.
#[derive(Clone, Debug)]
pub struct RouteUnitModel {
    /// The table.
    pub table: RouteTableModel,
    stages: Vec<Stage>,
    /// The management index of the last cycle (what `read` shows).
    last_index: u64,
}

impl RouteUnitModel {
    /// A unit of `ports` ports, `state_bits` state bits and a `nodes`-entry table at power-up
    /// (table empty, every register zero).
    pub fn new(ports: usize, state_bits: usize, nodes: usize) -> Self {
        Self {
            table: RouteTableModel::new(nodes),
            stages: (0..ports)
                .map(|_| Stage {
                    looked_up: 0,
                    routing: None,
                    choice: PortChoiceModel::new(ports, state_bits),
                })
                .collect(),
            last_index: 0,
        }
    }
    /// `management.read` this cycle.
    pub fn read(&self) -> u64 {
        self.table.entry(self.last_index)
    }
    /// The management index of the last cycle.
    pub fn last_index(&self) -> u64 {
        self.last_index
    }
    /// The route offered by input `i` this cycle, `None` when `route.valid` is low.
    pub fn route(&self, i: usize, states: &[OutputState], deterministic: bool) -> Option<Route> {
        let s = &self.stages[i];
        s.routing.map(|(src, dst)| {
            let allowed = self.table.entry(s.looked_up);
            Route {
                choice: s.choice.choose(allowed, states, deterministic, src, dst),
                allowed,
                dst,
                src,
            }
        })
    }
    /// The choice model of input `i` (for the bench's own checks).
    pub fn chooser(&self, i: usize) -> &PortChoiceModel {
        &self.stages[i].choice
    }
    /// Whether the management write of this cycle hits the entry input `i` reads on this
    /// edge (a race the table resolves to the new entry).
    pub fn races(&self, i: usize, heads: &[HeadInput], m: &ManagementInput) -> bool {
        m.write && self.table.holds(m.index) && heads[i].dst() == m.index
    }
    /// One clock edge. `routes` are the routes offered in the cycle ending (from
    /// [`RouteUnitModel::route`]): a choice used moves that input's rotation.
    pub fn edge(
        &mut self,
        reset: bool,
        management: &ManagementInput,
        heads: &[HeadInput],
        routes: &[Option<Route>],
    ) {
        for (s, r) in self.stages.iter_mut().zip(routes) {
            if let Some(c) = r.as_ref().and_then(|r| r.choice.as_ref()) {
                s.choice.advance(c.port);
            }
            if reset {
                s.choice.reset();
            }
        }
        if management.write {
            self.table.write(management.index, management.ports);
        }
        self.last_index = management.index;
        for (s, h) in self.stages.iter_mut().zip(heads) {
            s.looked_up = h.dst();
            s.routing = (h.valid && h.is_head() && !reset).then(|| (h.src(), h.dst()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(credits: u64, occupancy: u64) -> OutputState {
        OutputState { credits, occupancy }
    }

    #[test]
    fn adaptive_takes_the_best_and_rotates_ties() {
        let mut m = PortChoiceModel::new(5, 3);
        let states = [st(1, 0), st(7, 7), st(3, 0), st(3, 0), st(0, 0)];
        // Scores 8, 7, 10, 10, 7: ports 2 and 3 tie.
        let c = m.choose(0b11111, &states, false, 0, 0).unwrap();
        assert_eq!((c.port, c.pool), (2, 0b01100));
        m.advance(c.port);
        assert_eq!(m.choose(0b11111, &states, false, 0, 0).unwrap().port, 3);
        m.advance(3);
        assert_eq!(m.choose(0b11111, &states, false, 0, 0).unwrap().port, 2);
        // Only worse ports allowed: the best of them (0 scores 8, 1 scores 7).
        assert_eq!(m.choose(0b00011, &states, false, 0, 0).unwrap().port, 0);
        // Ports 1 and 4 tie at 7: the first at or after the rotation (after 3) wins.
        assert_eq!(m.choose(0b10010, &states, false, 0, 0).unwrap().port, 4);
        assert_eq!(m.choose(0, &states, false, 0, 0), None);
    }

    #[test]
    fn deterministic_starts_at_the_flow_hash() {
        let m = PortChoiceModel::new(5, 3);
        // (6 ^ 0) & 7 = 6, mod 5 = 1.
        assert_eq!(m.hash(6, 0), 1);
        let s = [OutputState::default(); 5];
        assert_eq!(m.choose(0b10001, &s, true, 6, 0).unwrap().port, 4);
        assert_eq!(m.choose(0b00001, &s, true, 6, 0).unwrap().port, 0);
        assert_eq!(m.choose(0b00010, &s, true, 6, 0).unwrap().port, 1);
    }
}
