//! `HopFields`: the source-route fields of the data word of a management packet's flit, as
//! [`MgmtTransit`](super::MgmtTransit) reads and rewrites them (`docs/formats.md`, "Source
//! routing"): the word seen as `w1` (the forward route: `hop_num`, `current`, and the next hop
//! `hops[current - 1]` for `current` 1..=10), as `w2` (the next hop for the packet's
//! registered `current` 11..=20), as `w3` (the backward route's `hop_num`, and where this port
//! goes: `hops[hop_num]` for `hop_num` < 10) and as `w4` (where this port goes when the
//! registered backward `back_hops` is 10..19).
//!
//! Combinational, no state, no reset. `w3_insert` / `w4_insert` hold this router port's number
//! in the hop's place, `w3_field` / `w4_field` a mask of that hop (all zero when the count is
//! out of the word's range). A pipeline stage of the transit block: no bench of its own,
//! covered by the `mgmt_transit` bench.
//!
//! Elaboration value: this input port's number.
use hdl::formats::mgmt::{hop_lsb, CURRENT, HOPS_PER_WORD, HOP_BITS, ROUTE_HOPS};
use rust_hdl::prelude::*;

/// The hop fields of a route word; see the module documentation.
#[derive(LogicBlock)]
pub struct HopFields {
    /// The flit's 64-bit data word.
    pub data: Signal<In, Bits<64>>,
    /// The packet's `current` (registered from its `w1`).
    pub current: Signal<In, Bits<5>>,
    /// The packet's backward `hop_num` (registered from its `w3`).
    pub back_hops: Signal<In, Bits<5>>,
    /// The word as `w1`: `hop_num`.
    pub w1_hops: Signal<Out, Bits<5>>,
    /// The word as `w1`: `current`.
    pub w1_current: Signal<Out, Bits<5>>,
    /// The word as `w1`: `hops[current - 1]` (current 1..=10, else 0).
    pub w1_hop: Signal<Out, Bits<HOP_BITS>>,
    /// The word as `w2`: `hops[current - 1]` for the registered `current` 11..=20, else 0.
    pub w2_hop: Signal<Out, Bits<HOP_BITS>>,
    /// The word as `w3`: `hop_num`.
    pub w3_hops: Signal<Out, Bits<5>>,
    /// This port's number in `w3`'s `hops[hop_num]` place, and that place's mask.
    pub w3_insert: Signal<Out, Bits<64>>,
    /// See `w3_insert`.
    pub w3_field: Signal<Out, Bits<64>>,
    /// This port's number in `w4`'s place of hop `back_hops` (10..19), and its mask.
    pub w4_insert: Signal<Out, Bits<64>>,
    /// See `w4_insert`.
    pub w4_field: Signal<Out, Bits<64>>,
    port: Constant<Bits<64>>,
    current_lsb: Constant<Bits<8>>,
    hop_mask: Constant<Bits<64>>,
    /// `numbers[n]` = n (0..=20), to compare hop counts with.
    numbers: Vec<Constant<Bits<5>>>,
    /// Where hop `i` (and hop `10 + i`) sits in its word.
    low_at: Vec<Constant<Bits<8>>>,
    high_at: Vec<Constant<Bits<8>>>,
}

impl HopFields {
    /// The fields as input port `port` reads and writes them.
    pub fn new(port: usize) -> Self {
        Self {
            data: Default::default(),
            current: Default::default(),
            back_hops: Default::default(),
            w1_hops: Default::default(),
            w1_current: Default::default(),
            w1_hop: Default::default(),
            w2_hop: Default::default(),
            w3_hops: Default::default(),
            w3_insert: Default::default(),
            w3_field: Default::default(),
            w4_insert: Default::default(),
            w4_field: Default::default(),
            port: Constant::new((port as u64).into()),
            current_lsb: Constant::new((CURRENT.lsb as u64).into()),
            hop_mask: Constant::new(((1u64 << HOP_BITS) - 1).into()),
            numbers: (0..=ROUTE_HOPS)
                .map(|n| Constant::new((n as u64).into()))
                .collect(),
            low_at: (0..HOPS_PER_WORD)
                .map(|i| Constant::new((hop_lsb(i) as u64).into()))
                .collect(),
            high_at: (0..HOPS_PER_WORD)
                .map(|i| Constant::new((hop_lsb(HOPS_PER_WORD + i) as u64).into()))
                .collect(),
        }
    }
}

impl Logic for HopFields {
    #[hdl_gen]
    fn update(&mut self) {
        self.w1_hops.next = self.data.val().get_bits::<5>(0);
        self.w1_current.next = self
            .data
            .val()
            .get_bits::<5>(self.current_lsb.val().index());
        self.w3_hops.next = self.data.val().get_bits::<5>(0);
        // `hops[current - 1]`: in w1 for current 1..=10, in w2 for 11..=20; and where this
        // port goes in w3 (`hops[hop_num]`, hop_num < 10) or w4 (hop_num >= 10).
        self.w1_hop.next = 0.into();
        self.w2_hop.next = 0.into();
        self.w3_insert.next = 0.into();
        self.w4_insert.next = 0.into();
        self.w3_field.next = 0.into();
        self.w4_field.next = 0.into();
        for i in 0..HOPS_PER_WORD {
            if self.w1_current.val() == self.numbers[i + 1].val() {
                self.w1_hop.next = self
                    .data
                    .val()
                    .get_bits::<HOP_BITS>(self.low_at[i].val().index());
            }
            if self.current.val() == self.numbers[i + 11].val() {
                self.w2_hop.next = self
                    .data
                    .val()
                    .get_bits::<HOP_BITS>(self.high_at[i].val().index());
            }
            if self.w3_hops.val() == self.numbers[i].val() {
                self.w3_insert.next = self.port.val() << self.low_at[i].val();
                self.w3_field.next = self.hop_mask.val() << self.low_at[i].val();
            }
            if self.back_hops.val() == self.numbers[i + 10].val() {
                self.w4_insert.next = self.port.val() << self.high_at[i].val();
                self.w4_field.next = self.hop_mask.val() << self.high_at[i].val();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn hop_fields_is_synthesizable() {
        use super::*;
        let mut uut = HopFields::new(3);
        uut.connect_all();
        yosys_validate("hop_fields", &generate_verilog(&uut)).unwrap();
    }
}
