//! NMP packer: the management agent's exit. Takes one response or fault report per beat
//! ([`MgmtBeat`](crate::formats::mgmt::MgmtBeat) of [`MGMT_BEAT_BITS`] bits: words `w0..w7`,
//! the head's `src` and `dst`, the forward route already the request's backward route) and sends
//! it as a management packet of [`MGMT_FLITS`] flits: the head built from the format (kind
//! `Mgmt`, `len` [`MGMT_FLITS`], `vc` the configuration's management VC, `dst`/`src` from the
//! beat, `delay` zero), the eight words with the forward route's `current` decremented (the hop
//! this chip takes), and the tail with the CRC-16 of what was sent.
//!
//! Ports: `clock`, `reset` (synchronous: the packet in progress starts again from its head;
//! the beat is not consumed until its tail is taken, so a reset loses no response, and the flits
//! already sent form a packet without a tail, which the link's receiver drops as dirty),
//! `responses` (sink), `flits` (source), `tail` (the flit on offer is the tail), `out_port`
//! (the output port of the packet on offer,
//! `F.hops[current - 1]`, valid with `flits.valid` and steady for the whole packet),
//! `dropped_no_route` (one-cycle pulse the cycle after a beat was dropped).
//!
//! A beat whose forward `current` is 0 (the response would be for this chip: a bug upstream) or
//! above 20 (no such hop) has no output port: it is consumed without sending anything and
//! counted on `dropped_no_route`.
//!
//! Timing: the head is offered in the cycle the beat arrives (no register on the way), then
//! one flit per cycle that `flits.ready` is high; the beat is consumed (`responses.ready`) with
//! the tail, so back-to-back beats go out as back-to-back packets, ten flits in ten cycles.
//!
//! Structure: the packer stores no words. The beat waits on `responses` (the stream rules hold
//! it steady until it is consumed) and a 10-way multiplexer by flit position picks what is
//! sent; the 512 body bits stay where they already are (in the unit that answered, behind the
//! collector). The CRC is a
//! [`ParallelCrc`] watching the flits sent.
use crate::crc::{ParallelCrc, CRC16};
use crate::formats::mgmt::{self, hop_lsb, HOP_BITS, MGMT_BEAT_BITS, MGMT_FLITS, ROUTE_HOPS};
use crate::formats::{flit, header, PacketKind, FLIT_BITS};
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// Bits of the flit position counter (0..[`MGMT_FLITS`]).
pub const POSITION_BITS: usize = crate::bits::index_bits(MGMT_FLITS);

/// The packer; see the module documentation.
#[derive(LogicBlock)]
pub struct NmpPacker {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Responses and fault reports, one per beat.
    pub responses: StreamSink<Bits<MGMT_BEAT_BITS>>,
    /// The packets' flits.
    pub flits: StreamSource<Bits<FLIT_BITS>>,
    /// The port the packet on offer leaves on.
    pub out_port: Signal<Out, Bits<HOP_BITS>>,
    /// The flit on offer is the packet's tail (valid with `flits.valid`).
    pub tail: Signal<Out, bool>,
    /// A beat without an output port was dropped.
    pub dropped_no_route: Signal<Out, bool>,
    /// CRC-16 of the flits sent (named so that its `crc` output does not shadow it).
    checksum: ParallelCrc<16, 64>,
    /// Flits of the packet on offer already sent.
    position: DFF<Bits<POSITION_BITS>>,
    dropped_pulse: DFF<bool>,
    /// The forward route's `current` in the beat.
    current: Signal<Local, Bits<5>>,
    /// The beat has no output port.
    no_route: Signal<Local, bool>,
    /// The head flit.
    head: Signal<Local, Bits<FLIT_BITS>>,
    /// `w1`, the forward route's low word.
    forward: Signal<Local, Bits<64>>,
    /// `w2`, the forward route's high word.
    forward_high: Signal<Local, Bits<64>>,
    /// `current` decremented: the hop this chip takes.
    current_sent: Signal<Local, Bits<5>>,
    /// `w1` as sent, `current` decremented.
    forward_sent: Signal<Local, Bits<64>>,
    hop_lsbs: Vec<Constant<Bits<7>>>,
    word_lsbs: Vec<Constant<Bits<10>>>,
    positions: Vec<Constant<Bits<POSITION_BITS>>>,
    position_tail: Constant<Bits<POSITION_BITS>>,
    position_forward: Constant<Bits<POSITION_BITS>>,
    route_hops: Constant<Bits<5>>,
    /// The head flit's constant bits: head bit, kind, `len`, `vc`.
    head_constant: Constant<Bits<FLIT_BITS>>,
    body_bit: Constant<Bits<FLIT_BITS>>,
    tail_bit: Constant<Bits<FLIT_BITS>>,
    current_mask: Constant<Bits<64>>,
    current_lsb: Constant<Bits<7>>,
    forward_lsb: Constant<Bits<10>>,
    forward_high_lsb: Constant<Bits<10>>,
    src_lsb: Constant<Bits<10>>,
    dst_lsb: Constant<Bits<10>>,
    header_src_shift: Constant<Bits<7>>,
    header_dst_shift: Constant<Bits<7>>,
    current_shift: Constant<Bits<7>>,
}

