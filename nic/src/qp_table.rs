//! The QP part of the SR-IOV function table: every QP's key and three rings, held in RAMs (one
//! per field, `F x Q` entries each) rather than flip-flops, reached by register requests (from
//! the MMIO decode, through the register split) and by the engines' lookups, and the NIC's
//! ring pointers, advanced by the engines.
//!
//! Why RAMs: with 8 functions of 4 QPs the QP registers hold about 7,600 bits; in a register
//! file's flip-flops with its read multiplexer they took about 17,000 iCE40 LUTs and 11,000
//! flip-flops, and minutes of synthesis. In RAMs (LUT RAM on ECP5, block RAM on iCE40) a
//! field costs its RAM and a share of one multiplexer.
//!
//! **Register requests** carry the host register address with bit 13 set (the split's mark):
//! page `p` (a function), offset `o` in the page; QP `q = o / 16 - 1`, register `k = o % 16` of
//! the QP block (`nic_function` map: 0 key with the QP's enable in bit 32, then per ring base,
//! size, producer, consumer). A request is answered with [`RegError::Unmapped`] when `q` is not
//! below `Q` or `k` names no register, and a write to the NIC's own pointer of a ring (the
//! event rings' producers, the NAP ring's consumer) with [`RegError::ReadOnly`]; neither
//! changes anything. One request is in the table at a time: a write is answered 2 cycles after
//! it is taken, a read 3 cycles after (or later while a lookup holds the RAMs' read port), and
//! the next request is taken after the response leaves. A write taken on the edge ending cycle
//! `c` is in the RAMs on the edge ending `c + 1`, so a lookup asked in `c + 2` sees it.
//!
//! **Lookups** (`valid`/`ready`): asked in cycle `c`, answered in `c + 1` (`answered`) with the
//! RAMs' contents and the pointers and enables of cycle `c`; every field is zero when no answer
//! is given or when the function or QP does not exist (`owned` low). Lookups and register reads
//! share the RAMs' read port: when both want it in one cycle they take turns (`ready` low for
//! the lookup every other time), so neither waits more than one cycle for the other.
//!
//! Children: [`QpRams`] (the RAMs, one write and one read port), [`QpPointers`] (the QPs'
//! enables and the NIC's pointers in flip-flops), [`QpLookup`] (the lookup port and its
//! answer) and [`QpRequestDecode`] (a request's address into entry, register and `mapped`);
//! this block carries out the register requests and shares the RAMs' read port between them
//! and the lookups.
//!
//! **The NIC's pointers** (flip-flops, 16 bits, free-running): an `advance` adds one to the
//! named ring's pointer of an existing QP; while a QP or its function is disabled its pointers
//! are held at zero.
//!
//! **Reset** (synchronous): no request held, QPs disabled, pointers zero; then the table clears
//! its RAMs one entry per cycle (`2^QAW` cycles), taking no request and answering no lookup
//! (`ready` low) until done, so every field reads zero after a reset. Power-up is not a reset:
//! the RAMs are cleared by the first reset.
//!
//! Parameters: `QAW` RAM address bits, log2 of [`qp_entries`] (`F x Q` rounded up to a power
//! of two, at least 2); elaboration values functions `F` (1..=8), QPs `Q` (a power of two, 1..=16) and page
//! registers `P`, checked by [`QpTable::new`].
use crate::function_table::{PointerAdvanceSink, QpLookupSink};
use crate::host::MMIO_DATA_BITS;
use crate::qp_lookup::QpLookup;
use crate::qp_pointers::QpPointers;
use crate::qp_rams::{field, QpRams, FIELD_BITS};
use crate::qp_request_decode::QpRequestDecode;
use crate::regs::{KEY_BITS, QP_BASE, QP_STRIDE, RING_POINTER_BITS};
use hdl::regmap::{RegError, RegRequestSink, RegResponseSource, ERROR_BITS};
use rust_hdl::prelude::*;

/// Bits of a table address: the host register address and the split's mark (bit 13).
pub const TABLE_ADDRESS_BITS: usize = crate::regs::HOST_REGISTER_BITS + 1;
/// Entries of each QP table RAM: `functions x qps` rounded up to a power of two, at least 2
/// (a RAM needs an address bit).
pub fn qp_entries(functions: usize, qps: usize) -> usize {
    (functions.next_power_of_two() * qps).max(2)
}

