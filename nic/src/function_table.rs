//! The SR-IOV function table: every function's page of registers (its enable and weight, its
//! QPs' keys and rings), reached by the host through the [`MmioDecode`] isolation rules, and
//! by the DMA engines through a lookup port.
//!
//! ```text
//! mmio ─► MmioDecode ─► RegSplit ─┬─► RegFile(nic_host_functions): enables, weights, interrupts,
//!            │  └─ completion ◄──┘│       doorbell fills, refusal and overflow counters
//!            │                     └─► QpTable: keys and rings in RAMs, the NIC's pointers
//!            └─► doorbells (to the doorbell FIFOs)
//! lookup (function, QP) ─► QpTable ─► one cycle ─► enabled, key, three rings
//! advance, advance_second (function, QP, ring) ─► QpTable: the NIC's pointer of that ring + 1
//! ```
//!
//! **Registers** (`verilog-out/nic_function.md` for one page, `nic_host.md` for the PF's
//! view): the function-level registers in one [`RegFile`] built from
//! [`nic_host_functions_map`] (answers a read 2 cycles after taking it), the QP blocks in the
//! [`QpTable`] (RAMs; a write answered 2 cycles after, a read 3 or more, one at a time; see
//! its documentation), joined by a [`RegSplit`] on bit 13 of the address the decode gives, so
//! completions stay in request order. Read-only registers show the hardware: a function's
//! `doorbell` its FIFO's fill (`doorbell_fills`), and per QP the NIC's pointer of each ring.
//! Counters count the decode's refusals and `doorbell_overflows`. A write taken on the edge
//! ending cycle `c` acts from cycle `c + 2` (enables, weights, keys, rings, lookups).
//!
//! **The NIC's pointers** (in the QP table) are free-running 16-bit counts: an `advance` adds
//! one to the named ring's pointer (an event was written, a NAP buffer taken). While a QP or
//! its function is disabled its pointers are held at zero, so enabling a QP starts its rings
//! from entry 0. Software's pointers (the event rings' consumers, the NAP ring's producer) are
//! read-write registers. Whether a ring has room is the engines' arithmetic on the lookup's
//! values; the table counts what it is told.
//!
//! **Lookup** (valid/ready): a request taken in cycle `c` is answered in cycle `c + 1`
//! (`answered`) with the values of cycle `c`. A function or QP number beyond the configuration
//! is answered with `owned` low and every other field zero. A lookup waits (`ready` low) at
//! most one cycle for a register read, and while the QP table clears its RAMs after a reset.
//!
//! **Reset** (synchronous): the register file to its reset values (every function and QP
//! disabled, weights 1), the QP table cleared (every key and ring register zero after it has
//! swept its RAMs, `2^QAW` cycles during which no access or lookup is taken), the pointers to
//! zero, the decode's queue empty. Power-up is not reset: the NIC is reset before use.
//!
//! Parameters: `QAW` the QP table's RAM address bits, log2 of
//! [`qp_entries`](crate::qp_table::qp_entries); elaboration values functions (1..=8) and QPs per function (a power of two,
//! 1..=16), as in `[nic]`.
use crate::doorbell::doorbell_queues::FILL_BITS;
use crate::doorbell::DoorbellSource;
use crate::host::mmio::{MmioCompletionSource, MmioRequestSink};
use crate::host::MMIO_DATA_BITS;
use crate::mmio_decode::MmioDecode;
use crate::qp_table::{QpTable, TABLE_ADDRESS_BITS};
use crate::regs::{
    nic_global_map, nic_host_functions_map, page_registers, privileged_offsets, HOST_REGISTER_BITS,
    KEY_BITS, RING_POINTER_BITS, RING_SIZE_BITS, WEIGHT_BITS,
};
use hdl::bits::ZeroExtend;
use hdl::formats::nic::{ADDRESS_BITS, FUNCTION_BITS, QP_BITS};
use hdl::regmap::{Access, RegFile, RegMap, RegRequestSource, RegResponseSource, RegSplit};
use rust_hdl::prelude::*;

/// Bits of a ring code on the advance port.
pub const RING_BITS: usize = 2;