fn constant<const N: usize>(v: usize) -> Constant<Bits<N>> {
    Constant::new(Bits::from(v as u64))
}

/// A flit constant: `low` with the type bit set if `body`.
fn flit_constant(low: u64, body: bool) -> Constant<Bits<FLIT_BITS>> {
    Constant::new(Bits::<FLIT_BITS>::from(low).replace_bit(flit::TYPE_BIT, body))
}

impl NmpPacker {
    /// A packer whose packets travel on virtual channel `mgmt_vc` (`network.mgmt_vc`).
    pub fn new(mgmt_vc: u8) -> Self {
        assert!(
            (mgmt_vc as u128) <= header::VC.max(),
            "NmpPacker: mgmt_vc = {mgmt_vc} does not fit the header's vc field"
        );
        let head = header::FabricHeader {
            dst: 0,
            src: 0,
            vc: mgmt_vc,
            kind: PacketKind::Mgmt,
            len: MGMT_FLITS as u8,
            delay: 0,
        };
        Self {
            clock: Default::default(),
            reset: Default::default(),
            responses: Default::default(),
            flits: Default::default(),
            out_port: Default::default(),
            tail: Default::default(),
            dropped_no_route: Default::default(),
            checksum: ParallelCrc::new(&CRC16),
            position: Default::default(),
            dropped_pulse: Default::default(),
            current: Default::default(),
            no_route: Default::default(),
            head: Default::default(),
            forward: Default::default(),
            forward_high: Default::default(),
            current_sent: Default::default(),
            forward_sent: Default::default(),
            hop_lsbs: (0..ROUTE_HOPS).map(|i| constant(hop_lsb(i))).collect(),
            word_lsbs: (0..mgmt::MGMT_WORDS)
                .map(|w| constant(mgmt::beat_word_lsb(w)))
                .collect(),
            positions: (0..MGMT_FLITS).map(constant).collect(),
            position_tail: constant(MGMT_FLITS - 1),
            position_forward: constant(1 + mgmt::W_FORWARD),
            route_hops: constant(ROUTE_HOPS),
            head_constant: flit_constant(flit::Flit::Head(head).pack() as u64, false),
            body_bit: flit_constant(0, true),
            tail_bit: flit_constant(1 << flit::TAIL_BIT, false),
            current_mask: Constant::new(Bits::from(
                !((mgmt::CURRENT.max() as u64) << mgmt::CURRENT.lsb),
            )),
            current_lsb: constant(mgmt::CURRENT.lsb),
            forward_lsb: constant(mgmt::beat_word_lsb(mgmt::W_FORWARD)),
            forward_high_lsb: constant(mgmt::beat_word_lsb(mgmt::W_FORWARD_HIGH)),
            src_lsb: constant(mgmt::BEAT_SRC_LSB),
            dst_lsb: constant(mgmt::BEAT_DST_LSB),
            header_src_shift: constant(header::SRC.lsb),
            header_dst_shift: constant(header::DST.lsb),
            current_shift: constant(mgmt::CURRENT.lsb),
        }
    }
}

