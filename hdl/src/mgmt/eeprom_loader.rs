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
//!    `A` bits, is *refused*: a `refused` pulse (for the chip's counter) and the `refused`
//!    status bit, and the loader goes on with the next entry;
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
//! **Structure**, one child per stage around a small sequencer: [`EepromReader`] (EEPROM reads
//! into a byte stream), [`RecordIntake`] (the byte path: bytes into 10-byte records, the
//! checksum and the bit-15 address check), [`EntryWriter`] (one register write and its
//! response) and [`LoaderOutcome`] (events into pulses and the held status). The sequencer
//! says which part of the image is coming and acts on whole records.
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
use crate::mgmt::eep_access::{EepCommandSource, EepResultSink, EEP_ADDRESS_BITS};
use crate::mgmt::eeprom_image::{
    entries_that_fit, magic_word, ENTRY_BYTES, HEADER_BYTES, IMAGE_ADDRESS_BITS, IMAGE_VERSION,
};
use crate::mgmt::eeprom_reader::{EepromReader, RUN_LENGTH_BITS};
use crate::mgmt::entry_writer::EntryWriter;
use crate::mgmt::loader_outcome::LoaderOutcome;
use crate::mgmt::record_intake::{RecordIntake, CHECKSUM_BITS};
use crate::regmap::port::{RegRequestSource, RegResponseSink};
use crate::stream::StreamSource;
use rust_hdl::prelude::*;

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
    /// Pass 2: start the entry's write.
    Write,
    /// Pass 2: the entry is being written.
    Writing,
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
    intake: RecordIntake,
    writer: EntryWriter<A>,
    outcome: LoaderOutcome,
    base: Constant<Bits<EEP_ADDRESS_BITS>>,
    entries_base: Constant<Bits<EEP_ADDRESS_BITS>>,
    max_entries: Constant<Bits<COUNT_BITS>>,
    magic: Constant<Bits<32>>,
    version: Constant<Bits<16>>,
    header_length: Constant<Bits<RUN_LENGTH_BITS>>,
    stage: DFF<Stage>,
    /// Pass 2 (else pass 1).
    second_pass: DFF<bool>,
    /// Entries of the current pass finished.
    entries: DFF<Bits<COUNT_BITS>>,
    count: DFF<Bits<COUNT_BITS>>,
    stored_checksum: DFF<Bits<CHECKSUM_BITS>>,
    magic_read: Signal<Local, Bits<32>>,
    count_read: Signal<Local, Bits<COUNT_BITS>>,
    /// Bytes of `count` entries: `10 * count`.
    entries_length: Signal<Local, Bits<RUN_LENGTH_BITS>>,
    entries_next: Signal<Local, Bits<COUNT_BITS>>,
    /// Every entry of the pass has been taken.
    last_entry: Signal<Local, bool>,
    /// The reader is always idle where a run starts (each run's bytes are all taken first).
    unused_reader_idle: Signal<Local, bool>,
}

// The header is read as one record of the entries' size.
const _: () = assert!(HEADER_BYTES == ENTRY_BYTES);

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
            intake: Default::default(),
            writer: EntryWriter::new(),
            outcome: Default::default(),
            base: Constant::new((base as u64).into()),
            entries_base: Constant::new(((base + HEADER_BYTES) as u64).into()),
            max_entries: Constant::new((max_entries as u64).into()),
            magic: Constant::new((magic_word() as u64).into()),
            version: Constant::new((IMAGE_VERSION as u64).into()),
            header_length: Constant::new((HEADER_BYTES as u64).into()),
            stage: Default::default(),
            second_pass: Default::default(),
            entries: Default::default(),
            count: Default::default(),
            stored_checksum: Default::default(),
            magic_read: Default::default(),
            count_read: Default::default(),
            entries_length: Default::default(),
            entries_next: Default::default(),
            last_entry: Default::default(),
            unused_reader_idle: Default::default(),
        }
    }
}

