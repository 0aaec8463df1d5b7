//! `QpRequestDecode`: the QP table's register-request address decode, combinational (the
//! first stage of [`QpTable`](crate::qp_table::QpTable), split out so that the table's
//! `update()` holds only the request's life and the RAM port sharing).
//!
//! A table address carries the host register address with bit 13 set (the register split's
//! mark, removed here): page `p` (a function) of `P` registers, offset `o` in the page, QP
//! block `b = o / 16` (block 0 holds the function's own registers, so QP `q = b - 1`),
//! register `k = o % 16` of the block. The request is **mapped** when `p < F`, `1 <= b <= Q`
//! and `k` names one of the block's [`QP_REGISTERS`](crate::qp_table::QP_REGISTERS); its
//! RAM entry is `p x Q + q`.
//!
//! Parameters: `QAW` entry bits as the table; elaboration values `F`, `Q`, `P` (checked by the
//! table's constructor).
use crate::qp_rams::FIELD_BITS;
use crate::qp_table::{QP_REGISTERS, TABLE_ADDRESS_BITS};
use rust_hdl::prelude::*;

/// The decode; see the module documentation.
#[derive(LogicBlock)]
pub struct QpRequestDecode<const QAW: usize> {
    /// The request's table address.
    pub address: Signal<In, Bits<TABLE_ADDRESS_BITS>>,
    /// The QP's RAM entry (`p x Q + q`; meaningless when not `mapped`).
    pub index: Signal<Out, Bits<QAW>>,
    /// Register `k` of the QP block.
    pub field: Signal<Out, Bits<FIELD_BITS>>,
    /// The address names an existing function, QP and register.
    pub mapped: Signal<Out, bool>,
    // Constants.
    page_shift: Constant<Bits<5>>,
    page_mask: Constant<Bits<TABLE_ADDRESS_BITS>>,
    /// The host register address bits of a table address (the split's mark removed).
    host_mask: Constant<Bits<TABLE_ADDRESS_BITS>>,
    qp_shift: Constant<Bits<5>>,
    /// `Q` and `F`, as numbers of a request's page and QP block.
    qp_count: Constant<Bits<TABLE_ADDRESS_BITS>>,
    function_count: Constant<Bits<TABLE_ADDRESS_BITS>>,
    address_one: Constant<Bits<TABLE_ADDRESS_BITS>>,
    /// Registers of a QP block, as a field number bound.
    field_count: Constant<Bits<FIELD_BITS>>,
    // Combinational.
    host: Signal<Local, Bits<TABLE_ADDRESS_BITS>>,
    page: Signal<Local, Bits<TABLE_ADDRESS_BITS>>,
    offset: Signal<Local, Bits<TABLE_ADDRESS_BITS>>,
    block: Signal<Local, Bits<TABLE_ADDRESS_BITS>>,
    /// `block - 1`: the QP.
    qp: Signal<Local, Bits<TABLE_ADDRESS_BITS>>,
}

impl<const QAW: usize> QpRequestDecode<QAW> {
    /// The decode for `functions` functions of `qps` QPs (a power of two) in pages of
    /// `page_registers` registers (a power of two).
    pub fn new(functions: usize, qps: usize, page_registers: u64) -> Self {
        let c = |v: u64| Constant::new(Bits::<TABLE_ADDRESS_BITS>::from(v));
        Self {
            address: Default::default(),
            index: Default::default(),
            field: Default::default(),
            mapped: Default::default(),
            page_shift: Constant::new((page_registers.trailing_zeros() as usize).to_bits()),
            page_mask: c(page_registers - 1),
            host_mask: c((1 << crate::regs::HOST_REGISTER_BITS) - 1),
            qp_shift: Constant::new((qps.trailing_zeros() as usize).to_bits()),
            qp_count: c(qps as u64),
            function_count: c(functions as u64),
            address_one: c(1),
            field_count: Constant::new((QP_REGISTERS as u64).to_bits()),
            host: Default::default(),
            page: Default::default(),
            offset: Default::default(),
            block: Default::default(),
            qp: Default::default(),
        }
    }
}

impl<const QAW: usize> Logic for QpRequestDecode<QAW> {
    #[hdl_gen]
    fn update(&mut self) {
        self.host.next = self.address.val() & self.host_mask.val();
        self.page.next = self.host.val() >> self.page_shift.val();
        self.offset.next = self.host.val() & self.page_mask.val();
        self.block.next = self.offset.val() >> 4;
        self.field.next = self.offset.val().get_bits::<FIELD_BITS>(0);
        self.mapped.next = (self.page.val() < self.function_count.val())
            & self.block.val().any()
            & (self.block.val() <= self.qp_count.val())
            & (self.field.val() < self.field_count.val());
        self.qp.next = self.block.val() - self.address_one.val();
        self.index.next = bit_cast::<QAW, TABLE_ADDRESS_BITS>(
            (self.page.val() << self.qp_shift.val()) | self.qp.val(),
        );
    }
}
