//! Reference model of `nic::tag_pool::TagPool`: one allocated bit and owner per tag, the lowest
//! free tag offered, bad frees ignored and reported (on any of the three free ports; a tag
//! freed on an earlier port in the same cycle is a bad free on a later one), cycle-accurate at
//! the pool's ports.

/// The pool's outputs in one cycle (before the edge).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TagPoolOutputs {
    /// The offered tag (`None`: every tag allocated).
    pub offered: Option<u8>,
    /// A free of a tag not allocated is ignored this cycle.
    pub bad_free: bool,
    /// The looked-up tag's owner, if allocated.
    pub lookup: Option<u8>,
    /// Tags allocated.
    pub in_use: usize,
}

/// The pool's inputs in one cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct TagPoolInputs {
    /// Synchronous reset.
    pub reset: bool,
    /// The requester takes the offered tag (with this owner) if one is offered.
    pub take: Option<u8>,
    /// A tag given back.
    pub free: Option<u8>,
    /// A tag given back on the second free port.
    pub free_second: Option<u8>,
    /// A tag given back on the third free port.
    pub free_third: Option<u8>,
    /// The tag whose owner is looked up.
    pub lookup: u8,
}

/// The model.
#[derive(Clone, Debug)]
pub struct TagPoolModel {
    /// Per tag: its owner while allocated.
    pub owners: Vec<Option<u8>>,
}

impl TagPoolModel {
    /// A pool of `tags` tags, all free.
    pub fn new(tags: usize) -> Self {
        Self {
            owners: vec![None; tags],
        }
    }
    /// Tags allocated.
    pub fn in_use(&self) -> usize {
        self.owners.iter().filter(|o| o.is_some()).count()
    }
    /// The outputs for inputs `i` in this cycle.
    pub fn outputs(&self, i: &TagPoolInputs) -> TagPoolOutputs {
        let good = |t: u8| self.owners.get(t as usize).is_some_and(|o| o.is_some());
        TagPoolOutputs {
            offered: self
                .owners
                .iter()
                .position(|o| o.is_none())
                .map(|t| t as u8),
            bad_free: !i.reset
                && (i.free.is_some_and(|t| !good(t))
                    || i.free_second.is_some_and(|t| !good(t) || i.free == Some(t))
                    || i.free_third.is_some_and(|t| {
                        !good(t) || i.free == Some(t) || i.free_second == Some(t)
                    })),
            lookup: self.owners.get(i.lookup as usize).copied().flatten(),
            in_use: self.in_use(),
        }
    }
    /// The edge: returns the tag allocated on it, if any.
    pub fn edge(&mut self, i: &TagPoolInputs) -> Option<u8> {
        let out = self.outputs(i);
        if i.reset {
            self.owners.iter_mut().for_each(|o| *o = None);
            return None;
        }
        for t in [i.free, i.free_second, i.free_third].into_iter().flatten() {
            if let Some(o) = self.owners.get_mut(t as usize) {
                *o = None;
            }
        }
        match (out.offered, i.take) {
            (Some(t), Some(owner)) => {
                self.owners[t as usize] = Some(owner);
                Some(t)
            }
            _ => None,
        }
    }
}
