//! `LoaderOutcome`: the outcome stage of the [`EepromLoader`]: turns the sequencer's one-cycle
//! events into the loader's registered fault pulses and its held `status`
//! ([`LoaderStatus`] bits).
//!
//! Each event input (`blank`, `corrupt`, `absent`, `refused`, `loaded`; only `refused` and
//! `loaded` may come in the same cycle) high in a cycle gives
//! the matching pulse output (not for `loaded`) one cycle later, and sets its `status` bit
//! until reset; `status`'s `Busy` bit is the `busy` input. Reset (synchronous) clears the held
//! bits and the pulses.
//!
//! [`EepromLoader`]: super::eeprom_loader::EepromLoader
//! [`LoaderStatus`]: super::eeprom_loader::LoaderStatus
use crate::mgmt::eeprom_loader::{LoaderStatus, LOADER_STATUS_BITS};
use rust_hdl::prelude::*;

/// Events to pulses and held status; see the module documentation.
#[derive(LogicBlock)]
pub struct LoaderOutcome {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Loading is in progress.
    pub busy: Signal<In, bool>,
    /// Event: the EEPROM holds no image.
    pub blank_event: Signal<In, bool>,
    /// Event: the image is corrupt.
    pub corrupt_event: Signal<In, bool>,
    /// Event: the EEPROM does not answer.
    pub absent_event: Signal<In, bool>,
    /// Event: an entry was refused.
    pub refused_event: Signal<In, bool>,
    /// Event: the image has been applied.
    pub loaded_event: Signal<In, bool>,
    /// Pulse.
    pub blank: Signal<Out, bool>,
    /// Pulse.
    pub corrupt: Signal<Out, bool>,
    /// Pulse.
    pub absent: Signal<Out, bool>,
    /// Pulse.
    pub refused: Signal<Out, bool>,
    /// [`LoaderStatus`] bits.
    pub status: Signal<Out, Bits<LOADER_STATUS_BITS>>,
    blank_pulse: DFF<bool>,
    corrupt_pulse: DFF<bool>,
    absent_pulse: DFF<bool>,
    refused_pulse: DFF<bool>,
    /// The outcome's bits (all but `Busy`).
    held: DFF<Bits<LOADER_STATUS_BITS>>,
    busy_bit: Constant<Bits<LOADER_STATUS_BITS>>,
    loaded_bit: Constant<Bits<LOADER_STATUS_BITS>>,
    blank_bit: Constant<Bits<LOADER_STATUS_BITS>>,
    corrupt_bit: Constant<Bits<LOADER_STATUS_BITS>>,
    absent_bit: Constant<Bits<LOADER_STATUS_BITS>>,
    refused_bit: Constant<Bits<LOADER_STATUS_BITS>>,
}

/// The mask of one status bit, as the hardware's constant.
fn status_bit(s: LoaderStatus) -> Constant<Bits<LOADER_STATUS_BITS>> {
    Constant::new(s.mask().into())
}

impl Default for LoaderOutcome {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            busy: Default::default(),
            blank_event: Default::default(),
            corrupt_event: Default::default(),
            absent_event: Default::default(),
            refused_event: Default::default(),
            loaded_event: Default::default(),
            blank: Default::default(),
            corrupt: Default::default(),
            absent: Default::default(),
            refused: Default::default(),
            status: Default::default(),
            blank_pulse: Default::default(),
            corrupt_pulse: Default::default(),
            absent_pulse: Default::default(),
            refused_pulse: Default::default(),
            held: Default::default(),
            busy_bit: status_bit(LoaderStatus::Busy),
            loaded_bit: status_bit(LoaderStatus::Loaded),
            blank_bit: status_bit(LoaderStatus::Blank),
            corrupt_bit: status_bit(LoaderStatus::Corrupt),
            absent_bit: status_bit(LoaderStatus::Absent),
            refused_bit: status_bit(LoaderStatus::Refused),
        }
    }
}

impl Logic for LoaderOutcome {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            blank_pulse,
            corrupt_pulse,
            absent_pulse,
            refused_pulse,
            held
        );
        self.blank.next = self.blank_pulse.q.val();
        self.corrupt.next = self.corrupt_pulse.q.val();
        self.absent.next = self.absent_pulse.q.val();
        self.refused.next = self.refused_pulse.q.val();
        self.status.next = self.held.q.val();
        if self.busy.val() {
            self.status.next = self.held.q.val() | self.busy_bit.val();
        }
        self.blank_pulse.d.next = self.blank_event.val() & !self.reset.val();
        self.corrupt_pulse.d.next = self.corrupt_event.val() & !self.reset.val();
        self.absent_pulse.d.next = self.absent_event.val() & !self.reset.val();
        self.refused_pulse.d.next = self.refused_event.val() & !self.reset.val();
        // Only `refused` and `loaded` can come together (the last entry refused).
        self.held.d.next = self.held.q.val();
        if self.blank_event.val() {
            self.held.d.next = self.held.q.val() | self.blank_bit.val();
        }
        if self.corrupt_event.val() {
            self.held.d.next = self.held.q.val() | self.corrupt_bit.val();
        }
        if self.absent_event.val() {
            self.held.d.next = self.held.q.val() | self.absent_bit.val();
        }
        if self.refused_event.val() {
            self.held.d.next = self.held.q.val() | self.refused_bit.val();
        }
        if self.loaded_event.val() {
            self.held.d.next = self.held.q.val() | self.loaded_bit.val();
            if self.refused_event.val() {
                self.held.d.next =
                    self.held.q.val() | self.loaded_bit.val() | self.refused_bit.val();
            }
        }
        if self.reset.val() {
            self.held.d.next = 0.into();
        }
    }
}

#[test]
fn loader_outcome_is_synthesizable() {
    let mut uut = LoaderOutcome::default();
    uut.connect_all();
    yosys_validate("loader_outcome", &generate_verilog(&uut)).unwrap();
}
