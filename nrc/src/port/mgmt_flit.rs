//! `MgmtFlit`: what [`MgmtTransit`](super::MgmtTransit) needs to know of the flit the intake
//! stores in this cycle: it is on the management VC (`here`, only when transit is enabled), a
//! body (`body`: the type bit), its 64-bit data word (`data`), and whether it opens a
//! management packet (`opens`: a head of kind Mgmt with `len` = `MGMT_FLITS` on the
//! management VC).
//!
//! Combinational, no state, no reset; `arriving` is only watched (its valid, VC and flit).
//! A pipeline stage of the transit block: no bench of its own, covered by the
//! `mgmt_transit` bench.
//!
//! Parameters: `VCB` as the DAMQ; elaboration values: the management VC, transit enabled.
use super::VcWriteSink;
use hdl::formats::flit::{HEAD_BIT, TYPE_BIT};
use hdl::formats::header::{KIND, LEN};
use hdl::formats::mgmt::MGMT_FLITS;
use hdl::formats::PacketKind;
use rust_hdl::prelude::*;

/// The management view of the flit stored; see the module documentation.
#[derive(LogicBlock)]
pub struct MgmtFlit<const VCB: usize> {
    /// What the intake stores (watched).
    pub arriving: VcWriteSink<VCB>,
    /// A flit on the management VC (transit enabled).
    pub here: Signal<Out, bool>,
    /// It is a body.
    pub body: Signal<Out, bool>,
    /// Its data word.
    pub data: Signal<Out, Bits<64>>,
    /// It is a 10-flit management head on the management VC: it opens a packet.
    pub opens: Signal<Out, bool>,
    enabled: Constant<bool>,
    mgmt_vc: Constant<Bits<VCB>>,
    kind_mgmt: Constant<Bits<4>>,
    mgmt_len: Constant<Bits<8>>,
    /// It is a head.
    head: Signal<Local, bool>,
    kind_lsb: Constant<Bits<7>>,
    len_lsb: Constant<Bits<7>>,
    type_bit: Constant<Bits<7>>,
    head_bit: Constant<Bits<7>>,
}

impl<const VCB: usize> MgmtFlit<VCB> {
    /// The view for management VC `mgmt_vc`; with `enabled` false no flit is `here`.
    pub fn new(mgmt_vc: usize, enabled: bool) -> Self {
        let k7 = |v: usize| Constant::new(Bits::<7>::from(v as u64));
        Self {
            arriving: Default::default(),
            here: Default::default(),
            head: Default::default(),
            body: Default::default(),
            data: Default::default(),
            opens: Default::default(),
            enabled: Constant::new(enabled),
            mgmt_vc: Constant::new((mgmt_vc as u64).into()),
            kind_mgmt: Constant::new((PacketKind::Mgmt.code() as u64).into()),
            mgmt_len: Constant::new((MGMT_FLITS as u64).into()),
            kind_lsb: k7(KIND.lsb),
            len_lsb: k7(LEN.lsb),
            type_bit: k7(TYPE_BIT),
            head_bit: k7(HEAD_BIT),
        }
    }
}

impl<const VCB: usize> Logic for MgmtFlit<VCB> {
    #[hdl_gen]
    fn update(&mut self) {
        self.here.next = self.arriving.valid.val()
            & (self.arriving.vc.val() == self.mgmt_vc.val())
            & self.enabled.val();
        self.head.next = !self
            .arriving
            .flit
            .val()
            .get_bit(self.type_bit.val().index())
            & self
                .arriving
                .flit
                .val()
                .get_bit(self.head_bit.val().index());
        self.body.next = self
            .arriving
            .flit
            .val()
            .get_bit(self.type_bit.val().index());
        self.data.next = self.arriving.flit.val().get_bits::<64>(0);
        self.opens.next = self.here.val()
            & self.head.val()
            & (self
                .arriving
                .flit
                .val()
                .get_bits::<4>(self.kind_lsb.val().index())
                == self.kind_mgmt.val())
            & (self
                .arriving
                .flit
                .val()
                .get_bits::<8>(self.len_lsb.val().index())
                == self.mgmt_len.val());
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn mgmt_flit_is_synthesizable() {
        use super::*;
        let mut uut = MgmtFlit::<2>::new(1, true);
        uut.connect_all();
        yosys_validate("mgmt_flit", &generate_verilog(&uut)).unwrap();
    }
}
