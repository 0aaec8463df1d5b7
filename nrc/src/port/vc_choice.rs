//! `VcChoice`: the output VC of a routed head, by the router's VC policy
//! ([`hdl::vc_policy`], where the rule is written once; this block's tables are built by
//! calling it at elaboration).
//!
//! Inputs: the VC the head came in on, its `kind` and `dst`, and whether the chosen output
//! port leads down the fat tree (`down`, from the port's down mask). Output: `out_vc`,
//! combinational. Management heads get `network.mgmt_vc`, GET heads their input VC, others:
//! a table of (input VC, down) for `keep` and `up_down`, and for `dest_mod` a table of
//! `dst mod n` (n the data VCs), computed by a chain of 16 compare-and-subtract steps (no
//! divider: `n` is a constant, so each step is a constant comparison).
//!
//! Parameters: `VCB` bits of a VC number; elaboration values in [`VcChoice::new`].
use hdl::formats::PacketKind;
use hdl::vc_policy::{data_vcs, VcPolicy};
use rust_hdl::prelude::*;

/// Bits of the remainder chain (16-bit destinations, divisors up to 7 << 15).
const REM_BITS: usize = 20;
/// Bits of a destination (`hdl::formats::header::DST`).
const DST_BITS: usize = 16;
/// One past the last remainder of the chain.
const REM_END: usize = DST_BITS + 1;

/// The output-VC function of one input port; see the module documentation.
#[derive(LogicBlock)]
pub struct VcChoice<const VCB: usize> {
    /// The VC the head came in on.
    pub in_vc: Signal<In, Bits<VCB>>,
    /// The head's `kind` field.
    pub kind: Signal<In, Bits<4>>,
    /// The head's `dst` field.
    pub dst: Signal<In, Bits<DST_BITS>>,
    /// The chosen output port leads down.
    pub down: Signal<In, bool>,
    /// The VC the packet leaves on.
    pub out_vc: Signal<Out, Bits<VCB>>,
    /// Per input VC: the output VC of a data packet going up / down (`keep`, `up_down`).
    up_vcs: Vec<Constant<Bits<VCB>>>,
    down_vcs: Vec<Constant<Bits<VCB>>>,
    /// Per input VC: the output VC of a GET packet.
    get_vcs: Vec<Constant<Bits<VCB>>>,
    /// Per `dst mod n`: the output VC (`dest_mod`).
    mod_vcs: Vec<Constant<Bits<VCB>>>,
    /// `n << (15 - k)` for step `k` of the remainder chain.
    divisors: Vec<Constant<Bits<REM_BITS>>>,
    remainders: Vec<Signal<Local, Bits<REM_BITS>>>,
    /// `dst mod n`.
    remainder: Signal<Local, Bits<REM_BITS>>,
    mgmt_vc: Constant<Bits<VCB>>,
    dest_mod: Constant<bool>,
    kind_mgmt: Constant<Bits<4>>,
    kind_get: Constant<Bits<4>>,
}

impl<const VCB: usize> VcChoice<VCB> {
    /// The choice of `policy` for `vcs` VCs with management on `mgmt_vc`.
    pub fn new(policy: VcPolicy, vcs: usize, mgmt_vc: usize) -> Self {
        assert!(
            (1..=8).contains(&vcs) && mgmt_vc < vcs,
            "VcChoice: network.mgmt_vc ({mgmt_vc}) must be below network.vcs ({vcs})"
        );
        assert_eq!(VCB, hdl::channel::channel_vc_bits(vcs), "VcChoice: VCB");
        assert_eq!(hdl::formats::header::DST.width, DST_BITS);
        let n = data_vcs(vcs, mgmt_vc).len();
        assert!(
            policy != VcPolicy::UpDown || n >= 2,
            "VcChoice: router.vc_policy up_down needs at least 2 data VCs, got {n}"
        );
        let c = |v: usize| Constant::new(Bits::<VCB>::from(v as u64));
        let rule = |v, kind, dst, down| policy.out_vc(vcs, mgmt_vc, v, kind, dst, down);
        Self {
            in_vc: Default::default(),
            kind: Default::default(),
            dst: Default::default(),
            down: Default::default(),
            out_vc: Default::default(),
            up_vcs: (0..vcs)
                .map(|v| c(rule(v, PacketKind::Nap, 0, false)))
                .collect(),
            down_vcs: (0..vcs)
                .map(|v| c(rule(v, PacketKind::Nap, 0, true)))
                .collect(),
            get_vcs: (0..vcs)
                .map(|v| c(rule(v, PacketKind::Get, 0, false)))
                .collect(),
            mod_vcs: (0..n)
                .map(|r| c(rule(0, PacketKind::Nap, r as u64, false)))
                .collect(),
            divisors: (0..DST_BITS)
                .map(|k| Constant::new(Bits::from((n as u64) << (DST_BITS - 1 - k))))
                .collect(),
            remainders: (0..=DST_BITS).map(|_| Default::default()).collect(),
            remainder: Default::default(),
            mgmt_vc: c(rule(0, PacketKind::Mgmt, 0, false)),
            dest_mod: Constant::new(policy == VcPolicy::DestMod),
            kind_mgmt: Constant::new((PacketKind::Mgmt.code() as u64).into()),
            kind_get: Constant::new((PacketKind::Get.code() as u64).into()),
        }
    }
}

