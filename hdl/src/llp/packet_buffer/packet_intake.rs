//! Packet intake: the first stage of a [`PacketBuffer`](super::PacketBuffer). Takes every flit
//! offered on `sink` (`ready` is always high: flow control is by credits), decodes it with a
//! [`FlitDecoder`] and registers it with its class and the length tests of a head, so the
//! packet checker's decisions start at flip-flops (timing). Control flits other than the
//! bad-packet markers and malformed encodings (Idle, CrdtRet, VlMrkr, LinkTransfer: they should
//! never reach a VC buffer) are not registered: they are ignored, no credit returned.
//!
//! `flit` holds the flit accepted on the previous edge for one cycle (no handshake: the
//! checker handles one flit per cycle). Synchronous `reset` empties the register (the flit of
//! the reset cycle is dropped).
use crate::flit_decoder::FlitDecoder;
use crate::formats::ControlCode;
use crate::formats::FLIT_BITS;
use crate::stream::StreamSink;
use rust_hdl::prelude::*;

/// A flit and its class, as the intake hands it to the checker (the intake's end).
#[derive(LogicInterface, Default)]
#[join = "ClassifiedFlitSink"]
pub struct ClassifiedFlitSource {
    /// A flit is held this cycle.
    pub valid: Signal<Out, bool>,
    /// The flit.
    pub data: Signal<Out, Bits<FLIT_BITS>>,
    /// A well-formed head.
    pub head: Signal<Out, bool>,
    /// A body.
    pub body: Signal<Out, bool>,
    /// A tail.
    pub tail: Signal<Out, bool>,
    /// A bad-packet marker or a malformed flit.
    pub bad: Signal<Out, bool>,
    /// A TailBadPkt marker (ends a discard).
    pub tail_marker: Signal<Out, bool>,
    /// The head's `len` field.
    pub len: Signal<Out, Bits<8>>,
    /// `len` is below 2 (no room for a head and a tail).
    pub short: Signal<Out, bool>,
    /// `len - 1`.
    pub len_less_one: Signal<Out, Bits<8>>,
    /// `len` is above 2 (a tail after the head alone would be early).
    pub longer_than_two: Signal<Out, bool>,
}

/// The checker's end of [`ClassifiedFlitSource`].
#[derive(LogicInterface, Default)]
#[join = "ClassifiedFlitSource"]
pub struct ClassifiedFlitSink {
    /// A flit is held this cycle.
    pub valid: Signal<In, bool>,
    /// The flit.
    pub data: Signal<In, Bits<FLIT_BITS>>,
    /// A well-formed head.
    pub head: Signal<In, bool>,
    /// A body.
    pub body: Signal<In, bool>,
    /// A tail.
    pub tail: Signal<In, bool>,
    /// A bad-packet marker or a malformed flit.
    pub bad: Signal<In, bool>,
    /// A TailBadPkt marker.
    pub tail_marker: Signal<In, bool>,
    /// The head's `len` field.
    pub len: Signal<In, Bits<8>>,
    /// `len` is below 2.
    pub short: Signal<In, bool>,
    /// `len - 1`.
    pub len_less_one: Signal<In, Bits<8>>,
    /// `len` is above 2.
    pub longer_than_two: Signal<In, bool>,
}

/// The input register of a packet buffer with the decode of its flit.
#[derive(LogicBlock)]
pub struct PacketIntake {
    /// Clock of the register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: empties the register.
    pub reset: Signal<In, bool>,
    /// Flits of one VC; `ready` is always high.
    pub sink: StreamSink<Bits<FLIT_BITS>>,
    /// The flit accepted on the previous edge, classified.
    pub flit: ClassifiedFlitSource,
    /// The register is empty: no accepted flit is still to be handled.
    pub idle: Signal<Out, bool>,
    decoder: FlitDecoder,
    /// The decoder outputs this block does not read, acknowledged here (Verilator's lint
    /// passes names containing "unused"; nothing reads this, so synthesis removes it).
    unused_decoded: Signal<Local, bool>,
    held: DFF<bool>,
    data: DFF<Bits<FLIT_BITS>>,
    head: DFF<bool>,
    body: DFF<bool>,
    tail: DFF<bool>,
    bad: DFF<bool>,
    tail_marker: DFF<bool>,
    len: DFF<Bits<8>>,
    short: DFF<bool>,
    len_less_one: DFF<Bits<8>>,
    longer_than_two: DFF<bool>,
    code_tail_bad: Constant<Bits<6>>,
    one: Constant<Bits<8>>,
    two: Constant<Bits<8>>,
}

