//! `EepromReader`: reads a run of bytes from the EEPROM through [`EepAccess`]'s command and
//! result ports (reads of up to [`EEP_MAX_BYTES`] bytes) and hands them out one byte per beat,
//! in address order. The byte-assembly stage of the [`EepromLoader`], which it keeps free of
//! EEPROM command bookkeeping.
//!
//! **Runs.** `start` (taken only while `idle`) begins a run of `length` bytes from `address`;
//! a run of zero bytes ends at once. The reader issues the next read as soon as the bytes of
//! the previous one have all been taken (at most one read outstanding, one read's bytes held),
//! so a consumer that stalls for a few cycles between bytes costs no I2C time if the read
//! takes longer than the stall.
//!
//! **Errors.** A read answered with any error code (in practice [`EepError::NoAcknowledge`]:
//! the part is absent or stuck; the others cannot happen since the reader never asks for a bad
//! count and the owner keeps the run inside the part) ends the run with `failed` high, held
//! until the next `start` or reset; its bytes are not shown.
//!
//! **Handshake.** `eeprom`, `eeprom_result` and `bytes` follow the stream rules of
//! [`crate::stream`]; `eeprom_result.ready` is high only while a read is outstanding.
//! **Reset** (synchronous) ends the run: no command offered, no byte shown, `failed` low. The
//! reader assumes the EEPROM unit is reset with it (a result for a read issued before the reset
//! would otherwise be taken as the answer to the next one).
//!
//! [`EepromLoader`]: super::eeprom_loader::EepromLoader
//! [`EepAccess`]: super::eep_access::EepAccess
//! [`EepError::NoAcknowledge`]: super::eep_access::EepError::NoAcknowledge
use crate::mgmt::eep_access::{
    EepCommandSource, EepError, EepResultSink, EEP_ADDRESS_BITS, EEP_COUNT_BITS, EEP_DATA_BITS,
    EEP_ERROR_BITS, EEP_MAX_BYTES,
};
use crate::stream::StreamSource;
use rust_hdl::prelude::*;

/// Width of a run's length (up to the whole 64 KiB part less one byte).
pub const RUN_LENGTH_BITS: usize = EEP_ADDRESS_BITS;

/// Reads runs of EEPROM bytes; see the module documentation.
#[derive(LogicBlock)]
pub struct EepromReader {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Begin a run (taken only while `idle`).
    pub start: Signal<In, bool>,
    /// First byte address of the run (taken with `start`).
    pub address: Signal<In, Bits<EEP_ADDRESS_BITS>>,
    /// Bytes in the run (taken with `start`).
    pub length: Signal<In, Bits<RUN_LENGTH_BITS>>,
    /// Read commands to the EEPROM unit (never writes).
    pub eeprom: EepCommandSource,
    /// Their results.
    pub eeprom_result: EepResultSink,
    /// The run's bytes, in address order.
    pub bytes: StreamSource<Bits<8>>,
    /// The run ended on an EEPROM error (held until `start` or reset).
    pub failed: Signal<Out, bool>,
    /// No run in progress: every byte taken, or failed.
    pub idle: Signal<Out, bool>,
    most: Constant<Bits<RUN_LENGTH_BITS>>,
    error_none: Constant<Bits<EEP_ERROR_BITS>>,
    next_address: DFF<Bits<EEP_ADDRESS_BITS>>,
    /// Bytes of the run not yet asked for.
    remaining: DFF<Bits<RUN_LENGTH_BITS>>,
    /// A read was taken and its result is awaited.
    waiting: DFF<bool>,
    /// The count of the outstanding read.
    asked: DFF<Bits<EEP_COUNT_BITS>>,
    /// Bytes of the last read, the next one in the low 8 bits.
    chunk: DFF<Bits<EEP_DATA_BITS>>,
    /// Bytes of `chunk` not yet taken.
    chunk_left: DFF<Bits<EEP_COUNT_BITS>>,
    failure: DFF<bool>,
    /// The count of the next read: `min(remaining, 6)`.
    count: Signal<Local, Bits<EEP_COUNT_BITS>>,
}

