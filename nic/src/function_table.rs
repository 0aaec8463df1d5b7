//! The SR-IOV function table: every function's page of registers (its enable and weight, its
//! QPs' keys and rings), reached by the host through the [`MmioDecode`] isolation rules, and
//! by the DMA engines through a lookup port.
//!
//! ```text
//! mmio ─► MmioDecode ─► RegFile(nic_host map) ─► settings: enables, weights, keys, rings
//!            │ └──────► completion                status ◄─ doorbell fills, NIC pointers
//!            └─► doorbells (to the doorbell FIFOs)  events ◄─ refusals, doorbell overflows
//! lookup (function, QP) ─► one cycle ─► enabled, key, three rings (base, size, pointers)
//! advance (function, QP, ring) ─► the NIC's pointer of that ring + 1
//! ```
//!
//! **Registers** (`verilog-out/nic_function.md` for one page, `nic_host.md` for the PF's
//! view): one [`RegFile`] built from [`nic_host_map`]; the RegFile answers a read two cycles
//! after it takes it. Read-only registers show the hardware: a function's `doorbell` its FIFO's
//! fill (`doorbell_fills`), and per QP the NIC's pointer of each ring (the producers of the two
//! event rings, the consumer of the NAP-buffer ring). Counters count the decode's refusals and
//! `doorbell_overflows`.
//!
//! **The NIC's pointers** are flip-flops here, free-running 16-bit counts: an `advance` adds
//! one to the named ring's pointer (an event was written, a NAP buffer taken). While a QP or
//! its function is disabled its pointers are held at zero, so enabling a QP starts its rings
//! from entry 0. Software's pointers (the event rings' consumers, the NAP ring's producer) are
//! read-write registers. Whether a ring has room is the engines' arithmetic on the lookup's
//! values; the table counts what it is told.
//!
//! **Lookup**: a request (`valid`, function, QP) in cycle `c` is answered in cycle `c + 1`
//! (`answered`) with the values of cycle `c` (an advance or a register write taking effect on
//! the edge ending `c` is not in it). A function or QP number beyond the configuration is
//! answered with `owned` low and every other field zero. One request per cycle.
//!
//! **Reset** (synchronous): the register file to its reset values (every function and QP
//! disabled, weights 1), the pointers to zero, no lookup answered, the decode's queue empty.
//!
//! Parameters (elaboration, [`FunctionTable::new`]): functions (1..=8) and QPs per function
//! (a power of two, 1..=16), as in `[nic]`.
use crate::doorbell::doorbell_queues::FILL_BITS;
use crate::doorbell::DoorbellSource;
use crate::host::mmio::{MmioCompletionSource, MmioRequestSink};
use crate::host::MMIO_DATA_BITS;
use crate::mmio_decode::MmioDecode;
use crate::regs::{
    nic_global_map, nic_host_map, page_registers, privileged_offsets, qp_register_names, Ring,
    HOST_REGISTER_BITS, KEY_BITS, RING_POINTER_BITS, RING_SIZE_BITS, WEIGHT_BITS,
};
use hdl::bits::ZeroExtend;
use hdl::formats::nic::{ADDRESS_BITS, FUNCTION_BITS, QP_BITS};
use hdl::regmap::{Access, RegFile, RegMap, RegRequestSource, RegResponseSource};
use rust_hdl::prelude::*;

/// Bits of a ring code on the advance port.
pub const RING_BITS: usize = 2;