/// The engines' end of the QP lookup: a request out (valid/ready), its answer in one cycle
/// after it is taken.
#[derive(LogicInterface, Default)]
#[join = "QpLookupSink"]
pub struct QpLookupSource {
    /// A lookup is asked for.
    pub valid: Signal<Out, bool>,
    /// Its function.
    pub function: Signal<Out, Bits<FUNCTION_BITS>>,
    /// Its QP.
    pub qp: Signal<Out, Bits<QP_BITS>>,
    /// The table takes the request on this edge.
    pub ready: Signal<In, bool>,
    /// The answer to the last cycle's request is here.
    pub answered: Signal<In, bool>,
    /// The function and QP exist in this configuration.
    pub owned: Signal<In, bool>,
    /// The function is enabled.
    pub function_enabled: Signal<In, bool>,
    /// The QP is enabled.
    pub qp_enabled: Signal<In, bool>,
    /// The QP's QPMagic key.
    pub key: Signal<In, Bits<KEY_BITS>>,
    /// Interrupts are enabled for the QP.
    pub interrupt: Signal<In, bool>,
    /// Base address of the send-completion ring.
    pub send_base: Signal<In, Bits<ADDRESS_BITS>>,
    /// log2 of the entries of the send-completion ring.
    pub send_size: Signal<In, Bits<RING_SIZE_BITS>>,
    /// Producer pointer of the send-completion ring.
    pub send_producer: Signal<In, Bits<RING_POINTER_BITS>>,
    /// Consumer pointer of the send-completion ring.
    pub send_consumer: Signal<In, Bits<RING_POINTER_BITS>>,
    /// Base address of the receive-completion ring.
    pub receive_base: Signal<In, Bits<ADDRESS_BITS>>,
    /// log2 of the entries of the receive-completion ring.
    pub receive_size: Signal<In, Bits<RING_SIZE_BITS>>,
    /// Producer pointer of the receive-completion ring.
    pub receive_producer: Signal<In, Bits<RING_POINTER_BITS>>,
    /// Consumer pointer of the receive-completion ring.
    pub receive_consumer: Signal<In, Bits<RING_POINTER_BITS>>,
    /// Base address of the NAP-buffer ring.
    pub nap_base: Signal<In, Bits<ADDRESS_BITS>>,
    /// log2 of the entries of the NAP-buffer ring.
    pub nap_size: Signal<In, Bits<RING_SIZE_BITS>>,
    /// Producer pointer of the NAP-buffer ring.
    pub nap_producer: Signal<In, Bits<RING_POINTER_BITS>>,
    /// Consumer pointer of the NAP-buffer ring.
    pub nap_consumer: Signal<In, Bits<RING_POINTER_BITS>>,
}

/// The function table's end of the QP lookup.
#[derive(LogicInterface, Default)]
#[join = "QpLookupSource"]
pub struct QpLookupSink {
    /// A lookup is asked for.
    pub valid: Signal<In, bool>,
    /// Its function.
    pub function: Signal<In, Bits<FUNCTION_BITS>>,
    /// Its QP.
    pub qp: Signal<In, Bits<QP_BITS>>,
    /// The request is taken on this edge.
    pub ready: Signal<Out, bool>,
    /// The answer to the last cycle's request is here.
    pub answered: Signal<Out, bool>,
    /// The function and QP exist.
    pub owned: Signal<Out, bool>,
    /// The function is enabled.
    pub function_enabled: Signal<Out, bool>,
    /// The QP is enabled.
    pub qp_enabled: Signal<Out, bool>,
    /// The QP's key.
    pub key: Signal<Out, Bits<KEY_BITS>>,
    /// Interrupts are enabled for the QP.
    pub interrupt: Signal<Out, bool>,
    /// Base address of the send-completion ring.
    pub send_base: Signal<Out, Bits<ADDRESS_BITS>>,
    /// log2 of the entries of the send-completion ring.
    pub send_size: Signal<Out, Bits<RING_SIZE_BITS>>,
    /// Producer pointer of the send-completion ring.
    pub send_producer: Signal<Out, Bits<RING_POINTER_BITS>>,
    /// Consumer pointer of the send-completion ring.
    pub send_consumer: Signal<Out, Bits<RING_POINTER_BITS>>,
    /// Base address of the receive-completion ring.
    pub receive_base: Signal<Out, Bits<ADDRESS_BITS>>,
    /// log2 of the entries of the receive-completion ring.
    pub receive_size: Signal<Out, Bits<RING_SIZE_BITS>>,
    /// Producer pointer of the receive-completion ring.
    pub receive_producer: Signal<Out, Bits<RING_POINTER_BITS>>,
    /// Consumer pointer of the receive-completion ring.
    pub receive_consumer: Signal<Out, Bits<RING_POINTER_BITS>>,
    /// Base address of the NAP-buffer ring.
    pub nap_base: Signal<Out, Bits<ADDRESS_BITS>>,
    /// log2 of the entries of the NAP-buffer ring.
    pub nap_size: Signal<Out, Bits<RING_SIZE_BITS>>,
    /// Producer pointer of the NAP-buffer ring.
    pub nap_producer: Signal<Out, Bits<RING_POINTER_BITS>>,
    /// Consumer pointer of the NAP-buffer ring.
    pub nap_consumer: Signal<Out, Bits<RING_POINTER_BITS>>,
}

