//! The VC policy of a router (issue 11, item 4): the virtual channel a packet leaves on, as a
//! function of the VC it came in on, its kind, its destination and whether the output port
//! chosen leads down the fat tree. Written once here: the router's hardware builds its
//! elaboration tables by calling [`VcPolicy::out_vc`], the benches' models call it, and the
//! configuration documents it (`router.vc_policy`).
//!
//! **Data VCs** are the VCs other than `network.mgmt_vc`, in increasing order (with a single VC,
//! that VC). The rule, by packet kind:
//! - **Mgmt**: always `network.mgmt_vc`.
//! - **Get** (read requests): always the VC it came in on (GET requests travel on their own VC,
//!   chosen by the source; keeping it keeps them apart from the responses they cause).
//! - any other kind, by policy:
//!   - [`VcPolicy::Keep`]: the VC it came in on;
//!   - [`VcPolicy::DestMod`]: data VC number `dst mod n` of the `n` data VCs (the source's
//!     Dest-Mod policy, spec nic-dma-sriov.md: packets for one destination share a VC, packets
//!     for different destinations spread over all);
//!   - [`VcPolicy::UpDown`]: for fat trees. The data VCs are split in a lower half (the first
//!     `n / 2`) and an upper half (the rest). A packet on an upper-half VC stays on it; a packet
//!     that leaves on a *down* port moves from lower data VC `i` to upper data VC `i + n / 2`; a
//!     packet going up keeps its VC. A packet that came in on a VC that is not a data VC (the
//!     management VC) counts as lower data VC 0. So a packet that has turned downward never
//!     shares a VC with packets still going up, which breaks the cyclic dependency an
//!     up-after-down turn would make. Needs at least 2 data VCs (a configuration cross-check).
use crate::formats::PacketKind;

/// How a router picks the output VC of a data packet (`router.vc_policy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VcPolicy {
    /// Output VC = input VC.
    Keep,
    /// Data VC `dst mod n` of the `n` data VCs.
    DestMod,
    /// Lower half of the data VCs going up, upper half once turned down.
    UpDown,
}

impl VcPolicy {
    /// Every policy with its configuration code and name, for documentation.
    pub const ALL: [(VcPolicy, u32, &'static str); 3] = [
        (VcPolicy::Keep, 0, "keep"),
        (VcPolicy::DestMod, 1, "dest_mod"),
        (VcPolicy::UpDown, 2, "up_down"),
    ];

    /// The policy of configuration code `code` (`router.vc_policy`), `None` if out of range.
    pub fn from_code(code: u32) -> Option<Self> {
        Self::ALL.iter().find(|p| p.1 == code).map(|p| p.0)
    }

    /// The policy's name.
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|p| p.0 == self).expect("listed").2
    }

    /// The output VC of a packet of `kind` for `dst` that came in on `in_vc`, leaving on a port
    /// that leads down (`down`), with `vcs` VCs of which `mgmt_vc` carries management.
    pub fn out_vc(
        self,
        vcs: usize,
        mgmt_vc: usize,
        in_vc: usize,
        kind: PacketKind,
        dst: u64,
        down: bool,
    ) -> usize {
        let data = data_vcs(vcs, mgmt_vc);
        let n = data.len();
        match kind {
            PacketKind::Mgmt => mgmt_vc,
            PacketKind::Get => in_vc,
            _ => match self {
                VcPolicy::Keep => in_vc,
                VcPolicy::DestMod => data[(dst % n as u64) as usize],
                VcPolicy::UpDown => {
                    let half = n / 2;
                    let i = data.iter().position(|&d| d == in_vc).unwrap_or(0);
                    if i < half && down {
                        data[i + half]
                    } else {
                        data[i]
                    }
                }
            },
        }
    }
}

/// The data VCs: every VC but `mgmt_vc`, in order; with one VC, that VC.
pub fn data_vcs(vcs: usize, mgmt_vc: usize) -> Vec<usize> {
    if vcs <= 1 {
        return vec![0];
    }
    (0..vcs).filter(|&v| v != mgmt_vc).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_by_kind_and_policy() {
        // The published router: 6 VCs, management on VC 3: data VCs 0, 1, 2, 4, 5.
        let (vcs, m) = (6, 3);
        assert_eq!(data_vcs(vcs, m), vec![0, 1, 2, 4, 5]);
        for p in [VcPolicy::Keep, VcPolicy::DestMod, VcPolicy::UpDown] {
            for v in 0..vcs {
                assert_eq!(p.out_vc(vcs, m, v, PacketKind::Mgmt, 9, true), m);
                assert_eq!(p.out_vc(vcs, m, v, PacketKind::Get, 9, true), v);
            }
        }
        assert_eq!(
            VcPolicy::Keep.out_vc(vcs, m, 4, PacketKind::Put, 7, true),
            4
        );
        assert_eq!(
            VcPolicy::DestMod.out_vc(vcs, m, 0, PacketKind::Nap, 8, false),
            4
        );
        // Halves: lower 0, 1; upper 2, 4, 5.
        let ud = |v, down| VcPolicy::UpDown.out_vc(vcs, m, v, PacketKind::Put, 0, down);
        assert_eq!((ud(0, false), ud(0, true)), (0, 2));
        assert_eq!((ud(1, false), ud(1, true)), (1, 4));
        assert_eq!((ud(4, false), ud(4, true)), (4, 4));
        assert_eq!(ud(3, true), 2, "the management VC counts as data VC 0");
        assert_eq!(data_vcs(1, 0), vec![0]);
        for (p, c, n) in VcPolicy::ALL {
            assert_eq!(VcPolicy::from_code(c), Some(p));
            assert_eq!(p.name(), n);
        }
        assert_eq!(VcPolicy::from_code(3), None);
    }
}
