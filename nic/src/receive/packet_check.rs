//! `PacketCheck`: the receive buffer's input stage (`docs/nic-design.md`, "Receive buffer"):
//! cuts the flit stream into segments, checks each flit's type against its position, keeps
//! the running CRC-16, captures the fields the verdict needs and writes the payload flits
//! into the packet RAM.
//!
//! **Segments**: a head flit always starts one (ending the one in progress, which is then
//! cut short: malformed); a tail flit ends one; any other flit outside a segment starts one
//! that is malformed from its first flit (it did not begin with a head). So every flit
//! belongs to exactly one segment and each segment gets exactly one outcome, which is how the
//! model reads the stream too (`NicPacket::unpack` of each segment).
//!
//! **Structure** (the `NicPacket::unpack` rules before its CRC, and the size limit): the
//! first flit a head with its reserved bits zero and kind NAP, PUT or GET; then body flits;
//! the tail last; `len` equal to the flits; at least 4 flits; at most `max_packet_flits`.
//! A payload flit past `max_packet_flits - 2` is not written (the segment is already too long);
//! the segment goes on, swallowing flits, until its tail or the next head.
//!
//! **CRC**: a `ParallelCrc` over the head (with `delay` zeroed: routers add to it) and body
//! flits, continued over the tail's 46 spare bits by a `CrcStep` in the tail's cycle, as the
//! send side's `PacketFlit` does; `crc_ok` compares with the tail's CRC-16.
//!
//! **Handshake**: `flits.ready` is low only when the flit must write the RAM and the RAM is
//! `full` or a verdict is still due (`verdict_free` low: a dropped packet gives its words
//! back by moving the write pointer, so nothing may be written behind it), or when the flit
//! ends a segment and `verdict_free` is low. `ended` pulses on the edge a segment's last flit
//! is taken; the summary outputs describe it in that cycle (the tail is `flits.data`).
//!
//! Latency: none (the summary is combinational in the end cycle). Reset (synchronous): no
//! segment open. Parameters: elaboration value `max_packet_flits` (4..=255).
use crate::receive::{DELAY_BITS, PACKET_KIND_BITS};
use hdl::bits::constant;
use hdl::crc::{CrcStep, ParallelCrc, CRC16};
use hdl::formats::flit::{HEAD_BIT, TAIL_BIT, TAIL_CRC, TYPE_BIT};
use hdl::formats::header::{DELAY, KIND, LEN, RSVD, SRC};
use hdl::formats::mgmt::CRC_HEAD_MASK;
use hdl::formats::nic::TAIL_SPARE_BITS;
use hdl::formats::{PacketKind, FLIT_BITS};
use hdl::stream::StreamSink;
use rust_hdl::prelude::*;

// `update` reads fields at literal offsets (a `get_bits` offset must be a literal there); they
// are the codec's:
const _: () = assert!(SRC.lsb == 16);
const _: () = assert!(KIND.lsb == 35);
const _: () = assert!(LEN.lsb == 39);
const _: () = assert!(DELAY.lsb == 47);
const _: () = assert!(RSVD.lsb == 59);
const _: () = assert!(TAIL_CRC.width == 16);

/// Bits of a flit count (a fabric packet has at most 255 flits; the count saturates).
pub const COUNT_BITS: usize = 8;
// `update` reads the flit-type bits by number (an index must be a literal there).
const _: () = assert!(TYPE_BIT == 64 && HEAD_BIT == 63 && TAIL_BIT == 62);

