//! MMIO decode: the host's register accesses checked against the SR-IOV isolation rules, then
//! sent to the function table's register file, to the doorbell FIFOs, or refused.
//!
//! A request names a function (its BAR) and a byte offset. Register `r = offset / 8` is
//! reached as follows (`P` registers per page, `F` functions, `docs/host-interface.md`):
//! - a VF (function `f > 0`) reaches its own page only: register `f x P + r` if `r < P`;
//! - the PF (function 0) reaches every page and the global registers: register `r` if
//!   `r < F x P + G` (`G` global registers);
//! - anything else is **outside**: a read is answered `Outside` (data zero), a write dropped,
//!   and `outside[f]` pulses for the requesting function (a function number at or above `F`,
//!   which no BAR decodes to, is refused the same way with no pulse);
//! - an offset not 8-byte aligned is **invalid**: answered `Unmapped`, a write dropped;
//! - a VF's write to a register of its page that only the PF may write (`privileged`
//!   offsets, from `nic/src/regs.rs`) is dropped and `privileged[f]` pulses; a VF may read them;
//! - a write to offset 0 of a function page (`doorbell`) goes to that function's doorbell
//!   FIFO, unless the function is disabled (`enables`): then it is dropped and `disabled[g]`
//!   pulses for the page's function `g`;
//! - everything else goes to the register files as one request, bit 13 of its address set when
//!   it names a register of a QP block (the QP table's) and clear otherwise (the function
//!   register file's); a read returns the register (`Ok`) or, where there is none, zero
//!   (`Unmapped`). A write the register files refuse (no register there, or a read-only one)
//!   changes nothing.
//!
//! `invalid[f]` pulses for each access of function `f` that no register took: misaligned, or
//! refused by the register file (read or write). It pulses when the access leaves the in-order
//! queue below, so at most one pulse per cycle.
//!
//! Order and timing: accesses are taken one per cycle (`mmio.ready` when the in-order queue,
//! the register file and the doorbell stream can all take one). Every read, every write to
//! the register file and every misaligned write enters a 4-entry queue; completions leave in
//! request order, a refused read's as soon as it reaches the head, a register read's when the
//! register file answers (2 cycles after its request with `completion.ready` high). Doorbells
//! and the outside and privileged outcomes act on the accepting edge.
//!
//! Reset (synchronous): the queue empties; reads not yet answered get no completion (the
//! host's reset of the NIC abandons them).
//!
//! Parameters (elaboration, [`MmioDecode::new`]): `F` functions, `P` page registers (a power
//! of two), `G` global registers, the privileged page offsets.
use crate::doorbell::DoorbellSource;
use crate::host::mmio::{MmioCompletionSource, MmioRequestSink, MmioStatus, MMIO_STATUS_BITS};
use crate::host::{MMIO_DATA_BITS, MMIO_OFFSET_BITS, MMIO_TAG_BITS};
use crate::qp_table::TABLE_ADDRESS_BITS;
use crate::regs::HOST_REGISTER_BITS;
use hdl::fifo::RegFifo;
use hdl::formats::nic::FUNCTION_BITS;
use hdl::regmap::{RegError, RegRequestSource, RegResponseSink, ERROR_BITS};
use rust_hdl::prelude::*;

/// Bits of a queue entry: function, tag, write, refused here (local), status.
const ENTRY_BITS: usize = FUNCTION_BITS + MMIO_TAG_BITS + 2 + MMIO_STATUS_BITS;
const ENTRY_TAG: usize = FUNCTION_BITS;
const ENTRY_WRITE: usize = ENTRY_TAG + MMIO_TAG_BITS;
const ENTRY_LOCAL: usize = ENTRY_WRITE + 1;
const ENTRY_STATUS: usize = ENTRY_LOCAL + 1;
/// Entries of the in-order queue.
const QUEUE_DEPTH: usize = 4;
/// Bits of a page number (up to 8 pages and the global block).
const PAGE_BITS: usize = FUNCTION_BITS + 1;

