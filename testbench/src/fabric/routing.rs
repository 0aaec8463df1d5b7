//! The two-level fat tree of the fabric bench and its routing function: which routers and NICs
//! there are, which port of which leads where, and each router's route table (destination ->
//! set of allowed output ports), computed with up/down routing around the links declared dead.
//!
//! Topology (5-port routers): `LEAVES` leaves, each with `NICS_PER_LEAF` NICs on ports
//! `0..NICS_PER_LEAF` (down) and one up port per spine (`NICS_PER_LEAF + s` to spine `s`);
//! `SPINES` spines, spine port `l` down to leaf `l`. NIC `n` is on leaf `n / NICS_PER_LEAF`,
//! port `n % NICS_PER_LEAF`; its node ID is `n`.
//!
//! Up/down routing: a packet goes up only while its destination is under another leaf, then
//! only down, so no cycle of channel dependencies exists and one VC is deadlock free. A leaf
//! allows every live up port for a remote destination (the adaptive choice spreads over them),
//! a spine its down port to the destination's leaf if that link is alive.
use std::collections::BTreeSet;

/// Leaves.
pub const LEAVES: usize = 4;
/// Spines.
pub const SPINES: usize = 2;
/// NICs per leaf (the leaves' down ports).
pub const NICS_PER_LEAF: usize = 3;
/// NICs in the fabric.
pub const NICS: usize = LEAVES * NICS_PER_LEAF;
/// Routers: leaves `0..LEAVES`, then spines.
pub const ROUTERS: usize = LEAVES + SPINES;
/// Ports of every router.
pub const ROUTER_PORTS: usize = 5;

/// One end of a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum End {
    /// Router `r`, port `p`.
    Router(usize, usize),
    /// NIC `n`.
    Nic(usize),
}

/// The router index of spine `s`.
pub fn spine(s: usize) -> usize {
    LEAVES + s
}

/// The leaf of NIC `n`.
pub fn leaf_of(n: usize) -> usize {
    n / NICS_PER_LEAF
}

/// Every link of the tree, each once (`(a, b)`, full duplex).
pub fn links() -> Vec<(End, End)> {
    let mut out = vec![];
    for n in 0..NICS {
        out.push((End::Nic(n), End::Router(leaf_of(n), n % NICS_PER_LEAF)));
    }
    for l in 0..LEAVES {
        for s in 0..SPINES {
            out.push((End::Router(l, NICS_PER_LEAF + s), End::Router(spine(s), l)));
        }
    }
    out
}

/// A leaf-spine link, named by its leaf and spine.
pub type UpLink = (usize, usize);

/// Router `r`'s route table for destinations `0..NICS`: bit `p` = output port `p` allowed
/// (0: no route), with the up links in `dead` out of use.
pub fn table(r: usize, dead: &BTreeSet<UpLink>) -> Vec<u8> {
    (0..NICS)
        .map(|d| {
            let dl = leaf_of(d);
            if r < LEAVES {
                if dl == r {
                    1 << (d % NICS_PER_LEAF)
                } else {
                    // Up through every spine that reaches the destination's leaf, on live links.
                    (0..SPINES)
                        .filter(|&s| !dead.contains(&(r, s)) && !dead.contains(&(dl, s)))
                        .fold(0u8, |m, s| m | 1 << (NICS_PER_LEAF + s))
                }
            } else {
                let s = r - LEAVES;
                if dead.contains(&(dl, s)) {
                    0
                } else {
                    1 << dl
                }
            }
        })
        .collect()
}

/// The output ports a management packet takes from NIC 0 (on leaf 0) to router `r`, first
/// router first, avoiding the dead up links (`None` if `r` cannot be reached).
pub fn mgmt_path(r: usize, dead: &BTreeSet<UpLink>) -> Option<Vec<u8>> {
    if r == 0 {
        return Some(vec![]);
    }
    let live = |l: usize, s: usize| !dead.contains(&(l, s));
    if r >= LEAVES {
        let s = r - LEAVES;
        if live(0, s) {
            return Some(vec![(NICS_PER_LEAF + s) as u8]);
        }
        // Through another spine, another leaf, then up to `s`.
        for s2 in 0..SPINES {
            for l in 1..LEAVES {
                if s2 != s && live(0, s2) && live(l, s2) && live(l, s) {
                    return Some(vec![
                        (NICS_PER_LEAF + s2) as u8,
                        l as u8,
                        (NICS_PER_LEAF + s) as u8,
                    ]);
                }
            }
        }
        return None;
    }
    (0..SPINES)
        .find(|&s| live(0, s) && live(r, s))
        .map(|s| vec![(NICS_PER_LEAF + s) as u8, r as u8])
}

/// The destination of each NIC in an adversarial permutation for deterministic routing: every
/// NIC sends to a NIC under another leaf, chosen so that the deterministic choice
/// (`(src XOR dst) mod ports`, then the first allowed port at or after it) sends all of a
/// leaf's flows up through the same spine. Found by search; `None` if there is none.
pub fn adversarial_permutation() -> Option<Vec<usize>> {
    let up = |src: usize, dst: usize| {
        let allowed = table(leaf_of(src), &BTreeSet::new())[dst];
        crate::router_core_bench::deterministic_port(allowed, src as u16, dst as u16)
    };
    // Leaf l sends to leaf (l + 1) mod LEAVES; pick, per leaf, a matching of its NICs to the
    // next leaf's NICs whose flows all choose one spine.
    let mut perm = vec![0; NICS];
    for l in 0..LEAVES {
        let next = (l + 1) % LEAVES;
        let srcs: Vec<usize> = (0..NICS_PER_LEAF).map(|k| l * NICS_PER_LEAF + k).collect();
        let dsts: Vec<usize> = (0..NICS_PER_LEAF)
            .map(|k| next * NICS_PER_LEAF + k)
            .collect();
        let mut found = None;
        for order in permutations(&dsts) {
            let ports: BTreeSet<usize> = srcs.iter().zip(&order).map(|(&s, &d)| up(s, d)).collect();
            if ports.len() == 1 {
                found = Some(order);
                break;
            }
        }
        let order = found?;
        for (s, d) in srcs.into_iter().zip(order) {
            perm[s] = d;
        }
    }
    Some(perm)
}

fn permutations(v: &[usize]) -> Vec<Vec<usize>> {
    if v.len() <= 1 {
        return vec![v.to_vec()];
    }
    let mut out = vec![];
    for i in 0..v.len() {
        let mut rest = v.to_vec();
        let x = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, x);
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_destination_is_reachable_from_every_leaf() {
        let none = BTreeSet::new();
        for src in 0..NICS {
            for dst in 0..NICS {
                let t = table(leaf_of(src), &none);
                assert_ne!(t[dst], 0, "{src} -> {dst}");
            }
        }
        let dead: BTreeSet<UpLink> = [(1, 0)].into();
        assert_eq!(
            table(0, &dead)[3],
            1 << 4,
            "leaf 0 reaches leaf 1 through spine 1 only"
        );
        assert_eq!(
            table(spine(0), &dead)[3],
            0,
            "spine 0 no longer reaches leaf 1"
        );
        assert_eq!(mgmt_path(1, &dead), Some(vec![4, 1]));
        assert_eq!(mgmt_path(spine(0), &dead), Some(vec![3]));
    }
}
