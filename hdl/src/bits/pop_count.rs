//! Population count: the number of ones in an `N`-bit vector, combinational.
//!
//! The ones are summed by a balanced tree of adders (in heap order, as
//! [`StreamMux`](crate::arb::StreamMux) writes its AND-OR tree), so the depth grows with
//! `log2(N)` rather than `N`. Every node is `W` bits wide; synthesis trims the bits a node can
//! never reach (a node over `k` leaves needs `count_bits(k)`), and no node can overflow since
//! the total is at most `N < 2^W`.
//!
//! Parameters: `N` input bits (at least 1; one bit is a wire); `W` width of the count, which
//! must be [`count_bits`](super::count_bits)`(N)` (stable Rust cannot derive it from `N`:
//! write `PopCount<4, { count_bits(4) }>`).
use rust_hdl::prelude::*;

/// The number of ones in `bits`.
#[derive(LogicBlock)]
pub struct PopCount<const N: usize, const W: usize> {
    /// The vector whose ones are counted.
    pub bits: Signal<In, Bits<N>>,
    /// How many bits of `bits` are one, 0 to `N`.
    pub count: Signal<Out, Bits<W>>,
    /// The adder tree in heap order: node `k` is the sum of nodes `2k + 1` and `2k + 2`; the
    /// `2^clog2(N)` leaves (from `2^clog2(N) - 1`) are the input bits, zero past `N`; node 0
    /// is the count.
    tree: Vec<Signal<Local, Bits<W>>>,
    zero: Constant<Bits<W>>,
    /// The leaves of the tree (`N` rounded up to a power of two).
    _leaves: usize,
    /// `N == 1`: `count` is `bits` (a 1-bit signal is a Verilog scalar that cannot be indexed).
    _single: usize,
}

impl<const N: usize, const W: usize> PopCount<N, W> {
    /// A counter of the ones of `N` bits. Panics if `N` is 0 or `W` does not match `N`.
    pub fn new() -> Self {
        assert!(N >= 1, "PopCount: N (input bits) must be at least 1");
        assert!(
            W == super::count_bits(N),
            "PopCount<N = {N}>: W (count width) is {W} but must be count_bits({N}) = {}",
            super::count_bits(N)
        );
        let leaves = 1usize << super::clog2(N);
        Self {
            bits: Default::default(),
            count: Default::default(),
            tree: (0..(2 * leaves - 1)).map(|_| Default::default()).collect(),
            zero: Constant::new(Bits::<W>::default()),
            _leaves: leaves,
            _single: (N == 1) as usize,
        }
    }
}

impl<const N: usize, const W: usize> Default for PopCount<N, W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const W: usize> Logic for PopCount<N, W> {
    #[hdl_gen]
    fn update(&mut self) {
        // Leaves first, then the inner nodes from the last to the root (`top - j`: index
        // expressions may only use loop variables, hence the one-iteration loops).
        for leaf in (self._leaves - 1)..self._leaves {
            for i in 0..self._leaves {
                self.tree[leaf + i].next = self.zero.val();
            }
            for i in 0..(N * (1 - self._single)) {
                self.tree[leaf + i].next =
                    self.zero.val().replace_bit(0, self.bits.val().get_bit(i));
            }
        }
        for top in (self._leaves.max(2) - 2)..(self._leaves.max(2) - 1) {
            for j in 0..(self._leaves - 1) {
                self.tree[top - j].next =
                    self.tree[2 * (top - j) + 1].val() + self.tree[2 * (top - j) + 2].val();
            }
        }
        self.count.next = self.tree[0].val();
        for _i in 0..self._single {
            self.count.next = self.zero.val().replace_bit(0, self.bits.val().any());
        }
    }
}

#[test]
fn pop_count_is_synthesizable() {
    let mut uut = PopCount::<4, 3>::new();
    uut.connect_all();
    yosys_validate("pop_count_4", &generate_verilog(&uut)).unwrap();
    let mut uut = PopCount::<13, 4>::new();
    uut.connect_all();
    yosys_validate("pop_count_13", &generate_verilog(&uut)).unwrap();
    let mut uut = PopCount::<1, 1>::new();
    uut.connect_all();
    yosys_validate("pop_count_1", &generate_verilog(&uut)).unwrap();
}

#[test]
#[should_panic(expected = "W (count width)")]
fn pop_count_rejects_wrong_width() {
    let _ = PopCount::<8, 3>::new();
}
