//! The lane naming of the [`RxLink`](super::RxLink): which physical lane broke an LTP.
//!
//! The group CRCs and sequence state of the first bad LTP are kept (`keep_bad` from the
//! verdict: it arrived whole in the place of the expected LTP, so that the replay brings its
//! good copy). When the same sequence number later arrives good (`accepted`), the kept group
//! CRCs are compared with the good copy's: exactly one differing group `m` names the lane the
//! bad copy carried group `m` on: logical lane `(state + m) mod L`, then its physical lane, the
//! `logical`-th set bit of the mask.
//!
//! The two copies may have different sequence states, which the sender XORs into the trailer's
//! check at `ltp::STATE_SHIFT` (bits 29..28 of XFR 32: the sideband, the rest of the check and
//! the flits are the same in both copies) and so into the CRC of group `32 mod L`; that difference is taken out of the kept CRC
//! before comparing (CRC-8 is linear and XFR 32 is its group's last step: the correction is the
//! CRC of the state difference alone, from state 0), else a replay at another state would
//! differ in two groups and name nothing.
//!
//! Latency: the compare is registered (`named`, `named_group`) before the logical-to-physical
//! lane lookup, so the lane is named one cycle after the good copy's end; this keeps the
//! group-CRC compare and the lane health's error counters in separate cycles (the path that
//! limited Fmax). The lane health drops a naming whose lookup cycle falls right after a lane
//! removal (it is resizing then), since the mask it was computed for is gone.
//!
//! A lane removal or a bring-up (`start`) forgets the kept LTP; a bring-up also drops a
//! naming in flight.
//!
//! Reset: nothing kept, no naming.
use super::super::deframer::DeframedSink;
use super::{LanesSink, NamingSource, VerdictSink};
use crate::crc::CRC8;
use rust_hdl::prelude::*;

/// The kept bad LTP, the group-CRC compare and the physical lane lookup.
#[derive(LogicBlock)]
pub struct LaneNaming {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: nothing kept, no naming.
    pub reset: Signal<In, bool>,
    /// A bring-up: forget the kept LTP and the naming in flight.
    pub start: Signal<In, bool>,
    /// Ends from the deframer (group CRCs and state).
    pub deframed: DeframedSink,
    /// What the LTP ending now is worth.
    pub verdict: VerdictSink,
    /// The lanes received on, and a removal.
    pub lanes: LanesSink,
    /// The lane named, to the lane health.
    pub out: NamingSource,
    /// A bad LTP is kept.
    kept: DFF<bool>,
    /// Its sequence number.
    kept_seq: DFF<Bits<16>>,
    /// Its group CRCs.
    kept_crcs: DFF<Bits<32>>,
    /// Its sequence state (the logical lane of its XFR 0).
    kept_state: DFF<Bits<2>>,
    /// The good copy of the kept bad LTP differed in exactly one group (last cycle).
    named: DFF<bool>,
    /// That group's index.
    named_group: DFF<Bits<2>>,
    numbers: Vec<Constant<Bits<3>>>,
    /// Bit offset of group `m` in the group CRCs.
    group_offsets: Vec<Constant<Bits<8>>>,
    /// CRC-8 step of a state difference `d` in XFR 32 (bits 29..28) from state 0.
    state_crcs: Vec<Constant<Bits<8>>>,
    /// The kept state XOR the good copy's.
    state_difference: Signal<Local, Bits<3>>,
    /// The CRC of that difference.
    state_correction: Signal<Local, Bits<8>>,
    /// The kept group CRCs with the correction in group `32 mod L`.
    corrected_crcs: Signal<Local, Bits<32>>,
    /// Groups (of the `L` in use) that differ.
    differing_groups: Signal<Local, Bits<3>>,
    /// The last group that differs.
    differing_group: Signal<Local, Bits<2>>,
    /// The good copy of the kept LTP ends now.
    good_copy: Signal<Local, bool>,
    /// The named group's logical lane.
    logical: Signal<Local, Bits<3>>,
    /// The logical lane of each physical lane in the mask, counted up the mask.
    rank: Signal<Local, Bits<3>>,
    /// The named physical lane.
    physical: Signal<Local, Bits<4>>,
    /// The bundle fields this block does not read, acknowledged here (Verilator's lint passes
    /// names containing "unused"; nothing reads this, so synthesis removes it).
    unused_inputs: Signal<Local, bool>,
}

