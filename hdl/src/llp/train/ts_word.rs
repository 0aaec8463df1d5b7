//! The training-sequence (TS) word: its layout, defined once here as Rust constants and
//! functions (used by the hardware, the reference model and the benches), and [`TsGenerator`],
//! the combinational block that builds the four lanes' TS words of one cycle.
//!
//! Layout of the TS word on physical lane `n` (bit 31 first):
//!
//! | bits | field | meaning |
//! |---|---|---|
//! | 31:26 | magic | [`TS_MAGIC`] = `0b101101` |
//! | 25:24 | index | word index `w`, advancing every cycle, the same on all lanes |
//! | 23:22 | lane | `n`, the physical lane the word was sent on (catches crossed lanes) |
//! | 21 | fresh | the sender has not been up since its reset |
//! | 20 | ready | the sender is in READY |
//! | 19:16 | mask | in SEEK the sender's live `rx_good`, in READY its frozen receive mask |
//! | 15:8 | payload | `w` = 0 chip type, 1 chip id high byte, 2 chip id low byte, 3 port number |
//! | 7:0 | crc | CRC-8/SMBUS ([`crate::crc::CRC8`]) of bits 31:8 as one 24-bit word |
//!
//! The CRC is unreflected, so bit 31 is fed first and bit 8 last (see [`crate::crc::spec`]),
//! from a zero register; [`ts_crc`] is the software definition.
//!
//! Why a CRC per lane costs one CRC step: CRC-8/SMBUS has zero `init` and zero `xorout`, so it
//! is linear over GF(2): `crc(body ^ lane) = crc(body) ^ crc(lane)`. The generator computes the
//! CRC of the lane-independent body once and XORs in a per-lane constant holding the lane field
//! and that field's own CRC, computed at elaboration by [`ts_crc`].
use crate::crc::{CrcStep, CRC8};
use crate::llp::lane_channel::{LaneChannelOut, MAX_LANES, XFR_BITS};
use rust_hdl::prelude::*;

/// The magic of every TS word (bits 31:26).
pub const TS_MAGIC: u32 = 0b10_1101;
/// Lowest bit of the magic field (6 bits).
pub const TS_MAGIC_LSB: usize = 26;
/// Lowest bit of the word index field (2 bits).
pub const TS_INDEX_LSB: usize = 24;
/// Lowest bit of the lane field (2 bits).
pub const TS_LANE_LSB: usize = 22;
/// The fresh bit.
pub const TS_FRESH_BIT: usize = 21;
/// The ready bit.
pub const TS_READY_BIT: usize = 20;
/// Lowest bit of the mask field (4 bits, one per lane).
pub const TS_MASK_LSB: usize = 16;
/// Lowest bit of the payload byte; also the lowest bit the CRC covers.
pub const TS_PAYLOAD_LSB: usize = 8;
/// Bits covered by the CRC (31:8).
pub const TS_BODY_BITS: usize = 24;

/// Consecutive good TS words that make a lane good (`rx_good`).
pub const GOOD_RUN: u32 = 8;
/// `run` saturates here.
pub const RUN_MAX: u32 = 15;
/// A good word is a reference word if its lane's run (counting it) reaches this.
pub const REFERENCE_RUN: u32 = 2;
/// Consecutive good words with ready = 0 on one lane that take an UP link down: the far end
/// started training again.
pub const FAR_SEEK_RUN: u32 = 4;
/// `seek_run` saturates here (3 bits).
pub const SEEK_RUN_MAX: u32 = 7;
/// Ready reference words (with one mask) to hear before going up; `heard` saturates here.
pub const HEARD_NEEDED: u32 = 8;
/// Ready words to send after first hearing one, before going up; `told` saturates here.
pub const TOLD_NEEDED: u32 = 16;

/// The fields of a TS word (everything but the magic and the CRC).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TsFields {
    /// Word index `w` (0..4).
    pub index: u8,
    /// Physical lane (0..4).
    pub lane: u8,
    /// The sender has not been up since its reset.
    pub fresh: bool,
    /// The sender is in READY.
    pub ready: bool,
    /// Lane mask (4 bits).
    pub mask: u8,
    /// The identity byte for `index` (see [`ts_payload`]).
    pub payload: u8,
}

