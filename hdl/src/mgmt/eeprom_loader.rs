//! `EepromLoader`: after reset, fills configuration registers from the EEPROM image
//! ([`eeprom_image`](super::eeprom_image): header, entries, checksum), so a chip comes up
//! configured (routing tables included, through their indirect registers) without a
//! management server. A blank, corrupt or absent EEPROM writes no register at all: the
//! registers keep their reset values and the loader raises a fault.
//!
//! **Sequence** (one run after every reset, and after power-up, which is reset's state):
//! 1. read the header ([`HEADER_BYTES`] bytes at `base`) and check it: magic all ones or all
//!    zeros is *blank*; another magic than the image's, another version, or more than
//!    `max_entries` entries is *corrupt*;
//! 2. pass 1: read every entry, computing the checksum ([`IMAGE_CRC`] over `version`, `count`
//!    and the entries) and checking that no address has bit 15 set; a mismatch or such an
//!    address is *corrupt*;
//! 3. pass 2: read the entries again and write each value to its register through
//!    `registers`, one write at a time, each waiting for its response. A write answered with
//!    an error (unmapped or read-only register), or an address that does not fit the port's
//!    `A` bits, is *refused*: a `refused` pulse (for the chip's counter) and the `refused` status
//!    bit, and the loader goes on with the next entry;
//! 4. done: `busy` falls, `done` rises, and `status` shows the outcome until the next reset.
//!
//! The EEPROM is read as one byte stream in reads of up to 6 bytes ([`EepromReader`]): about
//! `HEADER_BYTES + 2 * ENTRY_BYTES * count` bytes in `ceil(.. / 6)` reads. An EEPROM error
//! (the part does not acknowledge, after `EepAccess`'s polls) at any read ends the run as
//! *absent*. Absent before pass 2 writes nothing; in pass 2 (the part went away in the few
//! milliseconds between the passes) the registers already written keep their values, the
//! rest their reset values. Pass 2 does not check the checksum again: a part whose contents
//! change between the passes is out of scope.
//!
//! **Outputs.** `busy` (high from reset until done), `done` (high once finished, whatever
//! the outcome); one-cycle pulses `blank`, `corrupt`, `absent` (one per run at most, when the
//! run ends) and `refused` (one per refused entry); `status` ([`LoaderStatus`] bits, held,
//! for a read-only register of the chip's register file).
//!
//! **Ports.** `eeprom`/`eeprom_result` to the EEPROM unit (reads only); `registers`/
//! `register_responses` to the register file (writes only; one outstanding; responses are
//! taken at once). All follow the stream rules of [`crate::stream`].
//! **Reset** (synchronous) starts a new run; the EEPROM unit and the register path must be
//! reset with the loader (a result or response of a request cut by the reset would otherwise
//! be taken as the answer to the next one).
//!
//! Parameters: `A` register address bits (15 for the NRC, 12 for the NIC); `base` (the
//! image's byte address) and `max_entries` ([`EepromLoader::new`]; the image must fit in the
//! 64 KiB part).
use crate::crc::ParallelCrc;
use crate::mgmt::eep_access::{EepCommandSource, EepResultSink, EEP_ADDRESS_BITS};
use crate::mgmt::eeprom_image::{
    entries_that_fit, magic_word, ENTRY_BYTES, HEADER_BYTES, IMAGE_ADDRESS_BITS, IMAGE_CRC,
    IMAGE_VERSION,
};
use crate::mgmt::eeprom_reader::{EepromReader, RUN_LENGTH_BITS};
use crate::regmap::port::{RegError, RegRequestSource, RegResponseSink, ERROR_BITS};
use rust_hdl::prelude::*;

/// Bits of a record (the header or an entry).
pub const RECORD_BITS: usize = 8 * ENTRY_BYTES;
/// Width of `status`.
pub const LOADER_STATUS_BITS: usize = 6;
/// Width of the entry count.
pub const COUNT_BITS: usize = 16;

/// The bits of the loader's `status`, defined once (hardware, bench, register documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoaderStatus {
    /// Loading is in progress (reset's state).
    Busy,
    /// The image was valid and every entry was written or refused.
    Loaded,
    /// No image: the magic was all ones or all zeros. No register written.
    Blank,
    /// The image was corrupt (magic, version, count, an address or the checksum). No register
    /// written.
    Corrupt,
    /// The EEPROM did not acknowledge. No register written unless it went away in pass 2.
    Absent,
    /// At least one entry's write was refused (unmapped or read-only register, or an address
    /// wider than the port).
    Refused,
}

