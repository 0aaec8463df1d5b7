//! `MgmtTransit`: the source routing of management packets through a router's data plane
//! (issue 11, item 3; `docs/formats.md`, "Source routing"), between the intake and the store
//! of a port's DAMQ ([`super::Damq`]): every flit the intake stores passes here, unchanged but
//! for the management packets this router forwards, which are rewritten on their way in.
//!
//! **Which packets.** A head of kind Mgmt with `len` =
//! [`MGMT_FLITS`](hdl::formats::mgmt::MGMT_FLITS) stored on the management VC opens a
//! management packet ([`MgmtFlit`](super::MgmtFlit)); its flits are counted as the intake
//! stores them (the intake stores whole packets in order, or closes one early with a
//! TailBadPkt), so this block sees exactly what the DAMQ will hold. Management heads of
//! another length, and any packet on another VC, pass untouched and get no decision (the
//! input port sends the former to the agent, which drops malformed packets and counts them).
//!
//! **Decision**, one per such packet, in the order of their heads, on `decisions` (through a
//! FIFO of [`DECISION_DEPTH`], more than a port's buffer can hold management packets), made when
//! the backward route's word `w3` is stored (or when the packet ends before it):
//! - `current == 0` in `w1`: [`TO_AGENT`] (the route ends here; the agent's unpacker appends
//!   the arrival port itself);
//! - a malformed route: [`DROP`] (`hop_num > 20` or `current > hop_num` in `w1`; a backward
//!   route already 20 hops long in `w3`; a next hop that is not a port of this router); the
//!   input port discards the packet whole and counts it (event `BAD_ROUTE`);
//! - else [`TRANSIT`] with the output port `F.hops[current - 1]` (from `w1` or `w2`).
//!
//! **Rewrite** of a transit packet, as its flits go by (each change needs only flits that came
//! before it, so nothing waits): `w1`'s `current -= 1`; `w3`'s `hop_num += 1` and, below 10
//! hops, `hops[hop_num] = port` (this input port's number); from 10 hops on that hop goes into
//! `w4`; the tail's CRC-16 is XORed with the CRC of the changes: the CRC is linear, so
//! `crc(m ^ d) = crc(m) ^ crc0(d)` where `crc0` has no initial value, and `crc0(d)` is run over
//! the changed words as they pass (zero for the unchanged ones) by one 64-bit [`CrcStep`]. A
//! packet corrupted before it got here keeps a wrong CRC: the end agent still drops it (a
//! recomputed CRC would launder it). A transit packet closed early by a TailBadPkt is
//! forwarded as it is (the next hop discards it whole, as any cut-through packet).
//!
//! Latency: none on the flits (combinational between intake and store). The decision is pushed
//! on the edge that stores `w3` (the head's fifth flit) and can be read from the FIFO two
//! cycles later.
//!
//! Reset (synchronous): no packet open, the FIFO empty (the DAMQ is emptied with it).
//!
//! **Blocks**: [`MgmtFlit`](super::MgmtFlit) (which flits are a management packet's),
//! [`HopFields`](super::HopFields) (the route fields of a word as `w1`..`w4`),
//! [`DeltaCrc`](super::DeltaCrc) (the CRC of the changes) and the decision FIFO; this file
//! keeps the packet's state (position, transit, malformed, hops), the rewrite and the decision.
//!
//! Parameters: `VCB` as the DAMQ; elaboration values: the management VC, this input port's
//! number and the router's port count.
use super::{DeltaCrc, HopFields, MgmtFlit, VcWriteSink, VcWriteSource};
use hdl::fifo::StreamFifo;
use hdl::formats::flit::{TAIL_BIT, TYPE_BIT};
use hdl::formats::mgmt::{hop_lsb, CURRENT, HOPS_PER_WORD, HOP_BITS, HOP_NUM, ROUTE_HOPS};
use hdl::formats::FLIT_BITS;
use hdl::stream::StreamSource;
use rust_hdl::prelude::*;

/// Bits of a decision: kind in bits 1..0, the output port in bits 6..2.
pub const DECISION_BITS: usize = 2 + HOP_BITS;
/// Decision kind: the packet goes to this router's agent.
pub const TO_AGENT: u64 = 0;
/// Decision kind: the packet leaves on the decision's port.
pub const TRANSIT: u64 = 1;
/// Decision kind: the route is malformed, the packet is dropped and counted.
pub const DROP: u64 = 2;
/// Decisions the FIFO holds: more than a 256-slot buffer can hold 10-flit packets.
pub const DECISION_DEPTH: usize = 32;

/// A constant of `N` bits.
fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.into())
}

