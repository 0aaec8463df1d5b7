//! `QpPointers`: the [`QpTable`](crate::qp_table::QpTable)'s flip-flops: every QP's enable and
//! the NIC's three ring pointers of every QP (the send and receive event rings' producers, the
//! NAP ring's consumer), free-running 16-bit counts.
//!
//! **Enable**: `enable_write` sets the enable of QP `enable_index` (entry `f x Q + q`) to
//! `enable_value` on the clock edge.
//!
//! **Advance** (no handshake, one per cycle on each of two ports): `advance` and
//! `advance_second` each add one to the named ring's pointer of an existing QP on the clock
//! edge; a function, QP or ring number beyond the configuration changes nothing. The two
//! ports serve two engines that never name the same pointer (the event writer advances the
//! event rings, the NAP buffer manager the NAP ring); both naming one pointer in one cycle
//! adds one, not two. (Each pointer has its own incrementer: one shared one behind a 96-way
//! priority mux cost about 1,500 more iCE40 LUTs at 8 x 4.) While
//! a QP or its function (`function_enables`) is disabled its pointers are held at zero, so
//! enabling it starts its rings from entry 0.
//!
//! **Reads** (combinational): `lookup_index` and `held_index` each give that entry's enable
//! and three pointers (zero for an entry beyond `F x Q`).
//!
//! **Reset** (synchronous): every QP disabled, every pointer zero.
//!
//! Parameters: `QAW` entry index bits; elaboration values functions `F` and QPs `Q` (a power
//! of two), checked by the QP table.
use crate::function_table::{PointerAdvanceSink, RING_BITS};
use crate::regs::RING_POINTER_BITS;
use hdl::formats::nic::{FUNCTION_BITS, QP_BITS};
use rust_hdl::prelude::*;

/// The QP table's enables and NIC pointers; see the module documentation.
#[derive(LogicBlock)]
pub struct QpPointers<const QAW: usize> {
    /// Clock of every flip-flop.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Per function: enabled.
    pub function_enables: Vec<Signal<In, bool>>,
    /// Set a QP's enable this cycle.
    pub enable_write: Signal<In, bool>,
    /// The QP whose enable is set.
    pub enable_index: Signal<In, Bits<QAW>>,
    /// Its new enable.
    pub enable_value: Signal<In, bool>,
    /// The engines' pointer advances.
    pub advance: PointerAdvanceSink,
    /// A second engine's pointer advances.
    pub advance_second: PointerAdvanceSink,
    /// The QP a lookup names.
    pub lookup_index: Signal<In, Bits<QAW>>,
    /// Its enable.
    pub lookup_enable: Signal<Out, bool>,
    /// Its NIC pointers, per ring (send, receive, NAP).
    pub lookup_pointers: [Signal<Out, Bits<RING_POINTER_BITS>>; 3],
    /// The QP a register request names.
    pub held_index: Signal<In, Bits<QAW>>,
    /// Its enable.
    pub held_enable: Signal<Out, bool>,
    /// Its NIC pointers, per ring.
    pub held_pointers: [Signal<Out, Bits<RING_POINTER_BITS>>; 3],
    /// Per QP (entry): enabled.
    enables: Vec<DFF<bool>>,
    /// Per QP and ring (`entry x 3 + ring`): the NIC's pointer.
    pointers: Vec<DFF<Bits<RING_POINTER_BITS>>>,
    function_ids: Vec<Constant<Bits<FUNCTION_BITS>>>,
    qp_ids: Vec<Constant<Bits<QP_BITS>>>,
    ring_ids: Vec<Constant<Bits<RING_BITS>>>,
    /// Per entry: its index.
    index_ids: Vec<Constant<Bits<QAW>>>,
    qp_shift: Constant<Bits<5>>,
    pointer_one: Constant<Bits<RING_POINTER_BITS>>,
    /// The advance names an existing function, QP; its entry.
    advance_function_ok: Signal<Local, bool>,
    advance_qp_ok: Signal<Local, bool>,
    advance_index: Signal<Local, Bits<QAW>>,
    /// The same for the second port.
    second_function_ok: Signal<Local, bool>,
    second_qp_ok: Signal<Local, bool>,
    second_index: Signal<Local, Bits<QAW>>,
    /// Per entry and ring: an advance names it.
    selected: Vec<Signal<Local, bool>>,
    /// Per entry: it and its function are enabled.
    live: Vec<Signal<Local, bool>>,
    _qps: usize,
}