/// CRC-8/SMBUS of bits 31:8 of `word`, fed from bit 31 down to bit 8 (zero register).
pub fn ts_crc(word: u32) -> u8 {
    CRC8.checksum_words(&[(word >> TS_PAYLOAD_LSB) as u128], TS_BODY_BITS) as u8
}

/// The identity byte a TS word with index `index` carries.
pub fn ts_payload(index: u8, chip_type: u8, chip_id: u16, port_number: u8) -> u8 {
    match index & 3 {
        0 => chip_type,
        1 => (chip_id >> 8) as u8,
        2 => chip_id as u8,
        _ => port_number,
    }
}

/// The TS word of `f`, with magic and CRC.
pub fn ts_encode(f: &TsFields) -> u32 {
    let body = (TS_MAGIC << TS_MAGIC_LSB)
        | ((f.index as u32 & 3) << TS_INDEX_LSB)
        | ((f.lane as u32 & 3) << TS_LANE_LSB)
        | ((f.fresh as u32) << TS_FRESH_BIT)
        | ((f.ready as u32) << TS_READY_BIT)
        | ((f.mask as u32 & 0xF) << TS_MASK_LSB)
        | ((f.payload as u32) << TS_PAYLOAD_LSB);
    body | ts_crc(body) as u32
}

/// The fields of `word` if its magic and CRC are right (lane and sequence are the receiver's
/// checks).
pub fn ts_decode(word: u32) -> Option<TsFields> {
    if word >> TS_MAGIC_LSB != TS_MAGIC || ts_crc(word) != word as u8 {
        return None;
    }
    Some(TsFields {
        index: ((word >> TS_INDEX_LSB) & 3) as u8,
        lane: ((word >> TS_LANE_LSB) & 3) as u8,
        fresh: (word >> TS_FRESH_BIT) & 1 == 1,
        ready: (word >> TS_READY_BIT) & 1 == 1,
        mask: ((word >> TS_MASK_LSB) & 0xF) as u8,
        payload: (word >> TS_PAYLOAD_LSB) as u8,
    })
}

/// Builds the four lanes' TS words of one cycle (valid and start high on every lane).
#[derive(LogicBlock)]
pub struct TsGenerator {
    /// Word index `w`.
    pub index: Signal<In, Bits<2>>,
    /// Our fresh bit.
    pub fresh: Signal<In, bool>,
    /// Our ready bit.
    pub ready: Signal<In, bool>,
    /// The mask to send.
    pub mask: Signal<In, Bits<4>>,
    /// Our identity.
    pub chip_type: Signal<In, Bits<8>>,
    /// Our identity.
    pub chip_id: Signal<In, Bits<16>>,
    /// Our identity.
    pub port_number: Signal<In, Bits<8>>,
    /// The TS words, one per physical lane.
    pub lanes: LaneChannelOut,
    /// CRC of the lane-independent body (lane field zero).
    crc: CrcStep<8, TS_BODY_BITS>,
    magic_field: Constant<Bits<32>>,
    fresh_field: Constant<Bits<32>>,
    ready_field: Constant<Bits<32>>,
    index_lsb: Constant<Bits<8>>,
    mask_lsb: Constant<Bits<8>>,
    payload_lsb: Constant<Bits<8>>,
    index_one: Constant<Bits<2>>,
    index_two: Constant<Bits<2>>,
    index_three: Constant<Bits<2>>,
    all_lanes: Constant<Bits<4>>,
    zero_crc: Constant<Bits<8>>,
    /// Per lane: the lane field and its CRC (see the module documentation).
    lane_terms: Vec<Constant<Bits<32>>>,
    /// Per lane: its first bit in `data`.
    lane_shift: Vec<Constant<Bits<8>>>,
    payload: Signal<Local, Bits<8>>,
    flag_fields: Signal<Local, Bits<32>>,
    body: Signal<Local, Bits<32>>,
    common: Signal<Local, Bits<32>>,
    lane_word: Signal<Local, Bits<32>>,
    data_acc: Signal<Local, Bits<128>>,
}