/// Registers of a QP block: key, then four per ring.
pub const QP_REGISTERS: usize = 13;

/// What a register request does, decided when it is taken.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum QpOp {
    /// Nothing held.
    Idle,
    /// A request held, to be carried out.
    Busy,
    /// A read waiting for the RAMs' output.
    Reading,
    /// The response is offered.
    Answering,
}

/// The QP table; see the module documentation.
#[derive(LogicBlock)]
pub struct QpTable<const QAW: usize> {
    /// Clock of every register and RAM.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (then the RAMs are cleared).
    pub reset: Signal<In, bool>,
    /// Register requests (table addresses).
    pub request: RegRequestSink<TABLE_ADDRESS_BITS, MMIO_DATA_BITS>,
    /// One response per request, in order.
    pub response: RegResponseSource<MMIO_DATA_BITS>,
    /// The engines' lookups.
    pub lookup: QpLookupSink,
    /// The engines' pointer advances.
    pub advance: PointerAdvanceSink,
    /// A second engine's pointer advances (never naming the pointer `advance` names).
    pub advance_second: PointerAdvanceSink,
    /// Per function: enabled (its `enable` register).
    pub function_enables: Vec<Signal<In, bool>>,
    /// Per function: its `interrupts` register (bit `q` for QP `q`).
    pub interrupts: Vec<Signal<In, Bits<16>>>,
    /// Keys and rings.
    rams: QpRams<QAW>,
    /// Enables and the NIC's pointers.
    pointers: QpPointers<QAW>,
    /// The lookup port.
    lookups: QpLookup<QAW>,
    /// The offered request's address decoded.
    decode: QpRequestDecode<QAW>,
    // Register request in the table.
    op: DFF<QpOp>,
    index: DFF<Bits<QAW>>,
    /// Register `k` of the QP block.
    field: DFF<Bits<FIELD_BITS>>,
    writing: DFF<bool>,
    wdata: DFF<Bits<MMIO_DATA_BITS>>,
    /// The request names an existing QP and register.
    mapped: DFF<bool>,
    answer: DFF<Bits<MMIO_DATA_BITS>>,
    failure: DFF<Bits<ERROR_BITS>>,
    /// The register read had to wait for the port: it goes first next time.
    favor_read: DFF<bool>,
    // Clearing after reset.
    sweeping: DFF<bool>,
    sweep_index: DFF<Bits<QAW>>,
    // Constants.
    /// The NIC's pointers' field numbers, per ring.
    nic_pointer_fields: Vec<Constant<Bits<FIELD_BITS>>>,
    key_field: Constant<Bits<FIELD_BITS>>,
    sweep_last: Constant<Bits<QAW>>,
    index_one: Constant<Bits<QAW>>,
    enable_bit: Constant<Bits<MMIO_DATA_BITS>>,
    error_none: Constant<Bits<ERROR_BITS>>,
    error_unmapped: Constant<Bits<ERROR_BITS>>,
    error_read_only: Constant<Bits<ERROR_BITS>>,
    /// The register read uses the RAMs' read port this cycle.
    read_port: Signal<Local, bool>,
    wants_port: Signal<Local, bool>,
    /// The held request's register is read-only (the NIC's pointer).
    read_only: Signal<Local, bool>,
    /// The NIC's pointer the held request's register names.
    held_pointer: Signal<Local, Bits<RING_POINTER_BITS>>,
}