impl Default for EepromReader {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            address: Default::default(),
            length: Default::default(),
            eeprom: Default::default(),
            eeprom_result: Default::default(),
            bytes: Default::default(),
            failed: Default::default(),
            idle: Default::default(),
            most: Constant::new((EEP_MAX_BYTES as u64).into()),
            error_none: Constant::new(EepError::None.bits()),
            next_address: Default::default(),
            remaining: Default::default(),
            waiting: Default::default(),
            asked: Default::default(),
            chunk: Default::default(),
            chunk_left: Default::default(),
            failure: Default::default(),
            count: Default::default(),
        }
    }
}

impl Logic for EepromReader {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            next_address,
            remaining,
            waiting,
            asked,
            chunk,
            chunk_left,
            failure
        );
        self.count.next = self.most.val().get_bits::<EEP_COUNT_BITS>(0);
        if self.remaining.q.val() < self.most.val() {
            self.count.next = self.remaining.q.val().get_bits::<EEP_COUNT_BITS>(0);
        }
        // A read is offered when the last one's bytes are all taken; its fields hold until it
        // is taken because they change only when it is.
        self.eeprom.valid.next = !self.waiting.q.val()
            & (self.chunk_left.q.val() == 0)
            & (self.remaining.q.val() != 0)
            & !self.reset.val();
        self.eeprom.write.next = false;
        self.eeprom.address.next = self.next_address.q.val();
        self.eeprom.count.next = self.count.val();
        self.eeprom.data.next = 0.into();
        self.eeprom_result.ready.next = self.waiting.q.val();
        self.bytes.valid.next = self.chunk_left.q.val() != 0;
        self.bytes.data.next = self.chunk.q.val().get_bits::<8>(0);
        self.failed.next = self.failure.q.val();
        self.idle.next =
            !self.waiting.q.val() & (self.chunk_left.q.val() == 0) & (self.remaining.q.val() == 0);

        if self.eeprom.valid.val() & self.eeprom.ready.val() {
            self.waiting.d.next = true;
            self.asked.d.next = self.count.val();
            self.next_address.d.next = self.next_address.q.val()
                + bit_cast::<EEP_ADDRESS_BITS, EEP_COUNT_BITS>(self.count.val());
            self.remaining.d.next = self.remaining.q.val()
                - bit_cast::<RUN_LENGTH_BITS, EEP_COUNT_BITS>(self.count.val());
        }
        if self.eeprom_result.valid.val() & self.eeprom_result.ready.val() {
            self.waiting.d.next = false;
            self.chunk.d.next = self.eeprom_result.data.val();
            self.chunk_left.d.next = self.asked.q.val();
            if self.eeprom_result.error.val() != self.error_none.val() {
                // The run ends here; nothing of this read is shown.
                self.chunk_left.d.next = 0.into();
                self.remaining.d.next = 0.into();
                self.failure.d.next = true;
            }
        }
        if self.bytes.valid.val() & self.bytes.ready.val() {
            self.chunk.d.next = self.chunk.q.val() >> 8;
            self.chunk_left.d.next = self.chunk_left.q.val() - 1;
        }
        if self.start.val() & self.idle.val() {
            self.next_address.d.next = self.address.val();
            self.remaining.d.next = self.length.val();
            self.failure.d.next = false;
        }
        if self.reset.val() {
            self.waiting.d.next = false;
            self.remaining.d.next = 0.into();
            self.chunk_left.d.next = 0.into();
            self.failure.d.next = false;
        }
    }
}

#[test]
fn eeprom_reader_is_synthesizable() {
    let mut uut = EepromReader::default();
    uut.connect_all();
    yosys_validate("eeprom_reader", &generate_verilog(&uut)).unwrap();
}
