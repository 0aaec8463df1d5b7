//! `PortSelect`: picks one output port for a head out of its allowed set, from the state of
//! every output port. Combinational, plus one rotating-priority register.
//!
//! **Adaptive** (`deterministic` low): each port's score is its free credits plus its room,
//! `credits + (2^S - 1 - occupancy)` (so: most free credits on the packet's output VC
//! downstream, less the flits already queued for the port; `S + 1` bits, never overflowing).
//! The choice is an allowed port of the highest score; among several of equal score, the
//! first at or after a rotating pointer, which moves past every port chosen (so equal ports
//! take turns: fair under ties, e.g. all idle). The pointer starts at port 0 after reset.
//!
//! **Deterministic** (`deterministic` high): the first allowed port at or after port
//! `h = (src XOR dst) mod PORTS`, where the XOR is cut to its low `W` bits (`W = clog2(PORTS)`
//! bits, so one subtraction of `PORTS` makes the modulo). The output state is ignored and a
//! flow (source, destination) always takes the same port while its entry does not change,
//! so packets of a flow stay in order; flows that differ in the low bits of their node IDs
//! spread over the allowed ports (D-mod-k routing when node IDs number hosts in their low
//! bits). The pointer still moves past each choice, unused in this mode.
//!
//! **No route**: an empty `allowed` gives `none` high and `choice`, `choice_index` zero.
//!
//! Timing: `choice`, `choice_index`, `none` are combinational from the inputs and the
//! pointer. The pointer moves on an edge where `advance` is high and `none` is low (a choice
//! was used); synchronous `reset` puts it back to port 0.
//!
//! Parameters: `PORTS` output ports (2..=64); `W` = `index_bits(PORTS)`; `S` bits of a port's
//! credits and occupancy (1..=31); `SW` = `S + 1` (score width); `PS` = `PORTS * S` (the packed
//! state buses). Checked by [`PortSelect::new`], naming the parameter.
use super::{defaults, OutputStatesSink, NODE_BITS};
use rust_hdl::prelude::*;

/// Choice of one output port; see the module documentation.
#[derive(LogicBlock)]
pub struct PortSelect<
    const PORTS: usize,
    const W: usize,
    const S: usize,
    const SW: usize,
    const PS: usize,
> {
    /// Clock of the rotating pointer.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: pointer to port 0.
    pub reset: Signal<In, bool>,
    /// The allowed output ports (the table's entry).
    pub allowed: Signal<In, Bits<PORTS>>,
    /// Every output port's state, as the packet sees it.
    pub states: OutputStatesSink<PS>,
    /// Deterministic choice (else adaptive).
    pub deterministic: Signal<In, bool>,
    /// The head's source node (deterministic hash).
    pub src: Signal<In, Bits<NODE_BITS>>,
    /// The head's destination node (deterministic hash).
    pub dst: Signal<In, Bits<NODE_BITS>>,
    /// The choice is used on this edge (moves the pointer).
    pub advance: Signal<In, bool>,
    /// The chosen port, one-hot; zero when `none`.
    pub choice: Signal<Out, Bits<PORTS>>,
    /// The chosen port's number; zero when `none`.
    pub choice_index: Signal<Out, Bits<W>>,
    /// No port is allowed.
    pub none: Signal<Out, bool>,
    /// Ports after the last one chosen (a thermometer; empty = from port 0).
    after: DFF<Bits<PORTS>>,
    /// Port `p`'s state starts at bit `p * S` of the packed buses.
    offsets: Vec<Constant<Bits<NODE_BITS>>>,
    /// The packed buses shifted down to port `p`.
    credits_at: Vec<Signal<Local, Bits<PS>>>,
    occupancy_at: Vec<Signal<Local, Bits<PS>>>,
    /// Port `p`'s free credits and room (`2^S - 1 - occupancy`), `SW` bits.
    credit: Vec<Signal<Local, Bits<SW>>>,
    room: Vec<Signal<Local, Bits<SW>>>,
    score: Vec<Signal<Local, Bits<SW>>>,
    /// Maximum tree: leaves `0..LEAVES` (allowed ports' scores, zero elsewhere), node
    /// `LEAVES + k` the larger of nodes `2k` and `2k + 1`, the root last.
    tree: Vec<Signal<Local, Bits<SW>>>,
    best: Signal<Local, Bits<SW>>,
    /// Allowed ports of the best score.
    candidates: Signal<Local, Bits<PORTS>>,
    flow: Signal<Local, Bits<NODE_BITS>>,
    raw_hash: Signal<Local, Bits<W>>,
    hash: Signal<Local, Bits<W>>,
    /// Ports at or after the starting position (thermometer).
    start: Signal<Local, Bits<PORTS>>,
    /// The ports to choose from, those at or after `start`, and the set the lowest is taken of.
    pool: Signal<Local, Bits<PORTS>>,
    preferred: Signal<Local, Bits<PORTS>>,
    from: Signal<Local, Bits<PORTS>>,
    /// `2^S - 1` in `SW` bits.
    state_mask: Constant<Bits<SW>>,
    zero_score: Constant<Bits<SW>>,
    one: Constant<Bits<PORTS>>,
    ones: Constant<Bits<PORTS>>,
    empty: Constant<Bits<PORTS>>,
    /// `PORTS - 1` and `2^W - PORTS` (mod `2^W`): the modulo of the hash.
    last: Constant<Bits<W>>,
    wrap: Constant<Bits<W>>,
    /// Port numbers, for the one-hot to binary encoder.
    numbers: Vec<Constant<Bits<W>>>,
    zero_index: Constant<Bits<W>>,
    /// Leaves of the tree (`PORTS` rounded up to a power of two) and the root's position.
    _leaves: usize,
    _root: usize,
}