impl<const VCB: usize> Logic for VcChoice<VCB> {
    #[hdl_gen]
    fn update(&mut self) {
        // dst mod n: restoring reduction, one constant compare-and-subtract per bit.
        self.remainders[0].next = bit_cast::<REM_BITS, DST_BITS>(self.dst.val());
        for k in 0..DST_BITS {
            self.remainders[k + 1].next = self.remainders[k].val();
            if self.remainders[k].val() >= self.divisors[k].val() {
                self.remainders[k + 1].next = self.remainders[k].val() - self.divisors[k].val();
            }
        }
        // A one-pass loop: rust-hdl indexes vectors only by loop variables.
        for k in DST_BITS..REM_END {
            self.remainder.next = self.remainders[k].val();
        }
        self.out_vc.next = self.mgmt_vc.val();
        for v in 0..self.up_vcs.len() {
            if self.in_vc.val().index() == v {
                self.out_vc.next = self.up_vcs[v].val();
                if self.down.val() {
                    self.out_vc.next = self.down_vcs[v].val();
                }
                if self.kind.val() == self.kind_get.val() {
                    self.out_vc.next = self.get_vcs[v].val();
                }
            }
        }
        if self.dest_mod.val() & (self.kind.val() != self.kind_get.val()) {
            for r in 0..self.mod_vcs.len() {
                if self.remainder.val().index() == r {
                    self.out_vc.next = self.mod_vcs[r].val();
                }
            }
        }
        if self.kind.val() == self.kind_mgmt.val() {
            self.out_vc.next = self.mgmt_vc.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every input VC, kind, down flag and a spread of destinations, against the rule.
    fn check<const VCB: usize>(vcs: usize, mgmt: usize) {
        for (policy, _, _) in VcPolicy::ALL {
            if policy == VcPolicy::UpDown && data_vcs(vcs, mgmt).len() < 2 {
                continue;
            }
            let mut uut = VcChoice::<VCB>::new(policy, vcs, mgmt);
            uut.connect_all();
            for v in 0..vcs {
                for (kind, _, _) in PacketKind::ALL {
                    for down in [false, true] {
                        for dst in [0u64, 1, 2, 5, 6, 7, 100, 4095, 65534, 65535] {
                            uut.in_vc.next = (v as u64).into();
                            uut.kind.next = (kind.code() as u64).into();
                            uut.dst.next = dst.into();
                            uut.down.next = down;
                            assert!(simulate(&mut uut, 100));
                            assert_eq!(
                                uut.out_vc.val().index(),
                                policy.out_vc(vcs, mgmt, v, kind, dst, down),
                                "{policy:?} vcs {vcs} mgmt {mgmt} in {v} {kind:?} dst {dst} down {down}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn vc_choice_follows_the_rule() {
        check::<3>(6, 3);
        check::<3>(8, 7);
        check::<1>(2, 1);
        check::<2>(3, 0);
        let mut uut = VcChoice::<3>::new(VcPolicy::DestMod, 6, 3);
        uut.connect_all();
        yosys_validate("vc_choice", &generate_verilog(&uut)).unwrap();
    }
}