/// The MMIO decode; see the module documentation.
#[derive(LogicBlock)]
pub struct MmioDecode {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Register accesses from the host.
    pub mmio: MmioRequestSink,
    /// Read completions to the host.
    pub completion: MmioCompletionSource,
    /// Requests to the register files: the host register address, with bit 13 set for a QP
    /// block's register (the QP table's; the rest are the function register file's).
    pub request: RegRequestSource<TABLE_ADDRESS_BITS, MMIO_DATA_BITS>,
    /// The register file's responses.
    pub response: RegResponseSink<MMIO_DATA_BITS>,
    /// Doorbells to the doorbell FIFOs.
    pub doorbells: DoorbellSource,
    /// Per function: enabled (its `enable` register).
    pub enables: Vec<Signal<In, bool>>,
    /// Per function: a doorbell refused on this edge because the function is disabled.
    pub disabled: Vec<Signal<Out, bool>>,
    /// Per function: an access of this function beyond its BAR on this edge.
    pub outside: Vec<Signal<Out, bool>>,
    /// Per function: a write of this (virtual) function to a PF-only register on this edge.
    pub privileged: Vec<Signal<Out, bool>>,
    /// Per function: an access of this function that no register took left the queue.
    pub invalid: Vec<Signal<Out, bool>>,
    queue: RegFifo<Bits<ENTRY_BITS>, QUEUE_DEPTH, 3>,
    /// The address decode: where the request goes.
    where_to: MmioTarget,
    ids: Vec<Constant<Bits<FUNCTION_BITS>>>,
    page_ids: Vec<Constant<Bits<PAGE_BITS>>>,
    /// Bit 13 of a table address: a QP block's register.
    qp_mark: Constant<Bits<TABLE_ADDRESS_BITS>>,
    /// The first offset of a page's QP blocks.
    qp_base: Constant<Bits<HOST_REGISTER_BITS>>,
    /// The request names a QP block's register.
    in_qp_block: Signal<Local, bool>,
    status_ok: Constant<Bits<MMIO_STATUS_BITS>>,
    status_unmapped: Constant<Bits<MMIO_STATUS_BITS>>,
    status_outside: Constant<Bits<MMIO_STATUS_BITS>>,
    error_none: Constant<Bits<ERROR_BITS>>,
    error_unmapped: Constant<Bits<ERROR_BITS>>,
    /// Field positions of a queue entry.
    tag_lsb: Constant<Bits<5>>,
    write_lsb: Constant<Bits<5>>,
    local_lsb: Constant<Bits<5>>,
    status_lsb: Constant<Bits<5>>,
    /// An entry's `write` and `local` bits, in place.
    write_flag: Constant<Bits<ENTRY_BITS>>,
    local_flag: Constant<Bits<ENTRY_BITS>>,
    /// The entry's flag bits for this request.
    write_bit: Signal<Local, Bits<ENTRY_BITS>>,
    local_bit: Signal<Local, Bits<ENTRY_BITS>>,
    /// What the accepted request does.
    to_regfile: Signal<Local, bool>,
    to_doorbell: Signal<Local, bool>,
    refused_outside: Signal<Local, bool>,
    refused_privileged: Signal<Local, bool>,
    refused_disabled: Signal<Local, bool>,
    /// Local status of a queued entry refused here.
    local_status: Signal<Local, Bits<MMIO_STATUS_BITS>>,
    queued: Signal<Local, bool>,
    accept: Signal<Local, bool>,
    /// The queue's head, unpacked.
    head: Signal<Local, Bits<ENTRY_BITS>>,
    head_function: Signal<Local, Bits<FUNCTION_BITS>>,
    head_read: Signal<Local, bool>,
    head_local: Signal<Local, bool>,
    head_status: Signal<Local, Bits<MMIO_STATUS_BITS>>,
    /// The head leaves on this edge.
    retire: Signal<Local, bool>,
    /// It leaves with no register having taken it.
    retire_invalid: Signal<Local, bool>,
    /// The queue's fill: its `ready` says all the handshake needs.
    queue_count_unused: Signal<Local, bool>,
}

