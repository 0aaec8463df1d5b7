//! `EntryWriter`: the write stage of the [`EepromLoader`]: writes one image entry (a 15-bit
//! register address and a 64-bit value) through a register port and reports how it went.
//!
//! `start` (taken while idle) begins an entry; `address` and `value` must hold until
//! `finished`. An address with bits at or above `A` set cannot be named on the port: it is
//! refused at once, without a request. Otherwise the write is offered on `registers` until
//! taken, then its response is taken from `register_responses` (ready only while awaited);
//! an error code other than none means the register file refused it. `finished` is high for
//! one cycle when the entry is done, with `refused` telling whether it was refused.
//!
//! **Reset** (synchronous): idle, no request offered. The register path must be reset with it
//! (a response to a write cut by reset would be taken as the next write's).
//!
//! Parameters: `A` register address bits (1..=15).
//!
//! [`EepromLoader`]: super::eeprom_loader::EepromLoader
use crate::mgmt::eeprom_image::IMAGE_ADDRESS_BITS;
use crate::regmap::port::{RegError, RegRequestSource, RegResponseSink, ERROR_BITS};
use rust_hdl::prelude::*;

/// Where the writer is.
#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
enum WriterStage {
    Idle,
    /// The write is offered.
    Offer,
    /// Its response is awaited.
    Await,
}

/// Writes one entry; see the module documentation.
#[derive(LogicBlock)]
pub struct EntryWriter<const A: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Write the entry at `address`, `value` (taken while idle).
    pub start: Signal<In, bool>,
    /// The entry's register address (15 bits used), held until `finished`.
    pub address: Signal<In, Bits<16>>,
    /// Its value, held until `finished`.
    pub value: Signal<In, Bits<64>>,
    /// Register writes.
    pub registers: RegRequestSource<A, 64>,
    /// Their responses.
    pub register_responses: RegResponseSink<64>,
    /// One cycle: the entry is done.
    pub finished: Signal<Out, bool>,
    /// With `finished`: the entry was refused (the port or the register file).
    pub refused: Signal<Out, bool>,
    /// Address bits an entry may have but the port has not (zero when `A` is 15).
    beyond_port: Constant<Bits<16>>,
    error_none: Constant<Bits<ERROR_BITS>>,
    stage: DFF<WriterStage>,
    finished_pulse: DFF<bool>,
    refused_pulse: DFF<bool>,
    /// Write responses carry no data.
    unused_response_data: Signal<Local, Bits<64>>,
}

impl<const A: usize> EntryWriter<A> {
    /// A writer for an `A`-bit register port; panics unless `A` is 1..=15.
    pub fn new() -> Self {
        assert!(
            (1..=IMAGE_ADDRESS_BITS).contains(&A),
            "EntryWriter: A (register address bits) must be 1..={IMAGE_ADDRESS_BITS}, got {A}"
        );
        let beyond = ((1u64 << IMAGE_ADDRESS_BITS) - 1) & !((1u64 << A) - 1);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            address: Default::default(),
            value: Default::default(),
            registers: Default::default(),
            register_responses: Default::default(),
            finished: Default::default(),
            refused: Default::default(),
            beyond_port: Constant::new(beyond.into()),
            error_none: Constant::new(RegError::None.bits()),
            stage: Default::default(),
            finished_pulse: Default::default(),
            refused_pulse: Default::default(),
            unused_response_data: Default::default(),
        }
    }
}

impl<const A: usize> Default for EntryWriter<A> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const A: usize> Logic for EntryWriter<A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, stage, finished_pulse, refused_pulse);
        self.unused_response_data.next = self.register_responses.data.val();
        self.finished.next = self.finished_pulse.q.val();
        self.refused.next = self.refused_pulse.q.val();
        self.finished_pulse.d.next = false;
        self.refused_pulse.d.next = false;
        self.registers.valid.next = self.stage.q.val() == WriterStage::Offer;
        self.registers.write.next = true;
        self.registers.address.next = self.address.val().get_bits::<A>(0);
        self.registers.data.next = self.value.val();
        self.register_responses.ready.next = self.stage.q.val() == WriterStage::Await;
        if (self.stage.q.val() == WriterStage::Idle) & self.start.val() {
            self.stage.d.next = WriterStage::Offer;
            if (self.address.val() & self.beyond_port.val()) != 0 {
                // The register cannot be named on this port: refused without a write.
                self.stage.d.next = WriterStage::Idle;
                self.finished_pulse.d.next = true;
                self.refused_pulse.d.next = true;
            }
        }
        if self.registers.valid.val() & self.registers.ready.val() {
            self.stage.d.next = WriterStage::Await;
        }
        if self.register_responses.ready.val() & self.register_responses.valid.val() {
            self.stage.d.next = WriterStage::Idle;
            self.finished_pulse.d.next = true;
            self.refused_pulse.d.next =
                self.register_responses.error.val() != self.error_none.val();
        }
        if self.reset.val() {
            self.stage.d.next = WriterStage::Idle;
            self.finished_pulse.d.next = false;
            self.refused_pulse.d.next = false;
        }
    }
}

#[test]
fn entry_writer_is_synthesizable() {
    let mut uut = EntryWriter::<12>::new();
    uut.connect_all();
    yosys_validate("entry_writer", &generate_verilog(&uut)).unwrap();
}
