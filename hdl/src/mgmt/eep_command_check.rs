//! EEPROM command check: what [`EepAccess`](super::eep_access::EepAccess) decides about a
//! command before it touches the bus. Combinational.
//!
//! - `error`: [`EepError::BadCount`] for a count of 0 or 7 (1..=6 bytes are allowed; bad count
//!   wins over range), else [`EepError::AddressRange`] when `address + count` passes the 64 KiB
//!   array, else [`EepError::None`];
//! - `segment_end`: how many bytes the first transaction moves: `count`, or fewer when a write
//!   would cross the 128-byte page that `address` is in (the part would wrap inside its page).
use super::eep_access::{
    EepError, EEP_ADDRESS_BITS, EEP_COUNT_BITS, EEP_ERROR_BITS, EEP_PAGE_BYTES,
};
use rust_hdl::prelude::*;

/// Checks an EEPROM command; see the module documentation.
#[derive(LogicBlock)]
pub struct EepCommandCheck {
    /// The command's first byte address.
    pub address: Signal<In, Bits<EEP_ADDRESS_BITS>>,
    /// The command's byte count.
    pub count: Signal<In, Bits<EEP_COUNT_BITS>>,
    /// The command's error code (`None` when it may go to the bus).
    pub error: Signal<Out, Bits<EEP_ERROR_BITS>>,
    /// Bytes of the first page's part.
    pub segment_end: Signal<Out, Bits<EEP_COUNT_BITS>>,
    /// `address + count`.
    command_end: Signal<Local, Bits<32>>,
    /// Bytes from `address` to its page end (1..=128).
    room: Signal<Local, Bits<8>>,
    page_bytes: Constant<Bits<8>>,
    array_bytes: Constant<Bits<32>>,
    error_none: Constant<Bits<EEP_ERROR_BITS>>,
    error_bad_count: Constant<Bits<EEP_ERROR_BITS>>,
    error_address_range: Constant<Bits<EEP_ERROR_BITS>>,
}

impl Default for EepCommandCheck {
    fn default() -> Self {
        Self {
            address: Default::default(),
            count: Default::default(),
            error: Default::default(),
            segment_end: Default::default(),
            command_end: Default::default(),
            room: Default::default(),
            page_bytes: Constant::new(EEP_PAGE_BYTES.into()),
            array_bytes: Constant::new((1u64 << EEP_ADDRESS_BITS).into()),
            error_none: Constant::new(EepError::None.bits()),
            error_bad_count: Constant::new(EepError::BadCount.bits()),
            error_address_range: Constant::new(EepError::AddressRange.bits()),
        }
    }
}

impl Logic for EepCommandCheck {
    #[hdl_gen]
    fn update(&mut self) {
        self.command_end.next = bit_cast::<32, EEP_ADDRESS_BITS>(self.address.val())
            + bit_cast::<32, EEP_COUNT_BITS>(self.count.val());
        self.room.next =
            self.page_bytes.val() - bit_cast::<8, 7>(self.address.val().get_bits::<7>(0));
        self.segment_end.next = self.count.val();
        if bit_cast::<8, EEP_COUNT_BITS>(self.count.val()) > self.room.val() {
            self.segment_end.next = self.room.val().get_bits::<EEP_COUNT_BITS>(0);
        }
        self.error.next = self.error_none.val();
        if self.command_end.val() > self.array_bytes.val() {
            self.error.next = self.error_address_range.val();
        }
        if (self.count.val() == 0) | (self.count.val() == 7) {
            self.error.next = self.error_bad_count.val();
        }
    }
}

#[test]
fn eep_command_check_is_synthesizable() {
    let mut uut = EepCommandCheck::default();
    uut.connect_all();
    yosys_validate("eep_command_check", &generate_verilog(&uut)).unwrap();
}