/// An engine tells the table that it moved one of the NIC's ring pointers (no `ready`: one
/// advance per cycle is always taken).
#[derive(LogicInterface, Default)]
#[join = "PointerAdvanceSink"]
pub struct PointerAdvanceSource {
    /// Advance on this edge.
    pub valid: Signal<Out, bool>,
    /// The function.
    pub function: Signal<Out, Bits<FUNCTION_BITS>>,
    /// The QP.
    pub qp: Signal<Out, Bits<QP_BITS>>,
    /// The ring ([`Ring::code`](crate::regs::Ring::code)): 0 send completions, 1 receive completions, 2 NAP buffers.
    pub ring: Signal<Out, Bits<RING_BITS>>,
}

/// The table's end of the pointer advances.
#[derive(LogicInterface, Default)]
#[join = "PointerAdvanceSource"]
pub struct PointerAdvanceSink {
    /// Advance on this edge.
    pub valid: Signal<In, bool>,
    /// The function.
    pub function: Signal<In, Bits<FUNCTION_BITS>>,
    /// The QP.
    pub qp: Signal<In, Bits<QP_BITS>>,
    /// The ring.
    pub ring: Signal<In, Bits<RING_BITS>>,
}

/// Read-write registers of a function page in the function register file: enable, weight,
/// interrupts.
const FUNCTION_SETTINGS: usize = 3;
/// Counters of a page.
const FUNCTION_COUNTERS: usize = 5;

/// The SR-IOV function table; see the module documentation.
#[derive(LogicBlock)]
pub struct FunctionTable<const QAW: usize> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Register accesses from the host.
    pub mmio: MmioRequestSink,
    /// Read completions to the host.
    pub completion: MmioCompletionSource,
    /// Doorbells to the doorbell FIFOs.
    pub doorbells: DoorbellSource,
    /// Per function: a doorbell was refused by its full FIFO on this edge.
    pub doorbell_overflows: Vec<Signal<In, bool>>,
    /// Per function: doorbells queued.
    pub doorbell_fills: Vec<Signal<In, Bits<FILL_BITS>>>,
    /// Weighted doorbell arbitration (`arb_mode` 1 or 3).
    pub weighted: Signal<Out, bool>,
    /// Byte-fair doorbell arbitration (`arb_mode` 0, the default).
    pub byte_fair: Signal<Out, bool>,
    /// Per function: its arbitration weight.
    pub weights: Vec<Signal<Out, Bits<WEIGHT_BITS>>>,
    /// The engines' lookups.
    pub lookup: QpLookupSink,
    /// The engines' pointer advances (the event writer's).
    pub advance: PointerAdvanceSink,
    /// A second engine's pointer advances (the NAP buffer manager's; never naming the
    /// pointer `advance` names).
    pub advance_second: PointerAdvanceSink,
    decode: MmioDecode,
    split: RegSplit<TABLE_ADDRESS_BITS, MMIO_DATA_BITS>,
    /// The function-level registers.
    registers: RegFile<TABLE_ADDRESS_BITS, MMIO_DATA_BITS>,
    /// The QP blocks' registers, the lookup and the NIC's pointers.
    qps: QpTable<QAW>,
    /// Per function: its doorbell fill, zero-extended for the register file.
    fill_extend: Vec<ZeroExtend<FILL_BITS, MMIO_DATA_BITS>>,
    /// The register file's write strobes: no register here acts on a write as an event (the
    /// values are read continuously), so they are acknowledged unused.
    strobes_unused: Signal<Local, bool>,
    _functions: usize,
}