impl LoaderStatus {
    /// Every bit, in bit order.
    pub const ALL: [LoaderStatus; LOADER_STATUS_BITS] = [
        LoaderStatus::Busy,
        LoaderStatus::Loaded,
        LoaderStatus::Blank,
        LoaderStatus::Corrupt,
        LoaderStatus::Absent,
        LoaderStatus::Refused,
    ];
    /// The bit's position in `status`.
    pub const fn bit(self) -> usize {
        match self {
            LoaderStatus::Busy => 0,
            LoaderStatus::Loaded => 1,
            LoaderStatus::Blank => 2,
            LoaderStatus::Corrupt => 3,
            LoaderStatus::Absent => 4,
            LoaderStatus::Refused => 5,
        }
    }
    /// The bit's mask in `status`.
    pub const fn mask(self) -> u64 {
        1 << self.bit()
    }
}

/// Where the loader is.
#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
enum Stage {
    /// Start reading the header (the power-up and reset state).
    ReadHeader,
    /// The header's bytes come in.
    Header,
    /// Check the header.
    CheckHeader,
    /// Start reading the entries (either pass).
    ReadEntries,
    /// The entries' bytes come in (pass 1: checksum; pass 2: one entry at a time).
    Entries,
    /// Compare the checksum.
    Verify,
    /// Pass 2: the entry's write is offered.
    Write,
    /// Pass 2: its response is awaited.
    Answer,
    /// Finished; `status` holds the outcome.
    Done,
}

/// The configuration loader; see the module documentation.
#[derive(LogicBlock)]
pub struct EepromLoader<const A: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: a new run.
    pub reset: Signal<In, bool>,
    /// Read commands to the EEPROM unit.
    pub eeprom: EepCommandSource,
    /// Their results.
    pub eeprom_result: EepResultSink,
    /// Register writes.
    pub registers: RegRequestSource<A, 64>,
    /// Their responses.
    pub register_responses: RegResponseSink<64>,
    /// Loading is in progress.
    pub busy: Signal<Out, bool>,
    /// Loading has finished (any outcome).
    pub done: Signal<Out, bool>,
    /// One cycle: the EEPROM holds no image.
    pub blank: Signal<Out, bool>,
    /// One cycle: the image is corrupt.
    pub corrupt: Signal<Out, bool>,
    /// One cycle: the EEPROM does not answer.
    pub absent: Signal<Out, bool>,
    /// One cycle: an entry's write was refused.
    pub refused: Signal<Out, bool>,
    /// [`LoaderStatus`] bits, held until reset.
    pub status: Signal<Out, Bits<LOADER_STATUS_BITS>>,
    reader: EepromReader,
    checksum: ParallelCrc<16, 8>,
    base: Constant<Bits<EEP_ADDRESS_BITS>>,
    entries_base: Constant<Bits<EEP_ADDRESS_BITS>>,
    max_entries: Constant<Bits<COUNT_BITS>>,
    magic: Constant<Bits<32>>,
    version: Constant<Bits<16>>,
    /// Address bits an entry may have but the port has not (zero when `A` is 15).
    beyond_port: Constant<Bits<16>>,
    error_none: Constant<Bits<ERROR_BITS>>,
    header_length: Constant<Bits<RUN_LENGTH_BITS>>,
    /// Index of a record's last byte.
    last_index: Constant<Bits<4>>,
    busy_bit: Constant<Bits<LOADER_STATUS_BITS>>,
    loaded_bit: Constant<Bits<LOADER_STATUS_BITS>>,
    blank_bit: Constant<Bits<LOADER_STATUS_BITS>>,
    corrupt_bit: Constant<Bits<LOADER_STATUS_BITS>>,
    absent_bit: Constant<Bits<LOADER_STATUS_BITS>>,
    refused_bit: Constant<Bits<LOADER_STATUS_BITS>>,
    stage: DFF<Stage>,
    /// Pass 2 (else pass 1).
    second_pass: DFF<bool>,
    /// The record being assembled, byte 0 in the low bits.
    record: DFF<Bits<RECORD_BITS>>,
    /// Bytes of the current record taken.
    index: DFF<Bits<4>>,
    /// Entries of the current pass finished.
    entries: DFF<Bits<COUNT_BITS>>,
    count: DFF<Bits<COUNT_BITS>>,
    stored_checksum: DFF<Bits<16>>,
    /// Pass 1 saw an address with bit 15 set.
    bad_address: DFF<bool>,
    /// The outcome's `status` bits (all but `Busy`).
    held: DFF<Bits<LOADER_STATUS_BITS>>,
    /// The pulses, one register each.
    blank_pulse: DFF<bool>,
    corrupt_pulse: DFF<bool>,
    absent_pulse: DFF<bool>,
    refused_pulse: DFF<bool>,
    /// A byte is taken this cycle.
    take: Signal<Local, bool>,
    /// It is the last of its record.
    record_end: Signal<Local, bool>,
    magic_read: Signal<Local, Bits<32>>,
    count_read: Signal<Local, Bits<COUNT_BITS>>,
    /// Bytes of `count` entries: `10 * count`.
    entries_length: Signal<Local, Bits<RUN_LENGTH_BITS>>,
    entries_next: Signal<Local, Bits<COUNT_BITS>>,
    /// Every entry of the pass has been taken.
    last_entry: Signal<Local, bool>,
    /// Write responses carry no data.
    unused_response_data: Signal<Local, Bits<64>>,
    /// The reader is always idle where a run starts (each run's bytes are all taken first).
    unused_reader_idle: Signal<Local, bool>,
}