/// Management source routing between a DAMQ's intake and store; see the module documentation.
#[derive(LogicBlock)]
pub struct MgmtTransit<const VCB: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// What the intake stores.
    pub arriving: VcWriteSink<VCB>,
    /// What the store takes (transit packets rewritten).
    pub storing: VcWriteSource<VCB>,
    /// One decision per management packet, in head order.
    pub decisions: StreamSource<Bits<DECISION_BITS>>,
    fifo: StreamFifo<
        Bits<DECISION_BITS>,
        DECISION_DEPTH,
        { hdl::fifo::fifo_ptr_bits(DECISION_DEPTH) },
        { hdl::fifo::fifo_count_bits(DECISION_DEPTH) },
    >,
    /// The management view of this flit.
    flit: MgmtFlit<VCB>,
    /// The source-route fields of this flit's word.
    fields: HopFields,
    /// The CRC of the changes, for the tail.
    change_crc: DeltaCrc,
    /// A management packet is being stored; the position of its next flit.
    open: DFF<bool>,
    position: DFF<Bits<4>>,
    /// From `w1`: a transit packet (`current != 0`), its route is malformed, `current`.
    transit: DFF<bool>,
    bad: DFF<bool>,
    current: DFF<Bits<5>>,
    /// The next hop (from `w1`, or from `w2` when `current > 10`).
    hop: DFF<Bits<HOP_BITS>>,
    /// The backward route's `hop_num` (from `w3`).
    back_hops: DFF<Bits<5>>,
    /// The decision was pushed.
    decided: DFF<bool>,
    /// The rewritten data word of this flit.
    rewritten: Signal<Local, Bits<64>>,
    /// The packet rewritten is a good transit packet.
    forwarding: Signal<Local, bool>,
    push: Signal<Local, bool>,
    push_kind: Signal<Local, Bits<2>>,
    push_hop: Signal<Local, Bits<HOP_BITS>>,
    /// The FIFO's fill: its `ready` is never low (see DECISION_DEPTH): acknowledged unused.
    unused_fifo: Signal<Local, bool>,
    ports: Constant<Bits<HOP_BITS>>,
    route_hops: Constant<Bits<5>>,
    low_hops: Constant<Bits<5>>,
    type_bit: Constant<Bits<7>>,
    tail_bit: Constant<Bits<7>>,
    current_lsb: Constant<Bits<8>>,
    current_mask: Constant<Bits<64>>,
    hop_mask: Constant<Bits<64>>,
    kind_transit: Constant<Bits<2>>,
    kind_drop: Constant<Bits<2>>,
    kind_agent: Constant<Bits<2>>,
}

impl<const VCB: usize> MgmtTransit<VCB> {
    /// A block that passes every flit untouched and decides nothing (a DAMQ outside a router).
    pub fn disabled() -> Self {
        let mut b = Self::new(0, 0, 2);
        b.flit = MgmtFlit::new(0, false);
        b
    }

    /// The block of input port `port` of a router with `ports` ports, management on `mgmt_vc`.
    pub fn new(mgmt_vc: usize, port: usize, ports: usize) -> Self {
        assert!(
            port < ports && ports <= 32,
            "MgmtTransit: port {port} of {ports}"
        );
        assert_eq!(HOP_NUM.lsb, 0, "hop_num at bit 0 of a route word");
        assert_eq!(CURRENT.lsb, 5, "current at bit 5 of w1");
        assert_eq!(hop_lsb(0), 10, "hop 0 at bit 10 of a route word");
        assert_eq!(
            hop_lsb(HOPS_PER_WORD),
            0,
            "hop 10 at bit 0 of the high word"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            arriving: Default::default(),
            storing: Default::default(),
            decisions: Default::default(),
            fifo: StreamFifo::new(),
            flit: MgmtFlit::new(mgmt_vc, true),
            fields: HopFields::new(port),
            change_crc: DeltaCrc::new(),
            open: Default::default(),
            position: Default::default(),
            transit: Default::default(),
            bad: Default::default(),
            current: Default::default(),
            hop: Default::default(),
            back_hops: Default::default(),
            decided: Default::default(),
            rewritten: Default::default(),
            forwarding: Default::default(),
            push: Default::default(),
            push_kind: Default::default(),
            push_hop: Default::default(),
            unused_fifo: Default::default(),
            ports: k(ports as u64),
            route_hops: k(ROUTE_HOPS as u64),
            low_hops: k(HOPS_PER_WORD as u64),
            type_bit: k(TYPE_BIT as u64),
            tail_bit: k(TAIL_BIT as u64),
            current_lsb: k(CURRENT.lsb as u64),
            current_mask: k(((1u64 << CURRENT.width) - 1) << CURRENT.lsb),
            hop_mask: k((1u64 << HOP_BITS) - 1),
            kind_transit: k(TRANSIT),
            kind_drop: k(DROP),
            kind_agent: k(TO_AGENT),
        }
    }
}

