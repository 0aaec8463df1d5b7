//! Stage 4 of the [`LtpDeframer`](super::LtpDeframer): the flit out of the pair registers, and
//! the group CRCs.
//!
//! Since 65 = 2 x 32 + 1, flit `n-1` starts in XFR `2n-2` at bit `n-1`, so it is
//! `{XFR 2n, XFR 2n-1, XFR 2n-2} >> (n-1)`: one 16-way shift of 80 bits (four binary steps),
//! not a barrel shifter over the LTP. The flit is registered with its position. The group
//! CRC-8s take the pair in the same cycle: XFR `2n` through one CRC step, `2n+1` through the
//! other, each on its group's register; pair 0 restarts them. The trailer (bits 16..31 of XFR
//! 32) is kept when the reader's attempt completes. Latency: one cycle.
//!
//! Reset: no flit, no end in flight.
use super::{PairSink, ShiftedSource};
use crate::crc::{CrcStep, CRC8};
use crate::formats::FLIT_BITS;
use rust_hdl::prelude::*;

/// The flit shift and the group CRCs.
#[derive(LogicBlock)]
pub struct FlitShift {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: no flit, no end.
    pub reset: Signal<In, bool>,
    /// The pair read and what to do with it.
    pub pair: PairSink,
    /// The flit, trailer, group CRCs and the end, to the end stage.
    pub out: ShiftedSource,
    flit: DFF<Bits<FLIT_BITS>>,
    valid: DFF<bool>,
    position: DFF<Bits<4>>,
    trailer: DFF<Bits<16>>,
    group_crcs: Vec<DFF<Bits<8>>>,
    last: DFF<bool>,
    bad: DFF<bool>,
    state: DFF<Bits<2>>,
    /// Group CRC steps of XFR `2n` and `2n+1`.
    first_step: CrcStep<8, 32>,
    second_step: CrcStep<8, 32>,
    lane_numbers: Vec<Constant<Bits<2>>>,
    /// The three XFRs a flit spans, then the four shift steps.
    spanned: Signal<Local, Bits<80>>,
    shift8: Signal<Local, Bits<80>>,
    shift4: Signal<Local, Bits<80>>,
    shift2: Signal<Local, Bits<80>>,
    shift1: Signal<Local, Bits<80>>,
    all_groups: Signal<Local, Bits<32>>,
    first_group_offset: Signal<Local, Bits<5>>,
    second_group_offset: Signal<Local, Bits<5>>,
}

impl Default for FlitShift {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            pair: Default::default(),
            out: Default::default(),
            flit: Default::default(),
            valid: Default::default(),
            position: Default::default(),
            trailer: Default::default(),
            group_crcs: (0..4).map(|_| Default::default()).collect(),
            last: Default::default(),
            bad: Default::default(),
            state: Default::default(),
            first_step: CrcStep::new(&CRC8),
            second_step: CrcStep::new(&CRC8),
            lane_numbers: (0..4).map(|n| Constant::new((n as u64).into())).collect(),
            spanned: Default::default(),
            shift8: Default::default(),
            shift4: Default::default(),
            shift2: Default::default(),
            shift1: Default::default(),
            all_groups: Default::default(),
            first_group_offset: Default::default(),
            second_group_offset: Default::default(),
        }
    }
}

impl Logic for FlitShift {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, flit, valid, position, trailer, last, bad, state);
        for g in 0..4 {
            self.group_crcs[g].clock.next = self.clock.val();
            self.group_crcs[g].d.next = self.group_crcs[g].q.val();
        }
        self.all_groups.next = (bit_cast::<32, 8>(self.group_crcs[3].q.val()) << 24)
            | (bit_cast::<32, 8>(self.group_crcs[2].q.val()) << 16)
            | (bit_cast::<32, 8>(self.group_crcs[1].q.val()) << 8)
            | bit_cast::<32, 8>(self.group_crcs[0].q.val());
        self.out.flit.next = self.flit.q.val();
        self.out.valid.next = self.valid.q.val();
        self.out.position.next = self.position.q.val();
        self.out.trailer.next = self.trailer.q.val();
        self.out.group_crcs.next = self.all_groups.val();
        self.out.last.next = self.last.q.val();
        self.out.bad.next = self.bad.q.val();
        self.out.state.next = self.state.q.val();

        // Flit n-1 = {XFR 2n, XFR 2n-1, XFR 2n-2} >> (n-1).
        self.spanned.next = (bit_cast::<80, 16>(self.pair.first.val().get_bits::<16>(0)) << 64)
            | (bit_cast::<80, 32>(self.pair.previous_second.val()) << 32)
            | bit_cast::<80, 32>(self.pair.previous_first.val());
        self.shift8.next = self.spanned.val();
        if self.pair.position.val().get_bit(3) {
            self.shift8.next = self.spanned.val() >> 8;
        }
        self.shift4.next = self.shift8.val();
        if self.pair.position.val().get_bit(2) {
            self.shift4.next = self.shift8.val() >> 4;
        }
        self.shift2.next = self.shift4.val();
        if self.pair.position.val().get_bit(1) {
            self.shift2.next = self.shift4.val() >> 2;
        }
        self.shift1.next = self.shift2.val();
        if self.pair.position.val().get_bit(0) {
            self.shift1.next = self.shift2.val() >> 1;
        }
        self.valid.d.next = self.pair.flit_ready.val();
        if self.pair.flit_ready.val() {
            self.flit.d.next = self.shift1.val().get_bits::<FLIT_BITS>(0);
            self.position.d.next = self.pair.position.val();
        }
        if self.pair.last.val() & !self.pair.bad.val() {
            self.trailer.d.next = self.pair.first.val().get_bits::<16>(16);
        }
        // Group CRCs: XFR 2n through the first step, 2n+1 through the second; XFR 0
        // restarts them.
        self.first_step.data.next = self.pair.first.val();
        self.second_step.data.next = self.pair.second.val();
        self.first_group_offset.next = bit_cast::<5, 2>(self.pair.first_group.val()) << 3;
        self.second_group_offset.next = bit_cast::<5, 2>(self.pair.second_group.val()) << 3;
        self.first_step.state.next = self
            .all_groups
            .val()
            .get_bits::<8>(self.first_group_offset.val().index());
        self.second_step.state.next = self
            .all_groups
            .val()
            .get_bits::<8>(self.second_group_offset.val().index());
        if self.pair.restart.val() {
            self.first_step.state.next = 0.into();
            self.second_step.state.next = 0.into();
        }
        for g in 0..4 {
            if self.pair.restart.val() {
                self.group_crcs[g].d.next = 0.into();
            }
            if self.pair.second_read.val()
                & (self.pair.second_group.val() == self.lane_numbers[g].val())
            {
                self.group_crcs[g].d.next = self.second_step.next_state.val();
            }
            if self.pair.first_read.val()
                & (self.pair.first_group.val() == self.lane_numbers[g].val())
            {
                self.group_crcs[g].d.next = self.first_step.next_state.val();
            }
        }
        self.last.d.next = self.pair.last.val();
        self.bad.d.next = self.pair.bad.val();
        self.state.d.next = self.pair.state.val();

        if self.reset.val() {
            self.valid.d.next = false;
            self.last.d.next = false;
        }
    }
}