/// The input stage; see the module documentation.
#[derive(LogicBlock)]
pub struct PacketCheck {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Flits of whole packets.
    pub flits: StreamSink<Bits<FLIT_BITS>>,
    /// The packet RAM has no free slot.
    pub ram_full: Signal<In, bool>,
    /// The verdict stage can take a segment (no verdict due).
    pub verdict_free: Signal<In, bool>,
    /// Write `word` into the packet RAM on this edge.
    pub write: Signal<Out, bool>,
    /// The payload word to write.
    pub word: Signal<Out, Bits<64>>,
    /// A segment ends on this edge.
    pub ended: Signal<Out, bool>,
    /// The ending segment passed the structure rules.
    pub structure_ok: Signal<Out, bool>,
    /// The ending segment's CRC-16 is right (meaningful with `structure_ok`).
    pub crc_ok: Signal<Out, bool>,
    /// The ending segment's kind code.
    pub kind: Signal<Out, Bits<PACKET_KIND_BITS>>,
    /// Its source node.
    pub src_node: Signal<Out, Bits<16>>,
    /// Its head's `delay`.
    pub delay: Signal<Out, Bits<DELAY_BITS>>,
    /// Its header flit.
    pub header: Signal<Out, Bits<64>>,
    /// Its last payload flit.
    pub last_word: Signal<Out, Bits<64>>,
    /// Its payload flits (flits minus 3).
    pub payload_words: Signal<Out, Bits<COUNT_BITS>>,
    checksum: ParallelCrc<16, 64>,
    tail_crc: CrcStep<16, TAIL_SPARE_BITS>,
    /// Inside a segment.
    open: DFF<bool>,
    /// Flits of the segment taken so far (saturating).
    count: DFF<Bits<COUNT_BITS>>,
    /// No structure rule broken so far.
    sound: DFF<bool>,
    held_kind: DFF<Bits<PACKET_KIND_BITS>>,
    held_src: DFF<Bits<16>>,
    held_delay: DFF<Bits<DELAY_BITS>>,
    held_len: DFF<Bits<COUNT_BITS>>,
    held_header: DFF<Bits<64>>,
    held_last: DFF<Bits<64>>,
    data: Signal<Local, Bits<64>>,
    is_head: Signal<Local, bool>,
    is_tail: Signal<Local, bool>,
    is_body: Signal<Local, bool>,
    head_sound: Signal<Local, bool>,
    payload: Signal<Local, bool>,
    storable: Signal<Local, bool>,
    ends: Signal<Local, bool>,
    take: Signal<Local, bool>,
    count_after: Signal<Local, Bits<COUNT_BITS>>,
    head_kind: Signal<Local, Bits<PACKET_KIND_BITS>>,
    head_reserved: Signal<Local, Bits<3>>,
    crc_head_mask: Constant<Bits<64>>,
    /// The highest NIC kind code (GET).
    last_kind: Constant<Bits<PACKET_KIND_BITS>>,
    one: Constant<Bits<COUNT_BITS>>,
    two: Constant<Bits<COUNT_BITS>>,
    three: Constant<Bits<COUNT_BITS>>,
    four: Constant<Bits<COUNT_BITS>>,
    saturated: Constant<Bits<COUNT_BITS>>,
    max_flits: Constant<Bits<COUNT_BITS>>,
    /// The last flit index a payload flit may have: `max_packet_flits - 2`.
    last_payload_index: Constant<Bits<COUNT_BITS>>,
}

impl PacketCheck {
    /// The input stage for packets of at most `max_packet_flits` flits (4..=255).
    pub fn new(max_packet_flits: usize) -> Self {
        assert!(
            (4..=255).contains(&max_packet_flits),
            "PacketCheck: max_packet_flits = {max_packet_flits}, must be 4..=255"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            flits: Default::default(),
            ram_full: Default::default(),
            verdict_free: Default::default(),
            write: Default::default(),
            word: Default::default(),
            ended: Default::default(),
            structure_ok: Default::default(),
            crc_ok: Default::default(),
            kind: Default::default(),
            src_node: Default::default(),
            delay: Default::default(),
            header: Default::default(),
            last_word: Default::default(),
            payload_words: Default::default(),
            checksum: ParallelCrc::new(&CRC16),
            tail_crc: CrcStep::new(&CRC16),
            open: Default::default(),
            count: Default::default(),
            sound: Default::default(),
            held_kind: Default::default(),
            held_src: Default::default(),
            held_delay: Default::default(),
            held_len: Default::default(),
            held_header: Default::default(),
            held_last: Default::default(),
            data: Default::default(),
            is_head: Default::default(),
            is_tail: Default::default(),
            is_body: Default::default(),
            head_sound: Default::default(),
            payload: Default::default(),
            storable: Default::default(),
            ends: Default::default(),
            take: Default::default(),
            count_after: Default::default(),
            head_kind: Default::default(),
            head_reserved: Default::default(),
            crc_head_mask: constant(CRC_HEAD_MASK),
            last_kind: constant(PacketKind::Get.code() as u64),
            one: constant(1),
            two: constant(2),
            three: constant(3),
            four: constant(4),
            saturated: constant(255),
            max_flits: constant(max_packet_flits as u64),
            last_payload_index: constant(max_packet_flits as u64 - 2),
        }
    }
}

