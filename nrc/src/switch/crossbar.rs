//! Crossbar: per output port, the flit of the input the allocator granted it. Combinational,
//! so a flit granted in cycle `c` reaches its output unit's register in `c` (the router core's
//! zero-load goal of 2 cycles head in to head out leaves no room for a stage here).
//!
//! **Tiles.** The inputs are split into `tile_rows` rows and the outputs into `tile_cols`
//! columns (as evenly as possible: row `r` holds inputs `r * PORTS / tile_rows` up to the next
//! row's first). Tile `(r, c)` muxes the inputs of row `r` toward each output of column `c`
//! (an AND-OR mux on the output's one-hot `select`); an output then picks among the tiles of
//! its column, one per row (an OR: at most one row holds its granted input). The published
//! router is 24 ports in 4 x 6 tiles; 1 x 1 is the flat crossbar. In this combinational form
//! the logic is the same for every tiling up to the OR tree's shape (a tile row is a
//! `rows`-input first level of each output's mux); the tiling is the structure a registered or
//! physically placed crossbar would follow: a register stage at the tiles' outputs (not built)
//! would cost `tile_rows x PORTS x FLIT_BITS` flip-flops and one cycle of latency on every
//! hop, which the latency goal rules out.
//!
//! A `select` with several bits set ORs their flits (the allocator never does that: one-hot or
//! zero); a zero `select` gives a zero flit.
//!
//! Parameters: `PORTS` (2..=64); elaboration values `tile_rows`, `tile_cols` (1..=`PORTS`,
//! `router.tile_rows`, `router.tile_cols`).
use hdl::formats::FLIT_BITS;
use rust_hdl::prelude::*;

/// The crossbar; see the module documentation.
#[derive(LogicBlock)]
pub struct Crossbar<const PORTS: usize> {
    /// Per input: its flit (the granted VC's front).
    pub flits: Vec<Signal<In, Bits<FLIT_BITS>>>,
    /// Per output: the granted input, one-hot (zero: none).
    pub selects: Vec<Signal<In, Bits<PORTS>>>,
    /// Per output: the granted input's flit.
    pub outputs: Vec<Signal<Out, Bits<FLIT_BITS>>>,
    /// The current tile's part of the current output's mux (reused by every tile in turn).
    tile_output: Signal<Local, Bits<FLIT_BITS>>,
    /// The current output's select, restricted to the current tile's row.
    row_select: Signal<Local, Bits<PORTS>>,
    /// Per tile row: its inputs; per tile column: its outputs.
    row_members: Vec<Constant<Bits<PORTS>>>,
    column_members: Vec<Constant<Bits<PORTS>>>,
    zero: Constant<Bits<FLIT_BITS>>,
    _rows: usize,
    _cols: usize,
}

/// First member of each of `parts` near-equal parts of `0..n`, then `n`.
pub fn tile_bounds(n: usize, parts: usize) -> Vec<usize> {
    (0..=parts).map(|k| k * n / parts).collect()
}

/// One mask per part of `0..n` split by [`tile_bounds`].
fn members<const N: usize>(parts: usize) -> Vec<Constant<Bits<N>>> {
    let b = tile_bounds(N, parts);
    (0..parts)
        .map(|k| {
            let mut m = Bits::<N>::default();
            for x in b[k]..b[k + 1] {
                m = m.replace_bit(x, true);
            }
            Constant::new(m)
        })
        .collect()
}

impl<const PORTS: usize> Crossbar<PORTS> {
    /// The crossbar in `tile_rows x tile_cols` tiles; panics naming the configuration field
    /// unless each is 1..=`PORTS`.
    pub fn new(tile_rows: usize, tile_cols: usize) -> Self {
        assert!(
            (2..=64).contains(&PORTS),
            "Crossbar: PORTS must be 2..=64, got {PORTS}"
        );
        assert!(
            (1..=PORTS).contains(&tile_rows),
            "Crossbar: router.tile_rows = {tile_rows} must be 1..={PORTS} (the ports)"
        );
        assert!(
            (1..=PORTS).contains(&tile_cols),
            "Crossbar: router.tile_cols = {tile_cols} must be 1..={PORTS} (the ports)"
        );
        Self {
            flits: (0..PORTS).map(|_| Default::default()).collect(),
            selects: (0..PORTS).map(|_| Default::default()).collect(),
            outputs: (0..PORTS).map(|_| Default::default()).collect(),
            tile_output: Default::default(),
            row_select: Default::default(),
            row_members: members::<PORTS>(tile_rows),
            column_members: members::<PORTS>(tile_cols),
            zero: Constant::new(0u64.into()),
            _rows: tile_rows,
            _cols: tile_cols,
        }
    }
}

impl<const PORTS: usize> Logic for Crossbar<PORTS> {
    #[hdl_gen]
    fn update(&mut self) {
        for p in 0..PORTS {
            self.outputs[p].next = self.zero.val();
        }
        // Tile (r, c): row r's inputs toward column c's outputs; each output ORs the tiles of
        // its column (one per row). The member masks are constants: synthesis keeps only the
        // crosspoints of each tile.
        for c in 0..self._cols {
            for p in 0..PORTS {
                if self.column_members[c].val().get_bit(p) {
                    for r in 0..self._rows {
                        self.row_select.next = self.selects[p].val() & self.row_members[r].val();
                        self.tile_output.next = self.zero.val();
                        for k in 0..PORTS {
                            if self.row_select.val().get_bit(k) {
                                self.tile_output.next =
                                    self.tile_output.val() | self.flits[k].val();
                            }
                        }
                        self.outputs[p].next = self.outputs[p].val() | self.tile_output.val();
                    }
                }
            }
        }
    }
}

#[test]
fn crossbar_is_synthesizable() {
    let mut uut = Crossbar::<6>::new(2, 3);
    uut.connect_all();
    yosys_validate("crossbar", &generate_verilog(&uut)).unwrap();
}

#[test]
#[should_panic(expected = "router.tile_rows = 7 must be 1..=6")]
fn crossbar_rejects_more_rows_than_ports() {
    let _ = Crossbar::<6>::new(7, 1);
}
