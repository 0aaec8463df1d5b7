//! `ReceiveBuffer`: network flits in, checked packets out (`docs/nic-design.md`, "Receive
//! buffer"). Nothing of a packet leaves before its tail: CRC-16, every format rule of
//! `NicPacket::unpack`, the size limit and the QP lookup of its target; a dropped packet
//! pulses one reason and gives its words back.
//!
//! ```text
//! flits ─► PacketCheck ──payload words──► PacketRam (commit / drop) ─words─┐
//!              │ segment end (summary, tail)                                ▼
//!              ▼                                                       PacketOutput ─► packets
//!        ReceiveVerdict ◄─► lookup        └─record (good packets)─► record FIFO ─┘
//!              └─► errors (one-event slot), pulses
//! ```
//!
//! - [`PacketCheck`]: segments, flit types, `len`, size, running CRC, payload writes.
//! - [`ReceiveVerdict`]: structure, CRC, `PacketRules`, the lookup, the outcome.
//! - [`PacketRam`]: `2^RAW` payload words in one block RAM; a good packet's words are
//!   committed by its verdict, a dropped packet's given back.
//! - The record FIFO (4 records in registers): header flit, kind, source node, delay, tail
//!   identifiers of each good packet.
//! - [`PacketOutput`]: record and words joined into `ReceivedPacketSource`.
//!
//! **Handshake**: `flits` are whole packets, flits consecutive (valid/ready). `flits.ready`
//! is low only when the flit would be written into a full packet RAM, or while a verdict is
//! due and the flit would be written or would end a packet (a verdict waits for the lookup,
//! and for room in the record FIFO before it asks). With the lookup taken at once, good
//! packets back to back are taken one flit per cycle: the verdict of packet `n` ends before
//! the first payload flit of `n + 1` arrives (its head and header flit come first).
//! `packets` obeys the hold rule; `errors` too.
//!
//! **Latency**: tail taken on edge `c`, lookup offered in `c + 1`; taken at once, the
//! first payload word is offered in `c + 3`.
//!
//! **Reset** (synchronous): every stage empty, no segment open, the event slot empty; a lookup
//! answer due is ignored.
//!
//! Parameters: `RAW` packet-RAM address bits, `CW = RAW + 1`; elaboration value
//! `max_packet_flits` (4..=255; `2^RAW >= 2 x max_packet_flits`, so packet `n + 1` arrives
//! while packet `n` drains).
use super::packet_check::PacketCheck;
use super::packet_output::PacketOutput;
use super::packet_ram::PacketRam;
use super::receive_verdict::{ReceiveVerdict, RECORD_BITS};
use super::ReceivedPacketSource;
use crate::events::EventRequestSource;
use crate::function_table::QpLookupSource;
use hdl::formats::FLIT_BITS;
use hdl::stream::{StreamSink, StreamSource};
use hdl::stream_fifo;
use rust_hdl::prelude::*;

/// Records (good packets) the record FIFO holds.
pub const RECORD_DEPTH: usize = 4;

/// The receive buffer; see the module documentation.
#[derive(LogicBlock)]
pub struct ReceiveBuffer<const RAW: usize, const CW: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Flits of whole packets.
    pub flits: StreamSink<Bits<FLIT_BITS>>,
    /// Checked packets.
    pub packets: ReceivedPacketSource,
    /// The QP lookup of each packet's target (the function table's answer the cycle after).
    pub lookup: QpLookupSource,
    /// Error events (key mismatch, disabled target) to the target QP's receive ring.
    pub errors: EventRequestSource,
    /// Pulse: a good packet passed its verdict.
    pub received: Signal<Out, bool>,
    /// Pulse: a packet dropped for its CRC-16.
    pub crc_error: Signal<Out, bool>,
    /// Pulse: a segment dropped as malformed.
    pub malformed: Signal<Out, bool>,
    /// Pulse: a packet dropped, QPMagic not the target QP's key.
    pub key_mismatch: Signal<Out, bool>,
    /// Pulse: a packet dropped, target function or QP disabled or not owned.
    pub target_refused: Signal<Out, bool>,
    /// Pulse: an error event not posted (the slot was busy).
    pub event_lost: Signal<Out, bool>,
    check: PacketCheck,
    verdict: ReceiveVerdict,
    ram: PacketRam<RAW, CW>,
    records: stream_fifo!(Bits<RECORD_BITS>, RECORD_DEPTH),
    reader: PacketOutput,
    /// The record FIFO's fill: the verdict looks at its `ready` instead.
    record_count_unused: Signal<Local, bool>,
}

