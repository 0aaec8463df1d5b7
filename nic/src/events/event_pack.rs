//! `EventPack`: an event's fields laid out in its 128 bits exactly as `Event::pack` does
//! (word 0 in bits 63..0, word 1 in bits 127..64: byte `i` of the 16 in memory is bits
//! `8 i + 7 .. 8 i` of a host beat), the phase bit set as given. The field positions come from
//! the codec's `EVENT_*` fields, held as shift constants, so the layout is defined once.
//!
//! Combinational; no state, no reset. Covered by the `event_writer` bench, which compares every
//! written event with `Event::to_bytes`.
use super::EVENT_BITS;
use hdl::formats::nic::{
    EVENT_INFO, EVENT_KIND, EVENT_LENGTH, EVENT_OP, EVENT_PEER_FUNCTION, EVENT_PEER_NODE,
    EVENT_PEER_QP, EVENT_PHASE, EVENT_QP, EVENT_STATUS,
};
use rust_hdl::prelude::*;

/// Bits of a shift amount within an event.
const SHIFT_BITS: usize = 7;

/// The fields of one event, packed; see the module documentation.
#[derive(LogicBlock)]
pub struct EventPack {
    /// Kind code.
    pub kind: Signal<In, Bits<2>>,
    /// Status code.
    pub status: Signal<In, Bits<6>>,
    /// Operation.
    pub op: Signal<In, Bits<3>>,
    /// Local QP.
    pub qp: Signal<In, Bits<4>>,
    /// Peer node.
    pub peer_node: Signal<In, Bits<16>>,
    /// Peer function.
    pub peer_function: Signal<In, Bits<3>>,
    /// Peer QP.
    pub peer_qp: Signal<In, Bits<4>>,
    /// Length (word 1, bits 31..0).
    pub length: Signal<In, Bits<32>>,
    /// Info (word 1, bits 63..32).
    pub info: Signal<In, Bits<32>>,
    /// The phase bit.
    pub phase: Signal<In, bool>,
    /// The event's 16 bytes.
    pub bytes: Signal<Out, Bits<EVENT_BITS>>,
    kind_at: Constant<Bits<SHIFT_BITS>>,
    status_at: Constant<Bits<SHIFT_BITS>>,
    op_at: Constant<Bits<SHIFT_BITS>>,
    qp_at: Constant<Bits<SHIFT_BITS>>,
    peer_node_at: Constant<Bits<SHIFT_BITS>>,
    peer_function_at: Constant<Bits<SHIFT_BITS>>,
    peer_qp_at: Constant<Bits<SHIFT_BITS>>,
    length_at: Constant<Bits<SHIFT_BITS>>,
    info_at: Constant<Bits<SHIFT_BITS>>,
    /// Every field but the phase.
    fields: Signal<Local, Bits<EVENT_BITS>>,
    /// The phase bit alone.
    phase_bit: Constant<Bits<EVENT_BITS>>,
}

impl Default for EventPack {
    fn default() -> Self {
        // Widths must agree with the codec (the ports are typed by them).
        assert_eq!(
            (
                EVENT_KIND.width,
                EVENT_STATUS.width,
                EVENT_OP.width,
                EVENT_QP.width
            ),
            (2, 6, 3, 4)
        );
        assert_eq!(
            (
                EVENT_PEER_NODE.width,
                EVENT_PEER_FUNCTION.width,
                EVENT_PEER_QP.width
            ),
            (16, 3, 4)
        );
        let at = |lsb: usize| Constant::new(lsb.to_bits());
        Self {
            kind: Default::default(),
            status: Default::default(),
            op: Default::default(),
            qp: Default::default(),
            peer_node: Default::default(),
            peer_function: Default::default(),
            peer_qp: Default::default(),
            length: Default::default(),
            info: Default::default(),
            phase: Default::default(),
            bytes: Default::default(),
            kind_at: at(EVENT_KIND.lsb),
            status_at: at(EVENT_STATUS.lsb),
            op_at: at(EVENT_OP.lsb),
            qp_at: at(EVENT_QP.lsb),
            peer_node_at: at(EVENT_PEER_NODE.lsb),
            peer_function_at: at(EVENT_PEER_FUNCTION.lsb),
            peer_qp_at: at(EVENT_PEER_QP.lsb),
            // Word 1 sits 64 bits up.
            length_at: at(64 + EVENT_LENGTH.lsb),
            info_at: at(64 + EVENT_INFO.lsb),
            fields: Default::default(),
            phase_bit: Constant::new(Bits::<EVENT_BITS>::from(1u64 << EVENT_PHASE.lsb)),
        }
    }
}

impl Logic for EventPack {
    #[hdl_gen]
    fn update(&mut self) {
        self.fields.next = (bit_cast::<EVENT_BITS, 2>(self.kind.val()) << self.kind_at.val())
            | (bit_cast::<EVENT_BITS, 6>(self.status.val()) << self.status_at.val())
            | (bit_cast::<EVENT_BITS, 3>(self.op.val()) << self.op_at.val())
            | (bit_cast::<EVENT_BITS, 4>(self.qp.val()) << self.qp_at.val())
            | (bit_cast::<EVENT_BITS, 16>(self.peer_node.val()) << self.peer_node_at.val())
            | (bit_cast::<EVENT_BITS, 3>(self.peer_function.val()) << self.peer_function_at.val())
            | (bit_cast::<EVENT_BITS, 4>(self.peer_qp.val()) << self.peer_qp_at.val())
            | (bit_cast::<EVENT_BITS, 32>(self.length.val()) << self.length_at.val())
            | (bit_cast::<EVENT_BITS, 32>(self.info.val()) << self.info_at.val());
        self.bytes.next = self.fields.val();
        if self.phase.val() {
            self.bytes.next = self.fields.val() | self.phase_bit.val();
        }
    }
}

#[test]
fn event_pack_is_synthesizable() {
    let mut uut = EventPack::default();
    uut.connect_all();
    yosys_validate("event_pack", &generate_verilog(&uut)).unwrap();
}