impl Default for LaneNaming {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            deframed: Default::default(),
            verdict: Default::default(),
            lanes: Default::default(),
            out: Default::default(),
            kept: Default::default(),
            kept_seq: Default::default(),
            kept_crcs: Default::default(),
            kept_state: Default::default(),
            named: Default::default(),
            named_group: Default::default(),
            numbers: (0..4).map(|n| Constant::new((n as u64).into())).collect(),
            group_offsets: (0..4)
                .map(|m| Constant::new((8 * m as u64).into()))
                .collect(),
            state_crcs: (0..4u128)
                .map(|d| {
                    let mut g = CRC8.digest();
                    // Trailer bit `STATE_SHIFT` is XFR 32's bit 16 + `STATE_SHIFT`.
                    g.update_word(d << (16 + crate::llp::ltp::STATE_SHIFT), 32);
                    Constant::new(g.finish().into())
                })
                .collect(),
            state_difference: Default::default(),
            state_correction: Default::default(),
            corrected_crcs: Default::default(),
            differing_groups: Default::default(),
            differing_group: Default::default(),
            good_copy: Default::default(),
            logical: Default::default(),
            rank: Default::default(),
            physical: Default::default(),
            unused_inputs: Default::default(),
        }
    }
}

impl Logic for LaneNaming {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            kept,
            kept_seq,
            kept_crcs,
            kept_state,
            named,
            named_group
        );
        self.unused_inputs.next = self.deframed.flit.val().any()
            | self.deframed.flit_valid.val()
            | self.deframed.flit_pos.val().any()
            | self.deframed.end_valid.val()
            | self.deframed.end_intact.val()
            | self.deframed.end_crc_diff.val().any()
            | self.deframed.end_sideband.val().any()
            | self.deframed.lane_missing.val().any()
            | self.deframed.stray.val()
            | self.verdict.null_acts.val()
            | self.verdict.commit.val()
            | self.verdict.retry_request.val()
            | self.verdict.resizing.val()
            | self.lanes.last_lane_fails.val();
        // Keep the first bad LTP worth keeping until its good copy comes.
        if self.verdict.keep_bad.val() & !self.kept.q.val() {
            self.kept.d.next = true;
            self.kept_seq.d.next = self.verdict.sequence.val();
            self.kept_crcs.d.next = self.deframed.end_gcrc.val();
            self.kept_state.d.next = self.deframed.end_state.val();
        }

        // Take the state difference's CRC out of group `32 mod L` (group 0, or 2 at L = 3).
        self.state_difference.next =
            bit_cast::<3, 2>(self.kept_state.q.val() ^ self.deframed.end_state.val());
        self.state_correction.next = 0.into();
        for d in 1..4 {
            if self.state_difference.val() == self.numbers[d].val() {
                self.state_correction.next = self.state_crcs[d].val();
            }
        }
        self.corrected_crcs.next =
            self.kept_crcs.q.val() ^ bit_cast::<32, 8>(self.state_correction.val());
        if self.lanes.count.val() == 3 {
            self.corrected_crcs.next =
                self.kept_crcs.q.val() ^ (bit_cast::<32, 8>(self.state_correction.val()) << 16);
        }
        self.differing_groups.next = 0.into();
        self.differing_group.next = 0.into();
        for m in 0..4 {
            if (self.numbers[m].val() < self.lanes.count.val())
                & (self
                    .corrected_crcs
                    .val()
                    .get_bits::<8>(self.group_offsets[m].val().index())
                    != self
                        .deframed
                        .end_gcrc
                        .val()
                        .get_bits::<8>(self.group_offsets[m].val().index()))
            {
                self.differing_groups.next = self.differing_groups.val() + 1;
                self.differing_group.next = self.numbers[m].val().get_bits::<2>(0);
            }
        }
        self.good_copy.next = self.verdict.accepted.val()
            & self.kept.q.val()
            & (self.kept_seq.q.val() == self.verdict.sequence.val());
        if self.good_copy.val() {
            self.kept.d.next = false;
        }
        self.named.d.next = self.good_copy.val() & (self.differing_groups.val() == 1);
        self.named_group.d.next = self.differing_group.val();

        // One cycle later: logical lane (state + m) mod L, then its physical lane. `kept_state`
        // still holds the named LTP's state (it is written only while `kept` is low, and
        // `good_copy` is the cycle that clears it).
        self.logical.next =
            bit_cast::<3, 2>(self.kept_state.q.val()) + bit_cast::<3, 2>(self.named_group.q.val());
        if self.logical.val() >= self.lanes.count.val() {
            self.logical.next = self.logical.val() - self.lanes.count.val();
        }
        self.physical.next = 0.into();
        self.rank.next = 0.into();
        for p in 0..4 {
            if self.lanes.mask.val().get_bit(p) {
                if self.rank.val() == self.logical.val() {
                    self.physical.next = self.physical.val().replace_bit(p, true);
                }
                self.rank.next = self.rank.val() + 1;
            }
        }
        self.out.valid.next = self.named.q.val();
        self.out.lane.next = self.physical.val();

        // A removal changes the lanes the kept LTP's replay travels on.
        if self.lanes.narrowing.val() | self.start.val() {
            self.kept.d.next = false;
        }
        if self.start.val() {
            self.named.d.next = false;
        }
        if self.reset.val() {
            self.kept.d.next = false;
            self.named.d.next = false;
        }
    }
}