impl<const QAW: usize> QpTable<QAW> {
    /// The table of `functions` functions (1..=8) of `qps` QPs (a power of two, 1..=16), with
    /// pages of `page_registers` registers. Panics naming the parameter if a value is out of
    /// range or `QAW` is not log2 of the next power of two of `functions x qps`.
    pub fn new(functions: usize, qps: usize, page_registers: u64) -> Self {
        assert!(
            (1..=8).contains(&functions),
            "QpTable: functions = {functions} must be 1..=8"
        );
        assert!(
            qps.is_power_of_two() && qps <= 16,
            "QpTable: qps = {qps} must be a power of two in 1..=16"
        );
        let entries = qp_entries(functions, qps);
        assert!(
            1usize << QAW == entries,
            "QpTable<QAW = {QAW}>: QAW (RAM address bits) must be log2({entries}) for {functions} functions of {qps} QPs"
        );
        assert!(
            page_registers.is_power_of_two() && page_registers >= QP_BASE + QP_STRIDE * qps as u64,
            "QpTable: page_registers = {page_registers} must be a power of two holding {qps} QP blocks"
        );
        assert_eq!(
            (QP_BASE, QP_STRIDE, KEY_BITS),
            (16, 16, 32),
            "QpTable decodes 16-register QP blocks with the enable in bit 32"
        );
        let k = |v: u64| Constant::new(Bits::<FIELD_BITS>::from(v));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            request: Default::default(),
            response: Default::default(),
            lookup: Default::default(),
            advance: Default::default(),
            advance_second: Default::default(),
            function_enables: (0..functions).map(|_| Default::default()).collect(),
            interrupts: (0..functions).map(|_| Default::default()).collect(),
            rams: Default::default(),
            pointers: QpPointers::new(functions, qps),
            lookups: QpLookup::new(functions, qps),
            decode: QpRequestDecode::new(functions, qps, page_registers),
            op: Default::default(),
            index: Default::default(),
            field: Default::default(),
            writing: Default::default(),
            wdata: Default::default(),
            mapped: Default::default(),
            answer: Default::default(),
            failure: Default::default(),
            favor_read: Default::default(),
            sweeping: Default::default(),
            sweep_index: Default::default(),
            nic_pointer_fields: field::NIC_POINTERS.iter().map(|&f| k(f)).collect(),
            key_field: k(field::KEY),
            sweep_last: Constant::new((entries - 1).to_bits()),
            index_one: Constant::new(1usize.to_bits()),
            enable_bit: Constant::new((1u64 << KEY_BITS).to_bits()),
            error_none: Constant::new(RegError::None.bits()),
            error_unmapped: Constant::new(RegError::Unmapped.bits()),
            error_read_only: Constant::new(RegError::ReadOnly.bits()),
            read_port: Default::default(),
            wants_port: Default::default(),
            read_only: Default::default(),
            held_pointer: Default::default(),
        }
    }
}

