//! Flit decoder: classifies a 65-bit flit and extracts its header and control fields.
//!
//! Purely combinational. Bit positions come from the format tables in [`crate::formats`] through
//! `Constant`s, so hardware and software read the same definition; field widths are literals in
//! `get_bits::<W>` (rust-hdl cannot take them from a table) and a test checks they match.
//! `malformed` flags every reserved encoding: head and tail bits both set, a reserved control
//! code, or a head flit whose kind is reserved. Receivers drop and count such flits.
use crate::formats::FLIT_BITS;
use crate::formats::{flit, header, ControlCode, PacketKind};
use rust_hdl::prelude::*;

/// Decodes one flit.
#[derive(LogicBlock)]
pub struct FlitDecoder {
    /// The flit (bit 64 is the type bit).
    pub flit: Signal<In, Bits<FLIT_BITS>>,
    /// Body flit.
    pub is_body: Signal<Out, bool>,
    /// Head flit (well-formed or not).
    pub is_head: Signal<Out, bool>,
    /// Tail flit.
    pub is_tail: Signal<Out, bool>,
    /// Control flit (any code).
    pub is_control: Signal<Out, bool>,
    /// Idle control flit.
    pub is_idle: Signal<Out, bool>,
    /// Credit-return control flit.
    pub is_credit: Signal<Out, bool>,
    /// HeadBadPkt, BodyBadPkt or TailBadPkt marker.
    pub is_bad_marker: Signal<Out, bool>,
    /// Link-transfer control flit (codes 0x20..0x3f).
    pub is_link_transfer: Signal<Out, bool>,
    /// A reserved encoding.
    pub malformed: Signal<Out, bool>,
    /// Control code (valid when `is_control`).
    pub code: Signal<Out, Bits<6>>,
    /// Header: destination node (valid when `is_head`).
    pub dst: Signal<Out, Bits<16>>,
    /// Header: source node.
    pub src: Signal<Out, Bits<16>>,
    /// Header: virtual channel.
    pub vc: Signal<Out, Bits<3>>,
    /// Header: packet kind.
    pub kind: Signal<Out, Bits<4>>,
    /// Header: length in flits.
    pub len: Signal<Out, Bits<8>>,
    /// Header: accumulated delay.
    pub delay: Signal<Out, Bits<12>>,
    /// Control: VC of a CrdtRet or VLMrkr.
    pub ctrl_vc: Signal<Out, Bits<3>>,
    /// Control: credits of a CrdtRet.
    pub credits: Signal<Out, Bits<16>>,
    type_bit: Constant<Bits<7>>,
    head_bit: Constant<Bits<7>>,
    tail_bit: Constant<Bits<7>>,
    code_lsb: Constant<Bits<7>>,
    dst_lsb: Constant<Bits<7>>,
    src_lsb: Constant<Bits<7>>,
    vc_lsb: Constant<Bits<7>>,
    kind_lsb: Constant<Bits<7>>,
    len_lsb: Constant<Bits<7>>,
    delay_lsb: Constant<Bits<7>>,
    ctrl_vc_lsb: Constant<Bits<7>>,
    credits_lsb: Constant<Bits<7>>,
    code_idle: Constant<Bits<6>>,
    code_credit: Constant<Bits<6>>,
    code_bad_first: Constant<Bits<6>>,
    code_bad_last: Constant<Bits<6>>,
    code_lt_first: Constant<Bits<6>>,
    kind_limit: Constant<Bits<4>>,
}

fn pos(v: usize) -> Constant<Bits<7>> {
    Constant::new(Bits::from(v as u64))
}

fn code(c: ControlCode) -> Constant<Bits<6>> {
    Constant::new(Bits::from(c.code() as u64))
}

impl Default for FlitDecoder {
    fn default() -> Self {
        Self {
            flit: Default::default(),
            is_body: Default::default(),
            is_head: Default::default(),
            is_tail: Default::default(),
            is_control: Default::default(),
            is_idle: Default::default(),
            is_credit: Default::default(),
            is_bad_marker: Default::default(),
            is_link_transfer: Default::default(),
            malformed: Default::default(),
            code: Default::default(),
            dst: Default::default(),
            src: Default::default(),
            vc: Default::default(),
            kind: Default::default(),
            len: Default::default(),
            delay: Default::default(),
            ctrl_vc: Default::default(),
            credits: Default::default(),
            type_bit: pos(flit::TYPE_BIT),
            head_bit: pos(flit::HEAD_BIT),
            tail_bit: pos(flit::TAIL_BIT),
            code_lsb: pos(flit::CODE.lsb),
            dst_lsb: pos(header::DST.lsb),
            src_lsb: pos(header::SRC.lsb),
            vc_lsb: pos(header::VC.lsb),
            kind_lsb: pos(header::KIND.lsb),
            len_lsb: pos(header::LEN.lsb),
            delay_lsb: pos(header::DELAY.lsb),
            ctrl_vc_lsb: pos(flit::CTRL_VC.lsb),
            credits_lsb: pos(flit::CTRL_CREDITS.lsb),
            code_idle: code(ControlCode::Idle),
            code_credit: code(ControlCode::CrdtRet),
            code_bad_first: code(ControlCode::HeadBadPkt),
            code_bad_last: code(ControlCode::TailBadPkt),
            code_lt_first: code(ControlCode::LinkTransfer(0)),
            kind_limit: Constant::new(Bits::from(PacketKind::ALL.len() as u64)),
        }
    }
}

