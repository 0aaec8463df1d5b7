//! The router channel: flits from a port's link layer (receive side) into the router core's
//! input unit, and per-VC credits back. The NIC's network port uses the same channel.
//!
//! Forward, every cycle: `valid`, the `flit` and the `vc` it travels on. Every flit carries
//! its VC, bodies and tails included, because a link interleaves the flits of its VCs (the
//! link layer's VlMrkr flits are consumed before the channel). There is no `ready`: the sender
//! is credit flow controlled, and the receiver takes whatever is valid.
//!
//! Backward: `credits`, one bit per VC; a set bit returns **one** credit (one flit buffer) of
//! that VC in this cycle. One credit per VC per cycle is enough: the channel moves at most one
//! flit per cycle, so no VC can spend faster than it is paid back. A sender may spend a credit
//! in the cycle it sees it returned (the receiver counts it from that cycle on); the link
//! layer's [`CreditCounter`](crate::credit_counter::CreditCounter) spends it one cycle later,
//! which is also allowed.
//!
//! Protocol errors and their outcome, defined by every receiver:
//! - a flit on a VC with no credit left is dropped and counted; it never overwrites stored
//!   data and never changes the state of the VC's packet in progress;
//! - a flit whose `vc` is not below the receiver's VC count is dropped and counted.
//!
//! Parameters: `VCS` virtual channels (1..=8, `network.vcs`); `VCB` width of `vc`
//! ([`index_bits`](crate::bits::index_bits)`(VCS)`). Use [`channel_vc_bits`] to fill it in.
use crate::formats::FLIT_BITS;
use rust_hdl::prelude::*;

/// The width of a channel's `vc` field for `vcs` virtual channels (at least 1 bit).
pub const fn channel_vc_bits(vcs: usize) -> usize {
    crate::bits::index_bits(vcs)
}

/// The sending end of a router channel (a link layer's receive side).
#[derive(LogicInterface, Default)]
#[join = "ChannelSink"]
pub struct ChannelSource<const VCS: usize, const VCB: usize> {
    /// A flit is on `flit` and `vc` in this cycle.
    pub valid: Signal<Out, bool>,
    /// The flit (any data while `valid` is low).
    pub flit: Signal<Out, Bits<FLIT_BITS>>,
    /// The flit's virtual channel (body and tail flits included).
    pub vc: Signal<Out, Bits<VCB>>,
    /// Bit `v`: one credit of VC `v` comes back in this cycle.
    pub credits: Signal<In, Bits<VCS>>,
}

/// The receiving end of a router channel (an input unit).
#[derive(LogicInterface, Default)]
#[join = "ChannelSource"]
pub struct ChannelSink<const VCS: usize, const VCB: usize> {
    /// A flit is on `flit` and `vc` in this cycle.
    pub valid: Signal<In, bool>,
    /// The flit.
    pub flit: Signal<In, Bits<FLIT_BITS>>,
    /// The flit's virtual channel.
    pub vc: Signal<In, Bits<VCB>>,
    /// Bit `v`: one credit of VC `v` returned in this cycle.
    pub credits: Signal<Out, Bits<VCS>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two blocks joined by a channel, to check the pair joins whole and emits.
    #[derive(LogicBlock, Default)]
    struct Loop {
        clock: Signal<In, Clock>,
        source: ChannelSource<3, 2>,
        sink: ChannelSink<3, 2>,
        credits: DFF<Bits<3>>,
        seen: Signal<Out, Bits<FLIT_BITS>>,
    }

    impl Logic for Loop {
        #[hdl_gen]
        fn update(&mut self) {
            dff_setup!(self, clock, credits);
            ChannelSource::<3, 2>::join(&mut self.source, &mut self.sink);
            self.source.valid.next = true;
            self.source.flit.next = 5.into();
            self.source.vc.next = 2.into();
            self.seen.next = self.sink.flit.val();
            self.sink.credits.next = self.credits.q.val();
            self.credits.d.next = !self.source.credits.val();
        }
    }

    #[test]
    fn channel_joins_whole_and_is_synthesizable() {
        assert_eq!(channel_vc_bits(1), 1);
        assert_eq!(channel_vc_bits(6), 3);
        assert_eq!(channel_vc_bits(8), 3);
        let mut uut = Loop::default();
        uut.connect_all();
        yosys_validate("channel_loop", &generate_verilog(&uut)).unwrap();
    }
}