/// The mask of one status bit, as the hardware's constant.
fn status_bit(s: LoaderStatus) -> Constant<Bits<LOADER_STATUS_BITS>> {
    Constant::new(s.mask().into())
}

// The record is shifted in byte by byte at bit 72 (`update` cannot name the constant).
const _: () = assert!(RECORD_BITS == 80 && HEADER_BYTES == ENTRY_BYTES);

impl<const A: usize> EepromLoader<A> {
    /// A loader of the image at byte address `base` holding at most `max_entries` entries.
    /// Panics, naming the parameter, if `A` is not 1..=15 or the largest image does not fit
    /// in the part.
    pub fn new(base: usize, max_entries: usize) -> Self {
        assert!(
            (1..=IMAGE_ADDRESS_BITS).contains(&A),
            "EepromLoader: A (register address bits) must be 1..={IMAGE_ADDRESS_BITS}, got {A}"
        );
        assert!(
            max_entries <= entries_that_fit(base),
            "EepromLoader: max_entries {max_entries} at base {base:#x} does not fit in the 64 KiB part (at most {})",
            entries_that_fit(base)
        );
        let beyond = ((1u64 << IMAGE_ADDRESS_BITS) - 1) & !((1u64 << A) - 1);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            eeprom: Default::default(),
            eeprom_result: Default::default(),
            registers: Default::default(),
            register_responses: Default::default(),
            busy: Default::default(),
            done: Default::default(),
            blank: Default::default(),
            corrupt: Default::default(),
            absent: Default::default(),
            refused: Default::default(),
            status: Default::default(),
            reader: Default::default(),
            checksum: ParallelCrc::new(&IMAGE_CRC),
            base: Constant::new((base as u64).into()),
            entries_base: Constant::new(((base + HEADER_BYTES) as u64).into()),
            max_entries: Constant::new((max_entries as u64).into()),
            magic: Constant::new((magic_word() as u64).into()),
            version: Constant::new((IMAGE_VERSION as u64).into()),
            beyond_port: Constant::new(beyond.into()),
            error_none: Constant::new(RegError::None.bits()),
            header_length: Constant::new((HEADER_BYTES as u64).into()),
            last_index: Constant::new(((ENTRY_BYTES - 1) as u64).into()),
            busy_bit: status_bit(LoaderStatus::Busy),
            loaded_bit: status_bit(LoaderStatus::Loaded),
            blank_bit: status_bit(LoaderStatus::Blank),
            corrupt_bit: status_bit(LoaderStatus::Corrupt),
            absent_bit: status_bit(LoaderStatus::Absent),
            refused_bit: status_bit(LoaderStatus::Refused),
            stage: Default::default(),
            second_pass: Default::default(),
            record: Default::default(),
            index: Default::default(),
            entries: Default::default(),
            count: Default::default(),
            stored_checksum: Default::default(),
            bad_address: Default::default(),
            held: Default::default(),
            blank_pulse: Default::default(),
            corrupt_pulse: Default::default(),
            absent_pulse: Default::default(),
            refused_pulse: Default::default(),
            take: Default::default(),
            record_end: Default::default(),
            magic_read: Default::default(),
            count_read: Default::default(),
            entries_length: Default::default(),
            entries_next: Default::default(),
            last_entry: Default::default(),
            unused_response_data: Default::default(),
            unused_reader_idle: Default::default(),
        }
    }
}

