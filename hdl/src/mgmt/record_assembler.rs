//! `RecordAssembler`: the byte-assembly stage of the [`EepromLoader`]: gathers the image's
//! bytes into 10-byte records (the header, then each entry), byte 0 in the low bits.
//!
//! On each edge with `take` the byte on `incoming` shifts in at the top of `record`, so after a
//! record's last byte `record` holds it whole (byte `i` in bits `8i..8i+8`) until the next
//! byte is taken. `index` counts the bytes of the current record taken; `record_end` is high
//! while the byte at hand is a record's last, so `take && record_end` completes a record.
//! `restart` (or reset) makes the next byte a record's first.
//!
//! [`EepromLoader`]: super::eeprom_loader::EepromLoader
use crate::mgmt::eeprom_image::ENTRY_BYTES;
use rust_hdl::prelude::*;

/// Bits of a record (the header or an entry).
pub const RECORD_BITS: usize = 8 * ENTRY_BYTES;
/// Width of `index`.
pub const RECORD_INDEX_BITS: usize = crate::bits::index_bits(ENTRY_BYTES);

// A byte enters at bit 72 (`update` cannot name the constant).
const _: () = assert!(RECORD_BITS == 80);

/// Gathers bytes into records; see the module documentation.
#[derive(LogicBlock)]
pub struct RecordAssembler {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: as `restart`.
    pub reset: Signal<In, bool>,
    /// The next byte taken is a record's first.
    pub restart: Signal<In, bool>,
    /// The byte at hand.
    pub incoming: Signal<In, Bits<8>>,
    /// `incoming` is taken on this edge.
    pub take: Signal<In, bool>,
    /// The record (complete after its last byte was taken).
    pub record: Signal<Out, Bits<RECORD_BITS>>,
    /// Bytes of the current record taken so far.
    pub index: Signal<Out, Bits<RECORD_INDEX_BITS>>,
    /// The byte at hand is its record's last.
    pub record_end: Signal<Out, bool>,
    last_index: Constant<Bits<RECORD_INDEX_BITS>>,
    shifted: DFF<Bits<RECORD_BITS>>,
    taken: DFF<Bits<RECORD_INDEX_BITS>>,
}

impl Default for RecordAssembler {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            restart: Default::default(),
            incoming: Default::default(),
            take: Default::default(),
            record: Default::default(),
            index: Default::default(),
            record_end: Default::default(),
            last_index: Constant::new(((ENTRY_BYTES - 1) as u64).into()),
            shifted: Default::default(),
            taken: Default::default(),
        }
    }
}

impl Logic for RecordAssembler {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, shifted, taken);
        self.record.next = self.shifted.q.val();
        self.index.next = self.taken.q.val();
        self.record_end.next = self.taken.q.val() == self.last_index.val();
        if self.take.val() {
            self.shifted.d.next = (self.shifted.q.val() >> 8)
                | (bit_cast::<RECORD_BITS, 8>(self.incoming.val()) << 72);
            self.taken.d.next = self.taken.q.val() + 1;
            if self.record_end.val() {
                self.taken.d.next = 0.into();
            }
        }
        if self.restart.val() | self.reset.val() {
            self.taken.d.next = 0.into();
        }
    }
}

#[test]
fn record_assembler_is_synthesizable() {
    let mut uut = RecordAssembler::default();
    uut.connect_all();
    yosys_validate("record_assembler", &generate_verilog(&uut)).unwrap();
}
