//! The classifier in front of each of [`TxLink`](super::TxLink)'s VC queues: the flit with its
//! class bits ([`Q_DROP`], [`Q_HEAD`], [`Q_END`]) and a head's LEN field from bit [`Q_LEN`].
//!
//! Why before the queue: the arbiter then reads the class from the queue's flip-flops instead
//! of decoding the flit it picked, which had put decode, arbitration and the pop into one
//! cycle's path. Combinational, no latency of its own (the queue behind it registers the word).
use super::{class_bit, Q_BITS, Q_DROP, Q_END, Q_HEAD, Q_LEN};
use crate::flit_decoder::FlitDecoder;
use crate::formats::FLIT_BITS;
use rust_hdl::prelude::*;

/// Classifies a core's flit for [`TxLink`](super::TxLink)'s sinks: the flit with its class bits.
#[derive(LogicBlock)]
pub struct TxClassifier {
    /// The flit.
    pub flit: Signal<In, Bits<FLIT_BITS>>,
    /// The flit with its class bits.
    pub word: Signal<Out, Bits<Q_BITS>>,
    decoder: FlitDecoder,
    /// The decoder outputs this block does not read, acknowledged here (Verilator's lint
    /// passes names containing "unused"; nothing reads this, so synthesis removes it).
    unused_decoded: Signal<Local, bool>,
    code_vl_mrkr: Constant<Bits<6>>,
    code_tail_bad: Constant<Bits<6>>,
    q_drop: Constant<Bits<Q_BITS>>,
    q_head: Constant<Bits<Q_BITS>>,
    q_end: Constant<Bits<Q_BITS>>,
    q_len_lsb: Constant<Bits<8>>,
}

impl Default for TxClassifier {
    fn default() -> Self {
        use crate::formats::ControlCode;
        let code = |c: ControlCode| Constant::new((c.code() as u64).into());
        Self {
            flit: Default::default(),
            word: Default::default(),
            decoder: Default::default(),
            unused_decoded: Default::default(),
            code_vl_mrkr: code(ControlCode::VlMrkr),
            code_tail_bad: code(ControlCode::TailBadPkt),
            q_drop: class_bit(Q_DROP),
            q_head: class_bit(Q_HEAD),
            q_end: class_bit(Q_END),
            q_len_lsb: Constant::new((Q_LEN as u64).into()),
        }
    }
}

impl Logic for TxClassifier {
    #[hdl_gen]
    fn update(&mut self) {
        self.decoder.flit.next = self.flit.val();
        self.unused_decoded.next = self.decoder.is_body.val()
            | self.decoder.is_bad_marker.val()
            | self.decoder.malformed.val()
            | self.decoder.dst.val().any()
            | self.decoder.src.val().any()
            | self.decoder.vc.val().any()
            | self.decoder.kind.val().any()
            | self.decoder.delay.val().any()
            | self.decoder.ctrl_vc.val().any()
            | self.decoder.credits.val().any();
        self.word.next = bit_cast::<Q_BITS, FLIT_BITS>(self.flit.val());
        if self.decoder.is_idle.val()
            | self.decoder.is_credit.val()
            | (self.decoder.is_control.val() & (self.decoder.code.val() == self.code_vl_mrkr.val()))
            | self.decoder.is_link_transfer.val()
        {
            self.word.next = self.word.val() | self.q_drop.val();
        }
        if self.decoder.is_head.val() {
            self.word.next = self.word.val()
                | self.q_head.val()
                | (bit_cast::<Q_BITS, 8>(self.decoder.len.val()) << self.q_len_lsb.val());
        }
        if self.decoder.is_tail.val()
            | (self.decoder.is_control.val()
                & (self.decoder.code.val() == self.code_tail_bad.val()))
        {
            self.word.next = self.word.val() | self.q_end.val();
        }
    }
}

#[test]
fn tx_classifier_is_synthesizable() {
    let mut uut = TxClassifier::default();
    uut.connect_all();
    yosys_validate("tx_classifier", &generate_verilog(&uut)).unwrap();
}