impl<const A: usize> Logic for EepromLoader<A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            stage,
            second_pass,
            record,
            index,
            entries,
            count,
            stored_checksum,
            bad_address,
            held,
            blank_pulse,
            corrupt_pulse,
            absent_pulse,
            refused_pulse
        );
        clock!(self, clock, reader, checksum);
        EepCommandSource::link(&mut self.eeprom, &mut self.reader.eeprom);
        EepResultSink::link(&mut self.eeprom_result, &mut self.reader.eeprom_result);
        self.reader.reset.next = self.reset.val();
        self.checksum.reset.next = self.reset.val();
        self.unused_response_data.next = self.register_responses.data.val();
        self.unused_reader_idle.next = self.reader.idle.val();

        // Outputs: the pulses and the held outcome come from flip-flops.
        self.busy.next = self.stage.q.val() != Stage::Done;
        self.done.next = self.stage.q.val() == Stage::Done;
        self.status.next = self.held.q.val();
        if self.stage.q.val() != Stage::Done {
            self.status.next = self.held.q.val() | self.busy_bit.val();
        }
        self.blank.next = self.blank_pulse.q.val();
        self.corrupt.next = self.corrupt_pulse.q.val();
        self.absent.next = self.absent_pulse.q.val();
        self.refused.next = self.refused_pulse.q.val();
        self.blank_pulse.d.next = false;
        self.corrupt_pulse.d.next = false;
        self.absent_pulse.d.next = false;
        self.refused_pulse.d.next = false;

        // Bytes: taken while a record is assembled; each shifts in at the top, so byte 0 of a
        // record ends in bits 7..0 after its last byte.
        self.reader.bytes.ready.next =
            (self.stage.q.val() == Stage::Header) | (self.stage.q.val() == Stage::Entries);
        self.take.next = self.reader.bytes.valid.val() & self.reader.bytes.ready.val();
        self.record_end.next = self.index.q.val() == self.last_index.val();
        if self.take.val() {
            self.record.d.next = (self.record.q.val() >> 8)
                | (bit_cast::<RECORD_BITS, 8>(self.reader.bytes.data.val()) << 72);
            self.index.d.next = self.index.q.val() + 1;
            if self.record_end.val() {
                self.index.d.next = 0.into();
            }
        }
        // The checksum covers the header's version and count (bytes 4..8) and pass 1's bytes.
        self.checksum.start.next = self.stage.q.val() == Stage::ReadHeader;
        self.checksum.data.next = self.reader.bytes.data.val();
        self.checksum.valid.next = self.take.val()
            & (((self.stage.q.val() == Stage::Header)
                & (self.index.q.val() >= 4)
                & (self.index.q.val() < 8))
                | ((self.stage.q.val() == Stage::Entries) & !self.second_pass.q.val()));

        self.magic_read.next = self.record.q.val().get_bits::<32>(0);
        self.count_read.next = self.record.q.val().get_bits::<COUNT_BITS>(48);
        self.entries_length.next = (self.count.q.val() << 3) + (self.count.q.val() << 1);
        self.reader.start.next = false;
        self.reader.address.next = self.entries_base.val();
        self.reader.length.next = self.entries_length.val();
        self.entries_next.next = self.entries.q.val() + 1;
        self.last_entry.next = self.entries.q.val() == self.count.q.val();
        self.registers.valid.next = self.stage.q.val() == Stage::Write;
        self.registers.write.next = true;
        self.registers.address.next = self.record.q.val().get_bits::<A>(0);
        self.registers.data.next = self.record.q.val().get_bits::<64>(16);
        self.register_responses.ready.next = self.stage.q.val() == Stage::Answer;

        match self.stage.q.val() {
            Stage::ReadHeader => {
                self.reader.start.next = true;
                self.reader.address.next = self.base.val();
                self.reader.length.next = self.header_length.val();
                self.index.d.next = 0.into();
                self.bad_address.d.next = false;
                self.second_pass.d.next = false;
                self.stage.d.next = Stage::Header;
            }
            Stage::Header => {
                if self.take.val() & self.record_end.val() {
                    self.stage.d.next = Stage::CheckHeader;
                }
            }
            Stage::CheckHeader => {
                self.count.d.next = self.count_read.val();
                self.stored_checksum.d.next = self.record.q.val().get_bits::<16>(64);
                self.stage.d.next = Stage::ReadEntries;
                if (self.magic_read.val() == 0) | self.magic_read.val().all() {
                    self.blank_pulse.d.next = true;
                    self.held.d.next = self.blank_bit.val();
                    self.stage.d.next = Stage::Done;
                } else if (self.magic_read.val() != self.magic.val())
                    | (self.record.q.val().get_bits::<16>(32) != self.version.val())
                    | (self.count_read.val() > self.max_entries.val())
                {
                    self.corrupt_pulse.d.next = true;
                    self.held.d.next = self.corrupt_bit.val();
                    self.stage.d.next = Stage::Done;
                }
            }
            Stage::ReadEntries => {
                self.reader.start.next = true;
                self.entries.d.next = 0.into();
                self.index.d.next = 0.into();
                self.stage.d.next = Stage::Entries;
            }
            Stage::Entries => {
                // Bit 15 of an address is bit 7 of the entry's byte 1.
                if self.take.val()
                    & (self.index.q.val() == 1)
                    & self.reader.bytes.data.val().get_bit(7)
                {
                    self.bad_address.d.next = true;
                }
                if self.take.val() & self.record_end.val() {
                    self.entries.d.next = self.entries_next.val();
                    if self.second_pass.q.val() {
                        self.stage.d.next = Stage::Write;
                    }
                }
                if !self.second_pass.q.val() & self.last_entry.val() {
                    self.stage.d.next = Stage::Verify;
                }
                // An EEPROM error ends the run (the reader shows no byte after it).
                if self.reader.failed.val() {
                    self.absent_pulse.d.next = true;
                    self.held.d.next = self.held.q.val() | self.absent_bit.val();
                    self.stage.d.next = Stage::Done;
                }
            }
            Stage::Verify => {
                self.second_pass.d.next = true;
                self.stage.d.next = Stage::ReadEntries;
                if (self.checksum.crc.val() != self.stored_checksum.q.val())
                    | self.bad_address.q.val()
                {
                    self.corrupt_pulse.d.next = true;
                    self.held.d.next = self.corrupt_bit.val();
                    self.stage.d.next = Stage::Done;
                } else if self.count.q.val() == 0 {
                    self.held.d.next = self.loaded_bit.val();
                    self.stage.d.next = Stage::Done;
                }
            }
            Stage::Write => {
                if (self.record.q.val().get_bits::<16>(0) & self.beyond_port.val()) != 0 {
                    // The register cannot be named on this port: refused without a write.
                    self.registers.valid.next = false;
                    self.refused_pulse.d.next = true;
                    self.held.d.next = self.held.q.val() | self.refused_bit.val();
                    self.stage.d.next = Stage::Entries;
                    if self.last_entry.val() {
                        self.held.d.next =
                            self.held.q.val() | self.refused_bit.val() | self.loaded_bit.val();
                        self.stage.d.next = Stage::Done;
                    }
                }
                if self.registers.valid.val() & self.registers.ready.val() {
                    self.stage.d.next = Stage::Answer;
                }
            }
            Stage::Answer => {
                if self.register_responses.valid.val() {
                    self.stage.d.next = Stage::Entries;
                    if self.last_entry.val() {
                        self.held.d.next = self.held.q.val() | self.loaded_bit.val();
                        self.stage.d.next = Stage::Done;
                    }
                    if self.register_responses.error.val() != self.error_none.val() {
                        self.refused_pulse.d.next = true;
                        self.held.d.next = self.held.q.val() | self.refused_bit.val();
                        if self.last_entry.val() {
                            self.held.d.next =
                                self.held.q.val() | self.refused_bit.val() | self.loaded_bit.val();
                        }
                    }
                }
            }
            _ => {}
        }
        if self.reader.failed.val() & (self.stage.q.val() == Stage::Header) {
            self.absent_pulse.d.next = true;
            self.held.d.next = self.absent_bit.val();
            self.stage.d.next = Stage::Done;
        }
        if self.reset.val() {
            self.stage.d.next = Stage::ReadHeader;
            self.held.d.next = 0.into();
            self.blank_pulse.d.next = false;
            self.corrupt_pulse.d.next = false;
            self.absent_pulse.d.next = false;
            self.refused_pulse.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eeprom_loader_is_synthesizable() {
        let mut uut = EepromLoader::<15>::new(0, 64);
        uut.connect_all();
        yosys_validate("eeprom_loader", &generate_verilog(&uut)).unwrap();
    }

    #[test]
    #[should_panic(
        expected = "EepromLoader: max_entries 6552 at base 0x10 does not fit in the 64 KiB part (at most 6551)"
    )]
    fn eeprom_loader_rejects_an_image_past_the_part() {
        let _ = EepromLoader::<15>::new(16, 6552);
    }

    #[test]
    fn status_bits_are_distinct() {
        let all: u64 = LoaderStatus::ALL.iter().map(|s| s.mask()).sum();
        assert_eq!(all, (1 << LOADER_STATUS_BITS) - 1);
    }
}