impl PacketIntake {
    /// The intake of one packet buffer.
    pub fn new() -> Self {
        Self {
            code_tail_bad: Constant::new((ControlCode::TailBadPkt.code() as usize).to_bits()),
            one: Constant::new(1usize.to_bits()),
            two: Constant::new(2usize.to_bits()),
            clock: Default::default(),
            reset: Default::default(),
            sink: Default::default(),
            flit: Default::default(),
            idle: Default::default(),
            decoder: Default::default(),
            unused_decoded: Default::default(),
            held: Default::default(),
            data: Default::default(),
            head: Default::default(),
            body: Default::default(),
            tail: Default::default(),
            bad: Default::default(),
            tail_marker: Default::default(),
            len: Default::default(),
            short: Default::default(),
            len_less_one: Default::default(),
            longer_than_two: Default::default(),
        }
    }
}

impl Default for PacketIntake {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for PacketIntake {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            held,
            data,
            head,
            body,
            tail,
            bad,
            tail_marker,
            len,
            short,
            len_less_one,
            longer_than_two
        );
        self.unused_decoded.next = self.decoder.is_idle.val()
            | self.decoder.is_credit.val()
            | self.decoder.is_link_transfer.val()
            | self.decoder.dst.val().any()
            | self.decoder.src.val().any()
            | self.decoder.vc.val().any()
            | self.decoder.kind.val().any()
            | self.decoder.delay.val().any()
            | self.decoder.ctrl_vc.val().any()
            | self.decoder.credits.val().any();
        self.decoder.flit.next = self.sink.data.val();
        self.sink.ready.next = true;
        self.idle.next = !self.held.q.val();
        self.held.d.next = self.sink.valid.val()
            & !(self.decoder.is_control.val()
                & !self.decoder.is_bad_marker.val()
                & !self.decoder.malformed.val());
        self.data.d.next = self.sink.data.val();
        self.head.d.next = self.decoder.is_head.val() & !self.decoder.malformed.val();
        self.body.d.next = self.decoder.is_body.val();
        self.tail.d.next = self.decoder.is_tail.val();
        self.bad.d.next = self.decoder.malformed.val() | self.decoder.is_bad_marker.val();
        self.tail_marker.d.next = self.decoder.is_bad_marker.val()
            & (self.decoder.code.val() == self.code_tail_bad.val());
        self.len.d.next = self.decoder.len.val();
        self.short.d.next = self.decoder.len.val() < self.two.val();
        self.len_less_one.d.next = self.decoder.len.val() - self.one.val();
        self.longer_than_two.d.next = self.decoder.len.val() > self.two.val();
        if self.reset.val() {
            self.held.d.next = false;
        }

        self.flit.valid.next = self.held.q.val();
        self.flit.data.next = self.data.q.val();
        self.flit.head.next = self.head.q.val();
        self.flit.body.next = self.body.q.val();
        self.flit.tail.next = self.tail.q.val();
        self.flit.bad.next = self.bad.q.val();
        self.flit.tail_marker.next = self.tail_marker.q.val();
        self.flit.len.next = self.len.q.val();
        self.flit.short.next = self.short.q.val();
        self.flit.len_less_one.next = self.len_less_one.q.val();
        self.flit.longer_than_two.next = self.longer_than_two.q.val();
    }
}

#[test]
fn packet_intake_is_synthesizable() {
    let mut uut = PacketIntake::new();
    uut.connect_all();
    yosys_validate("packet_intake", &generate_verilog(&uut)).unwrap();
}