/// Where each function-level register is among the register file's ports of its kind.
#[derive(Clone, Copy, Debug)]
pub struct HostSlots {
    /// Functions.
    pub functions: usize,
}

impl HostSlots {
    /// Settings slot of function `f`'s register `k` (0 enable, 1 weight, 2 interrupts).
    pub fn function_setting(&self, f: usize, k: usize) -> usize {
        f * FUNCTION_SETTINGS + k
    }
    /// Status slot of function `f`'s doorbell fill.
    pub fn doorbell_status(&self, f: usize) -> usize {
        f
    }
    /// Counter slot `k` of function `f` (0 doorbell overflows, 1 doorbells disabled, 2 outside,
    /// 3 privileged, 4 invalid).
    pub fn counter(&self, f: usize, k: usize) -> usize {
        f * FUNCTION_COUNTERS + k
    }
    /// Settings slot of `arb_mode`.
    pub fn arb_mode(&self) -> usize {
        self.functions * FUNCTION_SETTINGS
    }

    /// Panics unless every slot above is the one the map gives by name.
    pub fn check(&self, map: &RegMap) {
        use Access::*;
        for f in 0..self.functions {
            let n = |r: &str| format!("f{f}_{r}");
            for (k, r) in ["enable", "weight", "interrupts"].iter().enumerate() {
                assert_eq!(
                    map.index(ReadWrite, &n(r)),
                    self.function_setting(f, k),
                    "{}",
                    n(r)
                );
            }
            assert_eq!(map.index(ReadOnly, &n("doorbell")), self.doorbell_status(f));
            let counters = [
                "doorbell_overflows",
                "doorbells_disabled",
                "mmio_outside",
                "mmio_privileged",
                "mmio_invalid",
            ];
            for (k, c) in counters.iter().enumerate() {
                assert_eq!(map.index(Counter, &n(c)), self.counter(f, k), "{}", n(c));
            }
        }
        assert_eq!(map.index(ReadWrite, "arb_mode"), self.arb_mode());
        assert_eq!(map.count(ReadWrite), self.arb_mode() + 1);
        assert_eq!(map.count(ReadOnly), self.functions);
        assert_eq!(map.count(Counter), self.functions * FUNCTION_COUNTERS);
        assert_eq!(map.count(WriteOneToClear), 0);
    }
}

impl<const QAW: usize> FunctionTable<QAW> {
    /// The table of `functions` functions (1..=8) of `qps` QPs (a power of two, 1..=16); `QAW`
    /// is log2 of [`qp_entries`](crate::qp_table::qp_entries) (checked by the QP table).
    pub fn new(functions: usize, qps: usize) -> Self {
        let map = nic_host_functions_map(functions, qps).expect("the host space assembles");
        HostSlots { functions }.check(&map);
        let globals = nic_global_map().registers.len() as u64;
        let page = page_registers(qps);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            mmio: Default::default(),
            completion: Default::default(),
            doorbells: Default::default(),
            doorbell_overflows: (0..functions).map(|_| Default::default()).collect(),
            doorbell_fills: (0..functions).map(|_| Default::default()).collect(),
            weighted: Default::default(),
            byte_fair: Default::default(),
            weights: (0..functions).map(|_| Default::default()).collect(),
            lookup: Default::default(),
            advance: Default::default(),
            advance_second: Default::default(),
            decode: MmioDecode::new(functions, page, globals, &privileged_offsets(qps)),
            split: RegSplit::new(1 << HOST_REGISTER_BITS),
            registers: RegFile::new(&map),
            qps: QpTable::new(functions, qps, page),
            fill_extend: (0..functions).map(|_| Default::default()).collect(),
            strobes_unused: Default::default(),
            _functions: functions,
        }
    }

    /// The register map of the table's register file (the function-level registers).
    pub fn map(functions: usize, qps: usize) -> RegMap {
        nic_host_functions_map(functions, qps).expect("the host space assembles")
    }
}