impl MmioDecode {
    /// The decode of `functions` functions with pages of `page_registers` registers (a power
    /// of two), `global_registers` PF-only registers after the last page, and the page
    /// offsets only the PF may write.
    pub fn new(
        functions: usize,
        page_registers: u64,
        global_registers: u64,
        privileged: &[u64],
    ) -> Self {
        assert!(
            (1..=8).contains(&functions),
            "MmioDecode: functions = {functions} must be 1..=8"
        );
        assert!(
            page_registers.is_power_of_two() && page_registers > 1,
            "MmioDecode: page_registers = {page_registers} must be a power of two"
        );
        let limit = functions as u64 * page_registers + global_registers;
        assert!(
            limit <= 1 << HOST_REGISTER_BITS,
            "MmioDecode: {functions} pages of {page_registers} registers and {global_registers} global ones exceed {HOST_REGISTER_BITS} address bits"
        );
        let c = |v: u64| Constant::new(Bits::<HOST_REGISTER_BITS>::from(v));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            mmio: Default::default(),
            completion: Default::default(),
            request: Default::default(),
            response: Default::default(),
            doorbells: Default::default(),
            enables: (0..functions).map(|_| Default::default()).collect(),
            disabled: (0..functions).map(|_| Default::default()).collect(),
            outside: (0..functions).map(|_| Default::default()).collect(),
            privileged: (0..functions).map(|_| Default::default()).collect(),
            invalid: (0..functions).map(|_| Default::default()).collect(),
            queue: RegFifo::new(false),
            where_to: MmioTarget::new(functions, page_registers, limit, privileged),
            ids: (0..functions).map(|f| Constant::new(f.to_bits())).collect(),
            page_ids: (0..functions).map(|f| Constant::new(f.to_bits())).collect(),
            qp_mark: Constant::new((1usize << HOST_REGISTER_BITS).to_bits()),
            qp_base: c(crate::regs::QP_BASE),
            in_qp_block: Default::default(),
            status_ok: Constant::new(MmioStatus::Ok.bits()),
            status_unmapped: Constant::new(MmioStatus::Unmapped.bits()),
            status_outside: Constant::new(MmioStatus::Outside.bits()),
            error_none: Constant::new(RegError::None.bits()),
            error_unmapped: Constant::new(RegError::Unmapped.bits()),
            tag_lsb: Constant::new(ENTRY_TAG.to_bits()),
            write_lsb: Constant::new(ENTRY_WRITE.to_bits()),
            local_lsb: Constant::new(ENTRY_LOCAL.to_bits()),
            status_lsb: Constant::new(ENTRY_STATUS.to_bits()),
            write_flag: Constant::new((1usize << ENTRY_WRITE).to_bits()),
            local_flag: Constant::new((1usize << ENTRY_LOCAL).to_bits()),
            write_bit: Default::default(),
            local_bit: Default::default(),
            to_regfile: Default::default(),
            to_doorbell: Default::default(),
            refused_outside: Default::default(),
            refused_privileged: Default::default(),
            refused_disabled: Default::default(),
            local_status: Default::default(),
            queued: Default::default(),
            accept: Default::default(),
            head: Default::default(),
            head_function: Default::default(),
            head_read: Default::default(),
            head_local: Default::default(),
            head_status: Default::default(),
            retire: Default::default(),
            retire_invalid: Default::default(),
            queue_count_unused: Default::default(),
        }
    }
}

