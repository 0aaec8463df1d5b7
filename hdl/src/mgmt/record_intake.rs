//! `RecordIntake`: the byte path of the [`EepromLoader`]: takes the image's bytes from the
//! [`EepromReader`], assembles them into records ([`RecordAssembler`]), runs the image's
//! checksum ([`IMAGE_CRC`]) over the bytes it covers, and checks the entries' addresses, so
//! the loader's sequencer only says which part of the image is coming and reads the results.
//!
//! **What the sequencer says** (levels, one cycle each for the two starts):
//! - `new_image`: a run starts: the checksum starts over, the address check is cleared, and
//!   the next byte is a record's first;
//! - `new_pass`: a pass over the entries starts: the next byte is a record's first;
//! - `header`: the header's bytes are taken; its version and count (bytes 4..8) go into the
//!   checksum (the magic does not, and the stored checksum cannot);
//! - `entries`: entry bytes are taken;
//! - `checking` (with `entries`, pass 1): the entries' bytes go into the checksum and an address
//!   with bit 15 set (bit 7 of the entry's byte 1) raises `bad_address`. Pass 2 reads the same
//!   bytes again and leaves both alone.
//!
//! Bytes are taken (`bytes.ready`) only while `header` or `entries` is high, so a byte the
//! reader shows at any other time waits. `record` holds the record whole (byte `i` in bits
//! `8i..8i+8`) from the cycle after its last byte was taken until the next byte is taken;
//! `record_taken` is high in the cycle its last byte is taken. `checksum` is the CRC of the
//! covered bytes taken so far; `bad_address` holds until `new_image` or reset.
//!
//! **Handshake.** `bytes` follows the stream rules of [`crate::stream`].
//! **Reset** (synchronous): as `new_image`.
//!
//! [`EepromLoader`]: super::eeprom_loader::EepromLoader
//! [`EepromReader`]: super::eeprom_reader::EepromReader
use crate::crc::ParallelCrc;
use crate::mgmt::eeprom_image::IMAGE_CRC;
use crate::mgmt::record_assembler::{RecordAssembler, RECORD_BITS};
use crate::stream::StreamSink;
use rust_hdl::prelude::*;

/// Width of the image's checksum.
pub const CHECKSUM_BITS: usize = 16;

/// The loader's byte path; see the module documentation.
#[derive(LogicBlock)]
pub struct RecordIntake {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: as `new_image`.
    pub reset: Signal<In, bool>,
    /// The image's bytes, in address order.
    pub bytes: StreamSink<Bits<8>>,
    /// A run starts: checksum and address check afresh, the next byte a record's first.
    pub new_image: Signal<In, bool>,
    /// A pass over the entries starts: the next byte is a record's first.
    pub new_pass: Signal<In, bool>,
    /// Take the header's bytes.
    pub header: Signal<In, bool>,
    /// Take entry bytes.
    pub entries: Signal<In, bool>,
    /// With `entries`: pass 1, the entries' bytes are checksummed and their addresses checked.
    pub checking: Signal<In, bool>,
    /// The record, byte 0 in the low bits (whole after its last byte was taken).
    pub record: Signal<Out, Bits<RECORD_BITS>>,
    /// A record's last byte is taken this cycle.
    pub record_taken: Signal<Out, bool>,
    /// CRC of the covered bytes taken since `new_image`.
    pub checksum: Signal<Out, Bits<CHECKSUM_BITS>>,
    /// A checked entry's address had bit 15 set (since `new_image`).
    pub bad_address: Signal<Out, bool>,
    assembler: RecordAssembler,
    /// The checksum's generator (not named `crc`, its output's name: Verilator's VARHIDDEN).
    crc_generator: ParallelCrc<CHECKSUM_BITS, 8>,
    wide_address: DFF<bool>,
    /// A byte is taken this cycle.
    take: Signal<Local, bool>,
}

impl Default for RecordIntake {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            bytes: Default::default(),
            new_image: Default::default(),
            new_pass: Default::default(),
            header: Default::default(),
            entries: Default::default(),
            checking: Default::default(),
            record: Default::default(),
            record_taken: Default::default(),
            checksum: Default::default(),
            bad_address: Default::default(),
            assembler: Default::default(),
            crc_generator: ParallelCrc::new(&IMAGE_CRC),
            wide_address: Default::default(),
            take: Default::default(),
        }
    }
}

impl Logic for RecordIntake {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wide_address);
        clock!(self, clock, assembler, crc_generator);
        self.bytes.ready.next = self.header.val() | self.entries.val();
        self.take.next = self.bytes.valid.val() & self.bytes.ready.val();

        self.assembler.reset.next = self.reset.val();
        self.assembler.restart.next = self.new_image.val() | self.new_pass.val();
        self.assembler.take.next = self.take.val();
        self.assembler.incoming.next = self.bytes.data.val();
        self.record.next = self.assembler.record.val();
        self.record_taken.next = self.take.val() & self.assembler.record_end.val();

        self.crc_generator.reset.next = self.reset.val();
        self.crc_generator.start.next = self.new_image.val();
        self.crc_generator.data.next = self.bytes.data.val();
        self.crc_generator.valid.next = self.take.val()
            & ((self.header.val()
                & (self.assembler.index.val() >= 4)
                & (self.assembler.index.val() < 8))
                | (self.entries.val() & self.checking.val()));
        self.checksum.next = self.crc_generator.crc.val();

        // Bit 15 of an address is bit 7 of the entry's byte 1.
        self.bad_address.next = self.wide_address.q.val();
        if self.take.val()
            & self.entries.val()
            & self.checking.val()
            & (self.assembler.index.val() == 1)
            & self.bytes.data.val().get_bit(7)
        {
            self.wide_address.d.next = true;
        }
        if self.new_image.val() | self.reset.val() {
            self.wide_address.d.next = false;
        }
    }
}

#[test]
fn record_intake_is_synthesizable() {
    let mut uut = RecordIntake::default();
    uut.connect_all();
    yosys_validate("record_intake", &generate_verilog(&uut)).unwrap();
}
