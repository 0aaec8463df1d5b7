//! Reference model of `CommitFifo`, exact per clock edge: after every edge, the hardware's
//! `source.valid` is "some committed entry not yet read", `source.data` the oldest one, and
//! `overflow` the model's flag.
use std::collections::VecDeque;

/// Transaction model of the LTP staging FIFO.
#[derive(Clone, Debug)]
pub struct CommitFifoModel {
    depth: usize,
    /// Committed entries not yet read, oldest first.
    pub committed: VecDeque<u128>,
    /// Entries written since the last commit.
    pub pending: Vec<u128>,
    /// Sticky overflow.
    pub overflow: bool,
}

impl CommitFifoModel {
    /// An empty FIFO of `depth` slots.
    pub fn new(depth: usize) -> Self {
        Self {
            depth,
            committed: VecDeque::new(),
            pending: vec![],
            overflow: false,
        }
    }

    /// Reset: empty, overflow cleared (the block's documented reset).
    pub fn reset(&mut self) {
        *self = Self::new(self.depth);
    }

    /// Slots a write in this cycle would find in use (a rollback in the same cycle frees the
    /// pending ones first; a read in the same cycle does not count).
    pub fn used(&self, rollback: bool) -> usize {
        self.committed.len() + if rollback { 0 } else { self.pending.len() }
    }

    /// Would a write in this cycle be dropped?
    pub fn full(&self, rollback: bool) -> bool {
        self.used(rollback) >= self.depth
    }

    /// One clock edge: `commit`/`rollback` act on the entries of earlier cycles, then `write`
    /// is stored (or dropped if full), then the oldest committed entry is read if `pop`
    /// (returned). Panics on a read with nothing committed, or on `commit && rollback`.
    pub fn edge(
        &mut self,
        write: Option<u128>,
        commit: bool,
        rollback: bool,
        pop: bool,
    ) -> Option<u128> {
        assert!(!(commit && rollback), "model: commit and rollback together");
        let full = self.full(rollback);
        if rollback {
            self.pending.clear();
        }
        if commit {
            self.committed.extend(self.pending.drain(..));
        }
        if let Some(w) = write {
            if full {
                self.overflow = true;
            } else {
                self.pending.push(w);
            }
        }
        if pop {
            let v = self.committed.pop_front();
            assert!(v.is_some(), "model: read with nothing committed");
            v
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_cycle_write_belongs_to_the_next_group() {
        let mut m = CommitFifoModel::new(4);
        m.edge(Some(1), false, false, false);
        m.edge(Some(2), true, false, false);
        assert_eq!(m.committed, [1]);
        m.edge(Some(3), false, true, false);
        assert_eq!(m.pending, [3]);
        m.edge(None, true, false, false);
        assert_eq!(m.committed, [1, 3]);
        m.edge(Some(4), false, false, false);
        m.edge(Some(5), false, false, false);
        m.edge(Some(6), false, false, false);
        assert!(m.overflow);
        assert_eq!(m.pending, [4, 5]);
    }
}