impl Logic for MmioDecode {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, queue);
        self.queue.reset.next = self.reset.val();
        self.queue_count_unused.next = self.queue.count.val().any();

        // Where the request goes (MmioTarget).
        self.where_to.function_number.next = self.mmio.function.val();
        self.where_to.offset.next = self.mmio.offset.val();
        for f in 0..self.enables.len() {
            self.where_to.enables[f].next = self.enables[f].val();
        }

        // The outcome of an access taken on this edge.
        self.refused_outside.next = self.where_to.outside_bar.val();
        self.refused_privileged.next = !self.where_to.outside_bar.val()
            & self.where_to.aligned.val()
            & self.mmio.write.val()
            & !self.where_to.is_pf.val()
            & self.where_to.privileged_hit.val();
        self.to_doorbell.next = !self.where_to.outside_bar.val()
            & self.where_to.aligned.val()
            & self.mmio.write.val()
            & self.where_to.doorbell_hit.val();
        self.refused_disabled.next = self.to_doorbell.val() & !self.where_to.target_enabled.val();
        self.to_regfile.next = !self.where_to.outside_bar.val()
            & self.where_to.aligned.val()
            & !self.refused_privileged.val()
            & !self.to_doorbell.val();
        self.queued.next = self.to_regfile.val()
            | (!self.mmio.write.val())
            | (!self.where_to.aligned.val() & !self.where_to.outside_bar.val());
        self.local_status.next = self.status_unmapped.val();
        if self.where_to.outside_bar.val() {
            self.local_status.next = self.status_outside.val();
        }

        self.mmio.ready.next = self.queue.sink.ready.val()
            & self.request.ready.val()
            & self.doorbells.ready.val()
            & !self.reset.val();
        self.accept.next = self.mmio.valid.val() & self.mmio.ready.val();

        self.request.valid.next = self.mmio.valid.val()
            & self.to_regfile.val()
            & self.queue.sink.ready.val()
            & self.doorbells.ready.val()
            & !self.reset.val();
        self.in_qp_block.next =
            self.where_to.in_page.val() & (self.where_to.page_offset.val() >= self.qp_base.val());
        self.request.address.next =
            bit_cast::<TABLE_ADDRESS_BITS, HOST_REGISTER_BITS>(self.where_to.target.val());
        if self.in_qp_block.val() {
            self.request.address.next =
                bit_cast::<TABLE_ADDRESS_BITS, HOST_REGISTER_BITS>(self.where_to.target.val())
                    | self.qp_mark.val();
        }
        self.request.write.next = self.mmio.write.val();
        self.request.data.next = self.mmio.data.val();

        self.doorbells.valid.next = self.mmio.valid.val()
            & self.to_doorbell.val()
            & self.where_to.target_enabled.val()
            & self.queue.sink.ready.val()
            & self.request.ready.val()
            & !self.reset.val();
        self.doorbells.function.next = self.where_to.target_page.val().get_bits::<FUNCTION_BITS>(0);
        self.doorbells.word.next = self.mmio.data.val();

        self.queue.sink.valid.next = self.mmio.valid.val()
            & self.queued.val()
            & self.request.ready.val()
            & self.doorbells.ready.val()
            & !self.reset.val();
        self.write_bit.next = 0.into();
        if self.mmio.write.val() {
            self.write_bit.next = self.write_flag.val();
        }
        self.local_bit.next = 0.into();
        if !self.to_regfile.val() {
            self.local_bit.next = self.local_flag.val();
        }
        self.queue.sink.data.next = bit_cast::<ENTRY_BITS, FUNCTION_BITS>(self.mmio.function.val())
            | (bit_cast::<ENTRY_BITS, MMIO_TAG_BITS>(self.mmio.tag.val()) << self.tag_lsb.val())
            | (bit_cast::<ENTRY_BITS, MMIO_STATUS_BITS>(self.local_status.val())
                << self.status_lsb.val())
            | self.write_bit.val()
            | self.local_bit.val();

        for f in 0..self.ids.len() {
            self.outside[f].next = self.accept.val()
                & self.refused_outside.val()
                & (self.mmio.function.val() == self.ids[f].val());
            self.privileged[f].next = self.accept.val()
                & self.refused_privileged.val()
                & (self.mmio.function.val() == self.ids[f].val());
            self.disabled[f].next = self.accept.val()
                & self.refused_disabled.val()
                & (self.where_to.target_page.val() == self.page_ids[f].val());
        }

        // The queue's head: completions in order, the register file's answers consumed.
        self.head.next = self.queue.source.data.val();
        self.head_function.next = self.head.val().get_bits::<FUNCTION_BITS>(0);
        self.head_read.next = !self.head.val().get_bit(self.write_lsb.val().index());
        self.head_local.next = self.head.val().get_bit(self.local_lsb.val().index());
        self.head_status.next = self
            .head
            .val()
            .get_bits::<MMIO_STATUS_BITS>(self.status_lsb.val().index());
        self.completion.tag.next = self
            .head
            .val()
            .get_bits::<MMIO_TAG_BITS>(self.tag_lsb.val().index());
        self.completion.data.next = 0.into();
        self.completion.status.next = self.head_status.val();
        self.completion.valid.next = false;
        self.response.ready.next = false;
        self.retire.next = false;
        self.retire_invalid.next = false;
        if self.queue.source.valid.val() {
            if self.head_local.val() {
                self.completion.valid.next = self.head_read.val();
                self.retire.next = !self.head_read.val() | self.completion.ready.val();
                self.retire_invalid.next = self.head_status.val() == self.status_unmapped.val();
            } else {
                self.completion.valid.next = self.head_read.val() & self.response.valid.val();
                self.completion.data.next = self.response.data.val();
                self.completion.status.next = self.status_ok.val();
                if self.response.error.val() == self.error_unmapped.val() {
                    self.completion.status.next = self.status_unmapped.val();
                }
                self.response.ready.next = !self.head_read.val() | self.completion.ready.val();
                self.retire.next = self.response.valid.val() & self.response.ready.val();
                self.retire_invalid.next = self.response.error.val() != self.error_none.val();
            }
        }
        self.queue.source.ready.next = self.retire.val();
        for f in 0..self.ids.len() {
            self.invalid[f].next = self.retire.val()
                & self.retire_invalid.val()
                & (self.head_function.val() == self.ids[f].val());
        }
    }
}