impl<const QAW: usize> Logic for QpTable<QAW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            op,
            index,
            field,
            writing,
            wdata,
            mapped,
            answer,
            failure,
            favor_read,
            sweeping,
            sweep_index
        );
        clock!(self, clock, rams, pointers, lookups);
        self.pointers.reset.next = self.reset.val();
        self.lookups.reset.next = self.reset.val();
        PointerAdvanceSink::link(&mut self.advance, &mut self.pointers.advance);
        PointerAdvanceSink::link(&mut self.advance_second, &mut self.pointers.advance_second);
        QpLookupSink::link(&mut self.lookup, &mut self.lookups.lookup);
        for f in 0..self.function_enables.len() {
            self.pointers.function_enables[f].next = self.function_enables[f].val();
            self.lookups.function_enables[f].next = self.function_enables[f].val();
            self.lookups.interrupts[f].next = self.interrupts[f].val();
        }

        // The offered request: entry, register, mapped (QpRequestDecode).
        self.decode.address.next = self.request.address.val();
        self.request.ready.next =
            (self.op.q.val() == QpOp::Idle) & !self.sweeping.q.val() & !self.reset.val();
        if self.request.valid.val() & self.request.ready.val() {
            self.op.d.next = QpOp::Busy;
            self.index.d.next = self.decode.index.val();
            self.field.d.next = self.decode.field.val();
            self.writing.d.next = self.request.write.val();
            self.wdata.d.next = self.request.data.val();
            self.mapped.d.next = self.decode.mapped.val();
        }

        // The held request's QP: the NIC's pointer its register names, if it names one.
        self.pointers.held_index.next = self.index.q.val();
        self.read_only.next = false;
        self.held_pointer.next = 0.into();
        for r in 0..3 {
            if self.field.q.val() == self.nic_pointer_fields[r].val() {
                self.read_only.next = true;
                self.held_pointer.next = self.pointers.held_pointers[r].val();
            }
        }

        // The RAMs' read port: a register read and a lookup take turns.
        self.wants_port.next = (self.op.q.val() == QpOp::Busy)
            & self.mapped.q.val()
            & !self.writing.q.val()
            & !self.read_only.val();
        self.read_port.next =
            self.wants_port.val() & (self.favor_read.q.val() | !self.lookup.valid.val());
        if self.wants_port.val() & self.lookup.valid.val() {
            self.favor_read.d.next = !self.read_port.val();
        }
        self.lookups.blocked.next = self.read_port.val() | self.sweeping.q.val() | self.reset.val();

        // Carrying the held request out: writes and the NIC's pointers at once, RAM reads
        // through the read port (answered from the RAMs' output a cycle later).
        if self.op.q.val() == QpOp::Busy {
            self.answer.d.next = 0.into();
            self.failure.d.next = self.error_none.val();
            if !self.mapped.q.val() {
                self.failure.d.next = self.error_unmapped.val();
                self.op.d.next = QpOp::Answering;
            } else if self.writing.q.val() {
                if self.read_only.val() {
                    self.failure.d.next = self.error_read_only.val();
                }
                self.op.d.next = QpOp::Answering;
            } else if self.read_only.val() {
                self.answer.d.next =
                    bit_cast::<MMIO_DATA_BITS, RING_POINTER_BITS>(self.held_pointer.val());
                self.op.d.next = QpOp::Answering;
            } else if self.read_port.val() {
                self.op.d.next = QpOp::Reading;
            }
        }
        self.rams.read_field.next = self.field.q.val();
        if self.op.q.val() == QpOp::Reading {
            // The key register carries the QP's enable in bit 32.
            self.answer.d.next = self.rams.value.val();
            if (self.field.q.val() == self.key_field.val()) & self.pointers.held_enable.val() {
                self.answer.d.next = self.rams.value.val() | self.enable_bit.val();
            }
            self.failure.d.next = self.error_none.val();
            self.op.d.next = QpOp::Answering;
        }
        self.response.valid.next = self.op.q.val() == QpOp::Answering;
        self.response.data.next = self.answer.q.val();
        self.response.error.next = self.failure.q.val();
        if (self.op.q.val() == QpOp::Answering) & self.response.ready.val() {
            self.op.d.next = QpOp::Idle;
        }

        // The write port: the held write (a key write sets the QP's enable too), or zeros
        // while clearing after a reset.
        self.rams.write_index.next = self.index.q.val();
        self.rams.write_field.next = self.field.q.val();
        self.rams.write_data.next = self.wdata.q.val();
        self.rams.write.next = (self.op.q.val() == QpOp::Busy)
            & self.mapped.q.val()
            & self.writing.q.val()
            & !self.read_only.val();
        self.rams.clear.next = false;
        self.pointers.enable_write.next =
            self.rams.write.val() & (self.field.q.val() == self.key_field.val());
        self.pointers.enable_index.next = self.index.q.val();
        // Bit 32 (KEY_BITS, checked in `new`): the QP's enable.
        self.pointers.enable_value.next = self.wdata.q.val().get_bit(32);
        if self.sweeping.q.val() {
            self.rams.write_index.next = self.sweep_index.q.val();
            self.rams.clear.next = true;
            self.sweep_index.d.next = self.sweep_index.q.val() + self.index_one.val();
            if self.sweep_index.q.val() == self.sweep_last.val() {
                self.sweeping.d.next = false;
            }
        }

        // Lookups: the RAMs and the NIC's pointers read at the entry the lookup names.
        self.rams.read_index.next = self.lookups.index.val();
        if self.read_port.val() {
            self.rams.read_index.next = self.index.q.val();
        }
        self.pointers.lookup_index.next = self.lookups.index.val();
        self.lookups.qp_enable.next = self.pointers.lookup_enable.val();
        self.lookups.key.next = self.rams.key.val();
        for r in 0..3 {
            self.lookups.nic_pointers[r].next = self.pointers.lookup_pointers[r].val();
            self.lookups.bases[r].next = self.rams.bases[r].val();
            self.lookups.sizes[r].next = self.rams.sizes[r].val();
            self.lookups.software_pointers[r].next = self.rams.software_pointers[r].val();
        }

        if self.reset.val() {
            self.op.d.next = QpOp::Idle;
            self.favor_read.d.next = false;
            self.sweeping.d.next = true;
            self.sweep_index.d.next = 0.into();
        }
    }
}

#[test]
fn qp_table_is_synthesizable() {
    let mut uut = QpTable::<5>::new(8, 4, 128);
    uut.connect_all();
    yosys_validate("qp_table_8x4", &generate_verilog(&uut)).unwrap();
    let mut uut = QpTable::<1>::new(2, 1, 32);
    uut.connect_all();
    yosys_validate("qp_table_2x1", &generate_verilog(&uut)).unwrap();
}
