//! Backward-route append: the arrival port written into a management packet's backward route
//! as the body word passes, so the packet needs no second pass ([`crate::formats::mgmt`]'s
//! routing rule: `B.hops[B.hop_num] = in_port; B.hop_num += 1`).
//!
//! Combinational. On the low backward word (`w3`, `low_word`) the route's `hop_num` becomes
//! `slot + 1` and, when `slot` is 0..=9, the hop at `slot` becomes `port`; on the high word
//! (`w4`, `high_word`) the hop at `slot` (10..=19) becomes `port`. Any other word passes
//! unchanged. `slot` is the backward route's `hop_num` as received; a full route (20 hops) is the
//! caller's to reject as malformed.
use crate::formats::mgmt::{self, hop_lsb, HOPS_PER_WORD, HOP_BITS, ROUTE_HOPS};
use rust_hdl::prelude::*;

/// Writes the arrival port into the backward route; see the module documentation.
#[derive(LogicBlock)]
pub struct BackwardAppend {
    /// The body word as it arrived.
    pub word: Signal<In, Bits<64>>,
    /// `word` is the low backward-route word (`w3`: `hop_num` and hops 0..=9).
    pub low_word: Signal<In, bool>,
    /// `word` is the high backward-route word (`w4`: hops 10..=19).
    pub high_word: Signal<In, bool>,
    /// The backward route's `hop_num` as received: the slot the port goes to.
    pub slot: Signal<In, Bits<5>>,
    /// The port the packet arrived on.
    pub port: Signal<In, Bits<HOP_BITS>>,
    /// `word` with the append made.
    pub patched: Signal<Out, Bits<64>>,
    /// `slot + 1` in a 5-bit signal of its own, so that Verilog wraps the sum at 5 bits as
    /// rust-hdl does.
    appended: Signal<Local, Bits<5>>,
    /// The port in the low bits of a word.
    port_word: Signal<Local, Bits<64>>,
    /// Bit position of each hop in its route word.
    hop_lsbs: Vec<Constant<Bits<7>>>,
    /// Each hop's route word with that hop's bits clear.
    hop_clears: Vec<Constant<Bits<64>>>,
    /// A route word with `hop_num` clear.
    hop_num_mask: Constant<Bits<64>>,
}

impl Default for BackwardAppend {
    fn default() -> Self {
        Self {
            word: Default::default(),
            low_word: Default::default(),
            high_word: Default::default(),
            slot: Default::default(),
            port: Default::default(),
            patched: Default::default(),
            appended: Default::default(),
            port_word: Default::default(),
            hop_lsbs: (0..ROUTE_HOPS)
                .map(|i| Constant::new(Bits::from(hop_lsb(i) as u64)))
                .collect(),
            hop_clears: (0..ROUTE_HOPS)
                .map(|i| {
                    Constant::new(Bits::from(
                        !((mgmt::hop_field(i).max() as u64) << hop_lsb(i)),
                    ))
                })
                .collect(),
            hop_num_mask: Constant::new(Bits::from(!(mgmt::HOP_NUM.max() as u64))),
        }
    }
}

impl Logic for BackwardAppend {
    #[hdl_gen]
    fn update(&mut self) {
        self.port_word.next = bit_cast::<64, HOP_BITS>(self.port.val());
        self.appended.next = self.slot.val() + 1;
        self.patched.next = self.word.val();
        if self.low_word.val() {
            self.patched.next = (self.word.val() & self.hop_num_mask.val())
                | bit_cast::<64, 5>(self.appended.val());
            for i in 0..HOPS_PER_WORD {
                if self.slot.val().index() == i {
                    self.patched.next = (self.patched.val() & self.hop_clears[i].val())
                        | (self.port_word.val() << self.hop_lsbs[i].val());
                }
            }
        }
        if self.high_word.val() {
            for i in HOPS_PER_WORD..ROUTE_HOPS {
                if self.slot.val().index() == i {
                    self.patched.next = (self.word.val() & self.hop_clears[i].val())
                        | (self.port_word.val() << self.hop_lsbs[i].val());
                }
            }
        }
    }
}

#[test]
fn backward_append_is_synthesizable() {
    let mut uut = BackwardAppend::default();
    uut.connect_all();
    yosys_validate("backward_append", &generate_verilog(&uut)).unwrap();
}