impl Logic for NmpPacker {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, position, dropped_pulse);
        clock!(self, clock, checksum);
        self.forward.next = self
            .responses
            .data
            .val()
            .get_bits::<64>(self.forward_lsb.val().index());
        self.forward_high.next = self
            .responses
            .data
            .val()
            .get_bits::<64>(self.forward_high_lsb.val().index());
        self.current.next = self
            .forward
            .val()
            .get_bits::<5>(self.current_lsb.val().index());
        self.no_route.next =
            (self.current.val() == 0) | (self.current.val() > self.route_hops.val());
        // The output port: hops[current - 1], in w1 for hops 0..9, in w2 for 10..19.
        self.out_port.next = 0.into();
        for i in 0..10 {
            if self.current.val().index() == i + 1 {
                self.out_port.next = self
                    .forward
                    .val()
                    .get_bits::<5>(self.hop_lsbs[i].val().index());
            }
        }
        for i in 10..20 {
            if self.current.val().index() == i + 1 {
                self.out_port.next = self
                    .forward_high
                    .val()
                    .get_bits::<5>(self.hop_lsbs[i].val().index());
            }
        }
        self.current_sent.next = self.current.val() - 1;
        self.forward_sent.next = (self.forward.val() & self.current_mask.val())
            | (bit_cast::<64, 5>(self.current_sent.val()) << self.current_shift.val());
        self.head.next = self.head_constant.val()
            | (bit_cast::<FLIT_BITS, 16>(
                self.responses
                    .data
                    .val()
                    .get_bits::<16>(self.src_lsb.val().index()),
            ) << self.header_src_shift.val())
            | (bit_cast::<FLIT_BITS, 16>(
                self.responses
                    .data
                    .val()
                    .get_bits::<16>(self.dst_lsb.val().index()),
            ) << self.header_dst_shift.val());
        // The flit at this position.
        self.flits.data.next = self.head.val();
        // A body flit is its word with the type bit set: 65 bits are read from the word's
        // place (the 65th belongs to the next word, or to `src`) and the type bit is forced,
        // since rust-hdl cannot `bit_cast` inside a loop.
        for i in 0..8 {
            if self.position.q.val() == self.positions[i + 1].val() {
                self.flits.data.next = self.body_bit.val()
                    | self
                        .responses
                        .data
                        .val()
                        .get_bits::<FLIT_BITS>(self.word_lsbs[i].val().index());
            }
        }
        if self.position.q.val() == self.position_forward.val() {
            self.flits.data.next =
                self.body_bit.val() | bit_cast::<FLIT_BITS, 64>(self.forward_sent.val());
        }
        self.tail.next = self.position.q.val() == self.position_tail.val();
        if self.position.q.val() == self.position_tail.val() {
            self.flits.data.next =
                self.tail_bit.val() | bit_cast::<FLIT_BITS, 16>(self.checksum.crc.val());
        }
        self.flits.valid.next = self.responses.valid.val() & !self.no_route.val();
        self.responses.ready.next = (self.flits.ready.val()
            & (self.position.q.val() == self.position_tail.val()))
            | (self.no_route.val() & (self.position.q.val() == self.positions[0].val()));
        self.dropped_pulse.d.next =
            self.responses.valid.val() & self.responses.ready.val() & self.no_route.val();
        self.checksum.reset.next = self.reset.val();
        self.checksum.start.next = self.position.q.val() == self.positions[0].val();
        self.checksum.valid.next = self.flits.valid.val()
            & self.flits.ready.val()
            & (self.position.q.val() != self.position_tail.val());
        self.checksum.data.next = bit_cast::<64, FLIT_BITS>(self.flits.data.val());
        if self.flits.valid.val() & self.flits.ready.val() {
            self.position.d.next = self.position.q.val() + 1;
            if self.position.q.val() == self.position_tail.val() {
                self.position.d.next = 0.into();
            }
        }
        if self.reset.val() {
            self.position.d.next = 0.into();
            self.dropped_pulse.d.next = false;
            self.flits.valid.next = false;
            self.responses.ready.next = false;
        }
        self.dropped_no_route.next = self.dropped_pulse.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nmp_packer_is_synthesizable() {
        let mut uut = NmpPacker::new(3);
        uut.connect_all();
        yosys_validate("nmp_packer", &generate_verilog(&uut)).unwrap();
    }

    #[test]
    #[should_panic(expected = "NmpPacker: mgmt_vc = 8 does not fit the header's vc field")]
    fn nmp_packer_rejects_a_wide_vc() {
        let _ = NmpPacker::new(8);
    }
}