/// The address decode of [`MmioDecode`]: from the requesting function and the byte offset, the
/// register addressed in the host space (`target`), its page and offset in the page, and what
/// the rules of the module documentation say about it. Combinational; no state.
#[derive(LogicBlock)]
pub struct MmioTarget {
    /// The requesting function (its BAR).
    pub function_number: Signal<In, Bits<FUNCTION_BITS>>,
    /// The byte offset in the BAR.
    pub offset: Signal<In, Bits<MMIO_OFFSET_BITS>>,
    /// Per function: enabled.
    pub enables: Vec<Signal<In, bool>>,
    /// The offset is 8-byte aligned.
    pub aligned: Signal<Out, bool>,
    /// The PF asks.
    pub is_pf: Signal<Out, bool>,
    /// Beyond the function's BAR (or a function that does not exist).
    pub outside_bar: Signal<Out, bool>,
    /// The register addressed in the host space.
    pub target: Signal<Out, Bits<HOST_REGISTER_BITS>>,
    /// Its page (`F` for the global block).
    pub target_page: Signal<Out, Bits<PAGE_BITS>>,
    /// Its offset in the page.
    pub page_offset: Signal<Out, Bits<HOST_REGISTER_BITS>>,
    /// It is in a function's page.
    pub in_page: Signal<Out, bool>,
    /// It is a register only the PF may write.
    pub privileged_hit: Signal<Out, bool>,
    /// It is a page's doorbell.
    pub doorbell_hit: Signal<Out, bool>,
    /// The page's function is enabled.
    pub target_enabled: Signal<Out, bool>,
    ids: Vec<Constant<Bits<FUNCTION_BITS>>>,
    page_ids: Vec<Constant<Bits<PAGE_BITS>>>,
    /// Page offsets only the PF may write.
    privileged_offsets: Vec<Constant<Bits<HOST_REGISTER_BITS>>>,
    /// `P`, `P - 1`, log2 `P`.
    page_registers: Constant<Bits<HOST_REGISTER_BITS>>,
    page_mask: Constant<Bits<HOST_REGISTER_BITS>>,
    page_shift: Constant<Bits<5>>,
    /// `F x P + G`: the PF's BAR in registers.
    pf_limit: Constant<Bits<HOST_REGISTER_BITS>>,
    /// `F`, as a page number.
    function_count: Constant<Bits<PAGE_BITS>>,
    /// `target >> log2 P`.
    target_shifted: Signal<Local, Bits<HOST_REGISTER_BITS>>,
    /// The request's register (offset / 8).
    register: Signal<Local, Bits<HOST_REGISTER_BITS>>,
    /// The function exists.
    known: Signal<Local, bool>,
}

