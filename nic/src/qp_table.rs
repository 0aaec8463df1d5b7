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
//! of two, at least 2);
//! elaboration values functions `F` (1..=8), QPs `Q` (a power of two, 1..=16) and page
//! registers `P`, checked by [`QpTable::new`].
use crate::function_table::{PointerAdvanceSink, QpLookupSink};
use crate::host::MMIO_DATA_BITS;
use crate::regs::{KEY_BITS, QP_BASE, QP_STRIDE, RING_POINTER_BITS, RING_SIZE_BITS};
use hdl::formats::nic::{ADDRESS_BITS, FUNCTION_BITS, QP_BITS};
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
    /// Per function: enabled (its `enable` register).
    pub function_enables: Vec<Signal<In, bool>>,
    /// Per function: its `interrupts` register (bit `q` for QP `q`).
    pub interrupts: Vec<Signal<In, Bits<16>>>,
    keys: RAM<Bits<KEY_BITS>, QAW>,
    send_base: RAM<Bits<ADDRESS_BITS>, QAW>,
    receive_base: RAM<Bits<ADDRESS_BITS>, QAW>,
    nap_base: RAM<Bits<ADDRESS_BITS>, QAW>,
    send_size: RAM<Bits<RING_SIZE_BITS>, QAW>,
    receive_size: RAM<Bits<RING_SIZE_BITS>, QAW>,
    nap_size: RAM<Bits<RING_SIZE_BITS>, QAW>,
    /// Software's pointers: the event rings' consumers, the NAP ring's producer.
    send_consumer: RAM<Bits<RING_POINTER_BITS>, QAW>,
    receive_consumer: RAM<Bits<RING_POINTER_BITS>, QAW>,
    nap_producer: RAM<Bits<RING_POINTER_BITS>, QAW>,
    /// Per QP (RAM index): enabled.
    qp_enables: Vec<DFF<bool>>,
    /// Per QP and ring (`index x 3 + ring`): the NIC's pointer.
    pointers: Vec<DFF<Bits<RING_POINTER_BITS>>>,
    // Register request in the table.
    op: DFF<QpOp>,
    index: DFF<Bits<QAW>>,
    /// Register `k` of the QP block.
    field: DFF<Bits<4>>,
    writing: DFF<bool>,
    wdata: DFF<Bits<MMIO_DATA_BITS>>,
    /// The request names an existing QP and register.
    mapped: DFF<bool>,
    answer: DFF<Bits<MMIO_DATA_BITS>>,
    failure: DFF<Bits<ERROR_BITS>>,
    /// The register read had to wait for the port: it goes first next time.
    favor_read: DFF<bool>,
    // Lookup answer.
    answered: DFF<bool>,
    owned: DFF<bool>,
    function_enabled: DFF<bool>,
    qp_enabled: DFF<bool>,
    interrupt: DFF<bool>,
    nic_pointers: [DFF<Bits<RING_POINTER_BITS>>; 3],
    // Clearing after reset.
    sweeping: DFF<bool>,
    sweep_index: DFF<Bits<QAW>>,
    // Constants.
    function_ids: Vec<Constant<Bits<FUNCTION_BITS>>>,
    qp_ids: Vec<Constant<Bits<QP_BITS>>>,
    ring_ids: Vec<Constant<Bits<2>>>,
    /// Per RAM index: its function and QP.
    index_ids: Vec<Constant<Bits<QAW>>>,
    page_shift: Constant<Bits<5>>,
    page_mask: Constant<Bits<TABLE_ADDRESS_BITS>>,
    /// The host register address bits of a table address (the split's mark removed).
    host_mask: Constant<Bits<TABLE_ADDRESS_BITS>>,
    qp_shift: Constant<Bits<5>>,
    /// `Q` and `F`, as numbers of a request's page and QP block.
    qps: Constant<Bits<TABLE_ADDRESS_BITS>>,
    functions: Constant<Bits<TABLE_ADDRESS_BITS>>,
    address_one: Constant<Bits<TABLE_ADDRESS_BITS>>,
    sweep_last: Constant<Bits<QAW>>,
    index_one: Constant<Bits<QAW>>,
    pointer_one: Constant<Bits<RING_POINTER_BITS>>,
    enable_bit: Constant<Bits<MMIO_DATA_BITS>>,
    error_none: Constant<Bits<ERROR_BITS>>,
    error_unmapped: Constant<Bits<ERROR_BITS>>,
    error_read_only: Constant<Bits<ERROR_BITS>>,
    // Request decode.
    host: Signal<Local, Bits<TABLE_ADDRESS_BITS>>,
    page: Signal<Local, Bits<TABLE_ADDRESS_BITS>>,
    offset: Signal<Local, Bits<TABLE_ADDRESS_BITS>>,
    block: Signal<Local, Bits<TABLE_ADDRESS_BITS>>,
    /// `block - 1`: the QP.
    qp: Signal<Local, Bits<TABLE_ADDRESS_BITS>>,
    request_index: Signal<Local, Bits<QAW>>,
    request_mapped: Signal<Local, bool>,
    // Lookup decode.
    lookup_index: Signal<Local, Bits<QAW>>,
    lookup_function_ok: Signal<Local, bool>,
    lookup_qp_ok: Signal<Local, bool>,
    advance_index: Signal<Local, Bits<QAW>>,
    advance_function_ok: Signal<Local, bool>,
    advance_qp_ok: Signal<Local, bool>,
    /// The lookup answer is for an existing QP.
    giving: Signal<Local, bool>,
    /// The register read uses the RAMs' read port this cycle.
    read_port: Signal<Local, bool>,
    wants_port: Signal<Local, bool>,
    /// The held request's register is read-only (the NIC's pointer).
    read_only: Signal<Local, bool>,
    /// The NIC's pointer and enable of the held request's QP.
    held_pointer: Signal<Local, Bits<RING_POINTER_BITS>>,
    held_enable: Signal<Local, bool>,
    /// The held register's value from the RAMs.
    ram_value: Signal<Local, Bits<MMIO_DATA_BITS>>,
    /// Per QP: it and its function are enabled.
    live: Vec<Signal<Local, bool>>,
    _functions: usize,
    _qps: usize,
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
            (QP_BASE, QP_STRIDE),
            (16, 16),
            "QpTable decodes 16-register QP blocks"
        );
        let n = functions * qps;
        let c = |v: u64| Constant::new(Bits::<TABLE_ADDRESS_BITS>::from(v));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            request: Default::default(),
            response: Default::default(),
            lookup: Default::default(),
            advance: Default::default(),
            function_enables: (0..functions).map(|_| Default::default()).collect(),
            interrupts: (0..functions).map(|_| Default::default()).collect(),
            keys: Default::default(),
            send_base: Default::default(),
            receive_base: Default::default(),
            nap_base: Default::default(),
            send_size: Default::default(),
            receive_size: Default::default(),
            nap_size: Default::default(),
            send_consumer: Default::default(),
            receive_consumer: Default::default(),
            nap_producer: Default::default(),
            qp_enables: (0..n).map(|_| Default::default()).collect(),
            pointers: (0..3 * n).map(|_| Default::default()).collect(),
            op: Default::default(),
            index: Default::default(),
            field: Default::default(),
            writing: Default::default(),
            wdata: Default::default(),
            mapped: Default::default(),
            answer: Default::default(),
            failure: Default::default(),
            favor_read: Default::default(),
            answered: Default::default(),
            owned: Default::default(),
            function_enabled: Default::default(),
            qp_enabled: Default::default(),
            interrupt: Default::default(),
            nic_pointers: Default::default(),
            sweeping: Default::default(),
            sweep_index: Default::default(),
            function_ids: (0..functions).map(|f| Constant::new(f.to_bits())).collect(),
            qp_ids: (0..qps).map(|q| Constant::new(q.to_bits())).collect(),
            ring_ids: (0..3usize).map(|r| Constant::new(r.to_bits())).collect(),
            // QP `q` of function `f` is entry `f x Q + q`: the index of the Vecs too.
            index_ids: (0..n).map(|i| Constant::new(i.to_bits())).collect(),
            page_shift: Constant::new((page_registers.trailing_zeros() as usize).to_bits()),
            page_mask: c(page_registers - 1),
            host_mask: c((1 << crate::regs::HOST_REGISTER_BITS) - 1),
            qp_shift: Constant::new((qps.trailing_zeros() as usize).to_bits()),
            qps: c(qps as u64),
            functions: c(functions as u64),
            address_one: c(1),
            sweep_last: Constant::new((entries - 1).to_bits()),
            index_one: Constant::new(1usize.to_bits()),
            pointer_one: Constant::new(1usize.to_bits()),
            enable_bit: Constant::new((1u64 << KEY_BITS).to_bits()),
            error_none: Constant::new(RegError::None.bits()),
            error_unmapped: Constant::new(RegError::Unmapped.bits()),
            error_read_only: Constant::new(RegError::ReadOnly.bits()),
            host: Default::default(),
            page: Default::default(),
            offset: Default::default(),
            block: Default::default(),
            qp: Default::default(),
            request_index: Default::default(),
            request_mapped: Default::default(),
            lookup_index: Default::default(),
            lookup_function_ok: Default::default(),
            lookup_qp_ok: Default::default(),
            advance_index: Default::default(),
            advance_function_ok: Default::default(),
            advance_qp_ok: Default::default(),
            giving: Default::default(),
            read_port: Default::default(),
            wants_port: Default::default(),
            read_only: Default::default(),
            held_pointer: Default::default(),
            held_enable: Default::default(),
            ram_value: Default::default(),
            live: (0..n).map(|_| Default::default()).collect(),
            _functions: functions,
            _qps: qps,
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
            answered,
            owned,
            function_enabled,
            qp_enabled,
            interrupt,
            sweeping,
            sweep_index
        );
        self.keys.read_clock.next = self.clock.val();
        self.keys.write_clock.next = self.clock.val();
        self.send_base.read_clock.next = self.clock.val();
        self.send_base.write_clock.next = self.clock.val();
        self.receive_base.read_clock.next = self.clock.val();
        self.receive_base.write_clock.next = self.clock.val();
        self.nap_base.read_clock.next = self.clock.val();
        self.nap_base.write_clock.next = self.clock.val();
        self.send_size.read_clock.next = self.clock.val();
        self.send_size.write_clock.next = self.clock.val();
        self.receive_size.read_clock.next = self.clock.val();
        self.receive_size.write_clock.next = self.clock.val();
        self.nap_size.read_clock.next = self.clock.val();
        self.nap_size.write_clock.next = self.clock.val();
        self.send_consumer.read_clock.next = self.clock.val();
        self.send_consumer.write_clock.next = self.clock.val();
        self.receive_consumer.read_clock.next = self.clock.val();
        self.receive_consumer.write_clock.next = self.clock.val();
        self.nap_producer.read_clock.next = self.clock.val();
        self.nap_producer.write_clock.next = self.clock.val();

        // The offered request: page, QP block (1 + q), register k.
        self.host.next = self.request.address.val() & self.host_mask.val();
        self.page.next = self.host.val() >> self.page_shift.val();
        self.offset.next = self.host.val() & self.page_mask.val();
        self.block.next = self.offset.val() >> 4;
        self.request_mapped.next = (self.page.val() < self.functions.val())
            & self.block.val().any()
            & (self.block.val() <= self.qps.val())
            & (self.offset.val().get_bits::<4>(0) < 13);
        self.qp.next = self.block.val() - self.address_one.val();
        self.request_index.next = bit_cast::<QAW, TABLE_ADDRESS_BITS>(
            (self.page.val() << self.qp_shift.val()) | self.qp.val(),
        );
        self.request.ready.next =
            (self.op.q.val() == QpOp::Idle) & !self.sweeping.q.val() & !self.reset.val();
        if self.request.valid.val() & self.request.ready.val() {
            self.op.d.next = QpOp::Busy;
            self.index.d.next = self.request_index.val();
            self.field.d.next = self.offset.val().get_bits::<4>(0);
            self.writing.d.next = self.request.write.val();
            self.wdata.d.next = self.request.data.val();
            self.mapped.d.next = self.request_mapped.val();
        }

        // The held request's QP: its enable and the NIC's pointer its register names.
        self.read_only.next =
            (self.field.q.val() == 3) | (self.field.q.val() == 7) | (self.field.q.val() == 12);
        self.held_enable.next = false;
        self.held_pointer.next = 0.into();
        for i in 0..self.qp_enables.len() {
            if self.index.q.val() == self.index_ids[i].val() {
                self.held_enable.next = self.qp_enables[i].q.val();
                if self.field.q.val() == 3 {
                    self.held_pointer.next = self.pointers[i * 3].q.val();
                }
                if self.field.q.val() == 7 {
                    self.held_pointer.next = self.pointers[i * 3 + 1].q.val();
                }
                if self.field.q.val() == 12 {
                    self.held_pointer.next = self.pointers[i * 3 + 2].q.val();
                }
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
        self.lookup.ready.next = !self.read_port.val() & !self.sweeping.q.val() & !self.reset.val();

        // Carrying the held request out.
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
        self.ram_value.next = 0.into();
        if self.field.q.val() == 0 {
            self.ram_value.next = bit_cast::<MMIO_DATA_BITS, KEY_BITS>(self.keys.read_data.val());
            if self.held_enable.val() {
                self.ram_value.next =
                    bit_cast::<MMIO_DATA_BITS, KEY_BITS>(self.keys.read_data.val())
                        | self.enable_bit.val();
            }
        }
        if self.field.q.val() == 1 {
            self.ram_value.next =
                bit_cast::<MMIO_DATA_BITS, ADDRESS_BITS>(self.send_base.read_data.val());
        }
        if self.field.q.val() == 2 {
            self.ram_value.next =
                bit_cast::<MMIO_DATA_BITS, RING_SIZE_BITS>(self.send_size.read_data.val());
        }
        if self.field.q.val() == 4 {
            self.ram_value.next =
                bit_cast::<MMIO_DATA_BITS, RING_POINTER_BITS>(self.send_consumer.read_data.val());
        }
        if self.field.q.val() == 5 {
            self.ram_value.next =
                bit_cast::<MMIO_DATA_BITS, ADDRESS_BITS>(self.receive_base.read_data.val());
        }
        if self.field.q.val() == 6 {
            self.ram_value.next =
                bit_cast::<MMIO_DATA_BITS, RING_SIZE_BITS>(self.receive_size.read_data.val());
        }
        if self.field.q.val() == 8 {
            self.ram_value.next = bit_cast::<MMIO_DATA_BITS, RING_POINTER_BITS>(
                self.receive_consumer.read_data.val(),
            );
        }
        if self.field.q.val() == 9 {
            self.ram_value.next =
                bit_cast::<MMIO_DATA_BITS, ADDRESS_BITS>(self.nap_base.read_data.val());
        }
        if self.field.q.val() == 10 {
            self.ram_value.next =
                bit_cast::<MMIO_DATA_BITS, RING_SIZE_BITS>(self.nap_size.read_data.val());
        }
        if self.field.q.val() == 11 {
            self.ram_value.next =
                bit_cast::<MMIO_DATA_BITS, RING_POINTER_BITS>(self.nap_producer.read_data.val());
        }
        if self.op.q.val() == QpOp::Reading {
            self.answer.d.next = self.ram_value.val();
            self.failure.d.next = self.error_none.val();
            self.op.d.next = QpOp::Answering;
        }
        self.response.valid.next = self.op.q.val() == QpOp::Answering;
        self.response.data.next = self.answer.q.val();
        self.response.error.next = self.failure.q.val();
        if (self.op.q.val() == QpOp::Answering) & self.response.ready.val() {
            self.op.d.next = QpOp::Idle;
        }

        // The RAMs' write port: the held write, or zeros while clearing after a reset.
        self.keys.write_address.next = self.index.q.val();
        self.send_base.write_address.next = self.index.q.val();
        self.receive_base.write_address.next = self.index.q.val();
        self.nap_base.write_address.next = self.index.q.val();
        self.send_size.write_address.next = self.index.q.val();
        self.receive_size.write_address.next = self.index.q.val();
        self.nap_size.write_address.next = self.index.q.val();
        self.send_consumer.write_address.next = self.index.q.val();
        self.receive_consumer.write_address.next = self.index.q.val();
        self.nap_producer.write_address.next = self.index.q.val();
        self.keys.write_data.next = self.wdata.q.val().get_bits::<KEY_BITS>(0);
        self.send_base.write_data.next = self.wdata.q.val().get_bits::<ADDRESS_BITS>(0);
        self.receive_base.write_data.next = self.wdata.q.val().get_bits::<ADDRESS_BITS>(0);
        self.nap_base.write_data.next = self.wdata.q.val().get_bits::<ADDRESS_BITS>(0);
        self.send_size.write_data.next = self.wdata.q.val().get_bits::<RING_SIZE_BITS>(0);
        self.receive_size.write_data.next = self.wdata.q.val().get_bits::<RING_SIZE_BITS>(0);
        self.nap_size.write_data.next = self.wdata.q.val().get_bits::<RING_SIZE_BITS>(0);
        self.send_consumer.write_data.next = self.wdata.q.val().get_bits::<RING_POINTER_BITS>(0);
        self.receive_consumer.write_data.next = self.wdata.q.val().get_bits::<RING_POINTER_BITS>(0);
        self.nap_producer.write_data.next = self.wdata.q.val().get_bits::<RING_POINTER_BITS>(0);
        self.keys.write_enable.next = false;
        self.send_base.write_enable.next = false;
        self.receive_base.write_enable.next = false;
        self.nap_base.write_enable.next = false;
        self.send_size.write_enable.next = false;
        self.receive_size.write_enable.next = false;
        self.nap_size.write_enable.next = false;
        self.send_consumer.write_enable.next = false;
        self.receive_consumer.write_enable.next = false;
        self.nap_producer.write_enable.next = false;
        if (self.op.q.val() == QpOp::Busy)
            & self.mapped.q.val()
            & self.writing.q.val()
            & !self.read_only.val()
        {
            self.keys.write_enable.next = self.field.q.val() == 0;
            self.send_base.write_enable.next = self.field.q.val() == 1;
            self.send_size.write_enable.next = self.field.q.val() == 2;
            self.send_consumer.write_enable.next = self.field.q.val() == 4;
            self.receive_base.write_enable.next = self.field.q.val() == 5;
            self.receive_size.write_enable.next = self.field.q.val() == 6;
            self.receive_consumer.write_enable.next = self.field.q.val() == 8;
            self.nap_base.write_enable.next = self.field.q.val() == 9;
            self.nap_size.write_enable.next = self.field.q.val() == 10;
            self.nap_producer.write_enable.next = self.field.q.val() == 11;
        }
        if self.sweeping.q.val() {
            self.keys.write_address.next = self.sweep_index.q.val();
            self.send_base.write_address.next = self.sweep_index.q.val();
            self.receive_base.write_address.next = self.sweep_index.q.val();
            self.nap_base.write_address.next = self.sweep_index.q.val();
            self.send_size.write_address.next = self.sweep_index.q.val();
            self.receive_size.write_address.next = self.sweep_index.q.val();
            self.nap_size.write_address.next = self.sweep_index.q.val();
            self.send_consumer.write_address.next = self.sweep_index.q.val();
            self.receive_consumer.write_address.next = self.sweep_index.q.val();
            self.nap_producer.write_address.next = self.sweep_index.q.val();
            self.keys.write_data.next = 0.into();
            self.send_base.write_data.next = 0.into();
            self.receive_base.write_data.next = 0.into();
            self.nap_base.write_data.next = 0.into();
            self.send_size.write_data.next = 0.into();
            self.receive_size.write_data.next = 0.into();
            self.nap_size.write_data.next = 0.into();
            self.send_consumer.write_data.next = 0.into();
            self.receive_consumer.write_data.next = 0.into();
            self.nap_producer.write_data.next = 0.into();
            self.keys.write_enable.next = true;
            self.send_base.write_enable.next = true;
            self.receive_base.write_enable.next = true;
            self.nap_base.write_enable.next = true;
            self.send_size.write_enable.next = true;
            self.receive_size.write_enable.next = true;
            self.nap_size.write_enable.next = true;
            self.send_consumer.write_enable.next = true;
            self.receive_consumer.write_enable.next = true;
            self.nap_producer.write_enable.next = true;
            self.sweep_index.d.next = self.sweep_index.q.val() + self.index_one.val();
            if self.sweep_index.q.val() == self.sweep_last.val() {
                self.sweeping.d.next = false;
            }
        }

        // Lookups and advances: which QP they name, and whether it exists.
        self.lookup_function_ok.next = false;
        self.advance_function_ok.next = false;
        for f in 0..self.function_ids.len() {
            if self.lookup.function.val() == self.function_ids[f].val() {
                self.lookup_function_ok.next = true;
            }
            if self.advance.function.val() == self.function_ids[f].val() {
                self.advance_function_ok.next = true;
            }
        }
        self.lookup_qp_ok.next = false;
        self.advance_qp_ok.next = false;
        for q in 0..self.qp_ids.len() {
            if self.lookup.qp.val() == self.qp_ids[q].val() {
                self.lookup_qp_ok.next = true;
            }
            if self.advance.qp.val() == self.qp_ids[q].val() {
                self.advance_qp_ok.next = true;
            }
        }
        self.lookup_index.next = bit_cast::<QAW, 8>(
            (bit_cast::<8, FUNCTION_BITS>(self.lookup.function.val()) << self.qp_shift.val())
                | bit_cast::<8, QP_BITS>(self.lookup.qp.val()),
        );
        self.advance_index.next = bit_cast::<QAW, 8>(
            (bit_cast::<8, FUNCTION_BITS>(self.advance.function.val()) << self.qp_shift.val())
                | bit_cast::<8, QP_BITS>(self.advance.qp.val()),
        );
        self.keys.read_address.next = self.lookup_index.val();
        if self.read_port.val() {
            self.keys.read_address.next = self.index.q.val();
        }
        self.send_base.read_address.next = self.keys.read_address.val();
        self.receive_base.read_address.next = self.keys.read_address.val();
        self.nap_base.read_address.next = self.keys.read_address.val();
        self.send_size.read_address.next = self.keys.read_address.val();
        self.receive_size.read_address.next = self.keys.read_address.val();
        self.nap_size.read_address.next = self.keys.read_address.val();
        self.send_consumer.read_address.next = self.keys.read_address.val();
        self.receive_consumer.read_address.next = self.keys.read_address.val();
        self.nap_producer.read_address.next = self.keys.read_address.val();

        // The lookup's answer: captured now, shown next cycle.
        self.answered.d.next = self.lookup.valid.val() & self.lookup.ready.val();
        self.owned.d.next = self.lookup_function_ok.val() & self.lookup_qp_ok.val();
        self.function_enabled.d.next = false;
        self.interrupt.d.next = false;
        for f in 0..self.function_ids.len() {
            if self.lookup.function.val() == self.function_ids[f].val() {
                self.function_enabled.d.next = self.function_enables[f].val();
                self.interrupt.d.next = self.interrupts[f]
                    .val()
                    .get_bit(self.lookup.qp.val().index());
            }
        }
        self.qp_enabled.d.next = false;
        for r in 0..3 {
            self.nic_pointers[r].clock.next = self.clock.val();
            self.nic_pointers[r].d.next = 0.into();
        }
        for qn in self._qps..(self._qps + 1) {
            for i in 0..self.qp_enables.len() {
                if self.lookup_index.val() == self.index_ids[i].val() {
                    self.qp_enabled.d.next = self.qp_enables[i].q.val();
                    for r in 0..3 {
                        self.nic_pointers[r].d.next = self.pointers[i * 3 + r].q.val();
                    }
                }
                // Per QP: enable, and the NIC's pointers (zero while disabled).
                self.qp_enables[i].clock.next = self.clock.val();
                self.qp_enables[i].d.next = self.qp_enables[i].q.val();
                if (self.op.q.val() == QpOp::Busy)
                    & self.mapped.q.val()
                    & self.writing.q.val()
                    & (self.field.q.val() == 0)
                    & (self.index.q.val() == self.index_ids[i].val())
                {
                    self.qp_enables[i].d.next = self.wdata.q.val().get_bit(32);
                }
                self.live[i].next =
                    self.qp_enables[i].q.val() & self.function_enables[i / qn].val();
                for r in 0..3 {
                    self.pointers[i * 3 + r].clock.next = self.clock.val();
                    self.pointers[i * 3 + r].d.next = self.pointers[i * 3 + r].q.val();
                    if self.advance.valid.val()
                        & self.advance_function_ok.val()
                        & self.advance_qp_ok.val()
                        & (self.advance_index.val() == self.index_ids[i].val())
                        & (self.advance.ring.val() == self.ring_ids[r].val())
                    {
                        self.pointers[i * 3 + r].d.next =
                            self.pointers[i * 3 + r].q.val() + self.pointer_one.val();
                    }
                    if !self.live[i].val() | self.reset.val() {
                        self.pointers[i * 3 + r].d.next = 0.into();
                    }
                }
                if self.reset.val() {
                    self.qp_enables[i].d.next = false;
                }
            }
        }
        self.giving.next = self.answered.q.val() & self.owned.q.val();
        self.lookup.answered.next = self.answered.q.val();
        self.lookup.owned.next = self.giving.val();
        self.lookup.function_enabled.next = self.giving.val() & self.function_enabled.q.val();
        self.lookup.qp_enabled.next = self.giving.val() & self.qp_enabled.q.val();
        self.lookup.interrupt.next = self.giving.val() & self.interrupt.q.val();
        self.lookup.key.next = 0.into();
        self.lookup.send_base.next = 0.into();
        self.lookup.send_size.next = 0.into();
        self.lookup.send_producer.next = 0.into();
        self.lookup.send_consumer.next = 0.into();
        self.lookup.receive_base.next = 0.into();
        self.lookup.receive_size.next = 0.into();
        self.lookup.receive_producer.next = 0.into();
        self.lookup.receive_consumer.next = 0.into();
        self.lookup.nap_base.next = 0.into();
        self.lookup.nap_size.next = 0.into();
        self.lookup.nap_producer.next = 0.into();
        self.lookup.nap_consumer.next = 0.into();
        if self.giving.val() {
            self.lookup.key.next = self.keys.read_data.val();
            self.lookup.send_base.next = self.send_base.read_data.val();
            self.lookup.send_size.next = self.send_size.read_data.val();
            self.lookup.send_producer.next = self.nic_pointers[0].q.val();
            self.lookup.send_consumer.next = self.send_consumer.read_data.val();
            self.lookup.receive_base.next = self.receive_base.read_data.val();
            self.lookup.receive_size.next = self.receive_size.read_data.val();
            self.lookup.receive_producer.next = self.nic_pointers[1].q.val();
            self.lookup.receive_consumer.next = self.receive_consumer.read_data.val();
            self.lookup.nap_base.next = self.nap_base.read_data.val();
            self.lookup.nap_size.next = self.nap_size.read_data.val();
            self.lookup.nap_producer.next = self.nap_producer.read_data.val();
            self.lookup.nap_consumer.next = self.nic_pointers[2].q.val();
        }

        if self.reset.val() {
            self.op.d.next = QpOp::Idle;
            self.answered.d.next = false;
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