impl<const PORTS: usize, const W: usize, const S: usize, const SW: usize, const PS: usize>
    PortSelect<PORTS, W, S, SW, PS>
{
    /// The selector. Panics naming the parameter if the generics disagree (see the module
    /// documentation).
    pub fn new() -> Self {
        assert!(
            (2..=64).contains(&PORTS),
            "PortSelect: PORTS must be 2..=64, got {PORTS}"
        );
        assert!(
            W == hdl::bits::index_bits(PORTS),
            "PortSelect<PORTS = {PORTS}, W = {W}>: W must be index_bits(PORTS) = {}",
            hdl::bits::index_bits(PORTS)
        );
        assert!(
            (1..=31).contains(&S),
            "PortSelect: S must be 1..=31, got {S}"
        );
        assert!(
            SW == S + 1,
            "PortSelect<S = {S}, SW = {SW}>: SW (score bits) must be S + 1 = {}",
            S + 1
        );
        assert!(
            PS == PORTS * S,
            "PortSelect<PORTS = {PORTS}, S = {S}, PS = {PS}>: PS (packed state bits) must be PORTS * S = {}",
            PORTS * S
        );
        let leaves = PORTS.next_power_of_two();
        Self {
            clock: Default::default(),
            reset: Default::default(),
            allowed: Default::default(),
            states: Default::default(),
            deterministic: Default::default(),
            src: Default::default(),
            dst: Default::default(),
            advance: Default::default(),
            choice: Default::default(),
            choice_index: Default::default(),
            none: Default::default(),
            after: Default::default(),
            offsets: (0..PORTS)
                .map(|p| Constant::new(Bits::from((p * S) as u64)))
                .collect(),
            credits_at: defaults(PORTS),
            occupancy_at: defaults(PORTS),
            credit: defaults(PORTS),
            room: defaults(PORTS),
            score: defaults(PORTS),
            tree: defaults(2 * leaves - 1),
            best: Default::default(),
            candidates: Default::default(),
            flow: Default::default(),
            raw_hash: Default::default(),
            hash: Default::default(),
            start: Default::default(),
            pool: Default::default(),
            preferred: Default::default(),
            from: Default::default(),
            state_mask: Constant::new(Bits::from((1u64 << S) - 1)),
            zero_score: Constant::new(Bits::default()),
            one: Constant::new(Bits::from(1u64)),
            ones: Constant::new(Bits::from(u64::MAX >> (64 - PORTS))),
            empty: Constant::new(Bits::default()),
            last: Constant::new(Bits::from((PORTS - 1) as u64)),
            wrap: Constant::new(Bits::from((((1usize << W) - PORTS) % (1 << W)) as u64)),
            numbers: (0..PORTS)
                .map(|p| Constant::new(Bits::from(p as u64)))
                .collect(),
            zero_index: Constant::new(Bits::default()),
            _leaves: leaves,
            _root: 2 * leaves - 2,
        }
    }
}