impl MmioTarget {
    /// The decode of `functions` pages of `page_registers` registers, a PF BAR of `pf_limit`
    /// registers and the privileged page offsets (checked by [`MmioDecode::new`]).
    fn new(functions: usize, page_registers: u64, pf_limit: u64, privileged: &[u64]) -> Self {
        let c = |v: u64| Constant::new(Bits::<HOST_REGISTER_BITS>::from(v));
        Self {
            function_number: Default::default(),
            offset: Default::default(),
            enables: (0..functions).map(|_| Default::default()).collect(),
            aligned: Default::default(),
            is_pf: Default::default(),
            outside_bar: Default::default(),
            target: Default::default(),
            target_page: Default::default(),
            page_offset: Default::default(),
            in_page: Default::default(),
            privileged_hit: Default::default(),
            doorbell_hit: Default::default(),
            target_enabled: Default::default(),
            ids: (0..functions).map(|f| Constant::new(f.to_bits())).collect(),
            page_ids: (0..functions).map(|f| Constant::new(f.to_bits())).collect(),
            privileged_offsets: privileged.iter().map(|&o| c(o)).collect(),
            page_registers: c(page_registers),
            page_mask: c(page_registers - 1),
            page_shift: Constant::new((page_registers.trailing_zeros() as usize).to_bits()),
            pf_limit: c(pf_limit),
            function_count: Constant::new(functions.to_bits()),
            target_shifted: Default::default(),
            register: Default::default(),
            known: Default::default(),
        }
    }
}

impl Logic for MmioTarget {
    #[hdl_gen]
    fn update(&mut self) {
        self.register.next = self.offset.val().get_bits::<HOST_REGISTER_BITS>(3);
        self.aligned.next = !self.offset.val().get_bits::<3>(0).any();
        self.is_pf.next = !self.function_number.val().any();
        self.known.next = false;
        for f in 0..self.ids.len() {
            if self.function_number.val() == self.ids[f].val() {
                self.known.next = true;
            }
        }
        self.target.next = self.register.val();
        self.outside_bar.next = self.register.val() >= self.pf_limit.val();
        if !self.is_pf.val() {
            self.target.next =
                (bit_cast::<HOST_REGISTER_BITS, FUNCTION_BITS>(self.function_number.val())
                    << self.page_shift.val())
                    | self.register.val();
            self.outside_bar.next = self.register.val() >= self.page_registers.val();
        }
        if !self.known.val() {
            self.outside_bar.next = true;
        }
        self.target_shifted.next = self.target.val() >> self.page_shift.val();
        self.target_page.next = self.target_shifted.val().get_bits::<PAGE_BITS>(0);
        self.page_offset.next = self.target.val() & self.page_mask.val();
        self.in_page.next = self.target_page.val() < self.function_count.val();
        self.privileged_hit.next = false;
        for k in 0..self.privileged_offsets.len() {
            if self.page_offset.val() == self.privileged_offsets[k].val() {
                self.privileged_hit.next = self.in_page.val();
            }
        }
        self.doorbell_hit.next = self.in_page.val() & !self.page_offset.val().any();
        self.target_enabled.next = false;
        for f in 0..self.page_ids.len() {
            if self.target_page.val() == self.page_ids[f].val() {
                self.target_enabled.next = self.enables[f].val();
            }
        }
    }
}

#[test]
fn mmio_decode_is_synthesizable() {
    let mut uut = MmioDecode::new(8, 128, 1, &[1, 2, 0x10, 0x20, 0x30, 0x40]);
    uut.connect_all();
    yosys_validate("mmio_decode", &generate_verilog(&uut)).unwrap();
}
