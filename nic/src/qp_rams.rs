//! `QpRams`: the RAMs of the [`QpTable`](crate::qp_table::QpTable), one per read-write field
//! of a QP block (key; per ring base, size and software's pointer), `2^QAW` entries each, with
//! one shared write port and one shared read port.
//!
//! **Write** (no handshake): in a cycle with `write` high, the field `write_field` (the QP
//! block's register number `k`, see [`QpTable`](crate::qp_table::QpTable)) of entry
//! `write_index` takes `write_data` (its low bits) on the clock edge; a `k` naming no RAM (the
//! NIC's pointers 3, 7, 12; 13..15) writes nothing. `clear` writes zero to every field of
//! entry `write_index` instead (the sweep after a reset).
//!
//! **Read**: `read_index` in cycle `c` gives every field of that entry in cycle `c + 1` on the
//! named outputs (the RAMs' registered read; a write to the same entry on the edge ending `c`
//! is not in it), and `value` is the field `read_field` of them, zero-extended to 64 bits
//! (zero for a `k` naming no RAM): combinational on `read_field`.
//!
//! **Reset**: none; the RAMs hold their contents (the QP table clears them through `clear`).
//!
//! Parameters: `QAW` address bits.
use crate::host::MMIO_DATA_BITS;
use crate::regs::{KEY_BITS, RING_POINTER_BITS, RING_SIZE_BITS};
use hdl::formats::nic::ADDRESS_BITS;
use rust_hdl::prelude::*;

/// The QP block's register number of each RAM field (`nic_function` map order).
pub mod field {
    /// The QPMagic key (bit 32 of the register, the QP's enable, is not in a RAM).
    pub const KEY: u64 = 0;
    /// The send-completion ring's base, size, software's (consumer) pointer.
    pub const SEND: [u64; 3] = [1, 2, 4];
    /// The receive-completion ring's base, size, software's (consumer) pointer.
    pub const RECEIVE: [u64; 3] = [5, 6, 8];
    /// The NAP-buffer ring's base, size, software's (producer) pointer.
    pub const NAP: [u64; 3] = [9, 10, 11];
    /// The NIC's pointers (send producer, receive producer, NAP consumer): flip-flops, not RAM.
    pub const NIC_POINTERS: [u64; 3] = [3, 7, 12];
}

/// Bits of a field number.
pub const FIELD_BITS: usize = 4;

/// The QP table's RAMs; see the module documentation.
#[derive(LogicBlock)]
pub struct QpRams<const QAW: usize> {
    /// Clock of every RAM.
    pub clock: Signal<In, Clock>,
    /// Write one field this cycle.
    pub write: Signal<In, bool>,
    /// Write zero to every field of the entry this cycle.
    pub clear: Signal<In, bool>,
    /// The entry written.
    pub write_index: Signal<In, Bits<QAW>>,
    /// The field written (QP block register number).
    pub write_field: Signal<In, Bits<FIELD_BITS>>,
    /// The value written (its low bits).
    pub write_data: Signal<In, Bits<MMIO_DATA_BITS>>,
    /// The entry read.
    pub read_index: Signal<In, Bits<QAW>>,
    /// The field `value` shows.
    pub read_field: Signal<In, Bits<FIELD_BITS>>,
    /// Field `read_field` of the entry read, zero-extended.
    pub value: Signal<Out, Bits<MMIO_DATA_BITS>>,
    /// The key of the entry read.
    pub key: Signal<Out, Bits<KEY_BITS>>,
    /// Per ring (send, receive, NAP): its base.
    pub bases: [Signal<Out, Bits<ADDRESS_BITS>>; 3],
    /// Per ring: its size.
    pub sizes: [Signal<Out, Bits<RING_SIZE_BITS>>; 3],
    /// Per ring: software's pointer.
    pub software_pointers: [Signal<Out, Bits<RING_POINTER_BITS>>; 3],
    keys: RAM<Bits<KEY_BITS>, QAW>,
    base_rams: [RAM<Bits<ADDRESS_BITS>, QAW>; 3],
    size_rams: [RAM<Bits<RING_SIZE_BITS>, QAW>; 3],
    pointer_rams: [RAM<Bits<RING_POINTER_BITS>, QAW>; 3],
    /// Per ring: the field numbers of its base, size and software's pointer.
    base_fields: Vec<Constant<Bits<FIELD_BITS>>>,
    size_fields: Vec<Constant<Bits<FIELD_BITS>>>,
    pointer_fields: Vec<Constant<Bits<FIELD_BITS>>>,
}