impl<const PORTS: usize, const W: usize, const S: usize, const SW: usize, const PS: usize> Default
    for PortSelect<PORTS, W, S, SW, PS>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const PORTS: usize, const W: usize, const S: usize, const SW: usize, const PS: usize> Logic
    for PortSelect<PORTS, W, S, SW, PS>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, after);
        // Adaptive: every port's score, the best among the allowed, the ports that have it.
        for p in 0..PORTS {
            self.credits_at[p].next = self.states.credits.val() >> self.offsets[p].val();
            self.occupancy_at[p].next = self.states.occupancy.val() >> self.offsets[p].val();
            self.credit[p].next =
                self.credits_at[p].val().get_bits::<SW>(0) & self.state_mask.val();
            self.room[p].next = self.state_mask.val()
                ^ (self.occupancy_at[p].val().get_bits::<SW>(0) & self.state_mask.val());
            self.score[p].next = self.credit[p].val() + self.room[p].val();
            self.tree[p].next = self.zero_score.val();
            if self.allowed.val().get_bit(p) {
                self.tree[p].next = self.score[p].val();
            }
        }
        for p in PORTS..self._leaves {
            self.tree[p].next = self.zero_score.val();
        }
        for base in self._leaves..(self._leaves + 1) {
            for k in 0..(self._leaves - 1) {
                self.tree[base + k].next = self.tree[2 * k + 1].val();
                if self.tree[2 * k].val() > self.tree[2 * k + 1].val() {
                    self.tree[base + k].next = self.tree[2 * k].val();
                }
            }
        }
        for r in self._root..(self._root + 1) {
            self.best.next = self.tree[r].val();
        }
        self.candidates.next = self.empty.val();
        for p in 0..PORTS {
            if self.allowed.val().get_bit(p) & (self.score[p].val() == self.best.val()) {
                self.candidates.next = self.candidates.val().replace_bit(p, true);
            }
        }
        // Deterministic: the start position from the flow's hash, modulo PORTS.
        self.flow.next = self.src.val() ^ self.dst.val();
        self.raw_hash.next = self.flow.val().get_bits::<W>(0);
        self.hash.next = self.raw_hash.val();
        if self.raw_hash.val() > self.last.val() {
            self.hash.next = self.raw_hash.val() + self.wrap.val();
        }
        // The first port of the pool at or after the start, else the first of the pool.
        self.pool.next = self.candidates.val();
        self.start.next = self.after.q.val();
        if self.deterministic.val() {
            self.pool.next = self.allowed.val();
            self.start.next = self.ones.val() << self.hash.val();
        }
        self.preferred.next = self.pool.val() & self.start.val();
        self.from.next = self.pool.val();
        if self.preferred.val().any() {
            self.from.next = self.preferred.val();
        }
        self.choice.next = self.from.val() & (!self.from.val() + self.one.val());
        self.none.next = !self.allowed.val().any();
        self.choice_index.next = self.zero_index.val();
        for p in 0..PORTS {
            if self.choice.val().get_bit(p) {
                self.choice_index.next = self.choice_index.val() | self.numbers[p].val();
            }
        }
        // The pointer moves past the port chosen: the ports above it.
        if self.advance.val() & !self.none.val() {
            self.after.d.next = !(self.choice.val() | (self.choice.val() - self.one.val()));
        }
        if self.reset.val() {
            self.after.d.next = self.empty.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_select_is_synthesizable() {
        let mut uut = PortSelect::<5, 3, 7, 8, 35>::new();
        uut.connect_all();
        yosys_validate("port_select", &generate_verilog(&uut)).unwrap();
        let mut uut = PortSelect::<4, 2, 3, 4, 12>::new();
        uut.connect_all();
        yosys_validate("port_select_4", &generate_verilog(&uut)).unwrap();
    }

    #[test]
    #[should_panic(expected = "PortSelect<S = 7, SW = 7>: SW (score bits) must be S + 1 = 8")]
    fn port_select_rejects_narrow_score() {
        let _ = PortSelect::<5, 3, 7, 7, 35>::new();
    }

    #[test]
    #[should_panic(expected = "PortSelect<PORTS = 5, W = 2>: W must be index_bits(PORTS) = 3")]
    fn port_select_rejects_wrong_index_width() {
        let _ = PortSelect::<5, 2, 7, 8, 35>::new();
    }
}