// rust-hdl's hdl_gen has no match guards, so a waiting stage's condition stays an `if` in its
// arm (moving those stages out of the match instead cost about 30 iCE40 LUTs in yosys 0.23).
#[allow(clippy::collapsible_match)]
impl<const A: usize> Logic for EepromLoader<A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, stage, second_pass, entries);
        dff_setup!(self, clock, count, stored_checksum);
        clock!(self, clock, reader, intake, writer, outcome);
        EepCommandSource::link(&mut self.eeprom, &mut self.reader.eeprom);
        EepResultSink::link(&mut self.eeprom_result, &mut self.reader.eeprom_result);
        StreamSource::<Bits<8>>::join(&mut self.reader.bytes, &mut self.intake.bytes);
        RegRequestSource::<A, 64>::link(&mut self.registers, &mut self.writer.registers);
        RegResponseSink::<64>::link(
            &mut self.register_responses,
            &mut self.writer.register_responses,
        );
        self.reader.reset.next = self.reset.val();
        self.intake.reset.next = self.reset.val();
        self.writer.reset.next = self.reset.val();
        self.outcome.reset.next = self.reset.val();
        self.unused_reader_idle.next = self.reader.idle.val();

        // Outputs: the pulses and the held outcome come from flip-flops.
        self.busy.next = self.stage.q.val() != Stage::Done;
        self.done.next = self.stage.q.val() == Stage::Done;
        self.outcome.busy.next = self.busy.val();
        self.status.next = self.outcome.status.val();
        self.blank.next = self.outcome.blank.val();
        self.corrupt.next = self.outcome.corrupt.val();
        self.absent.next = self.outcome.absent.val();
        self.refused.next = self.outcome.refused.val();
        self.outcome.blank_event.next = false;
        self.outcome.corrupt_event.next = false;
        self.outcome.absent_event.next = false;
        self.outcome.loaded_event.next = false;
        self.outcome.refused_event.next = (self.stage.q.val() == Stage::Writing)
            & self.writer.finished.val()
            & self.writer.refused.val();

        // The byte path is told which part of the image is coming; pass 1 checks the entries.
        self.intake.new_image.next = self.stage.q.val() == Stage::ReadHeader;
        self.intake.new_pass.next = self.stage.q.val() == Stage::ReadEntries;
        self.intake.header.next = self.stage.q.val() == Stage::Header;
        self.intake.entries.next = self.stage.q.val() == Stage::Entries;
        self.intake.checking.next = !self.second_pass.q.val();

        self.magic_read.next = self.intake.record.val().get_bits::<32>(0);
        self.count_read.next = self.intake.record.val().get_bits::<COUNT_BITS>(48);
        self.entries_length.next = (self.count.q.val() << 3) + (self.count.q.val() << 1);
        self.reader.start.next = false;
        self.reader.address.next = self.entries_base.val();
        self.reader.length.next = self.entries_length.val();
        self.entries_next.next = self.entries.q.val() + 1;
        self.last_entry.next = self.entries.q.val() == self.count.q.val();
        // Pass 2: the record holds still while its entry is written.
        self.writer.start.next = self.stage.q.val() == Stage::Write;
        self.writer.address.next = self.intake.record.val().get_bits::<16>(0);
        self.writer.value.next = self.intake.record.val().get_bits::<64>(16);

        match self.stage.q.val() {
            Stage::ReadHeader => {
                self.reader.start.next = true;
                self.reader.address.next = self.base.val();
                self.reader.length.next = self.header_length.val();
                self.second_pass.d.next = false;
                self.stage.d.next = Stage::Header;
            }
            Stage::Header => {
                if self.intake.record_taken.val() {
                    self.stage.d.next = Stage::CheckHeader;
                }
            }
            Stage::CheckHeader => {
                self.count.d.next = self.count_read.val();
                self.stored_checksum.d.next =
                    self.intake.record.val().get_bits::<CHECKSUM_BITS>(64);
                self.stage.d.next = Stage::ReadEntries;
                if (self.magic_read.val() == 0) | self.magic_read.val().all() {
                    self.outcome.blank_event.next = true;
                    self.stage.d.next = Stage::Done;
                } else if (self.magic_read.val() != self.magic.val())
                    | (self.intake.record.val().get_bits::<16>(32) != self.version.val())
                    | (self.count_read.val() > self.max_entries.val())
                {
                    self.outcome.corrupt_event.next = true;
                    self.stage.d.next = Stage::Done;
                }
            }
            Stage::ReadEntries => {
                self.reader.start.next = true;
                self.entries.d.next = 0.into();
                self.stage.d.next = Stage::Entries;
            }
            Stage::Entries => {
                if self.intake.record_taken.val() {
                    self.entries.d.next = self.entries_next.val();
                    if self.second_pass.q.val() {
                        self.stage.d.next = Stage::Write;
                    }
                }
                if !self.second_pass.q.val() & self.last_entry.val() {
                    self.stage.d.next = Stage::Verify;
                }
            }
            Stage::Verify => {
                self.second_pass.d.next = true;
                self.stage.d.next = Stage::ReadEntries;
                if (self.intake.checksum.val() != self.stored_checksum.q.val())
                    | self.intake.bad_address.val()
                {
                    self.outcome.corrupt_event.next = true;
                    self.stage.d.next = Stage::Done;
                } else if self.count.q.val() == 0 {
                    self.outcome.loaded_event.next = true;
                    self.stage.d.next = Stage::Done;
                }
            }
            Stage::Write => self.stage.d.next = Stage::Writing,
            Stage::Writing => {
                if self.writer.finished.val() {
                    self.stage.d.next = Stage::Entries;
                    if self.last_entry.val() {
                        self.outcome.loaded_event.next = true;
                        self.stage.d.next = Stage::Done;
                    }
                }
            }
            _ => {}
        }
        // An EEPROM error ends the run (the reader shows no byte after it).
        if self.reader.failed.val()
            & ((self.stage.q.val() == Stage::Header) | (self.stage.q.val() == Stage::Entries))
        {
            self.outcome.absent_event.next = true;
            self.stage.d.next = Stage::Done;
        }
        if self.reset.val() {
            self.stage.d.next = Stage::ReadHeader;
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