impl<const QAW: usize> Logic for FunctionTable<QAW> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, decode, split, registers, qps);
        self.decode.reset.next = self.reset.val();
        self.split.reset.next = self.reset.val();
        self.registers.reset.next = self.reset.val();
        self.qps.reset.next = self.reset.val();
        MmioRequestSink::link(&mut self.mmio, &mut self.decode.mmio);
        MmioCompletionSource::link(&mut self.completion, &mut self.decode.completion);
        DoorbellSource::link(&mut self.doorbells, &mut self.decode.doorbells);
        QpLookupSink::link(&mut self.lookup, &mut self.qps.lookup);
        PointerAdvanceSink::link(&mut self.advance, &mut self.qps.advance);
        PointerAdvanceSink::link(&mut self.advance_second, &mut self.qps.advance_second);
        RegRequestSource::<TABLE_ADDRESS_BITS, MMIO_DATA_BITS>::join(
            &mut self.decode.request,
            &mut self.split.request,
        );
        RegResponseSource::<MMIO_DATA_BITS>::join(
            &mut self.split.response,
            &mut self.decode.response,
        );
        RegRequestSource::<TABLE_ADDRESS_BITS, MMIO_DATA_BITS>::join(
            &mut self.split.local_request,
            &mut self.registers.request,
        );
        RegResponseSource::<MMIO_DATA_BITS>::join(
            &mut self.registers.response,
            &mut self.split.local_response,
        );
        RegRequestSource::<TABLE_ADDRESS_BITS, MMIO_DATA_BITS>::join(
            &mut self.split.chip_request,
            &mut self.qps.request,
        );
        RegResponseSource::<MMIO_DATA_BITS>::join(
            &mut self.qps.response,
            &mut self.split.chip_response,
        );
        self.strobes_unused.next = false;
        for k in 0..self.registers.written.len() {
            self.strobes_unused.next = self.strobes_unused.val() | self.registers.written[k].val();
        }
        for fs in self._functions..(self._functions + 1) {
            self.weighted.next = self.registers.settings[fs * 3].val().get_bit(0);
            self.byte_fair.next = !self.registers.settings[fs * 3].val().get_bit(0)
                & !self.registers.settings[fs * 3].val().get_bit(1);
        }
        for f in 0..self.weights.len() {
            self.decode.enables[f].next = self.registers.settings[f * 3].val().get_bit(0);
            self.qps.function_enables[f].next = self.registers.settings[f * 3].val().get_bit(0);
            self.weights[f].next = self.registers.settings[f * 3 + 1]
                .val()
                .get_bits::<WEIGHT_BITS>(0);
            self.qps.interrupts[f].next =
                self.registers.settings[f * 3 + 2].val().get_bits::<16>(0);
            self.registers.events[f * 5].next = self.doorbell_overflows[f].val();
            self.registers.events[f * 5 + 1].next = self.decode.disabled[f].val();
            self.registers.events[f * 5 + 2].next = self.decode.outside[f].val();
            self.registers.events[f * 5 + 3].next = self.decode.privileged[f].val();
            self.registers.events[f * 5 + 4].next = self.decode.invalid[f].val();
            self.fill_extend[f].value.next = self.doorbell_fills[f].val();
            self.registers.status[f].next = self.fill_extend[f].extended.val();
        }
    }
}

#[test]
fn function_table_is_synthesizable() {
    let mut uut = FunctionTable::<1>::new(2, 1);
    uut.connect_all();
    yosys_validate("function_table_2x1", &generate_verilog(&uut)).unwrap();
}

#[test]
fn host_slots_match_the_map_for_every_size() {
    for functions in 1..=8 {
        for qps in [1, 2, 4, 8, 16] {
            HostSlots { functions }.check(&FunctionTable::<1>::map(functions, qps));
        }
    }
    // The literals in `update` are the slots' layout.
    assert_eq!((FUNCTION_SETTINGS, FUNCTION_COUNTERS), (3, 5));
}
