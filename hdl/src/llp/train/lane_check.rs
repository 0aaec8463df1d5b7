//! The receive check of one physical lane: is this cycle's transfer a good TS word, and how
//! many good words in a row has the lane carried.
//!
//! A word is good when `valid` is high, `start` as expected (below), the magic and the lane field (equal to
//! this lane's number: crossed lanes fail) match, the CRC matches (garbage fails), and either
//! the lane's `run` is zero or the word index follows the previous word's (`w + 1` mod 4: a
//! lane stuck at a constant fails). `run` counts consecutive good words, saturating at
//! [`RUN_MAX`]; any bad word (also `valid` low) sets it to zero. `seek_run` counts consecutive
//! good words with ready = 0 (a bad word or a ready word sets it to zero), saturating at
//! [`SEEK_RUN_MAX`].
//!
//! Outputs are one-hot in the lane's own bit, so the parent ORs the four checkers' outputs
//! into lane masks: `reference` (this cycle's word is good and `run` counting it is at least
//! [`REFERENCE_RUN`]), `rx_good` (`run` >= [`GOOD_RUN`], from the register) and `far_seeking`
//! (`seek_run` >= [`FAR_SEEK_RUN`], from the register).
//!
//! On a wire of 16-bit lanes an XFR arrives every second cycle at best (`gearbox`), so a
//! cycle with `valid` low is a missing word only when the cycle before had none either: the
//! checker then holds its counts through one empty cycle (`tolerant`). There TS words carry
//! `start` low (the gearbox frames a lane's transfers by `start`, which must differ between
//! a word's two halves while training), so a good word's `start` is the one expected:
//! high at 32-bit lanes, low at 16.
//!
//! Parameters: the lane number (0..4) and the cycles per XFR on the wire (1 or 2), given to
//! [`LaneCheck::new`]. Reset: `run` and `seek_run` to zero.
use super::ts_word::*;
use crate::crc::{CrcStep, CRC8};
use crate::llp::lane_channel::{LaneChannelIn, MAX_LANES, XFR_BITS};
use rust_hdl::prelude::*;

// The reference test below reads `run > 0` for `run + 1 >= REFERENCE_RUN`.
const _: () = assert!(REFERENCE_RUN == 2);

/// The checker of one physical lane.
#[derive(LogicBlock)]
pub struct LaneCheck {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// All lanes from the wire (this checker reads its own lane's bits).
    pub lanes: LaneChannelIn,
    /// This lane's bit if this cycle's word is a reference candidate.
    pub reference: Signal<Out, Bits<4>>,
    /// This lane's bit if it has carried at least [`GOOD_RUN`] good words in a row.
    pub rx_good: Signal<Out, Bits<4>>,
    /// This lane's bit if it has carried at least [`FAR_SEEK_RUN`] good seek words in a row.
    pub far_seeking: Signal<Out, Bits<4>>,
    crc: CrcStep<8, TS_BODY_BITS>,
    run: DFF<Bits<4>>,
    seek_run: DFF<Bits<3>>,
    last_index: DFF<Bits<2>>,
    /// Tolerant only: the last cycle had no word on this lane.
    missed: DFF<bool>,
    tolerant: Constant<bool>,
    /// This lane's bit if TS words carry `start` high (32-bit lanes), else zero.
    start_expected: Constant<Bits<4>>,
    lane_bit: Constant<Bits<4>>,
    lane_number: Constant<Bits<2>>,
    lane_shift: Constant<Bits<8>>,
    magic: Constant<Bits<6>>,
    magic_lsb: Constant<Bits<8>>,
    index_lsb: Constant<Bits<8>>,
    lane_lsb: Constant<Bits<8>>,
    ready_bit: Constant<Bits<8>>,
    payload_lsb: Constant<Bits<8>>,
    one_index: Constant<Bits<2>>,
    one_run: Constant<Bits<4>>,
    run_max: Constant<Bits<4>>,
    good_run: Constant<Bits<4>>,
    one_seek: Constant<Bits<3>>,
    seek_run_max: Constant<Bits<3>>,
    far_seek_run: Constant<Bits<3>>,
    zero_crc: Constant<Bits<8>>,
    no_lanes: Constant<Bits<4>>,
    word: Signal<Local, Bits<32>>,
    index: Signal<Local, Bits<2>>,
    expected_index: Signal<Local, Bits<2>>,
    in_sequence: Signal<Local, bool>,
    good: Signal<Local, bool>,
    lane_valid: Signal<Local, bool>,
    evaluate: Signal<Local, bool>,
}