impl<const QAW: usize> Default for QpRams<QAW> {
    fn default() -> Self {
        let rings = [field::SEND, field::RECEIVE, field::NAP];
        let c = |k: usize| {
            rings
                .iter()
                .map(|ring| Constant::new(Bits::<FIELD_BITS>::from(ring[k])))
                .collect()
        };
        Self {
            clock: Default::default(),
            write: Default::default(),
            clear: Default::default(),
            write_index: Default::default(),
            write_field: Default::default(),
            write_data: Default::default(),
            read_index: Default::default(),
            read_field: Default::default(),
            value: Default::default(),
            key: Default::default(),
            bases: Default::default(),
            sizes: Default::default(),
            software_pointers: Default::default(),
            keys: Default::default(),
            base_rams: Default::default(),
            size_rams: Default::default(),
            pointer_rams: Default::default(),
            base_fields: c(0),
            size_fields: c(1),
            pointer_fields: c(2),
        }
    }
}

impl<const QAW: usize> Logic for QpRams<QAW> {
    #[hdl_gen]
    fn update(&mut self) {
        self.keys.read_clock.next = self.clock.val();
        self.keys.write_clock.next = self.clock.val();
        self.keys.read_address.next = self.read_index.val();
        self.keys.write_address.next = self.write_index.val();
        self.keys.write_data.next = self.write_data.val().get_bits::<KEY_BITS>(0);
        self.keys.write_enable.next = self.write.val() & (self.write_field.val() == 0);
        if self.clear.val() {
            self.keys.write_data.next = 0.into();
            self.keys.write_enable.next = true;
        }
        self.key.next = self.keys.read_data.val();
        self.value.next = 0.into();
        if self.read_field.val() == 0 {
            self.value.next = bit_cast::<MMIO_DATA_BITS, KEY_BITS>(self.keys.read_data.val());
        }
        // Ring `r`'s field numbers are in `base_fields[r]`, `size_fields[r]`, `pointer_fields[r]`.
        for r in 0..3 {
            self.base_rams[r].read_clock.next = self.clock.val();
            self.base_rams[r].write_clock.next = self.clock.val();
            self.size_rams[r].read_clock.next = self.clock.val();
            self.size_rams[r].write_clock.next = self.clock.val();
            self.pointer_rams[r].read_clock.next = self.clock.val();
            self.pointer_rams[r].write_clock.next = self.clock.val();
            self.base_rams[r].read_address.next = self.read_index.val();
            self.size_rams[r].read_address.next = self.read_index.val();
            self.pointer_rams[r].read_address.next = self.read_index.val();
            self.base_rams[r].write_address.next = self.write_index.val();
            self.size_rams[r].write_address.next = self.write_index.val();
            self.pointer_rams[r].write_address.next = self.write_index.val();
            self.base_rams[r].write_data.next = self.write_data.val().get_bits::<ADDRESS_BITS>(0);
            self.size_rams[r].write_data.next = self.write_data.val().get_bits::<RING_SIZE_BITS>(0);
            self.pointer_rams[r].write_data.next =
                self.write_data.val().get_bits::<RING_POINTER_BITS>(0);
            self.base_rams[r].write_enable.next =
                self.write.val() & (self.write_field.val() == self.base_fields[r].val());
            self.size_rams[r].write_enable.next =
                self.write.val() & (self.write_field.val() == self.size_fields[r].val());
            self.pointer_rams[r].write_enable.next =
                self.write.val() & (self.write_field.val() == self.pointer_fields[r].val());
            if self.clear.val() {
                self.base_rams[r].write_data.next = 0.into();
                self.size_rams[r].write_data.next = 0.into();
                self.pointer_rams[r].write_data.next = 0.into();
                self.base_rams[r].write_enable.next = true;
                self.size_rams[r].write_enable.next = true;
                self.pointer_rams[r].write_enable.next = true;
            }
            self.bases[r].next = self.base_rams[r].read_data.val();
            self.sizes[r].next = self.size_rams[r].read_data.val();
            self.software_pointers[r].next = self.pointer_rams[r].read_data.val();
        }
        // `value`: written out per ring (rust-hdl cannot bit_cast a loop-indexed signal).
        if self.read_field.val() == self.base_fields[0].val() {
            self.value.next =
                bit_cast::<MMIO_DATA_BITS, ADDRESS_BITS>(self.base_rams[0].read_data.val());
        }
        if self.read_field.val() == self.size_fields[0].val() {
            self.value.next =
                bit_cast::<MMIO_DATA_BITS, RING_SIZE_BITS>(self.size_rams[0].read_data.val());
        }
        if self.read_field.val() == self.pointer_fields[0].val() {
            self.value.next =
                bit_cast::<MMIO_DATA_BITS, RING_POINTER_BITS>(self.pointer_rams[0].read_data.val());
        }
        if self.read_field.val() == self.base_fields[1].val() {
            self.value.next =
                bit_cast::<MMIO_DATA_BITS, ADDRESS_BITS>(self.base_rams[1].read_data.val());
        }
        if self.read_field.val() == self.size_fields[1].val() {
            self.value.next =
                bit_cast::<MMIO_DATA_BITS, RING_SIZE_BITS>(self.size_rams[1].read_data.val());
        }
        if self.read_field.val() == self.pointer_fields[1].val() {
            self.value.next =
                bit_cast::<MMIO_DATA_BITS, RING_POINTER_BITS>(self.pointer_rams[1].read_data.val());
        }
        if self.read_field.val() == self.base_fields[2].val() {
            self.value.next =
                bit_cast::<MMIO_DATA_BITS, ADDRESS_BITS>(self.base_rams[2].read_data.val());
        }
        if self.read_field.val() == self.size_fields[2].val() {
            self.value.next =
                bit_cast::<MMIO_DATA_BITS, RING_SIZE_BITS>(self.size_rams[2].read_data.val());
        }
        if self.read_field.val() == self.pointer_fields[2].val() {
            self.value.next =
                bit_cast::<MMIO_DATA_BITS, RING_POINTER_BITS>(self.pointer_rams[2].read_data.val());
        }
    }
}