/// The engines' end of the QP lookup: a request out, its answer in one cycle later.
#[derive(LogicInterface, Default)]
#[join = "QpLookupSink"]
pub struct QpLookupSource {
    /// A lookup is asked for.
    pub valid: Signal<Out, bool>,
    /// Its function.
    pub function: Signal<Out, Bits<FUNCTION_BITS>>,
    /// Its QP.
    pub qp: Signal<Out, Bits<QP_BITS>>,
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
    /// The ring ([`Ring::code`]): 0 send completions, 1 receive completions, 2 NAP buffers.
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

/// Read-write registers of a function page before its QP blocks: enable, weight, interrupts.
const FUNCTION_SETTINGS: usize = 3;
/// Read-write registers of a QP block: key, then per ring base, size and software's pointer.
const QP_SETTINGS: usize = 10;
/// Read-only registers of a page before its QP blocks: doorbell.
const FUNCTION_STATUS: usize = 1;
/// Read-only registers of a QP block: the NIC's pointer of each ring.
const QP_STATUS: usize = 3;
/// Counters of a page.
const FUNCTION_COUNTERS: usize = 5;

/// The SR-IOV function table; see the module documentation.
#[derive(LogicBlock)]
pub struct FunctionTable {
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
    /// Weighted doorbell arbitration (`arb_mode`).
    pub weighted: Signal<Out, bool>,
    /// Per function: its arbitration weight.
    pub weights: Vec<Signal<Out, Bits<WEIGHT_BITS>>>,
    /// The engines' lookups.
    pub lookup: QpLookupSink,
    /// The engines' pointer advances.
    pub advance: PointerAdvanceSink,
    decode: MmioDecode,
    registers: RegFile<HOST_REGISTER_BITS, MMIO_DATA_BITS>,
    /// The NIC's pointers: `(f x Q + q) x 3 + ring`. Kept at the register file's width so
    /// they feed it with no cast (rust-hdl cannot cast a loop-indexed signal); the increment is
    /// masked to 16 bits, so synthesis keeps only those.
    pointers: Vec<DFF<Bits<MMIO_DATA_BITS>>>,
    /// Per function: its doorbell fill, zero-extended for the register file.
    fill_extend: Vec<ZeroExtend<FILL_BITS, MMIO_DATA_BITS>>,
    answered: DFF<bool>,
    owned: DFF<bool>,
    function_enabled: DFF<bool>,
    qp_enabled: DFF<bool>,
    key: DFF<Bits<KEY_BITS>>,
    interrupt: DFF<bool>,
    bases: [DFF<Bits<ADDRESS_BITS>>; 3],
    sizes: [DFF<Bits<RING_SIZE_BITS>>; 3],
    producers: [DFF<Bits<RING_POINTER_BITS>>; 3],
    consumers: [DFF<Bits<RING_POINTER_BITS>>; 3],
    ids: Vec<Constant<Bits<FUNCTION_BITS>>>,
    qp_ids: Vec<Constant<Bits<QP_BITS>>>,
    ring_ids: Vec<Constant<Bits<RING_BITS>>>,
    pointer_one: Constant<Bits<MMIO_DATA_BITS>>,
    pointer_mask: Constant<Bits<MMIO_DATA_BITS>>,
    /// Per QP (`f x Q + q`): it and its function are enabled.
    live: Vec<Signal<Local, bool>>,
    /// The register file's write strobes: no register here acts on a write as an event (the
    /// values are read continuously), so they are acknowledged unused.
    strobes_unused: Signal<Local, bool>,
    _functions: usize,
    _qps: usize,
    _rw_stride: usize,
    _ro_stride: usize,
}

/// Where each register of the host space is among the register file's ports of its kind.
#[derive(Clone, Copy, Debug)]
pub struct HostSlots {
    /// Functions.
    pub functions: usize,
    /// QPs per function.
    pub qps: usize,
}

impl HostSlots {
    /// Read-write registers per page.
    pub fn rw_stride(&self) -> usize {
        FUNCTION_SETTINGS + QP_SETTINGS * self.qps
    }
    /// Read-only registers per page.
    pub fn ro_stride(&self) -> usize {
        FUNCTION_STATUS + QP_STATUS * self.qps
    }
    /// Settings slot of function `f`'s register `k` (0 enable, 1 weight, 2 interrupts).
    pub fn function_setting(&self, f: usize, k: usize) -> usize {
        f * self.rw_stride() + k
    }
    /// Settings slot of QP `q`'s register `k` of function `f` (0 key, then per ring base,
    /// size, software's pointer).
    pub fn qp_setting(&self, f: usize, q: usize, k: usize) -> usize {
        f * self.rw_stride() + FUNCTION_SETTINGS + q * QP_SETTINGS + k
    }
    /// Status slot of function `f`'s doorbell fill.
    pub fn doorbell_status(&self, f: usize) -> usize {
        f * self.ro_stride()
    }
    /// Status slot of the NIC's pointer of `ring` of QP `q` of function `f`.
    pub fn pointer_status(&self, f: usize, q: usize, ring: usize) -> usize {
        f * self.ro_stride() + FUNCTION_STATUS + q * QP_STATUS + ring
    }
    /// Counter slot `k` of function `f` (0 doorbell overflows, 1 doorbells disabled, 2 outside,
    /// 3 privileged, 4 invalid).
    pub fn counter(&self, f: usize, k: usize) -> usize {
        f * FUNCTION_COUNTERS + k
    }
    /// Settings slot of `arb_mode`.
    pub fn arb_mode(&self) -> usize {
        self.functions * self.rw_stride()
    }