impl<const QAW: usize> QpPointers<QAW> {
    /// The flip-flops of `functions` functions of `qps` QPs (`qps` a power of two).
    pub fn new(functions: usize, qps: usize) -> Self {
        assert!(
            qps.is_power_of_two() && functions * qps <= 1 << QAW,
            "QpPointers<QAW = {QAW}>: {functions} functions of {qps} QPs must fit, QPs a power of two"
        );
        let n = functions * qps;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            function_enables: (0..functions).map(|_| Default::default()).collect(),
            enable_write: Default::default(),
            enable_index: Default::default(),
            enable_value: Default::default(),
            advance: Default::default(),
            advance_second: Default::default(),
            lookup_index: Default::default(),
            lookup_enable: Default::default(),
            lookup_pointers: Default::default(),
            held_index: Default::default(),
            held_enable: Default::default(),
            held_pointers: Default::default(),
            enables: (0..n).map(|_| Default::default()).collect(),
            pointers: (0..3 * n).map(|_| Default::default()).collect(),
            function_ids: (0..functions).map(|f| Constant::new(f.to_bits())).collect(),
            qp_ids: (0..qps).map(|q| Constant::new(q.to_bits())).collect(),
            ring_ids: (0..3usize).map(|r| Constant::new(r.to_bits())).collect(),
            // QP `q` of function `f` is entry `f x Q + q`: the index of the Vecs too.
            index_ids: (0..n).map(|i| Constant::new(i.to_bits())).collect(),
            qp_shift: Constant::new((qps.trailing_zeros() as usize).to_bits()),
            pointer_one: Constant::new(1usize.to_bits()),
            advance_function_ok: Default::default(),
            advance_qp_ok: Default::default(),
            advance_index: Default::default(),
            second_function_ok: Default::default(),
            second_qp_ok: Default::default(),
            second_index: Default::default(),
            selected: (0..3 * n).map(|_| Default::default()).collect(),
            live: (0..n).map(|_| Default::default()).collect(),
            _qps: qps,
        }
    }
}

impl<const QAW: usize> Logic for QpPointers<QAW> {
    #[hdl_gen]
    fn update(&mut self) {
        // Which pointer each advance names.
        self.advance_function_ok.next = false;
        self.second_function_ok.next = false;
        for f in 0..self.function_ids.len() {
            if self.advance.function.val() == self.function_ids[f].val() {
                self.advance_function_ok.next = true;
            }
            if self.advance_second.function.val() == self.function_ids[f].val() {
                self.second_function_ok.next = true;
            }
        }
        self.advance_qp_ok.next = false;
        self.second_qp_ok.next = false;
        for q in 0..self.qp_ids.len() {
            if self.advance.qp.val() == self.qp_ids[q].val() {
                self.advance_qp_ok.next = true;
            }
            if self.advance_second.qp.val() == self.qp_ids[q].val() {
                self.second_qp_ok.next = true;
            }
        }
        self.advance_index.next = bit_cast::<QAW, 8>(
            (bit_cast::<8, FUNCTION_BITS>(self.advance.function.val()) << self.qp_shift.val())
                | bit_cast::<8, QP_BITS>(self.advance.qp.val()),
        );
        self.second_index.next = bit_cast::<QAW, 8>(
            (bit_cast::<8, FUNCTION_BITS>(self.advance_second.function.val())
                << self.qp_shift.val())
                | bit_cast::<8, QP_BITS>(self.advance_second.qp.val()),
        );
        for i in 0..self.enables.len() {
            for r in 0..3 {
                self.selected[i * 3 + r].next = (self.advance.valid.val()
                    & self.advance_function_ok.val()
                    & self.advance_qp_ok.val()
                    & (self.advance_index.val() == self.index_ids[i].val())
                    & (self.advance.ring.val() == self.ring_ids[r].val()))
                    | (self.advance_second.valid.val()
                        & self.second_function_ok.val()
                        & self.second_qp_ok.val()
                        & (self.second_index.val() == self.index_ids[i].val())
                        & (self.advance_second.ring.val() == self.ring_ids[r].val()));
            }
        }

        self.lookup_enable.next = false;
        self.held_enable.next = false;
        for r in 0..3 {
            self.lookup_pointers[r].next = 0.into();
            self.held_pointers[r].next = 0.into();
        }
        for qn in self._qps..(self._qps + 1) {
            for i in 0..self.enables.len() {
                self.enables[i].clock.next = self.clock.val();
                self.enables[i].d.next = self.enables[i].q.val();
                if self.enable_write.val() & (self.enable_index.val() == self.index_ids[i].val()) {
                    self.enables[i].d.next = self.enable_value.val();
                }
                if self.reset.val() {
                    self.enables[i].d.next = false;
                }
                self.live[i].next = self.enables[i].q.val() & self.function_enables[i / qn].val();
                for r in 0..3 {
                    self.pointers[i * 3 + r].clock.next = self.clock.val();
                    self.pointers[i * 3 + r].d.next = self.pointers[i * 3 + r].q.val();
                    if self.selected[i * 3 + r].val() {
                        self.pointers[i * 3 + r].d.next =
                            self.pointers[i * 3 + r].q.val() + self.pointer_one.val();
                    }
                    if !self.live[i].val() | self.reset.val() {
                        self.pointers[i * 3 + r].d.next = 0.into();
                    }
                }
                if self.lookup_index.val() == self.index_ids[i].val() {
                    self.lookup_enable.next = self.enables[i].q.val();
                    for r in 0..3 {
                        self.lookup_pointers[r].next = self.pointers[i * 3 + r].q.val();
                    }
                }
                if self.held_index.val() == self.index_ids[i].val() {
                    self.held_enable.next = self.enables[i].q.val();
                    for r in 0..3 {
                        self.held_pointers[r].next = self.pointers[i * 3 + r].q.val();
                    }
                }
            }
        }
    }
}

#[test]
fn qp_pointers_are_synthesizable() {
    let mut uut = QpPointers::<3>::new(3, 2);
    uut.connect_all();
    yosys_validate("qp_pointers_3x2", &generate_verilog(&uut)).unwrap();
}