impl<const VCB: usize> Logic for MgmtTransit<VCB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, open, position, transit, bad, current, hop, back_hops, decided);
        clock!(self, clock, fifo, change_crc);
        self.fifo.reset.next = self.reset.val();
        self.unused_fifo.next = self.fifo.sink.ready.val() | self.fifo.count.val().any();
        StreamSource::<Bits<DECISION_BITS>>::link(&mut self.decisions, &mut self.fifo.source);
        // This flit (transit on: else every flit passes untouched and no decision is made).
        VcWriteSink::<VCB>::link(&mut self.arriving, &mut self.flit.arriving);
        // The route fields of this word (as w1, w2, w3, w4).
        self.fields.data.next = self.flit.data.val();
        self.fields.current.next = self.current.q.val();
        self.fields.back_hops.next = self.back_hops.q.val();
        self.forwarding.next = self.transit.q.val() & !self.bad.q.val();
        // The rewrite and its change (zero unless a good transit packet's w1, w3, w4 or tail).
        self.rewritten.next = self.flit.data.val();
        self.push.next = false;
        self.push_kind.next = self.kind_agent.val();
        self.push_hop.next = self.hop.q.val();
        if self.flit.here.val() & self.open.q.val() {
            self.position.d.next = self.position.q.val() + 1;
            if self.flit.body.val() & (self.position.q.val() == 2) {
                // w1: the forward route.
                self.current.d.next = self.fields.w1_current.val();
                self.transit.d.next = self.fields.w1_current.val().any();
                self.bad.d.next = (self.fields.w1_hops.val() > self.route_hops.val())
                    | (self.fields.w1_current.val() > self.fields.w1_hops.val());
                self.hop.d.next = self.fields.w1_hop.val();
                if self.fields.w1_current.val().any()
                    & (self.fields.w1_hops.val() <= self.route_hops.val())
                    & (self.fields.w1_current.val() <= self.fields.w1_hops.val())
                {
                    self.rewritten.next = (self.flit.data.val() & !self.current_mask.val())
                        | (bit_cast::<64, 5>(self.fields.w1_current.val() - 1)
                            << self.current_lsb.val());
                }
            }
            if self.flit.body.val()
                & (self.position.q.val() == 3)
                & (self.current.q.val() > self.low_hops.val())
            {
                // w2: the high hops.
                self.hop.d.next = self.fields.w2_hop.val();
            }
            if self.flit.body.val() & (self.position.q.val() == 4) {
                // w3: the backward route; the decision.
                self.back_hops.d.next = self.fields.w3_hops.val();
                self.push.next = true;
                self.decided.d.next = true;
                if self.transit.q.val() {
                    self.push_kind.next = self.kind_transit.val();
                    if self.bad.q.val()
                        | (self.fields.w3_hops.val() >= self.route_hops.val())
                        | (self.hop.q.val() >= self.ports.val())
                    {
                        self.push_kind.next = self.kind_drop.val();
                        self.bad.d.next = true;
                    } else {
                        self.rewritten.next = (self.flit.data.val()
                            & !self.hop_mask.val()
                            & !self.fields.w3_field.val())
                            | bit_cast::<64, 5>(self.fields.w3_hops.val() + 1)
                            | self.fields.w3_insert.val();
                    }
                }
            }
            if self.flit.body.val()
                & (self.position.q.val() == 5)
                & self.forwarding.val()
                & (self.back_hops.q.val() >= self.low_hops.val())
            {
                // w4: the high backward hops.
                self.rewritten.next = (self.flit.data.val() & !self.fields.w4_field.val())
                    | self.fields.w4_insert.val();
            }
            if !self.flit.body.val() {
                // The end: a tail (its CRC fixed) or a TailBadPkt.
                self.open.d.next = false;
                if !self.decided.q.val() {
                    self.push.next = true;
                }
                if self.forwarding.val()
                    & self
                        .arriving
                        .flit
                        .val()
                        .get_bit(self.tail_bit.val().index())
                {
                    self.rewritten.next =
                        self.flit.data.val() ^ bit_cast::<64, 16>(self.change_crc.delta.val());
                }
            }
        }
        // A management head opens a packet.
        if self.flit.opens.val() {
            self.open.d.next = true;
            self.position.d.next = 1.into();
            self.transit.d.next = false;
            self.bad.d.next = false;
            self.decided.d.next = false;
        }
        // The CRC of the changes (none in the tail's own word).
        self.change_crc.data.next = self.flit.data.val();
        self.change_crc.rewritten.next = self.rewritten.val();
        self.change_crc.tail_word.next = self.position.q.val() == 9;
        self.change_crc.advance.next = self.flit.here.val() & self.open.q.val();
        self.change_crc.clear.next = self.flit.opens.val();
        self.fifo.sink.valid.next = self.push.val() & !self.reset.val();
        self.fifo.sink.data.next = bit_cast::<DECISION_BITS, 2>(self.push_kind.val())
            | (bit_cast::<DECISION_BITS, HOP_BITS>(self.push_hop.val()) << 2);
        // The flit to store.
        self.storing.valid.next = self.arriving.valid.val();
        self.storing.vc.next = self.arriving.vc.val();
        self.storing.flit.next = self.arriving.flit.val();
        if self.flit.here.val() & self.open.q.val() {
            self.storing.flit.next = bit_cast::<FLIT_BITS, 64>(self.rewritten.val())
                .replace_bit(self.type_bit.val().index(), self.flit.body.val());
        }
        if self.reset.val() {
            self.open.d.next = false;
        }
    }
}