impl Logic for FlitDecoder {
    #[hdl_gen]
    fn update(&mut self) {
        self.is_body.next = self.flit.val().get_bit(self.type_bit.val().index());
        self.is_head.next = (!self.flit.val().get_bit(self.type_bit.val().index()))
            & self.flit.val().get_bit(self.head_bit.val().index());
        self.is_tail.next = (!self.flit.val().get_bit(self.type_bit.val().index()))
            & (!self.flit.val().get_bit(self.head_bit.val().index()))
            & self.flit.val().get_bit(self.tail_bit.val().index());
        self.is_control.next = (!self.flit.val().get_bit(self.type_bit.val().index()))
            & (!self.flit.val().get_bit(self.head_bit.val().index()))
            & (!self.flit.val().get_bit(self.tail_bit.val().index()));
        self.code.next = self.flit.val().get_bits::<6>(self.code_lsb.val().index());
        self.dst.next = self.flit.val().get_bits::<16>(self.dst_lsb.val().index());
        self.src.next = self.flit.val().get_bits::<16>(self.src_lsb.val().index());
        self.vc.next = self.flit.val().get_bits::<3>(self.vc_lsb.val().index());
        self.kind.next = self.flit.val().get_bits::<4>(self.kind_lsb.val().index());
        self.len.next = self.flit.val().get_bits::<8>(self.len_lsb.val().index());
        self.delay.next = self.flit.val().get_bits::<12>(self.delay_lsb.val().index());
        self.ctrl_vc.next = self
            .flit
            .val()
            .get_bits::<3>(self.ctrl_vc_lsb.val().index());
        self.credits.next = self
            .flit
            .val()
            .get_bits::<16>(self.credits_lsb.val().index());
        self.is_idle.next = self.is_control.val() & (self.code.val() == self.code_idle.val());
        self.is_credit.next = self.is_control.val() & (self.code.val() == self.code_credit.val());
        self.is_bad_marker.next = self.is_control.val()
            & (self.code.val() >= self.code_bad_first.val())
            & (self.code.val() <= self.code_bad_last.val());
        self.is_link_transfer.next =
            self.is_control.val() & (self.code.val() >= self.code_lt_first.val());
        self.malformed.next = ((!self.flit.val().get_bit(self.type_bit.val().index()))
            & self.flit.val().get_bit(self.head_bit.val().index())
            & self.flit.val().get_bit(self.tail_bit.val().index()))
            | (self.is_head.val() & (self.kind.val() >= self.kind_limit.val()))
            | (self.is_control.val()
                & (self.code.val() > self.code_bad_last.val())
                & (self.code.val() < self.code_lt_first.val()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{flit, header};

    /// The literal widths in `update` must equal the table widths.
    #[test]
    fn widths_match_the_format_tables() {
        let d = FlitDecoder::default();
        assert_eq!(d.code.val().len(), flit::CODE.width);
        assert_eq!(d.dst.val().len(), header::DST.width);
        assert_eq!(d.src.val().len(), header::SRC.width);
        assert_eq!(d.vc.val().len(), header::VC.width);
        assert_eq!(d.kind.val().len(), header::KIND.width);
        assert_eq!(d.len.val().len(), header::LEN.width);
        assert_eq!(d.delay.val().len(), header::DELAY.width);
        assert_eq!(d.ctrl_vc.val().len(), flit::CTRL_VC.width);
        assert_eq!(d.credits.val().len(), flit::CTRL_CREDITS.width);
        assert_eq!(d.flit.val().len(), flit::FLIT_BITS);
    }

    #[test]
    fn flit_decoder_is_synthesizable() {
        let mut uut = FlitDecoder::default();
        uut.connect_all();
        yosys_validate("flit_decoder", &generate_verilog(&uut)).unwrap();
    }
}
