//! `ReceiveDispatch`: the checked packets of the receive buffer to their engines by kind
//! (`docs/nic-design.md`, "Receive engine (part 4)"): NAP packets to `nap` (NAP upload), PUT
//! packets to `put` (PUT upload), GET packets to `get` (GET to PUT).
//!
//! Combinational, no storage: every output carries the input's fields and word; only the
//! output named by `kind` is `valid`, and the input's `ready` is that output's `ready`. A
//! packet's fields (its `kind` among them) are held over all its words, so a packet goes whole
//! to one output, and the next packet follows its last word with no idle cycle, whatever its
//! kind.
//!
//! **One input stream**: packets leave in the order they arrive, one at a time; an output
//! that does not take its packet stalls the input, so the packets behind it (for any engine)
//! wait too. That is the price of no reordering buffer: the engines behind are built to keep
//! taking (the PUT upload at the network's rate; events wait in the engines' own registers).
//!
//! Bad input: a kind other than NAP, PUT and GET cannot pass the receive buffer's format
//! check; should one come, its words are taken and dropped, and `unknown` pulses with each
//! (for a counter), so it can never block the stream.
//!
//! Ports: `packets` (sink), `nap`, `put`, `get` (sources), `unknown`. No clock: latency 0.
use super::{ReceivedPacketSink, ReceivedPacketSource, PACKET_KIND_BITS};
use hdl::formats::header::PacketKind;
use rust_hdl::prelude::*;

/// The dispatch; see the module documentation.
#[derive(LogicBlock)]
pub struct ReceiveDispatch {
    /// Checked packets from the receive buffer.
    pub packets: ReceivedPacketSink,
    /// NAP packets, to the NAP upload.
    pub nap: ReceivedPacketSource,
    /// PUT packets, to the PUT upload.
    pub put: ReceivedPacketSource,
    /// GET packets, to the GET-to-PUT unit.
    pub get: ReceivedPacketSource,
    /// A word of a packet of another kind was taken and dropped.
    pub unknown: Signal<Out, bool>,
    kind_nap: Constant<Bits<PACKET_KIND_BITS>>,
    kind_put: Constant<Bits<PACKET_KIND_BITS>>,
    kind_get: Constant<Bits<PACKET_KIND_BITS>>,
    is_nap: Signal<Local, bool>,
    is_put: Signal<Local, bool>,
    is_get: Signal<Local, bool>,
}

impl Default for ReceiveDispatch {
    fn default() -> Self {
        let code = |k: PacketKind| Constant::new((k.code() as usize).to_bits());
        Self {
            packets: Default::default(),
            nap: Default::default(),
            put: Default::default(),
            get: Default::default(),
            unknown: Default::default(),
            kind_nap: code(PacketKind::Nap),
            kind_put: code(PacketKind::Put),
            kind_get: code(PacketKind::Get),
            is_nap: Default::default(),
            is_put: Default::default(),
            is_get: Default::default(),
        }
    }
}

impl Logic for ReceiveDispatch {
    #[hdl_gen]
    fn update(&mut self) {
        self.is_nap.next = self.packets.kind.val() == self.kind_nap.val();
        self.is_put.next = self.packets.kind.val() == self.kind_put.val();
        self.is_get.next = self.packets.kind.val() == self.kind_get.val();
        // Every output sees the packet; only its kind's is valid.
        self.nap.kind.next = self.packets.kind.val();
        self.nap.src_node.next = self.packets.src_node.val();
        self.nap.src_function.next = self.packets.src_function.val();
        self.nap.src_qp.next = self.packets.src_qp.val();
        self.nap.dst_function.next = self.packets.dst_function.val();
        self.nap.dst_qp.next = self.packets.dst_qp.val();
        self.nap.delay.next = self.packets.delay.val();
        self.nap.address.next = self.packets.address.val();
        self.nap.nap_offset.next = self.packets.nap_offset.val();
        self.nap.nap_length.next = self.packets.nap_length.val();
        self.nap.bytes.next = self.packets.bytes.val();
        self.nap.event.next = self.packets.event.val();
        self.nap.message_last.next = self.packets.message_last.val();
        self.nap.get_response.next = self.packets.get_response.val();
        self.nap.word.next = self.packets.word.val();
        self.nap.last.next = self.packets.last.val();
        self.put.kind.next = self.packets.kind.val();
        self.put.src_node.next = self.packets.src_node.val();
        self.put.src_function.next = self.packets.src_function.val();
        self.put.src_qp.next = self.packets.src_qp.val();
        self.put.dst_function.next = self.packets.dst_function.val();
        self.put.dst_qp.next = self.packets.dst_qp.val();
        self.put.delay.next = self.packets.delay.val();
        self.put.address.next = self.packets.address.val();
        self.put.nap_offset.next = self.packets.nap_offset.val();
        self.put.nap_length.next = self.packets.nap_length.val();
        self.put.bytes.next = self.packets.bytes.val();
        self.put.event.next = self.packets.event.val();
        self.put.message_last.next = self.packets.message_last.val();
        self.put.get_response.next = self.packets.get_response.val();
        self.put.word.next = self.packets.word.val();
        self.put.last.next = self.packets.last.val();
        self.get.kind.next = self.packets.kind.val();
        self.get.src_node.next = self.packets.src_node.val();
        self.get.src_function.next = self.packets.src_function.val();
        self.get.src_qp.next = self.packets.src_qp.val();
        self.get.dst_function.next = self.packets.dst_function.val();
        self.get.dst_qp.next = self.packets.dst_qp.val();
        self.get.delay.next = self.packets.delay.val();
        self.get.address.next = self.packets.address.val();
        self.get.nap_offset.next = self.packets.nap_offset.val();
        self.get.nap_length.next = self.packets.nap_length.val();
        self.get.bytes.next = self.packets.bytes.val();
        self.get.event.next = self.packets.event.val();
        self.get.message_last.next = self.packets.message_last.val();
        self.get.get_response.next = self.packets.get_response.val();
        self.get.word.next = self.packets.word.val();
        self.get.last.next = self.packets.last.val();
        self.nap.valid.next = self.packets.valid.val() & self.is_nap.val();
        self.put.valid.next = self.packets.valid.val() & self.is_put.val();
        self.get.valid.next = self.packets.valid.val() & self.is_get.val();
        // Another kind: taken (and dropped) at once.
        self.packets.ready.next = true;
        if self.is_nap.val() {
            self.packets.ready.next = self.nap.ready.val();
        }
        if self.is_put.val() {
            self.packets.ready.next = self.put.ready.val();
        }
        if self.is_get.val() {
            self.packets.ready.next = self.get.ready.val();
        }
        self.unknown.next =
            self.packets.valid.val() & !(self.is_nap.val() | self.is_put.val() | self.is_get.val());
    }
}

#[test]
fn receive_dispatch_is_synthesizable() {
    let mut uut = ReceiveDispatch::default();
    uut.connect_all();
    yosys_validate("receive_dispatch", &generate_verilog(&uut)).unwrap();
}
