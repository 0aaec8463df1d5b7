//! `QpLookup`: the [`QpTable`](crate::qp_table::QpTable)'s lookup port: which QP a lookup
//! names, whether it exists, and the answer a cycle later, formed from the flags and NIC
//! pointers captured when the lookup is taken and the table RAMs' registered read of that
//! cycle.
//!
//! **Handshake**: `lookup.ready` is `!blocked` (the parent blocks while a register read holds
//! the RAMs' read port, while it clears the RAMs, and in reset). A lookup taken in cycle `c`
//! (`valid` and `ready`) names entry `index` in `c` (the parent reads the RAMs and the NIC's
//! pointers there) and is answered in `c + 1` (`answered`); every field is zero when no answer
//! is given or when the function or QP does not exist (`owned` low).
//!
//! **Reset** (synchronous): no answer next cycle.
//!
//! Parameters: `QAW` entry index bits; elaboration values functions `F` and QPs `Q` (a power
//! of two), checked by the QP table.
use crate::function_table::QpLookupSink;
use crate::regs::{KEY_BITS, RING_POINTER_BITS, RING_SIZE_BITS};
use hdl::formats::nic::{ADDRESS_BITS, FUNCTION_BITS, QP_BITS};
use rust_hdl::prelude::*;

/// The QP table's lookup port; see the module documentation.
#[derive(LogicBlock)]
pub struct QpLookup<const QAW: usize> {
    /// Clock of the answer's flip-flops.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The engines' lookups.
    pub lookup: QpLookupSink,
    /// No lookup is taken this cycle.
    pub blocked: Signal<In, bool>,
    /// The entry the offered lookup names.
    pub index: Signal<Out, Bits<QAW>>,
    /// Per function: enabled.
    pub function_enables: Vec<Signal<In, bool>>,
    /// Per function: its `interrupts` register.
    pub interrupts: Vec<Signal<In, Bits<16>>>,
    /// Entry `index`'s enable and NIC pointers (send producer, receive producer, NAP
    /// consumer), this cycle.
    pub qp_enable: Signal<In, bool>,
    /// See `qp_enable`.
    pub nic_pointers: [Signal<In, Bits<RING_POINTER_BITS>>; 3],
    /// The RAMs' read of last cycle's `index`: key, and per ring base, size, software's pointer.
    pub key: Signal<In, Bits<KEY_BITS>>,
    /// See `key`.
    pub bases: [Signal<In, Bits<ADDRESS_BITS>>; 3],
    /// See `key`.
    pub sizes: [Signal<In, Bits<RING_SIZE_BITS>>; 3],
    /// See `key`.
    pub software_pointers: [Signal<In, Bits<RING_POINTER_BITS>>; 3],
    answered: DFF<bool>,
    owned: DFF<bool>,
    function_enabled: DFF<bool>,
    qp_enabled: DFF<bool>,
    interrupt: DFF<bool>,
    pointers: [DFF<Bits<RING_POINTER_BITS>>; 3],
    function_ids: Vec<Constant<Bits<FUNCTION_BITS>>>,
    qp_ids: Vec<Constant<Bits<QP_BITS>>>,
    qp_shift: Constant<Bits<5>>,
    function_ok: Signal<Local, bool>,
    qp_ok: Signal<Local, bool>,
    /// The answer is for an existing QP.
    giving: Signal<Local, bool>,
}

impl<const QAW: usize> QpLookup<QAW> {
    /// The port of `functions` functions of `qps` QPs (`qps` a power of two).
    pub fn new(functions: usize, qps: usize) -> Self {
        assert!(
            qps.is_power_of_two() && functions * qps <= 1 << QAW,
            "QpLookup<QAW = {QAW}>: {functions} functions of {qps} QPs must fit, QPs a power of two"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            lookup: Default::default(),
            blocked: Default::default(),
            index: Default::default(),
            function_enables: (0..functions).map(|_| Default::default()).collect(),
            interrupts: (0..functions).map(|_| Default::default()).collect(),
            qp_enable: Default::default(),
            nic_pointers: Default::default(),
            key: Default::default(),
            bases: Default::default(),
            sizes: Default::default(),
            software_pointers: Default::default(),
            answered: Default::default(),
            owned: Default::default(),
            function_enabled: Default::default(),
            qp_enabled: Default::default(),
            interrupt: Default::default(),
            pointers: Default::default(),
            function_ids: (0..functions).map(|f| Constant::new(f.to_bits())).collect(),
            qp_ids: (0..qps).map(|q| Constant::new(q.to_bits())).collect(),
            qp_shift: Constant::new((qps.trailing_zeros() as usize).to_bits()),
            function_ok: Default::default(),
            qp_ok: Default::default(),
            giving: Default::default(),
        }
    }
}

impl<const QAW: usize> Logic for QpLookup<QAW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            answered,
            owned,
            function_enabled,
            qp_enabled,
            interrupt
        );
        self.lookup.ready.next = !self.blocked.val();
        // Which QP the lookup names, and whether it exists.
        self.function_ok.next = false;
        self.function_enabled.d.next = false;
        self.interrupt.d.next = false;
        for f in 0..self.function_ids.len() {
            if self.lookup.function.val() == self.function_ids[f].val() {
                self.function_ok.next = true;
                self.function_enabled.d.next = self.function_enables[f].val();
                self.interrupt.d.next = self.interrupts[f]
                    .val()
                    .get_bit(self.lookup.qp.val().index());
            }
        }
        self.qp_ok.next = false;
        for q in 0..self.qp_ids.len() {
            if self.lookup.qp.val() == self.qp_ids[q].val() {
                self.qp_ok.next = true;
            }
        }
        self.index.next = bit_cast::<QAW, 8>(
            (bit_cast::<8, FUNCTION_BITS>(self.lookup.function.val()) << self.qp_shift.val())
                | bit_cast::<8, QP_BITS>(self.lookup.qp.val()),
        );

        // The answer: flags and NIC pointers captured now, the RAMs read now; shown next
        // cycle, zero unless the QP exists.
        self.answered.d.next =
            self.lookup.valid.val() & self.lookup.ready.val() & !self.reset.val();
        self.owned.d.next = self.function_ok.val() & self.qp_ok.val();
        self.qp_enabled.d.next = self.qp_enable.val();
        for r in 0..3 {
            self.pointers[r].clock.next = self.clock.val();
            self.pointers[r].d.next = self.nic_pointers[r].val();
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
            self.lookup.key.next = self.key.val();
            self.lookup.send_base.next = self.bases[0].val();
            self.lookup.send_size.next = self.sizes[0].val();
            self.lookup.send_producer.next = self.pointers[0].q.val();
            self.lookup.send_consumer.next = self.software_pointers[0].val();
            self.lookup.receive_base.next = self.bases[1].val();
            self.lookup.receive_size.next = self.sizes[1].val();
            self.lookup.receive_producer.next = self.pointers[1].q.val();
            self.lookup.receive_consumer.next = self.software_pointers[1].val();
            self.lookup.nap_base.next = self.bases[2].val();
            self.lookup.nap_size.next = self.sizes[2].val();
            self.lookup.nap_producer.next = self.software_pointers[2].val();
            self.lookup.nap_consumer.next = self.pointers[2].q.val();
        }
    }
}

#[test]
fn qp_lookup_is_synthesizable() {
    let mut uut = QpLookup::<3>::new(3, 2);
    uut.connect_all();
    yosys_validate("qp_lookup_3x2", &generate_verilog(&uut)).unwrap();
}