    /// Panics unless every slot above is the one the map gives by name.
    pub fn check(&self, map: &RegMap) {
        use Access::*;
        let names = qp_register_names();
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
            for q in 0..self.qps {
                let (mut rw, mut ro) = (0, 0);
                for r in &names {
                    let name = n(&format!("qp{q}_{r}"));
                    match map.slot(&name).expect("QP register").access {
                        ReadWrite => {
                            assert_eq!(map.index(ReadWrite, &name), self.qp_setting(f, q, rw));
                            rw += 1;
                        }
                        ReadOnly => {
                            assert_eq!(map.index(ReadOnly, &name), self.pointer_status(f, q, ro));
                            ro += 1;
                        }
                        a => panic!("{name} is {a}"),
                    }
                }
                assert_eq!((rw, ro), (QP_SETTINGS, QP_STATUS));
            }
        }
        assert_eq!(map.index(ReadWrite, "arb_mode"), self.arb_mode());
        assert_eq!(map.count(ReadWrite), self.arb_mode() + 1);
        assert_eq!(map.count(ReadOnly), self.functions * self.ro_stride());
        assert_eq!(map.count(Counter), self.functions * FUNCTION_COUNTERS);
        assert_eq!(map.count(WriteOneToClear), 0);
    }
}

/// Settings slot of ring `r`'s register `k` (0 base, 1 size, 2 software's pointer) in a QP
/// block, relative to the QP's key.
pub const fn ring_setting(r: usize, k: usize) -> usize {
    1 + 3 * r + k
}

impl FunctionTable {
    /// The table of `functions` functions (1..=8) of `qps` QPs (a power of two, 1..=16).
    pub fn new(functions: usize, qps: usize) -> Self {
        assert!(
            (1..=8).contains(&functions),
            "FunctionTable: functions = {functions} must be 1..=8"
        );
        assert!(
            qps.is_power_of_two() && qps <= 16,
            "FunctionTable: qps = {qps} must be a power of two in 1..=16"
        );
        let map = nic_host_map(functions, qps).expect("the host space assembles");
        let slots = HostSlots { functions, qps };
        slots.check(&map);
        // The pointers' slots among the read-only registers follow Ring::ALL.
        assert!(Ring::ALL
            .iter()
            .enumerate()
            .all(|(i, r)| r.code() == i as u64));
        let globals = nic_global_map().registers.len() as u64;
        let n = functions * qps;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            mmio: Default::default(),
            completion: Default::default(),
            doorbells: Default::default(),
            doorbell_overflows: (0..functions).map(|_| Default::default()).collect(),
            doorbell_fills: (0..functions).map(|_| Default::default()).collect(),
            weighted: Default::default(),
            weights: (0..functions).map(|_| Default::default()).collect(),
            lookup: Default::default(),
            advance: Default::default(),
            decode: MmioDecode::new(
                functions,
                page_registers(qps),
                globals,
                &privileged_offsets(qps),
            ),
            registers: RegFile::new(&map),
            pointers: (0..3 * n).map(|_| Default::default()).collect(),
            fill_extend: (0..functions).map(|_| Default::default()).collect(),
            answered: Default::default(),
            owned: Default::default(),
            function_enabled: Default::default(),
            qp_enabled: Default::default(),
            key: Default::default(),
            interrupt: Default::default(),
            bases: Default::default(),
            sizes: Default::default(),
            producers: Default::default(),
            consumers: Default::default(),
            ids: (0..functions).map(|f| Constant::new(f.to_bits())).collect(),
            qp_ids: (0..qps).map(|q| Constant::new(q.to_bits())).collect(),
            ring_ids: (0..3usize).map(|r| Constant::new(r.to_bits())).collect(),
            pointer_one: Constant::new(1usize.to_bits()),
            pointer_mask: Constant::new(((1usize << RING_POINTER_BITS) - 1).to_bits()),
            live: (0..n).map(|_| Default::default()).collect(),
            strobes_unused: Default::default(),
            _functions: functions,
            _qps: qps,
            _rw_stride: slots.rw_stride(),
            _ro_stride: slots.ro_stride(),
        }
    }

    /// The register map of the table's register file.
    pub fn map(functions: usize, qps: usize) -> RegMap {
        nic_host_map(functions, qps).expect("the host space assembles")
    }
}