impl Logic for PacketCheck {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            open,
            count,
            sound,
            held_kind,
            held_src,
            held_delay,
            held_len,
            held_header,
            held_last
        );
        clock!(self, clock, checksum);
        // The flit's type (link digest: type bit, head bit, tail bit).
        self.data.next = self.flits.data.val().get_bits::<64>(0);
        self.is_body.next = self.flits.data.val().get_bit(64);
        self.is_head.next = !self.flits.data.val().get_bit(64) & self.flits.data.val().get_bit(63);
        self.is_tail.next = !self.flits.data.val().get_bit(64)
            & !self.flits.data.val().get_bit(63)
            & self.flits.data.val().get_bit(62);
        self.head_kind.next = self.data.val().get_bits::<PACKET_KIND_BITS>(35);
        self.head_reserved.next = self.data.val().get_bits::<3>(59);
        self.head_sound.next = !self.flits.data.val().get_bit(62)
            & !self.head_reserved.val().any()
            & (self.head_kind.val() <= self.last_kind.val());
        // A payload flit: a body after the header flit; stored while the segment is sound
        // and not yet too long.
        self.payload.next =
            self.open.q.val() & self.is_body.val() & (self.count.q.val() >= self.two.val());
        self.storable.next = self.payload.val()
            & self.sound.q.val()
            & (self.count.q.val() <= self.last_payload_index.val());
        self.ends.next = self.is_tail.val() | (self.is_head.val() & self.open.q.val());
        self.flits.ready.next = !(self.storable.val()
            & (self.ram_full.val() | !self.verdict_free.val()))
            & !(self.ends.val() & !self.verdict_free.val());
        self.take.next = self.flits.valid.val() & self.flits.ready.val();
        self.write.next = self.take.val() & self.storable.val();
        self.word.next = self.data.val();

        // The ending segment's summary (`ended` in this cycle).
        self.count_after.next = self.count.q.val() + self.one.val();
        if self.count.q.val() == self.saturated.val() {
            self.count_after.next = self.saturated.val();
        }
        self.ended.next = self.take.val() & self.ends.val();
        self.structure_ok.next = self.is_tail.val()
            & self.open.q.val()
            & self.sound.q.val()
            & (self.count_after.val() == self.held_len.q.val())
            & (self.count_after.val() >= self.four.val())
            & (self.count_after.val() <= self.max_flits.val());
        self.tail_crc.state.next = self.checksum.crc.val();
        self.tail_crc.data.next = self.data.val().get_bits::<TAIL_SPARE_BITS>(16);
        self.crc_ok.next = self.tail_crc.next_state.val() == self.data.val().get_bits::<16>(0);
        self.kind.next = self.held_kind.q.val();
        self.src_node.next = self.held_src.q.val();
        self.delay.next = self.held_delay.q.val();
        self.header.next = self.held_header.q.val();
        self.last_word.next = self.held_last.q.val();
        self.payload_words.next = self.count_after.val() - self.three.val();

        // The running CRC: head (delay zeroed) and body flits of the segment.
        self.checksum.reset.next = self.reset.val();
        self.checksum.start.next = self.take.val() & self.is_head.val();
        self.checksum.valid.next = self.take.val() & !self.is_tail.val();
        self.checksum.data.next = self.data.val();
        if self.is_head.val() {
            self.checksum.data.next = self.data.val() & self.crc_head_mask.val();
        }

        // The segment's state.
        if self.take.val() {
            if self.is_head.val() {
                self.open.d.next = true;
                self.count.d.next = self.one.val();
                self.sound.d.next = self.head_sound.val();
                self.held_kind.d.next = self.head_kind.val();
                self.held_src.d.next = self.data.val().get_bits::<16>(16);
                self.held_delay.d.next = self.data.val().get_bits::<DELAY_BITS>(47);
                self.held_len.d.next = self.data.val().get_bits::<COUNT_BITS>(39);
            } else if !self.open.q.val() {
                // Not a head outside a segment: a malformed segment begins (and ends at once
                // if the flit is a tail).
                self.open.d.next = !self.is_tail.val();
                self.count.d.next = self.one.val();
                self.sound.d.next = false;
            } else {
                self.count.d.next = self.count_after.val();
                if self.is_tail.val() {
                    self.open.d.next = false;
                } else {
                    if !self.is_body.val() {
                        self.sound.d.next = false;
                    }
                    if self.count.q.val() == self.one.val() {
                        self.held_header.d.next = self.data.val();
                    }
                    if self.payload.val() {
                        self.held_last.d.next = self.data.val();
                        if self.count.q.val() > self.last_payload_index.val() {
                            self.sound.d.next = false;
                        }
                    }
                }
            }
        }
        if self.reset.val() {
            self.open.d.next = false;
            self.count.d.next = 0.into();
            self.sound.d.next = false;
        }
    }
}

#[test]
fn packet_check_is_synthesizable() {
    let mut uut = PacketCheck::new(32);
    uut.connect_all();
    yosys_validate("packet_check", &generate_verilog(&uut)).unwrap();
}
