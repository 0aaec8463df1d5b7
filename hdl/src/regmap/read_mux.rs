//! The read multiplexer of a register file: `values[i]` where `selects[i]` is high, as a
//! balanced AND-OR tree (the selects are one-hot, or all low for an unmapped address, which
//! reads zero).
//!
//! Why a tree of ORs over `select & value` and not a chain of `if`s or a binary-index mux: a
//! chain of `if (select_i) value = values_i` becomes a `N`-deep priority chain in Yosys, and a
//! binary index costs an encoder level; the AND-OR needs no priority (the selects are one-hot)
//! and its depth is `log4(N)` LUT levels on iCE40 (see [`StreamMux`](crate::arb::StreamMux),
//! where the tree saved one LUT per bit over the chain).
//!
//! Besides the value it gives `any` (some select is high: the address is mapped) and `marked`
//! (the high select is one of the inputs marked at elaboration: the register file marks its
//! read-only registers), from a 2-bit tree alongside, so the response's error code comes from
//! the same registered selects as its data.
//!
//! Parameters: `D` data bits; the number of inputs and which are marked are given to
//! [`ReadMux::new`] (zero inputs: `value` is zero, `any` low).
use rust_hdl::prelude::*;

/// One of `N` values, by one-hot select.
#[derive(LogicBlock)]
pub struct ReadMux<const D: usize> {
    /// One-hot (or all low): which value to read.
    pub selects: Vec<Signal<In, bool>>,
    /// The values.
    pub values: Vec<Signal<In, Bits<D>>>,
    /// The selected value (zero if no select is high).
    pub value: Signal<Out, Bits<D>>,
    /// Some select is high.
    pub any: Signal<Out, bool>,
    /// The high select is a marked input.
    pub marked: Signal<Out, bool>,
    /// Heap-ordered OR tree: node `k` ORs nodes `2k + 1` and `2k + 2`; the leaves (from
    /// `leaves - 1`) are the inputs under their selects, zero past the last input; node 0 is
    /// `value`.
    tree: Vec<Signal<Local, Bits<D>>>,
    /// The same tree over each input's tag (bit 0: selected; bit 1: selected and marked).
    tags: Vec<Signal<Local, Bits<2>>>,
    /// Input `i`'s tag when selected: `0b01`, or `0b11` if marked.
    tag_of: Vec<Constant<Bits<2>>>,
    zero: Constant<Bits<D>>,
    no_tag: Constant<Bits<2>>,
    /// Leaves of the tree: the inputs rounded up to a power of two (at least 1).
    _leaves: usize,
}

impl<const D: usize> ReadMux<D> {
    /// A mux of `marks.len()` inputs; `marks[i]` marks input `i`.
    pub fn new(marks: &[bool]) -> Self {
        let n = marks.len();
        let leaves = n.max(1).next_power_of_two();
        Self {
            selects: (0..n).map(|_| Default::default()).collect(),
            values: (0..n).map(|_| Default::default()).collect(),
            value: Default::default(),
            any: Default::default(),
            marked: Default::default(),
            tree: (0..(2 * leaves - 1)).map(|_| Default::default()).collect(),
            tags: (0..(2 * leaves - 1)).map(|_| Default::default()).collect(),
            tag_of: marks
                .iter()
                .map(|&m| Constant::new(Bits::<2>::from(if m { 3u64 } else { 1 })))
                .collect(),
            zero: Constant::new(Bits::<D>::default()),
            no_tag: Constant::new(Bits::<2>::default()),
            _leaves: leaves,
        }
    }
}

impl<const D: usize> Logic for ReadMux<D> {
    #[hdl_gen]
    fn update(&mut self) {
        // Leaves first, then the inner nodes from the last to the root (`top - j`: index
        // expressions may only use loop variables, hence the one-iteration loops).
        for leaf in (self._leaves - 1)..self._leaves {
            for i in 0..self._leaves {
                self.tree[leaf + i].next = self.zero.val();
                self.tags[leaf + i].next = self.no_tag.val();
            }
            for i in 0..self.values.len() {
                if self.selects[i].val() {
                    self.tree[leaf + i].next = self.values[i].val();
                    self.tags[leaf + i].next = self.tag_of[i].val();
                }
            }
        }
        for top in (self._leaves.max(2) - 2)..(self._leaves.max(2) - 1) {
            for j in 0..(self._leaves - 1) {
                self.tree[top - j].next =
                    self.tree[2 * (top - j) + 1].val() | self.tree[2 * (top - j) + 2].val();
                self.tags[top - j].next =
                    self.tags[2 * (top - j) + 1].val() | self.tags[2 * (top - j) + 2].val();
            }
        }
        self.value.next = self.tree[0].val();
        self.any.next = self.tags[0].val().get_bit(0);
        self.marked.next = self.tags[0].val().get_bit(1);
    }
}

#[test]
fn read_mux_is_synthesizable() {
    for n in [0, 1, 3, 8] {
        let marks: Vec<bool> = (0..n).map(|i| i % 2 == 1).collect();
        let mut uut = ReadMux::<16>::new(&marks);
        uut.connect_all();
        yosys_validate(&format!("read_mux_{n}"), &generate_verilog(&uut)).unwrap();
    }
}