impl Logic for FunctionTable {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            answered,
            owned,
            function_enabled,
            qp_enabled,
            key,
            interrupt
        );
        clock!(self, clock, decode, registers);
        self.decode.reset.next = self.reset.val();
        self.registers.reset.next = self.reset.val();
        MmioRequestSink::link(&mut self.mmio, &mut self.decode.mmio);
        MmioCompletionSource::link(&mut self.completion, &mut self.decode.completion);
        DoorbellSource::link(&mut self.doorbells, &mut self.decode.doorbells);
        RegRequestSource::<HOST_REGISTER_BITS, MMIO_DATA_BITS>::join(
            &mut self.decode.request,
            &mut self.registers.request,
        );
        RegResponseSource::<MMIO_DATA_BITS>::join(
            &mut self.registers.response,
            &mut self.decode.response,
        );

        self.strobes_unused.next = false;
        for k in 0..self.registers.written.len() {
            self.strobes_unused.next = self.strobes_unused.val() | self.registers.written[k].val();
        }

        // Lookup answers: zero unless the request names an existing QP.
        self.answered.d.next = self.lookup.valid.val() & !self.reset.val();
        self.owned.d.next = false;
        self.function_enabled.d.next = false;
        self.qp_enabled.d.next = false;
        self.key.d.next = 0.into();
        self.interrupt.d.next = false;
        for r in 0..3 {
            self.bases[r].clock.next = self.clock.val();
            self.sizes[r].clock.next = self.clock.val();
            self.producers[r].clock.next = self.clock.val();
            self.consumers[r].clock.next = self.clock.val();
            self.bases[r].d.next = 0.into();
            self.sizes[r].d.next = 0.into();
            self.producers[r].d.next = 0.into();
            self.consumers[r].d.next = 0.into();
        }
        self.lookup.send_base.next = self.bases[0].q.val();
        self.lookup.send_size.next = self.sizes[0].q.val();
        self.lookup.send_producer.next = self.producers[0].q.val();
        self.lookup.send_consumer.next = self.consumers[0].q.val();
        self.lookup.receive_base.next = self.bases[1].q.val();
        self.lookup.receive_size.next = self.sizes[1].q.val();
        self.lookup.receive_producer.next = self.producers[1].q.val();
        self.lookup.receive_consumer.next = self.consumers[1].q.val();
        self.lookup.nap_base.next = self.bases[2].q.val();
        self.lookup.nap_size.next = self.sizes[2].q.val();
        self.lookup.nap_producer.next = self.producers[2].q.val();
        self.lookup.nap_consumer.next = self.consumers[2].q.val();
        self.lookup.answered.next = self.answered.q.val();
        self.lookup.owned.next = self.owned.q.val();
        self.lookup.function_enabled.next = self.function_enabled.q.val();
        self.lookup.qp_enabled.next = self.qp_enabled.q.val();
        self.lookup.key.next = self.key.q.val();
        self.lookup.interrupt.next = self.interrupt.q.val();

        for rws in self._rw_stride..(self._rw_stride + 1) {
            for ros in self._ro_stride..(self._ro_stride + 1) {
                for qn in self._qps..(self._qps + 1) {
                    for fn_ in self._functions..(self._functions + 1) {
                        self.weighted.next = self.registers.settings[fn_ * rws].val().get_bit(0);
                    }
                    for f in 0..self.ids.len() {
                        // Function settings, refusals, doorbell fill.
                        self.decode.enables[f].next =
                            self.registers.settings[f * rws].val().get_bit(0);
                        self.weights[f].next = self.registers.settings[f * rws + 1]
                            .val()
                            .get_bits::<WEIGHT_BITS>(0);
                        self.registers.events[f * 5].next = self.doorbell_overflows[f].val();
                        self.registers.events[f * 5 + 1].next = self.decode.disabled[f].val();
                        self.registers.events[f * 5 + 2].next = self.decode.outside[f].val();
                        self.registers.events[f * 5 + 3].next = self.decode.privileged[f].val();
                        self.registers.events[f * 5 + 4].next = self.decode.invalid[f].val();
                        self.fill_extend[f].value.next = self.doorbell_fills[f].val();
                        self.registers.status[f * ros].next = self.fill_extend[f].extended.val();
                        for q in 0..self.qp_ids.len() {
                            self.live[f * qn + q].next =
                                self.registers.settings[f * rws].val().get_bit(0)
                                    & self.registers.settings[f * rws + 3 + q * 10]
                                        .val()
                                        .get_bit(32);
                            for r in 0..3 {
                                // The NIC's pointers: advanced when told, zero while disabled.
                                self.pointers[(f * qn + q) * 3 + r].clock.next = self.clock.val();
                                self.pointers[(f * qn + q) * 3 + r].d.next =
                                    self.pointers[(f * qn + q) * 3 + r].q.val();
                                if self.advance.valid.val()
                                    & (self.advance.function.val() == self.ids[f].val())
                                    & (self.advance.qp.val() == self.qp_ids[q].val())
                                    & (self.advance.ring.val() == self.ring_ids[r].val())
                                {
                                    self.pointers[(f * qn + q) * 3 + r].d.next =
                                        (self.pointers[(f * qn + q) * 3 + r].q.val()
                                            + self.pointer_one.val())
                                            & self.pointer_mask.val();
                                }
                                if !self.live[f * qn + q].val() | self.reset.val() {
                                    self.pointers[(f * qn + q) * 3 + r].d.next = 0.into();
                                }
                                self.registers.status[f * ros + 1 + q * 3 + r].next =
                                    self.pointers[(f * qn + q) * 3 + r].q.val();
                            }
                            if self.lookup.valid.val()
                                & (self.lookup.function.val() == self.ids[f].val())
                                & (self.lookup.qp.val() == self.qp_ids[q].val())
                            {
                                self.owned.d.next = true;
                                self.function_enabled.d.next =
                                    self.registers.settings[f * rws].val().get_bit(0);
                                self.qp_enabled.d.next = self.registers.settings
                                    [f * rws + 3 + q * 10]
                                    .val()
                                    .get_bit(32);
                                self.key.d.next = self.registers.settings[f * rws + 3 + q * 10]
                                    .val()
                                    .get_bits::<KEY_BITS>(0);
                                self.interrupt.d.next =
                                    self.registers.settings[f * rws + 2].val().get_bit(q);
                                for r in 0..3 {
                                    self.bases[r].d.next = self.registers.settings
                                        [f * rws + 3 + q * 10 + 1 + 3 * r]
                                        .val()
                                        .get_bits::<ADDRESS_BITS>(0);
                                    self.sizes[r].d.next = self.registers.settings
                                        [f * rws + 3 + q * 10 + 2 + 3 * r]
                                        .val()
                                        .get_bits::<RING_SIZE_BITS>(0);
                                }
                                // The event rings: the NIC produces, software consumes; the
                                // NAP ring the other way round.
                                for r in 0..2 {
                                    self.producers[r].d.next = self.pointers[(f * qn + q) * 3 + r]
                                        .q
                                        .val()
                                        .get_bits::<RING_POINTER_BITS>(0);
                                    self.consumers[r].d.next = self.registers.settings
                                        [f * rws + 3 + q * 10 + 3 + 3 * r]
                                        .val()
                                        .get_bits::<RING_POINTER_BITS>(0);
                                }
                                for r in 2..3 {
                                    self.producers[r].d.next = self.registers.settings
                                        [f * rws + 3 + q * 10 + 3 + 3 * r]
                                        .val()
                                        .get_bits::<RING_POINTER_BITS>(0);
                                    self.consumers[r].d.next = self.pointers[(f * qn + q) * 3 + r]
                                        .q
                                        .val()
                                        .get_bits::<RING_POINTER_BITS>(0);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn function_table_is_synthesizable() {
    let mut uut = FunctionTable::new(2, 1);
    uut.connect_all();
    yosys_validate("function_table_2x1", &generate_verilog(&uut)).unwrap();
}

#[test]
fn host_slots_match_the_map_for_every_size() {
    for functions in 1..=8 {
        for qps in [1, 2, 4, 8, 16] {
            HostSlots { functions, qps }.check(&FunctionTable::map(functions, qps));
        }
    }
    // The literals in `update` are the slots' layout.
    assert_eq!(
        (FUNCTION_SETTINGS, QP_SETTINGS, FUNCTION_STATUS, QP_STATUS),
        (3, 10, 1, 3)
    );
    assert_eq!(FUNCTION_COUNTERS, 5);
    assert_eq!(ring_setting(2, 2), 9);
}