impl<const RAW: usize, const CW: usize> ReceiveBuffer<RAW, CW> {
    /// A receive buffer for packets of at most `max_packet_flits` flits. Panics unless
    /// `2^RAW >= 2 x max_packet_flits` (and `PacketCheck`'s and `PacketRam`'s own rules).
    pub fn new(max_packet_flits: usize) -> Self {
        assert!(
            (1usize << RAW) >= 2 * max_packet_flits,
            "ReceiveBuffer: 2^RAW = {} words, need at least 2 x max_packet_flits = {}",
            1usize << RAW,
            2 * max_packet_flits
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            flits: Default::default(),
            packets: Default::default(),
            lookup: Default::default(),
            errors: Default::default(),
            received: Default::default(),
            crc_error: Default::default(),
            malformed: Default::default(),
            key_mismatch: Default::default(),
            target_refused: Default::default(),
            event_lost: Default::default(),
            check: PacketCheck::new(max_packet_flits),
            verdict: Default::default(),
            ram: PacketRam::new(),
            records: Default::default(),
            reader: Default::default(),
            record_count_unused: Default::default(),
        }
    }
}

impl<const RAW: usize, const CW: usize> Logic for ReceiveBuffer<RAW, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, check, verdict, ram, records, reader);
        self.check.reset.next = self.reset.val();
        self.verdict.reset.next = self.reset.val();
        self.ram.reset.next = self.reset.val();
        self.records.reset.next = self.reset.val();
        self.reader.reset.next = self.reset.val();
        // Input stage.
        StreamSink::<Bits<FLIT_BITS>>::link(&mut self.flits, &mut self.check.flits);
        self.check.ram_full.next = self.ram.full.val();
        self.check.verdict_free.next = self.verdict.free.val();
        self.ram.write.next = self.check.write.val();
        self.ram.word.next = self.check.word.val();
        // Verdict.
        self.verdict.ended.next = self.check.ended.val();
        self.verdict.structure_ok.next = self.check.structure_ok.val();
        self.verdict.crc_ok.next = self.check.crc_ok.val();
        self.verdict.kind.next = self.check.kind.val();
        self.verdict.src_node.next = self.check.src_node.val();
        self.verdict.delay.next = self.check.delay.val();
        self.verdict.header.next = self.check.header.val();
        self.verdict.last_word.next = self.check.last_word.val();
        self.verdict.payload_words.next = self.check.payload_words.val();
        self.verdict.tail.next = self.flits.data.val().get_bits::<64>(0);
        QpLookupSource::link(&mut self.lookup, &mut self.verdict.lookup);
        EventRequestSource::link(&mut self.errors, &mut self.verdict.errors);
        self.ram.commit.next = self.verdict.record_push.val();
        self.ram.drop.next = self.verdict.drop.val();
        self.records.sink.valid.next = self.verdict.record_push.val();
        self.records.sink.data.next = self.verdict.record.val();
        self.verdict.record_room.next = self.records.sink.ready.val();
        self.record_count_unused.next = self.records.count.val().any();
        // Read side.
        StreamSource::<Bits<RECORD_BITS>>::join(&mut self.records.source, &mut self.reader.records);
        StreamSource::<Bits<64>>::join(&mut self.ram.words, &mut self.reader.words);
        ReceivedPacketSource::link(&mut self.packets, &mut self.reader.packets);
        // Outcomes.
        self.received.next = self.verdict.received.val();
        self.crc_error.next = self.verdict.crc_error.val();
        self.malformed.next = self.verdict.malformed.val();
        self.key_mismatch.next = self.verdict.key_mismatch.val();
        self.target_refused.next = self.verdict.target_refused.val();
        self.event_lost.next = self.verdict.event_lost.val();
    }
}

#[test]
fn receive_buffer_is_synthesizable() {
    let mut uut = ReceiveBuffer::<6, 7>::new(32);
    uut.connect_all();
    yosys_validate("receive_buffer", &generate_verilog(&uut)).unwrap();
}
