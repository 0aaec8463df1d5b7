//! The striper's lane map: the active-lane mask and, per physical lane, its logical index
//! (the number of active lanes below it), precomputed when the mask is sampled so the beat
//! former routes from registers.
//!
//! Sampled on every cycle with `sample` high. No reset: the striper samples during its reset.
use rust_hdl::prelude::*;

/// Mask, `L - 1`, `L = 1` and the logical index of each physical lane, registered.
#[derive(LogicBlock)]
pub struct StriperLaneMap {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Active physical lanes (at least one).
    pub mask: Signal<In, Bits<4>>,
    /// Take `mask` on this edge.
    pub sample: Signal<In, bool>,
    /// The mask taken.
    pub lane_mask: Signal<Out, Bits<4>>,
    /// Active lanes minus one.
    pub last: Signal<Out, Bits<2>>,
    /// One active lane.
    pub single: Signal<Out, bool>,
    /// Logical index of physical lane `p` at bits `2p`.
    pub indices: Signal<Out, Bits<8>>,
    mask_reg: DFF<Bits<4>>,
    last_reg: DFF<Bits<2>>,
    single_reg: DFF<bool>,
    indices_reg: DFF<Bits<8>>,
    one: Constant<Bits<3>>,
    index_shift: Vec<Constant<Bits<8>>>,
    active_below: Vec<Signal<Local, Bits<3>>>,
    active_less_one: Signal<Local, Bits<3>>,
    index: Signal<Local, Bits<2>>,
    index_acc: Signal<Local, Bits<8>>,
}

impl Default for StriperLaneMap {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            mask: Default::default(),
            sample: Default::default(),
            lane_mask: Default::default(),
            last: Default::default(),
            single: Default::default(),
            indices: Default::default(),
            mask_reg: Default::default(),
            last_reg: Default::default(),
            single_reg: Default::default(),
            indices_reg: Default::default(),
            one: Constant::new(1u64.into()),
            index_shift: (0..4)
                .map(|p| Constant::new(((2 * p) as u64).into()))
                .collect(),
            active_below: (0..5).map(|_| Default::default()).collect(),
            active_less_one: Default::default(),
            index: Default::default(),
            index_acc: Default::default(),
        }
    }
}

impl Logic for StriperLaneMap {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, mask_reg, last_reg, single_reg, indices_reg);
        self.lane_mask.next = self.mask_reg.q.val();
        self.last.next = self.last_reg.q.val();
        self.single.next = self.single_reg.q.val();
        self.indices.next = self.indices_reg.q.val();
        self.active_below[0].next = 0.into();
        for p in 1..5 {
            self.active_below[p].next = self.active_below[p - 1].val();
            if self.mask.val().get_bit(p - 1) {
                self.active_below[p].next = self.active_below[p - 1].val() + self.one.val();
            }
        }
        self.active_less_one.next = self.active_below[4].val() - self.one.val();
        self.index_acc.next = 0.into();
        for p in 0..4 {
            self.index.next = self.active_below[p].val().get_bits::<2>(0);
            self.index_acc.next = self.index_acc.val()
                | (bit_cast::<8, 2>(self.index.val()) << self.index_shift[p].val());
        }
        if self.sample.val() {
            self.mask_reg.d.next = self.mask.val();
            self.last_reg.d.next = self.active_less_one.val().get_bits::<2>(0);
            self.single_reg.d.next = self.active_below[4].val() == self.one.val();
            self.indices_reg.d.next = self.index_acc.val();
        }
    }
}

#[test]
fn striper_lane_map_is_synthesizable() {
    let mut uut = StriperLaneMap::default();
    uut.connect_all();
    yosys_validate("striper_lane_map", &generate_verilog(&uut)).unwrap();
}