impl LaneCheck {
    /// The checker of physical lane `lane` on a wire that takes `xfr_cycles` (1 or 2) cycles
    /// per XFR.
    pub fn new(lane: usize, xfr_cycles: usize) -> Self {
        assert!(
            lane < MAX_LANES,
            "LaneCheck: lane {lane} not in 0..{MAX_LANES}"
        );
        assert!(
            xfr_cycles == 1 || xfr_cycles == 2,
            "LaneCheck: {xfr_cycles} cycles per XFR is not 1 or 2"
        );
        let c8 = |v: usize| Constant::new((v as u64).into());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            lanes: Default::default(),
            reference: Default::default(),
            rx_good: Default::default(),
            far_seeking: Default::default(),
            crc: CrcStep::new(&CRC8),
            run: Default::default(),
            seek_run: Default::default(),
            last_index: Default::default(),
            missed: Default::default(),
            tolerant: Constant::new(xfr_cycles == 2),
            start_expected: Constant::new((((xfr_cycles == 1) as u64) << lane).into()),
            lane_bit: Constant::new((1u64 << lane).into()),
            lane_number: Constant::new((lane as u64).into()),
            lane_shift: c8(lane * XFR_BITS),
            magic: Constant::new((TS_MAGIC as u64).into()),
            magic_lsb: c8(TS_MAGIC_LSB),
            index_lsb: c8(TS_INDEX_LSB),
            lane_lsb: c8(TS_LANE_LSB),
            ready_bit: c8(TS_READY_BIT),
            payload_lsb: c8(TS_PAYLOAD_LSB),
            one_index: Constant::new(1u64.into()),
            one_run: Constant::new(1u64.into()),
            run_max: Constant::new((RUN_MAX as u64).into()),
            good_run: Constant::new((GOOD_RUN as u64).into()),
            one_seek: Constant::new(1u64.into()),
            seek_run_max: Constant::new((SEEK_RUN_MAX as u64).into()),
            far_seek_run: Constant::new((FAR_SEEK_RUN as u64).into()),
            zero_crc: Constant::new(0u64.into()),
            no_lanes: Constant::new(0u64.into()),
            word: Default::default(),
            index: Default::default(),
            expected_index: Default::default(),
            in_sequence: Default::default(),
            good: Default::default(),
            lane_valid: Default::default(),
            evaluate: Default::default(),
        }
    }
}

impl Logic for LaneCheck {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, run, seek_run, last_index, missed);
        self.word.next = self
            .lanes
            .data
            .val()
            .get_bits::<32>(self.lane_shift.val().index());
        self.crc.state.next = self.zero_crc.val();
        self.crc.data.next = self
            .word
            .val()
            .get_bits::<24>(self.payload_lsb.val().index());
        self.index.next = self.word.val().get_bits::<2>(self.index_lsb.val().index());
        self.expected_index.next = self.last_index.q.val() + self.one_index.val();
        self.in_sequence.next =
            !self.run.q.val().any() | (self.index.val() == self.expected_index.val());
        self.lane_valid.next = (self.lanes.valid.val() & self.lane_bit.val()).any();
        self.good.next = self.lane_valid.val()
            & ((self.lanes.start.val() & self.lane_bit.val()) == self.start_expected.val())
            & (self.word.val().get_bits::<6>(self.magic_lsb.val().index()) == self.magic.val())
            & (self.word.val().get_bits::<2>(self.lane_lsb.val().index())
                == self.lane_number.val())
            & (self.word.val().get_bits::<8>(0) == self.crc.next_state.val())
            & self.in_sequence.val();
        // The word index is kept whatever the word: it is compared only while `run` > 0, that
        // is right after a good word.
        self.last_index.d.next = self.index.val();
        self.run.d.next = 0.into();
        self.seek_run.d.next = 0.into();
        if self.good.val() {
            self.run.d.next = self.run.q.val();
            if self.run.q.val() != self.run_max.val() {
                self.run.d.next = self.run.q.val() + self.one_run.val();
            }
            if !self.word.val().get_bit(self.ready_bit.val().index()) {
                self.seek_run.d.next = self.seek_run.q.val();
                if self.seek_run.q.val() != self.seek_run_max.val() {
                    self.seek_run.d.next = self.seek_run.q.val() + self.one_seek.val();
                }
            }
        }
        // Counting this word, run >= 2 exactly when run was >= 1 before it.
        self.reference.next = self.no_lanes.val();
        if self.good.val() & self.run.q.val().any() {
            self.reference.next = self.lane_bit.val();
        }
        self.rx_good.next = self.no_lanes.val();
        if self.run.q.val() >= self.good_run.val() {
            self.rx_good.next = self.lane_bit.val();
        }
        self.far_seeking.next = self.no_lanes.val();
        if self.seek_run.q.val() >= self.far_seek_run.val() {
            self.far_seeking.next = self.lane_bit.val();
        }
        // Tolerant: the first empty cycle after a word changes nothing.
        self.evaluate.next = self.lane_valid.val() | !self.tolerant.val() | self.missed.q.val();
        self.missed.d.next = self.tolerant.val() & !self.lane_valid.val() & !self.missed.q.val();
        if !self.evaluate.val() {
            self.run.d.next = self.run.q.val();
            self.seek_run.d.next = self.seek_run.q.val();
            self.last_index.d.next = self.last_index.q.val();
        }
        if self.reset.val() {
            self.missed.d.next = false;
            self.run.d.next = 0.into();
            self.seek_run.d.next = 0.into();
            self.last_index.d.next = 0.into();
        }
    }
}

#[test]
fn lane_check_is_synthesizable() {
    let mut uut = LaneCheck::new(2, 2);
    uut.connect_all();
    yosys_validate("lane_check", &generate_verilog(&uut)).unwrap();
}