#[test]
fn qp_rams_are_synthesizable() {
    let mut uut = QpRams::<5>::default();
    uut.connect_all();
    yosys_validate("qp_rams_5", &generate_verilog(&uut)).unwrap();
}

#[test]
fn field_numbers_are_the_qp_block_registers() {
    use crate::regs::{function_page_map, Ring, QP_BASE};
    use hdl::regmap::Access;
    let page = function_page_map(1);
    let offset = |name: String| {
        let r = page.get(&format!("qp0_{name}")).expect("QP register");
        (r.offset - QP_BASE, r.access)
    };
    assert_eq!(offset("key".into()), (field::KEY, Access::ReadWrite));
    let rings = [field::SEND, field::RECEIVE, field::NAP];
    for (i, ring) in Ring::ALL.into_iter().enumerate() {
        let p = ring.prefix();
        // The event rings: the NIC produces, software consumes; the NAP ring the other way.
        let (software, nic) = if i < 2 {
            ("consumer", "producer")
        } else {
            ("producer", "consumer")
        };
        assert_eq!(
            offset(format!("{p}_base")),
            (rings[i][0], Access::ReadWrite)
        );
        assert_eq!(
            offset(format!("{p}_size")),
            (rings[i][1], Access::ReadWrite)
        );
        assert_eq!(
            offset(format!("{p}_{software}")),
            (rings[i][2], Access::ReadWrite)
        );
        assert_eq!(
            offset(format!("{p}_{nic}")),
            (field::NIC_POINTERS[i], Access::ReadOnly)
        );
    }
}