impl Default for TsGenerator {
    fn default() -> Self {
        Self {
            index: Default::default(),
            fresh: Default::default(),
            ready: Default::default(),
            mask: Default::default(),
            chip_type: Default::default(),
            chip_id: Default::default(),
            port_number: Default::default(),
            lanes: Default::default(),
            crc: CrcStep::new(&CRC8),
            magic_field: Constant::new(((TS_MAGIC as u64) << TS_MAGIC_LSB).into()),
            fresh_field: Constant::new((1u64 << TS_FRESH_BIT).into()),
            ready_field: Constant::new((1u64 << TS_READY_BIT).into()),
            index_lsb: Constant::new((TS_INDEX_LSB as u64).into()),
            mask_lsb: Constant::new((TS_MASK_LSB as u64).into()),
            payload_lsb: Constant::new((TS_PAYLOAD_LSB as u64).into()),
            index_one: Constant::new(1u64.into()),
            index_two: Constant::new(2u64.into()),
            index_three: Constant::new(3u64.into()),
            all_lanes: Constant::new(0xFu64.into()),
            zero_crc: Constant::new(0u64.into()),
            lane_terms: (0..MAX_LANES)
                .map(|n| {
                    let field = (n as u32) << TS_LANE_LSB;
                    Constant::new(((field | ts_crc(field) as u32) as u64).into())
                })
                .collect(),
            lane_shift: (0..MAX_LANES)
                .map(|n| Constant::new(((n * XFR_BITS) as u64).into()))
                .collect(),
            payload: Default::default(),
            flag_fields: Default::default(),
            body: Default::default(),
            common: Default::default(),
            lane_word: Default::default(),
            data_acc: Default::default(),
        }
    }
}

impl Logic for TsGenerator {
    #[hdl_gen]
    fn update(&mut self) {
        self.payload.next = self.chip_type.val();
        if self.index.val() == self.index_one.val() {
            self.payload.next = self.chip_id.val().get_bits::<8>(8);
        }
        if self.index.val() == self.index_two.val() {
            self.payload.next = self.chip_id.val().get_bits::<8>(0);
        }
        if self.index.val() == self.index_three.val() {
            self.payload.next = self.port_number.val();
        }
        self.flag_fields.next = 0.into();
        if self.fresh.val() {
            self.flag_fields.next = self.fresh_field.val();
        }
        if self.ready.val() {
            self.flag_fields.next = self.flag_fields.val() | self.ready_field.val();
        }
        self.body.next = self.magic_field.val()
            | self.flag_fields.val()
            | (bit_cast::<32, 2>(self.index.val()) << self.index_lsb.val())
            | (bit_cast::<32, 4>(self.mask.val()) << self.mask_lsb.val())
            | (bit_cast::<32, 8>(self.payload.val()) << self.payload_lsb.val());
        self.crc.state.next = self.zero_crc.val();
        self.crc.data.next = self
            .body
            .val()
            .get_bits::<24>(self.payload_lsb.val().index());
        self.common.next = self.body.val() | bit_cast::<32, 8>(self.crc.next_state.val());
        self.data_acc.next = 0.into();
        for n in 0..MAX_LANES {
            // Reused per lane: `bit_cast` cannot take a loop-indexed operand.
            self.lane_word.next = self.common.val() ^ self.lane_terms[n].val();
            self.data_acc.next = self.data_acc.val()
                | (bit_cast::<128, 32>(self.lane_word.val()) << self.lane_shift[n].val());
        }
        self.lanes.valid.next = self.all_lanes.val();
        self.lanes.start.next = self.all_lanes.val();
        self.lanes.data.next = self.data_acc.val();
    }
}

#[test]
fn ts_generator_is_synthesizable() {
    let mut uut = TsGenerator::default();
    uut.connect_all();
    yosys_validate("ts_generator", &generate_verilog(&uut)).unwrap();
}

#[test]
fn ts_words_round_trip() {
    let f = TsFields {
        index: 2,
        lane: 3,
        fresh: true,
        ready: false,
        mask: 0b1011,
        payload: 0x5A,
    };
    let w = ts_encode(&f);
    assert_eq!(w >> TS_MAGIC_LSB, TS_MAGIC);
    assert_eq!(ts_decode(w), Some(f));
    assert_eq!(
        ts_decode(w ^ (1 << 12)),
        None,
        "a flipped payload bit fails the CRC"
    );
}
